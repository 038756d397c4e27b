//! User functions: declarations (prototypes and definitions), bodies, and
//! calls with HLSL overload resolution. Every call is inlined by the
//! lowering, so parameters are copies: `in` arguments are converted values,
//! `out`/`inout` arguments are places copied back after the call.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::overload::{self, Kind};
use super::{err, Breakable, FuncState, Sema, ThisEffects, Use};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast;
use crate::frontend::tast::*;

/// How far an argument is from a parameter type: lower is better; `None`
/// when no implicit conversion exists.
fn conversion_cost(types: &Types, from: Type, to: Type, legacy: bool) -> Option<u32> {
    if from == to {
        return Some(0);
    }
    if let Type::Handle(h) = from {
        // `ConstantBuffer<T>` passes as its contents, a `T` (as exact as it gets).
        let h = types.handle(h);
        if h.kind == crate::interface::ResourceKind::ConstantBuffer && h.elem == to {
            return Some(1);
        }
    }
    if legacy && super::legacy::legacy_struct_conversion(types, from, to) {
        // HLSL 2018 converts structs of the same layout; an exact match still wins.
        return Some(3 * 4 + 2);
    }
    let (Some(fs), Some(ts)) = (from.scalar(), to.scalar()) else {
        return None;
    };
    let scalar_cost = if fs == ts {
        0
    } else if fs.is_float() == ts.is_float() && fs.rank() < ts.rank() && fs != ScalarType::Bool {
        1 // promotion within a kind (half -> float, int16 -> int)
    } else {
        2 // conversion
    };
    let (fn_, tn) = (from.len(), to.len());
    let shape_cost = match (from, to) {
        _ if from.with_scalar(ts) == to => 0,
        _ if fn_ == tn => match (from, to) {
            (Type::Matrix(_, a, b), Type::Matrix(_, c, d)) if (a, b) != (c, d) => return None,
            _ => 3,
        },
        _ if fn_ == 1 => 4,
        (Type::Vector(..), Type::Vector(..) | Type::Scalar(_)) if tn < fn_ => 5,
        (Type::Matrix(_, r, c), Type::Matrix(_, r2, c2)) if r2 <= r && c2 <= c => 5,
        (Type::Matrix(..), Type::Scalar(_)) => 5,
        _ => return None,
    };
    Some(shape_cost * 4 + scalar_cost)
}

impl Sema {
    /// The signature string of a function, for messages: `f(float3, out int)`.
    fn signature(&self, f: FuncId) -> String {
        let st = &self.funcs[f.0 as usize];
        let params: Vec<String> = st
            .params
            .iter()
            .map(|p| {
                let dir = match p.dir {
                    ParamDir::In => "",
                    ParamDir::Out => "out ",
                    ParamDir::InOut => "inout ",
                };
                format!("{dir}{}", self.type_name(p.ty))
            })
            .collect();
        format!("{} {}({})", self.type_name(st.ret), st.name, params.join(", "))
    }

    pub(super) fn function(&mut self, f: &ast::Function) {
        self.function_in(f, None);
    }

    /// The overload-set name of member function `name` of objects of struct `obj`,
    /// declared by struct `origin`: `S::name`, or `D::B::name` when inherited from B.
    pub(super) fn method_key(&self, obj: StructId, origin: StructId, name: &str) -> String {
        if obj == origin {
            format!("{}::{}", self.types.strukt(obj).name, name)
        } else {
            format!("{}::{}::{}", self.types.strukt(obj).name, self.types.strukt(origin).name, name)
        }
    }

    /// The overload set that `name` means for an object of struct `obj`, looked up
    /// as from struct `from` (`obj` itself or one of its bases) and then its bases.
    pub(super) fn find_method(&self, obj: StructId, from: StructId, name: &str) -> Option<(String, Vec<FuncId>)> {
        let mut at = Some(from);
        while let Some(s) = at {
            if self.own_methods.get(&s).is_some_and(|m| m.contains(name)) {
                let key = self.method_key(obj, s, name);
                return self.overloads.get(&key).map(|c| (key, c.clone()));
            }
            at = self.struct_base.get(&s).copied();
        }
        None
    }

