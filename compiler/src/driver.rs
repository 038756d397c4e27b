//! The compiler driver: preprocesses an [`Input`] (the main file and its
//! includes), then runs the pipeline stages in order.
//!
//! [`compile_input`] is the whole job and returns the [`Sources`] map with the
//! result, so that diagnostics in included files render. [`compile`] and
//! [`compile_with`] take one in-memory file (includes found through `-I` and
//! the standard library only); their diagnostics render with that file alone
//! (labels in other files become notes).

use crate::diag::{Diagnostic, SourceFile, Sources};
use crate::frontend::preprocess::{self, PackMatrix, PragmaKernel, Preprocessed};
use crate::interface::{ArrayElement, BoundResource, CbufferMember, ConstantBlock, KernelInterface, ResourceKind, ScratchBuffer};
use crate::liveness::pressure::max_live;
use crate::source::Input;
use crate::target::{Occupancy, Target};
use crate::{backend, codegen, emit, frontend, ir, lower, passes, regalloc, target};

pub use crate::options::{HlslVersion, Isa, OptLevel};

pub use crate::compile_options::CompileOptions;

/// Why a compilation follows the HLSL version it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionFrom {
    /// `-HV YEAR` (or a RUN line's).
    Flag,
    /// A Unity `.compute` file without `-HV`: Unity compiles these with FXC,
    /// whose rules are HLSL 2018's.
    UnityFile,
    /// DXC's default, 2021.
    Default,
}

/// The HLSL version `input` is compiled with, and why.
pub fn hlsl_version(input: &Input, opts: &CompileOptions) -> (HlslVersion, VersionFrom) {
    match opts.hlsl_version {
        Some(y) => (HlslVersion(y), VersionFrom::Flag),
        None if input.unity_compute => (HlslVersion::UNITY, VersionFrom::UnityFile),
        None => (HlslVersion::DEFAULT, VersionFrom::Default),
    }
}

/// One line saying which HLSL rules `input` is compiled with and why (`--verbose`).
pub fn describe_hlsl_version(input: &Input, opts: &CompileOptions) -> String {
    let (v, from) = hlsl_version(input, opts);
    let rules = if v.legacy() {
        "no short-circuit: `&&`, `||`, `?:` evaluate every operand element-wise; `for` variables outlive their loop"
    } else {
        "`&&`, `||`, `?:` short-circuit on scalars; `for` variables are scoped to their loop"
    };
    let why = match from {
        VersionFrom::Flag => "from -HV".to_string(),
        VersionFrom::UnityFile => {
            format!(
                "`{}` is a Unity .compute file, which Unity compiles with FXC (HLSL 2018 rules); pass -HV 2021 for DXC's",
                input.main.name
            )
        }
        VersionFrom::Default => "DXC's default".to_string(),
    };
    format!("note: HLSL {} ({why}): {rules}", v.0)
}

/// A compilation: every file it read, what the preprocessor found for the
/// semantic side, and the result.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// Render diagnostics with this (`diag::render(&c.sources, ..)`).
    pub sources: Sources,
    /// `#pragma kernel` lines (empty if preprocessing failed).
    pub kernels: Vec<PragmaKernel>,
    /// `#pragma pack_matrix` lines (empty if preprocessing failed).
    pub pack_matrix: Vec<PackMatrix>,
    pub result: Result<Compiled, Vec<Diagnostic>>,
}

/// The kernel arguments a lowered function reads after dead code is gone: the
/// buffers whose contents it touches (an address read only for `GetDimensions`
/// goes away with the dead code).
fn addresses_read(func: &ir::Function) -> std::collections::BTreeSet<u32> {
    let mut f = func.clone();
    passes::dce::run(&mut f, &passes::PassContext::default());
    let mut used = std::collections::BTreeSet::new();
    for (_, b) in f.blocks.iter() {
        for &i in &b.insts {
            used.extend(f.insts[i].args());
        }
        used.extend(b.term.args());
    }
    f.blocks
        .iter()
        .flat_map(|(_, b)| b.insts.iter())
        .filter_map(|&i| match (&f.insts[i], f.results[i]) {
            (ir::InstData::KernelArg { index }, Some(v)) if used.contains(&v) => Some(*index),
            _ => None,
        })
        .collect()
}

/// The launch interface's resources: those the entry point uses, in ABI slot order.
fn bound_resources(module: &frontend::tast::Module, contents_read: &std::collections::BTreeSet<u32>) -> Vec<BoundResource> {
    use frontend::layout::{Layouter, Rules};
    let types = &module.types;
    module
        .bound_resources()
        .into_iter()
        .map(|r| {
            let (element_type, stride, members) = match (r.kind, r.elem) {
                (ResourceKind::ConstantBuffer, frontend::tast::Type::Struct(s)) => {
                    let l = Layouter::new(types, Rules::Cbuffer);
                    let offsets = l.field_offsets(s.0, r.major);
                    let members = types
                        .strukt(s)
                        .fields
                        .iter()
                        .zip(offsets)
                        .map(|(f, offset)| CbufferMember { name: f.name.clone(), ty: types.name(f.ty), offset })
                        .collect();
                    ("cbuffer".to_string(), l.size(r.elem, r.major), members)
                }
                (ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer, _) => ("byte".to_string(), 4, Vec::new()),
                _ => (types.name(r.elem), Layouter::new(types, Rules::Tight).array_stride(r.elem, r.major), Vec::new()),
            };
            BoundResource {
                register: r.slot.unwrap_or(0),
                name: r.name.clone(),
                kind: r.kind,
                binding: r.binding,
                element_type,
                stride,
                members,
                size_register: r.size_slot,
                counter_register: r.counter_slot,
                size_only: r.size_slot.is_some() && !r.slot.is_some_and(|s| contents_read.contains(&s)),
                array: r.array.as_ref().map(|(name, index)| ArrayElement { name: name.clone(), index: index.clone() }),
            }
        })
        .collect()
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The annotated listing (assembly text).
    pub asm: String,
    /// The IR after the last IR pass, in its text form.
    pub ir: String,
    pub interface: KernelInterface,
    pub occupancy: Occupancy,
    /// Most V values live at once in the final code (the lower bound on registers).
    pub max_live: u32,
    /// Warnings (compilation succeeded).
    pub warnings: Vec<Diagnostic>,
    /// What the register allocator spilled, rematerialized and banked (the quality table's figures).
    pub spill: regalloc::SpillStats,
}

