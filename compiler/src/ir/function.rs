//! Functions, blocks, instructions and values.

use super::types::*;
use crate::diag::Span;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An SSA value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// Non-terminator instructions. Each defines at most one value. `Eq` and
/// `Hash` compare the operation and its operand values (value numbering).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstData {
    /// A constant; `bits` is the 32-bit pattern (0/1 for bools).
    Const {
        ty: Type,
        bits: u32,
    },
    /// Kernel argument `index` of the ABI (a resource's byte address).
    KernelArg {
        index: u32,
    },
    Special {
        reg: SpecialReg,
    },
    Unary {
        op: UnaryOp,
        arg: Value,
    },
    Binary {
        op: BinaryOp,
        args: [Value; 2],
    },
    Cmp {
        op: CmpOp,
        args: [Value; 2],
    },
    Select {
        ty: Type,
        cond: Value,
        args: [Value; 2],
    },
    Convert {
        op: ConvOp,
        arg: Value,
    },
    /// 32-bit load of `ty` from byte address `addr`.
    Load {
        space: MemSpace,
        ty: Type,
        addr: Value,
    },
    /// 32-bit store.
    Store {
        space: MemSpace,
        addr: Value,
        value: Value,
    },
    Ternary {
        op: TernaryOp,
        args: [Value; 3],
    },
    /// Reinterprets the bits of `arg` as `ty` (same width: i32 <-> f32, i16 <-> f16).
    Bitcast {
        ty: Type,
        arg: Value,
    },
    /// Atomically applies `op` with `value` to the i32 at byte address `addr`
    /// (`space` is `Device` or `Local`) and returns the old value.
    AtomicRmw {
        op: AtomicOp,
        space: MemSpace,
        addr: Value,
        value: Value,
    },
    /// Atomically stores `value` at `addr` if the i32 there equals `expected`; returns the old value.
    AtomicCas {
        space: MemSpace,
        addr: Value,
        expected: Value,
        value: Value,
    },
    /// Workgroup execution barrier: every wave of the group arrives before any goes on.
    /// Orders nothing in memory by itself (pair it with a fence).
    Barrier,
    /// Memory fence (acquire and release) at `scope`.
    Fence {
        scope: FenceScope,
    },
    /// `op` over `arg` of the active lanes of the wave; the same result in every active lane.
    WaveReduce {
        op: WaveOp,
        arg: Value,
    },
    /// Exclusive prefix of `op` over the active lanes in lane order; the first
    /// active lane gets the identity (0, 1, +0.0, 1.0). Only ops with `WaveOp::has_prefix`.
    WavePrefix {
        op: WaveOp,
        arg: Value,
    },
    /// Bits 32*word .. 32*word+31 of the mask of active lanes where `cond` holds
    /// (lane 32*word + i is bit i). `word` is 0..=3 (HLSL's uint4).
    WaveBallot {
        cond: Value,
        word: u32,
    },
    /// Whether `cond` holds in any / all active lanes.
    WaveVote {
        op: VoteOp,
        cond: Value,
    },
    /// `arg` of lane `lane` (the index of an active lane; it may differ between lanes,
    /// then each lane reads the lane it names).
    WaveReadLane {
        ty: Type,
        arg: Value,
        lane: Value,
    },
    /// `arg` of the first (lowest-numbered) active lane in every active lane.
    WaveReadFirst {
        ty: Type,
        arg: Value,
    },
    /// The i64 or f64 (`ty`) whose low 32 bits are `lo` and high 32 bits `hi` (both i32).
    Pack64 {
        ty: Type,
        lo: Value,
        hi: Value,
    },
    /// The low (`hi` false) or high 32 bits of an i64 or f64, as an i32.
    Unpack64 {
        hi: bool,
        arg: Value,
    },
    /// A binary64 operation (`op.arity()` of `args` are its operands; the rest repeat `args[0]`).
    Double {
        op: DoubleOp,
        args: [Value; 3],
    },
}

impl InstData {
    /// Operands in order.
    pub fn args(&self) -> Vec<Value> {
        match *self {
            InstData::Const { .. } | InstData::KernelArg { .. } | InstData::Special { .. } | InstData::Barrier | InstData::Fence { .. } => {
                vec![]
            }
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::Bitcast { arg, .. }
            | InstData::WaveReduce { arg, .. }
            | InstData::WavePrefix { arg, .. }
            | InstData::WaveBallot { cond: arg, .. }
            | InstData::WaveVote { cond: arg, .. }
            | InstData::WaveReadFirst { arg, .. }
            | InstData::Unpack64 { arg, .. } => vec![arg],
            InstData::Pack64 { lo, hi, .. } => vec![lo, hi],
            InstData::Double { op, args } => args[..op.arity()].to_vec(),
            InstData::Binary { args, .. } | InstData::Cmp { args, .. } => args.to_vec(),
            InstData::Ternary { args, .. } => args.to_vec(),
            InstData::Select { cond, args, .. } => vec![cond, args[0], args[1]],
            InstData::Load { addr, .. } => vec![addr],
            InstData::Store { addr, value, .. } | InstData::AtomicRmw { addr, value, .. } => vec![addr, value],
            InstData::AtomicCas { addr, expected, value, .. } => vec![addr, expected, value],
            InstData::WaveReadLane { arg, lane, .. } => vec![arg, lane],
        }
    }

