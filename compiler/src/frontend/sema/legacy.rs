//! HLSL 2018 rules (`-HV 2016/2017/2018`, and Unity `.compute` files), as DXC
//! applies them before HLSL 2021 (and as FXC always did):
//!
//! * `&&`, `||` and `?:` never short-circuit: every operand is evaluated, left
//!   to right, and the operators work element-wise on vectors and matrices
//!   (`a && b` is `and(a, b)`, `c ? a : b` is `select(c, a, b)`);
//! * a variable declared in a `for` init belongs to the enclosing scope, so it
//!   is visible after the loop; a later `for` that declares the same name in
//!   that scope makes a new variable that shadows it (warning W0206);
//! * structs with the same layout (the same scalars in the same order)
//!   convert into each other implicitly.
//!
//! The other HLSL 2021 additions (templates, operator overloading, bitfields)
//! are not part of the supported language in either version.

use super::{err, Sema};
use crate::diag::Span;
use crate::frontend::ast;
use crate::frontend::tast::*;

impl Sema {
    /// Pre-2021 rules in force?
    pub(super) fn legacy(&self) -> bool {
        self.opts.hlsl_version.legacy()
    }

    /// `l && r` / `l || r` before HLSL 2021: both sides, element-wise.
    pub(super) fn legacy_logical(&mut self, op: ast::BinOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        let (name, bop) = if op == ast::BinOp::LogAnd { ("&&", BinaryOp::And) } else { ("||", BinaryOp::Or) };
        self.elementwise_logic(name, bop, l, r, span)
    }

    /// `c ? t : f` before HLSL 2021: every operand evaluated, a choice per
    /// component (per leaf of a struct or array with a scalar condition).
    pub(super) fn legacy_ternary(&mut self, c: Expr, t: Expr, f: Expr, span: Span) -> Option<Expr> {
        if t.ty.is_numeric() && f.ty.is_numeric() {
            if !c.ty.is_numeric() {
                let ct = self.type_name(c.ty);
                self.emit(err(
                    "E0214",
                    format!("the condition of `?:` must be a scalar, vector or matrix, found `{ct}`"),
                    c.span,
                    "not a number",
                ));
                return None;
            }
            return self.select_values(c, t, f, span);
        }
        // Aggregates (structs, arrays, buffers): one scalar condition for all their leaves.
        if !c.ty.is_scalar() {
            let ct = self.type_name(c.ty);
            self.emit(err(
                "E0214",
                format!("the condition of `?:` must be a scalar when it chooses a struct or array, found `{ct}`"),
                c.span,
                "not a scalar",
            ));
            return None;
        }
        let ty = if t.ty == f.ty || self.same_layout(f.ty, t.ty) {
            t.ty
        } else {
            let (a, b) = (self.type_name(t.ty), self.type_name(f.ty));
            self.emit(err("E0204", format!("the branches of `?:` have types `{a}` and `{b}`"), t.span.to(f.span), "different types"));
            return None;
        };
        let c = self.coerce(c, Type::BOOL, false)?;
        let f = self.coerce(f, ty, false)?;
        Some(Expr { kind: ExprKind::Intrinsic { op: Intrinsic::Select, args: vec![c, t, f] }, ty, span })
    }

    /// Structs that convert implicitly before HLSL 2021: different struct
    /// types with the same scalars in the same order (and no buffers in them).
    pub(super) fn same_layout(&self, from: Type, to: Type) -> bool {
        legacy_struct_conversion(&self.types, from, to) && self.legacy()
    }

    /// A `for` init declaration before HLSL 2021 lands in the enclosing scope;
    /// one that redeclares a name of that scope shadows it (DXC warns, as here).
    pub(super) fn warn_for_redefinition(&mut self, name: &ast::Ident, prev: LocalId) {
        let info = &self.locals[prev.0 as usize];
        let (prev_span, prev_ty) = (info.span, info.ty);
        let new_ty = self.locals.last().map_or(prev_ty, |l| l.ty);
        let what = if prev_ty == new_ty {
            String::new()
        } else {
            format!(" with a different type (`{}` after `{}`)", self.type_name(new_ty), self.type_name(prev_ty))
        };
        let d = crate::diag::Diagnostic::warning(
            "W0206",
            format!("redefinition of `{}`{what} shadows the declaration in the enclosing scope", name.name),
        )
        .with_label(name.span, "the loop declares it again")
        .with_label(prev_span, "first declared here")
        .with_note("HLSL 2018: `for` init variables belong to the enclosing scope; the most recent declaration is used from here on")
        .with_note("rename one of them, or compile with -HV 2021 to scope each to its loop");
        self.diags.push(d);
    }
}

/// Struct-to-struct conversion allowed by the pre-2021 rules (see [`Sema::same_layout`]).
pub(super) fn legacy_struct_conversion(types: &Types, from: Type, to: Type) -> bool {
    matches!((from, to), (Type::Struct(a), Type::Struct(b)) if a != b)
        && !types.contains_handle(from)
        && !types.contains_handle(to)
        && types.leaves(from) == types.leaves(to)
}
