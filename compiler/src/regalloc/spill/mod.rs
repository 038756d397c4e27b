//! Spilling: rewrites machine IR so that no more V registers are live at once
//! than the budget allows.
//!
//! `plan` decides where each value is in a register (Braun-Hack: next-use
//! distances, loop-aware), `code` builds saves and reloads for each value's
//! home (rematerialization, a lane of a bank register, or a local-memory
//! slot), `rewrite` inserts them and restores SSA form. Lane banks and the
//! spill pointer take registers of their own, so planning runs again with
//! those registers reserved until the rewritten program fits.

mod code;
mod nextuse;
mod place;
mod plan;
mod rewrite;

use super::regions::Regions;
use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::pressure;
use crate::liveness::Liveness;
use code::{CodeGen, Home, Scratch};
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
pub struct SpillConfig {
    /// V registers available: values, the spill pointer and lane banks.
    pub budget: u32,
    /// Recompute constants and special registers instead of spilling them.
    pub remat: bool,
    /// Lanes a bank may use (0: no lane banks, for values or masks). Every
    /// wave of the kernel has at least this many lanes.
    pub bank_lanes: u32,
    /// Local memory one workgroup may use, bytes.
    pub local_limit: u32,
    /// The argument register for the scratch buffer that takes the spill
    /// slots local memory cannot hold (`None`: such slots are an error).
    pub scratch_register: Option<u32>,
    /// Keep spilled wave-uniform values in bank lanes.
    pub bank_uniform: bool,
    /// Keep spilled booleans as wave masks in bank lanes (only for waves of
    /// at most 32 lanes: WAVE's ballot covers lanes 0..32).
    pub bool_masks: bool,
    /// Keep spilled workgroup-invariant values defined outside loops in one
    /// word of local memory per workgroup.
    pub group_words: bool,
    /// Keep spilled booleans as bits of bit bank registers (32 per register).
    pub bool_bits: bool,
}

/// What spilling inserted.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SpillStats {
    /// Values kept in memory (local or device).
    pub spilled: u32,
    pub stores: u32,
    pub reloads: u32,
    /// Values recomputed at their uses, and the recomputations.
    pub remat_values: u32,
    pub remats: u32,
    /// Of those, values loaded again from read-only memory, and the loads
    /// issued again (not spill traffic: not in `weighted_memory`).
    pub reissued_values: u32,
    pub reissued_loads: u32,
    /// Lane banks (registers), the values they hold, and their writes and reads.
    pub banks: u32,
    pub banked: u32,
    pub bank_writes: u32,
    pub bank_reads: u32,
    /// Of the banked values, booleans kept as wave masks.
    pub masked: u32,
    /// Booleans kept as bits of bit banks, and those registers (counted in `banks`).
    pub bits: u32,
    pub bit_banks: u32,
    /// Bytes of local memory for spill slots (per workgroup).
    pub spill_bytes: u32,
    /// Workgroup-invariant values kept in one word of local memory per
    /// workgroup (not per thread), and those words.
    pub group_values: u32,
    pub group_words: u32,
    pub group_stores: u32,
    pub group_reloads: u32,
    /// Of the values in memory, those in the device-memory scratch buffer
    /// (the local spill area was full), its slots and their stores and reloads.
    pub device_values: u32,
    pub device_slots: u32,
    pub device_stores: u32,
    pub device_reloads: u32,
    /// Instructions inserted, each weighted by 10 per enclosing loop.
    pub weighted_cost: u64,
    /// Of those, the loads and stores of local memory (weighted likewise).
    pub weighted_memory: u64,
    /// The stores and the reloads alone, each weighted by 10 per enclosing loop
    /// (what the quality table reports; their sum is `weighted_memory`).
    pub weighted_stores: u64,
    pub weighted_reloads: u64,
    /// Of `weighted_memory`, the accesses to device memory.
    pub weighted_device: u64,
    /// Values in local memory that lane banks could hold (uniform, defined
    /// where every lane is active): none means banks would change nothing.
    pub bankable: u32,
    /// Likewise booleans that could be wave masks.
    pub maskable: u32,
}

