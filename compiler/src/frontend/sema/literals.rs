//! Numeric literals: their text (decimal, hex `0x`, binary `0b`, octal `0`,
//! suffixes), their types, and DXC's `literal int`.
//!
//! An integer literal without a suffix is DXC's `literal int`: a 64-bit value
//! while it meets only other such literals (`0x100000000 >> 4` is `0x10000000`,
//! `65536 * 65536 / 65536` is `65536`, `0xFFFFFFFF == -1` is false), and of the
//! type of the operand it meets otherwise. A literal value that does not fit in
//! 32 bits lives in the typed AST as its low
//! 32 bits, with the whole value in `Sema::wide_literals` until it is converted
//! to a type: to an integer type it is truncated, with warning W0207 (DXC:
//! "implicit conversion ... changes value"); to `float` it converts by value. A
//! wide literal that never meets a type (`(5000000000).x`) keeps its low 32
//! bits, also with W0207; to `int64_t`/`uint64_t` and `double` it keeps its
//! value. Suffixed literals are typed as DXC types them: `u` is `uint` (and must
//! fit in 32 bits, E0216), `l`/`ll` is `int64_t`, `ul`/`ull` is `uint64_t`.

use super::{err, lit, Sema};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast;
use crate::frontend::tast::*;

/// Parses an integer literal's text: value, and whether it is unsigned (`u`)
/// and 64-bit (`l`, `ll`) by its suffix. Hex `0x`, binary `0b`, octal with a leading 0.
pub(super) fn int_literal_value(text: &str) -> (Option<u64>, bool, bool) {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = &text[digits.len()..];
    let unsigned = suffix.contains(['u', 'U']);
    let long = suffix.contains(['l', 'L']);
    let value = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        u64::from_str_radix(bin, 2).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse::<u64>().ok()
    };
    (value, unsigned, long)
}

/// `a op b` on two 64-bit literal ints, as clang's constant evaluator does it
/// (signed; shift amounts modulo 64). `None` for division by zero and for the
/// operators that are not arithmetic or comparisons.
fn fold64(op: ast::BinOp, a: i64, b: i64) -> Option<Result<i64, bool>> {
    use ast::BinOp as B;
    Some(match op {
        B::Add => Ok(a.wrapping_add(b)),
        B::Sub => Ok(a.wrapping_sub(b)),
        B::Mul => Ok(a.wrapping_mul(b)),
        B::Div | B::Rem if b == 0 => return None,
        B::Div => Ok(a.wrapping_div(b)),
        B::Rem => Ok(a.wrapping_rem(b)),
        B::Shl => Ok(a.wrapping_shl((b & 63) as u32)),
        B::Shr => Ok(a.wrapping_shr((b & 63) as u32)),
        B::BitAnd => Ok(a & b),
        B::BitOr => Ok(a | b),
        B::BitXor => Ok(a ^ b),
        B::Lt => Err(a < b),
        B::Le => Err(a <= b),
        B::Gt => Err(a > b),
        B::Ge => Err(a >= b),
        B::Eq => Err(a == b),
        B::Ne => Err(a != b),
        B::LogAnd | B::LogOr => return None,
    })
}

impl Sema {
    pub(super) fn int_literal(&mut self, text: &str, span: Span) -> Option<Expr> {
        let (value, unsigned, long) = int_literal_value(text);
        let c = match value {
            // `l`/`ll`: int64_t; `ul`/`ull`: uint64_t (as DXC types them).
            Some(v) if long && unsigned => Const::Bits64(ScalarType::Uint64, v),
            Some(v) if long && v <= i64::MAX as u64 => Const::Bits64(ScalarType::Int64, v),
            Some(v) if unsigned && v <= u32::MAX as u64 => Const::Uint(v as u32),
            Some(v) if !unsigned && !long && v <= i32::MAX as u64 => Const::Int(v as i32),
            Some(v) if !unsigned && !long && v <= u32::MAX as u64 => Const::Uint(v as u32),
            Some(v) if !unsigned && !long && v <= i64::MAX as u64 => return Some(self.int_literal_of(v as i64, span)),
            // Too large for a signed 64-bit value: a `uint64_t`, as clang interprets it.
            Some(v) if !unsigned && !long => {
                return Some(lit(Const::Bits64(ScalarType::Uint64, v), span));
            }
            _ => {
                let (label, note) = if unsigned && !long {
                    ("does not fit in 32 bits", "a literal with a `u` suffix is a 32-bit `uint`; write `ull` for a `uint64_t`")
                } else if long {
                    ("does not fit in 64 bits", "an `l`/`ll` literal is an `int64_t` (at most 2^63 - 1); write `ull` for a `uint64_t`")
                } else {
                    (
                        "does not fit in 64 bits",
                        "a literal without a suffix may have up to 64 bits (DXC's 64-bit `literal int`, or a `uint64_t` above 2^63 - 1)",
                    )
                };
                self.emit(err("E0216", format!("integer literal `{text}` is out of range"), span, label).with_note(note));
                return None;
            }
        };
        // Unsuffixed literals adopt the type of the operand they meet.
        if !unsigned && !long {
            self.untyped_literals.insert(span);
        }
        Some(lit(c, span))
    }

