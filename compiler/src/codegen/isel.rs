//! Instruction selection: IR values to WAVE operations on virtual registers.
//!
//! This file holds the walk over the blocks and the helpers every expansion
//! uses; the expansions themselves live in `math.rs` (arithmetic, conversions),
//! `atomics.rs` (atomics, barriers, fences) and `wave_ops.rs` (cross-lane ops).
//!
//! Booleans: a compare whose only uses are branch or select conditions in its
//! own block is not materialized; it is emitted into a fresh predicate right
//! before each use, so predicates stay short-lived. So is `band`/`bor`/`bnot`
//! of such booleans: a chain of compares into one predicate, each after the
//! first predicated on it (`CmpChain`). Other booleans live in V registers as
//! 0/1 and are turned into a predicate where a condition needs one.
//!
//! Blocks: machine blocks reuse the IR's block ids. An expansion that needs a
//! loop (`emit_loop`) ends the current machine block with a `Loop` terminator
//! and continues in fresh blocks (header, latch, exit) placed right after it in
//! `MFunction::order`; the IR block's own terminator ends up on its last piece.

use super::mir::*;
use crate::diag::{Diagnostic, Span};
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use crate::options::Isa;
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::{BTreeMap, BTreeSet};

/// Selects machine instructions for `f`. `uniform[v]` marks wave-invariant
/// values; `pack16` puts 16-bit values in register halves (class H, spec
/// profile only: see `half.rs`).
pub fn select(f: &Function, isa: Isa, uniform: &SecondaryMap<Value, bool>, pack16: bool) -> Result<MFunction, Diagnostic> {
    select_with(f, isa, uniform, pack16, None)
}

/// [`select`]; with `addr16` (the kernel's `[numthreads]`) and packing on the
/// spec profile, groupshared address arithmetic provably below 2^16 runs in
/// halves (see `addr16.rs`).
pub fn select_with(
    f: &Function,
    isa: Isa,
    uniform: &SecondaryMap<Value, bool>,
    pack16: bool,
    addr16: Option<[u32; 3]>,
) -> Result<MFunction, Diagnostic> {
    let nodes = region_tree(f).map_err(|e| Diagnostic::error("E0401", format!("internal error: unstructured IR: {e}")))?;
    let order = block_order(&nodes);
    let pack16 = pack16 && isa == Isa::Wave;
    let half = if pack16 { super::half::find(f, &order) } else { super::half::HalfOps::default() };
    let narrow_addresses = match addr16 {
        Some(workgroup) if pack16 => super::addr16::find(f, &order, workgroup),
        _ => BTreeSet::new(),
    };
    let group_uniform = crate::passes::uniformity::workgroup_invariant(f, uniform);
    let mut s = Selector {
        f,
        isa,
        uniform,
        group_uniform,
        m: MFunction::default(),
        map: SecondaryMap::new(),
        fused: BTreeSet::new(),
        used: BTreeSet::new(),
        cur: f.entry_block(),
        next_block: f.blocks.len() as u32,
        pack16,
        half,
        half_consts: BTreeMap::new(),
        narrow_addresses,
    };
    s.m.name = f.name.clone();
    s.m.entry = f.entry_block();
    s.m.local_memory = f.local_memory;
    s.m.local_arrays = f.local_arrays;
    s.find_uses(&order);
    for &b in &order {
        s.m.order.push(b);
        s.cur = b;
        s.select_block(b)?;
    }
    Ok(s.m)
}

pub(super) struct Selector<'a> {
    pub(super) f: &'a Function,
    pub(super) isa: Isa,
    uniform: &'a SecondaryMap<Value, bool>,
    /// Values the same in every wave of the workgroup.
    group_uniform: SecondaryMap<Value, bool>,
    pub(super) m: MFunction,
    map: SecondaryMap<Value, Option<VReg>>,
    /// Booleans emitted at their uses straight into a predicate: compares, and
    /// `band`/`bor`/`bnot` of booleans (see [`Selector::chain`]).
    fused: BTreeSet<Value>,
    /// Values read by some instruction or terminator.
    used: BTreeSet<Value>,
    /// The machine block instructions go to (the IR block being selected, or its last piece).
    cur: Block,
    /// Next id for a block that selection adds.
    next_block: u32,
    /// 16-bit values live in halves (class H).
    pub(super) pack16: bool,
    /// 16-bit operations folded from their 32-bit lowering (pack16).
    half: super::half::HalfOps,
    /// Half constants already in a register in a block: (block, bits) -> vreg.
    half_consts: BTreeMap<(Block, u16), VReg>,
    /// i32 address arithmetic computed in halves (addr16).
    narrow_addresses: BTreeSet<Value>,
}

