//! Argument parsing (clap) and the two jobs: compile a file, run a pipeline test.

use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;
use wavec::diag::{render, Diagnostic, Sources};
use wavec::driver::{compile_input, CompileOptions, Isa, OptLevel};
use wavec::source::Input;
use wavec::target;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum IsaArg {
    /// WAVE spec v0.4 (default)
    Wave,
    /// What the published wave-asm/wave-emu 0.1.2 crates execute correctly
    #[value(name = "wave-0.1.2")]
    Wave012,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// Annotated WAVE assembly
    Asm,
    /// Binary for the published WAVE tools, through wave-asm 0.1.2 (implies --isa wave-0.1.2)
    Wbin,
    /// The SSA IR after the IR passes
    Ir,
    /// The kernel's launch interface (ABI) as JSON
    Abi,
    /// The preprocessed source (like dxc -P)
    Pp,
    /// CUDA PTX through the published wave-ptx 0.1.2 (implies --isa wave-0.1.2)
    Ptx,
    /// HIP C++ through the published wave-hip 0.1.2 (implies --isa wave-0.1.2)
    Hip,
    /// Metal Shading Language through the published wave-metal 0.1.2 (implies --isa wave-0.1.2)
    Metal,
    /// SYCL C++ through the published wave-sycl 0.1.2 (implies --isa wave-0.1.2)
    Sycl,
}

impl Emit {
    /// The published backend this output goes through, if any.
    fn backend(self) -> Option<wavec::emit::backends::Backend> {
        use wavec::emit::backends::Backend;
        match self {
            Emit::Ptx => Some(Backend::Ptx),
            Emit::Hip => Some(Backend::Hip),
            Emit::Metal => Some(Backend::Metal),
            Emit::Sycl => Some(Backend::Sycl),
            _ => None,
        }
    }
    /// Output through wave-asm 0.1.2, which takes only the compat profile.
    fn needs_012(self) -> bool {
        self == Emit::Wbin || self.backend().is_some()
    }
}

/// Options shared by compiling and running.
#[derive(clap::Args, Debug, Clone)]
struct CommonArgs {
    /// Optimization: -O0 (none, the default) or -O (optimize; -O1..-O3 mean the same)
    #[arg(long = "opt-level", value_name = "LEVEL")]
    opt: Option<String>,
    /// Output ISA profile
    #[arg(long, value_enum, default_value = "wave")]
    isa: IsaArg,
    /// Search DIR for #include files (after the including file's directory, before the standard library)
    #[arg(short = 'I', value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// Machine model (see --print-targets; default generic, or for `wavec run` the
    /// test's `# wavec: --target NAME` header)
    #[arg(long)]
    target: Option<String>,
    /// Waves per core the kernel should reach
    #[arg(long, value_name = "N")]
    target_occupancy: Option<u32>,
    /// Use at most N registers per thread, spilling what does not fit (like nvcc's -maxrregcount)
    #[arg(long, value_name = "N")]
    max_registers: Option<u32>,
    /// Turn an optimization off, to measure what it buys (repeatable; `--disable help` lists them)
    #[arg(long = "disable", value_name = "PASS")]
    disable: Vec<String>,
    /// Entry point (like dxc's -E)
    #[arg(short = 'E', long = "entry", value_name = "NAME")]
    entry: Option<String>,
    /// Define a macro: NAME, NAME=VALUE or NAME(ARGS)=VALUE
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Undefine a macro (after every -D)
    #[arg(short = 'U', value_name = "NAME")]
    undefines: Vec<String>,
    /// Target profile such as cs_6_5 (sets __SHADER_TARGET_MAJOR/MINOR)
    #[arg(short = 'T', value_name = "PROFILE")]
    profile: Option<String>,
    /// HLSL version: 2016, 2017, 2018 (pre-2021 rules) or 2021, 202x (default 2021; 2018 for .compute files)
    #[arg(long = "HV", value_name = "YEAR")]
    hlsl_version: Option<String>,
    /// half, min16float, min16int, min16uint and int16_t/uint16_t/float16_t are 16-bit types (as with dxc)
    #[arg(long = "enable-16bit-types")]
    enable_16bit_types: bool,
    /// fp32 denormals: any (default; IEEE here), preserve, or ftz (flushed by arithmetic, as
    /// D3D requires; `wavec run` resolves any as ftz)
    #[arg(long = "denorm", value_name = "MODE")]
    denorm: Option<String>,
    /// Strict IEEE: never contract `a * b + c` into one fused multiply-add (dxc's -Gis;
    /// `precise` anywhere in the program does the same)
    #[arg(long = "strict-ieee")]
    strict_ieee: bool,
    /// D3D robust buffer access: out-of-bounds buffer loads give 0, stores and atomics are
    /// dropped (bounds checks against buffer sizes passed in the ABI)
    #[arg(long = "robust-access")]
    robust_access: bool,
    /// The host binds N descriptors from register REG on (`u1=8`, `t0,space2=4`): the size
    /// of an unbounded resource array declared there (`wavec run` takes it from the pipeline)
    #[arg(long = "array-size", value_name = "REG=N")]
    array_sizes: Vec<String>,
    /// Matrices are row-major in memory by default (like dxc's -Zpr)
    #[arg(long = "Zpr", conflicts_with = "zpc")]
    zpr: bool,
    /// Matrices are column-major in memory by default (like dxc's -Zpc; the default)
    #[arg(long = "Zpc")]
    zpc: bool,
    /// Say on stderr how the source is read (the HLSL version in force and why)
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Change a resource limit (repeatable): file-size, includes, pp-output, ..., memory
    /// (`--limit help` lists them with their defaults)
    #[arg(long = "limit", value_name = "NAME=VALUE")]
    limits: Vec<String>,
}

