//! Applies a spill plan: inserts saves after definitions and the planned
//! reloads, then restores SSA form. A reload is a new definition of the value
//! it brings back; each use then reads the definition that reaches it,
//! found by walking up from the use (Braun et al.'s SSA construction): within
//! the block, else through the single predecessor, else through a new block
//! parameter whose arguments the predecessors supply. Every block with
//! several predecessors is entered by edges that carry arguments (merges,
//! loop headers and exits), so a parameter can always be added. Parameters
//! whose arguments all name one value are removed again.

use super::super::regions::Regions;
use super::code::{CodeGen, Home};
use super::plan::Plan;
use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::predecessors;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// Position of a definition or use in a block: parameters at 0, a reload
/// before instruction `i` at `2i + 1` (it is read by instruction `i`, at the
/// same position), the definition of instruction `i` at `2i + 2`.
fn reload_pos(i: usize) -> usize {
    2 * i + 1
}
fn def_pos(i: usize) -> usize {
    2 * i + 2
}
const END: usize = usize::MAX;

struct Ssa {
    preds: SecondaryMap<Block, Vec<Block>>,
    /// Definitions of each rewritten value in each block, by position.
    defs: SecondaryMap<Block, BTreeMap<VReg, Vec<(usize, VReg)>>>,
    /// The definition reaching the start of a block, once known.
    at_entry: BTreeMap<(Block, VReg), VReg>,
    /// Parameters added, whose arguments are still to be filled: (block, value, parameter).
    pending: Vec<(Block, VReg, VReg)>,
    added: Vec<(Block, VReg)>,
    /// Joins entered by an edge without arguments (an `if` without `else`
    /// goes straight to its merge): the value is reloaded at the block's start
    /// into the vreg given here instead of joined by a parameter.
    entry_reloads: Vec<(Block, VReg, VReg)>,
}

impl Ssa {
    /// The definition of `v` reaching position `pos` of `b`.
    fn lookup(&mut self, m: &mut MFunction, mut b: Block, mut pos: usize, v: VReg) -> Result<VReg, String> {
        let start = (b, pos);
        loop {
            if let Some(list) = self.defs[b].get(&v) {
                if let Some(&(_, d)) = list.iter().rev().find(|&&(p, _)| p <= pos) {
                    return Ok(d);
                }
            }
            if let Some(&d) = self.at_entry.get(&(b, v)) {
                return Ok(d);
            }
            match self.preds[b].as_slice() {
                [] => {
                    return Err(format!(
                        "{v} is used in {b} at {pos} but no definition reaches it (defs here: {:?}; looked up from {start:?})",
                        self.defs[b].get(&v)
                    ))
                }
                [p] => {
                    b = *p;
                    pos = END;
                }
                preds => {
                    let info = m.vregs[v].clone();
                    let t = m.vregs.push(VRegInfo { fixed: None, not_r0: false, ..info });
                    m.stands_for[t] = Some(v);
                    self.at_entry.insert((b, v), t);
                    if preds.iter().any(|&p| Self::edge_args(m, p, b, v).is_err()) {
                        self.entry_reloads.push((b, v, t));
                        return Ok(t);
                    }
                    m.blocks[b].params.push(t);
                    let k = m.blocks[b].params.len() - 1;
                    for p in self.preds[b].clone() {
                        let args = Self::edge_args(m, p, b, v)?;
                        if args.len() != k {
                            return Err(format!("edge {p} -> {b} has {} arguments for {k} parameters", args.len()));
                        }
                        args.push(t);
                    }
                    self.pending.push((b, v, t));
                    self.added.push((b, t));
                    return Ok(t);
                }
            }
        }
    }

    /// The arguments `p` passes to `b` (an edge that carries arguments).
    fn edge_args(m: &mut MFunction, p: Block, b: Block, v: VReg) -> Result<&mut Vec<VReg>, String> {
        match &mut m.blocks[p].term {
            MTerm::Jump { dest, args } | MTerm::Loop { header: dest, args, .. } if *dest == b => Ok(args),
            MTerm::BreakIf { exit, args, .. } if *exit == b => Ok(args),
            _ => Err(format!("{b} needs a parameter for {v} but the edge from {p} carries no arguments")),
        }
    }

