//! Regression tests of issue 19 ("no input crashes, hangs or exhausts the
//! compiler or the simulator"): each test holds one of the inputs the fuzz
//! campaign found, or a limit's enforcement, and checks structure (codes,
//! messages, results), never time. The sizes below (thousands of `switch`
//! cases and `else if` arms) compile in a fraction of a second each; that
//! compile time stays about linear is enforced by the suite's overall time.

use std::path::PathBuf;

use wavec::diag::{render, SourceFile};
use wavec::driver::{compile_with, Isa, OptLevel};
use wavec::run::{self, RunOptions};
use wavec::target::preset;
use wavec_tests::*;

/// A `.test` text: `source` with a `RWStructuredBuffer<uint> Out : register(u0)`
/// of `n` words, `groups` workgroups.
fn one_buffer_test(source: &str, n: usize, groups: u32) -> String {
    format!(
        "#--- source.hlsl\n{source}\n#--- pipeline.yaml\n---\nShaders:\n  - Stage: Compute\n    Entry: main\n    DispatchSize: [{groups}, 1, 1]\n\
         Buffers:\n  - Name: Out\n    Format: UInt32\n    FillSize: {}\nDescriptorSets:\n  - Resources:\n    - Name: Out\n      Kind: RWStructuredBuffer\n\
         \x20     DirectXBinding:\n        Register: 0\n        Space: 0\n...\n#--- end\n",
        4 * n
    )
}

/// Runs a `.test` text; the final words of `Out` (or the failure's stderr).
fn run_words(text: &str, isa: Isa, opt: OptLevel) -> Result<Vec<u32>, String> {
    let test = run::parse_test_text("t.test", text).map_err(|e| e.message)?;
    let mut opts = RunOptions::new(preset("generic").expect("generic"));
    opts.compile.isa = isa;
    opts.compile.opt = opt;
    opts.timing = false;
    let out = run::run_pipeline(&test, &opts);
    if out.exit_code != 0 {
        return Err(format!("exit {}:\n{}", out.exit_code, out.stderr));
    }
    let data = out.stdout.split("Data: [").nth(1).ok_or("no Data")?.split(']').next().ok_or("no ]")?.to_string();
    Ok(data.split(',').map(|w| w.trim().parse::<u32>().expect("a word")).collect())
}

const CONFIGS: [(Isa, OptLevel); 4] =
    [(Isa::Wave, OptLevel::O0), (Isa::Wave, OptLevel::O), (Isa::Wave012, OptLevel::O0), (Isa::Wave012, OptLevel::O)];

/// A warning on a line `#line 0` numbers 0 rendered by `wavec run` (which
/// panicked in codespan's gutter): the run passes, the warning names line 0.
#[test]
fn a_warning_on_line_zero_renders_under_wavec_run() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n    float x = 2.5;\n#line 0\n    uint i = x;\n    Out[0] = i;\n}";
    let test = run::parse_test_text("t.test", &one_buffer_test(src, 1, 1)).expect("test");
    let out = run::run_pipeline(&test, &RunOptions::new(preset("generic").expect("generic")));
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning[W0201]") && out.stderr.contains("t.test:0:"), "{}", out.stderr);
    // The GNU line marker too, with an error.
    let file = SourceFile::new("m.hlsl", "[numthreads(1,1,1)]\nvoid main() {\n# 0 \"gen.hlsl\"\n    undefined_name = 1;\n}\n");
    let c = wavec::driver::compile_input(&wavec::source::Input::new(file), &options(Isa::Wave, OptLevel::O0), false);
    let d = c.result.expect_err("an unknown name");
    let text = render(&c.sources, &d);
    assert!(text.contains("error[E0201]") && text.contains("gen.hlsl:0:5"), "{text}");
}

