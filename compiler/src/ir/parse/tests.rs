use super::*;
use crate::diag::{SourceFile, Span};
use crate::options::OptLevel;
use std::path::{Path, PathBuf};

fn plain(f: &Function) -> String {
    print_function(f, &|_| None)
}

/// Parses `text`, checks that it verifies and prints back to exactly `text`.
fn round_trip(name: &str, text: &str) -> Function {
    let parsed = parse_function(text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    if let Err(errs) = verify(&parsed) {
        panic!("{name}: the parsed function does not verify: {errs:?}\n{text}");
    }
    let again = plain(&parsed);
    assert_eq!(again, text, "{name}: print(parse(text)) differs");
    parsed
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("compiler/ has a parent").to_path_buf()
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == ext)).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Every example and corpus shader, and whether its RUN line has `-enable-16bit-types`.
fn shaders() -> Vec<(SourceFile, bool)> {
    let mut out = Vec::new();
    for p in files("examples", "hlsl") {
        out.push((SourceFile::new(p.display().to_string(), std::fs::read_to_string(&p).expect("readable example")), false));
    }
    for p in files("examples", "test").into_iter().chain(files("tests/corpus", "test")) {
        let t = crate::run::load_test_file(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
        out.push((t.source, t.flags.enable_16bit_types));
    }
    out
}

/// The IR right after lowering, and after the passes at `opt`.
fn compile((file, native_16bit): &(SourceFile, bool), opt: OptLevel) -> (Function, Function) {
    let fe = crate::frontend::FrontendOptions { native_16bit: *native_16bit, ..Default::default() };
    let (module, _) = crate::frontend::analyze_with(file, &fe).unwrap_or_else(|_| panic!("{} does not compile", file.name));
    let lowered = crate::lower::lower(&module).unwrap_or_else(|_| panic!("{} does not lower", file.name));
    let mut f = lowered.clone();
    crate::passes::run(&mut f, opt, &crate::passes::PassContext::default(), true)
        .unwrap_or_else(|(pass, e)| panic!("{}: invalid IR after {pass}: {e:?}", file.name));
    (lowered, f)
}

/// `text` with values and blocks renamed `v0, v1, ...` and `block0, ...` in order of first appearance.
fn renumbered(text: &str) -> String {
    let mut names: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let (mut values, mut blocks) = (0, 0);
    let mut out = String::new();
    let mut word = String::new();
    let flush =
        |word: &mut String, out: &mut String, names: &mut std::collections::HashMap<String, String>, values: &mut u32, blocks: &mut u32| {
            if word.is_empty() {
                return;
            }
            let is_entity =
                |prefix: &str| word.strip_prefix(prefix).is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
            let renamed = if is_entity("v") || is_entity("block") {
                let n = names.len();
                let _ = n;
                names
                    .entry(word.clone())
                    .or_insert_with(|| {
                        if word.starts_with('v') {
                            *values += 1;
                            format!("v{}", *values - 1)
                        } else {
                            *blocks += 1;
                            format!("block{}", *blocks - 1)
                        }
                    })
                    .clone()
            } else {
                word.clone()
            };
            out.push_str(&renamed);
            word.clear();
        };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut names, &mut values, &mut blocks);
            out.push(c);
        }
    }
    flush(&mut word, &mut out, &mut names, &mut values, &mut blocks);
    out
}

