//! Atomics on device and local memory from many lanes of several waves,
//! barriers and fences around local memory, and the wave-0.1.2 refusals.

use super::*;
use crate::diag::Span;
use crate::ir::{AtomicOp, InstData};

/// Threads of the one group: three waves of 32 and a partial one (or 64 + 36).
const N: usize = 100;
/// Byte address of the four atomic words (initial values in, final values out).
const CELLS: usize = 4 * N;
/// Byte address of the per-thread results.
const OUT: usize = CELLS + 16;

/// Thread `t` applies `atomic` (text with `{addr}` and `{x}`, defining v15) to
/// cell `t % 4` with its input `x[t]` (at `4*t`); `returning` stores v15 at
/// `OUT + 4*t`. With `local`, the cells live in local memory: threads 0..4 copy
/// them in and out around fence + barrier pairs.
fn cell_kernel(atomic: &str, local: bool, returning: bool) -> String {
    let store_old = if returning {
        format!("      v18:i32 = iconst {OUT}\n      v19:i32 = iadd v4, v18\n      store.device [v19], v15\n")
    } else {
        String::new()
    };
    let head = format!(
        "kernel @atomics{} {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = load.device.i32 [v4]
      v6:i32 = iconst 3
      v7:i32 = and v1, v6
      v8:i32 = shl v7, v2
      v9:i32 = iconst {CELLS}
      v10:i32 = iadd v0, v9
",
        if local { " local_memory 16" } else { "" }
    );
    if !local {
        let op = atomic.replace("{addr}", "v11").replace("{x}", "v5");
        return format!("{head}      v11:i32 = iadd v10, v8\n      {op}\n{store_old}      return\n}}\n");
    }
    let op = atomic.replace("{addr}", "v8").replace("{x}", "v5");
    format!(
        "{head}      v11:i32 = iconst 4
      v12:b1 = icmp ult v1, v11
      if v12 then block1 else block2 merge block3
    block1:
        v13:i32 = iadd v10, v3
        v14:i32 = load.device.i32 [v13]
        store.local [v3], v14
        jump block3()
    block2:
        jump block3()
  block3:
      fence.workgroup
      barrier
      {op}
      fence.workgroup
      barrier
      if v12 then block4 else block5 merge block6
    block4:
        v16:i32 = load.local.i32 [v3]
        v17:i32 = iadd v10, v3
        store.device [v17], v16
        jump block6()
    block5:
        jump block6()
  block6:
{store_old}      return
}}
"
    )
}

/// Runs a cell kernel; returns (final cells, per-thread results).
fn run_cells(text: &str, s: Setup, x: &[u32], init: [u32; 4]) -> (Vec<u32>, Vec<u32>, String) {
    let mut input = x.to_vec();
    input.extend(init);
    let mut mem = memory_with(OUT + 4 * N, &input);
    let asm = run_setup(text, s, &mut mem);
    (words(&mem, CELLS, 4), words(&mem, OUT, N), asm)
}

