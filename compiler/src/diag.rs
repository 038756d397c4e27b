//! Diagnostics: every user-facing error carries a stable code and, where it
//! has one, a source span. Rendering goes through codespan-reporting.
//!
//! Code ranges (documented in docs/diagnostics.md):
//! E01xx lexing, preprocessing and parsing, E02xx names and types, E03xx
//! lowering (constructs we cannot compile yet), E04xx code generation and
//! register allocation, E05xx command line and files, E06xx running pipeline
//! tests; W01xx preprocessor warnings and notes, W02xx semantic warnings.
//!
//! # Spans and the source map
//!
//! A [`Span`] is a byte range in one global offset space shared by every file
//! of a compilation ([`Sources`]): file *k* occupies `[base_k, base_k + len_k]`,
//! and consecutive files are separated by one unused offset, so that a span at
//! the very end of a file still names that file. The main file has base 0, so a
//! compilation of one file without includes has the same spans as its text.
//! `#line` directives are recorded per file and change the line numbers and
//! file names that rendering shows (never the offsets).

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, Config};
use std::ops::Range;

pub mod json;
pub mod locate;
pub mod sarif;
pub mod warnings;

/// A byte range in the global offset space of a compilation (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }
    /// The smallest span covering both. Across files the result is meaningless;
    /// rendering clamps it to the file of its start.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One diagnostic: code, message, labelled spans, notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code such as "E0201".
    pub code: &'static str,
    pub message: String,
    /// The first label is the primary one.
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Error, code, message: message.into(), labels: Vec::new(), notes: Vec::new() }
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, message) }
    }
    /// A remark that neither fails the compilation nor asks for a change.
    pub fn note(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Note, ..Diagnostic::error(code, message) }
    }
    /// Adds a label at `span`; the first one added is primary.
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Offsets where lines start: after `\n`, after `\r\n` (counted once) and after a lone `\r`.
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            starts.push(i + 1);
        }
    }
    starts
}

/// The text of one source file, for rendering and line lookup. Offsets are
/// local to the file; LF, CRLF and lone CR all end lines.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts = line_starts(&text);
        SourceFile { name: name.into(), text, line_starts }
    }

    /// 1-based line number of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.line_index(offset as usize) as u32 + 1
    }

    /// 0-based line index of a byte offset (offsets past the end are on the last line).
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Number of lines (an empty file has one).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte range of 0-based line `index`, with its line terminator.
    pub fn line_range(&self, index: usize) -> Option<Range<usize>> {
        let start = *self.line_starts.get(index)?;
        let end = self.line_starts.get(index + 1).copied().unwrap_or(self.text.len());
        Some(start..end)
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        match self.line_range(line.saturating_sub(1) as usize) {
            Some(r) if line > 0 => self.text[r].trim_end_matches(['\n', '\r']),
            _ => "",
        }
    }
}

/// Identifies a file in a [`Sources`] map; the main file is `FileId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A `#line N "name"` directive: physical line `from` (1-based) and the lines
/// after it read as `line`, `line + 1`, ... of file `name` (or the file's own name).
#[derive(Clone, Debug, PartialEq, Eq)]
struct LineMark {
    from: u32,
    line: u32,
    name: Option<String>,
}

/// One file of a compilation.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    pub file: SourceFile,
    /// Offset of the file's first byte in the global space.
    pub base: u32,
    /// The `#include` directive that loaded it first (`None` for the main
    /// file, built-in text and the command line).
    pub included_from: Option<Span>,
    /// Sorted by `from`.
    line_marks: Vec<LineMark>,
    /// The path it was read from, for a file read from disk (the main file
    /// and `#include`s found in directories; not the embedded standard
    /// library, built-in text or in-memory files). Dependency files list these.
    pub path: Option<std::path::PathBuf>,
}

/// Where a global offset lies for a reader: file name and line, after `#line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presumed {
    pub name: String,
    pub line: u32,
}