/// `switch` on `int64_t` / `uint64_t` selectors (E0402 "has no register": the
/// 64-bit compare was left for the back end) at -O0 and -O on both ISAs.
#[test]
fn switch_on_64_bit_selectors() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(16, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n\
        int64_t s = (int64_t)id.x - 8;\n    uint64_t u = (uint64_t)id.x << 33;\n    uint r = 0;\n\
        switch (s) {\n    case -8: r = 1; break;\n    case -1: r = 2; break;\n    case 0x100000000: r = 99; break;\n    case 5: r = 3;\n    case 6: r += 4; break;\n    default: r = 7; break;\n    }\n\
        switch (u) {\n    case 0: r += 100; break;\n    case 0x200000000ull: r += 200; break;\n    case 0x1E00000000ull: r += 300; break;\n    }\n\
        Out[id.x] = r;\n}";
    let want: Vec<u32> = (0..16u32)
        .map(|x| {
            let s = x as i64 - 8;
            let mut r = match s {
                -8 => 1,
                -1 => 2,
                5 => 7,
                6 => 4,
                _ => 7,
            };
            // Case 5 falls through into case 6 (r = 3, then r += 4).
            r += match (x as u64) << 33 {
                0 => 100,
                0x2_0000_0000 => 200,
                0x1E_0000_0000 => 300,
                _ => 0,
            };
            r
        })
        .collect();
    for (isa, opt) in CONFIGS {
        assert_eq!(run_words(&one_buffer_test(src, 16, 1), isa, opt).unwrap(), want, "{isa:?} {opt:?}");
    }
}

/// A `switch` of `n` cases: case k sets r to k * 7 + 1; lane i selects case i * 37 mod n.
fn big_switch(n: usize) -> String {
    let cases: String = (0..n).map(|k| format!("    case {k}: r = {}u; break;\n", k * 7 + 1)).collect();
    format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n\
         uint r = 5;\n    uint k = (id.x * 37u) % {}u;\n    switch (k) {{\n{cases}    default: r = 3; break;\n    }}\n    Out[id.x] = r;\n}}",
        n + 3
    )
}

/// An `else if` chain of `n` arms in the same shape as [`big_switch`].
fn big_else_if(n: usize) -> String {
    let arms: Vec<String> = (0..n).map(|k| format!("if (k == {k}u) r = {}u;", k * 7 + 1)).collect();
    format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n\
         uint r = 5;\n    uint k = (id.x * 37u) % {}u;\n    {}\n    else r = 3;\n    Out[id.x] = r;\n}}",
        n + 3,
        arms.join("\n    else ")
    )
}

fn expected_big(n: usize) -> Vec<u32> {
    (0..128u32).map(|i| (i * 37) % (n as u32 + 3)).map(|k| if (k as usize) < n { k * 7 + 1 } else { 3 }).collect()
}

/// Thousands of `switch` cases and `else if` arms compile (the chain was E0105
/// past 95 arms; both grew cubically), and hundreds run right at -O0 and -O
/// (a chain of more than 8 arms is lowered in pieces).
#[test]
fn thousands_of_switch_cases_and_else_if_arms() {
    for opt in [OptLevel::O0, OptLevel::O] {
        for src in [big_switch(3000), big_else_if(3000)] {
            let file = SourceFile::new("big.hlsl", src.as_str());
            if let Err(d) = compile_with(&file, &options(Isa::Wave, opt), false) {
                panic!("{opt:?}:\n{}", render(&file, &d));
            }
        }
    }
    for n in [300, 40] {
        for (isa, opt) in CONFIGS {
            let want = expected_big(n);
            assert_eq!(run_words(&one_buffer_test(&big_switch(n), 128, 2), isa, opt).unwrap(), want, "switch of {n}, {isa:?} {opt:?}");
            assert_eq!(run_words(&one_buffer_test(&big_else_if(n), 128, 2), isa, opt).unwrap(), want, "else-if of {n}, {isa:?} {opt:?}");
        }
    }
}

/// A `switch` that falls through, or breaks from inside an `if`, keeps the
/// lowering with flags (not the `else if` form of one that never falls through).
#[test]
fn switches_that_fall_through_or_break_early() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(32, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n\
        uint r = 0, k = id.x % 8u;\n    switch (k) {\n    case 0: r = 1;\n    case 1: r += 10; break;\n    case 2: if (id.x > 8u) break; r = 5; break;\n\
        default: r = 99; break;\n    case 7: r = 70;\n    }\n    Out[id.x] = r;\n}";
    let want: Vec<u32> = (0..32u32)
        .map(|x| match x % 8 {
            0 => 11,
            1 => 10,
            2 => {
                if x > 8 {
                    0
                } else {
                    5
                }
            }
            7 => 70,
            _ => 99,
        })
        .collect();
    for (isa, opt) in CONFIGS {
        assert_eq!(run_words(&one_buffer_test(src, 32, 1), isa, opt).unwrap(), want, "{isa:?} {opt:?}");
    }
}