    pub(super) fn float_literal(&mut self, text: &str, span: Span) -> Option<Expr> {
        let body = text.trim_end_matches(['f', 'F', 'h', 'H', 'l', 'L']);
        let suffix = &text[body.len()..];
        let double = suffix.eq_ignore_ascii_case("l");
        let v = match body.parse::<f64>() {
            Ok(v) if double && v.is_finite() => v,
            Ok(v) if (v as f32).is_finite() => v,
            _ => {
                let label = if double { "too large for a double" } else { "too large for a 32-bit float" };
                self.emit(err("E0217", format!("float literal `{text}` is out of range"), span, label));
                return None;
            }
        };
        if suffix.eq_ignore_ascii_case("h") && self.opts.native_16bit {
            return Some(lit(Const::Bits16(ScalarType::Half, half::f16::from_f64(v).to_bits()), span));
        }
        // `l`: a double (HLSL's suffix for 64-bit floats).
        if double {
            return Some(lit(Const::Bits64(ScalarType::Double, v.to_bits()), span));
        }
        if suffix.is_empty() {
            self.untyped_literals.insert(span);
            // HLSL 202x's conforming literals: an unsuffixed float literal is a `float`
            // (a double gets its float value); before, a 64-bit `literal float`.
            if self.opts.hlsl_version.0 < 2029 {
                self.literal_floats.insert(span, v);
            }
        }
        Some(lit(Const::Float(v as f32), span))
    }

    /// The exact value of a folded literal-float operation `e` (typed `float`),
    /// recomputed in f64 (DXC's `literal float` is 64-bit) and kept for `span`.
    pub(super) fn fold_literal_float(&mut self, e: &Expr, span: Span) {
        let ExprKind::Binary { op, lhs, rhs } = &e.kind else { return };
        if e.ty != Type::FLOAT || !(self.literal_floats.contains_key(&lhs.span) || self.literal_floats.contains_key(&rhs.span)) {
            return;
        }
        let exact = |l: &Self, x: &Expr| -> Option<Expr> {
            let v = match l.literal_floats.get(&x.span) {
                Some(&v) => v,
                None => match (l.literal_int(x), &x.kind) {
                    (Some(i), _) => i as f64,
                    (None, ExprKind::Literal(c)) => crate::frontend::fold::f64_of(*c),
                    _ => return None,
                },
            };
            Some(lit(Const::Bits64(ScalarType::Double, v.to_bits()), x.span))
        };
        let (Some(a), Some(b)) = (exact(self, lhs), exact(self, rhs)) else { return };
        let d = Type::Scalar(ScalarType::Double);
        let wide = Expr { kind: ExprKind::Binary { op: *op, lhs: Box::new(a), rhs: Box::new(b) }, ty: d, span };
        if let Some([Const::Bits64(ScalarType::Double, bits)]) = self.const_eval(&wide).as_deref() {
            self.literal_floats.insert(span, f64::from_bits(*bits));
        }
    }

    /// The whole value of an unsuffixed integer literal (DXC's `literal int`).
    pub(super) fn literal_int(&self, e: &Expr) -> Option<i64> {
        if !self.untyped_literals.contains(&e.span) {
            return None;
        }
        match e.kind {
            ExprKind::Literal(Const::Int(i)) => Some(i as i64),
            ExprKind::Literal(Const::Uint(u)) => Some(self.wide_literals.get(&e.span).copied().unwrap_or(u as i64)),
            _ => None,
        }
    }

    /// An unsuffixed integer literal of value `v`: `int` if it fits, else
    /// `uint`, else its low 32 bits with the whole value kept aside.
    pub(super) fn int_literal_of(&mut self, v: i64, span: Span) -> Expr {
        self.untyped_literals.insert(span);
        self.wide_literals.remove(&span);
        if let Ok(i) = i32::try_from(v) {
            return lit(Const::Int(i), span);
        }
        if let Ok(u) = u32::try_from(v) {
            return lit(Const::Uint(u), span);
        }
        self.wide_literals.insert(span, v);
        lit(Const::Uint(v as u32), span)
    }

