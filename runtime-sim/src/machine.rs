//! The timing parameters of a simulated GPU.
//!
//! The simulator has no numbers of its own: every latency, size and rate of the
//! cycle model lives in a [`Machine`], which the compiler fills from its target
//! presets (`wavec::target`) and the `wavesim` command reads from a text file
//! ([`Machine::parse`], one `key = value` per line, as [`Machine`]'s `Display`
//! writes it).

use crate::isa::Category;

/// Cycles per instruction category (the categories of [`crate::Stats::by_category`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCycles {
    pub alu: u32,
    pub fpu: u32,
    pub sfu: u32,
    /// Loads and stores (device and local).
    pub memory: u32,
    pub atomic: u32,
    /// Cross-lane operations (shuffles, reductions, ballots, ...).
    pub wave: u32,
    /// Structured control flow, calls, `halt`, `nop`.
    pub control: u32,
    /// Barriers, fences, `wait`.
    pub sync: u32,
    /// `mov`, `mov_imm`, `mov_sr`.
    pub mov: u32,
}

impl ClassCycles {
    pub fn get(&self, c: Category) -> u32 {
        match c {
            Category::Alu => self.alu,
            Category::Fpu => self.fpu,
            Category::Sfu => self.sfu,
            Category::Memory => self.memory,
            Category::Atomic => self.atomic,
            Category::Wave => self.wave,
            Category::Control => self.control,
            Category::Sync => self.sync,
            Category::Move => self.mov,
        }
    }
}

/// The memory system: coalescing, the shared L2, DRAM and local memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryTiming {
    /// Bytes of one device-memory transaction, also the L2 line: a wave's access
    /// costs one transaction per distinct aligned segment its lanes touch.
    pub segment_bytes: u32,
    /// Cycles a compute unit's memory pipeline spends on one transaction.
    pub transaction_cycles: u32,
    /// L2 capacity in bytes (shared by every compute unit).
    pub l2_bytes: u32,
    /// L2 associativity (ways per set; lines are replaced least-recently-used first).
    pub l2_ways: u32,
    /// Cycles from a transaction reaching the L2 until a hit returns.
    pub l2_latency: u32,
    /// L2 bandwidth, bytes per cycle for all compute units together.
    pub l2_bytes_per_cycle: u32,
    /// Cycles from a miss leaving the L2 until DRAM returns the line.
    pub dram_latency: u32,
    /// DRAM bandwidth in bytes per cycle (reads of missing lines and write-backs of dirty ones).
    pub dram_bytes_per_cycle: u32,
    /// Local-memory banks, each 4 bytes wide.
    pub local_banks: u32,
    /// Cycles from a local access leaving the pipeline until its result is usable.
    pub local_latency: u32,
    /// Cycles per local-memory pass (one pass serves one word per bank; a bank conflict adds passes).
    pub local_pass_cycles: u32,
}

/// A GPU as the cycle model sees it.
///
/// A compute unit (CU) holds `cores_per_cu` cores (SIMDs), each with its own
/// register file and wave slots; its cores share local memory and one memory
/// pipeline. Every compute unit shares the L2 and DRAM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    pub compute_units: u32,
    pub cores_per_cu: u32,
    /// Wave slots per core.
    pub max_waves_per_core: u32,
    /// Register file bytes per core.
    pub register_file_bytes: u32,
    /// Registers are allocated per thread in multiples of this.
    pub register_granule: u32,
    pub local_memory_per_cu: u32,
    /// Cycles a core is busy issuing one instruction of each category.
    pub issue: ClassCycles,
    /// Cycles from issue until the result of an instruction can be read. For
    /// `memory` and `atomic` this is the compute unit's pipeline latency before a
    /// request reaches the L2 (or, for `atomic`, the extra cycles of the atomic
    /// operation itself); the caches and DRAM add theirs (`memory`).
    pub latency: ClassCycles,
    pub memory: MemoryTiming,
    /// Cycles from admitting a workgroup until its waves may issue.
    pub launch_cycles: u32,
    /// Cycles from the last wave reaching a barrier until the group's waves may issue again.
    pub barrier_cycles: u32,
}

