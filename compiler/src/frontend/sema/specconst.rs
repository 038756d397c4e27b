//! Vulkan specialization constants: `[[vk::constant_id(N)]] const T x = V;`.
//!
//! A SPIR-V host may replace `V` when it creates the pipeline. WAVE kernels
//! have no such step, so the constant takes its default value `V`, as a
//! `static const` would (note W0208 says so). As in DXC, it must be a `const`
//! scalar `bool`, `int`, `uint` or `float` with a constant initializer (E0223).

use super::{err, Sema};
use crate::diag::Diagnostic;
use crate::frontend::ast;
use crate::frontend::tast::*;

impl Sema {
    /// The `[[vk::constant_id(N)]]` attribute of a global declaration, if any.
    pub(super) fn constant_id_attr(v: &ast::VarDecl) -> Option<&ast::Attribute> {
        v.attrs.iter().find(|a| a.name.name == "vk::constant_id")
    }

    /// Declares a specialization constant as a `static const` with its default value.
    pub(super) fn spec_constant_decl(&mut self, v: &ast::VarDecl, attr: &ast::Attribute) {
        let id = match attr.args.as_slice() {
            [e] => self.const_uint(e, "a constant_id"),
            _ => {
                self.emit(err("E0223", "`vk::constant_id` takes one integer", attr.span, "expected [[vk::constant_id(N)]]"));
                None
            }
        };
        let is_const = v.qualifiers.iter().any(|(q, _)| *q == ast::Qualifier::Const);
        let ty = self.resolve_type(&v.ty);
        let scalar_ok = matches!(ty, Some(Type::Scalar(ScalarType::Bool | ScalarType::Int | ScalarType::Uint | ScalarType::Float)));
        let mut ok = id.is_some();
        if !is_const {
            self.emit(err("E0223", "a specialization constant must be `const`", v.ty.span, "missing `const`"));
            ok = false;
        }
        if ty.is_some() && !scalar_ok {
            let t = ty.map(|t| self.type_name(t)).unwrap_or_default();
            self.emit(
                err(
                    "E0223",
                    format!("a specialization constant must be a `bool`, `int`, `uint` or `float` scalar, not `{t}`"),
                    v.ty.span,
                    "not a scalar",
                )
                .with_label(attr.span, "specialization constant"),
            );
            ok = false;
        }
        for d in &v.declarators {
            if d.init.is_none() || !d.dims.is_empty() {
                let what = if d.dims.is_empty() { "needs a default value" } else { "cannot be an array" };
                self.emit(err("E0223", format!("specialization constant `{}` {what}", d.name.name), d.name.span, "here"));
                ok = false;
            }
        }
        if !ok {
            self.poison_declarators(v);
            return;
        }
        let errors_before = self.diags.iter().filter(|d| d.is_error()).count();
        self.static_decl(v);
        if self.diags.iter().filter(|d| d.is_error()).count() > errors_before {
            return;
        }
        // The default value must be a constant (it replaces the host's value).
        for d in &v.declarators {
            let Some((super::Global::Static(local), _)) = self.globals.get(&d.name.name).copied() else { continue };
            let Some(values) = self.const_values.get(&local) else {
                let span = d.init.as_ref().map_or(d.span, |i| i.span());
                self.emit(err(
                    "E0223",
                    format!("the default value of `{}` must be a compile-time constant", d.name.name),
                    span,
                    "not a constant",
                ));
                continue;
            };
            let shown = match values.first() {
                Some(Const::Bool(b)) => b.to_string(),
                Some(Const::Int(i)) => i.to_string(),
                Some(Const::Uint(u)) => u.to_string(),
                Some(Const::Float(f)) => format!("{f:?}"),
                _ => "its initializer".to_string(),
            };
            if !self.in_stdlib {
                self.diags.push(
                    Diagnostic::note(
                        "W0208",
                        format!(
                            "specialization constant `{}` (constant_id {}) takes its default value {shown}",
                            d.name.name,
                            id.unwrap_or(0)
                        ),
                    )
                    .with_label(d.name.span, "specialization constant")
                    .with_note("WAVE kernels are not specialized at pipeline creation: edit the default (or use -D) to change it"),
                );
            }
        }
    }
}
