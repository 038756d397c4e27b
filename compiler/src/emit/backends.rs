//! `--emit ptx|hip|metal|sycl`: the `wave-0.1.2` listing, assembled by
//! wave-asm 0.1.2, translated by the published backend crates (wave-ptx,
//! wave-hip, wave-metal and wave-sycl, each pinned `=0.1.2`). Their output is
//! written as they give it; docs/backends.md says how each one's kernel is
//! launched (the argument registers and the scratch buffer) and where each
//! deviates from the WAVE spec, which the compat profile works around.

use crate::diag::Diagnostic;

/// A published WAVE backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// NVIDIA: PTX 7.5 (wave-ptx).
    Ptx,
    /// AMD: HIP C++ (wave-hip).
    Hip,
    /// Apple: Metal Shading Language (wave-metal).
    Metal,
    /// Intel: SYCL C++ (wave-sycl).
    Sycl,
}

/// The PTX target wavec asks wave-ptx for: PTX 7.5 allows at most sm_87, and
/// sm_75 JIT-compiles on every later GPU (wave-toolchain-0.1.2.md §6).
pub const PTX_SM: u32 = 75;

impl Backend {
    pub const ALL: [Backend; 4] = [Backend::Ptx, Backend::Hip, Backend::Metal, Backend::Sycl];

    /// The `--emit` name.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Ptx => "ptx",
            Backend::Hip => "hip",
            Backend::Metal => "metal",
            Backend::Sycl => "sycl",
        }
    }

    /// The crate that translates for this backend.
    pub fn crate_name(self) -> &'static str {
        match self {
            Backend::Ptx => "wave-ptx 0.1.2",
            Backend::Hip => "wave-hip 0.1.2",
            Backend::Metal => "wave-metal 0.1.2",
            Backend::Sycl => "wave-sycl 0.1.2",
        }
    }

    /// The usual file extension of the output.
    pub fn extension(self) -> &'static str {
        match self {
            Backend::Ptx => "ptx",
            Backend::Hip => "hip",
            Backend::Metal => "metal",
            Backend::Sycl => "cpp",
        }
    }

    /// The backend's source for a `.wbin` (from [`super::assemble_wbin`]).
    pub fn translate(self, wbin: &[u8]) -> Result<String, String> {
        let out = match self {
            Backend::Ptx => wave_ptx::compile(wbin, PTX_SM).map(|ptx| retype_bit_atomics(&ptx)).map_err(|e| e.to_string()),
            Backend::Hip => wave_hip::compile(wbin).map_err(|e| e.to_string()),
            Backend::Metal => wave_metal::compile(wbin).map_err(|e| e.to_string()),
            Backend::Sycl => wave_sycl::compile(wbin).map_err(|e| e.to_string()),
        };
        out.map_err(|e| format!("{} rejected the program: {e}", self.crate_name()))
    }
}

/// wave-ptx 0.1.2's PTX with its bitwise atomics typed as ptxas wants them.
///
/// wave-ptx writes every atomic `.u32`; PTX allows only `.b32` (or `.b64`) for the
/// bit-size operations `and`, `or`, `xor` and `exch`, so ptxas refuses the module
/// (docs/backends.md). The two types name the same 32-bit operation, so this
/// rewrite changes nothing else; no other WAVE 0.1.2 instruction could do their
/// work (`atomic_cas` does not assemble in wave-asm 0.1.2, and add, min and max
/// cannot build an atomic and, or or xor without a lock).
pub fn retype_bit_atomics(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let mut fixed = None;
        for space in ["global", "shared"] {
            for op in ["and", "or", "xor", "exch"] {
                let wrong = format!("atom.{space}.{op}.u32 ");
                if line.contains(&wrong) {
                    fixed = Some(line.replace(&wrong, &format!("atom.{space}.{op}.b32 ")));
                }
            }
        }
        out.push_str(fixed.as_deref().unwrap_or(line));
    }
    out
}

/// The backend's source for a `wave-0.1.2` listing: assembled, then translated.
pub fn translate_listing(backend: Backend, listing: &str, file_name: &str) -> Result<String, String> {
    let wbin = super::assemble_wbin(listing, file_name)?;
    backend.translate(&wbin)
}

