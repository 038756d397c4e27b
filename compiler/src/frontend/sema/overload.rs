//! DXC's ranking of overload candidates (SemaHLSL.cpp: `ScoreCast`,
//! `GetBestViableFunction`), so that a call DXC resolves picks the same function.
//!
//! Each argument's conversion to its parameter type (and back, for `out` and
//! `inout`) gets a score: a bit for each of, from least to most costly, a splat
//! (scalar to vector), a promotion on either side of the two element types'
//! common type, a signedness change (`int` <-> `uint`: "int cast"), any other
//! conversion ("cast"), and a truncation. The bits of all arguments are summed
//! (each kind in its own 7-bit field, so any number of cheaper conversions costs
//! less than one dearer one); the least total wins, and DXC reports a tie as
//! ambiguous. Unsuffixed literals are their own kinds (`literal int`, `literal
//! float`), which convert to any integer (float) type for free.

use crate::frontend::tast::*;

/// DXC's element kinds, for the types wavec has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Bool,
    LitInt,
    LitFloat,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Half16,
    Float32,
    Int64,
    Uint64,
    Float64,
}

impl Kind {
    pub(super) fn of(s: ScalarType) -> Kind {
        match s {
            ScalarType::Bool => Kind::Bool,
            ScalarType::Int => Kind::Int32,
            ScalarType::Uint => Kind::Uint32,
            ScalarType::Float => Kind::Float32,
            ScalarType::Int16 => Kind::Int16,
            ScalarType::Uint16 => Kind::Uint16,
            ScalarType::Half => Kind::Half16,
            ScalarType::Int64 => Kind::Int64,
            ScalarType::Uint64 => Kind::Uint64,
            ScalarType::Double => Kind::Float64,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Kind::LitFloat | Kind::Half16 | Kind::Float32 | Kind::Float64)
    }
    fn is_int(self) -> bool {
        matches!(self, Kind::LitInt | Kind::Int16 | Kind::Uint16 | Kind::Int32 | Kind::Uint32 | Kind::Int64 | Kind::Uint64)
    }
    fn is_literal(self) -> bool {
        matches!(self, Kind::LitInt | Kind::LitFloat)
    }
    fn unsigned(self) -> bool {
        matches!(self, Kind::Uint16 | Kind::Uint32 | Kind::Uint64)
    }
    /// Bits of the type; 0 for bool and literals.
    fn bits(self) -> u32 {
        match self {
            Kind::Bool | Kind::LitInt | Kind::LitFloat => 0,
            Kind::Int16 | Kind::Uint16 | Kind::Half16 => 16,
            Kind::Int64 | Kind::Uint64 | Kind::Float64 => 64,
            _ => 32,
        }
    }
}

/// The type both element kinds convert to (DXC's `CombineBasicTypes`).
fn combine(l: Kind, r: Kind) -> Kind {
    if l == r {
        return l;
    }
    if l == Kind::Bool && r == Kind::Bool {
        return Kind::Bool;
    }
    let float = l.is_float() || r.is_float();
    if l.is_literal() && r.is_literal() {
        return if float { Kind::LitFloat } else { Kind::LitInt };
    }
    let mut bits = l.bits().max(r.bits());
    if float && !(l.is_float() && r.is_float()) {
        // One float side: it decides the width (a literal float: 32 bits).
        bits = if l.is_float() { l.bits() } else { r.bits() };
    }
    if bits == 0 {
        bits = 32;
    }
    match (float, bits) {
        (true, 16) => Kind::Half16,
        (true, 64) => Kind::Float64,
        (true, _) => Kind::Float32,
        (false, 16) if l.unsigned() || r.unsigned() => Kind::Uint16,
        (false, 16) => Kind::Int16,
        (false, 64) if l.unsigned() || r.unsigned() => Kind::Uint64,
        (false, 64) => Kind::Int64,
        (false, _) if l.unsigned() || r.unsigned() => Kind::Uint32,
        (false, _) => Kind::Int32,
    }
}

/// Is `l` a promotion of `r` (a wider type of the same kind)?
fn is_promotion(l: Kind, r: Kind) -> bool {
    match r {
        Kind::Half16 => matches!(l, Kind::Float32 | Kind::Float64),
        Kind::Float32 => l == Kind::Float64,
        Kind::Int16 | Kind::Uint16 => matches!(l, Kind::Int32 | Kind::Uint32 | Kind::Int64 | Kind::Uint64),
        Kind::Int32 | Kind::Uint32 => matches!(l, Kind::Int64 | Kind::Uint64),
        _ => false,
    }
}