#[derive(Clone, Debug)]
pub enum SpillError {
    /// More values must be live at once here than the budget allows (operands
    /// of one instruction, parameters of a block).
    Infeasible {
        block: Block,
        index: Option<usize>,
        live: Vec<VReg>,
        needed: u32,
    },
    /// The spill area does not fit the target's local memory (and there is
    /// no scratch buffer to take the rest).
    LocalMemory {
        needed: u32,
        limit: u32,
    },
    /// The scratch buffer's argument register is not below the registers
    /// left for values: the budget must be at least `needed`.
    ScratchRegister {
        needed: u32,
    },
    /// One workgroup's block of the scratch buffer would not be addressable
    /// with 32 bits.
    ScratchTooLarge {
        bytes: u64,
    },
    Internal(String),
}

/// Most instructions one rematerialization may replay.
const MAX_REMAT_CHAIN: u32 = 6;

/// Values whose definition can run again where they are needed, with the
/// instructions that compute them (at most [`MAX_REMAT_CHAIN`] in all).
struct RematCandidates {
    /// Recomputable anywhere: a constant, a special register, or integer
    /// arithmetic on such values (`wg_id * 64 + tid`, `tid * 4 + base`).
    /// Recomputing costs no memory and lets the value's registers go where
    /// it is not needed.
    anywhere: SecondaryMap<VReg, bool>,
    /// Loads of memory nothing writes (`MInst::invariant`) whose address
    /// reads values that stay in registers (the leaves: a kernel argument,
    /// a loop's index) besides such arithmetic: a re-load is valid only
    /// where every leaf is in a register (`reload_leaves_hold`).
    reloads: BTreeMap<VReg, BTreeSet<VReg>>,
    /// The definition of each, and of the inner values of their expressions.
    defs: BTreeMap<VReg, MInst>,
}

fn remat_candidates(m: &MFunction) -> RematCandidates {
    let mut size: SecondaryMap<VReg, u32> = SecondaryMap::with_capacity(m.vregs.len());
    let mut ok: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(m.vregs.len());
    // Arithmetic that reads leaves, which only an invariant load may use.
    let mut leafy: BTreeMap<VReg, BTreeSet<VReg>> = BTreeMap::new();
    let mut reloads = BTreeMap::new();
    let mut defs = BTreeMap::new();
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            let Some(d) = inst.dst else { continue };
            if !inst.is_plain() || m.vregs[d].class != RegClass::V {
                continue;
            }
            let arithmetic = matches!(
                inst.op,
                Opcode::Iadd | Opcode::Isub | Opcode::Imul | Opcode::Shl | Opcode::Shr | Opcode::And | Opcode::Or | Opcode::Xor
            );
            let load = inst.op == Opcode::DeviceLoadU32 && inst.invariant && inst.src_words.is_empty();
            if matches!(inst.op, Opcode::MovImm | Opcode::MovSpecial) || arithmetic || load {
                // Instructions to replay, and the leaves read.
                // `None`: a source that is neither replayable nor a V leaf.
                let mut n = Some(1u32);
                let mut leaves = BTreeSet::new();
                for &s in &inst.srcs {
                    if ok[s] {
                        n = n.map(|n| n.saturating_add(size[s]));
                    } else if let Some(inner) = leafy.get(&s) {
                        n = n.map(|n| n.saturating_add(size[s]));
                        leaves.extend(inner.iter().copied());
                    } else if m.vregs[s].class == RegClass::V && (arithmetic || load) {
                        leaves.insert(s);
                    } else {
                        n = None;
                    }
                }
                let Some(n) = n.filter(|&n| n <= MAX_REMAT_CHAIN) else { continue };
                size[d] = n;
                defs.insert(d, inst.clone());
                if load {
                    reloads.insert(d, leaves);
                } else if leaves.is_empty() {
                    ok[d] = true;
                } else {
                    leafy.insert(d, leaves);
                }
            }
        }
    }
    // Only the loads' expressions are replayed with leaves: drop leafy
    // arithmetic no load reads (it would never be replayed).
    let used: BTreeSet<VReg> = reloads.keys().flat_map(|d| defs[d].srcs.clone()).collect();
    let mut keep: BTreeSet<VReg> = BTreeSet::new();
    let mut work: Vec<VReg> = used.into_iter().collect();
    while let Some(v) = work.pop() {
        if keep.insert(v) {
            if let Some(def) = defs.get(&v) {
                work.extend(def.srcs.iter().copied());
            }
        }
    }
    defs.retain(|d, _| ok[*d] || reloads.contains_key(d) || keep.contains(d));
    RematCandidates { anywhere: ok, reloads, defs }
}

