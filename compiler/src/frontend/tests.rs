//! Front-end unit tests: parsing, typing and conversions, diagnostics,
//! robustness (no panics on any input).

use super::tast::*;
use super::*;
use crate::diag::{render, Severity, Span};

const CORPUS: &[(&str, &str)] = &[
    ("vector_add.hlsl", include_str!("testdata/vector_add.hlsl")),
    ("saxpy.hlsl", include_str!("testdata/saxpy.hlsl")),
    ("loops.hlsl", include_str!("testdata/loops.hlsl")),
    ("ids2d.hlsl", include_str!("testdata/ids2d.hlsl")),
];

fn analyze_src(src: &str) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    analyze(&SourceFile::new("test.hlsl", src), None)
}

#[track_caller]
fn ok(src: &str) -> (Module, Vec<Diagnostic>) {
    let f = SourceFile::new("test.hlsl", src);
    match analyze(&f, None) {
        Ok(r) => r,
        Err(d) => panic!("unexpected errors:\n{}", render(&f, &d)),
    }
}

/// Wraps statements into an entry point with a few resources and locals.
fn body(stmts: &str) -> String {
    format!(
        "cbuffer P : register(b0) {{ float s; uint n; int k; }}\n\
         StructuredBuffer<float> RO : register(t0);\n\
         RWStructuredBuffer<float> RW : register(u0);\n\
         RWStructuredBuffer<uint> RU : register(u1);\n\
         [numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {{\n\
         int i = 1; uint u = 2u; float f = 3.0; bool b = true; float3 v = float3(1,2,3); int2 iv = int2(1,2);\n\
         {stmts}\n}}"
    )
}

/// Diagnostics (errors and warnings) as (code, spanned text) pairs.
#[track_caller]
fn diags(src: &str) -> Vec<(&'static str, String)> {
    let ds = match analyze_src(src) {
        Ok((_, w)) => w,
        Err(d) => d,
    };
    ds.iter().map(|d| (d.code, d.labels.first().map(|(s, _)| src[s.range()].to_string()).unwrap_or_default())).collect()
}

#[track_caller]
fn first_error(src: &str) -> (&'static str, String) {
    let ds = analyze_src(src).err().unwrap_or_else(|| panic!("expected an error for:\n{src}"));
    let d = ds.iter().find(|d| d.severity == Severity::Error).expect("an error");
    (d.code, d.labels.first().map(|(s, _)| src[s.range()].to_string()).unwrap_or_default())
}

/// Compact text form of a typed expression, for assertions.
fn show(m: &Module, e: &Expr) -> String {
    let s = |e: &Expr| show(m, e);
    let t = |ty: Type| m.types.name(ty);
    match &e.kind {
        ExprKind::Literal(c) => match c {
            Const::Bool(b) => format!("{b}"),
            Const::Int(i) => format!("{i}"),
            Const::Uint(u) => format!("{u}u"),
            Const::Float(f) => format!("{f:?}f"),
            Const::Bits16(st, b) => format!("{}:{b:#x}", st.name()),
            Const::Bits64(st, b) => format!("{}:{b:#x}", st.name()),
        },
        ExprKind::Local(id) => m.local(*id).name.clone(),
        ExprKind::Shared(id) => m.shared(*id).name.clone(),
        ExprKind::CbufferField { res, field } => {
            let r = m.resource(*res);
            let Type::Struct(st) = r.elem else { return "?".into() };
            format!("{}.{}", r.name, m.types.strukt(st).fields[*field as usize].name)
        }
        ExprKind::Resource(r) => m.resource(*r).name.clone(),
        ExprKind::BufferElement { res, index } => format!("{}[{}]", s(res), s(index)),
        ExprKind::RawElement { res, offset } => format!("{}@[{}]:{}", s(res), s(offset), t(e.ty)),
        ExprKind::Member { base, field } => {
            let Type::Struct(st) = base.ty else { return "?".into() };
            format!("{}.{}", s(base), m.types.strukt(st).fields[*field as usize].name)
        }
        ExprKind::Index { base, index } => format!("{}[{}]", s(base), s(index)),
        ExprKind::Swizzle { base, comps } => {
            format!("{}.{}", s(base), comps.iter().map(|&c| ["x", "y", "z", "w"][c as usize]).collect::<String>())
        }
        ExprKind::MatrixElems { base, elems } => {
            format!("{}.{}", s(base), elems.iter().map(|(r, c)| format!("_m{r}{c}")).collect::<String>())
        }
        ExprKind::Construct { args } => format!("{}({})", t(e.ty), args.iter().map(s).collect::<Vec<_>>().join(", ")),
        ExprKind::Unary { op, operand } => format!("({op:?} {})", s(operand)),
        ExprKind::Binary { op, lhs, rhs } => format!("({op:?} {} {})", s(lhs), s(rhs)),
        ExprKind::Logical { op, lhs, rhs } => format!("({op:?} {} {})", s(lhs), s(rhs)),
        ExprKind::Select { cond, then_expr, else_expr } => format!("(? {} {} {})", s(cond), s(then_expr), s(else_expr)),
        ExprKind::Cast { operand } => format!("({} {})", t(e.ty), s(operand)),
        ExprKind::Splat { operand } => format!("(splat{} {})", m.types.leaf_count(e.ty), s(operand)),
        ExprKind::Leaves { operand, pick } => format!("(leaves{pick:?} {})", s(operand)),
        ExprKind::Assign { place, value, result_old } => {
            format!("{}{} = {}", if *result_old { "post " } else { "" }, s(place), s(value))
        }
        ExprKind::PlaceValue => "old".into(),
        ExprKind::Comma { lhs, rhs } => format!("({}, {})", s(lhs), s(rhs)),
        ExprKind::Call { func, args } => {
            let a: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::In(e) => s(e),
                    Arg::Out { place, inout } => format!("{}{}", if *inout { "inout " } else { "out " }, s(place)),
                })
                .collect();
            format!("{}({})", m.function(*func).name, a.join(", "))
        }
        ExprKind::Intrinsic { op, args } => format!("{op:?}({})", args.iter().map(s).collect::<Vec<_>>().join(", ")),
        ExprKind::Atomic { op, dest, args, original } => {
            let o = original.as_ref().map(|o| format!(" -> {}", s(o))).unwrap_or_default();
            format!("atomic {op:?} {} ({}){o}", s(dest), args.iter().map(s).collect::<Vec<_>>().join(", "))
        }
        ExprKind::GetDimensions { res, outs } => {
            format!("{}.GetDimensions({})", s(res), outs.iter().map(s).collect::<Vec<_>>().join(", "))
        }
        ExprKind::Resources(ids) => {
            format!("{{{}}}", ids.iter().map(|r| m.resource(*r).name.clone()).collect::<Vec<_>>().join(", "))
        }
        ExprKind::ConstantMember { cb, field } => format!("{}.#{field}", s(cb)),
        ExprKind::Counter { res, increment } => {
            format!("{}.{}()", s(res), if *increment { "IncrementCounter" } else { "DecrementCounter" })
        }
    }
}

/// The entry function's body.
fn entry_body(m: &Module) -> &[Stmt] {
    &m.function(m.entry.func).body.stmts
}

/// The statements after the fixed prelude of [`body`] (6 declarations).
fn user_stmts(m: &Module) -> &[Stmt] {
    &entry_body(m)[6..]
}

fn show_stmt(m: &Module, s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Decl { local, init } => {
            let l = m.local(*local);
            match init {
                Some(e) => format!("{} {} = {}", m.types.name(l.ty), l.name, show(m, e)),
                None => format!("{} {}", m.types.name(l.ty), l.name),
            }
        }
        StmtKind::Expr(e) => show(m, e),
        StmtKind::Return(Some(e)) => format!("return {}", show(m, e)),
        other => format!("{other:?}").chars().take(40).collect(),
    }
}

#[track_caller]
fn typed(stmts: &str) -> Vec<String> {
    let (m, _) = ok(&body(stmts));
    user_stmts(&m).iter().map(|s| show_stmt(&m, s)).collect()
}

// ------------------------------------------------------------------ corpus

