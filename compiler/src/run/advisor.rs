//! `--target-occupancy auto`: the occupancy advisor. Compiles a pipeline
//! test's kernel at no target and at every target occupancy with a distinct
//! register budget on the machine model, runs each on the simulator, checks
//! each against the expected buffers, and keeps the fastest by the cycle
//! model (README, "Choosing a target occupancy").
//!
//! Steps, all deterministic whatever the number of cores:
//! 1. [`candidates`]: the default compile's workgroup gives each target's
//!    budget ([`target::register_budget_for`]); targets whose budget equals a
//!    lower target's are left out (they compile to the same budget).
//! 2. Every candidate is compiled, in parallel. One whose instructions are
//!    those of an earlier one is not run at all ([`Verdict::SameAs`]: the
//!    simulator is deterministic, so it would give that one's results and
//!    figures). The others are run without the cycle model, in parallel:
//!    that checks their results and counts their wave-instructions, whose
//!    issue cycles spread over every core are a lower bound on their cycles
//!    ([`issue_bound`]).
//! 3. The passing candidates run with the cycle model in order of their
//!    bounds, [`BATCH`] at a time (in parallel); before each batch, a
//!    candidate whose bound exceeds the best cycles so far is skipped
//!    ([`Verdict::Skipped`]). The default always runs: it is what the
//!    speed-ups are against.
//! 4. The winner is the fewest cycles; ties go to fewer registers, then to
//!    the default, then to the lower target.

use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{execute_in, prepare, PipelineTest, RunOptions, RunOutcome, EXIT_ERROR};
use crate::diag;
use crate::driver::{self, CompileOptions, Compiled};
use crate::target::{self, Target};

/// Candidates timed together between two early-stop decisions: fixed, so
/// that which candidates are skipped does not depend on the machine.
pub const BATCH: usize = 4;

/// One compilation the advisor tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// `--target-occupancy N` (None: the default, no target).
    pub target: Option<u32>,
    /// The register budget the target gives (None for the default).
    pub budget: Option<u32>,
}

/// What became of a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Ran with the cycle model, and every result matched.
    Timed,
    /// Did not compile, faulted or mismatched (never chosen): the exit code and
    /// the first line of what the run said.
    Failed { exit_code: i32, reason: String },
    /// Not timed: its issue bound exceeds the best cycles of the candidates before it.
    Skipped { best: u64 },
    /// Its instructions are those of the candidate at this row: not run again.
    SameAs(usize),
}

/// One row of the advisor's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub candidate: Candidate,
    pub registers: u32,
    pub max_live: u32,
    /// Spill loads and stores, weighted by 10 per enclosing loop.
    pub spill_weighted: u64,
    pub lane_banks: u32,
    pub waves_per_core: u32,
    pub limiter: String,
    pub static_insts: u64,
    /// Wave-instructions executed (0 when the run failed before counting).
    pub dynamic: u64,
    /// Lower bound on the cycles: issue cycles over every core.
    pub bound: u64,
    pub cycles: Option<u64>,
    pub verdict: Verdict,
    /// The listing (for `--tune-with`).
    pub asm: String,
}

/// The advisor's answer.
#[derive(Clone, Debug)]
pub struct Advice {
    /// The machine model's name.
    pub target: String,
    /// The default first, then the targets from the lowest.
    pub points: Vec<Point>,
    /// Index of the fastest passing point, if any passed.
    pub winner: Option<usize>,
    /// The compile options of the test (the winner's, but for its target).
    pub compile: CompileOptions,
}

impl Advice {
    /// The default's cycles, when it was timed.
    pub fn default_cycles(&self) -> Option<u64> {
        self.points.first().and_then(|p| self.cycles_of(0).filter(|_| p.candidate.target.is_none()))
    }

    /// A point's cycles, through [`Verdict::SameAs`].
    pub fn cycles_of(&self, i: usize) -> Option<u64> {
        match self.points.get(i)?.verdict {
            Verdict::SameAs(j) if j != i => self.cycles_of(j),
            _ => self.points[i].cycles,
        }
    }

