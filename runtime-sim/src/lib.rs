//! `wavesim`: a simulator for WAVE assembly text.
//!
//! It parses `.wave` text itself (no dependency on the compiler), executes one
//! kernel over a grid of workgroups with waves of a configurable width, active
//! masks driven by structured control flow, predicates, device and local
//! memory, and reports statistics. Two semantic profiles are supported:
//! WAVE spec v0.4 and the published 0.1.2 toolchain (see `Profile`).
//!
//! Faults (out-of-bounds accesses, runaway loops, bad operands) are returned
//! as [`Fault`] values naming the instruction and its source line, never panics.
//!
//! # Semantics decisions (where the brief or the spec leaves a choice)
//!
//! - Execution order: workgroups one after another (x fastest, then y, z), the
//!   waves of a workgroup round-robin, one instruction per turn, like wave-emu
//!   0.1.2. Atomics apply in lane order. The cycle model (`timing/`, on when
//!   [`SimConfig::timing`] is set) replays the recorded per-wave instruction
//!   traces on a model of a whole GPU ([`Machine`]) and never changes the
//!   functional order, so buffers do not depend on the machine.
//! - Masked-off code: Toolchain012 issues both arms of every `if` (as wave-emu
//!   does). Spec04 skips an `if`/`else` arm or a `loop` whose active mask is empty
//!   (the `else`/`endif`/`endloop` itself still issues to keep the mask stack), so
//!   instruction counts differ between the profiles for such code.
//! - Spec04 `break`/`continue` leave every enclosing if-frame up to their loop;
//!   `halt` (and `return` with an empty call stack) ends the executing lanes; `@p`
//!   is allowed on `break`, `continue` and `halt`; running off the end is fine.
//!   Toolchain012 faults on a `break` nested in an `if`, on running off the end and
//!   on a barrier after a wave of the group halted; `halt` ends the whole wave.
//! - `d = r0` in a returning atomic (device or local) means non-returning.
//! - `wave_broadcast` reads the source lane's register whether or not that lane
//!   is active (lane-banked values stay readable under divergence); shuffles
//!   from an out-of-range lane give 0, from an inactive lane 0 in Spec04 (the
//!   spec leaves it implementation-defined) and the lane's stale register in
//!   Toolchain012 (as wave-emu 0.1.2).
//! - Where the spec names an instruction without defining it fully, Spec04
//!   follows the reference emulator: `atomic_min`/`atomic_max` and
//!   `wave_reduce_min`/`wave_reduce_max` compare unsigned (the spec has one
//!   opcode each and no signed spelling), `bitfind` counts leading zeros
//!   (0 gives 0xffffffff), `fround` rounds halves away from zero, and
//!   `atomic_cas d, addr, v, cmp` stores `v` where the old value equals `cmp`.
//!   Spec04 `fsat` maps NaN to 0; Toolchain012 `fsat` keeps NaN (wave-emu
//!   clamps); `frcp` is 1/x in both (frcp(-0) = -inf).
//! - `thread_instructions` and the per-lane memory counters count the lanes that
//!   actually execute (active and, if predicated, predicate true).
//! - Registers named by the code (pairs and quads included) or by `Launch.args`
//!   at or above `.registers` are a `BadRegister` fault before execution starts.
//!   `.registers` defaults to 32; Toolchain012 allows at most 32, Spec04 256.
//! - Calls: depth limit 8 (0.1.2) / 64 (spec); a `return` must be at the frame
//!   depth of its `call` (no return from inside an if/loop of the callee).
//! - Barriers: a barrier executed by some but not all live lanes of a wave, waves
//!   of a group waiting at different barriers (or some with and some without
//!   active lanes, where 0.1.2 runs masked-off code), and a barrier that part of
//!   the group never reaches because it finished are faults.
//! - Alignment: the spec guarantees only naturally aligned accesses, so in Spec04
//!   a misaligned load, store or atomic is a fault; Toolchain012 allows it, as
//!   wave-emu 0.1.2 does.
//! - [`SimConfig::strict`]: reading a register or predicate a lane never wrote is
//!   a fault (kernel arguments count as written).

// The workspace's MSRV (1.80) predates `is_multiple_of`.
#![allow(clippy::manual_is_multiple_of)]

// PUBLIC API CONTRACT (other crates code against these names; keep them stable).

mod asm;
mod exec;
mod fp;
mod geometry;
pub mod isa;
mod machine;
mod report;
mod timing;

