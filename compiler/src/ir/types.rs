//! IR types and operations.

/// The type of an SSA value. Integers are sign-agnostic (operations carry the
/// signedness), as in Cranelift; 16-bit types come with the packing work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A per-lane boolean: a predicate or lane mask after selection, never a 32-bit value by nature.
    Bool,
    I32,
    F32,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "b1",
            Type::I32 => "i32",
            Type::F32 => "f32",
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
}

impl ConvOp {
    pub fn types(self) -> (Type, Type) {
        match self {
            ConvOp::SIToF | ConvOp::UIToF => (Type::I32, Type::F32),
            ConvOp::FToSI | ConvOp::FToUI => (Type::F32, Type::I32),
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
