//! The HLSL preprocessor (C99 6.10, as DXC has it): `#define` (object- and
//! function-like, `#`, `##`, `__VA_ARGS__`), `#undef`, `#if`/`#ifdef`/
//! `#ifndef`/`#elif`/`#elifdef`/`#elifndef`/`#else`/`#endif`, `#include "..."`
//! and `<...>`, `#pragma once`, `#line`, `#error`, `#warning`, `-D`/`-U`, and
//! the predefined macros below.
//!
//! # Output
//!
//! [`preprocess`] loads the main file and everything it includes into a
//! [`Sources`] map (the main file first, at global offset 0) and returns a
//! [`Preprocessed`]: one expanded `String` that the existing lexer and
//! grammar read unchanged, and an [`OriginMap`] from byte ranges of that text
//! to global spans. Runs of source tokens map offset-preservingly (a file with
//! no directives or macros gives the spans it always had); tokens made by a
//! macro expansion map to the whole invocation where it was written (name
//! through `)`); macro arguments keep their own spans. `frontend::parse`
//! translates every token span through the map, so every AST span is global.
//!
//! Besides the text, [`Preprocessed`] carries what the semantic side needs:
//! - [`Preprocessed::kernels`]: `#pragma kernel NAME [DEFINES...]` lines
//!   (Unity `.compute` files name their entry points so), in order;
//! - [`Preprocessed::pack_matrix`]: `#pragma pack_matrix(row_major|column_major)`
//!   with its span and its offset in the expanded text;
//!   [`Preprocessed::pack_matrix_at`] answers which packing applies at a span;
//! - [`Preprocessed::diagnostics`]: warnings and notes (`#warning`, ignored
//!   pragmas, redefinitions), to report with the front end's;
//! - [`Preprocessed::annotate`]: adds "in expansion of macro `X`" to
//!   diagnostics whose primary span is exactly a macro invocation.
//!
//! # Conditions
//!
//! `#if` expressions are evaluated in 64-bit C arithmetic (see `expr.rs`);
//! unknown names are 0, `true`/`false` are 1/0, and a `defined` that a macro
//! expands to keeps its operand unexpanded, as Clang (and so DXC) does.
//!
//! # Predefined macros
//!
//! `__HLSL_VERSION` (2021, or `-HV`), `__SHADER_STAGE_{VERTEX,PIXEL,GEOMETRY,
//! HULL,DOMAIN,COMPUTE,AMPLIFICATION,MESH,LIBRARY}` (DXC's values),
//! `__SHADER_TARGET_STAGE`, `__SHADER_TARGET_MAJOR`, `__SHADER_TARGET_MINOR`
//! (from `-T`, default `cs_6_0`), `__HLSL_ENABLE_16_BIT` (with
//! `-enable-16bit-types`), `__WAVEC__` (1), and `__LINE__`, `__FILE__`. They
//! live in a `<built-in>` file, `-D`/`-U` in a `<command line>` file (all
//! `-D` first, then all `-U`), so redefinition warnings can point at them.
//!
//! # Limits
//!
//! No input makes it panic or run away. Each limit is checked as the work is
//! done, stops preprocessing with a diagnostic that names it, and can be
//! changed (`--limit`, [`crate::limits`]): includes nest at most 200 deep
//! (E0131, naming the cycle) and enter at most 10,000 files in all (E0136);
//! macros nest at most 200 deep, in arguments or in one expansion;
//! expansions may make at most 2 million tokens and 64 MiB of new token text
//! (`##`, `#`), and the output is at most 64 MiB (E0134), each checked before
//! the token or text that would pass it is made. Files are read only if they
//! are regular files of at most 64 MiB (E0512).
//! Not supported, with a diagnostic: `_Pragma`, `#include_next`, `#import`,
//! `#ident`, `#assert` (E0135); directives inside macro arguments (E0122).

mod directives;
mod expand;
mod expr;
mod include;
mod lexer;
mod macros;
mod output;
mod process;
pub mod stdlib;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diag::{Diagnostic, FileId, SourceFile, Sources, Span};
use crate::source::Input;

pub use expr::Value as IfValue;
pub use output::OriginMap;

use expand::{Record, Stop};
use include::Origin;
use macros::{Builtin, Macro, MacroKind};
use process::Pp;

