//! The command line: argument parsing (clap, [`args`], after [`dxc`] rewrote
//! dxc's spellings) and the jobs: compile a file ([`compile`]), run a
//! pipeline test, print shell completions.

mod advise;
mod args;
mod compile;
mod depfile;
mod dxc;
mod header;
mod report;

use args::{CommonArgs, CompileCli, CompletionsCli, IsaArg, RunCli, TargetOccupancy};
use clap::Parser;
use std::ffi::OsString;
use wavec::diag::Diagnostic;
use wavec::driver::{CompileOptions, Isa, OptLevel};
use wavec::target;

/// Runs the command line; returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let (args, mut ignored) = dxc::normalize(args);
    let args = if args.get(1).is_some_and(|a| a == "run") {
        let (args, dropped) = dxc::drop_output_flags(args);
        ignored.extend(dropped);
        args
    } else {
        args
    };
    let ignored = (!ignored.is_empty())
        .then(|| Diagnostic::note("W0502", format!("ignoring dxc option(s) without effect on WAVE code: {}", ignored.join(", "))));
    match args.get(1).and_then(|a| a.to_str()) {
        Some("run") => {
            let mut rest = vec![OsString::from("wavec run")];
            rest.extend(args.into_iter().skip(2));
            match RunCli::try_parse_from(rest) {
                Ok(cli) => run_job(cli, ignored),
                Err(e) => exit_for_clap(e),
            }
        }
        Some("completions") => {
            let mut rest = vec![OsString::from("wavec completions")];
            rest.extend(args.into_iter().skip(2));
            match CompletionsCli::try_parse_from(rest) {
                Ok(cli) => {
                    let mut cmd = args::command_tree();
                    clap_complete::generate(cli.shell, &mut cmd, "wavec", &mut std::io::stdout());
                    0
                }
                Err(e) => exit_for_clap(e),
            }
        }
        _ => match CompileCli::try_parse_from(args) {
            Ok(cli) => compile::job(cli, ignored),
            Err(e) => exit_for_clap(e),
        },
    }
}

fn exit_for_clap(e: clap::Error) -> i32 {
    let code = if e.use_stderr() { 2 } else { 0 };
    let _ = e.print();
    code
}

/// Why [`options`] gave no options.
pub enum Stop {
    /// A usage error (exit 2).
    Usage(Diagnostic),
    /// Text asked for instead of a compilation (`--limit help`).
    Help(String),
}

impl From<Diagnostic> for Stop {
    fn from(d: Diagnostic) -> Stop {
        Stop::Usage(d)
    }
}

/// The optimization level of `-O<level>` (`--opt-level`): -Od/-O0 none,
/// -O1..-O3 (and -O, which is -O3) the optimizing pipeline; dxc's -O3 by default.
fn opt_level(level: Option<&str>) -> Result<OptLevel, Diagnostic> {
    match level {
        Some("0") => Ok(OptLevel::O0),
        None | Some("1") | Some("2") | Some("3") | Some("s") => Ok(OptLevel::O),
        Some(other) => Err(Diagnostic::error("E0502", format!("unknown optimization level `-O{other}`"))
            .with_note("use -Od or -O0 (no optimization), or -O1, -O2, -O3 or -O (optimize; the default)")),
    }
}