/// wave-ptx 0.1.2 lowers every wave instruction with the member mask
/// `0xffffffff`: in a warp that the workgroup fills only partly (its thread
/// count not a multiple of 32) the mask names lanes that do not exist, which
/// PTX leaves undefined (on an H200 they read as garbage). The warning for a
/// listing with wave instructions and such a workgroup, if any: `pad-warps`
/// launches such kernels in whole warps, so it fires only where it did not
/// (`--disable pad-warps`, a barrier in a loop the extra threads would skip,
/// a wave operation `converge-waves` could only converge unpadded).
pub fn partial_warp_warning(asm: &str, workgroup: [u32; 3]) -> Option<Diagnostic> {
    let threads: u32 = workgroup.iter().product();
    if threads.is_multiple_of(32) {
        return None;
    }
    let wave_ops = asm.lines().filter(|l| l.split(';').next().unwrap_or("").trim_start().starts_with("wave_")).count();
    (wave_ops > 0).then(|| {
        Diagnostic::warning(
            "W0504",
            format!(
                "{wave_ops} wave instruction(s) in workgroups of {threads} threads: the last warp of each group is partial, and \
                 wave-ptx 0.1.2's full-mask shuffles and votes read its missing lanes (undefined in PTX)"
            ),
        )
        .with_note(
            "wavec pads such a kernel's workgroup to whole warps (`pad-warps`) but could not here (disabled, or a barrier in a loop that \
             threads leave at different iterations); use a workgroup size that is a multiple of 32 to run it on NVIDIA through \
             wave-ptx (docs/backends.md)",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wave_instructions_in_partial_warps_are_warned_about() {
        let asm = ".kernel main\n    wave_reduce_add r1, r0\n    halt\n.end\n";
        let w = partial_warp_warning(asm, [80, 1, 1]).expect("80 threads leave a partial warp");
        assert_eq!(w.code, "W0504");
        assert!(w.message.starts_with("1 wave instruction(s) in workgroups of 80 threads"), "{}", w.message);
        assert!(partial_warp_warning(asm, [64, 2, 1]).is_none(), "whole warps");
        // A mnemonic in a comment is not an instruction.
        assert!(partial_warp_warning(".kernel main\n    iadd r1, r1, r0 ; wave_reduce_add\n.end\n", [48, 1, 1]).is_none());
    }

    const SAXPY: &str = ".kernel saxpy\n.registers 8\n.workgroup_size 64, 1, 1\n    mov r5, sr_thread_id_x\n    \
        mov_imm r6, 2\n    shl r7, r5, r6\n    iadd r7, r0, r7\n    device_load_u32 r6, r7\n    device_store_u32 r7, r6\n    halt\n.end\n";

    #[test]
    fn every_backend_translates_a_kernel_under_its_name() {
        let want = [".entry saxpy(", "__global__ void saxpy(", "kernel void saxpy(", "void saxpy_launch("];
        for (b, w) in Backend::ALL.into_iter().zip(want) {
            let text = translate_listing(b, SAXPY, "saxpy.wave").unwrap_or_else(|e| panic!("{}: {e}", b.name()));
            assert!(text.contains(w), "{}: no `{w}` in\n{text}", b.name());
        }
    }

    #[test]
    fn ptx_bitwise_atomics_are_typed_b32() {
        let listing = ".kernel k\n.registers 8\n.local_memory 64\n.workgroup_size 32, 1, 1\n    mov_imm r2, 0x100\n    \
            atomic_or r3, r0, r2, .device\n    atomic_xor r4, r0, r2, .device\n    atomic_and r0, r2, .device\n    \
            local_atomic_or r5, r1, r2\n    atomic_add r6, r0, r2, .device\n    halt\n.end\n";
        let text = translate_listing(Backend::Ptx, listing, "k.wave").expect("translates");
        for op in ["atom.global.or.b32 %r3", "atom.global.xor.b32 %r4", "atom.global.and.b32 ", "atom.shared.or.b32 %r5"] {
            assert!(text.contains(op), "no `{op}` in\n{text}");
        }
        assert!(text.contains("atom.global.add.u32 %r6"), "{text}");
        for op in ["and", "or", "xor", "exch"] {
            assert!(!text.contains(&format!(".{op}.u32")), "{text}");
        }
    }

    #[test]
    fn ptx_targets_sm_75() {
        let text = translate_listing(Backend::Ptx, SAXPY, "saxpy.wave").expect("translates");
        assert!(text.contains(".target sm_75"), "{text}");
    }
}