/// The inputs of the threads that use cell `k`.
fn lanes_of(x: &[u32], k: usize) -> Vec<u32> {
    x.iter().enumerate().filter(|(t, _)| t % 4 == k).map(|(_, &v)| v).collect()
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

#[test]
fn read_modify_write_atomics_from_many_lanes() {
    let mut r = Rng(0xa70_0000_1111);
    let random: Vec<u32> = (0..N).map(|i| if i % 5 == 2 { r.next() | 0x8000_0000 } else { r.next() }).collect();
    let small: Vec<u32> = (0..N).map(|_| 1 + r.next() % 1000).collect();
    let init = [0x1234_5678, 0x8000_0005, 0x7fff_0000, 0x0001_0000];
    for op in AtomicOp::ALL {
        let x = if matches!(op, AtomicOp::Add | AtomicOp::Sub) { &small } else { &random };
        for (local, returning) in [(false, true), (false, false), (true, true), (true, false)] {
            let text = cell_kernel(
                &format!("v15:i32 = atomic_rmw.{}.{} [{{addr}}], {{x}}", op.name(), if local { "local" } else { "device" }),
                local,
                returning,
            );
            for s in setups(N as u32) {
                if s.isa == Isa::Wave012 && matches!(op, AtomicOp::SMin | AtomicOp::SMax) {
                    continue; // refused, see below
                }
                let (cells, olds, asm) = run_cells(&text, s, x, init);
                let what = format!("{} local={local} returning={returning} {s:?}", op.name());
                for k in 0..4 {
                    let mine = lanes_of(x, k);
                    let fold = |f: fn(u32, u32) -> u32| mine.iter().fold(init[k], |a, &v| f(a, v));
                    let want = match op {
                        AtomicOp::Add => fold(|a, v| a.wrapping_add(v)),
                        AtomicOp::Sub => fold(|a, v| a.wrapping_sub(v)),
                        AtomicOp::And => fold(|a, v| a & v),
                        AtomicOp::Or => fold(|a, v| a | v),
                        AtomicOp::Xor => fold(|a, v| a ^ v),
                        AtomicOp::SMin => fold(|a, v| (a as i32).min(v as i32) as u32),
                        AtomicOp::SMax => fold(|a, v| (a as i32).max(v as i32) as u32),
                        AtomicOp::UMin => fold(|a, v| a.min(v)),
                        AtomicOp::UMax => fold(|a, v| a.max(v)),
                        // Some lane's value is left; checked below.
                        AtomicOp::Xchg => cells[k],
                    };
                    assert_eq!(cells[k], want, "{what}: cell {k}\n{asm}");
                    if !returning {
                        continue;
                    }
                    let old: Vec<u32> = olds.iter().enumerate().filter(|(t, _)| t % 4 == k).map(|(_, &v)| v).collect();
                    match op {
                        // Some order of the lanes produced the old values: the steps between
                        // consecutive states are exactly the lanes' inputs.
                        AtomicOp::Add | AtomicOp::Sub => {
                            let mut states = old.clone();
                            states.push(cells[k]);
                            let mut states = sorted(states);
                            if op == AtomicOp::Sub {
                                states.reverse();
                            }
                            assert_eq!(states[0], init[k], "{what}");
                            let steps: Vec<u32> = states.windows(2).map(|w| w[1].abs_diff(w[0])).collect();
                            assert_eq!(sorted(steps), sorted(mine.clone()), "{what}: steps");
                        }
                        // Every value was returned once, except the one left in the cell.
                        AtomicOp::Xchg => {
                            let mut all = old.clone();
                            all.push(cells[k]);
                            let mut given = mine.clone();
                            given.push(init[k]);
                            assert_eq!(sorted(all), sorted(given), "{what}");
                        }
                        // Monotone ops: every old value lies between the initial and final ones.
                        AtomicOp::And => assert!(old.iter().all(|&o| o & !init[k] == 0 && o & cells[k] == cells[k]), "{what}"),
                        AtomicOp::Or => assert!(old.iter().all(|&o| o & init[k] == init[k] && o & !cells[k] == 0), "{what}"),
                        AtomicOp::UMin => assert!(old.iter().all(|&o| o <= init[k] && o >= cells[k]), "{what}"),
                        AtomicOp::UMax => assert!(old.iter().all(|&o| o >= init[k] && o <= cells[k]), "{what}"),
                        AtomicOp::SMin => assert!(old.iter().all(|&o| o as i32 <= init[k] as i32 && o as i32 >= cells[k] as i32), "{what}"),
                        AtomicOp::SMax => assert!(old.iter().all(|&o| o as i32 >= init[k] as i32 && o as i32 <= cells[k] as i32), "{what}"),
                        // Each old value is the initial one xor some subset of the inputs; only the first is pinned down (below).
                        AtomicOp::Xor => {}
                    }
                    // The first lane to touch the cell saw its initial value.
                    assert!(old.contains(&init[k]), "{what}");
                }
                // An unused result is the non-returning form (no destination register).
                let line = asm.lines().find(|l| l.contains("atomic_")).expect("an atomic");
                let operands = line.split(';').next().unwrap_or("").matches(", ").count() + 1;
                if matches!(op, AtomicOp::SMin | AtomicOp::SMax) {
                    assert!(asm.contains("atomic_cas r"), "signed min/max use a CAS loop\n{asm}");
                } else {
                    let want = 2 + usize::from(returning) + usize::from(!local);
                    assert_eq!(operands, want, "{what}: `{line}`");
                }
            }
        }
    }
}

#[test]
fn compare_and_swap() {
    // One shot: every lane tries 0 -> t + 1 on cell t % 4. Exactly one lane per cell wins.
    for local in [false, true] {
        let op = "v29:i32 = iconst 1\n      v30:i32 = iconst 0\n      v31:i32 = iadd v1, v29\n      v15:i32 = atomic_cas.SPACE [{addr}], v30, v31";
        let text = cell_kernel(op, local, true).replace("SPACE", if local { "local" } else { "device" });
        for target in ["generic", "gcn"] {
            let (cells, olds, asm) = run_cells(&text, Setup::new(Isa::Wave, target, N as u32), &[0; N], [0; 4]);
            for (k, &cell) in cells.iter().enumerate() {
                let mine: Vec<(usize, u32)> = olds.iter().copied().enumerate().filter(|(t, _)| t % 4 == k).collect();
                let winners: Vec<usize> = mine.iter().filter(|(_, o)| *o == 0).map(|(t, _)| *t).collect();
                assert_eq!(winners.len(), 1, "local={local} cell {k}: {mine:?}\n{asm}");
                assert_eq!(cell, winners[0] as u32 + 1, "local={local}");
                assert!(mine.iter().all(|&(t, o)| t == winners[0] || o == cell), "local={local}: losers see the winner's value");
            }
        }
    }
}

#[test]
fn a_compare_and_swap_loop_counts_every_lane_once() {
    // ticket = the value this lane moved from cur to cur + 1, retrying until its CAS succeeds.
    for local in [false, true] {
        let space = if local { "local" } else { "device" };
        let addr = if local { "v8" } else { "v11" };
        let text = cell_kernel("LOOP", local, true).replace(
            "      LOOP\n",
            &format!(
                "      v40:i32 = iconst 1
      loop block10() exit block11
    block10:
        v41:i32 = load.{space}.i32 [{addr}]
        v42:i32 = iadd v41, v40
        v43:i32 = atomic_cas.{space} [{addr}], v41, v42
        v44:b1 = icmp eq v43, v41
        break_if v44 to block11(v43) else block12
    block12:
        jump block10()
  block11(v15:i32):
"
            ),
        );
        for target in ["generic", "gcn"] {
            let (cells, olds, asm) = run_cells(&text, Setup::new(Isa::Wave, target, N as u32), &[0; N], [0; 4]);
            for (k, &cell) in cells.iter().enumerate() {
                let tickets: Vec<u32> = olds.iter().enumerate().filter(|(t, _)| t % 4 == k).map(|(_, &o)| o).collect();
                assert_eq!(cell, tickets.len() as u32, "local={local}\n{asm}");
                assert_eq!(sorted(tickets.clone()), (0..tickets.len() as u32).collect::<Vec<u32>>(), "local={local}");
            }
        }
    }
}

#[test]
fn returning_atomics_never_write_r0() {
    // No kernel arguments: r0 is free when the atomic's result is defined.
    let text = "kernel @no_args {
  block0:
      v0:i32 = iconst 256
      v1:i32 = iconst 1
      v2:i32 = atomic_rmw.add.device [v0], v1
      v3:i32 = special sr_thread_id_x
      v4:i32 = iconst 2
      v5:i32 = shl v3, v4
      store.device [v5], v2
      return
}
";
    for isa in PROFILES {
        let mut mem = memory_with(260, &[]);
        let asm = run_ir(text, isa, 40, &mut mem);
        assert!(!asm.contains("atomic_add r0,"), "{asm}");
        assert_eq!(sorted(words(&mem, 0, 40)), (0..40).collect::<Vec<u32>>(), "{isa:?}\n{asm}");
        assert_eq!(words(&mem, 256, 1), vec![40]);
    }
}

