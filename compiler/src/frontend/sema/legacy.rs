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

#[cfg(test)]
mod tests {
    use crate::diag::{render, Diagnostic, SourceFile};
    use crate::frontend::tast::*;
    use crate::frontend::{analyze_with, FrontendOptions};
    use crate::options::HlslVersion;

    fn analyze_as(year: u32, body: &str) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
        let src = format!(
            "struct P {{ float3 p; float w; }};\nstruct Q {{ float3 q; float k; }};\n\
             float wOf(P x) {{ return x.w; }}\nfloat wOf(Q x) {{ return -x.k; }}\nfloat only(P x) {{ return x.w; }}\n\
             RWStructuredBuffer<float> Out : register(u0);\n\
             [numthreads(4,1,1)] void main(uint i : SV_GroupIndex) {{\n{body}\n}}"
        );
        let opts = FrontendOptions { hlsl_version: HlslVersion(year), ..FrontendOptions::default() };
        analyze_with(&SourceFile::new("t.hlsl", src), &opts)
    }

    #[track_caller]
    fn ok(year: u32, body: &str) -> (Module, Vec<Diagnostic>) {
        analyze_as(year, body).unwrap_or_else(|d| panic!("{}", render(&SourceFile::new("t.hlsl", ""), &d)))
    }

    /// The initializer of the local `name` in the entry point.
    fn init_of<'m>(m: &'m Module, name: &str) -> &'m Expr {
        fn find<'m>(m: &'m Module, stmts: &'m [Stmt], name: &str) -> Option<&'m Expr> {
            stmts.iter().find_map(|s| match &s.kind {
                StmtKind::Decl { local, init: Some(e) } if m.local(*local).name == name => Some(e),
                StmtKind::For { init, body, .. } => find(m, init, name).or_else(|| find(m, &body.stmts, name)),
                StmtKind::Block(b) => find(m, &b.stmts, name),
                _ => None,
            })
        }
        find(m, &m.function(m.entry.func).body.stmts, name).expect("a local with an initializer")
    }

    fn codes(d: &[Diagnostic]) -> Vec<&'static str> {
        d.iter().map(|d| d.code).collect()
    }

    #[test]
    fn logic_is_element_wise_and_eager() {
        let (m, _) = ok(2018, "float3 v = Out[i]; bool3 b = v > 1 && v < 2; bool c = i > 1 || Out[i] > 0; Out[i] = b.x || c;");
        assert!(matches!(
            init_of(&m, "b"),
            Expr { kind: ExprKind::Binary { op: BinaryOp::And, .. }, ty: Type::Vector(ScalarType::Bool, 3), .. }
        ));
        // A scalar `||` is no short-circuit either: an element-wise `or`.
        assert!(matches!(init_of(&m, "c").kind, ExprKind::Binary { op: BinaryOp::Or, .. }));
        // HLSL 2021: short-circuit on scalars, vectors refused (with a hint).
        let (m, _) = ok(2021, "bool c = i > 1 || Out[i] > 0; Out[i] = c;");
        assert!(matches!(init_of(&m, "c").kind, ExprKind::Logical { op: LogicalOp::Or, .. }));
        let e = analyze_as(2021, "float3 v = Out[i]; bool3 b = v > 1 && v < 2;").unwrap_err();
        assert_eq!(codes(&e), ["E0214"]);
        assert!(e[0].notes[0].contains("-HV 2018"));
    }

    #[test]
    fn ternary_is_a_select() {
        let (m, _) = ok(
            2016,
            "float3 v = Out[i]; float3 a = v > 0 ? v : -v; int2 k = bool2(i > 1, i > 2) ? 1 : 0; \
             P p = (P)1; P q = (P)2; P r = i > 1 ? p : q; float s = i > 2 ? 1.5 : Out[i];",
        );
        for (name, ty) in [("a", "float3"), ("k", "int2"), ("r", "P"), ("s", "float")] {
            let e = init_of(&m, name);
            assert!(matches!(e.kind, ExprKind::Intrinsic { op: Intrinsic::Select, .. }), "{name}: {:?}", e.kind);
            assert_eq!(m.types.name(e.ty), ty);
        }
        let e = analyze_as(2021, "float3 v = Out[i]; float3 a = v > 0 ? v : -v;").unwrap_err();
        assert!(e[0].notes[0].contains("select()") && e[0].notes[0].contains("-HV 2018"), "{:?}", e[0].notes);
    }

    #[test]
    fn for_variables_leak_and_redefinitions_shadow() {
        let (m, w) = ok(2018, "for (uint k = 0; k < 4; k++) {} for (float k = 1; k < 3; k++) {} Out[i] = k;");
        assert_eq!(codes(&w), ["W0206"]);
        // The second `k` (a float) is the one in scope after the loops.
        let body = &m.function(m.entry.func).body.stmts;
        let StmtKind::Expr(Expr { kind: ExprKind::Assign { value, .. }, .. }) = &body.last().unwrap().kind else { panic!() };
        assert_eq!(value.ty, Type::FLOAT);
        // A plain redeclaration is still an error; in 2021 the loop variable is gone.
        assert_eq!(codes(&analyze_as(2018, "for (uint k = 0; k < 4; k++) {} uint k = 2;").unwrap_err()), ["E0202"]);
        let e = analyze_as(2021, "for (uint k = 0; k < 4; k++) {} Out[i] = k;").unwrap_err();
        assert_eq!(codes(&e), ["E0201"]);
        assert!(e[0].notes.iter().any(|n| n.contains("-HV 2018")));
        // Loops in nested blocks leak into their block only.
        assert_eq!(codes(&analyze_as(2018, "{ for (uint k = 0; k < 4; k++) {} } Out[i] = k;").unwrap_err()), ["E0201"]);
    }

    #[test]
    fn same_layout_structs_convert() {
        let (m, w) = ok(2018, "Q q = (Q)3; P p = q; float a = only(q); float b = wOf(q); Out[i] = p.w + a + b;");
        assert!(w.is_empty(), "{w:?}");
        assert!(matches!(init_of(&m, "p").kind, ExprKind::Cast { .. }));
        // The exact overload still wins over a layout conversion.
        let ExprKind::Call { func, .. } = init_of(&m, "b").kind else { panic!() };
        assert_eq!(m.function(func).params[0].ty, init_of(&m, "q").ty);
        let e = analyze_as(2021, "Q q = (Q)3; P p = q;").unwrap_err();
        assert_eq!(codes(&e), ["E0204"]);
        assert!(e[0].notes.iter().any(|n| n.contains("-HV 2018")));
        assert_eq!(codes(&analyze_as(2021, "Q q = (Q)3; float a = only(q);").unwrap_err()), ["E0251"]);
    }
}
