//! Spilling: rewrites machine IR until no more V values are live at once than
//! the register budget allows.
//!
//! Choice (Belady / Braun-Hack): wherever more values are live than the
//! budget, the ones whose next use is farthest away leave the registers; a use
//! past a loop exit counts as very far, so values live through a loop that the
//! loop never reads are the first to go, and are never reloaded inside it.
//!
//! Placement (spill everywhere): a chosen value is saved right after its
//! definition and brought back right before each use, into a fresh short-lived
//! vreg, so the program stays in SSA form. In order of preference:
//!
//! - **rematerialization**: constants and special registers are recomputed at
//!   each use (the original definition goes away);
//! - **lane banks**: a wave-uniform value defined where every lane is active
//!   is written into one lane of a bank register (`@p mov bank, v` with
//!   `p = lane_id == j`) and read back with `wave_broadcast d, bank, j`. A bank
//!   holds one value per lane, so it saves registers as soon as it holds two;
//!   it is a register reserved for the whole kernel (the caller compares the
//!   cost with and without banks);
//! - **local memory**: each thread owns one word per spill slot in a spill area
//!   after the kernel's groupshared memory, at `area + slot*T*4 + tid*4` (`T`
//!   threads per group), so a wave's accesses are consecutive words (no bank
//!   conflicts). The spill pointer `area + tid*4` is computed once at entry.
//!
//! Each round rewrites the program and recomputes liveness; spill code makes
//! values of its own (reload temporaries, the spill pointer) that are never
//! spilled, so every round spills new values and the loop ends.

use super::liveness::{definitions, Liveness};
use super::pressure::points_over;
use super::regions::Regions;
use crate::codegen::mir::*;
use crate::diag::Span;
use crate::ir::{Block, SpecialReg};
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// How far a use past a loop exit counts (Braun-Hack's loop-exit penalty).
const LOOP_EXIT_DISTANCE: u32 = 100_000;
const FAR: u32 = u32::MAX / 4;

#[derive(Clone, Debug)]
pub struct SpillConfig {
    /// V registers available: values plus lane banks.
    pub budget: u32,
    /// Recompute constants and special registers instead of spilling them.
    pub remat: bool,
    /// Lanes a bank may use (0: no lane banks). Every wave of the kernel has at
    /// least this many lanes.
    pub bank_lanes: u32,
    /// Local memory one workgroup may use, bytes.
    pub local_limit: u32,
}

/// What spilling inserted.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SpillStats {
    /// Values kept in local memory.
    pub spilled: u32,
    pub stores: u32,
    pub reloads: u32,
    /// Values recomputed at their uses, and the recomputations.
    pub remat_values: u32,
    pub remats: u32,
    /// Lane banks (registers), the values they hold, and their writes and reads.
    pub banks: u32,
    pub banked: u32,
    pub bank_writes: u32,
    pub bank_reads: u32,
    /// Bytes of local memory for spill slots (per workgroup).
    pub spill_bytes: u32,
    /// Instructions inserted, each weighted by 10 per enclosing loop.
    pub weighted_cost: u64,
    /// Of those, the loads and stores of local memory (weighted likewise).
    pub weighted_memory: u64,
}

