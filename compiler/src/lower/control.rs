//! Statements and structured control flow: `if`, loops, `switch`, and the
//! per-lane flags that implement `break`, `continue` and `return` nested in
//! `if`s (see the module doc of `lower`).

use super::ssa::Var;
use super::{Ctx, Lowerer};
use crate::diag::Span;
use crate::frontend::tast::{self, Expr, Stmt, StmtKind};
use crate::ir::*;

/// Which early exits a statement may take: `brk` of the innermost loop or
/// switch, `cnt` of the innermost loop, `ret` of the current function.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Exits {
    pub brk: bool,
    pub cnt: bool,
    pub ret: bool,
}

impl Exits {
    fn any(self) -> bool {
        self.brk || self.cnt || self.ret
    }
    fn or(self, o: Exits) -> Exits {
        Exits { brk: self.brk || o.brk, cnt: self.cnt || o.cnt, ret: self.ret || o.ret }
    }
}

pub(super) fn exits_of_block(b: &tast::Block) -> Exits {
    exits_of_list(&b.stmts)
}

fn exits_of_list(stmts: &[Stmt]) -> Exits {
    stmts.iter().fold(Exits::default(), |acc, s| acc.or(exits_of(s)))
}

fn exits_of(s: &Stmt) -> Exits {
    match &s.kind {
        StmtKind::Break => Exits { brk: true, ..Exits::default() },
        StmtKind::Continue => Exits { cnt: true, ..Exits::default() },
        StmtKind::Return(_) => Exits { ret: true, ..Exits::default() },
        StmtKind::If { arms, else_blk } => {
            arms.iter().fold(else_blk.as_ref().map(exits_of_block).unwrap_or_default(), |acc, a| acc.or(exits_of_block(&a.then_blk)))
        }
        StmtKind::Block(b) => exits_of_block(b),
        // A nested loop consumes its own break/continue; return goes through.
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            Exits { ret: exits_of_block(body).ret, ..Exits::default() }
        }
        // A switch consumes its breaks; continue and return go through.
        StmtKind::Switch { cases, .. } => {
            let e = cases.iter().fold(Exits::default(), |acc, c| acc.or(exits_of_list(&c.body)));
            Exits { brk: false, ..e }
        }
        StmtKind::Decl { .. } | StmtKind::Expr(_) => Exits::default(),
    }
}

/// A statement that always leaves the current list for every lane that reaches it.
fn is_jump(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Break | StmtKind::Continue | StmtKind::Return(_))
}

/// `if (c) break;` / `if (c) continue;` with nothing else: the jump's kind.
fn simple_conditional_jump(s: &Stmt) -> Option<(&Expr, &StmtKind)> {
    if let StmtKind::If { arms, else_blk: None } = &s.kind {
        if let [tast::IfArm { cond, then_blk, .. }] = arms.as_slice() {
            if let [only] = then_blk.stmts.as_slice() {
                if matches!(only.kind, StmtKind::Break | StmtKind::Continue) {
                    return Some((cond, &only.kind));
                }
            }
        }
    }
    None
}

/// Arms of an `else if` chain that nest as written; a longer chain goes on in
/// pieces of this many arms that follow one another ([`Lowerer::if_chain`]).
pub(super) const IF_CHAIN_PIECE: usize = 8;

/// Nesting the lowering's own constructs may add to the IR (guards of the rest
/// of a list after an early exit, nested arms of an `else if` chain: see
/// `Lowerer::flat_nest`). WAVE holds 32 open `if`/`loop` frames
/// (`emit::MAX_FRAMES`, E0409 past them): these constructs take at most 9 of
/// them (8, and a piece's flag test), whatever the input's length.
pub(super) const FLAT_NEST_BUDGET: u32 = 8;

