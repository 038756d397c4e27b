//! The quality table (issue 6): per benchmark kernel and configuration, the
//! allocator's figures (registers, MaxLive, spills, reloads, remats, lane
//! banks), occupancy on `gcn`, static and simulated dynamic instructions and
//! cycles; the occupancy advisor's pick per kernel at -O (`--target-occupancy
//! auto`, the library's `wavec::run::advisor`: column `auto`); then an
//! ablation of every optimization `--disable` can turn off.
//!
//!     cargo run --release -p wavec-benches -- quality           # print the Markdown
//!     cargo run --release -p wavec-benches -- quality --write   # benches/results/quality.{md,json}
//!
//! All figures are simulated and deterministic: the same on any machine.

mod measure;
mod render;

use measure::{Config, Figures, Kernel};
use std::path::Path;
use wavec::driver::CompileOptions;
use wavec::passes;
use wavec::target::Target;

/// The target of the table: 64-lane waves, a 256-register file per lane and
/// 10 waves per SIMD, so occupancy targets 1..=10 have distinct budgets.
pub const TARGET: &str = "gcn";

/// One measurement: a kernel (index into the corpus), a configuration and its figures
/// (`Err`: the error codes of a refused compilation).
pub struct Row {
    pub kernel: usize,
    pub config: Config,
    pub result: Result<Figures, String>,
}

/// Every measurement of the table.
pub struct Table {
    pub target: Target,
    pub kernels: Vec<Kernel>,
    /// Per kernel: -O0, -O, then the target configurations.
    pub main: Vec<Row>,
    /// Per kernel: the fitting target (highest occupancy whose budget holds the
    /// kernel's -O registers) and the spilling targets above it.
    pub targets: Vec<Targets>,
    /// Per disable name, per kernel: -O without it, and the first spilling target without it.
    pub ablation: Vec<(&'static str, Vec<Row>)>,
    /// Per kernel: the smallest budget without per-thread spill memory.
    pub tight: Vec<Option<measure::Tight>>,
    /// Per kernel: Mesa ACO's figures for its HLSL (vega10), from
    /// `benches/results/aco.json` where `benches/aco_reference.py` wrote them.
    pub aco: Vec<Option<Aco>>,
    /// Per kernel: the occupancy advisor's answer at -O (`--target-occupancy auto`).
    pub auto: Vec<Result<wavec::run::advisor::Advice, String>>,
}

/// A production compiler's figures for a kernel: vector registers and
/// instructions (without waits, nops and the end).
#[derive(Clone, Copy, Debug)]
pub struct Aco {
    pub vgprs: u32,
    pub instructions: u32,
}

/// `benches/results/aco.json`: `{"kernel": {"vgprs": N, "instructions": N}, ...}`.
fn load_aco(root: &Path, kernels: &[Kernel]) -> Vec<Option<Aco>> {
    let text = std::fs::read_to_string(root.join("benches/results/aco.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
    kernels
        .iter()
        .map(|k| {
            let e = v.get(&k.name)?;
            Some(Aco { vgprs: e.get("vgprs")?.as_u64()? as u32, instructions: e.get("instructions")?.as_u64()? as u32 })
        })
        .collect()
}

/// The occupancy targets chosen for a kernel.
#[derive(Clone, Debug)]
pub struct Targets {
    /// Highest target reachable without spilling: its register budget holds the
    /// kernel's registers at -O, and whole workgroups and local memory allow it.
    pub fit: u32,
    /// Up to two targets above `fit` whose budgets are below the kernel's
    /// registers (they force spilling).
    pub spill: Vec<u32>,
}

/// The targets for a kernel that uses `registers` at -O on `t`, with
/// `threads` per workgroup and `local` bytes of local memory.
pub fn choose_targets(t: &Target, registers: u32, threads: u32, local: u32) -> Targets {
    let budget = |o: u32| wavec::target::register_budget(t, o);
    let reachable = |o: u32| wavec::target::occupancy(t, budget(o), threads, local).waves_per_core >= o;
    let fit = (1..=t.max_waves_per_core).rev().find(|&o| budget(o) >= registers && reachable(o)).unwrap_or(1);
    let spill = (fit + 1..=t.max_waves_per_core).filter(|&o| budget(o) < registers).take(2).collect();
    Targets { fit, spill }
}

/// Runs `jobs` on every core, returning the results in job order (deterministic
/// whatever the thread count).
fn parallel<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<R>> = (0..jobs.len()).map(|_| None).collect();
    let results = std::sync::Mutex::new(&mut out);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                results.lock().expect("no worker panicked")[i] = Some(r);
            });
        }
    });
    out.into_iter().map(|r| r.expect("every job ran")).collect()
}

