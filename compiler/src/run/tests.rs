//! Tests of the runner around the compiler: these build a `Compiled` by hand from
//! a small WAVE listing, so they do not need the compiler pipeline.

use super::*;
use crate::diag::SourceFile;
use crate::driver::Compiled;
use crate::interface::{Binding, BindingClass, BoundResource, KernelInterface, ResourceKind};
use crate::options::Isa;
use crate::target::{occupancy, preset};

const SOURCE: &str = "cbuffer Params : register(b0) { uint n; }
StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < n) Out[id.x] = A[id.x] + B[id.x];
}
";

/// Hand-written listing of SOURCE (valid in both profiles).
const VADD: &str = "; hand-written vector add
.kernel main
.registers 16
.workgroup_size 64, 1, 1
    mov r5, sr_thread_id_x ; L6
    mov r6, sr_workgroup_id_x ; L6
    mov r7, sr_workgroup_size_x ; L6
    imad r8, r6, r7, r5 ; L6
    device_load_u32 r9, r3 ; L7
    ucmp_lt p1, r8, r9 ; L7
    if p1
    mov_imm r10, 2 ; L7
    shl r11, r8, r10 ; L7
    iadd r12, r0, r11 ; L7
    device_load_u32 r13, r12 ; L7
    iadd r12, r1, r11 ; L7
    device_load_u32 r14, r12 ; L7
    fadd r15, r13, r14 ; L7
    iadd r12, r2, r11 ; L7
    device_store_u32 r12, r15 ; L7
    endif
    halt
.end
";

/// Same kernel without the bounds check: threads past the end of `Out` fault.
const VADD_UNGUARDED: &str = "; hand-written, no bounds check
.kernel main
.registers 16
.workgroup_size 64, 1, 1
    mov r5, sr_thread_id_x ; L6
    mov r6, sr_workgroup_id_x ; L6
    mov r7, sr_workgroup_size_x ; L6
    imad r8, r6, r7, r5 ; L6
    mov_imm r10, 2 ; L7
    shl r11, r8, r10 ; L7
    iadd r12, r2, r11 ; L7
    device_store_u32 r12, r8 ; L7
    halt
.end
";

fn resource(register: u32, name: &str, kind: ResourceKind, class: BindingClass, index: u32, stride: u32) -> BoundResource {
    BoundResource {
        register,
        name: name.into(),
        kind,
        binding: Binding { class, index, space: 0 },
        element_type: if kind == ResourceKind::ConstantBuffer { "cbuffer".into() } else { "float".into() },
        stride,
        members: Vec::new(),
        size_register: None,
        counter_register: None,
        size_only: false,
        array: None,
    }
}

fn compiled(asm: &str) -> Compiled {
    let target = preset("generic").unwrap();
    Compiled {
        asm: asm.into(),
        ir: String::new(),
        interface: KernelInterface {
            kernel: "main".into(),
            workgroup_size: [64, 1, 1],
            numthreads: None,
            registers: 16,
            local_memory: 0,
            resources: vec![
                resource(0, "A", ResourceKind::StructuredBuffer, BindingClass::T, 0, 4),
                resource(1, "B", ResourceKind::StructuredBuffer, BindingClass::T, 1, 4),
                resource(2, "Out", ResourceKind::RWStructuredBuffer, BindingClass::U, 0, 4),
                resource(3, "Params", ResourceKind::ConstantBuffer, BindingClass::B, 0, 4),
            ],
            constants: None,
            scratch: None,
        },
        occupancy: occupancy(&target, 16, 64, 0),
        max_live: 16,
        warnings: Vec::new(),
        spill: Default::default(),
    }
}

const PIPELINE: &str = r#"---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters: { DispatchGroupCount: [2, 1, 1] }
Buffers:
  - Name: A
    Format: Float32
    Data: [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70 ]
  - Name: B
    Format: Float32
    FillSize: 280
    FillValue: 0.5
  - Name: Params
    Format: UInt32
    Data: [ 70 ]
  - Name: Out
    Format: Float32
    FillSize: 280
  - Name: Expected
    Format: Float32
    Data: [ 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5, 30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5, 40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5, 50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5, 60.5, 61.5, 62.5, 63.5, 64.5, 65.5, 66.5, 67.5, 68.5, 69.5, 70.5 ]
