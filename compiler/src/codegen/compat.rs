//! Selection for `--isa wave-0.1.2` of the operations that the published 0.1.2
//! crates do not read alike (docs/backends.md has the whole table).
//!
//! wave-emu (and our simulator) and the four backends wave-ptx, wave-hip,
//! wave-metal and wave-sycl disagree on these instructions, so the compat
//! profile never emits them and computes the same result from instructions
//! that every one of them reads the same way:
//!
//! - `cvt_f32_f16`/`cvt_f16_f32` and `cvt_f32_f64`/`cvt_f64_f32`: wave-emu reads
//!   the mnemonic destination-first, every backend source-first. f16 <-> f32
//!   and f32 -> f64 are integer bit manipulation plus one exact float add or
//!   multiply; f64 -> f32 rounds in integers, and in the f32 denormal range
//!   lets one `dadd` round (exactly IEEE's round-to-nearest-even).
//! - `imul_hi`: unsigned on wave-emu, wave-hip, wave-metal and wave-sycl,
//!   signed on wave-ptx: the high word from four 16-bit partial products.
//! - `wave_reduce_min/max`: unsigned on wave-emu and wave-metal, signed on
//!   wave-ptx, wave-hip and wave-sycl: both readings agree on values below
//!   2^31, so the reduction runs on `x >> 1` and then on the low bit of the
//!   lanes that hold the extreme.
//! - `flog2`: wave-ptx translates it to `lg2.approx.f32` (absolute error up to
//!   2^-22.6, a large relative error near 1, and `pow` = `exp2(y * log2 x)`
//!   multiplies it by y): log2 from integer bit work and `fma`s, within
//!   1.5 ulp on every backend alike (the one place where the profile gives
//!   up wave-emu's exact bits for the backends' sake).
//!
//! Every other sequence is exact: the simulator gives the same bits as the single
//! instruction does on wave-emu (NaNs quieted as wave-emu's conversions do).

use super::isel::{LoopEnd, Selector};
use super::mir::*;
use crate::diag::Span;
use crate::ir::WaveOp;

impl<'a> Selector<'a> {
    /// `d = p ? t : f` into a fresh register.
    fn pick(&mut self, p: VReg, t: VReg, f: VReg, uniform: bool, span: Span) -> VReg {
        let d = self.new_v(uniform);
        self.select_into(d, p, t, f, span);
        d
    }

    /// A fresh predicate `op(x, y)`.
    fn test(&mut self, op: Opcode, x: VReg, y: VReg, uniform: bool, span: Span) -> VReg {
        let p = self.new_p(uniform);
        self.op(op, p, vec![x, y], span);
        p
    }

    fn with_const(&mut self, op: Opcode, x: VReg, c: u32, uniform: bool, span: Span) -> VReg {
        let k = self.constant(c, span);
        self.op_new(op, vec![x, k], uniform, span)
    }

    /// d = the f32 of the f16 in the low half of `a` (exact).
    pub(super) fn compat_f16_to_f32(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let u = uniform;
        let em = self.with_const(Opcode::And, a, 0x7fff, u, span);
        let sh = self.with_const(Opcode::Shr, a, 15, u, span);
        let sign = self.with_const(Opcode::Shl, sh, 31, u, span);
        let o = self.with_const(Opcode::Shl, em, 13, u, span);
        // Rebias the exponent (15 -> 127); infinities and NaNs go up once more.
        let normal = self.with_const(Opcode::Iadd, o, 0x3800_0000, u, span);
        let special = self.with_const(Opcode::Iadd, normal, 0x3800_0000, u, span);
        let max_exp = self.constant(0x7c00, span);
        let is_special = self.test(Opcode::UcmpLe, max_exp, em, u, span);
        let r1 = self.pick(is_special, special, normal, u, span);
        // A NaN comes back quiet, as wave-emu's conversion gives it.
        let quiet = self.with_const(Opcode::Or, r1, 0x0040_0000, u, span);
        let is_nan = self.test(Opcode::UcmpLt, max_exp, em, u, span);
        let r2 = self.pick(is_nan, quiet, r1, u, span);
        // Zero and denormals: 2^-14 * (1 + m/1024) - 2^-14, exact (Sterbenz).
        let min_normal = self.constant(0x400, span);
        let tiny = self.test(Opcode::UcmpLt, em, min_normal, u, span);
        let up = self.with_const(Opcode::Iadd, normal, 0x0080_0000, u, span);
        let bias = self.fconstant(f32::from_bits(0x3880_0000), span);
        let den = self.op_new(Opcode::Fsub, vec![up, bias], u, span);
        let r3 = self.pick(tiny, den, r2, u, span);
        self.op(Opcode::Or, d, vec![r3, sign], span);
    }

