//! Options that every stage below the driver may read: the ISA profile and
//! the optimization level. They live here, not in the driver, so that
//! passes, instruction selection and the allocator never import the driver.

/// Output ISA profile (design.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// WAVE spec v0.4 (default).
    Wave,
    /// What the published 0.1.2 crates execute correctly.
    Wave012,
}

impl Isa {
    pub fn name(self) -> &'static str {
        match self {
            Isa::Wave => "wave",
            Isa::Wave012 => "wave-0.1.2",
        }
    }
    /// Architectural register limit of the profile.
    pub fn max_registers(self) -> u32 {
        match self {
            Isa::Wave => 256,
            Isa::Wave012 => 32,
        }
    }
    pub fn sim_profile(self) -> wavesim::Profile {
        match self {
            Isa::Wave => wavesim::Profile::Spec04,
            Isa::Wave012 => wavesim::Profile::Toolchain012,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O,
}

/// The HLSL language version a compilation follows (`-HV`), as the year
/// `__HLSL_VERSION` holds. 2021 and later are DXC's current rules; 2016,
/// 2017 and 2018 (which DXC treats alike, as FXC did) evaluate both sides of
/// `&&`, `||` and `?:` element-wise, let `for` init variables outlive the loop,
/// and convert structs of the same layout into each other implicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HlslVersion(pub u32);

impl HlslVersion {
    /// DXC's default since its 2023 releases.
    pub const DEFAULT: HlslVersion = HlslVersion(2021);
    /// What Unity `.compute` files are written for (FXC's rules).
    pub const UNITY: HlslVersion = HlslVersion(2018);

    /// Pre-2021 rules (no short-circuit, leaking `for` scope, loose struct casts).
    pub fn legacy(self) -> bool {
        self.0 < 2021
    }
}

impl Default for HlslVersion {
    fn default() -> HlslVersion {
        HlslVersion::DEFAULT
    }
}

/// The value `-HV` sets `__HLSL_VERSION` to, as dxc reads it: a year (2016,
/// 2017, 2018, 2021) or `202x` (the next version, 2029 in dxc).
pub fn parse_hlsl_version(text: &str) -> Option<u32> {
    match text {
        "2016" | "2017" | "2018" | "2021" => text.parse().ok(),
        "202x" => Some(2029),
        _ => None,
    }
}

#[cfg(test)]
mod version_tests {
    #[test]
    fn hlsl_versions_as_dxc_reads_them() {
        assert_eq!(super::parse_hlsl_version("2018"), Some(2018));
        assert_eq!(super::parse_hlsl_version("202x"), Some(2029));
        assert_eq!(super::parse_hlsl_version("2019"), None);
        assert_eq!(super::parse_hlsl_version("21"), None);
    }

    #[test]
    fn legacy_rules_before_2021() {
        use super::HlslVersion;
        assert!(HlslVersion(2016).legacy() && HlslVersion(2018).legacy() && HlslVersion::UNITY.legacy());
        assert!(!HlslVersion::default().legacy() && !HlslVersion(2029).legacy());
    }
}

/// Denormal handling of 32-bit floats (dxc's `-denorm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Denorm {
    /// `any` (dxc's default): the implementation's choice, here IEEE (`preserve`) at no cost.
    #[default]
    Any,
    /// IEEE denormals, as WAVE computes.
    Preserve,
    /// Flush to sign-preserving zero, as D3D requires of fp32 arithmetic: the inputs and
    /// results of float operations (not of moves, loads, stores, `abs`, negation, selects
    /// or bit casts) are flushed.
    Ftz,
}

impl Denorm {
    pub fn parse(s: &str) -> Option<Denorm> {
        Some(match s {
            "any" => Denorm::Any,
            "preserve" => Denorm::Preserve,
            "ftz" => Denorm::Ftz,
            _ => return None,
        })
    }
}
