//! Interop with the published WAVE toolchain: every execution test compiled with
//! `--isa wave-0.1.2` (at -O0 and -O) is assembled by wave-asm 0.1.2 and run
//! in-process on wave-emu 0.1.2, and must produce the expected buffers. The same
//! listing also runs on our simulator, whose buffers must agree with wave-emu's.

use std::path::PathBuf;
use wavec::driver::{Isa, OptLevel};
use wavec::run;
use wavec_tests::*;

fn execution_tests() -> Vec<PathBuf> {
    let mut v = files_with_ext("tests/corpus", "test");
    v.extend(files_with_ext("examples", "test"));
    v
}

#[test]
fn execution_tests_pass_on_wave_emu_0_1_2() {
    let tests = execution_tests();
    assert!(tests.len() >= 12, "only {} execution tests", tests.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in tests {
        let test = run::load_test_file(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        let pipeline = run::parse_pipeline(&test.pipeline_text).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        for opt in [OptLevel::O0, OptLevel::O] {
            let mut opts = options(Isa::Wave012, opt);
            opts.entry = pipeline.shader.entry.clone();
            let compiled = compile_text(&test.source.name, &test.source.text, &opts);
            let label = format!("{} ({opt:?})", path.display());
            let emu = match run_on_wave_emu(&pipeline, &compiled, 50_000_000) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            for check in &emu.results {
                checked += 1;
                let c = run::compare(check.rule, &emu.buffers[check.actual], &emu.buffers[check.expected]);
                if !c.passed() {
                    failures.push(format!(
                        "{label}: wave-emu result `{}` does not match:\n{}",
                        check.name,
                        run::describe_mismatch(check, &c, &emu.buffers[check.actual], &emu.buffers[check.expected])
                    ));
                }
            }
            // Our simulator on the same listing must leave the same bytes.
            let mut ropts = run::RunOptions::new(opts.target.clone());
            ropts.compile = opts.clone();
            let ours = run::execute(&pipeline, &compiled, &test.source, &ropts);
            if ours.exit_code != 0 {
                failures.push(format!("{label}: wavesim exit {}:\n{}", ours.exit_code, ours.stderr));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(checked >= 24, "only {checked} results were checked on wave-emu");
    eprintln!("{checked} results matched on wave-emu 0.1.2");
}

/// The check above can fail: a spec-profile listing (destination-first integer
/// `cvt` names) computes different casts on wave-emu 0.1.2.
#[test]
fn wave_emu_notices_the_spec_cvt_spelling() {
    let path = repo_root().join("tests/corpus/casts.test");
    let test = run::load_test_file(&path).expect("casts.test");
    let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline");
    let mut opts = options(Isa::Wave, OptLevel::O);
    opts.entry = pipeline.shader.entry.clone();
    let compiled = compile_text(&test.source.name, &test.source.text, &opts);
    let emu = run_on_wave_emu(&pipeline, &compiled, 50_000_000).expect("runs");
    let all_pass = emu.results.iter().all(|c| run::compare(c.rule, &emu.buffers[c.actual], &emu.buffers[c.expected]).passed());
    assert!(!all_pass, "wave-emu 0.1.2 should disagree with spec-v0.4 cvt names");
}
