//! `wavesim`: run a WAVE assembly kernel from the command line.
//!
//!     wavesim kernel.wave --grid 4,1,1 --reg 0=0 --reg 1=4096 --memory 8192 \
//!             --load 0=input.bin --dump 4096:256 [--machine gpu.txt]
//!
//! Prints the statistics (and any fault) on stderr and the dumped memory on stdout.
//! With `--machine FILE` (the `key = value` form of `wavesim::Machine`) it also
//! runs the cycle model.

use clap::{Parser, ValueEnum};
use std::process::ExitCode;
use wavesim::{Launch, Machine, Memory, Profile, SimConfig};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ProfileArg {
    /// WAVE spec v0.4
    Spec,
    /// The published wave-asm/wave-emu 0.1.2
    #[value(name = "0.1.2")]
    Toolchain012,
}

#[derive(Parser, Debug)]
#[command(name = "wavesim", version, about = "Run a kernel written in WAVE assembly")]
struct Cli {
    /// WAVE assembly file
    file: std::path::PathBuf,
    /// Kernel to run (default: the first)
    #[arg(long)]
    kernel: Option<String>,
    /// Semantics profile
    #[arg(long, value_enum, default_value = "spec")]
    profile: ProfileArg,
    /// Grid size in workgroups, X,Y,Z
    #[arg(long, default_value = "1,1,1", value_parser = triple)]
    grid: [u32; 3],
    /// Workgroup size when the kernel has no .workgroup_size, X,Y,Z
    #[arg(long, default_value = "32,1,1", value_parser = triple)]
    workgroup: [u32; 3],
    /// Lanes per wave
    #[arg(long, default_value_t = 32)]
    wave_width: u32,
    /// Device memory size in bytes
    #[arg(long, default_value_t = 1 << 20)]
    memory: usize,
    /// Initial register value in every thread: R=VALUE (decimal or 0x hex)
    #[arg(long = "reg", value_parser = reg_value)]
    regs: Vec<(u32, u32)>,
    /// Load a file's bytes into device memory: ADDR=FILE
    #[arg(long = "load")]
    loads: Vec<String>,
    /// Print device memory after the run as 32-bit words: ADDR:LEN (bytes)
    #[arg(long = "dump")]
    dumps: Vec<String>,
    /// Fault after this many wave-instructions per workgroup (0: unlimited)
    #[arg(long, default_value_t = 50_000_000)]
    max_instructions: u64,
    /// Run the cycle model on this machine description (`key = value` lines)
    #[arg(long, value_name = "FILE")]
    machine: Option<std::path::PathBuf>,
    /// Fault on reading a register or predicate a lane never wrote
    #[arg(long)]
    strict: bool,
    /// Host threads to use (0: every core); results do not depend on it
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn number(s: &str) -> Result<u32, String> {
    let s = s.trim().replace('_', "");
    let parsed = match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse::<u32>(),
    };
    parsed.map_err(|_| format!("`{s}` is not a 32-bit number"))
}

fn triple(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = s.split(',').map(number).collect::<Result<_, _>>()?;
    match parts.as_slice() {
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(format!("expected X,Y,Z, got `{s}`")),
    }
}

fn reg_value(s: &str) -> Result<(u32, u32), String> {
    let (r, v) = s.split_once('=').ok_or_else(|| format!("expected R=VALUE, got `{s}`"))?;
    Ok((number(r.trim_start_matches('r'))?, number(v)?))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wavesim: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(&cli.file).map_err(|e| format!("cannot read {}: {e}", cli.file.display()))?;
    let profile = match cli.profile {
        ProfileArg::Spec => Profile::Spec04,
        ProfileArg::Toolchain012 => Profile::Toolchain012,
    };
    let program = wavesim::parse(&text, profile).map_err(|e| format!("{}:{e}", cli.file.display()))?;
    let kernel = match &cli.kernel {
        Some(name) => program.kernel(name).ok_or_else(|| format!("no kernel `{name}`"))?,
        None => program.kernels.first().ok_or("the file has no kernel")?,
    };
    let mut mem = Memory::new(cli.memory);
    for load in &cli.loads {
        let (addr, path) = load.split_once('=').ok_or_else(|| format!("expected ADDR=FILE, got `{load}`"))?;
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        mem.write(number(addr)?, &bytes)?;
    }
    let machine = match &cli.machine {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Some(Machine::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let cfg = SimConfig {
        wave_width: cli.wave_width,
        profile,
        max_instructions: cli.max_instructions,
        local_memory_limit: machine.as_ref().map(|m| m.local_memory_per_cu).unwrap_or(64 * 1024),
        timing: machine.is_some(),
        machine: machine.unwrap_or_default(),
        registers_for_occupancy: None,
        strict: cli.strict,
        threads: cli.threads,
        wide_waves: true,
        full_wave_ops: false,
    };
    let launch = Launch { grid: cli.grid, workgroup_size: cli.workgroup, args: cli.regs.clone() };
    let result = wavesim::run(kernel, &cfg, &launch, &mut mem);
    let code = match &result {
        Ok(stats) => {
            eprintln!(
                "{} workgroups, {} waves: {} wave-instructions, {} thread-instructions",
                stats.workgroups, stats.waves, stats.wave_instructions, stats.thread_instructions
            );
            if let Some(t) = &stats.timing {
                let c = &t.core_cycles;
                eprintln!(
                    "{} cycles; core cycles: issue {}, memory {}, dependency {}, barrier {}, idle {}; {} groups per compute unit",
                    t.cycles, c.issue, c.memory, c.dependency, c.barrier, c.idle, t.groups_per_cu
                );
            }
            ExitCode::SUCCESS
        }
        Err(fault) => {
            eprintln!("fault: {fault}");
            ExitCode::from(3)
        }
    };
    for dump in &cli.dumps {
        let (addr, len) = dump.split_once(':').ok_or_else(|| format!("expected ADDR:LEN, got `{dump}`"))?;
        let (addr, len) = (number(addr)?, number(len)? as usize);
        let bytes = mem.read(addr, len)?;
        for (i, chunk) in bytes.chunks(16).enumerate() {
            let words: Vec<String> = chunk.chunks(4).map(|w| w.iter().rev().map(|b| format!("{b:02x}")).collect()).collect();
            println!("{:#010x}: {}", addr as usize + 16 * i, words.join(" "));
        }
    }
    Ok(code)
}
