//! Fuzz targets, driven by `cargo test` (stable Rust, no cargo-fuzz): a
//! mutator over seed inputs from the repository, each input checked in-process
//! under `catch_unwind`.
//!
//! | target | input | what must hold |
//! |---|---|---|
//! | `frontend` | HLSL source (bytes) | preprocessing, parsing, semantic analysis and lowering never panic; every diagnostic has a documented code and renders; lowered IR verifies |
//! | `preprocessor` | a split-file `.test` text (`#--- name` sections are includable files) | preprocessing never panics and stays within its limits (output size); diagnostics render |
//! | `pipeline` | pipeline YAML | the reader never panics; a pipeline it accepts prints back (`--exact`) to text that reads back to the same pipeline |
//! | `ir` | IR text | the parser and verifier never panic; a function that verifies prints, parses back and prints the same |
//! | `compile` | a `.test` file | compiling and simulating never panic or hit an internal error; where -O0 runs to completion, -O, both ISAs and register budgets (`--target-occupancy`, `--max-registers`) give the same buffers |
//!
//! Short runs (a fixed seed, a few seconds each) are part of `cargo test`;
//! `WAVEC_FUZZ_ITERATIONS=N` and `WAVEC_FUZZ_SEED=S` change them. A long run
//! (README, "Fuzzing") is the ignored test `fuzz_long`:
//! `WAVEC_FUZZ_SECONDS=3600 WAVEC_FUZZ_TARGETS=frontend cargo test --release -p wavec-tests --test fuzz -- --ignored --nocapture fuzz_long`.
//!
//! A finding (a panic, or a check that fails) is written to
//! `target/fuzz/TARGET/crash-HASH.EXT` and fails the test; long runs also keep
//! inputs that take more than `WAVEC_FUZZ_SLOW_SECONDS` (default 10) of CPU
//! time (wall-clock time where Linux's per-thread figure is missing) as `slow-HASH.EXT`
//! (speed is reported, not asserted) and the input being run as `current.EXT`,
//! which an abort leaves behind. Every finding, once fixed, goes into
//! `tests/fuzz/TARGET/` with a comment saying what it broke: `fuzz_corpus_replays`
//! runs them all, and campaigns start from them.

#[path = "fuzz_engine.rs"]
mod engine;

use std::sync::OnceLock;
use std::time::Duration;

use engine::*;
use wavec::diag::{render, Diagnostic, SourceFile};
use wavec::driver::{Isa, OptLevel};
use wavec::frontend::preprocess::{preprocess, PpOptions};
use wavec::run::{self, RunOptions};
use wavec::source::Input;
use wavec_tests::*;

// ---- the targets -----------------------------------------------------------------

/// Tokens the HLSL mutations insert.
const HLSL_DICT: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "&&",
    "||",
    "?",
    ":",
    "!",
    "~",
    "++",
    "--",
    "==",
    "!=",
    "<",
    ">=",
    ".",
    "if",
    "else",
    "else if (x)",
    "for",
    "while",
    "do",
    "switch",
    "case 1:",
    "default:",
    "break;",
    "continue;",
    "return;",
    "discard;",
    "int",
    "uint",
    "float",
    "half",
    "double",
    "int64_t",
    "uint64_t",
    "bool",
    "float4",
    "int2x2",
    "struct S { float a; };",
    "groupshared float g[64];",
    "static const int k = 3;",
    "[numthreads(64,1,1)]",
    "[unroll]",
    "[loop]",
    "[branch]",
    "SV_DispatchThreadID",
    "SV_GroupIndex",
    "RWStructuredBuffer<uint> B : register(u1);",
    "GroupMemoryBarrierWithGroupSync();",
    "WaveActiveSum(1)",
    "InterlockedAdd(B[0], 1)",
    "asuint(1.0f)",
    "0",
    "1",
    "-1",
    "4294967295",
    "0x7fffffff",
    "1e38",
    "1.#INF",
    "0.5f",
    "9223372036854775807",
    "18446744073709551615ull",
    "'",
    "\"",
    "\\",
    "/*",
    "*/",
    "//",
    "#define X 1\n",
    "#define F(a, b) a ## b\n",
    "#undef X\n",
    "#if 1\n",
    "#else\n",
    "#endif\n",
    "#line 0\n",
    "# 0\n",
    "#line 4294967295\n",
    "#include \"x.hlsli\"\n",
    "#pragma once\n",
    "#error e\n",
    "#warning w\n",
    "__LINE__",
    "__FILE__",
    "__VA_ARGS__",
    "#",
    "##",
    "\n",
    "\t",
    "\u{feff}",
    "\u{e9}",
    "\0",
];