    /// "8 (24 registers, 8 waves per core, 1234 cycles, 1.25x the default)": the winner's line.
    pub fn winner_line(&self) -> Option<String> {
        let w = &self.points[self.winner?];
        let cycles = self.cycles_of(self.winner?)?;
        let name = match w.candidate.target {
            Some(t) => format!("--target-occupancy {t}"),
            None => "no target (the default)".to_string(),
        };
        let speedup = self.default_cycles().map(|d| format!(", {} the default", speedup(d, cycles))).unwrap_or_default();
        Some(format!(
            "{name}: {} registers, {} waves per core, {cycles} cycles{speedup}; the fastest of {} candidates on {}",
            w.registers,
            w.waves_per_core,
            self.points.len(),
            self.target
        ))
    }
}

/// `a / b` as `1.25x`.
fn speedup(default: u64, cycles: u64) -> String {
    if cycles == 0 {
        return "-".to_string();
    }
    format!("{:.2}x", default as f64 / cycles as f64)
}

/// The targets to try for a workgroup of `threads` threads and `local`
/// bytes of local memory: the default, then each target from 1 wave per core
/// to the most the workgroup reaches whose budget no lower target has, named
/// by the waves per core that budget reaches (a step of whole workgroups).
pub fn candidates(t: &Target, threads: u32, local: u32) -> Vec<Candidate> {
    let mut out = vec![Candidate { target: None, budget: None }];
    let most = target::occupancy(t, 1, threads, local).waves_per_core;
    let mut last = None;
    for want in 1..=most {
        let (budget, reached) = target::register_budget_for(t, want, threads, local);
        if last == Some(budget) || reached < want {
            continue;
        }
        last = Some(budget);
        // Workgroups are resident whole: the target is named by the waves its budget reaches.
        out.push(Candidate { target: Some(reached), budget: Some(budget) });
    }
    out
}

/// Cycles the run takes at least: every wave-instruction keeps a core busy
/// for its category's issue cycles, and there are `cores` cores.
pub fn issue_bound(by_category: &std::collections::BTreeMap<String, u64>, machine: &wavesim::Machine, cores: u64) -> u64 {
    use wavesim::isa::{Category, CATEGORY_NAMES};
    const ALL: [Category; 9] = [
        Category::Alu,
        Category::Fpu,
        Category::Sfu,
        Category::Memory,
        Category::Atomic,
        Category::Wave,
        Category::Control,
        Category::Sync,
        Category::Move,
    ];
    let busy: u64 =
        ALL.iter().zip(CATEGORY_NAMES).map(|(&c, name)| by_category.get(name).copied().unwrap_or(0) * machine.issue.get(c) as u64).sum();
    busy / cores.max(1)
}

/// The instructions of a listing, without its comments: two candidates with
/// the same are the same code.
fn code_of(asm: &str) -> String {
    let mut s = String::new();
    for l in asm.lines() {
        let code = l.split(';').next().unwrap_or("").trim_end();
        if !code.trim().is_empty() {
            s.push_str(code);
            s.push('\n');
        }
    }
    s
}

/// Runs `job(i)` for `0..n` on up to `threads` threads; the results in order.
fn parallel<T: Send>(n: usize, threads: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = job(i);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(r);
                }
            });
        }
    });
    slots.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect()
}

fn cores_here() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// The first line of a run's stderr that says what went wrong.
fn first_error(outcome: &RunOutcome) -> String {
    let lines = || outcome.stderr.lines().map(str::trim);
    lines().find(|l| l.starts_with("error")).or_else(|| lines().find(|l| !l.is_empty())).unwrap_or("failed").to_string()
}

struct Compiledish {
    compiled: Compiled,
    sources: diag::Sources,
}

fn compile(test: &PipelineTest, copts: &CompileOptions) -> Result<Compiledish, Box<RunOutcome>> {
    let c = driver::compile_input(&test.input(), copts, cfg!(debug_assertions));
    match c.result {
        Ok(compiled) => Ok(Compiledish { compiled, sources: c.sources }),
        Err(diags) => Err(Box::new(RunOutcome {
            exit_code: EXIT_ERROR,
            stdout: String::new(),
            stderr: diag::render(&c.sources, &diags),
            stats: None,
        })),
    }
}

