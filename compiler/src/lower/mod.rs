//! Lowering from the typed AST to SSA IR, keeping the source's structure.
//!
//! Where aggregates become scalars: here. Every value is a list of scalar
//! *leaves* (see `tast`); a local is one SSA variable per leaf, so the IR
//! stays scalar. Memory (buffers, cbuffers, groupshared) is addressed leaf by
//! leaf with the layouts of `frontend::layout`. Dynamic indexing of a local
//! array, vector or matrix selects among its leaves (`select` chains on read,
//! conditional updates on write), except at -O0, where locals with
//! dynamically indexed arrays live in local memory ([`private`]); an index
//! the lowering knows (a literal, an unrolled loop's variable, arithmetic on
//! them) picks its element directly.
//!
//! Every call is inlined (sema refused recursion). `break`, `continue` and
//! `return` nested inside `if`s become per-lane flags: WAVE 0.1.2 can only
//! break at a loop's top level, so after a statement that may have set a flag
//! the loop breaks on it (`break_if`) and the rest of the enclosing statement
//! list runs under `if (!flag)`. `switch` is a sequence of guarded case bodies
//! with a fall-through flag. Operands are evaluated left to right; the right
//! side of `&&`, `||` and a scalar `?:` only when needed.
//!
//! Modules: [`control`] statements and flags, [`expr`] expressions,
//! [`place`] places and memory views, [`convert`] scalar conversions and
//! 16-bit arithmetic, [`calls`] inlining, [`intrinsics`] builtins, atomics,
//! wave operations and barriers.

mod calls;
mod control;
mod convert;
mod double;
mod expr;
mod intrinsics;
mod place;
mod private;
mod ssa;
mod unroll;
mod wide;

use crate::diag::{Diagnostic, Span};
use crate::frontend::tast::{self, ScalarType, SystemValue};
use crate::ir::*;
pub use private::LowerOptions;
use ssa::{SsaBuilder, Var};

/// Lowers the analysed module's entry point to an IR function, every local in registers.
pub fn lower(module: &tast::Module) -> Result<Function, Vec<Diagnostic>> {
    lower_with(module, &LowerOptions::default())
}

/// [`lower`] with the options (-O0: dynamically indexed local arrays in local memory).
pub fn lower_with(module: &tast::Module, opts: &LowerOptions) -> Result<Function, Vec<Diagnostic>> {
    let mut l = Lowerer::new(module);
    l.contract &= !opts.no_contraction;
    l.uniform_wave_loops = opts.uniform_wave_loops;
    if let Some(within) = opts.local_arrays_within {
        l.layout = l.plan_local_arrays(within);
        l.f.local_memory = l.layout.area + l.layout.bytes;
        l.f.local_arrays = l.layout.bytes;
    }
    l.lower_entry();
    if l.errors.is_empty() {
        Ok(l.f)
    } else {
        Err(l.errors)
    }
}

/// IR type of a scalar leaf in registers.
fn ir_type(s: ScalarType) -> Type {
    match s {
        ScalarType::Bool => Type::Bool,
        ScalarType::Int | ScalarType::Uint => Type::I32,
        ScalarType::Float => Type::F32,
        ScalarType::Int16 | ScalarType::Uint16 => Type::I16,
        ScalarType::Half => Type::F16,
        ScalarType::Int64 | ScalarType::Uint64 => Type::I64,
        ScalarType::Double => Type::F64,
    }
}

/// A construct `break` or `continue` leaves.
#[derive(Clone, Copy, Debug)]
enum Ctx {
    Loop {
        id: u32,
        exit: Block,
    },
    Switch {
        id: u32,
    },
    /// An unrolled loop: no IR loop; `break` and `continue` are flags only.
    Unrolled {
        id: u32,
    },
}

/// One inlined function instance.
#[derive(Clone, Copy, Debug)]
struct Frame {
    id: u32,
    ret: tast::Type,
    /// Depth of the construct stack when the frame began (its loops are above).
    ctx_base: usize,
}

/// Deepest chain of inlined calls (sema refuses recursion; this bounds the stack).
const MAX_INLINE_DEPTH: usize = 64;

