//! The cycle model: replays the instruction traces the functional executor
//! recorded on a model of a GPU ([`Machine`]) and reports what took the time
//! ([`TimingReport`]). `docs/timing-model.md` describes the model for users.
//!
//! - Compute units hold cores (SIMDs); workgroups are admitted whole, in dispatch
//!   order, to the next compute unit (round robin) with room, as resources free
//!   up ([`admission`]). The executor hands each group over as soon as it has run
//!   it, and the model runs until the group fits, so only resident groups' traces
//!   are kept.
//! - Each core issues at most one instruction at a time: an instruction keeps
//!   the core busy for its category's issue cost. A wave may issue when its
//!   operands are ready (a per-wave scoreboard of result times), so independent
//!   work after a load overlaps the load. A wave holds one of its core's wave
//!   slots from admission until it finishes (the lowest free slot); among ready
//!   waves the one in the lowest slot issues first, so the first-admitted waves
//!   run ahead as on hardware that favours its oldest waves.
//! - Results are ready after the category's latency; memory results when the
//!   memory system returns them ([`memory`]). Stores have no result but keep the
//!   pipelines busy. A barrier holds a wave until every unfinished wave of its
//!   group has reached it, then releases them all `barrier_cycles` later.
//! - Time advances from event to event (the next cycle a core can issue), in
//!   (cycle, core) order, so the result is deterministic. With few cores and
//!   units of one core, each compute unit runs its own events ahead of the
//!   others' up to its next one that touches what units share (a device
//!   access, a wave's end); only those are taken in the order of all units'
//!   ([`Engine::run_unit`]). The result is the same, as a test checks against
//!   the strict order.

mod admission;
mod memory;
mod queue;
mod record;

use crate::geometry::Geometry;
use crate::isa::{Op, PRED_SLOT_BASE};
use crate::report::{CoreCycles, PcTiming, Stalls, TimingReport, WaveState};
use crate::{Fault, FaultKind, Kernel, Machine, SimConfig};
use admission::{CuSlots, Fit};
use memory::{CuPipes, MemSystem, Request};
use queue::{Queue, WaveQueue};
use record::Recorder;

/// Trace buffers of retired groups up to this size are kept for reuse.
const POOLED_TRACE_BYTES: usize = 1 << 20;

/// Machines with at most this many cores find the next event by a scan.
const SCAN_CORES: usize = 1 << SCAN_CORE_BITS;
/// Bits of the core index in an event key.
const SCAN_CORE_BITS: u32 = 6;

/// Whether a test asked for every event through the heap (see `tests`).
#[cfg(test)]
fn force_heap() -> bool {
    tests::force_heap()
}

#[cfg(not(test))]
fn force_heap() -> bool {
    false
}

/// (cycle, core) as one integer ordered as the pair (cycle above, core below),
/// so the earliest event, lowest core first, is the least key. `u64::MAX`: none.
/// Cycles are far below 2^58; the core part is only read where cores fit `SCAN_CORE_BITS`.
fn event_key(t: u64, c: usize) -> u64 {
    if t == u64::MAX {
        u64::MAX
    } else {
        (t.min(u64::MAX >> SCAN_CORE_BITS >> 1) << SCAN_CORE_BITS) | (c as u64 & ((1 << SCAN_CORE_BITS) - 1))
    }
}

/// The least key. Four at a time in scalar code: without SSE4.2 a vectorized
/// minimum of unsigned 64-bit keys is emulated at several times the cost.
#[inline]
fn least(keys: &[u64]) -> u64 {
    let mut chunks = keys.chunks_exact(4);
    let mut k = u64::MAX;
    for c in &mut chunks {
        k = k.min(c[0].min(c[1]).min(c[2].min(c[3])));
    }
    chunks.remainder().iter().fold(k, |a, &b| a.min(b))
}

/// What one wave executed, as the functional executor recorded it.
#[derive(Clone, Debug, Default)]
pub(crate) struct WaveTrace {
    /// Instruction indices in execution order, as runs of consecutive ones
    /// (straight-line code is one run: little to write, hand over and read).
    pub runs: Vec<Run>,
    /// Per memory instruction in order: device, the transaction count then the
    /// segment (line) numbers; local, the number of passes.
    pub mem: Vec<u32>,
    /// Most words (`runs` count two each, `mem` one) the trace may hold (0:
    /// unlimited): past it the trace is `over`, emptied and no longer
    /// meaningful (the cycle model's trace window, [`crate::RunLimits::max_trace_bytes`]).
    pub cap: usize,
    pub over: bool,
}

/// Instructions `start..start + len`, executed one after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub start: u32,
    pub len: u32,
}

impl WaveTrace {
    /// Instructions `start..start + n` ran next.
    #[inline]
    pub fn record(&mut self, start: u32, n: u32) {
        if let Some(r) = self.runs.last_mut() {
            if r.start + r.len == start {
                r.len += n;
                return;
            }
        }
        if self.cap != 0 && self.runs.len() * 2 + self.mem.len() >= self.cap {
            self.overflow();
        }
        self.runs.push(Run { start, len: n });
    }

    /// Checks the cap after memory records were added.
    #[inline]
    pub fn check_cap(&mut self) {
        if self.cap != 0 && self.runs.len() * 2 + self.mem.len() > self.cap {
            self.overflow();
        }
    }

    /// Past the cap: the trace cannot be used, and stops growing.
    #[cold]
    fn overflow(&mut self) {
        self.over = true;
        self.runs.clear();
        self.mem.clear();
    }

