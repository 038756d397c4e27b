//! Where a span lies, as machine-readable output states it: the file as it
//! was named (the path typed or found for a file on disk), 1-based physical
//! lines and columns (columns count Unicode scalar values, as codespan's
//! rendering does), byte offsets local to the file, and the line `#line`
//! makes a reader see when it differs.

use super::{Sources, Span};

/// One end-to-end place of a span (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    /// Where the file was read from on disk, if it was (else it is the
    /// standard library, built-in text or an in-memory file).
    pub on_disk: bool,
    pub line: u32,
    pub column: u32,
    /// The end is exclusive: the line and column just after the span.
    pub end_line: u32,
    pub end_column: u32,
    /// Byte offsets in the file's text (after decoding to UTF-8).
    pub byte_start: u32,
    pub byte_end: u32,
    /// The file name and line a `#line` directive makes this place read as,
    /// when it differs from the physical one.
    pub presumed: Option<(String, u32)>,
}

/// The location of `span` in `sources`, or `None` for a span in no file.
pub fn locate(sources: &Sources, span: Span) -> Option<Location> {
    let (id, range) = sources.local(span)?;
    let f = sources.get(id);
    let (line, column) = line_column(&f.file, range.start);
    let (end_line, end_column) = line_column(&f.file, range.end);
    let p = sources.presumed_line(id, line);
    let presumed = (p.name != f.file.name || p.line != line).then_some((p.name, p.line));
    Some(Location {
        file: f.file.name.clone(),
        on_disk: f.path.is_some(),
        line,
        column,
        end_line,
        end_column,
        byte_start: range.start as u32,
        byte_end: range.end as u32,
        presumed,
    })
}

/// 1-based line and column (in characters) of local byte `offset`.
fn line_column(f: &super::SourceFile, offset: usize) -> (u32, u32) {
    let index = f.line_index(offset);
    let start = f.line_range(index).map_or(0, |r| r.start).min(offset);
    let prefix = f.text.get(start..offset).unwrap_or("");
    (index as u32 + 1, prefix.chars().count() as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{FileId, SourceFile};

    #[test]
    fn lines_columns_and_bytes_are_local_and_one_based() {
        let mut s = Sources::from(SourceFile::new("main.hlsl", "#include \"b.h\"\nint é = y;\n"));
        let b = s.add(SourceFile::new("b.h", "int y = z;\n"), Some(Span::new(0, 14)));
        let base = s.get(b).base as usize;
        // `y` in the main file comes after a two-byte `é`: column 9 counts characters (byte 10 of its line).
        let l = locate(&s, Span::new(24, 25)).expect("in the main file");
        assert_eq!((l.file.as_str(), l.line, l.column, l.end_column), ("main.hlsl", 2, 9, 10));
        assert_eq!((l.byte_start, l.byte_end, l.presumed), (24, 25, None));
        let l = locate(&s, Span::new(base + 8, base + 9)).expect("in b.h");
        assert_eq!((l.file.as_str(), l.line, l.column, l.byte_start), ("b.h", 1, 9, 8));
        assert!(!l.on_disk);
        s.add_line_mark(FileId(0), 2, 40, Some("gen.hlsl".into()));
        assert_eq!(locate(&s, Span::new(24, 25)).and_then(|l| l.presumed), Some(("gen.hlsl".to_string(), 40)));
        assert_eq!(locate(&Sources::new(), Span::new(0, 1)), None);
    }
}
