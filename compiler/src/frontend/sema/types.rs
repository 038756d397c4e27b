//! Types: resolving type names, array dimensions, and HLSL's conversions
//! (implicit and explicit) and usual arithmetic conversions.

use super::{err, lit, Sema};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast;
pub(super) use crate::frontend::fold::const_cast;
use crate::frontend::lexer::SCALAR_NAMES;
use crate::frontend::tast::*;

/// The `row_major`/`column_major` among qualifiers, if any.
pub(super) fn major_of(qualifiers: &[(ast::Qualifier, Span)]) -> Option<MatrixMajor> {
    qualifiers.iter().rev().find_map(|(q, _)| match q {
        ast::Qualifier::RowMajor => Some(MatrixMajor::Row),
        ast::Qualifier::ColumnMajor => Some(MatrixMajor::Column),
        _ => None,
    })
}

/// Largest number of leaves a single value may have (keeps the scalarized IR bounded).
pub(super) const MAX_LEAVES: u32 = 1 << 16;

impl Sema {
    /// Maps a builtin or user type name to a type.
    fn named_type(&mut self, name: &str, span: Span) -> Option<Type> {
        match name {
            "matrix" => return Some(Type::Matrix(ScalarType::Float, 4, 4)),
            "vector" => return Some(Type::Vector(ScalarType::Float, 4)),
            _ => {}
        }
        if let Some(t) = self.type_names.get(name).copied() {
            // A failed declaration is known as void: stay silent.
            return (t.ty != Type::Void).then_some(t.ty);
        }
        for base in SCALAR_NAMES {
            let Some(rest) = name.strip_prefix(base) else {
                continue;
            };
            let b = rest.as_bytes();
            let dim = |c: u8| (b'1'..=b'4').contains(&c);
            let shape = match b {
                [] => (1, 0),
                [d] if dim(*d) => ((d - b'0') as u32, 0),
                [r, b'x', c] if dim(*r) && dim(*c) => ((r - b'0') as u32, (c - b'0') as u32),
                _ => continue,
            };
            let scalar = self.scalar_named(base, span)?;
            return Some(match shape {
                (n, 0) => Type::vector(scalar, n),
                (r, c) => Type::Matrix(scalar, r as u8, c as u8),
            });
        }
        if let Some(d) = Sema::ray_tracing_type(name, span) {
            // Like a texture value: an error where the kernel runs the code that has it.
            if self.cur_ret.is_some() {
                self.deferred.push(d);
                let i = self.deferred.len() - 1;
                self.note_use(super::Use::Deferred(i));
            } else {
                self.emit(d);
            }
            return None;
        }
        self.emit(err("E0203", format!("unknown type `{name}`"), span, "not a type"));
        None
    }

    /// E0302 for DXR's types (inline ray tracing: `RayDesc`, `RayQuery<...>`), which
    /// wavec knows by name only.
    pub(super) fn ray_tracing_type(name: &str, span: Span) -> Option<crate::diag::Diagnostic> {
        matches!(name, "RayDesc" | "RayQuery" | "BuiltInTriangleIntersectionAttributes")
            .then(|| err("E0302", format!("`{name}` is a ray-tracing type: ray tracing is not supported"), span, "ray tracing"))
    }

    fn scalar_named(&mut self, base: &str, span: Span) -> Option<ScalarType> {
        let native = self.opts.native_16bit;
        Some(match base {
            "bool" => ScalarType::Bool,
            "int" | "int32_t" | "min12int" => ScalarType::Int,
            "uint" | "dword" | "uint32_t" => ScalarType::Uint,
            "float" | "float32_t" | "min10float" => ScalarType::Float,
            "min16int" => {
                if native {
                    ScalarType::Int16
                } else {
                    ScalarType::Int
                }
            }
            "min16uint" => {
                if native {
                    ScalarType::Uint16
                } else {
                    ScalarType::Uint
                }
            }
            "half" | "min16float" => {
                if native {
                    ScalarType::Half
                } else {
                    ScalarType::Float
                }
            }
            "int16_t" | "uint16_t" | "float16_t" => {
                if !native {
                    self.emit(
                        err("E0313", format!("`{base}` needs `-enable-16bit-types`"), span, "16-bit type")
                            .with_note("compile with -enable-16bit-types (as with dxc), or use a 32-bit type"),
                    );
                    return None;
                }
                match base {
                    "int16_t" => ScalarType::Int16,
                    "uint16_t" => ScalarType::Uint16,
                    _ => ScalarType::Half,
                }
            }
            "int64_t" => ScalarType::Int64,
            "uint64_t" => ScalarType::Uint64,
            "double" | "float64_t" => ScalarType::Double,
            other => {
                self.emit(err("E0203", format!("unknown type `{other}`"), span, "not a type"));
                return None;
            }
        })
    }

