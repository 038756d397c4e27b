//! wavec: mini-HLSL compute shaders to WAVE assembly.
//!
//! Pipeline (one module per stage): `source` (decoding files) ->
//! `frontend` (preprocess, parse, semantic analysis) -> `lower` (typed AST to SSA IR) -> `ir` + `passes`
//! -> `codegen` (instruction selection to machine IR) -> `backend` (machine-IR passes, `sched` for the
//! issue order and `regalloc`, searched for the best allocation) -> `emit` (text, .wbin).
//! `liveness` (liveness and register pressure of machine IR) sits below `codegen`, `sched` and `regalloc`.
//! `target` holds the machine models and occupancy; `run` executes pipeline tests on the simulator.
//! `limits` holds what one compilation or run may use (files, expansion, simulation, memory).

pub mod backend;
pub mod codegen;
pub mod compile_options;
pub mod diag;
pub mod driver;
pub mod emit;
pub mod frontend;
pub mod interface;
pub mod ir;
pub mod limits;
pub mod liveness;
pub mod lower;
pub mod options;
pub mod passes;
pub mod regalloc;
pub mod run;
pub mod sched;
pub mod source;
pub mod target;