#[derive(Clone, Debug)]
pub enum SpillError {
    /// More values must be live at once here than the budget allows (operands
    /// of one instruction, spill temporaries).
    Infeasible { block: Block, index: Option<usize>, live: Vec<VReg> },
    /// The spill area does not fit the target's local memory.
    LocalMemory { needed: u32, limit: u32 },
    Internal(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Home {
    Remat,
    Bank { bank: u32, lane: u32 },
    Slot(u32),
}

/// Spills values of `m` until at most `cfg.budget` V registers are live at once.
pub fn spill(m: &mut MFunction, cfg: &SpillConfig) -> Result<SpillStats, SpillError> {
    let regions = Regions::compute(m).map_err(SpillError::Internal)?;
    let threads: u32 = m.workgroup_size.iter().product::<u32>().max(1);
    let mut s = Spiller {
        cfg,
        regions,
        threads,
        area: m.local_memory.div_ceil(4) * 4,
        unspillable: SecondaryMap::new(),
        sp: None,
        slots: 0,
        bank_fill: Vec::new(),
        stats: SpillStats::default(),
    };
    loop {
        let live = Liveness::compute(m);
        let k = cfg.budget.saturating_sub(s.bank_fill.len() as u32);
        let points = points_over(m, &live, k);
        if points.is_empty() {
            break;
        }
        let nu = NextUse::compute(m, &live);
        let remat_ok = remat_candidates(m);
        let mut victims: BTreeSet<VReg> = BTreeSet::new();
        for pt in &points {
            let mut count = pt.set.iter().filter(|v| !victims.contains(v)).count() as u32;
            let mut block_uses: Option<BTreeMap<VReg, Vec<u32>>> = None;
            while count > k {
                let uses = block_uses.get_or_insert_with(|| use_positions(m, pt.block));
                let best = pt
                    .set
                    .iter()
                    .copied()
                    .filter(|v| !victims.contains(v) && !s.unspillable[*v] && !pt.protect.contains(v))
                    .max_by_key(|&v| {
                        let d = nu.distance(m, uses, pt.block, pt.index, v);
                        let remat = cfg.remat && remat_ok[v];
                        (d.saturating_mul(if remat { 4 } else { 1 }), v)
                    });
                let Some(v) = best else {
                    return Err(SpillError::Infeasible { block: pt.block, index: pt.index, live: pt.set.clone() });
                };
                victims.insert(v);
                count -= 1;
            }
        }
        s.rewrite(m, &victims)?;
    }
    if s.slots > 0 {
        s.stats.spill_bytes = s.slots * threads * 4;
        let needed = s.area + s.stats.spill_bytes;
        if needed > cfg.local_limit {
            return Err(SpillError::LocalMemory { needed, limit: cfg.local_limit });
        }
        m.local_memory = needed;
    }
    s.stats.banks = s.bank_fill.len() as u32;
    Ok(s.stats)
}

/// Positions of the uses of each value in `b` (instruction indices; the terminator is `len`).
fn use_positions(m: &MFunction, b: Block) -> BTreeMap<VReg, Vec<u32>> {
    let block = &m.blocks[b];
    let mut map: BTreeMap<VReg, Vec<u32>> = BTreeMap::new();
    for (i, inst) in block.insts.iter().enumerate() {
        for u in inst.uses() {
            map.entry(u).or_default().push(i as u32);
        }
    }
    for u in block.term.uses() {
        map.entry(u).or_default().push(block.insts.len() as u32);
    }
    map
}

/// Values defined by an instruction that can run again anywhere: a constant
/// or a special register (not spill code itself).
fn remat_candidates(m: &MFunction) -> SecondaryMap<VReg, bool> {
    let mut ok: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if let Some(d) = inst.dst {
                ok[d] = is_remat_inst(inst);
            }
        }
    }
    ok
}

fn is_remat_inst(inst: &MInst) -> bool {
    matches!(inst.op, Opcode::MovImm | Opcode::MovSpecial) && inst.pred.is_none() && inst.spill.is_none()
}

/// Next-use distances at block ends (Braun-Hack), for the values live there.
struct NextUse {
    out: SecondaryMap<Block, BTreeMap<VReg, u32>>,
}

impl NextUse {
    fn compute(m: &MFunction, live: &Liveness) -> NextUse {
        let mut first: SecondaryMap<Block, BTreeMap<VReg, u32>> = SecondaryMap::new();
        for &b in &m.order {
            let mut f = BTreeMap::new();
            for (v, pos) in use_positions(m, b) {
                f.insert(v, pos[0]);
            }
            first[b] = f;
        }
        let mut nu = NextUse { out: SecondaryMap::new() };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in m.order.iter().rev() {
                let term = &m.blocks[b].term;
                let exit = match term {
                    MTerm::BreakIf { exit, .. } => Some(*exit),
                    _ => None,
                };
                let mut out: BTreeMap<VReg, u32> = BTreeMap::new();
                for &v in live.live_out(b) {
                    let mut best = FAR;
                    for (s, _) in term.edges() {
                        if live.live_in(s).binary_search(&v).is_err() {
                            continue;
                        }
                        let inside = first[s].get(&v).copied().unwrap_or_else(|| {
                            let len = m.blocks[s].insts.len() as u32;
                            len.saturating_add(nu.out[s].get(&v).copied().unwrap_or(FAR))
                        });
                        let penalty = if Some(s) == exit { LOOP_EXIT_DISTANCE } else { 0 };
                        best = best.min(inside.saturating_add(penalty).min(FAR));
                    }
                    out.insert(v, best);
                }
                if out != nu.out[b] {
                    nu.out[b] = out;
                    changed = true;
                }
            }
        }
        nu
    }

    /// Distance from the point after instruction `index` of `b` (or its entry) to `v`'s next use.
    fn distance(&self, m: &MFunction, uses: &BTreeMap<VReg, Vec<u32>>, b: Block, index: Option<usize>, v: VReg) -> u32 {
        let here = index.map_or(0, |i| i as u32 + 1);
        if let Some(&p) = uses.get(&v).and_then(|ps| ps.iter().find(|&&p| p >= here)) {
            return p - here;
        }
        let len = m.blocks[b].insts.len() as u32;
        (len - here).saturating_add(self.out[b].get(&v).copied().unwrap_or(FAR))
    }
}

