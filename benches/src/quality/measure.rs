//! One kernel under one configuration: compile it with the options the test
//! file and pipeline ask for, run it on the simulator with the cycle model, and
//! collect the allocator's figures, the occupancy and the simulated counts.

use std::path::{Path, PathBuf};
use wavec::driver::{compile_input, CompileOptions, OptLevel};
use wavec::run::advisor::{self, Advice};
use wavec::run::{self, Pipeline, PipelineTest, RunOptions};
use wavec::target::Target;

/// A benchmark kernel: a pipeline test and where it comes from.
pub struct Kernel {
    pub name: String,
    /// `benches/kernels`, `examples` or `examples/seeds`.
    pub set: &'static str,
    pub test: PipelineTest,
    pub pipeline: Pipeline,
}

impl Kernel {
    pub fn load(path: &Path, set: &'static str) -> Result<Kernel, String> {
        let test = run::load_test_file(path).map_err(|e| format!("{}: {}", path.display(), e.message))?;
        let pipeline = run::parse_pipeline(&test.pipeline_text).map_err(|e| format!("{}: {}", path.display(), e.message))?;
        let name = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        Ok(Kernel { name, set, test, pipeline })
    }
}

/// The `.test` files of the quality corpus, in a fixed order: every benchmark
/// kernel, every example and every seed example (all written as GPU programmers
/// write kernels; the core corpus tests language features and stays out).
pub fn corpus(root: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    for set in ["benches/kernels", "examples", "examples/seeds"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(set))
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "test")).collect())
            .unwrap_or_default();
        files.sort();
        out.extend(files.into_iter().map(|p| (p, set)));
    }
    out
}

/// A compilation setting: optimization level, target occupancy and what is disabled.
#[derive(Clone, Debug)]
pub struct Config {
    pub opt: OptLevel,
    pub target_occupancy: Option<u32>,
    pub disabled: Vec<&'static str>,
}

impl Config {
    pub fn o0() -> Config {
        Config { opt: OptLevel::O0, target_occupancy: None, disabled: Vec::new() }
    }
    pub fn o() -> Config {
        Config { opt: OptLevel::O, target_occupancy: None, disabled: Vec::new() }
    }
    pub fn at(target: u32) -> Config {
        Config { target_occupancy: Some(target), ..Config::o() }
    }
    pub fn without(&self, name: &'static str) -> Config {
        let mut c = self.clone();
        c.disabled.push(name);
        c
    }
    /// `-O0`, `-O`, `-O --target-occupancy 7`.
    pub fn label(&self) -> String {
        let mut s = String::from(if self.opt == OptLevel::O { "-O" } else { "-O0" });
        if let Some(t) = self.target_occupancy {
            s += &format!(" --target-occupancy {t}");
        }
        for d in &self.disabled {
            s += &format!(" --disable {d}");
        }
        s
    }
}

/// What one kernel gives under one configuration.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    pub registers: u32,
    pub max_live: u32,
    /// Registers the kernel ABI's arguments occupy (r0..), a floor on `registers`.
    pub abi_registers: u32,
    /// Values kept in local memory, their stores and reloads (plain and weighted by 10 per loop level).
    pub spilled: u32,
    pub stores: u32,
    pub reloads: u32,
    pub weighted_stores: u64,
    pub weighted_reloads: u64,
    /// Recomputations of rematerialized values.
    pub remats: u32,
    /// Values held in lane banks.
    pub banked: u32,
    pub local_memory: u32,
    /// Threads per workgroup.
    pub threads: u32,
    /// Waves per core on the target, and what limits them.
    pub waves: u32,
    pub limiter: String,
    pub static_insts: u64,
    /// Wave-instructions executed and cycles of the cycle model.
    pub dynamic: u64,
    pub cycles: u64,
    /// `ok`, `mismatch` or `fault` (the run's check against the expected buffers).
    pub check: &'static str,
    /// Warning codes of the compilation (W0402 when a target is missed).
    pub warnings: Vec<&'static str>,
}

impl Figures {
    /// Spill code of any kind was inserted.
    pub fn spills(&self) -> bool {
        self.stores + self.reloads + self.remats + self.banked > 0
    }
}

/// Instruction lines of a listing (indented, not comments).
pub fn static_count(asm: &str) -> u64 {
    asm.lines().filter(|l| l.starts_with("    ") && !l.trim_start().starts_with(';')).count() as u64
}

