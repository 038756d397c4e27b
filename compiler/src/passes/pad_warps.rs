//! Whole warps for wave operations (`pad-warps`, `--isa wave-0.1.2` only).
//!
//! Why: wave-ptx 0.1.2 lowers every wave operation with the member mask
//! `0xffffffff`. In a workgroup whose thread count is not a multiple of 32 the
//! group's last warp is partial, and that mask names lanes that do not exist:
//! PTX leaves such a `shfl.sync`/`vote.sync` undefined, and on an H200 the
//! missing lanes read as garbage (docs/backends.md). WAVE 0.1.2 cannot state a
//! narrower mask, so the lanes have to exist.
//!
//! What: a kernel with wave operations and `[numthreads(X, Y, Z)]` whose
//! product N is not a multiple of 32 is compiled for 1-D groups of N rounded
//! up to a multiple of 32 (the launch its interface then states,
//! `Function::padded_workgroup`), in this shape:
//!
//! ```text
//! t = sr_thread_id_x                      // the linear index, 0 .. padded - 1
//! x, y, z = t % X, t / X % Y, t / (X * Y) // the ids the program reads
//! if t < N { the kernel } else { }
//! return
//! ```
//!
//! Every `sr_thread_id_*` the program reads becomes x, y or z and every
//! `sr_workgroup_size_*` the real size, so SV_GroupThreadID, SV_GroupIndex and
//! SV_DispatchThreadID (which lowering builds from the thread ids and the real
//! sizes) are what they are unpadded; lane and wave numbers are the same too,
//! since the linear index is. The extra threads skip the kernel, so they have
//! no effects. `converge-waves`, which runs next, treats the guard like any
//! divergent `if`: it moves each wave operation out of it, the extra lanes
//! giving the operation's identity as absent lanes would (a ballot or count
//! does not see them, `WaveReadLaneFirst` and `WaveIsFirstLane` read the least
//! real lane), and each barrier, so that every thread of the group reaches it.

use super::PassContext;
use crate::diag::Span;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use crate::options::Isa;
use std::collections::BTreeMap;

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

/// Whether `f` runs wave operations (barriers are not).
pub fn has_wave_ops(f: &Function) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    block_order(&nodes).iter().any(|&b| f.blocks[b].insts.iter().any(|&i| is_wave_op(&f.insts[i])))
}

fn is_wave_op(data: &InstData) -> bool {
    data.is_convergent() && !matches!(data, InstData::Barrier)
}

/// The pass: pads the kernel's workgroup (see the module doc) when
/// `cx.workgroup` is known, the ISA is `wave-0.1.2`, the kernel has wave
/// operations and its thread count is not a multiple of 32.
pub fn run(f: &mut Function, cx: &PassContext) -> bool {
    if cx.isa != Isa::Wave012 || f.padded_workgroup.is_some() {
        return false;
    }
    let Some(workgroup) = cx.workgroup else { return false };
    let Some(padded) = padded_size(workgroup) else { return false };
    if !has_wave_ops(f) {
        return false;
    }
    pad(f, workgroup, padded).is_some()
}

fn pad(f: &mut Function, [nx, ny, nz]: [u32; 3], padded: u32) -> Option<()> {
    let nodes = region_tree(f).ok()?;
    let blocks = block_order(&nodes);
    // One `return`, at the top level (lowering's early returns are flags).
    let returns: Vec<Block> = blocks.iter().copied().filter(|&b| f.blocks[b].term == Terminator::Return).collect();
    let [ret] = returns[..] else { return None };
    if !nodes.iter().any(|n| matches!(n, crate::ir::structure::Node::Block(b) if *b == ret)) {
        return None;
    }
    let old = f.entry_block();
    let span = f.blocks[old].insts.first().map(|&i| f.spans[i]).unwrap_or(f.blocks[old].term_span);
    let entry = f.create_block();
    let konst = |f: &mut Function, bits: u32| f.append_inst(entry, InstData::Const { ty: Type::I32, bits }, span);
    let t = f.append_inst(entry, InstData::Special { reg: SpecialReg::ThreadId(0) }, span)?;
    let zero = konst(f, 0)?;
    let small = padded <= 1024;
    let (x, y, z) = if ny == 1 && nz == 1 {
        (t, zero, zero)
    } else {
        let x = urem(f, entry, t, nx, small, span)?;
        let y = match (ny, nz) {
            (1, _) => zero,
            (_, 1) => udiv(f, entry, t, nx, small, span)?,
            _ => {
                let q = udiv(f, entry, t, nx, small, span)?;
                urem(f, entry, q, ny, small, span)?
            }
        };
        let z = if nz == 1 { zero } else { udiv(f, entry, t, nx * ny, small, span)? };
        (x, y, z)
    };
    let real = konst(f, nx * ny * nz)?;
    let inside = f.append_inst(entry, InstData::Cmp { op: CmpOp::ULt, args: [t, real] }, span)?;

    // The program's thread ids and workgroup sizes; kernel arguments move to
    // the new entry block (selection reads them there).
    let mut map = BTreeMap::new();
    let mut sizes = BTreeMap::new();
    let mut args = Vec::new();
    for &b in &blocks {
        let mut kept = Vec::new();
        for i in std::mem::take(&mut f.blocks[b].insts) {
            if matches!(f.insts[i], InstData::KernelArg { .. }) {
                args.push(i);
                continue;
            }
            let to = match f.insts[i] {
                InstData::Special { reg: SpecialReg::ThreadId(a) } => Some([x, y, z][usize::from(a.min(2))]),
                InstData::Special { reg: SpecialReg::WorkgroupSize(a) } => {
                    let n = [nx, ny, nz][usize::from(a.min(2))];
                    match sizes.get(&n) {
                        Some(&v) => Some(v),
                        None => {
                            let v = konst(f, n)?;
                            sizes.insert(n, v);
                            Some(v)
                        }
                    }
                }
                _ => None,
            };
            match (to, f.results[i]) {
                (Some(to), Some(v)) => {
                    map.insert(v, to);
                }
                _ => kept.push(i),
            }
        }
        f.blocks[b].insts = kept;
    }
    f.replace_uses(&map);
    f.blocks[entry].insts.splice(0..0, args);

    // if t < N { the kernel } else { }; return
    let skip = f.create_block();
    let end = f.create_block();
    let ret_span = f.blocks[ret].term_span;
    f.set_terminator(ret, Terminator::Jump { dest: end, args: Vec::new() }, ret_span);
    f.set_terminator(skip, Terminator::Jump { dest: end, args: Vec::new() }, span);
    f.set_terminator(end, Terminator::Return, ret_span);
    f.set_terminator(entry, Terminator::If { cond: inside, then_dest: old, else_dest: skip, merge: end }, span);
    f.entry = Some(entry);
    f.padded_workgroup = Some(padded);
    Some(())
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