#[test]
fn corpus_analyzes_without_diagnostics() {
    for (name, src) in CORPUS {
        let f = SourceFile::new(*name, *src);
        match analyze(&f, None) {
            Ok((_, w)) => assert!(w.is_empty(), "{name}: {}", render(&f, &w)),
            Err(d) => panic!("{name}:\n{}", render(&f, &d)),
        }
    }
}

#[test]
fn vector_add_shape() {
    let (m, _) = ok(CORPUS[0].1);
    assert_eq!(m.entry.name, "main");
    assert_eq!(m.entry.numthreads, [64, 1, 1]);
    assert_eq!(m.entry.inputs.len(), 1);
    assert_eq!(m.entry.inputs[0].semantic, SystemValue::DispatchThreadId);
    assert_eq!(m.entry.inputs[0].ty, Type::Vector(ScalarType::Uint, 3));
    let names: Vec<_> = m.resources.iter().map(|r| (r.name.as_str(), r.kind, r.binding.to_string(), r.slot)).collect();
    use crate::interface::ResourceKind as K;
    assert_eq!(
        names,
        vec![
            ("A", K::StructuredBuffer, "t0".to_string(), Some(0)),
            ("B", K::StructuredBuffer, "t1".to_string(), Some(1)),
            ("C", K::RWStructuredBuffer, "u0".to_string(), Some(2))
        ]
    );
    let s: Vec<_> = entry_body(&m).iter().map(|s| show_stmt(&m, s)).collect();
    assert_eq!(s, vec!["uint i = id.x", "C[i] = (Add A[i] B[i])"]);
}

#[test]
fn saxpy_cbuffer_layout() {
    let (m, _) = ok(CORPUS[1].1);
    let cb = &m.resources[0];
    assert_eq!(cb.kind, crate::interface::ResourceKind::ConstantBuffer);
    let Type::Struct(st) = cb.elem else { panic!() };
    let l = super::layout::Layouter::new(&m.types, super::layout::Rules::Cbuffer);
    let fields: Vec<_> = m.types.strukt(st).fields.iter().map(|f| (f.name.as_str(), f.ty)).collect();
    assert_eq!(fields, vec![("a", Type::FLOAT), ("n", Type::UINT)]);
    assert_eq!(l.field_offsets(st.0, MatrixMajor::Column), vec![0, 4]);
    assert_eq!(m.entry.inputs[0].ty, Type::UINT);
    let s: Vec<_> = entry_body(&m).iter().map(|s| show_stmt(&m, s)).collect();
    assert_eq!(s[1], "Y[tid] = (Add (Mul Params.a X[tid]) Y[tid])");
    let StmtKind::If { arms, .. } = &entry_body(&m)[0].kind else { panic!() };
    assert_eq!(show(&m, &arms[0].cond), "(Ge tid Params.n)");
}

#[test]
fn entry_selection() {
    let two = "[numthreads(1,1,1)] void a() {} [numthreads(2,1,1)] void b(uint i : SV_GroupIndex) {}";
    let f = SourceFile::new("t.hlsl", two);
    assert_eq!(analyze(&f, Some("b")).unwrap().0.entry.numthreads, [2, 1, 1]);
    assert_eq!(analyze(&f, Some("a")).unwrap().0.entry.name, "a");
    assert_eq!(analyze(&f, None).unwrap_err()[0].code, "E0232");
    assert_eq!(analyze(&f, Some("c")).unwrap_err()[0].code, "E0231");
    assert_eq!(first_error("void main() {}"), ("E0230", "main".into()));
    assert_eq!(first_error("").0, "E0230");
    // `#pragma kernel NAME` (Unity) picks the entry point when there is one.
    let opts = FrontendOptions { pragma_kernels: vec![("b".into(), Span::default())], ..FrontendOptions::default() };
    assert_eq!(analyze_with(&f, &opts).unwrap().0.entry.name, "b");
}

// ------------------------------------------------------------------ parsing

#[test]
fn precedence_is_c_like() {
    let s = typed("int r = 1 + 2 * 3 << 1 & 7 | 8 ^ 9;");
    // Literal arithmetic folds.
    assert_eq!(s, vec!["int r = 7"]);
    let s = typed("int r = i + 2 * 3 << 1 & 7 | 8 ^ i;");
    assert_eq!(s, vec!["int r = (BitOr (BitAnd (Shl (Add i 6) 1) 7) (BitXor 8 i))"]);
    let s = typed("bool c = i < 2 == b || i > 0 && !b;");
    assert_eq!(s, vec!["bool c = (Or (Eq (Lt i 2) b) (And (Gt i 0) (Not b)))"]);
    let s = typed("int r = i - 1 - 2; int q = b ? 1 : b ? 2 : 3; int w = -i * ~i;");
    assert_eq!(s, vec!["int r = (Sub (Sub i 1) 2)", "int q = (? b 1 (? b 2 3))", "int w = (Mul (Neg i) (BitNot i))"]);
    assert_eq!(typed("int r = (i++, i);"), vec!["int r = (post i = (Add old 1), i)"]);
}

#[test]
fn literals() {
    let s = typed("uint a = 0xFFFFFFFF; int b2 = 7L; float c = .5; float d = 1.f; float e = 1e3; float g = 2.5h; uint h = 3000000000; int o = 017; uint w = 5ull;");
    assert_eq!(
        s,
        vec![
            "uint a = 4294967295u",
            "int b2 = 7",
            "float c = 0.5f",
            "float d = 1.0f",
            "float e = 1000.0f",
            "float g = 2.5f",
            "uint h = 3000000000u",
            "int o = 15",
            "uint w = 5u"
        ]
    );
    let s = typed("int m = -2147483648; uint z = -1; uint sz = sizeof(float3);");
    assert_eq!(s, vec!["int m = -2147483648", "uint z = 4294967295u", "uint sz = 12u"]);
    // DXC's 64-bit `literal int`: too wide for 32 bits is a truncation warning (W0207), not an error.
    assert_eq!(diags(&body("uint x = 4294967296;")), vec![("W0207", "4294967296".to_string())]);
    assert_eq!(first_error(&body("uint x = 4294967296u;")), ("E0216", "4294967296u".into()));
    assert_eq!(first_error(&body("uint x = 99999999999999999999999;")).0, "E0216");
    assert_eq!(first_error(&body("float x = 1e39;")), ("E0217", "1e39".into()));
}

#[test]
fn dangling_else_binds_inner() {
    let (m, _) = ok(&body("if (b) if (i > 0) f = 1; else f = 2;"));
    let StmtKind::If { arms, else_blk } = &user_stmts(&m)[0].kind else { panic!() };
    assert!(else_blk.is_none() && arms.len() == 1);
    assert!(matches!(arms[0].then_blk.stmts[0].kind, StmtKind::If { else_blk: Some(_), .. }));
}

#[test]
fn else_if_chains_are_one_statement_however_long() {
    // An `else if` chain adds no nesting: 5,000 arms are one `If` with 5,000 arms
    // (nested `if`s that deep are E0105), in source order, with each arm's attributes.
    let arms: Vec<String> = (0..5000).map(|k| format!("if (i == {k}) f = {k};")).collect();
    let (m, _) = ok(&body(&format!("[branch] {} else [flatten] if (b) f = -1; else f = -2;", arms.join(" else "))));
    let StmtKind::If { arms, else_blk } = &user_stmts(&m)[0].kind else { panic!() };
    assert_eq!(arms.len(), 5001);
    assert_eq!(show(&m, &arms[0].cond), "(Eq i 0)");
    assert_eq!(show(&m, &arms[4999].cond), "(Eq i 4999)");
    assert_eq!((arms[0].attrs.as_slice(), arms[5000].attrs.as_slice()), (&[StmtAttr::Branch][..], &[StmtAttr::Flatten][..]));
    assert_eq!(else_blk.as_ref().map(|b| b.stmts.len()), Some(1));
    // Nesting inside an arm still counts.
    let deep = format!("if (b) f = 0; else if (b) {}f = 1;{}", "{".repeat(100), "}".repeat(100));
    assert_eq!(first_error(&body(&deep)).0, "E0105");
}

