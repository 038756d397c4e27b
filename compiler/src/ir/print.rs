//! The IR's text form: blocks in region order, indented by nesting.
//! `parse::parse_function` reads it back; `;` starts a comment (annotations,
//! the bits of float constants). Spans are not printed; loop hints are, and a
//! non-zero `local_memory` (and `local_arrays`, its part holding local arrays),
//! the readable kernel arguments and a padded workgroup size go in the header
//! (`kernel @k local_memory 1024 readable 0:16 padded 80:96 {`).

use super::structure::{region_tree, Node};
use super::*;
use std::fmt::Write;

/// Prints `f`; `annotate` may add a trailing comment to each value definition.
pub fn print_function(f: &Function, annotate: &dyn Fn(Value) -> Option<String>) -> String {
    let mut out = String::new();
    let _ = write!(out, "kernel @{}", f.name);
    if f.local_memory > 0 {
        let _ = write!(out, " local_memory {}", f.local_memory);
    }
    if f.local_arrays > 0 {
        let _ = write!(out, " local_arrays {}", f.local_arrays);
    }
    if !f.readable.is_empty() {
        let list: Vec<String> = f.readable.iter().map(|(a, n)| format!("{a}:{n}")).collect();
        let _ = write!(out, " readable {}", list.join(","));
    }
    if let Some(p) = f.padded {
        let _ = write!(out, " padded {}:{}", p.threads, p.launch);
    }
    out.push_str(" {\n");
    match region_tree(f) {
        Ok(nodes) => print_nodes(f, &nodes, 1, annotate, &mut out),
        Err(e) => {
            // Print in creation order so a broken function can still be read.
            let _ = writeln!(out, "  ; not structured: {e}");
            for b in f.blocks.keys() {
                print_block(f, b, 1, annotate, &mut out);
            }
        }
    }
    out.push_str("}\n");
    out
}

fn print_nodes(f: &Function, nodes: &[Node], depth: usize, annotate: &dyn Fn(Value) -> Option<String>, out: &mut String) {
    for n in nodes {
        match n {
            Node::Block(b) => print_block(f, *b, depth, annotate, out),
            Node::If { then_region, else_region, .. } => {
                print_nodes(f, then_region, depth + 1, annotate, out);
                print_nodes(f, else_region, depth + 1, annotate, out);
            }
            Node::Loop { body, .. } => print_nodes(f, body, depth + 1, annotate, out),
        }
    }
}

