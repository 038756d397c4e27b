//! Decoded instruction representation.
//!
//! Instructions are decoded once by the parser into [`Op`] values that hold
//! register indices; the executor never looks at text again.

/// A general-purpose register operand: index plus which part is addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct R {
    pub idx: u16,
    pub half: Half,
}

/// Which part of a 32-bit register an operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Full,
    /// `rN.lo`: bits 0..16 (spec profile only).
    Lo,
    /// `rN.hi`: bits 16..32 (spec profile only).
    Hi,
}

impl R {
    pub const fn full(idx: u16) -> R {
        R { idx, half: Half::Full }
    }
}

/// Special registers readable by `mov`/`mov_sr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sr {
    ThreadId(u8),
    WaveId,
    LaneId,
    WorkgroupId(u8),
    WorkgroupSize(u8),
    GridSize(u8),
    WaveWidth,
    NumWaves,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    INeg,
    IAbs,
    Not,
    BitCount,
    BitFind,
    BitRev,
    FNeg,
    FAbs,
    FSqrt,
    FRsqrt,
    /// frcp: 1 / x in both profiles (frcp(-0) = -inf, as wave-emu 0.1.2 computes it).
    FRcp,
    FFloor,
    FCeil,
    FRound,
    FTrunc,
    /// ffract; `true` = 0.1.2 (x - trunc x), `false` = spec (x - floor x).
    FFract(bool),
    /// fsat; `true` = 0.1.2 (a clamp that keeps NaN), `false` = spec (NaN gives 0).
    FSat(bool),
    FSin,
    FCos,
    FExp2,
    FLog2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    IAdd,
    ISub,
    IMul,
    IMulHi,
    IDiv,
    IMod,
    IMin,
    IMax,
    UMin,
    UMax,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Sar,
    FAdd,
    FSub,
    FMul,
    /// fdiv; `true` = 0.1.2 (division by ±0 gives +inf).
    FDiv(bool),
    FMin,
    FMax,
    HAdd,
    HSub,
    HMul,
    HAdd2,
    HMul2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TernOp {
    IMad,
    IClamp,
    Fma,
    FClamp,
    Hma,
    Hma2,
    Bfe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DblOp {
    DAdd,
    DSub,
    DMul,
    DDiv,
    Dma,
    DSqrt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    IEq,
    INe,
    ILt,
    ILe,
    IGt,
    IGe,
    ULt,
    ULe,
    UGt,
    UGe,
    UEq,
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
    FOrd,
    FUnord,
}

/// Conversion, with the direction already resolved for the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvtOp {
    F32ToI32,
    F32ToU32,
    I32ToF32,
    U32ToF32,
    F16ToF32,
    F32ToF16,
    /// Source is a register pair.
    F64ToF32,
    /// Destination is a register pair.
    F32ToF64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    Cas,
}

/// Shuffles; what a lane reads from an inactive source lane is in `Op::Shuffle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShufOp {
    Idx,
    Up,
    Down,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// A predicate operand, optionally negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P {
    pub idx: u8,
    pub neg: bool,
}

/// Decoded operation. Control-flow targets are instruction indices resolved by the parser.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Un(UnOp, R, R),
    Bin(BinOp, R, R, R),
    Tern(TernOp, R, R, R, R),
    /// bfi d, base, ins, off, width
    Bfi(R, R, R, R, R),
    /// f64 op on register pairs (first register of each pair): d, a, b, c.
    Dbl(DblOp, u16, u16, u16, u16),
    Cmp(CmpOp, u8, R, R),
    /// select d, p, t, f
    Select(R, u8, R, R),
    Mov(R, R),
    MovSr(R, Sr),
    MovImm(R, u32),
    Cvt(CvtOp, R, R),
    Load {
        local: bool,
        bytes: u8,
        d: R,
        addr: R,
    },
    Store {
        local: bool,
        bytes: u8,
        addr: R,
        v: R,
    },
    Atomic {
        local: bool,
        op: AtomOp,
        d: Option<R>,
        addr: R,
        v: R,
        cmp: Option<R>,
    },
    Shuffle(ShufOp, R, R, R),
    Broadcast(R, R, R),
    Ballot(R, u8),
    WaveAny(u8, u8),
    WaveAll(u8, u8),
    PrefixSum(R, R),
    Reduce(RedOp, R, R),
    /// `else_pc` is the `else` instruction (or the `endif` when there is none).
    If {
        p: P,
        else_pc: u32,
        endif_pc: u32,
    },
    Else {
        endif_pc: u32,
    },
    EndIf,
    Loop {
        end_pc: u32,
    },
    /// `in_if`: the break is nested in an if-frame inside its loop.
    Break {
        p: P,
        in_if: bool,
    },
    Continue {
        p: P,
    },
    EndLoop {
        start_pc: u32,
    },
    Call {
        target: u32,
    },
    Return,
    Halt,
    Barrier,
    Fence,
    Wait,
    Nop,
}

/// Statistics category of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Alu = 0,
    Fpu,
    Sfu,
    Memory,
    Atomic,
    Wave,
    Control,
    Sync,
    Move,
}

pub const CATEGORY_NAMES: [&str; 9] = ["alu", "fpu", "sfu", "memory", "atomic", "wave", "control", "sync", "move"];

/// Scoreboard slot of predicate `p` (general registers use their index).
pub const PRED_SLOT_BASE: u16 = 512;
pub const SCOREBOARD_SLOTS: usize = 516;

impl Op {
    pub fn is_control(&self) -> bool {
        matches!(
            self,
            Op::If { .. }
                | Op::Else { .. }
                | Op::EndIf
                | Op::Loop { .. }
                | Op::Break { .. }
                | Op::Continue { .. }
                | Op::EndLoop { .. }
                | Op::Call { .. }
                | Op::Return
                | Op::Halt
        )
    }