#[derive(Parser, Debug)]
#[command(
    name = "wavec",
    version,
    about = "Compile mini-HLSL compute shaders to WAVE assembly",
    after_help = "Run a pipeline test: wavec run FILE.test | wavec run pipeline.yaml source.hlsl"
)]
struct CompileCli {
    /// HLSL source file
    #[arg(required_unless_present = "print_targets")]
    file: Option<PathBuf>,
    /// Output file (default: stdout; for --emit wbin, FILE with .wbin)
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    /// What to write
    #[arg(long, value_enum, default_value = "asm")]
    emit: Emit,
    /// List the machine models and exit
    #[arg(long)]
    print_targets: bool,
    /// Write the IR (as --emit ir) with, for each divergent value, the whole chain of
    /// reasons back to its source of divergence
    #[arg(long)]
    explain_uniformity: bool,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Parser, Debug)]
#[command(name = "wavec run", about = "Compile, simulate and check a pipeline test (.test, or pipeline.yaml + source.hlsl)")]
struct RunCli {
    /// A .test file, or a pipeline.yaml followed by its HLSL source
    #[arg(required = true, num_args = 1..=2)]
    files: Vec<PathBuf>,
    /// Print occupancy, cycles and memory statistics to stderr
    #[arg(long)]
    stats: bool,
    /// Write the statistics as JSON to FILE (`-` for stdout, after the pipeline)
    #[arg(long = "stats-json", value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Write a self-contained HTML report (occupancy curves, register pressure, timeline) to FILE
    #[arg(long = "report", value_name = "FILE")]
    report: Option<PathBuf>,
    /// Compute units of the simulated GPU (default: the target's)
    #[arg(long = "compute-units", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    compute_units: Option<u32>,
    /// What-if: admit workgroups as if the kernel allocated N registers per thread (changes occupancy, not the code)
    #[arg(long = "registers", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    registers: Option<u32>,
    /// Fault on reading a register a lane never wrote (catches compiler bugs)
    #[arg(long)]
    strict: bool,
    /// Skip the cycle model (faster; buffers are the same)
    #[arg(long = "no-timing")]
    no_timing: bool,
    /// An out-of-bounds buffer access is a fault (by default `wavec run` then runs the
    /// kernel again with --robust-access, D3D's robust buffer access, and warns)
    #[arg(long = "strict-bounds")]
    strict_bounds: bool,
    /// Echo final buffers in the shortest exact spelling (floats that read back to the
    /// same bits) instead of the offloader's (`%g` floats, `0xABC` hex)
    #[arg(long)]
    exact: bool,
    /// Stop the run once its workgroups have issued more than N wave-instructions in all
    /// (the `instructions` limit)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_instructions: Option<u64>,
    /// After the run, write the GPU check's plan to FILE (JSON: the kernel as wave-ptx
    /// translates it, the launch, device memory before and after; tools/gpu-check)
    #[arg(long = "gpu-plan", value_name = "FILE")]
    gpu_plan: Option<PathBuf>,
    /// Do not simulate: check the results in FILE, device memory as a run on a GPU left
    /// it (laid out as `--gpu-plan` says; tools/gpu-check)
    #[arg(long = "device-memory", value_name = "FILE")]
    device_memory: Option<PathBuf>,
    #[command(flatten)]
    common: CommonArgs,
}

