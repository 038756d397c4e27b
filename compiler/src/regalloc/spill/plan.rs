//! Which values stay in registers where (Braun and Hack, "Register Spilling
//! and Live-Range Splitting for SSA-Form Programs", 2009).
//!
//! Blocks are visited in region order (a dominance order; a loop's header
//! before its body). Each keeps a set W of the values in registers, at most
//! `k`. At a block's entry W is chosen from what the predecessors hold (values
//! every predecessor holds first, then the others, nearest next use first); a
//! loop header instead takes the values the loop uses, then values merely live
//! through it if room is left, so values a loop never reads stay in memory
//! for the whole loop. Inside a block, an operand not in W is reloaded, and
//! when W overflows the value whose next use is farthest leaves (Belady's MIN).
//! Where a block wants a value in a register that a predecessor does not hold,
//! a reload goes at the end of that predecessor (if it has no other successor)
//! or at the start of the block.
//!
//! Everything here is about the original values; the rewrite makes the
//! reloads new definitions and restores SSA form.

use super::nextuse::NextUse;
use crate::codegen::mir::*;
use crate::ir::Block;
use crate::liveness::Liveness;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// Where values are reloaded and which values need a home in memory.
#[derive(Default)]
pub struct Plan {
    /// Values that are out of registers somewhere: saved right after their definition.
    pub spilled: BTreeSet<VReg>,
    /// Reloads before instruction `i` of a block (`i == len`: before the terminator).
    pub reloads: SecondaryMap<Block, BTreeMap<usize, Vec<VReg>>>,
    /// Block parameters that live in memory from the start (a block with more
    /// parameters than registers): each predecessor stores its argument into
    /// the parameter's slot instead of copying it into a register.
    pub memory_params: BTreeSet<VReg>,
    /// Arguments for memory parameters that are not in a register at the end
    /// of a block: reloaded there just for that store.
    pub edge_reloads: SecondaryMap<Block, Vec<VReg>>,
    /// Reloads at the very end of a block (after its edge stores) for values its
    /// one successor wants in registers.
    pub coupling: SecondaryMap<Block, Vec<VReg>>,
    /// Of the watched values (re-load candidates), those reloaded somewhere
    /// where a value their address reads is not in a register.
    pub leaves_out: BTreeSet<VReg>,
    /// Watched values live into a join that an edge without arguments enters,
    /// where SSA repair reloads them at the start after everything else is
    /// renamed: their leaves must keep their one definition (never spilled).
    pub join_reloads: BTreeSet<VReg>,
}

/// Not even spilling everything fits: at this point more than `k` values must be in registers.
#[derive(Debug)]
pub struct Infeasible {
    pub block: Block,
    pub index: Option<usize>,
    pub live: Vec<VReg>,
    /// Registers for values this point needs at least.
    pub needed: u32,
}

struct Planner<'a> {
    m: &'a MFunction,
    live: &'a Liveness,
    nu: &'a NextUse,
    k: usize,
    /// How cheap spilling each value is (1 for a slot; more for values
    /// rematerialized or kept in a workgroup word, which need no store, no
    /// pointer register and short reloads): its distances count that many
    /// times.
    cheap: &'a SecondaryMap<VReg, u32>,
    /// Values that may be re-loaded from read-only memory instead of saved,
    /// with the values their address reads (see `Plan::leaves_out`).
    watch: &'a BTreeMap<VReg, BTreeSet<VReg>>,
    pos: SecondaryMap<Block, usize>,
    done: SecondaryMap<Block, bool>,
    w_entry: SecondaryMap<Block, BTreeSet<VReg>>,
    w_exit: SecondaryMap<Block, BTreeSet<VReg>>,
    plan: Plan,
}

/// A value that may leave the registers (one V register or one half).
fn is_v(m: &MFunction, v: VReg) -> bool {
    matches!(m.vregs[v].class, RegClass::V | RegClass::H)
}

/// A value in V registers: V, or a pair (V2), which never leaves them (f64
/// values only live between their instructions) but counts twice.
fn in_regs(m: &MFunction, v: VReg) -> bool {
    m.vregs[v].class != RegClass::P
}

/// Half-register units the values of `w` occupy (the planner counts in units:
/// two 16-bit values fit where one 32-bit value does).
fn width<'v>(m: &MFunction, w: impl IntoIterator<Item = &'v VReg>) -> usize {
    w.into_iter().map(|&v| m.vregs[v].class.units() as usize).sum()
}