#[test]
fn loops_switch_and_attrs() {
    let (m, _) = ok(&body(
        "[unroll(2)] for (int j = 0, q = 1; j < 4; j++, q--) { if (j == 2) continue; }\n\
         [fastopt] [loop] while (i < 3) { i++; break; }\n\
         [unroll] do { --i; } while (i);\n\
         [branch] if (b) {} [flatten] if (b) {} else {}\n\
         for (;;) { break; }\n\
         [branch] switch (i) { case 1: case 2: f = 1; break; default: f = 2; case 3: { f = 3; } }",
    ));
    let u = user_stmts(&m);
    let StmtKind::For { init, cond, step, attrs, .. } = &u[0].kind else { panic!() };
    assert_eq!(init.len(), 2);
    assert_eq!(show(&m, cond.as_ref().unwrap()), "(Lt j 4)");
    let st: Vec<_> = step.iter().map(|e| show(&m, e)).collect();
    assert_eq!(st, vec!["(post j = (Add old 1), post q = (Sub old 1))"]);
    assert_eq!(attrs, &vec![StmtAttr::Unroll(Some(2))]);
    let StmtKind::While { attrs, .. } = &u[1].kind else { panic!() };
    assert_eq!(attrs, &vec![StmtAttr::FastOpt, StmtAttr::Loop]);
    let StmtKind::DoWhile { cond, attrs, .. } = &u[2].kind else { panic!() };
    assert_eq!(show(&m, cond), "(bool i)");
    assert_eq!(attrs, &vec![StmtAttr::Unroll(None)]);
    let StmtKind::If { arms, .. } = &u[3].kind else { panic!() };
    assert_eq!(arms[0].attrs, vec![StmtAttr::Branch]);
    let StmtKind::For { cond: None, init, step, .. } = &u[5].kind else { panic!() };
    assert!(init.is_empty() && step.is_empty());
    let StmtKind::Switch { cases, attrs, .. } = &u[6].kind else { panic!() };
    assert_eq!(attrs, &vec![StmtAttr::Branch]);
    let shape: Vec<_> = cases.iter().map(|c| (c.values.clone(), c.is_default, c.body.len())).collect();
    assert_eq!(shape, vec![(vec![Const::Int(1), Const::Int(2)], false, 2), (vec![], true, 1), (vec![Const::Int(3)], false, 1)]);
    assert_eq!(first_error(&body("switch (f) { case 1: break; }")).0, "E0247");
    assert_eq!(first_error(&body("switch (i) { case 1: break; case 1: break; }")).0, "E0248");
    assert_eq!(first_error(&body("switch (i) { case i: break; }")).0, "E0245");
    assert_eq!(first_error(&body("switch (i) { f = 1; case 1: break; }")).0, "E0249");
    assert_eq!(first_error(&body("switch (i) { case 1: continue; }")).0, "E0241");
}

// ------------------------------------------------------------------ typing

#[test]
fn implicit_conversions_are_explicit_nodes() {
    let s = typed("float a = i + f; uint c = i + u; int d = b + b; float e = i; bool g = i;");
    assert_eq!(
        s,
        vec![
            "float a = (Add (float i) f)",
            "uint c = (Add (uint i) u)",
            "int d = (Add (int b) (int b))",
            "float e = (float i)",
            "bool g = (bool i)"
        ]
    );
    // Comparisons: bool result, operands converted; bool == bool stays bool.
    let s = typed("bool c1 = i < f; bool c2 = b == b; bool c3 = b < i;");
    assert_eq!(s, vec!["bool c1 = (Lt (float i) f)", "bool c2 = (Eq b b)", "bool c3 = (Lt (int b) i)"]);
    // Shifts keep the left type.
    let s = typed("int r = i << u; uint t = u >> i;");
    assert_eq!(s, vec!["int r = (Shl i (int u))", "uint t = (Shr u (uint i))"]);
    // Float % is allowed; unsuffixed literals adopt the other operand's type.
    assert_eq!(typed("float r = f % 2;"), vec!["float r = (Rem f 2.0f)"]);
    assert_eq!(typed("uint r = u * 2;"), vec!["uint r = (Mul u 2u)"]);
}

#[test]
fn truncation_warnings() {
    let (_, w) = ok(&body("int t = f; uint w = f * 2; int ok1 = 2.0; int ok2 = (int)f; float2 p = v;"));
    let codes: Vec<_> = w.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["W0201", "W0201", "W0202"]);
    assert_eq!(diags(&body("int t = f;")), vec![("W0201", "f".to_string())]);
}

#[test]
fn vectors_and_swizzles() {
    let s = typed("float3 a = v * 2; float3 c = v + i; float x = v.y; v.z = 4; float3 d = float3(iv, f); float3 e = (float3)1;");
    assert_eq!(
        s,
        vec![
            "float3 a = (Mul v (splat3 2.0f))",
            "float3 c = (Add v (splat3 (float i)))",
            "float x = v.y",
            "v.z = 4.0f",
            "float3 d = float3(iv, f)",
            "float3 e = (splat3 1.0f)"
        ]
    );
    let s = typed("float s1 = v; int2 q = int2(v.x, v.y); float r = float3(1, 2, 3).r; float4 w = v.xxyz; v.zx = v.xy; float k = v[i];");
    assert_eq!(s[0], "float s1 = (leaves[0] v)");
    assert_eq!(s[1], "int2 q = int2(v.x, v.y)");
    assert_eq!(s[2], "float r = float3(1.0f, 2.0f, 3.0f).x");
    assert_eq!(s[3], "float4 w = v.xxyz");
    assert_eq!(s[4], "v.zx = v.xy");
    assert_eq!(s[5], "float k = v[(uint i)]");
    assert_eq!(first_error(&body("float4 w = v;")), ("E0204", "v".into()));
    assert_eq!(first_error(&body("float3 w = float3(1, 2);")).0, "E0206");
    assert_eq!(first_error(&body("float a = v.w;")), ("E0207", "w".into()));
    assert_eq!(first_error(&body("float a = v.q;")), ("E0207", "q".into()));
    assert_eq!(first_error(&body("v.xx = 1;")), ("E0218", "v.xx".into()));
    assert_eq!(first_error(&body("float a = v[3];")), ("E0207", "3".into()));
    assert_eq!(first_error(&body("if (v) {}")), ("E0214", "v".into()));
    assert_eq!(first_error(&body("bool q = b && v;")), ("E0214", "v".into()));
    assert_eq!(first_error(&body("float3 q = v > 1 ? v : v;")), ("E0214", "v > 1".into()));
}

#[test]
fn matrices() {
    let s = typed("float2x2 m = float2x2(1, 2, 3, 4); float a = m._m01; float2 r = m[1]; float e = m[i][1]; float2 d = m._11_22; float2 mv = mul(m, v.xy); float2x2 t = transpose(m);");
    assert_eq!(
        s,
        vec![
            "float2x2 m = float2x2(1.0f, 2.0f, 3.0f, 4.0f)",
            "float a = m._m01",
            "float2 r = m[1u]",
            "float e = m[(uint i)][1u]",
            "float2 d = m._m00_m11",
            "float2 mv = Mul(m, v.xy)",
            "float2x2 t = Transpose(m)"
        ]
    );
    assert_eq!(typed("float q = mul(v, v);"), vec!["float q = Mul(v, v)"]);
    assert_eq!(typed("float3x4 w = (float3x4)0;")[0], "float3x4 w = (splat12 0.0f)");
    assert_eq!(first_error(&body("float2x2 m = (float2x2)0; float3 q = mul(m, v);")).0, "E0204");
    assert_eq!(first_error(&body("float2x2 m = (float2x2)0; float a = m._m22;")).0, "E0207");
}

