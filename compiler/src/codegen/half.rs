//! 16-bit packing in selection (`pack16`, spec profile only).
//!
//! Each 16-bit IR value (`f16`, `i16`) gets an H vreg: one half of a V
//! register, which the allocator packs two to a register. WAVE reads a half
//! zero-extended and writes the low 16 bits of a result into a half, so the
//! 32-bit instructions that handled a 16-bit value kept zero-extended in a
//! whole register handle it in a half unchanged.
//!
//! The lowering computes 16-bit arithmetic in 32 bits and rounds or wraps
//! (docs/language.md), which this module folds back into 16-bit operations on
//! halves where the result is the same:
//!
//! - `ftrunc16(fadd|fsub|fmul(fext16 a, fext16 b))` is `hadd|hsub|hmul a, b`
//!   (an f32 constant that is exactly a half counts as a widened half),
//!   and `ftrunc16(fma(fext16 a, fext16 b, fext16 c))` is `hma a, b, c`: WAVE's
//!   f16 instructions compute in f32 and round once to f16, as the IR does
//!   (the f32 product of two halves is exact).
//! - `trunc16(op(x, y))` for op in add, sub, mul, and, or, xor is `op` written
//!   into a half, with `zext16`/`sext16` operands read straight from their
//!   halves: the low 16 bits of these results depend only on the operands' low
//!   16 bits.
//!
//! The 32-bit intermediate must have no other use; extensions and f32
//! constants whose every use was folded are not selected at all.

use super::mir::Opcode;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// An operand of a 16-bit operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operand {
    /// The register of an IR value (a half, or any 32-bit value for integers).
    Value(Value),
    /// A half constant (its bits), for an f32 constant that is exactly a half.
    Half(u16),
}

/// A 16-bit operation replacing an IR value's convert: the opcode and what it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fused {
    pub op: Opcode,
    pub args: Vec<Operand>,
}

/// What selection does differently for 16-bit values.
#[derive(Clone, Debug, Default)]
pub(super) struct HalfOps {
    /// Results of `ftrunc16`/`trunc16` computed by one 16-bit operation.
    pub fused: BTreeMap<Value, Fused>,
    /// Values not selected: folded intermediates and extensions only they read.
    pub skip: BTreeSet<Value>,
}

/// How often each value is read (instructions and terminators of `order`).
fn use_counts(f: &Function, order: &[Block]) -> BTreeMap<Value, u32> {
    let mut n = BTreeMap::new();
    for &b in order {
        let block = &f.blocks[b];
        let args = block.insts.iter().flat_map(|&i| f.insts[i].args()).chain(block.term.args());
        for a in args {
            *n.entry(a).or_insert(0) += 1;
        }
    }
    n
}

/// The instruction defining `v`, if any.
fn def(f: &Function, v: Value) -> Option<&InstData> {
    f.def_inst(v).map(|i| &f.insts[i])
}

/// The 16-bit operand `v` extends (`fext16` or a half-exact f32 constant when
/// `float`, else `zext16`/`sext16`).
fn extended(f: &Function, v: Value, float: bool) -> Option<Operand> {
    match *def(f, v)? {
        InstData::Convert { op: ConvOp::F16ToF32, arg } if float => Some(Operand::Value(arg)),
        InstData::Const { ty: Type::F32, bits } if float => {
            let x = f32::from_bits(bits);
            let h = half::f16::from_f32(x);
            (x.is_finite() && h.to_f32().to_bits() == bits).then_some(Operand::Half(h.to_bits()))
        }
        InstData::Convert { op: ConvOp::ZExt16 | ConvOp::SExt16, arg } if !float => Some(Operand::Value(arg)),
        _ => None,
    }
}