/// The compile options of the command line, and the warnings about the
/// command line itself (unknown `-W` names), already through the warning policy.
fn options(common: &CommonArgs, isa: Isa) -> Result<(CompileOptions, Vec<Diagnostic>), Stop> {
    let name = common.target.as_deref().unwrap_or("generic");
    let target = target::preset(name).ok_or_else(|| {
        let names: Vec<&str> = target::presets().iter().map(|t| t.name).collect();
        Diagnostic::error("E0501", format!("unknown target `{name}`; known targets: {}", names.join(", ")))
    })?;
    let opt = opt_level(common.opt.as_deref())?;
    if let Some(TargetOccupancy::Waves(0)) = common.target_occupancy {
        return Err(Diagnostic::error("E0503", "--target-occupancy must be at least 1").into());
    }
    if let Some(0) = common.max_registers {
        return Err(Diagnostic::error("E0510", "--max-registers must be at least 1").into());
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
                .ok_or_else(|| Diagnostic::error("E0508", format!("-HV takes 2016, 2017, 2018, 2021 or 202x, not `{y}`")))?,
        ),
    };
    let mut o = CompileOptions::new(target);
    o.isa = isa;
    o.opt = opt;
    o.target_occupancy = match common.target_occupancy {
        Some(TargetOccupancy::Waves(n)) => Some(n),
        Some(TargetOccupancy::Auto) | None => None,
    };
    o.max_registers = common.max_registers;
    for name in &common.disable {
        if !o.disable(name) {
            return Err(Diagnostic::error(
                "E0511",
                format!("`--disable {name}`: no such optimization; these can be turned off: {}", CompileOptions::disableable().join(", ")),
            )
            .into());
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
        o.denorm = wavec::options::Denorm::parse(d)
            .ok_or_else(|| Diagnostic::error("E0508", format!("-denorm takes any, preserve or ftz, not `{d}`")))?;
    }
    o.row_major_default = common.zpr;
    for l in &common.limits {
        if l == "help" {
            return Err(Stop::Help(limits_help()));
        }
        o.limits.set(l).map_err(|e| Diagnostic::error("E0513", e))?;
    }
    for a in &common.array_sizes {
        let parsed = a.rsplit_once('=').and_then(|(r, n)| Some((wavec::interface::Binding::parse(r)?, n.trim().parse::<u32>().ok()?)));
        match parsed {
            Some(rn) => o.descriptor_counts.push(rn),
            None => {
                return Err(Diagnostic::error("E0509", format!("--array-size takes REG=N such as u1=8 or t0,space2=4, not `{a}`")).into())
            }
        }
    }
    if let Some(p) = &o.profile {
        if !o.preprocessor().set_profile(p) {
            return Err(Diagnostic::error("E0508", format!("-T takes a profile such as cs_6_5, not `{p}`")).into());
        }
    }
    let mut unknown = Vec::new();
    for w in &common.warnings {
        if let Err(e) = o.warnings.apply_flag(w) {
            unknown.push(e.diagnostic());
        }
    }
    o.warnings.silence_all = common.no_warnings;
    let said = o.warnings.apply(unknown);
    Ok((o, said))
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

fn isa_of(a: Option<IsaArg>) -> Isa {
    match a {
        None | Some(IsaArg::Wave) => Isa::Wave,
        Some(IsaArg::Wave012) => Isa::Wave012,
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

fn run_job(cli: RunCli, ignored: Option<Diagnostic>) -> i32 {
    let (opts, said) = match options(&cli.common, isa_of(cli.common.isa)) {
        Ok(o) => o,
        Err(Stop::Help(text)) => {
            eprint!("{text}");
            return 2;
        }
        Err(Stop::Usage(d)) => {
            eprint!("{}", wavec::diag::render(&wavec::diag::Sources::new(), &[d]));
            return 2;
        }
    };
    let said: Vec<Diagnostic> = opts.warnings.apply(ignored.into_iter().collect()).into_iter().chain(said).collect();
    eprint!("{}", wavec::diag::render(&wavec::diag::Sources::new(), &said));
    if said.iter().any(Diagnostic::is_error) {
        return 2;
    }
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
    if cli.common.target_occupancy == Some(TargetOccupancy::Auto) {
        return advise::run_job(cli, &test, &ropts);
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
pub(crate) fn write_output(path: &std::path::Path, bytes: &[u8]) -> Result<(), i32> {
    use std::io::Write;
    let r = if path.as_os_str() == "-" { std::io::stdout().write_all(bytes) } else { std::fs::write(path, bytes) };
    r.map_err(|e| {
        eprintln!("error[E0506]: cannot write {}: {e}", path.display());
        2
    })
}