/// W0402: the target occupancy is not reached; names the binding limit and,
/// when registers bind, the values live at the pressure peak.
#[allow(clippy::too_many_arguments)]
fn occupancy_not_met(
    t: &Target,
    want: u32,
    budget: u32,
    registers: u32,
    occ: &Occupancy,
    alloc: &regalloc::Allocation,
    m: &codegen::mir::MFunction,
    sources: &Sources,
    entry: crate::diag::Span,
) -> Diagnostic {
    let mut d = Diagnostic::warning(
        "W0402",
        format!("target occupancy of {want} waves per core is not met: {} waves per core, limited by {}", occ.waves_per_core, occ.limiter),
    )
    .with_label(entry, "this kernel");
    // Workgroups are resident whole: the waves a budget reaches come in their steps.
    let threads: u32 = m.workgroup_size.iter().product();
    let (_, reached) = target::register_budget_for(t, want, threads, m.local_memory);
    let most = target::occupancy(t, 1, threads, m.local_memory);
    if most.waves_per_core < want {
        d = d.with_note(format!(
            "no register count reaches it: workgroups of {} waves are resident whole, and at most {} waves per core fit (limited by {})",
            occ.waves_per_workgroup, most.waves_per_core, most.limiter
        ));
    } else if reached != want {
        d = d.with_note(format!(
            "workgroups of {} waves are resident whole: {want} waves per core means {reached}, which takes at most {budget} registers",
            occ.waves_per_workgroup
        ));
    }
    match occ.limiter {
        target::Limiter::Registers => {
            d = d.with_note(format!(
                "the kernel uses {registers} registers; the budget for {want} waves is {budget}; even with spilling, {} values must be live at once",
                alloc.budget
            ));
            if let Some(peak) = alloc.peak.as_ref() {
                let lines = emit::peak_lines(m, peak, sources);
                d = d.with_note(format!(
                    "at the pressure peak ({}), live values were defined at: {}",
                    emit::point_line(m, peak, sources),
                    lines
                ));
            }
        }
        target::Limiter::LocalMemory => {
            d = d.with_note(format!(
                "local memory binds: {} bytes per workgroup ({} of them spill slots)",
                m.local_memory, alloc.spill.spill_bytes
            ));
        }
        _ => {}
    }
    d
}

/// W0402 for `--max-registers N` that the kernel exceeds: the binding limits
/// are the ABI (an argument register at or above N) and, beyond it, what must
/// be live at once even with spilling (one instruction's operands, a block's
/// fixed arguments), with the values live at the peak.
#[allow(clippy::too_many_arguments)]
fn max_registers_not_met(
    limit: u32,
    registers: u32,
    resources: &[BoundResource],
    abi_registers: u32,
    alloc: &regalloc::Allocation,
    m: &codegen::mir::MFunction,
    sources: &Sources,
    entry: crate::diag::Span,
) -> Diagnostic {
    let mut d = Diagnostic::warning("W0402", format!("`--max-registers {limit}` is not met: the kernel uses {registers} registers"))
        .with_label(entry, "this kernel");
    if abi_registers > limit {
        // The resource whose address, size or counter sits in the highest argument register.
        let last = abi_registers - 1;
        let holder = resources
            .iter()
            .find(|r| r.register == last || r.size_register == Some(last) || r.counter_register == Some(last))
            .map_or_else(|| "the constant block".to_string(), |r| format!("`{}`", r.name));
        d = d.with_note(format!(
            "limited by the kernel ABI: its arguments are passed in r0..r{last} ({holder} in r{last}), which no spilling can move"
        ));
    }
    if registers <= abi_registers {
        return d;
    }
    d = d.with_note(format!(
        "limited by registers: even with spilling, {} values must be live at once (operands of one instruction, spill addresses, a block's fixed arguments)",
        alloc.budget
    ));
    match alloc.peak.as_ref() {
        Some(peak) => d.with_note(format!(
            "at the pressure peak ({}), live values were defined at: {}",
            emit::point_line(m, peak, sources),
            emit::peak_lines(m, peak, sources)
        )),
        None => d,
    }
}