    /// Rewrites every operand through `f`.
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            InstData::Const { .. } | InstData::KernelArg { .. } | InstData::Special { .. } | InstData::Barrier | InstData::Fence { .. } => {
            }
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::Bitcast { arg, .. }
            | InstData::WaveReduce { arg, .. }
            | InstData::WavePrefix { arg, .. }
            | InstData::WaveBallot { cond: arg, .. }
            | InstData::WaveVote { cond: arg, .. }
            | InstData::WaveReadFirst { arg, .. }
            | InstData::Unpack64 { arg, .. } => *arg = f(*arg),
            InstData::Pack64 { lo, hi, .. } => {
                *lo = f(*lo);
                *hi = f(*hi);
            }
            InstData::Double { op, args } => {
                let n = op.arity();
                for a in args[..n].iter_mut() {
                    *a = f(*a);
                }
                for k in n..3 {
                    args[k] = args[0];
                }
            }
            InstData::Binary { args, .. } | InstData::Cmp { args, .. } => {
                args[0] = f(args[0]);
                args[1] = f(args[1]);
            }
            InstData::Ternary { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::AtomicRmw { addr, value, .. } => {
                *addr = f(*addr);
                *value = f(*value);
            }
            InstData::AtomicCas { addr, expected, value, .. } => {
                *addr = f(*addr);
                *expected = f(*expected);
                *value = f(*value);
            }
            InstData::WaveReadLane { arg, lane, .. } => {
                *arg = f(*arg);
                *lane = f(*lane);
            }
            InstData::Select { cond, args, .. } => {
                *cond = f(*cond);
                args[0] = f(args[0]);
                args[1] = f(args[1]);
            }
            InstData::Load { addr, .. } => *addr = f(*addr),
            InstData::Store { addr, value, .. } => {
                *addr = f(*addr);
                *value = f(*value);
            }
        }
    }

    /// The type of the result, if the instruction has one.
    pub fn result_type(&self) -> Option<Type> {
        match *self {
            InstData::Const { ty, .. } => Some(ty),
            InstData::KernelArg { .. } | InstData::Special { .. } => Some(Type::I32),
            InstData::Unary { op, .. } => Some(op.ty()),
            InstData::Binary { op, .. } => Some(op.types().1),
            InstData::Cmp { .. } => Some(Type::Bool),
            InstData::Select { ty, .. } => Some(ty),
            InstData::Convert { op, .. } => Some(op.types().1),
            InstData::Load { ty, .. } => Some(ty),
            InstData::Store { .. } | InstData::Barrier | InstData::Fence { .. } => None,
            InstData::Ternary { op, .. } => Some(op.ty()),
            InstData::Bitcast { ty, .. } | InstData::WaveReadLane { ty, .. } | InstData::WaveReadFirst { ty, .. } => Some(ty),
            InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::WaveBallot { .. } => Some(Type::I32),
            InstData::WaveReduce { op, .. } | InstData::WavePrefix { op, .. } => Some(op.ty()),
            InstData::WaveVote { .. } => Some(Type::Bool),
            InstData::Pack64 { ty, .. } => Some(ty),
            InstData::Unpack64 { .. } => Some(Type::I32),
            InstData::Double { op, .. } => Some(op.types().1),
        }
    }

    /// Has an effect beyond its result: never removed, duplicated or reordered
    /// with other such instructions (stores, atomics, barriers, fences).
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            InstData::Store { .. } | InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::Barrier | InstData::Fence { .. }
        )
    }

    /// Depends on which lanes execute it (wave ops read the other active lanes;
    /// a barrier waits for the other waves): see the convergence rule in `ir`.
    pub fn is_convergent(&self) -> bool {
        matches!(
            self,
            InstData::Barrier
                | InstData::WaveReduce { .. }
                | InstData::WavePrefix { .. }
                | InstData::WaveBallot { .. }
                | InstData::WaveVote { .. }
                | InstData::WaveReadLane { .. }
                | InstData::WaveReadFirst { .. }
        )
    }

    /// Reads memory that the kernel may also write.
    pub fn reads_mutable_memory(&self) -> bool {
        matches!(
            self,
            InstData::Load { space: MemSpace::Device | MemSpace::Local, .. } | InstData::AtomicRmw { .. } | InstData::AtomicCas { .. }
        )
    }

    /// Accesses workgroup-local memory (needs `Function::local_memory` > 0).
    pub fn uses_local_memory(&self) -> bool {
        matches!(
            self,
            InstData::Load { space: MemSpace::Local, .. }
                | InstData::Store { space: MemSpace::Local, .. }
                | InstData::AtomicRmw { space: MemSpace::Local, .. }
                | InstData::AtomicCas { space: MemSpace::Local, .. }
        )
    }
}

