//! Expressions and places: names, literals, operators, assignments with
//! their effects, casts and constructors, indexing, members and swizzles,
//! initializer lists. Calls are dispatched to [`super::calls`] (user
//! functions) and [`super::intrinsics`] (builtins and resource methods).

use super::{err, lit, Global, Sema, Use};
use crate::diag::Span;
use crate::frontend::ast::{self, ExprKind as AK};
use crate::frontend::tast::*;

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

/// Parses a matrix swizzle: `_m01_m10` (0-based) or `_12_21` (1-based).
fn matrix_swizzle(field: &str) -> Option<Vec<(u8, u8)>> {
    let mut out = Vec::new();
    let mut rest = field;
    while !rest.is_empty() {
        let r = rest.strip_prefix('_')?;
        let (zero_based, r) = match r.strip_prefix('m') {
            Some(r) => (true, r),
            None => (false, r),
        };
        let b = r.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_digit() || !b[1].is_ascii_digit() {
            return None;
        }
        let (mut row, mut col) = (b[0] - b'0', b[1] - b'0');
        if !zero_based {
            if row == 0 || col == 0 {
                return None;
            }
            row -= 1;
            col -= 1;
        }
        if row > 3 || col > 3 {
            return None;
        }
        out.push((row, col));
        rest = &r[2..];
    }
    (!out.is_empty() && out.len() <= 4).then_some(out)
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
        ast::BinOp::LogAnd => BinaryOp::And,
        ast::BinOp::LogOr => BinaryOp::Or,
    }
}

