//! The `wavec` binary end to end: flags, outputs, exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("compiler/ has a parent").to_path_buf()
}

fn wavec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavec")).args(args).current_dir(root()).output().expect("wavec runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_readme_command_prints_an_annotated_listing() {
    let out = wavec(&["examples/saxpy.hlsl", "-O", "--target-occupancy", "8"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let asm = text(&out.stdout);
    assert!(asm.contains(".kernel main\n.registers "), "{asm}");
    assert!(asm.contains(".workgroup_size 64, 1, 1"), "{asm}");
    assert!(asm.contains(";   r0   b0   cbuffer Params { float a @0, uint n @4 }"), "{asm}");
    assert!(asm.contains("; target occupancy: 8 waves per core (budget 64 registers): met"), "{asm}");
    // Every instruction line names its source line.
    let body: Vec<&str> = asm.lines().filter(|l| l.starts_with("    ")).collect();
    assert!(!body.is_empty() && body.iter().all(|l| l.contains("; L")), "{asm}");
}

#[test]
fn optimization_flags_do_not_swallow_the_file_name() {
    let o = wavec(&["-O", "examples/saxpy.hlsl"]);
    let o0 = wavec(&["-O0", "examples/saxpy.hlsl"]);
    assert!(o.status.success() && o0.status.success());
    assert!(text(&o.stdout).lines().count() < text(&o0.stdout).lines().count(), "-O should shorten the listing");
    let bad = wavec(&["-Ofast", "examples/saxpy.hlsl"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("E0502"));
}

#[test]
fn wbin_ir_and_abi_outputs() {
    let dir = std::env::temp_dir().join(format!("wavec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let wbin = dir.join("saxpy.wbin");
    let out = wavec(&["examples/saxpy.hlsl", "-O", "--emit", "wbin", "-o", wbin.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::metadata(&wbin).expect("wbin written").len() > 16);
    let ir = wavec(&["examples/saxpy.hlsl", "--emit", "ir"]);
    assert!(text(&ir.stdout).starts_with("kernel @main {"), "{}", text(&ir.stdout));
    let abi = wavec(&["examples/saxpy.hlsl", "--emit", "abi"]);
    assert!(text(&abi.stdout).contains("\"kind\": \"RWStructuredBuffer\""), "{}", text(&abi.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_have_codes_and_exit_codes() {
    let missing = wavec(&["no/such/file.hlsl"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("E0504"));
    let target = wavec(&["examples/saxpy.hlsl", "--target", "nope"]);
    assert_eq!(target.status.code(), Some(2));
    assert!(text(&target.stderr).contains("known targets: generic, gcn, rdna, nvidia, apple"));
    let targets = wavec(&["--print-targets"]);
    assert!(targets.status.success() && text(&targets.stdout).contains("gcn"));
}

#[test]
fn run_passes_and_reports_mismatches() {
    let ok = wavec(&["run", "examples/saxpy.test", "--stats"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("Name: \"Y\"") || text(&ok.stdout).contains("Name: Y"), "{}", text(&ok.stdout));
    assert!(text(&ok.stderr).contains("simulated cycles"), "{}", text(&ok.stderr));
    // The same test with a wrong expectation must fail with exit code 1.
    let src = std::fs::read_to_string(root().join("examples/saxpy.test")).expect("saxpy.test");
    let bad = src.replacen("Data: [ 0x40000000", "Data: [ 0x40400000", 1);
    assert_ne!(bad, src, "the cbuffer line moved: update this test");
    let path = std::env::temp_dir().join(format!("wavec-bad-{}.test", std::process::id()));
    std::fs::write(&path, bad).expect("write");
    let out = wavec(&["run", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("got 3.5, expected 3"), "{}", text(&out.stderr));
    let _ = std::fs::remove_file(&path);
}
