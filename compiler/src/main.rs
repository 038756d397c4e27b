//! The `wavec` command line.
//!
//!     wavec FILE [-O0|-O] [-o OUT] [--isa wave|wave-0.1.2] [--target NAME]
//!                [--target-occupancy N] [--emit asm|wbin|ir|abi]
//!     wavec run FILE.test | wavec run pipeline.yaml source.hlsl
//!     wavec --print-targets

mod cli;

fn main() {
    std::process::exit(cli::main(std::env::args_os().collect()));
}