#[test]
fn wave_0_1_2_refuses_what_it_cannot_run() {
    for (op, code) in [
        ("v15:i32 = atomic_cas.device [{addr}], v5, v5", "E0406"),
        ("v15:i32 = atomic_rmw.smin.device [{addr}], {x}", "E0407"),
        ("v15:i32 = atomic_rmw.smax.device [{addr}], {x}", "E0407"),
    ] {
        for local in [false, true] {
            let text =
                cell_kernel(op, local, true).replace("atomic_cas.device", if local { "atomic_cas.local" } else { "atomic_cas.device" });
            let text = if local { text.replace("smin.device", "smin.local").replace("smax.device", "smax.local") } else { text };
            let mut f = ir::parse_function(&text).expect("parses");
            // Give the atomic a span: the diagnostic must point at it.
            let inst = f
                .insts
                .iter()
                .find(|(_, d)| matches!(d, InstData::AtomicRmw { .. } | InstData::AtomicCas { .. }))
                .map(|(i, _)| i)
                .expect("an atomic");
            f.spans[inst] = Span::new(100, 120);
            let d = compile_function(&f, &text, Isa::Wave012, "generic", N as u32).expect_err("refused");
            assert_eq!(d.code, code, "{}", d.message);
            assert!(d.message.contains("wave-0.1.2"), "{}", d.message);
            assert_eq!(d.labels.first().map(|l| l.0), Some(Span::new(100, 120)));
            // The spec profile compiles it.
            compile_function(&f, &text, Isa::Wave, "generic", N as u32).expect("the spec profile has it");
        }
    }
}

