//! The cycle model's behaviour on small kernels: exact cycle counts where the
//! model is simple enough to work them out by hand, directions and proportions
//! elsewhere.

use crate::machine::test_machine;
use crate::*;
use std::cell::Cell;

thread_local! {
    /// Set by a test on its own thread: engines built there take events through
    /// the heap, strictly in (cycle, core) order, even with few cores.
    static FORCE_HEAP: Cell<bool> = const { Cell::new(false) };
}

pub(super) fn force_heap() -> bool {
    FORCE_HEAP.with(Cell::get)
}

/// One compute unit with one core that issues everything in one cycle.
fn one_core() -> Machine {
    let mut m = test_machine();
    m.compute_units = 1;
    m.cores_per_cu = 1;
    m.issue = ClassCycles { alu: 1, fpu: 1, sfu: 1, memory: 1, atomic: 1, wave: 1, control: 1, sync: 1, mov: 1 };
    m.launch_cycles = 0;
    m.barrier_cycles = 0;
    m
}

fn config(m: Machine, w: u32) -> SimConfig {
    SimConfig {
        wave_width: w,
        profile: Profile::Spec04,
        max_instructions: 1_000_000,
        local_memory_limit: 65536,
        timing: true,
        machine: m,
        registers_for_occupancy: None,
        strict: false,
        threads: 1,
        wide_waves: true,
        full_wave_ops: false,
    }
}

fn run_src(src: &str, c: &SimConfig, grid: u32, mem: &mut Memory) -> Stats {
    let prog = parse(src, c.profile).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let l = Launch { grid: [grid, 1, 1], workgroup_size: [1, 1, 1], args: vec![] };
    run(&prog.kernels[0], c, &l, mem).unwrap_or_else(|e| panic!("{e}"))
}

fn timing(st: &Stats) -> &TimingReport {
    st.timing.as_ref().expect("the cycle model ran")
}

/// A kernel of `wg` threads whose global id is in r23 and byte offset (id*4) in r25.
fn kernel(wg: u32, regs: u32, local: u32, body: &str) -> String {
    format!(
        ".kernel main\n.registers {regs}\n.workgroup_size {wg}, 1, 1\n.local_memory {local}\n    mov r20, sr_thread_id_x\n    mov r21, sr_workgroup_id_x\n    mov r22, sr_workgroup_size_x\n    imad r23, r21, r22, r20\n    mov_imm r24, 2\n    shl r25, r23, r24\n{body}\n    halt\n.end\n"
    )
}

#[test]
fn exact_cycles_of_a_dependent_pair() {
    // t0 mov_imm (ready at 4); t4 iadd waits 3 cycles for r1 (ready at 8); t5 halt.
    let src = ".kernel main\n.registers 4\n    mov_imm r1, 1\n    iadd r2, r1, r1\n    halt\n.end\n";
    let st = run_src(src, &config(one_core(), 4), 1, &mut Memory::new(4));
    let t = timing(&st);
    assert_eq!(t.cycles, 8);
    assert_eq!(t.core_cycles, CoreCycles { issue: 3, memory: 0, dependency: 3, barrier: 0, idle: 2 });
    assert_eq!(t.stalls, Stalls { dependency: 3, ..Stalls::default() });
    assert_eq!(t.per_pc[1].stalls.dependency, 3);
    assert_eq!(t.per_pc.iter().map(|p| p.issued).collect::<Vec<_>>(), vec![1, 1, 1]);
    assert_eq!(st.cycles, 8);
}

#[test]
fn independent_work_hides_latency_and_dependent_work_exposes_it() {
    let indep = ".kernel main\n.registers 24\n".to_string()
        + &(1..21).map(|r| format!("    mov_imm r{r}, 1\n")).collect::<String>()
        + "    halt\n.end\n";
    let dep = ".kernel main\n.registers 4\n    mov_imm r1, 1\n".to_string() + &"    iadd r1, r1, r1\n".repeat(19) + "    halt\n.end\n";
    let c = config(one_core(), 4);
    let si = timing(&run_src(&indep, &c, 1, &mut Memory::new(4))).cycles;
    let sd = timing(&run_src(&dep, &c, 1, &mut Memory::new(4))).cycles;
    assert_eq!(si, 19 + 4); // one per cycle; the last result 4 cycles after it issues (at 19)
    assert_eq!(sd, 20 * 4); // each add waits for the previous one
}