/// Rewrites dxc-style `-O`, `-O0`..`-O3` into `--opt-level=N`, so that `-O FILE`
/// never takes the file name as the level.
fn normalize_opt_flags(args: Vec<OsString>) -> Vec<OsString> {
    args.into_iter()
        .map(|a| match a.to_str() {
            Some("-O") => OsString::from("--opt-level=1"),
            Some(s) if s.len() > 2 && s.starts_with("-O") && !s.starts_with("-O=") => OsString::from(format!("--opt-level={}", &s[2..])),
            _ => a,
        })
        .collect()
}

/// dxc flags whose effect wavec has by default or that concern other outputs
/// (SPIR-V, debug info, containers): accepted and ignored.
fn ignored_dxc_flag(s: &str) -> bool {
    matches!(s, "-Gfa" | "-Gfp" | "-Gec" | "-Zi" | "-Zss" | "-Zsb" | "-Qembed_debug" | "-Qstrip_debug" | "-Qstrip_reflect")
        || matches!(s, "-Vd" | "-WX" | "-all-resources-bound" | "-spirv" | "-no-warnings" | "-Ges" | "-res-may-alias")
        || s.starts_with("-fvk-")
        || s.starts_with("-fspv-")
}

/// Rewrites dxc's single-dash long flags into wavec's (`-enable-16bit-types`,
/// `-HV 2021`, `-Zpr`, `-Zpc`, `-Od`) and drops the ones with no effect on WAVE
/// code (`-Fo FILE`, `-fvk-*`, ...), noting those on stderr, so that a
/// dxc command line (as the offload-test-suite's RUN lines give) works as is.
fn normalize_dxc_flags(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut ignored: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        match s {
            "-enable-16bit-types" | "-Zpr" | "-Zpc" | "-HV" | "-denorm" => out.push(OsString::from(format!("-{s}"))),
            "-Od" => out.push(OsString::from("--opt-level=0")),
            "-Gis" => out.push(OsString::from("--strict-ieee")),
            "-Fo" | "-Fc" | "-Fh" | "-Fd" | "-Fre" | "-Frs" => {
                let v = it.next();
                ignored.push(format!("{s} {}", v.as_ref().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()));
            }
            _ if s.starts_with("-HV") && s[3..].chars().all(|c| c.is_ascii_digit()) && s.len() > 3 => {
                out.push(OsString::from(format!("--HV={}", &s[3..])))
            }
            _ if ignored_dxc_flag(s) => ignored.push(s.to_string()),
            _ => out.push(a),
        }
    }
    if !ignored.is_empty() {
        eprintln!("note: ignoring dxc option(s) without effect on WAVE code: {}", ignored.join(", "));
    }
    out
}

