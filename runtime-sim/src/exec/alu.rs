//! Lane-parallel arithmetic, compares, selects, moves and conversions.
//!
//! Each operation is a scalar function applied per lane by `map1/2/3`: when every
//! operand is a full register and all lanes are active, the loop runs over whole
//! register slices into a stack buffer (vectorized by the compiler, correct when
//! the destination is also a source); otherwise only the active lanes are visited.

use super::{lanes, rd, wr, Exec, Wave};
use crate::fp::{f16_to_f32, f32_to_f16, h1};
use crate::isa::*;

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
#[inline(always)]
fn b(x: f32) -> u32 {
    x.to_bits()
}

fn hpair(a: u32, c: u32, g: impl Fn(f32, f32) -> f32) -> u32 {
    let lo = f32_to_f16(g(f16_to_f32(a as u16), f16_to_f32(c as u16))) as u32;
    let hi = f32_to_f16(g(f16_to_f32((a >> 16) as u16), f16_to_f32((c >> 16) as u16))) as u32;
    lo | (hi << 16)
}

/// Register file of one wave: `w` lanes per register, which lanes execute, and the all-lanes mask.
pub(super) struct Lanes<'r> {
    pub regs: &'r mut [u32],
    pub w: usize,
    pub exec: u64,
    pub all: u64,
}

const FULL: Half = Half::Full;

