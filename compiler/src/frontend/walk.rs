//! Walking the typed AST: the direct subexpressions of an expression and a
//! pre-order visit of every expression in statements, for analyses that only
//! look for some kinds of node (the resources a body refers to, ...).

use super::tast::{Arg, Block, Expr, ExprKind, Stmt, StmtKind};

impl Expr {
    /// The direct subexpressions, in evaluation order (places of `out`
    /// arguments and of assignments included).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Literal(_)
            | ExprKind::Local(_)
            | ExprKind::Shared(_)
            | ExprKind::CbufferField { .. }
            | ExprKind::Resource(_)
            | ExprKind::Resources(_)
            | ExprKind::PlaceValue => Vec::new(),
            ExprKind::ConstantMember { cb: x, .. }
            | ExprKind::Member { base: x, .. }
            | ExprKind::Swizzle { base: x, .. }
            | ExprKind::MatrixElems { base: x, .. }
            | ExprKind::Unary { operand: x, .. }
            | ExprKind::Cast { operand: x }
            | ExprKind::Splat { operand: x }
            | ExprKind::Leaves { operand: x, .. }
            | ExprKind::Counter { res: x, .. } => vec![x],
            ExprKind::BufferElement { res: a, index: b }
            | ExprKind::RawElement { res: a, offset: b }
            | ExprKind::Index { base: a, index: b }
            | ExprKind::Binary { lhs: a, rhs: b, .. }
            | ExprKind::Logical { lhs: a, rhs: b, .. }
            | ExprKind::Comma { lhs: a, rhs: b } => vec![a, b],
            ExprKind::Assign { place, value, .. } => vec![value, place],
            ExprKind::Select { cond, then_expr, else_expr } => vec![cond, then_expr, else_expr],
            ExprKind::Construct { args } | ExprKind::Intrinsic { args, .. } => args.iter().collect(),
            ExprKind::Call { args, .. } => args
                .iter()
                .map(|a| match a {
                    Arg::In(x) => x,
                    Arg::Out { place, .. } => place,
                })
                .collect(),
            ExprKind::Atomic { dest, args, original, .. } => {
                let mut v: Vec<&Expr> = vec![dest];
                v.extend(args.iter());
                v.extend(original.as_deref());
                v
            }
            ExprKind::GetDimensions { res, outs } => {
                let mut v: Vec<&Expr> = vec![res];
                v.extend(outs.iter());
                v
            }
        }
    }

    /// Calls `f` on this expression and every subexpression, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }
}

impl Stmt {
    /// Calls `f` on every expression of the statement (nested statements included).
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        match &self.kind {
            StmtKind::Decl { init, .. } => init.iter().for_each(|e| e.walk(f)),
            StmtKind::Expr(e) => e.walk(f),
            StmtKind::If { arms, else_blk } => {
                for a in arms {
                    a.cond.walk(f);
                    a.then_blk.walk_exprs(f);
                }
                if let Some(b) = else_blk {
                    b.walk_exprs(f);
                }
            }
            StmtKind::For { init, cond, step, body, .. } => {
                init.iter().for_each(|s| s.walk_exprs(f));
                cond.iter().for_each(|e| e.walk(f));
                step.iter().for_each(|e| e.walk(f));
                body.walk_exprs(f);
            }
            StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
                cond.walk(f);
                body.walk_exprs(f);
            }
            StmtKind::Switch { selector, cases, .. } => {
                selector.walk(f);
                cases.iter().flat_map(|c| c.body.iter()).for_each(|s| s.walk_exprs(f));
            }
            StmtKind::Return(e) => e.iter().for_each(|e| e.walk(f)),
            StmtKind::Block(b) => b.walk_exprs(f),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

impl Block {
    /// Calls `f` on every expression of the block.
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        self.stmts.iter().for_each(|s| s.walk_exprs(f));
    }
}
