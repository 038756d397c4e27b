//! An IR-level estimate of V-register pressure: how many values are live at
//! once, at the worst point of the function and of each loop. Liveness is
//! SSA liveness on the logical CFG (as the allocator computes it, see
//! `docs/design-notes.md`), found by walking back from each use to the
//! definition, so the cost is the total length of the live ranges.
//!
//! Every live value counts one register, except booleans that selection
//! keeps in a predicate: a compare whose only uses are branch or select
//! conditions in its own block. The estimate does not see what selection
//! adds (temporaries of expansions, the ABI's fixed registers), so passes use
//! it to compare choices, against a budget with some reserve.

use super::loops::Loops;
use crate::ir::structure::block_order;
use crate::ir::structure::Node;
use crate::ir::*;
use cranelift_entity::SecondaryMap;

pub struct Pressure {
    /// Most values live at once anywhere.
    pub max: u32,
    /// Most values live at once inside each loop (by `LoopId`).
    pub per_loop: Vec<u32>,
}

/// Estimates the pressure of `f` (region tree `nodes`, loop forest `loops`).
pub fn estimate(f: &Function, nodes: &[Node], loops: &Loops) -> Pressure {
    estimate_with(f, nodes, loops, false)
}

/// As [`estimate`]; with `remat_cheap`, constants and special registers count
/// nothing, as `sink` will place a copy next to each use (for passes that run
/// before it and should not be charged for what it undoes).
pub fn estimate_with(f: &Function, nodes: &[Node], loops: &Loops, remat_cheap: bool) -> Pressure {
    let order = block_order(nodes);
    let mut weight = weights(f, &order);
    if remat_cheap {
        for &b in &order {
            for &i in &f.blocks[b].insts {
                if let (InstData::Const { .. } | InstData::Special { .. }, Some(r)) = (&f.insts[i], f.results[i]) {
                    weight[r] = 0;
                }
            }
        }
    }
    let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    let mut def_block: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
    for &b in &order {
        for s in f.blocks[b].term.successors() {
            preds[s].push(b);
        }
        for &p in &f.blocks[b].params {
            def_block[p] = Some(b);
        }
        for &i in &f.blocks[b].insts {
            if let Some(r) = f.results[i] {
                def_block[r] = Some(b);
            }
        }
    }
    // live_out[b]: values live at the end of b (before its terminator's own uses).
    let mut live_out: SecondaryMap<Block, Vec<Value>> = SecondaryMap::new();
    let mut stamp: SecondaryMap<Block, u32> = SecondaryMap::new(); // value index + 1 marked live-in
    let mut out_stamp: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut work: Vec<Block> = Vec::new();
    // Each use: (value, block where it is used).
    let mut uses: Vec<(Value, Block)> = Vec::new();
    for &b in &order {
        for &i in &f.blocks[b].insts {
            for a in f.insts[i].args() {
                uses.push((a, b));
            }
        }
        for a in f.blocks[b].term.args() {
            uses.push((a, b));
        }
    }
    uses.sort_by_key(|&(v, b)| (v, b));
    uses.dedup();
    for &(v, b) in &uses {
        if weight[v] == 0 {
            continue;
        }
        let Some(d) = def_block[v] else { continue };
        let tag = cranelift_entity::EntityRef::index(v) as u32 + 1;
        // Live into every block on a path from d to b (b itself when d != b).
        if d == b {
            continue;
        }
        work.clear();
        if stamp[b] != tag {
            stamp[b] = tag;
            work.push(b);
        }
        while let Some(x) = work.pop() {
            for &p in &preds[x] {
                if out_stamp[p] != tag {
                    out_stamp[p] = tag;
                    live_out[p].push(v);
                }
                if p != d && stamp[p] != tag {
                    stamp[p] = tag;
                    work.push(p);
                }
            }
        }
    }
    // Walk each block backwards from its live-out set.
    let mut block_max: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut max = 0;
    for &b in &order {
        let mut n: u32 = 0;
        let mut set: Vec<Value> = Vec::new();
        let add = |v: Value, live: &mut SecondaryMap<Value, bool>, set: &mut Vec<Value>, n: &mut u32| {
            if !live[v] && weight[v] > 0 {
                live[v] = true;
                set.push(v);
                *n += 1;
            }
        };
        for &v in &live_out[b] {
            add(v, &mut live, &mut set, &mut n);
        }
        for a in f.blocks[b].term.args() {
            add(a, &mut live, &mut set, &mut n);
        }
        let mut peak = n;
        for &i in f.blocks[b].insts.iter().rev() {
            if let Some(r) = f.results[i] {
                if live[r] {
                    live[r] = false;
                    n -= 1;
                } else if weight[r] > 0 {
                    // A result nobody reads still takes a register for an instant.
                    peak = peak.max(n + 1);
                }
            }
            for a in f.insts[i].args() {
                add(a, &mut live, &mut set, &mut n);
            }
            peak = peak.max(n);
        }
        for &v in &set {
            live[v] = false;
        }
        block_max[b] = peak;
        max = max.max(peak);
    }
    let per_loop = loops.loops.iter().map(|l| l.blocks.iter().map(|&b| block_max[b]).max().unwrap_or(0)).collect();
    Pressure { max, per_loop }
}