fn point_of(candidate: Candidate, c: &Compiled) -> Point {
    Point {
        candidate,
        registers: c.interface.registers,
        max_live: c.max_live,
        spill_weighted: c.spill.weighted_memory,
        lane_banks: c.spill.banks,
        waves_per_core: c.occupancy.waves_per_core,
        limiter: c.occupancy.limiter.to_string(),
        static_insts: static_count(&c.asm),
        dynamic: 0,
        bound: 0,
        cycles: None,
        verdict: Verdict::Timed,
        asm: c.asm.clone(),
    }
}

/// Compiles `test` at every candidate target, runs and checks each, and
/// times the ones that may win. `Err` when the test itself is wrong or the
/// default does not compile (what `wavec run` without `auto` would say).
pub fn advise(test: &PipelineTest, opts: &RunOptions) -> Result<Advice, Box<RunOutcome>> {
    let (pipeline, mut copts, ropts) = prepare(test, opts)?;
    copts.target_occupancy = None;
    let default = compile(test, &copts)?;
    let i = &default.compiled.interface;
    let threads: u32 = i.workgroup_size.iter().product();
    let local = i.local_memory.saturating_sub(default.compiled.spill.spill_bytes);
    let cands = candidates(&copts.target, threads, local);
    let cores = cores_here();

    // Step 2: compile in parallel; a candidate whose instructions are those of
    // an earlier one is that one again (deterministic: not run again); the
    // others are run without the cycle model, in parallel, to check their
    // results and count their instructions.
    let compiled: Vec<Result<Compiledish, Box<RunOutcome>>> = parallel(cands.len(), cores, |k| {
        let cand = cands[k];
        if cand.target.is_none() {
            Ok(Compiledish { compiled: default.compiled.clone(), sources: default.sources.clone() })
        } else {
            compile(test, &CompileOptions { target_occupancy: cand.target, ..copts.clone() })
        }
    });
    let mut points: Vec<Point> = Vec::with_capacity(cands.len());
    let mut built: Vec<Option<Compiledish>> = Vec::with_capacity(cands.len());
    let mut codes: Vec<Option<String>> = Vec::with_capacity(cands.len());
    for (k, c) in compiled.into_iter().enumerate() {
        match c {
            Err(outcome) => {
                let mut p = point_of(cands[k], &default.compiled);
                p.verdict = Verdict::Failed { exit_code: outcome.exit_code, reason: first_error(&outcome) };
                points.push(p);
                built.push(None);
                codes.push(None);
            }
            Ok(c) => {
                let mut p = point_of(cands[k], &c.compiled);
                let code = code_of(&c.compiled.asm);
                match (0..k).find(|&j| codes[j].as_ref() == Some(&code)) {
                    Some(j) => {
                        p.verdict = Verdict::SameAs(j);
                        built.push(None);
                    }
                    None => built.push(Some(c)),
                }
                points.push(p);
                codes.push(Some(code));
            }
        }
    }
    let functional = RunOptions { timing: false, print_stats: false, gpu_plan: None, ..ropts.clone() };
    let machine = machine_of(&ropts);
    let checked: Vec<Option<RunOutcome>> =
        parallel(cands.len(), cores, |k| built[k].as_ref().map(|c| execute_in(&pipeline, &c.compiled, &c.sources, &functional)));
    for (k, outcome) in checked.into_iter().enumerate() {
        let Some(outcome) = outcome else { continue };
        if let Some(st) = &outcome.stats {
            points[k].dynamic = st.sim.wave_instructions;
            points[k].bound = issue_bound(&st.sim.by_category, &machine, machine.compute_units as u64 * machine.cores_per_cu as u64);
        }
        if outcome.exit_code != 0 {
            points[k].verdict = Verdict::Failed { exit_code: outcome.exit_code, reason: first_error(&outcome) };
            built[k] = None;
        }
    }
    // A candidate with the same code as another executes the same instructions.
    for k in 0..points.len() {
        if let Verdict::SameAs(j) = points[k].verdict {
            points[k].dynamic = points[j].dynamic;
            points[k].bound = points[j].bound;
        }
    }

    // Step 3: time in order of the bound, the default first.
    let mut order: Vec<usize> = (0..points.len()).filter(|&k| points[k].verdict == Verdict::Timed).collect();
    order.sort_by_key(|&k| (points[k].candidate.target.is_some(), points[k].bound, k));
    let mut best: Option<u64> = None;
    for batch in order.chunks(BATCH) {
        let mut run = Vec::new();
        for &k in batch {
            match best {
                Some(b) if points[k].bound > b && points[k].candidate.target.is_some() => points[k].verdict = Verdict::Skipped { best: b },
                _ => run.push(k),
            }
        }
        let timed = parallel(run.len(), cores, |r| {
            let k = run[r];
            let c = built[k].as_ref().map(|c| (&c.compiled, &c.sources));
            c.map(|(compiled, sources)| execute_in(&pipeline, compiled, sources, &ropts))
        });
        for (&k, outcome) in run.iter().zip(timed) {
            let Some(outcome) = outcome else { continue };
            match outcome.stats.as_ref().filter(|_| outcome.exit_code == 0) {
                Some(st) => {
                    points[k].cycles = Some(st.sim.cycles);
                    best = Some(best.map_or(st.sim.cycles, |b| b.min(st.sim.cycles)));
                }
                None => points[k].verdict = Verdict::Failed { exit_code: outcome.exit_code, reason: first_error(&outcome) },
            }
        }
    }

    let winner = choose(&points);
    let compile_opts = copts;
    Ok(Advice { target: compile_opts.target.name.to_string(), points, winner, compile: compile_opts })
}