/// Finds the 16-bit operations of `f` (blocks in `order`).
pub(super) fn find(f: &Function, order: &[Block]) -> HalfOps {
    let uses = use_counts(f, order);
    let mut h = HalfOps::default();
    // Reads of each extension by folded intermediates.
    let mut folded_reads: BTreeMap<Value, u32> = BTreeMap::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            let (Some(r), InstData::Convert { op, arg: x }) = (f.results[i], &f.insts[i]) else { continue };
            let x = *x;
            if uses.get(&x) != Some(&1) {
                continue;
            }
            let (code, args, float) = match (op, def(f, x)) {
                (ConvOp::F32ToF16, Some(InstData::Binary { op, args })) => {
                    let code = match op {
                        BinaryOp::FAdd => Opcode::Hadd,
                        BinaryOp::FSub => Opcode::Hsub,
                        BinaryOp::FMul => Opcode::Hmul,
                        _ => continue,
                    };
                    (code, args.to_vec(), true)
                }
                (ConvOp::F32ToF16, Some(InstData::Ternary { op: TernaryOp::Fma, args })) => (Opcode::Hma, args.to_vec(), true),
                (ConvOp::Trunc16, Some(InstData::Binary { op, args })) => {
                    let code = match op {
                        BinaryOp::IAdd => Opcode::Iadd,
                        BinaryOp::ISub => Opcode::Isub,
                        BinaryOp::IMul => Opcode::Imul,
                        BinaryOp::And => Opcode::And,
                        BinaryOp::Or => Opcode::Or,
                        BinaryOp::Xor => Opcode::Xor,
                        _ => continue,
                    };
                    (code, args.to_vec(), false)
                }
                _ => continue,
            };
            // Float operands must all be halves; integer ones may stay 32-bit.
            let halves: Vec<Option<Operand>> = args.iter().map(|&a| extended(f, a, float)).collect();
            if float && halves.iter().any(Option::is_none) {
                continue;
            }
            for (&a, hv) in args.iter().zip(&halves) {
                if hv.is_some() {
                    *folded_reads.entry(a).or_insert(0) += 1;
                }
            }
            let args = args.iter().zip(&halves).map(|(&a, hv)| hv.unwrap_or(Operand::Value(a))).collect();
            h.fused.insert(r, Fused { op: code, args });
            h.skip.insert(x);
        }
    }
    for (v, n) in folded_reads {
        if uses.get(&v) == Some(&n) {
            h.skip.insert(v);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Function {
        crate::ir::parse_function(text).expect("parses")
    }

    fn names(args: &[Operand]) -> Vec<String> {
        args.iter()
            .map(|a| match a {
                Operand::Value(v) => v.to_string(),
                Operand::Half(bits) => format!("{bits:#06x}"),
            })
            .collect()
    }

    #[test]
    fn half_constants_are_operands() {
        // 0.5 is a half (0x3800); 0.1 is not, so that subtraction stays in f32.
        let f = parse(
            "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:f16 = load.device.f16 [v0]
      v2:f32 = fext16 v1
      v3:f32 = fconst 0.5
      v4:f32 = fadd v2, v3
      v5:f16 = ftrunc16 v4
      v6:f32 = fconst 0.1
      v7:f32 = fsub v2, v6
      v8:f16 = ftrunc16 v7
      store.device [v0], v5
      store.device [v0], v8
      return
}
",
        );
        let h = run(&f);
        assert_eq!(h.fused.len(), 1);
        assert_eq!(names(&h.fused.values().next().expect("a fold").args), ["v1", "0x3800"]);
    }

    fn run(f: &Function) -> HalfOps {
        let nodes = crate::ir::structure::region_tree(f).expect("structured");
        find(f, &crate::ir::structure::block_order(&nodes))
    }

    #[test]
    fn float_chains_become_half_operations() {
        let f = parse(
            "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:f16 = load.device.f16 [v0]
      v2:f16 = load.device.f16 [v0]
      v3:f32 = fext16 v1
      v4:f32 = fext16 v2
      v5:f32 = fmul v3, v4
      v6:f16 = ftrunc16 v5
      v7:f32 = fadd v3, v4
      v8:f16 = ftrunc16 v7
      store.device [v0], v6
      store.device [v0], v8
      return
}
",
        );
        let h = run(&f);
        let ids: Vec<(String, Opcode, Vec<String>)> = h.fused.iter().map(|(v, x)| (v.to_string(), x.op, names(&x.args))).collect();
        assert_eq!(
            ids,
            vec![
                ("v6".to_string(), Opcode::Hmul, vec!["v1".to_string(), "v2".to_string()]),
                ("v8".to_string(), Opcode::Hadd, vec!["v1".to_string(), "v2".to_string()]),
            ]
        );
        // The intermediates and the extensions only they read are not selected.
        let skipped: Vec<String> = h.skip.iter().map(|v| v.to_string()).collect();
        assert_eq!(skipped, ["v3", "v4", "v5", "v7"]);
    }

    #[test]
    fn shared_intermediates_and_other_ops_stay() {
        // v5 is read twice (no fold); fdiv has no 16-bit instruction; v3 is read by an unfolded op.
        let f = parse(
            "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:f16 = load.device.f16 [v0]
      v3:f32 = fext16 v1
      v5:f32 = fadd v3, v3
      v6:f16 = ftrunc16 v5
      v7:f16 = ftrunc16 v5
      v8:f32 = fdiv v3, v3
      v9:f16 = ftrunc16 v8
      store.device [v0], v6
      store.device [v0], v7
      store.device [v0], v9
      return
}
",
        );
        let h = run(&f);
        assert!(h.fused.is_empty());
        assert!(h.skip.is_empty());
    }

    #[test]
    fn integer_ops_read_halves_or_words() {
        let f = parse(
            "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i16 = load.device.i16 [v0]
      v2:i32 = sext16 v1
      v3:i32 = iconst 7
      v4:i32 = iadd v2, v3
      v5:i16 = trunc16 v4
      v6:i32 = smax v2, v3
      store.device [v0], v5
      store.device [v0], v6
      return
}
",
        );
        let h = run(&f);
        let x = h.fused.values().next().expect("one fold");
        assert_eq!(x.op, Opcode::Iadd);
        assert_eq!(names(&x.args), ["v1", "v3"]);
        // v2 is still read by smax: selected.
        assert_eq!(h.skip.iter().map(|v| v.to_string()).collect::<Vec<_>>(), ["v4"]);
    }
}
