//! Whole warps for wave operations (`pad-warps`, `--isa wave-0.1.2` only).
//!
//! Why: wave-ptx 0.1.2 lowers every wave operation with the member mask
//! `0xffffffff`. In a workgroup whose thread count is not a multiple of 32 the
//! group's last warp is partial, and that mask names lanes that do not exist:
//! PTX leaves such a `shfl.sync`/`vote.sync` undefined, and on an H200 the
//! missing lanes read as garbage (docs/backends.md). WAVE 0.1.2 cannot state a
//! narrower mask, so the lanes have to exist.
//!
//! What: a kernel with wave operations whose `[numthreads(X, Y, Z)]` makes N
//! threads, N not a multiple of 32, is compiled for 1-D groups of N rounded
//! up to a multiple of 32 (`Function::padded`, the launch its
//! interface states). Its ids come from the linear index t = `sr_thread_id_x`
//! and the real sizes (x, y, z = t % X, t / X % Y, t / (X * Y); every
//! `sr_thread_id_*` and `sr_workgroup_size_*` it read is replaced), so every
//! SV_GroupThreadID, SV_GroupIndex and SV_DispatchThreadID (built from them by
//! lowering), lane and wave number is what the unpadded launch gives. The
//! threads t >= N, the highest lanes of the last warp, run along but are
//! inert:
//!
//! - stores and atomics run under `if t < N` (a run of them in a block, with
//!   what lies between, under one `if`; an atomic's result is 0 past it in
//!   the extra lanes);
//! - a load outside converged code, or at an address that is not
//!   wave-uniform, reads address 0 in the extra lanes (always readable: the
//!   first buffer, or local memory if the kernel has any), so their garbage
//!   values never fault; a uniform load in converged code reads what the
//!   real lanes of its wave read;
//! - reductions, ballots and votes take their identity from the extra lanes,
//!   as from lanes that are not active (the last step of `converge-waves`,
//!   [`idle_wave_ops`], once every wave operation sits in converged code and
//!   the select can go right before it); prefixes, `wave_read_first` and
//!   barriers need nothing: the extra lanes come after every real lane of
//!   their warp, and reach a barrier wherever the real lanes of their warp
//!   do, since converged code with uniform conditions is the only place a
//!   barrier may be;
//! - a loop outside converged code or that lanes leave at different
//!   iterations is skipped by the extra lanes (`if t < N { loop }`), so it
//!   cannot run away on their garbage values; `converge-waves`, which runs
//!   next, moves such a loop out of the `if` if it holds wave operations,
//!   with the extra lanes never active. The other loops run in lockstep with
//!   the real lanes of the warp (every warp has one) and end with them.
//!
//! A kernel with a barrier in a loop of the last kind (undefined in HLSL) is
//! left as it is.
//!
//! Why not one `if t < N` around the whole kernel, which `converge-waves`
//! would split: it splits it around every wave operation and barrier, carries
//! every value across them through merges and predicates every loop with
//! wave operations, 1.4 to 1.5 times the simulated cycles of the unpadded
//! code on tests/lang/wave_divergent and wave_int64 at -O, against 1.02 to
//! 1.10 times this way (docs/backends.md).

use super::converge::{breaks_uniform, flow, identity, if_uniform};
use super::{uniformity, PassContext};
use crate::diag::Span;
use crate::ir::structure::{block_order, region_tree, Node};
use crate::ir::*;
use crate::options::Isa;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// Lanes of a warp on the backend that needs whole ones (wave-ptx).
pub const WARP: u32 = 32;

/// The 1-D group size a kernel of `workgroup` threads with wave operations is
/// compiled for on `wave-0.1.2`, if it differs from the real one: the thread
/// count rounded up to a multiple of [`WARP`].
pub fn padded_size(workgroup: [u32; 3]) -> Option<u32> {
    let n = workgroup.iter().try_fold(1u32, |a, &d| a.checked_mul(d))?;
    if n == 0 || n.is_multiple_of(WARP) {
        return None;
    }
    n.checked_next_multiple_of(WARP)
}

