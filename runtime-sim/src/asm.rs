//! Parser for WAVE assembly text (both profiles' spelling).

use crate::isa::*;
use crate::{Instr, InstrOrigin, Kernel, ParseError, Profile, Program};
use std::collections::HashMap;

type PResult<T> = Result<T, String>;

/// An open structured-control-flow construct while parsing.
struct Open {
    is_loop: bool,
    pc: u32,
    line: u32,
    else_pc: Option<u32>,
}

struct KernelBuilder {
    name: String,
    line: u32,
    registers: u32,
    workgroup_size: Option<[u32; 3]>,
    local_memory: u32,
    instrs: Vec<Instr>,
    labels: HashMap<String, u32>,
    calls: Vec<(usize, String, u32)>,
    open: Vec<Open>,
    halts: u32,
}

fn err(line: u32, message: impl Into<String>) -> ParseError {
    ParseError { line, message: message.into() }
}

/// Parse an integer literal: decimal (optional leading '-') or 0x hex, `_` separators,
/// range -2^31..2^32-1, returned as its 32-bit pattern.
pub(crate) fn parse_int(s: &str) -> Option<u32> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let cleaned: String = body.chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() || body.starts_with('_') {
        return None;
    }
    let v: u64 = if let Some(h) = cleaned.strip_prefix("0x").or_else(|| cleaned.strip_prefix("0X")) {
        if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(h, 16).ok()?
    } else {
        if !cleaned.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        cleaned.parse::<u64>().ok()?
    };
    if neg {
        if v > 1 << 31 {
            return None;
        }
        Some((v as i64).wrapping_neg() as u32)
    } else {
        u32::try_from(v).ok()
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
}

fn check_name(s: &str, what: &str, profile: Profile) -> PResult<()> {
    if !is_ident(s) {
        return Err(format!("invalid {what} name `{s}`"));
    }
    if profile == Profile::Toolchain012 {
        let b = s.as_bytes();
        let bad = ((b[0] == b'r' || b[0] == b'p') && b.len() > 1 && b[1].is_ascii_digit()) || s.starts_with("sr");
        if bad {
            return Err(format!("{what} name `{s}` starts with r<digit>, p<digit> or sr, which wave-asm 0.1.2 misparses as a register"));
        }
    }
    Ok(())
}

struct Ctx {
    profile: Profile,
}

impl Ctx {
    fn spec(&self) -> bool {
        self.profile == Profile::Spec04
    }

    fn reg(&self, s: &str) -> PResult<R> {
        let (base, half) = if let Some(b) = s.strip_suffix(".lo") {
            (b, Half::Lo)
        } else if let Some(b) = s.strip_suffix(".hi") {
            (b, Half::Hi)
        } else {
            (s, Half::Full)
        };
        let digits = base.strip_prefix('r').ok_or_else(|| format!("expected a register, found `{s}`"))?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0')) {
            return Err(format!("expected a register, found `{s}`"));
        }
        let n: u32 = digits.parse().map_err(|_| format!("bad register `{s}`"))?;
        let max = if self.spec() { 255 } else { 31 };
        if n > max {
            return Err(if self.spec() {
                format!("register `{s}` out of range (r0..r255)")
            } else {
                format!("register `{s}` out of range: wave 0.1.2 has only r0..r31")
            });
        }
        if half != Half::Full && !self.spec() {
            return Err(format!("`{s}`: register halves are ignored by wave-asm 0.1.2 (it reads the whole register); use bfe/bfi"));
        }
        Ok(R { idx: n as u16, half })
    }

    fn full(&self, s: &str) -> PResult<R> {
        let r = self.reg(s)?;
        if r.half != Half::Full {
            return Err(format!("`{s}`: a register half is not allowed here (needs a full register or pair)"));
        }
        Ok(r)
    }

    fn pred(&self, s: &str) -> PResult<u8> {
        match s {
            "p0" => Ok(0),
            "p1" => Ok(1),
            "p2" => Ok(2),
            "p3" => Ok(3),
            _ => Err(format!("expected a predicate p0..p3, found `{s}`")),
        }
    }

    fn npred(&self, s: &str, what: &str) -> PResult<P> {
        if let Some(rest) = s.strip_prefix('!') {
            if !self.spec() {
                return Err(format!("`{what} !p` is rejected by wave-asm 0.1.2; compute the inverted predicate with a compare"));
            }
            Ok(P { idx: self.pred(rest.trim())?, neg: true })
        } else {
            Ok(P { idx: self.pred(s)?, neg: false })
        }
    }

    fn sr(&self, s: &str) -> Option<Sr> {
        let axis = |suffix: &str| match suffix {
            "x" => Some(0u8),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        Some(match s {
            "sr_wave_id" => Sr::WaveId,
            "sr_lane_id" => Sr::LaneId,
            "sr_wave_width" => Sr::WaveWidth,
            "sr_num_waves" => Sr::NumWaves,
            _ => {
                if let Some(a) = s.strip_prefix("sr_thread_id_") {
                    Sr::ThreadId(axis(a)?)
                } else if let Some(a) = s.strip_prefix("sr_workgroup_id_") {
                    Sr::WorkgroupId(axis(a)?)
                } else if let Some(a) = s.strip_prefix("sr_workgroup_size_") {
                    Sr::WorkgroupSize(axis(a)?)
                } else if let Some(a) = s.strip_prefix("sr_grid_size_") {
                    Sr::GridSize(axis(a)?)
                } else {
                    return None;
                }
            }
        })
    }
}

