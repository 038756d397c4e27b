//! Functional executor: runs the workgroups of a dispatch one after another,
//! the waves of a workgroup round-robin (one instruction per turn), and records
//! each wave's instruction trace for the cycle model in `timing.rs`.

use crate::fp::{f16_to_f32, f32_to_f16, h1};
use crate::isa::*;
use crate::timing::Timing;
use crate::{Fault, FaultKind, Kernel, Launch, Memory, Profile, SimConfig, Stats};

/// Control-flow frame of a wave's mask stack.
#[derive(Clone, Copy, Debug)]
struct Frame {
    is_loop: bool,
    /// Lanes active when the construct was entered (minus lanes that left since:
    /// broken/continued lanes for inner if-frames, halted lanes for all).
    saved: u64,
    /// if-frame: lanes that took the then-arm. loop-frame: lanes that continued.
    aux: u64,
    /// loop-frame: first instruction of the body.
    start_pc: u32,
}

struct Wave {
    regs: Vec<u32>,
    preds: [u64; 4],
    active: u64,
    exists: u64,
    exited: u64,
    pc: u32,
    frames: Vec<Frame>,
    calls: Vec<(u32, u32)>,
    done: bool,
    at_barrier: bool,
}

/// Fixed facts about the dispatch.
pub(crate) struct Geometry {
    pub wg: [u32; 3],
    pub threads: u32,
    pub nwaves: u32,
    pub w: u32,
    pub grid: [u32; 3],
}

const MAX_FRAMES: usize = 32;

struct Exec<'a> {
    k: &'a Kernel,
    cfg: &'a SimConfig,
    geo: &'a Geometry,
    spec: bool,
    local: Vec<u8>,
    scratch: Vec<u32>,
    cat: [u64; 9],
    stats: Stats,
    wg_id: [u32; 3],
}

macro_rules! lanes {
    ($mask:expr, $l:ident, $body:block) => {{
        let mut m: u64 = $mask;
        while m != 0 {
            let $l = m.trailing_zeros() as usize;
            m &= m - 1;
            $body
        }
    }};
}

#[inline(always)]
fn rd(regs: &[u32], w: usize, r: R, lane: usize) -> u32 {
    let v = regs[r.idx as usize * w + lane];
    match r.half {
        Half::Full => v,
        Half::Lo => v & 0xffff,
        Half::Hi => v >> 16,
    }
}

#[inline(always)]
fn wr(regs: &mut [u32], w: usize, r: R, lane: usize, v: u32) {
    let s = &mut regs[r.idx as usize * w + lane];
    *s = match r.half {
        Half::Full => v,
        Half::Lo => (*s & 0xffff_0000) | (v & 0xffff),
        Half::Hi => (*s & 0xffff) | (v << 16),
    };
}

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline(always)]
fn b(x: f32) -> u32 {
    x.to_bits()
}

fn pmask(preds: &[u64; 4], p: P) -> u64 {
    let m = preds[p.idx as usize & 3];
    if p.neg {
        !m
    } else {
        m
    }
}

fn fmin(a: f32, c: f32) -> f32 {
    a.min(c)
}
fn fmax(a: f32, c: f32) -> f32 {
    a.max(c)
}
fn hpair(a: u32, c: u32, g: impl Fn(f32, f32) -> f32) -> u32 {
    let lo = f32_to_f16(g(f16_to_f32(a as u16), f16_to_f32(c as u16))) as u32;
    let hi = f32_to_f16(g(f16_to_f32((a >> 16) as u16), f16_to_f32((c >> 16) as u16))) as u32;
    lo | (hi << 16)
}

impl<'a> Exec<'a> {
    fn fault(&self, kind: FaultKind, pc: Option<u32>, wave: u32, lane: Option<usize>) -> Fault {
        Fault {
            kind,
            origin: pc.and_then(|pc| self.k.instrs.get(pc as usize)).map(|i| i.origin.clone()),
            workgroup: self.wg_id,
            wave,
            lane: lane.map(|l| l as u32),
        }
    }

    fn sr_value(&self, sr: Sr, wave: u32, lane: usize) -> u32 {
        let g = self.geo;
        let i = wave * g.w + lane as u32;
        match sr {
            Sr::ThreadId(0) => i % g.wg[0],
            Sr::ThreadId(1) => (i / g.wg[0]) % g.wg[1],
            Sr::ThreadId(_) => i / (g.wg[0] * g.wg[1]),
            Sr::WaveId => wave,
            Sr::LaneId => lane as u32,
            Sr::WorkgroupId(a) => self.wg_id[a as usize % 3],
            Sr::WorkgroupSize(a) => g.wg[a as usize % 3],
            Sr::GridSize(a) => g.grid[a as usize % 3],
            Sr::WaveWidth => g.w,
            Sr::NumWaves => g.nwaves,
        }
    }

