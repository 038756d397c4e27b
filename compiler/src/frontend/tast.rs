//! Typed AST: the output of semantic analysis and the input of the SSA lowering.
//!
//! Design rules (what the lowering can rely on):
//!
//! * **Types are values** ([`Type`] is `Copy`): arrays and structs are ids into
//!   the module's [`Types`] table. Every value has a *leaf* sequence: its
//!   scalars in a canonical order (struct fields in order, array elements in
//!   order, matrix elements row by row, vector components). The lowering keeps
//!   one SSA variable per leaf; memory layouts map leaves to byte offsets.
//! * **Every conversion is explicit.** An implicit conversion appears as one of
//!   three nodes: [`ExprKind::Cast`] converts leaf by leaf to the target's leaf
//!   types (same leaf count: shape-preserving casts and HLSL's flat casts
//!   between aggregates); [`ExprKind::Splat`] replicates a scalar to every leaf;
//!   [`ExprKind::Leaves`] keeps a subset of leaves (vector and matrix
//!   truncation). Casts of literals are folded into the literal.
//! * **Operands already agree.** Both operands of [`ExprKind::Binary`] have the
//!   same type (element-wise on vectors and matrices). For shifts the right
//!   operand has the left operand's type; the lowering masks the amount.
//!   Comparisons have a bool type of the operands' shape.
//! * **Expressions may have effects** (HLSL 2021): [`ExprKind::Assign`],
//!   calls and atomics. The lowering evaluates operands left to right, as DXC
//!   does, and evaluates the right side of `&&`, `||` and scalar `?:` only when
//!   needed. `p op= v` and `++`/`--` are an `Assign` whose value refers to
//!   the place's old value through [`ExprKind::PlaceValue`]; the place (with
//!   its index expressions) is evaluated once.
//! * **Places** (lvalues) are expressions rooted at a local, a groupshared
//!   variable or a writable buffer element, followed by `Member`, `Index`,
//!   `Swizzle` and `MatrixElems` steps; sema has checked that they are
//!   writable (no repeated swizzle components, no const locals).
//! * **Functions are not inlined here**: [`ExprKind::Call`] names a
//!   [`Function`]; the lowering inlines every call (recursion has been refused).
//!   Parameter passing: `in` arguments are converted values; `out`/`inout`
//!   arguments are places, copied in (inout) and out with conversions.
//! * **Locals** (variables, parameters, static globals) are numbered by
//!   [`LocalId`] into [`Module::locals`]. Each declaration gets a fresh id.
//! * **Resources** are listed in [`Module::resources`] in declaration order;
//!   only those the entry point uses get an ABI slot (`Resource::slot`).
//! * `groupshared` variables have a byte offset in workgroup-local memory
//!   ([`Module::groupshared`], total [`Module::local_memory`]).

use crate::diag::Span;
use crate::interface::{Binding, ResourceKind};

/// Index into [`Module::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalId(pub u32);

/// Index into [`Module::resources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(pub u32);

/// Index into [`Module::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FuncId(pub u32);

/// Index into [`Module::groupshared`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedId(pub u32);

/// Index into [`Types::structs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StructId(pub u32);

/// Index into [`Types::arrays`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArrayId(pub u32);

/// Index into [`Types::handles`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandleId(pub u32);

/// A buffer type used as a value: a local, parameter, return value or struct
/// field of type `RWStructuredBuffer<float>` and the like. At run time the
/// value is the buffer's base address (one uint leaf), so it may be chosen
/// by any control flow; DXC requires it to name one global resource, which
/// such code then does too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleType {
    /// A structured, typed or byte-address buffer kind (never a cbuffer).
    pub kind: ResourceKind,
    /// Element type (uint for byte-address buffers).
    pub elem: Type,
    /// How a matrix element is laid out.
    pub major: MatrixMajor,
}

