//! Preprocessor tests: the C standard's examples as facts, directives,
//! includes, spans, line endings, limits, and no panics on random input.

use super::lexer::lex;
use super::*;
use crate::diag::{render, Severity};

fn input(src: &str) -> Input {
    Input::new(SourceFile::new("t.hlsl", src))
}

fn run_with(input: &Input, opts: &PpOptions) -> (Sources, Result<Preprocessed, Vec<Diagnostic>>) {
    preprocess(input, opts)
}

/// The expanded text as tokens separated by single spaces.
fn norm(text: &str) -> String {
    lex(text, 0, 0).0.iter().map(|t| t.text.to_string()).collect::<Vec<_>>().join(" ")
}

#[track_caller]
fn expands(src: &str) -> String {
    let (sources, r) = run_with(&input(src), &PpOptions::default());
    match r {
        Ok(pp) => norm(&pp.text),
        Err(d) => panic!("preprocessing failed:\n{}", render(&sources, &d)),
    }
}

#[track_caller]
fn expands_to(src: &str, expected: &str) {
    assert_eq!(expands(src), norm(expected), "source:\n{src}");
}

/// The error codes preprocessing `src` reports.
fn errors(src: &str) -> Vec<&'static str> {
    match run_with(&input(src), &PpOptions::default()).1 {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().filter(|d| d.is_error()).map(|d| d.code).collect(),
    }
}

fn first_error(src: &str) -> Diagnostic {
    let (_, r) = run_with(&input(src), &PpOptions::default());
    r.err().and_then(|d| d.into_iter().find(Diagnostic::is_error)).unwrap_or_else(|| panic!("no error for:\n{src}"))
}

fn warnings(src: &str) -> Vec<(Severity, &'static str)> {
    match run_with(&input(src), &PpOptions::default()).1 {
        Ok(pp) => pp.diagnostics.iter().map(|d| (d.severity, d.code)).collect(),
        Err(d) => panic!("errors: {d:?}"),
    }
}

// ---------------------------------------------------------------- C99 examples

/// C99 6.10.3.5 EXAMPLE 3: rescanning, painted-blue names, arguments across lines.
#[test]
fn c99_example_3_rescanning() {
    let src = "#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
";
    expands_to(
        src,
        "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { \"hello\", \"\" };",
    );
}

/// C99 6.10.3.5 EXAMPLE 4: `#` and `##`, strings with escapes, `@` as a token.
#[test]
fn c99_example_4_stringizing_and_pasting() {
    let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
    expands_to(
        src,
        r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);
"vers2.h"
"hello";
"hello" ", world""#,
    );
}

/// C99 6.10.3.5 EXAMPLE 5: placemarkers for empty arguments.
#[test]
fn c99_example_5_placemarkers() {
    expands_to(
        "#define t(x,y,z) x ## y ## z\nint j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n t(10,,), t(,11,), t(,,12), t(,,) };",
        "int j[] = { 123, 45, 67, 89, 10, 11, 12, };",
    );
}

/// C99 6.10.3.5 EXAMPLE 7: variadic macros.
#[test]
fn c99_example_7_variadic() {
    let src = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
    expands_to(
        src,
        r#"fprintf(stderr, "Flag");
fprintf(stderr, "X = %d\n", x);
puts("The first, second, and third items.");
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#,
    );
}

/// C99 6.10.3.3 EXAMPLE: `hash_hash` makes a `##` token that is not an operator.
#[test]
fn c99_hash_hash() {
    let src = "#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
char p[] = join(x, y);";
    expands_to(src, "char p[] = \"x ## y\";");
}

