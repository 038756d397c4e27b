//! Calls: dispatch to user functions, builtin intrinsics (typed here and
//! expanded by the lowering), intrinsics written in HLSL in the stdlib
//! (`__wavec_NAME`, resolved as overloaded functions), `Interlocked*`, and
//! resource methods (`Load`/`Store` on byte-address buffers, `GetDimensions`).

use super::{err, Global, Sema, Use};
use crate::diag::Span;
use crate::frontend::ast::{self, ExprKind as AK};
use crate::frontend::tast::*;
use crate::interface::ResourceKind;

/// Intrinsics implemented in `stdlib/wavec_intrinsics.hlsl` as `__wavec_NAME`.
const STDLIB_INTRINSICS: &[&str] = &[
    "lerp",
    "step",
    "smoothstep",
    "exp",
    "log",
    "log10",
    "pow",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "degrees",
    "radians",
    "sign",
    "cross",
    "length",
    "distance",
    "normalize",
    "reflect",
    "refract",
    "faceforward",
    "ldexp",
    "determinant",
    "sincos",
    "dot2add",
    "dot4add_i8packed",
    "dot4add_u8packed",
    "D3DCOLORtoUBYTE4",
    "AddUint64",
];

/// HLSL intrinsics that exist but not for compute kernels here.
fn unsupported_intrinsic(name: &str) -> Option<&'static str> {
    Some(match name {
        "ddx" | "ddy" | "ddx_fine" | "ddy_fine" | "ddx_coarse" | "ddy_coarse" | "fwidth" | "clip" | "EvaluateAttributeSnapped" => {
            "is a pixel-shader intrinsic"
        }
        n if n.starts_with("tex") => "samples a texture (textures are not supported)",
        "abort" | "printf" | "errorf" => "is not supported",
        "noise" => "is not supported (it was only ever a software effect)",
        "msad4" | "dst" | "lit" | "modf" | "frexp" | "rint" => "is not supported",
        n if n.starts_with("Wave") || n.starts_with("Quad") => "is not supported",
        n if n.starts_with("Interlocked") => "is not supported",
        _ => return None,
    })
}

fn builtin(name: &str) -> Option<Intrinsic> {
    use Intrinsic::*;
    Some(match name {
        "abs" => Abs,
        "min" => Min,
        "max" => Max,
        "clamp" => Clamp,
        "saturate" => Saturate,
        "mad" => Mad,
        "floor" => Floor,
        "ceil" => Ceil,
        "round" => Round,
        "trunc" => Trunc,
        "frac" => Frac,
        "fmod" => Fmod,
        "sqrt" => Sqrt,
        "rsqrt" => Rsqrt,
        "rcp" => Rcp,
        "exp2" => Exp2,
        "log2" => Log2,
        "sin" => Sin,
        "cos" => Cos,
        "isnan" => IsNan,
        "isinf" => IsInf,
        "isfinite" => IsFinite,
        "dot" => Dot,
        "any" => Any,
        "all" => All,
        "countbits" => CountBits,
        "reversebits" => ReverseBits,
        "firstbithigh" => FirstBitHigh,
        "firstbitlow" => FirstBitLow,
        "asuint" => AsUint,
        "asint" => AsInt,
        "asfloat" => AsFloat,
        "asint16" => AsInt16,
        "asuint16" => AsUint16,
        "asfloat16" => AsFloat16,
        "f32tof16" => F32ToF16,
        "f16tof32" => F16ToF32,
        "fma" => Fma,
        "asdouble" => AsDouble,
        "__wavec_lo32" => DoubleLo,
        "__wavec_hi32" => DoubleHi,
        "mul" => Mul,
        "transpose" => Transpose,
        "select" => Select,
        "WaveGetLaneCount" => WaveGetLaneCount,
        "WaveGetLaneIndex" => WaveGetLaneIndex,
        "WaveIsFirstLane" => WaveIsFirstLane,
        "WaveActiveSum" => WaveActiveSum,
        "WaveActiveProduct" => WaveActiveProduct,
        "WaveActiveMin" => WaveActiveMin,
        "WaveActiveMax" => WaveActiveMax,
        "WaveActiveBitAnd" => WaveActiveBitAnd,
        "WaveActiveBitOr" => WaveActiveBitOr,
        "WaveActiveBitXor" => WaveActiveBitXor,
        "WaveActiveCountBits" => WaveActiveCountBits,
        "WaveActiveAllTrue" => WaveActiveAllTrue,
        "WaveActiveAnyTrue" => WaveActiveAnyTrue,
        "WaveActiveAllEqual" => WaveActiveAllEqual,
        "WaveActiveBallot" => WaveActiveBallot,
        "WaveReadLaneAt" => WaveReadLaneAt,
        "WaveReadLaneFirst" => WaveReadLaneFirst,
        "WavePrefixSum" => WavePrefixSum,
        "WavePrefixProduct" => WavePrefixProduct,
        "WavePrefixCountBits" => WavePrefixCountBits,
        "QuadReadAcrossX" => QuadReadAcrossX,
        "QuadReadAcrossY" => QuadReadAcrossY,
        "QuadReadAcrossDiagonal" => QuadReadAcrossDiagonal,
        "QuadReadLaneAt" => QuadReadLaneAt,
        "GroupMemoryBarrier" => GroupMemoryBarrier,
        "GroupMemoryBarrierWithGroupSync" => GroupMemoryBarrierWithGroupSync,
        "DeviceMemoryBarrier" => DeviceMemoryBarrier,
        "DeviceMemoryBarrierWithGroupSync" => DeviceMemoryBarrierWithGroupSync,
        "AllMemoryBarrier" => AllMemoryBarrier,
        "AllMemoryBarrierWithGroupSync" => AllMemoryBarrierWithGroupSync,
        _ => return None,
    })
}

fn atomic_op(name: &str) -> Option<AtomicOp> {
    Some(match name {
        "InterlockedAdd" => AtomicOp::Add,
        "InterlockedMin" => AtomicOp::Min,
        "InterlockedMax" => AtomicOp::Max,
        "InterlockedAnd" => AtomicOp::And,
        "InterlockedOr" => AtomicOp::Or,
        "InterlockedXor" => AtomicOp::Xor,
        "InterlockedExchange" => AtomicOp::Exchange,
        "InterlockedCompareExchange" => AtomicOp::CompareExchange,
        "InterlockedCompareStore" => AtomicOp::CompareStore,
        _ => return None,
    })
}