/// Scalar component types. `half` and the min-precision types are the 32-bit
/// types unless `-enable-16bit-types` is given (as in DXC); then they and
/// `float16_t`/`int16_t`/`uint16_t` are real 16-bit types. `int64_t`,
/// `uint64_t` and `double` are 64-bit (a pair of 32-bit registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScalarType {
    Bool,
    Int,
    Uint,
    Float,
    Int16,
    Uint16,
    Half,
    Int64,
    Uint64,
    Double,
}

impl ScalarType {
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::Int => "int",
            ScalarType::Uint => "uint",
            ScalarType::Float => "float",
            ScalarType::Int16 => "int16_t",
            ScalarType::Uint16 => "uint16_t",
            ScalarType::Half => "half",
            ScalarType::Int64 => "int64_t",
            ScalarType::Uint64 => "uint64_t",
            ScalarType::Double => "double",
        }
    }
    pub fn is_integer(self) -> bool {
        matches!(self, ScalarType::Int | ScalarType::Uint | ScalarType::Int16 | ScalarType::Uint16 | ScalarType::Int64 | ScalarType::Uint64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::Float | ScalarType::Half | ScalarType::Double)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, ScalarType::Int | ScalarType::Int16 | ScalarType::Int64)
    }
    pub fn is_16bit(self) -> bool {
        matches!(self, ScalarType::Int16 | ScalarType::Uint16 | ScalarType::Half)
    }
    pub fn is_64bit(self) -> bool {
        matches!(self, ScalarType::Int64 | ScalarType::Uint64 | ScalarType::Double)
    }
    /// Size in bytes in memory (buffers, cbuffers, groupshared).
    pub fn size(self) -> u32 {
        if self.is_16bit() {
            2
        } else if self.is_64bit() {
            8
        } else {
            4
        }
    }
    /// Rank in HLSL's usual arithmetic conversions (higher wins).
    pub fn rank(self) -> u8 {
        match self {
            ScalarType::Bool => 0,
            ScalarType::Int16 => 1,
            ScalarType::Uint16 => 2,
            ScalarType::Int => 3,
            ScalarType::Uint => 4,
            ScalarType::Int64 => 5,
            ScalarType::Uint64 => 6,
            ScalarType::Half => 7,
            ScalarType::Float => 8,
            ScalarType::Double => 9,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(ScalarType),
    /// Component type and length 2..=4.
    Vector(ScalarType, u8),
    /// Component type, rows, columns (1..=4 each, not both 1).
    Matrix(ScalarType, u8, u8),
    Array(ArrayId),
    Struct(StructId),
    /// A buffer as a value (see [`HandleType`]).
    Handle(HandleId),
}

impl Type {
    pub const BOOL: Type = Type::Scalar(ScalarType::Bool);
    pub const INT: Type = Type::Scalar(ScalarType::Int);
    pub const UINT: Type = Type::Scalar(ScalarType::Uint);
    pub const FLOAT: Type = Type::Scalar(ScalarType::Float);

    /// Component type of a scalar, vector or matrix.
    pub fn scalar(self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => Some(s),
            _ => None,
        }
    }
    /// Is this a scalar, vector or matrix (a "numeric" type in HLSL terms)?
    pub fn is_numeric(self) -> bool {
        self.scalar().is_some()
    }
    pub fn is_scalar(self) -> bool {
        matches!(self, Type::Scalar(_))
    }
    /// Number of components of a scalar (1), vector or matrix; 0 otherwise.
    pub fn len(self) -> u32 {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => n as u32,
            Type::Matrix(_, r, c) => r as u32 * c as u32,
            _ => 0,
        }
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The same shape with another component type (numeric types only).
    pub fn with_scalar(self, s: ScalarType) -> Type {
        match self {
            Type::Scalar(_) => Type::Scalar(s),
            Type::Vector(_, n) => Type::Vector(s, n),
            Type::Matrix(_, r, c) => Type::Matrix(s, r, c),
            other => other,
        }
    }
    /// `s` with `len` components (scalar for 1).
    pub fn vector(s: ScalarType, len: u32) -> Type {
        if len <= 1 {
            Type::Scalar(s)
        } else {
            Type::Vector(s, len.min(4) as u8)
        }
    }
}

