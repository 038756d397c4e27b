//! What a compilation is asked to do: every option of the driver's pipeline,
//! from the preprocessor's defines to the register allocator's switches. Its
//! own module because the stages below the driver read it too (the back end's
//! schedule and load choices), and they must not depend on the driver.

use std::path::PathBuf;

use crate::frontend::preprocess::PpOptions;
use crate::options::{Isa, OptLevel};
use crate::target::Target;
use crate::{passes, regalloc, target};

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub isa: Isa,
    pub opt: OptLevel,
    pub target: Target,
    /// Waves per core the allocator should aim for.
    pub target_occupancy: Option<u32>,
    /// At most this many registers per thread (`--max-registers`).
    pub max_registers: Option<u32>,
    /// The kernel's threads per workgroup and declared local memory, once
    /// known (the driver sets them after the front end): a target
    /// occupancy's budget is then what reaches it in whole workgroups.
    pub workgroup: Option<(u32, u32)>,
    /// Entry point name; `None` picks the single `[numthreads]` function.
    pub entry: Option<String>,
    /// `-D NAME[=VALUE]` preprocessor definitions.
    pub defines: Vec<(String, String)>,
    /// `-U NAME`: applied after every `-D`.
    pub undefines: Vec<String>,
    /// `-I DIR`, searched for includes before the standard library.
    pub include_dirs: Vec<PathBuf>,
    /// `-T` profile (`cs_6_5`): sets `__SHADER_TARGET_MAJOR/MINOR`.
    pub profile: Option<String>,
    /// `-HV` year: the language rules and `__HLSL_VERSION` (default 2021;
    /// 2018 for a Unity `.compute` file, see [`hlsl_version`]).
    pub hlsl_version: Option<u32>,
    /// `-Zpr`: matrices are row-major in memory by default.
    pub row_major_default: bool,
    /// `-enable-16bit-types`: `half`, `min16*` and `*16_t` are 16-bit types
    /// (and `__HLSL_ENABLE_16_BIT` is defined).
    pub enable_16bit_types: bool,
    /// `--robust-access`: D3D's robust buffer access. Every buffer access is
    /// bounds-checked against the buffer's size (an ABI argument): an
    /// out-of-bounds load gives 0, an out-of-bounds store or atomic is dropped.
    pub robust_access: bool,
    /// `-denorm`: fp32 denormal handling.
    pub denorm: crate::options::Denorm,
    /// `--strict-ieee` (dxc's `-Gis`): no multiply-add contraction.
    pub strict_ieee: bool,
    /// Register allocation: recompute constants and special registers instead of spilling them.
    pub remat: bool,
    /// Register allocation: keep spilled wave-uniform values in lanes of bank registers.
    pub lane_banks: bool,
    /// At -O: reorder each block before allocation (pressure first, then latency).
    pub schedule: bool,
    /// Register allocation: keep spilled workgroup-invariant values in one
    /// word of local memory per workgroup (`--disable group-words`).
    pub group_words: bool,
    /// Register allocation: keep spilled booleans as bits, 32 to a register
    /// (`--disable bool-bits`).
    pub bool_bits: bool,
    /// At -O: adjacent words load as one `device_load_u64`/`u128` into a
    /// register tuple (`--disable widen`).
    pub widen: bool,
    /// Register allocation: keep spilled booleans as wave masks in bank lanes.
    pub bool_masks: bool,
    /// 16-bit values two per register, in halves, with 16-bit operations
    /// (`--isa wave` only; `--disable pack16`).
    pub pack16: bool,
    /// Pair independent 16-bit operations into `hadd2`/`hmul2`/`hma2` on packed
    /// halves (`--isa wave` with pack16 only; `--disable pair16`).
    pub pair16: bool,
    /// Groupshared address arithmetic provably below 2^16 in halves (`--isa
    /// wave` with pack16 only; `--disable addr16`).
    pub addr16: bool,
    /// At -O, one compare's predicate serves the later selects reading an
    /// identical compare while predicate registers allow (`--disable pred-reuse`).
    pub pred_reuse: bool,
    /// `select(p, op(x), x)` as one predicated `@p op` (codegen::pred_merge).
    pub pred_merge: bool,
    /// A block's repeated constants read its first copy where registers allow (codegen::share_constants).
    pub share_constants: bool,
    /// `--explain-uniformity`: the IR text (`Compiled::ir`) notes the whole
    /// chain of reasons for each divergent value, not just the first step.
    pub explain_uniformity: bool,
    /// IR passes to leave out of the pipeline, by name (`passes::PASSES`), for ablations.
    pub disabled_passes: Vec<String>,
    /// `--array-size REG=N`: the host binds N descriptors from register REG on (a
    /// pipeline layout); the size of an unbounded resource array declared there.
    pub descriptor_counts: Vec<(crate::interface::Binding, u32)>,
    /// What the compilation (and `wavec run`) may use: `--limit NAME=VALUE`.
    pub limits: crate::limits::Limits,
    /// Which warnings are reported, and which as errors (`-W...`, `-WX`, `-w`).
    pub warnings: crate::diag::warnings::WarningPolicy,
}

