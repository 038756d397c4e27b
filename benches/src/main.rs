//! wavec benchmarks: code quality per kernel and speed ratios measured in one process.
//!
//!     cargo run --release -p wavec-benches            # everything
//!     cargo run --release -p wavec-benches -- quality # registers, MaxLive, occupancy, cycles
//!     cargo run --release -p wavec-benches -- speed   # compile time, simulator vs wave-emu 0.1.2
//!     cargo run --release -p wavec-benches -- passes  # what each IR pass buys (ablation)
//!
//! Figures are reported, never asserted: speed is given as ratios against a
//! reference run in the same process (the front end alone for compile time,
//! wave-emu 0.1.2 for the simulator).

mod compile_time;
mod passes_table;

use std::path::{Path, PathBuf};
use std::time::Instant;
use wavec::diag::SourceFile;
use wavec::driver::{compile, CompileOptions, Isa, OptLevel};
use wavec::run;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("benches/ has a parent").to_path_buf()
}

fn tests() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["tests/corpus", "examples"] {
        if let Ok(rd) = std::fs::read_dir(root().join(dir)) {
            v.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "test")));
        }
    }
    v.sort();
    v
}

fn options(isa: Isa, opt: OptLevel) -> CompileOptions {
    let mut o = CompileOptions::new(wavec::target::preset("generic").expect("generic"));
    o.isa = isa;
    o.opt = opt;
    o
}

/// Registers against MaxLive, occupancy and simulated cycles for every execution test.
fn quality() {
    // No spill column yet: the allocator refuses kernels that do not fit instead of spilling.
    println!("{:<16} {:>4} {:>7} {:>5} {:>6} {:>9} {:>9}", "kernel", "opt", "regs", "max", "occ", "cycles", "wave-ins");
    let (mut regs_total, mut live_total) = (0u32, 0u32);
    for path in tests() {
        let test = match run::load_test_file(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: {}", path.display(), e.message);
                continue;
            }
        };
        let name = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        for opt in [OptLevel::O0, OptLevel::O] {
            let mut ro = run::RunOptions::new(wavec::target::preset("generic").expect("generic"));
            ro.compile = options(Isa::Wave, opt);
            let compiled = match compile(&test.source, &ro.compile) {
                Ok(c) => c,
                Err(_) => continue,
            };
            let outcome = run::run_pipeline(&test, &ro);
            let (cycles, ins) = outcome.stats.as_ref().map(|s| (s.sim.cycles, s.sim.wave_instructions)).unwrap_or((0, 0));
            println!(
                "{:<16} {:>4} {:>7} {:>5} {:>6} {:>9} {:>9}",
                name,
                if opt == OptLevel::O { "-O" } else { "-O0" },
                compiled.interface.registers,
                compiled.max_live,
                compiled.occupancy.waves_per_core,
                cycles,
                ins
            );
            if opt == OptLevel::O {
                regs_total += compiled.interface.registers;
                live_total += compiled.max_live;
            }
        }
    }
    println!(
        "-O totals: {regs_total} registers for a MaxLive of {live_total} (ratio {:.3}; 1.000 is the limit)",
        regs_total as f64 / live_total.max(1) as f64
    );
}

/// Best of `n` timings of `f`, in seconds.
pub(crate) fn best_of(n: usize, mut f: impl FnMut()) -> f64 {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn speed() {
    // Compile time, relative to the front end alone on the same sources.
    let sources: Vec<SourceFile> = tests().iter().filter_map(|p| run::load_test_file(p).ok()).map(|t| t.source).collect();
    let opts = options(Isa::Wave, OptLevel::O);
    let front = best_of(5, || {
        for s in &sources {
            let _ = wavec::frontend::analyze(s, None);
        }
    });
    let full = best_of(5, || {
        for s in &sources {
            let _ = compile(s, &opts);
        }
    });
    println!(
        "compile: {} kernels in {:.2} ms ({:.3} ms per kernel); full pipeline / front end = {:.2}",
        sources.len(),
        full * 1e3,
        full * 1e3 / sources.len().max(1) as f64,
        full / front
    );
    compile_time::report(&opts);

    // Simulator against wave-emu 0.1.2 on one large saxpy, same listing, same inputs.
    let src = "cbuffer P : register(b0) { float a; uint n; };\nStructuredBuffer<float> X : register(t0);\nRWStructuredBuffer<float> Y : register(u0);\n[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n    if (id.x < n) { Y[id.x] = a * X[id.x] + Y[id.x]; }\n}\n";
    let file = SourceFile::new("saxpy.hlsl", src);
    let c = match compile(&file, &options(Isa::Wave012, OptLevel::O)) {
        Ok(c) => c,
        Err(_) => {
            eprintln!("saxpy failed to compile");
            return;
        }
    };
    let n: u32 = 1 << 20;
    let (x_at, y_at) = (16u32, 16 + 4 * n);
    let mut mem = wavesim::Memory::new((16 + 8 * n) as usize);
    mem.bytes[0..4].copy_from_slice(&2.0f32.to_bits().to_le_bytes());
    mem.bytes[4..8].copy_from_slice(&n.to_le_bytes());
    let args = vec![(0u32, 0u32), (1, x_at), (2, y_at)];
    let grid = [n / 64, 1, 1];
    let program = wavesim::parse(&c.asm, wavesim::Profile::Toolchain012).expect("listing parses");
    let kernel = program.kernel("main").expect("kernel");
    let cfg = run::sim_config(&wavec::target::preset("generic").expect("generic"), Isa::Wave012, &c.occupancy, 0);
    let launch = wavesim::Launch { grid, workgroup_size: c.interface.workgroup_size, args: args.clone() };
    let mut ins = 0;
    let ours = best_of(3, || {
        let mut m = mem.clone();
        ins = wavesim::run(kernel, &cfg, &launch, &mut m).map(|s| s.wave_instructions).unwrap_or(0);
    });
    let binary = wave_asm::assemble(&c.asm, "saxpy.wave").expect("wave-asm accepts the listing").binary;
    let theirs = best_of(3, || {
        let mut emu = wave_emu::Emulator::new(wave_emu::EmulatorConfig {
            grid_dim: grid,
            workgroup_dim: c.interface.workgroup_size,
            device_memory_size: mem.bytes.len(),
            max_instructions: 0,
            initial_registers: args.iter().map(|&(r, v)| (r as u8, v)).collect(),
            ..wave_emu::EmulatorConfig::default()
        });
        emu.load_binary(&binary).expect("binary loads");
        emu.load_device_memory(0, &mem.bytes).expect("memory loads");
        let _ = emu.run();
    });
    println!(
        "simulator: saxpy over {n} threads, {ins} wave-instructions: wavesim {:.1} ms, wave-emu 0.1.2 {:.1} ms; wavesim / wave-emu time = {:.2}",
        ours * 1e3,
        theirs * 1e3,
        ours / theirs
    );
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    if what.is_empty() || what == "quality" {
        quality();
    }
    if what.is_empty() || what == "speed" {
        speed();
    }
    if what.is_empty() || what == "passes" {
        passes_table::report(&tests());
    }
}
