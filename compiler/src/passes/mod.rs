//! IR passes. The driver runs them in order; tests verify the IR after each.

pub mod simplify;
pub mod uniformity;

use crate::driver::OptLevel;
use crate::ir::{verify, Function, VerifyError};

/// A named pass over a function; returns whether it changed anything.
pub type Pass = (&'static str, fn(&mut Function) -> bool);

/// The passes run at `opt`, in order.
pub fn pipeline(opt: OptLevel) -> Vec<Pass> {
    // Redundant parameters are always removed: SSA construction leaves them behind.
    let mut passes: Vec<Pass> = vec![("remove-redundant-params", simplify::remove_redundant_params)];
    if opt == OptLevel::O {
        passes.push(("fold-constants", simplify::fold_constants));
        passes.push(("remove-redundant-params", simplify::remove_redundant_params));
        passes.push(("dead-code", simplify::remove_dead_code));
    }
    passes
}

/// Runs `pipeline(opt)`; with `verify_each`, checks the IR after every pass.
pub fn run(f: &mut Function, opt: OptLevel, verify_each: bool) -> Result<(), (String, Vec<VerifyError>)> {
    for (name, pass) in pipeline(opt) {
        pass(f);
        if verify_each {
            verify(f).map_err(|e| (name.to_string(), e))?;
        }
    }
    Ok(())
}