struct Spiller<'a> {
    cfg: &'a SpillConfig,
    regions: Regions,
    threads: u32,
    /// Byte offset of the spill area in local memory.
    area: u32,
    unspillable: SecondaryMap<VReg, bool>,
    sp: Option<VReg>,
    slots: u32,
    /// Lanes used in each bank.
    bank_fill: Vec<u32>,
    stats: SpillStats,
}

/// Instructions to insert around a block's instructions.
#[derive(Default)]
struct Edits {
    start: Vec<MInst>,
    before: BTreeMap<usize, Vec<MInst>>,
    after: BTreeMap<usize, Vec<MInst>>,
    end: Vec<MInst>,
    drop: BTreeSet<usize>,
}

impl<'a> Spiller<'a> {
    fn temp(&mut self, m: &mut MFunction, class: RegClass, uniform: bool) -> VReg {
        let v = m.new_vreg(class, uniform);
        self.unspillable[v] = true;
        v
    }

    fn tagged(op: Opcode, dst: Option<VReg>, srcs: Vec<VReg>, span: Span, tag: SpillTag) -> MInst {
        let mut i = MInst::new(op, dst, srcs, span);
        i.spill = Some(tag);
        i
    }

    fn imm(&mut self, m: &mut MFunction, bits: u32, span: Span, tag: SpillTag) -> (VReg, MInst) {
        let t = self.temp(m, RegClass::V, true);
        let mut i = Self::tagged(Opcode::MovImm, Some(t), vec![], span, tag);
        i.imm = Some(bits);
        (t, i)
    }

    /// Instructions computing the spill pointer `area + 4 * flat thread index`.
    fn spill_pointer(&mut self, m: &mut MFunction, span: Span) -> (VReg, Vec<MInst>) {
        let [x, y, z] = m.workgroup_size;
        let mut code = Vec::new();
        let tag = SpillTag::SpillPointer;
        let special = |s: &mut Self, m: &mut MFunction, code: &mut Vec<MInst>, reg: SpecialReg| {
            let t = s.temp(m, RegClass::V, false);
            let mut i = Self::tagged(Opcode::MovSpecial, Some(t), vec![], span, tag);
            i.special = Some(reg);
            code.push(i);
            t
        };
        let bin = |s: &mut Self, m: &mut MFunction, code: &mut Vec<MInst>, op: Opcode, a: VReg, b: VReg| {
            let t = s.temp(m, RegClass::V, false);
            code.push(Self::tagged(op, Some(t), vec![a, b], span, tag));
            t
        };
        let mut flat = special(self, m, &mut code, SpecialReg::ThreadId(0));
        if y > 1 || z > 1 {
            let mut yz = special(self, m, &mut code, SpecialReg::ThreadId(1));
            if z > 1 {
                let tz = special(self, m, &mut code, SpecialReg::ThreadId(2));
                let (cy, i) = self.imm(m, y, span, tag);
                code.push(i);
                let zy = bin(self, m, &mut code, Opcode::Imul, tz, cy);
                yz = bin(self, m, &mut code, Opcode::Iadd, yz, zy);
            }
            let (cx, i) = self.imm(m, x, span, tag);
            code.push(i);
            let row = bin(self, m, &mut code, Opcode::Imul, yz, cx);
            flat = bin(self, m, &mut code, Opcode::Iadd, flat, row);
        }
        let (two, i) = self.imm(m, 2, span, tag);
        code.push(i);
        let mut sp = bin(self, m, &mut code, Opcode::Shl, flat, two);
        if self.area > 0 {
            let (base, i) = self.imm(m, self.area, span, tag);
            code.push(i);
            sp = bin(self, m, &mut code, Opcode::Iadd, sp, base);
        }
        (sp, code)
    }

