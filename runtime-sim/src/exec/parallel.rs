//! Workgroups in parallel, with the results of running them one after another.
//!
//! The semantics are sequential: workgroup `g` sees device memory as groups
//! `0..g` left it. A batch of consecutive groups is split into chunks, one per
//! thread (this one too). Every chunk runs speculatively on the memory as it was
//! when the batch started, which the threads share read-only (nothing is
//! copied), with its stores held back in a log (`device.rs`), noting for each
//! memory instruction the span of device addresses it read and wrote. A chunk
//! stops early where the snapshot cannot serve it: a load overlapping what the
//! chunk itself stored, or an atomic. The chunks are then taken in dispatch
//! order: a chunk that was not stopped and none of whose spans overlaps a span
//! an earlier chunk of the batch wrote saw exactly what it would have seen
//! running in order, and wrote nothing an earlier chunk wrote, so its writes,
//! counts and any fault are the sequential ones: its log is replayed onto the
//! memory. Otherwise its work is thrown away and the chunk runs again here, on
//! the memory itself. Spans are kept per instruction (a load of one buffer and
//! a store to another do not overlap), so the checks cost a few comparisons per
//! memory instruction; kernels whose groups touch interleaved addresses only
//! lose the parallelism, never correctness.
//!
//! Chunks grow while batches go through cleanly and shrink on conflicts; after
//! a few conflicting batches (kernels whose groups talk through memory, such as
//! atomic counters) the rest runs on this thread alone. Speculation runs under an
//! instruction limit even when the run has none, since a group may spin on a flag
//! an earlier group sets; hitting it only sends the chunk back to run here.

use super::device::{Device, WriteLog};
use super::{Exec, Wave};
use crate::timing::WaveTrace;
use crate::{Fault, FaultKind, Memory, SimConfig};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::RwLock;

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
    /// The instructions with a written span, in the order they first wrote.
    stores: Vec<u32>,
}

impl AccessLog {
    fn new(instrs: usize) -> AccessLog {
        AccessLog { reads: vec![EMPTY; instrs], writes: vec![EMPTY; instrs], stores: Vec::new() }
    }

    /// Whether a write noted so far touched a byte of `lo..=hi`.
    #[inline(always)]
    pub fn wrote(&self, lo: u32, hi: u32) -> bool {
        self.stores.iter().any(|&pc| overlap(self.writes[pc as usize], (lo, hi)))
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
            if self.writes[pc as usize] == EMPTY {
                self.stores.push(pc);
            }
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
        self.stores.clear();
    }
}

struct Worker<'a> {
    ex: Exec<'a>,
    waves: Vec<Wave>,
    traces: Vec<WaveTrace>,
    /// The chunk's stores, held back.
    writes: WriteLog,
    /// Wave-instructions of the chunk so far after each group it finished, so
    /// the run's instruction limit is checked group by group in dispatch order.
    issued: Vec<u64>,
}

impl Worker<'_> {
    /// Run `groups` speculatively on `snapshot`.
    fn run(&mut self, groups: std::ops::Range<u64>, args: &[(u32, u32)], snapshot: &[u8]) -> Result<(), Fault> {
        let mut dev = Device::Shared(snapshot, &mut self.writes);
        self.issued.clear();
        for g in groups {
            self.ex.group(g, &mut self.waves, &mut self.traces, args, &mut dev)?;
            self.issued.push(self.ex.stats.wave_instructions);
        }
        Ok(())
    }
}

/// A batch's chunk for a helper thread, and what comes back.
type Job<'a> = (Worker<'a>, std::ops::Range<u64>);
type Done<'a> = (Worker<'a>, Result<(), Fault>);
/// A helper thread's two channels: chunks to it, results back.
type Lane<'a> = (Sender<Job<'a>>, Receiver<Done<'a>>);

fn panicked() -> Fault {
    Fault { kind: FaultKind::Other("a simulator thread panicked".into()), origin: None, workgroup: [0; 3], wave: 0, lane: None }
}