    /// The matrix orientation a type expression's modifiers ask for.
    pub(super) fn type_major(&self, t: &ast::TypeExpr) -> Option<MatrixMajor> {
        match &t.kind {
            ast::TypeKind::Modified { modifier: (ast::Qualifier::RowMajor, _), .. } => Some(MatrixMajor::Row),
            ast::TypeKind::Modified { modifier: (ast::Qualifier::ColumnMajor, _), .. } => Some(MatrixMajor::Column),
            ast::TypeKind::Modified { inner, .. } => self.type_major(inner),
            ast::TypeKind::Name(n) => self.type_names.get(n).and_then(|t| t.major),
            _ => None,
        }
    }

    /// A template size argument (`vector<float, N>`): a constant in range.
    fn template_size(&mut self, e: &ast::Expr, what: &str, max: u32) -> Option<u32> {
        let v = self.const_uint(e, what)?;
        if v < 1 || v > max {
            self.emit(err("E0206", format!("invalid {what} `{v}`"), e.span, format!("expected 1 to {max}")));
            return None;
        }
        Some(v)
    }

    pub(super) fn resolve_type(&mut self, t: &ast::TypeExpr) -> Option<Type> {
        match &t.kind {
            ast::TypeKind::Void => Some(Type::Void),
            ast::TypeKind::Name(name) => self.named_type(name, t.span),
            ast::TypeKind::Unsigned(name) => match name.as_deref() {
                None | Some("int") => Some(Type::UINT),
                Some(n) if n.starts_with("int") && n.len() <= 4 => {
                    let rest = &n[3..];
                    self.named_type(&format!("uint{rest}"), t.span)
                }
                Some("min16int") => self.named_type("min16uint", t.span),
                Some(other) => {
                    self.emit(err("E0203", format!("`unsigned {other}` is not a type"), t.span, "not a type"));
                    None
                }
            },
            ast::TypeKind::VectorT { elem, size } => {
                let (Some(elem), Some(size)) = (elem, size) else {
                    return Some(Type::Vector(ScalarType::Float, 4));
                };
                let e = self.resolve_type(elem)?;
                let n = self.template_size(size, "vector size", 4)?;
                let Type::Scalar(s) = e else {
                    self.emit(err("E0206", "vector<T, N> needs a scalar T", elem.span, "not a scalar type"));
                    return None;
                };
                Some(Type::vector(s, n))
            }
            ast::TypeKind::MatrixT { elem, rows, cols } => {
                let (Some(elem), Some(rows), Some(cols)) = (elem, rows, cols) else {
                    return Some(Type::Matrix(ScalarType::Float, 4, 4));
                };
                let e = self.resolve_type(elem)?;
                let r = self.template_size(rows, "matrix row count", 4)?;
                let c = self.template_size(cols, "matrix column count", 4)?;
                let Type::Scalar(s) = e else {
                    self.emit(err("E0206", "matrix<T, R, C> needs a scalar T", elem.span, "not a scalar type"));
                    return None;
                };
                Some(Type::Matrix(s, r as u8, c as u8))
            }
            // A buffer as a value: a parameter, local, field or return type.
            ast::TypeKind::Resource { name, arg } => self.handle_type(name, arg.as_deref(), t.span),
            ast::TypeKind::InlineStruct(s) => self.struct_decl(s),
            ast::TypeKind::Modified { modifier: (q, span), inner } => {
                match q {
                    ast::Qualifier::RowMajor | ast::Qualifier::ColumnMajor | ast::Qualifier::Const => {}
                    ast::Qualifier::Other(m @ ("snorm" | "unorm")) => {
                        self.emit(
                            err("E0315", format!("`{m}` typed-buffer formats are not supported"), *span, "format modifier")
                                .with_note("buffers hold plain 32-bit values here; convert in the shader"),
                        );
                        return None;
                    }
                    _ => {}
                }
                self.resolve_type(inner)
            }
        }
    }

