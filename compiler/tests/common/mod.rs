//! What the binary's end-to-end tests share: running `wavec` from the
//! repository root (or another folder) and reading its output.
#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (examples/, tests/ and benches/ are paths from it).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("compiler/ has a parent").to_path_buf()
}

/// Runs the built `wavec` with `args` in `dir`.
pub fn wavec_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavec")).args(args).current_dir(dir).output().expect("wavec runs")
}

/// Runs the built `wavec` with `args` in the repository root.
pub fn wavec(args: &[&str]) -> Output {
    wavec_in(&root(), args)
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh scratch directory for one test (emptied if a previous run left it).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wavec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
