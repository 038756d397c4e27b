//! The stdlib prelude: intrinsics written in HLSL (`stdlib/wavec_intrinsics.hlsl`),
//! instantiated for every type they apply to and parsed once per process.
//!
//! The file's `//@for TYPES ... //@end` blocks are a tiny template form (see
//! the file's header); this module expands them. Its functions are analysed
//! before the user's code, marked as stdlib, and only the ones a kernel calls
//! are inlined.

use std::sync::OnceLock;

use super::ast;
use crate::diag::SourceFile;

/// The prelude's file name in `stdlib/`.
pub const PRELUDE_FILE: &str = "wavec_intrinsics.hlsl";

const SOURCE: &str = include_str!("../../../stdlib/wavec_intrinsics.hlsl");

/// One instantiation type: the type, its scalar, int and bool types of the same shape, its size.
struct Inst {
    t: String,
    s: &'static str,
    i: String,
    b: String,
    n: u32,
}

fn shapes(scalars: &[&'static str], int_of: &dyn Fn(&str) -> &'static str, dims: &[u32]) -> Vec<Inst> {
    let mut out = Vec::new();
    for &s in scalars {
        for &n in dims {
            let suffix = if n == 1 { String::new() } else { n.to_string() };
            out.push(Inst { t: format!("{s}{suffix}"), s, i: format!("{}{suffix}", int_of(s)), b: format!("bool{suffix}"), n });
        }
    }
    out
}

/// `S1x1` .. `S4x4` for each scalar.
fn matrices(scalars: &[&'static str], int_of: &dyn Fn(&str) -> &'static str) -> Vec<Inst> {
    let mut out = Vec::new();
    for &s in scalars {
        for r in 1..=4 {
            for c in 1..=4 {
                let shape = format!("{r}x{c}");
                out.push(Inst { t: format!("{s}{shape}"), s, i: format!("{}{shape}", int_of(s)), b: format!("bool{shape}"), n: r * c });
            }
        }
    }
    out
}

fn family(name: &str, native_16bit: bool) -> Vec<Inst> {
    let floats: &[&'static str] = if native_16bit { &["float", "half"] } else { &["float"] };
    let ints: &[&'static str] = if native_16bit { &["int", "int16_t", "int64_t"] } else { &["int", "int64_t"] };
    let uints: &[&'static str] = if native_16bit { &["uint", "uint16_t", "uint64_t"] } else { &["uint", "uint64_t"] };
    let int_of = |_: &str| "int";
    let int_keep16 = |s: &str| if s.ends_with("16_t") { "int16_t" } else { "int" };
    let with_matrices = |mut v: Vec<Inst>, m: Vec<Inst>| {
        v.extend(m);
        v
    };
    match name {
        "FLOATS" => shapes(floats, &int_of, &[1, 2, 3, 4]),
        "FLOAT_SHAPES" => with_matrices(shapes(floats, &int_of, &[1, 2, 3, 4]), matrices(floats, &int_of)),
        "INT_SHAPES" => with_matrices(shapes(ints, &int_keep16, &[1, 2, 3, 4]), matrices(ints, &int_keep16)),
        "UINT_SHAPES" => with_matrices(shapes(uints, &int_keep16, &[1, 2, 3, 4]), matrices(uints, &int_keep16)),
        "FLOAT3" => shapes(floats, &int_of, &[3]),
        "FLOAT_SCALARS" => shapes(floats, &int_of, &[1]),
        "DOUBLE_SHAPES" => with_matrices(shapes(&["double"], &int_of, &[1, 2, 3, 4]), matrices(&["double"], &int_of)),
        // $I is the uint type of the same shape here.
        "DOUBLE_SHAPES_U" => {
            let uint_of = |_: &str| "uint";
            with_matrices(shapes(&["double"], &uint_of, &[1, 2, 3, 4]), matrices(&["double"], &uint_of))
        }
        "INTS" => shapes(&ints[..ints.len() - 1], &|s| if s == "int16_t" { "int16_t" } else { "int" }, &[1, 2, 3, 4]),
        _ => Vec::new(),
    }
}

/// The prelude's HLSL with every template block instantiated.
pub fn expand(native_16bit: bool) -> String {
    let mut out = String::new();
    let mut block: Option<(String, Vec<&str>)> = None;
    for line in SOURCE.lines() {
        if let Some(name) = line.strip_prefix("//@for ") {
            block = Some((name.trim().to_string(), Vec::new()));
            out.push('\n');
            continue;
        }
        if line.starts_with("//@end") {
            if let Some((name, lines)) = block.take() {
                for inst in family(&name, native_16bit) {
                    for l in &lines {
                        out.push_str(
                            &l.replace("$T", &inst.t)
                                .replace("$S", inst.s)
                                .replace("$I", &inst.i)
                                .replace("$B", &inst.b)
                                .replace("$N", &inst.n.to_string()),
                        );
                        out.push(' ');
                    }
                    out.push(' ');
                }
            }
            out.push('\n');
            continue;
        }
        match &mut block {
            Some((_, lines)) => {
                // Comments inside a block would swallow the joined line: drop them.
                let code = line.split("//").next().unwrap_or("");
                lines.push(code);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The parsed prelude (cached per 16-bit mode).
pub fn parsed(native_16bit: bool) -> &'static ast::TranslationUnit {
    static PLAIN: OnceLock<ast::TranslationUnit> = OnceLock::new();
    static NATIVE16: OnceLock<ast::TranslationUnit> = OnceLock::new();
    let cell = if native_16bit { &NATIVE16 } else { &PLAIN };
    cell.get_or_init(|| {
        let file = SourceFile::new("<wavec stdlib>", expand(native_16bit));
        super::parse(&file).unwrap_or_else(|d| panic!("the stdlib prelude does not parse: {}", crate::diag::render(&file, &d)))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn prelude_expands_and_parses_in_both_modes() {
        for native in [false, true] {
            let text = super::expand(native);
            assert!(text.lines().filter(|l| !l.trim_start().starts_with("//")).all(|l| !l.contains('$')), "unexpanded placeholder");
            assert!(text.contains("float3 __wavec_cross(float3 a, float3 b)"));
            assert_eq!(text.contains("half2 __wavec_lerp"), native);
            super::parsed(native);
        }
    }
}
