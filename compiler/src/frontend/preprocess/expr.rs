//! `#if` / `#elif` expressions (C99 6.10.1): integer constant expressions in
//! 64-bit arithmetic, signed (`intmax_t`) unless a literal is unsigned (a `u`
//! suffix, or too large for `intmax_t`) or the usual arithmetic conversions
//! make an operand unsigned. Every C operator but assignment, `++`/`--` and
//! casts: `?:`, `,`, `&&`/`||` (short-circuit), bitwise, shifts, comparisons.
//!
//! Identifiers left after macro expansion are 0, except `true` (1) and
//! `false` (0) as in C++; `defined X` / `defined(X)` were replaced before
//! expansion, and any that an expansion produced are evaluated here too.
//! Division or remainder by zero is an error (E0125) where it is evaluated, not
//! in the untaken operand of `&&`, `||` or `?:`. Signed overflow wraps; shift
//! counts outside 0..=63 shift everything out (0, or -1 for `>>` of a negative value).

use crate::diag::{Diagnostic, Span};

use super::lexer::{Kind, PpTok};

/// Deepest parenthesis and operator nesting in one expression.
const MAX_NESTING: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    pub bits: u64,
    pub unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value { bits: v as u64, unsigned: false }
    }
    fn truth(b: bool) -> Value {
        Value::signed(b as i64)
    }
    pub fn is_true(self) -> bool {
        self.bits != 0
    }
    fn i(self) -> i64 {
        self.bits as i64
    }
}

fn err(msg: impl Into<String>, span: Span, label: &str) -> Diagnostic {
    Diagnostic::error("E0124", msg).with_label(span, label)
}

/// Evaluates `toks` (already macro-expanded). `whole` is the directive's
/// span, for errors at the end of the line.
pub fn evaluate(toks: &[PpTok], whole: Span, is_defined: &dyn Fn(&str) -> bool) -> Result<Value, Diagnostic> {
    if toks.is_empty() {
        return Err(err("`#if` with no expression", whole, "expected an expression"));
    }
    let mut p = Parser { toks, pos: 0, whole, depth: 0, is_defined };
    let v = p.comma(true)?;
    if let Some(t) = p.toks.get(p.pos) {
        return Err(err(
            format!("unexpected `{}` in preprocessor expression", t.text),
            t.span,
            "expected an operator or the end of the line",
        ));
    }
    Ok(v)
}

struct Parser<'a> {
    toks: &'a [PpTok],
    pos: usize,
    whole: Span,
    depth: usize,
    is_defined: &'a dyn Fn(&str) -> bool,
}

/// Binary operators by precedence, loosest first.
const LEVELS: &[&[&str]] =
    &[&["||"], &["&&"], &["|"], &["^"], &["&"], &["==", "!="], &["<", ">", "<=", ">="], &["<<", ">>"], &["+", "-"], &["*", "/", "%"]];

