//! Liveness of machine vregs on the logical CFG (bit sets per block).

use crate::codegen::mir::{MFunction, VReg};
use crate::ir::Block;
use bitvec::prelude::*;
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::BTreeSet;

/// Live-in sets per block (block parameters excluded: they are defined at the block's start).
pub struct Liveness {
    live_in: SecondaryMap<Block, BitVec>,
    live_out: SecondaryMap<Block, BitVec>,
    n: usize,
}

impl Liveness {
    pub fn compute(m: &MFunction) -> Liveness {
        let n = m.vregs.len();
        let empty = bitvec![0; n];
        let mut live_in: SecondaryMap<Block, BitVec> = SecondaryMap::with_default(empty.clone());
        let mut live_out: SecondaryMap<Block, BitVec> = SecondaryMap::with_default(empty.clone());
        let mut changed = true;
        while changed {
            changed = false;
            for &b in m.order.iter().rev() {
                let block = &m.blocks[b];
                let mut out = empty.clone();
                for (s, _) in block.term.edges() {
                    out |= live_in[s].as_bitslice();
                }
                let mut live = out.clone();
                for u in block.term.uses() {
                    live.set(u.index(), true);
                }
                for inst in block.insts.iter().rev() {
                    if let Some(d) = inst.dst {
                        live.set(d.index(), false);
                    }
                    for u in inst.uses() {
                        live.set(u.index(), true);
                    }
                }
                for p in &block.params {
                    live.set(p.index(), false);
                }
                if live != live_in[b] {
                    live_in[b] = live;
                    changed = true;
                }
                live_out[b] = out;
            }
        }
        Liveness { live_in, live_out, n }
    }

    /// Values live into `b` (parameters excluded).
    pub fn live_in(&self, b: Block) -> Vec<VReg> {
        self.live_in[b].iter_ones().map(VReg::new).collect()
    }

    /// Values live after each instruction of `b` (parameters included where live).
    pub fn live_after_each(&self, m: &MFunction, b: Block) -> Vec<BTreeSet<VReg>> {
        let block = &m.blocks[b];
        let mut live: BTreeSet<VReg> = self.end_live(m, b);
        let mut out = vec![BTreeSet::new(); block.insts.len()];
        for (i, inst) in block.insts.iter().enumerate().rev() {
            out[i] = live.clone();
            if let Some(d) = inst.dst {
                live.remove(&d);
            }
            live.extend(inst.uses());
        }
        out
    }

    /// Values live at the end of `b`, including terminator uses (conditions, edge arguments).
    pub fn end_live(&self, m: &MFunction, b: Block) -> BTreeSet<VReg> {
        let mut live: BTreeSet<VReg> = self.live_out[b].iter_ones().map(VReg::new).collect();
        live.extend(m.blocks[b].term.uses());
        live
    }

    /// Whether parameter `p` of `b` is used at all.
    pub fn param_is_live(&self, m: &MFunction, b: Block, p: VReg) -> bool {
        let block = &m.blocks[b];
        block.insts.iter().any(|i| i.uses().any(|u| u == p)) || self.end_live(m, b).contains(&p)
    }

    pub fn num_vregs(&self) -> usize {
        self.n
    }
}