    /// `base` with array dimensions `dims` (outermost first). `unsized_ok`:
    /// the outermost `[]` may be left for an initializer to size (returns an
    /// array of length 0 then).
    pub(super) fn array_type(&mut self, base: Type, dims: &[ast::ArrayDim], unsized_ok: bool) -> Option<Type> {
        let mut sizes = Vec::new();
        for (i, d) in dims.iter().enumerate() {
            match &d.size {
                Some(e) => {
                    let n = self.const_uint(e, "array size")?;
                    if n == 0 {
                        self.emit(err("E0244", "an array cannot have size 0", d.span, "size 0"));
                        return None;
                    }
                    sizes.push(n);
                }
                None if i == 0 && unsized_ok => sizes.push(0),
                None => {
                    self.emit(err("E0244", "this array needs a size", d.span, "no size").with_note("write the size, e.g. `[4]`"));
                    return None;
                }
            }
        }
        let mut t = base;
        for &n in sizes.iter().rev() {
            t = self.types.array_of(t, n);
        }
        if self.types.leaf_count(t) > MAX_LEAVES {
            self.emit(
                err(
                    "E0244",
                    format!("type `{}` is too large", self.type_name(t)),
                    dims.last().map_or(Span::default(), |d| d.span),
                    "too large",
                )
                .with_note(format!("a value may hold at most {MAX_LEAVES} scalars")),
            );
            return None;
        }
        Some(t)
    }

    // ------------------------------------------------------------ conversions

    fn conversion_error(&mut self, e: &Expr, to: Type, why: impl Into<String>) {
        let (from, to_s) = (self.type_name(e.ty), self.type_name(to));
        let mut d = err("E0204", format!("cannot convert `{from}` to `{to_s}`"), e.span, why)
            .with_note(format!("expected `{to_s}`, found `{from}`"));
        if let Type::Handle(h) = e.ty {
            use crate::interface::ResourceKind as K;
            d = d.with_note(match self.types.handle(h).kind {
                K::ByteAddressBuffer | K::RWByteAddressBuffer => "a buffer is not a value of its contents: read it with `.Load(offset)`",
                _ => "a buffer is not a value of its contents: index it to read an element, `buf[i]`",
            });
        }
        self.emit(d);
    }

