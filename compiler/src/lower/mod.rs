//! Lowering from the typed AST to SSA IR, keeping the source's structure.
//!
//! Vectors are scalarized (one SSA variable per component). `break`,
//! `continue` and `return` nested inside `if`s become per-lane flags: WAVE
//! 0.1.2 can only break at a loop's top level, so after a statement that may
//! have set a flag the loop breaks on it (`break_if`) and the rest of the
//! enclosing statement list runs under `if (!flag)`. The common `if (c) break;`
//! and `if (c) continue;` at a loop's top level need no flag.

mod ssa;

use crate::diag::{Diagnostic, Span};
use crate::frontend::tast::{self, Const, Expr, ExprKind, LogicalOp, PlaceKind, ScalarType, Stmt, StmtKind};
use crate::interface::ResourceKind;
use crate::ir::*;
use ssa::{SsaBuilder, Var};

/// Lowers the analysed module's entry point to an IR function.
pub fn lower(module: &tast::Module) -> Result<Function, Vec<Diagnostic>> {
    let mut l = Lowerer::new(module);
    l.lower_entry()?;
    Ok(l.f)
}

/// Which early exits a statement may take, relative to its innermost loop.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Exits {
    brk: bool,
    cnt: bool,
    ret: bool,
}

impl Exits {
    fn any(self) -> bool {
        self.brk || self.cnt || self.ret
    }
    fn or(self, o: Exits) -> Exits {
        Exits { brk: self.brk || o.brk, cnt: self.cnt || o.cnt, ret: self.ret || o.ret }
    }
}

fn exits_of_block(b: &tast::Block) -> Exits {
    b.stmts.iter().fold(Exits::default(), |acc, s| acc.or(exits_of(s)))
}

fn exits_of(s: &Stmt) -> Exits {
    match &s.kind {
        StmtKind::Break => Exits { brk: true, ..Exits::default() },
        StmtKind::Continue => Exits { cnt: true, ..Exits::default() },
        StmtKind::Return => Exits { ret: true, ..Exits::default() },
        StmtKind::If { then_blk, else_blk, .. } => exits_of_block(then_blk).or(else_blk.as_ref().map(exits_of_block).unwrap_or_default()),
        StmtKind::Block(b) => exits_of_block(b),
        // A nested loop consumes its own break/continue; return goes through.
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            Exits { ret: exits_of_block(body).ret, ..Exits::default() }
        }
        _ => Exits::default(),
    }
}

/// A statement that always leaves the current list for every lane that reaches it.
fn is_jump(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Break | StmtKind::Continue | StmtKind::Return)
}

/// `if (c) break;` / `if (c) continue;` with nothing else: the jump's kind.
fn simple_conditional_jump(s: &Stmt) -> Option<(&Expr, &StmtKind)> {
    if let StmtKind::If { cond, then_blk, else_blk: None, .. } = &s.kind {
        if let [only] = then_blk.stmts.as_slice() {
            if matches!(only.kind, StmtKind::Break | StmtKind::Continue) {
                return Some((cond, &only.kind));
            }
        }
    }
    None
}

/// Does evaluating `e` touch memory that could be out of bounds?
fn may_fault(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::BufferLoad { .. } => true,
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::CbufferLoad { .. } | ExprKind::PlaceValue => false,
        ExprKind::Component { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Truncate { operand: x } => may_fault(x),
        ExprKind::Construct { args } => args.iter().any(may_fault),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => may_fault(lhs) || may_fault(rhs),
        ExprKind::Select { cond, then_expr, else_expr } => may_fault(cond) || may_fault(then_expr) || may_fault(else_expr),
    }
}

fn ir_type(s: ScalarType) -> Type {
    match s {
        ScalarType::Bool => Type::Bool,
        ScalarType::Int | ScalarType::Uint => Type::I32,
        ScalarType::Float => Type::F32,
    }
}

struct LoopCtx {
    id: u32,
    exit: Block,
}

struct Lowerer<'m> {
    m: &'m tast::Module,
    f: Function,
    ssa: SsaBuilder,
    cur: Block,
    /// Resource base addresses (kernel arguments), by resource id.
    args: Vec<Value>,
    loops: Vec<LoopCtx>,
    next_loop: u32,
    /// Old value of the place being assigned (for `PlaceValue`).
    place_value: Vec<Value>,
    errors: Vec<Diagnostic>,
}

