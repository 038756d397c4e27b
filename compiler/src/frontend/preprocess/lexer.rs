//! Preprocessing tokens (C99 6.4 "preprocessing-token"): identifiers,
//! pp-numbers, character and string literals, punctuators, and single "other"
//! characters. Comments become whitespace; backslash-newline splices (after
//! LF, CRLF or a lone CR) vanish, even inside tokens. A newline inside a block
//! comment does not end a directive line, as in C.
//!
//! Every token records whether whitespace precedes it ([`WS`], for
//! stringizing and output spacing) and whether it starts a line ([`BOL`], for
//! recognising directives). An unterminated quote becomes an "other" token
//! (skipped groups often hold apostrophes); an unterminated block comment is
//! E0103 and ends the file.

use std::rc::Rc;

use crate::diag::{Diagnostic, Span};

/// Whitespace (or a comment) precedes the token.
pub const WS: u8 = 1;
/// The token is the first on its line.
pub const BOL: u8 = 2;
/// The token's text is exactly the source text of its span (no splice inside).
pub const EXACT: u8 = 4;

/// `origin` of tokens written in a file rather than made by an expansion.
pub const NO_ORIGIN: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    Other,
}

/// The macros a token may no longer expand to (Prosser's hide set): sorted macro ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HideSet(Option<Rc<Vec<u32>>>);

impl HideSet {
    /// The number of macros in the set.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |v| v.len())
    }

    pub fn contains(&self, id: u32) -> bool {
        self.0.as_ref().is_some_and(|v| v.binary_search(&id).is_ok())
    }

    pub fn with(&self, id: u32) -> HideSet {
        if self.contains(id) {
            return self.clone();
        }
        let mut v = self.0.as_ref().map(|v| v.to_vec()).unwrap_or_default();
        let at = v.partition_point(|&x| x < id);
        v.insert(at, id);
        HideSet(Some(Rc::new(v)))
    }

    pub fn union(&self, other: &HideSet) -> HideSet {
        match (&self.0, &other.0) {
            (_, None) => self.clone(),
            (None, _) => other.clone(),
            (Some(a), Some(b)) if Rc::ptr_eq(a, b) => self.clone(),
            (Some(a), Some(b)) => {
                let mut v: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
                v.sort_unstable();
                v.dedup();
                HideSet(Some(Rc::new(v)))
            }
        }
    }

    pub fn intersection(&self, other: &HideSet) -> HideSet {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => {
                let v: Vec<u32> = a.iter().copied().filter(|x| b.binary_search(x).is_ok()).collect();
                HideSet(if v.is_empty() { None } else { Some(Rc::new(v)) })
            }
            _ => HideSet(None),
        }
    }

    /// Identity, to reuse a computed union for tokens sharing a hide set.
    pub fn same(&self, other: &HideSet) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// One preprocessing token.
#[derive(Clone, Debug)]
pub struct PpTok {
    pub kind: Kind,
    pub flags: u8,
    /// Spelling, splices removed.
    pub text: Rc<str>,
    /// Where it maps in the global space: its own text for tokens written in
    /// a file (macro arguments included), the whole outermost macro invocation
    /// for tokens an expansion made.
    pub span: Span,
    /// The file it was lexed from and its index there (`u32::MAX` when made by
    /// an expansion): two tokens with consecutive indices are adjacent in the source.
    pub file: u32,
    pub index: u32,
    pub hide: HideSet,
    /// Index of the expansion record that made it, or [`NO_ORIGIN`].
    pub origin: u32,
}

impl PpTok {
    /// A token made by the preprocessor (an expansion, `__LINE__`, a paste).
    pub fn made(kind: Kind, text: impl Into<Rc<str>>, span: Span, origin: u32) -> PpTok {
        PpTok { kind, flags: 0, text: text.into(), span, file: u32::MAX, index: u32::MAX, hide: HideSet::default(), origin }
    }
    pub fn is(&self, punct: &str) -> bool {
        self.kind == Kind::Punct && &*self.text == punct
    }
    pub fn is_ident(&self, name: &str) -> bool {
        self.kind == Kind::Ident && &*self.text == name
    }
    pub fn ws(&self) -> bool {
        self.flags & WS != 0
    }
    pub fn bol(&self) -> bool {
        self.flags & BOL != 0
    }
    /// Written in a file, text as in the source: copied to the output offset-preserving.
    pub fn verbatim(&self) -> bool {
        self.origin == NO_ORIGIN && self.flags & EXACT != 0 && self.file != u32::MAX
    }
}

const PUNCT3: &[&str] = &["...", "<<=", ">>="];
const PUNCT2: &[&str] =
    &["->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "::"];
const PUNCT1: &[u8] = b"[](){}.&*+-~!/%<>^|?:;=,#";

struct Cursor<'a> {
    s: &'a str,
    b: &'a [u8],
}

