//! Warning names and what `-W` flags do with warnings.
//!
//! Every warning (and note) code has a stable kebab-case name, listed in
//! [`WARNINGS`] and next to its code in docs/diagnostics.md. The command line
//! changes what a compilation reports through a [`WarningPolicy`], applied
//! to every diagnostic list the driver returns ([`WarningPolicy::apply`]):
//!
//! - `-Wno-NAME` silences one warning, `-WNAME` turns it back on (a code such
//!   as `W0201` works as well as a name; a group name, `conversion` or `all`,
//!   stands for its members);
//! - `-Werror=NAME` makes one warning an error, `-Wno-error=NAME` keeps it a
//!   warning (under `-WX` too);
//! - `-WX` (dxc's spelling) or `-Werror` makes every warning an error
//!   (notes stay notes), `-Wno-error` undoes it;
//! - `-w` silences every warning and note, whatever else is given.
//!
//! Flags apply left to right; for one warning the last that names it wins.
//! Errors are never changed.

use std::collections::BTreeMap;

use super::{Diagnostic, Severity};

/// A warning's stable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Warning {
    pub code: &'static str,
    pub name: &'static str,
    /// One line: what it reports (SARIF's rule description).
    pub what: &'static str,
}

/// Every warning and note code, with its name.
pub const WARNINGS: &[Warning] = &[
    Warning { code: "W0120", name: "warning-directive", what: "a #warning directive" },
    Warning { code: "W0121", name: "ignored-pragma", what: "(note) a #pragma that wavec ignores" },
    Warning { code: "W0122", name: "macro-redefined", what: "a macro redefined differently, or a builtin macro redefined" },
    Warning { code: "W0123", name: "extra-tokens", what: "extra tokens after a preprocessor directive" },
    Warning { code: "W0201", name: "float-conversion", what: "implicit conversion from float to an integer truncates" },
    Warning { code: "W0202", name: "vector-truncation", what: "implicit truncation of a vector type" },
    Warning { code: "W0203", name: "ignored-attribute", what: "an unknown or ineffective attribute is ignored" },
    Warning { code: "W0204", name: "uniform-initializer", what: "the initializer of a uniform is ignored" },
    Warning { code: "W0206", name: "for-shadow", what: "HLSL 2018: a for-init declaration shadows a name of the enclosing scope" },
    Warning { code: "W0207", name: "literal-truncation", what: "a 64-bit integer literal changes value when converted to 32 bits" },
    Warning { code: "W0208", name: "spec-constant-default", what: "(note) a specialization constant takes its default value" },
    Warning { code: "W0209", name: "ignored-semantic", what: "a semantic on a resource is ignored" },
    Warning { code: "W0401", name: "workgroup-does-not-fit", what: "the workgroup does not fit the target" },
    Warning { code: "W0402", name: "budget-not-met", what: "--target-occupancy or --max-registers is not met" },
    Warning { code: "W0403", name: "scratch-spill", what: "spill slots live in a scratch buffer in device memory" },
    Warning { code: "W0501", name: "unknown-warning-option", what: "a -W flag names no warning" },
    Warning { code: "W0502", name: "ignored-option", what: "(note) a dxc option without effect on WAVE code is ignored" },
    Warning { code: "W0503", name: "implied-isa", what: "(note) an output needs the wave-0.1.2 profile, which replaces --isa wave" },
    Warning {
        code: "W0504",
        name: "partial-warp-wave-ops",
        what: "--emit ptx: wave instructions in workgroups that leave a warp partly empty, undefined through wave-ptx 0.1.2",
    },
];

/// Names that stand for several warnings.
pub const GROUPS: &[(&str, &[&str])] = &[("conversion", &["W0201", "W0202", "W0207"])];

/// The warning with this code.
pub fn by_code(code: &str) -> Option<&'static Warning> {
    WARNINGS.iter().find(|w| w.code == code)
}

/// The codes a `-W` name stands for: a warning's name or code, a group, or `all`.
pub fn codes_named(name: &str) -> Option<Vec<&'static str>> {
    if name == "all" || name == "everything" {
        return Some(WARNINGS.iter().map(|w| w.code).collect());
    }
    if let Some(w) = WARNINGS.iter().find(|w| w.name == name || w.code.eq_ignore_ascii_case(name)) {
        return Some(vec![w.code]);
    }
    GROUPS.iter().find(|(g, _)| *g == name).map(|(_, codes)| codes.to_vec())
}