#[test]
fn recursion_is_painted_blue() {
    expands_to("#define foo foo\nfoo", "foo");
    expands_to("#define a b\n#define b a\na b", "a b");
    expands_to("#define f(x) x\nf(f)(1)", "f(1)");
    expands_to("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)", "2*9*g");
    // A painted name stays painted when it is passed on as an argument.
    expands_to("#define e(x) x\n#define foo e(foo)\nfoo e(foo)", "foo foo");
    // The same macro expands again outside its own expansion.
    expands_to("#define N (N + 1)\nN N", "(N + 1) (N + 1)");
}

#[test]
fn gnu_comma_paste_and_va_args() {
    expands_to("#define P(f, ...) f(0 , ## __VA_ARGS__)\nP(a) P(b, 1, 2)", "a(0) b(0, 1, 2)");
    expands_to("#define V(...) [__VA_ARGS__]\nV() V(1) V(1, (2, 3))", "[] [1] [1, (2, 3)]");
    expands_to("#define A(x, ...) x __VA_ARGS__\nA(1)", "1");
}

// ---------------------------------------------------------------- directives

#[test]
fn object_and_function_like_macros() {
    expands_to("#define N 64\n#define SQ(x) ((x) * (x))\n[numthreads(N, 1, 1)] SQ(a + 1)", "[numthreads(64, 1, 1)] ((a + 1) * (a + 1))");
    // A function-like name without `(` stays itself; the `(` may come on the next line.
    expands_to("#define F(x) <x>\nF + F\n(1)", "F + <1>");
    // Arguments are fully expanded first.
    expands_to("#define N 4\n#define ID(x) x\n#define S(x) #x\n#define XS(x) S(x)\nID(N) S(N) XS(N)", "4 \"N\" \"4\"");
    expands_to("#define N 1\n#undef N\nN", "N");
    expands_to("#define E\na E b E", "a b");
    expands_to("#define F() ok\nF() F ( )", "ok ok");
    // Expansions never glue to their neighbours into other tokens.
    expands_to("#define NEG -1\n#define P +\nx-NEG a+P+b", "x - - 1 a + + + b");
    let (_, r) = run_with(&input("#define N 4\n#define F(x) (x)\n[numthreads(N,F(N),1)]"), &PpOptions::default());
    assert_eq!(r.unwrap().text.trim(), "[numthreads(4,(4),1)]");
}

#[test]
fn conditional_inclusion() {
    let src = "#define A 2
#if A == 1
one
#elif A == 2
two
#if 0
#error not reached
#bogus directives are ignored in skipped groups
#else
nested
#endif
#elif 1
three
#else
four
#endif
#ifdef A
defA
#endif
#ifndef A
ndefA
#else
elseA
#endif
#if defined(A) && !defined B && A > 1 && UNKNOWN == 0
expr
#endif
#elifdef X
#endif";
    // (The trailing `#elifdef` has no `#if`: checked below.)
    let ok_part = &src[..src.rfind("#elifdef").unwrap()];
    expands_to(ok_part, "two nested defA elseA expr");
    expands_to("#if 0\n#elifdef __HLSL_VERSION\nyes\n#elifndef N\nno\n#endif", "yes");
    expands_to("#if 0\n don't ' \" apostrophes in skipped text\n#endif\nok", "ok");
    expands_to("#if 1\n#else garbage\n#endif", "");
    // `defined` that a macro expands to in `#if` does not expand its operand.
    expands_to("#define A 1\n#define HAS_A (defined(A) + defined B)\n#define B 7\n#if HAS_A == 2\nyes\n#endif", "yes");
}

