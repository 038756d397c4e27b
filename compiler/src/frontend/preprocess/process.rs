//! The preprocessing loop: a stack of files being read, each with its
//! conditional-inclusion stack; directive lines go to [`super::directives`],
//! text runs through macro expansion into the output.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::diag::{Diagnostic, FileId, SourceFile, Sources, Span};
use crate::source::Input;

use super::expand::{Engine, Stop, TokenStream};
use super::include::{Origin, Resolver};
use super::lexer::{lex, PpTok};
use super::output::Output;
use super::{PackMatrix, PragmaKernel};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CondState {
    /// This group is being read.
    Taking,
    /// No group taken yet: a later `#elif`/`#else` may be.
    Waiting,
    /// A group was taken (or the whole `#if` is inside a skipped group).
    Done,
}

pub struct Cond {
    pub state: CondState,
    pub else_seen: bool,
    /// The `#if` line, for "unterminated" errors.
    pub span: Span,
}

pub struct Frame {
    pub file: FileId,
    pub toks: Rc<Vec<PpTok>>,
    pub pos: usize,
    pub conds: Vec<Cond>,
    /// Text from this file goes to the output (not for built-in definitions).
    pub emits: bool,
}

/// What the preprocessor knows about each loaded file.
pub struct FileInfo {
    pub origin: Origin,
    pub toks: Option<Rc<Vec<PpTok>>>,
    pub once: bool,
}

pub struct Pp<'a> {
    pub sources: &'a mut Sources,
    pub resolver: Resolver<'a>,
    pub engine: Engine,
    pub out: Output,
    pub stack: Vec<Frame>,
    pub pending: Vec<PpTok>,
    pub files: Vec<FileInfo>,
    pub by_key: BTreeMap<String, FileId>,
    /// Errors, warnings and notes in the order found.
    pub diags: Vec<Diagnostic>,
    pub kernels: Vec<PragmaKernel>,
    pub pack_matrix: Vec<PackMatrix>,
    pub limits: crate::limits::Limits,
    /// `#include`s that entered a file so far (the `includes` limit).
    pub includes: u64,
}

/// Tokens of the current file, stopping at a directive line and at the end of
/// the file (macro arguments cannot cross either).
struct SourceStream<'s> {
    pending: &'s mut Vec<PpTok>,
    toks: &'s [PpTok],
    pos: &'s mut usize,
}

impl TokenStream for SourceStream<'_> {
    fn next(&mut self) -> Option<PpTok> {
        if let Some(t) = self.pending.pop() {
            return Some(t);
        }
        let t = self.toks.get(*self.pos).filter(|t| !is_directive_start(t))?;
        *self.pos += 1;
        Some(t.clone())
    }
    fn peek(&self) -> Option<&PpTok> {
        self.pending.last().or_else(|| self.toks.get(*self.pos).filter(|t| !is_directive_start(t)))
    }
    fn push_front(&mut self, toks: Vec<PpTok>) {
        self.pending.extend(toks.into_iter().rev());
    }
}

pub fn is_directive_start(t: &PpTok) -> bool {
    t.bol() && t.is("#")
}

