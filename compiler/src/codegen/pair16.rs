//! Pairing 16-bit operations into packed ones (`pair16`, spec profile only;
//! `--disable pair16`).
//!
//! Two independent `hadd`/`hmul`/`hma` of one block (typically the
//! components of half2/half3/half4 arithmetic) become one `hadd2`/`hmul2`/
//! `hma2` on packed pairs: V values holding one f16 in each half. A packed op
//! computes each half as the single op does (widen, compute in f32, round
//! once), so results are bit-identical. `hsub x, k` with a constant `k` pairs
//! as `hadd x, -k`: IEEE 754 defines `x - k` as `x + (-k)`, signed zeros
//! included.
//!
//! Each operand pair must be a packed value holding the first op's operand in
//! its low half. Where one comes from, cheapest first:
//! - a pair made already: an earlier packed op's result, or a gather;
//! - two constants: one `mov_imm` of both halves;
//! - a gather: two 16-bit values defined in the block, in that order, by
//!   instructions that can write a half (loads, conversions, half ops,
//!   constants, moves): the first writes the whole register (its value
//!   zero-extended), the second only the high half, keeping the low half of
//!   the first (`MInst::ins`). No instruction is added;
//! - a broadcast (one value in both halves, as `exposure` in
//!   `base.rgb * exposure`): its definition writes the whole register and one
//!   half move copies it into the high half;
//! - otherwise two moves (the low value zero-extended, then the high half).
//!
//! Every other use of a packed component reads its half (`rN.lo`/`rN.hi`).
//! A pair is taken when its operands cost at most the instruction it saves;
//! a block's pairing is kept only if the block ends up with fewer
//! instructions and the kernel's MaxLive does not rise.

use super::mir::*;
use crate::ir::Block;
use std::collections::{BTreeMap, BTreeSet};

/// Blocks longer than this are left alone (finding independent pairs is quadratic).
const MAX_BLOCK: usize = 2000;

/// Pairs the 16-bit operations of `m` where that is a win; returns the packed
/// operations made.
pub fn run(m: &mut MFunction) -> u32 {
    let mut live0 = None;
    let mut made = 0;
    for b in m.order.clone() {
        // A pair needs two single 16-bit operations in the block; the trial
        // below copies the whole function, so blocks without them are skipped
        // (a kernel of many blocks and no halves stays linear).
        if m.blocks[b].insts.iter().filter(|i| pairable(m, i)).nth(1).is_none() {
            continue;
        }
        let live0 = *live0.get_or_insert_with(|| crate::liveness::pressure::max_live(m));
        // Broadcasts and moved pairs hold two halves where one was live: when
        // they raise MaxLive, try again with pairs whose operands are free.
        for copies in [true, false] {
            let mut trial = m.clone();
            let n = pair_block(&mut trial, b, copies);
            if n > 0 && trial.blocks[b].insts.len() < m.blocks[b].insts.len() && crate::liveness::pressure::max_live(&trial) <= live0 {
                *m = trial;
                made += n;
                break;
            }
        }
    }
    made
}

/// Whether `i` is a single 16-bit operation that [`candidate`] may take.
fn pairable(m: &MFunction, i: &MInst) -> bool {
    matches!(i.op, Opcode::Hadd | Opcode::Hsub | Opcode::Hmul | Opcode::Hma) && i.dst.is_some_and(|d| m.vregs[d].class == RegClass::H)
}

/// An operand of a 16-bit operation: a register, or a half constant's bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Opnd {
    Reg(VReg),
    Const(u16),
}

/// A single 16-bit operation that may pair: at `at`, computing `dst` with the
/// packed opcode `op` from `args` (each a register and, for constants, the bits).
struct Cand {
    at: usize,
    op: Opcode,
    dst: VReg,
    args: Vec<(Option<VReg>, Option<u16>)>,
}

/// How one packed operand is made.
#[derive(Clone, Copy, Debug)]
enum Plan {
    /// A packed value that exists by then.
    Ready(VReg),
    /// `mov_imm` of both halves' bits (low | high << 16).
    Const(u32),
    /// Two values defined in the block, low first, written into one register.
    Gather(VReg, VReg),
    /// One value defined in the block, moved into the high half too.
    Splat(VReg),
    /// Two moves: low zero-extended, then the high half.
    Moves(VReg, VReg),
}

