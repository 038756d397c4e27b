//! Predicate allocation inside a block: one compare for several selects.
//!
//! Selection emits a compare right before each use of a boolean, so a
//! predicate lives for one instruction and four registers always suffice
//! (design notes, Booleans). A `c ? a : b` on a vector then repeats the same
//! compare per component. This pass keeps the first compare's predicate live
//! for the later selects that read an identical compare (same opcode, same
//! operands: SSA values, so the same result) and deletes the repeats, as long
//! as the predicates live at once never exceed the registers: four, or three
//! on `wave-0.1.2`, where `p0` cannot predicate the moves a select becomes.
//! Where keeping it would exceed them, the repeat stays: re-running the
//! compare is how a predicate is "spilled" (one instruction, cheaper than a
//! mask or a slot).
//!
//! Only predicates whose every use is a `Select` of the same block are
//! shared (not branch conditions, not `BoolFromPred`, which the wave-mask
//! spiller follows), so liveness stays inside the block.

use super::mir::*;
use crate::ir::Block;
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;

/// Predicate registers available to predicates shared across instructions.
fn limit(isa: Isa) -> u32 {
    match isa {
        Isa::Wave => 4,
        Isa::Wave012 => 3,
    }
}

/// Shares compares in every block of `m`; the number of compares removed.
pub fn run(m: &mut MFunction, isa: Isa) -> u32 {
    // Identical operands mean identical values only in SSA form.
    if m.is_ssa().is_err() {
        return 0;
    }
    // Predicates used anywhere but as a select's condition in their block.
    let mut other_use: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(m.vregs.len());
    let mut select_block: SecondaryMap<VReg, Option<Block>> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        let block = &m.blocks[b];
        for inst in &block.insts {
            for &s in &inst.srcs {
                other_use[s] = true;
            }
            if let Some((p, _)) = inst.pred {
                if inst.op == Opcode::Select && !matches!(select_block[p], Some(x) if x != b) {
                    select_block[p] = Some(b);
                } else {
                    other_use[p] = true;
                }
            }
        }
        for u in block.term.uses() {
            other_use[u] = true;
        }
        for &p in &block.params {
            other_use[p] = true;
        }
    }
    let live = crate::liveness::Liveness::compute(m);
    let mut removed = 0;
    for b in m.order.clone() {
        removed += share_in_block(m, &live, b, &other_use, &select_block, limit(isa));
    }
    removed
}

/// A compare whose predicate later selects may read: its opcode, operands and
/// immediate, its predicate, and the last instruction reading it.
type Shared = (Opcode, Vec<VReg>, Option<u32>, VReg, usize);

