//! `wavec run`: execute pipeline tests (LLVM offload-test-suite format, design.md §8)
//! on the bundled simulator and check the expected buffers.
//!
//! Steps: compile the HLSL ([`crate::driver::compile`]), parse the listing with
//! `wavesim::parse`, lay the bound buffers out in flat device memory
//! ([`layout`], 16-byte aligned from address 0), launch the kernel over
//! `DispatchGroupCount` workgroups, read the buffers back, apply each `Results`
//! rule ([`compare`]) and print the pipeline again with the final buffer
//! contents ([`emit`]).
//!
//! Exit codes ([`RunOutcome::exit_code`]):
//! - 0: every result matched;
//! - 1: a result did not match (each mismatch is printed on stderr);
//! - 2: the test is wrong or does not compile (YAML errors, unknown buffers,
//!   a kernel resource no descriptor binds, compile errors, unreadable files);
//! - 3: the kernel faulted in the simulator (out of bounds, instruction limit, ...);
//! - 4: internal error: the simulator rejected the compiler's listing;
//! - 77: the test needs something wavec does not support (stage, format, kind, rule).

// The workspace's MSRV (1.80) predates `usize::is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]

pub mod advisor;
pub mod compare;
pub mod emit;
pub mod flags;
pub mod format;
pub mod gpu;
pub mod html;
pub mod html_advice;
pub mod layout;
pub mod pipeline;
pub mod report;
pub mod testfile;

use std::fmt::Write;

use crate::diag::{self, SourceFile, Sources};
use crate::driver::{self, CompileOptions, Compiled};
use crate::emit::listing_name;
use crate::target::{Occupancy, Target};

pub use compare::{compare, Comparison};
pub use format::Format;
pub use layout::{layout, MemoryLayout, Placement, BUFFER_ALIGN};
pub use pipeline::{parse_pipeline, Buffer, Pipeline, Rule};
pub use report::RunReport;
pub use testfile::{load_pair, load_pair_limited, load_test_file, load_test_file_limited, parse_test_text, PipelineTest};

pub const EXIT_PASS: i32 = 0;
pub const EXIT_MISMATCH: i32 = 1;
pub const EXIT_ERROR: i32 = 2;
pub const EXIT_FAULT: i32 = 3;
pub const EXIT_INTERNAL: i32 = 4;
pub const EXIT_UNSUPPORTED: i32 = 77;

/// Most mismatching elements printed per result before a count.
pub const MAX_REPORTED_MISMATCHES: usize = 20;

/// Default for [`RunOptions::max_instructions`].
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 50_000_000;

/// An error that ends a run with an exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub exit_code: i32,
    pub message: String,
}

impl RunError {
    /// The test itself is wrong (exit 2).
    pub fn invalid(message: impl Into<String>) -> RunError {
        RunError { exit_code: EXIT_ERROR, message: message.into() }
    }
    /// The test needs something wavec does not support (exit 77); the message says what.
    pub fn unsupported(what: impl Into<String>) -> RunError {
        RunError { exit_code: EXIT_UNSUPPORTED, message: format!("unsupported: {}", what.into()) }
    }
    pub fn into_outcome(self) -> RunOutcome {
        let prefix = if self.exit_code == EXIT_UNSUPPORTED { "" } else { "error: " };
        RunOutcome { exit_code: self.exit_code, stdout: String::new(), stderr: format!("{prefix}{}\n", self.message), stats: None }
    }
}

