//! Wave operations in converged code (`converge-waves`, `--isa wave-0.1.2`
//! only): every wave operation runs with every lane of the wave that entered
//! the kernel, as the published 0.1.2 backends need (wave-ptx lowers wave
//! operations to `shfl.sync`/`vote.sync` with a full member mask;
//! docs/backends.md). HLSL's meaning is kept: lanes that were not active at
//! the operation give its identity and discard its result (`lanes`).
//!
//! Code is converged at the top level of the kernel, inside an `if` on a
//! uniform condition in converged code, and inside a loop in converged code
//! whose `break_if` conditions are all uniform (`passes::uniformity`). The
//! pass first predicates the other loops that hold wave operations
//! (`predicate`: they run until no lane is left, with the `if alive`
//! regions that this makes divergent), then splits each divergent `if`
//! around the wave operations and predicated loops of its regions, innermost
//! first, until none is left in divergent code (`split`). In a function it
//! changed, the pass then removes dead code (`dce`, also what the rewrites
//! left unused) and turns the empty `if`s that splitting leaves (a wave
//! operation first in its region) into jumps (`fold_branches::drop_empty_ifs`),
//! at -O0 as at -O.
//!
//! In a kernel that `pad-warps` padded to whole warps, the pass ends by
//! giving the program's reductions, ballots and votes the identity in the
//! extra lanes (`pad_warps::idle_wave_ops`).
//!
//! [`unconverged`] states the property; the driver refuses (E0411) a
//! `wave-0.1.2` kernel that still has a wave operation where it fails.

pub(super) mod flow;
mod lanes;
mod predicate;
mod split;

use super::uniformity;
use super::PassContext;
use crate::ir::structure::{block_order, region_tree, Node};
use crate::ir::*;
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
pub(super) use lanes::identity;
use std::collections::BTreeMap;

/// Rewrites at most this many loops and `if`s (a guard: each step moves one
/// operation one level out, so real kernels need far fewer).
const MAX_STEPS: usize = 4096;

/// The pass: does nothing but on `wave-0.1.2`.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    if cx.isa != Isa::Wave012 {
        return false;
    }
    let mut changed = false;
    // The program's own wave operations (the ones the rewrites add need no
    // help to leave out a padded kernel's extra lanes).
    let program_ops = super::pad_warps::wave_ops(f);
    // Predicated loops: header -> index of the activity argument.
    let mut predicated: BTreeMap<Block, usize> = BTreeMap::new();
    for _ in 0..MAX_STEPS {
        let Ok(nodes) = region_tree(f) else { return changed };
        let uniform = uniformity::analyze(f);
        let all = block_order(&nodes);
        let Some((pre, header, body, exit)) = loop_to_predicate(f, &nodes, true, &uniform, &predicated) else { break };
        let site = predicate::LoopSite { pre, header, body: &body, exit, all: &all };
        match predicate::predicate(f, &site) {
            Some(alive) => predicated.insert(header, alive),
            None => break,
        };
        changed = true;
    }
    for _ in 0..MAX_STEPS {
        let Ok(nodes) = region_tree(f) else { return changed };
        let uniform = uniformity::analyze(f);
        let Some(site) = if_to_split(f, &nodes, true, &uniform, &predicated) else { break };
        if !split::split(f, &site) {
            break;
        }
        changed = true;
    }
    // In a kernel that `pad-warps` padded, the extra lanes take no part.
    changed |= super::pad_warps::idle_wave_ops(f, &program_ops);
    // A wave operation first in its region leaves an empty `if` before it,
    // or one that holds only values the split defined again after it (the
    // constants and special registers of `flow::carry`): dead code goes
    // first, so that such `if`s are empty too.
    if changed {
        super::dce::run(f, cx);
        super::fold_branches::drop_empty_ifs(f);
    }
    changed
}

/// Wave operations that do not sit in converged code (none after the pass,
/// unless a shape defeated it).
pub fn unconverged(f: &Function) -> Vec<Inst> {
    let Ok(nodes) = region_tree(f) else { return Vec::new() };
    let uniform = uniformity::analyze(f);
    let mut out = Vec::new();
    walk_unconverged(f, &nodes, true, &uniform, &mut out);
    out
}

