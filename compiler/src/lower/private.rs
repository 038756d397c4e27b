//! Local arrays in local memory (at -O0).
//!
//! A local whose array is indexed by a value the lowering cannot know is,
//! in registers, a `select` per element per access (reads) and a `select`
//! per element per write: a GEMM's 8x8 micro-tile read in a loop the -O
//! pipeline would unroll is hundreds of instructions per access. At -O the
//! lowering keeps that form, because unrolling and constant folding turn
//! the selects into plain register accesses; at -O0, which runs no passes,
//! such locals live in workgroup-local memory instead, one private copy per
//! thread, as the spiller's slots do: word `w` of a local whose first word
//! is `f` is at `area + (f + w) * T * 4 + tid * 4` (`T` threads per group,
//! `tid` the flattened thread index), after the groupshared variables, so
//! consecutive lanes touch consecutive words (no bank conflicts). A leaf
//! takes one word (two for 64-bit ones, low word first; 16-bit ones the low
//! half; booleans as 0 or 1). Then each access is an address and one load
//! or store per leaf whatever the array's length.
//!
//! Which locals: those reached by an index into an array that is neither a
//! literal nor built by arithmetic from literals, `static const` scalars and
//! the variables of loops the lowering unrolls (`[unroll]`, see `unroll.rs`), in the functions the
//! entry point reaches, when the access may mean more than
//! [`MAX_SELECTED`] elements (the product of the lengths its dynamic indices
//! choose among): up to that many, selects stay cheaper than an address and
//! a load or store per leaf, and their number per access is bounded. Locals holding buffer handles stay in registers (a
//! handle must stay a known buffer), and so do locals past the local memory
//! a workgroup may have (in local-id order, the first that fit go to memory).
//!
//! The semantics are the register form's, out-of-range indices included: a
//! read falls back to the element at the last index of every dynamic level
//! when any index is out of range, and a write then does nothing (a branch
//! around the stores), so -O0 and -O give the same results.

