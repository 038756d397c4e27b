//! Macro expansion with hide sets (Dave Prosser's algorithm, the one the C
//! standard's examples are written against): a token that names a macro in its
//! own hide set is "painted blue" and never expands again; an expansion's
//! tokens get the invocation's hide set (for a function-like macro, the name's
//! intersected with the closing parenthesis's) plus the macro itself.
//!
//! Arguments are fully expanded before substitution, except next to `#` or
//! `##`; `##` works on placemarkers for empty arguments (C99 6.10.3.3), and
//! `, ## __VA_ARGS__` drops the comma when no variadic arguments are given (the
//! GNU extension DXC accepts). Expansion is iterative over a token stream;
//! only argument pre-expansion recurses. The limits ([`crate::limits::Limits`])
//! are checked before the work they bound: macros nested in arguments and in
//! one expansion (`macro-depth`: a token's hide set holds the macros it was
//! made in), tokens made (`pp-tokens`) and bytes of new token text made by
//! `##` and `#` (`pp-text`: a paste is refused before its text is allocated,
//! so nested pastes that double a token cannot take gigabytes first).

use std::rc::Rc;

use crate::diag::{Diagnostic, Sources, Span};

use super::lexer::{single_token, HideSet, Kind, PpTok, NO_ORIGIN, WS};
use super::macros::{BodyItem, Builtin, Macro, MacroKind, MacroTable};

/// A limit was hit: preprocessing stops with this error.
#[derive(Debug)]
pub struct Stop(pub Diagnostic);

/// One outermost macro invocation written in a file.
#[derive(Clone, Debug)]
pub struct Record {
    pub macro_name: Rc<str>,
    /// Name through closing parenthesis, where it was written.
    pub span: Span,
    /// The macro's name in its `#define`.
    pub def_span: Span,
}

/// Where an expansion reads its tokens from.
pub trait TokenStream {
    fn next(&mut self) -> Option<PpTok>;
    fn peek(&self) -> Option<&PpTok>;
    fn push_front(&mut self, toks: Vec<PpTok>);
}

/// A finite list of tokens (an argument, an `#if` line).
pub struct ListStream {
    /// Reversed: the next token is last.
    rev: Vec<PpTok>,
}

impl ListStream {
    pub fn new(mut toks: Vec<PpTok>) -> ListStream {
        toks.reverse();
        ListStream { rev: toks }
    }
}

impl TokenStream for ListStream {
    fn next(&mut self) -> Option<PpTok> {
        self.rev.pop()
    }
    fn peek(&self) -> Option<&PpTok> {
        self.rev.last()
    }
    fn push_front(&mut self, toks: Vec<PpTok>) {
        self.rev.extend(toks.into_iter().rev());
    }
}

enum Item {
    T(PpTok),
    Placemarker,
    Paste,
}

pub struct Engine {
    pub macros: MacroTable,
    pub records: Vec<Record>,
    /// Errors that do not stop preprocessing (bad pastes, wrong argument counts).
    pub errors: Vec<Diagnostic>,
    /// Expanding an `#if` line: the operand of a `defined` that an expansion
    /// produced is not expanded (as Clang, and so DXC, does).
    pub in_if: bool,
    /// Tokens and bytes of new token text made so far (the `pp-tokens` and `pp-text` limits).
    made: u64,
    made_text: u64,
    limits: crate::limits::Limits,
}

impl Engine {
    pub fn new(limits: crate::limits::Limits) -> Engine {
        Engine { macros: MacroTable::default(), records: Vec::new(), errors: Vec::new(), in_if: false, made: 0, made_text: 0, limits }
    }

