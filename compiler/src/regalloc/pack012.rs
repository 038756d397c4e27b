//! 16-bit packing on wave-0.1.2 (`pack16`), whose tools ignore register
//! halves: two 16-bit values share a register through bit-field code.
//!
//! Selection keeps each 16-bit value zero-extended in a V register of its own
//! (`VRegInfo::narrow`). While MaxLive exceeds the budget, two narrow values
//! live at the pressure peak and defined in one block are packed right after
//! the later definition, `p = bfi a, b, 16, 16` (b's low 16 bits above a's),
//! and each use after that reads a fresh copy, `and a', p, 0xffff` or
//! `shr b', p, 16`, which lives for one instruction. A pack is kept only if it
//! lowers MaxLive: every copy costs two instructions, so packing pays only
//! where the alternative is spilling, and without a budget to meet the
//! values keep a register each. What packing leaves over the budget is
//! spilled as usual.
//!
//! Every use after the pack is dominated by it (SSA: uses outside the block
//! are in blocks it dominates), so the rewrite is local to each use.

use crate::codegen::mir::*;
use crate::diag::Span;
use crate::ir::Block;
use crate::liveness::pressure;
use crate::liveness::{definitions, Liveness};

/// Most candidate pairs tried (each try recomputes liveness).
const MAX_TRIES: usize = 64;

/// Packs pairs of narrow values of `m` until MaxLive fits `budget` or no pair
/// lowers it; returns how many pairs were packed.
pub fn pack(m: &mut MFunction, budget: u32) -> u32 {
    let (mut packs, mut tries) = (0, 0);
    loop {
        let live = Liveness::compute(m);
        let (max, peak) = pressure::peak(m, &live);
        let Some(peak) = peak.filter(|_| max > budget) else { return packs };
        let defs = definitions(m);
        let pos = |b: Block| m.order.iter().position(|&x| x == b).unwrap_or(usize::MAX);
        let mut cands: Vec<(usize, usize, VReg)> = peak
            .set
            .iter()
            .filter(|&&v| m.vregs[v].narrow && m.vregs[v].fixed.is_none())
            .filter_map(|&v| match defs[v] {
                Some((b, Some(i))) => Some((pos(b), i, v)),
                _ => None,
            })
            .collect();
        cands.sort_unstable();
        let mut better = None;
        'pairs: for (x, &(b1, _, lo)) in cands.iter().enumerate() {
            for &(b2, at, hi) in &cands[x + 1..] {
                if b1 != b2 {
                    continue;
                }
                tries += 1;
                if tries > MAX_TRIES {
                    break 'pairs;
                }
                let mut trial = m.clone();
                pack_pair(&mut trial, m.order[b1], at, lo, hi);
                let (after, _) = pressure::peak(&trial, &Liveness::compute(&trial));
                if after < max {
                    better = Some(trial);
                    break 'pairs;
                }
            }
        }
        match better {
            Some(t) => {
                *m = t;
                packs += 1;
            }
            None => return packs,
        }
    }
}

/// Instructions of `m`, each weighted by 10 per enclosing loop (as spill
/// code is counted).
pub fn weighted_size(m: &MFunction) -> Result<u64, super::Diagnostic> {
    let regions = super::regions::Regions::compute(m).map_err(super::internal)?;
    Ok(m.order.iter().map(|&b| regions.weight(b) * m.blocks[b].insts.len() as u64).sum())
}

fn imm(m: &mut MFunction, bits: u32, span: Span, out: &mut Vec<MInst>) -> VReg {
    let c = m.new_vreg(RegClass::V, true);
    let mut i = MInst::new(Opcode::MovImm, Some(c), vec![], span);
    i.imm = Some(bits);
    out.push(i);
    c
}

