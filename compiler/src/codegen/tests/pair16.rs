//! pair16: two independent half operations become one packed `hadd2`/
//! `hmul2`/`hma2`, with results bit-identical to the single operations.
//! Each lane computes half2 arithmetic on inputs from memory; the listing
//! must show the packed ops, and paired, unpaired and Rust's half rounding
//! must agree (including at register budgets that force spilling).

use super::*;
use crate::codegen::mir::{MFunction, Opcode};
use half::f16;

const N: usize = 32;
/// Input halves per lane: a.x a.y b.x b.y c.x c.y, at `12 * lane`.
const IN: usize = 6;
/// Results per lane (halves), from byte `OUT`.
const OUT: usize = 2 * IN * N;
const RESULTS: usize = 8;

/// half2 a, b, c: a*b, a*b + (0.5, 0.25), fma(a, b, c), a - 0.5, and the
/// lanes of (a*b).x + c.y and a.y * 3 left single.
const KERNEL: &str = "kernel @pairs {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 12
      v3:i32 = imul v1, v2
      v4:i32 = iadd v0, v3
      v5:i32 = iconst 2
      v6:i32 = iadd v4, v5
      v7:i32 = iadd v6, v5
      v8:i32 = iadd v7, v5
      v9:i32 = iadd v8, v5
      v10:i32 = iadd v9, v5
      v11:f16 = load.device.f16 [v4]
      v12:f16 = load.device.f16 [v6]
      v13:f16 = load.device.f16 [v7]
      v14:f16 = load.device.f16 [v8]
      v15:f16 = load.device.f16 [v9]
      v16:f16 = load.device.f16 [v10]
      v21:f32 = fext16 v11
      v22:f32 = fext16 v12
      v23:f32 = fext16 v13
      v24:f32 = fext16 v14
      v25:f32 = fext16 v15
      v26:f32 = fext16 v16
      v30:f32 = fmul v21, v23
      v31:f16 = ftrunc16 v30
      v32:f32 = fmul v22, v24
      v33:f16 = ftrunc16 v32
      v34:f32 = fext16 v31
      v35:f32 = fext16 v33
      v36:f32 = fconst 0.5
      v37:f32 = fconst 0.25
      v38:f32 = fadd v34, v36
      v39:f16 = ftrunc16 v38
      v40:f32 = fadd v35, v37
      v41:f16 = ftrunc16 v40
      v42:f32 = fma v21, v23, v25
      v43:f16 = ftrunc16 v42
      v44:f32 = fma v22, v24, v26
      v45:f16 = ftrunc16 v44
      v46:f32 = fsub v21, v36
      v47:f16 = ftrunc16 v46
      v48:f32 = fsub v22, v36
      v49:f16 = ftrunc16 v48
      v50:f32 = fadd v34, v26
      v51:f16 = ftrunc16 v50
      v52:f32 = fconst 3.0
      v53:f32 = fmul v22, v52
      v54:f16 = ftrunc16 v53
      v60:i32 = iconst 16
      v61:i32 = imul v1, v60
      v62:i32 = iconst 384
      v63:i32 = iadd v61, v62
      store.device [v63], v31
      v64:i32 = iadd v63, v5
      store.device [v64], v33
      v65:i32 = iadd v64, v5
      store.device [v65], v39
      v66:i32 = iadd v65, v5
      store.device [v66], v41
      v67:i32 = iadd v66, v5
      store.device [v67], v43
      v68:i32 = iadd v67, v5
      store.device [v68], v45
      v69:i32 = iadd v68, v5
      store.device [v69], v47
      v70:i32 = iadd v69, v5
      store.device [v70], v49
      return
}
";

/// Inputs: a spread of magnitudes, signs, a subnormal, and values whose
/// products and sums round (so a wrong half or a double rounding shows).
fn inputs() -> Vec<u16> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let specials = [0x3c01u16, 0xbbff, 0x0001, 0x7bff, 0x3555, 0x8000];
    (0..IN * N).map(|i| specials.get(i).copied().unwrap_or_else(|| (rng.next() as u16 & 0x3fff) | (((i as u16) & 8) << 12))).collect()
}

