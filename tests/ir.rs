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
//!
//! Optional headers: `; budget: N` gives pressure-aware passes (`licm`) a
//! budget of N registers; `; isa: wave-0.1.2` selects that profile's costs
//! (`if-convert`); `; workgroup: X, Y, Z` is the kernel's `[numthreads]`
//! (`pad-warps`); `; uniformity` prints each value's uniformity note;
//! `; pressure` prints the estimated register pressure of each loop before
//! and after the passes; `; converged` asserts that no wave operation is left
//! in divergent code after them (`passes::converge::unconverged`).

use wavec::driver::Isa;
use wavec::ir::{parse_function, print_function, verify};
use wavec::passes::{self, Budget, PassContext, PassInfo};
use wavec_tests::*;

/// The value of a `; key: value` header line.
fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.trim().strip_prefix(';').and_then(|l| l.trim().strip_prefix(key)).map(str::trim))
}

/// The passes named by the `; pass:` lines, in order.
fn passes_of(name: &str, text: &str) -> Vec<&'static PassInfo> {
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

fn context(name: &str, text: &str) -> PassContext {
    let mut cx = PassContext::default();
    if let Some(n) = header(text, "budget:") {
        cx.budget = Budget::Registers(n.parse().unwrap_or_else(|_| panic!("{name}: bad budget `{n}`")));
    }
    if let Some(w) = header(text, "workgroup:") {
        let sizes: Vec<u32> = w.split(',').map(|n| n.trim().parse().unwrap_or_else(|_| panic!("{name}: bad workgroup `{w}`"))).collect();
        cx.workgroup = Some(sizes.try_into().unwrap_or_else(|_| panic!("{name}: a workgroup has three sizes: `{w}`")));
    }
    if let Some(isa) = header(text, "isa:") {
        cx.isa = match isa {
            "wave" => Isa::Wave,
            "wave-0.1.2" => Isa::Wave012,
            other => panic!("{name}: unknown isa `{other}`"),
        };
    }
    cx
}

/// `max M, loops [a, b]`: the estimate LICM works with.
fn pressure(f: &wavec::ir::Function) -> String {
    let nodes = wavec::ir::structure::region_tree(f).expect("structured");
    let loops = passes::loops::Loops::new(f, &nodes);
    let p = passes::pressure::estimate(f, &nodes, &loops);
    format!("max {}, loops {:?}", p.max, p.per_loop)
}

fn run_file(name: &str, text: &str) -> String {
    let mut f = parse_function(text).unwrap_or_else(|e| panic!("{name}.ir:{e}"));
    if let Err(e) = verify(&f) {
        panic!("{name}: the input does not verify: {e:?}");
    }
    let cx = context(name, text);
    let mut log = String::new();
    let show_pressure = text.lines().any(|l| l.trim() == "; pressure");
    if show_pressure {
        log.push_str(&format!("; pressure before: {}\n", pressure(&f)));
    }
    for pass in passes_of(name, text) {
        let changed = (pass.run)(&mut f, &cx);
        if let Err(e) = verify(&f) {
            panic!("{name}: invalid IR after {}: {e:?}\n{}", pass.name, print_function(&f, &|_| None));
        }
        log.push_str(&format!("; {}: {}\n", pass.name, if changed { "changed" } else { "unchanged" }));
    }
    if show_pressure {
        log.push_str(&format!("; pressure after: {}\n", pressure(&f)));
    }
    if text.lines().any(|l| l.trim() == "; converged") {
        let left = passes::converge::unconverged(&f);
        assert!(left.is_empty(), "{name}: wave operations left in divergent code: {left:?}\n{}", print_function(&f, &|_| None));
    }
    let printed = if text.lines().any(|l| l.trim() == "; uniformity") {
        let u = passes::uniformity::analyze_with_witness(&f);
        print_function(&f, &|v| Some(u.explain(v)))
    } else {
        print_function(&f, &|_| None)
    };
    format!("{log}{printed}")
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
