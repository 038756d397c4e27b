//! wavec benchmarks: code quality per kernel and speed ratios measured in one process.
//!
//!     cargo run --release -p wavec-benches            # everything
//!     cargo run --release -p wavec-benches -- quality # registers, MaxLive, spills, occupancy, cycles, ablation
//!     cargo run --release -p wavec-benches -- quality --write  # the same into benches/results/quality.{md,json}
//!     cargo run --release -p wavec-benches -- speed   # compile time, simulator vs wave-emu 0.1.2
//!     cargo run --release -p wavec-benches -- compile # the compile-time part alone
//!     cargo run --release -p wavec-benches -- passes  # what each IR pass buys (ablation)
//!     cargo run --release -p wavec-benches -- sim     # the simulator part alone
//!     cargo run --release -p wavec-benches -- sim-dump DIR  # its kernels as `wavesim` inputs (profiling)
//!
//! Figures are reported, never asserted: speed is given as ratios against a
//! reference run in the same process (the front end alone for compile time,
//! wave-emu 0.1.2 for the simulator).

mod compile_time;
mod passes_table;
mod quality;

use std::path::{Path, PathBuf};
use std::time::Instant;
use wavec::diag::SourceFile;
use wavec::driver::{compile, CompileOptions, Isa, OptLevel};
use wavec::run;

pub(crate) fn root() -> PathBuf {
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
    compile_speed();
    sim_speed();
}

/// Compile time: the examples and corpus, small kernels, growth with size, the GEMM.
fn compile_speed() {
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
}

/// A kernel for the simulator benchmark: HLSL whose first resource is a cbuffer,
/// then `buffers` buffers of `n` 32-bit words each.
struct SimBench {
    name: &'static str,
    what: &'static str,
    src: &'static str,
    /// Threads (the dispatch is `n / 64` groups of 64).
    n: u32,
    cbuffer: [u32; 4],
    buffers: u32,
}

const ALU_BOUND: &str = "cbuffer P : register(b0) { float a; float b; uint n; };
RWStructuredBuffer<float> Y : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < n) {
        float ca = a;
        float cb = b;
        float x = Y[id.x];
        float y = x * ca;
        [unroll] for (int k = 0; k < 24; k++) { x = x * y + cb; y = y * x + ca; }
        Y[id.x] = x + y;
    }
}
";

const MEMORY_BOUND: &str = "cbuffer P : register(b0) { float a; uint n; };
StructuredBuffer<float> X : register(t0);
RWStructuredBuffer<float> Y : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < n) { Y[id.x] = a * X[id.x] + Y[id.x]; }
}
";

const LOOP_HEAVY: &str = "cbuffer P : register(b0) { uint n; };
RWStructuredBuffer<uint> Y : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < n) {
        uint x = id.x + 1;
        uint steps = 0;
        [loop] while (x != 1 && steps < 300) {
            x = (x & 1) != 0 ? 3 * x + 1 : x / 2;
            steps++;
        }
        Y[id.x] = steps;
    }
}
";

fn sim_benches() -> Vec<SimBench> {
    let f = |x: f32| x.to_bits();
    vec![
        SimBench {
            name: "alu",
            what: "96 dependent float ops per thread",
            src: ALU_BOUND,
            n: 1 << 18,
            cbuffer: [f(1.0001), f(0.5), 1 << 18, 0],
            buffers: 1,
        },
        SimBench { name: "memory", what: "saxpy", src: MEMORY_BOUND, n: 1 << 20, cbuffer: [f(2.0), 1 << 20, 0, 0], buffers: 2 },
        SimBench {
            name: "loop",
            what: "collatz steps, divergent loop",
            src: LOOP_HEAVY,
            n: 1 << 16,
            cbuffer: [1 << 16, 0, 0, 0],
            buffers: 1,
        },
    ]
}