struct Lowerer<'m> {
    m: &'m tast::Module,
    f: Function,
    ssa: SsaBuilder,
    cur: Block,
    /// Base address per resource (kernel arguments), created on first use.
    res_addr: Vec<Option<Value>>,
    res_size: Vec<Option<Value>>,
    res_counter: Vec<Option<Value>>,
    /// Address of the constant block, created on first use.
    const_addr: Option<Value>,
    ctx: Vec<Ctx>,
    frames: Vec<Frame>,
    next_id: u32,
    /// Old values of the places being assigned (for `PlaceValue`), innermost last.
    place_values: Vec<Vec<Value>>,
    /// While inlining stdlib code: the span of the user's call, for every instruction.
    span_override: Option<Span>,
    /// `static const` scalars with known values (for unrolling, see `unroll.rs`).
    const_statics: std::collections::BTreeMap<tast::LocalId, Vec<tast::Const>>,
    /// Locals in local memory (-O0) and this thread's address of their area.
    layout: private::Layout,
    /// Multiply-adds within one expression become `fma` (see `expr::contracted`).
    contract: bool,
    /// Multi-step wave operations loop over every lane of the wave with a
    /// wave-uniform trip count instead of letting lanes leave one by one
    /// (`--isa wave-0.1.2`: the backends' wave ops need every lane; `wide::waterfall`).
    uniform_wave_loops: bool,
    private_base: Option<Value>,
    errors: Vec<Diagnostic>,
    /// IR nesting the lowering's own constructs have open: guards of the rest of
    /// a list after an early exit, and the nested arms of an `else if` chain
    /// (`control.rs`). Past [`control::FLAT_NEST_BUDGET`] they follow one
    /// another instead of nesting, so no input nests the IR past what the
    /// region tree takes.
    flat_nest: u32,
}