impl Cursor<'_> {
    /// The position after any backslash-newline splices at `i`.
    fn at(&self, mut i: usize) -> usize {
        while i + 1 < self.b.len() && self.b[i] == b'\\' && matches!(self.b[i + 1], b'\n' | b'\r') {
            i += if self.b[i + 1] == b'\r' && self.b.get(i + 2) == Some(&b'\n') { 3 } else { 2 };
        }
        i
    }

    /// The byte at logical position `i` (after splices) and the position after it; 0 at the end.
    fn byte(&self, i: usize) -> (u8, usize) {
        let j = self.at(i);
        (self.b.get(j).copied().unwrap_or(0), j)
    }

    fn char_at(&self, i: usize) -> char {
        self.s[i..].chars().next().unwrap_or('\u{fffd}')
    }
}

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Lexes `text` (file `file` at global `base`). Returns the tokens and any
/// error (E0103); lexing stops at an unterminated block comment.
pub fn lex(text: &str, base: u32, file: u32) -> (Vec<PpTok>, Vec<Diagnostic>) {
    let cur = Cursor { s: text, b: text.as_bytes() };
    let b = cur.b;
    let mut toks = Vec::new();
    let mut errors = Vec::new();
    let mut flags = BOL;
    let mut i = 0;
    loop {
        i = cur.at(i);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        match c {
            b'\n' | b'\r' => {
                flags |= BOL | WS;
                i += 1;
                continue;
            }
            b' ' | b'\t' | 0x0b | 0x0c => {
                flags |= WS;
                i += 1;
                continue;
            }
            b'/' => {
                let (next, j) = cur.byte(i + 1);
                if next == b'/' {
                    let mut k = j + 1;
                    loop {
                        k = cur.at(k);
                        if k >= b.len() || matches!(b[k], b'\n' | b'\r') {
                            break;
                        }
                        k += 1;
                    }
                    i = k;
                    flags |= WS;
                    continue;
                }
                if next == b'*' {
                    let mut k = j + 1;
                    let closed = loop {
                        k = cur.at(k);
                        if k >= b.len() {
                            break false;
                        }
                        if b[k] == b'*' {
                            let (n, m) = cur.byte(k + 1);
                            if n == b'/' {
                                k = m + 1;
                                break true;
                            }
                        }
                        k += 1;
                    };
                    if !closed {
                        let span = Span::new(base as usize + i, base as usize + j + 1);
                        errors.push(
                            Diagnostic::error("E0103", "unterminated block comment")
                                .with_label(span, "this comment is never closed with `*/`"),
                        );
                        break;
                    }
                    i = k;
                    flags |= WS;
                    continue;
                }
            }
            _ => {}
        }
        let start = i;
        let mut spelled = String::new();
        let mut end;
        let kind;
        let (n1, _) = cur.byte(i + 1);
        if ident_start(c) {
            kind = Kind::Ident;
            end = i;
            loop {
                let (ch, j) = cur.byte(end);
                if j < b.len() && ident_byte(ch) {
                    spelled.push(ch as char);
                    end = j + 1;
                } else {
                    break;
                }
            }
        } else if c.is_ascii_digit() || (c == b'.' && n1.is_ascii_digit()) {
            kind = Kind::Number;
            end = i;
            let mut prev = 0u8;
            loop {
                let (ch, j) = cur.byte(end);
                if j >= b.len() {
                    break;
                }
                let sign_after_exp = matches!(ch, b'+' | b'-') && matches!(prev, b'e' | b'E' | b'p' | b'P');
                if ident_byte(ch) || ch == b'.' || sign_after_exp {
                    spelled.push(ch as char);
                    end = j + 1;
                    prev = ch;
                } else {
                    break;
                }
            }
        } else if c == b'"' || c == b'\'' {
            // A literal runs to the matching quote on the same logical line.
            let mut k = i + 1;
            let mut text = String::from(c as char);
            let closed = loop {
                k = cur.at(k);
                if k >= b.len() || matches!(b[k], b'\n' | b'\r') {
                    break false;
                }
                let ch = cur.char_at(k);
                text.push(ch);
                k += ch.len_utf8();
                if ch == c as char {
                    break true;
                }
                if ch == '\\' {
                    let k2 = cur.at(k);
                    if k2 < b.len() && !matches!(b[k2], b'\n' | b'\r') {
                        let e = cur.char_at(k2);
                        text.push(e);
                        k = k2 + e.len_utf8();
                    }
                }
            };
            if closed {
                kind = if c == b'"' { Kind::Str } else { Kind::Char };
                spelled = text;
                end = k;
            } else {
                kind = Kind::Other;
                spelled.push(c as char);
                end = i + 1;
            }
        } else {
            // Punctuators, longest first; splices may sit between their characters.
            let (c2, j2) = cur.byte(i + 1);
            let (c3, j3) = cur.byte(j2 + 1);
            let two = [c, c2];
            let three = [c, c2, c3];
            if j3 < b.len() && PUNCT3.iter().any(|p| p.as_bytes() == three) {
                kind = Kind::Punct;
                spelled.extend(three.iter().map(|&x| x as char));
                end = j3 + 1;
            } else if j2 < b.len() && PUNCT2.iter().any(|p| p.as_bytes() == two) {
                kind = Kind::Punct;
                spelled.extend(two.iter().map(|&x| x as char));
                end = j2 + 1;
            } else if PUNCT1.contains(&c) {
                kind = Kind::Punct;
                spelled.push(c as char);
                end = i + 1;
            } else {
                kind = Kind::Other;
                let ch = cur.char_at(i);
                spelled.push(ch);
                end = i + ch.len_utf8();
            }
        }
        if end <= start {
            // Cannot happen (every branch consumes), but never loop forever.
            end = start + cur.char_at(start).len_utf8();
        }
        if &text[start..end] == spelled.as_str() {
            flags |= EXACT;
        }
        toks.push(PpTok {
            kind,
            flags,
            text: spelled.into(),
            span: Span::new(base as usize + start, base as usize + end),
            file,
            index: toks.len() as u32,
            hide: HideSet::default(),
            origin: NO_ORIGIN,
        });
        flags = 0;
        i = end;
    }
    (toks, errors)
}

