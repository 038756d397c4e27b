//! Register allocation on SSA machine IR, against a register budget.
//!
//! 1. `liveness::pressure`: MaxLive, the most V values live at once (liveness on the
//!    logical CFG is per-lane liveness under WAVE's masked execution: every
//!    write touches only active lanes, so each lane sees the scalar program
//!    along its own path).
//! 2. `pack012` (wave-0.1.2 only): while MaxLive exceeds the budget, pairs of
//!    16-bit values share a register through `bfi` and masked copies (the
//!    spec profile packs them in halves, class H, from selection on).
//! 3. `spill`: while MaxLive exceeds the budget, values leave the registers:
//!    rematerialized, kept in lane banks (wave-uniform values, and booleans
//!    as `wave_ballot` masks) or in local memory, and what local memory
//!    cannot hold in a scratch buffer in device memory; with and without
//!    banks and masks are tried and the best kept (budget, then occupancy,
//!    then cost).
//! 4. `colour`: SSA colouring in dominance order uses exactly MaxLive
//!    registers; lane banks take the registers after them.
//! 5. `check`: a symbolic run proves every use reads its value.
//!
//! The budget is what the target occupancy allows (or the ISA's register
//! file); if even spilling everything spillable cannot reach it (one
//! instruction's operands need more), the budget rises to the least that works
//! and [`Allocation::budget_met`] says so.

mod check;
mod colour;
#[cfg(test)]
mod mask_tests;
mod pack012;
mod regions;
#[cfg(test)]
mod scratch_tests;
mod spill;
#[cfg(test)]
mod tests;

pub use regions::Regions;
pub use spill::SpillStats;

use crate::codegen::mir::*;
use crate::codegen::widen;
use crate::diag::{Diagnostic, Span};
use crate::ir::Block;
use crate::liveness::{pressure, Liveness};
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// What the allocator may do.
#[derive(Clone, Debug)]
pub struct AllocOptions {
    pub isa: Isa,
    /// V registers the kernel may use; `None`: the ISA's register file
    /// (spilling only what does not fit there).
    pub budget: Option<u32>,
    /// Recompute constants and special registers instead of spilling them.
    pub remat: bool,
    /// Keep spilled wave-uniform values in lanes of bank registers.
    pub lane_banks: bool,
    /// Keep spilled workgroup-invariant values defined outside loops in one
    /// word of local memory per workgroup.
    pub group_words: bool,
    /// Keep spilled booleans as bits of bit bank registers.
    pub bool_bits: bool,
    /// Keep spilled booleans as wave masks in bank lanes (bool-to-mask; with
    /// lane banks, on waves of at most 32 lanes).
    pub bool_masks: bool,
    /// Selection puts 16-bit values in register halves (class H; spec profile only).
    pub pack16: bool,
    /// The target's wave width (lanes available to a bank).
    pub wave_width: u32,
    /// Local memory one workgroup may use, bytes (bounds the spill area).
    pub local_limit: u32,
    /// The argument register the scratch buffer's address goes in when
    /// spill slots do not all fit local memory (the first after the ABI's
    /// arguments); `None`: such a kernel is refused (E0408).
    pub scratch_register: Option<u32>,
    /// The target, when known: spilling strategies that reach the same budget
    /// are compared by the occupancy their spill area leaves first.
    pub target: Option<Box<crate::target::Target>>,
}

impl AllocOptions {
    /// Everything on, no budget below the ISA's.
    pub fn new(isa: Isa, wave_width: u32) -> AllocOptions {
        AllocOptions {
            isa,
            budget: None,
            remat: true,
            lane_banks: true,
            group_words: true,
            bool_bits: true,
            bool_masks: true,
            pack16: true,
            wave_width,
            local_limit: u32::MAX,
            scratch_register: None,
            target: None,
        }
    }
}

/// The values live at the pressure peak (a pressure point of `liveness`).
pub use crate::liveness::pressure::Point as Peak;

/// The result of allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Physical register of every allocated vreg (V: rN, P: pN).
    pub reg: SecondaryMap<VReg, Option<u32>>,
    /// V registers used (values and lane banks).
    pub num_v: u32,
    /// Most V registers live at once after spilling (lane banks included).
    pub max_live_v: u32,
    /// MaxLive of the selected code, before any spilling.
    pub max_live_unspilled: u32,
    /// The budget allocated against (raised above the requested one if that was infeasible).
    pub budget: u32,
    /// Whether the requested budget was met.
    pub budget_met: bool,
    /// Live V registers after each instruction, per block (aligned with `insts`).
    pub live_after: SecondaryMap<Block, Vec<u32>>,
    /// Where the pressure peaks (after spilling) and what is live there.
    pub peak: Option<Peak>,
    /// The peak of the unspilled code (what a higher budget would have to hold).
    pub peak_unspilled: Option<Peak>,
    /// First lane-bank register (banks are `bank_base..num_v`).
    pub bank_base: u32,
    pub spill: SpillStats,
}

