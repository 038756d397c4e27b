//! wavec: mini-HLSL compute shaders to WAVE assembly.
//!
//! Pipeline (one module per stage):
//! `frontend` (parse, semantic analysis) -> `lower` (typed AST to SSA IR) -> `ir` + `passes`
//! -> `codegen` (instruction selection to machine IR) -> `regalloc` -> `emit` (text, .wbin).
//! `target` holds the machine models and occupancy; `run` executes pipeline tests on the simulator.

pub mod diag;
pub mod target;
pub mod interface;
pub mod driver;
pub mod run;
