//! Constant folding (`fold-constants`): operations on constants are
//! evaluated, and a few identities forward an operand (`x + 0`, `x * 1`,
//! `select c, x, x`, a select on a constant). Semantics follow the WAVE spec
//! (wrapping integers, IEEE f32, division by zero left to run time). The
//! evaluation functions are shared with the passes that simulate code
//! (`unroll`).
//!
//! Nothing moves: an instruction is rewritten in place (a wave op whose every
//! lane holds the same constant becomes that constant) or, when forwarded,
//! deleted, so the convergence rule of the `ir` module holds.

use super::PassContext;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// The `fold-constants` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    fold_constants(f)
}

/// Folds constants and simplifies identities until nothing changes; returns
/// whether anything changed.
pub fn fold_constants(f: &mut Function) -> bool {
    let mut changed = false;
    // Each round can expose more constants; the bound only guards against a bug.
    for _ in 0..64 {
        if !fold_round(f) {
            break;
        }
        changed = true;
    }
    changed
}

fn fold_round(f: &mut Function) -> bool {
    let mut changed = false;
    let Ok(nodes) = region_tree(f) else { return false };
    // Region order: definitions before uses, so one round carries constants through chains.
    let insts: Vec<Inst> = block_order(&nodes).iter().flat_map(|&b| f.blocks[b].insts.clone()).collect();
    let mut replace: BTreeMap<Value, Value> = BTreeMap::new();
    let mut dead: BTreeSet<Inst> = BTreeSet::new();
    for inst in insts {
        let Some(result) = f.results[inst] else { continue };
        if matches!(f.insts[inst], InstData::Const { .. }) {
            continue;
        }
        let data = f.insts[inst].clone();
        let mut data = data;
        data.map_args(|a| *replace.get(&a).unwrap_or(&a));
        let konst = |v: Value| -> Option<u32> {
            match f.def_inst(v).map(|i| &f.insts[i]) {
                Some(InstData::Const { bits, .. }) => Some(*bits),
                _ => None,
            }
        };
        let folded = eval(&data, &konst);
        if let Some((ty, bits)) = folded {
            f.insts[inst] = InstData::Const { ty, bits };
            changed = true;
            continue;
        }
        // Identities that forward an operand.
        let forward = match data {
            InstData::Select { cond, args, .. } => {
                konst(cond).map(|c| if c != 0 { args[0] } else { args[1] }).or((args[0] == args[1]).then_some(args[0]))
            }
            InstData::Binary { op, args } => {
                let (a, b) = (args[0], args[1]);
                match (op, konst(a), konst(b)) {
                    (
                        BinaryOp::IAdd | BinaryOp::Or | BinaryOp::Xor | BinaryOp::ISub | BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr,
                        _,
                        Some(0),
                    ) => Some(a),
                    (BinaryOp::IAdd | BinaryOp::Or | BinaryOp::Xor, Some(0), _) => Some(b),
                    (BinaryOp::IMul, _, Some(1)) | (BinaryOp::SDiv | BinaryOp::UDiv, _, Some(1)) => Some(a),
                    (BinaryOp::IMul, Some(1), _) => Some(b),
                    (BinaryOp::BAnd, _, Some(1)) | (BinaryOp::BOr, _, Some(0)) => Some(a),
                    (BinaryOp::BAnd, Some(1), _) | (BinaryOp::BOr, Some(0), _) => Some(b),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(to) = forward {
            replace.insert(result, to);
            dead.insert(inst);
            changed = true;
        }
    }
    f.replace_uses(&replace);
    // Forwarded instructions have no uses left.
    for b in f.blocks.values_mut() {
        b.insts.retain(|i| !dead.contains(i));
    }
    changed
}

/// The constant an instruction computes when `konst` knows its operands, if
/// it can be computed exactly on the host.
pub(crate) fn eval(data: &InstData, konst: &dyn Fn(Value) -> Option<u32>) -> Option<(Type, u32)> {
    match *data {
        InstData::Const { ty, bits } => Some((ty, bits)),
        InstData::Unary { op, arg } => konst(arg).and_then(|a| fold_unary(op, a)),
        InstData::Binary { op, args } => match (konst(args[0]), konst(args[1])) {
            (Some(a), Some(b)) => fold_binary(op, a, b).map(|r| (op.types().1, r)),
            _ => None,
        },
        InstData::Cmp { op, args } => match (konst(args[0]), konst(args[1])) {
            (Some(a), Some(b)) => Some((Type::Bool, fold_cmp(op, a, b) as u32)),
            _ => None,
        },
        InstData::Convert { op, arg } => konst(arg).map(|a| (op.types().1, fold_convert(op, a))),
        InstData::Ternary { op, args } => match (konst(args[0]), konst(args[1]), konst(args[2])) {
            (Some(a), Some(b), Some(c)) => Some((op.ty(), fold_ternary(op, a, b, c))),
            _ => None,
        },
        InstData::Bitcast { ty, arg } => konst(arg).map(|a| (ty, a)),
        // Every active lane holds the same constant: reading any of them, or an
        // idempotent reduction over them, gives that constant. (No code moves.)
        InstData::WaveReadFirst { ty, arg } | InstData::WaveReadLane { ty, arg, .. } => konst(arg).map(|a| (ty, a)),
        InstData::WaveReduce { op, arg } if op.is_idempotent() => konst(arg).map(|a| (op.ty(), a)),
        _ => None,
    }
}

/// Folds exact operations only: transcendentals, `frcp` and `frsqrt` are left to
/// the target, whose precision may differ from the host's.
pub(crate) fn fold_unary(op: UnaryOp, a: u32) -> Option<(Type, u32)> {
    use UnaryOp::*;
    let x = f32::from_bits(a);
    let float = |y: f32| Some((Type::F32, y.to_bits()));
    let int = |y: u32| Some((Type::I32, y));
    match op {
        INeg => int(a.wrapping_neg()),
        INot => int(!a),
        FNeg => float(-x),
        BNot => Some((Type::Bool, (a == 0) as u32)),
        FAbs => Some((Type::F32, a & 0x7fff_ffff)),
        FSqrt => float(x.sqrt()),
        FFloor => float(x.floor()),
        FCeil => float(x.ceil()),
        FRound => float(x.round_ties_even()),
        FTrunc => float(x.trunc()),
        FFract => float(x - x.floor()),
        // The sign of a zero result is target-defined (max(-0, +0)): leave zeros alone.
        FSat if x == 0.0 => None,
        FSat => float(if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }),
        FRsqrt | FRcp | FSin | FCos | FExp2 | FLog2 => None,
        IAbs => int((a as i32).wrapping_abs() as u32),
        Popcount => int(a.count_ones()),
        BitRev => int(a.reverse_bits()),
        UFirstBitHigh => int(first_bit_high(a)),
        SFirstBitHigh => int(first_bit_high(if (a as i32) < 0 { !a } else { a })),
        FirstBitLow => int(if a == 0 { u32::MAX } else { a.trailing_zeros() }),
    }
}

fn first_bit_high(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        31 - a.leading_zeros()
    }
}

pub(crate) fn fold_binary(op: BinaryOp, a: u32, b: u32) -> Option<u32> {
    use BinaryOp::*;
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    Some(match op {
        IAdd => a.wrapping_add(b),
        ISub => a.wrapping_sub(b),
        IMul => a.wrapping_mul(b),
        // Division by zero is left to run time (its result is target-defined).
        SDiv if b != 0 => (a as i32).wrapping_div(b as i32) as u32,
        SRem if b != 0 => (a as i32).wrapping_rem(b as i32) as u32,
        UDiv if b != 0 => a / b,
        URem if b != 0 => a % b,
        SDiv | SRem | UDiv | URem => return None,
        And | BAnd => a & b,
        Or | BOr => a | b,
        Xor | BXor => a ^ b,
        Shl => a.wrapping_shl(b & 31),
        LShr => a.wrapping_shr(b & 31),
        AShr => ((a as i32) >> (b & 31)) as u32,
        FAdd => (fa + fb).to_bits(),
        FSub => (fa - fb).to_bits(),
        FMul => (fa * fb).to_bits(),
        FDiv if fb != 0.0 => (fa / fb).to_bits(),
        FRem if fb != 0.0 => (fa % fb).to_bits(),
        FDiv | FRem => return None,
        SMin => (a as i32).min(b as i32) as u32,
        SMax => (a as i32).max(b as i32) as u32,
        UMin => a.min(b),
        UMax => a.max(b),
        // min(-0, +0) is target-defined.
        FMin | FMax if fa == 0.0 && fb == 0.0 && a != b => return None,
        FMin => fa.min(fb).to_bits(),
        FMax => fa.max(fb).to_bits(),
        UMulHi => ((a as u64 * b as u64) >> 32) as u32,
    })
}

pub(crate) fn fold_ternary(op: TernaryOp, a: u32, b: u32, c: u32) -> u32 {
    match op {
        // Fused, as WAVE's `fma`.
        TernaryOp::Fma => f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)).to_bits(),
    }
}

