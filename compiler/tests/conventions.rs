//! dxc's driver conventions end to end (issue 21): output files (-Fo, -Fc,
//! -Fh, -Vn, -Fre), warning flags (-W..., -WX, -w), machine-readable
//! diagnostics (json, SARIF against the schema), dependency files (-M, -MD,
//! -MF, and make rerunning when an include changes), optimization levels,
//! grouped help and shell completions.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{root, text, wavec, wavec_in};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("conv-{name}"))
}

/// A kernel with a float-to-int truncation (W0201, line 4) and a vector truncation (W0202, line 5).
const WARNS: &str = "#include \"my header.hlsli\"\nRWStructuredBuffer<uint> Out : register(u0);\n\
    [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
    uint x = 1.5;\n\
    float2 v = float3(1, 2, 3);\n\
    Out[id.x] = x * SCALE + (uint)v.y; }\n";

fn warns_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("k.hlsl"), WARNS).expect("write kernel");
    std::fs::write(dir.join("my header.hlsli"), "#define SCALE 3\n").expect("write header");
    dir
}

fn codes(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let (sev, rest) = l.split_once('[')?;
            matches!(sev, "error" | "warning" | "note").then(|| format!("{sev}[{}", rest.split(']').next().unwrap_or("")))
        })
        .collect()
}

