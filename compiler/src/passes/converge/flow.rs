//! Helpers the convergence rewrites share: which values a set of blocks
//! defines and which of them other blocks read, stand-in values for the lanes
//! that skip a region, and renaming uses within chosen blocks only.

use crate::diag::Span;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Values defined in `blocks`: their parameters and instruction results.
pub fn defs(f: &Function, blocks: &[Block]) -> BTreeSet<Value> {
    let mut out = BTreeSet::new();
    for &b in blocks {
        out.extend(f.blocks[b].params.iter().copied());
        out.extend(f.blocks[b].insts.iter().filter_map(|&i| f.results[i]));
    }
    out
}

/// Values read by the instructions and terminators of `blocks`.
pub fn uses(f: &Function, blocks: &[Block]) -> BTreeSet<Value> {
    let mut out = BTreeSet::new();
    for &b in blocks {
        for &i in &f.blocks[b].insts {
            out.extend(f.insts[i].args());
        }
        out.extend(f.blocks[b].term.args());
    }
    out
}

/// Renames uses through `map` in the instructions and terminators of `blocks` only.
pub fn rename_in(f: &mut Function, blocks: &[Block], map: &BTreeMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    let r = |v: Value| map.get(&v).copied().unwrap_or(v);
    for &b in blocks {
        let insts = f.blocks[b].insts.clone();
        for i in insts {
            f.insts[i].map_args(r);
        }
        f.blocks[b].term.map_args(r);
    }
}

/// A value of type `ty` appended to `block`, for lanes whose real value does
/// not exist (they skipped the region that defines it): zero bits.
pub fn stand_in(f: &mut Function, block: Block, ty: Type, span: Span) -> Option<Value> {
    match ty {
        Type::I64 | Type::F64 => {
            let zero = f.append_inst(block, InstData::Const { ty: Type::I32, bits: 0 }, span)?;
            f.append_inst(block, InstData::Pack64 { ty, lo: zero, hi: zero }, span)
        }
        _ => f.append_inst(block, InstData::Const { ty, bits: 0 }, span),
    }
}

/// Stand-ins for every type of `values`, appended to `block`.
pub fn stand_ins(f: &mut Function, block: Block, values: &[Value], span: Span) -> Vec<Value> {
    let tys: Vec<Type> = values.iter().map(|&v| f.value_type(v)).collect();
    tys.into_iter().filter_map(|ty| stand_in(f, block, ty, span)).collect()
}

/// How `values`, defined before the end of block `from`, reach `merge`:
/// constants and special registers are defined again in `merge`, 64-bit
/// values travel as their two halves (selection takes no 64-bit block
/// parameters), the others as one parameter each. Returns the arguments
/// `from` passes to `merge` and the renaming of each value to its copy.
pub fn carry(f: &mut Function, from: Block, merge: Block, values: &[Value], span: Span) -> (Vec<Value>, BTreeMap<Value, Value>) {
    let mut args = Vec::new();
    let mut map = BTreeMap::new();
    for &v in values {
        let ty = f.value_type(v);
        let def = f.def_inst(v).map(|i| f.insts[i].clone());
        let copy = match def {
            Some(d @ (InstData::Const { .. } | InstData::Special { .. } | InstData::KernelArg { .. })) => f.append_inst(merge, d, span),
            _ if matches!(ty, Type::I64 | Type::F64) => {
                let lo = f.append_inst(from, InstData::Unpack64 { hi: false, arg: v }, span);
                let hi = f.append_inst(from, InstData::Unpack64 { hi: true, arg: v }, span);
                match (lo, hi) {
                    (Some(lo), Some(hi)) => {
                        args.extend([lo, hi]);
                        let plo = f.append_param(merge, Type::I32);
                        let phi = f.append_param(merge, Type::I32);
                        f.append_inst(merge, InstData::Pack64 { ty, lo: plo, hi: phi }, span)
                    }
                    _ => None,
                }
            }
            _ => {
                args.push(v);
                Some(f.append_param(merge, ty))
            }
        };
        if let Some(c) = copy {
            map.insert(v, c);
        }
    }
    (args, map)
}

/// Moves the instructions of `from` after the first `keep`, and its
/// terminator, into a new block; `from` is left without a terminator.
pub fn split_block(f: &mut Function, from: Block, keep: usize) -> Block {
    let to = f.create_block();
    let tail = f.blocks[from].insts.split_off(keep);
    let term = std::mem::take(&mut f.blocks[from].term);
    let span = f.blocks[from].term_span;
    f.blocks[to].insts = tail;
    f.set_terminator(to, term, span);
    to
}
