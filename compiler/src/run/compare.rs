//! The comparison rules of `Results`.
//!
//! - `BufferExact`: element bytes equal (so `-0` differs from `0` and NaN payloads matter).
//! - `BufferFloatULP`: floats at most `ULPT` units in the last place apart, counting across
//!   zero (`-0` and `+0` are 0 apart, the smallest subnormals of each sign 2 apart); NaN
//!   matches any NaN and nothing else.
//! - `BufferFloatEpsilon`: `|got - expected| <= Epsilon`; equal values (including
//!   infinities of one sign) match; NaN matches any NaN and nothing else.

use super::format::Format;
use super::pipeline::{Buffer, Rule};

/// What one `Result` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// `(actual bytes, expected bytes)` when the sizes differ.
    pub size_mismatch: Option<(usize, usize)>,
    /// Indices of elements that differ (over the common length).
    pub mismatches: Vec<usize>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.size_mismatch.is_none() && self.mismatches.is_empty()
    }
}

/// Bits of element `i` of a float buffer, and its width in bits.
fn float_bits(format: Format, chunk: &[u8]) -> (u64, u32) {
    let mut raw = [0u8; 8];
    raw[..chunk.len()].copy_from_slice(chunk);
    (u64::from_le_bytes(raw), format.size() as u32 * 8)
}

fn is_nan_bits(bits: u64, width: u32) -> bool {
    let (exp_bits, man_bits) = match width {
        16 => (5, 10),
        32 => (8, 23),
        _ => (11, 52),
    };
    let exp = (bits >> man_bits) & ((1 << exp_bits) - 1);
    let man = bits & ((1u64 << man_bits) - 1);
    exp == (1 << exp_bits) - 1 && man != 0
}

/// Distance in units in the last place between two non-NaN floats of `width` bits,
/// on the line where the negative floats precede the positive ones and -0 == +0.
pub fn ulp_distance(a: u64, b: u64, width: u32) -> u128 {
    let ordered = |x: u64| -> i128 {
        let sign = 1u64 << (width - 1);
        let mag = (x & (sign - 1)) as i128;
        if x & sign != 0 {
            -mag
        } else {
            mag
        }
    };
    (ordered(a) - ordered(b)).unsigned_abs()
}

/// Compares `actual` with `expected` under `rule`. Float rules require float formats
/// (checked when the pipeline is parsed).
pub fn compare(rule: Rule, actual: &Buffer, expected: &Buffer) -> Comparison {
    compare_with(rule, false, actual, expected)
}

/// Is the float of `width` bits a denormal?
fn is_denormal_bits(bits: u64, width: u32) -> bool {
    let (exp_bits, man_bits) = match width {
        16 => (5, 10),
        32 => (8, 23),
        _ => (11, 52),
    };
    (bits >> man_bits) & ((1 << exp_bits) - 1) == 0 && bits & ((1u64 << man_bits) - 1) != 0
}

/// Is the float `got` a zero of the sign of the denormal `want` (`DenormMode: Any`)?
fn flushed_match(got: u64, want: u64, width: u32) -> bool {
    let sign = 1u64 << (width - 1);
    is_denormal_bits(want, width) && got & !sign == 0 && got & sign == want & sign
}

