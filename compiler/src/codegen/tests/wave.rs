//! Wave operations over the active lanes: inside both arms of an `if` on the
//! thread's parity (each arm sees only its lanes) and at the top level, at wave
//! widths 32 and 64, with a partial last wave, on both profiles.

use super::*;

/// Threads per group: three full waves of 32 and a partial one (or 64 + 36).
const N: usize = 100;

/// Which lanes execute the op.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arm {
    Odd,
    Even,
    All,
}

/// A kernel where every thread loads `x` (type `ty`) from `4*t`; `op(arm)` is the
/// instruction text computing `v{dst}` from `v5` (x), `v24` (b1: bit 2 of x) and
/// the lane constants `v25` = 1, `v26` = 2, `v27` = 3. The odd and even arms'
/// results go to `4*N + 4*t`, the top level's to `8*N + 4*t` (b1 results as 0/1).
fn kernel(ty: &str, result: &str, op: &dyn Fn(Arm, usize) -> String) -> String {
    let as_i32 = |v: usize, out: usize| {
        if result == "b1" {
            format!("        v{out}:i32 = select v{v}, v6, v23\n")
        } else {
            String::new()
        }
    };
    let stored = if result == "b1" { "i32" } else { result };
    let pick = |v: usize, out: usize| if result == "b1" { out } else { v };
    format!(
        "kernel @wave {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:{ty} = load.device.{ty} [v4]
      v6:i32 = iconst 1
      v7:i32 = and v1, v6
      v8:b1 = icmp eq v7, v6
      v20:i32 = load.device.i32 [v4]
      v21:i32 = iconst 4
      v22:i32 = and v20, v21
      v23:i32 = iconst 0
      v24:b1 = icmp ne v22, v23
      v25:i32 = iconst 1
      v26:i32 = iconst 2
      v27:i32 = iconst 3
      if v8 then block1 else block2 merge block3
    block1:
        {}
{}        jump block3(v{})
    block2:
        {}
{}        jump block3(v{})
  block3(v12:{stored}):
      v13:i32 = iconst {}
      v14:i32 = iadd v4, v13
      store.device [v14], v12
      {}
{}      v16:i32 = iconst {}
      v17:i32 = iadd v4, v16
      store.device [v17], v{}
      return
}}
",
        op(Arm::Odd, 10),
        as_i32(10, 30),
        pick(10, 30),
        op(Arm::Even, 11),
        as_i32(11, 31),
        pick(11, 31),
        4 * N,
        op(Arm::All, 15),
        as_i32(15, 32).replace("        ", "      "),
        8 * N,
        pick(15, 32),
    )
}

/// The expected result of one lane: (lane, x) of the active lanes in lane
/// order, this lane's position among them, and the arm.
type Expect<'a> = &'a dyn Fn(&[(usize, u32)], usize, Arm) -> u32;

/// Runs `text` on every setup and checks each thread's two results against
/// `expect(active inputs in lane order, this lane's position among them, arm)`.
fn check_wave(name: &str, text: &str, input: &[u32], expect: Expect, same: &dyn Fn(u32, u32) -> bool) {
    for s in setups(N as u32) {
        let w = if s.target == "gcn" { 64 } else { 32 };
        let mut mem = memory_with(12 * N, input);
        let asm = run_setup(text, s, &mut mem);
        let split = words(&mem, 4 * N, N);
        let top = words(&mem, 8 * N, N);
        for t in 0..N {
            for (arm, got) in [(if t % 2 == 1 { Arm::Odd } else { Arm::Even }, split[t]), (Arm::All, top[t])] {
                // (lane, x) of the active lanes of t's wave, in lane order.
                let active: Vec<(usize, u32)> = (t / w * w..((t / w + 1) * w).min(N))
                    .filter(|&u| arm == Arm::All || (u % 2 == 1) == (arm == Arm::Odd))
                    .map(|u| (u % w, input[u]))
                    .collect();
                let me = active.iter().position(|&(l, _)| l == t % w).expect("t is active");
                let want = expect(&active, me, arm);
                assert!(same(got, want), "{name} {s:?} thread {t} {arm:?}: got {got:#x}, want {want:#x}\n{asm}");
            }
        }
    }
}

fn exact(a: u32, b: u32) -> bool {
    a == b
}

fn float_same(a: u32, b: u32) -> bool {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    a == b || (x.is_nan() && y.is_nan()) || (x == 0.0 && y == 0.0)
}

fn ints() -> Vec<u32> {
    let mut r = Rng(0x5eed_0001_2345_6789);
    (0..N).map(|i| if i % 7 == 3 { r.next() | 0x8000_0000 } else { r.next() }).collect()
}

