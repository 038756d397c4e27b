//! Shared helpers for the workspace tests: finding the corpus, compiling it.

use std::path::{Path, PathBuf};
use wavec::diag::{render, SourceFile};
use wavec::driver::{compile_with, CompileOptions, Compiled, Isa, OptLevel};
use wavec::target;

/// The repository root (the parent of this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Files in `dir` (relative to the root) ending in `.ext`, sorted for determinism.
pub fn files_with_ext(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == ext)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Options for the `generic` target.
pub fn options(isa: Isa, opt: OptLevel) -> CompileOptions {
    let mut o = CompileOptions::new(target::preset("generic").expect("generic target"));
    o.isa = isa;
    o.opt = opt;
    o
}

/// Compiles `text` with the IR verifier after every pass; panics with rendered diagnostics on failure.
pub fn compile_text(name: &str, text: &str, opts: &CompileOptions) -> Compiled {
    let file = SourceFile::new(name, text);
    match compile_with(&file, opts, true) {
        Ok(c) => c,
        Err(d) => panic!("{name} failed to compile:\n{}", render(&file, &d)),
    }
}

/// A short, stable name for a path: `examples/saxpy.hlsl` -> `examples__saxpy`.
pub fn snapshot_name(path: &Path) -> String {
    let rel = path.strip_prefix(repo_root()).unwrap_or(path);
    rel.with_extension("").to_string_lossy().replace(['/', '\\'], "__")
}