#[test]
fn issue_cost_keeps_the_core_busy() {
    // GCN-like: a 64-lane wave takes 4 cycles per ALU instruction on a 16-lane SIMD.
    let mut m = one_core();
    m.issue.mov = 4;
    let src = ".kernel main\n.registers 24\n".to_string()
        + &(1..11).map(|r| format!("    mov_imm r{r}, 1\n")).collect::<String>()
        + "    halt\n.end\n";
    let t = timing(&run_src(&src, &config(m, 4), 1, &mut Memory::new(4))).clone();
    assert_eq!(t.cycles, 10 * 4 + 1);
    assert_eq!(t.core_cycles.issue, 41);
}

/// A latency-bound kernel: each thread loads, then does a short dependent chain.
fn load_use_kernel() -> String {
    kernel(
        64,
        32,
        0,
        "    iadd r2, r0, r25\n    device_load_u32 r3, r2\n    iadd r3, r3, r24\n    iadd r3, r3, r24\n    device_store_u32 r2, r3",
    )
}

#[test]
fn occupancy_hides_memory_latency() {
    let mut m = test_machine();
    m.compute_units = 1;
    m.memory.dram_bytes_per_cycle = 1024; // plenty: latency, not bandwidth, bounds it
    m.memory.l2_bytes_per_cycle = 1024;
    let src = load_use_kernel();
    let mut last = 0;
    let mut results = Vec::new();
    // Registers per thread the admission counts: 256 -> 1 wave per core, 64 -> 4, 32 -> 8.
    for regs in [256, 128, 64, 32] {
        let mut c = config(m.clone(), 64);
        c.registers_for_occupancy = Some(regs);
        let mut mem = Memory::new(4 * 64 * 64);
        let st = run_src(&src, &c, 64, &mut mem);
        let t = timing(&st).clone();
        assert_eq!(t.waves_per_core, 65536 / (regs * 64 * 4));
        results.push((regs, t.cycles, t.achieved_waves_per_core_milli()));
        if last != 0 {
            assert!(t.cycles * 10 < last * 8, "{results:?}");
        }
        last = t.cycles;
    }
    // With enough waves resident, memory stalls give way to issue.
    let (_, hi, _) = results[3];
    let (_, lo, _) = results[0];
    assert!(lo > 3 * hi, "{results:?}");
}

#[test]
fn bandwidth_bound_kernels_do_not_care_about_occupancy() {
    // Streaming: every load misses, and DRAM moves 4 bytes per cycle.
    let mut m = test_machine();
    m.compute_units = 1;
    m.memory.dram_bytes_per_cycle = 4;
    let src = kernel(64, 32, 0, "    iadd r2, r0, r25\n    device_load_u32 r3, r2\n    iadd r3, r3, r24\n    device_store_u32 r2, r3");
    let groups = 128;
    let mut cycles = Vec::new();
    for regs in [128, 32] {
        let mut c = config(m.clone(), 64);
        c.registers_for_occupancy = Some(regs);
        let st = run_src(&src, &c, groups, &mut Memory::new(4 * 64 * groups as usize));
        let t = timing(&st).clone();
        // Every line is read once and written back once at most.
        assert_eq!(t.memory.dram_read_bytes, 4 * 64 * groups as u64);
        cycles.push(t.cycles);
    }
    // The DRAM floor: bytes read / bandwidth.
    let floor = 4 * 64 * groups as u64 / 4;
    assert!(cycles.iter().all(|&c| c >= floor), "{cycles:?} floor {floor}");
    let mut c = config(m.clone(), 64);
    c.registers_for_occupancy = Some(32);
    let st = run_src(&src, &c, groups, &mut Memory::new(4 * 64 * groups as usize));
    let t = timing(&st);
    // DRAM was busy most of the time, moving what it read and wrote back at 4 bytes a cycle.
    let moved = t.memory.dram_read_bytes + t.memory.dram_write_bytes;
    assert_eq!(t.memory.dram_busy_cycles, moved / 4);
    assert!(t.memory.dram_busy_cycles * 10 > t.cycles * 8, "{} of {}", t.memory.dram_busy_cycles, t.cycles);
    // Four times the occupancy, under 10% faster.
    assert!(cycles[1] * 110 > cycles[0] * 100, "{cycles:?}");
}

