//! A workgroup run as one wide wave while its waves run in lockstep.
//!
//! While every wave of a group is at the same instruction with the same mask
//! stack, round-robin order (instruction `i` of wave 0, of wave 1, ..., then
//! `i + 1`) is what one wave of `n * w` lanes does when wave `j`'s lane `l` is
//! its lane `j * w + l`: lane order is wave order, then lane order, for stores
//! as for the lanes that would fault. So a group whose waves fit in 64 lanes
//! starts as one wide wave, and each instruction is dispatched once instead of
//! once per wave (and memory accesses check and copy one longer run of lanes).
//!
//! Before an instruction whose outcome could differ between the waves (a branch
//! some waves take and others skip, a cross-lane operation, a partial mask or a
//! lane that would fault on a memory access, a barrier some lanes miss, the
//! instruction limit, anything else uncommon) the wide wave is split into the
//! group's waves, which go on round-robin from that instruction (`mod.rs`). So
//! the buffers, counts and faults are those of the round-robin run; nothing the
//! wide wave runs can fault. With the cycle model on, every wave's trace gets
//! what round-robin would record: each instruction, and for each memory access
//! its own lanes' part. Not used with `--strict`, nor when
//! `SimConfig::wide_waves` is off (the tests' reference).

use super::device::Device;
use super::{alu, pmask, words, Exec, Fast, Frame, Wave, MAX_FRAMES};
use crate::isa::*;
use crate::timing::WaveTrace;

pub(crate) struct Wide {
    wave: Wave,
    /// Per instruction, its lane kernel for the wide width.
    kernels: Vec<Option<Fast>>,
    /// Lanes per wave, waves, and the mask of all `n * w` lanes.
    w: usize,
    n: usize,
    all: u64,
}

/// Whether groups of `nwaves` waves of `w` lanes can run as one wide wave.
pub(super) fn fits(nwaves: u32, w: u32) -> bool {
    nwaves >= 2 && nwaves as u64 * w as u64 <= 64
}

/// Of the `n` chunks of `w` lanes of `mask`: whether some are empty, and whether all are.
fn empty_chunks(mask: u64, w: usize, n: usize) -> (bool, bool) {
    let one = (1u64 << w) - 1;
    let empty = (0..n).filter(|&j| (mask >> (j * w)) & one == 0).count();
    (empty > 0, empty == n)
}

/// Whether the waves disagree on whether their chunk of `mask` is empty (a
/// branch some take and others skip).
fn mixed(mask: u64, w: usize, n: usize) -> bool {
    let (some, all) = empty_chunks(mask, w, n);
    some && !all
}

impl Wide {
    pub(super) fn new(ex: &Exec) -> Wide {
        let (w, n) = (ex.geo.w as usize, ex.geo.nwaves as usize);
        let lanes = w * n;
        let mut wave = ex.new_waves().swap_remove(0);
        wave.regs = vec![0; ex.k.registers.max(1) as usize * lanes];
        Wide {
            wave,
            kernels: ex
                .k
                .instrs
                .iter()
                .map(|i| alu::kernel_for(&i.op, lanes).map(|(kernel, ops)| Fast { kernel, ops, pred: i.pred, category: i.category as u8 }))
                .collect(),
            w,
            n,
            all: if lanes >= 64 { u64::MAX } else { (1u64 << lanes) - 1 },
        }
    }

    /// The group's threads at the start: every register zero but the arguments.
    fn reset(&mut self, threads: u32, args: &[(u32, u32)]) {
        // Waves are consecutive threads: the first `threads` lanes exist.
        self.wave.start(self.w * self.n, threads, args);
    }

    /// Hand the wide wave's state to the group's waves, as round-robin execution
    /// would have left them at this instruction.
    fn split(&self, waves: &mut [Wave]) {
        let (w, fw) = (self.w, &self.wave);
        let lanes = w * self.n;
        let one = (1u64 << w) - 1;
        for (j, wave) in waves.iter_mut().enumerate() {
            let chunk = |m: u64| (m >> (j * w)) & one;
            for (r, dst) in wave.regs.chunks_exact_mut(w).enumerate() {
                dst.copy_from_slice(&fw.regs[r * lanes + j * w..r * lanes + (j + 1) * w]);
            }
            wave.preds = fw.preds.map(chunk);
            wave.active = chunk(fw.active);
            wave.exists = chunk(fw.exists);
            wave.exited = chunk(fw.exited);
            wave.pc = fw.pc;
            wave.frames.clear();
            wave.frames.extend(fw.frames.iter().map(|f| Frame { saved: chunk(f.saved), aux: chunk(f.aux), ..*f }));
            wave.calls.clone_from(&fw.calls);
            wave.done = false;
            wave.at_barrier = false;
            wave.barrier_pc = 0;
            wave.barrier_exec = 0;
        }
    }
}