/// Run `groups` workgroups on `threads` threads with `ex` (whose counts receive
/// every group's). `mem` ends as a sequential run leaves it.
///
/// The helper threads live for the whole run (starting a thread per batch cost
/// more than a small batch's work): each takes a chunk and its worker through a
/// channel and hands them back. The memory sits in a lock the threads read it
/// through during a batch, and this thread writes it through between batches.
pub(crate) fn run(ex: &mut Exec, threads: usize, groups: u64, args: &[(u32, u32)], mem: &mut Memory) -> Result<(), Fault> {
    let limit = if ex.cfg.max_instructions == 0 { SPECULATION_LIMIT } else { ex.cfg.max_instructions };
    let spec_cfg = SimConfig { max_instructions: limit, ..ex.cfg.clone() };
    let instrs = ex.k.instrs.len();
    let mut workers: Vec<Worker> = (0..threads.max(1))
        .map(|_| {
            let mut w = Exec::new(ex.k, &spec_cfg, ex.geo, false);
            w.log = Some(AccessLog::new(instrs));
            let waves = w.new_waves();
            let traces = (0..ex.geo.nwaves).map(|_| WaveTrace::default()).collect();
            Worker { ex: w, waves, traces, writes: WriteLog::default(), issued: Vec::new() }
        })
        .collect();
    let shared = RwLock::new(std::mem::take(&mut mem.bytes));
    let result = std::thread::scope(|s| {
        let (mut lanes, mut helpers): (Vec<Lane>, Vec<_>) = (Vec::new(), Vec::new());
        for _ in 1..workers.len() {
            let (job_tx, job_rx) = mpsc::channel::<Job>();
            let (done_tx, done_rx) = mpsc::channel::<Done>();
            let shared = &shared;
            helpers.push(s.spawn(move || {
                for (mut w, range) in job_rx {
                    let result = w.run(range, args, &shared.read().unwrap_or_else(|e| e.into_inner()));
                    if done_tx.send((w, result)).is_err() {
                        break;
                    }
                }
            }));
            lanes.push((job_tx, done_rx));
        }
        let result = batches(ex, &mut workers, &lanes, &shared, groups, args);
        // Closing the channels ends the helpers; a helper's panic is a fault, not ours.
        drop(lanes);
        // Every helper is joined (one left panicked would make the scope panic).
        let mut joined = Ok(());
        for h in helpers {
            if h.join().is_err() {
                joined = Err(panicked());
            }
        }
        result.and(joined)
    });
    mem.bytes = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    result
}

/// The batches of [`run`]: `workers[0]` runs the first chunk of each on this
/// thread, `lanes` hand the others to the helper threads.
fn batches<'a>(
    ex: &mut Exec,
    workers: &mut Vec<Worker<'a>>,
    lanes: &[Lane<'a>],
    shared: &RwLock<Vec<u8>>,
    groups: u64,
    args: &[(u32, u32)],
) -> Result<(), Fault> {
    let unlimited = ex.cfg.max_instructions == 0;
    let mut waves = ex.new_waves();
    let mut traces: Vec<WaveTrace> = (0..ex.geo.nwaves).map(|_| WaveTrace::default()).collect();
    ex.log = Some(AccessLog::new(ex.k.instrs.len()));
    // Spans written in this batch by the chunks already taken.
    let mut committed: Vec<Span> = Vec::new();
    let (mut chunk, mut conflicts, mut g) = (FIRST_CHUNK, 0, 0);
    let write = || shared.write().unwrap_or_else(|e| e.into_inner());
    while g < groups {
        if conflicts >= MAX_CONFLICTS {
            ex.log = None;
            let mut mem = write();
            let mut dev = Device::Own(&mut mem);
            for r in g..groups {
                ex.group(r, &mut waves, &mut traces, args, &mut dev)?;
                ex.check_limits(r, ex.stats.wave_instructions)?;
            }
            return Ok(());
        }
        let n = workers.len() as u64;
        let ranges: Vec<std::ops::Range<u64>> = (0..n).map(|j| (g + j * chunk).min(groups)..(g + (j + 1) * chunk).min(groups)).collect();
        for ((job, _), (w, r)) in lanes.iter().zip(workers.drain(1..).zip(&ranges[1..])) {
            job.send((w, r.clone())).map_err(|_| panicked())?;
        }
        let mut results = vec![workers[0].run(ranges[0].clone(), args, &shared.read().unwrap_or_else(|e| e.into_inner()))];
        for (_, done) in lanes {
            let (w, result) = done.recv().map_err(|_| panicked())?;
            workers.push(w);
            results.push(result);
        }
        let mut mem = write();
        let mut clean = true;
        for ((w, result), range) in workers.iter_mut().zip(results).zip(&ranges) {
            let (counts, cat) = w.ex.take_counts();
            let wlog = w.ex.log.as_mut().expect("logging");
            let gave_up = unlimited && matches!(&result, Err(f) if matches!(f.kind, FaultKind::InstructionLimit { .. }));
            let valid = !w.ex.spoiled && !gave_up && !wlog.touched().any(|t| committed.iter().any(|&c| overlap(t, c)));
            if valid {
                // The run's limits after each group the chunk finished, as a run in order checks them.
                let before = ex.stats.wave_instructions;
                for (r, &issued) in range.clone().zip(&w.issued) {
                    ex.check_limits(r, before + issued)?;
                }
                w.writes.replay(&mut mem);
                committed.extend(wlog.written());
                ex.absorb(&counts, &cat);
                // A fault is the sequential one, its group's earlier stores applied.
                result?;
            } else {
                clean = false;
                let mut dev = Device::Own(&mut mem);
                for r in range.clone() {
                    ex.group(r, &mut waves, &mut traces, args, &mut dev)?;
                    ex.check_limits(r, ex.stats.wave_instructions)?;
                }
                let log = ex.log.as_mut().expect("logging");
                committed.extend(log.written());
                log.clear();
            }
            wlog.clear();
            w.writes.clear();
            w.ex.spoiled = false;
        }
        committed.clear();
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