/// What the body of an `emit_loop` loop hands back.
pub(super) struct LoopEnd {
    /// Lanes where this predicate holds leave the loop.
    pub(super) brk: VReg,
    /// Values for the exit block's parameters (taken by the leaving lanes).
    pub(super) exit_args: Vec<VReg>,
    /// Values for the header's parameters on the next iteration.
    pub(super) next: Vec<VReg>,
}

impl<'a> Selector<'a> {
    /// Records which values are used, and which booleans can be emitted at
    /// their uses: a compare or boolean `band`/`bor`/`bnot` whose every use is a
    /// condition in its own block, or an operand of another such boolean.
    fn find_uses(&mut self, order: &[Block]) {
        let inst_block = self.f.inst_blocks();
        // Uses of each value: (block, the reading instruction if any, is a condition use).
        let mut uses: BTreeMap<Value, Vec<(Block, Option<Inst>, bool)>> = BTreeMap::new();
        for &b in order {
            for &i in &self.f.blocks[b].insts {
                let data = &self.f.insts[i];
                let cond = if let InstData::Select { cond, .. } = data { Some(*cond) } else { None };
                for (k, a) in data.args().into_iter().enumerate() {
                    uses.entry(a).or_default().push((b, Some(i), k == 0 && cond == Some(a)));
                }
            }
            let term = &self.f.blocks[b].term;
            let cond = match term {
                Terminator::If { cond, .. } | Terminator::BreakIf { cond, .. } => Some(*cond),
                _ => None,
            };
            for (k, a) in term.args().into_iter().enumerate() {
                uses.entry(a).or_default().push((b, None, k == 0 && cond == Some(a)));
            }
        }
        for &b in order {
            // Users come after their operands: decide them first.
            for &i in self.f.blocks[b].insts.iter().rev() {
                let Some(v) = self.f.results[i] else { continue };
                if !is_predicate_logic(&self.f.insts[i]) || inst_block[i] != Some(b) {
                    continue;
                }
                let list = uses.get(&v).map(Vec::as_slice).unwrap_or(&[]);
                let fusable = |&(ub, user, is_cond): &(Block, Option<Inst>, bool)| {
                    ub == b && (is_cond || user.is_some_and(|u| self.f.results[u].is_some_and(|r| self.fused.contains(&r))))
                };
                if !list.is_empty() && list.iter().all(fusable) {
                    self.fused.insert(v);
                }
            }
        }
        self.used = uses.into_keys().collect();
    }

    /// Whether anything reads `v`.
    pub(super) fn is_used(&self, v: Value) -> bool {
        self.used.contains(&v)
    }

    pub(super) fn is_uniform(&self, v: Value) -> bool {
        self.uniform[v]
    }

    pub(super) fn vreg(&mut self, v: Value) -> VReg {
        if let Some(r) = self.map[v] {
            return r;
        }
        // An f64 lives in a register pair, a 16-bit value (or narrowed
        // address arithmetic) in a half when packing; everything else in one
        // V register.
        let class = match self.f.value_type(v) {
            Type::F64 => RegClass::V2,
            t if t.bits() == 16 && self.pack16 => RegClass::H,
            _ if self.narrow_addresses.contains(&v) => RegClass::H,
            _ => RegClass::V,
        };
        let r = self.m.new_vreg(class, self.uniform[v]);
        self.m.vregs[r].group_uniform = self.group_uniform[v];
        // IR booleans are 0/1 in every lane (compares, logic on booleans, phis of them).
        self.m.vregs[r].boolean = self.f.value_type(v) == Type::Bool;
        self.m.vregs[r].narrow = class == RegClass::V && self.f.value_type(v).bits() == 16;
        self.map[v] = Some(r);
        r
    }

