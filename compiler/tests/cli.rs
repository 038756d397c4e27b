//! The `wavec` binary end to end: flags, outputs, exit codes.

use std::path::PathBuf;

mod common;
use common::{root, text, wavec};

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
    // The cbuffer's 8 bytes (argument 0) are readable whole.
    assert!(text(&ir.stdout).starts_with("kernel @main readable 0:8 {"), "{}", text(&ir.stdout));
    let abi = wavec(&["examples/saxpy.hlsl", "--emit", "abi"]);
    assert!(text(&abi.stdout).contains("\"kind\": \"RWStructuredBuffer\""), "{}", text(&abi.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn uniformity_notes_and_explanations() {
    // --emit ir notes each value: uniform, or the first reason it is divergent.
    let ir = text(&wavec(&["examples/saxpy.hlsl", "-O", "--emit", "ir"]).stdout);
    let note = |what: &str| ir.lines().find(|l| l.contains(what)).map(|l| l.split(';').nth(1).unwrap_or("").trim().to_string());
    assert_eq!(note("special sr_workgroup_id_x").as_deref(), Some("uniform"), "{ir}");
    assert_eq!(note("special sr_thread_id_x").as_deref(), Some("divergent: sr_thread_id_x differs per lane"), "{ir}");
    assert!(ir.contains("; divergent: operand v"), "{ir}");
    // --explain-uniformity follows each chain back to its source.
    let out = wavec(&["examples/saxpy.hlsl", "-O", "--explain-uniformity"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let explained = text(&out.stdout);
    let chains: Vec<&str> = explained.lines().filter(|l| l.contains("divergent: operand")).collect();
    assert!(!chains.is_empty(), "{explained}");
    for l in chains {
        let source = l.ends_with("sr_thread_id_x differs per lane") || l.ends_with("loads device memory the kernel writes");
        assert!(source, "a chain ends at its source: {l}");
    }
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

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = common::scratch(&format!("cli-{name}"));
    std::fs::create_dir_all(dir.join("inc")).expect("temp dir");
    dir
}

const KERNEL: &str = "#include <sizes.hlsli>\n#include \"local.hlsli\"\nRWStructuredBuffer<uint> Out : register(u0);\n[numthreads(GROUP, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE; }\n";

#[test]
fn include_dirs_and_defines() {
    let dir = scratch("pp");
    std::fs::write(dir.join("inc/sizes.hlsli"), "#pragma once\n#ifndef GROUP\n#define GROUP 32\n#endif\n").unwrap();
    std::fs::write(dir.join("local.hlsli"), "#define SCALE 3\n").unwrap();
    let main = dir.join("k.hlsl");
    std::fs::write(&main, KERNEL).unwrap();
    let (main, inc) = (main.to_str().unwrap(), dir.join("inc"));
    let inc = inc.to_str().unwrap();
    // `-I DIR` and `-IDIR`; quoted includes find the main file's directory.
    for args in [vec![main, "-I", inc], vec![main, &format!("-I{inc}")]] {
        let out = wavec(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains(".workgroup_size 32, 1, 1"), "{}", text(&out.stdout));
    }
    // -D wins over the header's default; -U removes a definition again.
    let out = wavec(&[main, "-I", inc, "-D", "GROUP=8", "-DX", "-UX"]);
    assert!(text(&out.stdout).contains(".workgroup_size 8, 1, 1"), "{}", text(&out.stderr));
    // --emit pp prints the expanded source.
    let out = wavec(&[main, "-I", inc, "--emit", "pp"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("[numthreads(32, 1, 1)]") && text(&out.stdout).contains("id.x * 3"), "{}", text(&out.stdout));
    // Without -I the header is not found: the error names the file, the line and the places searched.
    let out = wavec(&[main]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("error[E0130]: cannot find include file `sizes.hlsli`") && err.contains("k.hlsl:1:1"), "{err}");
    assert!(err.contains("searched: the standard library"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_in_headers_render_with_their_file() {
    let dir = scratch("hdr");
    std::fs::write(dir.join("inc/sizes.hlsli"), "#define GROUP 32\n#if GROUP / 0\n#endif\n").unwrap();
    std::fs::write(dir.join("local.hlsli"), "#define SCALE 3\n").unwrap();
    let main = dir.join("k.hlsl");
    std::fs::write(&main, KERNEL).unwrap();
    let out = wavec(&[main.to_str().unwrap(), "-I", dir.join("inc").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("error[E0125]") && err.contains("sizes.hlsli:2:11"), "{err}");
    assert!(err.contains("included from") && err.contains("k.hlsl:1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn latin1_crlf_and_utf16_sources_compile() {
    let dir = scratch("enc");
    let latin1 = dir.join("latin1.hlsl");
    std::fs::write(&latin1, b"// caf\xE9 \xB0C\r\n#define N 4\r\nRWStructuredBuffer<uint> Out : register(u0);\r\n[numthreads(N, 1, 1)]\r\nvoid main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }\r\n")
        .unwrap();
    let src = "// \u{2211} UTF-16\r\n#define N 2\r\nRWStructuredBuffer<uint> Out : register(u0);\r\n[numthreads(N, 1, 1)]\r\nvoid main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }\r\n";
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(src.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let utf16 = dir.join("utf16.compute");
    std::fs::write(&utf16, bytes).unwrap();
    for (path, size) in [(&latin1, "4"), (&utf16, "2")] {
        let out = wavec(&[path.to_str().unwrap()]);
        assert!(out.status.success(), "{}: {}", path.display(), text(&out.stderr));
        assert!(text(&out.stdout).contains(&format!(".workgroup_size {size}, 1, 1")), "{}", text(&out.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_profile_or_version_is_a_usage_error() {
    let out = wavec(&["examples/saxpy.hlsl", "-T", "compute"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("E0508"), "{}", text(&out.stderr));
    let out = wavec(&["examples/saxpy.hlsl", "--HV", "latest"]);
    assert_eq!(out.status.code(), Some(2));
    let out = wavec(&["examples/saxpy.hlsl", "-T", "cs_6_5", "--HV", "2021"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn unity_compute_files_default_to_hlsl_2018() {
    // A vector `?:` condition: element-wise under HLSL 2018, an error under 2021.
    let dir = std::env::temp_dir().join(format!("wavec-cli-hv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = "#pragma kernel K\nRWStructuredBuffer<float4> R;\n\
               [numthreads(4, 1, 1)] void K(uint i : SV_GroupIndex) { float4 v = R[i]; R[i] = v > 0 ? v : -v; }\n";
    let compute = dir.join("blur.compute");
    let hlsl = dir.join("blur.hlsl");
    std::fs::write(&compute, src).expect("write");
    std::fs::write(&hlsl, src).expect("write");
    let (c, h) = (compute.to_string_lossy().into_owned(), hlsl.to_string_lossy().into_owned());
    let out = wavec(&[&c, "-v"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("note: HLSL 2018 (") && text(&out.stderr).contains("Unity .compute file"), "{}", text(&out.stderr));
    let out = wavec(&[&c, "-HV", "2021"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("E0214"), "{}", text(&out.stderr));
    let out = wavec(&[&h, "--verbose"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("note: HLSL 2021 (DXC's default)"), "{}", text(&out.stderr));
    let out = wavec(&[&h, "-HV", "2018"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unbounded_arrays_take_their_size_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("wavec-cli-arr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("u.hlsl");
    std::fs::write(
        &src,
        "RWBuffer<int> B[] : register(u1, space2);\n[numthreads(4, 1, 1)] void main(uint i : SV_GroupIndex) { B[i][0] = i; }\n",
    )
    .expect("write");
    let s = src.to_string_lossy().into_owned();
    let out = wavec(&[&s]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("E0306") && text(&out.stderr).contains("--array-size u1"), "{}", text(&out.stderr));
    // Three descriptors from u1 in space 2: three elements, each with its own register.
    let out = wavec(&[&s, "--emit", "abi", "--array-size", "u1,space2=3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let abi = text(&out.stdout);
    assert!(abi.contains("\"name\": \"B[2]\"") && !abi.contains("B[3]"), "{abi}");
    let out = wavec(&[&s, "--array-size", "u1=many"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("E0509"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_writes_json_and_html_reports() {
    let dir = scratch("reports");
    let (json, html) = (dir.join("stats.json"), dir.join("report.html"));
    let out = wavec(&[
        "run",
        "examples/seeds/large_thread_groups.test",
        "--target",
        "gcn",
        "-O",
        "--registers",
        "40",
        "--compute-units",
        "2",
        "--stats-json",
        json.to_str().expect("utf-8"),
        "--report",
        html.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("valid JSON");
    let t = &v["timing"];
    assert_eq!((t["compute_units"].as_u64(), t["groups_per_cu"].as_u64(), t["admitted_registers"].as_u64()), (Some(2), Some(1), Some(40)));
    assert!(t["cycles"].as_u64().unwrap_or(0) > 0);
    assert!(t["lines"].as_array().is_some_and(|l| l.iter().any(|x| x["text"].as_str() == Some("GroupMemoryBarrierWithGroupSync();"))));
    let page = std::fs::read_to_string(&html).expect("html written");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains(&format!("<div class=\"value\">{}</div>", t["cycles"])), "{page}");
    // `-` writes the JSON to stdout, after the pipeline.
    let out = wavec(&["run", "examples/saxpy.test", "--stats-json", "-"]);
    let stdout = text(&out.stdout);
    let at = stdout.find("\n{\n").expect("JSON after the pipeline");
    let v: serde_json::Value = serde_json::from_str(&stdout[at + 1..]).expect("valid JSON");
    assert_eq!(v["kernel"].as_str(), Some("main"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_timing_flags() {
    let cycles = |args: &[&str]| -> String {
        let mut all = vec!["run", "examples/saxpy.test", "--stats"];
        all.extend_from_slice(args);
        let out = wavec(&all);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr).lines().find(|l| l.contains("simulated cycles") || l.contains("no cycle model")).unwrap_or("").to_string()
    };
    assert!(cycles(&[]).contains("on 4 compute units"), "{}", cycles(&[]));
    assert!(cycles(&["--compute-units", "1"]).contains("on 1 compute units"));
    assert!(cycles(&["--no-timing"]).contains("no cycle model"));
    // The strict mode passes compiled code; a register count out of range is refused by clap.
    assert!(!cycles(&["--strict"]).is_empty());
    assert_eq!(wavec(&["run", "examples/saxpy.test", "--registers", "0"]).status.code(), Some(2));
}

/// Issue 19 from the command line: a warning on a line `#line 0` numbers 0
/// (`wavec` and `wavec run` panicked rendering it), devices as inputs, limits.
#[test]
fn line_zero_devices_and_limits_from_the_command_line() {
    let dir = scratch("issue19");
    let src = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n    float x = 2.5;\n#line 0\n    uint i = x;\n    Out[0] = i;\n}\n";
    let hlsl = dir.join("line0.hlsl");
    std::fs::write(&hlsl, src).expect("write");
    let out = wavec(&[hlsl.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("line0.hlsl:0:"), "{}", text(&out.stderr));
    let test = dir.join("line0.test");
    let yaml = "---\nShaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n  - Name: Out\n    Format: UInt32\n    FillSize: 4\n\
                DescriptorSets:\n  - Resources:\n    - Name: Out\n      Kind: RWStructuredBuffer\n      DirectXBinding: { Register: 0, Space: 0 }\n...\n";
    std::fs::write(&test, format!("#--- source.hlsl\n{src}#--- pipeline.yaml\n{yaml}#--- end\n")).expect("write");
    let out = wavec(&["run", test.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("warning[W0201]"), "{}", text(&out.stderr));
    // Devices are not read (this one was read until memory ran out).
    if std::path::Path::new("/dev/zero").exists() {
        let out = wavec(&["/dev/zero"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains("E0512"), "{}", text(&out.stderr));
        let out = wavec(&["run", "/dev/zero"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains("E0512"), "{}", text(&out.stderr));
    }
    // --limit: a file over the size limit, a bad limit, the list of limits.
    let out = wavec(&[hlsl.to_str().expect("utf-8"), "--limit", "file-size=100"]);
    assert!(text(&out.stderr).contains("E0512") && text(&out.stderr).contains("--limit file-size"), "{}", text(&out.stderr));
    let out = wavec(&[hlsl.to_str().expect("utf-8"), "--limit", "nonsense=3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("E0513") && text(&out.stderr).contains("pp-output"), "{}", text(&out.stderr));
    let out = wavec(&["examples/saxpy.hlsl", "--limit", "help"]);
    assert!(text(&out.stderr).contains("trace-memory") && text(&out.stderr).contains("256MiB"), "{}", text(&out.stderr));
    // The run's instruction limit (saxpy at -O0: one workgroup of two waves, 146 wave-instructions).
    let out = wavec(&["run", "examples/saxpy.test", "-O0", "--max-instructions", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("more than the run's limit of 1 "), "{}", text(&out.stderr));
    let out = wavec(&["run", "examples/saxpy.test", "-O0", "--max-instructions", "100"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("more than 100 wave-instructions in all"), "{}", text(&out.stderr));
    assert_eq!(wavec(&["run", "examples/saxpy.test", "-O0", "--max-instructions", "146"]).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plain `wavec run FILE` passes the shipped tests whose expectations need
/// IEEE denormals or 64-lane waves: they say so themselves.
#[test]
fn shipped_tests_say_what_they_need() {
    for t in ["tests/corpus/bool_logic.test", "tests/lang/wave_basics_w64.test"] {
        let out = wavec(&["run", t, "--no-timing"]);
        assert_eq!(out.status.code(), Some(0), "{t}: {}", text(&out.stderr));
    }
    // The command line's --target wins over the test's header.
    let out = wavec(&["run", "tests/lang/wave_basics_w64.test", "--no-timing", "--target", "generic"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}
