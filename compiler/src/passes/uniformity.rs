//! Uniformity (divergence) analysis: which values are provably the same in
//! every lane that is active where they are defined. Uniform values are
//! candidates for the U class. Each divergent value keeps a witness: the
//! first reason found, which names the value or branch it came from, so that
//! a chain of witnesses leads back to a source (`--explain-uniformity`).
//!
//! Sources of divergence: per-lane special registers (thread and lane ids),
//! loads from memory the kernel writes, atomics' results (each lane gets its
//! own old value), exclusive prefixes (`wave_prefix`), merge parameters of an
//! `if` on a divergent condition, and, for a loop with a divergent exit
//! (lanes leave at different iterations), its exit parameters and every value
//! defined in the loop and used after it (temporal divergence). Inside such a
//! loop the lanes still in it agree on the loop's values: a counter used
//! after the loop is marked divergent (the side table has one entry per
//! value), but what the loop computes from it stays uniform.
//!
//! Sources of uniformity whatever their operands: `wave_reduce`,
//! `wave_ballot`, `wave_any`, `wave_all`, `wave_read_first`, and
//! `wave_read_lane` with a uniform lane. They give one value to every lane
//! that executes them, also inside a divergent `if`. Everything else is
//! uniform if its operands are.
//!
//! Memory (the scalarization half): a load is uniform when its address is
//! uniform and the memory is never written by the kernel: cbuffers and
//! read-only buffers (`device_ro`), and read-write buffers that no store or
//! atomic of the kernel can reach (`memory::Provenance`). Local memory is
//! written by the kernel by construction.
//!
//! The analysis is a worklist over uses, linear in the size of the function
//! plus the uses that leave loops.

use super::loops::Loops;
use super::memory::Provenance;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use cranelift_entity::SecondaryMap;

/// Why a value is divergent (the first reason the analysis found).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// A special register that differs per lane.
    PerLane(SpecialReg),
    /// A load from memory the kernel may write.
    MutableLoad(MemSpace),
    /// An atomic's old value.
    Atomic,
    /// An exclusive prefix.
    Prefix,
    /// An operand is divergent.
    Operand(Value),
    /// `wave_read_lane` with a divergent lane index.
    LaneIndex(Value),
    /// A block parameter that receives a divergent value.
    Incoming(Value),
    /// A merge parameter of an `if` on this divergent condition.
    BranchMerge(Value),
    /// An exit parameter of a loop with this divergent exit condition.
    LoopExit(Value),
    /// Defined in a loop with this divergent exit condition and used after it.
    AfterLoop(Value),
}

impl Why {
    /// The divergent value this reason points to, if any.
    fn from(self) -> Option<Value> {
        match self {
            Why::PerLane(_) | Why::MutableLoad(_) | Why::Atomic | Why::Prefix => None,
            Why::Operand(v) | Why::LaneIndex(v) | Why::Incoming(v) | Why::BranchMerge(v) | Why::LoopExit(v) | Why::AfterLoop(v) => Some(v),
        }
    }

    fn text(self) -> String {
        match self {
            Why::PerLane(r) => format!("{} differs per lane", r.asm_name()),
            Why::MutableLoad(s) => format!("loads {} memory the kernel writes", s.name()),
            Why::Atomic => "an atomic returns each lane's own old value".into(),
            Why::Prefix => "a wave prefix differs per lane".into(),
            Why::Operand(v) => format!("operand {v}"),
            Why::LaneIndex(v) => format!("lane index {v}"),
            Why::Incoming(v) => format!("receives {v}"),
            Why::BranchMerge(c) => format!("merges an if on {c}"),
            Why::LoopExit(c) => format!("leaves a loop whose exit {c} is divergent"),
            Why::AfterLoop(c) => format!("defined in a loop whose exit {c} is divergent, used after it"),
        }
    }
}

/// The result: per value, `None` when uniform, else why it is divergent.
pub struct Uniformity {
    why: SecondaryMap<Value, Option<Why>>,
    /// Values of reachable code (others count as divergent, for safety).
    known: SecondaryMap<Value, bool>,
}

impl Uniformity {
    pub fn is_uniform(&self, v: Value) -> bool {
        self.known[v] && self.why[v].is_none()
    }