    pub fn category(&self) -> Category {
        use Category::*;
        match self {
            Op::Un(op, ..) => match op {
                UnOp::INeg | UnOp::IAbs | UnOp::Not | UnOp::BitCount | UnOp::BitFind | UnOp::BitRev => Alu,
                UnOp::FSqrt | UnOp::FRsqrt | UnOp::FRcp | UnOp::FSin | UnOp::FCos | UnOp::FExp2 | UnOp::FLog2 => Sfu,
                _ => Fpu,
            },
            Op::Bin(op, ..) => match op {
                BinOp::IDiv | BinOp::IMod | BinOp::FDiv(_) => Sfu,
                BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FMin | BinOp::FMax => Fpu,
                BinOp::HAdd | BinOp::HSub | BinOp::HMul | BinOp::HAdd2 | BinOp::HMul2 => Fpu,
                _ => Alu,
            },
            Op::Tern(op, ..) => match op {
                TernOp::IMad | TernOp::IClamp | TernOp::Bfe => Alu,
                _ => Fpu,
            },
            Op::Bfi(..) => Alu,
            Op::Dbl(op, ..) => match op {
                DblOp::DDiv | DblOp::DSqrt => Sfu,
                _ => Fpu,
            },
            Op::Cmp(..) | Op::Select(..) | Op::Cvt(..) => Alu,
            Op::Mov(..) | Op::MovSr(..) | Op::MovImm(..) => Move,
            Op::Load { .. } | Op::Store { .. } => Memory,
            Op::Atomic { .. } => Atomic,
            Op::Shuffle(..)
            | Op::Broadcast(..)
            | Op::Ballot(..)
            | Op::WaveAny(..)
            | Op::WaveAll(..)
            | Op::PrefixSum(..)
            | Op::Reduce(..) => Wave,
            Op::Barrier | Op::Fence | Op::Wait => Sync,
            Op::Nop => Control,
            _ => Control,
        }
    }

    /// Scoreboard slots read and written (general registers below 512, predicates 512..516).
    pub fn reads_writes(&self) -> (Vec<u16>, Vec<u16>) {
        let mut rd = Vec::new();
        let mut wr = Vec::new();
        let p = |i: u8| PRED_SLOT_BASE + i as u16;
        let pair = |v: &mut Vec<u16>, i: u16, n: u16| {
            for k in 0..n {
                v.push(i.saturating_add(k));
            }
        };
        match self {
            Op::Un(_, d, a) | Op::Mov(d, a) | Op::Cvt(_, d, a) | Op::PrefixSum(d, a) | Op::Reduce(_, d, a) => {
                let (dn, an) = match self {
                    Op::Cvt(CvtOp::F32ToF64, ..) => (2, 1),
                    Op::Cvt(CvtOp::F64ToF32, ..) => (1, 2),
                    _ => (1, 1),
                };
                pair(&mut rd, a.idx, an);
                pair(&mut wr, d.idx, dn);
            }
            Op::Bin(_, d, a, b) | Op::Shuffle(_, d, a, b) | Op::Broadcast(d, a, b) => {
                rd.extend([a.idx, b.idx]);
                wr.push(d.idx);
            }
            Op::Tern(_, d, a, b, c) => {
                rd.extend([a.idx, b.idx, c.idx]);
                wr.push(d.idx);
            }
            Op::Bfi(d, a, b, c, e) => {
                rd.extend([a.idx, b.idx, c.idx, e.idx]);
                wr.push(d.idx);
            }
            Op::Dbl(op, d, a, b, c) => {
                pair(&mut rd, *a, 2);
                if *op != DblOp::DSqrt {
                    pair(&mut rd, *b, 2);
                }
                if *op == DblOp::Dma {
                    pair(&mut rd, *c, 2);
                }
                pair(&mut wr, *d, 2);
            }
            Op::Cmp(_, pd, a, b) => {
                rd.extend([a.idx, b.idx]);
                wr.push(p(*pd));
            }
            Op::Select(d, ps, t, f) => {
                rd.extend([p(*ps), t.idx, f.idx]);
                wr.push(d.idx);
            }
            Op::MovSr(d, _) | Op::MovImm(d, _) => wr.push(d.idx),
            Op::Load { bytes, d, addr, .. } => {
                rd.push(addr.idx);
                pair(&mut wr, d.idx, (*bytes as u16).div_ceil(4));
            }
            Op::Store { bytes, addr, v, .. } => {
                rd.push(addr.idx);
                pair(&mut rd, v.idx, (*bytes as u16).div_ceil(4));
            }
            Op::Atomic { d, addr, v, cmp, .. } => {
                rd.extend([addr.idx, v.idx]);
                if let Some(c) = cmp {
                    rd.push(c.idx);
                }
                if let Some(d) = d {
                    wr.push(d.idx);
                }
            }
            Op::Ballot(d, ps) => {
                rd.push(p(*ps));
                wr.push(d.idx);
            }
            Op::WaveAny(pd, ps) | Op::WaveAll(pd, ps) => {
                rd.push(p(*ps));
                wr.push(p(*pd));
            }
            Op::If { p: pp, .. } | Op::Break { p: pp, .. } | Op::Continue { p: pp } => rd.push(p(pp.idx)),
            _ => {}
        }
        (rd, wr)
    }

    /// Highest general register index touched (pairs and quads included), if any.
    pub fn max_reg(&self) -> Option<u32> {
        let (r, w) = self.reads_writes();
        r.iter().chain(w.iter()).filter(|&&s| s < PRED_SLOT_BASE).map(|&s| s as u32).max()
    }
}
