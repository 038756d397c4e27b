#![allow(clippy::manual_is_multiple_of)] // the workspace MSRV (1.80) predates is_multiple_of
use crate::*;

const T: Profile = Profile::Toolchain012;
const S: Profile = Profile::Spec04;

/// Every functional test also runs the cycle model, so it sees every kind of instruction stream.
fn cfg(p: Profile, w: u32) -> SimConfig {
    SimConfig {
        wave_width: w,
        profile: p,
        max_instructions: 200_000,
        local_memory_limit: 65536,
        timing: true,
        machine: crate::machine::test_machine(),
        registers_for_occupancy: None,
        strict: false,
        threads: 1,
        wide_waves: true,
        full_wave_ops: false,
    }
}

fn launch(grid: [u32; 3], args: &[(u32, u32)]) -> Launch {
    Launch { grid, workgroup_size: [1, 1, 1], args: args.to_vec() }
}

/// Parse `src` and run its first kernel.
fn exec(src: &str, c: &SimConfig, l: &Launch, mem: &mut Memory) -> Result<Stats, Fault> {
    let prog = parse(src, c.profile).unwrap_or_else(|e| panic!("parse: {e}\n{src}"));
    run(&prog.kernels[0], c, l, mem)
}

fn words(mem: &Memory, addr: u32, n: usize) -> Vec<u32> {
    mem.read(addr, 4 * n).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn kernel(wg: [u32; 3], body: &str) -> String {
    format!(".kernel main\n.registers 32\n.workgroup_size {}, {}, {}\n.local_memory 1024\n{body}\n    halt\n.end\n", wg[0], wg[1], wg[2])
}

/// One thread: r1=a, r2=b, r3=c, run `op` (result in r4), return r4.
fn eval(p: Profile, op: &str, a: u32, b: u32, c: u32) -> u32 {
    let src = kernel(
        [1, 1, 1],
        &format!("    mov_imm r1, {a:#x}\n    mov_imm r2, {b:#x}\n    mov_imm r3, {c:#x}\n    mov_imm r5, 1\n    mov_imm r6, 0\n    {op}\n    mov_imm r10, 0\n    device_store_u32 r10, r4\n    mov_imm r10, 4\n    device_store_u32 r10, r5"),
    );
    let mut mem = Memory::new(16);
    exec(&src, &cfg(p, 32), &launch([1, 1, 1], &[]), &mut mem).unwrap();
    words(&mem, 0, 1)[0]
}

fn fb(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn integer_ops() {
    for p in [T, S] {
        let e = |op: &str, a: u32, b: u32| eval(p, op, a, b, 0);
        assert_eq!(e("iadd r4, r1, r2", u32::MAX, 2), 1);
        assert_eq!(e("isub r4, r1, r2", 1, 2), u32::MAX);
        assert_eq!(e("imul r4, r1, r2", 0x10000, 0x10001), 0x10000);
        assert_eq!(e("imul_hi r4, r1, r2", 0xffff_ffff, 2), 1);
        assert_eq!(e("idiv r4, r1, r2", (-7i32) as u32, 2), (-3i32) as u32);
        assert_eq!(e("idiv r4, r1, r2", 7, 0), 0);
        assert_eq!(e("idiv r4, r1, r2", 0x8000_0000, u32::MAX), 0x8000_0000);
        assert_eq!(e("imod r4, r1, r2", (-7i32) as u32, 2), (-1i32) as u32);
        assert_eq!(e("imod r4, r1, r2", 7, 0), 0);
        assert_eq!(e("ineg r4, r1", 5, 0), (-5i32) as u32);
        assert_eq!(e("iabs r4, r1", (-5i32) as u32, 0), 5);
        assert_eq!(e("iabs r4, r1", 0x8000_0000, 0), 0x8000_0000);
        assert_eq!(e("imin r4, r1, r2", (-1i32) as u32, 3), u32::MAX);
        assert_eq!(e("imax r4, r1, r2", (-1i32) as u32, 3), 3);
        assert_eq!(eval(p, "iclamp r4, r1, r2, r3", 10, (-2i32) as u32, 5), 5);
        assert_eq!(eval(p, "imad r4, r1, r2, r3", 3, 4, 5), 17);
        assert_eq!(e("and r4, r1, r2", 0b1100, 0b1010), 0b1000);
        assert_eq!(e("or r4, r1, r2", 0b1100, 0b1010), 0b1110);
        assert_eq!(e("xor r4, r1, r2", 0b1100, 0b1010), 0b0110);
        assert_eq!(e("not r4, r1", 0, 0), u32::MAX);
        assert_eq!(e("shl r4, r1, r2", 1, 33), 2);
        assert_eq!(e("shr r4, r1, r2", 0x8000_0000, 31), 1);
        assert_eq!(e("sar r4, r1, r2", 0x8000_0000, 31), u32::MAX);
        assert_eq!(e("bitcount r4, r1", 0xf0f0, 0), 8);
        assert_eq!(e("bitfind r4, r1", 1, 0), 31);
        assert_eq!(e("bitfind r4, r1", 0, 0), u32::MAX);
        assert_eq!(e("bitrev r4, r1", 1, 0), 0x8000_0000);
        assert_eq!(eval(p, "bfe r4, r1, r2, r3", 0xabcd, 4, 8), 0xbc);
        assert_eq!(eval(p, "bfe r4, r1, r2, r3", 0xabcd, 4, 32), 0);
        let src = "mov_imm r7, 8\n    bfi r4, r1, r2, r3, r7";
        assert_eq!(eval(p, src, 0xffff_ffff, 0x12, 4), 0xffff_f12f);
    }
    assert_eq!(eval(S, "umin r4, r1, r2", u32::MAX, 3, 0), 3);
    assert_eq!(eval(S, "umax r4, r1, r2", u32::MAX, 3, 0), u32::MAX);
}

#[test]
fn compares_and_select() {
    for p in [T, S] {
        let c = |cmp: &str, a: u32, b: u32| eval(p, &format!("{cmp} p1, r1, r2\n    select r4, p1, r5, r6"), a, b, 0);
        assert_eq!(c("icmp_lt", u32::MAX, 0), 1);
        assert_eq!(c("ucmp_lt", u32::MAX, 0), 0);
        assert_eq!(c("ucmp_le", 3, 3), 1);
        assert_eq!(c("icmp_eq", 3, 3), 1);
        assert_eq!(c("icmp_ne", 3, 3), 0);
        assert_eq!(c("icmp_ge", 3, 4), 0);
        assert_eq!(c("icmp_gt", 5, 4), 1);
        assert_eq!(c("icmp_le", 5, 4), 0);
        let nan = 0x7fc0_0000;
        assert_eq!(c("fcmp_ne", nan, nan), 1);
        assert_eq!(c("fcmp_eq", fb(1.0), fb(1.0)), 1);
        assert_eq!(c("fcmp_lt", fb(-1.0), fb(1.0)), 1);
        assert_eq!(c("fcmp_le", fb(1.0), fb(1.0)), 1);
        assert_eq!(c("fcmp_gt", fb(1.0), nan), 0);
        assert_eq!(c("fcmp_ord", fb(1.0), nan), 0);
        assert_eq!(c("fcmp_unord", fb(1.0), nan), 1);
    }
}

#[test]
fn float_ops() {
    for p in [T, S] {
        let e = |op: &str, a: f32, b: f32| f32::from_bits(eval(p, op, fb(a), fb(b), fb(0.5)));
        assert_eq!(e("fadd r4, r1, r2", 1.5, 2.0), 3.5);
        assert_eq!(e("fsub r4, r1, r2", 1.5, 2.0), -0.5);
        assert_eq!(e("fmul r4, r1, r2", 1.5, 2.0), 3.0);
        assert_eq!(e("fdiv r4, r1, r2", 3.0, 2.0), 1.5);
        assert_eq!(e("fma r4, r1, r2, r3", 3.0, 2.0), 6.5);
        assert_eq!(e("fmin r4, r1, r2", f32::NAN, 2.0), 2.0);
        assert_eq!(e("fmax r4, r1, r2", 1.0, f32::NAN), 1.0);
        assert_eq!(e("fclamp r4, r1, r2, r3", 7.0, -1.0), 0.5);
        assert_eq!(e("fneg r4, r1", 2.0, 0.0), -2.0);
        assert_eq!(e("fabs r4, r1", -2.0, 0.0), 2.0);
        assert_eq!(e("fsqrt r4, r1", 9.0, 0.0), 3.0);
        assert_eq!(e("frsqrt r4, r1", 4.0, 0.0), 0.5);
        assert_eq!(e("frcp r4, r1", 4.0, 0.0), 0.25);
        assert_eq!(e("ffloor r4, r1", -1.5, 0.0), -2.0);
        assert_eq!(e("fceil r4, r1", -1.5, 0.0), -1.0);
        assert_eq!(e("fround r4, r1", 2.5, 0.0), 3.0);
        assert_eq!(e("fround r4, r1", -2.5, 0.0), -3.0);
        assert_eq!(e("ftrunc r4, r1", -1.7, 0.0), -1.0);
        assert_eq!(e("fsat r4, r1", 1.7, 0.0), 1.0);
        assert_eq!(e("fsat r4, r1", -1.7, 0.0), 0.0);
        assert_eq!(e("fsin r4, r1", 0.0, 0.0), 0.0);
        assert_eq!(e("fcos r4, r1", 0.0, 0.0), 1.0);
        assert_eq!(e("fexp2 r4, r1", 3.0, 0.0), 8.0);
        assert_eq!(e("flog2 r4, r1", 8.0, 0.0), 3.0);
        // Denormals are kept.
        let tiny = f32::from_bits(1);
        assert_eq!(e("fmul r4, r1, r2", tiny, 1.0), tiny);
    }
    // Profile differences.
    let fd = |p| f32::from_bits(eval(p, "fdiv r4, r1, r2", fb(-1.0), fb(-0.0), 0));
    assert_eq!(fd(T), f32::INFINITY);
    assert_eq!(fd(S), f32::INFINITY); // -1 / -0 = +inf in IEEE too
    let fd0 = |p| f32::from_bits(eval(p, "fdiv r4, r1, r2", fb(1.0), fb(-0.0), 0));
    assert_eq!(fd0(T), f32::INFINITY);
    assert_eq!(fd0(S), f32::NEG_INFINITY);
    let fr = |p| f32::from_bits(eval(p, "ffract r4, r1", fb(-1.25), 0, 0));
    assert_eq!(fr(T), -0.25);
    assert_eq!(fr(S), 0.75);
}

#[test]
fn half_and_double_ops() {
    for p in [T, S] {
        let h = |x: f32| f32_to_f16(x) as u32;
        assert_eq!(eval(p, "hadd r4, r1, r2", 0xffff_0000 | h(1.5), h(2.25), 0), h(3.75));
        assert_eq!(eval(p, "hsub r4, r1, r2", h(1.5), h(2.25), 0), h(-0.75));
        assert_eq!(eval(p, "hmul r4, r1, r2", h(1.5), h(2.0), 0), h(3.0));
        assert_eq!(eval(p, "hma r4, r1, r2, r3", h(1.5), h(2.0), h(1.0)), h(4.0));
        let pk = |lo: f32, hi: f32| h(lo) | (h(hi) << 16);
        assert_eq!(eval(p, "hadd2 r4, r1, r2", pk(1.0, 2.0), pk(0.5, 0.25), 0), pk(1.5, 2.25));
        assert_eq!(eval(p, "hmul2 r4, r1, r2", pk(1.0, 2.0), pk(0.5, 0.25), 0), pk(0.5, 0.5));
        assert_eq!(eval(p, "hma2 r4, r1, r2, r3", pk(1.0, 2.0), pk(0.5, 0.25), pk(1.0, 1.0)), pk(1.5, 1.5));
        assert_eq!(eval(p, "cvt_f32_f16 r4, r1", h(-2.5), 0, 0), fb(-2.5));
        assert_eq!(eval(p, "cvt_f16_f32 r4, r1", fb(65504.0), 0, 0), 0x7bff);
        assert_eq!(eval(p, "cvt_f16_f32 r4, r1", fb(1e6), 0, 0), 0x7c00);
        assert_eq!(eval(p, "cvt_f16_f32 r4, r1", fb(5.960_464_5e-8), 0, 0), 1);
        // f64 in pairs: r12:r13 = 1.5, r14:r15 = 2.0
        let d = |x: f64| x.to_bits();
        let setup = format!(
            "mov_imm r12, {:#x}\n    mov_imm r13, {:#x}\n    mov_imm r14, {:#x}\n    mov_imm r15, {:#x}\n",
            d(1.5) as u32,
            d(1.5) >> 32,
            d(2.0) as u32,
            d(2.0) >> 32
        );
        for (op, want) in [
            ("dadd r16, r12, r14", 3.5),
            ("dsub r16, r12, r14", -0.5),
            ("dmul r16, r12, r14", 3.0),
            ("ddiv r16, r12, r14", 0.75),
            ("dma r16, r12, r14, r12", 4.5),
            ("dsqrt r16, r14", 2f64.sqrt()),
        ] {
            let got = eval(p, &format!("{setup}    {op}\n    cvt_f32_f64 r4, r16"), 0, 0, 0);
            assert_eq!(f32::from_bits(got), want as f32, "{op}");
        }
        let got = eval(p, "cvt_f64_f32 r12, r1\n    dadd r12, r12, r12\n    cvt_f32_f64 r4, r12", fb(1.25), 0, 0);
        assert_eq!(f32::from_bits(got), 2.5);
    }
}

#[test]
fn cvt_directions_per_profile() {
    // 0.1.2: cvt_f32_i32 is f32 -> i32 (source first).
    assert_eq!(eval(T, "cvt_f32_i32 r4, r1", fb(-3.7), 0, 0), (-3i32) as u32);
    assert_eq!(eval(T, "cvt_f32_u32 r4, r1", fb(-3.7), 0, 0), 0);
    assert_eq!(eval(T, "cvt_f32_u32 r4, r1", fb(1e20), 0, 0), u32::MAX);
    assert_eq!(eval(T, "cvt_f32_i32 r4, r1", fb(f32::NAN), 0, 0), 0);
    assert_eq!(eval(T, "cvt_i32_f32 r4, r1", (-3i32) as u32, 0, 0), fb(-3.0));
    assert_eq!(eval(T, "cvt_u32_f32 r4, r1", u32::MAX, 0, 0), fb(4294967296.0));
    // spec: cvt_A_B converts B to A.
    assert_eq!(eval(S, "cvt_f32_i32 r4, r1", (-3i32) as u32, 0, 0), fb(-3.0));
    assert_eq!(eval(S, "cvt_f32_u32 r4, r1", 7, 0, 0), fb(7.0));
    assert_eq!(eval(S, "cvt_i32_f32 r4, r1", fb(-3.7), 0, 0), (-3i32) as u32);
    assert_eq!(eval(S, "cvt_u32_f32 r4, r1", fb(3.7), 0, 0), 3);
}

#[test]
fn spec_halves_and_float_immediates() {
    assert_eq!(eval(S, "mov_imm r4, 1.5", 0, 0, 0), fb(1.5));
    assert_eq!(eval(S, "mov_imm r4, -2", 0, 0, 0), (-2i32) as u32);
    assert_eq!(eval(S, "mov_imm r4, 0xdead_beef", 0, 0, 0), 0xdead_beef);
    // Writing a half preserves the other; reading a half zero-extends it.
    assert_eq!(eval(S, "mov_imm r4, 0x11112222\n    mov r4.hi, r1", 0xaaaa_bbbb, 0, 0), 0xbbbb_2222);
    assert_eq!(eval(S, "mov r4, r1.hi", 0xaaaa_bbbb, 0, 0), 0xaaaa);
    let h = |x: f32| f32_to_f16(x) as u32;
    assert_eq!(eval(S, "mov_imm r4, 0\n    hadd r4.hi, r1.hi, r2.lo", h(1.0) << 16, h(2.0), 0), h(3.0) << 16);
}

/// Run a kernel over `n` threads in groups of `wg`, out buffer at 0 (one u32 per thread).
fn run_threads(p: Profile, w: u32, wg: u32, groups: u32, body: &str) -> Result<(Vec<u32>, Stats), Fault> {
    let src = kernel([wg, 1, 1], &format!("    mov r20, sr_thread_id_x\n    mov r21, sr_workgroup_id_x\n    mov r22, sr_workgroup_size_x\n    imad r23, r21, r22, r20\n    mov_imm r24, 2\n    shl r25, r23, r24\n{body}"));
    let n = (wg * groups) as usize;
    let mut mem = Memory::new(4 * n + 64);
    let st = exec(&src, &cfg(p, w), &launch([groups, 1, 1], &[]), &mut mem)?;
    Ok((words(&mem, 0, n), st))
}

#[test]
fn if_else_divergence_and_nesting() {
    let body = "    mov_imm r1, 3\n    mov_imm r2, 6\n    icmp_lt p1, r23, r1\n    if p1\n    mov_imm r3, 10\n    else\n    icmp_lt p2, r23, r2\n    if p2\n    mov_imm r3, 20\n    else\n    mov_imm r3, 30\n    endif\n    endif\n    device_store_u32 r25, r3";
    for p in [T, S] {
        for w in [4, 32] {
            let (out, st) = run_threads(p, w, 8, 1, body).unwrap();
            assert_eq!(out, vec![10, 10, 10, 20, 20, 20, 30, 30], "{p:?} w={w}");
            assert!(st.wave_instructions > 0);
        }
    }
}

#[test]
fn spec_skips_empty_arm_but_012_does_not() {
    let body =
        "    mov_imm r1, 100\n    icmp_lt p1, r1, r23\n    if p1\n    nop\n    nop\n    nop\n    endif\n    device_store_u32 r25, r1";
    let (_, t) = run_threads(T, 32, 8, 1, body).unwrap();
    let (_, s) = run_threads(S, 32, 8, 1, body).unwrap();
    assert_eq!(t.wave_instructions, s.wave_instructions + 3);
}

#[test]
fn loop_with_top_level_break() {
    // out[i] = sum of 0..i
    let body = "    mov_imm r1, 0\n    mov_imm r2, 0\n    mov_imm r3, 1\n    loop\n    icmp_ge p1, r2, r23\n    break p1\n    iadd r1, r1, r2\n    iadd r2, r2, r3\n    endloop\n    device_store_u32 r25, r1";
    for p in [T, S] {
        let (out, _) = run_threads(p, 4, 16, 2, body).unwrap();
        let want: Vec<u32> = (0..32u32).map(|i| (0..i).sum()).collect();
        assert_eq!(out, want);
    }
}

#[test]
fn nested_break_and_continue() {
    // for j in 0..: if j == i { break }  ; count++   (count ends at i)
    let body = "    mov_imm r1, 0\n    mov_imm r2, 0\n    mov_imm r3, 1\n    loop\n    icmp_eq p1, r2, r23\n    if p1\n    break p1\n    endif\n    iadd r1, r1, r3\n    iadd r2, r2, r3\n    endloop\n    device_store_u32 r25, r1";
    let src = kernel([8, 1, 1], &format!("    mov r23, sr_thread_id_x\n    mov_imm r24, 2\n    shl r25, r23, r24\n{body}"));
    let (out, _) = run_threads(S, 4, 8, 1, body).unwrap();
    assert_eq!(out, (0..8).collect::<Vec<u32>>());
    let prog = parse(&src, T).unwrap();
    let e = run(&prog.kernels[0], &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(64)).unwrap_err();
    assert!(matches!(e.kind, FaultKind::ControlFlow(ref m) if m.contains("break inside if")), "{e}");
    assert_eq!(e.origin.unwrap().text, "break p1");
    // continue: sum of odd j below 10, skipping even ones; lanes with i odd also continue-at-top.
    let body = "    mov_imm r1, 0\n    mov_imm r2, 0\n    mov_imm r3, 1\n    mov_imm r4, 10\n    loop\n    icmp_ge p1, r2, r4\n    break p1\n    and r5, r2, r3\n    iadd r2, r2, r3\n    icmp_eq p2, r5, r6\n    mov_imm r6, 0\n    icmp_eq p2, r5, r6\n    if p2\n    continue p2\n    endif\n    iadd r1, r1, r2\n    endloop\n    iadd r1, r1, r23\n    device_store_u32 r25, r1";
    let (out, _) = run_threads(S, 4, 8, 1, body).unwrap();
    // j after increment takes 1..=10; added when the old j was odd: 2+4+6+8+10 = 30.
    assert_eq!(out, (0..8).map(|i| 30 + i).collect::<Vec<u32>>());
    // Predicated break in spec.
    let body = "    mov_imm r1, 0\n    mov_imm r3, 1\n    loop\n    icmp_ge p1, r1, r23\n    @p1 break p1\n    iadd r1, r1, r3\n    endloop\n    device_store_u32 r25, r1";
    let (out, _) = run_threads(S, 4, 8, 1, body).unwrap();
    assert_eq!(out, (0..8).collect::<Vec<u32>>());
}

#[test]
fn predication() {
    let body = "    mov_imm r1, 4\n    mov_imm r2, 7\n    mov_imm r3, 9\n    icmp_lt p2, r23, r1\n    @p2 mov r4, r2\n    @!p2 mov r4, r3\n    device_store_u32 r25, r4";
    for p in [T, S] {
        let (out, st) = run_threads(p, 8, 8, 1, body).unwrap();
        assert_eq!(out, vec![7, 7, 7, 7, 9, 9, 9, 9]);
        assert!(st.thread_instructions < st.wave_instructions * 8);
    }
}

#[test]
fn barrier_and_local_memory_multi_wave() {
    // local[i] = i*3 ; barrier ; out[i] = local[63 - i]
    let body = "    mov_imm r1, 3\n    imul r2, r20, r1\n    mov_imm r24, 2\n    shl r3, r20, r24\n    local_store_u32 r3, r2\n    barrier\n    mov_imm r4, 63\n    isub r5, r4, r20\n    shl r5, r5, r24\n    local_load_u32 r6, r5\n    device_store_u32 r25, r6";
    for p in [T, S] {
        let (out, st) = run_threads(p, 16, 64, 2, body).unwrap();
        let want: Vec<u32> = (0..128u32).map(|i| (63 - i % 64) * 3).collect();
        assert_eq!(out, want);
        assert_eq!(st.barriers, 8);
        assert_eq!(st.waves, 8);
        assert_eq!(st.workgroups, 2);
        assert_eq!(st.local_loads, 128);
        assert_eq!(st.local_stores, 128);
        assert_eq!(st.device_stores, 128);
    }
}

#[test]
fn local_memory_is_per_group_and_zeroed() {
    // Each group adds 1 to local[0] once per thread and stores the total.
    let body = "    mov_imm r1, 0\n    mov_imm r2, 1\n    local_atomic_add r1, r2\n    barrier\n    local_load_u32 r3, r1\n    device_store_u32 r25, r3";
    let (out, _) = run_threads(T, 8, 16, 3, body).unwrap();
    assert!(out.iter().all(|&v| v == 16), "{out:?}");
}

#[test]
fn atomics() {
    let src = kernel(
        [64, 1, 1],
        "    mov r20, sr_thread_id_x\n    mov_imm r1, 256\n    mov_imm r2, 1\n    atomic_add r3, r1, r2, .device\n    mov_imm r24, 2\n    shl r25, r20, r24\n    device_store_u32 r25, r3\n    mov_imm r4, 260\n    atomic_max r0, r4, r20, .device\n    mov_imm r5, 264\n    atomic_min r4, r5, r20, .device\n    mov_imm r6, 268\n    atomic_exchange r0, r6, r20, .device\n    mov_imm r7, 272\n    atomic_or r7, r2, .device\n    mov_imm r8, 276\n    atomic_sub r8, r2, .device",
    );
    for p in [T, S] {
        let mut mem = Memory::new(512);
        mem.write(264, &u32::MAX.to_le_bytes()).unwrap();
        exec(&src, &cfg(p, 16), &launch([2, 1, 1], &[]), &mut mem).unwrap();
        let out = words(&mem, 0, 64);
        // Lane order within a wave, waves round-robin: the old values are a permutation of 0..64 per group.
        let mut sorted = out.clone();
        sorted.sort();
        assert_eq!(sorted, (64..128).collect::<Vec<u32>>(), "second group sees the first group's adds");
        assert_eq!(&out[..4], &[64, 65, 66, 67]);
        let w = words(&mem, 256, 6);
        assert_eq!(w[0], 128);
        assert_eq!(w[1], 63);
        assert_eq!(w[2], 0);
        assert_eq!(w[3], 63);
        assert_eq!(w[4], 1);
        assert_eq!(w[5], (-128i32) as u32);
    }
    // atomic min/max are unsigned
    let got = eval(T, "mov_imm r7, 0\n    atomic_max r0, r7, r1, .device\n    device_load_u32 r4, r7", (-1i32) as u32, 0, 0);
    assert_eq!(got, u32::MAX);
    // CAS in spec: d, addr, v, cmp
    let got = eval(
        S,
        "mov_imm r7, 8\n    atomic_cas r8, r7, r1, r6, .device\n    atomic_cas r8, r7, r2, r6, .device\n    device_load_u32 r4, r7",
        5,
        9,
        0,
    );
    assert_eq!(got, 5);
}

#[test]
fn details_where_the_profiles_follow_wave_emu() {
    // frcp is 1/x in both (wave-emu 0.1.2 computes 1.0 / x): the sign of zero survives.
    for p in [T, S] {
        assert_eq!(f32::from_bits(eval(p, "frcp r4, r1", fb(-0.0), 0, 0)), f32::NEG_INFINITY, "{p:?}");
        assert_eq!(f32::from_bits(eval(p, "frcp r4, r1", fb(0.0), 0, 0)), f32::INFINITY, "{p:?}");
    }
    // fsat of NaN: the spec profile gives 0, wave-emu's clamp keeps NaN.
    assert_eq!(eval(S, "fsat r4, r1", f32::NAN.to_bits(), 0, 0), 0);
    assert!(f32::from_bits(eval(T, "fsat r4, r1", f32::NAN.to_bits(), 0, 0)).is_nan());
    // Fences take a scope operand (required by wave-asm 0.1.2).
    for p in [T, S] {
        assert_eq!(eval(p, "fence_acq_rel .workgroup\n    fence_acq_rel .device\n    mov r4, r1", 7, 0, 0), 7);
    }
}

#[test]
fn shuffle_from_an_inactive_lane() {
    // Lane 0 and 1 inactive inside `if lane >= 2`; lane 2 reads lane 0 (xor 2), lane 3 reads lane 1.
    // Before the if every lane has r8 = 100 + lane.
    let body = "    mov r20, sr_lane_id\n    mov_imm r24, 2\n    shl r25, r20, r24\n    mov_imm r9, 100\n    iadd r8, r20, r9\n    mov_imm r7, 0\n    icmp_ge p1, r20, r24\n    if p1\n    wave_shuffle_xor r7, r8, r24\n    endif\n    device_store_u32 r25, r7";
    let src = kernel([4, 1, 1], body);
    let run_with = |p| {
        let mut mem = Memory::new(16);
        exec(&src, &cfg(p, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
        words(&mem, 0, 4)
    };
    assert_eq!(run_with(T), vec![0, 0, 100, 101], "wave-emu 0.1.2 reads the inactive lane's register");
    assert_eq!(run_with(S), vec![0, 0, 0, 0], "implementation-defined in the spec: 0");
}

#[test]
fn local_atomics_and_non_returning_forms() {
    // Every lane of a 16-lane group does each local atomic on its own word; results go to device memory.
    let body = "    mov r20, sr_lane_id\n    mov_imm r24, 2\n    shl r25, r20, r24\n    mov_imm r1, 0\n    mov_imm r2, 1\n    local_atomic_add r3, r1, r2\n    mov_imm r4, 4\n    local_atomic_max r4, r20\n    mov_imm r5, 8\n    mov_imm r6, 0xffffffff\n    local_atomic_exchange r5, r6\n    local_atomic_min r7, r5, r20\n    barrier\n    device_store_u32 r25, r3\n    mov_imm r9, 64\n    iadd r9, r9, r25\n    device_store_u32 r9, r7\n    mov_imm r10, 128\n    local_load_u32 r11, r1\n    device_store_u32 r10, r11\n    mov_imm r10, 132\n    local_load_u32 r11, r4\n    device_store_u32 r10, r11\n    mov_imm r10, 136\n    mov_imm r12, 8\n    local_load_u32 r11, r12\n    device_store_u32 r10, r11";
    let src = kernel([16, 1, 1], body);
    for p in [T, S] {
        let mut mem = Memory::new(256);
        exec(&src, &cfg(p, 16), &launch([1, 1, 1], &[]), &mut mem).unwrap();
        assert_eq!(words(&mem, 0, 16), (0..16).collect::<Vec<u32>>(), "{p:?}: returning add, lane order");
        // min is unsigned: the first lane sees 0xffffffff (left by the exchanges), later ones the running min 0.
        let mins = words(&mem, 64, 16);
        assert_eq!(mins[0], u32::MAX, "{p:?}");
        assert!(mins[1..].iter().all(|&m| m == 0), "{p:?}: {mins:?}");
        assert_eq!(words(&mem, 128, 3), vec![16, 15, 0], "{p:?}: non-returning forms update memory");
    }
}

#[test]
fn wave_ops_under_divergence() {
    // Threads 0..8 in one wave of 8; inside `if i odd`.
    let src = kernel(
        [8, 1, 1],
        "    mov r20, sr_lane_id\n    mov_imm r24, 2\n    shl r25, r20, r24\n    mov_imm r1, 1\n    and r2, r20, r1\n    icmp_eq p1, r2, r1\n    mov_imm r10, 0\n    if p1\n    mov_imm r11, 5\n    icmp_lt p2, r20, r11\n    wave_ballot r3, p2\n    wave_prefix_sum r4, r20\n    wave_reduce_add r5, r20\n    wave_reduce_min r6, r20\n    wave_reduce_max r7, r20\n    mov_imm r12, 2\n    wave_shuffle_xor r8, r20, r12\n    wave_shuffle_down r9, r20, r12\n    mov_imm r13, 5\n    wave_broadcast r10, r20, r13\n    wave_any p3, p2\n    select r14, p3, r1, r10\n    wave_all p3, p2\n    select r15, p3, r1, r10\n    endif\n    mov_imm r16, 60\n    imad r17, r16, r20, r25\n    device_store_u32 r17, r3\n    iadd r17, r17, r24\n    iadd r17, r17, r24\n    ",
    );
    let src = src.replace("    \n    halt", "    halt");
    for p in [T, S] {
        let mut mem = Memory::new(4096);
        let body = src.replace(
            "device_store_u32 r17, r3\n",
            "device_store_u32 r17, r3\n    mov_imm r18, 4\n    iadd r19, r17, r18\n    device_store_u32 r19, r4\n    iadd r19, r19, r18\n    device_store_u32 r19, r5\n    iadd r19, r19, r18\n    device_store_u32 r19, r6\n    iadd r19, r19, r18\n    device_store_u32 r19, r7\n    iadd r19, r19, r18\n    device_store_u32 r19, r8\n    iadd r19, r19, r18\n    device_store_u32 r19, r9\n    iadd r19, r19, r18\n    device_store_u32 r19, r10\n    iadd r19, r19, r18\n    device_store_u32 r19, r14\n    iadd r19, r19, r18\n    device_store_u32 r19, r15\n",
        );
        exec(&body, &cfg(p, 8), &launch([1, 1, 1], &[]), &mut mem).unwrap();
        let get = |lane: u32| words(&mem, 64 * lane, 10);
        // lanes 1,3,5,7 active
        assert_eq!(get(1)[0], 0b1010); // ballot of lanes 1,3 (< 5)
        assert_eq!([get(1)[1], get(3)[1], get(5)[1], get(7)[1]], [0, 1, 4, 9]); // exclusive prefix sum
        assert_eq!(get(5)[2], 16);
        assert_eq!(get(5)[3], 1);
        assert_eq!(get(5)[4], 7);
        assert_eq!([get(1)[5], get(3)[5]], [3, 1]); // xor 2 among odd lanes
        assert_eq!([get(1)[6], get(5)[6], get(7)[6]], [3, 7, 0]); // down by 2; lane 9 out of range
        assert_eq!(get(3)[7], 5); // broadcast of lane 5
        assert_eq!(get(3)[8], 1); // any
        assert_eq!(get(3)[9], 5); // all is false: r10 (=5)
        assert_eq!(get(2)[0], 0); // inactive lane untouched
    }
}

#[test]
fn faults_carry_origin() {
    let src = ".kernel main\n.registers 8\n.workgroup_size 4, 1, 1\n    mov r1, sr_thread_id_x\n    mov_imm r2, 14\n    iadd r3, r1, r2\n    device_store_u8 r3, r1          ; L42 out[i] = x\n    halt\n.end\n";
    let prog = parse(src, T).unwrap();
    let mut mem = Memory::new(16);
    let e = run(&prog.kernels[0], &cfg(T, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap_err();
    assert_eq!(e.kind, FaultKind::DeviceOutOfBounds { addr: 16, size: 1 });
    let o = e.origin.clone().unwrap();
    assert_eq!((o.asm_line, o.text.as_str(), o.src_line), (7, "device_store_u8 r3, r1", Some(42)));
    assert_eq!(e.lane, Some(2));
    let msg = e.to_string();
    assert!(msg.contains("line 7") && msg.contains("source line 42") && msg.contains("lane 2"), "{msg}");
    // Local OOB.
    let src = ".kernel main\n.registers 8\n.local_memory 16\n    mov_imm r2, 16\n    local_load_u32 r3, r2 ; L5\n    halt\n.end\n";
    let e = exec(src, &cfg(S, 4), &launch([2, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert_eq!(e.kind, FaultKind::LocalOutOfBounds { addr: 16, size: 4 });
    assert_eq!(e.origin.unwrap().src_line, Some(5));
    // Instruction limit on an endless loop.
    let src = ".kernel main\n    loop\n    nop\n    endloop\n    halt\n.end\n";
    let mut c = cfg(T, 4);
    c.max_instructions = 1000;
    let e = exec(src, &c, &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert_eq!(e.kind, FaultKind::InstructionLimit { limit: 1000 });
    assert!(e.origin.is_some());
    // Register above .registers.
    let src = ".kernel main\n.registers 4\n    mov_imm r4, 1\n    halt\n.end\n";
    let e = exec(src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert_eq!(e.kind, FaultKind::BadRegister { reg: 4 });
    assert_eq!(e.origin.unwrap().asm_line, 3);
    // A u64 load touching the register after the last one.
    let src = ".kernel main\n.registers 4\n    mov_imm r0, 0\n    device_load_u64 r3, r0\n    halt\n.end\n";
    let e = exec(src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(8)).unwrap_err();
    assert_eq!(e.kind, FaultKind::BadRegister { reg: 4 });
    // Arg register out of range, local memory over the limit.
    let src = ".kernel main\n.registers 4\n    halt\n.end\n";
    let e = exec(src, &cfg(T, 4), &launch([1, 1, 1], &[(9, 1)]), &mut Memory::new(8)).unwrap_err();
    assert_eq!(e.kind, FaultKind::BadRegister { reg: 9 });
    let src = ".kernel main\n.local_memory 70000\n    halt\n.end\n";
    assert!(matches!(exec(src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(8)).unwrap_err().kind, FaultKind::Other(_)));
}

#[test]
fn profile_runtime_differences() {
    // Running off the end: fine in spec, a fault on 0.1.2.
    let src = ".kernel main\n    nop\n.end\n";
    assert!(exec(src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).is_ok());
    let e = exec(src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert!(matches!(e.kind, FaultKind::ControlFlow(_)));
    // Halt inside an if: spec terminates those lanes; wave 1 then waits at a barrier
    // wave 0 never reaches: part of the group misses it.
    let src = ".kernel main\n.workgroup_size 8, 1, 1\n    mov r1, sr_wave_id\n    mov_imm r2, 0\n    icmp_eq p1, r1, r2\n    if p1\n    halt\n    endif\n    barrier\n    halt\n.end\n";
    let e = exec(src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert_eq!((e.kind, e.wave), (FaultKind::Deadlock, 1));
    // 0.1.2 rejects the nested halt at parse time.
    assert!(parse(src, T).is_err());
    // Wave 0 leaves the loop one iteration earlier than wave 1; wave 1 then
    let src = ".kernel main\n.workgroup_size 8, 1, 1\n    mov r1, sr_wave_id\n    mov_imm r2, 0\n    mov_imm r3, 1\n    loop\n    icmp_ge p1, r2, r1\n    break p1\n    iadd r2, r2, r3\n    barrier\n    endloop\n    halt\n.end\n";
    // reaches the barrier with its lanes while wave 0's lanes have all left the loop:
    // the waves disagree about the barrier (in both profiles wave 0 runs it masked off).
    for p in [S, T] {
        let e = exec(src, &cfg(p, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
        assert!(matches!(e.kind, FaultKind::BarrierMismatch(ref m) if m.contains("divergent")), "{e}");
        assert_eq!(e.wave, 0);
        assert_eq!(e.origin.unwrap().text, "barrier");
    }
}

#[test]
fn call_and_return() {
    let body = "    call L_double\n    device_store_u32 r25, r23\n    halt\nL_double:\n    iadd r23, r23, r23\n    return";
    let src = kernel([8, 1, 1], &format!("    mov r23, sr_thread_id_x\n    mov_imm r24, 2\n    shl r25, r23, r24\n{body}"))
        .replace("    return\n    halt\n", "    return\n");
    for p in [T, S] {
        let mut mem = Memory::new(64);
        exec(&src, &cfg(p, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
        assert_eq!(words(&mem, 0, 8), (0..8).map(|i| 2 * i).collect::<Vec<u32>>());
    }
}

#[test]
fn spec_halt_in_if_terminates_lanes() {
    let body = "    mov_imm r1, 3\n    mov_imm r2, 7\n    device_store_u32 r25, r2\n    icmp_lt p1, r23, r1\n    if p1\n    halt\n    endif\n    mov_imm r2, 9\n    device_store_u32 r25, r2";
    let (out, _) = run_threads(S, 4, 8, 1, body).unwrap();
    assert_eq!(out, vec![7, 7, 7, 9, 9, 9, 9, 9]);
}

#[test]
fn parse_errors_have_line_numbers() {
    let cases: &[(&str, u32, &str)] = &[
        (".kernel k\n    nop\n    frobnicate r1\n.end\n", 3, "unknown mnemonic"),
        (".kernel k\n    if p1\n    nop\n.end\n", 2, "never closed"),
        (".kernel k\n    nop\n", 2, "no `.end`"),
        (".kernel k\n    endif\n.end\n", 2, "without"),
        (".kernel k\n    iadd r1, r2\n.end\n", 2, "operand"),
        (".kernel k\n    mov_imm r1, 0x1_0000_0000\n.end\n", 2, "immediate"),
        ("    nop\n", 1, "outside"),
        (".kernel k\n    call L_nowhere\n.end\n", 2, "unknown label"),
        (".kernel k\n.bogus 3\n.end\n", 2, "unknown directive"),
        (".kernel k\n    break p1\n.end\n", 2, "outside a loop"),
        (".kernel k\n    iadd r1, r2, 5\n.end\n", 2, "register"),
    ];
    for p in [T, S] {
        for (src, line, frag) in cases {
            let e = parse(src, p).unwrap_err();
            assert_eq!(e.line, *line, "{src}: {e}");
            assert!(e.message.contains(frag), "{src}: {e}");
            assert!(e.to_string().starts_with(&format!("line {line}:")));
        }
    }
    // Comments, blank lines, directives before .kernel, labels.
    let ok = "# header\n.version 1\n\n.kernel k ; the kernel\n.registers 4\nL_a: nop ; L3 x\n    nop # trailing\n.end\n";
    let prog = parse(ok, T).unwrap();
    let k = prog.kernel("k").unwrap();
    assert_eq!(k.registers, 4);
    assert_eq!(k.instrs.len(), 2);
    assert_eq!(k.instrs[0].origin.src_line, Some(3));
    assert_eq!(k.instrs[1].origin.src_line, None);
}

#[test]
fn toolchain012_rejections() {
    let wrap = |body: &str| format!(".kernel k\n.registers 32\n{body}\n    halt\n.end\n");
    let bad = [
        "    mov r32, r1",
        "    mov r1.lo, r2",
        "    @p0 mov r1, r2",
        "    @!p0 mov r1, r2",
        "    loop\n    continue p1\n    endloop",
        "    loop\n    break !p1\n    endloop",
        "    if !p1\n    endif",
        "    atomic_cas r1, r2, r3, r4, .device",
        "    local_atomic_cas r1, r2, r3, r4",
        "    ucmp_gt p1, r1, r2",
        "    ucmp_ge p1, r1, r2",
        "    ucmp_eq p1, r1, r2",
        "    fcmp_ge p1, r1, r2",
        "    umin r1, r2, r3",
        "    umax r1, r2, r3",
        "    wave_shuffle_idx r1, r2, r3",
        "    wave_reduce_and r1, r2",
        "    wave_reduce_or r1, r2",
        "    wave_reduce_xor r1, r2",
        "    select r1, p1, r2, r16",
        "    mov_imm r1, 1.0",
        "    fence_acq_rel",
        "    halt",
        "    if p1\n    halt\n    endif",
        "    @p1 break p1",
        "r1loop:\n    nop",
        "p2x:\n    nop",
        "src:\n    nop",
    ];
    for b in bad {
        let src = wrap(b);
        let e = parse(&src, T).expect_err(b);
        assert!(!e.message.is_empty());
        assert!(e.line >= 3, "{b}: {e}");
    }
    // Most of them are fine in the spec profile.
    for b in [
        "    mov r32, r1",
        "    mov r1.lo, r2",
        "    @p0 mov r1, r2",
        "    loop\n    continue p1\n    endloop",
        "    loop\n    break !p1\n    endloop",
        "    if !p1\n    endif",
        "    umin r1, r2, r3",
        "    wave_shuffle_idx r1, r2, r3",
        "    wave_reduce_xor r1, r2",
        "    select r1, p1, r2, r16",
        "    mov_imm r1, 1.0",
        "    fence_acq_rel",
        "    if p1\n    halt\n    endif",
        "src:\n    nop",
    ] {
        parse(&wrap(b).replace(".registers 32", ".registers 64"), S).unwrap_or_else(|e| panic!("{b}: {e}"));
    }
    // ucmp_gt and friends exist in neither profile.
    assert!(parse(&wrap("    ucmp_gt p1, r1, r2"), S).is_err());
    assert!(parse(&wrap("    fcmp_ge p1, r1, r2"), S).is_err());
    // .kernel name check
    assert!(parse(".kernel sr_main\n    halt\n.end\n", T).is_err());
}

#[test]
fn partial_last_wave() {
    let body = "    mov_imm r1, 1\n    wave_reduce_add r2, r1\n    device_store_u32 r25, r2";
    for p in [T, S] {
        let (out, st) = run_threads(p, 16, 40, 1, body).unwrap();
        assert_eq!(&out[..16], &[16; 16]);
        assert_eq!(&out[32..40], &[8; 8]);
        assert_eq!(st.waves, 3);
    }
}

#[test]
fn thread_ids_2d_3d() {
    let src = kernel(
        [4, 3, 2],
        "    mov r1, sr_thread_id_x\n    mov r2, sr_thread_id_y\n    mov r3, sr_thread_id_z\n    mov r4, sr_workgroup_id_y\n    mov r5, sr_grid_size_y\n    mov r6, sr_wave_id\n    mov r7, sr_lane_id\n    mov_imm r8, 100\n    imul r9, r3, r8\n    mov_imm r8, 10\n    imad r9, r2, r8, r9\n    iadd r9, r9, r1\n    mov_imm r8, 1000\n    imad r9, r4, r8, r9\n    mov_imm r10, 24\n    imad r11, r4, r10, r7\n    mov r12, sr_wave_width\n    imad r11, r6, r12, r11\n    mov_imm r13, 2\n    shl r11, r11, r13\n    device_store_u32 r11, r9",
    );
    for p in [T, S] {
        let mut mem = Memory::new(4 * 48);
        let st = exec(&src, &cfg(p, 8), &launch([1, 2, 1], &[]), &mut mem).unwrap();
        let out = words(&mem, 0, 48);
        for g in 0..2u32 {
            for i in 0..24u32 {
                let (x, y, z) = (i % 4, (i / 4) % 3, i / 12);
                assert_eq!(out[(g * 24 + i) as usize], g * 1000 + z * 100 + y * 10 + x);
            }
        }
        assert_eq!(st.workgroups, 2);
        assert_eq!(st.waves, 6);
    }
}

#[test]
fn abi_args_and_launch_workgroup_size() {
    let src = ".kernel main\n.registers 8\n    mov r4, sr_thread_id_x\n    mov_imm r5, 2\n    shl r5, r4, r5\n    iadd r6, r0, r5\n    iadd r7, r4, r1\n    device_store_u32 r6, r7\n    halt\n.end\n";
    let mut mem = Memory::new(64);
    let l = Launch { grid: [1, 1, 1], workgroup_size: [4, 1, 1], args: vec![(0, 16), (1, 100)] };
    exec(src, &cfg(T, 4), &l, &mut mem).unwrap();
    assert_eq!(words(&mem, 16, 4), vec![100, 101, 102, 103]);
}

#[test]
fn memory_widths() {
    let src = kernel([1, 1, 1], "    mov_imm r1, 0\n    device_load_u128 r4, r1\n    mov_imm r2, 16\n    device_store_u128 r2, r4\n    mov_imm r2, 33\n    device_load_u8 r8, r2\n    device_load_u16 r9, r2\n    mov_imm r2, 40\n    device_store_u16 r2, r9\n    mov_imm r2, 44\n    device_store_u8 r2, r9\n    mov_imm r3, 0\n    device_load_u64 r10, r3\n    local_store_u64 r3, r10\n    local_load_u64 r12, r3\n    mov_imm r2, 48\n    device_store_u64 r2, r12");
    let mut mem = Memory::new(64);
    mem.write(0, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]).unwrap();
    mem.write(32, &[0xaa, 0xbb, 0xcc, 0xdd]).unwrap();
    // The u16 load at 33 is misaligned: allowed on 0.1.2 (as wave-emu), a fault in the spec profile.
    let e = exec(&src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut mem.clone()).unwrap_err();
    assert_eq!(e.kind, FaultKind::Misaligned { addr: 33, size: 2, local: false });
    assert_eq!((e.origin.unwrap().text.as_str(), e.lane), ("device_load_u16 r9, r2", Some(0)));
    let st = exec(&src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
    assert_eq!(mem.read(16, 16).unwrap(), mem.read(0, 16).unwrap().to_vec().as_slice());
    assert_eq!(mem.read(40, 4).unwrap(), &[0xbb, 0xcc, 0, 0]);
    assert_eq!(mem.read(44, 1).unwrap(), &[0xbb]);
    assert_eq!(mem.read(48, 8).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(st.device_loads, 4);
    assert_eq!(st.by_category["memory"], 10);
}

#[test]
fn stats_categories() {
    let src = kernel([8, 1, 1], "    mov r1, sr_thread_id_x\n    iadd r2, r1, r1\n    fadd r3, r1, r1\n    fsqrt r3, r3\n    wave_reduce_add r4, r1\n    fence_acq_rel .workgroup\n    barrier\n    wait\n    nop\n    mov_imm r0, 0\n    atomic_add r0, r1, .device");
    let mut mem = Memory::new(8);
    let st = exec(&src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
    let c = |k: &str| st.by_category[k];
    assert_eq!(
        (c("move"), c("alu"), c("fpu"), c("sfu"), c("wave"), c("sync"), c("control"), c("atomic"), c("memory")),
        (4, 2, 2, 2, 2, 6, 4, 2, 0)
    );
    assert_eq!(st.wave_instructions, 24);
    assert_eq!(st.thread_instructions, 24 * 4);
    assert_eq!(words(&mem, 0, 1)[0], 28);
    assert!(st.cycles >= 24);
}

#[test]
fn deterministic() {
    let body = "    mov_imm r1, 1\n    mov_imm r2, 1024\n    atomic_add r3, r2, r1, .device\n    device_store_u32 r25, r3";
    let a = run_threads(S, 8, 64, 4, body).unwrap();
    let b = run_threads(S, 8, 64, 4, body).unwrap();
    assert_eq!(a, b);
}

/// Tiny deterministic PRNG for the fuzz test.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() as usize) % xs.len()]
    }
}

const FUZZ_TEMPLATES: &[&str] = &[
    "iadd R, R, R",
    "imad R, R, R, R",
    "idiv R, R, R",
    "fdiv R, R, R",
    "mov R, R",
    "mov_imm R, I",
    "mov R, sr_lane_id",
    "mov R, sr_thread_id_y",
    "device_load_u32 R, R",
    "device_store_u32 R, R",
    "local_store_u32 R, R",
    "device_store_u128 R, R",
    "device_load_u64 R, R",
    "local_load_u64 R, R",
    "local_store_u8 R, R",
    "local_load_u32 R, R",
    "atomic_add R, R, R, .device",
    "atomic_max R, R, .device",
    "local_atomic_cas R, R, R, R",
    "atomic_cas R, R, R, .device",
    "local_atomic_xor R, R, R",
    "wave_shuffle_up R, R, R",
    "wave_shuffle R, R, R",
    "wave_broadcast R, R, R",
    "wave_ballot R, P",
    "wave_any P, P",
    "wave_all P, P",
    "wave_prefix_sum R, R",
    "wave_reduce_max R, R",
    "barrier",
    "select R, P, R, R",
    "icmp_lt P, R, R",
    "ucmp_le P, R, R",
    "fcmp_ne P, R, R",
    "dadd R, R, R",
    "dsqrt R, R",
    "cvt_f64_f32 R, R",
    "cvt_f32_f64 R, R",
    "cvt_f16_f32 R, R",
    "hadd2 R, R, R",
    "hma R, R, R, R",
    "bfi R, R, R, R, R",
    "bfe R, R, R, R",
    "@P iadd R, R, R",
    "@!P mov_imm R, I",
    "@P halt",
    "nop",
    "call L_f",
    "return",
    "fsin R, R",
    "shl R, R, R",
];

fn fuzz_block(rng: &mut Lcg, depth: u32, in_loop: bool, out: &mut String) {
    let regs = ["r0", "r1", "r2", "r3", "r5", "r7", "r15", "r31", "r40", "r1.lo", "r2.hi"];
    let preds = ["p0", "p1", "p2", "p3", "!p1"];
    let imms = ["0", "1", "-1", "0xffffffff", "64", "1.5", "3"];
    for _ in 0..(1 + rng.next() % 6) {
        let r = rng.next() % 10;
        if r == 0 && depth < 4 {
            out.push_str(&format!("if {}\n", rng.pick(&preds)));
            fuzz_block(rng, depth + 1, in_loop, out);
            if rng.next() % 2 == 0 {
                out.push_str("else\n");
                fuzz_block(rng, depth + 1, in_loop, out);
            }
            out.push_str("endif\n");
        } else if r == 1 && depth < 4 {
            out.push_str("loop\n");
            fuzz_block(rng, depth + 1, true, out);
            out.push_str(&format!("break {}\n", rng.pick(&preds)));
            fuzz_block(rng, depth + 1, true, out);
            out.push_str("endloop\n");
        } else if r == 2 && in_loop {
            out.push_str(&format!("{} {}\n", rng.pick(&["break", "continue", "@p2 break"]), rng.pick(&preds)));
        } else {
            let t = rng.pick(FUZZ_TEMPLATES);
            let mut line = String::new();
            for ch in t.chars() {
                match ch {
                    'R' => line.push_str(rng.pick(&regs)),
                    'P' => line.push_str(rng.pick(&preds)),
                    'I' => line.push_str(rng.pick(&imms)),
                    c => line.push(c),
                }
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
}

#[test]
fn fuzz_never_panics() {
    let mnems = [
        "iadd",
        "imad",
        "idiv",
        "fdiv",
        "mov",
        "mov_imm",
        "mov_sr",
        "device_load_u32",
        "device_store_u128",
        "local_load_u64",
        "local_store_u8",
        "atomic_add",
        "local_atomic_cas",
        "atomic_cas",
        "wave_shuffle",
        "wave_broadcast",
        "wave_ballot",
        "wave_any",
        "wave_prefix_sum",
        "wave_reduce_max",
        "if",
        "else",
        "endif",
        "loop",
        "break",
        "continue",
        "endloop",
        "call",
        "return",
        "halt",
        "barrier",
        "select",
        "icmp_lt",
        "fcmp_ne",
        "dadd",
        "cvt_f64_f32",
        "cvt_f32_f64",
        "hadd2",
        "bfi",
        "@p1 iadd",
        "@!p2 halt",
        "L_x:",
        "nop",
        "fence_acquire",
    ];
    let ops = [
        "r0",
        "r1",
        "r2",
        "r3",
        "r7",
        "r31",
        "r40",
        "r255",
        "r1.lo",
        "r2.hi",
        "p0",
        "p1",
        "!p1",
        "p3",
        "sr_lane_id",
        "sr_thread_id_z",
        "0",
        "-1",
        "0xffffffff",
        "1.5",
        ".device",
        "L_x",
        "",
        "r",
    ];
    let valid = kernel([8, 2, 1], "    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    loop\n    icmp_lt p1, r1, r2\n    break p1\n    if p1\n    nop\n    endif\n    device_store_u32 r3, r1\n    isub r1, r1, r2\n    endloop\n    barrier");
    let mut rng = Lcg(12345);
    let mut parsed = 0;
    let mut ran_ok = 0;
    for iter in 0..3000 {
        let src = match iter % 3 {
            0 => {
                // Truncated / mutated valid program.
                let mut b: Vec<u8> = valid.as_bytes().to_vec();
                let cut = (rng.next() as usize) % (b.len() + 1);
                b.truncate(cut);
                if iter % 2 == 0 && !b.is_empty() {
                    let i = (rng.next() as usize) % b.len();
                    b[i] = (rng.next() % 128) as u8;
                }
                String::from_utf8_lossy(&b).into_owned()
            }
            1 => {
                let mut s = format!(
                    ".kernel k\n.registers {}\n.local_memory {}\n.workgroup_size {}, 1, 1\n",
                    rng.next() % 40,
                    rng.next() % 64,
                    1 + rng.next() % 20
                );
                for _ in 0..(rng.next() % 25) {
                    s.push_str(rng.pick(&mnems));
                    let n = rng.next() % 5;
                    for i in 0..n {
                        s.push_str(if i == 0 { " " } else { ", " });
                        s.push_str(rng.pick(&ops));
                    }
                    s.push('\n');
                }
                if rng.next() % 2 == 0 {
                    s.push_str("halt\n");
                }
                if rng.next() % 4 != 0 {
                    s.push_str(".end\n");
                }
                s
            }
            _ => {
                // Structured random program (mostly parses).
                let regs = [8, 16, 32, 41, 64][(rng.next() % 5) as usize];
                let mut s = format!(
                    ".kernel k\n.registers {regs}\n.local_memory {}\n.workgroup_size {}, {}, 1\n",
                    rng.next() % 64,
                    1 + rng.next() % 20,
                    1 + rng.next() % 3
                );
                fuzz_block(&mut rng, 0, false, &mut s);
                s.push_str("halt\nL_f:\n");
                fuzz_block(&mut rng, 1, false, &mut s);
                s.push_str("return\n.end\n");
                s
            }
        };
        for p in [T, S] {
            if let Ok(prog) = parse(&src, p) {
                parsed += 1;
                for k in &prog.kernels {
                    for w in [1, 4, 64] {
                        let mut c = cfg(p, w);
                        c.max_instructions = 2000;
                        let mut mem = Memory::new((rng.next() % 64) as usize);
                        let l = Launch { grid: [2, 1, 1], workgroup_size: [3, 2, 1], args: vec![(1, rng.next() as u32)] };
                        match run(k, &c, &l, &mut mem) {
                            Ok(_) => ran_ok += 1,
                            Err(e) => assert!(!e.to_string().is_empty()),
                        }
                    }
                }
            }
        }
    }
    eprintln!("fuzz: {parsed} programs parsed, {ran_ok} runs completed");
    assert!(parsed > 300, "only {parsed} random programs parsed");
}

#[test]
fn strict_catches_reads_of_unwritten_registers() {
    let run_strict = |src: &str, p: Profile, args: &[(u32, u32)]| {
        let mut c = cfg(p, 4);
        c.strict = true;
        exec(src, &c, &launch([1, 1, 1], args), &mut Memory::new(64))
    };
    // r5 is never written: it reads 0 normally, and is a fault under strict.
    let src = kernel([4, 1, 1], "    iadd r4, r5, r5\n    mov_imm r1, 0\n    device_store_u32 r1, r4");
    assert!(exec(&src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(64)).is_ok());
    for p in [S, T] {
        let e = run_strict(&src, p, &[]).unwrap_err();
        assert_eq!((e.kind.clone(), e.lane), (FaultKind::UndefinedRead { slot: 5 }, Some(0)));
        assert_eq!(e.origin.unwrap().text, "iadd r4, r5, r5");
    }
    // Arguments count as written; a value written on lanes 0-1 only, read by all, faults at lane 2.
    let partial = "    mov r1, sr_lane_id\n    mov_imm r2, 2\n    icmp_lt p1, r1, r2\n    if p1\n    mov_imm r3, 7\n    endif\n";
    let src = kernel([4, 1, 1], &format!("{partial}    iadd r4, r3, r0"));
    let e = run_strict(&src, S, &[(0, 5)]).unwrap_err();
    assert_eq!((e.kind, e.lane), (FaultKind::UndefinedRead { slot: 3 }, Some(2)));
    // select reads each side only where it is chosen; so does a predicated move.
    let src = kernel(
        [4, 1, 1],
        &format!("{partial}    select r4, p1, r3, r1\n    mov r5, r1\n    @p1 mov r5, r3\n    mov_imm r6, 0\n    device_store_u32 r6, r4"),
    );
    run_strict(&src, S, &[]).unwrap();
    // A predicate never written.
    let src = kernel([4, 1, 1], "    if p2\n    nop\n    endif");
    let e = run_strict(&src, S, &[]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedRead { slot: isa::PRED_SLOT_BASE + 2 });
    assert!(e.to_string().contains("read of p2"), "{e}");
    // A broadcast reads its source lane only.
    let src = kernel([4, 1, 1], &format!("{partial}    mov_imm r6, 1\n    wave_broadcast r7, r3, r6"));
    run_strict(&src, S, &[]).unwrap();
    let src = kernel([4, 1, 1], &format!("{partial}    mov_imm r6, 3\n    wave_broadcast r7, r3, r6"));
    assert_eq!(run_strict(&src, S, &[]).unwrap_err().kind, FaultKind::UndefinedRead { slot: 3 });
}

/// `full_wave_ops`: a wave instruction inside an `if` that only some lanes
/// take faults; the same instruction with every lane, in an `if` no lane
/// takes, or in an `if` every lane takes does not; off, nothing faults.
#[test]
fn partial_wave_ops_fault_when_checked() {
    let divergent = |cond: &str| {
        kernel(
            [8, 1, 1],
            &format!(
                "    mov r1, sr_lane_id\n    mov_imm r2, {cond}\n    icmp_lt p1, r1, r2\n    if p1\n    wave_reduce_add r3, r1\n    endif"
            ),
        )
    };
    let full = |p: Profile| SimConfig { full_wave_ops: true, ..cfg(p, 8) };
    for p in [S, T] {
        let e = exec(&divergent("3"), &full(p), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
        assert_eq!((e.kind.clone(), e.lane), (FaultKind::PartialWaveOp { executing: 3, live: 8 }, Some(3)), "{p:?}");
        assert_eq!(e.origin.map(|o| o.text), Some("wave_reduce_add r3, r1".to_string()));
        for cond in ["0", "8"] {
            exec(&divergent(cond), &full(p), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap();
        }
        exec(&divergent("3"), &cfg(p, 8), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap();
        // A predicated ballot: its guard counts as part of the mask.
        let ballot = kernel([8, 1, 1], "    mov r1, sr_lane_id\n    mov_imm r2, 5\n    icmp_lt p1, r1, r2\n    @p1 wave_ballot r3, p1");
        let e = exec(&ballot, &full(p), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
        assert_eq!(e.kind, FaultKind::PartialWaveOp { executing: 5, live: 8 }, "{p:?}");
    }
    // Lanes that left with `halt` (spec profile) are not live: the rest is the whole wave.
    let after_halt = kernel(
        [8, 1, 1],
        "    mov r1, sr_lane_id\n    mov_imm r2, 6\n    icmp_ge p1, r1, r2\n    if p1\n    halt\n    endif\n    wave_any p2, p1",
    );
    exec(&after_halt, &full(S), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap();
    // A wave with fewer threads than its width, not whole warps of 32: the
    // full mask names lanes it lacks (the last wave of a group of 80).
    let short = kernel([5, 1, 1], "    mov r1, sr_lane_id\n    wave_prefix_sum r3, r1");
    let e = exec(&short, &full(T), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert_eq!(e.kind, FaultKind::PartialWarpWaveOp { threads: 5 });
    exec(&short, &cfg(T, 8), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap();
    // Whole warps in a wider wave are fine: 96 threads in waves of 64.
    let warps = kernel([96, 1, 1], "    mov r1, sr_lane_id\n    wave_prefix_sum r3, r1");
    exec(&warps, &SimConfig { full_wave_ops: true, ..cfg(T, 64) }, &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap();
    let e = exec(
        &kernel([80, 1, 1], "    mov r1, sr_lane_id\n    wave_prefix_sum r3, r1"),
        &SimConfig { full_wave_ops: true, ..cfg(T, 64) },
        &launch([1, 1, 1], &[]),
        &mut Memory::new(4),
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::PartialWarpWaveOp { threads: 16 });
}

#[test]
fn divergent_barriers_are_faults() {
    // Two of a wave's four lanes execute a barrier inside an if.
    let src = kernel([4, 1, 1], "    mov r1, sr_lane_id\n    mov_imm r2, 2\n    icmp_lt p1, r1, r2\n    if p1\n    barrier\n    endif");
    for p in [S, T] {
        let e = exec(&src, &cfg(p, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
        assert_eq!((e.kind, e.lane), (FaultKind::DivergentBarrier { executing: 2, live: 4 }, Some(2)));
    }
    // The waves of a group wait at different barriers (the spec profile skips the empty arm).
    let src = kernel(
        [8, 1, 1],
        "    mov r1, sr_wave_id\n    mov_imm r2, 0\n    icmp_eq p1, r1, r2\n    if p1\n    barrier\n    else\n    barrier\n    endif",
    );
    let e = exec(&src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(4)).unwrap_err();
    assert!(matches!(e.kind, FaultKind::BarrierMismatch(ref m) if m.contains("different barriers")), "{e}");
    // A barrier under a branch the whole group takes (or skips) is fine.
    for cond in ["icmp_lt p1, r2, r1", "icmp_lt p1, r1, r2"] {
        let body = format!("    mov_imm r1, 1\n    mov_imm r2, 2\n    {cond}\n    if p1\n    barrier\n    endif");
        for p in [S, T] {
            exec(&kernel([8, 1, 1], &body), &cfg(p, 4), &launch([2, 1, 1], &[]), &mut Memory::new(4)).unwrap();
        }
    }
}

#[test]
fn misaligned_accesses_fault_in_the_spec_profile() {
    for (body, size, local) in [
        ("    mov_imm r1, 2\n    device_load_u32 r2, r1", 4, false),
        ("    mov_imm r1, 5\n    local_store_u16 r1, r1", 2, true),
        ("    mov_imm r1, 4\n    local_load_u64 r2, r1", 8, true),
        ("    mov_imm r1, 1\n    atomic_add r2, r1, r1, .device", 4, false),
        ("    mov_imm r1, 8\n    device_store_u128 r1, r4", 16, false),
    ] {
        let src = kernel([1, 1, 1], body);
        let addr = body.split(", ").nth(1).and_then(|s| s.split('\n').next()).unwrap().parse::<u64>().unwrap();
        let e = exec(&src, &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(64)).unwrap_err();
        assert_eq!(e.kind, FaultKind::Misaligned { addr, size, local }, "{body}");
        assert_eq!(e.lane, Some(0));
        exec(&src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut Memory::new(64)).unwrap();
    }
}

/// Runs `src` over `groups` groups of 64 threads with `threads` host threads (cycle model
/// on or off); the memory and the statistics.
fn run_with_threads(src: &str, groups: u32, threads: usize, timing: bool, mem_words: usize) -> (Result<Stats, Fault>, Vec<u8>) {
    let mut c = cfg(S, 32);
    c.threads = threads;
    c.timing = timing;
    c.max_instructions = 0;
    let prog = parse(src, S).unwrap();
    let mut mem = Memory::new(4 * mem_words);
    let r = run(&prog.kernels[0], &c, &launch([groups, 1, 1], &[]), &mut mem);
    (r, mem.bytes)
}

/// A kernel of 64-thread groups: r23 = global id, r25 = 4 * id, r21 = group id.
fn group_kernel(body: &str) -> String {
    kernel([64, 1, 1], &format!("    mov r20, sr_thread_id_x\n    mov r21, sr_workgroup_id_x\n    mov r22, sr_workgroup_size_x\n    imad r23, r21, r22, r20\n    mov_imm r24, 2\n    shl r25, r23, r24\n{body}"))
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let kernels = [
        // Independent groups: out[i] = in[i] * 3 + i.
        ("independent", "    device_load_u32 r1, r25\n    mov_imm r2, 3\n    imul r1, r1, r2\n    iadd r1, r1, r23\n    device_store_u32 r25, r1"),
        // Each group's lane 0 reads what the previous group wrote: a chain through memory.
        (
            "chain",
            "    mov_imm r1, 0\n    icmp_eq p1, r20, r1\n    if p1\n    mov_imm r2, 4\n    imul r3, r21, r2\n    isub r4, r3, r2\n    mov_imm r5, 0\n    icmp_eq p2, r21, r5\n    mov_imm r6, 1\n    if p2\n    mov r4, r3\n    endif\n    device_load_u32 r7, r4\n    iadd r7, r7, r6\n    device_store_u32 r3, r7\n    endif",
        ),
        // Every thread increments one counter; its old value goes to out[i].
        ("atomic", "    mov_imm r1, 0\n    mov_imm r2, 1\n    atomic_add r3, r1, r2, .device\n    device_store_u32 r25, r3"),
        // Each thread reads back what it stored (a speculative chunk's snapshot lacks it).
        (
            "read back",
            "    device_load_u32 r1, r25\n    iadd r1, r1, r23\n    device_store_u32 r25, r1\n    device_load_u32 r2, r25\n    iadd r2, r2, r2\n    device_store_u32 r25, r2",
        ),
    ];
    for (name, body) in kernels {
        let src = group_kernel(body);
        for timing in [false, true] {
            let (one, mem1) = run_with_threads(&src, 96, 1, timing, 64 * 96);
            let one = one.unwrap();
            for threads in [2, 3] {
                let (r, mem) = run_with_threads(&src, 96, threads, timing, 64 * 96);
                assert_eq!(r.unwrap(), one, "{name} timing {timing} threads {threads}");
                assert!(mem == mem1, "{name} timing {timing} threads {threads}: memory differs");
            }
        }
    }
    // The chain really is sequential: group g wrote g + 1 at 4g (g > 0 reads 4(g-1)).
    let (_, mem) = run_with_threads(&group_kernel(kernels[1].1), 96, 2, false, 64 * 96);
    let w = |i: usize| u32::from_le_bytes(mem[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((w(0), w(1), w(95)), (1, 2, 96));
}

#[test]
fn the_first_fault_in_dispatch_order_wins_whatever_the_threads() {
    // Group 70 stores out of bounds; groups 90.. as well.
    let body = "    mov_imm r1, 70\n    icmp_ge p1, r21, r1\n    if p1\n    mov_imm r2, 0x100000\n    iadd r25, r25, r2\n    endif\n    device_store_u32 r25, r23";
    let src = group_kernel(body);
    let (a, _) = run_with_threads(&src, 128, 1, false, 64 * 128);
    let (b, _) = run_with_threads(&src, 128, 2, false, 64 * 128);
    let (a, b) = (a.unwrap_err(), b.unwrap_err());
    assert_eq!(a, b);
    assert_eq!(a.workgroup, [70, 0, 0]);
}

#[test]
fn a_group_spinning_on_an_earlier_groups_flag_runs_in_order() {
    // Group g > 0 waits until word g - 1 is set, then sets word g: in dispatch order
    // the flag is always set already; speculation gives up at its limit and reruns.
    let body = "    mov_imm r1, 0\n    icmp_eq p1, r20, r1\n    if p1\n    mov_imm r2, 4\n    imul r3, r21, r2\n    isub r4, r3, r2\n    mov_imm r6, 1\n    icmp_eq p2, r21, r1\n    if p2\n    mov r4, r3\n    endif\n    loop\n    device_load_u32 r7, r4\n    icmp_ne p3, r7, r1\n    break p3\n    icmp_eq p3, r21, r1\n    break p3\n    endloop\n    device_store_u32 r3, r6\n    endif";
    let src = group_kernel(body);
    let (a, ma) = run_with_threads(&src, 80, 1, false, 64 * 80);
    let (b, mb) = run_with_threads(&src, 80, 2, false, 64 * 80);
    assert_eq!(a.unwrap(), b.unwrap());
    assert!(ma == mb);
    assert!(ma[..4 * 80].chunks(4).all(|c| c == [1, 0, 0, 0]));
}

#[test]
fn memory_accesses_keep_round_robin_order_across_waves() {
    // Two waves of four lanes race on local word 0. Wave 0 runs five `nop`s more than
    // wave 1 first (in the spec profile wave 1 skips the empty arm), so in round-robin
    // order wave 1 stores and loads long before wave 0; on 0.1.2 both run the arm and
    // store in the same round, wave 0 first, then both load wave 1's value.
    let body = "    mov r1, sr_wave_id\n    mov_imm r2, 0\n    icmp_eq p1, r1, r2\n    if p1\n    nop\n    nop\n    nop\n    nop\n    nop\n    endif\n    local_store_u32 r2, r1\n    local_load_u32 r3, r2\n    mov r4, sr_wave_id\n    mov_imm r5, 4\n    imul r4, r4, r5\n    mov r6, sr_lane_id\n    iadd r4, r4, r6\n    mov_imm r5, 2\n    shl r4, r4, r5\n    device_store_u32 r4, r3";
    let src = kernel([8, 1, 1], body);
    let run_p = |p: Profile| {
        let mut mem = Memory::new(32);
        exec(&src, &cfg(p, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
        words(&mem, 0, 8)
    };
    assert_eq!(run_p(S), vec![0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(run_p(T), vec![1, 1, 1, 1, 1, 1, 1, 1]);
}

/// A whole wave's 32-bit access is checked at once; when a lane is out of bounds
/// the lanes run one by one, so the lanes before the bad one take effect and the
/// fault names the first bad lane, as for a partial mask.
#[test]
fn whole_wave_word_accesses_fault_at_the_first_bad_lane() {
    let body = "    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    mov_imm r2, 4\n    iadd r3, r3, r2\n    device_store_u32 r3, r1";
    let src = kernel([4, 1, 1], body);
    let mut mem = Memory::new(12);
    let e = exec(&src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap_err();
    assert_eq!(e.kind, FaultKind::DeviceOutOfBounds { addr: 12, size: 4 });
    assert_eq!(e.lane, Some(2));
    assert_eq!(mem.bytes, [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    // In bounds, the whole wave stores and loads back (load into a source register too).
    let body = "    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    device_store_u32 r3, r1\n    device_load_u32 r3, r3\n    shl r4, r1, r2\n    mov_imm r2, 16\n    iadd r4, r4, r2\n    device_store_u32 r4, r3";
    let src = kernel([4, 1, 1], body);
    let mut mem = Memory::new(32);
    exec(&src, &cfg(T, 4), &launch([1, 1, 1], &[]), &mut mem).unwrap();
    let words: Vec<u32> = mem.bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(&words[..4], &[0, 1, 2, 3]);
    assert_eq!(&words[4..], &[0, 1, 2, 3]);
    // Misaligned in the spec profile: lane 0 already.
    let body = "    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    iadd r3, r3, r2\n    device_load_u32 r4, r3";
    let e = exec(&kernel([4, 1, 1], body), &cfg(S, 4), &launch([1, 1, 1], &[]), &mut Memory::new(64)).unwrap_err();
    assert_eq!(e.kind, FaultKind::Misaligned { addr: 2, size: 4, local: false });
    assert_eq!(e.lane, Some(0));
}

/// Speculative chunks read memory as their batch began: a group must see what a
/// group of an earlier batch wrote, and a wave whose lanes scatter over a large
/// region still reads every lane's word.
#[test]
fn speculative_chunks_see_earlier_batches_and_scattered_lanes() {
    const GROUPS: u32 = 200;
    let base_b = 4 * 64 * GROUPS; // region B after A (one word per thread)
    let b_words = 1u32 << 17; // 512 KiB: far more pages than one span fetches
                              // prev = g >= 64 ? A[id - 4096] : 0; s = B[(id * 4099) & (b_words - 1)]; A[id] = prev + s.
    let body = format!(
        "    mov_imm r1, 64\n    mov_imm r3, 0\n    icmp_ge p1, r21, r1\n    if p1\n    mov_imm r9, 16384\n    isub r4, r25, r9\n    device_load_u32 r3, r4\n    endif\n    mov_imm r5, 4099\n    imul r6, r23, r5\n    mov_imm r7, {mask}\n    and r6, r6, r7\n    mov_imm r7, 2\n    shl r6, r6, r7\n    mov_imm r7, {base_b}\n    iadd r6, r6, r7\n    device_load_u32 r8, r6\n    iadd r3, r3, r8\n    device_store_u32 r25, r3",
        mask = b_words - 1
    );
    let src = group_kernel(&body);
    let prog = parse(&src, S).unwrap();
    let results: Vec<(Stats, Vec<u8>)> = [1, 2, 3]
        .iter()
        .map(|&threads| {
            let mut c = cfg(S, 32);
            c.threads = threads;
            c.timing = false;
            c.max_instructions = 0;
            let mut mem = Memory::new((base_b + 4 * b_words) as usize);
            for (i, w) in mem.bytes[base_b as usize..].chunks_exact_mut(4).enumerate() {
                w.copy_from_slice(&(5 + (i as u32 & 1)).to_le_bytes());
            }
            let st = run(&prog.kernels[0], &c, &launch([GROUPS, 1, 1], &[]), &mut mem).unwrap();
            (st, mem.bytes)
        })
        .collect();
    for (threads, r) in [2, 3].iter().zip(&results[1..]) {
        assert_eq!(r.0, results[0].0, "statistics with {threads} threads");
        assert!(r.1 == results[0].1, "memory with {threads} threads");
    }
    // Word (id * 4099) & mask is odd exactly when id is (4099 is odd): 5 or 6 per step.
    let mem = &results[1].1;
    for id in [0u32, 1, 4095, 4096, 4097, 64 * GROUPS - 1] {
        let got = u32::from_le_bytes(mem[4 * id as usize..4 * id as usize + 4].try_into().unwrap());
        let steps = id / 4096 + 1;
        assert_eq!(got, steps * (5 + (id & 1)), "A[{id}]");
    }
}

/// A group whose waves fit in 64 lanes starts as one wide wave
/// (`exec/wide.rs`); with `wide_waves` off the waves run round-robin. Random
/// structured programs (divergent ifs and loops, breaks, calls, halts, barriers,
/// memory in and out of bounds, wave operations) give the same buffers,
/// statistics and faults both ways, and with the cycle model on the same timing
/// report (so the same per-wave traces), in both profiles, for waves of 1 to 32 lanes.
#[test]
fn wide_waves_agree_with_round_robin() {
    let mut rng = Lcg(777);
    let (mut compared, mut ok) = (0, 0);
    for _ in 0..400 {
        let (wx, wy) = (1 + rng.next() % 20, 1 + rng.next() % 3);
        // r1 = thread id, r3 = 4 * thread id (in bounds), r7 = 4 * lane id.
        let mut src = format!(
            ".kernel k\n.registers 32\n.local_memory 256\n.workgroup_size {wx}, {wy}, 1\n    mov r1, sr_thread_id_x\n    mov_imm r2, 2\n    shl r3, r1, r2\n    mov r7, sr_lane_id\n    shl r7, r7, r2\n"
        );
        fuzz_block(&mut rng, 0, false, &mut src);
        src.push_str("halt\nL_f:\n");
        fuzz_block(&mut rng, 1, false, &mut src);
        src.push_str("return\n.end\n");
        // Operands both profiles take everywhere (0.1.2 has 32 registers).
        let src = src.replace("r40", "r9").replace("!p1", "p1").replace("r1.lo", "r1").replace("r2.hi", "r2");
        let init: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
        for p in [T, S] {
            let Ok(prog) = parse(&src, p) else { continue };
            for w in [1, 2, 4, 8, 16, 32] {
                let l = Launch { grid: [2, 1, 1], workgroup_size: [1, 1, 1], args: vec![(0, 8)] };
                let run_as = |timing: bool, wide_waves: bool| {
                    let mut c = cfg(p, w);
                    c.max_instructions = 3000;
                    c.timing = timing;
                    c.wide_waves = wide_waves;
                    let mut mem = Memory { bytes: init.clone() };
                    let r = run(&prog.kernels[0], &c, &l, &mut mem);
                    (r, mem.bytes)
                };
                // With the cycle model on, the wide waves must also leave each wave the
                // trace round-robin gives it: the whole timing report is compared.
                for timing in [false, true] {
                    let (rr, rr_mem) = run_as(timing, false);
                    if matches!(&rr, Err(f) if matches!(f.kind, FaultKind::DoesNotFit(_))) {
                        continue;
                    }
                    let (wide, wide_mem) = run_as(timing, true);
                    let limit = |r: &Result<Stats, Fault>| matches!(r, Err(f) if matches!(f.kind, FaultKind::InstructionLimit { .. }));
                    if limit(&wide) || limit(&rr) {
                        // Which instruction crosses the limit depends on how far each wave
                        // ran ahead between memory accesses; the workgroup does not.
                        let group = |r: &Result<Stats, Fault>| r.as_ref().err().map(|f| f.workgroup);
                        assert!(group(&wide).is_some() && group(&wide) == group(&rr), "{wide:?} {rr:?}\n{src}");
                        continue;
                    }
                    assert_eq!(wide, rr, "profile {p:?} w {w} timing {timing}\n{src}");
                    assert!(wide_mem == rr_mem, "memory differs: profile {p:?} w {w} timing {timing}\n{src}");
                    compared += 1;
                    ok += wide.is_ok() as u32;
                }
            }
        }
    }
    eprintln!("wide: {compared} runs compared, {ok} completed");
    assert!(compared > 4000 && ok > 1000, "{compared} runs compared, {ok} completed");
}

/// A loop of `trips` iterations per thread (a divergent branch in it, so each
/// iteration is several runs of the trace), then a store of the sum.
fn looping_kernel(trips: u32) -> String {
    group_kernel(&format!(
        "    mov_imm r1, 0\n    mov_imm r2, 0\n    mov_imm r3, 1\n    mov_imm r4, {trips}\n    loop\n    icmp_ge p1, r2, r4\n    break p1\n    and r5, r2, r23\n    icmp_eq p2, r5, r3\n    if p2\n    iadd r1, r1, r3\n    endif\n    iadd r1, r1, r2\n    iadd r2, r2, r3\n    endloop\n    device_store_u32 r25, r1"
    ))
}

/// `RunLimits::max_instructions` counts every workgroup's wave-instructions and
/// stops the run after the workgroup that passes it: the same workgroup on one
/// thread or several (groups run speculatively in parallel without the cycle
/// model, pipelined with it), and a workgroup that alone passes it stops inside.
#[test]
fn the_run_instruction_limit_counts_all_workgroups() {
    const GROUPS: u32 = 200;
    let prog = parse(&looping_kernel(40), S).unwrap();
    let k = &prog.kernels[0];
    let l = launch([GROUPS, 1, 1], &[]);
    let mut free = cfg(S, 32);
    free.timing = false;
    free.max_instructions = 0;
    let st = run(k, &free, &l, &mut Memory::new(4 * 64 * GROUPS as usize)).unwrap();
    let per_group = st.wave_instructions / GROUPS as u64;
    assert_eq!(per_group * GROUPS as u64, st.wave_instructions, "every group issues as many");
    let limit = per_group * 120 + per_group / 2;
    for timing in [false, true] {
        for threads in [1, 2] {
            let mut c = free.clone();
            c.timing = timing;
            c.threads = threads;
            let limits = RunLimits { max_instructions: limit, ..RunLimits::default() };
            let f = run_limited(k, &c, &l, &mut Memory::new(4 * 64 * GROUPS as usize), &limits).unwrap_err();
            assert_eq!(f.kind, FaultKind::RunInstructionLimit { limit }, "timing {timing}, {threads} threads");
            assert_eq!(f.workgroup, [120, 0, 0], "timing {timing}, {threads} threads");
            // Below one workgroup's count: the first workgroup stops inside, with the run's limit named.
            let small = RunLimits { max_instructions: per_group / 2, ..RunLimits::default() };
            let f = run_limited(k, &c, &l, &mut Memory::new(4 * 64 * GROUPS as usize), &small).unwrap_err();
            assert_eq!((f.kind, f.workgroup), (FaultKind::RunInstructionLimit { limit: per_group / 2 }, [0, 0, 0]));
        }
    }
    // A per-workgroup limit below the run's stays the workgroup's.
    let mut c = free.clone();
    c.max_instructions = per_group / 2;
    let limits = RunLimits { max_instructions: limit, ..RunLimits::default() };
    let f = run_limited(k, &c, &l, &mut Memory::new(4 * 64 * GROUPS as usize), &limits).unwrap_err();
    assert_eq!(f.kind, FaultKind::InstructionLimit { limit: per_group / 2 });
    // No limit: the run completes as `run` does.
    let mut mem = Memory::new(4 * 64 * GROUPS as usize);
    assert_eq!(run_limited(k, &free, &l, &mut mem, &RunLimits::default()).unwrap(), st);
}

/// `RunLimits::time` is checked between workgroups: a run whose time is up stops with a `TimeLimit`.
#[test]
fn the_time_limit_stops_a_run_between_workgroups() {
    let prog = parse(&looping_kernel(10), S).unwrap();
    let l = launch([100, 1, 1], &[]);
    for (timing, threads) in [(false, 1), (false, 2), (true, 1), (true, 2)] {
        let mut c = cfg(S, 32);
        c.timing = timing;
        c.threads = threads;
        let limits = RunLimits { time: Some(std::time::Duration::ZERO), ..RunLimits::default() };
        let f = run_limited(&prog.kernels[0], &c, &l, &mut Memory::new(4 * 64 * 100), &limits).unwrap_err();
        assert_eq!(f.kind, FaultKind::TimeLimit { limit_ms: 0 }, "timing {timing}, {threads} threads");
        let limits = RunLimits { time: Some(std::time::Duration::from_secs(3600)), ..RunLimits::default() };
        assert!(run_limited(&prog.kernels[0], &c, &l, &mut Memory::new(4 * 64 * 100), &limits).is_ok());
    }
}

/// `RunLimits::max_trace_bytes`: when the traces the cycle model holds outgrow
/// the window, the model is switched off at the same workgroup on one thread or
/// two, and the run goes on without it: buffers and counts as with the model
/// off, no timing report. A window the traces fit changes nothing.
#[test]
fn the_trace_window_switches_the_cycle_model_off() {
    const GROUPS: u32 = 100;
    let prog = parse(&looping_kernel(300), S).unwrap();
    let k = &prog.kernels[0];
    let l = launch([GROUPS, 1, 1], &[]);
    let run_with = |timing: bool, threads: usize, window: u64| {
        let mut c = cfg(S, 32);
        c.timing = timing;
        c.threads = threads;
        c.max_instructions = 0;
        let mut mem = Memory::new(4 * 64 * GROUPS as usize);
        let st = run_limited(k, &c, &l, &mut mem, &RunLimits { max_trace_bytes: window, ..RunLimits::default() }).unwrap();
        (st, mem.bytes)
    };
    let (off, off_mem) = run_with(false, 1, 0);
    let (on, on_mem) = run_with(true, 1, 0);
    assert!(on.timing.is_some() && on.timing_dropped.is_none());
    assert!(on_mem == off_mem);
    let mut dropped_at = Vec::new();
    for window in [16 << 10, 64 << 10] {
        for threads in [1, 2] {
            let (st, mem) = run_with(true, threads, window);
            assert!(st.timing.is_none() && st.cycles == 0, "window {window}, {threads} threads");
            assert!(mem == off_mem, "buffers as without the model");
            assert_eq!(Stats { timing_dropped: None, ..st.clone() }, off, "counts as without the model");
            dropped_at.push((window, st.timing_dropped.expect("the model was switched off")));
        }
    }
    // The same workgroup on one thread and on two; a larger window keeps the model longer.
    assert_eq!(dropped_at[0].1, dropped_at[1].1, "{dropped_at:?}");
    assert_eq!(dropped_at[2].1, dropped_at[3].1, "{dropped_at:?}");
    assert!(dropped_at[2].1 >= dropped_at[0].1, "{dropped_at:?}");
    // A window the traces fit: the same report as without one.
    let (fits, _) = run_with(true, 2, 1 << 30);
    assert_eq!(fits, on);
}