/// W0403: spill slots went to the scratch buffer in device memory (the
/// host must allocate it; every access is a device access).
fn scratch_warning(s: &ScratchBuffer, spill: &regalloc::SpillStats, entry: crate::diag::Span) -> Diagnostic {
    Diagnostic::warning(
        "W0403",
        format!(
            "{} spilled value(s) live in a scratch buffer in device memory: {} slot(s), {} bytes per thread, {} per workgroup, address in r{}",
            spill.device_values, s.slots, s.bytes_per_thread, s.bytes_per_workgroup, s.register
        ),
    )
    .with_label(entry, "this kernel")
    .with_note(format!(
        "{} spill slot(s) fit the local memory left to a workgroup ({} bytes); the others are device accesses, slower to reach ({} stores, {} reloads); fewer values live at once, a smaller workgroup or less groupshared memory keeps them local",
        spill.spill_bytes / (s.bytes_per_workgroup / s.slots.max(1)).max(1),
        spill.spill_bytes,
        spill.device_stores,
        spill.device_reloads
    ))
}

/// The back end alone, from IR (the back end's tests): selection, register
/// allocation with `alloc`, and the listing of a kernel of `threads` threads
/// per group (one dimension). The IR must verify. `text` is its source, for
/// the listing's line notes.
pub fn compile_ir(
    f: &ir::Function,
    text: &str,
    alloc: &regalloc::AllocOptions,
    target: &Target,
    threads: u32,
) -> Result<(String, KernelInterface), Diagnostic> {
    compile_ir_paired(f, text, alloc, target, threads, false)
}

/// [`compile_ir`], with 16-bit operations paired (`pair16`) when `pair16`
/// and packing allow (spec profile).
pub fn compile_ir_paired(
    f: &ir::Function,
    text: &str,
    alloc: &regalloc::AllocOptions,
    target: &Target,
    threads: u32,
    pair16: bool,
) -> Result<(String, KernelInterface), Diagnostic> {
    let uniform = passes::uniformity::analyze(f);
    let mut m = codegen::select(f, alloc.isa, &uniform, alloc.pack16)?;
    m.workgroup_size = [threads, 1, 1];
    if pair16 && alloc.pack16 && alloc.isa == Isa::Wave {
        codegen::pair16::run(&mut m);
    }
    let a = regalloc::allocate(&mut m, alloc)?;
    let interface = KernelInterface {
        kernel: f.name.clone(),
        workgroup_size: [threads, 1, 1],
        numthreads: None,
        registers: a.num_v.max(1),
        local_memory: m.local_memory,
        resources: Vec::new(),
        constants: None,
        scratch: alloc.scratch_register.filter(|_| a.spill.device_slots > 0).map(|r| ScratchBuffer::new(r, a.spill.device_slots, threads)),
    };
    let occupancy = target::occupancy(target, interface.registers, threads, interface.local_memory);
    let source = SourceFile::new("kernel.ir", text);
    let cx = emit::ListingContext {
        source: &source,
        interface: &interface,
        target,
        isa: alloc.isa,
        occupancy: &occupancy,
        target_occupancy: None,
    };
    let asm = emit::emit_listing(&m, &a, &cx).map_err(|e| Diagnostic::error("E0404", format!("internal error while emitting: {e}")))?;
    Ok((asm, interface))
}

/// Compiles one in-memory `file` with `opts`.
pub fn compile(file: &SourceFile, opts: &CompileOptions) -> Result<Compiled, Vec<Diagnostic>> {
    compile_with(file, opts, cfg!(debug_assertions))
}

/// Compiles one in-memory `file`; with `verify_each`, the IR verifier runs
/// after lowering and every pass. Diagnostics render with `file` alone.
pub fn compile_with(file: &SourceFile, opts: &CompileOptions, verify_each: bool) -> Result<Compiled, Vec<Diagnostic>> {
    let c = compile_input(&Input::new(file.clone()), opts, verify_each);
    let sources = c.sources;
    c.result
        .map(|mut ok| {
            sources.localize_to_main(&mut ok.warnings);
            ok
        })
        .map_err(|mut d| {
            sources.localize_to_main(&mut d);
            d
        })
}

/// Preprocesses `input` with the options' `-D`/`-U`/`-I` and compiles it.
/// Its diagnostics are what the options' warning policy lets through: a
/// warning it makes an error fails the compilation.
pub fn compile_input(input: &Input, opts: &CompileOptions, verify_each: bool) -> Compilation {
    let mut c = compile_unfiltered(input, opts, verify_each);
    let policy = &opts.warnings;
    c.result = match c.result {
        Ok(mut ok) => {
            ok.warnings = policy.apply(std::mem::take(&mut ok.warnings));
            if ok.warnings.iter().any(Diagnostic::is_error) {
                Err(ok.warnings)
            } else {
                Ok(ok)
            }
        }
        Err(d) => Err(policy.apply(d)),
    };
    c
}

