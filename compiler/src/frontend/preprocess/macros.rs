//! Macro definitions: parsing `#define`, the macro table, and the
//! "same definition" rule for redefinitions (C99 6.10.3p2).

use std::collections::HashMap;
use std::rc::Rc;

use crate::diag::{Diagnostic, Span};

use super::lexer::{Kind, PpTok, WS};

/// One element of a replacement list.
#[derive(Clone, Debug)]
pub enum BodyItem {
    Tok(PpTok),
    /// A parameter; `ws`: whitespace before it.
    Param {
        index: usize,
        ws: bool,
    },
    /// `# param`.
    Stringize {
        index: usize,
        ws: bool,
    },
    /// The `##` operator.
    Paste,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Line,
    File,
}

#[derive(Clone, Debug)]
pub enum MacroKind {
    Object,
    /// `params` includes `__VA_ARGS__` last when `variadic`.
    Function {
        params: Vec<Rc<str>>,
        variadic: bool,
    },
    Builtin(Builtin),
}

#[derive(Clone, Debug)]
pub struct Macro {
    pub name: Rc<str>,
    pub kind: MacroKind,
    pub body: Vec<BodyItem>,
    /// The name in the `#define` (empty for builtins).
    pub def_span: Span,
}

impl Macro {
    /// Same parameters and the same replacement list, whitespace separation included.
    pub fn same_definition(&self, other: &Macro) -> bool {
        let kinds_equal = match (&self.kind, &other.kind) {
            (MacroKind::Object, MacroKind::Object) => true,
            (MacroKind::Function { params: a, variadic: va }, MacroKind::Function { params: b, variadic: vb }) => a == b && va == vb,
            (MacroKind::Builtin(a), MacroKind::Builtin(b)) => a == b,
            _ => false,
        };
        kinds_equal
            && self.body.len() == other.body.len()
            && self.body.iter().zip(&other.body).all(|(a, b)| match (a, b) {
                (BodyItem::Tok(x), BodyItem::Tok(y)) => x.kind == y.kind && x.text == y.text && x.ws() == y.ws(),
                (BodyItem::Param { index: i, ws: a }, BodyItem::Param { index: j, ws: b })
                | (BodyItem::Stringize { index: i, ws: a }, BodyItem::Stringize { index: j, ws: b }) => i == j && a == b,
                (BodyItem::Paste, BodyItem::Paste) => true,
                _ => false,
            })
    }
}

/// Macros by name. Each name keeps one id for the whole run (hide sets hold ids).
#[derive(Default)]
pub struct MacroTable {
    ids: HashMap<Rc<str>, u32>,
    names: Vec<Rc<str>>,
    defs: Vec<Option<Macro>>,
}

impl MacroTable {
    pub fn id(&mut self, name: &Rc<str>) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(name.clone(), id);
        self.names.push(name.clone());
        self.defs.push(None);
        id
    }

    /// The id of `name` if it is defined now.
    pub fn lookup(&self, name: &str) -> Option<u32> {
        let id = *self.ids.get(name)?;
        self.defs[id as usize].is_some().then_some(id)
    }

    pub fn get(&self, id: u32) -> Option<&Macro> {
        self.defs.get(id as usize)?.as_ref()
    }

    pub fn is_defined(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// Defines `m`, returning the definition it replaces.
    pub fn define(&mut self, m: Macro) -> Option<Macro> {
        let id = self.id(&m.name.clone());
        self.defs[id as usize].replace(m)
    }

    pub fn undefine(&mut self, name: &str) -> Option<Macro> {
        let id = *self.ids.get(name)?;
        self.defs[id as usize].take()
    }
}

fn define_error(msg: impl Into<String>, span: Span, label: &str) -> Diagnostic {
    Diagnostic::error("E0121", msg).with_label(span, label)
}

/// Parses the tokens after `#define`. `at` is the directive's span, for errors
/// with no token to point at.
pub fn parse_define(toks: &[PpTok], at: Span) -> Result<Macro, Diagnostic> {
    let Some(name) = toks.first() else {
        return Err(define_error("`#define` without a macro name", at, "expected a macro name"));
    };
    if name.kind != Kind::Ident {
        return Err(define_error(format!("macro name must be an identifier, not `{}`", name.text), name.span, "not an identifier"));
    }
    if &*name.text == "defined" || &*name.text == "__VA_ARGS__" {
        return Err(define_error(format!("`{}` cannot be used as a macro name", name.text), name.span, "reserved"));
    }
    let mut rest = &toks[1..];
    let mut kind = MacroKind::Object;
    if rest.first().is_some_and(|t| t.is("(") && !t.ws()) {
        let (params, variadic, used) = parse_params(rest)?;
        rest = &rest[used..];
        kind = MacroKind::Function { params, variadic };
    }
    let params: &[Rc<str>] = match &kind {
        MacroKind::Function { params, .. } => params,
        _ => &[],
    };
    let function_like = matches!(kind, MacroKind::Function { .. });
    let param_of = |t: &PpTok| (t.kind == Kind::Ident).then(|| params.iter().position(|p| *p == t.text)).flatten();
    let mut body = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let t = &rest[i];
        let ws = i > 0 && t.ws();
        if t.is("##") {
            if i == 0 || i + 1 == rest.len() {
                return Err(define_error("`##` cannot appear at either end of a macro body", t.span, "nothing to paste with"));
            }
            body.push(BodyItem::Paste);
        } else if function_like && t.is("#") {
            match rest.get(i + 1).and_then(param_of) {
                Some(index) => {
                    body.push(BodyItem::Stringize { index, ws });
                    i += 1;
                }
                None => {
                    return Err(define_error("`#` is not followed by a macro parameter", t.span, "expected a parameter name after this"))
                }
            }
        } else if let Some(index) = param_of(t) {
            body.push(BodyItem::Param { index, ws });
        } else {
            let mut t = t.clone();
            t.flags = if ws { WS } else { 0 };
            body.push(BodyItem::Tok(t));
        }
        i += 1;
    }
    Ok(Macro { name: name.text.clone(), kind, body, def_span: name.span })
}