#[test]
fn coalescing_counts_transactions() {
    // Consecutive words: a 64-lane u32 access is 256 bytes = 4 segments of 64.
    let c = config(test_machine(), 64);
    let st = run_src(&kernel(64, 32, 0, "    iadd r2, r0, r25\n    device_load_u32 r3, r2"), &c, 1, &mut Memory::new(4096));
    let m = timing(&st).memory;
    assert_eq!((m.device_load_instructions, m.load_transactions, m.ideal_transactions), (1, 4, 4));
    // Stride of 64 bytes: every lane its own segment.
    let body = "    mov_imm r1, 6\n    shl r2, r23, r1\n    device_load_u32 r3, r2";
    let st2 = run_src(&kernel(64, 32, 0, body), &c, 1, &mut Memory::new(4096));
    let m2 = timing(&st2).memory;
    assert_eq!((m2.load_transactions, m2.ideal_transactions), (64, 4));
    assert!(timing(&st2).cycles > timing(&st).cycles);
    // Every lane reading one address: one transaction.
    let st3 = run_src(&kernel(64, 32, 0, "    device_load_u32 r3, r0"), &c, 1, &mut Memory::new(64));
    let m3 = timing(&st3).memory;
    assert_eq!((m3.load_transactions, m3.ideal_transactions), (1, 1));
}

#[test]
fn local_memory_bank_conflicts() {
    let c = config(test_machine(), 32);
    // Word i per lane: 32 lanes over 32 banks, one pass.
    let st = run_src(&kernel(32, 32, 4096, "    local_store_u32 r25, r23"), &c, 1, &mut Memory::new(4));
    let m = timing(&st).memory;
    assert_eq!((m.local_instructions, m.local_passes, m.bank_conflict_passes), (1, 1, 0));
    // Word 32*i: every lane in bank 0, 32 passes.
    let st =
        run_src(&kernel(32, 32, 4096, "    mov_imm r1, 7\n    shl r2, r23, r1\n    local_store_u32 r2, r23"), &c, 1, &mut Memory::new(4));
    let m = timing(&st).memory;
    assert_eq!((m.local_passes, m.bank_conflict_passes), (32, 31));
    // Every lane the same word: a broadcast, one pass; as atomics they serialize.
    let st = run_src(
        &kernel(32, 32, 4096, "    mov_imm r1, 0\n    local_load_u32 r2, r1\n    local_atomic_add r1, r24"),
        &c,
        1,
        &mut Memory::new(4),
    );
    let m = timing(&st).memory;
    assert_eq!((m.local_instructions, m.local_passes), (2, 1 + 32));
}

#[test]
fn the_l2_keeps_what_was_read() {
    // Two passes over 8 KiB: the second hits (the L2 holds 64 KiB).
    let body = "    iadd r2, r0, r25\n    device_load_u32 r3, r2\n    device_load_u32 r4, r2";
    let c = config(test_machine(), 64);
    let st = run_src(&kernel(64, 32, 0, body), &c, 32, &mut Memory::new(8192));
    let m = timing(&st).memory;
    assert_eq!((m.l2_misses, m.l2_hits), (128, 128));
    assert_eq!(m.l2_hit_permille(), Some(500));
}