/// Runs the allocation checker on registers `reg` of `m` (values below
/// `limit` registers), as `allocate` does on its own result.
#[cfg(test)]
pub(crate) fn check_allocation(m: &MFunction, reg: &SecondaryMap<VReg, Option<u32>>, limit: u32) -> Result<(), String> {
    check::check(m, reg, limit)
}

/// How many times `allocate` narrows wide loads that found no run of registers.
const MAX_NARROWINGS: u32 = 6;

/// The wide loads' tuples that `reg` places above the first `max_live` registers.
fn tuples_above(m: &MFunction, reg: &SecondaryMap<VReg, Option<u32>>, max_live: u32) -> BTreeSet<VReg> {
    tuples_of(m).into_iter().filter(|&t| reg[t].is_some_and(|r| units_to_regs(m.vregs[t].class.unit_span(r).end) > max_live)).collect()
}

/// The tuples that wide loads define, and those wide stores write (`Tuple`).
fn tuples_of(m: &MFunction) -> BTreeSet<VReg> {
    m.order
        .iter()
        .flat_map(|&b| &m.blocks[b].insts)
        .filter(|i| i.op.is_wide_load() || i.op == Opcode::Tuple)
        .filter_map(|i| i.dst)
        .filter(|&t| matches!(m.vregs[t].class, RegClass::V2 | RegClass::V4))
        .collect()
}