    pub fn witness(&self, v: Value) -> Option<Why> {
        self.why[v]
    }

    /// `uniform`, or `divergent: <reason>` (one step).
    pub fn note(&self, v: Value) -> String {
        match self.why[v] {
            None if self.known[v] => "uniform".into(),
            None => "divergent: unreachable".into(),
            Some(w) => format!("divergent: {}", w.text()),
        }
    }

    /// The whole chain of reasons back to a source of divergence.
    pub fn explain(&self, v: Value) -> String {
        let Some(mut w) = self.why[v] else { return self.note(v) };
        let mut out = format!("divergent: {}", w.text());
        // Witnesses point to values marked earlier, so the chain ends.
        let mut steps = 0;
        while let Some(next) = w.from() {
            let Some(nw) = self.why[next] else { break };
            out.push_str(&format!("; {next}: {}", nw.text()));
            w = nw;
            steps += 1;
            if steps > 64 {
                out.push_str("; ...");
                break;
            }
        }
        out
    }

    /// The side table the back end reads: `true` for uniform values.
    pub fn to_map(&self) -> SecondaryMap<Value, bool> {
        let mut m: SecondaryMap<Value, bool> = SecondaryMap::with_default(false);
        for (v, &k) in self.known.iter() {
            if k && self.why[v].is_none() {
                m[v] = true;
            }
        }
        m
    }
}

/// `true` for values proven wave-uniform.
pub fn analyze(f: &Function) -> SecondaryMap<Value, bool> {
    analyze_with_witness(f).to_map()
}

/// Values the same in every wave of a workgroup, `true` for each: kernel
/// arguments, constants, the workgroup's own ids and sizes, loads of memory
/// the kernel never writes at such an address (`uniform` holds the verdict
/// of [`analyze`] on the loads), and pure operations of such values. Wave
/// operations, wave and lane ids and block parameters are not (a merge may
/// differ between waves). The spiller may keep such a value, when it is
/// defined outside loops, in one word of local memory per workgroup: every
/// wave stores the same bits there.
pub fn workgroup_invariant(f: &Function, uniform: &SecondaryMap<Value, bool>) -> SecondaryMap<Value, bool> {
    let mut inv: SecondaryMap<Value, bool> = SecondaryMap::with_default(false);
    let Ok(nodes) = region_tree(f) else { return inv };
    for b in block_order(&nodes) {
        for &i in &f.blocks[b].insts {
            let Some(r) = f.results[i] else { continue };
            let data = &f.insts[i];
            let args_invariant = data.args().into_iter().all(|a| inv[a]);
            inv[r] = match *data {
                InstData::KernelArg { .. } | InstData::Const { .. } => true,
                InstData::Special { reg } => matches!(
                    reg,
                    SpecialReg::WorkgroupId(_)
                        | SpecialReg::WorkgroupSize(_)
                        | SpecialReg::GridSize(_)
                        | SpecialReg::WaveWidth
                        | SpecialReg::NumWaves
                ),
                InstData::Load { space: MemSpace::Device | MemSpace::DeviceReadOnly, .. } => uniform[r] && args_invariant,
                InstData::Unary { .. }
                | InstData::Binary { .. }
                | InstData::Ternary { .. }
                | InstData::Cmp { .. }
                | InstData::Select { .. }
                | InstData::Convert { .. }
                | InstData::Bitcast { .. }
                | InstData::Double { .. }
                | InstData::Pack64 { .. }
                | InstData::Unpack64 { .. } => args_invariant,
                _ => false,
            };
        }
    }
    inv
}

/// A use of a value, for the propagation.
#[derive(Clone, Copy)]
enum User {
    /// An instruction with a result.
    Inst(Inst),
    /// A block parameter receiving the value on an edge.
    Param(Value),
    /// The condition of an `if` whose merge is this block.
    IfCond(Block),
    /// The condition of a `break_if` of this loop.
    Break(usize),
}

