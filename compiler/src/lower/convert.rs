//! Scalar conversions and constants. 16-bit values (`i16`, `f16` in the IR)
//! compute in 32 bits: they are widened (sign- or zero-extended, or
//! converted to f32) before an operation and narrowed after it, which gives
//! exactly the 16-bit result (f32 holds every f16 sum, difference, product
//! and quotient closely enough that one rounding to f16 is correct).

use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{Const, ScalarType, Type as TType};
use crate::ir::*;

/// The 32-bit scalar type 16-bit arithmetic runs in.
pub(super) fn wide(s: ScalarType) -> ScalarType {
    match s {
        ScalarType::Int16 => ScalarType::Int,
        ScalarType::Uint16 => ScalarType::Uint,
        ScalarType::Half => ScalarType::Float,
        other => other,
    }
}

impl Lowerer<'_> {
    /// A constant leaf.
    pub(super) fn const_leaf(&mut self, c: Const, span: Span) -> Value {
        match c {
            Const::Bool(b) => self.bool_const(b, span),
            Const::Int(i) => self.iconst(i as u32, span),
            Const::Uint(u) => self.iconst(u, span),
            Const::Float(x) => self.fconst(x, span),
            Const::Bits16(ScalarType::Half, b) => self.konst(Type::F16, b as u32, span),
            Const::Bits16(_, b) => self.konst(Type::I16, b as u32, span),
            Const::Bits64(ScalarType::Double, b) => self.const64(Type::F64, b, span),
            Const::Bits64(_, b) => self.const64(Type::I64, b, span),
        }
    }

    /// A 16-bit value widened to its 32-bit type (others unchanged).
    pub(super) fn widen(&mut self, s: ScalarType, v: Value, span: Span) -> Value {
        let op = match s {
            ScalarType::Int16 => ConvOp::SExt16,
            ScalarType::Uint16 => ConvOp::ZExt16,
            ScalarType::Half => ConvOp::F16ToF32,
            _ => return v,
        };
        self.inst(InstData::Convert { op, arg: v }, span)
    }

    /// A 32-bit result narrowed back to the 16-bit type `s` (others unchanged).
    pub(super) fn narrow(&mut self, s: ScalarType, v: Value, span: Span) -> Value {
        let op = match s {
            ScalarType::Int16 | ScalarType::Uint16 => ConvOp::Trunc16,
            ScalarType::Half => ConvOp::F32ToF16,
            _ => return v,
        };
        self.inst(InstData::Convert { op, arg: v }, span)
    }

    /// Converts one leaf from scalar type `from` to `to` (HLSL rules: float to
    /// int truncates toward zero, x to bool is x != 0, bool is 0 or 1).
    pub(super) fn convert(&mut self, from: ScalarType, to: ScalarType, v: Value, span: Span) -> Value {
        use ScalarType::*;
        if from == to {
            return v;
        }
        if from == Double || to == Double {
            return self.convert_f64(from, to, v, span);
        }
        if from.is_64bit() || to.is_64bit() {
            return self.convert64(from, to, v, span);
        }
        match (from, to) {
            (Int16, Uint16) | (Uint16, Int16) | (Int, Uint) | (Uint, Int) => v,
            (Bool, _) => {
                let w = wide(to);
                let (one, zero) = match w {
                    Float => (self.fconst(1.0, span), self.fconst(0.0, span)),
                    _ => (self.iconst(1, span), self.iconst(0, span)),
                };
                let x = self.select(v, one, zero, span);
                self.narrow(to, x, span)
            }
            (_, Bool) => {
                let x = self.widen(from, v, span);
                if wide(from) == Float {
                    // NaN converts to true, as in HLSL (unordered not-equal).
                    let zero = self.fconst(0.0, span);
                    self.cmp(CmpOp::FNe, x, zero, span)
                } else {
                    let zero = self.iconst(0, span);
                    self.cmp(CmpOp::Ne, x, zero, span)
                }
            }
            _ => {
                let x = self.widen(from, v, span);
                let (wf, wt) = (wide(from), wide(to));
                let y = match (wf, wt) {
                    (a, b) if a == b => x,
                    (Int, Uint) | (Uint, Int) => x,
                    (Int, Float) => self.inst(InstData::Convert { op: ConvOp::SIToF, arg: x }, span),
                    (Uint, Float) => self.inst(InstData::Convert { op: ConvOp::UIToF, arg: x }, span),
                    (Float, Int) => self.inst(InstData::Convert { op: ConvOp::FToSI, arg: x }, span),
                    (Float, Uint) => self.inst(InstData::Convert { op: ConvOp::FToUI, arg: x }, span),
                    _ => x,
                };
                self.narrow(to, y, span)
            }
        }
    }

    /// Converts every leaf of a value of type `from` to the leaf types of `to` (same leaf count).
    pub(super) fn convert_leaves(&mut self, from: TType, to: TType, vals: Vec<Value>, span: Span) -> Vec<Value> {
        let fl = self.m.types.leaves(from);
        let tl = self.m.types.leaves(to);
        vals.into_iter().zip(fl).zip(tl).map(|((v, f), t)| self.convert(f, t, v, span)).collect()
    }

    /// A scalar bool value for a condition.
    pub(super) fn as_bool(&mut self, s: ScalarType, v: Value, span: Span) -> Value {
        self.convert(s, ScalarType::Bool, v, span)
    }

    /// `v` as a 32-bit integer 0/1 for storing a bool in memory.
    pub(super) fn bool_to_i32(&mut self, v: Value, span: Span) -> Value {
        let one = self.iconst(1, span);
        let zero = self.iconst(0, span);
        self.select(v, one, zero, span)
    }
}
