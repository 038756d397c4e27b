//! Random-program differential testing (design.md §9: "random programs agree
//! across optimization levels").
//!
//! A small deterministic generator (xorshift, seeded per program) writes
//! well-typed compute kernels in the HLSL the front end accepts:
//!
//! * **Scalars and expressions:** int, uint, float and bool locals, thread ids,
//!   a cbuffer, loads from read-only buffers at computed indices, arithmetic,
//!   bitwise ops, shifts, comparisons, `&&`/`||`/`!`, `?:`, casts, constant
//!   subexpressions (for the folder at -O), integer intrinsics (`min`, `max`,
//!   `abs`, `clamp`, `mad`, `countbits`, `reversebits`, `firstbithigh`,
//!   `firstbitlow`) and exact float ones (`abs`, `floor`, `ceil`, `trunc`,
//!   `round`). Some loads use an index that is only in range when the `&&`,
//!   `||` or `?:` guarding them says so: evaluating them anyway would fault.
//! * **Expressions with effects:** `x++`, `--x`, `(x += e)`, `(x = e)` inside
//!   expressions (also on vector components, array elements and struct
//!   fields), the comma operator, and `&&`/`||`/`?:` whose right (or unchosen)
//!   side has an effect, so short-circuit evaluation matters.
//! * **Aggregates:** `int2..4`/`uint2..4`/`float2..4` locals with constructors,
//!   splats, swizzles, write masks (`v.xz = ...`), dynamic component indexing,
//!   `dot`, `any`/`all` of vector comparisons and `select`; local int/uint
//!   arrays (1D, 2D and of vectors) with constant and masked dynamic indices and
//!   whole-array copies; small structs (declared at the top, each with a vector
//!   and an array member, sometimes a nested struct) with field writes and
//!   copies; `static const` tables (1D and 2D); `static` per-thread globals.
//! * **Helper functions** (inlined by the compiler), called from the entry and
//!   from later helpers (never recursively), with `in`/`out`/`inout` scalar,
//!   vector, array and struct parameters, struct and vector results, and early
//!   `return`s inside `if`s and loops; calls appear as statements and inside
//!   expressions.
//! * **Control flow:** nested if/else-if/else on divergent conditions, bounded
//!   `for`/`while`/`do`-`while` loops (nested up to two deep, three with the
//!   loops of an inlined helper) with `break`/`continue` inside ifs at any depth,
//!   `switch` with fall-through, stacked labels, `default` anywhere, and `break`
//!   / `continue` inside cases, early `return` from the entry point (also from
//!   inside loops), swaps and rotations of variables (cycles of block
//!   arguments), stores to per-thread slots of three output buffers, and the
//!   hints `[unroll]` (constant trip counts only), `[loop]`, `[fastopt]`, `[branch]`.
//!   For the optimizer: `if`s on conditions that fold (`true`, `cu == cu`,
//!   `7 / 2 == 3`), `do { } while (false)`, loops that accumulate work
//!   computed from values they never write (invariants), loops with small
//!   constant trip counts (unrolled), and divisions and remainders by
//!   constants (multiply-high sequences), also signed ones of values masked
//!   non-negative.
//! * **Workgroup phases** (only at the top level of the entry point, before any
//!   `return` can have happened, so every barrier is in uniform control flow):
//!   each thread writes its slot of `groupshared` arrays, then
//!   `GroupMemoryBarrierWithGroupSync()`, after which any slot may be read
//!   (neighbour, reversed, computed index); a later phase starts with another
//!   barrier. A phase may open an atomic window between two barriers in which
//!   threads update `groupshared` accumulators with `InterlockedAdd/Max/Or/Xor/Min`
//!   (also in divergent code; the results are read only after the closing
//!   barrier). Buffer atomics on a fourth output buffer, each word with one
//!   commutative operation, happen anywhere in the entry point.
//! * **Bool-heavy prologues** (a third of the programs): 6 to 14 `bool` flags
//!   computed from the inputs before anything else, live to the final stores
//!   (which pack every top-level bool), so that forced budgets spill booleans
//!   (bool-to-mask).
//! * **Wave operations** (`WaveActiveSum`, `WavePrefixSum`, ballots counts, ...)
//!   on ints, at the top level of the entry point before any `return`.
//!
//! The programs avoid undefined and unspecified behaviour, so their results are
//! well defined: divisors are odd or nonzero (never -1), shift counts are masked
//! with `& 31`, float variables (and float vector components and fields) are
//! clamped to +-1e4 after every assignment and float expressions are shallow (no
//! overflow, so no inf or NaN), float -> int casts only see clamped values (float
//! -> uint only non-negative ones), loops have small bounds with their counter
//! advanced before any `continue`, every local is initialised and every `out`
//! parameter is assigned first, and dynamic indices are masked into range. A
//! variable written by an expression's effect is neither read nor written
//! anywhere else in that statement (DXC evaluates call arguments right to left,
//! and an assignment's right side first); helpers touch only their parameters,
//! so calls have no other effects. Every thread writes only its own slots.
//! Atomic results never depend on the order of the lanes, and `groupshared`
//! memory is read only after a barrier that follows every write to it.
//!
//! Each program is compiled for `wave` and `wave-0.1.2`, at -O0 and -O (four
//! listings), run on our simulator (four runs) and the `wave-0.1.2` listings
//! also on wave-emu 0.1.2 (two more); the -O `wave` listing for target `gcn`
//! runs on our simulator with 64-wide waves (one more). There is no expected
//! buffer: all output buffers must be byte-identical. Programs whose results
//! depend on the wave width (those with wave operations) compare the 64-wide
//! runs with each other instead, and add the -O0 `gcn` listing. A `wave-0.1.2`
//! listing that needs more than 32 registers (E0403) or uses compare-and-swap or
//! signed atomic min/max (E0406, E0407) is refused by design: such programs skip
//! the 0.1.2 runs (the summary counts them). Any other compile error fails.
//!
//! `WAVEC_DIFFTEST_PROGRAMS=N` and `WAVEC_DIFFTEST_SEED=S` run more programs or
//! other seeds (program `i` uses seed `S + i`); a failure names its seed and
//! prints the program. `WAVEC_DIFFTEST_TIMES=1` prints the time of each program;
//! `WAVEC_DIFFTEST_PRINT=S` prints the program of seed `S` (from the determinism test).

use std::collections::HashSet;
use std::fmt::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use wavec::diag::{render, SourceFile};
use wavec::driver::{compile_with, CompileOptions, Compiled, Isa, OptLevel};
use wavec::run::{self, Pipeline};
use wavec_tests::*;

#[path = "differential/half16.rs"]
mod half16;

/// Default number of programs and first seed. 160 programs take about 90 s of
/// CI's two cores in the test profile (250 took 135 s); longer runs take
/// `WAVEC_DIFFTEST_PROGRAMS` (the README's 2000-program command).
const PROGRAMS: u64 = 160;
const FIRST_SEED: u64 = 1;

/// Output slots per thread in each output buffer: 0..4 get the top-level
/// variables at the end, 4..8 the stores made along the way.
const SLOTS: u32 = 8;
/// Elements of each input buffer (a power of two: computed indices are masked).
const INPUT_LEN: u32 = 256;
/// What output buffers hold before the kernel runs.
const FILL: u32 = 0xdead_beef;
/// Words of the buffer-atomics output `OutA`: four per operation of `BUFFER_ATOMICS`.
const ACC_WORDS: u32 = 28;
/// Buffer atomics: the operation on words `4 * i .. 4 * i + 4` of `OutA`
/// (one commutative operation per word, so the result is independent of the
/// order of the lanes and groups). The last group is compare-and-store of a
/// value that depends only on the word.
const BUFFER_ATOMICS: [&str; 7] =
    ["InterlockedAdd", "InterlockedOr", "InterlockedXor", "InterlockedAnd", "InterlockedMax", "InterlockedMin", "InterlockedCompareStore"];
/// Deepest nesting of expression generation (calls, vectors, indices and
/// operators together); deeper leaves are variables or literals.
const MAX_NEST: u32 = 6;
/// Most scalar leaves of the variables in scope when a function declares
/// another one (tables count in the entry point).
const MAX_LEAVES: usize = 13;
const COMPS: [&str; 4] = ["x", "y", "z", "w"];

// ---- program generator ------------------------------------------------------

/// Scalar types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    UInt,
    Float,
    Bool,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::UInt => "uint",
            Ty::Float => "float",
            Ty::Bool => "bool",
        }
    }
    fn literals(self) -> &'static [&'static str] {
        match self {
            Ty::Int => INT_LITERALS,
            Ty::UInt => UINT_LITERALS,
            Ty::Float => FLOAT_LITERALS,
            Ty::Bool => &["true", "false"],
        }
    }
    /// The mask of a shift count (`31` or `31u`).
    fn mask31(self) -> &'static str {
        if self == Ty::UInt {
            "31u"
        } else {
            "31"
        }
    }
}

/// Types of variables, parameters, fields and results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VTy {
    S(Ty),
    /// A vector of 2..=4 int, uint or float.
    V(Ty, u8),
    /// A 1D array of int or uint.
    A(Ty, u8),
    /// A 2D array of int or uint.
    A2(Ty, u8, u8),
    /// An array of `len` int or uint vectors: (element, components, len).
    AV(Ty, u8, u8),
    /// A struct of `Gen::structs`.
    St(usize),
}

struct Var {
    name: String,
    ty: VTy,
    /// Loop counters and ids are read-only.
    writable: bool,
}

struct StructDef {
    name: String,
    fields: Vec<(String, VTy)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    In,
    Out,
    InOut,
}

/// A helper function the entry (or a later helper) may call.
struct Func {
    name: String,
    ret: Option<VTy>,
    params: Vec<(Dir, VTy)>,
    /// Deepest loop nesting in its body, callees included.
    loops: usize,
    /// Called from somewhere already.
    called: bool,
}

/// How many parameters of `params` have type `t` (each needs its own place).
fn params_of_type(params: &[(Dir, VTy)], t: VTy) -> usize {
    params.iter().filter(|p| p.1 == t && (p.0 != Dir::In || !matches!(t, VTy::S(_) | VTy::V(..)))).count().saturating_sub(1)
}

/// A `static const` table: 1D (`rows` 0) or 2D.
struct Table {
    name: String,
    ty: Ty,
    rows: u8,
    len: u8,
}

/// A `groupshared` array of one slot per thread (`rows` of them when 2D).
struct Shared {
    name: String,
    ty: Ty,
    rows: u8,
}

/// A `groupshared` accumulator updated by one atomic operation (`len` > 0: an
/// array of that many, indexed dynamically).
struct Acc {
    name: String,
    ty: Ty,
    op: &'static str,
    len: u8,
}

/// Constructs counted for the coverage summary.
#[derive(Clone, Copy, Debug)]
enum F {
    Loops,
    NestedLoops,
    DoWhiles,
    Ifs,
    Breaks,
    Continues,
    DeepJumps,
    Returns,
    LoopReturns,
    Switches,
    Fallthroughs,
    Divisions,
    FloatToInt,
    Helpers,
    Calls,
    OutArgs,
    HelperReturns,
    StructCalls,
    Vectors,
    WriteMasks,
    DynVecIndex,
    Arrays,
    DynArrayIndex,
    Structs,
    Tables,
    Effects,
    ShortCircuitEffects,
    Commas,
    Intrinsics,
    Barriers,
    SharedAtomics,
    BufferAtomics,
    WaveOps,
    ConstConds,
    Invariants,
}

const NF: usize = F::Invariants as usize + 1;
const F_NAMES: [&str; NF] = [
    "loops",
    "nested loops",
    "do-whiles",
    "ifs",
    "breaks",
    "continues",
    "break/continue at if-depth 2+",
    "entry returns",
    "entry returns in loops",
    "switches",
    "switch fall-throughs",
    "divisions",
    "float->int casts",
    "helpers",
    "calls",
    "out/inout args",
    "early helper returns",
    "struct args/results",
    "vector locals",
    "write masks",
    "dynamic vector indices",
    "arrays",
    "dynamic array indices",
    "struct locals",
    "static const tables",
    "effects in expressions",
    "effects under &&/||/?:",
    "comma operators",
    "intrinsics",
    "barriers",
    "groupshared atomics",
    "buffer atomics",
    "wave ops",
    "constant conditions",
    "loops with invariants",
];

/// Which constructs a program used (for the coverage summary).
#[derive(Clone, Copy)]
struct Features([usize; NF]);

impl Default for Features {
    fn default() -> Self {
        Features([0; NF])
    }
}

impl Features {
    fn add(&mut self, f: F) {
        self.0[f as usize] += 1;
    }
}

struct Gen {
    rng: Rng,
    /// Decides the bool-heavy prologue (its own stream, so programs without
    /// one are the ones the seed gave before it existed).
    flag_rng: Rng,
    src: String,
    indent: usize,
    scopes: Vec<Vec<Var>>,
    next_id: usize,
    loop_depth: usize,
    if_depth: usize,
    switch_depth: usize,
    /// `if`s entered since the innermost loop or switch (how deep a jump sits).
    jump_depth: usize,
    /// Statements left to generate.
    budget: usize,
    /// Leaves are literals only (constant subexpressions exercise the folder at -O).
    constant: bool,
    features: Features,
    // -- the program's declarations --
    workgroup: u32,
    structs: Vec<StructDef>,
    tables: Vec<Table>,
    shared: Vec<Shared>,
    accs: Vec<Acc>,
    funcs: Vec<Func>,
    /// `static` (non-const) globals: per-thread variables of the entry point.
    statics: Vec<(String, Ty)>,
    buffer_atomics: bool,
    wave_ops: bool,
    // -- where generation is --
    /// Inside a helper returning this (`Some(None)`: void).
    helper: Option<Option<VTy>>,
    /// Deepest loop nesting of the helper being written, callees included.
    helper_loops: usize,
    /// Calls the current function body may still make.
    calls_left: usize,
    /// Aggregate locals the current function body may still declare.
    aggregates_left: usize,
    /// The entry point has a `return` somewhere before this point.
    entry_returned: bool,
    /// The groupshared arrays / accumulators were written and a barrier passed.
    shared_readable: bool,
    acc_readable: bool,
    /// Between the barriers of an atomic window: accumulators take atomics, no return.
    in_window: bool,
    /// Some value depends on the wave width.
    wave_dependent: bool,
    /// Sequencing within one statement: variables an effect has written (read
    /// or write them no more) and variables read or written (no effect on them).
    no_read: HashSet<String>,
    no_effect: HashSet<String>,
    /// Nesting of expression generation (bounded by `MAX_NEST`).
    nest: u32,
}

/// A generated kernel and its dispatch.
struct Program {
    source: String,
    workgroup: u32,
    groups: u32,
    features: Features,
    /// Results depend on the wave width: compare 64-wide runs among themselves.
    wave_dependent: bool,
}

const INT_LITERALS: &[&str] =
    &["0", "1", "2", "3", "7", "-1", "-5", "100", "-1000", "65535", "2147483647", "-2147483647", "0x5a5a", "0x7ffffff0", "-31", "33"];
const UINT_LITERALS: &[&str] =
    &["0u", "1u", "3u", "31u", "32u", "255u", "0x80000000u", "0xffffffffu", "0xfffffffeu", "0x12345678u", "0x7fffffffu", "16777217u"];
const FLOAT_LITERALS: &[&str] =
    &["0.0f", "1.0f", "-1.0f", "0.5f", "-0.25f", "3.0f", "1.5f", "-2.75f", "10.0f", "100.0f", "0.1f", "-7.125f"];
const CMP_OPS: &[&str] = &["==", "!=", "<", "<=", ">", ">="];

