//! Selection of arithmetic, bit operations and conversions, with the
//! expansions for what a profile lacks or computes differently from HLSL:
//!
//! - `fround` (halves to even): WAVE's `fround` is not specified for ties and
//!   both emulators round them away from zero, so both profiles add and subtract
//!   2^23 (which rounds to nearest even) on |x| < 2^23 and copy the sign back.
//! - `ffract` on wave-0.1.2 (its `ffract` is x - trunc(x)): x - ffloor(x).
//! - `fsat` on wave-0.1.2 (its `fsat` keeps NaN): fmin(fmax(x, 0), 1).
//! - `umin`/`umax` on wave-0.1.2 (no such instructions): signed min/max with
//!   the sign bits flipped (x ^ 0x80000000 orders unsigned values as signed).
//! - `firstbithigh`/`firstbitlow`: WAVE's `bitfind` has no specified meaning
//!   (the emulators count leading zeros, wave-ptx finds the lowest set bit), so
//!   both are built from `bitcount`, which is unambiguous.
//! - `flog2` on wave-0.1.2: `compat_log2` (wave-ptx's is approximate).

use super::isel::Selector;
use super::mir::*;
use crate::diag::Span;
use crate::ir::*;
use crate::options::Isa;

impl<'a> Selector<'a> {
    pub(super) fn unary(&mut self, op: UnaryOp, v: Value, arg: Value, span: Span) {
        use UnaryOp::*;
        let (d, a) = (self.vreg(v), self.vreg(arg));
        let uniform = self.is_uniform(v);
        let direct = match op {
            INeg => Some(Opcode::Ineg),
            INot => Some(Opcode::Not),
            FNeg => Some(Opcode::Fneg),
            FAbs => Some(Opcode::Fabs),
            FSqrt => Some(Opcode::Fsqrt),
            FRsqrt => Some(Opcode::Frsqrt),
            FRcp => Some(Opcode::Frcp),
            FFloor => Some(Opcode::Ffloor),
            FCeil => Some(Opcode::Fceil),
            FTrunc => Some(Opcode::Ftrunc),
            FSin => Some(Opcode::Fsin),
            FCos => Some(Opcode::Fcos),
            FExp2 => Some(Opcode::Fexp2),
            FLog2 if self.isa == Isa::Wave => Some(Opcode::Flog2),
            IAbs => Some(Opcode::Iabs),
            Popcount => Some(Opcode::BitCount),
            BitRev => Some(Opcode::BitRev),
            FFract if self.isa == Isa::Wave => Some(Opcode::Ffract),
            FSat if self.isa == Isa::Wave => Some(Opcode::Fsat),
            _ => None,
        };
        if let Some(code) = direct {
            self.op(code, d, vec![a], span);
            return;
        }
        match op {
            BNot => {
                let one = self.constant(1, span);
                self.op(Opcode::Xor, d, vec![a, one], span);
            }
            FRound => self.round_half_even(d, a, uniform, span),
            FLog2 => self.compat_log2(d, a, uniform, span),
            FFract => {
                let fl = self.op_new(Opcode::Ffloor, vec![a], uniform, span);
                self.op(Opcode::Fsub, d, vec![a, fl], span);
            }
            FSat => {
                let zero = self.fconstant(0.0, span);
                let one = self.fconstant(1.0, span);
                let lo = self.op_new(Opcode::Fmax, vec![a, zero], uniform, span);
                self.op(Opcode::Fmin, d, vec![lo, one], span);
            }
            UFirstBitHigh => self.first_bit_high(d, a, uniform, span),
            SFirstBitHigh => {
                // Negative values look for the highest clear bit: flip them first.
                let c31 = self.constant(31, span);
                let sign = self.op_new(Opcode::Sar, vec![a, c31], uniform, span);
                let y = self.op_new(Opcode::Xor, vec![a, sign], uniform, span);
                self.first_bit_high(d, y, uniform, span);
            }
            FirstBitLow => {
                // popcount((x & -x) - 1) counts the trailing zeros (32 for 0);
                // or-ing in -(t >> 5) turns 32 into 0xffffffff.
                let neg = self.op_new(Opcode::Ineg, vec![a], uniform, span);
                let low = self.op_new(Opcode::And, vec![a, neg], uniform, span);
                let one = self.constant(1, span);
                let below = self.op_new(Opcode::Isub, vec![low, one], uniform, span);
                let t = self.op_new(Opcode::BitCount, vec![below], uniform, span);
                let five = self.constant(5, span);
                let is32 = self.op_new(Opcode::Shr, vec![t, five], uniform, span);
                let all = self.op_new(Opcode::Ineg, vec![is32], uniform, span);
                self.op(Opcode::Or, d, vec![t, all], span);
            }
            _ => unreachable!("selected directly above"),
        }
    }

