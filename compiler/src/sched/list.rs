//! Top-down list scheduling of one block under a register cap.
//!
//! Each step picks one of the ready instructions (all their predecessors
//! issued). Two policies:
//! * `Pressure`: the one that needs the fewest registers at its point, then
//!   the one that leaves the fewest live; ties keep the original order. Used
//!   to bring a block's peak down to the budget.
//! * `Latency`: among the instructions whose point stays within the cap (V
//!   and predicates), the one that can issue without waiting, then the one
//!   with the longest latency path to the block's end (so loads go first and
//!   their uses late), then the original order. If none fits the cap, the one
//!   needing the fewest registers.
//!
//! The caller checks the peak of the result: a greedy pick cannot see ahead.

use super::deps::Deps;
use super::pressure::{Count, Tracker};
use crate::codegen::mir::MInst;

/// A candidate's rank: smaller is better in every field, the last being its
/// original position.
type Rank = (bool, bool, u32, u32, usize);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Policy {
    Pressure,
    Latency,
}

/// An order of `insts` (indices) that respects `deps`.
pub fn schedule(insts: &[MInst], deps: &Deps, heights: &[u32], start: &Tracker, cap: Count, policy: Policy) -> Vec<usize> {
    let n = insts.len();
    let mut t = start.clone();
    let mut waiting: Vec<usize> = deps.preds.iter().map(|p| p.len()).collect();
    let mut ready_at = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while !ready.is_empty() {
        let mut best: Option<(usize, Rank)> = None;
        for (k, &c) in ready.iter().enumerate() {
            let (point, after) = t.probe(&insts[c]);
            let key: Rank = match policy {
                Policy::Pressure => (point.v > cap.v || point.p > cap.p, false, point.v, after.v, c),
                Policy::Latency => {
                    let over = point.v > cap.v || point.p > cap.p;
                    let stalls = ready_at[c] > cycle;
                    (over, stalls, if over { point.v } else { u32::MAX - heights[c] }, 0, c)
                }
            };
            if best.as_ref().is_none_or(|(_, b)| key < *b) {
                best = Some((k, key));
            }
        }
        let Some((k, _)) = best else { break };
        let c = ready.swap_remove(k);
        t.issue(&insts[c]);
        cycle = cycle.max(ready_at[c]) + 1;
        order.push(c);
        for &(s, lat) in &deps.succs[c] {
            ready_at[s] = ready_at[s].max(cycle - 1 + lat);
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(s);
            }
        }
    }
    order
}

/// Cycles one wave alone takes to issue `order`, one instruction per cycle,
/// waiting for operands (the measure a schedule must improve to be kept).
pub fn estimated_cycles(deps: &Deps, order: &[usize]) -> u32 {
    let mut issued = vec![0u32; order.len()];
    let mut cycle = 0u32;
    for &i in order {
        let ready = deps.preds[i].iter().map(|&(j, lat)| issued[j] + lat).max().unwrap_or(0);
        let at = cycle.max(ready);
        issued[i] = at;
        cycle = at + 1;
    }
    cycle
}
