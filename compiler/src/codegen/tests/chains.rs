//! Booleans as predicate chains: `&&`, `||` and `!` of compares computed
//! into one predicate (`CmpChain`), lane by lane against Rust, NaNs included.

use super::*;

/// Thread `t` loads floats `x = in[t]`, `y = in[n + t]` and ints `i = in[2n + t]`,
/// then selects 1 or 0 into `out[t]` (at `12n + 4t`) on the boolean `expr`
/// (IR lines defining `v50:b1`).
fn chain_kernel(expr: &str, n: usize) -> String {
    format!(
        "kernel @k {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:f32 = load.device.f32 [v4]
      v6:i32 = iconst {}
      v7:i32 = iadd v4, v6
      v8:f32 = load.device.f32 [v7]
      v9:i32 = iconst {}
      v10:i32 = iadd v4, v9
      v11:i32 = load.device.i32 [v10]
      v12:i32 = iconst 0
      v13:f32 = fconst 0.0
      v14:i32 = iconst 1
{expr}      v51:i32 = select v50, v14, v12
      v52:i32 = iconst {}
      v53:i32 = iadd v4, v52
      store.device [v53], v51
      return
}}
",
        4 * n,
        8 * n,
        12 * n
    )
}

/// Runs the chain on both profiles at 32 and 64 lanes and compares with `want(x, y, i)`.
fn check_chain(expr: &str, want: &dyn Fn(f32, f32, i32) -> bool) {
    let xs = [1.0f32, -2.0, f32::NAN, 0.0, 3.5, -0.0, f32::INFINITY, 2.0];
    let ys = [2.0f32, -2.0, 1.0, f32::NAN, 3.5, 0.0, 1.0, -5.0];
    let is = [0i32, 1, -1, 5, 0, 2, -7, 3];
    let n = xs.len();
    let text = chain_kernel(expr, n);
    let mut input: Vec<u32> = xs.iter().map(|x| x.to_bits()).collect();
    input.extend(ys.iter().map(|y| y.to_bits()));
    input.extend(is.iter().map(|&i| i as u32));
    for s in setups(n as u32) {
        let mut mem = memory_with(16 * n, &input);
        let asm = run_setup(&text, s, &mut mem);
        assert!(asm.contains("@p") || asm.contains("@!p"), "{s:?}: no predicated compare in\n{asm}");
        let got = words(&mem, 12 * n, n);
        for t in 0..n {
            assert_eq!(got[t], u32::from(want(xs[t], ys[t], is[t])), "{s:?} lane {t}: x={} y={} i={}\n{asm}", xs[t], ys[t], is[t]);
        }
    }
}

#[test]
fn and_or_of_compares() {
    check_chain(
        "      v40:b1 = fcmp lt v5, v8\n      v41:b1 = icmp sgt v11, v12\n      v42:b1 = fcmp eq v5, v13\n      v43:b1 = band v40, v41\n      v50:b1 = bor v43, v42\n",
        &|x, y, i| (x < y && i > 0) || x == 0.0,
    );
}

#[test]
fn negated_ordered_float_compares_hold_for_nans() {
    // !(x < y) is true when either is NaN: `y <= x || unordered(x, y)`.
    check_chain(
        "      v40:b1 = fcmp lt v5, v8\n      v41:b1 = bnot v40\n      v42:b1 = icmp ne v11, v12\n      v50:b1 = band v42, v41\n",
        &|x, y, i| i != 0 && x.partial_cmp(&y) != Some(std::cmp::Ordering::Less),
    );
    check_chain(
        "      v40:b1 = fcmp ge v5, v8\n      v41:b1 = fcmp gt v8, v13\n      v42:b1 = bor v40, v41\n      v50:b1 = bnot v42\n",
        &|x, y, _| !(x >= y || y > 0.0),
    );
}

#[test]
fn mixed_trees_materialize_what_cannot_chain() {
    // (a || b) && (c || d): one side chains first, the other is computed apart.
    check_chain(
        "      v40:b1 = fcmp lt v5, v8\n      v41:b1 = icmp slt v11, v12\n      v42:b1 = fcmp gt v5, v13\n      v43:b1 = icmp eq v11, v14\n\
      v44:b1 = bor v40, v41\n      v45:b1 = bor v42, v43\n      v50:b1 = band v44, v45\n",
        &|x, y, i| (x < y || i < 0) && (x > 0.0 || i == 1),
    );
}