fn is_wave_op(data: &InstData) -> bool {
    data.is_convergent() && !matches!(data, InstData::Barrier)
}

fn is_effect(data: &InstData) -> bool {
    matches!(data, InstData::Store { .. } | InstData::AtomicRmw { .. } | InstData::AtomicCas { .. })
}

/// The pass: pads the kernel's workgroup (see the module doc) when
/// `cx.workgroup` is known, the ISA is `wave-0.1.2`, the kernel has wave
/// operations and its thread count is not a multiple of 32.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    if cx.isa != Isa::Wave012 || f.padded.is_some() {
        return false;
    }
    let Some(workgroup) = cx.workgroup else { return false };
    let Some(padded) = padded_size(workgroup) else { return false };
    let Ok(nodes) = region_tree(f) else { return false };
    let blocks = block_order(&nodes);
    if !blocks.iter().any(|&b| f.blocks[b].insts.iter().any(|&i| is_wave_op(&f.insts[i]))) {
        return false;
    }
    let uniform = uniformity::analyze(f);
    let mut loops = Vec::new();
    loops_to_skip(f, &nodes, true, &uniform, &mut loops);
    let barrier = |blocks: &[Block]| blocks.iter().any(|&b| f.blocks[b].insts.iter().any(|&i| matches!(f.insts[i], InstData::Barrier)));
    if loops.iter().any(|l| barrier(&l.blocks)) {
        return false;
    }
    let mut p = Pad { n: workgroup.iter().product(), guarded: BTreeSet::new() };
    if p.ids(f, workgroup, padded).is_none() {
        return false;
    }
    f.padded = Some(Padding { threads: p.n, launch: padded });
    // Later loops first: an earlier loop's exit block may end with the `loop`
    // of a later one, which skipping the earlier one moves on.
    for l in loops.iter().rev() {
        p.skip_loop(f, l);
    }
    for b in block_order(&region_tree(f).unwrap_or_default()) {
        if !p.guarded.contains(&b) {
            p.guard_effects(f, b);
        }
    }
    // Loads, with what is converged now.
    let Ok(nodes) = region_tree(f) else { return true };
    let uniform = uniformity::analyze(f);
    let mut converged = BTreeSet::new();
    converged_blocks(f, &nodes, true, &uniform, &mut converged);
    for b in block_order(&nodes) {
        if !p.guarded.contains(&b) {
            p.redirect_loads(f, b, converged.contains(&b), &uniform);
        }
    }
    true
}

/// A loop the extra lanes skip: the block ending with its `loop`, its blocks
/// (body and exit), and its exit block.
struct SkippedLoop {
    pre: Block,
    blocks: Vec<Block>,
    exit: Block,
}

/// Loops outside converged code or with a divergent `break_if`, outermost.
fn loops_to_skip(f: &Function, nodes: &[Node], converged: bool, uniform: &SecondaryMap<Value, bool>, out: &mut Vec<SkippedLoop>) {
    for n in nodes {
        match n {
            Node::Block(_) => {}
            Node::If { head, then_region, else_region, .. } => {
                let inner = converged && if_uniform(f, *head, uniform);
                loops_to_skip(f, then_region, inner, uniform, out);
                loops_to_skip(f, else_region, inner, uniform, out);
            }
            Node::Loop { pre, body, exit, .. } => {
                if converged && breaks_uniform(f, body, *exit, uniform) {
                    loops_to_skip(f, body, true, uniform, out);
                } else {
                    let mut blocks = block_order(body);
                    blocks.push(*exit);
                    out.push(SkippedLoop { pre: *pre, blocks, exit: *exit });
                }
            }
        }
    }
}

