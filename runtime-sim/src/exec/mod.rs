//! Functional executor: runs the workgroups of a dispatch one after another, the
//! waves of a workgroup round-robin (one instruction per turn, as wave-emu 0.1.2),
//! and, when the cycle model is on, records each wave's instruction trace with
//! the facts the model needs about its memory accesses (`timing::WaveTrace`).
//!
//! Speed: instructions are decoded once (`isa::Op`); a register is a contiguous
//! slice of `w` lanes, so an operation on a wave whose lanes are all active runs
//! as a loop over slices the compiler vectorizes (`alu.rs`), and one with a partial
//! mask visits only the active lanes. Whole-wave 32-bit accesses are classified
//! in one pass (`words.rs`); without the cycle model a group whose waves fit in
//! 64 lanes starts as one wide wave (`wide.rs`), and groups run in parallel on a
//! shared snapshot of memory (`parallel.rs`, `device.rs`).

mod alu;
mod device;
mod memory;
mod parallel;
mod strict;
mod wave_ops;
mod wide;
mod words;

use crate::geometry::Geometry;
use crate::isa::*;
use crate::timing::{Engine, GroupTrace, WaveTrace};
use crate::{Fault, FaultKind, Kernel, Launch, Memory, MemoryCounters, Profile, RunLimits, SimConfig, Stats};
use device::Device;

/// Control-flow frame of a wave's mask stack.
#[derive(Clone, Copy, Debug)]
struct Frame {
    is_loop: bool,
    /// Lanes active when the construct was entered (minus lanes that left since:
    /// broken/continued lanes for inner if-frames, halted lanes for all).
    saved: u64,
    /// if-frame: lanes that took the then-arm. loop-frame: lanes that continued.
    aux: u64,
    /// loop-frame: first instruction of the body.
    start_pc: u32,
}

pub(crate) struct Wave {
    regs: Vec<u32>,
    preds: [u64; 4],
    active: u64,
    exists: u64,
    exited: u64,
    pc: u32,
    frames: Vec<Frame>,
    calls: Vec<(u32, u32)>,
    done: bool,
    at_barrier: bool,
    /// The barrier this wave waits at, and the lanes that executed it.
    barrier_pc: u32,
    barrier_exec: u64,
    /// `--strict`: per scoreboard slot (registers, then predicates), the lanes written so far.
    written: Vec<u64>,
}

impl Wave {
    /// A wave at the kernel's start with `lanes` threads (the first ones of its
    /// `width`): every register zero but the arguments `args`.
    pub(super) fn start(&mut self, width: usize, lanes: u32, args: &[(u32, u32)]) {
        self.regs.fill(0);
        for &(r, v) in args {
            self.regs[r as usize * width..(r as usize + 1) * width].fill(v);
        }
        self.exists = if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 };
        self.active = self.exists;
        self.exited = 0;
        self.preds = [0; 4];
        self.pc = 0;
        self.frames.clear();
        self.calls.clear();
        self.done = false;
        self.at_barrier = false;
        self.barrier_pc = 0;
        self.barrier_exec = 0;
    }
}

/// What the stretch of register-only instructions needs of one instruction, in
/// one place (the decoded `Instr` is much larger).
pub(crate) struct Fast {
    kernel: alu::Kernel,
    ops: alu::AluOps,
    pred: Option<P>,
    category: u8,
}

/// Per wave of the group being run: the round of its next instruction, and of
/// the barrier it waits at; where it finished ((round, wave): 0.1.2 faults a
/// barrier after it); whether it stopped on a fault raised ahead of its turn.
#[derive(Default)]
struct RoundRobin {
    round: Vec<u64>,
    arrived: Vec<u64>,
    finished: Vec<Option<(u64, usize)>>,
    stopped: Vec<bool>,
}

impl RoundRobin {
    fn reset(&mut self, n: usize) {
        self.round.clear();
        self.round.resize(n, 0);
        self.arrived.clear();
        self.arrived.resize(n, 0);
        self.finished.clear();
        self.finished.resize(n, None);
        self.stopped.clear();
        self.stopped.resize(n, false);
    }
}

const MAX_FRAMES: usize = 32;

pub(crate) struct Exec<'a> {
    k: &'a Kernel,
    cfg: &'a SimConfig,
    geo: &'a Geometry,
    spec: bool,
    /// Mask of all `w` lanes.
    all: u64,
    local: Vec<u8>,
    scratch: Vec<u32>,
    cat: [u64; 9],
    stats: Stats,
    /// Limits on the whole run ([`Exec::check_limits`]), and when its time is up.
    limits: RunLimits,
    deadline: Option<(std::time::Instant, std::time::Duration)>,
    wg_id: [u32; 3],
    /// Record traces for the cycle model.
    record: bool,
    /// log2 of the machine's segment size (coalescing unit).
    seg_shift: u32,
    banks: u32,
    bank_count: Vec<u32>,
    mem: MemoryCounters,
    /// Per instruction, its lane kernel when it has one (`alu::kernel_for`).
    kernels: Vec<Option<Fast>>,
    /// Device words read and written, for speculative parallel runs (`parallel.rs`).
    log: Option<parallel::AccessLog>,
    rr: RoundRobin,
    /// A speculative chunk met an access its snapshot of memory cannot serve (`device.rs`).
    spoiled: bool,
    /// Groups start as one wide wave (`wide.rs`) when their waves fit in one.
    wide: Option<Box<wide::Wide>>,
}