/// How to run a test.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Compiler options. `compile.entry` (from `-E`/`--entry`) overrides the YAML `Entry`.
    pub compile: CompileOptions,
    /// Wave-instructions one workgroup may issue before the run faults (0 = unlimited).
    pub max_instructions: u64,
    /// Print occupancy and simulator statistics on stderr (`--stats`).
    pub print_stats: bool,
    /// Echo buffers in the shortest exact spelling instead of the offloader's (`--exact`).
    pub exact_output: bool,
    /// When the kernel faults on an out-of-bounds buffer access, compile it again with
    /// `--robust-access` (D3D's robust buffer access, which HLSL code may rely on) and
    /// run that, with a warning naming the access (the CLI's default; `--strict-bounds` off).
    pub robust_retry: bool,
    /// Resolve `-denorm any` as D3D hardware does, flushing fp32 denormals (the CLI's
    /// default: the offload-test-suite's expectations assume it); otherwise as IEEE.
    pub d3d_denormals: bool,
    /// Run the cycle model (`--no-timing` turns it off; buffers are the same either way).
    pub timing: bool,
    /// Compute units of the simulated GPU (`--compute-units`; the target's count when None).
    pub compute_units: Option<u32>,
    /// What-if (`--registers N`): admit workgroups as if the kernel allocated this many
    /// registers per thread (at least its own); changes occupancy, not the code.
    pub registers_for_occupancy: Option<u32>,
    /// Fault on reading a register a lane never wrote (`--strict`).
    pub strict: bool,
    /// Fault on a wave instruction that only some lanes of its wave execute
    /// (`wavesim::SimConfig::full_wave_ops`): what the published 0.1.2
    /// backends cannot run (docs/backends.md).
    pub full_wave_ops: bool,
    /// Run on the machine model the test's `# wavec: --target NAME` header names,
    /// if it names one, instead of `compile.target` (the CLI without `--target`).
    pub test_target: bool,
    /// `--gpu-plan FILE`: after the run, write the GPU check's plan there (`gpu`).
    pub gpu_plan: Option<std::path::PathBuf>,
    /// `--device-memory FILE`'s bytes: check the results in this image of device
    /// memory after a run elsewhere instead of simulating (`gpu`).
    pub device_memory: Option<Vec<u8>>,
}

impl RunOptions {
    pub fn new(target: Target) -> RunOptions {
        RunOptions {
            compile: CompileOptions::new(target),
            max_instructions: DEFAULT_MAX_INSTRUCTIONS,
            print_stats: false,
            exact_output: false,
            robust_retry: false,
            d3d_denormals: false,
            timing: true,
            compute_units: None,
            registers_for_occupancy: None,
            strict: false,
            full_wave_ops: false,
            test_target: false,
            gpu_plan: None,
            device_memory: None,
        }
    }
}

/// Occupancy and simulator statistics of a completed run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStats {
    pub occupancy: Occupancy,
    /// `.registers` of the kernel.
    pub registers: u32,
    pub sim: wavesim::Stats,
    /// Everything a report shows (`--stats`, `--stats-json`, `--report`).
    pub report: RunReport,
}

/// What a run produced: what the CLI prints and its exit code.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub exit_code: i32,
    /// The pipeline with the final buffer contents (when the kernel ran to completion).
    pub stdout: String,
    /// Diagnostics, mismatches, faults, and statistics if asked for.
    pub stderr: String,
    /// Present when the kernel ran to completion.
    pub stats: Option<RunStats>,
}

/// Compiles, runs and checks one test.
pub fn run_pipeline(test: &PipelineTest, opts: &RunOptions) -> RunOutcome {
    let (pipeline, mut copts, resolved) = match prepare(test, opts) {
        Ok(p) => p,
        Err(outcome) => return *outcome,
    };
    let opts = &resolved;
    let c = driver::compile_input(&test.input(), &copts, cfg!(debug_assertions));
    let sources = c.sources;
    let compiled = match c.result {
        Ok(c) => c,
        Err(diags) => {
            return RunOutcome { exit_code: EXIT_ERROR, stdout: String::new(), stderr: diag::render(&sources, &diags), stats: None };
        }
    };
    let mut outcome = execute_in(&pipeline, &compiled, &sources, opts);
    if outcome.exit_code == EXIT_FAULT && opts.robust_retry && !copts.robust_access && outcome.stderr.contains(DEVICE_OOB) {
        copts.robust_access = true;
        let c = driver::compile_input(&test.input(), &copts, cfg!(debug_assertions));
        if let Ok(robust) = c.result {
            let mut again = execute_in(&pipeline, &robust, &c.sources, opts);
            let first: String = outcome.stderr.lines().map(|l| format!("  | {l}\n")).collect();
            again.stderr = format!(
                "warning: the kernel accessed a buffer out of bounds; it ran again with D3D's robust buffer access \
                 (--robust-access: out-of-bounds loads give 0, stores and atomics are dropped; --strict-bounds makes this a fault). \
                 The first run stopped at:\n{first}{}",
                again.stderr
            );
            outcome = again;
        }
    }
    if !compiled.warnings.is_empty() {
        outcome.stderr = diag::render(&sources, &compiled.warnings) + &outcome.stderr;
    }
    outcome
}

