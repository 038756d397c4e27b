//! IR passes and the analyses they share. The driver runs [`pipeline`] in
//! order; tests verify the IR after each pass.
//!
//! Every pass is one file and one entry in [`PASSES`], the registry that both
//! the pipeline and the IR filetests (`; pass: gvn, dead-code`) read. A pass
//! takes the function and a [`PassContext`] (the register budget that
//! pressure-aware passes respect, the ISA) and says whether it changed
//! anything.
//!
//! Passes iterate in region order (`ir::structure`), never in entity order, so
//! that a function and its printed-and-parsed copy are optimized alike.

pub mod algebra;
pub mod converge;
pub mod copy_prop;
pub mod dce;
pub mod dom;
mod edit;
pub mod fold;
pub mod fold_branches;
pub mod ftz;
pub mod gvn;
pub mod if_convert;
pub mod licm;
pub mod loops;
pub mod memory;
pub mod pad_warps;
pub mod pressure;
pub mod readonly;
pub mod reassociate;
pub mod sink;
pub mod split64;
pub mod strength;
pub mod uniformity;
pub mod unroll;

use crate::ir::{verify, Function, VerifyError};
use crate::options::{Isa, OptLevel};
use crate::target::Target;

/// How many V registers per lane the kernel may use before a pass that trades
/// registers for instructions (LICM) must stop.
#[derive(Clone, Debug, PartialEq)]
pub enum Budget {
    /// No limit but the ISA's.
    Unlimited,
    /// At most this many registers (from `--target-occupancy`, or a filetest's `; budget: N`).
    Registers(u32),
    /// Keep the occupancy the kernel has before the pass: the budget is the
    /// most registers that still give the same waves per core on `target`.
    KeepOccupancy { target: Box<Target>, workgroup_threads: u32, local_memory: u32 },
}

/// What passes may know about the compilation beyond the function.
#[derive(Clone, Debug)]
pub struct PassContext {
    pub budget: Budget,
    pub isa: Isa,
    /// Passes `run` skips (by name): ablations measure what each pass buys.
    pub disabled: Vec<String>,
    /// The kernel's `[numthreads]`, where known (`pad-warps` needs it).
    pub workgroup: Option<[u32; 3]>,
}

impl Default for PassContext {
    fn default() -> PassContext {
        PassContext { budget: Budget::Unlimited, isa: Isa::Wave, disabled: Vec::new(), workgroup: None }
    }
}

impl PassContext {
    /// The register budget for a function whose estimated pressure is `pressure`:
    /// never above the ISA's limit (less a few registers the back end needs for
    /// its expansions), for `KeepOccupancy` no more than keeps the occupancy
    /// that `pressure` gives, and with a margin for what the estimate misses.
    pub fn register_budget(&self, pressure: u32) -> u32 {
        // Selection expands some operations with temporaries (unsigned divide,
        // lane loops); the IR estimate does not see them.
        let isa_cap = self.isa.max_registers().saturating_sub(EXPANSION_RESERVE);
        // The estimate misses what selection adds (booleans kept in registers,
        // temporaries): stay 1 + an eighth below a limit.
        let below = |limit: u32| limit.saturating_sub(1 + limit / 8).max(1);
        let budget = match &self.budget {
            Budget::Unlimited => u32::MAX,
            Budget::Registers(n) => below(*n),
            Budget::KeepOccupancy { target, workgroup_threads, local_memory } => {
                let occ = |r: u32| crate::target::occupancy(target, r.max(1), *workgroup_threads, *local_memory).waves_per_core;
                let now = occ(pressure);
                let mut r = pressure.max(1);
                while r < target.max_registers && occ(r + 1) == now {
                    r += 1;
                }
                // Never below what the function already needs: that costs nothing.
                below(r).max(pressure)
            }
        };
        budget.min(isa_cap)
    }
}

impl PassContext {
    /// Whether raising the estimated pressure from `before` to `after` is
    /// acceptable: it does not lower the occupancy (`KeepOccupancy`), stays
    /// within the budget (`Registers`, with its margin) or does not grow, and
    /// stays within the ISA's registers. For passes that trade registers for
    /// instructions as a whole (gvn), where a one-register step inside an
    /// occupancy level is free.
    pub fn allows(&self, before: u32, after: u32) -> bool {
        if after <= before {
            return true;
        }
        let isa_cap = self.isa.max_registers().saturating_sub(EXPANSION_RESERVE);
        let within = match &self.budget {
            Budget::Unlimited => true,
            Budget::Registers(_) => after <= self.register_budget(before),
            Budget::KeepOccupancy { target, workgroup_threads, local_memory } => {
                let occ = |r: u32| crate::target::occupancy(target, r.max(1), *workgroup_threads, *local_memory).waves_per_core;
                occ(after) >= occ(before)
            }
        };
        within && after <= isa_cap
    }
}