/// Tokens the preprocessor mutations insert.
const PP_DICT: &[&str] = &[
    "#define A B B\n",
    "#define B C C\n",
    "#define C A\n",
    "#define F(x) x x\n",
    "#define G(x, ...) x ## __VA_ARGS__\n",
    "#define P(a) a ## a\n",
    "#define S(a) #a\n",
    "#define D(x) F(F(x))\n",
    "#define E()\n",
    "#undef A\n",
    "#include \"a.hlsli\"\n",
    "#include \"b.hlsli\"\n",
    "#include <a.hlsli>\n",
    "#include \"limits.hlsli\"\n",
    "#pragma once\n",
    "#if defined(A)\n",
    "#ifdef B\n",
    "#ifndef C\n",
    "#elif 1\n",
    "#else\n",
    "#endif\n",
    "#line 0\n",
    "# 0 \"z.hlsl\"\n",
    "#line 7 \"y\"\n",
    "#error boom\n",
    "#warning hm\n",
    "#pragma kernel main\n",
    "#pragma pack_matrix(row_major)\n",
    "#if 1/0\n",
    "#if (((((1)))))\n",
    "A",
    "B",
    "C",
    "F(",
    "G(",
    "P(",
    "S(",
    "D(",
    ")",
    "(",
    ",",
    "##",
    "#",
    "__VA_ARGS__",
    "__LINE__",
    "__FILE__",
    "defined",
    "_Pragma(\"x\")",
    "\\\n",
    "\"",
    "'",
    "0x",
    "1e",
    "\n#--- a.hlsli\n",
    "\n#--- b.hlsli\n",
];

/// Tokens the YAML mutations insert.
const YAML_DICT: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "- ",
    ":",
    ",",
    "\n",
    "  ",
    "#",
    "'",
    "\"",
    "&a",
    "*a",
    "!!str",
    "---\n",
    "...\n",
    "~",
    "null",
    "true",
    "0",
    "-0",
    "1.5",
    "nan",
    "-inf",
    "0x2a",
    "4294967296",
    "18446744073709551616",
    "1e999",
    "Data",
    "FillSize",
    "FillValue",
    "ArraySize",
    "Stride",
    "Channels",
    "Format",
    "Float16",
    "Hex64",
    "Bool",
    "Int16",
    "Buffers",
    "Results",
    "Rule",
    "BufferFloatULP",
    "ULPT",
    "Epsilon",
    "DescriptorSets",
    "Resources",
    "Kind",
    "RWByteAddressBuffer",
    "ConstantBuffer",
    "DirectXBinding",
    "Register",
    "Space",
    "VulkanBinding",
    "HasCounter",
    "DispatchGroupCount",
    "DispatchSize",
    "Counter",
    "[ 65535, 65535, 65535 ]",
    "[ [ [ [ 1 ] ] ] ]",
    "{ Name: X, Format: Int32, FillSize: 1073741824 }",
];

/// Tokens the IR mutations insert.
const IR_DICT: &[&str] = &[
    "v0",
    "v1",
    "v7",
    "v99",
    "v4294967295",
    "block0",
    "block1",
    "block9",
    "=",
    ",",
    "(",
    ")",
    "{",
    "}",
    ":",
    "iconst",
    "fconst",
    "iadd",
    "fmul",
    "sdiv",
    "icmp.eq",
    "select",
    "load.device",
    "store.device",
    "atomic_rmw.add.device",
    "barrier",
    "jump",
    "if",
    "loop",
    "break_if",
    "return",
    "i32",
    "f32",
    "b1",
    "i16",
    "f16",
    "i64",
    "f64",
    "pack64",
    "lo32",
    "hi32",
    "0x7fc00001",
    "-0",
    "kernel",
    "@main",
    "readable",
    "local_memory",
    "[unroll(4)]",
    "exit",
    "merge",
    "; pass: gvn\n",
    "\n",
];

