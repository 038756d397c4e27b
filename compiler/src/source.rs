//! Source files as real projects have them: decoding bytes to text, and the
//! [`Input`] of a compilation (the main file plus where its includes come from).
//!
//! Decoding ([`decode`]) follows what DXC accepts:
//! - a UTF-8 byte order mark is dropped;
//! - a UTF-16 LE or BE byte order mark selects UTF-16 (invalid UTF-16 is E0507);
//! - otherwise valid UTF-8 is UTF-8, and anything else is Latin-1, each byte
//!   becoming U+0000..U+00FF (shaders with `°` or `é` in comments, saved by
//!   Windows editors, are common).
//!
//! Line endings are left as they are: LF, CRLF and lone CR are all understood
//! by the line tables ([`crate::diag::SourceFile`]), the preprocessor and the lexer.
//! Every extension (`.hlsl .hlsli .compute .comp .h .fx`, or none) is just a source.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, SourceFile};

/// How a file's bytes were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
    Latin1,
}

/// Bytes that start with a UTF-16 byte order mark but are not valid UTF-16.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// Byte offset of the first bad code unit.
    pub offset: usize,
    pub message: String,
}

/// Decodes a source file's bytes (see the module doc).
pub fn decode(bytes: &[u8]) -> Result<(String, Encoding), DecodeError> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return Ok(match std::str::from_utf8(rest) {
            Ok(s) => (s.to_string(), Encoding::Utf8Bom),
            Err(_) => (latin1(rest), Encoding::Latin1),
        });
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes).map(|s| (s, Encoding::Utf16Le));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes).map(|s| (s, Encoding::Utf16Be));
    }
    Ok(match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), Encoding::Utf8),
        Err(_) => (latin1(bytes), Encoding::Latin1),
    })
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, DecodeError> {
    if bytes.len() & 1 == 1 {
        return Err(DecodeError { offset: bytes.len() + 1, message: "an odd number of bytes after the UTF-16 byte order mark".into() });
    }
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]])).collect();
    let mut out = String::with_capacity(units.len());
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => out.push(c),
            Err(e) => {
                let units_before: usize = out.chars().map(char::len_utf16).sum();
                return Err(DecodeError {
                    offset: 2 + 2 * units_before,
                    message: format!("unpaired UTF-16 surrogate 0x{:04X}", e.unpaired_surrogate()),
                });
            }
        }
    }
    Ok(out)
}

/// Reads and decodes a file. `name` is how diagnostics will call it. Only a
/// regular file of at most the default `file-size` limit is read ([`read_file_limited`]).
pub fn read_file(path: &Path, name: impl Into<String>) -> Result<SourceFile, Diagnostic> {
    read_file_limited(path, name, crate::limits::Limits::default().file_bytes)
}

/// [`read_file`] of a file of at most `max_bytes`.
pub fn read_file_limited(path: &Path, name: impl Into<String>, max_bytes: u64) -> Result<SourceFile, Diagnostic> {
    let name = name.into();
    let bytes = read_bytes_limited(path, max_bytes).map_err(|e| match e {
        ReadError::Io(e) => Diagnostic::error("E0504", format!("cannot read {name}: {e}")),
        ReadError::NotRegular => Diagnostic::error("E0512", format!("{name} is not a regular file"))
            .with_note("wavec reads sources, includes, tests and pipelines only from regular files (not devices, pipes or directories)"),
        ReadError::TooLarge(n) => {
            Diagnostic::error("E0512", format!("{name} is larger than the {}-byte limit for an input file", max_bytes)).with_note(format!(
                "it has {} at least; `--limit file-size=N` (bytes, or with KiB/MiB/GiB) raises the limit",
                crate::limits::show_bytes(n)
            ))
        }
    })?;
    let (text, _) = decode(&bytes).map_err(|e| {
        Diagnostic::error("E0507", format!("{name} is not valid UTF-16 text: {} (byte {})", e.message, e.offset))
            .with_note("a file that starts with a UTF-16 byte order mark must be UTF-16 throughout")
    })?;
    Ok(SourceFile::new(name, text))
}

/// Why [`read_bytes_limited`] did not read a file.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// A device, pipe, socket or directory.
    NotRegular,
    /// Longer than the limit: at least this many bytes.
    TooLarge(u64),
}

