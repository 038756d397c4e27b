//! The quality table as Markdown (for people) and JSON (for tools). Rows come
//! in corpus order and configuration order, so the output is byte-identical
//! from run to run.

use super::measure::{Config, Figures};
use super::{Row, Table};
use std::fmt::Write;

/// How registers compare with MaxLive: `=` equal; `ABI` above it because the
/// kernel's argument registers reach higher; `+N` a colouring that used N more.
fn regs_vs_live(f: &Figures) -> String {
    match f.registers.cmp(&f.max_live) {
        std::cmp::Ordering::Equal => "=".into(),
        std::cmp::Ordering::Greater if f.registers == f.abi_registers => "ABI".into(),
        std::cmp::Ordering::Greater => format!("+{}", f.registers - f.max_live),
        std::cmp::Ordering::Less => format!("-{}", f.max_live - f.registers),
    }
}

/// Whether a row's registers are explained (equal to MaxLive, or the ABI floor).
fn regs_ok(f: &Figures) -> bool {
    matches!(regs_vs_live(f).as_str(), "=" | "ABI")
}

fn config_cell(c: &Config, t: &super::Targets) -> String {
    match c.target_occupancy {
        Some(o) if o == t.fit => format!("target {o} (fits)"),
        Some(o) => format!("target {o}"),
        None => c.label(),
    }
}

fn pct(new: u64, old: u64) -> String {
    if old == 0 {
        return "—".into();
    }
    format!("{:+.1}%", 100.0 * (new as f64 - old as f64) / old as f64)
}

fn main_row(out: &mut String, name: &str, cell: &str, r: &Row, auto: &str) {
    match &r.result {
        Ok(f) => {
            let spill = if f.spills() {
                format!(
                    "{} / {} ({}) / {} ({}) / {} / {}",
                    f.spilled, f.stores, f.weighted_stores, f.reloads, f.weighted_reloads, f.remats, f.banked
                )
            } else {
                "—".into()
            };
            let target = match (r.config.target_occupancy, f.warnings.contains(&"W0402")) {
                (Some(_), true) => " (missed)",
                (Some(_), false) => " (met)",
                _ => "",
            };
            let _ = writeln!(
                out,
                "| {name} | {cell} | {} | {} | {} | {spill} | {}{target} | {} | {} | {} | {} | {} | {auto} |",
                f.registers,
                f.max_live,
                regs_vs_live(f),
                f.waves,
                f.limiter,
                f.static_insts,
                f.dynamic,
                f.cycles,
                f.check
            );
        }
        Err(codes) => {
            let _ = writeln!(out, "| {name} | {cell} | refused: {codes} | | | | | | | | | {auto} |");
        }
    }
}

/// Every target the kernel misses, with the binding limit (W0402 says the same).
fn missed(out: &mut String, t: &Table) {
    let mut lines = Vec::new();
    for r in &t.main {
        let (Some(o), Ok(f)) = (r.config.target_occupancy, &r.result) else { continue };
        if f.waves >= o {
            continue;
        }
        let k = &t.kernels[r.kernel].name;
        let why = match f.limiter.as_str() {
            "local memory" if f.spilled > 0 => format!(
                "spilling {} values to reach the budget put their slots in local memory ({} bytes per workgroup in all), which then allows only {} waves",
                f.spilled, f.local_memory, f.waves
            ),
            "registers" => format!("even with spilling the kernel needs {} registers", f.registers),
            "wave slots" | "workgroup size" => {
                format!("workgroups of {} threads are resident whole: {} waves per core at most", f.threads, f.waves)
            }
            other => format!("{other} binds at {} waves", f.waves),
        };
        lines.push(format!("- {k}, target {o}: {why}."));
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "\nTargets missed (W0402), and why:\n");
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
}

/// The advisor's pick for a kernel, the -O row's `auto` cell: `default` or
/// `target T`, then the pick's cycles and its speed-up against the default.
fn auto_cell(t: &Table, k: usize) -> String {
    let a = match &t.auto[k] {
        Ok(a) => a,
        Err(why) => return format!("no answer: {}", why.replace('|', "/")),
    };
    let Some(w) = a.winner else { return "no candidate passed".into() };
    let cycles = a.cycles_of(w).unwrap_or(0);
    let speedup = a.default_cycles().map_or("—".to_string(), |d| format!("{:.2}x", d as f64 / cycles.max(1) as f64));
    match a.points[w].candidate.target {
        None => format!("default: {cycles} ({speedup})"),
        Some(o) => format!("target {o}: {cycles} ({speedup})"),
    }
}

