//! Loop-invariant code motion (`licm`) within a register budget.
//!
//! An instruction whose operands are all defined outside a loop computes the
//! same value on every iteration, and moving it to the loop's preheader
//! saves its cost on every iteration after the first, but its result then
//! occupies a register through the whole loop. So the pass keeps an
//! estimate of each loop's pressure (`pressure::estimate`) and hoists only
//! while that stays within the budget (`PassContext::register_budget`: the
//! target occupancy's, or by default the most registers that keep the
//! occupancy the kernel already has). Hoisting `t = x * 3` adds `t` to the
//! loop's live values, and removes `x` when `t` was its last use inside.
//!
//! Innermost loops go first, so a value can climb out of several loops.
//! Expensive values go before cheap ones: constants and special registers
//! are rematerialized rather than kept live (an operand of a hoisted
//! instruction that is a constant inside the loop gets a copy in the
//! preheader), and are hoisted themselves last, while registers remain.
//!
//! Safety: wave operations and barriers never move (the convergence rule),
//! nor do stores, atomics or fences. Pure arithmetic cannot fault, so it
//! moves from anywhere in the loop (division by zero gives a defined value
//! on WAVE). Loads move only from the blocks that run on every iteration
//! (before the first `break_if`), or from anywhere if they cannot fault (a
//! cbuffer field: `Function::readable`), from memory that the loop cannot write:
//! read-only memory, or device or local memory with no store, atomic,
//! barrier or fence in the loop. Booleans stay, so that they remain
//! predicates at their uses.

use super::loops::{LoopId, Loops};
use super::memory::MemOrder;
use super::pressure;
use super::PassContext;
use crate::ir::structure::region_tree;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The `licm` pass.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let loops = Loops::new(f, &nodes);
    if loops.loops.is_empty() {
        return false;
    }
    let mem = MemOrder::new(f, &nodes, &loops);
    let p = pressure::estimate(f, &nodes, &loops);
    let mut h = Hoister {
        budget: cx.register_budget(p.max),
        per_loop: p.per_loop,
        home: SecondaryMap::new(),
        fwd: SecondaryMap::new(),
        total: SecondaryMap::new(),
        changed: false,
    };
    for b in crate::ir::structure::block_order(&nodes) {
        for &q in &f.blocks[b].params {
            h.home[q] = Some(b);
        }
        for &i in &f.blocks[b].insts {
            if let Some(r) = f.results[i] {
                h.home[r] = Some(b);
            }
            for a in f.insts[i].args() {
                h.total[a] += 1;
            }
        }
        for a in f.blocks[b].term.args() {
            h.total[a] += 1;
        }
    }
    for l in (0..loops.loops.len()).rev() {
        h.hoist_loop(f, &loops, &mem, l);
    }
    let map: BTreeMap<Value, Value> = h.fwd.iter().filter_map(|(v, t)| t.map(|t| (v, t))).collect();
    f.replace_uses(&map);
    // A preheader may now hold a hoisted copy of a constant it had already.
    let merged = super::sink::merge_block_copies(f, cx);
    h.changed | merged
}

struct Hoister {
    budget: u32,
    per_loop: Vec<u32>,
    /// The block that defines each value now.
    home: SecondaryMap<Value, Option<Block>>,
    /// Cheap values replaced by a preheader copy.
    fwd: SecondaryMap<Value, Option<Value>>,
    /// Uses of each value in the whole function.
    total: SecondaryMap<Value, u32>,
    changed: bool,
}

fn is_cheap(data: &InstData) -> bool {
    matches!(data, InstData::Const { .. } | InstData::Special { .. })
}

fn resolve(fwd: &SecondaryMap<Value, Option<Value>>, mut v: Value) -> Value {
    while let Some(t) = fwd[v] {
        v = t;
    }
    v
}

/// A preheader copy of a cheap value, and whether it is already live through the loop.
struct Copy {
    value: Value,
    live_in_loop: bool,
}

