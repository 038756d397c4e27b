//! IR types and operations.

/// The type of an SSA value. Integers are sign-agnostic (operations carry the
/// signedness), as in Cranelift.
///
/// 16-bit values exist for loads, stores, constants and conversions; 16-bit
/// arithmetic and packing two of them per register come with the optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A per-lane boolean: a predicate or lane mask after selection, never a 32-bit value by nature.
    Bool,
    I32,
    F32,
    /// 16-bit integer (int16_t/uint16_t).
    I16,
    /// IEEE binary16 (half with -enable-16bit-types).
    F16,
    /// 64-bit integer (int64_t/uint64_t) and IEEE binary64 (double): a pair of
    /// 32-bit halves (`pack64`, `lo32`, `hi32`). The lowering computes 64-bit
    /// integers on the halves; `split64` turns every i64 value into its halves
    /// before selection, and every f64 value except those of `double` ops.
    I64,
    F64,
}

impl Type {
    pub const ALL: [Type; 7] = [Type::Bool, Type::I32, Type::F32, Type::I16, Type::F16, Type::I64, Type::F64];

    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "b1",
            Type::I32 => "i32",
            Type::F32 => "f32",
            Type::I16 => "i16",
            Type::F16 => "f16",
            Type::I64 => "i64",
            Type::F64 => "f64",
        }
    }

    /// Bits a value of this type occupies in memory and in a register half or whole.
    pub fn bits(self) -> u32 {
        match self {
            Type::Bool => 1,
            Type::I16 | Type::F16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 => 64,
        }
    }

    /// A 64-bit type (a pair of registers).
    pub fn is_64bit(self) -> bool {
        matches!(self, Type::I64 | Type::F64)
    }
}

/// IEEE binary64 operations WAVE has (`CAP_F64`: `dadd`, ..., and the
/// conversions to and from f32); everything else on doubles is computed on
/// their bits by the lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DoubleOp {
    Add,
    Sub,
    Mul,
    Div,
    /// a * b + c, one rounding.
    Fma,
    Sqrt,
    /// f32 to f64 (exact).
    FromF32,
    /// f64 to f32, rounding to nearest even.
    ToF32,
}

impl DoubleOp {
    pub const ALL: [DoubleOp; 8] =
        [DoubleOp::Add, DoubleOp::Sub, DoubleOp::Mul, DoubleOp::Div, DoubleOp::Fma, DoubleOp::Sqrt, DoubleOp::FromF32, DoubleOp::ToF32];

    pub fn name(self) -> &'static str {
        match self {
            DoubleOp::Add => "dadd",
            DoubleOp::Sub => "dsub",
            DoubleOp::Mul => "dmul",
            DoubleOp::Div => "ddiv",
            DoubleOp::Fma => "dfma",
            DoubleOp::Sqrt => "dsqrt",
            DoubleOp::FromF32 => "fext64",
            DoubleOp::ToF32 => "ftrunc64",
        }
    }

    /// Number of operands.
    pub fn arity(self) -> usize {
        match self {
            DoubleOp::Sqrt | DoubleOp::FromF32 | DoubleOp::ToF32 => 1,
            DoubleOp::Fma => 3,
            _ => 2,
        }
    }

    /// (operand type, result type)
    pub fn types(self) -> (Type, Type) {
        match self {
            DoubleOp::FromF32 => (Type::F32, Type::F64),
            DoubleOp::ToF32 => (Type::F64, Type::F32),
            _ => (Type::F64, Type::F64),
        }
    }
}

