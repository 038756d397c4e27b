//! Buffer element formats of the pipeline format: parsing YAML scalars into
//! little-endian bytes, decoding bytes back, and printing values so that they
//! round-trip (floats in their shortest exact form, `nan`, `inf`, `-0`; hex
//! formats as `0x` with every digit of the width).
//!
//! As the offloader reads them: `Float16` data are 16-bit patterns (`0x3c00`
//! is 1.0, there being no half type in YAML), `Bool` data are 32-bit integers
//! (an HLSL bool is 4 bytes), and floats may be C99 hex floats (`0x1.8p1`).
//!
//! Half precision goes through the `half` crate: [`f16_from_f64`] rounds once
//! to nearest, ties to even; [`f16_to_f64`] is exact.

/// Element format of a buffer (`Format:` in the YAML).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Int16,
    UInt16,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float16,
    Float32,
    Float64,
    Hex8,
    Hex16,
    Hex32,
    Hex64,
    /// A 4-byte HLSL bool (0 or 1; the offloader reads any uint32).
    Bool,
}

/// One decoded element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    UInt(u64),
    /// Floats of every width are carried as f64 (exact for f16 and f32).
    Float(f64),
    /// Hex formats: raw bits and the width in bytes.
    Hex(u64, u32),
}

pub const ALL_FORMATS: [Format; 14] = [
    Format::Int16,
    Format::UInt16,
    Format::Int32,
    Format::UInt32,
    Format::Int64,
    Format::UInt64,
    Format::Float16,
    Format::Float32,
    Format::Float64,
    Format::Hex8,
    Format::Hex16,
    Format::Hex32,
    Format::Hex64,
    Format::Bool,
];

impl Format {
    /// The format called `name` in the YAML, if we know it.
    pub fn from_name(name: &str) -> Option<Format> {
        ALL_FORMATS.into_iter().find(|f| f.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Int16 => "Int16",
            Format::UInt16 => "UInt16",
            Format::Int32 => "Int32",
            Format::UInt32 => "UInt32",
            Format::Int64 => "Int64",
            Format::UInt64 => "UInt64",
            Format::Float16 => "Float16",
            Format::Float32 => "Float32",
            Format::Float64 => "Float64",
            Format::Hex8 => "Hex8",
            Format::Hex16 => "Hex16",
            Format::Hex32 => "Hex32",
            Format::Hex64 => "Hex64",
            Format::Bool => "Bool",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Format::Hex8 => 1,
            Format::Int16 | Format::UInt16 | Format::Float16 | Format::Hex16 => 2,
            Format::Int32 | Format::UInt32 | Format::Float32 | Format::Hex32 | Format::Bool => 4,
            Format::Int64 | Format::UInt64 | Format::Float64 | Format::Hex64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Format::Float16 | Format::Float32 | Format::Float64)
    }

