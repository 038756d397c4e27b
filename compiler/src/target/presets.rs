//! The built-in machine models. Numbers and their sources:
//! - generic: the WAVE optimization guide's example (W=32, 16384 registers per compute unit).
//! - gcn: the GPUOpen article on large thread groups (64 KiB VGPRs per SIMD = 256 per lane,
//!   4 SIMDs per CU, 10 waves per SIMD, 64 KiB LDS per CU, 32 KiB per group).
//! - rdna, nvidia, apple: the WAVE "occupancy equation" notes (RDNA 3 CU 512 KB at W=64,
//!   Ampere SM 256 KB with 255 registers and 64 warps, Apple M1 core 208 KB with 128 registers).
//!   Granules, wave-slot and local-memory limits not given there are the vendors' usual
//!   figures and marked as such below.

use super::{Latencies, Target};

/// Every preset, in the order `--print-targets` lists them.
pub fn presets() -> Vec<Target> {
    vec![generic(), gcn(), rdna(), nvidia(), apple()]
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Target> {
    presets().into_iter().find(|t| t.name == name)
}

fn generic() -> Target {
    Target {
        name: "generic",
        description: "WAVE optimization guide example: W=32, 64 KiB (16384 registers) per core",
        wave_width: 32,
        register_file_bytes: 64 * 1024,
        register_granule: 1,
        max_registers: 256,
        max_waves_per_core: 32,
        cores_per_cu: 1,
        local_memory_per_cu: 64 * 1024,
        local_memory_per_workgroup: 16 * 1024,
        max_workgroup_size: 1024,
        scalar_registers: None,
        latency: Latencies { alu: 4, sfu: 16, local: 24, device: 200 },
    }
}

fn gcn() -> Target {
    Target {
        name: "gcn",
        description: "AMD GCN CU (GPUOpen): W=64, 256 VGPRs per lane per SIMD, 4 SIMDs, 10 waves per SIMD",
        wave_width: 64,
        register_file_bytes: 64 * 1024,
        register_granule: 4,
        max_registers: 256,
        max_waves_per_core: 10,
        cores_per_cu: 4,
        local_memory_per_cu: 64 * 1024,
        local_memory_per_workgroup: 32 * 1024,
        max_workgroup_size: 1024,
        scalar_registers: Some(102),
        latency: Latencies { alu: 4, sfu: 16, local: 64, device: 500 },
    }
}

fn rdna() -> Target {
    Target {
        name: "rdna",
        description: "AMD RDNA 3 CU (WAVE notes): W=64, 512 KB register file, 256 VGPRs",
        wave_width: 64,
        register_file_bytes: 512 * 1024,
        // Usual RDNA figures (not in the notes): granule 8, 32 waves per CU.
        register_granule: 8,
        max_registers: 256,
        max_waves_per_core: 32,
        cores_per_cu: 1,
        local_memory_per_cu: 128 * 1024,
        local_memory_per_workgroup: 64 * 1024,
        max_workgroup_size: 1024,
        scalar_registers: Some(106),
        latency: Latencies { alu: 5, sfu: 20, local: 64, device: 450 },
    }
}

fn nvidia() -> Target {
    Target {
        name: "nvidia",
        description: "NVIDIA Ampere SM (WAVE notes): W=32, 256 KB register file, 255 registers, 64 warps",
        wave_width: 32,
        register_file_bytes: 256 * 1024,
        // Usual figures (not in the notes): registers allocated 8 per thread, 48 KiB static shared memory.
        register_granule: 8,
        max_registers: 255,
        max_waves_per_core: 64,
        cores_per_cu: 1,
        local_memory_per_cu: 164 * 1024,
        local_memory_per_workgroup: 48 * 1024,
        max_workgroup_size: 1024,
        scalar_registers: None,
        latency: Latencies { alu: 4, sfu: 16, local: 30, device: 400 },
    }
}

fn apple() -> Target {
    Target {
        name: "apple",
        description: "Apple M1 GPU core (WAVE notes): W=32, 208 KB register file, 128 registers",
        wave_width: 32,
        register_file_bytes: 208 * 1024,
        // Assumed (not in the notes): granule 8, 32 SIMD-groups per core, 32 KiB threadgroup memory.
        register_granule: 8,
        max_registers: 128,
        max_waves_per_core: 32,
        cores_per_cu: 1,
        local_memory_per_cu: 64 * 1024,
        local_memory_per_workgroup: 32 * 1024,
        max_workgroup_size: 1024,
        scalar_registers: None,
        latency: Latencies { alu: 4, sfu: 16, local: 30, device: 400 },
    }
}