/// One-operand operations. Float ops are f32 -> f32, integer ops i32 -> i32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    INeg,
    /// Bitwise not.
    INot,
    FNeg,
    /// Boolean not.
    BNot,
    FAbs,
    FSqrt,
    /// 1 / sqrt(x).
    FRsqrt,
    /// 1 / x.
    FRcp,
    FFloor,
    FCeil,
    /// Round to the nearest integer, halves to even (HLSL `round`).
    FRound,
    FTrunc,
    /// x - floor(x) (HLSL `frac`).
    FFract,
    /// Clamp to [0, 1]; NaN gives 0 (HLSL `saturate`).
    FSat,
    FSin,
    FCos,
    FExp2,
    FLog2,
    /// Wrapping absolute value (iabs(i32::MIN) = i32::MIN).
    IAbs,
    /// Number of set bits.
    Popcount,
    /// Bit reversal.
    BitRev,
    /// Index of the highest set bit; 0xffffffff for 0 (HLSL `firstbithigh(uint)`).
    UFirstBitHigh,
    /// Index of the highest bit that differs from the sign bit; 0xffffffff for 0
    /// and -1 (HLSL `firstbithigh(int)`).
    SFirstBitHigh,
    /// Index of the lowest set bit; 0xffffffff for 0 (HLSL `firstbitlow`).
    FirstBitLow,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 24] = {
        use UnaryOp::*;
        [
            INeg,
            INot,
            FNeg,
            BNot,
            FAbs,
            FSqrt,
            FRsqrt,
            FRcp,
            FFloor,
            FCeil,
            FRound,
            FTrunc,
            FFract,
            FSat,
            FSin,
            FCos,
            FExp2,
            FLog2,
            IAbs,
            Popcount,
            BitRev,
            UFirstBitHigh,
            SFirstBitHigh,
            FirstBitLow,
        ]
    };

    /// The text form's mnemonic.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            INeg => "ineg",
            INot => "inot",
            FNeg => "fneg",
            BNot => "bnot",
            FAbs => "fabs",
            FSqrt => "fsqrt",
            FRsqrt => "frsqrt",
            FRcp => "frcp",
            FFloor => "ffloor",
            FCeil => "fceil",
            FRound => "fround",
            FTrunc => "ftrunc",
            FFract => "ffract",
            FSat => "fsat",
            FSin => "fsin",
            FCos => "fcos",
            FExp2 => "fexp2",
            FLog2 => "flog2",
            IAbs => "iabs",
            Popcount => "popcount",
            BitRev => "bitrev",
            UFirstBitHigh => "ufirstbithigh",
            SFirstBitHigh => "sfirstbithigh",
            FirstBitLow => "firstbitlow",
        }
    }

    /// The operand's type, which is also the result's.
    pub fn ty(self) -> Type {
        use UnaryOp::*;
        match self {
            INeg | INot | IAbs | Popcount | BitRev | UFirstBitHigh | SFirstBitHigh | FirstBitLow => Type::I32,
            BNot => Type::Bool,
            FNeg | FAbs | FSqrt | FRsqrt | FRcp | FFloor | FCeil | FRound | FTrunc | FFract | FSat | FSin | FCos | FExp2 | FLog2 => {
                Type::F32
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    IAdd,
    ISub,
    IMul,
    SDiv,
    UDiv,
    SRem,
    URem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    FAdd,
    FSub,
    FMul,
    FDiv,
    /// Truncating float remainder (HLSL `%` on floats, C fmod).
    FRem,
    BAnd,
    BOr,
    BXor,
    /// Signed minimum.
    SMin,
    SMax,
    /// Unsigned minimum.
    UMin,
    UMax,
    /// Float minimum; if one operand is NaN the result is the other (HLSL `min`).
    FMin,
    FMax,
    /// High 32 bits of the unsigned 64-bit product.
    UMulHi,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 28] = {
        use BinaryOp::*;
        [
            IAdd, ISub, IMul, SDiv, UDiv, SRem, URem, And, Or, Xor, Shl, LShr, AShr, FAdd, FSub, FMul, FDiv, FRem, BAnd, BOr, BXor, SMin,
            SMax, UMin, UMax, FMin, FMax, UMulHi,
        ]
    };

    /// The text form's mnemonic.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            IAdd => "iadd",
            ISub => "isub",
            IMul => "imul",
            SDiv => "sdiv",
            UDiv => "udiv",
            SRem => "srem",
            URem => "urem",
            And => "and",
            Or => "or",
            Xor => "xor",
            Shl => "shl",
            LShr => "lshr",
            AShr => "ashr",
            FAdd => "fadd",
            FSub => "fsub",
            FMul => "fmul",
            FDiv => "fdiv",
            FRem => "frem",
            BAnd => "band",
            BOr => "bor",
            BXor => "bxor",
            SMin => "smin",
            SMax => "smax",
            UMin => "umin",
            UMax => "umax",
            FMin => "fmin",
            FMax => "fmax",
            UMulHi => "umulhi",
        }
    }

    /// (operand type, result type)
    pub fn types(self) -> (Type, Type) {
        use BinaryOp::*;
        match self {
            IAdd | ISub | IMul | SDiv | UDiv | SRem | URem | And | Or | Xor | Shl | LShr | AShr | SMin | SMax | UMin | UMax | UMulHi => {
                (Type::I32, Type::I32)
            }
            FAdd | FSub | FMul | FDiv | FRem | FMin | FMax => (Type::F32, Type::F32),
            BAnd | BOr | BXor => (Type::Bool, Type::Bool),
        }
    }
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(self, IAdd | IMul | And | Or | Xor | FAdd | FMul | BAnd | BOr | BXor | SMin | SMax | UMin | UMax | FMin | FMax | UMulHi)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    SLt,
    SLe,
    SGt,
    SGe,
    ULt,
    ULe,
    UGt,
    UGe,
    FEq,
    /// Unordered not-equal: true when either operand is NaN (as HLSL `!=`).
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
}

