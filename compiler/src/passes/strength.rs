//! Strength reduction (`strength-reduce`) of multiplication, division and
//! remainder by constants. WAVE has a signed `idiv` only; an unsigned divide
//! costs selection about fourteen instructions, an `imul_hi` and a shift or
//! two cost four to eight.
//!
//! * `x * 2^k` -> `x << k`; `x * -1` -> `-x` (`simplify`).
//! * `x udiv 2^k` -> `x >> k`; `x urem 2^k` -> `x & (2^k - 1)`.
//! * `x udiv d` for any other d >= 2: the multiply-high sequences of
//!   Granlund and Montgomery, "Division by Invariant Integers using
//!   Multiplication" (PLDI 1994): `umulhi(x, m) >> s` when a 32-bit `m` is
//!   exact for every x (Theorem 4.2), else the add-and-halve form of their
//!   Figure 4.1. `x urem d` is `x - (x udiv d) * d`.
//! * `sdiv`/`srem` by a positive constant whose dividend is provably
//!   non-negative are the unsigned operations (exact, so they reduce as
//!   above). Other signed divisions keep the native `idiv`.
//!
//! Other constant multipliers stay multiplies: `imul` costs the same as a
//! shift or an add on every target model, so shift-and-add sequences would
//! only add instructions.

use super::edit::{const_of, rewrite, Action, Rewriter};
use super::PassContext;
use crate::ir::*;

/// The `strength-reduce` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    rewrite(f, &mut |rw, _inst, data| {
        let InstData::Binary { op, args: [x, d] } = *data else { return Action::Keep };
        let Some(c) = const_of(rw.f, d) else { return Action::Keep };
        reduce(rw, op, x, c)
    })
}

fn reduce(rw: &mut Rewriter, op: BinaryOp, x: Value, c: u32) -> Action {
    use BinaryOp::*;
    match op {
        IMul if c.is_power_of_two() && c > 1 => {
            let k = rw.iconst(c.trailing_zeros());
            Action::Replace(InstData::Binary { op: Shl, args: [x, k] })
        }
        UDiv if c.is_power_of_two() && c > 1 => {
            let k = rw.iconst(c.trailing_zeros());
            Action::Replace(InstData::Binary { op: LShr, args: [x, k] })
        }
        URem if c.is_power_of_two() && c > 1 => {
            let m = rw.iconst(c - 1);
            Action::Replace(InstData::Binary { op: And, args: [x, m] })
        }
        UDiv if c > 1 => Action::Replace(udiv_magic(rw, x, c)),
        URem if c > 1 => {
            let q = udiv_magic(rw, x, c);
            let q = rw.emit(q);
            let cv = rw.iconst(c);
            let p = rw.emit(InstData::Binary { op: IMul, args: [q, cv] });
            Action::Replace(InstData::Binary { op: ISub, args: [x, p] })
        }
        SDiv | SRem if (c as i32) > 1 && non_negative(rw.f, x, 8) => {
            let op = if op == SDiv { UDiv } else { URem };
            match reduce(rw, op, x, c) {
                Action::Keep => {
                    let cv = rw.iconst(c);
                    Action::Replace(InstData::Binary { op, args: [x, cv] })
                }
                a => a,
            }
        }
        _ => Action::Keep,
    }
}

/// How `x udiv d` is computed with a multiply-high.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Magic {
    /// `umulhi(x, m) >> s`
    Exact { m: u32, s: u32 },
    /// `t = umulhi(x, m); (t + ((x - t) >> 1)) >> s`
    AddHalve { m: u32, s: u32 },
}

/// The multiply-high sequence for dividing by `d` (2 <= d, not a power of two).
pub(crate) fn magic(d: u32) -> Magic {
    debug_assert!(d >= 2 && !d.is_power_of_two());
    for s in 0..32u32 {
        let p = 32 + s;
        let m = (1u128 << p).div_ceil(d as u128);
        if m >= 1 << 32 {
            break;
        }
        let e = m * d as u128 - (1u128 << p);
        if e <= 1u128 << s {
            return Magic::Exact { m: m as u32, s };
        }
    }
    let l = 32 - (d - 1).leading_zeros(); // ceil(log2 d)
    let m = ((1u128 << 32) * ((1u128 << l) - d as u128) / d as u128 + 1) as u32;
    Magic::AddHalve { m, s: l - 1 }
}

