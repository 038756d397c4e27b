//! Loop predication: a loop whose lanes leave at different iterations runs
//! until no lane of the wave is left, so that the wave operations in its body
//! run with every lane each iteration.
//!
//! The body, cut at its `break_if`s into segments, becomes
//! ```text
//! header(params, alive, exits):
//!   if alive { segment 0 }                  // merge M0: the segment's values
//!   leave = alive && cond0; alive = alive && !cond0
//!   exits = leave ? (break args, live-outs) : exits
//!   break_if !wave_any(alive) to exit(exits)   // the same in every lane
//!   if alive { segment 1 } ...
//!   jump header(next, alive, exits)
//! ```
//! `alive` starts as the loop's activity argument (true, until splitting an
//! enclosing `if` and-s it with the `if`'s condition). Lanes no longer alive
//! skip every segment, so they have no effects; each lane's exit values are
//! kept from the iteration where it left. Values of the body that are read
//! after the loop (live-outs) leave through new exit parameters.

use super::flow;
use crate::diag::Span;
use crate::ir::structure::{block_order, Node};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// The loop that `pre` enters.
pub struct LoopSite<'a> {
    pub pre: Block,
    pub header: Block,
    pub body: &'a [Node],
    pub exit: Block,
    /// Every block of the function, in region order.
    pub all: &'a [Block],
}

/// Predicates the loop; returns the index of its activity argument, or None
/// (changing nothing) if its shape is not the structured one.
pub fn predicate(f: &mut Function, site: &LoopSite) -> Option<usize> {
    let Terminator::Loop { header, .. } = f.blocks[site.pre].term else { return None };
    if header != site.header {
        return None;
    }
    let span = f.blocks[site.pre].term_span;
    let segments = segments(f, site.body, site.exit)?;
    let body: Vec<Block> = block_order(site.body);
    let in_body: BTreeSet<Block> = body.iter().copied().collect();
    let outside: Vec<Block> = site.all.iter().copied().filter(|b| !in_body.contains(b)).collect();
    let live_outs: Vec<Value> = flow::defs(f, &body).intersection(&flow::uses(f, &outside)).copied().collect();
    // Loop-carried values are 32-bit or narrower (selection's rule); a 64-bit
    // live-out is left to the driver's refusal (E0411).
    if live_outs.iter().any(|&v| matches!(f.value_type(v), Type::I64 | Type::F64)) {
        return None;
    }

    // New loop-carried values: the activity and the exit values kept per lane.
    let alive_index = f.blocks[site.header].params.len();
    let mut carried: Vec<Value> = f.blocks[site.exit].params.clone();
    carried.extend(live_outs.iter().copied());
    let mut alive = f.append_param(site.header, Type::Bool);
    let mut exits: Vec<Value> =
        carried.iter().map(|&v| f.value_type(v)).collect::<Vec<_>>().into_iter().map(|ty| f.append_param(site.header, ty)).collect();
    let yes = f.append_inst(site.pre, InstData::Const { ty: Type::Bool, bits: 1 }, span)?;
    let initial = flow::stand_ins(f, site.pre, &carried, span);
    if let Terminator::Loop { args, .. } = &mut f.blocks[site.pre].term {
        args.push(yes);
        args.extend(initial);
    }

    // The header keeps its parameters; its code moves to the first segment.
    let first = flow::split_block(f, site.header, 0);
    f.loop_hints[first] = f.loop_hints[site.header];
    f.loop_hints[site.header] = LoopHint::None;
    let swap = |b: Block| if b == site.header { first } else { b };
    let body: Vec<Block> = body.into_iter().map(swap).collect();

    let mut guard = site.header;
    let mut renamed: BTreeMap<Value, Value> = BTreeMap::new();
    let live_set: BTreeSet<Value> = live_outs.iter().copied().collect();
    for (s, nodes) in segments.iter().enumerate() {
        let blocks: Vec<Block> = block_order(nodes).into_iter().map(swap).collect();
        let top: Vec<Block> = nodes.iter().filter_map(|n| if let Node::Block(b) = n { Some(swap(*b)) } else { None }).collect();
        let (&entry, &last) = (blocks.first()?, top.last()?);
        let mine: BTreeSet<Block> = blocks.iter().copied().collect();
        let others: Vec<Block> = body.iter().copied().filter(|b| !mine.contains(b)).collect();
        let end = std::mem::take(&mut f.blocks[last].term);
        let mut read = flow::uses(f, &others);
        read.extend(end.args());
        read.extend(live_set.iter().copied());
        let flows: Vec<Value> = flow::defs(f, &top).intersection(&read).copied().collect();
        let merge = f.create_block();
        let (carried, map) = flow::carry(f, last, merge, &flows, span);
        f.set_terminator(last, Terminator::Jump { dest: merge, args: carried.clone() }, span);
        let empty = f.create_block();
        let stand_ins = flow::stand_ins(f, empty, &carried, span);
        f.set_terminator(empty, Terminator::Jump { dest: merge, args: stand_ins }, span);
        f.set_terminator(guard, Terminator::If { cond: alive, then_dest: entry, else_dest: empty, merge }, span);
        flow::rename_in(f, &others, &map);
        renamed.extend(map);
        let g = |v: Value| renamed.get(&v).copied().unwrap_or(v);
        match end {
            Terminator::BreakIf { cond, args, .. } if s + 1 < segments.len() => {
                let cond = g(cond);
                let mut leaving: Vec<Value> = args.iter().map(|&v| g(v)).collect();
                leaving.extend(live_outs.iter().map(|&v| g(v)));
                let next = f.create_block();
                let (now_alive, now_exits) = gather(f, merge, alive, cond, &leaving, &exits, span)?;
                let any = f.append_inst(merge, InstData::WaveVote { op: VoteOp::Any, cond: now_alive }, span)?;
                let none = f.append_inst(merge, InstData::Unary { op: UnaryOp::BNot, arg: any }, span)?;
                f.set_terminator(merge, Terminator::BreakIf { cond: none, exit: site.exit, args: now_exits.clone(), cont: next }, span);
                alive = now_alive;
                exits = now_exits;
                guard = next;
            }
            Terminator::Jump { dest, args } if dest == site.header && s + 1 == segments.len() => {
                let mut args: Vec<Value> = args.iter().map(|&v| g(v)).collect();
                args.push(alive);
                args.extend(exits.iter().copied());
                f.set_terminator(merge, Terminator::Jump { dest, args }, span);
            }
            _ => return None,
        }
    }

    // Live-outs are read after the loop from the exit's new parameters.
    let mut after = BTreeMap::new();
    for &v in &live_outs {
        let ty = f.value_type(v);
        after.insert(v, f.append_param(site.exit, ty));
    }
    flow::rename_in(f, &outside, &after);
    Some(alive_index)
}

