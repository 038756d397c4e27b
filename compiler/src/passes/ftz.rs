//! `-denorm ftz`: D3D's fp32 denormal rule on an IEEE machine.
//!
//! D3D requires fp32 arithmetic to flush denormal inputs and results to zero of
//! the same sign; moves (loads, stores, copies, selects, bit casts) and the
//! `abs`/negate modifiers keep them. WAVE computes IEEE denormals, so this pass
//! flushes every f32 operand and f32 result of an arithmetic instruction with
//! `|x| < FLT_MIN ? x * 0 : x` (NaN and infinities pass; `x * 0` keeps the sign).
//! Runs right after lowering; later passes share repeated flushes of one value.

use std::collections::BTreeMap;

use crate::diag::Span;
use crate::ir::*;

/// Does `data` compute with floats (so that D3D flushes what it reads and writes)?
fn is_float_arith(f: &Function, data: &InstData) -> bool {
    let f32_arg = |v: &Value| f.value_type(*v) == Type::F32;
    match data {
        InstData::Unary { op, arg } => !matches!(op, UnaryOp::FNeg | UnaryOp::FAbs) && f32_arg(arg),
        InstData::Binary { args, .. } | InstData::Cmp { args, .. } => f32_arg(&args[0]),
        InstData::Ternary { args, .. } => f32_arg(&args[0]),
        InstData::Convert { op, .. } => matches!(op, ConvOp::FToSI | ConvOp::FToUI | ConvOp::F32ToF16),
        InstData::WaveReduce { arg, .. } | InstData::WavePrefix { arg, .. } => f32_arg(arg),
        _ => false,
    }
}

/// An f32 constant that is exactly a finite half.
fn half_constant(bits: u32) -> bool {
    let x = f32::from_bits(bits);
    x.is_finite() && half::f16::from_f32(x).to_f32().to_bits() == bits
}

/// Whether `v` can never be an fp32 denormal because it is a half widened
/// (`fext16`, a half-exact constant) or the sum, difference, product or fma
/// of such values: nonzero results are multiples of 2^-48, far above FLT_MIN.
/// Half arithmetic (computed in f32 and rounded, see docs/language.md) thus
/// needs no flushes, and stays recognizable for 16-bit packing.
fn never_denormal(f: &Function, v: Value) -> bool {
    let widened = |v: Value| match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(InstData::Convert { op: ConvOp::F16ToF32, .. }) => true,
        Some(&InstData::Const { ty: Type::F32, bits }) => half_constant(bits),
        _ => false,
    };
    if widened(v) {
        return true;
    }
    match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(InstData::Binary { op: BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul, args }) => args.iter().all(|&a| widened(a)),
        Some(InstData::Ternary { op: TernaryOp::Fma, args }) => args.iter().all(|&a| widened(a)),
        _ => false,
    }
}

/// Appends `|x| < FLT_MIN ? x * 0 : x` to `out`; returns the flushed value and the
/// instructions that read `x`.
fn flush(f: &mut Function, block: Block, x: Value, span: Span, out: &mut Vec<Inst>) -> (Value, Vec<Inst>) {
    let mut emit = |f: &mut Function, data: InstData| -> Value {
        let v = f.append_inst(block, data, span).expect("flush instructions have results");
        let inst = f.blocks[block].insts.pop().expect("just appended");
        out.push(inst);
        v
    };
    let a = emit(f, InstData::Unary { op: UnaryOp::FAbs, arg: x });
    let min = emit(f, InstData::Const { ty: Type::F32, bits: f32::MIN_POSITIVE.to_bits() });
    let small = emit(f, InstData::Cmp { op: CmpOp::FLt, args: [a, min] });
    let zero = emit(f, InstData::Const { ty: Type::F32, bits: 0 });
    let z = emit(f, InstData::Binary { op: BinaryOp::FMul, args: [x, zero] });
    let r = emit(f, InstData::Select { ty: Type::F32, cond: small, args: [z, x] });
    let n = out.len();
    // fabs, fmul and select read x.
    (r, vec![out[n - 6], out[n - 2], out[n - 1]])
}