/// The dimension `mul` sums over: a vector's length, a left matrix's columns, a right matrix's rows.
fn inner_dim(t: Type, left: bool) -> u32 {
    match t {
        Type::Vector(_, n) => n as u32,
        Type::Matrix(_, _, c) if left => c as u32,
        Type::Matrix(_, r, _) => r as u32,
        _ => 1,
    }
}

/// Float type of the same shape (ints and bools become float; half stays half).
fn float_like(t: Type) -> Type {
    match t.scalar() {
        Some(ScalarType::Half) => t,
        _ => t.with_scalar(ScalarType::Float),
    }
}

impl Sema {
    pub(super) fn call(&mut self, callee: &ast::Expr, targs: &[ast::TypeExpr], args: &[ast::Expr], span: Span) -> Option<Expr> {
        match &callee.kind {
            AK::Ident(name) => {
                // Inside a member function, a sibling member function: `this.name(...)`.
                if let (Some((sid, origin)), None) = (self.cur_struct, self.lookup_local(name)) {
                    if let Some((mname, cands)) = self.find_method(sid, origin, name) {
                        if let Some((this, _, _)) = self.cur_this {
                            let obj = Expr { kind: ExprKind::Local(this), ty: Type::Struct(sid), span: callee.span };
                            return self.method_call(&mname, &cands, obj, args, span);
                        }
                        if cands.iter().any(|c| self.has_this(*c)) {
                            self.emit(
                                err(
                                    "E0215",
                                    format!("`{name}` needs an object, and a static member function has none"),
                                    callee.span,
                                    "not static",
                                )
                                .with_note("pass the object as a parameter, or make the function static"),
                            );
                            return None;
                        }
                        return self.user_call(&mname, &cands, args, span);
                    }
                }
                // Stdlib bodies are analysed after the user's code: they never see its globals.
                let user_global = !self.in_stdlib && matches!(self.globals.get(name), Some((g, _)) if !matches!(g, Global::Poisoned));
                if self.lookup_local(name).is_some() || user_global {
                    self.emit(err("E0215", format!("`{name}` is not a function"), callee.span, "not a function"));
                    return None;
                }
                if let Some(t) = targs.first() {
                    self.emit(err("E0312", "template arguments are only supported on Load and Store", t.span, "template argument"));
                    return None;
                }
                if let Some(cands) = self.overloads.get(name.as_str()).cloned() {
                    // The stdlib's own functions are visible only to the stdlib, and the user's
                    // functions never to it.
                    let is_stdlib = cands.first().is_some_and(|c| self.funcs[c.0 as usize].stdlib);
                    let hidden = self.in_stdlib != is_stdlib;
                    if !hidden {
                        return self.user_call(name, &cands, args, span);
                    }
                }
                self.intrinsic_call(name, args, span)
            }
            AK::Member { base, field } => {
                if let AK::Ident(rname) = &base.kind {
                    if self.lookup_local(rname).is_none() {
                        match self.globals.get(rname).copied() {
                            Some((Global::Resource(res), _)) if self.resources[res.0 as usize].kind == ResourceKind::ConstantBuffer => {
                                let m = &field.name;
                                self.emit(err("E0215", format!("constant buffers have no method `{m}`"), field.span, "no such method"));
                                return None;
                            }
                            Some((Global::Poisoned, _)) => return None,
                            _ => {}
                        }
                    }
                }
                let b = self.expr(base)?;
                if matches!(b.ty, Type::Handle(_)) {
                    return self.resource_method(b, field, targs, args, span);
                }
                if let Type::Struct(sid) = b.ty {
                    if let Some((mname, cands)) = self.find_method(sid, sid, &field.name) {
                        return self.method_call(&mname, &cands, b, args, span);
                    }
                }
                let t = self.type_name(b.ty);
                self.emit(
                    err("E0215", format!("`{t}` has no method `{}`", field.name), field.span, "not a method")
                        .with_note("only resources and structs with member functions have methods"),
                );
                None
            }
            // `S::f(...)`: a static member function, or inside a member function of a
            // struct derived from S (or S itself), S's `f` called on this object.
            AK::Scoped(a, b) if self.type_names.contains_key(a) => {
                let Some(Type::Struct(sid)) = self.type_names.get(a).map(|t| t.ty) else { return None };
                if let Some((this, cur, _)) = self.cur_this {
                    if self.derives_from(cur, sid) {
                        if let Some((mname, cands)) = self.find_method(cur, sid, b) {
                            let obj = Expr { kind: ExprKind::Local(this), ty: Type::Struct(cur), span: callee.span };
                            return self.method_call(&mname, &cands, obj, args, span);
                        }
                    }
                }
                match self.find_method(sid, sid, b) {
                    Some((_, cands)) if cands.iter().all(|c| self.has_this(*c)) => {
                        self.emit(
                            err("E0215", format!("`{a}::{b}` is not static: it needs an object"), callee.span, "called without an object")
                                .with_note(format!("call it on a `{a}` value: `obj.{b}(...)`")),
                        );
                        None
                    }
                    Some((mname, cands)) => self.user_call(&mname, &cands, args, span),
                    None => {
                        self.emit(err("E0201", format!("`{a}` has no member function `{b}`"), callee.span, "not declared"));
                        None
                    }
                }
            }
            AK::TooDeep => {
                self.too_deep(callee.span);
                None
            }
            _ => {
                self.expr(callee)?;
                self.emit(err("E0215", "this expression cannot be called", callee.span, "not a function"));
                None
            }
        }
    }

    /// `obj.name(args)` for a member function: `obj` is the implicit first argument.
    fn method_call(&mut self, mname: &str, cands: &[FuncId], obj: Expr, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let mut vals = vec![obj];
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
        // Static member functions take no object.
        let statics: Vec<FuncId> = cands.iter().copied().filter(|c| !self.has_this(*c)).collect();
        if statics.len() == cands.len() {
            vals.remove(0);
            return self.call_values(mname, cands, vals, false, span);
        }
        self.call_values(mname, cands, vals, true, span)
    }

    /// Is `f` a member function with an object (not static)?
    fn has_this(&self, f: FuncId) -> bool {
        self.funcs[f.0 as usize].params.first().is_some_and(|p| self.locals[p.local.0 as usize].name == "this")
    }