impl Hoister {
    fn hoist_loop(&mut self, f: &mut Function, loops: &Loops, mem: &MemOrder, l: LoopId) {
        let info = &loops.loops[l];
        let inside = |h: &Hoister, v: Value| h.home[v].is_some_and(|b| loops.contains(l, b));
        // Uses of each value inside the loop.
        let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
        for &b in &info.blocks {
            for &i in &f.blocks[b].insts {
                for a in f.insts[i].args() {
                    uses[resolve(&self.fwd, a)] += 1;
                }
            }
            for a in f.blocks[b].term.args() {
                uses[resolve(&self.fwd, a)] += 1;
            }
        }
        let direct: Vec<(Block, Inst)> = info
            .blocks
            .iter()
            .filter(|&&b| loops.innermost[b] == Some(l))
            .flat_map(|&b| f.blocks[b].insts.iter().map(move |&i| (b, i)))
            .collect();
        let mut hoisted: Vec<Inst> = Vec::new();
        let mut gone: BTreeSet<Inst> = BTreeSet::new();
        let mut copies: HashMap<InstData, Copy> = HashMap::new();
        for &(b, i) in &direct {
            let Some(r) = f.results[i] else { continue };
            let mut data = f.insts[i].clone();
            if is_cheap(&data) || !movable(f, &data, r) {
                continue;
            }
            if let InstData::Load { space, ty, addr } = data {
                let safe = info.always.contains(&b) || super::edit::load_cannot_fault(f, addr, ty);
                if !safe || mem.written_in_loop(space, l) {
                    continue;
                }
            }
            data.map_args(|a| resolve(&self.fwd, a));
            let args = data.args();
            let cheap: Vec<bool> = args.iter().map(|&a| inside(self, a) && f.def_inst(a).is_some_and(|d| is_cheap(&f.insts[d]))).collect();
            if args.iter().zip(&cheap).any(|(&a, &c)| inside(self, a) && !c) {
                continue;
            }
            // Registers: the result is live through the loop; an operand used
            // nowhere else but inside the loop, last here, no longer is.
            let mut delta: i64 = 1;
            let mut seen: Vec<Value> = Vec::new();
            for (&a, &c) in args.iter().zip(&cheap) {
                if seen.contains(&a) || c {
                    continue;
                }
                seen.push(a);
                let here = args.iter().filter(|&&x| x == a).count() as u32;
                if uses[a] == here && self.total[a] == uses[a] {
                    delta -= 1;
                }
            }
            if delta > 0 && self.per_loop[l] as i64 + delta > self.budget as i64 {
                continue;
            }
            // Constants and special registers it reads get preheader copies.
            let mut remap: Vec<(Value, Value)> = Vec::new();
            for (&a, &c) in args.iter().zip(&cheap) {
                if !c || remap.iter().any(|(x, _)| *x == a) {
                    continue;
                }
                let content = f.insts[f.def_inst(a).expect("cheap values are instructions")].clone();
                let copy = match copies.get(&content) {
                    Some(c) => c.value,
                    None => {
                        let span = f.spans[i];
                        let (ci, cv) = super::edit::new_inst(f, content.clone(), span);
                        let cv = cv.expect("constants have results");
                        hoisted.push(ci);
                        self.home[cv] = Some(info.pre);
                        copies.insert(content, Copy { value: cv, live_in_loop: false });
                        cv
                    }
                };
                remap.push((a, copy));
            }
            data.map_args(|a| remap.iter().find(|(x, _)| *x == a).map_or(a, |&(_, c)| c));
            for &a in &args {
                uses[a] = uses[a].saturating_sub(1);
            }
            f.insts[i] = data;
            hoisted.push(i);
            gone.insert(i);
            self.home[r] = Some(info.pre);
            self.per_loop[l] = (self.per_loop[l] as i64 + delta).max(0) as u32;
        }
        // Cheap values last, while registers remain: one preheader copy per content.
        for &(_, i) in &direct {
            let Some(r) = f.results[i] else { continue };
            let data = f.insts[i].clone();
            if !is_cheap(&data) || uses[r] == 0 || gone.contains(&i) {
                continue;
            }
            match copies.get_mut(&data) {
                Some(c) if c.live_in_loop => {
                    self.fwd[r] = Some(c.value);
                    gone.insert(i);
                }
                Some(c) if self.per_loop[l] < self.budget => {
                    c.live_in_loop = true;
                    self.fwd[r] = Some(c.value);
                    gone.insert(i);
                    self.per_loop[l] += 1;
                }
                Some(_) => {}
                None if self.per_loop[l] < self.budget => {
                    copies.insert(data, Copy { value: r, live_in_loop: true });
                    hoisted.push(i);
                    gone.insert(i);
                    self.home[r] = Some(info.pre);
                    self.per_loop[l] += 1;
                }
                None => {}
            }
        }
        if gone.is_empty() && hoisted.is_empty() {
            return;
        }
        self.changed = true;
        for &b in &info.blocks {
            if loops.innermost[b] == Some(l) {
                f.blocks[b].insts.retain(|i| !gone.contains(i));
            }
        }
        f.blocks[info.pre].insts.extend(hoisted);
        if let Some(parent) = info.parent {
            self.per_loop[parent] = self.per_loop[parent].max(self.per_loop[l]);
        }
    }
}

/// Pure instructions that do not depend on the active lanes.
fn movable(f: &Function, data: &InstData, result: Value) -> bool {
    !data.has_side_effects() && !data.is_convergent() && !matches!(data, InstData::KernelArg { .. }) && f.value_type(result) != Type::Bool
}