/// The longest prefix of `vs` that fits in `room` units.
fn fitting(m: &MFunction, vs: Vec<VReg>, room: usize) -> Vec<VReg> {
    let mut used = 0;
    vs.into_iter()
        .take_while(|v| {
            used += m.vregs[*v].class.units() as usize;
            used <= room
        })
        .collect()
}

/// Plans registers and reloads for `m` with `k` registers for values
/// (`Infeasible::needed` is in registers too).
pub fn plan(
    m: &MFunction,
    live: &Liveness,
    nu: &NextUse,
    k: u32,
    cheap: &SecondaryMap<VReg, u32>,
    watch: &BTreeMap<VReg, BTreeSet<VReg>>,
) -> Result<Plan, Infeasible> {
    let mut pos = SecondaryMap::new();
    for (i, &b) in m.order.iter().enumerate() {
        pos[b] = i;
    }
    let mut p = Planner {
        m,
        live,
        nu,
        k: 2 * k as usize,
        cheap,
        watch,
        pos,
        done: SecondaryMap::new(),
        w_entry: SecondaryMap::new(),
        w_exit: SecondaryMap::new(),
        plan: Plan::default(),
    };
    p.choose_memory_params();
    for &b in &m.order {
        p.block(b)?;
    }
    Ok(p.plan)
}

impl<'a> Planner<'a> {
    /// A block with more parameters than registers keeps the ones read first
    /// in registers (all but one register) and the others in memory.
    fn choose_memory_params(&mut self) {
        let m = self.m;
        for &b in &m.order {
            let mut params: Vec<VReg> = m.blocks[b].params.iter().copied().filter(|&v| is_v(m, v) && m.vregs[v].fixed.is_none()).collect();
            if width(m, &params) <= self.k {
                continue;
            }
            let uses = super::nextuse::use_positions(m, b);
            params.sort_by_key(|&v| self.score(b, &uses, 0, v));
            // All but one register's worth stay (at least one value).
            let keep = fitting(m, params.clone(), self.k.saturating_sub(2)).len().max(1);
            for &v in &params[keep..] {
                self.plan.memory_params.insert(v);
                self.plan.spilled.insert(v);
            }
        }
    }

    /// Notes a watched value `v` brought back where `regs` are in registers.
    fn check_leaves(&mut self, v: VReg, regs: &BTreeSet<VReg>) {
        if self.watch.get(&v).is_some_and(|leaves| !leaves.is_subset(regs)) {
            self.plan.leaves_out.insert(v);
        }
    }

    fn reload(&mut self, b: Block, at: usize, v: VReg) {
        let list = self.plan.reloads[b].entry(at).or_default();
        if !list.contains(&v) {
            list.push(v);
        }
    }

    /// Distance to `v`'s next use from `at` in `b`, scaled for cheap values.
    fn score(&self, b: Block, uses: &BTreeMap<VReg, Vec<u32>>, at: usize, v: VReg) -> (u32, VReg) {
        let d = self.nu.distance_from(self.m, uses, b, at as u32, v);
        (d.saturating_mul(self.cheap[v].max(1)), v)
    }

    /// Evicts values from `w` until it has at most `max`, farthest next use first.
    /// `at`: the position next uses are measured from; `index`: the
    /// instruction, for the error (`None`: the terminator).
    fn limit(
        &mut self,
        b: Block,
        uses: &BTreeMap<VReg, Vec<u32>>,
        w: &mut BTreeSet<VReg>,
        max: usize,
        protect: &[VReg],
        at: (usize, Option<usize>),
    ) -> Result<(), Infeasible> {
        let (at, index) = at;
        let m = self.m;
        while width(m, w.iter()) > max {
            let victim = w.iter().copied().filter(|v| !protect.contains(v) && is_v(m, *v)).max_by_key(|&v| self.score(b, uses, at, v));
            let Some(v) = victim else {
                let needed = units_to_regs((width(m, w.iter()) + self.k - max) as u32);
                return Err(Infeasible { block: b, index, live: w.iter().copied().collect(), needed });
            };
            w.remove(&v);
            self.plan.spilled.insert(v);
        }
        Ok(())
    }