fn mutate_hlsl(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    mutate_tokens(rng, base, pool, HLSL_DICT)
}

fn mutate_pp(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    mutate_tokens(rng, base, pool, PP_DICT)
}

fn mutate_yaml(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    mutate_tokens(rng, base, pool, YAML_DICT)
}

fn mutate_ir(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    mutate_tokens(rng, base, pool, IR_DICT)
}

/// Mutations that mostly keep a kernel valid: the source section of a `.test`
/// gets operator, constant and control-flow swaps (as `robustness.rs` makes),
/// now and then a token edit of the whole file.
fn mutate_test(rng: &mut Rng, base: &[u8], pool: &[Vec<u8>]) -> Vec<u8> {
    const SWAPS: &[(&str, &str)] = &[
        ("<", ">="),
        ("+", "*"),
        ("+", "-"),
        ("*", "^"),
        ("if (", "while ("),
        ("uint", "int"),
        ("int ", "float "),
        ("&&", "||"),
        ("0", "7"),
        ("1", "0"),
        ("2", "33"),
        ("{", "{ if (false) return; "),
        ("=", "+="),
        ("-", "/"),
        (">>", "<<"),
        ("?", "&& true ?"),
        (";", "; [unroll] for (int q = 0; q < 3; q++) {} "),
        ("else", "else if (true)"),
    ];
    if rng.chance(10) {
        return mutate_tokens(rng, base, pool, HLSL_DICT);
    }
    let mut text = String::from_utf8_lossy(base).into_owned();
    // Only inside the source section (the pipeline keeps its buffers).
    let lo = text.find("#--- source.hlsl\n").map_or(0, |i| i + 17);
    let hi = text.find("#--- pipeline.yaml").unwrap_or(text.len()).max(lo);
    for _ in 0..1 + rng.below(3) {
        let (from, to) = rng.pick(SWAPS);
        let hits: Vec<usize> = text[lo..hi].match_indices(from).map(|(i, _)| lo + i).collect();
        if hits.is_empty() {
            continue;
        }
        let at = hits[rng.below(hits.len())];
        text.replace_range(at..at + from.len(), to);
        break;
    }
    text.into_bytes()
}

/// Every diagnostic code documented in docs/diagnostics.md.
fn documented_codes() -> &'static Vec<String> {
    static CODES: OnceLock<Vec<String>> = OnceLock::new();
    CODES.get_or_init(|| {
        let doc = std::fs::read_to_string(repo_root().join("docs/diagnostics.md")).unwrap_or_default();
        doc.lines().filter_map(|l| l.strip_prefix("| ")).filter_map(|l| l.split(' ').next()).map(str::to_string).collect()
    })
}

/// Every diagnostic must have a documented code.
fn check_codes(diags: &[Diagnostic]) -> Result<(), Finding> {
    for d in diags {
        if !documented_codes().iter().any(|c| c == d.code) {
            return Err(format!("diagnostic code `{}` is not documented (docs/diagnostics.md): {}", d.code, d.message));
        }
    }
    Ok(())
}

/// Internal compiler errors: never for an input the front end accepts (E0403,
/// E0406-E0408 are refusals by design).
fn internal(diags: &[Diagnostic]) -> Option<&Diagnostic> {
    diags.iter().find(|d| matches!(d.code, "E0400" | "E0401" | "E0402" | "E0404" | "E0405"))
}

/// Small limits, so that one input takes milliseconds, not seconds.
fn quick_limits() -> wavec::limits::Limits {
    let mut l = wavec::limits::Limits::default();
    for s in ["pp-output=4MiB", "pp-tokens=200000", "pp-text=4MiB", "includes=2000", "instructions=2000000", "group-instructions=200000"] {
        l.set(s).expect("a valid limit");
    }
    l.set("memory=64MiB").expect("a valid limit");
    l.set("run-seconds=30").expect("a valid limit");
    l
}

