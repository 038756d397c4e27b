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
}

impl Type {
    pub const ALL: [Type; 5] = [Type::Bool, Type::I32, Type::F32, Type::I16, Type::F16];

    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "b1",
            Type::I32 => "i32",
            Type::F32 => "f32",
            Type::I16 => "i16",
            Type::F16 => "f16",
        }
    }

    /// Bits a value of this type occupies in memory and in a register half or whole.
    pub fn bits(self) -> u32 {
        match self {
            Type::Bool => 1,
            Type::I16 | Type::F16 => 16,
            Type::I32 | Type::F32 => 32,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    INeg,
    /// Bitwise not.
    INot,
    FNeg,
    /// Boolean not.
    BNot,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 4] = [UnaryOp::INeg, UnaryOp::INot, UnaryOp::FNeg, UnaryOp::BNot];

    /// The text form's mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::INeg => "ineg",
            UnaryOp::INot => "inot",
            UnaryOp::FNeg => "fneg",
            UnaryOp::BNot => "bnot",
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
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 21] = {
        use BinaryOp::*;
        [IAdd, ISub, IMul, SDiv, UDiv, SRem, URem, And, Or, Xor, Shl, LShr, AShr, FAdd, FSub, FMul, FDiv, FRem, BAnd, BOr, BXor]
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
        }
    }

    /// (operand type, result type)
    pub fn types(self) -> (Type, Type) {
        use BinaryOp::*;
        match self {
            IAdd | ISub | IMul | SDiv | UDiv | SRem | URem | And | Or | Xor | Shl | LShr | AShr => (Type::I32, Type::I32),
            FAdd | FSub | FMul | FDiv | FRem => (Type::F32, Type::F32),
            BAnd | BOr | BXor => (Type::Bool, Type::Bool),
        }
    }
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(self, IAdd | IMul | And | Or | Xor | FAdd | FMul | BAnd | BOr | BXor)
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