#[test]
fn admission_follows_the_occupancy_count() {
    // 256-thread groups (4 waves of 64) at 64 registers on 2 CUs of 4 cores:
    // 4 waves per core by registers, one wave per core per group -> 4 groups per CU.
    let mut c = config(test_machine(), 64);
    c.registers_for_occupancy = Some(64);
    let st = run_src(&load_use_kernel().replace(".workgroup_size 64", ".workgroup_size 256"), &c, 32, &mut Memory::new(4 * 256 * 32));
    let t = timing(&st);
    assert_eq!((t.groups_per_cu, t.waves_per_core, t.limiter), (4, 4, "registers"));
    let most = t.occupancy.iter().map(|p| p.waves).max().unwrap();
    assert_eq!(most, 2 * 4 * 4, "both CUs full: 8 groups of 4 waves");
    assert!(t.occupancy.last().unwrap().waves == 0);
    assert!(t.achieved_waves_per_core_milli() <= 4000);
}

#[test]
fn barriers_wait_for_the_whole_group() {
    // Wave 0 does a long dependent chain before the barrier; wave 1 waits there.
    let chain = "    iadd r1, r1, r1\n".repeat(30);
    let body = format!(
        "    mov r1, sr_wave_id\n    mov_imm r2, 0\n    icmp_eq p1, r1, r2\n    if p1\n{chain}    endif\n    barrier\n    iadd r3, r1, r1"
    );
    let mut m = one_core();
    m.cores_per_cu = 2;
    let st = run_src(&kernel(8, 32, 0, &body), &config(m, 4), 1, &mut Memory::new(4));
    let t = timing(&st);
    assert!(t.stalls.barrier >= 30 * 4 - 10, "{:?}", t.stalls);
    assert!(t.core_cycles.barrier > 0, "{:?}", t.core_cycles);
    let barrier_pc = 6 + 4 + 30 + 1; // prologue, test and if, chain, endif
    assert_eq!(t.per_pc[barrier_pc].stalls.barrier, t.stalls.barrier);
}

#[test]
fn timing_changes_no_buffer_and_repeats_exactly() {
    let body = "    iadd r2, r0, r25\n    device_load_u32 r3, r2\n    mov_imm r1, 1024\n    atomic_add r4, r1, r24, .device\n    iadd r3, r3, r4\n    device_store_u32 r2, r3";
    let src = kernel(64, 32, 0, body);
    let mut c = config(test_machine(), 64);
    let mut a = Memory::new(4 * 64 * 16 + 8);
    let sa = run_src(&src, &c, 16, &mut a);
    let mut b = Memory::new(4 * 64 * 16 + 8);
    let sb = run_src(&src, &c, 16, &mut b);
    assert_eq!(sa, sb);
    c.timing = false;
    let mut d = Memory::new(4 * 64 * 16 + 8);
    let sd = run_src(&src, &c, 16, &mut d);
    assert_eq!(a.bytes, d.bytes);
    assert_eq!((sd.cycles, sd.timing.is_none()), (0, true));
    assert_eq!(sd.wave_instructions, sa.wave_instructions);
}

#[test]
fn core_cycles_add_up() {
    let c = config(test_machine(), 64);
    let st = run_src(&load_use_kernel(), &c, 40, &mut Memory::new(4 * 64 * 40));
    let t = timing(&st);
    let cores = (t.compute_units * t.cores_per_cu) as u64;
    assert_eq!(t.core_cycles.total(), t.cycles * cores);
    assert!(t.core_cycles.memory > 0 && t.core_cycles.idle > 0);
    // Every wave's stall before its first memory use shows on the instruction after the load.
    assert!(t.per_pc[8].stalls.memory > 0, "{:?}", t.per_pc[8]);
    assert_eq!(t.per_pc.iter().map(|p| p.issued).sum::<u64>(), st.wave_instructions);
}