pub(crate) fn fold_cmp(op: CmpOp, a: u32, b: u32) -> bool {
    use CmpOp::*;
    let (sa, sb) = (a as i32, b as i32);
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    match op {
        Eq => a == b,
        Ne => a != b,
        SLt => sa < sb,
        SLe => sa <= sb,
        SGt => sa > sb,
        SGe => sa >= sb,
        ULt => a < b,
        ULe => a <= b,
        UGt => a > b,
        UGe => a >= b,
        FEq => fa == fb,
        FNe => fa != fb,
        FLt => fa < fb,
        FLe => fa <= fb,
        FGt => fa > fb,
        FGe => fa >= fb,
    }
}

pub(crate) fn fold_convert(op: ConvOp, a: u32) -> u32 {
    match op {
        ConvOp::SIToF => (a as i32 as f32).to_bits(),
        ConvOp::UIToF => (a as f32).to_bits(),
        // Rust's `as` truncates and saturates (NaN to 0), as WAVE's cvt does.
        ConvOp::FToSI => f32::from_bits(a) as i32 as u32,
        ConvOp::FToUI => f32::from_bits(a) as u32,
        ConvOp::F16ToF32 => half::f16::from_bits(a as u16).to_f32().to_bits(),
        ConvOp::F32ToF16 => half::f16::from_f32(f32::from_bits(a)).to_bits() as u32,
        ConvOp::SExt16 => a as u16 as i16 as i32 as u32,
        ConvOp::ZExt16 => a & 0xffff,
        ConvOp::Trunc16 => a & 0xffff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_wrapping_and_signed_ops() {
        assert_eq!(fold_binary(BinaryOp::IAdd, u32::MAX, 1), Some(0));
        assert_eq!(fold_binary(BinaryOp::SDiv, (-7i32) as u32, 2), Some((-3i32) as u32));
        assert_eq!(fold_binary(BinaryOp::SRem, (-7i32) as u32, 2), Some((-1i32) as u32));
        assert_eq!(fold_binary(BinaryOp::UDiv, 7, 0), None);
        assert_eq!(fold_binary(BinaryOp::AShr, 0x8000_0000, 31), Some(u32::MAX));
        assert!(fold_cmp(CmpOp::FNe, f32::NAN.to_bits(), f32::NAN.to_bits()));
        assert!(!fold_cmp(CmpOp::FGe, f32::NAN.to_bits(), 0));
        assert_eq!(fold_convert(ConvOp::FToSI, (-2.7f32).to_bits()), (-2i32) as u32);
    }

    #[test]
    fn folds_the_new_math_ops() {
        let f = |x: f32| x.to_bits();
        assert_eq!(fold_unary(UnaryOp::FRound, f(2.5)), Some((Type::F32, f(2.0))));
        assert_eq!(fold_unary(UnaryOp::FRound, f(-3.5)), Some((Type::F32, f(-4.0))));
        assert_eq!(fold_unary(UnaryOp::FFract, f(-1.25)), Some((Type::F32, f(0.75))));
        assert_eq!(fold_unary(UnaryOp::FSat, f32::NAN.to_bits()), Some((Type::F32, 0)));
        assert_eq!(fold_unary(UnaryOp::FSat, f(-0.0)), None);
        assert_eq!(fold_unary(UnaryOp::FSin, f(1.0)), None);
        assert_eq!(fold_unary(UnaryOp::UFirstBitHigh, 0), Some((Type::I32, u32::MAX)));
        assert_eq!(fold_unary(UnaryOp::UFirstBitHigh, 0x10), Some((Type::I32, 4)));
        assert_eq!(fold_unary(UnaryOp::SFirstBitHigh, (-1i32) as u32), Some((Type::I32, u32::MAX)));
        assert_eq!(fold_unary(UnaryOp::SFirstBitHigh, (-16i32) as u32), Some((Type::I32, 3)));
        assert_eq!(fold_unary(UnaryOp::FirstBitLow, 0x18), Some((Type::I32, 3)));
        assert_eq!(fold_binary(BinaryOp::UMulHi, u32::MAX, u32::MAX), Some(u32::MAX - 1));
        assert_eq!(fold_binary(BinaryOp::SMin, u32::MAX, 1), Some(u32::MAX));
        assert_eq!(fold_binary(BinaryOp::UMin, u32::MAX, 1), Some(1));
        assert_eq!(fold_binary(BinaryOp::FMin, f32::NAN.to_bits(), f(2.0)), Some(f(2.0)));
        assert_eq!(fold_binary(BinaryOp::FMax, f(-0.0), f(0.0)), None);
        assert_eq!(fold_ternary(TernaryOp::Fma, f(2.0), f(3.0), f(1.0)), f(7.0));
    }
}
