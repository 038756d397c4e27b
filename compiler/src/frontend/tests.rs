//! Front-end unit tests: parsing, typing and conversions, diagnostics,
//! robustness (no panics on any input).

use super::tast::*;
use super::*;
use crate::diag::{render, Severity};

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
    match &e.kind {
        ExprKind::Literal(c) => match c {
            Const::Bool(b) => format!("{b}"),
            Const::Int(i) => format!("{i}"),
            Const::Uint(u) => format!("{u}u"),
            Const::Float(f) => format!("{f:?}f"),
        },
        ExprKind::Local(id) => m.local(*id).name.clone(),
        ExprKind::Component { base, index } => {
            format!("{}.{}", s(base), ["x", "y", "z", "w"][*index as usize])
        }
        ExprKind::Construct { args } => {
            format!("{}({})", e.ty, args.iter().map(s).collect::<Vec<_>>().join(", "))
        }
        ExprKind::BufferLoad { res, index } => format!("{}[{}]", m.resource(*res).name, s(index)),
        ExprKind::CbufferLoad { res, member } => {
            format!("{}.{}", m.resource(*res).name, m.resource(*res).members[*member as usize].name)
        }
        ExprKind::Unary { op, operand } => format!("({op:?} {})", s(operand)),
        ExprKind::Binary { op, lhs, rhs } => format!("({op:?} {} {})", s(lhs), s(rhs)),
        ExprKind::Logical { op, lhs, rhs } => format!("({op:?} {} {})", s(lhs), s(rhs)),
        ExprKind::Select { cond, then_expr, else_expr } => {
            format!("(? {} {} {})", s(cond), s(then_expr), s(else_expr))
        }
        ExprKind::Cast { operand } => format!("({} {})", e.ty, s(operand)),
        ExprKind::Splat { operand } => format!("(splat{} {})", e.ty.len(), s(operand)),
        ExprKind::Truncate { operand } => format!("(trunc{} {})", e.ty.len(), s(operand)),
        ExprKind::PlaceValue => "old".into(),
    }
}

fn show_place(m: &Module, p: &Place) -> String {
    match &p.kind {
        PlaceKind::Local(id) => m.local(*id).name.clone(),
        PlaceKind::LocalComponent(id, c) => format!("{}.{}", m.local(*id).name, ["x", "y", "z", "w"][*c as usize]),
        PlaceKind::BufferElement { res, index } => {
            format!("{}[{}]", m.resource(*res).name, show(m, index))
        }
    }
}

/// The statements after the fixed prelude of [`body`] (6 declarations).
fn user_stmts(m: &Module) -> &[Stmt] {
    &m.entry.body.stmts[6..]
}

fn show_stmt(m: &Module, s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Decl { local, init } => {
            let l = m.local(*local);
            match init {
                Some(e) => format!("{} {} = {}", l.ty, l.name, show(m, e)),
                None => format!("{} {}", l.ty, l.name),
            }
        }
        StmtKind::Assign { place, value, .. } => {
            format!("{} = {}", show_place(m, place), show(m, value))
        }
        StmtKind::Expr(e) => show(m, e),
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
    assert_eq!(m.entry.params.len(), 1);
    assert_eq!(m.entry.params[0].semantic, SystemValue::DispatchThreadId);
    assert_eq!(m.entry.params[0].ty, Type::Vector(ScalarType::Uint, 3));
    let names: Vec<_> = m.resources.iter().map(|r| (r.name.as_str(), r.kind, r.binding.to_string())).collect();
    use crate::interface::ResourceKind as K;
    assert_eq!(
        names,
        vec![
            ("A", K::StructuredBuffer, "t0".to_string()),
            ("B", K::StructuredBuffer, "t1".to_string()),
            ("C", K::RWStructuredBuffer, "u0".to_string())
        ]
    );
    let s: Vec<_> = m.entry.body.stmts.iter().map(|s| show_stmt(&m, s)).collect();
    assert_eq!(s, vec!["uint i = id.x", "C[i] = (Add A[i] B[i])"]);
}

