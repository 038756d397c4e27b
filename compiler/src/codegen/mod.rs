//! Instruction selection into machine IR.

mod atomics;
mod half;
pub mod isel;
mod math;
pub mod mir;
pub mod pair16;
mod wave_ops;

pub use isel::select;

#[cfg(test)]
mod tests;