/// Blocks in converged code: the top level, `if`s on uniform conditions and
/// loops whose `break_if`s are uniform, inside converged code.
fn converged_blocks(f: &Function, nodes: &[Node], converged: bool, uniform: &SecondaryMap<Value, bool>, out: &mut BTreeSet<Block>) {
    for n in nodes {
        match n {
            Node::Block(b) => {
                if converged {
                    out.insert(*b);
                }
            }
            Node::If { head, then_region, else_region, .. } => {
                let inner = converged && if_uniform(f, *head, uniform);
                converged_blocks(f, then_region, inner, uniform, out);
                converged_blocks(f, else_region, inner, uniform, out);
            }
            Node::Loop { body, exit, .. } => {
                let inner = converged && breaks_uniform(f, body, *exit, uniform);
                converged_blocks(f, body, inner, uniform, out);
            }
        }
    }
}

struct Pad {
    /// The real thread count.
    n: u32,
    /// Blocks the extra lanes never run (under `if t < N`).
    guarded: BTreeSet<Block>,
}

impl Pad {
    /// `t < N`, appended to `block`.
    fn real(&self, f: &mut Function, block: Block, span: Span) -> Option<Value> {
        let t = f.append_inst(block, InstData::Special { reg: SpecialReg::ThreadId(0) }, span)?;
        let n = f.append_inst(block, InstData::Const { ty: Type::I32, bits: self.n }, span)?;
        f.append_inst(block, InstData::Cmp { op: CmpOp::ULt, args: [t, n] }, span)
    }

    /// Each thread id register the program reads becomes its axis of the
    /// linear index (computed where the register was read), each workgroup
    /// size register the real size.
    fn ids(&self, f: &mut Function, [nx, ny, nz]: [u32; 3], padded: u32) -> Option<()> {
        let small = padded <= 1024;
        let one_d = ny == 1 && nz == 1;
        let mut map = BTreeMap::new();
        let Ok(nodes) = region_tree(f) else { return None };
        for b in block_order(&nodes) {
            for i in std::mem::take(&mut f.blocks[b].insts) {
                let span = f.spans[i];
                match f.insts[i] {
                    InstData::Special { reg: SpecialReg::WorkgroupSize(a) } => {
                        f.insts[i] = InstData::Const { ty: Type::I32, bits: [nx, ny, nz][usize::from(a.min(2))] };
                    }
                    InstData::Special { reg: SpecialReg::ThreadId(a) } if a > 0 && one_d => {
                        f.insts[i] = InstData::Const { ty: Type::I32, bits: 0 };
                    }
                    InstData::Special { reg: SpecialReg::ThreadId(a) } if !one_d => {
                        // x = t % X, y = t / X % Y, z = t / X / Y.
                        let t = f.append_inst(b, InstData::Special { reg: SpecialReg::ThreadId(0) }, span)?;
                        let id = match a {
                            0 => urem(f, b, t, nx, small, span)?,
                            1 if nz == 1 => udiv(f, b, t, nx, small, span)?,
                            1 => {
                                let q = udiv(f, b, t, nx, small, span)?;
                                urem(f, b, q, ny, small, span)?
                            }
                            _ => udiv(f, b, t, nx * ny, small, span)?,
                        };
                        map.extend(f.results[i].map(|v| (v, id)));
                        continue;
                    }
                    _ => {}
                }
                f.blocks[b].insts.push(i);
            }
        }
        f.replace_uses(&map);
        Some(())
    }

    /// Puts `blocks` (a part of the function entered from `before` into its
    /// first block, left from its last one, neither of which has a
    /// terminator yet) under `if t < N`; the code after it starts in `rest`,
    /// which receives the values the part defines and the rest reads
    /// (stand-ins in the extra lanes).
    fn guard(&mut self, f: &mut Function, before: Block, blocks: &[Block], rest: Block, span: Span) -> Option<()> {
        let (&first, &last) = (blocks.first()?, blocks.last()?);
        let real = self.real(f, before, span)?;
        let inside: BTreeSet<Block> = blocks.iter().copied().collect();
        let outside: Vec<Block> = f.blocks.keys().filter(|b| !inside.contains(b)).collect();
        let flows: Vec<Value> = flow::defs(f, blocks).intersection(&flow::uses(f, &outside)).copied().collect();
        let had = f.blocks[rest].insts.len();
        let (carried, map) = flow::carry(f, last, rest, &flows, span);
        // `carry` appends its copies: they go first in `rest`.
        let copies = f.blocks[rest].insts.len() - had;
        f.blocks[rest].insts.rotate_right(copies);
        f.set_terminator(last, Terminator::Jump { dest: rest, args: carried.clone() }, span);
        let skip = f.create_block();
        let stand_ins = flow::stand_ins(f, skip, &carried, span);
        f.set_terminator(skip, Terminator::Jump { dest: rest, args: stand_ins }, span);
        f.set_terminator(before, Terminator::If { cond: real, then_dest: first, else_dest: skip, merge: rest }, span);
        let renamed: Vec<Block> = outside.into_iter().filter(|&b| b != skip).collect();
        flow::rename_in(f, &renamed, &map);
        self.guarded.extend(blocks.iter().copied());
        Some(())
    }

