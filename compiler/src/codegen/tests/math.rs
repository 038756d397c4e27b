//! Math and bit intrinsics, lane by lane, on both profiles.

use super::*;

/// A kernel where thread `t` loads `arity` inputs (input `k` at byte
/// `4*n*k + 4*t`, of types `tys[k]`), applies `op` and stores the result at
/// `4*n*arity + 4*t`.
fn lanewise(op: &str, tys: &[&str], result: &str, n: usize) -> String {
    let mut body = String::new();
    let mut args = Vec::new();
    for (k, ty) in tys.iter().enumerate() {
        body.push_str(&format!(
            "      v{}:i32 = iconst {}\n      v{}:i32 = iadd v4, v{}\n      v{}:{ty} = load.device.{ty} [v{}]\n",
            10 + 3 * k,
            4 * n * k,
            11 + 3 * k,
            10 + 3 * k,
            12 + 3 * k,
            11 + 3 * k
        ));
        args.push(format!("v{}", 12 + 3 * k));
    }
    format!(
        "kernel @k {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
{body}      v40:{result} = {op} {}
      v41:i32 = iconst {}
      v42:i32 = iadd v4, v41
      store.device [v42], v40
      return
}}
",
        args.join(", "),
        4 * n * tys.len()
    )
}

/// Runs `op` over the input columns on both profiles and checks every lane against `expect`.
fn check(op: &str, tys: &[&str], result: &str, columns: &[Vec<u32>], expect: &dyn Fn(&[u32]) -> u32, same: &dyn Fn(u32, u32) -> bool) {
    let n = columns[0].len();
    let text = lanewise(op, tys, result, n);
    let input: Vec<u32> = columns.iter().flatten().copied().collect();
    for isa in PROFILES {
        let mut mem = memory_with(4 * n * (tys.len() + 1), &input);
        let asm = run_ir(&text, isa, n as u32, &mut mem);
        let got = words(&mem, 4 * n * tys.len(), n);
        for t in 0..n {
            let args: Vec<u32> = columns.iter().map(|c| c[t]).collect();
            let want = expect(&args);
            assert!(
                same(got[t], want),
                "{isa:?} {op} {args:x?}: got {:#x} ({}), want {want:#x} ({})\n{asm}",
                got[t],
                f32::from_bits(got[t]),
                f32::from_bits(want)
            );
        }
    }
}

fn exact(a: u32, b: u32) -> bool {
    a == b
}

/// Same bits, or both NaN, or (where the sign of a zero result is the target's choice) both zero.
fn float_same(zero_sign_free: bool) -> impl Fn(u32, u32) -> bool {
    move |a, b| {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        a == b || (x.is_nan() && y.is_nan()) || (zero_sign_free && x == 0.0 && y == 0.0)
    }
}

fn float_inputs() -> Vec<u32> {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.5,
        0.499_999_97,
        -0.499_999_97,
        1.0,
        -1.0,
        1e-40,
        -1e-40,
        8_388_607.5,
        8_388_608.0,
        -8_388_609.0,
        4_194_304.5,
        1e30,
        -1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.3,
        -1.25,
        100.75,
        -7.5,
        12_345.678,
        0.001,
        f32::MAX,
        f32::MIN_POSITIVE,
        0.999_999_94,
        -100.5,
    ];
    v.push(f32::NAN);
    v.into_iter().map(f32::to_bits).collect()
}

fn int_inputs() -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        0,
        1,
        u32::MAX,
        2,
        3,
        0x8000_0000,
        0x7fff_ffff,
        0x10,
        0x18,
        0xf0f0_f0f0,
        12345,
        (-12345i32) as u32,
        0x0001_0000,
        0xffff_0000,
        255,
        256,
        (-256i32) as u32,
        0x4000_0000,
        0xc000_0000,
        1_000_000,
        (-1_000_000i32) as u32,
        0x5555_5555,
        0xaaaa_aaaa,
        31,
        32,
        0x8000_0001,
        0xffff_fffe,
    ];
    let mut r = Rng(0x1234_5678_9abc_def1);
    for _ in 0..13 {
        v.push(r.next());
    }
    v
}

/// Highest set bit by scanning, 0xffffffff for 0.
fn scan_high(x: u32) -> u32 {
    (0..32).rev().find(|&b| x >> b & 1 == 1).unwrap_or(u32::MAX)
}

