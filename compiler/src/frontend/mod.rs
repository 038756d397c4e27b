//! Front end: lexing, parsing and semantic analysis.
pub mod ast;
pub mod lexer;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused)]
    grammar,
    "/frontend/grammar.rs"
);
