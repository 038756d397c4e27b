//! Places: where a value lives, so that it can be read and written leaf by leaf.
//!
//! * A *register view* looks at leaves of a local (SSA variables) or of a
//!   temporary value. A dynamic index makes several candidates, each with
//!   the condition under which it is the one meant (`i == k`): reads select
//!   among them, writes update each candidate's leaves under its condition.
//! * A *private view* looks at leaves of a local in local memory (-O0, see
//!   `private.rs`): the leaves' words plus, after dynamic indices, a word
//!   offset computed at run time with the condition that every index is in
//!   range (reads fall back to the register view's last candidate, writes
//!   happen only when it holds).
//! * A *memory view* looks at buffer, cbuffer or groupshared memory: a typed
//!   view keeps a base address plus a static offset and computes leaf
//!   addresses from the layout when read or written; dynamic indices become
//!   address arithmetic. A view of selected vector components (swizzles,
//!   matrix rows) holds one address per leaf.

use super::{ir_type, Lowerer};
use crate::diag::Span;
use crate::frontend::layout::{Layouter, Rules};
use crate::frontend::tast::{self, Expr, ExprKind, LocalId, MatrixMajor, ScalarType, Type as TType};

use crate::ir::*;

/// Most candidates a dynamically indexed register view may have.
const MAX_CANDIDATES: usize = 4096;

/// Which leaves of the source a view (candidate) covers.
#[derive(Clone, Debug)]
enum LeafMap {
    /// `len` consecutive leaves from `start` (len = the view type's leaf count).
    Contig(u32),
    Explicit(Vec<u32>),
}

impl LeafMap {
    fn get(&self, j: u32) -> u32 {
        match self {
            LeafMap::Contig(s) => s + j,
            LeafMap::Explicit(v) => v[j as usize],
        }
    }
    /// The sub-map of `len` leaves from view leaf `from`.
    fn slice(&self, from: u32, len: u32) -> LeafMap {
        match self {
            LeafMap::Contig(s) => LeafMap::Contig(s + from),
            LeafMap::Explicit(v) => LeafMap::Explicit(v[from as usize..(from + len) as usize].to_vec()),
        }
    }
    fn pick(&self, idx: &[u32]) -> LeafMap {
        LeafMap::Explicit(idx.iter().map(|&j| self.get(j)).collect())
    }
}

#[derive(Clone, Debug)]
enum RegSrc {
    Local(LocalId),
    Temp(Vec<Value>),
}

#[derive(Clone, Debug)]
pub(super) struct RegView {
    src: RegSrc,
    ty: TType,
    /// (condition, leaves): the candidate whose condition holds is meant (the
    /// conditions exclude each other; a read falls back to the last candidate);
    /// `None` is unconditional (then it is the only candidate).
    cands: Vec<(Option<Value>, LeafMap)>,
}

#[derive(Clone, Debug)]
enum MemAddr {
    /// Leaf addresses are `base + offset + layout offset of the leaf`.
    Typed { base: Value, offset: u32 },
    /// One address per leaf.
    Leaves(Vec<Value>),
}

#[derive(Clone, Debug)]
pub(super) struct MemView {
    space: MemSpace,
    rules: Rules,
    major: MatrixMajor,
    ty: TType,
    addr: MemAddr,
    /// `--robust-access`: true when the buffer element (or byte range) is in bounds;
    /// reads out of bounds give 0, writes and atomics are dropped.
    guard: Option<Value>,
}

/// The run-time part of a private view's position, after dynamic indices.
#[derive(Clone, Copy, Debug)]
struct DynWords {
    /// Words to add to the leaves' own (sum over the indices of index * element words).
    words: Value,
    /// Every dynamic index is in range.
    ok: Value,
    /// Words to add when one is not: the last element of every dynamic level.
    last: u32,
}

#[derive(Clone, Debug)]
pub(super) struct PrivView {
    local: LocalId,
    ty: TType,
    /// The view's leaves as leaves of the local (with dynamic indices at 0).
    map: LeafMap,
    dynamic: Option<DynWords>,
}

#[derive(Clone, Debug)]
pub(super) enum Place {
    Reg(RegView),
    Private(PrivView),
    Mem(MemView),
}

/// An index, when the lowering knows it.
enum Idx {
    Const(u32),
    Dyn(Value),
}

