//! Liveness of machine vregs on the logical CFG, and from it register
//! pressure (`pressure`: MaxLive and where it peaks).
//!
//! Both sit below the codegen passes, the scheduler and the register
//! allocator, which all ask them (the codegen passes keep a rewrite only
//! where it raises no peak); they read nothing but the machine IR.
//!
//! Block live-in/live-out sets are computed per value by path exploration
//! (Brandner et al., "Computing Liveness Sets for SSA-Form Programs"): from
//! each use, walk up the predecessors until the definition. The work is the
//! total size of all live ranges in blocks, so it grows with the program
//! rather than with (blocks x values) as a bit-vector dataflow would. Sets are
//! sorted vectors: live sets of real kernels are small.
//!
//! A use in a terminator (a branch condition, an edge argument) is a use at
//! the end of that block; block parameters are defined at the block's start.

use crate::codegen::mir::{MFunction, VReg};
use crate::ir::Block;
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::BTreeSet;

pub mod pressure;

pub struct Liveness {
    live_in: SecondaryMap<Block, Vec<VReg>>,
    live_out: SecondaryMap<Block, Vec<VReg>>,
    preds: SecondaryMap<Block, Vec<Block>>,
}

/// Where each vreg is defined: `(block, Some(index))` for an instruction,
/// `(block, None)` for a block parameter.
pub fn definitions(m: &MFunction) -> SecondaryMap<VReg, Option<(Block, Option<usize>)>> {
    let mut def: SecondaryMap<VReg, Option<(Block, Option<usize>)>> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for &p in &m.blocks[b].params {
            def[p] = Some((b, None));
        }
        for (i, inst) in m.blocks[b].insts.iter().enumerate() {
            if let Some(d) = inst.dst {
                def[d] = Some((b, Some(i)));
            }
        }
    }
    def
}

/// Predecessors of every block in `m.order`, in order.
pub fn predecessors(m: &MFunction) -> SecondaryMap<Block, Vec<Block>> {
    let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    for &b in &m.order {
        for (s, _) in m.blocks[b].term.edges() {
            preds[s].push(b);
        }
    }
    preds
}

impl Liveness {
    pub fn compute(m: &MFunction) -> Liveness {
        let def = definitions(m);
        let preds = predecessors(m);
        let mut live_in: SecondaryMap<Block, Vec<VReg>> = SecondaryMap::new();
        let mut live_out: SecondaryMap<Block, Vec<VReg>> = SecondaryMap::new();
        // (value, block) for every use in an instruction or a terminator. In SSA
        // a use in the defining block comes after the definition, so only uses
        // in other blocks start a walk.
        let mut uses: Vec<(VReg, Block)> = Vec::new();
        for &b in &m.order {
            let block = &m.blocks[b];
            for inst in &block.insts {
                for u in inst.uses() {
                    uses.push((u, b));
                }
            }
            for u in block.term.uses() {
                uses.push((u, b));
            }
        }
        uses.sort_unstable();
        uses.dedup();
        // Marks of the value being explored, so each block is visited once per value.
        let mut mark: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut stack: Vec<Block> = Vec::new();
        for &(v, b) in &uses {
            let stamp = v.index() as u32 + 1;
            let Some((db, _)) = def[v] else { continue };
            if db == b {
                continue;
            }
            // `v` is live into `b`: walk up.
            stack.push(b);
            while let Some(x) = stack.pop() {
                if mark[x] == stamp {
                    continue;
                }
                mark[x] = stamp;
                live_in[x].push(v);
                for &p in &preds[x] {
                    if live_out[p].last() != Some(&v) {
                        live_out[p].push(v);
                    }
                    if p != db && mark[p] != stamp {
                        stack.push(p);
                    }
                }
            }
        }
        // Values were explored in increasing order, so every list is sorted.
        Liveness { live_in, live_out, preds }
    }

    /// Values live into `b` (parameters excluded), sorted.
    pub fn live_in(&self, b: Block) -> &[VReg] {
        &self.live_in[b]
    }