/// Rust's half rounding of each result (computed in f32, rounded once).
fn expected(x: &[u16]) -> Vec<u16> {
    let h = |b: u16| f16::from_bits(b).to_f32();
    let r = |v: f32| f16::from_f32(v).to_bits();
    let (ax, ay, bx, by, cx, cy) = (h(x[0]), h(x[1]), h(x[2]), h(x[3]), h(x[4]), h(x[5]));
    let (px, py) = (r(ax * bx), r(ay * by));
    vec![px, py, r(h(px) + 0.5), r(h(py) + 0.25), r(ax.mul_add(bx, cx)), r(ay.mul_add(by, cy)), r(ax - 0.5), r(ay - 0.5)]
}

fn compile_paired(pair: bool, budget: Option<u32>) -> String {
    let f = ir::parse_function(KERNEL).expect("parses");
    ir::verify(&f).expect("verifies");
    let t = target::preset("generic").expect("preset");
    let mut alloc = regalloc::AllocOptions::new(Isa::Wave, t.wave_width);
    alloc.budget = budget;
    crate::driver::compile_ir_paired(&f, KERNEL, &alloc, &t, N as u32, pair).unwrap_or_else(|d| panic!("{}: {}", d.code, d.message)).0
}

fn run_listing(asm: &str) -> Vec<u16> {
    let mut mem = wavesim::Memory::new(OUT + 2 * RESULTS * N);
    for (i, h) in inputs().iter().enumerate() {
        mem.bytes[2 * i..2 * i + 2].copy_from_slice(&h.to_le_bytes());
    }
    let program = wavesim::parse(asm, Isa::Wave.sim_profile()).unwrap_or_else(|e| panic!("{e}\n{asm}"));
    let t = target::preset("generic").expect("preset");
    let occupancy = target::occupancy(&t, program.kernels[0].registers, N as u32, program.kernels[0].local_memory);
    let cfg = crate::run::sim_config(&t, Isa::Wave, &occupancy, 5_000_000);
    let launch = wavesim::Launch { grid: [1, 1, 1], workgroup_size: [N as u32, 1, 1], args: vec![(0, 0)] };
    wavesim::run(&program.kernels[0], &cfg, &launch, &mut mem).unwrap_or_else(|e| panic!("{e}\n{asm}"));
    mem.bytes[OUT..].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
}

/// Instruction lines of a listing (after the directives).
fn instructions(asm: &str) -> usize {
    asm.lines().filter(|l| l.starts_with("    ") && !l.trim_start().starts_with(';')).count()
}

#[test]
fn half2_arithmetic_pairs_and_matches_single_ops() {
    let x = inputs();
    let want: Vec<u16> = (0..N).flat_map(|l| expected(&x[IN * l..IN * (l + 1)])).collect();
    let paired = compile_paired(true, None);
    let single = compile_paired(false, None);
    for op in ["hmul2", "hadd2", "hma2"] {
        assert!(paired.contains(&format!("{op} ")), "no {op}:\n{paired}");
        assert!(!single.contains(&format!("{op} ")), "{op} with pairing off:\n{single}");
    }
    // a - 0.5 pairs as a + (-0.5): one constant with -0.5 in both halves.
    assert!(paired.contains("mov_imm") && paired.contains("0xb800b800"), "{paired}");
    assert!(instructions(&paired) < instructions(&single), "paired:\n{paired}\nsingle:\n{single}");
    assert_eq!(run_listing(&paired), want, "paired:\n{paired}");
    assert_eq!(run_listing(&single), want, "single:\n{single}");
}

#[test]
fn paired_code_spills_and_still_matches() {
    let x = inputs();
    let want: Vec<u16> = (0..N).flat_map(|l| expected(&x[IN * l..IN * (l + 1)])).collect();
    for budget in [6, 5, 4] {
        let asm = compile_paired(true, Some(budget));
        assert!(asm.contains("hma2 ") && asm.contains("spill code"), "budget {budget}:\n{asm}");
        assert_eq!(run_listing(&asm), want, "budget {budget}:\n{asm}");
    }
}

/// Selected machine code of `text` (spec profile, halves on).
fn select(text: &str) -> MFunction {
    crate::codegen::select_text(text, Isa::Wave, 1)
}

fn ops(m: &MFunction) -> Vec<Opcode> {
    m.order.iter().flat_map(|&b| m.blocks[b].insts.iter().map(|i| i.op)).collect()
}