    /// Counts `bytes` of new token text about to be made at `span` (in an
    /// expansion of `name`); past the `pp-text` limit, stops before making it.
    fn make_text(&mut self, bytes: usize, span: Span, name: &str) -> Result<(), Stop> {
        self.made_text = self.made_text.saturating_add(bytes as u64);
        let max = self.limits.pp_text_bytes;
        if self.made_text > max {
            return Err(Stop(
                Diagnostic::error(
                    "E0134",
                    format!("macro expansion would make more than {} of token text", crate::limits::show_bytes(max)),
                )
                .with_label(span, format!("while expanding `{name}`"))
                .with_note("`##` pastes and `#` strings make new text; pastes of pastes double it at each level")
                .with_note(format!("the `pp-text` limit; `--limit pp-text=N` raises it (now {})", crate::limits::show(max, true))),
            ));
        }
        Ok(())
    }

    /// An expansion of `name` at `span` is making `n` more tokens: past the
    /// `pp-tokens` limit, stops.
    fn check_made(&self, n: usize, span: Span, origin: u32, name: &Rc<str>) -> Result<(), Stop> {
        let max = self.limits.pp_tokens;
        if self.made.saturating_add(n as u64) > max {
            let outer = self.records.get(origin as usize).map_or(name, |r| &r.macro_name);
            return Err(Stop(
                Diagnostic::error("E0134", format!("macro expansion made more than {max} tokens"))
                    .with_label(span, format!("while expanding `{outer}`"))
                    .with_note("a macro that expands to several copies of another grows exponentially")
                    .with_note(format!("the `pp-tokens` limit; `--limit pp-tokens=N` raises it (now {max})")),
            ));
        }
        Ok(())
    }

    /// The expansion of `name` (at `at`) gives its tokens hide set `hs`: past
    /// the `macro-depth` limit of macros nested in one expansion, stops.
    fn check_nesting(&self, hs: &HideSet, at: Span, name: &str) -> Result<(), Stop> {
        let max = self.limits.macro_depth;
        if hs.len() as u64 > max {
            return Err(Stop(
                Diagnostic::error("E0134", format!("macros nested more than {max} deep in one expansion"))
                    .with_label(at, format!("while expanding `{name}`"))
                    .with_note(format!("the `macro-depth` limit; `--limit macro-depth=N` raises it (now {max})")),
            ));
        }
        Ok(())
    }

    /// Expands everything `stream` yields into `sink`.
    pub fn expand(
        &mut self,
        sources: &Sources,
        stream: &mut dyn TokenStream,
        sink: &mut dyn FnMut(PpTok) -> Result<(), Stop>,
        depth: usize,
    ) -> Result<(), Stop> {
        while let Some(tok) = stream.next() {
            if self.in_if && tok.is_ident("defined") {
                let paren = stream.peek().is_some_and(|t| t.is("("));
                sink(tok)?;
                for _ in 0..if paren { 3 } else { 1 } {
                    match stream.next() {
                        Some(t) => sink(t)?,
                        None => break,
                    }
                }
                continue;
            }
            let id = match tok.kind {
                Kind::Ident => self.macros.lookup(&tok.text),
                _ => None,
            };
            let Some(id) = id.filter(|&id| !tok.hide.contains(id)) else {
                if tok.is_ident("_Pragma") {
                    self.errors.push(
                        Diagnostic::error("E0135", "the `_Pragma` operator is not supported")
                            .with_label(tok.span, "here")
                            .with_note("write the pragma as a `#pragma` line"),
                    );
                }
                sink(tok)?;
                continue;
            };
            let Some(m) = self.macros.get(id).cloned() else {
                sink(tok)?;
                continue;
            };
            match &m.kind {
                MacroKind::Builtin(b) => sink(self.builtin(*b, &tok, sources))?,
                MacroKind::Object => {
                    let (span, origin) = self.origin_for(&m, &tok, tok.span);
                    let hs = tok.hide.with(id);
                    self.check_nesting(&hs, span, &m.name)?;
                    let body = self.substitute(sources, &m, &[], &hs, span, origin, tok.ws(), depth)?;
                    stream.push_front(body);
                }
                MacroKind::Function { params, variadic } => {
                    if !stream.peek().is_some_and(|t| t.is("(")) {
                        sink(tok)?;
                        continue;
                    }
                    let Some((args, rparen)) = self.collect_args(stream, &tok, params.len(), *variadic) else {
                        continue;
                    };
                    let whole =
                        if sources.file_of(tok.span.start) == sources.file_of(rparen.span.start) && rparen.span.end >= tok.span.start {
                            tok.span.to(rparen.span)
                        } else {
                            tok.span
                        };
                    let (span, origin) = self.origin_for(&m, &tok, whole);
                    let hs = tok.hide.intersection(&rparen.hide).with(id);
                    self.check_nesting(&hs, span, &m.name)?;
                    let body = self.substitute(sources, &m, &args, &hs, span, origin, tok.ws(), depth)?;
                    stream.push_front(body);
                }
            }
        }
        Ok(())
    }