    /// Converts `e` to `to`, inserting Cast/Splat/Leaves nodes; implicit
    /// conversions (`explicit` false) warn on truncation.
    pub(super) fn coerce(&mut self, e: Expr, to: Type, explicit: bool) -> Option<Expr> {
        // A literal wider than 32 bits takes its value in the target type first.
        let e = match to.scalar() {
            Some(s) if to.is_numeric() && self.wide_literals.contains_key(&e.span) && matches!(e.kind, ExprKind::Literal(_)) => {
                self.settle_wide_literal(e, s, explicit)
            }
            _ => e,
        };
        if e.ty == to {
            return Some(e);
        }
        // `ConstantBuffer<T>` where a value is wanted: its contents, a `T`.
        let e = match e.ty {
            Type::Handle(h)
                if self.types.handle(h).kind == crate::interface::ResourceKind::ConstantBuffer && !matches!(to, Type::Handle(_)) =>
            {
                if !super::expr::effect_free(&e) {
                    self.emit(
                        err("E0206", "this `ConstantBuffer` is chosen by an expression with effects", e.span, "has effects")
                            .with_note("keep the ConstantBuffer in a local first, then read it"),
                    );
                    return None;
                }
                let c = self.constant_contents(e)?;
                if c.ty == to {
                    return Some(c);
                }
                c
            }
            _ => e,
        };
        if e.ty == Type::Void || to == Type::Void {
            self.conversion_error(&e, to, "void has no value");
            return None;
        }
        let span = e.span;
        if !(e.ty.is_numeric() && to.is_numeric()) {
            return self.coerce_aggregate(e, to, explicit);
        }
        let (from_s, to_s) = (e.ty.scalar()?, to.scalar()?);
        let (from_n, to_n) = (e.ty.len(), to.len());
        // Shape first (on the source component type), then the component type.
        let same_count_ok = from_n == to_n
            && match (e.ty, to) {
                (Type::Matrix(_, r, c), Type::Matrix(_, r2, c2)) => r == r2 && c == c2,
                _ => true,
            };
        let from_ty = e.ty;
        let shape_ok = same_count_ok
            || from_n == 1
            || matches!((from_ty, to), (Type::Vector(_, n), Type::Vector(_, m)) if m < n)
            || matches!((from_ty, to), (Type::Vector(..) | Type::Matrix(..), Type::Scalar(_)))
            || matches!((from_ty, to), (Type::Matrix(_, r, c), Type::Matrix(_, r2, c2)) if r2 <= r && c2 <= c)
            || matches!((from_ty, to), (Type::Matrix(_, r, c), Type::Vector(_, m)) if (r == 1 || c == 1) && (m as u32) < from_n);
        if !shape_ok {
            let why = format!("{from_n} component(s) cannot become {to_n}");
            self.conversion_error(&e, to, why);
            return None;
        }
        let shaped = match (from_ty, to) {
            _ if same_count_ok => {
                // Same count: the same shape, vector <-> matrix, 1xN <-> N. Leaves keep their order.
                Some(Expr { ty: to.with_scalar(from_s), ..e })
            }
            _ if from_n == 1 => {
                // Scalar (or 1-component) to vector/matrix: convert the one value, then splat it.
                let scalar = Expr { ty: Type::Scalar(from_s), ..e };
                let scalar = if from_s != to_s {
                    if !explicit
                        && from_s.is_float()
                        && to_s.is_integer()
                        && !matches!(scalar.kind, ExprKind::Literal(Const::Float(f)) if f.fract() == 0.0)
                    {
                        self.warn(
                            "W0201",
                            format!("implicit truncation from `{}` to `{}`", from_s.name(), to_s.name()),
                            span,
                            "the fractional part is dropped",
                        );
                    }
                    self.cast_components(scalar, to_s)
                } else {
                    scalar
                };
                return Some(Expr { kind: ExprKind::Splat { operand: Box::new(scalar) }, ty: to, span });
            }
            (Type::Vector(_, n), Type::Vector(_, m)) if m < n => {
                Some(self.truncate(e, (0..m as u32).collect(), Type::Vector(from_s, m), explicit, to))
            }
            (Type::Vector(..) | Type::Matrix(..), Type::Scalar(_)) => Some(self.truncate(e, vec![0], Type::Scalar(from_s), explicit, to)),
            (Type::Matrix(_, r, c), Type::Matrix(_, r2, c2)) if r2 <= r && c2 <= c => {
                let pick = (0..r2 as u32).flat_map(|i| (0..c2 as u32).map(move |j| i * c as u32 + j)).collect();
                Some(self.truncate(e, pick, Type::Matrix(from_s, r2, c2), explicit, to))
            }
            (Type::Matrix(_, r, c), Type::Vector(_, m)) if (r == 1 || c == 1) && (m as u32) < from_n => {
                Some(self.truncate(e, (0..m as u32).collect(), Type::Vector(from_s, m), explicit, to))
            }
            _ => None,
        };
        let shaped = shaped?;
        if from_s == to_s {
            return Some(shaped);
        }
        if !explicit && from_s.is_float() && to_s.is_integer() {
            let exact_literal = matches!(shaped.kind, ExprKind::Literal(Const::Float(f)) if f.fract() == 0.0);
            if !exact_literal {
                self.warn(
                    "W0201",
                    format!("implicit truncation from `{}` to `{}`", from_s.name(), to_s.name()),
                    span,
                    "the fractional part is dropped",
                );
            }
        }
        Some(self.cast_components(shaped, to_s))
    }

    /// Changes the component type of a numeric expression (same shape), folding literals.
    pub(super) fn cast_components(&mut self, e: Expr, to_s: ScalarType) -> Expr {
        let ty = e.ty.with_scalar(to_s);
        match e.kind {
            ExprKind::Literal(c) => {
                let was_untyped = self.untyped_literals.contains(&e.span);
                // An unsuffixed float literal is a 64-bit `literal float` (as in DXC): a double gets its whole value.
                let c = match self.literal_floats.get(&e.span) {
                    Some(&v) if to_s == ScalarType::Double => Const::Bits64(ScalarType::Double, v.to_bits()),
                    _ => c,
                };
                let out = lit(const_cast(c, to_s), e.span);
                if was_untyped {
                    self.untyped_literals.insert(e.span);
                }
                out
            }
            ExprKind::Splat { operand } if matches!(operand.kind, ExprKind::Literal(_)) => {
                let inner = self.cast_components(*operand, to_s);
                Expr { kind: ExprKind::Splat { operand: Box::new(inner) }, ty, span: e.span }
            }
            kind => Expr { kind: ExprKind::Cast { operand: Box::new(Expr { kind, ..e }) }, ty, span: e.span },
        }
    }