/// A scalar read from somewhere other than a plain variable.
enum Src {
    Var(String),
    Agg(String, VTy),
    Table(usize),
    Shared(usize),
    Acc(usize),
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            flag_rng: Rng::new(seed ^ 0xb001_f1a6),
            src: String::new(),
            indent: 1,
            scopes: vec![Vec::new()],
            next_id: 0,
            loop_depth: 0,
            if_depth: 0,
            switch_depth: 0,
            jump_depth: 0,
            budget: 0,
            constant: false,
            features: Features::default(),
            workgroup: 32,
            structs: Vec::new(),
            tables: Vec::new(),
            shared: Vec::new(),
            accs: Vec::new(),
            funcs: Vec::new(),
            statics: Vec::new(),
            buffer_atomics: false,
            wave_ops: false,
            helper: None,
            helper_loops: 0,
            calls_left: 0,
            aggregates_left: 0,
            entry_returned: false,
            shared_readable: false,
            acc_readable: false,
            in_window: false,
            wave_dependent: false,
            no_read: HashSet::new(),
            no_effect: HashSet::new(),
            nest: 0,
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.src.push_str("  ");
        }
        self.src.push_str(text);
        self.src.push('\n');
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    fn declare(&mut self, name: &str, ty: VTy, writable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var { name: name.to_string(), ty, writable });
    }

    /// `T name` as a declaration or parameter writes it.
    fn decl(&self, t: VTy, name: &str) -> String {
        match t {
            VTy::S(s) => format!("{} {name}", s.name()),
            VTy::V(s, n) => format!("{}{n} {name}", s.name()),
            VTy::A(s, n) => format!("{} {name}[{n}]", s.name()),
            VTy::A2(s, r, c) => format!("{} {name}[{r}][{c}]", s.name()),
            VTy::AV(s, n, len) => format!("{}{n} {name}[{len}]", s.name()),
            VTy::St(i) => format!("{} {name}", self.structs[i].name),
        }
    }

    /// Does a value of `t` have a leaf of type `s`?
    fn contains(&self, t: VTy, s: Ty) -> bool {
        match t {
            VTy::S(x) | VTy::V(x, _) | VTy::A(x, _) | VTy::A2(x, _, _) | VTy::AV(x, _, _) => x == s,
            VTy::St(i) => self.structs[i].fields.iter().any(|f| self.contains(f.1, s)),
        }
    }

    /// Every scalar leaf of `path` (of type `t`), in order.
    fn leaves(&self, path: &str, t: VTy, out: &mut Vec<(String, Ty)>) {
        match t {
            VTy::S(s) => out.push((path.to_string(), s)),
            VTy::V(s, n) => out.extend((0..n as usize).map(|i| (format!("{path}.{}", COMPS[i]), s))),
            VTy::A(s, n) => out.extend((0..n).map(|i| (format!("{path}[{i}]"), s))),
            VTy::A2(s, r, c) => {
                for i in 0..r {
                    out.extend((0..c).map(|j| (format!("{path}[{i}][{j}]"), s)));
                }
            }
            VTy::AV(s, n, len) => {
                for i in 0..len {
                    self.leaves(&format!("{path}[{i}]"), VTy::V(s, n), out);
                }
            }
            VTy::St(i) => {
                for (f, ft) in &self.structs[i].fields {
                    self.leaves(&format!("{path}.{f}"), *ft, out);
                }
            }
        }
    }

    fn in_main(&self) -> bool {
        self.helper.is_none()
    }

    // -- sequencing of effects within a statement --

    fn fx_reset(&mut self) {
        self.no_read.clear();
        self.no_effect.clear();
    }

    fn mark_read(&mut self, root: &str) {
        self.no_effect.insert(root.to_string());
    }

    fn mark_written(&mut self, root: &str) {
        self.no_read.insert(root.to_string());
        self.no_effect.insert(root.to_string());
    }

    /// Variables (name, type) visible here that may be read in this statement.
    fn readable_vars(&self, pred: impl Fn(&Var) -> bool) -> Vec<(String, VTy)> {
        self.scopes.iter().flatten().filter(|v| !self.no_read.contains(&v.name) && pred(v)).map(|v| (v.name.clone(), v.ty)).collect()
    }

    /// Writable variables that this statement has neither read nor written.
    fn effect_vars(&self, pred: impl Fn(&Var) -> bool) -> Vec<(String, VTy)> {
        self.scopes
            .iter()
            .flatten()
            .filter(|v| v.writable && !self.no_read.contains(&v.name) && !self.no_effect.contains(&v.name) && pred(v))
            .map(|v| (v.name.clone(), v.ty))
            .collect()
    }

    /// Writable scalar variables of `ty` (assignment targets).
    fn vars(&self, ty: Ty, writable_only: bool) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|v| v.ty == VTy::S(ty) && (v.writable || !writable_only) && !self.no_read.contains(&v.name))
            .map(|v| v.name.clone())
            .collect()
    }

    fn var(&mut self, ty: Ty) -> Option<String> {
        let vs = self.vars(ty, false);
        if vs.is_empty() {
            None
        } else {
            let v = vs[self.rng.below(vs.len())].clone();
            self.mark_read(&v);
            Some(v)
        }
    }

    /// A plain value of `ty` that is always available (thread id or cbuffer).
    fn fallback(&self, ty: Ty) -> String {
        let main = self.in_main();
        match ty {
            Ty::Int => "ci".into(),
            Ty::UInt if main => "tid".into(),
            Ty::UInt => "cu".into(),
            Ty::Float => "cf".into(),
            Ty::Bool if main => "(tid < 7u)".into(),
            Ty::Bool => "(cu < 7u)".into(),
        }
    }

    // -- expressions --

    /// A buffer index in range: `(e & 255u)` or the thread id.
    fn index(&mut self) -> String {
        if self.in_main() && self.rng.chance(40) {
            "tid".to_string()
        } else {
            let e = self.expr(Ty::UInt, 1);
            format!("({e} & {}u)", INPUT_LEN - 1)
        }
    }

    /// A dynamic index into `n` elements: masked or reduced into range.
    fn dyn_index(&mut self, n: u8) -> String {
        let e = self.expr(Ty::UInt, 1);
        if n.is_power_of_two() {
            format!("({e} & {}u)", n - 1)
        } else {
            format!("({e} % {n}u)")
        }
    }

    /// A scalar leaf of type `want` inside `path` (of type `t`), with the place
    /// a float write there must clamp afterwards (the enclosing vector or the
    /// scalar itself) and its type.
    fn access(&mut self, path: String, t: VTy, want: Ty) -> (String, String, VTy) {
        match t {
            VTy::S(_) => (path.clone(), path, t),
            VTy::V(_, n) => {
                let text = if self.rng.chance(30) {
                    self.features.add(F::DynVecIndex);
                    format!("{path}[{}]", self.dyn_index(n))
                } else {
                    format!("{path}.{}", COMPS[self.rng.below(n as usize)])
                };
                (text, path, t)
            }
            VTy::A(_, n) => {
                let text = if self.rng.chance(50) {
                    self.features.add(F::DynArrayIndex);
                    format!("{path}[{}]", self.dyn_index(n))
                } else {
                    format!("{path}[{}]", self.rng.below(n as usize))
                };
                (text, path, t)
            }
            VTy::A2(_, r, c) => {
                let text = if self.rng.chance(50) {
                    self.features.add(F::DynArrayIndex);
                    format!("{path}[{}][{}]", self.dyn_index(r), self.dyn_index(c))
                } else {
                    format!("{path}[{}][{}]", self.rng.below(r as usize), self.rng.below(c as usize))
                };
                (text, path, t)
            }
            VTy::AV(s, n, len) => {
                let i = if self.rng.chance(50) {
                    self.features.add(F::DynArrayIndex);
                    self.dyn_index(len)
                } else {
                    self.rng.below(len as usize).to_string()
                };
                self.access(format!("{path}[{i}]"), VTy::V(s, n), want)
            }
            VTy::St(i) => {
                let fields: Vec<(String, VTy)> = self.structs[i].fields.iter().filter(|f| self.contains(f.1, want)).cloned().collect();
                let (f, ft) = fields[self.rng.below(fields.len())].clone();
                self.access(format!("{path}.{f}"), ft, want)
            }
        }
    }

    /// A scalar of `ty` read from a variable, a vector component, an array
    /// element, a struct field, a table, groupshared memory or an accumulator.
    fn scalar_source(&mut self, ty: Ty) -> Option<String> {
        let mut cands: Vec<Src> = Vec::new();
        for (name, t) in self.readable_vars(|_| true) {
            match t {
                VTy::S(s) if s == ty => cands.extend((0..4).map(|_| Src::Var(name.clone()))),
                VTy::S(_) => {}
                agg if self.contains(agg, ty) => cands.push(Src::Agg(name, agg)),
                _ => {}
            }
        }
        cands.extend(self.tables.iter().enumerate().filter(|(_, t)| t.ty == ty).map(|(i, _)| Src::Table(i)));
        if self.in_main() && self.shared_readable {
            cands.extend(self.shared.iter().enumerate().filter(|(_, s)| s.ty == ty).map(|(i, _)| Src::Shared(i)));
        }
        if self.in_main() && self.acc_readable && !self.in_window {
            cands.extend(self.accs.iter().enumerate().filter(|(_, a)| a.ty == ty).map(|(i, _)| Src::Acc(i)));
        }
        if cands.is_empty() {
            return None;
        }
        let pick = self.rng.below(cands.len());
        Some(match cands.swap_remove(pick) {
            Src::Var(name) => {
                self.mark_read(&name);
                name
            }
            Src::Agg(name, t) => {
                self.mark_read(&name);
                self.access(name, t, ty).0
            }
            Src::Table(i) => {
                let (name, rows, len) = (self.tables[i].name.clone(), self.tables[i].rows, self.tables[i].len);
                let col = self.dyn_index(len);
                if rows > 0 {
                    let row = self.dyn_index(rows);
                    format!("{name}[{row}][{col}]")
                } else {
                    format!("{name}[{col}]")
                }
            }
            Src::Shared(i) => {
                let name = self.shared[i].name.clone();
                let rows = self.shared[i].rows;
                let slot = self.shared_slot();
                if rows > 1 {
                    let row = self.dyn_index(rows);
                    format!("{name}[{row}][{slot}]")
                } else {
                    format!("{name}[{slot}]")
                }
            }
            Src::Acc(i) => {
                let (name, len) = (self.accs[i].name.clone(), self.accs[i].len);
                if len > 0 {
                    format!("{name}[{}]", self.dyn_index(len))
                } else {
                    name
                }
            }
        })
    }

    /// The slot of another thread of the group: neighbour, reversed, computed.
    fn shared_slot(&mut self) -> String {
        let w = self.workgroup;
        let wrap = |e: String| if w.is_power_of_two() { format!("(({e}) & {}u)", w - 1) } else { format!("(({e}) % {w}u)") };
        match self.rng.below(5) {
            0 => wrap(format!("gi + {}u", 1 + self.rng.below(w as usize - 1))),
            1 => format!("({}u - gi)", w - 1),
            2 => "(gi ^ 1u)".to_string(),
            3 => "gi".to_string(),
            _ => {
                let e = self.expr(Ty::UInt, 1);
                wrap(e)
            }
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        if self.constant {
            return self.rng.pick(ty.literals()).to_string();
        }
        let main = self.in_main();
        match ty {
            Ty::Int => match self.rng.below(10) {
                0..=4 => self.scalar_source(Ty::Int).unwrap_or_else(|| "ci".into()),
                5 | 6 => self.rng.pick(INT_LITERALS).to_string(),
                7 => "ci".into(),
                8 => self.guarded_load(Ty::Int),
                _ => {
                    let i = self.index();
                    format!("InI[{i}]")
                }
            },
            Ty::UInt => match self.rng.below(12) {
                0..=4 => self.scalar_source(Ty::UInt).unwrap_or_else(|| self.fallback(Ty::UInt)),
                5 | 6 => self.rng.pick(UINT_LITERALS).to_string(),
                7 if main => self.rng.pick(&["tid", "gtid.x", "gid.x", "gi", "dtid.x"]).to_string(),
                7 | 8 => "cu".into(),
                9 => self.guarded_load(Ty::UInt),
                _ => {
                    let i = self.index();
                    format!("InU[{i}]")
                }
            },
            // Every float leaf is at most 1e4 in magnitude (see `float_expr`).
            Ty::Float => match self.rng.below(12) {
                0..=4 => self.scalar_source(Ty::Float).unwrap_or_else(|| "cf".into()),
                5 | 6 => self.rng.pick(FLOAT_LITERALS).to_string(),
                7 => "cf".into(),
                8 => {
                    let e = self.expr(Ty::Int, 1);
                    format!("(float)({e} % 4096)")
                }
                9 => {
                    let e = self.expr(Ty::UInt, 1);
                    format!("(float)({e} & 4095u)")
                }
                10 => self.guarded_load(Ty::Float),
                _ => {
                    let i = self.index();
                    format!("InF[{i}]")
                }
            },
            Ty::Bool => match self.rng.below(12) {
                0..=3 => self.scalar_source(Ty::Bool).unwrap_or_else(|| self.fallback(Ty::Bool)),
                4 => self.rng.pick(&["true", "false"]).to_string(),
                5 => self.guarded_load(Ty::Bool),
                _ => {
                    let t = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
                    let (a, b) = (self.leaf(t), self.leaf(t));
                    let op = self.rng.pick(CMP_OPS);
                    format!("({a} {op} {b})")
                }
            },
        }
    }

    /// A variable, id or literal of `ty` (no loads, no effects: it may be written several times).
    fn simple_leaf(&mut self, ty: Ty) -> String {
        if self.constant || self.rng.chance(20) {
            return self.rng.pick(ty.literals()).to_string();
        }
        if ty == Ty::UInt && self.rng.chance(30) {
            return if self.in_main() { self.rng.pick(&["tid", "gtid.x", "gid.x", "gi", "cu"]).to_string() } else { "cu".into() };
        }
        self.var(ty).unwrap_or_else(|| self.fallback(ty))
    }

    /// An index often out of range: a uint leaf, maybe combined with a literal.
    fn simple_index(&mut self) -> String {
        let v = self.simple_leaf(Ty::UInt);
        match self.rng.below(4) {
            0 => v,
            1 => format!("({v} + {})", self.rng.pick(UINT_LITERALS)),
            2 => format!("({v} * {})", self.rng.pick(&["3u", "77u", "0x10001u"])),
            _ => format!("({v} ^ {})", self.rng.pick(UINT_LITERALS)),
        }
    }

    /// A load at an unmasked index that only `&&`, `||` or `?:` keeps in bounds
    /// (evaluating it anyway would read far outside device memory and fault).
    fn guarded_load(&mut self, ty: Ty) -> String {
        let g = self.simple_index();
        let n = INPUT_LEN;
        let t = if ty == Ty::Bool { self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]) } else { ty };
        let buf = match t {
            Ty::Int => "InI",
            Ty::UInt => "InU",
            _ => "InF",
        };
        let other = self.leaf(t);
        match (ty, self.rng.below(2)) {
            (Ty::Bool, 0) => format!("({g} < {n}u && {buf}[{g}] {} {other})", self.rng.pick(CMP_OPS)),
            (Ty::Bool, _) => format!("({g} >= {n}u || {buf}[{g}] {} {other})", self.rng.pick(CMP_OPS)),
            (_, 0) => format!("({g} < {n}u ? {buf}[{g}] : {other})"),
            _ => format!("({g} >= {n}u ? {other} : {buf}[{g}])"),
        }
    }

    /// A signed divisor that is never 0 or -1.
    fn int_divisor(&mut self) -> String {
        match self.rng.below(4) {
            0 => self.rng.pick(&["3", "7", "-2", "-9", "16", "1", "1000", "5", "6", "12", "-25", "641", "0x7fffffff"]).to_string(),
            1 => {
                let e = self.expr(Ty::Int, 1);
                format!("(-(({e} & 127) | 2))")
            }
            _ => {
                let e = self.expr(Ty::Int, 1);
                format!("(({e} & 255) | 1)")
            }
        }
    }

    fn uint_divisor(&mut self) -> String {
        match self.rng.below(3) {
            0 => self
                .rng
                .pick(&[
                    "3u",
                    "10u",
                    "16u",
                    "0x80000001u",
                    "0xfffffffeu",
                    "5u",
                    "6u",
                    "7u",
                    "12u",
                    "25u",
                    "641u",
                    "1000u",
                    "0x7fffffffu",
                    "1u",
                    "2u",
                ])
                .to_string(),
            _ => {
                let e = self.expr(Ty::UInt, 1);
                format!("({e} | 1u)")
            }
        }
    }

    /// A clamped float leaf (at most 1e4 in magnitude) converted to int or uint.
    fn float_to_integer(&mut self, to: Ty) -> String {
        self.features.add(F::FloatToInt);
        let f = self.simple_leaf(Ty::Float);
        match to {
            Ty::Int => format!("(int)({f})"),
            // Only non-negative values convert to uint.
            _ => format!("(uint)({f} < 0.0f ? -({f}) : {f})"),
        }
    }

    /// An integer intrinsic of type `ty` (int or uint).
    fn int_intrinsic(&mut self, ty: Ty, d: u32) -> String {
        self.features.add(F::Intrinsics);
        let s = if ty == Ty::Int { "" } else { "u" };
        match self.rng.below(8) {
            0 | 1 => {
                let f = self.rng.pick(&["min", "max"]);
                let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                format!("{f}({a}, {b})")
            }
            2 => {
                let a = self.expr(ty, d);
                let lo = self.rng.below(50) as i64 - if ty == Ty::Int { 40 } else { 0 };
                let hi = lo + self.rng.below(3000) as i64;
                format!("clamp({a}, {lo}{s}, {hi}{s})")
            }
            3 if ty == Ty::Int => {
                let a = self.expr(ty, d);
                format!("abs({a})")
            }
            3 => {
                let (a, b, c) = (self.expr(ty, d), self.expr(ty, d), self.expr(ty, d));
                format!("mad({a}, {b}, {c})")
            }
            4 => {
                let a = self.expr(Ty::UInt, d);
                format!("(({})countbits({a}))", ty.name())
            }
            5 => {
                let a = self.expr(Ty::UInt, d);
                format!("(({})reversebits({a}))", ty.name())
            }
            6 => {
                let a = self.expr(ty, d);
                format!("firstbithigh({a})")
            }
            _ => {
                let a = self.expr(ty, d);
                format!("firstbitlow({a})")
            }
        }
    }

    /// A scalar place of `ty` for an effect: a writable variable (or a leaf of
    /// a writable aggregate) this statement has not touched; it is then marked
    /// written. Never a float (effects would escape the clamping).
    fn effect_place(&mut self, ty: Ty) -> Option<String> {
        let cands = self.effect_vars(|v| match v.ty {
            VTy::S(s) => s == ty,
            _ => true,
        });
        let cands: Vec<(String, VTy)> = cands.into_iter().filter(|(_, t)| self.contains(*t, ty)).collect();
        if cands.is_empty() {
            return None;
        }
        let (name, t) = cands[self.rng.below(cands.len())].clone();
        self.mark_written(&name);
        Some(self.access(name, t, ty).0)
    }

    /// An int or uint expression with an effect on a variable, or None.
    fn effect(&mut self, ty: Ty, d: u32) -> Option<String> {
        if self.constant {
            return None;
        }
        let p = self.effect_place(ty)?;
        self.features.add(F::Effects);
        Some(match self.rng.below(9) {
            0 => format!("({p}++)"),
            1 => format!("({p}--)"),
            2 => format!("(++{p})"),
            3 => format!("(--{p})"),
            4 => {
                let e = self.expr(ty, d);
                format!("({p} = {e})")
            }
            5 | 6 => {
                let op = self.rng.pick(&["+=", "-=", "*=", "^=", "|=", "&="]);
                let e = self.expr(ty, d);
                format!("({p} {op} {e})")
            }
            7 => {
                let op = self.rng.pick(&["<<=", ">>="]);
                let e = self.expr(ty, d.min(1));
                format!("({p} {op} ({e} & {}))", ty.mask31())
            }
            _ => {
                self.features.add(F::Divisions);
                let op = self.rng.pick(&["/=", "%="]);
                let b = if ty == Ty::Int { self.int_divisor() } else { self.uint_divisor() };
                format!("({p} {op} {b})")
            }
        })
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if self.nest >= MAX_NEST {
            return self.simple_leaf(ty);
        }
        self.nest += 1;
        let e = self.expr_inner(ty, depth);
        self.nest -= 1;
        e
    }

    fn expr_inner(&mut self, ty: Ty, depth: u32) -> String {
        if !self.constant && depth >= 1 && self.rng.chance(8) {
            self.constant = true;
            let e = self.expr(ty, depth);
            self.constant = false;
            return e;
        }
        if ty == Ty::Float {
            // Float operands are at most 1e4 and at most 3 operators deep, so no
            // value exceeds 1e32: no overflow, no inf, no NaN.
            return self.float_expr(depth.min(3));
        }
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        match ty {
            Ty::Int | Ty::UInt => {
                let other = if ty == Ty::Int { Ty::UInt } else { Ty::Int };
                let s = if ty == Ty::Int { "" } else { "u" };
                match self.rng.below(22) {
                    0..=4 => {
                        let op = self.rng.pick(&["+", "-", "*", "&", "|", "^", "+", "-"]);
                        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                        format!("({a} {op} {b})")
                    }
                    5 if ty == Ty::Int && self.rng.chance(30) => {
                        // A non-negative dividend: the optimizer may divide unsigned.
                        self.features.add(F::Divisions);
                        let a = self.expr(ty, d);
                        let b = self.rng.pick(&["3", "7", "10", "16", "100"]);
                        let op = self.rng.pick(&["/", "%"]);
                        format!("(({a} & 0x7fffffff) {op} {b})")
                    }
                    5 => {
                        self.features.add(F::Divisions);
                        let a = self.expr(ty, d);
                        let b = if ty == Ty::Int { self.int_divisor() } else { self.uint_divisor() };
                        let op = self.rng.pick(&["/", "%"]);
                        format!("({a} {op} {b})")
                    }
                    6 => {
                        let a = self.expr(ty, d);
                        let op = self.rng.pick(&["<<", ">>"]);
                        if self.rng.chance(30) {
                            let k = self.rng.below(32);
                            format!("({a} {op} {k}{s})")
                        } else {
                            let ct = self.rng.pick(&[Ty::Int, Ty::UInt]);
                            let b = self.expr(ct, d.min(1));
                            format!("({a} {op} ({b} & {}))", ct.mask31())
                        }
                    }
                    7 => {
                        let a = self.expr(ty, d);
                        if ty == Ty::Int && self.rng.chance(50) {
                            format!("(- {a})")
                        } else {
                            format!("(~{a})")
                        }
                    }
                    8 | 9 => {
                        let a = self.expr(other, d);
                        format!("(({}){a})", ty.name())
                    }
                    10 => self.float_to_integer(ty),
                    11 => {
                        let c = self.expr(Ty::Bool, d.min(2));
                        format!("(({}){c})", ty.name())
                    }
                    12 | 13 => {
                        let c = self.expr(Ty::Bool, d.min(2));
                        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                        format!("({c} ? {a} : {b})")
                    }
                    14 | 15 => self.int_intrinsic(ty, d.min(2)),
                    16 => self.effect(ty, d.min(2)).unwrap_or_else(|| self.leaf(ty)),
                    17 => {
                        // `c ? effect : e` / `c ? e : effect`: only the chosen side runs.
                        let c = self.expr(Ty::Bool, d.min(2));
                        let Some(x) = self.effect(ty, d.min(1)) else { return self.leaf(ty) };
                        self.features.add(F::ShortCircuitEffects);
                        let e = self.expr(ty, d);
                        if self.rng.chance(50) {
                            format!("({c} ? {x} : {e})")
                        } else {
                            format!("({c} ? {e} : {x})")
                        }
                    }
                    18 => self.comma(ty, d).unwrap_or_else(|| self.leaf(ty)),
                    19 => self.call_leaf(ty).unwrap_or_else(|| self.leaf(ty)),
                    20 => {
                        // A vector reduced to a scalar: dot or a component of an expression.
                        let n = 2 + self.rng.below(3) as u8;
                        if self.rng.chance(50) {
                            let (a, b) = (self.vleaf(ty, n), self.vleaf(ty, n));
                            format!("dot({a}, {b})")
                        } else {
                            let v = self.vexpr(ty, n, d.min(2));
                            format!("({v}).{}", COMPS[self.rng.below(n as usize)])
                        }
                    }
                    _ => self.leaf(ty),
                }
            }
            Ty::Bool => match self.rng.below(13) {
                0..=4 => {
                    let t = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
                    let (a, b) = (self.expr(t, d), self.expr(t, d));
                    let op = self.rng.pick(CMP_OPS);
                    format!("({a} {op} {b})")
                }
                5 | 6 => {
                    let (a, b) = (self.expr(Ty::Bool, d), self.expr(Ty::Bool, d));
                    let op = self.rng.pick(&["&&", "||"]);
                    format!("({a} {op} {b})")
                }
                7 => {
                    let a = self.expr(Ty::Bool, d);
                    format!("(!{a})")
                }
                8 => {
                    let (c, a, b) = (self.expr(Ty::Bool, d), self.expr(Ty::Bool, d), self.expr(Ty::Bool, d));
                    format!("({c} ? {a} : {b})")
                }
                9 => {
                    // The right side has an effect: short-circuit decides whether it happens.
                    let c = self.expr(Ty::Bool, d.min(2));
                    let t = self.rng.pick(&[Ty::Int, Ty::UInt]);
                    let Some(x) = self.effect(t, d.min(1)) else { return self.leaf(Ty::Bool) };
                    self.features.add(F::ShortCircuitEffects);
                    let e = self.expr(t, d.min(1));
                    let (op, cmp) = (self.rng.pick(&["&&", "||"]), self.rng.pick(CMP_OPS));
                    format!("({c} {op} ({x} {cmp} {e}))")
                }
                10 => {
                    let t = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
                    let n = 2 + self.rng.below(3) as u8;
                    let (a, b) = (self.vexpr(t, n, d.min(2)), self.vexpr(t, n, d.min(2)));
                    let (f, op) = (self.rng.pick(&["any", "all"]), self.rng.pick(CMP_OPS));
                    format!("{f}({a} {op} {b})")
                }
                _ => self.leaf(Ty::Bool),
            },
            Ty::Float => unreachable!(),
        }
    }

    /// `(effect, e)`: the comma operator. Its right side may read the variable
    /// the left one wrote (the comma orders them).
    fn comma(&mut self, ty: Ty, d: u32) -> Option<String> {
        if self.constant {
            return None;
        }
        let cands = self.effect_vars(|v| v.ty == VTy::S(ty));
        if cands.is_empty() || self.rng.chance(40) {
            let t = self.rng.pick(&[Ty::Int, Ty::UInt]);
            let x = self.effect(t, d.min(1))?;
            self.features.add(F::Commas);
            let e = self.expr(ty, d);
            return Some(format!("({x}, {e})"));
        }
        let v = cands[self.rng.below(cands.len())].0.clone();
        self.mark_written(&v);
        self.features.add(F::Commas);
        self.features.add(F::Effects);
        let op = self.rng.pick(&["+=", "^=", "-="]);
        let a = self.expr(ty, d.min(1));
        let b = self.expr(ty, d.min(1));
        let op2 = self.rng.pick(&["+", "*", "^"]);
        Some(format!("({v} {op} {a}, {v} {op2} {b})"))
    }

    fn float_expr(&mut self, depth: u32) -> String {
        if self.nest >= MAX_NEST {
            return self.simple_leaf(Ty::Float);
        }
        self.nest += 1;
        let e = self.float_expr_inner(depth);
        self.nest -= 1;
        e
    }

    fn float_expr_inner(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(Ty::Float);
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0..=4 => {
                let op = self.rng.pick(&["+", "-", "*"]);
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("({a} {op} {b})")
            }
            5 => {
                let a = self.float_expr(d);
                format!("(- {a})")
            }
            6 | 7 => {
                let c = self.expr(Ty::Bool, d.min(2));
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("({c} ? {a} : {b})")
            }
            8 => {
                // Exact intrinsics: they grow a value by at most 1.
                self.features.add(F::Intrinsics);
                let f = self.rng.pick(&["abs", "floor", "ceil", "trunc", "round"]);
                let a = self.float_expr(d);
                format!("{f}({a})")
            }
            9 => {
                if self.constant {
                    return self.leaf(Ty::Float);
                }
                // A dot product of bounded vectors (at most 4e8), clamped.
                let n = 2 + self.rng.below(3) as u8;
                let (a, b) = (self.vleaf(Ty::Float, n), self.vleaf(Ty::Float, n));
                format!("clamp(dot({a}, {b}), -10000.0f, 10000.0f)")
            }
            10 => self.call_leaf(Ty::Float).unwrap_or_else(|| self.leaf(Ty::Float)),
            _ => {
                let n = 2 + self.rng.below(3) as u8;
                let v = self.vexpr(Ty::Float, n, d);
                format!("({v}).{}", COMPS[self.rng.below(n as usize)])
            }
        }
    }

    // -- vector expressions --

    /// Readable vectors of element `t` (variables and struct fields): (path, root, length).
    fn vec_sources(&self, t: Ty, len: Option<u8>) -> Vec<(String, String, u8)> {
        let mut out = Vec::new();
        for (name, vt) in self.readable_vars(|_| true) {
            match vt {
                VTy::V(s, n) if s == t && len.unwrap_or(n) == n => out.push((name.clone(), name, n)),
                VTy::AV(s, n, l) if s == t && len.unwrap_or(n) == n => {
                    out.extend((0..l).map(|k| (format!("{name}[{k}]"), name.clone(), n)))
                }
                VTy::St(i) => {
                    for (f, ft) in &self.structs[i].fields {
                        if let VTy::V(s, n) = *ft {
                            if s == t && len.unwrap_or(n) == n {
                                out.push((format!("{name}.{f}"), name.clone(), n));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// A vector of `n` components of `t`, at most 1e4 per component for floats.
    fn vleaf(&mut self, t: Ty, n: u8) -> String {
        if self.nest >= MAX_NEST {
            return format!("(({}{n}){})", t.name(), self.simple_leaf(t));
        }
        self.nest += 1;
        let e = self.vleaf_inner(t, n);
        self.nest -= 1;
        e
    }

    fn vleaf_inner(&mut self, t: Ty, n: u8) -> String {
        let vt = format!("{}{n}", t.name());
        if !self.constant {
            match self.rng.below(10) {
                0..=2 => {
                    let srcs = self.vec_sources(t, Some(n));
                    if !srcs.is_empty() {
                        let (path, root, _) = srcs[self.rng.below(srcs.len())].clone();
                        self.mark_read(&root);
                        return path;
                    }
                }
                3 | 4 => {
                    let srcs = self.vec_sources(t, None);
                    if !srcs.is_empty() {
                        let (path, root, len) = srcs[self.rng.below(srcs.len())].clone();
                        self.mark_read(&root);
                        let sw: String = (0..n).map(|_| COMPS[self.rng.below(len as usize)]).collect();
                        return format!("{path}.{sw}");
                    }
                }
                5 => {
                    if let Some(c) = self.call_vec(t, n) {
                        return c;
                    }
                }
                _ => {}
            }
        }
        let scalar = |g: &mut Gen| if t == Ty::Float { g.leaf(Ty::Float) } else { g.expr(t, 1) };
        match self.rng.below(5) {
            0 => {
                let s = scalar(self);
                format!("(({vt}){s})")
            }
            1 if n >= 3 && !self.constant => {
                let srcs = self.vec_sources(t, None);
                if srcs.is_empty() {
                    let s = scalar(self);
                    return format!("(({vt}){s})");
                }
                let (path, root, len) = srcs[self.rng.below(srcs.len())].clone();
                self.mark_read(&root);
                let sw: String = (0..2).map(|_| COMPS[self.rng.below(len as usize)]).collect();
                let rest: Vec<String> = (2..n).map(|_| scalar(self)).collect();
                format!("{vt}({path}.{sw}, {})", rest.join(", "))
            }
            _ => {
                let parts: Vec<String> = (0..n).map(|_| scalar(self)).collect();
                format!("{vt}({})", parts.join(", "))
            }
        }
    }

    /// A vector expression; floats follow `float_expr`'s depth rule per component.
    fn vexpr(&mut self, t: Ty, n: u8, depth: u32) -> String {
        if self.nest >= MAX_NEST {
            return format!("(({}{n}){})", t.name(), self.simple_leaf(t));
        }
        self.nest += 1;
        let e = self.vexpr_inner(t, n, depth);
        self.nest -= 1;
        e
    }

    fn vexpr_inner(&mut self, t: Ty, n: u8, depth: u32) -> String {
        let depth = if t == Ty::Float { depth.min(3) } else { depth };
        if depth == 0 || self.rng.chance(30) {
            return self.vleaf(t, n);
        }
        self.features.add(F::Vectors);
        let d = depth - 1;
        let vt = format!("{}{n}", t.name());
        if t == Ty::Float {
            return match self.rng.below(7) {
                0..=2 => {
                    let op = self.rng.pick(&["+", "-", "*"]);
                    let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                    format!("({a} {op} {b})")
                }
                3 => {
                    let (a, e) = (self.vexpr(t, n, d), self.float_expr(d));
                    format!("({a} * {e})")
                }
                4 => format!("(- {})", self.vexpr(t, n, d)),
                5 => {
                    let c = self.expr(Ty::Bool, d.min(2));
                    let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                    format!("({c} ? {a} : {b})")
                }
                _ => {
                    let a = self.vexpr(Ty::Int, n, d.min(1));
                    format!("(({vt})({a} & 4095))")
                }
            };
        }
        let other = if t == Ty::Int { Ty::UInt } else { Ty::Int };
        match self.rng.below(13) {
            0..=3 => {
                let op = self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                format!("({a} {op} {b})")
            }
            4 => {
                let op = self.rng.pick(&["+", "*", "^", "-"]);
                let (a, e) = (self.vexpr(t, n, d), self.expr(t, d.min(2)));
                format!("({a} {op} {e})")
            }
            5 => {
                let op = self.rng.pick(&["<<", ">>"]);
                let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d.min(1)));
                format!("({a} {op} ({b} & {}))", t.mask31())
            }
            6 => {
                self.features.add(F::Divisions);
                let a = self.vexpr(t, n, d);
                let b = self.vexpr(t, n, d.min(1));
                let op = self.rng.pick(&["/", "%"]);
                match (t, self.rng.below(3)) {
                    (Ty::UInt, _) => format!("({a} {op} ({b} | 1u))"),
                    (_, 0) => format!("({a} {op} (-(({b} & 127) | 2)))"),
                    _ => format!("({a} {op} (({b} & 255) | 1))"),
                }
            }
            7 => {
                let a = self.vexpr(t, n, d);
                if t == Ty::Int && self.rng.chance(50) {
                    format!("(- {a})")
                } else {
                    format!("(~{a})")
                }
            }
            8 => match self.rng.below(3) {
                0 => format!("(({vt}){})", self.vexpr(other, n, d)),
                1 => {
                    let ct = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
                    let (a, b) = (self.vexpr(ct, n, d.min(1)), self.vexpr(ct, n, d.min(1)));
                    format!("(({vt})({a} {} {b}))", self.rng.pick(CMP_OPS))
                }
                _ => {
                    self.features.add(F::FloatToInt);
                    let f = self.vleaf(Ty::Float, n);
                    if t == Ty::Int {
                        format!("(({vt}){f})")
                    } else {
                        format!("(({vt})abs({f}))")
                    }
                }
            },
            9 => {
                let c = self.expr(Ty::Bool, d.min(2));
                let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                format!("({c} ? {a} : {b})")
            }
            10 | 11 => {
                self.features.add(F::Intrinsics);
                match self.rng.below(5) {
                    0 | 1 => {
                        let f = self.rng.pick(&["min", "max"]);
                        let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                        format!("{f}({a}, {b})")
                    }
                    2 if t == Ty::Int => format!("abs({})", self.vexpr(t, n, d)),
                    2 | 3 => {
                        let a = self.vexpr(t, n, d);
                        let s = if t == Ty::Int { "" } else { "u" };
                        let lo = self.rng.below(20) as i64 - if t == Ty::Int { 10 } else { 0 };
                        let hi = lo + self.rng.below(500) as i64;
                        format!("clamp({a}, ({vt})({lo}{s}), ({vt})({hi}{s}))")
                    }
                    _ => {
                        let ct = self.rng.pick(&[Ty::Int, Ty::UInt]);
                        let (p, q) = (self.vexpr(ct, n, d.min(1)), self.vexpr(ct, n, d.min(1)));
                        let (a, b) = (self.vexpr(t, n, d), self.vexpr(t, n, d));
                        format!("select({p} {} {q}, {a}, {b})", self.rng.pick(CMP_OPS))
                    }
                }
            }
            _ => self.vleaf(t, n),
        }
    }

    // -- calls --

    /// A writable place of type `t` for an `out`/`inout` argument (marked written).
    fn out_place(&mut self, t: VTy) -> Option<String> {
        match t {
            VTy::S(s) => {
                let cands: Vec<(String, VTy)> =
                    self.effect_vars(|_| true).into_iter().filter(|(_, vt)| self.contains(*vt, s) && (s != Ty::Bool || *vt == t)).collect();
                if cands.is_empty() {
                    return None;
                }
                let (name, vt) = cands[self.rng.below(cands.len())].clone();
                self.mark_written(&name);
                Some(self.access(name, vt, s).0)
            }
            VTy::V(s, n) => {
                let mut cands: Vec<(String, String, u8)> = Vec::new();
                for (name, vt) in self.effect_vars(|_| true) {
                    match vt {
                        VTy::V(x, m) if x == s && m >= n => cands.push((name.clone(), name, m)),
                        VTy::AV(x, m, l) if x == s && m >= n => cands.push((format!("{name}[{}]", self.rng.below(l as usize)), name, m)),
                        VTy::St(i) => {
                            for (f, ft) in &self.structs[i].fields {
                                if *ft == t {
                                    cands.push((format!("{name}.{f}"), name.clone(), n));
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if cands.is_empty() {
                    return None;
                }
                let (path, root, m) = cands[self.rng.below(cands.len())].clone();
                self.mark_written(&root);
                if m == n && self.rng.chance(70) {
                    return Some(path);
                }
                // A write mask of n distinct components.
                let mask = self.mask(m, n);
                Some(format!("{path}.{mask}"))
            }
            _ => {
                let mut cands: Vec<(String, String)> = Vec::new();
                for (name, vt) in self.effect_vars(|_| true) {
                    if vt == t {
                        cands.push((name.clone(), name));
                    } else if let VTy::St(i) = vt {
                        for (f, ft) in &self.structs[i].fields {
                            if *ft == t {
                                cands.push((format!("{name}.{f}"), name.clone()));
                            }
                        }
                    }
                }
                if cands.is_empty() {
                    return None;
                }
                let (path, root) = cands[self.rng.below(cands.len())].clone();
                self.mark_written(&root);
                Some(path)
            }
        }
    }

    /// `k` distinct components of an `m`-vector, in random order (a write mask).
    fn mask(&mut self, m: u8, k: u8) -> String {
        let mut comps: Vec<usize> = (0..m as usize).collect();
        let mut out = String::new();
        for _ in 0..k {
            let c = comps.remove(self.rng.below(comps.len()));
            out.push_str(COMPS[c]);
        }
        out
    }

    /// Helpers that may be called here: only those written before (no
    /// recursion), with loop nesting bounded together with the caller's.
    fn callable(&self, pred: impl Fn(&Func) -> bool) -> Vec<usize> {
        if self.constant || self.calls_left == 0 {
            return Vec::new();
        }
        (0..self.funcs.len()).filter(|&i| self.loop_depth + self.funcs[i].loops <= 3 && pred(&self.funcs[i])).collect()
    }

    /// A call of helper `i`, or None when its arguments cannot be found here.
    fn call_func(&mut self, i: usize) -> Option<String> {
        // Taken first: arguments may contain calls too.
        self.calls_left = self.calls_left.checked_sub(1)?;
        let params = self.funcs[i].params.clone();
        let mut args: Vec<Option<String>> = vec![None; params.len()];
        // Places and aggregate values first; DXC evaluates arguments right to
        // left, so no two arguments touch the same variable (see `effect`).
        for (k, &(dir, t)) in params.iter().enumerate() {
            let a = match (dir, t) {
                (Dir::In, VTy::S(_) | VTy::V(..)) => continue,
                (Dir::In, _) => {
                    let vs = self.readable_vars(|v| v.ty == t);
                    if vs.is_empty() {
                        return None;
                    }
                    let v = vs[self.rng.below(vs.len())].0.clone();
                    self.mark_read(&v);
                    v
                }
                _ => self.out_place(t)?,
            };
            args[k] = Some(a);
        }
        for (k, &(dir, t)) in params.iter().enumerate() {
            if dir != Dir::In {
                self.features.add(F::OutArgs);
            }
            if args[k].is_some() {
                continue;
            }
            // Float arguments are bounded like float variables.
            args[k] = Some(match t {
                VTy::S(Ty::Float) => self.leaf(Ty::Float),
                VTy::S(s) => self.expr(s, 2),
                VTy::V(Ty::Float, n) => self.vleaf(Ty::Float, n),
                VTy::V(s, n) => self.vexpr(s, n, 2),
                _ => unreachable!(),
            });
        }
        self.features.add(F::Calls);
        self.funcs[i].called = true;
        let f = &self.funcs[i];
        if matches!(f.ret, Some(VTy::St(_))) || f.params.iter().any(|p| matches!(p.1, VTy::St(_))) {
            self.features.add(F::StructCalls);
        }
        let loops = self.loop_depth + f.loops;
        self.helper_loops = self.helper_loops.max(loops);
        let name = f.name.clone();
        let args: Vec<String> = args.into_iter().map(|a| a.expect("every argument")).collect();
        Some(format!("{name}({})", args.join(", ")))
    }

    fn call(&mut self, want: VTy) -> Option<String> {
        let cands = self.callable(|f| f.ret == Some(want));
        if cands.is_empty() {
            return None;
        }
        let i = cands[self.rng.below(cands.len())];
        self.call_func(i)
    }

    /// A scalar of `ty` from a call: its result, a component or a field of it.
    fn call_leaf(&mut self, ty: Ty) -> Option<String> {
        let structs = &self.structs;
        let cands = self.callable(|f| match f.ret {
            Some(VTy::S(s)) | Some(VTy::V(s, _)) => s == ty,
            Some(VTy::St(i)) => structs[i].fields.iter().any(|fd| matches!(fd.1, VTy::S(s) | VTy::V(s, _) if s == ty)),
            _ => false,
        });
        if cands.is_empty() {
            return None;
        }
        let i = cands[self.rng.below(cands.len())];
        let ret = self.funcs[i].ret;
        let c = self.call_func(i)?;
        Some(match ret {
            Some(VTy::V(_, n)) => format!("{c}.{}", COMPS[self.rng.below(n as usize)]),
            Some(VTy::St(k)) => {
                let fields: Vec<(String, VTy)> =
                    self.structs[k].fields.iter().filter(|fd| matches!(fd.1, VTy::S(s) | VTy::V(s, _) if s == ty)).cloned().collect();
                let (f, ft) = fields[self.rng.below(fields.len())].clone();
                match ft {
                    VTy::V(_, n) => format!("{c}.{f}.{}", COMPS[self.rng.below(n as usize)]),
                    _ => format!("{c}.{f}"),
                }
            }
            _ => c,
        })
    }

    /// A vector of `t` x `n` from a call (its result or a field of it).
    fn call_vec(&mut self, t: Ty, n: u8) -> Option<String> {
        let want = VTy::V(t, n);
        let structs = &self.structs;
        let cands = self.callable(|f| match f.ret {
            Some(VTy::St(i)) => structs[i].fields.iter().any(|fd| fd.1 == want),
            r => r == Some(want),
        });
        if cands.is_empty() {
            return None;
        }
        let i = cands[self.rng.below(cands.len())];
        let ret = self.funcs[i].ret;
        let c = self.call_func(i)?;
        Some(match ret {
            Some(VTy::St(k)) => {
                let fields: Vec<String> = self.structs[k].fields.iter().filter(|fd| fd.1 == want).map(|fd| fd.0.clone()).collect();
                format!("{c}.{}", fields[self.rng.below(fields.len())])
            }
            _ => c,
        })
    }

    /// A call as a statement: its result ignored, declared or assigned. Locals
    /// the arguments need (arrays, structs, vectors of the parameter types) are
    /// declared first when there are none.
    fn call_stmt(&mut self) {
        let cands = self.callable(|_| true);
        if cands.is_empty() {
            return self.declare_local();
        }
        // Helpers not called yet come first.
        let fresh: Vec<usize> = cands.iter().copied().filter(|&i| !self.funcs[i].called).collect();
        let i =
            if !fresh.is_empty() && self.rng.chance(70) { fresh[self.rng.below(fresh.len())] } else { cands[self.rng.below(cands.len())] };
        let params = self.funcs[i].params.clone();
        for (dir, t) in params {
            let needs_var = dir != Dir::In || !matches!(t, VTy::S(_) | VTy::V(..));
            let exists = self.readable_vars(|v| v.writable && v.ty == t).len() > params_of_type(&self.funcs[i].params, t);
            if needs_var && !exists && t != VTy::S(Ty::Bool) {
                let name = self.fresh("q");
                let init = self.init_value(t);
                self.line(&format!("{} = {init};", self.decl(t, &name)));
                self.declare(&name, t, true);
                self.fx_reset();
            }
        }
        let ret = self.funcs[i].ret;
        match ret {
            Some(t) if self.rng.chance(70) => {
                let targets: Vec<String> = self.readable_vars(|v| v.writable && v.ty == t).into_iter().map(|v| v.0).collect();
                if !targets.is_empty() && self.rng.chance(50) {
                    let target = targets[self.rng.below(targets.len())].clone();
                    self.mark_read(&target);
                    if let Some(c) = self.call_func(i) {
                        self.line(&format!("{target} = {c};"));
                    }
                } else if !self.room_for(t, 0) {
                    if let Some(c) = self.call_func(i) {
                        self.line(&format!("{c};"));
                    }
                } else if let Some(c) = self.call_func(i) {
                    let name = self.fresh("r");
                    self.line(&format!("{} = {c};", self.decl(t, &name)));
                    self.declare(&name, t, true);
                }
            }
            _ => {
                if let Some(c) = self.call_func(i) {
                    self.line(&format!("{c};"));
                }
            }
        }
    }

    /// A bounded value of `t` for an initializer (floats at most 1e4).
    fn init_value(&mut self, t: VTy) -> String {
        match t {
            VTy::S(Ty::Float) => self.leaf(Ty::Float),
            VTy::S(s) => self.expr(s, 2),
            VTy::V(s, n) => self.vleaf(s, n),
            VTy::A(s, n) => {
                let es: Vec<String> = (0..n).map(|_| self.expr(s, 1)).collect();
                format!("{{ {} }}", es.join(", "))
            }
            VTy::A2(s, r, c) => {
                let rows: Vec<String> = (0..r).map(|_| self.init_value(VTy::A(s, c))).collect();
                format!("{{ {} }}", rows.join(", "))
            }
            VTy::AV(s, n, len) => {
                let es: Vec<String> = (0..len).map(|_| self.vleaf(s, n)).collect();
                format!("{{ {} }}", es.join(", "))
            }
            VTy::St(i) => {
                let fields: Vec<VTy> = self.structs[i].fields.iter().map(|f| f.1).collect();
                let es: Vec<String> = fields.into_iter().map(|ft| self.init_value(ft)).collect();
                format!("{{ {} }}", es.join(", "))
            }
        }
    }

    /// A result for `return` from the current helper (floats clamped).
    fn ret_value(&mut self, t: VTy) -> String {
        match t {
            VTy::S(Ty::Float) => {
                let e = self.float_expr(2);
                format!("clamp({e}, -10000.0f, 10000.0f)")
            }
            VTy::S(s) => self.expr(s, 2),
            VTy::V(Ty::Float, n) => {
                let e = self.vexpr(Ty::Float, n, 2);
                format!("clamp({e}, (float{n})(-10000.0f), (float{n})(10000.0f))")
            }
            VTy::V(s, n) => self.vexpr(s, n, 2),
            _ => {
                let vs = self.readable_vars(|v| v.ty == t);
                vs[self.rng.below(vs.len())].0.clone()
            }
        }
    }

    fn type_name(&self, t: VTy) -> String {
        match t {
            VTy::S(s) => s.name().to_string(),
            VTy::V(s, n) => format!("{}{n}", s.name()),
            VTy::St(i) => self.structs[i].name.clone(),
            _ => unreachable!("arrays are not results"),
        }
    }

    fn param_type(&mut self) -> VTy {
        match self.rng.below(12) {
            0..=3 => VTy::S(self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Int])),
            4 => VTy::S(Ty::Bool),
            5..=7 => VTy::V(self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]), 2 + self.rng.below(3) as u8),
            8 => VTy::A(self.rng.pick(&[Ty::Int, Ty::UInt]), 2 + self.rng.below(3) as u8),
            9 => VTy::AV(self.rng.pick(&[Ty::Int, Ty::UInt]), 2, 2),
            _ if !self.structs.is_empty() => VTy::St(self.rng.below(self.structs.len())),
            _ => VTy::S(Ty::Int),
        }
    }

    /// A helper function: parameters of every direction, early returns, maybe calls of earlier helpers.
    fn helper_fn(&mut self) {
        let k = self.funcs.len();
        let name = format!("h{k}");
        let ret = match self.rng.below(10) {
            0 | 1 => None,
            2 | 3 => Some(VTy::S(Ty::Int)),
            4 => Some(VTy::S(Ty::UInt)),
            5 => Some(VTy::S(Ty::Float)),
            6 | 7 => Some(VTy::V(self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]), 2 + self.rng.below(3) as u8)),
            _ if !self.structs.is_empty() => Some(VTy::St(self.rng.below(self.structs.len()))),
            _ => Some(VTy::S(Ty::Int)),
        };
        let mut params = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let t = self.param_type();
            let dir = match self.rng.below(10) {
                0..=5 => Dir::In,
                6 | 7 => Dir::InOut,
                _ => Dir::Out,
            };
            // An `out` aggregate would need every leaf assigned first: `inout` instead.
            let dir = if dir == Dir::Out && !matches!(t, VTy::S(_) | VTy::V(..)) { Dir::InOut } else { dir };
            params.push((dir, t));
        }
        let pnames: Vec<String> = params.iter().map(|_| self.fresh("p")).collect();
        let plist: Vec<String> = params
            .iter()
            .zip(&pnames)
            .map(|((d, t), n)| {
                let d = match d {
                    Dir::In => "",
                    Dir::Out => "out ",
                    Dir::InOut => "inout ",
                };
                format!("{d}{}", self.decl(*t, n))
            })
            .collect();
        let rname = ret.map_or("void".to_string(), |t| self.type_name(t));
        let _ = writeln!(self.src, "{rname} {name}({}) {{", plist.join(", "));
        self.scopes = vec![params.iter().zip(&pnames).map(|(&(_, t), n)| Var { name: n.clone(), ty: t, writable: true }).collect()];
        self.helper = Some(ret);
        self.helper_loops = 0;
        self.calls_left = 2;
        self.aggregates_left = 1;
        self.indent = 1;
        // `out` parameters are undefined until written: write them first.
        for (k, (&(d, t), n)) in params.iter().zip(&pnames).enumerate() {
            if d == Dir::Out {
                self.fx_reset();
                // This and later `out` parameters are not readable yet.
                for (&(d2, _), n2) in params.iter().zip(&pnames).skip(k) {
                    if d2 == Dir::Out {
                        self.mark_written(n2);
                    }
                }
                match t {
                    VTy::S(s) => {
                        let e = self.expr(s, 2);
                        self.line(&format!("{n} = {e};"));
                    }
                    VTy::V(s, c) => {
                        let e = self.vexpr(s, c, 2);
                        self.line(&format!("{n} = {e};"));
                    }
                    _ => unreachable!(),
                }
                self.clamp(n, t);
            }
        }
        if let Some(t @ VTy::St(_)) = ret {
            self.fx_reset();
            let init = self.init_value(t);
            let r = self.fresh("r");
            self.line(&format!("{} = {init};", self.decl(t, &r)));
            self.declare(&r, t, true);
        }
        self.budget = 3 + self.rng.below(6);
        while self.budget > 0 {
            self.stmt();
        }
        if let Some(t) = ret {
            self.fx_reset();
            let e = self.ret_value(t);
            self.line(&format!("return {e};"));
        }
        self.src.push_str("}\n\n");
        self.features.add(F::Helpers);
        self.funcs.push(Func { name, ret, params, loops: self.helper_loops, called: false });
        self.helper = None;
    }

    // -- statements --

    /// Clamps a float place (scalar or vector) to +-1e4; nothing for other types.
    fn clamp(&mut self, path: &str, t: VTy) {
        match t {
            VTy::S(Ty::Float) => self.line(&format!("{path} = {path} > 10000.0f ? 10000.0f : ({path} < -10000.0f ? -10000.0f : {path});")),
            VTy::V(Ty::Float, n) => self.line(&format!("{path} = clamp({path}, (float{n})(-10000.0f), (float{n})(10000.0f));")),
            _ => {}
        }
    }

    /// Assigns to a scalar place; a float write clamps `clamp_path` afterwards.
    fn assign(&mut self, v: &str, ty: Ty, clamp_path: &str, clamp_ty: VTy) {
        let compound = self.rng.chance(35) && ty != Ty::Bool;
        if compound {
            match ty {
                Ty::Float => {
                    let op = self.rng.pick(&["+=", "-=", "*="]);
                    let e = self.expr(Ty::Float, 2);
                    self.line(&format!("{v} {op} {e};"));
                }
                _ => {
                    let mask = ty.mask31();
                    match self.rng.below(10) {
                        0 => {
                            let op = self.rng.pick(&["++", "--"]);
                            if self.rng.chance(50) {
                                self.line(&format!("{v}{op};"));
                            } else {
                                self.line(&format!("{op}{v};"));
                            }
                        }
                        1 => {
                            self.features.add(F::Divisions);
                            let op = self.rng.pick(&["/=", "%="]);
                            let b = if ty == Ty::Int { self.int_divisor() } else { self.uint_divisor() };
                            self.line(&format!("{v} {op} {b};"));
                        }
                        2 => {
                            let op = self.rng.pick(&["<<=", ">>="]);
                            let b = self.expr(ty, 1);
                            self.line(&format!("{v} {op} ({b} & {mask});"));
                        }
                        _ => {
                            let op = self.rng.pick(&["+=", "-=", "*=", "&=", "|=", "^="]);
                            let e = self.expr(ty, 2);
                            self.line(&format!("{v} {op} {e};"));
                        }
                    }
                }
            }
        } else if ty == Ty::Float && self.rng.chance(15) {
            // A whole int -> float conversion, large values included.
            let t = self.rng.pick(&[Ty::Int, Ty::UInt]);
            let e = self.expr(t, 2);
            self.line(&format!("{v} = (float){e};"));
        } else {
            let e = self.expr(ty, 3);
            self.line(&format!("{v} = {e};"));
        }
        if ty == Ty::Float {
            self.clamp(clamp_path, clamp_ty);
        }
    }

    /// A scalar assignment target of `ty`: a variable (mostly) or a leaf of an aggregate.
    fn scalar_target(&mut self, ty: Ty) -> Option<(String, String, VTy)> {
        let mut cands: Vec<(String, VTy)> = Vec::new();
        for (name, t) in self.readable_vars(|v| v.writable) {
            if t == VTy::S(ty) {
                cands.extend((0..3).map(|_| (name.clone(), t)));
            } else if !matches!(t, VTy::S(_)) && self.contains(t, ty) {
                cands.push((name, t));
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (name, t) = cands[self.rng.below(cands.len())].clone();
        self.mark_read(&name);
        Some(self.access(name, t, ty))
    }

    /// Scalars the visible variables hold (registers they may keep live till the end).
    fn live_leaves(&self) -> usize {
        let mut n = 0;
        for v in self.scopes.iter().flatten() {
            let mut l = Vec::new();
            self.leaves(&v.name, v.ty, &mut l);
            n += l.len();
        }
        if self.in_main() {
            n += self.tables.iter().map(|t| t.len as usize * t.rows.max(1) as usize).sum::<usize>();
        }
        n
    }

    /// Room for another local of `t`: most programs should fit `wave-0.1.2`'s
    /// 32 registers (7 of them hold the buffers' addresses).
    fn room_for(&self, t: VTy, extra: usize) -> bool {
        let mut l = Vec::new();
        self.leaves("x", t, &mut l);
        // A helper's locals add to its caller's when inlined.
        let limit = if self.in_main() { MAX_LEAVES } else { MAX_LEAVES / 2 };
        self.live_leaves() + l.len() <= limit + extra
    }

    fn declare_local(&mut self) {
        if !self.room_for(VTy::S(Ty::Int), 0) {
            return self.assign_some();
        }
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Bool, Ty::Int, Ty::UInt]);
        self.declare_scalar(ty);
    }

    fn declare_scalar(&mut self, ty: Ty) {
        let name = self.fresh(match ty {
            Ty::Int => "i",
            Ty::UInt => "u",
            Ty::Float => "f",
            Ty::Bool => "b",
        });
        let e = self.expr(ty, 3);
        self.line(&format!("{} {name} = {e};", ty.name()));
        self.clamp(&name, VTy::S(ty));
        self.declare(&name, VTy::S(ty), true);
    }

    /// A vector, array or struct local.
    fn declare_aggregate(&mut self) {
        if self.aggregates_left == 0 || !self.room_for(VTy::V(Ty::Int, 2), 0) {
            return self.declare_local();
        }
        self.aggregates_left -= 1;
        let t = match self.rng.below(10) {
            0..=4 => {
                self.features.add(F::Vectors);
                VTy::V(self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Int]), self.rng.pick(&[2, 2, 3, 3, 4]))
            }
            5..=7 => {
                self.features.add(F::Arrays);
                let s = self.rng.pick(&[Ty::Int, Ty::UInt]);
                if self.rng.chance(15) {
                    VTy::A2(s, 2, 2 + self.rng.below(2) as u8)
                } else if self.rng.chance(20) {
                    VTy::AV(s, 2 + self.rng.below(2) as u8, 2 + self.rng.below(2) as u8)
                } else {
                    VTy::A(s, if self.rng.chance(5) { 8 } else { self.rng.pick(&[2, 3, 4, 4, 5]) })
                }
            }
            _ if !self.structs.is_empty() => {
                self.features.add(F::Structs);
                VTy::St(self.rng.below(self.structs.len()))
            }
            _ => VTy::V(Ty::Int, 3),
        };
        // Structs may take a little more room (a nested one has a dozen leaves).
        let extra = if matches!(t, VTy::St(_)) { 6 } else { 0 };
        if !self.room_for(t, extra) {
            return self.declare_local();
        }
        let name = self.fresh(match t {
            VTy::V(..) => "v",
            VTy::St(_) => "s",
            _ => "arr",
        });
        let copies: Vec<String> = self.readable_vars(|v| v.ty == t).into_iter().map(|v| v.0).collect();
        let init = match (t, self.rng.below(5)) {
            (_, 0) if !copies.is_empty() => {
                let c = copies[self.rng.below(copies.len())].clone();
                self.mark_read(&c);
                c
            }
            (VTy::V(..) | VTy::St(_), 1) if !self.callable(|f| f.ret == Some(t)).is_empty() => match self.call(t) {
                Some(c) => c,
                None => self.init_value(t),
            },
            (VTy::St(i), 2) => format!("({})0", self.structs[i].name),
            (VTy::V(s, n), _) => self.vexpr(s, n, 2),
            _ => self.init_value(t),
        };
        self.line(&format!("{} = {init};", self.decl(t, &name)));
        self.clamp(&name, t);
        self.declare(&name, t, true);
    }

    /// A statement on an aggregate place (`path` of type `t`).
    fn place_stmt(&mut self, path: String, t: VTy) {
        match t {
            VTy::S(s) => self.assign(&path, s, &path, t),
            VTy::V(s, n) => self.vector_stmt(&path, s, n),
            VTy::AV(s, n, len) if self.rng.chance(40) => {
                let k = self.rng.below(len as usize);
                self.vector_stmt(&format!("{path}[{k}]"), s, n);
            }
            VTy::A(s, _) | VTy::A2(s, _, _) | VTy::AV(s, _, _) => {
                let others: Vec<String> = self.readable_vars(|v| v.ty == t).into_iter().map(|v| v.0).filter(|v| *v != path).collect();
                if !others.is_empty() && self.rng.chance(20) {
                    let o = others[self.rng.below(others.len())].clone();
                    self.mark_read(&o);
                    self.line(&format!("{path} = {o};"));
                } else {
                    let (p, cp, ct) = self.access(path, t, s);
                    self.assign(&p, s, &cp, ct);
                }
            }
            VTy::St(i) => {
                let others: Vec<String> = self.readable_vars(|v| v.ty == t).into_iter().map(|v| v.0).filter(|v| *v != path).collect();
                match self.rng.below(6) {
                    0 if !others.is_empty() => {
                        let o = others[self.rng.below(others.len())].clone();
                        self.mark_read(&o);
                        self.line(&format!("{path} = {o};"));
                    }
                    1 if !self.callable(|f| f.ret == Some(t)).is_empty() => {
                        if let Some(c) = self.call(t) {
                            self.line(&format!("{path} = {c};"));
                        }
                    }
                    _ => {
                        let fields = self.structs[i].fields.clone();
                        let (f, ft) = &fields[self.rng.below(fields.len())];
                        self.place_stmt(format!("{path}.{f}"), *ft);
                    }
                }
            }
        }
    }

    /// Whole-vector assignments, write masks, dynamic components.
    fn vector_stmt(&mut self, path: &str, s: Ty, n: u8) {
        self.features.add(F::Vectors);
        let t = VTy::V(s, n);
        let ops: &[&str] = if s == Ty::Float { &["+=", "-=", "*="] } else { &["+=", "-=", "*=", "^=", "|=", "&="] };
        match self.rng.below(6) {
            0 => {
                let e = self.vexpr(s, n, 3);
                self.line(&format!("{path} = {e};"));
            }
            1 => {
                let op = self.rng.pick(ops);
                let e = if self.rng.chance(30) { self.expr(s, 2) } else { self.vexpr(s, n, 2) };
                self.line(&format!("{path} {op} {e};"));
            }
            2 | 3 => {
                self.features.add(F::WriteMasks);
                let k = 1 + self.rng.below(n as usize) as u8;
                let mask = self.mask(n, k);
                let op = if self.rng.chance(25) { self.rng.pick(ops) } else { "=" };
                let e = if k == 1 { self.expr(s, 2) } else { self.vexpr(s, k, 2) };
                self.line(&format!("{path}.{mask} {op} {e};"));
            }
            4 => {
                self.features.add(F::DynVecIndex);
                let i = self.dyn_index(n);
                let op = if self.rng.chance(30) { self.rng.pick(ops) } else { "=" };
                let e = self.expr(s, 2);
                self.line(&format!("{path}[{i}] {op} {e};"));
            }
            _ => {
                let (p, cp, ct) = self.access(path.to_string(), t, s);
                return self.assign(&p, s, &cp, ct);
            }
        }
        self.clamp(path, t);
    }

    fn aggregate_stmt(&mut self) {
        let cands = self.readable_vars(|v| v.writable && !matches!(v.ty, VTy::S(_)));
        if cands.is_empty() {
            return self.declare_aggregate();
        }
        let (name, t) = cands[self.rng.below(cands.len())].clone();
        self.mark_read(&name);
        self.place_stmt(name, t);
    }

    fn store(&mut self) {
        if !self.in_main() {
            return self.assign_some();
        }
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
        let slot = if self.rng.chance(25) {
            let s = self.expr(Ty::UInt, 1);
            format!("(({s} & 3u) + 4u)")
        } else {
            format!("{}u", 4 + self.rng.below(4))
        };
        let e = self.expr(ty, 3);
        let buf = match ty {
            Ty::Int => "OutI",
            Ty::UInt => "OutU",
            _ => "OutF",
        };
        self.line(&format!("{buf}[tid * {SLOTS}u + {slot}] = {e};"));
    }

    /// Assigns to some scalar place (declares a local if there is none).
    fn assign_some(&mut self) {
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Bool, Ty::Int, Ty::UInt]);
        match self.scalar_target(ty) {
            Some((p, cp, ct)) => self.assign(&p, ty, &cp, ct),
            None => self.declare_scalar(ty),
        }
    }

    /// Swaps or rotates variables of one type (cycles of block arguments).
    fn permute(&mut self) {
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]);
        let vs = self.vars(ty, true);
        if vs.len() < 2 {
            return self.store();
        }
        let n = if vs.len() >= 3 && self.rng.chance(50) { 3 } else { 2 };
        let start = self.rng.below(vs.len());
        let picked: Vec<String> = (0..n).map(|i| vs[(start + i) % vs.len()].clone()).collect();
        let t = self.fresh("t");
        self.line(&format!("{} {t} = {};", ty.name(), picked[0]));
        for i in 0..n - 1 {
            self.line(&format!("{} = {};", picked[i], picked[i + 1]));
        }
        self.line(&format!("{} = {t};", picked[n - 1]));
        self.declare(&t, VTy::S(ty), true);
    }

    /// A loop bound: small, possibly divergent, at most 7 whatever the body does.
    fn loop_bound(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{}u", 1 + self.rng.below(6)),
            1 => "cu".into(),
            _ => {
                let e = self.expr(Ty::UInt, 1);
                format!("({e} & 7u)")
            }
        }
    }

    fn block(&mut self, n: usize) {
        self.scopes.push(Vec::new());
        self.indent += 1;
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.stmt();
        }
        self.indent -= 1;
        self.scopes.pop();
    }

    /// A `return` from the current function (with a value in a helper).
    fn return_stmt(&mut self) -> String {
        match self.helper {
            Some(ret) => {
                self.features.add(F::HelperReturns);
                self.fx_reset();
                match ret {
                    Some(t) => format!("return {};", self.ret_value(t)),
                    None => "return;".into(),
                }
            }
            None => {
                self.features.add(F::Returns);
                if self.loop_depth > 0 {
                    self.features.add(F::LoopReturns);
                }
                self.entry_returned = true;
                "return;".into()
            }
        }
    }

    fn jump(&mut self, j: &'static str) -> String {
        self.features.add(if j == "break;" { F::Breaks } else { F::Continues });
        if self.jump_depth >= 2 {
            self.features.add(F::DeepJumps);
        }
        j.to_string()
    }

    /// An `if` whose then-block may end with `break`, `continue` or `return`.
    fn if_stmt(&mut self) {
        self.features.add(F::Ifs);
        let c = if self.rng.chance(10) {
            // Decided at compile time (after folding): one side is dead code.
            self.features.add(F::ConstConds);
            self.rng.pick(&["true", "false", "(3u > 2u)", "((5 & 1) == 0)", "(cu == cu)", "(cu != cu)", "(7 / 2 == 3)"]).to_string()
        } else {
            self.expr(Ty::Bool, 3)
        };
        let attr = if self.rng.chance(8) { "[branch] " } else { "" };
        self.line(&format!("{attr}if ({c}) {{"));
        self.if_depth += 1;
        self.jump_depth += 1;
        let n = 1 + self.rng.below(3);
        self.block(n);
        // A jump ends the block (nothing after it would run).
        let can_break = self.loop_depth > 0 || self.switch_depth > 0;
        let can_return = self.helper.is_some() || !self.in_window;
        let jump = if can_break && self.rng.chance(45) {
            if self.loop_depth == 0 || self.rng.chance(50) {
                Some(self.jump("break;"))
            } else {
                Some(self.jump("continue;"))
            }
        } else if can_return
            && self.rng.chance(match (self.helper.is_some(), self.loop_depth > 0) {
                (true, _) => 35,
                (false, true) => 8,
                (false, false) => 4,
            })
        {
            Some(self.return_stmt())
        } else {
            None
        };
        if let Some(j) = jump {
            self.indent += 1;
            self.line(&j);
            self.indent -= 1;
        }
        self.jump_depth -= 1;
        if self.rng.chance(15) {
            self.fx_reset();
            let c = self.expr(Ty::Bool, 2);
            self.line(&format!("}} else if ({c}) {{"));
            let n = 1 + self.rng.below(2);
            self.block(n);
        }
        if self.rng.chance(45) {
            self.line("} else {");
            let n = 1 + self.rng.below(3);
            self.block(n);
        }
        self.if_depth -= 1;
        self.line("}");
    }

    fn loop_stmt(&mut self) {
        self.features.add(F::Loops);
        if self.loop_depth > 0 {
            self.features.add(F::NestedLoops);
        }
        self.loop_depth += 1;
        self.helper_loops = self.helper_loops.max(self.loop_depth);
        let saved_jump = std::mem::replace(&mut self.jump_depth, 0);
        let n = 1 + self.rng.below(4);
        match self.rng.below(5) {
            0 | 1 => {
                let k = self.fresh("k");
                let bound = self.loop_bound();
                let step = if self.rng.chance(25) { format!("{k} += {}u", 2 + self.rng.below(2)) } else { format!("{k}++") };
                // Attributes (hints): `[unroll]` only where the trip count is a constant.
                let attr = if bound.starts_with(|c: char| c.is_ascii_digit()) && self.rng.chance(30) {
                    "[unroll] "
                } else {
                    self.rng.pick(&["", "", "", "", "", "", "[loop] ", "[fastopt] "])
                };
                self.line(&format!("{attr}for (uint {k} = 0u; {k} < {bound}; {step}) {{"));
                self.scopes.push(vec![Var { name: k, ty: VTy::S(Ty::UInt), writable: false }]);
                self.block(n);
                self.scopes.pop();
                self.line("}");
            }
            2 => {
                // Counting down, signed.
                let k = self.fresh("k");
                let start = self.rng.below(7);
                let attr = self.rng.pick(&["", "", "", "[unroll] ", "[loop] "]);
                self.line(&format!("{attr}for (int {k} = {start}; {k} >= 0; {k}--) {{"));
                self.scopes.push(vec![Var { name: k, ty: VTy::S(Ty::Int), writable: false }]);
                self.block(n);
                self.scopes.pop();
                self.line("}");
            }
            3 => {
                let w = self.fresh("w");
                let bound = self.loop_bound();
                self.line(&format!("uint {w} = 0u;"));
                self.declare(&w, VTy::S(Ty::UInt), false);
                if self.rng.chance(50) {
                    let extra = if self.rng.chance(40) { format!(" && {}", self.expr(Ty::Bool, 2)) } else { String::new() };
                    self.line(&format!("while ({w} < {bound}{extra}) {{"));
                    self.indent += 1;
                    self.line(&format!("{w}++;"));
                } else {
                    self.line("while (true) {");
                    self.indent += 1;
                    self.line(&format!("{w}++;"));
                    self.line(&format!("if ({w} > {bound})"));
                    self.line("  break;");
                }
                self.indent -= 1;
                self.block(n);
                self.line("}");
            }
            4 if self.rng.chance(30) => {
                // Runs once: the optimizer removes the loop.
                self.features.add(F::DoWhiles);
                self.line("do {");
                self.block(n);
                self.line("} while (false);");
            }
            4 if self.rng.chance(40) => {
                // Loop-invariant work: values computed from variables the loop never
                // writes, next to a counter the loop does.
                self.features.add(F::Invariants);
                let k = self.fresh("k");
                let bound = self.loop_bound();
                let inv = self.fresh("v");
                self.fx_reset();
                let e = self.expr(Ty::UInt, 2);
                self.line(&format!("uint {inv} = 0u;"));
                self.line(&format!("for (uint {k} = 0u; {k} < {bound}; {k}++) {{"));
                self.indent += 1;
                self.line(&format!("{inv} += ({e}) * 3u + cu / 7u + {k};"));
                self.indent -= 1;
                self.scopes.push(vec![Var { name: k, ty: VTy::S(Ty::UInt), writable: false }]);
                self.block(n);
                self.scopes.pop();
                self.line("}");
                self.declare(&inv, VTy::S(Ty::UInt), true);
            }
            _ => {
                self.features.add(F::DoWhiles);
                let w = self.fresh("w");
                let bound = self.loop_bound();
                self.line(&format!("uint {w} = 0u;"));
                self.declare(&w, VTy::S(Ty::UInt), false);
                self.line("do {");
                self.indent += 1;
                self.line(&format!("{w}++;"));
                self.indent -= 1;
                self.block(n);
                self.fx_reset();
                let c = self.expr(Ty::Bool, 2);
                self.line(&format!("}} while ({w} < {bound} && {c});"));
            }
        }
        self.jump_depth = saved_jump;
        self.loop_depth -= 1;
    }

    /// `switch` with fall-through, stacked labels, `default` anywhere; each
    /// case body is a block (so declarations in it are scoped).
    fn switch_stmt(&mut self) {
        self.features.add(F::Switches);
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt]);
        let s = if ty == Ty::Int { "" } else { "u" };
        let e = self.expr(ty, 2);
        let sel = match self.rng.below(3) {
            0 => format!("({e} & 7{s})"),
            1 => format!("({e} % 5{s})"),
            _ => e,
        };
        let mut labels: Vec<i64> = if ty == Ty::Int { (-3..8).collect() } else { (0..8).collect() };
        let ncases = 2 + self.rng.below(3);
        let default_at = if self.rng.chance(60) { Some(self.rng.below(ncases + 1)) } else { None };
        self.line(&format!("switch ({sel}) {{"));
        self.switch_depth += 1;
        let saved_jump = std::mem::replace(&mut self.jump_depth, 0);
        let slots = ncases + default_at.is_some() as usize;
        for k in 0..slots {
            if default_at == Some(k) {
                self.line("default:");
            } else {
                let stacked = if self.rng.chance(20) { 2 } else { 1 };
                for _ in 0..stacked {
                    let l = labels.remove(self.rng.below(labels.len()));
                    self.line(&format!("case {l}{s}:"));
                }
            }
            self.line("{");
            let n = 1 + self.rng.below(2);
            self.block(n);
            self.line("}");
            if k + 1 < slots && self.rng.chance(30) {
                self.features.add(F::Fallthroughs);
            } else {
                self.indent += 1;
                self.line("break;");
                self.indent -= 1;
            }
        }
        self.jump_depth = saved_jump;
        self.switch_depth -= 1;
        self.line("}");
    }

    /// Buffer atomics on `OutA`: each word has one commutative operation.
    fn buffer_atomic(&mut self) {
        self.features.add(F::BufferAtomics);
        let n = BUFFER_ATOMICS.len();
        let k = if self.rng.chance(4) { n - 1 } else { self.rng.below(n - 1) };
        let op = BUFFER_ATOMICS[k];
        let base = 4 * k as u32;
        if op == "InterlockedCompareStore" {
            // Every lane stores the same value: the first one wins, whichever it is.
            let w = base + self.rng.below(4) as u32;
            self.line(&format!("InterlockedCompareStore(OutA[{w}], {FILL:#x}u, {}u);", w * 7 + 1));
            return;
        }
        let slot = if self.rng.chance(50) {
            format!("{}u", base + self.rng.below(4) as u32)
        } else {
            let e = self.expr(Ty::UInt, 1);
            format!("(({e} & 3u) + {base}u)")
        };
        let v = self.expr(Ty::UInt, 2);
        self.line(&format!("{op}(OutA[{slot}], {v});"));
    }

    /// An atomic update of a groupshared accumulator (inside an atomic window).
    fn shared_atomic(&mut self) {
        self.features.add(F::SharedAtomics);
        let i = self.rng.below(self.accs.len());
        let (name, ty, op, len) = (self.accs[i].name.clone(), self.accs[i].ty, self.accs[i].op, self.accs[i].len);
        let dest = if len > 0 { format!("{name}[{}]", self.dyn_index(len)) } else { name };
        let v = self.expr(ty, 2);
        self.line(&format!("{op}({dest}, {v});"));
    }

    /// A wave operation on ints at the top level (every lane of the wave active).
    fn wave_stmt(&mut self) {
        self.features.add(F::WaveOps);
        self.wave_dependent = true;
        let (ty, e) = match self.rng.below(11) {
            0 => (Ty::Int, format!("WaveActiveSum({})", self.expr(Ty::Int, 2))),
            1 => (Ty::UInt, format!("WaveActiveSum({})", self.expr(Ty::UInt, 2))),
            2 => (Ty::Int, format!("{}({})", self.rng.pick(&["WaveActiveMax", "WaveActiveMin"]), self.expr(Ty::Int, 2))),
            3 => (Ty::UInt, format!("{}({})", self.rng.pick(&["WaveActiveMax", "WaveActiveMin"]), self.expr(Ty::UInt, 2))),
            4 => (
                Ty::UInt,
                format!("{}({})", self.rng.pick(&["WaveActiveBitOr", "WaveActiveBitXor", "WaveActiveBitAnd"]), self.expr(Ty::UInt, 2)),
            ),
            5 => (Ty::UInt, format!("WaveActiveCountBits({})", self.expr(Ty::Bool, 2))),
            6 => (Ty::Int, format!("WavePrefixSum({})", self.expr(Ty::Int, 2))),
            7 => (Ty::UInt, format!("WavePrefixCountBits({})", self.expr(Ty::Bool, 2))),
            8 => (Ty::Int, format!("WaveReadLaneFirst({})", self.expr(Ty::Int, 2))),
            // Lanes 0..15 exist in every wave (the last one of a 48-thread group has 16).
            9 => (Ty::Int, format!("WaveReadLaneAt({}, cu & 15u)", self.expr(Ty::Int, 2))),
            _ => (Ty::Bool, format!("{}({})", self.rng.pick(&["WaveActiveAllTrue", "WaveActiveAnyTrue"]), self.expr(Ty::Bool, 2))),
        };
        let name = self.fresh("wv");
        self.line(&format!("{} {name} = {e};", ty.name()));
        self.declare(&name, VTy::S(ty), true);
    }

    /// A workgroup phase at the top level: every thread writes its groupshared
    /// slots, a barrier, then maybe an atomic window closed by another barrier.
    fn barrier_phase(&mut self) {
        self.features.add(F::Barriers);
        if self.shared_readable || self.acc_readable {
            // Others may still read what this phase overwrites.
            self.line("GroupMemoryBarrierWithGroupSync();");
        }
        // Until the next barrier, other threads write every slot.
        self.shared_readable = false;
        self.acc_readable = false;
        for i in 0..self.shared.len() {
            let (name, ty, rows) = (self.shared[i].name.clone(), self.shared[i].ty, self.shared[i].rows);
            for r in 0..rows {
                self.fx_reset();
                let e = if ty == Ty::Float { self.leaf(Ty::Float) } else { self.expr(ty, 2) };
                if rows > 1 {
                    self.line(&format!("{name}[{r}][gi] = {e};"));
                } else {
                    self.line(&format!("{name}[gi] = {e};"));
                }
            }
        }
        if !self.accs.is_empty() {
            self.line("if (gi == 0u) {");
            self.indent += 1;
            for i in 0..self.accs.len() {
                if self.accs[i].len == 0 {
                    self.fx_reset();
                    let (name, ty) = (self.accs[i].name.clone(), self.accs[i].ty);
                    let e = self.expr(ty, 1);
                    self.line(&format!("{name} = {e};"));
                }
            }
            self.indent -= 1;
            self.line("}");
            for i in 0..self.accs.len() {
                let (name, ty, len) = (self.accs[i].name.clone(), self.accs[i].ty, self.accs[i].len);
                if len > 0 {
                    self.fx_reset();
                    let e = self.expr(ty, 1);
                    self.line(&format!("if (gi < {len}u)"));
                    self.line(&format!("  {name}[gi] = {e};"));
                }
            }
        }
        self.line("GroupMemoryBarrierWithGroupSync();");
        self.shared_readable = !self.shared.is_empty();
        self.acc_readable = false;
        if !self.accs.is_empty() {
            self.in_window = true;
            for _ in 0..1 + self.rng.below(2) {
                self.fx_reset();
                self.shared_atomic();
            }
            for _ in 0..self.rng.below(4) {
                if self.budget == 0 {
                    break;
                }
                self.stmt();
            }
            self.in_window = false;
            self.line("GroupMemoryBarrierWithGroupSync();");
            self.acc_readable = true;
        }
    }

    fn stmt(&mut self) {
        self.budget -= 1;
        self.fx_reset();
        let nested_ok = self.if_depth + self.loop_depth + self.switch_depth < 5;
        let main = self.in_main();
        match self.rng.below(30) {
            0..=4 => self.assign_some(),
            5 | 6 => self.declare_local(),
            7 | 8 => self.store(),
            9..=11 if nested_ok => self.if_stmt(),
            12..=13 if nested_ok && self.loop_depth < 2 => self.loop_stmt(),
            14 if nested_ok => self.switch_stmt(),
            15 if self.loop_depth > 0 => {
                // `if (c) break;` / `if (c) continue;` without a block.
                let c = self.expr(Ty::Bool, 2);
                let j = if self.rng.chance(50) { self.jump("break;") } else { self.jump("continue;") };
                self.line(&format!("if ({c})"));
                self.line(&format!("  {j}"));
            }
            16 => self.permute(),
            17 | 18 => self.declare_aggregate(),
            19..=21 => self.aggregate_stmt(),
            22 | 23 => self.call_stmt(),
            24 if main && self.in_window => self.shared_atomic(),
            24 | 25 if main && self.buffer_atomics => self.buffer_atomic(),
            _ => {
                let ty = self.rng.pick(&[Ty::Int, Ty::UInt]);
                if let Some(v) = self.vars(ty, true).first().cloned() {
                    self.mark_read(&v);
                    self.assign(&v, ty, &v, VTy::S(ty));
                } else {
                    self.store();
                }
            }
        }
    }

    /// Writes the top-level variables of `ty` (aggregates leaf by leaf) to
    /// slots 0..4 of `buf` (the fourth slot folds in the rest).
    fn final_stores(&mut self, ty: Ty, buf: &str, extra: Option<String>) {
        let mut vs = Vec::new();
        for v in &self.scopes[0] {
            if v.ty == VTy::S(ty) {
                vs.push(v.name.clone());
            }
        }
        let mut leaves = Vec::new();
        for v in &self.scopes[0] {
            if !matches!(v.ty, VTy::S(_)) {
                self.leaves(&v.name, v.ty, &mut leaves);
            }
        }
        vs.extend(leaves.into_iter().filter(|l| l.1 == ty).map(|l| l.0));
        let mut rest = if vs.len() > 3 { vs.split_off(3) } else { Vec::new() };
        rest.extend(extra);
        for (slot, v) in vs.iter().enumerate() {
            self.line(&format!("{buf}[tid * {SLOTS}u + {slot}u] = {v};"));
        }
        if !rest.is_empty() {
            let op = if ty == Ty::Float { " + " } else { " ^ " };
            let e = rest.join(op);
            self.line(&format!("{buf}[tid * {SLOTS}u + 3u] = {e};"));
        }
    }

    /// Structs, tables and groupshared declarations, decided before any code.
    fn declarations(&mut self, head: &mut String) {
        if self.rng.chance(40) {
            for k in 0..1 + self.rng.below(2) {
                let vec = VTy::V(self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float]), 2 + self.rng.below(2) as u8);
                let arr = VTy::A(self.rng.pick(&[Ty::Int, Ty::UInt]), 2 + self.rng.below(2) as u8);
                let mut fields = vec![("v".to_string(), vec), ("arr".to_string(), arr)];
                fields.push(("k".to_string(), VTy::S(self.rng.pick(&[Ty::Int, Ty::UInt]))));
                if self.rng.chance(50) {
                    fields.push(("f".to_string(), VTy::S(Ty::Float)));
                }
                if k == 1 && self.rng.chance(50) {
                    // A struct member (nested initializers, paths two deep).
                    fields.truncate(2);
                    fields.push(("inner".to_string(), VTy::St(0)));
                }
                // Shuffle the field order a little.
                if self.rng.chance(50) {
                    fields.swap(0, 2);
                }
                let name = format!("S{k}");
                let _ = writeln!(head, "struct {name} {{");
                for (f, t) in &fields {
                    let _ = writeln!(head, "  {};", self.decl(*t, f));
                }
                head.push_str("};\n\n");
                self.structs.push(StructDef { name, fields });
            }
        }
        if self.rng.chance(30) {
            for k in 0..1 + self.rng.below(2) {
                let ty = self.rng.pick(&[Ty::Int, Ty::UInt]);
                let rows = if self.rng.chance(25) { 2 } else { 0 };
                let len = self.rng.pick(&[3, 4, 4, 5, 8]);
                let name = format!("T{k}");
                let row = |g: &mut Gen| -> String {
                    let vals: Vec<String> = (0..len)
                        .map(|_| match ty {
                            Ty::Int => format!("{}", g.rng.below(2001) as i64 - 1000),
                            _ => format!("{}u", if g.rng.chance(20) { g.rng.next() as u32 } else { g.rng.below(1000) as u32 }),
                        })
                        .collect();
                    format!("{{ {} }}", vals.join(", "))
                };
                let init = if rows > 0 {
                    let rs: Vec<String> = (0..rows).map(|_| row(self)).collect();
                    format!("{{ {} }}", rs.join(", "))
                } else {
                    row(self)
                };
                let dims = if rows > 0 { format!("[{rows}][{len}]") } else { format!("[{len}]") };
                let _ = writeln!(head, "static const {} {name}{dims} = {init};", ty.name());
                self.tables.push(Table { name, ty, rows, len });
                self.features.add(F::Tables);
            }
        }
        let w = self.workgroup;
        if self.rng.chance(35) {
            for (name, ty, rows) in [("gsI", Ty::Int, 1), ("gsU", Ty::UInt, 1), ("gsF", Ty::Float, 1), ("gs2", Ty::UInt, 2)] {
                if self.rng.chance(40) || (name == "gs2" && self.shared.is_empty()) {
                    let dims = if rows > 1 { format!("[{rows}][{w}]") } else { format!("[{w}]") };
                    let _ = writeln!(head, "groupshared {} {name}{dims};", ty.name());
                    self.shared.push(Shared { name: name.into(), ty, rows });
                }
            }
            if self.rng.chance(50) {
                let all: [(&str, Ty, &str, u8); 6] = [
                    ("gaSum", Ty::UInt, "InterlockedAdd", 0),
                    ("gaMax", Ty::UInt, "InterlockedMax", 0),
                    ("gaOr", Ty::UInt, "InterlockedOr", 0),
                    ("gaXor", Ty::Int, "InterlockedXor", 0),
                    ("gaHist", Ty::UInt, "InterlockedAdd", 8),
                    // Signed min: a compare-and-swap loop on `wave`, refused by 0.1.2 (E0407).
                    ("gaMinI", Ty::Int, "InterlockedMin", 0),
                ];
                for (name, ty, op, len) in all {
                    let p = if name == "gaMinI" { 15 } else { 35 };
                    if self.rng.chance(p) {
                        let dims = if len > 0 { format!("[{len}]") } else { String::new() };
                        let _ = writeln!(head, "groupshared {} {name}{dims};", ty.name());
                        self.accs.push(Acc { name: name.into(), ty, op, len });
                    }
                }
            }
        }
        if self.rng.chance(20) {
            // Per-thread globals: the entry point's variables (helpers never see them).
            for k in 0..1 + self.rng.below(2) {
                let ty = self.rng.pick(&[Ty::Int, Ty::UInt]);
                let name = format!("g{k}");
                let _ = writeln!(head, "static {} {name} = {};", ty.name(), self.rng.pick(ty.literals()));
                self.statics.push((name, ty));
            }
        }
        self.buffer_atomics = self.rng.chance(25);
        self.wave_ops = self.rng.chance(20);
    }

    /// Bool-heavy programs (a third): 6 to 14 flags computed up front from
    /// the inputs, live through everything after (statements may read them;
    /// the final stores pack every top-level bool), so the forced budgets
    /// spill booleans across the program's pressure (as wave masks, or to
    /// local memory where masks cannot hold the wave).
    fn flags_prologue(&mut self) {
        if !self.flag_rng.chance(33) {
            return;
        }
        let n = 6 + self.flag_rng.below(9);
        for k in 0..n {
            let lit = self.flag_rng.below(41) as i32 - 20;
            let cond = match self.flag_rng.below(7) {
                0 => format!("a < {lit}"),
                1 => format!("d >= {lit}"),
                2 => "b > e".to_string(),
                3 => format!("c <= {lit}.5f"),
                4 => format!("(b & {}u) != 0u", 1u32 << self.flag_rng.below(8)),
                5 => "a == d || c > 0.0f".to_string(),
                _ => format!("(tid & {}u) == 0u", 1u32 << self.flag_rng.below(5)),
            };
            let name = format!("flag{k}");
            self.line(&format!("bool {name} = {cond};"));
            self.declare(&name, VTy::S(Ty::Bool), true);
        }
    }

    fn program(mut self) -> Program {
        let workgroup = self.rng.pick(&[32, 64, 64, 48]);
        self.workgroup = workgroup;
        let groups = 1 + self.rng.below(3) as u32;
        let mut head = String::new();
        self.declarations(&mut head);
        head.push_str("cbuffer Params : register(b0) {\n  uint cu;\n  int ci;\n  float cf;\n}\n");
        head.push_str("StructuredBuffer<int> InI : register(t0);\n");
        head.push_str("StructuredBuffer<uint> InU : register(t1);\n");
        head.push_str("StructuredBuffer<float> InF : register(t2);\n");
        head.push_str("RWStructuredBuffer<int> OutI : register(u0);\n");
        head.push_str("RWStructuredBuffer<uint> OutU : register(u1);\n");
        head.push_str("RWStructuredBuffer<float> OutF : register(u2);\n");
        if self.buffer_atomics {
            head.push_str("RWStructuredBuffer<uint> OutA : register(u3);\n");
        }
        head.push('\n');
        self.src = head;
        let helpers = match self.rng.below(20) {
            0..=5 => 0,
            6..=11 => 1,
            12..=16 => 2,
            _ => 3,
        };
        for _ in 0..helpers {
            self.helper_fn();
        }
        self.scopes = vec![Vec::new()];
        self.indent = 1;
        self.calls_left = 4;
        self.aggregates_left = 2;
        self.loop_depth = 0;
        self.if_depth = 0;
        self.switch_depth = 0;
        self.jump_depth = 0;
        let _ = writeln!(self.src, "[numthreads({workgroup}, 1, 1)]");
        self.src.push_str("void main(uint3 dtid : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID,\n");
        self.src.push_str("          uint gi : SV_GroupIndex) {\n");
        self.line("uint tid = dtid.x;");
        // Initial locals from the inputs.
        self.line("int a = InI[tid];");
        self.line("uint b = InU[tid];");
        self.line("float c = InF[tid];");
        self.line(&format!("int d = InI[(tid * 5u + 3u) & {}u];", INPUT_LEN - 1));
        self.line(&format!("uint e = InU[({}u - tid) & {}u];", INPUT_LEN - 1, INPUT_LEN - 1));
        for (n, t) in [("a", Ty::Int), ("b", Ty::UInt), ("c", Ty::Float), ("d", Ty::Int), ("e", Ty::UInt)] {
            self.declare(n, VTy::S(t), true);
        }
        for (n, t) in self.statics.clone() {
            self.declare(&n, VTy::S(t), true);
        }
        self.flags_prologue();
        self.budget = 10 + self.rng.below(20);
        // Workgroup phases and wave operations only at the top level, before any return.
        let mut phases = if self.shared.is_empty() && self.accs.is_empty() { 0 } else { 1 + self.rng.below(2) };
        let mut delay = self.rng.below(3);
        while self.budget > 0 {
            let uniform = !self.entry_returned;
            if uniform && phases > 0 && (delay == 0 || self.rng.chance(30)) {
                self.barrier_phase();
                phases -= 1;
                continue;
            }
            delay = delay.saturating_sub(1);
            if uniform && self.wave_ops && self.rng.chance(20) {
                self.fx_reset();
                self.wave_stmt();
            }
            self.stmt();
        }
        let bools: Vec<String> = self.scopes[0]
            .iter()
            .filter(|v| v.ty == VTy::S(Ty::Bool))
            .enumerate()
            .map(|(i, v)| format!("((uint){} << {i}u)", v.name))
            .collect();
        let packed = if bools.is_empty() { None } else { Some(bools.join(" | ")) };
        self.final_stores(Ty::Int, "OutI", None);
        self.final_stores(Ty::UInt, "OutU", packed);
        self.final_stores(Ty::Float, "OutF", None);
        self.src.push_str("}\n");
        Program { source: self.src, workgroup, groups, features: self.features, wave_dependent: self.wave_dependent }
    }
}

