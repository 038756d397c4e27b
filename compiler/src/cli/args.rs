//! The command lines, as clap reads them (after [`super::dxc`] has rewritten
//! dxc's single-dash spellings), grouped under the headings of dxc's help.

use clap::{Parser, ValueEnum};
use std::path::PathBuf;

pub const OUTPUT: &str = "Output";
pub const OPTIMIZATION: &str = "Optimization";
pub const PREPROCESSOR: &str = "Preprocessor";
pub const LANGUAGE: &str = "Language";
pub const CODEGEN: &str = "Code generation";
pub const DIAGNOSTICS: &str = "Diagnostics";
pub const LIMITS: &str = "Resource limits";
pub const SIMULATOR: &str = "Simulator";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IsaArg {
    /// WAVE spec v0.4 (default)
    Wave,
    /// What the published wave-asm/wave-emu 0.1.2 crates execute correctly
    #[value(name = "wave-0.1.2")]
    Wave012,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
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
    pub fn backend(self) -> Option<wavec::emit::backends::Backend> {
        use wavec::emit::backends::Backend;
        match self {
            Emit::Ptx => Some(Backend::Ptx),
            Emit::Hip => Some(Backend::Hip),
            Emit::Metal => Some(Backend::Metal),
            Emit::Sycl => Some(Backend::Sycl),
            _ => None,
        }
    }
}

/// `--target-occupancy N` or `--target-occupancy auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetOccupancy {
    Waves(u32),
    /// The occupancy advisor (`wavec::run::advisor`) picks the target.
    Auto,
}

fn parse_target_occupancy(s: &str) -> Result<TargetOccupancy, String> {
    if s == "auto" {
        return Ok(TargetOccupancy::Auto);
    }
    s.parse::<u32>().map(TargetOccupancy::Waves).map_err(|_| format!("expected a number of waves per core or `auto`, not `{s}`"))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DiagFormat {
    /// Rendered for people, with source excerpts
    #[default]
    Human,
    /// One JSON object per diagnostic, one per line
    Json,
    /// One SARIF 2.1.0 log (for code-scanning tools)
    Sarif,
}

/// Options shared by compiling and running.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Optimization level, spelled as dxc's: -Od or -O0 (none: the plain translation),
    /// -O1, -O2, -O3 or -O (optimize; all four run the same pipeline). Default: -O3, as dxc
    #[arg(long = "opt-level", value_name = "LEVEL", help_heading = OPTIMIZATION)]
    pub opt: Option<String>,
    /// Turn an optimization off, to measure what it buys (repeatable; `--disable help` lists them)
    #[arg(long = "disable", value_name = "PASS", help_heading = OPTIMIZATION)]
    pub disable: Vec<String>,
    /// Waves per core the kernel should reach; `auto`: the fastest target by simulation
    /// (`wavec run`, or a compile with --tune-with FILE.test)
    #[arg(long, value_name = "N|auto", value_parser = parse_target_occupancy, help_heading = OPTIMIZATION)]
    pub target_occupancy: Option<TargetOccupancy>,
    /// Use at most N registers per thread, spilling what does not fit (like nvcc's -maxrregcount)
    #[arg(long, value_name = "N", help_heading = OPTIMIZATION)]
    pub max_registers: Option<u32>,
    /// Search DIR for #include files (after the including file's directory, before the standard library)
    #[arg(short = 'I', value_name = "DIR", help_heading = PREPROCESSOR)]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro: NAME, NAME=VALUE or NAME(ARGS)=VALUE
    #[arg(short = 'D', value_name = "NAME[=VALUE]", help_heading = PREPROCESSOR)]
    pub defines: Vec<String>,
    /// Undefine a macro (after every -D)
    #[arg(short = 'U', value_name = "NAME", help_heading = PREPROCESSOR)]
    pub undefines: Vec<String>,
    /// Output ISA profile [default: wave]
    #[arg(long, value_enum, help_heading = CODEGEN)]
    pub isa: Option<IsaArg>,
    /// Machine model (see --print-targets; default generic, or for `wavec run` the
    /// test's `# wavec: --target NAME` header)
    #[arg(long, help_heading = CODEGEN)]
    pub target: Option<String>,
    /// D3D robust buffer access: out-of-bounds buffer loads give 0, stores and atomics are
    /// dropped (bounds checks against buffer sizes passed in the ABI)
    #[arg(long = "robust-access", help_heading = CODEGEN)]
    pub robust_access: bool,
    /// The host binds N descriptors from register REG on (`u1=8`, `t0,space2=4`): the size
    /// of an unbounded resource array declared there (`wavec run` takes it from the pipeline)
    #[arg(long = "array-size", value_name = "REG=N", help_heading = CODEGEN)]
    pub array_sizes: Vec<String>,
    /// Entry point (like dxc's -E)
    #[arg(short = 'E', long = "entry", value_name = "NAME", help_heading = LANGUAGE)]
    pub entry: Option<String>,
    /// Target profile such as cs_6_5 (sets __SHADER_TARGET_MAJOR/MINOR)
    #[arg(short = 'T', value_name = "PROFILE", help_heading = LANGUAGE)]
    pub profile: Option<String>,
    /// HLSL version: 2016, 2017, 2018 (pre-2021 rules) or 2021, 202x (default 2021; 2018 for .compute files)
    #[arg(long = "HV", value_name = "YEAR", help_heading = LANGUAGE)]
    pub hlsl_version: Option<String>,
    /// half, min16float, min16int, min16uint and int16_t/uint16_t/float16_t are 16-bit types (as with dxc)
    #[arg(long = "enable-16bit-types", help_heading = LANGUAGE)]
    pub enable_16bit_types: bool,
    /// fp32 denormals: any (default; IEEE here), preserve, or ftz (flushed by arithmetic, as
    /// D3D requires; `wavec run` resolves any as ftz)
    #[arg(long = "denorm", value_name = "MODE", help_heading = LANGUAGE)]
    pub denorm: Option<String>,
    /// Strict IEEE: never contract `a * b + c` into one fused multiply-add (dxc's -Gis;
    /// `precise` anywhere in the program does the same)
    #[arg(long = "strict-ieee", help_heading = LANGUAGE)]
    pub strict_ieee: bool,
    /// Matrices are row-major in memory by default (like dxc's -Zpr)
    #[arg(long = "Zpr", conflicts_with = "zpc", help_heading = LANGUAGE)]
    pub zpr: bool,
    /// Matrices are column-major in memory by default (like dxc's -Zpc; the default)
    #[arg(long = "Zpc", help_heading = LANGUAGE)]
    pub zpc: bool,
    /// Warnings: -WX or -Werror (every warning is an error), -WNAME / -Wno-NAME (report or
    /// silence one warning, by name or code, or a group: conversion, all), -Werror=NAME,
    /// -Wno-error=NAME (names: docs/diagnostics.md)
    #[arg(short = 'W', value_name = "WARNING", help_heading = DIAGNOSTICS)]
    pub warnings: Vec<String>,
    /// Silence every warning and note (dxc's -no-warnings)
    #[arg(short = 'w', help_heading = DIAGNOSTICS)]
    pub no_warnings: bool,
    /// Say on stderr how the source is read (the HLSL version in force and why)
    #[arg(short = 'v', long, help_heading = DIAGNOSTICS)]
    pub verbose: bool,
    /// Change a resource limit (repeatable): file-size, includes, pp-output, ..., memory
    /// (`--limit help` lists them with their defaults)
    #[arg(long = "limit", value_name = "NAME=VALUE", help_heading = LIMITS)]
    pub limits: Vec<String>,
}