    /// d = the f16 nearest to the f32 `a` (ties to even), zero-extended.
    pub(super) fn compat_f32_to_f16(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let u = uniform;
        let af = self.with_const(Opcode::And, a, 0x7fff_ffff, u, span);
        let sbit = self.with_const(Opcode::Shr, a, 31, u, span);
        let sign = self.with_const(Opcode::Shl, sbit, 15, u, span);
        // Normal results: drop 13 mantissa bits rounding to even, rebias 127 -> 15
        // (a carry out of the mantissa rounds up to the next binade or to infinity).
        let odd_bits = self.with_const(Opcode::Shr, af, 13, u, span);
        let odd = self.with_const(Opcode::And, odd_bits, 1, u, span);
        let biased = self.with_const(Opcode::Iadd, af, 0xc800_0fff, u, span);
        let rounded = self.op_new(Opcode::Iadd, vec![biased, odd], u, span);
        let normal = self.with_const(Opcode::Shr, rounded, 13, u, span);
        // Results below 2^-14: 0.5 + |a| rounds at the f16 denormal step 2^-24.
        let half = self.fconstant(0.5, span);
        let sum = self.op_new(Opcode::Fadd, vec![af, half], u, span);
        let den = self.with_const(Opcode::Isub, sum, 0x3f00_0000, u, span);
        let min_normal = self.constant(0x3880_0000, span);
        let tiny = self.test(Opcode::UcmpLt, af, min_normal, u, span);
        let r1 = self.pick(tiny, den, normal, u, span);
        // 2^16 and above (infinity included) overflow; NaN keeps its top payload bits.
        let inf = self.constant(0x7c00, span);
        let overflow_at = self.constant(0x4780_0000, span);
        let big = self.test(Opcode::UcmpLe, overflow_at, af, u, span);
        let r2 = self.pick(big, inf, r1, u, span);
        let payload = self.with_const(Opcode::And, odd_bits, 0x3ff, u, span);
        let nan = self.with_const(Opcode::Or, payload, 0x7e00, u, span);
        let f32_inf = self.constant(0x7f80_0000, span);
        let is_nan = self.test(Opcode::UcmpLt, f32_inf, af, u, span);
        let r3 = self.pick(is_nan, nan, r2, u, span);
        self.op(Opcode::Or, d, vec![r3, sign], span);
    }

    /// d (a pair) = the f64 of the f32 `a` (exact).
    pub(super) fn compat_f32_to_f64(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let u = uniform;
        let sign = self.with_const(Opcode::And, a, 0x8000_0000, u, span);
        let af = self.with_const(Opcode::And, a, 0x7fff_ffff, u, span);
        // Denormals become normal times 2^24 (exact), and the exponent bias says so.
        let scale = self.fconstant(16_777_216.0, span);
        let scaled = self.op_new(Opcode::Fmul, vec![af, scale], u, span);
        let min_normal = self.constant(0x0080_0000, span);
        let den = self.test(Opcode::UcmpLt, af, min_normal, u, span);
        let src = self.pick(den, scaled, af, u, span);
        let b_norm = self.constant(0x3800_0000, span);
        let b_den = self.constant(0x3680_0000, span);
        let bias = self.pick(den, b_den, b_norm, u, span);
        let top = self.with_const(Opcode::Shr, src, 3, u, span);
        let hi_finite = self.op_new(Opcode::Iadd, vec![top, bias], u, span);
        let lo = self.with_const(Opcode::Shl, src, 29, u, span);
        // Infinities and NaNs: exponent 255 -> 2047; a NaN comes back quiet.
        let af_top = self.with_const(Opcode::Shr, af, 3, u, span);
        let hi_inf = self.with_const(Opcode::Iadd, af_top, 0x7000_0000, u, span);
        let f32_inf = self.constant(0x7f80_0000, span);
        let special = self.test(Opcode::UcmpLe, f32_inf, af, u, span);
        let h1 = self.pick(special, hi_inf, hi_finite, u, span);
        let quiet = self.with_const(Opcode::Or, h1, 0x0008_0000, u, span);
        let is_nan = self.test(Opcode::UcmpLt, f32_inf, af, u, span);
        let h2 = self.pick(is_nan, quiet, h1, u, span);
        let zero = self.constant(0, span);
        let is_zero = self.test(Opcode::IcmpEq, af, zero, u, span);
        let h3 = self.pick(is_zero, zero, h2, u, span);
        let hi = self.op_new(Opcode::Or, vec![h3, sign], u, span);
        self.join(d, lo, hi, span);
    }

