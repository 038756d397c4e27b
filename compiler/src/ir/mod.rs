//! The SSA IR: values defined once, blocks with parameters instead of phis,
//! and structured terminators (if/merge, loop/exit, break_if) because WAVE has
//! only structured control flow. Entities are cranelift-entity ids; analyses
//! keep their results in side tables keyed by those ids.
//!
//! The IR is scalar: one value per lane of type `b1`, `i32`, `f32`, `i16` or
//! `f16` (vectors, matrices and structs are scalarized by the lowering).
//! Each instruction is executed by the lanes that reach it (the active lanes);
//! a per-lane reading of the program is the semantics of everything except
//! the instructions below.
//!
//! # Memory and side effects
//!
//! Memory is addressed in bytes: `Device` (and its read-only view
//! `DeviceReadOnly`) and `Local`, the workgroup's memory, `Function::local_memory`
//! bytes from address 0 (the verifier refuses local accesses when it is 0).
//! Stores, atomics (`atomic_rmw`, `atomic_cas`, on `i32`, returning the old
//! value), `barrier` and `fence.<scope>` have side effects
//! (`InstData::has_side_effects`): passes never delete, duplicate or reorder
//! them relative to each other or to loads.
//!
//! # Convergence rule
//!
//! Wave operations (`wave_reduce`, `wave_prefix`, `wave_ballot`, `wave_any`,
//! `wave_all`, `wave_read_lane`, `wave_read_first`) read the values of the other
//! active lanes of the wave, and `barrier` waits for the other waves: their
//! result depends on which lanes execute them (`InstData::is_convergent`). A
//! pass must never move a convergent instruction into or out of an `if` region
//! or a loop (or across any terminator), duplicate it into other blocks (loop
//! unrolling duplicates the whole loop body, which is allowed), or merge two of
//! them that sit in different blocks. Deleting one whose result is unused
//! (except `barrier`, which has side effects) and replacing one by a constant
//! that every active lane would produce are allowed.
//!
//! # Readable kernel arguments
//!
//! `Function::readable` names kernel arguments (cbuffers, the constant block)
//! whose first bytes are always readable: a load at such an argument plus a
//! constant inside them cannot fault, so passes may run it speculatively.

mod function;
mod parse;
mod print;
pub mod structure;
mod types;
mod verify;

pub use function::*;
pub use parse::{parse_function, ParseError};
pub use print::print_function;
pub use types::*;
pub use verify::{verify, VerifyError};