/// The bytes of the regular file `path`, if it has at most `max_bytes`. The
/// size is checked before reading and again while reading (a file may grow,
/// and some report no size), so no more than `max_bytes + 1` bytes are read.
pub fn read_bytes_limited(path: &Path, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// What to compile: the main file and where `#include` looks besides the
/// `-I` directories and the standard library.
#[derive(Clone, Debug)]
pub struct Input {
    pub main: SourceFile,
    /// The main file on disk, if it came from there (its canonical path
    /// identifies it for `#pragma once`).
    pub path: Option<PathBuf>,
    /// Directory that `#include "..."` in the main file (and in the in-memory
    /// files) searches, after the in-memory files. `None`: only those.
    pub dir: Option<PathBuf>,
    /// In-memory files that `#include "KEY"` finds, as `(KEY, file)`: the
    /// other sections of a split-file `.test`. Searched before `dir`.
    pub files: Vec<(String, SourceFile)>,
    /// A Unity `.compute` file (by its name, or the name of its `.test`
    /// section). Unity compiles them with FXC, which follows HLSL 2018 rules,
    /// so the driver defaults to `-HV 2018` for them.
    pub unity_compute: bool,
}

/// Is `name` a Unity compute shader file name (`*.compute`, any case)?
pub fn is_unity_compute_name(name: &str) -> bool {
    Path::new(name).extension().is_some_and(|e| e.eq_ignore_ascii_case("compute"))
}

impl Input {
    /// An in-memory main file: its quoted includes find only `-I` directories
    /// and the standard library until [`Input::with_dir`] names a directory.
    pub fn new(main: SourceFile) -> Input {
        let unity_compute = is_unity_compute_name(&main.name);
        Input { main, path: None, dir: None, files: Vec::new(), unity_compute }
    }

    /// Quoted includes of the main file search `dir`.
    pub fn with_dir(mut self, dir: impl Into<PathBuf>) -> Input {
        self.dir = Some(dir.into());
        self
    }

    /// Adds an in-memory file that `#include "key"` finds.
    pub fn with_file(mut self, key: impl Into<String>, file: SourceFile) -> Input {
        self.files.push((key.into(), file));
        self
    }

    /// Reads the main file from disk; it is named as `path` was typed and its
    /// directory is searched by quoted includes.
    pub fn from_path(path: &Path) -> Result<Input, Diagnostic> {
        Input::from_path_limited(path, crate::limits::Limits::default().file_bytes)
    }

    /// [`Input::from_path`] of a file of at most `max_bytes`.
    pub fn from_path_limited(path: &Path, max_bytes: u64) -> Result<Input, Diagnostic> {
        let main = read_file_limited(path, path.display().to_string(), max_bytes)?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let unity_compute = is_unity_compute_name(&path.to_string_lossy());
        Ok(Input { main, path: Some(path.to_path_buf()), dir: Some(dir), files: Vec::new(), unity_compute })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str) -> Vec<u8> {
        let mut b = vec![0xFF, 0xFE];
        b.extend(s.encode_utf16().flat_map(|u| u.to_le_bytes()));
        b
    }

    #[test]
    fn utf8_with_and_without_bom() {
        assert_eq!(decode(b"int a; // \xC2\xB0\n").unwrap(), ("int a; // °\n".to_string(), Encoding::Utf8));
        assert_eq!(decode(b"\xEF\xBB\xBFint a;").unwrap(), ("int a;".to_string(), Encoding::Utf8Bom));
        assert_eq!(decode(b"").unwrap(), (String::new(), Encoding::Utf8));
    }

    #[test]
    fn utf16_both_byte_orders() {
        assert_eq!(decode(&utf16le("float x; // é\r\n")).unwrap(), ("float x; // é\r\n".to_string(), Encoding::Utf16Le));
        let mut be = vec![0xFE, 0xFF];
        be.extend("a\u{1F600}b".encode_utf16().flat_map(|u| u.to_be_bytes()));
        assert_eq!(decode(&be).unwrap(), ("a\u{1F600}b".to_string(), Encoding::Utf16Be));
    }

    #[test]
    fn invalid_utf16_is_an_error() {
        assert!(decode(&[0xFF, 0xFE, 0x61]).unwrap_err().message.contains("odd number"));
        // a, then a lone high surrogate, then b.
        let e = decode(&[0xFF, 0xFE, 0x61, 0x00, 0x00, 0xD8, 0x62, 0x00]).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.message.contains("D800"), "{}", e.message);
    }

    #[test]
    fn unity_compute_names() {
        assert!(is_unity_compute_name("Assets/Blur.compute") && is_unity_compute_name("k.COMPUTE"));
        assert!(!is_unity_compute_name("k.hlsl") && !is_unity_compute_name("compute") && !is_unity_compute_name("x.compute.hlsl"));
        assert!(Input::new(SourceFile::new("a.compute", "")).unity_compute);
    }

    #[test]
    fn latin1_fallback() {
        // "// caf\xE9 25\xB0" as Windows-1252/Latin-1 bytes with CRLF.
        let (s, enc) = decode(b"// caf\xE9 25\xB0\r\nint a;\r\n").unwrap();
        assert_eq!(enc, Encoding::Latin1);
        assert_eq!(s, "// café 25°\r\nint a;\r\n");
        // A UTF-8 BOM followed by invalid UTF-8 is Latin-1 after the BOM.
        assert_eq!(decode(b"\xEF\xBB\xBF\xE9").unwrap(), ("é".to_string(), Encoding::Latin1));
    }
}