#[test]
fn predefined_and_command_line_macros() {
    expands_to(
        "__HLSL_VERSION __SHADER_TARGET_STAGE __SHADER_STAGE_COMPUTE __SHADER_TARGET_MAJOR __SHADER_TARGET_MINOR __WAVEC__",
        "2021 5 5 6 0 1",
    );
    expands_to("#if __SHADER_TARGET_STAGE == __SHADER_STAGE_COMPUTE\ncs\n#endif\n#ifdef __HLSL_ENABLE_16_BIT\nh\n#endif", "cs");
    let mut o = PpOptions {
        defines: vec![("N".into(), "8".into()), ("F(x)".into(), "x+1".into()), ("G".into(), "1".into())],
        ..PpOptions::default()
    };
    o.undefines.push("G".into());
    assert!(o.set_profile("cs_6_5"));
    o.hlsl_version = 2018;
    o.enable_16bit_types = true;
    let (_, r) = run_with(&input("N F(2) G __HLSL_VERSION __SHADER_TARGET_MINOR __HLSL_ENABLE_16_BIT"), &o);
    assert_eq!(norm(&r.unwrap().text), "8 2 + 1 G 2018 5 1");
    assert!(!PpOptions::default().set_profile("cs6"));
    assert!(PpOptions::default().set_profile("lib_6_x"));
}

#[test]
fn line_and_file() {
    expands_to("a __LINE__\n\nb __LINE__ __FILE__", "a 1 b 3 \"t.hlsl\"");
    // `__LINE__` in a macro is the line of the invocation.
    expands_to("#define L __LINE__\n\nL", "3");
    expands_to("#line 100\n__LINE__\n#line 7 \"gen.hlsl\"\n__LINE__ __FILE__", "100 7 \"gen.hlsl\"");
    let (sources, r) = run_with(&input("a\n#line 40 \"x.h\"\nb\n"), &PpOptions::default());
    r.unwrap();
    assert_eq!(sources.presumed(sources.get(MAIN_FILE).base + 17).map(|p| (p.name, p.line)), Some(("x.h".to_string(), 40)));
    // GNU line markers.
    expands_to("# 12 \"m.c\" 1\n__LINE__", "12");
}

#[test]
fn pragmas() {
    let src = "#pragma kernel CSMain;\n#pragma kernel Other FOO BAR=1 BAZ = Q\n#pragma pack_matrix(row_major)\nfloat4x4 a;\n#pragma pack_matrix( column_major )\nfloat4x4 b;\n#pragma warning(disable: 3571)\n#pragma once\n#pragma\n";
    let (_, r) = run_with(&input(src), &PpOptions::default());
    let pp = r.unwrap();
    assert!(pp.diagnostics.is_empty(), "{:?}", pp.diagnostics);
    let names: Vec<(&str, &[String])> = pp.kernels.iter().map(|k| (k.name.as_str(), &k.defines[..])).collect();
    assert_eq!(names, vec![("CSMain", &[][..]), ("Other", &["FOO".to_string(), "BAR=1".to_string(), "BAZ=Q".to_string()][..])]);
    assert_eq!(pp.kernels[0].span, Span::new(15, 21));
    let packs: Vec<MatrixPacking> = pp.pack_matrix.iter().map(|p| p.packing).collect();
    assert_eq!(packs, vec![MatrixPacking::RowMajor, MatrixPacking::ColumnMajor]);
    // Declarations take the packing in effect where they appear.
    let a = src.find("float4x4 a").unwrap();
    let b = src.find("float4x4 b").unwrap();
    assert_eq!(pp.pack_matrix_at(Span::new(a, a + 8)), Some(MatrixPacking::RowMajor));
    assert_eq!(pp.pack_matrix_at(Span::new(b, b + 8)), Some(MatrixPacking::ColumnMajor));
    assert_eq!(pp.pack_matrix_at(Span::new(0, 1)), None);
    // Other pragmas are noted and ignored.
    assert_eq!(
        warnings("#pragma multi_compile A B\n#pragma STDC FP_CONTRACT ON"),
        vec![(Severity::Note, "W0121"), (Severity::Note, "W0121")]
    );
    assert_eq!(errors("#pragma kernel\n#pragma pack_matrix(rows)\n#pragma pack_matrix"), vec!["E0133", "E0133", "E0133"]);
}