#[test]
fn compound_assignment_and_incdec() {
    let s = typed("i += f; RW[u] *= 2; RU[id.x] <<= 1; u++; --f; v.x -= 1; iv.y |= i; RW[u++] = f;");
    assert_eq!(
        s,
        vec![
            "i = (int (Add (float old) f))",
            "RW[u] = (Mul old 2.0f)",
            "RU[id.x] = (Shl old 1u)",
            "post u = (Add old 1u)",
            "f = (Sub old 1.0f)",
            "v.x = (Sub old 1.0f)",
            "iv.y = (BitOr old i)",
            "RW[post u = (Add old 1u)] = f"
        ]
    );
    let (_, w) = ok(&body("i += f;"));
    assert_eq!(w[0].code, "W0201");
}

#[test]
fn buffer_and_cbuffer_access() {
    let s = typed("float a = RO[i]; RW[id.x] = s + n + k; float c = RO[b];");
    assert_eq!(s, vec!["float a = RO[(uint i)]", "RW[id.x] = (Add (Add P.s (float P.n)) (float P.k))", "float c = RO[(uint b)]"]);
}

#[test]
fn scopes_and_shadowing() {
    let (m, _) = ok(&body("int x = 1; { float x = 2; x += 1; } x = 3;"));
    let u = user_stmts(&m);
    let StmtKind::Block(inner) = &u[1].kind else { panic!() };
    let local_of = |s: &Stmt| match &s.kind {
        StmtKind::Expr(Expr { kind: ExprKind::Assign { place, .. }, .. }) => match place.kind {
            ExprKind::Local(l) => l,
            _ => panic!(),
        },
        _ => panic!(),
    };
    let (inner_x, outer_x) = (local_of(&inner.stmts[1]), local_of(&u[2]));
    assert_ne!(inner_x, outer_x);
    assert_eq!(m.local(inner_x).ty, Type::FLOAT);
    assert_eq!(m.local(outer_x).ty, Type::INT);
    // A local may shadow a global.
    ok(&body("float s = 1; s = 2;"));
    // Parameters may be written (they are copies).
    ok(&body("id.x = 1; id = uint3(1, 2, 3);"));
    // for-init scope ends with the loop.
    assert_eq!(first_error(&body("for (int j = 0; j < 2; j++) {} j = 1;")), ("E0201", "j".into()));
}

// ------------------------------------------------------------------ functions, structs, arrays

#[test]
fn functions_and_overloads() {
    let src = "float sq(float x) { return x * x; }\n\
               int sq(int x) { return x * x; }\n\
               float3 sq(float3 x) { return x * x; }\n\
               void split(float x, out int whole, inout float acc) { whole = (int)x; acc += x; }\n\
               RWStructuredBuffer<float> o : register(u0);\n\
               [numthreads(1,1,1)] void main() { int w; float a = 0; o[0] = sq(2.0) + sq(3) + sq(float3(1,2,3)).y; split(1.5, w, a); }";
    let (m, _) = ok(src);
    let s: Vec<_> = entry_body(&m).iter().map(|x| show_stmt(&m, x)).collect();
    assert_eq!(s[2], "o[0u] = (Add (Add sq(2.0f) (float sq(3))) sq(float3(1.0f, 2.0f, 3.0f)).y)");
    assert_eq!(s[3], "split(1.5f, out w, inout a)");
    // Ambiguous and impossible calls.
    let amb = "float g(int a, float b) { return 0; } float g(float a, int b) { return 0; }\n[numthreads(1,1,1)] void main() { g(1, 1); }";
    assert_eq!(first_error(amb).0, "E0252");
    let none = "float g(float3 a) { return 0; }\n[numthreads(1,1,1)] void main() { g(float2(1,2)); }";
    assert_eq!(first_error(none).0, "E0251");
    let out_rvalue = "void g(out float a) { a = 1; }\n[numthreads(1,1,1)] void main() { g(1.0); }";
    assert_eq!(first_error(out_rvalue).0, "E0213");
    // Prototypes, then the definition.
    ok("float h(float x);\n[numthreads(1,1,1)] void main() { float y = h(1); }\nfloat h(float x) { return x; }");
    // Recursion is refused, naming the cycle.
    let rec = "int a(int x);\nint b(int x) { return a(x); }\nint a(int x) { return x > 0 ? b(x - 1) : 0; }\n[numthreads(1,1,1)] void main() { a(3); }";
    let ds = analyze_src(rec).unwrap_err();
    let d = ds.iter().find(|d| d.code == "E0250").expect("a recursion error");
    assert!(d.message.contains("`a` -> `b` -> `a`") || d.message.contains("`b` -> `a` -> `b`"), "{}", d.message);
    assert_eq!(first_error("float f() { return; }\n[numthreads(1,1,1)] void main() {}").0, "E0240");
}

#[test]
fn structs_and_arrays() {
    let src = "struct P { float3 pos; float life; uint tags[2]; };\n\
               struct W { P p; int n; };\n\
               RWStructuredBuffer<P> ps : register(u0);\n\
               static const float T[3] = { 1, 2, 3 };\n\
               groupshared float tile[4][8];\n\
               [numthreads(8,4,1)] void main(uint3 t : SV_GroupThreadID) {\n\
                 P p = ps[t.x]; p.pos.y += T[t.y % 3]; p.tags[1] = 7; W w = (W)0; w.p = p; ps[t.x] = w.p;\n\
                 int a[] = { 1, 2, 3, 4 }; float2 q[2] = { 1, 2, 3, 4 }; tile[t.y][t.x] = a[t.x & 3];\n\
               }";
    let (m, _) = ok(src);
    let s: Vec<_> = entry_body(&m).iter().map(|x| show_stmt(&m, x)).collect();
    assert_eq!(s[0], "P p = ps[t.x]");
    assert_eq!(s[1], "p.pos.y = (Add old T[(Rem t.y 3u)])");
    assert_eq!(s[2], "p.tags[1u] = 7u");
    assert_eq!(s[3], "W w = (W (splat7 0))");
    assert_eq!(s[6], "int[4] a = int[4](1, 2, 3, 4)");
    assert_eq!(s[7], "float2[2] q = float2[2](1.0f, 2.0f, 3.0f, 4.0f)");
    assert_eq!(s[8], "tile[t.y][t.x] = (float a[(BitAnd t.x 3u)])");
    // groupshared memory is laid out and sized.
    assert_eq!(m.local_memory, 4 * 8 * 4);
    assert_eq!(first_error(&body("int a[2] = { 1, 2, 3 };")).0, "E0246");
    assert_eq!(first_error(&body("int a[0];")).0, "E0244");
    assert_eq!(first_error(&body("int a[i];")).0, "E0245");
    assert_eq!(first_error("struct S { float a; };\n[numthreads(1,1,1)] void main() { S s; s.b = 1; }").0, "E0207");
}

#[test]
fn intrinsics_are_typed() {
    let s = typed(
        "float a = max(f, 1); int b3 = abs(i); float3 c = lerp(v, v, 0.5); uint d = countbits(u); float e = dot(v, v); bool h = any(v);",
    );
    assert_eq!(s[0], "float a = Max(f, 1.0f)");
    assert_eq!(s[1], "int b3 = Abs(i)");
    assert_eq!(s[2], "float3 c = __wavec_lerp(v, v, (splat3 0.5f))");
    assert_eq!(s[3], "uint d = CountBits(u)");
    assert_eq!(s[4], "float e = Dot(v, v)");
    assert_eq!(s[5], "bool h = Any(v)");
    assert_eq!(first_error(&body("float a = sqrt(f, f);")).0, "E0254");
    assert_eq!(first_error(&body("float a = ddx(f);")).0, "E0318");
    assert_eq!(first_error(&body("float a = frobnicate(f);")).0, "E0201");
    assert_eq!(first_error(&body("InterlockedAdd(i, 1);")).0, "E0255");
    assert_eq!(typed("InterlockedAdd(RU[0], 1, u);"), vec!["atomic Add RU[0u] (1u) -> u"]);
}

// ------------------------------------------------------------------ errors

