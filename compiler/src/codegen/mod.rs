//! Instruction selection into machine IR.

mod addr16;
mod atomics;
mod half;
pub mod isel;
mod math;
pub mod mir;
pub mod pair16;
pub mod pred_reuse;
mod wave_ops;

pub use isel::{select, select_with};

#[cfg(test)]
mod tests;
