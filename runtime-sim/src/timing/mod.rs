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
//!   work after a load overlaps the load. Among ready waves the oldest (earliest
//!   admitted, then lowest wave index) issues first.
//! - Results are ready after the category's latency; memory results when the
//!   memory system returns them ([`memory`]). Stores have no result but keep the
//!   pipelines busy. A barrier holds a wave until every unfinished wave of its
//!   group has reached it, then releases them all `barrier_cycles` later.
//! - Time advances from event to event (the next cycle a core can issue), in
//!   (cycle, core) order, so the result is deterministic.

mod admission;
mod memory;
mod record;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::exec::Geometry;
use crate::isa::{Op, PRED_SLOT_BASE};
use crate::report::{CoreCycles, PcTiming, Stalls, TimingReport, WaveState};
use crate::{Fault, FaultKind, Kernel, Machine, SimConfig};
use admission::{CuSlots, Fit};
use memory::{CuPipes, MemSystem, Request};
use record::Recorder;

/// What one wave executed, as the functional executor recorded it.
#[derive(Clone, Debug, Default)]
pub(crate) struct WaveTrace {
    /// Instruction indices in execution order.
    pub pcs: Vec<u32>,
    /// Per memory instruction in order: device, the transaction count then the
    /// segment (line) numbers; local, the number of passes.
    pub mem: Vec<u32>,
}

/// How an instruction uses the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Plain,
    Device(Request),
    Local { atomic: bool },
    Barrier,
}

struct PcInfo {
    kind: Kind,
    issue: u64,
    latency: u64,
    /// Scoreboard indices read and written, as ranges into `Engine::slots`.
    reads: (u32, u32),
    writes: (u32, u32),
    /// The result comes from memory (for stall attribution).
    mem_result: bool,
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
    trace: WaveTrace,
    pos: usize,
    mpos: usize,
    /// Per scoreboard index: when the value is ready, and whether memory produces it.
    ready: Vec<u64>,
    from_mem: Vec<bool>,
    /// Earliest issue allowed by the wave itself (after its last issue, admission or a barrier).
    avail: u64,
    avail_why: Wait,
    /// When the next instruction's operands are ready, and whether the last of them comes from memory.
    opnd: u64,
    opnd_mem: bool,
    next_ready: u64,
    at_barrier: bool,
    barrier_pc: u32,
    group: u32,
    /// Global index of the core it runs on.
    core: u32,
    row: Option<u32>,
}

impl TWave {
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
}

struct Core {
    /// Resident waves that have not finished, oldest first.
    waves: Vec<u32>,
    busy_until: u64,
    /// Cycles before this one are classified in `CoreCycles`.
    acct: u64,
    /// The cycle of this core's live heap entry (`u64::MAX`: none).
    queued: u64,
    why: Wait,
}