    /// Parses one YAML scalar (its raw text) into the element's bytes.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, String> {
        let t = text.trim();
        let bad = |why: &str| format!("`{t}` is not a valid {} value{why}", self.name());
        let size = self.size();
        match self {
            Format::Float16 => match parse_int(t) {
                Some(v) if (-(1i128 << 15)..1i128 << 16).contains(&v) => Ok((v as u16).to_le_bytes().to_vec()),
                Some(_) => Err(bad(" (out of range)")),
                None => Err(bad(": Float16 data are 16-bit patterns, as the offloader reads them (0x3c00 is 1.0)")),
            },
            Format::Float32 => Ok((parse_float(t).ok_or_else(|| bad(""))? as f32).to_le_bytes().to_vec()),
            Format::Float64 => Ok(parse_float(t).ok_or_else(|| bad(""))?.to_le_bytes().to_vec()),
            Format::Int16 | Format::Int32 | Format::Int64 => {
                let v = parse_int(t).ok_or_else(|| bad(""))?;
                let bits = size as u32 * 8;
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
                if v < lo || v > hi {
                    return Err(bad(" (out of range)"));
                }
                Ok((v as i64).to_le_bytes()[..size].to_vec())
            }
            Format::UInt16
            | Format::UInt32
            | Format::UInt64
            | Format::Bool
            | Format::Hex8
            | Format::Hex16
            | Format::Hex32
            | Format::Hex64 => {
                let v = parse_int(t).ok_or_else(|| bad(""))?;
                let bits = size as u32 * 8;
                // Hex formats also accept negative numbers as two's complement bit patterns.
                let lo =
                    if matches!(self, Format::Hex8 | Format::Hex16 | Format::Hex32 | Format::Hex64) { -(1i128 << (bits - 1)) } else { 0 };
                if v < lo || v > (1i128 << bits) - 1 {
                    return Err(bad(" (out of range)"));
                }
                Ok((v as u64).to_le_bytes()[..size].to_vec())
            }
        }
    }

    /// Decodes one element from exactly `self.size()` little-endian bytes.
    pub fn decode(self, bytes: &[u8]) -> Value {
        let mut raw = [0u8; 8];
        raw[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
        let u = u64::from_le_bytes(raw);
        let size = self.size();
        match self {
            Format::Int16 => Value::Int(u as u16 as i16 as i64),
            Format::Int32 => Value::Int(u as u32 as i32 as i64),
            Format::Int64 => Value::Int(u as i64),
            Format::UInt16 | Format::UInt32 | Format::UInt64 | Format::Bool => Value::UInt(u),
            Format::Float16 => Value::Float(f16_to_f64(u as u16)),
            Format::Float32 => Value::Float(f32::from_bits(u as u32) as f64),
            Format::Float64 => Value::Float(f64::from_bits(u)),
            Format::Hex8 | Format::Hex16 | Format::Hex32 | Format::Hex64 => Value::Hex(u, size as u32),
        }
    }

    /// Decodes and prints one element.
    pub fn show(self, bytes: &[u8]) -> String {
        if self == Format::Float16 {
            let b = u16::from_le_bytes([bytes[0], bytes.get(1).copied().unwrap_or(0)]);
            return format!("0x{b:04x}");
        }
        match self.decode(bytes) {
            Value::Int(v) => v.to_string(),
            Value::UInt(v) => v.to_string(),
            Value::Float(v) => match self {
                Format::Float64 => show_f64(v),
                _ => show_f32(v as f32),
            },
            Value::Hex(v, w) => format!("0x{:0width$x}", v, width = 2 * w as usize),
        }
    }

    /// Prints one element as the offload-test-suite's offloader does (LLVM YAML I/O):
    /// floats with C's `%g` (six significant digits), hex and Float16 bits as
    /// `0x` + uppercase digits without padding, integers in decimal.
    pub fn show_llvm(self, bytes: &[u8]) -> String {
        if self == Format::Float16 {
            let b = u16::from_le_bytes([bytes[0], bytes.get(1).copied().unwrap_or(0)]);
            return format!("0x{b:X}");
        }
        match self.decode(bytes) {
            Value::Float(v) => c_format_g(v),
            Value::Hex(v, _) => format!("0x{v:X}"),
            _ => self.show(bytes),
        }
    }

    /// Prints every element of `bytes`; a trailing partial element is printed as hex bytes.
    pub fn show_all(self, bytes: &[u8]) -> Vec<String> {
        self.show_all_with(bytes, Format::show)
    }

    /// [`Format::show_all`] in the offloader's spelling ([`Format::show_llvm`]).
    pub fn show_all_llvm(self, bytes: &[u8]) -> Vec<String> {
        self.show_all_with(bytes, Format::show_llvm)
    }

    /// The longest an element's text can be in either spelling ([`Format::show`],
    /// [`Format::show_llvm`]), for sizing what printing a buffer takes.
    pub fn max_text_len(self) -> usize {
        match self {
            Format::Int16 | Format::UInt16 | Format::Float16 | Format::Hex16 => 6,
            Format::Int32 | Format::UInt32 | Format::Hex32 | Format::Bool => 11,
            Format::Int64 | Format::UInt64 | Format::Hex64 => 20,
            Format::Float32 => 15,
            Format::Float64 => 24,
            Format::Hex8 => 4,
        }
    }

    /// `[ a, b, ... ]` (or `[]`) of the elements of `bytes`, appended to `out`:
    /// as [`Format::show_all`] (`exact`) or [`Format::show_all_llvm`] joined,
    /// without a string per element held at once (a buffer may have millions).
    pub fn write_list(self, out: &mut String, bytes: &[u8], exact: bool) {
        let show = if exact { Format::show } else { Format::show_llvm };
        let size = self.size();
        let rest = bytes.len() % size;
        if bytes.is_empty() {
            out.push_str("[]");
            return;
        }
        out.push_str("[ ");
        let whole = bytes.chunks_exact(size).map(|c| show(self, c));
        let tail = bytes[bytes.len() - rest..].iter().map(|b| format!("0x{b:02x}"));
        for (i, v) in whole.chain(tail).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&v);
        }
        out.push_str(" ]");
    }

    fn show_all_with(self, bytes: &[u8], show: fn(Format, &[u8]) -> String) -> Vec<String> {
        let size = self.size();
        let mut out: Vec<String> = bytes.chunks_exact(size).map(|c| show(self, c)).collect();
        let rest = bytes.len() % size;
        if rest != 0 {
            out.extend(bytes[bytes.len() - rest..].iter().map(|b| format!("0x{b:02x}")));
        }
        out
    }
}

