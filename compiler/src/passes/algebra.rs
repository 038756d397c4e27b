//! Algebraic simplification (`simplify`): identities that hold for every
//! input under the IR's semantics (wrapping 32-bit integers, shift counts
//! taken mod 32, IEEE floats), and a canonical form that later passes rely
//! on: constants on the right of commutative operations and compares,
//! `x - c` as `x + (-c)`, chains of constant operations collapsed.
//!
//! Floats are left alone except `fneg (fneg x)`: `x * 1.0` or `x + 0.0` are
//! not identities under every denormal mode and for every NaN payload.
//! Instructions are rewritten in place or forwarded; nothing moves.

use super::edit::{const_of, rewrite, Action, Rewriter};
use super::PassContext;
use crate::ir::*;

/// The `simplify` pass: a few sweeps, since one rewrite can enable another.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let mut changed = false;
    for _ in 0..4 {
        if !rewrite(f, &mut |rw, _inst, data| simplify(rw, data)) {
            break;
        }
        changed = true;
    }
    changed
}

/// The defining instruction of `v`, if any.
fn def(f: &Function, v: Value) -> Option<&InstData> {
    f.def_inst(v).map(|i| &f.insts[i])
}

fn simplify(rw: &mut Rewriter, data: &InstData) -> Action {
    let f = &*rw.f;
    let k = |v: Value| const_of(f, v);
    match *data {
        InstData::Binary { op, args: [a, b] } => binary(rw, op, a, b),
        InstData::Unary { op, arg } => match (op, def(f, arg)) {
            (UnaryOp::INeg, Some(&InstData::Unary { op: UnaryOp::INeg, arg: x }))
            | (UnaryOp::INot, Some(&InstData::Unary { op: UnaryOp::INot, arg: x }))
            | (UnaryOp::BNot, Some(&InstData::Unary { op: UnaryOp::BNot, arg: x }))
            | (UnaryOp::FNeg, Some(&InstData::Unary { op: UnaryOp::FNeg, arg: x })) => Action::Forward(x),
            (UnaryOp::BNot, Some(&InstData::Cmp { op, args })) => match op.inverse() {
                Some(inv) => Action::Replace(InstData::Cmp { op: inv, args }),
                None => Action::Keep,
            },
            _ => Action::Keep,
        },
        InstData::Cmp { op, args: [a, b] } => {
            if a == b && op.operand_type() == Type::I32 {
                use CmpOp::*;
                let t = matches!(op, Eq | SLe | SGe | ULe | UGe);
                return Action::Replace(InstData::Const { ty: Type::Bool, bits: t as u32 });
            }
            if k(a).is_some() && k(b).is_none() {
                return Action::Replace(InstData::Cmp { op: op.swapped(), args: [b, a] });
            }
            // (x + c1) == c2  <=>  x == c2 - c1 (wrapping addition is a bijection).
            if let (CmpOp::Eq | CmpOp::Ne, Some(c2), Some(&InstData::Binary { op: BinaryOp::IAdd, args: [x, c] })) = (op, k(b), def(f, a)) {
                if let Some(c1) = k(c) {
                    let d = rw.iconst(c2.wrapping_sub(c1));
                    return Action::Replace(InstData::Cmp { op, args: [x, d] });
                }
            }
            Action::Keep
        }
        InstData::Select { ty, cond, args: [t, e] } => {
            if let Some(&InstData::Unary { op: UnaryOp::BNot, arg: c }) = def(f, cond) {
                return Action::Replace(InstData::Select { ty, cond: c, args: [e, t] });
            }
            if ty != Type::Bool {
                return Action::Keep;
            }
            match (k(t), k(e)) {
                (Some(1), Some(0)) => Action::Forward(cond),
                (Some(0), Some(1)) => Action::Replace(InstData::Unary { op: UnaryOp::BNot, arg: cond }),
                (_, Some(0)) => Action::Replace(InstData::Binary { op: BinaryOp::BAnd, args: [cond, t] }),
                (Some(1), _) => Action::Replace(InstData::Binary { op: BinaryOp::BOr, args: [cond, e] }),
                _ => Action::Keep,
            }
        }
        InstData::Bitcast { ty, arg } => match def(f, arg) {
            Some(&InstData::Bitcast { arg: x, .. }) if f.value_type(x) == ty => Action::Forward(x),
            _ => Action::Keep,
        },
        _ => Action::Keep,
    }
}