/// A `switch` of 8,000 cases and an `else if` chain as long compile on a test
/// thread's 2 MiB stack (the SSA reader recursed once per case: about 21,000
/// cases overflowed the command line's 8 MiB, and fewer a test thread's).
#[test]
fn huge_switch_and_else_if_chain_do_not_overflow_the_stack() {
    for src in [big_switch(8000), big_else_if(8000)] {
        let file = SourceFile::new("big.hlsl", src.as_str());
        let c = compile_with(&file, &options(Isa::Wave, OptLevel::O0), false);
        assert!(c.is_ok(), "{}", c.err().map(|d| render(&file, &d)).unwrap_or_default());
    }
}

/// `else if` conditions run in order and only until one holds, across the
/// pieces a long chain is lowered in (8 arms each): each condition counts its
/// evaluation, so lane k sees k + 1 conditions evaluated (the last lanes all 40).
#[test]
fn else_if_conditions_are_evaluated_in_order_until_one_holds() {
    let arms: Vec<String> = (0..40).map(|k| format!("if (test(n, v, {k}u)) r = {}u;", 1000 + k)).collect();
    let src = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\nbool test(inout uint n, uint v, uint k) {{ n += 1; return v == k; }}\n\
         [numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n    uint n = 0, r = 0, v = id.x;\n    {}\n    else r = 7;\n\
         Out[id.x] = r * 1000 + n;\n}}",
        arms.join("\n    else ")
    );
    let want: Vec<u32> = (0..64u32).map(|v| if v < 40 { (1000 + v) * 1000 + v + 1 } else { 7 * 1000 + 40 }).collect();
    for (isa, opt) in CONFIGS {
        assert_eq!(run_words(&one_buffer_test(&src, 64, 1), isa, opt).unwrap(), want, "{isa:?} {opt:?}");
    }
}

fn cli_options() -> RunOptions {
    // As `wavec run` sets them: D3D denormals, the test's target, runaway loops found.
    let mut o = RunOptions::new(preset("generic").expect("generic"));
    o.d3d_denormals = true;
    o.test_target = true;
    o.timing = false;
    o
}

/// Every `.test` file shipped passes with `wavec run`'s defaults: a test that
/// needs IEEE denormals says so on its RUN line (`-denorm preserve`), one for
/// 64-lane waves in its `# wavec: --target gcn` header. (Buffers do not depend
/// on the cycle model, which is off here to keep the suite quick.)
#[test]
fn every_shipped_test_passes_with_the_command_line_defaults() {
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in ["tests/corpus", "tests/lang", "tests/preprocess", "examples", "examples/seeds", "benches/kernels"] {
        for path in files_with_ext(dir, "test") {
            count += 1;
            let test = run::load_test_file(&path).expect("loads");
            let out = run::run_pipeline(&test, &cli_options());
            if out.exit_code != 0 {
                failures.push(format!("{}: exit {}\n{}", path.display(), out.exit_code, out.stderr));
            }
            // The 64-lane tests say so, and only they.
            let w64 = path.file_stem().is_some_and(|s| s.to_string_lossy().ends_with("_w64"));
            assert_eq!(test.flags.target.as_deref() == Some("gcn"), w64, "{}: target header", path.display());
        }
    }
    assert!(count > 150, "only {count} tests");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn repo(p: &str) -> PathBuf {
    repo_root().join(p)
}

/// Only regular files are read (`/dev/zero` was read until allocation failed),
/// and only up to the `file-size` limit: sources, tests, pipelines and includes.
#[test]
fn devices_and_oversized_files_are_refused() {
    let zero = std::path::Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let e = wavec::source::Input::from_path(zero).expect_err("a device");
    assert_eq!(e.code, "E0512", "{}", e.message);
    assert!(run::load_test_file(zero).expect_err("a device").message.contains("E0512"));
    assert!(run::load_pair(zero, &repo("examples/saxpy.hlsl")).is_err());
    assert!(run::load_pair(&repo("examples/saxpy.test"), zero).is_err());
    let file = SourceFile::new("inc.hlsl", "#include \"/dev/zero\"\n[numthreads(1,1,1)] void main() {}\n");
    let d = compile_with(&file, &options(Isa::Wave, OptLevel::O0), false).expect_err("an include of a device");
    assert!(d.iter().any(|d| d.code == "E0512"), "{}", render(&file, &d));
    // A regular file over the limit.
    let big = std::env::temp_dir().join(format!("wavec-big-{}.hlsl", std::process::id()));
    std::fs::write(&big, vec![b' '; 5000]).expect("temp file");
    let e = wavec::source::Input::from_path_limited(&big, 4096).expect_err("too large");
    assert_eq!(e.code, "E0512");
    assert!(e.notes.iter().any(|n| n.contains("--limit file-size")), "{:?}", e.notes);
    assert!(wavec::source::Input::from_path_limited(&big, 5000).is_ok());
    let _ = std::fs::remove_file(&big);
}

/// A dispatch that cannot stay within the run's instruction limit is refused
/// before it runs (2^31, 2^32 - 1 and 65535^3 workgroups never finished).
#[test]
fn dispatches_past_the_instruction_limit_are_refused_up_front() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(4, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) { Out[id.x & 3] = 1; }";
    for dims in ["2147483648, 1, 1", "4294967295, 1, 1", "65535, 65535, 65535"] {
        let text = one_buffer_test(src, 4, 1).replace("DispatchSize: [1, 1, 1]", &format!("DispatchSize: [{dims}]"));
        let test = run::parse_test_text("t.test", &text).expect("test");
        let out = run::run_pipeline(&test, &cli_options());
        assert_eq!(out.exit_code, run::EXIT_ERROR, "{dims}: {}", out.stderr);
        assert!(out.stderr.contains("more than the run's limit") && out.stderr.contains("--max-instructions"), "{}", out.stderr);
    }
}

