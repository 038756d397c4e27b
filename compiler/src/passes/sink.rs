//! Sinking and rematerialization (`sink`): values are computed where they
//! are needed, so they are not live across code that does not use them.
//!
//! * A pure instruction moves down the dominator tree to the nearest block
//!   that dominates all its uses: a value used only in one branch is
//!   computed in that branch. It stays where it is when two or more of its
//!   operands have it as their only use (moving it would carry all of them
//!   along, lengthening more live ranges than it shortens). A value used only inside a loop moves into the
//!   loop only while the loop's estimated pressure is over the register
//!   budget (each such value then no longer occupies a register through the
//!   loop); otherwise it stays in front of the loop, computed once.
//! * Constants and special registers are rematerialized at their uses: each
//!   use reads a copy made right before it, or the copy an earlier use made
//!   at most [`REUSE_WINDOW`] instructions before in the same block. That is
//!   one instruction instead of a register held across everything in
//!   between (`gvn` merged them, and `licm` hoists them out of loops again
//!   while registers remain). Where the estimated pressure plus the number of
//!   constants a block reads stays within the budget, the block makes one
//!   copy of each instead: registers are there, instructions are saved (and
//!   the allocator still recomputes a constant where it must spill).
//!
//! Loads move only from read-only memory and never into a loop. Wave
//! operations never move (the convergence rule), nor do instructions with
//! side effects.

use super::dom::DomTree;
use super::edit::new_inst;
use super::loops::Loops;
use super::pressure;
use super::PassContext;
use crate::ir::structure::region_tree;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A constant's copy serves later uses in its block up to this many instructions apart.
pub const REUSE_WINDOW: usize = 3;

fn is_cheap(data: &InstData) -> bool {
    matches!(data, InstData::Const { .. } | InstData::Special { .. })
}

/// The `sink` pass.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let dom = DomTree::new(f, &nodes);
    let loops = Loops::new(f, &nodes);
    let p = pressure::estimate(f, &nodes, &loops);
    let budget = cx.register_budget(p.max);
    let mut per_loop = p.per_loop;
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
            if is_cheap(&data) {
                used_in[r] = uses;
                continue;
            }
            let mut target = uses.iter().skip(1).fold(uses[0], |acc, &u| dom.common_dominator(acc, u));
            // Into a loop only to bring its pressure down to the budget (never a load).
            let entered = loops.exited_between(loops.innermost[target], b);
            if let Some(&outer) = entered.last() {
                if per_loop[outer] > budget && !matches!(data, InstData::Load { .. }) {
                    for &l in &entered {
                        per_loop[l] = per_loop[l].saturating_sub(1);
                    }
                } else {
                    target = loops.loops[outer].pre;
                }
            }
            // Moving `r` also moves the last use of each operand that only `r`
            // reads: with two or more of those, sinking lengthens more live
            // ranges than it shortens (and raises the pressure in between).
            let only_here =
                data.args().iter().filter(|&&a| used_in[a].len() == 1 && f.def_inst(a).is_some_and(|d| !is_cheap(&f.insts[d]))).count();
            if target == b || !dom.dominates(b, target) || only_here > 1 {
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
    let blocks: Vec<Block> = dom.order.clone();
    if changed {
        for &b in &blocks {
            let mut insts: Vec<Inst> = front[b].iter().rev().copied().collect();
            insts.extend(f.blocks[b].insts.iter().copied().filter(|i| !gone.contains(i)));
            f.blocks[b].insts = insts;
        }
    }
    for &b in &blocks {
        // One copy of each constant for the whole block where the registers
        // allow every one of them to stay live through it.
        let window = if shares(cx, p.max, distinct_cheap_values(f, b), budget) { usize::MAX } else { REUSE_WINDOW };
        changed |= place_cheap_values(f, b, window);
    }
    changed
}