impl CmpOp {
    pub const ALL: [CmpOp; 16] = {
        use CmpOp::*;
        [Eq, Ne, SLt, SLe, SGt, SGe, ULt, ULe, UGt, UGe, FEq, FNe, FLt, FLe, FGt, FGe]
    };

    /// The condition code after `icmp` or `fcmp` (`icmp slt`, `fcmp lt`).
    pub fn name(self) -> &'static str {
        use CmpOp::*;
        match self {
            Eq | FEq => "eq",
            Ne | FNe => "ne",
            SLt => "slt",
            SLe => "sle",
            SGt => "sgt",
            SGe => "sge",
            ULt => "ult",
            ULe => "ule",
            UGt => "ugt",
            UGe => "uge",
            FLt => "lt",
            FLe => "le",
            FGt => "gt",
            FGe => "ge",
        }
    }

    /// `icmp` or `fcmp`.
    pub fn mnemonic(self) -> &'static str {
        if self.operand_type() == Type::F32 {
            "fcmp"
        } else {
            "icmp"
        }
    }

    pub fn operand_type(self) -> Type {
        use CmpOp::*;
        match self {
            FEq | FNe | FLt | FLe | FGt | FGe => Type::F32,
            _ => Type::I32,
        }
    }

    /// The compare that gives the same result with the operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> CmpOp {
        use CmpOp::*;
        match self {
            Eq | Ne | FEq | FNe => self,
            SLt => SGt,
            SLe => SGe,
            SGt => SLt,
            SGe => SLe,
            ULt => UGt,
            ULe => UGe,
            UGt => ULt,
            UGe => ULe,
            FLt => FGt,
            FLe => FGe,
            FGt => FLt,
            FGe => FLe,
        }
    }

    /// The compare that is true exactly when this one is false, if there is
    /// one: every integer compare, and `FEq`/`FNe` (`FNe` is unordered). The
    /// ordered float compares have no inverse (both are false on NaN).
    pub fn inverse(self) -> Option<CmpOp> {
        use CmpOp::*;
        Some(match self {
            Eq => Ne,
            Ne => Eq,
            SLt => SGe,
            SLe => SGt,
            SGt => SLe,
            SGe => SLt,
            ULt => UGe,
            ULe => UGt,
            UGt => ULe,
            UGe => ULt,
            FEq => FNe,
            FNe => FEq,
            FLt | FLe | FGt | FGe => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Signed integer to float.
    SIToF,
    UIToF,
    /// Float to signed integer, truncating toward zero, saturating.
    FToSI,
    FToUI,
    /// f16 to f32 (exact).
    F16ToF32,
    /// f32 to f16, rounding to nearest even.
    F32ToF16,
    /// i16 to i32, sign-extending.
    SExt16,
    /// i16 to i32, zero-extending.
    ZExt16,
    /// i32 to i16, keeping the low 16 bits.
    Trunc16,
}

impl ConvOp {
    pub const ALL: [ConvOp; 9] = [
        ConvOp::SIToF,
        ConvOp::UIToF,
        ConvOp::FToSI,
        ConvOp::FToUI,
        ConvOp::F16ToF32,
        ConvOp::F32ToF16,
        ConvOp::SExt16,
        ConvOp::ZExt16,
        ConvOp::Trunc16,
    ];

    /// The text form's mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            ConvOp::SIToF => "sitof",
            ConvOp::UIToF => "uitof",
            ConvOp::FToSI => "ftosi",
            ConvOp::FToUI => "ftoui",
            ConvOp::F16ToF32 => "fext16",
            ConvOp::F32ToF16 => "ftrunc16",
            ConvOp::SExt16 => "sext16",
            ConvOp::ZExt16 => "zext16",
            ConvOp::Trunc16 => "trunc16",
        }
    }

    pub fn types(self) -> (Type, Type) {
        match self {
            ConvOp::SIToF | ConvOp::UIToF => (Type::I32, Type::F32),
            ConvOp::FToSI | ConvOp::FToUI => (Type::F32, Type::I32),
            ConvOp::F16ToF32 => (Type::F16, Type::F32),
            ConvOp::F32ToF16 => (Type::F32, Type::F16),
            ConvOp::SExt16 | ConvOp::ZExt16 => (Type::I16, Type::I32),
            ConvOp::Trunc16 => (Type::I32, Type::I16),
        }
    }
}