#[test]
fn saxpy_cbuffer_layout() {
    let (m, _) = ok(CORPUS[1].1);
    let cb = &m.resources[0];
    assert_eq!(cb.kind, crate::interface::ResourceKind::ConstantBuffer);
    let mem: Vec<_> = cb.members.iter().map(|x| (x.name.as_str(), x.ty, x.offset)).collect();
    assert_eq!(mem, vec![("a", ScalarType::Float, 0), ("n", ScalarType::Uint, 4)]);
    assert_eq!(cb.stride(), 8);
    assert_eq!(m.resources.iter().map(|r| r.id.0).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(m.entry.params[0].ty, Type::UINT);
    let s: Vec<_> = m.entry.body.stmts.iter().map(|s| show_stmt(&m, s)).collect();
    assert_eq!(s[1], "Y[tid] = (Add (Mul Params.a X[tid]) Y[tid])");
    let StmtKind::If { cond, .. } = &m.entry.body.stmts[0].kind else { panic!() };
    assert_eq!(show(&m, cond), "(Ge tid Params.n)");
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
}

// ------------------------------------------------------------------ parsing

#[test]
fn precedence_is_c_like() {
    let s = typed("int r = 1 + 2 * 3 << 1 & 7 | 8 ^ 9;");
    assert_eq!(s, vec!["int r = (BitOr (BitAnd (Shl (Add 1 (Mul 2 3)) 1) 7) (BitXor 8 9))"]);
    let s = typed("bool c = i < 2 == b || i > 0 && !b;");
    assert_eq!(s, vec!["bool c = (Or (Eq (Lt i 2) b) (And (Gt i 0) (Not b)))"]);
    let s = typed("int r = i - 1 - 2; int q = b ? 1 : b ? 2 : 3; int w = -i * ~i;");
    assert_eq!(s, vec!["int r = (Sub (Sub i 1) 2)", "int q = (? b 1 (? b 2 3))", "int w = (Mul (Neg i) (BitNot i))"]);
}

#[test]
fn literals() {
    let s = typed("uint a = 0xFFFFFFFF; int b2 = 7L; float c = .5; float d = 1.f; float e = 1e3; float g = 2.5h; uint h = 3000000000;");
    assert_eq!(
        s,
        vec![
            "uint a = 4294967295u",
            "int b2 = 7",
            "float c = 0.5f",
            "float d = 1.0f",
            "float e = 1000.0f",
            "float g = 2.5f",
            "uint h = 3000000000u"
        ]
    );
    let s = typed("int m = -2147483648; uint z = -1;");
    assert_eq!(s, vec!["int m = -2147483648", "uint z = 4294967295u"]);
    assert_eq!(first_error(&body("uint x = 4294967296;")), ("E0216", "4294967296".into()));
    assert_eq!(first_error(&body("uint x = 99999999999999999999999;")).0, "E0216");
    assert_eq!(first_error(&body("float x = 1e39;")), ("E0217", "1e39".into()));
}

#[test]
fn dangling_else_binds_inner() {
    let (m, _) = ok(&body("if (b) if (i > 0) f = 1; else f = 2;"));
    let StmtKind::If { then_blk, else_blk, .. } = &user_stmts(&m)[0].kind else { panic!() };
    assert!(else_blk.is_none());
    assert!(matches!(then_blk.stmts[0].kind, StmtKind::If { else_blk: Some(_), .. }));
}

#[test]
fn loops_and_attrs() {
    let (m, _) = ok(&body(
        "[unroll(2)] for (int j = 0, q = 1; j < 4; j++, q--) { if (j == 2) continue; }\n\
         [fastopt] [loop] while (i < 3) { i++; break; }\n\
         [unroll] do { --i; } while (i);\n\
         [branch] if (b) {} [flatten] if (b) {} else {}\n\
         for (;;) { break; }",
    ));
    let u = user_stmts(&m);
    let StmtKind::For { init, cond, step, attrs, .. } = &u[0].kind else { panic!() };
    assert_eq!(init.len(), 2);
    assert_eq!(show(&m, cond.as_ref().unwrap()), "(Lt j 4)");
    let st: Vec<_> = step.iter().map(|s| show_stmt(&m, s)).collect();
    assert_eq!(st, vec!["j = (Add old 1)", "q = (Sub old 1)"]);
    assert_eq!(attrs, &vec![StmtAttr::Unroll(Some(2))]);
    let StmtKind::While { attrs, .. } = &u[1].kind else { panic!() };
    assert_eq!(attrs, &vec![StmtAttr::FastOpt, StmtAttr::Loop]);
    let StmtKind::DoWhile { cond, attrs, .. } = &u[2].kind else { panic!() };
    assert_eq!(show(&m, cond), "(bool i)");
    assert_eq!(attrs, &vec![StmtAttr::Unroll(None)]);
    let StmtKind::If { attrs, .. } = &u[3].kind else { panic!() };
    assert_eq!(attrs, &vec![StmtAttr::Branch]);
    let StmtKind::For { cond: None, init, step, .. } = &u[5].kind else { panic!() };
    assert!(init.is_empty() && step.is_empty());
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
    // Float % is allowed.
    assert_eq!(typed("float r = f % 2;"), vec!["float r = (Rem f 2.0f)"]);
}

#[test]
fn truncation_warnings() {
    let (_, w) = ok(&body("int t = f; uint w = f * 2; int ok1 = 2.0; int ok2 = (int)f; float2 p = v;"));
    let codes: Vec<_> = w.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["W0201", "W0201", "W0202"]);
    assert_eq!(diags(&body("int t = f;")), vec![("W0201", "f".to_string())]);
}