/// Every file of a compilation in one global offset space (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<LoadedFile>,
}

impl From<SourceFile> for Sources {
    fn from(file: SourceFile) -> Sources {
        let mut s = Sources::new();
        s.add(file, None);
        s
    }
}

impl Sources {
    pub fn new() -> Sources {
        Sources { files: Vec::new() }
    }

    /// Adds a file after the last one; the first file added gets base 0.
    pub fn add(&mut self, file: SourceFile, included_from: Option<Span>) -> FileId {
        let base = match self.files.last() {
            Some(f) => f.base.saturating_add(f.file.text.len() as u32).saturating_add(1),
            None => 0,
        };
        self.files.push(LoadedFile { file, base, included_from, line_marks: Vec::new(), path: None });
        FileId(self.files.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file `id`. Panics on an id from another map.
    pub fn get(&self, id: FileId) -> &LoadedFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &LoadedFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    /// The main file (the first added).
    pub fn main(&self) -> Option<&SourceFile> {
        self.files.first().map(|f| &f.file)
    }

    /// The first file called `name`.
    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files.iter().position(|f| f.file.name == name).map(|i| FileId(i as u32))
    }

    /// The file holding global `offset` (an offset in a gap belongs to the file before it).
    pub fn file_of(&self, offset: u32) -> Option<FileId> {
        if self.files.is_empty() {
            return None;
        }
        let i = self.files.partition_point(|f| f.base <= offset);
        Some(FileId(i.saturating_sub(1) as u32))
    }

    /// The global span of local range `r` of file `id`.
    pub fn span(&self, id: FileId, r: Range<usize>) -> Span {
        let base = self.get(id).base as usize;
        Span::new(base + r.start, base + r.end)
    }

    /// The file of `span` and the span as a local range of it, clamped to the
    /// file of its start (a span joined across files keeps only that file).
    pub fn local(&self, span: Span) -> Option<(FileId, Range<usize>)> {
        let id = self.file_of(span.start)?;
        let f = self.get(id);
        let len = f.file.text.len();
        let start = (span.start.saturating_sub(f.base) as usize).min(len);
        let end = (span.end.saturating_sub(f.base) as usize).clamp(start, len);
        Some((id, start..end))
    }

    /// File and 1-based physical line of global `offset` (ignoring `#line`).
    pub fn line_of(&self, offset: u32) -> Option<(FileId, u32)> {
        let (id, r) = self.local(Span { start: offset, end: offset })?;
        Some((id, self.get(id).file.line_of(r.start as u32)))
    }

    /// Records that file `id` was read from `path` on disk.
    pub fn set_path(&mut self, id: FileId, path: std::path::PathBuf) {
        self.files[id.0 as usize].path = Some(path);
    }

    /// The paths of the files read from disk, in the order they were first
    /// read, each once (a header read twice, without `#pragma once`, is one
    /// file of the map).
    pub fn paths_read(&self) -> Vec<&std::path::Path> {
        let mut out: Vec<&std::path::Path> = Vec::new();
        for p in self.files.iter().filter_map(|f| f.path.as_deref()) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Records `#line line "name"` taking effect at physical line `from` of `id`.
    pub fn add_line_mark(&mut self, id: FileId, from: u32, line: u32, name: Option<String>) {
        let marks = &mut self.files[id.0 as usize].line_marks;
        marks.retain(|m| m.from < from);
        marks.push(LineMark { from, line, name });
    }

    /// The line number and file name physical line `line` (1-based) of `id` reads as.
    pub fn presumed_line(&self, id: FileId, line: u32) -> Presumed {
        let f = self.get(id);
        let i = f.line_marks.partition_point(|m| m.from <= line);
        if i == 0 {
            return Presumed { name: f.file.name.clone(), line };
        }
        let m = &f.line_marks[i - 1];
        // The name of the nearest mark that set one.
        let name = f.line_marks[..i].iter().rev().find_map(|m| m.name.clone()).unwrap_or_else(|| f.file.name.clone());
        Presumed { name, line: m.line.saturating_add(line - m.from) }
    }

    /// File name and line of global `offset` as a reader sees them (after `#line`).
    pub fn presumed(&self, offset: u32) -> Option<Presumed> {
        let (id, line) = self.line_of(offset)?;
        Some(self.presumed_line(id, line))
    }

    /// `name:line` of `offset`, after `#line`.
    pub fn describe(&self, offset: u32) -> String {
        match self.presumed(offset) {
            Some(p) => format!("{}:{}", p.name, p.line),
            None => "?".to_string(),
        }
    }

    /// The chain of `#include` directives that loaded the file of `offset`,
    /// innermost first, as notes ("included from a.hlsl:3").
    pub fn include_notes(&self, offset: u32) -> Vec<String> {
        let mut notes = Vec::new();
        let mut at = self.file_of(offset);
        while let Some(id) = at {
            let Some(site) = self.get(id).included_from else { break };
            if notes.len() >= 16 {
                notes.push("... (more includes)".to_string());
                break;
            }
            notes.push(format!("included from {}", self.describe(site.start)));
            let next = self.file_of(site.start);
            if next == Some(id) {
                break;
            }
            at = next;
        }
        notes
    }

    /// Makes diagnostics renderable with the main file alone: labels in other
    /// files become notes naming their place. For callers that only keep the
    /// main [`SourceFile`] (the single-file API).
    pub fn localize_to_main(&self, diags: &mut [Diagnostic]) {
        for d in diags {
            let labels = std::mem::take(&mut d.labels);
            for (span, text) in labels {
                match self.file_of(span.start) {
                    Some(FileId(0)) | None => d.labels.push((span, text)),
                    Some(_) => {
                        let place = self.describe(span.start);
                        d.notes.push(if text.is_empty() { format!("at {place}") } else { format!("at {place}: {text}") });
                    }
                }
            }
        }
    }
}

/// What [`render`] can read spans from: a whole [`Sources`] map or a single file.
pub trait AsSources {
    fn with_sources<R>(&self, f: impl FnOnce(&Sources) -> R) -> R;
}

impl AsSources for Sources {
    fn with_sources<R>(&self, f: impl FnOnce(&Sources) -> R) -> R {
        f(self)
    }
}

impl AsSources for SourceFile {
    fn with_sources<R>(&self, f: impl FnOnce(&Sources) -> R) -> R {
        f(&Sources::from(self.clone()))
    }
}

/// A file as codespan sees it: one file of the map under one name. A file
/// whose `#line` directives rename it appears once per name.
struct View {
    file: FileId,
    name: String,
}

/// The codespan-reporting file database over a [`Sources`] map: line
/// numbers honour `#line`, names are the ones the user gave.
struct Views<'a> {
    sources: &'a Sources,
    views: Vec<View>,
}

impl Views<'_> {
    fn view(&mut self, file: FileId, local_start: usize) -> usize {
        let f = &self.sources.get(file).file;
        let line = f.line_of(local_start as u32);
        let name = self.sources.presumed_line(file, line).name;
        if let Some(i) = self.views.iter().position(|v| v.file == file && v.name == name) {
            return i;
        }
        self.views.push(View { file, name });
        self.views.len() - 1
    }