#[test]
fn name_and_type_errors() {
    assert_eq!(first_error(&body("f = zz + 1;")), ("E0201", "zz".into()));
    assert_eq!(first_error(&body("int i = 2;")), ("E0202", "i".into()));
    assert_eq!(first_error(&body("Foo x;")), ("E0203", "Foo".into()));
    assert_eq!(first_error(&body("int r = f & 1;")), ("E0205", "f".into()));
    assert_eq!(first_error(&body("int r = i << 1.5;")), ("E0205", "1.5".into()));
    assert_eq!(first_error(&body("int r = ~f;")), ("E0205", "f".into()));
    assert_eq!(first_error(&body("RO[i] = 1;")), ("E0210", "RO[i]".into()));
    assert_eq!(first_error(&body("s = 1;")), ("E0211", "s".into()));
    assert_eq!(first_error(&body("const int c = 1; c = 2;")), ("E0212", "c".into()));
    assert_eq!(first_error(&body("const int c;")), ("E0242", "c".into()));
    assert_eq!(first_error(&body("(i + 1) = 2;")), ("E0213", "i + 1".into()));
    assert_eq!(first_error(&body("float a = RO;")), ("E0204", "RO".into()));
    assert_eq!(first_error(&body("float a = RO[v];")), ("E0209", "v".into()));
    // A scalar is a one-component vector: `[0]` is itself, other constant indices are out of range.
    assert!(diags(&body("float a = f[0]; f[i] = 2;")).is_empty());
    assert_eq!(first_error(&body("float a = f[1];")), ("E0207", "1".into()));
    assert_eq!(first_error(&body("return 1;")), ("E0240", "1".into()));
    assert_eq!(first_error(&body("break;")), ("E0241", "break;".into()));
    assert_eq!(first_error(&body("b++;")), ("E0206", "b".into()));
    assert_eq!(first_error(&body("void q;")), ("E0243", "void".into()));
    assert_eq!(first_error(&body("double d = 1; d = d % 2;")), ("E0314", "d % 2".into()));
    assert!(diags(&body("int64_t l = 1; l = l / 2 + l % 3;")).is_empty());
    assert_eq!(first_error(&body("int16_t d = 1;")), ("E0313", "int16_t".into()));
}

#[test]
fn real_code_declarations_dxc_accepts() {
    // A semantic on a resource is ignored with W0209 (DXC and FXC ignore it); the resource
    // keeps its implicit binding, also when the semantic is spelled like a register.
    let src = "StructuredBuffer<float> In : t3;\nRWStructuredBuffer<float> Out : u7;\n[numthreads(1,1,1)] void main() { Out[0] = In[0]; }";
    let (m, w) = ok(src);
    assert_eq!(diags(src), vec![("W0209", "t3".to_string()), ("W0209", "u7".to_string())]);
    assert!(w[0].notes.iter().any(|n| n.contains("write `register(t3)`")), "{:?}", w[0].notes);
    let bound: Vec<_> = m.bound_resources().iter().map(|r| (r.name.clone(), r.binding.index)).collect();
    assert_eq!(bound, vec![("In".to_string(), 0), ("Out".to_string(), 0)]);
    // A static inside a cbuffer is a static global (initialized from the members), not a member.
    let (m, _) = ok("cbuffer C { float4 w[2]; static float s[8] = (float[8]) w; uint n; };\nRWStructuredBuffer<float> o;\n\
                     [numthreads(1,1,1)] void main() { s[1] += 1; o[0] = s[n] + s[1]; }");
    let cb = m.resources.iter().find(|r| r.name == "C").expect("cbuffer C");
    let Type::Struct(sid) = cb.elem else { panic!("cbuffer struct") };
    let names: Vec<_> = m.types.strukt(sid).fields.iter().map(|f| f.name.clone()).collect();
    assert_eq!(names, vec!["w", "n"]);
    // Legacy sampler keywords and more texture kinds are declarations wavec refuses only where used.
    ok("sampler s : register(s0);\nsampler2D s2;\nsamplerCUBE sc;\nTexture2DMS<float4, 8> ms[4] : register(t1);\n\
        Texture1DArray<float> ta;\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = 1; }");
    assert_eq!(
        first_error("sampler s;\nTexture2D t;\nRWStructuredBuffer<float4> o;\n[numthreads(1,1,1)] void main() { o[0] = t.Sample(s, 0); }")
            .0,
        "E0302"
    );
    // A function taking a texture is refused only where a kernel calls it (DXC drops uncalled
    // functions); so is a texture local in a function the kernel does not call.
    let lib =
        "Texture2D<float4> tex;\nSamplerState ss;\nfloat4 Fetch(Texture2D<float4> t, float2 uv) { return t.SampleLevel(ss, uv, 0); }\n\
               float Local() { Texture2D<float4> l = tex; return 1; }\nRWStructuredBuffer<float> o;\n";
    ok(&format!("{lib}[numthreads(1,1,1)] void main() {{ o[0] = 2; }}"));
    assert_eq!(
        first_error(&format!("{lib}float Via() {{ return Fetch(tex, 0).x; }}\n[numthreads(1,1,1)] void main() {{ o[0] = Via(); }}")),
        ("E0319", "Texture2D<float4>".to_string())
    );
    // Inline ray tracing's types are refused by name, likewise only where the kernel runs them,
    // and a local whose type failed does not make its uses errors too.
    ok("RayDesc make(float3 o) { RayDesc r; r.Origin = o; return r; }\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = 1; }");
    let d = diags("RWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { RayDesc r; r.TMin = 0; o[0] = r.TMin; }");
    assert_eq!(d, vec![("E0302", "RayDesc".to_string())]);
    let d = diags(&format!("{lib}[numthreads(1,1,1)] void main() {{ o[0] = Local(); }}"));
    assert!(d.contains(&("E0319", "Texture2D<float4>".to_string())) && d.contains(&("E0302", "tex".to_string())), "{d:?}");
}

#[test]
fn enums_members_and_prototypes() {
    // Enumerators are constants of the underlying type; `enum class` ones are only `E::A`.
    let (m, _) = ok(
        "enum E { A, B = 5, C };\nenum class F : uint { X = 2, Y = X * 3 };\nstatic const int t[C + F::Y] = { 0,0,0,0,0,0,0,0,0,0,0,0 };\n\
                     RWStructuredBuffer<int> o;\n[numthreads(1,1,1)] void main() { E e = B; o[0] = e + t[0] + (int)F::Y; }",
    );
    assert!(m.statics.len() >= 2);
    assert_eq!(first_error("enum class F { X };\nRWStructuredBuffer<int> o;\n[numthreads(1,1,1)] void main() { o[0] = X; }").0, "E0201");
    assert_eq!(first_error("enum E { A };\nRWStructuredBuffer<int> o;\n[numthreads(1,1,1)] void main() { o[0] = E::Q; }").0, "E0207");
    assert_eq!(first_error("uint n;\nenum E { A = n };\n[numthreads(1,1,1)] void main() {}").0, "E0245");
    assert_eq!(first_error("enum E : float { A };\n[numthreads(1,1,1)] void main() {}").0, "E0206");
    // Member functions defined outside their struct, a struct declared ahead, field-less structs.
    ok("struct P;\nstruct Q { float x; P get(); static Q make(); };\nstruct P { float y; };\n\
        P Q::get() { P p; p.y = x; return p; }\nQ Q::make() { Q q; q.x = 1; return q; }\nstruct H { static float two() { return 2; } };\n\
        RWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = Q::make().get().y + H::two(); }");
    assert_eq!(first_error("struct Q { float x; };\nfloat Q::f() { return x; }\n[numthreads(1,1,1)] void main() {}").0, "E0201");
    // A function called but never defined is an error, not an empty body.
    assert_eq!(
        first_error("float f(float x);\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = f(1); }"),
        ("E0256", "f(1)".to_string())
    );
    assert_eq!(first_error("struct S { float a; float g(); };\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { S s; s.a = 1; o[0] = s.g(); }").0, "E0256");
    ok("float f(float x);\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = 1; }");
    // A buffer of a field-less struct has no elements.
    assert_eq!(first_error("struct E {};\nStructuredBuffer<E> b;\n[numthreads(1,1,1)] void main() {}").0, "E0206");
    // `T const` parameters; DXC's overload ranking: a signedness change beats a conversion to float.
    let (m, _) = ok("float w(int2 p) { return 1; }\nfloat w(float2 p) { return 2; }\nfloat k(uint const a) { return a; }\n\
                     RWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main(uint2 px : SV_DispatchThreadID) { o[0] = w(px) + k(3); }");
    let w_int = m.functions.iter().position(|f| f.name == "w" && f.params[0].ty == Type::Vector(ScalarType::Int, 2)).expect("w(int2)");
    let calls = format!("{:?}", entry_body(&m));
    assert!(calls.contains(&format!("func: FuncId({w_int})")), "{calls}");
}