impl Lanes<'_> {
    #[inline(always)]
    fn map1(&mut self, d: R, a: R, g: impl Fn(u32) -> u32) {
        let (w, exec) = (self.w, self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL {
            let (di, ai) = (d.idx as usize * w, a.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for (o, &x) in out[..w].iter_mut().zip(&regs[ai..ai + w]) {
                    *o = g(x);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else {
                lanes!(exec, l, { regs[di + l] = g(regs[ai + l]) })
            }
        } else {
            lanes!(exec, l, {
                let x = rd(regs, w, a, l);
                wr(regs, w, d, l, g(x));
            })
        }
    }

    #[inline(always)]
    fn map2(&mut self, d: R, a: R, c: R, g: impl Fn(u32, u32) -> u32) {
        let (w, exec) = (self.w, self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL && c.half == FULL {
            let (di, ai, ci) = (d.idx as usize * w, a.idx as usize * w, c.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for ((o, &x), &y) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]) {
                    *o = g(x, y);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else {
                lanes!(exec, l, { regs[di + l] = g(regs[ai + l], regs[ci + l]) })
            }
        } else {
            lanes!(exec, l, {
                let x = rd(regs, w, a, l);
                let y = rd(regs, w, c, l);
                wr(regs, w, d, l, g(x, y));
            })
        }
    }

    #[inline(always)]
    fn map3(&mut self, d: R, a: R, c: R, e: R, g: impl Fn(u32, u32, u32) -> u32) {
        let (w, exec) = (self.w, self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL && c.half == FULL && e.half == FULL {
            let (di, ai, ci, ei) = (d.idx as usize * w, a.idx as usize * w, c.idx as usize * w, e.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for (((o, &x), &y), &z) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]).zip(&regs[ei..ei + w]) {
                    *o = g(x, y, z);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else {
                lanes!(exec, l, { regs[di + l] = g(regs[ai + l], regs[ci + l], regs[ei + l]) })
            }
        } else {
            lanes!(exec, l, {
                let x = rd(regs, w, a, l);
                let y = rd(regs, w, c, l);
                let z = rd(regs, w, e, l);
                wr(regs, w, d, l, g(x, y, z));
            })
        }
    }

    /// The lanes (of all `w`) where `g` holds, masked by `exec`.
    #[inline(always)]
    fn cmp(&self, a: R, c: R, g: impl Fn(u32, u32) -> bool) -> u64 {
        let (w, regs) = (self.w, &*self.regs);
        let mut res = 0u64;
        if a.half == FULL && c.half == FULL {
            let (ai, ci) = (a.idx as usize * w, c.idx as usize * w);
            for (l, (&x, &y)) in regs[ai..ai + w].iter().zip(&regs[ci..ci + w]).enumerate() {
                res |= (g(x, y) as u64) << l;
            }
        } else {
            for l in 0..w {
                res |= (g(rd(regs, w, a, l), rd(regs, w, c, l)) as u64) << l;
            }
        }
        res & self.exec
    }
}

impl Exec<'_> {
    /// Unary, binary, ternary, bit-field, double and conversion operations.
    // fsat maps NaN to 0, which `clamp` would not.
    #[allow(clippy::manual_clamp)]
    pub(super) fn arith(&mut self, op: &Op, wave: &mut Wave, exec: u64) {
        let w = self.geo.w as usize;
        let mut x = Lanes { regs: &mut wave.regs, w, exec, all: self.all };
        match *op {
            Op::Un(op, d, a) => match op {
                UnOp::INeg => x.map1(d, a, |v| v.wrapping_neg()),
                UnOp::IAbs => x.map1(d, a, |v| (v as i32).wrapping_abs() as u32),
                UnOp::Not => x.map1(d, a, |v| !v),
                UnOp::BitCount => x.map1(d, a, |v| v.count_ones()),
                UnOp::BitFind => x.map1(d, a, |v| if v == 0 { u32::MAX } else { v.leading_zeros() }),
                UnOp::BitRev => x.map1(d, a, |v| v.reverse_bits()),
                UnOp::FNeg => x.map1(d, a, |v| v ^ 0x8000_0000),
                UnOp::FAbs => x.map1(d, a, |v| v & 0x7fff_ffff),
                UnOp::FSqrt => x.map1(d, a, |v| b(f(v).sqrt())),
                UnOp::FRsqrt => x.map1(d, a, |v| b(1.0 / f(v).sqrt())),
                UnOp::FRcp => x.map1(d, a, |v| b(1.0 / f(v))),
                UnOp::FFloor => x.map1(d, a, |v| b(f(v).floor())),
                UnOp::FCeil => x.map1(d, a, |v| b(f(v).ceil())),
                UnOp::FRound => x.map1(d, a, |v| b(f(v).round())),
                UnOp::FTrunc => x.map1(d, a, |v| b(f(v).trunc())),
                UnOp::FFract(true) => x.map1(d, a, |v| b(f(v) - f(v).trunc())),
                UnOp::FFract(false) => x.map1(d, a, |v| b(f(v) - f(v).floor())),
                UnOp::FSat(false) => x.map1(d, a, |v| b(f(v).max(0.0).min(1.0))),
                UnOp::FSat(true) => x.map1(d, a, |v| b(f(v).clamp(0.0, 1.0))),
                UnOp::FSin => x.map1(d, a, |v| b(f(v).sin())),
                UnOp::FCos => x.map1(d, a, |v| b(f(v).cos())),
                UnOp::FExp2 => x.map1(d, a, |v| b(f(v).exp2())),
                UnOp::FLog2 => x.map1(d, a, |v| b(f(v).log2())),
            },
            Op::Bin(op, d, a, c) => match op {
                BinOp::IAdd => x.map2(d, a, c, |p, q| p.wrapping_add(q)),
                BinOp::ISub => x.map2(d, a, c, |p, q| p.wrapping_sub(q)),
                BinOp::IMul => x.map2(d, a, c, |p, q| p.wrapping_mul(q)),
                BinOp::IMulHi => x.map2(d, a, c, |p, q| ((p as u64 * q as u64) >> 32) as u32),
                BinOp::IDiv => x.map2(d, a, c, |p, q| if q == 0 { 0 } else { (p as i32).wrapping_div(q as i32) as u32 }),
                BinOp::IMod => x.map2(d, a, c, |p, q| if q == 0 { 0 } else { (p as i32).wrapping_rem(q as i32) as u32 }),
                BinOp::IMin => x.map2(d, a, c, |p, q| (p as i32).min(q as i32) as u32),
                BinOp::IMax => x.map2(d, a, c, |p, q| (p as i32).max(q as i32) as u32),
                BinOp::UMin => x.map2(d, a, c, |p, q| p.min(q)),
                BinOp::UMax => x.map2(d, a, c, |p, q| p.max(q)),
                BinOp::And => x.map2(d, a, c, |p, q| p & q),
                BinOp::Or => x.map2(d, a, c, |p, q| p | q),
                BinOp::Xor => x.map2(d, a, c, |p, q| p ^ q),
                BinOp::Shl => x.map2(d, a, c, |p, q| p << (q & 31)),
                BinOp::Shr => x.map2(d, a, c, |p, q| p >> (q & 31)),
                BinOp::Sar => x.map2(d, a, c, |p, q| ((p as i32) >> (q & 31)) as u32),
                BinOp::FAdd => x.map2(d, a, c, |p, q| b(f(p) + f(q))),
                BinOp::FSub => x.map2(d, a, c, |p, q| b(f(p) - f(q))),
                BinOp::FMul => x.map2(d, a, c, |p, q| b(f(p) * f(q))),
                BinOp::FDiv(t012) => x.map2(d, a, c, |p, q| if t012 && f(q) == 0.0 { b(f32::INFINITY) } else { b(f(p) / f(q)) }),
                BinOp::FMin => x.map2(d, a, c, |p, q| b(f(p).min(f(q)))),
                BinOp::FMax => x.map2(d, a, c, |p, q| b(f(p).max(f(q)))),
                BinOp::HAdd => x.map2(d, a, c, |p, q| h1(p, |v| v + f16_to_f32(q as u16))),
                BinOp::HSub => x.map2(d, a, c, |p, q| h1(p, |v| v - f16_to_f32(q as u16))),
                BinOp::HMul => x.map2(d, a, c, |p, q| h1(p, |v| v * f16_to_f32(q as u16))),
                BinOp::HAdd2 => x.map2(d, a, c, |p, q| hpair(p, q, |s, t| s + t)),
                BinOp::HMul2 => x.map2(d, a, c, |p, q| hpair(p, q, |s, t| s * t)),
            },
            Op::Tern(op, d, a, c, e) => match op {
                TernOp::IMad => x.map3(d, a, c, e, |p, q, r| p.wrapping_mul(q).wrapping_add(r)),
                TernOp::IClamp => x.map3(d, a, c, e, |p, q, r| (p as i32).max(q as i32).min(r as i32) as u32),
                TernOp::Fma => x.map3(d, a, c, e, |p, q, r| b(f(p).mul_add(f(q), f(r)))),
                TernOp::FClamp => x.map3(d, a, c, e, |p, q, r| b(f(p).max(f(q)).min(f(r)))),
                TernOp::Hma => x.map3(d, a, c, e, |p, q, r| h1(p, |v| v * f16_to_f32(q as u16) + f16_to_f32(r as u16))),
                TernOp::Hma2 => x.map3(d, a, c, e, |p, q, r| {
                    let lo = f32_to_f16(f16_to_f32(p as u16) * f16_to_f32(q as u16) + f16_to_f32(r as u16)) as u32;
                    let hi = f32_to_f16(f16_to_f32((p >> 16) as u16) * f16_to_f32((q >> 16) as u16) + f16_to_f32((r >> 16) as u16)) as u32;
                    lo | (hi << 16)
                }),
                TernOp::Bfe => x.map3(d, a, c, e, |v, off, wd| {
                    let wd = wd & 31;
                    if wd == 0 {
                        0
                    } else {
                        (v >> (off & 31)) & ((1u32 << wd) - 1)
                    }
                }),
            },
            Op::Bfi(d, base, insv, off, wd) => {
                let regs = &mut *x.regs;
                lanes!(exec, l, {
                    let (v, y, o, n) = (rd(regs, w, base, l), rd(regs, w, insv, l), rd(regs, w, off, l) & 31, rd(regs, w, wd, l) & 31);
                    let mask = (((1u64 << n) - 1) as u32) << o;
                    wr(regs, w, d, l, (v & !mask) | ((y << o) & mask));
                })
            }
            Op::Dbl(op, d, a, c, e) => {
                let (d, a, c, e) = (d as usize, a as usize, c as usize, e as usize);
                let regs = &mut *x.regs;
                let get = |regs: &[u32], r: usize, l: usize| f64::from_bits(regs[r * w + l] as u64 | ((regs[(r + 1) * w + l] as u64) << 32));
                lanes!(exec, l, {
                    let p = get(regs, a, l);
                    let v = match op {
                        DblOp::DSqrt => p.sqrt(),
                        DblOp::DAdd => p + get(regs, c, l),
                        DblOp::DSub => p - get(regs, c, l),
                        DblOp::DMul => p * get(regs, c, l),
                        DblOp::DDiv => p / get(regs, c, l),
                        DblOp::Dma => p.mul_add(get(regs, c, l), get(regs, e, l)),
                    }
                    .to_bits();
                    regs[d * w + l] = v as u32;
                    regs[(d + 1) * w + l] = (v >> 32) as u32;
                })
            }
            Op::Cvt(op, d, a) => match op {
                CvtOp::F32ToI32 => x.map1(d, a, |v| f(v) as i32 as u32),
                CvtOp::F32ToU32 => x.map1(d, a, |v| f(v) as u32),
                CvtOp::I32ToF32 => x.map1(d, a, |v| b(v as i32 as f32)),
                CvtOp::U32ToF32 => x.map1(d, a, |v| b(v as f32)),
                CvtOp::F16ToF32 => x.map1(d, a, |v| b(f16_to_f32(v as u16))),
                CvtOp::F32ToF16 => x.map1(d, a, |v| f32_to_f16(f(v)) as u32),
                CvtOp::F64ToF32 => {
                    let ai = a.idx as usize;
                    let regs = &mut *x.regs;
                    lanes!(exec, l, {
                        let v = f64::from_bits(regs[ai * w + l] as u64 | ((regs[(ai + 1) * w + l] as u64) << 32));
                        wr(regs, w, d, l, b(v as f32));
                    })
                }
                CvtOp::F32ToF64 => {
                    let di = d.idx as usize;
                    let regs = &mut *x.regs;
                    lanes!(exec, l, {
                        let v = (f(rd(regs, w, a, l)) as f64).to_bits();
                        regs[di * w + l] = v as u32;
                        regs[(di + 1) * w + l] = (v >> 32) as u32;
                    })
                }
            },
            _ => {}
        }
    }

    /// Compares, selects and moves (including special registers).
    pub(super) fn moves(&mut self, op: &Op, wave: &mut Wave, exec: u64, wi: u32) {
        let w = self.geo.w as usize;
        let preds = wave.preds;
        let mut x = Lanes { regs: &mut wave.regs, w, exec, all: self.all };
        match *op {
            Op::Cmp(op, pd, a, c) => {
                let res = match op {
                    CmpOp::IEq | CmpOp::UEq => x.cmp(a, c, |p, q| p == q),
                    CmpOp::INe => x.cmp(a, c, |p, q| p != q),
                    CmpOp::ILt => x.cmp(a, c, |p, q| (p as i32) < (q as i32)),
                    CmpOp::ILe => x.cmp(a, c, |p, q| (p as i32) <= (q as i32)),
                    CmpOp::IGt => x.cmp(a, c, |p, q| (p as i32) > (q as i32)),
                    CmpOp::IGe => x.cmp(a, c, |p, q| (p as i32) >= (q as i32)),
                    CmpOp::ULt => x.cmp(a, c, |p, q| p < q),
                    CmpOp::ULe => x.cmp(a, c, |p, q| p <= q),
                    CmpOp::UGt => x.cmp(a, c, |p, q| p > q),
                    CmpOp::UGe => x.cmp(a, c, |p, q| p >= q),
                    CmpOp::FEq => x.cmp(a, c, |p, q| f(p) == f(q)),
                    CmpOp::FNe => x.cmp(a, c, |p, q| f(p) != f(q)),
                    CmpOp::FLt => x.cmp(a, c, |p, q| f(p) < f(q)),
                    CmpOp::FLe => x.cmp(a, c, |p, q| f(p) <= f(q)),
                    CmpOp::FGt => x.cmp(a, c, |p, q| f(p) > f(q)),
                    CmpOp::FGe => x.cmp(a, c, |p, q| f(p) >= f(q)),
                    CmpOp::FOrd => x.cmp(a, c, |p, q| !f(p).is_nan() && !f(q).is_nan()),
                    CmpOp::FUnord => x.cmp(a, c, |p, q| f(p).is_nan() || f(q).is_nan()),
                };
                let p = &mut wave.preds[pd as usize & 3];
                *p = (*p & !exec) | res;
            }
            Op::Select(d, ps, t, fr) => {
                let pm = preds[ps as usize & 3];
                let regs = &mut *x.regs;
                if d.half == FULL && t.half == FULL && fr.half == FULL && exec == self.all {
                    let (di, ti, fi) = (d.idx as usize * w, t.idx as usize * w, fr.idx as usize * w);
                    let mut out = [0u32; 64];
                    for (l, o) in out[..w].iter_mut().enumerate() {
                        *o = if pm >> l & 1 == 1 { regs[ti + l] } else { regs[fi + l] };
                    }
                    regs[di..di + w].copy_from_slice(&out[..w]);
                } else {
                    lanes!(exec, l, {
                        let v = if pm >> l & 1 == 1 { rd(regs, w, t, l) } else { rd(regs, w, fr, l) };
                        wr(regs, w, d, l, v);
                    })
                }
            }
            Op::Mov(d, a) => x.map1(d, a, |v| v),
            Op::MovImm(d, v) => {
                let regs = &mut *x.regs;
                if d.half == FULL && exec == self.all {
                    let di = d.idx as usize * w;
                    regs[di..di + w].fill(v);
                } else {
                    lanes!(exec, l, { wr(regs, w, d, l, v) })
                }
            }
            Op::MovSr(d, sr) => {
                let mut vals = [0u32; 64];
                self.special(sr, wi, &mut vals[..w]);
                let regs = &mut *x.regs;
                lanes!(exec, l, { wr(regs, w, d, l, vals[l]) })
            }
            _ => {}
        }
    }

    /// The value of special register `sr` in every lane of wave `wave`.
    fn special(&self, sr: Sr, wave: u32, out: &mut [u32]) {
        let g = self.geo;
        let uniform = match sr {
            Sr::WaveId => Some(wave),
            Sr::WorkgroupId(a) => Some(self.wg_id[a as usize % 3]),
            Sr::WorkgroupSize(a) => Some(g.wg[a as usize % 3]),
            Sr::GridSize(a) => Some(g.grid[a as usize % 3]),
            Sr::WaveWidth => Some(g.w),
            Sr::NumWaves => Some(g.nwaves),
            Sr::LaneId | Sr::ThreadId(_) => None,
        };
        if let Some(v) = uniform {
            out.fill(v);
            return;
        }
        if sr == Sr::LaneId {
            for (l, o) in out.iter_mut().enumerate() {
                *o = l as u32;
            }
            return;
        }
        // Thread ids: divide once for the wave's first thread, then count up.
        let first = wave * g.w;
        let (mut x, mut y, mut z) = (first % g.wg[0], (first / g.wg[0]) % g.wg[1], first / (g.wg[0] * g.wg[1]));
        for o in out.iter_mut() {
            *o = match sr {
                Sr::ThreadId(0) => x,
                Sr::ThreadId(1) => y,
                _ => z,
            };
            x += 1;
            if x == g.wg[0] {
                x = 0;
                y += 1;
                if y == g.wg[1] {
                    y = 0;
                    z += 1;
                }
            }
        }
    }
}