impl Exec<'_> {
    /// Start the group as one wide wave: `true` when it ran to the end, `false`
    /// when `waves` now hold its state, to go on round-robin. `count` receives
    /// the wave-instructions run.
    /// With the cycle model on, each wave's trace (`traces`) gets what it would
    /// have recorded running round-robin: the same instructions, and its own
    /// lanes' memory accesses.
    pub(super) fn run_wide(
        &mut self,
        wide: &mut Wide,
        waves: &mut [Wave],
        traces: &mut [WaveTrace],
        args: &[(u32, u32)],
        mem: &mut Device,
        count: &mut u64,
    ) -> bool {
        wide.reset(self.geo.threads, args);
        if self.wide_steps(wide, traces, mem, count) {
            return true;
        }
        wide.split(waves);
        false
    }

    /// Run instructions on the wide wave until the group finishes (`true`) or
    /// the next instruction needs the waves apart (`false`).
    fn wide_steps(&mut self, wide: &mut Wide, traces: &mut [WaveTrace], mem: &mut Device, count: &mut u64) -> bool {
        let (w, n, all) = (wide.w, wide.n, wide.all);
        let lanes = w * n;
        let max = self.cfg.max_instructions;
        // Traces for the cycle model (read once: the loop below is the hot path).
        let record = self.record;
        let fw = &mut wide.wave;
        // Consecutive instructions mostly run under one mask: count its lanes once
        // (no `popcnt` on baseline x86-64).
        let (mut mask, mut active) = (all, lanes as u64);
        // Counted here, per wide instruction, and added to the totals at the end
        // (kept in registers rather than updated through `self` each time).
        let (mut ran, mut threads, mut cat) = (0u64, 0u64, [0u64; 9]);
        let finished = loop {
            if max != 0 && *count + (ran + 1) * n as u64 > max {
                // The limit falls inside this round: the waves find where.
                break false;
            }
            let pc = fw.pc;
            if let Some(Some(f)) = wide.kernels.get(pc as usize) {
                let exec = match f.pred {
                    Some(p) => fw.active & pmask(&fw.preds, p),
                    None => fw.active,
                };
                cat[f.category as usize] += 1;
                if exec != mask {
                    (mask, active) = (exec, exec.count_ones() as u64);
                }
                threads += active;
                let mut x = alu::Lanes { regs: &mut fw.regs, preds: &mut fw.preds, w: lanes, exec, all };
                (f.kernel)(&mut x, &f.ops);
                if record {
                    traces.iter_mut().for_each(|t| t.record(pc, 1));
                }
                fw.pc = pc + 1;
                ran += 1;
                continue;
            }
            let Some(ins) = self.k.instrs.get(pc as usize) else { break false };
            let exec = match ins.pred {
                Some(p) => fw.active & pmask(&fw.preds, p),
                None => fw.active,
            };
            let mut next = pc + 1;
            let mut finished = false;
            match ins.op {
                Op::MovSr(d, sr) if d.half == Half::Full => {
                    let mut vals = [0u32; 64];
                    for (j, chunk) in vals[..lanes].chunks_exact_mut(w).enumerate() {
                        self.special(sr, j as u32, chunk);
                    }
                    let di = d.idx as usize * lanes;
                    alu::blend(&mut fw.regs[di..di + lanes], &vals[..lanes], exec);
                }
                Op::Load { local, bytes: 4, d, addr } if d.half == Half::Full && addr.half == Half::Full && exec == all => {
                    let space: &[u8] = if local { &self.local } else { mem.bytes() };
                    let (di, ai) = (d.idx as usize * lanes, addr.idx as usize * lanes);
                    let Some((shape, lo, hi)) = self.whole_wave(&fw.regs[ai..ai + lanes], space.len()) else { break false };
                    if !local && mem.shared() && self.wrote(lo, hi.saturating_add(3)) {
                        // The waves stop the speculative chunk.
                        break false;
                    }
                    // The addresses, before the load may overwrite them (for the cycle model).
                    let addrs = record.then(|| {
                        let mut a = [0u32; 64];
                        a[..lanes].copy_from_slice(&fw.regs[ai..ai + lanes]);
                        a
                    });
                    words::load(&mut fw.regs, di, ai, lanes, shape, space);
                    self.count_access(local, super::memory::Access::Load, lanes as u64);
                    self.log_span(pc, lo, hi, 4, local, super::memory::Access::Load);
                    if let Some(addrs) = addrs {
                        for (t, a) in traces.iter_mut().zip(addrs[..lanes].chunks_exact(w)) {
                            self.record_access(t, a, 4, local, super::memory::Access::Load);
                        }
                    }
                }
                Op::Store { local, bytes: 4, addr, v } if v.half == Half::Full && addr.half == Half::Full && exec == all => {
                    let size = if local { self.local.len() } else { mem.len() };
                    let (vi, ai) = (v.idx as usize * lanes, addr.idx as usize * lanes);
                    let regs = &fw.regs;
                    let Some((shape, lo, hi)) = self.whole_wave(&regs[ai..ai + lanes], size) else { break false };
                    let (addrs, vals) = (&regs[ai..ai + lanes], &regs[vi..vi + lanes]);
                    match (local, &mut *mem) {
                        (true, _) => words::store(&mut self.local, addrs, vals, shape),
                        (false, Device::Own(space)) => words::store(space, addrs, vals, shape),
                        (false, Device::Shared(_, log)) => words::log_store(log, addrs, vals, shape),
                    }
                    self.count_access(local, super::memory::Access::Store, lanes as u64);
                    self.log_span(pc, lo, hi, 4, local, super::memory::Access::Store);
                    if record {
                        for (t, a) in traces.iter_mut().zip(fw.regs[ai..ai + lanes].chunks_exact(w)) {
                            self.record_access(t, a, 4, local, super::memory::Access::Store);
                        }
                    }
                }
                Op::If { p, else_pc, endif_pc } => {
                    let then = fw.active & pmask(&fw.preds, p);
                    if fw.frames.len() >= MAX_FRAMES || (self.spec && mixed(then, w, n)) {
                        break false;
                    }
                    fw.frames.push(Frame { is_loop: false, saved: fw.active, aux: then, start_pc: 0 });
                    fw.active = then;
                    if then == 0 && self.spec {
                        next = if else_pc != endif_pc { else_pc } else { endif_pc };
                    }
                }
                Op::Else { endif_pc } => {
                    let Some(fr) = fw.frames.last().filter(|f| !f.is_loop) else { break false };
                    let arm = fr.saved & !fr.aux;
                    if self.spec && mixed(arm, w, n) {
                        break false;
                    }
                    fw.active = arm;
                    if arm == 0 && self.spec {
                        next = endif_pc;
                    }
                }
                Op::EndIf => {
                    let Some(fr) = fw.frames.last().filter(|f| !f.is_loop) else { break false };
                    fw.active = fr.saved;
                    fw.frames.pop();
                }
                Op::Loop { end_pc } => {
                    if fw.frames.len() >= MAX_FRAMES || (self.spec && mixed(fw.active, w, n)) {
                        break false;
                    }
                    fw.frames.push(Frame { is_loop: true, saved: fw.active, aux: 0, start_pc: pc + 1 });
                    if fw.active == 0 && self.spec {
                        next = end_pc;
                    }
                }
                Op::EndLoop { .. } => {
                    let Some(fr) = fw.frames.last_mut().filter(|f| f.is_loop) else { break false };
                    let again = fw.active | fr.aux;
                    if mixed(again, w, n) {
                        // Some waves go round again, others leave.
                        break false;
                    }
                    fr.aux = 0;
                    if again != 0 {
                        fw.active = again;
                        next = fr.start_pc;
                    } else {
                        fw.active = fr.saved;
                        fw.frames.pop();
                    }
                }
                Op::Break { p, in_if } => {
                    if (in_if && !self.spec) || !fw.frames.iter().any(|f| f.is_loop) {
                        break false;
                    }
                    let gone = exec & pmask(&fw.preds, p);
                    Exec::leave_to_loop(fw, gone);
                }
                Op::Continue { p } => {
                    if !fw.frames.iter().any(|f| f.is_loop) {
                        break false;
                    }
                    let gone = exec & pmask(&fw.preds, p);
                    if let Some(i) = Exec::leave_to_loop(fw, gone) {
                        fw.frames[i].aux |= gone;
                    }
                }
                Op::Call { target } => {
                    if fw.calls.len() >= if self.spec { 64 } else { 8 } {
                        break false;
                    }
                    fw.calls.push((pc + 1, fw.frames.len() as u32));
                    next = target;
                }
                Op::Return if !fw.calls.is_empty() => match fw.calls.pop() {
                    Some((ret, depth)) if depth as usize == fw.frames.len() => next = ret,
                    // A return inside an if/loop of the callee: the waves report it.
                    Some(call) => {
                        fw.calls.push(call);
                        break false;
                    }
                    None => break false,
                },
                Op::Return | Op::Halt => {
                    if !self.spec {
                        // wave-emu 0.1.2: halt stops the whole wave, so every wave.
                        finished = true;
                    } else {
                        let live = fw.exists & !(fw.exited | exec);
                        if mixed(live, w, n) {
                            break false;
                        }
                        self.halt(fw, exec);
                        finished = fw.done;
                    }
                }
                Op::Barrier => {
                    // Every wave reaches it in this round: it opens at once when each
                    // wave executes it with all its live lanes, or (0.1.2's masked-off
                    // code) each with none.
                    let live = fw.exists & !fw.exited;
                    let one = (1u64 << w) - 1;
                    let whole = (0..n).all(|j| (exec >> (j * w)) & one == (live >> (j * w)) & one);
                    if !(whole || exec == 0) || mixed(exec, w, n) {
                        break false;
                    }
                    self.stats.barriers += n as u64;
                }
                Op::Fence | Op::Wait | Op::Nop => {}
                _ => break false,
            }
            cat[ins.category as usize] += 1;
            if exec != mask {
                (mask, active) = (exec, exec.count_ones() as u64);
            }
            threads += active;
            ran += 1;
            if record {
                traces.iter_mut().for_each(|t| t.record(pc, 1));
            }
            fw.pc = next;
            if finished {
                break true;
            }
        };
        *count += ran * n as u64;
        self.stats.wave_instructions += ran * n as u64;
        self.stats.thread_instructions += threads;
        for (total, c) in self.cat.iter_mut().zip(cat) {
            *total += c * n as u64;
        }
        finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_of_masks() {
        // Two waves of 32 lanes.
        assert_eq!(empty_chunks(0, 32, 2), (true, true));
        assert_eq!(empty_chunks(1, 32, 2), (true, false));
        assert_eq!(empty_chunks(1 << 32, 32, 2), (true, false));
        assert_eq!(empty_chunks(1 | 1 << 63, 32, 2), (false, false));
        assert!(mixed(0xffff_ffff, 32, 2));
        assert!(!mixed(u64::MAX, 32, 2));
        assert!(!mixed(0, 32, 2));
        // Three waves of 5 lanes: bit 10 is the third wave's first lane.
        assert!(mixed(1 << 10, 5, 3));
        assert!(!mixed(1 | 1 << 5 | 1 << 14, 5, 3));
    }

    /// Runs one 64-thread group of `body` (waves of 32) as a wide wave: whether it
    /// finished so, the wave-instructions it ran, and the first words of memory.
    fn run_wide_group(body: &str) -> (bool, u64, Vec<u32>) {
        let src = format!(".kernel k\n.registers 8\n.workgroup_size 64, 1, 1\n{body}\n    halt\n.end\n");
        let prog = crate::parse(&src, crate::Profile::Toolchain012).expect("parses");
        let k = &prog.kernels[0];
        let cfg = crate::SimConfig {
            wave_width: 32,
            profile: crate::Profile::Toolchain012,
            max_instructions: 0,
            local_memory_limit: 0,
            timing: false,
            machine: crate::machine::test_machine(),
            registers_for_occupancy: None,
            strict: false,
            threads: 1,
            wide_waves: true,
            full_wave_ops: false,
        };
        let launch = crate::Launch { grid: [1, 1, 1], workgroup_size: [64, 1, 1], args: vec![] };
        let geo = crate::validate(k, &cfg, &launch).expect("valid");
        let mut ex = Exec::new(k, &cfg, &geo, false);
        let mut wide = ex.wide.take().expect("two waves of 32 fit in one wide wave");
        let mut waves = ex.new_waves();
        let mut mem = vec![0u8; 256];
        let mut count = 0;
        let finished = ex.run_wide(&mut wide, &mut waves, &mut [], &[], &mut Device::Own(&mut mem), &mut count);
        (finished, count, mem.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    #[test]
    fn a_lockstep_group_runs_to_the_end_as_one_wide_wave() {
        // out[tid] = tid + 1 for the 64 threads of both waves, under an if every lane takes.
        let body = "    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    mov_imm r4, 64\n    ucmp_lt p1, r1, r4\n    if p1\n    mov_imm r5, 1\n    iadd r5, r1, r5\n    device_store_u32 r3, r5\n    endif";
        let (finished, count, out) = run_wide_group(body);
        assert!(finished);
        // Eleven instructions (halt included), two waves each.
        assert_eq!(count, 22);
        assert_eq!(out, (1..=64).collect::<Vec<u32>>());
    }

    #[test]
    fn waves_that_would_part_ways_are_split_first() {
        // A loop whose trip count differs between the waves (wave id + 1): the
        // wide wave stops at the `endloop` where they disagree.
        let body =
            "    mov r1, sr_wave_id\n    mov_imm r2, 1\n    loop\n    icmp_lt p1, r1, r2\n    break p1\n    isub r1, r1, r2\n    endloop";
        let (finished, count, _) = run_wide_group(body);
        assert!(!finished);
        // mov, mov_imm, loop, then icmp, break, isub before the first endloop: six each.
        assert_eq!(count, 12);
    }

    #[test]
    fn fits_only_several_waves_within_64_lanes() {
        assert!(fits(2, 32));
        assert!(fits(4, 16));
        assert!(!fits(1, 32));
        assert!(!fits(2, 64));
        assert!(!fits(3, 32));
    }
}