    pub fn clear(&mut self) {
        self.runs.clear();
        self.mem.clear();
        self.over = false;
    }
}

/// What the waves of one workgroup executed, packed into one buffer for the
/// cycle model: the executor keeps its per-wave `WaveTrace`s and hands over
/// only this (when the model runs on another thread, the fewer cache lines
/// cross between the cores, the better).
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupTrace {
    /// Per wave, where its record is in `data`.
    waves: Vec<WaveSpan>,
    /// Wave after wave: its runs as (start, len) pairs, then its memory record.
    data: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
struct WaveSpan {
    /// Index of its first run, the end of its runs, and its memory record, in `data`.
    runs: u32,
    runs_end: u32,
    mem: u32,
}

impl GroupTrace {
    /// Pack the traces of a workgroup's waves (wave order).
    pub fn pack(&mut self, traces: &[WaveTrace]) {
        self.waves.clear();
        self.data.clear();
        for t in traces {
            let runs = self.data.len() as u32;
            for r in &t.runs {
                self.data.extend([r.start, r.len]);
            }
            let mem = self.data.len() as u32;
            self.data.extend_from_slice(&t.mem);
            self.waves.push(WaveSpan { runs, runs_end: mem, mem });
        }
    }

    /// Bytes the trace holds.
    pub fn bytes(&self) -> usize {
        self.data.len() * std::mem::size_of::<u32>() + self.waves.len() * std::mem::size_of::<WaveSpan>()
    }

    /// Bytes its buffers have allocated.
    pub fn capacity_bytes(&self) -> usize {
        self.data.capacity() * std::mem::size_of::<u32>() + self.waves.capacity() * std::mem::size_of::<WaveSpan>()
    }
}

/// How an instruction uses the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Plain,
    Device(Request),
    Local { atomic: bool },
    Barrier,
}

// A wave's scoreboard: per entry, twice the cycle the value is ready, plus one
// when memory produces it (one word per register keeps it compact). Entries:
// the registers, the four predicates, then an entry that stays 0 (`zero`, pads
// the reads of instructions with fewer than `INLINE_READS`) and one never
// read (`sink`, pads the writes). Sized to the kernel; the boards of all waves
// are one array (`Engine::boards`), wave `w`'s at `w * entries`, so a board's
// address is arithmetic on the wave's index, not a pointer to load first (a
// fixed 512-entry board per wave, whose masked indices need no bounds checks,
// was slower: the boards no longer shared cache lines).

/// Operands most instructions have at most; others keep theirs in `Engine::slots`.
const INLINE_READS: usize = 4;
const INLINE_WRITES: usize = 2;

struct PcInfo {
    /// Scoreboard entries read and written, padded with the `zero` / `sink` entries (`Score`)
    /// (when `wide`, the ranges into `Engine::slots` hold them instead).
    reads: [u16; INLINE_READS],
    writes: [u16; INLINE_WRITES],
    wide: bool,
    /// The result comes from memory (for stall attribution).
    mem_result: bool,
    /// The result is ready `latency` cycles after issue (no memory access).
    fixed_latency: bool,
    kind: Kind,
    issue: u64,
    latency: u64,
    wide_reads: (u32, u32),
    wide_writes: (u32, u32),
}

impl PcInfo {
    /// When every operand of this instruction is ready on scoreboard `score` (as a scoreboard entry).
    #[inline(always)]
    fn operands(&self, score: &[u64], slots: &[u16]) -> u64 {
        if self.wide {
            let (a, b) = self.wide_reads;
            return slots[a as usize..b as usize].iter().fold(0, |m, &s| m.max(score[s as usize]));
        }
        let [a, b, c, d] = self.reads;
        score[a as usize].max(score[b as usize]).max(score[c as usize].max(score[d as usize]))
    }

    /// Record `entry` for every result of this instruction.
    #[inline(always)]
    fn write(&self, score: &mut [u64], slots: &[u16], entry: u64) {
        if self.wide {
            let (a, b) = self.wide_writes;
            for &s in &slots[a as usize..b as usize] {
                score[s as usize] = entry;
            }
            return;
        }
        let [a, b] = self.writes;
        score[a as usize] = entry;
        score[b as usize] = entry;
    }
}

/// Why a wave (or a core) is waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Dependency,
    Memory,
    Barrier,
    Idle,
}

struct TWave {
    /// The next instruction and the end of its run; where the next run starts and
    /// the runs end, and where the next memory record is, in its group's `GroupTrace::data`.
    pc: u32,
    run_end: u32,
    next_run: u32,
    runs_end: u32,
    mpos: u32,
    /// Earliest issue allowed by the wave itself (after its last issue, admission or a barrier).
    avail: u64,
    avail_why: Wait,
    /// When the next instruction's operands are ready, and whether the last of them comes from memory.
    opnd: u64,
    opnd_mem: bool,
    at_barrier: bool,
    barrier_pc: u32,
    group: u32,
    /// Global index of the core it runs on, and its wave slot there.
    core: u32,
    slot: u32,
    /// Recorded in the timeline (compute unit 0).
    recorded: bool,
}

impl Core {
    /// The wave in `slot` can issue from cycle `t` on. The core issues nothing
    /// before it is free, so a wave ready by then goes straight to the ready set.
    fn wait(&mut self, slot: u32, t: u64) {
        if t <= self.busy_until {
            self.ready |= 1 << slot;
        } else {
            self.ready |= self.pending.push(t, slot);
        }
    }
}