impl<'m> Lowerer<'m> {
    fn new(m: &'m tast::Module) -> Lowerer<'m> {
        let mut f = Function::new(m.entry.name.clone());
        let entry = f.create_block();
        f.entry = Some(entry);
        let mut ssa = SsaBuilder::default();
        ssa.seal(&mut f, entry);
        for (i, local) in m.locals.iter().enumerate() {
            if let Some(s) = local.ty.scalar() {
                for c in 0..local.ty.len() {
                    ssa.declare(Var::Local(i as u32, c), ir_type(s));
                }
            }
        }
        ssa.declare(Var::Returned, Type::Bool);
        Lowerer { m, f, ssa, cur: entry, args: Vec::new(), loops: Vec::new(), next_loop: 0, place_value: Vec::new(), errors: Vec::new() }
    }

    // ---- emission helpers -------------------------------------------------

    fn inst(&mut self, data: InstData, span: Span) -> Value {
        self.f.append_inst(self.cur, data, span).expect("instruction with a result")
    }

    fn iconst(&mut self, bits: u32, span: Span) -> Value {
        self.inst(InstData::Const { ty: Type::I32, bits }, span)
    }

    fn konst(&mut self, ty: Type, bits: u32, span: Span) -> Value {
        self.inst(InstData::Const { ty, bits }, span)
    }

    fn binary(&mut self, op: BinaryOp, a: Value, b: Value, span: Span) -> Value {
        self.inst(InstData::Binary { op, args: [a, b] }, span)
    }

    fn not(&mut self, v: Value, span: Span) -> Value {
        // Invert a compare directly where that is exact (not for ordered float compares: NaN).
        if let Some(InstData::Cmp { op, args }) = self.f.def_inst(v).map(|i| self.f.insts[i].clone()) {
            use CmpOp::*;
            let inv = match op {
                Eq => Some(Ne),
                Ne => Some(Eq),
                SLt => Some(SGe),
                SGe => Some(SLt),
                SLe => Some(SGt),
                SGt => Some(SLe),
                ULt => Some(UGe),
                UGe => Some(ULt),
                ULe => Some(UGt),
                UGt => Some(ULe),
                FEq => Some(FNe),
                FNe => Some(FEq),
                _ => None,
            };
            if let Some(op) = inv {
                return self.inst(InstData::Cmp { op, args }, span);
            }
        }
        self.inst(InstData::Unary { op: UnaryOp::BNot, arg: v }, span)
    }

    /// Sets the current block's terminator and records it as a predecessor of every successor.
    fn set_term(&mut self, term: Terminator, span: Span) {
        for (dest, _) in term.edges_with_args() {
            self.ssa.add_pred(dest, self.cur);
        }
        self.f.set_terminator(self.cur, term, span);
    }

    fn read(&mut self, var: Var) -> Value {
        self.ssa.read(&mut self.f, var, self.cur)
    }

    fn write(&mut self, var: Var, v: Value) {
        self.ssa.write(var, self.cur, v);
    }

    fn bool_const(&mut self, b: bool, span: Span) -> Value {
        self.konst(Type::Bool, b as u32, span)
    }

    // ---- structure ---------------------------------------------------------

    fn lower_entry(&mut self) -> Result<(), Vec<Diagnostic>> {
        let m = self.m;
        let span = m.entry.span;
        for (i, _res) in m.resources.iter().enumerate() {
            let v = self.inst(InstData::KernelArg { index: i as u32 }, span);
            self.args.push(v);
        }
        if exits_of_block(&m.entry.body).ret {
            let f = self.bool_const(false, span);
            self.write(Var::Returned, f);
        }
        for p in &m.entry.params {
            let values = self.system_value(p.semantic, p.ty.len().max(1), p.span);
            for (c, v) in values.into_iter().enumerate() {
                self.write(Var::Local(p.local.0, c as u8), v);
            }
        }
        self.stmts(&m.entry.body.stmts, false);
        let end = Span::new(m.entry.body.span.end.saturating_sub(1) as usize, m.entry.body.span.end as usize);
        self.set_term(Terminator::Return, end);
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(std::mem::take(&mut self.errors))
        }
    }

