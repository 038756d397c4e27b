//! Semantic analysis: names, types, HLSL conversion rules, entry point and
//! resource checks. Produces the typed AST of [`super::tast`].
//!
//! Analysis goes on after an error to report as many independent errors as
//! possible; an expression that failed yields `None` and its parents stay
//! silent (no cascades). Any error makes the whole analysis fail.

use std::collections::HashMap;

use super::ast::{self, ExprKind as AK, StmtKind as SK};
use super::lexer::SCALAR_NAMES;
use super::tast::*;
use crate::diag::{Diagnostic, Span};
use crate::interface::{Binding, BindingClass, ResourceKind};

/// Largest workgroup: product of the numthreads dimensions.
pub const MAX_THREADS: u32 = 1024;
/// Per-dimension limits of numthreads (x, y, z), as in D3D12.
pub const MAX_NUMTHREADS: [u32; 3] = [1024, 1024, 64];

#[derive(Clone, Copy, Debug)]
enum Global {
    Resource(ResourceId),
    CbMember(ResourceId, u32),
}

pub(crate) struct Sema {
    diags: Vec<Diagnostic>,
    locals: Vec<LocalInfo>,
    scopes: Vec<HashMap<String, LocalId>>,
    globals: HashMap<String, (Global, Span)>,
    resources: Vec<Resource>,
    loop_depth: u32,
    reported_too_deep: bool,
}

fn err(code: &'static str, msg: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg).with_label(span, label)
}

fn rank(s: ScalarType) -> u8 {
    match s {
        ScalarType::Bool => 0,
        ScalarType::Int => 1,
        ScalarType::Uint => 2,
        ScalarType::Float => 3,
    }
}

/// Result of resolving a type name.
enum Resolved {
    Ok(Type),
    Err(Diagnostic),
}

/// Maps a builtin type name (`float3`, `dword`, `half2`) to a type.
fn builtin_type(name: &str, span: Span) -> Resolved {
    for base in SCALAR_NAMES {
        let Some(rest) = name.strip_prefix(base) else {
            continue;
        };
        let b = rest.as_bytes();
        let len = match b {
            [] => 1,
            [d @ b'1'..=b'4'] => d - b'0',
            [b'1'..=b'4', b'x', b'1'..=b'4'] => {
                return Resolved::Err(err("E0309", format!("matrix type `{name}` is not supported yet"), span, "matrix type"))
            }
            _ => continue,
        };
        let scalar = match *base {
            "bool" => ScalarType::Bool,
            "int" | "int32_t" | "min16int" | "min12int" => ScalarType::Int,
            "uint" | "dword" | "uint32_t" | "min16uint" => ScalarType::Uint,
            "float" | "float32_t" | "half" | "min16float" | "min10float" => ScalarType::Float,
            other => {
                return Resolved::Err(
                    err("E0309", format!("type `{other}` is not supported yet"), span, "unsupported scalar type")
                        .with_note("supported scalar types: bool, int, uint (dword), float (half)"),
                )
            }
        };
        return Resolved::Ok(Type::of(scalar, len));
    }
    Resolved::Err(err("E0203", format!("unknown type `{name}`"), span, "not a type"))
}

fn const_cast(c: Const, to: ScalarType) -> Const {
    let as_f = |c: Const| match c {
        Const::Bool(b) => b as i32 as f32,
        Const::Int(i) => i as f32,
        Const::Uint(u) => u as f32,
        Const::Float(f) => f,
    };
    match to {
        ScalarType::Bool => Const::Bool(match c {
            Const::Bool(b) => b,
            Const::Int(i) => i != 0,
            Const::Uint(u) => u != 0,
            Const::Float(f) => f != 0.0,
        }),
        ScalarType::Int => Const::Int(match c {
            Const::Bool(b) => b as i32,
            Const::Int(i) => i,
            Const::Uint(u) => u as i32,
            Const::Float(f) => f as i32,
        }),
        ScalarType::Uint => Const::Uint(match c {
            Const::Bool(b) => b as u32,
            Const::Int(i) => i as u32,
            Const::Uint(u) => u,
            Const::Float(f) => f as u32,
        }),
        ScalarType::Float => Const::Float(as_f(c)),
    }
}

/// Parses an integer literal's text: value and whether it has a `u` suffix.
fn int_literal_value(text: &str) -> (Option<u64>, bool) {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let unsigned = text[digits.len()..].contains(['u', 'U']);
    let value = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else {
        digits.parse::<u64>().ok()
    };
    (value, unsigned)
}