Results:
  - Result: Sum
    Rule: BufferExact
    Actual: Out
    Expected: Expected
DescriptorSets:
  - Resources:
    - Name: A
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: B
      Kind: StructuredBuffer
      DirectXBinding: { Register: 1, Space: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Params
      Kind: ConstantBuffer
      DirectXBinding: { Register: 0, Space: 0 }
...
"#;

fn opts(isa: Isa) -> RunOptions {
    let mut o = RunOptions::new(preset("generic").unwrap());
    o.compile.isa = isa;
    o.print_stats = true;
    o
}

fn src() -> SourceFile {
    SourceFile::new("vadd.hlsl", SOURCE)
}

#[test]
fn sim_config_follows_the_target() {
    let t = preset("gcn").unwrap();
    let occ = occupancy(&t, 40, 1024, 0);
    let c = sim_config(&t, Isa::Wave012, &occ, 123);
    assert_eq!(c.wave_width, 64);
    assert_eq!(c.profile, wavesim::Profile::Toolchain012);
    assert_eq!(c.max_instructions, 123);
    assert_eq!(c.local_memory_limit, 32 * 1024);
    assert!(c.timing);
    assert_eq!(c.machine, t.machine(None));
    let m = &c.machine;
    assert_eq!((m.latency.alu, m.latency.sfu, m.memory.local_latency, m.memory.dram_latency), (4, 16, 64, 500));
    assert_eq!((m.compute_units, m.cores_per_cu, m.max_waves_per_core), (t.compute_units, 4, 10));
    // A workgroup the target cannot hold runs without the cycle model.
    let none = occupancy(&t, 8, 4096, 0);
    assert!(!sim_config(&t, Isa::Wave, &none, 0).timing);
    let o = RunOptions::new(t);
    assert_eq!((o.max_instructions, o.timing, o.strict, o.compute_units), (50_000_000, true, false, None));
}

#[test]
fn vector_add_passes() {
    let p = parse_pipeline(PIPELINE).unwrap();
    for isa in [Isa::Wave, Isa::Wave012] {
        let out = execute(&p, &compiled(VADD), &src(), &opts(isa));
        assert_eq!(out.exit_code, 0, "{}\n{}", out.stdout, out.stderr);
        // The output is the pipeline again, with Out filled in.
        let back = parse_pipeline(&out.stdout).unwrap();
        assert_eq!(back.buffers[3].data, p.buffers[4].data);
        assert!(out.stdout.contains("  - Name: Out\n    Format: Float32\n    Data: [ 1.5, 2.5, 3.5,"), "{}", out.stdout);
        let st = out.stats.unwrap();
        assert_eq!((st.sim.workgroups, st.sim.waves), (2, 4));
        assert!(st.sim.device_stores > 0);
        assert!(out.stderr.contains("stats: occupancy 32 of 32 waves per core"), "{}", out.stderr);
    }
}

#[test]
fn wrong_expectation_exits_1_and_lists_mismatches() {
    // Expect A + 1 instead of A + 0.5: every element differs.
    let text = PIPELINE.replace("FillValue: 0.5", "FillValue: 1");
    let p = parse_pipeline(&text).unwrap();
    let out = execute(&p, &compiled(VADD), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error: result `Sum` failed (BufferExact): `Out` does not match `Expected`"), "{}", out.stderr);
    assert!(out.stderr.contains("  Out[0]: got 2, expected 1.5 (Float32)"), "{}", out.stderr);
    assert!(out.stderr.contains("... and 50 more mismatching elements"), "{}", out.stderr);
    assert!(out.stderr.contains("70 of 70 elements differ"), "{}", out.stderr);
    // The final buffers are printed anyway.
    assert!(out.stdout.contains("Data: [ 2, 3, 4,"), "{}", out.stdout);
}

#[test]
fn fault_exits_3_with_instruction_source_and_thread() {
    // Out holds 4 floats; 64 threads store unguarded.
    let text = r#"
Shaders: [ { Stage: Compute, Entry: main, DispatchSize: [1, 1, 1] } ]
Buffers:
  - { Name: A, Format: Float32, FillSize: 4 }
  - { Name: B, Format: Float32, FillSize: 4 }
  - { Name: P, Format: UInt32, Data: [ 4 ] }
  - { Name: Out, Format: UInt32, FillSize: 16 }
DescriptorSets:
  - Resources:
    - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: B, Kind: StructuredBuffer, DirectXBinding: { Register: 1, Space: 0 } }
    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: P, Kind: ConstantBuffer, DirectXBinding: { Register: 0, Space: 0 } }
"#;
    let p = parse_pipeline(text).unwrap();
    let out = execute(&p, &compiled(VADD_UNGUARDED), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("error: runtime fault: device memory access out of bounds: 4 bytes at address 0x340"), "{}", out.stderr);
    assert!(out.stderr.contains("instruction: device_store_u32 r12, r8 (listing line 12)"), "{}", out.stderr);
    assert!(out.stderr.contains("source: vadd.hlsl:7: if (id.x < n) Out[id.x] = A[id.x] + B[id.x];"), "{}", out.stderr);
    assert!(out.stderr.contains("in workgroup (0, 0, 0), wave 0, lane 4"), "{}", out.stderr);
    assert!(
        out.stderr.contains("device memory: A at 0x0..0x4, B at 0x110..0x114, P at 0x220..0x224, Out at 0x330..0x340"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn reads_past_a_buffer_give_zeros_and_writes_past_it_fault() {
    // A holds 4 floats but 8 threads read it: the reads past its end land in the zero
    // guard after it (as D3D's robust access gives 0), not in B.
    let text = r#"
Shaders: [ { Stage: Compute, Entry: main, DispatchSize: [1, 1, 1] } ]
Buffers:
  - { Name: A, Format: Float32, Data: [ 1, 2, 3, 4 ] }
  - { Name: B, Format: Float32, Data: [ 10, 20, 30, 40, 50, 60, 70, 80 ] }
  - { Name: P, Format: UInt32, Data: [ 8 ] }
  - { Name: Out, Format: Float32, FillSize: 32 }
  - { Name: Expected, Format: Float32, Data: [ 11, 22, 33, 44, 50, 60, 70, 80 ] }
Results:
  - { Result: R, Rule: BufferExact, Actual: Out, Expected: Expected }
DescriptorSets:
  - Resources:
    - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: B, Kind: StructuredBuffer, DirectXBinding: { Register: 1, Space: 0 } }
    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: P, Kind: ConstantBuffer, DirectXBinding: { Register: 0, Space: 0 } }
"#;
    let p = parse_pipeline(text).unwrap();
    let out = execute(&p, &compiled(VADD), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 0, "{}", out.stderr);
    // Unguarded stores past the end of `Out`, which `P` follows: found in the guard.
    let text = r#"
Shaders: [ { Stage: Compute, Entry: main, DispatchSize: [1, 1, 1] } ]
Buffers:
  - { Name: A, Format: Float32, FillSize: 4 }
  - { Name: B, Format: Float32, FillSize: 4 }
  - { Name: Out, Format: UInt32, FillSize: 16 }
  - { Name: P, Format: UInt32, Data: [ 4 ] }
DescriptorSets:
  - Resources:
    - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: B, Kind: StructuredBuffer, DirectXBinding: { Register: 1, Space: 0 } }
    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: P, Kind: ConstantBuffer, DirectXBinding: { Register: 0, Space: 0 } }