use super::Lowerer;
use crate::diag::Span;
use crate::frontend::tast::{self, Expr, ExprKind, FuncId, LocalId, ScalarType, Stmt, StmtKind, Type as TType};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Where the lowering keeps what (see [`super::lower_with`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// Put dynamically indexed local arrays in local memory, keeping a
    /// workgroup's local memory (groupshared variables included) within
    /// this many bytes (-O0: the target's local memory per workgroup).
    pub local_arrays_within: Option<u32>,
    /// Never contract `a * b + c` into `fma` (dxc's `-Gis`, strict IEEE).
    pub no_contraction: bool,
    /// 64-bit integer and double wave reductions and prefixes as one loop over
    /// every lane of the wave with a wave-uniform trip count (`--isa wave-0.1.2`).
    pub uniform_wave_loops: bool,
}

/// One local in local memory: its first word and each leaf's word offset.
#[derive(Clone, Debug)]
pub(super) struct PrivateLocal {
    pub first: u32,
    pub words: Vec<u32>,
}

/// The locals in local memory and their layout.
#[derive(Clone, Debug, Default)]
pub(super) struct Layout {
    pub locals: BTreeMap<LocalId, PrivateLocal>,
    /// Byte offset of word 0 of thread 0 (after the groupshared variables).
    pub area: u32,
    /// Bytes between consecutive words of one thread (`T * 4`).
    pub word_stride: u32,
    /// Bytes of local memory the locals take.
    pub bytes: u32,
}

/// Most elements a dynamic access to a local array in registers may choose
/// among at -O0 (more: the local goes to local memory).
pub(super) const MAX_SELECTED: u32 = 4;

/// Words a leaf of scalar type `s` takes.
fn leaf_words(s: ScalarType) -> u32 {
    if s.is_64bit() {
        2
    } else {
        1
    }
}

/// The word offset of each leaf of `ty`, and the total.
pub(super) fn word_offsets(types: &tast::Types, ty: TType) -> (Vec<u32>, u32) {
    let mut out = Vec::new();
    let mut w = 0u32;
    for s in types.leaves(ty) {
        out.push(w);
        w = w.saturating_add(leaf_words(s));
    }
    (out, w)
}

/// Words a value of type `ty` takes.
pub(super) fn words_of(types: &tast::Types, ty: TType) -> u32 {
    types.leaves(ty).into_iter().map(leaf_words).fold(0u32, u32::saturating_add)
}

/// Is `e` a place rooted at a local? Which one.
fn root_local(e: &Expr) -> Option<LocalId> {
    match &e.kind {
        ExprKind::Local(l) => Some(*l),
        ExprKind::Member { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Swizzle { base, .. }
        | ExprKind::MatrixElems { base, .. } => root_local(base),
        _ => None,
    }
}

/// The elements an index into a value of type `ty` chooses among.
fn index_count(types: &tast::Types, ty: TType) -> u32 {
    match ty {
        TType::Array(a) => types.array(a).1,
        TType::Vector(_, n) => u32::from(n),
        TType::Matrix(_, rows, _) => u32::from(rows),
        _ => 1,
    }
}

/// An index the lowering will know: literals, unrolled loop variables
/// (`known`) and arithmetic on them.
fn known_index(e: &Expr, known: &[LocalId]) -> bool {
    match &e.kind {
        ExprKind::Literal(_) => true,
        ExprKind::Local(l) => known.contains(l),
        ExprKind::Binary { lhs, rhs, .. } => known_index(lhs, known) && known_index(rhs, known),
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand } => known_index(operand, known),
        _ => false,
    }
}

/// Walks what the entry point reaches for locals indexed dynamically.
struct Scan<'a, 'm> {
    l: &'a Lowerer<'m>,
    found: BTreeSet<LocalId>,
    funcs: BTreeSet<FuncId>,
    todo: Vec<FuncId>,
    /// Variables of the unrolled loops around the statement being scanned
    /// (after the `static const` scalars with known values).
    known: Vec<LocalId>,
}

impl Scan<'_, '_> {
    /// For a place `e`: the product of the lengths its dynamic indices choose
    /// among, and whether one of them indexes an array.
    fn dynamic_choice(&self, e: &Expr) -> (u32, bool) {
        match &e.kind {
            ExprKind::Index { base, index } => {
                let (n, array) = self.dynamic_choice(base);
                if known_index(index, &self.known) {
                    (n, array)
                } else {
                    (n.saturating_mul(index_count(&self.l.m.types, base.ty)), array || matches!(base.ty, TType::Array(_)))
                }
            }
            ExprKind::Member { base, .. } | ExprKind::Swizzle { base, .. } | ExprKind::MatrixElems { base, .. } => {
                self.dynamic_choice(base)
            }
            _ => (1, false),
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Index { base, .. } => {
                let (n, array) = self.dynamic_choice(e);
                if array && n > MAX_SELECTED {
                    if let Some(l) = root_local(base) {
                        self.found.insert(l);
                    }
                }
            }
            // Each function the entry point reaches is scanned once.
            ExprKind::Call { func, .. } if self.funcs.insert(*func) => self.todo.push(*func),
            _ => {}
        }
        for c in e.children() {
            self.expr(c);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::For { init, cond, step, body, attrs } => {
                self.stmts(init);
                cond.iter().for_each(|c| self.expr(c));
                step.iter().for_each(|e| self.expr(e));
                // The same test as the lowering's (control.rs): unrolled loops know their variable.
                let limit = attrs.iter().find_map(|a| match a {
                    tast::StmtAttr::Unroll(n) => Some(*n),
                    _ => None,
                });
                let unrolled = limit.and_then(|limit| {
                    let plan = self.l.unroll_plan(init, cond.as_ref(), step, body)?;
                    (!matches!(limit, Some(n) if plan.trip_count() > n as usize)).then(|| plan.var())
                });
                if let Some(v) = unrolled {
                    self.known.push(v);
                }
                self.stmts(&body.stmts);
                if unrolled.is_some() {
                    self.known.pop();
                }
            }
            StmtKind::If { arms, else_blk } => {
                for arm in arms {
                    self.expr(&arm.cond);
                    self.stmts(&arm.then_blk.stmts);
                }
                if let Some(b) = else_blk {
                    self.stmts(&b.stmts);
                }
            }
            StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
                self.expr(cond);
                self.stmts(&body.stmts);
            }
            StmtKind::Switch { selector, cases, .. } => {
                self.expr(selector);
                for c in cases {
                    self.stmts(&c.body);
                }
            }
            StmtKind::Block(b) => self.stmts(&b.stmts),
            StmtKind::Decl { init, .. } => init.iter().for_each(|e| self.expr(e)),
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Return(e) => e.iter().for_each(|e| self.expr(e)),
            StmtKind::Break | StmtKind::Continue => {}
        }
    }
}

