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

// PUBLIC API CONTRACT (other crates code against these names; keep them stable).

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

/// Cost model for the cycle estimate (numbers come from the compiler's machine model).
#[derive(Clone, Debug)]
pub struct CostModel {
    /// Cycles before an ALU result can be used.
    pub alu_latency: u32,
    /// Cycles before a transcendental/divide result can be used.
    pub sfu_latency: u32,
    /// Cycles before a local-memory load result can be used.
    pub local_latency: u32,
    /// Cycles before a device-memory load result can be used.
    pub device_latency: u32,
    /// Waves that can be resident on one core at once (the occupancy); the
    /// scheduler hides latency by switching among them.
    pub resident_waves: u32,
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
    pub cost: CostModel,
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
    /// Estimated cycles for the whole dispatch on one core under `CostModel`.
    pub cycles: u64,
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    DeviceOutOfBounds {
        addr: u64,
        size: u32,
    },
    LocalOutOfBounds {
        addr: u64,
        size: u32,
    },
    InstructionLimit {
        limit: u64,
    },
    /// Register index at or above `.registers`.
    BadRegister {
        reg: u32,
    },
    Deadlock,
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
    // The helper implementing the simulator adds the decoded form here.
}

/// Parse WAVE assembly text under `profile`'s grammar.
pub fn parse(_text: &str, _profile: Profile) -> Result<Program, ParseError> {
    Err(ParseError {
        line: 0,
        message: "simulator not implemented yet".into(),
    })
}

/// Run `kernel` over `launch.grid` with `mem` as device memory.
pub fn run(
    _kernel: &Kernel,
    _cfg: &SimConfig,
    _launch: &Launch,
    _mem: &mut Memory,
) -> Result<Stats, Fault> {
    Err(Fault {
        kind: FaultKind::Other("simulator not implemented yet".into()),
        origin: None,
        workgroup: [0; 3],
        wave: 0,
        lane: None,
    })
}

impl Program {
    /// The kernel named `name`, if any.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl Memory {
    /// Zero-filled memory of `size` bytes.
    pub fn new(size: usize) -> Memory {
        Memory {
            bytes: vec![0; size],
        }
    }
    /// Copy `data` to `addr`; error if it does not fit.
    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), String> {
        let start = addr as usize;
        let end = start
            .checked_add(data.len())
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "write of {} bytes at {addr:#x} is outside device memory ({} bytes)",
                    data.len(),
                    self.bytes.len()
                )
            })?;
        self.bytes[start..end].copy_from_slice(data);
        Ok(())
    }
    /// Read `len` bytes at `addr`; error if out of range.
    pub fn read(&self, addr: u32, len: usize) -> Result<&[u8], String> {
        let start = addr as usize;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "read of {len} bytes at {addr:#x} is outside device memory ({} bytes)",
                    self.bytes.len()
                )
            })?;
        Ok(&self.bytes[start..end])
    }
}