    /// The line number (after `#line`) of 0-based line `line_index` of view `id`.
    fn presumed_number(&self, id: usize, line_index: usize) -> Result<usize, FilesError> {
        let v = self.views.get(id).ok_or(FilesError::FileMissing)?;
        Ok(self.sources.presumed_line(v.file, line_index as u32 + 1).line as usize)
    }

    fn file(&self, id: usize) -> Result<&SourceFile, FilesError> {
        let v = self.views.get(id).ok_or(FilesError::FileMissing)?;
        Ok(&self.sources.get(v.file).file)
    }
}

impl<'a> Files<'a> for Views<'a> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        self.views.get(id).map(|v| v.name.as_str()).ok_or(FilesError::FileMissing)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        Ok(self.file(id)?.text.as_str())
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self.file(id)?.line_index(byte_index))
    }

    /// The number the excerpt's gutter shows. `#line 0` (or `# 0`) makes a
    /// line number 0, which codespan's gutter cannot show (it takes the
    /// number's logarithm): such a line is shown as 1 there, while the
    /// `FILE:LINE:COLUMN` header ([`Files::location`]) says 0.
    fn line_number(&'a self, id: usize, line_index: usize) -> Result<usize, FilesError> {
        Ok(self.presumed_number(id, line_index)?.max(1))
    }

    fn location(&'a self, id: usize, byte_index: usize) -> Result<codespan_reporting::files::Location, FilesError> {
        let line_index = self.line_index(id, byte_index)?;
        let column_number = self.column_number(id, line_index, byte_index)?;
        Ok(codespan_reporting::files::Location { line_number: self.presumed_number(id, line_index)?, column_number })
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, FilesError> {
        let f = self.file(id)?;
        f.line_range(line_index).ok_or(FilesError::LineTooLarge { given: line_index, max: f.line_count().saturating_sub(1) })
    }
}