    /// d = index of the highest set bit of `a`, 0xffffffff for 0: smear the
    /// highest bit into every lower one, count, subtract one.
    fn first_bit_high(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let mut x = a;
        for sh in [1, 2, 4, 8, 16] {
            let c = self.constant(sh, span);
            let shifted = self.op_new(Opcode::Shr, vec![x, c], uniform, span);
            x = self.op_new(Opcode::Or, vec![x, shifted], uniform, span);
        }
        let n = self.op_new(Opcode::BitCount, vec![x], uniform, span);
        let one = self.constant(1, span);
        self.op(Opcode::Isub, d, vec![n, one], span);
    }

    /// d = round(a), halves to even: for |a| < 2^23, (|a| + 2^23) - 2^23 rounds
    /// in the adder's round-to-nearest-even mode; larger values, infinities and
    /// NaN are kept; the sign of `a` is copied back (round(-0.3) = -0).
    fn round_half_even(&mut self, d: VReg, a: VReg, uniform: bool, span: Span) {
        let t = self.op_new(Opcode::Fabs, vec![a], uniform, span);
        let big = self.fconstant(8_388_608.0, span);
        let s = self.op_new(Opcode::Fadd, vec![t, big], uniform, span);
        let r = self.op_new(Opcode::Fsub, vec![s, big], uniform, span);
        let small = self.new_p(uniform);
        self.op(Opcode::FcmpLt, small, vec![t, big], span);
        let m = self.new_v(uniform);
        self.select_into(m, small, r, t, span);
        let sign_bit = self.constant(0x8000_0000, span);
        let sign = self.op_new(Opcode::And, vec![a, sign_bit], uniform, span);
        self.op(Opcode::Or, d, vec![m, sign], span);
    }

    pub(super) fn ternary(&mut self, op: TernaryOp, v: Value, args: [Value; 3], span: Span) {
        let d = self.vreg(v);
        let srcs = args.iter().map(|&a| self.vreg(a)).collect();
        match op {
            TernaryOp::Fma => self.op(Opcode::Fma, d, srcs, span),
        }
    }

    /// d = x / y. wave-emu 0.1.2 divides by ±0 into +inf whatever the signs
    /// (0 / 0 too); there a zero divisor takes x * frcp(y) instead, whose
    /// signs, infinities and NaNs are IEEE's (frcp(±0) = ±inf).
    fn fdiv(&mut self, d: VReg, x: VReg, y: VReg, uniform: bool, span: Span) {
        if self.isa == Isa::Wave {
            self.op(Opcode::Fdiv, d, vec![x, y], span);
            return;
        }
        let q = self.op_new(Opcode::Fdiv, vec![x, y], uniform, span);
        let r = self.op_new(Opcode::Frcp, vec![y], uniform, span);
        let by_rcp = self.op_new(Opcode::Fmul, vec![x, r], uniform, span);
        let zero = self.constant(0, span);
        let p = self.new_p(uniform);
        self.op(Opcode::FcmpEq, p, vec![y, zero], span);
        self.select_into(d, p, by_rcp, q, span);
    }

