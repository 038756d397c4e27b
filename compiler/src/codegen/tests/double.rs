//! f64 on register pairs: `pack64` of two words makes a pair, the `double`
//! instructions compute on pairs, `lo32`/`hi32` read a pair's words. Each lane
//! loads three f64 (as words) and stores every op's result; expectations are
//! Rust's f64 arithmetic (IEEE, one rounding; `mul_add` fused).

use super::*;

const N: usize = 40;

/// Thread `t` reads a, b, c at `8t`, `8N + 8t`, `16N + 8t` and writes the
/// results of `ops` at `24N + 8(len*t + k)`.
fn kernel(ops: &[&str]) -> String {
    let mut body = String::new();
    let mut v = 100;
    for (k, op) in ops.iter().enumerate() {
        body.push_str(&format!(
            "      v{r}:f64 = {op}
      v{l}:i32 = lo32 v{r}
      v{h}:i32 = hi32 v{r}
      v{o}:i32 = iconst {off}
      v{a}:i32 = iadd v20, v{o}
      store.device [v{a}], v{l}
      v{a4}:i32 = iadd v{a}, v4
      store.device [v{a4}], v{h}
",
            r = v,
            l = v + 1,
            h = v + 2,
            o = v + 3,
            a = v + 4,
            a4 = v + 5,
            off = 24 * N + 8 * k
        ));
        v += 6;
    }
    format!(
        "kernel @d {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 3
      v3:i32 = shl v1, v2
      v4:i32 = iconst 4
      v5:i32 = iadd v0, v3
      v6:i32 = load.device.i32 [v5]
      v7:i32 = iadd v5, v4
      v8:i32 = load.device.i32 [v7]
      v9:f64 = pack64 v6, v8
      v10:i32 = iconst {n8}
      v11:i32 = iadd v5, v10
      v12:i32 = load.device.i32 [v11]
      v13:i32 = iadd v11, v4
      v14:i32 = load.device.i32 [v13]
      v15:f64 = pack64 v12, v14
      v16:i32 = iadd v11, v10
      v17:i32 = load.device.i32 [v16]
      v18:i32 = iadd v16, v4
      v19:i32 = load.device.i32 [v18]
      v21:f64 = pack64 v17, v19
      v22:i32 = iconst {len8}
      v23:i32 = imul v1, v22
      v20:i32 = iadd v0, v23
{body}      return
}}
",
        n8 = 8 * N,
        len8 = 8 * ops.len(),
    )
}

fn inputs() -> [Vec<f64>; 3] {
    let mut r = Rng(0x05ee_df64);
    let special = [0.0, -0.0, 1.0, -1.5, 0.1, 1e308, -1e-310, f64::INFINITY, f64::NAN, 3.0, 1.0 / 3.0, 2f64.powi(-1074)];
    let mut cols = [Vec::new(), Vec::new(), Vec::new()];
    for (k, col) in cols.iter_mut().enumerate() {
        for t in 0..N {
            let x = if t < special.len() {
                special[(t + 5 * k) % special.len()]
            } else {
                let bits = (u64::from(r.next()) << 32) | u64::from(r.next());
                // Finite values of moderate exponent, so products and sums stay finite.
                let e = 1023 - 60 + u64::from(r.next() % 120);
                f64::from_bits((bits & 0x800f_ffff_ffff_ffff) | (e << 52))
            };
            col.push(x);
        }
    }
    cols
}

fn same(a: u64, b: u64) -> bool {
    a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
}

#[test]
fn double_arithmetic_on_register_pairs() {
    let ops = ["dadd v9, v15", "dsub v9, v15", "dmul v9, v15", "ddiv v9, v15", "dfma v9, v15, v21", "dsqrt v9", "dadd v9, v9"];
    let text = kernel(&ops);
    let [a, b, c] = inputs();
    let mut words_in = Vec::new();
    for col in [&a, &b, &c] {
        for x in col {
            words_in.extend([x.to_bits() as u32, (x.to_bits() >> 32) as u32]);
        }
    }
    for isa in PROFILES {
        let mut mem = memory_with(8 * N * (3 + ops.len()), &words_in);
        let asm = run_ir(&text, isa, N as u32, &mut mem);
        assert!(asm.contains("dadd r") && asm.contains("dma r") && asm.contains("dsqrt r"), "{asm}");
        let got = words(&mem, 24 * N, 2 * N * ops.len());
        for t in 0..N {
            let (x, y, z) = (a[t], b[t], c[t]);
            let want = [x + y, x - y, x * y, x / y, x.mul_add(y, z), x.sqrt(), x + x];
            for (k, w) in want.iter().enumerate() {
                let i = 2 * (ops.len() * t + k);
                let g = u64::from(got[i]) | (u64::from(got[i + 1]) << 32);
                assert!(same(g, w.to_bits()), "{isa:?} {} ({x:e}, {y:e}, {z:e}): got {:e}, want {w:e}\n{asm}", ops[k], f64::from_bits(g));
            }
        }
    }
}

