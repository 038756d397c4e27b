//! Compile-time constants: array sizes, `numthreads`, `case` labels, and
//! the values of `static const` globals and `const` locals with constant
//! initializers. Evaluation works on typed expressions with HLSL's 32-bit
//! (or 16-bit) semantics, so a constant folds to what the kernel would compute.

use super::types::const_cast;
use super::{err, Sema};
use crate::frontend::ast;
use crate::frontend::tast::*;

fn int_of(c: Const) -> Option<i64> {
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

impl Sema {
    /// The leaf values of `e` if it is a compile-time constant.
    pub(super) fn const_eval(&self, e: &Expr) -> Option<Vec<Const>> {
        Some(match &e.kind {
            ExprKind::Literal(c) => vec![*c],
            ExprKind::Local(l) => self.const_values.get(l)?.clone(),
            ExprKind::Construct { args } => {
                let mut v = Vec::new();
                for a in args {
                    v.extend(self.const_eval(a)?);
                }
                let to = self.types.leaves(e.ty);
                v.into_iter().zip(to).map(|(c, s)| const_cast(c, s)).collect()
            }
            ExprKind::Splat { operand } => {
                let c = *self.const_eval(operand)?.first()?;
                vec![c; self.types.leaf_count(e.ty) as usize]
            }
            ExprKind::Leaves { operand, pick } => {
                let v = self.const_eval(operand)?;
                pick.iter().map(|&i| v.get(i as usize).copied()).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Swizzle { base, comps } => {
                let v = self.const_eval(base)?;
                comps.iter().map(|&i| v.get(i as usize).copied()).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Cast { operand } => {
                let v = self.const_eval(operand)?;
                let to = self.types.leaves(e.ty);
                v.into_iter().zip(to).map(|(c, s)| const_cast(c, s)).collect()
            }
            ExprKind::Unary { op, operand } => {
                let v = self.const_eval(operand)?;
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
                let (a, b) = (self.const_eval(lhs)?, self.const_eval(rhs)?);
                let s = lhs.ty.scalar()?;
                a.into_iter().zip(b).map(|(x, y)| binary(*op, s, x, y)).collect::<Option<Vec<_>>>()?
            }
            ExprKind::Logical { op, lhs, rhs } => {
                let a = int_of(*self.const_eval(lhs)?.first()?)? != 0;
                let b = int_of(*self.const_eval(rhs)?.first()?)? != 0;
                vec![Const::Bool(match op {
                    LogicalOp::And => a && b,
                    LogicalOp::Or => a || b,
                })]
            }
            ExprKind::Select { cond, then_expr, else_expr } => {
                let c = int_of(*self.const_eval(cond)?.first()?)? != 0;
                self.const_eval(if c { then_expr } else { else_expr })?
            }
            ExprKind::Index { base, index } => {
                let i = int_of(*self.const_eval(index)?.first()?)? as u32;
                let v = self.const_eval(base)?;
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
                let v = self.const_eval(base)?;
                let start = self.types.field_leaf_offset(s, *field) as usize;
                let n = self.types.leaf_count(self.types.strukt(s).fields[*field as usize].ty) as usize;
                v.get(start..start + n)?.to_vec()
            }
            ExprKind::Comma { rhs, .. } => self.const_eval(rhs)?,
            _ => return None,
        })
    }

    /// A non-negative integer constant (array sizes, numthreads, template sizes).
    pub(super) fn const_uint(&mut self, e: &ast::Expr, what: &str) -> Option<u32> {
        let saved = std::mem::take(&mut self.cur_uses);
        let typed = self.expr(e);
        self.cur_uses = saved;
        let typed = typed?;
        if !typed.ty.is_scalar() || !typed.ty.scalar().is_some_and(|s| s.is_integer() || s == ScalarType::Bool) {
            let t = self.type_name(typed.ty);
            self.emit(err("E0245", format!("{what} must be an integer constant, found `{t}`"), e.span, "not an integer"));
            return None;
        }
        let Some(v) = self.const_eval(&typed).and_then(|v| v.first().copied()).and_then(int_of) else {
            self.emit(
                err("E0245", format!("{what} must be a compile-time constant"), e.span, "not a constant")
                    .with_note("use a literal, a #define, or a `static const` with a constant initializer"),
            );
            return None;
        };
        if v < 0 || v > u32::MAX as i64 {
            self.emit(err("E0245", format!("{what} `{v}` is out of range"), e.span, "out of range"));
            return None;
        }
        Some(v as u32)
    }
}
