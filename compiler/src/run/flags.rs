//! Compiler flags from a test's `RUN:` lines.
//!
//! Tests in the LLVM offload-test-suite format say how to compile their
//! source in lines such as `# RUN: %dxc_target -enable-16bit-types -T cs_6_2
//! -D N=4 -Fo %t.o %t/source.hlsl`. `wavec run` honours the flags that change
//! the program: `-E`, `-D`, `-U`, `-enable-16bit-types`, `-Zpr`/`-Zpc`, `-T`
//! and `-HV`, plus wavec's own `--robust-access` (a test that relies on D3D's
//! robust buffer access says so). Output and tool flags (`-Fo`, `-O3`, `-fspv-*`, `-I %t`, ...)
//! are ignored: `-I %t` means the test's own sections, which `#include`
//! already finds. Flags given to `wavec run` itself win over RUN lines.
//!
//! A test whose expectations hold only on one machine model says so in a
//! header line of its own, `# wavec: --target gcn` (a comment whose text
//! starts with `wavec:`; dxc has no such flag, so it is not a RUN line):
//! `wavec run` without `--target` runs it there. One that needs IEEE
//! denormals (`wavec run` flushes fp32 denormals by default, as D3D does)
//! says `-denorm preserve` on its `%dxc_target` line.

use crate::driver::CompileOptions;

/// The flags the RUN lines of `text` give the compiler (`dxc` / `%dxc_target` commands).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunFlags {
    pub entry: Option<String>,
    pub defines: Vec<(String, String)>,
    pub undefines: Vec<String>,
    pub enable_16bit_types: bool,
    pub row_major: Option<bool>,
    pub profile: Option<String>,
    pub hlsl_version: Option<u32>,
    pub robust_access: bool,
    pub denorm: Option<crate::options::Denorm>,
    /// The machine model a `# wavec: --target NAME` header names.
    pub target: Option<String>,
}

/// The RUN lines of a `.test` file: comments starting `RUN:` anywhere in it, as
/// lit reads them (suite files often put them inside the pipeline.yaml section).
pub fn run_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let body = t.trim_start_matches(['#', '/', ';']).trim_start();
        if let Some(cmd) = body.strip_prefix("RUN:") {
            out.push(cmd.trim().to_string());
        }
    }
    out
}

/// The words of the `wavec:` header lines of a `.test` file (comments before
/// its first `#---` section whose text starts with `wavec:`), in order.
pub fn wavec_header_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().take_while(|l| !l.starts_with("#---")) {
        let body = line.trim_start().trim_start_matches(['#', '/', ';']).trim_start();
        if let Some(rest) = body.strip_prefix("wavec:") {
            out.extend(rest.split_whitespace().map(str::to_string));
        }
    }
    out
}

/// The flags of a `.test` file: its RUN lines' compiler invocations and its
/// `wavec:` header (`--target NAME`).
pub fn test_flags(text: &str) -> RunFlags {
    let mut f = parse_run_flags(&run_lines(text));
    let words = wavec_header_words(text);
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if w == "--target" {
            f.target = it.next().cloned();
        } else if let Some(t) = w.strip_prefix("--target=") {
            f.target = Some(t.to_string());
        }
    }
    f
}

/// Parses the compiler invocations among `lines`.
pub fn parse_run_flags(lines: &[String]) -> RunFlags {
    let mut f = RunFlags::default();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(start) = words.iter().position(|w| w.contains("dxc") || *w == "%dxc_target") else {
            continue;
        };
        let mut i = start + 1;
        while i < words.len() {
            let w = words[i];
            let next = words.get(i + 1).copied();
            let mut take = |flag: &str| -> Option<String> {
                if w == flag {
                    i += 1;
                    next.map(str::to_string)
                } else {
                    w.strip_prefix(flag).filter(|r| !r.is_empty()).map(str::to_string)
                }
            };
            if let Some(e) = take("-E") {
                f.entry = Some(e);
            } else if let Some(d) = take("-D") {
                f.defines.push(match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => (d, "1".to_string()),
                });
            } else if let Some(u) = take("-U") {
                f.undefines.push(u);
            } else if let Some(t) = take("-T") {
                f.profile = Some(t);
            } else if let Some(v) = take("-HV") {
                f.hlsl_version = crate::options::parse_hlsl_version(&v);
            } else if let Some(d) = take("-denorm") {
                f.denorm = crate::options::Denorm::parse(&d);
            } else if w == "--robust-access" {
                f.robust_access = true;
            } else if w == "-enable-16bit-types" {
                f.enable_16bit_types = true;
            } else if w == "-Zpr" {
                f.row_major = Some(true);
            } else if w == "-Zpc" {
                f.row_major = Some(false);
            } else if w == "-Fo" || w == "-I" || w == "-Fc" || w == "-Fh" {
                i += 1;
            }
            i += 1;
        }
    }
    f
}

impl RunFlags {
    /// Applies the flags under the options already set (which win).
    pub fn apply(&self, o: &mut CompileOptions) {
        if o.entry.is_none() {
            o.entry = self.entry.clone();
        }
        // A macro the command line defines keeps the command line's value.
        let mut defines: Vec<(String, String)> =
            self.defines.iter().filter(|(n, _)| !o.defines.iter().any(|(m, _)| m == n)).cloned().collect();
        defines.append(&mut o.defines);
        o.defines = defines;
        o.undefines.extend(self.undefines.iter().cloned());
        o.enable_16bit_types |= self.enable_16bit_types;
        o.robust_access |= self.robust_access;
        if let (Some(d), crate::options::Denorm::Any) = (self.denorm, o.denorm) {
            o.denorm = d;
        }
        if let Some(r) = self.row_major {
            o.row_major_default = r;
        }
        if o.profile.is_none() {
            o.profile = self.profile.clone();
        }
        if o.hlsl_version.is_none() {
            o.hlsl_version = self.hlsl_version;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_dxc_flags_outside_sections() {
        let text = "# RUN: split-file %s %t\n# RUN: %dxc_target -enable-16bit-types -T cs_6_2 -E CSMain -D N=4 -DFAST -Fo %t.o %t/source.hlsl\n\
                    #--- source.hlsl\n// RUN: echo inside a section counts too\n#--- end\n# RUN: %offloader %t/pipeline.yaml %t.o\n// RUN: %dxc_target -Zpr -HV 2021 -U FAST\n";
        let lines = run_lines(text);
        assert_eq!(lines.len(), 5);
        let f = parse_run_flags(&lines);
        assert_eq!(f.entry.as_deref(), Some("CSMain"));
        assert_eq!(f.defines, vec![("N".to_string(), "4".to_string()), ("FAST".to_string(), "1".to_string())]);
        assert_eq!(f.undefines, vec!["FAST".to_string()]);
        assert!(f.enable_16bit_types);
        assert_eq!(f.row_major, Some(true));
        assert_eq!(f.profile.as_deref(), Some("cs_6_2"));
        assert_eq!(f.hlsl_version, Some(2021));
    }

    #[test]
    fn command_line_options_win() {
        let f = RunFlags { entry: Some("a".into()), defines: vec![("X".into(), "1".into())], ..RunFlags::default() };
        let mut o = CompileOptions::new(crate::target::preset("generic").unwrap());
        o.entry = Some("b".into());
        o.defines = vec![("X".into(), "2".into())];
        f.apply(&mut o);
        assert_eq!(o.entry.as_deref(), Some("b"));
        assert_eq!(o.defines, vec![("X".to_string(), "2".to_string())]);
    }
}