    /// Expands a finite token list on its own (an argument, an `#if` or `#include` line).
    pub fn expand_list(&mut self, sources: &Sources, toks: Vec<PpTok>, depth: usize) -> Result<Vec<PpTok>, Stop> {
        let max = self.limits.macro_depth;
        if depth as u64 > max {
            let at = toks.first().map_or(Span::default(), |t| t.span);
            return Err(Stop(
                Diagnostic::error("E0134", format!("macro invocations nested more than {max} deep in macro arguments"))
                    .with_label(at, "while expanding this")
                    .with_note(format!("the `macro-depth` limit; `--limit macro-depth=N` raises it (now {max})")),
            ));
        }
        let mut out = Vec::with_capacity(toks.len());
        let mut stream = ListStream::new(toks);
        self.expand(
            sources,
            &mut stream,
            &mut |t| {
                out.push(t);
                Ok(())
            },
            depth,
        )?;
        Ok(out)
    }

    /// The span and origin record for the tokens of an expansion of `m` at `name`:
    /// a new record for an invocation written in a file, else the enclosing one.
    fn origin_for(&mut self, m: &Macro, name: &PpTok, whole: Span) -> (Span, u32) {
        if name.origin != NO_ORIGIN {
            return (name.span, name.origin);
        }
        self.records.push(Record { macro_name: m.name.clone(), span: whole, def_span: m.def_span });
        (whole, self.records.len() as u32 - 1)
    }

    fn builtin(&self, b: Builtin, tok: &PpTok, sources: &Sources) -> PpTok {
        let here = sources.presumed(tok.span.start);
        let mut t = match b {
            Builtin::Line => PpTok::made(Kind::Number, here.map_or(0, |p| p.line).to_string(), tok.span, tok.origin),
            Builtin::File => {
                let name = here.map_or(String::new(), |p| p.name);
                PpTok::made(Kind::Str, format!("\"{}\"", escape(&name)), tok.span, tok.origin)
            }
        };
        t.flags = tok.flags & WS;
        t.hide = tok.hide.clone();
        t
    }