    fn entry_set(&mut self, b: Block, uses: &BTreeMap<VReg, Vec<u32>>) -> Result<BTreeSet<VReg>, Infeasible> {
        let m = self.m;
        let params: Vec<VReg> =
            m.blocks[b].params.iter().copied().filter(|&v| is_v(m, v) && !self.plan.memory_params.contains(&v)).collect();
        let param_units = width(m, &params);
        if param_units > self.k {
            let needed = units_to_regs(param_units as u32);
            return Err(Infeasible { block: b, index: None, live: params, needed });
        }
        let pairs: Vec<VReg> =
            self.live.live_in(b).iter().chain(&m.blocks[b].params).copied().filter(|&v| in_regs(m, v) && !is_v(m, v)).collect();
        let pair_units = width(m, &pairs);
        if param_units + pair_units > self.k {
            let needed = units_to_regs((param_units + pair_units) as u32);
            return Err(Infeasible { block: b, index: None, live: params, needed });
        }
        let room = self.k - param_units - pair_units;
        let live_in: Vec<VReg> = self.live.live_in(b).iter().copied().filter(|&v| is_v(m, v)).collect();
        let by_distance = |s: &Self, mut vs: Vec<VReg>| -> Vec<VReg> {
            vs.sort_by_key(|&v| s.score(b, uses, 0, v));
            vs
        };
        let preds = self.live.preds(b);
        let processed: Vec<Block> = preds.iter().copied().filter(|&p| self.done[p]).collect();
        let header = preds.iter().any(|&p| self.pos[p] >= self.pos[b]);
        let mut w: Vec<VReg> = Vec::new();
        if b == m.entry {
            // Only the ABI arguments (parameters) are live at the kernel's entry.
        } else if header {
            // The values the loop uses, nearest first; then values it only carries through.
            let (used, through): (Vec<VReg>, Vec<VReg>) =
                live_in.iter().partition(|&&v| self.nu.distance_from(m, uses, b, 0, v) < super::nextuse::LOOP_EXIT_DISTANCE);
            w.extend(fitting(m, by_distance(self, used), room));
            let held: BTreeSet<VReg> = processed.iter().flat_map(|&p| self.w_exit[p].iter().copied()).collect();
            let through: Vec<VReg> = through.into_iter().filter(|v| held.contains(v)).collect();
            for v in by_distance(self, through) {
                if width(m, &w) + m.vregs[v].class.units() as usize <= room {
                    w.push(v);
                }
            }
        } else {
            let mut take = Vec::new();
            let mut cand = Vec::new();
            for &v in &live_in {
                let n = processed.iter().filter(|&&p| self.w_exit[p].contains(&v)).count();
                if n == processed.len() && n > 0 {
                    take.push(v);
                } else if n > 0 {
                    cand.push(v);
                }
            }
            w.extend(fitting(m, by_distance(self, take), room));
            for v in by_distance(self, cand) {
                if width(m, &w) + m.vregs[v].class.units() as usize <= room {
                    w.push(v);
                }
            }
        }
        for &v in &live_in {
            if !w.contains(&v) {
                self.plan.spilled.insert(v);
            }
        }
        let mut set: BTreeSet<VReg> = w.into_iter().collect();
        set.extend(params);
        set.extend(pairs);
        // SSA repair may reload a live-in value at the block's start.
        let argless = preds.len() > 1
            && preds.iter().any(|&p| {
                !matches!(&m.blocks[p].term, MTerm::Jump { dest, .. } | MTerm::Loop { header: dest, .. } | MTerm::BreakIf { exit: dest, .. } if *dest == b)
            });
        for &v in self.live.live_in(b) {
            if self.watch.contains_key(&v) {
                self.check_leaves(v, &set);
                if argless {
                    self.plan.join_reloads.insert(v);
                }
            }
        }
        Ok(set)
    }

    /// Reloads for the edge `p -> b` where `b` wants values in registers that `p` does not hold.
    fn couple(&mut self, p: Block, b: Block) {
        let m = self.m;
        let params = &m.blocks[b].params;
        let need: Vec<VReg> = self.w_entry[b].iter().copied().filter(|v| !params.contains(v) && !self.w_exit[p].contains(v)).collect();
        if need.is_empty() {
            return;
        }
        let entry = self.w_entry[b].clone();
        for &v in &need {
            self.check_leaves(v, &entry);
        }
        if m.blocks[p].term.edges().len() == 1 {
            for v in need {
                if !self.plan.coupling[p].contains(&v) {
                    self.plan.coupling[p].push(v);
                }
            }
        } else {
            for v in need {
                self.reload(b, 0, v);
            }
        }
    }

