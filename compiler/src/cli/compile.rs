//! The compile job: `wavec FILE [options]`. What it writes:
//!
//! - what `--emit` names (the listing by default) to `-o` or stdout, unless
//!   only dxc's file outputs are asked for, as dxc writes nothing else then;
//! - dxc's outputs, all from the one compilation: `-Fo` the binary, `-Fc` the
//!   listing, `-Fh` the binary as a C header ([`super::header`]), `-Fre` the
//!   launch interface as JSON;
//! - with `-M`, only the make rule of the files read (after preprocessing);
//!   with `-MD`, also the rule, beside the first output ([`super::depfile`]).
//!
//! A binary (`-Fo`, `-Fh`, `--emit wbin`) is assembled by wave-asm 0.1.2,
//! so the compilation is for `--isa wave-0.1.2` and the listings are of that code.

use std::path::{Path, PathBuf};

use super::args::{CompileCli, Emit, IsaArg, TargetOccupancy};
use super::report::Reporter;
use super::{advise, depfile, header, isa_of, options, print_targets, Stop};
use wavec::diag::{Diagnostic, Sources};
use wavec::driver::{compile_input, CompileOptions, Compiled, Isa};
use wavec::source::Input;

/// Runs the job; returns the exit code.
pub fn job(cli: CompileCli, ignored: Option<Diagnostic>) -> i32 {
    if cli.print_targets {
        return print_targets();
    }
    let mut rep = Reporter::new(cli.diagnostics_format);
    let code = compile(&cli, ignored, &mut rep);
    rep.finish(code)
}

/// The files a compile job writes besides `-o`/stdout.
struct FileOutputs<'a> {
    binary: Option<&'a Path>,
    listing: Option<&'a Path>,
    header: Option<&'a Path>,
    reflection: Option<&'a Path>,
}

impl FileOutputs<'_> {
    fn any(&self) -> bool {
        self.binary.is_some() || self.listing.is_some() || self.header.is_some() || self.reflection.is_some()
    }
}