/// What happens to one warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    On,
    Off,
    Error,
    /// On, and a warning even under `-WX` (`-Wno-error=NAME`).
    NotError,
}

/// What the `-W` flags, `-WX` and `-w` ask (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarningPolicy {
    levels: BTreeMap<&'static str, Level>,
    /// `-WX` / `-Werror`: every warning is an error.
    pub all_errors: bool,
    /// `-w`: no warning or note is reported.
    pub silence_all: bool,
}

/// A `-W` flag that names nothing wavec knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownWarning {
    /// The flag as given (`-Wno-frobnicate`).
    pub flag: String,
    /// A known name close to the one given, if any.
    pub suggestion: Option<&'static str>,
}

impl UnknownWarning {
    /// W0501, which the policy itself may silence or make an error.
    pub fn diagnostic(&self) -> Diagnostic {
        let d = Diagnostic::warning("W0501", format!("unknown warning option `{}`; it is ignored", self.flag));
        let d = match self.suggestion {
            Some(s) => d.with_note(format!("did you mean `{s}`?")),
            None => d,
        };
        let names: Vec<&str> = WARNINGS.iter().map(|w| w.name).chain(GROUPS.iter().map(|(g, _)| *g)).collect();
        d.with_note(format!("warning names (docs/diagnostics.md): {}, all", names.join(", ")))
    }
}

impl WarningPolicy {
    /// Applies one `-W` flag, given as the text after `-W` (`X`, `error`,
    /// `no-conversion`, `error=W0201`, ...). An unknown name changes nothing.
    pub fn apply_flag(&mut self, value: &str) -> Result<(), UnknownWarning> {
        match value {
            "X" | "error" => {
                self.all_errors = true;
                return Ok(());
            }
            "no-error" => {
                self.all_errors = false;
                return Ok(());
            }
            _ => {}
        }
        let (name, level) = if let Some(n) = value.strip_prefix("error=") {
            (n, Level::Error)
        } else if let Some(n) = value.strip_prefix("no-error=") {
            (n, Level::NotError)
        } else if let Some(n) = value.strip_prefix("no-") {
            (n, Level::Off)
        } else {
            (value, Level::On)
        };
        let Some(codes) = codes_named(name) else {
            return Err(UnknownWarning { flag: format!("-W{value}"), suggestion: closest(name) });
        };
        for c in codes {
            // `-Wno-error=NAME` keeps a silenced warning silent.
            if level != Level::NotError || self.levels.get(c) != Some(&Level::Off) {
                self.levels.insert(c, level);
            }
        }
        Ok(())
    }

    /// The diagnostics to report: silenced warnings left out, promoted ones
    /// made errors (with a note that says which flag did it).
    pub fn apply(&self, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diags.into_iter().filter_map(|d| self.apply_one(d)).collect()
    }

    fn apply_one(&self, mut d: Diagnostic) -> Option<Diagnostic> {
        if d.severity == Severity::Error {
            return Some(d);
        }
        if self.silence_all {
            return None;
        }
        let name = by_code(d.code).map_or(d.code, |w| w.name);
        match self.levels.get(d.code).copied().unwrap_or(Level::On) {
            Level::Off => None,
            Level::Error => {
                d.severity = Severity::Error;
                Some(d.with_note(format!("treated as an error by -Werror={name}")))
            }
            Level::On if self.all_errors && d.severity == Severity::Warning => {
                d.severity = Severity::Error;
                Some(d.with_note(format!("treated as an error by -WX (-Wno-error={name} keeps it a warning, -Wno-{name} silences it)")))
            }
            Level::On | Level::NotError => Some(d),
        }
    }
}