    /// Makes `v` name the same register as `r` (a bitcast: no code).
    pub(super) fn alias(&mut self, v: Value, r: VReg) {
        self.map[v] = Some(r);
    }

    pub(super) fn new_v(&mut self, uniform: bool) -> VReg {
        self.m.new_vreg(RegClass::V, uniform)
    }

    pub(super) fn new_p(&mut self, uniform: bool) -> VReg {
        self.m.new_vreg(RegClass::P, uniform)
    }

    pub(super) fn push(&mut self, inst: MInst) {
        let cur = self.cur;
        self.m.blocks[cur].insts.push(inst);
    }

    pub(super) fn op(&mut self, op: Opcode, dst: VReg, srcs: Vec<VReg>, span: Span) {
        self.push(MInst::new(op, Some(dst), srcs, span));
    }

    /// `dst = op(srcs)` into a fresh V register.
    pub(super) fn op_new(&mut self, op: Opcode, srcs: Vec<VReg>, uniform: bool, span: Span) -> VReg {
        let d = self.new_v(uniform);
        self.op(op, d, srcs, span);
        d
    }

    pub(super) fn mov_imm(&mut self, dst: VReg, bits: u32, span: Span, note: Option<String>) {
        let mut i = MInst::new(Opcode::MovImm, Some(dst), vec![], span);
        i.imm = Some(bits);
        i.note = note;
        self.push(i);
    }

    pub(super) fn constant(&mut self, bits: u32, span: Span) -> VReg {
        let r = self.new_v(true);
        self.mov_imm(r, bits, span, None);
        r
    }

    /// An f32 constant (noted with its value in the listing).
    pub(super) fn fconstant(&mut self, x: f32, span: Span) -> VReg {
        let r = self.new_v(true);
        self.mov_imm(r, x.to_bits(), span, Some(format!("{x:?}")));
        r
    }

    pub(super) fn special(&mut self, dst: VReg, reg: SpecialReg, span: Span) {
        let mut i = MInst::new(Opcode::MovSpecial, Some(dst), vec![], span);
        i.special = Some(reg);
        self.push(i);
    }

    /// The lane index in a fresh register.
    pub(super) fn lane_id(&mut self, span: Span) -> VReg {
        let r = self.new_v(false);
        self.special(r, SpecialReg::LaneId, span);
        r
    }

    /// A predicate holding the boolean `v`, computed at the current end of the block.
    pub(super) fn predicate(&mut self, v: Value, span: Span) -> VReg {
        let p = self.new_p(self.uniform[v]);
        let steps = self.chain(v, false, span);
        self.emit_chain(p, steps, span);
        p
    }

    /// Emits `steps` into the predicate `p`: one compare, or a `CmpChain`.
    fn emit_chain(&mut self, p: VReg, steps: Vec<ChainStep>, span: Span) {
        if let [one] = steps.as_slice() {
            self.op(one.op, p, vec![one.x, one.y], span);
            return;
        }
        // Later compares are predicated on `p` itself (never p0 on wave-0.1.2).
        self.m.vregs[p].predicates = true;
        let mut i = MInst::new(Opcode::CmpChain, Some(p), steps.iter().flat_map(|s| [s.x, s.y]).collect(), span);
        i.chain = steps.iter().map(|s| (s.guard, s.op)).collect();
        self.push(i);
    }

