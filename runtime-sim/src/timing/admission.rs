//! Workgroup admission: how many workgroups of a kernel one compute unit holds,
//! counted exactly as the compiler's occupancy calculator counts them, and where
//! a group's waves go.
//!
//! A core holds `min(wave slots, register file / (allocated registers x W x 4))`
//! waves. All waves of a group are resident together on one compute unit: a
//! group of `n >= cores` waves takes `ceil(n / cores)` waves' room on every core
//! (wave `i` runs on core `i % cores`); a smaller group takes one wave's room on
//! `n` cores of one "lane" of `n` consecutive cores, and a compute unit has
//! `cores / n` lanes. Local memory is counted per group against the compute unit's.

use crate::Machine;

/// How the workgroups of one kernel fit a compute unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fit {
    pub cores: u32,
    /// Waves per workgroup.
    pub waves: u32,
    /// Registers per thread after granule rounding.
    pub allocated: u32,
    /// Groups one compute unit holds at once (0: the group does not fit at all).
    pub groups_per_cu: u32,
    /// Waves per core with `groups_per_cu` groups resident.
    pub waves_per_core: u32,
    pub limiter: &'static str,
}

impl Fit {
    pub fn new(m: &Machine, registers: u32, wave_width: u32, waves: u32, local_bytes: u32) -> Fit {
        let cores = m.cores_per_cu.max(1);
        let waves = waves.max(1);
        let allocated = m.allocated_registers(registers);
        let groups_for = |per_core: u64| -> u64 {
            if waves >= cores {
                per_core / waves.div_ceil(cores) as u64
            } else {
                per_core * (cores / waves) as u64
            }
        };
        let by_regs = groups_for(m.register_file_bytes as u64 / (allocated as u64 * wave_width.max(1) as u64 * 4));
        let by_slots = groups_for(m.max_waves_per_core as u64);
        let by_local = m.local_memory_per_cu.checked_div(local_bytes).map(u64::from).unwrap_or(u64::MAX);
        // On a tie the hard limits are named first (as the occupancy calculator does).
        let (groups, limiter) = [(by_slots, "wave slots"), (by_local, "local memory"), (by_regs, "registers")]
            .into_iter()
            .min_by_key(|&(g, _)| g)
            .unwrap_or((0, "registers"));
        let groups = groups.min(u32::MAX as u64) as u32;
        let waves_per_core = ((groups as u64 * waves as u64 / cores as u64) as u32).min(m.max_waves_per_core);
        Fit { cores, waves, allocated, groups_per_cu: groups, waves_per_core, limiter }
    }

    /// Groups one lane of cores holds (`waves < cores`), or the compute unit (otherwise).
    fn lanes(&self) -> u32 {
        if self.waves >= self.cores {
            1
        } else {
            self.cores / self.waves
        }
    }

    /// The core of wave `i` of a group placed in `lane`.
    #[cfg(test)]
    pub fn core_of(&self, lane: u32, i: u32) -> u32 {
        if self.waves >= self.cores {
            i % self.cores
        } else {
            lane * self.waves + i
        }
    }

    /// The cores of a group's waves in wave order, for a group placed in `lane`
    /// (as `core_of`, counted along: no division per wave, as this runs for every
    /// admitted group).
    pub fn wave_cores(&self, lane: u32) -> impl Iterator<Item = u32> {
        let (cores, waves) = (self.cores, self.waves);
        let spread = waves >= cores;
        (0..).scan(0, move |next, i| {
            if !spread {
                return Some(lane * waves + i);
            }
            let core = *next;
            *next = if core + 1 == cores { 0 } else { core + 1 };
            Some(core)
        })
    }
}

/// The groups resident on one compute unit.
#[derive(Clone, Debug, Default)]
pub(crate) struct CuSlots {
    pub groups: u32,
    lane_groups: Vec<u32>,
}

impl CuSlots {
    /// Take room for one group; the lane it goes to, or None when the unit is full.
    pub fn place(&mut self, fit: &Fit) -> Option<u32> {
        if self.groups >= fit.groups_per_cu {
            return None;
        }
        if self.lane_groups.is_empty() {
            self.lane_groups = vec![0; fit.lanes() as usize];
        }
        // The least used lane, lowest first on a tie.
        let (lane, _) = self.lane_groups.iter().enumerate().min_by_key(|&(i, &g)| (g, i))?;
        self.lane_groups[lane] += 1;
        self.groups += 1;
        Some(lane as u32)
    }

    pub fn release(&mut self, lane: u32) {
        self.groups -= 1;
        self.lane_groups[lane as usize] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{ClassCycles, MemoryTiming};

    fn gcn() -> Machine {
        Machine {
            compute_units: 1,
            cores_per_cu: 4,
            max_waves_per_core: 10,
            register_file_bytes: 65536,
            register_granule: 4,
            local_memory_per_cu: 65536,
            issue: ClassCycles::default(),
            latency: ClassCycles::default(),
            memory: MemoryTiming::default(),
            launch_cycles: 0,
            barrier_cycles: 0,
        }
    }

    #[test]
    fn gpuopen_figures() {
        // 1024 threads (16 waves of 64) at 40 registers: one group, 4 waves per SIMD.
        let f = Fit::new(&gcn(), 40, 64, 16, 0);
        assert_eq!((f.groups_per_cu, f.waves_per_core, f.limiter), (1, 4, "registers"));
        let f = Fit::new(&gcn(), 32, 64, 16, 32 * 1024);
        assert_eq!((f.groups_per_cu, f.waves_per_core), (2, 8));
        let f = Fit::new(&gcn(), 8, 64, 1, 0);
        assert_eq!((f.groups_per_cu, f.waves_per_core, f.limiter), (40, 10, "wave slots"));
        let f = Fit::new(&gcn(), 8, 64, 1, 16 * 1024);
        assert_eq!((f.groups_per_cu, f.limiter), (4, "local memory"));
    }

    #[test]
    fn placement_uses_lanes_of_cores() {
        // Two-wave groups on four cores: two lanes of two cores.
        let f = Fit::new(&gcn(), 128, 64, 2, 0);
        assert_eq!(f.groups_per_cu, 4); // 2 waves per core by registers x 2 lanes
        let mut cu = CuSlots::default();
        let lanes: Vec<u32> = (0..4).map(|_| cu.place(&f).unwrap()).collect();
        assert_eq!(lanes, vec![0, 1, 0, 1]);
        assert_eq!(cu.place(&f), None);
        assert_eq!((f.core_of(1, 0), f.core_of(1, 1)), (2, 3));
        // Counted along as `core_of` gives them, for small and large groups.
        for g in [Fit::new(&gcn(), 128, 64, 2, 0), Fit::new(&gcn(), 32, 64, 7, 0), Fit::new(&gcn(), 32, 64, 1, 0)] {
            for lane in 0..g.lanes() {
                let counted: Vec<u32> = g.wave_cores(lane).take(g.waves as usize).collect();
                let want: Vec<u32> = (0..g.waves).map(|i| g.core_of(lane, i)).collect();
                assert_eq!(counted, want);
            }
        }
        cu.release(0);
        assert_eq!(cu.place(&f), Some(0));
        // A group too big for the unit does not fit at all.
        assert_eq!(Fit::new(&gcn(), 256, 64, 16, 0).groups_per_cu, 0);
    }
}
