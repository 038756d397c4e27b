//! What the cycle model reports ([`TimingReport`]): cycles, what the cores did,
//! why waves waited, occupancy over time, the memory system's counters, figures
//! per instruction and a timeline of the waves of compute unit 0.

/// Core-cycles (summed over every core of every compute unit) by what the core did.
/// `issue + memory + dependency + barrier + idle` = cycles x cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreCycles {
    /// Busy issuing an instruction (its issue cost).
    pub issue: u64,
    /// No wave could issue; the first to become ready waited for a memory result.
    pub memory: u64,
    /// No wave could issue; the first to become ready waited for an ALU/SFU/wave-op result.
    pub dependency: u64,
    /// Every resident wave of the core waited at a barrier (or for the barrier's release).
    pub barrier: u64,
    /// No wave resident (or one just admitted and not yet started).
    pub idle: u64,
}

impl CoreCycles {
    pub fn total(&self) -> u64 {
        self.issue + self.memory + self.dependency + self.barrier + self.idle
    }
}

/// Cycles waves spent waiting before an instruction could issue, by cause (summed over waves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    /// Waiting for a device or local memory result (a load or atomic).
    pub memory: u64,
    /// Waiting for the result of an ALU, SFU, move or wave instruction.
    pub dependency: u64,
    /// Waiting at a barrier for the rest of the group.
    pub barrier: u64,
    /// Ready, but the core was busy with another wave's instruction.
    pub issue: u64,
}

impl Stalls {
    pub fn total(&self) -> u64 {
        self.memory + self.dependency + self.barrier + self.issue
    }
    pub(crate) fn add(&mut self, o: &Stalls) {
        self.memory += o.memory;
        self.dependency += o.dependency;
        self.barrier += o.barrier;
        self.issue += o.issue;
    }
}

/// Memory-system counters. Transactions are counted per wave instruction: one
/// per distinct segment its active lanes touch (atomics: one per active lane).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryCounters {
    pub device_load_instructions: u64,
    pub device_store_instructions: u64,
    pub device_atomic_instructions: u64,
    pub load_transactions: u64,
    pub store_transactions: u64,
    pub atomic_transactions: u64,
    /// Transactions the loads and stores would need if every access were perfectly
    /// coalesced (distinct addresses x bytes / segment, rounded up, per instruction).
    pub ideal_transactions: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    /// Cycles DRAM spent moving lines (at its bandwidth): over the run's cycles, its utilization.
    pub dram_busy_cycles: u64,
    /// Cycles the L2 spent serving transactions (at its bandwidth).
    pub l2_busy_cycles: u64,
    pub local_instructions: u64,
    /// Passes local-memory accesses took (one pass serves one word per bank).
    pub local_passes: u64,
    /// Passes beyond the conflict-free minimum.
    pub bank_conflict_passes: u64,
}

impl MemoryCounters {
    /// L2 hits per access in parts per thousand (None without accesses).
    pub fn l2_hit_permille(&self) -> Option<u64> {
        let n = self.l2_hits + self.l2_misses;
        (n > 0).then(|| (self.l2_hits * 1000 + n / 2) / n)
    }
}

/// Figures for one instruction of the kernel (summed over waves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcTiming {
    /// Times a wave issued it.
    pub issued: u64,
    /// Core cycles spent issuing it.
    pub issue_cycles: u64,
    /// Cycles waves waited before issuing it (for a barrier: waiting for the group).
    pub stalls: Stalls,
}

/// What a wave is doing during a timeline segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveState {
    Issue,
    /// Ready, waiting for the core (another wave issues).
    Ready,
    Memory,
    Dependency,
    Barrier,
}

impl WaveState {
    pub fn name(self) -> &'static str {
        match self {
            WaveState::Issue => "issue",
            WaveState::Ready => "ready",
            WaveState::Memory => "memory",
            WaveState::Dependency => "dependency",
            WaveState::Barrier => "barrier",
        }
    }
}

/// A stretch of time a wave spent in one state, on one timeline row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub row: u32,
    pub start: u64,
    pub end: u64,
    pub state: WaveState,
    /// Dispatch index of the wave's workgroup (x fastest).
    pub group: u64,
}

/// The waves of compute unit 0 over time: one row per wave slot (core, slot).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    pub cores: u32,
    pub slots_per_core: u32,
    pub segments: Vec<Segment>,
    /// Recording stopped at the segment limit.
    pub truncated: bool,
}