#[test]
fn f32_f64_conversions() {
    // fext64 of the low word as f32, and ftrunc64 of a (rounded to nearest even).
    let text = kernel(&["fext64 v29", "dadd v31, v9"])
        .replace("      v22:i32", "      v29:f32 = bitcast v6\n      v32:f32 = ftrunc64 v9\n      v31:f64 = fext64 v32\n      v22:i32");
    let [a, b, c] = inputs();
    let mut words_in = Vec::new();
    for col in [&a, &b, &c] {
        for x in col {
            words_in.extend([x.to_bits() as u32, (x.to_bits() >> 32) as u32]);
        }
    }
    for isa in PROFILES {
        let mut mem = memory_with(8 * N * 5, &words_in);
        let asm = run_ir(&text, isa, N as u32, &mut mem);
        let got = words(&mem, 24 * N, 4 * N);
        for t in 0..N {
            let lo = f32::from_bits(a[t].to_bits() as u32);
            let g0 = u64::from(got[4 * t]) | (u64::from(got[4 * t + 1]) << 32);
            assert!(same(g0, f64::from(lo).to_bits()), "{isa:?} fext64 {lo:e}: got {:e}\n{asm}", f64::from_bits(g0));
            let w1 = f64::from(a[t] as f32) + a[t];
            let g1 = u64::from(got[4 * t + 2]) | (u64::from(got[4 * t + 3]) << 32);
            assert!(same(g1, w1.to_bits()), "{isa:?} ftrunc64 {:e}: got {:e}, want {w1:e}\n{asm}", a[t], f64::from_bits(g1));
        }
    }
}

/// Many f64 values live at once: pairs take two adjacent registers, never
/// overlap a live value, and `.registers` counts the high words.
#[test]
fn pairs_under_register_pressure() {
    let mut body = String::new();
    // v9 (a) scaled by 1..=P into P live pairs (wave-0.1.2 has 32 registers), then summed in reverse order.
    const P: usize = 10;
    for k in 0..P {
        body.push_str(&format!(
            "      v{c}:i32 = iconst {lo}\n      v{h}:i32 = iconst {hi}\n      v{p}:f64 = pack64 v{c}, v{h}\n      v{m}:f64 = dmul v9, v{p}\n",
            c = 200 + 4 * k,
            h = 201 + 4 * k,
            p = 202 + 4 * k,
            m = 203 + 4 * k,
            lo = (k as f64 + 1.0).to_bits() as u32,
            hi = ((k as f64 + 1.0).to_bits() >> 32) as u32
        ));
    }
    let mut acc = 203 + 4 * (P - 1);
    for k in (0..P - 1).rev() {
        body.push_str(&format!("      v{}:f64 = dadd v{acc}, v{}\n", 300 + k, 203 + 4 * k));
        acc = 300 + k;
    }
    let text = kernel(&["dadd v300, v15"]).replace("      v22:i32", &format!("{body}      v22:i32"));
    let [a, b, c] = inputs();
    let mut words_in = Vec::new();
    for col in [&a, &b, &c] {
        for x in col {
            words_in.extend([x.to_bits() as u32, (x.to_bits() >> 32) as u32]);
        }
    }
    for isa in PROFILES {
        let mut mem = memory_with(8 * N * 4, &words_in);
        let asm = run_ir(&text, isa, N as u32, &mut mem);
        let regs: u32 = asm.lines().find_map(|l| l.strip_prefix(".registers ")).and_then(|n| n.trim().parse().ok()).expect(".registers");
        assert!(regs >= 2 * P as u32 && regs <= 32, "{regs} registers\n{asm}");
        let got = words(&mem, 24 * N, 2 * N);
        for t in 0..N {
            let x = a[t];
            let mut s = x * P as f64;
            for k in (0..P - 1).rev() {
                s += x * (k as f64 + 1.0);
            }
            let w = s + b[t];
            let g = u64::from(got[2 * t]) | (u64::from(got[2 * t + 1]) << 32);
            assert!(same(g, w.to_bits()), "{isa:?} ({x:e}): got {:e}, want {w:e}\n{asm}", f64::from_bits(g));
        }
    }
}
