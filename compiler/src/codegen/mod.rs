//! Instruction selection into machine IR.

mod atomics;
mod half;
pub mod isel;
mod math;
pub mod mir;
mod wave_ops;

pub use isel::select;

#[cfg(test)]
mod tests;