impl<'m> Lowerer<'m> {
    fn new(m: &'m tast::Module) -> Lowerer<'m> {
        let mut f = Function::new(m.entry.name.clone());
        let entry = f.create_block();
        f.entry = Some(entry);
        f.local_memory = m.local_memory;
        let mut ssa = SsaBuilder::default();
        ssa.seal(&mut f, entry);
        Lowerer {
            m,
            f,
            ssa,
            cur: entry,
            res_addr: vec![None; m.resources.len()],
            res_size: vec![None; m.resources.len()],
            res_counter: vec![None; m.resources.len()],
            const_addr: None,
            ctx: Vec::new(),
            frames: Vec::new(),
            next_id: 0,
            flat_nest: 0,
            place_values: Vec::new(),
            span_override: None,
            const_statics: unroll::const_statics(m),
            layout: private::Layout::default(),
            contract: !m.precise,
            uniform_wave_loops: false,
            private_base: None,
            errors: Vec::new(),
        }
    }

    fn fresh_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn internal(&mut self, what: &str, span: Span) {
        self.errors.push(Diagnostic::error("E0400", format!("internal compiler error: {what}")).with_label(span, "while lowering this"));
    }

    // ---- emission helpers -------------------------------------------------

    fn span(&self, span: Span) -> Span {
        self.span_override.unwrap_or(span)
    }

    fn inst(&mut self, data: InstData, span: Span) -> Value {
        let span = self.span(span);
        match self.f.append_inst(self.cur, data, span) {
            Some(v) => v,
            None => {
                self.internal("an instruction without a result was used as a value", span);
                self.f.append_inst(self.cur, InstData::Const { ty: Type::I32, bits: 0 }, span).unwrap_or_else(|| Value::from_u32(0))
            }
        }
    }

    /// An instruction evaluated for its effect only.
    fn effect(&mut self, data: InstData, span: Span) {
        let span = self.span(span);
        self.f.append_inst(self.cur, data, span);
    }

    fn iconst(&mut self, bits: u32, span: Span) -> Value {
        self.inst(InstData::Const { ty: Type::I32, bits }, span)
    }

    fn konst(&mut self, ty: Type, bits: u32, span: Span) -> Value {
        if ty.is_64bit() {
            // 64-bit values are built from their halves (`bits` is the low one).
            return self.const64(ty, bits as u64, span);
        }
        self.inst(InstData::Const { ty, bits }, span)
    }

    fn fconst(&mut self, x: f32, span: Span) -> Value {
        self.konst(Type::F32, x.to_bits(), span)
    }

    fn bool_const(&mut self, b: bool, span: Span) -> Value {
        self.konst(Type::Bool, b as u32, span)
    }

    fn binary(&mut self, op: BinaryOp, a: Value, b: Value, span: Span) -> Value {
        self.inst(InstData::Binary { op, args: [a, b] }, span)
    }

    fn unary(&mut self, op: UnaryOp, a: Value, span: Span) -> Value {
        self.inst(InstData::Unary { op, arg: a }, span)
    }

    fn cmp(&mut self, op: CmpOp, a: Value, b: Value, span: Span) -> Value {
        self.inst(InstData::Cmp { op, args: [a, b] }, span)
    }

    fn select(&mut self, cond: Value, a: Value, b: Value, span: Span) -> Value {
        let ty = self.f.value_type(a);
        self.inst(InstData::Select { ty, cond, args: [a, b] }, span)
    }

    fn and(&mut self, a: Value, b: Value, span: Span) -> Value {
        self.binary(BinaryOp::BAnd, a, b, span)
    }

    fn or(&mut self, a: Value, b: Value, span: Span) -> Value {
        self.binary(BinaryOp::BOr, a, b, span)
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
        self.unary(UnaryOp::BNot, v, span)
    }

    /// Sets the current block's terminator and records it as a predecessor of every successor.
    fn set_term(&mut self, term: Terminator, span: Span) {
        for (dest, _) in term.edges_with_args() {
            self.ssa.add_pred(dest, self.cur);
        }
        let span = self.span(span);
        self.f.set_terminator(self.cur, term, span);
    }

    fn read(&mut self, var: Var) -> Value {
        self.ssa.read(&mut self.f, var, self.cur)
    }

    fn write(&mut self, var: Var, v: Value) {
        self.ssa.write(var, self.cur, v);
    }

    /// Declares a variable of IR type `ty` (idempotent).
    fn declare(&mut self, var: Var, ty: Type) {
        if !self.ssa.is_declared(var) {
            self.ssa.declare(var, ty);
        }
    }

    fn local_var(&mut self, local: tast::LocalId, leaf: u32, s: ScalarType) -> Var {
        let var = Var::Local(local.0, leaf);
        self.declare(var, ir_type(s));
        var
    }

    /// The leaves of local `local`.
    fn read_local(&mut self, local: tast::LocalId, span: Span) -> Vec<Value> {
        if self.layout.locals.contains_key(&local) {
            return self.read_private_local(local, span);
        }
        let leaves = self.m.types.leaves(self.m.local(local).ty);
        leaves
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let var = self.local_var(local, i as u32, s);
                self.read(var)
            })
            .collect()
    }

    fn write_local(&mut self, local: tast::LocalId, vals: &[Value], span: Span) {
        if self.layout.locals.contains_key(&local) {
            return self.write_private_local(local, vals, span);
        }
        let leaves = self.m.types.leaves(self.m.local(local).ty);
        for (i, (&v, s)) in vals.iter().zip(leaves).enumerate() {
            let var = self.local_var(local, i as u32, s);
            self.write(var, v);
        }
    }

    /// A zero of every leaf of `ty` (undefined values read as zero).
    fn zeros(&mut self, ty: tast::Type, span: Span) -> Vec<Value> {
        self.m.types.leaves(ty).into_iter().map(|s| self.konst(ir_type(s), 0, span)).collect()
    }

    // ---- the entry point ---------------------------------------------------

    fn lower_entry(&mut self) {
        let m = self.m;
        let entry = &m.entry;
        let func = m.function(entry.func);
        let span = entry.span;
        if !self.layout.locals.is_empty() {
            self.init_private_base(span);
        }
        // Static globals first, in declaration order (constant tables are in memory already).
        for (local, init) in m.statics.iter().filter(|(l, _)| m.const_tables.offset_of(*l).is_none()) {
            let vals = match init {
                Some(e) => self.expr(e),
                None => self.zeros(m.local(*local).ty, span),
            };
            self.write_local(*local, &vals, span);
        }
        for input in &entry.inputs {
            let vals = self.system_value(input.semantic, input.ty, input.span);
            self.write_local(input.local, &vals, input.span);
        }
        let frame = Frame { id: self.fresh_id(), ret: tast::Type::Void, ctx_base: self.ctx.len() };
        self.frames.push(frame);
        if control::exits_of_block(&func.body).ret {
            let f = self.bool_const(false, span);
            self.declare(Var::Returned(frame.id), Type::Bool);
            self.write(Var::Returned(frame.id), f);
        }
        self.stmts(&func.body.stmts, false);
        self.frames.pop();
        let end = Span::new(func.body.span.end.saturating_sub(1) as usize, func.body.span.end as usize);
        self.set_term(Terminator::Return, end);
    }

    /// A system value as the leaves of `ty` (uint/int scalar or vector).
    fn system_value(&mut self, sv: SystemValue, ty: tast::Type, span: Span) -> Vec<Value> {
        let len = ty.len().max(1) as u8;
        let [nx, ny, _] = self.m.entry.numthreads;
        let special = |l: &mut Self, reg| l.inst(InstData::Special { reg }, span);
        match sv {
            SystemValue::GroupThreadId => (0..len).map(|c| special(self, SpecialReg::ThreadId(c))).collect(),
            SystemValue::GroupId => (0..len).map(|c| special(self, SpecialReg::WorkgroupId(c))).collect(),
            SystemValue::DispatchThreadId => (0..len)
                .map(|c| {
                    let g = special(self, SpecialReg::WorkgroupId(c));
                    let size = self.iconst(self.m.entry.numthreads[c as usize], span);
                    let base = self.binary(BinaryOp::IMul, g, size, span);
                    let t = special(self, SpecialReg::ThreadId(c));
                    self.binary(BinaryOp::IAdd, base, t, span)
                })
                .collect(),
            SystemValue::GroupIndex => {
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

    /// The base address of resource `r` (its kernel argument).
    fn resource_addr(&mut self, r: tast::ResourceId, span: Span) -> Value {
        if let Some(v) = self.res_addr[r.0 as usize] {
            return v;
        }
        let Some(slot) = self.m.resource(r).slot else {
            self.internal("a resource without an ABI slot is used", span);
            return self.iconst(0, span);
        };
        // A cbuffer is bound whole (the ABI and the runner require it): its fields are
        // readable wherever the kernel runs.
        let res = self.m.resource(r);
        if res.kind == crate::interface::ResourceKind::ConstantBuffer {
            use crate::frontend::layout::{Layouter, Rules};
            let bytes = Layouter::new(&self.m.types, Rules::Cbuffer).size(res.elem, res.major);
            self.f.readable.insert(slot, bytes);
        }
        // Kernel arguments live in the entry block, so they dominate every use.
        let arg = self.f.append_inst(self.f.entry_block(), InstData::KernelArg { index: slot }, Span::default());
        let Some(v) = arg else { return self.iconst(0, span) };
        // Keep it ahead of the entry block's terminator-free instruction list order.
        let entry = self.f.entry_block();
        let inst = self.f.blocks[entry].insts.pop().expect("just appended");
        self.f.blocks[entry].insts.insert(0, inst);
        self.res_addr[r.0 as usize] = Some(v);
        v
    }

    /// The address of the kernel's constant block (its kernel argument).
    fn constants_addr(&mut self, span: Span) -> Value {
        if let Some(v) = self.const_addr {
            return v;
        }
        let Some(slot) = self.m.const_tables.slot else {
            self.internal("a constant table without a constant block", span);
            return self.iconst(0, span);
        };
        let entry = self.f.entry_block();
        self.f.readable.insert(slot, self.m.const_tables.bytes.len() as u32);
        let v = self.f.append_inst(entry, InstData::KernelArg { index: slot }, Span::default()).unwrap_or_else(|| Value::from_u32(0));
        let inst = self.f.blocks[entry].insts.pop().expect("just appended");
        self.f.blocks[entry].insts.insert(0, inst);
        self.const_addr = Some(v);
        v
    }

    /// Kernel argument `slot`, placed at the start of the entry block so that it
    /// dominates every use.
    fn kernel_arg(&mut self, slot: u32) -> Value {
        let entry = self.f.entry_block();
        let v = self.f.append_inst(entry, InstData::KernelArg { index: slot }, Span::default()).unwrap_or_else(|| Value::from_u32(0));
        let inst = self.f.blocks[entry].insts.pop().expect("just appended");
        self.f.blocks[entry].insts.insert(0, inst);
        v
    }

    /// The size of resource `r` (its size argument: bytes, or elements of a typed buffer).
    fn resource_size(&mut self, r: tast::ResourceId, span: Span) -> Value {
        if let Some(v) = self.res_size[r.0 as usize] {
            return v;
        }
        let Some(slot) = self.m.resource(r).size_slot else {
            self.internal("a resource size without an ABI slot is used", span);
            return self.iconst(0, span);
        };
        let v = self.kernel_arg(slot);
        self.res_size[r.0 as usize] = Some(v);
        v
    }

    /// The address of resource `r`'s UAV counter (its counter argument).
    fn resource_counter(&mut self, r: tast::ResourceId, span: Span) -> Value {
        if let Some(v) = self.res_counter[r.0 as usize] {
            return v;
        }
        let Some(slot) = self.m.resource(r).counter_slot else {
            self.internal("a resource counter without an ABI slot is used", span);
            return self.iconst(0, span);
        };
        let v = self.kernel_arg(slot);
        self.res_counter[r.0 as usize] = Some(v);
        v
    }
}
