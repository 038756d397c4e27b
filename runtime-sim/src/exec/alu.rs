//! Lane-parallel arithmetic, compares, selects, moves and conversions.
//!
//! Every operation is a scalar function of its operands (one zero-sized type per
//! operation, `Op1`/`Op2`/`Op3`/`Pred2`), applied per lane by `map1/2/3`. When
//! every operand is a full register and all lanes are active, the loop runs over
//! whole register slices into a stack buffer (vectorized by the compiler, correct
//! when the destination is also a source); otherwise only the active lanes are
//! visited. [`kernel_for`] picks an instruction's lane kernel once, before the
//! run, so executing it is one indirect call.

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

/// One wave's registers and predicates, which lanes execute, and the all-lanes mask.
pub(super) struct Lanes<'r> {
    pub regs: &'r mut [u32],
    pub preds: &'r mut [u64; 4],
    pub w: usize,
    pub exec: u64,
    pub all: u64,
}

const FULL: Half = Half::Full;

/// Whether a partial mask has enough active lanes that computing all `w` lanes
/// (vectorized) and blending beats visiting the active ones one by one.
#[inline(always)]
fn dense(exec: u64, w: usize) -> bool {
    exec.count_ones() as usize * 4 >= w
}

/// Bit `i` of a 32-lane chunk of a mask, per lane (a constant the blend compares against).
const LANE_BIT: [u32; 32] = {
    let mut b = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        b[i] = 1 << i;
        i += 1;
    }
    b
};

/// `dst[l] = src[l]` for the lanes `l` set in `mask`; the others keep their value.
/// Written over 32-lane chunks with constant lane bits so that it vectorizes.
#[inline(always)]
pub(super) fn blend(dst: &mut [u32], src: &[u32], mask: u64) {
    for (k, (dc, sc)) in dst.chunks_mut(32).zip(src.chunks(32)).enumerate() {
        let m = (mask >> (32 * k)) as u32;
        for ((d, &s), &bit) in dc.iter_mut().zip(sc).zip(&LANE_BIT) {
            let sel = 0u32.wrapping_sub((m & bit != 0) as u32);
            *d = (s & sel) | (*d & !sel);
        }
    }
}

