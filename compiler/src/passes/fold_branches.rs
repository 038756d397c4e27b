//! Branch folding (`fold-branches`): control flow that constants decide.
//!
//! * `if` on a constant keeps the side it takes; the other region becomes
//!   unreachable and is removed.
//! * `if` on `bnot c` branches on `c` with the regions swapped, unless that
//!   would leave the `then` region empty and the `else` region not: an `if`
//!   with nothing to do in `then` (`if (i >= n) return;`) branches on `bnot c`
//!   instead, so the listing has `if !p ... endif` (or the inverted compare)
//!   rather than an empty `if p` / `else`.
//! * `if` whose two regions are empty and pass the same values to the merge
//!   is just a jump.
//! * `break_if false` falls through (unless it is all that is left of the
//!   loop's exits: an endless loop keeps them); a loop whose first `break_if` is
//!   `true` runs its body once up to that exit and is no loop at all: the
//!   body's prefix is spliced between the preheader and the exit. (A later
//!   `break_if true` makes the rest of the body unreachable.)
//! * Straight-line chains (a block that jumps to a block with no other
//!   predecessor) become one block, so the regions left behind by the rules
//!   above do not cost a block each.
//!
//! Instructions are never moved across a branch that remains: a dissolved
//! loop's body ran exactly once with the lanes that entered it, which is
//! what the spliced code does, so convergent operations keep their lanes.

use super::edit::{clear_unreachable, const_of};
use super::loops::Loops;
use super::PassContext;
use crate::ir::structure::{block_order, region_tree, Node};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// The `fold-branches` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let mut changed = fold_terminators(f);
    changed |= clear_unreachable(f);
    changed |= merge_chains(f);
    changed |= clear_unreachable(f);
    changed
}

/// Only the rule for `if`s whose two regions are empty and pass the same
/// values to the merge (each becomes a jump), and the merging of the
/// straight-line chains this leaves: the cleanup `converge-waves` runs after
/// splitting, which leaves such an `if` where a wave operation was the first
/// thing in its region. Constant branches are not folded.
pub fn drop_empty_ifs(f: &mut Function) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    if !fold_empty_ifs(f, &nodes) {
        return false;
    }
    clear_unreachable(f);
    merge_chains(f);
    clear_unreachable(f);
    true
}

/// `if`s whose regions are one empty block each, passing the same values to
/// the merge, become jumps (to the then block, which jumps to the merge).
fn fold_empty_ifs(f: &mut Function, nodes: &[Node]) -> bool {
    let mut changed = false;
    let mut ifs: Vec<(Block, Block, Block)> = Vec::new(); // (head, then block, else block) of empty ifs
    collect_empty_ifs(f, nodes, &mut ifs);
    for (head, then_b, else_b) in ifs {
        let args = |b: Block| match &f.blocks[b].term {
            Terminator::Jump { args, .. } => args.clone(),
            _ => Vec::new(),
        };
        if matches!(f.blocks[head].term, Terminator::If { .. }) && args(then_b) == args(else_b) {
            let span = f.blocks[head].term_span;
            f.set_terminator(head, Terminator::Jump { dest: then_b, args: vec![] }, span);
            changed = true;
        }
    }
    changed
}

/// Rewrites the terminators that constants decide.
fn fold_terminators(f: &mut Function) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let mut changed = fold_empty_ifs(f, &nodes);
    let mut empty = Vec::new();
    collect_empty_regions(f, &nodes, &mut empty);
    // `then` empty and `else` not: the `if` would do nothing but `else`.
    let only_else = |then_dest: Block, else_dest: Block| empty.contains(&then_dest) && !empty.contains(&else_dest);
    for b in block_order(&nodes) {
        let term = f.blocks[b].term.clone();
        if let Terminator::If { cond, then_dest, else_dest, merge } = term {
            let swapped = |cond: Value| Terminator::If { cond, then_dest: else_dest, else_dest: then_dest, merge };
            if let Some(c) = const_of(f, cond) {
                let dest = if c != 0 { then_dest } else { else_dest };
                f.blocks[b].term = Terminator::Jump { dest, args: vec![] };
                changed = true;
            } else if let Some(x) = negated(f, cond).filter(|_| !only_else(else_dest, then_dest)) {
                f.blocks[b].term = swapped(x);
                changed = true;
            } else if only_else(then_dest, else_dest) && negated(f, cond).is_none() {
                let span = f.blocks[b].term_span;
                let not = f.append_inst(b, InstData::Unary { op: UnaryOp::BNot, arg: cond }, span).expect("bnot has a result");
                f.blocks[b].term = swapped(not);
                changed = true;
            }
        }
    }
    // Loop exits decided by constants.
    let loops = Loops::new(f, &nodes);
    for l in &loops.loops {
        // A loop every exit of which is `break_if false` never ends: it keeps
        // those exits, since the structured form needs one (and the code after
        // the loop must stay reachable to stay well-formed).
        let exits =
            l.breaks.iter().filter(|&&b| !matches!(&f.blocks[b].term, Terminator::BreakIf { cond, .. } if const_of(f, *cond) == Some(0)));
        if exits.count() == 0 {
            continue;
        }
        // Whether a break_if that may be taken comes before this one.
        let mut earlier = false;
        for &b in &l.breaks {
            let Terminator::BreakIf { cond, ref args, cont, exit } = f.blocks[b].term else { continue };
            match const_of(f, cond) {
                Some(0) => {
                    f.blocks[b].term = Terminator::Jump { dest: cont, args: vec![] };
                    changed = true;
                }
                Some(_) => {
                    let args = args.clone();
                    if !earlier {
                        // Every lane that enters leaves here on the first iteration.
                        let Terminator::Loop { args: entry_args, .. } = f.blocks[l.pre].term.clone() else { break };
                        f.blocks[l.pre].term = Terminator::Jump { dest: l.header, args: entry_args };
                        f.loop_hints[l.pre] = LoopHint::None;
                        f.blocks[b].term = Terminator::Jump { dest: exit, args };
                        changed = true;
                    } else if !is_plain_back_edge(f, cont, l.header) {
                        // The rest of the body never runs: a bare back edge replaces it.
                        let back = f.create_block();
                        let params = f.blocks[l.header].params.clone();
                        let span = f.blocks[b].term_span;
                        f.set_terminator(back, Terminator::Jump { dest: l.header, args: params }, span);
                        f.blocks[b].term = Terminator::BreakIf { cond, exit, args, cont: back };
                        changed = true;
                    }
                    break;
                }
                None => earlier = true,
            }
        }
    }
    changed
}