    /// `if t < N { loop }`.
    fn skip_loop(&mut self, f: &mut Function, l: &SkippedLoop) {
        let span = f.blocks[l.pre].term_span;
        let keep = f.blocks[l.pre].insts.len();
        let enter = flow::split_block(f, l.pre, keep);
        f.loop_hints[enter] = f.loop_hints[l.pre];
        f.loop_hints[l.pre] = LoopHint::None;
        let rest = flow::split_block(f, l.exit, 0);
        f.loop_hints[rest] = f.loop_hints[l.exit];
        f.loop_hints[l.exit] = LoopHint::None;
        let mut blocks = vec![enter];
        blocks.extend(l.blocks.iter().copied());
        let _ = self.guard(f, l.pre, &blocks, rest, span);
    }

    /// Puts each run of stores and atomics of `block` (up to a wave
    /// operation or barrier) under `if t < N`, with what lies between them
    /// but the operations that need nothing of the run.
    fn guard_effects(&mut self, f: &mut Function, mut block: Block) {
        loop {
            let insts = &f.blocks[block].insts;
            let Some(start) = insts.iter().position(|&i| is_effect(&f.insts[i])) else { return };
            let stop = insts[start..].iter().position(|&i| f.insts[i].is_convergent()).map_or(insts.len(), |k| start + k);
            let Some(end) = insts[start..stop].iter().rposition(|&i| is_effect(&f.insts[i])).map(|k| start + k) else { return };
            let mut insts = std::mem::take(&mut f.blocks[block].insts);
            let after = insts.split_off(end + 1);
            let run = insts.split_off(start);
            // Operations that read nothing the run's memory operations give stay before it.
            let mut inner_defs = BTreeSet::new();
            let (mut hoisted, mut inside) = (Vec::new(), Vec::new());
            for i in run {
                let d = &f.insts[i];
                let free = !d.has_side_effects() && !matches!(d, InstData::Load { .. }) && d.args().iter().all(|a| !inner_defs.contains(a));
                if free {
                    hoisted.push(i);
                } else {
                    inner_defs.extend(f.results[i]);
                    inside.push(i);
                }
            }
            let span = inside.first().map(|&i| f.spans[i]).unwrap_or_default();
            insts.extend(hoisted);
            f.blocks[block].insts = insts;
            let term = std::mem::take(&mut f.blocks[block].term);
            let term_span = f.blocks[block].term_span;
            let run_block = f.create_block();
            f.blocks[run_block].insts = inside;
            let rest = f.create_block();
            f.blocks[rest].insts = after;
            f.set_terminator(rest, term, term_span);
            f.loop_hints[rest] = f.loop_hints[block];
            f.loop_hints[block] = LoopHint::None;
            if self.guard(f, block, &[run_block], rest, span).is_none() {
                return;
            }
            block = rest;
        }
    }

    /// In `block` (which the extra lanes run): their loads read address 0
    /// unless the load is uniform in converged code.
    fn redirect_loads(&self, f: &mut Function, block: Block, converged: bool, uniform: &SecondaryMap<Value, bool>) {
        rewrite(f, block, self.n, &|_, data| match *data {
            InstData::Load { addr, .. } if !(converged && uniform[addr]) => {
                Some((addr, Type::I32, InstData::Const { ty: Type::I32, bits: 0 }))
            }
            _ => None,
        });
    }
}