fn component_index(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

/// Is `field` a swizzle (`x`, `xy`, `rgba`, ...)? Returns its components.
fn swizzle(field: &str) -> Option<Vec<u8>> {
    if field.is_empty() || field.len() > 4 {
        return None;
    }
    let xyzw = field.chars().all(|c| "xyzw".contains(c));
    let rgba = field.chars().all(|c| "rgba".contains(c));
    if !(xyzw || rgba) {
        return None;
    }
    field.chars().map(component_index).collect()
}

fn lit(c: Const, span: Span) -> Expr {
    let ty = Type::Scalar(match c {
        Const::Bool(_) => ScalarType::Bool,
        Const::Int(_) => ScalarType::Int,
        Const::Uint(_) => ScalarType::Uint,
        Const::Float(_) => ScalarType::Float,
    });
    Expr { kind: ExprKind::Literal(c), ty, span }
}

fn binary_op(op: ast::BinOp) -> BinaryOp {
    match op {
        ast::BinOp::Add => BinaryOp::Add,
        ast::BinOp::Sub => BinaryOp::Sub,
        ast::BinOp::Mul => BinaryOp::Mul,
        ast::BinOp::Div => BinaryOp::Div,
        ast::BinOp::Rem => BinaryOp::Rem,
        ast::BinOp::Shl => BinaryOp::Shl,
        ast::BinOp::Shr => BinaryOp::Shr,
        ast::BinOp::BitAnd => BinaryOp::BitAnd,
        ast::BinOp::BitOr => BinaryOp::BitOr,
        ast::BinOp::BitXor => BinaryOp::BitXor,
        ast::BinOp::Lt => BinaryOp::Lt,
        ast::BinOp::Le => BinaryOp::Le,
        ast::BinOp::Gt => BinaryOp::Gt,
        ast::BinOp::Ge => BinaryOp::Ge,
        ast::BinOp::Eq => BinaryOp::Eq,
        ast::BinOp::Ne => BinaryOp::Ne,
        // Logical operators never reach here.
        ast::BinOp::LogAnd | ast::BinOp::LogOr => BinaryOp::BitAnd,
    }
}

impl Sema {
    pub(crate) fn new() -> Sema {
        Sema {
            diags: Vec::new(),
            locals: Vec::new(),
            scopes: Vec::new(),
            globals: HashMap::new(),
            resources: Vec::new(),
            loop_depth: 0,
            reported_too_deep: false,
        }
    }

    fn emit(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn warn(&mut self, code: &'static str, msg: impl Into<String>, span: Span, label: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, msg).with_label(span, label));
    }

    fn too_deep(&mut self, span: Span) {
        if !self.reported_too_deep {
            self.reported_too_deep = true;
            self.emit(
                err("E0105", "nesting too deep", span, "the nesting limit is reached inside this construct")
                    .with_note(format!("expressions and statements may nest at most {} levels", ast::MAX_DEPTH)),
            );
        }
    }

    // ------------------------------------------------------------ module

    /// Analyses a translation unit; `entry` picks the entry point by name.
    pub(crate) fn run(
        mut self,
        tu: &ast::TranslationUnit,
        entry: Option<&str>,
        file_end: Span,
    ) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
        let mut functions = Vec::new();
        for item in &tu.items {
            match item {
                ast::Item::Function(f) => functions.push(f),
                ast::Item::GlobalVar(v) => self.global_var(v),
                ast::Item::Cbuffer(cb) => self.cbuffer(cb),
                ast::Item::Struct { name, span } => self
                    .emit(err("E0307", "struct declarations are not supported yet", *span, "struct declaration").with_label(name.span, "")),
            }
        }
        let is_entry = |f: &ast::Function| f.attrs.iter().any(|a| a.name.name.eq_ignore_ascii_case("numthreads"));
        let chosen: Option<&ast::Function> = match entry {
            Some(name) => match functions.iter().find(|f| f.name.name == name) {
                Some(f) if is_entry(f) => Some(f),
                Some(f) => {
                    self.emit(
                        err(
                            "E0231",
                            format!("`{name}` is not a compute entry point"),
                            f.name.span,
                            "this function has no [numthreads(...)] attribute",
                        )
                        .with_note("a compute entry point looks like `[numthreads(64, 1, 1)] void main(...)`"),
                    );
                    None
                }
                None => {
                    let mut d = Diagnostic::error("E0231", format!("no entry point named `{name}`"));
                    let names: Vec<String> = functions.iter().filter(|f| is_entry(f)).map(|f| format!("`{}`", f.name.name)).collect();
                    if !names.is_empty() {
                        d = d.with_note(format!("entry points in this file: {}", names.join(", ")));
                    }
                    self.emit(d);
                    None
                }
            },
            None => {
                let entries: Vec<&&ast::Function> = functions.iter().filter(|f| is_entry(f)).collect();
                match entries.len() {
                    0 => {
                        let mut d = Diagnostic::error("E0230", "no compute entry point");
                        for f in &functions {
                            d = d.with_label(f.name.span, "this function has no [numthreads(...)] attribute");
                        }
                        if functions.is_empty() {
                            d = d.with_label(file_end, "expected a function with a [numthreads(...)] attribute");
                        }
                        self.emit(d.with_note("a compute entry point looks like `[numthreads(64, 1, 1)] void main(...)`"));
                        None
                    }
                    1 => Some(entries[0]),
                    _ => {
                        let mut d = Diagnostic::error("E0232", "several compute entry points; choose one by name");
                        for f in &entries {
                            d = d.with_label(f.name.span, "entry point");
                        }
                        self.emit(d.with_note("pass the entry point's name (command line: --entry NAME)"));
                        None
                    }
                }
            }
        };
        for f in functions.iter().filter(|_| chosen.is_some()) {
            if !is_entry(f) {
                self.emit(
                    err(
                        "E0304",
                        format!("function `{}`: functions other than the compute entry point are not supported yet", f.name.name),
                        f.name.span,
                        "helper function",
                    )
                    .with_note("inline its body into the entry point"),
                );
            }
        }
        let entry = chosen.and_then(|f| self.entry(f));
        let has_error = self.diags.iter().any(|d| d.is_error());
        match entry {
            Some(entry) if !has_error => Ok((Module { entry, resources: self.resources, locals: self.locals }, self.diags)),
            _ => Err(self.diags),
        }
    }

    fn declare_global(&mut self, name: &ast::Ident, g: Global) -> bool {
        if let Some((_, prev)) = self.globals.get(&name.name) {
            let prev = *prev;
            self.emit(
                err("E0202", format!("`{}` is declared twice", name.name), name.span, "redeclared here")
                    .with_label(prev, "first declared here"),
            );
            return false;
        }
        self.globals.insert(name.name.clone(), (g, name.span));
        true
    }

    fn parse_register(&mut self, reg: &ast::Register, want: BindingClass, what: &str) -> Option<Binding> {
        let slot = &reg.slot.name;
        let mut chars = slot.chars();
        let class = match chars.next().map(|c| c.to_ascii_lowercase()) {
            Some('t') => Some(BindingClass::T),
            Some('u') => Some(BindingClass::U),
            Some('b') => Some(BindingClass::B),
            _ => None,
        };
        let index = chars.as_str().parse::<u32>().ok();
        let (Some(class), Some(index)) = (class, index) else {
            self.emit(
                err("E0221", format!("malformed register `{slot}`"), reg.slot.span, "expected t#, u# or b#")
                    .with_note("for example `register(u0)` or `register(t1, space2)`"),
            );
            return None;
        };
        let mut space = 0;
        if let Some(sp) = &reg.space {
            match sp.name.strip_prefix("space").and_then(|n| n.parse::<u32>().ok()) {
                Some(s) => space = s,
                None => {
                    self.emit(err("E0221", format!("malformed register space `{}`", sp.name), sp.span, "expected space#"));
                    return None;
                }
            }
        }
        if class != want {
            self.emit(
                err(
                    "E0221",
                    format!("{what} must be bound to a `{}` register, not `{}`", want.letter(), class.letter()),
                    reg.slot.span,
                    format!("expected `{}{}`", want.letter(), index),
                )
                .with_note("t#: read-only buffers, u#: read-write buffers, b#: constant buffers"),
            );
            return None;
        }
        let binding = Binding { class, index, space };
        if let Some(prev) = self.resources.iter().find(|r| r.binding == binding) {
            let prev = (prev.name.clone(), prev.span);
            self.emit(
                err("E0222", format!("register `{binding}` is bound twice"), reg.span, "bound again here")
                    .with_label(prev.1, format!("`{}` is already bound to it", prev.0)),
            );
            return None;
        }
        Some(binding)
    }

    fn missing_register(&mut self, name: &ast::Ident, class: BindingClass) {
        self.emit(
            err("E0220", format!("resource `{}` needs an explicit register(...)", name.name), name.span, "no register")
                .with_note(format!("add `: register({}0)` with a free index", class.letter())),
        );
    }

    fn global_var(&mut self, v: &ast::VarDecl) {
        let ast::TypeKind::Resource { name: rname, arg } = &v.ty.kind else {
            let what = if v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Groupshared) {
                "groupshared variables are not supported yet"
            } else {
                "global variables are not supported yet"
            };
            self.emit(
                err("E0303", what, v.span, "global declaration")
                    .with_note("only StructuredBuffer, RWStructuredBuffer and cbuffer globals are supported"),
            );
            return;
        };
        let kind = match rname.as_str() {
            "StructuredBuffer" => ResourceKind::StructuredBuffer,
            "RWStructuredBuffer" => ResourceKind::RWStructuredBuffer,
            other => {
                self.emit(
                    err("E0302", format!("`{other}` resources are not supported yet"), v.ty.span, "unsupported resource")
                        .with_note("supported: StructuredBuffer<T>, RWStructuredBuffer<T>, cbuffer"),
                );
                return;
            }
        };
        let elem = match arg {
            None => {
                self.emit(err(
                    "E0206",
                    format!("`{rname}` needs an element type"),
                    v.ty.span,
                    format!("write `{rname}<float>` for example"),
                ));
                None
            }
            Some(t) => match self.resolve_type(t) {
                Some(Type::Scalar(s)) => Some(s),
                Some(other @ Type::Vector(..)) => {
                    self.emit(err(
                        "E0310",
                        format!("buffers of `{other}` are not supported yet: use a scalar element type"),
                        t.span,
                        "vector element type",
                    ));
                    None
                }
                Some(Type::Void) => {
                    self.emit(err("E0206", "buffer element type cannot be void", t.span, "void"));
                    None
                }
                None => None,
            },
        };
        let class = if kind == ResourceKind::StructuredBuffer { BindingClass::T } else { BindingClass::U };
        for d in &v.declarators {
            if let Some(a) = d.array {
                self.emit(err("E0306", "arrays of resources are not supported yet", a, "array"));
                continue;
            }
            if let Some(init) = &d.init {
                self.emit(err("E0206", "a resource cannot have an initializer", init.span, "initializer"));
            }
            if let Some(s) = &d.semantic {
                self.emit(err("E0206", "a resource cannot have a semantic", s.span, "expected register(...)"));
            }
            let binding = match &d.register {
                Some(reg) => self.parse_register(reg, class, kind.name()),
                None => {
                    self.missing_register(&d.name, class);
                    None
                }
            };
            let ok = elem.is_some() && binding.is_some();
            // A resource whose declaration failed stays resolvable (id MAX) so that uses stay silent.
            let id = ResourceId(if ok { self.resources.len() as u32 } else { u32::MAX });
            if !self.declare_global(&d.name, Global::Resource(id)) {
                continue;
            }
            if let (Some(elem), Some(binding)) = (elem, binding) {
                self.resources.push(Resource {
                    id,
                    name: d.name.name.clone(),
                    kind,
                    binding,
                    elem,
                    members: Vec::new(),
                    span: d.name.span,
                });
            }
        }
    }

    fn cbuffer(&mut self, cb: &ast::Cbuffer) {
        let binding = match &cb.register {
            Some(reg) => self.parse_register(reg, BindingClass::B, "a cbuffer"),
            None => {
                self.missing_register(&cb.name, BindingClass::B);
                None
            }
        };
        let id = ResourceId(if binding.is_some() { self.resources.len() as u32 } else { u32::MAX });
        let mut members = Vec::new();
        for v in &cb.members {
            let ty = match self.resolve_type(&v.ty) {
                Some(Type::Scalar(s)) => Some(s),
                Some(t @ Type::Vector(..)) => {
                    self.emit(
                        err("E0310", format!("cbuffer members of type `{t}` are not supported yet"), v.ty.span, "vector member")
                            .with_note("declare one scalar member per component"),
                    );
                    None
                }
                Some(Type::Void) => {
                    self.emit(err("E0243", "a cbuffer member cannot have type void", v.ty.span, "void"));
                    None
                }
                None => None,
            };
            for d in &v.declarators {
                if let Some(a) = d.array {
                    self.emit(err("E0306", "arrays are not supported yet", a, "array"));
                    continue;
                }
                if let Some(init) = &d.init {
                    self.emit(err("E0206", "cbuffer members cannot have an initializer", init.span, "initializer"));
                }
                let index = members.len() as u32;
                let gid = if ty.is_some() { id } else { ResourceId(u32::MAX) };
                if !self.declare_global(&d.name, Global::CbMember(gid, index)) {
                    continue;
                }
                if let Some(ty) = ty {
                    members.push(CbMember { name: d.name.name.clone(), ty, offset: 4 * index, span: d.name.span });
                }
            }
        }
        if let Some(binding) = binding {
            self.resources.push(Resource {
                id,
                name: cb.name.name.clone(),
                kind: ResourceKind::ConstantBuffer,
                binding,
                elem: ScalarType::Uint,
                members,
                span: cb.name.span,
            });
        }
    }

    fn resolve_type(&mut self, t: &ast::TypeExpr) -> Option<Type> {
        match &t.kind {
            ast::TypeKind::Void => Some(Type::Void),
            ast::TypeKind::Builtin(name) => match builtin_type(name, t.span) {
                Resolved::Ok(ty) => Some(ty),
                Resolved::Err(d) => {
                    self.emit(d);
                    None
                }
            },
            ast::TypeKind::VectorT { elem, size } => {
                let e = self.resolve_type(elem)?;
                let Type::Scalar(s) = e else {
                    self.emit(err("E0206", "vector<T, N> needs a scalar T", elem.span, "not a scalar type"));
                    return None;
                };
                match int_literal_value(size).0 {
                    Some(n @ 1..=4) => Some(Type::of(s, n as u8)),
                    _ => {
                        self.emit(err("E0206", format!("invalid vector size `{size}`"), t.span, "expected 1 to 4"));
                        None
                    }
                }
            }
            ast::TypeKind::Resource { name, .. } => {
                self.emit(
                    err("E0206", format!("`{name}` can only be declared at global scope"), t.span, "resource type")
                        .with_note("declare resources at global scope with a register(...)"),
                );
                None
            }
            ast::TypeKind::Named(name) => {
                self.emit(
                    err("E0203", format!("unknown type `{name}`"), t.span, "not a type")
                        .with_note("supported types: bool, int, uint, float, their vectors (float3, vector<float, 3>)"),
                );
                None
            }
        }
    }

    // ------------------------------------------------------------ entry

    fn numthreads(&mut self, f: &ast::Function) -> Option<[u32; 3]> {
        let attr = f.attrs.iter().find(|a| a.name.name.eq_ignore_ascii_case("numthreads"))?;
        let mut dims = [0u32; 3];
        let malformed = |span: Span| err("E0235", "numthreads takes three integer literals", span, "expected [numthreads(X, Y, Z)]");
        if attr.args.len() != 3 {
            self.emit(malformed(attr.span));
            return None;
        }
        for (i, a) in attr.args.iter().enumerate() {
            let AK::IntLit(text) = &a.kind else {
                self.emit(malformed(a.span));
                return None;
            };
            match int_literal_value(text).0 {
                Some(v) if (1..=MAX_NUMTHREADS[i] as u64).contains(&v) => dims[i] = v as u32,
                _ => {
                    self.emit(err(
                        "E0234",
                        format!("numthreads {} dimension out of range", ["x", "y", "z"][i]),
                        a.span,
                        format!("must be between 1 and {}", MAX_NUMTHREADS[i]),
                    ));
                    return None;
                }
            }
        }
        let total = dims.iter().map(|&d| d as u64).product::<u64>();
        if total > MAX_THREADS as u64 {
            self.emit(err(
                "E0234",
                format!("numthreads({}, {}, {}) has {total} threads per group", dims[0], dims[1], dims[2]),
                attr.span,
                format!("at most {MAX_THREADS} threads per group"),
            ));
            return None;
        }
        Some(dims)
    }

    fn entry(&mut self, f: &ast::Function) -> Option<Entry> {
        let numthreads = self.numthreads(f);
        for a in &f.attrs {
            let n = a.name.name.to_ascii_lowercase();
            if n != "numthreads" && n != "shader" {
                self.warn("W0203", format!("attribute `{}` ignored", a.name.name), a.span, "unknown attribute");
            }
        }
        if f.ret.kind != ast::TypeKind::Void {
            self.emit(err("E0233", "a compute entry point must return void", f.ret.span, "expected `void`"));
        }
        if let Some(s) = &f.semantic {
            self.emit(err("E0233", "a compute entry point has no return semantic", s.span, "remove this semantic"));
        }
        self.scopes.push(HashMap::new());
        let mut params = Vec::new();
        let mut seen: Vec<(SystemValue, Span)> = Vec::new();
        for p in &f.params {
            for (q, span) in &p.qualifiers {
                if !matches!(q, ast::Qualifier::In | ast::Qualifier::Uniform | ast::Qualifier::Const) {
                    self.emit(err("E0239", "entry point parameters can only be inputs", *span, "not allowed on an entry parameter"));
                }
            }
            let ty = self.resolve_type(&p.ty);
            let sv = match &p.semantic {
                None => {
                    self.emit(
                        err("E0236", format!("parameter `{}` has no semantic", p.name.name), p.name.span, "missing semantic")
                            .with_note("compute entry parameters take SV_DispatchThreadID, SV_GroupThreadID, SV_GroupID or SV_GroupIndex"),
                    );
                    None
                }
                Some(s) => {
                    match s.name.to_ascii_lowercase().as_str() {
                        "sv_dispatchthreadid" => Some(SystemValue::DispatchThreadId),
                        "sv_groupthreadid" => Some(SystemValue::GroupThreadId),
                        "sv_groupid" => Some(SystemValue::GroupId),
                        "sv_groupindex" => Some(SystemValue::GroupIndex),
                        _ => {
                            self.emit(err("E0236", format!("unsupported semantic `{}`", s.name), s.span, "not a compute input").with_note(
                                "compute entry parameters take SV_DispatchThreadID, SV_GroupThreadID, SV_GroupID or SV_GroupIndex",
                            ));
                            None
                        }
                    }
                }
            };
            if let Some(sv) = sv {
                if let Some((_, prev)) = seen.iter().find(|(s, _)| *s == sv) {
                    let prev = *prev;
                    self.emit(
                        err("E0238", format!("`{}` is used twice", sv.semantic()), p.span, "second use").with_label(prev, "first use"),
                    );
                }
                seen.push((sv, p.span));
            }
            if let (Some(ty), Some(sv)) = (ty, sv) {
                let ok = match sv {
                    SystemValue::GroupIndex => {
                        matches!(ty, Type::Scalar(ScalarType::Uint | ScalarType::Int))
                    }
                    _ => matches!(ty.scalar(), Some(ScalarType::Uint | ScalarType::Int)) && (1..=3).contains(&ty.len()),
                };
                if !ok {
                    let want = if sv == SystemValue::GroupIndex { "uint" } else { "uint3 (or uint, uint2)" };
                    self.emit(err("E0237", format!("`{}` cannot have type `{ty}`", sv.semantic()), p.ty.span, format!("expected {want}")));
                    continue;
                }
                let local = self.declare_local(&p.name, ty, LocalKind::Param(sv));
                params.push(EntryParam { local, semantic: sv, ty, span: p.span });
            }
        }
        let stmts = self.stmts(&f.body.stmts);
        self.scopes.pop();
        Some(Entry { name: f.name.name.clone(), numthreads: numthreads?, params, body: Block { stmts, span: f.body.span }, span: f.span })
    }

    // ------------------------------------------------------------ statements

    fn declare_local(&mut self, name: &ast::Ident, ty: Type, kind: LocalKind) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(LocalInfo { name: name.name.clone(), ty, kind, span: name.span });
        let scope = self.scopes.last_mut().expect("a scope is open");
        if let Some(prev) = scope.insert(name.name.clone(), id) {
            let prev_span = self.locals[prev.0 as usize].span;
            self.emit(
                err("E0202", format!("`{}` is declared twice in the same scope", name.name), name.span, "redeclared here")
                    .with_label(prev_span, "first declared here"),
            );
        }
        id
    }

    fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
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

    fn stmt_attrs(&mut self, attrs: &[ast::Attribute], is_loop: bool) -> Vec<StmtAttr> {
        let mut out = Vec::new();
        for a in attrs {
            let name = a.name.name.to_ascii_lowercase();
            let attr = match name.as_str() {
                "loop" => StmtAttr::Loop,
                "fastopt" => StmtAttr::FastOpt,
                "allow_uav_condition" => StmtAttr::AllowUavCondition,
                "branch" => StmtAttr::Branch,
                "flatten" => StmtAttr::Flatten,
                "unroll" => match a.args.as_slice() {
                    [] => StmtAttr::Unroll(None),
                    [ast::Expr { kind: AK::IntLit(t), .. }] if int_literal_value(t).0.is_some_and(|v| v <= u32::MAX as u64) => {
                        StmtAttr::Unroll(int_literal_value(t).0.map(|v| v as u32))
                    }
                    _ => {
                        self.emit(err("E0206", "`unroll` takes one integer literal", a.span, "expected [unroll] or [unroll(N)]"));
                        continue;
                    }
                },
                _ => {
                    self.warn("W0203", format!("attribute `{}` ignored", a.name.name), a.span, "unknown attribute");
                    continue;
                }
            };
            let for_loops = matches!(attr, StmtAttr::Loop | StmtAttr::Unroll(_) | StmtAttr::FastOpt | StmtAttr::AllowUavCondition);
            if for_loops != is_loop {
                let on = if is_loop { "a loop" } else { "an if statement" };
                self.warn("W0203", format!("attribute `{}` has no effect on {on}", a.name.name), a.span, "ignored");
                continue;
            }
            out.push(attr);
        }
        out
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let span = s.span;
        let kind = match &s.kind {
            SK::Decl(v) => {
                self.local_decl(v, out);
                return;
            }
            SK::Expr(e) => match self.expr_stmt(e) {
                Some(k) => k,
                None => return,
            },
            SK::If { attrs, cond, then_stmt, else_stmt } => {
                let attrs = self.stmt_attrs(attrs, false);
                let cond = self.condition(cond);
                let then_blk = self.scoped_block(then_stmt);
                let else_blk = else_stmt.as_ref().map(|e| self.scoped_block(e));
                StmtKind::If { cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), then_blk, else_blk, attrs }
            }
            SK::For { attrs, init, cond, step, body } => {
                let attrs = self.stmt_attrs(attrs, true);
                self.scopes.push(HashMap::new());
                let mut init_stmts = Vec::new();
                match init {
                    Some(ast::ForInit::Decl(v)) => self.local_decl(v, &mut init_stmts),
                    Some(ast::ForInit::Exprs(es)) => {
                        for e in es {
                            if let Some(k) = self.expr_stmt(e) {
                                init_stmts.push(Stmt { kind: k, span: e.span });
                            }
                        }
                    }
                    None => {}
                }
                let cond = cond.as_ref().and_then(|c| self.condition(c));
                let mut steps = Vec::new();
                for e in step {
                    if let Some(k) = self.expr_stmt(e) {
                        steps.push(Stmt { kind: k, span: e.span });
                    }
                }
                self.loop_depth += 1;
                let body = self.scoped_block(body);
                self.loop_depth -= 1;
                self.scopes.pop();
                StmtKind::For { init: init_stmts, cond, step: steps, body, attrs }
            }
            SK::While { attrs, cond, body } => {
                let attrs = self.stmt_attrs(attrs, true);
                let cond = self.condition(cond);
                self.loop_depth += 1;
                let body = self.scoped_block(body);
                self.loop_depth -= 1;
                StmtKind::While { cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), body, attrs }
            }
            SK::DoWhile { attrs, body, cond } => {
                let attrs = self.stmt_attrs(attrs, true);
                self.loop_depth += 1;
                let body = self.scoped_block(body);
                self.loop_depth -= 1;
                let cond = self.condition(cond);
                StmtKind::DoWhile { body, cond: cond.unwrap_or_else(|| lit(Const::Bool(false), span)), attrs }
            }
            SK::Block(b) => {
                self.scopes.push(HashMap::new());
                let stmts = self.stmts(&b.stmts);
                self.scopes.pop();
                StmtKind::Block(Block { stmts, span: b.span })
            }
            SK::Break | SK::Continue => {
                let is_break = matches!(s.kind, SK::Break);
                if self.loop_depth == 0 {
                    let w = if is_break { "break" } else { "continue" };
                    self.emit(err("E0241", format!("`{w}` outside of a loop"), span, "not inside a loop"));
                    return;
                }
                if is_break {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            SK::Return(value) => {
                if let Some(v) = value {
                    self.emit(err("E0240", "the entry point returns void: `return` takes no value", v.span, "unexpected value"));
                    return;
                }
                StmtKind::Return
            }
            SK::Empty => return,
            SK::TooDeep => {
                self.too_deep(span);
                return;
            }
        };
        out.push(Stmt { kind, span });
    }

    fn local_decl(&mut self, v: &ast::VarDecl, out: &mut Vec<Stmt>) {
        let mut kind = LocalKind::Var;
        for (q, span) in &v.qualifiers {
            match q {
                ast::Qualifier::Const => kind = LocalKind::Const,
                ast::Qualifier::Static | ast::Qualifier::Precise | ast::Qualifier::Uniform => {}
                ast::Qualifier::Groupshared => {
                    self.emit(err("E0303", "groupshared variables are not supported yet", *span, "groupshared"));
                }
                _ => self.emit(err("E0239", "`in`/`out`/`inout` only apply to parameters", *span, "not allowed here")),
            }
        }
        let ty = self.resolve_type(&v.ty);
        if ty == Some(Type::Void) {
            self.emit(err("E0243", "a variable cannot have type void", v.ty.span, "void"));
        }
        for d in &v.declarators {
            if let Some(a) = d.array {
                self.emit(err("E0306", "arrays are not supported yet", a, "array"));
                continue;
            }
            if let Some(s) = &d.semantic {
                self.emit(err("E0206", "a local variable cannot have a semantic", s.span, "semantic"));
            }
            if let Some(r) = &d.register {
                self.emit(err("E0206", "a local variable cannot have a register", r.span, "register"));
            }
            let init = d.init.as_ref().and_then(|e| self.expr(e));
            if kind == LocalKind::Const && d.init.is_none() {
                self.emit(err("E0242", format!("const `{}` needs an initializer", d.name.name), d.name.span, "no value"));
            }
            let Some(ty) = ty.filter(|t| *t != Type::Void) else {
                continue;
            };
            let init = init.and_then(|e| self.coerce(e, ty, false));
            let local = self.declare_local(&d.name, ty, kind);
            out.push(Stmt { kind: StmtKind::Decl { local, init }, span: d.span });
        }
    }

    /// A condition: a scalar converted to bool.
    fn condition(&mut self, e: &ast::Expr) -> Option<Expr> {
        let c = self.expr(e)?;
        if c.ty.len() != 1 {
            self.emit(
                err("E0214", format!("a condition must be a scalar, found `{}`", c.ty), c.span, "not a scalar")
                    .with_note("compare one component, e.g. `v.x != 0`"),
            );
            return None;
        }
        self.coerce(c, Type::BOOL, false)
    }

    /// An expression statement: assignments and `++`/`--` become Assign.
    fn expr_stmt(&mut self, e: &ast::Expr) -> Option<StmtKind> {
        match &e.kind {
            AK::Assign { op, place, value } => {
                let p = self.place(place);
                let v = self.expr(value)?;
                let p = p?;
                let pv = Expr { kind: ExprKind::PlaceValue, ty: p.ty, span: place.span };
                let new = match op {
                    None => v,
                    Some(op) => self.binary(*op, pv, v, e.span)?,
                };
                let value = self.coerce(new, p.ty, false)?;
                Some(StmtKind::Assign { place: p, value, compound: op.map(binary_op) })
            }
            AK::IncDec { inc, operand, .. } => {
                let p = self.place(operand)?;
                if p.ty.scalar() == Some(ScalarType::Bool) {
                    let w = if *inc { "increment" } else { "decrement" };
                    self.emit(err("E0206", format!("cannot {w} a bool"), operand.span, "bool"));
                    return None;
                }
                let pv = Expr { kind: ExprKind::PlaceValue, ty: p.ty, span: operand.span };
                let op = if *inc { ast::BinOp::Add } else { ast::BinOp::Sub };
                let one = lit(Const::Int(1), e.span);
                let new = self.binary(op, pv, one, e.span)?;
                let value = self.coerce(new, p.ty, false)?;
                Some(StmtKind::Assign { place: p, value, compound: Some(binary_op(op)) })
            }
            _ => Some(StmtKind::Expr(self.expr(e)?)),
        }
    }

    // ------------------------------------------------------------ places

    fn place(&mut self, e: &ast::Expr) -> Option<Place> {
        let span = e.span;
        match &e.kind {
            AK::Ident(name) => {
                if let Some(id) = self.lookup_local(name) {
                    let info = &self.locals[id.0 as usize];
                    if info.kind == LocalKind::Const {
                        let decl = info.span;
                        self.emit(
                            err("E0212", format!("cannot assign to const `{name}`"), span, "assignment to a constant")
                                .with_label(decl, "declared const here"),
                        );
                        return None;
                    }
                    return Some(Place { kind: PlaceKind::Local(id), ty: info.ty, span });
                }
                match self.globals.get(name).copied() {
                    Some((Global::CbMember(..), decl)) => {
                        self.emit(
                            err("E0211", format!("cannot assign to cbuffer member `{name}`"), span, "cbuffer members are read-only")
                                .with_label(decl, "declared in a cbuffer here"),
                        );
                        None
                    }
                    Some((Global::Resource(_), _)) => {
                        self.emit(err("E0213", format!("cannot assign to resource `{name}`"), span, "index it: `name[i] = ...`"));
                        None
                    }
                    None => {
                        self.unknown_name(name, span);
                        None
                    }
                }
            }
            AK::Member { base, field } => {
                let comps = swizzle(&field.name);
                if let AK::Ident(name) = &base.kind {
                    if let (Some(_), Some(comps)) = (self.lookup_local(name), &comps) {
                        let p = self.place(base)?;
                        let PlaceKind::Local(id) = p.kind else {
                            return None;
                        };
                        return self.component_place(id, p.ty, comps, field, span);
                    }
                }
                if comps.is_some() {
                    // Components of something that is not a local variable.
                    let b = self.place(base)?;
                    self.emit(err(
                        "E0213",
                        "cannot assign to a component of this expression",
                        b.span,
                        "only components of local variables can be assigned",
                    ));
                    return None;
                }
                self.expr(e)?;
                self.emit(err("E0213", "this expression cannot be assigned to", span, "not assignable"));
                None
            }
            AK::Index { base, index } => {
                let (res, idx) = self.buffer_index(base, index)?;
                let r = &self.resources[res.0 as usize];
                if !r.kind.is_writable() {
                    let decl = r.span;
                    let name = r.name.clone();
                    self.emit(
                        err(
                            "E0210",
                            format!("cannot write to `{name}`: StructuredBuffer is read-only"),
                            span,
                            "write to a read-only buffer",
                        )
                        .with_label(decl, "declared as StructuredBuffer here")
                        .with_note("declare it as RWStructuredBuffer<T> with a u# register to write to it"),
                    );
                    return None;
                }
                let ty = Type::Scalar(r.elem);
                Some(Place { kind: PlaceKind::BufferElement { res, index: idx }, ty, span })
            }
            AK::TooDeep => {
                self.too_deep(span);
                None
            }
            _ => {
                self.expr(e)?;
                self.emit(err("E0213", "this expression cannot be assigned to", span, "not assignable"));
                None
            }
        }
    }

    fn component_place(&mut self, id: LocalId, ty: Type, comps: &[u8], field: &ast::Ident, span: Span) -> Option<Place> {
        if comps.len() > 1 {
            self.emit(self.multi_swizzle(field));
            return None;
        }
        let c = comps[0];
        if c >= ty.len() {
            self.emit(err("E0207", format!("`{ty}` has no component `{}`", field.name), field.span, "out of range"));
            return None;
        }
        let scalar = Type::Scalar(ty.scalar()?);
        if ty.len() == 1 {
            return Some(Place { kind: PlaceKind::Local(id), ty: scalar, span });
        }
        Some(Place { kind: PlaceKind::LocalComponent(id, c), ty: scalar, span })
    }

    fn multi_swizzle(&self, field: &ast::Ident) -> Diagnostic {
        err("E0308", format!("swizzle `.{}` is not supported yet", field.name), field.span, "multi-component swizzle")
            .with_note("access one component at a time (.x, .y, .z, .w)")
    }

    fn unknown_name(&mut self, name: &str, span: Span) {
        let mut d = err("E0201", format!("unknown name `{name}`"), span, "not found in this scope");
        let lower = name.to_ascii_lowercase();
        let similar = self
            .scopes
            .iter()
            .flat_map(|s| s.keys())
            .chain(self.globals.keys())
            .find(|k| k.to_ascii_lowercase() == lower && k.as_str() != name)
            .cloned();
        if let Some(s) = similar {
            d = d.with_note(format!("a name `{s}` exists (names are case-sensitive)"));
        }
        self.emit(d);
    }

    /// `base[index]` where base names a structured buffer.
    fn buffer_index(&mut self, base: &ast::Expr, index: &ast::Expr) -> Option<(ResourceId, Expr)> {
        let res = match &base.kind {
            AK::Ident(name) if self.lookup_local(name).is_none() => match self.globals.get(name).copied() {
                Some((Global::Resource(id), _)) => Some(id),
                Some((Global::CbMember(..), _)) => None,
                None => {
                    self.unknown_name(name, base.span);
                    return None;
                }
            },
            _ => None,
        };
        let Some(res) = res else {
            let b = self.expr(base)?;
            if b.ty.len() > 1 {
                self.emit(
                    err("E0306", "indexing a vector is not supported yet", base.span, format!("`{}`", b.ty))
                        .with_note("use a component: .x, .y, .z or .w"),
                );
            } else {
                self.emit(err("E0208", format!("cannot index a value of type `{}`", b.ty), base.span, "not a buffer"));
            }
            return None;
        };
        let idx = self.expr(index);
        if res.0 == u32::MAX {
            return None; // the resource's declaration had an error
        }
        let idx = idx?;
        if idx.ty.len() != 1 || idx.ty.scalar() == Some(ScalarType::Float) {
            self.emit(
                err("E0209", format!("a buffer index must be an integer scalar, found `{}`", idx.ty), idx.span, "expected uint")
                    .with_note("convert explicitly, e.g. `buf[(uint)x]`"),
            );
            return None;
        }
        let idx = self.coerce(idx, Type::UINT, false)?;
        Some((res, idx))
    }

    // ------------------------------------------------------------ expressions

    /// Converts `e` to `to`, inserting Cast/Splat/Truncate nodes; implicit
    /// conversions (explicit = false) warn on truncation.
    fn coerce(&mut self, e: Expr, to: Type, explicit: bool) -> Option<Expr> {
        if e.ty == to {
            return Some(e);
        }
        let (Some(from_s), Some(to_s)) = (e.ty.scalar(), to.scalar()) else {
            self.emit(err("E0204", format!("cannot convert `{}` to `{to}`", e.ty), e.span, format!("has type `{}`", e.ty)));
            return None;
        };
        let (from_n, to_n) = (e.ty.len(), to.len());
        if from_n > 1 && to_n > from_n {
            self.emit(err(
                "E0204",
                format!("cannot convert `{}` to `{to}`", e.ty),
                e.span,
                format!("has {from_n} components, {to_n} needed"),
            ));
            return None;
        }
        if !explicit && from_n > to_n {
            self.warn(
                "W0202",
                format!("implicit truncation of vector type `{}` to `{to}`", e.ty),
                e.span,
                format!("only the first {to_n} component(s) are used"),
            );
        }
        if !explicit && from_s == ScalarType::Float && to_s.is_integer() {
            let exact_literal = matches!(e.kind, ExprKind::Literal(Const::Float(f)) if f.fract() == 0.0);
            if !exact_literal {
                self.warn(
                    "W0201",
                    format!("implicit truncation from `float` to `{}`", to_s.name()),
                    e.span,
                    "the fractional part is dropped",
                )
            }
        }
        let span = e.span;
        let mut e = e;
        if from_n > to_n {
            e = Expr { kind: ExprKind::Truncate { operand: Box::new(e) }, ty: Type::of(from_s, to_n), span };
        }
        if from_s != to_s {
            let ty = e.ty.with_scalar(to_s);
            e = match e.kind {
                ExprKind::Literal(c) => lit(const_cast(c, to_s), span),
                kind => Expr { kind: ExprKind::Cast { operand: Box::new(Expr { kind, ..e }) }, ty, span },
            };
        }
        if e.ty.len() == 1 && to_n > 1 {
            e = Expr { kind: ExprKind::Splat { operand: Box::new(e) }, ty: to, span };
        }
        Some(e)
    }

    /// Common component type and length of two operands (usual arithmetic
    /// conversions); `promote_bool` turns bool into int.
    fn common(&mut self, l: &Expr, r: &Expr, promote_bool: bool) -> Option<Type> {
        let (Some(ls), Some(rs)) = (l.ty.scalar(), r.ty.scalar()) else {
            let bad = if l.ty == Type::Void { l } else { r };
            self.emit(err("E0206", "a void value cannot be used in an expression", bad.span, "void"));
            return None;
        };
        let mut s = if rank(ls) >= rank(rs) { ls } else { rs };
        if promote_bool && s == ScalarType::Bool {
            s = ScalarType::Int;
        }
        let (ln, rn) = (l.ty.len(), r.ty.len());
        let n = if ln == 1 || rn == 1 { ln.max(rn) } else { ln.min(rn) };
        Some(Type::of(s, n))
    }

    fn binary(&mut self, op: ast::BinOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        use ast::BinOp as B;
        match op {
            B::LogAnd | B::LogOr => {
                for x in [&l, &r] {
                    if x.ty.len() != 1 {
                        self.emit(
                            err("E0214", format!("`{}` needs scalar operands, found `{}`", op.symbol(), x.ty), x.span, "not a scalar")
                                .with_note("HLSL 2021 has no vector && and ||; compare components one by one"),
                        );
                        return None;
                    }
                }
                let lhs = self.coerce(l, Type::BOOL, false)?;
                let rhs = self.coerce(r, Type::BOOL, false)?;
                let op = if op == B::LogAnd { LogicalOp::And } else { LogicalOp::Or };
                Some(Expr { kind: ExprKind::Logical { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty: Type::BOOL, span })
            }
            B::Shl | B::Shr => {
                let (ls, rs) = (l.ty.scalar(), r.ty.scalar());
                for (x, s) in [(&l, ls), (&r, rs)] {
                    if s == Some(ScalarType::Float) {
                        self.emit(self.needs_integer(op, x));
                        return None;
                    }
                }
                let common = self.common(&l, &r, true)?;
                let mut ls = ls?;
                if ls == ScalarType::Bool {
                    ls = ScalarType::Int;
                }
                let ty = Type::of(ls, common.len());
                let lhs = self.coerce(l, ty, false)?;
                let rhs = self.coerce(r, ty, false)?;
                Some(Expr { kind: ExprKind::Binary { op: binary_op(op), lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span })
            }
            _ => {
                let both_bool = l.ty.scalar() == Some(ScalarType::Bool) && r.ty.scalar() == Some(ScalarType::Bool);
                let keep_bool = both_bool && matches!(op, B::Eq | B::Ne);
                let common = self.common(&l, &r, !keep_bool)?;
                if matches!(op, B::BitAnd | B::BitOr | B::BitXor) && common.scalar() == Some(ScalarType::Float) {
                    let bad = if l.ty.scalar() == Some(ScalarType::Float) { &l } else { &r };
                    self.emit(self.needs_integer(op, bad));
                    return None;
                }
                let lhs = self.coerce(l, common, false)?;
                let rhs = self.coerce(r, common, false)?;
                let bop = binary_op(op);
                let ty = if bop.is_comparison() { common.with_scalar(ScalarType::Bool) } else { common };
                Some(Expr { kind: ExprKind::Binary { op: bop, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span })
            }
        }
    }

    fn needs_integer(&self, op: ast::BinOp, x: &Expr) -> Diagnostic {
        err("E0205", format!("operator `{}` needs integer operands, found `{}`", op.symbol(), x.ty), x.span, "float operand")
            .with_note("convert explicitly with (int) or (uint), or use asuint() when supported")
    }

    /// Analyses an rvalue expression.
    fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        let span = e.span;
        match &e.kind {
            AK::Ident(name) => {
                if let Some(id) = self.lookup_local(name) {
                    let ty = self.locals[id.0 as usize].ty;
                    return Some(Expr { kind: ExprKind::Local(id), ty, span });
                }
                match self.globals.get(name).copied() {
                    Some((Global::CbMember(res, member), _)) => {
                        if res.0 == u32::MAX {
                            return None;
                        }
                        let r = &self.resources[res.0 as usize];
                        let m = r.members.get(member as usize)?;
                        Some(Expr { kind: ExprKind::CbufferLoad { res, member }, ty: Type::Scalar(m.ty), span })
                    }
                    Some((Global::Resource(_), _)) => {
                        self.emit(
                            err("E0215", format!("resource `{name}` cannot be used as a value"), span, "a resource")
                                .with_note(format!("index it to read an element: `{name}[i]`")),
                        );
                        None
                    }
                    None => {
                        self.unknown_name(name, span);
                        None
                    }
                }
            }
            AK::IntLit(text) => {
                let (value, unsigned) = int_literal_value(text);
                let c = match value {
                    Some(v) if unsigned && v <= u32::MAX as u64 => Const::Uint(v as u32),
                    Some(v) if !unsigned && v <= i32::MAX as u64 => Const::Int(v as i32),
                    Some(v) if !unsigned && v <= u32::MAX as u64 => Const::Uint(v as u32),
                    _ => {
                        self.emit(
                            err("E0216", format!("integer literal `{text}` is out of range"), span, "does not fit in 32 bits")
                                .with_note("integers are 32 bits: at most 4294967295 (0xFFFFFFFF)"),
                        );
                        return None;
                    }
                };
                Some(lit(c, span))
            }
            AK::FloatLit(text) => {
                let body = text.trim_end_matches(['f', 'F', 'h', 'H', 'l', 'L']);
                match body.parse::<f64>() {
                    Ok(v) if (v as f32).is_finite() => Some(lit(Const::Float(v as f32), span)),
                    _ => {
                        self.emit(err("E0217", format!("float literal `{text}` is out of range"), span, "too large for a 32-bit float"));
                        None
                    }
                }
            }
            AK::BoolLit(b) => Some(lit(Const::Bool(*b), span)),
            AK::Unary { op, operand } => {
                let x = self.expr(operand)?;
                let Some(s) = x.ty.scalar() else {
                    self.emit(err("E0206", "a void value cannot be used in an expression", x.span, "void"));
                    return None;
                };
                match op {
                    ast::UnOp::Plus => {
                        if s == ScalarType::Bool {
                            let ty = x.ty.with_scalar(ScalarType::Int);
                            self.coerce(x, ty, false)
                        } else {
                            Some(Expr { span, ..x })
                        }
                    }
                    ast::UnOp::Neg | ast::UnOp::BitNot => {
                        let is_neg = *op == ast::UnOp::Neg;
                        if !is_neg && s == ScalarType::Float {
                            self.emit(
                                err("E0205", format!("operator `~` needs an integer operand, found `{}`", x.ty), x.span, "float operand")
                                    .with_note("convert explicitly with (int) or (uint)"),
                            );
                            return None;
                        }
                        let x = if s == ScalarType::Bool {
                            let ty = x.ty.with_scalar(ScalarType::Int);
                            self.coerce(x, ty, false)?
                        } else {
                            x
                        };
                        let ty = x.ty;
                        if let (true, ExprKind::Literal(c)) = (is_neg, &x.kind) {
                            // Fold negated literals so that `-1` is a constant.
                            let c = match *c {
                                Const::Int(i) => Const::Int(i.wrapping_neg()),
                                Const::Uint(u) => Const::Uint(u.wrapping_neg()),
                                Const::Float(f) => Const::Float(-f),
                                Const::Bool(b) => Const::Int(-(b as i32)),
                            };
                            // `-2147483648` (a uint literal) is the int minimum.
                            let c = match (c, &operand.kind) {
                                (Const::Uint(0x8000_0000), AK::IntLit(t)) if !int_literal_value(t).1 => Const::Int(i32::MIN),
                                (c, _) => c,
                            };
                            return Some(lit(c, span));
                        }
                        let op = if is_neg { UnaryOp::Neg } else { UnaryOp::BitNot };
                        Some(Expr { kind: ExprKind::Unary { op, operand: Box::new(x) }, ty, span })
                    }
                    ast::UnOp::Not => {
                        let ty = x.ty.with_scalar(ScalarType::Bool);
                        let x = self.coerce(x, ty, false)?;
                        Some(Expr { kind: ExprKind::Unary { op: UnaryOp::Not, operand: Box::new(x) }, ty, span })
                    }
                }
            }
            AK::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                self.binary(*op, l?, r?, span)
            }
            AK::Assign { .. } | AK::IncDec { .. } => {
                let what = if matches!(e.kind, AK::Assign { .. }) { "an assignment" } else { "`++`/`--`" };
                self.emit(
                    err("E0305", format!("{what} inside an expression is not supported yet"), span, "used as a value")
                        .with_note("write it as a separate statement"),
                );
                None
            }
            AK::Ternary { cond, then_expr, else_expr } => {
                let c = self.expr(cond);
                let t = self.expr(then_expr);
                let f = self.expr(else_expr);
                let (c, t, f) = (c?, t?, f?);
                if c.ty.len() != 1 {
                    self.emit(
                        err("E0214", format!("the condition of `?:` must be a scalar, found `{}`", c.ty), c.span, "not a scalar")
                            .with_note("component-wise selection (select()) is not supported yet"),
                    );
                    return None;
                }
                let c = self.coerce(c, Type::BOOL, false)?;
                let ty = self.common(&t, &f, false)?;
                let t = self.coerce(t, ty, false)?;
                let f = self.coerce(f, ty, false)?;
                Some(Expr { kind: ExprKind::Select { cond: Box::new(c), then_expr: Box::new(t), else_expr: Box::new(f) }, ty, span })
            }
            AK::Cast { ty, operand } => {
                let to = self.resolve_type(ty);
                let x = self.expr(operand)?;
                let to = to?;
                let x = self.coerce(x, to, true)?;
                Some(Expr { span, ..x })
            }
            AK::Construct { ty, args } => self.construct(ty, args, span),
            AK::Index { base, index } => {
                let (res, index) = self.buffer_index(base, index)?;
                let ty = Type::Scalar(self.resources[res.0 as usize].elem);
                Some(Expr { kind: ExprKind::BufferLoad { res, index: Box::new(index) }, ty, span })
            }
            AK::Member { base, field } => {
                let b = self.expr(base)?;
                let Some(comps) = swizzle(&field.name) else {
                    self.emit(
                        err("E0207", format!("`{}` has no member `{}`", b.ty, field.name), field.span, "unknown member")
                            .with_note("vectors have components .x .y .z .w (or .r .g .b .a)"),
                    );
                    return None;
                };
                if comps.len() > 1 {
                    self.emit(self.multi_swizzle(field));
                    return None;
                }
                let c = comps[0];
                if c >= b.ty.len() {
                    self.emit(err("E0207", format!("`{}` has no component `{}`", b.ty, field.name), field.span, "out of range"));
                    return None;
                }
                if b.ty.len() == 1 {
                    return Some(Expr { span, ..b });
                }
                let ty = Type::Scalar(b.ty.scalar()?);
                Some(Expr { kind: ExprKind::Component { base: Box::new(b), index: c }, ty, span })
            }
            AK::Call { callee, .. } => {
                let name = match &callee.kind {
                    AK::Ident(n) => format!("`{n}`"),
                    _ => "this function".to_string(),
                };
                self.emit(
                    err("E0301", format!("calling {name} is not supported yet"), span, "function call")
                        .with_note("function calls and intrinsics are not in the supported subset yet"),
                );
                None
            }
            AK::TooDeep => {
                self.too_deep(span);
                None
            }
        }
    }

    fn construct(&mut self, ty: &ast::TypeExpr, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let to = self.resolve_type(ty);
        let mut vals = Vec::new();
        let mut ok = true;
        for a in args {
            match self.expr(a) {
                Some(v) => vals.push(v),
                None => ok = false,
            }
        }
        let to = to?;
        if !ok {
            return None;
        }
        let Some(s) = to.scalar() else {
            self.emit(err("E0206", "cannot construct a void value", ty.span, "void"));
            return None;
        };
        let total: u32 = vals.iter().map(|v| v.ty.len() as u32).sum();
        if vals.len() == 1 && (to.len() == 1 || total == to.len() as u32) {
            // `float(x)` and `float3(int3_value)`: an explicit conversion.
            let v = vals.pop()?;
            let v = self.coerce(v, to, true)?;
            return Some(Expr { span, ..v });
        }
        if total != to.len() as u32 || vals.iter().any(|v| v.ty == Type::Void) {
            self.emit(err("E0206", format!("`{to}` needs {} components, {total} given", to.len()), span, "wrong number of components"));
            return None;
        }
        let mut args = Vec::new();
        for v in vals {
            let t = v.ty.with_scalar(s);
            args.push(self.coerce(v, t, true)?);
        }
        Some(Expr { kind: ExprKind::Construct { args }, ty: to, span })
    }
}
