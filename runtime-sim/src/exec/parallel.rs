//! Workgroups in parallel, with the results of running them one after another.
//!
//! The semantics are sequential: workgroup `g` sees device memory as groups
//! `0..g` left it. A batch of consecutive groups is split into chunks, one per
//! thread (this one included). Every thread runs its chunk speculatively on its
//! own copy of memory as it was when the batch started, noting for each memory
//! instruction the span of device addresses it read and wrote; the real memory
//! is the batch's read-only snapshot meanwhile. A copy is filled a page at a
//! time, from the snapshot, the first time an access may touch the page
//! ([`LazyPages`]): no thread copies memory its groups never use. The chunks
//! are then checked in dispatch order: a chunk none of whose spans overlaps a
//! span an earlier chunk of the batch wrote saw exactly what it would have seen
//! running in order, and wrote nothing an earlier chunk wrote, so its writes,
//! counts and any fault are the sequential ones: its written spans are copied
//! into the real memory. Otherwise its work is thrown away and the chunk runs
//! again here, on the real memory. Every copy then drops the pages the batch
//! changed. Spans are kept per instruction (a load of one buffer and a store to
//! another do not overlap), so the check costs a few comparisons per memory
//! instruction; kernels whose groups touch interleaved addresses only lose the
//! parallelism, never correctness.
//!
//! Chunks grow while batches go through cleanly and shrink on conflicts; after
//! a few conflicting batches (kernels whose groups talk through memory, such as
//! atomic counters) the rest runs on this thread alone. Speculation runs under an
//! instruction limit even when the run has none, since a group may spin on a flag
//! an earlier group sets; hitting it only sends the chunk back to run here.

use std::sync::Arc;

use super::{Exec, Wave};
use crate::timing::WaveTrace;
use crate::{Fault, FaultKind, Memory, SimConfig};

/// Device memory larger than this is not copied per thread.
const MAX_MEMORY: usize = 256 << 20;
/// Wave-instructions per group a speculative chunk may issue when the run has no limit.
const SPECULATION_LIMIT: u64 = if cfg!(test) { 100_000 } else { 20_000_000 };
/// Groups per chunk: first, most.
const FIRST_CHUNK: u64 = 4;
const MAX_CHUNK: u64 = 512;
/// Conflicting batches after which the rest runs on one thread.
const MAX_CONFLICTS: u32 = 3;

/// An inclusive span of device byte addresses.
type Span = (u32, u32);
const EMPTY: Span = (u32::MAX, 0);

fn overlap(a: Span, b: Span) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

fn widen(s: &mut Span, t: Span) {
    s.0 = s.0.min(t.0);
    s.1 = s.1.max(t.1);
}

/// Per instruction, the span of device addresses it read and the span it wrote.
#[derive(Clone, Debug, Default)]
pub(crate) struct AccessLog {
    reads: Vec<Span>,
    writes: Vec<Span>,
}

impl AccessLog {
    fn new(instrs: usize) -> AccessLog {
        AccessLog { reads: vec![EMPTY; instrs], writes: vec![EMPTY; instrs] }
    }

    /// Instruction `pc`'s lanes accessed `bytes` bytes at addresses `lo..=hi`.
    pub fn record(&mut self, pc: u32, lo: u32, hi: u32, bytes: u32, read: bool, write: bool) {
        if lo > hi {
            return;
        }
        let span = (lo, hi.saturating_add(bytes - 1));
        if read {
            widen(&mut self.reads[pc as usize], span);
        }
        if write {
            widen(&mut self.writes[pc as usize], span);
        }
    }

    fn written(&self) -> impl Iterator<Item = Span> + '_ {
        self.writes.iter().copied().filter(|s| s.0 <= s.1)
    }

    fn touched(&self) -> impl Iterator<Item = Span> + '_ {
        self.reads.iter().chain(&self.writes).copied().filter(|s| s.0 <= s.1)
    }

    fn clear(&mut self) {
        self.reads.fill(EMPTY);
        self.writes.fill(EMPTY);
    }
}

/// Whether `mem` is small enough to copy for each thread.
pub(crate) fn fits(mem: &Memory) -> bool {
    mem.bytes.len() <= MAX_MEMORY
}

