//! Front end: preprocessing ([`preprocess`]: macros, conditionals,
//! includes), lexing ([`lexer`], hand written), parsing (LALRPOP grammar
//! `grammar.lalrpop` into [`ast`]) and semantic analysis ([`sema`] into the
//! typed AST [`tast`], which documents its invariants).
//!
//! Error codes (stable; listed in docs/diagnostics.md): E01xx preprocessing,
//! lexing and parsing, E02xx names and types, E03xx constructs recognised but
//! not supported yet; warnings W01xx (preprocessor) and W02xx.
//!
//! The lexer reads the preprocessor's expanded text; [`parse_preprocessed`]
//! maps every token span back through the origin map before the parser sees
//! it, so AST spans are global spans into the [`Sources`] map (the main file
//! at offset 0). [`parse`] and [`analyze`] do all of it for one in-memory
//! file; [`analyze_preprocessed`] is the step after [`preprocess::preprocess`].
//!
//! Preprocessing reports all its errors; parsing stops at the first lexing or
//! syntax error; semantic analysis goes on after errors and reports all it
//! finds. No input makes the front end panic: nesting is capped (E0105, see
//! [`ast::MAX_DEPTH`]), and so is the preprocessor (see its module doc).

pub mod ast;
pub mod fold;
pub mod layout;
pub mod lexer;
mod prelude;
pub mod preprocess;
mod sema;
pub mod tast;
mod walk;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused, unused_qualifications, dead_code)]
    grammar,
    "/frontend/grammar.rs"
);

use crate::diag::{Diagnostic, SourceFile, Sources, Span};
use crate::source::Input;
use lalrpop_util::ParseError;
use lexer::{LexError, Lexer, Tok};
use preprocess::{PpOptions, Preprocessed};

pub use prelude::PRELUDE_FILE;
pub use sema::{FrontendOptions, MAX_NUMTHREADS, MAX_THREADS};

/// `file` preprocessed alone (default options: no `-I`, no `-D`).
fn preprocess_alone(file: &SourceFile) -> (Sources, Result<Preprocessed, Vec<Diagnostic>>) {
    preprocess::preprocess(&Input::new(file.clone()), &PpOptions::default())
}

/// Preprocesses and parses one in-memory file (see [`parse_preprocessed`]).
/// Diagnostics are made renderable with `file` alone ([`Sources::localize_to_main`]).
pub fn parse(file: &SourceFile) -> Result<ast::TranslationUnit, Vec<Diagnostic>> {
    let (sources, pp) = preprocess_alone(file);
    pp.and_then(|pp| parse_preprocessed(&pp, &sources)).map_err(|mut d| {
        sources.localize_to_main(&mut d);
        d
    })
}

