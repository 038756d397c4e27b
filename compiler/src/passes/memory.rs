//! Memory facts the passes share.
//!
//! * [`Provenance`]: which kernel arguments (buffer addresses) each value may
//!   be derived from, and so which buffers the kernel may write. A load from
//!   a buffer that no store or atomic can reach reads memory that is constant
//!   for the whole dispatch. Addresses are computed from one resource's
//!   address plus offsets (HLSL has no pointers, and buffer handles never go
//!   through memory), so the kernel arguments an address is computed from
//!   include the buffer it points into; an address computed from no kernel
//!   argument at all could point anywhere, and then every buffer counts as
//!   written. Buffers bound to different registers are taken not to overlap.
//! * [`MemOrder`]: whether a store, atomic, barrier or fence may run between
//!   two instructions, for the passes that reuse or move loads.

use super::loops::Loops;
use crate::ir::structure::{block_order, Node};
use crate::ir::*;
use cranelift_entity::SecondaryMap;

/// Kernel arguments a value may derive from: bit `i` for argument `i`, and
/// `ANY` when an argument past 63 is involved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Args(u64);

impl Args {
    const ANY: Args = Args(u64::MAX);

    fn of(index: u32) -> Args {
        if index < 64 {
            Args(1 << index)
        } else {
            Args::ANY
        }
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }
}

pub struct Provenance {
    args: SecondaryMap<Value, Args>,
    /// Kernel arguments whose buffers a store or atomic may write.
    written: Args,
}

impl Provenance {
    /// Computes provenance over the reachable blocks of `f` (`order`: region order).
    pub fn new(f: &Function, order: &[Block]) -> Provenance {
        let mut args: SecondaryMap<Value, Args> = SecondaryMap::new();
        // Users of each value, so that a change propagates along uses only.
        let mut users: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
        let mut work: Vec<Value> = Vec::new();
        for &b in order {
            for &i in &f.blocks[b].insts {
                let Some(r) = f.results[i] else { continue };
                let data = &f.insts[i];
                if let InstData::KernelArg { index } = data {
                    args[r] = Args::of(*index);
                    work.push(r);
                }
                if carries_address(data) {
                    for a in data.args() {
                        users[a].push(r);
                    }
                }
            }
            for (dest, edge) in f.blocks[b].term.edges_with_args() {
                for (&a, &p) in edge.iter().zip(&f.blocks[dest].params) {
                    users[a].push(p);
                }
            }
        }
        while let Some(v) = work.pop() {
            let from = args[v];
            for k in 0..users[v].len() {
                let u = users[v][k];
                let joined = Args(args[u].0 | from.0);
                if joined != args[u] {
                    args[u] = joined;
                    work.push(u);
                }
            }
        }
        let mut written = Args::default();
        for &b in order {
            for &i in &f.blocks[b].insts {
                let addr = match f.insts[i] {
                    InstData::Store { space: MemSpace::Device, addr, .. }
                    | InstData::AtomicRmw { space: MemSpace::Device, addr, .. }
                    | InstData::AtomicCas { space: MemSpace::Device, addr, .. } => addr,
                    _ => continue,
                };
                let a = args[addr];
                written = if a.is_empty() { Args::ANY } else { Args(written.0 | a.0) };
                if written == Args::ANY {
                    break;
                }
            }
        }
        Provenance { args, written }
    }

    /// Whether the device memory at `addr` is never written while the kernel runs.
    pub fn is_read_only(&self, addr: Value) -> bool {
        let a = self.args[addr];
        !a.is_empty() && a != Args::ANY && self.written.0 & a.0 == 0
    }
}

/// Whether the result of `data` may carry an address computed from its operands.
/// Loaded values, compares and atomics' old values never do.
fn carries_address(data: &InstData) -> bool {
    !matches!(
        data,
        InstData::Load { .. }
            | InstData::Cmp { .. }
            | InstData::AtomicRmw { .. }
            | InstData::AtomicCas { .. }
            | InstData::WaveBallot { .. }
            | InstData::WaveVote { .. }
            | InstData::Const { .. }
            | InstData::Special { .. }
    )
}

/// The memory an instruction may write: device, local (both for barriers and fences).
fn writes_of(data: &InstData) -> [bool; 2] {
    match data {
        InstData::Store { space, .. } | InstData::AtomicRmw { space, .. } | InstData::AtomicCas { space, .. } => {
            [*space != MemSpace::Local, *space == MemSpace::Local]
        }
        // Other waves' writes become visible across these.
        InstData::Barrier | InstData::Fence { .. } => [true, true],
        _ => [false, false],
    }
}

fn space_index(space: MemSpace) -> Option<usize> {
    match space {
        MemSpace::Device => Some(0),
        MemSpace::Local => Some(1),
        MemSpace::DeviceReadOnly => None,
    }
}

/// Program positions of instructions and of the writes to each memory space.
pub struct MemOrder {
    seq: SecondaryMap<Inst, u32>,
    /// Positions of writes to device and local memory, ascending.
    writes: [Vec<u32>; 2],
    /// Each loop's positions (by `LoopId`): after the first value, up to the second.
    loop_range: Vec<(u32, u32)>,
}

