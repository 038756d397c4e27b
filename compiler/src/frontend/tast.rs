//! Typed AST: the output of semantic analysis and the input of the SSA lowering.
//!
//! Design rules (what the lowering can rely on):
//!
//! * **Every conversion is explicit.** An implicit conversion appears as one of
//!   three nodes, each changing one thing: [`ExprKind::Cast`] changes the
//!   component type and keeps the shape (scalar stays scalar, vector keeps its
//!   length); [`ExprKind::Splat`] turns a scalar into a vector of the same
//!   component type; [`ExprKind::Truncate`] drops trailing vector components
//!   (to a shorter vector, or to a scalar = component x). A conversion of both
//!   kinds nests them: `Splat(Cast(x))`, `Cast(Truncate(v))`. Casts of
//!   literals are folded into the literal.
//! * **Operands already agree.** Both operands of [`ExprKind::Binary`] have
//!   the same type (arithmetic, bitwise and comparison). For shifts the right
//!   operand is converted to the left operand's type; the lowering masks the
//!   shift amount as the hardware does. Comparisons have type bool (or a bool
//!   vector); their operand type is `lhs.ty`. Bools never reach arithmetic:
//!   they are promoted to int; `==`/`!=` on two bools compare as bool.
//! * **Expressions have no side effects.** Assignment, `++` and `--` only
//!   exist as statements ([`StmtKind::Assign`]); used inside an expression they
//!   are refused (E0305). Hence the evaluation order of operands, and whether
//!   `&&`, `||` and `?:` are lowered with branches or with selects, is not
//!   observable except for out-of-bounds buffer loads. HLSL semantics:
//!   [`ExprKind::Logical`] short-circuits (scalar bool operands only);
//!   [`ExprKind::Select`] has a scalar bool condition and, for scalar results,
//!   evaluates only the chosen side; for vector results HLSL evaluates both
//!   sides: either lowering is correct here.
//! * **Compound assignment** `p op= v` and `++`/`--` are desugared into
//!   [`StmtKind::Assign`] whose `value` computes the new value from
//!   [`ExprKind::PlaceValue`], the value the place holds before the store. The
//!   lowering evaluates the place (a buffer index included) once, loads it if
//!   `PlaceValue` occurs, then evaluates `value` and stores. `compound` records
//!   the operator for printing only. `x++` becomes `x = x + 1` (1 of x's type;
//!   1.0 for floats); prefix and postfix are identical as statements.
//! * **Locals** (variables and entry parameters) are numbered by [`LocalId`],
//!   an index into [`Module::locals`]. Each declaration gets a fresh id, so
//!   shadowing needs no scopes downstream.
//! * **Resources** are in declaration order, which is the ABI order
//!   ([`ResourceId`] = position = argument register). A cbuffer's members
//!   are 4-byte scalars packed in declaration order at offsets 0, 4, 8, ...
//!   (this matches HLSL's packing rules for scalar-only cbuffers: scalars
//!   never straddle a 16-byte register).
//! * Single components `.x/.y/.z/.w` (`.r/.g/.b/.a`) are [`ExprKind::Component`]
//!   reads and [`PlaceKind::LocalComponent`] writes. `.x` on a scalar is the
//!   scalar itself. Multi-component swizzles are refused (E0308).
//! * A `T1` type (`float1`, `vector<float,1>`) is the scalar `T`.

use crate::diag::Span;
use crate::interface::{Binding, ResourceKind};

/// Index into [`Module::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalId(pub u32);

/// Index into [`Module::resources`] (declaration = ABI order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(pub u32);

/// Scalar component types. `half` and the min-precision types map to the
/// 32-bit types (dxc's default without `-enable-16bit-types`); room is left
/// for real 16/64-bit types later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScalarType {
    Bool,
    Int,
    Uint,
    Float,
}

impl ScalarType {
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::Int => "int",
            ScalarType::Uint => "uint",
            ScalarType::Float => "float",
        }
    }
    pub fn is_integer(self) -> bool {
        matches!(self, ScalarType::Int | ScalarType::Uint)
    }
    /// Size in bytes in memory (buffers, cbuffers).
    pub fn size(self) -> u32 {
        4
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    /// Component type and length 2..=4.
    Vector(ScalarType, u8),
    Void,
}

impl Type {
    pub const BOOL: Type = Type::Scalar(ScalarType::Bool);
    pub const INT: Type = Type::Scalar(ScalarType::Int);
    pub const UINT: Type = Type::Scalar(ScalarType::Uint);
    pub const FLOAT: Type = Type::Scalar(ScalarType::Float);

    /// Component type (None for void).
    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(s),
            Type::Void => None,
        }
    }
    /// Number of components: 1 for scalars, 0 for void.
    pub fn len(self) -> u8 {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => n,
            Type::Void => 0,
        }
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The same shape with another component type.
    pub fn with_scalar(self, s: ScalarType) -> Type {
        match self {
            Type::Scalar(_) => Type::Scalar(s),
            Type::Vector(_, n) => Type::Vector(s, n),
            Type::Void => Type::Void,
        }
    }
    /// `s` with `len` components (scalar for 1).
    pub fn of(s: ScalarType, len: u8) -> Type {
        if len <= 1 {
            Type::Scalar(s)
        } else {
            Type::Vector(s, len)
        }
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{}", s.name()),
            Type::Vector(s, n) => write!(f, "{}{}", s.name(), n),
            Type::Void => write!(f, "void"),
        }
    }
}

/// The analysed shader: one compute entry point and its resources.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub entry: Entry,
    /// In declaration order = ABI order; `resources[i].id == ResourceId(i)`.
    pub resources: Vec<Resource>,
    /// Indexed by [`LocalId`].
    pub locals: Vec<LocalInfo>,
}