impl CompileOptions {
    pub fn new(target: Target) -> CompileOptions {
        CompileOptions {
            isa: Isa::Wave,
            opt: OptLevel::O0,
            target,
            target_occupancy: None,
            max_registers: None,
            workgroup: None,
            entry: None,
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            profile: None,
            hlsl_version: None,
            row_major_default: false,
            enable_16bit_types: false,
            robust_access: false,
            denorm: crate::options::Denorm::Any,
            strict_ieee: false,
            remat: true,
            lane_banks: true,
            schedule: true,
            group_words: true,
            bool_bits: true,
            widen: true,
            bool_masks: true,
            pack16: true,
            pair16: true,
            addr16: true,
            pred_reuse: true,
            pred_merge: true,
            share_constants: true,
            explain_uniformity: false,
            disabled_passes: Vec::new(),
            descriptor_counts: Vec::new(),
            limits: crate::limits::Limits::default(),
            warnings: crate::diag::warnings::WarningPolicy::default(),
        }
    }

    /// Optimizations `--disable` can turn off: every IR pass, then the register allocator's.
    pub fn disableable() -> Vec<&'static str> {
        passes::PASSES
            .iter()
            .map(|p| p.name)
            .filter(|n| !passes::REQUIRED.contains(n))
            .chain([
                "sched",
                "remat",
                "lane-banks",
                "group-words",
                "bool-masks",
                "bool-bits",
                "widen",
                "pack16",
                "pair16",
                "addr16",
                "pred-reuse",
                "pred-merge",
                "share-constants",
            ])
            .collect()
    }

    /// Turns off the optimization `name`; false if there is none by that name.
    pub fn disable(&mut self, name: &str) -> bool {
        match name {
            "remat" => self.remat = false,
            "sched" => self.schedule = false,
            "lane-banks" => self.lane_banks = false,
            "group-words" => self.group_words = false,
            "bool-bits" => self.bool_bits = false,
            "widen" => self.widen = false,
            "bool-masks" => self.bool_masks = false,
            "pack16" => self.pack16 = false,
            "pair16" => self.pair16 = false,
            "addr16" => self.addr16 = false,
            "pred-reuse" => self.pred_reuse = false,
            "pred-merge" => self.pred_merge = false,
            "share-constants" => self.share_constants = false,
            _ if passes::by_name(name).is_some() && !passes::REQUIRED.contains(&name) => {
                if !self.disabled_passes.iter().any(|p| p == name) {
                    self.disabled_passes.push(name.to_string());
                }
            }
            _ => return false,
        }
        true
    }

    /// The register budget: what the target occupancy allows, capped by `--max-registers`.
    pub fn register_budget(&self) -> Option<u32> {
        let by_occupancy = self.target_occupancy.map(|o| self.occupancy_budget(o).0);
        match (by_occupancy, self.max_registers) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The registers per thread that reach `waves` per core, and the waves
    /// they reach: with the workgroup known, in whole workgroups
    /// ([`target::register_budget_for`]), else by the register file alone.
    pub fn occupancy_budget(&self, waves: u32) -> (u32, u32) {
        match self.workgroup {
            Some((threads, local)) => target::register_budget_for(&self.target, waves, threads, local),
            None => (target::register_budget(&self.target, waves), waves),
        }
    }

    /// Local memory a workgroup may use, spill slots included: with a target
    /// occupancy and the workgroup known, no more than keeps the waves the
    /// target's budget reaches (slots past it go to the device scratch
    /// buffer); else what the target allows a workgroup.
    pub fn spill_local_limit(&self) -> u32 {
        let most = self.target.local_memory_per_workgroup;
        let (Some(o), Some((threads, declared))) = (self.target_occupancy, self.workgroup) else { return most };
        let (budget, reach) = self.occupancy_budget(o);
        let waves = |local: u32| target::occupancy(&self.target, budget, threads, local).waves_per_core;
        if declared >= most || waves(declared) < reach {
            return most.max(declared);
        }
        // Occupancy falls as local memory grows: the largest size that keeps it.
        let (mut lo, mut hi) = (declared, most);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if waves(mid) >= reach {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// What register allocation may do with these options.
    pub fn alloc_options(&self) -> regalloc::AllocOptions {
        regalloc::AllocOptions {
            isa: self.isa,
            budget: self.register_budget(),
            remat: self.remat,
            // On wave-0.1.2, lane banks and wave masks read back with wave ops
            // (which the published backends run with a full-wave mask, wrong in
            // divergent code) and bit banks are written with `bfi` (whose
            // operands the backends read in another order): docs/backends.md.
            lane_banks: self.lane_banks && self.isa == Isa::Wave,
            group_words: self.group_words,
            bool_bits: self.bool_bits && self.isa == Isa::Wave,
            bool_masks: self.bool_masks && self.isa == Isa::Wave,
            pack16: self.pack16,
            wave_width: self.target.wave_width,
            local_limit: self.spill_local_limit(),
            scratch_register: None,
            target: Some(Box::new(self.target.clone())),
        }
    }

    /// The preprocessor's settings.
    pub fn preprocessor(&self) -> PpOptions {
        let mut pp = PpOptions {
            defines: self.defines.clone(),
            undefines: self.undefines.clone(),
            include_dirs: self.include_dirs.clone(),
            enable_16bit_types: self.enable_16bit_types,
            limits: self.limits,
            ..PpOptions::default()
        };
        if let Some(v) = self.hlsl_version {
            pp.hlsl_version = v;
        }
        if let Some(p) = &self.profile {
            pp.set_profile(p);
        }
        pp
    }
}