pub use fp::{f16_to_f32, f32_to_f16};
pub use machine::{ClassCycles, Machine, MemoryTiming};
pub use report::{CoreCycles, MemoryCounters, OccupancyPoint, PcTiming, Segment, Stalls, Timeline, TimingReport, WaveState};

/// Which semantics the simulator applies where the two WAVE variants differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// WAVE specification v0.4 (`--isa wave`).
    Spec04,
    /// What the published wave-asm/wave-emu 0.1.2 crates execute (`--isa wave-0.1.2`).
    Toolchain012,
}

/// A parsed assembly file: one or more kernels.
#[derive(Clone, Debug)]
pub struct Program {
    pub kernels: Vec<Kernel>,
}

/// One `.kernel NAME ... .end` block.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// `.registers N`
    pub registers: u32,
    /// `.workgroup_size X, Y, Z` if present.
    pub workgroup_size: Option<[u32; 3]>,
    /// `.local_memory BYTES` (0 if absent).
    pub local_memory: u32,
    /// Decoded instructions in program order (implementation-defined representation).
    pub instrs: Vec<Instr>,
}

/// Where an instruction came from, for fault messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrOrigin {
    /// 1-based line in the assembly text.
    pub asm_line: u32,
    /// The instruction text as written (without comment), trimmed.
    pub text: String,
    /// 1-based HLSL source line, from a trailing `; L<n>` comment written by wavec.
    pub src_line: Option<u32>,
}

/// Parse error in assembly text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub message: String,
}

/// Simulator configuration.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub wave_width: u32,
    pub profile: Profile,
    /// Fault after this many wave-instructions in one workgroup (0 = unlimited).
    pub max_instructions: u64,
    /// Local memory available to a workgroup, bytes.
    pub local_memory_limit: u32,
    /// Run the cycle model ([`Stats::timing`]). Buffers are the same either way.
    pub timing: bool,
    /// The GPU the cycle model times (also read without `timing` for the
    /// segment size and banks of the memory counters).
    pub machine: Machine,
    /// Registers per thread the cycle model's workgroup admission counts, when more
    /// than the kernel's `.registers` (a what-if: the code is unchanged).
    pub registers_for_occupancy: Option<u32>,
    /// Fault on reading a register or predicate a lane never wrote.
    pub strict: bool,
    /// Host threads the run may use (0: every available core; 1: this one).
    /// Results are the same whatever the count.
    pub threads: usize,
    /// Run a workgroup whose waves fit in 64 lanes as one wide wave while they
    /// run in lockstep (`exec/wide.rs`). Results are the same either way; off,
    /// every wave runs round-robin (the reference the tests compare with).
    pub wide_waves: bool,
    /// Fault on a cross-lane (wave) instruction that runs with some but not
    /// all of its wave's live lanes ([`FaultKind::PartialWaveOp`]), or in a
    /// wave whose threads do not fill it nor make whole warps of 32
    /// ([`FaultKind::PartialWarpWaveOp`]): a check that the code runs on
    /// backends that execute wave operations with a full 32-lane member mask
    /// (wave-ptx 0.1.2 `shfl.sync`/`vote.sync`). Results are the same either
    /// way when it does not fault.
    pub full_wave_ops: bool,
}

/// Limits on a whole run, over all its workgroups ([`run_limited`]). The
/// default limits nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// Wave-instructions the workgroups may issue in all (0: unlimited). It is
    /// checked as each workgroup finishes, in dispatch order (so the fault is
    /// the same whatever the thread count), and no single workgroup may issue
    /// more than this by itself ([`SimConfig::max_instructions`] is lowered to it).
    pub max_instructions: u64,
    /// Wall-clock time the run may take (None: unlimited), checked between
    /// workgroups. Each workgroup is bounded by the instruction limits, so the
    /// run stops soon after its time is up.
    pub time: Option<std::time::Duration>,
    /// Bytes of instruction traces the cycle model may hold (0: unlimited): the
    /// executor records each workgroup's trace and the model replays the
    /// traces of the resident groups, so a long-running kernel's traces grow
    /// with its work. A workgroup whose trace passes half of it, or resident
    /// groups' traces past it, switch the model off for the rest of the run,
    /// which goes on without it (as with `timing` off); [`Stats::timing_dropped`] says where.
    pub max_trace_bytes: u64,
}

/// One dispatch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Grid size in workgroups.
    pub grid: [u32; 3],
    /// Used only when the kernel has no `.workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Initial register values, set in every thread: (register index, value).
    pub args: Vec<(u32, u32)>,
}