impl Module {
    pub fn local(&self, id: LocalId) -> &LocalInfo {
        &self.locals[id.0 as usize]
    }
    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.0 as usize]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LocalInfo {
    pub name: String,
    pub ty: Type,
    pub kind: LocalKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalKind {
    Var,
    /// `const` local: never assigned after its declaration.
    Const,
    /// An entry parameter (a writable copy of the system value).
    Param(SystemValue),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemValue {
    DispatchThreadId,
    GroupThreadId,
    GroupId,
    GroupIndex,
}

impl SystemValue {
    pub fn semantic(self) -> &'static str {
        match self {
            SystemValue::DispatchThreadId => "SV_DispatchThreadID",
            SystemValue::GroupThreadId => "SV_GroupThreadID",
            SystemValue::GroupId => "SV_GroupID",
            SystemValue::GroupIndex => "SV_GroupIndex",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub numthreads: [u32; 3],
    pub params: Vec<EntryParam>,
    pub body: Block,
    pub span: Span,
}

/// An entry parameter. Its `ty` is the declared type: `uint`/`int` (component
/// x), or a vector of 2 or 3 components of `uint`/`int` (components x, y[, z]).
/// The lowering initialises `local` from the system value, converted to `ty`.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryParam {
    pub local: LocalId,
    pub semantic: SystemValue,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub id: ResourceId,
    pub name: String,
    pub kind: ResourceKind,
    pub binding: Binding,
    /// Element type of a structured buffer (Uint for cbuffers, unused).
    pub elem: ScalarType,
    /// cbuffer members (empty for buffers).
    pub members: Vec<CbMember>,
    pub span: Span,
}

impl Resource {
    /// Bytes per element (buffers) or total size (cbuffers).
    pub fn stride(&self) -> u32 {
        match self.kind {
            ResourceKind::ConstantBuffer => self.members.iter().map(|m| m.offset + m.ty.size()).max().unwrap_or(0),
            _ => self.elem.size(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CbMember {
    pub name: String,
    pub ty: ScalarType,
    /// Byte offset: 4 * position in declaration order.
    pub offset: u32,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// Statement attributes, recorded as written (`[unroll(4)]` is `Unroll(Some(4))`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtAttr {
    Loop,
    Unroll(Option<u32>),
    FastOpt,
    AllowUavCondition,
    Branch,
    Flatten,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A local declaration; `init` already has the local's type. Without an
    /// initialiser the value is undefined (the lowering may use zero).
    Decl {
        local: LocalId,
        init: Option<Expr>,
    },
    /// `place = value`; see the module docs for compound assignment and `++`/`--`.
    /// `value.ty == place.ty`.
    Assign {
        place: Place,
        value: Expr,
        compound: Option<BinaryOp>,
    },
    If {
        cond: Expr,
        then_blk: Block,
        else_blk: Option<Block>,
        attrs: Vec<StmtAttr>,
    },
    /// `init` runs once in the loop's own scope; `cond` None means true; `step`
    /// holds only assignments (and expression statements).
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Vec<Stmt>,
        body: Block,
        attrs: Vec<StmtAttr>,
    },
    While {
        cond: Expr,
        body: Block,
        attrs: Vec<StmtAttr>,
    },
    DoWhile {
        body: Block,
        cond: Expr,
        attrs: Vec<StmtAttr>,
    },
    Break,
    Continue,
    Return,
    /// An expression evaluated for nothing (no side effects in this subset).
    Expr(Expr),
    Block(Block),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub kind: PlaceKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlaceKind {
    Local(LocalId),
    /// One component of a vector local.
    LocalComponent(LocalId, u8),
    /// An element of a RWStructuredBuffer; `index` is a uint scalar.
    BufferElement {
        res: ResourceId,
        index: Expr,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    Bool(bool),
    Int(i32),
    Uint(u32),
    Float(f32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Arithmetic negation (int, uint: wrapping; float).
    Neg,
    /// Bitwise not (int, uint).
    BitNot,
    /// Logical not (bool operand and result, component-wise for vectors).
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Integer division truncates; by zero is undefined.
    Div,
    /// `%`: truncating remainder; on floats fmod semantics (sign of lhs).
    Rem,
    Shl,
    /// Arithmetic for int, logical for uint.
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Const),
    Local(LocalId),
    /// Component `index` of a vector-typed `base`.
    Component {
        base: Box<Expr>,
        index: u8,
    },
    /// Vector constructor; each arg is a scalar or vector of the component
    /// type, and their lengths add up to the vector's length.
    Construct {
        args: Vec<Expr>,
    },
    /// Load of element `index` (uint scalar) of a structured buffer.
    BufferLoad {
        res: ResourceId,
        index: Box<Expr>,
    },
    /// Load of member number `member` of a cbuffer.
    CbufferLoad {
        res: ResourceId,
        member: u32,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Short-circuit `&&` / `||` on scalar bools.
    Logical {
        op: LogicalOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `cond ? then : else`; scalar bool `cond`, `then.ty == else.ty == ty`.
    Select {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    /// Component type conversion to `ty` (same shape). float->int truncates
    /// toward zero; x->bool is `x != 0`; bool->x is 0 or 1.
    Cast {
        operand: Box<Expr>,
    },
    /// Scalar to vector `ty` of the same component type.
    Splat {
        operand: Box<Expr>,
    },
    /// Vector to its first `ty.len()` components (a scalar when 1).
    Truncate {
        operand: Box<Expr>,
    },
    /// The old value of the enclosing [`StmtKind::Assign`]'s place.
    PlaceValue,
}