/// Hardware-populated per-thread values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpecialReg {
    ThreadId(u8),
    WorkgroupId(u8),
    WorkgroupSize(u8),
    GridSize(u8),
    LaneId,
    WaveId,
    WaveWidth,
    NumWaves,
}

impl SpecialReg {
    /// Every register the hardware has (three axes for the per-axis ones).
    pub const ALL: [SpecialReg; 16] = {
        use SpecialReg::*;
        [
            ThreadId(0),
            ThreadId(1),
            ThreadId(2),
            WorkgroupId(0),
            WorkgroupId(1),
            WorkgroupId(2),
            WorkgroupSize(0),
            WorkgroupSize(1),
            WorkgroupSize(2),
            GridSize(0),
            GridSize(1),
            GridSize(2),
            LaneId,
            WaveId,
            WaveWidth,
            NumWaves,
        ]
    };

    /// Assembly name (`sr_thread_id_x`, ...).
    pub fn asm_name(self) -> String {
        let axis = |a: u8| ["x", "y", "z"][a.min(2) as usize];
        match self {
            SpecialReg::ThreadId(a) => format!("sr_thread_id_{}", axis(a)),
            SpecialReg::WorkgroupId(a) => format!("sr_workgroup_id_{}", axis(a)),
            SpecialReg::WorkgroupSize(a) => format!("sr_workgroup_size_{}", axis(a)),
            SpecialReg::GridSize(a) => format!("sr_grid_size_{}", axis(a)),
            SpecialReg::LaneId => "sr_lane_id".into(),
            SpecialReg::WaveId => "sr_wave_id".into(),
            SpecialReg::WaveWidth => "sr_wave_width".into(),
            SpecialReg::NumWaves => "sr_num_waves".into(),
        }
    }
    /// Same value in every lane of a wave.
    pub fn is_uniform(self) -> bool {
        !matches!(self, SpecialReg::ThreadId(_) | SpecialReg::LaneId)
    }
}

/// Memory spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// Device memory that the kernel may write.
    Device,
    /// Device memory the kernel never writes (cbuffers, StructuredBuffer): loads from a
    /// uniform address here are wave-invariant.
    DeviceReadOnly,
    /// Workgroup-shared local memory.
    Local,
}

impl MemSpace {
    pub const ALL: [MemSpace; 3] = [MemSpace::Device, MemSpace::DeviceReadOnly, MemSpace::Local];

    /// The suffix in `load.<space>.<type>` and `store.<space>`.
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Device => "device",
            MemSpace::DeviceReadOnly => "device_ro",
            MemSpace::Local => "local",
        }
    }
}