/// [`compile_input`] with every warning reported as it is.
fn compile_unfiltered(input: &Input, opts: &CompileOptions, verify_each: bool) -> Compilation {
    // Settle the language version first: it also sets `__HLSL_VERSION`.
    let mut settled = opts.clone();
    settled.hlsl_version = Some(hlsl_version(input, opts).0 .0);
    let opts = &settled;
    let (mut sources, pp) = preprocess::preprocess(input, &opts.preprocessor());
    let mut pp = match pp {
        Ok(pp) => pp,
        Err(d) => return Compilation { sources, kernels: Vec::new(), pack_matrix: Vec::new(), result: Err(d) },
    };
    // Unity's `#pragma kernel NAME DEFINE[=VALUE]...`: the chosen kernel's words are
    // macros for that kernel's compilation, so preprocess again with them.
    let wanted = opts.entry.clone().or_else(|| match pp.kernels.as_slice() {
        [k] => Some(k.name.clone()),
        _ => None,
    });
    let extra: Vec<(String, String)> = pp
        .kernels
        .iter()
        .find(|k| Some(&k.name) == wanted.as_ref())
        .map(|k| {
            k.defines
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => (d.clone(), "1".to_string()),
                })
                .collect()
        })
        .unwrap_or_default();
    // Kernels that differ only by their defines cannot be told apart without a name.
    if wanted.is_none() && pp.kernels.len() > 1 && pp.kernels.iter().any(|k| !k.defines.is_empty()) {
        let mut d = Diagnostic::error("E0232", "several `#pragma kernel` entry points; choose one by name");
        for k in &pp.kernels {
            d = d.with_label(k.span, "kernel");
        }
        let listed = pp.kernels.iter().map(|k| format!("`{}`", k.name)).collect::<Vec<_>>().join(", ");
        let d = d.with_note(format!(
            "kernels in this file: {listed}; pass one with -E NAME (its #pragma kernel defines apply to that compilation only)"
        ));
        return Compilation { kernels: pp.kernels, pack_matrix: pp.pack_matrix, sources, result: Err(vec![d]) };
    }
    if !extra.is_empty() {
        let mut with = opts.clone();
        with.defines.extend(extra);
        let (s2, pp2) = preprocess::preprocess(input, &with.preprocessor());
        sources = s2;
        pp = match pp2 {
            Ok(pp) => pp,
            Err(d) => return Compilation { sources, kernels: Vec::new(), pack_matrix: Vec::new(), result: Err(d) },
        };
    }
    let result = compile_preprocessed(&pp, &sources, opts, verify_each);
    Compilation { kernels: pp.kernels, pack_matrix: pp.pack_matrix, sources, result }
}

/// Compiles preprocessed text (`sources` holds its files).
/// E0411: a wave operation that `converge-waves` could not take out of
/// divergent code, which the published 0.1.2 backends cannot run.
fn refuse_unconverged(func: &ir::Function) -> Result<(), Vec<Diagnostic>> {
    let left = passes::converge::unconverged(func);
    let Some(&first) = left.first() else { return Ok(()) };
    let d = Diagnostic::error("E0411", "wave operation in divergent control flow that the wave-0.1.2 backends cannot run")
        .with_label(func.spans[first], "this wave operation is executed by only some lanes of the wave")
        .with_note("wave-ptx 0.1.2 runs wave operations with a full-warp mask; wavec could not make this one run with every lane (docs/backends.md). Use `--isa wave`");
    Err(vec![d])
}