#[test]
fn loads_gather_into_one_register_with_no_extra_instruction() {
    let mut m = select(KERNEL);
    let before = ops(&m).len();
    assert!(crate::codegen::pair16::run(&mut m) >= 3);
    let after = ops(&m);
    assert!(after.len() < before, "{before} -> {}", after.len());
    // The high half of a gathered pair is written in place, reading the low one's register.
    let entry = &m.blocks[m.entry].insts;
    let load_hi = entry.iter().find(|i| i.op == Opcode::DeviceLoadU16 && i.ins.is_some()).expect("a load into a high half");
    let merge = *load_hi.srcs.last().expect("the value completed");
    let load_lo = entry.iter().find(|i| i.dst == Some(merge)).expect("its first half");
    assert_eq!(load_lo.op, Opcode::DeviceLoadU16);
    assert_eq!(m.vregs[merge].class, crate::codegen::mir::RegClass::V);
}

#[test]
fn dependent_operations_stay_single() {
    // (a*b)*c: the second product reads the first.
    let text = "kernel @chain {
  block0:
      v0:i32 = kernel_arg 0
      v1:f16 = load.device.f16 [v0]
      v2:f32 = fext16 v1
      v3:f32 = fmul v2, v2
      v4:f16 = ftrunc16 v3
      v5:f32 = fext16 v4
      v6:f32 = fmul v5, v2
      v7:f16 = ftrunc16 v6
      store.device [v0], v7
      return
}
";
    let mut m = select(text);
    assert_eq!(crate::codegen::pair16::run(&mut m), 0);
    assert_eq!(ops(&m).iter().filter(|&&o| o == Opcode::Hmul).count(), 2);
}

#[test]
fn a_subtraction_of_a_variable_stays_single() {
    // WAVE has no hsub2; x - y would need -y in a register first.
    let text = "kernel @subs {
  block0:
      v0:i32 = kernel_arg 0
      v1:f16 = load.device.f16 [v0]
      v2:f16 = load.device.f16 [v0]
      v3:f32 = fext16 v1
      v4:f32 = fext16 v2
      v5:f32 = fsub v3, v4
      v6:f16 = ftrunc16 v5
      v7:f32 = fsub v4, v3
      v8:f16 = ftrunc16 v7
      store.device [v0], v6
      store.device [v0], v8
      return
}
";
    let mut m = select(text);
    assert_eq!(crate::codegen::pair16::run(&mut m), 0);
}

/// A half write completing a packed pair whose first half sits in another
/// register (colouring always avoids this; an allocation moved by hand forces
/// it): the listing adds `mov rD.lo, rF.lo`, the checker accepts it, and the
/// results still match.
#[test]
fn a_half_write_away_from_its_first_half_moves_the_other_half() {
    let f = ir::parse_function(KERNEL).expect("parses");
    let mut m = select(KERNEL);
    m.workgroup_size = [N as u32, 1, 1];
    assert!(crate::codegen::pair16::run(&mut m) > 0);
    let t = target::preset("generic").expect("preset");
    let mut a = regalloc::allocate(&mut m, &regalloc::AllocOptions::new(Isa::Wave, t.wave_width)).expect("allocates");
    // Every half write's result goes to a register of its own, above the others.
    let writes: Vec<_> = m.blocks[m.entry].insts.iter().filter(|i| i.ins.is_some()).filter_map(|i| i.dst).collect();
    assert!(!writes.is_empty());
    let base = a.num_v;
    for (k, &d) in writes.iter().enumerate() {
        a.reg[d] = Some(base + k as u32);
    }
    a.num_v = base + writes.len() as u32;
    a.bank_base = a.num_v;
    crate::regalloc::check_allocation(&m, &a.reg, a.num_v).expect("the moved allocation is still right");
    let interface = crate::interface::KernelInterface {
        kernel: f.name.clone(),
        workgroup_size: [N as u32, 1, 1],
        numthreads: None,
        registers: a.num_v,
        local_memory: m.local_memory,
        resources: Vec::new(),
        constants: None,
        scratch: None,
    };
    let occupancy = target::occupancy(&t, a.num_v, N as u32, 0);
    let source = crate::diag::SourceFile::new("kernel.ir", KERNEL);
    let cx = crate::emit::ListingContext {
        source: &source,
        interface: &interface,
        target: &t,
        isa: Isa::Wave,
        occupancy: &occupancy,
        target_occupancy: None,
    };
    let asm = crate::emit::emit_listing(&m, &a, &cx).expect("emits");
    assert!(asm.lines().any(|l| l.trim_start().starts_with(&format!("mov r{base}.lo, r"))), "{asm}");
    let x = inputs();
    let want: Vec<u16> = (0..N).flat_map(|l| expected(&x[IN * l..IN * (l + 1)])).collect();
    assert_eq!(run_listing(&asm), want, "{asm}");
}