#[test]
fn vectors() {
    let s = typed("float3 a = v * 2; float3 c = v + i; float x = v.y; v.z = 4; float3 d = float3(iv, f); float3 e = (float3)1;");
    assert_eq!(
        s,
        vec![
            "float3 a = (Mul v (splat3 2.0f))",
            "float3 c = (Add v (splat3 (float i)))",
            "float x = v.y",
            "v.z = 4.0f",
            "float3 d = float3((float2 iv), f)",
            "float3 e = (splat3 1.0f)"
        ]
    );
    let s = typed("float s1 = v; int2 q = int2(v.x, v.y); float r = float3(1, 2, 3).r;");
    assert_eq!(s[0], "float s1 = (trunc1 v)");
    assert_eq!(s[1], "int2 q = int2((int v.x), (int v.y))");
    assert_eq!(s[2], "float r = float3(1.0f, 2.0f, 3.0f).x");
    assert_eq!(first_error(&body("float3 r = float3(1, 2, 3).rgb.r;")), ("E0308", "rgb".into()));
    assert_eq!(first_error(&body("float4 w = v;")), ("E0204", "v".into()));
    assert_eq!(first_error(&body("float3 w = float3(1, 2);")).0, "E0206");
    assert_eq!(first_error(&body("float a = v.w;")), ("E0207", "w".into()));
    assert_eq!(first_error(&body("float a = v.q;")), ("E0207", "q".into()));
    assert_eq!(first_error(&body("float a = v.xy;")), ("E0308", "xy".into()));
    assert_eq!(first_error(&body("if (v) {}")), ("E0214", "v".into()));
    assert_eq!(first_error(&body("bool q = b && v;")), ("E0214", "v".into()));
}

#[test]
fn compound_assignment_and_incdec() {
    let s = typed("i += f; RW[u] *= 2; RU[id.x] <<= 1; u++; --f; v.x -= 1; iv.y |= i;");
    assert_eq!(
        s,
        vec![
            "i = (int (Add (float old) f))",
            "RW[u] = (Mul old 2.0f)",
            "RU[id.x] = (Shl old 1u)",
            "u = (Add old 1u)",
            "f = (Sub old 1.0f)",
            "v.x = (Sub old 1.0f)",
            "iv.y = (BitOr old i)"
        ]
    );
    let (m, w) = ok(&body("i += f;"));
    assert_eq!(w[0].code, "W0201");
    let StmtKind::Assign { compound, .. } = &user_stmts(&m)[0].kind else { panic!() };
    assert_eq!(*compound, Some(BinaryOp::Add));
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
    let StmtKind::Assign { place: Place { kind: PlaceKind::Local(inner_x), .. }, .. } = inner.stmts[1].kind else { panic!() };
    let StmtKind::Assign { place: Place { kind: PlaceKind::Local(outer_x), .. }, .. } = u[2].kind else { panic!() };
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
    assert_eq!(first_error(&body("float a = RO;")), ("E0215", "RO".into()));
    assert_eq!(first_error(&body("float a = RO[f];")), ("E0209", "f".into()));
    assert_eq!(first_error(&body("float a = RO[v];")), ("E0209", "v".into()));
    assert_eq!(first_error(&body("float a = f[0];")), ("E0208", "f".into()));
    assert_eq!(first_error(&body("return 1;")), ("E0240", "1".into()));
    assert_eq!(first_error(&body("break;")), ("E0241", "break;".into()));
    assert_eq!(first_error(&body("b++;")), ("E0206", "b".into()));
    assert_eq!(first_error(&body("void q;")), ("E0243", "void".into()));
    assert_eq!(first_error(&body("double d = 1;")), ("E0309", "double".into()));
    assert_eq!(first_error(&body("float4x4 mm;")), ("E0309", "float4x4".into()));
}

