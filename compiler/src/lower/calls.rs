//! Calls: every call is inlined. Arguments are evaluated left to right;
//! `in` arguments become the parameters' values, `inout` arguments are read
//! from their places (converted to the parameter type), `out` parameters
//! start as zero; after the body, `out`/`inout` parameters are converted back
//! and written to their places in argument order. A `return` in the body
//! sets the instance's return flag (and value), like a `break` out of the body.

use super::control::exits_of_block;
use super::place::Place;
use super::ssa::Var;
use super::{ir_type, Frame, Lowerer, MAX_INLINE_DEPTH};
use crate::diag::{Diagnostic, Span};
use crate::frontend::tast::{self, Arg, FuncId};
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn call(&mut self, func: FuncId, args: &[Arg], span: Span) -> Vec<Value> {
        let m = self.m;
        let f = m.function(func);
        if self.frames.len() >= MAX_INLINE_DEPTH {
            self.errors.push(
                Diagnostic::error("E0321", format!("calls nest more than {MAX_INLINE_DEPTH} deep"))
                    .with_label(span, format!("inlining `{}` here", f.name))
                    .with_note("every call is inlined; flatten the call chain"),
            );
            return self.zeros(f.ret, span);
        }
        // Arguments, left to right.
        let mut ins: Vec<Vec<Value>> = Vec::with_capacity(args.len());
        let mut outs: Vec<Option<(Place, tast::Type)>> = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(&f.params) {
            match a {
                Arg::In(e) => {
                    ins.push(self.expr(e));
                    outs.push(None);
                }
                Arg::Out { place, inout } => {
                    let pl = self.place(place);
                    let vals = if *inout {
                        let v = self.read_place(&pl, span);
                        self.convert_leaves(place.ty, p.ty, v, span)
                    } else {
                        self.zeros(p.ty, span)
                    };
                    ins.push(vals);
                    outs.push(Some((pl, place.ty)));
                }
            }
        }
        for (p, vals) in f.params.iter().zip(&ins) {
            self.write_local(p.local, vals, span);
        }
        let saved_override = self.span_override;
        if f.stdlib && self.span_override.is_none() {
            self.span_override = Some(span);
        }
        let frame = Frame { id: self.fresh_id(), ret: f.ret, ctx_base: self.ctx.len() };
        self.frames.push(frame);
        if exits_of_block(&f.body).ret {
            let no = self.bool_const(false, span);
            self.declare(Var::Returned(frame.id), Type::Bool);
            self.write(Var::Returned(frame.id), no);
        }
        // A return value no path sets reads as zero.
        let leaves = m.types.leaves(f.ret);
        for (i, s) in leaves.iter().enumerate() {
            let var = Var::RetVal(frame.id, i as u32);
            self.declare(var, ir_type(*s));
            let z = self.konst(ir_type(*s), 0, span);
            self.write(var, z);
        }
        self.stmts(&f.body.stmts, false);
        self.frames.pop();
        let result: Vec<Value> = (0..leaves.len()).map(|i| self.read(Var::RetVal(frame.id, i as u32))).collect();
        self.span_override = saved_override;
        // Copy out, in argument order.
        for (p, out) in f.params.iter().zip(outs) {
            if let Some((pl, ty)) = out {
                let vals = self.read_local(p.local, span);
                let vals = self.convert_leaves(p.ty, ty, vals, span);
                self.write_place(&pl, &vals, span);
            }
        }
        result
    }
}