/// Ten runs (`WAVESIM_REPS`) of wavesim on benchmark kernel `name` (for a profiler),
/// on the generic machine model or the one `WAVESIM_TARGET` names.
fn sim_profile(name: &str, timed: bool) {
    // WAVESIM_TARGET picks another machine model (the listing stays the generic one).
    let name_of_target = std::env::var("WAVESIM_TARGET").unwrap_or_else(|_| "generic".into());
    let Some(target) = wavec::target::preset(&name_of_target) else {
        eprintln!("no target `{name_of_target}`");
        return;
    };
    let Some(b) = sim_benches().into_iter().find(|b| b.name == name) else {
        eprintln!("no benchmark kernel `{name}`");
        return;
    };
    let (c, mem, launch) = prepare(&b);
    let program = wavesim::parse(&c.asm, wavesim::Profile::Toolchain012).expect("listing parses");
    let kernel = program.kernel("main").expect("kernel");
    let mut cfg = run::sim_config(&target, Isa::Wave012, &c.occupancy, 0);
    cfg.timing = timed;
    cfg.threads = std::env::var("WAVESIM_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(0);
    let reps = std::env::var("WAVESIM_REPS").ok().and_then(|t| t.parse().ok()).unwrap_or(10);
    for _ in 0..reps {
        let mut m = mem.clone();
        let _ = wavesim::run(kernel, &cfg, &launch, &mut m);
    }
}

/// Write each benchmark kernel's listing, machine, initial memory and a `wavesim`
/// command line into `dir`, so the simulator can be profiled without the compiler.
fn sim_dump(dir: &Path) -> std::io::Result<()> {
    let target = wavec::target::preset("generic").expect("generic");
    std::fs::create_dir_all(dir)?;
    for b in sim_benches() {
        let (c, mem, launch) = prepare(&b);
        let base = dir.join(b.name);
        std::fs::write(base.with_extension("wave"), &c.asm)?;
        std::fs::write(base.with_extension("machine"), target.machine(None).to_string())?;
        std::fs::write(base.with_extension("mem"), &mem.bytes)?;
        let regs: Vec<String> = launch.args.iter().map(|(r, v)| format!("--reg {r}={v}")).collect();
        let [x, y, z] = launch.grid;
        let [wx, wy, wz] = launch.workgroup_size;
        std::fs::write(
            base.with_extension("args"),
            format!(
                "{}.wave --profile 0.1.2 --wave-width {} --grid {x},{y},{z} --workgroup {wx},{wy},{wz} --memory {} --load 0={}.mem {}\n",
                base.display(),
                target.wave_width,
                mem.bytes.len(),
                base.display(),
                regs.join(" ")
            ),
        )?;
    }
    Ok(())
}

/// The compiled kernel, initial memory and launch of a benchmark kernel.
fn prepare(b: &SimBench) -> (wavec::driver::Compiled, wavesim::Memory, wavesim::Launch) {
    let file = SourceFile::new(format!("{}.hlsl", b.name), b.src);
    let c = compile(&file, &options(Isa::Wave012, OptLevel::O)).unwrap_or_else(|d| panic!("{}: does not compile: {d:?}", b.name));
    let words = b.n as usize;
    let mut mem = wavesim::Memory::new(64 + 4 * words * b.buffers as usize);
    for (i, w) in b.cbuffer.iter().enumerate() {
        mem.bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    for (i, chunk) in mem.bytes[64..].chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&((i % 1000) as f32 * 0.25).to_bits().to_le_bytes());
    }
    let mut args = vec![(0u32, 0u32)];
    args.extend((0..b.buffers).map(|k| (k + 1, 64 + 4 * b.n * k)));
    let launch = wavesim::Launch { grid: [b.n / 64, 1, 1], workgroup_size: c.interface.workgroup_size, args };
    (c, mem, launch)
}

