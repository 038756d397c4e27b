//! Top-down list scheduling of one block under a register cap.
//!
//! Each step picks one of the ready instructions (all their predecessors
//! issued). Two policies:
//! * `Pressure`: the one that needs the fewest registers at its point, then
//!   the one that leaves the fewest live; ties keep the original order. Used
//!   to bring a block's peak down to the budget.
//! * `Latency`: among the instructions whose point stays within the cap (V
//!   and predicates) and loads while fewer than `MAX_LOADS_AHEAD` device loads
//!   wait for their first use, the one that can issue without waiting, then the one
//!   with the longest latency path to the block's end (so loads go first and
//!   their uses late), then the original order. If none fits the cap, the one
//!   needing the fewest registers.
//!
//! The caller checks the peak of the result: a greedy pick cannot see ahead.

use super::deps::Deps;
use super::pressure::{Count, Tracker};
use crate::codegen::mir::MInst;

/// Device loads a wave may have issued ahead of their first use. More would
/// hide more latency in a one-wave estimate, but with many waves resident
/// the extra requests mostly spread each wave's accesses over more lines at
/// once: in `thread_group_swizzle` (nine row loads per thread) issuing all of
/// them together dropped the L2 hit rate from 66% to 23% and took 2.8x the
/// cycles on gcn. Two kept that kernel's time and most of the gain elsewhere
/// (quality table: -O against -O0 cycles -27% summed with two, +3% with no
/// limit; 26 of 28 kernels faster).
const MAX_LOADS_AHEAD: usize = 2;

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
    use crate::codegen::mir::{Opcode, VReg};
    let n = insts.len();
    let mut t = start.clone();
    let mut waiting: Vec<usize> = deps.preds.iter().map(|p| p.len()).collect();
    let mut ready_at = vec![0u32; n];
    // A wide load's `Split`s issue with it, right after it (they name its
    // registers word by word).
    let mut splits: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut glued = vec![false; n];
    for (i, inst) in insts.iter().enumerate() {
        if let (Opcode::Split, Some(tuple)) = (inst.op, inst.split_of) {
            if let Some(l) = insts.iter().position(|x| x.dst == Some(tuple)) {
                splits[l].push(i);
                glued[i] = true;
            }
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0 && !glued[i]).collect();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    let is_load = |i: usize| matches!(insts[i].op, Opcode::DeviceLoadU32 | Opcode::DeviceLoadU16) || insts[i].op.is_wide_load();
    // The values of each load issued and not yet read (a wide load's words).
    let mut in_flight: Vec<Vec<VReg>> = Vec::new();
    while !ready.is_empty() {
        let mut best: Option<(usize, Rank)> = None;
        for (k, &c) in ready.iter().enumerate() {
            let (point, after) = t.probe(&insts[c]);
            let key: Rank = match policy {
                Policy::Pressure => (point.v > cap.v || point.p > cap.p, false, point.v, after.v, c),
                Policy::Latency => {
                    let over = point.v > cap.v || point.p > cap.p;
                    let stalls = ready_at[c] > cycle;
                    let capped = is_load(c) && in_flight.len() >= MAX_LOADS_AHEAD;
                    (over || capped, stalls, if over { point.v } else { u32::MAX - heights[c] }, 0, c)
                }
            };
            if best.as_ref().is_none_or(|(_, b)| key < *b) {
                best = Some((k, key));
            }
        }
        let Some((k, _)) = best else { break };
        let c = ready.swap_remove(k);
        t.issue(&insts[c]);
        in_flight.retain(|words| !insts[c].uses().any(|u| words.contains(&u)));
        if is_load(c) {
            let words: Vec<VReg> = if splits[c].is_empty() {
                insts[c].dst.into_iter().collect()
            } else {
                splits[c].iter().filter_map(|&s| insts[s].dst).collect()
            };
            in_flight.push(words);
        }
        cycle = cycle.max(ready_at[c]) + 1;
        order.push(c);
        for &s in &splits[c] {
            t.issue(&insts[s]);
            order.push(s);
        }
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
/// waiting for operands, until every result is ready (the measure a schedule
/// must improve to be kept). Counting results that only later blocks read
/// keeps a load issued late from looking free: its latency shows after the
/// block, where its value is used.
pub fn estimated_cycles(deps: &Deps, order: &[usize]) -> u32 {
    let mut issued = vec![0u32; order.len()];
    let (mut cycle, mut done) = (0u32, 0u32);
    for &i in order {
        if deps.free[i] {
            issued[i] = cycle;
            continue;
        }
        let ready = deps.preds[i].iter().map(|&(j, lat)| issued[j] + lat).max().unwrap_or(0);
        let at = cycle.max(ready);
        issued[i] = at;
        cycle = at + 1;
        done = done.max(at + deps.result[i]);
    }
    cycle.max(done)
}