/// The kind of the single token `text` lexes to, or `None` if it is not
/// exactly one token (the check for `##` results).
pub fn single_token(text: &str) -> Option<Kind> {
    let (toks, errors) = lex(text, 0, 0);
    match toks.as_slice() {
        [t] if errors.is_empty() && t.span == Span::new(0, text.len()) && t.flags & EXACT != 0 => Some(t.kind),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Kind, String)> {
        lex(s, 0, 0).0.into_iter().map(|t| (t.kind, t.text.to_string())).collect()
    }

    fn texts(s: &str) -> Vec<String> {
        lex(s, 0, 0).0.into_iter().map(|t| t.text.to_string()).collect()
    }

    #[test]
    fn token_kinds() {
        use Kind::*;
        assert_eq!(
            kinds("a_1 1.5e+3f .5 0x1Fu \"s\\\"t\" 'c' <<= ## ... @ é"),
            vec![
                (Ident, "a_1".into()),
                (Number, "1.5e+3f".into()),
                (Number, ".5".into()),
                (Number, "0x1Fu".into()),
                (Str, "\"s\\\"t\"".into()),
                (Char, "'c'".into()),
                (Punct, "<<=".into()),
                (Punct, "##".into()),
                (Punct, "...".into()),
                (Other, "@".into()),
                (Other, "é".into()),
            ]
        );
        // pp-numbers swallow letters: `12ab` is one (malformed) number; `1+2` is three tokens.
        assert_eq!(texts("12ab 1+2 1e-2-3"), vec!["12ab", "1", "+", "2", "1e-2", "-", "3"]);
    }

    #[test]
    fn comments_and_flags() {
        let (t, e) = lex("a /* x\n y */ b // c \\\n still comment\n#d", 100, 7);
        assert!(e.is_empty());
        let got: Vec<(&str, u8)> = t.iter().map(|t| (&*t.text, t.flags & (WS | BOL))).collect();
        // A newline inside a block comment does not start a line.
        assert_eq!(got, vec![("a", BOL), ("b", WS), ("#", WS | BOL), ("d", 0)]);
        assert_eq!(t[0].span, Span::new(100, 101));
        assert_eq!((t[1].file, t[1].index), (7, 1));
    }

    #[test]
    fn splices_inside_tokens_and_line_endings() {
        let (t, _) = lex("ab\\\r\ncd 1\\\n2 x\r\ny\rz", 0, 0);
        let got: Vec<(&str, bool, bool)> = t.iter().map(|t| (&*t.text, t.bol(), t.flags & EXACT != 0)).collect();
        assert_eq!(got, vec![("abcd", true, false), ("12", false, false), ("x", false, true), ("y", true, true), ("z", true, true)]);
        assert_eq!(t[0].span, Span::new(0, 7));
        // A splice between the characters of a punctuator.
        assert_eq!(texts("a <\\\n<= b"), vec!["a", "<<=", "b"]);
    }

    #[test]
    fn unterminated_things() {
        // An apostrophe in text is an "other" token, not an error.
        assert_eq!(kinds("don't")[1], (Kind::Other, "'".into()));
        assert_eq!(texts("\"abc\nx"), vec!["\"", "abc", "x"]);
        let (t, e) = lex("a /* open\n b", 0, 0);
        assert_eq!(t.len(), 1);
        assert_eq!((e[0].code, e[0].labels[0].0), ("E0103", Span::new(2, 4)));
    }

    #[test]
    fn single_tokens() {
        assert_eq!(single_token("ab"), Some(Kind::Ident));
        assert_eq!(single_token("<<="), Some(Kind::Punct));
        assert_eq!(single_token("1e"), Some(Kind::Number));
        assert_eq!(single_token("+-"), None);
        assert_eq!(single_token("//"), None);
        assert_eq!(single_token("/*"), None);
        assert_eq!(single_token(""), None);
    }

    #[test]
    fn hide_sets() {
        let a = HideSet::default().with(3).with(1);
        let b = HideSet::default().with(3).with(7);
        assert!(a.contains(1) && a.contains(3) && !a.contains(7));
        assert_eq!(a.union(&b), HideSet::default().with(1).with(3).with(7));
        assert_eq!(a.intersection(&b), HideSet::default().with(3));
        assert_eq!(a.intersection(&HideSet::default()), HideSet::default());
    }
}
