//! Interop with the published WAVE toolchain: every execution test compiled with
//! `--isa wave-0.1.2` (at -O0 and -O) is assembled by wave-asm 0.1.2 and run
//! in-process on wave-emu 0.1.2, and must produce the expected buffers. The same
//! listing also runs on our simulator, whose buffers must agree with wave-emu's.

use std::path::PathBuf;
use wave_emu::{Emulator, EmulatorConfig};
use wavec::driver::{Isa, OptLevel};
use wavec::run::{self, Pipeline};
use wavec_tests::*;

fn execution_tests() -> Vec<PathBuf> {
    let mut v = files_with_ext("tests/corpus", "test");
    v.extend(files_with_ext("examples", "test"));
    v
}

/// Runs the assembled binary on wave-emu 0.1.2; returns the final pipeline buffers.
fn run_on_wave_emu(name: &str, asm: &str, pipeline: &Pipeline, compiled: &wavec::driver::Compiled) -> Result<Pipeline, String> {
    let binary = wave_asm::assemble(asm, name).map_err(|e| format!("wave-asm rejected the listing: {e}"))?.binary;
    let layout = run::layout(pipeline, &compiled.interface).map_err(|e| e.message)?;
    let mem = layout.memory(pipeline);
    let config = EmulatorConfig {
        grid_dim: pipeline.dispatch,
        workgroup_dim: compiled.interface.workgroup_size,
        register_count: compiled.interface.registers,
        device_memory_size: mem.bytes.len().max(16),
        wave_width: 32,
        max_instructions: 50_000_000,
        initial_registers: layout.args.iter().map(|&(r, v)| (r as u8, v)).collect(),
        ..EmulatorConfig::default()
    };
    let mut emu = Emulator::new(config);
    emu.load_binary(&binary).map_err(|e| format!("wave-emu load: {e:?}"))?;
    emu.load_device_memory(0, &mem.bytes).map_err(|e| format!("wave-emu memory: {e:?}"))?;
    emu.run().map_err(|e| format!("wave-emu run: {e:?}"))?;
    let mut out = pipeline.clone();
    for pl in &layout.placements {
        let bytes = emu.read_device_memory(pl.address as u64, pl.size as usize).map_err(|e| format!("wave-emu read: {e:?}"))?;
        out.buffers[pl.buffer].data = bytes;
    }
    Ok(out)
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
            let emu = match run_on_wave_emu(&test.source.name, &compiled.asm, &pipeline, &compiled) {
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
    let emu = run_on_wave_emu(&test.source.name, &compiled.asm, &pipeline, &compiled).expect("runs");
    let all_pass = emu.results.iter().all(|c| run::compare(c.rule, &emu.buffers[c.actual], &emu.buffers[c.expected]).passed());
    assert!(!all_pass, "wave-emu 0.1.2 should disagree with spec-v0.4 cvt names");
}
