//! Finding `#include`d files.
//!
//! `#include "name"` searches the including file's own directory, then the
//! `-I` directories in order, then the standard library; `#include <name>`
//! skips the first, and looks at the in-memory files (split-file sections)
//! after the `-I` directories: the offload test suite compiles with `-I` on
//! the directory `split-file` writes them to. A file's "own directory" depends on where it came from:
//! its folder on disk; for in-memory files (the main file of an in-memory
//! compilation, split-file sections), first the in-memory files then the
//! input's directory; for standard-library headers, their folder in the
//! embedded library. Absolute names are used as they are.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, SourceFile, Span};
use crate::source::{read_file_limited, Input};

/// Where a loaded file came from (decides its quoted-include directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Disk(PathBuf),
    /// An in-memory file: the main file (key "") or one of `Input::files`.
    Memory(String),
    Stdlib(&'static str),
    /// Predefined macros and the command line.
    Builtin,
}

/// A resolved include: what identifies it (for `#pragma once` and reuse),
/// how diagnostics name it, and how to load it.
#[derive(Clone, Debug)]
pub struct Found {
    pub key: String,
    pub origin: Origin,
    name: String,
}

pub struct Resolver<'a> {
    pub input: &'a Input,
    pub include_dirs: &'a [PathBuf],
    pub stdlib: &'a [(&'static str, &'static str)],
    /// Largest file read from disk (`file-size`).
    pub max_file_bytes: u64,
}

