//! The IR's text form: blocks in region order, indented by nesting.

use super::structure::{region_tree, Node};
use super::*;
use std::fmt::Write;

/// Prints `f`; `annotate` may add a trailing comment to each value definition.
pub fn print_function(f: &Function, annotate: &dyn Fn(Value) -> Option<String>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "kernel @{} {{", f.name);
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
            format!("loop {header}({}) exit {exit}", value_list(f, args))
        }
        Terminator::BreakIf { cond, exit, args, cont } => format!("break_if {cond} to {exit}({}) else {cont}", value_list(f, args)),
    };
    let _ = writeln!(out, "{pad}    {term}");
}

/// One instruction without its result.
pub fn inst_text(f: &Function, inst: Inst) -> String {
    match &f.insts[inst] {
        InstData::Const { ty, bits } => match ty {
            Type::F32 => format!("fconst {:?} ; {bits:#010x}", f32::from_bits(*bits)),
            Type::Bool => format!("bconst {}", *bits != 0),
            Type::I32 => format!("iconst {}", *bits as i32),
        },
        InstData::KernelArg { index } => format!("kernel_arg {index}"),
        InstData::Special { reg } => format!("special {}", reg.asm_name()),
        InstData::Unary { op, arg } => format!("{} {arg}", format!("{op:?}").to_lowercase()),
        InstData::Binary { op, args } => format!("{} {}, {}", format!("{op:?}").to_lowercase(), args[0], args[1]),
        InstData::Cmp { op, args } => {
            let name = format!("{op:?}").to_lowercase();
            let kind = if op.operand_type() == Type::F32 { "fcmp" } else { "icmp" };
            format!("{kind} {} {}, {}", name.trim_start_matches('f'), args[0], args[1])
        }
        InstData::Select { cond, args, .. } => format!("select {cond}, {}, {}", args[0], args[1]),
        InstData::Convert { op, arg } => format!("{} {arg}", format!("{op:?}").to_lowercase()),
        InstData::Load { space, ty, addr } => {
            format!("load.{}.{} [{addr}]", space_name(*space), ty.name())
        }
        InstData::Store { space, addr, value } => {
            format!("store.{} [{addr}], {value}", space_name(*space))
        }
    }
}

fn space_name(s: MemSpace) -> &'static str {
    match s {
        MemSpace::Device => "device",
        MemSpace::DeviceReadOnly => "device_ro",
        MemSpace::Local => "local",
    }
}
