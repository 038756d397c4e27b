//! Global declarations: resources (buffers, cbuffers, `ConstantBuffer<T>`),
//! loose uniforms (the implicit `$Globals` cbuffer), `groupshared` and
//! `static` variables; and, once the entry point is known, register bindings
//! (DXC's implicit binding for resources without `register(...)`), ABI slots
//! and groupshared offsets.

use super::types::major_of;
use super::{err, Global, ResourceGroup, Sema, Use};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast;
use crate::frontend::layout::{Layouter, Rules};
use crate::frontend::tast::*;
use crate::interface::{Binding, BindingClass, ResourceKind};

/// Resource types wavec refuses, by name (for messages).
const RESOURCE_KINDS_REFUSED: &[&str] = &[
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "TextureCube",
    "Texture2DArray",
    "Texture2DMS",
    "TextureCubeArray",
    "RWTexture1D",
    "RWTexture2D",
    "RWTexture3D",
    "RWTexture2DArray",
    "SamplerState",
    "SamplerComparisonState",
    "Texture1DArray",
    "Texture2DMSArray",
    "RWTexture1DArray",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
    "sampler",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCUBE",
    "RasterizerOrderedBuffer",
    "RasterizerOrderedStructuredBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "RaytracingAccelerationStructure",
];

/// `static const` arrays with at least this many scalars live in memory (see [`ConstTables`]).
pub(super) const CONST_TABLE_MIN_LEAVES: usize = 16;

/// Most resources one resource array may have (each is a kernel argument).
const MAX_ARRAY_RESOURCES: u32 = 4096;

/// The class a `register(x#)` names, if its letter is t, u or b.
fn register_class(reg: &ast::Register) -> Option<BindingClass> {
    match reg.slot.name.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('t') => Some(BindingClass::T),
        Some('u') => Some(BindingClass::U),
        Some('b') => Some(BindingClass::B),
        _ => None,
    }
}

/// The leaves of a value of type `t` named `path`, in leaf order: each handle
/// with its path (`d[2].Buf`), or a data value (`None`) with the path of the
/// first one met.
fn flatten_handles(types: &Types, t: Type, path: String, out: &mut Vec<(String, Option<HandleType>)>) {
    match t {
        Type::Handle(h) => out.push((path, Some(types.handle(h)))),
        Type::Array(a) => {
            let (e, n) = types.array(a);
            for i in 0..n {
                flatten_handles(types, e, format!("{path}[{i}]"), out);
            }
        }
        Type::Struct(s) => {
            for f in &types.strukt(s).fields {
                flatten_handles(types, f.ty, format!("{path}.{}", f.name), out);
            }
        }
        _ => out.push((path, None)),
    }
}

/// Resource type names that exist in HLSL but not in wavec, with why.
fn unsupported_resource(name: &str) -> Option<&'static str> {
    Some(match name {
        n if n.starts_with("RasterizerOrderedTexture") => "rasterizer-ordered views are not supported",
        n if n.contains("Texture") => "textures are not supported (compute kernels here read buffers)",
        n if n.starts_with("Sampler") || n.starts_with("sampler") => "samplers are not supported",
        n if n.starts_with("RasterizerOrdered") => "rasterizer-ordered views are not supported",
        "RaytracingAccelerationStructure" => "ray tracing is not supported",
        _ => return None,
    })
}

