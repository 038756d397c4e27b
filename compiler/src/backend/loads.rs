//! Word loads or wide ones (`codegen::widen`): whichever allocates better.

use super::{allocation_rank, schedules};
use crate::codegen::{self, mir::MFunction};
use crate::compile_options::CompileOptions;
use crate::diag::Diagnostic;
use crate::options::OptLevel;
use crate::{regalloc, sched};

/// [`super::run`] at one budget: word loads or wide ones, whichever ranks better.
pub(super) fn at_budget(
    m: &MFunction,
    opts: &CompileOptions,
    alloc: &regalloc::AllocOptions,
    o: &sched::SchedOptions,
    aligned_args: &[u32],
    search: bool,
) -> Result<(MFunction, regalloc::Allocation), Diagnostic> {
    if opts.opt == OptLevel::O && opts.widen {
        // A tuple lives until its last word is read, which can cost registers
        // the single words would have freed: allocate both and keep the better.
        // Both schedule against the cap of the word loads' code.
        let mut wide = m.clone();
        if codegen::widen::run(&mut wide, aligned_args) > 0 {
            let plain = schedules::schedule_and_allocate(m.clone(), opts, alloc, o, search)?;
            if let Ok(w) = schedules::schedule_and_allocate(wide, opts, alloc, o, search) {
                let latencies = &opts.target.latency;
                // Tuples make colouring greedy (a tuple needs a free run of
                // registers): registers above MaxLive only where the word loads
                // need more still, or as many where both spill to the budget.
                let spilling = w.1.max_live_unspilled > w.1.budget;
                let minimal = w.1.num_v <= w.1.max_live_v || w.1.num_v < plain.1.num_v || (spilling && w.1.num_v <= plain.1.num_v);
                // Nor spill code where the word loads fit the budget.
                let fits = plain.1.max_live_unspilled <= plain.1.budget || w.1.max_live_unspilled > w.1.budget;
                // Nor more instructions (allocation may have loaded a tuple's
                // words one by one again).
                let shorter = w.0.code_size() <= plain.0.code_size();
                if minimal
                    && fits
                    && shorter
                    && allocation_rank(opts, &w.0, &w.1, latencies, 0) <= allocation_rank(opts, &plain.0, &plain.1, latencies, 0)
                {
                    return Ok(w);
                }
            }
            return Ok(plain);
        }
    }
    schedules::schedule_and_allocate(m.clone(), opts, alloc, o, search)
}
