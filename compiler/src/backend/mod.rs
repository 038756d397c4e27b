//! The back end: selected machine code to a scheduled, allocated kernel,
//! searching the choices whose effect on registers no estimate predicts.
//!
//! Each choice is compiled to an allocation and ranked (`rank`: the budget
//! reached, the occupancy, whether anything spills, a loop-weighted one-wave
//! estimate with the spill code):
//!
//! - word loads or wide ones (`codegen::widen`, in `loads`): a tuple lives
//!   until its last word is read, which can cost registers the single words
//!   would have freed;
//! - the scheduler's orders (in `schedules`): when something spills, a
//!   greedy schedule against a looser cap can end with a higher peak than one
//!   against a tighter cap, so the orders against tighter caps and for the
//!   lowest peak are allocated too;
//! - at a register budget that spills to memory, the allocations at up to
//!   `TIGHTER_BUDGETS` registers less (in [`run`]), which are valid too:
//!   greedy scheduling and spilling are not monotone, and a looser budget
//!   should not end up with more spill traffic than a tighter one.
//!
//! The driver calls [`run`] once per selection it wants compiled (the IR at
//! the least budget, the `addr16` selection).

mod loads;
mod rank;
mod schedules;

pub(crate) use rank::allocation_rank;

use crate::codegen::{self, mir::MFunction};
use crate::compile_options::CompileOptions;
use crate::diag::Diagnostic;
use crate::liveness::pressure;
use crate::options::OptLevel;
use crate::{regalloc, sched, target};

/// Selected machine code to an allocation: wide loads, pairing, scheduling
/// (at -O), register allocation against the options' budget; the best of
/// the choices above by `allocation_rank`.
pub fn run(
    mut m: MFunction,
    opts: &CompileOptions,
    alloc: &regalloc::AllocOptions,
    numthreads: [u32; 3],
    aligned_args: &[u32],
) -> Result<(MFunction, regalloc::Allocation), Diagnostic> {
    m.workgroup_size = numthreads;
    if opts.opt == OptLevel::O && opts.share_constants {
        let room = sched_options(opts, &m).limit;
        codegen::share_constants::run(&mut m, room);
    }
    let o = sched_options(opts, &m);
    let mut best = loads::at_budget(&m, opts, alloc, &o, aligned_args, true)?;
    if let (OptLevel::O, Some(b)) = (opts.opt, alloc.budget) {
        // Only spill memory traffic can be worse than at a tighter budget's
        // (what remains in registers, banks and recomputation is cheaper): a
        // budget whose spills stay out of memory needs no search.
        if best.1.max_live_unspilled > best.1.budget && best.1.budget == b && best.1.spill.weighted_memory > 0 {
            let latencies = &opts.target.latency;
            // Among budgets, spill traffic decides before the estimate: a
            // looser budget never keeps more spill accesses than a tighter one
            // it tried.
            let key = |r: &(MFunction, regalloc::Allocation)| {
                let (budget, waves, spills, cycles) = allocation_rank(opts, &r.0, &r.1, latencies, b);
                (budget, waves, spills, r.1.spill.weighted_memory, cycles)
            };
            let mut best_rank = key(&best);
            for tighter in (1..=TIGHTER_BUDGETS).filter_map(|d| b.checked_sub(d)).filter(|&t| t >= 2) {
                let a2 = regalloc::AllocOptions { budget: Some(tighter), ..alloc.clone() };
                // One schedule each: the budget itself is the variation here (and
                // a budget sweep stays a few allocations per budget).
                let o2 = sched::SchedOptions { limit: o.limit.min(tighter), ..o.clone() };
                let Ok(mut r) = loads::at_budget(&m, opts, &a2, &o2, aligned_args, false) else { continue };
                let rank = key(&r);
                if r.1.budget <= b && rank < best_rank {
                    // It meets the budget asked for.
                    r.1.budget = b;
                    r.1.budget_met = true;
                    best_rank = rank;
                    best = r;
                }
            }
        }
    }
    Ok(best)
}

/// How many registers below a spilling budget the back end also tries.
const TIGHTER_BUDGETS: u32 = 4;

/// The scheduler's register cap: the budget, or without one the most
/// registers that keep the occupancy the selected code already reaches.
fn sched_options(opts: &CompileOptions, m: &MFunction) -> sched::SchedOptions {
    let isa_max = opts.isa.max_registers();
    let limit = match opts.register_budget() {
        Some(b) => b.min(isa_max),
        None => {
            let max_live = pressure::max_live(m).min(isa_max);
            let threads: u32 = m.workgroup_size.iter().product();
            let waves = |r: u32| target::occupancy(&opts.target, r, threads, m.local_memory).waves_per_core;
            let now = waves(max_live);
            (max_live..=isa_max).take_while(|&r| waves(r) == now).last().unwrap_or(max_live)
        }
    };
    sched::SchedOptions { limit, latencies: opts.target.latency.clone(), over_budget: sched::OverBudget::Balanced }
}