    fn block(&mut self, b: Block) -> Result<(), Infeasible> {
        let m = self.m;
        let block = &m.blocks[b];
        let uses = super::nextuse::use_positions(m, b);
        let len = block.insts.len();
        let mut w = self.entry_set(b, &uses)?;
        self.w_entry[b] = w.clone();
        for p in self.live.preds(b).to_vec() {
            if self.done[p] {
                self.couple(p, b);
            }
        }
        // Values reloaded at the start (coupling) are in W from there on.
        let live_out: BTreeSet<VReg> = self.live.live_out(b).iter().copied().collect();
        let last_use = |v: VReg| uses.get(&v).and_then(|p| p.last().copied());
        let dies_at = |v: VReg, i: usize| !live_out.contains(&v) && last_use(v) == Some(i as u32);
        let mut after_each = None;
        for (i, inst) in block.insts.iter().enumerate() {
            let mut u: Vec<VReg> = inst.uses().filter(|&x| in_regs(m, x)).collect();
            u.sort_unstable();
            u.dedup();
            let mut brought = Vec::new();
            for &x in &u {
                if !w.contains(&x) && is_v(m, x) {
                    self.reload(b, i, x);
                    brought.push(x);
                }
                w.insert(x);
            }
            // A re-load candidate brought back here reads its address's
            // leaves here too: they come into the registers with it (where
            // they are still live), so that re-loading it stays possible.
            let leaves: BTreeSet<VReg> = brought.iter().filter_map(|x| self.watch.get(x)).flatten().copied().collect();
            if !leaves.is_empty() {
                let after = after_each.get_or_insert_with(|| self.live.live_after_each(m, b));
                let before: BTreeSet<VReg> = if i == 0 {
                    self.live.live_in(b).iter().chain(&block.params).copied().collect()
                } else {
                    after[i - 1].iter().copied().collect()
                };
                for l in leaves {
                    if before.contains(&l) && !u.contains(&l) && is_v(m, l) {
                        if !w.contains(&l) {
                            self.reload(b, i, l);
                        }
                        w.insert(l);
                        u.push(l);
                    }
                }
            }
            let dst = inst.dst.filter(|&d| in_regs(m, d));
            let dst_width = dst.map_or(0, |d| m.vregs[d].class.units() as usize);
            let clobber = inst.early_clobber && dst.is_some();
            self.limit(b, &uses, &mut w, self.k.saturating_sub(if clobber { dst_width } else { 0 }), &u, (i, Some(i)))?;
            for x in brought {
                self.check_leaves(x, &w);
            }
            if !clobber {
                for &x in &u {
                    if dies_at(x, i) {
                        w.remove(&x);
                    }
                }
            }
            if let Some(d) = dst {
                let protect: &[VReg] = if clobber { &u } else { &[] };
                self.limit(b, &uses, &mut w, self.k.saturating_sub(dst_width), protect, (i + 1, Some(i)))?;
                if live_out.contains(&d) || uses.contains_key(&d) {
                    w.insert(d);
                }
            }
            if clobber {
                for &x in &u {
                    if dies_at(x, i) {
                        w.remove(&x);
                    }
                }
            }
        }
        // Edge arguments must be in registers for the copies; an argument for a
        // memory parameter is only stored (reloaded for that if need be).
        let mut args: Vec<VReg> = Vec::new();
        let mut stored: Vec<VReg> = Vec::new();
        for (s, edge_args) in block.term.edges() {
            for (&x, &p) in edge_args.iter().zip(&m.blocks[s].params) {
                if !is_v(m, x) {
                    continue;
                }
                if self.plan.memory_params.contains(&p) {
                    stored.push(x);
                } else {
                    args.push(x);
                }
            }
        }
        args.extend(block.term.uses().into_iter().filter(|&x| is_v(m, x) && !stored.contains(&x)));
        args.sort_unstable();
        args.dedup();
        stored.sort_unstable();
        stored.dedup();
        let mut brought = Vec::new();
        for &x in &args {
            if !w.contains(&x) {
                self.reload(b, len, x);
                brought.push(x);
                w.insert(x);
            }
        }
        self.limit(b, &uses, &mut w, self.k, &args, (len, None))?;
        for x in brought {
            self.check_leaves(x, &w);
        }
        // What is stored but no longer in a register is reloaded for its store.
        for &x in &stored {
            if !w.contains(&x) && !args.contains(&x) {
                self.check_leaves(x, &w);
                self.plan.edge_reloads[b].push(x);
                self.plan.spilled.insert(x);
            }
        }
        w.retain(|v| live_out.contains(v) || args.contains(v) || stored.contains(v));
        self.w_exit[b] = w;
        self.done[b] = true;
        // Back edges: the loop header's registers were chosen already.
        for (s, _) in block.term.edges() {
            if self.done[s] && self.pos[s] <= self.pos[b] {
                self.couple(b, s);
                for &v in self.live.live_in(s) {
                    if is_v(m, v) && !self.w_entry[s].contains(&v) {
                        self.plan.spilled.insert(v);
                    }
                }
            }
        }
        Ok(())
    }
}
