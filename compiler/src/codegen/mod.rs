//! Instruction selection into machine IR.

pub mod isel;
pub mod mir;

pub use isel::select;

#[cfg(test)]
mod tests;
