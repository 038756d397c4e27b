//! Memory layouts of HLSL types (docs/language.md, "Buffer and cbuffer layouts").
//!
//! Two rule sets:
//! * [`Rules::Tight`]: structured, typed and byte-address buffers, and
//!   groupshared memory. D3D's tight packing: every value is aligned to the
//!   size of its scalar type (4 bytes, 2 for 16-bit types), structs to their
//!   largest member, with no other padding; a `float3` member takes 12 bytes.
//! * [`Rules::Cbuffer`]: HLSL's legacy constant-buffer packing in 16-byte
//!   rows, as DXC computes it: a scalar or vector never straddles a row;
//!   arrays, structs and matrices of more than one column (row when
//!   `row_major`) start a new row; every array element starts a new row; a
//!   struct's size ends at its last member, so a following scalar may share
//!   that row.
//!
//! Matrices are column-major in memory unless declared `row_major` (or
//! `#pragma pack_matrix(row_major)`): in the cbuffer rules each column (or
//! row) of a matrix takes one 16-byte row.

use super::tast::{MatrixMajor, ScalarType, Type, Types};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    Tight,
    Cbuffer,
}

const ROW: u32 = 16;

fn round_up(x: u32, a: u32) -> u32 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Computes sizes and byte offsets under one rule set.
#[derive(Clone, Copy)]
pub struct Layouter<'a> {
    pub types: &'a Types,
    pub rules: Rules,
}

/// Where a matrix element lives relative to the matrix start: `r * row_step + c * col_step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixSteps {
    pub row_step: u32,
    pub col_step: u32,
}