impl PassContext {
    /// Whether an estimated pressure of `after` is well within a register
    /// budget (`--max-registers`, `--target-occupancy`), whatever it was
    /// before: a quarter and two registers below the budget's own margin, for
    /// what the estimate misses.
    pub fn within_budget(&self, after: u32) -> bool {
        match &self.budget {
            Budget::Registers(_) => after + after / 4 + 2 <= self.register_budget(after),
            Budget::Unlimited | Budget::KeepOccupancy { .. } => true,
        }
    }
}

/// Registers kept free for selection's temporaries when a budget is derived from the ISA.
const EXPANSION_RESERVE: u32 = 6;

/// A named pass: returns whether it changed the function.
#[derive(Clone, Copy)]
pub struct PassInfo {
    pub name: &'static str,
    pub run: fn(&mut Function, &PassContext) -> bool,
    /// One line for listings of the passes.
    pub about: &'static str,
}

/// Every pass, by name. The pipelines below and the filetests use these names.
pub const PASSES: &[PassInfo] = &[
    PassInfo { name: "split64", run: split64_pass, about: "64-bit integer values become pairs of 32-bit halves (selection needs it)" },
    PassInfo { name: "copy-prop", run: copy_prop::run, about: "replace block parameters that only ever receive one value" },
    PassInfo { name: "fold-constants", run: fold::run, about: "evaluate operations on constants; forward simple identities" },
    PassInfo { name: "simplify", run: algebra::run, about: "algebraic identities and canonical operand order" },
    PassInfo {
        name: "fold-branches",
        run: fold_branches::run,
        about: "constant branches and loop exits, empty ifs, straight-line block chains",
    },
    PassInfo { name: "dead-code", run: dce::run, about: "unused instructions and block parameters" },
    PassInfo { name: "readonly-loads", run: readonly::run, about: "loads from buffers the kernel never writes become read-only loads" },
    PassInfo { name: "unroll", run: unroll::run, about: "fully unroll loops with small constant trip counts" },
    PassInfo { name: "reassociate", run: reassociate::run, about: "move constant offsets outward so address bases are shared" },
    PassInfo { name: "gvn", run: gvn::run, about: "dominator-based global value numbering" },
    PassInfo { name: "if-convert", run: if_convert::run, about: "small side-effect-free diamonds become selects" },
    PassInfo { name: "strength-reduce", run: strength::run, about: "multiply, divide and remainder by constants" },
    PassInfo { name: "sink", run: sink::run, about: "move values to where they are used; rematerialize constants per block" },
    PassInfo { name: "licm", run: licm::run, about: "hoist loop-invariant values within the register budget" },
    PassInfo {
        name: "pad-warps",
        run: pad_warps::run,
        about:
            "wave-0.1.2: a kernel with wave operations runs in whole warps (its group padded to a multiple of 32, the extra threads idle)",
    },
    PassInfo {
        name: "converge-waves",
        run: converge::run,
        about: "wave-0.1.2: every wave operation runs with every lane (divergent ifs split, loops predicated)",
    },
];

fn split64_pass(f: &mut Function, _: &PassContext) -> bool {
    split64::split64(f)
}

/// Passes the back end needs whatever the level: they cannot be disabled
/// (`converge-waves` changes nothing but on wave-0.1.2, where the published
/// backends need it). `pad-warps` can: without it a kernel whose groups end
/// in a partial warp runs on the simulator and wave-emu as before, and
/// `--emit ptx` warns (W0504).
pub const REQUIRED: &[&str] = &["split64", "converge-waves"];

/// Passes that change nothing but on `--isa wave-0.1.2`.
pub const WAVE012_ONLY: &[&str] = &["pad-warps", "converge-waves"];

/// The -O0 pipeline: 64-bit values split, and SSA construction leaves
/// redundant parameters behind.
const O0_PIPELINE: &[&str] = &["split64", "copy-prop", "pad-warps", "converge-waves"];