#[test]
fn warnings_and_errors_directives() {
    let e = first_error("#error  stop  here \\\n  now\n");
    assert_eq!(e.code, "E0128");
    assert_eq!(e.message, "#error: stop here now");
    let w = warnings(
        "#warning careful\n#define A 1\n#define A 2\n#define B 1\n#define B 1\n#undef __LINE__\n#endif_not\n"
            .replace("#endif_not\n", "")
            .as_str(),
    );
    assert_eq!(w, vec![(Severity::Warning, "W0120"), (Severity::Warning, "W0122"), (Severity::Warning, "W0122")]);
    assert_eq!(warnings("#if 1\n#endif junk\n#undef X Y"), vec![(Severity::Warning, "W0123"), (Severity::Warning, "W0123")]);
    // A redefinition points at the previous one.
    let (_, r) = run_with(&input("#define A 1\n#define A 2\n"), &PpOptions::default());
    let d = &r.unwrap().diagnostics[0];
    assert_eq!(d.labels.iter().map(|l| l.0).collect::<Vec<_>>(), vec![Span::new(20, 21), Span::new(8, 9)]);
}

#[test]
fn error_codes_and_spans() {
    let cases: &[(&str, &str, &str)] = &[
        ("#foo bar", "E0120", "foo"),
        ("# \"x\"", "E0120", "# \"x\""),
        ("#define", "E0121", "#define"),
        ("#define 3 x", "E0121", "3"),
        ("#undef", "E0121", "#undef"),
        ("#define F(x) x\nF(1, 2)", "E0122", "F(1, 2)"),
        ("#define F(x, y) x\nF(1)", "E0122", "F(1)"),
        ("#define F(x) x\nF(1", "E0122", "F"),
        ("#define F(x) x\nF(1,\n#define Y\n)", "E0122", "F"),
        ("#define P(a, b) a ## b\nP(+, -)", "E0123", "P(+, -)"),
        ("#if 1 +\n#endif", "E0124", "+"),
        ("#if\n#endif", "E0124", "#if"),
        ("#ifdef\n#endif", "E0124", "#ifdef"),
        ("#if 1 / (2 - 2)\n#endif", "E0125", "/"),
        ("#endif", "E0126", "#endif"),
        ("#else", "E0126", "#else"),
        ("#if 1\n#else\n#else\n#endif", "E0126", "#else"),
        ("#if 1\n#else\n#elif 1\n#endif", "E0126", "#elif 1"),
        ("a\n#if 1\nb", "E0127", "#if 1"),
        ("#error msg", "E0128", "#error msg"),
        ("#include", "E0129", "#include"),
        ("#include foo", "E0129", "#include foo"),
        ("#include \"\"", "E0129", "#include \"\""),
        ("#include \"nowhere.hlsli\"", "E0130", "#include \"nowhere.hlsli\""),
        ("#include <nowhere.hlsli>", "E0130", "#include <nowhere.hlsli>"),
        ("#line x", "E0132", "x"),
        ("#line 10 20", "E0132", "20"),
        ("#line", "E0132", "#line"),
        ("#pragma kernel 1", "E0133", "1"),
        ("#include_next <x>", "E0135", "#include_next <x>"),
        ("#import \"x\"", "E0135", "#import \"x\""),
        ("_Pragma(\"once\")", "E0135", "_Pragma"),
        ("a /* open", "E0103", "/*"),
    ];
    for (src, code, at) in cases {
        let e = first_error(src);
        assert_eq!(e.code, *code, "{src}: {}", e.message);
        let span = e.labels[0].0;
        assert_eq!(&src[span.range()], *at, "{src}: {e:?}");
    }
    // Preprocessing reports every error it finds.
    assert_eq!(errors("#foo\n#endif\n#define\n"), vec!["E0120", "E0126", "E0121"]);
}

