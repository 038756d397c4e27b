//! What the IR passes buy, over the execution tests (examples and the core
//! corpus, run on the simulator): static instructions of the listings,
//! wave-instructions executed, registers and simulated cycles, at -O0, at -O,
//! and at -O without each pass in turn (an ablation: the change a pass's
//! absence makes is what it buys in this pipeline).

use std::path::PathBuf;
use wavec::driver::{compile, OptLevel};
use wavec::run;

#[derive(Clone, Copy, Default)]
struct Totals {
    kernels: u32,
    static_insts: u64,
    dynamic: u64,
    registers: u64,
    cycles: u64,
    failed: u32,
}

/// Instruction lines of a listing (indented, not comments or directives).
fn static_count(asm: &str) -> u64 {
    asm.lines().filter(|l| l.starts_with("    ") && !l.trim_start().starts_with(';')).count() as u64
}

fn measure(tests: &[PathBuf], opt: OptLevel, disabled: &[&str]) -> Totals {
    measure_each(tests, opt, disabled).into_iter().fold(Totals::default(), |mut t, (_, k)| {
        t.kernels += k.kernels;
        t.static_insts += k.static_insts;
        t.dynamic += k.dynamic;
        t.registers += k.registers;
        t.cycles += k.cycles;
        t.failed += k.failed;
        t
    })
}

/// Per test: its name and figures (`kernels` is 1 when it compiled and ran).
fn measure_each(tests: &[PathBuf], opt: OptLevel, disabled: &[&str]) -> Vec<(String, Totals)> {
    let mut out = Vec::new();
    for path in tests {
        let mut t = Totals::default();
        let name = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let Ok(test) = run::load_test_file(path) else { continue };
        let mut ro = run::RunOptions::new(wavec::target::preset("generic").expect("generic"));
        ro.compile.opt = opt;
        ro.compile.disabled_passes = disabled.iter().map(|s| s.to_string()).collect();
        let mut copts = ro.compile.clone();
        test.flags.apply(&mut copts);
        let Ok(compiled) = compile(&test.source, &copts) else { continue };
        let outcome = run::run_pipeline(&test, &ro);
        let Some(stats) = outcome.stats.as_ref() else { continue };
        if outcome.exit_code != 0 {
            t.failed += 1;
        }
        t.kernels += 1;
        t.static_insts += static_count(&compiled.asm);
        t.dynamic += stats.sim.wave_instructions;
        t.registers += compiled.interface.registers as u64;
        t.cycles += stats.sim.cycles;
        out.push((name, t));
    }
    out
}

pub fn report(tests: &[PathBuf]) {
    println!("{:<22} {:>15} {:>19} {:>9}", "kernel", "static -O0/-O", "dynamic -O0/-O", "registers");
    let o0 = measure_each(tests, OptLevel::O0, &[]);
    for ((name, a), (_, b)) in o0.iter().zip(measure_each(tests, OptLevel::O, &[])) {
        println!(
            "{name:<22} {:>7}/{:<7} {:>9}/{:<9} {:>4}/{:<4}",
            a.static_insts, b.static_insts, a.dynamic, b.dynamic, a.registers, b.registers
        );
    }
    let o = measure(tests, OptLevel::O, &[]);
    let rel = |x: u64, base: u64| 100.0 * (x as f64 - base as f64) / base.max(1) as f64;
    let row = |name: &str, t: &Totals| {
        println!(
            "{:<28} {:>8} {:>+7.1}% {:>10} {:>+7.1}% {:>6} {:>+7.1}% {:>10} {:>+7.1}%{}",
            name,
            t.static_insts,
            rel(t.static_insts, o.static_insts),
            t.dynamic,
            rel(t.dynamic, o.dynamic),
            t.registers,
            rel(t.registers, o.registers),
            t.cycles,
            rel(t.cycles, o.cycles),
            if t.failed > 0 { format!("  ({} runs failed their checks)", t.failed) } else { String::new() }
        );
    };
    println!("IR passes over {} execution tests (generic target, `wave`); each row against -O", o.kernels);
    println!("{:<28} {:>17} {:>19} {:>15} {:>19}", "pipeline", "static", "dynamic", "registers", "cycles");
    row("-O0", &measure(tests, OptLevel::O0, &[]));
    row("-O", &o);
    for p in wavec::passes::PASSES {
        row(&format!("-O without {}", p.name), &measure(tests, OptLevel::O, &[p.name]));
    }
}