/// C's `printf("%g", v)`: six significant digits, trailing zeros dropped, exponent
/// form (`1e-07`, `1.23457e+06`) when the decimal exponent is below -4 or above 5.
pub fn c_format_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    const P: i32 = 6;
    // The exponent of the value rounded to P significant digits.
    let sci = format!("{:.*e}", (P - 1) as usize, v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..P).contains(&x) {
        strip(&format!("{:.*}", (P - 1 - x) as usize, v))
    } else {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mant), x.abs())
    }
}

/// Parses a float as the YAML may spell it: decimal, `nan`, `inf`, `.nan`, `-.inf`, hex integers.
pub fn parse_float(t: &str) -> Option<f64> {
    let lower = t.to_ascii_lowercase();
    let (neg, body) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    match body {
        "nan" | ".nan" => return Some(if neg { -f64::NAN } else { f64::NAN }),
        "inf" | ".inf" | "infinity" => return Some(sign * f64::INFINITY),
        _ => {}
    }
    if let Some(hex) = body.strip_prefix("0x") {
        // C99 hex floats (`0x1.e7d42cp-127`) as strtod reads them; a hex integer is its value.
        if hex.contains(['.', 'p']) {
            return parse_hex_float(hex).map(|v| sign * v);
        }
        return parse_int(t).map(|v| v as f64);
    }
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-' | b'_')) {
        return None;
    }
    body.replace('_', "").parse::<f64>().ok().map(|v| sign * v)
}

/// The value of a hex float's digits after `0x`: `h.hhhp±d` (exact while the
/// digits fit 60 bits; the exponent is optional).
fn parse_hex_float(hex: &str) -> Option<f64> {
    let (digits, exp) = match hex.split_once('p') {
        Some((d, e)) => (d, e.parse::<i32>().ok()?),
        None => (hex, 0),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let all: String = format!("{int}{frac}");
    if all.len() > 15 || !all.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mantissa = u64::from_str_radix(if all.is_empty() { "0" } else { &all }, 16).ok()? as f64;
    // Scale in two steps so that subnormal results are not flushed.
    let e = exp - 4 * frac.len() as i32;
    Some(mantissa * 2f64.powi(e / 2) * 2f64.powi(e - e / 2))
}

/// Parses an integer: decimal, `0x`, `0o`, `0b`, optional sign and `_` separators;
/// a float with no fractional part (`3.0`) is accepted too.
pub fn parse_int(t: &str) -> Option<i128> {
    let s = t.replace('_', "").to_ascii_lowercase();
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let mag = if let Some(h) = body.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()?
    } else if let Some(o) = body.strip_prefix("0o") {
        u128::from_str_radix(o, 8).ok()?
    } else if let Some(b) = body.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok()?
    } else if let Ok(v) = body.parse::<u128>() {
        v
    } else {
        let f: f64 = body.parse().ok()?;
        if !f.is_finite() || f.fract() != 0.0 || f >= 1.8e19 {
            return None;
        }
        f as u128
    };
    let mag = i128::try_from(mag).ok()?;
    Some(if neg { -mag } else { mag })
}

