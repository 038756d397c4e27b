//! Loads, stores and atomics on device and local memory, with their faults
//! (out of bounds; misaligned in the spec profile, which only guarantees aligned
//! accesses) and, for the cycle model, the transactions (device) or bank passes
//! (local) each wave access costs.

use super::device::Device;
use super::words;
use super::{lanes, rd, wr, Exec, Wave};
use crate::isa::*;
use crate::timing::WaveTrace;
use crate::{Fault, FaultKind};

/// The fault for an access of `size` bytes at `addr` outside local or device memory.
fn out_of_bounds(local: bool, addr: usize, size: u32) -> FaultKind {
    if local {
        FaultKind::LocalOutOfBounds { addr: addr as u64, size }
    } else {
        FaultKind::DeviceOutOfBounds { addr: addr as u64, size }
    }
}

impl Exec<'_> {
    /// Addresses of the executing lanes (lane order), checked against a space of
    /// `space` bytes and, in the spec profile, natural alignment. The first bad lane faults.
    #[allow(clippy::too_many_arguments)]
    fn addresses(
        &self,
        exec: u64,
        regs: &[u32],
        addr: R,
        size: usize,
        local: bool,
        space: usize,
        out: &mut [u32; 64],
    ) -> Result<usize, (FaultKind, usize)> {
        let w = self.geo.w as usize;
        let mut n = 0;
        let align = self.spec && size > 1;
        lanes!(exec, l, {
            let a = rd(regs, w, addr, l);
            if a as usize + size > space {
                return Err((out_of_bounds(local, a as usize, size as u32), l));
            }
            if align && a as usize % size != 0 {
                return Err((FaultKind::Misaligned { addr: a as u64, size: size as u32, local }, l));
            }
            out[n] = a;
            n += 1;
        });
        Ok(n)
    }

    /// Check a 4-byte access at `a` in a space of `size` bytes.
    #[inline(always)]
    fn check_word(&self, size: usize, a: u32, local: bool) -> Result<(), FaultKind> {
        if a as usize + 4 > size {
            return Err(out_of_bounds(local, a as usize, 4));
        }
        if self.spec && a & 3 != 0 {
            return Err(FaultKind::Misaligned { addr: a as u64, size: 4, local });
        }
        Ok(())
    }

    /// A whole wave's 32-bit access at `addrs` in a space of `size` bytes: its
    /// layout and lowest and highest address, or `None` when some lane would
    /// fault (the per-lane path then finds which).
    #[inline(always)]
    pub(super) fn whole_wave(&self, addrs: &[u32], size: usize) -> Option<(words::Shape, u32, u32)> {
        let shape = words::shape(addrs);
        words::span(addrs, shape, size, self.spec).map(|(lo, hi)| (shape, lo, hi))
    }

    /// Count `lanes` lanes' loads or stores.
    #[inline(always)]
    pub(super) fn count_access(&mut self, local: bool, kind: Access, lanes: u64) {
        let s = &mut self.stats;
        let c = match (local, kind) {
            (true, Access::Store) => &mut s.local_stores,
            (true, _) => &mut s.local_loads,
            (false, Access::Store) => &mut s.device_stores,
            (false, _) => &mut s.device_loads,
        };
        *c += lanes;
    }

    /// The little-endian word at `a` in `space`, checked.
    #[inline(always)]
    fn word(&self, space: &[u8], a: u32, local: bool) -> Result<u32, FaultKind> {
        self.check_word(space.len(), a, local)?;
        let i = a as usize;
        Ok(u32::from_le_bytes([space[i], space[i + 1], space[i + 2], space[i + 3]]))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory_op(
        &mut self,
        op: &Op,
        wave: &mut Wave,
        exec: u64,
        mem: &mut Device,
        tr: &mut WaveTrace,
        pc: u32,
        wi: u32,
    ) -> Result<(), Fault> {
        let w = self.geo.w as usize;
        // The executing lanes' addresses, for the per-lane paths and the cycle model.
        let mut addrs = [0u32; 64];
        match *op {
            // 32-bit accesses of full registers (nearly all of them): a whole wave
            // in one pass (`words.rs`), unless a lane would fault.
            Op::Load { local, bytes: 4, d, addr } if d.half == Half::Full && addr.half == Half::Full => {
                let space: &[u8] = if local { &self.local } else { mem.bytes() };
                let (di, ai) = (d.idx as usize * w, addr.idx as usize * w);
                let regs = &mut wave.regs[..];
                let whole = if exec == self.all { self.whole_wave(&regs[ai..ai + w], space.len()) } else { None };
                if let Some((shape, lo, hi)) = whole {
                    if !local && mem.shared() && self.wrote(lo, hi.saturating_add(3)) {
                        return Err(self.spoil(pc, wi));
                    }
                    if self.record {
                        addrs[..w].copy_from_slice(&regs[ai..ai + w]);
                    }
                    words::load(regs, di, ai, w, shape, space);
                    self.count_access(local, Access::Load, w as u64);
                    self.log_span(pc, lo, hi, 4, local, Access::Load);
                    if self.record {
                        self.record_access(tr, &addrs[..w], 4, local, Access::Load);
                    }
                    return Ok(());
                }
                if !local && mem.shared() {
                    self.check_shared(op, wave, exec, pc, wi)?;
                }
                let space: &[u8] = if local { &self.local } else { mem.bytes() };
                let regs = &mut wave.regs[..];
                let mut k = 0;
                lanes!(exec, l, {
                    let a = regs[ai + l];
                    let s = self.word(space, a, local).map_err(|kind| self.fault(kind, Some(pc), wi, Some(l)))?;
                    regs[di + l] = s;
                    addrs[k] = a;
                    k += 1;
                });
                self.count_access(local, Access::Load, k as u64);
                self.log_device(pc, &addrs[..k], 4, local, Access::Load);
                if self.record {
                    self.record_access(tr, &addrs[..k], 4, local, Access::Load);
                }
            }
            Op::Store { local, bytes: 4, addr, v } if v.half == Half::Full && addr.half == Half::Full => {
                let (vi, ai) = (v.idx as usize * w, addr.idx as usize * w);
                let regs = &wave.regs[..];
                let size = if local { self.local.len() } else { mem.len() };
                let whole = if exec == self.all { self.whole_wave(&regs[ai..ai + w], size) } else { None };
                if let Some((shape, lo, hi)) = whole {
                    let (addrs, vals) = (&regs[ai..ai + w], &regs[vi..vi + w]);
                    match (local, &mut *mem) {
                        (true, _) => words::store(&mut self.local, addrs, vals, shape),
                        (false, Device::Own(space)) => words::store(space, addrs, vals, shape),
                        (false, Device::Shared(_, log)) => words::log_store(log, addrs, vals, shape),
                    }
                    self.count_access(local, Access::Store, w as u64);
                    self.log_span(pc, lo, hi, 4, local, Access::Store);
                    if self.record {
                        self.record_access(tr, &regs[ai..ai + w], 4, local, Access::Store);
                    }
                    return Ok(());
                }
                let mut k = 0;
                lanes!(exec, l, {
                    let a = regs[ai + l];
                    self.check_word(size, a, local).map_err(|kind| self.fault(kind, Some(pc), wi, Some(l)))?;
                    let b = regs[vi + l].to_le_bytes();
                    if local {
                        self.local[a as usize..a as usize + 4].copy_from_slice(&b);
                    } else {
                        mem.put(a as usize, &b);
                    }
                    addrs[k] = a;
                    k += 1;
                });
                self.count_access(local, Access::Store, k as u64);
                self.log_device(pc, &addrs[..k], 4, local, Access::Store);
                if self.record {
                    self.record_access(tr, &addrs[..k], 4, local, Access::Store);
                }
            }
            Op::Load { local, bytes, d, addr } => {
                let n = bytes as usize;
                if !local && mem.shared() {
                    self.check_shared(op, wave, exec, pc, wi)?;
                }
                let space: &[u8] = if local { &self.local } else { mem.bytes() };
                let k = self
                    .addresses(exec, &wave.regs, addr, n, local, space.len(), &mut addrs)
                    .map_err(|(kind, l)| self.fault(kind, Some(pc), wi, Some(l)))?;
                let regs = &mut wave.regs[..];
                let mut i = 0;
                lanes!(exec, l, {
                    let ad = addrs[i] as usize;
                    i += 1;
                    let s = &space[ad..ad + n];
                    match n {
                        1 => wr(regs, w, d, l, s[0] as u32),
                        2 => wr(regs, w, d, l, u16::from_le_bytes([s[0], s[1]]) as u32),
                        _ => {
                            for (q, c) in s.chunks_exact(4).enumerate() {
                                regs[(d.idx as usize + q) * w + l] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                            }
                        }
                    }
                });
                let c = exec.count_ones() as u64;
                if local {
                    self.stats.local_loads += c;
                } else {
                    self.stats.device_loads += c;
                }
                self.log_device(pc, &addrs[..k], n as u32, local, Access::Load);
                if self.record {
                    self.record_access(tr, &addrs[..k], n as u32, local, Access::Load);
                }
            }
            Op::Store { local, bytes, addr, v } => {
                let n = bytes as usize;
                let size = if local { self.local.len() } else { mem.len() };
                let k = self
                    .addresses(exec, &wave.regs, addr, n, local, size, &mut addrs)
                    .map_err(|(kind, l)| self.fault(kind, Some(pc), wi, Some(l)))?;
                let regs = &wave.regs[..];
                let mut i = 0;
                lanes!(exec, l, {
                    let ad = addrs[i] as usize;
                    i += 1;
                    let mut s = [0u8; 16];
                    match n {
                        1 => s[0] = rd(regs, w, v, l) as u8,
                        2 => s[..2].copy_from_slice(&(rd(regs, w, v, l) as u16).to_le_bytes()),
                        _ => {
                            for (q, c) in s[..n].chunks_exact_mut(4).enumerate() {
                                c.copy_from_slice(&regs[(v.idx as usize + q) * w + l].to_le_bytes());
                            }
                        }
                    }
                    if local {
                        self.local[ad..ad + n].copy_from_slice(&s[..n]);
                    } else {
                        mem.put(ad, &s[..n]);
                    }
                });
                let c = exec.count_ones() as u64;
                if local {
                    self.stats.local_stores += c;
                } else {
                    self.stats.device_stores += c;
                }
                self.log_device(pc, &addrs[..k], n as u32, local, Access::Store);
                if self.record {
                    self.record_access(tr, &addrs[..k], n as u32, local, Access::Store);
                }
            }
            Op::Atomic { local, op, d, addr, v, cmp } => {
                let size = if local { self.local.len() } else { mem.len() };
                let k = self
                    .addresses(exec, &wave.regs, addr, 4, local, size, &mut addrs)
                    .map_err(|(kind, l)| self.fault(kind, Some(pc), wi, Some(l)))?;
                let space: &mut [u8] = match (local, &mut *mem) {
                    (true, _) => &mut self.local,
                    (false, Device::Own(space)) => space,
                    // `check_shared` stopped a speculative chunk before its atomics.
                    (false, Device::Shared(..)) => return Err(self.spoil(pc, wi)),
                };
                let regs = &mut wave.regs[..];
                let mut i = 0;
                // Lanes apply in lane order, so results are deterministic.
                lanes!(exec, l, {
                    let ad = addrs[i] as usize;
                    i += 1;
                    let s = &mut space[ad..ad + 4];
                    let old = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                    let x = rd(regs, w, v, l);
                    let new = match op {
                        AtomOp::Add => old.wrapping_add(x),
                        AtomOp::Sub => old.wrapping_sub(x),
                        AtomOp::Min => old.min(x),
                        AtomOp::Max => old.max(x),
                        AtomOp::And => old & x,
                        AtomOp::Or => old | x,
                        AtomOp::Xor => old ^ x,
                        AtomOp::Exchange => x,
                        AtomOp::Cas => {
                            let c = cmp.map(|c| rd(regs, w, c, l)).unwrap_or(0);
                            if old == c {
                                x
                            } else {
                                old
                            }
                        }
                    };
                    s.copy_from_slice(&new.to_le_bytes());
                    if let Some(d) = d {
                        wr(regs, w, d, l, old);
                    }
                });
                self.log_device(pc, &addrs[..k], 4, local, Access::Atomic);
                if self.record {
                    self.record_access(tr, &addrs[..k], 4, local, Access::Atomic);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A speculative chunk (`device.rs`) stops before a device load its
    /// snapshot of memory cannot serve: one overlapping what the chunk itself
    /// stored. (Whole-wave 32-bit loads check the span they already have, and
    /// atomics always stop it.)
    fn check_shared(&mut self, op: &Op, wave: &Wave, exec: u64, pc: u32, wi: u32) -> Result<(), Fault> {
        match *op {
            Op::Load { local: false, bytes, addr, .. } => {
                let w = self.geo.w as usize;
                let (mut lo, mut hi) = (u32::MAX, 0u32);
                lanes!(exec, l, {
                    let a = rd(&wave.regs, w, addr, l);
                    lo = lo.min(a);
                    hi = hi.max(a);
                });
                if lo <= hi && self.wrote(lo, hi.saturating_add(bytes as u32 - 1)) {
                    return Err(self.spoil(pc, wi));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Whether this speculative chunk stored to any byte of `lo..=hi`.
    #[inline(always)]
    pub(super) fn wrote(&self, lo: u32, hi: u32) -> bool {
        self.log.as_ref().is_some_and(|log| log.wrote(lo, hi))
    }

    /// Stop a speculative chunk: it runs again on the memory itself, and this
    /// error is never reported.
    pub(super) fn spoil(&mut self, pc: u32, wi: u32) -> Fault {
        self.spoiled = true;
        self.fault(FaultKind::Other("speculative run stopped".into()), Some(pc), wi, None)
    }

    /// For a speculative parallel run: note the device words an access read or wrote.
    #[inline(always)]
    fn log_device(&mut self, pc: u32, addrs: &[u32], bytes: u32, local: bool, kind: Access) {
        if let (Some(_), false) = (&self.log, local) {
            let (mut lo, mut hi) = (u32::MAX, 0);
            for &a in addrs {
                lo = lo.min(a);
                hi = hi.max(a);
            }
            self.log_span(pc, lo, hi, bytes, local, kind);
        }
    }

    /// The same, for an access whose lowest and highest address are known.
    #[inline(always)]
    pub(super) fn log_span(&mut self, pc: u32, lo: u32, hi: u32, bytes: u32, local: bool, kind: Access) {
        if let (Some(log), false) = (&mut self.log, local) {
            log.record(pc, lo, hi, bytes, kind != Access::Store, kind != Access::Load);
        }
    }

    /// Append what the cycle model needs about one wave access to `tr.mem`:
    /// device: the number of transactions, then their segment numbers; local: the passes.
    pub(super) fn record_access(&mut self, tr: &mut WaveTrace, addrs: &[u32], bytes: u32, local: bool, kind: Access) {
        if local {
            let passes = self.bank_passes(addrs, bytes, kind == Access::Atomic);
            tr.mem.push(passes);
            tr.check_cap();
            return;
        }
        let shift = self.seg_shift;
        let start = tr.mem.len();
        tr.mem.push(0);
        if kind == Access::Atomic {
            // Every lane's atomic is its own operation at the L2.
            tr.mem.extend(addrs.iter().map(|&a| a >> shift));
            self.mem.device_atomic_instructions += 1;
            self.mem.atomic_transactions += addrs.len() as u64;
        } else {
            let distinct = push_segments(&mut tr.mem, addrs, bytes, shift);
            let n = (tr.mem.len() - start - 1) as u64;
            // Perfect coalescing packs the distinct addresses into as few segments as possible.
            self.mem.ideal_transactions += (distinct * bytes as u64).div_ceil(1u64 << shift);
            if kind == Access::Load {
                self.mem.device_load_instructions += 1;
                self.mem.load_transactions += n;
            } else {
                self.mem.device_store_instructions += 1;
                self.mem.store_transactions += n;
            }
        }
        tr.mem[start] = (tr.mem.len() - start - 1) as u32;
        tr.check_cap();
    }

    /// Local-memory passes for one wave access: one pass serves one 4-byte word per
    /// bank, lanes reading the same word share it (broadcast); atomics on one word
    /// serialize. Also counts passes beyond the conflict-free minimum.
    fn bank_passes(&mut self, addrs: &[u32], bytes: u32, atomic: bool) -> u32 {
        let banks = self.banks;
        let per_lane = bytes.div_ceil(4).max(1);
        let mut words = [0u32; 256];
        let mut n = 0;
        for &a in addrs {
            for q in 0..per_lane {
                words[n] = (a >> 2) + q;
                n += 1;
            }
        }
        let words = &mut words[..n];
        let (passes, distinct) = if atomic {
            (max_per_bank(words, banks, &mut self.bank_count), n as u32)
        } else if words.windows(2).all(|p| p[1] == p[0] + 1) {
            // Consecutive words (the common case): no conflict.
            ((n as u32).div_ceil(banks), n as u32)
        } else {
            words.sort_unstable();
            let mut k = 0;
            for i in 0..words.len() {
                if k == 0 || words[i] != words[k - 1] {
                    words[k] = words[i];
                    k += 1;
                }
            }
            (max_per_bank(&words[..k], banks, &mut self.bank_count), k as u32)
        };
        self.mem.local_instructions += 1;
        self.mem.local_passes += passes as u64;
        self.mem.bank_conflict_passes += (passes - distinct.div_ceil(banks).min(passes)) as u64;
        passes
    }
}

/// The largest number of `words` that fall in one bank.
fn max_per_bank(words: &[u32], banks: u32, count: &mut [u32]) -> u32 {
    let mut most = 0;
    for &wd in words {
        let c = &mut count[(wd % banks) as usize];
        *c += 1;
        most = most.max(*c);
    }
    for &wd in words {
        count[(wd % banks) as usize] = 0;
    }
    most
}

/// What a device access does, for the counters and the cycle model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    Load,
    Store,
    Atomic,
}

/// Append the segments (`>> shift`) a wave access of `bytes` per lane touches to
/// `out`, ascending and distinct; the number of distinct addresses.
fn push_segments(out: &mut Vec<u32>, addrs: &[u32], bytes: u32, shift: u32) -> u64 {
    if let Some(n) = contiguous(addrs, bytes) {
        // The coalesced case in one vectorized check: lane i at base + i * bytes.
        let first = addrs[0] >> shift;
        let last = ((addrs[0] as u64 + n as u64 * bytes as u64 - 1) >> shift) as u32;
        out.extend(first..=last);
        return n as u64;
    }
    if let Some(&a0) = addrs.first() {
        if uniform(addrs, a0) {
            // A uniform access (a broadcast): one address, its one or two segments.
            let (first, last) = (a0 >> shift, ((a0 as u64 + bytes as u64 - 1) >> shift) as u32);
            out.extend(first..=last);
            return 1;
        }
    }
    let start = out.len();
    // Segments in lane order, consecutive duplicates dropped (enough when
    // addresses ascend); otherwise sorted and deduplicated. Distinct addresses
    // are counted on the way.
    let (mut sorted, mut distinct, mut prev) = (true, 0u64, None::<u32>);
    let mut last = None::<u32>;
    for &a in addrs {
        match prev {
            Some(p) if p == a => {}
            Some(p) => {
                sorted &= p < a;
                distinct += 1;
            }
            None => distinct += 1,
        }
        prev = Some(a);
        let end = ((a as u64 + bytes as u64 - 1) >> shift) as u32;
        let mut seg = a >> shift;
        loop {
            if last != Some(seg) {
                out.push(seg);
                last = Some(seg);
            }
            if seg >= end {
                break;
            }
            seg += 1;
        }
    }
    if !sorted {
        let segs = &mut out[start..];
        segs.sort_unstable();
        let mut k = 0;
        for i in 0..segs.len() {
            if k == 0 || segs[i] != segs[k - 1] {
                segs[k] = segs[i];
                k += 1;
            }
        }
        out.truncate(start + k);
        let mut v = addrs.to_vec();
        v.sort_unstable();
        v.dedup();
        distinct = v.len() as u64;
    }
    distinct
}

/// Whether every address is `a0` (or-reduced so the check vectorizes).
fn uniform(addrs: &[u32], a0: u32) -> bool {
    addrs.iter().fold(0, |d, &a| d | (a ^ a0)) == 0
}

/// `Some(lanes)` when lane i's address is exactly `addrs[0] + i * bytes` (a
/// coalesced access) and the range does not wrap; written branch-free so the
/// check vectorizes.
fn contiguous(addrs: &[u32], bytes: u32) -> Option<usize> {
    let &a0 = addrs.first()?;
    // Or-reduce the differences from the stride: zero when every step is `bytes`.
    let mut off = 0u32;
    for (&a, &b) in addrs[1..].iter().zip(addrs) {
        off |= a.wrapping_sub(b) ^ bytes;
    }
    (off == 0 && a0 as u64 + addrs.len() as u64 * bytes as u64 <= 1 << 32).then_some(addrs.len())
}

#[cfg(test)]
mod contiguous_tests {
    use super::{contiguous, push_segments};

    #[test]
    fn recognises_only_exact_unit_stride() {
        assert_eq!(contiguous(&[], 4), None);
        assert_eq!(contiguous(&[8], 4), Some(1));
        assert_eq!(contiguous(&[8, 12, 16, 20], 4), Some(4));
        assert_eq!(contiguous(&[8, 12, 12, 20], 4), None);
        assert_eq!(contiguous(&[8, 16, 24], 4), None);
        assert_eq!(contiguous(&[8, 10, 12], 2), Some(3));
        // Wrapping past 2^32 is not a contiguous range.
        assert_eq!(contiguous(&[u32::MAX - 3, 0], 4), None);
    }

    #[test]
    fn segments_of_contiguous_and_scattered_accesses() {
        let seg = |addrs: &[u32], bytes| {
            let mut v = Vec::new();
            let d = push_segments(&mut v, addrs, bytes, 7);
            (v, d)
        };
        // 32 lanes of 4 bytes from 120: bytes 120..248, segments 0 and 1.
        let lanes: Vec<u32> = (0..32).map(|i| 120 + 4 * i).collect();
        assert_eq!(seg(&lanes, 4), (vec![0, 1], 32));
        // 8-byte lanes spanning three segments.
        let wide: Vec<u32> = (0..32).map(|i| 8 * i + 4).collect();
        assert_eq!(seg(&wide, 8), (vec![0, 1, 2], 32));
        // Same words, reversed: the general path sorts; the same segments.
        let rev: Vec<u32> = lanes.iter().rev().copied().collect();
        assert_eq!(seg(&rev, 4), (vec![0, 1], 32));
        // A broadcast: one address, one segment, one distinct address.
        assert_eq!(seg(&[300; 32], 4), (vec![2], 1));
        // A straddling lane adds the next segment.
        assert_eq!(seg(&[126, 1000], 4), (vec![0, 1, 7], 2));
    }
}