/// A struct declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    /// `row_major`/`column_major` written on the field (matrices in memory).
    pub major: Option<MatrixMajor>,
    /// Byte offset given by `packoffset` (cbuffer members).
    pub offset: Option<u32>,
    pub span: Span,
}

/// How a matrix is laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixMajor {
    Row,
    Column,
}

/// The table behind [`Type::Array`] and [`Type::Struct`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Types {
    pub structs: Vec<StructDef>,
    /// Element type and length (> 0).
    pub arrays: Vec<(Type, u32)>,
    pub handles: Vec<HandleType>,
}

impl Types {
    pub fn strukt(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }
    pub fn array(&self, id: ArrayId) -> (Type, u32) {
        self.arrays[id.0 as usize]
    }
    /// The array type of `len` elements of `elem` (interned).
    pub fn array_of(&mut self, elem: Type, len: u32) -> Type {
        if let Some(i) = self.arrays.iter().position(|&a| a == (elem, len)) {
            return Type::Array(ArrayId(i as u32));
        }
        self.arrays.push((elem, len));
        Type::Array(ArrayId(self.arrays.len() as u32 - 1))
    }
    pub fn handle(&self, id: HandleId) -> HandleType {
        self.handles[id.0 as usize]
    }
    /// The handle type of buffers of this kind and element (interned).
    pub fn handle_of(&mut self, h: HandleType) -> Type {
        if let Some(i) = self.handles.iter().position(|&x| x == h) {
            return Type::Handle(HandleId(i as u32));
        }
        self.handles.push(h);
        Type::Handle(HandleId(self.handles.len() as u32 - 1))
    }
    /// Does a value of type `t` hold a buffer handle anywhere? (Such values
    /// live only in registers: never in buffers, cbuffers or groupshared memory.)
    pub fn contains_handle(&self, t: Type) -> bool {
        match t {
            Type::Handle(_) => true,
            Type::Array(a) => self.contains_handle(self.array(a).0),
            Type::Struct(s) => self.strukt(s).fields.iter().any(|f| self.contains_handle(f.ty)),
            _ => false,
        }
    }
    /// Number of scalar leaves of a value of type `t`.
    pub fn leaf_count(&self, t: Type) -> u32 {
        match t {
            Type::Void => 0,
            Type::Handle(_) => 1,
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix(..) => t.len(),
            Type::Array(a) => {
                let (e, n) = self.array(a);
                self.leaf_count(e).saturating_mul(n)
            }
            Type::Struct(s) => self.strukt(s).fields.iter().map(|f| self.leaf_count(f.ty)).fold(0u32, |a, b| a.saturating_add(b)),
        }
    }
    /// The scalar type of every leaf, in leaf order.
    pub fn leaves(&self, t: Type) -> Vec<ScalarType> {
        let mut out = Vec::new();
        self.push_leaves(t, &mut out);
        out
    }
    fn push_leaves(&self, t: Type, out: &mut Vec<ScalarType>) {
        match t {
            Type::Void => {}
            // The buffer's address.
            Type::Handle(_) => out.push(ScalarType::Uint),
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => out.extend(std::iter::repeat_n(s, t.len() as usize)),
            Type::Array(a) => {
                let (e, n) = self.array(a);
                for _ in 0..n {
                    self.push_leaves(e, out);
                }
            }
            Type::Struct(s) => {
                for f in &self.strukt(s).fields {
                    self.push_leaves(f.ty, out);
                }
            }
        }
    }
    /// Per leaf of `t`: the handle type of a buffer leaf, `None` for a scalar.
    pub fn handle_leaves(&self, t: Type) -> Vec<Option<HandleId>> {
        let mut out = Vec::new();
        self.push_handle_leaves(t, &mut out);
        out
    }
    fn push_handle_leaves(&self, t: Type, out: &mut Vec<Option<HandleId>>) {
        match t {
            Type::Handle(h) => out.push(Some(h)),
            Type::Array(a) => {
                let (e, n) = self.array(a);
                for _ in 0..n {
                    self.push_handle_leaves(e, out);
                }
            }
            Type::Struct(s) => {
                for f in &self.strukt(s).fields {
                    self.push_handle_leaves(f.ty, out);
                }
            }
            _ => out.extend(std::iter::repeat_n(None, self.leaf_count(t) as usize)),
        }
    }
    /// The first leaf of field `field` of struct `s`.
    pub fn field_leaf_offset(&self, s: StructId, field: u32) -> u32 {
        self.strukt(s).fields[..field as usize].iter().map(|f| self.leaf_count(f.ty)).sum()
    }
    /// Does the type contain a bool leaf anywhere (or any leaf of scalar `s`)?
    pub fn contains_scalar(&self, t: Type, pred: &dyn Fn(ScalarType) -> bool) -> bool {
        match t {
            Type::Void | Type::Handle(_) => false,
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => pred(s),
            Type::Array(a) => self.contains_scalar(self.array(a).0, pred),
            Type::Struct(s) => self.strukt(s).fields.iter().any(|f| self.contains_scalar(f.ty, pred)),
        }
    }
    /// The type as HLSL writes it.
    pub fn name(&self, t: Type) -> String {
        match t {
            Type::Void => "void".into(),
            Type::Scalar(s) => s.name().into(),
            Type::Vector(s, n) => format!("{}{n}", s.name()),
            Type::Matrix(s, r, c) => format!("{}{r}x{c}", s.name()),
            Type::Array(a) => {
                // Innermost element type first, then every dimension.
                let mut dims = String::new();
                let mut cur = t;
                while let Type::Array(id) = cur {
                    let (e, n) = self.array(id);
                    dims.push_str(&format!("[{n}]"));
                    cur = e;
                }
                let _ = a;
                format!("{}{dims}", self.name(cur))
            }
            Type::Struct(s) => self.strukt(s).name.clone(),
            Type::Handle(h) => {
                let h = self.handle(h);
                match h.kind {
                    ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => h.kind.name().to_string(),
                    k => format!("{}<{}>", k.name(), self.name(h.elem)),
                }
            }
        }
    }
}

