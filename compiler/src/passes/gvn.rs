//! Global value numbering (`gvn`): a walk of the dominator tree with a scoped
//! table of the expressions available at each point (Briggs, Cooper and
//! Simpson, "Value Numbering", 1997, the dominator-based variant). An
//! instruction that computes an expression already available in a
//! dominating block is replaced by the earlier result.
//!
//! * Operands are compared by value number; commutative operands are sorted
//!   and compares put in one orientation, so `a + b` and `b + a`, `x < y` and
//!   `y > x` meet.
//! * Constants and special registers are cheap to recompute and costly to
//!   keep live: two of them merge only within a block, but they number by
//!   content, so `x * 12` in one block and `x * 12` in a dominated one are
//!   the same expression whichever `iconst 12` each reads. An operation of a
//!   value with a constant (`x + c`, `x << c`: address arithmetic, the
//!   issue's repeated `mov_imm 2; shl`) is cheap too: it merges within its
//!   block, where the address computations of neighbouring accesses meet,
//!   but is recomputed in another block rather than held in a register
//!   across everything in between (`sink` then places the constants).
//! * Booleans merge only within a block: a compare used next to where it is
//!   made becomes a predicate in selection, one kept across blocks would need
//!   a V register.
//! * Wave operations merge only within a block (the convergence rule: two in
//!   different blocks may run over different lanes).
//! * Loads from read-only memory merge like arithmetic; loads from device or
//!   local memory only when no store, atomic, barrier or fence may run
//!   between the two (`memory::MemOrder`), in any loop iteration.
//! * Stores, atomics, barriers and fences never merge.
//!
//! Merging lengthens live ranges. The pass first merges everything, `x + c`
//! across blocks included; when that would lower the occupancy it numbers as
//! above. When the full numbering would raise the
//! estimated register pressure enough to lower the occupancy (or past a
//! `--target-occupancy` budget: `PassContext::allows`), the pass numbers in a thrifty mode (an operation
//! with a constant and a cbuffer field load are reused only within
//! [`NEAR_WINDOW`] instructions of their last use in the same block, and
//! computed or loaded again farther away), then in a local one (thrifty, and
//! nothing merges across blocks), and keeps the first within the budget, else
//! whichever needs the fewest registers, the unnumbered function included:
//! occupancy comes before instruction counts.

use super::dom::DomTree;
use super::loops::Loops;
use super::memory::MemOrder;
use super::PassContext;
use crate::ir::structure::region_tree;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The `gvn` pass: the most thorough numbering (`Mode`) whose estimated
/// pressure the context allows (`PassContext::allows`: no lower occupancy),
/// else whichever needs the fewest registers, the function as it was included.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    let before = max_pressure(f);
    let mut best: Option<(u32, Function)> = None;
    for mode in [Mode::All, Mode::Full, Mode::Thrifty, Mode::Local] {
        let mut g = f.clone();
        if !number(&mut g, mode) {
            // Nothing merges in this mode, so nothing merges in the narrower ones.
            break;
        }
        let p = max_pressure(&g);
        // Merging across blocks only where the registers are there.
        if mode == Mode::All && !cx.within_budget(p) {
            continue;
        }
        if cx.allows(before, p) {
            *f = g;
            return true;
        }
        if best.as_ref().is_none_or(|(bp, _)| p < *bp) {
            best = Some((p, g));
        }
    }
    match best {
        Some((p, g)) if p < before => {
            *f = g;
            true
        }
        _ => false,
    }
}

/// The pressure estimate, not counting constants and special registers:
/// `sink` rematerializes those next to their uses after this pass.
fn max_pressure(f: &Function) -> u32 {
    let Ok(nodes) = region_tree(f) else { return 0 };
    let loops = Loops::new(f, &nodes);
    super::pressure::estimate_with(f, &nodes, &loops, true).max
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Registers to spare: an operation of a value with a constant merges
    /// across blocks too.
    All,
    Full,
    /// Registers are short: what is cheap to compute again is, unless near.
    Thrifty,
    /// Shorter still: thrifty, and nothing merges across blocks.
    Local,
}

fn number(f: &mut Function, mode: Mode) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let dom = DomTree::new(f, &nodes);
    let loops = Loops::new(f, &nodes);
    let mem = MemOrder::new(f, &nodes, &loops);
    let inst_block = f.inst_blocks();
    let mut g = Numbering { f, mode, replace: SecondaryMap::new(), canon: HashMap::new() };
    // Expressions available in the dominating blocks, with an undo log per scope.
    let mut scoped: HashMap<InstData, Inst> = HashMap::new();
    let mut undo: Vec<(InstData, Option<Inst>)> = Vec::new();
    let mut dead: BTreeSet<Inst> = BTreeSet::new();
    // Iterative preorder walk: (block, next child, undo length on entry).
    let mut stack: Vec<(Block, usize, usize)> = vec![(dom.root(), 0, 0)];
    g.visit(dom.root(), &mut scoped, &mut undo, &mut dead, &mem, &loops, &inst_block);
    while let Some(&mut (b, ref mut next, mark)) = stack.last_mut() {
        if let Some(&c) = dom.children(b).get(*next) {
            *next += 1;
            let m = undo.len();
            stack.push((c, 0, m));
            g.visit(c, &mut scoped, &mut undo, &mut dead, &mem, &loops, &inst_block);
        } else {
            while undo.len() > mark {
                let (key, old) = undo.pop().expect("undo entry");
                match old {
                    Some(i) => scoped.insert(key, i),
                    None => scoped.remove(&key),
                };
            }
            stack.pop();
        }
    }
    if dead.is_empty() {
        return false;
    }
    let map: BTreeMap<Value, Value> = g.replace.iter().filter_map(|(v, r)| r.map(|r| (v, r))).collect();
    f.replace_uses(&map);
    for &b in &dom.order {
        f.blocks[b].insts.retain(|i| !dead.contains(i));
    }
    true
}