    /// The compares that compute `v` (or `!v` when `neg`) into one predicate:
    /// a fused compare is one step (two for a negated ordered float compare:
    /// `!(x < y)` is `x >= y || unordered`); a tree of `band` (or of `bor`)
    /// appends its operands' chains each predicated on what came before
    /// (De Morgan under `neg`); an operand chain that itself ends in the other
    /// operator goes first, or is materialized when another already did.
    /// A boolean in a V register is tested against zero.
    fn chain(&mut self, v: Value, neg: bool, span: Span) -> Vec<ChainStep> {
        let def = self.f.def_inst(v).filter(|_| self.fused.contains(&v)).map(|i| self.f.insts[i].clone());
        match def {
            Some(InstData::Cmp { op, args }) => {
                let (x, y) = (self.vreg(args[0]), self.vreg(args[1]));
                compare_steps(op, neg, x, y, self.isa)
            }
            Some(InstData::Unary { op: UnaryOp::BNot, arg }) => self.chain(arg, !neg, span),
            Some(InstData::Binary { op: op @ (BinaryOp::BAnd | BinaryOp::BOr), .. }) => {
                // `a && b && c` (under De Morgan, `!a || !b || !c`) as one list.
                let and = (op == BinaryOp::BAnd) != neg;
                let mut operands = Vec::new();
                self.flatten(v, op, &mut operands);
                let chains: Vec<Vec<ChainStep>> = operands.into_iter().map(|x| self.chain(x, neg, span)).collect();
                // A chain whose later steps all combine as this operator can follow
                // the others; one chain that cannot goes first; the rest are
                // materialized.
                let appendable = |c: &Vec<ChainStep>| c[1..].iter().all(|s| s.guard == Some(and));
                let first = chains.iter().position(|c| !appendable(c)).unwrap_or(0);
                let mut out = chains[first].clone();
                for (k, c) in chains.into_iter().enumerate() {
                    if k == first {
                        continue;
                    }
                    let steps = if appendable(&c) { c } else { vec![self.materialize(c, span)] };
                    out.extend(steps.into_iter().enumerate().map(|(j, s)| if j == 0 { ChainStep { guard: Some(and), ..s } } else { s }));
                }
                out
            }
            _ => {
                let x = self.vreg(v);
                let zero = self.constant(0, span);
                vec![ChainStep { guard: None, op: if neg { Opcode::IcmpEq } else { Opcode::IcmpNe }, x, y: zero }]
            }
        }
    }

    /// The operands of the `op` tree at `v` (`band` or `bor` of fused values).
    fn flatten(&self, v: Value, op: BinaryOp, out: &mut Vec<Value>) {
        match self.f.def_inst(v).filter(|_| self.fused.contains(&v)).map(|i| &self.f.insts[i]) {
            Some(&InstData::Binary { op: o, args }) if o == op => {
                self.flatten(args[0], op, out);
                self.flatten(args[1], op, out);
            }
            _ => out.push(v),
        }
    }

    /// `steps` computed into a 0/1 V register, as one step testing it.
    fn materialize(&mut self, steps: Vec<ChainStep>, span: Span) -> ChainStep {
        let p = self.new_p(false);
        self.emit_chain(p, steps, span);
        let d = self.new_v(false);
        self.bool_from_pred(d, p, span);
        let zero = self.constant(0, span);
        ChainStep { guard: None, op: Opcode::IcmpNe, x: d, y: zero }
    }

    pub(super) fn compare(&mut self, p: VReg, op: CmpOp, x: VReg, y: VReg, span: Span) {
        let steps = compare_steps(op, false, x, y, self.isa);
        self.emit_chain(p, steps, span);
    }

    /// d = p ? t : f
    pub(super) fn select_into(&mut self, d: VReg, p: VReg, t: VReg, f: VReg, span: Span) {
        self.m.vregs[p].predicates = true;
        let mut i = MInst::new(Opcode::Select, Some(d), vec![t, f], span);
        i.pred = Some((p, false));
        // wave-0.1.2 expands to `mov d, f; @p mov d, t`: d must not be t's register.
        i.early_clobber = self.isa == Isa::Wave012;
        self.push(i);
    }

    pub(super) fn bool_from_pred(&mut self, d: VReg, p: VReg, span: Span) {
        self.m.vregs[p].predicates = true;
        let mut i = MInst::new(Opcode::BoolFromPred, Some(d), vec![], span);
        i.pred = Some((p, false));
        self.push(i);
    }

    fn new_block(&mut self) -> Block {
        let b = Block::new(self.next_block as usize);
        self.next_block += 1;
        self.m.blocks[b] = MBlock::default();
        self.m.order.push(b);
        b
    }

