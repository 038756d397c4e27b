//! IR passes. The driver runs them in order; tests verify the IR after each.

pub mod ftz;
pub mod simplify;
pub mod split64;
pub mod uniformity;

use crate::ir::{verify, Function, VerifyError};
use crate::options::OptLevel;

/// A named pass over a function; returns whether it changed anything.
pub type Pass = (&'static str, fn(&mut Function) -> bool);

/// The passes run at `opt`, in order.
pub fn pipeline(opt: OptLevel) -> Vec<Pass> {
    // 64-bit values become halves (selection needs it); redundant parameters are
    // always removed: SSA construction leaves them behind.
    let mut passes: Vec<Pass> = vec![("split64", split64::split64), ("remove-redundant-params", simplify::remove_redundant_params)];
    if opt == OptLevel::O {
        passes.push(("fold-constants", simplify::fold_constants));
        passes.push(("remove-redundant-params", simplify::remove_redundant_params));
        passes.push(("dead-code", simplify::remove_dead_code));
    }
    passes
}

/// Every pass by name, for IR filetests (`; pass: fold-constants`).
pub fn by_name(name: &str) -> Option<Pass> {
    let all: [Pass; 4] = [
        ("split64", split64::split64),
        ("remove-redundant-params", simplify::remove_redundant_params),
        ("fold-constants", simplify::fold_constants),
        ("dead-code", simplify::remove_dead_code),
    ];
    all.into_iter().find(|(n, _)| *n == name)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pipeline_pass_has_a_name() {
        for opt in [OptLevel::O0, OptLevel::O] {
            for (name, pass) in pipeline(opt) {
                let found = by_name(name).unwrap_or_else(|| panic!("{name} is not in by_name"));
                assert_eq!(found.1 as usize, pass as usize, "{name}");
            }
        }
        assert!(by_name("no-such-pass").is_none());
    }
}