fn check_frontend(input: &[u8]) -> Result<(), Finding> {
    let Ok((text, _)) = wavec::source::decode(input) else { return Ok(()) };
    let file = SourceFile::new("fuzz.hlsl", text);
    let pp_opts = PpOptions { limits: quick_limits(), ..PpOptions::default() };
    let (sources, pp) = preprocess(&Input::new(file), &pp_opts);
    let fe = wavec::frontend::FrontendOptions::default();
    let result = pp.and_then(|p| wavec::frontend::analyze_preprocessed(&p, &sources, &fe));
    let (diags, module) = match result {
        Ok((m, w)) => (w, Some(m)),
        Err(d) => (d, None),
    };
    let _ = render(&sources, &diags);
    check_codes(&diags)?;
    if let Some(m) = module {
        match wavec::lower::lower(&m) {
            // Nested past the region tree (E0409 in the driver, by design).
            Ok(f) if wavec::ir::structure::region_tree(&f).is_err_and(|e| e.contains("nested too deeply")) => {}
            Ok(f) => {
                if let Err(e) = wavec::ir::verify(&f) {
                    return Err(format!("the lowered IR does not verify: {e:?}"));
                }
            }
            Err(d) => {
                let _ = render(&sources, &d);
                check_codes(&d)?;
                if let Some(d) = internal(&d) {
                    return Err(format!("internal error {} in lowering: {}", d.code, d.message));
                }
            }
        }
    }
    Ok(())
}

fn check_preprocessor(input: &[u8]) -> Result<(), Finding> {
    let Ok((text, _)) = wavec::source::decode(input) else { return Ok(()) };
    let test = match run::parse_test_text("fuzz.test", &text) {
        Ok(t) => t,
        // Not a split file: the text alone is the main file.
        Err(_) => {
            let mut t = run::parse_test_text("fuzz.test", "#--- source.hlsl\n\n#--- pipeline.yaml\n---\n").map_err(|e| e.message)?;
            t.source = SourceFile::new("fuzz.hlsl", text.clone());
            t
        }
    };
    let limits = quick_limits();
    let pp_opts = PpOptions { limits, ..PpOptions::default() };
    let (sources, pp) = preprocess(&test.input(), &pp_opts);
    match pp {
        Ok(p) => {
            if p.text.len() as u64 > limits.pp_output_bytes {
                return Err(format!("preprocessed text of {} bytes passes the limit of {}", p.text.len(), limits.pp_output_bytes));
            }
            let _ = render(&sources, &p.diagnostics);
            check_codes(&p.diagnostics)
        }
        Err(d) => {
            let _ = render(&sources, &d);
            check_codes(&d)
        }
    }
}

fn check_pipeline(input: &[u8]) -> Result<(), Finding> {
    let Ok((text, _)) = wavec::source::decode(input) else { return Ok(()) };
    let limits = quick_limits();
    let Ok(p) = run::pipeline::parse_pipeline_limited(&text, &limits) else { return Ok(()) };
    let printed = run::emit::pipeline_to_yaml(&p, true);
    match run::pipeline::parse_pipeline_limited(&printed, &limits) {
        Ok(q) if q == p => Ok(()),
        Ok(q) => Err(format!("the printed pipeline reads back as another pipeline: {}\n{printed}", first_difference(&p, &q))),
        Err(e) => Err(format!("the printed pipeline does not read back: {}\n{printed}", e.message)),
    }
}

