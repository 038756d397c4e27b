//! Random-program differential testing (design.md §9: "random programs agree
//! across optimization levels").
//!
//! A small deterministic generator (xorshift, seeded per program) writes
//! well-typed compute kernels in the subset the front end accepts: int, uint,
//! float and bool locals, thread ids, a cbuffer, loads from read-only buffers at
//! computed indices, arithmetic, bitwise ops, shifts, comparisons, `&&`/`||`/`!`,
//! `?:`, casts, constant subexpressions (for the folder at -O), nested
//! if/else-if/else on divergent conditions, bounded `for`/`while`/`do`-`while`
//! loops (nested up to two deep) with `break`/`continue` inside ifs, early
//! `return`, swaps and rotations of variables (cycles of block arguments), and
//! stores to per-thread slots of three output buffers (int, uint, float).
//! Some loads use an index that is only in range when the `&&`, `||` or `?:`
//! guarding them says so: evaluating them anyway would fault.
//!
//! The programs avoid undefined behaviour, so their results are well defined:
//! divisors are odd or nonzero literals (never -1), shift counts are masked with
//! `& 31`, float variables are clamped to +-1e4 after every assignment and float
//! expressions are shallow (no overflow, so no inf or NaN), float -> int casts only
//! see clamped values (float -> uint only non-negative ones), and loops have small
//! bounds with their counter advanced before any `continue`.
//!
//! Each program is compiled for `wave` and `wave-0.1.2`, at -O0 and -O (four
//! listings), run on our simulator (four runs) and the two `wave-0.1.2` listings
//! also on wave-emu 0.1.2 (two more); the -O `wave` listing for target `gcn` runs
//! on our simulator with 64-wide waves (one more). There is no expected buffer:
//! all seven output buffers must be byte-identical. A compile error is a failure too (the
//! generator only writes valid programs that fit `wave-0.1.2`'s 32 registers).
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

/// Default number of programs and first seed.
const PROGRAMS: u64 = 150;
const FIRST_SEED: u64 = 1;

/// Output slots per thread in each output buffer: 0..4 get the top-level
/// variables at the end, 4..8 the stores made along the way.
const SLOTS: u32 = 8;
/// Elements of each input buffer (a power of two: computed indices are masked).
const INPUT_LEN: u32 = 256;
/// What output buffers hold before the kernel runs.
const FILL: u32 = 0xdead_beef;

// ---- program generator ------------------------------------------------------

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
}

struct Var {
    name: String,
    ty: Ty,
    /// Loop counters and ids are read-only.
    writable: bool,
}

/// Which constructs a program used (for the coverage summary).
#[derive(Default, Clone, Copy)]
struct Features {
    loops: usize,
    nested_loops: usize,
    breaks: usize,
    continues: usize,
    returns: usize,
    ifs: usize,
    divisions: usize,
    float_to_int: usize,
}

struct Gen {
    rng: Rng,
    src: String,
    indent: usize,
    scopes: Vec<Vec<Var>>,
    next_id: usize,
    loop_depth: usize,
    if_depth: usize,
    /// Statements left to generate.
    budget: usize,
    /// Leaves are literals only (constant subexpressions exercise the folder at -O).
    constant: bool,
    features: Features,
}

/// A generated kernel and its dispatch.
struct Program {
    source: String,
    workgroup: u32,
    groups: u32,
    features: Features,
}

const INT_LITERALS: &[&str] =
    &["0", "1", "2", "3", "7", "-1", "-5", "100", "-1000", "65535", "2147483647", "-2147483647", "0x5a5a", "0x7ffffff0", "-31", "33"];
const UINT_LITERALS: &[&str] =
    &["0u", "1u", "3u", "31u", "32u", "255u", "0x80000000u", "0xffffffffu", "0xfffffffeu", "0x12345678u", "0x7fffffffu", "16777217u"];
const FLOAT_LITERALS: &[&str] =
    &["0.0f", "1.0f", "-1.0f", "0.5f", "-0.25f", "3.0f", "1.5f", "-2.75f", "10.0f", "100.0f", "0.1f", "-7.125f"];