/// The simulated machine of a run (its compute units as `--compute-units` sets them).
fn machine_of(ropts: &RunOptions) -> wavesim::Machine {
    ropts.compile.target.machine(ropts.compute_units)
}

/// The fastest timed point: fewest cycles, then fewer registers, then the
/// default, then the lower target. A failed or skipped point is never chosen.
pub fn choose(points: &[Point]) -> Option<usize> {
    (0..points.len())
        .filter(|&k| points[k].verdict == Verdict::Timed && points[k].cycles.is_some())
        .min_by_key(|&k| (points[k].cycles, points[k].registers, points[k].candidate.target.is_some(), points[k].candidate.target))
}

/// Instruction lines of a listing (indented, not comments), as the quality bench counts them.
pub fn static_count(asm: &str) -> u64 {
    asm.lines().filter(|l| l.starts_with("    ") && !l.trim_start().starts_with(';')).count() as u64
}

/// The advisor's table, one row per candidate, the winner marked with `*`.
pub fn render(a: &Advice) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "occupancy advisor on {}: {} candidates (the default, then each target with its own register budget)",
        a.target,
        a.points.len()
    );
    let _ = writeln!(
        s,
        "  {:>7} {:>6} {:>4} {:>7} {:>8} {:>5} {:>5} {:<12} {:>6} {:>9} {:>9} {:>8}  note",
        "target", "budget", "regs", "MaxLive", "spill(w)", "banks", "waves", "limit", "static", "dynamic", "cycles", "speed-up"
    );
    let default = a.default_cycles();
    for (k, p) in a.points.iter().enumerate() {
        let mark = if a.winner == Some(k) { "*" } else { " " };
        let target = p.candidate.target.map_or("none".to_string(), |t| t.to_string());
        let budget = p.candidate.budget.map_or("-".to_string(), |b| b.to_string());
        let cycles = a.cycles_of(k);
        let (cyc, sp) = match (cycles, default) {
            (Some(c), Some(d)) => (c.to_string(), speedup(d, c)),
            (Some(c), None) => (c.to_string(), "-".to_string()),
            _ => ("-".to_string(), "-".to_string()),
        };
        let note = match &p.verdict {
            Verdict::Timed if a.winner == Some(k) => "fastest".to_string(),
            Verdict::Timed => String::new(),
            Verdict::Failed { exit_code, reason } => format!("failed (exit {exit_code}): {reason}"),
            Verdict::Skipped { best } => format!("skipped: issue bound {} cycles > best {best}", p.bound),
            Verdict::SameAs(j) => {
                let of = a.points[*j].candidate.target.map_or("none".to_string(), |t| t.to_string());
                match a.points[*j].verdict {
                    Verdict::Failed { .. } => format!("same code as target {of}, which failed"),
                    _ => format!("same code as target {of}"),
                }
            }
        };
        let dynamic = if p.dynamic == 0 { "-".to_string() } else { p.dynamic.to_string() };
        let _ = writeln!(
            s,
            "{mark} {target:>7} {budget:>6} {:>4} {:>7} {:>8} {:>5} {:>5} {:<12} {:>6} {dynamic:>9} {cyc:>9} {sp:>8}  {note}",
            p.registers, p.max_live, p.spill_weighted, p.lane_banks, p.waves_per_core, p.limiter, p.static_insts
        );
    }
    match a.winner_line() {
        Some(line) => {
            let _ = writeln!(s, "winner: {line}");
        }
        None => {
            let _ = writeln!(s, "winner: none (no candidate ran to completion with every result matching)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_have_distinct_budgets_and_the_default_first() {
        let t = target::preset("gcn").expect("gcn");
        let c = candidates(&t, 64, 0);
        assert_eq!(c[0], Candidate { target: None, budget: None });
        let budgets: Vec<u32> = c.iter().filter_map(|c| c.budget).collect();
        assert!(budgets.windows(2).all(|w| w[0] > w[1]), "{budgets:?}");
        // 1024-thread groups (16 waves on 4 SIMDs) come in steps of 4 waves per SIMD.
        let big = candidates(&t, 1024, 4096);
        assert!(big.iter().filter_map(|c| c.target).all(|w| w % 4 == 0), "{big:?}");
    }

    #[test]
    fn the_issue_bound_spreads_issue_cycles_over_the_cores() {
        let t = target::preset("gcn").expect("gcn");
        let m = t.machine(None);
        let mut by = std::collections::BTreeMap::new();
        by.insert("alu".to_string(), 1000u64);
        let want = 1000 * m.issue.alu as u64 / 8;
        assert_eq!(issue_bound(&by, &m, 8), want);
    }

    fn point(target: Option<u32>, registers: u32, cycles: Option<u64>, verdict: Verdict) -> Point {
        Point {
            candidate: Candidate { target, budget: target.map(|_| registers) },
            registers,
            max_live: registers,
            spill_weighted: 0,
            lane_banks: 0,
            waves_per_core: 1,
            limiter: "registers".to_string(),
            static_insts: 1,
            dynamic: 1,
            bound: 0,
            cycles,
            verdict,
            asm: String::new(),
        }
    }

    #[test]
    fn a_failed_or_skipped_target_is_never_chosen() {
        let failed = Verdict::Failed { exit_code: 1, reason: "mismatch".to_string() };
        let points = vec![
            point(None, 40, Some(100), Verdict::Timed),
            point(Some(4), 32, Some(50), failed),
            point(Some(6), 24, None, Verdict::Skipped { best: 100 }),
            point(Some(8), 16, Some(90), Verdict::Timed),
        ];
        assert_eq!(choose(&points), Some(3));
        // Ties: fewer registers, then the default.
        let tie = vec![point(None, 40, Some(90), Verdict::Timed), point(Some(8), 16, Some(90), Verdict::Timed)];
        assert_eq!(choose(&tie), Some(1));
        let same = vec![point(None, 16, Some(90), Verdict::Timed), point(Some(8), 16, Some(90), Verdict::Timed)];
        assert_eq!(choose(&same), Some(0));
        assert_eq!(choose(&points[1..3]), None);
    }

    #[test]
    fn a_row_with_the_code_of_a_failed_candidate_says_so() {
        let failed = Verdict::Failed { exit_code: 3, reason: "error: runtime fault".to_string() };
        let points = vec![
            point(None, 40, Some(100), Verdict::Timed),
            point(Some(4), 32, None, failed),
            point(Some(5), 32, None, Verdict::SameAs(1)),
            point(Some(6), 24, Some(100), Verdict::SameAs(0)),
        ];
        let a = Advice {
            target: "gcn".to_string(),
            winner: choose(&points),
            points,
            compile: CompileOptions::new(target::preset("gcn").expect("gcn")),
        };
        assert_eq!(a.winner, Some(0));
        let table = render(&a);
        let line = |t: &str| table.lines().find(|l| l.split_whitespace().next() == Some(t)).unwrap_or_default().to_string();
        assert!(line("5").ends_with("same code as target 4, which failed"), "{table}");
        assert!(line("6").ends_with("same code as target none"), "{table}");
        assert!(line("4").contains("failed (exit 3): error: runtime fault"), "{table}");
    }

    #[test]
    fn parallel_keeps_the_order() {
        assert_eq!(parallel(9, 3, |i| i * i), (0..9).map(|i| i * i).collect::<Vec<_>>());
    }
}