/// Uniformity with a witness for every divergent value.
pub fn analyze_with_witness(f: &Function) -> Uniformity {
    let mut u = Uniformity { why: SecondaryMap::new(), known: SecondaryMap::new() };
    let Ok(nodes) = region_tree(f) else {
        // Unstructured input is rejected elsewhere; assume nothing here.
        return u;
    };
    let order = block_order(&nodes);
    let loops = Loops::new(f, &nodes);
    let prov = Provenance::new(f, &order);
    // Uses of each value, with the block where each happens.
    let mut users: SecondaryMap<Value, Vec<(User, Block)>> = SecondaryMap::new();
    let mut def_block: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
    let mut p = Propagation { work: Vec::new(), only_after: SecondaryMap::new() };
    for &b in &order {
        for &q in &f.blocks[b].params {
            u.known[q] = true;
            def_block[q] = Some(b);
        }
        for &i in &f.blocks[b].insts {
            let data = &f.insts[i];
            let Some(r) = f.results[i] else { continue };
            u.known[r] = true;
            def_block[r] = Some(b);
            for a in data.args() {
                users[a].push((User::Inst(i), b));
            }
            let source = match *data {
                InstData::Special { reg } if !reg.is_uniform() => Some(Why::PerLane(reg)),
                InstData::Load { space: MemSpace::Local, .. } => Some(Why::MutableLoad(MemSpace::Local)),
                InstData::Load { space: MemSpace::Device, addr, .. } if !prov.is_read_only(addr) => {
                    Some(Why::MutableLoad(MemSpace::Device))
                }
                InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } => Some(Why::Atomic),
                InstData::WavePrefix { .. } => Some(Why::Prefix),
                _ => None,
            };
            if let Some(w) = source {
                p.mark(&mut u, r, w, None);
            }
        }
        for (dest, args) in f.blocks[b].term.edges_with_args() {
            for (&a, &q) in args.iter().zip(&f.blocks[dest].params) {
                users[a].push((User::Param(q), b));
            }
        }
        if let Terminator::If { cond, merge, .. } = f.blocks[b].term {
            users[cond].push((User::IfCond(merge), b));
        }
    }
    for (l, info) in loops.loops.iter().enumerate() {
        for &b in &info.breaks {
            if let Terminator::BreakIf { cond, .. } = f.blocks[b].term {
                users[cond].push((User::Break(l), b));
            }
        }
    }
    // Values each loop's divergent exit makes divergent: used after the loop.
    let mut escaping: Vec<Vec<Value>> = vec![Vec::new(); loops.loops.len()];
    for &b in &order {
        let mut used: Vec<Value> = f.blocks[b].insts.iter().flat_map(|&i| f.insts[i].args()).collect();
        used.extend(f.blocks[b].term.args());
        for v in used {
            let Some(d) = def_block[v] else { continue };
            if loops.innermost[d].is_none() || loops.innermost[d] == loops.innermost[b] {
                continue;
            }
            for l in loops.exited_between(loops.innermost[d], b) {
                escaping[l].push(v);
            }
        }
    }
    while let Some(v) = p.work.pop() {
        // A value divergent only after a loop taints only the uses after it.
        let after = p.only_after[v];
        for k in 0..users[v].len() {
            let (user, at) = users[v][k];
            if after.is_some_and(|l| loops.contains(l, at)) {
                continue;
            }
            match user {
                User::Inst(i) => {
                    let r = f.results[i].expect("users with results");
                    match f.insts[i] {
                        InstData::WaveReduce { .. }
                        | InstData::WaveBallot { .. }
                        | InstData::WaveVote { .. }
                        | InstData::WaveReadFirst { .. } => {}
                        InstData::WaveReadLane { lane, .. } => {
                            if lane == v {
                                p.mark(&mut u, r, Why::LaneIndex(v), None);
                            }
                        }
                        _ => p.mark(&mut u, r, Why::Operand(v), None),
                    }
                }
                User::Param(q) => p.mark(&mut u, q, Why::Incoming(v), None),
                User::IfCond(merge) => {
                    for &q in &f.blocks[merge].params {
                        p.mark(&mut u, q, Why::BranchMerge(v), None);
                    }
                }
                User::Break(l) => {
                    for &q in &f.blocks[loops.loops[l].exit].params {
                        p.mark(&mut u, q, Why::LoopExit(v), None);
                    }
                    for &e in &escaping[l] {
                        p.mark(&mut u, e, Why::AfterLoop(v), Some(l));
                    }
                }
            }
        }
    }
    u
}