/// What a test's run needs before compiling: its parsed pipeline, the compile
/// options it resolves to (the test's flags, its `--target` header when
/// [`RunOptions::test_target`], D3D denormals, the pipeline's entry and
/// descriptor counts), and the run options on that machine model.
pub fn prepare(test: &PipelineTest, opts: &RunOptions) -> Result<(Pipeline, CompileOptions, RunOptions), Box<RunOutcome>> {
    let pipeline = match pipeline::parse_pipeline_limited(&test.pipeline_text, &opts.compile.limits) {
        Ok(p) => p,
        Err(e) if e.exit_code == EXIT_UNSUPPORTED => {
            return Err(Box::new(RunError { message: format!("{} ({})", e.message, test.pipeline_name), ..e }.into_outcome()));
        }
        Err(e) => return Err(Box::new(RunError { message: format!("{}: {}", test.pipeline_name, e.message), ..e }.into_outcome())),
    };
    let mut copts = opts.compile.clone();
    test.flags.apply(&mut copts);
    let mut resolved = opts.clone();
    if let Some(name) = test.flags.target.as_deref().filter(|_| opts.test_target) {
        let Some(t) = crate::target::preset(name) else {
            return Err(RunError::invalid(format!("{}: the test's `wavec: --target {name}` names no machine model", test.name))
                .into_outcome()
                .into());
        };
        copts.target = t;
        resolved.compile = copts.clone();
    }
    if resolved.d3d_denormals && copts.denorm == crate::options::Denorm::Any {
        copts.denorm = crate::options::Denorm::Ftz;
    }
    apply_pipeline(&pipeline, &mut copts);
    Ok((pipeline, copts, resolved))
}

/// What the pipeline tells the compiler (options already set win): the entry point,
/// and the descriptor count at each binding, which sizes unbounded resource arrays.
pub fn apply_pipeline(pipeline: &Pipeline, copts: &mut CompileOptions) {
    if copts.entry.is_none() {
        copts.entry = pipeline.shader.entry.clone();
    }
    for d in pipeline.descriptors() {
        if !copts.descriptor_counts.iter().any(|(b, _)| *b == d.binding) {
            copts.descriptor_counts.push((d.binding, pipeline.buffers[d.buffer].array_size));
        }
    }
}

/// How a fault report names an out-of-bounds device access (see [`RunOptions::robust_retry`]).
const DEVICE_OOB: &str = "device memory access out of bounds";

/// Runs an already compiled kernel on `pipeline` and checks the results.
/// `source` is the HLSL the kernel came from (quoted in fault messages); for
/// a kernel with includes, [`execute_in`] takes all its files.
pub fn execute(pipeline: &Pipeline, compiled: &Compiled, source: &SourceFile, opts: &RunOptions) -> RunOutcome {
    execute_in(pipeline, compiled, &Sources::from(source.clone()), opts)
}

