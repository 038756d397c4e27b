//! Random 16-bit programs (`-enable-16bit-types`): `half`, `int16_t` and
//! `uint16_t` locals, many of them live at once (all are stored at the end),
//! arithmetic the back end folds into 16-bit operations on register halves
//! (`+ - *` on halves, `+ - * & | ^` on 16-bit integers) and operations it
//! does not (shifts, min/max, selects, conversions), a loop carrying 16-bit
//! values (edge copies of halves) and a divergent `if`.
//!
//! Each program runs packed (`pack16`, the default) and unpacked
//! (`--disable pack16`) at -O0 and -O, with no budget and at forced low
//! budgets (spilling halves), on `wave` and `wave-0.1.2` (also on wave-emu
//! 0.1.2): every output buffer must be byte-identical. Values stay small
//! (inputs are quarter steps in [-4, 4], every `half` assignment is clamped to
//! +-64), so no result depends on overflow to infinity.

use std::fmt::Write;
use wavec::diag::{render, SourceFile};
use wavec::driver::{compile_with, CompileOptions, Isa, OptLevel};
use wavec::run::{self, Pipeline};
use wavec_tests::{options, run_on_wave_emu, Rng};

/// Elements of each input buffer (a power of two: indices are masked).
const INPUT: u32 = 64;
const THREADS: u32 = 32;
const GROUPS: u32 = 2;
/// Locals of each type; every one is stored, so all are live at the end.
const LOCALS: usize = 6;

const HALF_OPS: [&str; 3] = ["+", "-", "*"];
const INT_OPS: [&str; 7] = ["+", "-", "*", "&", "|", "^", "<<"];

struct Gen {
    rng: Rng,
    out: String,
}

impl Gen {
    fn h(&mut self) -> String {
        format!("h{}", self.rng.below(LOCALS))
    }
    fn s(&mut self) -> String {
        format!("s{}", self.rng.below(LOCALS))
    }
    fn u(&mut self) -> String {
        format!("u{}", self.rng.below(LOCALS))
    }

    /// A `half` expression of at most two operations.
    fn half_expr(&mut self) -> String {
        let (a, b, c) = (self.h(), self.h(), self.h());
        match self.rng.below(7) {
            0..=2 => {
                let (o1, o2) = (self.rng.pick(&HALF_OPS), self.rng.pick(&HALF_OPS));
                format!("{a} {o1} {b} {o2} {c}")
            }
            3 => format!("{a} * {b} + {c}"),
            4 => format!("max({a}, {b}) - min({b}, {c})"),
            5 => format!("({a} < {b} ? {b} : {c}) * 0.5h"),
            _ => format!("(half)({}) + {a}", self.s()),
        }
    }

    fn int_expr(&mut self, var: fn(&mut Gen) -> String) -> String {
        let (a, b) = (var(self), var(self));
        match self.rng.pick(&INT_OPS) {
            "<<" => format!("{a} << {}", self.rng.below(16)),
            op if self.rng.chance(30) => format!("{a} {op} {}", self.rng.below(300)),
            op => format!("{a} {op} {b}"),
        }
    }

    fn statement(&mut self, indent: &str) {
        let line = match self.rng.below(3) {
            0 => {
                let d = self.h();
                format!("{d} = clamp({}, -64.0h, 64.0h);", self.half_expr())
            }
            1 => {
                let d = self.s();
                format!("{d} = {};", self.int_expr(Gen::s))
            }
            _ => {
                let d = self.u();
                if self.rng.chance(30) {
                    format!("{d} = (uint16_t){} + {d};", self.s())
                } else {
                    format!("{d} = {};", self.int_expr(Gen::u))
                }
            }
        };
        let _ = writeln!(self.out, "{indent}{line}");
    }