/// `dir/name` for in-memory keys, with `.` and `..` resolved.
fn join_key(dir: &str, name: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in name.split(['/', '\\']) {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

fn key_dir(key: &str) -> &str {
    key.rfind('/').map_or("", |i| &key[..i])
}

impl Resolver<'_> {
    /// Finds `name` included from a file of origin `from`.
    pub fn resolve(&self, name: &str, angled: bool, from: &Origin) -> Option<Found> {
        if Path::new(name).is_absolute() {
            return self.disk(PathBuf::from(name));
        }
        if !angled {
            let own = match from {
                Origin::Disk(p) => p.parent().and_then(|d| self.disk(d.join(name))),
                Origin::Memory(key) => {
                    self.memory(&join_key(key_dir(key), name)).or_else(|| self.input.dir.as_ref().and_then(|d| self.disk(d.join(name))))
                }
                Origin::Stdlib(n) => self.stdlib(&join_key(key_dir(n), name)),
                Origin::Builtin => None,
            };
            if own.is_some() {
                return own;
            }
        }
        self.include_dirs
            .iter()
            .find_map(|d| self.disk(d.join(name)))
            .or_else(|| if angled { self.memory(&join_key("", name)) } else { None })
            .or_else(|| self.stdlib(&join_key("", name)))
    }

    /// Where a failed search looked, for the error note.
    pub fn searched(&self, angled: bool, from: &Origin) -> Vec<String> {
        let mut places = Vec::new();
        if !angled {
            match from {
                Origin::Disk(p) => places.push(dir_name(p.parent().unwrap_or(Path::new("")))),
                Origin::Memory(_) => {
                    if !self.input.files.is_empty() {
                        places.push("the test file's sections".to_string());
                    }
                    if let Some(d) = &self.input.dir {
                        places.push(dir_name(d));
                    }
                }
                Origin::Stdlib(_) => places.push("the standard library".to_string()),
                Origin::Builtin => {}
            }
        }
        places.extend(self.include_dirs.iter().map(|d| dir_name(d)));
        if angled && !self.input.files.is_empty() {
            places.push("the test file's sections".to_string());
        }
        places.push("the standard library".to_string());
        places.dedup();
        places
    }

    fn disk(&self, path: PathBuf) -> Option<Found> {
        // Anything there but a directory is found; `load` refuses what is not a
        // regular file (a device such as /dev/zero) with a diagnostic that says so.
        if !path.exists() || path.is_dir() {
            return None;
        }
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        Some(Found { key: format!("disk:{}", key.display()), name: path.display().to_string(), origin: Origin::Disk(path) })
    }

    fn memory(&self, key: &str) -> Option<Found> {
        let (k, f) = self.input.files.iter().find(|(k, _)| join_key("", k) == key)?;
        Some(Found { key: format!("mem:{key}"), name: f.name.clone(), origin: Origin::Memory(k.clone()) })
    }

    fn stdlib(&self, key: &str) -> Option<Found> {
        let (n, _) = self.stdlib.iter().find(|(n, _)| *n == key)?;
        Some(Found { key: format!("std:{n}"), name: format!("<stdlib>/{n}"), origin: Origin::Stdlib(n) })
    }

    /// Reads a found file; errors point at the `#include` (`at`).
    pub fn load(&self, found: &Found, at: Span) -> Result<SourceFile, Diagnostic> {
        match &found.origin {
            Origin::Disk(p) => read_file_limited(p, found.name.clone(), self.max_file_bytes).map_err(|d| d.with_label(at, "included here")),
            Origin::Memory(k) => {
                let (_, f) = self.input.files.iter().find(|(key, _)| key == k).ok_or_else(|| missing(found, at))?;
                Ok(f.clone())
            }
            Origin::Stdlib(n) => {
                let (_, text) = self.stdlib.iter().find(|(name, _)| name == n).ok_or_else(|| missing(found, at))?;
                Ok(SourceFile::new(found.name.clone(), *text))
            }
            Origin::Builtin => Err(missing(found, at)),
        }
    }
}

fn missing(found: &Found, at: Span) -> Diagnostic {
    Diagnostic::error("E0504", format!("cannot read {}", found.name)).with_label(at, "included here")
}

fn dir_name(d: &Path) -> String {
    let s = d.display().to_string();
    if s.is_empty() {
        "the current directory".to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_join_like_paths() {
        assert_eq!(join_key("", "a.h"), "a.h");
        assert_eq!(join_key("inc", "../b/./c.h"), "b/c.h");
        assert_eq!(join_key("x/y", "..\\z.h"), "x/z.h");
        assert_eq!(key_dir("a/b/c.h"), "a/b");
        assert_eq!(key_dir("c.h"), "");
    }

    #[test]
    fn search_order() {
        let input = Input::new(SourceFile::new("main.hlsl", ""))
            .with_file("common.hlsli", SourceFile::new("t.test", "A"))
            .with_file("sub/x.hlsli", SourceFile::new("t.test", "B"));
        let std: &[(&str, &str)] = &[("common.hlsli", "STD"), ("lib/y.hlsli", "Y"), ("lib/z.hlsli", "Z")];
        let r = Resolver { input: &input, include_dirs: &[], stdlib: std, max_file_bytes: 1 << 20 };
        let main = Origin::Memory(String::new());
        // The in-memory files come before the library either way.
        assert_eq!(r.resolve("common.hlsli", false, &main).unwrap().key, "mem:common.hlsli");
        assert_eq!(r.resolve("common.hlsli", true, &main).unwrap().key, "mem:common.hlsli");
        assert_eq!(r.resolve("lib/z.hlsli", true, &main).unwrap().key, "std:lib/z.hlsli");
        // Relative to the including in-memory file's folder.
        assert_eq!(r.resolve("../common.hlsli", false, &Origin::Memory("sub/x.hlsli".into())).unwrap().key, "mem:common.hlsli");
        // A library header finds its siblings.
        assert_eq!(r.resolve("z.hlsli", false, &Origin::Stdlib("lib/y.hlsli")).unwrap().key, "std:lib/z.hlsli");
        assert!(r.resolve("nope.h", false, &main).is_none());
        assert_eq!(r.searched(false, &main), vec!["the test file's sections", "the standard library"]);
        let loaded = r.load(&r.resolve("lib/y.hlsli", true, &main).unwrap(), Span::default()).unwrap();
        assert_eq!((loaded.name.as_str(), loaded.text.as_str()), ("<stdlib>/lib/y.hlsli", "Y"));
    }

    #[test]
    fn disk_search_and_shadowing() {
        let dir = std::env::temp_dir().join(format!("wavec-pp-include-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("main.hlsl"), "").unwrap();
        std::fs::write(a.join("near.h"), "NEAR").unwrap();
        std::fs::write(b.join("near.h"), "FAR").unwrap();
        std::fs::write(b.join("common.hlsli"), "SHADOW").unwrap();
        let input = Input::new(SourceFile::new("m", ""));
        let dirs = vec![b.clone()];
        let std: &[(&str, &str)] = &[("common.hlsli", "STD")];
        let r = Resolver { input: &input, include_dirs: &dirs, stdlib: std, max_file_bytes: 1 << 20 };
        let from = Origin::Disk(a.join("main.hlsl"));
        let near = r.resolve("near.h", false, &from).unwrap();
        assert_eq!(r.load(&near, Span::default()).unwrap().text, "NEAR");
        let far = r.resolve("near.h", true, &from).unwrap();
        assert_eq!(r.load(&far, Span::default()).unwrap().text, "FAR");
        // A -I directory shadows the standard library.
        let c = r.resolve("common.hlsli", true, &from).unwrap();
        assert_eq!(r.load(&c, Span::default()).unwrap().text, "SHADOW");
        assert_eq!(c.name, b.join("common.hlsli").display().to_string());
        std::fs::remove_dir_all(&dir).ok();
    }
}