/// Where two pipelines differ, for a finding's message.
fn first_difference(p: &run::Pipeline, q: &run::Pipeline) -> String {
    let cut = |s: String| s.chars().take(400).collect::<String>();
    for (a, b) in p.buffers.iter().zip(&q.buffers) {
        if a != b {
            if a.data != b.data {
                let i = a.data.iter().zip(&b.data).position(|(x, y)| x != y).unwrap_or(a.data.len().min(b.data.len()));
                return format!(
                    "buffer `{}` ({:?}) data from byte {i}: {:?} vs {:?} (lengths {} and {})",
                    a.name,
                    a.format,
                    &a.data[i..(i + 8).min(a.data.len())],
                    &b.data[i..(i + 8).min(b.data.len())],
                    a.data.len(),
                    b.data.len()
                );
            }
            return cut(format!("buffer {:?}\nvs {:?}", Buffer(a), Buffer(b)));
        }
    }
    if p.results != q.results {
        return cut(format!("results {:?}\nvs {:?}", p.results, q.results));
    }
    if p.descriptor_sets != q.descriptor_sets {
        return cut(format!("descriptor sets {:?}\nvs {:?}", p.descriptor_sets, q.descriptor_sets));
    }
    cut(format!("shader {:?} {:?} {:?}\nvs {:?} {:?} {:?}", p.shader, p.dispatch, p.dispatch_style, q.shader, q.dispatch, q.dispatch_style))
}

/// A buffer's fields but its data, for a message.
struct Buffer<'a>(&'a run::Buffer);

impl std::fmt::Debug for Buffer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.0;
        write!(
            f,
            "{} {:?} stride {:?} channels {:?} array {} counters {:?}",
            b.name, b.format, b.stride, b.channels, b.array_size, b.counters
        )
    }
}

fn check_ir(input: &[u8]) -> Result<(), Finding> {
    let Ok(text) = std::str::from_utf8(input) else { return Ok(()) };
    let Ok(f) = wavec::ir::parse_function(text) else { return Ok(()) };
    if wavec::ir::verify(&f).is_err() {
        return Ok(());
    }
    let printed = wavec::ir::print_function(&f, &|_| None);
    let again = wavec::ir::parse_function(&printed).map_err(|e| format!("a verified function's print does not parse: {e:?}\n{printed}"))?;
    if let Err(e) = wavec::ir::verify(&again) {
        return Err(format!("a verified function's print parses to one that does not verify: {e:?}\n{printed}"));
    }
    let twice = wavec::ir::print_function(&again, &|_| None);
    if twice != printed {
        return Err(format!("print(parse(print(f))) != print(f):\n{printed}\n----\n{twice}"));
    }
    Ok(())
}

/// One configuration of the differential oracle.
struct Config {
    name: &'static str,
    isa: Isa,
    opt: OptLevel,
    occupancy: Option<u32>,
    max_registers: Option<u32>,
}

const CONFIGS: &[Config] = &[
    Config { name: "-O0", isa: Isa::Wave, opt: OptLevel::O0, occupancy: None, max_registers: None },
    Config { name: "-O", isa: Isa::Wave, opt: OptLevel::O, occupancy: None, max_registers: None },
    Config { name: "-O --target-occupancy 16", isa: Isa::Wave, opt: OptLevel::O, occupancy: Some(16), max_registers: None },
    Config { name: "-O --max-registers 12", isa: Isa::Wave, opt: OptLevel::O, occupancy: None, max_registers: Some(12) },
    Config { name: "--isa wave-0.1.2 -O", isa: Isa::Wave012, opt: OptLevel::O, occupancy: None, max_registers: None },
];

