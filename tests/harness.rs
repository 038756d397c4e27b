//! Shared helpers for the workspace tests: finding the corpus, compiling it.

use std::path::{Path, PathBuf};
use wave_emu::{Emulator, EmulatorConfig};
use wavec::diag::{render, SourceFile};
use wavec::driver::{compile_with, CompileOptions, Compiled, Isa, OptLevel};
use wavec::run::{self, Pipeline};
use wavec::target;

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Files in `dir` (relative to the root) ending in `.ext`, sorted for determinism.
pub fn files_with_ext(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == ext)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Options for the `generic` target.
pub fn options(isa: Isa, opt: OptLevel) -> CompileOptions {
    let mut o = CompileOptions::new(target::preset("generic").expect("generic target"));
    o.isa = isa;
    o.opt = opt;
    o
}

/// Compiles `text` with the IR verifier after every pass; panics with rendered diagnostics on failure.
pub fn compile_text(name: &str, text: &str, opts: &CompileOptions) -> Compiled {
    let file = SourceFile::new(name, text);
    match compile_with(&file, opts, true) {
        Ok(c) => c,
        Err(d) => panic!("{name} failed to compile:\n{}", render(&file, &d)),
    }
}

/// A short, stable name for a path: `examples/saxpy.hlsl` -> `examples__saxpy`.
pub fn snapshot_name(path: &Path) -> String {
    let rel = path.strip_prefix(repo_root()).unwrap_or(path);
    rel.with_extension("").to_string_lossy().replace(['/', '\\'], "__")
}

/// Assembles `compiled` (a `wave-0.1.2` listing) with wave-asm 0.1.2, runs it
/// in-process on wave-emu 0.1.2 over `pipeline` with 32-lane waves, and returns
/// the pipeline with every placed buffer read back.
pub fn run_on_wave_emu(pipeline: &Pipeline, compiled: &Compiled, max_instructions: u64) -> Result<Pipeline, String> {
    run_on_wave_emu_with(pipeline, compiled, max_instructions, &[])
}

/// [`run_on_wave_emu`] with some argument registers set to other values: `(register, value)`.
pub fn run_on_wave_emu_with(
    pipeline: &Pipeline,
    compiled: &Compiled,
    max_instructions: u64,
    set: &[(u32, u32)],
) -> Result<Pipeline, String> {
    let binary =
        wave_asm::assemble(&compiled.asm, &compiled.interface.kernel).map_err(|e| format!("wave-asm rejected the listing: {e}"))?.binary;
    let layout = run::layout(pipeline, &compiled.interface).map_err(|e| e.message)?;
    let mem = layout.memory(pipeline);
    let config = EmulatorConfig {
        grid_dim: pipeline.dispatch,
        workgroup_dim: compiled.interface.workgroup_size,
        register_count: compiled.interface.registers,
        device_memory_size: mem.bytes.len().max(16),
        wave_width: 32,
        max_instructions,
        initial_registers: layout.args.iter().map(|&(r, v)| (r as u8, set.iter().find(|s| s.0 == r).map_or(v, |s| s.1))).collect(),
        ..EmulatorConfig::default()
    };
    let mut emu = Emulator::new(config);
    emu.load_binary(&binary).map_err(|e| format!("wave-emu load: {e:?}"))?;
    emu.load_device_memory(0, &mem.bytes).map_err(|e| format!("wave-emu memory: {e:?}"))?;
    emu.run().map_err(|e| format!("wave-emu run: {e:?}"))?;
    layout.read_back(pipeline, |at, n| emu.read_device_memory(at as u64, n).map_err(|e| format!("wave-emu read: {e:?}")))
}

/// A small deterministic random generator (xorshift), so failures reproduce from their seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Spread small seeds; xorshift must not start at 0.
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xd1b5_4a32_d192_ed03);
        for _ in 0..4 {
            r.next();
        }
        r
    }
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A listing compiled from IR text (no front end): the back end's tests.
pub struct IrListing {
    pub asm: String,
    pub interface: wavec::interface::KernelInterface,
}

/// Compiles IR `text` for `isa` and `target` with `threads` threads per group:
/// verify, uniformity, selection, register allocation, listing. Panics if the
/// IR does not parse or verify; back-end refusals come back as the diagnostic.
pub fn compile_ir(text: &str, isa: Isa, target_name: &str, threads: u32) -> Result<IrListing, wavec::diag::Diagnostic> {
    let f = wavec::ir::parse_function(text).unwrap_or_else(|e| panic!("IR does not parse: {e}\n{text}"));
    if let Err(e) = wavec::ir::verify(&f) {
        panic!("IR does not verify: {e:?}\n{text}");
    }
    let t = target::preset(target_name).expect("a target preset");
    let alloc = wavec::regalloc::AllocOptions::new(isa, t.wave_width);
    let (asm, interface) = wavec::driver::compile_ir(&f, text, &alloc, &t, threads)?;
    Ok(IrListing { asm, interface })
}

/// Runs a `wave-0.1.2` listing on wave-emu 0.1.2 with `r0` = 0, `groups`
/// groups and `wave_width` lanes per wave over `memory`; returns the memory after.
pub fn run_listing_on_wave_emu(l: &IrListing, groups: u32, wave_width: u32, memory: &[u8]) -> Result<Vec<u8>, String> {
    let binary = wave_asm::assemble(&l.asm, &l.interface.kernel).map_err(|e| format!("wave-asm rejected the listing: {e}"))?.binary;
    let config = EmulatorConfig {
        grid_dim: [groups, 1, 1],
        workgroup_dim: l.interface.workgroup_size,
        register_count: l.interface.registers,
        device_memory_size: memory.len(),
        wave_width,
        max_instructions: 50_000_000,
        initial_registers: vec![(0, 0)],
        ..EmulatorConfig::default()
    };
    let mut emu = Emulator::new(config);
    emu.load_binary(&binary).map_err(|e| format!("wave-emu load: {e:?}"))?;
    emu.load_device_memory(0, memory).map_err(|e| format!("wave-emu memory: {e:?}"))?;
    emu.run().map_err(|e| format!("wave-emu run: {e:?}"))?;
    emu.read_device_memory(0, memory.len()).map_err(|e| format!("wave-emu read: {e:?}"))
}

/// Runs a listing on wavesim (the profile of `isa`) the same way.
pub fn run_listing_on_wavesim(l: &IrListing, isa: Isa, groups: u32, wave_width: u32, memory: &[u8]) -> Result<Vec<u8>, String> {
    let program = wavesim::parse(&l.asm, isa.sim_profile()).map_err(|e| format!("wavesim rejected the listing: {e}"))?;
    // Functional comparison only: the cycle model is off (it never changes buffers).
    let cfg = wavesim::SimConfig {
        wave_width,
        profile: isa.sim_profile(),
        max_instructions: 50_000_000,
        local_memory_limit: 65536,
        timing: false,
        machine: wavesim::Machine::default(),
        registers_for_occupancy: None,
        strict: false,
        threads: 1,
        wide_waves: true,
        full_wave_ops: false,
    };
    let launch = wavesim::Launch { grid: [groups, 1, 1], workgroup_size: l.interface.workgroup_size, args: vec![(0, 0)] };
    let mut mem = wavesim::Memory { bytes: memory.to_vec() };
    wavesim::run(&program.kernels[0], &cfg, &launch, &mut mem).map_err(|e| format!("wavesim: {e}"))?;
    Ok(mem.bytes)
}