fn compile(cli: &CompileCli, ignored: Option<Diagnostic>, rep: &mut Reporter) -> i32 {
    let Some(path) = cli.file.as_deref() else { return 2 };
    let files =
        FileOutputs { binary: cli.fo.as_deref(), listing: cli.fc.as_deref(), header: cli.fh.as_deref(), reflection: cli.fre.as_deref() };
    let emit = if cli.explain_uniformity { Emit::Ir } else { cli.emit.unwrap_or(Emit::Asm) };
    // dxc writes nothing to stdout when asked for files; `-o` or `--emit` still ask for theirs.
    let primary = !cli.deps_only && (cli.output.is_some() || cli.emit.is_some() || cli.explain_uniformity || !files.any());
    let binary = files.binary.is_some() || files.header.is_some() || (primary && emit == Emit::Wbin);
    // .wbin is written by wave-asm 0.1.2, which only takes the 0.1.2 profile;
    // the published backends translate that profile too.
    let backend = if primary { emit.backend() } else { None };
    let isa = if (binary || backend.is_some()) && !cli.deps_only { Isa::Wave012 } else { isa_of(cli.common.isa) };
    let mut said: Vec<Diagnostic> = ignored.into_iter().collect();
    if binary && cli.common.isa == Some(IsaArg::Wave) {
        said.push(Diagnostic::note("W0503", "a binary output (-Fo, -Fh, --emit wbin) implies --isa wave-0.1.2"));
    } else if backend.is_some() && cli.common.isa == Some(IsaArg::Wave) {
        said.push(Diagnostic::note("W0503", "--emit ptx|hip|metal|sycl implies --isa wave-0.1.2"));
    }
    if cli.vn.is_some() && files.header.is_none() {
        said.push(Diagnostic::note("W0502", "ignoring -Vn: it names the array of a -Fh header, and there is none"));
    }
    let (mut opts, warned) = match options(&cli.common, isa) {
        Ok(o) => o,
        Err(Stop::Help(text)) => {
            eprint!("{text}");
            return 2;
        }
        Err(Stop::Usage(d)) => {
            rep.report_one(d);
            return 2;
        }
    };
    let mut said = opts.warnings.apply(said);
    said.extend(warned);
    if let Some(name) = cli.vn.as_deref().filter(|n| !header::is_c_identifier(n)) {
        said.push(Diagnostic::error("E0514", format!("-Vn `{name}` is not a C identifier (letters, digits and `_`, not first a digit)")));
    }
    let auto = cli.common.target_occupancy == Some(TargetOccupancy::Auto);
    if auto && cli.tune_with.is_none() {
        said.push(
            Diagnostic::error("E0515", "--target-occupancy auto needs a pipeline test to time the candidates on")
                .with_note("add --tune-with FILE.test (or `wavec run FILE.test --target-occupancy auto` prints the whole table)"),
        );
    } else if cli.tune_with.is_some() && !auto {
        said.push(Diagnostic::note("W0502", "ignoring --tune-with: it only serves --target-occupancy auto"));
    }
    rep.report(&Sources::new(), &said);
    if said.iter().any(Diagnostic::is_error) {
        return 2;
    }
    opts.explain_uniformity = cli.explain_uniformity;
    let input = match Input::from_path_limited(path, opts.limits.file_bytes) {
        Ok(i) => i,
        Err(d) => {
            rep.report_one(d);
            return 1;
        }
    };
    if cli.common.verbose {
        eprintln!("{}", wavec::driver::describe_hlsl_version(&input, &opts));
    }
    if cli.deps_only {
        let Some(sources) = preprocess(&input, &opts, rep).map(|(s, _)| s) else { return 1 };
        // The targets are the files the same command line without -M would write.
        let fallback = stem_with(path, "wbin");
        let mut targets: Vec<&Path> =
            [files.binary, files.listing, files.header, files.reflection, cli.output.as_deref()].into_iter().flatten().collect();
        if targets.is_empty() {
            targets.push(&fallback);
        }
        let rule = depfile::make_rule(&targets, &sources.paths_read());
        return match &cli.deps_file {
            Some(f) => write(f, rule.as_bytes(), rep),
            None => write_stdout(rule.as_bytes()),
        };
    }
    // `--target-occupancy auto --tune-with TEST`: the advisor's target, and a header line saying so.
    let mut chosen_by = None;
    if let (true, Some(test)) = (auto, cli.tune_with.as_deref()) {
        let mut ropts = wavec::run::RunOptions::new(opts.target.clone());
        ropts.compile = opts.clone();
        ropts.d3d_denormals = true;
        ropts.max_instructions = opts.limits.group_instructions;
        match advise::tune(&input, test, ropts) {
            Ok((target, header)) => {
                opts.target_occupancy = target;
                chosen_by = Some(header);
            }
            Err(d) => {
                rep.report_one(d);
                return 2;
            }
        }
    }
    let mut written: Vec<PathBuf> = Vec::new();
    let mut read: Option<Sources> = None;
    if primary && emit == Emit::Pp {
        let Some((sources, text)) = preprocess(&input, &opts, rep) else { return 1 };
        if let Err(code) = put(cli.output.as_deref(), text.as_bytes(), rep, &mut written) {
            return code;
        }
        read = Some(sources);
    }
    if (primary && emit != Emit::Pp) || files.any() {
        let c = compile_input(&input, &opts, cfg!(debug_assertions));
        let compiled = match c.result {
            Ok(mut c) => {
                if let Some(h) = &chosen_by {
                    c.asm = format!("{h}\n{}", c.asm);
                }
                c
            }
            Err(diags) => {
                rep.report(&c.sources, &diags);
                return 1;
            }
        };
        rep.report(&c.sources, &compiled.warnings);
        let wbin = if binary {
            match wavec::emit::assemble_wbin(&compiled.asm, &input.main.name) {
                Ok(b) => Some(b),
                Err(e) => {
                    let d =
                        Diagnostic::error("E0405", e).with_note("this is a bug in wavec: the wave-0.1.2 listing should always assemble");
                    rep.report(&c.sources, &[d]);
                    return 1;
                }
            }
        } else {
            None
        };
        if let Err(code) = write_files(cli, &files, &compiled, wbin.as_deref(), &opts, rep, &mut written) {
            return code;
        }
        if primary && emit != Emit::Pp {
            let bytes = match emit {
                Emit::Asm | Emit::Pp => compiled.asm.into_bytes(),
                Emit::Ir => compiled.ir.into_bytes(),
                Emit::Abi => (compiled.interface.to_json() + "\n").into_bytes(),
                Emit::Wbin => wbin.unwrap_or_default(),
                Emit::Ptx | Emit::Hip | Emit::Metal | Emit::Sycl => {
                    let backend = emit.backend().expect("a backend output");
                    if backend == wavec::emit::backends::Backend::Ptx {
                        let workgroup = compiled.interface.workgroup_size;
                        let warned = opts
                            .warnings
                            .apply(wavec::emit::backends::partial_warp_warning(&compiled.asm, workgroup).into_iter().collect());
                        rep.report(&c.sources, &warned);
                        if warned.iter().any(Diagnostic::is_error) {
                            return 1;
                        }
                    }
                    match wavec::emit::backends::translate_listing(backend, &compiled.asm, &input.main.name) {
                        Ok(text) => text.into_bytes(),
                        Err(e) => {
                            let d = Diagnostic::error("E0410", e).with_note(
                                "the published backend did not take wavec's wave-0.1.2 output: a bug in wavec or a limit of the crate (docs/backends.md)",
                            );
                            rep.report(&c.sources, &[d]);
                            return 1;
                        }
                    }
                }
            };
            let out = cli.output.clone().or_else(|| (emit == Emit::Wbin).then(|| path.with_extension("wbin")));
            if let Err(code) = put(out.as_deref(), &bytes, rep, &mut written) {
                return code;
            }
        }
        read = Some(c.sources);
    }
    if cli.deps_too || cli.deps_file.is_some() {
        let sources = read.unwrap_or_default();
        // Output to stdout only: the rule names FILE's binary, as clang names `FILE.o`.
        let fallback = stem_with(path, "wbin");
        let targets: Vec<&Path> =
            if written.is_empty() { vec![fallback.as_path()] } else { written.iter().map(PathBuf::as_path).collect() };
        let rule = depfile::make_rule(&targets, &sources.paths_read());
        let deps = cli.deps_file.clone().unwrap_or_else(|| match written.first() {
            Some(first) => first.with_extension("d"),
            None => stem_with(path, "d"),
        });
        return write(&deps, rule.as_bytes(), rep);
    }
    0
}

