//! Builtin intrinsics, atomics, barriers and `GetDimensions`, expanded into
//! IR instructions leaf by leaf. Sums (`dot`, `mul`) add products in index
//! order, each product and sum rounded (no fused multiply-add), so results
//! are reproducible; `mad` is one fused `fma` on floats.

use super::convert::wide;
use super::place::BufferArg;
use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{self, AtomicOp as TAtomic, Expr, Intrinsic, ScalarType, Type as TType};
use crate::ir::*;

impl Lowerer<'_> {
    /// Applies a 32-bit operation `f` to a leaf of scalar type `s`, widening 16-bit values around it.
    fn on_wide(&mut self, s: ScalarType, vals: &[Value], span: Span, f: impl FnOnce(&mut Self, ScalarType, &[Value]) -> Value) -> Value {
        let w: Vec<Value> = vals.iter().map(|&v| self.widen(s, v, span)).collect();
        let r = f(self, wide(s), &w);
        self.narrow(s, r, span)
    }

    fn min_max(&mut self, s: ScalarType, max: bool, a: Value, b: Value, span: Span) -> Value {
        if s.is_64bit() {
            return self.min_max_op64(s, max, a, b, span);
        }
        self.on_wide(s, &[a, b], span, |l, w, v| {
            let op = match (w, max) {
                (ScalarType::Float, false) => BinaryOp::FMin,
                (ScalarType::Float, true) => BinaryOp::FMax,
                (ScalarType::Int, false) => BinaryOp::SMin,
                (ScalarType::Int, true) => BinaryOp::SMax,
                (_, false) => BinaryOp::UMin,
                (_, true) => BinaryOp::UMax,
            };
            l.binary(op, v[0], v[1], span)
        })
    }

    fn mul_add(&mut self, s: ScalarType, a: Value, b: Value, acc: Option<Value>, span: Span) -> Value {
        match acc {
            Some(acc) if self.contract && s == ScalarType::Float => self.fma(a, b, acc, span),
            Some(acc) => {
                let p = self.binary_op(tast::BinaryOp::Mul, s, a, b, span);
                self.binary_op(tast::BinaryOp::Add, s, acc, p, span)
            }
            None => self.binary_op(tast::BinaryOp::Mul, s, a, b, span),
        }
    }

    /// Sum of products `a[i] * b[i]`, in index order.
    fn dot(&mut self, s: ScalarType, a: &[Value], b: &[Value], span: Span) -> Value {
        let mut acc = None;
        for (&x, &y) in a.iter().zip(b) {
            acc = Some(self.mul_add(s, x, y, acc, span));
        }
        acc.unwrap_or_else(|| self.typed_const(s, 0.0, span))
    }

    pub(super) fn intrinsic(&mut self, op: Intrinsic, args: &[Expr], ty: TType, span: Span) -> Vec<Value> {
        use Intrinsic::*;
        let vals: Vec<Vec<Value>> = args.iter().map(|a| self.expr(a)).collect();
        let s = args.first().and_then(|a| a.ty.scalar()).unwrap_or(ScalarType::Float);
        let n = vals.first().map_or(0, |v| v.len());
        let each = |l: &mut Self, f: &mut dyn FnMut(&mut Self, usize) -> Value| (0..n).map(|i| f(l, i)).collect::<Vec<Value>>();
        let float_unary = |l: &mut Self, uop: UnaryOp| {
            let v = vals[0].clone();
            v.into_iter().map(|x| l.on_wide(s, &[x], span, |l, _, w| l.unary(uop, w[0], span))).collect::<Vec<Value>>()
        };
        if s == ScalarType::Double {
            if let Some(r) = self.intrinsic_f64(op, &vals, span) {
                return r;
            }
        } else if s.is_64bit() {
            if let Some(r) = self.intrinsic64(op, s, &vals, span) {
                return r;
            }
        }
        match op {
            Abs => each(self, &mut |l, i| {
                l.on_wide(s, &[vals[0][i]], span, |l, w, v| match w {
                    ScalarType::Float => l.unary(UnaryOp::FAbs, v[0], span),
                    ScalarType::Int => l.unary(UnaryOp::IAbs, v[0], span),
                    _ => v[0],
                })
            }),
            Min | Max => each(self, &mut |l, i| l.min_max(s, op == Max, vals[0][i], vals[1][i], span)),
            Clamp => each(self, &mut |l, i| {
                let lo = l.min_max(s, true, vals[0][i], vals[1][i], span);
                l.min_max(s, false, lo, vals[2][i], span)
            }),
            Saturate => float_unary(self, UnaryOp::FSat),
            Floor => float_unary(self, UnaryOp::FFloor),
            Ceil => float_unary(self, UnaryOp::FCeil),
            Round => float_unary(self, UnaryOp::FRound),
            Trunc => float_unary(self, UnaryOp::FTrunc),
            Frac => float_unary(self, UnaryOp::FFract),
            Sqrt => float_unary(self, UnaryOp::FSqrt),
            Rsqrt => float_unary(self, UnaryOp::FRsqrt),
            Rcp => float_unary(self, UnaryOp::FRcp),
            Exp2 => float_unary(self, UnaryOp::FExp2),
            Log2 => float_unary(self, UnaryOp::FLog2),
            Sin => float_unary(self, UnaryOp::FSin),
            Cos => float_unary(self, UnaryOp::FCos),
            Fmod => each(self, &mut |l, i| l.binary_op(tast::BinaryOp::Rem, s, vals[0][i], vals[1][i], span)),
            Mad => each(self, &mut |l, i| {
                if wide(s) == ScalarType::Float {
                    l.on_wide(s, &[vals[0][i], vals[1][i], vals[2][i]], span, |l, _, v| {
                        l.inst(InstData::Ternary { op: TernaryOp::Fma, args: [v[0], v[1], v[2]] }, span)
                    })
                } else {
                    l.mul_add(s, vals[0][i], vals[1][i], Some(vals[2][i]), span)
                }
            }),
            IsNan | IsInf | IsFinite => each(self, &mut |l, i| {
                let x = l.widen(s, vals[0][i], span);
                match op {
                    // NaN is the only value unequal to itself (FNe is unordered).
                    IsNan => l.cmp(CmpOp::FNe, x, x, span),
                    _ => {
                        let a = l.unary(UnaryOp::FAbs, x, span);
                        let inf = l.fconst(f32::INFINITY, span);
                        if op == IsInf {
                            l.cmp(CmpOp::FEq, a, inf, span)
                        } else {
                            l.cmp(CmpOp::FLt, a, inf, span)
                        }
                    }
                }
            }),
            Dot => {
                let r = self.dot(s, &vals[0], &vals[1], span);
                vec![r]
            }
            Any | All => {
                let bools: Vec<Value> = vals[0].clone().into_iter().map(|v| self.as_bool(s, v, span)).collect();
                let mut acc = bools[0];
                for &b in &bools[1..] {
                    acc = if op == Any { self.or(acc, b, span) } else { self.and(acc, b, span) };
                }
                vec![acc]
            }
            // 16-bit arguments are uint16_t here (zero-extended); the results are 32-bit
            // except reversebits', whose 16 reversed bits are the top half of the 32-bit reversal.
            CountBits => each(self, &mut |l, i| {
                let x = l.widen(s, vals[0][i], span);
                l.unary(UnaryOp::Popcount, x, span)
            }),
            ReverseBits => each(self, &mut |l, i| {
                let x = l.widen(s, vals[0][i], span);
                let r = l.unary(UnaryOp::BitRev, x, span);
                if s.is_16bit() {
                    let sh = l.iconst(16, span);
                    let hi = l.binary(BinaryOp::LShr, r, sh, span);
                    l.narrow(s, hi, span)
                } else {
                    r
                }
            }),
            FirstBitLow => each(self, &mut |l, i| {
                let x = l.widen(s, vals[0][i], span);
                l.unary(UnaryOp::FirstBitLow, x, span)
            }),
            FirstBitHigh => {
                let uop = if s == ScalarType::Int { UnaryOp::SFirstBitHigh } else { UnaryOp::UFirstBitHigh };
                each(self, &mut |l, i| {
                    let x = l.widen(s, vals[0][i], span);
                    l.unary(uop, x, span)
                })
            }
            AsUint | AsInt | AsFloat => each(self, &mut |l, i| {
                let v = vals[0][i];
                let to = if op == AsFloat { Type::F32 } else { Type::I32 };
                if l.f.value_type(v) == to {
                    v
                } else {
                    l.inst(InstData::Bitcast { ty: to, arg: v }, span)
                }
            }),
            AsInt16 | AsUint16 | AsFloat16 => each(self, &mut |l, i| {
                let v = vals[0][i];
                let to = if op == AsFloat16 { Type::F16 } else { Type::I16 };
                if l.f.value_type(v) == to {
                    v
                } else {
                    l.inst(InstData::Bitcast { ty: to, arg: v }, span)
                }
            }),
            F32ToF16 => each(self, &mut |l, i| {
                let h = l.inst(InstData::Convert { op: ConvOp::F32ToF16, arg: vals[0][i] }, span);
                let bits = l.inst(InstData::Bitcast { ty: Type::I16, arg: h }, span);
                l.inst(InstData::Convert { op: ConvOp::ZExt16, arg: bits }, span)
            }),
            F16ToF32 => each(self, &mut |l, i| {
                let bits = l.inst(InstData::Convert { op: ConvOp::Trunc16, arg: vals[0][i] }, span);
                let h = l.inst(InstData::Bitcast { ty: Type::F16, arg: bits }, span);
                l.inst(InstData::Convert { op: ConvOp::F16ToF32, arg: h }, span)
            }),
            AsDouble => each(self, &mut |l, i| l.pack64(Type::F64, (vals[0][i], vals[1][i]), span)),
            Fma | DoubleLo | DoubleHi => {
                // Doubles only (sema), handled by `intrinsic_f64`.
                self.internal("fma or the words of a non-double", span);
                vals[0].clone()
            }
            Mul => self.mul(args, &vals, ty, span),
            Transpose => {
                let TType::Matrix(_, r, c) = args[0].ty else { return vals[0].clone() };
                let (r, c) = (r as usize, c as usize);
                (0..c).flat_map(|j| (0..r).map(move |i| (i, j))).map(|(i, j)| vals[0][i * c + j]).collect()
            }
            Select => {
                let m = vals[1].len();
                (0..m)
                    .map(|i| {
                        let c = vals[0][i.min(vals[0].len() - 1)];
                        self.select(c, vals[1][i], vals[2][i], span)
                    })
                    .collect()
            }
            WaveGetLaneCount => vec![self.inst(InstData::Special { reg: SpecialReg::WaveWidth }, span)],
            WaveGetLaneIndex => vec![self.inst(InstData::Special { reg: SpecialReg::LaneId }, span)],
            WaveIsFirstLane => {
                let lane = self.inst(InstData::Special { reg: SpecialReg::LaneId }, span);
                let first = self.inst(InstData::WaveReadFirst { ty: Type::I32, arg: lane }, span);
                vec![self.cmp(CmpOp::Eq, lane, first, span)]
            }
            WaveActiveSum | WaveActiveProduct | WaveActiveMin | WaveActiveMax | WaveActiveBitAnd | WaveActiveBitOr | WaveActiveBitXor
            | WavePrefixSum | WavePrefixProduct => {
                let prefix = matches!(op, WavePrefixSum | WavePrefixProduct);
                let w = wide(s);
                let float = w == ScalarType::Float;
                let wop = match op {
                    WaveActiveSum | WavePrefixSum => {
                        if float {
                            WaveOp::FAdd
                        } else {
                            WaveOp::IAdd
                        }
                    }
                    WaveActiveProduct | WavePrefixProduct => {
                        if float {
                            WaveOp::FMul
                        } else {
                            WaveOp::IMul
                        }
                    }
                    WaveActiveMin => match w {
                        ScalarType::Float => WaveOp::FMin,
                        ScalarType::Int => WaveOp::SMin,
                        _ => WaveOp::UMin,
                    },
                    WaveActiveMax => match w {
                        ScalarType::Float => WaveOp::FMax,
                        ScalarType::Int => WaveOp::SMax,
                        _ => WaveOp::UMax,
                    },
                    WaveActiveBitAnd => WaveOp::And,
                    WaveActiveBitOr => WaveOp::Or,
                    _ => WaveOp::Xor,
                };
                each(self, &mut |l, i| {
                    l.on_wide(s, &[vals[0][i]], span, |l, _, v| {
                        if prefix {
                            l.inst(InstData::WavePrefix { op: wop, arg: v[0] }, span)
                        } else {
                            l.inst(InstData::WaveReduce { op: wop, arg: v[0] }, span)
                        }
                    })
                })
            }
            WaveActiveCountBits | WavePrefixCountBits => {
                let one = self.iconst(1, span);
                let zero = self.iconst(0, span);
                let x = self.select(vals[0][0], one, zero, span);
                let data = if op == WavePrefixCountBits {
                    InstData::WavePrefix { op: WaveOp::IAdd, arg: x }
                } else {
                    InstData::WaveReduce { op: WaveOp::IAdd, arg: x }
                };
                vec![self.inst(data, span)]
            }
            WaveActiveAllTrue => vec![self.inst(InstData::WaveVote { op: VoteOp::All, cond: vals[0][0] }, span)],
            WaveActiveAnyTrue => vec![self.inst(InstData::WaveVote { op: VoteOp::Any, cond: vals[0][0] }, span)],
            WaveActiveBallot => (0..4).map(|word| self.inst(InstData::WaveBallot { cond: vals[0][0], word }, span)).collect(),
            WaveActiveAllEqual => each(self, &mut |l, i| {
                let v = vals[0][i];
                let t = l.f.value_type(v);
                let (x, tt) = if t == Type::Bool { (l.bool_to_i32(v, span), Type::I32) } else { (v, t) };
                let x = match tt {
                    Type::I16 | Type::F16 => l.widen(s, x, span),
                    _ => x,
                };
                let xt = l.f.value_type(x);
                let first = l.inst(InstData::WaveReadFirst { ty: xt, arg: x }, span);
                let eq = if xt == Type::F32 { l.cmp(CmpOp::FEq, x, first, span) } else { l.cmp(CmpOp::Eq, x, first, span) };
                l.inst(InstData::WaveVote { op: VoteOp::All, cond: eq }, span)
            }),
            WaveReadLaneFirst => each(self, &mut |l, i| {
                l.on_wide(s, &[vals[0][i]], span, |l, _, v| {
                    let t = l.f.value_type(v[0]);
                    l.inst(InstData::WaveReadFirst { ty: t, arg: v[0] }, span)
                })
            }),
            WaveReadLaneAt => {
                let lane = vals[1][0];
                each(self, &mut |l, i| {
                    l.on_wide(s, &[vals[0][i]], span, |l, _, v| {
                        let t = l.f.value_type(v[0]);
                        l.inst(InstData::WaveReadLane { ty: t, arg: v[0], lane }, span)
                    })
                })
            }
            QuadReadAcrossX | QuadReadAcrossY | QuadReadAcrossDiagonal | QuadReadLaneAt => {
                let lane = self.quad_lane(op, vals.get(1).map(|v| v[0]), span);
                each(self, &mut |l, i| {
                    l.on_wide(s, &[vals[0][i]], span, |l, _, v| {
                        let t = l.f.value_type(v[0]);
                        l.inst(InstData::WaveReadLane { ty: t, arg: v[0], lane }, span)
                    })
                })
            }
            GroupMemoryBarrier
            | DeviceMemoryBarrier
            | AllMemoryBarrier
            | GroupMemoryBarrierWithGroupSync
            | DeviceMemoryBarrierWithGroupSync
            | AllMemoryBarrierWithGroupSync => {
                if matches!(op, GroupMemoryBarrier | GroupMemoryBarrierWithGroupSync | AllMemoryBarrier | AllMemoryBarrierWithGroupSync) {
                    self.effect(InstData::Fence { scope: FenceScope::Workgroup }, span);
                }
                if matches!(op, DeviceMemoryBarrier | DeviceMemoryBarrierWithGroupSync | AllMemoryBarrier | AllMemoryBarrierWithGroupSync) {
                    self.effect(InstData::Fence { scope: FenceScope::Device }, span);
                }
                if matches!(op, GroupMemoryBarrierWithGroupSync | DeviceMemoryBarrierWithGroupSync | AllMemoryBarrierWithGroupSync) {
                    self.effect(InstData::Barrier, span);
                }
                Vec::new()
            }
        }
    }

    /// The intrinsics whose 64-bit forms differ from the 32-bit ones (the rest are
    /// built from operators, conversions and selects, which know 64-bit leaves).
    fn intrinsic64(&mut self, op: Intrinsic, s: ScalarType, vals: &[Vec<Value>], span: Span) -> Option<Vec<Value>> {
        use Intrinsic::*;
        let each = |l: &mut Self, f: &mut dyn FnMut(&mut Self, Value) -> Value| vals[0].iter().map(|&v| f(l, v)).collect::<Vec<_>>();
        let wave = |op: Intrinsic| -> Option<(WaveOp, bool)> {
            Some(match op {
                WaveActiveSum => (WaveOp::IAdd, false),
                WavePrefixSum => (WaveOp::IAdd, true),
                WaveActiveProduct => (WaveOp::IMul, false),
                WavePrefixProduct => (WaveOp::IMul, true),
                WaveActiveMin => (WaveOp::UMin, false),
                WaveActiveMax => (WaveOp::UMax, false),
                WaveActiveBitAnd => (WaveOp::And, false),
                WaveActiveBitOr => (WaveOp::Or, false),
                WaveActiveBitXor => (WaveOp::Xor, false),
                _ => return None,
            })
        };
        Some(match op {
            Abs => each(self, &mut |l, v| l.abs64(s, v, span)),
            CountBits => each(self, &mut |l, v| l.popcount64(v, span)),
            ReverseBits => each(self, &mut |l, v| l.bitrev64(v, span)),
            FirstBitLow => each(self, &mut |l, v| l.firstbitlow64(v, span)),
            FirstBitHigh => each(self, &mut |l, v| l.firstbithigh64(s, v, span)),
            WaveReadLaneFirst => each(self, &mut |l, v| l.wave_read_first64(v, span)),
            WaveReadLaneAt => {
                let lane = vals[1][0];
                each(self, &mut |l, v| l.wave_read_lane64(v, lane, span))
            }
            WaveActiveAllEqual => each(self, &mut |l, v| l.wave_all_equal64(v, span)),
            QuadReadAcrossX | QuadReadAcrossY | QuadReadAcrossDiagonal | QuadReadLaneAt => {
                let lane = self.quad_lane(op, vals.get(1).map(|v| v[0]), span);
                each(self, &mut |l, v| l.wave_read_lane64(v, lane, span))
            }
            _ => {
                let (wop, prefix) = wave(op)?;
                each(self, &mut |l, v| l.wave_op64(wop, s, prefix, v, span))
            }
        })
    }

    /// The lane a quad read reads: this lane's id with its low two bits replaced.
    pub(super) fn quad_lane(&mut self, op: Intrinsic, n: Option<Value>, span: Span) -> Value {
        use Intrinsic::*;
        let id = self.inst(InstData::Special { reg: SpecialReg::LaneId }, span);
        if op == QuadReadLaneAt {
            let base_mask = self.iconst(!3, span);
            let base = self.binary(BinaryOp::And, id, base_mask, span);
            let three = self.iconst(3, span);
            let n = n.unwrap_or(three);
            let n = self.binary(BinaryOp::And, n, three, span);
            self.binary(BinaryOp::Or, base, n, span)
        } else {
            let k = match op {
                QuadReadAcrossX => 1,
                QuadReadAcrossY => 2,
                _ => 3,
            };
            let k = self.iconst(k, span);
            self.binary(BinaryOp::Xor, id, k, span)
        }
    }

    /// `mul(a, b)`: leaves are row-major, so row r of an R x C matrix is leaves r*C .. r*C+C.
    fn mul(&mut self, args: &[Expr], vals: &[Vec<Value>], ty: TType, span: Span) -> Vec<Value> {
        let s = ty.scalar().unwrap_or(ScalarType::Float);
        let (a, b) = (&vals[0], &vals[1]);
        match (args[0].ty, args[1].ty) {
            (TType::Vector(_, n), TType::Vector(..)) => vec![self.dot(s, &a[..n as usize], &b[..n as usize], span)],
            (TType::Vector(_, n), TType::Matrix(_, _, c)) => (0..c as usize)
                .map(|j| {
                    let col: Vec<Value> = (0..n as usize).map(|i| b[i * c as usize + j]).collect();
                    self.dot(s, a, &col, span)
                })
                .collect(),
            (TType::Matrix(_, r, c), TType::Vector(..)) => {
                (0..r as usize).map(|i| self.dot(s, &a[i * c as usize..(i + 1) * c as usize], b, span)).collect()
            }
            (TType::Matrix(_, r, k), TType::Matrix(_, _, c)) => {
                let (r, k, c) = (r as usize, k as usize, c as usize);
                let mut out = Vec::with_capacity(r * c);
                for i in 0..r {
                    for j in 0..c {
                        let row = &a[i * k..(i + 1) * k];
                        let col: Vec<Value> = (0..k).map(|t| b[t * c + j]).collect();
                        out.push(self.dot(s, row, &col, span));
                    }
                }
                out
            }
            _ => {
                self.internal("mul of these shapes", span);
                self.zeros(ty, span)
            }
        }
    }

    pub(super) fn atomic(&mut self, op: TAtomic, dest: &Expr, args: &[Expr], original: Option<&Expr>, span: Span) {
        let vals: Vec<Value> = args.iter().map(|a| self.scalar(a)).collect();
        let place = self.place(dest);
        let Some((space, addr, guard)) = self.scalar_address(&place, span) else {
            self.internal("an atomic on something not in memory", span);
            return;
        };
        let signed = dest.ty.scalar() == Some(ScalarType::Int);
        let ty = self.f.value_type(vals[0]);
        let old = match guard {
            // Robust access: an out-of-bounds atomic does nothing and returns 0.
            Some(ok) => {
                let v = self.branch_values(
                    ok,
                    &[ty],
                    |l| vec![l.atomic_op(op, signed, space, addr, &vals, span)],
                    |l| vec![l.konst(ty, 0, span)],
                    span,
                );
                v[0]
            }
            None => self.atomic_op(op, signed, space, addr, &vals, span),
        };
        if let Some(o) = original {
            let p = self.place(o);
            let v = self.convert_leaves(dest.ty, o.ty, vec![old], span);
            self.write_place(&p, &v, span);
        }
    }

    fn atomic_op(&mut self, op: TAtomic, signed: bool, space: MemSpace, addr: Value, vals: &[Value], span: Span) -> Value {
        match op {
            TAtomic::CompareExchange | TAtomic::CompareStore => {
                self.inst(InstData::AtomicCas { space, addr, expected: vals[0], value: vals[1] }, span)
            }
            _ => {
                let aop = match op {
                    TAtomic::Add => AtomicOp::Add,
                    TAtomic::Min => {
                        if signed {
                            AtomicOp::SMin
                        } else {
                            AtomicOp::UMin
                        }
                    }
                    TAtomic::Max => {
                        if signed {
                            AtomicOp::SMax
                        } else {
                            AtomicOp::UMax
                        }
                    }
                    TAtomic::And => AtomicOp::And,
                    TAtomic::Or => AtomicOp::Or,
                    TAtomic::Xor => AtomicOp::Xor,
                    _ => AtomicOp::Xchg,
                };
                self.inst(InstData::AtomicRmw { op: aop, space, addr, value: vals[0] }, span)
            }
        }
    }

    /// `GetDimensions` of the buffer the handle expression `res` holds: the byte size
    /// of a byte-address buffer, the element count of a typed buffer (its size
    /// argument), element count and stride of a structured buffer.
    pub(super) fn get_dimensions(&mut self, res: &Expr, outs: &[Expr], span: Span) {
        let Some(h) = self.m.handle_type(res) else {
            self.internal("GetDimensions of a non-buffer", span);
            return;
        };
        let addr = self.scalar(res);
        let Some(size) = self.buffer_arg(addr, BufferArg::Size, span) else {
            self.unknown_buffer("GetDimensions", res.span);
            return;
        };
        let mut results = Vec::new();
        match self.buffer_stride(&h) {
            Some(stride) => {
                let k = self.iconst(stride.max(1), span);
                results.push(self.binary(BinaryOp::UDiv, size, k, span));
                results.push(k);
            }
            None => results.push(size),
        }
        for (o, v) in outs.iter().zip(results) {
            let p = self.place(o);
            let vals = self.convert_leaves(TType::UINT, o.ty, vec![v], span);
            self.write_place(&p, &vals, span);
        }
    }

    /// `IncrementCounter()` (the old count) / `DecrementCounter()` (the new count) of
    /// the UAV counter of the buffer the handle expression `res` holds: one atomic add.
    pub(super) fn counter_step(&mut self, res: &Expr, increment: bool, span: Span) -> Value {
        let addr = self.scalar(res);
        let Some(counter) = self.buffer_arg(addr, BufferArg::Counter, span) else {
            self.unknown_buffer(if increment { "IncrementCounter" } else { "DecrementCounter" }, res.span);
            return self.iconst(0, span);
        };
        let step = self.iconst(if increment { 1 } else { u32::MAX }, span);
        let old = self.inst(InstData::AtomicRmw { op: AtomicOp::Add, space: MemSpace::Device, addr: counter, value: step }, span);
        if increment {
            old
        } else {
            {
                let one = self.iconst(1, span);
                self.binary(BinaryOp::ISub, old, one, span)
            }
        }
    }

    /// A buffer's size or counter is asked of a value whose buffer cannot be followed.
    fn unknown_buffer(&mut self, what: &str, span: Span) {
        self.errors.push(
            crate::diag::Diagnostic::error("E0319", format!("{what} needs to know which buffer this is"))
                .with_label(span, "a buffer chosen at run time")
                .with_note(
                    "the buffer's size and counter are kernel arguments of each global buffer: choose among them with an index or a condition, or call it on the global",
                ),
        );
    }
}