/// The statements of `stmts` with every block at its top level (and blocks in
/// those) replaced by its statements, in order.
fn flatten_blocks(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    // Statement lists still to copy, innermost last, each with its next index.
    let mut stack: Vec<(&[Stmt], usize)> = vec![(stmts, 0)];
    while let Some(top) = stack.last_mut() {
        let (list, i) = *top;
        let Some(s) = list.get(i) else {
            stack.pop();
            continue;
        };
        top.1 += 1;
        match &s.kind {
            StmtKind::Block(b) => stack.push((&b.stmts, 0)),
            _ => out.push(s.clone()),
        }
    }
    out
}

/// What the innermost `else` of a piece of an `if` chain does.
enum Tail<'a> {
    /// The chain's own `else` (the last piece).
    Else(Option<&'a [Stmt]>),
    /// Sets the flag under which the next piece runs.
    SetFlag(Var),
}

/// One arm of a chain: an `if (cond)` of an `else if` chain, or a case of a
/// `switch` lowered as one.
struct Arm<'a> {
    cond: Cond<'a>,
    body: &'a [Stmt],
    span: Span,
}

enum Cond<'a> {
    Expr(&'a Expr),
    /// The selector equals one of the labels.
    Labels {
        labels: &'a [tast::Const],
        sel: Selector,
    },
}

/// A `switch` selector: its value, widened to 32 bits, and a 64-bit one's halves.
#[derive(Clone, Copy)]
struct Selector {
    value: Value,
    halves: Option<super::wide::Halves>,
}