impl<'a> Pp<'a> {
    pub fn new(
        sources: &'a mut Sources,
        input: &'a Input,
        include_dirs: &'a [std::path::PathBuf],
        stdlib: &'a [(&'static str, &'static str)],
        limits: crate::limits::Limits,
    ) -> Pp<'a> {
        Pp {
            sources,
            resolver: Resolver { input, include_dirs, stdlib, max_file_bytes: limits.file_bytes },
            engine: Engine::new(limits),
            limits,
            includes: 0,
            out: Output::default(),
            stack: Vec::new(),
            pending: Vec::new(),
            files: Vec::new(),
            by_key: BTreeMap::new(),
            diags: Vec::new(),
            kernels: Vec::new(),
            pack_matrix: Vec::new(),
        }
    }

    /// Registers a file already in the source map.
    pub fn register(&mut self, id: FileId, key: String, origin: Origin) {
        debug_assert_eq!(id.0 as usize, self.files.len());
        if let Origin::Disk(path) = &origin {
            self.sources.set_path(id, path.clone());
        }
        self.files.push(FileInfo { origin, toks: None, once: false });
        self.by_key.insert(key, id);
    }

    /// Adds a new file to the source map and registers it.
    pub fn add_file(&mut self, file: SourceFile, included_from: Option<Span>, key: String, origin: Origin) -> FileId {
        let id = self.sources.add(file, included_from);
        self.register(id, key, origin);
        id
    }

    /// Starts reading `id` (lexing it, and reporting lexing errors, the first time).
    pub fn push_file(&mut self, id: FileId, emits: bool) {
        let toks = match &self.files[id.0 as usize].toks {
            Some(t) => t.clone(),
            None => {
                let f = self.sources.get(id);
                let (toks, errors) = lex(&f.file.text, f.base, id.0);
                self.diags.extend(errors);
                let toks = Rc::new(toks);
                self.files[id.0 as usize].toks = Some(toks.clone());
                toks
            }
        };
        self.stack.push(Frame { file: id, toks, pos: 0, conds: Vec::new(), emits });
    }

    /// Is the current file inside a group that is skipped?
    pub fn skipping(&self) -> bool {
        self.stack.last().and_then(|f| f.conds.last()).is_some_and(|c| c.state != CondState::Taking)
    }

    pub fn run(&mut self) -> Result<(), Stop> {
        while let Some(frame) = self.stack.last_mut() {
            let toks = frame.toks.clone();
            let pos = frame.pos;
            let Some(t) = toks.get(pos) else {
                self.end_file();
                continue;
            };
            if is_directive_start(t) {
                let end = (pos + 1..toks.len()).find(|&i| toks[i].bol()).unwrap_or(toks.len());
                frame.pos = end;
                self.directive(&toks[pos..end])?;
                continue;
            }
            if self.skipping() {
                let next = (pos + 1..toks.len()).find(|&i| is_directive_start(&toks[i])).unwrap_or(toks.len());
                if let Some(f) = self.stack.last_mut() {
                    f.pos = next;
                }
                continue;
            }
            self.text()?;
        }
        Ok(())
    }

    /// Expands the text from the current position to the next directive or
    /// the end of the file into the output.
    fn text(&mut self) -> Result<(), Stop> {
        let Some(frame) = self.stack.last_mut() else { return Ok(()) };
        let toks = frame.toks.clone();
        let emits = frame.emits;
        let mut stream = SourceStream { pending: &mut self.pending, toks: &toks, pos: &mut frame.pos };
        let sources: &Sources = self.sources;
        let out = &mut self.out;
        let diags = &mut self.diags;
        let max_output = self.limits.pp_output_bytes;
        let mut warned = false;
        let mut sink = |t: PpTok| -> Result<(), Stop> {
            if !emits {
                if !warned {
                    warned = true;
                    diags.push(
                        Diagnostic::error("E0121", format!("unexpected text `{}` in a command-line definition", t.text))
                            .with_label(t.span, "not part of a `#define`"),
                    );
                }
                return Ok(());
            }
            // Checked before the token goes out (it may be a long pasted one).
            if (out.len() + t.text.len()) as u64 > max_output {
                return Err(Stop(
                    Diagnostic::error(
                        "E0134",
                        format!("the preprocessed text would be larger than {}", crate::limits::show_bytes(max_output)),
                    )
                    .with_label(t.span, "while expanding this")
                    .with_note(format!(
                        "the `pp-output` limit; `--limit pp-output=N` raises it (now {})",
                        crate::limits::show(max_output, true)
                    )),
                ));
            }
            out.emit(&t, sources);
            Ok(())
        };
        self.engine.expand(sources, &mut stream, &mut sink, 0)?;
        self.diags.append(&mut self.engine.errors);
        Ok(())
    }

    /// Leaves the current file: open conditionals are errors.
    fn end_file(&mut self) {
        let Some(frame) = self.stack.pop() else { return };
        for c in frame.conds.iter().rev() {
            self.diags.push(
                Diagnostic::error("E0127", "unterminated conditional directive")
                    .with_label(c.span, "this has no matching `#endif`")
                    .with_note("every `#if`, `#ifdef` and `#ifndef` needs an `#endif` in the same file"),
            );
        }
        self.out.newline();
    }

    /// The names of the files being read, outermost first.
    pub fn include_chain(&self) -> Vec<String> {
        self.stack.iter().map(|f| self.sources.get(f.file).file.name.clone()).collect()
    }
}