/// The run's instruction limit over all workgroups (`--max-instructions`): a
/// kernel whose workgroups each stay under the per-workgroup limit stops with
/// a message naming the flag.
#[test]
fn the_instruction_limit_covers_the_whole_run() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(4, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n\
        uint a = id.x;\n    for (uint i = 0; i < 20000; i++) { a = a * 3u + 1u; }\n    Out[id.x % 64] = a;\n}";
    let test = run::parse_test_text("t.test", &one_buffer_test(src, 64, 64)).expect("test");
    let mut o = cli_options();
    o.compile.limits.set("instructions=1000000").expect("limit");
    let out = run::run_pipeline(&test, &o);
    assert_eq!(out.exit_code, run::EXIT_FAULT, "{}", out.stderr);
    assert!(
        out.stderr.contains("more than 1000000 wave-instructions in all") && out.stderr.contains("--max-instructions"),
        "{}",
        out.stderr
    );
    o.compile.limits.set("instructions=100000000").expect("limit");
    assert_eq!(run::run_pipeline(&test, &o).exit_code, 0);
}

/// The cycle model's trace window (`--limit trace-memory`): past it the run
/// goes on without timing and says so; the buffers are those of a timed run.
#[test]
fn the_trace_window_drops_timing_with_a_warning() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(4, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n\
        uint a = id.x;\n    for (uint i = 0; i < 3000; i++) { if ((a & 1u) != 0u) a ^= 7u; a = a * 3u + 1u; }\n    Out[id.x] = a;\n}";
    let test = run::parse_test_text("t.test", &one_buffer_test(src, 64, 16)).expect("test");
    let mut o = cli_options();
    o.timing = true;
    let timed = run::run_pipeline(&test, &o);
    assert_eq!(timed.exit_code, 0, "{}", timed.stderr);
    assert!(timed.stats.as_ref().is_some_and(|s| s.sim.timing.is_some()));
    o.compile.limits.set("trace-memory=16KiB").expect("limit");
    let out = run::run_pipeline(&test, &o);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("the cycle model stopped at workgroup") && out.stderr.contains("--limit trace-memory"), "{}", out.stderr);
    assert!(out.stats.as_ref().is_some_and(|s| s.sim.timing.is_none()));
    assert_eq!(out.stdout, timed.stdout);
}

/// Buffers are checked against the `memory` limit before anything is made,
/// with an error that says how much the run needs.
#[test]
fn buffers_past_the_memory_limit_are_refused_with_the_amount_needed() {
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 1; }";
    let text = one_buffer_test(src, 1 << 20, 1);
    let test = run::parse_test_text("t.test", &text).expect("test");
    let mut o = cli_options();
    // 4 MiB of buffer: held three times and printed (13 bytes a word at most), about 25 MiB.
    o.compile.limits.set("memory=16MiB").expect("limit");
    let out = run::run_pipeline(&test, &o);
    assert_eq!(out.exit_code, run::EXIT_ERROR, "{}", out.stderr);
    assert!(out.stderr.contains("the run needs about 25.0 MiB") && out.stderr.contains("13.0 MiB printed"), "{}", out.stderr);
    assert!(out.stderr.contains("--limit memory"), "{}", out.stderr);
    // A FillSize is refused before its buffer is made (the buffers alone, three times).
    o.compile.limits.set("memory=8MiB").expect("limit");
    let out = run::run_pipeline(&test, &o);
    assert!(out.stderr.contains("the buffers need 12.0 MiB"), "{}", out.stderr);
    o.compile.limits.set("memory=64MiB").expect("limit");
    assert_eq!(run::run_pipeline(&test, &o).exit_code, 0);
}