impl Lowerer<'_> {
    /// The innermost loop or switch of the current function, if any.
    fn innermost_breakable(&self) -> Option<Ctx> {
        let base = self.frames.last().map_or(0, |f| f.ctx_base);
        self.ctx[base..].last().copied()
    }

    /// The innermost loop of the current function: its id and, unless it is unrolled, its exit block.
    fn innermost_loop(&self) -> Option<(u32, Option<Block>)> {
        let base = self.frames.last().map_or(0, |f| f.ctx_base);
        self.ctx[base..].iter().rev().find_map(|c| match c {
            Ctx::Loop { id, exit } => Some((*id, Some(*exit))),
            Ctx::Unrolled { id } => Some((*id, None)),
            Ctx::Switch { .. } => None,
        })
    }

    fn ctx_id(c: Ctx) -> u32 {
        match c {
            Ctx::Loop { id, .. } | Ctx::Switch { id } | Ctx::Unrolled { id } => id,
        }
    }

    /// Lowers a statement list. `loop_top`: the list is the top level of a loop body.
    pub(super) fn stmts(&mut self, stmts: &[Stmt], loop_top: bool) {
        // A block at the loop's top level is still the top level: its statements
        // and the rest are lowered as one list (names are resolved already), so
        // that its direct `continue` (not lowered) and `if (c) continue;` (no
        // flag) also skip the statements after the block. Flattened here, all
        // at once (blocks in blocks too), not once per block.
        let flat;
        let stmts = if loop_top && stmts.iter().any(|s| matches!(s.kind, StmtKind::Block(_))) {
            flat = flatten_blocks(stmts);
            &flat[..]
        } else {
            stmts
        };
        for (i, s) in stmts.iter().enumerate() {
            let rest = &stmts[i + 1..];
            if loop_top {
                if let Some((cond, kind)) = simple_conditional_jump(s) {
                    if matches!(kind, StmtKind::Break) {
                        let c = self.bool_expr(cond);
                        self.break_if(c, s.span);
                        continue;
                    }
                    if self.flat_nest < FLAT_NEST_BUDGET {
                        // `if (c) continue; rest` is `if (!c) { rest }`.
                        let c = self.bool_expr(cond);
                        self.guarded(c, rest, true, s.span);
                        return;
                    }
                    // Past the budget the rest is guarded in pieces, by the flag
                    // `continue` sets: lowered as any `if`.
                }
            }
            self.stmt(s, loop_top);
            if is_jump(s) {
                // Everything after an unconditional jump is dead for the lanes here.
                return;
            }
            let exits = exits_of(s);
            if !exits.any() || rest.is_empty() && !loop_top {
                continue;
            }
            if loop_top {
                if exits.brk || exits.ret {
                    let c = self.exit_flags(Exits { cnt: false, ..exits });
                    self.break_if(c, s.span);
                }
                if exits.cnt {
                    let c = self.exit_flags(Exits { cnt: true, brk: false, ret: false });
                    self.guard_rest(c, rest, true, exits, s.span);
                    return;
                }
            } else {
                let c = self.exit_flags(exits);
                self.guard_rest(c, rest, false, exits, s.span);
                return;
            }
        }
    }

    /// Runs `rest` only for lanes where `skip` is false, after a statement that
    /// may have left with `exits`: nested in one guard while the lowering's own
    /// nesting is under [`FLAT_NEST_BUDGET`]; past it, in a sequence of guards
    /// at this level, one per piece of `rest` up to its next statement that may
    /// exit, each testing the flags of every exit so far (flags only ever get
    /// set, so this is the nested form's meaning). Thousands of statements that
    /// may exit, one after another, nest the IR no deeper.
    fn guard_rest(&mut self, skip: Value, rest: &[Stmt], loop_top: bool, exits: Exits, span: Span) {
        if self.flat_nest < FLAT_NEST_BUDGET {
            self.guarded(skip, rest, loop_top, span);
            return;
        }
        let (mut skip, mut rest, mut exits) = (skip, rest, exits);
        loop {
            let end = rest.iter().position(|s| is_jump(s) || exits_of(s).any()).map_or(rest.len(), |j| j + 1);
            let (piece, after) = rest.split_at(end);
            self.guarded(skip, piece, loop_top, span);
            let Some(last) = piece.last().filter(|l| !after.is_empty() && !is_jump(l)) else { return };
            exits = exits.or(exits_of(last));
            // At a loop's top level, breaks and returns left the loop after the guard.
            skip = self.exit_flags(if loop_top { Exits { cnt: true, brk: false, ret: false } } else { exits });
            rest = after;
        }
    }

    /// OR of the flags in `which` (innermost breakable, innermost loop, current function).
    pub(super) fn exit_flags(&mut self, which: Exits) -> Value {
        let mut vars = Vec::new();
        if which.brk {
            if let Some(c) = self.innermost_breakable() {
                vars.push(Var::Broke(Self::ctx_id(c)));
            }
        }
        if which.cnt {
            if let Some((id, _)) = self.innermost_loop() {
                vars.push(Var::Continued(id));
            }
        }
        if which.ret {
            if let Some(f) = self.frames.last() {
                vars.push(Var::Returned(f.id));
            }
        }
        let span = Span::default();
        let mut acc: Option<Value> = None;
        for var in vars {
            self.declare(var, Type::Bool);
            let v = self.read(var);
            acc = Some(match acc {
                None => v,
                Some(a) => self.or(a, v, span),
            });
        }
        acc.unwrap_or_else(|| self.bool_const(false, span))
    }

    /// Runs `rest` only for lanes where `skip` is false.
    fn guarded(&mut self, skip: Value, rest: &[Stmt], loop_top: bool, span: Span) {
        if rest.is_empty() {
            return;
        }
        let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
        self.set_term(Terminator::If { cond: skip, then_dest: then_b, else_dest: else_b, merge }, span);
        self.ssa.seal(&mut self.f, then_b);
        self.ssa.seal(&mut self.f, else_b);
        self.cur = then_b;
        self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
        self.cur = else_b;
        // Inside the guard we are no longer at the loop's top level.
        self.flat_nest += 1;
        self.stmts(rest, false);
        self.flat_nest -= 1;
        self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
        self.ssa.seal(&mut self.f, merge);
        self.cur = merge;
        if loop_top {
            // Breaks inside the guarded statements set flags: leave the loop on them here.
            let ex = exits_of_list(rest);
            if ex.brk || ex.ret {
                let c = self.exit_flags(Exits { cnt: false, ..ex });
                self.break_if(c, span);
            }
        }
    }

    fn break_if(&mut self, cond: Value, span: Span) {
        let Some((_, Some(exit))) = self.innermost_loop() else { return };
        let cont = self.f.create_block();
        self.set_term(Terminator::BreakIf { cond, exit, args: vec![], cont }, span);
        self.ssa.seal(&mut self.f, cont);
        self.cur = cont;
    }

    fn set_flag(&mut self, var: Var, span: Span) {
        self.declare(var, Type::Bool);
        let t = self.bool_const(true, span);
        self.write(var, t);
    }

    fn stmt(&mut self, s: &Stmt, loop_top: bool) {
        let span = s.span;
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let ty = self.m.local(*local).ty;
                let vals = match init {
                    Some(e) => self.expr(e),
                    None => self.zeros(ty, span),
                };
                self.write_local(*local, &vals, span);
            }
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::If { arms, else_blk } => self.if_chain(arms, else_blk.as_ref(), span),
            StmtKind::For { init, cond, step, body, attrs } => {
                for st in init {
                    self.stmt(st, false);
                }
                // `[unroll]` / `[unroll(N)]`: unrolled when the trip count is known (and at most N).
                let unroll = attrs.iter().find_map(|a| match a {
                    tast::StmtAttr::Unroll(n) => Some(*n),
                    _ => None,
                });
                if let Some(limit) = unroll {
                    if let Some(plan) = self.unroll_plan(init, cond.as_ref(), step, body) {
                        if !matches!(limit, Some(n) if plan.trip_count() > n as usize) {
                            self.unrolled(plan, body, span);
                            return;
                        }
                    }
                }
                self.lop(cond.as_ref(), body, step, false, attrs, span);
            }
            StmtKind::While { cond, body, attrs } => self.lop(Some(cond), body, &[], false, attrs, span),
            StmtKind::DoWhile { body, cond, attrs } => self.lop(Some(cond), body, &[], true, attrs, span),
            StmtKind::Switch { selector, cases, .. } => self.switch(selector, cases, span),
            StmtKind::Break => {
                if loop_top {
                    let t = self.bool_const(true, span);
                    self.break_if(t, span);
                } else if let Some(c) = self.innermost_breakable() {
                    self.set_flag(Var::Broke(Self::ctx_id(c)), span);
                }
            }
            StmtKind::Continue => {
                if !loop_top {
                    if let Some((id, _)) = self.innermost_loop() {
                        self.set_flag(Var::Continued(id), span);
                    }
                }
                // At the top level the rest of the body is simply not lowered.
            }
            StmtKind::Return(value) => {
                let Some(frame) = self.frames.last().copied() else { return };
                if let Some(v) = value {
                    let vals = self.expr(v);
                    let leaves = self.m.types.leaves(frame.ret);
                    for (i, (v, s)) in vals.into_iter().zip(leaves).enumerate() {
                        let var = Var::RetVal(frame.id, i as u32);
                        self.declare(var, super::ir_type(s));
                        self.write(var, v);
                    }
                }
                self.set_flag(Var::Returned(frame.id), span);
                if loop_top {
                    let t = self.bool_const(true, span);
                    self.break_if(t, span);
                }
            }
            StmtKind::Block(b) => self.stmts(&b.stmts, loop_top),
        }
    }

    /// Any loop: `cond` checked at the top (or at the bottom for do-while).
    fn lop(&mut self, cond: Option<&Expr>, body: &tast::Block, step: &[Expr], bottom_test: bool, attrs: &[tast::StmtAttr], span: Span) {
        let id = self.fresh_id();
        let exits = exits_of_block(body);
        self.declare(Var::Broke(id), Type::Bool);
        self.declare(Var::Continued(id), Type::Bool);
        if exits.brk {
            let f = self.bool_const(false, span);
            self.write(Var::Broke(id), f);
        }
        let header = self.f.create_block();
        let exit = self.f.create_block();
        let hint = attrs.iter().find_map(|a| match a {
            tast::StmtAttr::Loop => Some(LoopHint::DontUnroll),
            tast::StmtAttr::Unroll(n) => Some(LoopHint::Unroll(*n)),
            _ => None,
        });
        self.f.loop_hints[self.cur] = hint.unwrap_or_default();
        self.set_term(Terminator::Loop { header, args: vec![], exit }, span);
        self.cur = header;
        self.ctx.push(Ctx::Loop { id, exit });
        if exits.cnt {
            let f = self.bool_const(false, span);
            self.write(Var::Continued(id), f);
        }
        if let (Some(c), false) = (cond, bottom_test) {
            let v = self.bool_expr(c);
            let leave = self.not(v, c.span);
            self.break_if(leave, c.span);
        } else if cond.is_none() && !exits.brk && !exits.ret {
            // `for (;;)` that nothing leaves: a `break_if false`, as `for (; true;)`
            // has, so that the code after the loop (never run) still has the
            // loop as its way in and its operands dominate it.
            let never = self.bool_const(false, span);
            self.break_if(never, span);
        }
        self.stmts(&body.stmts, true);
        if exits.cnt {
            // Lanes that continued are back for the step and the next test.
            let f = self.bool_const(false, span);
            self.write(Var::Continued(id), f);
        }
        for st in step {
            self.expr(st);
        }
        if let (Some(c), true) = (cond, bottom_test) {
            let v = self.bool_expr(c);
            let leave = self.not(v, c.span);
            self.break_if(leave, c.span);
        }
        self.set_term(Terminator::Jump { dest: header, args: vec![] }, span);
        self.ctx.pop();
        self.ssa.seal(&mut self.f, header);
        self.ssa.seal(&mut self.f, exit);
        self.cur = exit;
    }

    /// An `if` / `else if` chain. Up to [`IF_CHAIN_PIECE`] arms nest as
    /// written (each `else if` in the previous arm's `else`). A longer chain is
    /// lowered in pieces of that many arms that follow one another rather
    /// than nest, so the IR's nesting stays bounded however long the chain is:
    /// the innermost `else` of a piece sets a flag (every condition so far was
    /// false) and the next piece runs under `if (flag)`. Conditions are still
    /// evaluated in order and only until one holds.
    fn if_chain(&mut self, arms: &[tast::IfArm], else_blk: Option<&tast::Block>, span: Span) {
        let arms: Vec<Arm> = arms.iter().map(|a| Arm { cond: Cond::Expr(&a.cond), body: &a.then_blk.stmts, span: a.span }).collect();
        self.chain(&arms, else_blk.map(|b| &b.stmts[..]), span);
    }

    /// [`Lowerer::if_chain`] of any arms.
    fn chain(&mut self, arms: &[Arm], else_body: Option<&[Stmt]>, span: Span) {
        // Fewer arms nest when the lowering's own nesting is near its budget.
        let piece = (FLAT_NEST_BUDGET.saturating_sub(self.flat_nest) as usize).clamp(1, IF_CHAIN_PIECE);
        if arms.len() <= piece {
            self.nested_arms(arms, Tail::Else(else_body));
            return;
        }
        let flag = Var::Temp(self.fresh_id());
        let mut pieces = arms.chunks(piece).peekable();
        let mut first = true;
        while let Some(piece) = pieces.next() {
            let tail = if pieces.peek().is_none() { Tail::Else(else_body) } else { Tail::SetFlag(flag) };
            let go_on = if first { None } else { Some(self.read(flag)) };
            if let Tail::SetFlag(_) = tail {
                self.declare(flag, Type::Bool);
                let f = self.bool_const(false, span);
                self.write(flag, f);
            }
            match go_on {
                None => self.nested_arms(piece, tail),
                Some(go) => {
                    let at = piece[0].span;
                    let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
                    self.set_term(Terminator::If { cond: go, then_dest: then_b, else_dest: else_b, merge }, at);
                    self.ssa.seal(&mut self.f, then_b);
                    self.ssa.seal(&mut self.f, else_b);
                    self.cur = then_b;
                    self.flat_nest += 1;
                    self.nested_arms(piece, tail);
                    self.flat_nest -= 1;
                    self.set_term(Terminator::Jump { dest: merge, args: vec![] }, at);
                    self.cur = else_b;
                    self.set_term(Terminator::Jump { dest: merge, args: vec![] }, at);
                    self.ssa.seal(&mut self.f, merge);
                    self.cur = merge;
                }
            }
            first = false;
        }
    }

    /// `arms` nested as written, the innermost `else` doing `tail`. Iterative:
    /// the arms' merge blocks are closed innermost first after all are open.
    fn nested_arms(&mut self, arms: &[Arm], tail: Tail) {
        let mut merges = Vec::with_capacity(arms.len());
        let base = self.flat_nest;
        for arm in arms {
            // Arm k's body lies k levels deep in the chain (the first is the `if` itself).
            self.flat_nest = base + merges.len() as u32 + 1;
            let c = self.arm_cond(&arm.cond, arm.span);
            let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
            self.set_term(Terminator::If { cond: c, then_dest: then_b, else_dest: else_b, merge }, arm.span);
            self.ssa.seal(&mut self.f, then_b);
            self.ssa.seal(&mut self.f, else_b);
            self.cur = then_b;
            self.stmts(arm.body, false);
            self.set_term(Terminator::Jump { dest: merge, args: vec![] }, arm.span);
            self.cur = else_b;
            merges.push((merge, arm.span));
        }
        self.flat_nest = base + merges.len() as u32;
        match tail {
            Tail::Else(Some(e)) => self.stmts(e, false),
            Tail::Else(None) => {}
            Tail::SetFlag(flag) => {
                let t = self.bool_const(true, arms.last().map_or(Span::default(), |a| a.span));
                self.write(flag, t);
            }
        }
        self.flat_nest = base;
        for (merge, span) in merges.into_iter().rev() {
            self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
            self.ssa.seal(&mut self.f, merge);
            self.cur = merge;
        }
    }

    /// The condition of one arm of a chain.
    fn arm_cond(&mut self, c: &Cond, span: Span) -> Value {
        match c {
            Cond::Expr(e) => self.bool_expr(e),
            Cond::Labels { labels, sel } => {
                let mut m: Option<Value> = None;
                for &k in labels.iter() {
                    let e = self.label_eq(*sel, k, span);
                    m = Some(match m {
                        None => e,
                        Some(a) => self.or(a, e, span),
                    });
                }
                m.unwrap_or_else(|| self.bool_const(false, span))
            }
        }
    }

    /// `selector == k` for a case label `k` (a 64-bit selector on its halves,
    /// as every 64-bit integer operation: the IR has no 64-bit compare).
    fn label_eq(&mut self, sel: Selector, k: tast::Const, span: Span) -> Value {
        match (sel.halves, k) {
            (Some(x), tast::Const::Bits64(_, bits)) => {
                let k = (self.iconst(bits as u32, span), self.iconst((bits >> 32) as u32, span));
                self.eq64(x, k, span)
            }
            _ => {
                let kv = self.const_leaf(k, span);
                let kv = self.widen(k.scalar_type(), kv, span);
                self.cmp(CmpOp::Eq, sel.value, kv, span)
            }
        }
    }

    /// A `switch` whose every case body but the last ends with an unconditional
    /// `break`, `continue` or `return`, and has no other `break` of the switch,
    /// never falls through: the first case whose labels match runs, which is
    /// an `else if` chain on `selector == label` with `default` as its `else`
    /// (labels are distinct, so their order does not matter). The arms, with a
    /// trailing `break` dropped, and the `default` body; `None` for any other
    /// switch.
    #[allow(clippy::type_complexity)]
    fn switch_as_chain(cases: &[tast::SwitchCase]) -> Option<(Vec<(&[tast::Const], &[Stmt], Span)>, Option<&[Stmt]>)> {
        let mut arms = Vec::with_capacity(cases.len());
        let mut default = None;
        for (i, case) in cases.iter().enumerate() {
            let last = i + 1 == cases.len();
            let ends_in_jump = case.body.last().is_some_and(is_jump);
            if !(last || ends_in_jump) {
                return None;
            }
            let body = match case.body.split_last() {
                Some((s, rest)) if matches!(s.kind, StmtKind::Break) => rest,
                _ => &case.body[..],
            };
            if exits_of_list(body).brk {
                return None;
            }
            if case.is_default {
                default = Some(body);
            } else {
                arms.push((&case.values[..], body, case.span));
            }
        }
        Some((arms, default))
    }

    /// `switch`: each case body runs, in order, for the lanes whose value
    /// matched it or an earlier case (fall-through) and that have not left
    /// the switch (`break`), the loop (`continue`) or the function (`return`).
    fn switch(&mut self, selector: &Expr, cases: &[tast::SwitchCase], span: Span) {
        let sel = self.scalar(selector);
        let s = selector.ty.scalar().unwrap_or(tast::ScalarType::Int);
        let selector_of = |l: &mut Self| {
            let value = l.widen(s, sel, span);
            Selector { value, halves: s.is_64bit().then(|| l.halves(value, span)) }
        };
        if let Some((shape, default)) = Self::switch_as_chain(cases) {
            let sel = selector_of(self);
            let arms: Vec<Arm> =
                shape.into_iter().map(|(labels, body, span)| Arm { cond: Cond::Labels { labels, sel }, body, span }).collect();
            self.chain(&arms, default, span);
            return;
        }
        let id = self.fresh_id();
        let exits = cases.iter().fold(Exits::default(), |acc, c| acc.or(exits_of_list(&c.body)));
        self.ctx.push(Ctx::Switch { id });
        if exits.brk {
            let f = self.bool_const(false, span);
            self.declare(Var::Broke(id), Type::Bool);
            self.write(Var::Broke(id), f);
        }
        let sel = selector_of(self);
        let eq = |l: &mut Self, c: tast::Const| l.label_eq(sel, c, span);
        // Lanes that match no label run `default`.
        let default_cond = if cases.iter().any(|c| c.is_default) {
            let mut any: Option<Value> = None;
            for c in cases.iter().flat_map(|c| c.values.iter().copied()) {
                let e = eq(self, c);
                any = Some(match any {
                    None => e,
                    Some(a) => self.or(a, e, span),
                });
            }
            Some(match any {
                None => self.bool_const(true, span),
                Some(a) => self.not(a, span),
            })
        } else {
            None
        };
        let active = Var::SwitchActive(id);
        self.declare(active, Type::Bool);
        let f = self.bool_const(false, span);
        self.write(active, f);
        for case in cases {
            let mut m: Option<Value> = None;
            for &c in &case.values {
                let e = eq(self, c);
                m = Some(match m {
                    None => e,
                    Some(a) => self.or(a, e, span),
                });
            }
            if case.is_default {
                let d = default_cond.unwrap_or_else(|| self.bool_const(false, span));
                m = Some(match m {
                    None => d,
                    Some(a) => self.or(a, d, span),
                });
            }
            if let Some(m) = m {
                let a = self.read(active);
                let a = self.or(a, m, span);
                self.write(active, a);
            }
            if case.body.is_empty() {
                continue;
            }
            let mut run = self.read(active);
            if exits.any() {
                let left = self.exit_flags(exits);
                let stay = self.not(left, span);
                run = self.and(run, stay, span);
            }
            let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
            self.set_term(Terminator::If { cond: run, then_dest: then_b, else_dest: else_b, merge }, case.span);
            self.ssa.seal(&mut self.f, then_b);
            self.ssa.seal(&mut self.f, else_b);
            self.cur = then_b;
            self.stmts(&case.body, false);
            self.set_term(Terminator::Jump { dest: merge, args: vec![] }, case.span);
            self.cur = else_b;
            self.set_term(Terminator::Jump { dest: merge, args: vec![] }, case.span);
            self.ssa.seal(&mut self.f, merge);
            self.cur = merge;
        }
        self.ctx.pop();
    }
}
