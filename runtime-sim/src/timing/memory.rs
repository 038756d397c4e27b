//! The memory system of the cycle model: each compute unit's memory pipeline
//! and local-memory pipeline, the L2 every compute unit shares (set-associative,
//! least-recently-used replacement, write-back, write-allocate) and DRAM, with
//! the L2's and DRAM's bandwidth as queues.
//!
//! Requests are handled when they are issued, in time order, so each one sees
//! the queues as the requests before it left them: a request's completion time
//! is fixed at issue. Bandwidths are kept in 1/256 cycle units so that rates
//! below one line per cycle are exact.

use crate::{Machine, MemoryCounters};

/// Fixed-point scale of the bandwidth queues (a representation, not a machine figure).
const FX: u64 = 256;

/// One compute unit's pipelines.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CuPipes {
    /// When the memory pipeline can take the next transaction.
    mem_free: u64,
    /// When local memory can start the next pass.
    lds_free: u64,
}

/// A set-associative cache of line numbers, least-recently-used replacement.
/// Each set is a ring in recency order: `head` is its most recent way, the
/// ways after it (wrapping) less and less recent. A miss steps `head` back one
/// way and overwrites the least recent line there (no shifting); a hit moves
/// its line to the front by shifting only the lines more recent than it.
/// `way_of` maps a line to its way, so a lookup is one load, not a search
/// (a streaming kernel misses nearly always and would search every way).
struct Cache {
    sets: u64,
    /// `sets - 1` when `sets` is a power of two (mostly): a mask instead of a division.
    set_mask: Option<u64>,
    ways: usize,
    /// `sets x ways` entries: a line number, with [`DIRTY`] when written;
    /// [`EMPTY`] for a way not filled yet (empty ways are always the least recent).
    tags: Vec<u32>,
    /// Per set, the way of its most recent line.
    head: Vec<u8>,
    /// Per line number: its way + 1 while it is cached, else 0 (grown on demand
    /// to the highest line seen; at most 64 ways, so a way fits a byte).
    way_of: Vec<u8>,
}

/// Set on an entry whose line was written (line numbers are below 2^30: a
/// segment is at least 4 bytes).
const DIRTY: u32 = 1 << 31;
const EMPTY: u32 = u32::MAX;

impl Cache {
    fn new(lines: u64, ways: u32) -> Cache {
        let ways = ways.clamp(1, 64) as usize;
        let sets = (lines / ways as u64).max(1);
        let set_mask = sets.is_power_of_two().then_some(sets - 1);
        Cache { sets, set_mask, ways, tags: vec![EMPTY; sets as usize * ways], head: vec![0; sets as usize], way_of: Vec::new() }
    }

    /// Look `line` up, installing it on a miss. Returns (hit, a dirty line was evicted).
    fn access(&mut self, line: u32, write: bool) -> (bool, bool) {
        let set = match self.set_mask {
            Some(mask) => line as u64 & mask,
            None => line as u64 % self.sets,
        } as usize;
        let base = set * self.ways;
        let ways = self.ways;
        let written = if write { DIRTY } else { 0 };
        let l = line as usize;
        if l >= self.way_of.len() {
            // Half as much again as now, so growing costs amortized constant time.
            let n = (l + 1).max(self.way_of.len() + self.way_of.len() / 2);
            self.way_of.resize(n, 0);
        }
        let head = self.head[set] as usize;
        let tags = &mut self.tags[base..base + ways];
        let found = self.way_of[l];
        if found != 0 {
            // Shift the lines more recent than it one way back, into its place.
            let mut i = found as usize - 1;
            let entry = tags[i] | written;
            while i != head {
                let prev = if i == 0 { ways - 1 } else { i - 1 };
                let moved = tags[prev];
                tags[i] = moved;
                self.way_of[(moved & !DIRTY) as usize] = i as u8 + 1;
                i = prev;
            }
            tags[head] = entry;
            self.way_of[l] = head as u8 + 1;
            return (true, false);
        }
        // The least recently used line (or an empty way) leaves: it is the way before `head`.
        let h = if head == 0 { ways - 1 } else { head - 1 };
        self.head[set] = h as u8;
        let last = tags[h];
        tags[h] = line | written;
        self.way_of[l] = h as u8 + 1;
        if last == EMPTY {
            return (false, false);
        }
        self.way_of[(last & !DIRTY) as usize] = 0;
        (false, last & DIRTY != 0)
    }
}

/// What a device request does at the L2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Request {
    Load,
    Store,
    Atomic,
}

pub(crate) struct MemSystem {
    l2: Cache,
    line_bytes: u64,
    transaction_cycles: u64,
    pipe_latency: u64,
    atomic_latency: u64,
    l2_latency: u64,
    dram_latency: u64,
    l2_line_fx: u64,
    dram_line_fx: u64,
    l2_free_fx: u64,
    dram_free_fx: u64,
    /// Lines through the L2, and lines DRAM read and wrote.
    l2_lines: u64,
    dram_reads: u64,
    dram_writes: u64,
    local_latency: u64,
    pass_cycles: u64,
    pub counters: MemoryCounters,
}