/// Allocates registers for `m`, spilling into `m` what does not fit the budget.
pub fn allocate(m: &mut MFunction, o: &AllocOptions) -> Result<Allocation, Diagnostic> {
    // A wide store reads one tuple, made of its words right before it.
    widen::gather(m);
    m.is_ssa().map_err(|e| internal(format!("machine code is not in SSA form: {e}")))?;
    let live = Liveness::compute(m);
    let (mut max_live_unspilled, peak0) = pressure::peak(m, &live);
    let peak_unspilled = peak0;
    let isa_max = o.isa.max_registers();
    // The ABI fixes argument registers: the budget cannot go below the highest.
    let abi = m.vregs.values().filter_map(|i| i.fixed).map(|r| r + 1).max().unwrap_or(1);
    if abi > isa_max {
        return Err(Diagnostic::error(
            "E0403",
            format!(
                "the kernel's arguments (resource addresses and sizes) need {abi} registers, more than the {isa_max} that `--isa {}` has",
                o.isa.name()
            ),
        )
        .with_note("the ABI passes every bound resource in a register of its own; use fewer resources, or `--isa wave`"));
    }
    let requested = o.budget.unwrap_or(isa_max).clamp(1, isa_max);
    let wanted = requested.max(abi).min(isa_max);
    // wave-0.1.2 has no halves: pack 16-bit values with bit-field code, only
    // where that lowers a peak over the budget.
    let mut max_live_now = max_live_unspilled;
    if o.pack16 && o.isa == Isa::Wave012 && max_live_unspilled > wanted {
        let unpacked = m.clone();
        if pack012::pack(m, wanted) > 0 {
            max_live_now = pressure::peak(m, &Liveness::compute(m)).0;
            // Still over the budget: keep the packing only if spilling it reaches
            // as low a budget as spilling the unpacked code, more cheaply
            // (the copies from packed registers count like spill code).
            if max_live_now > wanted {
                let extra = pack012::weighted_size(m)?.saturating_sub(pack012::weighted_size(&unpacked)?);
                let score = |r: Result<(MFunction, u32, SpillStats), Diagnostic>, extra: u64| r.ok().map(|(_, b, s)| (b, cost(&s) + extra));
                let packed = score(spill_best(m, o, wanted), extra);
                let plain = score(spill_best(&unpacked, o, wanted), 0);
                if packed.is_none() || plain.is_some_and(|p| Some(p) <= packed) {
                    *m = unpacked;
                    max_live_now = max_live_unspilled;
                }
            }
        }
    }
    // Register pairs need two adjacent free registers, which SSA colouring
    // cannot always find at full pressure: then spill to a register less
    // (twice at most), then allow a register more, and at the register
    // file's end spill further.
    let mut original = m.clone();
    // Halves fragment registers as pairs do (two H values in different registers).
    let has_pairs = m.vregs.values().any(|i| matches!(i.class, RegClass::V2 | RegClass::V4 | RegClass::H));
    let (mut slack, mut extra) = (0u32, 0u32);
    // A wide load's tuple needs a run of free registers where it is loaded.
    // Where none is left below MaxLive, its words are loaded one by one
    // instead (`widen::narrow`), which any free registers serve.
    let mut narrowings = 0;
    let (budget, stats, max_live, peak, live, c) = loop {
        let ceiling = (wanted + extra).min(isa_max);
        let mut budget = ceiling;
        let mut stats = SpillStats::default();
        let target = ceiling.saturating_sub(slack).max(1);
        if max_live_now > target {
            let (spilled, b, s) = spill_best(&original, o, target)?;
            *m = spilled;
            budget = b.max(ceiling);
            stats = s;
        }
        let live = Liveness::compute(m);
        let (max_live, peak) = pressure::peak(m, &live);
        let banks = stats.banks;
        let limit = if max_live_now > wanted || slack + extra > 0 { budget - banks } else { isa_max };
        match colour::colour(m, &live, o.isa, limit, max_live) {
            Ok(c) => {
                let high = tuples_above(m, &c.reg, max_live);
                if high.is_empty() || narrowings >= MAX_NARROWINGS || widen::narrow(&mut original, &high) == 0 {
                    break (budget, stats, max_live, peak, live, c);
                }
                narrowings += 1;
                (slack, extra) = (0, 0);
                max_live_now = pressure::peak(&original, &Liveness::compute(&original)).0;
                // Narrowed loads' addresses may raise the peak: spilling starts
                // from it, and the caller compares it.
                max_live_unspilled = max_live_unspilled.max(max_live_now);
            }
            Err(_) if has_pairs && slack < 2 && slack + 1 < ceiling => slack += 1,
            Err(e) => {
                let all = tuples_of(&original);
                if narrowings < MAX_NARROWINGS && !all.is_empty() && widen::narrow(&mut original, &all) > 0 {
                    narrowings += 1;
                    (slack, extra) = (0, 0);
                    max_live_now = pressure::peak(&original, &Liveness::compute(&original)).0;
                    // Narrowed loads' addresses may raise the peak: spilling starts
                    // from it, and the caller compares it.
                    max_live_unspilled = max_live_unspilled.max(max_live_now);
                } else if has_pairs && ceiling < isa_max {
                    extra += 1;
                } else if has_pairs && slack < 8 && slack + 1 < ceiling {
                    slack += 1;
                } else {
                    return Err(internal(e));
                }
            }
        }
        *m = original.clone();
    };
    let _ = &live;
    let banks = stats.banks;
    let values = m
        .vregs
        .iter()
        .filter(|(_, i)| i.class != RegClass::P)
        .filter_map(|(v, i)| c.reg[v].map(|r| units_to_regs(i.class.unit_span(r).end)))
        .max()
        .unwrap_or(0);
    check::check(m, &c.reg, values.max(1)).map_err(|e| internal(format!("allocation checker: {e}")))?;
    let mut live_after = c.live_after;
    if banks > 0 {
        for &b in &m.order {
            for n in live_after[b].iter_mut() {
                *n += banks;
            }
        }
    }
    Ok(Allocation {
        reg: c.reg,
        num_v: values + banks,
        max_live_v: max_live + banks,
        max_live_unspilled,
        budget,
        budget_met: budget == requested,
        live_after,
        peak,
        peak_unspilled,
        bank_base: values,
        spill: stats,
    })
}

/// Lanes every wave of the kernel has: the last wave of a group may be partial.
fn bank_lanes(m: &MFunction, wave_width: u32) -> u32 {
    let threads: u32 = m.workgroup_size.iter().product::<u32>().max(1);
    let w = wave_width.clamp(1, 64);
    match threads % w {
        0 => w,
        r => r,
    }
}