const CMP_OPS: &[&str] = &["==", "!=", "<", "<=", ">", ">="];

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            src: String::new(),
            indent: 1,
            scopes: vec![Vec::new()],
            next_id: 0,
            loop_depth: 0,
            if_depth: 0,
            budget: 0,
            constant: false,
            features: Features::default(),
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

    fn declare(&mut self, name: &str, ty: Ty, writable: bool) {
        self.scopes.last_mut().expect("a scope").push(Var { name: name.to_string(), ty, writable });
    }

    fn vars(&self, ty: Ty, writable_only: bool) -> Vec<String> {
        self.scopes.iter().flatten().filter(|v| v.ty == ty && (v.writable || !writable_only)).map(|v| v.name.clone()).collect()
    }

    fn var(&mut self, ty: Ty) -> Option<String> {
        let vs = self.vars(ty, false);
        if vs.is_empty() {
            None
        } else {
            Some(vs[self.rng.below(vs.len())].clone())
        }
    }

    // -- expressions --

    /// A buffer index in range: `(e & 255u)` or the thread id.
    fn index(&mut self) -> String {
        if self.rng.chance(40) {
            "tid".to_string()
        } else {
            let e = self.expr(Ty::UInt, 1);
            format!("({e} & {}u)", INPUT_LEN - 1)
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        if self.constant {
            return match ty {
                Ty::Int => self.rng.pick(INT_LITERALS).to_string(),
                Ty::UInt => self.rng.pick(UINT_LITERALS).to_string(),
                Ty::Float => self.rng.pick(FLOAT_LITERALS).to_string(),
                Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
            };
        }
        match ty {
            Ty::Int => match self.rng.below(10) {
                0..=4 => self.var(Ty::Int).unwrap_or_else(|| "ci".into()),
                5 | 6 => self.rng.pick(INT_LITERALS).to_string(),
                7 => "ci".into(),
                8 => self.guarded_load(Ty::Int),
                _ => {
                    let i = self.index();
                    format!("InI[{i}]")
                }
            },
            Ty::UInt => match self.rng.below(12) {
                0..=4 => self.var(Ty::UInt).unwrap_or_else(|| "tid".into()),
                5 | 6 => self.rng.pick(UINT_LITERALS).to_string(),
                7 => self.rng.pick(&["tid", "gtid.x", "gid.x", "gi", "dtid.x"]).to_string(),
                8 => "cu".into(),
                9 => self.guarded_load(Ty::UInt),
                _ => {
                    let i = self.index();
                    format!("InU[{i}]")
                }
            },
            // Every float leaf is at most 1e4 in magnitude (see `float_expr`).
            Ty::Float => match self.rng.below(12) {
                0..=4 => self.var(Ty::Float).unwrap_or_else(|| "cf".into()),
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
                0..=3 => self.var(Ty::Bool).unwrap_or_else(|| "(tid < 7u)".into()),
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

    /// A variable, id or literal of `ty` (no loads: it may be written several times).
    fn simple_leaf(&mut self, ty: Ty) -> String {
        if self.constant || self.rng.chance(20) {
            return match ty {
                Ty::Int => self.rng.pick(INT_LITERALS).to_string(),
                Ty::UInt => self.rng.pick(UINT_LITERALS).to_string(),
                Ty::Float => self.rng.pick(FLOAT_LITERALS).to_string(),
                Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
            };
        }
        match ty {
            Ty::UInt if self.rng.chance(30) => self.rng.pick(&["tid", "gtid.x", "gid.x", "gi", "cu"]).to_string(),
            Ty::Int => self.var(ty).unwrap_or_else(|| "ci".into()),
            Ty::UInt => self.var(ty).unwrap_or_else(|| "tid".into()),
            Ty::Float => self.var(ty).unwrap_or_else(|| "cf".into()),
            Ty::Bool => self.var(ty).unwrap_or_else(|| "(tid < 7u)".into()),
        }
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
            0 => self.rng.pick(&["3", "7", "-2", "-9", "16", "1", "1000"]).to_string(),
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
            0 => self.rng.pick(&["3u", "10u", "16u", "0x80000001u", "0xfffffffeu"]).to_string(),
            _ => {
                let e = self.expr(Ty::UInt, 1);
                format!("({e} | 1u)")
            }
        }
    }

    /// A clamped float leaf (at most 1e4 in magnitude) converted to int or uint.
    fn float_to_integer(&mut self, to: Ty) -> String {
        self.features.float_to_int += 1;
        let f = self.simple_leaf(Ty::Float);
        match to {
            Ty::Int => format!("(int)({f})"),
            // Only non-negative values convert to uint.
            _ => format!("(uint)({f} < 0.0f ? -({f}) : {f})"),
        }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
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
                match self.rng.below(16) {
                    0..=4 => {
                        let op = self.rng.pick(&["+", "-", "*", "&", "|", "^", "+", "-"]);
                        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                        format!("({a} {op} {b})")
                    }
                    5 => {
                        self.features.divisions += 1;
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
                            let mask = if ct == Ty::Int { "31" } else { "31u" };
                            format!("({a} {op} ({b} & {mask}))")
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
                    _ => {
                        let c = self.expr(Ty::Bool, d.min(2));
                        let (a, b) = (self.expr(ty, d), self.expr(ty, d));
                        format!("({c} ? {a} : {b})")
                    }
                }
            }
            Ty::Bool => match self.rng.below(10) {
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
                _ => self.leaf(Ty::Bool),
            },
            Ty::Float => unreachable!(),
        }
    }

    fn float_expr(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(Ty::Float);
        }
        let d = depth - 1;
        match self.rng.below(8) {
            0..=4 => {
                let op = self.rng.pick(&["+", "-", "*"]);
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("({a} {op} {b})")
            }
            5 => {
                let a = self.float_expr(d);
                format!("(- {a})")
            }
            _ => {
                let c = self.expr(Ty::Bool, d.min(2));
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("({c} ? {a} : {b})")
            }
        }
    }

    // -- statements --

    fn clamp_float(&mut self, v: &str) {
        self.line(&format!("{v} = {v} > 10000.0f ? 10000.0f : ({v} < -10000.0f ? -10000.0f : {v});"));
    }

    fn assign(&mut self, v: &str, ty: Ty) {
        let compound = self.rng.chance(35) && ty != Ty::Bool;
        if compound {
            match ty {
                Ty::Float => {
                    let op = self.rng.pick(&["+=", "-=", "*="]);
                    let e = self.expr(Ty::Float, 2);
                    self.line(&format!("{v} {op} {e};"));
                }
                _ => {
                    let mask = if ty == Ty::Int { "31" } else { "31u" };
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
                            self.features.divisions += 1;
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
            self.clamp_float(v);
        }
    }

    fn declare_local(&mut self) {
        let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Bool, Ty::Int, Ty::UInt]);
        let name = self.fresh(match ty {
            Ty::Int => "i",
            Ty::UInt => "u",
            Ty::Float => "f",
            Ty::Bool => "b",
        });
        let e = self.expr(ty, 3);
        self.line(&format!("{} {name} = {e};", ty.name()));
        if ty == Ty::Float {
            self.clamp_float(&name);
        }
        self.declare(&name, ty, true);
    }

    fn store(&mut self) {
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
        self.declare(&t, ty, true);
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

    /// An `if` whose then-block may end with `break`, `continue` or `return`.
    fn if_stmt(&mut self) {
        self.features.ifs += 1;
        let c = self.expr(Ty::Bool, 3);
        self.line(&format!("if ({c}) {{"));
        self.if_depth += 1;
        let n = 1 + self.rng.below(3);
        self.block(n);
        // A jump ends the block (nothing after it would run).
        let jump = if self.loop_depth > 0 && self.rng.chance(45) {
            if self.rng.chance(50) {
                self.features.breaks += 1;
                Some("break;")
            } else {
                self.features.continues += 1;
                Some("continue;")
            }
        } else if self.rng.chance(4) {
            self.features.returns += 1;
            Some("return;")
        } else {
            None
        };
        if let Some(j) = jump {
            self.indent += 1;
            self.line(j);
            self.indent -= 1;
        }
        if self.rng.chance(15) {
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
        self.features.loops += 1;
        if self.loop_depth > 0 {
            self.features.nested_loops += 1;
        }
        self.loop_depth += 1;
        let n = 1 + self.rng.below(4);
        match self.rng.below(5) {
            0 | 1 => {
                let k = self.fresh("k");
                let bound = self.loop_bound();
                let step = if self.rng.chance(25) { format!("{k} += {}u", 2 + self.rng.below(2)) } else { format!("{k}++") };
                self.line(&format!("for (uint {k} = 0u; {k} < {bound}; {step}) {{"));
                self.scopes.push(vec![Var { name: k, ty: Ty::UInt, writable: false }]);
                self.block(n);
                self.scopes.pop();
                self.line("}");
            }
            2 => {
                // Counting down, signed.
                let k = self.fresh("k");
                let start = self.rng.below(7);
                self.line(&format!("for (int {k} = {start}; {k} >= 0; {k}--) {{"));
                self.scopes.push(vec![Var { name: k, ty: Ty::Int, writable: false }]);
                self.block(n);
                self.scopes.pop();
                self.line("}");
            }
            3 => {
                let w = self.fresh("w");
                let bound = self.loop_bound();
                self.line(&format!("uint {w} = 0u;"));
                self.declare(&w, Ty::UInt, false);
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
            _ => {
                let w = self.fresh("w");
                let bound = self.loop_bound();
                self.line(&format!("uint {w} = 0u;"));
                self.declare(&w, Ty::UInt, false);
                self.line("do {");
                self.indent += 1;
                self.line(&format!("{w}++;"));
                self.indent -= 1;
                self.block(n);
                let c = self.expr(Ty::Bool, 2);
                self.line(&format!("}} while ({w} < {bound} && {c});"));
            }
        }
        self.loop_depth -= 1;
    }

    fn stmt(&mut self) {
        self.budget -= 1;
        let nested_ok = self.if_depth + self.loop_depth < 4;
        match self.rng.below(20) {
            0..=5 => {
                let ty = self.rng.pick(&[Ty::Int, Ty::UInt, Ty::Float, Ty::Bool, Ty::Int, Ty::UInt]);
                let vs = self.vars(ty, true);
                if vs.is_empty() {
                    self.declare_local();
                } else {
                    let v = vs[self.rng.below(vs.len())].clone();
                    self.assign(&v, ty);
                }
            }
            6 | 7 => self.declare_local(),
            8 | 9 => self.store(),
            10..=13 if nested_ok => self.if_stmt(),
            14..=16 if nested_ok && self.loop_depth < 2 => self.loop_stmt(),
            18 => self.permute(),
            17 if self.loop_depth > 0 => {
                // `if (c) break;` / `if (c) continue;` without a block.
                let c = self.expr(Ty::Bool, 2);
                let j = if self.rng.chance(50) {
                    self.features.breaks += 1;
                    "break;"
                } else {
                    self.features.continues += 1;
                    "continue;"
                };
                self.line(&format!("if ({c})"));
                self.line(&format!("  {j}"));
            }
            _ => {
                let ty = self.rng.pick(&[Ty::Int, Ty::UInt]);
                if let Some(v) = self.vars(ty, true).first().cloned() {
                    self.assign(&v, ty);
                } else {
                    self.store();
                }
            }
        }
    }

    /// Writes the top-level variables of `ty` to slots 0..4 of `buf` (the
    /// fourth slot folds in the rest).
    fn final_stores(&mut self, ty: Ty, buf: &str, extra: Option<String>) {
        let mut vs = self.scopes[0].iter().filter(|v| v.ty == ty).map(|v| v.name.clone()).collect::<Vec<_>>();
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

    fn program(mut self) -> Program {
        let workgroup = self.rng.pick(&[32, 64, 64, 48]);
        let groups = 1 + self.rng.below(3) as u32;
        let mut head = String::new();
        head.push_str("cbuffer Params : register(b0) {\n  uint cu;\n  int ci;\n  float cf;\n}\n");
        head.push_str("StructuredBuffer<int> InI : register(t0);\n");
        head.push_str("StructuredBuffer<uint> InU : register(t1);\n");
        head.push_str("StructuredBuffer<float> InF : register(t2);\n");
        head.push_str("RWStructuredBuffer<int> OutI : register(u0);\n");
        head.push_str("RWStructuredBuffer<uint> OutU : register(u1);\n");
        head.push_str("RWStructuredBuffer<float> OutF : register(u2);\n\n");
        let _ = writeln!(head, "[numthreads({workgroup}, 1, 1)]");
        head.push_str("void main(uint3 dtid : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID,\n");
        head.push_str("          uint gi : SV_GroupIndex) {\n");
        self.src = head;
        self.line("uint tid = dtid.x;");
        // Initial locals from the inputs.
        self.line("int a = InI[tid];");
        self.line("uint b = InU[tid];");
        self.line("float c = InF[tid];");
        self.line(&format!("int d = InI[(tid * 5u + 3u) & {}u];", INPUT_LEN - 1));
        self.line(&format!("uint e = InU[({}u - tid) & {}u];", INPUT_LEN - 1, INPUT_LEN - 1));
        for (n, t) in [("a", Ty::Int), ("b", Ty::UInt), ("c", Ty::Float), ("d", Ty::Int), ("e", Ty::UInt)] {
            self.declare(n, t, true);
        }
        self.budget = 10 + self.rng.below(20);
        while self.budget > 0 {
            self.stmt();
        }
        let bools: Vec<String> =
            self.scopes[0].iter().filter(|v| v.ty == Ty::Bool).enumerate().map(|(i, v)| format!("((uint){} << {i}u)", v.name)).collect();
        let packed = if bools.is_empty() { None } else { Some(bools.join(" | ")) };
        self.final_stores(Ty::Int, "OutI", None);
        self.final_stores(Ty::UInt, "OutU", packed);
        self.final_stores(Ty::Float, "OutF", None);
        self.src.push_str("}\n");
        Program { source: self.src, workgroup, groups, features: self.features }
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

/// The pipeline: inputs (Hex32, so every bit is exact) and three output buffers.
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
    y.push_str("DescriptorSets:\n  - Resources:\n");
    let _ = writeln!(y, "    - {{ Name: Params, Kind: ConstantBuffer, DirectXBinding: {{ Register: 0, Space: 0 }} }}");
    for (i, name) in ["InI", "InU", "InF"].iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: StructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    for (i, name) in ["OutI", "OutU", "OutF"].iter().enumerate() {
        let _ = writeln!(y, "    - {{ Name: {name}, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}");
    }
    y.push_str("...\n");
    run::parse_pipeline(&y).unwrap_or_else(|e| panic!("generated pipeline does not parse: {}\n{y}", e.message))
}

// ---- running ----------------------------------------------------------------

/// The three output buffers after a run, in the order OutI, OutU, OutF.
type Outputs = Vec<Vec<u8>>;

const OUT_NAMES: [&str; 3] = ["OutI", "OutU", "OutF"];

fn outputs_from(p: &Pipeline, read: impl Fn(usize) -> Result<Vec<u8>, String>) -> Result<Outputs, String> {
    OUT_NAMES.iter().map(|n| read(p.buffer_index(n).expect("output buffer"))).collect()
}

/// Runs on our simulator with the wave width and latencies of `opts.target`.
fn run_wavesim(p: &Pipeline, c: &Compiled, opts: &CompileOptions, source: &SourceFile) -> Result<Outputs, String> {
    let isa = opts.isa;
    let layout = run::layout(p, &c.interface).map_err(|e| e.message)?;
    let program =
        wavesim::parse(&c.asm, isa.sim_profile()).map_err(|e| format!("wavesim rejected the listing at line {}: {}", e.line, e.message))?;
    let kernel = program.kernel(&c.interface.kernel).ok_or("the listing has no kernel `main`")?;
    let cfg = run::sim_config(&opts.target, isa, &c.occupancy, 5_000_000);
    let launch = wavesim::Launch { grid: p.dispatch, workgroup_size: c.interface.workgroup_size, args: layout.args.clone() };
    let mut mem = layout.memory(p);
    wavesim::run(kernel, &cfg, &launch, &mut mem).map_err(|f| run::describe_fault(&f, source))?;
    outputs_from(p, |b| {
        let pl = layout.placement(b).ok_or("output buffer not placed")?;
        Ok(mem.read(pl.address, pl.size as usize)?.to_vec())
    })
}

fn run_wave_emu(p: &Pipeline, c: &Compiled) -> Result<Outputs, String> {
    let done = run_on_wave_emu(p, c, 5_000_000)?;
    outputs_from(p, |b| Ok(done.buffers[b].data.clone()))
}

/// The first element where `b` differs from `a`, described.
fn first_difference(a: &Outputs, b: &Outputs) -> Option<String> {
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if let Some(i) = (0..x.len().min(y.len()) / 4).find(|&i| x[i * 4..i * 4 + 4] != y[i * 4..i * 4 + 4]) {
            let word = |v: &[u8]| u32::from_le_bytes(v[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
            let show = |w: u32| match k {
                0 => format!("{} ({w:#010x})", w as i32),
                1 => format!("{w} ({w:#010x})"),
                _ => format!("{:?} ({w:#010x})", f32::from_bits(w)),
            };
            return Some(format!(
                "{}[{i}] (thread {}, slot {}): reference {}, this variant {}",
                OUT_NAMES[k],
                i as u32 / SLOTS,
                i as u32 % SLOTS,
                show(word(x)),
                show(word(y))
            ));
        }
        if x.len() != y.len() {
            return Some(format!("{}: {} bytes vs {}", OUT_NAMES[k], x.len(), y.len()));
        }
    }
    None
}

/// Outcome of one program: `Err` describes a failure.
struct Checked {
    /// Runs compared (all agreed).
    variants: usize,
    /// `.registers` of the `wave-0.1.2` -O0 listing.
    registers: u32,
    /// Distinct 32-bit words written (the fill value excluded).
    distinct: usize,
    /// Elements still holding the fill value.
    unwritten: usize,
    total: usize,
}

fn check_program(seed: u64) -> (Program, Result<Checked, String>) {
    let prog = Gen::new(seed).program();
    let pipeline = pipeline_for(&prog, seed);
    let file = SourceFile::new("random.hlsl", &prog.source);
    let result = (|| {
        let mut variants: Vec<(String, Compiled, Outputs)> = Vec::new();
        // The four listings on the generic target (W=32), then the -O spec listing
        // for `gcn` (W=64) as one more simulator run with other waves.
        let configs = [
            (Isa::Wave, OptLevel::O0, "generic"),
            (Isa::Wave, OptLevel::O, "generic"),
            (Isa::Wave012, OptLevel::O0, "generic"),
            (Isa::Wave012, OptLevel::O, "generic"),
            (Isa::Wave, OptLevel::O, "gcn"),
        ];
        for (isa, opt, target) in configs {
            let label = format!("--isa {} {} --target {target}", isa.name(), if opt == OptLevel::O0 { "-O0" } else { "-O" });
            let mut opts = options(isa, opt);
            opts.target = wavec::target::preset(target).expect("target preset");
            let compiled = match catch_unwind(AssertUnwindSafe(|| compile_with(&file, &opts, true))) {
                Err(_) => return Err(format!("{label}: the compiler panicked")),
                Ok(Err(d)) => return Err(format!("{label}: does not compile:\n{}", render(&file, &d))),
                Ok(Ok(c)) => c,
            };
            let sim = run_wavesim(&pipeline, &compiled, &opts, &file).map_err(|e| format!("{label} on wavesim: {e}"))?;
            let emu = if isa == Isa::Wave012 {
                Some(run_wave_emu(&pipeline, &compiled).map_err(|e| format!("{label} on wave-emu 0.1.2: {e}"))?)
            } else {
                None
            };
            variants.push((format!("{label} on wavesim"), compiled.clone(), sim));
            if let Some(emu) = emu {
                variants.push((format!("{label} on wave-emu 0.1.2 (W=32)"), compiled, emu));
            }
        }
        let (ref_label, ref_compiled, reference) = &variants[0];
        let mut report = String::new();
        for (label, compiled, out) in &variants[1..] {
            if let Some(diff) = first_difference(reference, out) {
                let _ = writeln!(report, "{label} differs from {ref_label}: {diff}");
                let _ = writeln!(report, "--- listing, {label}:\n{}", compiled.asm);
            }
        }
        if !report.is_empty() {
            let _ = writeln!(report, "--- listing, {ref_label} (reference):\n{}", ref_compiled.asm);
            return Err(report);
        }
        let words: Vec<u32> =
            reference.iter().flat_map(|b| b.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))).collect();
        let distinct = words.iter().filter(|&&w| w != FILL).collect::<HashSet<_>>().len();
        let unwritten = words.iter().filter(|&&w| w == FILL).count();
        let registers = variants.iter().find(|v| v.0.starts_with("--isa wave-0.1.2 -O0")).map_or(0, |v| v.1.interface.registers);
        Ok(Checked { variants: variants.len(), registers, distinct, unwritten, total: words.len() })
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
    let mut runs = 0;
    let mut features = Features::default();
    for seed in first..first + count {
        let t0 = std::time::Instant::now();
        let (prog, result) = check_program(seed);
        if std::env::var_os("WAVEC_DIFFTEST_TIMES").is_some() {
            eprintln!("seed {seed}: {:.1?}", t0.elapsed());
        }
        let f = prog.features;
        for (sum, x) in [
            (&mut features.loops, f.loops),
            (&mut features.nested_loops, f.nested_loops),
            (&mut features.breaks, f.breaks),
            (&mut features.continues, f.continues),
            (&mut features.returns, f.returns),
            (&mut features.ifs, f.ifs),
            (&mut features.divisions, f.divisions),
            (&mut features.float_to_int, f.float_to_int),
        ] {
            *sum += x;
        }
        match result {
            Ok(c) => {
                // The final stores write at least one value per thread that depends on its inputs.
                if c.distinct >= 8 {
                    varied += 1;
                }
                distinct_total += c.distinct;
                max_registers = max_registers.max(c.registers);
                runs += c.variants;
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
    let f = features;
    eprintln!(
        "{count} random programs ({runs} runs) agree in {:.1?}; {written} of {total} output words written, {distinct_total} distinct values in all; \
         {} loops ({} nested), {} ifs, {} breaks, {} continues, {} returns, {} divisions, {} float->int casts; at most {max_registers} registers on wave-0.1.2",
        start.elapsed(),
        f.loops,
        f.nested_loops,
        f.ifs,
        f.breaks,
        f.continues,
        f.returns,
        f.divisions,
        f.float_to_int
    );
    // The check means little if the programs compute nothing.
    assert!(varied as u64 >= count * 9 / 10, "only {varied} of {count} programs wrote 8 or more distinct values");
    assert!(written * 4 >= total, "only {written} of {total} output words were written");
    assert!(f.loops >= count as usize && f.breaks > 0 && f.continues > 0 && f.returns > 0, "the generator misses constructs");
}

/// The comparison is not vacuous: a listing in the spec profile, whose integer
/// `cvt` names wave-emu 0.1.2 reads the other way round, gives other buffers there.
#[test]
fn comparison_notices_a_wrong_listing() {
    let mut noticed = 0;
    for seed in 1..=10 {
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
            if first_difference(&reference, &emu).is_some() {
                noticed += 1;
            }
        }
    }
    assert!(noticed >= 3, "only {noticed} of 10 spec-profile listings gave other buffers on wave-emu 0.1.2");
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