/// Parses preprocessed text into an untyped AST with global spans. Reports
/// the first lexing or syntax error. Over-deep nesting is not an error here:
/// it leaves `TooDeep` nodes in the tree, which [`analyze`] reports (E0105).
///
/// Struct and typedef names are found by a pre-scan of the expanded text
/// ([`lexer::user_type_names`]) so that the lexer reads them as type names.
/// Each `#pragma pack_matrix` becomes a token at the place where it takes
/// effect, so the parser sees it between the declarations it separates.
pub fn parse_preprocessed(pp: &Preprocessed, sources: &Sources) -> Result<ast::TranslationUnit, Vec<Diagnostic>> {
    // Lex up front: the parser then sees tokens up to the first lexing error,
    // so whichever error comes first in the file is reported.
    let user_types = lexer::user_type_names(&pp.text);
    let mut pragmas = pp.pack_matrix.iter().peekable();
    let mut toks: Vec<Result<(usize, Tok<'_>, usize), LexError>> = Vec::new();
    for t in Lexer::with_user_types(&pp.text, &user_types) {
        match t {
            Ok((l, tok, r)) => {
                while let Some(pm) = pragmas.next_if(|pm| pm.offset <= l) {
                    let row = pm.packing == preprocess::MatrixPacking::RowMajor;
                    toks.push(Ok((pm.span.start as usize, Tok::PragmaPackMatrix(row), pm.span.end as usize)));
                }
                let s = pp.map(l, r, sources);
                toks.push(Ok((s.start as usize, tok, s.end as usize)));
            }
            Err(LexError(mut d)) => {
                for (span, _) in &mut d.labels {
                    *span = pp.map(span.start as usize, span.end as usize, sources);
                }
                toks.push(Err(LexError(d)));
                break;
            }
        }
    }
    let spans: Vec<(usize, usize)> = toks.iter().filter_map(|t| t.as_ref().ok().map(|(l, _, r)| (*l, *r))).collect();
    let parser = grammar::TranslationUnitParser::new();
    parser.parse(toks).map_err(|e| {
        let mut d = vec![syntax_error(sources, pp.origins.end(), &spans, e)];
        pp.annotate(&mut d, sources);
        d
    })
}

/// Preprocesses, parses and analyses one in-memory file (no `-I`, no `-D`;
/// the standard library is on the include path). `entry` names the entry point
/// when the file has several. On success returns the typed module and the
/// warnings; on failure all diagnostics (errors and warnings, in the order
/// found). Labels outside `file` (in a library header) become notes.
pub fn analyze(file: &SourceFile, entry: Option<&str>) -> Result<(tast::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    analyze_with(file, &FrontendOptions { entry: entry.map(str::to_string), ..FrontendOptions::default() })
}

/// [`analyze`] with the semantic options (`-enable-16bit-types`, ...).
pub fn analyze_with(file: &SourceFile, opts: &FrontendOptions) -> Result<(tast::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let pp_opts = PpOptions { enable_16bit_types: opts.native_16bit, hlsl_version: opts.hlsl_version.0, ..PpOptions::default() };
    let (sources, pp) = preprocess::preprocess(&Input::new(file.clone()), &pp_opts);
    match pp.and_then(|pp| analyze_preprocessed(&pp, &sources, opts)) {
        Ok((m, mut w)) => {
            sources.localize_to_main(&mut w);
            Ok((m, w))
        }
        Err(mut d) => {
            sources.localize_to_main(&mut d);
            Err(d)
        }
    }
}

/// Parses and analyses preprocessed text. `#pragma kernel` names from the
/// preprocessor join `opts`. The preprocessor's warnings and notes come first
/// in the diagnostics, and each diagnostic that points at a macro invocation
/// says so ([`Preprocessed::annotate`]).
pub fn analyze_preprocessed(
    pp: &Preprocessed,
    sources: &Sources,
    opts: &FrontendOptions,
) -> Result<(tast::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let with_pp = |mut d: Vec<Diagnostic>| {
        pp.annotate(&mut d, sources);
        let mut all = pp.diagnostics.clone();
        all.append(&mut d);
        all
    };
    let tu = parse_preprocessed(pp, sources).map_err(with_pp)?;
    let end = sources.main().map_or(0, |m| m.text.trim_end().len());
    let mut opts = opts.clone();
    opts.pragma_kernels.extend(pp.kernels.iter().map(|k| (k.name.clone(), k.span)));
    let prelude = prelude::reachable(opts.native_16bit, &pp.text);
    match sema::Sema::new(opts).run(&prelude, &tu, Span::new(end, end)) {
        Ok((m, w)) => Ok((m, with_pp(w))),
        Err(d) => Err(with_pp(d)),
    }
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

fn syntax_error(sources: &Sources, eof: Span, spans: &[(usize, usize)], e: ParseError<usize, Tok<'_>, LexError>) -> Diagnostic {
    let prev_end = |loc: usize| spans.iter().rev().find(|(_, r)| *r <= loc).map(|(l, r)| (*l, *r));
    match e {
        ParseError::User { error } => error.0,
        ParseError::InvalidToken { location } => {
            Diagnostic::error("E0101", "invalid token").with_label(Span::new(location, location + 1), "not valid here")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let end = eof.end as usize;
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
                    "interface" => "interfaces are not supported: use structs and free functions",
                    _ => "this keyword is reserved",
                },
            )
        }
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => {
            let mut d = Diagnostic::error("E0110", format!("unexpected {}", tok.describe()))
                .with_label(Span::new(l, r), format!("expected {}", describe_expected(&expected)));
            if expected.iter().any(|x| x == "\";\"") {
                if let Some((pl, pr)) = prev_end(l) {
                    let (before, here) = (sources.line_of(pr as u32), sources.line_of(l as u32));
                    if matches!((before, here), (Some((f, a)), Some((g, b))) if f == g && a < b) {
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
