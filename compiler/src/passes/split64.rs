//! split64: every `i64` value becomes its two 32-bit halves, and so does every
//! `f64` value except where a `double` instruction needs one.
//!
//! The lowering keeps a 64-bit leaf as one value (`pack64 lo, hi`) so that
//! locals, block parameters and selects carry it whole, and computes on its
//! halves (`lo32`, `hi32`). WAVE has no 64-bit registers, only pairs for its
//! f64 instructions, so before selection:
//!
//! * a 64-bit block parameter becomes two `i32` parameters (the low one
//!   first), and every edge passes the argument's halves;
//! * a 64-bit `select` becomes two `i32` selects;
//! * `lo32`/`hi32` of a value with known halves is that half (the instruction
//!   goes); `pack64` of an `i64` goes (its operands are the halves);
//! * an `f64` that a `double` instruction reads is that instruction's result
//!   or a `pack64` of halves placed right before it; the result of a `double`
//!   instruction gets its halves (`lo32`/`hi32`) right after it.
//!
//! Afterwards no `i64` value is read, and `f64` values are read only by `double`
//! instructions and `lo32`/`hi32` (dead code removal drops what is left over).

use std::collections::BTreeMap;

use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;

/// Runs the split; returns whether anything changed.
pub fn split64(f: &mut Function) -> bool {
    if !f.values.values().any(|v| v.ty.is_64bit()) {
        return false;
    }
    let Ok(nodes) = region_tree(f) else { return false };
    let order = block_order(&nodes);
    let mut halves: BTreeMap<Value, (Value, Value)> = BTreeMap::new();
    let mut subst: BTreeMap<Value, Value> = BTreeMap::new();

    // Block parameters first: their halves are known before any block is rewritten.
    let blocks: Vec<Block> = f.blocks.keys().collect();
    for &b in &blocks {
        let old = f.blocks[b].params.clone();
        if !old.iter().any(|&p| f.value_type(p).is_64bit()) {
            continue;
        }
        let mut params = Vec::with_capacity(old.len() + 2);
        for p in old {
            if f.value_type(p).is_64bit() {
                let lo = f.values.push(ValueData { ty: Type::I32, def: ValueDef::Param(b, 0) });
                let hi = f.values.push(ValueData { ty: Type::I32, def: ValueDef::Param(b, 0) });
                halves.insert(p, (lo, hi));
                params.push(lo);
                params.push(hi);
            } else {
                params.push(p);
            }
        }
        for (i, &p) in params.iter().enumerate() {
            f.values[p].def = ValueDef::Param(b, i as u32);
        }
        f.blocks[b].params = params;
    }

    for &b in &order {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut out: Vec<Inst> = Vec::with_capacity(insts.len());
        for inst in insts {
            let mut data = f.insts[inst].clone();
            data.map_args(|a| *subst.get(&a).unwrap_or(&a));
            let result = f.results[inst];
            let span = f.spans[inst];
            match data {
                InstData::Pack64 { ty, lo, hi } => {
                    let v = result.expect("pack64 has a result");
                    halves.insert(v, (lo, hi));
                    if ty == Type::F64 {
                        // Kept for the double instructions that may read it (else dead).
                        f.insts[inst] = data;
                        out.push(inst);
                    }
                }
                InstData::Unpack64 { hi, arg } if halves.contains_key(&arg) => {
                    let (l, h) = halves[&arg];
                    subst.insert(result.expect("lo32/hi32 has a result"), if hi { h } else { l });
                }
                InstData::Select { ty, cond, args } if ty.is_64bit() => {
                    let v = result.expect("select has a result");
                    let (a, c) = (halves_of(f, &mut halves, args[0]), halves_of(f, &mut halves, args[1]));
                    let lo = emit(f, &mut out, InstData::Select { ty: Type::I32, cond, args: [a.0, c.0] }, span);
                    let hi = emit(f, &mut out, InstData::Select { ty: Type::I32, cond, args: [a.1, c.1] }, span);
                    halves.insert(v, (lo, hi));
                }
                InstData::Double { op, mut args } => {
                    // f64 operands: a double result or pack as it is, else a pack of the halves.
                    for a in args.iter_mut().take(op.arity()) {
                        if f.value_type(*a) == Type::F64 && !is_whole_f64(f, *a) {
                            let (l, h) = halves_of(f, &mut halves, *a);
                            *a = emit(f, &mut out, InstData::Pack64 { ty: Type::F64, lo: l, hi: h }, span);
                        }
                    }
                    for k in op.arity()..3 {
                        args[k] = args[0];
                    }
                    f.insts[inst] = InstData::Double { op, args };
                    out.push(inst);
                    if let Some(v) = result.filter(|&v| f.value_type(v) == Type::F64) {
                        let lo = emit(f, &mut out, InstData::Unpack64 { hi: false, arg: v }, span);
                        let hi = emit(f, &mut out, InstData::Unpack64 { hi: true, arg: v }, span);
                        halves.insert(v, (lo, hi));
                    }
                }
                other => {
                    f.insts[inst] = other;
                    out.push(inst);
                }
            }
        }
        f.blocks[b].insts = out;
        // Terminators: substitute, then pass the halves of 64-bit arguments.
        let mut term = std::mem::take(&mut f.blocks[b].term);
        term.map_args(|a| *subst.get(&a).unwrap_or(&a));
        let expand = |f: &mut Function, halves: &mut BTreeMap<Value, (Value, Value)>, args: &mut Vec<Value>| {
            if args.iter().any(|&a| f.value_type(a).is_64bit()) {
                let mut new = Vec::with_capacity(args.len() + 2);
                for &a in args.iter() {
                    if f.value_type(a).is_64bit() {
                        let (l, h) = halves_of(f, halves, a);
                        new.push(l);
                        new.push(h);
                    } else {
                        new.push(a);
                    }
                }
                *args = new;
            }
        };
        match &mut term {
            Terminator::Jump { args, .. } | Terminator::Loop { args, .. } | Terminator::BreakIf { args, .. } => {
                expand(f, &mut halves, args)
            }
            _ => {}
        }
        f.blocks[b].term = term;
    }
    true
}

/// An f64 that a double instruction may read as it is (its own result or a pack).
fn is_whole_f64(f: &Function, v: Value) -> bool {
    f.def_inst(v).is_some_and(|i| matches!(f.insts[i], InstData::Double { .. } | InstData::Pack64 { .. }))
}

/// The halves of a 64-bit value (known by now: definitions come first in region order).
fn halves_of(f: &Function, halves: &mut BTreeMap<Value, (Value, Value)>, v: Value) -> (Value, Value) {
    match halves.get(&v) {
        Some(&h) => h,
        None => {
            // Unreachable for verified IR; keep the value (the verifier will say why).
            let _ = f;
            (v, v)
        }
    }
}

/// Appends a new instruction to `out`; returns its result.
fn emit(f: &mut Function, out: &mut Vec<Inst>, data: InstData, span: crate::diag::Span) -> Value {
    let b = f.entry_block();
    let v = f.append_inst(b, data, span).expect("an instruction with a result");
    let inst = f.blocks[b].insts.pop().expect("just appended");
    out.push(inst);
    v
}