/// Whether a re-load of `v` (a [`RematCandidates::reloads`] value) may replace
/// saving it: each value its address reads (a leaf) is in a register
/// wherever `v` is brought back (`Plan::leaves_out`), keeps its one
/// definition where SSA repair reloads `v` last (`Plan::join_reloads`), and
/// is not itself a re-load (whose reload could follow `v`'s).
fn reload_leaves_hold(p: &plan::Plan, candidates: &RematCandidates, v: VReg) -> bool {
    let Some(leaves) = candidates.reloads.get(&v) else { return false };
    !p.leaves_out.contains(&v)
        && leaves.iter().all(|l| !candidates.reloads.contains_key(l) && !p.memory_params.contains(l))
        && (!p.join_reloads.contains(&v) || leaves.iter().all(|l| !p.spilled.contains(l)))
}

/// Instructions a replay of `v` issues (its definition and the inner values'
/// ones; leaves are read as they are).
fn chain_length(defs: &BTreeMap<VReg, MInst>, v: VReg) -> u32 {
    defs.get(&v).map_or(0, |d| 1 + d.srcs.iter().map(|&s| chain_length(defs, s)).sum::<u32>())
}

/// Whether re-loading `v` costs less than its alternative home (a workgroup
/// word or a slot): per reload, the address expression and the load (a
/// memory access; one transaction per wave where the address is uniform,
/// else a lane's own) against a store where `v` is defined and a reload.
/// All weighted by ten per enclosing loop.
fn reload_is_cheaper(m: &MFunction, p: &plan::Plan, regions: &Regions, v: VReg, chain: u32, group_word: bool) -> bool {
    // A local access costs four instructions, a lane-wise device access sixteen
    // (as `backend::rank` and `regalloc::allocate` count them).
    let load = if m.vregs[v].uniform { 4 } else { 16 };
    let (save, restore) = if group_word { (2 + 4, 2 + 4) } else { (3 + 4, 3 + 4) };
    let defs = crate::liveness::definitions(m);
    let def_weight = defs[v].map_or(1, |(b, _)| regions.weight(b));
    let mut reload = 0u64;
    let mut saved = def_weight * save;
    for &b in &m.order {
        let n = p.reloads[b].values().filter(|l| l.contains(&v)).count() as u64
            + u64::from(p.edge_reloads[b].contains(&v))
            + u64::from(p.coupling[b].contains(&v));
        reload += n * regions.weight(b) * (chain as u64 - 1 + load);
        saved += n * regions.weight(b) * restore;
    }
    reload <= saved
}

