//! Full unrolling of `[unroll]` / `[unroll(N)]` `for` loops whose trip count
//! is known at compile time (HLSL's attribute, honoured where possible).
//!
//! A loop qualifies when its init gives one scalar variable a constant value,
//! its condition and step fold to constants given that value (`i < 8`,
//! `i += 2`, `i <<= 1`, ...; `static const` globals with constant values
//! count as constants, `i < TILE`), and its body never writes the variable. The
//! lowering then emits the body once per iteration with the variable set to
//! that iteration's constant, so indices into local arrays and tables fold.
//! `break`, `continue` and `return` in the body use the usual per-lane flags;
//! each copy after one that may exit runs under `if (!flags)` (flat, not
//! nested, so WAVE 0.1.2's 32-frame limit is not at risk). Loops past
//! [`MAX_ITERATIONS`] or [`MAX_UNROLLED_STATEMENTS`] stay loops.

use super::control::exits_of_block;
use super::ssa::Var;
use super::{Ctx, Lowerer};
use crate::diag::Span;
use crate::frontend::fold::{int_of, Folder};
use crate::frontend::tast::*;
use crate::ir::{Terminator, Type as IrType};

/// Most iterations a loop is unrolled to.
pub(super) const MAX_ITERATIONS: usize = 256;
/// Most statements the unrolled copies may hold in all.
pub(super) const MAX_UNROLLED_STATEMENTS: usize = 8192;

/// How a loop unrolls: its variable's value at the start of each iteration, and after the loop.
pub(super) struct UnrollPlan {
    var: LocalId,
    values: Vec<Vec<Const>>,
    exit_value: Vec<Const>,
}

fn stmt_count(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| {
            1 + match &s.kind {
                StmtKind::If { arms, else_blk } => {
                    arms.iter().map(|a| stmt_count(&a.then_blk.stmts)).sum::<usize>()
                        + else_blk.as_ref().map_or(0, |b| stmt_count(&b.stmts))
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::Block(body) => {
                    stmt_count(&body.stmts)
                }
                StmtKind::Switch { cases, .. } => cases.iter().map(|c| stmt_count(&c.body)).sum(),
                _ => 0,
            }
        })
        .sum()
}

/// Is `e` a place rooted at local `var`?
fn rooted_at(e: &Expr, var: LocalId) -> bool {
    match &e.kind {
        ExprKind::Local(l) => *l == var,
        ExprKind::Member { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Swizzle { base, .. }
        | ExprKind::MatrixElems { base, .. } => rooted_at(base, var),
        _ => false,
    }
}

/// Does `e` (or anything in it) write local `var`?
fn expr_writes(e: &Expr, var: LocalId) -> bool {
    let w = |x: &Expr| expr_writes(x, var);
    match &e.kind {
        ExprKind::Assign { place, value, .. } => rooted_at(place, var) || w(place) || w(value),
        ExprKind::Call { args, .. } => args.iter().any(|a| match a {
            Arg::In(x) => w(x),
            Arg::Out { place, .. } => rooted_at(place, var) || w(place),
        }),
        ExprKind::Atomic { dest, args, original, .. } => {
            w(dest) || args.iter().any(w) || original.as_deref().is_some_and(|o| rooted_at(o, var) || w(o))
        }
        ExprKind::GetDimensions { res, outs } => w(res) || outs.iter().any(|o| rooted_at(o, var) || w(o)),
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::Shared(_)
        | ExprKind::CbufferField { .. }
        | ExprKind::PlaceValue
        | ExprKind::Resource(_)
        | ExprKind::Resources(_) => false,
        ExprKind::ConstantMember { cb: x, .. } | ExprKind::Counter { res: x, .. } => w(x),
        ExprKind::BufferElement { res, index: x } | ExprKind::RawElement { res, offset: x } => w(res) || w(x),
        ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::MatrixElems { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Leaves { operand: x, .. } => w(x),
        ExprKind::Index { base, index } => w(base) || w(index),
        ExprKind::Construct { args } | ExprKind::Intrinsic { args, .. } => args.iter().any(w),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } | ExprKind::Comma { lhs, rhs } => w(lhs) || w(rhs),
        ExprKind::Select { cond, then_expr, else_expr } => w(cond) || w(then_expr) || w(else_expr),
    }
}

fn stmts_write(stmts: &[Stmt], var: LocalId) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Decl { init, .. } => init.as_ref().is_some_and(|e| expr_writes(e, var)),
        StmtKind::Expr(e) => expr_writes(e, var),
        StmtKind::Return(e) => e.as_ref().is_some_and(|e| expr_writes(e, var)),
        StmtKind::If { arms, else_blk } => {
            arms.iter().any(|a| expr_writes(&a.cond, var) || stmts_write(&a.then_blk.stmts, var))
                || else_blk.as_ref().is_some_and(|b| stmts_write(&b.stmts, var))
        }
        StmtKind::For { init, cond, step, body, .. } => {
            stmts_write(init, var)
                || cond.as_ref().is_some_and(|c| expr_writes(c, var))
                || step.iter().any(|e| expr_writes(e, var))
                || stmts_write(&body.stmts, var)
        }
        StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
            expr_writes(cond, var) || stmts_write(&body.stmts, var)
        }
        StmtKind::Switch { selector, cases, .. } => expr_writes(selector, var) || cases.iter().any(|c| stmts_write(&c.body, var)),
        StmtKind::Block(b) => stmts_write(&b.stmts, var),
        StmtKind::Break | StmtKind::Continue => false,
    })
}