fn value_list(f: &Function, vs: &[Value]) -> String {
    let _ = f;
    vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

fn print_block(f: &Function, b: Block, depth: usize, annotate: &dyn Fn(Value) -> Option<String>, out: &mut String) {
    let pad = "  ".repeat(depth);
    let data = &f.blocks[b];
    let params: Vec<String> = data.params.iter().map(|&p| format!("{p}:{}", f.value_type(p).name())).collect();
    if params.is_empty() {
        let _ = writeln!(out, "{pad}{b}:");
    } else {
        let _ = writeln!(out, "{pad}{b}({}):", params.join(", "));
    }
    for &p in &data.params {
        if let Some(note) = annotate(p) {
            let _ = writeln!(out, "{pad}    ; {p}: {note}");
        }
    }
    for &inst in &data.insts {
        let text = inst_text(f, inst);
        let line = match f.results[inst] {
            Some(v) => format!("{v}:{} = {text}", f.value_type(v).name()),
            None => text,
        };
        let note = f.results[inst].and_then(annotate);
        match note {
            Some(n) => {
                let _ = writeln!(out, "{pad}    {line:<40} ; {n}");
            }
            None => {
                let _ = writeln!(out, "{pad}    {line}");
            }
        }
    }
    let term = match &data.term {
        Terminator::None => "<no terminator>".to_string(),
        Terminator::Return => "return".to_string(),
        Terminator::Jump { dest, args } => format!("jump {dest}({})", value_list(f, args)),
        Terminator::If { cond, then_dest, else_dest, merge } => format!("if {cond} then {then_dest} else {else_dest} merge {merge}"),
        Terminator::Loop { header, args, exit } => {
            format!("loop {header}({}) exit {exit}{}", value_list(f, args), loop_hint_text(f.loop_hints[b]))
        }
        Terminator::BreakIf { cond, exit, args, cont } => format!("break_if {cond} to {exit}({}) else {cont}", value_list(f, args)),
    };
    let _ = writeln!(out, "{pad}    {term}");
}

/// One instruction without its result.
pub fn inst_text(f: &Function, inst: Inst) -> String {
    match &f.insts[inst] {
        InstData::Const { ty, bits } => match ty {
            Type::F32 => fconst_text(*bits),
            Type::Bool => format!("bconst {}", *bits != 0),
            Type::I32 => format!("iconst {}", *bits as i32),
            Type::I16 => format!("iconst16 {}", *bits as u16 as i16),
            Type::F16 => format!("fconst16 {:#06x} ; {}", *bits as u16, half::f16::from_bits(*bits as u16)),
            // 64-bit values are built by `pack64`; the verifier refuses such constants.
            Type::I64 | Type::F64 => format!("<{} constant {bits:#x}>", ty.name()),
        },
        InstData::KernelArg { index } => format!("kernel_arg {index}"),
        InstData::Special { reg } => format!("special {}", reg.asm_name()),
        InstData::Unary { op, arg } => format!("{} {arg}", op.name()),
        InstData::Binary { op, args } => format!("{} {}, {}", op.name(), args[0], args[1]),
        InstData::Cmp { op, args } => format!("{} {} {}, {}", op.mnemonic(), op.name(), args[0], args[1]),
        InstData::Select { cond, args, .. } => format!("select {cond}, {}, {}", args[0], args[1]),
        InstData::Convert { op, arg } => format!("{} {arg}", op.name()),
        InstData::Load { space, ty, addr } => format!("load.{}.{} [{addr}]", space.name(), ty.name()),
        InstData::Store { space, addr, value } => format!("store.{} [{addr}], {value}", space.name()),
        InstData::Ternary { op, args } => format!("{} {}, {}, {}", op.name(), args[0], args[1], args[2]),
        InstData::Bitcast { arg, .. } => format!("bitcast {arg}"),
        InstData::AtomicRmw { op, space, addr, value } => format!("atomic_rmw.{}.{} [{addr}], {value}", op.name(), space.name()),
        InstData::AtomicCas { space, addr, expected, value } => format!("atomic_cas.{} [{addr}], {expected}, {value}", space.name()),
        InstData::Barrier => "barrier".into(),
        InstData::Fence { scope } => format!("fence.{}", scope.name()),
        InstData::WaveReduce { op, arg } => format!("wave_reduce.{} {arg}", op.name()),
        InstData::WavePrefix { op, arg } => format!("wave_prefix.{} {arg}", op.name()),
        InstData::WaveBallot { cond, word } => format!("wave_ballot {cond}, {word}"),
        InstData::WaveVote { op, cond } => format!("{} {cond}", op.name()),
        InstData::WaveReadLane { arg, lane, .. } => format!("wave_read_lane {arg}, {lane}"),
        InstData::WaveReadFirst { arg, .. } => format!("wave_read_first {arg}"),
        InstData::Pack64 { lo, hi, .. } => format!("pack64 {lo}, {hi}"),
        InstData::Unpack64 { hi, arg } => format!("{} {arg}", if *hi { "hi32" } else { "lo32" }),
        InstData::Double { op, args } => {
            let a: Vec<String> = args[..op.arity()].iter().map(|v| v.to_string()).collect();
            format!("{} {}", op.name(), a.join(", "))
        }
    }
}

/// `fconst 1.5 ; 0x3fc00000`: the shortest decimal that reads back as the same
/// bits, with the bits as a comment; NaNs other than the canonical one have no
/// such decimal and print as their bits (`fconst 0x7fc00001`).
fn fconst_text(bits: u32) -> String {
    let decimal = format!("{:?}", f32::from_bits(bits));
    if decimal.parse::<f32>().is_ok_and(|x| x.to_bits() == bits) {
        format!("fconst {decimal} ; {bits:#010x}")
    } else {
        format!("fconst {bits:#010x}")
    }
}

/// ` [unroll(4)]` after a `loop` terminator; empty without a hint.
fn loop_hint_text(hint: LoopHint) -> String {
    match hint {
        LoopHint::None => String::new(),
        LoopHint::DontUnroll => " [loop]".into(),
        LoopHint::Unroll(None) => " [unroll]".into(),
        LoopHint::Unroll(Some(n)) => format!(" [unroll({n})]"),
    }
}