impl Plan {
    fn cost(self) -> u32 {
        match self {
            Plan::Ready(_) | Plan::Gather(..) => 0,
            Plan::Const(_) | Plan::Splat(_) => 1,
            Plan::Moves(..) => 2,
        }
    }
}

/// Facts about the block being paired.
struct Facts {
    /// Block position of each value defined in the block.
    def_at: BTreeMap<VReg, usize>,
    /// Block positions reading each value.
    uses_at: BTreeMap<VReg, Vec<usize>>,
    /// Values a terminator reads (anywhere): they stay single.
    in_terms: BTreeSet<VReg>,
    /// Bits of half constants (unpredicated `mov_imm` into an H value).
    consts: BTreeMap<VReg, u16>,
    /// For each position, the earlier positions it depends on (bit sets).
    reach: Vec<Vec<u64>>,
    /// Positions whose instruction could write its 16-bit result into a packed value.
    writes_half: Vec<bool>,
}

impl Facts {
    fn new(m: &MFunction, b: Block) -> Facts {
        let insts = &m.blocks[b].insts;
        let mut f = Facts {
            def_at: BTreeMap::new(),
            uses_at: BTreeMap::new(),
            in_terms: BTreeSet::new(),
            consts: BTreeMap::new(),
            reach: Vec::new(),
            writes_half: insts.iter().map(|i| writes_half(m, i)).collect(),
        };
        for &x in &m.order {
            f.in_terms.extend(m.blocks[x].term.uses());
            for i in &m.blocks[x].insts {
                if let (Opcode::MovImm, Some(d), None, None) = (i.op, i.dst, i.pred, i.ins) {
                    if m.vregs[d].class == RegClass::H {
                        f.consts.insert(d, i.imm.unwrap_or(0) as u16);
                    }
                }
            }
        }
        let words = insts.len().div_ceil(64);
        for (k, i) in insts.iter().enumerate() {
            let mut r = vec![0u64; words];
            for u in i.uses() {
                f.uses_at.entry(u).or_default().push(k);
                if let Some(&j) = f.def_at.get(&u) {
                    r[j / 64] |= 1 << (j % 64);
                    for (w, x) in r.iter_mut().zip(&f.reach[j]) {
                        *w |= x;
                    }
                }
            }
            f.reach.push(r);
            if let Some(d) = i.dst {
                f.def_at.insert(d, k);
            }
        }
        f
    }

    /// Whether the instruction at `later` depends on the one at `earlier`.
    fn depends(&self, later: usize, earlier: usize) -> bool {
        self.reach[later][earlier / 64] >> (earlier % 64) & 1 == 1
    }
}

/// Whether `i` writes a 16-bit result that it could write into the whole
/// register (zero-extended) or into the high half instead. Constants are
/// left out: they are shared by the single operations of a block, and
/// constant pairs get a `mov_imm` of their own.
fn writes_half(m: &MFunction, i: &MInst) -> bool {
    use Opcode::*;
    matches!(i.op, Hadd | Hsub | Hmul | Hma | CvtF32ToF16 | DeviceLoadU16 | LocalLoadU16 | Mov)
        && i.pred.is_none()
        && i.ins.is_none()
        && i.spill.is_none()
        && i.src_halves.is_empty()
        && i.dst.is_some_and(|d| m.vregs[d].class == RegClass::H && m.vregs[d].fixed.is_none())
}