#[test]
fn unsupported_constructs() {
    assert_eq!(first_error(&body("float r = sqrt(f);")), ("E0301", "sqrt(f)".into()));
    assert_eq!(first_error(&body("int r = i++;")), ("E0305", "i++".into()));
    assert_eq!(first_error(&body("int r = (i = 2);")), ("E0305", "i = 2".into()));
    assert_eq!(first_error(&body("int a[4];")), ("E0306", "[4]".into()));
    assert_eq!(first_error(&body("float a = v[0];")), ("E0306", "v".into()));
    assert_eq!(first_error("Texture2D<float> t : register(t0);\n[numthreads(1,1,1)] void main() {}").0, "E0302");
    assert_eq!(first_error("groupshared float g;\n[numthreads(1,1,1)] void main() {}").0, "E0303");
    assert_eq!(first_error("static const int N = 4;\n[numthreads(1,1,1)] void main() {}").0, "E0303");
    assert_eq!(first_error("float h(float x) { return x; }\n[numthreads(1,1,1)] void main() {}"), ("E0304", "h".into()));
    assert_eq!(first_error("struct S { float a; };\n[numthreads(1,1,1)] void main() {}").0, "E0307");
    assert_eq!(first_error("RWStructuredBuffer<float4> o : register(u0);\n[numthreads(1,1,1)] void main() {}").0, "E0310");
    assert_eq!(first_error("cbuffer C : register(b0) { float4 c; }\n[numthreads(1,1,1)] void main() {}").0, "E0310");
}

#[test]
fn resource_errors() {
    let main = "\n[numthreads(1,1,1)] void main() {}";
    assert_eq!(first_error(&format!("RWStructuredBuffer<float> o;{main}")), ("E0220", "o".into()));
    assert_eq!(first_error(&format!("RWStructuredBuffer<float> o : register(t0);{main}")), ("E0221", "t0".into()));
    assert_eq!(first_error(&format!("RWStructuredBuffer<float> o : register(q0);{main}")), ("E0221", "q0".into()));
    assert_eq!(
        first_error(&format!("RWStructuredBuffer<float> o : register(u0);\nRWStructuredBuffer<uint> p : register(u0);{main}")),
        ("E0222", "register(u0)".into())
    );
    // Different spaces do not clash.
    ok(&format!("RWStructuredBuffer<float> o : register(u0);\nRWStructuredBuffer<uint> p : register(u0, space1);{main}"));
    assert_eq!(
        first_error(&format!("RWStructuredBuffer<float> o : register(u0);\ncbuffer C : register(b0) {{ float o; }}{main}")),
        ("E0202", "o".into())
    );
}

#[test]
fn entry_errors() {
    assert_eq!(first_error("[numthreads(64,32,1)] void main() {}"), ("E0234", "[numthreads(64,32,1)]".into()));
    assert_eq!(first_error("[numthreads(0,1,1)] void main() {}"), ("E0234", "0".into()));
    assert_eq!(first_error("[numthreads(1,1,65)] void main() {}"), ("E0234", "65".into()));
    assert_eq!(first_error("[numthreads(1,1)] void main() {}").0, "E0235");
    assert_eq!(first_error("[numthreads(1,1,x)] void main() {}"), ("E0235", "x".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] int main() {}"), ("E0233", "int".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint i) {}"), ("E0236", "i".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint i : SV_Position) {}"), ("E0236", "SV_Position".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(float3 i : SV_DispatchThreadID) {}"), ("E0237", "float3".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint3 i : SV_GroupIndex) {}"), ("E0237", "uint3".into()));
    assert_eq!(first_error("[numthreads(1,1,1)] void main(uint a : SV_GroupID, uint b : SV_GroupID) {}").0, "E0238");
    assert_eq!(first_error("[numthreads(1,1,1)] void main(out uint a : SV_GroupID) {}"), ("E0239", "out".into()));
    // Semantics are case-insensitive; the scalar form is allowed.
    let (m, _) = ok("[numthreads(1,1,1)] void main(uint a : sv_groupid, uint2 t : SV_GroupThreadID) {}");
    assert_eq!(m.entry.params[0].semantic, SystemValue::GroupId);
    assert_eq!(m.entry.params[1].ty, Type::Vector(ScalarType::Uint, 2));
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
