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

    /// The value of `var` at the end of `block` (Braun et al.'s readVariable).
    ///
    /// Iterative: a chain of single-predecessor blocks is followed in a loop
    /// and the predecessors of a new block parameter are visited depth first
    /// from an explicit stack, in the order the recursive algorithm visits them
    /// (so values are numbered as it numbers them). A `switch` of thousands of
    /// cases or a long `else if` chain makes such chains thousands of blocks
    /// long, which a recursive reader would have to descend on the call stack.
    pub fn read(&mut self, f: &mut Function, var: Var, block: Block) -> Value {
        let (v, param_at) = self.read_local(f, var, block);
        if let Some(b) = param_at {
            self.fill_param_args(f, var, b);
        }
        v
    }

    /// `var` at the end of `block` as far as it can be found without visiting
    /// the predecessors of a join: the value, and the block whose new
    /// parameter it is when one was made there (its edges still need arguments).
    fn read_local(&mut self, f: &mut Function, var: Var, block: Block) -> (Value, Option<Block>) {
        let mut chain = Vec::new();
        let mut b = block;
        let (v, param_at) = loop {
            if let Some(&v) = self.defs.get(&(var, b)) {
                break (v, None);
            }
            chain.push(b);
            let ty = self.types.get(&var).copied().unwrap_or(Type::I32);
            if !self.sealed[b] {
                let p = f.append_param(b, ty);
                self.incomplete.entry(b).or_default().push((var, p));
                break (p, None);
            } else if self.preds[b].len() == 1 {
                b = self.preds[b][0];
            } else if self.preds[b].is_empty() {
                break (zero_at_entry(f, b, ty), None);
            } else {
                break (f.append_param(b, ty), Some(b));
            }
        };
        for c in chain {
            self.write(var, c, v);
        }
        (v, param_at)
    }

    /// Gives the new parameter of `var` at `block` its argument on every edge
    /// into `block`, reading `var` in each predecessor (depth first: a
    /// predecessor's own new parameter is completed before the next predecessor).
    fn fill_param_args(&mut self, f: &mut Function, var: Var, block: Block) {
        // (block whose parameter is being completed, next predecessor index)
        let mut stack: Vec<(Block, usize)> = vec![(block, 0)];
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            let Some(&pred) = self.preds[b].get(i) else {
                stack.pop();
                continue;
            };
            top.1 += 1;
            let (v, param_at) = self.read_local(f, var, pred);
            if let Some(args) = f.blocks[pred].term.edge_args_mut(b) {
                args.push(v);
            }
            if let Some(p) = param_at {
                stack.push((p, 0));
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
            self.fill_param_args(f, var, block);
        }
    }
}

/// A zero of type `ty` at the start of `block`: a read before any write (or in
/// unreachable code), which HLSL leaves undefined.
fn zero_at_entry(f: &mut Function, block: Block, ty: Type) -> Value {
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
}