impl<'a> Layouter<'a> {
    pub fn new(types: &'a Types, rules: Rules) -> Layouter<'a> {
        Layouter { types, rules }
    }

    /// Alignment of a value of type `t`.
    pub fn align(&self, t: Type) -> u32 {
        if self.rules == Rules::Cbuffer && matches!(t, Type::Array(_) | Type::Struct(_)) {
            return ROW;
        }
        match t {
            Type::Void => 1,
            // Sema keeps handles out of memory; laid out as the uint they are in registers.
            Type::Handle(_) => 4,
            Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix(s, _, _) => s.size(),
            Type::Array(a) => self.align(self.types.array(a).0),
            Type::Struct(s) => self.types.strukt(s).fields.iter().map(|f| self.align(f.ty)).max().unwrap_or(4),
        }
    }

    /// Size in bytes of a value of type `t` (in the cbuffer rules, without the
    /// padding after its last row).
    pub fn size(&self, t: Type, major: MatrixMajor) -> u32 {
        match t {
            Type::Void => 0,
            Type::Handle(_) => 4,
            Type::Scalar(s) => s.size(),
            Type::Vector(s, n) => s.size() * n as u32,
            Type::Matrix(s, r, c) => {
                let (vectors, len) = match major {
                    MatrixMajor::Column => (c as u32, r as u32),
                    MatrixMajor::Row => (r as u32, c as u32),
                };
                match self.rules {
                    Rules::Tight => s.size() * vectors * len,
                    Rules::Cbuffer => (vectors - 1) * ROW + len * s.size(),
                }
            }
            Type::Array(a) => {
                let (e, n) = self.types.array(a);
                if n == 0 {
                    return 0;
                }
                let stride = self.array_stride(e, major);
                stride.saturating_mul(n - 1).saturating_add(self.size(e, major))
            }
            Type::Struct(s) => {
                let offsets = self.field_offsets(s.0, major);
                let fields = &self.types.strukt(s).fields;
                let end = fields
                    .iter()
                    .zip(&offsets)
                    .map(|(f, &o)| o.saturating_add(self.size(f.ty, f.major.unwrap_or(major))))
                    .max()
                    .unwrap_or(0);
                match self.rules {
                    Rules::Tight => round_up(end, self.align(t)),
                    Rules::Cbuffer => end,
                }
            }
        }
    }

    /// Distance between consecutive elements of an array of `elem`.
    pub fn array_stride(&self, elem: Type, major: MatrixMajor) -> u32 {
        let size = self.size(elem, major);
        match self.rules {
            Rules::Tight => round_up(size, self.align(elem)),
            Rules::Cbuffer => round_up(size, ROW),
        }
    }

    /// Byte offset of every field of struct `s` from the struct's start.
    pub fn field_offsets(&self, s: u32, major: MatrixMajor) -> Vec<u32> {
        let def = &self.types.structs[s as usize];
        let mut offsets = Vec::with_capacity(def.fields.len());
        let mut at = 0u32;
        for f in &def.fields {
            let fmajor = f.major.unwrap_or(major);
            let size = self.size(f.ty, fmajor);
            if let Some(o) = f.offset {
                // `packoffset`: checked by sema (aligned, no straddling, no overlap).
                offsets.push(o);
                at = at.max(o.saturating_add(size));
                continue;
            }
            let mut o = round_up(at, self.align(f.ty));
            if self.rules == Rules::Cbuffer {
                let multi_vector_matrix = match (f.ty, fmajor) {
                    (Type::Matrix(_, _, c), MatrixMajor::Column) => c > 1,
                    (Type::Matrix(_, r, _), MatrixMajor::Row) => r > 1,
                    _ => false,
                };
                // A new row for multi-vector matrices, and whenever the value would straddle one.
                if multi_vector_matrix || o / ROW != (o + size.max(1) - 1) / ROW {
                    o = round_up(o, ROW);
                }
            }
            offsets.push(o);
            at = o.saturating_add(size);
        }
        offsets
    }

    /// Where element (r, c) of a `rows x cols` matrix of `s` lives.
    pub fn matrix_steps(&self, s: ScalarType, rows: u8, cols: u8, major: MatrixMajor) -> MatrixSteps {
        let e = s.size();
        match (self.rules, major) {
            (Rules::Tight, MatrixMajor::Column) => MatrixSteps { row_step: e, col_step: e * rows as u32 },
            (Rules::Tight, MatrixMajor::Row) => MatrixSteps { row_step: e * cols as u32, col_step: e },
            (Rules::Cbuffer, MatrixMajor::Column) => MatrixSteps { row_step: e, col_step: ROW },
            (Rules::Cbuffer, MatrixMajor::Row) => MatrixSteps { row_step: ROW, col_step: e },
        }
    }

    /// Byte offset of every leaf of `t` (in the leaf order of [`Types::leaves`]).
    pub fn leaf_offsets(&self, t: Type, major: MatrixMajor) -> Vec<u32> {
        let mut out = Vec::new();
        self.push_leaf_offsets(t, major, 0, &mut out);
        out
    }

    fn push_leaf_offsets(&self, t: Type, major: MatrixMajor, base: u32, out: &mut Vec<u32>) {
        match t {
            Type::Void => {}
            Type::Scalar(_) | Type::Handle(_) => out.push(base),
            Type::Vector(s, n) => out.extend((0..n as u32).map(|i| base + i * s.size())),
            Type::Matrix(s, r, c) => {
                let st = self.matrix_steps(s, r, c, major);
                for ri in 0..r as u32 {
                    for ci in 0..c as u32 {
                        out.push(base + ri * st.row_step + ci * st.col_step);
                    }
                }
            }
            Type::Array(a) => {
                let (e, n) = self.types.array(a);
                let stride = self.array_stride(e, major);
                for i in 0..n {
                    self.push_leaf_offsets(e, major, base.saturating_add(i.saturating_mul(stride)), out);
                }
            }
            Type::Struct(s) => {
                let offsets = self.field_offsets(s.0, major);
                for (f, o) in self.types.strukt(s).fields.iter().zip(offsets) {
                    self.push_leaf_offsets(f.ty, f.major.unwrap_or(major), base.saturating_add(o), out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::frontend::tast::{Field, StructDef};

    const F: ScalarType = ScalarType::Float;

    fn field(name: &str, ty: Type) -> Field {
        Field { name: name.into(), ty, major: None, offset: None, span: Span::default() }
    }

    fn with_struct(fields: Vec<Field>) -> (Types, Type) {
        let mut t = Types::default();
        t.structs.push(StructDef { name: "S".into(), fields, span: Span::default() });
        (t, Type::Struct(crate::frontend::tast::StructId(0)))
    }

    #[test]
    fn tight_particle_is_32_bytes() {
        let (t, s) = with_struct(vec![
            field("pos", Type::Vector(F, 3)),
            field("vel", Type::Vector(F, 3)),
            field("life", Type::FLOAT),
            field("flags", Type::UINT),
        ]);
        let l = Layouter::new(&t, Rules::Tight);
        assert_eq!(l.size(s, MatrixMajor::Column), 32);
        assert_eq!(l.field_offsets(0, MatrixMajor::Column), vec![0, 12, 24, 28]);
    }

    #[test]
    fn cbuffer_vectors_do_not_straddle_rows() {
        // float a; float3 b; -> b at 4 (fits in row 0); float2 c -> row 1 at 16; float3 d -> 32 (24+12 > 32 straddles).
        let (t, s) = with_struct(vec![
            field("a", Type::FLOAT),
            field("b", Type::Vector(F, 3)),
            field("c", Type::Vector(F, 2)),
            field("d", Type::Vector(F, 3)),
        ]);
        let l = Layouter::new(&t, Rules::Cbuffer);
        assert_eq!(l.field_offsets(0, MatrixMajor::Column), vec![0, 4, 16, 32]);
        assert_eq!(l.size(s, MatrixMajor::Column), 44);
    }

    #[test]
    fn cbuffer_arrays_take_a_row_per_element() {
        let mut t = Types::default();
        let arr = t.array_of(Type::FLOAT, 4);
        t.structs.push(StructDef { name: "S".into(), fields: vec![field("a", arr), field("b", Type::FLOAT)], span: Span::default() });
        let l = Layouter::new(&t, Rules::Cbuffer);
        // 4 floats: 3 * 16 + 4 = 52; the next member may share the last row (as DXC packs it).
        assert_eq!(l.size(arr, MatrixMajor::Column), 52);
        assert_eq!(l.field_offsets(0, MatrixMajor::Column), vec![0, 52]);
        assert_eq!(l.leaf_offsets(arr, MatrixMajor::Column), vec![0, 16, 32, 48]);
    }

    #[test]
    fn a_scalar_after_a_struct_shares_its_last_row() {
        let mut t = Types::default();
        t.structs.push(StructDef {
            name: "In".into(),
            fields: vec![field("a", Type::Vector(F, 3)), field("b", Type::FLOAT), field("c", Type::Vector(F, 2))],
            span: Span::default(),
        });
        let inner = Type::Struct(crate::frontend::tast::StructId(0));
        t.structs.push(StructDef { name: "Out".into(), fields: vec![field("s", inner), field("x", Type::FLOAT)], span: Span::default() });
        let l = Layouter::new(&t, Rules::Cbuffer);
        assert_eq!(l.size(inner, MatrixMajor::Column), 24);
        assert_eq!(l.field_offsets(1, MatrixMajor::Column), vec![0, 24]);
        // A one-column matrix packs like a vector.
        let (t2, _) = with_struct(vec![field("a", Type::FLOAT), field("m", Type::Matrix(F, 3, 1))]);
        assert_eq!(Layouter::new(&t2, Rules::Cbuffer).field_offsets(0, MatrixMajor::Column), vec![0, 4]);
    }

    #[test]
    fn matrices_column_major_by_default() {
        let t = Types::default();
        let m = Type::Matrix(F, 2, 3);
        let cb = Layouter::new(&t, Rules::Cbuffer);
        // Column-major: 3 columns of 2 floats, one row each.
        assert_eq!(cb.leaf_offsets(m, MatrixMajor::Column), vec![0, 16, 32, 4, 20, 36]);
        assert_eq!(cb.size(m, MatrixMajor::Column), 40);
        assert_eq!(cb.leaf_offsets(m, MatrixMajor::Row), vec![0, 4, 8, 16, 20, 24]);
        let tight = Layouter::new(&t, Rules::Tight);
        assert_eq!(tight.leaf_offsets(m, MatrixMajor::Column), vec![0, 8, 16, 4, 12, 20]);
        assert_eq!(tight.size(m, MatrixMajor::Row), 24);
    }

    #[test]
    fn sixteen_bit_members_pack_in_pairs() {
        let (t, s) = with_struct(vec![
            field("a", Type::Scalar(ScalarType::Half)),
            field("b", Type::Scalar(ScalarType::Half)),
            field("c", Type::FLOAT),
        ]);
        let l = Layouter::new(&t, Rules::Tight);
        assert_eq!(l.field_offsets(0, MatrixMajor::Column), vec![0, 2, 4]);
        assert_eq!(l.size(s, MatrixMajor::Column), 8);
    }
}
