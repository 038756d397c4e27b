//! Pre-allocation instruction scheduling (issue order inside each block).
//!
//! Occupancy comes first: a block whose register pressure is over the budget
//! is reordered to lower its peak (fewer spills); only the slack left under
//! the budget is then spent on latency, issuing loads early and grouping them
//! so that independent work hides their latency. A reordering is kept only
//! when its peak stays within the budget (or lowers an over-budget peak) and,
//! for latency, when it issues faster in a one-wave estimate; otherwise the
//! block keeps its order. Predicate pressure never rises above the block's
//! own. Reordering inside a block changes no block's live-in or live-out set,
//! so liveness is computed once.

mod deps;
mod list;
mod pressure;

use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::Liveness;
use crate::target::Latencies;
use list::Policy;
use pressure::{block_peak, Count, Tracker};

/// Blocks longer than this keep their order (list scheduling is quadratic in
/// the ready instructions; such blocks come from full unrolling).
const MAX_BLOCK: usize = 1500;

/// Cycles one register spilled over the budget is assumed to cost a wave: a
/// store and a reload issued, and the reload's local-memory latency not hidden.
fn spill_cycles(l: &Latencies) -> u64 {
    2 + u64::from(l.local)
}

/// What the scheduler may use.
#[derive(Clone, Debug)]
pub struct SchedOptions {
    /// V registers a block may need at any point: the register budget, or
    /// without one the most that keeps the occupancy the code already has.
    pub limit: u32,
    pub latencies: Latencies,
    /// How a block is ordered whose peak no order brings within the limit.
    pub over_budget: OverBudget,
}

/// The order of a block that must spill whatever its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverBudget {
    /// The lowest one-wave estimate plus the spill code the excess implies.
    Balanced,
    /// The lowest peak (the least to spill), whatever its latency.
    LowestPeak,
}

/// What scheduling changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedStats {
    /// Blocks given a new order.
    pub reordered: u32,
    /// Blocks whose over-budget peak came down.
    pub peaks_lowered: u32,
    /// Over-budget blocks (no order within the limit) where the balanced
    /// choice kept an order with a higher peak than the lowest found.
    pub higher_peak_kept: u32,
    /// One-wave issue estimate summed over blocks, before and after.
    pub cycles_before: u64,
    pub cycles_after: u64,
}

/// Reorders the instructions of every block of `m`.
pub fn schedule(m: &mut MFunction, o: &SchedOptions) -> SchedStats {
    let live = Liveness::compute(m);
    let mut stats = SchedStats::default();
    let mut new_orders = Vec::new();
    for &b in &m.order {
        let insts = &m.blocks[b].insts;
        let n = insts.len();
        if !(2..=MAX_BLOCK).contains(&n) {
            continue;
        }
        let deps = deps::Deps::build(insts, &o.latencies);
        let heights = deps.heights(insts, &o.latencies);
        let start = Tracker::new(m, &live, b);
        let original: Vec<usize> = (0..n).collect();
        let original_peak = block_peak(m, &live, b, insts, &original);
        let p_cap = original_peak.p;
        // Pressure is counted in half-register units: the cap is two per register.
        let limit = 2 * o.limit;
        let (mut best, mut best_peak) = (original.clone(), original_peak);
        if original_peak.v > limit {
            // Over the budget: the order that needs the fewest registers, and the
            // latency order kept under the cap where it can be (only if its peak
            // is no higher than the block's own). An order within the budget wins
            // (occupancy first: nothing spills); otherwise whatever stays over
            // will be spilled, so each order is judged by its one-wave estimate
            // plus the spill code its excess implies. Taking the lowest peak
            // whatever its latency once made a convolution 2x slower at a target
            // it still had to spill for (conv_rgba_8tap, gcn, target 5).
            let spill = spill_cycles(&o.latencies);
            let cost = |order: &[usize], peak: Count| {
                u64::from(list::estimated_cycles(&deps, order)) + u64::from(peak.v.saturating_sub(limit).div_ceil(2)) * spill
            };
            // Rank: within the budget first (no spill at all), then the cost
            // (or, asked for, the peak).
            let rank = |order: &[usize], peak: Count| {
                let second = if o.over_budget == OverBudget::LowestPeak { u64::from(peak.v) } else { cost(order, peak) };
                (peak.v > limit, second)
            };
            let mut lowest = original_peak.v;
            let mut best_rank = rank(&original, original_peak);
            for policy in [Policy::Pressure, Policy::Latency] {
                let s = list::schedule(insts, &deps, &heights, &start, Count { v: limit, p: p_cap }, policy);
                let peak = block_peak(m, &live, b, insts, &s);
                let r = rank(&s, peak);
                if peak.p <= p_cap {
                    lowest = lowest.min(peak.v);
                }
                // Never more to spill than the block's own order needs.
                if peak.v <= original_peak.v && peak.p <= p_cap && r < best_rank {
                    (best, best_peak, best_rank) = (s, peak, r);
                }
            }
            if best_peak.v < original_peak.v {
                stats.peaks_lowered += 1;
            }
            if best_peak.v > limit && best_peak.v > lowest {
                stats.higher_peak_kept += 1;
            }
        }
        let before = list::estimated_cycles(&deps, &best);
        let mut after = before;
        if best_peak.v <= limit {
            // The greedy pick may overshoot the cap it is given: try tighter caps.
            for cap in (best_peak.v..=limit).rev().step_by(2).take(4) {
                let s = list::schedule(insts, &deps, &heights, &start, Count { v: cap, p: p_cap }, Policy::Latency);
                let peak = block_peak(m, &live, b, insts, &s);
                if peak.v <= limit && peak.p <= p_cap {
                    let cycles = list::estimated_cycles(&deps, &s);
                    if cycles < before {
                        (best, after) = (s, cycles);
                    }
                    break;
                }
            }
        }
        stats.cycles_before += u64::from(list::estimated_cycles(&deps, &original));
        stats.cycles_after += u64::from(after);
        // A schedule must be a permutation of the block (the dependences are
        // acyclic, so it always is); anything else keeps the block's order.
        let mut seen = vec![false; n];
        let permutation = best.len() == n && best.iter().all(|&i| i < n && !std::mem::replace(&mut seen[i], true));
        if permutation && best != original {
            new_orders.push((b, best));
        }
    }
    for (b, order) in new_orders {
        let old = std::mem::take(&mut m.blocks[b].insts);
        let mut slots: Vec<Option<MInst>> = old.into_iter().map(Some).collect();
        m.blocks[b].insts = order.iter().filter_map(|&i| slots[i].take()).collect();
        stats.reordered += 1;
    }
    stats
}

/// One wave's issue estimate of the whole function as it stands (spill code
/// included): each block's [`list::estimated_cycles`] in its order, times its
/// weight (`weight`, e.g. ten per loop level).
pub fn estimate(m: &MFunction, latencies: &Latencies, weight: impl Fn(Block) -> u64) -> u64 {
    m.order
        .iter()
        .map(|&b| {
            let insts = &m.blocks[b].insts;
            let deps = deps::Deps::build(insts, latencies);
            let order: Vec<usize> = (0..insts.len()).collect();
            weight(b) * u64::from(list::estimated_cycles(&deps, &order))
        })
        .sum()
}

#[cfg(test)]
mod tests;
