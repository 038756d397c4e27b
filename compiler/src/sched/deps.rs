//! The dependences inside one block: which instructions must stay before
//! which, and after how many cycles a result is ready.
//!
//! Data: a use after its definition (the definition's latency). Memory: each
//! instruction with an effect (store, atomic, barrier, fence) keeps its place
//! among the others; a load stays between the effects on its memory (device or
//! local) around it, and barriers and fences order both memories.

use crate::codegen::mir::*;
use crate::target::Latencies;
use std::collections::HashMap;

/// Which memory an instruction touches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Space {
    Device,
    Local,
    /// Barriers and fences: every memory.
    Both,
}

/// What an instruction does to memory, if anything.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Access {
    None,
    Load(Space),
    Effect(Space),
}

fn access(op: Opcode) -> Access {
    use Opcode::*;
    match op {
        DeviceLoadU32 | DeviceLoadU16 | DeviceLoadU64 | DeviceLoadU128 => Access::Load(Space::Device),
        LocalLoadU32 | LocalLoadU16 => Access::Load(Space::Local),
        DeviceStoreU32 | DeviceStoreU16 | DeviceStoreU64 | DeviceStoreU128 => Access::Effect(Space::Device),
        LocalStoreU32 | LocalStoreU16 => Access::Effect(Space::Local),
        Atomic { local: true, .. } => Access::Effect(Space::Local),
        Atomic { local: false, .. } => Access::Effect(Space::Device),
        Barrier | Fence(_) => Access::Effect(Space::Both),
        // Allocation's own instructions never reach the scheduler; keep them in place if they do.
        BankWrite(_) | BankRead(_) | BitsInit(_) | BitsWrite(_) | BitsRead(_) => Access::Effect(Space::Both),
        _ => Access::None,
    }
}

fn overlaps(a: Space, b: Space) -> bool {
    a == b || a == Space::Both || b == Space::Both
}

/// Cycles from issuing `op` until its result can be read, from the machine model.
pub fn latency(op: Opcode, l: &Latencies) -> u32 {
    use Opcode::*;
    match op {
        DeviceLoadU32 | DeviceLoadU16 | DeviceLoadU64 | DeviceLoadU128 => l.memory_pipeline + l.device,
        LocalLoadU32 | LocalLoadU16 => l.local,
        Atomic { local: true, .. } => l.local + l.atomic,
        Atomic { local: false, .. } => l.memory_pipeline + l.device + l.atomic,
        Fdiv | Fsqrt | Frsqrt | Frcp | Fsin | Fcos | Fexp2 | Flog2 | Idiv | Imod | Ddiv | Dsqrt => l.sfu,
        Fadd | Fsub | Fmul | Fma | Fneg | Fabs | Ftrunc | Ffloor | Fceil | Ffract | Fsat | Fmin | Fmax | Dadd | Dsub | Dmul | Dma
        | CvtI32ToF32 | CvtU32ToF32 | CvtF32ToI32 | CvtF32ToU32 | CvtF16ToF32 | CvtF32ToF16 | CvtF32ToF64 | CvtF64ToF32 => l.fpu,
        Mov | MovImm | MovSpecial | Join | Word | Tuple => l.mov,
        WaveReduce(_) | WavePrefixSum | WaveBallot | WaveBroadcast | WaveShuffle => l.wave,
        Barrier | Fence(_) => l.control,
        _ => l.alu,
    }
    .max(1)
}

/// The dependence graph of a block's instructions (indices into `insts`).
pub struct Deps {
    /// For each instruction, the ones that must issue before it, with the
    /// cycles that must pass between the two issues.
    pub preds: Vec<Vec<(usize, u32)>>,
    pub succs: Vec<Vec<(usize, u32)>>,
    /// Per instruction, cycles until its result is ready (0: no result).
    pub result: Vec<u32>,
    /// Instructions that emit no code (`Split`): they take no issue cycle.
    pub free: Vec<bool>,
}