    /// Ends the current block with a loop. The header takes `header_params`
    /// (entered with `init`); `body` emits straight-line code into it (it must
    /// not start loops of its own) and says which lanes leave and what they
    /// carry to `exit_params`; the others go round with `next`. Selection goes
    /// on in the exit block, where every lane that entered is active again.
    ///
    /// Each lane sees an ordinary scalar loop, so liveness and allocation need
    /// nothing special; cross-lane reads in the body must only read lanes that
    /// are still in the loop (or values live in every lane).
    pub(super) fn emit_loop(
        &mut self,
        init: Vec<VReg>,
        header_params: Vec<VReg>,
        exit_params: Vec<VReg>,
        span: Span,
        body: impl FnOnce(&mut Self) -> LoopEnd,
    ) {
        let header = self.new_block();
        let latch = self.new_block();
        let exit = self.new_block();
        let pre = self.cur;
        self.m.blocks[pre].term = MTerm::Loop { header, args: init, exit };
        self.m.blocks[pre].term_span = span;
        self.m.blocks[header].params = header_params;
        self.cur = header;
        let end = body(self);
        debug_assert_eq!(self.cur, header, "a loop body must be straight-line code");
        if !end.exit_args.is_empty() {
            // Edge copies to the exit are predicated on the break condition.
            self.m.vregs[end.brk].predicates = true;
        }
        let last = self.cur;
        self.m.blocks[last].term = MTerm::BreakIf { cond: end.brk, exit, args: end.exit_args, cont: latch };
        self.m.blocks[last].term_span = span;
        self.m.blocks[latch].term = MTerm::Jump { dest: header, args: end.next };
        self.m.blocks[latch].term_span = span;
        self.m.blocks[exit].params = exit_params;
        self.cur = exit;
    }

