//! Whole-pipeline robustness: mutated and truncated shaders must never make
//! wavec panic, and any program the front end accepts must compile without an
//! internal error (E04xx other than the refusals by design: register limit,
//! atomics wave-0.1.2 cannot run, spill area), for both profiles,
//! with the IR verifier after every pass.

use std::panic::{catch_unwind, AssertUnwindSafe};
use wavec::diag::SourceFile;
use wavec::driver::{compile_with, Isa, OptLevel};
use wavec_tests::*;

/// Examples and corpus shaders that compile with the default options (this
/// test passes no RUN-line flags, so a `-enable-16bit-types` test is left out).
fn corpus_sources() -> Vec<String> {
    let mut out: Vec<String> = files_with_ext("examples", "hlsl").iter().map(|p| std::fs::read_to_string(p).expect("example")).collect();
    for p in files_with_ext("tests/corpus", "test") {
        let test = wavec::run::load_test_file(&p).expect("corpus test");
        if !test.flags.enable_16bit_types {
            out.push(test.source.text);
        }
    }
    out
}

/// Compiles `text` both ways; returns a failure description if wavec panicked or hit an internal error.
fn check(text: &str) -> Option<String> {
    check_counting(text, &mut 0)
}

/// As `check`, counting successful compilations in `ok`.
fn check_counting(text: &str, ok: &mut usize) -> Option<String> {
    for isa in [Isa::Wave, Isa::Wave012] {
        for opt in [OptLevel::O0, OptLevel::O] {
            let file = SourceFile::new("fuzz.hlsl", text);
            let opts = options(isa, opt);
            let result = catch_unwind(AssertUnwindSafe(|| compile_with(&file, &opts, true)));
            match result {
                Err(_) => return Some(format!("panic ({isa:?}, {opt:?}) on:\n{text}")),
                Ok(Err(diags)) => {
                    // E0403 (registers), E0406/E0407 (atomics wave-0.1.2 cannot run) and
                    // E0408 (a spill scratch area that cannot be addressed) are refusals by design.
                    let refusal = |c: &str| ["E0403", "E0406", "E0407", "E0408"].contains(&c);
                    if let Some(d) = diags.iter().find(|d| d.code.starts_with("E04") && !refusal(d.code)) {
                        return Some(format!("internal error {} ({isa:?}, {opt:?}): {} {:?} on:\n{text}", d.code, d.message, d.notes));
                    }
                }
                Ok(Ok(_)) => *ok += 1,
            }
        }
    }
    None
}

#[test]
fn truncated_shaders_never_panic() {
    let mut failures = Vec::new();
    for src in corpus_sources() {
        let lines: Vec<&str> = src.lines().collect();
        for n in 0..lines.len() {
            if let Some(f) = check(&lines[..n].join("\n")) {
                failures.push(f);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
}

#[test]
fn mutated_shaders_never_panic_or_break_the_compiler() {
    // Token-level edits that often keep the program valid: they exercise the
    // lowering and the back end with shapes the corpus does not have.
    let swaps: &[(&str, &str)] = &[
        ("<", ">="),
        ("+", "*"),
        ("if (", "while ("),
        ("while (", "if ("),
        ("uint", "int"),
        ("int", "float"),
        ("float", "uint"),
        ("break;", "continue;"),
        ("continue;", "break;"),
        ("&&", "||"),
        ("0", "7"),
        ("1", "0"),
        ("{", "{ if (true) return; "),
        ("}", "break; }"),
        ("=", "+="),
        ("-", "/"),
        ("%", "/"),
        (">>", "<<"),
        ("?", "&& true ?"),
    ];
    let mut rng = Rng::new(1);
    let mut failures = Vec::new();
    let sources = corpus_sources();
    let mut compiled = 0;
    for _ in 0..400 {
        let mut text = sources[rng.below(sources.len())].clone();
        for _ in 0..1 + rng.below(3) {
            let (from, to) = swaps[rng.below(swaps.len())];
            let hits: Vec<usize> = text.match_indices(from).map(|(i, _)| i).collect();
            if hits.is_empty() {
                continue;
            }
            let at = hits[rng.below(hits.len())];
            text.replace_range(at..at + from.len(), to);
        }
        if let Some(f) = check_counting(&text, &mut compiled) {
            failures.push(f);
            if failures.len() > 5 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
    // Most mutants must still compile, or this test would only exercise the front end.
    assert!(compiled >= 400, "only {compiled} of 1600 compilations succeeded");
}

/// Every shader of the corpus, the examples and the language tests, read with the
/// HLSL 2018 rules (no short-circuit, leaking `for` scope): programs written for 2021
/// mostly mean the same, and none may panic or break the back end. Also a few
/// mutations of each that make `&&`, `||` and `?:` carry effects and vectors.
#[test]
fn hlsl_2018_rules_never_break_the_compiler() {
    let mut sources = corpus_sources();
    for p in files_with_ext("tests/lang", "test") {
        if let Ok(t) = wavec::run::load_test_file(&p) {
            sources.push(t.source.text);
        }
    }
    let mut failures = Vec::new();
    let mut compiled = 0;
    for (k, src) in sources.iter().enumerate() {
        // The language tests carry their own -D/-E flags; a missing entry is fine, a panic is not.
        let variants = [src.clone(), src.replace(" && ", " || ").replace(" < ", " < (int3)"), src.replacen(" ? ", " ? (float3)", 3)];
        for text in variants.iter().take(if k % 2 == 0 { 3 } else { 1 }) {
            for isa in [Isa::Wave, Isa::Wave012] {
                let mut opts = options(isa, OptLevel::O);
                opts.hlsl_version = Some(2018);
                let file = SourceFile::new("hv2018.hlsl", text.as_str());
                match catch_unwind(AssertUnwindSafe(|| compile_with(&file, &opts, true))) {
                    Err(_) => failures.push(format!("panic ({isa:?}) on:\n{text}")),
                    Ok(Err(d)) => {
                        // E0403/E0406/E0407: the kernel does not fit the 0.1.2 profile (not a bug).
                        let limits = ["E0403", "E0406", "E0407"];
                        if let Some(d) = d.iter().find(|d| d.code.starts_with("E04") && !limits.contains(&d.code)) {
                            failures.push(format!("internal error {} ({isa:?}): {} {:?} on:\n{text}", d.code, d.message, d.notes));
                        }
                    }
                    Ok(Ok(_)) => compiled += 1,
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
    assert!(compiled >= 100, "only {compiled} compilations succeeded");
}
