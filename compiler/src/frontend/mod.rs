//! Front end: lexing ([`lexer`], hand written), parsing (LALRPOP grammar
//! `grammar.lalrpop` into [`ast`]) and semantic analysis ([`sema`] into the
//! typed AST [`tast`], which documents its invariants).
//!
//! Error codes (stable; listed in docs/diagnostics.md): E01xx lexing and
//! parsing, E02xx names and types, E03xx constructs recognised but not
//! supported yet; warnings W02xx.
//!
//! Parsing stops at the first lexing or syntax error; semantic analysis goes
//! on after errors and reports all it finds. No input makes the front end
//! panic: nesting is capped (E0105, see [`ast::MAX_DEPTH`]).

pub mod ast;
pub mod layout;
pub mod lexer;
mod prelude;
mod sema;
pub mod tast;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused, unused_qualifications, dead_code)]
    grammar,
    "/frontend/grammar.rs"
);

use crate::diag::{Diagnostic, SourceFile, Span};
use lalrpop_util::ParseError;
use lexer::{LexError, Lexer, Tok};

pub use sema::{FrontendOptions, MAX_NUMTHREADS, MAX_THREADS};

/// Parses a file into an untyped AST. Reports the first lexing or syntax error.
/// Over-deep nesting is not an error here: it leaves `TooDeep` nodes in the
/// tree, which [`analyze`] reports (E0105).
pub fn parse(file: &SourceFile) -> Result<ast::TranslationUnit, Vec<Diagnostic>> {
    // Lex up front: the parser then sees tokens up to the first lexing error,
    // so whichever error comes first in the file is reported.
    let user_types = lexer::user_type_names(&file.text);
    let mut toks: Vec<Result<(usize, Tok<'_>, usize), LexError>> = Vec::new();
    for t in Lexer::with_user_types(&file.text, &user_types) {
        let stop = t.is_err();
        toks.push(t);
        if stop {
            break;
        }
    }
    let spans: Vec<(usize, usize)> = toks.iter().filter_map(|t| t.as_ref().ok().map(|(l, _, r)| (*l, *r))).collect();
    let parser = grammar::TranslationUnitParser::new();
    parser.parse(toks).map_err(|e| vec![syntax_error(file, &spans, e)])
}

/// Parses and analyses a file. `entry` names the entry point when the file
/// has several. On success returns the typed module and the warnings; on
/// failure all diagnostics (errors and warnings, in the order found).
pub fn analyze(file: &SourceFile, entry: Option<&str>) -> Result<(tast::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    analyze_with(file, &FrontendOptions { entry: entry.map(str::to_string), ..FrontendOptions::default() })
}

/// Parses and analyses a file with full front-end options.
pub fn analyze_with(file: &SourceFile, opts: &FrontendOptions) -> Result<(tast::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let tu = parse(file)?;
    let end = file.text.trim_end().len();
    let prelude = prelude::parsed(opts.native_16bit);
    sema::Sema::new(opts.clone()).run(prelude, &tu, Span::new(end, end))
}

/// How an expected terminal (as LALRPOP names it) reads in a message.
fn describe_expected(names: &[String]) -> String {
    const SHOWN: &[&str] = &[";", ",", ")", "]", "}", ":", "{", "=", "while"];
    let mut words: Vec<String> = Vec::new();
    let mut operators = Vec::new();
    let mut keywords = Vec::new();
    let push = |w: String, words: &mut Vec<String>| {
        if !words.contains(&w) {
            words.push(w);
        }
    };
    for n in names {
        match n.as_str() {
            "Ident" => push("an identifier".into(), &mut words),
            "TypeName" => push("a type".into(), &mut words),
            "ResourceName" => push("a resource type".into(), &mut words),
            "IntLit" | "FloatLit" | "StrLit" => push("a literal".into(), &mut words),
            "Modifier" => keywords.push("a modifier".into()),
            "TemplateLt" | "TemplateGt" => operators.push("`<`".into()),
            quoted => {
                let t = quoted.trim_matches('"');
                if SHOWN.contains(&t) {
                    push(format!("`{t}`"), &mut words);
                } else if t.chars().all(|c| c.is_ascii_alphabetic()) {
                    keywords.push(format!("`{t}`"));
                } else {
                    operators.push(format!("`{t}`"));
                }
            }
        }
    }
    // Punctuation first, then words; long operator/keyword lists are summarised.
    words.sort_by_key(|w| !w.starts_with('`'));
    if keywords.len() > 3 {
        words.push("a statement".into());
    } else {
        words.extend(keywords);
    }
    if operators.len() > 3 {
        words.push("an operator".into());
    } else {
        words.extend(operators);
    }
    match words.len() {
        0 => "something else".into(),
        1 => words.remove(0),
        _ => {
            let last = words.pop().unwrap_or_default();
            format!("{} or {last}", words.join(", "))
        }
    }
}

fn syntax_error(file: &SourceFile, spans: &[(usize, usize)], e: ParseError<usize, Tok<'_>, LexError>) -> Diagnostic {
    let prev_end = |loc: usize| spans.iter().rev().find(|(_, r)| *r <= loc).map(|(l, r)| (*l, *r));
    match e {
        ParseError::User { error } => error.0,
        ParseError::InvalidToken { location } => {
            Diagnostic::error("E0101", "invalid token").with_label(Span::new(location, location + 1), "not valid here")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let end = file.text.len();
            let mut d = Diagnostic::error("E0111", "unexpected end of file")
                .with_label(Span::new(location.min(end), end), format!("expected {}", describe_expected(&expected)));
            if let Some((l, r)) = prev_end(location) {
                if expected.iter().any(|x| x == "\"}\"") {
                    d = d.with_label(Span::new(l, r), "a `}` may be missing after this");
                }
            }
            d
        }
        ParseError::UnrecognizedToken { token: (l, Tok::Reserved(word), r), .. } => {
            Diagnostic::error("E0312", format!("`{word}` is not supported")).with_label(Span::new(l, r), "not supported").with_note(
                match word {
                    "template" => "templates are not part of the supported language",
                    "tbuffer" => "texture buffers are not supported: use a cbuffer or a StructuredBuffer",
                    "namespace" | "using" => "namespaces are not supported",
                    "class" | "interface" => "classes and interfaces are not supported: use structs and free functions",
                    "enum" => "enums are not supported: use `static const` integers",
                    _ => "this keyword is reserved",
                },
            )
        }
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => {
            let mut d = Diagnostic::error("E0110", format!("unexpected {}", tok.describe()))
                .with_label(Span::new(l, r), format!("expected {}", describe_expected(&expected)));
            if expected.iter().any(|x| x == "\";\"") {
                if let Some((pl, pr)) = prev_end(l) {
                    if file.line_of(pr as u32) < file.line_of(l as u32) {
                        d = d.with_label(Span::new(pl, pr), "maybe a `;` is missing after this");
                    }
                }
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::error("E0110", format!("unexpected {}", tok.describe())).with_label(Span::new(l, r), "expected the end of the file")
        }
    }
}

#[cfg(test)]
mod tests;