/// The body's nodes cut after each `break_if` to `exit` at its top level; the
/// last segment ends with the back edge.
fn segments<'a>(f: &Function, body: &'a [Node], exit: Block) -> Option<Vec<&'a [Node]>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, n) in body.iter().enumerate() {
        if let Node::Block(b) = n {
            if matches!(f.blocks[*b].term, Terminator::BreakIf { exit: e, .. } if e == exit) {
                out.push(&body[start..=k]);
                start = k + 1;
            }
        }
    }
    if start >= body.len() {
        return None;
    }
    out.push(&body[start..]);
    Some(out)
}

/// In `block`: the lanes still alive after a `break_if` on `cond`, and the
/// exit values where lanes leave now (`leaving`) or keep theirs (`exits`).
fn gather(
    f: &mut Function,
    block: Block,
    alive: Value,
    cond: Value,
    leaving: &[Value],
    exits: &[Value],
    span: Span,
) -> Option<(Value, Vec<Value>)> {
    let no = f.append_inst(block, InstData::Const { ty: Type::Bool, bits: 0 }, span)?;
    let leave = f.append_inst(block, InstData::Select { ty: Type::Bool, cond, args: [alive, no] }, span)?;
    let stay = f.append_inst(block, InstData::Select { ty: Type::Bool, cond, args: [no, alive] }, span)?;
    let mut out = Vec::new();
    for (&new, &old) in leaving.iter().zip(exits) {
        let ty = f.value_type(old);
        out.push(f.append_inst(block, InstData::Select { ty, cond: leave, args: [new, old] }, span)?);
    }
    Some((stay, out))
}