/// Preprocessor settings (the driver fills them from the command line).
#[derive(Clone, Debug)]
pub struct PpOptions {
    /// `-D NAME[=VALUE]`: `("NAME", "VALUE")`; NAME may be `F(x)` for a
    /// function-like macro. A definition without `=` has the value `1`.
    pub defines: Vec<(String, String)>,
    /// `-U NAME`, applied after every `-D`.
    pub undefines: Vec<String>,
    /// `-I DIR`, searched in order after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// `__HLSL_VERSION`.
    pub hlsl_version: u32,
    /// `-T` profile: stage value (DXC's `__SHADER_STAGE_*`), major, minor.
    pub stage: u32,
    pub shader_model: (u32, u32),
    /// Defines `__HLSL_ENABLE_16_BIT`.
    pub enable_16bit_types: bool,
    /// Headers searched last (the shipped library by default).
    pub stdlib: &'static [(&'static str, &'static str)],
    /// File sizes, include counts, expansion sizes and depths (`--limit`).
    pub limits: crate::limits::Limits,
}

/// `__SHADER_STAGE_COMPUTE`.
pub const STAGE_COMPUTE: u32 = 5;

/// DXC's stage numbers, by `-T` prefix and macro suffix.
const STAGES: &[(&str, &str, u32)] = &[
    ("vs", "VERTEX", 1),
    ("ps", "PIXEL", 0),
    ("gs", "GEOMETRY", 2),
    ("hs", "HULL", 3),
    ("ds", "DOMAIN", 4),
    ("cs", "COMPUTE", STAGE_COMPUTE),
    ("as", "AMPLIFICATION", 14),
    ("ms", "MESH", 13),
    ("lib", "LIBRARY", 6),
];

impl Default for PpOptions {
    fn default() -> PpOptions {
        PpOptions {
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            hlsl_version: 2021,
            stage: STAGE_COMPUTE,
            shader_model: (6, 0),
            enable_16bit_types: false,
            stdlib: stdlib::FILES,
            limits: crate::limits::Limits::default(),
        }
    }
}

impl PpOptions {
    /// Takes the stage and shader model from a `-T` profile such as `cs_6_5`;
    /// `false` (and no change) if it does not have that form.
    pub fn set_profile(&mut self, profile: &str) -> bool {
        let mut parts = profile.split('_');
        let (Some(stage), Some(major), Some(minor), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        let Some(&(_, _, value)) = STAGES.iter().find(|(p, _, _)| *p == stage) else { return false };
        let (Ok(major), Ok(minor)) = (major.parse(), minor.parse::<u32>().or_else(|_| if minor == "x" { Ok(0) } else { Err(()) })) else {
            return false;
        };
        self.stage = value;
        self.shader_model = (major, minor);
        true
    }

    fn builtin_text(&self) -> String {
        let mut s = format!("#define __HLSL_VERSION {}\n", self.hlsl_version);
        for (_, name, value) in STAGES {
            s.push_str(&format!("#define __SHADER_STAGE_{name} {value}\n"));
        }
        s.push_str(&format!("#define __SHADER_TARGET_STAGE {}\n", self.stage));
        s.push_str(&format!("#define __SHADER_TARGET_MAJOR {}\n", self.shader_model.0));
        s.push_str(&format!("#define __SHADER_TARGET_MINOR {}\n", self.shader_model.1));
        if self.enable_16bit_types {
            s.push_str("#define __HLSL_ENABLE_16_BIT 1\n");
        }
        s.push_str("#define __WAVEC__ 1\n");
        s
    }

    fn command_line_text(&self) -> String {
        let mut s = String::new();
        // A line break in a value would end the directive early.
        let clean = |x: &str| x.replace(['\n', '\r'], " ");
        for (name, value) in &self.defines {
            s.push_str(&format!("#define {} {}\n", clean(name), clean(value)));
        }
        for name in &self.undefines {
            s.push_str(&format!("#undef {}\n", clean(name)));
        }
        s
    }
}

/// `#pragma pack_matrix(...)` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixPacking {
    RowMajor,
    ColumnMajor,
}

/// `#pragma kernel NAME [DEFINES...]` (Unity compute shaders).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PragmaKernel {
    pub name: String,
    /// The name in the pragma.
    pub span: Span,
    /// Words after the name (Unity defines them for that kernel only; wavec
    /// records them and does not define them).
    pub defines: Vec<String>,
}

/// One `#pragma pack_matrix`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackMatrix {
    pub packing: MatrixPacking,
    /// The pragma line.
    pub span: Span,
    /// Offset in the expanded text where it takes effect: declarations after
    /// it in the translation unit use this packing.
    pub offset: usize,
}

/// The result of preprocessing (see the module doc).
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The expanded text, fed to the lexer.
    pub text: String,
    pub origins: OriginMap,
    /// Warnings and notes (errors make [`preprocess`] fail).
    pub diagnostics: Vec<Diagnostic>,
    pub kernels: Vec<PragmaKernel>,
    pub pack_matrix: Vec<PackMatrix>,
    /// Outermost macro invocations by span, for [`Preprocessed::annotate`].
    invocations: BTreeMap<Span, (String, Span)>,
}

