//! Execution tests: every `.test` file (LLVM offload-test-suite format) in
//! `tests/corpus/` (the core subset), `tests/lang/` (one or more tests per
//! language feature), `examples/` and `benches/kernels/` (the benchmark
//! kernels) is compiled and run on the simulator through `wavec::run`, at -O0
//! and -O, and must exit 0 (every expected buffer matches).
//!
//! * Files named `*_w64.test` expect 64-lane waves and run on the `gcn`
//!   target; the others on `generic` (32 lanes).
//! * Every test runs on the spec profile (`--isa wave`). On `--isa wave-0.1.2`
//!   a test runs where its kernel fits that profile: a kernel the compiler
//!   refuses for 0.1.2 with E0403 (arguments beyond r31), E0406 (CAS), E0407
//!   (signed atomic min/max) or E0408 (spill slots that local memory cannot
//!   hold and that the device-memory scratch buffer cannot take either) is
//!   listed, not failed.
//!
//! * On wave-0.1.2 the simulator also checks that every wave instruction runs
//!   with all live lanes of its wave or none, in a wave of whole 32-lane warps
//!   (`RunOptions::full_wave_ops`), as the published backends need
//!   (`converge-waves`, `pad-warps`, docs/backends.md).
//!
//! The expected buffers come from Python models of the kernels, not from wavec:
//! `tests/corpus/gen/gen.py`, `tests/lang/gen/gen_lang.py`,
//! `tests/lang/gen/gen_examples.py` and `benches/kernels/gen.py`.

use std::path::PathBuf;

use wavec::driver::{Isa, OptLevel};
use wavec::run::{self, RunOptions};
use wavec::target::preset;

use wavec_tests as harness;

/// Codes with which the compiler refuses a kernel that does not fit WAVE 0.1.2.
const NOT_FOR_012: &[&str] = &["E0403", "E0406", "E0407", "E0408"];

fn tests_in(dir: &str) -> Vec<PathBuf> {
    harness::files_with_ext(dir, "test")
}

fn all_tests() -> Vec<PathBuf> {
    let mut v = tests_in("tests/corpus");
    v.extend(tests_in("tests/lang"));
    v.extend(tests_in("examples"));
    v.extend(tests_in("benches/kernels"));
    v
}

fn target_for(path: &std::path::Path) -> &'static str {
    if path.file_stem().is_some_and(|s| s.to_string_lossy().ends_with("_w64")) {
        "gcn"
    } else {
        "generic"
    }
}

#[test]
fn corpus_has_enough_tests() {
    assert!(tests_in("tests/corpus").len() >= 12, "only {} corpus tests", tests_in("tests/corpus").len());
    assert!(tests_in("tests/lang").len() >= 60, "only {} language tests", tests_in("tests/lang").len());
    assert!(tests_in("examples").len() >= 10, "only {} example tests", tests_in("examples").len());
    assert!(tests_in("benches/kernels").len() >= 10, "only {} benchmark kernels", tests_in("benches/kernels").len());
}

