//! Expressions: every expression lowers to its list of leaf values, with
//! operands evaluated left to right (the right side of an assignment first,
//! then the place, as DXC does); `&&`, `||` and scalar `?:` branch when the
//! side that may be skipped has effects or reads memory.

use super::convert::wide;
use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{self, Const, Expr, ExprKind, LogicalOp, ScalarType};
use crate::ir::*;

/// What evaluating an expression may do besides computing its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Impact {
    /// Nothing: it may run anywhere, or not at all.
    Pure,
    /// Reads memory: no effect, but an out-of-bounds address may fault.
    Reads,
    /// Writes, atomics, calls, barriers, or wave operations (whose results
    /// depend on which lanes run them): it runs exactly where the source says.
    Effects,
}

/// The [`Impact`] of evaluating `e`.
pub(super) fn impact(e: &Expr) -> Impact {
    let all = |xs: &[&Expr]| xs.iter().map(|x| impact(x)).max().unwrap_or(Impact::Pure);
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::PlaceValue | ExprKind::Resource(_) | ExprKind::Resources(_) => Impact::Pure,
        ExprKind::Shared(_) | ExprKind::CbufferField { .. } => Impact::Reads,
        ExprKind::GetDimensions { res, outs } => outs.iter().map(impact).max().unwrap_or(Impact::Pure).max(impact(res)).max(Impact::Reads),
        ExprKind::ConstantMember { cb, .. } => impact(cb).max(Impact::Reads),
        // An atomic step of a UAV counter.
        ExprKind::Counter { .. } => Impact::Effects,
        ExprKind::BufferElement { res, index: x } | ExprKind::RawElement { res, offset: x } => all(&[res, x]).max(Impact::Reads),
        ExprKind::Assign { .. } | ExprKind::Call { .. } | ExprKind::Atomic { .. } => Impact::Effects,
        ExprKind::Intrinsic { op, args } => {
            use tast::Intrinsic::*;
            let own = matches!(
                op,
                GroupMemoryBarrier
                    | GroupMemoryBarrierWithGroupSync
                    | DeviceMemoryBarrier
                    | DeviceMemoryBarrierWithGroupSync
                    | AllMemoryBarrier
                    | AllMemoryBarrierWithGroupSync
            ) || op.depends_on_active_lanes();
            if own {
                Impact::Effects
            } else {
                args.iter().map(impact).max().unwrap_or(Impact::Pure)
            }
        }
        ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::MatrixElems { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Leaves { operand: x, .. } => impact(x),
        ExprKind::Index { base, index } => all(&[base, index]),
        ExprKind::Construct { args } => args.iter().map(impact).max().unwrap_or(Impact::Pure),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } | ExprKind::Comma { lhs, rhs } => all(&[lhs, rhs]),
        ExprKind::Select { cond, then_expr, else_expr } => all(&[cond, then_expr, else_expr]),
    }
}

/// Does evaluating `e` have an effect, or read memory (which may fault when out of bounds)?
pub(super) fn needs_guard(e: &Expr) -> bool {
    impact(e) != Impact::Pure
}

fn uses_place_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::PlaceValue => true,
        // A nested assignment has its own place value.
        ExprKind::Assign { place, .. } => uses_place_value(place),
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::Shared(_)
        | ExprKind::CbufferField { .. }
        | ExprKind::Resource(_)
        | ExprKind::Resources(_) => false,
        ExprKind::BufferElement { res, index: x } | ExprKind::RawElement { res, offset: x } => uses_place_value(res) || uses_place_value(x),
        ExprKind::ConstantMember { cb: x, .. } | ExprKind::Counter { res: x, .. } => uses_place_value(x),
        ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::MatrixElems { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Leaves { operand: x, .. } => uses_place_value(x),
        ExprKind::Index { base, index } => uses_place_value(base) || uses_place_value(index),
        ExprKind::Construct { args } | ExprKind::Intrinsic { args, .. } => args.iter().any(uses_place_value),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } | ExprKind::Comma { lhs, rhs } => {
            uses_place_value(lhs) || uses_place_value(rhs)
        }
        ExprKind::Select { cond, then_expr, else_expr } => {
            uses_place_value(cond) || uses_place_value(then_expr) || uses_place_value(else_expr)
        }
        ExprKind::Call { args, .. } => args.iter().any(|a| match a {
            tast::Arg::In(e) => uses_place_value(e),
            tast::Arg::Out { place, .. } => uses_place_value(place),
        }),
        ExprKind::Atomic { dest, args, original, .. } => {
            uses_place_value(dest) || args.iter().any(uses_place_value) || original.as_deref().is_some_and(uses_place_value)
        }
        ExprKind::GetDimensions { res, outs } => uses_place_value(res) || outs.iter().any(uses_place_value),
    }
}