#[test]
fn not_found_lists_the_places_searched() {
    let e = first_error("#include \"x.hlsli\"");
    assert_eq!(e.notes, vec!["searched: the standard library".to_string()]);
    let i = input("#include \"x.hlsli\"").with_dir("/nonexistent-dir").with_file("a.hlsli", SourceFile::new("t", ""));
    let (_, r) = run_with(&i, &PpOptions { include_dirs: vec!["/also-not".into()], ..PpOptions::default() });
    let d = r.unwrap_err();
    assert_eq!(d[0].notes, vec!["searched: the test file's sections, /nonexistent-dir, /also-not, the standard library".to_string()]);
}

// ---------------------------------------------------------------- includes

fn with_files(main: &str, files: &[(&str, &str)]) -> Input {
    let mut i = input(main);
    for (k, t) in files {
        i = i.with_file(*k, SourceFile::new(*k, *t));
    }
    i
}

#[track_caller]
fn includes_to(main: &str, files: &[(&str, &str)], expected: &str) -> Sources {
    let (sources, r) = run_with(&with_files(main, files), &PpOptions::default());
    match r {
        Ok(pp) => assert_eq!(norm(&pp.text), norm(expected)),
        Err(d) => panic!("{}", render(&sources, &d)),
    }
    sources
}

#[test]
fn includes_guards_and_once() {
    let files = [
        ("a.hlsli", "#pragma once\nA"),
        ("b.hlsli", "#ifndef B_H\n#define B_H\nB\n#endif"),
        ("c.hlsli", "C"),
        ("dir/d.hlsli", "#include \"e.hlsli\"\nD"),
        ("dir/e.hlsli", "E"),
    ];
    let s = includes_to(
        "#include \"a.hlsli\"\n#include \"a.hlsli\"\n#include \"b.hlsli\"\n#include \"b.hlsli\"\n#include \"c.hlsli\"\n#include \"c.hlsli\"\n#include \"dir/d.hlsli\"\nM",
        &files,
        "A B C C E D M",
    );
    // Each file is loaded once, whatever the number of inclusions.
    let names: Vec<&str> = s.files().map(|(_, f)| f.file.name.as_str()).collect();
    assert_eq!(names, vec!["t.hlsl", "<built-in>", "a.hlsli", "b.hlsli", "c.hlsli", "dir/d.hlsli", "dir/e.hlsli"]);
    // Computed includes.
    includes_to("#define H \"c.hlsli\"\n#include H\n#define S(x) #x\n#include S(c.hlsli)", &files, "C C");
    // The standard library, by either spelling.
    includes_to("#include <limits.hlsli>\n#include \"limits.hlsli\"\nINT_MAX", &[], "2147483647");
    // Macros defined in an include are visible after it; conditionals do not cross files.
    includes_to("#include \"m.h\"\nN", &[("m.h", "#define N 3")], "3");
    let (_, r) = run_with(&with_files("#include \"u.h\"\n#endif", &[("u.h", "#if 1")]), &PpOptions::default());
    let codes: Vec<&str> = r.unwrap_err().iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["E0127", "E0126"]);
}

/// The shipped headers compile in a kernel (their literals are in range, their macros are expressions).
#[test]
fn stdlib_headers_compile() {
    let src = "#include <limits.hlsli>\nRWStructuredBuffer<float> F : register(u0);\nRWStructuredBuffer<int> I : register(u1);\nRWStructuredBuffer<uint> U : register(u2);\n[numthreads(1,1,1)] void main() { F[0] = FLT_MAX; F[1] = FLT_MIN; F[2] = FLT_EPSILON; I[0] = INT_MAX; I[1] = INT_MIN; U[0] = UINT_MAX; }";
    let f = SourceFile::new("t.hlsl", src);
    if let Err(d) = crate::frontend::analyze(&f, None) {
        panic!("{}", render(&f, &d));
    }
}

