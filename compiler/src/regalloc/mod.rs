//! Register allocation on SSA machine IR.
//!
//! Liveness is computed on the logical CFG. That is sound under WAVE's masked
//! execution because every write only touches active lanes: each lane sees
//! exactly the scalar program along its own path, so per-lane liveness is the
//! ordinary CFG liveness. Values are coloured in dominance (region) order, each
//! taking the lowest free register; for SSA programs that uses exactly MaxLive
//! registers per class (the interference graph is chordal). Edge arguments
//! become parallel copies at emission. Spilling is not implemented yet: a
//! kernel that needs more registers than the profile has is refused.
//!
//! A V2 value (an f64 pair) takes the lowest rN with rN and rN+1 both free;
//! with pairs the colouring is no longer guaranteed minimal, which only
//! matters near the register limit (f64 values are short-lived: the lowering
//! keeps them in V registers between f64 instructions).

mod liveness;

pub use liveness::Liveness;

use crate::codegen::mir::*;
use crate::diag::{Diagnostic, Span};
use crate::ir::Block;
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeSet;

/// The result of allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Physical register of every allocated vreg (V: rN, P: pN).
    pub reg: SecondaryMap<VReg, Option<u32>>,
    /// V registers used (highest index + 1).
    pub num_v: u32,
    /// Most V values live at once.
    pub max_live_v: u32,
    /// Live V values after each instruction, per block (aligned with `insts`).
    pub live_after: SecondaryMap<Block, Vec<u32>>,
    /// Live V values at the peak and where it occurs.
    pub peak: Option<(Block, usize)>,
}

/// Allocates registers for `m` within the profile's register file.
pub fn allocate(m: &MFunction, isa: Isa) -> Result<Allocation, Diagnostic> {
    let live = Liveness::compute(m);
    let mut reg: SecondaryMap<VReg, Option<u32>> = SecondaryMap::new();
    let mut num_v = 0u32;
    let mut max_live_v = 0u32;
    let mut peak = None;
    let mut live_after_counts: SecondaryMap<Block, Vec<u32>> = SecondaryMap::new();
    let v_limit = isa.max_registers();

    for &b in &m.order {
        let block = &m.blocks[b];
        let mut used_v: BTreeSet<u32> = BTreeSet::new();
        let mut used_p: BTreeSet<u32> = BTreeSet::new();
        for v in live.live_in(b) {
            if block.params.contains(&v) {
                continue;
            }
            let Some(r) = reg[v] else {
                return Err(internal(format!("{v} is live into {b} before its definition was allocated")));
            };
            occupy(m, v, r, &mut used_v, &mut used_p);
        }
        // Block parameters (and, for the entry, the ABI registers).
        let mut fixed_first: Vec<VReg> = block.params.iter().copied().filter(|&p| m.vregs[p].fixed.is_some()).collect();
        fixed_first.extend(block.params.iter().copied().filter(|&p| m.vregs[p].fixed.is_none()));
        for &p in &fixed_first {
            let r = match m.vregs[p].fixed {
                Some(r) if used_v.contains(&r) => return Err(internal(format!("fixed register r{r} of {p} is taken"))),
                Some(r) => r,
                None => pick(m, p, isa, &used_v, &used_p).ok_or_else(|| too_many(m, isa, block.term_span, v_limit))?,
            };
            reg[p] = Some(r);
            occupy(m, p, r, &mut used_v, &mut used_p);
        }
        let live_after = live.live_after_each(m, b);
        let dead_params: Vec<VReg> = block.params.iter().copied().filter(|p| !live.param_is_live(m, b, *p)).collect();
        for p in dead_params {
            // Dead parameters free their register at once.
            if let Some(r) = reg[p] {
                release(m, p, r, &mut used_v, &mut used_p);
            }
        }
        max_live_v = max_live_v.max(used_v.len() as u32);
        let mut counts = Vec::with_capacity(block.insts.len());
        for (i, inst) in block.insts.iter().enumerate() {
            let after = &live_after[i];
            let kills: BTreeSet<VReg> = inst.uses().filter(|u| !after.contains(u)).collect();
            if !inst.early_clobber {
                for &k in &kills {
                    if let Some(r) = reg[k] {
                        release(m, k, r, &mut used_v, &mut used_p);
                    }
                }
            }
            if let Some(d) = inst.dst {
                let r = pick(m, d, isa, &used_v, &used_p).ok_or_else(|| too_many(m, isa, inst.span, v_limit))?;
                reg[d] = Some(r);
                occupy(m, d, r, &mut used_v, &mut used_p);
                num_v = num_v.max(r + m.vregs[d].class.width());
            }
            if used_v.len() as u32 > max_live_v {
                max_live_v = used_v.len() as u32;
                peak = Some((b, i));
            }
            if inst.early_clobber {
                for &k in &kills {
                    if let Some(r) = reg[k] {
                        release(m, k, r, &mut used_v, &mut used_p);
                    }
                }
            }
            if let Some(d) = inst.dst {
                if !after.contains(&d) {
                    if let Some(r) = reg[d] {
                        release(m, d, r, &mut used_v, &mut used_p);
                    }
                }
            }
            counts.push(after.iter().map(|v| m.vregs[*v].class.width()).sum());
        }
        live_after_counts[b] = counts;
    }
    for (v, info) in m.vregs.iter() {
        if let Some(r) = reg[v] {
            num_v = num_v.max(r + info.class.width());
        }
    }
    let alloc = Allocation { reg, num_v, max_live_v, live_after: live_after_counts, peak };
    check(m, &live, &alloc)?;
    Ok(alloc)
}