/// The analysed shader: the chosen compute entry point and everything it can reach.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub entry: Entry,
    pub functions: Vec<Function>,
    /// In declaration order.
    pub resources: Vec<Resource>,
    pub groupshared: Vec<SharedVar>,
    /// Bytes of workgroup-local memory the groupshared variables take.
    pub local_memory: u32,
    /// Indexed by [`LocalId`].
    pub locals: Vec<LocalInfo>,
    /// `static` globals with their initializers, in declaration order: the
    /// lowering initialises them at the start of the entry point.
    pub statics: Vec<(LocalId, Option<Expr>)>,
    pub types: Types,
    /// `-enable-16bit-types` was given.
    pub native_16bit: bool,
    /// `--robust-access`: buffer accesses are bounds-checked (every used buffer has a `size_slot`).
    pub robust_access: bool,
    /// `-denorm ftz`: fp32 arithmetic flushes denormals (`passes::ftz`).
    pub flush_denormals: bool,
    /// A `precise` qualifier appears in the program: multiply-adds are not
    /// contracted into `fma` anywhere in the kernel (HLSL asks it only of the
    /// values that reach a precise variable; whole-kernel is the safe side).
    pub precise: bool,
    /// `static const` arrays kept in memory rather than registers (see
    /// [`ConstTables`]); empty when none.
    pub const_tables: ConstTables,
}

