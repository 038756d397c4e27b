//! Statements: local declarations, control flow (including `switch`),
//! attributes, `break`/`continue`/`return` checks.

use std::collections::HashMap;

use super::literals::int_literal_value;
use super::types::const_cast;
use super::{err, lit, Breakable, Sema};
use crate::diag::Span;
use crate::frontend::ast::{self, ExprKind as AK, StmtKind as SK};
use crate::frontend::tast::*;

impl Sema {
    pub(super) fn stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    /// A sub-statement in its own scope, as a block.
    fn scoped_block(&mut self, s: &ast::Stmt) -> Block {
        self.scopes.push(HashMap::new());
        let stmts = match &s.kind {
            SK::Block(b) => self.stmts(&b.stmts),
            _ => {
                let mut out = Vec::new();
                self.stmt(s, &mut out);
                out
            }
        };
        self.scopes.pop();
        Block { stmts, span: s.span }
    }

    fn stmt_attrs(&mut self, attrs: &[ast::Attribute], on: &str) -> Vec<StmtAttr> {
        let mut out = Vec::new();
        for a in attrs {
            let name = a.name.name.to_ascii_lowercase();
            let attr = match name.as_str() {
                "loop" => StmtAttr::Loop,
                "fastopt" => StmtAttr::FastOpt,
                "allow_uav_condition" => StmtAttr::AllowUavCondition,
                "branch" => StmtAttr::Branch,
                "flatten" => StmtAttr::Flatten,
                "forcecase" => StmtAttr::ForceCase,
                "call" => StmtAttr::Call,
                "unroll" => match a.args.as_slice() {
                    [] => StmtAttr::Unroll(None),
                    [ast::Expr { kind: AK::IntLit(t), .. }] if int_literal_value(t).0.is_some_and(|v| v <= u32::MAX as u64) => {
                        StmtAttr::Unroll(int_literal_value(t).0.map(|v| v as u32))
                    }
                    [e] => match self.const_uint(e, "an unroll count") {
                        Some(n) => StmtAttr::Unroll(Some(n)),
                        None => continue,
                    },
                    _ => {
                        self.emit(err("E0206", "`unroll` takes at most one integer", a.span, "expected [unroll] or [unroll(N)]"));
                        continue;
                    }
                },
                _ => {
                    self.warn("W0203", format!("attribute `{}` ignored", a.name.name), a.span, "unknown attribute");
                    continue;
                }
            };
            let allowed = match on {
                "loop" => matches!(attr, StmtAttr::Loop | StmtAttr::Unroll(_) | StmtAttr::FastOpt | StmtAttr::AllowUavCondition),
                "if" => matches!(attr, StmtAttr::Branch | StmtAttr::Flatten),
                _ => matches!(attr, StmtAttr::Branch | StmtAttr::Flatten | StmtAttr::ForceCase | StmtAttr::Call),
            };
            if !allowed {
                self.warn("W0203", format!("attribute `{}` has no effect on {on} statements", a.name.name), a.span, "ignored");
                continue;
            }
            out.push(attr);
        }
        out
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> Block {
        self.breakables.push(Breakable::Loop);
        let b = self.scoped_block(body);
        self.breakables.pop();
        b
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let span = s.span;
        let kind = match &s.kind {
            SK::Decl(v) => {
                self.local_decl(v, out);
                return;
            }
            SK::Expr(e) => match self.expr(e) {
                Some(x) => StmtKind::Expr(x),
                None => return,
            },
            SK::If { attrs, cond, then_stmt, else_ifs_rev, else_stmt } => {
                let first = (attrs, cond, then_stmt, span);
                let rest = else_ifs_rev.iter().rev().map(|a| (&a.attrs, &a.cond, &a.then_stmt, a.span));
                let mut arms = Vec::with_capacity(1 + else_ifs_rev.len());
                for (attrs, cond, then_stmt, span) in std::iter::once(first).chain(rest) {
                    let attrs = self.stmt_attrs(attrs, "if");
                    let cond = self.condition(cond);
                    let then_blk = self.scoped_block(then_stmt);
                    arms.push(IfArm { cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), then_blk, attrs, span });
                }
                let else_blk = else_stmt.as_ref().map(|e| self.scoped_block(e));
                StmtKind::If { arms, else_blk }
            }
            SK::For { attrs, init, cond, step, body } => {
                let attrs = self.stmt_attrs(attrs, "loop");
                // HLSL 2018: the init's variables belong to the enclosing scope.
                let leaks = self.legacy();
                if !leaks {
                    self.scopes.push(HashMap::new());
                }
                let mut init_stmts = Vec::new();
                match init {
                    Some(ast::ForInit::Decl(v)) => {
                        self.for_init_leaks = leaks;
                        self.local_decl(v, &mut init_stmts);
                        self.for_init_leaks = false;
                    }
                    Some(ast::ForInit::Exprs(es)) => {
                        for e in es {
                            if let Some(x) = self.expr(e) {
                                init_stmts.push(Stmt { kind: StmtKind::Expr(x), span: e.span });
                            }
                        }
                    }
                    None => {}
                }
                let cond = cond.as_ref().and_then(|c| self.condition(c));
                let steps: Vec<Expr> = step.iter().filter_map(|e| self.expr(e)).collect();
                let body = self.loop_body(body);
                if !leaks {
                    if let Some(scope) = self.scopes.pop() {
                        self.ended_for_vars.extend(scope.into_keys());
                    }
                }
                StmtKind::For { init: init_stmts, cond, step: steps, body, attrs }
            }
            SK::While { attrs, cond, body } => {
                let attrs = self.stmt_attrs(attrs, "loop");
                let cond = self.condition(cond);
                let body = self.loop_body(body);
                StmtKind::While { cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), body, attrs }
            }
            SK::DoWhile { attrs, body, cond } => {
                let attrs = self.stmt_attrs(attrs, "loop");
                let body = self.loop_body(body);
                let cond = self.condition(cond);
                StmtKind::DoWhile { body, cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), attrs }
            }
            SK::Switch { attrs, selector, items } => match self.switch(attrs, selector, items, span) {
                Some(k) => k,
                None => return,
            },
            SK::Block(b) => {
                self.scopes.push(HashMap::new());
                let stmts = self.stmts(&b.stmts);
                self.scopes.pop();
                StmtKind::Block(Block { stmts, span: b.span })
            }
            SK::Break | SK::Continue => {
                let is_continue = matches!(s.kind, SK::Continue);
                if !self.in_breakable(is_continue) {
                    let (w, place) = if is_continue { ("continue", "a loop") } else { ("break", "a loop or switch") };
                    self.emit(err("E0241", format!("`{w}` outside of {place}"), span, format!("not inside {place}")));
                    return;
                }
                if is_continue {
                    StmtKind::Continue
                } else {
                    StmtKind::Break
                }
            }
            SK::Return(value) => {
                let ret = self.cur_ret.unwrap_or(Type::Void);
                match (value, ret) {
                    (None, Type::Void) => StmtKind::Return(None),
                    (Some(v), Type::Void) => {
                        // `return f();` with a void f is allowed; a value is not.
                        let x = self.expr(v);
                        match x {
                            Some(x) if x.ty == Type::Void => {
                                out.push(Stmt { kind: StmtKind::Expr(x), span });
                                StmtKind::Return(None)
                            }
                            Some(_) => {
                                self.emit(err("E0240", "this function returns void: `return` takes no value", v.span, "unexpected value"));
                                return;
                            }
                            None => return,
                        }
                    }
                    (None, t) => {
                        let tn = self.type_name(t);
                        self.emit(err("E0240", format!("`return` needs a value of type `{tn}`"), span, "missing value"));
                        return;
                    }
                    (Some(v), t) => {
                        let Some(x) = self.expr(v) else { return };
                        let Some(x) = self.coerce(x, t, false) else { return };
                        StmtKind::Return(Some(x))
                    }
                }
            }
            SK::Discard => {
                self.emit(
                    err("E0317", "`discard` is only valid in pixel shaders", span, "discard")
                        .with_note("a compute kernel can `return` early instead"),
                );
                return;
            }
            SK::LocalTypeDecl(what) => {
                self.emit(
                    err("E0312", format!("local `{what}` declarations are not supported"), span, "inside a function")
                        .with_note("declare the type at global scope"),
                );
                return;
            }
            SK::Empty => return,
            SK::TooDeep => {
                self.too_deep(span);
                return;
            }
        };
        out.push(Stmt { kind, span });
    }

    fn switch(&mut self, attrs: &[ast::Attribute], selector: &ast::Expr, items: &[ast::SwitchItem], span: Span) -> Option<StmtKind> {
        let attrs = self.stmt_attrs(attrs, "switch");
        let sel = self.expr(selector);
        let sel = sel.and_then(|x| {
            if x.ty.is_scalar() && x.ty.scalar().is_some_and(|s| s.is_integer() || s == ScalarType::Bool) {
                let t = if x.ty.scalar() == Some(ScalarType::Bool) { Type::INT } else { x.ty };
                self.coerce(x, t, false)
            } else {
                let t = self.type_name(x.ty);
                self.emit(err("E0247", format!("a switch selector must be an integer scalar, found `{t}`"), x.span, "not an integer"));
                None
            }
        });
        self.breakables.push(Breakable::Switch);
        // The whole body is one scope, as in C.
        self.scopes.push(HashMap::new());
        let mut cases: Vec<SwitchCase> = Vec::new();
        // Labels seen, by their bits (all have the selector's integer type): a
        // map, so that a switch of thousands of cases is checked in linear time.
        let mut seen: HashMap<(u8, u64), Span> = HashMap::new();
        let mut default_seen: Option<Span> = None;
        let mut before_first = Vec::new();
        for item in items {
            match item {
                ast::SwitchItem::Case(e, s) => {
                    let v = self.expr(e).and_then(|x| {
                        let t = sel.as_ref().map_or(Type::INT, |s| s.ty);
                        let x = self.coerce(x, t, false)?;
                        match self.const_eval(&x).and_then(|v| v.first().copied()) {
                            Some(c) => Some(c),
                            None => {
                                self.emit(err("E0245", "a case label must be a compile-time constant", e.span, "not a constant"));
                                None
                            }
                        }
                    });
                    let v = v.map(|c| const_cast(c, sel.as_ref().and_then(|s| s.ty.scalar()).unwrap_or(ScalarType::Int)));
                    if let Some(c) = v {
                        if let Some(&prev) = seen.get(&label_key(c)) {
                            self.emit(err("E0248", "duplicate case label", *s, "duplicate").with_label(prev, "first used here"));
                        } else {
                            seen.insert(label_key(c), *s);
                        }
                    }
                    // Consecutive labels share one body.
                    match cases.last_mut() {
                        Some(last) if last.body.is_empty() => last.values.extend(v),
                        _ => cases.push(SwitchCase { values: v.into_iter().collect(), is_default: false, body: Vec::new(), span: *s }),
                    }
                }
                ast::SwitchItem::Default(s) => {
                    if let Some(prev) = default_seen {
                        self.emit(err("E0248", "more than one `default` label", *s, "second default").with_label(prev, "first default"));
                    }
                    default_seen = Some(*s);
                    match cases.last_mut() {
                        Some(last) if last.body.is_empty() => last.is_default = true,
                        _ => cases.push(SwitchCase { values: Vec::new(), is_default: true, body: Vec::new(), span: *s }),
                    }
                }
                ast::SwitchItem::Stmt(st) => match cases.last_mut() {
                    Some(_) => {
                        let mut body = Vec::new();
                        self.stmt(st, &mut body);
                        if let Some(last) = cases.last_mut() {
                            last.body.extend(body);
                        }
                    }
                    None => before_first.push(st.span),
                },
            }
        }
        self.scopes.pop();
        self.breakables.pop();
        if let Some(&s) = before_first.first() {
            self.emit(
                err("E0249", "statement before the first `case` label", s, "never runs")
                    .with_note("move it before the switch or under a case label"),
            );
        }
        let _ = span;
        Some(StmtKind::Switch { selector: sel?, cases, attrs })
    }

    fn local_decl(&mut self, v: &ast::VarDecl, out: &mut Vec<Stmt>) {
        for a in &v.attrs {
            self.warn("W0203", format!("attribute `{}` has no effect on a declaration", a.name.name), a.span, "ignored");
        }
        let mut kind = LocalKind::Var;
        let mut is_static = false;
        for (q, span) in &v.qualifiers {
            match q {
                ast::Qualifier::Const => kind = LocalKind::Const,
                ast::Qualifier::Static => is_static = true,
                ast::Qualifier::Precise => self.saw_precise = true,
                ast::Qualifier::RowMajor | ast::Qualifier::ColumnMajor | ast::Qualifier::Other(_) => {}
                ast::Qualifier::Groupshared => {
                    self.emit(
                        err("E0206", "groupshared variables must be declared at global scope", *span, "groupshared")
                            .with_note("move the declaration out of the function"),
                    );
                    return;
                }
                ast::Qualifier::Uniform | ast::Qualifier::Extern => {
                    self.emit(err("E0206", "a local variable cannot be uniform or extern", *span, "not allowed here"));
                }
                _ => self.emit(err("E0239", "`in`/`out`/`inout` only apply to parameters", *span, "not allowed here")),
            }
        }
        let base = self.resolve_type(&v.ty);
        if base == Some(Type::Void) {
            self.emit(err("E0243", "a variable cannot have type void", v.ty.span, "void"));
        }
        for d in &v.declarators {
            if let Some(s) = &d.semantic {
                self.emit(err("E0206", "a local variable cannot have a semantic", s.span, "semantic"));
            }
            if let Some(r) = d.registers.first() {
                self.emit(err("E0206", "a local variable cannot have a register", r.span, "register"));
            }
            let Some(ty) = base.filter(|t| *t != Type::Void).and_then(|b| self.array_type(b, &d.dims, true)) else {
                // Analyse the initializer anyway for its own errors.
                if let Some(ast::Init::Expr(e)) = &d.init {
                    self.expr(e);
                }
                // The name stays known, as void, so that its uses stay silent (see `ident`).
                self.declare_local(&d.name, Type::Void, LocalKind::Var);
                continue;
            };
            let Some((ty, init)) = self.initializer(ty, d.init.as_ref(), d.name.span) else {
                // Declare it anyway (without a value) so that later uses stay silent.
                if !matches!(ty, Type::Array(a) if self.types.array(a).1 == 0) {
                    self.declare_local(&d.name, ty, LocalKind::Var);
                }
                continue;
            };
            if kind == LocalKind::Const && init.is_none() {
                self.emit(err("E0242", format!("const `{}` needs an initializer", d.name.name), d.name.span, "no value"));
            }
            let constant = init.as_ref().and_then(|e| self.const_eval(e));
            if is_static {
                // A static local keeps its value across calls: a per-thread global
                // initialised once, which needs a constant initializer.
                if init.is_some() && constant.is_none() {
                    self.emit(err(
                        "E0245",
                        "a static local needs a constant initializer",
                        d.init.as_ref().map_or(d.span, |i| i.span()),
                        "not a constant",
                    ));
                    continue;
                }
                let local = self.declare_local(&d.name, ty, if kind == LocalKind::Const { LocalKind::Const } else { LocalKind::Static });
                if let (LocalKind::Const, Some(c)) = (kind, constant) {
                    self.const_values.insert(local, c);
                }
                self.note_use(super::Use::Static(local));
                self.static_uses.insert(local, Default::default());
                self.statics.push((local, init));
                continue;
            }
            let local = self.declare_local(&d.name, ty, kind);
            if let (LocalKind::Const, Some(c)) = (kind, constant) {
                self.const_values.insert(local, c);
            }
            out.push(Stmt { kind: StmtKind::Decl { local, init }, span: d.span });
        }
    }
}

/// A case label's identity: equal labels (of one selector type) have equal keys.
fn label_key(c: Const) -> (u8, u64) {
    match c {
        Const::Bool(b) => (0, b as u64),
        Const::Int(i) => (1, i as u32 as u64),
        Const::Uint(u) => (2, u as u64),
        Const::Float(x) => (3, x.to_bits() as u64),
        Const::Bits16(_, b) => (4, b as u64),
        Const::Bits64(_, b) => (5, b),
    }
}