/// Flat device memory; addresses are u32 byte offsets from 0.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    pub bytes: Vec<u8>,
}

/// Execution statistics of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Wave-instructions issued (one per wave per instruction, whatever the mask).
    pub wave_instructions: u64,
    /// Thread-instructions (sum over issued instructions of active lanes).
    pub thread_instructions: u64,
    /// Wave-instructions per category ("alu", "fpu", "sfu", "memory", "atomic", "wave", "control", "sync", "move").
    pub by_category: std::collections::BTreeMap<String, u64>,
    pub device_loads: u64,
    pub device_stores: u64,
    pub local_loads: u64,
    pub local_stores: u64,
    pub barriers: u64,
    pub workgroups: u64,
    pub waves: u64,
    /// Cycles of the whole dispatch on the machine (0 without the cycle model).
    pub cycles: u64,
    /// The cycle model's report, when [`SimConfig::timing`] is on (and it ran to the end).
    pub timing: Option<TimingReport>,
    /// With [`SimConfig::timing`] on, the cycle model was switched off at this
    /// workgroup (its index in dispatch order) because the traces outgrew
    /// [`RunLimits::max_trace_bytes`]; `timing` is then `None`.
    pub timing_dropped: Option<u64>,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An access of `size` bytes at byte address `addr` outside device memory.
    DeviceOutOfBounds {
        addr: u64,
        size: u32,
    },
    /// An access of `size` bytes at byte address `addr` outside the workgroup's local memory.
    LocalOutOfBounds {
        addr: u64,
        size: u32,
    },
    InstructionLimit {
        limit: u64,
    },
    /// The workgroups issued more than `limit` wave-instructions in all ([`RunLimits::max_instructions`]).
    RunInstructionLimit {
        limit: u64,
    },
    /// The run took longer than `limit_ms` milliseconds of wall-clock time ([`RunLimits::time`]).
    TimeLimit {
        limit_ms: u64,
    },
    /// Register index at or above `.registers`.
    BadRegister {
        reg: u32,
    },
    /// Part of the workgroup waits at a barrier the rest never reaches (it finished).
    Deadlock,
    /// A barrier executed by `executing` of the wave's `live` lanes (divergent control flow).
    DivergentBarrier {
        executing: u32,
        live: u32,
    },
    /// A wave instruction executed by `executing` of the wave's `live` lanes
    /// ([`SimConfig::full_wave_ops`]).
    PartialWaveOp {
        executing: u32,
        live: u32,
    },
    /// A wave instruction in a wave of `threads` threads, fewer than its
    /// width and not whole warps of 32 (the group's last wave, when the
    /// workgroup size is not a multiple of 32; [`SimConfig::full_wave_ops`]).
    PartialWarpWaveOp {
        threads: u32,
    },
    /// Waves of one workgroup disagree about a barrier (which one, or whether they execute it).
    BarrierMismatch(String),
    /// An access of `size` bytes at `addr` that is not a multiple of `size` (spec profile).
    Misaligned {
        addr: u64,
        size: u32,
        local: bool,
    },
    /// Read of a register (scoreboard slot below 512) or predicate (512 + p) the lane never wrote (`strict`).
    UndefinedRead {
        slot: u16,
    },
    /// The workgroup cannot be resident on one compute unit of the machine (cycle model).
    DoesNotFit(String),
    ControlFlow(String),
    /// Anything else the program did that the profile does not allow.
    Other(String),
}

/// A runtime fault, with enough context to find it in the listing and the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub origin: Option<InstrOrigin>,
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub lane: Option<u32>,
}

/// A decoded instruction (representation owned by this crate).
#[derive(Clone, Debug)]
pub struct Instr {
    pub origin: InstrOrigin,
    /// Decoded operation.
    pub op: isa::Op,
    /// `@pN` / `@!pN` guard, if any.
    pub pred: Option<isa::P>,
    /// Statistics category (also the cycle model's issue and latency class).
    pub category: isa::Category,
    /// Scoreboard slots read (registers, then predicates at `isa::PRED_SLOT_BASE + p`).
    pub reads: Box<[u16]>,
    /// Scoreboard slots written.
    pub writes: Box<[u16]>,
    /// Highest general register touched (pairs and quads included).
    pub max_reg: Option<u32>,
}

/// Parse WAVE assembly text under `profile`'s grammar.
pub fn parse(text: &str, profile: Profile) -> Result<Program, ParseError> {
    asm::parse(text, profile)
}