/// The test files are well-formed independently of the compiler: they split, their
/// pipelines parse, and every result compares buffers of equal size.
#[test]
fn pipelines_parse() {
    let mut failures = Vec::new();
    for path in all_tests() {
        let test = match run::load_test_file(&path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: {}", path.display(), e.message));
                continue;
            }
        };
        match run::parse_pipeline(&test.pipeline_text) {
            Ok(p) => {
                for r in &p.results {
                    let (a, e) = (&p.buffers[r.actual], &p.buffers[r.expected]);
                    if a.data.len() != e.data.len() {
                        failures.push(format!("{}: result {}: {} and {} differ in size", path.display(), r.name, a.name, e.name));
                    }
                }
                if p.results.is_empty() {
                    failures.push(format!("{}: no Results", path.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {}", path.display(), e.message)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs every test at -O0 and -O on both profiles (0.1.2 where it fits).
fn run_all(paths: &[PathBuf]) -> (Vec<String>, Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut not_012 = Vec::new();
    let mut runs = 0;
    for path in paths {
        let test = match run::load_test_file(path) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("== {}: {}", path.display(), e.message));
                continue;
            }
        };
        let target = preset(target_for(path)).expect("target preset");
        for isa in [Isa::Wave, Isa::Wave012] {
            for opt in [OptLevel::O0, OptLevel::O] {
                let mut opts = RunOptions::new(target.clone());
                opts.compile.isa = isa;
                opts.compile.opt = opt;
                // wave-0.1.2 code must also run on backends with full-mask wave operations.
                opts.full_wave_ops = isa == Isa::Wave012;
                let out = run::run_pipeline(&test, &opts);
                runs += 1;
                if out.exit_code == 0 {
                    continue;
                }
                if isa == Isa::Wave012 && out.exit_code == 2 && NOT_FOR_012.iter().any(|c| out.stderr.contains(&format!("error[{c}]"))) {
                    let line = out.stderr.lines().find(|l| l.starts_with("error[")).unwrap_or("").to_string();
                    not_012.push(format!("{} ({opt:?}): {line}", path.display()));
                    continue;
                }
                failures.push(format!(
                    "== {} (--isa {}, {:?}, {}): exit code {}\n-- stderr:\n{}\n-- stdout:\n{}",
                    path.display(),
                    isa.name(),
                    opt,
                    target.name,
                    out.exit_code,
                    out.stderr.trim_end(),
                    out.stdout.lines().take(40).collect::<Vec<_>>().join("\n")
                ));
            }
        }
    }
    (failures, not_012, runs)
}

/// The convergence property on the emitted code, checked by the simulator
/// (independently of the compiler's own E0411 check): on wave-0.1.2, at -O0
/// and -O, every wave instruction of the tests that use wave operations
/// (tests/lang/wave_*, examples, benchmark kernels) runs with every live lane
/// of its wave or with none. On the spec profile, where `converge-waves` does
/// not run, the same check fails for the kernels with wave operations in
/// divergent `if`s and in loops that lanes leave at different iterations.
#[test]
fn wave_ops_run_with_every_lane_on_wave012() {
    let mut paths: Vec<PathBuf> =
        tests_in("tests/lang").into_iter().filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("wave_"))).collect();
    paths.extend(tests_in("examples"));
    paths.extend(tests_in("benches/kernels"));
    let run = |path: &PathBuf, isa: Isa, opt: OptLevel| {
        let test = run::load_test_file(path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        let mut opts = RunOptions::new(preset(target_for(path)).expect("target preset"));
        opts.compile.isa = isa;
        opts.compile.opt = opt;
        opts.timing = false;
        opts.full_wave_ops = true;
        run::run_pipeline(&test, &opts)
    };
    let divergent = "wave operation in divergent control flow";
    let (mut failures, mut with_wave_ops) = (Vec::new(), 0);
    for path in &paths {
        for opt in [OptLevel::O0, OptLevel::O] {
            let out = run(path, Isa::Wave012, opt);
            if out.exit_code == 2 && NOT_FOR_012.iter().any(|c| out.stderr.contains(&format!("error[{c}]"))) {
                continue;
            }
            if out.exit_code != 0 {
                failures.push(format!("== {} ({opt:?}): exit code {}\n{}", path.display(), out.exit_code, out.stderr.trim_end()));
                continue;
            }
            let waves = out.stats.as_ref().and_then(|s| s.sim.by_category.get("wave").copied()).unwrap_or(0);
            with_wave_ops += usize::from(waves > 0);
        }
    }
    assert!(failures.is_empty(), "{} runs failed:\n{}", failures.len(), failures.join("\n\n"));
    // Not vacuous: the wave tests (32 and 64 lanes) and wave_reduce and scan_wave execute wave instructions.
    assert!(with_wave_ops >= 40, "only {with_wave_ops} runs executed a wave instruction");
    // The check can fail: without the pass (spec profile) these kernels run wave
    // operations with part of the wave.
    for name in ["wave_divergent", "wave_ops_in_conditions", "wave_prefix", "wave_float"] {
        let path = harness::repo_root().join(format!("tests/lang/{name}.test"));
        for opt in [OptLevel::O0, OptLevel::O] {
            let out = run(&path, Isa::Wave, opt);
            assert!(out.stderr.contains(divergent), "{name} ({opt:?}) on --isa wave: exit {}\n{}", out.exit_code, out.stderr);
        }
    }
}

/// `pad-warps`: on wave-0.1.2 a kernel with wave operations whose group is
/// not a multiple of 32 threads runs in groups rounded up to whole warps
/// (wave_divergent: 80 threads in 96, wave_int64: 48 in 64, wave_partial_warp:
/// 5x3x2 in 32), at -O0 and -O, and passes the full-wave check, which also
/// faults on a wave operation in a partial warp; every buffer is the one the
/// spec profile's unpadded run gives. The check can fail: without the pass
/// (`--disable pad-warps`) the same kernels run wave operations in their
/// groups' last, partial warps.
#[test]
fn padded_workgroups_pass_the_full_wave_check() {
    for name in ["wave_divergent", "wave_int64", "wave_partial_warp"] {
        let path = harness::repo_root().join(format!("tests/lang/{name}.test"));
        let test = run::load_test_file(&path).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let run = |isa: Isa, opt: OptLevel, disabled: &[&str]| {
            let mut opts = RunOptions::new(preset("generic").expect("target preset"));
            opts.compile.isa = isa;
            opts.compile.opt = opt;
            opts.compile.disabled_passes = disabled.iter().map(|p| p.to_string()).collect();
            opts.timing = false;
            opts.full_wave_ops = isa == Isa::Wave012;
            run::run_pipeline(&test, &opts)
        };
        for opt in [OptLevel::O0, OptLevel::O] {
            let spec = run(Isa::Wave, opt, &[]);
            assert_eq!(spec.exit_code, 0, "{name} ({opt:?}) on --isa wave:\n{}", spec.stderr);
            let padded = run(Isa::Wave012, opt, &[]);
            assert_eq!(padded.exit_code, 0, "{name} ({opt:?}) on wave-0.1.2:\n{}", padded.stderr);
            assert_eq!(padded.stdout, spec.stdout, "{name} ({opt:?}): the buffers differ from the spec profile's");
            let unpadded = run(Isa::Wave012, opt, &["pad-warps"]);
            assert!(
                unpadded.stderr.contains("wave operation in a partial warp"),
                "{name} ({opt:?}) without pad-warps: exit {}\n{}",
                unpadded.exit_code,
                unpadded.stderr
            );
        }
    }
}

/// Tests given as a directory holding `pipeline.yaml` and `source.hlsl`
/// (kept as separate files when the source's encoding matters, e.g. UTF-16).
#[test]
fn pair_tests_run_and_match() {
    let root = harness::repo_root().join("tests/lang");
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("pipeline.yaml").exists()).collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no pair tests under tests/lang");
    for dir in dirs {
        for isa in [Isa::Wave, Isa::Wave012] {
            let test = run::load_pair(&dir.join("pipeline.yaml"), &dir.join("source.hlsl")).expect("pair loads");
            let mut opts = RunOptions::new(preset("generic").unwrap());
            opts.compile.isa = isa;
            let out = run::run_pipeline(&test, &opts);
            assert_eq!(out.exit_code, 0, "{} ({}):\n{}", dir.display(), isa.name(), out.stderr);
        }
    }
}

#[test]
fn corpus_runs_and_matches() {
    let (failures, not_012, runs) = run_all(&tests_in("tests/corpus"));
    assert!(not_012.is_empty(), "the core corpus must fit 0.1.2:\n{}", not_012.join("\n"));
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn language_tests_run_and_match() {
    let (failures, not_012, runs) = run_all(&tests_in("tests/lang"));
    if !not_012.is_empty() {
        eprintln!("not run on wave-0.1.2 (the kernel does not fit that profile):\n  {}", not_012.join("\n  "));
    }
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn examples_run_and_match() {
    let (failures, not_012, runs) = run_all(&tests_in("examples"));
    if !not_012.is_empty() {
        eprintln!("not run on wave-0.1.2 (the kernel does not fit that profile):\n  {}", not_012.join("\n  "));
    }
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn bench_kernels_run_and_match() {
    let (failures, not_012, runs) = run_all(&tests_in("benches/kernels"));
    if !not_012.is_empty() {
        eprintln!("not run on wave-0.1.2 (the kernel does not fit that profile):\n  {}", not_012.join("\n  "));
    }
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// Everything also passes on the other targets: 64-lane waves (gcn, rdna) and
/// nvidia, where lanes map to waves differently and the last wave of a group is
/// partial. (Wave-width-specific tests run only on a target of their width.)
#[test]
fn runs_on_other_targets() {
    let mut failures = Vec::new();
    for name in ["gcn", "rdna", "nvidia"] {
        let target = preset(name).expect("preset");
        for path in all_tests() {
            let w64 = target_for(&path) == "gcn";
            let wave_test = path.file_stem().is_some_and(|s| s.to_string_lossy().starts_with("wave_"));
            // 64-lane tests need 64-lane waves; 32-lane wave tests need 32 lanes.
            if (w64 && target.wave_width != 64) || (wave_test && !w64 && target.wave_width != 32) {
                continue;
            }
            let test = run::load_test_file(&path).expect("test loads");
            let mut opts = RunOptions::new(target.clone());
            opts.compile.opt = OptLevel::O;
            let out = run::run_pipeline(&test, &opts);
            if out.exit_code != 0 {
                failures.push(format!("== {} on {name}: exit {}\n{}", path.display(), out.exit_code, out.stderr.trim_end()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// MaxLive of a test's kernel at -O on `target` (no budget), or None if it does not compile.
fn max_live(test: &run::PipelineTest, target: &wavec::target::Target, isa: Isa) -> Option<u32> {
    let mut opts = wavec::driver::CompileOptions::new(target.clone());
    opts.isa = isa;
    opts.opt = OptLevel::O;
    test.flags.apply(&mut opts);
    if opts.entry.is_none() {
        opts.entry = run::parse_pipeline(&test.pipeline_text).ok()?.shader.entry;
    }
    wavec::driver::compile_input(&test.input(), &opts, true).result.ok().map(|c| c.max_live)
}

/// Bool-to-mask changes where booleans live, never what a kernel computes:
/// the bool-heavy kernels give their expected buffers at forced budgets
/// with and without `--disable bool-masks`, on both ISA profiles, and the
/// masks are really made (the listing's spill line counts them).
#[test]
fn bool_masks_give_the_same_results() {
    let files = ["tests/corpus/pressure_flags.test", "tests/corpus/bool_logic.test", "benches/kernels/bool_flags.test"];
    let target = preset("generic").expect("preset");
    let (mut runs, mut with_masks) = (0, 0);
    let mut failures = Vec::new();
    for f in files {
        let test = run::load_test_file(&harness::repo_root().join(f)).expect("test loads");
        for isa in [Isa::Wave, Isa::Wave012] {
            let Some(ml) = max_live(&test, &target, isa) else { continue };
            let mut budgets: Vec<u32> = [ml * 3 / 4, ml * 2 / 3, ml / 2, 10, 8, 6].into_iter().filter(|&b| b >= 1 && b < ml).collect();
            budgets.sort_unstable();
            budgets.dedup();
            for b in budgets {
                for masks in [true, false] {
                    let mut opts = RunOptions::new(target.clone());
                    opts.compile.isa = isa;
                    opts.compile.opt = OptLevel::O;
                    opts.compile.max_registers = Some(b);
                    if !masks {
                        assert!(opts.compile.disable("bool-masks"));
                    }
                    let what = format!("{f} --isa {} --max-registers {b}{}", isa.name(), if masks { "" } else { " --disable bool-masks" });
                    let out = run::run_pipeline(&test, &opts);
                    runs += 1;
                    if out.exit_code != 0 {
                        failures.push(format!("== {what}: exit {}\n{}", out.exit_code, out.stderr.trim_end()));
                        continue;
                    }
                    let mut copts = opts.compile.clone();
                    test.flags.apply(&mut copts);
                    run::apply_pipeline(&run::parse_pipeline(&test.pipeline_text).expect("pipeline parses"), &mut copts);
                    let asm = wavec::driver::compile_input(&test.input(), &copts, true).result.expect("compiles").asm;
                    let masked = asm.lines().any(|l| l.starts_with("; spill code:") && l.contains("boolean mask"));
                    assert!(masks || !masked, "{what}: masks although disabled");
                    with_masks += usize::from(masked);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
    assert!(with_masks >= 3, "only {with_masks} of {runs} runs made boolean masks");
}

/// Register allocation against a budget changes where values live, never what
/// the kernel computes: every test passes at register budgets that a
/// `--target-occupancy` implies on `generic`, `gcn` and `nvidia` (budgets
/// below the kernel's MaxLive, where spilling happens: the tightest and one
/// that moves from test to test), and at forced low budgets
/// (`--max-registers` MaxLive - 1, MaxLive / 2 and 6; on wave-0.1.2 one of
/// them in turn). A budget below what one
/// instruction needs is raised to the least that works; spill slots past the
/// target's local memory run from the device scratch buffer, and what even
/// that cannot take is a refusal (E0408), listed, not failed.
#[test]
fn every_register_budget_gives_the_same_results() {
    let mut jobs = Vec::new();
    for (index, path) in all_tests().into_iter().enumerate() {
        let test = run::load_test_file(&path).expect("test loads");
        let w64 = target_for(&path) == "gcn";
        let wave_test = path.file_stem().is_some_and(|s| s.to_string_lossy().starts_with("wave_"));
        let mut cases: Vec<(String, Isa, Option<u32>, Option<u32>)> = Vec::new();
        for name in ["generic", "gcn", "nvidia"] {
            let target = preset(name).expect("preset");
            if (w64 && target.wave_width != 64) || (wave_test && !w64 && target.wave_width != 32) {
                continue;
            }
            let Some(ml) = max_live(&test, &target, Isa::Wave) else { continue };
            // Each distinct budget below MaxLive, by the least occupancy that gives it.
            let mut budgets: Vec<(u32, u32)> = Vec::new();
            for o in 1..=target.max_waves_per_core {
                let b = wavec::target::register_budget(&target, o);
                if b < ml && budgets.iter().all(|&(seen, _)| seen != b) {
                    budgets.push((b, o));
                }
            }
            // The tightest, and one that moves from test to test (the suite's
            // time on CI's two cores: every budget, then three per target,
            // multiplied this test's runs for little new spill code).
            let n = budgets.len();
            let mut picked = vec![n.saturating_sub(1), index % n.max(1)];
            picked.sort_unstable();
            picked.dedup();
            for i in picked.into_iter().filter(|&i| i < n) {
                cases.push((name.to_string(), Isa::Wave, Some(budgets[i].1), None));
            }
        }
        let home = target_for(&path);
        let target = preset(home).expect("preset");
        for isa in [Isa::Wave, Isa::Wave012] {
            if let Some(ml) = max_live(&test, &target, isa) {
                let forced = [ml.saturating_sub(1), ml / 2, 6];
                // wave-0.1.2 (the same allocator, other selection): one of the three, in turn.
                let forced = if isa == Isa::Wave { &forced[..] } else { &forced[index % 3..index % 3 + 1] };
                for &b in forced {
                    if b >= 1 && b < ml {
                        cases.push((home.to_string(), isa, None, Some(b)));
                    }
                }
            }
        }
        cases.dedup();
        let test = std::sync::Arc::new(test);
        jobs.extend(cases.into_iter().map(|c| (path.clone(), test.clone(), c)));
    }
    // Each run is independent and most spill (a budget search each): spread
    // them over the machine's threads.
    let runs = jobs.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new((Vec::new(), Vec::new()));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((path, test, (name, isa, occupancy, max_regs))) = jobs.get(i) else { break };
                let mut opts = RunOptions::new(preset(name).expect("preset"));
                opts.compile.isa = *isa;
                opts.compile.opt = OptLevel::O;
                opts.compile.target_occupancy = *occupancy;
                opts.compile.max_registers = *max_regs;
                let out = run::run_pipeline(test, &opts);
                let what = format!("{} on {name} --isa {} occupancy {occupancy:?} max-registers {max_regs:?}", path.display(), isa.name());
                if out.exit_code == 0 {
                    continue;
                }
                let mut r = results.lock().unwrap();
                if out.exit_code == 2 && ["E0408", "E0406", "E0407"].iter().any(|c| out.stderr.contains(&format!("error[{c}]"))) {
                    r.1.push(what);
                } else {
                    r.0.push(format!("== {what}: exit {}\n{}", out.exit_code, out.stderr.trim_end()));
                }
            });
        }
    });
    let (mut failures, mut refused) = results.into_inner().unwrap();
    failures.sort();
    refused.sort();
    if !refused.is_empty() {
        eprintln!("refused ({}):\n  {}", refused.len(), refused.join("\n  "));
    }
    eprintln!("{runs} runs, {} refused", refused.len());
    assert!(runs > 200, "only {runs} runs");
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// The quality corpus (`benches/src/quality`): benchmark kernels, examples and seed examples.
fn quality_kernels() -> Vec<PathBuf> {
    let mut v = tests_in("benches/kernels");
    v.extend(tests_in("examples"));
    v.extend(tests_in("examples/seeds"));
    v
}

/// A kernel compiled at -O on `target` with its test's flags and pipeline, at `occupancy`.
fn compile_at(test: &run::PipelineTest, target: &wavec::target::Target, occupancy: Option<u32>) -> wavec::driver::Compiled {
    let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
    let mut opts = wavec::driver::CompileOptions::new(target.clone());
    opts.opt = OptLevel::O;
    opts.target_occupancy = occupancy;
    test.flags.apply(&mut opts);
    run::apply_pipeline(&pipeline, &mut opts);
    let c = wavec::driver::compile_input(&test.input(), &opts, true);
    c.result.unwrap_or_else(|d| panic!("{} at {occupancy:?}: {}", test.name, wavec::diag::render(&c.sources, &d)))
}

/// Allocation "to the limit" on every quality kernel, on `gcn` and `generic`:
/// registers equal MaxLive (or the ABI's argument registers, which sit higher),
/// and every target occupancy whose register budget holds them, and which the
/// workgroup and local memory allow, is met with no spill code at all.
#[test]
fn quality_targets_within_max_live_are_met_without_spills() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in quality_kernels() {
        let test = run::load_test_file(&path).expect("test loads");
        for name in ["gcn", "generic"] {
            let target = preset(name).expect("preset");
            let base = compile_at(&test, &target, None);
            let what = format!("{} on {name}", path.display());
            let floor = base.max_live.max(base.interface.abi_registers());
            if base.interface.registers != floor {
                failures.push(format!("{what}: {} registers for MaxLive {}", base.interface.registers, base.max_live));
            }
            let threads = base.interface.workgroup_size.iter().product();
            for o in 1..=target.max_waves_per_core {
                let budget = wavec::target::register_budget(&target, o);
                let reachable = wavec::target::occupancy(&target, budget, threads, base.interface.local_memory).waves_per_core >= o;
                if budget < base.interface.registers || !reachable {
                    continue;
                }
                checked += 1;
                let c = compile_at(&test, &target, Some(o));
                let s = &c.spill;
                let spill_code = s.stores + s.reloads + s.remats + s.bank_writes + s.bank_reads;
                let regs = c.interface.registers;
                if spill_code > 0 || regs > budget || c.occupancy.waves_per_core < o || c.warnings.iter().any(|d| d.code == "W0402") {
                    failures.push(format!(
                        "{what} at target {o} (budget {budget}, MaxLive {} unconstrained): {regs} registers, {} waves, {spill_code} spill instructions {s:?}, warnings {:?}",
                        base.max_live,
                        c.occupancy.waves_per_core,
                        c.warnings.iter().map(|d| d.code).collect::<Vec<_>>()
                    ));
                }
                if regs != c.max_live.max(c.interface.abi_registers()) {
                    failures.push(format!("{what} at target {o}: {regs} registers for MaxLive {}", c.max_live));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} kernel-target pairs checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Spilling never costs a target occupancy through local memory: on the
/// quality kernels that spill most (gcn), every target the register budget
/// can reach is met, slots that would crowd local memory going to the
/// device scratch buffer (conv_rgba_8tap at target 6 had 3 waves, limited
/// by its spill area), and the run still gives the expected buffers.
#[test]
fn spill_slots_never_cost_the_target_occupancy() {
    let target = preset("gcn").expect("gcn");
    let mut checked = 0;
    for name in ["conv_rgba_8tap", "matmul_microtile"] {
        let path = harness::repo_root().join(format!("benches/kernels/{name}.test"));
        let test = run::load_test_file(&path).expect("test loads");
        let base = compile_at(&test, &target, None);
        for o in 1..=target.max_waves_per_core {
            let c = compile_at(&test, &target, Some(o));
            let spills = c.spill.stores + c.spill.reloads > 0;
            if c.interface.registers <= base.interface.registers && !spills {
                continue;
            }
            checked += 1;
            // Registers may still bind (what must be live at once); local memory never does.
            assert!(
                c.occupancy.waves_per_core >= o || c.occupancy.limiter != wavec::target::Limiter::LocalMemory,
                "{name} at target {o}: {} waves, limited by {} ({} bytes of local memory)",
                c.occupancy.waves_per_core,
                c.occupancy.limiter,
                c.interface.local_memory
            );
            let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
            let mut opts = RunOptions::new(target.clone());
            opts.compile.opt = OptLevel::O;
            opts.compile.target_occupancy = Some(o);
            test.flags.apply(&mut opts.compile);
            run::apply_pipeline(&pipeline, &mut opts.compile);
            opts.timing = false;
            let out = run::run_pipeline(&test, &opts);
            assert_eq!(out.exit_code, 0, "{name} at target {o}: {}", out.stderr);
        }
    }
    assert!(checked >= 4, "only {checked} spilling targets checked");
}

/// Budgets are monotone: on every quality kernel (gcn), a looser
/// `--max-registers` gives no more spill memory traffic (stores and reloads
/// of slots and workgroup words, weighted by loop depth) than a tighter one,
/// unless the looser one runs faster in the simulator (the back end ranks by
/// its estimate, which counts each spill access; wide loads can buy more than
/// the spill they cost) or holds more waves per core (a smaller spill area in
/// local memory). Budgets from the -O registers down in steps of two.
#[test]
fn looser_budgets_spill_more_only_when_faster() {
    let target = preset("gcn").expect("preset");
    let mut failures = Vec::new();
    let (mut pairs, mut traded) = (0, 0);
    for path in quality_kernels() {
        let test = run::load_test_file(&path).expect("test loads");
        let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
        let options = |budget: Option<u32>| {
            let mut opts = RunOptions::new(target.clone());
            opts.compile.opt = OptLevel::O;
            opts.compile.max_registers = budget;
            test.flags.apply(&mut opts.compile);
            run::apply_pipeline(&pipeline, &mut opts.compile);
            opts
        };
        let at = |budget: Option<u32>| wavec::driver::compile_input(&test.input(), &options(budget).compile, false).result.ok();
        let cycles = |budget: u32| {
            let out = run::run_pipeline(&test, &options(Some(budget)));
            assert_eq!(out.exit_code, 0, "{} at {budget}: {}", path.display(), out.stderr);
            out.stats.and_then(|s| s.report.timing).map_or(0, |t| t.cycles)
        };
        let Some(base) = at(None) else { continue };
        let floor = base.interface.abi_registers() + 2;
        let mut looser: Option<(u32, u64, u32)> = None;
        let mut b = base.interface.registers;
        while b >= floor && b + 12 >= base.interface.registers {
            let Some(c) = at(Some(b)) else { break };
            let traffic = c.spill.weighted_memory;
            let waves = c.occupancy.waves_per_core;
            if let Some((lb, lt, lw)) = looser {
                pairs += 1;
                // More waves per core is what the looser budget bought with its
                // spill code (its spill area is smaller): a dispatch of a few
                // waves cannot show that, so it counts as a trade.
                if lt > traffic && lw > waves {
                    traded += 1;
                } else if lt > traffic {
                    let (fast, slow) = (cycles(lb), cycles(b));
                    if fast >= slow {
                        failures.push(format!(
                            "{}: {lt} weighted spill accesses at {lb} registers ({fast} cycles), {traffic} at {b} ({slow} cycles)",
                            path.display()
                        ));
                    }
                    traded += 1;
                }
            }
            looser = Some((b, traffic, waves));
            b = b.saturating_sub(2);
        }
    }
    assert!(pairs > 50, "only {pairs} budget pairs compared");
    assert!(failures.is_empty(), "{} of {pairs} pairs:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{traded} of {pairs} budget pairs spill more at the looser budget, each faster for it");
}

/// A wave-uniform load (a cbuffer word) costs one memory transaction per wave:
/// every lane reads the same segment, so there is no traffic to save with a
/// first-lane load and a broadcast (design-notes, "Uniform values").
/// Spill slots that local memory cannot hold live in the scratch buffer in
/// device memory (`tests/corpus/scratch_spill.test`: 36 live values beside a
/// groupshared array that leaves one slot). At 32 registers, on both profiles
/// and at -O0 and -O, the kernel compiles with W0403, its ABI names the
/// scratch register, and the runner's buffers match the expected ones.
#[test]
fn spill_slots_past_local_memory_run_from_device_memory() {
    let path = harness::repo_root().join("tests/corpus/scratch_spill.test");
    let test = run::load_test_file(&path).expect("test loads");
    for isa in [Isa::Wave, Isa::Wave012] {
        for opt in [OptLevel::O0, OptLevel::O] {
            let mut opts = RunOptions::new(preset("generic").expect("preset"));
            opts.compile.isa = isa;
            opts.compile.opt = opt;
            opts.compile.max_registers = Some(32);
            let what = format!("--isa {} {opt:?}", isa.name());
            let out = run::run_pipeline(&test, &opts);
            assert_eq!(out.exit_code, 0, "{what}:\n{}", out.stderr);
            assert!(out.stderr.contains("warning[W0403]"), "{what}: no scratch buffer:\n{}", out.stderr);
            let compiled = harness::compile_text("scratch_spill.hlsl", &test.source.text, &opts.compile);
            let scratch = compiled.interface.scratch.as_ref().expect("a scratch buffer in the ABI");
            // The address comes after the kernel's two buffers; 32 threads per group.
            assert_eq!((scratch.register, scratch.bytes_per_workgroup), (2, scratch.slots * 32 * 4), "{what}");
            assert!(compiled.asm.contains("device_store_u32") && compiled.spill.device_reloads > 0, "{what}");
        }
    }
}

#[test]
fn a_uniform_load_is_one_transaction_per_wave() {
    let text = "\
#--- source.hlsl
cbuffer Params : register(b0) { uint k; };
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(128, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = k + id.x; }
#--- pipeline.yaml
---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters:
  DispatchGroupCount: [1, 1, 1]
Buffers:
  - Name: Params
    Format: UInt32
    Data: [ 7 ]
  - Name: Out
    Format: UInt32
    FillSize: 512
DescriptorSets:
  - Resources:
    - Name: Params
      Kind: ConstantBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
...
#--- end
";
    let test = run::parse_test_text("uniform_load.test", text).expect("parses");
    for opt in [OptLevel::O0, OptLevel::O] {
        let mut opts = RunOptions::new(preset("generic").expect("generic"));
        opts.compile.opt = opt;
        let out = run::run_pipeline(&test, &opts);
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        let timing = out.stats.expect("ran").report.timing.expect("timed");
        let waves = 128 / 32;
        assert_eq!(timing.memory.device_load_instructions, waves, "{opt:?}: one load of k per wave");
        assert_eq!(timing.memory.load_transactions, waves, "{opt:?}: one transaction per uniform load");
    }
}

/// 16-bit packing changes where 16-bit values live, never what a kernel
/// computes: every `-enable-16bit-types` test gives the same final buffers
/// packed (halves on `wave`, `bfi` under pressure on `wave-0.1.2`), packed
/// without pairing (`--disable pair16`: no `hadd2`/`hmul2`/`hma2`) and with
/// `--disable pack16`, at -O and -O0, with no budget and at forced low
/// budgets, on both profiles, and every run matches the expected buffers.
#[test]
fn sixteen_bit_tests_give_the_same_buffers_packed_and_unpacked() {
    let mut failures = Vec::new();
    let (mut runs, mut kernels) = (0, 0);
    for path in all_tests() {
        let test = run::load_test_file(&path).expect("test loads");
        if !test.flags.enable_16bit_types {
            continue;
        }
        kernels += 1;
        let target = preset(target_for(&path)).expect("preset");
        for isa in [Isa::Wave, Isa::Wave012] {
            let Some(ml) = max_live(&test, &target, isa) else { continue };
            let mut budgets = vec![None];
            budgets.extend([ml.saturating_sub(1), ml / 2, 6].into_iter().filter(|&b| b >= 1 && b < ml).map(Some));
            budgets.dedup();
            for (opt, budget) in [OptLevel::O, OptLevel::O0].into_iter().flat_map(|o| budgets.iter().map(move |&b| (o, b))) {
                let variants: [&[&str]; 3] = [&[], &["pair16"], &["pack16"]];
                let outs: Vec<run::RunOutcome> = variants
                    .iter()
                    .map(|off| {
                        let mut opts = RunOptions::new(target.clone());
                        opts.compile.isa = isa;
                        opts.compile.opt = opt;
                        opts.compile.max_registers = budget;
                        for name in off.iter() {
                            assert!(opts.compile.disable(name), "{name} can be disabled");
                        }
                        run::run_pipeline(&test, &opts)
                    })
                    .collect();
                runs += outs.len();
                let what = format!("{} --isa {} {opt:?} --max-registers {budget:?}", path.display(), isa.name());
                let refused = |o: &run::RunOutcome| o.exit_code == 2 && o.stderr.contains("error[E0408]");
                if outs.iter().all(refused) {
                    continue;
                }
                if outs.iter().any(|o| o.exit_code != 0) || outs.iter().any(|o| o.stdout != outs[0].stdout) {
                    failures.push(format!(
                        "== {what}: exits {:?} (packed and paired, packed, unpacked)\n{}",
                        outs.iter().map(|o| o.exit_code).collect::<Vec<_>>(),
                        outs.iter().map(|o| o.stderr.trim_end()).collect::<Vec<_>>().join("\n")
                    ));
                }
            }
        }
    }
    eprintln!("{kernels} 16-bit tests, {runs} runs");
    assert!(kernels >= 7 && runs >= 24 * kernels, "only {kernels} 16-bit tests, {runs} runs");
    assert!(failures.is_empty(), "{} of {runs} runs failed:\n{}", failures.len(), failures.join("\n\n"));
}

/// addr16: n-body at 22 registers (`generic`) has a pressure peak of 24
/// where groupshared addresses of the tile (bounded by its size) are live;
/// computed in halves, the peak is 23 and the spill code shrinks to one
/// recomputation (the word form also needs a lane bank). The listing reads
/// halves, and the buffers equal those of `--disable addr16` and the expected
/// ones. (Blelloch's scan showed this at 10 registers until the IR passes saw
/// `--max-registers` as their budget: its peak came down to 11 without halves.)
#[test]
fn groupshared_addresses_in_halves_avoid_a_spill_and_match() {
    let path = harness::repo_root().join("examples/nbody.test");
    let test = run::load_test_file(&path).expect("test loads");
    let target = preset("generic").expect("preset");
    let outs: Vec<run::RunOutcome> = [true, false]
        .into_iter()
        .map(|narrow| {
            let mut opts = RunOptions::new(target.clone());
            opts.compile.opt = OptLevel::O;
            opts.compile.max_registers = Some(22);
            if !narrow {
                opts.compile.disable("addr16");
            }
            run::run_pipeline(&test, &opts)
        })
        .collect();
    assert!(outs.iter().all(|o| o.exit_code == 0), "{}\n{}", outs[0].stderr, outs[1].stderr);
    assert_eq!(outs[0].stdout, outs[1].stdout);
    // Compiled as `wavec run` compiles it (the test's flags and pipeline applied).
    let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
    let compile = |narrow: bool| {
        let mut opts = wavec::driver::CompileOptions::new(target.clone());
        opts.opt = OptLevel::O;
        opts.max_registers = Some(22);
        test.flags.apply(&mut opts);
        run::apply_pipeline(&pipeline, &mut opts);
        if !narrow {
            opts.disable("addr16");
        }
        let c = wavec::driver::compile_input(&test.input(), &opts, true);
        c.result.unwrap_or_else(|d| panic!("{}", wavec::diag::render(&c.sources, &d)))
    };
    let (on, off) = (compile(true), compile(false));
    // An operand `rN.lo` / `rN.hi` in an instruction.
    let halves = |asm: &str| {
        asm.lines().map(|l| l.split(';').next().unwrap_or("")).any(|code| {
            code.split([' ', ',']).any(|t| {
                let t = t.strip_prefix('r').unwrap_or("");
                (t.ends_with(".lo") || t.ends_with(".hi")) && t.len() > 3 && t[..t.len() - 3].bytes().all(|b| b.is_ascii_digit())
            })
        })
    };
    assert!(halves(&on.asm), "{}", on.asm);
    assert!(!halves(&off.asm), "{}", off.asm);
    let spill_code = |c: &wavec::driver::Compiled| {
        let s = &c.spill;
        s.stores + s.reloads + s.remats + s.bank_writes + s.bank_reads + s.group_stores + s.group_reloads
    };
    assert!(spill_code(&on) < spill_code(&off), "{}\n{}", on.asm, off.asm);
}

/// Where a block must spill whatever its order, the scheduler weighs latency
/// against what there is to spill, and the back end allocates the lowest-peak
/// orders too and keeps the better result. Before, the lowest peak always won:
/// conv_rgba_8tap at gcn target 5 ran 36092 cycles against 17855 unscheduled
/// (its unrolled loads serialized to save two registers of spilling).
#[test]
fn scheduling_at_a_spilling_budget_keeps_loads_together() {
    let test = run::load_test_file(&harness::repo_root().join("benches/kernels/conv_rgba_8tap.test")).expect("test loads");
    let cycles = |schedule: bool| {
        let mut opts = RunOptions::new(preset("gcn").expect("preset"));
        opts.compile.opt = OptLevel::O;
        opts.compile.target_occupancy = Some(5);
        opts.compile.schedule = schedule;
        // IEEE denormals (the quality table's setting; the run's D3D flush adds
        // instructions that change this kernel's blocks).
        opts.compile.denorm = wavec::options::Denorm::Preserve;
        let out = run::run_pipeline(&test, &opts);
        assert_eq!(out.exit_code, 0, "{}", out.stderr);
        out.stats.expect("ran").report.timing.expect("timed").cycles
    };
    let (on, off) = (cycles(true), cycles(false));
    assert!(on <= off, "{on} cycles scheduled, {off} without");
}
