//! Folding typed expressions to constants, with HLSL's 32-bit (or 16-bit)
//! semantics, so that a constant folds to exactly what the kernel would
//! compute. Semantic analysis uses it for array sizes, `numthreads`, case
//! labels and `static const` values; the lowering for the induction
//! variables of `[unroll]` loops.

use super::tast::*;

/// A scalar constant converted to another scalar type (HLSL conversion rules).
pub fn const_cast(c: Const, to: ScalarType) -> Const {
    let as_f64 = |c: Const| -> f64 {
        match c {
            Const::Bool(b) => b as i32 as f64,
            Const::Int(i) => i as f64,
            Const::Uint(u) => u as f64,
            Const::Float(f) => f as f64,
            Const::Bits16(ScalarType::Half, b) => half::f16::from_bits(b).to_f64(),
            Const::Bits16(ScalarType::Int16, b) => b as i16 as f64,
            Const::Bits16(_, b) => b as f64,
        }
    };
    let as_i64 = |c: Const| -> i64 {
        match c {
            Const::Bool(b) => b as i64,
            Const::Int(i) => i as i64,
            Const::Uint(u) => u as i64,
            Const::Float(f) => f as i64,
            Const::Bits16(ScalarType::Half, b) => half::f16::from_bits(b).to_f32() as i64,
            Const::Bits16(ScalarType::Int16, b) => b as i16 as i64,
            Const::Bits16(_, b) => b as i64,
        }
    };
    let is_float = matches!(c, Const::Float(_) | Const::Bits16(ScalarType::Half, _));
    match to {
        ScalarType::Bool => Const::Bool(as_f64(c) != 0.0),
        ScalarType::Float => Const::Float(match c {
            Const::Int(i) => i as f32,
            Const::Uint(u) => u as f32,
            _ => as_f64(c) as f32,
        }),
        ScalarType::Half => Const::Bits16(ScalarType::Half, half::f16::from_f64(as_f64(c)).to_bits()),
        ScalarType::Int => Const::Int(if is_float { as_f64(c) as i32 } else { as_i64(c) as i32 }),
        ScalarType::Uint => Const::Uint(if is_float {
            let f = as_f64(c);
            if f < 0.0 {
                f as i32 as u32
            } else {
                f as u32
            }
        } else {
            as_i64(c) as u32
        }),
        ScalarType::Int16 => Const::Bits16(ScalarType::Int16, if is_float { as_f64(c) as i16 as u16 } else { as_i64(c) as u16 }),
        ScalarType::Uint16 => Const::Bits16(ScalarType::Uint16, if is_float { as_f64(c) as i32 as u16 } else { as_i64(c) as u16 }),
    }
}

pub fn int_of(c: Const) -> Option<i64> {
    Some(match c {
        Const::Bool(b) => b as i64,
        Const::Int(i) => i as i64,
        Const::Uint(u) => u as i64,
        Const::Bits16(ScalarType::Int16, b) => b as i16 as i64,
        Const::Bits16(ScalarType::Uint16, b) => b as i64,
        _ => return None,
    })
}

fn f32_of(c: Const) -> f32 {
    match const_cast(c, ScalarType::Float) {
        Const::Float(f) => f,
        _ => 0.0,
    }
}

/// `op` on two constants of scalar type `s` (both already of type `s`).
fn binary(op: BinaryOp, s: ScalarType, a: Const, b: Const) -> Option<Const> {
    use BinaryOp::*;
    if s.is_float() {
        let (x, y) = (f32_of(a), f32_of(b));
        let r = match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div => x / y,
            Rem => x % y,
            Lt => return Some(Const::Bool(x < y)),
            Le => return Some(Const::Bool(x <= y)),
            Gt => return Some(Const::Bool(x > y)),
            Ge => return Some(Const::Bool(x >= y)),
            Eq => return Some(Const::Bool(x == y)),
            Ne => return Some(Const::Bool(x != y)),
            _ => return None,
        };
        return Some(const_cast(Const::Float(r), s));
    }
    if s == ScalarType::Bool {
        let (x, y) = (int_of(a)? != 0, int_of(b)? != 0);
        return Some(Const::Bool(match op {
            Eq => x == y,
            Ne => x != y,
            And | BitAnd => x && y,
            Or | BitOr => x || y,
            BitXor => x != y,
            _ => return None,
        }));
    }
    let bits = if s.is_16bit() { 16 } else { 32 };
    let signed = s.is_signed();
    let (x, y) = (int_of(a)?, int_of(b)?);
    let wrap = |v: i64| -> Const {
        let c = if bits == 16 { Const::Bits16(ScalarType::Int16, v as u16) } else { Const::Int(v as i32) };
        const_cast(c, s)
    };
    let shift = (y as u32) & (bits - 1);
    Some(match op {
        Add => wrap(x.wrapping_add(y)),
        Sub => wrap(x.wrapping_sub(y)),
        Mul => wrap(x.wrapping_mul(y)),
        Div | Rem if y == 0 => return None,
        Div => wrap(if signed { x.wrapping_div(y) } else { x / y }),
        Rem => wrap(if signed { x.wrapping_rem(y) } else { x % y }),
        Shl => wrap(x << shift),
        Shr => wrap(if signed { x >> shift } else { (x & ((1i64 << bits) - 1)) >> shift }),
        BitAnd => wrap(x & y),
        BitOr => wrap(x | y),
        BitXor => wrap(x ^ y),
        Lt => Const::Bool(x < y),
        Le => Const::Bool(x <= y),
        Gt => Const::Bool(x > y),
        Ge => Const::Bool(x >= y),
        Eq => Const::Bool(x == y),
        Ne => Const::Bool(x != y),
        And | Or => return None,
    })
}

