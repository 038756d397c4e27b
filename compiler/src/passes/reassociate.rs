//! Reassociation (`reassociate`): constant offsets move outward through
//! address arithmetic, so that the addresses of `a[i]`, `a[i + 1]` and
//! `a[i - w]` become `base + 4*i` plus a constant each, and `gvn` computes
//! `base + 4*i` once. All rules are identities of wrapping 32-bit arithmetic:
//!
//! * `(x + c) << k`  ->  `(x << k) + (c << k)`
//! * `(x + c) * m`   ->  `x * m + c * m`
//! * `(x + c) + y`   ->  `(x + y) + c`, and `y + (x + c)` likewise
//!
//! A rule applies only when the inner `x + c` has no other use, so the
//! instruction count never grows; `simplify` then folds `(... + c1) + c2`.

use super::edit::{const_of, rewrite, use_counts, Action};
use super::PassContext;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;

/// The `reassociate` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let mut changed = false;
    // Each sweep moves a constant one level out.
    for _ in 0..8 {
        let Ok(nodes) = region_tree(f) else { break };
        let uses = use_counts(f, &block_order(&nodes));
        let step = rewrite(f, &mut |rw, _inst, data| {
            let InstData::Binary { op, args: [a, b] } = *data else { return Action::Keep };
            let f = &*rw.f;
            // `x + c` with a constant c and no other use.
            let offset = |v: Value| -> Option<(Value, u32)> {
                match f.def_inst(v).map(|i| &f.insts[i]) {
                    Some(&InstData::Binary { op: BinaryOp::IAdd, args: [x, c] }) if uses[v] == 1 && const_of(f, x).is_none() => {
                        const_of(f, c).map(|c| (x, c))
                    }
                    _ => None,
                }
            };
            match op {
                BinaryOp::Shl => match (offset(a), const_of(f, b)) {
                    (Some((x, c)), Some(k)) => {
                        let k = k & 31;
                        let kv = rw.iconst(k);
                        let shifted = rw.emit(InstData::Binary { op: BinaryOp::Shl, args: [x, kv] });
                        let off = rw.iconst(c << k);
                        Action::Replace(InstData::Binary { op: BinaryOp::IAdd, args: [shifted, off] })
                    }
                    _ => Action::Keep,
                },
                BinaryOp::IMul => match (offset(a), const_of(f, b)) {
                    (Some((x, c)), Some(m)) => {
                        let mv = rw.iconst(m);
                        let scaled = rw.emit(InstData::Binary { op: BinaryOp::IMul, args: [x, mv] });
                        let off = rw.iconst(c.wrapping_mul(m));
                        Action::Replace(InstData::Binary { op: BinaryOp::IAdd, args: [scaled, off] })
                    }
                    _ => Action::Keep,
                },
                BinaryOp::IAdd if const_of(f, b).is_none() && const_of(f, a).is_none() => {
                    let (x, c, y) = match (offset(a), offset(b)) {
                        (Some((x, c)), _) => (x, c, b),
                        (None, Some((x, c))) => (x, c, a),
                        _ => return Action::Keep,
                    };
                    let sum = rw.emit(InstData::Binary { op: BinaryOp::IAdd, args: [y, x] });
                    let off = rw.iconst(c);
                    Action::Replace(InstData::Binary { op: BinaryOp::IAdd, args: [sum, off] })
                }
                _ => Action::Keep,
            }
        });
        if !step {
            break;
        }
        changed = true;
    }
    changed
}