/// Large `static const` arrays with constant values live in a read-only
/// block of memory the kernel brings with it (DXC's immediate constant
/// buffer): dynamically indexing them is then one load, not a chain of
/// selects over hundreds of registers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConstTables {
    /// Each table's local and its byte offset in `bytes` (tight layout).
    pub tables: Vec<(LocalId, u32)>,
    pub bytes: Vec<u8>,
    /// Argument register holding the block's address.
    pub slot: Option<u32>,
}

impl ConstTables {
    pub fn offset_of(&self, l: LocalId) -> Option<u32> {
        self.tables.iter().find(|(t, _)| *t == l).map(|(_, o)| *o)
    }
}

impl Module {
    /// The buffer type of a handle-typed expression (the `res` of buffer accesses).
    pub fn handle_type(&self, e: &Expr) -> Option<HandleType> {
        match e.ty {
            Type::Handle(h) => Some(self.types.handle(h)),
            _ => None,
        }
    }
    pub fn local(&self, id: LocalId) -> &LocalInfo {
        &self.locals[id.0 as usize]
    }
    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.0 as usize]
    }
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }
    pub fn shared(&self, id: SharedId) -> &SharedVar {
        &self.groupshared[id.0 as usize]
    }
    /// Resources with an ABI slot, in slot order.
    pub fn bound_resources(&self) -> Vec<&Resource> {
        let mut v: Vec<&Resource> = self.resources.iter().filter(|r| r.slot.is_some()).collect();
        v.sort_by_key(|r| r.slot);
        v
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
    /// `const` local or `static const` global: never assigned after its declaration.
    Const,
    /// A function parameter.
    Param,
    /// A `static` (non-const) global: a per-thread variable.
    Static,
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

/// The compute entry point: a function plus its launch shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub func: FuncId,
    pub name: String,
    pub numthreads: [u32; 3],
    /// One per parameter of the entry function, in order: where its value comes from.
    pub inputs: Vec<EntryInput>,
    pub span: Span,
}

/// An entry parameter: the local `local` (of type `ty`, an integer scalar or a
/// vector of up to 3 components) starts as the system value converted to `ty`.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryInput {
    pub local: LocalId,
    pub semantic: SystemValue,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDir {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub local: LocalId,
    pub dir: ParamDir,
    pub ty: Type,
    pub span: Span,
    /// The span of the parameter's type as written.
    pub ty_span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Type,
    pub body: Block,
    pub span: Span,
    /// Written in the compiler's stdlib: inlined code is attributed to the call's line.
    pub stdlib: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub id: ResourceId,
    pub name: String,
    pub kind: ResourceKind,
    pub binding: Binding,
    /// Element type (buffers), or the cbuffer's contents as a struct.
    pub elem: Type,
    /// How a matrix element is laid out (buffers of matrices).
    pub major: MatrixMajor,
    /// `globallycoherent` (accepted: every access goes to device memory here).
    pub coherent: bool,
    /// Argument register of the kernel ABI, when the entry point uses it.
    pub slot: Option<u32>,
    /// Argument register holding the buffer's size (bytes; elements for typed
    /// buffers), when `GetDimensions` or `--robust-access` needs it.
    pub size_slot: Option<u32>,
    /// Argument register holding the address of the buffer's UAV counter, when
    /// `IncrementCounter`/`DecrementCounter`/`Append`/`Consume` use it.
    pub counter_slot: Option<u32>,
    /// An element of a resource array: the array's name and the element's indices.
    pub array: Option<(String, Vec<u32>)>,
    pub span: Span,
}

