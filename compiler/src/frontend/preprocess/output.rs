//! The expanded text and its origin map.
//!
//! Runs of tokens that are adjacent in one file are copied with the trivia
//! between them (comments blanked to spaces, newlines kept), so that such a run
//! maps offset-preservingly to its source: a file without directives or macros
//! comes out with the same offsets. Other tokens get a separator (a newline
//! when they start a source line, a space where the source had whitespace or
//! the two tokens could read as one) and their own segment; a
//! token made by an expansion maps as a whole to its span (the invocation).

use crate::diag::{Sources, Span};

use super::lexer::PpTok;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SegKind {
    /// Output offset `out + k` is global offset `src + k`.
    Verbatim { src: u32 },
    /// Every output offset in the segment maps to the whole span.
    Fixed { span: Span },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seg {
    out: u32,
    kind: SegKind,
}

/// Maps byte ranges of the expanded text back to global spans.
#[derive(Clone, Debug, Default)]
pub struct OriginMap {
    segs: Vec<Seg>,
    /// Where the end of the expanded text maps (the end of the main file).
    end: Span,
    /// Length of the expanded text.
    len: u32,
}

impl OriginMap {
    fn point(&self, off: u32) -> Span {
        let i = self.segs.partition_point(|s| s.out <= off);
        match i.checked_sub(1).map(|i| self.segs[i]) {
            Some(Seg { out, kind: SegKind::Verbatim { src } }) => {
                let p = src.saturating_add(off - out);
                Span { start: p, end: p.saturating_add(1) }
            }
            Some(Seg { kind: SegKind::Fixed { span }, .. }) => span,
            None => self.end,
        }
    }

    /// The global span of expanded-text range `start..end` (clamped to the
    /// file of its start when the ends map to different files).
    pub fn map(&self, start: usize, end: usize, sources: &Sources) -> Span {
        let a = self.point(start as u32);
        if end <= start {
            return Span { start: a.start, end: if self.is_fixed(start as u32) { a.end } else { a.start } };
        }
        let b = self.point(end as u32 - 1);
        if sources.file_of(a.start) != sources.file_of(b.start) || b.end < a.start {
            return a;
        }
        Span { start: a.start, end: b.end.max(a.end) }
    }

    fn is_fixed(&self, off: u32) -> bool {
        let i = self.segs.partition_point(|s| s.out <= off);
        i > 0 && matches!(self.segs[i - 1].kind, SegKind::Fixed { .. })
    }

    /// Where end of input maps: the end of the main file.
    pub fn end(&self) -> Span {
        self.end
    }

    /// The first offset of the expanded text that maps to global `offset`
    /// (a header included twice appears twice; the first copy answers).
    pub fn offset_of(&self, offset: u32) -> Option<usize> {
        for (i, s) in self.segs.iter().enumerate() {
            let seg_end = self.segs.get(i + 1).map_or(self.len, |n| n.out);
            match s.kind {
                SegKind::Verbatim { src } if offset >= src && offset - src < seg_end - s.out => {
                    return Some((s.out + offset - src) as usize)
                }
                SegKind::Fixed { span } if span.start <= offset && offset < span.end.max(span.start + 1) => return Some(s.out as usize),
                _ => {}
            }
        }
        None
    }
}

/// Characters that never join a neighbour into another token.
fn separates(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | ',' | ';')
}

/// Builds the expanded text.
#[derive(Default)]
pub struct Output {
    pub text: String,
    map: OriginMap,
    /// (file, index, span end) of the last token copied verbatim.
    last: Option<(u32, u32, u32)>,
}

impl Output {
    pub fn emit(&mut self, t: &PpTok, sources: &Sources) {
        let adjacent = t.verbatim() && matches!(self.last, Some((f, i, _)) if f == t.file && i.wrapping_add(1) == t.index);
        // A file's first token comes with the trivia before it: a file that
        // is all text comes out at its own offsets.
        let first_of_file = t.verbatim() && t.index == 0 && !adjacent;
        if first_of_file && !self.text.is_empty() && !self.text.ends_with(char::is_whitespace) {
            self.text.push('\n');
        }
        if adjacent || first_of_file {
            let prev_end = match self.last {
                Some((_, _, end)) if adjacent => end,
                _ => sources.get(crate::diag::FileId(t.file)).base,
            };
            if let Some((id, r)) = sources.local(Span { start: prev_end, end: t.span.start }) {
                let gap = &sources.get(id).file.text[r];
                // Trivia only: blank comments but keep their length and line breaks.
                for c in gap.chars() {
                    if matches!(c, '\n' | '\r') {
                        self.text.push(c);
                    } else {
                        for _ in 0..c.len_utf8() {
                            self.text.push(' ');
                        }
                    }
                }
            }
        } else if !self.text.is_empty() {
            let prev = self.text.chars().next_back().unwrap_or(' ');
            let next = t.text.chars().next().unwrap_or(' ');
            if t.bol() {
                self.text.push('\n');
            } else if t.ws() || !(separates(prev) || separates(next)) {
                // Two tokens that could read as one (`-` `-`, `1e` `+`) stay apart.
                self.text.push(' ');
            }
        }
        let out = self.text.len() as u32;
        let kind = if t.verbatim() { SegKind::Verbatim { src: t.span.start } } else { SegKind::Fixed { span: t.span } };
        let continues = match (self.map.segs.last(), kind) {
            (Some(Seg { out: o, kind: SegKind::Verbatim { src: s } }), SegKind::Verbatim { src }) => out - o == src.wrapping_sub(*s),
            (Some(Seg { kind: SegKind::Fixed { span: a }, .. }), SegKind::Fixed { span: b }) => *a == b,
            _ => false,
        };
        if !continues {
            self.map.segs.push(Seg { out, kind });
        }
        self.text.push_str(&t.text);
        self.last = t.verbatim().then_some((t.file, t.index, t.span.end));
    }

    /// A line break (after a directive), so that the text stays readable.
    pub fn newline(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.last = None;
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn finish(mut self, end: Span) -> (String, OriginMap) {
        self.map.end = end;
        self.map.len = self.text.len() as u32;
        (self.text, self.map)
    }
}