#[test]
fn corpus_round_trips_at_o0_and_o() {
    let all = shaders();
    assert!(all.len() >= 12, "the corpus shrank to {} shaders", all.len());
    for file in &all {
        for opt in [OptLevel::O0, OptLevel::O] {
            let (lowered, f) = compile(file, opt);
            let name = format!("{} at {opt:?}", file.0.name);
            round_trip(&format!("{name}, lowered"), &plain(&lowered));
            let text = plain(&f);
            let parsed = round_trip(&name, &text);
            // Analyses see the same function: the annotated form (as `--emit ir`) matches too.
            let ua = crate::passes::uniformity::analyze(&f);
            let ub = crate::passes::uniformity::analyze(&parsed);
            let a = print_function(&f, &|v| ua[v].then(|| "uniform".to_string()));
            let b = print_function(&parsed, &|v| ub[v].then(|| "uniform".to_string()));
            assert_eq!(a, b, "{name}: uniformity differs after parsing");
            // The annotated text parses too (annotations are comments).
            assert_eq!(plain(&parse_function(&a).expect("annotated text parses")), text);
            // Numbers are kept, gaps included.
            assert!(parsed.values.len() <= f.values.len());
            for data in parsed.blocks.values() {
                let results = data.insts.iter().filter_map(|&i| parsed.results[i]);
                for v in data.params.iter().copied().chain(results) {
                    assert_eq!(parsed.values[v].ty, f.values[v].ty, "{name}: {v}");
                }
            }
            assert_eq!(parsed.entry_block(), f.entry_block());
            // Passes behave the same on the parsed function (spans aside).
            let (mut g, mut h) = (f.clone(), parsed.clone());
            let cx = crate::passes::PassContext::default();
            for pass in crate::passes::pipeline(OptLevel::O) {
                (pass.run)(&mut g, &cx);
                (pass.run)(&mut h, &cx);
            }
            // Entities the passes create are numbered after the last existing
            // one, which parsing does not keep for dead values: compare names
            // up to a renumbering in order of appearance.
            assert_eq!(renumbered(&plain(&g)), renumbered(&plain(&h)), "{name}: passes disagree on the parsed function");
        }
    }
}

#[test]
fn loop_hints_round_trip() {
    let text = "\
kernel @k {
  block0:
      v0:i32 = iconst 0
      loop block1(v0) exit block2 [unroll(4)]
    block1(v1:i32):
        v2:i32 = iconst 1
        v3:i32 = iadd v1, v2
        v4:i32 = iconst 4
        v5:b1 = icmp sge v3, v4
        break_if v5 to block2(v3) else block3
    block3:
        jump block1(v3)
  block2(v6:i32):
      v7:i32 = kernel_arg 0
      store.device [v7], v6
      loop block4() exit block5 [loop]
    block4:
        v8:b1 = bconst true
        break_if v8 to block5() else block6
    block6:
        jump block4()
  block5:
      loop block7() exit block8 [unroll]
    block7:
        v9:b1 = bconst false
        break_if v9 to block8() else block9
    block9:
        jump block7()
  block8:
      return
}
";
    let f = round_trip("hints", text);
    assert_eq!(f.loop_hints[Block::new(0)], LoopHint::Unroll(Some(4)));
    assert_eq!(f.loop_hints[Block::new(2)], LoopHint::DontUnroll);
    assert_eq!(f.loop_hints[Block::new(5)], LoopHint::Unroll(None));
}

