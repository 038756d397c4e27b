//! Whole-wave 32-bit accesses (nearly every memory instruction a kernel runs):
//! one pass over the wave's addresses, written so that it vectorizes, says how
//! they are laid out (coalesced, uniform or scattered), and that layout alone
//! bounds-checks the access, picks the copy and gives the span of bytes it
//! touches. Partial masks and accesses that would fault take the per-lane path
//! in `memory.rs`, which reports the fault of the first bad lane.

use super::device::WriteLog;

/// `4 * i` for lane `i`: the offsets of a coalesced 32-bit access.
const STEP: [u32; 64] = {
    let mut s = [0u32; 64];
    let mut i = 0;
    while i < 64 {
        s[i] = 4 * i as u32;
        i += 1;
    }
    s
};

/// How a whole wave's 32-bit addresses are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Lane `i` at `a0 + 4i`: one slice of consecutive words.
    Coalesced,
    /// Every lane at `a0`: one word for all.
    Uniform,
    Scattered,
}

/// The layout of `addrs` (at most 64 lanes, at least one), in one pass that
/// compares every lane with both layouts (xor, or-reduced: no branch per lane).
#[inline(always)]
pub(super) fn shape(addrs: &[u32]) -> Shape {
    let a0 = addrs[0];
    let (mut coalesced, mut uniform) = (0u32, 0u32);
    for (&a, &step) in addrs.iter().zip(&STEP) {
        coalesced |= a ^ a0.wrapping_add(step);
        uniform |= a ^ a0;
    }
    if coalesced == 0 {
        Shape::Coalesced
    } else if uniform == 0 {
        Shape::Uniform
    } else {
        Shape::Scattered
    }
}

/// The lowest and highest address of a 32-bit access of shape `shape` at
/// `addrs`, when every lane's word lies inside a space of `len` bytes (and, when
/// `align`, is 4-byte aligned); `None` when some lane would fault.
#[inline(always)]
pub(super) fn span(addrs: &[u32], shape: Shape, len: usize, align: bool) -> Option<(u32, u32)> {
    let a0 = addrs[0];
    // Addresses are 32-bit: a range past 2^32 would wrap, so it is never in bounds.
    let limit = (len as u64).min(1 << 32);
    let (lo, hi, or) = match shape {
        Shape::Coalesced => (a0, a0.wrapping_add(4 * (addrs.len() as u32 - 1)), a0),
        Shape::Uniform => (a0, a0, a0),
        Shape::Scattered => {
            let (mut lo, mut hi, mut or) = (u32::MAX, 0u32, 0u32);
            for &a in addrs {
                lo = lo.min(a);
                hi = hi.max(a);
                or |= a;
            }
            (lo, hi, or)
        }
    };
    let end = match shape {
        Shape::Coalesced => a0 as u64 + 4 * addrs.len() as u64,
        _ => hi as u64 + 4,
    };
    (end <= limit && (!align || or & 3 == 0)).then_some((lo, hi))
}

