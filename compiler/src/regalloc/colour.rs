//! SSA colouring: values take registers in dominance (region) order, each the
//! lowest free register of its class. In SSA form the interference graph is
//! chordal and this order is a perfect elimination order, so the registers
//! used equal the most values live at once (MaxLive), whatever free register
//! each value takes; that freedom is used to give a block parameter the
//! register its incoming argument already has, and a value passed on a loop's
//! back edge its parameter's register (as well as the values that die where
//! it is made) when free: fewer edge copies.
//!
//! The pool is kept in half-register units. An H value (16 bits) takes one
//! unit: preferably the free half of a register whose other half holds an H
//! value already (best fit, so whole registers stay free for V values), else
//! the low half of the lowest free register. Halves, like pairs, make the
//! colouring greedy rather than optimal: `allocate` retries with slack when a
//! colouring at the budget fails.
//!
//! Two constraints break that guarantee: register pairs (below) and results
//! that may not be `r0` (`not_r0`: an atomic's result, as wave-asm encodes
//! `d = r0` as "no result"). When the value in `r0` dies at such a definition
//! and every other register below MaxLive is taken, the result needs one
//! more. The colouring then runs again with every value that dies at a
//! `not_r0` definition steered to a free register other than `r0` below
//! MaxLive, so the result can take the register it frees. What remains is the
//! ABI's `r0` argument dying there (it is fixed in `r0`; only a copy could
//! help).
//!
//! pair16: an instruction writing one half of a packed value (`MInst::ins`)
//! prefers the register of the value it completes, free when that dies there
//! (as it does unless spilling keeps it), so no move is emitted.

use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::Liveness;
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeSet;

/// Registers of every vreg, and live V counts for the listing.
pub struct Colouring {
    pub reg: SecondaryMap<VReg, Option<u32>>,
    /// Live V values after each instruction, per block.
    pub live_after: SecondaryMap<Block, Vec<u32>>,
}

/// Which half-register units and predicates are taken.
struct Pool {
    units: Vec<bool>,
    p: [bool; 4],
}

impl Pool {
    fn set(&mut self, class: RegClass, r: u32, used: bool) {
        match class {
            RegClass::P => self.p[r as usize] = used,
            c => c.unit_span(r).for_each(|x| self.units[x as usize] = used),
        }
    }
    fn is_free(&self, class: RegClass, r: u32) -> bool {
        match class {
            RegClass::P => !self.p.get(r as usize).copied().unwrap_or(true),
            c => c.unit_span(r).all(|x| !self.units.get(x as usize).copied().unwrap_or(true)),
        }
    }
    /// The unit for an H value: a free half beside a taken one, else the
    /// lowest free unit (the low half of a free register).
    fn pick_half(&self, limit: u32) -> Option<u32> {
        let free = |u: u32| !self.units.get(u as usize).copied().unwrap_or(true);
        (0..2 * limit).find(|&u| free(u) && !free(u ^ 1)).or_else(|| (0..2 * limit).find(|&u| free(u)))
    }
}

/// V registers a colouring uses (one past the highest unit's register).
fn v_registers(m: &MFunction, reg: &SecondaryMap<VReg, Option<u32>>) -> u32 {
    m.vregs
        .iter()
        .filter(|(_, i)| i.class != RegClass::P)
        .filter_map(|(v, i)| reg[v].map(|r| units_to_regs(i.class.unit_span(r).end)))
        .max()
        .unwrap_or(0)
}

/// Values that an instruction defining a `not_r0` V result reads for the last
/// time (they should leave that result a register other than `r0`).
fn dying_at_not_r0(m: &MFunction, live: &Liveness) -> BTreeSet<VReg> {
    let mut out = BTreeSet::new();
    for &b in &m.order {
        let block = &m.blocks[b];
        live.walk_back(m, b, |i, after| {
            let inst = &block.insts[i];
            if inst.dst.is_some_and(|d| m.vregs[d].not_r0 && m.vregs[d].class == RegClass::V) {
                out.extend(inst.uses().filter(|u| !after.contains(u) && m.vregs[*u].class == RegClass::V));
            }
        });
    }
    out
}

