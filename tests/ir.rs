//! IR filetests: each `tests/ir/*.ir` holds one function in the IR's text form
//! and names the passes to run in a header comment:
//!
//! ```text
//! ; pass: fold-constants, dead-code
//! kernel @k {
//! ...
//! ```
//!
//! The test parses the function, verifies it, runs the passes in order
//! (verifying after each), and compares the printed result with an insta
//! snapshot (`tests/snapshots/ir__<file>.snap`). Write new passes' tests here.

use wavec::ir::{parse_function, print_function, verify};
use wavec::passes;
use wavec_tests::*;

/// The passes named by the `; pass:` lines, in order.
fn passes_of(name: &str, text: &str) -> Vec<passes::Pass> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(list) = line.trim().strip_prefix(';').and_then(|l| l.trim().strip_prefix("pass:")) else { continue };
        for p in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            out.push(passes::by_name(p).unwrap_or_else(|| panic!("{name}: unknown pass `{p}`")));
        }
    }
    assert!(!out.is_empty(), "{name}: no `; pass:` line");
    out
}

fn run_file(name: &str, text: &str) -> String {
    let mut f = parse_function(text).unwrap_or_else(|e| panic!("{name}.ir:{e}"));
    if let Err(e) = verify(&f) {
        panic!("{name}: the input does not verify: {e:?}");
    }
    let mut log = String::new();
    for (pass, run) in passes_of(name, text) {
        let changed = run(&mut f);
        if let Err(e) = verify(&f) {
            panic!("{name}: invalid IR after {pass}: {e:?}\n{}", print_function(&f, &|_| None));
        }
        log.push_str(&format!("; {pass}: {}\n", if changed { "changed" } else { "unchanged" }));
    }
    format!("{log}{}", print_function(&f, &|_| None))
}

#[test]
fn ir_filetests() {
    let files = files_with_ext("tests/ir", "ir");
    assert!(files.len() >= 3, "found only {} IR filetests", files.len());
    for path in files {
        let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("readable filetest");
        let out = run_file(&name, &text);
        insta::assert_snapshot!(name, out);
    }
}