/// Spills `m` to `cfg.budget` registers; returns the new program and what was inserted.
pub fn spill(m: &MFunction, cfg: &SpillConfig) -> Result<(MFunction, SpillStats), SpillError> {
    let regions = Regions::compute(m).map_err(SpillError::Internal)?;
    let live = Liveness::compute(m);
    let nu = nextuse::NextUse::compute(m, &live);
    let candidates = if cfg.remat {
        remat_candidates(m)
    } else {
        RematCandidates { anywhere: SecondaryMap::new(), reloads: BTreeMap::new(), defs: BTreeMap::new() }
    };
    let remat = &candidates.anywhere;
    // Spilling these costs less than a slot: their next uses count more.
    let defs = crate::liveness::definitions(m);
    let mut cheap: SecondaryMap<VReg, u32> = SecondaryMap::with_capacity(m.vregs.len());
    for (v, info) in m.vregs.iter() {
        let outside_loops = defs[v].is_some_and(|(b, _)| regions.loop_depth[b] == 0);
        cheap[v] = if remat[v] {
            4
        } else if cfg.group_words && info.group_uniform && outside_loops {
            3
        } else {
            1
        };
    }
    let threads: u32 = m.workgroup_size.iter().product::<u32>().max(1);
    let group_area = m.local_memory.div_ceil(4) * 4;
    // Registers set aside for the spill pointer and lane banks.
    let mut reserve = 0u32;
    for _ in 0..cfg.budget.max(1) + 2 {
        let k = cfg.budget.checked_sub(reserve).filter(|&k| k > 0).ok_or(SpillError::Infeasible {
            block: m.entry,
            index: None,
            live: Vec::new(),
            needed: reserve + 1,
        })?;
        let p = plan::plan(m, &live, &nu, k, &cheap, &candidates.reloads).map_err(|e| SpillError::Infeasible {
            block: e.block,
            index: e.index,
            live: e.live,
            needed: e.needed + reserve,
        })?;
        let (mut homes, bank_sets, slots, (bankable, maskable)) = assign_homes(m, &live, &p, cfg, &candidates, &regions);
        let banks = bank_sets.lane + bank_sets.bits;
        let group_words = homes.values().filter(|h| matches!(h, Home::Group(_))).count() as u32;
        let area = group_area + 4 * group_words;
        // Slots beyond what local memory holds go to the scratch buffer.
        let per_slot = threads as u64 * 4;
        let fit = (cfg.local_limit.saturating_sub(area) as u64 / per_slot).min(slots as u64) as u32;
        let mut local_slots = slots;
        if fit < slots {
            let Some(register) = cfg.scratch_register else {
                let needed = (area as u64 + slots as u64 * per_slot).min(u32::MAX as u64) as u32;
                return Err(SpillError::LocalMemory { needed, limit: cfg.local_limit });
            };
            if register + 1 + banks > cfg.budget {
                return Err(SpillError::ScratchRegister { needed: register + 1 + banks });
            }
            local_slots = place_slots(m, &p, &regions, &live, &mut homes, fit);
        }
        let device_slots = slots - local_slots;
        let bytes_per_group = device_slots as u64 * per_slot;
        if bytes_per_group > u32::MAX as u64 {
            return Err(SpillError::ScratchTooLarge { bytes: bytes_per_group });
        }
        let needed = banks + u32::from(local_slots > 0) + u32::from(device_slots > 0);
        if reserve < needed {
            reserve = needed;
            continue;
        }
        let scratch =
            cfg.scratch_register.filter(|_| device_slots > 0).map(|register| Scratch { register, bytes_per_group: bytes_per_group as u32 });
        let mut cg = CodeGen {
            threads,
            area,
            group_area,
            sp: None,
            local_slots,
            scratch,
            dsp: None,
            remat_defs: candidates.defs.clone(),
            stats: SpillStats::default(),
        };
        let init = cg.bits_init(bank_sets.lane, bank_sets.bits, m.blocks[m.entry].term_span);
        let mut out = rewrite::rewrite(m, &p, &homes, &regions, &mut cg, init).map_err(SpillError::Internal)?;
        let live_out = Liveness::compute(&out);
        let (max, _) = pressure::peak(&out, &live_out);
        let used = max + banks;
        if used > cfg.budget {
            // Spill code's own temporaries pushed a point over: plan with fewer registers.
            reserve += used - cfg.budget;
            continue;
        }
        let mut stats = cg.stats;
        stats.banks = banks;
        stats.bit_banks = bank_sets.bits;
        stats.bankable = bankable;
        stats.maskable = maskable;
        for (v, h) in &homes {
            match h {
                Home::Remat => {
                    stats.remat_values += 1;
                    stats.reissued_values += u32::from(candidates.reloads.contains_key(v));
                }
                Home::Bank { .. } => stats.banked += 1,
                Home::Mask { .. } => {
                    stats.banked += 1;
                    stats.masked += 1;
                }
                Home::Slot(s) => {
                    stats.spilled += 1;
                    stats.device_values += u32::from(*s >= local_slots);
                }
                Home::Group(_) => stats.group_values += 1,
                Home::Bits { .. } => stats.bits += 1,
            }
        }
        stats.group_words = group_words;
        if local_slots > 0 || group_words > 0 {
            stats.spill_bytes = local_slots * threads * 4;
            out.local_memory = area + stats.spill_bytes;
        }
        if device_slots > 0 {
            stats.device_slots = device_slots;
            out.device_slots_from = local_slots;
        }
        return Ok((out, stats));
    }
    Err(SpillError::Infeasible { block: m.entry, index: None, live: Vec::new(), needed: cfg.budget + 1 })
}

