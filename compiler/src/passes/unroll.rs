//! Full unrolling (`unroll`) of loops whose trip count constants decide.
//!
//! The pass simulates a loop's top-level chain with the constant folder,
//! starting from the constant values its parameters enter with: each
//! iteration's `break_if` conditions must fold, and the values carried to
//! the next iteration are whatever folds (a counter, usually). When some
//! `break_if` folds to true after at most [`MAX_TRIPS`] iterations, the loop
//! is replaced by that many copies of its body followed by the body's prefix
//! up to that exit, chained by jumps: in copy `k` every `break_if` is a
//! fall-through, the back edge jumps to copy `k + 1`, and the exiting
//! `break_if` jumps to the exit. Nested ifs and loops are copied whole.
//!
//! This complements the front end, which unrolls `[unroll]` `for` loops it
//! can read: here any loop shape qualifies once constants decide it (a
//! `while`, a loop exposed by inlining or by other passes). `[loop]` is
//! honoured (never unrolled); `[unroll]` raises the limits, and `[unroll(n)]`
//! unrolls a loop of at most n iterations (longer ones stay loops: partial
//! unrolling is not done).
//!
//! The convergence rule allows duplicating a whole loop body; every lane
//! that entered runs each copy, as it ran each iteration, since the trip
//! count is the same constant for all of them.

use super::edit::{clear_unreachable, const_of, new_inst};
use super::fold::eval;
use super::loops::{LoopInfo, Loops};
use super::PassContext;
use crate::ir::structure::region_tree;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Most iterations unrolled without a hint.
pub const MAX_TRIPS: u32 = 8;
/// Most instructions the unrolled copies may hold without a hint.
pub const MAX_UNROLLED: usize = 128;
/// The limits under `[unroll]`.
pub const MAX_TRIPS_HINTED: u32 = 256;
pub const MAX_UNROLLED_HINTED: usize = 8192;

/// The `unroll` pass: innermost loops first, then the loops that become innermost.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let mut changed = false;
    for _ in 0..4 {
        let Ok(nodes) = region_tree(f) else { break };
        let loops = Loops::new(f, &nodes);
        let mut has_inner = vec![false; loops.loops.len()];
        for l in &loops.loops {
            if let Some(p) = l.parent {
                has_inner[p] = true;
            }
        }
        let plans: Vec<Plan> = (0..loops.loops.len()).filter(|&l| !has_inner[l]).filter_map(|l| plan(f, &loops.loops[l])).collect();
        if plans.is_empty() {
            break;
        }
        // Uses after a loop of values defined in it read the last copy's.
        let mut after: BTreeMap<Value, Value> = BTreeMap::new();
        for p in &plans {
            unroll(f, p, &mut after);
        }
        f.replace_uses(&after);
        clear_unreachable(f);
        changed = true;
    }
    changed
}

struct Plan {
    pre: Block,
    header: Block,
    exit: Block,
    /// Body blocks in region order.
    blocks: Vec<Block>,
    /// Whole iterations before the one that leaves.
    trips: u32,
    /// The top-level block whose `break_if` is taken in the last iteration.
    leaving: Block,
}

/// How `l` unrolls, if constants decide its trip count within the limits.
fn plan(f: &Function, l: &LoopInfo) -> Option<Plan> {
    let hint = f.loop_hints[l.pre];
    let (max_trips, max_size) = match hint {
        LoopHint::DontUnroll => return None,
        LoopHint::Unroll(None) => (MAX_TRIPS_HINTED, MAX_UNROLLED_HINTED),
        // `[unroll(n)]` asks for copies of n iterations: a loop of at most n unrolls fully,
        // a longer one stays (partial unrolling is not done).
        LoopHint::Unroll(Some(n)) => (n.min(MAX_TRIPS_HINTED), MAX_UNROLLED_HINTED),
        LoopHint::None => (MAX_TRIPS, MAX_UNROLLED),
    };
    let Terminator::Loop { args: entry, .. } = &f.blocks[l.pre].term else { return None };
    let size: usize = l.blocks.iter().map(|&b| f.blocks[b].insts.len()).sum();
    // Values defined in the loop are known only as simulated; others if constant.
    let mut inside: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &b in &l.blocks {
        for &q in &f.blocks[b].params {
            inside[q] = true;
        }
        for &i in &f.blocks[b].insts {
            if let Some(r) = f.results[i] {
                inside[r] = true;
            }
        }
    }
    let mut known: SecondaryMap<Value, Option<u32>> = SecondaryMap::new();
    let mut carried: Vec<Option<u32>> = entry.iter().map(|&a| const_of(f, a)).collect();
    for trip in 0..=max_trips {
        if size * (trip as usize + 1) > max_size {
            return None;
        }
        for (&p, &c) in f.blocks[l.header].params.iter().zip(&carried) {
            known[p] = c;
        }
        for &b in &l.top {
            for &i in &f.blocks[b].insts {
                let Some(r) = f.results[i] else { continue };
                let konst = |v: Value| if inside[v] { known[v] } else { const_of(f, v) };
                known[r] = eval(&f.insts[i], &konst).map(|(_, bits)| bits);
            }
            match &f.blocks[b].term {
                Terminator::BreakIf { cond, .. } => match known[*cond] {
                    Some(0) => {}
                    Some(_) => {
                        return Some(Plan { pre: l.pre, header: l.header, exit: l.exit, blocks: l.blocks.clone(), trips: trip, leaving: b })
                    }
                    None => return None,
                },
                Terminator::Jump { dest, args } if *dest == l.header => {
                    carried = args.iter().map(|&a| if inside[a] { known[a] } else { const_of(f, a) }).collect();
                }
                _ => {}
            }
        }
    }
    None
}