    fn truncate(&mut self, e: Expr, pick: Vec<u32>, ty: Type, explicit: bool, to: Type) -> Expr {
        if !explicit {
            self.warn(
                "W0202",
                format!("implicit truncation of `{}` to `{}`", self.type_name(e.ty), self.type_name(to)),
                e.span,
                "components are dropped",
            );
        }
        let span = e.span;
        Expr { kind: ExprKind::Leaves { operand: Box::new(e), pick }, ty, span }
    }

    /// Conversions involving arrays and structs: only explicit casts of a
    /// scalar (splat, e.g. `(S)0`) or of a value with as many leaves (HLSL's
    /// flat conversion); implicitly, only the same type.
    fn coerce_aggregate(&mut self, e: Expr, to: Type, explicit: bool) -> Option<Expr> {
        let span = e.span;
        if self.types.contains_handle(e.ty) || self.types.contains_handle(to) {
            let why = if explicit { "buffers convert only to the same buffer type" } else { "only the same type converts implicitly" };
            self.conversion_error(&e, to, why);
            return None;
        }
        if !explicit {
            if self.same_layout(e.ty, to) {
                // HLSL 2018: structs with the same layout are interchangeable.
                return Some(Expr { kind: ExprKind::Cast { operand: Box::new(e) }, ty: to, span });
            }
            self.conversion_error(&e, to, "only the same type converts implicitly");
            if super::legacy::legacy_struct_conversion(&self.types, e.ty, to) {
                if let Some(d) = self.diags.last_mut() {
                    d.notes.push("the two structs have the same layout: HLSL 2018 (-HV 2018) converts them, HLSL 2021 does not".into());
                }
            }
            return None;
        }
        let to_leaves = self.types.leaves(to);
        if to_leaves.is_empty() {
            self.conversion_error(&e, to, "void has no value");
            return None;
        }
        if e.ty.is_scalar() {
            // Splat the scalar, then convert leaf by leaf.
            let s = e.ty.scalar()?;
            if to_leaves.iter().all(|&l| l == s) {
                return Some(Expr { kind: ExprKind::Splat { operand: Box::new(e) }, ty: to, span });
            }
            let splat_ty = self.uniform_leaf_type(to, s);
            let splat = Expr { kind: ExprKind::Splat { operand: Box::new(e) }, ty: splat_ty, span };
            return Some(Expr { kind: ExprKind::Cast { operand: Box::new(splat) }, ty: to, span });
        }
        if self.types.leaf_count(e.ty) < to_leaves.len() as u32 {
            let why = format!("{} has fewer scalars than {}", self.type_name(e.ty), self.type_name(to));
            self.conversion_error(&e, to, why);
            return None;
        }
        let n = to_leaves.len() as u32;
        let from_leaves = self.types.leaves(e.ty);
        let e = if from_leaves.len() as u32 > n {
            // Keep the first leaves (a flat truncation), as a same-typed array of them.
            let base = from_leaves[0];
            let ty = if from_leaves[..n as usize].iter().all(|&l| l == base) { self.types.array_of(Type::Scalar(base), n) } else { to };
            Expr { kind: ExprKind::Leaves { operand: Box::new(e), pick: (0..n).collect() }, ty, span }
        } else {
            e
        };
        Some(Expr { kind: ExprKind::Cast { operand: Box::new(e) }, ty: to, span })
    }

    /// A type with the shape (leaf count) of `t` and every leaf `s`: an array of `s`.
    fn uniform_leaf_type(&mut self, t: Type, s: ScalarType) -> Type {
        let n = self.types.leaf_count(t);
        if n == 1 {
            Type::Scalar(s)
        } else {
            self.types.array_of(Type::Scalar(s), n)
        }
    }