    /// Lanes `lanes` leave the innermost loop's body (break/continue): drop them from
    /// the if-frames above the loop. Returns the loop frame's index.
    fn leave_to_loop(wave: &mut Wave, lanes: u64) -> Option<usize> {
        wave.active &= !lanes;
        for i in (0..wave.frames.len()).rev() {
            if wave.frames[i].is_loop {
                return Some(i);
            }
            wave.frames[i].saved &= !lanes;
        }
        None
    }

    /// Execute one instruction of `wave` (index `wi`).
    // fsat maps NaN to 0, which `clamp` would not.
    #[allow(clippy::manual_clamp)]
    fn step(&mut self, wave: &mut Wave, wi: u32, mem: &mut Memory) -> Result<(), Fault> {
        let k = self.k;
        let pc = wave.pc;
        let Some(ins) = k.instrs.get(pc as usize) else {
            // Ran off the end of the kernel.
            if !self.spec {
                return Err(self.fault(
                    FaultKind::ControlFlow("kernel ended without `halt` (an error on wave-emu 0.1.2)".into()),
                    None,
                    wi,
                    None,
                ));
            }
            wave.done = true;
            return Ok(());
        };
        let w = self.geo.w as usize;
        let exec = match ins.pred {
            Some(p) => wave.active & pmask(&wave.preds, p),
            None => wave.active,
        };
        self.stats.wave_instructions += 1;
        self.stats.thread_instructions += exec.count_ones() as u64;
        self.cat[ins.category as usize] += 1;
        let mut next = pc + 1;
        let regs = &mut wave.regs[..];
        macro_rules! map1 {
            ($d:expr, $a:expr, $f:expr) => {{
                let (d, a) = ($d, $a);
                let g = $f;
                lanes!(exec, l, {
                    let x = rd(regs, w, a, l);
                    wr(regs, w, d, l, g(x));
                })
            }};
        }
        macro_rules! map2 {
            ($d:expr, $a:expr, $c:expr, $f:expr) => {{
                let (d, a, c) = ($d, $a, $c);
                let g = $f;
                lanes!(exec, l, {
                    let x = rd(regs, w, a, l);
                    let y = rd(regs, w, c, l);
                    wr(regs, w, d, l, g(x, y));
                })
            }};
        }
        macro_rules! map3 {
            ($d:expr, $a:expr, $c:expr, $e:expr, $f:expr) => {{
                let (d, a, c, e) = ($d, $a, $c, $e);
                let g = $f;
                lanes!(exec, l, {
                    let x = rd(regs, w, a, l);
                    let y = rd(regs, w, c, l);
                    let z = rd(regs, w, e, l);
                    wr(regs, w, d, l, g(x, y, z));
                })
            }};
        }
        match &ins.op {
            Op::Un(op, d, a) => {
                let (d, a) = (*d, *a);
                match *op {
                    UnOp::INeg => map1!(d, a, |x: u32| x.wrapping_neg()),
                    UnOp::IAbs => map1!(d, a, |x: u32| (x as i32).wrapping_abs() as u32),
                    UnOp::Not => map1!(d, a, |x: u32| !x),
                    UnOp::BitCount => map1!(d, a, |x: u32| x.count_ones()),
                    UnOp::BitFind => map1!(d, a, |x: u32| if x == 0 { u32::MAX } else { x.leading_zeros() }),
                    UnOp::BitRev => map1!(d, a, |x: u32| x.reverse_bits()),
                    UnOp::FNeg => map1!(d, a, |x: u32| x ^ 0x8000_0000),
                    UnOp::FAbs => map1!(d, a, |x: u32| x & 0x7fff_ffff),
                    UnOp::FSqrt => map1!(d, a, |x: u32| b(f(x).sqrt())),
                    UnOp::FRsqrt => map1!(d, a, |x: u32| b(1.0 / f(x).sqrt())),
                    UnOp::FRcp => map1!(d, a, |x: u32| b(1.0 / f(x))),
                    UnOp::FFloor => map1!(d, a, |x: u32| b(f(x).floor())),
                    UnOp::FCeil => map1!(d, a, |x: u32| b(f(x).ceil())),
                    UnOp::FRound => map1!(d, a, |x: u32| b(f(x).round())),
                    UnOp::FTrunc => map1!(d, a, |x: u32| b(f(x).trunc())),
                    UnOp::FFract(true) => map1!(d, a, |x: u32| b(f(x) - f(x).trunc())),
                    UnOp::FFract(false) => map1!(d, a, |x: u32| b(f(x) - f(x).floor())),
                    UnOp::FSat(false) => map1!(d, a, |x: u32| b(f(x).max(0.0).min(1.0))),
                    UnOp::FSat(true) => map1!(d, a, |x: u32| b(f(x).clamp(0.0, 1.0))),
                    UnOp::FSin => map1!(d, a, |x: u32| b(f(x).sin())),
                    UnOp::FCos => map1!(d, a, |x: u32| b(f(x).cos())),
                    UnOp::FExp2 => map1!(d, a, |x: u32| b(f(x).exp2())),
                    UnOp::FLog2 => map1!(d, a, |x: u32| b(f(x).log2())),
                }
            }
            Op::Bin(op, d, a, c) => {
                let (d, a, c) = (*d, *a, *c);
                match *op {
                    BinOp::IAdd => map2!(d, a, c, |x: u32, y: u32| x.wrapping_add(y)),
                    BinOp::ISub => map2!(d, a, c, |x: u32, y: u32| x.wrapping_sub(y)),
                    BinOp::IMul => map2!(d, a, c, |x: u32, y: u32| x.wrapping_mul(y)),
                    BinOp::IMulHi => map2!(d, a, c, |x: u32, y: u32| ((x as u64 * y as u64) >> 32) as u32),
                    BinOp::IDiv => map2!(d, a, c, |x: u32, y: u32| if y == 0 { 0 } else { (x as i32).wrapping_div(y as i32) as u32 }),
                    BinOp::IMod => map2!(d, a, c, |x: u32, y: u32| if y == 0 { 0 } else { (x as i32).wrapping_rem(y as i32) as u32 }),
                    BinOp::IMin => map2!(d, a, c, |x: u32, y: u32| (x as i32).min(y as i32) as u32),
                    BinOp::IMax => map2!(d, a, c, |x: u32, y: u32| (x as i32).max(y as i32) as u32),
                    BinOp::UMin => map2!(d, a, c, |x: u32, y: u32| x.min(y)),
                    BinOp::UMax => map2!(d, a, c, |x: u32, y: u32| x.max(y)),
                    BinOp::And => map2!(d, a, c, |x: u32, y: u32| x & y),
                    BinOp::Or => map2!(d, a, c, |x: u32, y: u32| x | y),
                    BinOp::Xor => map2!(d, a, c, |x: u32, y: u32| x ^ y),
                    BinOp::Shl => map2!(d, a, c, |x: u32, y: u32| x << (y & 31)),
                    BinOp::Shr => map2!(d, a, c, |x: u32, y: u32| x >> (y & 31)),
                    BinOp::Sar => map2!(d, a, c, |x: u32, y: u32| ((x as i32) >> (y & 31)) as u32),
                    BinOp::FAdd => map2!(d, a, c, |x: u32, y: u32| b(f(x) + f(y))),
                    BinOp::FSub => map2!(d, a, c, |x: u32, y: u32| b(f(x) - f(y))),
                    BinOp::FMul => map2!(d, a, c, |x: u32, y: u32| b(f(x) * f(y))),
                    BinOp::FDiv(t012) => {
                        map2!(d, a, c, |x: u32, y: u32| if t012 && f(y) == 0.0 { b(f32::INFINITY) } else { b(f(x) / f(y)) })
                    }
                    BinOp::FMin => map2!(d, a, c, |x: u32, y: u32| b(fmin(f(x), f(y)))),
                    BinOp::FMax => map2!(d, a, c, |x: u32, y: u32| b(fmax(f(x), f(y)))),
                    BinOp::HAdd => map2!(d, a, c, |x: u32, y: u32| h1(x, |p| p + f16_to_f32(y as u16))),
                    BinOp::HSub => map2!(d, a, c, |x: u32, y: u32| h1(x, |p| p - f16_to_f32(y as u16))),
                    BinOp::HMul => map2!(d, a, c, |x: u32, y: u32| h1(x, |p| p * f16_to_f32(y as u16))),
                    BinOp::HAdd2 => map2!(d, a, c, |x: u32, y: u32| hpair(x, y, |p, q| p + q)),
                    BinOp::HMul2 => map2!(d, a, c, |x: u32, y: u32| hpair(x, y, |p, q| p * q)),
                }
            }
            Op::Tern(op, d, a, c, e) => {
                let (d, a, c, e) = (*d, *a, *c, *e);
                match *op {
                    TernOp::IMad => map3!(d, a, c, e, |x: u32, y: u32, z: u32| x.wrapping_mul(y).wrapping_add(z)),
                    TernOp::IClamp => map3!(d, a, c, e, |x: u32, y: u32, z: u32| (x as i32).max(y as i32).min(z as i32) as u32),
                    TernOp::Fma => map3!(d, a, c, e, |x: u32, y: u32, z: u32| b(f(x).mul_add(f(y), f(z)))),
                    TernOp::FClamp => map3!(d, a, c, e, |x: u32, y: u32, z: u32| b(f(x).max(f(y)).min(f(z)))),
                    TernOp::Hma => map3!(d, a, c, e, |x: u32, y: u32, z: u32| h1(x, |p| p * f16_to_f32(y as u16) + f16_to_f32(z as u16))),
                    TernOp::Hma2 => map3!(d, a, c, e, |x: u32, y: u32, z: u32| {
                        let lo = f32_to_f16(f16_to_f32(x as u16) * f16_to_f32(y as u16) + f16_to_f32(z as u16)) as u32;
                        let hi =
                            f32_to_f16(f16_to_f32((x >> 16) as u16) * f16_to_f32((y >> 16) as u16) + f16_to_f32((z >> 16) as u16)) as u32;
                        lo | (hi << 16)
                    }),
                    TernOp::Bfe => map3!(d, a, c, e, |x: u32, off: u32, wd: u32| {
                        let wd = wd & 31;
                        if wd == 0 {
                            0
                        } else {
                            (x >> (off & 31)) & ((1u32 << wd) - 1)
                        }
                    }),
                }
            }
            Op::Bfi(d, base, insv, off, wd) => {
                let (d, base, insv, off, wd) = (*d, *base, *insv, *off, *wd);
                lanes!(exec, l, {
                    let (x, y, o, n) = (rd(regs, w, base, l), rd(regs, w, insv, l), rd(regs, w, off, l) & 31, rd(regs, w, wd, l) & 31);
                    let mask = ((1u64 << n) - 1) as u32;
                    let mask = mask << o;
                    wr(regs, w, d, l, (x & !mask) | ((y << o) & mask));
                })
            }
            Op::Dbl(op, d, a, c, e) => {
                let (d, a, c, e) = (*d as usize, *a as usize, *c as usize, *e as usize);
                let get =
                    |regs: &[u32], r: usize, l: usize| f64::from_bits(regs[r * w + l] as u64 | ((regs[(r + 1) * w + l] as u64) << 32));
                lanes!(exec, l, {
                    let x = get(regs, a, l);
                    let v = match op {
                        DblOp::DSqrt => x.sqrt(),
                        DblOp::DAdd => x + get(regs, c, l),
                        DblOp::DSub => x - get(regs, c, l),
                        DblOp::DMul => x * get(regs, c, l),
                        DblOp::DDiv => x / get(regs, c, l),
                        DblOp::Dma => x.mul_add(get(regs, c, l), get(regs, e, l)),
                    }
                    .to_bits();
                    regs[d * w + l] = v as u32;
                    regs[(d + 1) * w + l] = (v >> 32) as u32;
                })
            }
            Op::Cmp(op, pd, a, c) => {
                let (a, c) = (*a, *c);
                let mut res = 0u64;
                macro_rules! cmp {
                    ($g:expr) => {{
                        let g = $g;
                        lanes!(exec, l, {
                            if g(rd(regs, w, a, l), rd(regs, w, c, l)) {
                                res |= 1 << l;
                            }
                        })
                    }};
                }
                match op {
                    CmpOp::IEq | CmpOp::UEq => cmp!(|x: u32, y: u32| x == y),
                    CmpOp::INe => cmp!(|x: u32, y: u32| x != y),
                    CmpOp::ILt => cmp!(|x: u32, y: u32| (x as i32) < (y as i32)),
                    CmpOp::ILe => cmp!(|x: u32, y: u32| (x as i32) <= (y as i32)),
                    CmpOp::IGt => cmp!(|x: u32, y: u32| (x as i32) > (y as i32)),
                    CmpOp::IGe => cmp!(|x: u32, y: u32| (x as i32) >= (y as i32)),
                    CmpOp::ULt => cmp!(|x: u32, y: u32| x < y),
                    CmpOp::ULe => cmp!(|x: u32, y: u32| x <= y),
                    CmpOp::UGt => cmp!(|x: u32, y: u32| x > y),
                    CmpOp::UGe => cmp!(|x: u32, y: u32| x >= y),
                    CmpOp::FEq => cmp!(|x: u32, y: u32| f(x) == f(y)),
                    CmpOp::FNe => cmp!(|x: u32, y: u32| f(x) != f(y)),
                    CmpOp::FLt => cmp!(|x: u32, y: u32| f(x) < f(y)),
                    CmpOp::FLe => cmp!(|x: u32, y: u32| f(x) <= f(y)),
                    CmpOp::FGt => cmp!(|x: u32, y: u32| f(x) > f(y)),
                    CmpOp::FGe => cmp!(|x: u32, y: u32| f(x) >= f(y)),
                    CmpOp::FOrd => cmp!(|x: u32, y: u32| !f(x).is_nan() && !f(y).is_nan()),
                    CmpOp::FUnord => cmp!(|x: u32, y: u32| f(x).is_nan() || f(y).is_nan()),
                }
                let p = &mut wave.preds[*pd as usize & 3];
                *p = (*p & !exec) | res;
            }
            Op::Select(d, ps, t, fr) => {
                let pm = wave.preds[*ps as usize & 3];
                let (d, t, fr) = (*d, *t, *fr);
                lanes!(exec, l, {
                    let v = if pm >> l & 1 == 1 { rd(regs, w, t, l) } else { rd(regs, w, fr, l) };
                    wr(regs, w, d, l, v);
                })
            }
            Op::Mov(d, a) => map1!(*d, *a, |x: u32| x),
            Op::MovImm(d, v) => {
                let (d, v) = (*d, *v);
                lanes!(exec, l, { wr(regs, w, d, l, v) })
            }
            Op::MovSr(d, sr) => {
                let d = *d;
                lanes!(exec, l, {
                    let v = self.sr_value(*sr, wi, l);
                    wr(regs, w, d, l, v)
                })
            }
            Op::Cvt(op, d, a) => {
                let (d, a) = (*d, *a);
                match op {
                    CvtOp::F32ToI32 => map1!(d, a, |x: u32| f(x) as i32 as u32),
                    CvtOp::F32ToU32 => map1!(d, a, |x: u32| f(x) as u32),
                    CvtOp::I32ToF32 => map1!(d, a, |x: u32| b(x as i32 as f32)),
                    CvtOp::U32ToF32 => map1!(d, a, |x: u32| b(x as f32)),
                    CvtOp::F16ToF32 => map1!(d, a, |x: u32| b(f16_to_f32(x as u16))),
                    CvtOp::F32ToF16 => map1!(d, a, |x: u32| f32_to_f16(f(x)) as u32),
                    CvtOp::F64ToF32 => {
                        let ai = a.idx as usize;
                        lanes!(exec, l, {
                            let v = f64::from_bits(regs[ai * w + l] as u64 | ((regs[(ai + 1) * w + l] as u64) << 32));
                            wr(regs, w, d, l, b(v as f32));
                        })
                    }
                    CvtOp::F32ToF64 => {
                        let di = d.idx as usize;
                        lanes!(exec, l, {
                            let v = (f(rd(regs, w, a, l)) as f64).to_bits();
                            regs[di * w + l] = v as u32;
                            regs[(di + 1) * w + l] = (v >> 32) as u32;
                        })
                    }
                }
            }
            Op::Load { local, bytes, d, addr } => {
                let (d, addr, n) = (*d, *addr, *bytes as usize);
                let space: &[u8] = if *local { &self.local } else { &mem.bytes };
                let size = space.len();
                let mut res = Ok(());
                lanes!(exec, l, {
                    let ad = rd(regs, w, addr, l) as usize;
                    if ad + n > size {
                        let kind = out_of_bounds(*local, ad, n as u32);
                        res = Err((kind, l));
                        break;
                    }
                    let s = &space[ad..ad + n];
                    match n {
                        1 => wr(regs, w, d, l, s[0] as u32),
                        2 => wr(regs, w, d, l, u16::from_le_bytes([s[0], s[1]]) as u32),
                        _ => {
                            for (q, c) in s.chunks_exact(4).enumerate() {
                                regs[(d.idx as usize + q) * w + l] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                            }
                        }
                    }
                });
                if let Err((kind, l)) = res {
                    return Err(self.fault(kind, Some(pc), wi, Some(l)));
                }
                let c = exec.count_ones() as u64;
                if *local {
                    self.stats.local_loads += c;
                } else {
                    self.stats.device_loads += c;
                }
            }
            Op::Store { local, bytes, addr, v } => {
                let (v, addr, n) = (*v, *addr, *bytes as usize);
                let space: &mut [u8] = if *local { &mut self.local } else { &mut mem.bytes };
                let size = space.len();
                let mut res = Ok(());
                lanes!(exec, l, {
                    let ad = rd(regs, w, addr, l) as usize;
                    if ad + n > size {
                        let kind = out_of_bounds(*local, ad, n as u32);
                        res = Err((kind, l));
                        break;
                    }
                    let s = &mut space[ad..ad + n];
                    match n {
                        1 => s[0] = rd(regs, w, v, l) as u8,
                        2 => s.copy_from_slice(&(rd(regs, w, v, l) as u16).to_le_bytes()),
                        _ => {
                            for (q, c) in s.chunks_exact_mut(4).enumerate() {
                                c.copy_from_slice(&regs[(v.idx as usize + q) * w + l].to_le_bytes());
                            }
                        }
                    }
                });
                if let Err((kind, l)) = res {
                    return Err(self.fault(kind, Some(pc), wi, Some(l)));
                }
                let c = exec.count_ones() as u64;
                if *local {
                    self.stats.local_stores += c;
                } else {
                    self.stats.device_stores += c;
                }
            }
            Op::Atomic { local, op, d, addr, v, cmp } => {
                let space: &mut [u8] = if *local { &mut self.local } else { &mut mem.bytes };
                let size = space.len();
                let mut res = Ok(());
                lanes!(exec, l, {
                    let ad = rd(regs, w, *addr, l) as usize;
                    if ad + 4 > size {
                        let kind = out_of_bounds(*local, ad, 4);
                        res = Err((kind, l));
                        break;
                    }
                    let s = &mut space[ad..ad + 4];
                    let old = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                    let x = rd(regs, w, *v, l);
                    let new = match op {
                        AtomOp::Add => old.wrapping_add(x),
                        AtomOp::Sub => old.wrapping_sub(x),
                        AtomOp::Min => old.min(x),
                        AtomOp::Max => old.max(x),
                        AtomOp::And => old & x,
                        AtomOp::Or => old | x,
                        AtomOp::Xor => old ^ x,
                        AtomOp::Exchange => x,
                        AtomOp::Cas => {
                            let c = cmp.map(|c| rd(regs, w, c, l)).unwrap_or(0);
                            if old == c {
                                x
                            } else {
                                old
                            }
                        }
                    };
                    s.copy_from_slice(&new.to_le_bytes());
                    if let Some(d) = d {
                        wr(regs, w, *d, l, old);
                    }
                });
                if let Err((kind, l)) = res {
                    return Err(self.fault(kind, Some(pc), wi, Some(l)));
                }
            }
            Op::Shuffle(op, d, v, idx) => {
                let (d, v, idx) = (*d, *v, *idx);
                let spec = self.spec;
                let sc = &mut self.scratch;
                for (l, s) in sc.iter_mut().enumerate().take(w) {
                    *s = rd(regs, w, v, l);
                }
                lanes!(exec, l, {
                    let x = rd(regs, w, idx, l) as u64;
                    let l64 = l as u64;
                    let src = match op {
                        ShufOp::Idx => x,
                        ShufOp::Up => l64.wrapping_sub(x),
                        ShufOp::Down => l64 + x,
                        ShufOp::Xor => l64 ^ x,
                    };
                    // Out of range gives 0. An inactive source lane gives 0 in the spec profile
                    // (implementation-defined there) and its stale register on 0.1.2, as wave-emu.
                    let readable = src < w as u64 && (exec >> src & 1 == 1 || !spec);
                    let val = if readable { sc[src as usize] } else { 0 };
                    wr(regs, w, d, l, val);
                })
            }
            Op::Broadcast(d, v, lane) => {
                if exec != 0 {
                    let first = exec.trailing_zeros() as usize;
                    let src = rd(regs, w, *lane, first) as usize;
                    // The source lane's register is read whether or not that lane is active
                    // (so lane-banked values can be read back under divergence).
                    let val = if src < w { rd(regs, w, *v, src) } else { 0 };
                    let d = *d;
                    lanes!(exec, l, { wr(regs, w, d, l, val) })
                }
            }
            Op::Ballot(d, ps) => {
                let val = (exec & wave.preds[*ps as usize & 3]) as u32;
                let d = *d;
                lanes!(exec, l, { wr(regs, w, d, l, val) })
            }
            Op::WaveAny(pd, ps) | Op::WaveAll(pd, ps) => {
                let pm = wave.preds[*ps as usize & 3];
                let r = if matches!(ins.op, Op::WaveAny(..)) { exec & pm != 0 } else { exec & !pm == 0 };
                let p = &mut wave.preds[*pd as usize & 3];
                *p = (*p & !exec) | if r { exec } else { 0 };
            }
            Op::PrefixSum(d, v) => {
                let (d, v) = (*d, *v);
                let mut sum = 0u32;
                lanes!(exec, l, {
                    let x = rd(regs, w, v, l);
                    wr(regs, w, d, l, sum);
                    sum = sum.wrapping_add(x);
                })
            }
            Op::Reduce(op, d, v) => {
                let (d, v) = (*d, *v);
                let mut acc: u32 = match op {
                    RedOp::Min | RedOp::And => u32::MAX,
                    _ => 0,
                };
                lanes!(exec, l, {
                    let x = rd(regs, w, v, l);
                    acc = match op {
                        RedOp::Add => acc.wrapping_add(x),
                        RedOp::Min => acc.min(x),
                        RedOp::Max => acc.max(x),
                        RedOp::And => acc & x,
                        RedOp::Or => acc | x,
                        RedOp::Xor => acc ^ x,
                    };
                });
                lanes!(exec, l, { wr(regs, w, d, l, acc) })
            }
            Op::If { p, else_pc, endif_pc } => {
                if wave.frames.len() >= MAX_FRAMES {
                    return Err(self.fault(FaultKind::ControlFlow("more than 32 nested if/loop frames".into()), Some(pc), wi, None));
                }
                let then = wave.active & pmask(&wave.preds, *p);
                wave.frames.push(Frame { is_loop: false, saved: wave.active, aux: then, start_pc: 0 });
                wave.active = then;
                // Spec profile: an arm with no active lane is skipped (the `else`/`endif`
                // instruction itself still executes to keep the mask stack right).
                if then == 0 && self.spec {
                    next = if else_pc != endif_pc { *else_pc } else { *endif_pc };
                }
            }
            Op::Else { endif_pc } => {
                let Some(fr) = wave.frames.last().filter(|f| !f.is_loop) else {
                    return Err(self.fault(FaultKind::ControlFlow("`else` without an open `if`".into()), Some(pc), wi, None));
                };
                wave.active = fr.saved & !fr.aux;
                if wave.active == 0 && self.spec {
                    next = *endif_pc;
                }
            }
            Op::EndIf => match wave.frames.last() {
                Some(fr) if !fr.is_loop => {
                    wave.active = fr.saved;
                    wave.frames.pop();
                }
                _ => return Err(self.fault(FaultKind::ControlFlow("`endif` without an open `if`".into()), Some(pc), wi, None)),
            },
            Op::Loop { end_pc } => {
                if wave.frames.len() >= MAX_FRAMES {
                    return Err(self.fault(FaultKind::ControlFlow("more than 32 nested if/loop frames".into()), Some(pc), wi, None));
                }
                wave.frames.push(Frame { is_loop: true, saved: wave.active, aux: 0, start_pc: pc + 1 });
                if wave.active == 0 && self.spec {
                    next = *end_pc;
                }
            }
            Op::EndLoop { .. } => match wave.frames.last_mut() {
                Some(fr) if fr.is_loop => {
                    let again = wave.active | fr.aux;
                    fr.aux = 0;
                    if again != 0 {
                        wave.active = again;
                        next = fr.start_pc;
                    } else {
                        wave.active = fr.saved;
                        wave.frames.pop();
                    }
                }
                _ => return Err(self.fault(FaultKind::ControlFlow("`endloop` without an open `loop`".into()), Some(pc), wi, None)),
            },
            Op::Break { p, in_if } => {
                if *in_if && !self.spec {
                    return Err(self.fault(
                        FaultKind::ControlFlow("break inside if does not exit the loop on wave-emu 0.1.2".into()),
                        Some(pc),
                        wi,
                        None,
                    ));
                }
                let lanes = exec & pmask(&wave.preds, *p);
                if Self::leave_to_loop(wave, lanes).is_none() {
                    return Err(self.fault(FaultKind::ControlFlow("`break` outside a loop".into()), Some(pc), wi, None));
                }
            }
            Op::Continue { p } => {
                let lanes = exec & pmask(&wave.preds, *p);
                match Self::leave_to_loop(wave, lanes) {
                    Some(i) => wave.frames[i].aux |= lanes,
                    None => return Err(self.fault(FaultKind::ControlFlow("`continue` outside a loop".into()), Some(pc), wi, None)),
                }
            }
            Op::Call { target } => {
                let limit = if self.spec { 64 } else { 8 };
                if wave.calls.len() >= limit {
                    return Err(self.fault(FaultKind::ControlFlow(format!("call depth exceeds {limit}")), Some(pc), wi, None));
                }
                wave.calls.push((pc + 1, wave.frames.len() as u32));
                next = *target;
            }
            Op::Return => match wave.calls.pop() {
                Some((ret, depth)) => {
                    if depth as usize != wave.frames.len() {
                        return Err(self.fault(
                            FaultKind::ControlFlow("`return` inside an if/loop of the called function is not supported".into()),
                            Some(pc),
                            wi,
                            None,
                        ));
                    }
                    next = ret;
                }
                None => self.halt(wave, exec),
            },
            Op::Halt => self.halt(wave, exec),
            Op::Barrier => {
                self.stats.barriers += 1;
                wave.at_barrier = true;
            }
            Op::Fence | Op::Wait | Op::Nop => {}
        }
        wave.pc = next;
        Ok(())
    }