/// Colours `m` with at most `limit` V registers; `max_live` is the pressure
/// peak, which the colouring should not exceed (see the module doc for when
/// a second run is needed).
pub fn colour(m: &MFunction, live: &Liveness, isa: Isa, limit: u32, max_live: u32) -> Result<Colouring, String> {
    let first = colour_with(m, live, isa, limit, None, None);
    if first.as_ref().is_ok_and(|c| v_registers(m, &c.reg) <= max_live) {
        return first;
    }
    let better = |a: Result<Colouring, String>, b: Result<Colouring, String>| match (a, b) {
        (Ok(a), Ok(b)) if v_registers(m, &b.reg) < v_registers(m, &a.reg) => Ok(b),
        (Ok(a), _) => Ok(a),
        (Err(_), b) => b,
    };
    let mut best = first;
    let avoid = dying_at_not_r0(m, live);
    if !avoid.is_empty() {
        let second = colour_with(m, live, isa, limit, Some((&avoid, max_live.min(limit))), None);
        best = better(best, second);
    }
    // A tuple needs a run of free registers: taking the lowest run leaves the
    // free registers below MaxLive in pieces; runs from the top of that range
    // down leave the low ones whole for single values.
    let has_tuples = m.vregs.values().any(|i| matches!(i.class, RegClass::V2 | RegClass::V4));
    if has_tuples && !best.as_ref().is_ok_and(|c| v_registers(m, &c.reg) <= max_live) {
        let avoid = (!avoid.is_empty()).then_some((&avoid, max_live.min(limit)));
        let third = colour_with(m, live, isa, limit, avoid, Some(max_live.min(limit)));
        best = better(best, third);
    }
    if has_tuples && !best.as_ref().is_ok_and(|c| v_registers(m, &c.reg) <= max_live) {
        // Or single values from the top down and tuples from the bottom up.
        let avoid = (!avoid.is_empty()).then_some((&avoid, max_live.min(limit)));
        let fourth = colour_with(m, live, isa, limit, avoid, Some(u32::MAX - max_live.min(limit)));
        best = better(best, fourth);
    }
    best
}