fn binary(rw: &mut Rewriter, op: BinaryOp, a: Value, b: Value) -> Action {
    use BinaryOp::*;
    let f = &*rw.f;
    let k = |v: Value| const_of(f, v);
    let (ka, kb) = (k(a), k(b));
    // Constants to the right.
    if op.is_commutative() && ka.is_some() && kb.is_none() {
        return Action::Replace(InstData::Binary { op, args: [b, a] });
    }
    let zero = || InstData::Const { ty: Type::I32, bits: 0 };
    if a == b {
        match op {
            ISub | Xor => return Action::Replace(zero()),
            And | Or | SMin | SMax | UMin | UMax | BAnd | BOr => return Action::Forward(a),
            BXor => return Action::Replace(InstData::Const { ty: Type::Bool, bits: 0 }),
            _ => {}
        }
    }
    if let Some(c) = kb {
        match (op, c) {
            (IMul | And, 0) => return Action::Replace(zero()),
            (Or, u32::MAX) => return Action::Replace(InstData::Const { ty: Type::I32, bits: u32::MAX }),
            (And, u32::MAX) => return Action::Forward(a),
            (IMul, u32::MAX) => return Action::Replace(InstData::Unary { op: UnaryOp::INeg, arg: a }),
            (URem, 1) => return Action::Replace(zero()),
            (SRem, 1 | u32::MAX) => return Action::Replace(zero()),
            (BAnd, 0) | (BOr, 1) => return Action::Replace(InstData::Const { ty: Type::Bool, bits: c }),
            (BXor, 0) => return Action::Forward(a),
            (BXor, 1) => return Action::Replace(InstData::Unary { op: UnaryOp::BNot, arg: a }),
            (ISub, _) if c != 0 => {
                let n = rw.iconst(c.wrapping_neg());
                return Action::Replace(InstData::Binary { op: IAdd, args: [a, n] });
            }
            // Shift counts are taken mod 32.
            (Shl | LShr | AShr, _) if c > 31 => {
                let n = rw.iconst(c & 31);
                return Action::Replace(InstData::Binary { op, args: [a, n] });
            }
            _ => {}
        }
        // (x op c2) op c  ->  x op (c2 op' c)
        if let Some(&InstData::Binary { op: inner, args: [x, c2v] }) = def(f, a) {
            if let Some(c2) = k(c2v) {
                let merged = match (op, inner) {
                    (IAdd, IAdd) => Some((IAdd, c2.wrapping_add(c))),
                    (IMul, IMul) => Some((IMul, c2.wrapping_mul(c))),
                    (And, And) => Some((And, c2 & c)),
                    (Or, Or) => Some((Or, c2 | c)),
                    (Xor, Xor) => Some((Xor, c2 ^ c)),
                    (Shl, Shl) | (LShr, LShr) if c < 32 && c2 < 32 => {
                        if c + c2 >= 32 {
                            return Action::Replace(zero());
                        }
                        Some((op, c + c2))
                    }
                    (AShr, AShr) if c < 32 && c2 < 32 => Some((AShr, (c + c2).min(31))),
                    _ => None,
                };
                if let Some((op, bits)) = merged {
                    let n = rw.iconst(bits);
                    return Action::Replace(InstData::Binary { op, args: [x, n] });
                }
            }
        }
    }
    match (op, ka) {
        (ISub, Some(0)) => return Action::Replace(InstData::Unary { op: UnaryOp::INeg, arg: b }),
        (BAnd, Some(0)) | (BOr, Some(1)) => return Action::Replace(InstData::Const { ty: Type::Bool, bits: ka.unwrap_or(0) }),
        _ => {}
    }
    // x + (-y)  ->  x - y
    if op == IAdd {
        if let Some(&InstData::Unary { op: UnaryOp::INeg, arg: y }) = def(f, b) {
            return Action::Replace(InstData::Binary { op: ISub, args: [a, y] });
        }
    }
    Action::Keep
}