impl Parser<'_> {
    fn peek(&self) -> Option<&PpTok> {
        self.toks.get(self.pos)
    }

    fn peek_is(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }

    /// The last token, for errors at the end of the line.
    fn end_span(&self) -> Span {
        self.toks.last().map_or(self.whole, |t| t.span)
    }

    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let at = self.peek().map_or(self.whole, |t| t.span);
            return Err(err(format!("preprocessor expression nested more than {MAX_NESTING} deep"), at, "here"));
        }
        Ok(())
    }

    fn comma(&mut self, live: bool) -> Result<Value, Diagnostic> {
        let mut v = self.conditional(live)?;
        while self.peek_is(",") {
            self.pos += 1;
            v = self.conditional(live)?;
        }
        Ok(v)
    }

    fn conditional(&mut self, live: bool) -> Result<Value, Diagnostic> {
        self.enter()?;
        let c = self.binary(0, live)?;
        let v = if self.peek_is("?") {
            self.pos += 1;
            let a = self.comma(live && c.is_true())?;
            if !self.peek_is(":") {
                let at = self.peek().map_or(self.end_span(), |t| t.span);
                return Err(err("expected `:` in `?:`", at, "expected `:`"));
            }
            self.pos += 1;
            let b = self.conditional(live && !c.is_true())?;
            let unsigned = a.unsigned || b.unsigned;
            let r = if c.is_true() { a } else { b };
            Value { bits: r.bits, unsigned }
        } else {
            c
        };
        self.depth -= 1;
        Ok(v)
    }

    fn binary(&mut self, level: usize, live: bool) -> Result<Value, Diagnostic> {
        if level == LEVELS.len() {
            return self.unary(live);
        }
        let mut l = self.binary(level + 1, live)?;
        loop {
            let Some(op) = self.peek().filter(|t| t.kind == Kind::Punct && LEVELS[level].contains(&&*t.text)).cloned() else {
                return Ok(l);
            };
            self.pos += 1;
            let r = match &*op.text {
                "&&" => self.binary(level + 1, live && l.is_true())?,
                "||" => self.binary(level + 1, live && !l.is_true())?,
                _ => self.binary(level + 1, live)?,
            };
            l = apply(&op, l, r, live)?;
        }
    }

    fn unary(&mut self, live: bool) -> Result<Value, Diagnostic> {
        let Some(t) = self.peek().cloned() else {
            return Err(err("expected a value at the end of the preprocessor expression", self.end_span(), "expected a value after this"));
        };
        self.pos += 1;
        match (t.kind, &*t.text) {
            (Kind::Punct, "+" | "-" | "~" | "!") => {
                self.enter()?;
                let v = self.unary(live)?;
                self.depth -= 1;
                Ok(match &*t.text {
                    "+" => v,
                    "-" => Value { bits: v.bits.wrapping_neg(), unsigned: v.unsigned },
                    "~" => Value { bits: !v.bits, unsigned: v.unsigned },
                    _ => Value::truth(!v.is_true()),
                })
            }
            (Kind::Punct, "(") => {
                self.enter()?;
                let v = self.comma(live)?;
                self.depth -= 1;
                if !self.peek_is(")") {
                    let at = self.peek().map_or(self.end_span(), |x| x.span);
                    return Err(err("missing `)` in preprocessor expression", at, "expected `)`").with_label(t.span, "to close this"));
                }
                self.pos += 1;
                Ok(v)
            }
            (Kind::Number, text) => number(text, t.span),
            (Kind::Char, text) => Ok(Value::signed(char_value(text))),
            (Kind::Ident, "defined") => {
                let paren = self.peek_is("(");
                if paren {
                    self.pos += 1;
                }
                let name = match self.peek() {
                    Some(n) if n.kind == Kind::Ident => n.text.clone(),
                    other => {
                        let at = other.map_or(t.span, |o| o.span);
                        return Err(err("`defined` needs a macro name", at, "expected an identifier"));
                    }
                };
                self.pos += 1;
                if paren {
                    if !self.peek_is(")") {
                        return Err(err("missing `)` after `defined(NAME`", self.peek().map_or(t.span, |x| x.span), "expected `)`"));
                    }
                    self.pos += 1;
                }
                Ok(Value::truth((self.is_defined)(&name)))
            }
            (Kind::Ident, "true") => Ok(Value::signed(1)),
            (Kind::Ident, _) => Ok(Value::signed(0)),
            (Kind::Str, _) => Err(err("string literal in a preprocessor expression", t.span, "not an integer")),
            _ => Err(err(format!("unexpected `{}` in preprocessor expression", t.text), t.span, "expected a value")),
        }
    }
}

fn apply(op: &PpTok, l: Value, r: Value, live: bool) -> Result<Value, Diagnostic> {
    let o = &*op.text;
    // Shifts take the left operand's type; everything else the usual arithmetic conversions.
    let unsigned = l.unsigned || r.unsigned;
    let arith = |bits: u64| Value { bits, unsigned };
    Ok(match o {
        "&&" => Value::truth(l.is_true() && r.is_true()),
        "||" => Value::truth(l.is_true() || r.is_true()),
        "|" => arith(l.bits | r.bits),
        "^" => arith(l.bits ^ r.bits),
        "&" => arith(l.bits & r.bits),
        "==" => Value::truth(l.bits == r.bits),
        "!=" => Value::truth(l.bits != r.bits),
        "<" | ">" | "<=" | ">=" => {
            let ord = if unsigned { l.bits.cmp(&r.bits) } else { l.i().cmp(&r.i()) };
            Value::truth(match o {
                "<" => ord.is_lt(),
                ">" => ord.is_gt(),
                "<=" => ord.is_le(),
                _ => ord.is_ge(),
            })
        }
        "<<" | ">>" => {
            let count = if r.unsigned || r.i() >= 0 { r.bits } else { u64::MAX };
            let bits = if o == "<<" {
                if count >= 64 {
                    0
                } else {
                    l.bits << count
                }
            } else if l.unsigned {
                if count >= 64 {
                    0
                } else {
                    l.bits >> count
                }
            } else {
                (l.i() >> count.min(63)) as u64
            };
            Value { bits, unsigned: l.unsigned }
        }
        "+" => arith(l.bits.wrapping_add(r.bits)),
        "-" => arith(l.bits.wrapping_sub(r.bits)),
        "*" => arith(l.bits.wrapping_mul(r.bits)),
        "/" | "%" => {
            if r.bits == 0 {
                if !live {
                    return Ok(arith(0));
                }
                let what = if o == "/" { "division" } else { "remainder" };
                return Err(Diagnostic::error("E0125", format!("{what} by zero in preprocessor expression"))
                    .with_label(op.span, "the right operand is 0"));
            }
            let bits = match (o, unsigned) {
                ("/", true) => l.bits / r.bits,
                ("%", true) => l.bits % r.bits,
                ("/", false) => l.i().wrapping_div(r.i()) as u64,
                _ => l.i().wrapping_rem(r.i()) as u64,
            };
            arith(bits)
        }
        _ => return Err(err(format!("unexpected `{o}`"), op.span, "not an operator here")),
    })
}