/// Iterate over the set bits of a lane mask.
macro_rules! lanes {
    ($mask:expr, $l:ident, $body:block) => {{
        let mut m: u64 = $mask;
        while m != 0 {
            let $l = m.trailing_zeros() as usize;
            m &= m - 1;
            $body
        }
    }};
}
pub(crate) use lanes;

/// Lane `lane` of register `r` (a half reads zero-extended).
#[inline(always)]
pub(crate) fn rd(regs: &[u32], w: usize, r: R, lane: usize) -> u32 {
    let v = regs[r.idx as usize * w + lane];
    match r.half {
        Half::Full => v,
        Half::Lo => v & 0xffff,
        Half::Hi => v >> 16,
    }
}

/// Write lane `lane` of register `r` (a half keeps the other half).
#[inline(always)]
pub(crate) fn wr(regs: &mut [u32], w: usize, r: R, lane: usize, v: u32) {
    let s = &mut regs[r.idx as usize * w + lane];
    *s = match r.half {
        Half::Full => v,
        Half::Lo => (*s & 0xffff_0000) | (v & 0xffff),
        Half::Hi => (*s & 0xffff) | (v << 16),
    };
}

/// Whether waves of a group can observe `op` (so it runs in round-robin order).
fn ordered(op: &Op) -> bool {
    matches!(op, Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } | Op::Barrier)
}

fn pmask(preds: &[u64; 4], p: P) -> u64 {
    let m = preds[p.idx as usize & 3];
    if p.neg {
        !m
    } else {
        m
    }
}

impl<'a> Exec<'a> {
    fn fault(&self, kind: FaultKind, pc: Option<u32>, wave: u32, lane: Option<usize>) -> Fault {
        Fault {
            kind,
            origin: pc.and_then(|pc| self.k.instrs.get(pc as usize)).map(|i| i.origin.clone()),
            workgroup: self.wg_id,
            wave,
            lane: lane.map(|l| l as u32),
        }
    }

    /// Lanes `lanes` leave the innermost loop's body (break/continue): drop them from
    /// the if-frames above the loop. Returns the loop frame's index.
    fn leave_to_loop(wave: &mut Wave, lanes: u64) -> Option<usize> {
        wave.active &= !lanes;
        for i in (0..wave.frames.len()).rev() {
            if wave.frames[i].is_loop {
                return Some(i);
            }
            wave.frames[i].saved &= !lanes;
        }
        None
    }

