//! `-M`, `-MD`, `-MF`: a make rule naming every file a compilation read, as
//! clang writes one:
//!
//! ```make
//! out.wbin out.lst: \
//!   k.hlsl \
//!   include/my\ header.hlsli
//! ```
//!
//! The targets are the files written (with `-M`, the files the command line
//! names; FILE's stem with `.wbin` when output goes to stdout); the
//! prerequisites are the main source and every `#include`d file on disk, in
//! the order first read, named as they were found (the standard library is
//! embedded in the binary and not listed).
//! Spaces and `#` are escaped with a backslash, `$` doubled, as make reads them.

use std::path::Path;

/// The rule: `targets: prerequisites`, one prerequisite per continued line.
pub fn make_rule(targets: &[&Path], prerequisites: &[&Path]) -> String {
    let targets: Vec<String> = targets.iter().map(|t| escape(&t.to_string_lossy())).collect();
    let mut out = format!("{}:", targets.join(" "));
    for p in prerequisites {
        out.push_str(" \\\n  ");
        out.push_str(&escape(&p.to_string_lossy()));
    }
    out.push('\n');
    out
}

/// A path as make reads it in a rule.
pub fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            ' ' | '\t' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_escaped_for_make() {
        let rule = make_rule(&[Path::new("out dir/k.wbin"), Path::new("k.lst")], &[Path::new("k.hlsl"), Path::new("inc/a #1$.h")]);
        assert_eq!(rule, "out\\ dir/k.wbin k.lst: \\\n  k.hlsl \\\n  inc/a\\ \\#1$$.h\n");
    }
}
