//! On-the-fly SSA construction (Braun et al. 2013, "Simple and Efficient
//! Construction of Static Single Assignment Form") with block parameters in
//! place of phis. Redundant parameters are removed afterwards by a pass.

use crate::diag::Span;
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// A source-level variable: one scalar leaf of a local, or a control flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Var {
    /// Leaf `l` of local `id`.
    Local(u32, u32),
    /// Lanes that left loop or switch `n` through a nested `break`.
    Broke(u32),
    /// Lanes that hit a nested `continue` in the current iteration of loop `n`.
    Continued(u32),
    /// Lanes that executed a `return` of inlined function instance `n`.
    Returned(u32),
    /// Leaf `l` of the value returned by inlined function instance `n`.
    RetVal(u32, u32),
    /// Lanes for which a case of switch `n` has matched (fall-through).
    SwitchActive(u32),
    /// A value the lowering carries through a loop it builds itself (`n`).
    Temp(u32),
}

#[derive(Default)]
pub struct SsaBuilder {
    defs: BTreeMap<(Var, Block), Value>,
    sealed: SecondaryMap<Block, bool>,
    incomplete: BTreeMap<Block, Vec<(Var, Value)>>,
    preds: SecondaryMap<Block, Vec<Block>>,
    types: BTreeMap<Var, Type>,
}

impl SsaBuilder {
    pub fn declare(&mut self, var: Var, ty: Type) {
        self.types.insert(var, ty);
    }

    pub fn is_declared(&self, var: Var) -> bool {
        self.types.contains_key(&var)
    }

    pub fn is_sealed(&self, block: Block) -> bool {
        self.sealed[block]
    }

    /// The predecessors of `block` known so far (all of them once it is sealed).
    pub fn preds(&self, block: Block) -> &[Block] {
        &self.preds[block]
    }

    pub fn add_pred(&mut self, block: Block, pred: Block) {
        self.preds[block].push(pred);
    }

    pub fn write(&mut self, var: Var, block: Block, v: Value) {
        self.defs.insert((var, block), v);
    }

    pub fn read(&mut self, f: &mut Function, var: Var, block: Block) -> Value {
        if let Some(&v) = self.defs.get(&(var, block)) {
            return v;
        }
        let ty = self.types.get(&var).copied().unwrap_or(Type::I32);
        let v = if !self.sealed[block] {
            let p = f.append_param(block, ty);
            self.incomplete.entry(block).or_default().push((var, p));
            p
        } else if self.preds[block].len() == 1 {
            let pred = self.preds[block][0];
            self.read(f, var, pred)
        } else if self.preds[block].is_empty() {
            // Read before any write (or in unreachable code): HLSL leaves it undefined; use zero.
            let at = |f: &mut Function, data: InstData| {
                let v = f.append_inst(block, data, Span::default()).expect("has a result");
                // Keep it ahead of any use in this block.
                let inst = f.blocks[block].insts.pop().expect("just appended");
                f.blocks[block].insts.insert(0, inst);
                v
            };
            if ty.is_64bit() {
                // A 64-bit zero is a pair of 32-bit zeros (ahead of the pack that uses them).
                let z = at(f, InstData::Const { ty: Type::I32, bits: 0 });
                let p = f.append_inst(block, InstData::Pack64 { ty, lo: z, hi: z }, Span::default()).expect("has a result");
                let inst = f.blocks[block].insts.pop().expect("just appended");
                f.blocks[block].insts.insert(1, inst);
                p
            } else {
                at(f, InstData::Const { ty, bits: 0 })
            }
        } else {
            let p = f.append_param(block, ty);
            self.write(var, block, p);
            self.add_param_args(f, var, block);
            p
        };
        self.write(var, block, v);
        v
    }

    fn add_param_args(&mut self, f: &mut Function, var: Var, block: Block) {
        let preds = self.preds[block].clone();
        for pred in preds {
            let v = self.read(f, var, pred);
            if let Some(args) = f.blocks[pred].term.edge_args_mut(block) {
                args.push(v);
            }
        }
    }

    /// All predecessors of `block` are known (and their terminators set).
    pub fn seal(&mut self, f: &mut Function, block: Block) {
        if self.sealed[block] {
            return;
        }
        self.sealed[block] = true;
        for (var, _param) in self.incomplete.remove(&block).unwrap_or_default() {
            self.add_param_args(f, var, block);
        }
    }
}