/// Load the little-endian words a whole wave's access of shape `shape` (checked
/// by [`span`]) reads from `space`: the addresses are `regs[ai..ai + w]`, the
/// destination `regs[di..di + w]`, which may be the address register itself
/// (every address is read before the first lane is written).
#[inline(always)]
pub(super) fn load(regs: &mut [u32], di: usize, ai: usize, w: usize, shape: Shape, space: &[u8]) {
    let a0 = regs[ai] as usize;
    let dst = &mut regs[di..di + w];
    match shape {
        Shape::Coalesced => {
            for (r, b) in dst.iter_mut().zip(space[a0..a0 + 4 * w].chunks_exact(4)) {
                *r = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        Shape::Uniform => {
            let b = &space[a0..a0 + 4];
            dst.fill(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
        Shape::Scattered => {
            let mut out = [0u32; 64];
            for (o, &a) in out.iter_mut().zip(&regs[ai..ai + w]) {
                let b = &space[a as usize..a as usize + 4];
                *o = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            regs[di..di + w].copy_from_slice(&out[..w]);
        }
    }
}

/// Store `vals` at `addrs` (of shape `shape`, checked by [`span`]) in `space`,
/// lane by lane in lane order where lanes may collide.
#[inline(always)]
pub(super) fn store(space: &mut [u8], addrs: &[u32], vals: &[u32], shape: Shape) {
    let a0 = addrs[0] as usize;
    match shape {
        Shape::Coalesced => {
            for (b, &v) in space[a0..a0 + 4 * vals.len()].chunks_exact_mut(4).zip(vals) {
                b.copy_from_slice(&v.to_le_bytes());
            }
        }
        // Every lane writes the same word: the last lane's value stays.
        Shape::Uniform => space[a0..a0 + 4].copy_from_slice(&vals[vals.len() - 1].to_le_bytes()),
        Shape::Scattered => {
            for (&a, &v) in addrs.iter().zip(vals) {
                space[a as usize..a as usize + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// [`store`] for a speculative chunk: the words go to its log of stores.
#[inline(always)]
pub(super) fn log_store(log: &mut WriteLog, addrs: &[u32], vals: &[u32], shape: Shape) {
    match shape {
        Shape::Coalesced => log.push_words(addrs[0], vals),
        Shape::Uniform => log.push_words(addrs[0], &vals[vals.len() - 1..]),
        Shape::Scattered => {
            for (&a, &v) in addrs.iter().zip(vals) {
                log.push_words(a, &[v]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let co: Vec<u32> = (0..32).map(|i| 100 + 4 * i).collect();
        assert_eq!(shape(&co), Shape::Coalesced);
        assert_eq!(shape(&[7]), Shape::Coalesced);
        assert_eq!(shape(&[96; 64]), Shape::Uniform);
        let mut sc = co.clone();
        sc[31] += 4;
        assert_eq!(shape(&sc), Shape::Scattered);
        // Stride 8 and descending are scattered.
        let st: Vec<u32> = (0..32).map(|i| 8 * i).collect();
        assert_eq!(shape(&st), Shape::Scattered);
        let de: Vec<u32> = (0..32).rev().map(|i| 4 * i).collect();
        assert_eq!(shape(&de), Shape::Scattered);
    }

    #[test]
    fn spans_and_bounds() {
        let co: Vec<u32> = (0..32).map(|i| 100 + 4 * i).collect();
        // The last word ends at 100 + 128 = 228.
        assert_eq!(span(&co, Shape::Coalesced, 228, false), Some((100, 224)));
        assert_eq!(span(&co, Shape::Coalesced, 227, false), None);
        assert_eq!(span(&[224; 32], Shape::Uniform, 228, false), Some((224, 224)));
        assert_eq!(span(&[225; 32], Shape::Uniform, 228, false), None);
        assert_eq!(span(&[8, 0, 16], Shape::Scattered, 20, false), Some((0, 16)));
        assert_eq!(span(&[8, 0, 17], Shape::Scattered, 20, false), None);
        // Alignment, where the profile requires it.
        assert_eq!(span(&[6, 2], Shape::Scattered, 64, false), Some((2, 6)));
        assert_eq!(span(&[6, 2], Shape::Scattered, 64, true), None);
        assert_eq!(span(&[2, 6], Shape::Coalesced, 64, true), None);
        // A coalesced range that would wrap past 2^32 is never in bounds.
        let wrap = [u32::MAX - 3, 0];
        assert_eq!(shape(&wrap), Shape::Coalesced);
        assert_eq!(span(&wrap, Shape::Coalesced, usize::MAX, false), None);
    }

    #[test]
    fn copies_match_lane_by_lane() {
        let space: Vec<u8> = (0..=255u8).collect();
        let cases: [Vec<u32>; 4] = [
            (0..16).map(|i| 8 + 4 * i).collect(),
            vec![20; 16],
            (0..16).map(|i| (i * 37) % 240).collect(),
            // Colliding lanes.
            (0..16).map(|i| 4 * (i % 3)).collect(),
        ];
        for addrs in cases {
            let s = shape(&addrs);
            assert!(span(&addrs, s, space.len(), false).is_some());
            // Registers: r0 the addresses, r1 the destination.
            let mut regs = addrs.clone();
            regs.extend([0u32; 16]);
            load(&mut regs, 16, 0, 16, s, &space);
            let want: Vec<u32> = addrs.iter().map(|&a| u32::from_le_bytes(space[a as usize..a as usize + 4].try_into().unwrap())).collect();
            assert_eq!(regs[16..], want[..], "{s:?}");
            // Loading into the address register itself.
            let mut same = addrs.clone();
            load(&mut same, 0, 0, 16, s, &space);
            assert_eq!(same, want, "{s:?} in place");
            // Stores: lanes in lane order (the last of colliding lanes wins).
            let vals: Vec<u32> = (0..16).map(|i| 0x0101_0101 * (i + 1)).collect();
            let (mut fast, mut slow) = (space.clone(), space.clone());
            store(&mut fast, &addrs, &vals, s);
            for (&a, &v) in addrs.iter().zip(&vals) {
                slow[a as usize..a as usize + 4].copy_from_slice(&v.to_le_bytes());
            }
            assert_eq!(fast, slow, "{s:?}");
            // Held back in a log and replayed: the same bytes.
            let (mut log, mut replayed) = (WriteLog::default(), space.clone());
            log_store(&mut log, &addrs, &vals, s);
            log.replay(&mut replayed);
            assert_eq!(replayed, slow, "{s:?} logged");
        }
    }
}
