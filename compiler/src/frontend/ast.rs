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
    /// A global declaration: resources (`RWStructuredBuffer<float> b : register(u0);`)
    /// and plain global variables (not supported yet).
    GlobalVar(VarDecl),
    /// A struct declaration (not supported yet).
    Struct {
        name: Ident,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub args: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub attrs: Vec<Attribute>,
    pub ret: TypeExpr,
    pub name: Ident,
    pub params: Vec<Param>,
    pub semantic: Option<Ident>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifier {
    Const,
    Static,
    Groupshared,
    Uniform,
    In,
    Out,
    Inout,
    Precise,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ty: TypeExpr,
    pub name: Ident,
    pub semantic: Option<Ident>,
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
    /// A builtin scalar, vector or matrix name such as `float3` or `dword`.
    Builtin(String),
    /// `vector<T, N>` with N as written.
    VectorT {
        elem: Box<TypeExpr>,
        size: String,
    },
    /// A resource type, possibly templated: `RWStructuredBuffer<uint>`.
    Resource {
        name: String,
        arg: Option<Box<TypeExpr>>,
    },
    /// Any other name used as a type (structs, typos).
    Named(String),
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
    pub name: Ident,
    pub register: Option<Register>,
    pub members: Vec<VarDecl>,
    pub span: Span,
}

/// `const int a = 1, b;`
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ty: TypeExpr,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    /// `[N]` array suffix (not supported yet), kept to report it.
    pub array: Option<Span>,
    pub semantic: Option<Ident>,
    pub register: Option<Register>,
    pub init: Option<Expr>,
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
    /// Statement nesting depth of this node (1 for a leaf).
    pub depth: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    Decl(VarDecl),
    Exprs(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Decl(VarDecl),
    Expr(Expr),
    If {
        attrs: Vec<Attribute>,
        cond: Expr,
        then_stmt: Box<Stmt>,
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
    Block(Block),
    Break,
    Continue,
    Return(Option<Expr>),
    Empty,
    /// Nesting deeper than [`MAX_DEPTH`]: the subtree was dropped.
    TooDeep,
}

impl Stmt {
    /// Builds a statement, replacing it by `TooDeep` past the nesting cap.
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        let child = |s: &Stmt| s.depth;
        let block = |b: &Block| b.stmts.iter().map(|s| s.depth).max().unwrap_or(0);
        let inner = match &kind {
            StmtKind::If { then_stmt, else_stmt, .. } => child(then_stmt).max(else_stmt.as_deref().map_or(0, child)),
            StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => child(body),
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
    IntLit(String),
    FloatLit(String),
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
    /// `(T)x`
    Cast {
        ty: TypeExpr,
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
        args: Vec<Expr>,
    },
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
            ExprKind::Binary { lhs, rhs, .. } => d(lhs).max(d(rhs)),
            ExprKind::Assign { place, value, .. } => d(place).max(d(value)),
            ExprKind::Ternary { cond, then_expr, else_expr } => d(cond).max(d(then_expr)).max(d(else_expr)),
            ExprKind::Construct { args, .. } => list(args),
            ExprKind::Index { base, index } => d(base).max(d(index)),
            ExprKind::Member { base, .. } => d(base),
            ExprKind::Call { callee, args } => d(callee).max(list(args)),
            ExprKind::TooDeep => MAX_DEPTH,
            _ => 0,
        };
        if inner >= MAX_DEPTH {
            return Expr { kind: ExprKind::TooDeep, span, depth: MAX_DEPTH };
        }
        Expr { kind, span, depth: inner + 1 }
    }
}