/// Parses `( a, b, ... )` starting at `toks[0] == "("`; returns the parameters,
/// whether the macro is variadic, and how many tokens it used.
fn parse_params(toks: &[PpTok]) -> Result<(Vec<Rc<str>>, bool, usize), Diagnostic> {
    let mut params: Vec<Rc<str>> = Vec::new();
    let mut i = 1;
    let open = toks[0].span;
    if toks.get(1).is_some_and(|t| t.is(")")) {
        return Ok((params, false, 2));
    }
    loop {
        let Some(t) = toks.get(i) else {
            return Err(define_error("missing `)` in macro parameter list", open, "this list is not closed"));
        };
        if t.is("...") {
            params.push("__VA_ARGS__".into());
            return match toks.get(i + 1) {
                Some(c) if c.is(")") => Ok((params, true, i + 2)),
                other => Err(define_error(
                    "`...` must be the last macro parameter",
                    other.map_or(t.span, |o| o.span),
                    "expected `)` after `...`",
                )),
            };
        }
        if t.kind != Kind::Ident || &*t.text == "__VA_ARGS__" {
            return Err(define_error(format!("expected a parameter name, found `{}`", t.text), t.span, "not a parameter name"));
        }
        if params.contains(&t.text) {
            return Err(define_error(format!("duplicate macro parameter `{}`", t.text), t.span, "declared twice"));
        }
        params.push(t.text.clone());
        match toks.get(i + 1) {
            Some(c) if c.is(",") => i += 2,
            Some(c) if c.is(")") => return Ok((params, false, i + 2)),
            Some(c) => {
                return Err(define_error(format!("expected `,` or `)` in macro parameter list, found `{}`", c.text), c.span, "here"))
            }
            None => return Err(define_error("missing `)` in macro parameter list", open, "this list is not closed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn define(s: &str) -> Result<Macro, Diagnostic> {
        let (toks, _) = lex(s, 0, 0);
        parse_define(&toks, Span::new(0, 1))
    }

    #[test]
    fn object_and_function_like() {
        let m = define("N 4").unwrap();
        assert!(matches!(m.kind, MacroKind::Object));
        assert_eq!(m.body.len(), 1);
        // A space before `(` makes it object-like.
        assert!(matches!(define("F (x) x").unwrap().kind, MacroKind::Object));
        let m = define("F(a, b) #a a##b").unwrap();
        assert!(matches!(&m.kind, MacroKind::Function { params, variadic: false } if params.len() == 2));
        assert!(matches!(
            m.body[..],
            [
                BodyItem::Stringize { index: 0, .. },
                BodyItem::Param { index: 0, ws: true },
                BodyItem::Paste,
                BodyItem::Param { index: 1, .. }
            ]
        ));
        let m = define("V(x, ...) __VA_ARGS__").unwrap();
        assert!(matches!(m.kind, MacroKind::Function { variadic: true, .. }));
        assert!(matches!(m.body[..], [BodyItem::Param { index: 1, .. }]));
        // In an object-like macro, `#` is an ordinary token.
        assert_eq!(define("H # ## #").unwrap().body.len(), 3);
    }

    #[test]
    fn malformed_definitions() {
        for (src, msg) in [
            ("", "without a macro name"),
            ("1 x", "must be an identifier"),
            ("defined 1", "cannot be used"),
            ("F(a a) a", "expected `,` or `)`"),
            ("F(a, a) a", "duplicate"),
            ("F(a", "missing `)`"),
            ("F(1) a", "expected a parameter name"),
            ("F(..., a) a", "last macro parameter"),
            ("F(a) #b", "not followed by a macro parameter"),
            ("F(a) ## a", "either end"),
            ("N a ##", "either end"),
        ] {
            let e = define(src).unwrap_err();
            assert_eq!(e.code, "E0121", "{src}");
            assert!(e.message.contains(msg), "{src}: {}", e.message);
        }
    }

    #[test]
    fn redefinition_equivalence() {
        let same = |a: &str, b: &str| define(a).unwrap().same_definition(&define(b).unwrap());
        assert!(same("N 1 + 2", "N 1 /* c */ +  2"));
        assert!(!same("N 1 + 2", "N 1+2"));
        assert!(same("F(a) a", "F(a) a"));
        assert!(!same("F(a) a", "F(b) b"));
        assert!(!same("F(a) a", "F a"));
    }
}