impl MemOrder {
    pub fn new(f: &Function, nodes: &[Node], loops: &Loops) -> MemOrder {
        let mut seq: SecondaryMap<Inst, u32> = SecondaryMap::new();
        let mut start: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut end: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut writes: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut n = 0u32;
        for b in block_order(nodes) {
            start[b] = n;
            for &i in &f.blocks[b].insts {
                n += 1;
                seq[i] = n;
                let w = writes_of(&f.insts[i]);
                for s in 0..2 {
                    if w[s] {
                        writes[s].push(n);
                    }
                }
            }
            end[b] = n;
        }
        let loop_range = loops
            .loops
            .iter()
            .map(|l| match (l.blocks.first(), l.blocks.last()) {
                (Some(&a), Some(&z)) => (start[a], end[z]),
                _ => (0, 0),
            })
            .collect();
        MemOrder { seq, writes, loop_range }
    }

    /// Whether memory `space` may be written after `from` and before `to`, where
    /// `from` (in block `from_block`) dominates `to` (in `to_block`).
    pub fn written_between(&self, space: MemSpace, from: Inst, from_block: Block, to: Inst, to_block: Block, loops: &Loops) -> bool {
        let Some(s) = space_index(space) else { return false };
        let w = &self.writes[s];
        let any_in = |lo: u32, hi: u32| -> bool {
            // A write with position in [lo, hi].
            let k = w.partition_point(|&x| x < lo);
            k < w.len() && w[k] <= hi
        };
        let (a, b) = (self.seq[from], self.seq[to]);
        if a < b && any_in(a + 1, b - 1) {
            return true;
        }
        // Loops around `to` but not `from` run `to` again after their back edge.
        for l in loops.exited_between(loops.innermost[to_block], from_block) {
            let (lo, hi) = self.loop_range[l];
            if any_in(lo + 1, hi) {
                return true;
            }
        }
        false
    }

    /// Whether memory `space` may be written anywhere in loop `l`.
    pub fn written_in_loop(&self, space: MemSpace, l: usize) -> bool {
        let Some(s) = space_index(space) else { return false };
        let (lo, hi) = self.loop_range[l];
        let w = &self.writes[s];
        let k = w.partition_point(|&x| x <= lo);
        k < w.len() && w[k] <= hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::structure::region_tree;
    use crate::ir::{parse_function, Value};
    use cranelift_entity::EntityRef;

    const TEXT: &str = "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      v2:i32 = special sr_thread_id_x
      v3:i32 = iconst 2
      v4:i32 = shl v2, v3
      v5:i32 = iadd v0, v4
      v6:i32 = load.device.i32 [v5]
      v7:i32 = iadd v1, v4
      v8:i32 = load.device.i32 [v7]
      store.device [v7], v6
      v9:i32 = load.device.i32 [v7]
      v10:i32 = iconst 0
      loop block1(v10) exit block2
    block1(v11:i32):
        v12:i32 = load.device.i32 [v5]
        v13:b1 = icmp uge v11, v12
        break_if v13 to block2() else block3
    block3:
        store.device [v7], v11
        v14:i32 = iadd v11, v3
        jump block1(v14)
  block2:
      v15:i32 = load.device.i32 [v7]
      return
}
";

    fn inst_of(f: &Function, v: usize) -> Inst {
        f.def_inst(Value::new(v)).expect("an instruction")
    }

    #[test]
    fn buffers_the_kernel_never_writes_are_read_only() {
        let f = parse_function(TEXT).expect("parses");
        let order = block_order(&region_tree(&f).expect("structured"));
        let p = Provenance::new(&f, &order);
        assert!(p.is_read_only(Value::new(5)), "argument 0 is only read");
        assert!(!p.is_read_only(Value::new(7)), "argument 1 is stored to");
        // A store through an address made of no argument could write anything.
        let g = parse_function(&TEXT.replace("store.device [v7], v6", "store.device [v3], v6")).expect("parses");
        let p = Provenance::new(&g, &block_order(&region_tree(&g).expect("structured")));
        assert!(!p.is_read_only(Value::new(5)));
    }

    #[test]
    fn writes_between_two_points_and_around_loops() {
        let f = parse_function(TEXT).expect("parses");
        let nodes = region_tree(&f).expect("structured");
        let loops = Loops::new(&f, &nodes);
        let m = MemOrder::new(&f, &nodes, &loops);
        let blocks = f.inst_blocks();
        let between = |a: usize, b: usize| {
            let (ia, ib) = (inst_of(&f, a), inst_of(&f, b));
            m.written_between(MemSpace::Device, ia, blocks[ia].expect("placed"), ib, blocks[ib].expect("placed"), &loops)
        };
        assert!(!between(6, 8), "nothing is stored between the first two loads");
        assert!(between(8, 9), "the store comes between");
        assert!(between(6, 12), "the loop stores after the load inside it, before the next iteration's");
        assert!(between(9, 15), "the loop stores");
        assert!(m.written_in_loop(MemSpace::Device, 0));
        assert!(!m.written_in_loop(MemSpace::Local, 0));
    }
}
