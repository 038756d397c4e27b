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

#[test]
fn a_machine_file_turns_the_cycle_model_on() {
    let f = write("timed.wave", STORE_LANE_IDS);
    let m = wavesim::Machine {
        compute_units: 1,
        cores_per_cu: 1,
        max_waves_per_core: 8,
        register_file_bytes: 65536,
        register_granule: 1,
        local_memory_per_cu: 65536,
        issue: wavesim::ClassCycles { alu: 1, fpu: 1, sfu: 1, memory: 1, atomic: 1, wave: 1, control: 1, sync: 1, mov: 1 },
        latency: wavesim::ClassCycles { alu: 4, fpu: 4, sfu: 8, memory: 10, atomic: 10, wave: 4, control: 1, sync: 1, mov: 4 },
        memory: wavesim::MemoryTiming {
            segment_bytes: 64,
            transaction_cycles: 1,
            l2_bytes: 4096,
            l2_ways: 4,
            l2_latency: 20,
            l2_bytes_per_cycle: 64,
            dram_latency: 100,
            dram_bytes_per_cycle: 16,
            local_banks: 32,
            local_latency: 10,
            local_pass_cycles: 1,
        },
        launch_cycles: 2,
        barrier_cycles: 2,
    };
    let mf = write("gpu.txt", &m.to_string());
    let out = wavesim(&[&f, "--reg", "0=16", "--memory", "64", "--machine", &mf]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(" cycles; core cycles: issue "), "{stderr}");
    let bad = write("bad.txt", "compute_units = 1\n");
    let out = wavesim(&[&f, "--machine", &bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing machine parameter"));
}
