//! Constants once per block (`share-constants`): selection and the IR's
//! `sink` make a constant's `mov_imm` next to each use (address offsets,
//! shift amounts, masks), so that no register holds it across code that
//! does not need it. Where the registers are there, that is an instruction
//! per use for nothing: the later copies of a constant in a block read the
//! first instead, block by block, as long as the pressure peak stays within
//! `room` (the budget, or the registers the occupancy allows). Where it
//! would not, the copies stay (and under a budget the allocator still
//! rematerializes a shared constant where it must spill).

use super::mir::*;
use crate::ir::Block;
use std::collections::BTreeMap;

/// Trials of one block's sharing (each measures the peak of the whole function).
const MAX_TRIALS: usize = 32;

/// Shares repeated constants in the blocks of `m` while MaxLive stays
/// within `room`; returns the copies removed.
pub fn run(m: &mut MFunction, room: u32) -> u32 {
    if crate::liveness::pressure::max_live(m) > room || m.is_ssa().is_err() {
        return 0;
    }
    let mut removed = 0;
    let mut trials = 0;
    for b in m.order.clone() {
        let copies = repeats(m, b);
        if copies.is_empty() {
            continue;
        }
        if trials == MAX_TRIALS {
            break;
        }
        trials += 1;
        let mut trial = m.clone();
        let n = share(&mut trial, b, &copies);
        if crate::liveness::pressure::max_live(&trial) <= room {
            *m = trial;
            removed += n;
        }
    }
    removed
}

/// A plain `mov_imm` of a V register.
fn constant(m: &MFunction, i: &MInst) -> Option<u32> {
    (i.op == Opcode::MovImm && i.is_plain() && i.dst.is_some_and(|d| m.vregs[d].class == RegClass::V)).then_some(i.imm.unwrap_or(0))
}

/// The later copies of each constant in `b`, with the first copy they become.
fn repeats(m: &MFunction, b: Block) -> BTreeMap<VReg, VReg> {
    let mut first: BTreeMap<u32, VReg> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for inst in &m.blocks[b].insts {
        let (Some(c), Some(d)) = (constant(m, inst), inst.dst) else { continue };
        match first.get(&c) {
            Some(&f) => {
                out.insert(d, f);
            }
            None => {
                first.insert(c, d);
            }
        }
    }
    out
}

/// Removes the copies of `b` and renames their reads everywhere; returns how many.
fn share(m: &mut MFunction, b: Block, copies: &BTreeMap<VReg, VReg>) -> u32 {
    let before = m.blocks[b].insts.len();
    m.blocks[b].insts.retain(|i| !i.dst.is_some_and(|d| copies.contains_key(&d)));
    let removed = (before - m.blocks[b].insts.len()) as u32;
    let rename = |v: &mut VReg| {
        if let Some(&f) = copies.get(v) {
            *v = f;
        }
    };
    for blk in m.order.clone() {
        let block = &mut m.blocks[blk];
        for inst in block.insts.iter_mut() {
            inst.srcs.iter_mut().for_each(rename);
        }
        if let MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } = &mut block.term {
            args.iter_mut().for_each(rename);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Isa;

    const TWICE: &str = "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 4
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = load.device.i32 [v4]
      v6:i32 = iconst 4
      v7:i32 = iadd v5, v6
      store.device [v4], v7
      return
}
";

    fn movs(m: &MFunction) -> usize {
        m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.op == Opcode::MovImm).count()
    }

    #[test]
    fn a_block_makes_each_constant_once_where_registers_allow() {
        let mut m = crate::codegen::select_text(TWICE, Isa::Wave, 64);
        let before = movs(&m);
        let peak = crate::liveness::pressure::max_live(&m);
        assert_eq!(run(&mut m, peak + 1), 1);
        assert_eq!(movs(&m), before - 1);
        m.is_ssa().expect("still SSA");
        crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(Isa::Wave, 64)).expect("allocates and checks");
    }

    /// The constant 4 at the start and again after three loads that are
    /// live together: one copy would be live across the peak.
    const ACROSS: &str = "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 4
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = load.device.i32 [v4]
      v6:i32 = load.device.i32 [v0]
      v7:i32 = load.device.i32 [v3]
      v8:i32 = iadd v5, v6
      v9:i32 = iadd v8, v7
      v10:i32 = iconst 4
      v11:i32 = iadd v9, v10
      store.device [v4], v11
      return
}
";

    #[test]
    fn no_sharing_that_raises_the_peak_past_the_room() {
        let mut m = crate::codegen::select_text(ACROSS, Isa::Wave, 64);
        let peak = crate::liveness::pressure::max_live(&m);
        let mut shared = m.clone();
        assert_eq!(run(&mut shared, u32::MAX), 1);
        let raised = crate::liveness::pressure::max_live(&shared);
        assert!(raised > peak, "sharing lengthens the constant across the peak: {raised} vs {peak}");
        assert_eq!(run(&mut m, peak), 0, "sharing would need {raised} registers, {peak} allowed");
    }
}
