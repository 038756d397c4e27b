//! `double` (`float64_t`): IR `f64` values, computed with WAVE's optional F64
//! instructions where they exist (CAP_F64: `dadd dsub dmul ddiv dma dsqrt` and
//! the f32 conversions) and on the two 32-bit words otherwise.
//!
//! A double leaf is one `f64` value (`pack64 lo, hi`, like a 64-bit integer):
//! the `split64` pass keeps it whole only where a `double` instruction reads
//! it. What WAVE lacks is built here from integer operations on the words:
//! negation and `abs` flip or clear the sign bit; compares map each value to an
//! integer key ordered like the doubles (negative values inverted, positive
//! ones with the sign bit set), with NaN unordered and -0 equal to +0; `min` and
//! `max` ignore a NaN operand (as WAVE's `fmin`/`fmax` do for f32); conversions
//! from integers are exact pieces added once by `dadd` (a single rounding), to
//! integers take the significand apart (truncating, saturating, NaN 0, as WAVE's
//! f32 conversions do), and to half round to odd on the way through f32 so that
//! the f32 -> f16 rounding is the only one. Wave sums, products, min and max fold
//! the active lanes in lane order (`waterfall`).

use super::wide::Halves;
use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{self, Intrinsic, ScalarType};
use crate::ir::*;

const SIGN: u32 = 0x8000_0000;

