//! End to end through the preprocessor: every `preprocess/*.test` (written by
//! `preprocess/gen.py`, which computes the expected buffers) runs on the
//! simulator for both ISA profiles at -O0 and -O; the listing names lines of
//! included sections; faults and diagnostics there name the section; and
//! mutated preprocessor-heavy shaders never panic the compiler.

use std::panic::{catch_unwind, AssertUnwindSafe};

use wavec::diag::render;
use wavec::driver::{compile_input, Isa, OptLevel};
use wavec::run::{self, RunOptions};
use wavec::target::preset;
use wavec_tests::*;

fn tests() -> Vec<std::path::PathBuf> {
    files_with_ext("tests/preprocess", "test")
}

#[test]
fn preprocessor_tests_run_and_match() {
    let all = tests();
    assert!(all.len() >= 3, "only {} tests", all.len());
    let target = preset("generic").expect("generic target");
    let mut failures = Vec::new();
    for path in all {
        let test = run::load_test_file(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        for isa in [Isa::Wave, Isa::Wave012] {
            for opt in [OptLevel::O0, OptLevel::O] {
                let mut opts = RunOptions::new(target.clone());
                opts.compile.isa = isa;
                opts.compile.opt = opt;
                let out = run::run_pipeline(&test, &opts);
                if out.exit_code != 0 {
                    failures.push(format!("== {} ({}, {opt:?}): exit {}\n{}", path.display(), isa.name(), out.exit_code, out.stderr));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Lines of included sections appear in the listing as `; NAME:LINE`, which
/// the simulator's parser accepts (it only reads `; L<n>`).
#[test]
fn listing_names_included_lines() {
    let mut test = run::load_test_file(&repo_root().join("tests/preprocess/pp_kernel.test")).expect("loads");
    // A repository-relative name, so the snapshot does not depend on where the checkout is.
    test.source.name = "tests/preprocess/pp_kernel.test".into();
    let c = compile_input(&test.input(), &options(Isa::Wave, OptLevel::O), true);
    let compiled = c.result.unwrap_or_else(|d| panic!("{}", render(&c.sources, &d)));
    assert!(compiled.asm.contains("; accumulate.hlsli:"), "{}", compiled.asm);
    assert!(compiled.asm.contains("; L"), "{}", compiled.asm);
    wavesim::parse(&compiled.asm, Isa::Wave.sim_profile()).expect("the simulator reads the listing");
    insta::assert_snapshot!("pp_kernel_listing", compiled.asm);
}

const FAULTING: &str = "#--- source.hlsl
RWStructuredBuffer<int> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
#include \"store.hlsli\"
}
#--- store.hlsli
  // Writes past the end of Out.
  Out[id.x + 100] = 1;
#--- pipeline.yaml
---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters: { DispatchGroupCount: [1, 1, 1] }
Buffers:
  - Name: Out
    Format: Int32
    FillSize: 16
  - Name: Expected
    Format: Int32
    FillSize: 16
Results:
  - Result: R
    Rule: BufferExact
    Actual: Out
    Expected: Expected
DescriptorSets:
  - Resources:
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
...
#--- end
";

#[test]
fn faults_in_included_code_name_the_section() {
    let test = run::parse_test_text("fault.test", FAULTING).expect("parses");
    let out = run::run_pipeline(&test, &RunOptions::new(preset("generic").expect("generic")));
    assert_eq!(out.exit_code, run::EXIT_FAULT, "{}", out.stderr);
    assert!(out.stderr.contains("  source: store.hlsli:9: Out[id.x + 100] = 1;"), "{}", out.stderr);
}

#[test]
fn diagnostics_in_included_sections_name_them() {
    let text = FAULTING.replace("Out[id.x + 100] = 1;", "Out[id.x] = missing;");
    let test = run::parse_test_text("diag.test", &text).expect("parses");
    let out = run::run_pipeline(&test, &RunOptions::new(preset("generic").expect("generic")));
    assert_eq!(out.exit_code, run::EXIT_ERROR, "{}", out.stderr);
    assert!(out.stderr.contains("┌─ store.hlsli:9:15"), "{}", out.stderr);
    assert!(out.stderr.contains("included from diag.test:5"), "{}", out.stderr);
}

/// Random edits of a preprocessor-heavy test never panic the compiler or
/// reach an internal error.
#[test]
fn mutated_preprocessor_shaders_never_panic() {
    let base = run::load_test_file(&repo_root().join("tests/preprocess/pp_kernel.test")).expect("loads");
    const PIECES: &[&str] = &[
        "#define GROUP_SIZE 0\n",
        "#undef TAPS\n",
        "#if 0\n",
        "#endif\n",
        "#else\n",
        "#include \"params.hlsli\"\n",
        "#include \"accumulate.hlsli\"\n",
        "SQUARE(",
        ")",
        "##",
        "#",
        "MAD(1,2)",
        "__LINE__",
        "\\\n",
        "/*",
        "\"",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let opts = options(Isa::Wave012, OptLevel::O);
    let mut failures = Vec::new();
    let (mut ok, mut rejected) = (0, 0);
    for _ in 0..150 {
        let mut test = base.clone();
        let lines: Vec<&str> = base.source.text.split_inclusive('\n').collect();
        // One or two edits: drop a line, double it, or put a piece before it.
        let edits: Vec<(usize, u64)> = (0..1 + next() % 2).map(|_| ((next() % lines.len() as u64) as usize, next() % 3)).collect();
        let mut text = String::new();
        for (i, l) in lines.iter().enumerate() {
            match edits.iter().find(|(at, _)| *at == i).map(|e| e.1) {
                Some(0) => {}
                Some(1) => {
                    text.push_str(l);
                    text.push_str(l);
                }
                Some(_) => {
                    text.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                    text.push_str(l);
                }
                None => text.push_str(l),
            }
        }
        test.source = wavec::diag::SourceFile::new(base.source.name.clone(), text.clone());
        let input = test.input();
        match catch_unwind(AssertUnwindSafe(|| compile_input(&input, &opts, true))) {
            Err(_) => failures.push(format!("panic on:\n{text}")),
            Ok(c) => {
                if c.result.is_ok() {
                    ok += 1;
                }
                if let Err(d) = &c.result {
                    rejected += 1;
                    if let Some(d) = d.iter().find(|d| d.code.starts_with("E04") && d.code != "E0403") {
                        failures.push(format!("internal error {}: {} on:\n{text}", d.code, d.message));
                    }
                    let _ = render(&c.sources, d);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
    assert!(ok >= 10 && rejected >= 10, "{ok} compiled, {rejected} rejected: the mutations should do both");
}
