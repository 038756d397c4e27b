//! `--strict`: a read of a register or predicate that the lane never wrote is a
//! fault. Compiled code never does that, so it catches compiler bugs (a value used
//! on a path where it was not defined) that a zero-filled register file hides.
//!
//! Each wave keeps, per scoreboard slot, the lanes written so far (kernel arguments
//! count as written in every lane). The lanes checked are the lanes that really
//! read the operand: the executing lanes, except for a guard predicate (read by
//! the active lanes), `select` (each side only where chosen) and the cross-lane
//! reads of shuffles and broadcasts (the source lanes).

use super::wave_ops::shuffle_source;
use super::{rd, Exec, Wave};
use crate::isa::*;
use crate::{Fault, FaultKind, Instr};

/// Index into `Wave::written` of scoreboard slot `slot` for a kernel with `regs` registers.
fn index(slot: u16, regs: usize) -> usize {
    if slot >= PRED_SLOT_BASE {
        regs + (slot - PRED_SLOT_BASE) as usize
    } else {
        slot as usize
    }
}

impl Exec<'_> {
    pub(super) fn check_defined(&self, ins: &Instr, wave: &Wave, exec: u64, pc: u32, wi: u32) -> Result<(), Fault> {
        let regs = self.k.registers as usize;
        let w = self.geo.w as usize;
        let mut reads: &[u16] = &ins.reads;
        let need = |slot: u16, lanes: u64| -> Result<(), Fault> {
            let missing = lanes & !wave.written[index(slot, regs)];
            if missing == 0 {
                return Ok(());
            }
            let lane = missing.trailing_zeros() as usize;
            Err(self.fault(FaultKind::UndefinedRead { slot }, Some(pc), wi, Some(lane)))
        };
        if let Some((&guard, rest)) = ins.pred.and(reads.split_last()) {
            need(guard, wave.active)?;
            reads = rest;
        }
        let p = |i: u8| PRED_SLOT_BASE + i as u16;
        match ins.op {
            Op::Select(_, ps, t, f) => {
                let pm = wave.preds[ps as usize & 3];
                need(p(ps), exec)?;
                need(t.idx, exec & pm)?;
                need(f.idx, exec & !pm)?;
            }
            Op::Shuffle(op, _, v, idx) => {
                need(idx.idx, exec)?;
                let mut src_lanes = 0u64;
                let mut m = exec;
                while m != 0 {
                    let l = m.trailing_zeros() as u64;
                    m &= m - 1;
                    let src = shuffle_source(op, l, rd(&wave.regs, w, idx, l as usize) as u64);
                    if src < w as u64 && (exec >> src & 1 == 1 || !self.spec) {
                        src_lanes |= 1 << src;
                    }
                }
                need(v.idx, src_lanes)?;
            }
            Op::Broadcast(_, v, lane) => {
                if exec != 0 {
                    let first = exec.trailing_zeros() as usize;
                    need(lane.idx, 1 << first)?;
                    let src = rd(&wave.regs, w, lane, first) as usize;
                    if src < w {
                        need(v.idx, 1 << src)?;
                    }
                }
            }
            Op::If { p: pp, .. } => need(p(pp.idx), wave.active)?,
            _ => {
                for &s in reads {
                    need(s, exec)?;
                }
            }
        }
        Ok(())
    }
}

/// Record the lanes `ins` wrote.
pub(super) fn mark_written(ins: &Instr, wave: &mut Wave, exec: u64) {
    if exec == 0 {
        return;
    }
    let regs = wave.written.len() - 4;
    for &s in ins.writes.iter() {
        wave.written[index(s, regs)] |= exec;
    }
}