/// [`execute`], with every file of the compilation (`driver::Compilation::sources`).
pub fn execute_in(pipeline: &Pipeline, compiled: &Compiled, sources: &Sources, opts: &RunOptions) -> RunOutcome {
    let target = &opts.compile.target;
    let isa = opts.compile.isa;
    let mut stderr = String::new();

    let mem_layout = match layout(pipeline, &compiled.interface) {
        Ok(l) => l,
        Err(e) => return e.into_outcome(),
    };
    for w in &mem_layout.warnings {
        let _ = writeln!(stderr, "warning: {w}");
    }
    if let Some(image) = &opts.device_memory {
        let mut outcome = gpu::check_image(pipeline, &mem_layout, image, opts.exact_output);
        outcome.stderr = stderr + &outcome.stderr;
        return outcome;
    }

    let program = match wavesim::parse(&compiled.asm, isa.sim_profile()) {
        Ok(p) => p,
        Err(e) => {
            let line = compiled.asm.lines().nth(e.line.saturating_sub(1) as usize).unwrap_or("").trim();
            let _ = writeln!(stderr, "internal error: the simulator rejected the {} listing at line {}: {}", isa.name(), e.line, e.message);
            if !line.is_empty() {
                let _ = writeln!(stderr, "  {} | {line}", e.line);
            }
            return RunOutcome { exit_code: EXIT_INTERNAL, stdout: String::new(), stderr, stats: None };
        }
    };
    let kernel_name = &compiled.interface.kernel;
    let Some(kernel) = program.kernel(kernel_name) else {
        let names: Vec<&str> = program.kernels.iter().map(|k| k.name.as_str()).collect();
        let _ = writeln!(stderr, "internal error: the listing has no kernel `{kernel_name}` (it has: {})", names.join(", "));
        return RunOutcome { exit_code: EXIT_INTERNAL, stdout: String::new(), stderr, stats: None };
    };

    if let Some(r) = opts.registers_for_occupancy.filter(|_| opts.timing) {
        let threads = compiled.interface.workgroup_size.iter().product();
        if crate::target::occupancy(target, r.max(compiled.interface.registers), threads, kernel.local_memory).waves_per_core == 0 {
            return RunError::invalid(format!(
                "--registers {r}: a workgroup of {threads} threads with {r} registers per thread does not fit a compute unit of {}",
                target.name
            ))
            .into_outcome();
        }
    }
    let mut cfg = sim_config(target, isa, &compiled.occupancy, opts.max_instructions);
    cfg.timing &= opts.timing;
    cfg.strict = opts.strict;
    cfg.full_wave_ops = opts.full_wave_ops;
    cfg.registers_for_occupancy = opts.registers_for_occupancy;
    if let Some(n) = opts.compute_units {
        cfg.machine.compute_units = n;
    }
    let launch =
        wavesim::Launch { grid: pipeline.dispatch, workgroup_size: compiled.interface.workgroup_size, args: mem_layout.args.clone() };
    let limits = &opts.compile.limits;
    if let Err(e) = check_dispatch(pipeline, compiled, target.wave_width, limits) {
        return e.into_outcome();
    }
    let run_limits = wavesim::RunLimits {
        max_instructions: limits.run_instructions,
        time: Some(std::time::Duration::from_secs(limits.run_seconds)),
        max_trace_bytes: limits.trace_bytes,
    };
    if let Err(e) = check_memory(pipeline, &mem_layout, limits) {
        return e.into_outcome();
    }
    let mut mem = mem_layout.memory(pipeline);
    let sim_stats = match wavesim::run_limited(kernel, &cfg, &launch, &mut mem, &run_limits) {
        Ok(s) => s,
        Err(fault) => {
            stderr.push_str(&describe_fault_in(&fault, sources, &compiled.asm));
            let _ = writeln!(
                stderr,
                "  device memory: {}",
                if mem_layout.placements.is_empty() { "empty".to_string() } else { mem_layout.describe(pipeline) }
            );
            return RunOutcome { exit_code: EXIT_FAULT, stdout: String::new(), stderr, stats: None };
        }
    };

    if let Some(g) = sim_stats.timing_dropped {
        let [gx, gy, _] = pipeline.dispatch.map(|n| n as u64);
        let _ = writeln!(
            stderr,
            "warning: the cycle model stopped at workgroup ({}, {}, {}): the instruction traces of the workgroups in flight \
             outgrew the {} trace window (`--limit trace-memory=N` raises it); the run went on without timing, as with --no-timing",
            g % gx,
            (g / gx) % gy,
            g / (gx * gy),
            crate::limits::show_bytes(limits.trace_bytes)
        );
    }

    // A write past a buffer's end landed in its guard (see `layout`): on D3D it would
    // be dropped; here it is reported as the out-of-bounds access it is.
    if let Some(&(buffer, offset)) = mem_layout.guard_writes(&mem).first() {
        let name = &pipeline.buffers[buffer].name;
        let _ = writeln!(
            stderr,
            "error: runtime fault: {DEVICE_OOB}: the kernel wrote past the end of buffer `{name}` \
             ({offset} bytes past it; the simulator found the write after the run, so no instruction is named)"
        );
        let _ = writeln!(stderr, "  device memory: {}", mem_layout.describe(pipeline));
        return RunOutcome { exit_code: EXIT_FAULT, stdout: String::new(), stderr, stats: None };
    }

    if let Some(path) = &opts.gpu_plan {
        let initial = mem_layout.memory(pipeline);
        let plan = gpu::plan_json(pipeline, compiled, isa, &mem_layout, &initial.bytes, &mem.bytes);
        if let Err(e) = std::fs::write(path, plan) {
            let _ = writeln!(stderr, "error[E0506]: cannot write {}: {e}", path.display());
            return RunOutcome { exit_code: EXIT_ERROR, stdout: String::new(), stderr, stats: None };
        }
    }

    // Read every placed buffer (array element) and counter back.
    let result = match mem_layout.read_back_from(pipeline, &mem) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(stderr, "internal error: {e}");
            return RunOutcome { exit_code: EXIT_INTERNAL, stdout: String::new(), stderr, stats: None };
        }
    };
    // Device memory is not needed past here (a run's largest allocation).
    drop(mem);

    // Check the results.
    let mut failed = 0;
    for check in &result.results {
        let (a, e) = (&result.buffers[check.actual], &result.buffers[check.expected]);
        let c = compare::compare_with(check.rule, check.denorm_any, a, e);
        if c.passed() {
            continue;
        }
        failed += 1;
        stderr.push_str(&describe_mismatch(check, &c, a, e));
    }

    let report = RunReport::new(&report::ReportInput {
        compiled,
        sources,
        target,
        isa: isa.name(),
        dispatch: pipeline.dispatch,
        sim: &sim_stats,
        kernel,
    });
    let stats = RunStats { occupancy: compiled.occupancy.clone(), registers: compiled.interface.registers, sim: sim_stats, report };
    if opts.print_stats {
        stderr.push_str(&describe_stats(&stats));
    }
    if failed > 0 {
        let _ = writeln!(stderr, "{failed} of {} results did not match", result.results.len());
    }
    RunOutcome {
        exit_code: if failed > 0 { EXIT_MISMATCH } else { EXIT_PASS },
        stdout: emit::pipeline_to_yaml(&result, opts.exact_output),
        stderr,
        stats: Some(stats),
    }
}

