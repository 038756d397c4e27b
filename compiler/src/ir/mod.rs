//! The SSA IR: values defined once, blocks with parameters instead of phis,
//! and structured terminators (if/merge, loop/exit, break_if) because WAVE has
//! only structured control flow. Entities are cranelift-entity ids; analyses
//! keep their results in side tables keyed by those ids.

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