    /// Gives every added parameter its arguments (which may add more parameters).
    fn fill(&mut self, m: &mut MFunction) -> Result<(), String> {
        while let Some((b, v, t)) = self.pending.pop() {
            let k = m.blocks[b].params.iter().position(|&p| p == t).ok_or("an added parameter vanished")?;
            for p in self.preds[b].clone() {
                let a = self.lookup(m, p, END, v)?;
                let args = Self::edge_args(m, p, b, v)?;
                // Parameters are added one at a time, each edge getting a placeholder at once.
                while args.len() <= k {
                    args.push(t);
                }
                args[k] = a;
            }
        }
        Ok(())
    }
}

/// Rewrites `m` by `plan` with values' `homes`; returns the new function.
/// `init` goes first at the entry (zeroing bit banks).
pub fn rewrite(
    m: &MFunction,
    plan: &Plan,
    homes: &BTreeMap<VReg, Home>,
    regions: &Regions,
    cg: &mut CodeGen,
    init: Vec<MInst>,
) -> Result<MFunction, String> {
    let mut out = m.clone();
    // Definitions of spilled values (for saves and rematerialization).
    let mut def_inst: BTreeMap<VReg, MInst> = BTreeMap::new();
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if let Some(d) = inst.dst.filter(|d| homes.contains_key(d)) {
                def_inst.insert(d, inst.clone());
            }
        }
    }
    let mut ssa = Ssa {
        preds: predecessors(m),
        defs: SecondaryMap::new(),
        at_entry: BTreeMap::new(),
        pending: Vec::new(),
        added: Vec::new(),
        entry_reloads: Vec::new(),
    };
    let reloaded: BTreeSet<VReg> =
        m.order.iter().flat_map(|&b| plan.reloads[b].values().flatten().chain(&plan.coupling[b]).copied()).collect();
    // The spill pointer, if any value lives in a slot.
    let pointer = if homes.values().any(|h| matches!(h, Home::Slot(_))) {
        let entry = m.entry;
        let span = m.blocks[entry].insts.first().map(|i| i.span).unwrap_or(m.blocks[entry].term_span);
        cg.spill_pointer(&mut out, span)
    } else {
        Vec::new()
    };
    // Reload code, and every definition of the reloaded values per block.
    let mut reload_code: SecondaryMap<Block, BTreeMap<usize, Vec<MInst>>> = SecondaryMap::new();
    let mut coupling_code: SecondaryMap<Block, Vec<MInst>> = SecondaryMap::new();
    for &b in &m.order {
        let weight = regions.weight(b);
        let block = &m.blocks[b];
        for &p in &block.params {
            // A memory parameter is never in a register: every use reads a reload.
            if reloaded.contains(&p) && !plan.memory_params.contains(&p) {
                ssa.defs[b].entry(p).or_default().push((0, p));
            }
        }
        for (i, inst) in block.insts.iter().enumerate() {
            if let Some(list) = plan.reloads[b].get(&i) {
                for v in leaves_first(list, homes, &def_inst) {
                    let home = *homes.get(&v).ok_or_else(|| format!("{v} is reloaded but has no home"))?;
                    let span = inst.span;
                    let (t, code) = cg.restore(&mut out, v, home, def_inst.get(&v), span, weight);
                    reload_code[b].entry(i).or_default().extend(code);
                    ssa.defs[b].entry(v).or_default().push((reload_pos(i), t));
                }
            }
            if let Some(d) = inst.dst.filter(|d| reloaded.contains(d)) {
                ssa.defs[b].entry(d).or_default().push((def_pos(i), d));
            }
        }
        let len = block.insts.len();
        if let Some(list) = plan.reloads[b].get(&len) {
            for v in leaves_first(list, homes, &def_inst) {
                let home = *homes.get(&v).ok_or_else(|| format!("{v} is reloaded but has no home"))?;
                let (t, code) = cg.restore(&mut out, v, home, def_inst.get(&v), block.term_span, weight);
                reload_code[b].entry(len).or_default().extend(code);
                ssa.defs[b].entry(v).or_default().push((reload_pos(len), t));
            }
        }
        // Reloads for the successor come last (after the edge stores), seen only past the terminator's reads.
        for v in leaves_first(&plan.coupling[b], homes, &def_inst) {
            let home = *homes.get(&v).ok_or_else(|| format!("{v} is reloaded but has no home"))?;
            let (t, code) = cg.restore(&mut out, v, home, def_inst.get(&v), block.term_span, weight);
            coupling_code[b].extend(code);
            ssa.defs[b].entry(v).or_default().push((reload_pos(len) + 1, t));
        }
    }
    // Uses read the definition that reaches them.
    let mut edge_code: SecondaryMap<Block, Vec<MInst>> = SecondaryMap::new();
    for &b in &m.order {
        let n = m.blocks[b].insts.len();
        for i in 0..n {
            let srcs = out.blocks[b].insts[i].srcs.clone();
            let mut new = srcs.clone();
            for (k, s) in srcs.iter().enumerate() {
                if reloaded.contains(s) {
                    new[k] = ssa.lookup(&mut out, b, reload_pos(i), *s)?;
                }
            }
            out.blocks[b].insts[i].srcs = new;
        }
        // A re-load's address may read values that were reloaded themselves.
        let len = m.blocks[b].insts.len();
        let mut codes = std::mem::take(&mut reload_code[b]);
        for (&i, code) in codes.iter_mut() {
            rename_leaves(&mut ssa, &mut out, &reloaded, b, reload_pos(i), code)?;
        }
        reload_code[b] = codes;
        let mut code = std::mem::take(&mut coupling_code[b]);
        rename_leaves(&mut ssa, &mut out, &reloaded, b, reload_pos(len) + 1, &mut code)?;
        coupling_code[b] = code;
        let mut term = std::mem::take(&mut out.blocks[b].term);
        let dest = match &term {
            MTerm::Jump { dest, .. } | MTerm::Loop { header: dest, .. } => Some(*dest),
            MTerm::BreakIf { exit, .. } => Some(*exit),
            _ => None,
        };
        if let (Some(dest), MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. }) = (dest, &mut term) {
            let params = &m.blocks[dest].params;
            for (k, a) in args.iter_mut().enumerate() {
                // Arguments for memory parameters are stored below, not copied.
                if reloaded.contains(a) && !params.get(k).is_some_and(|p| plan.memory_params.contains(p)) {
                    *a = ssa.lookup(&mut out, b, reload_pos(n), *a)?;
                }
            }
        }
        out.blocks[b].term = term;
        // Arguments for memory parameters are stored into the parameter's slot.
        // The edge copy is parallel: a slot is written only once every argument
        // this edge reloads from it has been read. Stores go in order, each
        // one waiting while a pending argument still has to be read from its
        // slot; when every pending store waits (a cycle of slots), one such
        // argument is read ahead into a register. Reading every argument from
        // a written slot ahead at once would hold them all in registers, past
        // the budget with more of them than registers.
        let weight = regions.weight(b);
        let span = m.blocks[b].term_span;
        let mut code = Vec::new();
        for (s, args) in m.blocks[b].term.edges() {
            let mut pending: Vec<(VReg, VReg)> = Vec::new();
            for (&a, &p) in args.iter().zip(&m.blocks[s].params) {
                if !plan.memory_params.contains(&p) {
                    continue;
                }
                let (home_p, home_a) = (homes.get(&p).copied(), homes.get(&a).copied());
                if a == p || (home_a == home_p && home_a.is_some()) {
                    // The argument was stored into this very slot at its definition.
                    if let Some(Home::Slot(slot)) = home_p {
                        out.slot_edges.push((b, s, slot, p, a));
                    }
                    continue;
                }
                pending.push((p, a));
            }
            // The slot each pending argument is still to be read from (it is reloaded here).
            let read_from = |a: VReg| homes.get(&a).copied().filter(|_| plan.edge_reloads[b].contains(&a));
            let mut early: BTreeMap<VReg, VReg> = BTreeMap::new();
            let mut readers: BTreeMap<Home, usize> = BTreeMap::new();
            for &(_, a) in &pending {
                if let Some(h) = read_from(a) {
                    *readers.entry(h).or_default() += 1;
                }
            }
            while !pending.is_empty() {
                let ready = pending.iter().position(|(p, _)| homes.get(p).is_none_or(|h| readers.get(h).copied().unwrap_or(0) == 0));
                let Some(i) = ready else {
                    let Some(a) = pending.iter().map(|&(_, a)| a).find(|a| !early.contains_key(a) && read_from(*a).is_some()) else {
                        return Err(format!("the memory arguments of the edge {b} -> {s} wait on each other"));
                    };
                    let h = read_from(a).expect("found above");
                    let (t, c) = cg.restore(&mut out, a, h, def_inst.get(&a), span, weight);
                    code.extend(c);
                    early.insert(a, t);
                    // Read: it no longer holds back a store to its slot.
                    let n = pending.iter().filter(|&&(_, x)| x == a).count();
                    if let Some(r) = readers.get_mut(&h) {
                        *r -= n;
                    }
                    continue;
                };
                let (p, a) = pending.remove(i);
                let value = if let Some(&t) = early.get(&a) {
                    t
                } else if plan.edge_reloads[b].contains(&a) {
                    let home = homes.get(&a).copied().ok_or_else(|| format!("{a} is reloaded but has no home"))?;
                    let (t, c) = cg.restore(&mut out, a, home, def_inst.get(&a), span, weight);
                    code.extend(c);
                    if let Some(r) = readers.get_mut(&home) {
                        *r -= 1;
                    }
                    t
                } else if reloaded.contains(&a) {
                    ssa.lookup(&mut out, b, reload_pos(n), a)?
                } else {
                    a
                };
                let Some(Home::Slot(slot)) = homes.get(&p).copied() else {
                    return Err(format!("memory parameter {p} has no slot"));
                };
                code.extend(cg.edge_store(&mut out, p, slot, value, span, weight));
            }
        }
        rename_leaves(&mut ssa, &mut out, &reloaded, b, reload_pos(n), &mut code)?;
        edge_code[b] = code;
    }
    ssa.fill(&mut out)?;
    // Saves after definitions, reload code before uses, the pointer first of all.
    let mut pointer = Some(init.into_iter().chain(pointer).collect::<Vec<_>>());
    for &b in &m.order {
        let weight = regions.weight(b);
        let old = std::mem::take(&mut out.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        let span0 = old.first().map(|i| i.span).unwrap_or(out.blocks[b].term_span);
        // At the entry, arguments that leave for homes needing no pointer go
        // first: their registers are free before the pointers are computed.
        let saved: Vec<(VReg, Home)> =
            m.blocks[b].params.iter().filter(|p| !plan.memory_params.contains(p)).filter_map(|&p| homes.get(&p).map(|&h| (p, h))).collect();
        let early = |h: &Home| b == m.entry && !matches!(h, Home::Slot(_));
        for &(p, home) in saved.iter().filter(|(_, h)| early(h)) {
            insts.extend(cg.save(&mut out, p, home, None, span0, weight));
        }
        if b == m.entry {
            insts.extend(pointer.take().unwrap_or_default());
        }
        for &(p, home) in saved.iter().filter(|(_, h)| !early(h)) {
            insts.extend(cg.save(&mut out, p, home, None, span0, weight));
        }
        for &(_, v, t) in ssa.entry_reloads.iter().filter(|e| e.0 == b) {
            let home = *homes.get(&v).ok_or_else(|| format!("{v} is reloaded but has no home"))?;
            insts.extend(cg.restore_into(&mut out, v, home, def_inst.get(&v), span0, weight, t));
        }
        let mut codes = std::mem::take(&mut reload_code[b]);
        for (i, inst) in old.into_iter().enumerate() {
            if let Some(code) = codes.remove(&i) {
                insts.extend(code);
            }
            let saved = inst.dst.and_then(|d| homes.get(&d).map(|&h| (d, h)));
            // A boolean made from a predicate: a mask can ballot that predicate.
            let test = inst.pred.filter(|&(_, neg)| inst.op == Opcode::BoolFromPred && !neg).map(|(p, _)| p);
            let span = inst.span;
            insts.push(inst);
            if let Some((d, home)) = saved {
                insts.extend(cg.save(&mut out, d, home, test, span, weight));
            }
        }
        if let Some(code) = codes.remove(&m.blocks[b].insts.len()) {
            insts.extend(code);
        }
        insts.append(&mut edge_code[b]);
        insts.append(&mut coupling_code[b]);
        out.blocks[b].insts = insts;
    }
    remove_memory_params(&mut out, &plan.memory_params, &ssa.preds);
    remove_trivial_params(&mut out, &ssa.added, &ssa.preds);
    remove_dead(&mut out, &ssa.preds);
    Ok(out)
}