/// Floats of mixed sign and magnitude (sums depend on the association order),
/// or near 1 (products stay finite).
fn floats(near_one: bool) -> Vec<u32> {
    let mut r = Rng(0xf10a_7000_0000_0017);
    (0..N)
        .map(|_| {
            let a = r.next();
            let x = if near_one {
                0.9 + (a % 1000) as f32 / 4096.0
            } else {
                ((a % 2001) as f32 - 1000.0) * 2f32.powi((a >> 16) as i32 % 24 - 12)
            };
            x.to_bits()
        })
        .collect()
}

fn fmin(a: f32, b: f32) -> f32 {
    if a.is_nan() || b < a {
        b
    } else {
        a
    }
}

fn fmax(a: f32, b: f32) -> f32 {
    if a.is_nan() || b > a {
        b
    } else {
        a
    }
}

fn reduce_text<'a>(op: &'a str, ty: &'a str) -> impl Fn(Arm, usize) -> String + 'a {
    move |_, d| format!("v{d}:{ty} = wave_reduce.{op} v5")
}

#[test]
fn integer_reductions() {
    let x = ints();
    type F = fn(u32, u32) -> u32;
    let cases: [(&str, u32, F); 9] = [
        ("iadd", 0, |a, b| a.wrapping_add(b)),
        ("imul", 1, |a, b| a.wrapping_mul(b)),
        ("smin", i32::MAX as u32, |a, b| (a as i32).min(b as i32) as u32),
        ("smax", i32::MIN as u32, |a, b| (a as i32).max(b as i32) as u32),
        ("umin", u32::MAX, |a, b| a.min(b)),
        ("umax", 0, |a, b| a.max(b)),
        ("and", u32::MAX, |a, b| a & b),
        ("or", 0, |a, b| a | b),
        ("xor", 0, |a, b| a ^ b),
    ];
    for (op, id, f) in cases {
        let text = kernel("i32", "i32", &reduce_text(op, "i32"));
        check_wave(op, &text, &x, &|act, _, _| act.iter().fold(id, |acc, &(_, v)| f(acc, v)), &exact);
    }
}

#[test]
fn float_reductions_sum_in_lane_order() {
    type F = fn(f32, f32) -> f32;
    let mut with_nan = floats(false);
    with_nan[9] = f32::NAN.to_bits();
    with_nan[40] = (-0.0f32).to_bits();
    with_nan[42] = 0.0f32.to_bits();
    let cases: [(&str, f32, F, Vec<u32>); 4] = [
        // -0.0 is the identity: the first lane's value comes through exactly.
        ("fadd", -0.0, |a, b| a + b, floats(false)),
        ("fmul", 1.0, |a, b| a * b, floats(true)),
        ("fmin", f32::NAN, fmin, with_nan.clone()),
        ("fmax", f32::NAN, fmax, with_nan),
    ];
    for (op, id, f, x) in cases {
        let text = kernel("f32", "f32", &reduce_text(op, "f32"));
        let expect = |act: &[(usize, u32)], _: usize, _: Arm| act.iter().fold(id, |acc, &(_, v)| f(acc, f32::from_bits(v))).to_bits();
        check_wave(op, &text, &x, &expect, &float_same);
    }
}

#[test]
fn exclusive_prefixes() {
    let x = ints();
    let text = kernel("i32", "i32", &|_, d| format!("v{d}:i32 = wave_prefix.iadd v5"));
    check_wave("prefix iadd", &text, &x, &|act, me, _| act[..me].iter().fold(0u32, |a, &(_, v)| a.wrapping_add(v)), &exact);
    let text = kernel("i32", "i32", &|_, d| format!("v{d}:i32 = wave_prefix.imul v5"));
    check_wave("prefix imul", &text, &x, &|act, me, _| act[..me].iter().fold(1u32, |a, &(_, v)| a.wrapping_mul(v)), &exact);
    // The first active lane gets +0.0 and 1.0.
    let sum = |act: &[(usize, u32)], me: usize, _: Arm| act[..me].iter().fold(0.0f32, |a, &(_, v)| a + f32::from_bits(v)).to_bits();
    let text = kernel("f32", "f32", &|_, d| format!("v{d}:f32 = wave_prefix.fadd v5"));
    check_wave("prefix fadd", &text, &floats(false), &sum, &exact);
    let product = |act: &[(usize, u32)], me: usize, _: Arm| act[..me].iter().fold(1.0f32, |a, &(_, v)| a * f32::from_bits(v)).to_bits();
    let text = kernel("f32", "f32", &|_, d| format!("v{d}:f32 = wave_prefix.fmul v5"));
    check_wave("prefix fmul", &text, &floats(true), &product, &exact);
}