/// One block using every op, special register, memory space and some awkward constants.
fn every_op() -> Function {
    let mut f = Function::new("every_op");
    let b = f.create_block();
    f.entry = Some(b);
    let s = Span::default();
    let add = |f: &mut Function, d: InstData| f.append_inst(b, d, s);
    let i = add(&mut f, InstData::Const { ty: Type::I32, bits: i32::MIN as u32 }).unwrap();
    let j = add(&mut f, InstData::Const { ty: Type::I32, bits: 7 }).unwrap();
    let x = add(&mut f, InstData::Const { ty: Type::F32, bits: 1.5f32.to_bits() }).unwrap();
    let y = add(&mut f, InstData::Const { ty: Type::F32, bits: (-0.0f32).to_bits() }).unwrap();
    let p = add(&mut f, InstData::Const { ty: Type::Bool, bits: 1 }).unwrap();
    let q = add(&mut f, InstData::Const { ty: Type::Bool, bits: 0 }).unwrap();
    let h = add(&mut f, InstData::Const { ty: Type::I16, bits: 0x8001 }).unwrap();
    let hf = add(&mut f, InstData::Const { ty: Type::F16, bits: 0x3c00 }).unwrap();
    add(&mut f, InstData::Const { ty: Type::F16, bits: 0x7e01 });
    let l = add(&mut f, InstData::Pack64 { ty: Type::I64, lo: i, hi: j }).unwrap();
    let d = add(&mut f, InstData::Pack64 { ty: Type::F64, lo: j, hi: i }).unwrap();
    for (arg, hi) in [(l, false), (l, true), (d, false), (d, true)] {
        add(&mut f, InstData::Unpack64 { hi, arg });
    }
    for op in DoubleOp::ALL {
        let a = if op.types().0 == Type::F32 { x } else { d };
        let args = [a, if op.arity() > 1 { d } else { a }, if op.arity() > 2 { d } else { a }];
        add(&mut f, InstData::Double { op, args });
    }
    for bits in [0x7fc0_0000, 0x7fc0_0001, 0xffc0_0000, 0x7f80_0000, 0xff80_0000, 1, 0x3380_0000, f32::MAX.to_bits(), 0x8000_0001] {
        add(&mut f, InstData::Const { ty: Type::F32, bits });
    }
    for index in [0, 3] {
        add(&mut f, InstData::KernelArg { index });
    }
    for reg in SpecialReg::ALL {
        add(&mut f, InstData::Special { reg });
    }
    for op in UnaryOp::ALL {
        let arg = match op.ty() {
            Type::I32 => i,
            Type::F32 => x,
            _ => p,
        };
        add(&mut f, InstData::Unary { op, arg });
    }
    for op in TernaryOp::ALL {
        add(&mut f, InstData::Ternary { op, args: [x, y, x] });
    }
    for (ty, arg) in [(Type::F32, i), (Type::I32, x), (Type::F16, h), (Type::I16, hf)] {
        add(&mut f, InstData::Bitcast { ty, arg });
    }
    for op in BinaryOp::ALL {
        let args = match op.types().0 {
            Type::I32 => [i, j],
            Type::F32 => [x, y],
            Type::Bool => [p, q],
            Type::I16 => [h, h],
            Type::F16 => [hf, hf],
            Type::I64 | Type::F64 => unreachable!("no 64-bit binary ops"),
        };
        add(&mut f, InstData::Binary { op, args });
    }
    for op in CmpOp::ALL {
        let args = if op.operand_type() == Type::F32 { [x, y] } else { [i, j] };
        add(&mut f, InstData::Cmp { op, args });
    }
    for ty in Type::ALL {
        let args = match ty {
            Type::I32 => [i, j],
            Type::F32 => [x, y],
            Type::Bool => [p, q],
            Type::I16 => [h, h],
            Type::F16 => [hf, hf],
            Type::I64 => [l, l],
            Type::F64 => [d, d],
        };
        add(&mut f, InstData::Select { ty, cond: p, args });
    }
    for op in ConvOp::ALL {
        let arg = match op.types().0 {
            Type::I32 => i,
            Type::I16 => h,
            Type::F16 => hf,
            _ => x,
        };
        add(&mut f, InstData::Convert { op, arg });
    }
    for space in MemSpace::ALL {
        for ty in [Type::I32, Type::F32, Type::I16, Type::F16] {
            let v = add(&mut f, InstData::Load { space, ty, addr: j }).unwrap();
            add(&mut f, InstData::Store { space, addr: j, value: v });
        }
    }
    for space in [MemSpace::Device, MemSpace::Local] {
        for op in AtomicOp::ALL {
            add(&mut f, InstData::AtomicRmw { op, space, addr: j, value: i });
        }
        add(&mut f, InstData::AtomicCas { space, addr: j, expected: i, value: j });
    }
    add(&mut f, InstData::Barrier);
    for scope in FenceScope::ALL {
        add(&mut f, InstData::Fence { scope });
    }
    for op in WaveOp::ALL {
        let arg = if op.ty() == Type::F32 { x } else { i };
        add(&mut f, InstData::WaveReduce { op, arg });
        if op.has_prefix() {
            add(&mut f, InstData::WavePrefix { op, arg });
        }
    }
    for word in 0..4 {
        add(&mut f, InstData::WaveBallot { cond: p, word });
    }
    for op in VoteOp::ALL {
        add(&mut f, InstData::WaveVote { op, cond: q });
    }
    for (ty, arg) in [(Type::I32, i), (Type::F32, x), (Type::Bool, p), (Type::F16, hf)] {
        add(&mut f, InstData::WaveReadLane { ty, arg, lane: j });
        add(&mut f, InstData::WaveReadFirst { ty, arg });
    }
    f.local_memory = 4096;
    f.set_terminator(b, Terminator::Return, s);
    f
}

