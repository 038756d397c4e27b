//! Compile-time constants: array sizes, `numthreads`, `case` labels, and
//! the values of `static const` globals and `const` locals with constant
//! initializers. Evaluation works on typed expressions with HLSL's 32-bit
//! (or 16-bit) semantics, so a constant folds to what the kernel would compute.

use super::{err, Sema};
use crate::frontend::ast;
use crate::frontend::fold::{int_of, Folder};
use crate::frontend::tast::*;

impl Sema {
    /// The leaf values of `e` if it is a compile-time constant.
    pub(super) fn const_eval(&self, e: &Expr) -> Option<Vec<Const>> {
        let consts = &self.const_values;
        Folder { types: &self.types, local: &|l| consts.get(&l).cloned(), place_value: None }.fold(e)
    }

    /// A non-negative integer constant (array sizes, numthreads, template sizes).
    pub(super) fn const_uint(&mut self, e: &ast::Expr, what: &str) -> Option<u32> {
        let saved = std::mem::take(&mut self.cur_uses);
        let typed = self.expr(e);
        self.cur_uses = saved;
        let typed = typed?;
        if !typed.ty.is_scalar() || !typed.ty.scalar().is_some_and(|s| s.is_integer() || s == ScalarType::Bool) {
            let t = self.type_name(typed.ty);
            self.emit(err("E0245", format!("{what} must be an integer constant, found `{t}`"), e.span, "not an integer"));
            return None;
        }
        let Some(v) = self.const_eval(&typed).and_then(|v| v.first().copied()).and_then(int_of) else {
            self.emit(
                err("E0245", format!("{what} must be a compile-time constant"), e.span, "not a constant")
                    .with_note("use a literal, a #define, or a `static const` with a constant initializer"),
            );
            return None;
        };
        if v < 0 || v > u32::MAX as i64 {
            self.emit(err("E0245", format!("{what} `{v}` is out of range"), e.span, "out of range"));
            return None;
        }
        Some(v as u32)
    }
}