#[test]
fn float_unary_ops() {
    let x = float_inputs();
    type F = fn(f32) -> f32;
    // (flog2: `log2_within_an_ulp`; wave-0.1.2 computes it in software.)
    let cases: [(&str, F, bool); 13] = [
        ("fabs", |a| a.abs(), false),
        ("fsqrt", |a| a.sqrt(), false),
        ("frsqrt", |a| 1.0 / a.sqrt(), false),
        ("frcp", |a| 1.0 / a, false),
        ("ffloor", |a| a.floor(), false),
        ("fceil", |a| a.ceil(), false),
        ("fround", |a| a.round_ties_even(), false),
        ("ftrunc", |a| a.trunc(), false),
        ("ffract", |a| a - a.floor(), false),
        ("fsat", |a| if a.is_nan() { 0.0 } else { a.clamp(0.0, 1.0) }, true),
        ("fsin", |a| a.sin(), false),
        ("fcos", |a| a.cos(), false),
        ("fexp2", |a| a.exp2(), false),
    ];
    for (op, f, zero_free) in cases {
        check(op, &["f32"], "f32", std::slice::from_ref(&x), &|a| f(f32::from_bits(a[0])).to_bits(), &float_same(zero_free));
    }
}

/// log2 within one ulp of the exact value (the f64 log2 rounded) on both
/// profiles: the spec profile's `flog2` and wave-0.1.2's software log2
/// (`compat_log2`), at and near 1, both edges of its reduction to
/// [sqrt(1/2), sqrt(2)), every power of two, denormals, the largest float and
/// random bits; zeros, negatives, infinities and NaN exactly.
#[test]
fn log2_within_an_ulp() {
    let mut x = float_inputs();
    for e in -149..128 {
        x.push(2f32.powi(e).to_bits());
    }
    for d in 1..48u32 {
        x.extend([0x3f80_0000 + d, 0x3f80_0000 - d, 0x3f35_04f3 + d - 24, 0x3fb5_04f3 + d - 24]);
    }
    x.extend([f32::MAX.to_bits(), 1, 0x007f_ffff, 0x8000_0001, f32::NAN.to_bits()]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    while x.len() < 1024 {
        x.push(rng.next() & 0x7fff_ffff);
    }
    x.truncate(1024);
    let within = |got: u32, want: u32| {
        let (g, w) = (f32::from_bits(got), f32::from_bits(want));
        if w.is_nan() || w.is_infinite() {
            return got == want || (g.is_nan() && w.is_nan());
        }
        g.is_finite() && (i64::from(got as i32) - i64::from(want as i32)).abs() <= 1 && g.signum() == w.signum() || g == w
    };
    check("flog2", &["f32"], "f32", std::slice::from_ref(&x), &|a| (f64::from(f32::from_bits(a[0])).log2() as f32).to_bits(), &within);
}

#[test]
fn round_is_half_to_even() {
    // Spot checks that do not rely on the host's round_ties_even.
    let x: Vec<u32> = [0.5f32, 1.5, 2.5, -0.5, -1.5, -2.5, 0.499_999_97, 8_388_607.5, -0.3, 1e20].iter().map(|f| f.to_bits()).collect();
    let want: [f32; 10] = [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 0.0, 8_388_608.0, -0.0, 1e20];
    check(
        "fround",
        &["f32"],
        "f32",
        std::slice::from_ref(&x),
        &|a| want[x.iter().position(|&v| v == a[0]).expect("an input")].to_bits(),
        &exact,
    );
}

#[test]
fn integer_unary_ops() {
    let x = int_inputs();
    type F = fn(u32) -> u32;
    let cases: [(&str, F); 6] = [
        ("iabs", |a| (a as i32).wrapping_abs() as u32),
        ("popcount", |a| (0..32).filter(|b| a >> b & 1 == 1).count() as u32),
        ("bitrev", |a| (0..32).fold(0, |r, b| r | ((a >> b) & 1) << (31 - b))),
        ("ufirstbithigh", scan_high),
        // The highest bit that differs from the sign bit.
        ("sfirstbithigh", |a| {
            let sign = a >> 31;
            (0..31).rev().find(|&b| a >> b & 1 != sign).unwrap_or(u32::MAX)
        }),
        ("firstbitlow", |a| (0..32).find(|&b| a >> b & 1 == 1).unwrap_or(u32::MAX)),
    ];
    for (op, f) in cases {
        check(op, &["i32"], "i32", std::slice::from_ref(&x), &|a| f(a[0]), &exact);
    }
}

#[test]
fn binary_ops() {
    let a = int_inputs();
    let mut b = a.clone();
    b.rotate_left(7);
    type F = fn(u32, u32) -> u32;
    let ints: [(&str, F); 5] = [
        ("smin", |x, y| if (x as i32) < (y as i32) { x } else { y }),
        ("smax", |x, y| if (x as i32) > (y as i32) { x } else { y }),
        ("umin", |x, y| if x < y { x } else { y }),
        ("umax", |x, y| if x > y { x } else { y }),
        ("umulhi", |x, y| ((x as u64 * y as u64) >> 32) as u32),
    ];
    for (op, f) in ints {
        check(op, &["i32", "i32"], "i32", &[a.clone(), b.clone()], &|v| f(v[0], v[1]), &exact);
    }
    let fa = float_inputs();
    let mut fb = fa.clone();
    fb.rotate_left(5);
    // HLSL min/max: a NaN operand gives the other one.
    let pick = |x: u32, y: u32, less: bool| {
        let (p, q) = (f32::from_bits(x), f32::from_bits(y));
        if p.is_nan() {
            y
        } else if q.is_nan() || ((p < q) == less && p != q) {
            x
        } else {
            y
        }
    };
    check("fmin", &["f32", "f32"], "f32", &[fa.clone(), fb.clone()], &|v| pick(v[0], v[1], true), &float_same(true));
    check("fmax", &["f32", "f32"], "f32", &[fa.clone(), fb.clone()], &|v| pick(v[0], v[1], false), &float_same(true));
    let mut fc = fa.clone();
    fc.rotate_left(11);
    check(
        "fma",
        &["f32", "f32", "f32"],
        "f32",
        &[fa, fb, fc],
        &|v| f32::from_bits(v[0]).mul_add(f32::from_bits(v[1]), f32::from_bits(v[2])).to_bits(),
        &float_same(false),
    );
}

#[test]
fn bitcasts_are_free_renames() {
    // i32 -> f32 -> fadd, f32 -> i32 -> xor, f16 -> i16 -> zext16.
    let text = "kernel @casts {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = load.device.i32 [v4]
      v6:f32 = bitcast v5
      v7:f32 = fconst 1.0
      v8:f32 = fadd v6, v7
      v9:i32 = bitcast v8
      v10:i32 = iconst -2147483648
      v11:i32 = xor v9, v10
      v12:i32 = iconst 64
      v13:i32 = iadd v4, v12
      store.device [v13], v11
      v14:f16 = load.device.f16 [v4]
      v15:i16 = bitcast v14
      v16:i32 = zext16 v15
      v17:i32 = iconst 128
      v18:i32 = iadd v4, v17
      store.device [v18], v16
      return
}
";
    let inputs: Vec<u32> = [1.5f32, -3.0, 0.0, 1e10].iter().map(|f| f.to_bits()).collect();
    for isa in PROFILES {
        let mut mem = memory_with(192, &inputs);
        let asm = run_ir(text, isa, 4, &mut mem);
        for (t, &x) in inputs.iter().enumerate() {
            let want = (f32::from_bits(x) + 1.0).to_bits() ^ 0x8000_0000;
            assert_eq!(words(&mem, 64 + 4 * t, 1)[0], want, "{isa:?} lane {t}\n{asm}");
            assert_eq!(words(&mem, 128 + 4 * t, 1)[0], x & 0xffff, "{isa:?} lane {t}\n{asm}");
        }
        // No code for the casts: the only register-to-register move is zext16's.
        let moves = asm.lines().filter(|l| {
            let code = l.split(';').next().unwrap_or("").trim();
            code.starts_with("mov r") && code.split(',').nth(1).is_some_and(|o| o.trim().starts_with('r'))
        });
        assert_eq!(moves.count(), 1, "{asm}");
    }
}

#[test]
fn wave_0_1_2_uses_no_instruction_it_lacks_or_gets_wrong() {
    let text = lanewise("umin", &["i32", "i32"], "i32", 4)
        + &lanewise("ffract", &["f32"], "f32", 4).replace("kernel @k", "kernel @k2")
        + &lanewise("fsat", &["f32"], "f32", 4).replace("kernel @k", "kernel @k3");
    for part in text.split_inclusive("}\n") {
        let wave = compile(part, Isa::Wave, "generic", 4).expect("compiles");
        let old = compile(part, Isa::Wave012, "generic", 4).expect("compiles");
        for bad in ["umin", "ffract", "fsat"] {
            assert!(!old.contains(&format!(" {bad} ")), "{old}");
        }
        assert!(["umin ", "ffract ", "fsat "].iter().any(|m| wave.contains(m)), "the spec profile uses the instruction\n{wave}");
    }
}