fn copy_span(dst: &mut [u8], src: &[u8], s: Span) {
    let (a, b) = (s.0 as usize, (s.1 as usize + 1).min(src.len()).min(dst.len()));
    if a < b {
        dst[a..b].copy_from_slice(&src[a..b]);
    }
}

/// log2 of the bytes per page of a speculative thread's copy of memory.
const PAGE_BITS: u32 = 12;
/// An access spanning more pages than this brings in each lane's pages alone.
pub(crate) const MAX_SPAN_PAGES: usize = 64;

/// A speculative thread's copy of device memory, filled a page at a time: the
/// copy is allocated zeroed (untouched pages cost nothing), and a page is copied
/// from the batch's snapshot of the real memory the first time an access may
/// touch it. After a batch, pages the real memory changed in are dropped and
/// fetched again when next touched, so nothing is copied that no group reads.
pub(crate) struct LazyPages {
    /// The real memory as the batch started (shared by every thread of the batch).
    base: Option<Arc<Vec<u8>>>,
    /// Bit per page: the copy holds the snapshot's bytes (or this thread's writes).
    valid: Vec<u64>,
}

impl LazyPages {
    fn new(bytes: usize) -> LazyPages {
        let pages = bytes.div_ceil(1 << PAGE_BITS);
        LazyPages { base: None, valid: vec![0; pages.div_ceil(64)] }
    }

    /// Make bytes `lo..=hi` of `own` (clipped to it) hold the snapshot's.
    pub fn fetch(&mut self, own: &mut [u8], lo: usize, hi: usize) {
        let Some(base) = &self.base else { return };
        let hi = hi.min(own.len().saturating_sub(1));
        if lo > hi {
            return;
        }
        for p in lo >> PAGE_BITS..=hi >> PAGE_BITS {
            let (word, bit) = (p / 64, 1u64 << (p % 64));
            if self.valid[word] & bit == 0 {
                self.valid[word] |= bit;
                let (a, b) = (p << PAGE_BITS, ((p + 1) << PAGE_BITS).min(own.len()).min(base.len()));
                own[a..b].copy_from_slice(&base[a..b]);
            }
        }
    }

    /// Whether bytes `lo..=hi` span more than [`MAX_SPAN_PAGES`] pages.
    pub fn wide(lo: usize, hi: usize) -> bool {
        (hi >> PAGE_BITS) - (lo >> PAGE_BITS) >= MAX_SPAN_PAGES
    }

    /// The real memory changed in `s`: its pages are fetched again when next touched.
    fn invalidate(&mut self, s: Span) {
        let last = (self.valid.len() * 64).saturating_sub(1);
        for p in (s.0 as usize >> PAGE_BITS)..=(s.1 as usize >> PAGE_BITS).min(last) {
            self.valid[p / 64] &= !(1u64 << (p % 64));
        }
    }
}

struct Worker<'a> {
    ex: Exec<'a>,
    waves: Vec<Wave>,
    traces: Vec<WaveTrace>,
    mem: Memory,
}

impl Worker<'_> {
    fn run(&mut self, groups: std::ops::Range<u64>, args: &[(u32, u32)]) -> Result<(), Fault> {
        for g in groups {
            self.ex.group(g, &mut self.waves, &mut self.traces, args, &mut self.mem)?;
        }
        Ok(())
    }

    fn lazy(&mut self) -> &mut LazyPages {
        self.ex.lazy.get_or_insert_with(|| LazyPages::new(self.mem.bytes.len()))
    }
}

fn panicked() -> Fault {
    Fault { kind: FaultKind::Other("a simulator thread panicked".into()), origin: None, workgroup: [0; 3], wave: 0, lane: None }
}