/// Shortest text that reads back as the same f32 (`1.5`, `-0`, `nan`, `-nan`, `inf`, `1e-7`).
pub fn show_f32(v: f32) -> String {
    if v.is_nan() {
        // The sign of a NaN is data too (`-nan` reads back with it).
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Shortest text that reads back as the same f64.
pub fn show_f64(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Half-precision bits nearest to `x`, rounding once from f64 (ties to even).
pub fn f16_from_f64(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}

/// Half-precision bits nearest to `x`.
pub fn f16_from_f32(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

/// The value of half-precision bits `h` (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    half::f16::from_bits(h).to_f64()
}

pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions() {
        assert_eq!(f16_from_f32(1.0), 0x3c00);
        assert_eq!(f16_from_f32(-2.0), 0xc000);
        assert_eq!(f16_from_f32(0.0), 0x0000);
        assert_eq!(f16_from_f32(-0.0), 0x8000);
        assert_eq!(f16_from_f32(65504.0), 0x7bff);
        assert_eq!(f16_from_f32(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(f16_from_f32(65519.0), 0x7bff);
        assert_eq!(f16_from_f32(f32::INFINITY), 0x7c00);
        assert_eq!(f16_from_f32(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f16_from_f32(f32::NAN) & 0x7e00, 0x7e00);
        assert_eq!(f16_from_f32(5.960_464_5e-8), 0x0001); // smallest subnormal
        assert_eq!(f16_from_f32(2.980_232_2e-8), 0x0000); // half of it: tie to even (0)
        assert_eq!(f16_from_f32(8.940_697e-8), 0x0002); // 1.5 * smallest: tie to even (2)
        assert_eq!(f16_from_f32(f32::from_bits(0x387f_c000)), 0x03ff); // largest subnormal
        assert_eq!(f16_from_f32(6.103_515_6e-5), 0x0400); // smallest normal
                                                          // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
        assert_eq!(f16_from_f64(1.0 + 2f64.powi(-11)), 0x3c00);
        // 1 + 3 * 2^-11 ties between 1+2^-10 (odd) and 1+2^-9 (even).
        assert_eq!(f16_from_f64(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(f16_from_f64(0.1), 0x2e66);
        assert_eq!(f16_from_f64(1e-10), 0);
        // Every half round-trips through f64.
        for h in 0..=u16::MAX {
            let v = f16_to_f64(h);
            if v.is_nan() {
                assert!(f16_from_f64(v) & 0x7c00 == 0x7c00 && f16_from_f64(v) & 0x3ff != 0);
            } else {
                assert_eq!(f16_from_f64(v), h, "half {h:#06x} = {v}");
            }
        }
    }

    #[test]
    fn every_format_round_trips() {
        let samples: &[(Format, &[&str])] = &[
            (Format::Int16, &["0", "-32768", "32767", "-1"]),
            (Format::UInt16, &["0", "65535", "12"]),
            (Format::Int32, &["-2147483648", "2147483647", "-7", "0"]),
            (Format::UInt32, &["4294967295", "0", "42"]),
            (Format::Int64, &["-9223372036854775808", "9223372036854775807", "-3"]),
            (Format::UInt64, &["18446744073709551615", "0", "5"]),
            (Format::Float16, &["0x3c00", "0x8000", "0x7c00", "0x0001", "0x7e00"]),
            (Format::Bool, &["0", "1"]),
            (Format::Float32, &["1.5", "-0", "0", "nan", "-nan", "inf", "-inf", "3.4028235e38", "1e-45", "0.1", "-2.75"]),
            (Format::Float64, &["0.1", "-0", "1e300", "nan", "-nan", "-inf", "2.5"]),
            (Format::Hex8, &["0x00", "0xff", "0x7f"]),
            (Format::Hex16, &["0xbeef", "0x0001"]),
            (Format::Hex32, &["0x3f800000", "0xffffffff", "0x00000000"]),
            (Format::Hex64, &["0xdeadbeefcafef00d", "0x0000000000000001"]),
        ];
        for (f, values) in samples {
            for v in *values {
                let bytes = f.encode(v).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(bytes.len(), f.size());
                let shown = f.show(&bytes);
                assert_eq!(&shown, v, "{} {v}", f.name());
                assert_eq!(f.encode(&shown).unwrap(), bytes);
            }
        }
    }

    #[test]
    fn offloader_spellings() {
        // Float16 data are bit patterns, decimal or hex; a float value is refused.
        assert_eq!(Format::Float16.encode("15360").unwrap(), 0x3c00u16.to_le_bytes());
        assert_eq!(Format::Float16.encode("-1").unwrap(), 0xffffu16.to_le_bytes());
        assert!(Format::Float16.encode("1.5").is_err());
        // Hex floats, subnormal ones included.
        assert_eq!(Format::Float32.encode("0x1.8p1").unwrap(), 3.0f32.to_le_bytes());
        assert_eq!(Format::Float32.encode("-0x1.e7d42cp-127").unwrap(), f32::from_bits(0x8079_f50b).to_le_bytes());
        assert_eq!(Format::Float32.encode("0x1.fc35fc0000000p-10").unwrap(), (f64::from_bits(0x3f5f_c35f_c000_0000) as f32).to_le_bytes());
        assert_eq!(Format::Float64.encode("0x.8").unwrap(), 0.5f64.to_le_bytes());
        assert_eq!(Format::Float32.encode("0x10").unwrap(), 16.0f32.to_le_bytes());
        assert_eq!(Format::Bool.encode("1").unwrap(), 1u32.to_le_bytes());
    }

    #[test]
    fn accepted_spellings_and_range_errors() {
        assert_eq!(Format::Float32.encode(".nan").unwrap(), f32::NAN.to_le_bytes());
        assert_eq!(Format::Float32.encode("-.inf").unwrap(), f32::NEG_INFINITY.to_le_bytes());
        assert_eq!(Format::Float32.encode("2").unwrap(), 2.0f32.to_le_bytes());
        assert_eq!(Format::Float32.encode("1e3").unwrap(), 1000.0f32.to_le_bytes());
        assert_eq!(Format::Int32.encode("0x10").unwrap(), 16i32.to_le_bytes());
        assert_eq!(Format::Int32.encode("3.0").unwrap(), 3i32.to_le_bytes());
        assert_eq!(Format::Hex32.encode("-1").unwrap(), [0xff; 4]);
        assert_eq!(Format::Hex32.encode("16").unwrap(), 16u32.to_le_bytes());
        assert!(Format::Int32.encode("3.5").is_err());
        assert!(Format::Int16.encode("32768").is_err());
        assert!(Format::UInt32.encode("-1").is_err());
        assert!(Format::UInt32.encode("4294967296").is_err());
        assert!(Format::Hex8.encode("0x100").is_err());
        assert!(Format::Float32.encode("abc").is_err());
        assert!(Format::Int32.encode("").is_err());
        assert_eq!(Format::from_name("Float32"), Some(Format::Float32));
        assert_eq!(Format::from_name("Bool"), Some(Format::Bool));
        assert_eq!(Format::from_name("Depth32"), None);
    }

    #[test]
    fn printing() {
        assert_eq!(show_f32(1.5), "1.5");
        assert_eq!(show_f32(-0.0), "-0");
        assert_eq!(show_f32(f32::NAN), "nan");
        assert_eq!(show_f32(f32::NEG_INFINITY), "-inf");
        assert_eq!(show_f32(1e20), "1e20");
        assert_eq!(show_f32(100.0), "100");
        assert_eq!(Format::Hex16.show(&[0x2a, 0x00]), "0x002a");
        assert_eq!(Format::Int32.show_all(&[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 7]), ["1", "-1", "0x07"]);
    }
}