pub fn compile_preprocessed(
    pp: &Preprocessed,
    sources: &Sources,
    opts: &CompileOptions,
    verify_each: bool,
) -> Result<Compiled, Vec<Diagnostic>> {
    let fe = frontend::FrontendOptions {
        entry: opts.entry.clone(),
        native_16bit: opts.enable_16bit_types,
        row_major_default: opts.row_major_default,
        robust_access: opts.robust_access,
        flush_denormals: opts.denorm == crate::options::Denorm::Ftz,
        hlsl_version: opts.hlsl_version.map_or(HlslVersion::DEFAULT, HlslVersion),
        descriptor_counts: opts.descriptor_counts.clone(),
        ..Default::default()
    };
    let (module, mut warnings) = frontend::analyze_preprocessed(pp, sources, &fe)?;
    // -O0 is a plain translation: dynamically indexed local arrays live in local memory.
    let lower_opts = lower::LowerOptions {
        local_arrays_within: (opts.opt == OptLevel::O0).then_some(opts.target.local_memory_per_workgroup),
        no_contraction: opts.strict_ieee,
        uniform_wave_loops: opts.isa == crate::options::Isa::Wave012,
    };
    let mut func = lower::lower_with(&module, &lower_opts)?;
    // Calls inlined inside nested code can nest the IR past what its region tree
    // takes: far past WAVE's 32 frames, and refused as such (E0409), not as the
    // internal error a pass would meet.
    if let Err(e) = ir::structure::region_tree(&func) {
        if e.contains("nested too deeply") {
            return Err(vec![Diagnostic::error(
                "E0409",
                format!("control flow nested more than 256 deep: WAVE holds at most {} open `if`/`loop` frames", emit::MAX_FRAMES),
            )
            .with_label(module.entry.span, "in this kernel, with the functions it calls inlined")]);
        }
    }
    let contents_read = addresses_read(&func);
    let internal = |stage: &str, errs: Vec<ir::VerifyError>| -> Vec<Diagnostic> {
        let mut d = Diagnostic::error("E0400", format!("internal compiler error: invalid IR after {stage}"));
        for e in errs.iter().take(8) {
            d = d.with_note(e.to_string());
        }
        vec![d]
    };
    if verify_each {
        ir::verify(&func).map_err(|e| internal("lowering", e))?;
    }
    if module.flush_denormals {
        passes::ftz::flush_denormals(&mut func);
        if verify_each {
            ir::verify(&func).map_err(|e| internal("ftz", e))?;
        }
    }
    let numthreads = module.entry.numthreads;
    let threads: u32 = numthreads.iter().product();
    // From here on a target occupancy counts whole workgroups.
    let with_workgroup = CompileOptions { workgroup: Some((threads, func.local_memory)), ..opts.clone() };
    let opts = &with_workgroup;
    let unoptimized = func.clone();
    let mut cx = pass_context(opts, threads, func.local_memory, Some(numthreads));
    passes::run(&mut func, opts.opt, &cx, verify_each).map_err(|(name, e)| internal(&name, e))?;
    // A padded kernel (`pad-warps`) with a wave operation that
    // `converge-waves` could not make converged is compiled unpadded
    // instead: as before (refused the same way if that fails too).
    if func.padded.is_some() && !passes::converge::unconverged(&func).is_empty() {
        cx.workgroup = None;
        func = unoptimized.clone();
        passes::run(&mut func, opts.opt, &cx, verify_each).map_err(|(name, e)| internal(&name, e))?;
    }
    if opts.isa == Isa::Wave012 {
        refuse_unconverged(&func)?;
    }
    // The launch: `[numthreads]`, or 1-D groups of whole warps if padded.
    let launch = func.padded.map_or(numthreads, |p| [p.launch, 1, 1]);
    let threads: u32 = launch.iter().product();
    let with_launch = CompileOptions { workgroup: Some((threads, func.local_memory)), ..opts.clone() };
    let opts = &with_launch;
    let uniformity = passes::uniformity::analyze_with_witness(&func);
    let uniform = uniformity.to_map();
    let ir_text = if opts.explain_uniformity {
        ir::print_function(&func, &|v| Some(uniformity.explain(v)))
    } else {
        ir::print_function(&func, &|v| Some(uniformity.note(v)))
    };

    let resources = bound_resources(&module, &contents_read);
    let constants = module.const_tables.slot.map(|register| ConstantBlock {
        register,
        tables: module
            .const_tables
            .tables
            .iter()
            .map(|(l, off)| {
                let info = module.local(*l);
                let size = frontend::layout::Layouter::new(&module.types, frontend::layout::Rules::Tight)
                    .size(info.ty, frontend::tast::MatrixMajor::Column);
                (info.name.clone(), *off, size)
            })
            .collect(),
        bytes: module.const_tables.bytes.clone(),
    });
    let abi_registers = crate::interface::abi_registers(&resources, constants.as_ref());
    // Spill slots that local memory cannot hold go to a scratch buffer whose
    // address is one more argument, after the others.
    let mut alloc_opts = opts.alloc_options();
    alloc_opts.scratch_register = Some(abi_registers);
    let in_kernel = |d: Diagnostic| vec![d.with_label(module.entry.span, "in this kernel")];
    let selected = codegen::select(&func, opts.isa, &uniform, opts.pack16).map_err(|d| vec![d])?;
    // Resource addresses are aligned (the ABI): wide loads may rely on it.
    let aligned_args: Vec<u32> = resources.iter().map(|r| r.register).chain(constants.as_ref().map(|c| c.register)).collect();
    let (mut mfunc, mut alloc) = backend::run(selected, opts, &alloc_opts, launch, &aligned_args).map_err(in_kernel)?;
    // The IR passes spend registers the budget seems to leave (hoisting,
    // shared constants and bases) from an estimate. Where the back end still
    // spills to memory, that estimate was wrong, and how wrong depends on the
    // budget: a looser budget could keep more spill traffic than a tighter
    // one. So every budget that spills to memory compiles the IR the
    // passes make at the least budget (values recomputed where used rather
    // than held), the same IR for all of them, and keeps it where it spills
    // no more.
    if let (OptLevel::O, Some(b)) = (opts.opt, opts.register_budget()) {
        if alloc.spill.weighted_memory > 0 && alloc.max_live_unspilled > alloc.budget {
            let key = |m: &codegen::mir::MFunction, a: &regalloc::Allocation| {
                let (budget, waves, _, cycles) = backend::allocation_rank(opts, m, a, &opts.target.latency, b);
                (budget, waves, a.spill.weighted_memory, cycles)
            };
            let mut f = unoptimized.clone();
            let mut cx = cx.clone();
            cx.budget = passes::Budget::Registers(1);
            // Where the passes decided nothing by the budget, the IR is the same: nothing to try.
            let plain = |f: &ir::Function| ir::print_function(f, &|_| None);
            if passes::run(&mut f, opts.opt, &cx, false).is_ok()
                && plain(&f) != plain(&func)
                && f.padded == func.padded
                && passes::converge::unconverged(&f).is_empty()
            {
                let u = passes::uniformity::analyze_with_witness(&f).to_map();
                if let Ok(sel) = codegen::select(&f, opts.isa, &u, opts.pack16) {
                    if let Ok((m, a)) = backend::run(sel, opts, &alloc_opts, launch, &aligned_args) {
                        if a.budget <= alloc.budget.max(b) && key(&m, &a) <= key(&mfunc, &alloc) {
                            (mfunc, alloc) = (m, a);
                        }
                    }
                }
            }
        }
    }
    // addr16: groupshared address arithmetic in halves, kept only where it
    // lowers a pressure peak over the register budget and then spills less
    // (without a peak over the budget it would change only the schedule).
    if opts.addr16 && opts.pack16 && opts.isa == Isa::Wave && alloc.max_live_unspilled > alloc.budget {
        let plain = codegen::select(&func, opts.isa, &uniform, true).map_err(|d| vec![d])?;
        let narrow = codegen::select_with(&func, opts.isa, &uniform, true, Some(launch)).map_err(|d| vec![d])?;
        if max_live(&narrow) < max_live(&plain) {
            if let Ok((m, a)) = backend::run(narrow, opts, &alloc_opts, launch, &aligned_args) {
                let score = |a: &regalloc::Allocation| (a.budget, a.spill.weighted_cost + 3 * a.spill.weighted_memory);
                if score(&a) < score(&alloc) {
                    (mfunc, alloc) = (m, a);
                }
            }
        }
    }
    let scratch = (alloc.spill.device_slots > 0).then(|| ScratchBuffer::new(abi_registers, alloc.spill.device_slots, threads));
    if let Some(s) = &scratch {
        warnings.push(scratch_warning(s, &alloc.spill, module.entry.span));
    }
    // `.registers` covers every register written or read, the ABI ones included.
    let registers = alloc.num_v.max(abi_registers).max(1);
    let interface = KernelInterface {
        kernel: module.entry.name.clone(),
        workgroup_size: launch,
        numthreads: func.padded.map(|_| numthreads),
        registers,
        local_memory: mfunc.local_memory,
        resources,
        constants,
        scratch,
    };
    let occ = target::occupancy(&opts.target, registers, threads, interface.local_memory);
    if occ.waves_per_core == 0 {
        warnings.push(workgroup_does_not_fit(
            &opts.target,
            &occ,
            threads,
            interface.local_memory,
            alloc.spill.spill_bytes,
            module.entry.span,
        ));
    }
    let target_occupancy = opts.target_occupancy.map(|o| (o, opts.occupancy_budget(o).0));
    if let Some((want, budget)) = target_occupancy {
        if occ.waves_per_core < want && occ.waves_per_core > 0 {
            warnings.push(occupancy_not_met(&opts.target, want, budget, registers, &occ, &alloc, &mfunc, sources, module.entry.span));
        }
    }
    if let Some(limit) = opts.max_registers.filter(|&n| registers > n) {
        let resources = &interface.resources;
        warnings.push(max_registers_not_met(limit, registers, resources, abi_registers, &alloc, &mfunc, sources, module.entry.span));
    }
    let main = sources.main().cloned().unwrap_or_else(|| SourceFile::new("", ""));
    let cx = emit::ListingContext {
        source: &main,
        interface: &interface,
        target: &opts.target,
        isa: opts.isa,
        occupancy: &occ,
        target_occupancy,
    };
    if let Some((depth, span)) = emit::deepest_frames(&mfunc).filter(|&(d, _)| d > emit::MAX_FRAMES) {
        return Err(vec![Diagnostic::error(
            "E0409",
            format!("control flow nested {depth} deep: WAVE holds at most {} open `if`/`loop` frames", emit::MAX_FRAMES),
        )
        .with_label(span, "nested this deep here")
        .with_note("each `if`, loop and `switch` case the kernel runs inside takes a frame; nest less (early exits and long `else if` chains take few)")]);
    }
    let asm = emit::emit_listing_in(&mfunc, &alloc, &cx, sources)
        .map_err(|e| vec![Diagnostic::error("E0404", format!("internal error while emitting: {e}"))])?;
    Ok(Compiled { asm, ir: ir_text, interface, occupancy: occ, max_live: alloc.max_live_v, warnings, spill: alloc.spill.clone() })
}