    fn system_value(&mut self, sv: tast::SystemValue, len: u8, span: Span) -> Vec<Value> {
        use tast::SystemValue::*;
        let [nx, ny, _] = self.m.entry.numthreads;
        let special = |l: &mut Self, reg| l.inst(InstData::Special { reg }, span);
        match sv {
            GroupThreadId => (0..len).map(|c| special(self, SpecialReg::ThreadId(c))).collect(),
            GroupId => (0..len).map(|c| special(self, SpecialReg::WorkgroupId(c))).collect(),
            DispatchThreadId => (0..len)
                .map(|c| {
                    let g = special(self, SpecialReg::WorkgroupId(c));
                    let size = self.iconst(self.m.entry.numthreads[c as usize], span);
                    let base = self.binary(BinaryOp::IMul, g, size, span);
                    let t = special(self, SpecialReg::ThreadId(c));
                    self.binary(BinaryOp::IAdd, base, t, span)
                })
                .collect(),
            GroupIndex => {
                // z * X * Y + y * X + x
                let x = special(self, SpecialReg::ThreadId(0));
                let y = special(self, SpecialReg::ThreadId(1));
                let z = special(self, SpecialReg::ThreadId(2));
                let cx = self.iconst(nx, span);
                let cxy = self.iconst(nx * ny, span);
                let zy = self.binary(BinaryOp::IMul, z, cxy, span);
                let yx = self.binary(BinaryOp::IMul, y, cx, span);
                let s = self.binary(BinaryOp::IAdd, zy, yx, span);
                vec![self.binary(BinaryOp::IAdd, s, x, span)]
            }
        }
    }

    /// Lowers a statement list. `loop_top`: the list is the top level of a loop body.
    fn stmts(&mut self, stmts: &[Stmt], loop_top: bool) {
        for (i, s) in stmts.iter().enumerate() {
            let rest = &stmts[i + 1..];
            if loop_top {
                if let StmtKind::Block(b) = &s.kind {
                    // A block at the loop's top level is still the top level: lower its
                    // statements and the rest as one list (names are resolved already),
                    // so that its direct `continue` (not lowered) and `if (c) continue;`
                    // (no flag) also skip the statements after the block.
                    let flat: Vec<Stmt> = b.stmts.iter().chain(rest).cloned().collect();
                    self.stmts(&flat, true);
                    return;
                }
                if let Some((cond, kind)) = simple_conditional_jump(s) {
                    let c = self.bool_expr(cond);
                    if matches!(kind, StmtKind::Break) {
                        self.break_if(c, s.span);
                    } else {
                        // `if (c) continue; rest` is `if (!c) { rest }`.
                        self.guarded(c, rest, true, s.span);
                        return;
                    }
                    continue;
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
                    self.guarded(c, rest, true, s.span);
                    return;
                }
            } else {
                let c = self.exit_flags(exits);
                self.guarded(c, rest, false, s.span);
                return;
            }
        }
    }

    /// OR of the flags in `which` for the innermost loop (and `return`).
    fn exit_flags(&mut self, which: Exits) -> Value {
        let id = self.loops.last().map(|l| l.id);
        let mut vals = Vec::new();
        if let Some(id) = id {
            if which.brk {
                vals.push(self.read(Var::Broke(id)));
            }
            if which.cnt {
                vals.push(self.read(Var::Continued(id)));
            }
        }
        if which.ret {
            vals.push(self.read(Var::Returned));
        }
        let span = Span::default();
        let mut acc = match vals.first() {
            Some(&v) => v,
            None => self.bool_const(false, span),
        };
        for &v in vals.iter().skip(1) {
            acc = self.binary(BinaryOp::BOr, acc, v, span);
        }
        acc
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
        self.stmts(rest, false);
        self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
        self.ssa.seal(&mut self.f, merge);
        self.cur = merge;
        if loop_top {
            // Breaks inside the guarded statements set flags: leave the loop on them here.
            let ex = rest.iter().fold(Exits::default(), |acc, s| acc.or(exits_of(s)));
            if ex.brk || ex.ret {
                let c = self.exit_flags(Exits { cnt: false, ..ex });
                self.break_if(c, span);
            }
        }
    }