    pub(super) fn binary(&mut self, op: BinaryOp, v: Value, args: [Value; 2], span: Span) {
        use BinaryOp::*;
        let d = self.vreg(v);
        let uniform = self.is_uniform(v);
        let (x, y) = (self.vreg(args[0]), self.vreg(args[1]));
        let unsigned_native = self.isa == Isa::Wave;
        let code = match op {
            IAdd => Some(Opcode::Iadd),
            ISub => Some(Opcode::Isub),
            IMul => Some(Opcode::Imul),
            SDiv => Some(Opcode::Idiv),
            SRem => Some(Opcode::Imod),
            And | BAnd => Some(Opcode::And),
            Or | BOr => Some(Opcode::Or),
            Xor | BXor => Some(Opcode::Xor),
            Shl | LShr | AShr if self.isa == Isa::Wave012 => None,
            Shl => Some(Opcode::Shl),
            LShr => Some(Opcode::Shr),
            AShr => Some(Opcode::Sar),
            FAdd => Some(Opcode::Fadd),
            FSub => Some(Opcode::Fsub),
            FMul => Some(Opcode::Fmul),
            FDiv if self.isa == Isa::Wave => Some(Opcode::Fdiv),
            SMin => Some(Opcode::Imin),
            SMax => Some(Opcode::Imax),
            UMin if unsigned_native => Some(Opcode::Umin),
            UMax if unsigned_native => Some(Opcode::Umax),
            FMin => Some(Opcode::Fmin),
            FMax => Some(Opcode::Fmax),
            UMulHi if self.isa == Isa::Wave => Some(Opcode::ImulHi),
            UDiv | URem | FRem | UMin | UMax | FDiv | UMulHi => None,
        };
        if let Some(code) = code {
            self.op(code, d, vec![x, y], span);
            return;
        }
        match op {
            Shl | LShr | AShr => {
                // The IR's shifts use the amount's low 5 bits, as WAVE's and HLSL's do;
                // wave-ptx's `shl.b32`/`shr` clamp 32 and above instead, so the
                // compat output masks every amount not known to be below 32.
                let code = match op {
                    Shl => Opcode::Shl,
                    LShr => Opcode::Shr,
                    _ => Opcode::Sar,
                };
                let amount = match self.const_of(args[1]) {
                    Some(c) if c < 32 => y,
                    Some(c) => self.constant(c & 31, span),
                    None if self.below_32(args[1]) => y,
                    None => {
                        let c31 = self.constant(31, span);
                        self.op_new(Opcode::And, vec![y, c31], self.is_uniform(args[1]), span)
                    }
                };
                self.op(code, d, vec![x, amount], span);
            }
            FDiv => self.fdiv(d, x, y, uniform, span),
            UMulHi => self.compat_umulhi(d, x, y, uniform, span),
            FRem => {
                // fmod with truncation: x - trunc(x / y) * y
                let q = self.new_v(uniform);
                self.fdiv(q, x, y, uniform, span);
                let t = self.op_new(Opcode::Ftrunc, vec![q], uniform, span);
                let m = self.op_new(Opcode::Fmul, vec![t, y], uniform, span);
                let r = self.op_new(Opcode::Fsub, vec![x, m], uniform, span);
                // fmod's result carries the sign of x, also when it is zero (-6 % 3 is -0).
                let sign_bit = self.constant(0x8000_0000, span);
                let sign = self.op_new(Opcode::And, vec![x, sign_bit], uniform, span);
                self.op(Opcode::Or, d, vec![r, sign], span);
            }
            UMin | UMax => {
                let bias = self.constant(0x8000_0000, span);
                let bx = self.op_new(Opcode::Xor, vec![x, bias], uniform, span);
                let by = self.op_new(Opcode::Xor, vec![y, bias], uniform, span);
                let code = if op == UMin { Opcode::Imin } else { Opcode::Imax };
                let r = self.op_new(code, vec![bx, by], uniform, span);
                self.op(Opcode::Xor, d, vec![r, bias], span);
            }
            UDiv | URem => {
                if let Some(c) = self.const_of(args[1]).filter(|c| c.is_power_of_two()) {
                    if op == UDiv {
                        let sh = self.constant(c.trailing_zeros(), span);
                        self.op(Opcode::Shr, d, vec![x, sh], span);
                    } else {
                        let mask = self.constant(c - 1, span);
                        self.op(Opcode::And, d, vec![x, mask], span);
                    }
                    return;
                }
                let q = if op == UDiv { d } else { self.new_v(uniform) };
                self.unsigned_divide(q, x, y, uniform, span);
                if op == URem {
                    let t = self.op_new(Opcode::Imul, vec![q, y], uniform, span);
                    self.op(Opcode::Isub, d, vec![x, t], span);
                }
            }
            _ => unreachable!("selected directly above"),
        }
    }