/// What a run will allocate for its buffers, in bytes: the buffers as given
/// (held already), device memory, the buffers read back from it, and the
/// printed pipeline (each element at its longest text). The simulator's own
/// state is small beside them, but for the cycle model's traces, which have
/// their own limit (`trace-memory`).
pub fn memory_needed(pipeline: &Pipeline, layout: &MemoryLayout) -> [u64; 4] {
    let given: u64 = pipeline.buffers.iter().map(|b| b.data.len() as u64).sum();
    let device = layout.size as u64;
    let read_back: u64 = layout.placements.iter().map(|pl| pl.size as u64).sum();
    let printed: u64 =
        pipeline.buffers.iter().map(|b| (b.data.len() / b.format.size().max(1) + 1) as u64 * (b.format.max_text_len() as u64 + 2)).sum();
    [given, device, read_back, printed]
}

/// Refuses, before the run starts, one whose buffers need more than the
/// `memory` limit, saying how much it needs.
fn check_memory(pipeline: &Pipeline, layout: &MemoryLayout, limits: &crate::limits::Limits) -> Result<(), RunError> {
    use crate::limits::show_bytes;
    let [given, device, read_back, printed] = memory_needed(pipeline, layout);
    let need = given + device + read_back + printed;
    if need > limits.run_memory_bytes {
        return Err(RunError::invalid(format!(
            "the run needs about {} for its buffers ({} as given, {} of device memory, {} read back, {} printed), \
             more than the {} memory limit (`--limit memory=N` raises it)",
            show_bytes(need),
            show_bytes(given),
            show_bytes(device),
            show_bytes(read_back),
            show_bytes(printed),
            show_bytes(limits.run_memory_bytes)
        )));
    }
    Ok(())
}

/// Refuses, before anything runs, a dispatch that cannot stay within the
/// run's instruction limit: every wave of every workgroup issues at least one
/// instruction (its `halt`).
fn check_dispatch(pipeline: &Pipeline, compiled: &Compiled, wave_width: u32, limits: &crate::limits::Limits) -> Result<(), RunError> {
    let groups = pipeline.dispatch.iter().map(|&n| n as u128).product::<u128>();
    let threads = compiled.interface.workgroup_size.iter().map(|&n| n as u128).product::<u128>().max(1);
    let waves = threads.div_ceil(wave_width.max(1) as u128);
    let least = groups * waves;
    if least > limits.run_instructions as u128 {
        let [x, y, z] = pipeline.dispatch;
        return Err(RunError::invalid(format!(
            "the dispatch of {x} x {y} x {z} workgroups ({groups} workgroups of {waves} wave(s)) issues at least {least} \
             wave-instructions, more than the run's limit of {} (`--max-instructions N` raises it)",
            limits.run_instructions
        )));
    }
    Ok(())
}

