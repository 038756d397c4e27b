//! Directive lines: conditional inclusion, `#define`/`#undef`, `#include`,
//! `#line`, `#error`/`#warning` and `#pragma`.

use crate::diag::{Diagnostic, FileId, Span};

use super::expand::Stop;
use super::expr;
use super::lexer::{Kind, PpTok};
use super::macros::{parse_define, MacroKind};
use super::process::{Cond, CondState, Pp};
use super::{MatrixPacking, PackMatrix, PragmaKernel};

/// Directives C or GCC define that wavec does not implement.
const UNSUPPORTED: &[&str] = &["include_next", "import", "ident", "sccs", "assert", "unassert"];

fn line_span(line: &[PpTok]) -> Span {
    match (line.first(), line.last()) {
        (Some(a), Some(b)) if b.span.end >= a.span.start => a.span.to(b.span),
        (Some(a), _) => a.span,
        _ => Span::default(),
    }
}

impl Pp<'_> {
    fn current_file(&self) -> Option<FileId> {
        self.stack.last().map(|f| f.file)
    }

    /// `line` is a whole directive line, starting with `#`.
    pub fn directive(&mut self, line: &[PpTok]) -> Result<(), Stop> {
        let whole = line_span(line);
        let Some(name) = line.get(1) else {
            return Ok(()); // the null directive
        };
        let args = &line[2..];
        let skipping = self.skipping();
        if name.kind == Kind::Ident {
            match &*name.text {
                "if" | "ifdef" | "ifndef" => {
                    let state = if skipping {
                        CondState::Done
                    } else if self.condition(&name.text, args, whole)? {
                        CondState::Taking
                    } else {
                        CondState::Waiting
                    };
                    if let Some(f) = self.stack.last_mut() {
                        f.conds.push(Cond { state, else_seen: false, span: whole });
                    }
                    return Ok(());
                }
                "elif" | "elifdef" | "elifndef" | "else" => return self.else_branch(name, args, whole),
                "endif" => {
                    let popped = self.stack.last_mut().and_then(|f| f.conds.pop());
                    match popped {
                        None => self
                            .diags
                            .push(Diagnostic::error("E0126", "`#endif` without `#if`").with_label(whole, "no `#if` is open in this file")),
                        Some(_) if !self.skipping() => self.extra_tokens("endif", args),
                        Some(_) => {}
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        if skipping {
            return Ok(());
        }
        match (name.kind, &*name.text) {
            (Kind::Ident, "define") => self.define(args, whole),
            (Kind::Ident, "undef") => self.undef(args, whole),
            (Kind::Ident, "include") => return self.include(args, whole),
            (Kind::Ident, "line") => return self.line_directive(args, whole),
            (Kind::Number, _) => return self.line_directive(&line[1..], whole),
            (Kind::Ident, "error") => {
                let msg = self.rest_of_line(name, line);
                let shown = if msg.is_empty() { "#error".to_string() } else { format!("#error: {msg}") };
                self.diags.push(Diagnostic::error("E0128", shown).with_label(whole, "`#error` directive"));
            }
            (Kind::Ident, "warning") => {
                let msg = self.rest_of_line(name, line);
                let shown = if msg.is_empty() { "#warning".to_string() } else { format!("#warning: {msg}") };
                self.diags.push(Diagnostic::warning("W0120", shown).with_label(whole, "`#warning` directive"));
            }
            (Kind::Ident, "pragma") => self.pragma(args, whole),
            (Kind::Ident, n) if UNSUPPORTED.contains(&n) => self.diags.push(
                Diagnostic::error("E0135", format!("`#{n}` is not supported"))
                    .with_label(whole, "this directive")
                    .with_note("wavec implements the C99 directives, `#warning`, `#elifdef` and `#elifndef`"),
            ),
            (Kind::Ident, n) => self.diags.push(
                Diagnostic::error("E0120", format!("unknown preprocessor directive `#{n}`")).with_label(name.span, "not a directive"),
            ),
            _ => self.diags.push(
                Diagnostic::error("E0120", format!("malformed preprocessor directive: `#` followed by `{}`", name.text))
                    .with_label(whole, "expected a directive name after `#`"),
            ),
        }
        Ok(())
    }

    /// The raw source text after the directive name, for `#error` messages.
    fn rest_of_line(&self, name: &PpTok, line: &[PpTok]) -> String {
        let Some(last) = line.last() else { return String::new() };
        match self.sources.local(Span { start: name.span.end, end: last.span.end }) {
            Some((id, r)) if last.span.end > name.span.end => {
                let text = &self.sources.get(id).file.text[r];
                // Splices and whitespace runs become single spaces.
                text.replace("\\\r\n", " ").replace("\\\n", " ").replace("\\\r", " ").split_whitespace().collect::<Vec<_>>().join(" ")
            }
            _ => String::new(),
        }
    }

    fn extra_tokens(&mut self, directive: &str, args: &[PpTok]) {
        if !args.is_empty() {
            let span = line_span(args);
            self.diags
                .push(Diagnostic::warning("W0123", format!("extra tokens after `#{directive}` are ignored")).with_label(span, "ignored"));
        }
    }

    /// Evaluates the condition of `#if`/`#ifdef`/`#ifndef`/`#elif...`.
    fn condition(&mut self, directive: &str, args: &[PpTok], whole: Span) -> Result<bool, Stop> {
        match directive {
            "ifdef" | "ifndef" | "elifdef" | "elifndef" => {
                let Some(name) = args.first().filter(|t| t.kind == Kind::Ident) else {
                    self.diags.push(
                        Diagnostic::error("E0124", format!("`#{directive}` needs a macro name"))
                            .with_label(args.first().map_or(whole, |t| t.span), "expected an identifier"),
                    );
                    return Ok(false);
                };
                self.extra_tokens(directive, &args[1..]);
                let defined = self.engine.macros.is_defined(&name.text);
                Ok(defined == directive.ends_with("ifdef"))
            }
            _ => {
                let toks = match self.replace_defined(args) {
                    Ok(t) => t,
                    Err(d) => {
                        self.diags.push(d);
                        return Ok(false);
                    }
                };
                self.engine.in_if = true;
                let expanded = self.engine.expand_list(self.sources, toks, 0);
                self.engine.in_if = false;
                let expanded = expanded?;
                self.diags.append(&mut self.engine.errors);
                let macros = &self.engine.macros;
                match expr::evaluate(&expanded, whole, &|n| macros.is_defined(n)) {
                    Ok(v) => Ok(v.is_true()),
                    Err(d) => {
                        self.diags.push(d);
                        Ok(false)
                    }
                }
            }
        }
    }

    /// `defined X` and `defined ( X )` become `1` or `0` before macro expansion.
    fn replace_defined(&self, args: &[PpTok]) -> Result<Vec<PpTok>, Diagnostic> {
        let mut out = Vec::with_capacity(args.len());
        let mut i = 0;
        while i < args.len() {
            let t = &args[i];
            if !t.is_ident("defined") {
                out.push(t.clone());
                i += 1;
                continue;
            }
            let paren = args.get(i + 1).is_some_and(|x| x.is("("));
            let name_at = if paren { i + 2 } else { i + 1 };
            let Some(name) = args.get(name_at).filter(|x| x.kind == Kind::Ident) else {
                let at = args.get(name_at).map_or(t.span, |x| x.span);
                return Err(Diagnostic::error("E0124", "`defined` needs a macro name").with_label(at, "expected an identifier"));
            };
            let mut end = name_at + 1;
            if paren {
                if !args.get(end).is_some_and(|x| x.is(")")) {
                    let at = args.get(end).map_or(name.span, |x| x.span);
                    return Err(Diagnostic::error("E0124", "missing `)` after `defined(NAME`").with_label(at, "expected `)`"));
                }
                end += 1;
            }
            let value = if self.engine.macros.is_defined(&name.text) { "1" } else { "0" };
            let mut v = PpTok::made(Kind::Number, value, t.span, t.origin);
            v.flags = t.flags;
            out.push(v);
            i = end;
        }
        Ok(out)
    }

    fn else_branch(&mut self, name: &PpTok, args: &[PpTok], whole: Span) -> Result<(), Stop> {
        let directive = name.text.clone();
        let is_else = &*directive == "else";
        let Some(cond) = self.stack.last().and_then(|f| f.conds.last()) else {
            self.diags.push(
                Diagnostic::error("E0126", format!("`#{directive}` without `#if`")).with_label(whole, "no `#if` is open in this file"),
            );
            return Ok(());
        };
        if cond.else_seen {
            let first = cond.span;
            self.diags.push(
                Diagnostic::error("E0126", format!("`#{directive}` after `#else`"))
                    .with_label(whole, "this comes after the `#else`")
                    .with_label(first, "in this conditional"),
            );
            return Ok(());
        }
        let state = cond.state;
        let new_state = match state {
            CondState::Taking | CondState::Done => CondState::Done,
            CondState::Waiting if is_else => CondState::Taking,
            CondState::Waiting => {
                // `elif` -> `if`, `elifdef` -> `ifdef`, `elifndef` -> `ifndef`.
                if self.condition(&directive[2..], args, whole)? {
                    CondState::Taking
                } else {
                    CondState::Waiting
                }
            }
        };
        if is_else && new_state == CondState::Taking {
            self.extra_tokens("else", args);
        }
        if let Some(c) = self.stack.last_mut().and_then(|f| f.conds.last_mut()) {
            c.state = new_state;
            c.else_seen |= is_else;
        }
        Ok(())
    }

    fn define(&mut self, args: &[PpTok], whole: Span) {
        let m = match parse_define(args, whole) {
            Ok(m) => m,
            Err(d) => {
                self.diags.push(d);
                return;
            }
        };
        let span = m.def_span;
        let name = m.name.clone();
        if let Some(old) = self.engine.macros.define(m.clone()) {
            if matches!(old.kind, MacroKind::Builtin(_)) {
                self.diags.push(
                    Diagnostic::warning("W0122", format!("redefining the builtin macro `{name}`")).with_label(span, "redefined here"),
                );
            } else if !old.same_definition(&m) {
                self.diags.push(
                    Diagnostic::warning("W0122", format!("macro `{name}` redefined differently"))
                        .with_label(span, "redefined here")
                        .with_label(old.def_span, "previous definition"),
                );
            }
        }
    }

    fn undef(&mut self, args: &[PpTok], whole: Span) {
        let Some(name) = args.first().filter(|t| t.kind == Kind::Ident) else {
            self.diags.push(
                Diagnostic::error("E0121", "`#undef` needs a macro name")
                    .with_label(args.first().map_or(whole, |t| t.span), "expected an identifier"),
            );
            return;
        };
        if &*name.text == "defined" {
            self.diags.push(Diagnostic::error("E0121", "`defined` cannot be undefined").with_label(name.span, "reserved"));
            return;
        }
        self.extra_tokens("undef", &args[1..]);
        if let Some(old) = self.engine.macros.undefine(&name.text) {
            if matches!(old.kind, MacroKind::Builtin(_)) {
                self.diags.push(
                    Diagnostic::warning("W0122", format!("undefining the builtin macro `{}`", name.text)).with_label(name.span, "here"),
                );
            }
        }
    }

    fn include(&mut self, args: &[PpTok], whole: Span) -> Result<(), Stop> {
        let expanded;
        let toks = match args.first() {
            Some(t) if t.kind == Kind::Str || t.is("<") => args,
            Some(_) => {
                expanded = self.engine.expand_list(self.sources, args.to_vec(), 0)?;
                self.diags.append(&mut self.engine.errors);
                &expanded[..]
            }
            None => &[][..],
        };
        let Some((name, angled, used)) = self.header_name(toks) else {
            self.diags.push(
                Diagnostic::error("E0129", "malformed `#include`: expected \"FILE\" or <FILE>")
                    .with_label(whole, "no file name")
                    .with_note("a macro may expand to the file name, but it must then be a string or a `<...>` sequence"),
            );
            return Ok(());
        };
        if toks.len() > used {
            self.extra_tokens("include", &toks[used..]);
        }
        if name.is_empty() {
            self.diags.push(Diagnostic::error("E0129", "empty file name in `#include`").with_label(whole, "here"));
            return Ok(());
        }
        let max_depth = self.limits.include_depth;
        if self.stack.len() as u64 > max_depth {
            let chain = self.include_chain();
            // Fatal: every open file would try again.
            return Err(Stop(
                Diagnostic::error("E0131", format!("`#include` nested more than {max_depth} deep"))
                    .with_label(whole, format!("including `{name}` here"))
                    .with_note(describe_chain(&chain))
                    .with_note("the `include-depth` limit; `--limit include-depth=N` changes it"),
            ));
        }
        let Some(from) = self.current_file() else { return Ok(()) };
        let origin = self.files[from.0 as usize].origin.clone();
        let Some(found) = self.resolver.resolve(&name, angled, &origin) else {
            let places = self.resolver.searched(angled, &origin);
            self.diags.push(
                Diagnostic::error("E0130", format!("cannot find include file `{name}`"))
                    .with_label(whole, "not found")
                    .with_note(format!("searched: {}", places.join(", "))),
            );
            return Ok(());
        };
        let id = match self.by_key.get(&found.key) {
            Some(&id) => id,
            None => match self.resolver.load(&found, whole) {
                Ok(file) => self.add_file(file, Some(whole), found.key.clone(), found.origin.clone()),
                Err(d) => {
                    self.diags.push(d);
                    return Ok(());
                }
            },
        };
        if self.files[id.0 as usize].once {
            return Ok(());
        }
        self.includes += 1;
        let max = self.limits.includes;
        if self.includes > max {
            // Fatal: a header included twice by each header it includes makes
            // exponentially many inclusions from a few tiny files.
            return Err(Stop(
                Diagnostic::error("E0136", format!("more than {max} `#include`s in one compilation"))
                    .with_label(whole, format!("including `{name}` here"))
                    .with_note(describe_chain(&self.include_chain()))
                    .with_note(format!("the `includes` limit; `--limit includes=N` raises it (now {max})")),
            ));
        }
        self.out.newline();
        self.push_file(id, true);
        Ok(())
    }

    /// The name in `"name"` or `<name>` at the start of `toks`: (name, angled, tokens used).
    fn header_name(&self, toks: &[PpTok]) -> Option<(String, bool, usize)> {
        let first = toks.first()?;
        if first.kind == Kind::Str {
            let inner = first.text.strip_prefix('"')?.strip_suffix('"')?;
            return Some((inner.to_string(), false, 1));
        }
        if !first.is("<") {
            return None;
        }
        let close = toks.iter().position(|t| t.is(">"))?;
        let (lt, gt) = (&toks[0], &toks[close]);
        // Written as is: the raw text between the brackets; from a macro: the spellings.
        let raw = (lt.verbatim() && gt.verbatim() && lt.file == gt.file)
            .then(|| self.sources.local(Span { start: lt.span.end, end: gt.span.start }))
            .flatten()
            .map(|(id, r)| self.sources.get(id).file.text[r].to_string());
        let name = raw.unwrap_or_else(|| {
            toks[1..close]
                .iter()
                .enumerate()
                .map(|(i, t)| if i > 0 && t.ws() { format!(" {}", t.text) } else { t.text.to_string() })
                .collect()
        });
        Some((name.trim().to_string(), true, close + 1))
    }

    fn line_directive(&mut self, args: &[PpTok], whole: Span) -> Result<(), Stop> {
        let toks = self.engine.expand_list(self.sources, args.to_vec(), 0)?;
        self.diags.append(&mut self.engine.errors);
        let bad = |msg: &str, at: Span| Diagnostic::error("E0132", format!("malformed `#line`: {msg}")).with_label(at, "here");
        let Some(num) = toks.first() else {
            self.diags.push(bad("expected a line number", whole));
            return Ok(());
        };
        let line = match num.text.parse::<u32>() {
            Ok(n) if num.kind == Kind::Number && num.text.bytes().all(|b| b.is_ascii_digit()) && n <= 2_147_483_647 => n,
            _ => {
                self.diags.push(bad(&format!("`{}` is not a line number (a decimal 0..2147483647)", num.text), num.span));
                return Ok(());
            }
        };
        let mut name = None;
        let mut used = 1;
        if let Some(s) = toks.get(1) {
            if s.kind != Kind::Str {
                self.diags.push(bad(&format!("expected a file name in quotes, found `{}`", s.text), s.span));
                return Ok(());
            }
            name = s.text.strip_prefix('"').and_then(|x| x.strip_suffix('"')).map(unescape);
            used = 2;
        }
        // GNU line markers (`# 12 "file" 1 3`) carry flags; `#line` may not.
        let is_marker = args.first().is_some_and(|t| t.kind == Kind::Number);
        if !is_marker && toks.len() > used {
            self.extra_tokens("line", &toks[used..]);
        }
        let Some(id) = self.current_file() else { return Ok(()) };
        let end = args.last().map_or(whole.end, |t| t.span.end);
        if let Some((_, physical)) = self.sources.line_of(end) {
            self.sources.add_line_mark(id, physical + 1, line, name);
        }
        Ok(())
    }

    fn pragma(&mut self, args: &[PpTok], whole: Span) {
        let Some(first) = args.first() else { return };
        match &*first.text {
            "once" => {
                if let Some(id) = self.current_file() {
                    self.files[id.0 as usize].once = true;
                }
                self.extra_tokens("pragma once", &args[1..]);
            }
            "kernel" => match args.get(1).filter(|t| t.kind == Kind::Ident) {
                Some(name) => {
                    // A stray `;` after the name (`#pragma kernel Main;`) is ignored, as Unity does.
                    let defines = args[2..].iter().filter(|t| &*t.text != ";").fold(Vec::<String>::new(), |mut v, t| {
                        // `A=1` arrives as three tokens: glue those not separated by whitespace,
                        // and `A = 1` too (Unity accepts spaces around the `=`).
                        match v.last_mut() {
                            Some(last) if !t.ws() || &*t.text == "=" || last.ends_with('=') => last.push_str(&t.text),
                            _ => v.push(t.text.to_string()),
                        }
                        v
                    });
                    self.kernels.push(PragmaKernel { name: name.text.to_string(), span: name.span, defines });
                }
                None => self.diags.push(
                    Diagnostic::error("E0133", "`#pragma kernel` needs a kernel name")
                        .with_label(args.get(1).map_or(whole, |t| t.span), "expected the name of a function"),
                ),
            },
            "pack_matrix" => {
                let packing = match args.get(1..) {
                    Some([l, p, r, ..]) if l.is("(") && r.is(")") && p.is_ident("row_major") => Some(MatrixPacking::RowMajor),
                    Some([l, p, r, ..]) if l.is("(") && r.is(")") && p.is_ident("column_major") => Some(MatrixPacking::ColumnMajor),
                    _ => None,
                };
                match packing {
                    Some(packing) => {
                        let offset = self.out.len();
                        self.pack_matrix.push(PackMatrix { packing, span: whole, offset });
                        self.extra_tokens("pragma pack_matrix(...)", &args[4..]);
                    }
                    None => self.diags.push(
                        Diagnostic::error("E0133", "malformed `#pragma pack_matrix`")
                            .with_label(whole, "expected `pack_matrix(row_major)` or `pack_matrix(column_major)`"),
                    ),
                }
            }
            // DXC accepts and ignores `#pragma warning(...)`; so do we, quietly.
            "warning" => {}
            other => self.diags.push(
                Diagnostic::note("W0121", format!("`#pragma {other}` is ignored"))
                    .with_label(line_span(args), "ignored")
                    .with_note("wavec acts on `#pragma once`, `#pragma kernel NAME` and `#pragma pack_matrix(...)`"),
            ),
        }
    }
}

/// "a.hlsl -> b.hlsli -> a.hlsl -> ..." up to the first file that repeats.
fn describe_chain(chain: &[String]) -> String {
    for j in 0..chain.len() {
        if chain[..j].contains(&chain[j]) {
            return format!("include cycle: {} -> ... (add `#pragma once` or an include guard)", chain[..=j].join(" -> "));
        }
    }
    let shown: Vec<&str> = chain.iter().take(8).map(String::as_str).collect();
    format!("include chain: {}{}", shown.join(" -> "), if chain.len() > 8 { " -> ..." } else { "" })
}

/// Undoes `\\` and `\"` in a `#line` file name.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_show_the_cycle_once() {
        let c: Vec<String> = ["m.hlsl", "a.h", "b.h", "a.h", "b.h", "a.h"].iter().map(|s| s.to_string()).collect();
        assert_eq!(describe_chain(&c), "include cycle: m.hlsl -> a.h -> b.h -> a.h -> ... (add `#pragma once` or an include guard)");
        let c: Vec<String> = ["m.hlsl", "a.h"].iter().map(|s| s.to_string()).collect();
        assert_eq!(describe_chain(&c), "include chain: m.hlsl -> a.h");
    }
}