    fn halt(&self, wave: &mut Wave, lanes: u64) {
        if !self.spec {
            // wave-emu 0.1.2: halt stops the whole wave.
            wave.done = true;
            return;
        }
        wave.exited |= lanes;
        wave.active &= !lanes;
        for fr in wave.frames.iter_mut() {
            fr.saved &= !lanes;
            fr.aux &= !lanes;
        }
        if wave.exists & !wave.exited == 0 {
            wave.done = true;
        }
    }

    fn run_group(&mut self, waves: &mut [Wave], traces: &mut [Vec<u32>], args: &[(u32, u32)], mem: &mut Memory) -> Result<(), Fault> {
        let g = self.geo;
        let w = g.w as usize;
        self.local.iter_mut().for_each(|x| *x = 0);
        for (wi, wave) in waves.iter_mut().enumerate() {
            wave.regs.iter_mut().for_each(|x| *x = 0);
            for &(r, v) in args {
                wave.regs[r as usize * w..(r as usize + 1) * w].iter_mut().for_each(|x| *x = v);
            }
            let lanes_here = (g.threads - wi as u32 * g.w).min(g.w);
            wave.exists = if lanes_here >= 64 { u64::MAX } else { (1u64 << lanes_here) - 1 };
            wave.active = wave.exists;
            wave.exited = 0;
            wave.preds = [0; 4];
            wave.pc = 0;
            wave.frames.clear();
            wave.calls.clear();
            wave.done = false;
            wave.at_barrier = false;
        }
        let max = self.cfg.max_instructions;
        let mut count: u64 = 0;
        loop {
            let mut all_done = true;
            let mut ran = false;
            for wi in 0..waves.len() {
                if waves[wi].done {
                    continue;
                }
                all_done = false;
                if waves[wi].at_barrier {
                    continue;
                }
                let pc = waves[wi].pc;
                count += 1;
                if max != 0 && count > max {
                    return Err(self.fault(FaultKind::InstructionLimit { limit: max }, Some(pc), wi as u32, None));
                }
                if !self.spec && matches!(self.k.instrs.get(pc as usize).map(|i| &i.op), Some(Op::Barrier)) && waves.iter().any(|x| x.done)
                {
                    return Err(self.fault(FaultKind::Deadlock, Some(pc), wi as u32, None));
                }
                if (pc as usize) < self.k.instrs.len() {
                    traces[wi].push(pc);
                }
                self.step(&mut waves[wi], wi as u32, mem)?;
                ran = true;
            }
            if all_done {
                return Ok(());
            }
            if !ran {
                // Every live wave waits at a barrier: release them.
                for x in waves.iter_mut() {
                    x.at_barrier = false;
                }
            }
        }
    }
}