    fn break_if(&mut self, cond: Value, span: Span) {
        let Some(exit) = self.loops.last().map(|l| l.exit) else { return };
        let cont = self.f.create_block();
        self.set_term(Terminator::BreakIf { cond, exit, args: vec![], cont }, span);
        self.ssa.seal(&mut self.f, cont);
        self.cur = cont;
    }

    fn stmt(&mut self, s: &Stmt, loop_top: bool) {
        let span = s.span;
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let info = self.m.local(*local);
                let ty = info.ty;
                let values = match init {
                    Some(e) => self.expr(e),
                    None => {
                        let t = ir_type(ty.scalar().unwrap_or(ScalarType::Int));
                        (0..ty.len()).map(|_| self.konst(t, 0, span)).collect()
                    }
                };
                for (c, v) in values.into_iter().enumerate() {
                    self.write(Var::Local(local.0, c as u8), v);
                }
            }
            StmtKind::Assign { place, value, .. } => self.assign(place, value),
            StmtKind::If { cond, then_blk, else_blk, .. } => {
                let c = self.bool_expr(cond);
                let (then_b, else_b, merge) = (self.f.create_block(), self.f.create_block(), self.f.create_block());
                self.set_term(Terminator::If { cond: c, then_dest: then_b, else_dest: else_b, merge }, span);
                self.ssa.seal(&mut self.f, then_b);
                self.ssa.seal(&mut self.f, else_b);
                self.cur = then_b;
                self.stmts(&then_blk.stmts, false);
                self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
                self.cur = else_b;
                if let Some(e) = else_blk {
                    self.stmts(&e.stmts, false);
                }
                self.set_term(Terminator::Jump { dest: merge, args: vec![] }, span);
                self.ssa.seal(&mut self.f, merge);
                self.cur = merge;
            }
            StmtKind::For { init, cond, step, body, attrs } => {
                for st in init {
                    self.stmt(st, false);
                }
                self.lop(cond.as_ref(), body, step, false, attrs, span);
            }
            StmtKind::While { cond, body, attrs } => self.lop(Some(cond), body, &[], false, attrs, span),
            StmtKind::DoWhile { body, cond, attrs } => self.lop(Some(cond), body, &[], true, attrs, span),
            StmtKind::Break => {
                if loop_top {
                    let t = self.bool_const(true, span);
                    self.break_if(t, span);
                } else if let Some(id) = self.loops.last().map(|l| l.id) {
                    let t = self.bool_const(true, span);
                    self.write(Var::Broke(id), t);
                }
            }
            StmtKind::Continue => {
                if !loop_top {
                    if let Some(id) = self.loops.last().map(|l| l.id) {
                        let t = self.bool_const(true, span);
                        self.write(Var::Continued(id), t);
                    }
                }
                // At the top level the rest of the body is simply not lowered.
            }
            StmtKind::Return => {
                let t = self.bool_const(true, span);
                self.write(Var::Returned, t);
                if loop_top {
                    self.break_if(t, span);
                }
            }
            StmtKind::Expr(e) => {
                // No side effects in this subset; evaluate for faults only if it loads.
                if may_fault(e) {
                    self.expr(e);
                }
            }
            StmtKind::Block(b) => self.stmts(&b.stmts, loop_top),
        }
    }

    /// Any loop: `cond` checked at the top (or at the bottom for do-while).
    fn lop(&mut self, cond: Option<&Expr>, body: &tast::Block, step: &[Stmt], bottom_test: bool, attrs: &[tast::StmtAttr], span: Span) {
        let id = self.next_loop;
        self.next_loop += 1;
        let exits = exits_of_block(body);
        self.ssa.declare(Var::Broke(id), Type::Bool);
        self.ssa.declare(Var::Continued(id), Type::Bool);
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
        self.loops.push(LoopCtx { id, exit });
        if exits.cnt {
            let f = self.bool_const(false, span);
            self.write(Var::Continued(id), f);
        }
        if let (Some(c), false) = (cond, bottom_test) {
            let v = self.bool_expr(c);
            let leave = self.not(v, c.span);
            self.break_if(leave, c.span);
        }
        self.stmts(&body.stmts, true);
        if exits.cnt {
            // Lanes that continued are back for the step and the next test.
            let f = self.bool_const(false, span);
            self.write(Var::Continued(id), f);
        }
        for st in step {
            self.stmt(st, false);
        }
        if let (Some(c), true) = (cond, bottom_test) {
            let v = self.bool_expr(c);
            let leave = self.not(v, c.span);
            self.break_if(leave, c.span);
        }
        self.set_term(Terminator::Jump { dest: header, args: vec![] }, span);
        self.loops.pop();
        self.ssa.seal(&mut self.f, header);
        self.ssa.seal(&mut self.f, exit);
        self.cur = exit;
    }

    // ---- assignments -------------------------------------------------------

    fn assign(&mut self, place: &tast::Place, value: &Expr) {
        let span = place.span;
        match &place.kind {
            PlaceKind::Local(id) => {
                let n = self.m.local(*id).ty.len().max(1);
                self.place_value = (0..n).map(|c| self.read(Var::Local(id.0, c))).collect();
                let vals = self.expr(value);
                for (c, v) in vals.into_iter().enumerate() {
                    self.write(Var::Local(id.0, c as u8), v);
                }
            }
            PlaceKind::LocalComponent(id, c) => {
                self.place_value = vec![self.read(Var::Local(id.0, *c))];
                let v = self.expr(value);
                if let Some(&v) = v.first() {
                    self.write(Var::Local(id.0, *c), v);
                }
            }
            PlaceKind::BufferElement { res, index } => {
                let idx = self.scalar(index);
                let addr = self.element_address(*res, idx, span);
                let elem = self.m.resource(*res).elem;
                if uses_place_value(value) {
                    let old = self.load(MemSpace::Device, elem, addr, span);
                    self.place_value = vec![old];
                }
                let v = self.scalar(value);
                let stored = if elem == ScalarType::Bool { self.bool_to_int(v, span) } else { v };
                self.f.append_inst(self.cur, InstData::Store { space: MemSpace::Device, addr, value: stored }, span);
            }
        }
    }

    fn element_address(&mut self, res: tast::ResourceId, index: Value, span: Span) -> Value {
        let base = self.args[res.0 as usize];
        let two = self.iconst(2, span);
        let off = self.binary(BinaryOp::Shl, index, two, span);
        self.binary(BinaryOp::IAdd, base, off, span)
    }

    fn load(&mut self, space: MemSpace, elem: ScalarType, addr: Value, span: Span) -> Value {
        let ty = if elem == ScalarType::Float { Type::F32 } else { Type::I32 };
        let v = self.inst(InstData::Load { space, ty, addr }, span);
        if elem == ScalarType::Bool {
            let zero = self.iconst(0, span);
            self.inst(InstData::Cmp { op: CmpOp::Ne, args: [v, zero] }, span)
        } else {
            v
        }
    }

    fn bool_to_int(&mut self, b: Value, span: Span) -> Value {
        let one = self.iconst(1, span);
        let zero = self.iconst(0, span);
        self.inst(InstData::Select { ty: Type::I32, cond: b, args: [one, zero] }, span)
    }

    // ---- expressions -------------------------------------------------------

    fn scalar(&mut self, e: &Expr) -> Value {
        let vals = self.expr(e);
        match vals.first() {
            Some(&v) => v,
            None => {
                self.errors.push(
                    Diagnostic::error("E0400", "internal compiler error: an expression produced no value").with_label(e.span, "here"),
                );
                self.iconst(0, e.span)
            }
        }
    }

    fn bool_expr(&mut self, e: &Expr) -> Value {
        let v = self.scalar(e);
        if self.f.value_type(v) == Type::Bool {
            return v;
        }
        // The front end converts conditions to bool; be defensive all the same.
        let zero = self.konst(self.f.value_type(v), 0, e.span);
        let op = if self.f.value_type(v) == Type::F32 { CmpOp::FNe } else { CmpOp::Ne };
        self.inst(InstData::Cmp { op, args: [v, zero] }, e.span)
    }

    /// Lowers `e` to one value per component.
    fn expr(&mut self, e: &Expr) -> Vec<Value> {
        let span = e.span;
        match &e.kind {
            ExprKind::Literal(c) => vec![match *c {
                Const::Bool(b) => self.bool_const(b, span),
                Const::Int(i) => self.iconst(i as u32, span),
                Const::Uint(u) => self.iconst(u, span),
                Const::Float(x) => self.konst(Type::F32, x.to_bits(), span),
            }],
            ExprKind::Local(id) => {
                let n = self.m.local(*id).ty.len().max(1);
                (0..n).map(|c| self.read(Var::Local(id.0, c))).collect()
            }
            ExprKind::Component { base, index } => {
                let vals = self.expr(base);
                vec![vals.get(*index as usize).copied().unwrap_or_else(|| vals[0])]
            }
            ExprKind::Construct { args } => args.iter().flat_map(|a| self.expr(a)).collect(),
            ExprKind::BufferLoad { res, index } => {
                let idx = self.scalar(index);
                let addr = self.element_address(*res, idx, span);
                let r = self.m.resource(*res);
                let space = if r.kind == ResourceKind::RWStructuredBuffer { MemSpace::Device } else { MemSpace::DeviceReadOnly };
                vec![self.load(space, r.elem, addr, span)]
            }
            ExprKind::CbufferLoad { res, member } => {
                let r = self.m.resource(*res);
                let mem = &r.members[*member as usize];
                let base = self.args[res.0 as usize];
                let addr = if mem.offset == 0 {
                    base
                } else {
                    let off = self.iconst(mem.offset, span);
                    self.binary(BinaryOp::IAdd, base, off, span)
                };
                vec![self.load(MemSpace::DeviceReadOnly, mem.ty, addr, span)]
            }
            ExprKind::Unary { op, operand } => {
                let s = operand.ty.scalar().unwrap_or(ScalarType::Int);
                let vals = self.expr(operand);
                vals.into_iter()
                    .map(|v| match op {
                        tast::UnaryOp::Neg if s == ScalarType::Float => self.inst(InstData::Unary { op: UnaryOp::FNeg, arg: v }, span),
                        tast::UnaryOp::Neg => self.inst(InstData::Unary { op: UnaryOp::INeg, arg: v }, span),
                        tast::UnaryOp::BitNot => self.inst(InstData::Unary { op: UnaryOp::INot, arg: v }, span),
                        tast::UnaryOp::Not => self.not(v, span),
                    })
                    .collect()
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
                let comp = ir_type(e.ty.scalar().unwrap_or(ScalarType::Int));
                if may_fault(then_expr) || may_fault(else_expr) {
                    // Only the chosen side may run: branch (for every component of a vector).
                    let n = e.ty.len().max(1) as usize;
                    return self.branch_values(c, &vec![comp; n], |l| l.expr(then_expr), |l| l.expr(else_expr), span);
                }
                let t = self.expr(then_expr);
                let f = self.expr(else_expr);
                t.into_iter().zip(f).map(|(x, y)| self.inst(InstData::Select { ty: comp, cond: c, args: [x, y] }, span)).collect()
            }
            ExprKind::Cast { operand } => {
                let from = operand.ty.scalar().unwrap_or(ScalarType::Int);
                let to = e.ty.scalar().unwrap_or(ScalarType::Int);
                let vals = self.expr(operand);
                vals.into_iter().map(|v| self.convert(from, to, v, span)).collect()
            }
            ExprKind::Splat { operand } => {
                let v = self.scalar(operand);
                vec![v; e.ty.len().max(1) as usize]
            }
            ExprKind::Truncate { operand } => {
                let mut vals = self.expr(operand);
                vals.truncate(e.ty.len().max(1) as usize);
                vals
            }
            ExprKind::PlaceValue => self.place_value.clone(),
        }
    }

    /// `c ? then : else` (one value per type in `tys`) with only the chosen side evaluated by each lane.
    fn branch_values(
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
        if !may_fault(rhs) {
            // No observable difference: evaluate both sides, no branch.
            let b = self.bool_expr(rhs);
            let op = if op == LogicalOp::And { BinaryOp::BAnd } else { BinaryOp::BOr };
            return self.binary(op, a, b, span);
        }
        let merged = match op {
            LogicalOp::And => self.branch_values(a, &[Type::Bool], |l| vec![l.bool_expr(rhs)], |l| vec![l.bool_const(false, span)], span),
            LogicalOp::Or => self.branch_values(a, &[Type::Bool], |l| vec![l.bool_const(true, span)], |l| vec![l.bool_expr(rhs)], span),
        };
        merged[0]
    }

    fn binary_op(&mut self, op: tast::BinaryOp, s: ScalarType, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        use ScalarType::*;
        let float = s == Float;
        if s == Bool {
            // Only == and != reach here with bool operands.
            let ne = self.binary(BinaryOp::BXor, x, y, span);
            return match op {
                B::Eq => self.inst(InstData::Unary { op: UnaryOp::BNot, arg: ne }, span),
                _ => ne,
            };
        }
        let cmp = |op: CmpOp| InstData::Cmp { op, args: [x, y] };
        let bin = |op: BinaryOp| InstData::Binary { op, args: [x, y] };
        let data = match op {
            B::Add => bin(if float { BinaryOp::FAdd } else { BinaryOp::IAdd }),
            B::Sub => bin(if float { BinaryOp::FSub } else { BinaryOp::ISub }),
            B::Mul => bin(if float { BinaryOp::FMul } else { BinaryOp::IMul }),
            B::Div => bin(match s {
                Float => BinaryOp::FDiv,
                Int => BinaryOp::SDiv,
                _ => BinaryOp::UDiv,
            }),
            B::Rem => bin(match s {
                Float => BinaryOp::FRem,
                Int => BinaryOp::SRem,
                _ => BinaryOp::URem,
            }),
            B::Shl => bin(BinaryOp::Shl),
            B::Shr => bin(if s == Int { BinaryOp::AShr } else { BinaryOp::LShr }),
            B::BitAnd => bin(BinaryOp::And),
            B::BitOr => bin(BinaryOp::Or),
            B::BitXor => bin(BinaryOp::Xor),
            B::Eq => cmp(if float { CmpOp::FEq } else { CmpOp::Eq }),
            B::Ne => cmp(if float { CmpOp::FNe } else { CmpOp::Ne }),
            B::Lt => cmp(match s {
                Float => CmpOp::FLt,
                Int => CmpOp::SLt,
                _ => CmpOp::ULt,
            }),
            B::Le => cmp(match s {
                Float => CmpOp::FLe,
                Int => CmpOp::SLe,
                _ => CmpOp::ULe,
            }),
            B::Gt => cmp(match s {
                Float => CmpOp::FGt,
                Int => CmpOp::SGt,
                _ => CmpOp::UGt,
            }),
            B::Ge => cmp(match s {
                Float => CmpOp::FGe,
                Int => CmpOp::SGe,
                _ => CmpOp::UGe,
            }),
        };
        self.inst(data, span)
    }

    fn convert(&mut self, from: ScalarType, to: ScalarType, v: Value, span: Span) -> Value {
        use ScalarType::*;
        match (from, to) {
            (a, b) if a == b => v,
            (Int, Uint) | (Uint, Int) => v,
            (Int, Float) => self.inst(InstData::Convert { op: ConvOp::SIToF, arg: v }, span),
            (Uint, Float) => self.inst(InstData::Convert { op: ConvOp::UIToF, arg: v }, span),
            (Float, Int) => self.inst(InstData::Convert { op: ConvOp::FToSI, arg: v }, span),
            (Float, Uint) => self.inst(InstData::Convert { op: ConvOp::FToUI, arg: v }, span),
            (Int | Uint, Bool) => {
                let zero = self.iconst(0, span);
                self.inst(InstData::Cmp { op: CmpOp::Ne, args: [v, zero] }, span)
            }
            (Float, Bool) => {
                let zero = self.konst(Type::F32, 0, span);
                self.inst(InstData::Cmp { op: CmpOp::FNe, args: [v, zero] }, span)
            }
            (Bool, Int | Uint) => self.bool_to_int(v, span),
            (Bool, Float) => {
                let one = self.konst(Type::F32, 1.0f32.to_bits(), span);
                let zero = self.konst(Type::F32, 0, span);
                self.inst(InstData::Select { ty: Type::F32, cond: v, args: [one, zero] }, span)
            }
            _ => v,
        }
    }
}

fn uses_place_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::PlaceValue => true,
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::CbufferLoad { .. } => false,
        ExprKind::Component { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Truncate { operand: x } => uses_place_value(x),
        ExprKind::BufferLoad { index, .. } => uses_place_value(index),
        ExprKind::Construct { args } => args.iter().any(uses_place_value),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => uses_place_value(lhs) || uses_place_value(rhs),
        ExprKind::Select { cond, then_expr, else_expr } => {
            uses_place_value(cond) || uses_place_value(then_expr) || uses_place_value(else_expr)
        }
    }
}