/// The instruction at `at` as a pairing candidate.
fn candidate(m: &MFunction, f: &Facts, at: usize, i: &MInst) -> Option<Cand> {
    let half_srcs = i.srcs.iter().all(|&s| m.vregs[s].class == RegClass::H);
    if i.pred.is_some() || i.ins.is_some() || i.spill.is_some() || !i.src_halves.is_empty() || !half_srcs {
        return None;
    }
    let dst = i.dst.filter(|&d| m.vregs[d].class == RegClass::H && !f.in_terms.contains(&d))?;
    let arg = |s: VReg| (Some(s), f.consts.get(&s).copied());
    let (op, args) = match i.op {
        Opcode::Hadd => (Opcode::Hadd2, i.srcs.iter().map(|&s| arg(s)).collect()),
        Opcode::Hmul => (Opcode::Hmul2, i.srcs.iter().map(|&s| arg(s)).collect()),
        Opcode::Hma => (Opcode::Hma2, i.srcs.iter().map(|&s| arg(s)).collect()),
        // x - k is x + (-k): only with a constant k, negated by its sign bit.
        Opcode::Hsub => {
            let k = *f.consts.get(i.srcs.get(1)?)?;
            (Opcode::Hadd2, vec![arg(i.srcs[0]), (None, Some(k ^ 0x8000))])
        }
        _ => return None,
    };
    Some(Cand { at, op, dst, args })
}

/// What has been decided in the block so far.
#[derive(Default)]
struct Decisions {
    /// Packed values available: (low, high) operand -> (value, position from which it exists).
    pairs: BTreeMap<(Opnd, Opnd), (VReg, usize)>,
    /// 16-bit values that are now a half of a packed value (or gone).
    claimed: BTreeSet<VReg>,
    /// Positions whose single operation is gone (the first of a pair).
    delete: BTreeSet<usize>,
    /// Positions whose single operation becomes a packed one (the second of a pair).
    replace: BTreeMap<usize, MInst>,
    /// Instructions to insert before a position (materialized operands).
    before: BTreeMap<usize, Vec<MInst>>,
    /// Instructions to insert after a position (a broadcast's half move).
    after: BTreeMap<usize, Vec<MInst>>,
    /// Definitions rewritten to write a packed value: position -> (value, the value it completes).
    retarget: BTreeMap<usize, (VReg, Option<VReg>)>,
    /// After a position, 16-bit values that live in a half of a packed value from there on.
    homes: BTreeMap<usize, Vec<(VReg, VReg, Half)>>,
}

type Arg = (Option<VReg>, Option<u16>);

impl Decisions {
    /// Whether `v` can still be written into a packed value where it is defined.
    fn movable(&self, f: &Facts, v: VReg) -> bool {
        !self.claimed.contains(&v) && !f.in_terms.contains(&v) && f.def_at.get(&v).is_some_and(|&d| f.writes_half[d])
    }

    /// How to make the packed operand (`lo`, `hi`) for a packed op at `at`
    /// (with `copies`, broadcasts and moves are allowed).
    fn plan(&self, f: &Facts, at: usize, lo: Arg, hi: Arg, copies: bool) -> Option<Plan> {
        let ready = |l: Opnd, h: Opnd| self.pairs.get(&(l, h)).filter(|&&(_, from)| from <= at).map(|&(v, _)| Plan::Ready(v));
        if let (Some(kl), Some(kh)) = (lo.1, hi.1) {
            return Some(ready(Opnd::Const(kl), Opnd::Const(kh)).unwrap_or(Plan::Const(u32::from(kl) | u32::from(kh) << 16)));
        }
        let (l, h) = (lo.0?, hi.0?);
        if let Some(p) = ready(Opnd::Reg(l), Opnd::Reg(h)) {
            return Some(p);
        }
        let plan = if l == h {
            if self.movable(f, l) {
                Plan::Splat(l)
            } else {
                Plan::Moves(l, l)
            }
        } else if self.movable(f, l) && self.movable(f, h) && f.def_at[&l] < f.def_at[&h] {
            Plan::Gather(l, h)
        } else {
            Plan::Moves(l, h)
        };
        (copies || matches!(plan, Plan::Gather(..))).then_some(plan)
    }