    /// Execute one instruction of `wave` (index `wi`), recording into `tr` when the cycle model is on.
    fn step(&mut self, wave: &mut Wave, wi: u32, mem: &mut Device, tr: &mut WaveTrace) -> Result<(), Fault> {
        let k = self.k;
        let pc = wave.pc;
        let Some(ins) = k.instrs.get(pc as usize) else {
            // Ran off the end of the kernel.
            if !self.spec {
                return Err(self.fault(
                    FaultKind::ControlFlow("kernel ended without `halt` (an error on wave-emu 0.1.2)".into()),
                    None,
                    wi,
                    None,
                ));
            }
            wave.done = true;
            return Ok(());
        };
        let exec = match ins.pred {
            Some(p) => wave.active & pmask(&wave.preds, p),
            None => wave.active,
        };
        if self.cfg.strict {
            self.check_defined(ins, wave, exec, pc, wi)?;
        }
        self.stats.wave_instructions += 1;
        self.stats.thread_instructions += if exec == self.all { self.geo.w as u64 } else { exec.count_ones() as u64 };
        self.cat[ins.category as usize] += 1;
        if let Some(f) = &self.kernels[pc as usize] {
            let mut lanes = alu::Lanes { regs: &mut wave.regs, preds: &mut wave.preds, w: self.geo.w as usize, exec, all: self.all };
            (f.kernel)(&mut lanes, &f.ops);
            if self.cfg.strict {
                strict::mark_written(ins, wave, exec);
            }
            wave.pc = pc + 1;
            return Ok(());
        }
        let mut next = pc + 1;
        match &ins.op {
            Op::Un(..) | Op::Bin(..) | Op::Tern(..) | Op::Bfi(..) | Op::Dbl(..) | Op::Cvt(..) | Op::MovSr(..) => {
                self.arith(&ins.op, wave, exec, wi)
            }
            Op::Cmp(..) | Op::Select(..) | Op::Mov(..) | Op::MovImm(..) => {}
            Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => self.memory_op(&ins.op, wave, exec, mem, tr, pc, wi)?,
            Op::Shuffle(..)
            | Op::Broadcast(..)
            | Op::Ballot(..)
            | Op::WaveAny(..)
            | Op::WaveAll(..)
            | Op::PrefixSum(..)
            | Op::Reduce(..) => {
                // Backends with full-mask wave operations need every live lane, or
                // none (a branch no lane takes is skipped on a GPU), and warps of
                // 32 threads: the lanes a partial one lacks are named by the mask too.
                let live = wave.exists & !wave.exited;
                if self.cfg.full_wave_ops && exec != 0 && exec != live {
                    let lane = (live & !exec).trailing_zeros() as usize;
                    let kind = FaultKind::PartialWaveOp { executing: exec.count_ones(), live: live.count_ones() };
                    return Err(self.fault(kind, Some(pc), wi, Some(lane)));
                }
                let threads = wave.exists.count_ones();
                if self.cfg.full_wave_ops && exec != 0 && wave.exists != self.all && threads % 32 != 0 {
                    let kind = FaultKind::PartialWarpWaveOp { threads };
                    return Err(self.fault(kind, Some(pc), wi, Some(threads as usize)));
                }
                self.wave_op(&ins.op, wave, exec)
            }
            Op::If { p, else_pc, endif_pc } => {
                if wave.frames.len() >= MAX_FRAMES {
                    return Err(self.fault(FaultKind::ControlFlow("more than 32 nested if/loop frames".into()), Some(pc), wi, None));
                }
                let then = wave.active & pmask(&wave.preds, *p);
                wave.frames.push(Frame { is_loop: false, saved: wave.active, aux: then, start_pc: 0 });
                wave.active = then;
                // Spec profile: an arm with no active lane is skipped (the `else`/`endif`
                // instruction itself still executes to keep the mask stack right).
                if then == 0 && self.spec {
                    next = if else_pc != endif_pc { *else_pc } else { *endif_pc };
                }
            }
            Op::Else { endif_pc } => {
                let Some(fr) = wave.frames.last().filter(|f| !f.is_loop) else {
                    return Err(self.fault(FaultKind::ControlFlow("`else` without an open `if`".into()), Some(pc), wi, None));
                };
                wave.active = fr.saved & !fr.aux;
                if wave.active == 0 && self.spec {
                    next = *endif_pc;
                }
            }
            Op::EndIf => match wave.frames.last() {
                Some(fr) if !fr.is_loop => {
                    wave.active = fr.saved;
                    wave.frames.pop();
                }
                _ => return Err(self.fault(FaultKind::ControlFlow("`endif` without an open `if`".into()), Some(pc), wi, None)),
            },
            Op::Loop { end_pc } => {
                if wave.frames.len() >= MAX_FRAMES {
                    return Err(self.fault(FaultKind::ControlFlow("more than 32 nested if/loop frames".into()), Some(pc), wi, None));
                }
                wave.frames.push(Frame { is_loop: true, saved: wave.active, aux: 0, start_pc: pc + 1 });
                if wave.active == 0 && self.spec {
                    next = *end_pc;
                }
            }
            Op::EndLoop { .. } => match wave.frames.last_mut() {
                Some(fr) if fr.is_loop => {
                    let again = wave.active | fr.aux;
                    fr.aux = 0;
                    if again != 0 {
                        wave.active = again;
                        next = fr.start_pc;
                    } else {
                        wave.active = fr.saved;
                        wave.frames.pop();
                    }
                }
                _ => return Err(self.fault(FaultKind::ControlFlow("`endloop` without an open `loop`".into()), Some(pc), wi, None)),
            },
            Op::Break { p, in_if } => {
                if *in_if && !self.spec {
                    return Err(self.fault(
                        FaultKind::ControlFlow("break inside if does not exit the loop on wave-emu 0.1.2".into()),
                        Some(pc),
                        wi,
                        None,
                    ));
                }
                let lanes = exec & pmask(&wave.preds, *p);
                if Self::leave_to_loop(wave, lanes).is_none() {
                    return Err(self.fault(FaultKind::ControlFlow("`break` outside a loop".into()), Some(pc), wi, None));
                }
            }
            Op::Continue { p } => {
                let lanes = exec & pmask(&wave.preds, *p);
                match Self::leave_to_loop(wave, lanes) {
                    Some(i) => wave.frames[i].aux |= lanes,
                    None => return Err(self.fault(FaultKind::ControlFlow("`continue` outside a loop".into()), Some(pc), wi, None)),
                }
            }
            Op::Call { target } => {
                let limit = if self.spec { 64 } else { 8 };
                if wave.calls.len() >= limit {
                    return Err(self.fault(FaultKind::ControlFlow(format!("call depth exceeds {limit}")), Some(pc), wi, None));
                }
                wave.calls.push((pc + 1, wave.frames.len() as u32));
                next = *target;
            }
            Op::Return => match wave.calls.pop() {
                Some((ret, depth)) => {
                    if depth as usize != wave.frames.len() {
                        return Err(self.fault(
                            FaultKind::ControlFlow("`return` inside an if/loop of the called function is not supported".into()),
                            Some(pc),
                            wi,
                            None,
                        ));
                    }
                    next = ret;
                }
                None => self.halt(wave, exec),
            },
            Op::Halt => self.halt(wave, exec),
            Op::Barrier => {
                // A barrier must be reached by every live lane of the wave or, where a
                // profile runs masked-off code (0.1.2), by none of them.
                let live = wave.exists & !wave.exited;
                if exec != 0 && exec != live {
                    let lane = (live & !exec).trailing_zeros() as usize;
                    let kind = FaultKind::DivergentBarrier { executing: exec.count_ones(), live: live.count_ones() };
                    return Err(self.fault(kind, Some(pc), wi, Some(lane)));
                }
                self.stats.barriers += 1;
                wave.at_barrier = true;
                wave.barrier_pc = pc;
                wave.barrier_exec = exec;
            }
            Op::Fence | Op::Wait | Op::Nop => {}
        }
        if self.cfg.strict {
            strict::mark_written(ins, wave, exec);
        }
        wave.pc = next;
        Ok(())
    }