/// A `Data:` list nested 100,000 deep (quadratic in the YAML reader) is refused
/// by the `yaml-depth` limit before the reader sees it.
#[test]
fn deeply_nested_yaml_is_refused() {
    let deep = format!(
        "Shaders: [ {{ Stage: Compute, Entry: main }} ]\nBuffers:\n  - Name: A\n    Format: Int32\n    Data: {}1{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let e = run::parse_pipeline(&deep).expect_err("too deep");
    assert!(e.message.contains("nested more than 64 deep") && e.message.contains("yaml-depth"), "{}", e.message);
    let block = format!(
        "Shaders: [ {{ Stage: Compute, Entry: main }} ]\nBuffers:\n{}\n",
        (0..200).map(|i| format!("{}- x", " ".repeat(i * 2))).collect::<Vec<_>>().join("\n")
    );
    assert!(run::parse_pipeline(&block).expect_err("too deep").message.contains("yaml-depth"));
    let mut limits = wavec::limits::Limits::default();
    limits.set("yaml-depth=1000").expect("limit");
    let shallow = deep.replace(&"[".repeat(100_000), "[[[").replace(&"]".repeat(100_000), "]]]");
    assert!(!run::pipeline::parse_pipeline_limited(&shallow, &limits)
        .expect_err("lists in a scalar buffer")
        .message
        .contains("yaml-depth"));
}

/// Long `Data:` lists are read without serde_yaml's per-element events (2.3 GB
/// for 12 million elements), to the same values serde_yaml gives.
#[test]
fn long_data_lists_read_as_serde_yaml_reads_them() {
    let mut rng = Rng::new(19);
    let mut values: Vec<String> = Vec::new();
    for i in 0..6000 {
        values.push(match i % 7 {
            0 => "-0".to_string(),
            1 => (rng.next() as i32).to_string(),
            2 => format!("-{}", rng.next() % 1_000_000),
            3 => format!("{}.{}", rng.next() % 1000, rng.next() % 100_000),
            4 => format!("-{}.{}e-{}", rng.next() % 10, rng.next() % 1000, rng.next() % 40),
            5 => format!("{}.5E+{}", rng.next() % 10, rng.next() % 30),
            _ => "0".to_string(),
        });
    }
    for format in ["Float32", "Float64", "Int32"] {
        let list = if format == "Int32" {
            values.iter().map(|v| if v.contains(['.', 'e', 'E']) { "5".to_string() } else { v.clone() }).collect::<Vec<_>>()
        } else {
            values.clone()
        };
        let yaml = |data: &str| {
            format!("Shaders: [ {{ Stage: Compute, Entry: main }} ]\nBuffers:\n  - Name: A\n    Format: {format}\n    Data: [ {data} ]\n")
        };
        let fast = run::parse_pipeline(&yaml(&list.join(", "))).expect("fast");
        // `+1` is a form the fast path leaves to serde_yaml: the whole list goes there.
        let slow = run::parse_pipeline(&yaml(&format!("+1, {}", list[1..].join(",\n      ")))).expect("serde");
        let fast_rest = &fast.buffers[0].data[fast.buffers[0].format.size()..];
        let slow_rest = &slow.buffers[0].data[slow.buffers[0].format.size()..];
        assert!(fast_rest == slow_rest, "{format}: the fast path reads other values");
        assert_eq!(fast.buffers[0].data.len(), 6000 * fast.buffers[0].format.size());
    }
}

/// Hundreds of statements that may leave, one after another: past the
/// lowering's nesting budget the rest of the list is guarded in a sequence of
/// guards, not nested once per statement (3,983 `{ continue; }` in a row nested
/// the IR past its limit: an internal error). The results are those of the
/// nested form at -O0 and -O on both ISAs.
#[test]
fn hundreds_of_early_exits_in_a_row() {
    let returns: String = (0..200).map(|v| format!("    if (v == {v}u) return {}u;\n", v * 3 + 1)).collect();
    let continues: String = (0..120).map(|j| format!("        {{ if (t == {j}u) {{ acc += {}u; continue; }} }}\n", j + 1)).collect();
    let src = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\nuint pick(uint v) {{\n{returns}    return 999u;\n}}\n\
         [numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n    uint acc = 0;\n\
         for (uint k = 0; k < 4; k++) {{\n        uint t = (id.x * 7u + k * 13u) % 150u;\n        if (t == 149u) break;\n{continues}\
         acc += 1000u;\n    }}\n    Out[id.x] = pick((id.x * 5u) % 210u) + acc;\n}}"
    );
    let want: Vec<u32> = (0..64u32)
        .map(|x| {
            let mut acc = 0;
            for k in 0..4 {
                let t = (x * 7 + k * 13) % 150;
                if t == 149 {
                    break;
                }
                acc += if t < 120 { t + 1 } else { 1000 };
            }
            let v = (x * 5) % 210;
            (if v < 200 { v * 3 + 1 } else { 999 }) + acc
        })
        .collect();
    for (isa, opt) in CONFIGS {
        assert_eq!(run_words(&one_buffer_test(&src, 64, 1), isa, opt).unwrap(), want, "{isa:?} {opt:?}");
    }
}