    /// Whether `v` is an `and` with a constant below 32 (a shift amount already masked).
    fn below_32(&self, v: Value) -> bool {
        let Some(inst) = self.f.def_inst(v) else { return false };
        match self.f.insts[inst] {
            InstData::Binary { op: BinaryOp::And, args } => args.iter().any(|&a| self.const_of(a).is_some_and(|c| c < 32)),
            _ => false,
        }
    }

    /// q = n / d for unsigned 32-bit values using WAVE's signed `idiv`:
    /// for d < 2^31, q = 2*((n >> 1) / d), corrected by one if the remainder
    /// is still >= d; for d >= 2^31 the quotient is n >= d.
    fn unsigned_divide(&mut self, q: VReg, n: VReg, d: VReg, uniform: bool, span: Span) {
        let one = self.constant(1, span);
        let half = self.op_new(Opcode::Shr, vec![n, one], uniform, span);
        let q1 = self.op_new(Opcode::Idiv, vec![half, d], uniform, span);
        let q2 = self.op_new(Opcode::Shl, vec![q1, one], uniform, span);
        let prod = self.op_new(Opcode::Imul, vec![q2, d], uniform, span);
        let rem = self.op_new(Opcode::Isub, vec![n, prod], uniform, span);
        let q3 = self.op_new(Opcode::Iadd, vec![q2, one], uniform, span);
        let fix = self.new_p(uniform);
        self.op(Opcode::UcmpLe, fix, vec![d, rem], span);
        let small = self.new_v(uniform);
        self.select_into(small, fix, q3, q2, span);
        // Divisors with the top bit set.
        let zero = self.constant(0, span);
        let big = self.new_p(uniform);
        self.op(Opcode::IcmpLt, big, vec![d, zero], span);
        let ge = self.new_p(uniform);
        self.op(Opcode::UcmpLe, ge, vec![d, n], span);
        let big_q = self.new_v(uniform);
        self.bool_from_pred(big_q, ge, span);
        self.select_into(q, big, big_q, small, span);
    }

    pub(super) fn convert(&mut self, op: ConvOp, v: Value, arg: Value, span: Span) {
        let (d, a) = (self.vreg(v), self.vreg(arg));
        let uniform = self.is_uniform(v);
        if self.isa == Isa::Wave012 {
            match op {
                ConvOp::F16ToF32 => return self.compat_f16_to_f32(d, a, uniform, span),
                ConvOp::F32ToF16 => return self.compat_f32_to_f16(d, a, uniform, span),
                _ => {}
            }
        }
        // 16-bit values sit zero-extended in the low half of a V register.
        let code = match op {
            ConvOp::SIToF => Opcode::CvtI32ToF32,
            ConvOp::UIToF => Opcode::CvtU32ToF32,
            ConvOp::FToSI => Opcode::CvtF32ToI32,
            ConvOp::FToUI => Opcode::CvtF32ToU32,
            ConvOp::F16ToF32 => Opcode::CvtF16ToF32,
            ConvOp::F32ToF16 => Opcode::CvtF32ToF16,
            ConvOp::ZExt16 => Opcode::Mov,
            // A half keeps the low 16 bits of what is written to it.
            ConvOp::Trunc16 if self.m.vregs[d].class == RegClass::H => Opcode::Mov,
            ConvOp::Trunc16 => {
                let mask = self.constant(0xffff, span);
                self.op(Opcode::And, d, vec![a, mask], span);
                return;
            }
            ConvOp::SExt16 => {
                let sixteen = self.constant(16, span);
                let t = self.op_new(Opcode::Shl, vec![a, sixteen], uniform, span);
                self.op(Opcode::Sar, d, vec![t, sixteen], span);
                return;
            }
        };
        self.op(code, d, vec![a], span);
    }
}
