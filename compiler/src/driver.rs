//! The compiler driver: runs the pipeline stages in order on one source file.

use crate::diag::{Diagnostic, SourceFile};
use crate::interface::{BoundResource, KernelInterface, ResourceKind};
use crate::target::{Occupancy, Target};
use crate::{codegen, emit, frontend, ir, lower, passes, regalloc, target};

/// Output ISA profile (design.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// WAVE spec v0.4 (default).
    Wave,
    /// What the published 0.1.2 crates execute correctly.
    Wave012,
}

impl Isa {
    pub fn name(self) -> &'static str {
        match self {
            Isa::Wave => "wave",
            Isa::Wave012 => "wave-0.1.2",
        }
    }
    /// Architectural register limit of the profile.
    pub fn max_registers(self) -> u32 {
        match self {
            Isa::Wave => 256,
            Isa::Wave012 => 32,
        }
    }
    pub fn sim_profile(self) -> wavesim::Profile {
        match self {
            Isa::Wave => wavesim::Profile::Spec04,
            Isa::Wave012 => wavesim::Profile::Toolchain012,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O,
}

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub isa: Isa,
    pub opt: OptLevel,
    pub target: Target,
    /// Waves per core the allocator should aim for (reported in this version).
    pub target_occupancy: Option<u32>,
    /// Entry point name; `None` picks the single `[numthreads]` function.
    pub entry: Option<String>,
    /// `-D NAME[=VALUE]` preprocessor definitions.
    pub defines: Vec<(String, String)>,
}

impl CompileOptions {
    pub fn new(target: Target) -> CompileOptions {
        CompileOptions {
            isa: Isa::Wave,
            opt: OptLevel::O0,
            target,
            target_occupancy: None,
            entry: None,
            defines: Vec::new(),
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The annotated listing (assembly text).
    pub asm: String,
    /// The IR after the last IR pass, in its text form.
    pub ir: String,
    pub interface: KernelInterface,
    pub occupancy: Occupancy,
    /// Warnings (compilation succeeded).
    pub warnings: Vec<Diagnostic>,
}

/// Compiles `file` with `opts`.
pub fn compile(file: &SourceFile, opts: &CompileOptions) -> Result<Compiled, Vec<Diagnostic>> {
    let _ = (file, opts);
    Err(vec![Diagnostic::error(
        "E0599",
        "the compiler pipeline is not assembled yet",
    )])
}