/// A kernel argument every buffer has its own of (see [`Lowerer::buffer_arg`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BufferArg {
    /// The buffer's size (bytes; elements of a typed buffer).
    Size,
    /// The address of its UAV counter.
    Counter,
}

/// Leaves per element, element count: what indexing `ty` steps through.
fn index_shape(types: &tast::Types, ty: TType) -> Option<(TType, u32, u32)> {
    Some(match ty {
        TType::Array(a) => {
            let (e, n) = types.array(a);
            (e, types.leaf_count(e), n)
        }
        TType::Vector(s, n) => (TType::Scalar(s), 1, n as u32),
        TType::Matrix(s, r, c) => (TType::vector(s, c as u32), c as u32, r as u32),
        _ => return None,
    })
}

impl Lowerer<'_> {
    fn mem_space(kind: crate::interface::ResourceKind) -> MemSpace {
        if kind.is_writable() {
            MemSpace::Device
        } else {
            MemSpace::DeviceReadOnly
        }
    }

    /// A constant index, if `e` folds to one.
    fn const_index(e: &Expr) -> Option<u32> {
        match e.kind {
            ExprKind::Literal(tast::Const::Uint(u)) => Some(u),
            ExprKind::Literal(tast::Const::Int(i)) => Some(i as u32),
            _ => None,
        }
    }

    /// `base + k` for a constant `k`.
    pub(super) fn add_const(&mut self, base: Value, k: u32, span: Span) -> Value {
        if k == 0 {
            return base;
        }
        let c = self.iconst(k, span);
        self.binary(BinaryOp::IAdd, base, c, span)
    }

    /// `i * k` for a constant `k` (a shift for powers of two).
    pub(super) fn mul_const(&mut self, i: Value, k: u32, span: Span) -> Value {
        if k == 1 {
            return i;
        }
        if k.is_power_of_two() {
            let sh = self.iconst(k.trailing_zeros(), span);
            return self.binary(BinaryOp::Shl, i, sh, span);
        }
        let c = self.iconst(k, span);
        self.binary(BinaryOp::IMul, i, c, span)
    }

    /// Evaluates the place an expression denotes (its index expressions included).
    pub(super) fn place(&mut self, e: &Expr) -> Place {
        let span = e.span;
        let types = &self.m.types;
        match &e.kind {
            ExprKind::Local(id) => match self.m.const_tables.offset_of(*id) {
                // A constant table in the kernel's constant block.
                Some(offset) => {
                    let base = self.constants_addr(span);
                    Place::Mem(MemView {
                        space: MemSpace::DeviceReadOnly,
                        rules: Rules::Tight,
                        major: MatrixMajor::Column,
                        ty: e.ty,
                        addr: MemAddr::Typed { base, offset },
                        guard: None,
                    })
                }
                None if self.layout.locals.contains_key(id) => {
                    Place::Private(PrivView { local: *id, ty: e.ty, map: LeafMap::Contig(0), dynamic: None })
                }
                None => Place::Reg(RegView { src: RegSrc::Local(*id), ty: e.ty, cands: vec![(None, LeafMap::Contig(0))] }),
            },
            ExprKind::Shared(id) => {
                let base = self.iconst(0, span);
                let offset = self.m.shared(*id).offset;
                Place::Mem(MemView {
                    space: MemSpace::Local,
                    rules: Rules::Tight,
                    major: MatrixMajor::Column,
                    ty: e.ty,
                    addr: MemAddr::Typed { base, offset },
                    guard: None,
                })
            }
            ExprKind::CbufferField { res, field } => {
                let r = self.m.resource(*res);
                let TType::Struct(s) = r.elem else {
                    self.internal("a cbuffer without a struct layout", span);
                    return self.temp(e);
                };
                let l = Layouter::new(types, Rules::Cbuffer);
                let offset = l.field_offsets(s.0, r.major)[*field as usize];
                let major = types.strukt(s).fields[*field as usize].major.unwrap_or(r.major);
                let base = self.resource_addr(*res, span);
                Place::Mem(MemView {
                    space: MemSpace::DeviceReadOnly,
                    rules: Rules::Cbuffer,
                    major,
                    ty: e.ty,
                    addr: MemAddr::Typed { base, offset },
                    guard: None,
                })
            }
            ExprKind::ConstantMember { cb, field } => {
                let Some(h) = self.m.handle_type(cb) else {
                    self.internal("a constant-buffer member of a non-buffer", span);
                    return self.temp(e);
                };
                let TType::Struct(s) = h.elem else {
                    self.internal("a ConstantBuffer without a struct layout", span);
                    return self.temp(e);
                };
                let l = Layouter::new(types, Rules::Cbuffer);
                let offset = l.field_offsets(s.0, h.major)[*field as usize];
                let major = types.strukt(s).fields[*field as usize].major.unwrap_or(h.major);
                let base = self.scalar(cb);
                Place::Mem(MemView {
                    space: MemSpace::DeviceReadOnly,
                    rules: Rules::Cbuffer,
                    major,
                    ty: e.ty,
                    addr: MemAddr::Typed { base, offset },
                    guard: None,
                })
            }
            ExprKind::BufferElement { res, index } => {
                let Some(h) = self.m.handle_type(res) else {
                    self.internal("a buffer element of a non-buffer", span);
                    return self.temp(e);
                };
                let (space, major, elem) = (Self::mem_space(h.kind), h.major, h.elem);
                let stride = Layouter::new(types, Rules::Tight).array_stride(elem, major);
                let typed = h.kind.is_typed();
                let base = self.scalar(res);
                let (addr, offset, guard) = match Self::const_index(index) {
                    Some(k) => {
                        let guard = self.robust_guard(base, Some(k), None, stride, stride, typed, res.span);
                        (base, k.wrapping_mul(stride), guard)
                    }
                    None => {
                        let i = self.scalar(index);
                        let off = self.mul_const(i, stride, span);
                        let guard = self.robust_guard(base, None, Some((i, off)), stride, stride, typed, res.span);
                        (self.binary(BinaryOp::IAdd, base, off, span), 0, guard)
                    }
                };
                Place::Mem(MemView { space, rules: Rules::Tight, major, ty: e.ty, addr: MemAddr::Typed { base: addr, offset }, guard })
            }
            ExprKind::RawElement { res, offset } => {
                let Some(h) = self.m.handle_type(res) else {
                    self.internal("a byte-address element of a non-buffer", span);
                    return self.temp(e);
                };
                let (space, major) = (Self::mem_space(h.kind), h.major);
                let base = self.scalar(res);
                let width = Layouter::new(types, Rules::Tight).size(e.ty, major);
                let (addr, off, guard) = match Self::const_index(offset) {
                    Some(k) => (base, k, self.robust_guard(base, Some(k), None, 1, width, false, res.span)),
                    None => {
                        let o = self.scalar(offset);
                        let guard = self.robust_guard(base, None, Some((o, o)), 1, width, false, res.span);
                        (self.binary(BinaryOp::IAdd, base, o, span), 0, guard)
                    }
                };
                Place::Mem(MemView { space, rules: Rules::Tight, major, ty: e.ty, addr: MemAddr::Typed { base: addr, offset: off }, guard })
            }
            ExprKind::Member { base, field } => {
                let p = self.place(base);
                let TType::Struct(s) = base.ty else {
                    self.internal("a member of a non-struct", span);
                    return self.temp(e);
                };
                let field = *field;
                match p {
                    Place::Reg(mut r) => {
                        let start = types.field_leaf_offset(s, field);
                        let len = types.leaf_count(e.ty);
                        r.cands = r.cands.into_iter().map(|(c, m)| (c, m.slice(start, len))).collect();
                        r.ty = e.ty;
                        Place::Reg(r)
                    }
                    Place::Private(mut p) => {
                        p.map = p.map.slice(types.field_leaf_offset(s, field), types.leaf_count(e.ty));
                        p.ty = e.ty;
                        Place::Private(p)
                    }
                    Place::Mem(mut m) => {
                        let l = Layouter::new(types, m.rules);
                        let off = l.field_offsets(s.0, m.major)[field as usize];
                        if let Some(fm) = types.strukt(s).fields[field as usize].major {
                            m.major = fm;
                        }
                        match &mut m.addr {
                            MemAddr::Typed { offset, .. } => *offset += off,
                            MemAddr::Leaves(_) => self.internal("a struct in a leaf view", span),
                        }
                        m.ty = e.ty;
                        Place::Mem(m)
                    }
                }
            }
            ExprKind::Index { base, index } => {
                let p = self.place(base);
                self.index_place(p, base.ty, index, e.ty, span)
            }
            ExprKind::Swizzle { base, comps } => {
                let p = self.place(base);
                let picks: Vec<u32> = comps.iter().map(|&c| c as u32).collect();
                self.pick_place(p, base.ty, &picks, e.ty, span)
            }
            ExprKind::MatrixElems { base, elems } => {
                let TType::Matrix(_, _, cols) = base.ty else {
                    self.internal("matrix elements of a non-matrix", span);
                    return self.temp(e);
                };
                let p = self.place(base);
                let picks: Vec<u32> = elems.iter().map(|&(r, c)| r as u32 * cols as u32 + c as u32).collect();
                self.pick_place(p, base.ty, &picks, e.ty, span)
            }
            _ => self.temp(e),
        }
    }

    /// An rvalue as a place to index into.
    fn temp(&mut self, e: &Expr) -> Place {
        let vals = self.expr(e);
        Place::Reg(RegView { src: RegSrc::Temp(vals), ty: e.ty, cands: vec![(None, LeafMap::Contig(0))] })
    }

    /// Leaf addresses of a typed memory view.
    fn leaf_addrs(&mut self, m: &MemView, span: Span) -> Vec<Value> {
        match &m.addr {
            MemAddr::Leaves(v) => v.clone(),
            MemAddr::Typed { base, offset } => {
                let (base, offset) = (*base, *offset);
                let offs = Layouter::new(&self.m.types, m.rules).leaf_offsets(m.ty, m.major);
                offs.into_iter().map(|o| self.add_const(base, offset.wrapping_add(o), span)).collect()
            }
        }
    }

    /// The view's leaves `picks` (components of a vector, elements of a matrix).
    fn pick_place(&mut self, p: Place, base_ty: TType, picks: &[u32], ty: TType, span: Span) -> Place {
        match p {
            Place::Reg(mut r) => {
                r.cands = r.cands.into_iter().map(|(c, m)| (c, m.pick(picks))).collect();
                r.ty = ty;
                Place::Reg(r)
            }
            Place::Private(mut p) => {
                p.map = p.map.pick(picks);
                p.ty = ty;
                Place::Private(p)
            }
            Place::Mem(m) => {
                let all = self.leaf_addrs(&MemView { ty: base_ty, ..m.clone() }, span);
                let addrs = picks.iter().map(|&j| all[j as usize]).collect();
                Place::Mem(MemView { ty, addr: MemAddr::Leaves(addrs), ..m })
            }
        }
    }

    /// The index into `count` elements: a literal (clamped to the last element),
    /// or evaluated, known when it is a constant in range (an unrolled loop's
    /// variable, arithmetic on it), else dynamic (out-of-range constants too,
    /// which keep the dynamic form's meaning).
    fn index_value(&mut self, index: &Expr, count: u32) -> Idx {
        if let Some(k) = Self::const_index(index) {
            return Idx::Const(k.min(count - 1));
        }
        let i = self.scalar(index);
        match self.known_u32(i, 8) {
            Some(k) if k < count => Idx::Const(k),
            _ => Idx::Dyn(i),
        }
    }

    fn index_place(&mut self, p: Place, base_ty: TType, index: &Expr, ty: TType, span: Span) -> Place {
        let Some((elem, per, count)) = index_shape(&self.m.types, base_ty) else {
            self.internal("indexing a value that has no elements", span);
            return p;
        };
        match p {
            Place::Private(mut p) => {
                match self.index_value(index, count) {
                    Idx::Const(k) => p.map = p.map.slice(k * per, per),
                    Idx::Dyn(i) => {
                        p.map = p.map.slice(0, per);
                        let stride = super::private::words_of(&self.m.types, elem);
                        let n = self.iconst(count, span);
                        let in_range = self.cmp(CmpOp::ULt, i, n, span);
                        let words = self.mul_const(i, stride, span);
                        let last = (count - 1) * stride;
                        p.dynamic = Some(match p.dynamic {
                            None => DynWords { words, ok: in_range, last },
                            Some(d) => DynWords {
                                words: self.binary(BinaryOp::IAdd, d.words, words, span),
                                ok: self.and(d.ok, in_range, span),
                                last: d.last + last,
                            },
                        });
                    }
                }
                p.ty = ty;
                Place::Private(p)
            }
            Place::Reg(mut r) => {
                match self.index_value(index, count) {
                    Idx::Const(k) => {
                        r.cands = r.cands.into_iter().map(|(c, m)| (c, m.slice(k * per, per))).collect();
                    }
                    Idx::Dyn(i) => {
                        // Exact, mutually exclusive conditions: a write updates one element
                        // (none for an out-of-range index); a read falls back to the last.
                        let mut eqs = Vec::with_capacity(count as usize);
                        for k in 0..count {
                            let kv = self.iconst(k, span);
                            eqs.push(Some(self.cmp(CmpOp::Eq, i, kv, span)));
                        }
                        let mut cands = Vec::new();
                        for (c, m) in r.cands {
                            for (k, eq) in eqs.iter().enumerate() {
                                let cond = match (c, eq) {
                                    (None, e) => *e,
                                    (Some(c), None) => Some(c),
                                    (Some(c), Some(e)) => Some(self.and(c, *e, span)),
                                };
                                cands.push((cond, m.slice(k as u32 * per, per)));
                            }
                        }
                        if cands.len() > MAX_CANDIDATES {
                            self.errors.push(
                                crate::diag::Diagnostic::error("E0320", "too many dynamically indexed elements")
                                    .with_label(span, format!("{} possible elements", cands.len()))
                                    .with_note(format!("dynamic indexing of local arrays selects among their elements; at most {MAX_CANDIDATES} are supported per access")),
                            );
                            cands.truncate(1);
                        }
                        r.cands = cands;
                    }
                }
                r.ty = ty;
                Place::Reg(r)
            }
            Place::Mem(m) => {
                let konst = Self::const_index(index);
                let l = Layouter::new(&self.m.types, m.rules);
                match (&m.addr, base_ty) {
                    (MemAddr::Typed { base, offset }, TType::Array(_) | TType::Vector(..)) => {
                        let stride = match base_ty {
                            TType::Array(a) => l.array_stride(self.m.types.array(a).0, m.major),
                            TType::Vector(s, _) => s.size(),
                            _ => 0,
                        };
                        let (base, offset) = (*base, *offset);
                        let (base, offset) = match konst {
                            Some(k) => (base, offset.wrapping_add(k.wrapping_mul(stride))),
                            None => {
                                let i = self.scalar(index);
                                let off = self.mul_const(i, stride, span);
                                (self.binary(BinaryOp::IAdd, base, off, span), offset)
                            }
                        };
                        Place::Mem(MemView { ty, addr: MemAddr::Typed { base, offset }, ..m })
                    }
                    (MemAddr::Typed { base, offset }, TType::Matrix(s, rows, cols)) => {
                        let st = l.matrix_steps(s, rows, cols, m.major);
                        let (base, offset) = (*base, *offset);
                        let row_base = match konst {
                            Some(k) => self.add_const(base, offset.wrapping_add(k * st.row_step), span),
                            None => {
                                let i = self.scalar(index);
                                let off = self.mul_const(i, st.row_step, span);
                                let b = self.binary(BinaryOp::IAdd, base, off, span);
                                self.add_const(b, offset, span)
                            }
                        };
                        let addrs = (0..cols as u32).map(|c| self.add_const(row_base, c * st.col_step, span)).collect();
                        Place::Mem(MemView { ty, addr: MemAddr::Leaves(addrs), ..m })
                    }
                    (MemAddr::Leaves(addrs), _) => {
                        let addrs = addrs.clone();
                        let a = match konst {
                            Some(k) => addrs[(k as usize).min(addrs.len() - 1)],
                            None => {
                                let i = self.scalar(index);
                                self.select_by_index(i, &addrs, span)
                            }
                        };
                        Place::Mem(MemView { ty, addr: MemAddr::Leaves(vec![a]), ..m })
                    }
                    _ => {
                        self.internal("indexing memory of this type", span);
                        Place::Mem(m)
                    }
                }
            }
        }
    }

    /// `vals[i]` for a dynamic `i` (the last value for out-of-range indices).
    pub(super) fn select_by_index(&mut self, i: Value, vals: &[Value], span: Span) -> Value {
        let mut acc = *vals.last().expect("at least one value");
        for (k, &v) in vals.iter().enumerate().rev().skip(1) {
            let kv = self.iconst(k as u32, span);
            let eq = self.cmp(CmpOp::Eq, i, kv, span);
            acc = self.select(eq, v, acc, span);
        }
        acc
    }

    fn load_leaf(&mut self, space: MemSpace, s: ScalarType, addr: Value, span: Span) -> Value {
        if s.is_64bit() {
            // Two 32-bit halves, the low one first (little-endian).
            let lo = self.inst(InstData::Load { space, ty: Type::I32, addr }, span);
            let a4 = self.add_const(addr, 4, span);
            let hi = self.inst(InstData::Load { space, ty: Type::I32, addr: a4 }, span);
            return self.pack64(ir_type(s), (lo, hi), span);
        }
        let ty = if s == ScalarType::Bool { Type::I32 } else { ir_type(s) };
        let v = self.inst(InstData::Load { space, ty, addr }, span);
        if s == ScalarType::Bool {
            let zero = self.iconst(0, span);
            self.cmp(CmpOp::Ne, v, zero, span)
        } else {
            v
        }
    }

    /// The leaves a place holds.
    pub(super) fn read_place(&mut self, p: &Place, span: Span) -> Vec<Value> {
        match p {
            Place::Reg(r) => {
                let leaves = self.m.types.leaves(r.ty);
                let src = match &r.src {
                    RegSrc::Local(_) => None,
                    RegSrc::Temp(v) => Some(v.clone()),
                };
                let mut out = Vec::with_capacity(leaves.len());
                for (j, s) in leaves.into_iter().enumerate() {
                    let mut acc: Option<Value> = None;
                    for (cond, map) in r.cands.iter().rev() {
                        let leaf = map.get(j as u32);
                        let v = match (&src, &r.src) {
                            (Some(vals), _) => vals.get(leaf as usize).copied().unwrap_or_else(|| self.konst(ir_type(s), 0, span)),
                            (None, RegSrc::Local(id)) => {
                                let var = self.local_var(*id, leaf, s);
                                self.read(var)
                            }
                            _ => self.konst(ir_type(s), 0, span),
                        };
                        acc = Some(match (acc, cond) {
                            // The last candidate is the fallback.
                            (None, _) | (Some(_), None) => v,
                            (Some(a), Some(c)) => self.select(*c, v, a, span),
                        });
                    }
                    out.push(acc.unwrap_or_else(|| self.konst(ir_type(s), 0, span)));
                }
                out
            }
            Place::Private(p) => {
                let addrs = self.private_addrs(p, false, span);
                let leaves = self.m.types.leaves(p.ty);
                leaves.into_iter().zip(addrs).map(|(s, a)| self.private_load(s, a, span)).collect()
            }
            Place::Mem(m) => {
                let leaves = self.m.types.leaves(m.ty);
                let load = |l: &mut Self| {
                    let addrs = l.leaf_addrs(m, span);
                    addrs.into_iter().zip(leaves.clone()).map(|(a, s)| l.load_leaf(m.space, s, a, span)).collect()
                };
                match m.guard {
                    None => load(self),
                    Some(ok) => {
                        let tys: Vec<Type> = leaves.iter().map(|&s| ir_type(s)).collect();
                        self.branch_values(ok, &tys, load, |l| tys.iter().map(|&t| l.konst(t, 0, span)).collect(), span)
                    }
                }
            }
        }
    }

    /// Stores `vals` (the leaves of the place's type) into the place.
    pub(super) fn write_place(&mut self, p: &Place, vals: &[Value], span: Span) {
        match p {
            Place::Reg(r) => {
                let RegSrc::Local(id) = r.src else {
                    self.internal("an assignment to a temporary value", span);
                    return;
                };
                let leaves = self.m.types.leaves(r.ty);
                for (cond, map) in &r.cands {
                    for (j, (&v, &s)) in vals.iter().zip(&leaves).enumerate() {
                        let var = self.local_var(id, map.get(j as u32), s);
                        match cond {
                            None => self.write(var, v),
                            Some(c) => {
                                let old = self.read(var);
                                let new = self.select(*c, v, old, span);
                                self.write(var, new);
                            }
                        }
                    }
                }
            }
            Place::Private(p) => {
                let store = |l: &mut Self| {
                    let addrs = l.private_addrs(p, true, span);
                    let leaves = l.m.types.leaves(p.ty);
                    for ((s, a), &v) in leaves.into_iter().zip(addrs).zip(vals) {
                        l.private_store(s, a, v, span);
                    }
                    Vec::new()
                };
                match p.dynamic {
                    None => {
                        store(self);
                    }
                    // An index out of range writes nothing (as in registers).
                    Some(d) => {
                        self.branch_values(d.ok, &[], store, |_| Vec::new(), span);
                    }
                }
            }
            Place::Mem(m) => {
                let store = |l: &mut Self| {
                    let addrs = l.leaf_addrs(m, span);
                    let leaves = l.m.types.leaves(m.ty);
                    for ((a, s), &v) in addrs.into_iter().zip(leaves).zip(vals) {
                        if s.is_64bit() {
                            let (lo, hi) = l.halves(v, span);
                            l.effect(InstData::Store { space: m.space, addr: a, value: lo }, span);
                            let a4 = l.add_const(a, 4, span);
                            l.effect(InstData::Store { space: m.space, addr: a4, value: hi }, span);
                            continue;
                        }
                        let v = if s == ScalarType::Bool { l.bool_to_i32(v, span) } else { v };
                        l.effect(InstData::Store { space: m.space, addr: a, value: v }, span);
                    }
                    Vec::new()
                };
                match m.guard {
                    None => {
                        store(self);
                    }
                    Some(ok) => {
                        self.branch_values(ok, &[], store, |_| Vec::new(), span);
                    }
                }
            }
        }
    }

    /// The single memory address of a scalar place in memory (atomics), with its
    /// robust-access guard.
    pub(super) fn scalar_address(&mut self, p: &Place, span: Span) -> Option<(MemSpace, Value, Option<Value>)> {
        match p {
            Place::Mem(m) => {
                let addrs = self.leaf_addrs(m, span);
                let space = if m.space == MemSpace::DeviceReadOnly { MemSpace::Device } else { m.space };
                (addrs.len() == 1).then(|| (space, addrs[0], m.guard))
            }
            Place::Reg(_) | Place::Private(_) => None,
        }
    }

    /// The address of each leaf of a private view. A read (`!write`) past an
    /// index's range takes the last element of every dynamic level; a write
    /// runs only when all are in range.
    fn private_addrs(&mut self, p: &PrivView, write: bool, span: Span) -> Vec<Value> {
        let stride = self.layout.word_stride;
        let mut base = self.private_word_addr(p.local, 0, span);
        if let Some(d) = p.dynamic {
            let words = if write {
                d.words
            } else {
                let last = self.iconst(d.last, span);
                self.select(d.ok, d.words, last, span)
            };
            let bytes = self.mul_const(words, stride, span);
            base = self.binary(BinaryOp::IAdd, base, bytes, span);
        }
        let offsets = self.layout.locals[&p.local].words.clone();
        let n = self.m.types.leaf_count(p.ty);
        (0..n).map(|j| self.add_const(base, offsets[p.map.get(j) as usize] * stride, span)).collect()
    }

    /// The global buffer whose address `v` is: the address itself, or a block parameter
    /// (a variable merged from several paths) whose every incoming value is that buffer's.
    /// Only sealed blocks count (their incoming edges are all known).
    fn buffer_of(&self, v: Value, seen: &mut Vec<Value>) -> Option<usize> {
        if let Some(r) = self.res_addr.iter().position(|a| *a == Some(v)) {
            return Some(r);
        }
        let ValueDef::Param(block, k) = self.f.values[v].def else { return None };
        if seen.contains(&v) || !self.ssa.is_sealed(block) {
            return None;
        }
        seen.push(v);
        let mut found = None;
        for (_, data) in self.f.blocks.iter() {
            let args = match &data.term {
                Terminator::Jump { dest, args } if *dest == block => args,
                Terminator::Loop { header, args, .. } if *header == block => args,
                Terminator::BreakIf { exit, args, .. } if *exit == block => args,
                _ => continue,
            };
            let a = *args.get(k as usize)?;
            if a == v {
                continue;
            }
            let r = self.buffer_of(a, seen)?;
            if found.is_some_and(|f| f != r) {
                return None;
            }
            found = Some(r);
        }
        found
    }

    /// The one value every incoming edge gives block parameter `v` (other than `v`
    /// itself), when its block is sealed and there is one.
    fn same_incoming(&self, v: Value) -> Option<Value> {
        let ValueDef::Param(block, k) = self.f.values[v].def else { return None };
        if !self.ssa.is_sealed(block) {
            return None;
        }
        let mut found = None;
        for (_, data) in self.f.blocks.iter() {
            let args = match &data.term {
                Terminator::Jump { dest, args } if *dest == block => args,
                Terminator::Loop { header, args, .. } if *header == block => args,
                Terminator::BreakIf { exit, args, .. } if *exit == block => args,
                _ => continue,
            };
            let a = *args.get(k as usize)?;
            if a == v || found == Some(a) {
                continue;
            }
            if found.is_some() {
                return None;
            }
            found = Some(a);
        }
        found
    }

    /// The size or counter argument of the buffer whose address is `v`, where the
    /// buffer is known: a global's own, chosen the way the address was chosen where
    /// that was a `select` (a dynamic index into a resource array, a conditional
    /// assignment), or the one of a variable every path gives the same buffer.
    /// The selects are repeated here (their operands dominate the use of `v`).
    pub(super) fn buffer_arg(&mut self, v: Value, what: BufferArg, span: Span) -> Option<Value> {
        if let Some(a) = self.same_incoming(v) {
            // A variable merged from paths that all bring the same value.
            return self.buffer_arg(a, what, span);
        }
        if let Some(r) = self.buffer_of(v, &mut Vec::new()) {
            let r = tast::ResourceId(r as u32);
            return Some(match what {
                BufferArg::Size => self.resource_size(r, span),
                BufferArg::Counter => self.resource_counter(r, span),
            });
        }
        let Some(InstData::Select { cond, args: [a, b], .. }) = self.f.def_inst(v).map(|i| self.f.insts[i].clone()) else {
            return None;
        };
        let x = self.buffer_arg(a, what, span)?;
        let y = self.buffer_arg(b, what, span)?;
        Some(self.select(cond, x, y, span))
    }

    /// `--robust-access`: the condition that an access of `width` bytes at element
    /// `index` (constant `k`, or dynamic `(i, i * stride)`) of the buffer whose address
    /// is `base` lies inside the buffer: `i <= (2^32 - 1 - width) / stride` (so that
    /// `i * stride + width` cannot wrap) and `i * stride + width <= size`; for a typed
    /// buffer (`typed`), whose size counts elements, `i < size`. `None` without the
    /// option. The buffer must be known (see [`Self::buffer_arg`]).
    #[allow(clippy::too_many_arguments)]
    fn robust_guard(
        &mut self,
        base: Value,
        k: Option<u32>,
        dynamic: Option<(Value, Value)>,
        stride: u32,
        width: u32,
        typed: bool,
        span: Span,
    ) -> Option<Value> {
        if !self.m.robust_access {
            return None;
        }
        let Some(size) = self.buffer_arg(base, BufferArg::Size, span) else {
            self.errors.push(
                crate::diag::Diagnostic::error("E0323", "--robust-access needs to know which buffer this is")
                    .with_label(span, "a buffer chosen at run time")
                    .with_note("robust access checks each access against its buffer's size; use the buffer's global name here"),
            );
            return None;
        };
        if typed {
            let i = match (k, dynamic) {
                (Some(k), _) => self.iconst(k, span),
                (None, Some((i, _))) => i,
                (None, None) => return None,
            };
            return Some(self.cmp(CmpOp::ULt, i, size, span));
        }
        let stride = stride.max(1);
        let max_index = (u32::MAX - width) / stride;
        Some(match (k, dynamic) {
            (Some(k), _) => {
                if k > max_index {
                    self.bool_const(false, span)
                } else {
                    let end = self.iconst(k * stride + width, span);
                    self.cmp(CmpOp::ULe, end, size, span)
                }
            }
            (None, Some((i, off))) => {
                let limit = self.iconst(max_index, span);
                let no_wrap = self.cmp(CmpOp::ULe, i, limit, span);
                let w = self.iconst(width, span);
                let end = self.binary(BinaryOp::IAdd, off, w, span);
                let fits = self.cmp(CmpOp::ULe, end, size, span);
                self.and(no_wrap, fits, span)
            }
            (None, None) => return None,
        })
    }

    /// The element stride of a structured buffer of handle type `h`, for `GetDimensions`.
    pub(super) fn buffer_stride(&self, h: &tast::HandleType) -> Option<u32> {
        h.kind.is_structured().then(|| Layouter::new(&self.m.types, Rules::Tight).array_stride(h.elem, h.major))
    }
}