impl Deps {
    pub fn build(insts: &[MInst], lat: &Latencies) -> Deps {
        let n = insts.len();
        let mut preds: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        // The block's definitions (a map, not a table of the function's values:
        // one per block would make scheduling quadratic in the kernel's size).
        let mut def_at: HashMap<VReg, usize> = HashMap::new();
        // Memory state while walking forward: the last effect, and the loads since it.
        let mut last_effect: Vec<(usize, Space)> = Vec::new();
        let mut loads_since: Vec<(usize, Space)> = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            for u in inst.uses() {
                if let Some(&j) = def_at.get(&u) {
                    preds[i].push((j, latency(insts[j].op, lat)));
                }
            }
            match access(inst.op) {
                Access::None => {}
                Access::Load(s) => {
                    // After the latest effect on its memory (a read after a write).
                    if let Some(&(j, _)) = last_effect.iter().rev().find(|(_, t)| overlaps(*t, s)) {
                        preds[i].push((j, 1));
                    }
                    loads_since.push((i, s));
                }
                Access::Effect(s) => {
                    // Effects keep their order; loads of the memory stay before a later write.
                    if let Some(&(j, _)) = last_effect.last() {
                        preds[i].push((j, 1));
                    }
                    for &(j, t) in &loads_since {
                        if overlaps(t, s) {
                            preds[i].push((j, 1));
                        }
                    }
                    loads_since.retain(|&(_, t)| !overlaps(t, s));
                    last_effect.push((i, s));
                }
            }
            match (inst.dst, inst.split_of.and_then(|t| def_at.get(&t).copied())) {
                // A split word is ready when its wide load's result is.
                (Some(d), Some(load)) if inst.op == Opcode::Split => {
                    def_at.insert(d, load);
                }
                (Some(d), _) => {
                    def_at.insert(d, i);
                }
                (None, _) => {}
            }
        }
        let mut succs: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        for (i, ps) in preds.iter_mut().enumerate() {
            ps.sort_unstable();
            ps.dedup_by_key(|p| p.0);
            for &(j, l) in ps.iter() {
                succs[j].push((i, l));
            }
        }
        let result = insts.iter().map(|i| if i.dst.is_some() { latency(i.op, lat) } else { 0 }).collect();
        let free = insts.iter().map(|i| i.op == Opcode::Split).collect();
        Deps { preds, succs, result, free }
    }

    /// Longest latency path from each instruction to the block's end (its
    /// own latency included): the critical path that list scheduling favours.
    pub fn heights(&self, insts: &[MInst], lat: &Latencies) -> Vec<u32> {
        let n = insts.len();
        let mut h = vec![0u32; n];
        for i in (0..n).rev() {
            let own = latency(insts[i].op, lat);
            h[i] = self.succs[i].iter().map(|&(s, l)| l + h[s]).max().unwrap_or(own).max(own);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;

    fn lat() -> Latencies {
        crate::target::preset("generic").unwrap().latency
    }

    #[test]
    fn loads_stay_between_the_stores_to_their_memory() {
        let mut m = MFunction::default();
        let a = m.new_vreg(RegClass::V, false);
        let x = m.new_vreg(RegClass::V, false);
        let y = m.new_vreg(RegClass::V, false);
        let s = Span::default();
        let insts = vec![
            MInst::new(Opcode::DeviceStoreU32, None, vec![a, a], s),
            MInst::new(Opcode::LocalLoadU32, Some(x), vec![a], s),
            MInst::new(Opcode::DeviceLoadU32, Some(y), vec![a], s),
            MInst::new(Opcode::LocalStoreU32, None, vec![a, x], s),
        ];
        let d = Deps::build(&insts, &lat());
        // The local load does not wait for the device store; the device load does.
        assert!(d.preds[1].is_empty());
        assert_eq!(d.preds[2].iter().map(|p| p.0).collect::<Vec<_>>(), vec![0]);
        // The local store follows the device store (effects keep their order) and reads x.
        assert_eq!(d.preds[3].iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn barriers_order_every_memory() {
        let mut m = MFunction::default();
        let a = m.new_vreg(RegClass::V, false);
        let x = m.new_vreg(RegClass::V, false);
        let s = Span::default();
        let insts = vec![
            MInst::new(Opcode::LocalLoadU32, Some(x), vec![a], s),
            MInst::new(Opcode::Barrier, None, vec![], s),
            MInst::new(Opcode::DeviceLoadU32, Some(x), vec![a], s),
        ];
        let d = Deps::build(&insts, &lat());
        assert_eq!(d.preds[1], vec![(0, 1)]);
        assert_eq!(d.preds[2], vec![(1, 1)]);
    }
}
