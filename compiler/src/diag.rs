//! Diagnostics: every user-facing error carries a stable code and, where it
//! has one, a source span. Rendering goes through codespan-reporting.
//!
//! Code ranges (documented in docs/diagnostics.md):
//! E01xx lexing and parsing, E02xx names and types, E03xx lowering (constructs
//! we cannot compile yet), E04xx code generation and register allocation,
//! E05xx command line and files, E06xx running pipeline tests.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

/// A byte range in the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: start as u32, end: end as u32 }
    }
    /// The smallest span covering both.
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

/// The text of one source file, for rendering and line lookup.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile { name: name.into(), text, line_starts }
    }

    /// 1-based line number of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        match self.line_starts.binary_search(&(offset as usize)) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1) as usize) else {
            return "";
        };
        let end = self.line_starts.get(line as usize).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Renders diagnostics as codespan-reporting text (no colour: stable in tests and pipes).
pub fn render(file: &SourceFile, diags: &[Diagnostic]) -> String {
    let files = SimpleFile::new(file.name.as_str(), file.text.as_str());
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let cs = to_codespan(d, file.text.len());
        let mut buf = Vec::new();
        {
            let mut writer = codespan_reporting::term::termcolor::NoColor::new(&mut buf);
            if term::emit_to_write_style(&mut writer, &config, &files, &cs).is_err() {
                out.push_str(&format!("{}[{}]: {}\n", severity_word(d.severity), d.code, d.message));
                continue;
            }
        }
        out.push_str(&String::from_utf8_lossy(&buf));
    }
    out
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn to_codespan(d: &Diagnostic, len: usize) -> CsDiagnostic<()> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
        Severity::Note => CsDiagnostic::note(),
    };
    let clamp = |s: Span| {
        let start = (s.start as usize).min(len);
        let end = (s.end as usize).clamp(start, len);
        start..end
    };
    let labels = d
        .labels
        .iter()
        .enumerate()
        .map(|(i, (span, text))| {
            let l = if i == 0 { Label::primary((), clamp(*span)) } else { Label::secondary((), clamp(*span)) };
            l.with_message(text.clone())
        })
        .collect();
    base.with_code(d.code).with_message(d.message.clone()).with_labels(labels).with_notes(d.notes.clone())
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
    }

    #[test]
    fn renders_code_and_span() {
        let f = SourceFile::new("a.hlsl", "int x = y;\n");
        let d = Diagnostic::error("E0201", "unknown name `y`").with_label(Span::new(8, 9), "not found");
        let text = render(&f, &[d]);
        assert!(text.contains("error[E0201]: unknown name `y`"), "{text}");
        assert!(text.contains("a.hlsl:1:9"), "{text}");
    }
}