fn unroll(f: &mut Function, p: &Plan, after: &mut BTreeMap<Value, Value>) {
    let Terminator::Loop { args: entry, .. } = f.blocks[p.pre].term.clone() else { return };
    let prefix_len = p.blocks.iter().position(|&b| b == p.leaving).map_or(p.blocks.len(), |k| k + 1);
    // Each copy's header, made first so back edges can name the next one.
    let headers: Vec<Block> = (0..=p.trips)
        .map(|_| {
            let h = f.create_block();
            for &q in &f.blocks[p.header].params.clone() {
                let ty = f.value_type(q);
                f.append_param(h, ty);
            }
            h
        })
        .collect();
    for k in 0..=p.trips {
        let last = k == p.trips;
        let set = if last { &p.blocks[..prefix_len] } else { &p.blocks[..] };
        let mut bmap: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        let mut vmap: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
        for &b in set {
            let nb = if b == p.header { headers[k as usize] } else { f.create_block() };
            bmap[b] = Some(nb);
            if b == p.header {
                for (&q, &nq) in f.blocks[b].params.clone().iter().zip(&f.blocks[nb].params.clone()) {
                    vmap[q] = Some(nq);
                }
            } else {
                for &q in &f.blocks[b].params.clone() {
                    let ty = f.value_type(q);
                    let nq = f.append_param(nb, ty);
                    vmap[q] = Some(nq);
                }
            }
        }
        for &b in set {
            let nb = bmap[b].expect("mapped");
            for i in f.blocks[b].insts.clone() {
                let mut data = f.insts[i].clone();
                data.map_args(|a| vmap[a].unwrap_or(a));
                let (ni, nv) = new_inst(f, data, f.spans[i]);
                f.blocks[nb].insts.push(ni);
                if let (Some(r), Some(nv)) = (f.results[i], nv) {
                    vmap[r] = Some(nv);
                }
            }
            let map_v = |v: Value| vmap[v].unwrap_or(v);
            let map_b = |d: Block| bmap[d].unwrap_or(d);
            let term = match f.blocks[b].term.clone() {
                Terminator::Jump { dest, args } if dest == p.header => {
                    // The back edge (never in the last, partial copy).
                    Terminator::Jump { dest: headers[(k + 1) as usize], args: args.into_iter().map(map_v).collect() }
                }
                Terminator::Jump { dest, args } => Terminator::Jump { dest: map_b(dest), args: args.into_iter().map(map_v).collect() },
                Terminator::If { cond, then_dest, else_dest, merge } => {
                    Terminator::If { cond: map_v(cond), then_dest: map_b(then_dest), else_dest: map_b(else_dest), merge: map_b(merge) }
                }
                Terminator::Loop { header, args, exit } => {
                    f.loop_hints[nb] = f.loop_hints[b];
                    Terminator::Loop { header: map_b(header), args: args.into_iter().map(map_v).collect(), exit: map_b(exit) }
                }
                Terminator::BreakIf { exit, args, cont, .. } if exit == p.exit => {
                    if last && b == p.leaving {
                        Terminator::Jump { dest: p.exit, args: args.into_iter().map(map_v).collect() }
                    } else {
                        Terminator::Jump { dest: map_b(cont), args: vec![] }
                    }
                }
                Terminator::BreakIf { cond, exit, args, cont } => Terminator::BreakIf {
                    cond: map_v(cond),
                    exit: map_b(exit),
                    args: args.into_iter().map(map_v).collect(),
                    cont: map_b(cont),
                },
                other => other,
            };
            let span = f.blocks[b].term_span;
            f.set_terminator(nb, term, span);
        }
        if last {
            for (v, nv) in vmap.iter() {
                if let Some(nv) = nv {
                    after.insert(v, *nv);
                }
            }
        }
    }
    let span = f.blocks[p.pre].term_span;
    f.set_terminator(p.pre, Terminator::Jump { dest: headers[0], args: entry }, span);
    f.loop_hints[p.pre] = LoopHint::None;
}
