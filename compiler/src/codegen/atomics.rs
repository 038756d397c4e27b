//! Selection of atomics (barriers and fences need no expansion and are
//! selected in `isel.rs`).
//!
//! Both profiles spell device atomics `atomic_<op> [d,] addr, v, .device` and
//! local ones `local_atomic_<op> [d,] addr, v`; leaving out `d` is the
//! non-returning form, chosen when the IR result is unused. A returning atomic
//! never writes r0 (WAVE reads `rd = r0` as "non-returning"). WAVE's
//! `atomic_min`/`atomic_max` are unsigned (the only spelling; the spec lists
//! i32 and u32 for one opcode and the reference emulator compares unsigned),
//! so on the spec profile signed min/max are a compare-and-swap loop. On
//! wave-0.1.2, where `atomic_cas` is broken, CAS and signed min/max are refused.

use super::isel::{LoopEnd, Selector};
use super::mir::*;
use crate::diag::{Diagnostic, Span};
use crate::ir::*;
use crate::options::Isa;

impl<'a> Selector<'a> {
    pub(super) fn atomic_rmw(
        &mut self,
        op: AtomicOp,
        space: MemSpace,
        v: Value,
        addr: Value,
        value: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let machine = match op {
            AtomicOp::Add => MAtomic::Add,
            AtomicOp::Sub => MAtomic::Sub,
            AtomicOp::And => MAtomic::And,
            AtomicOp::Or => MAtomic::Or,
            AtomicOp::Xor => MAtomic::Xor,
            AtomicOp::Xchg => MAtomic::Exchange,
            AtomicOp::UMin => MAtomic::Min,
            AtomicOp::UMax => MAtomic::Max,
            AtomicOp::SMin | AtomicOp::SMax => {
                if self.isa == Isa::Wave012 {
                    return Err(Diagnostic::error(
                        "E0407",
                        format!(
                            "signed atomic {} cannot be compiled for `--isa wave-0.1.2`",
                            if op == AtomicOp::SMin { "min" } else { "max" }
                        ),
                    )
                    .with_label(span, "this atomic")
                    .with_note(
                        "wave-0.1.2's atomic_min/atomic_max compare unsigned, and its atomic_cas (needed for a retry loop) is broken",
                    )
                    .with_note("use an unsigned value (uint), or compile for `--isa wave`"));
                }
                self.signed_min_max_loop(op == AtomicOp::SMin, space, v, addr, value, span);
                return Ok(());
            }
        };
        let (a, x) = (self.vreg(addr), self.vreg(value));
        let dst = self.atomic_dst(v);
        self.push(MInst::new(Opcode::Atomic { local: space == MemSpace::Local, op: machine }, dst, vec![a, x], span));
        Ok(())
    }

    pub(super) fn atomic_cas(
        &mut self,
        space: MemSpace,
        v: Value,
        addr: Value,
        expected: Value,
        value: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        if self.isa == Isa::Wave012 {
            return Err(Diagnostic::error("E0406", "atomic compare-and-swap cannot be compiled for `--isa wave-0.1.2`")
                .with_label(span, "this compare-and-swap")
                .with_note("wave-asm 0.1.2 assembles atomic_cas into an atomic add plus a stray word")
                .with_note("compile for `--isa wave`"));
        }
        let (a, e, x) = (self.vreg(addr), self.vreg(expected), self.vreg(value));
        let dst = self.atomic_dst(v);
        // Operand order as WAVE executes it: address, new value, expected value.
        self.push(MInst::new(Opcode::Atomic { local: space == MemSpace::Local, op: MAtomic::Cas }, dst, vec![a, x, e], span));
        Ok(())
    }

    /// The destination of an atomic: none (non-returning) if nothing reads the old value.
    fn atomic_dst(&mut self, v: Value) -> Option<VReg> {
        if !self.is_used(v) {
            return None;
        }
        let d = self.vreg(v);
        self.m.vregs[d].not_r0 = true;
        Some(d)
    }

    /// Signed atomic min/max as a compare-and-swap loop (spec profile):
    ///
    /// ```text
    /// cur = load [addr]
    /// loop: new = smin(cur, value); old = cas [addr], new, expected cur
    ///       lanes where old == cur are done (old is the result); the others retry with cur = old
    /// ```
    ///
    /// Each round at least one lane per address succeeds, so the loop ends.
    fn signed_min_max_loop(&mut self, min: bool, space: MemSpace, v: Value, addr: Value, value: Value, span: Span) {
        let local = space == MemSpace::Local;
        let (a, x) = (self.vreg(addr), self.vreg(value));
        let load = if local { Opcode::LocalLoadU32 } else { Opcode::DeviceLoadU32 };
        let first = self.op_new(load, vec![a], false, span);
        let cur = self.new_v(false);
        let result = if self.is_used(v) { self.vreg(v) } else { self.new_v(false) };
        self.emit_loop(vec![first], vec![cur], vec![result], span, |s| {
            let new = s.op_new(if min { Opcode::Imin } else { Opcode::Imax }, vec![cur, x], false, span);
            let old = s.new_v(false);
            s.m.vregs[old].not_r0 = true;
            s.push(MInst::new(Opcode::Atomic { local, op: MAtomic::Cas }, Some(old), vec![a, new, cur], span));
            let done = s.new_p(false);
            s.op(Opcode::IcmpEq, done, vec![old, cur], span);
            LoopEnd { brk: done, exit_args: vec![old], next: vec![old] }
        });
    }
}