    /// d = the f32 nearest to the f64 pair `a` (ties to even).
    pub(super) fn compat_f64_to_f32(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let u = uniform;
        let lo = self.word_of(a, 0, u, span);
        let hi = self.word_of(a, 1, u, span);
        let sign = self.with_const(Opcode::And, hi, 0x8000_0000, u, span);
        let ahi = self.with_const(Opcode::And, hi, 0x7fff_ffff, u, span);
        // The f32 range: rebias 1023 -> 127, keep 23 mantissa bits, round the other 29.
        let rebased = self.with_const(Opcode::Isub, ahi, 0x3800_0000, u, span);
        let high_part = self.with_const(Opcode::Shl, rebased, 3, u, span);
        let low_part = self.with_const(Opcode::Shr, lo, 29, u, span);
        let base = self.op_new(Opcode::Or, vec![high_part, low_part], u, span);
        let rem = self.with_const(Opcode::And, lo, 0x1fff_ffff, u, span);
        let odd = self.with_const(Opcode::And, base, 1, u, span);
        let r_odd = self.op_new(Opcode::Iadd, vec![rem, odd], u, span);
        let carry_in = self.with_const(Opcode::Iadd, r_odd, 0x0fff_ffff, u, span);
        let round_up = self.with_const(Opcode::Shr, carry_in, 29, u, span);
        let normal = self.op_new(Opcode::Iadd, vec![base, round_up], u, span);
        // Below 2^-126: adding 2^-97 leaves the f32 denormal step 2^-149 as the
        // sum's last place, so dadd rounds to it and the low word is the result.
        let zero = self.constant(0, span);
        let pair = self.m.new_vreg(RegClass::V2, u);
        self.join(pair, lo, ahi, span);
        let magic_hi = self.constant(0x39e0_0000, span);
        let magic = self.m.new_vreg(RegClass::V2, true);
        self.join(magic, zero, magic_hi, span);
        let sum = self.m.new_vreg(RegClass::V2, u);
        self.op(Opcode::Dadd, sum, vec![pair, magic], span);
        let den = self.word_of(sum, 0, u, span);
        let small_at = self.constant(0x3810_0000, span);
        let small = self.test(Opcode::UcmpLt, ahi, small_at, u, span);
        let r1 = self.pick(small, den, normal, u, span);
        // 2^128 and above, infinity included, overflow.
        let inf = self.constant(0x7f80_0000, span);
        let overflow_at = self.constant(0x47f0_0000, span);
        let big = self.test(Opcode::UcmpLe, overflow_at, ahi, u, span);
        let r2 = self.pick(big, inf, r1, u, span);
        // NaN (exponent 2047, mantissa not zero): quiet, top payload bits kept.
        let neg_lo = self.op_new(Opcode::Ineg, vec![lo], u, span);
        let any_lo = self.op_new(Opcode::Or, vec![lo, neg_lo], u, span);
        let lo_nz = self.with_const(Opcode::Shr, any_lo, 31, u, span);
        let sticky = self.op_new(Opcode::Or, vec![ahi, lo_nz], u, span);
        let d_inf = self.constant(0x7ff0_0000, span);
        let is_nan = self.test(Opcode::UcmpLt, d_inf, sticky, u, span);
        let mant = self.with_const(Opcode::And, base, 0x007f_ffff, u, span);
        let nan = self.with_const(Opcode::Or, mant, 0x7fc0_0000, u, span);
        let r3 = self.pick(is_nan, nan, r2, u, span);
        self.op(Opcode::Or, d, vec![r3, sign], span);
    }