    /// Run `wave`'s register-only instructions (those with a lane kernel) from its
    /// `pc` on, at most `budget` of them; how many ran. They neither fault nor let
    /// other waves see anything, so they need no turn in round-robin order.
    fn stretch(&mut self, wave: &mut Wave, trace: &mut WaveTrace, budget: u64) -> u64 {
        let w = self.geo.w as usize;
        let (mut pc, mut ran) = (wave.pc, 0u64);
        // Consecutive instructions mostly run under the same mask: count its lanes once.
        let (mut mask, mut lanes_on) = (self.all, w as u64);
        let mut threads = 0u64;
        while ran < budget {
            let Some(Some(f)) = self.kernels.get(pc as usize) else { break };
            let exec = match f.pred {
                Some(p) => wave.active & pmask(&wave.preds, p),
                None => wave.active,
            };
            if exec != mask {
                mask = exec;
                lanes_on = exec.count_ones() as u64;
            }
            threads += lanes_on;
            self.cat[f.category as usize] += 1;
            let mut lanes = alu::Lanes { regs: &mut wave.regs, preds: &mut wave.preds, w, exec, all: self.all };
            (f.kernel)(&mut lanes, &f.ops);
            pc += 1;
            ran += 1;
        }
        if self.record && ran > 0 {
            trace.record(wave.pc, ran as u32);
        }
        wave.pc = pc;
        self.stats.wave_instructions += ran;
        self.stats.thread_instructions += threads;
        ran
    }

    fn halt(&self, wave: &mut Wave, lanes: u64) {
        if !self.spec {
            // wave-emu 0.1.2: halt stops the whole wave.
            wave.done = true;
            return;
        }
        wave.exited |= lanes;
        wave.active &= !lanes;
        for fr in wave.frames.iter_mut() {
            fr.saved &= !lanes;
            fr.aux &= !lanes;
        }
        if wave.exists & !wave.exited == 0 {
            wave.done = true;
        }
    }

    fn reset_wave(&self, wave: &mut Wave, wi: u32, args: &[(u32, u32)]) {
        let g = self.geo;
        wave.start(g.w as usize, (g.threads - wi * g.w).min(g.w), args);
        if self.cfg.strict {
            wave.written.iter_mut().for_each(|m| *m = 0);
            for &(r, _) in args {
                wave.written[r as usize] = u64::MAX;
            }
        }
    }

    /// Run one workgroup. The semantics are round-robin, one instruction per wave
    /// per turn (as wave-emu 0.1.2): instruction `i` of a wave runs in round `i`
    /// (barriers aside), waves in index order within a round. Only memory
    /// accesses and barriers let waves see each other, so those run in exactly
    /// that order, while the instructions between them run in one stretch per wave
    /// (cheaper than switching waves after every instruction). A fault raised ahead
    /// of its turn waits until every instruction before it in round-robin order has
    /// run, so the fault reported is the round-robin one.
    fn run_group(&mut self, waves: &mut [Wave], traces: &mut [WaveTrace], args: &[(u32, u32)], mem: &mut Device) -> Result<(), Fault> {
        // The round-robin bookkeeping is kept between groups (no allocation per group).
        let mut rr = std::mem::take(&mut self.rr);
        let result = self.run_group_with(waves, traces, args, mem, &mut rr);
        self.rr = rr;
        result
    }

