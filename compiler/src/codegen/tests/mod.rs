//! Back-end tests from IR text: parse, select, allocate, emit, and run the
//! listing on the simulator, for constructs the front end cannot produce yet
//! (16-bit values, intrinsics, atomics, wave ops, local memory). Expected
//! values are computed here in plain Rust from the inputs.

mod atomics;
mod chains;
mod double;
mod math;
mod pair16;
mod wave;

use crate::diag::Diagnostic;
use crate::options::Isa;
use crate::{ir, passes, regalloc, target};

/// How to run a kernel: profile, machine model (`generic`: 32 lanes, `gcn`: 64),
/// threads per group and groups.
#[derive(Clone, Copy, Debug)]
struct Setup {
    isa: Isa,
    target: &'static str,
    threads: u32,
    groups: u32,
}

impl Setup {
    fn new(isa: Isa, target: &'static str, threads: u32) -> Setup {
        Setup { isa, target, threads, groups: 1 }
    }
}

/// Both profiles at 32 lanes.
const PROFILES: [Isa; 2] = [Isa::Wave, Isa::Wave012];

/// Every profile at wave width 32 (`generic`) and 64 (`gcn`).
fn setups(threads: u32) -> Vec<Setup> {
    let mut out = Vec::new();
    for isa in PROFILES {
        for target in ["generic", "gcn"] {
            out.push(Setup::new(isa, target, threads));
        }
    }
    out
}

/// Compiles IR `text` (after checking that it verifies) to a listing.
fn compile(text: &str, isa: Isa, target_name: &str, threads: u32) -> Result<String, Diagnostic> {
    let f = ir::parse_function(text).unwrap_or_else(|e| panic!("IR does not parse: {e}\n{text}"));
    compile_function(&f, text, isa, target_name, threads)
}

fn compile_function(f: &ir::Function, text: &str, isa: Isa, target_name: &str, threads: u32) -> Result<String, Diagnostic> {
    if let Err(e) = ir::verify(f) {
        panic!("IR does not verify: {e:?}\n{text}");
    }
    let t = target::preset(target_name).expect("a target preset");
    let alloc = regalloc::AllocOptions::new(isa, t.wave_width);
    crate::driver::compile_ir(f, text, &alloc, &t, threads).map(|(asm, _)| asm)
}

/// Compiles IR `text` and runs it with `r0` = 0, the base of `mem`.
fn run_setup(text: &str, s: Setup, mem: &mut wavesim::Memory) -> String {
    let asm = compile(text, s.isa, s.target, s.threads).unwrap_or_else(|d| panic!("{s:?}: {}: {}\n{text}", d.code, d.message));
    let program = wavesim::parse(&asm, s.isa.sim_profile()).unwrap_or_else(|e| panic!("{s:?}: {e}\n{asm}"));
    let t = target::preset(s.target).expect("a target preset");
    let occupancy = target::occupancy(&t, program.kernels[0].registers, s.threads, program.kernels[0].local_memory);
    let cfg = crate::run::sim_config(&t, s.isa, &occupancy, 5_000_000);
    let launch = wavesim::Launch { grid: [s.groups, 1, 1], workgroup_size: [s.threads, 1, 1], args: vec![(0, 0)] };
    wavesim::run(&program.kernels[0], &cfg, &launch, mem).unwrap_or_else(|e| panic!("{s:?}: {e}\n{asm}"));
    asm
}

/// `run_setup` with one group of `threads` lanes at 32 lanes per wave.
fn run_ir(text: &str, isa: Isa, threads: u32, mem: &mut wavesim::Memory) -> String {
    run_setup(text, Setup::new(isa, "generic", threads), mem)
}

