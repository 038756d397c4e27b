//! Enumerations (`enum E { A, B = 4 };`, HLSL 2021's `enum class E : uint { ... }`).
//!
//! An enum type is its underlying integer type (`int` unless written), and each
//! enumerator a `static const` of that type with its constant value: uses fold
//! like any constant (array sizes, `case` labels). Unscoped enumerators are global
//! names; every enumerator is also `E::A`. DXC additionally refuses implicit
//! conversions from integers to enums (and, for `enum class`, from enums to
//! integers); wavec accepts them, so it compiles a superset and never gives a
//! DXC-valid program another meaning.

use std::collections::BTreeSet;

use super::{err, lit, Global, NamedType, Sema};
use crate::frontend::ast;
use crate::frontend::fold::int_of;
use crate::frontend::tast::*;

impl Sema {
    pub(super) fn enum_decl(&mut self, e: &ast::EnumDecl) {
        let base = match &e.base {
            None => Some(Type::INT),
            Some(t) => match self.resolve_type(t) {
                Some(ty @ Type::Scalar(s)) if s.is_integer() => Some(ty),
                Some(other) => {
                    let n = self.type_name(other);
                    self.emit(err(
                        "E0206",
                        format!("an enum's underlying type must be an integer type, not `{n}`"),
                        t.span,
                        "not an integer",
                    ));
                    None
                }
                None => None,
            },
        };
        let name = &e.name.name;
        if self.type_names.contains_key(name) {
            self.emit(err("E0202", format!("type `{name}` is declared twice"), e.name.span, "redeclared here"));
            return;
        }
        // A failed enum stays known (as void) so that its uses stay silent.
        self.type_names.insert(name.clone(), NamedType { ty: base.unwrap_or(Type::Void), major: None });
        let Some(base) = base else { return };
        let scalar = base.scalar().unwrap_or(ScalarType::Int);
        let mut members = Vec::new();
        let mut next: i64 = 0;
        // In a scoped enum's body, its earlier enumerators are named without `E::`.
        if e.scoped {
            self.scopes.push(Default::default());
        }
        for (id, value) in &e.enumerators {
            let v = match value {
                Some(x) => match self.enumerator_value(x, base) {
                    Some(v) => v,
                    None => {
                        self.declare_global(id, Global::Poisoned);
                        continue;
                    }
                },
                None => next,
            };
            next = v.wrapping_add(1);
            let c = match scalar {
                ScalarType::Uint => Const::Uint(v as u32),
                ScalarType::Int16 | ScalarType::Uint16 => Const::Bits16(scalar, v as u16),
                _ => Const::Int(v as i32),
            };
            let local = LocalId(self.locals.len() as u32);
            self.locals.push(LocalInfo { name: id.name.clone(), ty: base, kind: LocalKind::Const, span: id.span });
            self.const_values.insert(local, vec![c]);
            self.static_uses.insert(local, BTreeSet::new());
            let mut init = lit(c, id.span);
            init.ty = base;
            self.statics.push((local, Some(init)));
            if e.scoped {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(id.name.clone(), local);
                }
            } else {
                self.declare_global(id, Global::Static(local));
            }
            members.push((id.name.clone(), local));
        }
        if e.scoped {
            self.scopes.pop();
        }
        self.enums.insert(name.clone(), members);
    }

    /// The value of `= x` in an enumerator: an integer constant, converted to `base`.
    fn enumerator_value(&mut self, x: &ast::Expr, base: Type) -> Option<i64> {
        let saved = std::mem::take(&mut self.cur_uses);
        let typed = self.expr(x).and_then(|v| self.coerce(v, base, false));
        self.cur_uses = saved;
        let typed = typed?;
        let v = self.const_eval(&typed).and_then(|v| v.first().copied()).and_then(int_of);
        if v.is_none() {
            self.emit(
                err("E0245", "an enumerator's value must be a compile-time constant", x.span, "not a constant")
                    .with_note("use a literal, an earlier enumerator, or a `static const` with a constant initializer"),
            );
        }
        v
    }

    /// `E::A`: enumerator `A` of enum `E`, as a constant.
    pub(super) fn scoped_enumerator(&mut self, e: &str, name: &str, span: crate::diag::Span) -> Option<Option<Expr>> {
        let members = self.enums.get(e)?;
        let Some(&(_, local)) = members.iter().find(|(n, _)| n == name) else {
            self.emit(err("E0207", format!("enum `{e}` has no enumerator `{name}`"), span, "no such enumerator"));
            return Some(None);
        };
        self.note_use(super::Use::Static(local));
        Some(Some(Expr { kind: ExprKind::Local(local), ty: self.locals[local.0 as usize].ty, span }))
    }
}