    fn program(seed: u64) -> String {
        let mut g = Gen { rng: Rng::new(seed), out: String::new() };
        let o = &mut g.out;
        o.push_str("StructuredBuffer<half> InH : register(t0);\nStructuredBuffer<int16_t> InS : register(t1);\n");
        o.push_str("RWStructuredBuffer<half> OutH : register(u0);\nRWStructuredBuffer<int16_t> OutS : register(u1);\n");
        o.push_str("RWStructuredBuffer<uint16_t> OutU : register(u2);\n\n");
        let _ = writeln!(o, "[numthreads({THREADS}, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID) {{");
        for k in 0..LOCALS {
            let _ = writeln!(o, "    half h{k} = InH[(i * {} + {k}) & {}];", 2 * k + 1, INPUT - 1);
            let _ = writeln!(o, "    int16_t s{k} = InS[(i * {} + {k}) & {}];", 2 * k + 3, INPUT - 1);
            let _ = writeln!(o, "    uint16_t u{k} = (uint16_t)InS[(i + {}) & {}];", 7 * k + 5, INPUT - 1);
        }
        for _ in 0..g.rng.below(6) + 4 {
            g.statement("    ");
        }
        let _ = writeln!(g.out, "    for (int k = 0; k < (int)(i & 3); k++) {{");
        for _ in 0..g.rng.below(3) + 2 {
            g.statement("        ");
        }
        let _ = writeln!(g.out, "    }}\n    if ((i & 5) == 1) {{");
        for _ in 0..g.rng.below(3) + 1 {
            g.statement("        ");
        }
        let _ = writeln!(g.out, "    }}");
        for _ in 0..g.rng.below(4) + 2 {
            g.statement("    ");
        }
        for k in 0..LOCALS {
            let _ = writeln!(
                g.out,
                "    OutH[i * {LOCALS} + {k}] = h{k};\n    OutS[i * {LOCALS} + {k}] = s{k};\n    OutU[i * {LOCALS} + {k}] = u{k};"
            );
        }
        g.out.push_str("}\n");
        g.out
    }
}

fn pipeline(seed: u64) -> Pipeline {
    let mut rng = Rng::new(seed ^ 0x16);
    let halves: Vec<String> = (0..INPUT)
        .map(|_| {
            let q = (rng.below(33) as f32 - 16.0) / 4.0;
            format!("{:#06x}", f32_to_f16(q))
        })
        .collect();
    let ints: Vec<String> = (0..INPUT)
        .map(|_| match rng.below(4) {
            0 => format!("{}", rng.pick(&[0i32, 1, -1, 32767, -32768, 255])),
            1 => format!("{}", rng.below(65536) as i32 - 32768),
            _ => format!("{}", rng.below(41) as i32 - 20),
        })
        .collect();
    let n = THREADS * GROUPS * LOCALS as u32 * 2;
    let mut y = String::new();
    let _ = writeln!(y, "---\nShaders:\n  - Stage: Compute\n    Entry: main");
    let _ = writeln!(y, "DispatchParameters: {{ DispatchGroupCount: [{GROUPS}, 1, 1] }}\nBuffers:");
    let _ = writeln!(y, "  - {{ Name: InH, Format: Float16, Stride: 2, Data: [ {} ] }}", halves.join(", "));
    let _ = writeln!(y, "  - {{ Name: InS, Format: Int16, Stride: 2, Data: [ {} ] }}", ints.join(", "));
    for (name, format) in [("OutH", "Float16"), ("OutS", "Int16"), ("OutU", "UInt16")] {
        let _ = writeln!(y, "  - {{ Name: {name}, Format: {format}, Stride: 2, FillSize: {n}, FillValue: 0x5a5a }}");
    }
    y.push_str("DescriptorSets:\n  - Resources:\n");
    for (i, name) in ["InH", "InS"].iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: StructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    for (i, name) in ["OutH", "OutS", "OutU"].iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    y.push_str("...\n");
    run::parse_pipeline(&y).unwrap_or_else(|e| panic!("generated pipeline does not parse: {}\n{y}", e.message))
}

/// Half-precision bits of `x` (exact for the quarter steps used here).
fn f32_to_f16(x: f32) -> u16 {
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((bits >> 13) & 0x3ff) as u16;
    sign | ((exp as u16) << 10) | mant
}

