//! The `wavec` command line.
//!
//!     wavec FILE [-Od|-O0..-O3|-O] [-o OUT] [--emit asm|wbin|ir|abi|pp] [-Fo FILE] [-Fc FILE]
//!                [-Fh FILE] [-Fre FILE] [-M|-MD] [-MF FILE] [-W...] [--diagnostics-format FORMAT] ...
//!     wavec run FILE.test | wavec run pipeline.yaml source.hlsl
//!     wavec --print-targets | wavec completions SHELL
//!
//! `README.md` ("Command line") describes every flag.

mod cli;

fn main() {
    std::process::exit(cli::main(std::env::args_os().collect()));
}
