//! dxc's spellings, rewritten into the flags clap reads: `-O`, `-Od`,
//! `-O0`..`-O3` become `--opt-level=N` (so that `-O FILE` never takes the
//! file for the level); single-dash long flags (`-Fo FILE`, `-FoFILE`, `-HV
//! 2021`, `-MD`, `-Zpr`, ...) become their `--` forms; and the options with
//! no effect on WAVE code (debug info, SPIR-V, containers) are dropped and
//! returned, to be noted, so that a dxc command line (as the
//! offload-test-suite's RUN lines give) works as it is.

use std::ffi::OsString;

/// Flags with a value, spelled `-F FILE` or `-FFILE` by dxc, that wavec reads as `--F`.
const WITH_VALUE: &[&str] = &["-Fre", "-Fo", "-Fc", "-Fh", "-Vn", "-MF", "-HV"];

/// dxc flags with a value and no effect on WAVE code.
const IGNORED_WITH_VALUE: &[&str] = &["-Fd", "-Frs", "-Fe"];

/// dxc flags whose effect wavec has by default or that concern other outputs
/// (SPIR-V, debug info, containers): accepted and ignored.
fn ignored_dxc_flag(s: &str) -> bool {
    matches!(s, "-Gfa" | "-Gfp" | "-Gec" | "-Zi" | "-Zss" | "-Zsb" | "-Qembed_debug" | "-Qstrip_debug" | "-Qstrip_reflect")
        || matches!(s, "-Vd" | "-all-resources-bound" | "-spirv" | "-Ges" | "-res-may-alias")
        || s.starts_with("-fvk-")
        || s.starts_with("-fspv-")
}

/// The rewritten arguments and the ignored options, as typed.
pub fn normalize(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let mut out = Vec::with_capacity(args.len());
    let mut ignored: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        if let Some(level) = opt_level(s) {
            out.push(OsString::from(format!("--opt-level={level}")));
            continue;
        }
        match s {
            "-enable-16bit-types" | "-Zpr" | "-Zpc" | "-denorm" | "-MD" => out.push(OsString::from(format!("-{s}"))),
            "-MMD" => out.push(OsString::from("--MD")),
            "-MM" => out.push(OsString::from("-M")),
            "-Gis" => out.push(OsString::from("--strict-ieee")),
            "-no-warnings" => out.push(OsString::from("-w")),
            _ if IGNORED_WITH_VALUE.contains(&s) => {
                let v = it.next();
                ignored.push(format!("{s} {}", v.as_ref().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()));
            }
            _ if IGNORED_WITH_VALUE.iter().any(|f| s.starts_with(f)) => ignored.push(s.to_string()),
            _ if ignored_dxc_flag(s) => ignored.push(s.to_string()),
            _ => match WITH_VALUE.iter().find(|f| s.starts_with(**f)) {
                Some(f) if s.len() == f.len() => out.push(OsString::from(format!("-{s}"))),
                Some(f) => out.push(OsString::from(format!("-{f}={}", &s[f.len()..]))),
                None => out.push(a),
            },
        }
    }
    (out, ignored)
}

/// `wavec run` compiles for the simulator and writes no compiler outputs:
/// the output and dependency flags of a dxc command line (after
/// [`normalize`]: `--Fo FILE`, `--Fc=FILE`, `--MD`, `-M`, ...) are dropped
/// and returned, to be noted, as dxc's other flags without effect are.
pub fn drop_output_flags(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    const VALUED: &[&str] = &["--Fo", "--Fc", "--Fh", "--Fre", "--Vn", "--MF"];
    let mut out = Vec::with_capacity(args.len());
    let mut dropped = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy().into_owned();
        let flag = s.split('=').next().unwrap_or("");
        if VALUED.contains(&s.as_str()) {
            let v = it.next().map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
            dropped.push(format!("{} {v}", &s[1..]));
        } else if VALUED.contains(&flag) || s == "--MD" {
            dropped.push(s[1..].to_string());
        } else if s == "-M" {
            dropped.push(s);
        } else {
            out.push(a);
        }
    }
    (out, dropped)
}

/// The level of `-O`, `-Od`, `-O0`..`-O3`, `-Os`, ... (`-O` is 3, as dxc's
/// default; `-Od` is 0); `None` for anything else, `-O=...` included.
fn opt_level(s: &str) -> Option<&str> {
    let rest = s.strip_prefix("-O")?;
    match rest {
        "" => Some("3"),
        "d" => Some("0"),
        _ if rest.starts_with('=') => None,
        _ => Some(rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> (Vec<String>, Vec<String>) {
        let (out, ignored) = normalize(args.iter().map(OsString::from).collect());
        (out.into_iter().map(|a| a.to_string_lossy().into_owned()).collect(), ignored)
    }

    #[test]
    fn dxc_spellings() {
        let (out, ignored) = norm(&["wavec", "-Od", "-O", "-O2", "-Fo", "a b.wbin", "-Fck.lst", "-Fre", "k.json", "-Vng_k", "-Fh", "k.h"]);
        assert_eq!(
            out,
            [
                "wavec",
                "--opt-level=0",
                "--opt-level=3",
                "--opt-level=2",
                "--Fo",
                "a b.wbin",
                "--Fc=k.lst",
                "--Fre",
                "k.json",
                "--Vn=g_k",
                "--Fh",
                "k.h"
            ]
        );
        assert!(ignored.is_empty());
        let (out, ignored) =
            norm(&["wavec", "-MD", "-MF", "k.d", "-MMD", "-MM", "-WX", "-Wno-conversion", "-no-warnings", "-HV", "2018", "-HV2021"]);
        assert_eq!(out, ["wavec", "--MD", "--MF", "k.d", "--MD", "-M", "-WX", "-Wno-conversion", "-w", "--HV", "2018", "--HV=2021"]);
        assert!(ignored.is_empty());
        let (out, ignored) = norm(&["wavec", "-Zi", "-Fd", "k.pdb", "-fspv-target-env=vulkan1.2", "k.hlsl"]);
        assert_eq!(out, ["wavec", "k.hlsl"]);
        assert_eq!(ignored, ["-Zi", "-Fd k.pdb", "-fspv-target-env=vulkan1.2"]);
    }

    #[test]
    fn run_drops_output_flags() {
        let (args, _) = normalize(["run", "k.test", "-Fo", "k.o", "-Fck.lst", "-MD", "-M", "--stats"].iter().map(OsString::from).collect());
        let (out, dropped) = drop_output_flags(args);
        assert_eq!(out, ["run", "k.test", "--stats"].map(OsString::from));
        assert_eq!(dropped, ["-Fo k.o", "-Fc=k.lst", "-MD", "-M"]);
    }
}
