//! How good an allocated kernel is: what every choice of the back end is
//! ranked by.

use crate::codegen::mir::MFunction;
use crate::compile_options::CompileOptions;
use crate::{regalloc, sched, target};
use std::cmp::Reverse;

/// How good an allocated kernel is, smaller better: the budget reached (any
/// budget up to `asked` counts as `asked`), then the occupancy (registers and
/// local memory, spill area included; no more than a target occupancy's),
/// then whether anything left the registers, then one wave's issue estimate with
/// the spill code (ten times per loop level), each spill access to memory
/// counting [`SPILL_ACCESS_CYCLES`] more.
pub(crate) fn allocation_rank(
    opts: &CompileOptions,
    m: &MFunction,
    a: &regalloc::Allocation,
    latencies: &target::Latencies,
    asked: u32,
) -> (u32, Reverse<u32>, bool, u64) {
    let threads: u32 = m.workgroup_size.iter().product();
    let waves = target::occupancy(&opts.target, a.num_v.max(1), threads.max(1), m.local_memory).waves_per_core;
    // Waves beyond a target occupancy were not asked for: they do not buy
    // spill code (a target within MaxLive is met without spills). Without a
    // target (`--max-registers`), more waves are worth what they hide.
    let budget = a.budget.max(asked);
    let waves = match opts.target_occupancy {
        Some(o) => {
            let at_target = opts.occupancy_budget(o).0.max(1);
            waves.min(target::occupancy(&opts.target, at_target, threads.max(1), 0).waves_per_core)
        }
        None => waves,
    };
    let cycles = match regalloc::Regions::compute(m) {
        Ok(r) => sched::estimate(m, latencies, |b| r.weight(b)),
        Err(_) => sched::estimate(m, latencies, |_| 1),
    };
    let spills = a.max_live_unspilled > a.budget;
    (budget, Reverse(waves), spills, cycles + SPILL_ACCESS_CYCLES * a.spill.weighted_memory)
}

/// What a spill store or reload costs beyond its latency, which the one-wave
/// estimate sees: the local memory (or L2) bandwidth every resident wave
/// shares. Measured against both ways a budget can go wrong: `transform4x4`
/// at `--max-registers 14`, where the latency-friendly order kept 34 more
/// values in workgroup words (72 accesses against 4) for a 27% lower
/// estimate, and `conv_rgba_8tap` at gcn target 5, where the lowest-peak
/// order saves 9 accesses for a 2.8 times higher estimate (36092 simulated
/// cycles against 17855 once): any value from about 28 to 5800 chooses both right.
const SPILL_ACCESS_CYCLES: u64 = 64;
