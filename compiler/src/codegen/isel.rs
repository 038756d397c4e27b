//! Instruction selection: IR values to WAVE operations on virtual registers.
//!
//! Booleans: a compare whose only uses are branch or select conditions in its
//! own block is not materialized; it is emitted into a fresh predicate right
//! before each use, so predicates stay short-lived. Other booleans live in V
//! registers as 0/1 and are turned into a predicate where a condition needs one.

use super::mir::*;
use crate::diag::{Diagnostic, Span};
use crate::driver::Isa;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Selects machine instructions for `f`. `uniform[v]` marks wave-invariant values.
pub fn select(f: &Function, isa: Isa, uniform: &SecondaryMap<Value, bool>) -> Result<MFunction, Diagnostic> {
    let nodes = region_tree(f).map_err(|e| Diagnostic::error("E0401", format!("internal error: unstructured IR: {e}")))?;
    let order = block_order(&nodes);
    let mut s = Selector { f, isa, uniform, m: MFunction::default(), map: SecondaryMap::new(), fused: BTreeMap::new() };
    s.m.name = f.name.clone();
    s.m.entry = f.entry_block();
    s.m.order = order.clone();
    s.find_fusable_compares(&order);
    for &b in &order {
        s.select_block(b)?;
    }
    Ok(s.m)
}

struct Selector<'a> {
    f: &'a Function,
    isa: Isa,
    uniform: &'a SecondaryMap<Value, bool>,
    m: MFunction,
    map: SecondaryMap<Value, Option<VReg>>,
    /// Compares emitted at their uses: value -> (op, lhs, rhs).
    fused: BTreeMap<Value, (CmpOp, Value, Value)>,
}

impl<'a> Selector<'a> {
    fn find_fusable_compares(&mut self, order: &[Block]) {
        let inst_block = self.f.inst_blocks();
        // Uses of each value: (block, is a condition use).
        let mut uses: BTreeMap<Value, Vec<(Block, bool)>> = BTreeMap::new();
        for &b in order {
            for &i in &self.f.blocks[b].insts {
                let data = &self.f.insts[i];
                let cond = if let InstData::Select { cond, .. } = data { Some(*cond) } else { None };
                for (k, a) in data.args().into_iter().enumerate() {
                    uses.entry(a).or_default().push((b, k == 0 && cond == Some(a)));
                }
            }
            let term = &self.f.blocks[b].term;
            let cond = match term {
                Terminator::If { cond, .. } | Terminator::BreakIf { cond, .. } => Some(*cond),
                _ => None,
            };
            for (k, a) in term.args().into_iter().enumerate() {
                uses.entry(a).or_default().push((b, k == 0 && cond == Some(a)));
            }
        }
        for &b in order {
            for &i in &self.f.blocks[b].insts {
                if let InstData::Cmp { op, args } = self.f.insts[i] {
                    let Some(v) = self.f.results[i] else { continue };
                    let list = uses.get(&v).map(Vec::as_slice).unwrap_or(&[]);
                    if !list.is_empty() && list.iter().all(|&(ub, is_cond)| is_cond && ub == b && inst_block[i] == Some(b)) {
                        self.fused.insert(v, (op, args[0], args[1]));
                    }
                }
            }
        }
    }

    fn vreg(&mut self, v: Value) -> VReg {
        if let Some(r) = self.map[v] {
            return r;
        }
        let r = self.m.new_vreg(RegClass::V, self.uniform[v]);
        self.map[v] = Some(r);
        r
    }

    fn new_v(&mut self, uniform: bool) -> VReg {
        self.m.new_vreg(RegClass::V, uniform)
    }

    fn push(&mut self, b: Block, inst: MInst) {
        self.m.blocks[b].insts.push(inst);
    }

    fn op(&mut self, b: Block, op: Opcode, dst: VReg, srcs: Vec<VReg>, span: Span) {
        self.push(b, MInst::new(op, Some(dst), srcs, span));
    }

    fn mov_imm(&mut self, b: Block, dst: VReg, bits: u32, span: Span, note: Option<String>) {
        let mut i = MInst::new(Opcode::MovImm, Some(dst), vec![], span);
        i.imm = Some(bits);
        i.note = note;
        self.push(b, i);
    }

    fn constant(&mut self, b: Block, bits: u32, span: Span) -> VReg {
        let r = self.new_v(true);
        self.mov_imm(b, r, bits, span, None);
        r
    }