/// What the advisor's picks buy at -O: per kernel it answered for, the
/// speed-up of its pick against the default (1 when it keeps the default),
/// and whether a target other than the default is the pick.
fn auto_gains(t: &Table) -> Vec<(usize, f64, bool)> {
    let mut out = Vec::new();
    for (k, a) in t.auto.iter().enumerate() {
        let Ok(a) = a else { continue };
        let (Some(w), Some(d)) = (a.winner, a.default_cycles()) else { continue };
        let Some(c) = a.cycles_of(w).filter(|&c| c > 0) else { continue };
        out.push((k, d as f64 / c as f64, a.points[w].candidate.target.is_some() && c < d));
    }
    out
}

fn geomean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

/// The summary's line on `--target-occupancy auto`.
fn auto_summary(out: &mut String, t: &Table) {
    let gains = auto_gains(t);
    let gained: Vec<&(usize, f64, bool)> = gains.iter().filter(|g| g.2).collect();
    let by5 = gained.iter().filter(|g| g.1 >= 1.05).count();
    let _ = write!(
        out,
        "- `--target-occupancy auto` at -O (the occupancy advisor; section \"Occupancy advisor\"): a target other than the default is faster on {} of {} kernels ({by5} by 5% or more)",
        gained.len(),
        gains.len()
    );
    if let (Some(geo), Some(best)) = (geomean(gained.iter().map(|g| g.1)), gained.iter().max_by(|a, b| a.1.total_cmp(&b.1))) {
        let _ = write!(
            out,
            ", by {geo:.2}x as a geometric mean over those and at most {:.2}x ({}); over all {} kernels the picks are {:.3}x the default as a geometric mean",
            best.1,
            t.kernels[best.0].name,
            gains.len(),
            geomean(gains.iter().map(|g| g.1)).unwrap_or(1.0)
        );
    }
    let _ = writeln!(out, ".");
    // The advisor's default is the -O row: the same compilation and run.
    let same = t
        .auto
        .iter()
        .enumerate()
        .filter(|(k, a)| {
            let at_o = t
                .main
                .iter()
                .find(|r| r.kernel == *k && r.config.opt == wavec::driver::OptLevel::O && r.config.target_occupancy.is_none())
                .and_then(|r| r.result.as_ref().ok());
            match (a, at_o) {
                (Ok(a), Some(f)) => a.points.first().is_some_and(|p| p.registers == f.registers) && a.default_cycles() == Some(f.cycles),
                _ => false,
            }
        })
        .count();
    let _ = writeln!(out, "- The advisor's default has the -O row's registers and cycles on {same}/{} kernels.", t.kernels.len());
}