fn nops(ops: &[&str], n: usize, m: &str) -> PResult<()> {
    if ops.len() != n {
        return Err(format!("`{m}` takes {n} operand(s), found {}", ops.len()));
    }
    Ok(())
}

fn is_scope(s: &str) -> bool {
    matches!(s, ".wave" | ".workgroup" | ".device" | ".system")
}

/// Decode one instruction (mnemonic plus operands). Control-flow targets are patched later.
fn decode(cx: &Ctx, mnem: &str, ops: &[&str]) -> PResult<Op> {
    let spec = cx.spec();
    let t012 = |what: &str| -> PResult<()> {
        if spec {
            Ok(())
        } else {
            Err(format!("`{what}` does not exist in wave 0.1.2"))
        }
    };
    // Cache-hint suffixes on memory mnemonics (`device_load_u32.uncached`) are ignored.
    let (base, hint) = match mnem.split_once('.') {
        Some((b, h)) => (b, Some(h)),
        None => (mnem, None),
    };
    if hint.is_some() && !(base.starts_with("device_") || base.starts_with("local_load") || base.starts_with("local_store")) {
        return Err(format!("unexpected suffix in `{mnem}` (scopes are a trailing operand)"));
    }
    let m = base;
    let un = |op: UnOp| -> PResult<Op> {
        nops(ops, 2, m)?;
        Ok(Op::Un(op, cx.reg(ops[0])?, cx.reg(ops[1])?))
    };
    let bin = |op: BinOp| -> PResult<Op> {
        nops(ops, 3, m)?;
        Ok(Op::Bin(op, cx.reg(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?))
    };
    let tern = |op: TernOp| -> PResult<Op> {
        nops(ops, 4, m)?;
        Ok(Op::Tern(op, cx.reg(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?, cx.reg(ops[3])?))
    };
    let dbl = |op: DblOp, n: usize| -> PResult<Op> {
        nops(ops, n, m)?;
        let r: Vec<u16> = ops.iter().map(|s| cx.full(s).map(|r| r.idx)).collect::<PResult<_>>()?;
        Ok(Op::Dbl(op, r[0], r[1], *r.get(2).unwrap_or(&0), *r.get(3).unwrap_or(&0)))
    };
    let cmp = |op: CmpOp| -> PResult<Op> {
        nops(ops, 3, m)?;
        Ok(Op::Cmp(op, cx.pred(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?))
    };
    let cvt = |op: CvtOp| -> PResult<Op> {
        nops(ops, 2, m)?;
        let (d, a) = match op {
            CvtOp::F32ToF64 => (cx.full(ops[0])?, cx.reg(ops[1])?),
            CvtOp::F64ToF32 => (cx.reg(ops[0])?, cx.full(ops[1])?),
            _ => (cx.reg(ops[0])?, cx.reg(ops[1])?),
        };
        Ok(Op::Cvt(op, d, a))
    };
    let no_ops = |op: Op| -> PResult<Op> {
        nops(ops, 0, m)?;
        Ok(op)
    };
    let opt_scope = |op: Op| -> PResult<Op> {
        match ops {
            [] => Ok(op),
            [s] if is_scope(s) => Ok(op),
            _ => Err(format!("`{m}` takes an optional scope (.wave, .workgroup, .device, .system)")),
        }
    };
    let wave2 = |f: fn(R, R) -> Op| -> PResult<Op> {
        nops(ops, 2, m)?;
        Ok(f(cx.reg(ops[0])?, cx.reg(ops[1])?))
    };
    let shuf = |op: ShufOp| -> PResult<Op> {
        nops(ops, 3, m)?;
        Ok(Op::Shuffle(op, cx.reg(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?))
    };
    let int_cvt_012 = !spec;

    // Memory.
    for (prefix, local, load) in
        [("device_load_u", false, true), ("device_store_u", false, false), ("local_load_u", true, true), ("local_store_u", true, false)]
    {
        if let Some(bits) = m.strip_prefix(prefix) {
            let bytes: u8 = match bits {
                "8" => 1,
                "16" => 2,
                "32" => 4,
                "64" => 8,
                "128" if !local => 16,
                _ => return Err(format!("unknown memory width in `{m}`")),
            };
            nops(ops, 2, m)?;
            let wide = bytes > 4;
            let data = |s: &str| if wide { cx.full(s) } else { cx.reg(s) };
            return Ok(if load {
                Op::Load { local, bytes, d: data(ops[0])?, addr: cx.reg(ops[1])? }
            } else {
                Op::Store { local, bytes, addr: cx.reg(ops[0])?, v: data(ops[1])? }
            });
        }
    }
    // Atomics.
    let atom = m.strip_prefix("local_atomic_").map(|s| (true, s)).or_else(|| m.strip_prefix("atomic_").map(|s| (false, s)));
    if let Some((local, name)) = atom {
        let op = match name {
            "add" => AtomOp::Add,
            "sub" => AtomOp::Sub,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exchange" => AtomOp::Exchange,
            "cas" => {
                if !spec {
                    return Err(format!(
                        "`{m}` is broken in wave 0.1.2 (assembles to add plus a stray word); use a loop of atomic_exchange or restructure"
                    ));
                }
                AtomOp::Cas
            }
            _ => return Err(format!("unknown atomic `{m}`")),
        };
        let mut o: &[&str] = ops;
        if let Some((last, rest)) = o.split_last() {
            if last.starts_with('.') {
                if !is_scope(last) {
                    return Err(format!("unknown scope `{last}`"));
                }
                o = rest;
            }
        }
        let base_n = if op == AtomOp::Cas { 3 } else { 2 };
        let (d, rest) = if o.len() == base_n + 1 {
            (Some(cx.reg(o[0])?), &o[1..])
        } else if o.len() == base_n {
            (None, o)
        } else {
            return Err(format!("`{m}` takes [d,] addr, value{} and a scope", if op == AtomOp::Cas { ", compare" } else { "" }));
        };
        // d = r0 means non-returning (0.1.2 encoding convention, kept for the spec profile).
        let d = d.filter(|r| *r != R::full(0));
        let cmp = if op == AtomOp::Cas { Some(cx.reg(rest[2])?) } else { None };
        return Ok(Op::Atomic { local, op, d, addr: cx.reg(rest[0])?, v: cx.reg(rest[1])?, cmp });
    }

    Ok(match m {
        "iadd" => bin(BinOp::IAdd)?,
        "isub" => bin(BinOp::ISub)?,
        "imul" => bin(BinOp::IMul)?,
        "imul_hi" => bin(BinOp::IMulHi)?,
        "idiv" => bin(BinOp::IDiv)?,
        "imod" => bin(BinOp::IMod)?,
        "imin" => bin(BinOp::IMin)?,
        "imax" => bin(BinOp::IMax)?,
        "umin" => {
            t012(m)?;
            bin(BinOp::UMin)?
        }
        "umax" => {
            t012(m)?;
            bin(BinOp::UMax)?
        }
        "and" => bin(BinOp::And)?,
        "or" => bin(BinOp::Or)?,
        "xor" => bin(BinOp::Xor)?,
        "shl" => bin(BinOp::Shl)?,
        "shr" => bin(BinOp::Shr)?,
        "sar" => bin(BinOp::Sar)?,
        "fadd" => bin(BinOp::FAdd)?,
        "fsub" => bin(BinOp::FSub)?,
        "fmul" => bin(BinOp::FMul)?,
        "fdiv" => bin(BinOp::FDiv(!spec))?,
        "fmin" => bin(BinOp::FMin)?,
        "fmax" => bin(BinOp::FMax)?,
        "hadd" => bin(BinOp::HAdd)?,
        "hsub" => bin(BinOp::HSub)?,
        "hmul" => bin(BinOp::HMul)?,
        "hadd2" => bin(BinOp::HAdd2)?,
        "hmul2" => bin(BinOp::HMul2)?,
        "imad" => tern(TernOp::IMad)?,
        "iclamp" => tern(TernOp::IClamp)?,
        "fma" => tern(TernOp::Fma)?,
        "fclamp" => tern(TernOp::FClamp)?,
        "hma" => tern(TernOp::Hma)?,
        "hma2" => tern(TernOp::Hma2)?,
        "bfe" => tern(TernOp::Bfe)?,
        "bfi" => {
            nops(ops, 5, m)?;
            Op::Bfi(cx.reg(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?, cx.reg(ops[3])?, cx.reg(ops[4])?)
        }
        "ineg" => un(UnOp::INeg)?,
        "iabs" => un(UnOp::IAbs)?,
        "not" => un(UnOp::Not)?,
        "bitcount" => un(UnOp::BitCount)?,
        "bitfind" => un(UnOp::BitFind)?,
        "bitrev" => un(UnOp::BitRev)?,
        "fneg" => un(UnOp::FNeg)?,
        "fabs" => un(UnOp::FAbs)?,
        "fsqrt" => un(UnOp::FSqrt)?,
        "frsqrt" => un(UnOp::FRsqrt)?,
        "frcp" => un(UnOp::FRcp)?,
        "ffloor" => un(UnOp::FFloor)?,
        "fceil" => un(UnOp::FCeil)?,
        "fround" => un(UnOp::FRound)?,
        "ftrunc" => un(UnOp::FTrunc)?,
        "ffract" => un(UnOp::FFract(!spec))?,
        "fsat" => un(UnOp::FSat(!spec))?,
        "fsin" => un(UnOp::FSin)?,
        "fcos" => un(UnOp::FCos)?,
        "fexp2" => un(UnOp::FExp2)?,
        "flog2" => un(UnOp::FLog2)?,
        "dadd" => dbl(DblOp::DAdd, 3)?,
        "dsub" => dbl(DblOp::DSub, 3)?,
        "dmul" => dbl(DblOp::DMul, 3)?,
        "ddiv" => dbl(DblOp::DDiv, 3)?,
        "dma" => dbl(DblOp::Dma, 4)?,
        "dsqrt" => dbl(DblOp::DSqrt, 2)?,
        "icmp_eq" => cmp(CmpOp::IEq)?,
        "icmp_ne" => cmp(CmpOp::INe)?,
        "icmp_lt" => cmp(CmpOp::ILt)?,
        "icmp_le" => cmp(CmpOp::ILe)?,
        "icmp_gt" => cmp(CmpOp::IGt)?,
        "icmp_ge" => cmp(CmpOp::IGe)?,
        "ucmp_lt" => cmp(CmpOp::ULt)?,
        "ucmp_le" => cmp(CmpOp::ULe)?,
        "fcmp_eq" => cmp(CmpOp::FEq)?,
        "fcmp_ne" => cmp(CmpOp::FNe)?,
        "fcmp_lt" => cmp(CmpOp::FLt)?,
        "fcmp_le" => cmp(CmpOp::FLe)?,
        "fcmp_gt" => cmp(CmpOp::FGt)?,
        "fcmp_ord" => cmp(CmpOp::FOrd)?,
        "fcmp_unord" => cmp(CmpOp::FUnord)?,
        "ucmp_gt" | "ucmp_ge" | "ucmp_eq" | "fcmp_ge" => {
            return Err(if spec {
                format!("`{m}` is not a WAVE instruction (swap the operands of the opposite compare)")
            } else {
                format!("`{m}` does not exist in wave 0.1.2 (swap the operands of the opposite compare)")
            })
        }
        "select" => {
            nops(ops, 4, m)?;
            let f = cx.reg(ops[3])?;
            if !spec && f.idx >= 16 {
                return Err(format!("select false operand `{}` must be r0..r15 in wave 0.1.2 (higher registers are mis-encoded)", ops[3]));
            }
            Op::Select(cx.reg(ops[0])?, cx.pred(ops[1])?, cx.reg(ops[2])?, f)
        }
        "cvt_f32_i32" => cvt(if int_cvt_012 { CvtOp::F32ToI32 } else { CvtOp::I32ToF32 })?,
        "cvt_f32_u32" => cvt(if int_cvt_012 { CvtOp::F32ToU32 } else { CvtOp::U32ToF32 })?,
        "cvt_i32_f32" => cvt(if int_cvt_012 { CvtOp::I32ToF32 } else { CvtOp::F32ToI32 })?,
        "cvt_u32_f32" => cvt(if int_cvt_012 { CvtOp::U32ToF32 } else { CvtOp::F32ToU32 })?,
        "cvt_f32_f16" => cvt(CvtOp::F16ToF32)?,
        "cvt_f16_f32" => cvt(CvtOp::F32ToF16)?,
        "cvt_f32_f64" => cvt(CvtOp::F64ToF32)?,
        "cvt_f64_f32" => cvt(CvtOp::F32ToF64)?,
        "mov" | "mov_sr" => {
            nops(ops, 2, m)?;
            let d = cx.reg(ops[0])?;
            if let Some(sr) = cx.sr(ops[1]) {
                Op::MovSr(d, sr)
            } else if ops[1].starts_with("sr_") {
                return Err(format!("unknown special register `{}`", ops[1]));
            } else if m == "mov_sr" {
                return Err(format!("`mov_sr` needs a special register, found `{}`", ops[1]));
            } else {
                Op::Mov(d, cx.reg(ops[1])?)
            }
        }
        "mov_imm" => {
            nops(ops, 2, m)?;
            let d = cx.reg(ops[0])?;
            let v = match parse_int(ops[1]) {
                Some(v) => v,
                None => match ops[1].parse::<f32>() {
                    Ok(f) if spec => f.to_bits(),
                    Ok(_) => {
                        return Err(format!(
                            "float literal `{}`: wave-asm 0.1.2 encodes float literals as 0; write the f32 bits in hex",
                            ops[1]
                        ))
                    }
                    Err(_) => return Err(format!("bad immediate `{}` (decimal or 0x hex in -2^31..2^32-1)", ops[1])),
                },
            };
            Op::MovImm(d, v)
        }
        "wave_shuffle" => shuf(ShufOp::Idx)?,
        "wave_shuffle_idx" => {
            t012(m)?;
            shuf(ShufOp::Idx)?
        }
        "wave_shuffle_up" => shuf(ShufOp::Up)?,
        "wave_shuffle_down" => shuf(ShufOp::Down)?,
        "wave_shuffle_xor" => shuf(ShufOp::Xor)?,
        "wave_broadcast" => {
            nops(ops, 3, m)?;
            Op::Broadcast(cx.reg(ops[0])?, cx.reg(ops[1])?, cx.reg(ops[2])?)
        }
        "wave_ballot" => {
            nops(ops, 2, m)?;
            Op::Ballot(cx.reg(ops[0])?, cx.pred(ops[1])?)
        }
        "wave_any" | "wave_all" => {
            nops(ops, 2, m)?;
            let (a, b) = (cx.pred(ops[0])?, cx.pred(ops[1])?);
            if m == "wave_any" {
                Op::WaveAny(a, b)
            } else {
                Op::WaveAll(a, b)
            }
        }
        "wave_prefix_sum" => wave2(Op::PrefixSum)?,
        "wave_reduce_add" => wave2(|d, v| Op::Reduce(RedOp::Add, d, v))?,
        "wave_reduce_min" => wave2(|d, v| Op::Reduce(RedOp::Min, d, v))?,
        "wave_reduce_max" => wave2(|d, v| Op::Reduce(RedOp::Max, d, v))?,
        "wave_reduce_and" | "wave_reduce_or" | "wave_reduce_xor" => {
            t012(m)?;
            match m {
                "wave_reduce_and" => wave2(|d, v| Op::Reduce(RedOp::And, d, v))?,
                "wave_reduce_or" => wave2(|d, v| Op::Reduce(RedOp::Or, d, v))?,
                _ => wave2(|d, v| Op::Reduce(RedOp::Xor, d, v))?,
            }
        }
        "if" => {
            nops(ops, 1, m)?;
            Op::If { p: cx.npred(ops[0], "if")?, else_pc: 0, endif_pc: 0 }
        }
        "else" => no_ops(Op::Else { endif_pc: 0 })?,
        "endif" => no_ops(Op::EndIf)?,
        "loop" => no_ops(Op::Loop { end_pc: 0 })?,
        "endloop" => no_ops(Op::EndLoop { start_pc: 0 })?,
        "break" => {
            nops(ops, 1, m)?;
            Op::Break { p: cx.npred(ops[0], "break")?, in_if: false }
        }
        "continue" => {
            if !spec {
                return Err("`continue` is broken in wave 0.1.2 (the whole wave jumps to the loop head); lower it to if-guards".into());
            }
            nops(ops, 1, m)?;
            Op::Continue { p: cx.npred(ops[0], "continue")? }
        }
        "call" => {
            nops(ops, 1, m)?;
            Op::Call { target: 0 }
        }
        "return" => no_ops(Op::Return)?,
        "halt" => no_ops(Op::Halt)?,
        "barrier" => no_ops(Op::Barrier)?,
        // wave-asm 0.1.2 requires the scope operand; the spec profile also takes a bare fence.
        "fence_acquire" | "fence_release" | "fence_acq_rel" if !spec && ops.len() != 1 => {
            return Err(format!("`{m}` needs a scope operand in wave 0.1.2 (.wave, .workgroup, .device, .system)"))
        }
        "fence_acquire" | "fence_release" | "fence_acq_rel" => opt_scope(Op::Fence)?,
        "wait" => Op::Wait,
        "nop" => no_ops(Op::Nop)?,
        _ => return Err(format!("unknown mnemonic `{mnem}`")),
    })
}

fn parse_dir_u32(s: &str, what: &str) -> PResult<u32> {
    parse_int(s.trim())
        .filter(|_| !s.trim().starts_with('-'))
        .ok_or_else(|| format!("{what}: expected a non-negative integer, found `{}`", s.trim()))
}

impl KernelBuilder {
    fn finish(mut self, profile: Profile, end_line: u32) -> Result<Kernel, ParseError> {
        if let Some(o) = self.open.last() {
            return Err(err(
                o.line,
                format!("`{}` is never closed (kernel `{}` ends at line {end_line})", if o.is_loop { "loop" } else { "if" }, self.name),
            ));
        }
        for (pc, label, line) in std::mem::take(&mut self.calls) {
            let t = *self.labels.get(&label).ok_or_else(|| err(line, format!("call to unknown label `{label}`")))?;
            self.instrs[pc].op = Op::Call { target: t };
        }
        let _ = profile;
        Ok(Kernel {
            name: self.name,
            registers: self.registers,
            workgroup_size: self.workgroup_size,
            local_memory: self.local_memory,
            instrs: self.instrs,
        })
    }

    fn push_instr(&mut self, cx: &Ctx, line: u32, text: &str, src_line: Option<u32>) -> PResult<()> {
        let mut rest = text.trim();
        let mut pred = None;
        if let Some(p) = rest.strip_prefix('@') {
            let (tok, r) = p.split_once(char::is_whitespace).ok_or("predicate without an instruction")?;
            let (neg, name) = match tok.strip_prefix('!') {
                Some(n) => (true, n),
                None => (false, tok),
            };
            let idx = cx.pred(name)?;
            if idx == 0 && !cx.spec() {
                return Err("predication on p0 is unusable in wave 0.1.2 (`@p0` encodes as unpredicated); use p1..p3".into());
            }
            pred = Some(P { idx, neg });
            rest = r.trim();
        }
        let (mnem, opstr) = match rest.split_once(char::is_whitespace) {
            Some((m, o)) => (m, o.trim()),
            None => (rest, ""),
        };
        let ops: Vec<&str> = if opstr.is_empty() { Vec::new() } else { opstr.split(',').map(str::trim).collect() };
        if ops.iter().any(|o| o.is_empty()) {
            return Err("empty operand".into());
        }
        let mut op = decode(cx, mnem, &ops)?;
        if pred.is_some() && op.is_control() {
            let allowed = cx.spec() && matches!(op, Op::Break { .. } | Op::Continue { .. } | Op::Halt);
            if !allowed {
                return Err(format!(
                    "`{mnem}` cannot be predicated{}",
                    if cx.spec() { "" } else { " (wave-emu 0.1.2 restores the old mask afterwards)" }
                ));
            }
        }
        let pc = self.instrs.len() as u32;
        let depth = self.open.len();
        if depth >= 32 && matches!(op, Op::If { .. } | Op::Loop { .. }) {
            return Err("more than 32 nested if/loop frames".into());
        }
        match &mut op {
            Op::If { .. } => self.open.push(Open { is_loop: false, pc, line, else_pc: None }),
            Op::Loop { .. } => self.open.push(Open { is_loop: true, pc, line, else_pc: None }),
            Op::Else { .. } => match self.open.last_mut() {
                Some(o) if !o.is_loop && o.else_pc.is_none() => o.else_pc = Some(pc),
                Some(o) if !o.is_loop => return Err(format!("second `else` for the `if` at line {}", o.line)),
                _ => return Err("`else` without a matching `if`".into()),
            },
            Op::EndIf => match self.open.last() {
                Some(o) if !o.is_loop => {
                    let o = self.open.pop().ok_or("internal: empty stack")?;
                    let else_pc = o.else_pc.unwrap_or(pc);
                    if let Op::If { else_pc: e, endif_pc, .. } = &mut self.instrs[o.pc as usize].op {
                        *e = else_pc;
                        *endif_pc = pc;
                    }
                    if let Some(epc) = o.else_pc {
                        self.instrs[epc as usize].op = Op::Else { endif_pc: pc };
                    }
                }
                Some(o) => return Err(format!("`endif` closes the `loop` at line {}", o.line)),
                None => return Err("`endif` without a matching `if`".into()),
            },
            Op::EndLoop { start_pc } => match self.open.last() {
                Some(o) if o.is_loop => {
                    let o = self.open.pop().ok_or("internal: empty stack")?;
                    *start_pc = o.pc + 1;
                    self.instrs[o.pc as usize].op = Op::Loop { end_pc: pc };
                }
                Some(o) => return Err(format!("`endloop` closes the `if` at line {}", o.line)),
                None => return Err("`endloop` without a matching `loop`".into()),
            },
            Op::Break { .. } | Op::Continue { .. } if !self.open.iter().any(|o| o.is_loop) => {
                return Err(format!("`{mnem}` outside a loop"));
            }
            Op::Break { in_if, .. } => *in_if = !self.open.last().is_some_and(|o| o.is_loop),
            Op::Halt => {
                self.halts += 1;
                if !cx.spec() {
                    if depth > 0 {
                        return Err(
                            "`halt` inside if/loop: wave-emu 0.1.2 halts the whole wave; use a done flag and one final top-level halt"
                                .into(),
                        );
                    }
                    if self.halts > 1 {
                        return Err("more than one `halt`: wave 0.1.2 kernels must end with exactly one top-level halt".into());
                    }
                }
            }
            Op::Call { .. } => self.calls.push((pc as usize, ops[0].to_string(), line)),
            _ => {}
        }
        let (reads, writes) = op.reads_writes();
        let mut reads = reads;
        if let Some(p) = pred {
            reads.push(PRED_SLOT_BASE + p.idx as u16);
        }
        let max_reg = op.max_reg();
        self.instrs.push(Instr {
            origin: InstrOrigin { asm_line: line, text: text.trim().to_string(), src_line },
            category: op.category(),
            op,
            pred,
            reads: reads.into_boxed_slice(),
            writes: writes.into_boxed_slice(),
            max_reg,
        });
        Ok(())
    }
}

/// Parse WAVE assembly text.
pub fn parse(text: &str, profile: Profile) -> Result<Program, ParseError> {
    let cx = Ctx { profile };
    let mut kernels = Vec::new();
    let mut cur: Option<KernelBuilder> = None;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let ln = (i + 1) as u32;
        last_line = ln;
        let (code, comment) = match raw.find([';', '#']) {
            Some(p) => (&raw[..p], Some(&raw[p + 1..])),
            None => (raw, None),
        };
        let src_line = comment
            .and_then(|c| c.split_whitespace().next())
            .and_then(|t| t.strip_prefix('L'))
            .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            .and_then(|d| d.parse::<u32>().ok());
        let code = code.trim();
        if code.is_empty() {
            continue;
        }
        if code.starts_with('.') {
            let (name, rest) = match code.split_once(char::is_whitespace) {
                Some((n, r)) => (n, r.trim()),
                None => (code, ""),
            };
            match name {
                ".kernel" => {
                    if let Some(k) = &cur {
                        return Err(err(ln, format!("`.kernel` inside kernel `{}` (missing `.end`?)", k.name)));
                    }
                    check_name(rest, "kernel", profile).map_err(|m| err(ln, m))?;
                    cur = Some(KernelBuilder {
                        name: rest.to_string(),
                        line: ln,
                        registers: 32,
                        workgroup_size: None,
                        local_memory: 0,
                        instrs: Vec::new(),
                        labels: HashMap::new(),
                        calls: Vec::new(),
                        open: Vec::new(),
                        halts: 0,
                    });
                }
                ".end" => {
                    let k = cur.take().ok_or_else(|| err(ln, "`.end` without `.kernel`"))?;
                    kernels.push(k.finish(profile, ln)?);
                }
                _ => {
                    let Some(k) = cur.as_mut() else {
                        // wave-asm 0.1.2 ignores directives before `.kernel`.
                        continue;
                    };
                    match name {
                        ".registers" => {
                            let n = parse_dir_u32(rest, ".registers").map_err(|m| err(ln, m))?;
                            let max = if profile == Profile::Spec04 { 256 } else { 32 };
                            if n > max {
                                return Err(err(ln, format!(".registers {n} exceeds the profile's {max} registers")));
                            }
                            k.registers = n;
                        }
                        ".local_memory" => k.local_memory = parse_dir_u32(rest, ".local_memory").map_err(|m| err(ln, m))?,
                        ".workgroup_size" => {
                            let parts: Vec<&str> = rest.split(',').collect();
                            if parts.len() != 3 {
                                return Err(err(ln, ".workgroup_size needs three values X, Y, Z"));
                            }
                            let mut ws = [0u32; 3];
                            for (w, p) in ws.iter_mut().zip(&parts) {
                                *w = parse_dir_u32(p, ".workgroup_size").map_err(|m| err(ln, m))?;
                                if *w == 0 {
                                    return Err(err(ln, ".workgroup_size values must be at least 1"));
                                }
                            }
                            k.workgroup_size = Some(ws);
                        }
                        _ => return Err(err(ln, format!("unknown directive `{name}`"))),
                    }
                }
            }
            continue;
        }
        let Some(k) = cur.as_mut() else {
            return Err(err(ln, format!("code outside a `.kernel` block: `{code}`")));
        };
        let mut code = code;
        // Labels: `NAME:` optionally followed by an instruction.
        if let Some((first, rest)) = code.split_once(':') {
            let first = first.trim();
            if !first.contains(char::is_whitespace) && !first.starts_with('@') {
                check_name(first, "label", profile).map_err(|m| err(ln, m))?;
                if k.labels.insert(first.to_string(), k.instrs.len() as u32).is_some() {
                    return Err(err(ln, format!("duplicate label `{first}`")));
                }
                code = rest.trim();
                if code.is_empty() {
                    continue;
                }
            }
        }
        k.push_instr(&cx, ln, code, src_line).map_err(|m| err(ln, m))?;
    }
    if let Some(k) = cur {
        return Err(err(last_line.max(k.line), format!("kernel `{}` has no `.end`", k.name)));
    }
    Ok(Program { kernels })
}