    /// A predicate holding the boolean `v`, computed at the current end of `b`.
    fn predicate(&mut self, b: Block, v: Value, span: Span) -> VReg {
        let uniform = self.uniform[v];
        let p = self.m.new_vreg(RegClass::P, uniform);
        if let Some(&(op, x, y)) = self.fused.get(&v) {
            let (x, y) = (self.vreg(x), self.vreg(y));
            self.compare(b, p, op, x, y, span);
        } else {
            let x = self.vreg(v);
            let zero = self.constant(b, 0, span);
            self.op(b, Opcode::IcmpNe, p, vec![x, zero], span);
        }
        p
    }

    fn compare(&mut self, b: Block, p: VReg, op: CmpOp, x: VReg, y: VReg, span: Span) {
        use CmpOp::*;
        // WAVE has no ucmp_gt/ge or fcmp_ge: swap the operands.
        let (code, x, y) = match op {
            Eq => (Opcode::IcmpEq, x, y),
            Ne => (Opcode::IcmpNe, x, y),
            SLt => (Opcode::IcmpLt, x, y),
            SLe => (Opcode::IcmpLe, x, y),
            SGt => (Opcode::IcmpGt, x, y),
            SGe => (Opcode::IcmpGe, x, y),
            ULt => (Opcode::UcmpLt, x, y),
            ULe => (Opcode::UcmpLe, x, y),
            UGt => (Opcode::UcmpLt, y, x),
            UGe => (Opcode::UcmpLe, y, x),
            FEq => (Opcode::FcmpEq, x, y),
            FNe => (Opcode::FcmpNe, x, y),
            FLt => (Opcode::FcmpLt, x, y),
            FLe => (Opcode::FcmpLe, x, y),
            FGt => (Opcode::FcmpGt, x, y),
            FGe => (Opcode::FcmpLe, y, x),
        };
        self.op(b, code, p, vec![x, y], span);
    }

    /// d = p ? t : f
    fn select_into(&mut self, b: Block, d: VReg, p: VReg, t: VReg, f: VReg, span: Span) {
        self.m.vregs[p].predicates = true;
        let mut i = MInst::new(Opcode::Select, Some(d), vec![t, f], span);
        i.pred = Some((p, false));
        // wave-0.1.2 expands to `mov d, f; @p mov d, t`: d must not be t's register.
        i.early_clobber = self.isa == Isa::Wave012;
        self.push(b, i);
    }

    fn bool_from_pred(&mut self, b: Block, d: VReg, p: VReg, span: Span) {
        self.m.vregs[p].predicates = true;
        let mut i = MInst::new(Opcode::BoolFromPred, Some(d), vec![], span);
        i.pred = Some((p, false));
        self.push(b, i);
    }