#[test]
fn every_op_parses_back_to_itself() {
    let f = every_op();
    verify(&f).expect("the test function is valid");
    let text = plain(&f);
    let g = round_trip("every_op", &text);
    assert_eq!(f.insts.len(), g.insts.len());
    for (a, b) in f.insts.values().zip(g.insts.values()) {
        assert_eq!(a, b, "in\n{text}");
    }
    for (v, data) in f.values.iter() {
        assert_eq!(g.values[v].ty, data.ty);
        assert_eq!(g.values[v].def, data.def);
    }
    assert!(text.contains("fconst 0x7fc00001"), "{text}");
    assert!(text.contains("fconst NaN ; 0x7fc00000"), "{text}");
    assert!(text.contains("fconst -0.0 ; 0x80000000"), "{text}");
    assert_eq!(g.local_memory, 4096);
    for line in [
        "kernel @every_op local_memory 4096 {",
        "f32 = fabs v2",
        "= fma v2, v3, v2",
        "= bitcast v0",
        "= atomic_rmw.smin.device [v1], v0",
        "= atomic_cas.local [v1], v0, v1",
        "      barrier\n",
        "      fence.device\n",
        "= wave_reduce.fmin v2",
        "= wave_prefix.imul v0",
        "= wave_ballot v4, 3",
        "b1 = wave_any v5",
        "f32 = wave_read_lane v2, v1",
        "f16 = wave_read_first v7",
        "i64 = pack64 v0, v1",
        "i32 = hi32 v9",
        "f64 = dfma v10, v10, v10",
        "f32 = ftrunc64 v10",
    ] {
        assert!(text.contains(line), "`{line}` in\n{text}");
    }
}

#[test]
fn local_memory_is_checked_and_kept() {
    let text = "kernel @k local_memory 256 {\n  block0:\n      v0:i32 = iconst 4\n      v1:i32 = load.local.i32 [v0]\n      return\n}\n";
    let f = round_trip("local", text);
    assert_eq!(f.local_memory, 256);
    // Local memory used without being declared is a verifier error.
    let undeclared = parse_function(&text.replace(" local_memory 256", "")).expect("parses");
    let errs = verify(&undeclared).unwrap_err();
    assert!(errs.iter().any(|e| e.0.contains("local memory is used")), "{errs:?}");
    for (bad, message) in [
        ("kernel @k local_memory {", "needs a size"),
        ("kernel @k local_memory -1 {", "bad local_memory size"),
        ("kernel @k shared 4 {", "unexpected `shared`"),
        ("kernel @k local_memory 4 5 {", "unexpected `5`"),
    ] {
        let e = parse_function(&format!("{bad}\nblock0:\nreturn\n}}\n")).unwrap_err();
        assert!(e.message.contains(message), "{bad}: {e}");
    }
}

#[test]
fn padded_workgroups_round_trip() {
    let text = "kernel @k padded 80:96 {\n  block0:\n      return\n}\n";
    let f = round_trip("padded", text);
    assert_eq!(f.padded, Some(Padding { threads: 80, launch: 96 }));
    for (bad, message) in [
        ("kernel @k padded {", "needs THREADS:LAUNCH"),
        ("kernel @k padded 96 {", "bad padded sizes"),
        ("kernel @k padded 96:80 {", "bad padded sizes"),
        ("kernel @k padded 0:32 {", "bad padded sizes"),
    ] {
        let e = parse_function(&format!("{bad}\nblock0:\nreturn\n}}\n")).unwrap_err();
        assert!(e.message.contains(message), "{bad}: {e}");
    }
}