/// Takes the memory parameters out of their blocks, and their arguments out
/// of the edges (their values went to memory).
fn remove_memory_params(m: &mut MFunction, memory: &BTreeSet<VReg>, preds: &SecondaryMap<Block, Vec<Block>>) {
    if memory.is_empty() {
        return;
    }
    for b in m.order.clone() {
        let mut k = m.blocks[b].params.len();
        while k > 0 {
            k -= 1;
            if !memory.contains(&m.blocks[b].params[k]) {
                continue;
            }
            m.blocks[b].params.remove(k);
            for &p in &preds[b] {
                match &mut m.blocks[p].term {
                    MTerm::Jump { dest, args } | MTerm::Loop { header: dest, args, .. } if *dest == b => {
                        args.remove(k);
                    }
                    MTerm::BreakIf { exit, args, .. } if *exit == b => {
                        args.remove(k);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Removes added parameters whose arguments all name one value (or the
/// parameter itself), replacing their uses by that value.
fn remove_trivial_params(m: &mut MFunction, added: &[(Block, VReg)], preds: &SecondaryMap<Block, Vec<Block>>) {
    let mut replace: BTreeMap<VReg, VReg> = BTreeMap::new();
    let resolve = |replace: &BTreeMap<VReg, VReg>, mut v: VReg| {
        while let Some(&r) = replace.get(&v) {
            v = r;
        }
        v
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &(b, t) in added {
            if replace.contains_key(&t) {
                continue;
            }
            let Some(k) = m.blocks[b].params.iter().position(|&p| p == t) else { continue };
            let mut only: Option<VReg> = None;
            let mut trivial = true;
            for &p in &preds[b] {
                for (s, args) in m.blocks[p].term.edges() {
                    if s != b {
                        continue;
                    }
                    let a = resolve(&replace, args[k]);
                    if a == t {
                        continue;
                    }
                    match only {
                        None => only = Some(a),
                        Some(o) if o == a => {}
                        Some(_) => trivial = false,
                    }
                }
            }
            if let (true, Some(x)) = (trivial, only) {
                replace.insert(t, x);
                m.blocks[b].params.remove(k);
                for &p in &preds[b] {
                    match &mut m.blocks[p].term {
                        MTerm::Jump { dest, args } | MTerm::Loop { header: dest, args, .. } if *dest == b => {
                            args.remove(k);
                        }
                        MTerm::BreakIf { exit, args, .. } if *exit == b => {
                            args.remove(k);
                        }
                        _ => {}
                    }
                }
                changed = true;
            }
        }
    }
    if replace.is_empty() {
        return;
    }
    for b in m.order.clone() {
        let block = &mut m.blocks[b];
        for inst in block.insts.iter_mut() {
            for s in inst.srcs.iter_mut() {
                *s = resolve(&replace, *s);
            }
        }
        if let MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } = &mut block.term {
            for a in args.iter_mut() {
                *a = resolve(&replace, *a);
            }
        }
    }
}

/// `list` with re-loads of read-only memory last, so that a value their
/// address reads, reloaded at the same point, is reloaded before them.
fn leaves_first(list: &[VReg], homes: &BTreeMap<VReg, Home>, def_inst: &BTreeMap<VReg, MInst>) -> Vec<VReg> {
    let reissued = |v: &VReg| homes.get(v) == Some(&Home::Remat) && def_inst.get(v).is_some_and(|d| d.invariant);
    let mut out = list.to_vec();
    out.sort_by_key(reissued);
    out
}

/// Renames reads in spill code `code` at position `pos` of `b` of values
/// the plan reloads (the leaves of a re-load's address; other spill code
/// reads only its own temporaries) to the definition reaching them.
fn rename_leaves(
    ssa: &mut Ssa,
    out: &mut MFunction,
    reloaded: &BTreeSet<VReg>,
    b: Block,
    pos: usize,
    code: &mut [MInst],
) -> Result<(), String> {
    for inst in code.iter_mut() {
        for k in 0..inst.srcs.len() {
            if reloaded.contains(&inst.srcs[k]) {
                inst.srcs[k] = ssa.lookup(out, b, pos, inst.srcs[k])?;
            }
        }
    }
    Ok(())
}

/// Removes what spilling made that nothing reads: reloads and recomputations
/// whose value is unused, their address arithmetic, parameters it added that
/// no one reads (with their arguments), and original definitions of
/// rematerialized values whose every use now reads a recomputation (or a
/// re-load of read-only memory).
fn remove_dead(m: &mut MFunction, preds: &SecondaryMap<Block, Vec<Block>>) {
    loop {
        let used = m.read_vregs();
        let mut changed = false;
        for b in m.order.clone() {
            let before = m.blocks[b].insts.len();
            m.blocks[b].insts.retain(|i| {
                let pure = match i.spill {
                    Some(
                        SpillTag::Store { .. } | SpillTag::GroupStore { .. } | SpillTag::BankWrite { .. } | SpillTag::MaskWrite { .. },
                    ) => false,
                    Some(_) => true,
                    // Also what a rematerialized value's own definition left unread.
                    None => {
                        (matches!(
                            i.op,
                            Opcode::MovImm
                                | Opcode::MovSpecial
                                | Opcode::Iadd
                                | Opcode::Isub
                                | Opcode::Imul
                                | Opcode::Shl
                                | Opcode::Shr
                                | Opcode::And
                                | Opcode::Or
                                | Opcode::Xor
                        ) || (i.op == Opcode::DeviceLoadU32 && i.invariant))
                            && i.pred.is_none()
                            && i.ins.is_none()
                    }
                };
                !(pure && i.dst.is_some_and(|d| !used[d]))
            });
            changed |= m.blocks[b].insts.len() != before;
            // Added parameters nothing reads.
            let mut k = 0;
            while k < m.blocks[b].params.len() {
                let p = m.blocks[b].params[k];
                if m.stands_for[p].is_some() && !used[p] {
                    m.blocks[b].params.remove(k);
                    for &q in &preds[b] {
                        match &mut m.blocks[q].term {
                            MTerm::Jump { dest, args } | MTerm::Loop { header: dest, args, .. } if *dest == b => {
                                args.remove(k);
                            }
                            MTerm::BreakIf { exit, args, .. } if *exit == b => {
                                args.remove(k);
                            }
                            _ => {}
                        }
                    }
                    changed = true;
                } else {
                    k += 1;
                }
            }
        }
        if !changed {
            return;
        }
    }
}
