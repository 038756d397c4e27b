//! If-conversion (`if-convert`): an `if` whose two regions are single blocks
//! of a few side-effect-free instructions becomes straight-line code, with a
//! `select` for each merge parameter that receives different values:
//!
//! ```text
//! if c { x1 = a + 1 } else { x2 = b }   ->   t = a + 1; x = select c, t, b
//! ```
//!
//! Both sides then run in every lane, so only instructions that cannot fault
//! and do not depend on the active lanes move: no loads (a guarded read past
//! the end of a buffer faults) except cbuffer fields, no wave operations (the
//! convergence rule), no stores, atomics, barriers or fences. The conversion is made when it is
//! cheaper in the cost model below: the branch costs `if`, `else`, `endif`,
//! the longer side and a copy per parameter; the selects cost both sides and
//! a select per parameter (two instructions on `wave-0.1.2`, which lowers
//! `select` to predicated moves). The merge is then reached by a jump, and
//! `fold-branches` joins the blocks. Merges of booleans (short-circuit `&&`
//! and `||`, the flag of an early `return`) convert too: `simplify` turns
//! their selects into `band`/`bor`, which selection computes as one
//! predicate chain (a compare per operand, no 0/1 value).

use super::edit::const_of;
use super::PassContext;
use crate::ir::structure::{region_tree, Node};
use crate::ir::*;
use crate::options::Isa;

/// Most instructions the two sides may hold together.
const MAX_SPECULATED: u32 = 8;

/// The `if-convert` pass.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let mut diamonds = Vec::new();
    collect(&nodes, &mut diamonds);
    let mut changed = false;
    for (head, t, e, merge) in diamonds {
        changed |= convert(f, cx, head, t, e, merge);
    }
    changed
}

/// Ifs whose regions are one block each, innermost first.
fn collect(nodes: &[Node], out: &mut Vec<(Block, Block, Block, Block)>) {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { head, then_region, else_region, merge } => {
                collect(then_region, out);
                collect(else_region, out);
                if let ([Node::Block(t)], [Node::Block(e)]) = (then_region.as_slice(), else_region.as_slice()) {
                    out.push((*head, *t, *e, *merge));
                }
            }
            Node::Loop { body, .. } => collect(body, out),
        }
    }
}

fn convert(f: &mut Function, cx: &PassContext, head: Block, t: Block, e: Block, merge: Block) -> bool {
    let Terminator::If { cond, .. } = f.blocks[head].term else { return false };
    let edge_args = |b: Block| match &f.blocks[b].term {
        Terminator::Jump { dest, args } if *dest == merge => Some(args.clone()),
        _ => None,
    };
    let (Some(then_args), Some(else_args)) = (edge_args(t), edge_args(e)) else { return false };
    let side_cost =
        |b: Block| -> Option<u32> { f.blocks[b].insts.iter().map(|&i| speculation_cost(f, &f.insts[i], cx.isa)).sum::<Option<u32>>() };
    let (Some(ct), Some(ce)) = (side_cost(t), side_cost(e)) else { return false };
    let differing = then_args.iter().zip(&else_args).filter(|(a, b)| a != b).count() as u32;
    // A boolean merge (a short-circuit `&&`) would become `band`/`bor` of booleans
    // that selection keeps as 0/1 in V registers: worse than the branch for now.
    let select = if cx.isa == Isa::Wave012 { 2 } else { 1 };
    let speculated = ct + ce + select * differing;
    let branchy = 3 + ct.max(ce) + differing;
    if ct + ce > MAX_SPECULATED || speculated > branchy {
        return false;
    }
    // Both sides run in the head, then side first; the merge gets selects.
    let mut moved: Vec<Inst> = std::mem::take(&mut f.blocks[t].insts);
    moved.extend(std::mem::take(&mut f.blocks[e].insts));
    f.blocks[head].insts.extend(moved);
    let span = f.blocks[head].term_span;
    let mut args = Vec::with_capacity(then_args.len());
    for (&a, &b) in then_args.iter().zip(&else_args) {
        if a == b {
            args.push(a);
            continue;
        }
        let ty = f.value_type(a);
        let v = f.append_inst(head, InstData::Select { ty, cond, args: [a, b] }, span).expect("select has a result");
        args.push(v);
    }
    f.set_terminator(head, Terminator::Jump { dest: merge, args }, span);
    // The regions are unreachable now; leave them empty so no stale edge remains.
    for b in [t, e] {
        f.blocks[b].term = Terminator::Return;
    }
    true
}

/// Instructions selection emits for `data`, or `None` if it must not run in lanes that skipped it.
fn speculation_cost(f: &Function, data: &InstData, isa: Isa) -> Option<u32> {
    use BinaryOp::*;
    if data.has_side_effects() || data.is_convergent() {
        return None;
    }
    if let InstData::Load { ty, addr, .. } = *data {
        // A load runs in every lane only where it cannot fault (a cbuffer field).
        return super::edit::load_cannot_fault(f, addr, ty).then_some(1);
    }
    Some(match data {
        InstData::Binary { op: UDiv | URem, args } => match const_of(f, args[1]) {
            Some(c) if c.is_power_of_two() => 1,
            _ => 14,
        },
        InstData::Binary { op: FRem, .. } => 7,
        InstData::Binary { op: UMin | UMax, .. } if isa == Isa::Wave012 => 4,
        InstData::Select { .. } if isa == Isa::Wave012 => 2,
        InstData::Unary { op, .. } => match op {
            UnaryOp::FRound | UnaryOp::UFirstBitHigh | UnaryOp::SFirstBitHigh | UnaryOp::FirstBitLow => 6,
            UnaryOp::FFract | UnaryOp::FSat if isa == Isa::Wave012 => 2,
            _ => 1,
        },
        _ => 1,
    })
}