    /// Makes the packed operand `p` for a packed op at `at` (recording it for reuse).
    fn make(&mut self, m: &mut MFunction, f: &Facts, (at, span): (usize, crate::diag::Span), p: Plan, (lo, hi): (Arg, Arg)) -> VReg {
        let key = |a: Arg| a.0.map(Opnd::Reg).or(a.1.map(Opnd::Const)).expect("a planned operand");
        let uniform = |m: &MFunction, a: Arg| a.0.is_none_or(|v| m.vregs[v].uniform);
        if let Plan::Ready(v) = p {
            return v;
        }
        let packed = m.new_vreg(RegClass::V, uniform(m, lo) && uniform(m, hi));
        match p {
            Plan::Ready(_) => {}
            Plan::Const(bits) => {
                let mut i = MInst::new(Opcode::MovImm, Some(packed), vec![], span);
                i.imm = Some(bits);
                let h = |b: u32| half::f16::from_bits(b as u16).to_f32();
                i.note = Some(format!("half2({:?}, {:?})", h(bits), h(bits >> 16)));
                self.before.entry(at).or_default().push(i);
                self.pairs.insert((Opnd::Const(lo.1.unwrap_or(0)), Opnd::Const(hi.1.unwrap_or(0))), (packed, at));
                return packed;
            }
            Plan::Gather(l, h) => {
                let first = m.new_vreg(RegClass::V, m.vregs[l].uniform);
                let (dl, dh) = (f.def_at[&l], f.def_at[&h]);
                self.retarget.insert(dl, (first, None));
                self.retarget.insert(dh, (packed, Some(first)));
                self.homes.entry(dl).or_default().push((l, first, Half::Lo));
                self.homes.entry(dh).or_default().extend([(l, packed, Half::Lo), (h, packed, Half::Hi)]);
                self.claimed.extend([l, h]);
                self.pairs.insert((Opnd::Reg(l), Opnd::Reg(h)), (packed, dh));
            }
            Plan::Splat(v) => {
                let first = m.new_vreg(RegClass::V, m.vregs[v].uniform);
                let d = f.def_at[&v];
                self.retarget.insert(d, (first, None));
                let mut mv = MInst::new(Opcode::Mov, Some(packed), vec![first, first], span);
                mv.src_halves = vec![Some(Half::Lo)];
                mv.ins = Some(Half::Hi);
                self.after.entry(d).or_default().push(mv);
                self.homes.entry(d).or_default().push((v, packed, Half::Lo));
                self.claimed.insert(v);
                self.pairs.insert((Opnd::Reg(v), Opnd::Reg(v)), (packed, d));
            }
            Plan::Moves(l, h) => {
                let first = m.new_vreg(RegClass::V, m.vregs[l].uniform);
                let low = MInst::new(Opcode::Mov, Some(first), vec![l], span);
                let mut high = MInst::new(Opcode::Mov, Some(packed), vec![h, first], span);
                high.ins = Some(Half::Hi);
                self.before.entry(at).or_default().extend([low, high]);
                self.pairs.insert((key(lo), key(hi)), (packed, at));
            }
        }
        packed
    }
}