/// Spills `m` to `budget` (raising it while infeasible): with no banks, with
/// lane banks for uniform values, with wave masks for booleans, and with
/// both (as the options allow); returns the cheapest program, its budget and
/// what it spilled.
fn spill_best(m: &MFunction, o: &AllocOptions, budget: u32) -> Result<(MFunction, u32, SpillStats), Diagnostic> {
    let lanes = bank_lanes(m, o.wave_width);
    // A mask needs every lane of the wave in WAVE's 32-bit ballot.
    let masks = o.bool_masks && o.wave_width <= 32;
    // (uniform values in banks, booleans as masks)
    let mut configs = vec![(false, false)];
    if lanes >= 2 {
        configs.extend([(true, false), (false, true), (true, true)].into_iter().filter(|&(u, k)| (!u || o.lane_banks) && (!k || masks)));
    }
    let mut best: Option<(MFunction, u32, SpillStats)> = None;
    let mut first: Option<SpillStats> = None;
    for (bank_uniform, bool_masks) in configs {
        // Banks change nothing when no value in memory could be banked.
        if let Some(s) = &first {
            if (bank_uniform && s.bankable == 0) || (bool_masks && s.maskable == 0) {
                continue;
            }
        }
        let bank_lanes = if bank_uniform || bool_masks { lanes } else { 0 };
        let mut b = budget;
        let result = loop {
            let cfg = spill::SpillConfig {
                budget: b,
                remat: o.remat,
                bank_lanes,
                bank_uniform,
                bool_masks,
                group_words: o.group_words,
                bool_bits: o.bool_bits,
                local_limit: o.local_limit,
                scratch_register: o.scratch_register,
            };
            match spill::spill(m, &cfg) {
                Ok((trial, stats)) => break Some((trial, b, stats)),
                Err(spill::SpillError::Infeasible { needed, .. }) if b < o.isa.max_registers() => {
                    b = (b + 1).max(needed).min(o.isa.max_registers())
                }
                Err(spill::SpillError::Infeasible { block, index, live, .. }) => {
                    let span = index.and_then(|i| m.blocks[block].insts.get(i).map(|x| x.span)).unwrap_or(m.blocks[block].term_span);
                    return Err(too_many(o.isa, span, live.len() as u32));
                }
                Err(spill::SpillError::LocalMemory { needed, limit }) => {
                    if best.is_some() {
                        break None;
                    }
                    return Err(Diagnostic::error(
                        "E0408",
                        format!(
                            "spilling to reach {b} registers needs {needed} bytes of local memory per workgroup; the target allows {limit}"
                        ),
                    )
                    .with_note("ask for a lower occupancy (more registers), or use a smaller workgroup"));
                }
                Err(spill::SpillError::ScratchRegister { needed }) if b < o.isa.max_registers() => {
                    b = (b + 1).max(needed).min(o.isa.max_registers())
                }
                Err(spill::SpillError::ScratchRegister { needed }) => {
                    if best.is_some() {
                        break None;
                    }
                    return Err(Diagnostic::error(
                        "E0408",
                        format!(
                            "spill slots must go to a scratch buffer in device memory, but its address needs argument register r{} and only {} registers fit `--isa {}`",
                            needed - 1,
                            o.isa.max_registers(),
                            o.isa.name()
                        ),
                    )
                    .with_note("the local memory a workgroup may have cannot hold the spill slots; use fewer resources, a smaller workgroup or `--isa wave`"));
                }
                Err(spill::SpillError::ScratchTooLarge { bytes }) => {
                    if best.is_some() {
                        break None;
                    }
                    return Err(Diagnostic::error(
                        "E0408",
                        format!("spilling to reach {b} registers needs a scratch block of {bytes} bytes per workgroup in device memory, more than 32-bit addresses reach"),
                    )
                    .with_note("use a smaller workgroup, or split the computation"));
                }
                Err(spill::SpillError::Internal(e)) => return Err(internal(e)),
            }
        };
        let Some(candidate) = result else { continue };
        first.get_or_insert_with(|| candidate.2.clone());
        let better = match &best {
            None => true,
            // A lower budget reached wins; then the occupancy the spill area
            // leaves; then fewer (weighted) instructions, memory counting more.
            Some((bm, bb, bs)) => {
                (candidate.1, Reverse(waves(o, &candidate.0, candidate.1)), cost(&candidate.2))
                    < (*bb, Reverse(waves(o, bm, *bb)), cost(bs))
            }
        };
        if better {
            best = Some(candidate);
        }
    }
    best.ok_or_else(|| internal("no spilling strategy succeeded".into()))
}

/// Waves per core with `budget` registers and the local memory of `m` (0
/// when the target is unknown: then only the cost decides).
fn waves(o: &AllocOptions, m: &MFunction, budget: u32) -> u32 {
    let threads = m.workgroup_size.iter().product::<u32>().max(1);
    o.target.as_ref().map_or(0, |t| crate::target::occupancy(t, budget, threads, m.local_memory).waves_per_core)
}

/// Cost of spill code: weighted instructions, local-memory accesses counting
/// four times, device-memory ones (scratch buffer) sixteen.
fn cost(s: &SpillStats) -> u64 {
    s.weighted_cost + 3 * s.weighted_memory + 12 * s.weighted_device
}

fn internal(msg: String) -> Diagnostic {
    Diagnostic::error("E0402", format!("internal register allocation error: {msg}"))
}

fn too_many(isa: Isa, span: Span, live: u32) -> Diagnostic {
    Diagnostic::error(
        "E0403",
        format!(
            "{live} values must be in registers at once here, more than the {} that `--isa {}` allows",
            isa.max_registers(),
            isa.name()
        ),
    )
    .with_label(span, "register pressure exceeds the register file here, even after spilling")
    .with_note("these are operands of one instruction and spill temporaries; split the computation")
}
