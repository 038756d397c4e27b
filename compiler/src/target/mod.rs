//! Machine models (targets are data) and the occupancy calculation.

mod occupancy;
mod presets;

pub use occupancy::{occupancy, register_budget, Limiter, Occupancy};
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
}

/// Result latencies in cycles, used by the scheduler and the simulator's cycle estimate.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Latencies {
    pub alu: u32,
    pub sfu: u32,
    pub local: u32,
    pub device: u32,
}

impl Target {
    /// Registers per core (F / 4 bytes / W lanes), i.e. the per-lane register file.
    pub fn registers_per_lane(&self) -> u32 {
        self.register_file_bytes / (4 * self.wave_width)
    }
}
