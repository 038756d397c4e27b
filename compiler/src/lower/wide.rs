//! 64-bit integers (`int64_t`, `uint64_t`) as pairs of 32-bit halves.
//!
//! A 64-bit leaf is one IR value of type `i64` (`pack64 lo, hi`), so locals,
//! block parameters and selects treat it as one value; every operation on it
//! is computed here on its halves (`lo32`, `hi32`) with 32-bit instructions,
//! because WAVE has no 64-bit integer arithmetic. The `split64` pass then
//! replaces each `i64` value by its halves before instruction selection.
//!
//! Expansions: add/sub with the carry (`ult` of the low sum), multiply with
//! `umulhi` and the cross products (the low 64 bits of the product), shifts by
//! the amount's low 6 bits (a 32-bit shift by 32 is by 0 on WAVE, so the
//! amounts 0 and 32..63 are selected apart), compares on the high halves
//! (signed or not) then the low ones (unsigned). Conversions to f32 round to
//! nearest even (or to odd, on the way to f16, so that the second rounding is
//! correct), from f32 truncate toward zero and saturate (NaN gives 0), as
//! WAVE's 32-bit conversions do. Division and remainder loop over the 64 bits
//! (restoring division, per lane).

use super::ssa::Var;
use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{self, ScalarType};
use crate::ir::*;

/// A 64-bit integer as (low, high) 32-bit halves.
pub(super) type Halves = (Value, Value);

/// How a conversion to f32 rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rounding {
    NearestEven,
    /// Truncate and set the lowest bit when inexact: a later rounding to a
    /// narrower type is then as if done once.
    Odd,
}