/// When the memory access of kind `kind` that wave `w` issues at `t` has its
/// result (`data`: its group's trace, for the access's record). Out of line, so
/// that the common fixed-latency path stays short.
#[inline(never)]
fn memory_result(kind: Kind, w: &mut TWave, data: &[u32], mem: &mut MemSystem, cu: &mut CuPipes, t: u64) -> u64 {
    match kind {
        Kind::Device(req) => {
            let m = w.mpos as usize;
            let n = data[m] as usize;
            let lines = &data[m + 1..m + 1 + n];
            w.mpos += 1 + n as u32;
            mem.device(cu, t, lines, req)
        }
        Kind::Local { atomic } => {
            let passes = data[w.mpos as usize];
            w.mpos += 1;
            mem.local(cu, t, passes, atomic)
        }
        Kind::Plain | Kind::Barrier => t,
    }
}

/// The timeline segments of wave `w` (on core `core` of compute unit 0, of group
/// `group`) up to its issue at `t`, and the issue. Out of line: the timeline
/// fills early in a run, and the hot path stays short.
#[cold]
#[inline(never)]
fn record_issue(rec: &mut Recorder, core: u32, w: &TWave, group: u64, t: u64, cost: u64) {
    let (avail, opnd) = (w.avail, w.opnd);
    let row = rec.row(core, w.slot);
    let state = if w.opnd_mem { WaveState::Memory } else { WaveState::Dependency };
    if avail < opnd.min(t) {
        rec.segment(row, avail, opnd.min(t), state, group);
    }
    if avail.max(opnd) < t {
        rec.segment(row, avail.max(opnd), t, WaveState::Ready, group);
    }
    rec.segment(row, t, t + cost, WaveState::Issue, group);
}

/// When wave `w`'s next instruction has its operands; queue it on its core (`core`).
#[inline(always)]
fn operands_of(w: &mut TWave, board: &[u64], core: &mut Core, info: &[PcInfo], slots: &[u16]) {
    let latest = info[w.pc as usize].operands(board, slots);
    let t = latest >> 1;
    w.opnd = t;
    w.opnd_mem = latest & 1 == 1;
    core.wait(w.slot, w.avail.max(t));
}

impl TWave {
    /// At the end of a run: go on with the next one (`data`: its group's trace);
    /// false when there is none (the wave is done).
    #[inline]
    fn next_run(&mut self, data: &[u32]) -> bool {
        if self.next_run >= self.runs_end {
            return false;
        }
        let i = self.next_run as usize;
        self.pc = data[i];
        self.run_end = data[i] + data[i + 1];
        self.next_run += 2;
        true
    }

    /// A wave with nothing to run (`Engine::place` sets it up and clears its scoreboard).
    fn idle() -> TWave {
        TWave {
            pc: 0,
            run_end: 0,
            next_run: 0,
            runs_end: 0,
            mpos: 0,
            avail: 0,
            avail_why: Wait::Idle,
            opnd: 0,
            opnd_mem: false,
            at_barrier: false,
            barrier_pc: 0,
            group: 0,
            core: 0,
            slot: 0,
            recorded: false,
        }
    }

    fn why(&self) -> Wait {
        if self.opnd > self.avail {
            if self.opnd_mem {
                Wait::Memory
            } else {
                Wait::Dependency
            }
        } else {
            self.avail_why
        }
    }
}

struct TGroup {
    cu: u32,
    lane: u32,
    unfinished: u32,
    waiting: u32,
    members: Vec<u32>,
    index: u64,
    /// What its waves executed (back to `Engine::pool` when it retires).
    trace: GroupTrace,
}

struct Core {
    /// Slots holding a wave (bit per slot).
    used: u64,
    /// Slots whose wave could issue at the last look (its cycle has come).
    ready: u64,
    /// The other waves, except those at a barrier, by the cycle they can issue.
    pending: WaveQueue,
    /// Waves resident, and waiting at a barrier.
    resident: u32,
    at_barrier: u32,
    busy_until: u64,
    /// Cycles before this one are classified in `CoreCycles`.
    acct: u64,
    /// The cycle of this core's live heap entry (`u64::MAX`: none); with few cores only `Engine::times` is kept.
    queued: u64,
    /// Why the core waits after `acct`; worked out only when needed (`why_valid`).
    why: Wait,
    why_valid: bool,
}

pub(crate) struct Engine {
    m: Machine,
    fit: Fit,
    info: Vec<PcInfo>,
    /// Operands of the instructions with more than fit `PcInfo` inline.
    slots: Vec<u16>,
    /// Entries of a wave's scoreboard, and the scoreboards of all waves (see `PcInfo::operands`).
    score_entries: usize,
    boards: Vec<u64>,
    cores: Vec<Core>,
    cus: Vec<(CuSlots, CuPipes)>,
    /// The waves by core and slot: wave `c * wave_slots + slot` is the one in
    /// slot `slot` of core `c` (grown to the cores used so far), so a slot leads to
    /// its wave without a lookup.
    waves: Vec<TWave>,
    wave_slots: usize,
    groups: Vec<TGroup>,
    free_groups: Vec<u32>,
    heap: Queue,
    /// Each core's queued (cycle, core) packed as by [`event_key`] (`u64::MAX`:
    /// none), kept together: with few cores the next event is the least of these
    /// (one vectorized minimum) instead of coming through `heap`.
    times: Vec<u64>,
    scan: bool,
    /// With the scan and units of one core: each unit runs its own events ahead
    /// ([`Engine::run_unit`]).
    by_unit: bool,
    /// With `by_unit`: per compute unit, the key of its next event that touches
    /// shared state ([`Engine::shared`]), where its own run stopped (`u64::MAX`:
    /// none, or not run yet); and the units whose own run must go on ([`Engine::run_unit`]).
    unit_keys: Vec<u64>,
    stale: u64,
    /// Bits of the slots a core has.
    slot_mask: u64,
    /// The core issuing now: its next event is compared with the heap's first
    /// instead of going through the heap.
    current: Option<usize>,
    mem: MemSystem,
    next_cu: usize,
    now: u64,
    end: u64,
    retired: bool,
    dispatched: u64,
    /// Trace buffers of retired groups, for reuse.
    pool: Vec<GroupTrace>,
    /// Cores' waiting cycles by the reason, indexed by `Wait` (an index, not a
    /// branch per reason: which reason applies is hard to predict).
    waited: [u64; 4],
    per_pc: Vec<PcTiming>,
    /// The compute unit of each core.
    cu_of: Vec<u32>,
    rec: Recorder,
    /// Bytes of the traces of the resident groups (the trace window).
    held: usize,
}