#[derive(Parser, Debug)]
#[command(
    name = "wavec",
    version,
    about = "Compile HLSL compute shaders to WAVE assembly",
    long_about = "Compile HLSL compute shaders to WAVE assembly.\n\n\
        dxc's single-dash spellings work as they are: -Fo, -Fc, -Fh, -Vn, -Fre, -MD, -MF, -HV,\n\
        -Zpr, -Zpc, -enable-16bit-types, -denorm, -Od, -O0..-O3, -Gis, -no-warnings; other dxc\n\
        options without effect on WAVE code (-Zi, -Qstrip_debug, -fspv-*, ...) are ignored with a note.",
    after_help = "Run a pipeline test: wavec run FILE.test | wavec run pipeline.yaml source.hlsl (wavec run --help)\n\
        Shell completions: wavec completions bash|zsh|fish|elvish|powershell"
)]
pub struct CompileCli {
    /// HLSL source file
    #[arg(required_unless_present = "print_targets")]
    pub file: Option<PathBuf>,
    /// Write what --emit names to OUT (default: stdout; for --emit wbin, FILE with .wbin;
    /// nothing when only -Fo/-Fc/-Fh/-Fre are given, as dxc)
    #[arg(short = 'o', value_name = "OUT", help_heading = OUTPUT)]
    pub output: Option<PathBuf>,
    /// What -o (or stdout) gets [default: asm]
    #[arg(long, value_enum, help_heading = OUTPUT)]
    pub emit: Option<Emit>,
    /// Write the binary (.wbin, as --emit wbin; implies --isa wave-0.1.2) to FILE (dxc's -Fo)
    #[arg(long = "Fo", value_name = "FILE", help_heading = OUTPUT)]
    pub fo: Option<PathBuf>,
    /// Write the annotated listing of the same compilation to FILE (dxc's -Fc)
    #[arg(long = "Fc", value_name = "FILE", help_heading = OUTPUT)]
    pub fc: Option<PathBuf>,
    /// Write a C header holding the binary as a byte array to FILE (dxc's -Fh; implies --isa wave-0.1.2)
    #[arg(long = "Fh", value_name = "FILE", help_heading = OUTPUT)]
    pub fh: Option<PathBuf>,
    /// The byte array's name in the -Fh header [default: g_ENTRY, as dxc: g_main]
    #[arg(long = "Vn", value_name = "NAME", help_heading = OUTPUT)]
    pub vn: Option<String>,
    /// Write the reflection: the launch interface as JSON (as --emit abi) to FILE (dxc's -Fre)
    #[arg(long = "Fre", value_name = "FILE", help_heading = OUTPUT)]
    pub fre: Option<PathBuf>,
    /// Write the IR (as --emit ir) with, for each divergent value, the whole chain of
    /// reasons back to its source of divergence
    #[arg(long, help_heading = OUTPUT)]
    pub explain_uniformity: bool,
    /// List the machine models and exit
    #[arg(long, help_heading = OUTPUT)]
    pub print_targets: bool,
    /// With --target-occupancy auto: the pipeline test (FILE.test, or a pipeline YAML) whose
    /// dispatch and expected buffers choose the target; the listing's header says how
    #[arg(long = "tune-with", value_name = "FILE.test", help_heading = OPTIMIZATION)]
    pub tune_with: Option<PathBuf>,
    #[command(flatten)]
    pub common: CommonArgs,
    /// Print a make rule listing every file read (the source and its #includes) to stdout
    /// (or the -MF file), and nothing else (no compilation; the rule names the files -Fo, -Fc, ...
    /// would write; -MM is the same)
    #[arg(short = 'M', help_heading = PREPROCESSOR)]
    pub deps_only: bool,
    /// Compile and also write the make rule to the first output's name with .d (or -MF's;
    /// without an output file, FILE's stem with .d; -MMD is the same)
    #[arg(long = "MD", help_heading = PREPROCESSOR)]
    pub deps_too: bool,
    /// Where -M or -MD writes the make rule (alone, it means -MD with this file)
    #[arg(long = "MF", value_name = "FILE", help_heading = PREPROCESSOR)]
    pub deps_file: Option<PathBuf>,
    /// How diagnostics are written to stderr
    #[arg(long = "diagnostics-format", value_enum, default_value = "human", value_name = "FORMAT", help_heading = DIAGNOSTICS)]
    pub diagnostics_format: DiagFormat,
}