fn walk_unconverged(f: &Function, nodes: &[Node], converged: bool, uniform: &SecondaryMap<Value, bool>, out: &mut Vec<Inst>) {
    for n in nodes {
        match n {
            Node::Block(b) => {
                if !converged {
                    out.extend(f.blocks[*b].insts.iter().copied().filter(|&i| lanes::is_wave_op(&f.insts[i])));
                }
            }
            Node::If { head, then_region, else_region, .. } => {
                let inner = converged && if_uniform(f, *head, uniform);
                walk_unconverged(f, then_region, inner, uniform, out);
                walk_unconverged(f, else_region, inner, uniform, out);
            }
            Node::Loop { body, exit, .. } => {
                let inner = converged && breaks_uniform(f, body, *exit, uniform);
                walk_unconverged(f, body, inner, uniform, out);
            }
        }
    }
}

pub(super) fn if_uniform(f: &Function, head: Block, uniform: &SecondaryMap<Value, bool>) -> bool {
    matches!(f.blocks[head].term, Terminator::If { cond, .. } if uniform[cond])
}

/// Whether every lane leaves the loop at the same iteration.
pub(super) fn breaks_uniform(f: &Function, body: &[Node], exit: Block, uniform: &SecondaryMap<Value, bool>) -> bool {
    body.iter().all(|n| match n {
        Node::Block(b) => !matches!(f.blocks[*b].term, Terminator::BreakIf { cond, exit: e, .. } if e == exit && !uniform[cond]),
        _ => true,
    })
}

/// Whether the nodes hold a wave operation (nested ones included).
fn has_wave_op(f: &Function, nodes: &[Node]) -> bool {
    block_order(nodes).iter().any(|&b| f.blocks[b].insts.iter().any(|&i| lanes::is_wave_op(&f.insts[i])))
}

type LoopParts = (Block, Block, Vec<Node>, Block);

/// A loop holding wave operations that is not in converged code or that
/// lanes leave at different iterations, not yet predicated.
fn loop_to_predicate(
    f: &Function,
    nodes: &[Node],
    converged: bool,
    uniform: &SecondaryMap<Value, bool>,
    done: &BTreeMap<Block, usize>,
) -> Option<LoopParts> {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { head, then_region, else_region, .. } => {
                let inner = converged && if_uniform(f, *head, uniform);
                if let Some(l) = loop_to_predicate(f, then_region, inner, uniform, done)
                    .or_else(|| loop_to_predicate(f, else_region, inner, uniform, done))
                {
                    return Some(l);
                }
            }
            Node::Loop { pre, header, body, exit } => {
                let inner = converged && breaks_uniform(f, body, *exit, uniform);
                if !inner && !done.contains_key(header) && has_wave_op(f, body) {
                    return Some((*pre, *header, body.clone(), *exit));
                }
                if let Some(l) = loop_to_predicate(f, body, inner, uniform, done) {
                    return Some(l);
                }
            }
        }
    }
    None
}

/// A divergent `if` (or one in divergent code) with a wave operation or a
/// predicated loop at the top level of one of its regions.
fn if_to_split<'a>(
    f: &Function,
    nodes: &'a [Node],
    converged: bool,
    uniform: &SecondaryMap<Value, bool>,
    predicated: &BTreeMap<Block, usize>,
) -> Option<split::Site<'a>> {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { head, then_region, else_region, .. } => {
                let inner = converged && if_uniform(f, *head, uniform);
                if !inner {
                    for (region, in_then) in [(then_region, true), (else_region, false)] {
                        if let Some((at, item)) = item_in(f, region, predicated) {
                            return Some(split::Site { head: *head, region, in_then, at, item });
                        }
                    }
                }
                if let Some(s) = if_to_split(f, then_region, inner, uniform, predicated)
                    .or_else(|| if_to_split(f, else_region, inner, uniform, predicated))
                {
                    return Some(s);
                }
            }
            Node::Loop { body, exit, .. } => {
                let inner = converged && breaks_uniform(f, body, *exit, uniform);
                if let Some(s) = if_to_split(f, body, inner, uniform, predicated) {
                    return Some(s);
                }
            }
        }
    }
    None
}

/// The first wave operation or predicated loop with wave operations at the top level of `region`.
fn item_in(f: &Function, region: &[Node], predicated: &BTreeMap<Block, usize>) -> Option<(usize, split::Item)> {
    for (at, n) in region.iter().enumerate() {
        match n {
            Node::Block(b) => {
                if let Some(index) = f.blocks[*b].insts.iter().position(|&i| lanes::is_wave_op(&f.insts[i])) {
                    return Some((at, split::Item::Inst { block: *b, index }));
                }
            }
            Node::Loop { pre, header, body, exit } => {
                if let Some(&alive) = predicated.get(header) {
                    if has_wave_op(f, body) {
                        return Some((at, split::Item::Loop { pre: *pre, exit: *exit, alive }));
                    }
                }
            }
            Node::If { .. } => {}
        }
    }
    None
}