/// The -O pipeline. Cleanup passes recur after the passes that expose work
/// for them; every pass is about linear in the size of the function.
const O_PIPELINE: &[&str] = &[
    "split64",
    "copy-prop",
    "fold-constants",
    "simplify",
    "fold-branches",
    "dead-code",
    "readonly-loads",
    "unroll",
    "copy-prop",
    "fold-constants",
    "simplify",
    "fold-branches",
    "reassociate",
    "gvn",
    "if-convert",
    "simplify",
    "fold-branches",
    "strength-reduce",
    "gvn",
    "dead-code",
    "sink",
    "licm",
    "pad-warps",
    "converge-waves",
    "dead-code",
];

/// The pass called `name`.
pub fn by_name(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// The passes run at `opt`, in order.
pub fn pipeline(opt: OptLevel) -> Vec<&'static PassInfo> {
    let names = match opt {
        OptLevel::O0 => O0_PIPELINE,
        OptLevel::O => O_PIPELINE,
    };
    names.iter().map(|n| by_name(n).unwrap_or_else(|| panic!("pipeline names unknown pass {n}"))).collect()
}

/// Runs `pipeline(opt)` but the passes `cx.disabled` names; with
/// `verify_each`, checks the IR after every pass.
/// `WAVEC_PRINT_AFTER=all` (or a comma-separated list of pass names) prints
/// the IR to stderr after those passes, for working on the passes.
pub fn run(f: &mut Function, opt: OptLevel, cx: &PassContext, verify_each: bool) -> Result<(), (String, Vec<VerifyError>)> {
    let print_after = std::env::var("WAVEC_PRINT_AFTER").unwrap_or_default();
    for p in pipeline(opt) {
        if cx.disabled.iter().any(|d| d == p.name) && !REQUIRED.contains(&p.name) {
            continue;
        }
        let changed = (p.run)(f, cx);
        if print_after == "all" || print_after.split(',').any(|n| n.trim() == p.name) {
            let pressure = crate::ir::structure::region_tree(f)
                .map(|nodes| pressure::estimate(f, &nodes, &loops::Loops::new(f, &nodes)).max)
                .unwrap_or(0);
            eprintln!(
                "; after {} ({}, estimated pressure {pressure})\n{}",
                p.name,
                if changed { "changed" } else { "unchanged" },
                crate::ir::print_function(f, &|_| None)
            );
        }
        if verify_each {
            verify(f).map_err(|e| (p.name.to_string(), e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelines_name_registered_passes_once_each() {
        for opt in [OptLevel::O0, OptLevel::O] {
            assert!(!pipeline(opt).is_empty());
        }
        let mut names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PASSES.len(), "a pass name is registered twice");
        assert!(by_name("no-such-pass").is_none());
        // Every registered pass runs at -O.
        for p in PASSES {
            assert!(O_PIPELINE.contains(&p.name), "{} is registered but never run", p.name);
        }
    }

    #[test]
    fn budgets_keep_occupancy_and_respect_the_isa() {
        let generic = crate::target::preset("generic").expect("generic");
        let cx = PassContext {
            budget: Budget::KeepOccupancy { target: Box::new(generic.clone()), workgroup_threads: 64, local_memory: 0 },
            ..PassContext::default()
        };
        // generic: 512 / r waves per core in whole groups of two: 16 registers give 32
        // waves, 20 and 21 give 24, 22 gives 22; less a margin of 1 + an eighth.
        assert_eq!(cx.register_budget(10), 16 - 3);
        assert_eq!(cx.register_budget(20), 21 - 3 + 2);
        assert_eq!(cx.register_budget(15), 15);
        // 30 to 32 registers give 16 waves, but wave-0.1.2 has 32 registers in all.
        let small = PassContext { isa: Isa::Wave012, ..cx.clone() };
        assert_eq!(small.register_budget(30), 32 - EXPANSION_RESERVE);
        let fixed = PassContext { budget: Budget::Registers(12), ..PassContext::default() };
        assert_eq!(fixed.register_budget(40), 12 - 2);
        assert_eq!(PassContext::default().register_budget(7), 256 - EXPANSION_RESERVE);
        // Growth inside an occupancy level is free; across one it is not.
        assert!(cx.allows(10, 16) && !cx.allows(16, 17) && cx.allows(20, 21) && !cx.allows(21, 22));
        assert!(fixed.allows(8, 10) && !fixed.allows(8, 11) && fixed.allows(12, 12));
    }
}