#[test]
fn dxc_output_files_come_from_one_compilation() {
    let saxpy = root().join("examples/saxpy.hlsl");
    let dir = scratch("outputs");
    let src = saxpy.to_str().expect("utf-8 path");
    let out = wavec_in(&dir, &[src, "-Fo", "k.wbin", "-Fc", "k.lst", "-Fh", "k.h", "-Fre", "k.json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // As dxc: asked for files, nothing goes to stdout.
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let wbin = std::fs::read(dir.join("k.wbin")).expect("-Fo written");
    // The same bytes as --emit wbin, the listing of the 0.1.2 code, the ABI of --emit abi.
    let emitted = wavec_in(&dir, &[src, "--emit", "wbin", "-o", "e.wbin"]);
    assert!(emitted.status.success());
    assert_eq!(std::fs::read(dir.join("e.wbin")).expect("e.wbin"), wbin);
    let listing = wavec(&["examples/saxpy.hlsl", "--isa", "wave-0.1.2"]);
    let lst = std::fs::read_to_string(dir.join("k.lst")).expect("-Fc written");
    assert_eq!(lst.replace(src, "examples/saxpy.hlsl"), text(&listing.stdout));
    assert!(lst.contains("; isa wave-0.1.2"), "{lst}");
    let abi = wavec(&["examples/saxpy.hlsl", "--emit", "abi"]);
    assert_eq!(std::fs::read_to_string(dir.join("k.json")).expect("-Fre written"), text(&abi.stdout));
    // The header: dxc's default name, the listing in `#if 0`, the bytes.
    let h = std::fs::read_to_string(dir.join("k.h")).expect("-Fh written");
    assert!(h.starts_with("#if 0\n") && h.contains("\n#endif\n\nconst unsigned char g_main[] = {\n"), "{h}");
    assert!(h.contains("// ; isa wave-0.1.2"), "{h}");
    let bytes: Vec<u8> = h
        .split("= {")
        .nth(1)
        .expect("array")
        .split(',')
        .filter_map(|t| u8::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok())
        .collect();
    assert_eq!(bytes, wbin);
    // -o or --emit still write their output beside the files.
    let both = wavec_in(&dir, &[src, "-Fc", "c.lst", "--emit", "abi"]);
    assert_eq!(text(&both.stdout), text(&abi.stdout));
    // -Vn names the array, and must be a C identifier.
    let named = wavec_in(&dir, &[src, "-Fh", "n.h", "-Vn", "saxpy_code"]);
    assert!(named.status.success(), "{}", text(&named.stderr));
    assert!(std::fs::read_to_string(dir.join("n.h")).expect("n.h").contains("const unsigned char saxpy_code[] = {"));
    let bad = wavec_in(&dir, &[src, "-Fh", "b.h", "-Vn", "9lives"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("error[E0514]"), "{}", text(&bad.stderr));
    assert!(!dir.join("b.h").exists());
    // Joined spellings (-FoFILE) work as dxc's.
    let joined = wavec_in(&dir, &[src, "-Foj.wbin"]);
    assert!(joined.status.success() && dir.join("j.wbin").exists(), "{}", text(&joined.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A C compiler reads the -Fh header and gets the binary's bytes back.
#[test]
fn the_c_header_compiles_to_the_binary() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    if Command::new(&cc).arg("--version").output().is_err() {
        eprintln!("skipped: no C compiler (`{cc}`) to compile the -Fh header with");
        return;
    }
    let dir = scratch("header");
    let src = root().join("examples/saxpy.hlsl");
    let out = wavec_in(&dir, &[src.to_str().expect("utf-8"), "-Fo", "k.wbin", "-Fh", "k.h"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let prog = "#include <stdio.h>\n#include \"k.h\"\nint main(void) { FILE *f = fopen(\"back.bin\", \"wb\"); \
        fwrite(g_main, 1, sizeof g_main, f); return fclose(f) != 0; }\n";
    std::fs::write(dir.join("back.c"), prog).expect("write C");
    let built =
        Command::new(&cc).args(["-std=c99", "-Wall", "-Werror", "-o", "back", "back.c"]).current_dir(&dir).output().expect("cc runs");
    assert!(built.status.success(), "{}", text(&built.stderr));
    let ran = Command::new(dir.join("back")).current_dir(&dir).output().expect("runs");
    assert!(ran.status.success());
    assert_eq!(std::fs::read(dir.join("back.bin")).expect("back.bin"), std::fs::read(dir.join("k.wbin")).expect("k.wbin"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn warning_flags_silence_promote_and_name() {
    let dir = warns_dir("warnings");
    let run = |args: &[&str]| {
        let mut all = vec!["k.hlsl", "-o", "k.lst"];
        all.extend_from_slice(args);
        let _ = std::fs::remove_file(dir.join("k.lst"));
        let out = wavec_in(&dir, &all);
        (out.status.code(), codes(&text(&out.stderr)), dir.join("k.lst").exists(), text(&out.stderr))
    };
    let w = |c: &str| c.to_string();
    assert_eq!(run(&[]).1, [w("warning[W0201"), w("warning[W0202")]);
    assert_eq!(run(&["-Wno-float-conversion"]).1, [w("warning[W0202")]);
    assert_eq!(run(&["-Wno-W0202"]).1, [w("warning[W0201")]);
    assert_eq!(run(&["-Wno-conversion"]).1, Vec::<String>::new());
    assert_eq!(run(&["-Wno-conversion", "-Wvector-truncation"]).1, [w("warning[W0202")]);
    assert_eq!(run(&["-w"]).1, Vec::<String>::new());
    assert_eq!(run(&["-no-warnings"]).1, Vec::<String>::new());
    // -WX: warnings are errors, the compilation fails and writes nothing.
    let (code, got, written, stderr) = run(&["-WX"]);
    assert_eq!((code, got, written), (Some(1), vec![w("error[W0201"), w("error[W0202")], false));
    assert!(stderr.contains("treated as an error by -WX"), "{stderr}");
    let (code, got, written, _) = run(&["-WX", "-Wno-error=vector-truncation"]);
    assert_eq!((code, got, written), (Some(1), vec![w("error[W0201"), w("warning[W0202")], false));
    let (code, got, written, _) = run(&["-Werror=W0202"]);
    assert_eq!((code, got, written), (Some(1), vec![w("warning[W0201"), w("error[W0202")], false));
    let (code, _, written, _) = run(&["-WX", "-w"]);
    assert_eq!((code, written), (Some(0), true));
    // An unknown name is a warning that suggests the nearest one, an error under -WX.
    let (code, got, written, stderr) = run(&["-Wno-float-conversoin", "-Wno-conversion"]);
    assert_eq!((code, got, written), (Some(0), vec![w("warning[W0501")], true));
    assert!(
        stderr.contains("unknown warning option `-Wno-float-conversoin`") && stderr.contains("did you mean `float-conversion`?"),
        "{stderr}"
    );
    let (code, got, _, _) = run(&["-Wfrobnicate", "-WX"]);
    assert_eq!((code, got), (Some(2), vec![w("error[W0501")]));
    // dxc's options without effect are a note that -w silences.
    assert_eq!(run(&["-Wno-conversion", "-Zi"]).1, [w("note[W0502")]);
    assert_eq!(run(&["-Wno-conversion", "-Zi", "-w"]).1, Vec::<String>::new());
    // `wavec run` takes the same flags for its compilation.
    let t = std::fs::read_to_string(root().join("examples/saxpy.test")).expect("saxpy.test");
    let t = t.replacen("    uint i = id.x;\n", "    uint i = id.x;\n    uint unused = 0.5;\n", 1);
    assert!(t.contains("unused"), "saxpy.test changed: update this test");
    std::fs::write(dir.join("s.test"), t).expect("write test");
    let plain = wavec_in(&dir, &["run", "s.test"]);
    assert_eq!((plain.status.code(), codes(&text(&plain.stderr))), (Some(0), vec![w("warning[W0201")]), "{}", text(&plain.stderr));
    let quiet = wavec_in(&dir, &["run", "s.test", "-Wno-conversion"]);
    assert_eq!((quiet.status.code(), codes(&text(&quiet.stderr))), (Some(0), vec![]));
    let strict = wavec_in(&dir, &["run", "s.test", "-WX"]);
    assert_eq!(strict.status.code(), Some(2), "{}", text(&strict.stderr));
    assert!(text(&strict.stderr).contains("error[W0201]"), "{}", text(&strict.stderr));
    // A dxc command line's output flags have no effect on a run: noted, not refused.
    let dxc_line = wavec_in(&dir, &["run", "s.test", "-Wno-conversion", "-Fo", "s.o", "-Fc", "s.lst", "-MD"]);
    assert_eq!((dxc_line.status.code(), codes(&text(&dxc_line.stderr))), (Some(0), vec![w("note[W0502")]));
    assert!(text(&dxc_line.stderr).contains("-Fo s.o, -Fc s.lst, -MD") && !dir.join("s.o").exists(), "{}", text(&dxc_line.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_diagnostics_one_object_per_line() {
    let dir = warns_dir("json");
    std::fs::write(dir.join("my header.hlsli"), "#define SCALE 3\n#define SCALE 4\n").expect("header");
    let out = wavec_in(&dir, &["k.hlsl", "--diagnostics-format", "json", "-o", "k.lst"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let objects: Vec<serde_json::Value> = stderr.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    let got: Vec<(&str, &str, &str)> = objects
        .iter()
        .map(|o| (o["code"].as_str().unwrap_or(""), o["severity"].as_str().unwrap_or(""), o["name"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [("W0122", "warning", "macro-redefined"), ("W0201", "warning", "float-conversion"), ("W0202", "warning", "vector-truncation")]
    );
    // The redefinition is in the header: its primary span is there, the previous
    // definition a secondary span, and the note names the include.
    let redef = &objects[0];
    let primary = &redef["spans"][0];
    assert_eq!(
        (primary["file"].as_str(), primary["line"].as_u64(), primary["column"].as_u64()),
        (Some("my header.hlsli"), Some(2), Some(9))
    );
    assert_eq!(primary["primary"], true);
    assert_eq!(redef["spans"][1]["primary"], false);
    assert_eq!(redef["spans"][1]["line"], 1);
    assert!(redef["notes"].as_array().expect("notes").iter().any(|n| n.as_str() == Some("included from k.hlsl:1")), "{redef}");
    // Byte offsets are the span in the file's text.
    let conv = &objects[1]["spans"][0];
    let (start, end) = (conv["byte_start"].as_u64().expect("start") as usize, conv["byte_end"].as_u64().expect("end") as usize);
    assert_eq!(&WARNS[start..end], "1.5");
    assert_eq!(
        (conv["file"].as_str(), conv["line"].as_u64(), conv["column"].as_u64(), conv["end_column"].as_u64()),
        (Some("k.hlsl"), Some(4), Some(10), Some(13))
    );
    // Errors too, and command-line errors without a span.
    let bad = wavec_in(&dir, &["k.hlsl", "--diagnostics-format", "json", "--target", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    let e: serde_json::Value = serde_json::from_str(text(&bad.stderr).trim()).expect("JSON");
    assert_eq!((e["code"].as_str(), e["severity"].as_str(), e["spans"].as_array().map(Vec::len)), (Some("E0501"), Some("error"), Some(0)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The SARIF log's structure, and its validity against the OASIS schema
/// (tests/sarif/) where Python's jsonschema is installed.
#[test]
fn sarif_logs_follow_the_schema() {
    let dir = warns_dir("sarif");
    std::fs::write(dir.join("bad.hlsl"), "#include \"my header.hlsli\"\n[numthreads(1, 1, 1)] void main() { int a = b; }\n")
        .expect("write");
    let mut logs = Vec::new();
    for (file, code) in [("k.hlsl", 0), ("bad.hlsl", 1)] {
        let out = wavec_in(&dir, &[file, "--diagnostics-format", "sarif", "-o", "k.lst"]);
        assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
        let log: serde_json::Value = serde_json::from_slice(&out.stderr).expect("one JSON document");
        logs.push((file, log, out.stderr));
    }
    let quiet = wavec_in(&dir, &["k.hlsl", "--diagnostics-format", "sarif", "-w", "-o", "k.lst"]);
    logs.push(("quiet", serde_json::from_slice(&quiet.stderr).expect("a log without results"), quiet.stderr));
    let run = &logs[0].1["runs"][0];
    assert_eq!(logs[0].1["version"], "2.1.0");
    assert_eq!(run["tool"]["driver"]["name"], "wavec");
    assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    let rules: Vec<&str> = run["tool"]["driver"]["rules"].as_array().expect("rules").iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(rules, ["float-conversion", "vector-truncation"]);
    let r = &run["results"][0];
    assert_eq!((r["ruleId"].as_str(), r["level"].as_str()), (Some("W0201"), Some("warning")));
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "k.hlsl");
    assert_eq!((loc["region"]["startLine"].as_u64(), loc["region"]["startColumn"].as_u64()), (Some(4), Some(10)));
    let failed = &logs[1].1["runs"][0];
    assert_eq!(failed["invocations"][0]["executionSuccessful"], false);
    assert_eq!((failed["results"][0]["ruleId"].as_str(), failed["results"][0]["level"].as_str()), (Some("E0201"), Some("error")));
    assert_eq!(logs[2].1["runs"][0]["results"], serde_json::json!([]));
    // Against the schema.
    let schema = root().join("tests/sarif/sarif-schema-2.1.0.json");
    let check = "import json, sys, jsonschema\nschema = json.load(open(sys.argv[1]))\n\
        jsonschema.Draft4Validator.check_schema(schema)\njsonschema.Draft4Validator(schema).validate(json.load(sys.stdin))\n";
    let probe = Command::new("python3").args(["-c", "import jsonschema"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped the schema check: python3 with jsonschema is not installed (the structure was checked)");
        return;
    }
    let mut broken = logs[0].1.clone();
    broken["runs"][0]["results"][0]["level"] = "severe".into();
    let broken = serde_json::to_vec(&broken).expect("JSON");
    for (name, valid, doc) in logs.iter().map(|(n, _, d)| (*n, true, d.as_slice())).chain([("broken", false, broken.as_slice())]) {
        use std::io::Write;
        let mut child = Command::new("python3")
            .args(["-c", check, schema.to_str().expect("utf-8")])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        child.stdin.take().expect("stdin").write_all(doc).expect("write log");
        let out = child.wait_with_output().expect("python3 ends");
        assert_eq!(out.status.success(), valid, "{name}: {}", text(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dependency_rules_list_every_file_read() {
    let dir = warns_dir("deps");
    std::fs::create_dir_all(dir.join("inc dir")).expect("inc dir");
    std::fs::write(dir.join("inc dir/extra.hlsli"), "#pragma once\n#define EXTRA 1\n").expect("write");
    // Included twice (once by `#pragma once`), and a standard-library header.
    let src = WARNS.replacen("\n", "\n#include <extra.hlsli>\n#include <extra.hlsli>\n#include <limits.hlsli>\n", 1);
    std::fs::write(dir.join("k.hlsl"), &src).expect("write");
    // -M: the rule on stdout and nothing else; the embedded standard library is not listed.
    let m = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-M"]);
    assert!(m.status.success(), "{}", text(&m.stderr));
    assert_eq!(text(&m.stdout), "k.wbin: \\\n  k.hlsl \\\n  my\\ header.hlsli \\\n  inc\\ dir/extra.hlsli\n");
    assert!(!dir.join("k.wbin").exists() && !dir.join("k.d").exists());
    // -M -MF: into the file.
    let mf = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-M", "-MF", "deps.mk"]);
    assert!(mf.status.success() && mf.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(dir.join("deps.mk")).expect("deps.mk"), text(&m.stdout));
    // With output files named, -M's targets are those files (none is written).
    let named = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-M", "-Fo", "o.wbin", "-Fre", "o.json"]);
    assert!(text(&named.stdout).starts_with("o.wbin o.json: \\\n  k.hlsl"), "{}", text(&named.stdout));
    assert!(!dir.join("o.wbin").exists() && !dir.join("o.json").exists());
    // -MD: the listing on stdout, the rule in k.d (FILE's stem) naming k.wbin.
    let md = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-MD", "-w"]);
    assert!(md.status.success() && text(&md.stdout).contains(".kernel main"));
    assert_eq!(std::fs::read_to_string(dir.join("k.d")).expect("k.d"), text(&m.stdout));
    // With outputs, the targets are the files written and the rule goes beside the first.
    let outs = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-Fo", "out/k.wbin", "-Fc", "k.lst", "-MMD", "-w"]);
    assert_eq!(outs.status.code(), Some(1), "out/ does not exist: {}", text(&outs.stderr));
    std::fs::create_dir_all(dir.join("out")).expect("out/");
    let outs = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-Fo", "out/k.wbin", "-Fc", "k.lst", "-MMD", "-w"]);
    assert!(outs.status.success(), "{}", text(&outs.stderr));
    let rule = std::fs::read_to_string(dir.join("out/k.d")).expect("out/k.d");
    assert!(rule.starts_with("out/k.wbin k.lst: \\\n  k.hlsl \\\n"), "{rule}");
    // -MF alone means -MD.
    let alone = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-Fo", "a.wbin", "-MF", "a.deps", "-w"]);
    assert!(alone.status.success());
    assert!(std::fs::read_to_string(dir.join("a.deps")).expect("a.deps").starts_with("a.wbin: \\\n"));
    // A failed compilation writes no rule.
    let broken = wavec_in(&dir, &["k.hlsl", "-I", "inc dir", "-Fo", "x.wbin", "-MD", "-WX"]);
    assert_eq!(broken.status.code(), Some(1));
    assert!(!dir.join("x.d").exists() && !dir.join("x.wbin").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// As a build system uses it: make rebuilds the binary when an include
/// changes, because the `-MD` rule lists it.
#[test]
fn make_reruns_when_an_include_changes() {
    let dir = scratch("make");
    std::fs::write(
        dir.join("kernel.hlsl"),
        "#include \"common.hlsli\"\nRWStructuredBuffer<uint> B : register(u0);\n\
        [numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) { B[i] = B[i] * SCALE; }\n",
    )
    .expect("write");
    std::fs::write(dir.join("common.hlsli"), "#define SCALE 2\n").expect("write");
    let build = wavec_in(&dir, &["kernel.hlsl", "-Fo", "out.wbin", "-MD"]);
    assert!(build.status.success(), "{}", text(&build.stderr));
    let rule = std::fs::read_to_string(dir.join("out.d")).expect("out.d");
    assert_eq!(rule, "out.wbin: \\\n  kernel.hlsl \\\n  common.hlsli\n");
    let first = std::fs::read(dir.join("out.wbin")).expect("out.wbin");
    // The header changes after the build: the build's files are dated in the past
    // (explicit times: file systems with coarse clocks), the header is written now.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for f in ["kernel.hlsl", "common.hlsli", "out.wbin", "out.d"] {
        std::fs::File::options().write(true).open(dir.join(f)).and_then(|f| f.set_modified(past)).expect("set mtime");
    }
    let touch = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    let newer = |name: &str| {
        let m = |n: &str| std::fs::metadata(dir.join(n)).and_then(|m| m.modified()).expect("mtime");
        m(name) > m("out.wbin")
    };
    // What make decides from the rule: a listed prerequisite newer than the target.
    assert!(!newer("common.hlsli"));
    touch("common.hlsli", "#define SCALE 3\n");
    assert!(newer("common.hlsli") && rule.contains("common.hlsli"));
    let make_ok = Command::new("make").arg("--version").output().is_ok_and(|o| o.status.success());
    if !make_ok {
        eprintln!("skipped the make part: make is not installed (the rule and the times were checked)");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let wavec = env!("CARGO_BIN_EXE_wavec").replace(' ', "\\ ");
    std::fs::write(dir.join("Makefile"), format!("out.wbin: kernel.hlsl\n\t{wavec} kernel.hlsl -Fo out.wbin -MD\n-include out.d\n"))
        .expect("Makefile");
    let make = |args: &[&str]| Command::new("make").args(args).current_dir(&dir).output().expect("make runs");
    assert_eq!(make(&["-q", "out.wbin"]).status.code(), Some(1), "the header changed: out.wbin is out of date");
    let rebuilt = make(&["out.wbin"]);
    assert!(rebuilt.status.success(), "{}{}", text(&rebuilt.stdout), text(&rebuilt.stderr));
    assert!(text(&rebuilt.stdout).contains("-Fo out.wbin -MD"), "make reran wavec: {}", text(&rebuilt.stdout));
    assert_ne!(std::fs::read(dir.join("out.wbin")).expect("out.wbin"), first, "SCALE 3 makes another binary");
    assert_eq!(make(&["-q", "out.wbin"]).status.code(), Some(0), "up to date after the rebuild");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn optimization_levels_as_dxc() {
    let listing = |args: &[&str]| {
        let mut all = vec!["examples/nbody.hlsl"];
        all.extend_from_slice(args);
        let out = wavec(&all);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let default = listing(&[]);
    let plain = listing(&["-O0"]);
    assert_eq!(listing(&["-Od"]), plain);
    for level in ["-O", "-O1", "-O2", "-O3"] {
        assert_eq!(listing(&[level]), default, "{level} is the default pipeline");
    }
    // The default optimizes: shorter than the plain translation.
    assert!(default.lines().count() < plain.lines().count(), "default {} lines, -O0 {}", default.lines().count(), plain.lines().count());
    let bad = wavec(&["examples/saxpy.hlsl", "-O4"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("error[E0502]: unknown optimization level `-O4`"), "{}", text(&bad.stderr));
}

#[test]
fn help_is_grouped_and_completions_are_generated() {
    let help = text(&wavec(&["--help"]).stdout);
    let headings: Vec<&str> = help.lines().filter(|l| l.ends_with(':') && !l.starts_with(' ')).collect();
    for h in ["Output:", "Optimization:", "Preprocessor:", "Language:", "Code generation:", "Diagnostics:", "Resource limits:"] {
        assert!(headings.contains(&h), "{h} in {headings:?}");
    }
    let run_help = text(&wavec(&["run", "--help"]).stdout);
    assert!(run_help.contains("\nSimulator:\n"), "{run_help}");
    let bash = wavec(&["completions", "bash"]);
    assert!(bash.status.success(), "{}", text(&bash.stderr));
    let script = text(&bash.stdout);
    for flag in ["--Fo", "--Fc", "--Fh", "--Fre", "--MD", "--diagnostics-format", "--target-occupancy", "--stats"] {
        assert!(script.contains(flag), "bash completion mentions {flag}");
    }
    assert!(script.contains("complete -F"), "{script}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = wavec(&["completions", shell]);
        assert!(out.status.success() && out.stdout.len() > 1000, "{shell}: {}", text(&out.stderr));
    }
    assert_eq!(wavec(&["completions", "tcsh"]).status.code(), Some(2));
}