    fn select_block(&mut self, b: Block) -> Result<(), Diagnostic> {
        self.m.blocks[b] = MBlock::default();
        let params: Vec<Value> = self.f.blocks[b].params.clone();
        if params.iter().any(|&p| self.f.value_type(p).is_64bit()) {
            return Err(Diagnostic::error("E0401", format!("internal error: a 64-bit parameter of {b} reached selection")));
        }
        let mut mparams: Vec<VReg> = params.iter().map(|&p| self.vreg(p)).collect();
        let insts = self.f.blocks[b].insts.clone();
        for inst in insts {
            let span = self.f.spans[inst];
            let data = self.f.insts[inst].clone();
            let Some(result) = self.f.results[inst] else {
                self.select_effect(inst, &data, span)?;
                continue;
            };
            if self.half.skip.contains(&result) {
                continue;
            }
            if let Some(fused) = self.half.fused.get(&result).cloned() {
                let srcs = fused.args.iter().map(|&a| self.half_operand(a, span)).collect();
                let d = self.vreg(result);
                self.op(fused.op, d, srcs, span);
                continue;
            }
            match data {
                // Computed into a predicate at each use.
                _ if self.fused.contains(&result) => continue,
                InstData::KernelArg { index } => {
                    if b != self.f.entry_block() {
                        return Err(Diagnostic::error("E0401", "internal error: kernel argument outside the entry block"));
                    }
                    let r = self.vreg(result);
                    self.m.vregs[r].fixed = Some(index);
                    // ABI registers are live on entry: model them as entry parameters.
                    mparams.push(r);
                }
                InstData::Const { ty, bits } => {
                    let r = self.vreg(result);
                    let note = (ty == Type::F32).then(|| format!("{:?}", f32::from_bits(bits)));
                    self.mov_imm(r, bits, span, note);
                }
                InstData::Special { reg } => {
                    let r = self.vreg(result);
                    self.special(r, reg, span);
                }
                InstData::Unary { op, arg } => self.unary(op, result, arg, span),
                InstData::Binary { op, args } => self.binary(op, result, args, span),
                InstData::Ternary { op, args } => self.ternary(op, result, args, span),
                InstData::Cmp { op, args } => {
                    let p = self.new_p(self.uniform[result]);
                    let (x, y) = (self.vreg(args[0]), self.vreg(args[1]));
                    self.compare(p, op, x, y, span);
                    let d = self.vreg(result);
                    self.bool_from_pred(d, p, span);
                }
                InstData::Select { cond, args, .. } => {
                    let p = self.predicate(cond, span);
                    let (t, f) = (self.vreg(args[0]), self.vreg(args[1]));
                    let d = self.vreg(result);
                    self.select_into(d, p, t, f, span);
                }
                InstData::Convert { op, arg } => self.convert(op, result, arg, span),
                InstData::Bitcast { arg, .. } => {
                    let a = self.vreg(arg);
                    self.alias(result, a);
                }
                InstData::Load { space, addr, ty } => {
                    let (d, a) = (self.vreg(result), self.vreg(addr));
                    let code = match (space == MemSpace::Local, ty.bits() == 16) {
                        (true, false) => Opcode::LocalLoadU32,
                        (false, false) => Opcode::DeviceLoadU32,
                        (true, true) => Opcode::LocalLoadU16,
                        (false, true) => Opcode::DeviceLoadU16,
                    };
                    let mut load = MInst::new(code, Some(d), vec![a], span);
                    load.invariant = space == MemSpace::DeviceReadOnly;
                    self.push(load);
                }
                InstData::AtomicRmw { op, space, addr, value } => self.atomic_rmw(op, space, result, addr, value, span)?,
                InstData::AtomicCas { space, addr, expected, value } => self.atomic_cas(space, result, addr, expected, value, span)?,
                InstData::WaveReduce { op, arg } => self.wave_reduce(op, result, arg, span),
                InstData::WavePrefix { op, arg } => self.wave_prefix(op, result, arg, span),
                InstData::WaveBallot { cond, word } => self.wave_ballot(result, cond, word, span),
                InstData::WaveVote { op, cond } => self.wave_vote(op, result, cond, span),
                InstData::WaveReadLane { arg, lane, .. } => self.wave_read_lane(result, arg, lane, span),
                InstData::WaveReadFirst { arg, .. } => self.wave_read_first(result, arg, span),
                InstData::Store { .. } | InstData::Barrier | InstData::Fence { .. } => {
                    return Err(Diagnostic::error("E0401", format!("internal error: {inst} has a result it cannot have")));
                }
                InstData::Pack64 { ty: Type::F64, lo, hi } => {
                    let (l, h) = (self.vreg(lo), self.vreg(hi));
                    let d = self.vreg(result);
                    let mut i = MInst::new(Opcode::Join, Some(d), vec![l, h], span);
                    i.early_clobber = true;
                    self.push(i);
                }
                InstData::Unpack64 { hi, arg } if self.f.value_type(arg) == Type::F64 => {
                    let a = self.vreg(arg);
                    let d = self.vreg(result);
                    let mut i = MInst::new(Opcode::Word, Some(d), vec![a], span);
                    i.imm = Some(u32::from(hi));
                    self.push(i);
                }
                InstData::Double { op: op @ (DoubleOp::FromF32 | DoubleOp::ToF32), args } if self.isa == Isa::Wave012 => {
                    let (a, d) = (self.vreg(args[0]), self.vreg(result));
                    let uniform = self.is_uniform(result);
                    if op == DoubleOp::FromF32 {
                        self.compat_f32_to_f64(d, a, uniform, span);
                    } else {
                        self.compat_f64_to_f32(d, a, uniform, span);
                    }
                }
                InstData::Double { op, args } => {
                    let code = match op {
                        DoubleOp::Add => Opcode::Dadd,
                        DoubleOp::Sub => Opcode::Dsub,
                        DoubleOp::Mul => Opcode::Dmul,
                        DoubleOp::Div => Opcode::Ddiv,
                        DoubleOp::Fma => Opcode::Dma,
                        DoubleOp::Sqrt => Opcode::Dsqrt,
                        DoubleOp::FromF32 => Opcode::CvtF32ToF64,
                        DoubleOp::ToF32 => Opcode::CvtF64ToF32,
                    };
                    let srcs: Vec<VReg> = args[..op.arity()].iter().map(|&a| self.vreg(a)).collect();
                    let d = self.vreg(result);
                    self.op(code, d, srcs, span);
                }
                InstData::Pack64 { .. } | InstData::Unpack64 { .. } => {
                    return Err(Diagnostic::error("E0401", format!("internal error: {inst}: a 64-bit integer reached selection")));
                }
            }
        }
        self.m.blocks[b].params = mparams;
        let span = self.f.blocks[b].term_span;
        let term = match self.f.blocks[b].term.clone() {
            Terminator::None => return Err(Diagnostic::error("E0401", format!("internal error: {b} has no terminator"))),
            Terminator::Return => MTerm::Return,
            Terminator::Jump { dest, args } => MTerm::Jump { dest, args: args.iter().map(|&a| self.vreg(a)).collect() },
            Terminator::Loop { header, args, exit } => MTerm::Loop { header, args: args.iter().map(|&a| self.vreg(a)).collect(), exit },
            Terminator::If { cond, then_dest, else_dest, merge } => {
                let p = self.predicate(cond, span);
                MTerm::If { cond: p, then_dest, else_dest, merge }
            }
            Terminator::BreakIf { cond, exit, args, cont } => {
                let p = self.predicate(cond, span);
                if !args.is_empty() {
                    // Edge copies to the exit are predicated on the break condition.
                    self.m.vregs[p].predicates = true;
                }
                MTerm::BreakIf { cond: p, exit, args: args.iter().map(|&a| self.vreg(a)).collect(), cont }
            }
        };
        let last = self.cur;
        self.m.blocks[last].term = term;
        self.m.blocks[last].term_span = span;
        Ok(())
    }

