//! Untyped syntax tree produced by the parser. Every node carries its span.
//!
//! Nesting is capped: [`Expr::new`] and [`Stmt::new`] track the depth of each
//! node and replace a node deeper than [`MAX_DEPTH`] by a `TooDeep` marker
//! (reported by semantic analysis as E0105). The parser is table driven and
//! does not recurse, so with this cap no later recursive walk (drop included)
//! can overflow the stack.

use crate::diag::Span;

/// Deepest expression or statement nesting accepted.
pub const MAX_DEPTH: u32 = 96;

#[derive(Clone, Debug, PartialEq)]
pub struct TranslationUnit {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(Function),
    Cbuffer(Cbuffer),
    /// A global declaration: resources, groupshared variables, static
    /// variables and constants, and loose uniforms (which form `$Globals`).
    GlobalVar(VarDecl),
    Struct(StructDecl),
    Typedef(Typedef),
    Enum(EnumDecl),
    /// `struct S;`: S is a struct defined later.
    StructForward(Ident),
    /// A member function defined outside its struct: `R S::f(...) { ... }`.
    MemberDef {
        owner: Ident,
        func: Function,
    },
    /// `#pragma pack_matrix(...)`: the default matrix layout of the declarations after it.
    PackMatrix {
        row_major: bool,
        span: Span,
    },
    /// A construct the parser recognises only to refuse it by name
    /// (`template`, `namespace`, ...).
    Unsupported {
        what: String,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// `numthreads`, `unroll`, or `vk::binding` for `[[vk::binding(...)]]`.
    pub name: Ident,
    pub args: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub attrs: Vec<Attribute>,
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ret: TypeExpr,
    pub name: Ident,
    pub params: Vec<Param>,
    pub semantic: Option<Ident>,
    /// `None` for a prototype (`float f(float x);`).
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifier {
    Const,
    Static,
    Groupshared,
    Uniform,
    Extern,
    In,
    Out,
    Inout,
    Precise,
    RowMajor,
    ColumnMajor,
    GloballyCoherent,
    Inline,
    Volatile,
    /// Interpolation and typed-buffer format modifiers, recorded by name
    /// (`nointerpolation`, `snorm`, `unorm`, ...).
    Other(&'static str),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub attrs: Vec<Attribute>,
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ty: TypeExpr,
    pub name: Ident,
    /// Array dimensions as written (`float a[4]`).
    pub dims: Vec<ArrayDim>,
    pub semantic: Option<Ident>,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    Void,
    /// A builtin scalar, vector or matrix name such as `float3` or `dword`, or
    /// a user type name (struct or typedef) the lexer knows from its pre-scan.
    Name(String),
    /// `unsigned int`, `unsigned` alone.
    Unsigned(Option<String>),
    /// `vector<T, N>`, or `vector` alone (float4).
    VectorT {
        elem: Option<Box<TypeExpr>>,
        size: Option<Box<Expr>>,
    },
    /// `matrix<T, R, C>`, or `matrix` alone (float4x4).
    MatrixT {
        elem: Option<Box<TypeExpr>>,
        rows: Option<Box<Expr>>,
        cols: Option<Box<Expr>>,
    },
    /// A resource type, possibly templated: `RWStructuredBuffer<uint>`.
    Resource {
        name: String,
        arg: Option<Box<TypeExpr>>,
    },
    /// `struct { ... }` written inline in a declaration.
    InlineStruct(Box<StructDecl>),
    /// A modifier applied to a type: `row_major float4x4`, `unorm float4`.
    Modified {
        modifier: (Qualifier, Span),
        inner: Box<TypeExpr>,
    },
}

/// `register(u0, space1)` as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Register {
    pub slot: Ident,
    pub space: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cbuffer {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub register: Option<Register>,
    pub members: Vec<VarDecl>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructDecl {
    /// `None` for an anonymous struct.
    pub name: Option<Ident>,
    /// `struct D : B`: the base struct, whose fields come first.
    pub base: Option<Ident>,
    pub fields: Vec<VarDecl>,
    /// Member functions.
    pub methods: Vec<Function>,
    pub span: Span,
}

/// `enum [class] Name [: type] { A, B = 4, ... };`
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    pub name: Ident,
    /// `enum class` / `enum struct`: the enumerators are named `Name::A` only.
    pub scoped: bool,
    /// The underlying type (`int` when absent).
    pub base: Option<TypeExpr>,
    pub enumerators: Vec<(Ident, Option<Expr>)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Typedef {
    pub ty: TypeExpr,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// `const int a = 1, b;`
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub attrs: Vec<Attribute>,
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ty: TypeExpr,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// One `[N]` of an array declarator; `size` None for `[]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDim {
    pub size: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    pub dims: Vec<ArrayDim>,
    pub semantic: Option<Ident>,
    /// `register(...)` annotations in order; a struct holding resources of
    /// several classes takes one per class (`: register(u5) : register(t3)`).
    pub registers: Vec<Register>,
    /// `packoffset(c0.x)` (cbuffer members).
    pub packoffset: Option<PackOffset>,
    pub init: Option<Init>,
    /// An effect-style state block, `SamplerState s { Filter = ...; };` (samplers only).
    pub state_block: Option<Span>,
    pub span: Span,
}

/// An initializer: an expression or a brace list (possibly nested).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Expr(Expr),
    List(Vec<Init>, Span),
}

impl Init {
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) => *s,
        }
    }
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
    /// Statement nesting depth of this node (1 for a leaf).
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    Decl(VarDecl),
    Exprs(Vec<Expr>),
}