/// Renders diagnostics as codespan-reporting text (no colour: stable in tests
/// and pipes). Labels may lie in any file of `sources`; a diagnostic whose
/// primary label is in an included file gets "included from" notes.
pub fn render<S: AsSources + ?Sized>(sources: &S, diags: &[Diagnostic]) -> String {
    sources.with_sources(|s| render_sources(s, diags))
}

fn render_sources(sources: &Sources, diags: &[Diagnostic]) -> String {
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let mut views = Views { sources, views: Vec::new() };
        let mut labels = Vec::new();
        for (i, (span, text)) in d.labels.iter().enumerate() {
            let Some((file, r)) = sources.local(*span) else { continue };
            let view = views.view(file, r.start);
            let l = if i == 0 { Label::primary(view, r) } else { Label::secondary(view, r) };
            labels.push(l.with_message(text.clone()));
        }
        let mut notes = d.notes.clone();
        if let Some((span, _)) = d.labels.first() {
            notes.extend(sources.include_notes(span.start));
        }
        let cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
            Severity::Note => CsDiagnostic::note(),
        }
        .with_code(d.code)
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes);
        let mut buf = Vec::new();
        {
            let mut writer = codespan_reporting::term::termcolor::NoColor::new(&mut buf);
            if term::emit_to_write_style(&mut writer, &config, &views, &cs).is_err() {
                out.push_str(&format!("{}[{}]: {}\n", severity_word(d.severity), d.code, d.message));
                continue;
            }
        }
        out.push_str(&String::from_utf8_lossy(&buf));
    }
    out
}

