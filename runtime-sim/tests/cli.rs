//! The `wavesim` binary: runs a kernel, dumps memory, reports faults with exit code 3.

use std::process::Command;

fn wavesim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wavesim")).args(args).output().expect("wavesim runs")
}

fn write(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("wavesim-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("temp file");
    path.to_string_lossy().into_owned()
}

const STORE_LANE_IDS: &str = ".kernel main\n.registers 4\n.workgroup_size 8, 1, 1\n    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r2, r1, r2\n    iadd r2, r0, r2 ; L3\n    device_store_u32 r2, r1 ; L4\n    halt\n.end\n";

#[test]
fn runs_and_dumps_memory() {
    let f = write("ok.wave", STORE_LANE_IDS);
    let out = wavesim(&[&f, "--reg", "0=16", "--memory", "64", "--dump", "16:32"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("0x00000010: 00000000 00000001 00000002 00000003"), "{stdout}");
    assert!(stdout.contains("0x00000020: 00000004 00000005 00000006 00000007"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 workgroups, 1 waves"));
}

#[test]
fn faults_exit_3_with_the_source_line() {
    let f = write("oob.wave", STORE_LANE_IDS);
    let out = wavesim(&[&f, "--reg", "0=16", "--memory", "32"]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("out of bounds") && stderr.contains("source line 4"), "{stderr}");
    let bad = wavesim(&[&f, "--grid", "1,1"]);
    assert_eq!(bad.status.code(), Some(2));
}