/// The step's assignments, with commas flattened.
fn step_assigns(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Comma { lhs, rhs } => {
            step_assigns(lhs, out);
            step_assigns(rhs, out);
        }
        _ => out.push(e.clone()),
    }
}

impl UnrollPlan {
    pub(super) fn trip_count(&self) -> usize {
        self.values.len()
    }

    /// The loop's variable (a constant in each unrolled copy).
    pub(super) fn var(&self) -> LocalId {
        self.var
    }
}

/// The values of the `static const` globals whose initializers fold (given
/// the ones before them): they never change, so loop bounds may use them.
pub(super) fn const_statics(m: &Module) -> std::collections::BTreeMap<LocalId, Vec<Const>> {
    let mut out = std::collections::BTreeMap::new();
    for (l, init) in &m.statics {
        let Some(e) = init.as_ref().filter(|_| m.local(*l).kind == LocalKind::Const && m.local(*l).ty.is_scalar()) else { continue };
        let known = |x: LocalId| out.get(&x).cloned();
        if let Some(v) = (Folder { types: &m.types, local: &known, place_value: None }).fold(e) {
            out.insert(*l, v);
        }
    }
    out
}

impl Lowerer<'_> {
    /// How `for (init; cond; step) body` unrolls, if its trip count is known and small enough.
    pub(super) fn unroll_plan(&self, init: &[Stmt], cond: Option<&Expr>, step: &[Expr], body: &Block) -> Option<UnrollPlan> {
        let types = &self.m.types;
        let consts = |l: LocalId| self.const_statics.get(&l).cloned();
        let fold_const = |e: &Expr| Folder { types, local: &consts, place_value: None }.fold(e);
        // The init: one scalar variable set to a constant.
        let (var, start) = match init {
            [Stmt { kind: StmtKind::Decl { local, init: Some(e) }, .. }] => (*local, fold_const(e)?),
            [Stmt { kind: StmtKind::Expr(Expr { kind: ExprKind::Assign { place, value, result_old: false }, .. }), .. }] => {
                match place.kind {
                    ExprKind::Local(l) => (l, fold_const(value)?),
                    _ => return None,
                }
            }
            _ => return None,
        };
        if !self.m.local(var).ty.is_scalar() || stmts_write(&body.stmts, var) {
            return None;
        }
        let cond = cond?;
        let mut steps = Vec::new();
        for e in step {
            step_assigns(e, &mut steps);
        }
        let mut values = Vec::new();
        let mut v = start;
        loop {
            let env = |l: LocalId| if l == var { Some(v.clone()) } else { consts(l) };
            let go = Folder { types, local: &env, place_value: None }.fold(cond)?;
            if int_of(*go.first()?)? == 0 {
                break;
            }
            values.push(v.clone());
            if values.len() > MAX_ITERATIONS {
                return None;
            }
            for s in &steps {
                let ExprKind::Assign { place, value, .. } = &s.kind else { return None };
                if !matches!(place.kind, ExprKind::Local(l) if l == var) {
                    return None;
                }
                let cur = v.clone();
                let env = |l: LocalId| if l == var { Some(cur.clone()) } else { consts(l) };
                v = Folder { types, local: &env, place_value: Some(cur.clone()) }.fold(value)?;
            }
        }
        if values.len().saturating_mul(stmt_count(&body.stmts).max(1)) > MAX_UNROLLED_STATEMENTS {
            return None;
        }
        Some(UnrollPlan { var, values, exit_value: v })
    }

    /// Lowers the loop as its unrolled copies (see the module doc).
    pub(super) fn unrolled(&mut self, plan: UnrollPlan, body: &Block, span: Span) {
        let id = self.fresh_id();
        let exits = exits_of_block(body);
        let leaves_early = exits.brk || exits.ret;
        self.ctx.push(Ctx::Unrolled { id });
        if exits.brk {
            let f = self.bool_const(false, span);
            self.declare(Var::Broke(id), IrType::Bool);
            self.write(Var::Broke(id), f);
        }
        let var = plan.var;
        let n = plan.values.len();
        for (k, value) in plan.values.iter().chain(std::iter::once(&plan.exit_value)).enumerate() {
            let last = k == n;
            // Lanes that left in an earlier copy skip this one (and the final value).
            let guard = (k > 0 && leaves_early).then(|| {
                let flags = self.exit_flags(super::control::Exits { brk: exits.brk, cnt: false, ret: exits.ret });
                let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
                self.set_term(Terminator::If { cond: flags, then_dest: then_b, else_dest: else_b, merge }, span);
                self.ssa.seal(&mut self.f, then_b);
                self.ssa.seal(&mut self.f, else_b);
                self.cur = then_b;
                self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
                self.cur = else_b;
                merge
            });
            let vals: Vec<_> = value.iter().map(|&c| self.const_leaf(c, span)).collect();
            self.write_local(var, &vals, span);
            if !last {
                if exits.cnt {
                    let f = self.bool_const(false, span);
                    self.declare(Var::Continued(id), IrType::Bool);
                    self.write(Var::Continued(id), f);
                }
                self.stmts(&body.stmts, false);
            }
            if let Some(merge) = guard {
                self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
                self.ssa.seal(&mut self.f, merge);
                self.cur = merge;
            }
        }
        self.ctx.pop();
    }
}