#[test]
fn include_cycles_stop_at_the_depth_limit() {
    let (sources, r) =
        run_with(&with_files("#include \"a.h\"", &[("a.h", "#include \"b.h\"\nA"), ("b.h", "#include \"a.h\"\nB")]), &PpOptions::default());
    let d = r.unwrap_err();
    let e = d.iter().find(|d| d.code == "E0131").expect("E0131");
    assert_eq!(e.notes[0], "include cycle: t.hlsl -> a.h -> b.h -> a.h -> ... (add `#pragma once` or an include guard)");
    // The error renders in the header where the last `#include` is.
    let text = render(&sources, std::slice::from_ref(e));
    assert!(text.contains("included from"), "{text}");
    // With a guard there is no cycle.
    includes_to("#include \"a.h\"", &[("a.h", "#pragma once\n#include \"b.h\"\nA"), ("b.h", "#include \"a.h\"\nB")], "B A");
}

#[test]
fn errors_in_includes_point_into_them() {
    let (sources, r) =
        run_with(&with_files("int a;\n#include \"h.hlsli\"\n", &[("h.hlsli", "x\n#error in header\n")]), &PpOptions::default());
    let d = r.unwrap_err();
    let (id, range) = sources.local(d[0].labels[0].0).unwrap();
    assert_eq!(sources.get(id).file.name, "h.hlsli");
    assert_eq!(&sources.get(id).file.text[range], "#error in header");
    let text = render(&sources, &d);
    assert!(text.contains("h.hlsli:2:1") && text.contains("included from t.hlsl:2"), "{text}");
}

// ---------------------------------------------------------------- spans and text

#[test]
fn plain_files_keep_their_offsets() {
    let src = "// comment\nint a; /* block\n comment */ float b;\r\n  x\n";
    let (sources, r) = run_with(&input(src), &PpOptions::default());
    let pp = r.unwrap();
    for t in lex(&pp.text, 0, 0).0 {
        let s = pp.map(t.span.start as usize, t.span.end as usize, &sources);
        assert_eq!(&src[s.range()], &*t.text, "{t:?}");
        assert_eq!(s, t.span.to(t.span), "offsets are preserved");
    }
    // Comments are blanked, lines kept: the text is the file up to its last token.
    assert_eq!(pp.text.trim_end().len(), src.trim_end().len());
    assert_eq!(pp.text.lines().count(), src.lines().count());
}

#[test]
fn expansions_map_to_their_invocation() {
    let src = "#define ADD(a, b) (a + b)\nint x = ADD(1, y);\n";
    let (sources, r) = run_with(&input(src), &PpOptions::default());
    let pp = r.unwrap();
    let spans: Vec<(String, String)> = lex(&pp.text, 0, 0)
        .0
        .iter()
        .map(|t| (t.text.to_string(), src[pp.map(t.span.start as usize, t.span.end as usize, &sources).range()].to_string()))
        .collect();
    let inv = "ADD(1, y)".to_string();
    assert_eq!(
        spans,
        vec![
            ("int".into(), "int".into()),
            ("x".into(), "x".into()),
            ("=".into(), "=".into()),
            ("(".into(), inv.clone()),
            ("1".into(), "1".into()), // arguments keep their own spans
            ("+".into(), inv.clone()),
            ("y".into(), "y".into()),
            (")".into(), inv),
            (";".into(), ";".into()),
        ]
    );
    // Diagnostics at an invocation say so.
    let at = src.find("ADD(1").unwrap();
    let mut d = vec![Diagnostic::error("E0201", "x").with_label(Span::new(at, at + 9), "here")];
    pp.annotate(&mut d, &sources);
    assert_eq!(d[0].notes, vec!["in expansion of macro `ADD`".to_string()]);
    assert_eq!(d[0].labels[1], (Span::new(8, 11), "`ADD` is defined here".to_string()));
}