/// Flushes the f32 operands and results of every float arithmetic instruction.
pub fn flush_denormals(f: &mut Function) -> bool {
    let blocks: Vec<Block> = f.blocks.keys().collect();
    let mut results: BTreeMap<Value, Value> = BTreeMap::new();
    let mut readers: Vec<(Vec<Inst>, Value, Value)> = Vec::new();
    let mut changed = false;
    for b in blocks {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            if !is_float_arith(f, &f.insts[inst]) {
                out.push(inst);
                continue;
            }
            changed = true;
            let span = f.spans[inst];
            let args = f.insts[inst].args();
            let mut flushed: BTreeMap<Value, Value> = BTreeMap::new();
            for a in args {
                if f.value_type(a) == Type::F32 && !flushed.contains_key(&a) && !never_denormal(f, a) {
                    let (r, _) = flush(f, b, a, span, &mut out);
                    flushed.insert(a, r);
                }
            }
            f.insts[inst].map_args(|a| flushed.get(&a).copied().unwrap_or(a));
            out.push(inst);
            if let Some(res) = f.results[inst].filter(|&r| f.value_type(r) == Type::F32 && !never_denormal(f, r)) {
                let (r, reads) = flush(f, b, res, span, &mut out);
                results.insert(res, r);
                readers.push((reads, res, r));
            }
        }
        f.blocks[b].insts = out;
    }
    // Every later use of a result reads its flushed value, except the flush itself.
    f.replace_uses(&results);
    for (insts, res, flushed) in readers {
        for i in insts {
            f.insts[i].map_args(|a| if a == flushed { res } else { a });
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function, print_function, verify};

    #[test]
    fn half_arithmetic_is_not_flushed() {
        // fext16 operands, a half constant (0.5) and their product need no flush; the
        // f32 load and 0.1 (not a half) do.
        let src = "kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:f16 = load.device.f16 [v0]\n      v2:f32 = fext16 v1\n      v3:f32 = fconst 0.5\n      v4:f32 = fmul v2, v3\n      v5:f16 = ftrunc16 v4\n      store.device [v0], v5\n      v6:f32 = load.device.f32 [v0]\n      v7:f32 = fconst 0.1\n      v8:f32 = fadd v6, v7\n      store.device [v0], v8\n      return\n}\n";
        let mut f = parse_function(src).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(flush_denormals(&mut f));
        verify(&f).unwrap_or_else(|e| panic!("{e:?}"));
        let text = print_function(&f, &|_| None);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        assert!(lines.iter().any(|l| l.ends_with("= fmul v2, v3")), "{text}");
        assert!(lines.iter().any(|l| l.ends_with("= ftrunc16 v4")), "{text}");
        // Three flushes (v6, v7 and the sum): three selects.
        assert_eq!(text.matches("select").count(), 3, "{text}");
    }

    #[test]
    fn operands_and_results_of_arithmetic_are_flushed_moves_are_not() {
        let src = "kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:f32 = load.device.f32 [v0]\n      v2:f32 = fabs v1\n      v3:f32 = fadd v1, v2\n      store.device [v0], v3\n      store.device [v0], v2\n      return\n}\n";
        let mut f = parse_function(src).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(flush_denormals(&mut f));
        verify(&f).unwrap_or_else(|e| panic!("{e:?}"));
        let text = print_function(&f, &|_| None);
        // fabs (a move with a modifier) reads the raw load; fadd reads flushed operands
        // and its result is flushed before the store.
        assert_eq!(text.matches("fmul").count(), 3, "{text}");
        assert_eq!(text.matches("select").count(), 3, "{text}");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        assert!(lines.iter().any(|l| l.ends_with("= fabs v1")), "{text}");
        let store_v3 = lines.iter().position(|l| l.starts_with("store.device [v0]")).expect("store");
        assert!(!lines[store_v3].ends_with("v3"), "the stored sum is the flushed one: {text}");
    }
}