impl Preprocessed {
    /// The global span of expanded-text range `start..end`.
    pub fn map(&self, start: usize, end: usize, sources: &Sources) -> Span {
        self.origins.map(start, end, sources)
    }

    /// Adds "in expansion of macro `X`" (a note, and a label at `X`'s
    /// `#define`) to each diagnostic whose primary label is exactly a macro
    /// invocation.
    pub fn annotate(&self, diags: &mut [Diagnostic], sources: &Sources) {
        for d in diags {
            let Some((span, _)) = d.labels.first() else { continue };
            if let Some((name, def)) = self.invocations.get(span) {
                let note = format!("in expansion of macro `{name}`");
                if !d.notes.contains(&note) {
                    d.notes.push(note);
                    // Builtin and command-line macros have no definition worth showing.
                    if *def != Span::default() {
                        let file = sources.file_of(def.start);
                        if file.is_some_and(|f| sources.get(f).file.name.starts_with('<')) {
                            continue;
                        }
                        d.labels.push((*def, format!("`{name}` is defined here")));
                    }
                }
            }
        }
    }

    /// The packing of the last `#pragma pack_matrix` before `offset` of the expanded text.
    pub fn pack_matrix_at_offset(&self, offset: usize) -> Option<MatrixPacking> {
        self.pack_matrix.iter().rev().find(|p| p.offset <= offset).map(|p| p.packing)
    }

    /// The packing in effect at a declaration with global span `span`: the
    /// first place in the expanded text that maps to it decides.
    pub fn pack_matrix_at(&self, span: Span) -> Option<MatrixPacking> {
        if self.pack_matrix.is_empty() {
            return None;
        }
        let offset = self.origins.offset_of(span.start)?;
        self.pack_matrix_at_offset(offset)
    }
}

/// Preprocesses `input`. Returns every loaded file (even on failure, for
/// rendering) and the expanded text or all diagnostics (errors, warnings and
/// notes in the order found).
pub fn preprocess(input: &Input, opts: &PpOptions) -> (Sources, Result<Preprocessed, Vec<Diagnostic>>) {
    let mut sources = Sources::new();
    let result = run(&mut sources, input, opts);
    (sources, result)
}

fn run(sources: &mut Sources, input: &Input, opts: &PpOptions) -> Result<Preprocessed, Vec<Diagnostic>> {
    let main_id = sources.add(input.main.clone(), None);
    let mut pp = Pp::new(sources, input, &opts.include_dirs, opts.stdlib, opts.limits);
    let (key, origin) = match &input.path {
        Some(p) => {
            let canon = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
            (format!("disk:{}", canon.display()), Origin::Disk(p.clone()))
        }
        None => ("mem:".to_string(), Origin::Memory(String::new())),
    };
    pp.register(main_id, key, origin);
    for (name, b) in [("__LINE__", Builtin::Line), ("__FILE__", Builtin::File)] {
        pp.engine.macros.define(Macro { name: name.into(), kind: MacroKind::Builtin(b), body: Vec::new(), def_span: Span::default() });
    }
    let builtin = pp.add_file(SourceFile::new("<built-in>", opts.builtin_text()), None, "builtin:".into(), Origin::Builtin);
    let command_line = opts.command_line_text();
    let cl = (!command_line.is_empty())
        .then(|| pp.add_file(SourceFile::new("<command line>", command_line), None, "command-line:".into(), Origin::Builtin));
    // A stack: the last pushed is read first.
    pp.push_file(main_id, true);
    if let Some(cl) = cl {
        pp.push_file(cl, false);
    }
    pp.push_file(builtin, false);
    if let Err(Stop(d)) = pp.run() {
        pp.diags.push(d);
        return Err(pp.diags);
    }
    pp.diags.append(&mut pp.engine.errors);
    if pp.diags.iter().any(Diagnostic::is_error) {
        return Err(pp.diags);
    }
    let main = pp.sources.get(main_id);
    let end = main.base as usize + main.file.text.len();
    let invocations = invocation_index(&pp.engine.records);
    let (text, origins) = std::mem::take(&mut pp.out).finish(Span::new(end, end));
    Ok(Preprocessed { text, origins, diagnostics: pp.diags, kernels: pp.kernels, pack_matrix: pp.pack_matrix, invocations })
}

fn invocation_index(records: &[Record]) -> BTreeMap<Span, (String, Span)> {
    let mut m = BTreeMap::new();
    for r in records {
        m.entry(r.span).or_insert_with(|| (r.macro_name.to_string(), r.def_span));
    }
    m
}

/// The id of the main file in the map [`preprocess`] returns.
pub const MAIN_FILE: FileId = FileId(0);