/// W0401: the workgroup cannot be resident on the target at all, naming the
/// cause: too many threads, or more local memory than a workgroup may have.
fn workgroup_does_not_fit(t: &Target, occ: &Occupancy, threads: u32, local: u32, spill_bytes: u32, entry: crate::diag::Span) -> Diagnostic {
    let d = match occ.limiter {
        target::Limiter::WorkgroupLocalMemory => Diagnostic::warning(
            "W0401",
            format!(
                "the workgroup needs {local} bytes of local memory, more than the {} bytes a workgroup may have on target `{}`",
                t.local_memory_per_workgroup, t.name
            ),
        )
        .with_note(format!("{} bytes of groupshared variables, {spill_bytes} bytes of spill slots", local.saturating_sub(spill_bytes))),
        _ => Diagnostic::warning(
            "W0401",
            format!(
                "the workgroup of {threads} threads does not fit target `{}`, which allows at most {} threads per workgroup",
                t.name, t.max_workgroup_size
            ),
        ),
    };
    d.with_label(entry, "this kernel")
}

/// What the IR passes know of the compilation: the register budget is the
/// target occupancy's or `--max-registers` when one is asked for, else
/// whatever keeps the occupancy the kernel reaches without the
/// pressure-raising passes.
fn pass_context(opts: &CompileOptions, threads: u32, local_memory: u32, workgroup: Option<[u32; 3]>) -> passes::PassContext {
    let budget = match opts.register_budget() {
        Some(r) => passes::Budget::Registers(r),
        None => passes::Budget::KeepOccupancy { target: Box::new(opts.target.clone()), workgroup_threads: threads, local_memory },
    };
    passes::PassContext { budget, isa: opts.isa, disabled: opts.disabled_passes.clone(), workgroup }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceFile;

    const UNITY: &str = "#pragma kernel Twice FACTOR=2\n#pragma kernel Thrice FACTOR=3\nRWStructuredBuffer<uint> D;\n\
        [numthreads(8, 1, 1)] void Twice(uint i : SV_GroupIndex) { D[i] *= FACTOR; }\n\
        [numthreads(8, 1, 1)] void Thrice(uint i : SV_GroupIndex) { D[i] *= FACTOR; }\n";

    fn compile(entry: Option<&str>) -> Compilation {
        let input = Input::new(SourceFile::new("k.compute", UNITY));
        let mut opts = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
        opts.entry = entry.map(str::to_string);
        compile_input(&input, &opts, true)
    }

    #[test]
    fn pragma_kernel_defines_apply_to_the_chosen_kernel() {
        for (name, factor) in [("Twice", "2"), ("Thrice", "3")] {
            let c = compile(Some(name));
            let compiled = c.result.unwrap_or_else(|d| panic!("{}", crate::diag::render(&c.sources, &d)));
            // The last multiply scales the element by a constant loaded just before it.
            let lines: Vec<&str> = compiled.asm.lines().map(|l| l.split(';').next().unwrap_or("").trim()).collect();
            let mul = lines.iter().rposition(|l| l.starts_with("imul")).expect("a multiply");
            assert!(lines[mul - 1].starts_with("mov_imm") && lines[mul - 1].ends_with(&format!(", {factor}")), "{name}: {}", compiled.asm);
        }
        // Without a name, kernels that differ only by their defines are ambiguous.
        let c = compile(None);
        let Err(errs) = c.result else { panic!("expected an error") };
        assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E0232"]);
        assert_eq!(errs[0].labels.len(), 2);
    }

    /// The seed's uniform matrix in a loop: its rows load four words at a
    /// time, the point's components come back to their loop registers without
    /// copies (each new component prefers its parameter's register) and are
    /// stored at once from there, and the registers are MaxLive.
    #[test]
    fn a_transform_loop_loads_rows_and_needs_no_edge_copies() {
        let src = "cbuffer T : register(b0) { row_major float4x4 M; uint n; uint iters; };\n\
            RWStructuredBuffer<float4> Pts : register(u0);\n\
            [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
              uint i = id.x; if (i >= n) return; float4 p = Pts[i];\n\
              for (uint k = 0; k < iters; k++) { p = mul(p, M); p /= p.w; }\n\
              Pts[i] = p; }\n";
        let mut opts = CompileOptions::new(crate::target::preset("gcn").expect("the gcn target"));
        opts.opt = OptLevel::O;
        let c = compile_input(&Input::new(SourceFile::new("t.hlsl", src)), &opts, true);
        let compiled = c.result.unwrap_or_else(|d| panic!("{}", crate::diag::render(&c.sources, &d)));
        let code: Vec<&str> =
            compiled.asm.lines().filter(|l| !l.starts_with(';')).map(|l| l.split(';').next().unwrap_or("").trim()).collect();
        let count = |op: &str| code.iter().filter(|l| l.starts_with(op)).count();
        assert_eq!(count("device_load_u128"), 5, "four rows and the point:\n{}", compiled.asm);
        // The point goes back in one store, from the registers the loop left it in.
        assert_eq!((count("device_store_u128"), count("device_store_u32")), (1, 0), "{}", compiled.asm);
        let copies = code.iter().filter(|l| l.starts_with("mov r") && l.split(", ").nth(1).is_some_and(|x| x.starts_with('r'))).count();
        assert_eq!(count("xor") + copies, 0, "no edge copies:\n{}", compiled.asm);
        assert_eq!(compiled.interface.registers, compiled.max_live, "{}", compiled.asm);
    }

    /// `pad-warps`: on wave-0.1.2 a kernel with wave operations and a group
    /// that is not a multiple of 32 threads is launched in 1-D groups of whole
    /// warps, which the interface (and `--emit abi`) states with the declared
    /// `[numthreads]`; not on the spec profile, not without wave operations,
    /// not with `--disable pad-warps`, and not with a barrier in a loop that
    /// lanes leave at different iterations (the extra threads would skip it).
    #[test]
    fn wave_kernels_with_partial_warps_are_padded_on_wave012() {
        let kernel = |threads: &str, body: &str| {
            format!(
                "RWStructuredBuffer<uint> O : register(u0);\ngroupshared uint S[64];\n\
                 [numthreads({threads})] void main(uint i : SV_GroupIndex) {{ {body} }}\n"
            )
        };
        let launch = |src: &str, isa: Isa, disabled: &[&str]| {
            let mut opts = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
            opts.isa = isa;
            opts.opt = OptLevel::O;
            opts.disabled_passes = disabled.iter().map(|p| p.to_string()).collect();
            let c = compile_input(&Input::new(SourceFile::new("t.hlsl", src)), &opts, true);
            let compiled = c.result.unwrap_or_else(|d| panic!("{}", crate::diag::render(&c.sources, &d)));
            (compiled.interface.workgroup_size, compiled.interface.numthreads, compiled.interface.to_json())
        };
        let sum = kernel("10, 4, 2", "O[i] = WaveActiveSum(i);");
        let (size, declared, json) = launch(&sum, Isa::Wave012, &[]);
        assert_eq!((size, declared), ([96, 1, 1], Some([10, 4, 2])));
        assert!(json.contains("\"numthreads\": [\n    10,"), "{json}");
        assert_eq!(launch(&sum, Isa::Wave, &[]).0, [10, 4, 2]);
        assert_eq!(launch(&sum, Isa::Wave012, &["pad-warps"]).0, [10, 4, 2]);
        let (size, declared, json) = launch(&kernel("80, 1, 1", "O[i] = i;"), Isa::Wave012, &[]);
        assert_eq!((size, declared), ([80, 1, 1], None));
        assert!(!json.contains("numthreads"), "{json}");
        assert_eq!(launch(&kernel("64, 1, 1", "O[i] = WaveActiveSum(i);"), Isa::Wave012, &[]).0, [64, 1, 1]);
        let barrier =
            kernel("80, 1, 1", "for (uint k = 0; k < i; ++k) { S[k] = k; GroupMemoryBarrierWithGroupSync(); } O[i] = WaveActiveSum(S[i]);");
        assert_eq!(launch(&barrier, Isa::Wave012, &[]).0, [80, 1, 1]);
    }

    /// A target occupancy counts whole workgroups: 20 waves of 8-wave
    /// workgroups is met with 24 (the plain budget for 20 would reach 16).
    #[test]
    fn a_target_occupancy_is_met_in_whole_workgroups() {
        let mut src = String::from(
            "RWStructuredBuffer<float> B : register(u0);\n[numthreads(256, 1, 1)] void main(uint i : SV_DispatchThreadID) {\n",
        );
        for k in 0..28 {
            src += &format!("float a{k} = B[i * 28 + {k}];\n");
        }
        src += "float s = 0;\n";
        for k in 0..28 {
            src += &format!("s += a{k} * a{};\n", (k * 7 + 3) % 28);
        }
        src += "B[i] = s; }\n";
        let mut opts = CompileOptions::new(crate::target::preset("generic").expect("generic"));
        opts.opt = OptLevel::O;
        opts.target_occupancy = Some(20);
        let c = compile_input(&Input::new(SourceFile::new("t.hlsl", &src)), &opts, true);
        let compiled = c.result.unwrap_or_else(|d| panic!("{}", crate::diag::render(&c.sources, &d)));
        assert_eq!(compiled.occupancy.waves_per_core, 24, "{}", compiled.asm);
        assert!(compiled.warnings.is_empty());
        assert!(compiled.asm.contains("24 waves in workgroups of 8): met"), "{}", compiled.asm);
    }

    #[test]
    fn sizes_and_counters_of_buffer_values() {
        let opts = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
        let compile = |src: &str| compile_input(&Input::new(SourceFile::new("k.hlsl", src)), &opts, true);
        // Followed through calls, ?: and dynamic indices of resource arrays.
        let ok = "RWStructuredBuffer<uint> A;\nRWStructuredBuffer<uint> B;\nRWStructuredBuffer<uint> C[2];\n\
            uint Count(RWStructuredBuffer<uint> b) { uint n, s; b.GetDimensions(n, s); return n + b.IncrementCounter(); }\n\
            [numthreads(8, 1, 1)] void main(uint i : SV_GroupIndex) { A[i] = Count(i > 3 ? A : B) + Count(C[i & 1]); }\n";
        let c = compile(ok);
        let compiled = c.result.unwrap_or_else(|d| panic!("{}", crate::diag::render(&c.sources, &d)));
        let sized: Vec<_> =
            compiled.interface.resources.iter().filter(|r| r.size_register.is_some() && r.counter_register.is_some()).collect();
        assert_eq!(sized.len(), 4, "{:?}", compiled.interface.resources);
        // A merge of different buffers cannot be followed: the buffer is unknown.
        let merged = "RWStructuredBuffer<uint> A;\nRWStructuredBuffer<uint> B;\n\
            [numthreads(8, 1, 1)] void main(uint i : SV_GroupIndex) { RWStructuredBuffer<uint> s = A; if (i > 3) s = B; uint n, t; s.GetDimensions(n, t); A[i] = n; }\n";
        let Err(errs) = compile(merged).result else { panic!("expected an error") };
        assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E0319"]);
        // A buffer used only for its size has `size_only` in the ABI.
        let dims =
            "Buffer<float4> T;\nRWStructuredBuffer<uint> O;\n[numthreads(1, 1, 1)] void main() { uint n; T.GetDimensions(n); O[0] = n; }\n";
        let compiled = compile(dims).result.unwrap_or_else(|_| panic!("compiles"));
        let only: Vec<_> = compiled.interface.resources.iter().map(|r| (r.name.as_str(), r.size_only)).collect();
        assert_eq!(only, vec![("T", true), ("O", false)]);
    }

    #[test]
    fn robust_access_needs_the_buffer_known() {
        let src = "StructuredBuffer<uint> A;\nStructuredBuffer<uint> B;\nRWStructuredBuffer<uint> O;\n\
            [numthreads(8, 1, 1)] void main(uint i : SV_GroupIndex) { StructuredBuffer<uint> s = A; if (i > 3) s = B; O[i] = s[i] + A[i]; }\n";
        let input = Input::new(SourceFile::new("k.hlsl", src));
        let mut opts = CompileOptions::new(crate::target::preset("generic").expect("the generic target"));
        assert!(compile_input(&input, &opts, true).result.is_ok());
        opts.robust_access = true;
        let Err(errs) = compile_input(&input, &opts, true).result else { panic!("expected an error") };
        assert_eq!(errs.iter().map(|d| d.code).collect::<Vec<_>>(), vec!["E0323"]);
        // Through a parameter or a local that holds one global buffer, a choice among
        // them by `?:` or by an index into a resource array, the buffer is known.
        let known = "StructuredBuffer<uint> A;\nStructuredBuffer<uint> B;\nStructuredBuffer<uint> C[3];\nRWStructuredBuffer<uint> O;\n\
            uint get(StructuredBuffer<uint> b, uint i) { return b[i]; }\n\
            [numthreads(8, 1, 1)] void main(uint i : SV_GroupIndex) { StructuredBuffer<uint> s = A; StructuredBuffer<uint> t = i > 3 ? A : B;\n\
            O[i] = get(A, i) + s[i] + t[i] + C[i % 3][i]; }\n";
        let c = compile_input(&Input::new(SourceFile::new("k.hlsl", known)), &opts, true);
        assert!(c.result.is_ok(), "{}", c.result.err().map(|d| crate::diag::render(&c.sources, &d)).unwrap_or_default());
    }
}