    /// d = log2(a) to within 1.5 ulp from operations every backend computes
    /// exactly: `a = 2^k * m` with m in [sqrt(1/2), sqrt(2)) by integer bit
    /// work, then ln(m) = f + f^2 * S(f) for f = m - 1 (exact), with S a
    /// degree-8 fit of (ln(1 + f) - f) / f^2 (1.4 ulp at most, checked against
    /// correctly rounded log2 at 46,000 points), and k + ln(m) / ln 2 in two
    /// `fma`s with 1/ln 2 in two parts. Only `fma`s, so no backend's
    /// multiply-add contraction can change a rounding. Zero, negative,
    /// infinite and NaN inputs keep the `flog2` instruction, which every
    /// reading agrees on there (-inf, NaN, +inf, NaN).
    pub(super) fn compat_log2(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        const S: [u32; 9] =
            [0xbeff_ffff, 0x3eaa_aaaa, 0xbe80_0106, 0x3e4c_d009, 0xbe2a_41c1, 0x3e11_752d, 0xbe06_6d19, 0x3e02_47b9, 0xbd9d_27fb];
        let u = uniform;
        // Denormals are scaled into the normal range first (exact).
        let min_normal = self.constant(0x0080_0000, span);
        let den = self.test(Opcode::UcmpLt, a, min_normal, u, span);
        let scale = self.fconstant(8_388_608.0, span);
        let scaled = self.op_new(Opcode::Fmul, vec![a, scale], u, span);
        let x = self.pick(den, scaled, a, u, span);
        let c23 = self.constant(23, span);
        let zero = self.constant(0, span);
        let k_den = self.pick(den, c23, zero, u, span);
        // x - bits(sqrt(1/2)): the high bits are k, the low 23 m's mantissa
        // measured from sqrt(1/2).
        let t = self.with_const(Opcode::Isub, x, 0x3f35_04f3, u, span);
        let k_raw = self.with_const(Opcode::Sar, t, 23, u, span);
        let k = self.op_new(Opcode::Isub, vec![k_raw, k_den], u, span);
        let mant = self.with_const(Opcode::And, t, 0x007f_ffff, u, span);
        let m = self.with_const(Opcode::Iadd, mant, 0x3f35_04f3, u, span);
        let one = self.fconstant(1.0, span);
        let f = self.op_new(Opcode::Fsub, vec![m, one], u, span);
        let f2 = self.op_new(Opcode::Fmul, vec![f, f], u, span);
        let mut s = self.constant(S[8], span);
        for &c in S[..8].iter().rev() {
            let cv = self.constant(c, span);
            s = self.op_new(Opcode::Fma, vec![s, f, cv], u, span);
        }
        let ln_m = self.op_new(Opcode::Fma, vec![f2, s, f], u, span);
        let kf = self.op_new(Opcode::CvtI32ToF32, vec![k], u, span);
        // 1/ln 2 = 0x3fb8aa3b + 0x32a57060 (f32 parts).
        let inv_ln2_lo = self.constant(0x32a5_7060, span);
        let low = self.op_new(Opcode::Fma, vec![ln_m, inv_ln2_lo, kf], u, span);
        let inv_ln2_hi = self.constant(0x3fb8_aa3b, span);
        let soft = self.op_new(Opcode::Fma, vec![ln_m, inv_ln2_hi, low], u, span);
        // +0, negatives, +inf and NaN: bits - 1 at or above 0x7f7fffff (unsigned).
        let below = self.with_const(Opcode::Isub, a, 1, u, span);
        let last_finite = self.constant(0x7f7f_ffff, span);
        let special = self.test(Opcode::UcmpLe, last_finite, below, u, span);
        let hard = self.op_new(Opcode::Flog2, vec![a], u, span);
        self.select_into(d, special, hard, soft, span);
    }