/// A kernel at the smallest register budget that needs no per-thread spill
/// memory: what a production compiler's vector registers are (it keeps
/// uniform values in scalar registers, where WAVE has rematerialization, lane
/// banks, workgroup words and bits).
#[derive(Clone, Debug, Default)]
pub struct Tight {
    pub registers: u32,
    /// Where the values that left the registers went there.
    pub remats: u32,
    pub banked: u32,
    pub group_values: u32,
    pub bits: u32,
    /// The kernel's arguments and one temporary: no budget below is reachable.
    pub abi_floor: bool,
}

/// Lowers `--max-registers` from the -O registers while the kernel still
/// meets it without a per-thread spill slot (local or device); the last
/// budget that does.
pub fn tightest(k: &Kernel, target: &Target, at_o: u32) -> Option<Tight> {
    let compile = |budget: Option<u32>| {
        let mut copts = CompileOptions::new(target.clone());
        copts.opt = OptLevel::O;
        copts.max_registers = budget;
        k.test.flags.apply(&mut copts);
        run::apply_pipeline(&k.pipeline, &mut copts);
        compile_input(&k.test.input(), &copts, false).result.ok()
    };
    let mut best = compile(None).map(|c| Tight { registers: c.interface.registers, ..Tight::default() })?;
    let mut budget = at_o.min(best.registers);
    while budget > 1 {
        budget -= 1;
        let Some(c) = compile(Some(budget)) else { break };
        let s = &c.spill;
        if c.interface.registers > budget {
            best.abi_floor = c.interface.registers <= c.interface.abi_registers() + 1;
            break;
        }
        if s.spilled > 0 {
            break;
        }
        best = Tight {
            registers: c.interface.registers,
            remats: s.remat_values,
            banked: s.banked - s.masked,
            group_values: s.group_values,
            bits: s.bits + s.masked,
            abi_floor: false,
        };
    }
    Some(best)
}

/// Compiles and runs `k` under `c` on `target`; `Err` holds the error codes of a refused compilation.
pub fn measure(k: &Kernel, c: &Config, target: &Target) -> Result<Figures, String> {
    let mut copts = CompileOptions::new(target.clone());
    copts.opt = c.opt;
    copts.target_occupancy = c.target_occupancy;
    for d in &c.disabled {
        assert!(copts.disable(d), "`{d}` comes from CompileOptions::disableable");
    }
    k.test.flags.apply(&mut copts);
    run::apply_pipeline(&k.pipeline, &mut copts);
    let compilation = compile_input(&k.test.input(), &copts, false);
    let compiled = match compilation.result {
        Ok(c) => c,
        Err(diags) => return Err(diags.iter().map(|d| d.code).collect::<Vec<_>>().join(",")),
    };
    let mut ro = RunOptions::new(target.clone());
    ro.compile = copts;
    let outcome = run::execute_in(&k.pipeline, &compiled, &compilation.sources, &ro);
    let (dynamic, cycles) = outcome.stats.as_ref().map_or((0, 0), |s| (s.sim.wave_instructions, s.sim.cycles));
    let i = &compiled.interface;
    let s = &compiled.spill;
    Ok(Figures {
        registers: i.registers,
        max_live: compiled.max_live,
        abi_registers: i.abi_registers(),
        spilled: s.spilled,
        stores: s.stores,
        reloads: s.reloads,
        weighted_stores: s.weighted_stores,
        weighted_reloads: s.weighted_reloads,
        remats: s.remats,
        banked: s.banked,
        local_memory: i.local_memory,
        threads: i.workgroup_size.iter().product(),
        waves: compiled.occupancy.waves_per_core,
        limiter: compiled.occupancy.limiter.to_string(),
        static_insts: static_count(&compiled.asm),
        dynamic,
        cycles,
        check: match (outcome.exit_code, outcome.stats.is_some()) {
            (0, _) => "ok",
            (_, true) => "mismatch",
            _ => "fault",
        },
        warnings: compiled.warnings.iter().map(|d| d.code).collect(),
    })
}

/// The occupancy advisor on `k` at -O (`wavec run --target-occupancy auto`,
/// the library's [`advisor::advise`]): every candidate target compiled, checked
/// and timed as the command does; `Err` holds the first line of why it could not run.
pub fn advise(k: &Kernel, target: &Target) -> Result<Advice, String> {
    let mut ro = RunOptions::new(target.clone());
    ro.compile.opt = OptLevel::O;
    advisor::advise(&k.test, &ro).map_err(|o| o.stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("failed").trim().to_string())
}