// ---- inputs and the pipeline ------------------------------------------------

fn input_words(rng: &mut Rng, ty: Ty) -> Vec<u32> {
    (0..INPUT_LEN)
        .map(|_| match ty {
            Ty::Float => {
                // Quarter steps in [-100, 100], some zeros of both signs.
                match rng.below(20) {
                    0 => 0.0f32.to_bits(),
                    1 => (-0.0f32).to_bits(),
                    _ => ((rng.below(801) as f32 - 400.0) / 4.0).to_bits(),
                }
            }
            _ => match rng.below(10) {
                0 => rng.pick(&[0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff, 0x8000_0001]),
                1..=5 => (rng.below(41) as i32 - 20) as u32,
                6 | 7 => rng.below(1000) as u32,
                _ => rng.next() as u32,
            },
        })
        .collect()
}

fn hex_list(words: &[u32]) -> String {
    words.iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(", ")
}

/// The output buffers, in the order of `Outputs`; `OutA` (buffer atomics) is
/// placed only when the kernel uses it.
const OUT_NAMES: [&str; 4] = ["OutI", "OutU", "OutF", "OutA"];

/// The pipeline: inputs (Hex32, so every bit is exact) and the output buffers.
fn pipeline_for(prog: &Program, seed: u64) -> Pipeline {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let threads = prog.workgroup * prog.groups;
    let params = [rng.below(8) as u32, (rng.below(41) as i32 - 20) as u32, ((rng.below(81) as f32 - 40.0) / 8.0).to_bits()];
    let ins = [input_words(&mut rng, Ty::Int), input_words(&mut rng, Ty::UInt), input_words(&mut rng, Ty::Float)];
    let out_bytes = threads * SLOTS * 4;
    let mut y = String::new();
    let _ = writeln!(y, "---\nShaders:\n  - Stage: Compute\n    Entry: main");
    let _ = writeln!(y, "DispatchParameters: {{ DispatchGroupCount: [{}, 1, 1] }}", prog.groups);
    y.push_str("Buffers:\n");
    let _ = writeln!(y, "  - {{ Name: Params, Format: Hex32, Data: [ {} ] }}", hex_list(&params));
    for (name, words) in ["InI", "InU", "InF"].iter().zip(&ins) {
        let _ = writeln!(y, "  - {{ Name: {name}, Format: Hex32, Data: [ {} ] }}", hex_list(words));
    }
    for name in ["OutI", "OutU", "OutF"] {
        let _ = writeln!(y, "  - {{ Name: {name}, Format: Hex32, FillSize: {out_bytes}, FillValue: {FILL:#x} }}");
    }
    let _ = writeln!(y, "  - {{ Name: OutA, Format: Hex32, FillSize: {}, FillValue: {FILL:#x} }}", ACC_WORDS * 4);
    y.push_str("DescriptorSets:\n  - Resources:\n");
    let _ = writeln!(y, "    - {{ Name: Params, Kind: ConstantBuffer, DirectXBinding: {{ Register: 0, Space: 0 }} }}");
    for (i, name) in ["InI", "InU", "InF"].iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: StructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    for (i, name) in OUT_NAMES.iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    y.push_str("...\n");
    run::parse_pipeline(&y).unwrap_or_else(|e| panic!("generated pipeline does not parse: {}\n{y}", e.message))
}