    fn select_block(&mut self, b: Block) -> Result<(), Diagnostic> {
        self.m.blocks[b] = MBlock::default();
        let params: Vec<Value> = self.f.blocks[b].params.clone();
        let mut mparams: Vec<VReg> = params.iter().map(|&p| self.vreg(p)).collect();
        let insts = self.f.blocks[b].insts.clone();
        for inst in insts {
            let span = self.f.spans[inst];
            let result = self.f.results[inst];
            match self.f.insts[inst].clone() {
                InstData::KernelArg { index } => {
                    if b != self.f.entry_block() {
                        return Err(Diagnostic::error("E0401", "internal error: kernel argument outside the entry block"));
                    }
                    let r = self.vreg(result.expect("kernel_arg has a result"));
                    self.m.vregs[r].fixed = Some(index);
                    // ABI registers are live on entry: model them as entry parameters.
                    mparams.push(r);
                }
                InstData::Const { ty, bits } => {
                    let r = self.vreg(result.expect("const has a result"));
                    let note = (ty == Type::F32).then(|| format!("{:?}", f32::from_bits(bits)));
                    self.mov_imm(b, r, bits, span, note);
                }
                InstData::Special { reg } => {
                    let r = self.vreg(result.expect("special has a result"));
                    let mut i = MInst::new(Opcode::MovSpecial, Some(r), vec![], span);
                    i.special = Some(reg);
                    self.push(b, i);
                }
                InstData::Unary { op, arg } => {
                    let v = result.expect("unary has a result");
                    let (d, a) = (self.vreg(v), self.vreg(arg));
                    match op {
                        UnaryOp::INeg => self.op(b, Opcode::Ineg, d, vec![a], span),
                        UnaryOp::INot => self.op(b, Opcode::Not, d, vec![a], span),
                        UnaryOp::FNeg => self.op(b, Opcode::Fneg, d, vec![a], span),
                        UnaryOp::BNot => {
                            let one = self.constant(b, 1, span);
                            self.op(b, Opcode::Xor, d, vec![a, one], span);
                        }
                    }
                }
                InstData::Binary { op, args } => {
                    let v = result.expect("binary has a result");
                    self.binary(b, op, v, args, span);
                }
                InstData::Cmp { op, args } => {
                    let v = result.expect("cmp has a result");
                    if self.fused.contains_key(&v) {
                        continue;
                    }
                    let p = self.m.new_vreg(RegClass::P, self.uniform[v]);
                    let (x, y) = (self.vreg(args[0]), self.vreg(args[1]));
                    self.compare(b, p, op, x, y, span);
                    let d = self.vreg(v);
                    self.bool_from_pred(b, d, p, span);
                }
                InstData::Select { cond, args, .. } => {
                    let v = result.expect("select has a result");
                    let p = self.predicate(b, cond, span);
                    let (t, f) = (self.vreg(args[0]), self.vreg(args[1]));
                    let d = self.vreg(v);
                    self.select_into(b, d, p, t, f, span);
                }
                InstData::Convert { op, arg } => {
                    let v = result.expect("convert has a result");
                    let (d, a) = (self.vreg(v), self.vreg(arg));
                    let uniform = self.uniform[v];
                    // 16-bit values sit zero-extended in the low half of a V register.
                    let code = match op {
                        ConvOp::SIToF => Opcode::CvtI32ToF32,
                        ConvOp::UIToF => Opcode::CvtU32ToF32,
                        ConvOp::FToSI => Opcode::CvtF32ToI32,
                        ConvOp::FToUI => Opcode::CvtF32ToU32,
                        ConvOp::F16ToF32 => Opcode::CvtF16ToF32,
                        ConvOp::F32ToF16 => Opcode::CvtF32ToF16,
                        ConvOp::ZExt16 => Opcode::Mov,
                        ConvOp::Trunc16 => {
                            let mask = self.constant(b, 0xffff, span);
                            self.op(b, Opcode::And, d, vec![a, mask], span);
                            continue;
                        }
                        ConvOp::SExt16 => {
                            let sixteen = self.constant(b, 16, span);
                            let t = self.new_v(uniform);
                            self.op(b, Opcode::Shl, t, vec![a, sixteen], span);
                            self.op(b, Opcode::Sar, d, vec![t, sixteen], span);
                            continue;
                        }
                    };
                    self.op(b, code, d, vec![a], span);
                }
                InstData::Load { space, addr, ty } => {
                    let v = result.expect("load has a result");
                    let (d, a) = (self.vreg(v), self.vreg(addr));
                    let code = match (space == MemSpace::Local, ty.bits() == 16) {
                        (true, false) => Opcode::LocalLoadU32,
                        (false, false) => Opcode::DeviceLoadU32,
                        (true, true) => Opcode::LocalLoadU16,
                        (false, true) => Opcode::DeviceLoadU16,
                    };
                    self.op(b, code, d, vec![a], span);
                }
                InstData::Store { space, addr, value } => {
                    let (a, x) = (self.vreg(addr), self.vreg(value));
                    let code = match (space == MemSpace::Local, self.f.value_type(value).bits() == 16) {
                        (true, false) => Opcode::LocalStoreU32,
                        (false, false) => Opcode::DeviceStoreU32,
                        (true, true) => Opcode::LocalStoreU16,
                        (false, true) => Opcode::DeviceStoreU16,
                    };
                    self.push(b, MInst::new(code, None, vec![a, x], span));
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
                let p = self.predicate(b, cond, span);
                MTerm::If { cond: p, then_dest, else_dest, merge }
            }
            Terminator::BreakIf { cond, exit, args, cont } => {
                let p = self.predicate(b, cond, span);
                if !args.is_empty() {
                    // Edge copies to the exit are predicated on the break condition.
                    self.m.vregs[p].predicates = true;
                }
                MTerm::BreakIf { cond: p, exit, args: args.iter().map(|&a| self.vreg(a)).collect(), cont }
            }
        };
        self.m.blocks[b].term = term;
        self.m.blocks[b].term_span = span;
        Ok(())
    }

    fn const_of(&self, v: Value) -> Option<u32> {
        let inst = self.f.def_inst(v)?;
        match self.f.insts[inst] {
            InstData::Const { bits, .. } => Some(bits),
            _ => None,
        }
    }

    fn binary(&mut self, b: Block, op: BinaryOp, v: Value, args: [Value; 2], span: Span) {
        use BinaryOp::*;
        let d = self.vreg(v);
        let uniform = self.uniform[v];
        let (x, y) = (self.vreg(args[0]), self.vreg(args[1]));
        let simple = |op| Some(op);
        let code = match op {
            IAdd => simple(Opcode::Iadd),
            ISub => simple(Opcode::Isub),
            IMul => simple(Opcode::Imul),
            SDiv => simple(Opcode::Idiv),
            SRem => simple(Opcode::Imod),
            And | BAnd => simple(Opcode::And),
            Or | BOr => simple(Opcode::Or),
            Xor | BXor => simple(Opcode::Xor),
            Shl => simple(Opcode::Shl),
            LShr => simple(Opcode::Shr),
            AShr => simple(Opcode::Sar),
            FAdd => simple(Opcode::Fadd),
            FSub => simple(Opcode::Fsub),
            FMul => simple(Opcode::Fmul),
            FDiv => simple(Opcode::Fdiv),
            UDiv | URem | FRem => None,
        };
        if let Some(code) = code {
            self.op(b, code, d, vec![x, y], span);
            return;
        }
        match op {
            FRem => {
                // fmod with truncation: x - trunc(x / y) * y
                let q = self.new_v(uniform);
                self.op(b, Opcode::Fdiv, q, vec![x, y], span);
                let t = self.new_v(uniform);
                self.op(b, Opcode::Ftrunc, t, vec![q], span);
                let m = self.new_v(uniform);
                self.op(b, Opcode::Fmul, m, vec![t, y], span);
                let r = self.new_v(uniform);
                self.op(b, Opcode::Fsub, r, vec![x, m], span);
                // fmod's result carries the sign of x, also when it is zero (-6 % 3 is -0).
                let sign_bit = self.constant(b, 0x8000_0000, span);
                let sign = self.new_v(uniform);
                self.op(b, Opcode::And, sign, vec![x, sign_bit], span);
                self.op(b, Opcode::Or, d, vec![r, sign], span);
            }
            UDiv | URem => {
                if let Some(c) = self.const_of(args[1]).filter(|c| c.is_power_of_two()) {
                    if op == UDiv {
                        let sh = self.constant(b, c.trailing_zeros(), span);
                        self.op(b, Opcode::Shr, d, vec![x, sh], span);
                    } else {
                        let mask = self.constant(b, c - 1, span);
                        self.op(b, Opcode::And, d, vec![x, mask], span);
                    }
                    return;
                }
                let q = if op == UDiv { d } else { self.new_v(uniform) };
                self.unsigned_divide(b, q, x, y, uniform, span);
                if op == URem {
                    let t = self.new_v(uniform);
                    self.op(b, Opcode::Imul, t, vec![q, y], span);
                    self.op(b, Opcode::Isub, d, vec![x, t], span);
                }
            }
            _ => unreachable!("handled above"),
        }
    }

    /// q = n / d for unsigned 32-bit values using WAVE's signed `idiv`:
    /// for d < 2^31, q = 2*((n >> 1) / d), corrected by one if the remainder
    /// is still >= d; for d >= 2^31 the quotient is n >= d.
    fn unsigned_divide(&mut self, b: Block, q: VReg, n: VReg, d: VReg, uniform: bool, span: Span) {
        let one = self.constant(b, 1, span);
        let half = self.new_v(uniform);
        self.op(b, Opcode::Shr, half, vec![n, one], span);
        let q1 = self.new_v(uniform);
        self.op(b, Opcode::Idiv, q1, vec![half, d], span);
        let q2 = self.new_v(uniform);
        self.op(b, Opcode::Shl, q2, vec![q1, one], span);
        let prod = self.new_v(uniform);
        self.op(b, Opcode::Imul, prod, vec![q2, d], span);
        let rem = self.new_v(uniform);
        self.op(b, Opcode::Isub, rem, vec![n, prod], span);
        let q3 = self.new_v(uniform);
        self.op(b, Opcode::Iadd, q3, vec![q2, one], span);
        let fix = self.m.new_vreg(RegClass::P, uniform);
        self.op(b, Opcode::UcmpLe, fix, vec![d, rem], span);
        let small = self.new_v(uniform);
        self.select_into(b, small, fix, q3, q2, span);
        // Divisors with the top bit set.
        let zero = self.constant(b, 0, span);
        let big = self.m.new_vreg(RegClass::P, uniform);
        self.op(b, Opcode::IcmpLt, big, vec![d, zero], span);
        let ge = self.m.new_vreg(RegClass::P, uniform);
        self.op(b, Opcode::UcmpLe, ge, vec![d, n], span);
        let big_q = self.new_v(uniform);
        self.bool_from_pred(b, big_q, ge, span);
        self.select_into(b, q, big, big_q, small, span);
    }
}