/// Run the dispatch. Inputs are validated by the caller.
pub(crate) fn run(k: &Kernel, cfg: &SimConfig, launch: &Launch, geo: &Geometry, mem: &mut Memory) -> Result<Stats, Fault> {
    let w = geo.w as usize;
    let regs = k.registers as usize;
    let mut ex = Exec {
        k,
        cfg,
        geo,
        spec: cfg.profile == Profile::Spec04,
        local: vec![0; k.local_memory as usize],
        scratch: vec![0; w],
        cat: [0; 9],
        stats: Stats::default(),
        wg_id: [0; 3],
    };
    let mut waves: Vec<Wave> = (0..geo.nwaves)
        .map(|_| Wave {
            regs: vec![0; regs.max(1) * w],
            preds: [0; 4],
            active: 0,
            exists: 0,
            exited: 0,
            pc: 0,
            frames: Vec::with_capacity(MAX_FRAMES),
            calls: Vec::new(),
            done: false,
            at_barrier: false,
        })
        .collect();
    let mut timing = Timing::new(&k.instrs, &cfg.cost);
    let [gx, gy, gz] = launch.grid;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                ex.wg_id = [x, y, z];
                let mut traces = timing.take_traces(geo.nwaves as usize);
                ex.run_group(&mut waves, &mut traces, &launch.args, mem)?;
                timing.admit(traces);
                ex.stats.workgroups += 1;
                ex.stats.waves += geo.nwaves as u64;
            }
        }
    }
    let mut stats = ex.stats;
    stats.cycles = timing.finish();
    for (i, name) in CATEGORY_NAMES.iter().enumerate() {
        stats.by_category.insert(name.to_string(), ex.cat[i]);
    }
    Ok(stats)
}

/// The fault for an access of `size` bytes at `addr` outside local or device memory.
fn out_of_bounds(local: bool, addr: usize, size: u32) -> FaultKind {
    if local {
        FaultKind::LocalOutOfBounds { addr: addr as u64, size }
    } else {
        FaultKind::DeviceOutOfBounds { addr: addr as u64, size }
    }
}