/// Resident waves (all compute units) from `start` until the next point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OccupancyPoint {
    pub start: u64,
    pub waves: u32,
}

/// The cycle model's account of one dispatch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimingReport {
    pub cycles: u64,
    pub compute_units: u32,
    pub cores_per_cu: u32,
    /// Workgroups one compute unit holds at once (registers, wave slots, local memory).
    pub groups_per_cu: u32,
    /// Waves per core when a compute unit holds `groups_per_cu` groups (the occupancy).
    pub waves_per_core: u32,
    /// Which resource sets `groups_per_cu`: "registers", "wave slots" or "local memory".
    pub limiter: &'static str,
    /// Registers per thread the admission counted (after granule rounding).
    pub allocated_registers: u32,
    pub core_cycles: CoreCycles,
    pub stalls: Stalls,
    /// Sum over cycles of resident waves, all cores: divided by cycles x cores it is
    /// the achieved occupancy in waves per core.
    pub resident_wave_cycles: u64,
    /// Resident waves over time (a step function).
    pub occupancy: Vec<OccupancyPoint>,
    pub memory: MemoryCounters,
    /// Indexed by instruction (kernel pc).
    pub per_pc: Vec<PcTiming>,
    pub timeline: Timeline,
}

impl TimingReport {
    /// Average resident waves per core over the run, in thousandths.
    pub fn achieved_waves_per_core_milli(&self) -> u64 {
        let cores = self.compute_units as u64 * self.cores_per_cu as u64;
        let denom = self.cycles * cores;
        (self.resident_wave_cycles * 1000 + denom / 2).checked_div(denom).unwrap_or(0)
    }

    /// Average resident waves per core in each of `n` equal time buckets.
    pub fn occupancy_buckets(&self, n: usize) -> Vec<f64> {
        let cores = (self.compute_units as u64 * self.cores_per_cu as u64).max(1) as f64;
        let (cycles, n64) = (self.cycles as u128, n as u128);
        if cycles == 0 || n == 0 {
            return vec![0.0; n];
        }
        // Bucket k covers cycles [k * cycles / n, (k + 1) * cycles / n).
        let edge = |k: u128| (k * cycles / n64) as u64;
        let mut sums = vec![0u128; n];
        for (i, p) in self.occupancy.iter().enumerate() {
            let end = self.occupancy.get(i + 1).map(|q| q.start).unwrap_or(self.cycles).min(self.cycles);
            let mut a = p.start.min(end);
            while a < end {
                let k = ((a as u128 * n64 / cycles) as usize).min(n - 1);
                let stop = edge(k as u128 + 1).clamp(a + 1, end);
                sums[k] += p.waves as u128 * (stop - a) as u128;
                a = stop;
            }
        }
        sums.iter()
            .enumerate()
            .map(|(k, &s)| {
                let width = (edge(k as u128 + 1) - edge(k as u128)).max(1);
                s as f64 / width as f64 / cores
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_average_a_step_function() {
        let r = TimingReport {
            cycles: 100,
            compute_units: 1,
            cores_per_cu: 2,
            occupancy: vec![
                OccupancyPoint { start: 0, waves: 4 },
                OccupancyPoint { start: 50, waves: 2 },
                OccupancyPoint { start: 75, waves: 0 },
            ],
            resident_wave_cycles: 4 * 50 + 2 * 25,
            ..TimingReport::default()
        };
        assert_eq!(r.occupancy_buckets(4), vec![2.0, 2.0, 1.0, 0.0]);
        // Buckets that do not fall on whole cycles, and a step on a bucket's edge.
        let b = r.occupancy_buckets(3);
        assert_eq!(b.len(), 3);
        let total: f64 = b.iter().zip([33.0, 33.0, 34.0]).map(|(v, w)| v * w).sum();
        assert!((total - 250.0 / 2.0).abs() < 1e-9, "{b:?}");
        assert_eq!(r.occupancy_buckets(100)[49], 2.0);
        assert_eq!(r.occupancy_buckets(100)[50], 1.0);
        assert_eq!(r.achieved_waves_per_core_milli(), 1250);
    }

    #[test]
    fn hit_rate() {
        let m = MemoryCounters { l2_hits: 2, l2_misses: 1, ..MemoryCounters::default() };
        assert_eq!(m.l2_hit_permille(), Some(667));
        assert_eq!(MemoryCounters::default().l2_hit_permille(), None);
    }
}