/// [`compare`], where `denorm_any` (`DenormMode: Any`) also lets a zero of the same
/// sign stand for an expected denormal under the float rules.
pub fn compare_with(rule: Rule, denorm_any: bool, actual: &Buffer, expected: &Buffer) -> Comparison {
    let mut out = Comparison::default();
    // As the offloader: arrays of buffers compare only with arrays of as many.
    if actual.data.len() != expected.data.len() || actual.array_size != expected.array_size {
        out.size_mismatch = Some((actual.data.len(), expected.data.len()));
    }
    // BufferExact compares bytes, as the offloader does, whatever the two formats
    // (mismatches are counted in elements of the expected buffer's format).
    let (a_size, e_size) = match rule {
        Rule::BufferExact => (expected.format.size(), expected.format.size()),
        _ => (actual.format.size(), expected.format.size()),
    };
    let a_chunks = actual.data.chunks(a_size);
    let e_chunks = expected.data.chunks(e_size);
    for (i, (a, e)) in a_chunks.zip(e_chunks).enumerate() {
        let ok = match rule {
            Rule::BufferExact => a == e,
            Rule::BufferFloatULP { ulpt } => {
                let (a, w) = float_bits(actual.format, a);
                let (e, _) = float_bits(expected.format, e);
                match (is_nan_bits(a, w), is_nan_bits(e, w)) {
                    (false, false) if denorm_any && flushed_match(a, e, w) => true,
                    (true, true) => true,
                    (false, false) => ulp_distance(a, e, w) <= ulpt as u128,
                    _ => false,
                }
            }
            Rule::BufferFloatEpsilon { epsilon } => {
                let (ab, w) = float_bits(actual.format, a);
                let (eb, _) = float_bits(expected.format, e);
                let (a, e) = (float_value(actual.format, a), float_value(expected.format, e));
                match (a.is_nan(), e.is_nan()) {
                    (false, false) if denorm_any && flushed_match(ab, eb, w) => true,
                    (true, true) => true,
                    (false, false) => a == e || (a - e).abs() <= epsilon,
                    _ => false,
                }
            }
        };
        if !ok {
            out.mismatches.push(i);
        }
    }
    out
}