impl Lowerer<'_> {
    /// Which locals go to local memory, and where (see the module doc).
    pub(super) fn plan_local_arrays(&self, within: u32) -> Layout {
        let m = self.m;
        // `static const` scalars with known values are known indices too.
        let known = self.const_statics.keys().copied().collect();
        let mut scan = Scan { l: self, found: BTreeSet::new(), funcs: BTreeSet::new(), todo: Vec::new(), known };
        // Static globals are initialized at entry; their initializers may index too.
        for (_, init) in &m.statics {
            if let Some(e) = init {
                scan.expr(e);
            }
        }
        scan.funcs.insert(m.entry.func);
        scan.todo.push(m.entry.func);
        while let Some(f) = scan.todo.pop() {
            scan.stmts(&m.function(f).body.stmts);
        }
        let threads: u32 = m.entry.numthreads.iter().product::<u32>().max(1);
        let word_stride = threads.saturating_mul(4);
        let area = m.local_memory.next_multiple_of(4);
        let mut layout = Layout { locals: BTreeMap::new(), area, word_stride, bytes: 0 };
        let mut next = 0u32;
        for l in scan.found {
            let ty = m.local(l).ty;
            if m.const_tables.offset_of(l).is_some() || m.types.contains_handle(ty) {
                continue;
            }
            let (words, total) = word_offsets(&m.types, ty);
            let end = u64::from(next + total) * u64::from(word_stride) + u64::from(area);
            if end > u64::from(within) {
                continue;
            }
            layout.locals.insert(l, PrivateLocal { first: next, words });
            next += total;
        }
        layout.bytes = next * word_stride;
        layout
    }

    /// Computes the address of this thread's word 0 of the local-array area,
    /// `area + tid * 4`: called first thing in the entry block, so that it
    /// dominates every use.
    pub(super) fn init_private_base(&mut self, span: Span) {
        let tid = self.system_value(tast::SystemValue::GroupIndex, TType::UINT, span)[0];
        let off = self.mul_const(tid, 4, span);
        let area = self.layout.area;
        self.private_base = Some(self.add_const(off, area, span));
    }

    fn private_base(&mut self, span: Span) -> Value {
        match self.private_base {
            Some(v) => v,
            None => {
                self.internal("a local in local memory before its base address", span);
                self.iconst(0, span)
            }
        }
    }

    /// Loads a leaf of type `s` from the word at `addr` (the next word at `addr + word_stride`).
    pub(super) fn private_load(&mut self, s: ScalarType, addr: Value, span: Span) -> Value {
        let space = MemSpace::Local;
        if s.is_64bit() {
            let lo = self.inst(InstData::Load { space, ty: Type::I32, addr }, span);
            let a = self.add_const(addr, self.layout.word_stride, span);
            let hi = self.inst(InstData::Load { space, ty: Type::I32, addr: a }, span);
            return self.pack64(super::ir_type(s), (lo, hi), span);
        }
        let ty = if s == ScalarType::Bool { Type::I32 } else { super::ir_type(s) };
        let v = self.inst(InstData::Load { space, ty, addr }, span);
        if s == ScalarType::Bool {
            let zero = self.iconst(0, span);
            self.cmp(CmpOp::Ne, v, zero, span)
        } else {
            v
        }
    }

    /// Stores leaf `v` of type `s` at the word at `addr` (see [`Self::private_load`]).
    pub(super) fn private_store(&mut self, s: ScalarType, addr: Value, v: Value, span: Span) {
        let space = MemSpace::Local;
        if s.is_64bit() {
            let (lo, hi) = self.halves(v, span);
            self.effect(InstData::Store { space, addr, value: lo }, span);
            let a = self.add_const(addr, self.layout.word_stride, span);
            self.effect(InstData::Store { space, addr: a, value: hi }, span);
            return;
        }
        let v = if s == ScalarType::Bool { self.bool_to_i32(v, span) } else { v };
        self.effect(InstData::Store { space, addr, value: v }, span);
    }

    /// The address of word `word` of local `l` (which is in local memory).
    pub(super) fn private_word_addr(&mut self, l: LocalId, word: u32, span: Span) -> Value {
        let base = self.private_base(span);
        let first = self.layout.locals[&l].first;
        self.add_const(base, (first + word) * self.layout.word_stride, span)
    }

    /// Every leaf of local `l` (in local memory).
    pub(super) fn read_private_local(&mut self, l: LocalId, span: Span) -> Vec<Value> {
        let leaves = self.m.types.leaves(self.m.local(l).ty);
        let words = self.layout.locals[&l].words.clone();
        leaves
            .into_iter()
            .zip(words)
            .map(|(s, w)| {
                let a = self.private_word_addr(l, w, span);
                self.private_load(s, a, span)
            })
            .collect()
    }

    /// Stores every leaf of local `l` (in local memory).
    pub(super) fn write_private_local(&mut self, l: LocalId, vals: &[Value], span: Span) {
        let leaves = self.m.types.leaves(self.m.local(l).ty);
        let words = self.layout.locals[&l].words.clone();
        for ((s, w), &v) in leaves.into_iter().zip(words).zip(vals) {
            let a = self.private_word_addr(l, w, span);
            self.private_store(s, a, v, span);
        }
    }

    /// The constant `v` is, when the lowering can tell: an `iconst`, or
    /// arithmetic on such (the index `i * 8 + j` of unrolled loops), by the
    /// constant folder's rules. Bounded in depth: it only looks, never emits.
    /// A block parameter counts when its block is sealed and every edge gives
    /// it the same known constant (an unrolled loop variable read after an `if`).
    pub(super) fn known_u32(&self, v: Value, depth: u32) -> Option<u32> {
        if let ValueDef::Param(block, k) = self.f.values[v].def {
            if depth == 0 || !self.ssa.is_sealed(block) {
                return None;
            }
            let mut found = None;
            for &pred in self.ssa.preds(block) {
                let a = *self.f.blocks[pred].term.edges_with_args().into_iter().find(|(d, _)| *d == block)?.1.get(k as usize)?;
                let c = self.known_u32(a, depth - 1)?;
                if found.is_some_and(|f| f != c) {
                    return None;
                }
                found = Some(c);
            }
            return found;
        }
        let inst = self.f.def_inst(v)?;
        match &self.f.insts[inst] {
            InstData::Const { ty: Type::I32, bits } => Some(*bits),
            data if depth > 0 => match crate::passes::fold::eval(data, &|a| self.known_u32(a, depth - 1)) {
                Some((Type::I32, bits)) => Some(bits),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::SourceFile;
    use crate::driver::{compile, CompileOptions, Isa, OptLevel};
    use crate::run::{run_pipeline, testfile::parse_test_text, RunOptions};

    /// Local arrays indexed by loaded values, in and out of range (a read then
    /// takes the last element of every dynamic level, a write does nothing):
    /// one level and two, arrays of structs with vector, bool and 64-bit
    /// fields, a loop that stays a loop, reads through `inout` parameters.
    const KERNEL: &str = "StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
struct P { float2 xy; bool b; uint64_t w; };
void bump(inout uint m[5][7], uint i, uint j) { m[i % 6][j] += 1; }
[numthreads(32, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint a[8];
    [unroll] for (uint k = 0; k < 8; ++k) a[k] = In[k] * 3 + t.x;
    uint i = In[8 + (t.x & 7)];
    uint j = In[16 + (t.x & 7)];
    P p[6];
    [unroll] for (uint k2 = 0; k2 < 6; ++k2) {
        p[k2].xy = float2(k2, t.x);
        p[k2].b = (k2 & 1) != 0;
        p[k2].w = ((uint64_t)k2 << 33) | t.x;
    }
    uint m[5][7];
    for (uint r = 0; r < 5; ++r)
        for (uint c = 0; c < 7; ++c) m[r][c] = r * 7 + c + t.x;
    a[i] = 100 + t.x;
    bump(m, i, j);
    p[j].xy.y += 0.5;
    p[i].b = !p[i].b;
    p[i % 7].w += 1;
    Out[t.x] = a[j] + m[j][i] + (uint)p[i].xy.y + (p[j].b ? 1000 : 0) + (uint)(p[j].w >> 33) + (uint)p[j].w;
    uint s = 0;
    for (uint k3 = 0; k3 < 8; ++k3) s += a[k3] * (k3 + 1) + m[k3 % 5][k3 % 7];
    Out[32 + t.x] = s;
}
";

    const PIPELINE: &str = "---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters: { DispatchGroupCount: [1, 1, 1] }
Buffers:
  - Name: In
    Format: UInt32
    Data: [ 5, 1, 4, 1, 5, 9, 2, 6, 0, 3, 7, 8, 100, 4294967295, 5, 2, 7, 0, 9, 6, 1, 4294967294, 4, 3 ]
  - Name: Out
    Format: UInt32
    FillSize: 256
DescriptorSets:
  - Resources:
    - Name: In
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
...
";

    fn options(opt: OptLevel, isa: Isa) -> CompileOptions {
        let mut o = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
        o.opt = opt;
        o.isa = isa;
        o
    }

    #[test]
    fn dynamically_indexed_arrays_live_in_local_memory_at_o0_with_the_register_forms_results() {
        let test = parse_test_text("t.test", &format!("#--- source.hlsl\n{KERNEL}#--- pipeline.yaml\n{PIPELINE}#--- end\n")).unwrap();
        let file = SourceFile::new("k.hlsl", KERNEL);
        for isa in [Isa::Wave, Isa::Wave012] {
            let mut outs = Vec::new();
            for opt in [OptLevel::O0, OptLevel::O] {
                let c = compile(&file, &options(opt, isa)).unwrap_or_else(|d| panic!("{d:?}"));
                // a, p, m and bump's m in memory at -O0 (8 + 6 * 5 + 35 + 35 words of 32 threads); registers at -O.
                let header = c.asm.lines().find(|l| l.starts_with("; local memory")).unwrap_or("");
                assert_eq!(header.contains("(0 groupshared, 13824 local arrays"), opt == OptLevel::O0, "{header}");
                assert!(!header.contains("local arrays") || opt == OptLevel::O0, "{header}");
                let mut ro = RunOptions::new(crate::target::preset("generic").unwrap());
                ro.compile = options(opt, isa);
                ro.timing = false;
                ro.strict = true;
                let out = run_pipeline(&test, &ro);
                assert_eq!(out.exit_code, 0, "{:?} {isa:?}: {}", opt, out.stderr);
                outs.push(out.stdout);
            }
            assert_eq!(outs[0], outs[1], "-O0 and -O differ on {isa:?}");
        }
    }

    /// An index the lowering knows (an unrolled loop's variable, arithmetic on
    /// it, a `static const`) picks its element: no selects and no local memory,
    /// at -O0 too. Loop bounds may be `static const` values.
    #[test]
    fn known_indices_pick_their_element() {
        let src = "RWStructuredBuffer<float> O : register(u0);
static const uint N = 4;
static const uint LAST = N * N - 1;
[numthreads(8, 1, 1)] void main(uint t : SV_GroupIndex) {
    float acc[4][4];
    float flat[16];
    [unroll] for (uint i = 0; i < 4; ++i)
        [unroll] for (uint j = 0; j < 4; ++j) { acc[i][j] = O[i * 4 + j]; flat[i * 4 + j] = t; }
    [unroll] for (uint k = 0; k < N; ++k) {
        if (t > k) { acc[k][3 - k] += 1; }
        acc[k][k] += flat[LAST - k * 5];
    }
    O[t] = acc[0][0] + acc[1][2] + acc[3][3];
}
";
        let c = compile(&SourceFile::new("k.hlsl", src), &options(OptLevel::O0, Isa::Wave)).unwrap_or_else(|d| panic!("{d:?}"));
        assert!(!c.asm.contains("select") && !c.asm.contains("local memory"), "{}", c.asm);
    }
}