/// The wave operations of a padded function (none in another) that the
/// extra lanes could reach: all but those under an `if t < N` (a loop they
/// skip, or the program's own test), which `converge-waves` gives the
/// extra lanes' identity when it moves them out.
pub fn wave_ops(f: &Function) -> BTreeSet<Inst> {
    let mut out = BTreeSet::new();
    let Some(padding) = f.padded else { return out };
    let Ok(nodes) = region_tree(f) else { return out };
    reachable_ops(f, &nodes, padding.threads, &mut out);
    out
}

fn reachable_ops(f: &Function, nodes: &[Node], threads: u32, out: &mut BTreeSet<Inst>) {
    for n in nodes {
        match n {
            Node::Block(b) => out.extend(f.blocks[*b].insts.iter().copied().filter(|&i| is_wave_op(&f.insts[i]))),
            Node::If { head, then_region, else_region, .. } => {
                if !matches!(f.blocks[*head].term, Terminator::If { cond, .. } if is_real_test(f, cond, threads)) {
                    reachable_ops(f, then_region, threads, out);
                }
                reachable_ops(f, else_region, threads, out);
            }
            Node::Loop { body, .. } => reachable_ops(f, body, threads, out),
        }
    }
}

/// Whether `v` is `sr_thread_id_x < threads`.
fn is_real_test(f: &Function, v: Value, threads: u32) -> bool {
    let def = |v: Value| f.def_inst(v).map(|i| &f.insts[i]);
    match def(v) {
        Some(InstData::Cmp { op: CmpOp::ULt, args: [t, n] }) => {
            matches!(def(*t), Some(InstData::Special { reg: SpecialReg::ThreadId(0) }))
                && matches!(def(*n), Some(InstData::Const { bits, .. }) if *bits == threads)
        }
        _ => false,
    }
}

/// The last step, which `converge-waves` takes in a padded function once
/// every wave operation is in converged code: the extra lanes give each
/// reduction, ballot and vote of `ops` (the program's, [`wave_ops`] before
/// the pass) its identity. Those the pass adds need nothing: its reads of
/// the first lane where a condition holds, and its votes on a predicated
/// loop's activity (which the extra lanes never have, the loop being one
/// they skip). A read of another lane needs nothing either: the extra lanes
/// come after the real ones, and their own reads go nowhere. Returns whether
/// it changed anything.
pub fn idle_wave_ops(f: &mut Function, ops: &BTreeSet<Inst>) -> bool {
    let Some(padding) = f.padded else { return false };
    let Ok(nodes) = region_tree(f) else { return false };
    let mut changed = false;
    for b in block_order(&nodes) {
        changed |= rewrite(f, b, padding.threads, &|i, data| match *data {
            _ if !ops.contains(&i) => None,
            InstData::WaveReduce { op, arg } => Some((arg, op.ty(), InstData::Const { ty: op.ty(), bits: identity(op) })),
            InstData::WaveBallot { cond, .. } => Some((cond, Type::Bool, InstData::Const { ty: Type::Bool, bits: 0 })),
            InstData::WaveVote { op, cond } => {
                Some((cond, Type::Bool, InstData::Const { ty: Type::Bool, bits: u32::from(op == VoteOp::All) }))
            }
            _ => None,
        });
    }
    changed
}

