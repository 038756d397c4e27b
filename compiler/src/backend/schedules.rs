//! Pairing, scheduling and allocation of one selection, and when something
//! spills, the schedules against tighter caps and for the lowest peak.

use super::allocation_rank;
use crate::codegen::{self, mir::MFunction};
use crate::compile_options::CompileOptions;
use crate::diag::Diagnostic;
use crate::options::{Isa, OptLevel};
use crate::{regalloc, sched};

/// Pairing, scheduling (at -O) and register allocation; with `search`, a
/// schedule that spills is also tried against tighter caps and for the
/// lowest peak.
pub(super) fn schedule_and_allocate(
    mut m: MFunction,
    opts: &CompileOptions,
    alloc: &regalloc::AllocOptions,
    o: &sched::SchedOptions,
    search: bool,
) -> Result<(MFunction, regalloc::Allocation), Diagnostic> {
    if opts.opt == OptLevel::O && opts.pred_reuse {
        codegen::pred_reuse::run(&mut m, opts.isa);
    }
    if opts.opt == OptLevel::O && opts.pred_merge {
        codegen::pred_merge::run(&mut m);
    }
    if opts.pair16 && opts.pack16 && opts.isa == Isa::Wave {
        codegen::pair16::run(&mut m);
    }
    // Each word of a wide load becomes a value of its own (it frees its
    // register after its own last read).
    codegen::widen::split(&mut m);
    if opts.opt == OptLevel::O && opts.schedule {
        let original = m.clone();
        let stats = sched::schedule(&mut m, o);
        let a = regalloc::allocate(&mut m, alloc)?;
        if search && (stats.higher_peak_kept > 0 || a.max_live_unspilled > a.budget) {
            // Something spills. A greedy schedule against a looser cap can end
            // with a higher peak than one against a tighter cap, so that a
            // looser budget spilled more than a tighter one: also schedule
            // against tighter caps and for the lowest peaks, allocate each at
            // the budget, and keep the best.
            let fits = a.max_live_unspilled <= a.budget;
            let mut best = (allocation_rank(opts, &m, &a, &o.latencies, 0), m, a);
            let mut variants: Vec<sched::SchedOptions> =
                [1, 2, 4].iter().filter(|&&d| o.limit > d + 1).map(|&d| sched::SchedOptions { limit: o.limit - d, ..o.clone() }).collect();
            variants.push(sched::SchedOptions { over_budget: sched::OverBudget::LowestPeak, ..o.clone() });
            for v in variants {
                let mut trial = original.clone();
                sched::schedule(&mut trial, &v);
                if let Ok(b) = regalloc::allocate(&mut trial, alloc) {
                    // A schedule that fits the budget is not traded for one that spills.
                    if fits && b.max_live_unspilled > b.budget {
                        continue;
                    }
                    let rank = allocation_rank(opts, &trial, &b, &o.latencies, 0);
                    if rank < best.0 {
                        best = (rank, trial, b);
                    }
                }
            }
            return Ok((best.1, best.2));
        }
        return Ok((m, a));
    }
    let a = regalloc::allocate(&mut m, alloc)?;
    Ok((m, a))
}
