//! Half-precision helpers (IEEE binary16 <-> binary32, round to nearest even), on the `half` crate.

/// The f32 value of half-precision bits `h` (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// The half-precision bits nearest to `f` (ties to even; NaN stays NaN).
pub fn f32_to_f16(f: f32) -> u16 {
    half::f16::from_f32(f).to_bits()
}

pub fn h1(a: u32, f: impl Fn(f32) -> f32) -> u32 {
    f32_to_f16(f(f16_to_f32(a as u16))) as u32
}