#[test]
fn crlf_lone_cr_and_continuations() {
    expands_to("#define A 1\r\n#define F(x) \\\r\n  (x + \\\r\n A)\r\nF(2)\r\n", "(2 + 1)");
    expands_to("#define A 1\r#if A\rone\r#else\rtwo\r#endif\r", "one");
    expands_to("a __LINE__\r\nb __LINE__\rc __LINE__\nd __LINE__", "a 1 b 2 c 3 d 4");
    // A splice in the middle of a name.
    expands_to("#define LONG_NA\\\r\nME 5\nLONG_NAME", "5");
}

#[test]
fn limits_stop_runaway_expansion() {
    // Each level doubles: 2^40 tokens if nothing stopped it.
    let mut src = String::from("#define a0 x x\n");
    for i in 1..=40 {
        src.push_str(&format!("#define a{i} a{} a{}\n", i - 1, i - 1));
    }
    src.push_str("a40\n");
    assert_eq!(errors(&src), vec!["E0134"]);
    // Deeply nested arguments.
    let deep = format!("#define F(x) x\n{}1{}", "F(".repeat(400), ")".repeat(400));
    assert_eq!(errors(&deep), vec!["E0134"]);
    let ok = format!("#define F(x) x\n{}1{}", "F(".repeat(100), ")".repeat(100));
    expands_to(&ok, "1");
}

/// Limits are checked while expanding, and say which limit stopped it (the
/// fuzz campaign's bombs took seconds and gigabytes before the error came).
#[test]
fn limits_are_checked_while_expanding() {
    let first = |src: &str, opts: &PpOptions| -> Diagnostic {
        let d = run_with(&input(src), opts).1.expect_err("a limit");
        d.into_iter().find(|d| d.is_error()).expect("an error")
    };
    // 30 levels of `##` doubling one token: 2^30 bytes of text if nothing stopped it.
    let mut paste = String::from("#define C(a, b) a ## b\n#define D0(x) C(x, x)\n");
    for i in 1..=30 {
        paste.push_str(&format!("#define D{i}(x) D{}(D{}(x))\n", i - 1, i - 1));
    }
    paste.push_str("D30(ab)\n");
    let e = first(&paste, &PpOptions::default());
    assert_eq!(e.code, "E0134");
    assert!(e.notes.iter().any(|n| n.contains("pp-text")), "{e:?}");
    // A parameter copied many times is counted as its copies are made.
    let mut copies = String::from("#define X4(a) a a a a\n");
    for i in 1..=12 {
        copies.push_str(&format!("#define X{}(a) X{}(X4(a))\n", i * 4 + 4, i * 4));
    }
    copies.push_str("X52(t)\n");
    let e = first(&copies, &PpOptions::default());
    assert!(e.code == "E0134" && e.notes.iter().any(|n| n.contains("pp-tokens")), "{e:?}");
    // Macros nested in one expansion (each rescan adds one to the hide set).
    let mut chain = String::new();
    for i in 0..300 {
        chain.push_str(&format!("#define M{i} M{}\n", i + 1));
    }
    chain.push_str("M0\n");
    let e = first(&chain, &PpOptions::default());
    assert!(e.code == "E0134" && e.notes.iter().any(|n| n.contains("macro-depth")), "{e:?}");
    // Each limit can be raised.
    let mut opts = PpOptions::default();
    opts.limits.set("macro-depth=400").unwrap();
    assert!(run_with(&input(&chain), &opts).1.is_ok());
    // The output limit, before the token that would pass it.
    let mut big = String::from("#define B x x x x x x x x x x x x x x x x\n#define B2 B B B B B B B B B B B B B B B B\n");
    big.push_str(&"B2 B2 B2 B2\n".repeat(64));
    let mut small = PpOptions::default();
    small.limits.set("pp-output=8KiB").unwrap();
    let e = first(&big, &small);
    assert!(e.code == "E0134" && e.notes.iter().any(|n| n.contains("pp-output")), "{e:?}");
    assert!(run_with(&input(&big), &PpOptions::default()).1.is_ok());
}