impl Resource {
    /// Bytes per element (buffers) or total size (cbuffers), from `layout`.
    pub fn is_cbuffer(&self) -> bool {
        self.kind == ResourceKind::ConstantBuffer
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SharedVar {
    pub name: String,
    pub ty: Type,
    /// Byte offset in workgroup-local memory.
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
    ForceCase,
    Call,
}

/// One `if (cond) then_blk` of an `if` / `else if` chain, with its attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct IfArm {
    pub cond: Expr,
    pub then_blk: Block,
    pub attrs: Vec<StmtAttr>,
    /// From the arm's `if` to the end of the chain (the first arm's is the statement's).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// Case labels (already converted to the selector's type); empty with `default` only.
    pub values: Vec<Const>,
    pub is_default: bool,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// A local declaration; `init` already has the local's type. Without an
    /// initialiser the value is undefined (the lowering uses zero).
    Decl {
        local: LocalId,
        init: Option<Expr>,
    },
    /// An expression evaluated for its effects.
    Expr(Expr),
    /// `if (c0) b0 else if (c1) b1 ... else else_blk`: the first arm whose
    /// condition holds runs (conditions are evaluated in order until one does).
    /// A chain is one statement however long (see `ast::StmtKind::If`).
    If {
        arms: Vec<IfArm>,
        else_blk: Option<Block>,
    },
    /// `init` runs once in the loop's own scope; `cond` None means true.
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Vec<Expr>,
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
    /// Cases in source order; control falls through from one to the next until a `break`.
    Switch {
        selector: Expr,
        cases: Vec<SwitchCase>,
        attrs: Vec<StmtAttr>,
    },
    Break,
    Continue,
    /// From the enclosing function; the value has the function's return type.
    Return(Option<Expr>),
    Block(Block),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    Bool(bool),
    Int(i32),
    Uint(u32),
    Float(f32),
    /// A 16-bit value's bits, with its type (`Int16`, `Uint16`, `Half`).
    Bits16(ScalarType, u16),
    /// A 64-bit value's bits, with its type (`Int64`, `Uint64`, `Double`).
    Bits64(ScalarType, u64),
}

impl Const {
    pub fn scalar_type(self) -> ScalarType {
        match self {
            Const::Bool(_) => ScalarType::Bool,
            Const::Int(_) => ScalarType::Int,
            Const::Uint(_) => ScalarType::Uint,
            Const::Float(_) => ScalarType::Float,
            Const::Bits16(s, _) | Const::Bits64(s, _) => s,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Arithmetic negation (integers wrap).
    Neg,
    /// Bitwise not (integers).
    BitNot,
    /// Logical not (bool operand and result, element-wise).
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
    /// Arithmetic for signed, logical for unsigned.
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
    /// Element-wise logical and/or on bools (`and()`, `or()`, vector `&&`
    /// is refused): both sides evaluated.
    And,
    Or,
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

/// Intrinsics the lowering expands (element-wise over vector and matrix
/// operands unless noted). Argument types are already converted: every
/// element-wise intrinsic's arguments have the result's type (`Select`:
/// bool condition of that shape, or a scalar bool). Intrinsics that combine these (`lerp`,
/// `pow`, `normalize`, `atan2`, ...) are HLSL functions in the stdlib
/// (`stdlib/wavec_intrinsics.hlsl`), called like user functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    Abs,
    Min,
    Max,
    Clamp,
    Saturate,
    Mad,
    Floor,
    Ceil,
    Round,
    Trunc,
    Frac,
    Fmod,
    Sqrt,
    Rsqrt,
    Rcp,
    Exp2,
    Log2,
    Sin,
    Cos,
    /// float -> bool of the same shape.
    IsNan,
    IsInf,
    IsFinite,
    /// (vector, vector) -> scalar.
    Dot,
    /// numeric -> bool scalar.
    Any,
    All,
    /// uint -> uint.
    CountBits,
    ReverseBits,
    /// int -> int, uint -> uint (index of the bit, or -1).
    FirstBitHigh,
    FirstBitLow,
    /// Bit reinterpretation to uint/int/float (same shape, 32-bit).
    AsUint,
    AsInt,
    AsFloat,
    /// `asint16`, `asuint16`, `asfloat16`: reinterpret 16-bit values (needs `-enable-16bit-types`).
    AsInt16,
    AsUint16,
    AsFloat16,
    /// float -> uint holding the half's bits; uint -> float.
    F32ToF16,
    F16ToF32,
    /// `fma(a, b, c)` on doubles: a * b + c rounded once.
    Fma,
    /// `asdouble(lo, hi)`: the doubles whose words are `lo` and `hi` (uint shapes).
    AsDouble,
    /// The low / high words of doubles (uint shape); the stdlib's
    /// `asuint(d, out lo, out hi)` is written with them.
    DoubleLo,
    DoubleHi,
    /// `mul(a, b)` with HLSL's shapes (vector x matrix, matrix x vector,
    /// matrix x matrix, vector . vector); not element-wise.
    Mul,
    Transpose,
    /// `select(c, a, b)` (and `?:` under HLSL 2018) element-wise; all three
    /// evaluated. `c` is a bool of the result's shape, or one scalar bool that
    /// chooses every leaf (also of a struct or array result).
    Select,
    WaveGetLaneCount,
    WaveGetLaneIndex,
    WaveIsFirstLane,
    WaveActiveSum,
    WaveActiveProduct,
    WaveActiveMin,
    WaveActiveMax,
    WaveActiveBitAnd,
    WaveActiveBitOr,
    WaveActiveBitXor,
    /// bool -> uint
    WaveActiveCountBits,
    WaveActiveAllTrue,
    WaveActiveAnyTrue,
    /// x -> bool of x's shape.
    WaveActiveAllEqual,
    /// bool -> uint4
    WaveActiveBallot,
    WaveReadLaneAt,
    WaveReadLaneFirst,
    WavePrefixSum,
    WavePrefixProduct,
    /// bool -> uint
    WavePrefixCountBits,
    /// Quad reads: the value of lane `id ^ 1` (X), `id ^ 2` (Y), `id ^ 3` (diagonal)
    /// or `(id & ~3) | n` (`QuadReadLaneAt(x, n)`); a quad is four consecutive lanes.
    QuadReadAcrossX,
    QuadReadAcrossY,
    QuadReadAcrossDiagonal,
    QuadReadLaneAt,
    /// Barriers: no arguments, no value.
    GroupMemoryBarrier,
    GroupMemoryBarrierWithGroupSync,
    DeviceMemoryBarrier,
    DeviceMemoryBarrierWithGroupSync,
    AllMemoryBarrier,
    AllMemoryBarrierWithGroupSync,
}

impl Intrinsic {
    /// Does the result depend on which lanes of the wave execute the call?
    pub fn depends_on_active_lanes(self) -> bool {
        use Intrinsic::*;
        matches!(
            self,
            WaveIsFirstLane
                | WaveActiveSum
                | WaveActiveProduct
                | WaveActiveMin
                | WaveActiveMax
                | WaveActiveBitAnd
                | WaveActiveBitOr
                | WaveActiveBitXor
                | WaveActiveCountBits
                | WaveActiveAllTrue
                | WaveActiveAnyTrue
                | WaveActiveAllEqual
                | WaveActiveBallot
                | WaveReadLaneAt
                | WaveReadLaneFirst
                | WavePrefixSum
                | WavePrefixProduct
                | WavePrefixCountBits
                | QuadReadAcrossX
                | QuadReadAcrossY
                | QuadReadAcrossDiagonal
                | QuadReadLaneAt
        )
    }
}

/// The read-modify-write of an `Interlocked*` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    /// Signedness from the destination type.
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    /// `InterlockedCompareExchange(dest, compare, value, original)`
    CompareExchange,
    /// `InterlockedCompareStore(dest, compare, value)`
    CompareStore,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

/// How a call passes one argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// An `in` argument, converted to the parameter type.
    In(Expr),
    /// An `out`/`inout` argument: a place of its own type; the value is
    /// converted to the parameter type on the way in (inout) and back out.
    Out { place: Expr, inout: bool },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Const),
    Local(LocalId),
    /// A groupshared variable (a place in local memory).
    Shared(SharedId),
    /// Member `field` of cbuffer/`ConstantBuffer` `res` (whose `elem` is a struct).
    CbufferField {
        res: ResourceId,
        field: u32,
    },
    /// A global buffer as a value (of its [`Type::Handle`] type).
    Resource(ResourceId),
    /// The resources of a resource array or of a global struct holding
    /// resources, as a value of the expression's type (arrays and structs whose
    /// leaves are handles): one resource per leaf, in leaf order.
    Resources(Vec<ResourceId>),
    /// Member `field` of the `ConstantBuffer<T>` that the handle expression `cb`
    /// holds (a global one is [`ExprKind::CbufferField`]).
    ConstantMember {
        cb: Box<Expr>,
        field: u32,
    },
    /// Element `index` (uint) of a structured or typed buffer; `res` is a
    /// handle-typed expression (often [`ExprKind::Resource`]).
    BufferElement {
        res: Box<Expr>,
        index: Box<Expr>,
    },
    /// The value of type `ty` at byte `offset` (uint) of a byte-address buffer
    /// (`Load*`/`Load<T>` read it, `Store*` and `Interlocked*` methods write it).
    RawElement {
        res: Box<Expr>,
        offset: Box<Expr>,
    },
    /// Field `field` of a struct value.
    Member {
        base: Box<Expr>,
        field: u32,
    },
    /// Element of an array, component of a vector, or row of a matrix; `index` is a uint.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// Components of a vector (or of a scalar, `.xxx`).
    Swizzle {
        base: Box<Expr>,
        comps: Vec<u8>,
    },
    /// Elements (row, column) of a matrix: `_m01_m10`, `_11`.
    MatrixElems {
        base: Box<Expr>,
        elems: Vec<(u8, u8)>,
    },
    /// Vector/matrix constructor or initializer list: the leaves of the args
    /// concatenate, and each converts to the matching leaf type of `ty` (their
    /// total equals `ty`'s leaf count).
    Construct {
        args: Vec<Expr>,
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
    /// `cond ? then : else` with a scalar bool `cond`: only the chosen side is evaluated.
    Select {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    /// Leaf-by-leaf conversion to `ty` (same leaf count). float->int truncates
    /// toward zero; x->bool is `x != 0`; bool->x is 0 or 1.
    Cast {
        operand: Box<Expr>,
    },
    /// A scalar replicated to every leaf of `ty` (same scalar type).
    Splat {
        operand: Box<Expr>,
    },
    /// The given leaves of the operand, in order (truncations).
    Leaves {
        operand: Box<Expr>,
        pick: Vec<u32>,
    },
    /// `place = value`; the result is the new value (`result_old`: the old one,
    /// for postfix `++`/`--`).
    Assign {
        place: Box<Expr>,
        value: Box<Expr>,
        result_old: bool,
    },
    /// The old value of the enclosing `Assign`'s place.
    PlaceValue,
    /// `a, b`: both evaluated, the value is `b`.
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Call {
        func: FuncId,
        args: Vec<Arg>,
    },
    Intrinsic {
        op: Intrinsic,
        args: Vec<Expr>,
    },
    /// `Interlocked*(dest, ...)`: `dest` is a place in groupshared or buffer
    /// memory (uint/int); `args` the value(s); `original` an optional out place.
    Atomic {
        op: AtomicOp,
        dest: Box<Expr>,
        args: Vec<Expr>,
        original: Option<Box<Expr>>,
    },
    /// `res.GetDimensions(out ...)` on the buffer the handle expression `res`
    /// holds: `outs` are uint places: element count [and stride] for structured
    /// and typed buffers, byte size for byte-address buffers.
    GetDimensions {
        res: Box<Expr>,
        outs: Vec<Expr>,
    },
    /// `res.IncrementCounter()` (the counter's old value) or `res.DecrementCounter()`
    /// (its new value): an atomic step of the UAV counter of the structured buffer
    /// the handle expression `res` holds.
    Counter {
        res: Box<Expr>,
        increment: bool,
    },
}