/// Per kernel: the advisor's candidates and what became of them, the default and the pick.
fn advisor_section(out: &mut String, t: &Table) {
    use wavec::run::advisor::Verdict;
    let _ = writeln!(out, "\n## Occupancy advisor\n");
    let _ = writeln!(
        out,
        "`--target-occupancy auto` on each kernel at -O, through the library's `wavec::run::advisor::advise` (what \
         `wavec run FILE.test --target-occupancy auto` prints as a table; README, \"Choosing a target occupancy\"): \
         the default and each target with its own register budget, each compiled, checked against the expected \
         buffers and timed with the cycle model, unless its code is an earlier candidate's (`same`) or its issue \
         bound exceeds the best cycles so far (`skipped`); `failed` counts compile errors, faults and mismatches. \
         The pick has the fewest cycles (ties: fewer registers, then the default). `regs / waves / spill(w)`: \
         registers, waves per core and spill accesses weighted by 10 per loop level; `speed-up` the default's \
         cycles over the pick's.\n"
    );
    let _ = writeln!(
        out,
        "| kernel | candidates | timed | same | skipped | failed | default regs / waves / spill(w) | default cycles | pick | pick regs / waves / spill(w) | pick cycles | speed-up |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut totals = [0usize; 5];
    for (k, kernel) in t.kernels.iter().enumerate() {
        let a = match &t.auto[k] {
            Ok(a) => a,
            Err(why) => {
                let _ = writeln!(out, "| {} | no answer: {} | | | | | | | | | | |", kernel.name, why.replace('|', "/"));
                continue;
            }
        };
        let count = |f: &dyn Fn(&Verdict) -> bool| a.points.iter().filter(|p| f(&p.verdict)).count();
        let n = [
            a.points.len(),
            count(&|v| *v == Verdict::Timed),
            count(&|v| matches!(v, Verdict::SameAs(_))),
            count(&|v| matches!(v, Verdict::Skipped { .. })),
            count(&|v| matches!(v, Verdict::Failed { .. })),
        ];
        for (t, x) in totals.iter_mut().zip(n) {
            *t += x;
        }
        let figures = |p: &wavec::run::advisor::Point| format!("{} / {} / {}", p.registers, p.waves_per_core, p.spill_weighted);
        let default = a.points.first().map_or("—".to_string(), figures);
        let dc = a.default_cycles().map_or("—".to_string(), |c| c.to_string());
        let (pick, pf, pc, sp) = match a.winner {
            Some(w) => {
                let p = &a.points[w];
                let c = a.cycles_of(w).unwrap_or(0);
                (
                    p.candidate.target.map_or("default".to_string(), |o| format!("target {o}")),
                    figures(p),
                    c.to_string(),
                    a.default_cycles().map_or("—".to_string(), |d| format!("{:.2}x", d as f64 / c.max(1) as f64)),
                )
            }
            None => ("none passed".to_string(), "—".to_string(), "—".to_string(), "—".to_string()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {default} | {dc} | {pick} | {pf} | {pc} | {sp} |",
            kernel.name, n[0], n[1], n[2], n[3], n[4]
        );
    }
    let _ = writeln!(
        out,
        "\n{} candidates over {} kernels: {} timed, {} the same code as an earlier candidate, {} skipped by the issue bound, {} failed.",
        totals[0],
        t.kernels.len(),
        totals[1],
        totals[2],
        totals[3],
        totals[4]
    );
}

/// Sums of the figures the ablation compares.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Sums {
    registers: u64,
    waves: u64,
    max_live: u64,
    spill_memory: u64,
    static_insts: u64,
    dynamic: u64,
    cycles: u64,
}

impl Sums {
    fn of(f: &Figures) -> Sums {
        Sums {
            registers: f.registers as u64,
            waves: f.waves as u64,
            max_live: f.max_live as u64,
            spill_memory: f.weighted_stores + f.weighted_reloads,
            static_insts: f.static_insts,
            dynamic: f.dynamic,
            cycles: f.cycles,
        }
    }
    fn add(&mut self, o: Sums) {
        self.registers += o.registers;
        self.waves += o.waves;
        self.max_live += o.max_live;
        self.spill_memory += o.spill_memory;
        self.static_insts += o.static_insts;
        self.dynamic += o.dynamic;
        self.cycles += o.cycles;
    }
    fn fields(&self) -> [u64; 7] {
        [self.registers, self.waves, self.max_live, self.spill_memory, self.static_insts, self.dynamic, self.cycles]
    }
}

/// The reference row (same kernel, the configuration without anything disabled).
fn reference<'a>(t: &'a Table, r: &Row) -> Option<&'a Row> {
    t.main.iter().find(|m| m.kernel == r.kernel && m.config.opt == r.config.opt && m.config.target_occupancy == r.config.target_occupancy)
}

fn delta(new: u64, old: u64) -> String {
    let d = new as i64 - old as i64;
    if d == 0 {
        "0".into()
    } else {
        format!("{d:+} ({})", pct(new, old))
    }
}