/// The simulator configuration for `target`: its wave width, local memory per
/// workgroup and machine model, with the cycle model on unless the kernel's
/// workgroup cannot be resident on the target at all (`occupancy` is zero waves).
pub fn sim_config(target: &Target, isa: crate::options::Isa, occupancy: &Occupancy, max_instructions: u64) -> wavesim::SimConfig {
    wavesim::SimConfig {
        wave_width: target.wave_width,
        profile: isa.sim_profile(),
        max_instructions,
        local_memory_limit: target.local_memory_per_workgroup,
        timing: occupancy.waves_per_core > 0,
        machine: target.machine(None),
        registers_for_occupancy: None,
        strict: false,
        threads: 0,
        wide_waves: true,
        full_wave_ops: false,
    }
}

/// The source place a listing line names: `; L12` is line 12 of the main
/// file, `; common.hlsli:12` line 12 of that included file.
pub fn listing_source_line(sources: &Sources, asm: &str, asm_line: u32) -> Option<(String, u32, String)> {
    source_of_listing_line(sources, asm.lines().nth(asm_line.checked_sub(1)? as usize)?)
}

/// [`listing_source_line`] of the line's text.
pub fn source_of_listing_line(sources: &Sources, line: &str) -> Option<(String, u32, String)> {
    let word = line.split_once(';')?.1.split_whitespace().next()?;
    let (id, n) = match word.strip_prefix('L').and_then(|d| d.parse::<u32>().ok()) {
        Some(n) => (sources.files().next()?.0, n),
        None => {
            let (name, n) = word.rsplit_once(':')?;
            let n = n.parse::<u32>().ok()?;
            let (id, _) = sources.files().find(|(_, f)| listing_name(&f.file.name) == name)?;
            (id, n)
        }
    };
    let f = &sources.get(id).file;
    Some((f.name.clone(), n, f.line_text(n).trim().to_string()))
}

/// A fault as the user should see it: what, which instruction, which HLSL line, which thread.
pub fn describe_fault(f: &wavesim::Fault, source: &SourceFile) -> String {
    describe_fault_in(f, &Sources::from(source.clone()), "")
}