/// How a block ends. Control flow is structured: every `If` names its merge
/// block and every `Loop` its exit block, so regions nest like the source.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Terminator {
    /// Only while the block is being built.
    #[default]
    None,
    Jump {
        dest: Block,
        args: Vec<Value>,
    },
    /// Lanes where `cond` holds run `then_dest`, the others `else_dest`; both
    /// regions end by jumping to `merge` (which may carry block parameters).
    If {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
        merge: Block,
    },
    /// Enters the loop whose first block is `header` (block parameters are the
    /// loop-carried values); a jump back to `header` is the back edge; lanes
    /// leave only through `BreakIf`, and continue at `exit` once all have left.
    Loop {
        header: Block,
        args: Vec<Value>,
        exit: Block,
    },
    /// At the top level of a loop body: lanes where `cond` holds leave for
    /// `exit` (the loop's exit block) with `args`; the others go on to `cont`.
    BreakIf {
        cond: Value,
        exit: Block,
        args: Vec<Value>,
        cont: Block,
    },
    /// End of the kernel.
    Return,
}

impl Terminator {
    /// Values read by the terminator (conditions and edge arguments).
    pub fn args(&self) -> Vec<Value> {
        match self {
            Terminator::None | Terminator::Return => vec![],
            Terminator::Jump { args, .. } | Terminator::Loop { args, .. } => args.clone(),
            Terminator::If { cond, .. } => vec![*cond],
            Terminator::BreakIf { cond, args, .. } => std::iter::once(*cond).chain(args.iter().copied()).collect(),
        }
    }

    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Terminator::None | Terminator::Return => {}
            Terminator::Jump { args, .. } | Terminator::Loop { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            Terminator::If { cond, .. } => *cond = f(*cond),
            Terminator::BreakIf { cond, args, .. } => {
                *cond = f(*cond);
                args.iter_mut().for_each(|a| *a = f(*a));
            }
        }
    }

    /// Control-flow successors (`If` counts then, else; `Loop` counts header; the
    /// merge/exit of a construct is reached through its regions, not directly).
    pub fn successors(&self) -> Vec<Block> {
        match self {
            Terminator::None | Terminator::Return => vec![],
            Terminator::Jump { dest, .. } => vec![*dest],
            Terminator::If { then_dest, else_dest, .. } => vec![*then_dest, *else_dest],
            Terminator::Loop { header, .. } => vec![*header],
            Terminator::BreakIf { exit, cont, .. } => vec![*exit, *cont],
        }
    }

    /// Edges that carry arguments: (destination, arguments).
    pub fn edges_with_args(&self) -> Vec<(Block, &[Value])> {
        match self {
            Terminator::Jump { dest, args } => vec![(*dest, args.as_slice())],
            Terminator::Loop { header, args, .. } => vec![(*header, args.as_slice())],
            Terminator::BreakIf { exit, args, cont, .. } => vec![(*exit, args.as_slice()), (*cont, &[])],
            Terminator::If { then_dest, else_dest, .. } => vec![(*then_dest, &[]), (*else_dest, &[])],
            Terminator::None | Terminator::Return => vec![],
        }
    }

    /// Mutable access to the argument list of the edge to `dest`.
    pub fn edge_args_mut(&mut self, to: Block) -> Option<&mut Vec<Value>> {
        match self {
            Terminator::Jump { dest, args } if *dest == to => Some(args),
            Terminator::Loop { header, args, .. } if *header == to => Some(args),
            Terminator::BreakIf { exit, args, .. } if *exit == to => Some(args),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub params: Vec<Value>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    /// Source span of the terminator (the `if`, loop or break in the source).
    pub term_span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    Inst(Inst),
    Param(Block, u32),
}

#[derive(Clone, Copy, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// Loop hints from the source (`[loop]`, `[unroll]`), kept for the optimizer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopHint {
    #[default]
    None,
    DontUnroll,
    Unroll(Option<u32>),
}