    fn arity(&mut self, name: &str, args: &[ast::Expr], n: usize, span: Span) -> bool {
        if args.len() != n {
            self.emit(err("E0254", format!("`{name}` takes {n} argument(s), {} given", args.len()), span, "wrong number of arguments"));
            return false;
        }
        true
    }

    fn intrinsic_call(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<Expr> {
        if let Some(op) = atomic_op(name) {
            return self.interlocked(name, op, None, args, span);
        }
        if name == "NonUniformResourceIndex" {
            // Marks an index of a resource array as non-uniform: every index may be
            // here (a resource array index selects per lane), so it is the index itself.
            if !self.arity(name, args, 1, span) {
                return None;
            }
            let v = self.expr(&args[0])?;
            let v = self.index_expr(v, "a resource index")?;
            return Some(Expr { span, ..v });
        }
        if name == "and" || name == "or" {
            if !self.arity(name, args, 2, span) {
                return None;
            }
            let l = self.expr(&args[0]);
            let r = self.expr(&args[1]);
            let op = if name == "and" { BinaryOp::And } else { BinaryOp::Or };
            return self.elementwise_logic(name, op, l?, r?, span);
        }
        // `asuint(d, out lo, out hi)`: the words of doubles (the stdlib's `__wavec_asuint`).
        let split = name == "asuint" && args.len() == 3;
        if STDLIB_INTRINSICS.contains(&name) || split {
            let internal = format!("__wavec_{name}");
            let cands = self.overloads.get(&internal).cloned().unwrap_or_default();
            if cands.is_empty() {
                self.emit(err("E0400", format!("internal compiler error: stdlib function `{internal}` is missing"), span, "here"));
                return None;
            }
            let mut vals = Vec::new();
            for a in args {
                vals.push(self.expr(a));
            }
            let vals: Vec<Expr> = vals.into_iter().collect::<Option<_>>()?;
            // HLSL has double versions of sign and of asuint's split only (as DXC).
            let double = if split { None } else { vals.iter().find(|v| v.ty.scalar() == Some(ScalarType::Double)) };
            if let Some(d) = double.filter(|_| name != "sign") {
                let (t, at) = (self.type_name(d.ty), d.span);
                self.no_double(name, &t, at);
                return None;
            }
            if split && vals[0].ty.scalar() != Some(ScalarType::Double) {
                let (t, at) = (self.type_name(vals[0].ty), vals[0].span);
                self.emit(err("E0204", format!("`asuint` with three arguments splits doubles, found `{t}`"), at, "not a double"));
                return None;
            }
            return self.call_values(name, &cands, vals, false, span);
        }
        let Some(op) = builtin(name) else {
            if let Some(why) = unsupported_intrinsic(name) {
                self.emit(err("E0318", format!("`{name}` {why}"), span, "unsupported intrinsic"));
            } else {
                let mut d = err("E0201", format!("unknown function `{name}`"), span, "not declared");
                let lower = name.to_ascii_lowercase();
                let mut known: Vec<String> = self.overloads.keys().filter(|k| !k.starts_with("__wavec_")).cloned().collect();
                known.extend(STDLIB_INTRINSICS.iter().map(|s| s.to_string()));
                known.sort();
                if let Some(s) = known.into_iter().find(|k| k.to_ascii_lowercase() == lower) {
                    d = d.with_note(format!("a function `{s}` exists (names are case-sensitive)"));
                }
                self.emit(d.with_note("functions must be declared before they are called"));
            }
            return None;
        };
        let mut vals = Vec::new();
        let mut ok = true;
        for a in args {
            match self.expr(a) {
                Some(v) if v.ty == Type::Void => {
                    let d = self.void_value(&v);
                    self.emit(d);
                    ok = false;
                }
                Some(v) => vals.push(v),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        self.typed_intrinsic(name, op, vals, span)
    }

    /// Checks that every argument is numeric (scalar, vector or matrix).
    fn numeric_args(&mut self, name: &str, vals: &[Expr]) -> bool {
        if let Some(bad) = vals.iter().find(|v| !v.ty.is_numeric()) {
            let t = self.type_name(bad.ty);
            let s = bad.span;
            self.emit(err("E0204", format!("`{name}` cannot take a value of type `{t}`"), s, "not a scalar, vector or matrix"));
            return false;
        }
        true
    }

    /// The common type of several operands (usual arithmetic conversions;
    /// untyped literals adopt the type of the first typed operand).
    fn common_of(&mut self, vals: &[Expr], promote_bool: bool) -> Option<Type> {
        let anchor = vals.iter().position(|v| !self.is_untyped_literal(v)).unwrap_or(0);
        let a = vals.get(anchor)?;
        // A stand-in with the accumulated type that is not a literal.
        let mut acc = Expr { kind: ExprKind::PlaceValue, ty: a.ty, span: a.span };
        for (i, v) in vals.iter().enumerate() {
            if i == anchor {
                continue;
            }
            acc.ty = self.common(&acc, v, promote_bool)?;
        }
        let t = acc.ty;
        Some(if promote_bool && t.scalar() == Some(ScalarType::Bool) { t.with_scalar(ScalarType::Int) } else { t })
    }

    fn make(&self, op: Intrinsic, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
        Expr { kind: ExprKind::Intrinsic { op, args }, ty, span }
    }

    fn coerce_all(&mut self, vals: Vec<Expr>, to: Type) -> Option<Vec<Expr>> {
        vals.into_iter().map(|v| self.coerce(v, to, false)).collect()
    }

    fn typed_intrinsic(&mut self, name: &str, op: Intrinsic, vals: Vec<Expr>, span: Span) -> Option<Expr> {
        use Intrinsic::*;
        let argc = match op {
            WaveGetLaneCount | WaveGetLaneIndex | WaveIsFirstLane => 0,
            GroupMemoryBarrier
            | GroupMemoryBarrierWithGroupSync
            | DeviceMemoryBarrier
            | DeviceMemoryBarrierWithGroupSync
            | AllMemoryBarrier
            | AllMemoryBarrierWithGroupSync => 0,
            Min | Max | Fmod | Dot | Mul | WaveReadLaneAt | QuadReadLaneAt => 2,
            Clamp | Mad | Fma | Select => 3,
            AsDouble => 2,
            _ => 1,
        };
        if vals.len() != argc {
            self.emit(err("E0254", format!("`{name}` takes {argc} argument(s), {} given", vals.len()), span, "wrong number of arguments"));
            return None;
        }
        if op == Select && vals[0].ty.is_numeric() && !vals[1].ty.is_numeric() && vals[1].ty == vals[2].ty && vals[1].ty != Type::Void {
            // `select(c, a, b)` of structs or arrays (HLSL 202x, Clang): a scalar
            // condition chooses the whole value.
            let mut it = vals.into_iter();
            let (c, a, b) = (it.next()?, it.next()?, it.next()?);
            if !c.ty.is_scalar() {
                let t = self.type_name(a.ty);
                self.emit(err("E0214", format!("`select` of `{t}` values needs a scalar condition"), c.span, "not a scalar"));
                return None;
            }
            let c = self.coerce(c, Type::BOOL, false)?;
            let ty = a.ty;
            return Some(self.make(Select, vec![c, a, b], ty, span));
        }
        if !self.numeric_args(name, &vals) {
            return None;
        }
        match op {
            GroupMemoryBarrier
            | GroupMemoryBarrierWithGroupSync
            | DeviceMemoryBarrier
            | DeviceMemoryBarrierWithGroupSync
            | AllMemoryBarrier
            | AllMemoryBarrierWithGroupSync => Some(self.make(op, vals, Type::Void, span)),
            WaveGetLaneCount | WaveGetLaneIndex => Some(self.make(op, vals, Type::UINT, span)),
            WaveIsFirstLane => Some(self.make(op, vals, Type::BOOL, span)),
            Abs | Min | Max | Clamp | Mad => {
                let t = self.common_of(&vals, true)?;
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t, span))
            }
            Fma => {
                // Doubles only (DXC's `double_only`).
                let t = self.common_of(&vals, true)?;
                if t.scalar() != Some(ScalarType::Double) {
                    let ts = self.type_name(t);
                    self.emit(
                        err("E0204", format!("`fma` takes doubles, found `{ts}`"), span, "not double").with_note("use mad() for float"),
                    );
                    return None;
                }
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t, span))
            }
            // Saturate and Rcp have double versions (DXC's `any_float`).
            Saturate | Rcp if vals[0].ty.scalar() == Some(ScalarType::Double) => {
                let t = vals[0].ty;
                Some(self.make(op, vals, t, span))
            }
            Saturate | Floor | Ceil | Round | Trunc | Frac | Sqrt | Rsqrt | Rcp | Exp2 | Log2 | Sin | Cos | Fmod | IsNan | IsInf
            | IsFinite
                if vals.iter().any(|v| v.ty.scalar() == Some(ScalarType::Double)) =>
            {
                let d = vals.iter().find(|v| v.ty.scalar() == Some(ScalarType::Double))?;
                let (t, at) = (self.type_name(d.ty), d.span);
                self.no_double(name, &t, at);
                None
            }
            Saturate | Floor | Ceil | Round | Trunc | Frac | Sqrt | Rsqrt | Rcp | Exp2 | Log2 | Sin | Cos => {
                let t = float_like(vals[0].ty);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t, span))
            }
            Fmod => {
                let t = float_like(self.common_of(&vals, true)?);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t, span))
            }
            IsNan | IsInf | IsFinite => {
                let t = float_like(vals[0].ty);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t.with_scalar(ScalarType::Bool), span))
            }
            AsDouble => {
                // Two uint scalars or vectors of one shape.
                let t = self.common_of(&vals, true)?;
                if matches!(t, Type::Matrix(..)) {
                    self.emit(err("E0204", "`asdouble` takes scalars or vectors", span, "matrix argument"));
                    return None;
                }
                let u = t.with_scalar(ScalarType::Uint);
                let args = self.coerce_all(vals, u)?;
                Some(self.make(op, args, u.with_scalar(ScalarType::Double), span))
            }
            DoubleLo | DoubleHi => {
                let t = vals[0].ty.with_scalar(ScalarType::Double);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t.with_scalar(ScalarType::Uint), span))
            }
            Any | All => Some(self.make(op, vals, Type::BOOL, span)),
            Dot => {
                let t = self.common_of(&vals, true)?;
                if matches!(t, Type::Matrix(..)) {
                    self.emit(err("E0204", "`dot` takes vectors", span, "matrix argument"));
                    return None;
                }
                let s = t.scalar()?;
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, Type::Scalar(s), span))
            }
            CountBits | ReverseBits => {
                let v = &vals[0];
                if v.ty.scalar().is_some_and(|s| s.is_float()) {
                    let t = self.type_name(v.ty);
                    self.emit(
                        err("E0205", format!("`{name}` needs an integer argument, found `{t}`"), v.span, "float argument")
                            .with_note("reinterpret with asuint() first"),
                    );
                    return None;
                }
                // 16-bit values count and reverse their 16 bits, 64-bit ones their 64
                // (reversebits keeps the width).
                let width = match v.ty.scalar() {
                    Some(s) if s.is_16bit() => ScalarType::Uint16,
                    Some(s) if s.is_64bit() => ScalarType::Uint64,
                    _ => ScalarType::Uint,
                };
                let t = v.ty.with_scalar(width);
                let ret = if op == CountBits { t.with_scalar(ScalarType::Uint) } else { t };
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, ret, span))
            }
            FirstBitHigh | FirstBitLow => {
                let v = &vals[0];
                if v.ty.scalar().is_some_and(|s| s.is_float()) {
                    let t = self.type_name(v.ty);
                    self.emit(err("E0205", format!("`{name}` needs an integer argument, found `{t}`"), v.span, "float argument"));
                    return None;
                }
                // Signed values (int16_t too, sign-extended) look for the first bit unlike the sign.
                let s = match v.ty.scalar() {
                    Some(ScalarType::Int | ScalarType::Int16) => ScalarType::Int,
                    Some(ScalarType::Uint16) => ScalarType::Uint16,
                    Some(ScalarType::Int64) => ScalarType::Int64,
                    Some(ScalarType::Uint64) => ScalarType::Uint64,
                    _ => ScalarType::Uint,
                };
                let t = v.ty.with_scalar(s);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t.with_scalar(ScalarType::Uint), span))
            }
            AsUint | AsInt | AsFloat => {
                let v = &vals[0];
                if v.ty.scalar().is_some_and(|s| s.is_16bit() || s.is_64bit()) {
                    let t = self.type_name(v.ty);
                    let (label, note) = if v.ty.scalar() == Some(ScalarType::Double) && op == AsUint {
                        ("64-bit value", "split a double with asuint(d, out lo, out hi)")
                    } else if v.ty.scalar().is_some_and(|s| s.is_16bit()) {
                        ("16-bit value", "convert to a 32-bit type first")
                    } else {
                        ("64-bit value", "convert to a 32-bit type first")
                    };
                    self.emit(err("E0204", format!("`{name}` takes 32-bit values, found `{t}`"), v.span, label).with_note(note));
                    return None;
                }
                let src = if v.ty.scalar() == Some(ScalarType::Bool) { v.ty.with_scalar(ScalarType::Uint) } else { v.ty };
                let to = match op {
                    AsUint => ScalarType::Uint,
                    AsInt => ScalarType::Int,
                    _ => ScalarType::Float,
                };
                let args = self.coerce_all(vals, src)?;
                Some(self.make(op, args, src.with_scalar(to), span))
            }
            AsInt16 | AsUint16 | AsFloat16 => {
                let v = &vals[0];
                if !v.ty.scalar().is_some_and(|s| s.is_16bit()) || matches!(v.ty, Type::Matrix(..)) {
                    let t = self.type_name(v.ty);
                    let mut d =
                        err("E0204", format!("`{name}` takes 16-bit scalars or vectors, found `{t}`"), v.span, "not a 16-bit value");
                    if !self.opts.native_16bit {
                        d = d.with_note("16-bit types need -enable-16bit-types");
                    }
                    self.emit(d);
                    return None;
                }
                let to = match op {
                    AsInt16 => ScalarType::Int16,
                    AsUint16 => ScalarType::Uint16,
                    _ => ScalarType::Half,
                };
                let t = v.ty.with_scalar(to);
                let v = vals.into_iter().next()?;
                Some(self.make(op, vec![v], t, span))
            }
            F32ToF16 => {
                let t = vals[0].ty.with_scalar(ScalarType::Float);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t.with_scalar(ScalarType::Uint), span))
            }
            F16ToF32 => {
                let t = vals[0].ty.with_scalar(ScalarType::Uint);
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t.with_scalar(ScalarType::Float), span))
            }
            Transpose => match vals[0].ty {
                Type::Matrix(s, r, c) => Some(self.make(op, vals, Type::Matrix(s, c, r), span)),
                other => {
                    let t = self.type_name(other);
                    self.emit(err("E0204", format!("`transpose` takes a matrix, found `{t}`"), vals[0].span, "not a matrix"));
                    None
                }
            },
            Mul => self.mul(vals, span),
            Select => {
                let mut it = vals.into_iter();
                let (c, a, b) = (it.next()?, it.next()?, it.next()?);
                self.select_values(c, a, b, span)
            }
            WaveActiveSum | WaveActiveProduct | WaveActiveMin | WaveActiveMax | WavePrefixSum | WavePrefixProduct | WaveReadLaneFirst
            | WaveActiveBitAnd | WaveActiveBitOr | WaveActiveBitXor => {
                let v = &vals[0];
                if matches!(v.ty, Type::Matrix(..)) {
                    self.emit(err("E0204", format!("`{name}` takes a scalar or vector"), v.span, "matrix argument"));
                    return None;
                }
                let bitwise = matches!(op, WaveActiveBitAnd | WaveActiveBitOr | WaveActiveBitXor);
                if bitwise && v.ty.scalar().is_some_and(|s| s.is_float()) {
                    let t = self.type_name(v.ty);
                    self.emit(err("E0205", format!("`{name}` needs an integer argument, found `{t}`"), v.span, "float argument"));
                    return None;
                }
                let t = if v.ty.scalar() == Some(ScalarType::Bool) {
                    v.ty.with_scalar(if bitwise { ScalarType::Uint } else { ScalarType::Int })
                } else {
                    v.ty
                };
                let args = self.coerce_all(vals, t)?;
                Some(self.make(op, args, t, span))
            }
            QuadReadAcrossX | QuadReadAcrossY | QuadReadAcrossDiagonal => {
                let v = vals.into_iter().next()?;
                let t = if v.ty.scalar() == Some(ScalarType::Bool) { v.ty.with_scalar(ScalarType::Uint) } else { v.ty };
                let v = self.coerce(v, t, false)?;
                Some(self.make(op, vec![v], t, span))
            }
            WaveReadLaneAt | QuadReadLaneAt => {
                let mut it = vals.into_iter();
                let (v, lane) = (it.next()?, it.next()?);
                let t = if v.ty.scalar() == Some(ScalarType::Bool) { v.ty.with_scalar(ScalarType::Uint) } else { v.ty };
                let v = self.coerce(v, t, false)?;
                let lane = self.index_expr(lane, "a lane index")?;
                Some(self.make(op, vec![v, lane], t, span))
            }
            WaveActiveCountBits | WavePrefixCountBits | WaveActiveAllTrue | WaveActiveAnyTrue | WaveActiveBallot => {
                let v = vals.into_iter().next()?;
                if !v.ty.is_scalar() {
                    let t = self.type_name(v.ty);
                    self.emit(err("E0214", format!("`{name}` takes a bool, found `{t}`"), v.span, "not a scalar"));
                    return None;
                }
                let c = self.coerce(v, Type::BOOL, false)?;
                let ty = match op {
                    WaveActiveAllTrue | WaveActiveAnyTrue => Type::BOOL,
                    WaveActiveBallot => Type::Vector(ScalarType::Uint, 4),
                    _ => Type::UINT,
                };
                Some(self.make(op, vec![c], ty, span))
            }
            WaveActiveAllEqual => {
                let t = vals[0].ty;
                if matches!(t, Type::Matrix(..)) {
                    self.emit(err("E0204", "`WaveActiveAllEqual` takes a scalar or vector", vals[0].span, "matrix argument"));
                    return None;
                }
                Some(self.make(op, vals, t.with_scalar(ScalarType::Bool), span))
            }
        }
    }

    /// `and(a, b)`, `or(a, b)` (and `&&`, `||` before HLSL 2021): both sides
    /// evaluated, element-wise on vectors and matrices.
    pub(super) fn elementwise_logic(&mut self, name: &str, op: BinaryOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        if !self.numeric_args(name, &[l.clone(), r.clone()]) {
            return None;
        }
        let t = self.common(&l, &r, false)?.with_scalar(ScalarType::Bool);
        let l = self.coerce(l, t, false)?;
        let r = self.coerce(r, t, false)?;
        Some(Expr { kind: ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty: t, span })
    }

    /// `select(c, a, b)` (and `c ? a : b` before HLSL 2021): all three
    /// evaluated, a choice per component; a vector condition gives the result its shape.
    pub(super) fn select_values(&mut self, c: Expr, a: Expr, b: Expr, span: Span) -> Option<Expr> {
        let t = self.common(&a, &b, false)?;
        let shape = if c.ty.len() > 1 && t.len() == 1 { c.ty.with_scalar(t.scalar()?) } else { t };
        if c.ty.len() > 1 && c.ty.len() != shape.len() {
            let (ct, st) = (self.type_name(c.ty), self.type_name(shape));
            self.emit(err("E0204", format!("the condition `{ct}` does not match the values `{st}`"), c.span, "mismatched shape"));
            return None;
        }
        // A scalar condition stays one value (it chooses every component), so the
        // lowering can guard reads with it (see `lower::expr::eager_select`).
        let c_ty = if c.ty.len() == 1 { Type::BOOL } else { shape.with_scalar(ScalarType::Bool) };
        let c = self.coerce(c, c_ty, false)?;
        let a = self.coerce(a, shape, false)?;
        let b = self.coerce(b, shape, false)?;
        Some(self.make(Intrinsic::Select, vec![c, a, b], shape, span))
    }

    /// `mul(a, b)`: shapes per HLSL (a vector on the left is a row vector).
    fn mul(&mut self, vals: Vec<Expr>, span: Span) -> Option<Expr> {
        let mut it = vals.into_iter();
        let (a, b) = (it.next()?, it.next()?);
        let s = self.common_scalar(&a, &b)?;
        let s = if s == ScalarType::Bool { ScalarType::Int } else { s };
        if matches!(a.ty, Type::Scalar(_)) || matches!(b.ty, Type::Scalar(_)) {
            // Scalar times anything: element-wise.
            return self.binary(ast::BinOp::Mul, a, b, span);
        }
        if !(matches!(a.ty, Type::Vector(..) | Type::Matrix(..)) && matches!(b.ty, Type::Vector(..) | Type::Matrix(..))) {
            let (x, y) = (self.type_name(a.ty), self.type_name(b.ty));
            self.emit(err("E0204", format!("`mul` cannot combine `{x}` and `{y}`"), a.span.to(b.span), "not vectors or matrices"));
            return None;
        }
        // The inner dimensions should agree; where they do not, the longer side is
        // truncated with a warning (as FXC and DXC do: `mul(float3, float4x4)` uses
        // the matrix's first three rows).
        let (inner_a, inner_b) = (inner_dim(a.ty, true), inner_dim(b.ty, false));
        let k = inner_a.min(inner_b);
        let a = if inner_a > k { self.truncate_inner(a, k, true) } else { a };
        let b = if inner_b > k { self.truncate_inner(b, k, false) } else { b };
        let result = match (a.ty, b.ty) {
            (Type::Vector(..), Type::Vector(..)) => Type::Scalar(s),
            (Type::Vector(..), Type::Matrix(_, _, c)) => Type::vector(s, c as u32),
            (Type::Matrix(_, r, _), Type::Vector(..)) => Type::vector(s, r as u32),
            (Type::Matrix(_, r, _), Type::Matrix(_, _, c)) if r == 1 && c == 1 => Type::Scalar(s),
            (Type::Matrix(_, r, _), Type::Matrix(_, _, c)) => Type::Matrix(s, r, c),
            _ => return None,
        };
        let at = a.ty.with_scalar(s);
        let bt = b.ty.with_scalar(s);
        let a = self.coerce(a, at, false)?;
        let b = self.coerce(b, bt, false)?;
        Some(self.make(Intrinsic::Mul, vec![a, b], result, span))
    }

    /// `e` with its inner dimension for `mul` cut to `k`: a vector's length, a
    /// left matrix's columns (`left`) or a right matrix's rows.
    fn truncate_inner(&mut self, e: Expr, k: u32, left: bool) -> Expr {
        let (ty, pick): (Type, Vec<u32>) = match e.ty {
            Type::Vector(s, _) => (Type::vector(s, k), (0..k).collect()),
            Type::Matrix(s, r, c) if left => {
                (Type::Matrix(s, r, k as u8), (0..r as u32).flat_map(|i| (0..k).map(move |j| i * c as u32 + j)).collect())
            }
            Type::Matrix(s, _, c) => (Type::Matrix(s, k as u8, c), (0..k * c as u32).collect()),
            _ => return e,
        };
        let (from, to) = (self.type_name(e.ty), self.type_name(ty));
        self.warn("W0202", format!("`mul`: implicit truncation of `{from}` to `{to}`"), e.span, "the extra components are not used");
        let span = e.span;
        Expr { kind: ExprKind::Leaves { operand: Box::new(e), pick }, ty, span }
    }

    // ------------------------------------------------------------ atomics

    /// Is `e` rooted in groupshared or buffer memory (where atomics work)?
    fn memory_rooted(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Shared(_) | ExprKind::BufferElement { .. } | ExprKind::RawElement { .. } => true,
            ExprKind::Member { base, .. }
            | ExprKind::Index { base, .. }
            | ExprKind::Swizzle { base, .. }
            | ExprKind::MatrixElems { base, .. } => self.memory_rooted(base),
            _ => false,
        }
    }

    /// `Interlocked*(dest, ...)`, or the byte-address-buffer method when `raw`
    /// gives the resource (then `args[0]` is the byte offset).
    fn interlocked(&mut self, name: &str, op: AtomicOp, raw: Option<Expr>, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let (min_args, max_args) = match op {
            AtomicOp::CompareExchange => (4, 4),
            AtomicOp::CompareStore => (3, 3),
            AtomicOp::Exchange => (3, 3),
            _ => (2, 3),
        };
        if args.len() < min_args || args.len() > max_args {
            let want = if min_args == max_args { format!("{min_args}") } else { format!("{min_args} or {max_args}") };
            self.emit(err("E0254", format!("`{name}` takes {want} arguments, {} given", args.len()), span, "wrong number of arguments"));
            return None;
        }
        let value_count = match op {
            AtomicOp::CompareExchange | AtomicOp::CompareStore => 2,
            _ => 1,
        };
        let dest = match raw {
            Some(res) => {
                let off = self.expr(&args[0])?;
                let off = self.index_expr(off, "a byte offset")?;
                Expr { kind: ExprKind::RawElement { res: Box::new(res), offset: Box::new(off) }, ty: Type::UINT, span: args[0].span }
            }
            None => self.expr(&args[0])?,
        };
        let mut values = Vec::new();
        for a in &args[1..1 + value_count] {
            values.push(self.expr(a)?);
        }
        // Byte-address-buffer methods take int or uint values: the value's type
        // picks the signedness (of min and max).
        let dest = match (&dest.kind, values.last()) {
            (ExprKind::RawElement { .. }, Some(v)) if v.ty == Type::INT && !self.is_untyped_literal(v) => Expr { ty: Type::INT, ..dest },
            _ => dest,
        };
        if !self.check_place(&dest) {
            return None;
        }
        if !self.memory_rooted(&dest) {
            self.emit(
                err("E0255", format!("`{name}` needs groupshared or buffer memory"), dest.span, "a local variable")
                    .with_note("atomics work on groupshared variables and RW buffer elements"),
            );
            return None;
        }
        // A 64-bit destination, or (byte-address buffers) a 64-bit value.
        let wide = |e: &Expr| e.ty.scalar().is_some_and(|s| s.is_64bit());
        if let Some(e) = std::iter::once(&dest).chain(values.iter()).find(|e| wide(e)) {
            let (t, at) = (self.type_name(e.ty), e.span);
            self.refuse_atomic64(name, &t, at);
            return None;
        }
        if !matches!(dest.ty, Type::Scalar(ScalarType::Int | ScalarType::Uint)) {
            let t = self.type_name(dest.ty);
            self.emit(err("E0255", format!("`{name}` works on int or uint, found `{t}`"), dest.span, "not a 32-bit integer"));
            return None;
        }
        let ty = dest.ty;
        let mut vals = Vec::new();
        for v in values {
            vals.push(self.coerce(v, ty, false)?);
        }
        let original = match args.get(1 + value_count) {
            Some(o) => {
                let p = self.place(o)?;
                if !matches!(p.ty, Type::Scalar(ScalarType::Int | ScalarType::Uint)) {
                    let t = self.type_name(p.ty);
                    self.emit(err("E0255", format!("the original value of `{name}` is int or uint, not `{t}`"), p.span, "wrong type"));
                    return None;
                }
                Some(Box::new(p))
            }
            None => None,
        };
        Some(Expr { kind: ExprKind::Atomic { op, dest: Box::new(dest), args: vals, original }, ty: Type::Void, span })
    }

    /// An intrinsic HLSL defines for float and half only (DXC refuses doubles too).
    fn no_double(&mut self, name: &str, ty: &str, span: Span) {
        self.emit(
            err("E0204", format!("`{name}` has no double version, found `{ty}`"), span, "double argument")
                .with_note(format!("HLSL's `{name}` takes float or half (as in DXC); convert explicitly to compute in float")),
        );
    }

    /// 64-bit atomics: WAVE's CAP_ATOMIC_64 is optional and has no
    /// instructions, and two 32-bit atomics are not one 64-bit atomic.
    fn refuse_atomic64(&mut self, name: &str, ty: &str, span: Span) {
        self.emit(
            err("E0314", format!("`{name}` on `{ty}`: 64-bit atomics are not supported"), span, "64-bit atomic")
                .with_note("64-bit atomics are optional in WAVE (CAP_ATOMIC_64) and have no instructions; use 32-bit atomics"),
        );
    }

    // ------------------------------------------------------------ resource methods

    /// `buf.method(...)` on a buffer value `handle` (a global buffer, or a variable,
    /// parameter or field holding one).
    fn resource_method(
        &mut self,
        handle: Expr,
        method: &ast::Ident,
        targs: &[ast::TypeExpr],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let h = self.handle_of(&handle)?;
        let (kind, rname) = (h.kind, self.buffer_name(&handle));
        let m = method.name.as_str();
        let raw = matches!(kind, ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer);
        if m == "GetDimensions" {
            let want = if kind.is_structured() { 2 } else { 1 };
            if kind == ResourceKind::ConstantBuffer || !self.arity(m, args, want, span) {
                if kind == ResourceKind::ConstantBuffer {
                    self.emit(err("E0215", "constant buffers have no GetDimensions", method.span, "no such method"));
                }
                return None;
            }
            let mut outs = Vec::new();
            for a in args {
                let p = self.place(a)?;
                if !matches!(p.ty, Type::Scalar(ScalarType::Uint | ScalarType::Int)) {
                    let t = self.type_name(p.ty);
                    self.emit(err("E0204", format!("GetDimensions writes uint values, not `{t}`"), p.span, "wrong type"));
                    return None;
                }
                outs.push(p);
            }
            // The size is a kernel argument of each buffer the value may hold.
            match self.handle_candidates(&handle) {
                Some(ids) => ids.into_iter().for_each(|r| self.note_use(Use::ResourceSize(r))),
                None => {
                    if let Type::Handle(h) = handle.ty {
                        self.note_use(Use::SizesOf(h));
                    }
                }
            }
            return Some(Expr { kind: ExprKind::GetDimensions { res: Box::new(handle), outs }, ty: Type::Void, span });
        }
        if matches!(m, "IncrementCounter" | "DecrementCounter" | "Append" | "Consume") {
            return self.counter_method(handle, h, method, args, span);
        }
        if raw {
            // InterlockedAdd64, InterlockedCompareExchange64, ... (SM 6.6).
            if m.strip_suffix("64").and_then(atomic_op).is_some() {
                self.refuse_atomic64(m, "uint64_t", method.span);
                return None;
            }
            if let Some(op) = atomic_op(m) {
                if kind != ResourceKind::RWByteAddressBuffer {
                    self.emit(err(
                        "E0210",
                        format!("cannot write to `{rname}`: ByteAddressBuffer is read-only"),
                        span,
                        "atomic on a read-only buffer",
                    ));
                    return None;
                }
                return self.interlocked(m, op, Some(handle), args, span);
            }
            let explicit = match targs {
                [] => None,
                [t] => Some(self.resolve_type(t)?),
                _ => {
                    self.emit(err("E0206", "Load and Store take one template argument", span, "too many template arguments"));
                    return None;
                }
            };
            let (is_load, width) = match m {
                "Load" => (true, 1),
                "Load2" => (true, 2),
                "Load3" => (true, 3),
                "Load4" => (true, 4),
                "Store" => (false, 1),
                "Store2" => (false, 2),
                "Store3" => (false, 3),
                "Store4" => (false, 4),
                _ => {
                    self.emit(err("E0215", format!("`{}` has no method `{m}`", kind.name()), method.span, "unknown method").with_note(
                        "byte-address buffers have Load, Load2..4, Load<T>, Store, Store2..4, Store<T>, Interlocked*, GetDimensions",
                    ));
                    return None;
                }
            };
            if explicit.is_some() && width != 1 {
                self.emit(err("E0206", format!("`{m}` takes no template argument"), span, "use Load<T> or Store<T>"));
                return None;
            }
            if !self.arity(m, args, if is_load { 1 } else { 2 }, span) {
                return None;
            }
            if explicit.is_some_and(|t| !self.handle_free(t, span, "loaded from or stored to a buffer")) {
                return None;
            }
            let off = self.expr(&args[0])?;
            let off = self.index_expr(off, "a byte offset")?;
            if is_load {
                let ty = explicit.unwrap_or(Type::vector(ScalarType::Uint, width));
                if ty == Type::Void {
                    return None;
                }
                return Some(Expr { kind: ExprKind::RawElement { res: Box::new(handle), offset: Box::new(off) }, ty, span });
            }
            if kind != ResourceKind::RWByteAddressBuffer {
                self.emit(
                    err("E0210", format!("cannot write to `{rname}`: ByteAddressBuffer is read-only"), span, "store to a read-only buffer")
                        .with_note("declare it as RWByteAddressBuffer with a u# register"),
                );
                return None;
            }
            let v = self.expr(&args[1])?;
            // Store<T> deduces T from the value unless given (uint for untyped literals).
            let ty = match explicit {
                Some(t) => t,
                None if width > 1 => Type::vector(ScalarType::Uint, width),
                None if self.is_untyped_literal(&v) || v.ty.scalar() == Some(ScalarType::Bool) => {
                    Type::vector(ScalarType::Uint, v.ty.len().max(1))
                }
                None => v.ty,
            };
            if !self.handle_free(ty, v.span, "stored to a buffer") {
                return None;
            }
            let v = self.coerce(v, ty, false)?;
            let place = Expr { kind: ExprKind::RawElement { res: Box::new(handle), offset: Box::new(off) }, ty, span };
            return Some(Expr {
                kind: ExprKind::Assign { place: Box::new(place), value: Box::new(v), result_old: false },
                ty: Type::Void,
                span,
            });
        }
        if m == "Load"
            && matches!(
                kind,
                ResourceKind::StructuredBuffer | ResourceKind::RWStructuredBuffer | ResourceKind::Buffer | ResourceKind::RWBuffer
            )
        {
            if !self.arity(m, args, 1, span) {
                return None;
            }
            let i = self.expr(&args[0])?;
            let i = self.index_expr(i, "a buffer index")?;
            return Some(Expr { kind: ExprKind::BufferElement { res: Box::new(handle), index: Box::new(i) }, ty: h.elem, span });
        }
        let note = match kind {
            ResourceKind::AppendStructuredBuffer => "append buffers have Append and GetDimensions",
            ResourceKind::ConsumeStructuredBuffer => "consume buffers have Consume and GetDimensions",
            ResourceKind::ConstantBuffer => "read a ConstantBuffer's members by name",
            _ => "structured and typed buffers have Load and GetDimensions (RWStructuredBuffer also IncrementCounter and DecrementCounter); index them with [i]",
        };
        self.emit(err("E0215", format!("`{}` has no supported method `{m}`", kind.name()), method.span, "unknown method").with_note(note));
        None
    }
    /// The UAV counter methods: `IncrementCounter()` (the old count) and
    /// `DecrementCounter()` (the new count) of a `RWStructuredBuffer`;
    /// `Append(v)` (stores `v` at the incremented counter's old value) and
    /// `Consume()` (reads the element at the decremented counter's new value).
    fn counter_method(&mut self, handle: Expr, h: HandleType, method: &ast::Ident, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let m = method.name.as_str();
        let kind = h.kind;
        let fits = match m {
            "IncrementCounter" | "DecrementCounter" => kind == ResourceKind::RWStructuredBuffer,
            "Append" => kind == ResourceKind::AppendStructuredBuffer,
            _ => kind == ResourceKind::ConsumeStructuredBuffer,
        };
        if !fits {
            let owner = match m {
                "IncrementCounter" | "DecrementCounter" => "RWStructuredBuffer",
                "Append" => "AppendStructuredBuffer",
                _ => "ConsumeStructuredBuffer",
            };
            self.emit(
                err("E0215", format!("`{}` has no method `{m}`", kind.name()), method.span, "unknown method")
                    .with_note(format!("`{m}` is a method of {owner}")),
            );
            return None;
        }
        if !self.arity(m, args, usize::from(m == "Append"), span) {
            return None;
        }
        if !super::expr::effect_free(&handle) {
            self.emit(
                err("E0206", format!("`{m}` on a buffer chosen by an expression with effects"), handle.span, "has effects")
                    .with_note("keep the buffer in a local first"),
            );
            return None;
        }
        match self.handle_candidates(&handle) {
            Some(ids) => ids.into_iter().for_each(|r| self.note_use(Use::Counter(r))),
            None => {
                if let Type::Handle(hid) = handle.ty {
                    self.note_use(Use::CountersOf(hid));
                }
            }
        }
        let counter = |increment: bool| Expr { kind: ExprKind::Counter { res: Box::new(handle.clone()), increment }, ty: Type::UINT, span };
        match m {
            "IncrementCounter" | "DecrementCounter" => Some(counter(m == "IncrementCounter")),
            "Append" => {
                let v = self.expr(&args[0])?;
                let v = self.coerce(v, h.elem, false)?;
                let index = counter(true);
                let place =
                    Expr { kind: ExprKind::BufferElement { res: Box::new(handle.clone()), index: Box::new(index) }, ty: h.elem, span };
                Some(Expr {
                    kind: ExprKind::Assign { place: Box::new(place), value: Box::new(v), result_old: false },
                    ty: Type::Void,
                    span,
                })
            }
            _ => {
                let index = counter(false);
                let elem =
                    Expr { kind: ExprKind::BufferElement { res: Box::new(handle.clone()), index: Box::new(index) }, ty: h.elem, span };
                // A value, not a place.
                let zero = Expr { kind: ExprKind::Literal(Const::Bool(false)), ty: Type::BOOL, span };
                Some(Expr { kind: ExprKind::Comma { lhs: Box::new(zero), rhs: Box::new(elem) }, ty: h.elem, span })
            }
        }
    }
}