    /// The pair `d` from its words (early-clobber, as every `Join`).
    fn join(&mut self, d: VReg, lo: VReg, hi: VReg, span: Span) {
        let mut i = MInst::new(Opcode::Join, Some(d), vec![lo, hi], span);
        i.early_clobber = true;
        self.push(i);
    }

    /// Word `k` of the pair `v` in a fresh register.
    fn word_of(&mut self, v: VReg, k: u32, uniform: bool, span: Span) -> VReg {
        let d = self.new_v(uniform);
        let mut i = MInst::new(Opcode::Word, Some(d), vec![v], span);
        i.imm = Some(k);
        self.push(i);
        d
    }

    /// d = the high word of the unsigned product x * y, from 16-bit halves.
    pub(super) fn compat_umulhi(&mut self, d: VReg, x: VReg, y: VReg, uniform: bool, span: Span) {
        let u = uniform;
        let mask = self.constant(0xffff, span);
        let c16 = self.constant(16, span);
        let x0 = self.op_new(Opcode::And, vec![x, mask], u, span);
        let x1 = self.op_new(Opcode::Shr, vec![x, c16], u, span);
        let y0 = self.op_new(Opcode::And, vec![y, mask], u, span);
        let y1 = self.op_new(Opcode::Shr, vec![y, c16], u, span);
        let p00 = self.op_new(Opcode::Imul, vec![x0, y0], u, span);
        let p01 = self.op_new(Opcode::Imul, vec![x0, y1], u, span);
        let p10 = self.op_new(Opcode::Imul, vec![x1, y0], u, span);
        let p11 = self.op_new(Opcode::Imul, vec![x1, y1], u, span);
        let carry_lo = self.op_new(Opcode::Shr, vec![p00, c16], u, span);
        let m01 = self.op_new(Opcode::And, vec![p01, mask], u, span);
        let m10 = self.op_new(Opcode::And, vec![p10, mask], u, span);
        let t1 = self.op_new(Opcode::Iadd, vec![carry_lo, m01], u, span);
        let t = self.op_new(Opcode::Iadd, vec![t1, m10], u, span);
        let h01 = self.op_new(Opcode::Shr, vec![p01, c16], u, span);
        let h10 = self.op_new(Opcode::Shr, vec![p10, c16], u, span);
        let carry = self.op_new(Opcode::Shr, vec![t, c16], u, span);
        let s1 = self.op_new(Opcode::Iadd, vec![p11, h01], u, span);
        let s2 = self.op_new(Opcode::Iadd, vec![s1, h10], u, span);
        self.op(Opcode::Iadd, d, vec![s2, carry], span);
    }

    /// d = the unsigned minimum (maximum) of `x` over the active lanes, with
    /// reductions only of values below 2^31, where signed and unsigned agree.
    pub(super) fn compat_wave_minmax(&mut self, d: VReg, x: VReg, max: bool, span: Span) {
        let r = if max { MReduce::Max } else { MReduce::Min };
        let one = self.constant(1, span);
        let high = self.op_new(Opcode::Shr, vec![x, one], false, span);
        let extreme = self.op_new(Opcode::WaveReduce(r), vec![high], true, span);
        let low = self.op_new(Opcode::And, vec![x, one], false, span);
        let holds = self.test(Opcode::IcmpEq, high, extreme, false, span);
        let other = if max { self.constant(0, span) } else { one };
        let cand = self.pick(holds, low, other, false, span);
        let bit = self.op_new(Opcode::WaveReduce(r), vec![cand], true, span);
        let top = self.op_new(Opcode::Shl, vec![extreme, one], true, span);
        self.op(Opcode::Or, d, vec![top, bit], span);
    }