/// Folds expressions whose values are known.
pub struct Folder<'a> {
    pub types: &'a Types,
    /// The value of a local, if known.
    pub local: &'a dyn Fn(LocalId) -> Option<Vec<Const>>,
    /// The value of `PlaceValue` (the old value in a compound assignment).
    pub place_value: Option<Vec<Const>>,
}

impl Folder<'_> {
    /// The leaf values of `e` if it is a compile-time constant.
    pub fn fold(&self, e: &Expr) -> Option<Vec<Const>> {
        Some(match &e.kind {
            ExprKind::Literal(c) => vec![*c],
            ExprKind::Local(l) => (self.local)(*l)?,
            ExprKind::Construct { args } => {
                let mut v = Vec::new();
                for a in args {
                    v.extend(self.fold(a)?);
                }
                let to = self.types.leaves(e.ty);
                v.into_iter().zip(to).map(|(c, s)| const_cast(c, s)).collect()
            }
            ExprKind::Splat { operand } => {
                let c = *self.fold(operand)?.first()?;
                vec![c; self.types.leaf_count(e.ty) as usize]
            }
            ExprKind::Leaves { operand, pick } => {
                let v = self.fold(operand)?;
                pick.iter().map(|&i| v.get(i as usize).copied()).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Swizzle { base, comps } => {
                let v = self.fold(base)?;
                comps.iter().map(|&i| v.get(i as usize).copied()).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Cast { operand } => {
                let v = self.fold(operand)?;
                let to = self.types.leaves(e.ty);
                v.into_iter().zip(to).map(|(c, s)| const_cast(c, s)).collect()
            }
            ExprKind::Unary { op, operand } => {
                let v = self.fold(operand)?;
                let s = operand.ty.scalar()?;
                v.into_iter()
                    .map(|c| match op {
                        UnaryOp::Not => Some(Const::Bool(int_of(c)? == 0)),
                        UnaryOp::Neg if s.is_float() => Some(const_cast(Const::Float(-f32_of(c)), s)),
                        UnaryOp::Neg => binary(BinaryOp::Sub, s, const_cast(Const::Int(0), s), c),
                        UnaryOp::BitNot => binary(BinaryOp::BitXor, s, c, const_cast(Const::Int(-1), s)),
                    })
                    .collect::<Option<Vec<_>>>()?
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.fold(lhs)?, self.fold(rhs)?);
                let s = lhs.ty.scalar()?;
                a.into_iter().zip(b).map(|(x, y)| binary(*op, s, x, y)).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Logical { op, lhs, rhs } => {
                let a = int_of(*self.fold(lhs)?.first()?)? != 0;
                let b = int_of(*self.fold(rhs)?.first()?)? != 0;
                vec![Const::Bool(match op {
                    LogicalOp::And => a && b,
                    LogicalOp::Or => a || b,
                })]
            }
            ExprKind::Select { cond, then_expr, else_expr } => {
                let c = int_of(*self.fold(cond)?.first()?)? != 0;
                self.fold(if c { then_expr } else { else_expr })?
            }
            ExprKind::Index { base, index } => {
                let i = int_of(*self.fold(index)?.first()?)? as u32;
                let v = self.fold(base)?;
                let (elem, count) = match base.ty {
                    Type::Array(a) => {
                        let (e, n) = self.types.array(a);
                        (self.types.leaf_count(e), n)
                    }
                    Type::Vector(_, n) => (1, n as u32),
                    Type::Matrix(_, r, c) => (c as u32, r as u32),
                    _ => return None,
                };
                if i >= count {
                    return None;
                }
                v.get((i * elem) as usize..((i + 1) * elem) as usize)?.to_vec()
            }
            ExprKind::Member { base, field } => {
                let Type::Struct(s) = base.ty else { return None };
                let v = self.fold(base)?;
                let start = self.types.field_leaf_offset(s, *field) as usize;
                let n = self.types.leaf_count(self.types.strukt(s).fields[*field as usize].ty) as usize;
                v.get(start..start + n)?.to_vec()
            }
            ExprKind::Intrinsic { op: Intrinsic::Select, args } => {
                // Element-wise (`select`, a pre-2021 `?:`): one condition per leaf, or one for all.
                let (c, t, f) = (self.fold(args.first()?)?, self.fold(args.get(1)?)?, self.fold(args.get(2)?)?);
                let mut out = Vec::with_capacity(t.len());
                for (i, (x, y)) in t.into_iter().zip(f).enumerate() {
                    let ci = *c.get(i).or(c.last())?;
                    out.push(if int_of(ci)? != 0 { x } else { y });
                }
                out
            }
            ExprKind::Comma { rhs, .. } => self.fold(rhs)?,
            ExprKind::PlaceValue => self.place_value.clone()?,
            _ => return None,
        })
    }
}
