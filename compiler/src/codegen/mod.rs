//! Instruction selection into machine IR.

mod addr16;
mod atomics;
mod compat;
mod half;
pub mod isel;
mod math;
pub mod mir;
pub mod pair16;
pub mod pred_merge;
pub mod pred_reuse;
pub mod share_constants;
mod wave_ops;
pub mod widen;

pub use isel::{select, select_with};

#[cfg(test)]
mod tests;

/// Tests: machine code selected from IR text (parsed, verified, uniformity
/// analysed) for `isa`, with 16-bit packing, for a group of `threads` threads.
#[cfg(test)]
pub(crate) fn select_text(text: &str, isa: crate::options::Isa, threads: u32) -> mir::MFunction {
    let f = crate::ir::parse_function(text).unwrap_or_else(|e| panic!("IR does not parse: {e}"));
    crate::ir::verify(&f).unwrap_or_else(|e| panic!("IR does not verify: {e:?}"));
    let uniform = crate::passes::uniformity::analyze(&f);
    let mut m = select(&f, isa, &uniform, true).unwrap_or_else(|d| panic!("does not select: {d:?}"));
    m.workgroup_size = [threads, 1, 1];
    m
}