#[test]
fn a_group_that_cannot_fit_is_a_fault() {
    let mut c = config(test_machine(), 64);
    c.registers_for_occupancy = Some(256);
    let prog = parse(&kernel(1024, 32, 0, ""), Profile::Spec04).unwrap();
    let l = Launch { grid: [1, 1, 1], workgroup_size: [1, 1, 1], args: vec![] };
    let e = run(&prog.kernels[0], &c, &l, &mut Memory::new(4)).unwrap_err();
    assert!(matches!(e.kind, FaultKind::DoesNotFit(ref m) if m.contains("16 waves")), "{e}");
}

#[test]
fn timeline_covers_compute_unit_zero() {
    let c = config(test_machine(), 64);
    let st = run_src(&load_use_kernel(), &c, 8, &mut Memory::new(4 * 64 * 8));
    let tl = &timing(&st).timeline;
    assert!(!tl.truncated);
    assert!(tl.segments.iter().any(|s| s.state == WaveState::Issue));
    assert!(tl.segments.iter().any(|s| s.state == WaveState::Memory));
    // Groups 0, 2, 4, 6 ran on compute unit 0 (round robin over two units).
    let mut groups: Vec<u64> = tl.segments.iter().map(|s| s.group).collect();
    groups.sort();
    groups.dedup();
    assert_eq!(groups, vec![0, 2, 4, 6]);
    assert!(tl.segments.iter().all(|s| s.start < s.end && s.row < tl.cores * tl.slots_per_core));
    // A row is one wave slot: its segments never overlap.
    for row in 0..tl.cores * tl.slots_per_core {
        let mut segs: Vec<_> = tl.segments.iter().filter(|s| s.row == row).collect();
        segs.sort_by_key(|s| s.start);
        assert!(segs.windows(2).all(|p| p[0].end <= p[1].start), "row {row}: {segs:?}");
    }
}

/// Units of one core run their own events ahead of the others' up to their
/// next device access or wave end (`Engine::run_unit`); units of several cores
/// go a cycle at a time (`Engine::run_cycles`); the heap takes every event in
/// (cycle, core) order. All must give the same report, on kernels with device
/// traffic, atomics, local memory, barriers and divergent waves, wide and
/// narrow groups.
#[test]
fn units_running_ahead_change_nothing() {
    let body = "    iadd r2, r0, r25\n    device_load_u32 r3, r2\n    mov_imm r1, 7\n    and r4, r23, r1\n    mov_imm r5, 0\n    icmp_eq p1, r4, r5\n    if p1\n    iadd r3, r3, r3\n    imul r3, r3, r3\n    iadd r3, r3, r24\n    endif\n    shl r26, r20, r24\n    local_store_u32 r26, r3\n    barrier\n    local_load_u32 r6, r26\n    mov_imm r1, 4096\n    atomic_add r7, r1, r24, .device\n    iadd r3, r3, r6\n    iadd r3, r3, r7\n    device_store_u32 r2, r3";
    for (units, cores, wg, groups, dram) in [(4, 1, 64, 48, 4), (3, 2, 128, 30, 16), (2, 4, 256, 12, 64), (1, 4, 64, 9, 2)] {
        let mut m = test_machine();
        m.compute_units = units;
        m.cores_per_cu = cores;
        m.memory.dram_bytes_per_cycle = dram;
        let src = kernel(wg, 32, 4 * wg, body);
        let c = config(m, 32);
        let bytes = 4 * wg * groups + 4096 + 8;
        let runs: Vec<Stats> = [false, true]
            .into_iter()
            .map(|heap| {
                FORCE_HEAP.with(|f| f.set(heap));
                let st = run_src(&src, &c, groups, &mut Memory::new(bytes as usize));
                FORCE_HEAP.with(|f| f.set(false));
                st
            })
            .collect();
        let (a, b) = (timing(&runs[0]), timing(&runs[1]));
        assert!(a.memory.l2_misses > 0 && a.stalls.barrier > 0 && a.stalls.memory > 0, "{a:?}");
        assert!(
            runs[0] == runs[1],
            "{units} units of {cores} cores: {} against {} cycles, stalls {:?} against {:?}",
            a.cycles,
            b.cycles,
            a.stalls,
            b.stalls
        );
    }
}
