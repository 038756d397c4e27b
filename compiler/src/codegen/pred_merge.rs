//! Predicated merges (`pred-merge`): `d = p ? op(x, ...) : x`, which selection
//! emits as the operation into a temporary and a `select`, becomes one
//! predicated instruction `@p op d, x, ...` that leaves the lanes where `p`
//! fails holding `x` (`MInst::merge`: `x` is its last source). Colouring
//! gives `d` the register of `x` where that is free, and then nothing else is
//! emitted; otherwise emission adds `@!p mov d, x` after it, which is no more
//! code than before. It saves the temporary's register too: `if (c) code |= 4;`
//! is one `@p or`.
//!
//! Taken only where it can be in place: `x` (the value the other lanes keep)
//! is last read by the select, and the operation's result has no other
//! reader. The operation moves down to the select, so its other operands
//! must be read there anyway or be constants (a constant's register is held
//! a little longer); only plain single-instruction operations move.

use super::mir::*;
use crate::liveness::Liveness;
use cranelift_entity::SecondaryMap;

/// Operations that may run predicated in a select's place (one instruction each, no side effects).
fn mergeable(op: Opcode) -> bool {
    use Opcode::*;
    matches!(op, Iadd | Isub | Imul | And | Or | Xor | Shl | Shr | Imin | Imax | Fadd | Fsub | Fmul | Fma | Fmin | Fmax | Mov | MovImm)
}

/// A plain instruction ([`MInst::is_plain`]) that reads every source before writing.
fn plain(i: &MInst) -> bool {
    i.is_plain() && !i.early_clobber
}

/// Merges selects with the operation of one arm in every block; returns how many.
pub fn run(m: &mut MFunction) -> u32 {
    if m.is_ssa().is_err() {
        return 0;
    }
    let mut uses: SecondaryMap<VReg, u32> = SecondaryMap::with_capacity(m.vregs.len());
    let mut def_op: SecondaryMap<VReg, Option<Opcode>> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            for u in inst.uses().chain(inst.split_of) {
                uses[u] += 1;
            }
            if let Some(d) = inst.dst {
                def_op[d] = Some(inst.op);
            }
        }
        for u in m.blocks[b].term.uses() {
            uses[u] += 1;
        }
    }
    let live = Liveness::compute(m);
    let mut merged = 0;
    for b in m.order.clone() {
        // Values live after each instruction that a merge needs to know of.
        let n = m.blocks[b].insts.len();
        let mut dies_at = vec![Vec::new(); n];
        live.walk_back(m, b, |i, after| {
            dies_at[i] = m.blocks[b].insts[i].uses().filter(|u| !after.contains(u)).collect::<Vec<_>>();
        });
        let mut gone = vec![false; n];
        for j in 0..n {
            let sel = &m.blocks[b].insts[j];
            let (Opcode::Select, Some(d), Some((p, neg))) = (sel.op, sel.dst, sel.pred) else { continue };
            if sel.srcs.len() != 2 || !sel.src_halves.is_empty() || !sel.src_words.is_empty() || sel.spill.is_some() {
                continue;
            }
            if m.vregs[d].class != RegClass::V {
                continue;
            }
            let (t, f) = (sel.srcs[0], sel.srcs[1]);
            // The arm computed by an operation (taken when `p` holds, or when it fails).
            let arms = [(t, f, neg), (f, t, !neg)];
            let found = arms.into_iter().find_map(|(op_value, keep, run_neg)| {
                if op_value == keep || uses[op_value] != 1 || m.vregs[keep].class != RegClass::V {
                    return None;
                }
                // `keep` must die here, so that `d` can take its register.
                if !dies_at[j].contains(&keep) {
                    return None;
                }
                let i = (0..j).rev().find(|&i| m.blocks[b].insts[i].dst == Some(op_value))?;
                let op = &m.blocks[b].insts[i];
                if !mergeable(op.op) || !plain(op) || gone[i] {
                    return None;
                }
                // Its other operands are read at the select anyway, or are constants.
                let fine = op.srcs.iter().all(|&s| s == keep || def_op[s] == Some(Opcode::MovImm) || !dies_before(&dies_at, s, j));
                fine.then_some((i, keep, run_neg))
            });
            let Some((i, keep, run_neg)) = found else { continue };
            let mut inst = m.blocks[b].insts[i].clone();
            inst.dst = Some(d);
            inst.srcs.push(keep);
            inst.pred = Some((p, run_neg));
            inst.merge = true;
            inst.span = m.blocks[b].insts[j].span;
            m.vregs[p].predicates = true;
            m.blocks[b].insts[j] = inst;
            gone[i] = true;
            merged += 1;
        }
        if gone.iter().any(|&g| g) {
            let mut k = 0;
            m.blocks[b].insts.retain(|_| {
                k += 1;
                !gone[k - 1]
            });
        }
    }
    merged
}

/// Whether `v`'s last read in this block comes before instruction `j`
/// (moving a read of it to `j` would lengthen its life).
fn dies_before(dies_at: &[Vec<VReg>], v: VReg, j: usize) -> bool {
    (0..j).any(|i| dies_at[i].contains(&v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Isa;

    /// `code = c ? code | 4 : code`, then `code` stored; `keep_alive` stores
    /// the old `code` too, after the select.
    fn text(keep_alive: bool) -> String {
        format!(
            "kernel @k {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = load.device.i32 [v0]
      v3:i32 = iconst 4
      v4:i32 = or v2, v3
      v5:b1 = icmp ult v1, v2
      v6:i32 = select v5, v4, v2
      store.device [v0], v6
{}      return
}}
",
            if keep_alive { "      store.device [v0], v2\n" } else { "" }
        )
    }

    fn merges(m: &MFunction) -> Vec<&MInst> {
        m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.merge).collect()
    }

    #[test]
    fn an_or_under_a_select_becomes_one_predicated_or_in_place() {
        for isa in [Isa::Wave, Isa::Wave012] {
            let mut m = crate::codegen::select_text(&text(false), isa, 64);
            assert_eq!(run(&mut m), 1);
            let found = merges(&m);
            assert_eq!(found.len(), 1);
            let (or, keep) = (found[0].clone(), *found[0].srcs.last().unwrap());
            assert_eq!(or.op, Opcode::Or);
            assert!(or.pred.is_some() && or.srcs.contains(&keep), "the or reads the value it keeps");
            assert!(!m.order.iter().flat_map(|&b| &m.blocks[b].insts).any(|i| i.op == Opcode::Select), "no select left");
            m.is_ssa().expect("still SSA");
            let a = crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(isa, 64)).expect("allocates and checks");
            assert_eq!(a.reg[or.dst.unwrap()], a.reg[keep], "in place: no move for the other lanes");
        }
    }

    #[test]
    fn no_merge_where_the_kept_value_lives_on() {
        let mut m = crate::codegen::select_text(&text(true), Isa::Wave, 64);
        assert_eq!(run(&mut m), 0, "the old value is read after the select: the merge could not be in place");
    }
}