#[derive(Parser, Debug)]
#[command(name = "wavec run", about = "Compile, simulate and check a pipeline test (.test, or pipeline.yaml + source.hlsl)")]
pub struct RunCli {
    /// A .test file, or a pipeline.yaml followed by its HLSL source
    #[arg(required = true, num_args = 1..=2)]
    pub files: Vec<PathBuf>,
    /// Print occupancy, cycles and memory statistics to stderr
    #[arg(long, help_heading = SIMULATOR)]
    pub stats: bool,
    /// Write the statistics as JSON to FILE (`-` for stdout, after the pipeline)
    #[arg(long = "stats-json", value_name = "FILE", help_heading = SIMULATOR)]
    pub stats_json: Option<PathBuf>,
    /// Write a self-contained HTML report (occupancy curves, register pressure, timeline) to FILE
    #[arg(long = "report", value_name = "FILE", help_heading = SIMULATOR)]
    pub report: Option<PathBuf>,
    /// Compute units of the simulated GPU (default: the target's)
    #[arg(long = "compute-units", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096), help_heading = SIMULATOR)]
    pub compute_units: Option<u32>,
    /// What-if: admit workgroups as if the kernel allocated N registers per thread (changes occupancy, not the code)
    #[arg(long = "registers", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256), help_heading = SIMULATOR)]
    pub registers: Option<u32>,
    /// Fault on reading a register a lane never wrote (catches compiler bugs)
    #[arg(long, help_heading = SIMULATOR)]
    pub strict: bool,
    /// Skip the cycle model (faster; buffers are the same)
    #[arg(long = "no-timing", help_heading = SIMULATOR)]
    pub no_timing: bool,
    /// An out-of-bounds buffer access is a fault (by default `wavec run` then runs the
    /// kernel again with --robust-access, D3D's robust buffer access, and warns)
    #[arg(long = "strict-bounds", help_heading = SIMULATOR)]
    pub strict_bounds: bool,
    /// Echo final buffers in the shortest exact spelling (floats that read back to the
    /// same bits) instead of the offloader's (`%g` floats, `0xABC` hex)
    #[arg(long, help_heading = SIMULATOR)]
    pub exact: bool,
    /// Stop the run once its workgroups have issued more than N wave-instructions in all
    /// (the `instructions` limit)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = SIMULATOR)]
    pub max_instructions: Option<u64>,
    /// After the run, write the GPU check's plan to FILE (JSON: the kernel as wave-ptx
    /// translates it, the launch, device memory before and after; tools/gpu-check)
    #[arg(long = "gpu-plan", value_name = "FILE", help_heading = SIMULATOR)]
    pub gpu_plan: Option<PathBuf>,
    /// Do not simulate: check the results in FILE, device memory as a run on a GPU left
    /// it (laid out as `--gpu-plan` says; tools/gpu-check)
    #[arg(long = "device-memory", value_name = "FILE", help_heading = SIMULATOR)]
    pub device_memory: Option<PathBuf>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Parser, Debug)]
#[command(name = "wavec completions", about = "Print a shell completion script for wavec")]
pub struct CompletionsCli {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The whole command tree (compile, `run`, `completions`), for completion scripts.
pub fn command_tree() -> clap::Command {
    use clap::CommandFactory;
    CompileCli::command().subcommand(RunCli::command().name("run")).subcommand(CompletionsCli::command().name("completions"))
}