    /// Result shape and component type of two numeric operands (usual
    /// arithmetic conversions); `promote_bool` turns bool into int. Unsuffixed
    /// literals adopt the other operand's type of the same kind (int or float).
    pub(super) fn common(&mut self, l: &Expr, r: &Expr, promote_bool: bool) -> Option<Type> {
        let (Some(ls), Some(rs)) = (l.ty.scalar(), r.ty.scalar()) else {
            let bad = if l.ty.scalar().is_none() { l } else { r };
            let what =
                if bad.ty == Type::Void { "a void value".to_string() } else { format!("a value of type `{}`", self.type_name(bad.ty)) };
            self.emit(err("E0206", format!("{what} cannot be used with this operator"), bad.span, "not a number"));
            return None;
        };
        let l_lit = self.is_untyped_literal(l);
        let r_lit = self.is_untyped_literal(r);
        let mut s = match (l_lit, r_lit) {
            (true, false) if ls.is_float() == rs.is_float() || (ls.is_integer() && rs.is_float()) => rs,
            (false, true) if ls.is_float() == rs.is_float() || (rs.is_integer() && ls.is_float()) => ls,
            _ => {
                if ls.rank() >= rs.rank() {
                    ls
                } else {
                    rs
                }
            }
        };
        if promote_bool && s == ScalarType::Bool {
            s = ScalarType::Int;
        }
        let shape = match (l.ty, r.ty) {
            (a, b) if a.len() == 1 => b,
            (a, b) if b.len() == 1 => a,
            (Type::Vector(_, n), Type::Vector(_, m)) => Type::Vector(s, n.min(m)),
            (Type::Matrix(_, r1, c1), Type::Matrix(_, r2, c2)) => Type::Matrix(s, r1.min(r2), c1.min(c2)),
            (a, b) if a.len() == b.len() => a,
            (a, b) => {
                self.emit(
                    err(
                        "E0204",
                        format!("`{}` and `{}` do not combine", self.type_name(a), self.type_name(b)),
                        l.span.to(r.span),
                        "mismatched shapes",
                    )
                    .with_note("a vector and a matrix combine only when they have the same number of components"),
                );
                return None;
            }
        };
        Some(shape.with_scalar(s))
    }

    /// The common component type of two numeric operands, whatever their shapes.
    pub(super) fn common_scalar(&mut self, l: &Expr, r: &Expr) -> Option<ScalarType> {
        let ls = Expr { kind: ExprKind::PlaceValue, ty: Type::Scalar(l.ty.scalar()?), span: l.span };
        let rs = Expr { kind: ExprKind::PlaceValue, ty: Type::Scalar(r.ty.scalar()?), span: r.span };
        let (lk, rk) = (self.is_untyped_literal(l), self.is_untyped_literal(r));
        // Keep literal-ness for the adoption rule.
        let ls = if lk { l.clone() } else { ls };
        let rs = if rk { r.clone() } else { rs };
        let ls = Expr { ty: Type::Scalar(ls.ty.scalar()?), ..ls };
        let rs = Expr { ty: Type::Scalar(rs.ty.scalar()?), ..rs };
        self.common(&ls, &rs, false)?.scalar()
    }

    pub(super) fn is_untyped_literal(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Literal(_) => self.untyped_literals.contains(&e.span),
            ExprKind::Splat { operand } => self.is_untyped_literal(operand),
            _ => false,
        }
    }

    /// A scalar bool condition.
    pub(super) fn condition(&mut self, e: &ast::Expr) -> Option<Expr> {
        let c = self.expr(e)?;
        if !c.ty.is_scalar() {
            let what = self.type_name(c.ty);
            self.emit(
                err("E0214", format!("a condition must be a scalar, found `{what}`"), c.span, "not a scalar")
                    .with_note("reduce it first, e.g. `all(v)`, `any(v)` or `v.x != 0`"),
            );
            return None;
        }
        self.coerce(c, Type::BOOL, false)
    }

    /// An index: an integer scalar converted to uint.
    pub(super) fn index_expr(&mut self, e: Expr, what: &str) -> Option<Expr> {
        // A float index converts (truncating, with warning W0201), as FXC and DXC accept it.
        if !e.ty.is_scalar() {
            let t = self.type_name(e.ty);
            self.emit(
                err("E0209", format!("{what} must be an integer scalar, found `{t}`"), e.span, "expected uint")
                    .with_note("convert explicitly, e.g. `[(uint)x]`"),
            );
            return None;
        }
        self.coerce(e, Type::UINT, false)
    }

    pub(super) fn void_value(&mut self, e: &Expr) -> Diagnostic {
        err("E0206", "a void value cannot be used here", e.span, "void")
    }
}