/// Registers each value costs: 0 for compares that become predicates at their uses.
fn weights(f: &Function, order: &[Block]) -> SecondaryMap<Value, u32> {
    let mut w: SecondaryMap<Value, u32> = SecondaryMap::with_default(1);
    // Booleans used only as conditions in the block that computes them.
    let mut home: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
    let mut ok: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            if let (InstData::Cmp { .. }, Some(r)) = (&f.insts[i], f.results[i]) {
                home[r] = Some(b);
                ok[r] = true;
            }
        }
    }
    for &b in order {
        for &i in &f.blocks[b].insts {
            let data = &f.insts[i];
            let cond = if let InstData::Select { cond, .. } = data { Some(*cond) } else { None };
            for (k, a) in data.args().into_iter().enumerate() {
                if !(k == 0 && cond == Some(a) && home[a] == Some(b)) {
                    ok[a] = false;
                }
            }
        }
        let term = &f.blocks[b].term;
        let cond = match term {
            Terminator::If { cond, .. } | Terminator::BreakIf { cond, .. } => Some(*cond),
            _ => None,
        };
        for (k, a) in term.args().into_iter().enumerate() {
            if !(k == 0 && cond == Some(a) && home[a] == Some(b)) {
                ok[a] = false;
            }
        }
    }
    for &b in order {
        for &i in &f.blocks[b].insts {
            if let Some(r) = f.results[i] {
                if ok[r] {
                    w[r] = 0;
                }
            }
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function;
    use crate::ir::structure::region_tree;

    fn pressure(text: &str) -> Pressure {
        let f = parse_function(text).expect("parses");
        let nodes = region_tree(&f).expect("structured");
        let loops = Loops::new(&f, &nodes);
        estimate(&f, &nodes, &loops)
    }

    #[test]
    fn counts_values_live_across_a_loop() {
        let p = pressure(
            "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 0
      v3:i32 = iconst 7
      loop block1(v2) exit block2
    block1(v4:i32):
        v5:b1 = icmp uge v4, v3
        break_if v5 to block2() else block3
    block3:
        v6:i32 = iadd v4, v1
        v7:i32 = iconst 1
        v8:i32 = iadd v4, v7
        jump block1(v8)
  block2:
      store.device [v0], v1
      return
}
",
        );
        // In the loop: v0, v1, v3 (live through), the counter v4 and v7 before `iadd v4, v7`
        // (v6 is unused: it takes a register only as it is written; v5 is a predicate).
        assert_eq!(p.per_loop, vec![5]);
        assert_eq!(p.max, 5);
    }
}