#[test]
fn unsupported_constructs() {
    // Unsupported resources are refused where the kernel uses them; unused ones are fine
    // (shared headers declare many).
    assert_eq!(first_error("Texture2D<float> t : register(t0);\n[numthreads(1,1,1)] void main() { float x = t[uint2(0, 0)]; }").0, "E0302");
    assert_eq!(
        first_error("RasterizerOrderedBuffer<float> t;\nvoid f() { t[0] = 1.0; }\n[numthreads(1,1,1)] void main() { f(); }").0,
        "E0302"
    );
    ok("Texture2D<float> t : register(t0);\nRasterizerOrderedBuffer<float> a;\nvoid unused() { a[0] = t[uint2(0, 0)]; }\n[numthreads(1,1,1)] void main() {}");
    // Effect-style sampler state blocks parse (samplers are refused only where used).
    ok("SamplerState s { Filter = MIN_MAG_MIP_LINEAR; AddressU = Clamp; };\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = 1; }");
    assert_eq!(first_error("float x { A = 1; };\n[numthreads(1,1,1)] void main() {}"), ("E0206", "{ A = 1; }".into()));
    assert_eq!(first_error("RWStructuredBuffer<float> a[];\n[numthreads(1,1,1)] void main() { a[0][0] = 1; }").0, "E0306");
    assert_eq!(first_error("template<typename T> T id(T x) { return x; }\n[numthreads(1,1,1)] void main() {}").0, "E0312");
    assert_eq!(first_error(&body("discard;")).0, "E0317");
    // packoffset: every member or none; no straddling or overlap; the layout follows it.
    let (m, _) = ok("cbuffer C { float4 c : packoffset(c1); float s : packoffset(c0.z); }\nRWStructuredBuffer<float> o;\n[numthreads(1,1,1)] void main() { o[0] = c.x + s; }");
    let cb = m.resources.iter().find(|r| r.name == "C").expect("cbuffer C");
    let Type::Struct(sid) = cb.elem else { panic!("a struct") };
    assert_eq!(
        crate::frontend::layout::Layouter::new(&m.types, crate::frontend::layout::Rules::Cbuffer).field_offsets(sid.0, cb.major),
        vec![16, 8]
    );
    assert_eq!(
        first_error("cbuffer C { float4 c : packoffset(c0); float d; }\n[numthreads(1,1,1)] void main() { float4 x = c; }").0,
        "E0316"
    );
    assert_eq!(first_error("cbuffer C { float2 c : packoffset(c0.w); }\n[numthreads(1,1,1)] void main() { float2 x = c; }").0, "E0316");
    assert_eq!(
        first_error("cbuffer C { float c : packoffset(t0); }\n[numthreads(1,1,1)] void main() { float x = c; }"),
        ("E0316", "t0".into())
    );
}

#[test]
fn resource_errors_and_bindings() {
    let main = "\n[numthreads(1,1,1)] void main() { o[0] = 1; }";
    assert_eq!(first_error(&format!("RWStructuredBuffer<float> o : register(t0);{main}")), ("E0221", "t0".into()));
    assert_eq!(first_error(&format!("RWStructuredBuffer<float> o : register(q0);{main}")), ("E0221", "q0".into()));
    let clash = "RWStructuredBuffer<float> o : register(u0);\nRWStructuredBuffer<uint> p : register(u0);\n[numthreads(1,1,1)] void main() { o[0] = p[0]; }";
    assert_eq!(first_error(clash), ("E0222", "p".into()));
    // Different spaces do not clash.
    ok("RWStructuredBuffer<float> o : register(u0);\nRWStructuredBuffer<uint> p : register(u0, space1);\n[numthreads(1,1,1)] void main() { o[0] = p[0]; }");
    assert_eq!(
        first_error(&format!("RWStructuredBuffer<float> o : register(u0);\ncbuffer C : register(b0) {{ float o; }}{main}")),
        ("E0202", "o".into())
    );
    // Implicit bindings: the lowest free register of the class, in declaration order,
    // among the resources the kernel uses; `$Globals` collects loose uniforms.
    let (m, w) = ok("RWStructuredBuffer<float> a;\nRWStructuredBuffer<float> b : register(u0);\nRWStructuredBuffer<float> unused;\nRWByteAddressBuffer c;\nfloat scale;\nuint count = 3;\n[numthreads(1,1,1)] void main() { a[0] = b[0] * scale; c.Store(0, count); }");
    let bound: Vec<_> = m.bound_resources().iter().map(|r| (r.name.clone(), r.binding.to_string(), r.slot)).collect();
    assert_eq!(
        bound,
        vec![
            ("a".to_string(), "u1".to_string(), Some(0)),
            ("b".to_string(), "u0".to_string(), Some(1)),
            ("c".to_string(), "u2".to_string(), Some(2)),
            ("$Globals".to_string(), "b0".to_string(), Some(3))
        ]
    );
    assert_eq!(w.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["W0204"]);
}

#[test]
fn entry_errors() {
    assert_eq!(first_error("[numthreads(64,32,1)] void main() {}"), ("E0234", "[numthreads(64,32,1)]".into()));
    assert_eq!(first_error("[numthreads(0,1,1)] void main() {}"), ("E0234", "0".into()));
    assert_eq!(first_error("[numthreads(1,1,65)] void main() {}"), ("E0234", "65".into()));
    assert_eq!(first_error("[numthreads(1,1)] void main() {}").0, "E0235");
    assert_eq!(first_error("[numthreads(1,1,x)] void main() {}"), ("E0201", "x".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] int main() { return 0; }"), ("E0233", "main".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint i) {}"), ("E0236", "uint i".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint i : SV_Position) {}"), ("E0236", "SV_Position".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(float3 i : SV_DispatchThreadID) {}"), ("E0237", "float3".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint3 i : SV_GroupIndex) {}").0, "E0237");
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint a : SV_GroupID, uint b : SV_GroupID) {}").0, "E0238");
    assert_eq!(first_error("[numthreads(1,1,1)] void main(out uint a : SV_GroupID) {}").0, "E0239");
    // Semantics are case-insensitive; the scalar form is allowed; numthreads takes constants.
    let (m, _) = ok("static const uint N = 4;\n[numthreads(N * 2,1,1)] void main(uint a : sv_groupid, uint2 t : SV_GroupThreadID) {}");
    assert_eq!(m.entry.numthreads, [8, 1, 1]);
    assert_eq!(m.entry.inputs[0].semantic, SystemValue::GroupId);
    assert_eq!(m.entry.inputs[1].ty, Type::Vector(ScalarType::Uint, 2));
    // Unknown attributes warn.
    let (_, w) = ok("[numthreads(1,1,1)] [foo] void main() { [unroll] if (true) {} }");
    assert_eq!(w.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["W0203", "W0203"]);
}

#[test]
fn syntax_errors() {
    let src = "[numthreads(1,1,1)]\nvoid main() {\n    int a = 1\n    int b = 2;\n}";
    let ds = analyze_src(src).unwrap_err();
    assert_eq!(ds[0].code, "E0110");
    assert_eq!(&src[ds[0].labels[0].0.range()], "int");
    assert!(ds[0].labels[0].1.contains("`;`"), "{:?}", ds[0]);
    assert_eq!(&src[ds[0].labels[1].0.range()], "1");
    let ds = analyze_src("[numthreads(1,1,1)] void main() { int a = 1;").unwrap_err();
    assert_eq!(ds[0].code, "E0111");
    // Directives are the preprocessor's; a `#` left in the code is a stray character.
    assert!(analyze_src("#define N 4\n[numthreads(N,1,1)] void main() {}").is_ok());
    let ds = analyze_src("[numthreads(1,1,1)] void main() { int a = 1 # 2; }").unwrap_err();
    assert_eq!(ds[0].code, "E0101");
    let ds = analyze_src("[numthreads(1,1,1)] void main() { int a = 1 $ 2; }").unwrap_err();
    assert_eq!(ds[0].code, "E0101");
    // A syntax error before a lexing error is the one reported.
    let ds = analyze_src("[numthreads(1,1,1)] void main() { int a = ; } $").unwrap_err();
    assert_eq!(ds[0].code, "E0110");
    // An unterminated comment is found by the preprocessor, before parsing.
    let ds = analyze_src("[numthreads(1,1,1)] void main() { int a = ; } /* open").unwrap_err();
    assert_eq!(ds[0].code, "E0103");
}

