//! Which spill slots stay in local memory when the local spill area cannot
//! hold them all: the rest go to the scratch buffer in device memory.
//!
//! Slots are ranked by their accesses (stores and reloads of every value in
//! them, each weighted by 10 per enclosing loop), so the slots a loop touches
//! stay local: a local access is one pass over the banks, a device access a
//! trip through L2 or DRAM. Ties keep the lower slot number local (slots are
//! numbered in dominance order, so this is deterministic).

use crate::codegen::mir::*;
use crate::ir::Block;
use std::collections::{BTreeMap, BTreeSet};

/// The new number of every slot: local slots are `0..local`, the ones in
/// device memory `local..` (each side keeps the old relative order).
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    pub renumber: Vec<u32>,
    pub local: u32,
}

/// Keeps the `fit` most accessed of the slots (`weights[s]`: weighted
/// accesses of slot `s`) local and sends the others to device memory.
pub fn split(weights: &[u64], fit: u32) -> Split {
    let n = weights.len();
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&s| (std::cmp::Reverse(weights[s]), s));
    let keep: BTreeSet<usize> = ranked.into_iter().take(fit as usize).collect();
    let local = keep.len() as u32;
    let (mut next_local, mut next_device) = (0u32, local);
    let renumber = (0..n)
        .map(|s| {
            let slot = if keep.contains(&s) { &mut next_local } else { &mut next_device };
            *slot += 1;
            *slot - 1
        })
        .collect();
    Split { renumber, local }
}

/// Weighted accesses of every slot: each value in `slot_of` is stored once
/// where it is defined (a memory parameter by every predecessor) and loaded
/// at each reload the plan made.
pub fn slot_weights(
    m: &MFunction,
    p: &super::plan::Plan,
    slot_of: &BTreeMap<VReg, u32>,
    weight: &dyn Fn(Block) -> u64,
    preds: &dyn Fn(Block) -> Vec<Block>,
) -> Vec<u64> {
    let n = slot_of.values().map(|&s| s as usize + 1).max().unwrap_or(0);
    let mut w = vec![0u64; n];
    let defs = crate::liveness::definitions(m);
    for (&v, &s) in slot_of {
        let Some((b, _)) = defs[v] else { continue };
        w[s as usize] += if p.memory_params.contains(&v) { preds(b).into_iter().map(weight).sum() } else { weight(b) };
    }
    for &b in &m.order {
        let reloads = p.reloads[b].values().flatten().chain(&p.edge_reloads[b]).chain(&p.coupling[b]);
        for v in reloads {
            if let Some(&s) = slot_of.get(v) {
                w[s as usize] += weight(b);
            }
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_fits_keeps_the_numbers() {
        let s = split(&[5, 1, 100], 3);
        assert_eq!(s, Split { renumber: vec![0, 1, 2], local: 3 });
        let s = split(&[5, 1, 100], 8);
        assert_eq!(s.local, 3);
    }

    #[test]
    fn the_most_accessed_slots_stay_local() {
        // Slot 2 is in a loop (weight 100), slot 0 next: they stay local, in their old order.
        let s = split(&[5, 1, 100, 2], 2);
        assert_eq!(s, Split { renumber: vec![0, 2, 1, 3], local: 2 });
    }

    #[test]
    fn ties_keep_the_lower_slot_local() {
        let s = split(&[3, 3, 3], 1);
        assert_eq!(s, Split { renumber: vec![0, 1, 2], local: 1 });
        // Nothing fits: every slot goes to device memory, in order.
        let s = split(&[1, 9], 0);
        assert_eq!(s, Split { renumber: vec![0, 1], local: 0 });
    }
}
