//! The built-in machine models. Numbers and their sources:
//! - generic: the WAVE optimization guide's example (W=32, 16384 registers per compute unit).
//! - gcn: the GPUOpen article on large thread groups (64 KiB VGPRs per SIMD = 256 per lane,
//!   4 SIMDs per CU, 10 waves per SIMD, 64 KiB LDS per CU, 32 KiB per group).
//! - rdna, nvidia, apple: the WAVE "occupancy equation" notes (RDNA 3 CU 512 KB at W=64,
//!   Ampere SM 256 KB with 255 registers and 64 warps, Apple M1 core 208 KB with 128 registers).
//!   Granules, wave-slot and local-memory limits not given there are the vendors' usual
//!   figures and marked as such below.
//!
//! The cycle model's figures (issue costs, latencies beyond the four the scheduler
//! uses, the memory system, the compute-unit count) are not in those sources.
//! They are the usual orders of magnitude for each family: issue costs from the
//! ratio of wave width to SIMD lanes, L2 and DRAM latencies and bandwidths of a
//! small part of the family (a few compute units, so that simulated dispatches
//! stay small). They are assumptions, chosen so that the effects the seed
//! articles describe appear in the right direction and rough proportion; only
//! the generic target's device latency (~300 cycles in all) and local latency
//! (~20) come from the WAVE optimization guide.

use super::{IssueCosts, Latencies, MemorySystem, Target};

/// Issue costs for a wave that takes `cycles` cycles through the SIMD's lanes.
fn issue(cycles: u32, sfu: u32, wave: u32) -> IssueCosts {
    IssueCosts { alu: cycles, fpu: cycles, sfu, mov: cycles, wave, control: 1, sync: 1, memory: cycles, atomic: cycles }
}

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
        latency: Latencies {
            alu: 4,
            sfu: 16,
            local: 24,
            device: 200,
            fpu: 4,
            mov: 4,
            wave: 8,
            control: 1,
            memory_pipeline: 20,
            l2: 80,
            atomic: 16,
            launch: 16,
            barrier: 4,
        },
        // Assumed: 4 compute units, 32 lanes per SIMD, 128-byte lines (one coalesced
        // 32-lane access), 256 KiB L2, DRAM at 32 bytes per cycle.
        compute_units: 4,
        issue: issue(1, 4, 2),
        memory: MemorySystem {
            segment_bytes: 128,
            transaction_cycles: 1,
            l2_bytes: 256 * 1024,
            l2_ways: 16,
            l2_bytes_per_cycle: 256,
            dram_bytes_per_cycle: 32,
            local_banks: 32,
            local_pass_cycles: 1,
        },
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
        latency: Latencies {
            alu: 4,
            sfu: 16,
            local: 64,
            device: 500,
            fpu: 4,
            mov: 4,
            wave: 8,
            control: 1,
            memory_pipeline: 50,
            l2: 150,
            atomic: 40,
            launch: 32,
            barrier: 8,
        },
        // Assumed: a small part of 8 CUs; a 64-lane wave takes 4 cycles on a 16-lane SIMD
        // (quarter rate for transcendentals); 64-byte lines; 512 KiB L2; DRAM 64 bytes per cycle.
        compute_units: 8,
        issue: issue(4, 16, 8),
        memory: MemorySystem {
            segment_bytes: 64,
            transaction_cycles: 1,
            l2_bytes: 512 * 1024,
            l2_ways: 16,
            l2_bytes_per_cycle: 512,
            dram_bytes_per_cycle: 64,
            local_banks: 32,
            local_pass_cycles: 1,
        },
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
        latency: Latencies {
            alu: 5,
            sfu: 20,
            local: 64,
            device: 450,
            fpu: 5,
            mov: 5,
            wave: 8,
            control: 1,
            memory_pipeline: 40,
            l2: 120,
            atomic: 32,
            launch: 32,
            barrier: 8,
        },
        // Assumed: 8 CUs; a 64-lane wave in two passes of 32 lanes; 128-byte lines; 4 MiB L2.
        compute_units: 8,
        issue: issue(2, 8, 4),
        memory: MemorySystem {
            segment_bytes: 128,
            transaction_cycles: 1,
            l2_bytes: 4 * 1024 * 1024,
            l2_ways: 16,
            l2_bytes_per_cycle: 1024,
            dram_bytes_per_cycle: 96,
            local_banks: 32,
            local_pass_cycles: 1,
        },
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
        latency: Latencies {
            alu: 4,
            sfu: 16,
            local: 30,
            device: 400,
            fpu: 4,
            mov: 4,
            wave: 8,
            control: 1,
            memory_pipeline: 30,
            l2: 200,
            atomic: 20,
            launch: 32,
            barrier: 8,
        },
        // Assumed: 8 SMs, each one core issuing one warp instruction per cycle (the
        // four sub-partitions are not modelled); 32-byte sectors; 2 MiB L2.
        compute_units: 8,
        issue: issue(1, 8, 2),
        memory: MemorySystem {
            segment_bytes: 32,
            transaction_cycles: 1,
            l2_bytes: 2 * 1024 * 1024,
            l2_ways: 16,
            l2_bytes_per_cycle: 512,
            dram_bytes_per_cycle: 96,
            local_banks: 32,
            local_pass_cycles: 1,
        },
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
        latency: Latencies {
            alu: 4,
            sfu: 16,
            local: 30,
            device: 400,
            fpu: 4,
            mov: 4,
            wave: 8,
            control: 1,
            memory_pipeline: 30,
            l2: 150,
            atomic: 20,
            launch: 32,
            barrier: 8,
        },
        // Assumed: the M1's 8 GPU cores; 128-byte lines; 1 MiB L2; DRAM 64 bytes per cycle.
        compute_units: 8,
        issue: issue(1, 4, 2),
        memory: MemorySystem {
            segment_bytes: 128,
            transaction_cycles: 1,
            l2_bytes: 1024 * 1024,
            l2_ways: 16,
            l2_bytes_per_cycle: 512,
            dram_bytes_per_cycle: 64,
            local_banks: 32,
            local_pass_cycles: 1,
        },
    }
}