/// Run `kernel` over `launch.grid` with `mem` as device memory.
///
/// Workgroups run one after another in x, y, z order; the waves of a workgroup run
/// round-robin, one instruction per turn. Every input is checked first (wave width
/// 1..=64, workgroup size, local memory against the limit, registers named by the
/// code and by `launch.args` against `.registers`, control-flow targets), so a bad
/// kernel is a [`Fault`], never a panic.
pub fn run(kernel: &Kernel, cfg: &SimConfig, launch: &Launch, mem: &mut Memory) -> Result<Stats, Fault> {
    run_limited(kernel, cfg, launch, mem, &RunLimits::default())
}

/// [`run`] under limits on the whole run ([`RunLimits`]): past them the run
/// stops with a [`FaultKind::RunInstructionLimit`] or [`FaultKind::TimeLimit`].
pub fn run_limited(kernel: &Kernel, cfg: &SimConfig, launch: &Launch, mem: &mut Memory, limits: &RunLimits) -> Result<Stats, Fault> {
    let geo = validate(kernel, cfg, launch)?;
    let total = limits.max_instructions;
    // One workgroup alone may not issue more than the whole run may.
    let per_group = match (cfg.max_instructions, total) {
        (g, 0) => g,
        (0, t) => t,
        (g, t) => g.min(t),
    };
    if per_group == cfg.max_instructions {
        return exec::run(kernel, cfg, launch, &geo, mem, limits);
    }
    let lowered = SimConfig { max_instructions: per_group, ..cfg.clone() };
    exec::run(kernel, &lowered, launch, &geo, mem, limits).map_err(|mut f| {
        // A workgroup stopped by the lowered limit is the run's limit at work.
        if f.kind == (FaultKind::InstructionLimit { limit: per_group }) {
            f.kind = FaultKind::RunInstructionLimit { limit: total };
        }
        f
    })
}

/// Most threads a workgroup may have in the simulator.
pub const MAX_WORKGROUP_THREADS: u32 = 1 << 16;