/// How a wave fold combines the running value with a lane's.
type Combine<'a, 'l> = dyn Fn(&mut Lowerer<'l>, Value, Value) -> Value + 'a;
const ABS: u32 = 0x7fff_ffff;
/// High word of +infinity.
const INF_HI: u32 = 0x7ff0_0000;

impl Lowerer<'_> {
    fn dop(&mut self, op: DoubleOp, args: &[Value], span: Span) -> Value {
        let a = [args[0], *args.get(1).unwrap_or(&args[0]), *args.get(2).unwrap_or(&args[0])];
        self.inst(InstData::Double { op, args: a }, span)
    }

    fn dconst(&mut self, x: f64, span: Span) -> Value {
        self.const64(Type::F64, x.to_bits(), span)
    }

    /// The double with `hi`'s sign bit changed by `f` (`and`/`or`/`xor` with `mask`).
    fn with_sign(&mut self, x: Value, op: BinaryOp, mask: u32, span: Span) -> Value {
        let (l, h) = self.halves(x, span);
        let m = self.iconst(mask, span);
        let h = self.binary(op, h, m, span);
        self.pack64(Type::F64, (l, h), span)
    }

    fn is_nan_f64(&mut self, (l, h): Halves, span: Span) -> Value {
        let m = self.iconst(ABS, span);
        let a = self.binary(BinaryOp::And, h, m, span);
        let inf = self.iconst(INF_HI, span);
        let above = self.cmp(CmpOp::UGt, a, inf, span);
        let at = self.cmp(CmpOp::Eq, a, inf, span);
        let z = self.iconst(0, span);
        let frac = self.cmp(CmpOp::Ne, l, z, span);
        let at_frac = self.and(at, frac, span);
        self.or(above, at_frac, span)
    }

    /// Whether a double is +0 or -0.
    fn is_zero_f64(&mut self, (l, h): Halves, span: Span) -> Value {
        let m = self.iconst(ABS, span);
        let a = self.binary(BinaryOp::And, h, m, span);
        self.is_zero64((l, a), span)
    }

    /// An unsigned integer key ordered as the (non-NaN) doubles are.
    fn order_key(&mut self, (l, h): Halves, span: Span) -> Halves {
        let c31 = self.iconst(31, span);
        let neg = self.binary(BinaryOp::AShr, h, c31, span);
        let sign = self.iconst(SIGN, span);
        let hm = self.binary(BinaryOp::Or, neg, sign, span);
        (self.binary(BinaryOp::Xor, l, neg, span), self.binary(BinaryOp::Xor, h, hm, span))
    }

    /// `x op y` for a compare on doubles: ordered (false with a NaN) except `!=`.
    fn compare_f64(&mut self, op: tast::BinaryOp, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        let (a, b) = match op {
            B::Gt | B::Ge => (y, x),
            _ => (x, y),
        };
        let (a, b) = (self.halves(a, span), self.halves(b, span));
        let na = self.is_nan_f64(a, span);
        let nb = self.is_nan_f64(b, span);
        let unordered = self.or(na, nb, span);
        let ordered = self.not(unordered, span);
        let same = self.eq64(a, b, span);
        let za = self.is_zero_f64(a, span);
        let zb = self.is_zero_f64(b, span);
        let zeros = self.and(za, zb, span);
        let equal = self.or(same, zeros, span);
        let eq = self.and(ordered, equal, span);
        match op {
            B::Eq => eq,
            B::Ne => self.not(eq, span),
            _ => {
                let (ka, kb) = (self.order_key(a, span), self.order_key(b, span));
                let less = self.less64(false, false, ka, kb, span);
                let strictly = self.not(equal, span);
                let lt = self.and(less, strictly, span);
                let r = if matches!(op, B::Le | B::Ge) { self.or(lt, equal, span) } else { lt };
                self.and(ordered, r, span)
            }
        }
    }

    /// `op` of HLSL on two double leaves (results f64, or b1 for compares).
    pub(super) fn binary_op_f64(&mut self, op: tast::BinaryOp, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        match op {
            B::Add => self.dop(DoubleOp::Add, &[x, y], span),
            B::Sub => self.dop(DoubleOp::Sub, &[x, y], span),
            B::Mul => self.dop(DoubleOp::Mul, &[x, y], span),
            B::Div => self.dop(DoubleOp::Div, &[x, y], span),
            B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => self.compare_f64(op, x, y, span),
            _ => {
                // `%` is refused by sema; bitwise operators need integers.
                self.internal("this operator on doubles", span);
                x
            }
        }
    }

    pub(super) fn unary_op_f64(&mut self, op: tast::UnaryOp, x: Value, span: Span) -> Value {
        match op {
            tast::UnaryOp::Neg => self.with_sign(x, BinaryOp::Xor, SIGN, span),
            tast::UnaryOp::Not => {
                // `!d` is `d == 0` (a NaN is true, so `!NaN` is false).
                let a = self.halves(x, span);
                self.is_zero_f64(a, span)
            }
            tast::UnaryOp::BitNot => {
                self.internal("`~` on a double", span);
                x
            }
        }
    }

    /// `min`/`max` ignoring a NaN operand; of two equal values (also -0 and +0), `x`.
    fn min_max_f64(&mut self, max: bool, x: Value, y: Value, span: Span) -> Value {
        use tast::BinaryOp as B;
        let better = self.compare_f64(if max { B::Gt } else { B::Lt }, y, x, span);
        let ny = {
            let h = self.halves(y, span);
            self.is_nan_f64(h, span)
        };
        let nx = {
            let h = self.halves(x, span);
            self.is_nan_f64(h, span)
        };
        let r = self.select(better, y, x, span);
        let r = self.select(ny, x, r, span);
        self.select(nx, y, r, span)
    }

    // ---- conversions -----------------------------------------------------------

    /// An integer of up to 32 bits (signed or not) as an exact double: the two
    /// 16-bit pieces are exact in f32, and their sum is exact in f64.
    fn i32_to_f64(&mut self, signed: bool, x: Value, span: Span) -> Value {
        let c16 = self.iconst(16, span);
        let hi = self.binary(if signed { BinaryOp::AShr } else { BinaryOp::LShr }, x, c16, span);
        let m = self.iconst(0xffff, span);
        let lo = self.binary(BinaryOp::And, x, m, span);
        let fh = self.inst(InstData::Convert { op: ConvOp::SIToF, arg: hi }, span);
        let k = self.fconst(65536.0, span);
        let fh = self.binary(BinaryOp::FMul, fh, k, span);
        let fl = self.inst(InstData::Convert { op: ConvOp::SIToF, arg: lo }, span);
        let dh = self.dop(DoubleOp::FromF32, &[fh], span);
        let dl = self.dop(DoubleOp::FromF32, &[fl], span);
        self.dop(DoubleOp::Add, &[dh, dl], span)
    }

    /// A 64-bit integer as a double: high word * 2^32 (exact) + low word (exact), rounded once.
    fn int64_to_f64(&mut self, signed: bool, (l, h): Halves, span: Span) -> Value {
        let dh = self.i32_to_f64(signed, h, span);
        let k = self.dconst(4_294_967_296.0, span);
        let dh = self.dop(DoubleOp::Mul, &[dh, k], span);
        let dl = self.i32_to_f64(false, l, span);
        self.dop(DoubleOp::Add, &[dh, dl], span)
    }

    /// A double to a 64-bit integer: truncated toward zero; out of range
    /// saturates, NaN gives 0.
    fn f64_to_int64(&mut self, signed: bool, x: Value, span: Span) -> Halves {
        let (l, h) = self.halves(x, span);
        let c20 = self.iconst(20, span);
        let sh = self.binary(BinaryOp::LShr, h, c20, span);
        let m11 = self.iconst(0x7ff, span);
        let be = self.binary(BinaryOp::And, sh, m11, span);
        let bias = self.iconst(1023, span);
        let e = self.binary(BinaryOp::ISub, be, bias, span);
        let mf = self.iconst(0xf_ffff, span);
        let frac = self.binary(BinaryOp::And, h, mf, span);
        let implicit = self.iconst(0x10_0000, span);
        let mh = self.binary(BinaryOp::Or, frac, implicit, span);
        let mant = (l, mh);
        // value = mant * 2^(e - 52): shift right by 52 - e for e <= 52, else left.
        let c52 = self.iconst(52, span);
        let small = self.cmp(CmpOp::SLe, e, c52, span);
        let right = self.binary(BinaryOp::ISub, c52, e, span);
        let c63 = self.iconst(63, span);
        let right = self.binary(BinaryOp::UMin, right, c63, span);
        let r = self.shift64(BinaryOp::LShr, mant, right, span);
        let left = self.binary(BinaryOp::ISub, e, c52, span);
        let left = self.binary(BinaryOp::UMin, left, c63, span);
        let lsh = self.shift64(BinaryOp::Shl, mant, left, span);
        let mag = self.sel(small, r, lsh, span);
        let z = self.iconst(0, span);
        let below_one = self.cmp(CmpOp::SLt, e, z, span);
        let mag = self.sel(below_one, (z, z), mag, span);
        let neg = self.cmp(CmpOp::SLt, h, z, span);
        let nan = self.is_nan_f64((l, h), span);
        let all = self.iconst(u32::MAX, span);
        let limit = self.iconst(if signed { 63 } else { 64 }, span);
        let out_of_range = self.cmp(CmpOp::SGe, e, limit, span);
        let r = if signed {
            let n = self.neg64(mag, span);
            let v = self.sel(neg, n, mag, span);
            let min_hi = self.iconst(SIGN, span);
            let max_hi = self.iconst(ABS, span);
            let sat = self.sel(neg, (z, min_hi), (all, max_hi), span);
            self.sel(out_of_range, sat, v, span)
        } else {
            let v = self.sel(out_of_range, (all, all), mag, span);
            self.sel(neg, (z, z), v, span)
        };
        self.sel(nan, (z, z), r, span)
    }

    /// A double to f32 rounded to odd (truncated, the lowest bit set when inexact),
    /// so that rounding the f32 to half afterwards is one correct rounding.
    fn f64_to_f32_odd(&mut self, x: Value, span: Span) -> Value {
        let t = self.dop(DoubleOp::ToF32, &[x], span);
        let back = self.dop(DoubleOp::FromF32, &[t], span);
        let (xl, xh) = self.halves(x, span);
        let (bl, bh) = self.halves(back, span);
        let m = self.iconst(ABS, span);
        let xa = (xl, self.binary(BinaryOp::And, xh, m, span));
        let ba = (bl, self.binary(BinaryOp::And, bh, m, span));
        let exact = self.eq64(xa, ba, span);
        // Rounded away from zero: step the f32 magnitude back by one (its bits minus 1).
        let away = self.less64(false, false, xa, ba, span);
        let tb = self.inst(InstData::Bitcast { ty: Type::I32, arg: t }, span);
        let one = self.iconst(1, span);
        let down = self.binary(BinaryOp::ISub, tb, one, span);
        let trunc = self.select(away, down, tb, span);
        let odd = self.binary(BinaryOp::Or, trunc, one, span);
        let nan = self.is_nan_f64((xl, xh), span);
        let keep = self.or(exact, nan, span);
        let bits = self.select(keep, tb, odd, span);
        self.inst(InstData::Bitcast { ty: Type::F32, arg: bits }, span)
    }

    /// Converts a leaf when either type is `double`.
    pub(super) fn convert_f64(&mut self, from: ScalarType, to: ScalarType, v: Value, span: Span) -> Value {
        use ScalarType::*;
        match (from, to) {
            (Double, Double) => v,
            (Double, Bool) => {
                // NaN converts to true, as in HLSL (unordered not-equal).
                let a = self.halves(v, span);
                let z = self.is_zero_f64(a, span);
                self.not(z, span)
            }
            (Bool, Double) => {
                let (one, zero) = (self.dconst(1.0, span), self.dconst(0.0, span));
                self.select(v, one, zero, span)
            }
            (Double, Float) => self.dop(DoubleOp::ToF32, &[v], span),
            (Double, Half) => {
                let f = self.f64_to_f32_odd(v, span);
                self.inst(InstData::Convert { op: ConvOp::F32ToF16, arg: f }, span)
            }
            (Float | Half, Double) => {
                let f = self.widen(from, v, span);
                self.dop(DoubleOp::FromF32, &[f], span)
            }
            (Int | Uint | Int16 | Uint16, Double) => {
                let x = self.widen(from, v, span);
                self.i32_to_f64(from.is_signed(), x, span)
            }
            (Int64 | Uint64, Double) => {
                let a = self.halves(v, span);
                self.int64_to_f64(from.is_signed(), a, span)
            }
            (Double, Int64 | Uint64) => {
                let r = self.f64_to_int64(to.is_signed(), v, span);
                self.pack64(Type::I64, r, span)
            }
            (Double, Int | Uint | Int16 | Uint16) => {
                // Through 64 bits, then saturated to 32 (as WAVE's f32 conversions saturate).
                let signed = to.is_signed();
                let r = self.f64_to_int64(signed, v, span);
                let (lo, hi) = if signed {
                    (self.iconst(i32::MIN as u32, span), self.iconst(u32::MAX, span))
                } else {
                    (self.iconst(0, span), self.iconst(0, span))
                };
                let max_lo = self.iconst(if signed { i32::MAX as u32 } else { u32::MAX }, span);
                let z = self.iconst(0, span);
                let r = if signed { self.min_max64(true, true, r, (lo, hi), span) } else { r };
                let r = self.min_max64(signed, false, r, (max_lo, z), span);
                self.narrow(to, r.0, span)
            }
            _ => {
                self.internal("a conversion the double lowering does not know", span);
                v
            }
        }
    }

    // ---- intrinsics ------------------------------------------------------------

    /// The intrinsics on doubles that differ from the float ones (the rest are
    /// built from operators, conversions and selects, which know doubles).
    pub(super) fn intrinsic_f64(&mut self, op: Intrinsic, vals: &[Vec<Value>], span: Span) -> Option<Vec<Value>> {
        use Intrinsic::*;
        let n = vals[0].len();
        let at = |k: usize, i: usize| vals[k][i];
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(match op {
                Abs => self.with_sign(at(0, i), BinaryOp::And, ABS, span),
                Min | Max => self.min_max_f64(op == Max, at(0, i), at(1, i), span),
                Clamp => {
                    let lo = self.min_max_f64(true, at(0, i), at(1, i), span);
                    self.min_max_f64(false, lo, at(2, i), span)
                }
                Saturate => {
                    // NaN gives 0 (both compares are false).
                    use tast::BinaryOp as B;
                    let (zero, one) = (self.dconst(0.0, span), self.dconst(1.0, span));
                    let x = at(0, i);
                    let below_one = self.compare_f64(B::Lt, x, one, span);
                    let upper = self.select(below_one, x, one, span);
                    let positive = self.compare_f64(B::Gt, x, zero, span);
                    self.select(positive, upper, zero, span)
                }
                Rcp => {
                    let one = self.dconst(1.0, span);
                    self.dop(DoubleOp::Div, &[one, at(0, i)], span)
                }
                Mad | Fma => self.dop(DoubleOp::Fma, &[at(0, i), at(1, i), at(2, i)], span),
                DoubleLo | DoubleHi => self.inst(InstData::Unpack64 { hi: op == DoubleHi, arg: at(0, i) }, span),
                WaveReadLaneFirst => self.wave_read_first64(at(0, i), span),
                WaveReadLaneAt => self.wave_read_lane64(at(0, i), vals[1][0], span),
                QuadReadAcrossX | QuadReadAcrossY | QuadReadAcrossDiagonal | QuadReadLaneAt => {
                    let lane = self.quad_lane(op, vals.get(1).map(|v| v[0]), span);
                    self.wave_read_lane64(at(0, i), lane, span)
                }
                WaveActiveAllEqual => {
                    let x = at(0, i);
                    let first = self.wave_read_first64(x, span);
                    let eq = self.compare_f64(tast::BinaryOp::Eq, x, first, span);
                    self.inst(InstData::WaveVote { op: VoteOp::All, cond: eq }, span)
                }
                WaveActiveSum | WavePrefixSum | WaveActiveProduct | WavePrefixProduct | WaveActiveMin | WaveActiveMax => {
                    let prefix = matches!(op, WavePrefixSum | WavePrefixProduct);
                    let (identity, combine): (f64, &Combine) = match op {
                        WaveActiveSum | WavePrefixSum => (0.0, &|l, a, x| l.dop(DoubleOp::Add, &[a, x], span)),
                        WaveActiveProduct | WavePrefixProduct => (1.0, &|l, a, x| l.dop(DoubleOp::Mul, &[a, x], span)),
                        // min/max start from NaN, which the first lane's value replaces.
                        WaveActiveMin => (f64::NAN, &|l, a, x| l.min_max_f64(false, a, x, span)),
                        _ => (f64::NAN, &|l, a, x| l.min_max_f64(true, a, x, span)),
                    };
                    let id = self.dconst(identity, span);
                    self.waterfall(at(0, i), id, prefix, combine, span)
                }
                _ => return None,
            });
        }
        Some(out)
    }
}