fn check_compile(input: &[u8]) -> Result<(), Finding> {
    let Ok((text, _)) = wavec::source::decode(input) else { return Ok(()) };
    let Ok(test) = run::parse_test_text("fuzz.test", &text) else { return Ok(()) };
    let target = wavec::target::preset(if text.contains("wavec: --target gcn") { "gcn" } else { "generic" }).expect("preset");
    let mut reference: Option<(String, i32)> = None;
    for c in CONFIGS {
        let mut opts = RunOptions::new(target.clone());
        opts.compile.isa = c.isa;
        opts.compile.opt = c.opt;
        opts.compile.target_occupancy = c.occupancy;
        opts.compile.max_registers = c.max_registers;
        opts.compile.limits = quick_limits();
        opts.max_instructions = opts.compile.limits.group_instructions;
        opts.timing = false;
        let out = run::run_pipeline(&test, &opts);
        if out.exit_code == run::EXIT_INTERNAL {
            return Err(format!("{}: internal error (exit {}):\n{}", c.name, out.exit_code, out.stderr));
        }
        for code in ["E0400", "E0401", "E0402", "E0404", "E0405"] {
            if out.stderr.contains(&format!("[{code}]")) {
                return Err(format!("{}: internal compiler error {code}:\n{}", c.name, out.stderr));
            }
        }
        let completed = matches!(out.exit_code, run::EXIT_PASS | run::EXIT_MISMATCH);
        match &reference {
            None if completed => reference = Some((out.stdout, out.exit_code)),
            // -O0 did not complete (a fault, a compile error): nothing to compare.
            None => return Ok(()),
            Some((want, want_exit)) => {
                let refused = ["E0403", "E0406", "E0407", "E0408"].iter().any(|r| out.stderr.contains(&format!("[{r}]")));
                if refused {
                    continue;
                }
                if !completed {
                    return Err(format!("-O0 ran to completion, {} did not (exit {}):\n{}", c.name, out.exit_code, out.stderr));
                }
                if &out.stdout != want || out.exit_code != *want_exit {
                    return Err(format!("{} gives other buffers than -O0 (exit {} vs {})", c.name, out.exit_code, want_exit));
                }
            }
        }
    }
    Ok(())
}

// ---- the seeds ---------------------------------------------------------------------

fn hlsl_seeds() -> Vec<Vec<u8>> {
    let mut s = read_all("examples", "hlsl");
    s.extend(read_all("tests/diagnostics", "hlsl"));
    s.extend(read_all("tests/diagnostics/backend", "hlsl"));
    for t in test_sections(&["tests/corpus", "tests/lang", "tests/preprocess", "examples/seeds"]) {
        s.push(t.source.text.into_bytes());
    }
    s
}

fn test_seeds() -> Vec<Vec<u8>> {
    let mut s = Vec::new();
    for d in ["tests/corpus", "tests/lang", "tests/preprocess", "examples"] {
        s.extend(read_all(d, "test"));
    }
    s
}

fn yaml_seeds() -> Vec<Vec<u8>> {
    test_sections(&["tests/corpus", "tests/lang", "examples", "benches/kernels"])
        .into_iter()
        .map(|t| t.pipeline_text.into_bytes())
        .collect()
}

fn ir_seeds() -> Vec<Vec<u8>> {
    let mut s = read_all("tests/ir", "ir");
    for src in read_all("examples", "hlsl") {
        let Ok(text) = String::from_utf8(src) else { continue };
        for opt in [OptLevel::O0, OptLevel::O] {
            if let Ok(c) = wavec::driver::compile_with(&SourceFile::new("seed.hlsl", text.as_str()), &options(Isa::Wave, opt), false) {
                s.push(c.ir.into_bytes());
            }
        }
    }
    s
}

fn target(name: &str) -> Target {
    match name {
        "frontend" => Target { name: "frontend", ext: "hlsl", seeds: hlsl_seeds(), mutate: mutate_hlsl, check: check_frontend },
        "preprocessor" => Target { name: "preprocessor", ext: "test", seeds: test_seeds(), mutate: mutate_pp, check: check_preprocessor },
        "pipeline" => Target { name: "pipeline", ext: "yaml", seeds: yaml_seeds(), mutate: mutate_yaml, check: check_pipeline },
        "ir" => Target { name: "ir", ext: "ir", seeds: ir_seeds(), mutate: mutate_ir, check: check_ir },
        "compile" => Target { name: "compile", ext: "test", seeds: test_seeds(), mutate: mutate_test, check: check_compile },
        other => panic!("no fuzz target `{other}`"),
    }
}

const TARGETS: &[&str] = &["frontend", "preprocessor", "pipeline", "ir", "compile"];

// ---- the tests ---------------------------------------------------------------------

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs `f` on a thread with the main thread's 8 MiB stack (test threads have
/// 2 MiB; the command line runs with 8).
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(8 << 20).spawn(f).expect("spawn").join().expect("the fuzz thread")
}