/// An `else [attrs] if (cond) then_stmt` arm of an `if` chain; `span` is the
/// arm's `if` through the end of the chain, as the nested statement had.
#[derive(Clone, Debug, PartialEq)]
pub struct ElseIf {
    pub attrs: Vec<Attribute>,
    pub cond: Expr,
    pub then_stmt: Box<Stmt>,
    pub span: Span,
}

/// One element of a `switch` body as written.
#[derive(Clone, Debug, PartialEq)]
pub enum SwitchItem {
    Case(Expr, Span),
    Default(Span),
    Stmt(Stmt),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Decl(VarDecl),
    Expr(Expr),
    /// `if (cond) then_stmt`, then its `else if` arms, then `else else_stmt`.
    /// An `else if` chain is one node, however long: it adds no nesting depth
    /// (DXC accepts chains of thousands of arms), and nothing walks it recursively.
    If {
        attrs: Vec<Attribute>,
        cond: Expr,
        then_stmt: Box<Stmt>,
        /// The `else if` arms in reverse source order (the parser builds the
        /// chain from its end: each `if ... else` in front of an `if` adds one).
        else_ifs_rev: Vec<ElseIf>,
        else_stmt: Option<Box<Stmt>>,
    },
    For {
        attrs: Vec<Attribute>,
        init: Option<ForInit>,
        cond: Option<Expr>,
        step: Vec<Expr>,
        body: Box<Stmt>,
    },
    While {
        attrs: Vec<Attribute>,
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        attrs: Vec<Attribute>,
        body: Box<Stmt>,
        cond: Expr,
    },
    Switch {
        attrs: Vec<Attribute>,
        selector: Expr,
        items: Vec<SwitchItem>,
    },
    Block(Block),
    Break,
    Continue,
    Return(Option<Expr>),
    /// `discard` (pixel shaders only), recognised to be refused.
    Discard,
    Empty,
    /// A local `struct`/`typedef` declaration, recognised to be refused.
    LocalTypeDecl(String),
    /// Nesting deeper than [`MAX_DEPTH`]: the subtree was dropped.
    TooDeep,
}

impl Stmt {
    /// `if (cond) then_stmt [else else_stmt]`. When `else_stmt` is itself an
    /// `if` (an `else if`), its arms join this one's chain, which stays one
    /// node at the depth of its deepest arm.
    pub fn if_else(attrs: Vec<Attribute>, cond: Expr, then_stmt: Stmt, else_stmt: Option<Stmt>, span: Span) -> Stmt {
        let Some(Stmt { kind: StmtKind::If { attrs: a2, cond: c2, then_stmt: t2, mut else_ifs_rev, else_stmt: e2 }, span: s2, depth }) =
            else_stmt
        else {
            let kind =
                StmtKind::If { attrs, cond, then_stmt: Box::new(then_stmt), else_ifs_rev: Vec::new(), else_stmt: else_stmt.map(Box::new) };
            return Stmt::new(kind, span);
        };
        let outer = then_stmt.depth + 1;
        else_ifs_rev.push(ElseIf { attrs: a2, cond: c2, then_stmt: t2, span: s2 });
        let kind = StmtKind::If { attrs, cond, then_stmt: Box::new(then_stmt), else_ifs_rev, else_stmt: e2 };
        if outer > MAX_DEPTH {
            return Stmt { kind: StmtKind::TooDeep, span, depth: MAX_DEPTH };
        }
        Stmt { kind, span, depth: depth.max(outer) }
    }