pub(crate) struct Engine {
    m: Machine,
    fit: Fit,
    info: Vec<PcInfo>,
    slots: Vec<u32>,
    nslots: usize,
    cores: Vec<Core>,
    cus: Vec<(CuSlots, CuPipes)>,
    waves: Vec<TWave>,
    free_waves: Vec<u32>,
    groups: Vec<TGroup>,
    free_groups: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    mem: MemSystem,
    next_cu: usize,
    now: u64,
    end: u64,
    retired: bool,
    dispatched: u64,
    pool: Vec<WaveTrace>,
    core_cycles: CoreCycles,
    stalls: Stalls,
    per_pc: Vec<PcTiming>,
    rec: Recorder,
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
        let regs = k.registers as usize;
        let index = |s: u16| if s >= PRED_SLOT_BASE { (regs + (s - PRED_SLOT_BASE) as usize) as u32 } else { s as u32 };
        let mut slots = Vec::new();
        let info = k
            .instrs
            .iter()
            .map(|ins| {
                let r0 = slots.len() as u32;
                slots.extend(ins.reads.iter().map(|&s| index(s)));
                let w0 = slots.len() as u32;
                slots.extend(ins.writes.iter().map(|&s| index(s)));
                let kind = match ins.op {
                    Op::Load { local: false, .. } => Kind::Device(Request::Load),
                    Op::Store { local: false, .. } => Kind::Device(Request::Store),
                    Op::Atomic { local: false, .. } => Kind::Device(Request::Atomic),
                    Op::Load { local: true, .. } | Op::Store { local: true, .. } => Kind::Local { atomic: false },
                    Op::Atomic { local: true, .. } => Kind::Local { atomic: true },
                    Op::Barrier => Kind::Barrier,
                    _ => Kind::Plain,
                };
                PcInfo {
                    kind,
                    issue: m.issue.get(ins.category).max(1) as u64,
                    latency: m.latency.get(ins.category) as u64,
                    reads: (r0, w0),
                    writes: (w0, slots.len() as u32),
                    mem_result: kind != Kind::Plain,
                }
            })
            .collect();
        let ncores = (m.compute_units * m.cores_per_cu) as usize;
        let cores = (0..ncores).map(|_| Core { waves: Vec::new(), busy_until: 0, acct: 0, queued: u64::MAX, why: Wait::Idle }).collect();
        let rec = Recorder::new(m.cores_per_cu, m.max_waves_per_core);
        Ok(Engine {
            mem: MemSystem::new(&m),
            cus: (0..m.compute_units).map(|_| (CuSlots::default(), CuPipes::default())).collect(),
            fit,
            info,
            slots,
            nslots: regs + 4,
            cores,
            waves: Vec::new(),
            free_waves: Vec::new(),
            groups: Vec::new(),
            free_groups: Vec::new(),
            heap: BinaryHeap::new(),
            next_cu: 0,
            now: 0,
            end: 0,
            retired: false,
            dispatched: 0,
            pool: Vec::new(),
            core_cycles: CoreCycles::default(),
            stalls: Stalls::default(),
            per_pc: vec![PcTiming::default(); k.instrs.len()],
            rec,
            m,
        })
    }

    /// Empty trace buffers for the next workgroup (recycled).
    pub fn take_traces(&mut self, n: usize) -> Vec<WaveTrace> {
        (0..n)
            .map(|_| {
                let mut t = self.pool.pop().unwrap_or_default();
                t.pcs.clear();
                t.mem.clear();
                t
            })
            .collect()
    }

    /// Admit the next workgroup in dispatch order, running the model until one fits.
    pub fn admit(&mut self, traces: Vec<WaveTrace>) {
        loop {
            let n = self.cus.len();
            if let Some(cu) = (0..n).map(|k| (self.next_cu + k) % n).find(|&c| self.cus[c].0.groups < self.fit.groups_per_cu) {
                self.next_cu = (cu + 1) % n;
                self.place(cu, traces);
                return;
            }
            if !self.run_until_retire() {
                // Nothing is running, so nothing can free room (cannot happen: `new`
                // checked that a group fits an empty unit). Place it anyway.
                self.place(0, traces);
                return;
            }
        }
    }

    fn place(&mut self, cu: usize, traces: Vec<WaveTrace>) {
        let t = self.now;
        let lane = self.cus[cu].0.place(&self.fit).unwrap_or(0);
        let gi = self.free_groups.pop().unwrap_or_else(|| {
            self.groups.push(TGroup { cu: 0, lane: 0, unfinished: 0, waiting: 0, members: Vec::new(), index: 0 });
            (self.groups.len() - 1) as u32
        });
        let index = self.dispatched;
        self.dispatched += 1;
        let mut members = std::mem::take(&mut self.groups[gi as usize].members);
        members.clear();
        let start = t + self.m.launch_cycles as u64;
        for (i, trace) in traces.into_iter().enumerate() {
            let core_in_cu = self.fit.core_of(lane, i as u32);
            let c = cu * self.m.cores_per_cu as usize + core_in_cu as usize;
            if trace.pcs.is_empty() {
                self.pool.push(trace);
                continue;
            }
            let row = if cu == 0 { self.rec.take_row(core_in_cu) } else { None };
            let wave = TWave {
                trace,
                pos: 0,
                mpos: 0,
                ready: Vec::new(),
                from_mem: Vec::new(),
                avail: start,
                avail_why: Wait::Idle,
                opnd: 0,
                opnd_mem: false,
                next_ready: start,
                at_barrier: false,
                barrier_pc: 0,
                group: gi,
                core: c as u32,
                row,
            };
            let wid = match self.free_waves.pop() {
                Some(id) => {
                    let old = std::mem::replace(&mut self.waves[id as usize], wave);
                    self.waves[id as usize].ready = old.ready;
                    self.waves[id as usize].from_mem = old.from_mem;
                    id
                }
                None => {
                    self.waves.push(wave);
                    (self.waves.len() - 1) as u32
                }
            };
            let w = &mut self.waves[wid as usize];
            w.ready.clear();
            w.ready.resize(self.nslots, 0);
            w.from_mem.clear();
            w.from_mem.resize(self.nslots, false);
            members.push(wid);
            self.account(c, t);
            self.cores[c].waves.push(wid);
            self.schedule(c);
        }
        self.rec.resident(t, members.len() as i64);
        let g = &mut self.groups[gi as usize];
        *g = TGroup { cu: cu as u32, lane, unfinished: members.len() as u32, waiting: 0, members, index };
        if g.unfinished == 0 {
            self.retire(gi);
        }
    }

    /// Classify core `c`'s cycles up to `t` by what it was waiting for.
    fn account(&mut self, c: usize, t: u64) {
        let core = &mut self.cores[c];
        if t <= core.acct {
            return;
        }
        let d = t - core.acct;
        core.acct = t;
        let cc = &mut self.core_cycles;
        match core.why {
            Wait::Dependency => cc.dependency += d,
            Wait::Memory => cc.memory += d,
            Wait::Barrier => cc.barrier += d,
            Wait::Idle => cc.idle += d,
        }
    }

    /// Work out when core `c` can issue next and why it waits until then; queue it.
    fn schedule(&mut self, c: usize) {
        let core = &self.cores[c];
        let mut best = u64::MAX;
        let mut why = Wait::Idle;
        let mut barrier = false;
        for &wid in &core.waves {
            let w = &self.waves[wid as usize];
            if w.at_barrier {
                barrier = true;
            } else if w.next_ready < best {
                best = w.next_ready;
                why = w.why();
            }
        }
        let core = &mut self.cores[c];
        if best == u64::MAX {
            core.why = if barrier { Wait::Barrier } else { Wait::Idle };
            core.queued = u64::MAX;
            return;
        }
        let t = best.max(core.busy_until);
        core.why = why;
        if core.queued != t {
            core.queued = t;
            self.heap.push(Reverse((t, c as u32)));
        }
    }

    fn next_event(&mut self) -> Option<(u64, usize)> {
        while let Some(Reverse((t, c))) = self.heap.pop() {
            let core = &mut self.cores[c as usize];
            if core.queued == t {
                core.queued = u64::MAX;
                self.now = t;
                return Some((t, c as usize));
            }
        }
        None
    }

    fn run_until_retire(&mut self) -> bool {
        while let Some((t, c)) = self.next_event() {
            self.issue(c, t);
            if self.retired {
                self.retired = false;
                return true;
            }
        }
        false
    }

    /// When the next instruction of wave `wid` has its operands.
    fn operands(&mut self, wid: u32) {
        let w = &mut self.waves[wid as usize];
        let pc = w.trace.pcs[w.pos] as usize;
        let (a, b) = self.info[pc].reads;
        let (mut t, mut mem) = (0, false);
        for &s in &self.slots[a as usize..b as usize] {
            let r = w.ready[s as usize];
            if r > t {
                t = r;
                mem = w.from_mem[s as usize];
            }
        }
        w.opnd = t;
        w.opnd_mem = mem;
        w.next_ready = w.avail.max(t);
    }

    /// Core `c` issues at cycle `t`: the oldest ready wave's next instruction.
    fn issue(&mut self, c: usize, t: u64) {
        let pick = self.cores[c].waves.iter().copied().find(|&wid| {
            let w = &self.waves[wid as usize];
            !w.at_barrier && w.next_ready <= t
        });
        let Some(wid) = pick else {
            self.schedule(c);
            return;
        };
        self.account(c, t);
        let w = &mut self.waves[wid as usize];
        let pc = w.trace.pcs[w.pos] as usize;
        let info = &self.info[pc];
        let cost = info.issue;
        // Why the wave waited before this instruction.
        let pt = &mut self.per_pc[pc];
        pt.issued += 1;
        pt.issue_cycles += cost;
        let (avail, opnd) = (w.avail, w.opnd);
        let waited = opnd.min(t).saturating_sub(avail);
        let mut st = Stalls::default();
        if w.opnd_mem {
            st.memory = waited;
        } else {
            st.dependency = waited;
        }
        st.issue = t.saturating_sub(avail.max(opnd));
        pt.stalls.add(&st);
        self.stalls.add(&st);
        if let Some(row) = w.row {
            let state = if w.opnd_mem { WaveState::Memory } else { WaveState::Dependency };
            let gi = self.groups[w.group as usize].index;
            self.rec.segment(row, avail, opnd.min(t), state, gi);
            self.rec.segment(row, avail.max(opnd), t, WaveState::Ready, gi);
            self.rec.segment(row, t, t + cost, WaveState::Issue, gi);
        }
        let core = &mut self.cores[c];
        core.busy_until = t + cost;
        core.acct = t + cost;
        self.core_cycles.issue += cost;
        // When the results are ready.
        let cu = c / self.m.cores_per_cu as usize;
        let ready = match info.kind {
            Kind::Plain | Kind::Barrier => t + info.latency,
            Kind::Device(req) => {
                let n = w.trace.mem[w.mpos] as usize;
                let lines = &w.trace.mem[w.mpos + 1..w.mpos + 1 + n];
                w.mpos += 1 + n;
                self.mem.device(&mut self.cus[cu].1, t, lines, req)
            }
            Kind::Local { atomic } => {
                let passes = w.trace.mem[w.mpos];
                w.mpos += 1;
                self.mem.local(&mut self.cus[cu].1, t, passes, atomic)
            }
        };
        let (a, b) = info.writes;
        for &s in &self.slots[a as usize..b as usize] {
            w.ready[s as usize] = ready;
            w.from_mem[s as usize] = info.mem_result;
        }
        self.end = self.end.max(ready).max(t + cost);
        w.pos += 1;
        // The wave's next instruction can follow once this one has issued.
        w.avail = t + cost;
        w.avail_why = Wait::Dependency;
        let is_barrier = info.kind == Kind::Barrier;
        if w.pos == w.trace.pcs.len() {
            self.wave_done(c, wid, t);
        } else if is_barrier {
            w.at_barrier = true;
            w.barrier_pc = pc as u32;
            let gi = w.group as usize;
            self.groups[gi].waiting += 1;
            self.try_release(gi, t + cost);
        } else {
            self.operands(wid);
        }
        self.schedule(c);
    }

    /// Release group `gi`'s barrier at `t` + the barrier latency if every unfinished wave waits there.
    fn try_release(&mut self, gi: usize, t: u64) {
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
            self.account(c, self.now);
            let w = &mut self.waves[wid as usize];
            let waited = release.saturating_sub(w.avail);
            self.per_pc[w.barrier_pc as usize].stalls.barrier += waited;
            self.stalls.barrier += waited;
            if let Some(row) = w.row {
                let gidx = self.groups[gi].index;
                self.rec.segment(row, w.avail, release, WaveState::Barrier, gidx);
            }
            w.at_barrier = false;
            w.avail = release;
            w.avail_why = Wait::Barrier;
            self.operands(wid);
            self.schedule(c);
        }
        let g = &mut self.groups[gi];
        g.members = members;
        g.waiting = 0;
    }

    fn wave_done(&mut self, c: usize, wid: u32, t: u64) {
        let core = &mut self.cores[c];
        if let Some(i) = core.waves.iter().position(|&x| x == wid) {
            core.waves.remove(i);
        }
        let w = &mut self.waves[wid as usize];
        let trace = std::mem::take(&mut w.trace);
        self.pool.push(trace);
        if let Some(row) = w.row.take() {
            self.rec.free_row(row);
        }
        let gi = w.group as usize;
        self.rec.resident(t, -1);
        self.free_waves.push(wid);
        let g = &mut self.groups[gi];
        g.members.retain(|&x| x != wid);
        g.unfinished -= 1;
        if self.groups[gi].unfinished == 0 {
            self.retire(gi as u32);
        } else {
            self.try_release(gi, t + 1);
        }
    }

    /// Group `gi` finished: its compute unit's room is free again.
    fn retire(&mut self, gi: u32) {
        let g = &self.groups[gi as usize];
        self.cus[g.cu as usize].0.release(g.lane);
        self.free_groups.push(gi);
        self.retired = true;
    }

    /// Run everything still resident; the report.
    pub fn finish(mut self) -> TimingReport {
        while let Some((t, c)) = self.next_event() {
            self.issue(c, t);
        }
        let end = self.end.max(self.now);
        for c in 0..self.cores.len() {
            self.account(c, end);
        }
        let memory = self.mem.counters;
        let (occupancy, resident_wave_cycles, timeline) = self.rec.finish(end);
        TimingReport {
            cycles: end,
            compute_units: self.m.compute_units,
            cores_per_cu: self.m.cores_per_cu,
            groups_per_cu: self.fit.groups_per_cu,
            waves_per_core: self.fit.waves_per_core,
            limiter: self.fit.limiter,
            allocated_registers: self.fit.allocated,
            core_cycles: self.core_cycles,
            stalls: self.stalls,
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