/// Three-operand operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    /// a * b + c on f32 (HLSL `mad`/`fma`); selected to WAVE's fused `fma` (one rounding).
    Fma,
}

impl TernaryOp {
    pub const ALL: [TernaryOp; 1] = [TernaryOp::Fma];

    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::Fma => "fma",
        }
    }

    /// The operands' type, which is also the result's.
    pub fn ty(self) -> Type {
        match self {
            TernaryOp::Fma => Type::F32,
        }
    }
}

/// Read-modify-write atomics (`atomic_rmw.<op>.<space>`), all on i32 in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    /// Exchange: stores the value, returns the old one.
    Xchg,
    SMin,
    SMax,
    UMin,
    UMax,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 10] = {
        use AtomicOp::*;
        [Add, Sub, And, Or, Xor, Xchg, SMin, SMax, UMin, UMax]
    };

    pub fn name(self) -> &'static str {
        use AtomicOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            And => "and",
            Or => "or",
            Xor => "xor",
            Xchg => "xchg",
            SMin => "smin",
            SMax => "smax",
            UMin => "umin",
            UMax => "umax",
        }
    }
}

/// Scope of a memory fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceScope {
    /// Memory operations of the workgroup (local and device memory as seen by the group).
    Workgroup,
    /// Device memory as seen by every workgroup.
    Device,
}

impl FenceScope {
    pub const ALL: [FenceScope; 2] = [FenceScope::Workgroup, FenceScope::Device];

    pub fn name(self) -> &'static str {
        match self {
            FenceScope::Workgroup => "workgroup",
            FenceScope::Device => "device",
        }
    }
}

/// Operations of `wave_reduce.<op>` and `wave_prefix.<op>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveOp {
    IAdd,
    IMul,
    SMin,
    SMax,
    UMin,
    UMax,
    And,
    Or,
    Xor,
    FAdd,
    FMul,
    /// NaN-ignoring, as `BinaryOp::FMin`.
    FMin,
    FMax,
}

impl WaveOp {
    pub const ALL: [WaveOp; 13] = {
        use WaveOp::*;
        [IAdd, IMul, SMin, SMax, UMin, UMax, And, Or, Xor, FAdd, FMul, FMin, FMax]
    };

    pub fn name(self) -> &'static str {
        use WaveOp::*;
        match self {
            IAdd => "iadd",
            IMul => "imul",
            SMin => "smin",
            SMax => "smax",
            UMin => "umin",
            UMax => "umax",
            And => "and",
            Or => "or",
            Xor => "xor",
            FAdd => "fadd",
            FMul => "fmul",
            FMin => "fmin",
            FMax => "fmax",
        }
    }

    /// The operand's type, which is also the result's.
    pub fn ty(self) -> Type {
        use WaveOp::*;
        match self {
            FAdd | FMul | FMin | FMax => Type::F32,
            _ => Type::I32,
        }
    }

    /// op(x, x) == x: a reduction over equal values is that value.
    pub fn is_idempotent(self) -> bool {
        matches!(self, WaveOp::SMin | WaveOp::SMax | WaveOp::UMin | WaveOp::UMax | WaveOp::And | WaveOp::Or | WaveOp::FMin | WaveOp::FMax)
    }

    /// Whether `wave_prefix.<op>` exists (the sums and products of HLSL's WavePrefix*).
    pub fn has_prefix(self) -> bool {
        matches!(self, WaveOp::IAdd | WaveOp::IMul | WaveOp::FAdd | WaveOp::FMul)
    }
}

/// `wave_any` / `wave_all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteOp {
    Any,
    All,
}

impl VoteOp {
    pub const ALL: [VoteOp; 2] = [VoteOp::Any, VoteOp::All];

    pub fn name(self) -> &'static str {
        match self {
            VoteOp::Any => "wave_any",
            VoteOp::All => "wave_all",
        }
    }
}

/// Whether `bitcast` may reinterpret `from` as `to` (same width, different type).
pub fn bitcast_allowed(from: Type, to: Type) -> bool {
    matches!((from, to), (Type::I32, Type::F32) | (Type::F32, Type::I32) | (Type::I16, Type::F16) | (Type::F16, Type::I16))
}
