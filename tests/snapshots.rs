//! Snapshot tests: the annotated listing of every example and corpus shader,
//! for both ISA profiles. Listings must be byte-for-byte deterministic.

use wavec::driver::{Isa, OptLevel};
use wavec_tests::*;

/// Every example and corpus shader, with the flags of a corpus test's RUN
/// line (`-enable-16bit-types`, ...).
fn sources() -> Vec<(String, String, Option<wavec::run::flags::RunFlags>)> {
    let mut out = Vec::new();
    for p in files_with_ext("examples", "hlsl") {
        out.push((snapshot_name(&p), std::fs::read_to_string(&p).expect("readable example"), None));
    }
    for p in files_with_ext("tests/corpus", "test") {
        let test = wavec::run::load_test_file(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
        out.push((snapshot_name(&p), test.source.text.clone(), Some(test.flags.clone())));
    }
    out
}

fn options_for(isa: Isa, flags: &Option<wavec::run::flags::RunFlags>) -> wavec::driver::CompileOptions {
    let mut opts = options(isa, OptLevel::O);
    if let Some(f) = flags {
        f.apply(&mut opts);
    }
    opts
}

#[test]
fn listings_match_snapshots() {
    let all = sources();
    assert!(all.len() >= 12, "the corpus shrank to {} shaders", all.len());
    for (name, text, flags) in all {
        for (isa, tag) in [(Isa::Wave, "wave"), (Isa::Wave012, "wave012")] {
            let opts = options_for(isa, &flags);
            let listing = compile_text(&name, &text, &opts).asm;
            insta::assert_snapshot!(format!("{name}__{tag}"), listing);
        }
    }
}

/// A bool-heavy corpus kernel under a tight budget: on the spec profile its
/// flags leave the registers as bits of one bit bank (or as wave masks in a
/// lane bank), never as per-thread slots; on wave-0.1.2 neither is used.
#[test]
fn bool_masks_under_a_tight_budget() {
    let p = files_with_ext("tests/corpus", "test").into_iter().find(|p| p.ends_with("pressure_flags.test")).expect("pressure_flags.test");
    let test = wavec::run::load_test_file(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
    for (isa, tag) in [(Isa::Wave, "wave"), (Isa::Wave012, "wave012")] {
        let mut opts = options(isa, OptLevel::O);
        opts.max_registers = Some(10);
        let listing = compile_text("pressure_flags.hlsl", &test.source.text, &opts).asm;
        let masked = listing.contains("boolean(s) as bits") || listing.contains("boolean mask");
        match isa {
            Isa::Wave => assert!(masked, "no masks or bits at 10 registers:\n{listing}"),
            // Bit banks are written with `bfi` and masks read with wave ops, which the
            // published backends read unlike wave-emu (docs/backends.md): not on 0.1.2.
            Isa::Wave012 => assert!(
                !masked && !listing.contains(" bfi ") && !listing.contains("wave_broadcast"),
                "masks or bits on wave-0.1.2:\n{listing}"
            ),
        }
        insta::assert_snapshot!(format!("bool_masks_tight__pressure_flags__{tag}"), listing);
    }
}

/// The language tests' kernels (with their RUN-line flags), on the spec profile at -O.
#[test]
fn language_listings_match_snapshots() {
    let files = files_with_ext("tests/lang", "test");
    assert!(files.len() >= 60, "the language corpus shrank to {} tests", files.len());
    for p in files {
        let mut test = wavec::run::load_test_file(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
        let name = snapshot_name(&p);
        // A repository-relative name, so listings do not depend on where the checkout is.
        test.source.name = format!("{name}.test").replace("__", "/");
        let mut opts = options(Isa::Wave, OptLevel::O);
        test.flags.apply(&mut opts);
        let pipeline = wavec::run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
        wavec::run::apply_pipeline(&pipeline, &mut opts);
        let c = wavec::driver::compile_input(&test.input(), &opts, true);
        let compiled = c.result.unwrap_or_else(|d| panic!("{name}:\n{}", wavec::diag::render(&c.sources, &d)));
        insta::assert_snapshot!(format!("{name}__wave"), compiled.asm);
    }
}

/// `converge-waves` on wave-0.1.2, one kernel per shape it rewrites
/// (`tests/converge/*.hlsl`: a wave operation in a divergent `if`, in a loop
/// that lanes leave at different iterations, after an early `return`), and
/// `pad-warps` (a group of 12 threads that runs as one warp of 32): the
/// listing at -O and at -O0, and the IR after the passes at -O.
#[test]
fn convergence_rewrites_match_snapshots() {
    let files = files_with_ext("tests/converge", "hlsl");
    assert_eq!(files.len(), 4, "tests/converge holds {} kernels", files.len());
    for p in files {
        let name = snapshot_name(&p);
        let text = std::fs::read_to_string(&p).expect("readable kernel");
        let file = format!("{name}.hlsl").replace("__", "/");
        for (opt, tag) in [(OptLevel::O, "O"), (OptLevel::O0, "O0")] {
            let compiled = compile_text(&file, &text, &options(Isa::Wave012, opt));
            insta::assert_snapshot!(format!("{name}__wave012_{tag}"), compiled.asm);
            if opt == OptLevel::O {
                insta::assert_snapshot!(format!("{name}__wave012_{tag}_ir"), compiled.ir);
            }
        }
    }
}

/// The compat profile's rewrites (tests/compat): golden wave-0.1.2 listings.
/// conversions.hlsl: none of the four conversions every published backend
/// reads the other way round from wave-emu 0.1.2 is left, while the spec
/// profile's listing of the same kernel uses all four. log2.hlsl: the spec
/// profile's one `flog2` becomes the software log2 (its polynomial's fmas),
/// with `flog2` kept only for the special inputs.
#[test]
fn compat_rewrites_match_snapshots() {
    let files = files_with_ext("tests/compat", "hlsl");
    assert!(files.len() >= 2, "tests/compat holds too few kernels");
    let count =
        |asm: &str, ops: &[&str]| -> usize { asm.lines().filter(|l| ops.contains(&l.split_whitespace().next().unwrap_or(""))).count() };
    const CONVERSIONS: &[&str] = &["cvt_f32_f16", "cvt_f16_f32", "cvt_f64_f32", "cvt_f32_f64"];
    for p in files {
        let name = snapshot_name(&p);
        let text = std::fs::read_to_string(&p).expect("readable kernel");
        let file = format!("{name}.hlsl").replace("__", "/");
        let spec = compile_text(&file, &text, &options(Isa::Wave, OptLevel::O)).asm;
        let log2 = name.ends_with("log2");
        if log2 {
            assert_eq!((count(&spec, &["flog2"]), count(&spec, &["fma"])), (1, 0), "{name}: the spec profile's log2 is one flog2");
        } else {
            assert_eq!(count(&spec, CONVERSIONS), 4, "{name}: the spec profile converts with the four cvt instructions");
        }
        for (opt, tag) in [(OptLevel::O, "O"), (OptLevel::O0, "O0")] {
            let compiled = compile_text(&file, &text, &options(Isa::Wave012, opt));
            assert_eq!(count(&compiled.asm, CONVERSIONS), 0, "{name} {tag}: an ambiguous conversion is left");
            if log2 {
                assert!(count(&compiled.asm, &["fma"]) >= 11, "{name} {tag}: no software log2");
            }
            insta::assert_snapshot!(format!("{name}__wave012_{tag}"), compiled.asm);
        }
    }
}

#[test]
fn listings_are_deterministic() {
    for (name, text, flags) in sources() {
        let opts = options_for(Isa::Wave, &flags);
        let a = compile_text(&name, &text, &opts).asm;
        let b = compile_text(&name, &text, &opts).asm;
        assert_eq!(a, b, "{name}: two compilations differ");
    }
}

/// pair16 on the spec profile: half4/half2 arithmetic becomes packed
/// `hmul2`/`hadd2`/`hma2`, with fewer instructions than the single half
/// operations of `--disable pair16` (whose listing has none).
#[test]
fn half_vector_arithmetic_pairs_into_packed_ops() {
    let p = files_with_ext("tests/corpus", "test").into_iter().find(|p| p.ends_with("half_pair.test")).expect("half_pair.test");
    let test = wavec::run::load_test_file(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
    let count = |asm: &str, op: &str| asm.lines().filter(|l| l.trim_start().starts_with(&format!("{op} "))).count();
    let body = |asm: &str| asm.lines().filter(|l| l.starts_with("    ")).count();
    for opt in [OptLevel::O0, OptLevel::O] {
        let mut opts = options(Isa::Wave, opt);
        test.flags.apply(&mut opts);
        let paired = compile_text("half_pair.hlsl", &test.source.text, &opts).asm;
        opts.disable("pair16");
        let single = compile_text("half_pair.hlsl", &test.source.text, &opts).asm;
        for op in ["hmul2", "hadd2", "hma2"] {
            assert!(count(&paired, op) > 0, "{opt:?}: no {op}:\n{paired}");
            assert_eq!(count(&single, op), 0, "{opt:?}: {op} with pair16 off");
        }
        assert!(body(&paired) < body(&single), "{opt:?}: {} vs {} lines", body(&paired), body(&single));
    }
}