/// The output buffers' bytes after a run on wavesim (strict) or wave-emu 0.1.2.
fn outputs(p: &Pipeline, c: &wavec::driver::Compiled, opts: &CompileOptions, emu: bool) -> Result<Vec<Vec<u8>>, String> {
    let layout = run::layout(p, &c.interface).map_err(|e| e.message)?;
    let names = ["OutH", "OutS", "OutU"];
    if emu {
        let done = run_on_wave_emu(p, c, 5_000_000)?;
        return Ok(names.iter().map(|n| done.buffers[p.buffer_index(n).expect("buffer")].data.clone()).collect());
    }
    let program = wavesim::parse(&c.asm, opts.isa.sim_profile()).map_err(|e| format!("line {}: {}", e.line, e.message))?;
    let kernel = program.kernel(&c.interface.kernel).ok_or("no kernel")?;
    let mut cfg = run::sim_config(&opts.target, opts.isa, &c.occupancy, 5_000_000);
    cfg.strict = true;
    let launch = wavesim::Launch { grid: p.dispatch, workgroup_size: c.interface.workgroup_size, args: layout.args.clone() };
    let mut mem = layout.memory(p);
    wavesim::run(kernel, &cfg, &launch, &mut mem).map_err(|f| format!("{f:?}"))?;
    names
        .iter()
        .map(|n| {
            let pl = layout.placement(p.buffer_index(n).expect("buffer")).ok_or("output not placed")?;
            Ok(mem.read(pl.address, pl.size as usize)?.to_vec())
        })
        .collect()
}

/// Runs one program in every variant; `Err` describes the first disagreement.
/// Returns how many listings had halves, how many of those spilled, and how
/// many wave-0.1.2 listings packed with `bfi`.
pub fn check(seed: u64) -> Result<(usize, usize, usize), String> {
    let source = Gen::program(seed);
    let p = pipeline(seed);
    let file = SourceFile::new("half16.hlsl", &source);
    // (isa, opt, pack16, --max-registers)
    let mut configs = vec![(Isa::Wave, OptLevel::O0, false, None)];
    for pack in [true, false] {
        for budget in [None, Some(4), Some(7)] {
            configs.push((Isa::Wave, OptLevel::O, pack, budget));
        }
    }
    configs.push((Isa::Wave, OptLevel::O0, true, Some(5)));
    configs.push((Isa::Wave012, OptLevel::O, true, None));
    configs.push((Isa::Wave012, OptLevel::O, true, Some(5)));
    let mut reference: Option<(String, Vec<Vec<u8>>, String)> = None;
    let (mut packed, mut spilled, mut bfi) = (0, 0, 0);
    for (isa, opt, pack, budget) in configs {
        let mut opts = options(isa, opt);
        opts.enable_16bit_types = true;
        opts.max_registers = budget;
        if !pack {
            opts.disable("pack16");
        }
        let label = format!("--isa {} {opt:?} pack16={pack} --max-registers {budget:?}", isa.name());
        let c = match compile_with(&file, &opts, true) {
            Ok(c) => c,
            Err(d) if budget.is_some() && d.len() == 1 && d[0].code == "E0408" => continue,
            Err(d) => return Err(format!("{label}: does not compile:\n{}\n{source}", render(&file, &d))),
        };
        if c.asm.contains(".lo") || c.asm.contains(".hi") {
            packed += 1;
            spilled += c.asm.contains("local_store_u16") as usize;
        }
        bfi += (isa == Isa::Wave012 && c.asm.contains("bfi ")) as usize;
        let mut runs = vec![(label.clone(), outputs(&p, &c, &opts, false))];
        if isa == Isa::Wave012 {
            runs.push((format!("{label} on wave-emu 0.1.2"), outputs(&p, &c, &opts, true)));
        }
        for (what, out) in runs {
            let out = out.map_err(|e| format!("{what}: {e}\n{source}\n{}", c.asm))?;
            match &reference {
                None => reference = Some((what, out, c.asm.clone())),
                Some((rw, r, rasm)) if *r != out => {
                    let k = (0..3).find(|&k| r[k] != out[k]).unwrap_or(0);
                    let i = (0..r[k].len()).find(|&i| r[k].get(i) != out[k].get(i)).unwrap_or(0) / 2;
                    return Err(format!(
                        "seed {seed}: {what} differs from {rw} in buffer {k} element {i}\n{source}\n--- listing:\n{}\n--- reference:\n{rasm}",
                        c.asm
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok((packed, spilled, bfi))
}
