//! wavec: mini-HLSL compute shaders to WAVE assembly.
//!
//! Pipeline (one module per stage): `source` (decoding files) ->
//! `frontend` (preprocess, parse, semantic analysis) -> `lower` (typed AST to SSA IR) -> `ir` + `passes`
//! -> `codegen` (instruction selection to machine IR) -> `sched` (issue order) -> `regalloc` -> `emit` (text, .wbin).
//! `target` holds the machine models and occupancy; `run` executes pipeline tests on the simulator.
//! `limits` holds what one compilation or run may use (files, expansion, simulation, memory).

pub mod codegen;
pub mod diag;
pub mod driver;
pub mod emit;
pub mod frontend;
pub mod interface;
pub mod ir;
pub mod limits;
pub mod lower;
pub mod options;
pub mod passes;
pub mod regalloc;
pub mod run;
pub mod sched;
pub mod source;
pub mod target;