/// Memory of `bytes` bytes with `words` written from address 0.
fn memory_with(bytes: usize, words: &[u32]) -> wavesim::Memory {
    let mut mem = wavesim::Memory::new(bytes);
    for (i, w) in words.iter().enumerate() {
        mem.bytes[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    mem
}

/// `n` words from byte address `at`.
fn words(mem: &wavesim::Memory, at: usize, n: usize) -> Vec<u32> {
    mem.bytes[at..at + 4 * n].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A deterministic pseudo-random sequence (xorshift), for test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// Halves in, doubled halves, sign-extended shorts and truncated ints out.
const HALF_KERNEL: &str = "kernel @halves {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 1
      v3:i32 = shl v1, v2
      v4:i32 = iadd v0, v3
      v5:f16 = load.device.f16 [v4]
      v6:f32 = fext16 v5
      v7:f32 = fconst 2.0
      v8:f32 = fmul v6, v7
      v9:f16 = ftrunc16 v8
      v10:i32 = iconst 64
      v11:i32 = iadd v4, v10
      store.device [v11], v9
      v12:i16 = load.device_ro.i16 [v4]
      v13:i32 = sext16 v12
      v14:i32 = zext16 v12
      v15:i32 = iconst 2
      v16:i32 = shl v1, v15
      v17:i32 = iconst 128
      v18:i32 = iadd v16, v17
      store.device [v18], v13
      v19:i32 = iconst 64
      v20:i32 = iadd v18, v19
      store.device [v20], v14
      v21:i32 = iconst 70001
      v22:i32 = imul v1, v21
      v23:i16 = trunc16 v22
      v24:i32 = iconst 256
      v25:i32 = iadd v3, v24
      store.device [v25], v23
      v26:f16 = fconst16 0x3c00 ; 1
      v27:i32 = iconst 288
      v28:i32 = iadd v3, v27
      store.device [v28], v26
      return
}
";

#[test]
fn sixteen_bit_values_on_both_profiles() {
    let inputs: Vec<u16> = vec![0x3c00, 0xc000, 0x3555, 0x8001, 0x7bff, 0x0000, 0xbc00, 0x4248];
    for isa in [Isa::Wave, Isa::Wave012] {
        let mut mem = wavesim::Memory::new(320);
        for (i, h) in inputs.iter().enumerate() {
            mem.bytes[2 * i..2 * i + 2].copy_from_slice(&h.to_le_bytes());
        }
        let asm = run_ir(HALF_KERNEL, isa, inputs.len() as u32, &mut mem);
        for (i, &h) in inputs.iter().enumerate() {
            let u16_at = |at: usize| u16::from_le_bytes([mem.bytes[at], mem.bytes[at + 1]]);
            let u32_at = |at: usize| u32::from_le_bytes(mem.bytes[at..at + 4].try_into().expect("4 bytes"));
            let doubled = half::f16::from_f32(half::f16::from_bits(h).to_f32() * 2.0).to_bits();
            assert_eq!(u16_at(64 + 2 * i), doubled, "{isa:?} lane {i}: f16 doubling\n{asm}");
            assert_eq!(u32_at(128 + 4 * i), h as i16 as i32 as u32, "{isa:?} lane {i}: sext16\n{asm}");
            assert_eq!(u32_at(192 + 4 * i), h as u32, "{isa:?} lane {i}: zext16\n{asm}");
            assert_eq!(u16_at(256 + 2 * i), (i as u32 * 70001) as u16, "{isa:?} lane {i}: trunc16\n{asm}");
            assert_eq!(u16_at(288 + 2 * i), 0x3c00, "{isa:?} lane {i}: f16 constant\n{asm}");
        }
    }
}

#[test]
fn sixteen_bit_constants_fold() {
    let mut f = ir::parse_function(
        "kernel @k {
  block0:
      v0:f16 = fconst16 0x4200
      v1:f32 = fext16 v0
      v2:i16 = iconst16 -2
      v3:i32 = sext16 v2
      v4:i32 = zext16 v2
      return
}
",
    )
    .expect("parses");
    passes::fold::fold_constants(&mut f);
    let text = ir::print_function(&f, &|_| None);
    assert!(text.contains("v1:f32 = fconst 3.0"), "{text}");
    assert!(text.contains("v3:i32 = iconst -2"), "{text}");
    assert!(text.contains("v4:i32 = iconst 65534"), "{text}");
}
