//! Selection of the cross-lane (wave) operations.
//!
//! Native where the profile's instruction means exactly the IR op over the
//! active lanes: `wave_reduce_add`, unsigned `wave_reduce_min/max` (both
//! profiles, as the emulators and our simulator execute them), and/or/xor
//! reductions (spec only), `wave_prefix_sum`, `wave_ballot` (lanes 0..32),
//! `wave_broadcast`. Otherwise:
//!
//! - signed min/max reductions: unsigned ones on x ^ 0x80000000, flipped back;
//! - `wave_any`/`wave_all` of a 0/1 boolean: unsigned max/min reductions;
//! - `wave_read_first`: the lowest active lane is the min reduction of the lane
//!   ids, then a broadcast from it;
//! - ballot words above 0: each active lane contributes `c << (lane - 32*word)`
//!   when its lane is in the word (0 otherwise); the bits are distinct, so the
//!   add reduction is their or;
//! - everything else (imul, float reductions and prefixes, and/or/xor on
//!   wave-0.1.2, prefix products): a loop over the active lanes in ascending
//!   lane order (`waterfall`). No shuffle is used: shuffles from inactive lanes
//!   are implementation-defined in the spec and read stale registers on 0.1.2.
//!
//! Only active lanes are ever read, except by `wave_read_lane` (whose lane the
//! program promises is active; a per-lane index becomes `wave_shuffle`), so
//! register allocation needs no care beyond the ordinary per-lane liveness.

use super::isel::{LoopEnd, Selector};
use super::mir::*;
use crate::diag::Span;
use crate::ir::*;
use crate::options::Isa;

impl<'a> Selector<'a> {
    pub(super) fn wave_reduce(&mut self, op: WaveOp, v: Value, arg: Value, span: Span) {
        let (d, x) = (self.vreg(v), self.vreg(arg));
        if self.isa == Isa::Wave012 {
            match op {
                WaveOp::UMin | WaveOp::UMax => return self.compat_wave_minmax(d, x, op == WaveOp::UMax, span),
                WaveOp::SMin | WaveOp::SMax => {
                    let bias = self.constant(0x8000_0000, span);
                    let bx = self.op_new(Opcode::Xor, vec![x, bias], false, span);
                    let red = self.new_v(true);
                    self.compat_wave_minmax(red, bx, op == WaveOp::SMax, span);
                    self.op(Opcode::Xor, d, vec![red, bias], span);
                    return;
                }
                WaveOp::IAdd => {}
                _ => return self.compat_fold(op, false, d, x, span),
            }
        }
        let native = match op {
            WaveOp::IAdd => Some(MReduce::Add),
            WaveOp::UMin => Some(MReduce::Min),
            WaveOp::UMax => Some(MReduce::Max),
            WaveOp::And if self.isa == Isa::Wave => Some(MReduce::And),
            WaveOp::Or if self.isa == Isa::Wave => Some(MReduce::Or),
            WaveOp::Xor if self.isa == Isa::Wave => Some(MReduce::Xor),
            _ => None,
        };
        if let Some(r) = native {
            self.op(Opcode::WaveReduce(r), d, vec![x], span);
            return;
        }
        match op {
            WaveOp::SMin | WaveOp::SMax => {
                let bias = self.constant(0x8000_0000, span);
                let bx = self.op_new(Opcode::Xor, vec![x, bias], false, span);
                let r = if op == WaveOp::SMin { MReduce::Min } else { MReduce::Max };
                let red = self.op_new(Opcode::WaveReduce(r), vec![bx], true, span);
                self.op(Opcode::Xor, d, vec![red, bias], span);
            }
            _ => self.waterfall(op, false, d, x, span),
        }
    }

    pub(super) fn wave_prefix(&mut self, op: WaveOp, v: Value, arg: Value, span: Span) {
        let (d, x) = (self.vreg(v), self.vreg(arg));
        if op == WaveOp::IAdd {
            self.op(Opcode::WavePrefixSum, d, vec![x], span);
        } else if self.isa == Isa::Wave012 {
            self.compat_fold(op, true, d, x, span);
        } else {
            self.waterfall(op, true, d, x, span);
        }
    }

