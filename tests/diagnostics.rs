//! Diagnostics snapshots: every `diagnostics/*.hlsl` file (a short shader with
//! one mistake) is analysed by the front end and its rendered diagnostics are
//! compared with `snapshots/diagnostics__NAME.snap`.

use std::path::Path;

use wavec::diag::{render, SourceFile};

fn rendered(name: &str, text: &str) -> String {
    let file = SourceFile::new(format!("diagnostics/{name}.hlsl"), text);
    match wavec::frontend::analyze(&file, None) {
        Ok((_, warnings)) if warnings.is_empty() => "ok: no diagnostics\n".to_string(),
        Ok((_, warnings)) => format!("ok, with warnings:\n{}", render(&file, &warnings)),
        Err(diags) => render(&file, &diags),
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
        let text = std::fs::read_to_string(&path).expect("readable test file");
        insta::assert_snapshot!(name.clone(), rendered(&name, &text));
    }
}