fn validate(kernel: &Kernel, cfg: &SimConfig, launch: &Launch) -> Result<geometry::Geometry, Fault> {
    let other = |m: String| Fault { kind: FaultKind::Other(m), origin: None, workgroup: [0; 3], wave: 0, lane: None };
    let w = cfg.wave_width;
    if !(1..=64).contains(&w) {
        return Err(other(format!("wave width {w} is not supported (1..=64)")));
    }
    let wg = kernel.workgroup_size.unwrap_or(launch.workgroup_size);
    let threads = wg.iter().map(|&x| x as u64).product::<u64>();
    if threads == 0 || threads > MAX_WORKGROUP_THREADS as u64 {
        return Err(other(format!("workgroup size {}x{}x{} is not supported (1..={MAX_WORKGROUP_THREADS} threads)", wg[0], wg[1], wg[2])));
    }
    if kernel.local_memory > cfg.local_memory_limit {
        return Err(other(format!(
            ".local_memory {} exceeds the {}-byte limit per workgroup",
            kernel.local_memory, cfg.local_memory_limit
        )));
    }
    if kernel.registers > 256 {
        return Err(other(format!(".registers {} exceeds 256", kernel.registers)));
    }
    for &(r, _) in &launch.args {
        if r >= kernel.registers {
            return Err(Fault { kind: FaultKind::BadRegister { reg: r }, origin: None, workgroup: [0; 3], wave: 0, lane: None });
        }
    }
    let n = kernel.instrs.len() as u32;
    for ins in &kernel.instrs {
        let bad = |kind: FaultKind| Fault { kind, origin: Some(ins.origin.clone()), workgroup: [0; 3], wave: 0, lane: None };
        if let Some(r) = ins.max_reg {
            if r >= kernel.registers {
                return Err(bad(FaultKind::BadRegister { reg: r }));
            }
        }
        if ins.reads.iter().chain(ins.writes.iter()).any(|&s| s as usize >= isa::SCOREBOARD_SLOTS) {
            return Err(bad(FaultKind::Other("operand slot out of range".into())));
        }
        let targets_ok = match ins.op {
            isa::Op::If { else_pc, endif_pc, .. } => else_pc < n && endif_pc < n,
            isa::Op::Else { endif_pc } => endif_pc < n,
            isa::Op::Loop { end_pc } => end_pc < n,
            isa::Op::EndLoop { start_pc } => start_pc <= n,
            isa::Op::Call { target } => target <= n,
            _ => true,
        };
        if !targets_ok {
            return Err(bad(FaultKind::ControlFlow("control-flow target outside the kernel".into())));
        }
    }
    let threads = threads as u32;
    Ok(geometry::Geometry { wg, threads, nwaves: threads.div_ceil(w), w, grid: launch.grid })
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}
impl std::error::Error for ParseError {}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FaultKind::DeviceOutOfBounds { addr, size } => {
                write!(f, "device memory access of {size} bytes at {addr:#x} is out of bounds")
            }
            FaultKind::LocalOutOfBounds { addr, size } => {
                write!(f, "local memory access of {size} bytes at {addr:#x} is out of bounds")
            }
            FaultKind::InstructionLimit { limit } => {
                write!(f, "instruction limit of {limit} wave-instructions per workgroup exceeded (runaway loop?)")
            }
            FaultKind::RunInstructionLimit { limit } => {
                write!(f, "instruction limit of {limit} wave-instructions for the whole run exceeded")
            }
            FaultKind::TimeLimit { limit_ms } => write!(f, "time limit of {} s for the run exceeded", *limit_ms as f64 / 1000.0),
            FaultKind::BadRegister { reg } => write!(f, "register r{reg} is at or above .registers"),
            FaultKind::Deadlock => write!(f, "deadlock: waves wait at a barrier that part of the workgroup never reaches (it finished)"),
            FaultKind::DivergentBarrier { executing, live } => {
                write!(f, "barrier in divergent control flow: {executing} of the wave's {live} live lanes execute it")
            }
            FaultKind::PartialWaveOp { executing, live } => {
                write!(f, "wave operation executed by {executing} of the wave's {live} live lanes")
            }
            FaultKind::PartialWarpWaveOp { threads } => {
                write!(f, "wave operation in a wave of {threads} threads, a partial warp: full-mask backends name lanes it lacks")
            }
            FaultKind::BarrierMismatch(m) => write!(f, "{m}"),
            FaultKind::Misaligned { addr, size, local } => write!(
                f,
                "misaligned {} memory access of {size} bytes at {addr:#x} (the WAVE spec guarantees only {size}-byte aligned accesses)",
                if *local { "local" } else { "device" }
            ),
            FaultKind::UndefinedRead { slot } => write!(f, "read of {} which this lane never wrote", slot_name(*slot)),
            FaultKind::DoesNotFit(m) => write!(f, "{m}"),
            FaultKind::ControlFlow(m) => write!(f, "control flow: {m}"),
            FaultKind::Other(m) => write!(f, "{m}"),
        }
    }
}
impl std::error::Error for FaultKind {}

/// `r5` for a register slot, `p1` for a predicate slot.
pub fn slot_name(slot: u16) -> String {
    if slot >= isa::PRED_SLOT_BASE {
        format!("p{}", slot - isa::PRED_SLOT_BASE)
    } else {
        format!("r{slot}")
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(o) = &self.origin {
            write!(f, " at asm line {}: `{}`", o.asm_line, o.text)?;
            if let Some(s) = o.src_line {
                write!(f, " (source line {s})")?;
            }
        }
        write!(f, " [workgroup ({}, {}, {}), wave {}", self.workgroup[0], self.workgroup[1], self.workgroup[2], self.wave)?;
        if let Some(l) = self.lane {
            write!(f, ", lane {l}")?;
        }
        write!(f, "]")
    }
}
impl std::error::Error for Fault {}

impl Program {
    /// The kernel named `name`, if any.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl Memory {
    /// Zero-filled memory of `size` bytes.
    pub fn new(size: usize) -> Memory {
        Memory { bytes: vec![0; size] }
    }
    /// Copy `data` to `addr`; error if it does not fit.
    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), String> {
        let start = addr as usize;
        let end = start
            .checked_add(data.len())
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("write of {} bytes at {addr:#x} is outside device memory ({} bytes)", data.len(), self.bytes.len()))?;
        self.bytes[start..end].copy_from_slice(data);
        Ok(())
    }
    /// Read `len` bytes at `addr`; error if out of range.
    pub fn read(&self, addr: u32, len: usize) -> Result<&[u8], String> {
        let start = addr as usize;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("read of {len} bytes at {addr:#x} is outside device memory ({} bytes)", self.bytes.len()))?;
        Ok(&self.bytes[start..end])
    }
}

#[cfg(test)]
mod tests;