impl MemSystem {
    pub fn new(m: &Machine) -> MemSystem {
        let t = &m.memory;
        let line = t.segment_bytes.max(1) as u64;
        MemSystem {
            l2: Cache::new(t.l2_bytes as u64 / line, t.l2_ways),
            line_bytes: line,
            transaction_cycles: t.transaction_cycles as u64,
            pipe_latency: m.latency.memory as u64,
            atomic_latency: m.latency.atomic as u64,
            l2_latency: t.l2_latency as u64,
            dram_latency: t.dram_latency as u64,
            l2_line_fx: (line * FX / t.l2_bytes_per_cycle.max(1) as u64).max(1),
            dram_line_fx: (line * FX / t.dram_bytes_per_cycle.max(1) as u64).max(1),
            l2_free_fx: 0,
            dram_free_fx: 0,
            l2_lines: 0,
            dram_reads: 0,
            dram_writes: 0,
            local_latency: t.local_latency as u64,
            pass_cycles: t.local_pass_cycles as u64,
            counters: MemoryCounters::default(),
        }
    }

    /// Reserve one line of DRAM time no earlier than `t`; the cycle the transfer starts.
    #[inline]
    fn dram(&mut self, t: u64) -> u64 {
        let start = (t * FX).max(self.dram_free_fx);
        self.dram_free_fx = start + self.dram_line_fx;
        start.div_ceil(FX)
    }

    /// A wave's device access issued at `t` on a compute unit with pipelines `cu`,
    /// touching lines `lines` (one per transaction). Returns when its data is back
    /// (loads, atomics) or written to the L2 (stores). Only counts are kept per
    /// line; bytes and busy cycles follow from them (`counters`).
    pub fn device(&mut self, cu: &mut CuPipes, t: u64, lines: &[u32], req: Request) -> u64 {
        let write = req != Request::Load;
        let store = req == Request::Store;
        let extra = if req == Request::Atomic { self.atomic_latency } else { 0 };
        self.l2_lines += lines.len() as u64;
        let mut done = t;
        let mut mem_free = cu.mem_free;
        for &line in lines {
            let tx = t.max(mem_free);
            mem_free = tx + self.transaction_cycles;
            let at = ((tx + self.pipe_latency) * FX).max(self.l2_free_fx);
            self.l2_free_fx = at + self.l2_line_fx;
            let at = at.div_ceil(FX);
            let (hit, writeback) = self.l2.access(line, write);
            if writeback {
                self.dram_writes += 1;
                self.dram(at);
            }
            self.counters.l2_hits += hit as u64;
            // A store miss allocates the line without a fetch: it is written whole into the L2.
            let ready = if hit || store {
                at + self.l2_latency
            } else {
                self.dram_reads += 1;
                self.dram(at + self.l2_latency) + self.dram_latency
            };
            done = done.max(ready + extra);
        }
        cu.mem_free = mem_free;
        done
    }

    /// The counters, with what follows from the counts: misses, DRAM bytes and the
    /// busy cycles of the L2 and DRAM.
    pub fn counters(&self) -> MemoryCounters {
        let dram_lines = self.dram_reads + self.dram_writes;
        MemoryCounters {
            l2_misses: self.l2_lines - self.counters.l2_hits,
            dram_read_bytes: self.dram_reads * self.line_bytes,
            dram_write_bytes: self.dram_writes * self.line_bytes,
            dram_busy_cycles: dram_lines * self.dram_line_fx / FX,
            l2_busy_cycles: self.l2_lines * self.l2_line_fx / FX,
            ..self.counters
        }
    }

    /// A wave's local access issued at `t` taking `passes` passes; when its result is usable.
    pub fn local(&mut self, cu: &mut CuPipes, t: u64, passes: u32, atomic: bool) -> u64 {
        let start = t.max(cu.lds_free);
        let busy = passes as u64 * self.pass_cycles;
        cu.lds_free = start + busy;
        start + busy + self.local_latency + if atomic { self.atomic_latency } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_replacement_in_one_set() {
        let mut c = Cache::new(4, 2); // 2 sets of 2 ways
        assert_eq!(c.access(0, false), (false, false));
        assert_eq!(c.access(2, true), (false, false));
        assert_eq!(c.access(0, false), (true, false));
        // Line 4 maps to set 0: evicts 2 (least recently used), which is dirty.
        assert_eq!(c.access(4, false), (false, true));
        assert_eq!(c.access(0, false), (true, false));
        assert_eq!(c.access(2, false), (false, false));
        // The other set is untouched.
        assert_eq!(c.access(1, false), (false, false));
    }

    /// Against a plain LRU list per set, on random accesses, for set sizes with
    /// and without a remainder after the eight-way chunks and a set count that
    /// is not a power of two.
    #[test]
    fn agrees_with_lru_lists() {
        for (lines, ways) in [(64, 16), (60, 12), (24, 3), (8, 1), (48, 8)] {
            let mut c = Cache::new(lines, ways);
            let sets = lines / ways as u64;
            // Per set: (line, dirty), most recent first.
            let mut model: Vec<Vec<(u32, bool)>> = vec![Vec::new(); sets as usize];
            let mut seed = 7u64;
            for _ in 0..20000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let line = ((seed >> 33) % (lines * 3)) as u32;
                let write = (seed >> 20) & 3 == 0;
                let set = &mut model[(line as u64 % sets) as usize];
                let want = match set.iter().position(|&(l, _)| l == line) {
                    Some(i) => {
                        let (l, d) = set.remove(i);
                        set.insert(0, (l, d || write));
                        (true, false)
                    }
                    None => {
                        let evicted = if set.len() == ways as usize { set.pop().is_some_and(|(_, d)| d) } else { false };
                        set.insert(0, (line, write));
                        (false, evicted)
                    }
                };
                assert_eq!(c.access(line, write), want, "line {line} in a cache of {lines} lines, {ways} ways");
            }
        }
    }
}