    /// `l op r` when both are unsuffixed integer literals: folded in 64 bits.
    pub(super) fn fold_literal_ints(&mut self, op: ast::BinOp, l: &Expr, r: &Expr, span: Span) -> Option<Expr> {
        let (a, b) = (self.literal_int(l)?, self.literal_int(r)?);
        let folded = fold64(op, a, b)?;
        self.wide_literals.remove(&l.span);
        self.wide_literals.remove(&r.span);
        Some(match folded {
            Ok(v) => self.int_literal_of(v, span),
            Err(b) => lit(Const::Bool(b), span),
        })
    }

    /// A literal too wide for 32 bits converted to scalar type `to`: truncated
    /// for integer types (W0207 unless `explicit`), by value for float and bool.
    pub(super) fn settle_wide_literal(&mut self, e: Expr, to: ScalarType, explicit: bool) -> Expr {
        let Some(v) = self.wide_literals.remove(&e.span) else { return e };
        let c = match to {
            ScalarType::Bool => Const::Bool(v != 0),
            ScalarType::Float => Const::Float(v as f32),
            ScalarType::Half => Const::Bits16(ScalarType::Half, half::f16::from_f64(v as f64).to_bits()),
            ScalarType::Int => Const::Int(v as i32),
            ScalarType::Uint => Const::Uint(v as u32),
            ScalarType::Int16 | ScalarType::Uint16 => Const::Bits16(to, v as u16),
            ScalarType::Int64 | ScalarType::Uint64 => Const::Bits64(to, v as u64),
            ScalarType::Double => Const::Bits64(to, (v as f64).to_bits()),
        };
        if !explicit && to.is_integer() && !to.is_64bit() {
            let kept = crate::frontend::fold::int_of(c).unwrap_or(0);
            self.diags.push(
                Diagnostic::warning(
                    "W0207",
                    format!("implicit conversion of the literal {v} to `{}` changes its value to {kept}", to.name()),
                )
                .with_label(e.span, "does not fit in 32 bits")
                .with_note("an unsuffixed literal is a 64-bit `literal int` (as in DXC); it keeps its low bits here"),
            );
        }
        lit(c, e.span)
    }

