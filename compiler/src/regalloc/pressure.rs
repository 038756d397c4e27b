//! Register pressure: how many V values need a register at each program point.
//!
//! The points are a block's entry (live-in values and all parameters, which
//! the edge copies write at once) and each instruction: the values live after
//! it plus its destination (a dead definition still needs a register), and for
//! an early-clobber instruction its sources too. The colouring needs exactly
//! the largest of these counts (MaxLive).

use super::liveness::Liveness;
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
    /// Values that cannot leave their register to relieve this point: the
    /// destination just written and the operands read next.
    pub protect: Vec<VReg>,
}

fn is_v(m: &MFunction, v: VReg) -> bool {
    m.vregs[v].class == RegClass::V
}

/// Visits every point of `m` in program order with its pressure; `keep`
/// decides from the count whether the point's sets are built.
fn points(m: &MFunction, live: &Liveness, keep: &mut dyn FnMut(u32) -> bool, out: &mut Vec<Point>) {
    for &b in &m.order {
        let block = &m.blocks[b];
        let next_uses = |i: usize| -> Vec<VReg> {
            match block.insts.get(i) {
                Some(inst) => inst.uses().filter(|&u| is_v(m, u)).collect(),
                None => block.term.uses().into_iter().filter(|&u| is_v(m, u)).collect(),
            }
        };
        let entry: Vec<VReg> = live.live_in(b).iter().chain(&block.params).copied().filter(|&v| is_v(m, v)).collect();
        if keep(entry.len() as u32) {
            out.push(Point { block: b, index: None, set: entry, protect: next_uses(0) });
        }
        let mut found = Vec::new();
        live.walk_back(m, b, |i, after| {
            let inst = &block.insts[i];
            let extra_dst = inst.dst.filter(|&d| is_v(m, d) && !after.contains(&d));
            let extra_srcs: Vec<VReg> = if inst.early_clobber {
                inst.uses().filter(|&u| is_v(m, u) && !after.contains(&u) && Some(u) != extra_dst).collect::<BTreeSet<_>>().into_iter().collect()
            } else {
                Vec::new()
            };
            let count = after.iter().filter(|&&v| is_v(m, v)).count() + usize::from(extra_dst.is_some()) + extra_srcs.len();
            if keep(count as u32) {
                let mut set: BTreeSet<VReg> = after.iter().copied().filter(|&v| is_v(m, v)).collect();
                set.extend(extra_dst);
                set.extend(extra_srcs);
                let mut protect = next_uses(i + 1);
                protect.extend(inst.dst);
                if inst.early_clobber {
                    protect.extend(inst.uses());
                }
                found.push(Point { block: b, index: Some(i), set: set.into_iter().collect(), protect });
            }
        });
        found.reverse();
        out.extend(found);
    }
}

/// Every point where more than `k` V values need registers, in program order.
pub fn points_over(m: &MFunction, live: &Liveness, k: u32) -> Vec<Point> {
    let mut out = Vec::new();
    points(m, live, &mut |n| n > k, &mut out);
    out
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
    points(m, live, &mut |n| {
        let hit = !done && n == max && max > 0;
        done |= hit;
        hit
    }, &mut out);
    (max, out.into_iter().next())
}