impl Engine {
    pub fn new(k: &Kernel, cfg: &SimConfig, geo: &Geometry) -> Result<Engine, Fault> {
        let other = |m: String| Fault { kind: FaultKind::Other(m), origin: None, workgroup: [0; 3], wave: 0, lane: None };
        let m = cfg.machine.clone();
        m.validate().map_err(|e| other(format!("machine: {e}")))?;
        let registers = cfg.registers_for_occupancy.unwrap_or(0).max(k.registers);
        let fit = Fit::new(&m, registers, geo.w, geo.nwaves, k.local_memory);
        if fit.groups_per_cu == 0 {
            return Err(Fault {
                kind: FaultKind::DoesNotFit(format!(
                    "a workgroup of {} waves with {} registers per thread and {} bytes of local memory does not fit one compute unit \
                     ({} cores of {} wave slots, {} register bytes each, {} bytes of local memory)",
                    geo.nwaves,
                    fit.allocated,
                    k.local_memory,
                    m.cores_per_cu,
                    m.max_waves_per_core,
                    m.register_file_bytes,
                    m.local_memory_per_cu
                )),
                origin: None,
                workgroup: [0; 3],
                wave: 0,
                lane: None,
            });
        }
        // At most 256 registers (`validate`): entries fit 16 bits.
        let regs = k.registers.min(256) as u16;
        // Registers, then the four predicates.
        let index = |s: u16| if s >= PRED_SLOT_BASE { regs + (s - PRED_SLOT_BASE) } else { s };
        let mut slots = Vec::new();
        let info = k
            .instrs
            .iter()
            .map(|ins| {
                let kind = match ins.op {
                    Op::Load { local: false, .. } => Kind::Device(Request::Load),
                    Op::Store { local: false, .. } => Kind::Device(Request::Store),
                    Op::Atomic { local: false, .. } => Kind::Device(Request::Atomic),
                    Op::Load { local: true, .. } | Op::Store { local: true, .. } => Kind::Local { atomic: false },
                    Op::Atomic { local: true, .. } => Kind::Local { atomic: true },
                    Op::Barrier => Kind::Barrier,
                    _ => Kind::Plain,
                };
                let wide = ins.reads.len() > INLINE_READS || ins.writes.len() > INLINE_WRITES;
                let (mut reads, mut writes) = ([regs + 4; INLINE_READS], [regs + 5; INLINE_WRITES]);
                let (mut wide_reads, mut wide_writes) = ((0, 0), (0, 0));
                if wide {
                    let r0 = slots.len() as u32;
                    slots.extend(ins.reads.iter().map(|&s| index(s)));
                    let w0 = slots.len() as u32;
                    slots.extend(ins.writes.iter().map(|&s| index(s)));
                    (wide_reads, wide_writes) = ((r0, w0), (w0, slots.len() as u32));
                } else {
                    for (d, &s) in reads.iter_mut().zip(ins.reads.iter()) {
                        *d = index(s);
                    }
                    for (d, &s) in writes.iter_mut().zip(ins.writes.iter()) {
                        *d = index(s);
                    }
                }
                PcInfo {
                    reads,
                    writes,
                    wide,
                    mem_result: kind != Kind::Plain,
                    fixed_latency: matches!(kind, Kind::Plain | Kind::Barrier),
                    kind,
                    issue: m.issue.get(ins.category).max(1) as u64,
                    latency: m.latency.get(ins.category) as u64,
                    wide_reads,
                    wide_writes,
                }
            })
            .collect();
        let ncores = (m.compute_units * m.cores_per_cu) as usize;
        let wave_slots = m.max_waves_per_core as usize;
        let cores = (0..ncores)
            .map(|_| Core {
                used: 0,
                ready: 0,
                pending: WaveQueue::default(),
                resident: 0,
                at_barrier: 0,
                busy_until: 0,
                acct: 0,
                queued: u64::MAX,
                why: Wait::Idle,
                why_valid: true,
            })
            .collect();
        let rec = Recorder::new(m.cores_per_cu, m.max_waves_per_core);
        let scan = ncores <= SCAN_CORES && !force_heap();
        Ok(Engine {
            mem: MemSystem::new(&m),
            cus: (0..m.compute_units).map(|_| (CuSlots::default(), CuPipes::default())).collect(),
            fit,
            info,
            slots,
            score_entries: regs as usize + 6,
            boards: Vec::new(),
            cores,
            waves: Vec::new(),
            groups: Vec::new(),
            wave_slots,
            free_groups: Vec::new(),
            heap: Queue::default(),
            times: vec![u64::MAX; ncores],
            scan,
            by_unit: scan && m.cores_per_cu == 1,
            unit_keys: vec![u64::MAX; m.compute_units as usize],
            stale: 0,
            slot_mask: if wave_slots >= 64 { u64::MAX } else { (1u64 << wave_slots) - 1 },
            current: None,
            next_cu: 0,
            now: 0,
            end: 0,
            retired: false,
            dispatched: 0,
            pool: Vec::new(),
            waited: [0; 4],
            cu_of: (0..ncores as u32).map(|c| c / m.cores_per_cu).collect(),
            per_pc: vec![PcTiming::default(); k.instrs.len()],
            rec,
            m,
            held: 0,
        })
    }