// ------------------------------------------------------------------ robustness

/// Deterministic xorshift generator (no external crates).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn no_panic_on_prefixes_and_noise() {
    let extra = body("i += f; RW[u] = v.x > 1 ? s : -f; do { u--; } while (u > 3); for (;;) break;");
    let mut sources: Vec<String> = CORPUS.iter().map(|(_, s)| s.to_string()).collect();
    sources.push(extra);
    for src in &sources {
        for (i, _) in src.char_indices() {
            let f = SourceFile::new("p.hlsl", &src[..i]);
            let _ = analyze(&f, None);
            let _ = analyze(&f, Some("main"));
        }
    }
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let alphabet: Vec<char> = "{}()[];,.:?+-*/%&|^~!<>=#\n \t0123456789.eEfuxXabcdijnstvwyz_\"'\\é€\u{0}\u{7f}".chars().collect();
    for _ in 0..3000 {
        let len = (rng.next() % 80) as usize;
        let s: String = (0..len).map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize]).collect();
        let _ = analyze(&SourceFile::new("r.hlsl", s), None);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = analyze(&SourceFile::new("r.hlsl", String::from_utf8_lossy(&bytes).into_owned()), None);
    }
    // Mutations of a real shader: replace one token-ish character.
    let base = CORPUS[2].1;
    let chars: Vec<char> = base.chars().collect();
    for _ in 0..1500 {
        let mut c = chars.clone();
        let at = (rng.next() % c.len() as u64) as usize;
        c[at] = alphabet[(rng.next() % alphabet.len() as u64) as usize];
        let _ = analyze(&SourceFile::new("m.hlsl", c.into_iter().collect::<String>()), None);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 20_000;
    let cases = [
        body(&format!("int r = {}1;", "-".repeat(n))),
        body(&format!("int r = {}1{};", "(".repeat(n), ")".repeat(n))),
        body(&format!("int r = {}1;", "1 + ".repeat(n))),
        body(&format!("int r = {}1{};", "i + (".repeat(n), ")".repeat(n))),
        body(&format!("{}{}", "{".repeat(n), "}".repeat(n))),
        body(&format!("{} i = 1;", "if (b) ".repeat(n))),
        body(&format!("int r = {}1;", "b ? 1 : ".repeat(n))),
    ];
    for src in &cases {
        let f = SourceFile::new("deep.hlsl", src.as_str());
        let r = analyze(&f, None);
        // Parentheses alone do not nest the tree, and the result of a long
        // left-leaning `+` chain is capped: every case either succeeds or
        // reports E0105, never a stack overflow.
        if let Err(d) = r {
            assert!(d.iter().any(|d| d.code == "E0105"), "{}", render(&f, &d));
        }
    }
    assert_eq!(first_error(&body(&format!("{}{}", "{".repeat(200), "}".repeat(200)))).0, "E0105");
    // Huge literal texts.
    assert_eq!(first_error(&body(&format!("int r = {};", "9".repeat(5000)))).0, "E0216");
    assert_eq!(first_error(&body(&format!("float r = {}.0;", "9".repeat(5000)))).0, "E0217");
}

#[test]
fn member_functions_inheritance_and_default_arguments() {
    let out = "RWStructuredBuffer<uint> O;\n";
    // A method reads fields implicitly, may call a sibling declared after it, and may write `this`.
    ok(&format!(
        "{out}struct D {{ uint w, h; uint Size() {{ return Twice(w) * h; }} uint Twice(uint x) {{ return x * 2; }} void Grow() {{ w++; }} }};\n\
         [numthreads(1,1,1)] void main() {{ D d; d.w = 1; d.h = 2; d.Grow(); O[0] = d.Size(); }}"
    ));
    // Static member functions, called through the type.
    ok(&format!(
        "{out}struct M {{ float a; static uint Three() {{ return 3; }} }};\n[numthreads(1,1,1)] void main() {{ O[0] = M::Three(); }}"
    ));
    // `struct D : B` takes B's fields first and B's methods; D's own method hides B's.
    ok(&format!(
        "{out}struct B {{ uint a; uint Get() {{ return a; }} uint Base() {{ return 1; }} }};\nstruct E : B {{ uint b; uint Get() {{ return a + b; }} }};\n\
         [numthreads(1,1,1)] void main() {{ E e; e.a = 1; e.b = 2; O[0] = e.Get() + e.Base(); }}"
    ));
    // Default arguments may be left out from the right.
    ok(&format!("{out}uint f(uint a, uint b = 2, uint c = 3) {{ return a + b * c; }}\n[numthreads(1,1,1)] void main() {{ O[0] = f(1) + f(1, 1) + f(1, 1, 1); }}"));
    assert_eq!(
        first_error(&format!("{out}uint f(uint a, uint b = 2) {{ return a + b; }}\n[numthreads(1,1,1)] void main() {{ O[0] = f(); }}")).0,
        "E0251"
    );
    // Errors: an unknown method, a method on a value without methods, an unknown base.
    assert_eq!(
        first_error(&format!(
            "{out}struct S {{ uint a; uint F() {{ return a; }} }};\n[numthreads(1,1,1)] void main() {{ S s; s.a = 0; O[0] = s.G(); }}"
        )),
        ("E0215", "G".into())
    );
    assert_eq!(first_error(&format!("{out}[numthreads(1,1,1)] void main() {{ uint x = 0; O[0] = x.F(); }}")), ("E0215", "F".into()));
    assert_eq!(
        first_error(&format!("{out}struct E : Nope {{ uint b; }};\n[numthreads(1,1,1)] void main() {{ O[0] = 0; }}")),
        ("E0203", "Nope".into())
    );
    // A float index converts with a warning.
    assert_eq!(diags(&body("float a = RO[f];")), vec![("W0201", "f".to_string())]);
}