/// One colouring run; `avoid_r0`: values that take a free register in
/// `1..bound` when there is one (else the lowest free, `r0` included);
/// `tuples_below`: V2/V4 values take the highest free run below this bound
/// when there is one (else the lowest).
fn colour_with(
    m: &MFunction,
    live: &Liveness,
    isa: Isa,
    limit: u32,
    avoid_r0: Option<(&BTreeSet<VReg>, u32)>,
    tuples_below: Option<u32>,
) -> Result<Colouring, String> {
    let mut reg: SecondaryMap<VReg, Option<u32>> = SecondaryMap::with_capacity(m.vregs.len());
    let mut live_after: SecondaryMap<Block, Vec<u32>> = SecondaryMap::new();
    // A value passed on an edge prefers its parameter's register (coloured
    // already on a loop's back edge), so that the edge needs no copy.
    let mut passes_to: SecondaryMap<VReg, Option<VReg>> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for (s, args) in m.blocks[b].term.edges() {
            for (&a, &p) in args.iter().zip(&m.blocks[s].params) {
                if m.vregs[a].class == RegClass::V && m.vregs[p].class == RegClass::V && passes_to[a].is_none() {
                    passes_to[a] = Some(p);
                }
            }
        }
    }
    let pick = |pool: &Pool, v: VReg| -> Option<u32> {
        let info = &m.vregs[v];
        match info.class {
            RegClass::V if avoid_r0.is_some_and(|(set, _)| set.contains(&v)) => {
                let bound = avoid_r0.map_or(0, |(_, b)| b);
                let lowest = u32::from(info.not_r0);
                (1..bound).find(|&r| pool.is_free(RegClass::V, r)).or_else(|| (lowest..limit).find(|&r| pool.is_free(RegClass::V, r)))
            }
            RegClass::V if tuples_below.is_some_and(|b| b > u32::MAX / 2) => {
                let top = (u32::MAX - tuples_below.unwrap_or(0)).min(limit);
                (u32::from(info.not_r0)..top)
                    .rev()
                    .find(|&r| pool.is_free(RegClass::V, r))
                    .or_else(|| (u32::from(info.not_r0)..limit).find(|&r| pool.is_free(RegClass::V, r)))
            }
            RegClass::V => (u32::from(info.not_r0)..limit).find(|&r| pool.is_free(RegClass::V, r)),
            // A pair takes the lowest two free consecutive registers: with pairs the
            // colouring is not guaranteed minimal, which matters little as f64
            // values only live between their instructions.
            RegClass::V2 | RegClass::V4 => {
                let words = if info.class == RegClass::V2 { 2 } else { 4 };
                let high = tuples_below
                    .filter(|&b| b <= u32::MAX / 2)
                    .and_then(|b| (0..b.min(limit).saturating_sub(words - 1)).rev().find(|&r| pool.is_free(info.class, r)));
                high.or_else(|| (0..limit.saturating_sub(words - 1)).find(|&r| pool.is_free(info.class, r)))
            }
            RegClass::H => pool.pick_half(limit),
            RegClass::P => {
                // p0 cannot predicate an instruction on wave-0.1.2 (it encodes as "always").
                let order: &[u32] = if info.predicates && isa == Isa::Wave012 { &[1, 2, 3] } else { &[1, 2, 3, 0] };
                order.iter().copied().find(|&r| pool.is_free(RegClass::P, r))
            }
        }
    };
    for &b in &m.order {
        let block = &m.blocks[b];
        let mut pool = Pool { units: vec![false; 2 * limit as usize], p: [false; 4] };
        for &v in live.live_in(b) {
            let r = reg[v].ok_or_else(|| format!("{v} is live into {b} before its definition was coloured"))?;
            pool.set(m.vregs[v].class, r, true);
        }
        // Fixed parameters (the ABI registers) first, then the others, each
        // preferring the register its argument has on an edge already coloured.
        let hints = param_hints(m, live, b, &reg);
        let mut params: Vec<(usize, VReg)> =
            block.params.iter().copied().enumerate().filter(|&(_, p)| m.vregs[p].fixed.is_some()).collect();
        params.extend(block.params.iter().copied().enumerate().filter(|&(_, p)| m.vregs[p].fixed.is_none()));
        for (k, p) in params {
            let class = m.vregs[p].class;
            let r = match m.vregs[p].fixed {
                Some(r) if !pool.is_free(class, r) => return Err(format!("fixed register r{r} of {p} is taken")),
                Some(r) => r,
                None => match hints[k].filter(|&r| pool.is_free(class, r) && (class != RegClass::V || r >= u32::from(m.vregs[p].not_r0))) {
                    Some(r) => r,
                    None => pick(&pool, p).ok_or_else(|| format!("no free register for parameter {p} of {b}"))?,
                },
            };
            reg[p] = Some(r);
            pool.set(class, r, true);
        }
        // Kills and dead definitions, from a backward walk.
        let n = block.insts.len();
        let mut kills: Vec<Vec<VReg>> = vec![Vec::new(); n];
        let mut dead_def = vec![false; n];
        let mut counts = vec![0u32; n];
        let param_live = live.walk_back(m, b, |i, after| {
            let inst = &block.insts[i];
            let mut k: Vec<VReg> = inst.uses().filter(|u| !after.contains(u)).collect();
            k.sort_unstable();
            k.dedup();
            kills[i] = k;
            dead_def[i] = inst.dst.is_some_and(|d| !after.contains(&d));
            counts[i] =
                units_to_regs(crate::liveness::pressure::units(m, after.iter().copied().filter(|&v| m.vregs[v].class != RegClass::P)));
        });
        // The preference goes back through the block: a value dying where a
        // value that prefers a parameter's register is made can hold that
        // register already (`fdiv w2, w1, w1` then `w1` in it too).
        let mut prefers: std::collections::HashMap<VReg, VReg> = std::collections::HashMap::new();
        for i in (0..n).rev() {
            let inst = &block.insts[i];
            let Some(d) = inst.dst else { continue };
            let Some(p) = passes_to[d].or_else(|| prefers.get(&d).copied()) else { continue };
            if inst.early_clobber || inst.op == Opcode::Split {
                continue;
            }
            for &k in &kills[i] {
                if m.vregs[k].class == RegClass::V && passes_to[k].is_none() {
                    prefers.entry(k).or_insert(p);
                }
            }
        }
        for &p in &block.params {
            if !param_live.contains(&p) {
                if let Some(r) = reg[p] {
                    pool.set(m.vregs[p].class, r, false);
                }
            }
        }
        for (i, inst) in block.insts.iter().enumerate() {
            let free_kills = |pool: &mut Pool, reg: &SecondaryMap<VReg, Option<u32>>| {
                for &k in &kills[i] {
                    if let Some(r) = reg[k] {
                        pool.set(m.vregs[k].class, r, false);
                    }
                }
            };
            if !inst.early_clobber {
                free_kills(&mut pool, &reg);
            }
            if let Some(d) = inst.dst {
                // A half write completing a packed value takes the register of
                // the value it completes when free (no move for the other half).
                // So does a predicated merge, the register of the value its other lanes keep.
                let completes = inst.ins.is_some() || inst.merge;
                let merge =
                    completes.then(|| inst.srcs.last()).flatten().and_then(|&s| reg[s]).filter(|&r| pool.is_free(m.vregs[d].class, r));
                // A split word takes the register the wide load before it wrote
                // (free: the tuple died at the load, and nothing came between).
                let r = if inst.op == Opcode::Split {
                    let t = inst.split_of.ok_or("a split without its tuple")?;
                    let r = reg[t].ok_or_else(|| format!("tuple {t} of {d} has no register"))? + inst.imm.unwrap_or(0);
                    if !pool.is_free(RegClass::V, r) {
                        return Err(format!("r{r} of word {d} of {t} is taken in {b} at {i}"));
                    }
                    r
                } else {
                    let class = m.vregs[d].class;
                    let preferred = passes_to[d]
                        .or_else(|| prefers.get(&d).copied())
                        .and_then(|p| reg[p])
                        .filter(|&r| class == RegClass::V && r < limit && r >= u32::from(m.vregs[d].not_r0) && pool.is_free(class, r));
                    let preferred = if avoid_r0.is_some_and(|(set, _)| set.contains(&d)) { None } else { preferred };
                    // A wide store's tuple where most of its words are already.
                    let in_place = (inst.op == Opcode::Tuple).then(|| tuple_in_place(m, inst, &reg, &pool, limit)).flatten();
                    merge
                        .or(preferred)
                        .or(in_place)
                        .or_else(|| pick(&pool, d))
                        .ok_or_else(|| format!("no free register for {d} in {b} at {i}"))?
                };
                reg[d] = Some(r);
                pool.set(m.vregs[d].class, r, true);
            }
            if inst.early_clobber {
                free_kills(&mut pool, &reg);
            }
            if dead_def[i] {
                let d = inst.dst.expect("a dead definition has a destination");
                if let Some(r) = reg[d] {
                    pool.set(m.vregs[d].class, r, false);
                }
            }
        }
        live_after[b] = counts;
    }
    Ok(Colouring { reg, live_after })
}