    /// Bytes of the traces the model holds (those of the resident groups).
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// A trace buffer for the next workgroup (recycled).
    pub fn take_trace(&mut self) -> GroupTrace {
        self.pool.pop().unwrap_or_default()
    }

    /// The trace buffers of retired groups (for another thread to reuse).
    pub fn spare_traces(&mut self) -> std::vec::Drain<'_, GroupTrace> {
        self.pool.drain(..)
    }

    /// Admit the next workgroup in dispatch order, running the model until one fits.
    pub fn admit(&mut self, trace: GroupTrace) {
        loop {
            // The units from `next_cu` on, wrapping around (no division: this runs per group).
            let n = self.cus.len();
            let mut cu = self.next_cu;
            let mut room = None;
            for _ in 0..n {
                if self.cus[cu].0.groups < self.fit.groups_per_cu {
                    room = Some(cu);
                    break;
                }
                cu = if cu + 1 == n { 0 } else { cu + 1 };
            }
            if let Some(cu) = room {
                self.next_cu = if cu + 1 == n { 0 } else { cu + 1 };
                self.place(cu, trace);
                return;
            }
            if !self.run_until_retire() {
                // Nothing is running, so nothing can free room (cannot happen: `new`
                // checked that a group fits an empty unit). Place it anyway.
                self.place(0, trace);
                return;
            }
        }
    }

    fn place(&mut self, cu: usize, trace: GroupTrace) {
        let t = self.now;
        // The unit has run no event after `t` (see `run_unit`): it is idle, or
        // stopped at a shared event not yet taken.
        debug_assert!(!self.by_unit || self.unit_keys[cu] == u64::MAX || self.unit_keys[cu] >> SCAN_CORE_BITS <= t);
        if self.by_unit {
            // Its run starts again from its cores' events, the new waves' among them.
            self.unit_keys[cu] = u64::MAX;
            self.stale |= 1 << cu;
        }
        let lane = self.cus[cu].0.place(&self.fit).unwrap_or(0);
        let gi = self.free_groups.pop().unwrap_or_else(|| {
            self.groups.push(TGroup {
                cu: 0,
                lane: 0,
                unfinished: 0,
                waiting: 0,
                members: Vec::new(),
                index: 0,
                trace: GroupTrace::default(),
            });
            (self.groups.len() - 1) as u32
        });
        let index = self.dispatched;
        self.dispatched += 1;
        let mut members = std::mem::take(&mut self.groups[gi as usize].members);
        members.clear();
        let start = t + self.m.launch_cycles as u64;
        // The unit's cores that got a wave: each is scheduled once, after all are placed.
        let mut touched = 0u64;
        for (&span, core_in_cu) in trace.waves.iter().zip(self.fit.wave_cores(lane)) {
            let c = cu * self.m.cores_per_cu as usize + core_in_cu as usize;
            if span.runs == span.runs_end {
                // A wave that ran nothing.
                continue;
            }
            let free = !self.cores[c].used & self.slot_mask;
            let slot = free.trailing_zeros();
            let wid = (c * self.wave_slots) as u32 + slot;
            let e = self.score_entries;
            if self.waves.len() <= wid as usize {
                // The waves of the cores used so far (cores fill in order, compute unit by compute unit).
                let n = (c + 1) * self.wave_slots;
                self.waves.resize_with(n, TWave::idle);
                self.boards.resize(n * e, 0);
            }
            self.boards[wid as usize * e..(wid as usize + 1) * e].fill(0);
            let w = &mut self.waves[wid as usize];
            let r = span.runs as usize;
            w.pc = trace.data[r];
            w.run_end = trace.data[r] + trace.data[r + 1];
            w.next_run = span.runs + 2;
            w.runs_end = span.runs_end;
            w.mpos = span.mem;
            w.avail = start;
            w.avail_why = Wait::Idle;
            w.opnd = 0;
            w.opnd_mem = false;
            w.at_barrier = false;
            w.barrier_pc = 0;
            w.group = gi;
            w.core = c as u32;
            w.slot = slot;
            w.recorded = cu == 0;
            members.push(wid);
            self.account(c, t);
            let core = &mut self.cores[c];
            core.used |= 1 << slot;
            core.resident += 1;
            core.wait(slot, start);
            touched |= 1 << core_in_cu;
        }
        while touched != 0 {
            let core_in_cu = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            self.schedule(cu * self.m.cores_per_cu as usize + core_in_cu);
        }
        self.rec.resident(t, members.len() as i64);
        let g = &mut self.groups[gi as usize];
        self.held += trace.bytes();
        *g = TGroup { cu: cu as u32, lane, unfinished: members.len() as u32, waiting: 0, members, index, trace };
        if g.unfinished == 0 {
            self.retire(gi);
        }
    }

    /// Classify core `c`'s cycles up to `t` by what it was waiting for.
    #[inline]
    fn account(&mut self, c: usize, t: u64) {
        if t > self.cores[c].acct {
            self.account_wait(c, t);
        }
    }

    /// `account` when there are cycles to classify.
    fn account_wait(&mut self, c: usize, t: u64) {
        if !self.cores[c].why_valid {
            // Nothing changed on the core since its last issue, so its state now is its state then.
            self.cores[c].why = self.earliest(c).1;
            self.cores[c].why_valid = true;
        }
        let core = &mut self.cores[c];
        let d = t - core.acct;
        core.acct = t;
        self.waited[core.why as usize] += d;
    }

    /// Move core `c`'s waves whose cycle has come by `t` to its ready set.
    #[inline(always)]
    fn drain(&mut self, c: usize, t: u64) {
        let core = &mut self.cores[c];
        core.ready |= core.pending.drain(t);
    }

    /// The earliest cycle a wave of core `c` can issue (`u64::MAX`: none can) and why it waits until then.
    fn earliest(&self, c: usize) -> (u64, Wait) {
        let core = &self.cores[c];
        if core.ready != 0 {
            return (0, Wait::Dependency);
        }
        match core.pending.earliest() {
            Some((r, slot)) => (r, self.waves[c * self.wave_slots + slot as usize].why()),
            None => (u64::MAX, if core.at_barrier > 0 { Wait::Barrier } else { Wait::Idle }),
        }
    }

    /// Queue core `c` for cycle `t` (`u64::MAX`: not at all).
    #[inline(always)]
    fn queue(&mut self, c: usize, t: u64) {
        if self.scan {
            // The scan reads `times` alone (`queued` serves the heap).
            self.times[c] = event_key(t, c);
            return;
        }
        let core = &mut self.cores[c];
        if core.queued != t {
            core.queued = t;
            self.times[c] = event_key(t, c);
            if t != u64::MAX && self.current != Some(c) {
                self.heap.push(t, c as u32);
            }
        }
    }

    /// Work out when core `c` can issue next and why it waits until then; queue
    /// it for that cycle, which it returns.
    fn schedule(&mut self, c: usize) -> u64 {
        let (best, why) = self.earliest(c);
        let core = &mut self.cores[c];
        core.why = why;
        core.why_valid = true;
        let t = if best == u64::MAX { u64::MAX } else { best.max(core.busy_until) };
        self.queue(c, t);
        t
    }

    /// After core `c` issued: with a wave ready, the core goes on as soon as it is
    /// free (no wait to explain); otherwise it sleeps until the first wave is due.
    /// The cycle it is queued for.
    #[inline(always)]
    fn schedule_after_issue(&mut self, c: usize) -> u64 {
        if self.cores[c].ready == 0 {
            return self.schedule(c);
        }
        let core = &mut self.cores[c];
        core.why_valid = false;
        let t = core.busy_until;
        self.queue(c, t);
        t
    }

    /// Process events in (cycle, core) order; with `stop_on_retire`, return true
    /// right after a workgroup retires. False when no event is left.
    fn run_events(&mut self, stop_on_retire: bool) -> bool {
        if self.by_unit {
            return self.run_units(stop_on_retire);
        }
        if self.scan {
            return self.run_cycles(stop_on_retire);
        }
        let mut next = self.next_event();
        while let Some((t, c)) = next {
            self.current = Some(c);
            self.issue(c, t);
            self.current = None;
            let q = self.cores[c].queued;
            if stop_on_retire && self.retired {
                self.retired = false;
                if q != u64::MAX {
                    self.heap.push(q, c as u32);
                }
                return true;
            }
            // Go on with the same core if it is next anyway, without the heap.
            next = if q == u64::MAX {
                self.next_event()
            } else {
                match self.heap.peek() {
                    Some((ht, hc)) if (ht, hc) < (q, c as u32) => {
                        self.heap.push(q, c as u32);
                        self.next_event()
                    }
                    _ => {
                        self.cores[c].queued = u64::MAX;
                        self.times[c] = u64::MAX;
                        self.now = q;
                        Some((q, c))
                    }
                }
            };
        }
        false
    }

    /// `run_events` with units of one core (`by_unit`): each unit runs its own
    /// events ahead ([`Engine::run_unit`]), and their shared events go in
    /// (cycle, core) order.
    fn run_units(&mut self, stop_on_retire: bool) -> bool {
        loop {
            // Each unit whose state changed runs on by itself to its next shared event.
            while self.stale != 0 {
                let cu = self.stale.trailing_zeros() as usize;
                self.stale &= self.stale - 1;
                self.run_unit(cu);
            }
            let k = least(&self.unit_keys);
            if k == u64::MAX {
                return false;
            }
            let (t, c) = (k >> SCAN_CORE_BITS, (k & ((1 << SCAN_CORE_BITS) - 1)) as usize);
            let cu = c; // one core per unit
            self.unit_keys[cu] = u64::MAX;
            self.stale |= 1 << cu;
            self.times[c] = u64::MAX;
            self.now = t;
            self.issue(c, t);
            if stop_on_retire && self.retired {
                self.retired = false;
                return true;
            }
        }
    }

    /// Compute unit `cu` (of one core) runs its events in order up to the first
    /// that touches shared state ([`Engine::shared`]), which waits in `unit_keys`
    /// for its turn in the order of all units'. The events before it touch only
    /// the unit's own core, waves and groups (and add to counters), so running
    /// them ahead of other units' events changes nothing: a unit's shared events,
    /// the only way units affect one another, still go in (cycle, core) order, and
    /// a group is only placed on a unit right after its own shared event retired
    /// one (checked in `place`). The core's next event is taken from what its
    /// issue queued, not read back from `times`: the store-to-load wait would lie
    /// on every event's dependent chain.
    fn run_unit(&mut self, cu: usize) {
        let c = cu;
        let mut k = self.times[c];
        while k != u64::MAX {
            let t = k >> SCAN_CORE_BITS;
            k = match self.pick(c, t) {
                Err(next) => event_key(next, c),
                Ok(slot) if self.shared(c, slot) => {
                    self.unit_keys[cu] = k;
                    return;
                }
                Ok(slot) => event_key(self.issue_slot(c, t, slot), c),
            };
        }
        self.unit_keys[cu] = u64::MAX;
    }

    /// `run_events` with units of several cores and at most `SCAN_CORES` cores: a
    /// cycle at a time. An event only queues events at later cycles, so the cores
    /// due at cycle `t` are known when it starts, and go in core order. (Units of
    /// several cores running ahead by themselves were slower: one unit's events
    /// form one dependent chain, where this loop interleaves all cores'.)
    fn run_cycles(&mut self, stop_on_retire: bool) -> bool {
        loop {
            let k = least(&self.times);
            if k == u64::MAX {
                return false;
            }
            let (t, first) = (k >> SCAN_CORE_BITS, (k & ((1 << SCAN_CORE_BITS) - 1)) as usize);
            self.times[first] = u64::MAX;
            self.now = t;
            // The other cores due at `t`, as a mask made without branches (which
            // cores are due is too irregular to predict).
            let mut due = self.times.iter().enumerate().fold(0u64, |m, (d, &k)| m | (((k >> SCAN_CORE_BITS == t) as u64) << d));
            let mut c = first;
            loop {
                self.issue(c, t);
                if stop_on_retire && self.retired {
                    self.retired = false;
                    return true;
                }
                if due == 0 {
                    break;
                }
                c = due.trailing_zeros() as usize;
                due &= due - 1;
                self.times[c] = u64::MAX;
            }
        }
    }

    /// The next event from the heap (machines with more than `SCAN_CORES` cores).
    #[inline(always)]
    fn next_event(&mut self) -> Option<(u64, usize)> {
        while let Some((t, c)) = self.heap.pop() {
            let core = &mut self.cores[c as usize];
            if core.queued == t {
                core.queued = u64::MAX;
                self.times[c as usize] = u64::MAX;
                self.now = t;
                return Some((t, c as usize));
            }
        }
        None
    }

    fn run_until_retire(&mut self) -> bool {
        self.run_events(true)
    }

    /// When the next instruction of wave `wid` has its operands.
    fn operands(&mut self, wid: u32) {
        let w = &mut self.waves[wid as usize];
        let core = &mut self.cores[w.core as usize];
        let e = self.score_entries;
        let board = &self.boards[wid as usize * e..(wid as usize + 1) * e];
        operands_of(w, board, core, &self.info, &self.slots);
    }

    /// Core `c` issues at cycle `t`: the next instruction of the ready wave in the lowest slot.
    #[inline(always)]
    fn issue(&mut self, c: usize, t: u64) {
        if let Ok(slot) = self.pick(c, t) {
            self.issue_slot(c, t, slot);
        }
    }

    /// Core `c`'s event at cycle `t`: the slot of the wave that issues (the
    /// lowest ready one), or, when none can, the cycle the core is queued for
    /// again (`u64::MAX`: none).
    #[inline(always)]
    fn pick(&mut self, c: usize, t: u64) -> Result<u32, u64> {
        self.drain(c, t);
        let ready = self.cores[c].ready;
        if ready == 0 {
            return Err(self.schedule(c));
        }
        Ok(ready.trailing_zeros())
    }

    /// Whether the next instruction of the wave in slot `slot` of core `c` touches
    /// what compute units share: a device access (the L2 and DRAM), or the wave's
    /// last instruction (its group may retire, and admission is in dispatch order).
    #[inline(always)]
    fn shared(&self, c: usize, slot: u32) -> bool {
        let w = &self.waves[c * self.wave_slots + slot as usize];
        matches!(self.info[w.pc as usize].kind, Kind::Device(_)) || (w.pc + 1 == w.run_end && w.next_run >= w.runs_end)
    }

    /// Core `c` issues at cycle `t` the next instruction of the wave in `slot`
    /// (ready); the cycle the core is queued for next (`u64::MAX`: none).
    #[inline(always)]
    fn issue_slot(&mut self, c: usize, t: u64, slot: u32) -> u64 {
        let core = &mut self.cores[c];
        core.ready &= !(1 << slot);
        let wid = (c * self.wave_slots) as u32 + slot;
        self.account(c, t);
        // Split borrows: the hot path below touches many fields at once.
        let Engine { info, slots, waves, cores, per_pc, rec, groups, m, mem, cus, cu_of, end, boards, score_entries, .. } = self;
        let w = &mut waves[wid as usize];
        let board = &mut boards[wid as usize * *score_entries..(wid as usize + 1) * *score_entries];
        let pc = w.pc as usize;
        let info = &info[pc];
        let cost = info.issue;
        // Why the wave waited before this instruction.
        let pt = &mut per_pc[pc];
        pt.issued += 1;
        let (avail, opnd) = (w.avail, w.opnd);
        let waited = opnd.min(t).saturating_sub(avail);
        // Both sums, one of them by 0: no branch on where the operands come from.
        let from_memory = if w.opnd_mem { waited } else { 0 };
        pt.stalls.memory += from_memory;
        pt.stalls.dependency += waited - from_memory;
        pt.stalls.issue += t.saturating_sub(avail.max(opnd));
        // The timeline fills early: test that first, it is then always false.
        if !rec.full() && w.recorded {
            record_issue(rec, c as u32 % m.cores_per_cu, w, groups[w.group as usize].index, t, cost);
        }
        let core = &mut cores[c];
        core.busy_until = t + cost;
        core.acct = t + cost;
        // When the results are ready.
        let ready = if info.fixed_latency {
            t + info.latency
        } else {
            memory_result(info.kind, w, &groups[w.group as usize].trace.data, mem, &mut cus[cu_of[c] as usize].1, t)
        };
        info.write(board, slots, (ready << 1) | info.mem_result as u64);
        *end = (*end).max(ready).max(t + cost);
        w.pc += 1;
        // The wave's next instruction can follow once this one has issued.
        w.avail = t + cost;
        w.avail_why = Wait::Dependency;
        let is_barrier = info.kind == Kind::Barrier;
        if w.pc == w.run_end && !w.next_run(&groups[w.group as usize].trace.data) {
            self.wave_done(c, wid, t);
        } else if is_barrier {
            w.at_barrier = true;
            w.barrier_pc = pc as u32;
            let gi = w.group as usize;
            core.at_barrier += 1;
            groups[gi].waiting += 1;
            self.try_release(gi, t, t + cost);
        } else {
            operands_of(w, board, core, &self.info, slots);
        }
        self.schedule_after_issue(c)
    }

    /// Release group `gi`'s barrier at `t` + the barrier latency if every
    /// unfinished wave waits there (`now`: the cycle of the event that asks; the
    /// released waves' cores have their cycles classified up to it).
    #[cold]
    fn try_release(&mut self, gi: usize, now: u64, t: u64) {
        let g = &self.groups[gi];
        if g.waiting == 0 || g.waiting < g.unfinished {
            return;
        }
        let release = t + self.m.barrier_cycles as u64;
        let members = std::mem::take(&mut self.groups[gi].members);
        for &wid in &members {
            let w = &self.waves[wid as usize];
            if !w.at_barrier {
                continue;
            }
            let c = w.core as usize;
            self.account(c, now);
            let w = &mut self.waves[wid as usize];
            let waited = release.saturating_sub(w.avail);
            self.per_pc[w.barrier_pc as usize].stalls.barrier += waited;
            if w.recorded {
                let row = self.rec.row(c as u32 % self.m.cores_per_cu, w.slot);
                let gidx = self.groups[gi].index;
                self.rec.segment(row, w.avail, release, WaveState::Barrier, gidx);
            }
            w.at_barrier = false;
            w.avail = release;
            w.avail_why = Wait::Barrier;
            self.cores[c].at_barrier -= 1;
            self.operands(wid);
            self.schedule(c);
        }
        let g = &mut self.groups[gi];
        g.members = members;
        g.waiting = 0;
    }

    #[inline(never)]
    fn wave_done(&mut self, c: usize, wid: u32, t: u64) {
        let slot = self.waves[wid as usize].slot;
        let core = &mut self.cores[c];
        core.used &= !(1 << slot);
        core.resident -= 1;
        let gi = self.waves[wid as usize].group as usize;
        self.rec.resident(t, -1);
        let g = &mut self.groups[gi];
        g.members.retain(|&x| x != wid);
        g.unfinished -= 1;
        if self.groups[gi].unfinished == 0 {
            self.retire(gi as u32);
        } else {
            self.try_release(gi, t, t + 1);
        }
    }

    /// Group `gi` finished: its compute unit's room is free again.
    fn retire(&mut self, gi: u32) {
        let g = &mut self.groups[gi as usize];
        self.cus[g.cu as usize].0.release(g.lane);
        let trace = std::mem::take(&mut g.trace);
        self.held -= trace.bytes();
        // Buffers are reused, except large ones (a long-running group's), whose
        // memory the trace window must not keep.
        if trace.capacity_bytes() <= POOLED_TRACE_BYTES {
            self.pool.push(trace);
        }
        self.free_groups.push(gi);
        self.retired = true;
    }

    /// Run everything still resident; the report.
    pub fn finish(mut self) -> TimingReport {
        self.run_events(false);
        let end = self.end.max(self.now);
        for c in 0..self.cores.len() {
            self.account(c, end);
        }
        let memory = self.mem.counters();
        let mut stalls = Stalls::default();
        let mut issue = 0;
        for (pt, info) in self.per_pc.iter_mut().zip(&self.info) {
            pt.issue_cycles = pt.issued * info.issue;
            // Cores issue one instruction at a time: their issuing cycles are the instructions'.
            issue += pt.issue_cycles;
            stalls.add(&pt.stalls);
        }
        let (occupancy, resident_wave_cycles, timeline) = self.rec.finish(end);
        TimingReport {
            cycles: end,
            compute_units: self.m.compute_units,
            cores_per_cu: self.m.cores_per_cu,
            groups_per_cu: self.fit.groups_per_cu,
            waves_per_core: self.fit.waves_per_core,
            limiter: self.fit.limiter,
            allocated_registers: self.fit.allocated,
            core_cycles: CoreCycles {
                issue,
                dependency: self.waited[Wait::Dependency as usize],
                memory: self.waited[Wait::Memory as usize],
                barrier: self.waited[Wait::Barrier as usize],
                idle: self.waited[Wait::Idle as usize],
            },
            stalls,
            resident_wave_cycles,
            occupancy,
            memory,
            per_pc: self.per_pc,
            timeline,
        }
    }
}

#[cfg(test)]
mod tests;