impl Lanes<'_> {
    #[inline(always)]
    fn map1<const W: usize>(&mut self, d: R, a: R, g: impl Fn(u32) -> u32) {
        let (w, exec) = (lanes::<W>(self.w), self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL {
            let (di, ai) = (d.idx as usize * w, a.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for (o, &x) in out[..w].iter_mut().zip(&regs[ai..ai + w]) {
                    *o = g(x);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else if dense(exec, w) {
                let mut out = [0u32; 64];
                for (o, &x) in out[..w].iter_mut().zip(&regs[ai..ai + w]) {
                    *o = g(x);
                }
                blend(&mut regs[di..di + w], &out[..w], exec);
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
    fn map2<const W: usize>(&mut self, d: R, a: R, c: R, g: impl Fn(u32, u32) -> u32) {
        let (w, exec) = (lanes::<W>(self.w), self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL && c.half == FULL {
            let (di, ai, ci) = (d.idx as usize * w, a.idx as usize * w, c.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for ((o, &x), &y) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]) {
                    *o = g(x, y);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else if dense(exec, w) {
                let mut out = [0u32; 64];
                for ((o, &x), &y) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]) {
                    *o = g(x, y);
                }
                blend(&mut regs[di..di + w], &out[..w], exec);
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
    fn map3<const W: usize>(&mut self, d: R, a: R, c: R, e: R, g: impl Fn(u32, u32, u32) -> u32) {
        let (w, exec) = (lanes::<W>(self.w), self.exec);
        let regs = &mut *self.regs;
        if d.half == FULL && a.half == FULL && c.half == FULL && e.half == FULL {
            let (di, ai, ci, ei) = (d.idx as usize * w, a.idx as usize * w, c.idx as usize * w, e.idx as usize * w);
            if exec == self.all {
                let mut out = [0u32; 64];
                for (((o, &x), &y), &z) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]).zip(&regs[ei..ei + w]) {
                    *o = g(x, y, z);
                }
                regs[di..di + w].copy_from_slice(&out[..w]);
            } else if dense(exec, w) {
                let mut out = [0u32; 64];
                for (((o, &x), &y), &z) in out[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]).zip(&regs[ei..ei + w]) {
                    *o = g(x, y, z);
                }
                blend(&mut regs[di..di + w], &out[..w], exec);
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
    fn cmp<const W: usize>(&self, a: R, c: R, g: impl Fn(u32, u32) -> bool) -> u64 {
        let (w, regs) = (lanes::<W>(self.w), &*self.regs);
        let mut bits = [0u8; 64];
        if a.half == FULL && c.half == FULL {
            let (ai, ci) = (a.idx as usize * w, c.idx as usize * w);
            for ((o, &x), &y) in bits[..w].iter_mut().zip(&regs[ai..ai + w]).zip(&regs[ci..ci + w]) {
                *o = g(x, y) as u8;
            }
        } else {
            for (l, o) in bits[..w].iter_mut().enumerate() {
                *o = g(rd(regs, w, a, l), rd(regs, w, c, l)) as u8;
            }
        }
        // Pack eight 0/1 bytes into eight bits at a time.
        let mut res = 0u64;
        for (i, chunk) in bits.chunks_exact(8).enumerate() {
            let v = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
            res |= (v.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
        }
        res & self.exec
    }
}

/// Operands of an instruction with a lane kernel.
#[derive(Clone, Copy, Debug)]
pub(super) struct AluOps {
    d: R,
    a: R,
    b: R,
    c: R,
    /// Immediate value, or the predicate written (compares) or read (selects).
    imm: u32,
}

/// Executes one instruction's lanes.
pub(super) type Kernel = fn(&mut Lanes, &AluOps);

trait Op1 {
    fn f(x: u32) -> u32;
}
trait Op2 {
    fn f(x: u32, y: u32) -> u32;
}
trait Op3 {
    fn f(x: u32, y: u32, z: u32) -> u32;
}
trait Pred2 {
    fn f(x: u32, y: u32) -> bool;
}

fn k1<T: Op1, const W: usize>(x: &mut Lanes, o: &AluOps) {
    x.map1::<W>(o.d, o.a, T::f)
}
fn k2<T: Op2, const W: usize>(x: &mut Lanes, o: &AluOps) {
    x.map2::<W>(o.d, o.a, o.b, T::f)
}
fn k3<T: Op3, const W: usize>(x: &mut Lanes, o: &AluOps) {
    x.map3::<W>(o.d, o.a, o.b, o.c, T::f)
}
/// Shifts: SSE2 has no per-lane shift amount, but it shifts every lane by one
/// amount, the usual case (a constant in a register): then the loop vectorizes.
fn kshift<T: Op2, const W: usize>(x: &mut Lanes, o: &AluOps) {
    let w = lanes::<W>(x.w);
    // Every lane's amount (active or not) the same: `map1` computes only with it.
    if o.d.half == FULL && o.a.half == FULL && o.b.half == FULL {
        let bi = o.b.idx as usize * w;
        let amounts = &x.regs[bi..bi + w];
        let s = amounts[0];
        if amounts.iter().fold(0, |d, &v| d | (v ^ s)) == 0 {
            return x.map1::<W>(o.d, o.a, |v| T::f(v, s));
        }
    }
    x.map2::<W>(o.d, o.a, o.b, T::f)
}

fn kcmp<T: Pred2, const W: usize>(x: &mut Lanes, o: &AluOps) {
    let res = x.cmp::<W>(o.a, o.b, T::f);
    let p = &mut x.preds[o.imm as usize & 3];
    *p = (*p & !x.exec) | res;
}

/// Defines one zero-sized type per operation with its scalar function.
macro_rules! ops {
    ($tr:ident: $($name:ident |$($v:ident),+| $e:expr;)*) => {
        $(
            struct $name;
            impl $tr for $name {
                #[inline(always)]
                #[allow(clippy::manual_clamp)] // fsat maps NaN to 0, which `clamp` would not
                fn f($($v: u32),+) -> ret_ty!($tr) {
                    $e
                }
            }
        )*
    };
}
macro_rules! ret_ty {
    (Pred2) => {
        bool
    };
    ($t:ident) => {
        u32
    };
}

ops! { Op1:
    INeg |v| v.wrapping_neg();
    IAbs |v| (v as i32).wrapping_abs() as u32;
    Not |v| !v;
    BitCount |v| v.count_ones();
    BitFind |v| if v == 0 { u32::MAX } else { v.leading_zeros() };
    BitRev |v| v.reverse_bits();
    FNeg |v| v ^ 0x8000_0000;
    FAbs |v| v & 0x7fff_ffff;
    FSqrt |v| b(f(v).sqrt());
    FRsqrt |v| b(1.0 / f(v).sqrt());
    FRcp |v| b(1.0 / f(v));
    FFloor |v| b(f(v).floor());
    FCeil |v| b(f(v).ceil());
    FRound |v| b(f(v).round());
    FTrunc |v| b(f(v).trunc());
    FFractTrunc |v| b(f(v) - f(v).trunc());
    FFractFloor |v| b(f(v) - f(v).floor());
    FSatSpec |v| b(f(v).max(0.0).min(1.0));
    FSatClamp |v| b(f(v).clamp(0.0, 1.0));
    FSin |v| b(f(v).sin());
    FCos |v| b(f(v).cos());
    FExp2 |v| b(f(v).exp2());
    FLog2 |v| b(f(v).log2());
    Copy |v| v;
    CvtF32ToI32 |v| f(v) as i32 as u32;
    CvtF32ToU32 |v| f(v) as u32;
    CvtI32ToF32 |v| b(v as i32 as f32);
    CvtU32ToF32 |v| b(v as f32);
    CvtF16ToF32 |v| b(f16_to_f32(v as u16));
    CvtF32ToF16 |v| f32_to_f16(f(v)) as u32;
}

ops! { Op2:
    IAdd |p, q| p.wrapping_add(q);
    ISub |p, q| p.wrapping_sub(q);
    IMul |p, q| p.wrapping_mul(q);
    IMulHi |p, q| ((p as u64 * q as u64) >> 32) as u32;
    IDiv |p, q| if q == 0 { 0 } else { (p as i32).wrapping_div(q as i32) as u32 };
    IMod |p, q| if q == 0 { 0 } else { (p as i32).wrapping_rem(q as i32) as u32 };
    IMin |p, q| (p as i32).min(q as i32) as u32;
    IMax |p, q| (p as i32).max(q as i32) as u32;
    UMin |p, q| p.min(q);
    UMax |p, q| p.max(q);
    And |p, q| p & q;
    Or |p, q| p | q;
    Xor |p, q| p ^ q;
    Shl |p, q| p << (q & 31);
    Shr |p, q| p >> (q & 31);
    Sar |p, q| ((p as i32) >> (q & 31)) as u32;
    FAdd |p, q| b(f(p) + f(q));
    FSub |p, q| b(f(p) - f(q));
    FMul |p, q| b(f(p) * f(q));
    FDivSpec |p, q| b(f(p) / f(q));
    FDiv012 |p, q| if f(q) == 0.0 { b(f32::INFINITY) } else { b(f(p) / f(q)) };
    FMin |p, q| b(f(p).min(f(q)));
    FMax |p, q| b(f(p).max(f(q)));
    HAdd |p, q| h1(p, |v| v + f16_to_f32(q as u16));
    HSub |p, q| h1(p, |v| v - f16_to_f32(q as u16));
    HMul |p, q| h1(p, |v| v * f16_to_f32(q as u16));
    HAdd2 |p, q| hpair(p, q, |s, t| s + t);
    HMul2 |p, q| hpair(p, q, |s, t| s * t);
}

ops! { Op3:
    IMad |p, q, r| p.wrapping_mul(q).wrapping_add(r);
    IClamp |p, q, r| (p as i32).max(q as i32).min(r as i32) as u32;
    Fma |p, q, r| b(f(p).mul_add(f(q), f(r)));
    FClamp |p, q, r| b(f(p).max(f(q)).min(f(r)));
    Hma |p, q, r| h1(p, |v| v * f16_to_f32(q as u16) + f16_to_f32(r as u16));
    Hma2 |p, q, r| {
        let lo = f32_to_f16(f16_to_f32(p as u16) * f16_to_f32(q as u16) + f16_to_f32(r as u16)) as u32;
        let hi = f32_to_f16(f16_to_f32((p >> 16) as u16) * f16_to_f32((q >> 16) as u16) + f16_to_f32((r >> 16) as u16)) as u32;
        lo | (hi << 16)
    };
    Bfe |v, off, wd| {
        let wd = wd & 31;
        if wd == 0 {
            0
        } else {
            (v >> (off & 31)) & ((1u32 << wd) - 1)
        }
    };
}

ops! { Pred2:
    CEq |p, q| p == q;
    CNe |p, q| p != q;
    CLt |p, q| (p as i32) < (q as i32);
    CLe |p, q| (p as i32) <= (q as i32);
    CGt |p, q| (p as i32) > (q as i32);
    CGe |p, q| (p as i32) >= (q as i32);
    CULt |p, q| p < q;
    CULe |p, q| p <= q;
    CUGt |p, q| p > q;
    CUGe |p, q| p >= q;
    CFEq |p, q| f(p) == f(q);
    CFNe |p, q| f(p) != f(q);
    CFLt |p, q| f(p) < f(q);
    CFLe |p, q| f(p) <= f(q);
    CFGt |p, q| f(p) > f(q);
    CFGe |p, q| f(p) >= f(q);
    CFOrd |p, q| !f(p).is_nan() && !f(q).is_nan();
    CFUnord |p, q| f(p).is_nan() || f(q).is_nan();
}

fn kmovimm<const W: usize>(x: &mut Lanes, o: &AluOps) {
    let (w, exec, d, v) = (lanes::<W>(x.w), x.exec, o.d, o.imm);
    let regs = &mut *x.regs;
    if d.half != FULL {
        lanes!(exec, l, { wr(regs, w, d, l, v) })
    } else if exec == x.all {
        let di = d.idx as usize * w;
        regs[di..di + w].fill(v);
    } else if dense(exec, w) {
        // Blend the immediate in (no buffer of copies of it to blend from).
        let di = d.idx as usize * w;
        for (k, dc) in regs[di..di + w].chunks_mut(32).enumerate() {
            let m = (exec >> (32 * k)) as u32;
            for (d, &bit) in dc.iter_mut().zip(&LANE_BIT) {
                let sel = 0u32.wrapping_sub((m & bit != 0) as u32);
                *d = (v & sel) | (*d & !sel);
            }
        }
    } else {
        let di = d.idx as usize * w;
        lanes!(exec, l, { regs[di + l] = v })
    }
}

fn kselect<const W: usize>(x: &mut Lanes, o: &AluOps) {
    let pm = x.preds[o.imm as usize & 3];
    let (w, exec, d, t, fr) = (lanes::<W>(x.w), x.exec, o.d, o.a, o.b);
    let regs = &mut *x.regs;
    if d.half == FULL && t.half == FULL && fr.half == FULL && exec == x.all {
        let (di, ti, fi) = (d.idx as usize * w, t.idx as usize * w, fr.idx as usize * w);
        let mut out = [0u32; 64];
        for (l, o) in out[..w].iter_mut().enumerate() {
            *o = if pm >> l & 1 == 1 { regs[ti + l] } else { regs[fi + l] };
        }
        regs[di..di + w].copy_from_slice(&out[..w]);
    } else if d.half == FULL && t.half == FULL && fr.half == FULL && dense(exec, w) {
        let (di, ti, fi) = (d.idx as usize * w, t.idx as usize * w, fr.idx as usize * w);
        let mut out = [0u32; 64];
        blend(&mut out[..w], &regs[fi..fi + w], !pm);
        blend(&mut out[..w], &regs[ti..ti + w], pm);
        blend(&mut regs[di..di + w], &out[..w], exec);
    } else {
        lanes!(exec, l, {
            let v = if pm >> l & 1 == 1 { rd(regs, w, t, l) } else { rd(regs, w, fr, l) };
            wr(regs, w, d, l, v);
        })
    }
}

/// The lane kernel and operands of `op` for waves of `w` lanes, for the
/// operations that only touch registers and predicates of their own lanes (None
/// for the others). The usual widths get kernels compiled for that width (loops
/// of a known length: unrolled, no calls to copy or clear the lane buffers).
pub(super) fn kernel_for(op: &Op, w: usize) -> Option<(Kernel, AluOps)> {
    match w {
        32 => kernel_for_width::<32>(op),
        64 => kernel_for_width::<64>(op),
        _ => kernel_for_width::<0>(op),
    }
}

/// The wave width the kernels run with: `W`, or `w` when `W` is 0 (any width).
#[inline(always)]
fn lanes<const W: usize>(w: usize) -> usize {
    if W == 0 {
        w
    } else {
        W
    }
}

fn kernel_for_width<const W: usize>(op: &Op) -> Option<(Kernel, AluOps)> {
    let z = R::full(0);
    let ops = |d: R, a: R, b: R, c: R, imm: u32| AluOps { d, a, b, c, imm };
    Some(match *op {
        Op::Un(u, d, a) => {
            let k: Kernel = match u {
                UnOp::INeg => k1::<INeg, W>,
                UnOp::IAbs => k1::<IAbs, W>,
                UnOp::Not => k1::<Not, W>,
                UnOp::BitCount => k1::<BitCount, W>,
                UnOp::BitFind => k1::<BitFind, W>,
                UnOp::BitRev => k1::<BitRev, W>,
                UnOp::FNeg => k1::<FNeg, W>,
                UnOp::FAbs => k1::<FAbs, W>,
                UnOp::FSqrt => k1::<FSqrt, W>,
                UnOp::FRsqrt => k1::<FRsqrt, W>,
                UnOp::FRcp => k1::<FRcp, W>,
                UnOp::FFloor => k1::<FFloor, W>,
                UnOp::FCeil => k1::<FCeil, W>,
                UnOp::FRound => k1::<FRound, W>,
                UnOp::FTrunc => k1::<FTrunc, W>,
                UnOp::FFract(true) => k1::<FFractTrunc, W>,
                UnOp::FFract(false) => k1::<FFractFloor, W>,
                UnOp::FSat(false) => k1::<FSatSpec, W>,
                UnOp::FSat(true) => k1::<FSatClamp, W>,
                UnOp::FSin => k1::<FSin, W>,
                UnOp::FCos => k1::<FCos, W>,
                UnOp::FExp2 => k1::<FExp2, W>,
                UnOp::FLog2 => k1::<FLog2, W>,
            };
            (k, ops(d, a, z, z, 0))
        }
        Op::Bin(bop, d, a, c) => {
            let k: Kernel = match bop {
                BinOp::IAdd => k2::<IAdd, W>,
                BinOp::ISub => k2::<ISub, W>,
                BinOp::IMul => k2::<IMul, W>,
                BinOp::IMulHi => k2::<IMulHi, W>,
                BinOp::IDiv => k2::<IDiv, W>,
                BinOp::IMod => k2::<IMod, W>,
                BinOp::IMin => k2::<IMin, W>,
                BinOp::IMax => k2::<IMax, W>,
                BinOp::UMin => k2::<UMin, W>,
                BinOp::UMax => k2::<UMax, W>,
                BinOp::And => k2::<And, W>,
                BinOp::Or => k2::<Or, W>,
                BinOp::Xor => k2::<Xor, W>,
                BinOp::Shl => kshift::<Shl, W>,
                BinOp::Shr => kshift::<Shr, W>,
                BinOp::Sar => kshift::<Sar, W>,
                BinOp::FAdd => k2::<FAdd, W>,
                BinOp::FSub => k2::<FSub, W>,
                BinOp::FMul => k2::<FMul, W>,
                BinOp::FDiv(false) => k2::<FDivSpec, W>,
                BinOp::FDiv(true) => k2::<FDiv012, W>,
                BinOp::FMin => k2::<FMin, W>,
                BinOp::FMax => k2::<FMax, W>,
                BinOp::HAdd => k2::<HAdd, W>,
                BinOp::HSub => k2::<HSub, W>,
                BinOp::HMul => k2::<HMul, W>,
                BinOp::HAdd2 => k2::<HAdd2, W>,
                BinOp::HMul2 => k2::<HMul2, W>,
            };
            (k, ops(d, a, c, z, 0))
        }
        Op::Tern(t, d, a, c, e) => {
            let k: Kernel = match t {
                TernOp::IMad => k3::<IMad, W>,
                TernOp::IClamp => k3::<IClamp, W>,
                TernOp::Fma => k3::<Fma, W>,
                TernOp::FClamp => k3::<FClamp, W>,
                TernOp::Hma => k3::<Hma, W>,
                TernOp::Hma2 => k3::<Hma2, W>,
                TernOp::Bfe => k3::<Bfe, W>,
            };
            (k, ops(d, a, c, e, 0))
        }
        Op::Cmp(c, pd, a, bb) => {
            let k: Kernel = match c {
                CmpOp::IEq | CmpOp::UEq => kcmp::<CEq, W>,
                CmpOp::INe => kcmp::<CNe, W>,
                CmpOp::ILt => kcmp::<CLt, W>,
                CmpOp::ILe => kcmp::<CLe, W>,
                CmpOp::IGt => kcmp::<CGt, W>,
                CmpOp::IGe => kcmp::<CGe, W>,
                CmpOp::ULt => kcmp::<CULt, W>,
                CmpOp::ULe => kcmp::<CULe, W>,
                CmpOp::UGt => kcmp::<CUGt, W>,
                CmpOp::UGe => kcmp::<CUGe, W>,
                CmpOp::FEq => kcmp::<CFEq, W>,
                CmpOp::FNe => kcmp::<CFNe, W>,
                CmpOp::FLt => kcmp::<CFLt, W>,
                CmpOp::FLe => kcmp::<CFLe, W>,
                CmpOp::FGt => kcmp::<CFGt, W>,
                CmpOp::FGe => kcmp::<CFGe, W>,
                CmpOp::FOrd => kcmp::<CFOrd, W>,
                CmpOp::FUnord => kcmp::<CFUnord, W>,
            };
            (k, ops(z, a, bb, z, pd as u32))
        }
        Op::Cvt(c, d, a) => {
            let k: Kernel = match c {
                CvtOp::F32ToI32 => k1::<CvtF32ToI32, W>,
                CvtOp::F32ToU32 => k1::<CvtF32ToU32, W>,
                CvtOp::I32ToF32 => k1::<CvtI32ToF32, W>,
                CvtOp::U32ToF32 => k1::<CvtU32ToF32, W>,
                CvtOp::F16ToF32 => k1::<CvtF16ToF32, W>,
                CvtOp::F32ToF16 => k1::<CvtF32ToF16, W>,
                // Register pairs: see `Exec::arith`.
                CvtOp::F64ToF32 | CvtOp::F32ToF64 => return None,
            };
            (k, ops(d, a, z, z, 0))
        }
        Op::Select(d, ps, t, fr) => (kselect::<W> as Kernel, ops(d, t, fr, z, ps as u32)),
        Op::Mov(d, a) => (k1::<Copy, W> as Kernel, ops(d, a, z, z, 0)),
        Op::MovImm(d, v) => (kmovimm::<W> as Kernel, ops(d, z, z, z, v)),
        _ => return None,
    })
}

impl Exec<'_> {
    /// The register operations without a lane kernel: bit-field insert, doubles,
    /// conversions of register pairs, special registers.
    pub(super) fn arith(&mut self, op: &Op, wave: &mut Wave, exec: u64, wi: u32) {
        let w = self.geo.w as usize;
        let regs = &mut wave.regs[..];
        match *op {
            Op::Bfi(d, base, insv, off, wd) => lanes!(exec, l, {
                let (v, y, o, n) = (rd(regs, w, base, l), rd(regs, w, insv, l), rd(regs, w, off, l) & 31, rd(regs, w, wd, l) & 31);
                let mask = (((1u64 << n) - 1) as u32) << o;
                wr(regs, w, d, l, (v & !mask) | ((y << o) & mask));
            }),
            Op::Dbl(op, d, a, c, e) => {
                let (d, a, c, e) = (d as usize, a as usize, c as usize, e as usize);
                let get =
                    |regs: &[u32], r: usize, l: usize| f64::from_bits(regs[r * w + l] as u64 | ((regs[(r + 1) * w + l] as u64) << 32));
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
            Op::Cvt(CvtOp::F64ToF32, d, a) => {
                let ai = a.idx as usize;
                lanes!(exec, l, {
                    let v = f64::from_bits(regs[ai * w + l] as u64 | ((regs[(ai + 1) * w + l] as u64) << 32));
                    wr(regs, w, d, l, b(v as f32));
                })
            }
            Op::Cvt(CvtOp::F32ToF64, d, a) => {
                let di = d.idx as usize;
                lanes!(exec, l, {
                    let v = (f(rd(regs, w, a, l)) as f64).to_bits();
                    regs[di * w + l] = v as u32;
                    regs[(di + 1) * w + l] = (v >> 32) as u32;
                })
            }
            Op::MovSr(d, sr) => {
                let mut vals = [0u32; 64];
                self.special(sr, wi, &mut vals[..w]);
                if d.half == FULL {
                    let di = d.idx as usize * w;
                    blend(&mut regs[di..di + w], &vals[..w], exec);
                } else {
                    lanes!(exec, l, { wr(regs, w, d, l, vals[l]) })
                }
            }
            _ => {}
        }
    }

    /// The value of special register `sr` in every lane of wave `wave`.
    pub(super) fn special(&self, sr: Sr, wave: u32, out: &mut [u32]) {
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
        if x as usize + out.len() <= g.wg[0] as usize {
            // The wave lies within one row of the group (the usual case): x counts
            // up, y and z are the same for every lane.
            match sr {
                Sr::ThreadId(0) => out.iter_mut().zip(x..).for_each(|(o, v)| *o = v),
                Sr::ThreadId(1) => out.fill(y),
                _ => out.fill(z),
            }
            return;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_takes_exactly_the_masked_lanes() {
        for w in [1usize, 5, 32, 33, 64] {
            for mask in [0u64, 1, 0x8000_0001, 0xdead_beef_f00d_cafe, u64::MAX] {
                let src: Vec<u32> = (0..w as u32).map(|i| 1000 + i).collect();
                let mut dst: Vec<u32> = (0..w as u32).collect();
                blend(&mut dst, &src, mask);
                for (l, &got) in dst.iter().enumerate() {
                    let want = if mask >> l & 1 == 1 { 1000 + l as u32 } else { l as u32 };
                    assert_eq!(got, want, "w {w} mask {mask:#x} lane {l}");
                }
            }
        }
    }

    /// A partial mask gives the same registers through the dense (blend) and the
    /// sparse (lane by lane) path, for 1-, 2- and 3-operand ops, moves and selects,
    /// including a destination that is also a source.
    #[test]
    fn dense_and_sparse_partial_masks_agree() {
        let w = 32usize;
        let r = R::full;
        let cases: [(Kernel, AluOps); 5] = [
            (k1::<INeg, 0>, AluOps { d: r(1), a: r(1), b: r(0), c: r(0), imm: 0 }),
            (k2::<IAdd, 32>, AluOps { d: r(0), a: r(0), b: r(2), c: r(0), imm: 0 }),
            (k3::<IMad, 0>, AluOps { d: r(3), a: r(1), b: r(2), c: r(3), imm: 0 }),
            (kmovimm::<32>, AluOps { d: r(2), a: r(0), b: r(0), c: r(0), imm: 77 }),
            (kselect::<32>, AluOps { d: r(1), a: r(2), b: r(3), c: r(0), imm: 1 }),
        ];
        for (k, ops) in cases {
            // Three dense masks and a sparse one (the same path both ways).
            for exec in [0x0000_0f0fu64, 0xffff_fff0, 0x5555_5555, 0x8000_0001] {
                let init: Vec<u32> = (0..4 * w as u32).map(|i| i.wrapping_mul(2654435761)).collect();
                let preds = [0, 0x3333_3333, 0, 0];
                let run = |dense_path: bool| {
                    let mut regs = init.clone();
                    let mut p = preds;
                    if dense_path {
                        let mut lanes = Lanes { regs: &mut regs, preds: &mut p, w, exec, all: u32::MAX as u64 };
                        k(&mut lanes, &ops);
                    } else {
                        // Lane by lane: one lane at a time is never dense.
                        let mut m = exec;
                        while m != 0 {
                            let one = m & m.wrapping_neg();
                            m &= m - 1;
                            let mut lanes = Lanes { regs: &mut regs, preds: &mut p, w, exec: one, all: u32::MAX as u64 };
                            k(&mut lanes, &ops);
                        }
                    }
                    regs
                };
                assert_eq!(run(true), run(false), "exec {exec:#x}");
            }
        }
    }
}