impl Lowerer<'_> {
    /// The single value of a scalar expression.
    pub(super) fn scalar(&mut self, e: &Expr) -> Value {
        let vals = self.expr(e);
        match vals.first() {
            Some(&v) => v,
            None => {
                self.internal("an expression produced no value", e.span);
                self.iconst(0, e.span)
            }
        }
    }

    /// A scalar condition as a bool.
    pub(super) fn bool_expr(&mut self, e: &Expr) -> Value {
        let v = self.scalar(e);
        let s = e.ty.scalar().unwrap_or(ScalarType::Bool);
        if s == ScalarType::Bool {
            return v;
        }
        self.as_bool(s, v, e.span)
    }

    /// Lowers `e` to one value per leaf.
    pub(super) fn expr(&mut self, e: &Expr) -> Vec<Value> {
        let span = e.span;
        match &e.kind {
            ExprKind::Literal(c) => vec![self.const_leaf(*c, span)],
            ExprKind::Local(id) if self.m.const_tables.offset_of(*id).is_none() => self.read_local(*id, span),
            ExprKind::Resource(id) => vec![self.resource_addr(*id, span)],
            ExprKind::Resources(ids) => ids.iter().map(|&r| self.resource_addr(r, span)).collect(),
            ExprKind::Counter { res, increment } => vec![self.counter_step(res, *increment, span)],
            ExprKind::Local(_)
            | ExprKind::Shared(_)
            | ExprKind::CbufferField { .. }
            | ExprKind::ConstantMember { .. }
            | ExprKind::BufferElement { .. }
            | ExprKind::RawElement { .. }
            | ExprKind::Member { .. }
            | ExprKind::Index { .. }
            | ExprKind::Swizzle { .. }
            | ExprKind::MatrixElems { .. } => {
                let p = self.place(e);
                self.read_place(&p, span)
            }
            ExprKind::Construct { args } => {
                let mut vals = Vec::new();
                let mut from = Vec::new();
                for a in args {
                    vals.extend(self.expr(a));
                    from.extend(self.m.types.leaves(a.ty));
                }
                let to = self.m.types.leaves(e.ty);
                vals.into_iter().zip(from).zip(to).map(|((v, f), t)| self.convert(f, t, v, span)).collect()
            }
            ExprKind::Unary { op, operand } => {
                let s = operand.ty.scalar().unwrap_or(ScalarType::Int);
                let vals = self.expr(operand);
                vals.into_iter().map(|v| self.unary_op(*op, s, v, span)).collect()
            }
            ExprKind::Binary { op: op @ (tast::BinaryOp::And | tast::BinaryOp::Or), lhs, rhs }
                if e.ty == tast::Type::BOOL && impact(rhs) == Impact::Reads =>
            {
                vec![self.eager_logical(*op, lhs, rhs, span)]
            }
            ExprKind::Intrinsic { op: tast::Intrinsic::Select, args } if args.len() == 3 && args[0].ty.is_scalar() => {
                self.eager_select(&args[0], &args[1], &args[2], span)
            }
            ExprKind::Binary { op: op @ (tast::BinaryOp::Add | tast::BinaryOp::Sub), lhs, rhs }
                if self.contract && (self.product(lhs).is_some() || self.product(rhs).is_some()) =>
            {
                self.contracted(*op, lhs, rhs, span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let s = lhs.ty.scalar().unwrap_or(ScalarType::Int);
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                a.into_iter().zip(b).map(|(x, y)| self.binary_op(*op, s, x, y, span)).collect()
            }
            ExprKind::Logical { op, lhs, rhs } => vec![self.logical(*op, lhs, rhs, span)],
            ExprKind::Select { cond, then_expr, else_expr } => {
                let c = self.bool_expr(cond);
                if needs_guard(then_expr) || needs_guard(else_expr) {
                    // Only the chosen side may run: branch.
                    let tys: Vec<Type> = self.m.types.leaves(e.ty).into_iter().map(super::ir_type).collect();
                    return self.branch_values(c, &tys, |l| l.expr(then_expr), |l| l.expr(else_expr), span);
                }
                let t = self.expr(then_expr);
                let f = self.expr(else_expr);
                t.into_iter().zip(f).map(|(x, y)| self.select(c, x, y, span)).collect()
            }
            ExprKind::Cast { operand } => {
                let vals = self.expr(operand);
                self.convert_leaves(operand.ty, e.ty, vals, span)
            }
            ExprKind::Splat { operand } => {
                let v = self.scalar(operand);
                vec![v; self.m.types.leaf_count(e.ty) as usize]
            }
            ExprKind::Leaves { operand, pick } => {
                let vals = self.expr(operand);
                pick.iter().map(|&i| vals.get(i as usize).copied().unwrap_or(vals[0])).collect()
            }
            ExprKind::Assign { place, value, result_old } => self.assign(place, value, *result_old, span),
            ExprKind::PlaceValue => match self.place_values.last() {
                Some(v) => v.clone(),
                None => {
                    self.internal("a compound assignment without its place", span);
                    self.zeros(e.ty, span)
                }
            },
            ExprKind::Comma { lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs)
            }
            ExprKind::Call { func, args } => self.call(*func, args, span),
            ExprKind::Intrinsic { op, args } => self.intrinsic(*op, args, e.ty, span),
            ExprKind::Atomic { op, dest, args, original } => {
                self.atomic(*op, dest, args, original.as_deref(), span);
                Vec::new()
            }
            ExprKind::GetDimensions { res, outs } => {
                self.get_dimensions(res, outs, span);
                Vec::new()
            }
        }
    }

    /// The factors of `e` when it is a float product of the same shape as its
    /// factors (a candidate for contraction).
    fn product<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        match &e.kind {
            ExprKind::Binary { op: tast::BinaryOp::Mul, lhs, rhs }
                if e.ty.scalar() == Some(ScalarType::Float)
                    && lhs.ty.scalar() == Some(ScalarType::Float)
                    && self.m.types.leaf_count(lhs.ty) == self.m.types.leaf_count(e.ty)
                    && self.m.types.leaf_count(rhs.ty) == self.m.types.leaf_count(e.ty) =>
            {
                Some((lhs, rhs))
            }
            _ => None,
        }
    }

    /// `a * b + c`, `c + a * b`, `a * b - c` and `c - a * b` on floats, within
    /// one expression, as one `fma` per component: HLSL lets the compiler
    /// contract them (dxc emits `mad`), except under `precise` or `-Gis`.
    /// Operands are evaluated in source order; negation is exact, so
    /// `a * b - c` is `fma(a, b, -c)` and `c - a * b` is `fma(-a, b, c)`.
    fn contracted(&mut self, op: tast::BinaryOp, lhs: &Expr, rhs: &Expr, span: Span) -> Vec<Value> {
        let sub = op == tast::BinaryOp::Sub;
        if let Some((a, b)) = self.product(lhs) {
            let a = self.expr(a);
            let b = self.expr(b);
            let c = self.expr(rhs);
            return (0..c.len())
                .map(|i| {
                    let c = if sub { self.unary(UnaryOp::FNeg, c[i], span) } else { c[i] };
                    self.fma(a[i], b[i], c, span)
                })
                .collect();
        }
        let (a, b) = self.product(rhs).expect("contracted only with a product");
        let c = self.expr(lhs);
        let a = self.expr(a);
        let b = self.expr(b);
        (0..c.len())
            .map(|i| {
                let a = if sub { self.unary(UnaryOp::FNeg, a[i], span) } else { a[i] };
                self.fma(a, b[i], c[i], span)
            })
            .collect()
    }

    pub(super) fn fma(&mut self, a: Value, b: Value, c: Value, span: Span) -> Value {
        self.inst(InstData::Ternary { op: TernaryOp::Fma, args: [a, b, c] }, span)
    }

    fn assign(&mut self, place: &Expr, value: &Expr, result_old: bool, span: Span) -> Vec<Value> {
        if uses_place_value(value) {
            // `p op= v`, `++`/`--`: the place once, its old value, then the new one.
            let p = self.place(place);
            let old = self.read_place(&p, span);
            self.place_values.push(old.clone());
            let new = self.expr(value);
            self.place_values.pop();
            self.write_place(&p, &new, span);
            return if result_old { old } else { new };
        }
        // `p = v`: the value first, then the place (as DXC evaluates it).
        let new = self.expr(value);
        let p = self.place(place);
        self.write_place(&p, &new, span);
        new
    }

    /// `c ? then : else` (one value per type in `tys`) with only the chosen side evaluated by each lane.
    pub(super) fn branch_values(
        &mut self,
        c: Value,
        tys: &[Type],
        then_f: impl FnOnce(&mut Self) -> Vec<Value>,
        else_f: impl FnOnce(&mut Self) -> Vec<Value>,
        span: Span,
    ) -> Vec<Value> {
        let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
        let params: Vec<Value> = tys.iter().map(|&ty| self.f.append_param(merge, ty)).collect();
        self.set_term(Terminator::If { cond: c, then_dest: then_b, else_dest: else_b, merge }, span);
        for b in [then_b, else_b] {
            self.ssa.seal(&mut self.f, b);
        }
        self.cur = then_b;
        let t = then_f(self);
        self.set_term(Terminator::Jump { dest: merge, args: t }, span);
        self.cur = else_b;
        let e = else_f(self);
        self.set_term(Terminator::Jump { dest: merge, args: e }, span);
        self.ssa.seal(&mut self.f, merge);
        self.cur = merge;
        params
    }

    fn logical(&mut self, op: LogicalOp, lhs: &Expr, rhs: &Expr, span: Span) -> Value {
        let a = self.bool_expr(lhs);
        if !needs_guard(rhs) {
            // No observable difference: evaluate both sides, no branch.
            let b = self.bool_expr(rhs);
            return match op {
                LogicalOp::And => self.and(a, b, span),
                LogicalOp::Or => self.or(a, b, span),
            };
        }
        let merged = match op {
            LogicalOp::And => self.branch_values(a, &[Type::Bool], |l| vec![l.bool_expr(rhs)], |l| vec![l.bool_const(false, span)], span),
            LogicalOp::Or => self.branch_values(a, &[Type::Bool], |l| vec![l.bool_const(true, span)], |l| vec![l.bool_expr(rhs)], span),
        };
        merged[0]
    }

    /// `and(a, b)` / `or(a, b)` on scalars (and `&&`, `||` under HLSL 2018), whose
    /// right side only reads memory: both sides count, but the read runs only
    /// where its value matters, so an out-of-bounds address a lane does not use
    /// cannot fault (D3D returns 0 for such reads; WAVE memory has no such guard).
    fn eager_logical(&mut self, op: tast::BinaryOp, lhs: &Expr, rhs: &Expr, span: Span) -> Value {
        let a = self.bool_expr(lhs);
        let merged = if op == tast::BinaryOp::And {
            self.branch_values(a, &[Type::Bool], |l| vec![l.bool_expr(rhs)], |l| vec![l.bool_const(false, span)], span)
        } else {
            self.branch_values(a, &[Type::Bool], |l| vec![l.bool_const(true, span)], |l| vec![l.bool_expr(rhs)], span)
        };
        merged[0]
    }

    /// `select(c, a, b)` with a scalar condition (and `?:` under HLSL 2018): every
    /// operand evaluated in order, effects and wave operations unconditionally;
    /// an operand that only reads memory is read only by the lanes that choose it
    /// (see [`Self::eager_logical`]).
    fn eager_select(&mut self, cond: &Expr, then_expr: &Expr, else_expr: &Expr, span: Span) -> Vec<Value> {
        let c = self.bool_expr(cond);
        let side = |l: &mut Self, x: &Expr, chosen_when_true: bool| -> Vec<Value> {
            if impact(x) != Impact::Reads {
                return l.expr(x);
            }
            let tys: Vec<Type> = l.m.types.leaves(x.ty).into_iter().map(super::ir_type).collect();
            let (ty, sp) = (x.ty, x.span);
            if chosen_when_true {
                l.branch_values(c, &tys, |l| l.expr(x), |l| l.zeros(ty, sp), span)
            } else {
                l.branch_values(c, &tys, |l| l.zeros(ty, sp), |l| l.expr(x), span)
            }
        };
        let t = side(self, then_expr, true);
        let f = side(self, else_expr, false);
        t.into_iter().zip(f).map(|(x, y)| self.select(c, x, y, span)).collect()
    }

    pub(super) fn unary_op(&mut self, op: tast::UnaryOp, s: ScalarType, v: Value, span: Span) -> Value {
        if op == tast::UnaryOp::Not {
            return self.not(v, span);
        }
        if s == ScalarType::Double {
            return self.unary_op_f64(op, v, span);
        }
        if s.is_64bit() {
            return self.unary_op64(op, v, span);
        }
        let x = self.widen(s, v, span);
        let r = match op {
            tast::UnaryOp::Neg if wide(s) == ScalarType::Float => self.unary(UnaryOp::FNeg, x, span),
            tast::UnaryOp::Neg => self.unary(UnaryOp::INeg, x, span),
            _ => self.unary(UnaryOp::INot, x, span),
        };
        self.narrow(s, r, span)
    }

    /// `x op y` on leaves of scalar type `s` (16-bit types compute in 32 bits).
    pub(super) fn binary_op(&mut self, op: tast::BinaryOp, s: ScalarType, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        use ScalarType::*;
        if s == Bool {
            return match op {
                B::Eq => {
                    let ne = self.binary(BinaryOp::BXor, x, y, span);
                    self.unary(UnaryOp::BNot, ne, span)
                }
                B::Ne | B::BitXor => self.binary(BinaryOp::BXor, x, y, span),
                B::And | B::BitAnd => self.and(x, y, span),
                B::Or | B::BitOr => self.or(x, y, span),
                _ => {
                    self.internal("arithmetic on bools", span);
                    x
                }
            };
        }
        if s == Double {
            return self.binary_op_f64(op, x, y, span);
        }
        if s.is_64bit() {
            return self.binary_op64(op, s, x, y, span);
        }
        let w = wide(s);
        let x = self.widen(s, x, span);
        let mut y = self.widen(s, y, span);
        if s.is_16bit() && matches!(op, B::Shl | B::Shr) {
            // 16-bit shifts use the low 4 bits of the amount.
            let m = self.iconst(15, span);
            y = self.binary(BinaryOp::And, y, m, span);
        }
        let float = w == Float;
        let signed = w == Int;
        let cmp = |l: &mut Self, op: CmpOp| l.cmp(op, x, y, span);
        let r = match op {
            B::Add => self.binary(if float { BinaryOp::FAdd } else { BinaryOp::IAdd }, x, y, span),
            B::Sub => self.binary(if float { BinaryOp::FSub } else { BinaryOp::ISub }, x, y, span),
            B::Mul => self.binary(if float { BinaryOp::FMul } else { BinaryOp::IMul }, x, y, span),
            B::Div => self.binary(
                if float {
                    BinaryOp::FDiv
                } else if signed {
                    BinaryOp::SDiv
                } else {
                    BinaryOp::UDiv
                },
                x,
                y,
                span,
            ),
            B::Rem => self.binary(
                if float {
                    BinaryOp::FRem
                } else if signed {
                    BinaryOp::SRem
                } else {
                    BinaryOp::URem
                },
                x,
                y,
                span,
            ),
            B::Shl => self.binary(BinaryOp::Shl, x, y, span),
            B::Shr => self.binary(if signed { BinaryOp::AShr } else { BinaryOp::LShr }, x, y, span),
            B::BitAnd | B::And => self.binary(BinaryOp::And, x, y, span),
            B::BitOr | B::Or => self.binary(BinaryOp::Or, x, y, span),
            B::BitXor => self.binary(BinaryOp::Xor, x, y, span),
            B::Eq => return cmp(self, if float { CmpOp::FEq } else { CmpOp::Eq }),
            B::Ne => return cmp(self, if float { CmpOp::FNe } else { CmpOp::Ne }),
            B::Lt => {
                return cmp(
                    self,
                    if float {
                        CmpOp::FLt
                    } else if signed {
                        CmpOp::SLt
                    } else {
                        CmpOp::ULt
                    },
                )
            }
            B::Le => {
                return cmp(
                    self,
                    if float {
                        CmpOp::FLe
                    } else if signed {
                        CmpOp::SLe
                    } else {
                        CmpOp::ULe
                    },
                )
            }
            B::Gt => {
                return cmp(
                    self,
                    if float {
                        CmpOp::FGt
                    } else if signed {
                        CmpOp::SGt
                    } else {
                        CmpOp::UGt
                    },
                )
            }
            B::Ge => {
                return cmp(
                    self,
                    if float {
                        CmpOp::FGe
                    } else if signed {
                        CmpOp::SGe
                    } else {
                        CmpOp::UGe
                    },
                )
            }
        };
        self.narrow(s, r, span)
    }

    /// A constant of scalar type `s` (for expansions).
    pub(super) fn typed_const(&mut self, s: ScalarType, value: f64, span: Span) -> Value {
        let c = match s {
            ScalarType::Float => Const::Float(value as f32),
            ScalarType::Half => Const::Bits16(ScalarType::Half, half::f16::from_f64(value).to_bits()),
            ScalarType::Int => Const::Int(value as i32),
            ScalarType::Uint => Const::Uint(value as u32),
            ScalarType::Int16 => Const::Bits16(ScalarType::Int16, value as i16 as u16),
            ScalarType::Uint16 => Const::Bits16(ScalarType::Uint16, value as u16),
            ScalarType::Bool => Const::Bool(value != 0.0),
            ScalarType::Int64 => Const::Bits64(s, value as i64 as u64),
            ScalarType::Uint64 => Const::Bits64(s, value as u64),
            ScalarType::Double => Const::Bits64(s, value.to_bits()),
        };
        self.const_leaf(c, span)
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::SourceFile;
    use crate::driver::{compile, CompileOptions, OptLevel};

    fn fmas(src: &str, strict_ieee: bool) -> (usize, usize) {
        let mut o = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
        o.opt = OptLevel::O0;
        o.strict_ieee = strict_ieee;
        let c = compile(&SourceFile::new("k.hlsl", src), &o).unwrap_or_else(|d| panic!("{d:?}"));
        let count = |m: &str| c.asm.lines().filter(|l| l.trim_start().starts_with(m)).count();
        (count("fma "), count("fmul "))
    }

    const KERNEL: &str = "RWStructuredBuffer<float4> O : register(u0);
cbuffer C : register(b0) { float4x4 M; float k; };
[numthreads(8, 1, 1)] void main(uint t : SV_GroupIndex) {
    float4 p = O[t];
    float a = p.x * p.y + k;      // fma(x, y, k)
    float b = k - p.z * p.w;      // fma(-z, w, k)
    float c = p.x * k - p.y;      // fma(x, k, -y)
    float d = p.x * p.y;
    float e = d + k;              // two statements: not contracted
    O[t] = mul(M, p) + float4(a, b, c, e);
}
";

    /// `a * b + c` within one expression becomes one `fma` (and `mul`'s dot
    /// products a chain of them); across statements it does not.
    #[test]
    fn multiply_adds_in_one_expression_contract() {
        let (fma, fmul) = fmas(KERNEL, false);
        // 3 scalar + 4 rows x 3 of mul(M, p).
        assert_eq!(fma, 3 + 12, "fma");
        // d, and the first product of each row.
        assert_eq!(fmul, 1 + 4, "fmul");
    }

    /// `--strict-ieee` (dxc's -Gis) and `precise` anywhere keep every product rounded.
    #[test]
    fn strict_ieee_and_precise_never_contract() {
        assert_eq!(fmas(KERNEL, true).0, 0);
        let precise = KERNEL.replace("float e = d + k;", "precise float e = d + k;");
        assert_eq!(fmas(&precise, false).0, 0);
    }
}