    /// Instructions without a result: stores, atomics whose IR result is absent, barriers, fences.
    fn select_effect(&mut self, inst: Inst, data: &InstData, span: Span) -> Result<(), Diagnostic> {
        match *data {
            InstData::Store { space, addr, value } => {
                let (a, x) = (self.vreg(addr), self.vreg(value));
                let code = match (space == MemSpace::Local, self.f.value_type(value).bits() == 16) {
                    (true, false) => Opcode::LocalStoreU32,
                    (false, false) => Opcode::DeviceStoreU32,
                    (true, true) => Opcode::LocalStoreU16,
                    (false, true) => Opcode::DeviceStoreU16,
                };
                self.push(MInst::new(code, None, vec![a, x], span));
                Ok(())
            }
            InstData::Barrier => {
                // Spec v0.4 §6.12: memory operations before a `barrier` are
                // visible to every wave of the workgroup after it, so a
                // workgroup fence right before one adds nothing. The
                // wave-0.1.2 profile keeps it (its backends are read as they are).
                let cur = self.cur;
                if self.isa == Isa::Wave
                    && self.m.blocks[cur].insts.last().is_some_and(|i| i.op == Opcode::Fence(crate::ir::FenceScope::Workgroup))
                {
                    self.m.blocks[cur].insts.pop();
                }
                self.push(MInst::new(Opcode::Barrier, None, vec![], span));
                Ok(())
            }
            InstData::Fence { scope } => {
                self.push(MInst::new(Opcode::Fence(scope), None, vec![], span));
                Ok(())
            }
            _ => Err(Diagnostic::error("E0401", format!("internal error: {inst} has no result"))),
        }
    }

    /// The register of a 16-bit operation's operand; half constants are
    /// materialized once per block.
    fn half_operand(&mut self, a: super::half::Operand, span: Span) -> VReg {
        match a {
            super::half::Operand::Value(v) => self.vreg(v),
            super::half::Operand::Half(bits) => {
                if let Some(&r) = self.half_consts.get(&(self.cur, bits)) {
                    return r;
                }
                let r = self.m.new_vreg(RegClass::H, true);
                self.mov_imm(r, u32::from(bits), span, Some(format!("{:?}", half::f16::from_bits(bits).to_f32())));
                self.half_consts.insert((self.cur, bits), r);
                r
            }
        }
    }

    pub(super) fn const_of(&self, v: Value) -> Option<u32> {
        let inst = self.f.def_inst(v)?;
        match self.f.insts[inst] {
            InstData::Const { bits, .. } => Some(bits),
            _ => None,
        }
    }
}

