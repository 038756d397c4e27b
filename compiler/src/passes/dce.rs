//! Dead-code elimination (`dead-code`): mark and sweep. Live are the
//! instructions with side effects, kernel arguments (the ABI), branch
//! conditions, and what live values read; a block parameter is live only if
//! something live reads it, and an edge argument only if its parameter is
//! live, so values that only circulate through parameters (a loop variable
//! nothing reads) go with their parameters. Blocks the structured walk no
//! longer reaches are emptied.
//!
//! Removing an unused wave op is allowed by the convergence rule; stores,
//! atomics, barriers and fences are never removed.

use super::edit::{clear_unreachable, remove_params};
use super::PassContext;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeSet;

/// The `dead-code` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let mut changed = clear_unreachable(f);
    let Ok(nodes) = region_tree(f) else { return changed };
    let order = block_order(&nodes);
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut SecondaryMap<Value, bool>, work: &mut Vec<Value>| {
        if !live[v] {
            live[v] = true;
            work.push(v);
        }
    };
    // Edge arguments feeding each parameter.
    let mut incoming: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    for &b in &order {
        for &i in &f.blocks[b].insts {
            let data = &f.insts[i];
            if is_root(data) {
                if let Some(r) = f.results[i] {
                    mark(r, &mut live, &mut work);
                }
                for a in data.args() {
                    mark(a, &mut live, &mut work);
                }
            }
        }
        match &f.blocks[b].term {
            Terminator::If { cond, .. } | Terminator::BreakIf { cond, .. } => mark(*cond, &mut live, &mut work),
            _ => {}
        }
        for (dest, args) in f.blocks[b].term.edges_with_args() {
            for (&a, &p) in args.iter().zip(&f.blocks[dest].params) {
                incoming[p].push(a);
            }
        }
    }
    while let Some(v) = work.pop() {
        match f.values[v].def {
            ValueDef::Inst(i) => {
                for a in f.insts[i].args() {
                    mark(a, &mut live, &mut work);
                }
            }
            ValueDef::Param(..) => {
                for k in 0..incoming[v].len() {
                    let a = incoming[v][k];
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    let mut remove: BTreeSet<(Block, usize)> = BTreeSet::new();
    for &b in &order {
        let data = &f.blocks[b];
        for (k, &p) in data.params.iter().enumerate() {
            if !live[p] {
                remove.insert((b, k));
            }
        }
        let keep: Vec<Inst> =
            data.insts.iter().copied().filter(|&i| is_root(&f.insts[i]) || f.results[i].is_some_and(|r| live[r])).collect();
        if keep.len() != data.insts.len() {
            f.blocks[b].insts = keep;
            changed = true;
        }
    }
    if !remove.is_empty() {
        remove_params(f, &remove);
        changed = true;
    }
    changed
}

/// Kept whatever reads it.
fn is_root(data: &InstData) -> bool {
    data.has_side_effects() || matches!(data, InstData::KernelArg { .. })
}
