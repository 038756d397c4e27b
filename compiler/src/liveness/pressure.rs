//! Register pressure: how many V values need a register at each program point.
//!
//! The points are a block's entry (live-in values and all parameters, which
//! the edge copies write at once) and each instruction: the values live after
//! it plus its destination (a dead definition still needs a register), and for
//! an early-clobber instruction its sources too. The colouring needs exactly
//! the largest of these counts (MaxLive) when there are no pairs or halves.
//!
//! Counts are in half-register units (an H value is one, a V value two), so
//! two live 16-bit values cost one register; MaxLive is reported in whole
//! registers, rounded up.

use super::Liveness;
use crate::codegen::mir::*;
use crate::ir::Block;
use std::collections::BTreeSet;

/// A program point and the V values that need a register there.
#[derive(Clone, Debug)]
pub struct Point {
    pub block: Block,
    /// After instruction `index`; `None`: the block's entry.
    pub index: Option<usize>,
    pub set: Vec<VReg>,
}

fn is_v(m: &MFunction, v: VReg) -> bool {
    m.vregs[v].class != RegClass::P
}

/// Half-register units the values of `set` occupy (a V value counts two, a pair four).
pub fn units(m: &MFunction, set: impl IntoIterator<Item = VReg>) -> u32 {
    set.into_iter().map(|v| m.vregs[v].class.units()).sum()
}

/// Visits every point of `m` in program order with its pressure; `keep`
/// decides from the count whether the point's sets are built.
fn points(m: &MFunction, live: &Liveness, keep: &mut dyn FnMut(u32) -> bool, out: &mut Vec<Point>) {
    for &b in &m.order {
        let block = &m.blocks[b];
        let entry: Vec<VReg> = live.live_in(b).iter().chain(&block.params).copied().filter(|&v| is_v(m, v)).collect();
        if keep(units_to_regs(units(m, entry.iter().copied()))) {
            out.push(Point { block: b, index: None, set: entry });
        }
        let mut found = Vec::new();
        live.walk_back(m, b, |i, after| {
            let inst = &block.insts[i];
            let extra_dst = inst.dst.filter(|&d| is_v(m, d) && !after.contains(&d));
            let extra_srcs: Vec<VReg> = if inst.early_clobber {
                inst.uses()
                    .filter(|&u| is_v(m, u) && !after.contains(&u) && Some(u) != extra_dst)
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            let count = units(m, after.iter().copied().filter(|&v| is_v(m, v)).chain(extra_dst).chain(extra_srcs.iter().copied()));
            if keep(units_to_regs(count)) {
                let mut set: BTreeSet<VReg> = after.iter().copied().filter(|&v| is_v(m, v)).collect();
                set.extend(extra_dst);
                set.extend(extra_srcs);
                found.push(Point { block: b, index: Some(i), set: set.into_iter().collect() });
            }
        });
        found.reverse();
        out.extend(found);
    }
}

/// MaxLive of `m` and the first point where it is reached.
pub fn peak(m: &MFunction, live: &Liveness) -> (u32, Option<Point>) {
    let mut max = 0;
    // First pass: the maximum; second: the first point reaching it.
    points(
        m,
        live,
        &mut |n| {
            max = max.max(n);
            false
        },
        &mut Vec::new(),
    );
    let mut out = Vec::new();
    let mut done = false;
    points(
        m,
        live,
        &mut |n| {
            let hit = !done && n == max && max > 0;
            done |= hit;
            hit
        },
        &mut out,
    );
    (max, out.into_iter().next())
}

/// MaxLive of `m` as it stands (before any spilling).
pub fn max_live(m: &MFunction) -> u32 {
    peak(m, &Liveness::compute(m)).0
}
