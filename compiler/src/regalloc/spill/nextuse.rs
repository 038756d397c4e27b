//! Next-use distances (Braun-Hack): how many instructions until a value is
//! read again, along the nearest path. A path that leaves a loop adds
//! [`LOOP_EXIT_DISTANCE`], so a value used only after a loop is "far" from
//! everything inside it.

use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::Liveness;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

pub const LOOP_EXIT_DISTANCE: u32 = 100_000;
pub const FAR: u32 = u32::MAX / 4;

/// Positions of the uses of each value in `b` (instruction indices; the terminator is `len`).
pub fn use_positions(m: &MFunction, b: Block) -> BTreeMap<VReg, Vec<u32>> {
    let block = &m.blocks[b];
    let mut map: BTreeMap<VReg, Vec<u32>> = BTreeMap::new();
    for (i, inst) in block.insts.iter().enumerate() {
        for u in inst.uses() {
            let list = map.entry(u).or_default();
            if list.last() != Some(&(i as u32)) {
                list.push(i as u32);
            }
        }
    }
    for u in block.term.uses() {
        let list = map.entry(u).or_default();
        let len = block.insts.len() as u32;
        if list.last() != Some(&len) {
            list.push(len);
        }
    }
    map
}

/// Distances at block ends, for the values live out of each block.
pub struct NextUse {
    out: SecondaryMap<Block, BTreeMap<VReg, u32>>,
}

impl NextUse {
    pub fn compute(m: &MFunction, live: &Liveness) -> NextUse {
        let mut first: SecondaryMap<Block, BTreeMap<VReg, u32>> = SecondaryMap::new();
        for &b in &m.order {
            first[b] = use_positions(m, b).into_iter().map(|(v, p)| (v, p[0])).collect();
        }
        let mut nu = NextUse { out: SecondaryMap::new() };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in m.order.iter().rev() {
                let term = &m.blocks[b].term;
                let exit = match term {
                    MTerm::BreakIf { exit, .. } => Some(*exit),
                    _ => None,
                };
                let mut out: BTreeMap<VReg, u32> = BTreeMap::new();
                for &v in live.live_out(b) {
                    let mut best = FAR;
                    for (s, _) in term.edges() {
                        if live.live_in(s).binary_search(&v).is_err() {
                            continue;
                        }
                        let inside = first[s].get(&v).copied().unwrap_or_else(|| {
                            let len = m.blocks[s].insts.len() as u32;
                            len.saturating_add(nu.out[s].get(&v).copied().unwrap_or(FAR))
                        });
                        let penalty = if Some(s) == exit { LOOP_EXIT_DISTANCE } else { 0 };
                        best = best.min(inside.saturating_add(penalty).min(FAR));
                    }
                    out.insert(v, best);
                }
                if out != nu.out[b] {
                    nu.out[b] = out;
                    changed = true;
                }
            }
        }
        nu
    }

    /// Distance from position `at` of `b` (before instruction `at`) to `v`'s
    /// next use; `uses` are `b`'s [`use_positions`].
    pub fn distance_from(&self, m: &MFunction, uses: &BTreeMap<VReg, Vec<u32>>, b: Block, at: u32, v: VReg) -> u32 {
        if let Some(&p) = uses.get(&v).and_then(|ps| ps.iter().find(|&&p| p >= at)) {
            return p - at;
        }
        let len = m.blocks[b].insts.len() as u32;
        len.saturating_sub(at).saturating_add(self.out[b].get(&v).copied().unwrap_or(FAR))
    }
}