struct Propagation {
    work: Vec<Value>,
    /// For values divergent only because they are used after loop `l`: `l`.
    only_after: SecondaryMap<Value, Option<usize>>,
}

impl Propagation {
    /// Marks `v` divergent for `why`; `after` limits it to the uses after that loop.
    fn mark(&mut self, u: &mut Uniformity, v: Value, why: Why, after: Option<usize>) {
        match (u.why[v], self.only_after[v], after) {
            (None, _, _) => {
                u.why[v] = Some(why);
                self.only_after[v] = after;
                self.work.push(v);
            }
            // Divergent after a loop, now divergent everywhere: the uses inside get it too.
            (Some(_), Some(_), None) => {
                u.why[v] = Some(why);
                self.only_after[v] = None;
                self.work.push(v);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::options::OptLevel;
    use cranelift_entity::EntityRef;

    fn analyzed(src: &str) -> (Function, SecondaryMap<Value, bool>) {
        let file = SourceFile::new("t.hlsl", src);
        let (module, _) = crate::frontend::analyze(&file, None).expect("valid shader");
        let mut f = crate::lower::lower(&module).expect("lowers");
        crate::passes::run(&mut f, OptLevel::O, &crate::passes::PassContext::default(), true).expect("passes verify");
        let u = analyze(&f);
        (f, u)
    }

    /// Uniformity of the value stored by the `n`-th store (in block order).
    fn stored(f: &Function, u: &SecondaryMap<Value, bool>, n: usize) -> bool {
        let order = crate::ir::structure::block_order(&region_tree(f).expect("structured"));
        let stores: Vec<Value> = order
            .iter()
            .flat_map(|b| f.blocks[*b].insts.iter())
            .filter_map(|&i| match f.insts[i] {
                InstData::Store { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        u[stores[n]]
    }

    const HEAD: &str = "cbuffer C : register(b0) { uint k; float s; };\nStructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n";

    #[test]
    fn sources_of_uniformity_and_divergence() {
        let src = format!(
            "{HEAD}[numthreads(64,1,1)] void main(uint3 g : SV_GroupID, uint3 t : SV_DispatchThreadID) {{\n\
             Out[0] = k * 3 + g.x;\n\
             Out[1] = In[g.x];\n\
             Out[2] = t.x;\n\
             Out[3] = Out[g.x];\n\
             Out[4] = In[t.x];\n}}\n"
        );
        let (f, u) = analyzed(&src);
        assert!(stored(&f, &u, 0), "cbuffer and group id are uniform");
        assert!(stored(&f, &u, 1), "read-only buffer at a uniform address is uniform");
        assert!(!stored(&f, &u, 2), "the thread id is divergent");
        assert!(!stored(&f, &u, 3), "a buffer the kernel writes is not scalarized");
        assert!(!stored(&f, &u, 4), "a divergent address gives a divergent load");
    }

    #[test]
    fn read_write_buffers_the_kernel_only_reads_give_uniform_loads() {
        let src = "RWStructuredBuffer<uint> Table : register(u1);\nRWStructuredBuffer<uint> Counts : register(u2);\n\
                   RWStructuredBuffer<uint> Out : register(u0);\n\
                   [numthreads(64,1,1)] void main(uint3 g : SV_GroupID, uint3 t : SV_DispatchThreadID) {\n\
                   uint old;\n\
                   InterlockedAdd(Counts[0], 1, old);\n\
                   Out[t.x] = Table[g.x];\n\
                   Out[t.x + 64] = Counts[g.x];\n}\n";
        let (f, u) = analyzed(src);
        assert!(stored(&f, &u, 0), "Table is never written: a load at a uniform address is uniform");
        assert!(!stored(&f, &u, 1), "Counts takes an atomic: its loads are not scalarized");
    }

    #[test]
    fn merges_under_divergent_branches_are_divergent() {
        let src = format!(
            "{HEAD}[numthreads(64,1,1)] void main(uint3 g : SV_GroupID, uint3 t : SV_DispatchThreadID) {{\n\
             uint a = 1; uint b = 1;\n\
             if (g.x > k) {{ a = 2; }}\n\
             if (t.x > k) {{ b = 2; }}\n\
             Out[0] = a; Out[1] = b;\n}}\n"
        );
        let (f, u) = analyzed(&src);
        assert!(stored(&f, &u, 0), "merge of a uniform branch stays uniform");
        assert!(!stored(&f, &u, 1), "merge of a divergent branch is divergent");
    }

    /// Uniformity of every value defined in `text`, by value number.
    fn analyzed_ir(text: &str) -> (Function, SecondaryMap<Value, bool>) {
        let f = crate::ir::parse_function(text).expect("IR parses");
        crate::ir::verify(&f).expect("IR verifies");
        let u = analyze(&f);
        (f, u)
    }

    #[test]
    fn wave_ops_atomics_and_local_loads() {
        let (_, u) = analyzed_ir(
            "kernel @k local_memory 64 {
  block0:
      v0:i32 = special sr_lane_id
      v1:i32 = iconst 1
      v2:i32 = and v0, v1
      v3:b1 = icmp eq v2, v1
      if v3 then block1 else block2 merge block3
    block1:
        v4:i32 = wave_reduce.iadd v0
        v5:i32 = wave_prefix.iadd v0
        v6:i32 = wave_ballot v3, 0
        v7:b1 = wave_any v3
        v8:b1 = wave_all v3
        v9:i32 = wave_read_first v0
        v10:i32 = wave_read_lane v0, v1
        v11:i32 = wave_read_lane v0, v0
        v12:i32 = iadd v4, v9
        v13:i32 = atomic_rmw.add.local [v1], v1
        v14:i32 = atomic_cas.local [v1], v1, v0
        v15:i32 = load.local.i32 [v1]
        jump block3(v4)
    block2:
        jump block3(v1)
  block3(v16:i32):
      v17:i32 = wave_reduce.umax v16
      return
}
",
        );
        let at = |n: usize| u[Value::new(n)];
        assert!(!at(0) && !at(3), "lane id and what depends on it are divergent");
        for n in [4, 6, 7, 8, 9, 10, 12] {
            assert!(at(n), "v{n}: wave results are uniform, also under a divergent if");
        }
        assert!(!at(11), "reading a divergent lane index is divergent");
        assert!(!at(5), "an exclusive prefix differs per lane");
        assert!(!at(13) && !at(14), "atomics return each lane's own old value");
        assert!(!at(15), "local memory is written by the kernel");
        assert!(!at(16), "a merge under a divergent if is divergent");
        assert!(at(17), "a reduction of a divergent value is uniform");
    }

    #[test]
    fn reductions_in_a_divergent_loop_are_divergent_after_it() {
        let (_, u) = analyzed_ir(
            "kernel @k {
  block0:
      v0:i32 = special sr_lane_id
      v1:i32 = iconst 0
      loop block1(v1) exit block2
    block1(v2:i32):
        v3:i32 = wave_reduce.iadd v2
        v4:i32 = iconst 1
        v5:i32 = iadd v2, v4
        v6:b1 = icmp uge v5, v0
        break_if v6 to block2() else block3
    block3:
        jump block1(v5)
  block2:
      v7:i32 = iadd v3, v3
      return
}
",
        );
        assert!(u[Value::new(2)], "inside the loop, the lanes still in it agree on the counter");
        assert!(!u[Value::new(3)] && !u[Value::new(7)], "lanes leave at different iterations, so their reductions differ after the loop");
    }

    #[test]
    fn loops_with_divergent_exits_make_their_values_divergent() {
        let src = format!(
            "{HEAD}[numthreads(64,1,1)] void main(uint3 t : SV_DispatchThreadID) {{\n\
             uint i = 0; uint j = 0;\n\
             for (i = 0; i < k; i++) {{ }}\n\
             while (j < t.x) {{ j++; }}\n\
             Out[0] = i; Out[1] = j;\n}}\n"
        );
        let (f, u) = analyzed(&src);
        assert!(stored(&f, &u, 0), "a loop with a uniform trip count keeps its counter uniform");
        assert!(!stored(&f, &u, 1), "lanes leave a divergent loop at different iterations");
    }
}