/// Evaluates `magic(d)` on `x` as the emitted code does (for tests).
#[cfg(test)]
pub(crate) fn apply(mg: Magic, x: u32) -> u32 {
    let hi = |m: u32| ((x as u64 * m as u64) >> 32) as u32;
    match mg {
        Magic::Exact { m, s } => hi(m) >> s,
        Magic::AddHalve { m, s } => {
            let t = hi(m);
            (t.wrapping_add((x - t) >> 1)) >> s
        }
    }
}

fn udiv_magic(rw: &mut Rewriter, x: Value, d: u32) -> InstData {
    use BinaryOp::*;
    let shr = |rw: &mut Rewriter, v: Value, s: u32| -> InstData {
        let sv = rw.iconst(s);
        InstData::Binary { op: LShr, args: [v, sv] }
    };
    match magic(d) {
        Magic::Exact { m, s } => {
            let mv = rw.iconst(m);
            let hi = InstData::Binary { op: UMulHi, args: [x, mv] };
            if s == 0 {
                return hi;
            }
            let t = rw.emit(hi);
            shr(rw, t, s)
        }
        Magic::AddHalve { m, s } => {
            let mv = rw.iconst(m);
            let t = rw.emit(InstData::Binary { op: UMulHi, args: [x, mv] });
            let diff = rw.emit(InstData::Binary { op: ISub, args: [x, t] });
            let half = shr(rw, diff, 1);
            let half = rw.emit(half);
            let sum = rw.emit(InstData::Binary { op: IAdd, args: [t, half] });
            // s = ceil(log2 d) - 1 >= 1 for the divisors that get here.
            shr(rw, sum, s)
        }
    }
}

/// Whether `v` is provably below 2^31 in every lane (looking `depth` definitions deep).
pub(crate) fn non_negative(f: &Function, v: Value, depth: u32) -> bool {
    use BinaryOp::*;
    if depth == 0 {
        return false;
    }
    let nn = |w: Value| non_negative(f, w, depth - 1);
    let k = |w: Value| const_of(f, w);
    match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(&InstData::Const { ty: Type::I32, bits }) => (bits as i32) >= 0,
        // Ids and sizes count threads, groups and waves: far below 2^31.
        Some(InstData::Special { .. }) => true,
        Some(&InstData::Unary { op: UnaryOp::Popcount, .. }) => true,
        Some(&InstData::Convert { op: ConvOp::ZExt16, .. }) => true,
        Some(&InstData::Binary { op, args: [a, b] }) => match op {
            LShr => k(b).is_some_and(|s| s & 31 >= 1) || nn(a),
            UDiv => k(b).is_some_and(|d| d >= 2) || nn(a),
            URem => nn(b) || k(b).is_some_and(|d| d != 0 && d <= 1 << 31),
            And | UMin => nn(a) || nn(b),
            SMax => nn(a) || nn(b),
            Or | Xor | SMin | UMax => nn(a) && nn(b),
            SDiv | SRem => nn(a) && k(b).is_some_and(|d| (d as i32) > 0),
            _ => false,
        },
        Some(&InstData::Select { args: [t, e], .. }) => nn(t) && nn(e),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_divide_exactly() {
        let mut divisors: Vec<u32> = (3..3000).filter(|d: &u32| !d.is_power_of_two()).collect();
        divisors.extend([7, 641, 6700417, 0x7fff_ffff, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 1_000_000_007, 3_000_000_000]);
        let mut xs: Vec<u32> = vec![0, 1, 2, 3, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            xs.push(seed as u32);
        }
        for &d in &divisors {
            let mg = magic(d);
            let near: Vec<u32> =
                [d - 1, d, d.wrapping_add(1), d.wrapping_mul(2).wrapping_sub(1), (u32::MAX / d) * d, (u32::MAX / d) * d - 1].to_vec();
            for &x in xs.iter().chain(&near) {
                assert_eq!(apply(mg, x), x / d, "{x} / {d} with {mg:?}");
            }
        }
        // The exact form is found where it exists (3 and 5 need no fix-up; 7 does).
        assert!(matches!(magic(3), Magic::Exact { m: 0xaaaa_aaab, s: 1 }));
        assert!(matches!(magic(7), Magic::AddHalve { .. }));
    }
}
