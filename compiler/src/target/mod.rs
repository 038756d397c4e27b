//! Machine models (targets are data) and the occupancy calculation.

mod machine;
mod occupancy;
mod presets;

pub use occupancy::{occupancy, register_budget, register_budget_for, Limiter, Occupancy};
pub use presets::{preset, presets};

/// One GPU model. "Core" is the unit that owns a register file and schedules
/// waves (a SIMD on GCN, an SM on NVIDIA); a compute unit holds `cores_per_cu`
/// of them and shares local memory between them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    pub name: &'static str,
    pub description: &'static str,
    /// Lanes per wave (W).
    pub wave_width: u32,
    /// Register file bytes per core (F).
    pub register_file_bytes: u32,
    /// Registers are allocated per thread in multiples of this.
    pub register_granule: u32,
    /// Most registers one thread may use.
    pub max_registers: u32,
    /// Most waves resident on one core.
    pub max_waves_per_core: u32,
    pub cores_per_cu: u32,
    /// Local (groupshared) memory per compute unit, bytes.
    pub local_memory_per_cu: u32,
    /// Local memory one workgroup may use, bytes.
    pub local_memory_per_workgroup: u32,
    /// Most threads in one workgroup.
    pub max_workgroup_size: u32,
    /// Scalar (wave-uniform) registers per wave, if the target has a scalar file.
    pub scalar_registers: Option<u32>,
    pub latency: Latencies,
    /// Compute units of the modelled part: the simulator's default (`wavec run --compute-units`).
    pub compute_units: u32,
    /// Cycles a core is busy issuing one instruction of each class.
    pub issue: IssueCosts,
    pub memory: MemorySystem,
}

/// Latencies in cycles, used by the scheduler and the simulator's cycle model.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Latencies {
    /// Integer ALU, compares, selects, conversions.
    pub alu: u32,
    /// Transcendentals and divides.
    pub sfu: u32,
    /// A local-memory load once its passes are done.
    pub local: u32,
    /// DRAM: a line that missed the L2, from leaving the L2 until it is back.
    pub device: u32,
    /// Float arithmetic.
    pub fpu: u32,
    /// Moves (also of immediates and special registers).
    pub mov: u32,
    /// Cross-lane operations.
    pub wave: u32,
    /// Control flow and synchronization instructions (ready for the next one).
    pub control: u32,
    /// A device request's trip through the compute unit's memory pipeline to the L2.
    pub memory_pipeline: u32,
    /// An L2 hit.
    pub l2: u32,
    /// Extra cycles of an atomic operation (device or local).
    pub atomic: u32,
    /// From admitting a workgroup until its waves start.
    pub launch: u32,
    /// From the last wave reaching a barrier until the group goes on.
    pub barrier: u32,
}

/// Cycles a core is busy issuing one instruction of each class (a W-lane wave on
/// narrower SIMD lanes takes several cycles).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct IssueCosts {
    pub alu: u32,
    pub fpu: u32,
    pub sfu: u32,
    pub mov: u32,
    pub wave: u32,
    pub control: u32,
    pub sync: u32,
    pub memory: u32,
    pub atomic: u32,
}

/// The memory system the simulator times.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MemorySystem {
    /// Bytes of one device transaction and L2 line (the coalescing unit).
    pub segment_bytes: u32,
    /// Cycles a compute unit's memory pipeline spends per transaction.
    pub transaction_cycles: u32,
    pub l2_bytes: u32,
    pub l2_ways: u32,
    /// L2 bandwidth, all compute units together.
    pub l2_bytes_per_cycle: u32,
    pub dram_bytes_per_cycle: u32,
    /// Local-memory banks (4 bytes wide).
    pub local_banks: u32,
    /// Cycles per local-memory pass (one word per bank).
    pub local_pass_cycles: u32,
}

impl Target {
    /// Registers per core (F / 4 bytes / W lanes), i.e. the per-lane register file.
    pub fn registers_per_lane(&self) -> u32 {
        self.register_file_bytes / (4 * self.wave_width)
    }
}