    /// W0207 for the wide literals that never met a type (their low 32 bits were used).
    pub(super) fn report_unsettled_wide_literals(&mut self) {
        let mut left: Vec<(Span, i64)> = self.wide_literals.drain().collect();
        left.sort_by_key(|(s, _)| (s.start, s.end));
        for (span, v) in left {
            self.diags.push(
                Diagnostic::warning("W0207", format!("the literal {v} does not fit in 32 bits: its low 32 bits ({}) are used", v as u32))
                    .with_label(span, "truncated")
                    .with_note("an unsuffixed literal is a 64-bit `literal int` (as in DXC); convert it to a 32-bit type explicitly"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_texts() {
        assert_eq!(int_literal_value("0b1011u"), (Some(11), true, false));
        assert_eq!(int_literal_value("0B1"), (Some(1), false, false));
        assert_eq!(int_literal_value("0x100000000"), (Some(1 << 32), false, false));
        assert_eq!(int_literal_value("017"), (Some(15), false, false));
        assert_eq!(int_literal_value("5000000000ll"), (Some(5_000_000_000), false, true));
        assert_eq!(int_literal_value("0xFFFFFFFFFFFFFFFFull"), (Some(u64::MAX), true, true));
    }

    /// The constant stored by `Out[0] = EXPR;` and the warning codes.
    fn stored(expr: &str) -> (Vec<Const>, Vec<&'static str>) {
        stored_as("uint", expr)
    }

    /// The same for a buffer of `elem`.
    fn stored_as(elem: &str, expr: &str) -> (Vec<Const>, Vec<&'static str>) {
        use crate::diag::SourceFile;
        let src = format!("RWStructuredBuffer<{elem}> Out : register(u0);\n[numthreads(1,1,1)] void main() {{ Out[0] = {expr}; }}");
        let (m, w) = crate::frontend::analyze(&SourceFile::new("t.hlsl", src), None).expect("compiles");
        let body = &m.function(m.entry.func).body.stmts;
        let StmtKind::Expr(Expr { kind: ExprKind::Assign { value, .. }, .. }) = &body[0].kind else { panic!("{:?}", body[0]) };
        let consts = &|_| None;
        let v = crate::frontend::fold::Folder { types: &m.types, local: consts, place_value: None }.fold(value).expect("a constant");
        (v, w.iter().map(|d| d.code).collect())
    }

    #[test]
    fn literal_forms_as_dxc_reads_them() {
        assert_eq!(stored("0b1010"), (vec![Const::Uint(10)], vec![]));
        assert_eq!(stored("0b1111u & 0B101"), (vec![Const::Uint(5)], vec![]));
        assert_eq!(stored("2.xx.y + (3).xxx.z + (uint)1.0.xx.x"), (vec![Const::Uint(6)], vec![]));
        assert_eq!(stored("0x100000000 >> 4"), (vec![Const::Uint(0x1000_0000)], vec![]));
        assert_eq!(stored("65536 * 65536 / 65536"), (vec![Const::Uint(65536)], vec![]));
        assert_eq!(stored("(0xFFFFFFFF + 1) >> 1"), (vec![Const::Uint(0x8000_0000)], vec![]));
        assert_eq!(stored("0xFFFFFFFF == -1"), (vec![Const::Uint(0)], vec![]));
        assert_eq!(stored("5000000000"), (vec![Const::Uint(705_032_704)], vec!["W0207"]));
        assert_eq!(stored("(uint)5000000000"), (vec![Const::Uint(705_032_704)], vec![]));
        assert_eq!(stored("-(-5000000000) - 4999999999"), (vec![Const::Uint(1)], vec![]));
        assert_eq!(stored("(uint)(float)5000000000 == 4294967295"), (vec![Const::Uint(1)], vec![]));
        assert_eq!(stored("(8000000000).x"), (vec![Const::Uint(3_705_032_704)], vec!["W0207"]));
    }

    #[test]
    fn sixty_four_bit_types() {
        let u64c = |v: u64| (vec![Const::Bits64(ScalarType::Uint64, v)], vec![]);
        let i64c = |v: i64| (vec![Const::Bits64(ScalarType::Int64, v as u64)], vec![]);
        // Literals meeting a 64-bit type keep their whole value.
        assert_eq!(stored_as("uint64_t", "5000000000"), u64c(5_000_000_000));
        assert_eq!(stored_as("uint64_t", "0xFFFFFFFFFFFFFFFF"), u64c(u64::MAX));
        assert_eq!(stored_as("int64_t", "-5000000000ll * 3"), i64c(-15_000_000_000));
        // Typed 64-bit arithmetic wraps at 64 bits; shifts use the amount's low 6 bits.
        assert_eq!(stored_as("uint64_t", "0xFFFFFFFFFFFFFFFFull + 2"), u64c(1));
        assert_eq!(stored_as("int64_t", "(int64_t)1 << 65"), i64c(2));
        assert_eq!(stored_as("int64_t", "-16ll >> 2"), i64c(-4));
        assert_eq!(stored_as("uint64_t", "(uint64_t)-16 >> 2"), u64c((u64::MAX - 15) >> 2));
        // Conversions: to uint keeps the low bits, int sign-extends, float rounds once.
        assert_eq!(stored("(uint)0x123456789ull"), (vec![Const::Uint(0x2345_6789)], vec![]));
        assert_eq!(stored_as("int64_t", "(int)-3"), i64c(-3));
        assert_eq!(stored_as("float", "(float)0x1000001ull"), (vec![Const::Float(16_777_216.0)], vec![]));
        assert_eq!(stored_as("float", "(float)0x1000003ull"), (vec![Const::Float(16_777_220.0)], vec![]));
        assert_eq!(stored_as("uint", "0xFFFFFFFF00000000ull > 1ll"), (vec![Const::Uint(1)], vec![]));
        assert_eq!(stored_as("uint", "-1ll < 0ull"), (vec![Const::Uint(0)], vec![]));
    }

    #[test]
    fn double_literals_keep_their_value() {
        let d = |v: f64| (vec![Const::Bits64(ScalarType::Double, v.to_bits())], vec![]);
        assert_eq!(stored_as("double", "0.1"), d(0.1));
        assert_eq!(stored_as("double", "-0.1"), d(-0.1));
        assert_eq!(stored_as("double", "0.1 * 3"), d(0.1 * 3.0));
        assert_eq!(stored_as("double", "1e300l"), d(1e300));
        assert_eq!(stored_as("double", "double2(0.1, 2).x"), d(0.1));
        // In float context a literal is a float; `(float)` first rounds.
        assert_eq!(stored_as("double", "(float)0.1"), d(f64::from(0.1f32)));
        assert_eq!(stored_as("float", "0.1"), (vec![Const::Float(0.1)], vec![]));
        assert_eq!(stored_as("float", "1e300l * 0"), (vec![Const::Float(0.0)], vec![]));
    }

    #[test]
    fn sixty_four_bit_folding() {
        use ast::BinOp as B;
        assert_eq!(fold64(B::Shr, 0x1_0000_0000, 4), Some(Ok(0x1000_0000)));
        assert_eq!(fold64(B::Mul, 65536, 65536), Some(Ok(1 << 32)));
        assert_eq!(fold64(B::Eq, 0xFFFF_FFFF, -1), Some(Err(false)));
        assert_eq!(fold64(B::Shr, -8, 1), Some(Ok(-4)));
        assert_eq!(fold64(B::Div, 1, 0), None);
        assert_eq!(fold64(B::LogAnd, 1, 1), None);
    }
}