/// Measures everything.
pub fn build(root: &Path) -> Table {
    let target = wavec::target::preset(TARGET).expect("the gcn preset");
    let kernels: Vec<Kernel> =
        measure::corpus(root).iter().filter_map(|(p, set)| Kernel::load(p, set).map_err(|e| eprintln!("skipped: {e}")).ok()).collect();
    // -O0 and -O first: the targets depend on the registers at -O.
    let base: Vec<(usize, Config)> = (0..kernels.len()).flat_map(|k| [(k, Config::o0()), (k, Config::o())]).collect();
    let base_rows = parallel(&base, |(k, c)| measure::measure(&kernels[*k], c, &target));
    let targets: Vec<Targets> = (0..kernels.len())
        .map(|k| {
            let f = base_rows[2 * k + 1].as_ref().ok();
            let (regs, threads, local) = f.map_or((target.max_registers, 1, 0), |f| (f.registers, f.threads, f.local_memory));
            choose_targets(&target, regs, threads, local)
        })
        .collect();
    let mut jobs: Vec<(usize, Config)> = Vec::new();
    for (k, t) in targets.iter().enumerate() {
        jobs.push((k, Config::at(t.fit)));
        jobs.extend(t.spill.iter().map(|&o| (k, Config::at(o))));
    }
    // The table is the spec profile's: what acts only on wave-0.1.2 would add a
    // row that changes nothing.
    let names: Vec<&str> = CompileOptions::disableable().into_iter().filter(|n| !passes::WAVE012_ONLY.contains(n)).collect();
    for &name in &names {
        for (k, t) in targets.iter().enumerate() {
            jobs.push((k, Config::o().without(name)));
            if let Some(&o) = t.spill.first() {
                jobs.push((k, Config::at(o).without(name)));
            }
        }
    }
    let results = parallel(&jobs, |(k, c)| measure::measure(&kernels[*k], c, &target));
    let at_o: Vec<(usize, u32)> =
        (0..kernels.len()).map(|k| (k, base_rows[2 * k + 1].as_ref().map_or(target.max_registers, |f| f.registers))).collect();
    let tight = parallel(&at_o, |&(k, regs)| measure::tightest(&kernels[k], &target, regs));
    let aco = load_aco(root, &kernels);
    let every: Vec<usize> = (0..kernels.len()).collect();
    let auto = parallel(&every, |&k| measure::advise(&kernels[k], &target));
    let mut all: Vec<Row> = base
        .into_iter()
        .zip(base_rows)
        .chain(jobs.into_iter().zip(results))
        .map(|((kernel, config), result)| Row { kernel, config, result })
        .collect();
    let ablation_rows = all.split_off(all.iter().position(|r| !r.config.disabled.is_empty()).unwrap_or(all.len()));
    // Main rows per kernel: -O0, -O, targets in increasing order.
    all.sort_by_key(|r| {
        (r.kernel, r.config.target_occupancy.is_some(), r.config.opt == wavec::driver::OptLevel::O, r.config.target_occupancy)
    });
    let mut ablation: Vec<(&'static str, Vec<Row>)> = names.iter().map(|&n| (n, Vec::new())).collect();
    for r in ablation_rows {
        let slot = ablation.iter_mut().find(|(n, _)| r.config.disabled == [*n]).expect("one disabled name per ablation row");
        slot.1.push(r);
    }
    Table { target, kernels, main: all, targets, ablation, tight, aco, auto }
}

/// `quality [--write]`: measures, then prints the Markdown or writes both files.
pub fn report(root: &Path, write: bool) {
    let table = build(root);
    let md = render::markdown(&table);
    if write {
        let dir = root.join("benches/results");
        std::fs::create_dir_all(&dir).expect("benches/results can be created");
        std::fs::write(dir.join("quality.md"), &md).expect("quality.md is writable");
        std::fs::write(dir.join("quality.json"), render::json(&table)).expect("quality.json is writable");
        println!("wrote {} and {}", dir.join("quality.md").display(), dir.join("quality.json").display());
    } else {
        print!("{md}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_on_gcn() {
        let gcn = wavec::target::preset("gcn").expect("gcn");
        // 24 registers are the budget of 10 waves: nothing above to force spilling.
        let t = choose_targets(&gcn, 20, 64, 0);
        assert_eq!((t.fit, t.spill.as_slice()), (10, &[][..]));
        // 47 registers: 5 waves (budget 48); 6 (40) and 7 (36) spill.
        let t = choose_targets(&gcn, 47, 64, 0);
        assert_eq!((t.fit, t.spill.as_slice()), (5, &[6, 7][..]));
        let t = choose_targets(&gcn, 30, 64, 0);
        assert_eq!((t.fit, t.spill.as_slice()), (8, &[9, 10][..]));
        // Groups of 1024 threads (4 waves per SIMD) reach 8 waves, not 9 or 10,
        // whatever the registers: 8 is the fitting target and nothing spills above.
        let t = choose_targets(&gcn, 9, 1024, 0);
        assert_eq!((t.fit, t.spill.as_slice()), (8, &[][..]));
        // 32 KiB of local memory: two groups of 4 waves per CU, 2 per SIMD.
        let t = choose_targets(&gcn, 9, 256, 32 * 1024);
        assert_eq!((t.fit, t.spill.as_slice()), (2, &[][..]));
    }
}