/// Runs the command line; returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let args = normalize_dxc_flags(normalize_opt_flags(args));
    if args.get(1).is_some_and(|a| a == "run") {
        let mut rest = vec![OsString::from("wavec run")];
        rest.extend(args.into_iter().skip(2));
        return match RunCli::try_parse_from(rest) {
            Ok(cli) => run_job(cli),
            Err(e) => exit_for_clap(e),
        };
    }
    match CompileCli::try_parse_from(args) {
        Ok(cli) => compile_job(cli),
        Err(e) => exit_for_clap(e),
    }
}

fn exit_for_clap(e: clap::Error) -> i32 {
    let code = if e.use_stderr() { 2 } else { 0 };
    let _ = e.print();
    code
}

fn options(common: &CommonArgs, isa: Isa) -> Result<CompileOptions, String> {
    let name = common.target.as_deref().unwrap_or("generic");
    let target = target::preset(name).ok_or_else(|| {
        let names: Vec<&str> = target::presets().iter().map(|t| t.name).collect();
        format!("error[E0501]: unknown target `{name}`; known targets: {}", names.join(", "))
    })?;
    let opt = match common.opt.as_deref() {
        None | Some("0") => OptLevel::O0,
        Some("1") | Some("2") | Some("3") | Some("s") => OptLevel::O,
        Some(other) => return Err(format!("error[E0502]: unknown optimization level `-O{other}` (use -O0 or -O)")),
    };
    if let Some(0) = common.target_occupancy {
        return Err("error[E0503]: --target-occupancy must be at least 1".into());
    }
    if let Some(0) = common.max_registers {
        return Err("error[E0510]: --max-registers must be at least 1".into());
    }
    let defines = common
        .defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => (d.clone(), "1".to_string()),
        })
        .collect();
    let hlsl_version = match common.hlsl_version.as_deref() {
        None => None,
        Some(y) => Some(
            wavec::options::parse_hlsl_version(y)
                .ok_or_else(|| format!("error[E0508]: -HV takes 2016, 2017, 2018, 2021 or 202x, not `{y}`"))?,
        ),
    };
    let mut o = CompileOptions::new(target);
    o.isa = isa;
    o.opt = opt;
    o.target_occupancy = common.target_occupancy;
    o.max_registers = common.max_registers;
    for name in &common.disable {
        if !o.disable(name) {
            return Err(format!(
                "error[E0511]: `--disable {name}`: no such optimization; these can be turned off: {}",
                CompileOptions::disableable().join(", ")
            ));
        }
    }
    o.entry = common.entry.clone();
    o.defines = defines;
    o.undefines = common.undefines.clone();
    o.include_dirs = common.include_dirs.clone();
    o.profile = common.profile.clone();
    o.hlsl_version = hlsl_version;
    o.enable_16bit_types = common.enable_16bit_types;
    o.robust_access = common.robust_access;
    o.strict_ieee = common.strict_ieee;
    if let Some(d) = &common.denorm {
        o.denorm =
            wavec::options::Denorm::parse(d).ok_or_else(|| format!("error[E0508]: -denorm takes any, preserve or ftz, not `{d}`"))?;
    }
    o.row_major_default = common.zpr;
    for l in &common.limits {
        if l == "help" {
            return Err(limits_help());
        }
        o.limits.set(l).map_err(|e| format!("error[E0513]: {e}"))?;
    }
    for a in &common.array_sizes {
        let parsed = a.rsplit_once('=').and_then(|(r, n)| Some((wavec::interface::Binding::parse(r)?, n.trim().parse::<u32>().ok()?)));
        match parsed {
            Some(rn) => o.descriptor_counts.push(rn),
            None => return Err(format!("error[E0509]: --array-size takes REG=N such as u1=8 or t0,space2=4, not `{a}`")),
        }
    }
    if let Some(p) = &o.profile {
        if !o.preprocessor().set_profile(p) {
            return Err(format!("error[E0508]: -T takes a profile such as cs_6_5, not `{p}`"));
        }
    }
    Ok(o)
}