#[test]
fn new_instructions_are_type_checked() {
    let head = "kernel @k local_memory 16 {\nblock0:\nv0:i32 = iconst 1\nv1:f32 = fconst 1.0\nv2:b1 = bconst true\nv3:i16 = iconst16 1\n";
    for body in [
        "v4:f32 = fsqrt v0",
        "v4:i32 = popcount v1",
        "v4:i32 = umin v0, v1",
        "v4:f32 = fma v1, v1, v0",
        "v4:f16 = bitcast v0",
        "v4:i32 = bitcast v0",
        "v4:b1 = bitcast v0",
        "v4:i32 = atomic_rmw.add.device_ro [v0], v0",
        "v4:i32 = atomic_rmw.add.device [v1], v0",
        "v4:i32 = atomic_cas.local [v0], v1, v0",
        "v4:f32 = atomic_rmw.add.local [v0], v0",
        "v4:i32 = wave_reduce.fadd v0",
        "v4:i32 = wave_prefix.smin v0",
        "v4:i32 = wave_ballot v0, 0",
        "v4:i32 = wave_ballot v2, 4",
        "v4:b1 = wave_any v0",
        "v4:f32 = wave_read_lane v0, v0",
        "v4:f32 = wave_read_lane v1, v1",
        "v4:i16 = wave_read_first v0",
        "v4:i32 = barrier",
        "fence.device\nv4:i32 = fence.workgroup",
    ] {
        let text = format!("{head}{body}\nreturn\n}}\n");
        let f = parse_function(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(verify(&f).is_err(), "verifies:\n{text}");
    }
    for (body, message) in [
        ("v4:i32 = atomic_rmw.nand.device [v0], v0", "unknown atomic operation `nand`"),
        ("v4:i32 = atomic_rmw.add [v0], v0", "unknown instruction `atomic_rmw.add`"),
        ("v4:i32 = atomic_cas.global [v0], v0, v0", "unknown memory space `global`"),
        ("v4:i32 = atomic_cas.local [v0], v0", "expected `,`"),
        ("fence.system", "unknown fence scope"),
        ("v4:i32 = wave_reduce.min v0", "unknown wave operation `min`"),
        ("v4:i32 = wave_ballot v2", "expected `,`"),
        ("v4:i32 = wave_ballot v2, v0", "expected a ballot word"),
        ("v4:i32 = wave_shuffle v0, v0", "unknown instruction `wave_shuffle`"),
        ("barrier v0", "unexpected `v0`"),
    ] {
        let text = format!("{head}{body}\nreturn\n}}\n");
        let e = parse_function(&text).unwrap_err();
        assert!(e.message.contains(message), "`{}` does not contain `{message}`", e.message);
    }
}

#[test]
fn mnemonics_are_unambiguous() {
    let mut names: Vec<&str> = UnaryOp::ALL.iter().map(|o| o.name()).collect();
    names.extend(BinaryOp::ALL.iter().map(|o| o.name()));
    names.extend(TernaryOp::ALL.iter().map(|o| o.name()));
    names.extend(VoteOp::ALL.iter().map(|o| o.name()));
    names.extend(["bitcast", "barrier", "wave_ballot", "wave_read_lane", "wave_read_first"]);
    names.extend(ConvOp::ALL.iter().map(|o| o.name()));
    names.extend(["iconst", "fconst", "bconst", "kernel_arg", "special", "select", "icmp", "fcmp"]);
    names.extend(["return", "jump", "if", "loop", "break_if"]);
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "two ops share a mnemonic: {names:?}");
    let mut cmps: Vec<String> = CmpOp::ALL.iter().map(|o| format!("{} {}", o.mnemonic(), o.name())).collect();
    cmps.sort();
    cmps.dedup();
    assert_eq!(cmps.len(), CmpOp::ALL.len());
    let mut regs: Vec<String> = SpecialReg::ALL.iter().map(|r| r.asm_name()).collect();
    regs.sort();
    regs.dedup();
    assert_eq!(regs.len(), SpecialReg::ALL.len());
}

#[test]
fn keeps_numbers_and_gaps() {
    let text = "\
kernel @gaps {
  block2:
      v3:i32 = kernel_arg 0
      v9:i32 = iconst 5
      if v12 then block5 else block7 merge block4
    block5:
        jump block4(v9)
    block7:
        jump block4(v3)
  block4(v11:i32):
      store.device [v3], v11
      return
}
";
    // Numbered with gaps, entry not block0: it verifies and round-trips once v12 is defined.
    let defined = text.replace("      if v12", "      v12:b1 = bconst true\n      if v12");
    let f = round_trip("gaps", &defined);
    assert_eq!(f.entry, Some(Block::new(2)));
    assert_eq!(f.blocks.len(), 8);
    assert_eq!(f.values.len(), 13);
    assert_eq!(f.values[Value::new(11)].def, ValueDef::Param(Block::new(4), 0));
    assert!(f.blocks[Block::new(0)].insts.is_empty());
    assert_eq!(f.blocks[Block::new(0)].term, Terminator::None);
    let undefined = parse_function(text).unwrap_err();
    assert_eq!(undefined, ParseError { line: 5, message: "v12 is used but never defined".into() });
}

#[test]
fn use_before_definition_is_a_verifier_error() {
    let text = "\
kernel @k {
  block0:
      v1:i32 = iadd v2, v2
      v2:i32 = iconst 1
      return
}
";
    let f = parse_function(text).expect("parses");
    let errs = verify(&f).unwrap_err();
    assert!(errs.iter().any(|e| e.0.contains("v2 does not dominate")), "{errs:?}");
    assert_eq!(plain(&f), text);
}