impl Lowerer<'_> {
    // ---- halves ----------------------------------------------------------------

    pub(super) fn halves(&mut self, v: Value, span: Span) -> Halves {
        let lo = self.inst(InstData::Unpack64 { hi: false, arg: v }, span);
        let hi = self.inst(InstData::Unpack64 { hi: true, arg: v }, span);
        (lo, hi)
    }

    pub(super) fn pack64(&mut self, ty: Type, (lo, hi): Halves, span: Span) -> Value {
        self.inst(InstData::Pack64 { ty, lo, hi }, span)
    }

    pub(super) fn const64(&mut self, ty: Type, bits: u64, span: Span) -> Value {
        let lo = self.iconst(bits as u32, span);
        let hi = self.iconst((bits >> 32) as u32, span);
        self.pack64(ty, (lo, hi), span)
    }

    pub(super) fn sel(&mut self, c: Value, a: Halves, b: Halves, span: Span) -> Halves {
        (self.select(c, a.0, b.0, span), self.select(c, a.1, b.1, span))
    }

    // ---- integer arithmetic on halves ------------------------------------------

    fn carry_of(&mut self, sum: Value, a: Value, span: Span) -> Value {
        let c = self.cmp(CmpOp::ULt, sum, a, span);
        let (one, zero) = (self.iconst(1, span), self.iconst(0, span));
        self.select(c, one, zero, span)
    }

    fn add64(&mut self, x: Halves, y: Halves, span: Span) -> Halves {
        let lo = self.binary(BinaryOp::IAdd, x.0, y.0, span);
        let carry = self.carry_of(lo, x.0, span);
        let hi = self.binary(BinaryOp::IAdd, x.1, y.1, span);
        (lo, self.binary(BinaryOp::IAdd, hi, carry, span))
    }

    fn sub64(&mut self, x: Halves, y: Halves, span: Span) -> Halves {
        let lo = self.binary(BinaryOp::ISub, x.0, y.0, span);
        let b = self.cmp(CmpOp::ULt, x.0, y.0, span);
        let (one, zero) = (self.iconst(1, span), self.iconst(0, span));
        let borrow = self.select(b, one, zero, span);
        let hi = self.binary(BinaryOp::ISub, x.1, y.1, span);
        (lo, self.binary(BinaryOp::ISub, hi, borrow, span))
    }

    fn mul64(&mut self, x: Halves, y: Halves, span: Span) -> Halves {
        let lo = self.binary(BinaryOp::IMul, x.0, y.0, span);
        let carry = self.binary(BinaryOp::UMulHi, x.0, y.0, span);
        let a = self.binary(BinaryOp::IMul, x.0, y.1, span);
        let b = self.binary(BinaryOp::IMul, x.1, y.0, span);
        let hi = self.binary(BinaryOp::IAdd, carry, a, span);
        (lo, self.binary(BinaryOp::IAdd, hi, b, span))
    }

    pub(super) fn neg64(&mut self, x: Halves, span: Span) -> Halves {
        let z = self.iconst(0, span);
        self.sub64((z, z), x, span)
    }

    /// `x << a`, `x >> a` (logical or arithmetic) for an i32 amount `a` in 0..64.
    pub(super) fn shift64(&mut self, op: BinaryOp, x: Halves, a: Value, span: Span) -> Halves {
        let c32 = self.iconst(32, span);
        let small = self.cmp(CmpOp::ULt, a, c32, span);
        let zero_amount = {
            let z = self.iconst(0, span);
            self.cmp(CmpOp::Eq, a, z, span)
        };
        let inv = self.binary(BinaryOp::ISub, c32, a, span);
        let over = self.binary(BinaryOp::ISub, a, c32, span);
        let z = self.iconst(0, span);
        let (xl, xh) = x;
        let (s, b) = match op {
            BinaryOp::Shl => {
                let spill = self.binary(BinaryOp::LShr, xl, inv, span);
                let spill = self.select(zero_amount, z, spill, span);
                let h = self.binary(BinaryOp::Shl, xh, a, span);
                let hs = self.binary(BinaryOp::Or, h, spill, span);
                let ls = self.binary(BinaryOp::Shl, xl, a, span);
                let hb = self.binary(BinaryOp::Shl, xl, over, span);
                ((ls, hs), (z, hb))
            }
            _ => {
                let spill = self.binary(BinaryOp::Shl, xh, inv, span);
                let spill = self.select(zero_amount, z, spill, span);
                let l = self.binary(BinaryOp::LShr, xl, a, span);
                let ls = self.binary(BinaryOp::Or, l, spill, span);
                let hs = self.binary(op, xh, a, span);
                let lb = self.binary(op, xh, over, span);
                let hb = if op == BinaryOp::AShr {
                    let c31 = self.iconst(31, span);
                    self.binary(BinaryOp::AShr, xh, c31, span)
                } else {
                    z
                };
                ((ls, hs), (lb, hb))
            }
        };
        self.sel(small, s, b, span)
    }

    /// `x < y` (`or_equal`: `x <= y`) on 64-bit integers.
    pub(super) fn less64(&mut self, signed: bool, or_equal: bool, x: Halves, y: Halves, span: Span) -> Value {
        let hi_lt = self.cmp(if signed { CmpOp::SLt } else { CmpOp::ULt }, x.1, y.1, span);
        let hi_eq = self.cmp(CmpOp::Eq, x.1, y.1, span);
        let lo = self.cmp(if or_equal { CmpOp::ULe } else { CmpOp::ULt }, x.0, y.0, span);
        let tie = self.and(hi_eq, lo, span);
        self.or(hi_lt, tie, span)
    }

    pub(super) fn eq64(&mut self, x: Halves, y: Halves, span: Span) -> Value {
        let l = self.cmp(CmpOp::Eq, x.0, y.0, span);
        let h = self.cmp(CmpOp::Eq, x.1, y.1, span);
        self.and(l, h, span)
    }

    pub(super) fn is_zero64(&mut self, x: Halves, span: Span) -> Value {
        let both = self.binary(BinaryOp::Or, x.0, x.1, span);
        let z = self.iconst(0, span);
        self.cmp(CmpOp::Eq, both, z, span)
    }

    pub(super) fn is_negative64(&mut self, x: Halves, span: Span) -> Value {
        let z = self.iconst(0, span);
        self.cmp(CmpOp::SLt, x.1, z, span)
    }

    pub(super) fn min_max64(&mut self, signed: bool, max: bool, x: Halves, y: Halves, span: Span) -> Halves {
        let lt = self.less64(signed, false, x, y, span);
        if max {
            self.sel(lt, y, x, span)
        } else {
            self.sel(lt, x, y, span)
        }
    }

    /// Leading zeros of a non-zero 64-bit value (0..=63).
    fn leading_zeros64(&mut self, x: Halves, span: Span) -> Value {
        let fh = self.unary(UnaryOp::UFirstBitHigh, x.1, span);
        let fl = self.unary(UnaryOp::UFirstBitHigh, x.0, span);
        let c31 = self.iconst(31, span);
        let c63 = self.iconst(63, span);
        let lh = self.binary(BinaryOp::ISub, c31, fh, span);
        let ll = self.binary(BinaryOp::ISub, c63, fl, span);
        let z = self.iconst(0, span);
        let hi_set = self.cmp(CmpOp::Ne, x.1, z, span);
        self.select(hi_set, lh, ll, span)
    }

    /// `op` of HLSL on two 64-bit integer leaves of type `s` (results i64, or b1 for compares).
    pub(super) fn binary_op64(&mut self, op: tast::BinaryOp, s: ScalarType, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        let ty = Type::I64;
        let signed = s.is_signed();
        let (a, b) = (self.halves(x, span), self.halves(y, span));
        let r = match op {
            B::Add => self.add64(a, b, span),
            B::Sub => self.sub64(a, b, span),
            B::Mul => self.mul64(a, b, span),
            B::BitAnd | B::And => (self.binary(BinaryOp::And, a.0, b.0, span), self.binary(BinaryOp::And, a.1, b.1, span)),
            B::BitOr | B::Or => (self.binary(BinaryOp::Or, a.0, b.0, span), self.binary(BinaryOp::Or, a.1, b.1, span)),
            B::BitXor => (self.binary(BinaryOp::Xor, a.0, b.0, span), self.binary(BinaryOp::Xor, a.1, b.1, span)),
            B::Shl | B::Shr => {
                // The amount's low 6 bits (the shift type's width, as HLSL says).
                let m = self.iconst(63, span);
                let amount = self.binary(BinaryOp::And, b.0, m, span);
                let sop = match op {
                    B::Shl => BinaryOp::Shl,
                    _ if signed => BinaryOp::AShr,
                    _ => BinaryOp::LShr,
                };
                self.shift64(sop, a, amount, span)
            }
            B::Eq => return self.eq64(a, b, span),
            B::Ne => {
                let e = self.eq64(a, b, span);
                return self.not(e, span);
            }
            B::Lt => return self.less64(signed, false, a, b, span),
            B::Le => return self.less64(signed, true, a, b, span),
            B::Gt => return self.less64(signed, false, b, a, span),
            B::Ge => return self.less64(signed, true, b, a, span),
            B::Div | B::Rem => self.divrem64(signed, op == B::Rem, a, b, span),
        };
        self.pack64(ty, r, span)
    }

    /// `x / y` or `x % y` on 64-bit integers (WAVE divides 32-bit values only):
    /// the unsigned quotient and remainder of the magnitudes by a loop of 64
    /// shift-and-subtract steps, then the signs (the quotient truncates toward
    /// zero, the remainder has the dividend's sign). An unsigned division by
    /// zero gives all ones and the dividend as remainder, as D3D defines it.
    fn divrem64(&mut self, signed: bool, rem: bool, x: Halves, y: Halves, span: Span) -> Halves {
        let (n, d, neg_q, neg_r) = if signed {
            let nx = self.is_negative64(x, span);
            let ny = self.is_negative64(y, span);
            let mx = self.neg64(x, span);
            let my = self.neg64(y, span);
            let n = self.sel(nx, mx, x, span);
            let d = self.sel(ny, my, y, span);
            let nq = self.binary(BinaryOp::BXor, nx, ny, span);
            (n, d, Some(nq), Some(nx))
        } else {
            (x, y, None, None)
        };
        let (q, r) = self.udivrem64(n, d, span);
        let (v, neg) = if rem { (r, neg_r) } else { (q, neg_q) };
        match neg {
            Some(c) => {
                let m = self.neg64(v, span);
                self.sel(c, m, v, span)
            }
            None => v,
        }
    }

    /// Unsigned 64-bit (quotient, remainder): restoring division, one bit of the
    /// dividend per iteration from the top, in a loop each lane runs 64 times.
    fn udivrem64(&mut self, n: Halves, d: Halves, span: Span) -> (Halves, Halves) {
        let vars: Vec<Var> = (0..7).map(|_| Var::Temp(self.fresh_id())).collect();
        let [nl, nh, ql, qh, rl, rh, k] = [vars[0], vars[1], vars[2], vars[3], vars[4], vars[5], vars[6]];
        let z = self.iconst(0, span);
        for (v, init) in [(nl, n.0), (nh, n.1), (ql, z), (qh, z), (rl, z), (rh, z), (k, z)] {
            self.declare(v, Type::I32);
            self.write(v, init);
        }
        let header = self.f.create_block();
        let exit = self.f.create_block();
        self.set_term(Terminator::Loop { header, args: vec![], exit }, span);
        self.cur = header;
        let one = self.iconst(1, span);
        let c31 = self.iconst(31, span);
        // (x << 1) | bit on halves.
        let shl1 = |l: &mut Self, (lo, hi): Halves, bit: Value| -> Halves {
            let top = l.binary(BinaryOp::LShr, lo, c31, span);
            let h = l.binary(BinaryOp::Shl, hi, one, span);
            let h = l.binary(BinaryOp::Or, h, top, span);
            let lo = l.binary(BinaryOp::Shl, lo, one, span);
            (l.binary(BinaryOp::Or, lo, bit, span), h)
        };
        let (a, b) = (self.read(nl), self.read(nh));
        let bit = self.binary(BinaryOp::LShr, b, c31, span);
        let zero = self.iconst(0, span);
        let nn = shl1(self, (a, b), zero);
        let r = (self.read(rl), self.read(rh));
        // The remainder's top bit shifted out makes it at least 2^64 > d.
        let carry = self.binary(BinaryOp::LShr, r.1, c31, span);
        let carry = self.cmp(CmpOp::Ne, carry, zero, span);
        let r2 = shl1(self, r, bit);
        let below = self.less64(false, false, r2, d, span);
        let fits = self.not(below, span);
        let take = self.or(carry, fits, span);
        let sub = self.sub64(r2, d, span);
        let r3 = self.sel(take, sub, r2, span);
        let q = (self.read(ql), self.read(qh));
        let qb = self.select(take, one, zero, span);
        let q2 = shl1(self, q, qb);
        let kk = self.read(k);
        let k2 = self.binary(BinaryOp::IAdd, kk, one, span);
        for (v, x) in [(nl, nn.0), (nh, nn.1), (ql, q2.0), (qh, q2.1), (rl, r3.0), (rh, r3.1), (k, k2)] {
            self.write(v, x);
        }
        let c64 = self.iconst(64, span);
        let done = self.cmp(CmpOp::Eq, k2, c64, span);
        self.close_loop(header, exit, done, span);
        let q = (self.read(ql), self.read(qh));
        let r = (self.read(rl), self.read(rh));
        (q, r)
    }

    /// Negation and bitwise not of a 64-bit integer leaf.
    pub(super) fn unary_op64(&mut self, op: tast::UnaryOp, x: Value, span: Span) -> Value {
        let a = self.halves(x, span);
        let r = match op {
            tast::UnaryOp::Neg => self.neg64(a, span),
            tast::UnaryOp::BitNot => (self.unary(UnaryOp::INot, a.0, span), self.unary(UnaryOp::INot, a.1, span)),
            tast::UnaryOp::Not => {
                let z = self.is_zero64(a, span);
                return z;
            }
        };
        self.pack64(Type::I64, r, span)
    }

    // ---- intrinsics ------------------------------------------------------------

    pub(super) fn abs64(&mut self, s: ScalarType, x: Value, span: Span) -> Value {
        if !s.is_signed() {
            return x;
        }
        let a = self.halves(x, span);
        let neg = self.is_negative64(a, span);
        let n = self.neg64(a, span);
        let r = self.sel(neg, n, a, span);
        self.pack64(Type::I64, r, span)
    }

    pub(super) fn min_max_op64(&mut self, s: ScalarType, max: bool, x: Value, y: Value, span: Span) -> Value {
        let (a, b) = (self.halves(x, span), self.halves(y, span));
        let r = self.min_max64(s.is_signed(), max, a, b, span);
        self.pack64(Type::I64, r, span)
    }

    /// `countbits` (an i32).
    pub(super) fn popcount64(&mut self, x: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let cl = self.unary(UnaryOp::Popcount, l, span);
        let ch = self.unary(UnaryOp::Popcount, h, span);
        self.binary(BinaryOp::IAdd, cl, ch, span)
    }

    /// `reversebits`: the halves reversed and swapped.
    pub(super) fn bitrev64(&mut self, x: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let rl = self.unary(UnaryOp::BitRev, h, span);
        let rh = self.unary(UnaryOp::BitRev, l, span);
        self.pack64(Type::I64, (rl, rh), span)
    }

    /// `firstbitlow` (an i32; 0xffffffff for 0).
    pub(super) fn firstbitlow64(&mut self, x: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let fl = self.unary(UnaryOp::FirstBitLow, l, span);
        let fh = self.unary(UnaryOp::FirstBitLow, h, span);
        let c32 = self.iconst(32, span);
        let fh32 = self.binary(BinaryOp::IAdd, fh, c32, span);
        let z = self.iconst(0, span);
        let h_zero = self.cmp(CmpOp::Eq, h, z, span);
        let none = self.iconst(u32::MAX, span);
        let upper = self.select(h_zero, none, fh32, span);
        let l_set = self.cmp(CmpOp::Ne, l, z, span);
        self.select(l_set, fl, upper, span)
    }

    /// `firstbithigh` (an i32; 0xffffffff for none): the highest set bit of a
    /// `uint64_t`; of an `int64_t`, the highest bit that differs from the sign.
    pub(super) fn firstbithigh64(&mut self, s: ScalarType, x: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let (l, h) = if s.is_signed() {
            // Flip negative values: the highest bit differing from the sign is then set.
            let c31 = self.iconst(31, span);
            let sign = self.binary(BinaryOp::AShr, h, c31, span);
            (self.binary(BinaryOp::Xor, l, sign, span), self.binary(BinaryOp::Xor, h, sign, span))
        } else {
            (l, h)
        };
        let fh = self.unary(UnaryOp::UFirstBitHigh, h, span);
        let fl = self.unary(UnaryOp::UFirstBitHigh, l, span);
        let c32 = self.iconst(32, span);
        let fh32 = self.binary(BinaryOp::IAdd, fh, c32, span);
        let z = self.iconst(0, span);
        let h_set = self.cmp(CmpOp::Ne, h, z, span);
        self.select(h_set, fh32, fl, span)
    }

    // ---- conversions -----------------------------------------------------------

    /// Converts a leaf between scalar types when either is a 64-bit integer.
    pub(super) fn convert64(&mut self, from: ScalarType, to: ScalarType, v: Value, span: Span) -> Value {
        use ScalarType::*;
        match (from, to) {
            (Int64 | Uint64, Int64 | Uint64) => v,
            (Int64 | Uint64, Bool) => {
                let a = self.halves(v, span);
                let z = self.is_zero64(a, span);
                self.not(z, span)
            }
            (Bool, Int64 | Uint64) => {
                let (one, zero) = (self.iconst(1, span), self.iconst(0, span));
                let lo = self.select(v, one, zero, span);
                self.pack64(Type::I64, (lo, zero), span)
            }
            (Int64 | Uint64, Int | Uint) => self.inst(InstData::Unpack64 { hi: false, arg: v }, span),
            (Int64 | Uint64, Int16 | Uint16) => {
                let lo = self.inst(InstData::Unpack64 { hi: false, arg: v }, span);
                self.inst(InstData::Convert { op: ConvOp::Trunc16, arg: lo }, span)
            }
            (Int64 | Uint64, Float) => {
                let a = self.halves(v, span);
                self.int64_to_f32(from.is_signed(), a, Rounding::NearestEven, span)
            }
            (Int64 | Uint64, Half) => {
                let a = self.halves(v, span);
                let f = self.int64_to_f32(from.is_signed(), a, Rounding::Odd, span);
                self.inst(InstData::Convert { op: ConvOp::F32ToF16, arg: f }, span)
            }
            (Int | Uint | Int16 | Uint16, Int64 | Uint64) => {
                let x = self.widen(from, v, span);
                let hi = if from.is_signed() {
                    let c31 = self.iconst(31, span);
                    self.binary(BinaryOp::AShr, x, c31, span)
                } else {
                    self.iconst(0, span)
                };
                self.pack64(Type::I64, (x, hi), span)
            }
            (Float | Half, Int64 | Uint64) => {
                let f = self.widen(from, v, span);
                let r = self.f32_to_int64(to.is_signed(), f, span);
                self.pack64(Type::I64, r, span)
            }
            _ => {
                self.internal("a conversion the 64-bit lowering does not know", span);
                v
            }
        }
    }

    /// A 64-bit integer to f32, rounded as `mode` says.
    pub(super) fn int64_to_f32(&mut self, signed: bool, x: Halves, mode: Rounding, span: Span) -> Value {
        let (mag, neg) = if signed {
            let neg = self.is_negative64(x, span);
            let n = self.neg64(x, span);
            (self.sel(neg, n, x, span), Some(neg))
        } else {
            (x, None)
        };
        let zero = self.is_zero64(mag, span);
        let bits = self.u64_to_f32_bits(mag, mode, span);
        let z = self.iconst(0, span);
        let bits = self.select(zero, z, bits, span);
        let bits = match neg {
            Some(n) => {
                let sign = self.iconst(0x8000_0000, span);
                let with = self.binary(BinaryOp::Or, bits, sign, span);
                self.select(n, with, bits, span)
            }
            None => bits,
        };
        self.inst(InstData::Bitcast { ty: Type::F32, arg: bits }, span)
    }

    /// The f32 bits of a non-zero unsigned 64-bit value: normalized so that its
    /// top bit is bit 63, the top 24 bits are the significand, bit 39 the round
    /// bit and the rest sticky.
    fn u64_to_f32_bits(&mut self, x: Halves, mode: Rounding, span: Span) -> Value {
        let n = self.leading_zeros64(x, span);
        let (ml, mh) = self.shift64(BinaryOp::Shl, x, n, span);
        let c8 = self.iconst(8, span);
        let mant = self.binary(BinaryOp::LShr, mh, c8, span);
        let c7 = self.iconst(7, span);
        let r = self.binary(BinaryOp::LShr, mh, c7, span);
        let one = self.iconst(1, span);
        let round = self.binary(BinaryOp::And, r, one, span);
        let m7f = self.iconst(0x7f, span);
        let below = self.binary(BinaryOp::And, mh, m7f, span);
        let rest = self.binary(BinaryOp::Or, below, ml, span);
        let z = self.iconst(0, span);
        let sticky = self.cmp(CmpOp::Ne, rest, z, span);
        let round_set = self.cmp(CmpOp::Ne, round, z, span);
        let mant = match mode {
            Rounding::NearestEven => {
                let odd = self.binary(BinaryOp::And, mant, one, span);
                let odd = self.cmp(CmpOp::Ne, odd, z, span);
                let tie_or_more = self.or(sticky, odd, span);
                let up = self.and(round_set, tie_or_more, span);
                let bumped = self.binary(BinaryOp::IAdd, mant, one, span);
                self.select(up, bumped, mant, span)
            }
            Rounding::Odd => {
                let inexact = self.or(sticky, round_set, span);
                let with = self.binary(BinaryOp::Or, mant, one, span);
                self.select(inexact, with, mant, span)
            }
        };
        // bits = (exponent + 127 - 1) << 23 + mant, the significand's leading 1
        // adding the last exponent step (and a carry out of it the next).
        let c189 = self.iconst(63 + 126, span);
        let e = self.binary(BinaryOp::ISub, c189, n, span);
        let c23 = self.iconst(23, span);
        let eb = self.binary(BinaryOp::Shl, e, c23, span);
        self.binary(BinaryOp::IAdd, eb, mant, span)
    }

    /// f32 to a 64-bit integer: truncated toward zero; out of range saturates, NaN is 0.
    fn f32_to_int64(&mut self, signed: bool, f: Value, span: Span) -> Halves {
        let b = self.inst(InstData::Bitcast { ty: Type::I32, arg: f }, span);
        let c23 = self.iconst(23, span);
        let sh = self.binary(BinaryOp::LShr, b, c23, span);
        let ff = self.iconst(0xff, span);
        let be = self.binary(BinaryOp::And, sh, ff, span);
        let c127 = self.iconst(127, span);
        let e = self.binary(BinaryOp::ISub, be, c127, span);
        let mm = self.iconst(0x7f_ffff, span);
        let frac = self.binary(BinaryOp::And, b, mm, span);
        let implicit = self.iconst(0x80_0000, span);
        let mant = self.binary(BinaryOp::Or, frac, implicit, span);
        let z = self.iconst(0, span);
        // |x| < 2^24: a 32-bit shift right; above, the 64-bit shift left.
        let small = self.cmp(CmpOp::SLe, e, c23, span);
        let right = self.binary(BinaryOp::ISub, c23, e, span);
        let low = self.binary(BinaryOp::LShr, mant, right, span);
        let left = self.binary(BinaryOp::ISub, e, c23, span);
        let big = self.shift64(BinaryOp::Shl, (mant, z), left, span);
        let mag = self.sel(small, (low, z), big, span);
        let below_one = self.cmp(CmpOp::SLt, e, z, span);
        let mag = self.sel(below_one, (z, z), mag, span);
        let neg = self.cmp(CmpOp::SLt, b, z, span);
        let abs_mask = self.iconst(0x7fff_ffff, span);
        let abs_bits = self.binary(BinaryOp::And, b, abs_mask, span);
        let inf_bits = self.iconst(0x7f80_0000, span);
        let nan = self.cmp(CmpOp::UGt, abs_bits, inf_bits, span);
        let all = self.iconst(u32::MAX, span);
        // |x| >= 2^63 (signed; -2^63 itself saturates to itself) or 2^64: saturate.
        let limit = self.iconst(if signed { 63 } else { 64 }, span);
        let out_of_range = self.cmp(CmpOp::SGe, e, limit, span);
        let r = if signed {
            let n = self.neg64(mag, span);
            let v = self.sel(neg, n, mag, span);
            let min_hi = self.iconst(0x8000_0000, span);
            let max_hi = self.iconst(0x7fff_ffff, span);
            let sat = self.sel(neg, (z, min_hi), (all, max_hi), span);
            self.sel(out_of_range, sat, v, span)
        } else {
            let v = self.sel(out_of_range, (all, all), mag, span);
            self.sel(neg, (z, z), v, span)
        };
        self.sel(nan, (z, z), r, span)
    }

    // ---- wave operations -------------------------------------------------------

    pub(super) fn read_lane64(&mut self, x: Value, lane: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let rl = self.inst(InstData::WaveReadLane { ty: Type::I32, arg: l, lane }, span);
        let rh = self.inst(InstData::WaveReadLane { ty: Type::I32, arg: h, lane }, span);
        let ty = self.f.value_type(x);
        self.pack64(ty, (rl, rh), span)
    }

    /// `WaveReadLaneAt`, quad reads: each half read from `lane`.
    pub(super) fn wave_read_lane64(&mut self, x: Value, lane: Value, span: Span) -> Value {
        self.read_lane64(x, lane, span)
    }

    pub(super) fn wave_read_first64(&mut self, x: Value, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let rl = self.inst(InstData::WaveReadFirst { ty: Type::I32, arg: l }, span);
        let rh = self.inst(InstData::WaveReadFirst { ty: Type::I32, arg: h }, span);
        let ty = self.f.value_type(x);
        self.pack64(ty, (rl, rh), span)
    }

    /// `WaveActiveAllEqual` of a 64-bit leaf.
    pub(super) fn wave_all_equal64(&mut self, x: Value, span: Span) -> Value {
        let first = self.wave_read_first64(x, span);
        let (a, b) = (self.halves(x, span), self.halves(first, span));
        let eq = self.eq64(a, b, span);
        self.inst(InstData::WaveVote { op: VoteOp::All, cond: eq }, span)
    }

    /// A wave reduction (`prefix`: exclusive prefix) of 64-bit integers over the active lanes.
    pub(super) fn wave_op64(&mut self, op: WaveOp, s: ScalarType, prefix: bool, x: Value, span: Span) -> Value {
        let a = self.halves(x, span);
        let wave = |l: &mut Self, op: WaveOp, v: Value| {
            if prefix {
                l.inst(InstData::WavePrefix { op, arg: v }, span)
            } else {
                l.inst(InstData::WaveReduce { op, arg: v }, span)
            }
        };
        let r = match op {
            WaveOp::IAdd => {
                // Sums of 16-bit pieces cannot carry out of 32 bits (at most 64 lanes).
                let mask = self.iconst(0xffff, span);
                let c16 = self.iconst(16, span);
                let p0 = self.binary(BinaryOp::And, a.0, mask, span);
                let p1 = self.binary(BinaryOp::LShr, a.0, c16, span);
                let s0 = wave(self, WaveOp::IAdd, p0);
                let s1 = wave(self, WaveOp::IAdd, p1);
                let sh = wave(self, WaveOp::IAdd, a.1);
                let s1l = self.binary(BinaryOp::Shl, s1, c16, span);
                let s1h = self.binary(BinaryOp::LShr, s1, c16, span);
                let z = self.iconst(0, span);
                let (lo, hi) = self.add64((s0, z), (s1l, s1h), span);
                (lo, self.binary(BinaryOp::IAdd, hi, sh, span))
            }
            WaveOp::And | WaveOp::Or | WaveOp::Xor => (wave(self, op, a.0), wave(self, op, a.1)),
            WaveOp::SMin | WaveOp::SMax | WaveOp::UMin | WaveOp::UMax => {
                // The extreme high half first, then the extreme low half among the lanes that have it.
                let max = matches!(op, WaveOp::SMax | WaveOp::UMax);
                let hop = match (s.is_signed(), max) {
                    (true, true) => WaveOp::SMax,
                    (true, false) => WaveOp::SMin,
                    (false, true) => WaveOp::UMax,
                    (false, false) => WaveOp::UMin,
                };
                let h = self.inst(InstData::WaveReduce { op: hop, arg: a.1 }, span);
                let has = self.cmp(CmpOp::Eq, a.1, h, span);
                let ident = self.iconst(if max { 0 } else { u32::MAX }, span);
                let cand = self.select(has, a.0, ident, span);
                let l = self.inst(InstData::WaveReduce { op: if max { WaveOp::UMax } else { WaveOp::UMin }, arg: cand }, span);
                (l, h)
            }
            WaveOp::IMul => {
                let one = self.const64(Type::I64, 1, span);
                let v = self.waterfall(x, one, prefix, &|l: &mut Self, acc, xf| l.binary_op64(tast::BinaryOp::Mul, s, acc, xf, span), span);
                return v;
            }
            _ => {
                self.internal("a float wave operation on a 64-bit integer", span);
                a
            }
        };
        self.pack64(Type::I64, r, span)
    }

    /// Folds `combine` over `x` of the active lanes in ascending lane order,
    /// starting from `identity`: each round the lowest lane still in the loop
    /// shares its `x` (both halves), every lane still in the loop folds it in,
    /// and that lane leaves, with the value before its own `x` (`prefix`) or
    /// after it; a reduction's last lane out holds the whole result, read by every lane.
    pub(super) fn waterfall(
        &mut self,
        x: Value,
        identity: Value,
        prefix: bool,
        combine: &dyn Fn(&mut Self, Value, Value) -> Value,
        span: Span,
    ) -> Value {
        if self.uniform_wave_loops {
            return self.uniform_fold(x, identity, prefix, combine, span);
        }
        let ty = self.f.value_type(x);
        let (acc_var, out_var) = (Var::Temp(self.fresh_id()), Var::Temp(self.fresh_id()));
        self.declare(acc_var, ty);
        self.declare(out_var, ty);
        self.write(acc_var, identity);
        let lane = self.inst(InstData::Special { reg: SpecialReg::LaneId }, span);
        let header = self.f.create_block();
        let exit = self.f.create_block();
        self.set_term(Terminator::Loop { header, args: vec![], exit }, span);
        self.cur = header;
        let acc = self.read(acc_var);
        let first = self.inst(InstData::WaveReadFirst { ty: Type::I32, arg: lane }, span);
        let xf = self.read_lane64(x, first, span);
        let next = combine(self, acc, xf);
        let leave = self.cmp(CmpOp::Eq, lane, first, span);
        self.write(out_var, if prefix { acc } else { next });
        self.write(acc_var, next);
        self.close_loop(header, exit, leave, span);
        let out = self.read(out_var);
        if prefix {
            return out;
        }
        let last = self.inst(InstData::WaveReduce { op: WaveOp::UMax, arg: lane }, span);
        self.read_lane64(out, last, span)
    }

    /// Ends the body of a loop built here (entered at `header`, left for
    /// `exit`): leaves where `leave` holds, else goes round again; then
    /// continues at `exit`.
    fn close_loop(&mut self, header: Block, exit: Block, leave: Value, span: Span) {
        let cont = self.f.create_block();
        self.set_term(Terminator::BreakIf { cond: leave, exit, args: vec![], cont }, span);
        self.ssa.seal(&mut self.f, cont);
        self.cur = cont;
        self.set_term(Terminator::Jump { dest: header, args: vec![] }, span);
        self.ssa.seal(&mut self.f, header);
        self.ssa.seal(&mut self.f, exit);
        self.cur = exit;
    }

    /// [`Self::waterfall`]'s fold as a loop over every lane `k` of the wave, in
    /// ascending order, with a wave-uniform trip count (the wave width): every
    /// lane that entered runs every iteration, so the wave operations inside run
    /// with the same lanes as the loop's entry (wave-ptx's full-warp shuffles
    /// need that; a loop that lanes leave one by one hangs or faults there).
    /// Lane `k`'s `x` is folded in where lane `k` entered the loop (the ballot)
    /// and, for a prefix, lies below this lane; the fold is the waterfall's,
    /// bit for bit, and every lane ends with the whole reduction.
    fn uniform_fold(
        &mut self,
        x: Value,
        identity: Value,
        prefix: bool,
        combine: &dyn Fn(&mut Self, Value, Value) -> Value,
        span: Span,
    ) -> Value {
        let ty = self.f.value_type(x);
        let (acc_var, k_var) = (Var::Temp(self.fresh_id()), Var::Temp(self.fresh_id()));
        self.declare(acc_var, ty);
        self.declare(k_var, Type::I32);
        self.write(acc_var, identity);
        let zero = self.iconst(0, span);
        self.write(k_var, zero);
        let lane = self.inst(InstData::Special { reg: SpecialReg::LaneId }, span);
        let width = self.inst(InstData::Special { reg: SpecialReg::WaveWidth }, span);
        let yes = self.bool_const(true, span);
        let entered_lo = self.inst(InstData::WaveBallot { cond: yes, word: 0 }, span);
        let entered_hi = self.inst(InstData::WaveBallot { cond: yes, word: 1 }, span);
        let lowest = self.inst(InstData::WaveReduce { op: WaveOp::UMin, arg: lane }, span);
        let header = self.f.create_block();
        let exit = self.f.create_block();
        self.set_term(Terminator::Loop { header, args: vec![], exit }, span);
        self.cur = header;
        let acc = self.read(acc_var);
        let k = self.read(k_var);
        let c32 = self.iconst(32, span);
        let low_word = self.cmp(CmpOp::ULt, k, c32, span);
        let word = self.select(low_word, entered_lo, entered_hi, span);
        let c31 = self.iconst(31, span);
        let at = self.binary(BinaryOp::And, k, c31, span);
        let bits = self.binary(BinaryOp::LShr, word, at, span);
        let one = self.iconst(1, span);
        let bit = self.binary(BinaryOp::And, bits, one, span);
        let mut take = self.cmp(CmpOp::Ne, bit, zero, span);
        // A lane that did not enter is read from the lowest that did (its value
        // is not folded in): a wave's lanes past its workgroup's threads never
        // wrote the register.
        let from = self.select(take, k, lowest, span);
        let xk = self.read_lane64(x, from, span);
        if prefix {
            let below = self.cmp(CmpOp::ULt, k, lane, span);
            take = self.and(take, below, span);
        }
        let folded = combine(self, acc, xk);
        let next = self.select(take, folded, acc, span);
        self.write(acc_var, next);
        let next_k = self.binary(BinaryOp::IAdd, k, one, span);
        self.write(k_var, next_k);
        let done = self.cmp(CmpOp::Eq, next_k, width, span);
        self.close_loop(header, exit, done, span);
        self.read(acc_var)
    }
}