/// Keeps the `fit` most accessed slots of `homes` local and renumbers the
/// others after them (see `place`); returns the number of local slots.
fn place_slots(m: &MFunction, p: &plan::Plan, regions: &Regions, live: &Liveness, homes: &mut BTreeMap<VReg, Home>, fit: u32) -> u32 {
    let slot_of: BTreeMap<VReg, u32> =
        homes.iter().filter_map(|(&v, h)| if let Home::Slot(s) = h { Some((v, *s)) } else { None }).collect();
    let weights = place::slot_weights(m, p, &slot_of, &|b| regions.weight(b), &|b| live.preds(b).to_vec());
    let split = place::split(&weights, fit);
    for h in homes.values_mut() {
        if let Home::Slot(s) = h {
            *s = split.renumber[*s as usize];
        }
    }
    split.local
}

/// Registers set aside for homes: lane banks, then bit banks.
#[derive(Clone, Copy, Debug, Default)]
struct Banks {
    lane: u32,
    bits: u32,
}

/// A home for every value the plan reloads: rematerialization where
/// possible, a lane of a bank for uniform values defined where all lanes are
/// active (when banks are on), the same for the wave masks of booleans
/// defined there (when masks are on), a word per workgroup for
/// workgroup-invariant values defined outside loops, else a local-memory
/// slot (per thread). Values whose live
/// ranges do not overlap share a slot (slots are coloured like registers, in
/// dominance order of the definitions). Returns the homes, banks and slots.
fn assign_homes(
    m: &MFunction,
    live: &Liveness,
    p: &plan::Plan,
    cfg: &SpillConfig,
    candidates: &RematCandidates,
    regions: &Regions,
) -> (BTreeMap<VReg, Home>, Banks, u32, (u32, u32)) {
    let remat = &candidates.anywhere;
    let defs = crate::liveness::definitions(m);
    let mut reloaded: BTreeSet<VReg> = m.order.iter().flat_map(|&b| p.reloads[b].values().flatten().copied()).collect();
    reloaded.extend(m.order.iter().flat_map(|&b| p.edge_reloads[b].iter().chain(&p.coupling[b]).copied()));
    let mut homes = BTreeMap::new();
    let mut banked = 0u32;
    let mut group_words = 0u32;
    let mut bits = 0u32;
    let mut in_memory: BTreeSet<VReg> = BTreeSet::new();
    let (mut bankable, mut maskable) = (0, 0);
    for &v in p.spilled.intersection(&reloaded) {
        if p.memory_params.contains(&v) {
            continue;
        }
        // A bank write needs its lane active, and a ballot sees only active
        // lanes: both are taken where every lane is.
        let convergent = defs[v].is_some_and(|(b, _)| regions.convergent[b]);
        let can_bank = m.vregs[v].uniform && convergent;
        let boolean = m.vregs[v].boolean && m.vregs[v].class == RegClass::V;
        let can_mask = !can_bank && boolean && convergent;
        // One word per workgroup: every wave stores the same bits, once.
        let can_group = cfg.group_words && m.vregs[v].group_uniform && defs[v].is_some_and(|(b, _)| regions.loop_depth[b] == 0);
        let (bank, lane) = (banked / cfg.bank_lanes.max(1), banked % cfg.bank_lanes.max(1));
        if remat[v] {
            homes.insert(v, Home::Remat);
        } else if cfg.bank_lanes >= 2 && can_bank && cfg.bank_uniform {
            homes.insert(v, Home::Bank { bank, lane });
            banked += 1;
        } else if cfg.bank_lanes >= 2 && can_mask && cfg.bool_masks {
            homes.insert(v, Home::Mask { bank, lane });
            banked += 1;
        } else if boolean && cfg.bool_bits {
            homes.insert(v, Home::Bits { bank: bits / 32, bit: bits % 32 });
            bits += 1;
            maskable += u32::from(can_mask);
        } else if reload_leaves_hold(p, candidates, v) && reload_is_cheaper(m, p, regions, v, chain_length(&candidates.defs, v), can_group)
        {
            homes.insert(v, Home::Remat);
        } else {
            bankable += u32::from(can_bank);
            maskable += u32::from(can_mask);
            if can_group {
                homes.insert(v, Home::Group(group_words));
                group_words += 1;
            } else {
                in_memory.insert(v);
            }
        }
    }
    let mut slots = 0u32;
    let mut slot_of: BTreeMap<VReg, u32> = BTreeMap::new();
    let mut give = |v: VReg, live_here: &mut dyn Iterator<Item = VReg>, slot_of: &mut BTreeMap<VReg, u32>| {
        let taken: BTreeSet<u32> = live_here.filter(|&x| x != v).filter_map(|x| slot_of.get(&x).copied()).collect();
        let s = (0..).find(|s| !taken.contains(s)).unwrap_or(0);
        slots = slots.max(s + 1);
        slot_of.insert(v, s);
    };
    for &b in &m.order {
        let block = &m.blocks[b];
        let defines = block
            .params
            .iter()
            .chain(block.insts.iter().filter_map(|i| i.dst.as_ref()))
            .any(|d| in_memory.contains(d) || p.memory_params.contains(d));
        if !defines {
            continue;
        }
        for &pv in block.params.iter().filter(|v| in_memory.contains(v)) {
            let mut here = live.live_in(b).iter().chain(&block.params).copied();
            give(pv, &mut here, &mut slot_of);
        }
        // A memory parameter's slot is written at the end of each predecessor,
        // before its live range: it must also avoid what is live out of them
        // (at a loop exit, lanes that stay in the loop store too) and the
        // edges' arguments (so stores need not wait for other reloads).
        for &pv in block.params.iter().filter(|v| p.memory_params.contains(v)) {
            let preds_out: Vec<VReg> =
                live.preds(b).iter().flat_map(|&q| live.live_out(q).iter().copied().chain(m.blocks[q].term.uses())).collect();
            let mut here = live.live_in(b).iter().chain(&block.params).copied().chain(preds_out);
            give(pv, &mut here, &mut slot_of);
        }
        let after = live.live_after_each(m, b);
        for (i, inst) in block.insts.iter().enumerate() {
            if let Some(d) = inst.dst.filter(|d| in_memory.contains(d)) {
                give(d, &mut after[i].iter().copied(), &mut slot_of);
            }
        }
    }
    for (v, s) in slot_of {
        homes.insert(v, Home::Slot(s));
    }
    // Bit banks follow the lane banks.
    let lane_banks = banked.div_ceil(cfg.bank_lanes.max(1));
    for h in homes.values_mut() {
        if let Home::Bits { bank, .. } = h {
            *bank += lane_banks;
        }
    }
    (homes, Banks { lane: lane_banks, bits: bits.div_ceil(32) }, slots, (bankable, maskable))
}
