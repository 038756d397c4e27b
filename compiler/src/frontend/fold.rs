//! Folding typed expressions to constants, with HLSL's 32-bit (or 16-bit)
//! semantics, so that a constant folds to exactly what the kernel would
//! compute. Semantic analysis uses it for array sizes, `numthreads`, case
//! labels and `static const` values; the lowering for the induction
//! variables of `[unroll]` loops.

use super::tast::*;

/// A float constant's value (integers and bools by value).
pub fn f64_of(c: Const) -> f64 {
    match c {
        Const::Bool(b) => b as i32 as f64,
        Const::Int(i) => i as f64,
        Const::Uint(u) => u as f64,
        Const::Float(f) => f as f64,
        Const::Bits16(ScalarType::Half, b) => half::f16::from_bits(b).to_f64(),
        Const::Bits16(ScalarType::Int16, b) => b as i16 as f64,
        Const::Bits16(_, b) => b as f64,
        Const::Bits64(ScalarType::Double, b) => f64::from_bits(b),
        Const::Bits64(ScalarType::Int64, b) => b as i64 as f64,
        Const::Bits64(_, b) => b as f64,
    }
}

/// An integer constant's value (bools as 0/1); `None` for floats.
fn int128_of(c: Const) -> Option<i128> {
    Some(match c {
        Const::Bool(b) => b as i128,
        Const::Int(i) => i as i128,
        Const::Uint(u) => u as i128,
        Const::Bits16(ScalarType::Int16, b) => b as i16 as i128,
        Const::Bits16(ScalarType::Uint16, b) => b as i128,
        Const::Bits64(ScalarType::Int64, b) => b as i64 as i128,
        Const::Bits64(ScalarType::Uint64, b) => b as i128,
        _ => return None,
    })
}

/// A scalar constant converted to another scalar type (HLSL conversion rules:
/// floats to integers truncate toward zero, integers to floats round to nearest).
pub fn const_cast(c: Const, to: ScalarType) -> Const {
    let int = int128_of(c);
    // Float to integer: truncate (negative values to an unsigned type wrap like a signed conversion).
    let trunc = |bits: u32, signed: bool| -> u64 {
        let f = f64_of(c);
        if signed || f < 0.0 {
            if bits == 64 {
                f as i64 as u64
            } else {
                f as i32 as u32 as u64
            }
        } else if bits == 64 {
            f as u64
        } else {
            f as u32 as u64
        }
    };
    let to_int = |bits: u32, signed: bool| -> u64 {
        match int {
            Some(v) => v as u64,
            None => trunc(bits, signed),
        }
    };
    match to {
        ScalarType::Bool => Const::Bool(match int {
            Some(v) => v != 0,
            None => f64_of(c) != 0.0,
        }),
        ScalarType::Float => Const::Float(match c {
            // Directly, so that a wide integer rounds once.
            Const::Bits64(ScalarType::Int64, b) => b as i64 as f32,
            Const::Bits64(ScalarType::Uint64, b) => b as f32,
            Const::Int(i) => i as f32,
            Const::Uint(u) => u as f32,
            _ => f64_of(c) as f32,
        }),
        ScalarType::Double => Const::Bits64(ScalarType::Double, f64_of(c).to_bits()),
        ScalarType::Half => Const::Bits16(ScalarType::Half, half::f16::from_f64(f64_of(c)).to_bits()),
        ScalarType::Int => Const::Int(to_int(32, true) as i32),
        ScalarType::Uint => Const::Uint(to_int(32, false) as u32),
        ScalarType::Int64 => Const::Bits64(ScalarType::Int64, to_int(64, true)),
        ScalarType::Uint64 => Const::Bits64(ScalarType::Uint64, to_int(64, false)),
        ScalarType::Int16 => Const::Bits16(ScalarType::Int16, to_int(32, true) as u16),
        ScalarType::Uint16 => Const::Bits16(ScalarType::Uint16, to_int(32, false) as u16),
    }
}

/// An integer (or bool) constant's value; 64-bit ones wrap into `i64`.
pub fn int_of(c: Const) -> Option<i64> {
    int128_of(c).map(|v| v as i64)
}

/// `op` on two constants of scalar type `s` (both already of type `s`).
fn binary(op: BinaryOp, s: ScalarType, a: Const, b: Const) -> Option<Const> {
    use BinaryOp::*;
    if s.is_float() {
        // Float and half arithmetic rounds to f32 (then to half), double to f64.
        let (x, y) = (f64_of(a), f64_of(b));
        let r = if s == ScalarType::Double {
            match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Rem => x % y,
                _ => f64::NAN,
            }
        } else {
            let (x, y) = (x as f32, y as f32);
            (match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Rem => x % y,
                _ => f32::NAN,
            }) as f64
        };
        return Some(match op {
            Lt => Const::Bool(x < y),
            Le => Const::Bool(x <= y),
            Gt => Const::Bool(x > y),
            Ge => Const::Bool(x >= y),
            Eq => Const::Bool(x == y),
            Ne => Const::Bool(x != y),
            Add | Sub | Mul | Div | Rem => const_cast(Const::Bits64(ScalarType::Double, r.to_bits()), s),
            _ => return None,
        });
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
    let bits: u32 = if s.is_16bit() {
        16
    } else if s.is_64bit() {
        64
    } else {
        32
    };
    let signed = s.is_signed();
    let (x, y) = (int128_of(a)?, int128_of(b)?);
    // Wraps a result into `s` (through the unsigned 64-bit pattern).
    let wrap = |v: i128| -> Const { const_cast(Const::Bits64(ScalarType::Uint64, v as u64), s) };
    let shift = (y as u32) & (bits - 1);
    let mask = if bits == 64 { u64::MAX as i128 } else { (1i128 << bits) - 1 };
    Some(match op {
        Add => wrap(x.wrapping_add(y)),
        Sub => wrap(x.wrapping_sub(y)),
        Mul => wrap(x.wrapping_mul(y)),
        Div | Rem if y == 0 => return None,
        Div => wrap(x / y),
        Rem => wrap(x % y),
        Shl => wrap(x << shift),
        Shr => wrap(if signed { x >> shift } else { (x & mask) >> shift }),
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
                        UnaryOp::Neg if s == ScalarType::Double => Some(Const::Bits64(s, (-f64_of(c)).to_bits())),
                        UnaryOp::Neg if s.is_float() => Some(const_cast(Const::Float(-(f64_of(c) as f32)), s)),
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