/// Calls inlined inside nested code (60 functions, each calling the next
/// inside five nested `if`s) nest the control flow 300 deep: refused with
/// E0409, not an internal error of the IR passes.
#[test]
fn control_flow_nested_past_the_frames_is_refused() {
    let mut src = String::from("RWStructuredBuffer<uint> Out : register(u0);\nuint f0(uint x) { return x + 1u; }\n");
    for k in 1..=60 {
        src.push_str(&format!(
            "uint f{k}(uint x) {{ if (x != 1u) {{ if (x != 2u) {{ if (x != 3u) {{ if (x != 4u) {{ if (x != 5u) {{ return f{}(x) * 2u; }} }} }} }} }} return 0u; }}\n",
            k - 1
        ));
    }
    src.push_str("[numthreads(1, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) { Out[id.x] = f60(id.x + 9u); }\n");
    let file = SourceFile::new("deep.hlsl", src.as_str());
    for opt in [OptLevel::O0, OptLevel::O] {
        let d = compile_with(&file, &options(Isa::Wave, opt), true).expect_err("too deep");
        assert_eq!(d.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E0409"], "{}", render(&file, &d));
    }
}

/// A long kernel's run report: every listing line once (the report searched
/// the listing text from its start for each instruction, twice with the cycle
/// model on: a fuzzed 10,000-instruction kernel took 35 s to report a run of
/// 66,000 wave-instructions). The report covers every instruction and its
/// source line; the suite's time keeps it linear.
#[test]
fn the_report_of_a_long_kernel_reads_each_listing_line_once() {
    let steps = 4000;
    let mut body = String::from(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) {\n  uint x = i;\n",
    );
    for k in 0..steps {
        body += &format!("  x = (x ^ {k}u) * 3u + {}u;\n", k % 7);
    }
    body += "  Out[i] = x;\n}\n";
    let want: Vec<u32> = (0..64u32).map(|i| (0..steps).fold(i, |x, k| (x ^ k as u32).wrapping_mul(3).wrapping_add(k as u32 % 7))).collect();
    let test = run::parse_test_text("t.test", &one_buffer_test(&body, 64, 1)).expect("parses");
    let mut opts = RunOptions::new(preset("generic").expect("generic"));
    opts.compile.opt = OptLevel::O0;
    opts.print_stats = true;
    let out = run::run_pipeline(&test, &opts);
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    let data = out.stdout.split("Data: [").nth(1).expect("Data").split(']').next().expect("]");
    let got: Vec<u32> = data.split(',').map(|w| w.trim().parse().expect("a word")).collect();
    assert_eq!(got, want);
    let stats = out.stats.expect("statistics");
    assert!(stats.report.listing.len() > 3 * steps, "{} listing rows", stats.report.listing.len());
    assert!(stats.report.listing.iter().filter(|r| !r.source.is_empty()).count() > 3 * steps, "rows name their source line");
    let timing = stats.report.timing.as_ref().expect("the cycle model ran");
    assert!(timing.lines.len() > steps, "{} source lines with figures", timing.lines.len());
}
