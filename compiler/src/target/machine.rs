//! The simulator's view of a target: `wavesim::Machine` filled from the machine
//! model, so every latency, size and rate the cycle model uses comes from here.

use super::Target;

impl Target {
    /// The machine the simulator times, with `compute_units` compute units
    /// (the target's own count when None).
    pub fn machine(&self, compute_units: Option<u32>) -> wavesim::Machine {
        let l = &self.latency;
        let i = &self.issue;
        let m = &self.memory;
        wavesim::Machine {
            compute_units: compute_units.unwrap_or(self.compute_units),
            cores_per_cu: self.cores_per_cu,
            max_waves_per_core: self.max_waves_per_core,
            register_file_bytes: self.register_file_bytes,
            register_granule: self.register_granule,
            local_memory_per_cu: self.local_memory_per_cu,
            issue: wavesim::ClassCycles {
                alu: i.alu,
                fpu: i.fpu,
                sfu: i.sfu,
                memory: i.memory,
                atomic: i.atomic,
                wave: i.wave,
                control: i.control,
                sync: i.sync,
                mov: i.mov,
            },
            latency: wavesim::ClassCycles {
                alu: l.alu,
                fpu: l.fpu,
                sfu: l.sfu,
                memory: l.memory_pipeline,
                atomic: l.atomic,
                wave: l.wave,
                control: l.control,
                sync: l.control,
                mov: l.mov,
            },
            memory: wavesim::MemoryTiming {
                segment_bytes: m.segment_bytes,
                transaction_cycles: m.transaction_cycles,
                l2_bytes: m.l2_bytes,
                l2_ways: m.l2_ways,
                l2_latency: l.l2,
                l2_bytes_per_cycle: m.l2_bytes_per_cycle,
                dram_latency: l.device,
                dram_bytes_per_cycle: m.dram_bytes_per_cycle,
                local_banks: m.local_banks,
                local_latency: l.local,
                local_pass_cycles: m.local_pass_cycles,
            },
            launch_cycles: l.launch,
            barrier_cycles: l.barrier,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::target::{occupancy, presets};

    #[test]
    fn every_preset_is_a_valid_machine() {
        for t in presets() {
            let m = t.machine(None);
            assert_eq!(m.validate(), Ok(()), "{}", t.name);
            assert_eq!(m.compute_units, t.compute_units);
            assert_eq!(t.machine(Some(3)).compute_units, 3);
            // The text form the `wavesim` command reads round-trips.
            assert_eq!(wavesim::Machine::parse(&m.to_string()), Ok(m));
        }
    }

    /// The simulator admits workgroups exactly as the occupancy calculator counts them.
    #[test]
    fn simulator_admission_matches_the_occupancy_calculator() {
        for t in presets() {
            for regs in [1, 8, 16, 24, 32, 33, 40, 48, 64, 100, 128, 200, 256] {
                for threads in [32, 64, 96, 128, 192, 256, 320, 512, 1024] {
                    for local in [0, 1024, 8192, 16 * 1024, 32 * 1024] {
                        let o = occupancy(&t, regs, threads, local);
                        if o.waves_per_core == 0 {
                            continue;
                        }
                        let (groups, waves) = admission(&t, regs, threads, local);
                        assert_eq!(
                            (groups, waves),
                            (o.workgroups_per_cu, o.waves_per_core),
                            "{} regs {regs} threads {threads} local {local}",
                            t.name
                        );
                    }
                }
            }
        }
    }

    /// (groups per compute unit, waves per core) the simulator reports for a kernel.
    fn admission(t: &crate::target::Target, regs: u32, threads: u32, local: u32) -> (u32, u32) {
        let src = format!(".kernel k\n.registers {regs}\n.workgroup_size {threads}, 1, 1\n.local_memory {local}\n    halt\n.end\n");
        let prog = wavesim::parse(&src, wavesim::Profile::Spec04).expect("parses");
        let cfg = wavesim::SimConfig {
            wave_width: t.wave_width,
            profile: wavesim::Profile::Spec04,
            max_instructions: 0,
            local_memory_limit: 1 << 20,
            timing: true,
            machine: t.machine(Some(1)),
            registers_for_occupancy: None,
            strict: false,
            threads: 1,
            wide_waves: true,
            full_wave_ops: false,
        };
        let launch = wavesim::Launch { grid: [1, 1, 1], workgroup_size: [1, 1, 1], args: vec![] };
        let st = wavesim::run(&prog.kernels[0], &cfg, &launch, &mut wavesim::Memory::new(4)).expect("runs");
        let r = st.timing.expect("timed");
        (r.groups_per_cu, r.waves_per_core)
    }
}