/// [`describe_fault`] for a kernel with includes: the HLSL line is read from
/// the listing `asm` (`; L12` or `; common.hlsli:12`) and looked up in `sources`.
pub fn describe_fault_in(f: &wavesim::Fault, sources: &Sources, asm: &str) -> String {
    use wavesim::FaultKind;
    let what = match &f.kind {
        FaultKind::DeviceOutOfBounds { addr, size } => {
            format!("{DEVICE_OOB}: {size} bytes at address {addr:#x}")
        }
        FaultKind::LocalOutOfBounds { addr, size } => {
            format!("local memory access out of bounds: {size} bytes at address {addr:#x}")
        }
        FaultKind::InstructionLimit { limit } => {
            format!(
                "instruction limit reached: a workgroup issued {limit} wave-instructions (an endless loop?; \
                 `--limit group-instructions=N` raises the limit)"
            )
        }
        FaultKind::RunInstructionLimit { limit } => format!(
            "instruction limit reached: the workgroups issued more than {limit} wave-instructions in all \
             (`--max-instructions N` raises the limit)"
        ),
        FaultKind::TimeLimit { limit_ms } => {
            format!("time limit reached: the simulation ran longer than {} s (`--limit run-seconds=N` raises the limit)", limit_ms / 1000)
        }
        FaultKind::BadRegister { reg } => {
            format!("register r{reg} is at or above the kernel's .registers count")
        }
        FaultKind::Deadlock => "deadlock: waves wait at a barrier that part of the workgroup never reaches (it finished)".to_string(),
        FaultKind::DivergentBarrier { executing, live } => {
            format!("barrier in divergent control flow: {executing} of the wave's {live} live lanes execute it")
        }
        FaultKind::PartialWaveOp { executing, live } => {
            format!("wave operation in divergent control flow: {executing} of the wave's {live} live lanes execute it")
        }
        FaultKind::PartialWarpWaveOp { threads } => format!(
            "wave operation in a partial warp: the wave holds {threads} threads, not a multiple of 32, and wave-ptx's full-mask \
             shuffles and votes name the lanes it lacks (a workgroup size that is not a multiple of 32; docs/backends.md)"
        ),
        FaultKind::BarrierMismatch(m) => m.clone(),
        FaultKind::Misaligned { addr, size, local } => format!(
            "misaligned {} memory access: {size} bytes at address {addr:#x} (WAVE guarantees only {size}-byte aligned accesses)",
            if *local { "local" } else { "device" }
        ),
        FaultKind::UndefinedRead { slot } => {
            format!(
                "--strict: read of {} which this lane never wrote (a compiler bug, or an uninitialized variable)",
                wavesim::slot_name(*slot)
            )
        }
        FaultKind::DoesNotFit(m) => format!("cycle model: {m}"),
        FaultKind::ControlFlow(m) => format!("control flow: {m}"),
        FaultKind::Other(m) => m.clone(),
    };
    let mut s = format!("error: runtime fault: {what}\n");
    if let Some(o) = &f.origin {
        let _ = writeln!(s, "  instruction: {} (listing line {})", o.text, o.asm_line);
        // The listing names the file; a simulator that read `L<n>` alone means the main file.
        let place = listing_source_line(sources, asm, o.asm_line).or_else(|| {
            let (l, f) = (o.src_line?, sources.main()?);
            Some((f.name.clone(), l, f.line_text(l).trim().to_string()))
        });
        if let Some((name, l, text)) = place {
            let _ = writeln!(s, "  source: {name}:{l}: {text}");
        }
    }
    let _ = write!(s, "  in workgroup ({}, {}, {}), wave {}", f.workgroup[0], f.workgroup[1], f.workgroup[2], f.wave);
    if let Some(lane) = f.lane {
        let _ = write!(s, ", lane {lane}");
    }
    s.push('\n');
    s
}

/// The mismatches of one result, at most [`MAX_REPORTED_MISMATCHES`] elements then a count.
pub fn describe_mismatch(check: &pipeline::Check, c: &Comparison, actual: &Buffer, expected: &Buffer) -> String {
    let mut s = String::new();
    let rule = match check.rule {
        Rule::BufferExact => "BufferExact".to_string(),
        Rule::BufferFloatULP { ulpt } => format!("BufferFloatULP, ULPT {ulpt}"),
        Rule::BufferFloatEpsilon { epsilon } => {
            format!("BufferFloatEpsilon, Epsilon {}", format::show_f64(epsilon))
        }
    };
    let _ = writeln!(s, "error: result `{}` failed ({rule}): `{}` does not match `{}`", check.name, actual.name, expected.name);
    if let Some((a, e)) = c.size_mismatch {
        let _ = writeln!(s, "  size: `{}` has {a} bytes, `{}` has {e}", actual.name, expected.name);
    }
    // BufferExact compares bytes: elements of the expected buffer's format.
    let shown = if check.rule == Rule::BufferExact { expected.format } else { actual.format };
    let (asz, esz) = (shown.size(), expected.format.size());
    for &i in c.mismatches.iter().take(MAX_REPORTED_MISMATCHES) {
        let (Some(a), Some(e)) = (actual.data.get(i * asz..(i + 1) * asz), expected.data.get(i * esz..(i + 1) * esz)) else { continue };
        let (got, want) = (shown.show(a), expected.format.show(e));
        let _ = writeln!(s, "  {}[{i}]: got {got}, expected {want} ({})", actual.name, shown.name());
    }
    if c.mismatches.len() > MAX_REPORTED_MISMATCHES {
        let _ = writeln!(s, "  ... and {} more mismatching elements", c.mismatches.len() - MAX_REPORTED_MISMATCHES);
    }
    if !c.mismatches.is_empty() {
        let total = actual.data.len().min(expected.data.len()) / asz.max(1);
        let _ = writeln!(s, "  {} of {total} elements differ", c.mismatches.len());
    }
    s
}

/// Occupancy and simulator statistics, one fact per line, for stderr.
pub fn describe_stats(st: &RunStats) -> String {
    st.report.summary()
}

#[cfg(test)]
mod tests;