/// Marks the registers of `v` (in `r`) taken.
fn occupy(m: &MFunction, v: VReg, r: u32, used_v: &mut BTreeSet<u32>, used_p: &mut BTreeSet<u32>) {
    match m.vregs[v].class {
        RegClass::P => {
            used_p.insert(r);
        }
        c => used_v.extend(r..r + c.width()),
    }
}

/// Marks the registers of `v` (in `r`) free.
fn release(m: &MFunction, v: VReg, r: u32, used_v: &mut BTreeSet<u32>, used_p: &mut BTreeSet<u32>) {
    match m.vregs[v].class {
        RegClass::P => {
            used_p.remove(&r);
        }
        c => (r..r + c.width()).for_each(|x| {
            used_v.remove(&x);
        }),
    }
}

/// The registers `v` occupies in `a`: (is a predicate, index) units.
fn units(m: &MFunction, a: &Allocation, v: VReg) -> Vec<(bool, u32)> {
    let Some(r) = a.reg[v] else { return vec![] };
    match m.vregs[v].class {
        RegClass::P => vec![(true, r)],
        c => (r..r + c.width()).map(|x| (false, x)).collect(),
    }
}

/// Whether `x` and `y` share a register.
fn overlap(m: &MFunction, a: &Allocation, x: VReg, y: VReg) -> bool {
    let ux = units(m, a, x);
    units(m, a, y).iter().any(|u| ux.contains(u))
}

/// Lowest free register of `v`'s class that `v` may use.
fn pick(m: &MFunction, v: VReg, isa: Isa, used_v: &BTreeSet<u32>, used_p: &BTreeSet<u32>) -> Option<u32> {
    let info = &m.vregs[v];
    match info.class {
        RegClass::V => (u32::from(info.not_r0)..isa.max_registers()).find(|r| !used_v.contains(r)),
        RegClass::V2 => (0..isa.max_registers().saturating_sub(1)).find(|r| !used_v.contains(r) && !used_v.contains(&(r + 1))),
        RegClass::P => {
            // p0 cannot predicate an instruction on wave-0.1.2 (it encodes as "always").
            let order: &[u32] = if info.predicates && isa == Isa::Wave012 { &[1, 2, 3] } else { &[1, 2, 3, 0] };
            order.iter().copied().find(|r| !used_p.contains(r))
        }
    }
}

fn internal(msg: String) -> Diagnostic {
    Diagnostic::error("E0402", format!("internal register allocation error: {msg}"))
}

fn too_many(m: &MFunction, isa: Isa, span: Span, limit: u32) -> Diagnostic {
    let _ = m;
    Diagnostic::error("E0403", format!("the kernel needs more than {limit} registers, the most `--isa {}` allows", isa.name()))
        .with_label(span, "register pressure exceeds the register file here")
        .with_note("spilling to local memory is not implemented yet; reduce the number of values live at once")
}

/// Allocation checker: no two values live at the same point share a register,
/// every fixed value got its register, and no atomic returns into r0.
fn check(m: &MFunction, live: &Liveness, a: &Allocation) -> Result<(), Diagnostic> {
    for &b in &m.order {
        let after = live.live_after_each(m, b);
        let mut points: Vec<BTreeSet<VReg>> = vec![live.live_in(b).into_iter().collect()];
        points.extend(after.iter().map(|s| s.iter().copied().collect()));
        for (k, set) in points.iter().enumerate() {
            let mut seen: BTreeSet<(bool, u32)> = BTreeSet::new();
            for &v in set {
                if a.reg[v].is_none() {
                    return Err(internal(format!("{v} is live in {b} but has no register")));
                }
                for (p, r) in units(m, a, v) {
                    if !seen.insert((p, r)) {
                        return Err(internal(format!("two live values share register {r} in {b} at point {k}")));
                    }
                }
            }
        }
        for (i, inst) in m.blocks[b].insts.iter().enumerate() {
            if let Some(d) = inst.dst {
                // A definition, even a dead one, must not overwrite a value that is still live.
                if after[i].iter().any(|&v| v != d && overlap(m, a, v, d)) {
                    return Err(internal(format!("definition of {d} in {b} overwrites a live value")));
                }
            }
            if inst.early_clobber {
                if let Some(d) = inst.dst {
                    if inst.srcs.iter().any(|&s| overlap(m, a, s, d)) {
                        return Err(internal(format!("early-clobber destination {d} shares a source register")));
                    }
                }
            }
        }
    }
    // Edge copies: a parameter's register must not hold another value live into the block.
    for &b in &m.order {
        let params = &m.blocks[b].params;
        for v in live.live_in(b) {
            if params.iter().any(|&p| overlap(m, a, p, v)) {
                return Err(internal(format!("a parameter of {b} shares a register with live-in {v}")));
            }
        }
    }
    for (v, info) in m.vregs.iter() {
        if let (Some(f), Some(r)) = (info.fixed, a.reg[v]) {
            if f != r {
                return Err(internal(format!("{v} must be in r{f}, got r{r}")));
            }
        }
        if info.not_r0 && info.class == RegClass::V && a.reg[v] == Some(0) {
            return Err(internal(format!("{v} (an atomic's result) must not be r0")));
        }
    }
    Ok(())
}