    fn run_group_with(
        &mut self,
        waves: &mut [Wave],
        traces: &mut [WaveTrace],
        args: &[(u32, u32)],
        mem: &mut Device,
        rr: &mut RoundRobin,
    ) -> Result<(), Fault> {
        if !self.local.is_empty() {
            // (A call to `memset` per group, even of nothing, showed in profiles.)
            self.local.fill(0);
        }
        let mut count: u64 = 0;
        if let Some(mut wide) = self.wide.take() {
            let finished = self.run_wide(&mut wide, waves, traces, args, mem, &mut count);
            self.wide = Some(wide);
            if finished {
                return Ok(());
            }
        } else {
            for (wi, wave) in waves.iter_mut().enumerate() {
                self.reset_wave(wave, wi as u32, args);
            }
        }
        let n = waves.len();
        let max = self.cfg.max_instructions;
        let n_instrs = self.k.instrs.len();
        rr.reset(n);
        let RoundRobin { round, arrived, finished, stopped } = rr;
        // A fault raised ahead of its turn, at (round, wave).
        let mut pending: Option<((u64, usize), Fault)> = None;
        loop {
            let mut pick: Option<usize> = None;
            for i in 0..n {
                let w = &waves[i];
                if !w.done && !w.at_barrier && !stopped[i] && !matches!(pick, Some(p) if round[p] <= round[i]) {
                    pick = Some(i);
                }
            }
            let Some(wi) = pick else {
                if let Some((_, f)) = pending {
                    return Err(f);
                }
                if waves.iter().all(|w| w.done) {
                    return Ok(());
                }
                // Every live wave waits at a barrier: it opens in the next round,
                // and they go on in the one after.
                self.release_barrier(waves)?;
                let resume = (0..n).filter(|&i| !waves[i].done).map(|i| arrived[i]).max().unwrap_or(0) + 2;
                for (i, r) in round.iter_mut().enumerate() {
                    if !waves[i].done {
                        *r = resume;
                    }
                }
                continue;
            };
            if let Some((at, _)) = &pending {
                if *at < (round[wi], wi) {
                    return Err(pending.take().map(|(_, f)| f).expect("pending"));
                }
            }
            let mut first = true;
            loop {
                let wave = &mut waves[wi];
                // Register-only instructions (most of them) never fault nor let waves
                // see each other: the shortest path, in one stretch.
                if !self.cfg.strict {
                    let budget = if max == 0 { u64::MAX } else { max.saturating_sub(count) };
                    let ran = self.stretch(wave, &mut traces[wi], budget);
                    if ran > 0 {
                        count += ran;
                        round[wi] += ran;
                        first = false;
                    }
                }
                let pc = wave.pc;
                let ins = self.k.instrs.get(pc as usize);
                // Memory and barriers wait for their turn in round-robin order.
                if !first && ins.is_some_and(|i| ordered(&i.op)) {
                    break;
                }
                let at = (round[wi], wi);
                count += 1;
                let mut result = if max != 0 && count > max {
                    Err(self.fault(FaultKind::InstructionLimit { limit: max }, Some(pc), wi as u32, None))
                } else {
                    Ok(())
                };
                if result.is_ok()
                    && !self.spec
                    && ins.is_some_and(|i| matches!(i.op, Op::Barrier))
                    && finished.iter().flatten().any(|&f| f < at)
                {
                    result = Err(self.fault(FaultKind::Deadlock, Some(pc), wi as u32, None));
                }
                if result.is_ok() {
                    if self.record && (pc as usize) < n_instrs {
                        traces[wi].record(pc, 1);
                    }
                    result = self.step(wave, wi as u32, mem, &mut traces[wi]);
                }
                if let Err(f) = result {
                    if first {
                        // Nothing before it in round-robin order is left to run.
                        return Err(f);
                    }
                    if !matches!(&pending, Some((p, _)) if *p <= at) {
                        pending = Some((at, f));
                    }
                    stopped[wi] = true;
                    break;
                }
                round[wi] += 1;
                first = false;
                let wave = &waves[wi];
                if wave.done {
                    finished[wi] = Some(at);
                    break;
                }
                if wave.at_barrier {
                    arrived[wi] = at.0;
                    break;
                }
            }
        }
    }

    /// Every live wave waits at a barrier: check that the whole group reached the
    /// same barrier the same way, then release it.
    fn release_barrier(&self, waves: &mut [Wave]) -> Result<(), Fault> {
        let Some((first, w0)) = waves.iter().enumerate().find(|(_, w)| w.at_barrier) else {
            return Ok(());
        };
        if waves.iter().any(|w| w.done) {
            // Part of the group finished: the others wait for waves that never come.
            return Err(self.fault(FaultKind::Deadlock, Some(w0.barrier_pc), first as u32, None));
        }
        for (wi, w) in waves.iter().enumerate() {
            if w.barrier_pc != w0.barrier_pc {
                let msg = format!(
                    "waves of the workgroup wait at different barriers (wave {first} at listing line {}, wave {wi} at listing line {})",
                    self.k.instrs.get(w0.barrier_pc as usize).map(|i| i.origin.asm_line).unwrap_or(0),
                    self.k.instrs.get(w.barrier_pc as usize).map(|i| i.origin.asm_line).unwrap_or(0),
                );
                return Err(self.fault(FaultKind::BarrierMismatch(msg), Some(w.barrier_pc), wi as u32, None));
            }
            if (w.barrier_exec == 0) != (w0.barrier_exec == 0) {
                let (zero, some) = if w.barrier_exec == 0 { (wi, first) } else { (first, wi) };
                let msg = format!("barrier in divergent control flow: wave {some} executes it, wave {zero} has no active lane there");
                return Err(self.fault(FaultKind::BarrierMismatch(msg), Some(w.barrier_pc), zero as u32, None));
            }
        }
        for w in waves.iter_mut() {
            // Waves resume after the barrier instruction (`pc` already points past it).
            w.at_barrier = false;
        }
        Ok(())
    }
}