struct Numbering<'a> {
    f: &'a Function,
    mode: Mode,
    replace: SecondaryMap<Value, Option<Value>>,
    /// The first constant or special register with each content, by content.
    canon: HashMap<InstData, Value>,
}

/// How far apart two uses of a cheap expression may be, in thrifty mode, and
/// still share one computation (instructions of one block).
pub const NEAR_WINDOW: usize = 12;

/// How widely an expression may be reused.
#[derive(PartialEq)]
enum Reach {
    Never,
    Block,
    /// In the same block, within `NEAR_WINDOW` instructions of its last use.
    Near,
    Dominated,
    /// Dominated, if memory is not written in between.
    MemoryDependent(MemSpace),
}

impl Numbering<'_> {
    fn resolve(&self, mut v: Value) -> Value {
        while let Some(r) = self.replace[v] {
            v = r;
        }
        v
    }

    /// The value number of `v`: constants and special registers by content.
    fn number(&self, v: Value) -> Value {
        let v = self.resolve(v);
        match self.f.def_inst(v).map(|i| &self.f.insts[i]) {
            Some(d @ (InstData::Const { .. } | InstData::Special { .. })) => self.canon.get(d).copied().unwrap_or(v),
            _ => v,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        b: Block,
        scoped: &mut HashMap<InstData, Inst>,
        undo: &mut Vec<(InstData, Option<Inst>)>,
        dead: &mut BTreeSet<Inst>,
        mem: &MemOrder,
        loops: &Loops,
        inst_block: &SecondaryMap<Inst, Option<Block>>,
    ) {
        let f = self.f;
        let mut local: HashMap<InstData, Inst> = HashMap::new();
        // Thrifty mode: the instruction and the position of its last use.
        let mut near: HashMap<InstData, (Inst, usize)> = HashMap::new();
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            let Some(result) = f.results[i] else { continue };
            let data = &f.insts[i];
            let reach = reach(f, data, result, self.mode);
            if reach == Reach::Never {
                continue;
            }
            if matches!(data, InstData::Const { .. } | InstData::Special { .. }) {
                self.canon.entry(data.clone()).or_insert(result);
            }
            let key = self.key(data);
            if reach == Reach::Near {
                match near.get(&key) {
                    Some(&(earlier, last)) if pos - last <= NEAR_WINDOW => {
                        self.replace[result] = Some(f.results[earlier].expect("a value-numbered instruction has a result"));
                        dead.insert(i);
                        near.insert(key, (earlier, pos));
                    }
                    _ => {
                        near.insert(key, (i, pos));
                    }
                }
                continue;
            }
            let in_block = reach == Reach::Block || self.mode == Mode::Local;
            let table: &mut HashMap<InstData, Inst> = if in_block { &mut local } else { scoped };
            if let Some(&earlier) = table.get(&key) {
                let reusable = match reach {
                    Reach::MemoryDependent(space) => {
                        let eb = inst_block[earlier].unwrap_or(b);
                        !mem.written_between(space, earlier, eb, i, b, loops)
                    }
                    _ => true,
                };
                if reusable {
                    let to = f.results[earlier].expect("a value-numbered instruction has a result");
                    self.replace[result] = Some(to);
                    dead.insert(i);
                    continue;
                }
            }
            let old = table.insert(key.clone(), i);
            if !in_block {
                undo.push((key, old));
            }
        }
    }

    /// The expression `data` computes, with operands by value number in a canonical order.
    fn key(&self, data: &InstData) -> InstData {
        let mut k = data.clone();
        k.map_args(|a| self.number(a));
        match &mut k {
            InstData::Binary { op, args } if op.is_commutative() && args[1] < args[0] => args.swap(0, 1),
            InstData::Cmp { op, args } if args[1] < args[0] => {
                args.swap(0, 1);
                *op = op.swapped();
            }
            _ => {}
        }
        k
    }
}

fn reach(f: &Function, data: &InstData, result: Value, mode: Mode) -> Reach {
    if data.has_side_effects() {
        return Reach::Never;
    }
    if !matches!(mode, Mode::All | Mode::Full) {
        let cheap = match *data {
            InstData::Binary { op, args: [_, c] } => {
                super::edit::const_of(f, c).is_some()
                    && matches!(
                        op,
                        BinaryOp::IAdd | BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor
                    )
            }
            InstData::Load { space: MemSpace::DeviceReadOnly, ty, addr } => super::edit::load_cannot_fault(f, addr, ty),
            _ => false,
        };
        if cheap {
            return Reach::Near;
        }
    }
    if data.is_convergent() || f.value_type(result) == Type::Bool || matches!(data, InstData::Const { .. } | InstData::Special { .. }) {
        return Reach::Block;
    }
    // `x + c`, `x << c`: one instruction from a value that is usually live anyway;
    // keeping one across blocks would hold a register for two instructions' worth.
    if let InstData::Binary { op, args: [_, c] } = data {
        if mode != Mode::All
            && super::edit::const_of(f, *c).is_some()
            && matches!(op, BinaryOp::IAdd | BinaryOp::Shl | BinaryOp::LShr | BinaryOp::AShr | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
        {
            return Reach::Block;
        }
    }
    match data {
        InstData::Load { space: MemSpace::DeviceReadOnly, .. } => Reach::Dominated,
        InstData::Load { space, .. } => Reach::MemoryDependent(*space),
        _ => Reach::Dominated,
    }
}