    /// Is struct `base` the struct `s` or one of its bases?
    pub(super) fn derives_from(&self, s: StructId, base: StructId) -> bool {
        let mut at = Some(s);
        while let Some(x) = at {
            if x == base {
                return true;
            }
            at = self.struct_base.get(&x).copied();
        }
        false
    }

    /// Declares (and analyses the body of) a function, or a member function for
    /// objects of struct `obj` declared by struct `origin` (`owner`): then it has an
    /// implicit first parameter `inout S this` (unless `static`); see `object_arg`.
    pub(super) fn function_in(&mut self, f: &ast::Function, owner: Option<(StructId, StructId)>) {
        let fname = match owner {
            Some((obj, origin)) => self.method_key(obj, origin, &f.name.name),
            None => f.name.name.clone(),
        };
        let has_this = owner.is_some() && !f.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Static);
        for (q, span) in &f.qualifiers {
            self.saw_precise |= *q == ast::Qualifier::Precise;
            if !matches!(q, ast::Qualifier::Inline | ast::Qualifier::Precise | ast::Qualifier::Static | ast::Qualifier::Extern) {
                self.emit(err("E0206", "this qualifier is not allowed on a function", *span, "not allowed here"));
            }
        }
        if self.unsupported_signature(f, &fname) {
            return;
        }
        let ret = self.resolve_type(&f.ret);
        if matches!(ret, Some(Type::Array(_))) {
            self.emit(
                err("E0206", "a function cannot return an array", f.ret.span, "array").with_note("return a struct holding the array"),
            );
        }
        // Parameters: types and directions; locals are declared with the body.
        let mut sig: Vec<(ParamDir, Option<Type>)> = Vec::new();
        for p in &f.params {
            let mut dir = ParamDir::In;
            for (q, span) in &p.qualifiers {
                match q {
                    ast::Qualifier::In => {}
                    ast::Qualifier::Out => dir = if dir == ParamDir::In { ParamDir::Out } else { ParamDir::InOut },
                    ast::Qualifier::Inout => dir = ParamDir::InOut,
                    ast::Qualifier::Precise => self.saw_precise = true,
                    ast::Qualifier::Const | ast::Qualifier::Uniform | ast::Qualifier::RowMajor | ast::Qualifier::ColumnMajor => {}
                    ast::Qualifier::Other(_) => {}
                    _ => self.emit(err("E0239", "this qualifier is not allowed on a parameter", *span, "not allowed here")),
                }
            }
            if p.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::In) && p.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Out) {
                dir = ParamDir::InOut;
            }
            let ty = self.resolve_type(&p.ty).and_then(|t| if p.dims.is_empty() { Some(t) } else { self.array_type(t, &p.dims, false) });
            if ty == Some(Type::Void) {
                self.emit(err("E0243", "a parameter cannot have type void", p.ty.span, "void"));
                sig.push((dir, None));
                continue;
            }
            sig.push((dir, ty));
        }
        let (Some(ret), true) = (ret, sig.iter().all(|(_, t)| t.is_some())) else {
            // Keep the name known so that calls stay silent.
            self.overloads.entry(fname).or_default();
            return;
        };
        // Default arguments: constant-like expressions of the parameter's type.
        let mut defaults: Vec<Option<Expr>> = Vec::new();
        for (p, (_, ty)) in f.params.iter().zip(&sig) {
            let d = p.default.as_ref().and_then(|d| {
                let v = self.expr(d)?;
                self.coerce(v, (*ty)?, false)
            });
            defaults.push(d);
        }
        if let Some(first) = f.params.iter().position(|p| p.default.is_some()) {
            if let Some(bad) = f.params[first..].iter().find(|p| p.default.is_none()) {
                self.emit(err("E0206", "a parameter without a default follows one with a default", bad.span, "needs a default value"));
            }
        }
        if has_this {
            sig.insert(0, (ParamDir::InOut, owner.map(|(obj, _)| Type::Struct(obj))));
            defaults.insert(0, None);
        }
        if let (None, Some((_, prev))) = (owner, self.globals.get(&f.name.name)) {
            let prev = *prev;
            self.emit(
                err("E0202", format!("`{}` is declared twice", f.name.name), f.name.span, "redeclared here")
                    .with_label(prev, "first declared here"),
            );
            return;
        }
        let types: Vec<(ParamDir, Type)> = sig.into_iter().map(|(d, t)| (d, t.unwrap_or(Type::Void))).collect();
        // Same parameter types as an earlier declaration: a prototype and its definition.
        let existing = self.overloads.get(&fname).and_then(|ids| {
            ids.iter().copied().find(|id| {
                let st = &self.funcs[id.0 as usize];
                st.params.len() == types.len() && st.params.iter().zip(&types).all(|(p, (_, t))| p.ty == *t)
            })
        });
        let id = match existing {
            Some(id) => {
                let st = &self.funcs[id.0 as usize];
                if st.body.is_some() && f.body.is_some() {
                    let prev = st.name_span;
                    self.emit(
                        err("E0202", format!("function `{fname}` is defined twice"), f.name.span, "redefined here")
                            .with_label(prev, "first defined here"),
                    );
                    return;
                }
                if st.ret != ret {
                    let prev = st.name_span;
                    self.emit(
                        err("E0253", format!("`{fname}` is declared with two return types"), f.ret.span, "differs")
                            .with_label(prev, "earlier declaration"),
                    );
                    return;
                }
                id
            }
            None => {
                let id = FuncId(self.funcs.len() as u32);
                self.funcs.push(FuncState {
                    name: fname.clone(),
                    params: Vec::new(),
                    semantics: Vec::new(),
                    ret,
                    body: None,
                    span: f.span,
                    name_span: f.name.span,
                    attrs: f.attrs.clone(),
                    stdlib: self.in_stdlib,
                    uses: BTreeSet::new(),
                    call_spans: BTreeMap::new(),
                    defaults: Vec::new(),
                    this_effects: ThisEffects::default(),
                });
                self.overloads.entry(fname.clone()).or_default().push(id);
                id
            }
        };
        // Parameter locals (a definition's names win over a prototype's).
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        let mut semantics = Vec::new();
        let mut this_local = None;
        let mut declared = types.iter();
        if has_this {
            let (dir, ty) = declared.next().copied().unwrap_or((ParamDir::InOut, Type::Void));
            let this = ast::Ident { name: "this".into(), span: f.name.span };
            let local = self.declare_local(&this, ty, LocalKind::Param);
            this_local = Some(local);
            params.push(Param { local, dir, ty, span: f.name.span, ty_span: f.name.span });
            semantics.push(None);
        }
        for (p, (dir, ty)) in f.params.iter().zip(declared) {
            let local = self.declare_local(&p.name, *ty, LocalKind::Param);
            params.push(Param { local, dir: *dir, ty: *ty, span: p.span, ty_span: p.ty.span });
            semantics.push(p.semantic.clone());
        }
        {
            let st = &mut self.funcs[id.0 as usize];
            if f.body.is_some() || st.params.is_empty() {
                st.params = params;
                st.defaults = defaults;
                st.semantics = semantics;
                st.span = f.span;
                st.name_span = f.name.span;
                if !f.attrs.is_empty() {
                    st.attrs = f.attrs.clone();
                }
            }
        }
        if let (Some(item), Some(_)) = (self.stdlib_item, &f.body) {
            // A stdlib body waits until something calls it (`analyse_called_stdlib`).
            self.pending_stdlib.insert(id, item);
            self.scopes.pop();
            return;
        }
        if let Some(body) = &f.body {
            let saved_uses = std::mem::take(&mut self.cur_uses);
            let saved_calls = std::mem::take(&mut self.cur_calls);
            let saved_breakables = std::mem::take(&mut self.breakables);
            let saved_this = std::mem::replace(&mut self.cur_this, this_local.zip(owner).map(|(l, (obj, origin))| (l, obj, origin)));
            let saved_effects = std::mem::take(&mut self.cur_this_effects);
            let saved_struct = std::mem::replace(&mut self.cur_struct, owner);
            let saved_ret = self.cur_ret.replace(ret);
            let stmts = self.stmts(&body.stmts);
            self.note_group_uses(&stmts);
            self.cur_ret = saved_ret;
            self.cur_this = saved_this;
            self.cur_struct = saved_struct;
            let this_effects = std::mem::replace(&mut self.cur_this_effects, saved_effects);
            self.breakables = saved_breakables;
            let uses = std::mem::replace(&mut self.cur_uses, saved_uses);
            let calls = std::mem::replace(&mut self.cur_calls, saved_calls);
            let st = &mut self.funcs[id.0 as usize];
            st.body = Some(Block { stmts, span: body.span });
            st.uses = uses;
            st.call_spans = calls;
            st.this_effects = this_effects;
        }
        self.scopes.pop();
    }

    /// A function taking or returning a texture, sampler or ray-tracing type (`float4 Fetch(Texture2D t, ...)`
    /// in a shared header) is fine as long as the kernel never calls it, as with DXC,
    /// which drops functions nothing calls. Its body is not analysed; its E0319 errors
    /// wait in `deferred` and count when a call the entry point reaches names it
    /// (`call_values`). Returns whether `f` is such a function.
    fn unsupported_signature(&mut self, f: &ast::Function, fname: &str) -> bool {
        fn unsupported(t: &ast::TypeExpr) -> Option<Diagnostic> {
            match &t.kind {
                ast::TypeKind::Resource { name, .. } => Sema::unsupported_value_type(name, t.span),
                ast::TypeKind::Name(name) => Sema::ray_tracing_type(name, t.span),
                ast::TypeKind::Modified { inner, .. } => unsupported(inner),
                _ => None,
            }
        }
        let diags: Vec<Diagnostic> = std::iter::once(&f.ret).chain(f.params.iter().map(|p| &p.ty)).filter_map(unsupported).collect();
        if diags.is_empty() {
            return false;
        }
        for d in diags {
            self.deferred.push(d);
            let i = self.deferred.len() - 1;
            self.unsupported_funcs.entry(fname.to_string()).or_default().push(i);
        }
        // Keep the name known so that calls find it (and report the errors if reached).
        self.overloads.entry(fname.to_string()).or_default();
        true
    }

    /// A call of `name`, a function taking or returning textures: its errors count if reached.
    fn note_unsupported_call(&mut self, name: &str) {
        for i in self.unsupported_funcs.get(name).cloned().unwrap_or_default() {
            self.note_use(Use::Deferred(i));
        }
    }

    /// A call of user function `name` (its overload set `cands`).
    pub(super) fn user_call(&mut self, name: &str, cands: &[FuncId], args: &[ast::Expr], span: Span) -> Option<Expr> {
        if cands.is_empty() {
            // Before the arguments, which fail too when they are textures.
            self.note_unsupported_call(name);
        }
        let mut vals = Vec::new();
        let mut ok = true;
        for a in args {
            match self.expr(a) {
                Some(v) => vals.push(v),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        self.call_values(name, cands, vals, false, span)
    }

    /// A call with analysed arguments. `method`: the first is the object of a
    /// member-function call (`this`): passed by value when it is not a place.
    pub(super) fn call_values(&mut self, name: &str, cands: &[FuncId], vals: Vec<Expr>, method: bool, span: Span) -> Option<Expr> {
        if cands.is_empty() {
            // Every declaration failed (reported), or takes textures (reported if reached).
            self.note_unsupported_call(name);
            return None;
        }
        let arg_types: Vec<Type> = vals.iter().map(|v| v.ty).collect();
        // Cost vectors of the viable candidates.
        let mut viable: Vec<(FuncId, Vec<u32>)> = Vec::new();
        let legacy = self.legacy();
        for &c in cands {
            let st = &self.funcs[c.0 as usize];
            // Missing arguments need defaults.
            if st.params.len() < vals.len() || st.defaults.get(vals.len()..).is_some_and(|d| d.iter().any(Option::is_none)) {
                continue;
            }
            let costs: Option<Vec<u32>> = st
                .params
                .iter()
                .zip(&arg_types)
                .map(|(p, &a)| {
                    let there = conversion_cost(&self.types, a, p.ty, legacy)?;
                    if p.dir != ParamDir::In {
                        // Copied back: the parameter must convert to the argument too.
                        conversion_cost(&self.types, p.ty, a, legacy)?;
                    }
                    Some(there)
                })
                .collect();
            if let Some(costs) = costs {
                viable.push((c, costs));
            }
        }
        // DXC's ranking first (`overload`): the least total score wins, so every call
        // DXC resolves picks DXC's function.
        let kinds: Vec<Kind> = vals
            .iter()
            .map(|v| match (&v.kind, self.untyped_literals.contains(&v.span)) {
                (ExprKind::Literal(Const::Float(_)), true) => Kind::LitFloat,
                (ExprKind::Literal(Const::Int(_) | Const::Uint(_)), true) => Kind::LitInt,
                _ => Kind::of(v.ty.scalar().unwrap_or(ScalarType::Float)),
            })
            .collect();
        let dxc_score = |c: FuncId| -> u64 {
            let st = &self.funcs[c.0 as usize];
            st.params
                .iter()
                .zip(arg_types.iter().zip(&kinds))
                .map(|(p, (&a, &k))| {
                    let back = if p.dir == ParamDir::In {
                        0
                    } else {
                        overload::score(p.ty, Kind::of(p.ty.scalar().unwrap_or(ScalarType::Float)), a)
                    };
                    overload::score(a, k, p.ty).saturating_add(back)
                })
                .fold(0u64, u64::saturating_add)
        };
        if let Some(least) = viable.iter().map(|(c, _)| dxc_score(*c)).min() {
            viable.retain(|(c, _)| dxc_score(*c) == least);
        }
        // Where DXC finds several equally good (an ambiguity for DXC), wavec goes on:
        // a candidate no worse for every argument and better for one wins; among
        // the rest, the one whose worst conversion is least bad, then the least
        // total (so a splat beats a truncation, `lerp(v, v, 0.5)` takes float3).
        let better = |a: &[u32], b: &[u32]| a.iter().zip(b).all(|(x, y)| x <= y) && a.iter().zip(b).any(|(x, y)| x < y);
        let undominated: Vec<&(FuncId, Vec<u32>)> = viable.iter().filter(|(_, c)| !viable.iter().any(|(_, o)| better(o, c))).collect();
        let key = |c: &[u32]| (c.iter().copied().max().unwrap_or(0), c.iter().sum::<u32>());
        let best_key = undominated.iter().map(|(_, c)| key(c)).min();
        let best: Vec<&(FuncId, Vec<u32>)> = undominated.into_iter().filter(|(_, c)| Some(key(c)) == best_key).collect();
        let chosen = match best.as_slice() {
            [one] => one.0,
            [] => {
                let shown: Vec<String> = arg_types.iter().map(|&t| self.type_name(t)).collect();
                let mut d = err("E0251", format!("no overload of `{name}` takes ({})", shown.join(", ")), span, "no matching function");
                for &c in cands {
                    let sig = self.signature(c);
                    let s = self.funcs[c.0 as usize].name_span;
                    if !self.funcs[c.0 as usize].stdlib {
                        d = d.with_label(s, format!("candidate: {sig}"));
                    }
                }
                // A struct argument that HLSL 2018 would convert (same layout): say so.
                let by_layout = !legacy
                    && cands.iter().any(|&c| {
                        let ps = &self.funcs[c.0 as usize].params;
                        ps.iter().zip(&arg_types).any(|(p, &a)| super::legacy::legacy_struct_conversion(&self.types, a, p.ty))
                    });
                if by_layout {
                    d = d.with_note(
                        "a struct argument has the layout of the parameter's struct: HLSL 2018 (-HV 2018) converts it, HLSL 2021 does not",
                    );
                }
                self.emit(d);
                return None;
            }
            several => {
                let mut d = err("E0252", format!("the call of `{name}` is ambiguous"), span, "several overloads match equally well");
                for (c, _) in several {
                    let sig = self.signature(*c);
                    d = d.with_label(self.funcs[c.0 as usize].name_span, format!("candidate: {sig}"));
                }
                self.emit(d.with_note("convert the arguments explicitly to pick one"));
                return None;
            }
        };
        let params: Vec<Param> = self.funcs[chosen.0 as usize].params.clone();
        let defaults: Vec<Expr> =
            self.funcs[chosen.0 as usize].defaults.get(vals.len()..).unwrap_or_default().iter().flatten().cloned().collect();
        let mut out = Vec::new();
        for (k, (v, p)) in vals.into_iter().chain(defaults).zip(&params).enumerate() {
            if method && k == 0 {
                out.push(self.object_arg(chosen, v)?);
                continue;
            }
            match p.dir {
                ParamDir::In => out.push(Arg::In(self.coerce(v, p.ty, false)?)),
                dir => {
                    if !self.check_place(&v) {
                        return None;
                    }
                    out.push(Arg::Out { place: v, inout: dir == ParamDir::InOut });
                }
            }
        }
        self.note_use(Use::Call(chosen));
        self.cur_calls.entry(chosen).or_insert(span);
        let ret = self.funcs[chosen.0 as usize].ret;
        Some(Expr { kind: ExprKind::Call { func: chosen, args: out }, ty: ret, span })
    }

    /// The object of a call of member function `f`. `this` is a reference in HLSL;
    /// here a method that never writes its object gets a copy, and one that does
    /// gets its object copied in and back out, which is the same for a local
    /// variable. For a buffer element or groupshared variable the copy-out would
    /// write every field (racing with other threads' writes), so that is refused.
    fn object_arg(&mut self, f: FuncId, obj: Expr) -> Option<Arg> {
        if !self.is_place(&obj) {
            return Some(Arg::In(obj));
        }
        let root = place_root(&obj);
        if let (Some((this, _, _)), ExprKind::Local(l)) = (self.cur_this, &root.kind) {
            if *l == this {
                // A sibling call on our own object: resolved when our callers ask.
                self.cur_this_effects.calls.push(f);
                return Some(Arg::Out { place: obj, inout: true });
            }
        }
        if !self.method_mutates(f) {
            return Some(Arg::In(obj));
        }
        if !matches!(root.kind, ExprKind::Local(_)) {
            let name = self.funcs[f.0 as usize].name.clone();
            self.emit(
                err(
                    "E0322",
                    format!("`{name}` changes its object, which is not a local variable"),
                    obj.span,
                    "a buffer element or groupshared variable",
                )
                .with_label(self.funcs[f.0 as usize].name_span, "this member function writes `this`")
                .with_note("copy the object into a local variable, call the method on it, and store it back"),
            );
            return None;
        }
        if !self.check_place(&obj) {
            return None;
        }
        Some(Arg::Out { place: obj, inout: true })
    }

    /// Does member function `f` (or one it calls on its object) write its object?
    /// A function whose body is not analysed yet counts as writing.
    fn method_mutates(&self, f: FuncId) -> bool {
        let mut seen = BTreeSet::new();
        let mut todo = vec![f];
        while let Some(g) = todo.pop() {
            if !seen.insert(g) {
                continue;
            }
            let st = &self.funcs[g.0 as usize];
            if st.body.is_none() || st.this_effects.writes {
                return true;
            }
            todo.extend(st.this_effects.calls.iter().copied());
        }
        false
    }

    /// Is a `break` here legal (inside a loop or switch)? Is a `continue` (inside a loop)?
    pub(super) fn in_breakable(&self, is_continue: bool) -> bool {
        if is_continue {
            self.breakables.contains(&Breakable::Loop)
        } else {
            !self.breakables.is_empty()
        }
    }
}

/// The variable a place expression is part of (`a` for `a.b[i].xy`).
pub(super) fn place_root(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Member { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Swizzle { base, .. }
        | ExprKind::MatrixElems { base, .. } => place_root(base),
        _ => e,
    }
}