/// A kernel in SSA form.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub blocks: PrimaryMap<Block, BlockData>,
    pub insts: PrimaryMap<Inst, InstData>,
    pub values: PrimaryMap<Value, ValueData>,
    pub results: SecondaryMap<Inst, Option<Value>>,
    /// Source span per instruction (side table).
    pub spans: SecondaryMap<Inst, Span>,
    /// Loop hints keyed by the block that holds the `Loop` terminator.
    pub loop_hints: SecondaryMap<Block, LoopHint>,
    pub entry: Option<Block>,
    /// Bytes of workgroup-local memory the kernel uses (HLSL `groupshared`), addressed
    /// from 0; emitted as `.local_memory`. Must be non-zero if any instruction uses local memory.
    pub local_memory: u32,
    /// Of `local_memory`, the bytes holding local arrays (-O0: dynamically
    /// indexed locals, one copy per thread, after the groupshared variables).
    pub local_arrays: u32,
    /// Kernel arguments whose first bytes are always readable, by argument index:
    /// cbuffers and the constant block, which the ABI binds whole (`readable 0:16`
    /// in the text form). A load there cannot fault, so passes may run it in
    /// lanes or iterations that would not have (speculation).
    pub readable: std::collections::BTreeMap<u32, u32>,
    /// Set by `pad-warps`: the kernel is compiled for 1-D workgroups of
    /// `launch` threads (its `[numthreads]` rounded up to whole warps), and
    /// the threads from `threads` on are inert (`padded 80:96` in the text
    /// form's header).
    pub padded: Option<Padding>,
}

/// A workgroup padded to whole warps (`Function::padded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Padding {
    /// The real thread count (the product of `[numthreads]`).
    pub threads: u32,
    /// The 1-D group the kernel is launched with.
    pub launch: u32,
}

impl Function {
    pub fn new(name: impl Into<String>) -> Function {
        Function { name: name.into(), ..Function::default() }
    }

    pub fn entry_block(&self) -> Block {
        self.entry.unwrap_or_else(|| Block::from_u32(0))
    }

    pub fn create_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    pub fn append_param(&mut self, block: Block, ty: Type) -> Value {
        let index = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::Param(block, index) });
        self.blocks[block].params.push(v);
        v
    }

    /// Appends `data` to `block`, returning its result value if it has one.
    pub fn append_inst(&mut self, block: Block, data: InstData, span: Span) -> Option<Value> {
        let ty = data.result_type();
        let inst = self.insts.push(data);
        self.spans[inst] = span;
        self.blocks[block].insts.push(inst);
        ty.map(|ty| {
            let v = self.values.push(ValueData { ty, def: ValueDef::Inst(inst) });
            self.results[inst] = Some(v);
            v
        })
    }

    pub fn set_terminator(&mut self, block: Block, term: Terminator, span: Span) {
        self.blocks[block].term = term;
        self.blocks[block].term_span = span;
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// The instruction defining `v`, if it is not a block parameter.
    pub fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def {
            ValueDef::Inst(i) => Some(i),
            ValueDef::Param(..) => None,
        }
    }

    /// The block where `v` is defined.
    pub fn def_block(&self, v: Value, inst_block: &SecondaryMap<Inst, Option<Block>>) -> Option<Block> {
        match self.values[v].def {
            ValueDef::Inst(i) => inst_block[i],
            ValueDef::Param(b, _) => Some(b),
        }
    }

    /// Which block each instruction sits in.
    pub fn inst_blocks(&self) -> SecondaryMap<Inst, Option<Block>> {
        let mut m = SecondaryMap::new();
        for (b, data) in self.blocks.iter() {
            for &i in &data.insts {
                m[i] = Some(b);
            }
        }
        m
    }

    /// Replaces every use of each key of `map` (resolved transitively).
    pub fn replace_uses(&mut self, map: &std::collections::BTreeMap<Value, Value>) {
        if map.is_empty() {
            return;
        }
        let resolve = |mut v: Value| {
            let mut steps = 0;
            while let Some(&to) = map.get(&v) {
                if to == v || steps > map.len() {
                    break;
                }
                v = to;
                steps += 1;
            }
            v
        };
        for (_, data) in self.insts.iter_mut() {
            data.map_args(resolve);
        }
        for (_, b) in self.blocks.iter_mut() {
            b.term.map_args(resolve);
        }
    }

    /// Removes parameter `index` of `block` and the matching argument on every incoming edge.
    pub fn remove_param(&mut self, block: Block, index: usize) {
        self.blocks[block].params.remove(index);
        for (i, &p) in self.blocks[block].params.clone().iter().enumerate() {
            self.values[p].def = ValueDef::Param(block, i as u32);
        }
        let preds: Vec<Block> = self.blocks.keys().collect();
        for b in preds {
            if let Some(args) = self.blocks[b].term.edge_args_mut(block) {
                if index < args.len() {
                    args.remove(index);
                }
            }
        }
    }
}