/// The free run for the tuple `inst` makes (a `Tuple`, its dying words'
/// registers already freed) that holds the most of its words in their
/// places, so that the fewest moves remain; `None` if no word's place is free.
fn tuple_in_place(m: &MFunction, inst: &MInst, reg: &SecondaryMap<VReg, Option<u32>>, pool: &Pool, limit: u32) -> Option<u32> {
    let class = m.vregs[inst.dst?].class;
    let n = inst.srcs.len() as u32;
    let at = |k: usize| reg[inst.srcs[k]].map(|r| r + u32::from(inst.src_word(k).unwrap_or(0)));
    let in_place = |base: u32| (0..inst.srcs.len()).filter(|&k| at(k) == Some(base + k as u32)).count();
    (0..inst.srcs.len())
        .filter_map(|k| at(k)?.checked_sub(k as u32))
        .filter(|&base| base + n <= limit && pool.is_free(class, base))
        .map(|base| (in_place(base), std::cmp::Reverse(base)))
        .max()
        .map(|(_, std::cmp::Reverse(base))| base)
}

/// For each parameter of `b`, the register of its argument on the first
/// incoming edge whose argument is already coloured.
fn param_hints(m: &MFunction, live: &Liveness, b: Block, reg: &SecondaryMap<VReg, Option<u32>>) -> Vec<Option<u32>> {
    let n = m.blocks[b].params.len();
    let mut hints = vec![None; n];
    for &p in live.preds(b) {
        for (s, args) in m.blocks[p].term.edges() {
            if s != b || args.len() != n {
                continue;
            }
            for (k, a) in args.iter().enumerate() {
                if hints[k].is_none() {
                    hints[k] = reg[*a];
                }
            }
        }
    }
    // Two parameters must not be hinted to one register.
    let mut seen = BTreeSet::new();
    for h in hints.iter_mut() {
        if let Some(r) = *h {
            if !seen.insert(r) {
                *h = None;
            }
        }
    }
    hints
}