    /// Values live out of `b` into its successors (edge arguments excluded), sorted.
    pub fn live_out(&self, b: Block) -> &[VReg] {
        &self.live_out[b]
    }

    pub fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b]
    }

    /// Values live at the end of `b`, including terminator uses (conditions, edge arguments).
    pub fn end_live(&self, m: &MFunction, b: Block) -> BTreeSet<VReg> {
        let mut live: BTreeSet<VReg> = self.live_out[b].iter().copied().collect();
        live.extend(m.blocks[b].term.uses());
        live
    }

    /// Walks `b` backwards. For each instruction (last first) `f(index, live_after)`
    /// sees the values live after it (its destination included when live).
    pub fn walk_back(&self, m: &MFunction, b: Block, mut f: impl FnMut(usize, &BTreeSet<VReg>)) -> BTreeSet<VReg> {
        let block = &m.blocks[b];
        let mut live = self.end_live(m, b);
        for (i, inst) in block.insts.iter().enumerate().rev() {
            f(i, &live);
            if let Some(d) = inst.dst {
                live.remove(&d);
            }
            live.extend(inst.uses());
        }
        live
    }

    /// Values live after each instruction of `b` (parameters included where live).
    pub fn live_after_each(&self, m: &MFunction, b: Block) -> Vec<BTreeSet<VReg>> {
        let mut out = vec![BTreeSet::new(); m.blocks[b].insts.len()];
        self.walk_back(m, b, |i, live| out[i] = live.clone());
        out
    }

    /// Which parameters of `b` are used at all.
    pub fn param_is_live(&self, m: &MFunction, b: Block, p: VReg) -> bool {
        let block = &m.blocks[b];
        block.insts.iter().any(|i| i.uses().any(|u| u == p)) || block.term.uses().contains(&p) || self.live_out[b].binary_search(&p).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::*;
    use crate::diag::Span;
    use crate::ir::Block;

    /// entry: a = 1; b = 2; loop { c = a + b (header param h); break_if p } exit: use h
    #[test]
    fn loop_carried_and_live_through() {
        let mut m = MFunction::default();
        let [b0, b1, b2, b3] = [0, 1, 2, 3].map(Block::new);
        m.entry = b0;
        m.order = vec![b0, b1, b2, b3];
        let a = m.new_vreg(RegClass::V, true);
        let b = m.new_vreg(RegClass::V, true);
        let h = m.new_vreg(RegClass::V, false);
        let c = m.new_vreg(RegClass::V, false);
        let p = m.new_vreg(RegClass::P, false);
        let out = m.new_vreg(RegClass::V, false);
        let fin = m.new_vreg(RegClass::V, false);
        let s = Span::default();
        let imm = |d| {
            let mut i = MInst::new(Opcode::MovImm, Some(d), vec![], s);
            i.imm = Some(1);
            i
        };
        m.blocks[b0].insts = vec![imm(a), imm(b)];
        m.blocks[b0].term = MTerm::Loop { header: b1, args: vec![a], exit: b3 };
        m.blocks[b1].params = vec![h];
        m.blocks[b1].insts = vec![MInst::new(Opcode::Iadd, Some(c), vec![h, b], s), MInst::new(Opcode::IcmpEq, Some(p), vec![c, a], s)];
        m.blocks[b1].term = MTerm::BreakIf { cond: p, exit: b3, args: vec![c], cont: b2 };
        m.blocks[b2].term = MTerm::Jump { dest: b1, args: vec![c] };
        m.blocks[b3].params = vec![out];
        m.blocks[b3].insts = vec![MInst::new(Opcode::Mov, Some(fin), vec![out], s)];
        m.blocks[b3].term = MTerm::Return;
        let live = Liveness::compute(&m);
        assert_eq!(live.live_in(b1), &[a, b]);
        assert_eq!(live.live_in(b2), &[a, b, c]);
        assert_eq!(live.live_out(b0), &[a, b]);
        assert_eq!(live.live_out(b1), &[a, b, c]);
        assert!(live.live_in(b3).is_empty());
        assert_eq!(live.preds(b1), &[b0, b2]);
    }
}