// ---- running ----------------------------------------------------------------

/// The output buffers after a run, in the order of `OUT_NAMES` (empty when
/// the kernel does not use the buffer).
type Outputs = Vec<Vec<u8>>;

fn outputs_from(p: &Pipeline, read: impl Fn(usize) -> Result<Option<Vec<u8>>, String>) -> Result<Outputs, String> {
    OUT_NAMES.iter().map(|n| read(p.buffer_index(n).expect("output buffer")).map(Option::unwrap_or_default)).collect()
}

/// Runs on our simulator with the wave width and machine model of `opts.target`, in strict mode.
fn run_wavesim(p: &Pipeline, c: &Compiled, opts: &CompileOptions, source: &SourceFile) -> Result<Outputs, String> {
    let isa = opts.isa;
    let layout = run::layout(p, &c.interface).map_err(|e| e.message)?;
    let program =
        wavesim::parse(&c.asm, isa.sim_profile()).map_err(|e| format!("wavesim rejected the listing at line {}: {}", e.line, e.message))?;
    let kernel = program.kernel(&c.interface.kernel).ok_or("the listing has no kernel `main`")?;
    let mut cfg = run::sim_config(&opts.target, isa, &c.occupancy, 5_000_000);
    // Every read of a register must see a value the lane wrote (catches allocation bugs).
    cfg.strict = true;
    let launch = wavesim::Launch { grid: p.dispatch, workgroup_size: c.interface.workgroup_size, args: layout.args.clone() };
    let mut mem = layout.memory(p);
    wavesim::run(kernel, &cfg, &launch, &mut mem).map_err(|f| run::describe_fault(&f, source))?;
    outputs_from(p, |b| match layout.placement(b) {
        Some(pl) => Ok(Some(mem.read(pl.address, pl.size as usize)?.to_vec())),
        None => Ok(None),
    })
}

