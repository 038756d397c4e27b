//! User functions: declarations (prototypes and definitions), bodies, and
//! calls with HLSL overload resolution. Every call is inlined by the
//! lowering, so parameters are copies: `in` arguments are converted values,
//! `out`/`inout` arguments are places copied back after the call.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{err, Breakable, FuncState, Sema, Use};
use crate::diag::Span;
use crate::frontend::ast;
use crate::frontend::tast::*;

/// How far an argument is from a parameter type: lower is better; `None`
/// when no implicit conversion exists.
fn conversion_cost(types: &Types, from: Type, to: Type) -> Option<u32> {
    if from == to {
        return Some(0);
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
    let _ = types;
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
        for (q, span) in &f.qualifiers {
            if !matches!(q, ast::Qualifier::Inline | ast::Qualifier::Precise | ast::Qualifier::Static | ast::Qualifier::Extern) {
                self.emit(err("E0206", "this qualifier is not allowed on a function", *span, "not allowed here"));
            }
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
                    ast::Qualifier::Const
                    | ast::Qualifier::Uniform
                    | ast::Qualifier::Precise
                    | ast::Qualifier::RowMajor
                    | ast::Qualifier::ColumnMajor => {}
                    ast::Qualifier::Other(_) => {}
                    _ => self.emit(err("E0239", "this qualifier is not allowed on a parameter", *span, "not allowed here")),
                }
            }
            if p.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::In) && p.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Out) {
                dir = ParamDir::InOut;
            }
            if let Some(d) = &p.default {
                self.emit(
                    err("E0312", "default arguments are not supported", d.span, "default value")
                        .with_note("pass the value at every call, or add an overload"),
                );
            }
            if let ast::TypeKind::Resource { name, .. } = &p.ty.kind {
                self.emit(
                    err("E0319", format!("resource parameters (`{name}`) are not supported"), p.ty.span, "resource parameter")
                        .with_note("use the global resource directly in the function"),
                );
                sig.push((dir, None));
                continue;
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
            self.overloads.entry(f.name.name.clone()).or_default();
            return;
        };
        if let Some((_, prev)) = self.globals.get(&f.name.name) {
            let prev = *prev;
            self.emit(
                err("E0202", format!("`{}` is declared twice", f.name.name), f.name.span, "redeclared here")
                    .with_label(prev, "first declared here"),
            );
            return;
        }
        let types: Vec<(ParamDir, Type)> = sig.into_iter().map(|(d, t)| (d, t.unwrap_or(Type::Void))).collect();
        // Same parameter types as an earlier declaration: a prototype and its definition.
        let existing = self.overloads.get(&f.name.name).and_then(|ids| {
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
                        err("E0202", format!("function `{}` is defined twice", f.name.name), f.name.span, "redefined here")
                            .with_label(prev, "first defined here"),
                    );
                    return;
                }
                if st.ret != ret {
                    let prev = st.name_span;
                    self.emit(
                        err("E0253", format!("`{}` is declared with two return types", f.name.name), f.ret.span, "differs")
                            .with_label(prev, "earlier declaration"),
                    );
                    return;
                }
                id
            }
            None => {
                let id = FuncId(self.funcs.len() as u32);
                self.funcs.push(FuncState {
                    name: f.name.name.clone(),
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
                });
                self.overloads.entry(f.name.name.clone()).or_default().push(id);
                id
            }
        };
        // Parameter locals (a definition's names win over a prototype's).
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        for (p, (dir, ty)) in f.params.iter().zip(&types) {
            let local = self.declare_local(&p.name, *ty, LocalKind::Param);
            params.push(Param { local, dir: *dir, ty: *ty, span: p.span, ty_span: p.ty.span });
        }
        {
            let st = &mut self.funcs[id.0 as usize];
            if f.body.is_some() || st.params.is_empty() {
                st.params = params;
                st.semantics = f.params.iter().map(|p| p.semantic.clone()).collect();
                st.span = f.span;
                st.name_span = f.name.span;
                if !f.attrs.is_empty() {
                    st.attrs = f.attrs.clone();
                }
            }
        }
        if let Some(body) = &f.body {
            let saved_uses = std::mem::take(&mut self.cur_uses);
            let saved_calls = std::mem::take(&mut self.cur_calls);
            let saved_breakables = std::mem::take(&mut self.breakables);
            self.cur_ret = Some(ret);
            let stmts = self.stmts(&body.stmts);
            self.cur_ret = None;
            self.breakables = saved_breakables;
            let uses = std::mem::replace(&mut self.cur_uses, saved_uses);
            let calls = std::mem::replace(&mut self.cur_calls, saved_calls);
            let st = &mut self.funcs[id.0 as usize];
            st.body = Some(Block { stmts, span: body.span });
            st.uses = uses;
            st.call_spans = calls;
        }
        self.scopes.pop();
    }

    /// A call of user function `name` (its overload set `cands`).
    pub(super) fn user_call(&mut self, name: &str, cands: &[FuncId], args: &[ast::Expr], span: Span) -> Option<Expr> {
        let mut vals = Vec::new();
        let mut ok = true;
        for a in args {
            match self.expr(a) {
                Some(v) => vals.push(v),
                None => ok = false,
            }
        }
        if !ok || cands.is_empty() {
            return None;
        }
        let arg_types: Vec<Type> = vals.iter().map(|v| v.ty).collect();
        // Cost vectors of the viable candidates.
        let mut viable: Vec<(FuncId, Vec<u32>)> = Vec::new();
        for &c in cands {
            let st = &self.funcs[c.0 as usize];
            if st.params.len() != vals.len() {
                continue;
            }
            let costs: Option<Vec<u32>> = st
                .params
                .iter()
                .zip(&arg_types)
                .map(|(p, &a)| {
                    let there = conversion_cost(&self.types, a, p.ty)?;
                    if p.dir != ParamDir::In {
                        // Copied back: the parameter must convert to the argument too.
                        conversion_cost(&self.types, p.ty, a)?;
                    }
                    Some(there)
                })
                .collect();
            if let Some(costs) = costs {
                viable.push((c, costs));
            }
        }
        // A candidate no worse for every argument and better for one wins; among
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
        let mut out = Vec::new();
        for (v, p) in vals.into_iter().zip(&params) {
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

    /// Is a `break` here legal (inside a loop or switch)? Is a `continue` (inside a loop)?
    pub(super) fn in_breakable(&self, is_continue: bool) -> bool {
        if is_continue {
            self.breakables.contains(&Breakable::Loop)
        } else {
            !self.breakables.is_empty()
        }
    }
}