/// For each instruction of `block` that `pick` names an operand `x` (of type
/// `ty`) of, with the value `other` the extra lanes use instead: that operand
/// becomes `select(t < threads, x, other)`, computed just before it (so that
/// the compare stays a predicate). Returns whether there was one.
type Pick<'a> = &'a dyn Fn(Inst, &InstData) -> Option<(Value, Type, InstData)>;
fn rewrite(f: &mut Function, block: Block, threads: u32, pick: Pick) -> bool {
    let insts = std::mem::take(&mut f.blocks[block].insts);
    let mut out = Vec::with_capacity(insts.len());
    let mut changed = false;
    for i in insts {
        if let Some((x, ty, other)) = pick(i, &f.insts[i]) {
            let span = f.spans[i];
            let mut emit = |f: &mut Function, d: InstData| {
                let v = f.append_inst(block, d, span);
                out.append(&mut f.blocks[block].insts);
                v
            };
            let other = emit(f, other);
            let t = emit(f, InstData::Special { reg: SpecialReg::ThreadId(0) });
            let n = emit(f, InstData::Const { ty: Type::I32, bits: threads });
            let real = t.zip(n).and_then(|(t, n)| emit(f, InstData::Cmp { op: CmpOp::ULt, args: [t, n] }));
            if let Some(sel) = real.zip(other).and_then(|(real, other)| emit(f, InstData::Select { ty, cond: real, args: [x, other] })) {
                f.insts[i].map_args(|a| if a == x { sel } else { a });
                changed = true;
            }
        }
        out.push(i);
    }
    f.blocks[block].insts = out;
    changed
}

/// `x / d` for a constant `d` >= 1. With `small` (x < 1024, the padded
/// group's indices), a non-power-of-two divisor is `x * ceil(2^21 / d) >> 21`:
/// exact, since the rounding error of the multiplier times x stays below
/// 2^21, and the product below 2^32.
fn udiv(f: &mut Function, b: Block, x: Value, d: u32, small: bool, span: Span) -> Option<Value> {
    let bin = |f: &mut Function, op, a, c: u32| {
        let c = f.append_inst(b, InstData::Const { ty: Type::I32, bits: c }, span)?;
        f.append_inst(b, InstData::Binary { op, args: [a, c] }, span)
    };
    if d.is_power_of_two() {
        return bin(f, BinaryOp::LShr, x, d.trailing_zeros());
    }
    if small && d <= 1024 {
        let m = (1u32 << 21).div_ceil(d);
        let p = bin(f, BinaryOp::IMul, x, m)?;
        return bin(f, BinaryOp::LShr, p, 21);
    }
    bin(f, BinaryOp::UDiv, x, d)
}

/// `x % d` for a constant `d` >= 1 (see [`udiv`]).
fn urem(f: &mut Function, b: Block, x: Value, d: u32, small: bool, span: Span) -> Option<Value> {
    if d.is_power_of_two() {
        let mask = f.append_inst(b, InstData::Const { ty: Type::I32, bits: d - 1 }, span)?;
        return f.append_inst(b, InstData::Binary { op: BinaryOp::And, args: [x, mask] }, span);
    }
    let q = udiv(f, b, x, d, small, span)?;
    let c = f.append_inst(b, InstData::Const { ty: Type::I32, bits: d }, span)?;
    let qd = f.append_inst(b, InstData::Binary { op: BinaryOp::IMul, args: [q, c] }, span)?;
    f.append_inst(b, InstData::Binary { op: BinaryOp::ISub, args: [x, qd] }, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_up_to_whole_warps() {
        assert_eq!(padded_size([80, 1, 1]), Some(96));
        assert_eq!(padded_size([48, 1, 1]), Some(64));
        assert_eq!(padded_size([5, 5, 1]), Some(32));
        assert_eq!(padded_size([3, 3, 3]), Some(32));
        assert_eq!(padded_size([64, 1, 1]), None);
        assert_eq!(padded_size([8, 4, 1]), None);
        assert_eq!(padded_size([0, 1, 1]), None);
        assert_eq!(padded_size([u32::MAX, 1, 1]), None, "no multiple of 32 fits");
    }

    /// The multiply-and-shift division is exact for every index of a padded
    /// group of at most 1024 threads and every divisor up to 1024.
    #[test]
    fn divisions_by_constants_are_exact_below_1024() {
        for d in 1..=1024u32 {
            if d.is_power_of_two() {
                continue;
            }
            let m = (1u32 << 21).div_ceil(d);
            for x in 0..1024u32 {
                let p = u64::from(x) * u64::from(m);
                assert!(p < 1 << 32, "{x} * {m} overflows");
                assert_eq!((p >> 21) as u32, x / d, "{x} / {d}");
            }
        }
    }
}