#[test]
fn groupshared_round_trip_across_waves() {
    // local[t] = 3 * x + group; barrier; out[t] = local[(t + 37) % N] (written by another wave).
    let text = format!(
        "kernel @shared local_memory {} {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = special sr_workgroup_id_x
      v3:i32 = iconst {N}
      v4:i32 = imul v2, v3
      v5:i32 = iadd v4, v1
      v6:i32 = iconst 2
      v7:i32 = shl v5, v6
      v8:i32 = iadd v0, v7
      v9:i32 = load.device.i32 [v8]
      v10:i32 = iconst 3
      v11:i32 = imul v9, v10
      v12:i32 = iadd v11, v2
      v13:i32 = shl v1, v6
      store.local [v13], v12
      fence.workgroup
      barrier
      v14:i32 = iconst 37
      v15:i32 = iadd v1, v14
      v16:i32 = urem v15, v3
      v17:i32 = shl v16, v6
      v18:i32 = load.local.i32 [v17]
      v19:i32 = iconst {}
      v20:i32 = iadd v8, v19
      store.device [v20], v18
      return
}}
",
        4 * N,
        8 * N
    );
    let mut r = Rng(0x5ba1_2ed0);
    let x: Vec<u32> = (0..2 * N).map(|_| r.next()).collect();
    for mut s in setups(N as u32) {
        s.groups = 2;
        let mut mem = memory_with(16 * N, &x);
        let asm = run_setup(&text, s, &mut mem);
        assert!(asm.contains(&format!(".local_memory {}", 4 * N)), "{asm}");
        // The barrier orders the group's memory; wave-0.1.2 also keeps the fence before it.
        assert!(asm.contains("barrier"), "{asm}");
        assert_eq!(asm.contains("fence_acq_rel .workgroup"), s.isa == Isa::Wave012, "{s:?}\n{asm}");
        let got = words(&mem, 8 * N, 2 * N);
        for g in 0..2 {
            for t in 0..N {
                let want = x[g * N + (t + 37) % N].wrapping_mul(3).wrapping_add(g as u32);
                assert_eq!(got[g * N + t], want, "{s:?} group {g} thread {t}\n{asm}");
            }
        }
    }
}

/// Fences and barriers stay as written, but that a `barrier` orders the
/// workgroup's memory itself (spec v0.4 §6.12): the spec profile drops a
/// workgroup fence right before one.
#[test]
fn fences_and_barriers_are_emitted_as_written() {
    let text = "kernel @sync {
  block0:
      fence.workgroup
      barrier
      fence.device
      barrier
      fence.device
      return
}
";
    for isa in PROFILES {
        let asm = compile(text, isa, "generic", 64).expect("compiles");
        let code: Vec<&str> =
            asm.lines().map(|l| l.split(';').next().unwrap_or("").trim()).filter(|l| !l.is_empty() && !l.starts_with('.')).collect();
        let written = ["fence_acq_rel .workgroup", "barrier", "fence_acq_rel .device", "barrier", "fence_acq_rel .device", "halt"];
        let expected: &[&str] = if isa == Isa::Wave { &written[1..] } else { &written };
        assert_eq!(code, expected, "{asm}");
        wavesim::parse(&asm, isa.sim_profile()).expect("the simulator accepts it");
    }
}
