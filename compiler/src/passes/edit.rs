//! Editing helpers the passes share: instructions created outside any block,
//! block parameters removed in batches, unreachable blocks emptied, use counts.
//! Each is linear in the size of the function, so a pass that edits many
//! places pays once.

use crate::diag::Span;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeSet;

/// Creates an instruction (and its result) that no block holds yet; the
/// caller places it.
pub fn new_inst(f: &mut Function, data: InstData, span: Span) -> (Inst, Option<Value>) {
    let ty = data.result_type();
    let inst = f.insts.push(data);
    f.spans[inst] = span;
    let v = ty.map(|ty| {
        let v = f.values.push(ValueData { ty, def: ValueDef::Inst(inst) });
        f.results[inst] = Some(v);
        v
    });
    (inst, v)
}

/// Removes every parameter in `remove` (block, index) and the matching
/// argument on every edge into its block, in one sweep.
pub fn remove_params(f: &mut Function, remove: &BTreeSet<(Block, usize)>) {
    if remove.is_empty() {
        return;
    }
    let dests: BTreeSet<Block> = remove.iter().map(|&(b, _)| b).collect();
    let keep = |dest: Block, k: usize| !remove.contains(&(dest, k));
    let blocks: Vec<Block> = f.blocks.keys().collect();
    for b in blocks {
        let targets: Vec<Block> = f.blocks[b].term.edges_with_args().into_iter().map(|(d, _)| d).filter(|d| dests.contains(d)).collect();
        for dest in targets {
            if let Some(args) = f.blocks[b].term.edge_args_mut(dest) {
                let mut k = 0;
                args.retain(|_| {
                    let kept = keep(dest, k);
                    k += 1;
                    kept
                });
            }
        }
    }
    for dest in dests {
        let params = std::mem::take(&mut f.blocks[dest].params);
        let kept: Vec<Value> = params.iter().enumerate().filter(|&(k, _)| keep(dest, k)).map(|(_, &p)| p).collect();
        for (i, &p) in kept.iter().enumerate() {
            f.values[p].def = ValueDef::Param(dest, i as u32);
        }
        f.blocks[dest].params = kept;
    }
}

/// Empties every block the structured walk no longer reaches (their
/// instructions, parameters and terminator), so that passes iterating over all
/// blocks see no stale edges. Returns whether any block was emptied.
pub fn clear_unreachable(f: &mut Function) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
    for b in block_order(&nodes) {
        reached[b] = true;
    }
    let mut changed = false;
    let blocks: Vec<Block> = f.blocks.keys().collect();
    for b in blocks {
        if reached[b] {
            continue;
        }
        let data = &mut f.blocks[b];
        if data.insts.is_empty() && data.params.is_empty() && data.term == Terminator::Return {
            continue;
        }
        data.insts.clear();
        data.params.clear();
        data.term = Terminator::Return;
        f.loop_hints[b] = LoopHint::None;
        changed = true;
    }
    changed
}

/// How many times each value is read (instruction operands and terminator
/// arguments of reachable blocks).
pub fn use_counts(f: &Function, order: &[Block]) -> SecondaryMap<Value, u32> {
    let mut n: SecondaryMap<Value, u32> = SecondaryMap::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            for a in f.insts[i].args() {
                n[a] += 1;
            }
        }
        for a in f.blocks[b].term.args() {
            n[a] += 1;
        }
    }
    n
}

/// The constant bits of `v`, if an `*const` instruction defines it.
pub fn const_of(f: &Function, v: Value) -> Option<u32> {
    match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(InstData::Const { bits, .. }) => Some(*bits),
        _ => None,
    }
}

/// What a rewrite rule does with one instruction.
pub enum Action {
    Keep,
    /// Every use reads this value instead; the instruction goes.
    Forward(Value),
    /// The instruction computes this instead (same result type).
    Replace(InstData),
}

/// Lets a rule add instructions right before the one it rewrites.
pub struct Rewriter<'f> {
    pub f: &'f mut Function,
    before: Vec<Inst>,
    span: Span,
}

impl Rewriter<'_> {
    /// Adds `data` before the instruction being rewritten; returns its result.
    pub fn emit(&mut self, data: InstData) -> Value {
        let (inst, v) = new_inst(self.f, data, self.span);
        self.before.push(inst);
        v.expect("emitted instructions have results")
    }

    pub fn iconst(&mut self, bits: u32) -> Value {
        self.emit(InstData::Const { ty: Type::I32, bits })
    }
}