/// `-Fo`, `-Fc`, `-Fh`, `-Fre`.
fn write_files(
    cli: &CompileCli,
    files: &FileOutputs,
    compiled: &Compiled,
    wbin: Option<&[u8]>,
    opts: &CompileOptions,
    rep: &mut Reporter,
    written: &mut Vec<PathBuf>,
) -> Result<(), i32> {
    let wbin = wbin.unwrap_or_default();
    if let Some(f) = files.binary {
        put(Some(f), wbin, rep, written)?;
    }
    if let Some(f) = files.listing {
        put(Some(f), compiled.asm.as_bytes(), rep, written)?;
    }
    if let Some(f) = files.header {
        let name = cli.vn.clone().unwrap_or_else(|| header::default_name(&compiled.interface.kernel));
        let source = cli.file.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
        let about = format!("{source}, entry `{}`, --isa {}", compiled.interface.kernel, opts.isa.name());
        let text = header::c_header(&name, wbin, &compiled.asm, &about);
        put(Some(f), text.as_bytes(), rep, written)?;
    }
    if let Some(f) = files.reflection {
        put(Some(f), (compiled.interface.to_json() + "\n").as_bytes(), rep, written)?;
    }
    Ok(())
}

/// Preprocesses alone (`--emit pp`, `-M`): the files read and the text, or
/// `None` after reporting the errors.
fn preprocess(input: &Input, opts: &CompileOptions, rep: &mut Reporter) -> Option<(Sources, String)> {
    let (sources, pp) = wavec::frontend::preprocess::preprocess(input, &opts.preprocessor());
    let diags = match pp {
        Ok(pp) => {
            let said = opts.warnings.apply(pp.diagnostics);
            rep.report(&sources, &said);
            if said.iter().any(Diagnostic::is_error) {
                return None;
            }
            let mut text = pp.text;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            return Some((sources, text));
        }
        Err(diags) => diags,
    };
    rep.report(&sources, &opts.warnings.apply(diags));
    None
}

/// FILE's name (in the current directory) with extension `ext`, as clang names `-MD`'s file.
fn stem_with(path: &Path, ext: &str) -> PathBuf {
    PathBuf::from(path.file_name().unwrap_or(path.as_os_str())).with_extension(ext)
}

/// Writes `bytes` to `path`, or to stdout without one; notes a file written.
fn put(path: Option<&Path>, bytes: &[u8], rep: &mut Reporter, written: &mut Vec<PathBuf>) -> Result<(), i32> {
    match path {
        Some(p) => {
            if write(p, bytes, rep) != 0 {
                return Err(1);
            }
            written.push(p.to_path_buf());
            Ok(())
        }
        None => match write_stdout(bytes) {
            0 => Ok(()),
            code => Err(code),
        },
    }
}

fn write(path: &Path, bytes: &[u8], rep: &mut Reporter) -> i32 {
    match std::fs::write(path, bytes) {
        Ok(()) => 0,
        Err(e) => {
            rep.report_one(Diagnostic::error("E0506", format!("cannot write {}: {e}", path.display())));
            1
        }
    }
}

fn write_stdout(bytes: &[u8]) -> i32 {
    use std::io::Write;
    let _ = std::io::stdout().write_all(bytes);
    0
}