#[test]
fn wrong_result_type_is_a_verifier_error() {
    for text in [
        "kernel @k {\nblock0:\nv1:f32 = iconst 1\nreturn\n}\n",
        "kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i32 = store.device [v1], v1\nreturn\n}\n",
        "kernel @k {\nblock0:\niconst 1\nreturn\n}\n",
        "kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:b1 = icmp eq v1, v1\nv3:f32 = select v2, v1, v1\nreturn\n}\n",
        "kernel @k {\nblock0:\njump block1(v0)\nblock1:\nv0:i32 = iconst 1\nreturn\n}\n",
        // No 64-bit constants: a 64-bit value is a pack64 of halves.
        "kernel @k {\nblock0:\nv1:i64 = iconst 1\nreturn\n}\n",
        "kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i64 = pack64 v1, v1\nv3:i64 = iadd v2, v2\nreturn\n}\n",
    ] {
        let f = parse_function(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(verify(&f).is_err(), "{text}");
    }
}

#[test]
fn errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("", 1, "expected `kernel @name {`"),
        ("kernel k {\n}", 1, "expected `kernel @name {`"),
        ("kernel @k {\nblock0:\nreturn\n", 3, "missing the closing `}`"),
        ("kernel @k {\nblock0:\nv1:i32 = frobnicate v2\nreturn\n}", 3, "unknown instruction `frobnicate`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i32 = iadd v1, v9\nreturn\n}", 4, "v9 is used but never defined"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv1:i32 = iconst 2\nreturn\n}", 4, "v1 is already defined on line 3"),
        ("kernel @k {\nblock0:\njump block0()\nblock0:\nreturn\n}", 4, "block0 is already defined on line 2"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\n}", 4, "block0 has no terminator"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nblock1:\nreturn\n}", 4, "block0 has no terminator before this label"),
        ("kernel @k {\nblock0:\nreturn\nv1:i32 = iconst 1\n}", 4, "`v1:i32 = iconst 1` after the terminator of block0"),
        ("kernel @k {\nv1:i32 = iconst 1\n}", 2, "expected a block label"),
        ("kernel @k {\nblock0:\nv1:i8 = iconst 1\nreturn\n}", 3, "expected a type (b1, i32, f32, i16, f16, i64, f64), found `i8`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1.5\nreturn\n}", 3, "bad `iconst` literal `1.5`"),
        ("kernel @k {\nblock0:\nv1:f32 = fconst pi\nreturn\n}", 3, "bad `fconst` literal `pi`"),
        ("kernel @k {\nblock0:\nv1:b1 = bconst 1\nreturn\n}", 3, "bad `bconst` literal `1`"),
        ("kernel @k {\nblock0:\nv1:i32 = special sr_foo\nreturn\n}", 3, "unknown special register `sr_foo`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:b1 = icmp lt v1, v1\nreturn\n}", 4, "unknown condition `icmp lt`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i32 = load.global.i32 [v1]\nreturn\n}", 4, "unknown memory space `global`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i32 = iadd v1 v1\nreturn\n}", 4, "expected `,`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv2:i32 = iadd v1, v1, v1\nreturn\n}", 4, "unexpected `, v1` at the end of the line"),
        ("kernel @k {\nblock0:\nloop block1() exit block2 [unrol]\n}", 3, "unknown loop hint `unrol`"),
        ("kernel @k {\nblock0:\nif v1 then block1 else block2\n}", 3, "expected `merge`"),
        ("kernel @k {\nblock0:\nv1:i32 = iconst 1\nv99999999:i32 = iadd v1, v1\nreturn\n}", 4, "value number `v99999999` is too large"),
        ("kernel @k {\nblock0:\njump block4294967296()\n}", 3, "expected a block (`block1`), found `block4294967296`"),
        ("kernel @k {\nblock0:\nv01:i32 = iconst 1\nreturn\n}", 3, "expected a value (`v1`), found `v01`"),
        ("kernel @k {\nblock0:\nreturn\n}\nkernel @j {", 5, "text after the closing `}`"),
    ];
    for &(text, line, message) in cases {
        match parse_function(text) {
            Ok(_) => panic!("parsed:\n{text}"),
            Err(e) => {
                assert_eq!(e.line, line, "{e}\n{text}");
                assert!(e.message.contains(message), "`{}` does not contain `{message}`\n{text}", e.message);
            }
        }
    }
}

