//! Uniformity (divergence) analysis: which values are provably the same in
//! every active lane of a wave. Uniform values are candidates for the U class.
//!
//! Sources of divergence: per-lane special registers (thread and lane ids),
//! loads from memory the kernel writes, atomics' results (each lane gets its
//! own old value), exclusive prefixes (`wave_prefix`), block parameters that
//! merge values under a divergent branch or leave a loop with a divergent exit,
//! and values defined inside a loop with a divergent exit and used after it
//! (lanes leave at different iterations).
//!
//! Sources of uniformity whatever their operands: `wave_reduce`,
//! `wave_ballot`, `wave_any`, `wave_all`, `wave_read_first`, and
//! `wave_read_lane` with a uniform lane. They give one value to every lane that
//! executes them, also inside a divergent `if` (they are uniform within the
//! wave's active lanes, whatever the mask). Everything else is uniform if its
//! operands are.

use crate::ir::structure::{region_tree, Node};
use crate::ir::*;
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::BTreeSet;

/// `true` for values proven wave-uniform.
pub fn analyze(f: &Function) -> SecondaryMap<Value, bool> {
    let mut uniform: SecondaryMap<Value, bool> = SecondaryMap::with_default(true);
    for v in f.values.keys() {
        uniform[v] = true;
    }
    let Ok(nodes) = region_tree(f) else {
        // Unstructured input is rejected elsewhere; assume nothing here.
        return SecondaryMap::with_default(false);
    };
    let mut loops = Vec::new();
    collect_loops(f, &nodes, &mut loops);
    let merges = collect_merges(f, &nodes);
    let inst_block = f.inst_blocks();

    let mut changed = true;
    while changed {
        changed = false;
        let mut mark = |v: Value, uniform: &mut SecondaryMap<Value, bool>| {
            if uniform[v] {
                uniform[v] = false;
                changed = true;
            }
        };
        for (inst, data) in f.insts.iter() {
            let Some(v) = f.results[inst] else { continue };
            let divergent = match data {
                InstData::Special { reg } => !reg.is_uniform(),
                InstData::Load { space: MemSpace::Device | MemSpace::Local, .. } => true,
                InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::WavePrefix { .. } => true,
                InstData::WaveReduce { .. } | InstData::WaveBallot { .. } | InstData::WaveVote { .. } | InstData::WaveReadFirst { .. } => {
                    false
                }
                InstData::WaveReadLane { lane, .. } => !uniform[*lane],
                _ => data.args().iter().any(|&a| !uniform[a]),
            };
            if divergent {
                mark(v, &mut uniform);
            }
        }
        for b in f.blocks.keys() {
            for (dest, args) in f.blocks[b].term.edges_with_args() {
                for (a, &p) in args.iter().zip(&f.blocks[dest].params) {
                    if !uniform[*a] {
                        mark(p, &mut uniform);
                    }
                }
            }
        }
        // Merges under a divergent if.
        for &(cond, merge) in &merges {
            if !uniform[cond] {
                for &p in &f.blocks[merge].params {
                    mark(p, &mut uniform);
                }
            }
        }
        for l in &loops {
            if l.break_conds.iter().all(|&c| uniform[c]) {
                continue;
            }
            for &p in f.blocks[l.header].params.iter().chain(&f.blocks[l.exit].params) {
                mark(p, &mut uniform);
            }
            // Temporal divergence: loop values used after the loop.
            for b in f.blocks.keys().filter(|b| !l.body.contains(b)) {
                let mut used: Vec<Value> = f.blocks[b].insts.iter().flat_map(|&i| f.insts[i].args()).collect();
                used.extend(f.blocks[b].term.args());
                for v in used {
                    let def = match f.values[v].def {
                        ValueDef::Inst(i) => inst_block[i],
                        ValueDef::Param(pb, _) => Some(pb),
                    };
                    if def.is_some_and(|d| l.body.contains(&d)) {
                        mark(v, &mut uniform);
                    }
                }
            }
        }
    }
    // Values that do not exist in the table default to divergent for safety.
    let mut out: SecondaryMap<Value, bool> = SecondaryMap::with_default(false);
    for v in f.values.keys() {
        out[v] = uniform[v];
    }
    let _ = Value::new(0);
    out
}

struct LoopInfo {
    header: Block,
    exit: Block,
    body: BTreeSet<Block>,
    break_conds: Vec<Value>,
}

fn collect_loops(f: &Function, nodes: &[Node], out: &mut Vec<LoopInfo>) {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { then_region, else_region, .. } => {
                collect_loops(f, then_region, out);
                collect_loops(f, else_region, out);
            }
            Node::Loop { header, body, exit, .. } => {
                let mut blocks = BTreeSet::new();
                all_blocks(body, &mut blocks);
                let break_conds = body
                    .iter()
                    .filter_map(|n| match n {
                        Node::Block(b) => match f.blocks[*b].term {
                            Terminator::BreakIf { cond, .. } => Some(cond),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                out.push(LoopInfo { header: *header, exit: *exit, body: blocks, break_conds });
                collect_loops(f, body, out);
            }
        }
    }
}

fn all_blocks(nodes: &[Node], out: &mut BTreeSet<Block>) {
    for n in nodes {
        match n {
            Node::Block(b) => {
                out.insert(*b);
            }
            Node::If { then_region, else_region, .. } => {
                all_blocks(then_region, out);
                all_blocks(else_region, out);
            }
            Node::Loop { body, .. } => all_blocks(body, out),
        }
    }
}

/// (condition, merge block) of every if.
fn collect_merges(f: &Function, nodes: &[Node]) -> Vec<(Value, Block)> {
    let mut out = Vec::new();
    fn walk(f: &Function, nodes: &[Node], out: &mut Vec<(Value, Block)>) {
        for n in nodes {
            match n {
                Node::Block(_) => {}
                Node::If { head, then_region, else_region, merge } => {
                    if let Terminator::If { cond, .. } = f.blocks[*head].term {
                        out.push((cond, *merge));
                    }
                    walk(f, then_region, out);
                    walk(f, else_region, out);
                }
                Node::Loop { body, .. } => walk(f, body, out),
            }
        }
    }
    walk(f, nodes, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;
    use crate::options::OptLevel;

    fn analyzed(src: &str) -> (Function, SecondaryMap<Value, bool>) {
        let file = SourceFile::new("t.hlsl", src);
        let (module, _) = crate::frontend::analyze(&file, None).expect("valid shader");
        let mut f = crate::lower::lower(&module).expect("lowers");
        crate::passes::run(&mut f, OptLevel::O, true).expect("passes verify");
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
    fn reductions_in_a_divergent_loop_leave_it_divergent() {
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
        assert!(!u[Value::new(2)], "the counter of a loop with a divergent exit");
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
