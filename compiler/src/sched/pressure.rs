//! Register pressure of one block under a given instruction order, counted
//! exactly as the allocator counts it (`liveness::pressure`): the block's entry
//! (live-in values and parameters), then after each instruction the live values
//! plus its destination (and an early-clobber instruction's dying sources).
//! V registers and predicates are counted apart.

use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::{pressure::units, Liveness};
use std::collections::{BTreeSet, HashMap};

/// Pressure in half-register units (a V value counts two, as in
/// `liveness::pressure`) and in predicates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Count {
    pub v: u32,
    pub p: u32,
}

/// The live state of a block being scheduled: updated one instruction at a time.
#[derive(Clone)]
pub struct Tracker<'a> {
    m: &'a MFunction,
    /// Uses of each value still to come in the block (a map of the block's
    /// values, not a table of the function's: one per block would make
    /// scheduling quadratic in the kernel's size).
    remaining: HashMap<VReg, u32>,
    /// Live at the block's end (successors' live-ins, terminator operands).
    end_live: BTreeSet<VReg>,
    pub live: Count,
    /// The pressure at the block's entry.
    pub entry: Count,
}

fn is_p(m: &MFunction, v: VReg) -> bool {
    m.vregs[v].class == RegClass::P
}

fn add(m: &MFunction, c: &mut Count, v: VReg) {
    if is_p(m, v) {
        c.p += 1;
    } else {
        c.v += units(m, [v]);
    }
}

fn sub(m: &MFunction, c: &mut Count, v: VReg) {
    if is_p(m, v) {
        c.p -= 1;
    } else {
        c.v -= units(m, [v]);
    }
}

impl<'a> Tracker<'a> {
    pub fn new(m: &'a MFunction, live: &Liveness, b: Block) -> Tracker<'a> {
        let block = &m.blocks[b];
        let mut remaining: HashMap<VReg, u32> = HashMap::new();
        for inst in &block.insts {
            for u in inst.uses() {
                *remaining.entry(u).or_default() += 1;
            }
        }
        let end_live = live.end_live(m, b);
        let mut entry = Count::default();
        let mut live_now = Count::default();
        for &v in live.live_in(b).iter().chain(&block.params) {
            add(m, &mut entry, v);
            // A parameter nothing reads is written by the edge copies and then dead.
            if remaining.get(&v).is_some_and(|&n| n > 0) || end_live.contains(&v) {
                add(m, &mut live_now, v);
            }
        }
        Tracker { m, remaining, end_live, live: live_now, entry }
    }

    fn uses_left(&self, v: VReg) -> u32 {
        self.remaining.get(&v).copied().unwrap_or(0)
    }

    /// The pressure at `inst` and the live count after it, without issuing it.
    pub fn probe(&self, inst: &MInst) -> (Count, Count) {
        let m = self.m;
        let mut after = self.live;
        let mut point_extra = Count::default();
        let uses: Vec<VReg> = inst.uses().collect();
        for (k, &u) in uses.iter().enumerate() {
            if uses[..k].contains(&u) {
                continue;
            }
            let n = uses.iter().filter(|&&x| x == u).count() as u32;
            if self.uses_left(u) == n && !self.end_live.contains(&u) {
                sub(m, &mut after, u);
                if inst.early_clobber && Some(u) != inst.dst {
                    add(m, &mut point_extra, u);
                }
            }
        }
        let mut point = after;
        if let Some(d) = inst.dst {
            add(m, &mut point, d);
            if self.uses_left(d) > 0 || self.end_live.contains(&d) {
                add(m, &mut after, d);
            }
        }
        point.v += point_extra.v;
        point.p += point_extra.p;
        (point, after)
    }

    /// Issues `inst`: its uses are consumed, its destination becomes live.
    pub fn issue(&mut self, inst: &MInst) -> Count {
        let (point, after) = self.probe(inst);
        for u in inst.uses() {
            if let Some(n) = self.remaining.get_mut(&u) {
                *n -= 1;
            }
        }
        self.live = after;
        point
    }
}

/// The most half-register units and predicates a block needs with its instructions in `order`.
pub fn block_peak(m: &MFunction, live: &Liveness, b: Block, insts: &[MInst], order: &[usize]) -> Count {
    let mut t = Tracker::new(m, live, b);
    let mut peak = t.entry;
    for &i in order {
        let p = t.issue(&insts[i]);
        peak.v = peak.v.max(p.v);
        peak.p = peak.p.max(p.p);
    }
    peak
}