/// One compare of a predicate chain: `op x, y`, under `guard` (see `MInst::chain`).
#[derive(Clone, Copy, Debug)]
struct ChainStep {
    guard: Option<bool>,
    op: Opcode,
    x: VReg,
    y: VReg,
}

/// Whether `data` is a boolean that a predicate chain can compute.
fn is_predicate_logic(data: &InstData) -> bool {
    matches!(
        data,
        InstData::Cmp { .. } | InstData::Unary { op: UnaryOp::BNot, .. } | InstData::Binary { op: BinaryOp::BAnd | BinaryOp::BOr, .. }
    )
}

/// The machine compares for `x op y` (its negation when `neg`). WAVE has no
/// `ucmp_gt/ge` or `fcmp_ge`: operands swap. Integer compares and float
/// (in)equality negate exactly; an ordered float compare's negation also
/// holds for NaN operands: `!(x < y)` is `y <= x || unordered(x, y)`.
///
/// On wave-0.1.2, `fcmp_ne` (true on NaN on wave-emu, false in wave-ptx's
/// `setp.ne`) becomes `unordered || x < y || x > y`.
fn compare_steps(op: CmpOp, neg: bool, x: VReg, y: VReg, isa: Isa) -> Vec<ChainStep> {
    let steps = compare_steps_any(op, neg, x, y);
    if isa != Isa::Wave012 {
        return steps;
    }
    steps
        .into_iter()
        .flat_map(|s| match (s.op, s.guard) {
            (Opcode::FcmpNe, None) => vec![
                ChainStep { guard: None, op: Opcode::FcmpUnord, x: s.x, y: s.y },
                ChainStep { guard: Some(false), op: Opcode::FcmpLt, x: s.x, y: s.y },
                ChainStep { guard: Some(false), op: Opcode::FcmpGt, x: s.x, y: s.y },
            ],
            _ => vec![s],
        })
        .collect()
}

fn compare_steps_any(op: CmpOp, neg: bool, x: VReg, y: VReg) -> Vec<ChainStep> {
    use CmpOp::*;
    let one = |op: Opcode, x: VReg, y: VReg| ChainStep { guard: None, op, x, y };
    let int = |op: CmpOp| match op {
        Eq => one(Opcode::IcmpEq, x, y),
        Ne => one(Opcode::IcmpNe, x, y),
        SLt => one(Opcode::IcmpLt, x, y),
        SLe => one(Opcode::IcmpLe, x, y),
        SGt => one(Opcode::IcmpGt, x, y),
        SGe => one(Opcode::IcmpGe, x, y),
        ULt => one(Opcode::UcmpLt, x, y),
        ULe => one(Opcode::UcmpLe, x, y),
        UGt => one(Opcode::UcmpLt, y, x),
        UGe => one(Opcode::UcmpLe, y, x),
        FEq => one(Opcode::FcmpEq, x, y),
        FNe => one(Opcode::FcmpNe, x, y),
        FLt => one(Opcode::FcmpLt, x, y),
        FLe => one(Opcode::FcmpLe, x, y),
        FGt => one(Opcode::FcmpGt, x, y),
        FGe => one(Opcode::FcmpLe, y, x),
    };
    if !neg {
        return vec![int(op)];
    }
    let ordered = |op: CmpOp| vec![int(op), ChainStep { guard: Some(false), op: Opcode::FcmpUnord, x, y }];
    match op {
        Eq => vec![int(Ne)],
        Ne => vec![int(Eq)],
        SLt => vec![int(SGe)],
        SLe => vec![int(SGt)],
        SGt => vec![int(SLe)],
        SGe => vec![int(SLt)],
        ULt => vec![int(UGe)],
        ULe => vec![int(UGt)],
        UGt => vec![int(ULe)],
        UGe => vec![int(ULt)],
        FEq => vec![int(FNe)],
        FNe => vec![int(FEq)],
        FLt => ordered(FGe),
        FLe => ordered(FGt),
        FGt => ordered(FLe),
        FGe => ordered(FLt),
    }
}