fn share_in_block(
    m: &mut MFunction,
    live_in: &crate::liveness::Liveness,
    b: Block,
    other_use: &SecondaryMap<VReg, bool>,
    select_block: &SecondaryMap<VReg, Option<Block>>,
    limit: u32,
) -> u32 {
    let insts = &m.blocks[b].insts;
    let n = insts.len();
    let shareable = |v: VReg| !other_use[v] && select_block[v] == Some(b);
    // Live range of each predicate defined here: (definition, last use); one
    // used elsewhere (or not at all) counts as live to the block's end.
    // Maps of this block's predicates (maps indexed by every vreg would cost the
    // function's size per block: quadratic in blocks).
    let mut last_use: HashMap<VReg, usize> = HashMap::new();
    for (i, inst) in insts.iter().enumerate() {
        if let Some((p, _)) = inst.pred {
            last_use.insert(p, i);
        }
    }
    let is_p = |v: VReg| m.vregs[v].class == RegClass::P;
    let mut live = vec![0u32; n + 1];
    for (i, inst) in insts.iter().enumerate() {
        if let Some(d) = inst.dst.filter(|&d| is_p(d)) {
            let end = if inst.op.defines_predicate() && shareable(d) { last_use.get(&d).copied().unwrap_or(i) } else { n };
            for x in live.iter_mut().take(end + 1).skip(i) {
                *x += 1;
            }
        }
    }
    // Predicates live into the block hold a register throughout (a bound:
    // selection never makes any today).
    let base = live_in.live_in(b).iter().filter(|&&v| is_p(v)).count() as u32;
    // Walk the compares: the latest shareable compare of each kind, and its range's end.
    let mut latest: Vec<Shared> = Vec::new();
    let mut rename: HashMap<VReg, VReg> = HashMap::new();
    let mut dead = vec![false; n];
    let mut removed = 0;
    for i in 0..n {
        let inst = &insts[i];
        // An unpredicated compare of whole registers: its result is a function of
        // its opcode, operands and immediate.
        let plain = inst.pred.is_none()
            && inst.src_halves.iter().all(Option::is_none)
            && inst.src_words.iter().all(Option::is_none)
            && inst.ins.is_none();
        let Some(q) = inst.dst.filter(|&d| plain && inst.op.defines_predicate() && shareable(d)) else { continue };
        let q_end = last_use.get(&q).copied().unwrap_or(i);
        let found = latest.iter_mut().find(|(op, srcs, imm, _, _)| *op == inst.op && *srcs == inst.srcs && *imm == inst.imm);
        match found {
            Some((_, _, _, p, p_end)) => {
                // Keeping p live from its last use to q's last use replaces q's own range.
                let extra_from = *p_end + 1;
                let fits = (extra_from..i).all(|x| base + live[x] < limit);
                if fits {
                    for x in live.iter_mut().take(i).skip(extra_from) {
                        *x += 1;
                    }
                    rename.insert(q, *p);
                    *p_end = q_end;
                    dead[i] = true;
                    removed += 1;
                } else {
                    // The repeat stays: this compare is the latest of its kind.
                    *p = q;
                    *p_end = q_end;
                }
            }
            None => latest.push((inst.op, inst.srcs.clone(), inst.imm, q, q_end)),
        }
    }
    if removed == 0 {
        return 0;
    }
    let block = &mut m.blocks[b];
    let old = std::mem::take(&mut block.insts);
    block.insts = old
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !dead[*i])
        .map(|(_, mut inst)| {
            if let Some((p, neg)) = inst.pred {
                if let Some(&r) = rename.get(&p) {
                    inst.pred = Some((r, neg));
                }
            }
            inst
        })
        .collect();
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(text: &str, isa: Isa) -> MFunction {
        crate::codegen::select_text(text, isa, 1)
    }

    fn compares(m: &MFunction) -> usize {
        m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.op.defines_predicate()).count()
    }

    /// Most predicates live at once in `m`'s entry block (a predicate from its
    /// definition to its last use).
    fn predicate_peak(m: &MFunction) -> usize {
        let insts = &m.blocks[m.entry].insts;
        let last = |p: VReg| insts.iter().rposition(|i| i.pred.map(|x| x.0) == Some(p)).unwrap_or(0);
        let ranges: Vec<(usize, usize)> =
            insts.iter().enumerate().filter_map(|(i, x)| x.dst.filter(|_| x.op.defines_predicate()).map(|d| (i, last(d)))).collect();
        (0..insts.len()).map(|x| ranges.iter().filter(|&&(a, b)| a <= x && x <= b).count()).max().unwrap_or(0)
    }

    /// `c ? x : y` on four components, then `k` conditions each read by two
    /// selects, interleaved: `c0 c1 .. c(k-1) c0 c1 ..`.
    fn kernel(k: usize) -> String {
        let mut t = String::from("kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = kernel_arg 1\n");
        t += "      v2:b1 = icmp slt v0, v1\n";
        let mut next = 3;
        let mut sum = 0;
        for _ in 0..4 {
            t += &format!("      v{next}:i32 = select v2, v0, v1\n");
            sum = next;
            next += 1;
        }
        let conds: Vec<usize> = (0..k)
            .map(|j| {
                t += &format!("      v{next}:i32 = iconst {j}\n      v{}:b1 = icmp slt v{next}, v0\n", next + 1);
                next += 2;
                next - 1
            })
            .collect();
        for _ in 0..2 {
            for &c in &conds {
                t += &format!("      v{next}:i32 = select v{c}, v{sum}, v1\n");
                sum = next;
                next += 1;
            }
        }
        t += &format!("      store.device [v0], v{sum}\n      return\n}}\n");
        t
    }

    #[test]
    fn a_vector_select_reads_one_compare() {
        let mut m = select(&kernel(0), Isa::Wave);
        assert_eq!(compares(&m), 4);
        assert_eq!(run(&mut m, Isa::Wave), 3);
        assert_eq!(compares(&m), 1);
        m.is_ssa().unwrap();
    }

    #[test]
    fn predicates_beyond_the_registers_are_compared_again() {
        for (isa, regs) in [(Isa::Wave, 4), (Isa::Wave012, 3)] {
            let mut m = select(&kernel(6), isa);
            run(&mut m, isa);
            // Six conditions read twice, interleaved, cannot all stay live: some repeat.
            assert!(compares(&m) > 1 + 6, "{isa:?}: {} compares", compares(&m));
            assert!(predicate_peak(&m) <= regs, "{isa:?}: {} predicates live at once", predicate_peak(&m));
            m.is_ssa().unwrap();
            // Within the registers every repeat goes.
            let mut small = select(&kernel(2), isa);
            run(&mut small, isa);
            assert_eq!(compares(&small), 1 + 2, "{isa:?}");
        }
    }
}