/// An integer literal: decimal, `0x` hex, `0b` binary or `0` octal, with
/// `u`/`l`/`ll` suffixes in any case and order.
fn number(text: &str, span: Span) -> Result<Value, Diagnostic> {
    let lower = text.to_ascii_lowercase();
    let (radix, digits_from) = if lower.starts_with("0x") {
        (16, 2)
    } else if lower.starts_with("0b") {
        (2, 2)
    } else if lower.starts_with('0') && lower.len() > 1 {
        (8, 1)
    } else {
        (10, 0)
    };
    let body = &lower[digits_from..];
    let digits_end = body.find(|c: char| !c.is_digit(radix)).unwrap_or(body.len());
    let (digits, suffix) = body.split_at(digits_end);
    let is_float = radix != 16 && (suffix.starts_with('.') || suffix.starts_with('e')) || (radix == 10 && suffix.starts_with('f'));
    if is_float || (radix == 16 && suffix.starts_with(['.', 'p'])) {
        return Err(err(format!("floating-point literal `{text}` in a preprocessor expression"), span, "only integers are allowed here"));
    }
    let suffix_ok = matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu");
    if digits.is_empty() && radix != 8 || !suffix_ok {
        return Err(err(format!("invalid integer literal `{text}`"), span, "not an integer literal"));
    }
    let digits = if digits.is_empty() { "0" } else { digits };
    let v = u64::from_str_radix(digits, radix)
        .map_err(|_| err(format!("integer literal `{text}` is too large for 64 bits"), span, "too large"))?;
    let unsigned = suffix.contains('u') || v > i64::MAX as u64;
    Ok(Value { bits: v, unsigned })
}