/// Pairs the 16-bit operations of block `b`; returns the packed ops made.
fn pair_block(m: &mut MFunction, b: Block, copies: bool) -> u32 {
    let n = m.blocks[b].insts.len();
    if n > MAX_BLOCK {
        return 0;
    }
    let f = Facts::new(m, b);
    let cands: Vec<Cand> = m.blocks[b].insts.iter().enumerate().filter_map(|(k, i)| candidate(m, &f, k, i)).collect();
    let mut d = Decisions::default();
    let mut paired = vec![false; cands.len()];
    let mut made = 0;
    for c1 in 0..cands.len() {
        let a = &cands[c1];
        if paired[c1] || d.claimed.contains(&a.dst) {
            continue;
        }
        // The first result moves to the second's position: nothing may read it in between.
        let mut best: Option<((u32, bool), usize)> = None;
        for (c2, b2) in cands.iter().enumerate().skip(c1 + 1) {
            if paired[c2] || b2.op != a.op || b2.args.len() != a.args.len() || d.claimed.contains(&b2.dst) || f.depends(b2.at, a.at) {
                continue;
            }
            if f.uses_at.get(&a.dst).is_some_and(|us| us.iter().any(|&u| u <= b2.at)) {
                break;
            }
            let plans: Option<Vec<Plan>> = a.args.iter().zip(&b2.args).map(|(&lo, &hi)| d.plan(&f, b2.at, lo, hi, copies)).collect();
            let Some(plans) = plans else { continue };
            // Cheapest operands first, then the same source line (the
            // components of one vector operation), then the nearest.
            let cost: u32 = plans.iter().map(|p| p.cost()).sum();
            let rank = (cost, m.blocks[b].insts[b2.at].span != m.blocks[b].insts[a.at].span);
            if cost <= 1 && best.is_none_or(|(r, _)| rank < r) {
                best = Some((rank, c2));
            }
        }
        let Some((_, c2)) = best else { continue };
        let (a, b2) = (&cands[c1], &cands[c2]);
        let span = m.blocks[b].insts[b2.at].span;
        // Plans were made against the decisions before this pair; a gather or
        // broadcast made for one operand may serve the next: plan again in turn.
        let mut srcs = Vec::new();
        for (&lo, &hi) in a.args.iter().zip(&b2.args) {
            let Some(p) = d.plan(&f, b2.at, lo, hi, copies) else { return 0 };
            srcs.push(d.make(m, &f, (b2.at, span), p, (lo, hi)));
        }
        let packed = m.new_vreg(RegClass::V, m.vregs[a.dst].uniform && m.vregs[b2.dst].uniform);
        d.replace.insert(b2.at, MInst::new(a.op, Some(packed), srcs, span));
        d.delete.insert(a.at);
        d.homes.entry(b2.at).or_default().extend([(a.dst, packed, Half::Lo), (b2.dst, packed, Half::Hi)]);
        d.claimed.extend([a.dst, b2.dst]);
        d.pairs.insert((Opnd::Reg(a.dst), Opnd::Reg(b2.dst)), (packed, b2.at));
        paired[c1] = true;
        paired[c2] = true;
        made += 1;
    }
    if made > 0 {
        rewrite(m, b, d);
        remove_dead_constants(m);
    }
    made
}

/// Reads `inst`'s sources that now live in halves from those halves.
fn redirect(inst: &mut MInst, homes: &BTreeMap<VReg, (VReg, Half)>) {
    for k in 0..inst.srcs.len() {
        if let Some(&(v, h)) = homes.get(&inst.srcs[k]) {
            inst.srcs[k] = v;
            if inst.src_halves.len() <= k {
                inst.src_halves.resize(k + 1, None);
            }
            inst.src_halves[k] = Some(h);
        }
    }
}

/// Applies the decisions to block `b`, and the final homes to every other block.
fn rewrite(m: &mut MFunction, b: Block, mut d: Decisions) {
    let old = std::mem::take(&mut m.blocks[b].insts);
    let mut homes: BTreeMap<VReg, (VReg, Half)> = BTreeMap::new();
    let mut out = Vec::with_capacity(old.len());
    for (k, mut inst) in old.into_iter().enumerate() {
        for mut x in d.before.remove(&k).unwrap_or_default() {
            redirect(&mut x, &homes);
            out.push(x);
        }
        if let Some(p) = d.replace.remove(&k) {
            out.push(p);
        } else if !d.delete.contains(&k) {
            redirect(&mut inst, &homes);
            if let Some(&(v, merge)) = d.retarget.get(&k) {
                inst.dst = Some(v);
                if let Some(first) = merge {
                    inst.srcs.push(first);
                    inst.ins = Some(Half::Hi);
                }
            }
            out.push(inst);
        }
        for (h, v, half) in d.homes.remove(&k).unwrap_or_default() {
            homes.insert(h, (v, half));
        }
        out.extend(d.after.remove(&k).unwrap_or_default());
    }
    m.blocks[b].insts = out;
    for x in m.order.clone() {
        if x != b {
            for inst in &mut m.blocks[x].insts {
                redirect(inst, &homes);
            }
        }
    }
}

/// Drops half constants nothing reads any more (the operands of paired ops).
fn remove_dead_constants(m: &mut MFunction) {
    let mut read = BTreeSet::new();
    for &b in &m.order {
        read.extend(m.blocks[b].term.uses());
        for i in &m.blocks[b].insts {
            read.extend(i.uses());
        }
    }
    for b in m.order.clone() {
        m.blocks[b].insts.retain(|i| {
            let dead = i.op == Opcode::MovImm && i.dst.is_some_and(|v| m.vregs[v].class == RegClass::H && !read.contains(&v));
            !dead
        });
    }
}