/// Run `groups` workgroups on `threads` threads with `ex` (whose counts receive
/// every group's). `mem` ends as a sequential run leaves it.
///
/// Every chunk of a batch, the first included, runs speculatively on its
/// thread's page-by-page copy ([`LazyPages`]) of the real memory, which stays
/// untouched (and shared) while the batch runs; the chunks are then checked and
/// committed in dispatch order, and a chunk that fails the check runs again
/// here on the real memory.
pub(crate) fn run(ex: &mut Exec, threads: usize, groups: u64, args: &[(u32, u32)], mem: &mut Memory) -> Result<(), Fault> {
    let limit = if ex.cfg.max_instructions == 0 { SPECULATION_LIMIT } else { ex.cfg.max_instructions };
    let spec_cfg = SimConfig { max_instructions: limit, ..ex.cfg.clone() };
    let unlimited = ex.cfg.max_instructions == 0;
    let instrs = ex.k.instrs.len();
    let mut workers: Vec<Worker> = (0..threads)
        .map(|_| {
            let mut w = Exec::new(ex.k, &spec_cfg, ex.geo, false);
            w.log = Some(AccessLog::new(instrs));
            w.lazy = Some(LazyPages::new(mem.bytes.len()));
            let waves = w.new_waves();
            let traces = (0..ex.geo.nwaves).map(|_| WaveTrace::default()).collect();
            Worker { ex: w, waves, traces, mem: Memory { bytes: vec![0; mem.bytes.len()] } }
        })
        .collect();
    let mut waves = ex.new_waves();
    let mut traces: Vec<WaveTrace> = (0..ex.geo.nwaves).map(|_| WaveTrace::default()).collect();
    ex.log = Some(AccessLog::new(instrs));
    // Spans the real memory changed in during this batch (committed chunks and
    // chunks run again), and spans of thrown-away chunks' copies.
    let mut written: Vec<Span> = Vec::new();
    let mut discarded: Vec<Span> = Vec::new();
    let (mut chunk, mut conflicts, mut g) = (FIRST_CHUNK, 0, 0);
    while g < groups {
        if conflicts >= MAX_CONFLICTS {
            ex.log = None;
            for r in g..groups {
                ex.group(r, &mut waves, &mut traces, args, mem)?;
            }
            return Ok(());
        }
        let n = workers.len() as u64;
        let ranges: Vec<std::ops::Range<u64>> = (0..n).map(|j| (g + j * chunk).min(groups)..(g + (j + 1) * chunk).min(groups)).collect();
        // The real memory is the batch's read-only snapshot while the chunks run.
        let snapshot = Arc::new(std::mem::take(&mut mem.bytes));
        for w in workers.iter_mut() {
            w.lazy().base = Some(Arc::clone(&snapshot));
        }
        let results: Vec<Result<(), Fault>> = std::thread::scope(|s| {
            let (first, rest) = workers.split_first_mut().expect("at least one thread");
            let handles: Vec<_> = rest.iter_mut().zip(&ranges[1..]).map(|(w, r)| s.spawn(move || w.run(r.clone(), args))).collect();
            let main = first.run(ranges[0].clone(), args);
            std::iter::once(main).chain(handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(panicked())))).collect()
        });
        for w in workers.iter_mut() {
            w.lazy().base = None;
        }
        mem.bytes = Arc::try_unwrap(snapshot).unwrap_or_else(|shared| shared.as_ref().clone());
        let mut clean = true;
        for ((w, result), range) in workers.iter_mut().zip(results).zip(&ranges) {
            let (counts, cat) = w.ex.take_counts();
            let wlog = w.ex.log.as_mut().expect("logging");
            let gave_up = unlimited && matches!(&result, Err(f) if matches!(f.kind, FaultKind::InstructionLimit { .. }));
            let valid = !gave_up && !wlog.touched().any(|t| written.iter().any(|&c| overlap(t, c)));
            if valid {
                for span in wlog.written() {
                    copy_span(&mut mem.bytes, &w.mem.bytes, span);
                    written.push(span);
                }
                ex.absorb(&counts, &cat);
                result?;
            } else {
                clean = false;
                discarded.extend(wlog.written());
                for r in range.clone() {
                    ex.group(r, &mut waves, &mut traces, args, mem)?;
                }
                let log = ex.log.as_mut().expect("logging");
                written.extend(log.written());
                log.clear();
            }
            wlog.clear();
        }
        for w in workers.iter_mut() {
            let lazy = w.lazy();
            for &span in written.iter().chain(&discarded) {
                lazy.invalidate(span);
            }
        }
        written.clear();
        discarded.clear();
        if clean {
            chunk = (chunk * 2).min(MAX_CHUNK);
        } else {
            conflicts += 1;
            chunk = (chunk / 2).max(1);
        }
        g = ranges[ranges.len() - 1].end;
    }
    ex.log = None;
    Ok(())
}