/// `--limit help`: every limit, its default and what it counts.
fn limits_help() -> String {
    let d = wavec::limits::Limits::default();
    let mut s = String::from("limits (--limit NAME=VALUE; byte limits take KiB, MiB or GiB):\n");
    for l in wavec::limits::LIMITS {
        s.push_str(&format!("  {:<20} {:>12}  {}\n", l.name, wavec::limits::show(l.get(&d), l.bytes), l.what));
    }
    s
}

fn isa_of(a: IsaArg) -> Isa {
    match a {
        IsaArg::Wave => Isa::Wave,
        IsaArg::Wave012 => Isa::Wave012,
    }
}

fn print_targets() -> i32 {
    println!(
        "{:<8} {:>3} {:>9} {:>5} {:>6} {:>6} {:>5} {:>4} {:>8}  description",
        "name", "W", "regs/lane", "gran", "maxreg", "waves", "cores", "CUs", "L2 KiB"
    );
    for t in target::presets() {
        println!(
            "{:<8} {:>3} {:>9} {:>5} {:>6} {:>6} {:>5} {:>4} {:>8}  {}",
            t.name,
            t.wave_width,
            t.registers_per_lane(),
            t.register_granule,
            t.max_registers,
            t.max_waves_per_core,
            t.cores_per_cu,
            t.compute_units,
            t.memory.l2_bytes / 1024,
            t.description
        );
    }
    0
}

fn compile_job(cli: CompileCli) -> i32 {
    if cli.print_targets {
        return print_targets();
    }
    let Some(path) = cli.file.as_deref() else { return 2 };
    // .wbin is written by wave-asm 0.1.2, which only takes the 0.1.2 profile.
    let isa = if cli.emit.needs_012() { Isa::Wave012 } else { isa_of(cli.common.isa) };
    if cli.emit.needs_012() && cli.common.isa == IsaArg::Wave && std::env::args().any(|a| a == "--isa") {
        eprintln!(
            "note: --emit {} implies --isa wave-0.1.2",
            cli.emit.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
        );
    }
    let mut opts = match options(&cli.common, isa) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    opts.explain_uniformity = cli.explain_uniformity;
    let emit = if cli.explain_uniformity { Emit::Ir } else { cli.emit };
    let input = match Input::from_path_limited(path, opts.limits.file_bytes) {
        Ok(i) => i,
        Err(d) => {
            eprint!("{}", render(&Sources::new(), &[d]));
            return 1;
        }
    };
    if cli.common.verbose {
        eprintln!("{}", wavec::driver::describe_hlsl_version(&input, &opts));
    }
    let bytes: Vec<u8> = if emit == Emit::Pp {
        let (sources, pp) = wavec::frontend::preprocess::preprocess(&input, &opts.preprocessor());
        match pp {
            Ok(pp) => {
                eprint!("{}", render(&sources, &pp.diagnostics));
                let mut text = pp.text;
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.into_bytes()
            }
            Err(diags) => {
                eprint!("{}", render(&sources, &diags));
                return 1;
            }
        }
    } else {
        let c = compile_input(&input, &opts, cfg!(debug_assertions));
        let sources = c.sources;
        let compiled = match c.result {
            Ok(c) => c,
            Err(diags) => {
                eprint!("{}", render(&sources, &diags));
                return 1;
            }
        };
        if !compiled.warnings.is_empty() {
            eprint!("{}", render(&sources, &compiled.warnings));
        }
        match emit {
            Emit::Asm | Emit::Pp => compiled.asm.into_bytes(),
            Emit::Ir => compiled.ir.into_bytes(),
            Emit::Abi => (compiled.interface.to_json() + "\n").into_bytes(),
            Emit::Ptx | Emit::Hip | Emit::Metal | Emit::Sycl => {
                let backend = emit.backend().expect("a backend output");
                match wavec::emit::backends::translate_listing(backend, &compiled.asm, &input.main.name) {
                    Ok(text) => text.into_bytes(),
                    Err(e) => {
                        let d = Diagnostic::error("E0410", e).with_note(
                            "the published backend did not take wavec's wave-0.1.2 output: a bug in wavec or a limit of the crate (docs/backends.md)",
                        );
                        eprint!("{}", render(&sources, &[d]));
                        return 1;
                    }
                }
            }
            Emit::Wbin => match wavec::emit::assemble_wbin(&compiled.asm, &input.main.name) {
                Ok(b) => b,
                Err(e) => {
                    let d =
                        Diagnostic::error("E0405", e).with_note("this is a bug in wavec: the wave-0.1.2 listing should always assemble");
                    eprint!("{}", render(&sources, &[d]));
                    return 1;
                }
            },
        }
    };
    let out = match (&cli.output, emit) {
        (Some(p), _) => Some(p.clone()),
        (None, Emit::Wbin) => Some(path.with_extension("wbin")),
        (None, _) => None,
    };
    match out {
        Some(p) => {
            if let Err(e) = std::fs::write(&p, &bytes) {
                eprintln!("error[E0506]: cannot write {}: {e}", p.display());
                return 1;
            }
        }
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&bytes);
        }
    }
    0
}