#[test]
fn ballots_votes_and_reads() {
    let x = ints();
    let c = |v: u32| v & 4 != 0;
    for word in 0..3u32 {
        let text = kernel("i32", "i32", &|_, d| format!("v{d}:i32 = wave_ballot v24, {word}"));
        let expect = |act: &[(usize, u32)], _: usize, _: Arm| {
            act.iter().filter(|&&(l, v)| c(v) && l / 32 == word as usize).fold(0u32, |m, &(l, _)| m | 1 << (l % 32))
        };
        check_wave(&format!("ballot word {word}"), &text, &x, &expect, &exact);
    }
    let text = kernel("i32", "b1", &|_, d| format!("v{d}:b1 = wave_any v24"));
    check_wave("any", &text, &x, &|act, _, _| act.iter().any(|&(_, v)| c(v)) as u32, &exact);
    let text = kernel("i32", "b1", &|_, d| format!("v{d}:b1 = wave_all v24"));
    check_wave("all", &text, &x, &|act, _, _| act.iter().all(|&(_, v)| c(v)) as u32, &exact);
    // A condition true in exactly the odd lanes: `all` holds in the odd arm only, `any` fails in the even arm.
    let text = kernel("i32", "b1", &|_, d| format!("v{d}:b1 = wave_all v8"));
    check_wave("all odd", &text, &x, &|_, _, arm| (arm == Arm::Odd) as u32, &exact);
    let text = kernel("i32", "b1", &|_, d| format!("v{d}:b1 = wave_any v8"));
    check_wave("any odd", &text, &x, &|_, _, arm| (arm != Arm::Even) as u32, &exact);

    // Lane 1 in the odd arm, 2 in the even one, 3 at the top level.
    let text = kernel("i32", "i32", &|arm, d| {
        let lane = match arm {
            Arm::Odd => 25,
            Arm::Even => 26,
            Arm::All => 27,
        };
        format!("v{d}:i32 = wave_read_lane v5, v{lane}")
    });
    let expect = |act: &[(usize, u32)], _: usize, arm: Arm| {
        let lane = match arm {
            Arm::Odd => 1,
            Arm::Even => 2,
            Arm::All => 3,
        };
        act.iter().find(|&&(l, _)| l == lane).expect("the lane is active").1
    };
    check_wave("read_lane", &text, &x, &expect, &exact);
    let text = kernel("f32", "f32", &|_, d| format!("v{d}:f32 = wave_read_first v5"));
    check_wave("read_first", &text, &floats(false), &|act, _, _| act[0].1, &exact);
}

#[test]
fn wave_ops_in_a_loop_with_divergent_exits() {
    // Thread t runs t % 5 + 1 iterations; each iteration adds the wave-wide sum
    // (iadd over the lanes still in the loop), their xor (a lane loop on
    // wave-0.1.2, nested in this loop) and the lowest such lane's x.
    let text = "kernel @loop {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = load.device.i32 [v4]
      v6:i32 = iconst 5
      v7:i32 = urem v1, v6
      v8:i32 = iconst 1
      v9:i32 = iadd v7, v8
      v10:i32 = iconst 0
      loop block1(v10, v10) exit block2
    block1(v11:i32, v12:i32):
        v13:i32 = wave_reduce.iadd v5
        v14:i32 = wave_read_first v5
        v15:i32 = iadd v12, v13
        v22:i32 = wave_reduce.xor v5
        v23:i32 = iadd v15, v22
        v16:i32 = iadd v23, v14
        v17:i32 = iadd v11, v8
        v18:b1 = icmp uge v17, v9
        break_if v18 to block2(v16) else block3
    block3:
        jump block1(v17, v16)
  block2(v19:i32):
      v20:i32 = iconst 400
      v21:i32 = iadd v4, v20
      store.device [v21], v19
      return
}
";
    let x = ints();
    for s in setups(N as u32) {
        let w = if s.target == "gcn" { 64 } else { 32 };
        let mut mem = memory_with(8 * N, &x);
        let asm = run_setup(text, s, &mut mem);
        let got = words(&mem, 4 * N, N);
        for (t, &got) in got.iter().enumerate() {
            let wave: Vec<usize> = (t / w * w..((t / w + 1) * w).min(N)).collect();
            let mut want = 0u32;
            for it in 0..=t % 5 {
                let still: Vec<usize> = wave.iter().copied().filter(|u| u % 5 >= it).collect();
                let sum = still.iter().fold(0u32, |a, &u| a.wrapping_add(x[u]));
                let xor = still.iter().fold(0u32, |a, &u| a ^ x[u]);
                want = want.wrapping_add(sum).wrapping_add(xor).wrapping_add(x[still[0]]);
            }
            assert_eq!(got, want, "{s:?} thread {t}\n{asm}");
        }
    }
}
