//! Printing a pipeline back as YAML, in the input's layout, with every buffer's
//! contents written out as `Data` (a `FillSize` buffer becomes its data).
//! Values are spelled as the offload-test-suite's offloader spells them (so that its
//! FileCheck tests match), or, `exact`, in the shortest form that reads back to the
//! same bits; either way the output parses back as a pipeline.

use std::fmt::Write;

use super::format::show_f64;
use super::pipeline::{DispatchStyle, Pipeline, Rule};

/// A YAML scalar for a name: plain when safe, else double-quoted.
fn name(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && !matches!(s.to_ascii_lowercase().as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n");
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn dims(d: [u32; 3]) -> String {
    format!("[{}, {}, {}]", d[0], d[1], d[2])
}

/// The pipeline as YAML (with a `---` / `...` document frame).
pub fn pipeline_to_yaml(p: &Pipeline, exact: bool) -> String {
    let mut o = String::new();
    o.push_str("---\nShaders:\n");
    let _ = writeln!(o, "  - Stage: {}", name(&p.shader.stage));
    if let Some(e) = &p.shader.entry {
        let _ = writeln!(o, "    Entry: {}", name(e));
    }
    match p.dispatch_style {
        DispatchStyle::ShaderDispatchSize => {
            let _ = writeln!(o, "    DispatchSize: {}", dims(p.dispatch));
        }
        DispatchStyle::InShader => {
            let _ = writeln!(o, "    DispatchParameters:\n      DispatchGroupCount: {}", dims(p.dispatch));
        }
        DispatchStyle::TopLevel => {
            let _ = writeln!(o, "DispatchParameters:\n  DispatchGroupCount: {}", dims(p.dispatch));
        }
        DispatchStyle::Default => {}
    }
    if !p.buffers.is_empty() {
        o.push_str("Buffers:\n");
    }
    for b in &p.buffers {
        let _ = writeln!(o, "  - Name: {}", name(&b.name));
        let _ = writeln!(o, "    Format: {}", b.format.name());
        if let Some(s) = b.stride {
            let _ = writeln!(o, "    Stride: {s}");
        }
        // A typed buffer's view: without it the printed pipeline would read back as another.
        if let Some(c) = b.channels {
            let _ = writeln!(o, "    Channels: {c}");
        }
        if b.array_size > 1 {
            let _ = writeln!(o, "    ArraySize: {}", b.array_size);
        }
        // The offloader prints counters after ArraySize, one value or a list for an array.
        match b.counters.as_slice() {
            [] => {}
            [c] if b.array_size == 1 => {
                let _ = writeln!(o, "    Counter: {c}");
            }
            cs => {
                let cs: Vec<String> = cs.iter().map(|c| c.to_string()).collect();
                let _ = writeln!(o, "    Counters: [ {} ]", cs.join(", "));
            }
        }
        if b.array_size > 1 {
            o.push_str("    Data:\n");
            for k in 0..b.array_size {
                o.push_str("      - ");
                b.format.write_list(&mut o, b.element(k), exact);
                o.push('\n');
            }
        } else {
            o.push_str("    Data: ");
            b.format.write_list(&mut o, &b.data, exact);
            o.push('\n');
        }
    }
    if !p.results.is_empty() {
        o.push_str("Results:\n");
    }
    for r in &p.results {
        let _ = writeln!(o, "  - Result: {}", name(&r.name));
        let _ = writeln!(o, "    Rule: {}", r.rule.name());
        match r.rule {
            Rule::BufferExact => {}
            Rule::BufferFloatULP { ulpt } => {
                let _ = writeln!(o, "    ULPT: {ulpt}");
            }
            Rule::BufferFloatEpsilon { epsilon } => {
                let _ = writeln!(o, "    Epsilon: {}", show_f64(epsilon));
            }
        }
        if r.denorm_any {
            o.push_str("    DenormMode: Any\n");
        }
        let _ = writeln!(o, "    Actual: {}", name(&p.buffers[r.actual].name));
        let _ = writeln!(o, "    Expected: {}", name(&p.buffers[r.expected].name));
    }
    if !p.descriptor_sets.is_empty() {
        o.push_str("DescriptorSets:\n");
    }
    for set in &p.descriptor_sets {
        if set.resources.is_empty() {
            o.push_str("  - Resources: []\n");
            continue;
        }
        o.push_str("  - Resources:\n");
        for d in &set.resources {
            let _ = writeln!(o, "    - Name: {}", name(&p.buffers[d.buffer].name));
            let _ = writeln!(o, "      Kind: {}", d.kind.name());
            if d.has_counter {
                o.push_str("      HasCounter: true\n");
            }
            if d.directx_written {
                let _ = writeln!(o, "      DirectXBinding: {{ Register: {}, Space: {} }}", d.binding.index, d.binding.space);
            }
            if let Some(v) = d.vulkan_binding {
                let _ = writeln!(o, "      VulkanBinding: {{ Binding: {v} }}");
            }
        }
    }
    o.push_str("...\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::pipeline::parse_pipeline;

    const P: &str = r#"---
Shaders:
  - Stage: Compute
    Entry: main
DispatchParameters: { DispatchGroupCount: [2, 1, 1] }
Buffers:
  - Name: In
    Format: Float32
    Data: [ 1.5, -0, nan, inf, -inf, 1e-7, 0.1, 3 ]
  - Name: H
    Format: Float16
    Data: [ 0x2e66, 0xc000, 31743 ]
  - Name: D
    Format: Float64
    Data: [ 0.1, -1e300 ]
  - Name: X
    Format: Hex32
    FillSize: 8
    FillValue: 0x2a
  - Name: "weird name"
    Format: Int64
    Stride: 16
    Data: [ -9223372036854775808, 1 ]
  - Name: T
    Format: Float32
    Channels: 4
    Data: [ 1, 2, 3, 4 ]
  - Name: U
    Format: UInt16
    Data: []
Results:
  - Result: T0
    Rule: BufferFloatEpsilon
    Epsilon: 0.001
    Actual: In
    Expected: In
  - Result: T1
    Rule: BufferExact
    Actual: X
    Expected: X
DescriptorSets:
  - Resources:
    - Name: In
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
      VulkanBinding: { Binding: 0 }
    - Name: X
      Kind: RWStructuredBuffer
      VulkanBinding: { Binding: 3 }
...
"#;

    #[test]
    fn output_round_trips() {
        let p = parse_pipeline(P).unwrap();
        let y = pipeline_to_yaml(&p, true);
        let q = parse_pipeline(&y).unwrap_or_else(|e| panic!("{}\n{y}", e.message));
        // NaN != NaN under PartialEq on floats is not involved: buffers are bytes.
        assert_eq!(p, q, "{y}");
        assert_eq!(pipeline_to_yaml(&q, true), y);
        assert!(y.contains("    Data: [ 1.5, -0, nan, inf, -inf, 1e-7, 0.1, 3 ]\n"), "{y}");
        assert!(y.contains("    Data: [ 0x0000002a, 0x0000002a ]\n"), "{y}");
        assert!(y.contains("    Data: [ 0x2e66, 0xc000, 0x7bff ]\n"), "{y}");
        assert!(y.contains("  - Name: \"weird name\"\n"), "{y}");
        assert!(y.contains("DispatchParameters:\n  DispatchGroupCount: [2, 1, 1]\n"), "{y}");
        assert!(y.contains("    - Name: X\n      Kind: RWStructuredBuffer\n      VulkanBinding: { Binding: 3 }\n"), "{y}");
        assert!(y.contains("    Epsilon: 0.001\n"), "{y}");
        // A typed buffer keeps its view's channels (the fuzz campaign found them dropped).
        assert!(y.contains("  - Name: T\n    Format: Float32\n    Channels: 4\n"), "{y}");
    }

    #[test]
    fn default_output_spells_values_as_the_offloader() {
        let p = parse_pipeline(&P.replace("1e-7, 0.1, 3", "1e-7, 7.6000004, 1234567")).unwrap();
        let y = pipeline_to_yaml(&p, false);
        assert!(y.contains("    Data: [ 1.5, -0, nan, inf, -inf, 1e-07, 7.6, 1.23457e+06 ]\n"), "{y}");
        assert!(y.contains("    Data: [ 0x2A, 0x2A ]\n"), "{y}");
        assert!(y.contains("    Data: [ 0x2E66, 0xC000, 0x7BFF ]\n"), "{y}");
        assert!(y.contains("    Data: [ 0.1, -1e+300 ]\n"), "{y}");
        // Still a pipeline.
        parse_pipeline(&y).unwrap_or_else(|e| panic!("{}\n{y}", e.message));
    }

    #[test]
    fn c_format_g_matches_printf() {
        use crate::run::format::c_format_g as g;
        let cases = [
            (0.0, "0"),
            (100000.0, "100000"),
            (999999.5, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (1.234567891, "1.23457"),
            (-2.5, "-2.5"),
            (123456789.0, "1.23457e+08"),
            (1.0e-300, "1e-300"),
        ];
        for (v, want) in cases {
            assert_eq!(g(v), want, "{v}");
        }
    }

    #[test]
    fn other_dispatch_layouts_are_kept() {
        let old = P
            .replace("DispatchParameters: { DispatchGroupCount: [2, 1, 1] }\n", "")
            .replace("    Entry: main\n", "    Entry: main\n    DispatchSize: [3, 2, 1]\n");
        let y = pipeline_to_yaml(&parse_pipeline(&old).unwrap(), false);
        assert!(y.contains("    Entry: main\n    DispatchSize: [3, 2, 1]\nBuffers:"), "{y}");
        let inner = P
            .replace("DispatchParameters: { DispatchGroupCount: [2, 1, 1] }\n", "")
            .replace("    Entry: main\n", "    Entry: main\n    DispatchParameters: { DispatchGroupCount: [4, 1, 1] }\n");
        let y = pipeline_to_yaml(&parse_pipeline(&inner).unwrap(), false);
        assert!(y.contains("    DispatchParameters:\n      DispatchGroupCount: [4, 1, 1]\n"), "{y}");
    }
}