fn ablation(out: &mut String, t: &Table, spilling: bool) {
    let what = if spilling { "at each kernel's first spilling target" } else { "at -O" };
    let _ = writeln!(out, "\n### Totals {what}\n");
    let _ = writeln!(
        out,
        "| disabled | kernels | registers | waves | MaxLive | spill memory ops (weighted) | static | dynamic | cycles | kernels changed | refused |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    let mut changed_rows = String::new();
    for (name, rows) in &t.ablation {
        let (mut on, mut off, mut n, mut changed, mut refused) = (Sums::default(), Sums::default(), 0, 0, Vec::new());
        let mut per_kernel = String::new();
        for r in rows.iter().filter(|r| r.config.target_occupancy.is_some() == spilling) {
            let Some(Ok(base)) = reference(t, r).map(|m| &m.result) else { continue };
            let Ok(f) = &r.result else {
                refused.push(format!("{} ({})", t.kernels[r.kernel].name, r.result.as_ref().err().map_or("", |s| s.as_str())));
                continue;
            };
            let (a, b) = (Sums::of(base), Sums::of(f));
            on.add(a);
            off.add(b);
            n += 1;
            if a != b || f.check != "ok" {
                changed += 1;
                let cells: Vec<String> = b.fields().iter().zip(a.fields()).map(|(&x, y)| delta(x, y)).collect();
                let _ = writeln!(per_kernel, "| {name} | {} | {} | {} |", t.kernels[r.kernel].name, cells.join(" | "), f.check);
            }
        }
        let cells: Vec<String> = off.fields().iter().zip(on.fields()).map(|(&x, y)| delta(x, y)).collect();
        let refused = if refused.is_empty() { "—".into() } else { refused.join(", ") };
        let _ = writeln!(out, "| `{name}` | {n} | {} | {changed} | {refused} |", cells.join(" | "));
        changed_rows += &per_kernel;
    }
    if !changed_rows.is_empty() {
        let _ = writeln!(out, "\nPer kernel, where turning it off changes anything {what} (off minus on):\n");
        let _ = writeln!(
            out,
            "| disabled | kernel | registers | waves | MaxLive | spill memory ops (weighted) | static | dynamic | cycles | check |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
        out.push_str(&changed_rows);
    }
}

/// Totals of dynamic instructions and cycles per configuration kind.
fn totals(t: &Table, pick: impl Fn(&Row) -> bool) -> (u64, u64, u64, usize) {
    t.main
        .iter()
        .filter(|r| pick(r))
        .filter_map(|r| r.result.as_ref().ok())
        .fold((0, 0, 0, 0), |(s, d, c, n), f| (s + f.static_insts, d + f.dynamic, c + f.cycles, n + 1))
}

pub fn markdown(t: &Table) -> String {
    let mut out = String::new();
    let g = &t.target;
    let _ = writeln!(out, "# Code quality on the benchmark kernels\n");
    let _ = writeln!(
        out,
        "Written by `cargo run --release -p wavec-benches -- quality --write` (also `quality.json`, the same figures). \
         Every figure comes from the compiler and its bundled simulator with the cycle model: simulated and \
         deterministic, the same on any machine, so a change in this file is a change in the compiler. \
         Target `{}`: {}-lane waves, {} registers per lane per core in granules of {}, at most {} waves per core.\n",
        g.name,
        g.wave_width,
        g.register_file_bytes / (4 * g.wave_width),
        g.register_granule,
        g.max_waves_per_core
    );
    let sets = ["benches/kernels", "examples", "examples/seeds"];
    let counts: Vec<String> = sets.iter().map(|s| format!("{} from `{s}`", t.kernels.iter().filter(|k| k.set == *s).count())).collect();
    let _ = writeln!(out, "## Summary\n");
    let _ = writeln!(out, "- {} kernels: {}.", t.kernels.len(), counts.join(", "));
    let is = |opt: wavec::driver::OptLevel| move |r: &Row| r.config.opt == opt && r.config.target_occupancy.is_none();
    let (s0, d0, c0, _) = totals(t, is(wavec::driver::OptLevel::O0));
    let (s1, d1, c1, _) = totals(t, is(wavec::driver::OptLevel::O));
    let _ = writeln!(
        out,
        "- -O against -O0, summed over the kernels: static instructions {s0} -> {s1} ({}), dynamic wave-instructions {d0} -> {d1} ({}), cycles {c0} -> {c1} ({}).",
        pct(s1, s0),
        pct(d1, d0),
        pct(c1, c0)
    );
    // Sums weigh the longest-running kernels most; the geometric mean of the
    // per-kernel ratios weighs every kernel alike.
    let cycles_of = |opt: wavec::driver::OptLevel, k: usize| {
        t.main
            .iter()
            .find(|r| r.kernel == k && r.config.opt == opt && r.config.target_occupancy.is_none())
            .and_then(|r| r.result.as_ref().ok())
            .map(|f| f.cycles)
    };
    let ratios: Vec<f64> = (0..t.kernels.len())
        .filter_map(|k| match (cycles_of(wavec::driver::OptLevel::O0, k), cycles_of(wavec::driver::OptLevel::O, k)) {
            (Some(a), Some(b)) if a > 0 && b > 0 => Some(b as f64 / a as f64),
            _ => None,
        })
        .collect();
    if !ratios.is_empty() {
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let faster = ratios.iter().filter(|&&r| r < 1.0).count();
        let slower = ratios.iter().filter(|&&r| r > 1.0).count();
        let _ = writeln!(
            out,
            "- -O against -O0 per kernel: cycles x{geo:.3} as a geometric mean over {} kernels ({faster} faster, {slower} slower).",
            ratios.len()
        );
    }
    let optimized: Vec<&Row> = t.main.iter().filter(|r| r.config.opt == wavec::driver::OptLevel::O).collect();
    let at_o: Vec<&Figures> =
        optimized.iter().filter(|r| r.config.target_occupancy.is_none()).filter_map(|r| r.result.as_ref().ok()).collect();
    let at_t: Vec<&Figures> =
        optimized.iter().filter(|r| r.config.target_occupancy.is_some()).filter_map(|r| r.result.as_ref().ok()).collect();
    let eq = |v: &[&Figures]| v.iter().filter(|f| f.registers == f.max_live).count();
    let abi = at_o.iter().chain(&at_t).filter(|f| regs_vs_live(f) == "ABI").count();
    let other = at_o.iter().chain(&at_t).filter(|f| !regs_ok(f)).count();
    let _ = write!(
        out,
        "- Registers == MaxLive on {}/{} kernels at -O and on {}/{} kernel-target pairs",
        eq(&at_o),
        at_o.len(),
        eq(&at_t),
        at_t.len()
    );
    if abi > 0 {
        let _ = write!(out, "; {abi} use the ABI floor (argument registers above MaxLive, column `ABI`)");
    }
    if other > 0 {
        let _ = write!(out, "; {other} use more than MaxLive (column `+N`)");
    }
    let _ = writeln!(out, ".");
    let fits = t.main.iter().filter(|r| r.config.target_occupancy.is_some_and(|o| t.targets[r.kernel].fit == o));
    let (mut fit_n, mut fit_clean) = (0, 0);
    for r in fits {
        fit_n += 1;
        fit_clean += usize::from(r.result.as_ref().is_ok_and(|f| !f.spills()));
    }
    let _ = writeln!(out, "- The fitting target compiles without spill code on {fit_clean}/{fit_n} kernels.");
    let _ = writeln!(
        out,
        "- Every run is checked against the test's expected buffers (column `check`); {} of {} runs pass.",
        t.main.iter().chain(t.ablation.iter().flat_map(|(_, r)| r)).filter(|r| r.result.as_ref().is_ok_and(|f| f.check == "ok")).count(),
        t.main.iter().chain(t.ablation.iter().flat_map(|(_, r)| r)).count()
    );
    auto_summary(&mut out, t);

    production(&mut out, t);

    let _ = writeln!(out, "\n## Configurations\n");
    let _ = writeln!(
        out,
        "`-O0` and `-O` without a target (the allocator's budget is the register file: nothing spills). Then `-O \
         --target-occupancy T` for T = the kernel's *fitting* target, the highest occupancy whose register budget \
         (`floor(file / (T * 64 * 4))` rounded down to the granule) holds the kernel's registers at -O, and the next \
         two above it (when the target has them), whose budgets are below the kernel's registers and force spilling. \
         A kernel already at {} waves has no spilling target. Occupancy can also be bound by local memory or by \
         whole workgroups (column `limit`), which no register budget changes.\n",
        g.max_waves_per_core
    );
    let _ = writeln!(
        out,
        "Columns: `regs` the kernel's `.registers`; `MaxLive` the most values live at once in the final code \
         (lane banks included); `=` registers equal MaxLive, `ABI` registers are the kernel's argument registers \
         (r0.. hold resource addresses, fixed by the ABI, higher than MaxLive), `+N` N registers more than MaxLive; \
         `spills` values in local memory / stores (weighted) / reloads (weighted) / rematerializations / values in \
         lane banks, where weighted counts an access 10x per enclosing loop; `waves` waves per core and what limits \
         them (met/missed: the target's W0402); `static` instructions in the listing; `dynamic` wave-instructions \
         executed; `cycles` of the cycle model; `check` the run against the expected buffers; `auto` (on the -O \
         row) the target `--target-occupancy auto` picks (section \"Occupancy advisor\"), its cycles and its speed-up \
         against the -O row.\n"
    );
    let _ = writeln!(out, "## Per kernel\n");
    let _ = writeln!(
        out,
        "| kernel | configuration | regs | MaxLive | regs vs MaxLive | spills | waves | limit | static | dynamic | cycles | check | auto |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &t.main {
        let k = &t.kernels[r.kernel];
        let at_o = r.config.opt == wavec::driver::OptLevel::O && r.config.target_occupancy.is_none() && r.config.disabled.is_empty();
        let auto = if at_o { auto_cell(t, r.kernel) } else { String::new() };
        main_row(&mut out, &k.name, &config_cell(&r.config, &t.targets[r.kernel]), r, &auto);
    }

    missed(&mut out, t);
    advisor_section(&mut out, t);
    let _ = writeln!(out, "\n## Ablation\n");
    let names: Vec<String> = t.ablation.iter().map(|(n, _)| format!("`{n}`")).collect();
    let _ = writeln!(
        out,
        "Each optimization `--disable` can turn off (`CompileOptions::disableable()`, so a pass added there joins \
         the table: {}), off against on: at -O, and at each kernel's first spilling target (where the allocator's \
         options matter). Figures are summed over the kernels that compile \
         both ways; a change is off minus on: positive registers, instructions or cycles are what the optimization \
         saves, a negative `waves` (waves per core, summed) is occupancy it buys.",
        names.join(", ")
    );
    ablation(&mut out, t, false);
    ablation(&mut out, t, true);
    out
}

fn json_figures(f: &Figures) -> String {
    format!(
        "{{\"registers\":{},\"max_live\":{},\"abi_registers\":{},\"spilled\":{},\"stores\":{},\"reloads\":{},\"weighted_stores\":{},\"weighted_reloads\":{},\"remats\":{},\"banked\":{},\"local_memory\":{},\"waves\":{},\"limiter\":\"{}\",\"static\":{},\"dynamic\":{},\"cycles\":{},\"check\":\"{}\",\"warnings\":[{}]}}",
        f.registers,
        f.max_live,
        f.abi_registers,
        f.spilled,
        f.stores,
        f.reloads,
        f.weighted_stores,
        f.weighted_reloads,
        f.remats,
        f.banked,
        f.local_memory,
        f.waves,
        f.limiter,
        f.static_insts,
        f.dynamic,
        f.cycles,
        f.check,
        f.warnings.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(",")
    )
}

/// The kernels at a production compiler's budget: registers at the smallest
/// `--max-registers` that needs no per-thread spill memory, and static
/// instructions at -O, beside Mesa ACO's vector registers and instructions
/// for the same HLSL (where `benches/results/aco.json` has them).
fn production(out: &mut String, t: &Table) {
    let _ = writeln!(out, "\n## At a production compiler's budget\n");
    let _ = writeln!(
        out,
        "A production compiler keeps uniform values in scalar registers, which WAVE lacks; its vector registers are \
         what a kernel needs per lane. Column `tight`: the fewest registers (`-O --max-registers N`, lowered one at \
         a time) at which the kernel still needs no per-thread spill memory (no local-memory or scratch slot), and \
         where the values that left the registers went: `R` rematerialized, `B` lane banks, `W` workgroup words, \
         `b` booleans as bits or masks; `floor` when the kernel's argument registers (and the one temporary that \
         moving one of them out needs) stop it. `ACO`: Mesa ACO's VGPRs and instructions without waits, nops and \
         the end (`benches/aco_reference.py`: DXC-style HLSL through glslang and RADV's ACO for vega10, wave64), \
         where glslang accepts the kernel; `ratio` our static instructions at -O against ACO's.\n"
    );
    let _ = writeln!(out, "| kernel | -O regs | -O static | tight | went to | ACO VGPRs | ACO instrs | ratio |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    let (mut ours, mut theirs, mut fit, mut with_aco) = (0u64, 0u64, 0, 0);
    for (k, kernel) in t.kernels.iter().enumerate() {
        let at_o = t
            .main
            .iter()
            .find(|r| r.kernel == k && r.config.opt == wavec::driver::OptLevel::O && r.config.target_occupancy.is_none())
            .and_then(|r| r.result.as_ref().ok());
        let Some(f) = at_o else { continue };
        let (tight, went) = match &t.tight[k] {
            Some(x) => {
                let mut parts = Vec::new();
                for (n, tag) in [(x.remats, "R"), (x.banked, "B"), (x.group_values, "W"), (x.bits, "b")] {
                    if n > 0 {
                        parts.push(format!("{n}{tag}"));
                    }
                }
                let floor = if x.abi_floor { " (floor)" } else { "" };
                (format!("{}{floor}", x.registers), if parts.is_empty() { "—".to_string() } else { parts.join(" ") })
            }
            None => ("—".to_string(), "—".to_string()),
        };
        let (av, ai, ratio) = match t.aco[k] {
            Some(a) => {
                with_aco += 1;
                ours += f.static_insts;
                theirs += u64::from(a.instructions);
                if t.tight[k].as_ref().is_some_and(|x| x.registers <= a.vgprs + 1) {
                    fit += 1;
                }
                (
                    a.vgprs.to_string(),
                    a.instructions.to_string(),
                    format!("{:.2}", f.static_insts as f64 / f64::from(a.instructions.max(1))),
                )
            }
            None => ("—".into(), "—".into(), "—".into()),
        };
        let _ = writeln!(out, "| {} | {} | {} | {tight} | {went} | {av} | {ai} | {ratio} |", kernel.name, f.registers, f.static_insts);
    }
    if with_aco > 0 {
        let _ = writeln!(
            out,
            "\nOver the {with_aco} kernels ACO compiles: static instructions at -O {ours} against {theirs} ({:.2}x); {fit} of \
             {with_aco} need no per-thread spill memory at ACO's VGPRs + 1 (room for one lane bank).",
            ours as f64 / theirs.max(1) as f64
        );
    }
}

/// One JSON object per row (kernel, configuration, figures or the refusal's codes).
pub fn json(t: &Table) -> String {
    let rows: Vec<String> = t
        .main
        .iter()
        .chain(t.ablation.iter().flat_map(|(_, r)| r))
        .map(|r| {
            let k = &t.kernels[r.kernel];
            let result = match &r.result {
                Ok(f) => format!("\"figures\":{}", json_figures(f)),
                Err(codes) => format!("\"refused\":\"{codes}\""),
            };
            format!("  {{\"kernel\":\"{}\",\"set\":\"{}\",\"configuration\":\"{}\",{result}}}", k.name, k.set, r.config.label())
        })
        .collect();
    let auto: Vec<String> = t.kernels.iter().zip(&t.auto).map(|(k, a)| format!("  {}", json_advice(&k.name, a))).collect();
    format!("{{\"target\":\"{}\",\"rows\":[\n{}\n],\n\"auto\":[\n{}\n]}}\n", t.target.name, rows.join(",\n"), auto.join(",\n"))
}

/// One kernel's advice as JSON: the pick and every candidate's figures and verdict.
fn json_advice(kernel: &str, a: &Result<wavec::run::advisor::Advice, String>) -> String {
    use serde_json::json;
    use wavec::run::advisor::Verdict;
    let a = match a {
        Ok(a) => a,
        Err(why) => return json!({"kernel": kernel, "error": why}).to_string(),
    };
    let candidates: Vec<serde_json::Value> = a
        .points
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let verdict = match &p.verdict {
                Verdict::Timed => json!("timed"),
                Verdict::Failed { exit_code, reason } => json!({"failed": {"exit_code": exit_code, "reason": reason}}),
                Verdict::Skipped { best } => json!({"skipped": {"best": best}}),
                Verdict::SameAs(j) => {
                    json!({"same_as": a.points[*j].candidate.target.map_or(json!("default"), |t| json!(t))})
                }
            };
            json!({
                "target": p.candidate.target,
                "budget": p.candidate.budget,
                "registers": p.registers,
                "max_live": p.max_live,
                "spill_weighted": p.spill_weighted,
                "lane_banks": p.lane_banks,
                "waves": p.waves_per_core,
                "limiter": p.limiter,
                "static": p.static_insts,
                "dynamic": p.dynamic,
                "bound": p.bound,
                "cycles": a.cycles_of(k),
                "verdict": verdict,
            })
        })
        .collect();
    let pick = a.winner.map(|w| a.points[w].candidate.target);
    json!({
        "kernel": kernel,
        "pick": a.winner.map(|_| json!({"target": pick.flatten(), "cycles": a.winner.and_then(|w| a.cycles_of(w))})),
        "default_cycles": a.default_cycles(),
        "candidates": candidates,
    })
    .to_string()
}