/// Is converting `r` to `l` a "cast" (DXC: anything but equal types, literals to
/// their kind, and signedness changes of one width)?
fn is_cast(l: Kind, r: Kind) -> bool {
    if l == r {
        return false;
    }
    let free = match l {
        Kind::LitInt => r.is_int(),
        Kind::Int16 => matches!(r, Kind::LitInt | Kind::Uint16),
        Kind::Uint16 => matches!(r, Kind::LitInt | Kind::Int16),
        Kind::Int32 => matches!(r, Kind::LitInt | Kind::Uint32),
        Kind::Uint32 => matches!(r, Kind::LitInt | Kind::Int32),
        Kind::Int64 => matches!(r, Kind::LitInt | Kind::Uint64),
        Kind::Uint64 => matches!(r, Kind::LitInt | Kind::Int64),
        Kind::LitFloat => r.is_float(),
        Kind::Half16 | Kind::Float32 | Kind::Float64 => r == Kind::LitFloat,
        Kind::Bool => false,
    };
    !free
}

/// Is converting `r` to `l` an "int cast" (a change of signedness or width)?
fn is_int_cast(l: Kind, r: Kind) -> bool {
    if l == r {
        return false;
    }
    let free = match l {
        Kind::LitInt => r.is_int(),
        k if k.is_int() => r == Kind::LitInt,
        Kind::LitFloat => r.is_float(),
        k if k.is_float() => r == Kind::LitFloat,
        _ => false,
    };
    !free
}

/// DXC's score of converting a value of type `from` (element kind `from_kind`,
/// which says whether it is a literal) to type `to`. 0 is an exact match.
pub(super) fn score(from: Type, from_kind: Kind, to: Type) -> u64 {
    if from == to && !from_kind.is_literal() {
        return 0;
    }
    let (lsize, rsize) = (to.len(), from.len());
    let (mut lpromo, mut rpromo, mut lint, mut rint, mut lcast, mut rcast) = (false, false, false, false, false, false);
    match to.scalar() {
        Some(ts) if lsize > 0 && rsize > 0 => {
            let (l, r) = (Kind::of(ts), from_kind);
            let c = combine(l, r);
            if is_promotion(l, c) {
                lpromo = true;
            } else if is_cast(l, c) {
                lcast = true;
            } else if is_int_cast(l, c) {
                lint = true;
            }
            if is_promotion(c, r) {
                rpromo = true;
            } else if is_cast(c, r) {
                rcast = true;
            } else if is_int_cast(c, r) {
                rint = true;
            }
        }
        // Structs (HLSL 2018 layout conversions): a conversion of every element.
        _ => {
            lcast = true;
            rcast = true;
        }
    }
    let conds = [rsize < lsize, lpromo, rpromo, lint, rint, lcast, rcast, lsize < rsize];
    conds.iter().enumerate().filter(|(_, c)| **c).map(|(k, _)| 1u64 << (2 + 7 * k)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(from: Type, to: Type) -> u64 {
        score(from, Kind::of(from.scalar().unwrap()), to)
    }

    #[test]
    fn orders_as_dxc_does() {
        let (i, u, f, b) = (Type::INT, Type::UINT, Type::FLOAT, Type::BOOL);
        let v = |t: Type, n: u8| Type::Vector(t.scalar().unwrap(), n);
        assert_eq!(s(f, f), 0);
        // A signedness change is cheaper than a conversion to float (uint2 picks int2).
        assert!(s(v(u, 2), v(i, 2)) < s(v(u, 2), v(f, 2)));
        assert!(s(u, i) < s(u, f));
        // bool to int and to float are both casts of the same cost (DXC: ambiguous).
        assert_eq!(s(b, i), s(b, f));
        // A splat is cheaper than any element conversion; a truncation dearer than all.
        assert!(s(f, v(f, 3)) < s(i, f));
        assert!(s(v(f, 3), f) > s(v(i, 3), v(f, 3)));
        // Literals convert to their kind for free, to the other kind with a cast.
        assert_eq!(score(i, Kind::LitInt, u), 0);
        assert_eq!(score(i, Kind::LitInt, i), 0);
        assert!(score(i, Kind::LitInt, f) > 0);
        assert_eq!(score(f, Kind::LitFloat, f), 0);
        assert!(score(f, Kind::LitFloat, i) > 0);
        // 16-bit to 32-bit of the same kind is a promotion, cheaper than an int cast.
        let (h, i16_) = (Type::Scalar(ScalarType::Half), Type::Scalar(ScalarType::Int16));
        assert!(s(h, f) < s(h, i));
        assert!(s(i16_, i) < s(i16_, u) || s(i16_, i) == s(i16_, u));
    }
}