/// Calls `$m!(key, field path)` for every parameter, in the order they are written.
macro_rules! machine_fields {
    ($m:ident) => {
        $m!("compute_units", compute_units);
        $m!("cores_per_cu", cores_per_cu);
        $m!("max_waves_per_core", max_waves_per_core);
        $m!("register_file_bytes", register_file_bytes);
        $m!("register_granule", register_granule);
        $m!("local_memory_per_cu", local_memory_per_cu);
        $m!("launch_cycles", launch_cycles);
        $m!("barrier_cycles", barrier_cycles);
        $m!("issue.alu", issue.alu);
        $m!("issue.fpu", issue.fpu);
        $m!("issue.sfu", issue.sfu);
        $m!("issue.memory", issue.memory);
        $m!("issue.atomic", issue.atomic);
        $m!("issue.wave", issue.wave);
        $m!("issue.control", issue.control);
        $m!("issue.sync", issue.sync);
        $m!("issue.mov", issue.mov);
        $m!("latency.alu", latency.alu);
        $m!("latency.fpu", latency.fpu);
        $m!("latency.sfu", latency.sfu);
        $m!("latency.memory", latency.memory);
        $m!("latency.atomic", latency.atomic);
        $m!("latency.wave", latency.wave);
        $m!("latency.control", latency.control);
        $m!("latency.sync", latency.sync);
        $m!("latency.mov", latency.mov);
        $m!("memory.segment_bytes", memory.segment_bytes);
        $m!("memory.transaction_cycles", memory.transaction_cycles);
        $m!("memory.l2_bytes", memory.l2_bytes);
        $m!("memory.l2_ways", memory.l2_ways);
        $m!("memory.l2_latency", memory.l2_latency);
        $m!("memory.l2_bytes_per_cycle", memory.l2_bytes_per_cycle);
        $m!("memory.dram_latency", memory.dram_latency);
        $m!("memory.dram_bytes_per_cycle", memory.dram_bytes_per_cycle);
        $m!("memory.local_banks", memory.local_banks);
        $m!("memory.local_latency", memory.local_latency);
        $m!("memory.local_pass_cycles", memory.local_pass_cycles);
    };
}

impl Machine {
    /// Checks the parameters the model divides by or sizes tables with.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("compute_units", self.compute_units),
            ("cores_per_cu", self.cores_per_cu),
            ("max_waves_per_core", self.max_waves_per_core),
            ("register_file_bytes", self.register_file_bytes),
            ("register_granule", self.register_granule),
            ("memory.segment_bytes", self.memory.segment_bytes),
            ("memory.l2_ways", self.memory.l2_ways),
            ("memory.l2_bytes_per_cycle", self.memory.l2_bytes_per_cycle),
            ("memory.dram_bytes_per_cycle", self.memory.dram_bytes_per_cycle),
            ("memory.local_banks", self.memory.local_banks),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(format!("machine parameter `{name}` must be at least 1"));
            }
        }
        let m = &self.memory;
        if !m.segment_bytes.is_power_of_two() || m.segment_bytes < 4 {
            return Err(format!("`memory.segment_bytes` must be a power of two of at least 4, not {}", m.segment_bytes));
        }
        let set_bytes = m.segment_bytes as u64 * m.l2_ways as u64;
        if m.l2_bytes == 0 || m.l2_bytes as u64 % set_bytes != 0 {
            return Err(format!("`memory.l2_bytes` ({}) must be a non-zero multiple of segment_bytes x l2_ways ({set_bytes})", m.l2_bytes));
        }
        if self.compute_units > 4096 || self.cores_per_cu > 64 || self.max_waves_per_core > 64 || m.local_banks > 1024 || m.l2_ways > 64 {
            return Err(
                "machine too large for the simulator (at most 4096 compute units of 64 cores, 64 waves per core, 1024 banks, 64 L2 ways)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Reads `key = value` lines (`#` starts a comment); every parameter must be given once.
    pub fn parse(text: &str) -> Result<Machine, String> {
        let mut m = Machine::default();
        let mut seen: Vec<&str> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (key, value) = line.split_once('=').ok_or_else(|| format!("line {}: expected `key = value`", i + 1))?;
            let (key, value) = (key.trim(), value.trim());
            let v: u32 = value.parse().map_err(|_| format!("line {}: `{value}` is not a non-negative integer", i + 1))?;
            let mut found = None;
            macro_rules! set {
                ($k:literal, $($f:ident).+) => {
                    if key == $k {
                        m.$($f).+ = v;
                        found = Some($k);
                    }
                };
            }
            machine_fields!(set);
            let Some(k) = found else {
                return Err(format!("line {}: unknown machine parameter `{key}`", i + 1));
            };
            if seen.contains(&k) {
                return Err(format!("line {}: `{key}` given twice", i + 1));
            }
            seen.push(k);
        }
        let mut missing = Vec::new();
        macro_rules! check {
            ($k:literal, $($f:ident).+) => {
                if !seen.contains(&$k) {
                    missing.push($k);
                }
            };
        }
        machine_fields!(check);
        if !missing.is_empty() {
            return Err(format!("missing machine parameter(s): {}", missing.join(", ")));
        }
        m.validate()?;
        Ok(m)
    }

    /// Registers per thread after granule rounding (at least one granule).
    pub fn allocated_registers(&self, registers: u32) -> u32 {
        let g = self.register_granule.max(1);
        registers.max(1).div_ceil(g) * g
    }

    /// Waves one core can hold for a kernel allocating `registers` per thread at `wave_width` lanes.
    pub fn waves_per_core_capacity(&self, registers: u32, wave_width: u32) -> u32 {
        let by_regs = self.register_file_bytes as u64 / (self.allocated_registers(registers) as u64 * wave_width.max(1) as u64 * 4);
        (by_regs.min(u32::MAX as u64) as u32).min(self.max_waves_per_core)
    }
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        macro_rules! put {
            ($k:literal, $($fld:ident).+) => {
                writeln!(f, "{} = {}", $k, self.$($fld).+)?;
            };
        }
        machine_fields!(put);
        Ok(())
    }
}

