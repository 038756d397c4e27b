//! Interop with the published WAVE toolchain: every execution test compiled with
//! `--isa wave-0.1.2` (at -O0 and -O) is assembled by wave-asm 0.1.2 and run
//! in-process on wave-emu 0.1.2, and must produce the expected buffers. The same
//! listing also runs on our simulator, whose buffers must agree with wave-emu's.

use std::path::PathBuf;
use wavec::driver::{Isa, OptLevel};
use wavec::run;
use wavec_tests::*;

fn execution_tests() -> Vec<PathBuf> {
    let mut v = files_with_ext("tests/corpus", "test");
    v.extend(files_with_ext("examples", "test"));
    // The language tests written for 32-lane waves (wave-emu runs 32 lanes here).
    v.extend(files_with_ext("tests/lang", "test").into_iter().filter(|p| !p.to_string_lossy().ends_with("_w64.test")));
    v
}

/// Codes with which the compiler refuses a kernel that does not fit WAVE 0.1.2.
const NOT_FOR_012: &[&str] = &["E0403", "E0406", "E0407"];

#[test]
fn execution_tests_pass_on_wave_emu_0_1_2() {
    let tests = execution_tests();
    assert!(tests.len() >= 12, "only {} execution tests", tests.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in tests {
        let test = run::load_test_file(&path).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        let pipeline = run::parse_pipeline(&test.pipeline_text).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
        for opt in [OptLevel::O0, OptLevel::O] {
            let mut opts = options(Isa::Wave012, opt);
            test.flags.apply(&mut opts);
            run::apply_pipeline(&pipeline, &mut opts);
            let label = format!("{} ({opt:?})", path.display());
            let c = wavec::driver::compile_input(&test.input(), &opts, true);
            let compiled = match c.result {
                Ok(compiled) => compiled,
                // Kernels that do not fit 0.1.2 are refused by the compiler (the execution test lists them).
                Err(d) if d.iter().any(|d| NOT_FOR_012.contains(&d.code)) => continue,
                Err(d) => {
                    failures.push(format!("{label}: does not compile:\n{}", wavec::diag::render(&c.sources, &d)));
                    continue;
                }
            };
            let emu = match run_on_wave_emu(&pipeline, &compiled, 50_000_000) {
                Ok(p) => p,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            for check in &emu.results {
                checked += 1;
                let c = run::compare(check.rule, &emu.buffers[check.actual], &emu.buffers[check.expected]);
                if !c.passed() {
                    failures.push(format!(
                        "{label}: wave-emu result `{}` does not match:\n{}",
                        check.name,
                        run::describe_mismatch(check, &c, &emu.buffers[check.actual], &emu.buffers[check.expected])
                    ));
                }
            }
            // Our simulator on the same listing must leave the same bytes.
            let mut ropts = run::RunOptions::new(opts.target.clone());
            ropts.compile = opts.clone();
            let ours = run::execute_in(&pipeline, &compiled, &c.sources, &ropts);
            if ours.exit_code != 0 {
                failures.push(format!("{label}: wavesim exit {}:\n{}", ours.exit_code, ours.stderr));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(checked >= 150, "only {checked} results were checked on wave-emu");
    eprintln!("{checked} results matched on wave-emu 0.1.2");
}

/// The check above can fail: a spec-profile listing (destination-first integer
/// `cvt` names) computes different casts on wave-emu 0.1.2.
/// Spill slots in the device-memory scratch buffer run on wave-emu 0.1.2: the
/// harness places the buffer as `wavec run` does (`run::layout`) and passes its
/// address in the register after the kernel's arguments (an address outside
/// device memory there makes wave-emu fault: the spills go through it).
#[test]
fn scratch_spills_run_on_wave_emu() {
    let path = repo_root().join("tests/corpus/scratch_spill.test");
    let test = run::load_test_file(&path).expect("test loads");
    let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline parses");
    for opt in [OptLevel::O0, OptLevel::O] {
        let mut opts = options(Isa::Wave012, opt);
        run::apply_pipeline(&pipeline, &mut opts);
        let c = wavec::driver::compile_input(&test.input(), &opts, true);
        let compiled = c.result.unwrap_or_else(|d| panic!("{}", wavec::diag::render(&c.sources, &d)));
        let scratch = compiled.interface.scratch.clone().expect("spills go to the scratch buffer");
        let emu = run_on_wave_emu(&pipeline, &compiled, 50_000_000).unwrap_or_else(|e| panic!("{opt:?}: {e}"));
        for check in &emu.results {
            let cmp = run::compare(check.rule, &emu.buffers[check.actual], &emu.buffers[check.expected]);
            assert!(
                cmp.passed(),
                "{opt:?}: {}",
                run::describe_mismatch(check, &cmp, &emu.buffers[check.actual], &emu.buffers[check.expected])
            );
        }
        // A scratch address past the end of device memory: wave-emu faults.
        let e = run_on_wave_emu_with(&pipeline, &compiled, 50_000_000, &[(scratch.register, 0xffff_0000)]).expect_err("faults");
        assert!(e.contains("wave-emu run"), "{opt:?}: {e}");
    }
}

#[test]
fn wave_emu_notices_the_spec_cvt_spelling() {
    let path = repo_root().join("tests/corpus/casts.test");
    let test = run::load_test_file(&path).expect("casts.test");
    let pipeline = run::parse_pipeline(&test.pipeline_text).expect("pipeline");
    let mut opts = options(Isa::Wave, OptLevel::O);
    opts.entry = pipeline.shader.entry.clone();
    let compiled = compile_text(&test.source.name, &test.source.text, &opts);
    let emu = run_on_wave_emu(&pipeline, &compiled, 50_000_000).expect("runs");
    let all_pass = emu.results.iter().all(|c| run::compare(c.rule, &emu.buffers[c.actual], &emu.buffers[c.expected]).passed());
    assert!(!all_pass, "wave-emu 0.1.2 should disagree with spec-v0.4 cvt names");
}

// ---------------------------------------------------------------------------
// The back end's intrinsics, atomics, barriers, wave ops and local memory,
// compiled from IR text for wave-0.1.2: wave-asm 0.1.2 must accept each listing
// and wave-emu 0.1.2 must leave exactly the memory our simulator leaves
// (whose results the back-end tests in `compiler/src/codegen/tests` check
// against plain Rust), at 32 and 64 lanes per wave.

/// Threads per group in these kernels (a partial last wave at both widths).
const N: u32 = 100;

/// IR that computes thread `t`'s byte offset `v4 = 4*t` and loads `v5:f32`,
/// `v6:f32`, `v7:i32`, `v8:i32` from the four input columns of `n` words.
fn columns_head(name: &str, local_memory: u32, n: u32) -> String {
    let lm = if local_memory > 0 { format!(" local_memory {local_memory}") } else { String::new() };
    format!(
        "kernel @{name}{lm} {{
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:f32 = load.device.f32 [v4]
      v90:i32 = iconst {}
      v91:i32 = iadd v4, v90
      v6:f32 = load.device.f32 [v91]
      v92:i32 = iconst {}
      v93:i32 = iadd v4, v92
      v7:i32 = load.device.i32 [v93]
      v94:i32 = iconst {}
      v95:i32 = iadd v4, v94
      v8:i32 = load.device.i32 [v95]
",
        4 * n,
        8 * n,
        12 * n
    )
}

/// Random input columns: two of floats (special values mixed in), two of ints.
fn column_inputs(n: u32, seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let specials = [0.0f32, -0.0, 0.5, -2.5, 1.5, f32::NAN, f32::INFINITY, -1e-40, 8_388_607.5];
    let mut out = Vec::new();
    for col in 0..4 {
        for i in 0..n as usize {
            let bits = r.next() as u32;
            let w = if col < 2 {
                if i % 4 == 0 {
                    specials[(bits as usize) % specials.len()].to_bits()
                } else {
                    (((bits % 20001) as f32 - 10000.0) * 2f32.powi((bits >> 20) as i32 % 16 - 8)).to_bits()
                }
            } else if i % 5 == 0 {
                [0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff][(bits as usize) % 5]
            } else {
                bits
            };
            out.extend(w.to_le_bytes());
        }
    }
    out
}

/// Compiles `text` for wave-0.1.2 and runs it on wave-emu and wavesim at 32 and 64 lanes.
fn agree_on_wave_emu(label: &str, text: &str, groups: u32, memory: &[u8], failures: &mut Vec<String>) {
    let listing = match compile_ir(text, Isa::Wave012, "generic", N) {
        Ok(l) => l,
        Err(d) => {
            failures.push(format!("{label}: {}: {}", d.code, d.message));
            return;
        }
    };
    for w in [32, 64] {
        let emu = run_listing_on_wave_emu(&listing, groups, w, memory);
        let sim = run_listing_on_wavesim(&listing, Isa::Wave012, groups, w, memory);
        match (emu, sim) {
            (Ok(e), Ok(s)) => {
                let word = |m: &[u8], at: usize| u32::from_le_bytes(m[at..at + 4].try_into().expect("4 bytes"));
                // NaNs compare equal: which NaN an operation on two NaNs (or inf * 0)
                // returns is the host's choice in both emulators, and WAVE does not define it.
                let nan = |x: u32| f32::from_bits(x).is_nan();
                let differ =
                    (0..e.len() / 4).map(|i| 4 * i).find(|&at| word(&e, at) != word(&s, at) && !(nan(word(&e, at)) && nan(word(&s, at))));
                if let Some(at) = differ {
                    failures.push(format!(
                        "{label} (W={w}): wave-emu and wavesim differ first at byte {at}: {:#x} vs {:#x}\n{}",
                        word(&e, at),
                        word(&s, at),
                        listing.asm
                    ));
                } else if e == memory {
                    failures.push(format!("{label} (W={w}): the kernel wrote nothing"));
                }
            }
            (e, s) => failures.push(format!("{label} (W={w}): wave-emu {:?}, wavesim {:?}\n{}", e.err(), s.err(), listing.asm)),
        }
    }
}

#[test]
fn math_intrinsics_agree_with_wave_emu() {
    let ops: Vec<(&str, &str)> =
        ["fabs", "fsqrt", "frsqrt", "frcp", "ffloor", "fceil", "fround", "ftrunc", "ffract", "fsat", "fsin", "fcos", "fexp2", "flog2"]
            .iter()
            .map(|op| (*op, "f32 = OP v5"))
            .chain(["iabs", "popcount", "bitrev", "ufirstbithigh", "sfirstbithigh", "firstbitlow"].iter().map(|op| (*op, "i32 = OP v7")))
            .chain(["smin", "smax", "umin", "umax", "umulhi"].iter().map(|op| (*op, "i32 = OP v7, v8")))
            .chain([("fmin", "f32 = OP v5, v6"), ("fmax", "f32 = OP v5, v6"), ("fma", "f32 = OP v5, v6, v5")])
            .collect();
    let mut text = columns_head("math", 0, N);
    for (k, (op, form)) in ops.iter().enumerate() {
        let v = 100 + 3 * k;
        text.push_str(&format!(
            "      v{v}:{}\n      v{}:i32 = iconst {}\n      v{}:i32 = iadd v4, v{}\n      store.device [v{}], v{v}\n",
            form.replace("OP", op),
            v + 1,
            4 * N * (4 + k as u32),
            v + 2,
            v + 1,
            v + 2
        ));
    }
    text.push_str("      return\n}\n");
    let mut memory = column_inputs(N, 11);
    memory.resize(4 * N as usize * (4 + ops.len()), 0xa5);
    let mut failures = Vec::new();
    agree_on_wave_emu("math", &text, 1, &memory, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A wave op inside both arms of an `if` on the thread's parity and at the top
/// level; `op` defines `v{d}` from `v7` (i32 x), `v5` (f32 x), `v20` (b1), `v21` (lane 1).
fn wave_kernel(op: &str, ty: &str) -> String {
    let line = |d: usize| op.replace("{d}", &d.to_string());
    let (cast, keep) = if ty == "b1" { ("        v{o}:i32 = select v{d}, v22, v23\n", "i32") } else { ("", ty) };
    let conv = |d: usize, o: usize| cast.replace("{o}", &o.to_string()).replace("{d}", &d.to_string());
    let out = |d: usize, o: usize| if ty == "b1" { o } else { d };
    format!(
        "{}      v9:i32 = iconst 4
      v10:i32 = and v7, v9
      v23:i32 = iconst 0
      v20:b1 = icmp ne v10, v23
      v21:i32 = iconst 1
      v22:i32 = iconst 1
      v24:i32 = and v1, v22
      v25:b1 = icmp eq v24, v22
      if v25 then block1 else block2 merge block3
    block1:
        {}
{}        jump block3(v{})
    block2:
        {}
{}        jump block3(v{})
  block3(v12:{keep}):
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
        columns_head("wave", 0, N),
        line(30),
        conv(30, 31),
        out(30, 31),
        line(32),
        conv(32, 33),
        out(32, 33),
        16 * N,
        line(34),
        conv(34, 35).replace("        ", "      "),
        20 * N,
        out(34, 35),
    )
}

#[test]
fn wave_ops_agree_with_wave_emu() {
    let mut cases: Vec<(String, &str)> = Vec::new();
    for op in ["iadd", "imul", "smin", "smax", "umin", "umax", "and", "or", "xor"] {
        cases.push((format!("v{{d}}:i32 = wave_reduce.{op} v7"), "i32"));
    }
    for op in ["fadd", "fmul", "fmin", "fmax"] {
        cases.push((format!("v{{d}}:f32 = wave_reduce.{op} v5"), "f32"));
    }
    cases.push(("v{d}:i32 = wave_prefix.iadd v7".into(), "i32"));
    cases.push(("v{d}:i32 = wave_prefix.imul v7".into(), "i32"));
    cases.push(("v{d}:f32 = wave_prefix.fadd v5".into(), "f32"));
    cases.push(("v{d}:f32 = wave_prefix.fmul v5".into(), "f32"));
    for word in 0..3 {
        cases.push((format!("v{{d}}:i32 = wave_ballot v20, {word}"), "i32"));
    }
    cases.push(("v{d}:b1 = wave_any v20".into(), "b1"));
    cases.push(("v{d}:b1 = wave_all v20".into(), "b1"));
    cases.push(("v{d}:i32 = wave_read_lane v7, v21".into(), "i32"));
    cases.push(("v{d}:f32 = wave_read_first v5".into(), "f32"));
    let mut memory = column_inputs(N, 12);
    memory.resize(24 * N as usize, 0xa5);
    let mut failures = Vec::new();
    for (op, ty) in &cases {
        agree_on_wave_emu(op, &wave_kernel(op, ty), 1, &memory, &mut failures);
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn atomics_barriers_and_local_memory_agree_with_wave_emu() {
    // Eight device cells and eight local ones (copied in and out by threads
    // 0..8 around fence + barrier pairs); every thread applies each op to
    // cell `op` with its own value and stores the old value.
    let ops = ["add", "sub", "and", "or", "xor", "xchg", "umin", "umax"];
    let cells = 16 * N;
    let olds = cells + 64;
    let mut text = columns_head("atomics", 32, N);
    text.push_str(&format!(
        "      v40:i32 = iconst {cells}
      v41:i32 = iadd v0, v40
      v42:i32 = iconst 8
      v43:b1 = icmp ult v1, v42
      if v43 then block1 else block2 merge block3
    block1:
        v44:i32 = iconst 32
        v45:i32 = iadd v41, v44
        v46:i32 = iadd v45, v3
        v47:i32 = load.device.i32 [v46]
        store.local [v3], v47
        jump block3()
    block2:
        jump block3()
  block3:
      fence.workgroup
      barrier
"
    ));
    for (k, op) in ops.iter().enumerate() {
        // Device cell k gets every thread's v8 (old value stored) and then the sum of
        // the two old values (non-returning); local cell k gets every thread's v7.
        let [a, b, c, e, f, g, h] = [0, 1, 2, 3, 4, 5, 6].map(|i| 100 + 8 * k + i);
        text.push_str(&format!(
            "      v{a}:i32 = iconst {}
      v{b}:i32 = iadd v41, v{a}
      v{c}:i32 = atomic_rmw.{op}.device [v{b}], v8
      v{e}:i32 = atomic_rmw.{op}.local [v{a}], v7
      v{f}:i32 = iconst {}
      v{g}:i32 = iadd v4, v{f}
      store.device [v{g}], v{c}
      v{h}:i32 = iadd v{c}, v{e}
      v{}:i32 = atomic_rmw.{op}.device [v{b}], v{h}
",
            4 * k,
            olds + 4 * N * k as u32,
            h + 1
        ));
    }
    text.push_str(
        "      fence.workgroup
      barrier
      if v43 then block4 else block5 merge block6
    block4:
        v48:i32 = load.local.i32 [v3]
        v49:i32 = iconst 32
        v50:i32 = iadd v41, v49
        v51:i32 = iadd v50, v3
        store.device [v51], v48
        jump block6()
    block5:
        jump block6()
  block6:
      return
}
",
    );
    let mut memory = column_inputs(N, 13);
    memory.resize((olds + 4 * N * ops.len() as u32 + 4 * N) as usize, 0);
    let mut failures = Vec::new();
    agree_on_wave_emu("atomics", &text, 1, &memory, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_lane_loop_nested_in_a_divergent_loop_agrees_with_wave_emu() {
    // Thread t runs t % 5 + 1 iterations of a loop whose body reduces over the
    // lanes still in it: xor and fmax are lane loops on wave-0.1.2.
    let text = format!(
        "{}      v9:i32 = iconst 5
      v10:i32 = urem v1, v9
      v11:i32 = iconst 1
      v12:i32 = iadd v10, v11
      v13:i32 = iconst 0
      v14:f32 = fconst 0.0
      loop block1(v13, v13, v14) exit block2
    block1(v20:i32, v21:i32, v22:f32):
        v23:i32 = wave_reduce.xor v7
        v24:f32 = wave_reduce.fmax v5
        v25:i32 = wave_read_first v8
        v26:i32 = iadd v21, v23
        v27:i32 = iadd v26, v25
        v28:f32 = fadd v22, v24
        v29:i32 = iadd v20, v11
        v30:b1 = icmp uge v29, v12
        break_if v30 to block2(v27, v28) else block3
    block3:
        jump block1(v29, v27, v28)
  block2(v31:i32, v32:f32):
      v33:i32 = iconst {}
      v34:i32 = iadd v4, v33
      store.device [v34], v31
      v35:i32 = iconst {}
      v36:i32 = iadd v4, v35
      store.device [v36], v32
      return
}}
",
        columns_head("nested", 0, N),
        16 * N,
        20 * N
    );
    let mut memory = column_inputs(N, 14);
    memory.resize(24 * N as usize, 0xa5);
    let mut failures = Vec::new();
    agree_on_wave_emu("nested", &text, 2, &memory, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