/// Packs `lo` and `hi` after instruction `at` of `b` (where the later of the
/// two is defined) and rewrites every later use to read a copy.
fn pack_pair(m: &mut MFunction, b: Block, at: usize, lo: VReg, hi: VReg) {
    let span = m.blocks[b].insts[at].span;
    let mut code = Vec::new();
    let c16 = imm(m, 16, span, &mut code);
    let p = m.new_vreg(RegClass::V, m.vregs[lo].uniform && m.vregs[hi].uniform);
    // `lo | hi << 16` (both zero-extended): not `bfi`, whose operands the
    // published backends read in another order than wave-emu (docs/backends.md).
    let up = m.new_vreg(RegClass::V, m.vregs[hi].uniform);
    code.push(MInst::new(Opcode::Shl, Some(up), vec![hi, c16], span));
    code.push(MInst::new(Opcode::Or, Some(p), vec![lo, up], span));
    let start = at + 1 + code.len();
    m.blocks[b].insts.splice(at + 1..at + 1, code);
    // A copy of `v` from the pack, appended to `out`.
    let copy = |m: &mut MFunction, v: VReg, span: Span, out: &mut Vec<MInst>| -> VReg {
        let (bits, op) = if v == lo { (0xffff, Opcode::And) } else { (16, Opcode::Shr) };
        let c = imm(m, bits, span, out);
        let t = m.new_vreg(RegClass::V, m.vregs[p].uniform);
        m.vregs[t].narrow = true;
        out.push(MInst::new(op, Some(t), vec![p, c], span));
        t
    };
    for bb in m.order.clone() {
        let first = if bb == b { start } else { 0 };
        let insts = std::mem::take(&mut m.blocks[bb].insts);
        let mut out = Vec::with_capacity(insts.len());
        for (i, mut inst) in insts.into_iter().enumerate() {
            if i >= first {
                for v in [lo, hi] {
                    if inst.srcs.contains(&v) {
                        let t = copy(m, v, inst.span, &mut out);
                        inst.srcs.iter_mut().filter(|s| **s == v).for_each(|s| *s = t);
                    }
                }
            }
            out.push(inst);
        }
        // Edge arguments read at the end of the block.
        let span = m.blocks[bb].term_span;
        for v in [lo, hi] {
            if m.blocks[bb].term.uses().contains(&v) {
                let t = copy(m, v, span, &mut out);
                match &mut m.blocks[bb].term {
                    MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } => {
                        args.iter_mut().filter(|a| **a == v).for_each(|a| *a = t)
                    }
                    MTerm::If { .. } | MTerm::Return | MTerm::None => {}
                }
            }
        }
        m.blocks[bb].insts = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Isa;

    /// Six 16-bit loads live together, then each stored twice.
    const SIX: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v2:i16 = load.device.i16 [v0]
      v3:i16 = load.device.i16 [v0]
      v4:i16 = load.device.i16 [v0]
      v5:i16 = load.device.i16 [v0]
      v6:i16 = load.device.i16 [v0]
      v7:i16 = load.device.i16 [v0]
      store.device [v0], v2
      store.device [v0], v3
      store.device [v0], v4
      store.device [v0], v5
      store.device [v0], v6
      store.device [v0], v7
      store.device [v0], v7
      return
}
";

    fn select() -> MFunction {
        let f = crate::ir::parse_function(SIX).expect("parses");
        let uniform = crate::passes::uniformity::analyze(&f);
        crate::codegen::select(&f, Isa::Wave012, &uniform, true).expect("selects")
    }

    #[test]
    fn packs_only_while_over_the_budget() {
        let mut m = select();
        let (before, _) = pressure::peak(&m, &Liveness::compute(&m));
        assert_eq!(before, 7);
        assert_eq!(pack(&mut m.clone(), 7), 0, "nothing to gain at the budget");
        let n = pack(&mut m, 4);
        let (after, _) = pressure::peak(&m, &Liveness::compute(&m));
        assert!(n >= 1 && after < before, "{n} packs, MaxLive {after}");
        m.is_ssa().expect("still SSA");
        let packs = m.blocks[m.entry].insts.iter().filter(|i| i.op == Opcode::Or).count();
        assert_eq!(packs as u32, n);
        assert!(m.blocks[m.entry].insts.iter().all(|i| i.op != Opcode::Bfi), "no bfi on wave-0.1.2");
        // Every store reads a copy made just before it, never a packed original.
        let packed: Vec<VReg> =
            m.blocks[m.entry].insts.iter().filter(|i| matches!(i.op, Opcode::Or | Opcode::Shl)).map(|i| i.srcs[0]).collect();
        let stores = m.blocks[m.entry].insts.iter().filter(|i| i.op == Opcode::DeviceStoreU16);
        assert!(stores.clone().all(|s| !packed.contains(&s.srcs[1])));
        assert_eq!(stores.count(), 7);
    }
}
