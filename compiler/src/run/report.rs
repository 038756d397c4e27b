//! The report of a completed run: occupancy on the target, what the cycle model
//! measured, and figures per HLSL line and per listing instruction. It is what
//! `--stats` prints ([`RunReport::summary`]), what `--stats-json` writes
//! (serialized as is) and what `--report` draws (`html.rs`).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::diag::Sources;
use crate::driver::Compiled;
use crate::target::Target;

/// Time buckets of the occupancy-over-time curve.
pub const OCCUPANCY_BUCKETS: usize = 100;

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunReport {
    pub kernel: String,
    pub target: String,
    pub isa: String,
    pub wave_width: u32,
    pub workgroup_size: [u32; 3],
    pub dispatch: [u32; 3],
    pub workgroups: u64,
    pub waves: u64,
    /// `.registers` of the kernel.
    pub registers: u32,
    /// Bytes of local memory per workgroup.
    pub local_memory: u32,
    /// What the occupancy calculator says for this kernel on the target.
    pub occupancy: OccupancyFigures,
    pub instructions: Instructions,
    pub memory_ops: MemoryOps,
    /// The cycle model's figures (absent when it did not run).
    pub timing: Option<Timing>,
    /// One row per instruction of the listing.
    pub listing: Vec<ListingRow>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OccupancyFigures {
    pub waves_per_core: u32,
    pub max_waves_per_core: u32,
    pub percent: u32,
    pub workgroups_per_cu: u32,
    pub limiter: String,
    pub allocated_registers: u32,
    pub waves_per_workgroup: u32,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Instructions {
    pub wave: u64,
    pub thread: u64,
    pub by_category: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MemoryOps {
    pub device_loads: u64,
    pub device_stores: u64,
    pub local_loads: u64,
    pub local_stores: u64,
    pub barriers: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Timing {
    pub cycles: u64,
    pub compute_units: u32,
    pub cores_per_cu: u32,
    /// Registers per thread the admission counted (after rounding); more than the
    /// kernel's own when the run asked for a what-if (`--registers`).
    pub admitted_registers: u32,
    pub groups_per_cu: u32,
    pub waves_per_core: u32,
    pub limiter: String,
    /// Resident waves per core, averaged over the run.
    pub achieved_waves_per_core: f64,
    pub core_cycles: CoreCycles,
    pub stalls: Stalls,
    pub memory: MemoryFigures,
    /// Resident waves per core in equal time buckets.
    pub occupancy_over_time: Vec<f64>,
    /// Figures per HLSL line, in file then line order.
    pub lines: Vec<LineFigures>,
    pub timeline: TimelineData,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CoreCycles {
    pub issue: u64,
    pub memory: u64,
    pub dependency: u64,
    pub barrier: u64,
    pub idle: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stalls {
    pub memory: u64,
    pub dependency: u64,
    pub barrier: u64,
    pub issue: u64,
}

impl Stalls {
    pub fn total(&self) -> u64 {
        self.memory + self.dependency + self.barrier + self.issue
    }
    fn add(&mut self, s: &wavesim::Stalls) {
        self.memory += s.memory;
        self.dependency += s.dependency;
        self.barrier += s.barrier;
        self.issue += s.issue;
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MemoryFigures {
    pub device_load_instructions: u64,
    pub device_store_instructions: u64,
    pub device_atomic_instructions: u64,
    pub load_transactions: u64,
    pub store_transactions: u64,
    pub atomic_transactions: u64,
    pub ideal_transactions: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    /// Hits per L2 access (None without accesses).
    pub l2_hit_rate: Option<f64>,
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
    /// Share of the cycles DRAM was busy moving lines (its bandwidth's utilization).
    pub dram_utilization: f64,
    /// Share of the cycles the L2 was busy serving transactions.
    pub l2_utilization: f64,
    pub local_instructions: u64,
    pub local_passes: u64,
    pub bank_conflict_passes: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LineFigures {
    /// The file's name without its directories.
    pub file: String,
    pub line: u32,
    pub text: String,
    /// Wave-instructions issued from this line.
    pub issued: u64,
    /// Core cycles spent issuing them.
    pub issue_cycles: u64,
    /// Cycles waves waited before issuing them.
    pub stalls: Stalls,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ListingRow {
    pub text: String,
    /// `L12`, or `file.hlsli:12` for an included file.
    pub source: String,
    /// Live registers after the instruction (the listing's annotation).
    pub live: Option<u32>,
    pub issued: u64,
    pub issue_cycles: u64,
    pub stall_cycles: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TimelineData {
    pub cores: u32,
    pub slots_per_core: u32,
    pub truncated: bool,
    /// (start, end, row, state, workgroup index); states as `wavesim::WaveState::name`.
    pub segments: Vec<(u64, u64, u32, &'static str, u64)>,
}

/// What the run was asked to time, for the report.
pub struct ReportInput<'a> {
    pub compiled: &'a Compiled,
    pub sources: &'a Sources,
    pub target: &'a Target,
    pub isa: &'a str,
    pub dispatch: [u32; 3],
    pub sim: &'a wavesim::Stats,
    /// The listing's instructions as the simulator parsed them (for listing lines).
    pub kernel: &'a wavesim::Kernel,
}

impl RunReport {
    pub fn new(r: &ReportInput) -> RunReport {
        let c = r.compiled;
        let o = &c.occupancy;
        let sim = r.sim;
        let timing = sim.timing.as_ref().map(|t| timing(t, r));
        // The listing's lines, indexed once (a kernel of 10,000 instructions
        // searched the text for each: 35 s).
        let lines: Vec<&str> = c.asm.lines().collect();
        let listing = r
            .kernel
            .instrs
            .iter()
            .enumerate()
            .map(|(pc, ins)| {
                let line = lines.get(ins.origin.asm_line.saturating_sub(1) as usize).copied().unwrap_or("");
                let (source, live) = annotation(line);
                let pt = sim.timing.as_ref().and_then(|t| t.per_pc.get(pc)).copied().unwrap_or_default();
                ListingRow {
                    text: ins.origin.text.clone(),
                    source,
                    live,
                    issued: pt.issued,
                    issue_cycles: pt.issue_cycles,
                    stall_cycles: pt.stalls.total(),
                }
            })
            .collect();
        RunReport {
            kernel: c.interface.kernel.clone(),
            target: r.target.name.to_string(),
            isa: r.isa.to_string(),
            wave_width: r.target.wave_width,
            workgroup_size: c.interface.workgroup_size,
            dispatch: r.dispatch,
            workgroups: sim.workgroups,
            waves: sim.waves,
            registers: c.interface.registers,
            local_memory: r.kernel.local_memory,
            occupancy: OccupancyFigures {
                waves_per_core: o.waves_per_core,
                max_waves_per_core: o.max_waves_per_core,
                percent: o.percent(),
                workgroups_per_cu: o.workgroups_per_cu,
                limiter: o.limiter.to_string(),
                allocated_registers: o.allocated_registers,
                waves_per_workgroup: o.waves_per_workgroup,
            },
            instructions: Instructions {
                wave: sim.wave_instructions,
                thread: sim.thread_instructions,
                by_category: sim.by_category.clone(),
            },
            memory_ops: MemoryOps {
                device_loads: sim.device_loads,
                device_stores: sim.device_stores,
                local_loads: sim.local_loads,
                local_stores: sim.local_stores,
                barriers: sim.barriers,
            },
            timing,
            listing,
        }
    }

    /// The `--stats` text: one fact per line, each starting `stats: `.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let o = &self.occupancy;
        let _ = writeln!(
            s,
            "stats: occupancy {} of {} waves per core ({}%) on {}, limited by {}",
            o.waves_per_core, o.max_waves_per_core, o.percent, self.target, o.limiter
        );
        let _ = writeln!(
            s,
            "stats: registers {} per thread ({} allocated), {} per workgroup",
            self.registers,
            o.allocated_registers,
            plural(o.waves_per_workgroup as u64, "wave")
        );
        match &self.timing {
            Some(t) => summary_timing(&mut s, self, t),
            None => {
                let _ = writeln!(
                    s,
                    "stats: {} workgroups, {} waves, no cycle model (--no-timing or a workgroup the target cannot hold)",
                    self.workgroups, self.waves
                );
            }
        }
        let _ = writeln!(s, "stats: {} wave instructions, {} thread instructions", self.instructions.wave, self.instructions.thread);
        let cats: Vec<String> = self.instructions.by_category.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "stats: by category: {}", cats.join(", "));
        let m = &self.memory_ops;
        let _ = writeln!(
            s,
            "stats: memory ops: device loads {}, device stores {}, local loads {}, local stores {}, barriers {}",
            m.device_loads, m.device_stores, m.local_loads, m.local_stores, m.barriers
        );
        if let Some(t) = &self.timing {
            summary_lines(&mut s, t);
        }
        s
    }
}

/// `1 wave`, `2 waves`.
fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "0.0%".into()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

fn summary_timing(s: &mut String, r: &RunReport, t: &Timing) {
    let _ = writeln!(
        s,
        "stats: {} workgroups, {} waves, {} simulated cycles on {} compute units of {} cores",
        r.workgroups, r.waves, t.cycles, t.compute_units, t.cores_per_cu
    );
    let what_if = if t.admitted_registers > r.occupancy.allocated_registers {
        format!(" (as if {} registers per thread)", t.admitted_registers)
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "stats: admission{what_if}: {} per compute unit, {} per core (limited by {}); achieved {:.2} waves per core on average",
        plural(t.groups_per_cu as u64, "workgroup"),
        plural(t.waves_per_core as u64, "wave"),
        t.limiter,
        t.achieved_waves_per_core
    );
    let c = &t.core_cycles;
    let total = c.issue + c.memory + c.dependency + c.barrier + c.idle;
    let _ = writeln!(
        s,
        "stats: core cycles: issue {}, memory {}, dependency {}, barrier {}, idle {}",
        pct(c.issue, total),
        pct(c.memory, total),
        pct(c.dependency, total),
        pct(c.barrier, total),
        pct(c.idle, total)
    );
    let st = &t.stalls;
    let _ = writeln!(
        s,
        "stats: wave stall cycles: memory {}, dependency {}, barrier {}, issue {}",
        st.memory, st.dependency, st.barrier, st.issue
    );
    let m = &t.memory;
    let moved = m.load_transactions + m.store_transactions;
    if m.device_load_instructions + m.device_store_instructions + m.device_atomic_instructions > 0 {
        let coalesced = if moved == 0 { "-".to_string() } else { pct(m.ideal_transactions, moved) };
        let _ = writeln!(
            s,
            "stats: device memory: {} load and {} store transactions for {} + {} instructions (coalescing {}), {} atomic",
            m.load_transactions,
            m.store_transactions,
            m.device_load_instructions,
            m.device_store_instructions,
            coalesced,
            m.atomic_transactions,
        );
        let _ = writeln!(
            s,
            "stats: L2 hit rate {}, busy {:.1}%; DRAM read {} B, written {} B, busy {:.1}%",
            m.l2_hit_rate.map(|h| format!("{:.1}%", h * 100.0)).unwrap_or_else(|| "-".into()),
            m.l2_utilization * 100.0,
            m.dram_read_bytes,
            m.dram_write_bytes,
            m.dram_utilization * 100.0
        );
    }
    if m.local_instructions > 0 {
        let _ = writeln!(
            s,
            "stats: local memory: {} accesses, {} passes, {} of them bank conflicts",
            m.local_instructions, m.local_passes, m.bank_conflict_passes
        );
    }
}

/// The HLSL lines that took the most time (issue plus stall cycles), at most five.
fn summary_lines(s: &mut String, t: &Timing) {
    let mut lines: Vec<&LineFigures> = t.lines.iter().filter(|l| l.issued > 0).collect();
    lines.sort_by_key(|l| std::cmp::Reverse(l.issue_cycles + l.stalls.total()));
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(s, "stats: lines by cycles (issue + stalled):");
    for l in lines.iter().take(5) {
        let st = &l.stalls;
        let _ = writeln!(
            s,
            "stats:   {}:{}: {} issue + {} stalled (memory {}, dependency {}, barrier {}, issue {})  {}",
            l.file,
            l.line,
            l.issue_cycles,
            st.total(),
            st.memory,
            st.dependency,
            st.barrier,
            st.issue,
            l.text
        );
    }
}

/// `part / whole`, rounded to three places (0 when `whole` is 0).
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 1000.0
    }
}

fn timing(t: &wavesim::TimingReport, r: &ReportInput) -> Timing {
    let m = &t.memory;
    // Resident waves per core in each bucket.
    let buckets = t.occupancy_buckets(OCCUPANCY_BUCKETS);
    // Per HLSL line: the listing names the file and line of every instruction.
    let mut lines: BTreeMap<(usize, u32), LineFigures> = BTreeMap::new();
    let files: Vec<String> = r.sources.files().map(|(_, f)| f.file.name.clone()).collect();
    let listing: Vec<&str> = r.compiled.asm.lines().collect();
    for (pc, ins) in r.kernel.instrs.iter().enumerate() {
        let Some(pt) = t.per_pc.get(pc) else { continue };
        let Some(at) = ins.origin.asm_line.checked_sub(1).and_then(|k| listing.get(k as usize)) else { continue };
        let Some((file, line, text)) = super::source_of_listing_line(r.sources, at) else { continue };
        let fi = files.iter().position(|f| *f == file).unwrap_or(files.len());
        let e = lines.entry((fi, line)).or_insert_with(|| LineFigures {
            file: std::path::Path::new(&file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| file.clone()),
            line,
            text,
            issued: 0,
            issue_cycles: 0,
            stalls: Stalls::default(),
        });
        e.issued += pt.issued;
        e.issue_cycles += pt.issue_cycles;
        e.stalls.add(&pt.stalls);
    }
    Timing {
        cycles: t.cycles,
        compute_units: t.compute_units,
        cores_per_cu: t.cores_per_cu,
        admitted_registers: t.allocated_registers,
        groups_per_cu: t.groups_per_cu,
        waves_per_core: t.waves_per_core,
        limiter: t.limiter.to_string(),
        achieved_waves_per_core: t.achieved_waves_per_core_milli() as f64 / 1000.0,
        core_cycles: CoreCycles {
            issue: t.core_cycles.issue,
            memory: t.core_cycles.memory,
            dependency: t.core_cycles.dependency,
            barrier: t.core_cycles.barrier,
            idle: t.core_cycles.idle,
        },
        stalls: Stalls { memory: t.stalls.memory, dependency: t.stalls.dependency, barrier: t.stalls.barrier, issue: t.stalls.issue },
        memory: MemoryFigures {
            device_load_instructions: m.device_load_instructions,
            device_store_instructions: m.device_store_instructions,
            device_atomic_instructions: m.device_atomic_instructions,
            load_transactions: m.load_transactions,
            store_transactions: m.store_transactions,
            atomic_transactions: m.atomic_transactions,
            ideal_transactions: m.ideal_transactions,
            l2_hits: m.l2_hits,
            l2_misses: m.l2_misses,
            l2_hit_rate: m.l2_hit_permille().map(|p| p as f64 / 1000.0),
            dram_read_bytes: m.dram_read_bytes,
            dram_write_bytes: m.dram_write_bytes,
            dram_utilization: share(m.dram_busy_cycles, t.cycles),
            l2_utilization: share(m.l2_busy_cycles, t.cycles),
            local_instructions: m.local_instructions,
            local_passes: m.local_passes,
            bank_conflict_passes: m.bank_conflict_passes,
        },
        occupancy_over_time: buckets.iter().map(|&w| (w * 1000.0).round() / 1000.0).collect(),
        lines: lines.into_values().collect(),
        timeline: TimelineData {
            cores: t.timeline.cores,
            slots_per_core: t.timeline.slots_per_core,
            truncated: t.timeline.truncated,
            segments: t.timeline.segments.iter().map(|s| (s.start, s.end, s.row, s.state.name(), s.group)).collect(),
        },
    }
}

/// The source label (`L12`, `common.hlsli:12`) and live-register count of a listing line
/// (`    iadd r3, r1, r2    ; L12 [ 4] text`).
pub fn annotation(line: &str) -> (String, Option<u32>) {
    let Some((_, comment)) = line.split_once(';') else { return (String::new(), None) };
    let mut words = comment.split_whitespace();
    let source = words.next().unwrap_or("").to_string();
    let rest = comment.trim_start().strip_prefix(source.as_str()).unwrap_or("").trim_start();
    let live = rest.strip_prefix('[').and_then(|r| r.split_once(']')).and_then(|(n, _)| n.trim().parse().ok());
    (source, live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_annotations() {
        assert_eq!(annotation("    mov r3, sr_workgroup_id_x               ; L5 [ 4] void main() {"), ("L5".into(), Some(4)));
        assert_eq!(annotation("    if p1                                   ; L6"), ("L6".into(), None));
        assert_eq!(annotation("      fadd r0, r0, r1 ; common.hlsli:12 [12]"), ("common.hlsli:12".into(), Some(12)));
        assert_eq!(annotation("    halt"), (String::new(), None));
    }
}