/// Simulated wave-instructions per second of wavesim (cycle model off and on) and of
/// wave-emu 0.1.2, on the same `--isa wave-0.1.2` listings and inputs, in one process.
fn sim_speed() {
    let target = wavec::target::preset("generic").expect("generic");
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!(
        "simulator speed: wave-instructions per second, compat profile (--isa wave-0.1.2), target generic; \
         best of {REPS} interleaved runs, each timing the simulation call alone (memory set-up outside the clock); ratios against wave-emu 0.1.2 (1 thread); wavesim on 1 thread and on {threads}"
    );
    println!(
        "{:<7} {:>9} {:>10} | {:>9} {:>6} {:>9} {:>6} | {:>9} {:>6} {:>9} {:>6}",
        "kernel", "wave-ins", "wave-emu/s", "fast 1t/s", "ratio", "fast/s", "ratio", "timed 1t/s", "ratio", "timed/s", "ratio"
    );
    for b in sim_benches() {
        let (c, mem, launch) = prepare(&b);
        let (grid, args) = (launch.grid, launch.args.clone());
        let program = wavesim::parse(&c.asm, wavesim::Profile::Toolchain012).expect("listing parses");
        let kernel = program.kernel("main").expect("kernel");
        let base = run::sim_config(&target, Isa::Wave012, &c.occupancy, 0);
        let binary = wave_asm::assemble(&c.asm, "bench.wave").expect("wave-asm accepts the listing").binary;
        // Variants: (cycle model, threads); index 4 is wave-emu.
        let variants = [(false, 1), (false, 0), (true, 1), (true, 0)];
        let mut best = [f64::INFINITY; 5];
        let (mut ins, mut cycles, mut ours_mem) = (0, 0, Vec::new());
        let (mut theirs_ins, mut theirs_mem) = (0, Vec::new());
        for _ in 0..REPS {
            for (i, &(timing, threads)) in variants.iter().enumerate() {
                let cfg = wavesim::SimConfig { timing, threads, ..base.clone() };
                // The clock covers the simulation alone, on both sides: copying the
                // input memory in (and wave-emu's out) is set-up, not simulation.
                let mut m = mem.clone();
                let t = Instant::now();
                let st = wavesim::run(kernel, &cfg, &launch, &mut m).expect("runs");
                best[i] = best[i].min(t.elapsed().as_secs_f64());
                ins = st.wave_instructions;
                if timing {
                    cycles = st.cycles;
                } else {
                    ours_mem = m.bytes;
                }
            }
            let mut emu = wave_emu::Emulator::new(wave_emu::EmulatorConfig {
                grid_dim: grid,
                workgroup_dim: c.interface.workgroup_size,
                wave_width: target.wave_width,
                device_memory_size: mem.bytes.len(),
                max_instructions: 0,
                initial_registers: args.iter().map(|&(r, v)| (r as u8, v)).collect(),
                ..wave_emu::EmulatorConfig::default()
            });
            emu.load_binary(&binary).expect("binary loads");
            emu.load_device_memory(0, &mem.bytes).expect("memory loads");
            let t = Instant::now();
            theirs_ins = emu.run().map(|r| r.stats.instructions_executed).unwrap_or(0);
            best[4] = best[4].min(t.elapsed().as_secs_f64());
            theirs_mem = emu.read_device_memory(0, mem.bytes.len()).unwrap_or_default();
        }
        let rate = |t: f64| ins as f64 / t;
        let theirs = best[4];
        println!(
            "{:<7} {:>9} {:>10.3e} | {:>9.3e} {:>5.1}x {:>9.3e} {:>5.1}x | {:>9.3e} {:>5.1}x {:>9.3e} {:>5.1}x  {} ({} threads, {cycles} cycles)",
            b.name,
            ins,
            rate(theirs),
            rate(best[0]),
            theirs / best[0],
            rate(best[1]),
            theirs / best[1],
            rate(best[2]),
            theirs / best[2],
            rate(best[3]),
            theirs / best[3],
            b.what,
            b.n
        );
        if theirs_ins != ins || theirs_mem != ours_mem {
            println!(
                "  warning: wave-emu executed {theirs_ins} wave-instructions and its memory {} ours",
                if theirs_mem == ours_mem { "matches" } else { "differs from" }
            );
        }
    }
}

/// Interleaved repetitions of each simulator run (the best counts).
const REPS: usize = 7;

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    if what.is_empty() || what == "quality" {
        quality::report(&root(), std::env::args().any(|a| a == "--write"));
    }
    if what.is_empty() || what == "speed" {
        speed();
    }
    if what.is_empty() || what == "passes" {
        passes_table::report(&tests());
    }
    if what == "compile" {
        compile_speed();
    }
    if what == "sim" {
        sim_speed();
    }
    if what == "sim-dump" {
        // `sim-dump DIR`: the benchmark kernels as `wavesim` inputs (DIR/NAME.args
        // holds the command line; add `--machine DIR/NAME.machine` for the cycle model).
        let dir = std::env::args().nth(2).unwrap_or_else(|| "sim-bench".into());
        if let Err(e) = sim_dump(Path::new(&dir)) {
            eprintln!("sim-dump: {e}");
        }
    }
    if what == "sim-profile" {
        // For a profiler: `sim-profile KERNEL timed|fast`, wavesim alone, ten runs
        // (WAVESIM_THREADS sets the thread count, WAVESIM_TARGET the machine model).
        let args: Vec<String> = std::env::args().collect();
        sim_profile(args.get(2).map(String::as_str).unwrap_or("memory"), args.get(3).map(String::as_str) == Some("timed"));
    }
}