#[test]
fn comments_blank_lines_and_indentation_are_ignored() {
    let text =
        "; a file comment\n\nkernel @k {   ; the kernel\nblock0:\n        v0:i32 = iconst -3 ; minus three\n\n  return\n}\n; trailing\n";
    let f = parse_function(text).expect("parses");
    assert_eq!(plain(&f), "kernel @k {\n  block0:\n      v0:i32 = iconst -3\n      return\n}\n");
}

#[test]
fn hex_constants_are_accepted() {
    let f = parse_function("kernel @k {\nblock0:\nv0:i32 = iconst 0xffffffff\nv1:f32 = fconst 0x3fc00000\nreturn\n}\n").unwrap();
    assert_eq!(plain(&f), "kernel @k {\n  block0:\n      v0:i32 = iconst -1\n      v1:f32 = fconst 1.5 ; 0x3fc00000\n      return\n}\n");
}

/// A small deterministic generator (xorshift), so the test needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Parsing must never panic; whatever parses must survive the verifier and the
/// printer, and if it verifies it must round-trip.
fn check_no_panic(text: &str) {
    if let Ok(f) = parse_function(text) {
        let printed = plain(&f);
        if verify(&f).is_ok() {
            round_trip("mutant", &printed);
        } else {
            let _ = parse_function(&printed);
        }
    }
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    const PIECES: &[&str] = &[
        "v",
        "block",
        "0",
        "1",
        "9",
        "99",
        ":",
        "=",
        ",",
        "(",
        ")",
        "[",
        "]",
        ";",
        " ",
        "\n",
        "-",
        ".",
        "i32",
        "f32",
        "b1",
        "iadd",
        "loop",
        "jump",
        "if",
        "merge",
        "exit",
        "break_if",
        "}",
        "{",
        "@",
        "é",
        "v4294967295",
        "0x",
        "NaN",
        "[unroll(",
        "<no terminator>",
    ];
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = bounds[rng.below(bounds.len())];
        match rng.below(5) {
            0 => {
                let end = bounds.iter().copied().find(|&e| e > at).unwrap_or(at);
                s.replace_range(at..end, "");
            }
            1 => s.insert_str(at, PIECES[rng.below(PIECES.len())]),
            2 => {
                let end = bounds.iter().copied().find(|&e| e > at).unwrap_or(at);
                s.replace_range(at..end, PIECES[rng.below(PIECES.len())]);
            }
            3 => {
                // Swap two lines.
                let mut lines: Vec<&str> = s.lines().collect();
                if lines.len() > 1 {
                    let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                    lines.swap(a, b);
                }
                s = lines.join("\n");
            }
            _ => {
                // Duplicate or drop a line.
                let mut lines: Vec<String> = s.lines().map(String::from).collect();
                if !lines.is_empty() {
                    let k = rng.below(lines.len());
                    if rng.below(2) == 0 {
                        let l = lines[k].clone();
                        lines.insert(k, l);
                    } else {
                        lines.remove(k);
                    }
                }
                s = lines.join("\n");
            }
        }
    }
    s
}

#[test]
fn never_panics_on_prefixes_and_mutations() {
    let mut texts = vec![plain(&every_op())];
    for file in
        shaders().iter().filter(|f| ["collatz", "nested_loops", "short_circuit", "while_break"].iter().any(|n| f.0.name.contains(n)))
    {
        let (lowered, f) = compile(file, OptLevel::O);
        texts.push(plain(&lowered));
        texts.push(plain(&f));
    }
    assert!(texts.len() >= 5);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for text in &texts {
        for (i, _) in text.char_indices() {
            check_no_panic(&text[..i]);
        }
        for _ in 0..1500 {
            check_no_panic(&mutate(&mut rng, text));
        }
    }
}

#[test]
fn side_effects_and_convergence_are_classified() {
    let f = every_op();
    for (_, d) in f.insts.iter() {
        let text = format!("{d:?}");
        let effect = matches!(
            d,
            InstData::Store { .. } | InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::Barrier | InstData::Fence { .. }
        );
        assert_eq!(d.has_side_effects(), effect, "{text}");
        let wave = text.starts_with("Wave");
        assert_eq!(d.is_convergent(), wave || matches!(d, InstData::Barrier), "{text}");
    }
}
