//! Splitting a divergent `if` around one wave operation (or one predicated
//! loop that holds wave operations) in one of its regions:
//!
//! ```text
//! if c { A; w = wave(x); B } else { E }
//! ```
//! becomes
//! ```text
//! if c { A } else { }          // merge M1: A's values that the rest reads
//! w = wave(select(c, x, identity))
//! if c { B } else { E }
//! ```
//! (mirrored for the else region). Lanes that skip A pass stand-in values to
//! M1; the wave operation then runs with every lane that reached the `if`.
//! A loop is moved out the same way, its activity argument and-ed with `c`.

use super::flow;
use super::lanes;
use crate::ir::structure::{block_order, Node};
use crate::ir::*;

/// What moves out of the `if`.
#[derive(Clone, Copy, Debug)]
pub enum Item {
    /// Instruction number `index` of `block`.
    Inst { block: Block, index: usize },
    /// The loop entered from `pre`; `alive` is the index of its argument
    /// that says which lanes take part.
    Loop { pre: Block, exit: Block, alive: usize },
}

/// The `if` ended by `head`, with the item in node `at` of its then region
/// (`in_then`) or else region: the `Node::Block` holding the instruction, or
/// the `Node::Loop`.
pub struct Site<'a> {
    pub head: Block,
    pub region: &'a [Node],
    pub in_then: bool,
    pub at: usize,
    pub item: Item,
}

/// Performs the split; returns false (changing nothing) if `head` is not an `if`.
pub fn split(f: &mut Function, site: &Site) -> bool {
    let Terminator::If { cond, then_dest, else_dest, merge } = f.blocks[site.head].term.clone() else {
        return false;
    };
    let span = f.blocks[site.head].term_span;
    // An instruction's block ends the part before it (its first `index` instructions stay there).
    let upto = match site.item {
        Item::Inst { .. } => site.at + 1,
        Item::Loop { .. } => site.at,
    };
    let before = block_order(&site.region[..upto]);
    let after = block_order(&site.region[site.at + 1..]);
    // The part after the item starts in `cont`, which takes the tail of the block holding it.
    let (cont, mut rest, moved) = match site.item {
        Item::Inst { block, index } => {
            let cont = flow::split_block(f, block, index + 1);
            let moved = f.blocks[block].insts.pop();
            let mut rest = vec![cont];
            rest.extend(after.iter().copied());
            (cont, rest, moved)
        }
        Item::Loop { exit, .. } => {
            let cont = flow::split_block(f, exit, 0);
            let mut rest = block_order(&site.region[site.at..site.at + 1]);
            rest.push(cont);
            rest.extend(after.iter().copied().filter(|&b| b != exit));
            (cont, rest, None)
        }
    };
    // The block that ends the part before the item: the item's own block, or the loop's pre block.
    let last = match site.item {
        Item::Inst { block, .. } => block,
        Item::Loop { pre, .. } => pre,
    };
    let loop_term = match site.item {
        Item::Loop { .. } => Some(std::mem::take(&mut f.blocks[last].term)),
        Item::Inst { .. } => None,
    };
    let defined = flow::defs(f, &before);
    let mut read = flow::uses(f, &rest);
    if let Some(i) = moved {
        read.extend(f.insts[i].args());
    }
    if let Some(t) = &loop_term {
        read.extend(t.args());
    }
    let flows: Vec<Value> = defined.intersection(&read).copied().collect();
    let m1 = f.create_block();
    let (carried, map) = flow::carry(f, last, m1, &flows, span);
    f.set_terminator(last, Terminator::Jump { dest: m1, args: carried.clone() }, span);
    let empty = f.create_block();
    let stand_ins = flow::stand_ins(f, empty, &carried, span);
    f.set_terminator(empty, Terminator::Jump { dest: m1, args: stand_ins }, span);
    let (t1, e1) = if site.in_then { (then_dest, empty) } else { (empty, else_dest) };
    f.set_terminator(site.head, Terminator::If { cond, then_dest: t1, else_dest: e1, merge: m1 }, span);
    rest.sort();
    rest.dedup();
    flow::rename_in(f, &rest, &map);
    let active = if site.in_then {
        cond
    } else {
        match f.append_inst(m1, InstData::Unary { op: UnaryOp::BNot, arg: cond }, span) {
            Some(v) => v,
            None => return false,
        }
    };
    let (t2, e2) = if site.in_then { (cont, else_dest) } else { (then_dest, cont) };
    let second = Terminator::If { cond, then_dest: t2, else_dest: e2, merge };
    match (site.item, moved, loop_term) {
        (Item::Inst { .. }, Some(inst), _) => {
            f.insts[inst].map_args(|v| map.get(&v).copied().unwrap_or(v));
            let ispan = f.spans[inst];
            lanes::append_for_all_lanes(f, m1, inst, active, ispan);
            f.set_terminator(m1, second, span);
        }
        (Item::Loop { pre, exit, alive, .. }, _, Some(mut term)) => {
            term.map_args(|v| map.get(&v).copied().unwrap_or(v));
            if let Terminator::Loop { args, .. } = &mut term {
                if let Some(a) = args.get(alive).copied() {
                    let no = f.append_inst(m1, InstData::Const { ty: Type::Bool, bits: 0 }, span);
                    if let Some(both) =
                        no.and_then(|no| f.append_inst(m1, InstData::Select { ty: Type::Bool, cond: active, args: [a, no] }, span))
                    {
                        args[alive] = both;
                    }
                }
            }
            let lspan = f.blocks[pre].term_span;
            f.set_terminator(m1, term, lspan);
            f.loop_hints[m1] = f.loop_hints[pre];
            f.loop_hints[pre] = LoopHint::None;
            f.set_terminator(exit, second, span);
        }
        _ => return false,
    }
    true
}
