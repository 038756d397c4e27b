//! Occupancy: resident waves per core, the minimum over every limit.
//! Registers are granule-rounded; all waves of a workgroup are resident together,
//! so whole workgroups are counted before waves (the GPUOpen large-group effect).

use super::Target;

/// Which resource bounds the occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Limiter {
    Registers,
    WaveSlots,
    LocalMemory,
    /// The workgroup has more threads than the target allows.
    WorkgroupTooLarge,
    /// The workgroup needs more local memory than one group may have.
    WorkgroupLocalMemory,
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limiter::Registers => "registers",
            Limiter::WaveSlots => "wave slots",
            Limiter::LocalMemory => "local memory",
            Limiter::WorkgroupTooLarge => "workgroup size",
            Limiter::WorkgroupLocalMemory => "local memory per workgroup",
        })
    }
}

/// What a kernel achieves on a target.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Occupancy {
    /// Registers per thread after granule rounding.
    pub allocated_registers: u32,
    /// Waves in one workgroup.
    pub waves_per_workgroup: u32,
    /// Workgroups resident on one compute unit.
    pub workgroups_per_cu: u32,
    /// Resident waves per core (the occupancy).
    pub waves_per_core: u32,
    /// The target's maximum waves per core.
    pub max_waves_per_core: u32,
    pub limiter: Limiter,
}

impl Occupancy {
    /// Occupancy as a percentage of the target's wave slots.
    pub fn percent(&self) -> u32 {
        (self.waves_per_core * 100).checked_div(self.max_waves_per_core).unwrap_or(0)
    }
}

fn align_up(x: u32, g: u32) -> u32 {
    x.div_ceil(g.max(1)) * g.max(1)
}

/// Register budget per thread for `target_waves` resident waves per core:
/// align_down(floor(F / (O * W * 4)), granule), capped at the target's maximum.
pub fn register_budget(t: &Target, target_waves: u32) -> u32 {
    let g = t.register_granule.max(1);
    let raw = t.register_file_bytes / (target_waves.max(1) * t.wave_width * 4);
    (raw / g * g).min(t.max_registers)
}

/// The most registers per thread at which a workgroup of `workgroup_threads`
/// threads and `local_bytes` of local memory reaches `target_waves` waves per
/// core, and the waves it then reaches. Workgroups are resident whole, so
/// waves come in steps of a workgroup's waves: 20 waves of 8-wave workgroups
/// means 24. Where no register count reaches the target (wave slots, local
/// memory), the budget of the most waves the workgroup reaches.
pub fn register_budget_for(t: &Target, target_waves: u32, workgroup_threads: u32, local_bytes: u32) -> (u32, u32) {
    let waves = |r: u32| occupancy(t, r, workgroup_threads, local_bytes).waves_per_core;
    let want = target_waves.min(waves(1)).max(1);
    let r = (1..=t.max_registers).rev().find(|&r| waves(r) >= want).unwrap_or(1);
    (r, waves(r))
}