    /// Reads `( args )` after a function-like macro's name. `None` (with an
    /// error recorded) when the list is unterminated or the count is wrong.
    fn collect_args(
        &mut self,
        stream: &mut dyn TokenStream,
        name: &PpTok,
        nparams: usize,
        variadic: bool,
    ) -> Option<(Vec<Vec<PpTok>>, PpTok)> {
        let lparen = stream.next()?;
        let mut args: Vec<Vec<PpTok>> = vec![Vec::new()];
        let mut depth = 0usize;
        let mut last = lparen.span;
        let rparen = loop {
            let Some(t) = stream.next() else {
                self.errors.push(
                    Diagnostic::error("E0122", format!("unterminated argument list invoking macro `{}`", name.text))
                        .with_label(name.span, "this invocation")
                        .with_label(last, "the arguments end here without a `)`")
                        .with_note("macro arguments end at the end of the file or at a preprocessor directive"),
                );
                return None;
            };
            last = t.span;
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                if depth == 0 {
                    break t;
                }
                depth -= 1;
            } else if t.is(",") && depth == 0 && !(variadic && args.len() == nparams) {
                args.push(Vec::new());
                continue;
            }
            args.last_mut()?.push(t);
        };
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if variadic && args.len() + 1 == nparams {
            args.push(Vec::new());
        }
        if args.len() != nparams {
            let expected = if variadic { format!("at least {}", nparams - 1) } else { nparams.to_string() };
            self.errors.push(
                Diagnostic::error(
                    "E0122",
                    format!(
                        "macro `{}` takes {expected} argument{}, but {} were given",
                        name.text,
                        if nparams == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .with_label(name.span.to(rparen.span), "in this invocation"),
            );
            return None;
        }
        Some((args, rparen))
    }

    /// The replacement list of `m` with `args` substituted, pastes done and
    /// `hs` added to every token's hide set.
    #[allow(clippy::too_many_arguments)]
    fn substitute(
        &mut self,
        sources: &Sources,
        m: &Macro,
        args: &[Vec<PpTok>],
        hs: &HideSet,
        span: Span,
        origin: u32,
        leading_ws: bool,
        depth: usize,
    ) -> Result<Vec<PpTok>, Stop> {
        let body = &m.body;
        let va = match &m.kind {
            MacroKind::Function { params, variadic: true } => Some(params.len() - 1),
            _ => None,
        };
        let mut expanded: Vec<Option<Vec<PpTok>>> = vec![None; args.len()];
        let mut items: Vec<Item> = Vec::with_capacity(body.len());
        let made = |t: &PpTok, ws: bool| {
            let mut n = PpTok::made(t.kind, t.text.clone(), span, origin);
            n.flags = if ws { WS } else { 0 };
            n
        };
        let arg_tok = |t: &PpTok, first: bool, ws: bool| {
            let mut n = t.clone();
            n.flags = (n.flags & !(WS | super::lexer::BOL))
                | if first {
                    if ws {
                        WS
                    } else {
                        0
                    }
                } else {
                    t.flags & WS
                };
            n
        };
        let mut k = 0;
        while k < body.len() {
            let pasted = matches!(body.get(k + 1), Some(BodyItem::Paste)) || (k > 0 && matches!(body[k - 1], BodyItem::Paste));
            match &body[k] {
                BodyItem::Tok(t) => {
                    // `, ## __VA_ARGS__`: the comma goes when there are no variadic arguments.
                    if let (true, Some(BodyItem::Paste), Some(BodyItem::Param { index, .. })) =
                        (t.is(","), body.get(k + 1), body.get(k + 2))
                    {
                        if Some(*index) == va {
                            let arg = args.get(*index).map_or(&[][..], |a| &a[..]);
                            if !arg.is_empty() {
                                items.push(Item::T(made(t, t.ws())));
                                items.extend(arg.iter().enumerate().map(|(i, a)| Item::T(arg_tok(a, i == 0, false))));
                            }
                            k += 3;
                            continue;
                        }
                    }
                    items.push(Item::T(made(t, t.ws())));
                }
                BodyItem::Paste => items.push(Item::Paste),
                BodyItem::Stringize { index, ws } => {
                    let arg = args.get(*index).map_or(&[][..], |a| &a[..]);
                    // At most twice the argument's text (escapes), plus spaces and quotes.
                    let bound = arg.iter().map(|t| 2 * t.text.len() + 1).sum::<usize>() + 2;
                    self.make_text(bound, span, &m.name)?;
                    let mut s = PpTok::made(Kind::Str, stringize(arg), span, origin);
                    s.flags = if *ws { WS } else { 0 };
                    items.push(Item::T(s));
                }
                BodyItem::Param { index, ws } => {
                    let arg = args.get(*index).map_or(&[][..], |a| &a[..]);
                    if pasted {
                        if arg.is_empty() {
                            items.push(Item::Placemarker);
                        }
                        items.extend(arg.iter().enumerate().map(|(i, a)| Item::T(arg_tok(a, i == 0, *ws))));
                    } else {
                        if expanded[*index].is_none() {
                            expanded[*index] = Some(self.expand_list(sources, arg.to_vec(), depth + 1)?);
                        }
                        let exp = expanded[*index].as_deref().unwrap_or(&[]);
                        items.extend(exp.iter().enumerate().map(|(i, a)| Item::T(arg_tok(a, i == 0, *ws))));
                    }
                    // A parameter used many times copies its argument as often: counted as it grows.
                    self.check_made(items.len(), span, origin, &m.name)?;
                }
            }
            k += 1;
        }
        let mut out: Vec<PpTok> = Vec::with_capacity(items.len());
        let mut pending_pm = false; // the last item pushed was a placemarker
        let mut iter = items.into_iter().peekable();
        while let Some(item) = iter.next() {
            match item {
                Item::T(t) => {
                    out.push(t);
                    pending_pm = false;
                }
                Item::Placemarker => pending_pm = true,
                Item::Paste => {
                    let rhs = match iter.peek() {
                        Some(Item::Paste) | None => continue,
                        Some(_) => iter.next(),
                    };
                    match (pending_pm, rhs) {
                        (_, Some(Item::Placemarker)) => {}
                        (true, Some(Item::T(r))) => {
                            out.push(r);
                            pending_pm = false;
                        }
                        (false, Some(Item::T(r))) => match out.pop() {
                            Some(l) => {
                                self.make_text(l.text.len() + r.text.len(), span, &m.name)?;
                                for t in self.paste(l, r, span, origin) {
                                    out.push(t);
                                }
                            }
                            None => out.push(r),
                        },
                        _ => {}
                    }
                }
            }
        }
        self.check_made(out.len(), span, origin, &m.name)?;
        self.made += out.len() as u64;
        // Hide sets: tokens sharing one input set share the output set.
        let mut cache: Option<(HideSet, HideSet)> = None;
        for t in &mut out {
            let new = match &cache {
                Some((from, to)) if from.same(&t.hide) => to.clone(),
                _ => {
                    let to = t.hide.union(hs);
                    cache = Some((t.hide.clone(), to.clone()));
                    to
                }
            };
            t.hide = new;
        }
        if let Some(first) = out.first_mut() {
            first.flags = (first.flags & !WS) | if leading_ws { WS } else { 0 };
        }
        Ok(out)
    }

    /// `l ## r`: one token, or both (with E0123) if their spelling is not one token.
    fn paste(&mut self, l: PpTok, r: PpTok, span: Span, origin: u32) -> Vec<PpTok> {
        let text = format!("{}{}", l.text, r.text);
        match single_token(&text) {
            Some(kind) => {
                let mut t = PpTok::made(kind, text, span, origin);
                t.flags = l.flags & WS;
                vec![t]
            }
            None => {
                self.errors.push(
                    Diagnostic::error("E0123", format!("pasting `{}` and `{}` does not give a valid preprocessing token", l.text, r.text))
                        .with_label(span, "in this expansion"),
                );
                vec![l, r]
            }
        }
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(crate::limits::Limits::default())
    }
}

/// `"..."` spelling of `toks` (C99 6.10.3.2): one space where there was
/// whitespace, `\` and `"` escaped inside string and character literals.
pub fn stringize(toks: &[PpTok]) -> String {
    let mut s = String::from("\"");
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.ws() {
            s.push(' ');
        }
        match t.kind {
            Kind::Str | Kind::Char => s.push_str(&escape(&t.text)),
            _ => s.push_str(&t.text),
        }
    }
    s.push('"');
    s
}

/// Escapes `\` and `"` for inclusion in a string literal.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