    /// The address of `slot` for this thread, and the code computing it.
    fn slot_address(&mut self, m: &mut MFunction, slot: u32, span: Span, code: &mut Vec<MInst>) -> VReg {
        let sp = self.sp.expect("the spill pointer exists before any slot is used");
        if slot == 0 {
            return sp;
        }
        let (off, i) = self.imm(m, slot * self.threads * 4, span, SpillTag::Addr);
        code.push(i);
        let a = self.temp(m, RegClass::V, false);
        code.push(Self::tagged(Opcode::Iadd, Some(a), vec![off, sp], span, SpillTag::Addr));
        a
    }

    /// Code that saves `v` to its home right after its definition.
    fn save(&mut self, m: &mut MFunction, v: VReg, home: Home, span: Span, weight: u64) -> Vec<MInst> {
        let mut code = Vec::new();
        match home {
            Home::Remat => {}
            Home::Slot(slot) => {
                let a = self.slot_address(m, slot, span, &mut code);
                code.push(Self::tagged(Opcode::LocalStoreU32, None, vec![a, v], span, SpillTag::Store { slot, of: v }));
                self.stats.stores += 1;
                self.stats.weighted_memory += weight;
            }
            Home::Bank { bank, lane } => {
                let l = self.temp(m, RegClass::V, false);
                let mut i = Self::tagged(Opcode::MovSpecial, Some(l), vec![], span, SpillTag::BankLane);
                i.special = Some(SpecialReg::LaneId);
                code.push(i);
                let (c, i) = self.imm(m, lane, span, SpillTag::BankLane);
                code.push(i);
                let p = self.temp(m, RegClass::P, false);
                m.vregs[p].predicates = true;
                code.push(Self::tagged(Opcode::IcmpEq, Some(p), vec![l, c], span, SpillTag::BankLane));
                let mut w = Self::tagged(Opcode::BankWrite(bank), None, vec![v], span, SpillTag::BankWrite { bank, lane, of: v });
                w.pred = Some((p, false));
                code.push(w);
                self.stats.bank_writes += 1;
            }
        }
        self.stats.weighted_cost += weight * code.len() as u64;
        code
    }

    /// Code that brings `v` back into a fresh vreg before a use.
    fn restore(&mut self, m: &mut MFunction, v: VReg, home: Home, def: Option<&MInst>, span: Span, weight: u64) -> (VReg, Vec<MInst>) {
        let uniform = m.vregs[v].uniform;
        let mut code = Vec::new();
        let d = self.temp(m, RegClass::V, uniform);
        match home {
            Home::Remat => {
                let mut i = def.expect("a rematerialized value has its definition").clone();
                i.dst = Some(d);
                i.span = span;
                i.spill = Some(SpillTag::Remat { of: v });
                code.push(i);
                self.stats.remats += 1;
            }
            Home::Slot(slot) => {
                let a = self.slot_address(m, slot, span, &mut code);
                code.push(Self::tagged(Opcode::LocalLoadU32, Some(d), vec![a], span, SpillTag::Reload { slot, of: v }));
                self.stats.reloads += 1;
                self.stats.weighted_memory += weight;
            }
            Home::Bank { bank, lane } => {
                let (c, i) = self.imm(m, lane, span, SpillTag::BankLane);
                code.push(i);
                code.push(Self::tagged(Opcode::BankRead(bank), Some(d), vec![c], span, SpillTag::BankRead { bank, lane, of: v }));
                self.stats.bank_reads += 1;
            }
        }
        self.stats.weighted_cost += weight * code.len() as u64;
        (d, code)
    }

    fn rewrite(&mut self, m: &mut MFunction, victims: &BTreeSet<VReg>) -> Result<(), SpillError> {
        let defs = definitions(m);
        // Decide each value's home.
        let mut homes: BTreeMap<VReg, Home> = BTreeMap::new();
        let mut remat_insts: BTreeMap<VReg, MInst> = BTreeMap::new();
        for &v in victims {
            let Some((db, di)) = defs[v] else {
                return Err(SpillError::Internal(format!("{v} is live but never defined")));
            };
            let def_inst = di.map(|i| &m.blocks[db].insts[i]);
            let remat = def_inst.filter(|i| self.cfg.remat && is_remat_inst(i));
            let home = if let Some(i) = remat {
                remat_insts.insert(v, i.clone());
                self.stats.remat_values += 1;
                Home::Remat
            } else if self.cfg.bank_lanes >= 2 && m.vregs[v].uniform && self.regions.convergent[db] {
                let bank = match self.bank_fill.iter().position(|&f| f < self.cfg.bank_lanes) {
                    Some(b) => b,
                    None => {
                        self.bank_fill.push(0);
                        self.bank_fill.len() - 1
                    }
                };
                let lane = self.bank_fill[bank];
                self.bank_fill[bank] += 1;
                self.stats.banked += 1;
                Home::Bank { bank: bank as u32, lane }
            } else {
                let slot = self.slots;
                self.slots += 1;
                self.stats.spilled += 1;
                Home::Slot(slot)
            };
            homes.insert(v, home);
            self.unspillable[v] = true;
        }
        let mut pointer = Vec::new();
        if self.sp.is_none() && homes.values().any(|h| matches!(h, Home::Slot(_))) {
            let entry = m.entry;
            let span = m.blocks[entry].insts.first().map(|i| i.span).unwrap_or(m.blocks[entry].term_span);
            let (sp, code) = self.spill_pointer(m, span);
            self.stats.weighted_cost += code.len() as u64;
            self.sp = Some(sp);
            pointer = code;
        }
        self.rewrite_homes(m, &homes, &remat_insts, pointer);
        Ok(())
    }