fn float_value(format: Format, chunk: &[u8]) -> f64 {
    match format.decode(chunk) {
        super::format::Value::Float(v) => v,
        super::format::Value::Int(v) => v as f64,
        super::format::Value::UInt(v) => v as f64,
        super::format::Value::Hex(v, _) => v as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32buf(name: &str, v: &[f32]) -> Buffer {
        Buffer {
            name: name.into(),
            format: Format::Float32,
            stride: None,
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            channels: None,
            array_size: 1,
            counters: Vec::new(),
        }
    }

    #[test]
    fn denorm_mode_any_accepts_a_flushed_zero_of_the_same_sign() {
        let f = |v: &[f32]| f32buf("b", v);
        let den = f32::from_bits(0x0000_1234);
        let e = f(&[den, -den, den]);
        let a = f(&[0.0, -0.0, -0.0]);
        for rule in [Rule::BufferFloatULP { ulpt: 0 }, Rule::BufferFloatEpsilon { epsilon: 0.0 }] {
            assert_eq!(compare_with(rule, true, &a, &e).mismatches, vec![2], "{rule:?}");
            assert_eq!(compare_with(rule, false, &a, &e).mismatches.len(), 3, "{rule:?}");
            // The denormal itself still matches.
            assert!(compare_with(rule, true, &e, &e).passed());
        }
    }

    #[test]
    fn ulp_distance_across_sign_and_zero() {
        let d = |a: f32, b: f32| ulp_distance(a.to_bits() as u64, b.to_bits() as u64, 32);
        assert_eq!(d(1.0, 1.0), 0);
        assert_eq!(d(0.0, -0.0), 0);
        assert_eq!(d(1.0, f32::from_bits(1.0f32.to_bits() + 1)), 1);
        let tiny = f32::from_bits(1);
        assert_eq!(d(tiny, -tiny), 2);
        assert_eq!(d(tiny, 0.0), 1);
        assert_eq!(d(-tiny, 0.0), 1);
        assert_eq!(d(f32::MAX, f32::INFINITY), 1);
        assert_eq!(d(-1.0, 1.0), 2 * 0x3f80_0000);
        // 64-bit: the whole range fits.
        assert_eq!(ulp_distance(f64::MAX.to_bits(), (-f64::MAX).to_bits(), 64), 2 * 0x7fef_ffff_ffff_ffffu128);
        // 16-bit: 1.0 and the next half.
        assert_eq!(ulp_distance(0x3c00, 0x3c01, 16), 1);
        assert_eq!(ulp_distance(0x8001, 0x0001, 16), 2);
    }

    #[test]
    fn float_ulp_rule() {
        let next = f32::from_bits(1.0f32.to_bits() + 1);
        let next2 = f32::from_bits(1.0f32.to_bits() + 2);
        let e = f32buf("E", &[1.0, 1.0, f32::NAN, 0.0, 5.0, f32::INFINITY]);
        let a = f32buf("A", &[next, next2, f32::from_bits(0x7fc0_0001), -0.0, f32::NAN, f32::INFINITY]);
        let c = compare(Rule::BufferFloatULP { ulpt: 1 }, &a, &e);
        assert_eq!(c.mismatches, vec![1, 4]);
        assert!(c.size_mismatch.is_none());
        let c = compare(Rule::BufferFloatULP { ulpt: 0 }, &a, &e);
        assert_eq!(c.mismatches, vec![0, 1, 4]);
    }

    #[test]
    fn float_epsilon_rule() {
        let e = f32buf("E", &[1.0, 1.0, f32::NAN, f32::INFINITY, f32::INFINITY, 0.0]);
        let a = f32buf("A", &[1.05, 1.2, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
        let c = compare(Rule::BufferFloatEpsilon { epsilon: 0.1 }, &a, &e);
        assert_eq!(c.mismatches, vec![1, 4, 5]);
    }

    #[test]
    fn exact_rule_and_sizes() {
        let e = f32buf("E", &[1.0, 0.0, f32::NAN]);
        let a = f32buf("A", &[1.0, -0.0, f32::NAN, 4.0]);
        let c = compare(Rule::BufferExact, &a, &e);
        assert_eq!(c.mismatches, vec![1]);
        assert_eq!(c.size_mismatch, Some((16, 12)));
        assert!(!c.passed());
        let i = |v: &[i32]| Buffer {
            name: "I".into(),
            format: Format::Int32,
            stride: None,
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            channels: None,
            array_size: 1,
            counters: Vec::new(),
        };
        assert!(compare(Rule::BufferExact, &i(&[1, -2, 3]), &i(&[1, -2, 3])).passed());
        assert_eq!(compare(Rule::BufferExact, &i(&[1, -2, 3]), &i(&[1, 2, 3])).mismatches, vec![1]);
    }

    #[test]
    fn exact_compares_bytes_across_formats() {
        // 1, 2 as two UInt64 are the same bytes as 1, 0, 2, 0 as UInt32 (the offloader memcmps).
        let words = Buffer { format: Format::UInt32, ..f32buf("A", &[]) };
        let words = Buffer { data: [1u32, 0, 2, 0].iter().flat_map(|x| x.to_le_bytes()).collect(), ..words };
        let longs = Buffer { format: Format::UInt64, data: [1u64, 2].iter().flat_map(|x| x.to_le_bytes()).collect(), ..words.clone() };
        assert!(compare(Rule::BufferExact, &words, &longs).passed());
        let other = Buffer { data: [1u64, 3].iter().flat_map(|x| x.to_le_bytes()).collect(), ..longs.clone() };
        assert_eq!(compare(Rule::BufferExact, &words, &other).mismatches, vec![1]);
    }

    #[test]
    fn half_and_double_rules() {
        let h = |v: &[u16]| Buffer {
            name: "H".into(),
            format: Format::Float16,
            stride: None,
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            channels: None,
            array_size: 1,
            counters: Vec::new(),
        };
        assert_eq!(
            compare(Rule::BufferFloatULP { ulpt: 1 }, &h(&[0x3c01, 0x7e00, 0x3c02]), &h(&[0x3c00, 0x7e01, 0x3c00])).mismatches,
            vec![2]
        );
        assert_eq!(compare(Rule::BufferFloatEpsilon { epsilon: 0.001 }, &h(&[0x3c01]), &h(&[0x3c00])).mismatches, Vec::<usize>::new());
        let d = |v: &[f64]| Buffer {
            name: "D".into(),
            format: Format::Float64,
            stride: None,
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            channels: None,
            array_size: 1,
            counters: Vec::new(),
        };
        assert!(compare(Rule::BufferFloatULP { ulpt: 0 }, &d(&[0.1, f64::NAN]), &d(&[0.1, -f64::NAN])).passed());
        assert_eq!(compare(Rule::BufferFloatULP { ulpt: 0 }, &d(&[0.1 + 0.2]), &d(&[0.3])).mismatches, vec![0]);
        assert!(compare(Rule::BufferFloatULP { ulpt: 1 }, &d(&[0.1 + 0.2]), &d(&[0.3])).passed());
    }
}
