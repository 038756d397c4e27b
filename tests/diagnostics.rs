//! Diagnostics snapshots: every `diagnostics/*.hlsl` file (a short shader with
//! one mistake) is preprocessed and analysed by the front end and its rendered
//! diagnostics are compared with `snapshots/diagnostics__NAME.snap`. Quoted
//! includes find `diagnostics/include/*.hlsli` (paths relative to this crate,
//! where cargo runs the test), so errors in included files render as they
//! would for a user.
//!
//! A case whose first line is `// -HV YEAR` is analysed with that HLSL version
//! (language rules and `__HLSL_VERSION`), as `wavec -HV YEAR` would.

use std::path::Path;

use wavec::diag::{render, SourceFile};
use wavec::frontend::preprocess::{preprocess, PpOptions};
use wavec::source::Input;

/// The `-HV` year a case asks for on its first line (`// -HV 2018`).
fn hlsl_version(text: &str) -> Option<u32> {
    let first = text.lines().next()?.trim();
    let year = first.strip_prefix("// -HV ")?.split_whitespace().next()?;
    Some(wavec::options::parse_hlsl_version(year).unwrap_or_else(|| panic!("bad -HV header `{first}`")))
}

fn rendered(name: &str, text: &str) -> String {
    let file = SourceFile::new(format!("diagnostics/{name}.hlsl"), text);
    let mut pp_opts = PpOptions::default();
    let mut fe_opts = wavec::frontend::FrontendOptions::default();
    if let Some(year) = hlsl_version(text) {
        pp_opts.hlsl_version = year;
        fe_opts.hlsl_version = wavec::options::HlslVersion(year);
    }
    let (sources, pp) = preprocess(&Input::new(file).with_dir("diagnostics"), &pp_opts);
    match pp.and_then(|pp| wavec::frontend::analyze_preprocessed(&pp, &sources, &fe_opts)) {
        Ok((_, warnings)) if warnings.is_empty() => "ok: no diagnostics\n".to_string(),
        Ok((_, warnings)) => format!("ok, with warnings:\n{}", render(&sources, &warnings)),
        Err(diags) => render(&sources, &diags),
    }
}

#[test]
fn diagnostics_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("diagnostics");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/diagnostics exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hlsl"))
        .collect();
    files.sort();
    assert!(files.len() >= 12, "expected at least 12 diagnostics cases");
    for path in files {
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 file name").to_string();
        // Decoded as wavec decodes sources (some cases are Latin-1 or UTF-16).
        let text = wavec::source::read_file(&path, "").expect("readable test file").text;
        insta::assert_snapshot!(name.clone(), rendered(&name, &text));
    }
}

/// Back-end diagnostics: every `diagnostics/backend/*.hlsl` file is compiled
/// through the whole pipeline at -O with the flags on its first line
/// (`// wavec: --isa wave-0.1.2 --target-occupancy 8 --max-registers 6`), and
/// its errors or warnings are compared with `snapshots/diagnostics__backend__NAME.snap`.
#[test]
fn backend_diagnostics_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("diagnostics/backend");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/diagnostics/backend exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hlsl"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "expected at least 4 back-end diagnostics cases");
    for path in files {
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 file name").to_string();
        let text = std::fs::read_to_string(&path).expect("readable test file");
        let mut opts = wavec::driver::CompileOptions::new(wavec::target::preset("generic").expect("generic"));
        opts.opt = wavec::driver::OptLevel::O;
        let flags = text.lines().next().and_then(|l| l.strip_prefix("// wavec:")).unwrap_or("");
        let words: Vec<&str> = flags.split_whitespace().collect();
        for pair in words.chunks(2) {
            match pair {
                ["--isa", "wave-0.1.2"] => opts.isa = wavec::driver::Isa::Wave012,
                ["--target", t] => opts.target = wavec::target::preset(t).expect("a target"),
                ["--target-occupancy", n] => opts.target_occupancy = Some(n.parse().expect("a number")),
                ["--max-registers", n] => opts.max_registers = Some(n.parse().expect("a number")),
                other => panic!("{name}: unknown flags {other:?}"),
            }
        }
        let file = SourceFile::new(format!("diagnostics/backend/{name}.hlsl"), &text);
        let shown = match wavec::driver::compile_with(&file, &opts, true) {
            Ok(c) if c.warnings.is_empty() => "ok: no diagnostics\n".to_string(),
            Ok(c) => format!("ok, with warnings:\n{}", render(&wavec::diag::Sources::from(file.clone()), &c.warnings)),
            Err(d) => render(&wavec::diag::Sources::from(file.clone()), &d),
        };
        insta::assert_snapshot!(format!("backend__{name}"), shown);
    }
}