impl Sema {
    pub(super) fn global_var(&mut self, v: &ast::VarDecl) {
        self.saw_precise |= v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Precise);
        // Effect-style sampler state blocks are accepted (and unused: samplers are refused where used).
        let sampler = matches!(&v.ty.kind, ast::TypeKind::Resource { name, .. } if name.to_ascii_lowercase().starts_with("sampler"));
        for d in &v.declarators {
            if let (Some(span), false) = (d.state_block, sampler) {
                self.emit(err("E0206", "a state block `{ ... }` only goes with a sampler", span, "state block"));
            }
        }
        if let ast::TypeKind::Resource { name, arg } = &v.ty.kind {
            self.resource_decl(v, name, arg.as_deref());
            return;
        }
        let has = |q: ast::Qualifier| v.qualifiers.iter().any(|(x, _)| *x == q);
        if !has(ast::Qualifier::Static) && !has(ast::Qualifier::Groupshared) && Sema::constant_id_attr(v).is_none() {
            // A struct holding resources: its resources are resources of their own.
            if let ast::TypeKind::Name(n) = &v.ty.kind {
                if let Some(t) = self.type_names.get(n).map(|t| t.ty) {
                    if self.types.contains_handle(t) {
                        self.resource_struct_decl(v, t);
                        return;
                    }
                }
            }
        }
        if let Some(attr) = Sema::constant_id_attr(v) {
            self.spec_constant_decl(v, attr);
        } else if has(ast::Qualifier::Groupshared) {
            self.groupshared_decl(v);
        } else if has(ast::Qualifier::Static) {
            self.static_decl(v);
        } else {
            self.uniform_decl(v);
        }
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
        Some(Binding { class, index, space })
    }

    /// A resource without an explicit binding gets one later (DXC's implicit
    /// binding); `index` u32::MAX marks it until then.
    fn unbound(class: BindingClass) -> Binding {
        Binding { class, index: u32::MAX, space: 0 }
    }

    fn check_attrs(&mut self, attrs: &[ast::Attribute]) {
        for a in attrs {
            if !matches!(a.name.name.as_str(), "vk::binding" | "vk::counter_binding" | "vk::constant_id") {
                self.warn("W0203", format!("attribute `{}` ignored", a.name.name), a.span, "unknown attribute");
            }
        }
    }

    fn resource_decl(&mut self, v: &ast::VarDecl, rname: &str, arg: Option<&ast::TypeExpr>) {
        self.check_attrs(&v.attrs);
        if let Some((_, span)) = v.qualifiers.iter().find(|(q, _)| *q == ast::Qualifier::Groupshared) {
            self.emit(
                err("E0206", format!("`{rname}` cannot be groupshared"), *span, "groupshared")
                    .with_note("buffers live in device memory; a groupshared array of their elements is what is shared"),
            );
            self.poison_declarators(v);
            return;
        }
        if let Some(why) = unsupported_resource(rname) {
            // Refused where a kernel uses it (see `Global::Unsupported`).
            let what: &'static str = RESOURCE_KINDS_REFUSED.iter().find(|k| **k == rname).copied().unwrap_or("this resource type");
            for d in &v.declarators {
                self.declare_global(&d.name, Global::Unsupported { what, why });
            }
            return;
        }
        let Some((kind, elem)) = self.buffer_kind_elem(rname, arg, v.ty.span) else {
            self.poison_declarators(v);
            return;
        };
        let coherent = v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::GloballyCoherent);
        let default_major = self.default_major(v.span);
        let major = arg.and_then(|a| self.type_major(a)).or(major_of(&v.qualifiers)).unwrap_or(default_major);
        let class = kind.binding_class();
        for d in &v.declarators {
            if let Some(init) = &d.init {
                self.emit(err("E0206", "a resource cannot have an initializer", init.span(), "initializer"));
            }
            if let Some(s) = &d.semantic {
                self.ignored_resource_semantic(s);
            }
            let binding = self.resource_register(&d.registers, class, kind.name());
            let Some(binding) = binding else {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            };
            let h = HandleType { kind, elem, major };
            if !d.dims.is_empty() {
                self.resource_array_decl(d, h, binding, coherent);
                continue;
            }
            let id = ResourceId(self.resources.len() as u32);
            if !self.declare_global(&d.name, Global::Resource(id)) {
                continue;
            }
            self.push_resource(d.name.name.clone(), h, binding, coherent, None, d.name.span);
        }
    }

    /// Adds a resource of handle type `h`; returns its id.
    fn push_resource(
        &mut self,
        name: String,
        h: HandleType,
        binding: Binding,
        coherent: bool,
        array: Option<(String, Vec<u32>)>,
        span: Span,
    ) -> ResourceId {
        let id = ResourceId(self.resources.len() as u32);
        self.resources.push(Resource {
            id,
            name,
            kind: h.kind,
            binding,
            elem: h.elem,
            major: h.major,
            coherent,
            slot: None,
            size_slot: None,
            counter_slot: None,
            array,
            span,
        });
        id
    }

    /// The binding of a resource of class `class` from its `register(...)`
    /// annotations (unbound without one). `None` after an error.
    fn resource_register(&mut self, regs: &[ast::Register], class: BindingClass, what: &str) -> Option<Binding> {
        match regs {
            [] => Some(Sema::unbound(class)),
            [reg] => self.parse_register(reg, class, what),
            // Several: the one of this resource's class (the others name other classes).
            _ => {
                let mine: Vec<&ast::Register> = regs.iter().filter(|r| register_class(r) == Some(class)).collect();
                match mine.as_slice() {
                    [] => self.parse_register(&regs[0], class, what),
                    [reg] => self.parse_register(reg, class, what),
                    [_, second, ..] => {
                        self.emit(err("E0221", format!("{what} has two `{}` registers", class.letter()), second.span, "second register"));
                        None
                    }
                }
            }
        }
    }

    /// `RWBuffer<int> B[4] : register(u4)`, `B[2][3]`, unbounded `B[]`: every element
    /// is a resource of its own, bound to consecutive registers in row-major order
    /// (`B[i][j]` at `base + i * 3 + j`). Without a register, the whole range binds
    /// implicitly in one piece. An unbounded array takes its size from the host's
    /// descriptor count at its register (`--array-size`).
    fn resource_array_decl(&mut self, d: &ast::Declarator, h: HandleType, binding: Binding, coherent: bool) {
        let name = &d.name.name;
        let mut inner = Vec::new();
        for dim in &d.dims[1..] {
            match dim.size.as_ref().and_then(|e| self.const_uint(e, "array size")) {
                Some(0) => {
                    self.emit(err("E0244", "an array cannot have size 0", dim.span, "size 0"));
                    self.declare_global(&d.name, Global::Poisoned);
                    return;
                }
                Some(n) => inner.push(n),
                None => {
                    if dim.size.is_none() {
                        self.emit(err("E0244", "only the first dimension of a resource array may be left open", dim.span, "no size"));
                    }
                    self.declare_global(&d.name, Global::Poisoned);
                    return;
                }
            }
        }
        let per: u64 = inner.iter().map(|&n| n as u64).product();
        let outer = match &d.dims[0].size {
            Some(e) => match self.const_uint(e, "array size") {
                Some(0) => {
                    self.emit(err("E0244", "an array cannot have size 0", d.dims[0].span, "size 0"));
                    None
                }
                other => other,
            },
            None => self.unbounded_count(d, binding, per),
        };
        let Some(outer) = outer else {
            self.declare_global(&d.name, Global::Poisoned);
            return;
        };
        let total = outer as u64 * per;
        if total > MAX_ARRAY_RESOURCES as u64 {
            self.emit(
                err("E0306", format!("resource array `{name}` has {total} elements"), d.span, "too many resources")
                    .with_note(format!("each element is a kernel argument; at most {MAX_ARRAY_RESOURCES} are supported")),
            );
            self.declare_global(&d.name, Global::Poisoned);
            return;
        }
        let mut dims = vec![outer];
        dims.extend(&inner);
        let handle = self.types.handle_of(h);
        let ty = dims.iter().rev().fold(handle, |t, &n| self.types.array_of(t, n));
        let mut leaves = Vec::with_capacity(total as usize);
        for f in 0..total as u32 {
            // Row-major indices of flat element f.
            let mut index = vec![0u32; dims.len()];
            let mut rest = f;
            for (k, &n) in dims.iter().enumerate().rev() {
                index[k] = rest % n;
                rest /= n;
            }
            let path: String = index.iter().map(|i| format!("[{i}]")).collect();
            let b = if binding.index == u32::MAX { binding } else { Binding { index: binding.index.wrapping_add(f), ..binding } };
            let id = self.push_resource(format!("{name}{path}"), h, b, coherent, Some((name.clone(), index)), d.name.span);
            leaves.push(id);
        }
        let g = self.groups.len();
        if self.declare_global(&d.name, Global::Group(g)) {
            self.groups.push(ResourceGroup { ty, leaves, contiguous: true });
        }
    }

    /// The outer size of the unbounded resource array `d` (its host's descriptor
    /// count at its register, divided by the `per` elements of its inner dimensions).
    fn unbounded_count(&mut self, d: &ast::Declarator, binding: Binding, per: u64) -> Option<u32> {
        let name = &d.name.name;
        if binding.index == u32::MAX {
            self.emit(
                err("E0306", format!("unbounded resource array `{name}` needs a register"), d.name.span, "no register(...)")
                    .with_note("write `register(u0)` (or t#, b#): its size is the host's descriptor count there"),
            );
            return None;
        }
        let Some(&(_, count)) = self.opts.descriptor_counts.iter().find(|(b, _)| *b == binding) else {
            self.emit(
                err("E0306", format!("the size of unbounded resource array `{name}` is not known"), d.dims[0].span, "unbounded")
                    .with_note(format!(
                        "every element is a kernel argument, so the kernel needs the host's descriptor count: pass `--array-size {}{}=N` (`wavec run` takes it from the pipeline's ArraySize)",
                        binding.class.letter(),
                        binding.index
                    )),
            );
            return None;
        };
        let outer = count as u64 / per.max(1);
        if outer == 0 {
            self.emit(err(
                "E0306",
                format!("unbounded resource array `{name}`: {count} descriptors do not make one element of {per}"),
                d.dims[0].span,
                "unbounded",
            ));
            return None;
        }
        Some(outer as u32)
    }

    /// A global of a struct type holding resources (`A a : register(u5);`, `A d[8];`):
    /// each resource in it is a resource of its own, named by its path (`a.Buf`,
    /// `d[2].Buf`). With `register(x#)` the resources of class x bind to consecutive
    /// registers from x# in declaration order (elements of arrays in it each take one);
    /// without, each used one binds implicitly (DXC's rules for resources in structs).
    pub(super) fn resource_struct_decl(&mut self, v: &ast::VarDecl, base: Type) {
        self.check_attrs(&v.attrs);
        let coherent = v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::GloballyCoherent);
        for d in &v.declarators {
            if let Some(init) = &d.init {
                self.emit(err("E0206", "a global holding resources cannot have an initializer", init.span(), "initializer"));
            }
            let Some(ty) = self.array_type(base, &d.dims, false) else {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            };
            let mut leaves = Vec::new();
            flatten_handles(&self.types, ty, d.name.name.clone(), &mut leaves);
            if let Some((path, _)) = leaves.iter().find(|(_, h)| h.is_none()) {
                let t = self.type_name(base);
                self.emit(
                    err("E0306", format!("`{}` mixes resources with data (`{path}`)", d.name.name), d.name.span, format!("a `{t}`"))
                        .with_note("a global struct may hold only resources here; keep its data in a cbuffer"),
                );
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            }
            // The explicit base register of each class.
            let mut bases: Vec<Binding> = Vec::new();
            let mut ok = true;
            for reg in &d.registers {
                let Some(class) = register_class(reg) else {
                    self.parse_register(reg, BindingClass::U, "a resource");
                    ok = false;
                    continue;
                };
                match self.parse_register(reg, class, "a resource") {
                    Some(b) if bases.iter().any(|o| o.class == b.class) => {
                        self.emit(err("E0221", format!("two `{}` registers for `{}`", class.letter(), d.name.name), reg.span, "again"));
                        ok = false;
                    }
                    Some(b) => bases.push(b),
                    None => ok = false,
                }
            }
            if !ok {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            }
            let mut ordinal = [0u32; 3];
            let mut ids = Vec::with_capacity(leaves.len());
            for (path, h) in leaves {
                let Some(h) = h else { continue };
                let class = h.kind.binding_class();
                let k = &mut ordinal[class as usize];
                let binding = match bases.iter().find(|b| b.class == class) {
                    Some(b) => Binding { index: b.index.wrapping_add(*k), ..*b },
                    None => Sema::unbound(class),
                };
                *k += 1;
                ids.push(self.push_resource(path, h, binding, coherent, None, d.name.span));
            }
            let g = self.groups.len();
            if self.declare_global(&d.name, Global::Group(g)) {
                self.groups.push(ResourceGroup { ty, leaves: ids, contiguous: false });
            }
        }
    }

    /// Records the resources of groups (`ExprKind::Resources`) that analysed code
    /// refers to as used: a group's value is built only where it was not narrowed
    /// to one element by a constant index or a member.
    pub(super) fn note_group_uses(&mut self, stmts: &[Stmt]) {
        let mut found = Vec::new();
        for s in stmts {
            s.walk_exprs(&mut |x| {
                if let ExprKind::Resources(ids) = &x.kind {
                    found.extend(ids.iter().copied());
                }
            });
        }
        for r in found {
            self.note_use(Use::Resource(r));
        }
    }

    /// The resources a handle expression may hold, when sema can tell (a global,
    /// an element of a resource group, ...); `None` for a buffer held in a
    /// variable or parameter.
    pub(super) fn handle_candidates(&self, e: &Expr) -> Option<Vec<ResourceId>> {
        match &e.kind {
            ExprKind::Resource(r) => Some(vec![*r]),
            ExprKind::Resources(ids) => Some(ids.clone()),
            ExprKind::Index { base, .. } | ExprKind::Member { base, .. } => self.handle_candidates(base),
            ExprKind::Comma { rhs, .. } => self.handle_candidates(rhs),
            _ => None,
        }
    }

    /// `RWStructuredBuffer<P> p : u0;`: a semantic on a resource means nothing; FXC
    /// and DXC accept and ignore it (the resource keeps its implicit binding), so
    /// it is a warning here. One spelled like a register gets a note saying so.
    fn ignored_resource_semantic(&mut self, s: &ast::Ident) {
        let looks_like_register = {
            let mut c = s.name.chars();
            matches!(c.next().map(|c| c.to_ascii_lowercase()), Some('t' | 'u' | 'b' | 's'))
                && !c.as_str().is_empty()
                && c.as_str().chars().all(|c| c.is_ascii_digit())
        };
        let mut d = Diagnostic::warning("W0209", format!("semantic `{}` on a resource is ignored", s.name))
            .with_label(s.span, "ignored, as DXC and FXC ignore it");
        if looks_like_register {
            d = d.with_note(format!(
                "this is a semantic, not a binding: the resource gets an implicit binding; write `register({})` to bind it",
                s.name
            ));
        }
        if !self.in_stdlib {
            self.diags.push(d);
        }
    }

    /// The kind and element type of a buffer type `rname<arg>` (errors reported).
    pub(super) fn buffer_kind_elem(&mut self, rname: &str, arg: Option<&ast::TypeExpr>, ty_span: Span) -> Option<(ResourceKind, Type)> {
        let kind = match rname {
            "StructuredBuffer" => ResourceKind::StructuredBuffer,
            "RWStructuredBuffer" => ResourceKind::RWStructuredBuffer,
            "AppendStructuredBuffer" => ResourceKind::AppendStructuredBuffer,
            "ConsumeStructuredBuffer" => ResourceKind::ConsumeStructuredBuffer,
            "ByteAddressBuffer" => ResourceKind::ByteAddressBuffer,
            "RWByteAddressBuffer" => ResourceKind::RWByteAddressBuffer,
            "Buffer" => ResourceKind::Buffer,
            "RWBuffer" => ResourceKind::RWBuffer,
            "ConstantBuffer" => ResourceKind::ConstantBuffer,
            other => {
                self.emit(err("E0302", format!("`{other}` is not supported"), ty_span, "unsupported resource"));
                return None;
            }
        };
        let elem = match (kind, arg) {
            (ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer, None) => Some(Type::UINT),
            (ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer, Some(a)) => {
                self.emit(err("E0206", format!("`{rname}` takes no element type"), a.span, "remove the template argument"));
                None
            }
            (_, None) if matches!(kind, ResourceKind::Buffer | ResourceKind::RWBuffer) => Some(Type::Vector(ScalarType::Float, 4)),
            (_, None) => {
                self.emit(err("E0206", format!("`{rname}` needs an element type"), ty_span, format!("write `{rname}<float>` for example")));
                None
            }
            (_, Some(a)) => match self.resolve_type(a) {
                Some(Type::Void) => {
                    self.emit(err("E0206", "a buffer element type cannot be void", a.span, "void"));
                    None
                }
                Some(t)
                    if matches!(kind, ResourceKind::Buffer | ResourceKind::RWBuffer)
                        && !matches!(t, Type::Scalar(_) | Type::Vector(..)) =>
                {
                    let n = self.type_name(t);
                    self.emit(
                        err("E0206", format!("`{rname}<{n}>`: typed buffers hold scalars or vectors"), a.span, "not a scalar or vector")
                            .with_note("use a StructuredBuffer for structs and matrices"),
                    );
                    None
                }
                Some(t) if kind == ResourceKind::ConstantBuffer && !matches!(t, Type::Struct(_)) => {
                    let n = self.type_name(t);
                    self.emit(err("E0206", format!("`ConstantBuffer<{n}>` needs a struct type"), a.span, "not a struct"));
                    None
                }
                Some(t)
                    if self.types.contains_scalar(t, &|s| s == ScalarType::Bool)
                        && matches!(kind, ResourceKind::Buffer | ResourceKind::RWBuffer) =>
                {
                    self.emit(err("E0206", "typed buffers cannot hold bool", a.span, "bool element"));
                    None
                }
                other => other,
            },
        };
        let elem = elem?;
        if self.types.leaf_count(elem) == 0 {
            let n = self.type_name(elem);
            self.emit(err(
                "E0206",
                format!("`{rname}<{n}>`: the element type has no data"),
                arg.map_or(ty_span, |a| a.span),
                "empty element",
            ));
            return None;
        }
        if self.types.contains_handle(elem) {
            let n = self.type_name(elem);
            self.emit(err(
                "E0206",
                format!("`{rname}<{n}>`: a buffer cannot hold buffers"),
                arg.map_or(ty_span, |a| a.span),
                "holds a buffer",
            ));
            return None;
        }
        Some((kind, elem))
    }

    /// Is `t` free of buffer handles? Otherwise reports that a value of type `t`
    /// cannot be `what` (handles live in registers, never in memory).
    pub(super) fn handle_free(&mut self, t: Type, span: Span, what: &str) -> bool {
        if !self.types.contains_handle(t) {
            return true;
        }
        let n = self.type_name(t);
        self.emit(
            err("E0206", format!("`{n}` holds a buffer, so it cannot be {what}"), span, "holds a buffer")
                .with_note("buffers can be held by locals, parameters, return values and struct fields of those"),
        );
        false
    }

    /// A buffer type used as a value (parameter, local, field, return type).
    pub(super) fn handle_type(&mut self, rname: &str, arg: Option<&ast::TypeExpr>, ty_span: Span) -> Option<Type> {
        if let Some(d) = Sema::unsupported_value_type(rname, ty_span) {
            if self.cur_ret.is_some() {
                // A local in a function body: an error only if the entry point reaches it
                // (DXC drops functions the kernel does not call).
                self.deferred.push(d);
                let i = self.deferred.len() - 1;
                self.note_use(Use::Deferred(i));
            } else {
                self.emit(d);
            }
            return None;
        }
        let (kind, elem) = self.buffer_kind_elem(rname, arg, ty_span)?;
        let default_major = self.default_major(ty_span);
        let major = arg.and_then(|a| self.type_major(a)).unwrap_or(default_major);
        Some(self.types.handle_of(HandleType { kind, elem, major }))
    }

    /// E0319 for a texture or sampler type (`rname`) used as a value, or `None` if
    /// values of that resource type are not refused here.
    pub(super) fn unsupported_value_type(rname: &str, ty_span: Span) -> Option<Diagnostic> {
        let why = unsupported_resource(rname)?;
        Some(err("E0319", format!("`{rname}` values (parameters, locals, fields) are not supported: {why}"), ty_span, "resource type"))
    }

    pub(super) fn poison_declarators(&mut self, v: &ast::VarDecl) {
        for d in &v.declarators {
            self.globals.entry(d.name.name.clone()).or_insert((Global::Poisoned, d.name.span));
        }
    }

    pub(super) fn cbuffer(&mut self, cb: &ast::Cbuffer) {
        self.check_attrs(&cb.attrs);
        let binding = match &cb.register {
            Some(reg) => self.parse_register(reg, BindingClass::B, "a cbuffer"),
            None => Some(Sema::unbound(BindingClass::B)),
        };
        let sid = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructDef { name: cb.name.name.clone(), fields: Vec::new(), span: cb.span });
        let id = ResourceId(self.resources.len() as u32);
        let ok = binding.is_some();
        // DXC: a `static` inside a cbuffer is an ordinary static global, not a member.
        // Declared once the cbuffer exists, since its initializer may read the members.
        let is_static = |v: &ast::VarDecl| v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Static);
        for v in cb.members.iter().filter(|v| !is_static(v)) {
            self.cbuffer_member(if ok { Some(id) } else { None }, sid, v);
        }
        self.check_pack_offsets(sid, cb);
        if let Some(binding) = binding {
            let major = self.default_major(cb.span);
            self.resources.push(Resource {
                id,
                name: cb.name.name.clone(),
                kind: ResourceKind::ConstantBuffer,
                binding,
                elem: Type::Struct(sid),
                major,
                coherent: false,
                slot: None,
                size_slot: None,
                counter_slot: None,
                array: None,
                span: cb.name.span,
            });
        }
        for v in cb.members.iter().filter(|v| is_static(v)) {
            self.static_decl(v);
        }
    }

    /// Adds the declarators of `v` as fields of cbuffer struct `sid`, naming them globally.
    fn cbuffer_member(&mut self, res: Option<ResourceId>, sid: StructId, v: &ast::VarDecl) {
        for (q, span) in &v.qualifiers {
            match q {
                ast::Qualifier::RowMajor
                | ast::Qualifier::ColumnMajor
                | ast::Qualifier::Uniform
                | ast::Qualifier::Const
                | ast::Qualifier::Extern => {}
                ast::Qualifier::Precise => self.saw_precise = true,
                _ => self.emit(err("E0206", "this qualifier is not allowed on a cbuffer member", *span, "not allowed here")),
            }
        }
        let default_major = self.default_major(v.span);
        let major = major_of(&v.qualifiers).or(self.type_major(&v.ty)).or(Some(default_major));
        let mut base = self.resolve_type(&v.ty);
        if base == Some(Type::Void) {
            self.emit(err("E0243", "a cbuffer member cannot have type void", v.ty.span, "void"));
        }
        if base.is_some_and(|t| !self.handle_free(t, v.ty.span, "a constant-buffer member or uniform")) {
            base = None;
        }
        for d in &v.declarators {
            if let (Some(init), false) = (&d.init, res.is_some() && res == self.globals_cb) {
                self.warn("W0204", "the initializer of a constant-buffer value is ignored", init.span(), "ignored")
            }
            let ty = base.filter(|t| *t != Type::Void).and_then(|b| self.array_type(b, &d.dims, false));
            let offset = match (&d.packoffset, ty) {
                (Some(p), Some(ty)) => {
                    let fmajor = major.unwrap_or(default_major);
                    match self.pack_offset(p, ty, fmajor, res.is_some() && res == self.globals_cb) {
                        Some(o) => Some(o),
                        None => {
                            self.declare_global(&d.name, Global::Poisoned);
                            continue;
                        }
                    }
                }
                _ => None,
            };
            let (Some(ty), Some(res)) = (ty, res) else {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            };
            let index = self.types.structs[sid.0 as usize].fields.len() as u32;
            if !self.declare_global(&d.name, Global::CbField(res, index)) {
                continue;
            }
            self.types.structs[sid.0 as usize].fields.push(Field { name: d.name.name.clone(), ty, major, offset, span: d.name.span });
        }
    }

    /// The byte offset a `packoffset(cN[.comp])` gives a cbuffer member of type `ty`.
    fn pack_offset(&mut self, p: &ast::PackOffset, ty: Type, major: MatrixMajor, in_globals: bool) -> Option<u32> {
        if p.keyword.name != "packoffset" {
            self.emit(err(
                "E0110",
                format!("expected `packoffset` or `register`, found `{}`", p.keyword.name),
                p.keyword.span,
                "unknown annotation",
            ));
            return None;
        }
        if in_globals {
            self.emit(
                err("E0316", "`packoffset` needs a cbuffer", p.span, "on a loose global")
                    .with_note("declare it inside a `cbuffer { ... }`"),
            );
            return None;
        }
        let reg = &p.register.name;
        let row = reg.strip_prefix('c').and_then(|n| n.parse::<u32>().ok()).filter(|r| *r < 4096);
        let Some(row) = row else {
            self.emit(err("E0316", format!("`{reg}` is not a constant register"), p.register.span, "expected c0, c1, ..."));
            return None;
        };
        let comp = match p.component.as_ref().map(|c| c.name.as_str()) {
            None | Some("x" | "r") => 0,
            Some("y" | "g") => 1,
            Some("z" | "b") => 2,
            Some("w" | "a") => 3,
            Some(other) => {
                let span = p.component.as_ref().map_or(p.span, |c| c.span);
                self.emit(err("E0316", format!("`{other}` is not a component"), span, "expected x, y, z or w"));
                return None;
            }
        };
        let offset = row * 16 + comp * 4;
        let size = Layouter::new(&self.types, Rules::Cbuffer).size(ty, major);
        let aggregate = !matches!(ty, Type::Scalar(_) | Type::Vector(..));
        if (aggregate && comp != 0) || (!aggregate && offset / 16 != (offset + size.max(1) - 1) / 16) {
            let t = self.type_name(ty);
            let why =
                if aggregate { "arrays, structs and matrices start a register (`.x`)" } else { "a value cannot cross a 16-byte register" };
            self.emit(err("E0316", format!("`{t}` cannot be placed at {reg}.{}", ["x", "y", "z", "w"][comp as usize]), p.span, why));
            return None;
        }
        Some(offset)
    }

    /// A cbuffer's `packoffset`s: on every member or none, and no two overlapping.
    fn check_pack_offsets(&mut self, sid: StructId, cb: &ast::Cbuffer) {
        let fields = self.types.strukt(sid).fields.clone();
        let placed = fields.iter().filter(|f| f.offset.is_some()).count();
        if placed == 0 {
            return;
        }
        if placed < fields.len() {
            let mut d = err("E0316", "`packoffset` is given for some members of this cbuffer but not others", cb.name.span, "mixed");
            for f in fields.iter().filter(|f| f.offset.is_none()) {
                d = d.with_label(f.span, "no packoffset");
            }
            self.emit(
                d.with_note("DXC only warns here, and where the others go is not specified: give every member a packoffset, or none"),
            );
            return;
        }
        let l = Layouter::new(&self.types, Rules::Cbuffer);
        let major = self.default_major(cb.span);
        let mut spans: Vec<(u32, u32, usize)> =
            fields.iter().enumerate().map(|(i, f)| (f.offset.unwrap_or(0), l.size(f.ty, f.major.unwrap_or(major)), i)).collect();
        spans.sort();
        for w in spans.windows(2) {
            let ((a, asz, ai), (b, _, bi)) = (w[0], w[1]);
            if b < a + asz {
                self.emit(
                    err(
                        "E0316",
                        format!("`{}` overlaps `{}`", fields[bi].name, fields[ai].name),
                        fields[bi].span,
                        "overlapping packoffset",
                    )
                    .with_label(fields[ai].span, format!("bytes {a}..{}", a + asz)),
                );
                return;
            }
        }
    }

    /// A loose global (`float scale;`, `uniform uint n;`, non-static `const`):
    /// a member of the implicit `$Globals` cbuffer, as in DXC.
    fn uniform_decl(&mut self, v: &ast::VarDecl) {
        self.check_attrs(&v.attrs);
        let id = match self.globals_cb {
            Some(id) => id,
            None => {
                let sid = StructId(self.types.structs.len() as u32);
                self.types.structs.push(StructDef { name: "$Globals".into(), fields: Vec::new(), span: v.span });
                let id = ResourceId(self.resources.len() as u32);
                let major = self.default_major(v.span);
                self.resources.push(Resource {
                    id,
                    name: "$Globals".into(),
                    kind: ResourceKind::ConstantBuffer,
                    binding: Sema::unbound(BindingClass::B),
                    elem: Type::Struct(sid),
                    major,
                    coherent: false,
                    slot: None,
                    size_slot: None,
                    counter_slot: None,
                    array: None,
                    span: v.span,
                });
                self.globals_cb = Some(id);
                id
            }
        };
        let Type::Struct(sid) = self.resources[id.0 as usize].elem else { return };
        if let Some(d) = v.declarators.iter().find(|d| d.init.is_some()) {
            let init = d.init.as_ref().map_or(d.span, |i| i.span());
            if !self.in_stdlib {
                self.diags.push(
                    crate::diag::Diagnostic::warning(
                        "W0204",
                        format!("`{}` is a uniform in `$Globals`: its initializer is ignored", d.name.name),
                    )
                    .with_label(init, "ignored")
                    .with_note(
                        "global variables without `static` are shader inputs (as in DXC); write `static const` for a compile-time constant",
                    ),
                );
            }
        }
        self.cbuffer_member(Some(id), sid, v);
    }

    fn groupshared_decl(&mut self, v: &ast::VarDecl) {
        self.check_attrs(&v.attrs);
        let mut base = self.resolve_type(&v.ty);
        if base == Some(Type::Void) {
            self.emit(err("E0243", "a variable cannot have type void", v.ty.span, "void"));
        }
        if base.is_some_and(|t| !self.handle_free(t, v.ty.span, "groupshared")) {
            base = None;
        }
        for d in &v.declarators {
            if let Some(init) = &d.init {
                self.emit(
                    err("E0206", "groupshared variables cannot have an initializer", init.span(), "initializer")
                        .with_note("initialise it in the kernel, then synchronise with GroupMemoryBarrierWithGroupSync()"),
                );
            }
            let ty = base.filter(|t| *t != Type::Void).and_then(|b| self.array_type(b, &d.dims, false));
            let Some(ty) = ty else {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            };
            let id = SharedId(self.shared.len() as u32);
            if self.declare_global(&d.name, Global::Shared(id)) {
                self.shared.push(SharedVar { name: d.name.name.clone(), ty, offset: 0, span: d.name.span });
            }
        }
    }

    pub(super) fn static_decl(&mut self, v: &ast::VarDecl) {
        self.check_attrs(&v.attrs);
        let is_const = v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Const);
        let base = self.resolve_type(&v.ty);
        if base == Some(Type::Void) {
            self.emit(err("E0243", "a variable cannot have type void", v.ty.span, "void"));
        }
        for d in &v.declarators {
            let saved = std::mem::take(&mut self.cur_uses);
            let result = base.filter(|t| *t != Type::Void).and_then(|b| self.array_type(b, &d.dims, true)).and_then(|ty| {
                let (ty, init) = self.initializer(ty, d.init.as_ref(), d.name.span)?;
                Some((ty, init))
            });
            if let Some((_, Some(init))) = &result {
                let span = init.span;
                self.note_group_uses(&[Stmt { kind: StmtKind::Expr(init.clone()), span }]);
            }
            let uses = std::mem::replace(&mut self.cur_uses, saved);
            let Some((ty, init)) = result else {
                self.declare_global(&d.name, Global::Poisoned);
                continue;
            };
            if is_const && init.is_none() {
                self.emit(err("E0242", format!("const `{}` needs an initializer", d.name.name), d.name.span, "no value"));
            }
            let kind = if is_const { LocalKind::Const } else { LocalKind::Static };
            let id = LocalId(self.locals.len() as u32);
            self.locals.push(LocalInfo { name: d.name.name.clone(), ty, kind, span: d.name.span });
            if !self.declare_global(&d.name, Global::Static(id)) {
                continue;
            }
            if is_const {
                if let Some(vals) = init.as_ref().and_then(|e| self.const_eval(e)) {
                    self.const_values.insert(id, vals);
                }
            }
            self.static_uses.insert(id, uses);
            self.statics.push((id, init));
        }
    }

    // ------------------------------------------------------------ binding

    /// Once the entry point is known: which resources and groupshared
    /// variables it uses get bindings, ABI slots and offsets. Returns the next
    /// free ABI slot.
    pub(super) fn bind_resources(&mut self, entry: FuncId) -> u32 {
        let uses = self.reachable_uses(entry);
        let used_res =
            |r: ResourceId| uses.contains(&Use::Resource(r)) || uses.contains(&Use::ResourceSize(r)) || uses.contains(&Use::Counter(r));
        // Explicit bindings of used resources must not collide.
        let used: Vec<usize> = (0..self.resources.len()).filter(|&i| used_res(ResourceId(i as u32))).collect();
        for (k, &i) in used.iter().enumerate() {
            let b = self.resources[i].binding;
            if b.index == u32::MAX {
                continue;
            }
            if let Some(&j) = used[..k].iter().find(|&&j| self.resources[j].binding == b) {
                let (prev_name, prev_span) = (self.resources[j].name.clone(), self.resources[j].span);
                let span = self.resources[i].span;
                self.emit(
                    err("E0222", format!("register `{b}` is bound twice"), span, "bound again here")
                        .with_label(prev_span, format!("`{prev_name}` is already bound to it")),
                );
            }
        }
        // A resource array of which any element is used reserves its whole range.
        let group_of = |rs: &[ResourceGroup], i: usize| rs.iter().position(|g| g.contiguous && g.leaves.contains(&ResourceId(i as u32)));
        let used_groups: std::collections::BTreeSet<usize> = used.iter().filter_map(|&i| group_of(&self.groups, i)).collect();
        // Registers taken so far: (class, space, first, count).
        let mut taken: Vec<(BindingClass, u32, u32, u32)> = Vec::new();
        for &i in &used {
            let b = self.resources[i].binding;
            if b.index != u32::MAX && group_of(&self.groups, i).is_none() {
                taken.push((b.class, b.space, b.index, 1));
            }
        }
        for &g in &used_groups {
            let b = self.resources[self.groups[g].leaves[0].0 as usize].binding;
            if b.index != u32::MAX {
                taken.push((b.class, b.space, b.index, self.groups[g].leaves.len() as u32));
            }
        }
        // Implicit bindings: in declaration order ($Globals first among cbuffers, as DXC
        // creates it first), the lowest free registers of the class in space 0 (a range
        // as long as the array for the elements of a resource array).
        let mut order: Vec<usize> = used.clone();
        order.sort_by_key(|&i| (Some(ResourceId(i as u32)) != self.globals_cb, i));
        for &i in &order {
            if self.resources[i].binding.index != u32::MAX {
                continue;
            }
            let class = self.resources[i].binding.class;
            let members: Vec<ResourceId> = match group_of(&self.groups, i) {
                Some(g) => self.groups[g].leaves.clone(),
                None => vec![ResourceId(i as u32)],
            };
            let n = members.len() as u32;
            let busy = |idx: u32, taken: &[(BindingClass, u32, u32, u32)]| {
                taken.iter().any(|&(c, sp, first, count)| {
                    c == class && sp == 0 && idx < first.saturating_add(count) && first < idx.saturating_add(n)
                })
            };
            let mut idx = 0u32;
            while busy(idx, &taken) {
                idx += 1;
            }
            taken.push((class, 0, idx, n));
            for (k, r) in members.iter().enumerate() {
                self.resources[r.0 as usize].binding = Binding { class, index: idx + k as u32, space: 0 };
            }
        }
        // The handle types whose every used resource needs a size or a counter
        // (buffers held in variables).
        let handle_ids: Vec<Option<HandleId>> = (0..self.resources.len())
            .map(|i| {
                let r = &self.resources[i];
                let h = HandleType { kind: r.kind, elem: r.elem, major: r.major };
                self.types.handles.iter().position(|x| *x == h).map(|p| HandleId(p as u32))
            })
            .collect();
        let any_of = |i: usize, f: fn(HandleId) -> Use| handle_ids[i].is_some_and(|h| uses.contains(&f(h)));
        // ABI slots: used resources in declaration order, then size arguments, then counters.
        let mut slot = 0;
        for &i in &used {
            self.resources[i].slot = Some(slot);
            slot += 1;
        }
        for &i in &used {
            let checked = self.opts.robust_access && self.resources[i].kind != ResourceKind::ConstantBuffer;
            if checked || uses.contains(&Use::ResourceSize(ResourceId(i as u32))) || any_of(i, Use::SizesOf) {
                self.resources[i].size_slot = Some(slot);
                slot += 1;
            }
        }
        for &i in &used {
            if uses.contains(&Use::Counter(ResourceId(i as u32))) || any_of(i, Use::CountersOf) {
                self.resources[i].counter_slot = Some(slot);
                slot += 1;
            }
        }
        // Groupshared offsets: used variables in declaration order, each aligned.
        let l = Layouter::new(&self.types, Rules::Tight);
        let mut at = 0u32;
        for (i, s) in self.shared.iter_mut().enumerate() {
            if !uses.contains(&Use::Shared(SharedId(i as u32))) {
                continue;
            }
            let align = l.align(s.ty).max(4);
            at = at.div_ceil(align) * align;
            s.offset = at;
            at = at.saturating_add(l.size(s.ty, MatrixMajor::Column));
        }
        self.local_memory = at.div_ceil(4) * 4;
        slot
    }

    /// Places the large constant arrays among `statics` in a read-only block
    /// (see [`ConstTables`]): `static const` arrays of at least
    /// [`CONST_TABLE_MIN_LEAVES`] scalars whose values are known.
    pub(super) fn const_tables(&self, statics: &std::collections::BTreeSet<LocalId>, next_slot: &mut u32) -> ConstTables {
        let l = Layouter::new(&self.types, Rules::Tight);
        let mut out = ConstTables::default();
        for (local, _) in &self.statics {
            let info = &self.locals[local.0 as usize];
            let Some(values) = self.const_values.get(local) else { continue };
            let is_array = matches!(info.ty, Type::Array(_));
            if !statics.contains(local) || info.kind != LocalKind::Const || !is_array || values.len() < CONST_TABLE_MIN_LEAVES {
                continue;
            }
            let align = l.align(info.ty).max(4);
            let at = (out.bytes.len() as u32).div_ceil(align) * align;
            let size = l.size(info.ty, MatrixMajor::Column);
            out.bytes.resize((at + size) as usize, 0);
            for (off, c) in l.leaf_offsets(info.ty, MatrixMajor::Column).into_iter().zip(values) {
                let o = (at + off) as usize;
                match *c {
                    Const::Bool(b) => out.bytes[o..o + 4].copy_from_slice(&(b as u32).to_le_bytes()),
                    Const::Int(i) => out.bytes[o..o + 4].copy_from_slice(&i.to_le_bytes()),
                    Const::Uint(u) => out.bytes[o..o + 4].copy_from_slice(&u.to_le_bytes()),
                    Const::Float(f) => out.bytes[o..o + 4].copy_from_slice(&f.to_bits().to_le_bytes()),
                    Const::Bits16(_, b) => out.bytes[o..o + 2].copy_from_slice(&b.to_le_bytes()),
                    Const::Bits64(_, b) => out.bytes[o..o + 8].copy_from_slice(&b.to_le_bytes()),
                }
            }
            out.tables.push((*local, at));
        }
        if !out.tables.is_empty() {
            out.slot = Some(*next_slot);
            *next_slot += 1;
        }
        out
    }

    /// Byte size of a cbuffer or buffer element, for messages and sizeof.
    pub(super) fn tight_size(&self, t: Type) -> u32 {
        Layouter::new(&self.types, Rules::Tight).size(t, MatrixMajor::Column)
    }
}