/// The known name nearest `name` (by edit distance, at most a third of it).
fn closest(name: &str) -> Option<&'static str> {
    let candidates = WARNINGS.iter().map(|w| w.name).chain(GROUPS.iter().map(|(g, _)| *g));
    candidates.map(|c| (edit_distance(name, c), c)).filter(|&(d, c)| d > 0 && d * 3 <= c.len().max(3)).min().map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diags() -> Vec<Diagnostic> {
        vec![
            Diagnostic::warning("W0201", "truncates"),
            Diagnostic::warning("W0202", "vector"),
            Diagnostic::note("W0121", "pragma"),
            Diagnostic::error("E0201", "unknown name"),
        ]
    }

    fn policy(flags: &[&str]) -> WarningPolicy {
        let mut p = WarningPolicy::default();
        for f in flags {
            p.apply_flag(f).expect("known flag");
        }
        p
    }

    fn summary(p: &WarningPolicy) -> Vec<(&'static str, Severity)> {
        p.apply(diags()).iter().map(|d| (d.code, d.severity)).collect()
    }

    #[test]
    fn silence_promote_and_restore() {
        use Severity::*;
        assert_eq!(summary(&policy(&[])), vec![("W0201", Warning), ("W0202", Warning), ("W0121", Note), ("E0201", Error)]);
        assert_eq!(summary(&policy(&["no-float-conversion"])), vec![("W0202", Warning), ("W0121", Note), ("E0201", Error)]);
        assert_eq!(summary(&policy(&["no-conversion"])), vec![("W0121", Note), ("E0201", Error)]);
        assert_eq!(summary(&policy(&["no-conversion", "W0202"])), vec![("W0202", Warning), ("W0121", Note), ("E0201", Error)]);
        // -WX: warnings become errors, notes stay notes.
        assert_eq!(summary(&policy(&["X"])), vec![("W0201", Error), ("W0202", Error), ("W0121", Note), ("E0201", Error)]);
        assert_eq!(summary(&policy(&["X", "no-error=vector-truncation"]))[1], ("W0202", Warning));
        assert_eq!(summary(&policy(&["no-conversion", "no-error=conversion"])).len(), 2);
        assert_eq!(summary(&policy(&["error=ignored-pragma"]))[2], ("W0121", Error));
        assert_eq!(summary(&policy(&["error=ignored-pragma", "no-error=ignored-pragma"]))[2], ("W0121", Note));
        let mut w = policy(&["X", "error=W0121"]);
        w.silence_all = true;
        assert_eq!(summary(&w), vec![("E0201", Error)]);
        let promoted = policy(&["X"]).apply(diags());
        assert!(promoted[0].notes.iter().any(|n| n.contains("-WX")), "{:?}", promoted[0]);
    }

    #[test]
    fn unknown_names_are_reported_with_a_suggestion() {
        let mut p = WarningPolicy::default();
        let e = p.apply_flag("no-float-convresion").expect_err("unknown");
        assert_eq!((e.flag.as_str(), e.suggestion), ("-Wno-float-convresion", Some("float-conversion")));
        assert_eq!(p, WarningPolicy::default());
        let d = p.apply_flag("frobnicate").expect_err("unknown").diagnostic();
        assert_eq!(d.code, "W0501");
        assert!(d.notes.iter().any(|n| n.contains("macro-redefined")), "{d:?}");
    }

    /// Names are kebab-case and unique, and docs/diagnostics.md gives each next to its code.
    #[test]
    fn names_are_unique_and_documented() {
        let doc = include_str!("../../../docs/diagnostics.md");
        for (i, w) in WARNINGS.iter().enumerate() {
            assert!(w.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", w.name);
            assert!(WARNINGS[..i].iter().all(|o| o.name != w.name && o.code != w.code), "{} twice", w.name);
            let row = doc.lines().find(|l| l.starts_with(&format!("| {} |", w.code)));
            assert!(
                row.is_some_and(|r| r.contains(&format!("`{}`", w.name))),
                "docs/diagnostics.md: {} needs its name `{}`",
                w.code,
                w.name
            );
        }
    }

    /// Every warning or note code the compiler's source reports has a name.
    #[test]
    fn every_reported_code_has_a_name() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("readable source dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let mut seen = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable source");
            for (i, _) in text.match_indices("\"W0") {
                let code = &text[i + 1..(i + 6).min(text.len())];
                if code.len() == 5 && code[1..].chars().all(|c| c.is_ascii_digit()) && text[i + 6..].starts_with('"') {
                    seen += 1;
                    assert!(by_code(code).is_some(), "{code} in {} has no name in WARNINGS", f.display());
                }
            }
        }
        assert!(seen > 20, "found {seen} warning codes");
    }
}