/// Applies `rule` to every instruction of the reachable blocks in region
/// order. The rule sees the instruction with operands already forwarded
/// earlier in the sweep. Returns whether anything changed.
pub fn rewrite(f: &mut Function, rule: &mut dyn FnMut(&mut Rewriter, Inst, &InstData) -> Action) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let mut forward: std::collections::BTreeMap<Value, Value> = std::collections::BTreeMap::new();
    let mut changed = false;
    for b in block_order(&nodes) {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            let mut data = f.insts[inst].clone();
            data.map_args(|a| *forward.get(&a).unwrap_or(&a));
            let span = f.spans[inst];
            let mut rw = Rewriter { f, before: Vec::new(), span };
            let action = rule(&mut rw, inst, &data);
            let before = rw.before;
            match action {
                Action::Keep => {
                    out.extend(before);
                    out.push(inst);
                }
                Action::Replace(d) => {
                    debug_assert_eq!(d.result_type(), f.insts[inst].result_type());
                    f.insts[inst] = d;
                    out.extend(before);
                    out.push(inst);
                    changed = true;
                }
                Action::Forward(v) => {
                    out.extend(before);
                    if let Some(r) = f.results[inst] {
                        forward.insert(r, v);
                    }
                    changed = true;
                }
            }
        }
        f.blocks[b].insts = out;
    }
    f.replace_uses(&forward);
    changed
}

/// Whether a load of `ty` from `addr` can run anywhere without faulting: the
/// address is a readable kernel argument (`Function::readable`, a cbuffer
/// or the constant block) plus a constant that keeps the load inside it.
pub fn load_cannot_fault(f: &Function, addr: Value, ty: Type) -> bool {
    let arg_of = |v: Value| match f.def_inst(v).map(|i| &f.insts[i]) {
        Some(InstData::KernelArg { index }) => Some(*index),
        _ => None,
    };
    let (arg, offset) = match f.def_inst(addr).map(|i| &f.insts[i]) {
        Some(InstData::KernelArg { index }) => (*index, 0),
        Some(InstData::Binary { op: BinaryOp::IAdd, args: [a, b] }) => match (arg_of(*a), const_of(f, *b), arg_of(*b), const_of(f, *a)) {
            (Some(k), Some(c), _, _) | (_, _, Some(k), Some(c)) => (k, c),
            _ => return false,
        },
        _ => return false,
    };
    let bytes = ty.bits().div_ceil(8).max(4);
    f.readable.get(&arg).is_some_and(|&n| offset.checked_add(bytes).is_some_and(|end| end <= n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function, verify};
    use cranelift_entity::EntityRef;

    #[test]
    fn loads_inside_readable_arguments_cannot_fault() {
        let f = parse_function(
            "kernel @k readable 0:8 {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      v2:i32 = iconst 4
      v3:i32 = iadd v0, v2
      v4:i32 = iconst 8
      v5:i32 = iadd v0, v4
      v6:i32 = iadd v1, v2
      return
}
",
        )
        .expect("parses");
        let v = Value::new;
        assert!(load_cannot_fault(&f, v(0), Type::I32));
        assert!(load_cannot_fault(&f, v(3), Type::F32), "bytes 4..8 of 8");
        assert!(!load_cannot_fault(&f, v(5), Type::I32), "bytes 8..12 are past the end");
        assert!(!load_cannot_fault(&f, v(6), Type::I32), "argument 1 is not known readable");
    }

    #[test]
    fn parameters_go_with_their_edge_arguments() {
        let mut f = parse_function(
            "kernel @k {
  block0:
      v0:i32 = iconst 1
      v1:i32 = iconst 2
      v2:b1 = bconst true
      if v2 then block1 else block2 merge block3
    block1:
        jump block3(v0, v1, v0)
    block2:
        jump block3(v1, v0, v1)
  block3(v3:i32, v4:i32, v5:i32):
      return
}
",
        )
        .expect("parses");
        let b3 = Block::new(3);
        remove_params(&mut f, &[(b3, 0), (b3, 2)].into_iter().collect());
        verify(&f).expect("still valid");
        assert_eq!(f.blocks[b3].params, vec![Value::new(4)]);
        assert_eq!(f.values[Value::new(4)].def, ValueDef::Param(b3, 0));
        assert_eq!(f.blocks[Block::new(1)].term, Terminator::Jump { dest: b3, args: vec![Value::new(1)] });
    }
}
