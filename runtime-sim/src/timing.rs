//! Cycle estimate for one core.
//!
//! Model (deterministic, deliberately simple):
//! - Workgroups are admitted in dispatch order, whole, while the resident waves
//!   fit in `CostModel::resident_waves` (a workgroup larger than that is admitted
//!   alone). A finished workgroup frees its slots at once.
//! - Each cycle the core issues at most one instruction, from the first resident
//!   wave (round robin, starting after the last one that issued) whose next
//!   instruction has all source registers/predicates ready (per-wave scoreboard).
//!   Issue takes one cycle.
//! - Results are ready `latency` cycles after issue: alu/fpu/move/wave/compare use
//!   `alu_latency`, sfu ops `sfu_latency`, local loads/atomics `local_latency`,
//!   device loads/atomics `device_latency`. Stores have no result.
//! - A `barrier` blocks the wave until every unfinished wave of its workgroup has
//!   issued a barrier.
//! - When no wave can issue, time jumps to the earliest cycle one can.
//! - The total is the cycle after the last issue or the last result, whichever is later.
//!
//! The instruction streams are the traces recorded by the functional executor, so
//! what is timed is exactly what was executed (including masked-off arms).

use crate::isa::{Latency, Op, SCOREBOARD_SLOTS};
use crate::{CostModel, Instr};

struct TWave {
    trace: Vec<u32>,
    pos: usize,
    ready: Vec<u64>,
    next_ready: u64,
    at_barrier: bool,
    finished: bool,
    group: usize,
}

struct TGroup {
    unfinished: usize,
    waiting: usize,
}

pub(crate) struct Timing<'a> {
    instrs: &'a [Instr],
    lat: [u64; 4],
    cap: usize,
    cycle: u64,
    end: u64,
    waves: Vec<TWave>,
    groups: Vec<TGroup>,
    rr: usize,
    pool: Vec<Vec<u32>>,
    ready_pool: Vec<Vec<u64>>,
}

impl<'a> Timing<'a> {
    pub fn new(instrs: &'a [Instr], cost: &CostModel) -> Timing<'a> {
        Timing {
            instrs,
            lat: [cost.alu_latency as u64, cost.sfu_latency as u64, cost.local_latency as u64, cost.device_latency as u64],
            cap: cost.resident_waves.max(1) as usize,
            cycle: 0,
            end: 0,
            waves: Vec::new(),
            groups: Vec::new(),
            rr: 0,
            pool: Vec::new(),
            ready_pool: Vec::new(),
        }
    }

    /// Empty trace buffers for the next workgroup (recycled).
    pub fn take_traces(&mut self, n: usize) -> Vec<Vec<u32>> {
        (0..n)
            .map(|_| {
                let mut v = self.pool.pop().unwrap_or_default();
                v.clear();
                v
            })
            .collect()
    }

    fn next_ready_of(&self, w: &TWave) -> u64 {
        let Some(&pc) = w.trace.get(w.pos) else {
            return u64::MAX;
        };
        let Some(ins) = self.instrs.get(pc as usize) else {
            return 0;
        };
        ins.reads.iter().map(|&s| w.ready.get(s as usize).copied().unwrap_or(0)).max().unwrap_or(0)
    }

    /// Admit a workgroup (one trace per wave), first running the core until it fits.
    pub fn admit(&mut self, traces: Vec<Vec<u32>>) {
        let n = traces.len();
        while !self.waves.is_empty() && self.waves.len() + n > self.cap {
            if !self.issue_until_group_done() {
                break;
            }
        }
        let gi = self.groups.len();
        let mut unfinished = 0;
        for t in traces {
            let finished = t.is_empty();
            if !finished {
                unfinished += 1;
            }
            let mut ready = self.ready_pool.pop().unwrap_or_else(|| vec![0; SCOREBOARD_SLOTS]);
            ready.iter_mut().for_each(|r| *r = 0);
            let mut w = TWave { trace: t, pos: 0, ready, next_ready: 0, at_barrier: false, finished, group: gi };
            w.next_ready = self.next_ready_of(&w).max(self.cycle);
            self.waves.push(w);
        }
        self.groups.push(TGroup { unfinished, waiting: 0 });
        if unfinished == 0 {
            self.retire(gi);
        }
    }

    /// Remove finished group `gi` and its waves.
    fn retire(&mut self, gi: usize) {
        let mut i = 0;
        while i < self.waves.len() {
            if self.waves[i].group == gi {
                let w = self.waves.remove(i);
                self.pool.push(w.trace);
                self.ready_pool.push(w.ready);
                if self.rr > i {
                    self.rr -= 1;
                }
            } else {
                if self.waves[i].group > gi {
                    self.waves[i].group -= 1;
                }
                i += 1;
            }
        }
        self.groups.remove(gi);
    }

    /// Issue instructions until some workgroup finishes. False if nothing can run.
    fn issue_until_group_done(&mut self) -> bool {
        loop {
            let n = self.waves.len();
            if n == 0 {
                return false;
            }
            let mut pick = None;
            for k in 0..n {
                let i = (self.rr + k) % n;
                let w = &self.waves[i];
                if !w.finished && !w.at_barrier && w.next_ready <= self.cycle {
                    pick = Some(i);
                    break;
                }
            }
            let Some(i) = pick else {
                let t = self.waves.iter().filter(|w| !w.finished && !w.at_barrier).map(|w| w.next_ready).min();
                match t {
                    Some(t) if t > self.cycle => {
                        self.cycle = t;
                        continue;
                    }
                    _ => return false,
                }
            };
            let c = self.cycle;
            let w = &mut self.waves[i];
            let pc = w.trace[w.pos] as usize;
            let mut is_barrier = false;
            if let Some(ins) = self.instrs.get(pc) {
                let lat = self.lat[match ins.latency {
                    Latency::Alu => 0,
                    Latency::Sfu => 1,
                    Latency::Local => 2,
                    Latency::Device => 3,
                }];
                for &s in ins.writes.iter() {
                    if let Some(r) = w.ready.get_mut(s as usize) {
                        *r = c + lat;
                    }
                    self.end = self.end.max(c + lat);
                }
                is_barrier = matches!(ins.op, Op::Barrier);
            }
            w.pos += 1;
            let gi = w.group;
            self.end = self.end.max(c + 1);
            self.cycle = c + 1;
            self.rr = i + 1;
            let w = &self.waves[i];
            let nr = self.next_ready_of(w).max(c + 1);
            let w = &mut self.waves[i];
            w.next_ready = nr;
            if w.pos >= w.trace.len() {
                w.finished = true;
                self.groups[gi].unfinished -= 1;
            } else if is_barrier {
                w.at_barrier = true;
                self.groups[gi].waiting += 1;
            }
            let g = &mut self.groups[gi];
            if g.waiting > 0 && g.waiting >= g.unfinished {
                g.waiting = 0;
                for w in self.waves.iter_mut().filter(|w| w.group == gi && w.at_barrier) {
                    w.at_barrier = false;
                    w.next_ready = w.next_ready.max(c + 1);
                }
            }
            if self.groups[gi].unfinished == 0 {
                self.retire(gi);
                return true;
            }
        }
    }

    /// Run everything still resident; the estimated total cycles.
    pub fn finish(mut self) -> u64 {
        while self.issue_until_group_done() {}
        self.end.max(self.cycle)
    }
}