/// A total number of `#include`s: 26 tiny headers that each include the next
/// twice made 2^25 inclusions (2^20 took 15 s).
#[test]
fn includes_are_counted() {
    let names: Vec<String> = (0..26).map(|i| format!("h{i}.h")).collect();
    let texts: Vec<String> = (0..26)
        .map(|i| if i < 25 { format!("#include \"h{}.h\"\n#include \"h{}.h\"\n", i + 1, i + 1) } else { "x\n".to_string() })
        .collect();
    let files: Vec<(&str, &str)> = names.iter().map(String::as_str).zip(texts.iter().map(String::as_str)).collect();
    let (_, r) = run_with(&with_files("#include \"h0.h\"\n", &files), &PpOptions::default());
    let d = r.expect_err("too many includes");
    let e = d.iter().find(|d| d.code == "E0136").expect("E0136");
    assert!(e.message.contains("10000") && e.notes.iter().any(|n| n.contains("`includes` limit")), "{e:?}");
    // Eleven levels (2047 inclusions) are fine; with a lower limit, they are not.
    let (_, r) = run_with(&with_files("#include \"h15.h\"\n", &files), &PpOptions::default());
    assert!(r.is_ok());
    let mut opts = PpOptions::default();
    opts.limits.set("includes=1000").unwrap();
    let (_, r) = run_with(&with_files("#include \"h15.h\"\n", &files), &opts);
    assert!(r.expect_err("over 1000").iter().any(|d| d.code == "E0136"));
}

/// Random preprocessor input never panics, loops or blows up.
#[test]
fn random_input_never_panics() {
    const PIECES: &[&str] = &[
        "#define ",
        "#undef ",
        "#if ",
        "#ifdef ",
        "#ifndef ",
        "#elif ",
        "#else",
        "#endif",
        "#include ",
        "#line ",
        "#pragma ",
        "#error ",
        "#",
        "##",
        " # ",
        "(",
        ")",
        ",",
        "...",
        "__VA_ARGS__",
        "defined",
        "F",
        "G",
        "x",
        "y",
        "F(x)",
        "G(a, b)",
        "1",
        "0",
        "0x",
        "\"h.h\"",
        "<h.h>",
        "'",
        "\"",
        "/*",
        "*/",
        "//",
        "\\\n",
        "\\\r\n",
        "\n",
        "\r\n",
        "\r",
        " ",
        "+",
        "/",
        "%",
        "?",
        ":",
        "<<",
        "__LINE__",
        "__FILE__",
        "é",
        "\u{0}",
        "once",
        "kernel",
        "pack_matrix",
        "_Pragma",
    ];
    let files = [("h.h", "#define F(x) G(x, x)\n#include \"h.h\"\nF(F(1))\n")];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // More cases: WAVEC_PP_FUZZ_CASES=100000 cargo test -p wavec --lib random_input
    let cases: usize = std::env::var("WAVEC_PP_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1500);
    let mut corpus: Vec<String> = Vec::new();
    for case in 0..cases {
        let n = (next() % 60) as usize;
        let mut s: String = (0..n).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        if case % 3 == 0 {
            s = format!("#define F(x) G(x, x)\n#define G(a, b) a ## b # a\n{s}\nF(G)(1)");
        }
        corpus.push(s);
    }
    for s in &corpus {
        let i = with_files(s, &files);
        let r = std::panic::catch_unwind(|| run_with(&i, &PpOptions::default()));
        assert!(r.is_ok(), "panic on:\n{s:?}");
    }
    // Every prefix of a realistic file.
    let real = "#define N 4\n#define SQ(x) ((x)*(x))\n#if N > 2 && defined(SQ)\n[numthreads(N,1,1)]\n#else\n#error no\n#endif\nvoid main() { int a = SQ(N); }\n";
    for i in 0..=real.len() {
        let _ = run_with(&input(&real[..i]), &PpOptions::default());
    }
}