#[test]
fn buffers_as_values() {
    let decls = "StructuredBuffer<uint> A;\nStructuredBuffer<uint> B;\nRWStructuredBuffer<uint> O;\nRWByteAddressBuffer R;\n";
    // Parameters, locals, fields, return values and out parameters of buffer type.
    let (m, _) = ok(&format!(
        "{decls}struct T {{ StructuredBuffer<uint> d; uint At(uint i) {{ return d[i]; }} }};\n\
         StructuredBuffer<uint> Pick(uint i) {{ return i > 2 ? A : B; }}\n\
         void Get(out StructuredBuffer<uint> b) {{ b = B; }}\n\
         void Put(RWStructuredBuffer<uint> o, RWByteAddressBuffer r, uint v) {{ o[0] = v; r.Store(0, v); r.InterlockedAdd(4, v); }}\n\
         [numthreads(1,1,1)] void main(uint i : SV_GroupIndex) {{ T t; t.d = Pick(i); StructuredBuffer<uint> l; Get(l); Put(O, R, t.At(i) + l.Load(i)); }}"
    ));
    // Every buffer passed around is bound, as if used directly.
    let bound: Vec<_> = m.bound_resources().iter().map(|r| r.name.clone()).collect();
    assert_eq!(bound, vec!["A", "B", "O", "R"]);
    // Types must match exactly; read-only stays read-only; buffers are not numbers.
    let f =
        |body: &str| first_error(&format!("{decls}void f(StructuredBuffer<float> x) {{}}\n[numthreads(1,1,1)] void main() {{ {body} }}"));
    assert_eq!(f("f(A);").0, "E0251");
    assert_eq!(f("StructuredBuffer<uint> l = A; l[0] = 1;"), ("E0210", "l[0]".into()));
    assert_eq!(f("uint x = A;").0, "E0204");
    assert_eq!(f("uint x = A + 1;").0, "E0206");
    assert_eq!(f("StructuredBuffer<uint> l = O;").0, "E0204");
    assert_eq!(f("Texture2D<float> t;").0, "E0319");
    // A buffer in a variable has a size and a counter (the lowering follows it to its
    // global); every used buffer of its type gets a size argument.
    let (m, _) = ok(&format!(
        "{decls}[numthreads(1,1,1)] void main(uint i : SV_GroupIndex) {{ uint n, s; StructuredBuffer<uint> l = i > 2 ? A : B; l.GetDimensions(n, s); O[0] = n + s; }}"
    ));
    let sized: Vec<_> = m.bound_resources().iter().filter(|r| r.size_slot.is_some()).map(|r| r.name.clone()).collect();
    assert_eq!(sized, vec!["A", "B"]);
    // Never in memory, never a number.
    assert_eq!(first_error(&format!("{decls}groupshared StructuredBuffer<uint> g;\n[numthreads(1,1,1)] void main() {{}}")).0, "E0206");
    assert_eq!(
        first_error(&format!(
            "{decls}struct S {{ StructuredBuffer<uint> d; }};\ncbuffer C {{ S s; }};\n[numthreads(1,1,1)] void main() {{ O[0] = 0; }}"
        ))
        .0,
        "E0206"
    );
    assert_eq!(first_error(&format!("{decls}[numthreads(1,1,1)] void main() {{ R.Store(0, A); }}")).0, "E0206");
    assert_eq!(first_error(&format!("{decls}[numthreads(1,1,1)] void main() {{ uint2 u = uint2(A, 1); }}")).0, "E0206");
    // In initializer lists, buffers fill buffer leaves of their own type, and nothing else.
    ok(&format!(
        "{decls}struct S {{ StructuredBuffer<uint> d; uint n; }};
[numthreads(1,1,1)] void main() {{ S s = {{ A, 4 }}; StructuredBuffer<uint> l[2] = {{ A, B }}; O[0] = s.d[0] + l[1][0]; }}"
    ));
    assert_eq!(
        first_error(&format!(
            "{decls}struct S {{ StructuredBuffer<uint> d; uint n; }};
[numthreads(1,1,1)] void main() {{ S s = {{ 4, A }}; }}"
        )),
        ("E0206", "4".into())
    );
    assert_eq!(
        first_error(&format!("{decls}[numthreads(1,1,1)] void main() {{ StructuredBuffer<uint> l[2] = {{ A, O }}; }}")),
        ("E0206", "O".into())
    );
}

#[test]
fn resource_arrays_and_resources_in_structs() {
    // Every element of a resource array is a resource with its own register.
    let (m, _) = ok("RWStructuredBuffer<int> B[2][3] : register(u4);
RWBuffer<float> C[2];
        [numthreads(1,1,1)] void main(uint i : SV_GroupIndex) { B[1][2][0] = 1; C[i][0] = 2; }");
    let bound: Vec<_> = m.bound_resources().iter().map(|r| (r.name.clone(), r.binding.to_string())).collect();
    let want = [("B[1][2]", "u9"), ("C[0]", "u0"), ("C[1]", "u1")];
    assert_eq!(bound, want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>());
    assert_eq!(m.bound_resources()[0].array, Some(("B".to_string(), vec![1, 2])));
    // An implicitly bound array takes a free range as a whole, around explicit bindings.
    let (m, _) = ok("RWBuffer<float> A : register(u1);
RWBuffer<float> C[3];
RWBuffer<float> D;
        [numthreads(1,1,1)] void main() { C[2][0] = D[0] + A[0]; }");
    let bound: Vec<_> = m.bound_resources().iter().map(|r| (r.name.clone(), r.binding.to_string())).collect();
    let want = [("A", "u1"), ("C[2]", "u4"), ("D", "u0")];
    assert_eq!(bound, want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>());
    // Resources in a global struct: one register per class from the given ones, in
    // declaration order; without a register, each used one binds on its own.
    let (m, _) = ok("struct E { RWBuffer<int> U1; };
class G { StructuredBuffer<int> S1; E e; StructuredBuffer<int> S2; RWBuffer<int> U2[2]; };
        G g : register(u5) : register(t3);
G h;
RWBuffer<int> O : register(u0);
        [numthreads(1,1,1)] void main() { O[0] = g.e.U1[0] + g.S2[0] + g.U2[1][0] + h.U2[1][0]; }");
    let bound: Vec<_> = m.bound_resources().iter().map(|r| (r.name.clone(), r.binding.to_string())).collect();
    let want = [("g.e.U1", "u5"), ("g.S2", "t4"), ("g.U2[1]", "u7"), ("h.U2[1]", "u1"), ("O", "u0")];
    assert_eq!(bound, want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>());
    // Unbounded arrays need the host's count; structs may not mix resources and data.
    assert_eq!(
        first_error(
            "RWBuffer<int> U[] : register(u0);
[numthreads(1,1,1)] void main() { U[0][0] = 1; }"
        )
        .0,
        "E0306"
    );
    assert_eq!(
        first_error(
            "RWBuffer<int> U[];
[numthreads(1,1,1)] void main() { U[0][0] = 1; }"
        )
        .0,
        "E0306"
    );
    assert_eq!(
        first_error(
            "struct M { RWBuffer<int> b; float f; };
M m;
[numthreads(1,1,1)] void main() { m.b[0] = 1; }"
        )
        .0,
        "E0306"
    );
    // Counters and append/consume buffers.
    let (m, _) = ok("RWStructuredBuffer<int> O[2];
AppendStructuredBuffer<float> A;
ConsumeStructuredBuffer<float> C;
        [numthreads(1,1,1)] void main(uint i : SV_GroupIndex) { O[i][0] = O[i].IncrementCounter(); A.Append(C.Consume()); }");
    let counted: Vec<_> = m.bound_resources().iter().filter(|r| r.counter_slot.is_some()).map(|r| r.name.clone()).collect();
    assert_eq!(counted, vec!["O[0]", "O[1]", "A", "C"]);
    assert_eq!(
        first_error(
            "RWBuffer<int> O;
[numthreads(1,1,1)] void main() { O.IncrementCounter(); }"
        )
        .0,
        "E0215"
    );
    assert_eq!(
        first_error(
            "AppendStructuredBuffer<int> O;
[numthreads(1,1,1)] void main() { O[0] = 1; }"
        )
        .0,
        "E0208"
    );
}

#[test]
fn stdlib_bodies_are_lazy_and_isolated_from_user_names() {
    // User functions and globals named like what the stdlib calls do not change the stdlib.
    let (m, d) = ok("RWStructuredBuffer<float> O;\nfloat sqrt(float x) { return 7; }\nint select(int a) { return a; }\n\
         static const float pi = 3;\n\
         [numthreads(1,1,1)] void main() { O[0] = length(float2(3, 4)) + sqrt(2.0) + atan2(1.0, 0.5); }");
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    // Only what the kernel reaches has a body: length, atan2 and what atan2 calls (atan).
    let with_body: Vec<&str> = m.functions.iter().filter(|f| f.stdlib && !f.body.stmts.is_empty()).map(|f| f.name.as_str()).collect();
    assert_eq!(with_body, vec!["__wavec_atan", "__wavec_atan2", "__wavec_length"]);
    // Element-wise stdlib intrinsics take matrices; sign takes unsigned values.
    let (_, d) = ok("RWStructuredBuffer<float> O;\n[numthreads(1,1,1)] void main() {\n\
         float2x3 m = float2x3(1, 2, 3, 4, 5, 6); float2x3 p = pow(m, m) + lerp(m, m, 0.5) + atan2(m, m);\n\
         int2x3 s = sign(m); int3 u = sign(uint3(0, 1, 2)); O[0] = p._m12 + s._m01 + u.y; }");
    assert!(d.is_empty(), "{d:?}");
}
