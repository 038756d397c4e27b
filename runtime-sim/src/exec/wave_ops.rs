//! Cross-lane operations: shuffles, broadcast, ballot, votes, prefix sum, reductions.

use super::{lanes, rd, wr, Exec, Wave};
use crate::isa::*;

impl Exec<'_> {
    pub(super) fn wave_op(&mut self, op: &Op, wave: &mut Wave, exec: u64) {
        let w = self.geo.w as usize;
        let regs = &mut wave.regs[..];
        match *op {
            Op::Shuffle(op, d, v, idx) => {
                let spec = self.spec;
                let sc = &mut self.scratch;
                for (l, s) in sc.iter_mut().enumerate().take(w) {
                    *s = rd(regs, w, v, l);
                }
                lanes!(exec, l, {
                    let x = rd(regs, w, idx, l) as u64;
                    let src = shuffle_source(op, l as u64, x);
                    // Out of range gives 0. An inactive source lane gives 0 in the spec profile
                    // (implementation-defined there) and its stale register on 0.1.2, as wave-emu.
                    let readable = src < w as u64 && (exec >> src & 1 == 1 || !spec);
                    let val = if readable { sc[src as usize] } else { 0 };
                    wr(regs, w, d, l, val);
                })
            }
            Op::Broadcast(d, v, lane) if exec != 0 => {
                let first = exec.trailing_zeros() as usize;
                let src = rd(regs, w, lane, first) as usize;
                // The source lane's register is read whether or not that lane is active
                // (so lane-banked values can be read back under divergence).
                let val = if src < w { rd(regs, w, v, src) } else { 0 };
                lanes!(exec, l, { wr(regs, w, d, l, val) })
            }
            Op::Ballot(d, ps) => {
                let val = (exec & wave.preds[ps as usize & 3]) as u32;
                lanes!(exec, l, { wr(regs, w, d, l, val) })
            }
            Op::WaveAny(pd, ps) | Op::WaveAll(pd, ps) => {
                let pm = wave.preds[ps as usize & 3];
                let r = if matches!(op, Op::WaveAny(..)) { exec & pm != 0 } else { exec & !pm == 0 };
                let p = &mut wave.preds[pd as usize & 3];
                *p = (*p & !exec) | if r { exec } else { 0 };
            }
            Op::PrefixSum(d, v) => {
                let mut sum = 0u32;
                lanes!(exec, l, {
                    let x = rd(regs, w, v, l);
                    wr(regs, w, d, l, sum);
                    sum = sum.wrapping_add(x);
                })
            }
            Op::Reduce(op, d, v) => {
                let mut acc: u32 = match op {
                    RedOp::Min | RedOp::And => u32::MAX,
                    _ => 0,
                };
                lanes!(exec, l, {
                    let x = rd(regs, w, v, l);
                    acc = match op {
                        RedOp::Add => acc.wrapping_add(x),
                        RedOp::Min => acc.min(x),
                        RedOp::Max => acc.max(x),
                        RedOp::And => acc & x,
                        RedOp::Or => acc | x,
                        RedOp::Xor => acc ^ x,
                    };
                });
                lanes!(exec, l, { wr(regs, w, d, l, acc) })
            }
            _ => {}
        }
    }
}

/// The lane a shuffle reads for lane `l` with operand `x` (may be out of range).
pub(super) fn shuffle_source(op: ShufOp, l: u64, x: u64) -> u64 {
    match op {
        ShufOp::Idx => x,
        ShufOp::Up => l.wrapping_sub(x),
        ShufOp::Down => l + x,
        ShufOp::Xor => l ^ x,
    }
}