/// `x` if `v` is `bnot x`.
fn negated(f: &Function, v: Value) -> Option<Value> {
    match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(InstData::Unary { op: UnaryOp::BNot, arg }) => Some(*arg),
        _ => None,
    }
}

/// Whether `b` is an empty block that only jumps back to `header` with the header's own parameters.
fn is_plain_back_edge(f: &Function, b: Block, header: Block) -> bool {
    let data = &f.blocks[b];
    data.insts.is_empty()
        && data.params.is_empty()
        && matches!(&data.term, Terminator::Jump { dest, args } if *dest == header && *args == f.blocks[header].params)
}

/// Ifs whose regions are one empty block each.
fn collect_empty_ifs(f: &Function, nodes: &[Node], out: &mut Vec<(Block, Block, Block)>) {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { head, then_region, else_region, .. } => {
                if let ([Node::Block(t)], [Node::Block(e)]) = (then_region.as_slice(), else_region.as_slice()) {
                    if f.blocks[*t].insts.is_empty() && f.blocks[*e].insts.is_empty() {
                        out.push((*head, *t, *e));
                    }
                }
                collect_empty_ifs(f, then_region, out);
                collect_empty_ifs(f, else_region, out);
            }
            Node::Loop { body, .. } => collect_empty_ifs(f, body, out),
        }
    }
}

/// Regions of ifs (`then` or `else`) that are one block without instructions.
fn collect_empty_regions(f: &Function, nodes: &[Node], out: &mut Vec<Block>) {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { then_region, else_region, .. } => {
                for r in [then_region, else_region] {
                    if let [Node::Block(x)] = r.as_slice() {
                        if f.blocks[*x].insts.is_empty() {
                            out.push(*x);
                        }
                    }
                    collect_empty_regions(f, r, out);
                }
            }
            Node::Loop { body, .. } => collect_empty_regions(f, body, out),
        }
    }
}

/// Joins each block that jumps to a block with no other predecessor with that block.
fn merge_chains(f: &mut Function) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let order = block_order(&nodes);
    let mut preds: SecondaryMap<Block, u32> = SecondaryMap::new();
    for &b in &order {
        for s in f.blocks[b].term.successors() {
            preds[s] += 1;
        }
    }
    let entry = f.entry_block();
    let mut gone: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut map: BTreeMap<Value, Value> = BTreeMap::new();
    let mut changed = false;
    for &b in &order {
        if gone[b] {
            continue;
        }
        while let Terminator::Jump { dest, ref args } = f.blocks[b].term {
            if dest == entry || dest == b || preds[dest] != 1 {
                break;
            }
            let args = args.clone();
            for (&p, &a) in f.blocks[dest].params.iter().zip(&args) {
                map.insert(p, a);
            }
            let moved = std::mem::take(&mut f.blocks[dest]);
            f.blocks[b].insts.extend(moved.insts);
            f.blocks[b].term = moved.term;
            f.blocks[b].term_span = moved.term_span;
            f.loop_hints[b] = f.loop_hints[dest];
            f.loop_hints[dest] = LoopHint::None;
            f.blocks[dest].term = Terminator::Return;
            gone[dest] = true;
            changed = true;
        }
    }
    f.replace_uses(&map);
    changed
}