/// How rendering names a severity: `error`, `warning`, `note`.
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_lookup() {
        let f = SourceFile::new("a.hlsl", "ab\ncd\n\nef");
        assert_eq!(f.line_of(0), 1);
        assert_eq!(f.line_of(3), 2);
        assert_eq!(f.line_of(7), 4);
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.line_text(0), "");
        assert_eq!(f.line_text(9), "");
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_once() {
        let f = SourceFile::new("a.hlsl", "ab\r\ncd\ref\n");
        assert_eq!((f.line_of(0), f.line_of(4), f.line_of(7)), (1, 2, 3));
        assert_eq!((f.line_text(1), f.line_text(2), f.line_text(3)), ("ab", "cd", "ef"));
        assert_eq!(f.line_count(), 4);
    }

    #[test]
    fn renders_code_and_span() {
        let f = SourceFile::new("a.hlsl", "int x = y;\n");
        let d = Diagnostic::error("E0201", "unknown name `y`").with_label(Span::new(8, 9), "not found");
        let text = render(&f, &[d]);
        assert!(text.contains("error[E0201]: unknown name `y`"), "{text}");
        assert!(text.contains("a.hlsl:1:9"), "{text}");
    }

    fn two_files() -> Sources {
        let mut s = Sources::from(SourceFile::new("main.hlsl", "#include \"b.h\"\nint x;\n"));
        s.add(SourceFile::new("b.h", "int y = z;\n"), Some(Span::new(0, 14)));
        s
    }

    #[test]
    fn global_offsets_are_unambiguous() {
        let s = two_files();
        let main_len = s.get(FileId(0)).file.text.len() as u32;
        assert_eq!(s.get(FileId(1)).base, main_len + 1);
        // The end of the main file is still in the main file.
        assert_eq!(s.file_of(main_len), Some(FileId(0)));
        assert_eq!(s.file_of(main_len + 1), Some(FileId(1)));
        // A span joined across files is clamped to its start's file.
        let (id, r) = s.local(Span::new(3, main_len as usize + 5)).unwrap();
        assert_eq!((id, r), (FileId(0), 3..main_len as usize));
        assert_eq!(s.line_of(main_len + 1 + 4), Some((FileId(1), 1)));
    }

    #[test]
    fn renders_several_files_with_include_notes() {
        let s = two_files();
        let base = s.get(FileId(1)).base as usize;
        let d = Diagnostic::error("E0201", "unknown name `z`")
            .with_label(Span::new(base + 8, base + 9), "not found")
            .with_label(Span::new(15, 20), "elsewhere");
        let text = render(&s, &[d]);
        assert!(text.contains("b.h:1:9"), "{text}");
        assert!(text.contains("main.hlsl:2:1"), "{text}");
        assert!(text.contains("included from main.hlsl:1"), "{text}");
    }

    #[test]
    fn line_marks_rename_and_renumber() {
        let mut s = Sources::from(SourceFile::new("m.hlsl", "a\n#line 40 \"gen.hlsl\"\nb\nc\n#line 7\nd\n"));
        s.add_line_mark(FileId(0), 3, 40, Some("gen.hlsl".into()));
        s.add_line_mark(FileId(0), 6, 7, None);
        assert_eq!(s.presumed_line(FileId(0), 1), Presumed { name: "m.hlsl".into(), line: 1 });
        assert_eq!(s.presumed_line(FileId(0), 4), Presumed { name: "gen.hlsl".into(), line: 41 });
        assert_eq!(s.presumed_line(FileId(0), 6), Presumed { name: "gen.hlsl".into(), line: 7 });
        let d = Diagnostic::error("E0201", "x").with_label(Span::new(24, 25), "here");
        let text = render(&s, &[d]);
        assert!(text.contains("gen.hlsl:41:1"), "{text}");
        assert!(text.contains("41 │ c"), "{text}");
    }

    #[test]
    fn localize_moves_other_files_into_notes() {
        let s = two_files();
        let base = s.get(FileId(1)).base as usize;
        let mut ds =
            vec![Diagnostic::error("E0201", "x").with_label(Span::new(base, base + 3), "here").with_label(Span::new(15, 18), "main")];
        s.localize_to_main(&mut ds);
        assert_eq!(ds[0].labels, vec![(Span::new(15, 18), "main".to_string())]);
        assert_eq!(ds[0].notes, vec!["at b.h:1: here".to_string()]);
    }

    #[test]
    fn render_never_panics_on_odd_spans() {
        let s = two_files();
        for span in [Span::new(0, 0), Span::new(500, 900), Span::new(20, 3), Span::new(u32::MAX as usize, u32::MAX as usize)] {
            let _ = render(&s, &[Diagnostic::error("E0101", "x").with_label(span, "y")]);
        }
        let _ = render(&Sources::new(), &[Diagnostic::error("E0101", "x").with_label(Span::new(1, 2), "y")]);
    }
}