fn run_wave_emu(p: &Pipeline, c: &Compiled) -> Result<Outputs, String> {
    let layout = run::layout(p, &c.interface).map_err(|e| e.message)?;
    let done = run_on_wave_emu(p, c, 5_000_000)?;
    outputs_from(p, |b| Ok(layout.placement(b).map(|_| done.buffers[b].data.clone())))
}

/// The first element where `b` differs from `a`, described.
fn first_difference(a: &Outputs, b: &Outputs) -> Option<String> {
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if let Some(i) = (0..x.len().min(y.len()) / 4).find(|&i| x[i * 4..i * 4 + 4] != y[i * 4..i * 4 + 4]) {
            let word = |v: &[u8]| u32::from_le_bytes(v[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
            let show = |w: u32| match k {
                0 => format!("{} ({w:#010x})", w as i32),
                2 => format!("{:?} ({w:#010x})", f32::from_bits(w)),
                _ => format!("{w} ({w:#010x})"),
            };
            let place = if k == 3 { String::new() } else { format!(" (thread {}, slot {})", i as u32 / SLOTS, i as u32 % SLOTS) };
            return Some(format!("{}[{i}]{place}: reference {}, this variant {}", OUT_NAMES[k], show(word(x)), show(word(y))));
        }
        if x.len() != y.len() {
            return Some(format!("{}: {} bytes vs {}", OUT_NAMES[k], x.len(), y.len()));
        }
    }
    None
}

/// Runs of one program, by backend.
#[derive(Default, Clone, Copy)]
struct Runs {
    /// wavesim, `wave` listings, 32-wide.
    wave32: usize,
    /// wavesim, `wave-0.1.2` listings.
    sim012: usize,
    /// wave-emu 0.1.2.
    emu012: usize,
    /// wavesim, `gcn` listings, 64-wide.
    wave64: usize,
    /// wavesim, forced low register budgets (both profiles).
    spilled: usize,
    /// Of the forced-budget listings: with local-memory spills, lane banks, rematerialization.
    with_slots: usize,
    with_banks: usize,
    with_remat: usize,
    /// Of those, with booleans kept as wave masks.
    with_masks: usize,
}

/// Outcome of one program: `Err` describes a failure.
struct Checked {
    runs: Runs,
    /// Why the `wave-0.1.2` listings were refused (E0403, E0406, E0407), if they were.
    refused012: Option<&'static str>,
    /// `.registers` of the `wave` -O0 listing.
    registers: u32,
    /// `.registers` of the `wave-0.1.2` -O0 listing, when it compiled.
    registers012: Option<u32>,
    /// Distinct 32-bit words written (the fill value excluded).
    distinct: usize,
    /// Elements still holding the fill value.
    unwritten: usize,
    total: usize,
}

/// What `wave-0.1.2` refuses by design: more than 32 registers, CAS, signed atomic min/max.
const REFUSED_ON_012: [&str; 3] = ["E0403", "E0406", "E0407"];
/// `--max-registers` of the forced-spilling runs (raised by the compiler where
/// one instruction needs more).
const LOW_BUDGET: u32 = 12;
const LOW_BUDGET_012: u32 = 5;

struct Variant {
    label: String,
    /// Wave width of the run.
    width: u32,
    compiled: Compiled,
    out: Outputs,
}

/// `check_program` for seeds `first..first + count`, spread over the machine's
/// threads; results in seed order. After three failures no new seed starts (as
/// the serial loop stopped at its third), so a broken compiler fails fast.
fn check_programs_in_parallel(first: u64, count: u64) -> Vec<(Program, Result<Checked, String>, std::time::Duration)> {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    let next = AtomicU64::new(first);
    let failed = AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                if failed.load(Ordering::Relaxed) >= 3 {
                    break;
                }
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= first + count {
                    break;
                }
                let t0 = std::time::Instant::now();
                let (prog, result) = check_program(seed);
                if result.is_err() {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
                done.lock().unwrap().push((seed, prog, result, t0.elapsed()));
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|d| d.0);
    // Keep the seeds in an unbroken run from `first` (a gap only follows a failure).
    let mut out = Vec::new();
    for (i, (seed, prog, result, elapsed)) in done.into_iter().enumerate() {
        if seed != first + i as u64 {
            break;
        }
        out.push((prog, result, elapsed));
    }
    out
}

fn check_program(seed: u64) -> (Program, Result<Checked, String>) {
    let prog = Gen::new(seed).program();
    let pipeline = pipeline_for(&prog, seed);
    let file = SourceFile::new("random.hlsl", &prog.source);
    let result = (|| {
        let mut variants: Vec<Variant> = Vec::new();
        let mut runs = Runs::default();
        let mut refused012 = None;
        // The four listings on the generic target (W=32), then the -O spec listing
        // for `gcn` (W=64) as one more simulator run with other waves (and the
        // -O0 one when results depend on the wave width).
        let mut configs = vec![
            (Isa::Wave, OptLevel::O0, "generic", None),
            (Isa::Wave, OptLevel::O, "generic", None),
            (Isa::Wave012, OptLevel::O0, "generic", None),
            (Isa::Wave012, OptLevel::O, "generic", None),
            (Isa::Wave, OptLevel::O, "gcn", None),
            // Forced low register budgets: spilling (local memory, lane banks,
            // rematerialization) must not change results, on wave-emu 0.1.2 too.
            (Isa::Wave, OptLevel::O, "generic", Some(LOW_BUDGET)),
            (Isa::Wave012, OptLevel::O, "generic", Some(LOW_BUDGET_012)),
        ];
        if prog.wave_dependent {
            configs.push((Isa::Wave, OptLevel::O0, "gcn", None));
        }
        for (isa, opt, target, budget) in configs {
            let mut label = format!("--isa {} {} --target {target}", isa.name(), if opt == OptLevel::O0 { "-O0" } else { "-O" });
            if let Some(b) = budget {
                let _ = write!(label, " --max-registers {b}");
            }
            let mut opts = options(isa, opt);
            opts.target = wavec::target::preset(target).expect("target preset");
            opts.max_registers = budget;
            let width = opts.target.wave_width;
            let compiled = match catch_unwind(AssertUnwindSafe(|| compile_with(&file, &opts, true))) {
                Err(_) => return Err(format!("{label}: the compiler panicked")),
                // A spill area larger than the target's local memory is a refusal at a forced budget.
                Ok(Err(d)) if budget.is_some() && d.len() == 1 && d[0].code == "E0408" => continue,
                Ok(Err(d)) if isa == Isa::Wave012 && d.len() == 1 && REFUSED_ON_012.contains(&d[0].code) => {
                    refused012 = Some(d[0].code);
                    continue;
                }
                Ok(Err(d)) => return Err(format!("{label}: does not compile:\n{}", render(&file, &d))),
                Ok(Ok(c)) => c,
            };
            let sim = run_wavesim(&pipeline, &compiled, &opts, &file).map_err(|e| format!("{label} on wavesim: {e}"))?;
            match (isa, width) {
                _ if budget.is_some() => {
                    runs.spilled += 1;
                    let header = compiled.asm.lines().find(|l| l.starts_with("; spill code:")).unwrap_or("");
                    runs.with_slots += header.contains("local memory") as usize;
                    runs.with_banks += header.contains("lane bank") as usize;
                    runs.with_remat += header.contains("rematerialized") as usize;
                    runs.with_masks += header.contains("boolean mask") as usize;
                }
                (Isa::Wave012, _) => runs.sim012 += 1,
                (_, 32) => runs.wave32 += 1,
                _ => runs.wave64 += 1,
            }
            let emu = if isa == Isa::Wave012 {
                runs.emu012 += 1;
                Some(run_wave_emu(&pipeline, &compiled).map_err(|e| format!("{label} on wave-emu 0.1.2: {e}"))?)
            } else {
                None
            };
            variants.push(Variant { label: format!("{label} on wavesim"), width, compiled: compiled.clone(), out: sim });
            if let Some(emu) = emu {
                variants.push(Variant { label: format!("{label} on wave-emu 0.1.2 (W=32)"), width: 32, compiled, out: emu });
            }
        }
        // Runs compare with the first run of the same wave width when results
        // depend on it, else with the first run of all.
        let reference_for = |w: u32| -> usize {
            if prog.wave_dependent {
                variants.iter().position(|v| v.width == w).expect("a run of this width")
            } else {
                0
            }
        };
        let mut report = String::new();
        let mut references = Vec::new();
        for (i, v) in variants.iter().enumerate() {
            let r = reference_for(v.width);
            if r == i {
                continue;
            }
            if let Some(diff) = first_difference(&variants[r].out, &v.out) {
                let _ = writeln!(report, "{} differs from {}: {diff}", v.label, variants[r].label);
                let _ = writeln!(report, "--- listing, {}:\n{}", v.label, v.compiled.asm);
                if !references.contains(&r) {
                    references.push(r);
                }
            }
        }
        if !report.is_empty() {
            for r in references {
                let _ = writeln!(report, "--- listing, {} (reference):\n{}", variants[r].label, variants[r].compiled.asm);
            }
            return Err(report);
        }
        let reference = &variants[0].out;
        let words: Vec<u32> =
            reference.iter().flat_map(|b| b.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))).collect();
        let distinct = words.iter().filter(|&&w| w != FILL).collect::<HashSet<_>>().len();
        let unwritten = words.iter().filter(|&&w| w == FILL).count();
        let registers = variants[0].compiled.interface.registers;
        let registers012 = variants.iter().find(|v| v.label.starts_with("--isa wave-0.1.2 -O0")).map(|v| v.compiled.interface.registers);
        Ok(Checked { runs, refused012, registers, registers012, distinct, unwritten, total: words.len() })
    })();
    (prog, result)
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn random_programs_agree_across_isas_opt_levels_and_emulators() {
    let count = env_u64("WAVEC_DIFFTEST_PROGRAMS", PROGRAMS);
    let first = env_u64("WAVEC_DIFFTEST_SEED", FIRST_SEED);
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut varied = 0;
    let mut distinct_total = 0;
    let mut written = 0;
    let mut total = 0;
    let mut max_registers = 0;
    let mut max_registers012 = 0;
    let mut runs = Runs::default();
    let mut on012 = 0;
    let mut refused: Vec<(&str, usize)> = REFUSED_ON_012.iter().map(|&c| (c, 0)).collect();
    let mut wave_dependent = 0;
    // Per construct: total uses, and programs using it.
    let mut uses = [0usize; NF];
    let mut programs_with = [0usize; NF];
    // Programs are independent: check them on every thread the machine has,
    // then fold the results in seed order so that the report stays deterministic.
    let checked = check_programs_in_parallel(first, count);
    for (seed, (prog, result, elapsed)) in (first..).zip(checked) {
        if std::env::var_os("WAVEC_DIFFTEST_TIMES").is_some() {
            let regs = match &result {
                Ok(c) => format!(
                    ", {} registers on `wave` -O0{}",
                    c.registers,
                    c.refused012.map_or(String::new(), |r| format!(", refused by 0.1.2 ({r})"))
                ),
                Err(_) => String::new(),
            };
            eprintln!("seed {seed}: {elapsed:.1?}{regs}");
        }
        for (i, &x) in prog.features.0.iter().enumerate() {
            uses[i] += x;
            programs_with[i] += (x > 0) as usize;
        }
        wave_dependent += prog.wave_dependent as usize;
        match result {
            Ok(c) => {
                // The final stores write at least one value per thread that depends on its inputs.
                if c.distinct >= 8 {
                    varied += 1;
                }
                distinct_total += c.distinct;
                max_registers = max_registers.max(c.registers);
                max_registers012 = max_registers012.max(c.registers012.unwrap_or(0));
                runs.wave32 += c.runs.wave32;
                runs.sim012 += c.runs.sim012;
                runs.emu012 += c.runs.emu012;
                runs.wave64 += c.runs.wave64;
                runs.spilled += c.runs.spilled;
                runs.with_slots += c.runs.with_slots;
                runs.with_banks += c.runs.with_banks;
                runs.with_remat += c.runs.with_remat;
                runs.with_masks += c.runs.with_masks;
                on012 += (c.runs.emu012 > 0) as usize;
                if let Some(code) = c.refused012 {
                    refused.iter_mut().find(|r| r.0 == code).expect("a refusal code").1 += 1;
                }
                written += c.total - c.unwritten;
                total += c.total;
            }
            Err(e) => {
                failures.push(format!(
                    "seed {seed} ({} threads per group, {} groups):\n{}\n--- program:\n{}",
                    prog.workgroup, prog.groups, e, prog.source
                ));
                if failures.len() >= 3 {
                    break;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} random programs disagree or fail:\n\n{}", failures.len(), failures.join("\n==========\n"));
    let all_runs = runs.wave32 + runs.sim012 + runs.emu012 + runs.wave64 + runs.spilled;
    eprintln!(
        "{count} random programs ({all_runs} runs) agree in {:.1?}; {written} of {total} output words written, {distinct_total} distinct values in all",
        start.elapsed()
    );
    eprintln!(
        "runs: {} wavesim `wave` (W=32), {} wavesim `wave-0.1.2`, {} wave-emu 0.1.2, {} wavesim `gcn` (W=64); \
         {on012} programs ran on wave-emu 0.1.2, {wave_dependent} depend on the wave width",
        runs.wave32, runs.sim012, runs.emu012, runs.wave64
    );
    eprintln!(
        "forced low budgets: {} runs; spill code with local memory in {}, lane banks in {}, rematerialization in {}, boolean masks in {}",
        runs.spilled, runs.with_slots, runs.with_banks, runs.with_remat, runs.with_masks
    );
    assert!(
        runs.with_slots > 0 && runs.with_banks > 0 && runs.with_remat > 0 && runs.with_masks > 0,
        "the forced budgets exercised too little spill code"
    );
    eprintln!(
        "not run on wave-0.1.2: {}; at most {max_registers} registers on `wave` -O0, {max_registers012} on `wave-0.1.2` -O0",
        refused.iter().map(|(c, n)| format!("{n} ({c})")).collect::<Vec<_>>().join(", ")
    );
    let mut line = String::from("constructs (programs using / uses):");
    for i in 0..NF {
        let _ = write!(line, "{} {}: {}/{}", if i == 0 { "" } else { "," }, F_NAMES[i], programs_with[i], uses[i]);
    }
    eprintln!("{line}");
    // The check means little if the programs compute nothing.
    assert!(varied as u64 >= count * 9 / 10, "only {varied} of {count} programs wrote 8 or more distinct values");
    assert!(written * 4 >= total, "only {written} of {total} output words were written");
    // Most programs fit `wave-0.1.2`, so the comparison with wave-emu 0.1.2 still happens.
    assert!(on012 as u64 * 10 >= count * 6, "only {on012} of {count} programs ran on wave-emu 0.1.2");
    if count >= 100 {
        let missing: Vec<&str> = (0..NF).filter(|&i| programs_with[i] == 0).map(|i| F_NAMES[i]).collect();
        assert!(missing.is_empty(), "the generator misses constructs: {missing:?}");
    }
}

/// The comparison is not vacuous: a listing in the spec profile, whose integer
/// `cvt` names wave-emu 0.1.2 reads the other way round, gives other buffers there.
#[test]
fn comparison_notices_a_wrong_listing() {
    // The first 10 programs whose spec listing converts integers to floats and
    // still runs to the end on wave-emu 0.1.2 (many use what 0.1.2 lacks).
    let (mut checked, mut noticed) = (0, 0);
    for seed in 1..=200 {
        let prog = Gen::new(seed).program();
        let pipeline = pipeline_for(&prog, seed);
        let file = SourceFile::new("random.hlsl", &prog.source);
        let opts = options(Isa::Wave, OptLevel::O);
        let compiled = compile_text("random.hlsl", &prog.source, &opts);
        if !compiled.asm.contains("cvt_f32_i32") && !compiled.asm.contains("cvt_i32_f32") {
            continue;
        }
        let reference = run_wavesim(&pipeline, &compiled, &opts, &file).expect("runs on wavesim");
        if let Ok(emu) = run_wave_emu(&pipeline, &compiled) {
            checked += 1;
            if first_difference(&reference, &emu).is_some() {
                noticed += 1;
            }
            if checked == 10 {
                break;
            }
        }
    }
    assert!(noticed >= 3, "only {noticed} of {checked} spec-profile listings gave other buffers on wave-emu 0.1.2");
}

/// The generator is deterministic: the same seed gives the same program.
#[test]
fn generator_is_deterministic() {
    for seed in [1, 77, 4242] {
        assert_eq!(Gen::new(seed).program().source, Gen::new(seed).program().source);
    }
    assert_ne!(Gen::new(1).program().source, Gen::new(2).program().source);
    // Debugging aid: show the program a failing seed generated.
    if let Some(seed) = std::env::var("WAVEC_DIFFTEST_PRINT").ok().and_then(|s| s.parse().ok()) {
        println!("{}", Gen::new(seed).program().source);
    }
}

/// Random 16-bit programs (`half16.rs`) give identical buffers packed two per
/// register and unpacked, at -O0 and -O, at forced low budgets (halves
/// spilled), on both profiles and on wave-emu 0.1.2.
#[test]
fn random_16bit_programs_agree_packed_and_unpacked() {
    let count = env_u64("WAVEC_DIFFTEST_PROGRAMS16", 24);
    let first = env_u64("WAVEC_DIFFTEST_SEED", FIRST_SEED);
    let (mut packed, mut spilled, mut bfi, mut failures) = (0, 0, 0, Vec::new());
    for seed in first..first + count {
        match half16::check(seed) {
            Ok((p, s, b)) => {
                packed += p;
                spilled += s;
                bfi += b;
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!("{count} 16-bit programs: {packed} listings with halves, {spilled} of them spilling halves; {bfi} wave-0.1.2 listings packing with bfi");
    assert!(failures.is_empty(), "{} of {count} programs failed:\n{}", failures.len(), failures.join("\n\n"));
    // Packing is on in every `wave` listing but the unpacked ones (at least four per program).
    assert!(packed >= 4 * count as usize, "only {packed} listings used halves");
    assert!(spilled > 0, "no listing spilled a half");
}