impl Sema {
    /// Analyses an expression (rvalue or place).
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        let span = e.span;
        match &e.kind {
            AK::Ident(name) => self.ident(name, span),
            AK::Scoped(a, b) => {
                if let Some(found) = self.scoped_enumerator(a, b, span) {
                    return found;
                }
                self.emit(
                    err("E0312", format!("scoped names (`{a}::{b}`) are not supported"), span, "scoped name")
                        .with_note("namespaces are not part of the supported language"),
                );
                None
            }
            AK::IntLit(text) => self.int_literal(text, span),
            AK::FloatLit(text) => self.float_literal(text, span),
            AK::BoolLit(b) => Some(lit(Const::Bool(*b), span)),
            AK::StrLit(_) => {
                self.emit(
                    err("E0312", "strings are not supported in expressions", span, "string")
                        .with_note("strings only appear in attributes such as [shader(\"compute\")]"),
                );
                None
            }
            AK::Unary { op, operand } => self.unary(*op, operand, span),
            AK::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                self.binary(*op, l?, r?, span)
            }
            AK::Assign { op, place, value } => self.assign(*op, place, value, span),
            AK::IncDec { prefix, inc, operand } => self.inc_dec(*prefix, *inc, operand, span),
            AK::Ternary { cond, then_expr, else_expr } => self.ternary(cond, then_expr, else_expr, span),
            AK::Comma { lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let (l, r) = (l?, r?);
                let ty = r.ty;
                Some(Expr { kind: ExprKind::Comma { lhs: Box::new(l), rhs: Box::new(r) }, ty, span })
            }
            AK::Cast { ty, dims, operand } => {
                let to = self.resolve_type(ty).and_then(|t| if dims.is_empty() { Some(t) } else { self.array_type(t, dims, false) });
                let x = self.expr(operand)?;
                let to = to?;
                if to == Type::Void {
                    // `(void)x`: evaluate for effects.
                    return Some(Expr {
                        kind: ExprKind::Comma { lhs: Box::new(x), rhs: Box::new(lit(Const::Bool(false), span)) },
                        ty: Type::Void,
                        span,
                    });
                }
                let x = self.coerce(x, to, true)?;
                Some(Expr { span, ..x })
            }
            AK::Construct { ty, args } => self.construct(ty, args, span),
            AK::Index { base, index } => self.index(base, index, span),
            AK::Member { base, field } => self.member(base, field, span),
            AK::Call { callee, targs, args } => self.call(callee, targs, args, span),
            AK::SizeofType(t, dims) => {
                let ty = self.resolve_type(t)?;
                let ty = if dims.is_empty() { ty } else { self.array_type(ty, dims, false)? };
                if !self.handle_free(ty, t.span, "measured by sizeof") {
                    return None;
                }
                Some(lit(Const::Uint(self.tight_size(ty)), span))
            }
            AK::SizeofExpr(x) => {
                let saved = std::mem::take(&mut self.cur_uses);
                let v = self.expr(x);
                self.cur_uses = saved;
                let ty = v?.ty;
                if !self.handle_free(ty, x.span, "measured by sizeof") {
                    return None;
                }
                Some(lit(Const::Uint(self.tight_size(ty)), span))
            }
            AK::TooDeep => {
                self.too_deep(span);
                None
            }
        }
    }

    fn ident(&mut self, name: &str, span: Span) -> Option<Expr> {
        if let Some(id) = self.lookup_local(name) {
            let ty = self.locals[id.0 as usize].ty;
            if ty == Type::Void {
                // A local whose declaration failed (reported): its uses stay silent.
                return None;
            }
            return Some(Expr { kind: ExprKind::Local(id), ty, span });
        }
        // Inside a member function, a field of the object (`this.name`): one of the
        // declaring struct's (an inherited function does not see the derived fields).
        if let Some((this, sid, origin)) = self.cur_this {
            let visible = self.types.strukt(origin).fields.len();
            if let Some(k) = self.types.strukt(sid).fields[..visible].iter().position(|f| f.name == name) {
                let base = Expr { kind: ExprKind::Local(this), ty: Type::Struct(sid), span };
                let ty = self.types.strukt(sid).fields[k].ty;
                return Some(Expr { kind: ExprKind::Member { base: Box::new(base), field: k as u32 }, ty, span });
            }
        }
        match self.globals.get(name).copied() {
            Some((Global::CbField(res, field), _)) => {
                self.note_use(Use::Resource(res));
                let Type::Struct(s) = self.resources[res.0 as usize].elem else { return None };
                let ty = self.types.strukt(s).fields[field as usize].ty;
                Some(Expr { kind: ExprKind::CbufferField { res, field }, ty, span })
            }
            Some((Global::Shared(id), _)) => {
                self.note_use(Use::Shared(id));
                Some(Expr { kind: ExprKind::Shared(id), ty: self.shared[id.0 as usize].ty, span })
            }
            Some((Global::Static(id), _)) => {
                self.note_use(Use::Static(id));
                Some(Expr { kind: ExprKind::Local(id), ty: self.locals[id.0 as usize].ty, span })
            }
            // A buffer as a value: passed to a function, kept in a variable or a struct.
            // (`ConstantBuffer<T> cb` converts to its contents, a `T`, where one is needed.)
            Some((Global::Resource(r), _)) => Some(self.resource_handle(r, span)),
            // A resource array or a struct of resources: narrowed by constant indices and
            // members; its resources count as used where its value is built.
            Some((Global::Group(g), _)) => {
                let grp = &self.groups[g];
                Some(Expr { kind: ExprKind::Resources(grp.leaves.clone()), ty: grp.ty, span })
            }
            Some((Global::Poisoned, _)) => None,
            Some((Global::Unsupported { what, why }, decl)) => {
                let d = err("E0302", format!("`{name}` is a {what}: {why}"), span, "used here")
                    .with_label(decl, "declared here")
                    .with_note("wavec accepts the declaration (DXC drops unused resources) but not its use");
                self.deferred.push(d);
                let i = self.deferred.len() - 1;
                self.note_use(Use::Deferred(i));
                None
            }
            None => {
                if self.overloads.contains_key(name) {
                    self.emit(
                        err("E0215", format!("function `{name}` cannot be used as a value"), span, "a function")
                            .with_note(format!("call it: `{name}(...)`")),
                    );
                } else {
                    self.unknown_name(name, span);
                }
                None
            }
        }
    }

    fn unary(&mut self, op: ast::UnOp, operand: &ast::Expr, span: Span) -> Option<Expr> {
        let x = self.expr(operand)?;
        let Some(s) = x.ty.scalar() else {
            let t = self.type_name(x.ty);
            self.emit(err("E0206", format!("operator needs a numeric operand, found `{t}`"), x.span, "not a number"));
            return None;
        };
        let untyped = self.is_untyped_literal(&x);
        match op {
            ast::UnOp::Plus => {
                if let Some(v) = self.literal_int(&x) {
                    self.wide_literals.remove(&x.span);
                    return Some(self.int_literal_of(v, span));
                }
                if s == ScalarType::Bool {
                    let ty = x.ty.with_scalar(ScalarType::Int);
                    self.coerce(x, ty, false)
                } else {
                    Some(Expr { span, ..x })
                }
            }
            ast::UnOp::Neg | ast::UnOp::BitNot => {
                let is_neg = op == ast::UnOp::Neg;
                if !is_neg && s.is_float() {
                    let t = self.type_name(x.ty);
                    self.emit(
                        err("E0205", format!("operator `~` needs an integer operand, found `{t}`"), x.span, "float operand")
                            .with_note("convert explicitly with (int) or (uint), or reinterpret with asuint()"),
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
                if let (true, Some(v)) = (is_neg, self.literal_int(&x)) {
                    // `-5`, `-2147483648`, `-5000000000`: DXC's 64-bit literal arithmetic.
                    self.wide_literals.remove(&x.span);
                    return Some(self.int_literal_of(v.wrapping_neg(), span));
                }
                if let (true, ExprKind::Literal(c)) = (is_neg, &x.kind) {
                    // Fold negated literals so that `-1.5` is a constant (and stays untyped).
                    let c = match *c {
                        Const::Int(i) => Const::Int(i.wrapping_neg()),
                        Const::Uint(u) => Const::Uint(u.wrapping_neg()),
                        Const::Float(f) => Const::Float(-f),
                        Const::Bool(b) => Const::Int(-(b as i32)),
                        Const::Bits16(ScalarType::Half, b) => Const::Bits16(ScalarType::Half, b ^ 0x8000),
                        Const::Bits16(t, b) => Const::Bits16(t, b.wrapping_neg()),
                        Const::Bits64(ScalarType::Double, b) => Const::Bits64(ScalarType::Double, b ^ (1 << 63)),
                        Const::Bits64(t, b) => Const::Bits64(t, b.wrapping_neg()),
                    };
                    if untyped {
                        self.untyped_literals.insert(span);
                        if let Some(&v) = self.literal_floats.get(&x.span) {
                            self.literal_floats.insert(span, -v);
                        }
                    }
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

    fn needs_integer(&mut self, op: &str, x: &Expr) {
        let t = self.type_name(x.ty);
        self.emit(
            err("E0205", format!("operator `{op}` needs integer operands, found `{t}`"), x.span, "float operand")
                .with_note("convert explicitly with (int) or (uint), or reinterpret with asuint()"),
        );
    }

    /// A binary operator on analysed operands.
    pub(super) fn binary(&mut self, op: ast::BinOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        use ast::BinOp as B;
        // Two unsuffixed integer literals: DXC folds them in 64 bits.
        if let Some(folded) = self.fold_literal_ints(op, &l, &r, span) {
            return Some(folded);
        }
        match op {
            B::LogAnd | B::LogOr if self.legacy() => self.legacy_logical(op, l, r, span),
            B::LogAnd | B::LogOr => {
                for x in [&l, &r] {
                    if !x.ty.is_scalar() {
                        let t = self.type_name(x.ty);
                        let f = if op == B::LogAnd { "and" } else { "or" };
                        self.emit(
                            err("E0214", format!("`{}` needs scalar operands, found `{t}`", op.symbol()), x.span, "not a scalar").with_note(
                                format!("HLSL 2021 short-circuits `{}` on scalars: use `{f}(a, b)` for vectors, or -HV 2018 for the old element-wise rules", op.symbol()),
                            ),
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
                for x in [&l, &r] {
                    if x.ty.scalar().is_some_and(|s| s.is_float()) {
                        self.needs_integer(op.symbol(), x);
                        return None;
                    }
                }
                let common = self.common(&l, &r, true)?;
                let mut ls = l.ty.scalar()?;
                if ls == ScalarType::Bool {
                    ls = ScalarType::Int;
                }
                if self.is_untyped_literal(&l) {
                    ls = common.scalar()?;
                }
                let ty = common.with_scalar(ls);
                let both_lit = self.is_untyped_literal(&l) && self.is_untyped_literal(&r);
                let lhs = self.coerce(l, ty, false)?;
                let rhs = self.coerce(r, ty, false)?;
                let e = Expr { kind: ExprKind::Binary { op: binary_op(op), lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span };
                if both_lit && ty.is_scalar() {
                    if let Some([c]) = self.const_eval(&e).as_deref() {
                        self.untyped_literals.insert(span);
                        return Some(lit(*c, span));
                    }
                }
                Some(e)
            }
            _ => {
                let both_bool = l.ty.scalar() == Some(ScalarType::Bool) && r.ty.scalar() == Some(ScalarType::Bool);
                let keep_bool = both_bool && matches!(op, B::Eq | B::Ne);
                let common = self.common(&l, &r, !keep_bool)?;
                if matches!(op, B::BitAnd | B::BitOr | B::BitXor) && common.scalar().is_some_and(|s| s.is_float()) {
                    let bad = if l.ty.scalar().is_some_and(|s| s.is_float()) { &l } else { &r };
                    let bad = bad.clone();
                    self.needs_integer(op.symbol(), &bad);
                    return None;
                }
                if op == B::Rem && common.scalar() == Some(ScalarType::Double) {
                    // WAVE has no f64 remainder.
                    let t = self.type_name(common);
                    let note = "WAVE's f64 instructions have no remainder; convert to float to use `%` or fmod";
                    self.emit(err("E0314", format!("`{}` on `{t}` is not supported", op.symbol()), span, "f64 remainder").with_note(note));
                    return None;
                }
                let both_lit = self.is_untyped_literal(&l) && self.is_untyped_literal(&r);
                let lhs = self.coerce(l, common, false)?;
                let rhs = self.coerce(r, common, false)?;
                let bop = binary_op(op);
                let ty = if bop.is_comparison() { common.with_scalar(ScalarType::Bool) } else { common };
                let e = Expr { kind: ExprKind::Binary { op: bop, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span };
                // Fold constant arithmetic on literals (keeps `2 * 4` an untyped literal).
                if both_lit && ty.is_scalar() {
                    if let Some([c]) = self.const_eval(&e).as_deref() {
                        if !bop.is_comparison() {
                            self.untyped_literals.insert(span);
                            self.fold_literal_float(&e, span);
                        }
                        return Some(lit(*c, span));
                    }
                }
                Some(e)
            }
        }
    }

    fn ternary(&mut self, cond: &ast::Expr, then_expr: &ast::Expr, else_expr: &ast::Expr, span: Span) -> Option<Expr> {
        let c = self.expr(cond);
        let t = self.expr(then_expr);
        let f = self.expr(else_expr);
        let (c, t, f) = (c?, t?, f?);
        if self.legacy() {
            return self.legacy_ternary(c, t, f, span);
        }
        if !c.ty.is_scalar() {
            let ct = self.type_name(c.ty);
            self.emit(
                err("E0214", format!("the condition of `?:` must be a scalar, found `{ct}`"), c.span, "not a scalar").with_note(
                    "HLSL 2021 short-circuits `?:`: use select() for a per-component choice (`select(cond, a, b)`), or -HV 2018 for the old element-wise `?:`",
                ),
            );
            return None;
        }
        let c = self.coerce(c, Type::BOOL, false)?;
        let ty = if t.ty.is_numeric() && f.ty.is_numeric() {
            self.common(&t, &f, false)?
        } else if t.ty == f.ty {
            t.ty
        } else {
            let (a, b) = (self.type_name(t.ty), self.type_name(f.ty));
            self.emit(err("E0204", format!("the branches of `?:` have types `{a}` and `{b}`"), t.span.to(f.span), "different types"));
            return None;
        };
        let t = self.coerce(t, ty, false)?;
        let f = self.coerce(f, ty, false)?;
        Some(Expr { kind: ExprKind::Select { cond: Box::new(c), then_expr: Box::new(t), else_expr: Box::new(f) }, ty, span })
    }

    // ------------------------------------------------------------ assignments

    /// Checks that `e` is a writable place; reports why not.
    pub(super) fn check_place(&mut self, e: &Expr) -> bool {
        // Inside a member function, remember a write to the object.
        if let (Some((this, _, _)), ExprKind::Local(l)) = (self.cur_this, &super::calls::place_root(e).kind) {
            if *l == this {
                self.cur_this_effects.writes = true;
            }
        }
        match &e.kind {
            ExprKind::Local(id) => {
                let info = &self.locals[id.0 as usize];
                if info.kind == LocalKind::Const {
                    let (name, decl) = (info.name.clone(), info.span);
                    self.emit(
                        err("E0212", format!("cannot assign to const `{name}`"), e.span, "assignment to a constant")
                            .with_label(decl, "declared const here"),
                    );
                    return false;
                }
                true
            }
            ExprKind::Shared(_) => true,
            ExprKind::BufferElement { res, .. } | ExprKind::RawElement { res, .. } => {
                let Some(h) = self.handle_of(res) else { return false };
                if !h.kind.is_writable() {
                    let (name, kind) = (self.buffer_name(res), h.kind.name());
                    let mut d =
                        err("E0210", format!("cannot write to `{name}`: {kind} is read-only"), e.span, "write to a read-only buffer");
                    if let ExprKind::Resource(r) = res.kind {
                        d = d.with_label(self.resources[r.0 as usize].span, format!("declared as {kind} here"));
                    }
                    self.emit(d.with_note(format!("declare it as RW{kind} with a u# register to write to it")));
                    return false;
                }
                true
            }
            ExprKind::CbufferField { res, field } => {
                let r = &self.resources[res.0 as usize];
                let Type::Struct(s) = r.elem else { return false };
                let f = &self.types.strukt(s).fields[*field as usize];
                let (name, decl) = (f.name.clone(), f.span);
                self.emit(
                    err("E0211", format!("cannot assign to constant-buffer member `{name}`"), e.span, "constant buffers are read-only")
                        .with_label(decl, "declared here"),
                );
                false
            }
            ExprKind::Member { base, .. } | ExprKind::Index { base, .. } => self.check_place(base),
            ExprKind::Swizzle { base, comps } => {
                if has_repeat(comps) {
                    self.emit(
                        err("E0218", "a swizzle with repeated components cannot be assigned to", e.span, "repeated component")
                            .with_note("each component may appear once on the left of `=`"),
                    );
                    return false;
                }
                self.check_place(base)
            }
            ExprKind::MatrixElems { base, elems } => {
                if has_repeat(elems) {
                    self.emit(err("E0218", "a matrix swizzle with repeated elements cannot be assigned to", e.span, "repeated element"));
                    return false;
                }
                self.check_place(base)
            }
            _ => {
                self.emit(
                    err("E0213", "this expression cannot be assigned to", e.span, "not assignable")
                        .with_note("assign to a variable, an element or a member"),
                );
                false
            }
        }
    }

    /// Is `e` a writable place? (The check of [`Sema::check_place`], silently.)
    pub(super) fn is_place(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Local(id) => self.locals[id.0 as usize].kind != LocalKind::Const,
            ExprKind::Shared(_) => true,
            ExprKind::BufferElement { res, .. } | ExprKind::RawElement { res, .. } => {
                self.handle_of(res).is_some_and(|h| h.kind.is_writable())
            }
            ExprKind::Member { base, .. } | ExprKind::Index { base, .. } => self.is_place(base),
            ExprKind::Swizzle { base, comps } => !has_repeat(comps) && self.is_place(base),
            ExprKind::MatrixElems { base, elems } => !has_repeat(elems) && self.is_place(base),
            _ => false,
        }
    }

    /// The buffer type of a handle-typed expression.
    pub(super) fn handle_of(&self, e: &Expr) -> Option<HandleType> {
        match e.ty {
            Type::Handle(h) => Some(self.types.handle(h)),
            _ => None,
        }
    }

    /// A name for the buffer a handle expression denotes, for messages.
    pub(super) fn buffer_name(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Resource(r) => self.resources[r.0 as usize].name.clone(),
            ExprKind::Local(l) => self.locals[l.0 as usize].name.clone(),
            ExprKind::Member { base, field } => match base.ty {
                Type::Struct(s) => format!("{}.{}", self.buffer_name(base), self.types.strukt(s).fields[*field as usize].name),
                _ => self.type_name(e.ty),
            },
            _ => self.type_name(e.ty),
        }
    }

    /// A global buffer as a value: its handle (used by the kernel from here on).
    pub(super) fn resource_handle(&mut self, res: ResourceId, span: Span) -> Expr {
        let r = &self.resources[res.0 as usize];
        let h = HandleType { kind: r.kind, elem: r.elem, major: r.major };
        self.note_use(Use::Resource(res));
        let ty = self.types.handle_of(h);
        Expr { kind: ExprKind::Resource(res), ty, span }
    }

    /// `place` as an assignable expression.
    pub(super) fn place(&mut self, e: &ast::Expr) -> Option<Expr> {
        let p = self.expr(e)?;
        self.check_place(&p).then_some(p)
    }

    fn assign(&mut self, op: Option<ast::BinOp>, place: &ast::Expr, value: &ast::Expr, span: Span) -> Option<Expr> {
        let p = self.place(place);
        let v = self.expr(value);
        let (p, v) = (p?, v?);
        let ty = p.ty;
        let new = match op {
            None => v,
            Some(op) => {
                if !ty.is_numeric() {
                    let t = self.type_name(ty);
                    self.emit(err("E0206", format!("`{}=` needs a numeric place, found `{t}`", op.symbol()), p.span, "not a number"));
                    return None;
                }
                let pv = Expr { kind: ExprKind::PlaceValue, ty, span: p.span };
                self.binary(op, pv, v, span)?
            }
        };
        let value = self.coerce(new, ty, false)?;
        Some(Expr { kind: ExprKind::Assign { place: Box::new(p), value: Box::new(value), result_old: false }, ty, span })
    }

    fn inc_dec(&mut self, prefix: bool, inc: bool, operand: &ast::Expr, span: Span) -> Option<Expr> {
        let p = self.place(operand)?;
        if !p.ty.is_numeric() || p.ty.scalar() == Some(ScalarType::Bool) {
            let w = if inc { "increment" } else { "decrement" };
            let t = self.type_name(p.ty);
            self.emit(err("E0206", format!("cannot {w} a value of type `{t}`"), operand.span, "not a number"));
            return None;
        }
        let ty = p.ty;
        let pv = Expr { kind: ExprKind::PlaceValue, ty, span: operand.span };
        let one = lit(Const::Int(1), span);
        self.untyped_literals.insert(span);
        let op = if inc { ast::BinOp::Add } else { ast::BinOp::Sub };
        let new = self.binary(op, pv, one, span)?;
        let value = self.coerce(new, ty, false)?;
        Some(Expr { kind: ExprKind::Assign { place: Box::new(p), value: Box::new(value), result_old: !prefix }, ty, span })
    }

    // ------------------------------------------------------------ constructors and initializers

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
        if !to.is_numeric() {
            let t = self.type_name(to);
            self.emit(
                err("E0206", format!("`{t}` has no constructor"), ty.span, "not a scalar, vector or matrix type")
                    .with_note("initialise structs and arrays with `{ ... }` or a cast such as `(S)0`"),
            );
            return None;
        }
        if let Some(bad) = vals.iter().find(|v| !v.ty.is_numeric()) {
            let t = self.type_name(bad.ty);
            let bad_span = bad.span;
            self.emit(err("E0206", format!("a constructor argument cannot have type `{t}`"), bad_span, "not a number"));
            return None;
        }
        let total: u32 = vals.iter().map(|v| v.ty.len()).sum();
        if vals.len() == 1 && (to.len() == 1 || total == to.len()) {
            // `float(x)` and `float3(int3_value)`: an explicit conversion.
            let v = vals.pop()?;
            let v = self.coerce(v, to, true)?;
            return Some(Expr { span, ..v });
        }
        if total != to.len() {
            let t = self.type_name(to);
            self.emit(err("E0206", format!("`{t}` needs {} components, {total} given", to.len()), span, "wrong number of components"));
            return None;
        }
        self.build_construct(vals, to, span)
    }

    /// A `Construct` of `vals` (numeric, leaves adding up to `to`'s), folding literal args to their leaf type.
    fn build_construct(&mut self, vals: Vec<Expr>, to: Type, span: Span) -> Option<Expr> {
        // A buffer's address is not a number: a buffer in a list fills a buffer leaf of
        // the same buffer type, and a buffer leaf takes nothing else.
        let want = self.types.handle_leaves(to);
        let mut at = 0usize;
        for v in &vals {
            let got = self.types.handle_leaves(v.ty);
            let slot = want.get(at..at + got.len()).unwrap_or(&[]);
            if let Some(j) = (0..got.len().min(slot.len())).find(|&j| got[j] != slot[j]) {
                let (vs, vt) = (v.span, self.type_name(v.ty));
                let msg = match (got[j], slot[j]) {
                    (Some(g), Some(w)) => format!(
                        "`{}` cannot fill a `{}` of `{}`",
                        self.type_name(Type::Handle(g)),
                        self.type_name(Type::Handle(w)),
                        self.type_name(to)
                    ),
                    (Some(g), None) => {
                        format!("a buffer (`{}`) cannot fill a number of `{}`", self.type_name(Type::Handle(g)), self.type_name(to))
                    }
                    (None, Some(w)) => {
                        format!("`{vt}` cannot fill the buffer (`{}`) of `{}`", self.type_name(Type::Handle(w)), self.type_name(to))
                    }
                    (None, None) => unreachable!("equal leaves"),
                };
                self.emit(
                    err("E0206", msg, vs, "wrong kind of value")
                        .with_note("in an initializer list, buffers fill the buffer fields (or elements) of the same buffer type"),
                );
                return None;
            }
            at += got.len();
        }
        let leaves = self.types.leaves(to);
        let mut at = 0usize;
        let mut args = Vec::with_capacity(vals.len());
        for v in vals {
            let n = self.types.leaf_count(v.ty) as usize;
            let v = match (&v.kind, leaves.get(at)) {
                // A literal wider than 32 bits takes its whole value in a 64-bit leaf.
                (ExprKind::Literal(_), Some(&s)) if self.wide_literals.contains_key(&v.span) => self.settle_wide_literal(v, s, false),
                (ExprKind::Literal(_), Some(&s)) => self.cast_components(v, s),
                _ => v,
            };
            at += n;
            args.push(v);
        }
        Some(Expr { kind: ExprKind::Construct { args }, ty: to, span })
    }

    /// A declaration's initializer for type `ty` (whose outermost array
    /// dimension may be 0: sized by a brace list). Returns the final type.
    pub(super) fn initializer(&mut self, ty: Type, init: Option<&ast::Init>, name_span: Span) -> Option<(Type, Option<Expr>)> {
        let open_size = matches!(ty, Type::Array(a) if self.types.array(a).1 == 0);
        match init {
            None => {
                if open_size {
                    self.emit(err("E0244", "an array declared with `[]` needs an initializer list", name_span, "no size"));
                    return None;
                }
                Some((ty, None))
            }
            Some(ast::Init::Expr(e)) => {
                if open_size {
                    self.emit(err("E0244", "an array declared with `[]` needs an initializer list", e.span, "not a list"));
                    return None;
                }
                let v = self.expr(e)?;
                let v = self.coerce(v, ty, false)?;
                Some((ty, Some(v)))
            }
            Some(list @ ast::Init::List(_, span)) => {
                let mut items = Vec::new();
                flatten_init(list, &mut items);
                let mut vals = Vec::new();
                let mut ok = true;
                for i in items {
                    match self.expr(i) {
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
                let total: u32 = vals.iter().map(|v| self.types.leaf_count(v.ty)).sum();
                let ty = if open_size {
                    let Type::Array(a) = ty else { return None };
                    let elem = self.types.array(a).0;
                    let per = self.types.leaf_count(elem).max(1);
                    if total == 0 || total / per * per != total {
                        let t = self.type_name(elem);
                        self.emit(err("E0246", format!("{total} values do not fill whole `{t}` elements"), *span, "initializer list"));
                        return None;
                    }
                    self.types.array_of(elem, total / per)
                } else {
                    ty
                };
                let want = self.types.leaf_count(ty);
                if total != want {
                    let t = self.type_name(ty);
                    let why = if total < want { "too few values" } else { "too many values" };
                    self.emit(err("E0246", format!("`{t}` needs {want} values, the list has {total}"), *span, why));
                    return None;
                }
                let e = self.build_construct(vals, ty, *span)?;
                Some((ty, Some(e)))
            }
        }
    }

    // ------------------------------------------------------------ indexing and members

    fn index(&mut self, base: &ast::Expr, index: &ast::Expr, span: Span) -> Option<Expr> {
        if let AK::Ident(name) = &base.kind {
            if self.lookup_local(name).is_none() {
                if let Some((Global::Resource(res), _)) = self.globals.get(name).copied() {
                    if self.resources[res.0 as usize].kind == crate::interface::ResourceKind::ConstantBuffer {
                        let d = err("E0208", format!("`{name}` (ConstantBuffer) cannot be indexed"), span, "not an indexable buffer");
                        self.emit(d.with_note("read its members by name"));
                        return None;
                    }
                }
            }
        }
        let b = self.expr(base)?;
        if matches!(b.ty, Type::Handle(_)) {
            return self.buffer_index(b, index, span);
        }
        let i = self.expr(index)?;
        let i = self.index_expr(i, "an index")?;
        if let (ExprKind::Resources(ids), Type::Array(a)) = (&b.kind, b.ty) {
            // A constant index picks element resources at compile time.
            let (elem, n) = self.types.array(a);
            if let Some(Const::Uint(k)) = self.const_eval(&i).and_then(|v| v.first().copied()) {
                if k < n && effect_free(&i) {
                    let per = self.types.leaf_count(elem) as usize;
                    let sub = ids[k as usize * per..(k as usize + 1) * per].to_vec();
                    return Some(self.group_value(sub, elem, span));
                }
            }
        }
        // A scalar is also a one-component vector (`float1`, the row of an Nx1 matrix): `[0]` is itself.
        if let Type::Scalar(_) = b.ty {
            return match self.const_eval(&i).and_then(|v| v.first().copied()) {
                Some(Const::Uint(0)) => Some(Expr { span, ..b }),
                Some(Const::Uint(k)) => {
                    let t = self.type_name(b.ty);
                    self.emit(err("E0207", format!("index {k} is out of range for `{t}`"), i.span, "the only index is 0"));
                    None
                }
                // Any other index can only be 0 (HLSL leaves others undefined): the value itself,
                // after the index's effects.
                _ if effect_free(&i) => Some(Expr { span, ..b }),
                _ => Some(Expr { kind: ExprKind::Comma { lhs: Box::new(i), rhs: Box::new(b.clone()) }, ty: b.ty, span }),
            };
        }
        let (ty, count) = match b.ty {
            Type::Array(a) => {
                let (e, n) = self.types.array(a);
                (e, n)
            }
            Type::Vector(s, n) => (Type::Scalar(s), n as u32),
            Type::Matrix(s, r, c) => (Type::vector(s, c as u32), r as u32),
            other => {
                let t = self.type_name(other);
                self.emit(err("E0208", format!("cannot index a value of type `{t}`"), base.span, "not an array, vector, matrix or buffer"));
                return None;
            }
        };
        if let Some(Const::Uint(k)) = self.const_eval(&i).and_then(|v| v.first().copied()) {
            if k >= count {
                let t = self.type_name(b.ty);
                self.emit(err(
                    "E0207",
                    format!("index {k} is out of range for `{t}`"),
                    i.span,
                    format!("valid indices are 0 to {}", count - 1),
                ));
                return None;
            }
        }
        Some(Expr { kind: ExprKind::Index { base: Box::new(b), index: Box::new(i) }, ty, span })
    }

    /// `buf[index]` for a buffer value `res` (a handle).
    fn buffer_index(&mut self, res: Expr, index: &ast::Expr, span: Span) -> Option<Expr> {
        let h = self.handle_of(&res)?;
        use crate::interface::ResourceKind as K;
        if !matches!(h.kind, K::StructuredBuffer | K::RWStructuredBuffer | K::Buffer | K::RWBuffer) {
            let name = self.buffer_name(&res);
            self.emit(
                err("E0208", format!("`{name}` ({}) cannot be indexed", h.kind.name()), span, "not an indexable buffer")
                    .with_note("use Load/Store with a byte offset"),
            );
            return None;
        }
        let i = self.expr(index)?;
        let i = self.index_expr(i, "a buffer index")?;
        Some(Expr { kind: ExprKind::BufferElement { res: Box::new(res), index: Box::new(i) }, ty: h.elem, span })
    }

    fn member(&mut self, base: &ast::Expr, field: &ast::Ident, span: Span) -> Option<Expr> {
        if let AK::Ident(name) = &base.kind {
            if self.lookup_local(name).is_none() {
                if let Some((Global::Resource(res), _)) = self.globals.get(name).copied() {
                    return self.resource_member(res, field, span);
                }
            }
        }
        let b = self.expr(base)?;
        self.member_of(b, field, span)
    }

    /// Resources `ids` of a group as a value of type `ty` (the resource itself for a handle).
    fn group_value(&mut self, ids: Vec<ResourceId>, ty: Type, span: Span) -> Expr {
        match (ty, ids.as_slice()) {
            (Type::Handle(_), [r]) => self.resource_handle(*r, span),
            _ => Expr { kind: ExprKind::Resources(ids), ty, span },
        }
    }

    /// `.field` of an analysed value: struct fields, swizzles, matrix elements.
    pub(super) fn member_of(&mut self, b: Expr, field: &ast::Ident, span: Span) -> Option<Expr> {
        if let (ExprKind::Resources(ids), Type::Struct(s)) = (&b.kind, b.ty) {
            // A member of a struct of resources: those resources, known at compile time.
            if let Some(k) = self.types.strukt(s).fields.iter().position(|f| f.name == field.name) {
                let fty = self.types.strukt(s).fields[k].ty;
                let start = self.types.field_leaf_offset(s, k as u32) as usize;
                let len = self.types.leaf_count(fty) as usize;
                let sub = ids[start..start + len].to_vec();
                return Some(self.group_value(sub, fty, span));
            }
        }
        if let Type::Handle(h) = b.ty {
            if let (crate::interface::ResourceKind::ConstantBuffer, Type::Struct(s)) =
                (self.types.handle(h).kind, self.types.handle(h).elem)
            {
                return self.constant_member(b, s, field, span);
            }
        }
        match b.ty {
            Type::Struct(s) => {
                let def = self.types.strukt(s);
                let Some(k) = def.fields.iter().position(|f| f.name == field.name) else {
                    let names: Vec<String> = def.fields.iter().map(|f| format!("`{}`", f.name)).collect();
                    let (sname, sspan) = (def.name.clone(), def.span);
                    self.emit(
                        err("E0207", format!("struct `{sname}` has no field `{}`", field.name), field.span, "unknown field")
                            .with_label(sspan, "struct declared here")
                            .with_note(format!("its fields are {}", names.join(", "))),
                    );
                    return None;
                };
                let ty = def.fields[k].ty;
                Some(Expr { kind: ExprKind::Member { base: Box::new(b), field: k as u32 }, ty, span })
            }
            Type::Scalar(s) | Type::Vector(s, _) => {
                let Some(comps) = swizzle(&field.name) else {
                    let t = self.type_name(b.ty);
                    self.emit(
                        err("E0207", format!("`{t}` has no member `{}`", field.name), field.span, "unknown member")
                            .with_note("vectors have components .x .y .z .w (or .r .g .b .a), in swizzles of up to 4"),
                    );
                    return None;
                };
                let n = b.ty.len();
                if let Some(&c) = comps.iter().find(|&&c| c as u32 >= n) {
                    let t = self.type_name(b.ty);
                    self.emit(err(
                        "E0207",
                        format!("`{t}` has no component `{}`", ['x', 'y', 'z', 'w'][c as usize]),
                        field.span,
                        "out of range",
                    ));
                    return None;
                }
                let ty = Type::vector(s, comps.len() as u32);
                if comps.len() == 1 && n == 1 {
                    // `.x` of a scalar is the scalar itself.
                    return Some(Expr { span, ..b });
                }
                Some(Expr { kind: ExprKind::Swizzle { base: Box::new(b), comps }, ty, span })
            }
            Type::Matrix(s, r, c) => {
                let Some(elems) = matrix_swizzle(&field.name) else {
                    let t = self.type_name(b.ty);
                    self.emit(
                        err("E0207", format!("`{t}` has no member `{}`", field.name), field.span, "unknown member")
                            .with_note("matrix elements are `_m00`..`_m33` (0-based) or `_11`..`_44` (1-based)"),
                    );
                    return None;
                };
                if let Some(&(er, ec)) = elems.iter().find(|&&(er, ec)| er >= r || ec >= c) {
                    let t = self.type_name(b.ty);
                    self.emit(err("E0207", format!("`{t}` has no element ({er}, {ec})"), field.span, "out of range"));
                    return None;
                }
                let ty = Type::vector(s, elems.len() as u32);
                Some(Expr { kind: ExprKind::MatrixElems { base: Box::new(b), elems }, ty, span })
            }
            other => {
                let t = self.type_name(other);
                self.emit(err("E0207", format!("`{t}` has no member `{}`", field.name), field.span, "no members"));
                None
            }
        }
    }

    /// `cb.field` of a `ConstantBuffer<T>` value (struct `s` is its `T`).
    fn constant_member(&mut self, cb: Expr, s: StructId, field: &ast::Ident, span: Span) -> Option<Expr> {
        let Some(k) = self.types.strukt(s).fields.iter().position(|f| f.name == field.name) else {
            let t = self.type_name(Type::Struct(s));
            self.emit(err("E0207", format!("`{t}` has no field `{}`", field.name), field.span, "unknown field"));
            return None;
        };
        let ty = self.types.strukt(s).fields[k].ty;
        let kind = match cb.kind {
            ExprKind::Resource(res) => ExprKind::CbufferField { res, field: k as u32 },
            _ => ExprKind::ConstantMember { cb: Box::new(cb), field: k as u32 },
        };
        Some(Expr { kind, ty, span })
    }

    /// A `ConstantBuffer<T>` value as its contents, a `T` (every member read).
    pub(super) fn constant_contents(&mut self, cb: Expr) -> Option<Expr> {
        let Type::Handle(h) = cb.ty else { return None };
        let Type::Struct(s) = self.types.handle(h).elem else { return None };
        let span = cb.span;
        let n = self.types.strukt(s).fields.len() as u32;
        let args = (0..n)
            .map(|field| {
                let ty = self.types.strukt(s).fields[field as usize].ty;
                let kind = match cb.kind {
                    ExprKind::Resource(res) => ExprKind::CbufferField { res, field },
                    _ => ExprKind::ConstantMember { cb: Box::new(cb.clone()), field },
                };
                Expr { kind, ty, span }
            })
            .collect();
        Some(Expr { kind: ExprKind::Construct { args }, ty: Type::Struct(s), span })
    }

    /// `Res.field`: members of `ConstantBuffer<T>`; methods must be called.
    fn resource_member(&mut self, res: ResourceId, field: &ast::Ident, span: Span) -> Option<Expr> {
        let r = &self.resources[res.0 as usize];
        let name = r.name.clone();
        if let (crate::interface::ResourceKind::ConstantBuffer, Type::Struct(s)) = (r.kind, r.elem) {
            if let Some(k) = self.types.strukt(s).fields.iter().position(|f| f.name == field.name) {
                self.note_use(Use::Resource(res));
                let ty = self.types.strukt(s).fields[k].ty;
                return Some(Expr { kind: ExprKind::CbufferField { res, field: k as u32 }, ty, span });
            }
            let t = self.type_name(r.elem);
            self.emit(err("E0207", format!("`{t}` has no field `{}`", field.name), field.span, "unknown field"));
            return None;
        }
        self.emit(
            err("E0215", format!("`{name}.{}` must be called", field.name), span, "a method")
                .with_note(format!("write `{name}.{}(...)`", field.name)),
        );
        None
    }
}

fn has_repeat<T: PartialEq>(v: &[T]) -> bool {
    v.iter().enumerate().any(|(i, a)| v[..i].contains(a))
}

/// The expressions of a brace initializer, nested lists flattened.
fn flatten_init<'a>(init: &'a ast::Init, out: &mut Vec<&'a ast::Expr>) {
    match init {
        ast::Init::Expr(e) => out.push(e),
        ast::Init::List(items, _) => items.iter().for_each(|i| flatten_init(i, out)),
    }
}

/// Is evaluating `e` free of effects (no assignment, call, atomic or intrinsic)?
pub(super) fn effect_free(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::Shared(_)
        | ExprKind::CbufferField { .. }
        | ExprKind::Resource(_)
        | ExprKind::Resources(_) => true,
        ExprKind::ConstantMember { cb: x, .. } => effect_free(x),
        ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::MatrixElems { base: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { operand: x }
        | ExprKind::Splat { operand: x }
        | ExprKind::Leaves { operand: x, .. } => effect_free(x),
        ExprKind::Index { base: a, index: b }
        | ExprKind::BufferElement { res: a, index: b }
        | ExprKind::RawElement { res: a, offset: b }
        | ExprKind::Binary { lhs: a, rhs: b, .. }
        | ExprKind::Logical { lhs: a, rhs: b, .. } => effect_free(a) && effect_free(b),
        _ => false,
    }
}