/// The value of a character constant (`'a'`, `'\n'`, `'\x41'`, `'\101'`) as
/// a signed `char` (`'\xff'` is -1, as GCC and Clang have it on x86); for
/// several characters, their low bytes in order.
fn char_value(text: &str) -> i64 {
    let inner = text.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).unwrap_or("");
    let cs: Vec<char> = inner.chars().collect();
    let mut i = 0;
    let mut codes: Vec<i64> = Vec::new();
    while i < cs.len() {
        let c = cs[i];
        i += 1;
        if c != '\\' || i >= cs.len() {
            codes.push(c as i64);
            continue;
        }
        let e = cs[i];
        i += 1;
        let code = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            '0'..='7' => {
                let mut n = e as i64 - '0' as i64;
                let mut k = 1;
                while k < 3 && i < cs.len() && cs[i].is_digit(8) {
                    n = n * 8 + cs[i] as i64 - '0' as i64;
                    i += 1;
                    k += 1;
                }
                n
            }
            'x' => {
                let mut n: i64 = 0;
                while i < cs.len() && cs[i].is_ascii_hexdigit() {
                    n = n.wrapping_mul(16).wrapping_add(cs[i].to_digit(16).unwrap_or(0) as i64);
                    i += 1;
                }
                n
            }
            other => other as i64,
        };
        codes.push(code);
    }
    match codes.as_slice() {
        [one] if (0x80..=0xff).contains(one) => one - 256,
        [one] => *one,
        many => many.iter().fold(0i64, |v, c| v.wrapping_shl(8) | (c & 0xff)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    /// Evaluates `s` as it stands (no macro expansion; only `D` is defined).
    fn eval(s: &str) -> Result<(i64, bool), &'static str> {
        let (toks, _) = lex(s, 0, 0);
        evaluate(&toks, Span::new(0, s.len()), &|n| n == "D").map(|v| (v.bits as i64, v.unsigned)).map_err(|d| d.code)
    }

    fn val(s: &str) -> i64 {
        eval(s).unwrap_or_else(|c| panic!("{s}: {c}")).0
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(val("1 + 2 * 3"), 7);
        assert_eq!(val("(1 + 2) * 3"), 9);
        assert_eq!(val("10 - 4 - 3"), 3);
        assert_eq!(val("1 << 4 >> 2"), 4);
        assert_eq!(val("7 / 2 + 7 % 2"), 4);
        assert_eq!(val("-7 / 2"), -3);
        assert_eq!(val("-7 % 2"), -1);
        assert_eq!(val("~0"), -1);
        assert_eq!(val("!0 + !5"), 1);
        assert_eq!(val("1 < 2 == 1"), 1);
        assert_eq!(val("6 & 3 | 8 ^ 1"), 11);
        assert_eq!(val("1 ? 2 : 3"), 2);
        assert_eq!(val("0 ? 2 : 1 ? 4 : 5"), 4);
        assert_eq!(val("(1, 2)"), 2);
        assert_eq!(val("0x10 + 010 + 0b11 + 'A'"), 16 + 8 + 3 + 65);
        assert_eq!(val("'\\n' + '\\x41' + '\\101'"), 10 + 65 + 65);
        assert_eq!(val("'\\xff'"), -1);
    }

    #[test]
    fn names_defined_and_booleans() {
        assert_eq!(val("UNKNOWN"), 0);
        assert_eq!(val("UNKNOWN + 1"), 1);
        assert_eq!(val("true + true + false"), 2);
        assert_eq!(val("defined D + defined(D) + defined X"), 2);
        assert_eq!(eval("defined"), Err("E0124"));
        assert_eq!(eval("defined(D"), Err("E0124"));
    }

    #[test]
    fn sixty_four_bit_and_unsigned() {
        assert_eq!(val("4294967296 * 2"), 8589934592);
        assert_eq!(val("9223372036854775807 + 1 < 0"), 1); // signed wraps
        assert_eq!(eval("18446744073709551615"), Ok((-1, true)));
        // -1 < 0u is false: the usual arithmetic conversions make -1 unsigned.
        assert_eq!(val("-1 < 0u"), 0);
        assert_eq!(val("-1 < 0"), 1);
        assert_eq!(val("-1 > 0u ? 1 : 2"), 1);
        assert_eq!(eval("(1 ? -1 : 0u)"), Ok((-1, true)));
        assert_eq!(val("0xffffffffffffffff / 2 > 0"), 1);
        assert_eq!(val("-16 >> 2"), -4);
        assert_eq!(val("1 << 64"), 0);
        assert_eq!(val("-1 >> 100"), -1);
        assert_eq!(val("(-9223372036854775807 - 1) / -1 < 0"), 1);
        assert_eq!(eval("18446744073709551616"), Err("E0124"));
    }

    #[test]
    fn division_by_zero_only_where_evaluated() {
        assert_eq!(eval("1 / 0"), Err("E0125"));
        assert_eq!(eval("1 % (2 - 2)"), Err("E0125"));
        assert_eq!(val("0 && 1 / 0"), 0);
        assert_eq!(val("1 || 1 / 0"), 1);
        assert_eq!(val("1 ? 2 : 1 / 0"), 2);
        assert_eq!(val("0 ? 1 / 0 : 3"), 3);
        let (toks, _) = lex("4 / 0", 10, 0);
        let e = evaluate(&toks, Span::new(10, 15), &|_| false).unwrap_err();
        assert_eq!(e.labels[0].0, Span::new(12, 13));
    }

    #[test]
    fn malformed_expressions() {
        for s in ["", "1 +", "(1", "1 2", "1 ? 2", "\"s\"", "1.5", "1e3", "0x1p3", "12ab", "08", "1 = 2", "x++", ")"] {
            assert_eq!(eval(s).map_err(|c| c.to_string()).err().as_deref(), Some("E0124"), "`{s}`");
        }
        // Deep nesting is an error, not a stack overflow.
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        assert_eq!(eval(&deep), Err("E0124"));
        let unary = format!("{}1", "-".repeat(5000));
        assert_eq!(eval(&unary), Err("E0124"));
        assert_eq!(val(&format!("{}1{}", "(".repeat(100), ")".repeat(100))), 1);
    }
}