/// Occupancy of a kernel using `registers` per thread, `workgroup_threads` threads
/// per group and `local_bytes` of local memory per group.
pub fn occupancy(t: &Target, registers: u32, workgroup_threads: u32, local_bytes: u32) -> Occupancy {
    let allocated = align_up(registers.max(1), t.register_granule);
    let wpwg = workgroup_threads.max(1).div_ceil(t.wave_width);
    let cores = t.cores_per_cu.max(1);
    let mut result = Occupancy {
        allocated_registers: allocated,
        waves_per_workgroup: wpwg,
        workgroups_per_cu: 0,
        waves_per_core: 0,
        max_waves_per_core: t.max_waves_per_core,
        limiter: Limiter::WorkgroupTooLarge,
    };
    if workgroup_threads > t.max_workgroup_size {
        return result;
    }
    if local_bytes > t.local_memory_per_workgroup {
        result.limiter = Limiter::WorkgroupLocalMemory;
        return result;
    }
    // Workgroups one CU holds if each core can take `per_core` waves.
    let groups_for = |per_core: u32| -> u32 {
        if wpwg >= cores {
            per_core / wpwg.div_ceil(cores)
        } else {
            per_core * (cores / wpwg)
        }
    };
    // Waves per core the register file alone would allow (not capped by wave slots).
    let by_regs = groups_for(t.register_file_bytes / (allocated * t.wave_width * 4));
    let by_slots = groups_for(t.max_waves_per_core);
    let by_lds = t.local_memory_per_cu.checked_div(local_bytes).unwrap_or(u32::MAX);
    // On a tie the hard limits come first: fewer registers would not help then.
    let (groups, limiter) = [(by_slots, Limiter::WaveSlots), (by_lds, Limiter::LocalMemory), (by_regs, Limiter::Registers)]
        .into_iter()
        .min_by_key(|&(g, _)| g)
        .unwrap_or((0, Limiter::Registers));
    result.workgroups_per_cu = groups;
    result.waves_per_core = (groups * wpwg / cores).min(t.max_waves_per_core);
    result.limiter = limiter;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::preset;

    #[test]
    fn budgets_reach_whole_workgroups() {
        let generic = preset("generic").unwrap();
        // 256 threads are 8 waves of 32: 20 waves per core is not a step; 24 is the next.
        let (r, waves) = register_budget_for(&generic, 20, 256, 0);
        assert_eq!(waves, occupancy(&generic, r, 256, 0).waves_per_core);
        assert!(waves >= 20 && waves % 8 == 0, "{waves}");
        assert!(occupancy(&generic, r + 1, 256, 0).waves_per_core < waves, "{r} is the most registers for {waves} waves");
        assert!(r < register_budget(&generic, 20), "the plain budget for 20 waves gives only 16 here");
        assert!(occupancy(&generic, register_budget(&generic, 20), 256, 0).waves_per_core < 20);
        // A one-wave workgroup reaches any count: the plain budget.
        assert_eq!(register_budget_for(&generic, 20, 32, 0).0, register_budget(&generic, 20));
        // Beyond the wave slots: the budget of the most the workgroup reaches.
        let (r, waves) = register_budget_for(&generic, 1000, 256, 0);
        assert_eq!((waves, r), (occupancy(&generic, 1, 256, 0).waves_per_core, register_budget_for(&generic, waves, 256, 0).0));
    }

    #[test]
    fn gpuopen_large_groups_on_gcn() {
        let gcn = preset("gcn").unwrap();
        // 1024 threads at 40 VGPRs: one group per CU, 4 waves per SIMD = 40%.
        let o = occupancy(&gcn, 40, 1024, 0);
        assert_eq!((o.workgroups_per_cu, o.waves_per_core, o.percent()), (1, 4, 40));
        assert_eq!(o.limiter, Limiter::Registers);
        // Few registers: the 10 wave slots per SIMD are the limit.
        assert_eq!(occupancy(&gcn, 8, 64, 0).limiter, Limiter::WaveSlots);
        assert_eq!(occupancy(&gcn, 8, 64, 0).waves_per_core, 10);
        // At 32 VGPRs two groups fit: 8 waves per SIMD.
        let o = occupancy(&gcn, 32, 1024, 0);
        assert_eq!((o.workgroups_per_cu, o.waves_per_core), (2, 8));
        // 48 VGPRs (the article's original shader) also gives one group.
        assert_eq!(occupancy(&gcn, 48, 1024, 0).workgroups_per_cu, 1);
        // Two groups of 1024 with 32 KiB LDS each still fit in 64 KiB.
        assert_eq!(occupancy(&gcn, 32, 1024, 32 * 1024).workgroups_per_cu, 2);
    }

    #[test]
    fn gcn_32_registers_give_8_waves_for_small_groups() {
        let gcn = preset("gcn").unwrap();
        assert_eq!(occupancy(&gcn, 32, 64, 0).waves_per_core, 8);
        assert_eq!(occupancy(&gcn, 32, 256, 0).waves_per_core, 8);
        assert_eq!(register_budget(&gcn, 8), 32);
        // Granule rounding: 33 registers allocate 36.
        assert_eq!(occupancy(&gcn, 33, 64, 0).allocated_registers, 36);
    }

    #[test]
    fn wave_guide_example_on_generic() {
        let g = preset("generic").unwrap();
        // 16384 registers, 16 per thread, W=32: 32 waves; 32 per thread: 16 waves.
        assert_eq!(occupancy(&g, 16, 32, 0).waves_per_core, 32);
        assert_eq!(occupancy(&g, 32, 32, 0).waves_per_core, 16);
        assert_eq!(register_budget(&g, 8), 64);
    }

    #[test]
    fn wave_notes_vendor_figures() {
        // Ampere: 255 registers -> 8 warps (floor(262144 / (255*32*4)) = 8), rounded to 256 -> 8.
        assert_eq!(occupancy(&preset("nvidia").unwrap(), 255, 32, 0).waves_per_core, 8);
        assert_eq!(occupancy(&preset("nvidia").unwrap(), 32, 32, 0).waves_per_core, 64);
        assert_eq!(occupancy(&preset("rdna").unwrap(), 256, 64, 0).waves_per_core, 8);
        assert_eq!(occupancy(&preset("apple").unwrap(), 128, 32, 0).waves_per_core, 13);
    }

    #[test]
    fn oversized_groups_have_no_occupancy() {
        let g = preset("generic").unwrap();
        assert_eq!(occupancy(&g, 8, 2048, 0).waves_per_core, 0);
        assert_eq!(occupancy(&g, 8, 2048, 0).limiter, Limiter::WorkgroupTooLarge);
        // Too much local memory is named as such (W0401 blamed the workgroup size).
        let o = occupancy(&g, 8, 64, 1 << 20);
        assert_eq!((o.waves_per_core, o.limiter), (0, Limiter::WorkgroupLocalMemory));
        assert_eq!(o.limiter.to_string(), "local memory per workgroup");
    }
}