    /// The fold of `op` over `x` of the active lanes in ascending lane order
    /// (as `waterfall`), as a loop over every lane of the wave with a uniform trip
    /// count: every lane runs every iteration, so the loop never diverges and
    /// its broadcasts run with the lanes that entered it. Lane `k`'s value is
    /// read with a broadcast and replaced by the combine's neutral element
    /// when lane `k` is not active (the ballot of the lanes that entered); a
    /// prefix combines only lanes below its own.
    pub(super) fn compat_fold(&mut self, op: WaveOp, prefix: bool, d: VReg, x: VReg, span: Span) {
        let (combine, neutral, start) = match op {
            WaveOp::IMul => (Opcode::Imul, 1, 1),
            WaveOp::And => (Opcode::And, u32::MAX, u32::MAX),
            WaveOp::Or => (Opcode::Or, 0, 0),
            WaveOp::Xor => (Opcode::Xor, 0, 0),
            // -0.0 is the exact neutral element of addition; a prefix starts from +0.0.
            WaveOp::FAdd => (Opcode::Fadd, 0x8000_0000, if prefix { 0 } else { 0x8000_0000 }),
            WaveOp::FMul => (Opcode::Fmul, 1.0f32.to_bits(), 1.0f32.to_bits()),
            WaveOp::FMin => (Opcode::Fmin, f32::NAN.to_bits(), f32::NAN.to_bits()),
            WaveOp::FMax => (Opcode::Fmax, f32::NAN.to_bits(), f32::NAN.to_bits()),
            WaveOp::IAdd | WaveOp::SMin | WaveOp::SMax | WaveOp::UMin | WaveOp::UMax => {
                unreachable!("{} is not a fold", op.name())
            }
        };
        let lane = self.lane_id(span);
        // The lanes that entered: ballot covers lanes 0..32, an add of
        // distinct bits lanes 32..64 (waves of 64 lanes on the simulator).
        let all = self.test(Opcode::IcmpEq, lane, lane, false, span);
        let active_lo = self.op_new(Opcode::WaveBallot, vec![all], true, span);
        let c32 = self.constant(32, span);
        let one = self.constant(1, span);
        let zero = self.constant(0, span);
        let above = self.op_new(Opcode::Isub, vec![lane, c32], false, span);
        let upper = self.test(Opcode::UcmpLt, above, c32, false, span);
        let shifted = self.op_new(Opcode::Shl, vec![one, above], false, span);
        let mine = self.pick(upper, shifted, zero, false, span);
        let active_hi = self.op_new(Opcode::WaveReduce(MReduce::Add), vec![mine], true, span);
        let width = self.new_v(true);
        self.special(width, crate::ir::SpecialReg::WaveWidth, span);
        let first = self.new_v(true);
        self.mov_imm(first, start, span, None);
        // The lowest lane that entered: an inactive lane `k` is read from it
        // instead (its value is replaced anyway), never from a register that
        // lane `k` may never have written (a wave's lanes past its
        // workgroup's threads never run).
        let lowest = self.op_new(Opcode::WaveReduce(MReduce::Min), vec![lane], true, span);
        let (k, acc) = (self.new_v(true), self.new_v(false));
        self.emit_loop(vec![zero, first], vec![k, acc], vec![d], span, |s| {
            let low_word = s.test(Opcode::UcmpLt, k, c32, true, span);
            let word = s.pick(low_word, active_lo, active_hi, true, span);
            let c31 = s.constant(31, span);
            let at = s.op_new(Opcode::And, vec![k, c31], true, span);
            let bits = s.op_new(Opcode::Shr, vec![word, at], true, span);
            let bit = s.op_new(Opcode::And, vec![bits, one], true, span);
            let on = s.test(Opcode::IcmpNe, bit, zero, true, span);
            let from = s.pick(on, k, lowest, true, span);
            let xk = s.op_new(Opcode::WaveBroadcast, vec![x, from], true, span);
            let neutral_v = s.constant(neutral, span);
            let c = s.pick(on, xk, neutral_v, true, span);
            let folded = s.op_new(combine, vec![acc, c], false, span);
            let next_acc = if prefix {
                let below = s.test(Opcode::UcmpLt, k, lane, false, span);
                s.pick(below, folded, acc, false, span)
            } else {
                folded
            };
            let next_k = s.op_new(Opcode::Iadd, vec![k, one], true, span);
            let done = s.test(Opcode::IcmpEq, next_k, width, true, span);
            LoopEnd { brk: done, exit_args: vec![next_acc], next: vec![next_k, next_acc] }
        });
    }
}