/// Merges the copies of a constant or special register that one block makes
/// twice (`licm` hoisting a loop's copy into a preheader that has one), in
/// the blocks where sharing them keeps within the register budget (as
/// [`run`] decides). Returns whether anything merged.
pub fn merge_block_copies(f: &mut Function, cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let loops = Loops::new(f, &nodes);
    let p = pressure::estimate(f, &nodes, &loops);
    let budget = cx.register_budget(p.max);
    let mut map: BTreeMap<Value, Value> = BTreeMap::new();
    let mut gone: BTreeSet<Inst> = BTreeSet::new();
    let blocks: Vec<Block> = f.blocks.keys().collect();
    for &b in &blocks {
        if !shares(cx, p.max, distinct_cheap_values(f, b), budget) {
            continue;
        }
        let mut first: HashMap<InstData, Value> = HashMap::new();
        for &i in &f.blocks[b].insts {
            let (Some(r), data) = (f.results[i], &f.insts[i]) else { continue };
            if !is_cheap(data) {
                continue;
            }
            match first.get(data) {
                Some(&v) => {
                    map.insert(r, v);
                    gone.insert(i);
                }
                None => {
                    first.insert(data.clone(), r);
                }
            }
        }
    }
    if map.is_empty() {
        return false;
    }
    f.replace_uses(&map);
    for &b in &blocks {
        f.blocks[b].insts.retain(|i| !gone.contains(i));
    }
    true
}

/// Whether a block's `constants` can each keep one register through it: the
/// estimate plus them within the budget (with a margin under an explicit one,
/// for what the estimate misses).
fn shares(cx: &PassContext, pressure: u32, constants: u32, budget: u32) -> bool {
    let with = pressure.saturating_add(constants);
    with <= budget && cx.within_budget(with)
}

/// How many different constants and special registers block `b` reads.
fn distinct_cheap_values(f: &Function, b: Block) -> u32 {
    let mut seen: BTreeSet<Value> = BTreeSet::new();
    let mut contents: Vec<InstData> = Vec::new();
    let reads = f.blocks[b].insts.iter().flat_map(|&i| f.insts[i].args()).chain(f.blocks[b].term.args());
    for a in reads {
        if !seen.insert(a) {
            continue;
        }
        if let Some(d) = f.def_inst(a).map(|i| &f.insts[i]).filter(|d| is_cheap(d)) {
            if !contents.contains(d) {
                contents.push(d.clone());
            }
        }
    }
    contents.len() as u32
}

/// Rebuilds block `b` with a copy of each constant or special register it reads
/// next to its use, which later uses up to `window` instructions on share (see
/// [`REUSE_WINDOW`]); the block's own cheap instructions go.
fn place_cheap_values(f: &mut Function, b: Block, window: usize) -> bool {
    let cheap_of = |f: &Function, v: Value| -> Option<InstData> { f.def_inst(v).map(|i| f.insts[i].clone()).filter(is_cheap) };
    let old = std::mem::take(&mut f.blocks[b].insts);
    let mut out: Vec<Inst> = Vec::with_capacity(old.len());
    // Content -> (copy, position of its last use in `out`).
    let mut near: HashMap<InstData, (Value, usize)> = HashMap::new();
    let copy_for = |f: &mut Function, out: &mut Vec<Inst>, near: &mut HashMap<InstData, (Value, usize)>, a: Value, span| -> Value {
        let Some(content) = cheap_of(f, a) else { return a };
        let at = out.len();
        if let Some(&(v, last)) = near.get(&content) {
            if at - last <= window {
                near.insert(content, (v, at));
                return v;
            }
        }
        let (ci, cv) = new_inst(f, content.clone(), span);
        let cv = cv.expect("constants have results");
        out.push(ci);
        near.insert(content, (cv, at + 1));
        cv
    };
    let before: Vec<(Inst, Vec<Value>)> = old.iter().map(|&i| (i, f.insts[i].args())).collect();
    for (i, args) in before {
        if is_cheap(&f.insts[i]) {
            continue;
        }
        let span = f.spans[i];
        let mut mapped = Vec::with_capacity(args.len());
        for a in args {
            mapped.push(copy_for(f, &mut out, &mut near, a, span));
        }
        let mut k = 0;
        f.insts[i].map_args(|_| {
            let v = mapped[k];
            k += 1;
            v
        });
        out.push(i);
    }
    let span = f.blocks[b].term_span;
    let targs = f.blocks[b].term.args();
    let mut mapped = Vec::with_capacity(targs.len());
    for a in targs {
        mapped.push(copy_for(f, &mut out, &mut near, a, span));
    }
    let mut k = 0;
    f.blocks[b].term.map_args(|_| {
        let v = mapped[k];
        k += 1;
        v
    });
    let changed = out != old;
    f.blocks[b].insts = out;
    changed
}
