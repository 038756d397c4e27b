//! The IR verifier: structure, types, SSA dominance, edge arities, and that a
//! kernel touching local memory declares some (`Function::local_memory`).
//! Run after every pass in tests (and in debug builds of the driver).

use super::structure::{block_order, region_tree};
use super::*;
use cranelift_entity::{EntityRef, SecondaryMap};
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError(pub String);

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IR verifier: {}", self.0)
    }
}

/// Checks `f`; returns every problem found.
pub fn verify(f: &Function) -> Result<(), Vec<VerifyError>> {
    let mut errs = Vec::new();
    let nodes = match region_tree(f) {
        Ok(n) => n,
        Err(e) => return Err(vec![VerifyError(e)]),
    };
    let order = block_order(&nodes);
    let inst_block = f.inst_blocks();

    // Dominators over the real CFG.
    let mut g: DiGraph<Block, ()> = DiGraph::new();
    let idx: Vec<NodeIndex> = f.blocks.keys().map(|b| g.add_node(b)).collect();
    for b in f.blocks.keys() {
        for s in f.blocks[b].term.successors() {
            if f.blocks.is_valid(s) {
                g.add_edge(idx[b.index()], idx[s.index()], ());
            }
        }
    }
    let doms: Dominators<NodeIndex> = simple_fast(&g, idx[f.entry_block().index()]);
    let dominates = |a: Block, b: Block| -> bool {
        let (a, b) = (idx[a.index()], idx[b.index()]);
        doms.dominators(b).is_some_and(|mut it| it.any(|d| d == a))
    };

    // Position of each instruction in its block, for same-block ordering.
    let mut pos: SecondaryMap<Inst, usize> = SecondaryMap::new();
    for b in &order {
        for (i, &inst) in f.blocks[*b].insts.iter().enumerate() {
            pos[inst] = i + 1;
        }
    }
    let available = |v: Value, block: Block, at: usize| -> bool {
        match f.values[v].def {
            ValueDef::Param(pb, _) => dominates(pb, block),
            ValueDef::Inst(di) => match inst_block[di] {
                Some(db) if db == block => pos[di] < at,
                Some(db) => dominates(db, block),
                None => false,
            },
        }
    };

    for &b in &order {
        let data = &f.blocks[b];
        for (i, &p) in data.params.iter().enumerate() {
            if f.values[p].def != ValueDef::Param(b, i as u32) {
                errs.push(VerifyError(format!("{b}: parameter {p} has a stale definition")));
            }
        }
        for (i, &inst) in data.insts.iter().enumerate() {
            let idata = &f.insts[inst];
            for a in idata.args() {
                if !f.values.is_valid(a) {
                    errs.push(VerifyError(format!("{inst}: operand {a} does not exist")));
                } else if !available(a, b, i + 1) {
                    errs.push(VerifyError(format!("{inst} in {b}: operand {a} does not dominate its use")));
                }
            }
            if let Err(e) = check_types(f, idata) {
                errs.push(VerifyError(format!("{inst} ({}): {e}", print::inst_text(f, inst))));
            }
            if idata.uses_local_memory() && f.local_memory == 0 {
                errs.push(VerifyError(format!(
                    "{inst} ({}): local memory is used but the kernel declares none",
                    print::inst_text(f, inst)
                )));
            }
            match (idata.result_type(), f.results[inst]) {
                (Some(t), Some(v)) if f.value_type(v) == t => {}
                (None, None) => {}
                _ => errs.push(VerifyError(format!("{inst}: result does not match its instruction"))),
            }
        }
        let end = data.insts.len() + 1;
        for a in data.term.args() {
            if !f.values.is_valid(a) || !available(a, b, end) {
                errs.push(VerifyError(format!("{b}: terminator operand {a} does not dominate its use")));
            }
        }
        match &data.term {
            Terminator::If { cond, .. } | Terminator::BreakIf { cond, .. } if f.value_type(*cond) != Type::Bool => {
                errs.push(VerifyError(format!("{b}: branch condition {cond} is not b1")));
            }
            _ => {}
        }
        for (dest, args) in data.term.edges_with_args() {
            let params = &f.blocks[dest].params;
            if params.len() != args.len() {
                errs.push(VerifyError(format!("{b}: edge to {dest} passes {} arguments for {} parameters", args.len(), params.len())));
                continue;
            }
            for (a, p) in args.iter().zip(params) {
                if f.value_type(*a) != f.value_type(*p) {
                    errs.push(VerifyError(format!("{b}: argument {a} to {dest} has the wrong type")));
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn check_types(f: &Function, d: &InstData) -> Result<(), String> {
    let ty = |v: Value| f.value_type(v);
    let expect = |v: Value, t: Type| {
        if ty(v) == t {
            Ok(())
        } else {
            Err(format!("{v} is {}, expected {}", ty(v).name(), t.name()))
        }
    };
    match *d {
        InstData::Const { ty: t, bits } if t.bits() < 32 && bits >> t.bits() != 0 => {
            Err(format!("constant {bits:#x} does not fit {}", t.name()))
        }
        InstData::Const { ty: t, .. } if t.is_64bit() => Err(format!("{} constants are built by pack64", t.name())),
        InstData::Const { .. } | InstData::KernelArg { .. } | InstData::Special { .. } => Ok(()),
        InstData::Unary { op, arg } => expect(arg, op.ty()),
        InstData::Binary { op, args } => {
            let t = op.types().0;
            expect(args[0], t)?;
            expect(args[1], t)
        }
        InstData::Cmp { op, args } => {
            let t = op.operand_type();
            expect(args[0], t)?;
            expect(args[1], t)
        }
        InstData::Select { ty: t, cond, args } => {
            expect(cond, Type::Bool)?;
            expect(args[0], t)?;
            expect(args[1], t)
        }
        InstData::Convert { op, arg } => expect(arg, op.types().0),
        InstData::Load { ty: t, addr, .. } => {
            expect(addr, Type::I32)?;
            if t == Type::Bool || t.is_64bit() {
                return Err(format!("loads of {} are not allowed (64-bit values are loaded as two halves)", t.name()));
            }
            Ok(())
        }
        InstData::Store { addr, value, .. } => {
            expect(addr, Type::I32)?;
            if ty(value) == Type::Bool || ty(value).is_64bit() {
                return Err(format!("stores of {} are not allowed (64-bit values are stored as two halves)", ty(value).name()));
            }
            Ok(())
        }
        InstData::Ternary { op, args } => args.iter().try_for_each(|&a| expect(a, op.ty())),
        InstData::Bitcast { ty: to, arg } => {
            if bitcast_allowed(ty(arg), to) {
                Ok(())
            } else {
                Err(format!("cannot bitcast {} to {} (i32 <-> f32 and i16 <-> f16 only)", ty(arg).name(), to.name()))
            }
        }
        InstData::AtomicRmw { space, addr, value, .. } => {
            atomic_space(space)?;
            expect(addr, Type::I32)?;
            expect(value, Type::I32)
        }
        InstData::AtomicCas { space, addr, expected, value } => {
            atomic_space(space)?;
            expect(addr, Type::I32)?;
            expect(expected, Type::I32)?;
            expect(value, Type::I32)
        }
        InstData::Barrier | InstData::Fence { .. } => Ok(()),
        InstData::WaveReduce { op, arg } => expect(arg, op.ty()),
        InstData::WavePrefix { op, arg } => {
            if !op.has_prefix() {
                return Err(format!("wave_prefix.{} does not exist (iadd, imul, fadd, fmul)", op.name()));
            }
            expect(arg, op.ty())
        }
        InstData::WaveBallot { cond, word } => {
            if word > 3 {
                return Err(format!("ballot word {word} is out of range (0..=3)"));
            }
            expect(cond, Type::Bool)
        }
        InstData::WaveVote { cond, .. } => expect(cond, Type::Bool),
        InstData::WaveReadLane { ty: t, arg, lane } => {
            no_64bit_wave(t)?;
            expect(arg, t)?;
            expect(lane, Type::I32)
        }
        InstData::WaveReadFirst { ty: t, arg } => {
            no_64bit_wave(t)?;
            expect(arg, t)
        }
        InstData::Pack64 { ty: t, lo, hi } => {
            if !t.is_64bit() {
                return Err(format!("pack64 makes i64 or f64, not {}", t.name()));
            }
            expect(lo, Type::I32)?;
            expect(hi, Type::I32)
        }
        InstData::Unpack64 { arg, .. } => {
            if ty(arg).is_64bit() {
                Ok(())
            } else {
                Err(format!("{arg} is {}, expected i64 or f64", ty(arg).name()))
            }
        }
        InstData::Double { op, args } => args[..op.arity()].iter().try_for_each(|&a| expect(a, op.types().0)),
    }
}

/// Cross-lane reads work on 32-bit values: 64-bit ones read their halves.
fn no_64bit_wave(t: Type) -> Result<(), String> {
    if t.is_64bit() {
        Err(format!("wave reads of {} are not allowed (read the halves)", t.name()))
    } else {
        Ok(())
    }
}

fn atomic_space(space: MemSpace) -> Result<(), String> {
    if space == MemSpace::DeviceReadOnly {
        Err("atomics on read-only memory are not allowed".into())
    } else {
        Ok(())
    }
}