/// Threads a run may use (`SimConfig::threads`, 0: every available core).
fn threads(cfg: &SimConfig) -> usize {
    match cfg.threads {
        0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        n => n,
    }
}

/// Dispatches with fewer workgroups than this run on one thread (not worth the start-up).
const MIN_PARALLEL_GROUPS: u64 = 64;

impl<'a> Exec<'a> {
    pub(crate) fn new(k: &'a Kernel, cfg: &'a SimConfig, geo: &'a Geometry, record: bool) -> Exec<'a> {
        let w = geo.w as usize;
        let banks = cfg.machine.memory.local_banks.max(1);
        let mut ex = Exec {
            k,
            cfg,
            geo,
            spec: cfg.profile == Profile::Spec04,
            all: if w >= 64 { u64::MAX } else { (1u64 << w) - 1 },
            local: vec![0; k.local_memory as usize],
            scratch: vec![0; w],
            cat: [0; 9],
            stats: Stats::default(),
            limits: RunLimits::default(),
            deadline: None,
            wg_id: [0; 3],
            record,
            seg_shift: cfg.machine.memory.segment_bytes.max(1).trailing_zeros(),
            banks,
            bank_count: vec![0; banks as usize],
            mem: MemoryCounters::default(),
            kernels: k
                .instrs
                .iter()
                .map(|i| alu::kernel_for(&i.op, w).map(|(kernel, ops)| Fast { kernel, ops, pred: i.pred, category: i.category as u8 }))
                .collect(),
            log: None,
            rr: RoundRobin::default(),
            spoiled: false,
            wide: None,
        };
        if cfg.wide_waves && !cfg.strict && wide::fits(geo.nwaves, geo.w) {
            ex.wide = Some(Box::new(wide::Wide::new(&ex)));
        }
        ex
    }

    /// The waves of one workgroup (reset by each `group`).
    pub(crate) fn new_waves(&self) -> Vec<Wave> {
        let (w, regs) = (self.geo.w as usize, self.k.registers as usize);
        (0..self.geo.nwaves)
            .map(|_| Wave {
                regs: vec![0; regs.max(1) * w],
                preds: [0; 4],
                active: 0,
                exists: 0,
                exited: 0,
                pc: 0,
                frames: Vec::with_capacity(MAX_FRAMES),
                calls: Vec::new(),
                done: false,
                at_barrier: false,
                barrier_pc: 0,
                barrier_exec: 0,
                written: if self.cfg.strict { vec![0; regs + 4] } else { Vec::new() },
            })
            .collect()
    }

    /// Run workgroup `g` (dispatch order: x fastest, then y, z).
    /// The run's limits after workgroup `g`, when its workgroups have issued
    /// `issued` wave-instructions in all.
    pub(crate) fn check_limits(&self, g: u64, issued: u64) -> Result<(), Fault> {
        let at = |kind: FaultKind| {
            let [gx, gy, _] = self.geo.grid.map(|n| n as u64);
            let workgroup = [(g % gx) as u32, ((g / gx) % gy) as u32, (g / (gx * gy)) as u32];
            Err(Fault { kind, origin: None, workgroup, wave: 0, lane: None })
        };
        let limit = self.limits.max_instructions;
        if limit != 0 && issued > limit {
            return at(FaultKind::RunInstructionLimit { limit });
        }
        if let Some((deadline, time)) = self.deadline {
            if std::time::Instant::now() > deadline {
                return at(FaultKind::TimeLimit { limit_ms: time.as_millis() as u64 });
            }
        }
        Ok(())
    }

    pub(crate) fn group(
        &mut self,
        g: u64,
        waves: &mut [Wave],
        traces: &mut [WaveTrace],
        args: &[(u32, u32)],
        mem: &mut Device,
    ) -> Result<(), Fault> {
        let [gx, gy, _] = self.geo.grid.map(|n| n as u64);
        self.wg_id = [(g % gx) as u32, ((g / gx) % gy) as u32, (g / (gx * gy)) as u32];
        self.run_group(waves, traces, args, mem)?;
        self.stats.workgroups += 1;
        self.stats.waves += self.geo.nwaves as u64;
        Ok(())
    }

    /// Add another executor's counts (from a part of the same dispatch) to these.
    pub(crate) fn absorb(&mut self, o: &Stats, cat: &[u64; 9]) {
        let s = &mut self.stats;
        s.wave_instructions += o.wave_instructions;
        s.thread_instructions += o.thread_instructions;
        s.device_loads += o.device_loads;
        s.device_stores += o.device_stores;
        s.local_loads += o.local_loads;
        s.local_stores += o.local_stores;
        s.barriers += o.barriers;
        s.workgroups += o.workgroups;
        s.waves += o.waves;
        for (a, b) in self.cat.iter_mut().zip(cat) {
            *a += b;
        }
    }

    /// Take the counts so far, leaving zeros.
    pub(crate) fn take_counts(&mut self) -> (Stats, [u64; 9]) {
        (std::mem::take(&mut self.stats), std::mem::take(&mut self.cat))
    }
}

/// Run the dispatch. Inputs are validated by the caller.
///
/// With the cycle model, the executor runs on a second thread and hands each
/// workgroup's traces to the model in dispatch order; without it, groups run
/// speculatively in parallel (`parallel.rs`). Either way the buffers, counts,
/// faults and cycles are those of the one-thread run.
pub(crate) fn run(
    k: &Kernel,
    cfg: &SimConfig,
    launch: &Launch,
    geo: &Geometry,
    mem: &mut Memory,
    limits: &RunLimits,
) -> Result<Stats, Fault> {
    let groups = launch.grid.iter().map(|&n| n as u64).product::<u64>();
    let threads = threads(cfg);
    let mut ex = Exec::new(k, cfg, geo, cfg.timing);
    ex.limits = *limits;
    ex.deadline = limits.time.map(|t| (std::time::Instant::now() + t, t));
    let mut stats = if cfg.timing {
        let mut engine = Engine::new(k, cfg, geo)?;
        let window = Window { max: limits.max_trace_bytes as usize, nwaves: geo.nwaves as usize };
        let dropped = if threads >= 2 && groups >= MIN_PARALLEL_GROUPS {
            pipelined(&mut ex, &mut engine, groups, &launch.args, mem, window)?
        } else {
            let mut waves = ex.new_waves();
            let mut dev = Device::Own(&mut mem.bytes);
            let mut traces = window.traces();
            let mut dropped = None;
            for g in 0..groups {
                traces.iter_mut().for_each(WaveTrace::clear);
                ex.group(g, &mut waves, &mut traces, &launch.args, &mut dev)?;
                ex.check_limits(g, ex.stats.wave_instructions)?;
                if dropped.is_some() {
                    continue;
                }
                if window.over(&traces) {
                    dropped = Some(g);
                    ex.record = false;
                    continue;
                }
                let mut packed = engine.take_trace();
                packed.pack(&traces);
                engine.admit(packed);
                if window.over_held(engine.held_bytes()) {
                    dropped = Some(g);
                    ex.record = false;
                }
            }
            dropped
        };
        let mut stats = std::mem::take(&mut ex.stats);
        if dropped.is_some() {
            stats.timing_dropped = dropped;
        } else {
            let mut report = engine.finish();
            let m = &mut report.memory;
            let f = &ex.mem;
            m.device_load_instructions = f.device_load_instructions;
            m.device_store_instructions = f.device_store_instructions;
            m.device_atomic_instructions = f.device_atomic_instructions;
            m.load_transactions = f.load_transactions;
            m.store_transactions = f.store_transactions;
            m.atomic_transactions = f.atomic_transactions;
            m.ideal_transactions = f.ideal_transactions;
            m.local_instructions = f.local_instructions;
            m.local_passes = f.local_passes;
            m.bank_conflict_passes = f.bank_conflict_passes;
            stats.cycles = report.cycles;
            stats.timing = Some(report);
        }
        stats
    } else {
        if threads >= 2 && groups >= MIN_PARALLEL_GROUPS {
            parallel::run(&mut ex, threads, groups, &launch.args, mem)?;
        } else {
            let mut waves = ex.new_waves();
            let mut traces: Vec<WaveTrace> = (0..geo.nwaves).map(|_| WaveTrace::default()).collect();
            let mut dev = Device::Own(&mut mem.bytes);
            for g in 0..groups {
                ex.group(g, &mut waves, &mut traces, &launch.args, &mut dev)?;
                ex.check_limits(g, ex.stats.wave_instructions)?;
            }
        }
        std::mem::take(&mut ex.stats)
    };
    for (i, name) in CATEGORY_NAMES.iter().enumerate() {
        stats.by_category.insert(name.to_string(), ex.cat[i]);
    }
    Ok(stats)
}

/// The cycle model's trace window ([`RunLimits::max_trace_bytes`]): `max`
/// bytes (0: unlimited) for the traces the model holds, and half of that for
/// one workgroup's (which the executor holds too while it packs them).
#[derive(Clone, Copy)]
struct Window {
    max: usize,
    nwaves: usize,
}

impl Window {
    /// Empty traces for the waves of a group, each capped at its share of half the window.
    fn traces(self) -> Vec<WaveTrace> {
        let cap = if self.max == 0 { 0 } else { (self.max / 2 / 4 / self.nwaves.max(1)).max(1) };
        (0..self.nwaves).map(|_| WaveTrace { cap, ..WaveTrace::default() }).collect()
    }