    /// Folds `op` over `x` of the active lanes in ascending lane order,
    /// starting from the identity: each round the lowest lane still in the
    /// loop broadcasts its `x`, every lane still in the loop combines it
    /// (`acc = acc op x`), and the lowest lane leaves. A prefix leaves with the
    /// value before its own `x` (exclusive); a reduction leaves with the value
    /// after it, so the last lane to leave holds the whole result, which is then
    /// broadcast from it. Floats are therefore summed as
    /// `((x[l0] + x[l1]) + x[l2]) + ...` over the active lanes l0 < l1 < ...
    fn waterfall(&mut self, op: WaveOp, prefix: bool, d: VReg, x: VReg, span: Span) {
        let (combine, identity) = match op {
            WaveOp::IMul => (Opcode::Imul, 1),
            WaveOp::And => (Opcode::And, u32::MAX),
            WaveOp::Or => (Opcode::Or, 0),
            WaveOp::Xor => (Opcode::Xor, 0),
            // -0.0 is the exact identity of addition; a prefix starts from +0.0,
            // the first lane's result that HLSL states.
            WaveOp::FAdd => (Opcode::Fadd, if prefix { 0 } else { 0x8000_0000 }),
            WaveOp::FMul => (Opcode::Fmul, 1.0f32.to_bits()),
            // NaN is the identity of the NaN-ignoring min and max.
            WaveOp::FMin => (Opcode::Fmin, f32::NAN.to_bits()),
            WaveOp::FMax => (Opcode::Fmax, f32::NAN.to_bits()),
            // Native everywhere or expanded without a loop (see the callers).
            WaveOp::IAdd | WaveOp::SMin | WaveOp::SMax | WaveOp::UMin | WaveOp::UMax => {
                unreachable!("{} is not a waterfall", op.name())
            }
        };
        let lane = self.lane_id(span);
        let start = self.new_v(true);
        let note = (op.ty() == Type::F32).then(|| format!("{:?}", f32::from_bits(identity)));
        self.mov_imm(start, identity, span, note);
        let acc = self.new_v(true);
        let out = if prefix { d } else { self.new_v(false) };
        self.emit_loop(vec![start], vec![acc], vec![out], span, |s| {
            let first = s.op_new(Opcode::WaveReduce(MReduce::Min), vec![lane], true, span);
            let xf = s.op_new(Opcode::WaveBroadcast, vec![x, first], true, span);
            let next = s.op_new(combine, vec![acc, xf], true, span);
            let leave = s.new_p(false);
            s.op(Opcode::IcmpEq, leave, vec![lane, first], span);
            LoopEnd { brk: leave, exit_args: vec![if prefix { acc } else { next }], next: vec![next] }
        });
        if !prefix {
            let last = self.op_new(Opcode::WaveReduce(MReduce::Max), vec![lane], true, span);
            self.op(Opcode::WaveBroadcast, d, vec![out, last], span);
        }
    }

    pub(super) fn wave_ballot(&mut self, v: Value, cond: Value, word: u32, span: Span) {
        let d = self.vreg(v);
        if word == 0 {
            let p = self.predicate(cond, span);
            self.op(Opcode::WaveBallot, d, vec![p], span);
            return;
        }
        let c = self.vreg(cond);
        let lane = self.lane_id(span);
        let base = self.constant(32 * word, span);
        let k = self.op_new(Opcode::Isub, vec![lane, base], false, span);
        let c32 = if word == 1 { base } else { self.constant(32, span) };
        let inside = self.new_p(false);
        self.op(Opcode::UcmpLt, inside, vec![k, c32], span);
        let bit = self.op_new(Opcode::Shl, vec![c, k], false, span);
        let zero = self.constant(0, span);
        let mine = self.new_v(false);
        self.select_into(mine, inside, bit, zero, span);
        self.op(Opcode::WaveReduce(MReduce::Add), d, vec![mine], span);
    }

    pub(super) fn wave_vote(&mut self, op: VoteOp, v: Value, cond: Value, span: Span) {
        let (d, c) = (self.vreg(v), self.vreg(cond));
        let r = if op == VoteOp::Any { MReduce::Max } else { MReduce::Min };
        self.op(Opcode::WaveReduce(r), d, vec![c], span);
    }

    /// `arg` of lane `lane`. A uniform lane index is a broadcast; a per-lane one
    /// (allowed by HLSL's `WaveReadLaneAt` since 2020) is a shuffle, each lane
    /// reading the lane it names (reading an inactive lane is undefined in HLSL).
    pub(super) fn wave_read_lane(&mut self, v: Value, arg: Value, lane: Value, span: Span) {
        let (d, x, l) = (self.vreg(v), self.vreg(arg), self.vreg(lane));
        let op = if self.is_uniform(lane) { Opcode::WaveBroadcast } else { Opcode::WaveShuffle };
        self.op(op, d, vec![x, l], span);
    }

    pub(super) fn wave_read_first(&mut self, v: Value, arg: Value, span: Span) {
        let (d, x) = (self.vreg(v), self.vreg(arg));
        let lane = self.lane_id(span);
        let first = self.op_new(Opcode::WaveReduce(MReduce::Min), vec![lane], true, span);
        self.op(Opcode::WaveBroadcast, d, vec![x, first], span);
    }
}
