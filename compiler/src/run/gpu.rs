//! The GPU check's two halves in `wavec run` (tools/gpu-check drives them):
//!
//! - `--gpu-plan FILE`: after a run on the simulator, write what a host needs
//!   to run the same dispatch on an NVIDIA GPU: the kernel as wave-ptx 0.1.2
//!   translates the `wave-0.1.2` listing, the launch (grid, workgroup, the
//!   argument registers' values), device memory before the run and after the
//!   simulator's run, and where each buffer lies in it (JSON).
//! - `--device-memory FILE`: instead of simulating, take FILE as device memory
//!   after the run (as a GPU left it), read the buffers back from it and check
//!   the test's results as a simulated run would (exit 0 or 1).

use std::fmt::Write;

use super::layout::MemoryLayout;
use super::pipeline::Pipeline;
use super::{emit, RunError, RunOutcome, EXIT_MISMATCH, EXIT_PASS};
use crate::driver::Compiled;
use crate::emit::backends::Backend;
use crate::options::Isa;

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The plan as JSON (see the module doc). `initial` and `after` are device
/// memory before and after the simulator's run.
pub fn plan_json(pipeline: &Pipeline, compiled: &Compiled, isa: Isa, layout: &MemoryLayout, initial: &[u8], after: &[u8]) -> String {
    let ptx = match isa {
        Isa::Wave012 => crate::emit::backends::translate_listing(Backend::Ptx, &compiled.asm, &compiled.interface.kernel),
        Isa::Wave => Err("the GPU check needs `--isa wave-0.1.2` (the published backends take that profile)".to_string()),
    };
    let buffers: Vec<serde_json::Value> = layout
        .placements
        .iter()
        .map(|pl| {
            let b = &pipeline.buffers[pl.buffer];
            serde_json::json!({
                "name": b.name,
                "format": b.format.name(),
                "element": pl.element,
                "address": pl.address,
                "size": pl.size,
            })
        })
        .collect();
    let (ptx, ptx_error) = match ptx {
        Ok(t) => (serde_json::Value::String(t), serde_json::Value::Null),
        Err(e) => (serde_json::Value::Null, serde_json::Value::String(e)),
    };
    let plan = serde_json::json!({
        "isa": isa.name(),
        "kernel": compiled.interface.kernel,
        "ptx": ptx,
        "ptx_error": ptx_error,
        "grid": pipeline.dispatch,
        "workgroup_size": compiled.interface.workgroup_size,
        "args": layout.args,
        "memory_size": layout.size,
        "initial_memory": hex(initial),
        "simulator_memory": hex(after),
        "buffers": buffers,
    });
    serde_json::to_string_pretty(&plan).unwrap_or_default() + "\n"
}

/// Checks the test's results against `image`, device memory after a run
/// elsewhere, laid out as `layout` says.
pub fn check_image(pipeline: &Pipeline, layout: &MemoryLayout, image: &[u8], exact: bool) -> RunOutcome {
    if image.len() != layout.size as usize {
        return RunError::invalid(format!(
            "--device-memory: the image has {} bytes, the run's device memory {} (was it written for this test and these options?)",
            image.len(),
            layout.size
        ))
        .into_outcome();
    }
    let mem = wavesim::Memory { bytes: image.to_vec() };
    let result = match layout.read_back_from(pipeline, &mem) {
        Ok(r) => r,
        Err(e) => return RunError::invalid(format!("--device-memory: {e}")).into_outcome(),
    };
    let mut stderr = String::new();
    let mut failed = 0;
    for check in &result.results {
        let (a, e) = (&result.buffers[check.actual], &result.buffers[check.expected]);
        let c = super::compare::compare_with(check.rule, check.denorm_any, a, e);
        if !c.passed() {
            failed += 1;
            stderr.push_str(&super::describe_mismatch(check, &c, a, e));
        }
    }
    if failed > 0 {
        let _ = writeln!(stderr, "{failed} of {} results did not match", result.results.len());
    }
    RunOutcome {
        exit_code: if failed > 0 { EXIT_MISMATCH } else { EXIT_PASS },
        stdout: emit::pipeline_to_yaml(&result, exact),
        stderr,
        stats: None,
    }
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn memory_is_written_as_lowercase_hex_bytes() {
        assert_eq!(hex(&[0x00, 0x3f, 0x80, 0xff]), "003f80ff");
    }
}
