//! Sinking and rematerialization (`sink`): values are computed where they
//! are needed, so they are not live across code that does not use them.
//!
//! * A pure instruction moves down the dominator tree to the nearest block
//!   that dominates all its uses: a value used only in one branch is
//!   computed in that branch; a value used only inside a loop is computed in
//!   the loop (and `licm`, which runs next, takes it back out if the
//!   register budget allows).
//! * A constant or special register used in several blocks is
//!   rematerialized: each block that uses it gets its own copy, one
//!   instruction instead of a register held across everything in between.
//!
//! Loads move only from read-only memory and never into a loop (where
//! `licm` could not always take them back: a load must not run where it did
//! not). Wave operations never move (the convergence rule), nor do
//! instructions with side effects.

use super::dom::DomTree;
use super::edit::new_inst;
use super::loops::Loops;
use super::PassContext;
use crate::ir::structure::region_tree;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// The `sink` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let dom = DomTree::new(f, &nodes);
    let loops = Loops::new(f, &nodes);
    // Blocks where each value is used, one entry per use.
    let mut used_in: SecondaryMap<Value, Vec<Block>> = SecondaryMap::new();
    for &b in &dom.order {
        for &i in &f.blocks[b].insts {
            for a in f.insts[i].args() {
                used_in[a].push(b);
            }
        }
        for a in f.blocks[b].term.args() {
            used_in[a].push(b);
        }
    }
    // Instructions placed at the front of each block, last placed first.
    let mut front: SecondaryMap<Block, Vec<Inst>> = SecondaryMap::new();
    let mut gone: BTreeSet<Inst> = BTreeSet::new();
    // Per-block replacements of a value by its rematerialized copy.
    let mut remat: BTreeMap<(Block, Value), Value> = BTreeMap::new();
    let mut changed = false;
    for &b in dom.order.iter().rev() {
        for &i in f.blocks[b].insts.clone().iter().rev() {
            let Some(r) = f.results[i] else { continue };
            let data = f.insts[i].clone();
            if data.has_side_effects() || data.is_convergent() || matches!(data, InstData::KernelArg { .. }) {
                continue;
            }
            if matches!(data, InstData::Load { space, .. } if space != MemSpace::DeviceReadOnly) {
                continue;
            }
            let uses = std::mem::take(&mut used_in[r]);
            if uses.is_empty() {
                continue;
            }
            if matches!(data, InstData::Const { .. } | InstData::Special { .. }) {
                // One copy per using block other than its own.
                let mut blocks: Vec<Block> = uses.iter().copied().filter(|&u| u != b).collect();
                blocks.sort();
                blocks.dedup();
                for &u in &blocks {
                    let (ci, cv) = new_inst(f, data.clone(), f.spans[i]);
                    front[u].push(ci);
                    remat.insert((u, r), cv.expect("constants have results"));
                    changed = true;
                }
                if !uses.contains(&b) {
                    gone.insert(i);
                }
                continue;
            }
            let target = uses.iter().skip(1).fold(uses[0], |acc, &u| dom.common_dominator(acc, u));
            if target == b || !dom.dominates(b, target) {
                used_in[r] = uses;
                continue;
            }
            if matches!(data, InstData::Load { .. }) && loops.depth_of(target) > loops.depth_of(b) {
                used_in[r] = uses;
                continue;
            }
            // Move: the operands are now used in `target`.
            for a in data.args() {
                if let Some(slot) = used_in[a].iter_mut().find(|x| **x == b) {
                    *slot = target;
                }
            }
            used_in[r] = uses;
            front[target].push(i);
            gone.insert(i);
            changed = true;
        }
    }
    if !changed {
        return false;
    }
    let blocks: Vec<Block> = dom.order.clone();
    for &b in &blocks {
        let mut insts: Vec<Inst> = front[b].iter().rev().copied().collect();
        insts.extend(f.blocks[b].insts.iter().copied().filter(|i| !gone.contains(i)));
        f.blocks[b].insts = insts;
    }
    // Uses in each block read that block's copy of a rematerialized value.
    if !remat.is_empty() {
        for &b in &blocks {
            let insts = f.blocks[b].insts.clone();
            for i in insts {
                f.insts[i].map_args(|a| remat.get(&(b, a)).copied().unwrap_or(a));
            }
            f.blocks[b].term.map_args(|a| remat.get(&(b, a)).copied().unwrap_or(a));
        }
    }
    changed
}