    /// Inserts the saves and restores of every value in `homes`; `pointer`
    /// (the spill pointer's code, when it is new) goes first in the entry block.
    fn rewrite_homes(&mut self, m: &mut MFunction, homes: &BTreeMap<VReg, Home>, remat: &BTreeMap<VReg, MInst>, pointer: Vec<MInst>) {
        let mut pointer = Some(pointer);
        for b in m.order.clone() {
            let weight = self.regions.weight(b);
            let mut edits = Edits::default();
            if b == m.entry {
                edits.start = pointer.take().unwrap_or_default();
            }
            let params = m.blocks[b].params.clone();
            let start_span = m.blocks[b].insts.first().map(|i| i.span).unwrap_or(m.blocks[b].term_span);
            for p in params {
                if let Some(&home) = homes.get(&p) {
                    let code = self.save(m, p, home, start_span, weight);
                    edits.start.extend(code);
                }
            }
            let n = m.blocks[b].insts.len();
            for i in 0..n {
                let inst = m.blocks[b].insts[i].clone();
                if inst.dst.is_some_and(|d| remat.contains_key(&d)) {
                    edits.drop.insert(i);
                    continue;
                }
                let mut replaced: BTreeMap<VReg, VReg> = BTreeMap::new();
                for u in inst.srcs.iter().copied() {
                    if replaced.contains_key(&u) {
                        continue;
                    }
                    if let Some(&home) = homes.get(&u) {
                        let (t, code) = self.restore(m, u, home, remat.get(&u), inst.span, weight);
                        edits.before.entry(i).or_default().extend(code);
                        replaced.insert(u, t);
                    }
                }
                if !replaced.is_empty() {
                    for s in m.blocks[b].insts[i].srcs.iter_mut() {
                        if let Some(&t) = replaced.get(s) {
                            *s = t;
                        }
                    }
                }
                if let Some(d) = inst.dst {
                    if let Some(&home) = homes.get(&d) {
                        let code = self.save(m, d, home, inst.span, weight);
                        edits.after.entry(i).or_default().extend(code);
                    }
                }
            }
            // Edge arguments (conditions are predicates, never spilled).
            let term_span = m.blocks[b].term_span;
            let mut term = std::mem::take(&mut m.blocks[b].term);
            let args: Option<&mut Vec<VReg>> = match &mut term {
                MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } => Some(args),
                _ => None,
            };
            if let Some(args) = args {
                let mut replaced: BTreeMap<VReg, VReg> = BTreeMap::new();
                for a in args.iter_mut() {
                    if let Some(&home) = homes.get(a) {
                        let t = match replaced.get(a) {
                            Some(&t) => t,
                            None => {
                                let (t, code) = self.restore(m, *a, home, remat.get(a), term_span, weight);
                                edits.end.extend(code);
                                replaced.insert(*a, t);
                                t
                            }
                        };
                        *a = t;
                    }
                }
            }
            m.blocks[b].term = term;
            apply(&mut m.blocks[b], edits);
        }
    }
}

fn apply(block: &mut MBlock, mut e: Edits) {
    let old = std::mem::take(&mut block.insts);
    let mut out = Vec::with_capacity(old.len() + e.start.len() + e.end.len());
    out.append(&mut e.start);
    for (i, inst) in old.into_iter().enumerate() {
        if let Some(code) = e.before.remove(&i) {
            out.extend(code);
        }
        if !e.drop.contains(&i) {
            out.push(inst);
        }
        if let Some(code) = e.after.remove(&i) {
            out.extend(code);
        }
    }
    out.append(&mut e.end);
    block.insts = out;
}