"#;
    let p = parse_pipeline(text).unwrap();
    let out = execute(&p, &compiled(VADD_UNGUARDED), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("device memory access out of bounds: the kernel wrote past the end of buffer `Out` (0 bytes past it"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn fault_message_format() {
    let f = wavesim::Fault {
        kind: wavesim::FaultKind::InstructionLimit { limit: 1000 },
        origin: Some(wavesim::InstrOrigin { asm_line: 9, text: "iadd r1, r1, r2".into(), src_line: Some(7) }),
        workgroup: [1, 2, 0],
        wave: 3,
        lane: None,
    };
    let s = describe_fault(&f, &src());
    assert_eq!(
        s,
        "error: runtime fault: instruction limit reached: a workgroup issued 1000 wave-instructions (an endless loop?; `--limit group-instructions=N` raises the limit)\n  instruction: iadd r1, r1, r2 (listing line 9)\n  source: vadd.hlsl:7: if (id.x < n) Out[id.x] = A[id.x] + B[id.x];\n  in workgroup (1, 2, 0), wave 3\n"
    );
    // An included file's line, named by the listing.
    let mut sources = crate::diag::Sources::from(src());
    sources.add(SourceFile::new("inc/common.hlsli", "a\nb = c;\n"), None);
    let asm = "x\n    iadd r1, r1, r2  ; inc/common.hlsli:2 [ 3] b = c;\n";
    let g = wavesim::Fault { origin: Some(wavesim::InstrOrigin { asm_line: 2, text: "iadd".into(), src_line: None }), ..f.clone() };
    assert!(describe_fault_in(&g, &sources, asm).contains("  source: inc/common.hlsli:2: b = c;\n"));
    let f = wavesim::Fault { kind: wavesim::FaultKind::Deadlock, origin: None, workgroup: [0; 3], wave: 0, lane: Some(5) };
    assert!(describe_fault(&f, &src()).ends_with("in workgroup (0, 0, 0), wave 0, lane 5\n"));
}

#[test]
fn unbound_resource_exits_2_before_simulating() {
    let text = PIPELINE.replace("    - Name: Params\n      Kind: ConstantBuffer\n      DirectXBinding: { Register: 0, Space: 0 }\n", "");
    let p = parse_pipeline(&text).unwrap();
    let out = execute(&p, &compiled(VADD), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 2);
    assert!(out.stderr.starts_with("error: kernel resource `Params` (ConstantBuffer at register b0) is not bound"), "{}", out.stderr);
    assert!(out.stats.is_none());
}

#[test]
fn listing_the_simulator_rejects_is_an_internal_error() {
    let p = parse_pipeline(PIPELINE).unwrap();
    let out = execute(&p, &compiled(".kernel main\n.registers 4\n    frobnicate r1, r2\n    halt\n.end\n"), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 4, "{}", out.stderr);
    assert!(out.stderr.contains("internal error: the simulator rejected the wave listing at line 3"), "{}", out.stderr);
    let out = execute(&p, &compiled(&VADD.replace(".kernel main", ".kernel other")), &src(), &opts(Isa::Wave));
    assert_eq!(out.exit_code, 4, "{}", out.stderr);
    assert!(out.stderr.contains("no kernel `main` (it has: other)"), "{}", out.stderr);
}

fn test_file(yaml: &str, hlsl: &str) -> PipelineTest {
    parse_test_text("t.test", &format!("# comment\n#--- source.hlsl\n{hlsl}#--- pipeline.yaml\n{yaml}#--- end\n")).unwrap()
}

#[test]
fn run_pipeline_reports_unsupported_with_77() {
    let t = test_file(&PIPELINE.replace("Format: UInt32", "Format: Depth32"), SOURCE);
    let out = run_pipeline(&t, &opts(Isa::Wave));
    assert_eq!(out.exit_code, 77);
    assert_eq!(out.stderr, "unsupported: buffer `Params` has format `Depth32` (t.test:pipeline.yaml)\n");
    let t = test_file(&PIPELINE.replace("Kind: StructuredBuffer", "Kind: Texture2D"), SOURCE);
    let out = run_pipeline(&t, &opts(Isa::Wave));
    assert_eq!(out.exit_code, 77);
    assert!(out.stderr.contains("unsupported: resource `A` of kind `Texture2D`"), "{}", out.stderr);
}

#[test]
fn run_pipeline_reports_yaml_errors_with_2_and_file_lines() {
    let t = test_file("Shaders: [ { Stage: Compute }\n", SOURCE);
    let out = run_pipeline(&t, &opts(Isa::Wave));
    assert_eq!(out.exit_code, 2);
    assert!(out.stderr.starts_with("error: t.test:pipeline.yaml: pipeline YAML:"), "{}", out.stderr);
    // The YAML section starts on line 13 of the .test file and the error is reported there.
    assert!(out.stderr.contains("at line 12 column") || out.stderr.contains("at line 13 column"), "{}", out.stderr);
}

#[test]
fn run_pipeline_renders_compile_errors_with_2() {
    let t = test_file(PIPELINE, "this is not HLSL\n");
    let out = run_pipeline(&t, &opts(Isa::Wave));
    assert_eq!(out.exit_code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("error["), "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn report_json_and_html() {
    let p = parse_pipeline(PIPELINE).unwrap();
    let out = execute(&p, &compiled(VADD), &src(), &opts(Isa::Wave));
    let st = out.stats.expect("ran");
    let r = &st.report;
    let t = r.timing.as_ref().expect("timed");
    assert_eq!(t.cycles, st.sim.cycles);
    // Every issued instruction is on a listing row, and the lines add up to the total.
    assert_eq!(r.listing.iter().map(|l| l.issued).sum::<u64>(), st.sim.wave_instructions);
    // (The hand-written listing leaves `if`, `endif` and `halt` without a source line.)
    let with_line: u64 = r.listing.iter().filter(|l| !l.source.is_empty()).map(|l| l.issued).sum();
    assert_eq!(t.lines.iter().map(|l| l.issued).sum::<u64>(), with_line);
    assert!(t.lines.iter().all(|l| l.file == "vadd.hlsl" && (l.line == 6 || l.line == 7)), "{:?}", t.lines);
    let json: serde_json::Value = serde_json::to_value(r).unwrap();
    assert_eq!(json["timing"]["cycles"].as_u64(), Some(t.cycles));
    let page = html::render(r, &preset("generic").unwrap(), "vadd <test>");
    assert!(page.contains("<title>wavec report: vadd &lt;test&gt;</title>"), "{page}");
    // The data the script draws from is the report, and cannot end the script element.
    let at = page.find("<script id=\"data\" type=\"application/json\">").unwrap();
    let data = &page[at..];
    let data = &data[data.find('>').unwrap() + 1..data.find("</script>").unwrap()];
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["report"]["timing"]["cycles"].as_u64(), Some(t.cycles));
    assert_eq!(v["curves"]["kernel_registers"].as_u64(), Some(16));
    for id in ["occ-registers", "timeline", "pressure", "core-cycles", "lines", "listing"] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(out.stderr.contains("stats: lines by cycles"), "{}", out.stderr);
}

#[test]
fn new_faults_name_instruction_lane_address_and_line() {
    let origin = Some(wavesim::InstrOrigin { asm_line: 3, text: "device_load_u32 r1, r2".into(), src_line: Some(7) });
    let f = |kind| wavesim::Fault { kind, origin: origin.clone(), workgroup: [2, 0, 0], wave: 1, lane: Some(5) };
    let s = describe_fault(&f(wavesim::FaultKind::Misaligned { addr: 0x42, size: 4, local: false }), &src());
    assert!(s.contains("misaligned device memory access: 4 bytes at address 0x42"), "{s}");
    assert!(s.contains("instruction: device_load_u32 r1, r2 (listing line 3)") && s.contains("vadd.hlsl:7:"), "{s}");
    assert!(s.contains("in workgroup (2, 0, 0), wave 1, lane 5"), "{s}");
    let s = describe_fault(&f(wavesim::FaultKind::DivergentBarrier { executing: 3, live: 64 }), &src());
    assert!(s.contains("barrier in divergent control flow: 3 of the wave's 64 live lanes"), "{s}");
    let s = describe_fault(&f(wavesim::FaultKind::UndefinedRead { slot: wavesim::isa::PRED_SLOT_BASE + 1 }), &src());
    assert!(s.contains("--strict: read of p1"), "{s}");
}

#[test]
fn a_what_if_that_does_not_fit_is_an_error() {
    let p = parse_pipeline(PIPELINE).unwrap();
    let mut o = RunOptions::new(preset("gcn").unwrap());
    o.registers_for_occupancy = Some(256);
    let mut c = compiled(VADD);
    c.interface.workgroup_size = [1024, 1, 1];
    let out = execute(&p, &c, &src(), &o);
    assert_eq!(out.exit_code, EXIT_ERROR, "{}", out.stderr);
    assert!(out.stderr.contains("--registers 256: a workgroup of 1024 threads"), "{}", out.stderr);
}