    /// Builds a statement, replacing it by `TooDeep` past the nesting cap.
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        let child = |s: &Stmt| s.depth;
        let block = |b: &Block| b.stmts.iter().map(|s| s.depth).max().unwrap_or(0);
        let inner = match &kind {
            StmtKind::If { then_stmt, else_ifs_rev, else_stmt, .. } => child(then_stmt)
                .max(else_ifs_rev.iter().map(|a| child(&a.then_stmt)).max().unwrap_or(0))
                .max(else_stmt.as_deref().map_or(0, child)),
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => child(body),
            StmtKind::Switch { items, .. } => items
                .iter()
                .map(|i| match i {
                    SwitchItem::Stmt(s) => s.depth,
                    _ => 0,
                })
                .max()
                .unwrap_or(0),
            StmtKind::Block(b) => block(b),
            StmtKind::TooDeep => MAX_DEPTH,
            _ => 0,
        };
        if inner >= MAX_DEPTH {
            return Stmt { kind: StmtKind::TooDeep, span, depth: MAX_DEPTH };
        }
        Stmt { kind, span, depth: inner + 1 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
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
    LogAnd,
    LogOr,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Expression nesting depth of this node (1 for a leaf).
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    /// `a::b` (enum-like or namespace access), recognised to be refused.
    Scoped(String, String),
    IntLit(String),
    FloatLit(String),
    /// A string literal, quotes included (attributes only).
    StrLit(String),
    BoolLit(bool),
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `place = value` (op None) or `place op= value`.
    Assign {
        op: Option<BinOp>,
        place: Box<Expr>,
        value: Box<Expr>,
    },
    IncDec {
        prefix: bool,
        inc: bool,
        operand: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    /// `a, b`
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `(T)x`
    Cast {
        ty: TypeExpr,
        /// `(float[4])x`: array dimensions of the target type.
        dims: Vec<ArrayDim>,
        operand: Box<Expr>,
    },
    /// `T(a, b, ...)`
    Construct {
        ty: TypeExpr,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Member {
        base: Box<Expr>,
        field: Ident,
    },
    Call {
        callee: Box<Expr>,
        /// Template arguments: `buf.Load<float4>(addr)`.
        targs: Vec<TypeExpr>,
        args: Vec<Expr>,
    },
    /// `sizeof(T)`, `sizeof(T[N])`
    SizeofType(TypeExpr, Vec<ArrayDim>),
    /// `sizeof(expr)` / `sizeof expr`
    SizeofExpr(Box<Expr>),
    /// Nesting deeper than [`MAX_DEPTH`]: the subtree was dropped.
    TooDeep,
}

impl Expr {
    /// Builds an expression, replacing it by `TooDeep` past the nesting cap.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let d = |e: &Expr| e.depth;
        let list = |v: &[Expr]| v.iter().map(|e| e.depth).max().unwrap_or(0);
        let inner = match &kind {
            ExprKind::Unary { operand, .. } | ExprKind::IncDec { operand, .. } | ExprKind::Cast { operand, .. } => d(operand),
            ExprKind::SizeofExpr(e) => d(e),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Comma { lhs, rhs } => d(lhs).max(d(rhs)),
            ExprKind::Assign { place, value, .. } => d(place).max(d(value)),
            ExprKind::Ternary { cond, then_expr, else_expr } => d(cond).max(d(then_expr)).max(d(else_expr)),
            ExprKind::Construct { args, .. } => list(args),
            ExprKind::Index { base, index } => d(base).max(d(index)),
            ExprKind::Member { base, .. } => d(base),
            ExprKind::Call { callee, args, .. } => d(callee).max(list(args)),
            ExprKind::TooDeep => MAX_DEPTH,
            _ => 0,
        };
        if inner >= MAX_DEPTH {
            return Expr { kind: ExprKind::TooDeep, span, depth: MAX_DEPTH };
        }
        Expr { kind, span, depth: inner + 1 }
    }
}

/// One `: ...` annotation of a declarator (parser helper).
#[derive(Clone, Debug, PartialEq)]
pub enum DeclAnnot {
    Semantic(Ident),
    Register(Register),
    PackOffset(PackOffset),
}

/// `: packoffset(c4.y)`: as written (`keyword` should be `packoffset`).
#[derive(Clone, Debug, PartialEq)]
pub struct PackOffset {
    pub keyword: Ident,
    /// `c4`
    pub register: Ident,
    /// `y`
    pub component: Option<Ident>,
    pub span: Span,
}

/// Wraps `t` in the given modifiers (innermost last), as the parser meets them.
pub fn modified(qualifiers: Vec<(Qualifier, Span)>, t: TypeExpr) -> TypeExpr {
    qualifiers.into_iter().rev().fold(t, |inner, (q, span)| {
        let span2 = span.to(inner.span);
        TypeExpr { kind: TypeKind::Modified { modifier: (q, span), inner: Box::new(inner) }, span: span2 }
    })
}