fn short_run(name: &'static str, iterations: u64) {
    let iterations = env_u64("WAVEC_FUZZ_ITERATIONS", iterations);
    let seed = env_u64("WAVEC_FUZZ_SEED", 1);
    let report = on_big_stack(move || campaign(&target(name), seed, iterations, None, Duration::from_secs(3600), false));
    let found: Vec<String> = report.findings.iter().map(|(p, f)| format!("{}: {f}", shown(p))).collect();
    assert!(found.is_empty(), "fuzz target `{name}` ({} inputs, seed {seed}):\n{}", report.inputs, found.join("\n----\n"));
    assert!(report.inputs >= iterations, "only {} inputs ran", report.inputs);
}

#[test]
fn fuzz_frontend() {
    short_run("frontend", 300);
}

#[test]
fn fuzz_preprocessor() {
    short_run("preprocessor", 300);
}

#[test]
fn fuzz_pipeline() {
    short_run("pipeline", 300);
}

#[test]
fn fuzz_ir() {
    short_run("ir", 300);
}

#[test]
fn fuzz_compile_and_simulate() {
    short_run("compile", 12);
}

/// Every input a campaign ever found a problem with (`tests/fuzz/TARGET/`),
/// fixed since, stays fixed.
#[test]
fn fuzz_corpus_replays() {
    let failures = on_big_stack(|| {
        let mut failures = Vec::new();
        let mut count = 0;
        for name in TARGETS {
            let t = target(name);
            for path in corpus_files(&t) {
                count += 1;
                let input = std::fs::read(&path).expect("readable corpus file");
                if let Some(f) = run_one(&t, &input) {
                    failures.push(format!("{}: {f}", shown(&path)));
                }
            }
        }
        assert!(count >= 5, "the fuzz corpus has only {count} files");
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
}

/// Runs one input file (`WAVEC_FUZZ_REPLAY=FILE`) through the target named by
/// `WAVEC_FUZZ_TARGETS` and prints what it finds: to look into a finding.
#[test]
#[ignore]
fn fuzz_replay() {
    let Ok(file) = std::env::var("WAVEC_FUZZ_REPLAY") else { return };
    let name = std::env::var("WAVEC_FUZZ_TARGETS").unwrap_or_else(|_| "frontend".into());
    let input = std::fs::read(&file).expect("a readable input");
    let t = target(TARGETS.iter().find(|n| **n == name).unwrap_or_else(|| panic!("no fuzz target `{name}`")));
    let found = on_big_stack(move || run_one(&t, &input));
    match found {
        Some(f) => panic!("{file}: {f}"),
        None => eprintln!("{file}: nothing found"),
    }
}

/// The long run (README, "Fuzzing"): each target in `WAVEC_FUZZ_TARGETS`
/// (comma-separated; all by default) for `WAVEC_FUZZ_SECONDS` (3600).
#[test]
#[ignore]
fn fuzz_long() {
    let seconds = env_u64("WAVEC_FUZZ_SECONDS", 3600);
    let slow = Duration::from_secs(env_u64("WAVEC_FUZZ_SLOW_SECONDS", 10));
    let seed = env_u64("WAVEC_FUZZ_SEED", std::process::id() as u64);
    let names = std::env::var("WAVEC_FUZZ_TARGETS").unwrap_or_else(|_| TARGETS.join(","));
    let mut summary = Vec::new();
    let mut found = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let name: &'static str = TARGETS.iter().find(|t| **t == name).unwrap_or_else(|| panic!("no fuzz target `{name}`"));
        let report = on_big_stack(move || campaign(&target(name), seed, u64::MAX, Some(Duration::from_secs(seconds)), slow, true));
        let line = format!(
            "fuzz {name}: {} inputs in {seconds} s (seed {seed}), {} findings, {} slow (> {} s), slowest {:.2} s",
            report.inputs,
            report.findings.len(),
            report.slow.len(),
            slow.as_secs(),
            report.slowest.as_secs_f64()
        );
        eprintln!("{line}");
        summary.push(line);
        found.extend(report.findings.iter().map(|(p, f)| format!("{}: {f}", shown(p))));
    }
    eprintln!("{}", summary.join("\n"));
    assert!(found.is_empty(), "{}", found.join("\n----\n"));
}