/// A GCN-like machine of two compute units for the simulator's own tests.
#[cfg(test)]
pub(crate) fn test_machine() -> Machine {
    Machine {
        compute_units: 2,
        cores_per_cu: 4,
        max_waves_per_core: 10,
        register_file_bytes: 65536,
        register_granule: 4,
        local_memory_per_cu: 65536,
        issue: ClassCycles { alu: 4, fpu: 4, sfu: 16, memory: 4, atomic: 4, wave: 8, control: 1, sync: 1, mov: 4 },
        latency: ClassCycles { alu: 4, fpu: 4, sfu: 16, memory: 20, atomic: 20, wave: 8, control: 1, sync: 1, mov: 4 },
        memory: MemoryTiming {
            segment_bytes: 64,
            transaction_cycles: 1,
            l2_bytes: 64 * 1024,
            l2_ways: 16,
            l2_latency: 100,
            l2_bytes_per_cycle: 128,
            dram_latency: 300,
            dram_bytes_per_cycle: 32,
            local_banks: 32,
            local_latency: 64,
            local_pass_cycles: 1,
        },
        launch_cycles: 10,
        barrier_cycles: 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let m = test_machine();
        let text = m.to_string();
        assert_eq!(Machine::parse(&text), Ok(m));
        assert!(text.contains("memory.l2_ways = 16\n"));
    }

    #[test]
    fn parse_errors_name_the_parameter() {
        let text = test_machine().to_string();
        let e = Machine::parse(&text.replace("issue.alu = 4\n", "")).unwrap_err();
        assert!(e.contains("issue.alu"), "{e}");
        let e = Machine::parse(&format!("{text}issue.alu = 2\n")).unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = Machine::parse(&format!("{text}bogus = 1\n")).unwrap_err();
        assert!(e.contains("bogus"), "{e}");
        let e = Machine::parse(&text.replace("memory.segment_bytes = 64", "memory.segment_bytes = 48")).unwrap_err();
        assert!(e.contains("power of two"), "{e}");
        let e = Machine::parse(&text.replace("memory.l2_bytes = 65536", "memory.l2_bytes = 1000")).unwrap_err();
        assert!(e.contains("multiple"), "{e}");
    }

    #[test]
    fn register_capacity() {
        let m = test_machine();
        // GCN: 256 registers per lane per SIMD at W=64; 32 registers -> 8 waves, 24 -> 10 (slots).
        assert_eq!(m.waves_per_core_capacity(32, 64), 8);
        assert_eq!(m.waves_per_core_capacity(24, 64), 10);
        assert_eq!(m.waves_per_core_capacity(33, 64), 7); // 36 allocated
        assert_eq!(m.waves_per_core_capacity(256, 64), 1);
    }
}