    /// A group's traces passed their cap.
    fn over(self, traces: &[WaveTrace]) -> bool {
        traces.iter().any(|t| t.over)
    }

    /// The model holds more than the window.
    fn over_held(self, held: usize) -> bool {
        self.max != 0 && held > self.max
    }
}

/// Workgroups handed over at once (one channel operation, and so at most one
/// thread wake-up, per batch instead of per group): the first batch is
/// `PIPELINE_FIRST` groups, so the model starts early, and each next one twice
/// as many up to `PIPELINE_BATCH`, or fewer once their traces hold
/// `PIPELINE_BATCH_BYTES`. The executor outruns the model, so it waits on a
/// full channel and each batch the model takes wakes it: in a virtual machine a
/// wake-up costs tens of microseconds, and batches of 256 made them about 3% of
/// timed saxpy (groups of two short waves) on two threads; batches of 32 cost
/// about 15%. The byte bound keeps what waits in the channel small for large
/// groups and long traces. Its size was measured both ways on the loop kernel
/// (two threads, model on): 1 MiB ran it about 7% faster than 256 KiB on the
/// generic model but about 15% slower on gcn; 512 KiB was no better than either.
const PIPELINE_FIRST: usize = 16;
const PIPELINE_BATCH: usize = 1024;
const PIPELINE_BATCH_BYTES: usize = 256 * 1024;
/// Batches the executor thread may run ahead of the cycle model.
const PIPELINE_DEPTH: usize = 4;

/// The executor on a second thread, the cycle model on this one, traces handed
/// over in dispatch order through a bounded channel in batches of groups (and
/// their buffers back).
fn pipelined(
    ex: &mut Exec,
    engine: &mut Engine,
    groups: u64,
    args: &[(u32, u32)],
    mem: &mut Memory,
    window: Window,
) -> Result<Option<u64>, Fault> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::mpsc;
    let (tx, rx) = mpsc::sync_channel::<Vec<GroupTrace>>(PIPELINE_DEPTH);
    // Back to the executor: the trace buffers of retired groups, and the emptied
    // batch. Everything handed over is reused, so no buffer is allocated on one
    // thread and freed on the other. The per-wave traces never leave the executor.
    let (back_tx, back_rx) = mpsc::channel::<(Vec<GroupTrace>, Vec<GroupTrace>)>();
    // The first workgroup at which the trace window was passed (u64::MAX: none
    // yet), found by either side; from there on nothing is recorded or timed.
    let dropped = AtomicU64::new(u64::MAX);
    let dropped = &dropped;
    let result = std::thread::scope(|s| {
        let producer = s.spawn(move || -> Result<(), Fault> {
            let mut waves = ex.new_waves();
            let mut dev = Device::Own(&mut mem.bytes);
            let mut traces = window.traces();
            let mut spare: Vec<GroupTrace> = Vec::new();
            let mut batches: Vec<Vec<GroupTrace>> = Vec::new();
            let mut batch = Vec::with_capacity(PIPELINE_BATCH);
            let mut batch_len = PIPELINE_FIRST;
            let mut batch_bytes = 0;
            for g in 0..groups {
                while let Ok((mut more, used)) = back_rx.try_recv() {
                    spare.append(&mut more);
                    batches.push(used);
                }
                traces.iter_mut().for_each(WaveTrace::clear);
                let result =
                    ex.group(g, &mut waves, &mut traces, args, &mut dev).and_then(|_| ex.check_limits(g, ex.stats.wave_instructions));
                if result.is_err() {
                    // The groups before the faulting one are still timed.
                    let _ = tx.send(batch);
                    return result;
                }
                if ex.record && window.over(&traces) {
                    // The groups before this one still go to the model, which may
                    // find the window passed earlier (as a run on one thread would).
                    let _ = tx.send(std::mem::take(&mut batch));
                    dropped.fetch_min(g, Ordering::Relaxed);
                    ex.record = false;
                }
                if ex.record && dropped.load(Ordering::Relaxed) < g {
                    // The model found the window passed at an earlier group.
                    ex.record = false;
                }
                if !ex.record {
                    continue;
                }
                let mut packed = spare.pop().unwrap_or_default();
                packed.pack(&traces);
                batch_bytes += packed.bytes();
                batch.push(packed);
                let full = batch.len() >= batch_len || batch_bytes >= PIPELINE_BATCH_BYTES || g + 1 == groups;
                if full {
                    batch_bytes = 0;
                    batch_len = (batch_len * 2).min(PIPELINE_BATCH);
                    let next = batches.pop().unwrap_or_else(|| Vec::with_capacity(PIPELINE_BATCH));
                    if tx.send(std::mem::replace(&mut batch, next)).is_err() {
                        break;
                    }
                }
            }
            Ok(())
        });
        // Groups come in dispatch order: `admitted` is the next one's index. Those
        // at or past where the window was passed are not timed.
        let mut admitted = 0u64;
        for mut batch in rx {
            for trace in batch.drain(..) {
                if admitted >= dropped.load(Ordering::Relaxed) {
                    break;
                }
                engine.admit(trace);
                if window.over_held(engine.held_bytes()) {
                    dropped.fetch_min(admitted, Ordering::Relaxed);
                }
                admitted += 1;
            }
            batch.clear();
            let spare: Vec<GroupTrace> = engine.spare_traces().collect();
            let _ = back_tx.send((spare, batch));
        }
        producer.join().unwrap_or_else(|_| {
            Err(Fault {
                kind: FaultKind::Other("the executor thread panicked".into()),
                origin: None,
                workgroup: [0; 3],
                wave: 0,
                lane: None,
            })
        })
    });
    result.map(|()| Some(dropped.load(Ordering::Relaxed)).filter(|&g| g != u64::MAX))
}