fn run_job(cli: RunCli) -> i32 {
    let opts = match options(&cli.common, isa_of(cli.common.isa)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    crate_run(&cli, opts)
}

fn crate_run(cli: &RunCli, mut opts: CompileOptions) -> i32 {
    if let Some(n) = cli.max_instructions {
        opts.limits.run_instructions = n;
    }
    let max_file = opts.limits.file_bytes;
    let loaded = match cli.files.as_slice() {
        [test] => wavec::run::load_test_file_limited(test, max_file),
        [yaml, hlsl] => wavec::run::load_pair_limited(yaml, hlsl, max_file),
        _ => return 2,
    };
    let test = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}", e.message);
            return e.exit_code;
        }
    };
    let mut ropts = wavec::run::RunOptions::new(opts.target.clone());
    ropts.compile = opts;
    if cli.common.verbose {
        let mut with_flags = ropts.compile.clone();
        test.flags.apply(&mut with_flags);
        eprintln!("{}", wavec::driver::describe_hlsl_version(&test.input(), &with_flags));
    }
    ropts.print_stats = cli.stats;
    ropts.exact_output = cli.exact;
    ropts.robust_retry = !cli.strict_bounds;
    ropts.d3d_denormals = true;
    ropts.test_target = cli.common.target.is_none();
    ropts.max_instructions = ropts.compile.limits.group_instructions;
    ropts.compute_units = cli.compute_units;
    ropts.registers_for_occupancy = cli.registers;
    ropts.strict = cli.strict;
    ropts.timing = !cli.no_timing;
    ropts.gpu_plan = cli.gpu_plan.clone();
    if let Some(path) = &cli.device_memory {
        match std::fs::read(path) {
            Ok(bytes) => ropts.device_memory = Some(bytes),
            Err(e) => {
                eprintln!("error[E0504]: cannot read {}: {e}", path.display());
                return 2;
            }
        }
    }
    let outcome = wavec::run::run_pipeline(&test, &ropts);
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    if let Some(st) = &outcome.stats {
        let title = cli.files[0].file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(path) = &cli.stats_json {
            let json = serde_json::to_string_pretty(&st.report).unwrap_or_default() + "\n";
            if let Err(code) = write_output(path, json.as_bytes()) {
                return code;
            }
        }
        if let Some(path) = &cli.report {
            let html = wavec::run::html::render(&st.report, &ropts.compile.target, &title);
            if let Err(code) = write_output(path, html.as_bytes()) {
                return code;
            }
        }
    } else if cli.stats_json.is_some() || cli.report.is_some() {
        eprintln!("note: no report written: the kernel did not run to completion");
    }
    outcome.exit_code
}

/// Write `bytes` to `path` (`-`: stdout); on failure, say so and give the exit code.
fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<(), i32> {
    use std::io::Write;
    let r = if path.as_os_str() == "-" { std::io::stdout().write_all(bytes) } else { std::fs::write(path, bytes) };
    r.map_err(|e| {
        eprintln!("error[E0506]: cannot write {}: {e}", path.display());
        2
    })
}
