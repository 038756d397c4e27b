//! The annotated WAVE assembly listing.
//!
//! Every instruction carries its source line and the number of live V values
//! after it; the first instruction of each source line also shows its text.
//! A line of the main file is `; L<line>` (the simulator reads it back for
//! fault messages); a line of an included file is `; <file>:<line>`, which the
//! simulator ignores and `wavec run` reads back itself. Lines are physical
//! lines of the file (`#line` does not change them), so the text shown is
//! always the text of that line.

use crate::codegen::mir::*;
use crate::diag::{FileId, SourceFile, Sources, Span};
use crate::interface::KernelInterface;
use crate::ir::structure::{region_tree_of, Node};
use crate::options::Isa;
use crate::regalloc::{Allocation, Peak};
use crate::target::{Occupancy, Target};
use std::fmt::Write;

/// What the listing header reports besides the code.
pub struct ListingContext<'a> {
    /// The main file ([`emit_listing_in`] takes every file of the compilation).
    pub source: &'a SourceFile,
    pub interface: &'a KernelInterface,
    pub target: &'a Target,
    pub isa: Isa,
    pub occupancy: &'a Occupancy,
    /// Requested waves per core and the register budget it implies.
    pub target_occupancy: Option<(u32, u32)>,
}

/// Renders the listing of `m` with registers from `a`, for a kernel whose
/// spans all lie in `cx.source`.
pub fn emit_listing(m: &MFunction, a: &Allocation, cx: &ListingContext) -> Result<String, String> {
    emit_listing_in(m, a, cx, &Sources::from(cx.source.clone()))
}

/// Renders the listing of `m` with registers from `a`; `sources` holds every
/// file the kernel's spans point into (its main file is `cx.source`).
pub fn emit_listing_in(m: &MFunction, a: &Allocation, cx: &ListingContext, sources: &Sources) -> Result<String, String> {
    let shapes = m.shapes();
    let nodes = region_tree_of(m.entry, &|b| shapes[b])?;
    let mut e = Emitter { m, a, cx, sources, lines: Vec::new(), last_line: None };
    e.nodes(&nodes, 0);
    let mut out = header(m, a, cx, sources);
    let iface = cx.interface;
    let _ = writeln!(out, ".kernel {}", m.name);
    let _ = writeln!(out, ".registers {}", iface.registers);
    let [x, y, z] = iface.workgroup_size;
    let _ = writeln!(out, ".workgroup_size {x}, {y}, {z}");
    if iface.local_memory > 0 {
        let _ = writeln!(out, ".local_memory {}", iface.local_memory);
    }
    for line in &e.lines {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(".end\n");
    Ok(out)
}

/// Where a pressure point is: `after L17` or `at the start of a block (L12)`.
pub fn point_line(m: &MFunction, p: &Peak, sources: &Sources) -> String {
    let block = &m.blocks[p.block];
    match p.index {
        Some(i) => format!("after {}", span_line(block.insts[i].span, sources)),
        None => {
            let span = block.insts.first().map(|i| i.span).unwrap_or(block.term_span);
            format!("entering {}", span_line(span, sources))
        }
    }
}

/// The source lines that define the values live at `p`, grouped:
/// `3 kernel arguments, L14 x2, L16, common.hlsli:3`.
pub fn peak_lines(m: &MFunction, p: &Peak, sources: &Sources) -> String {
    let mut def_span: std::collections::BTreeMap<VReg, Span> = std::collections::BTreeMap::new();
    for &b in &m.order {
        let block = &m.blocks[b];
        let first = block.insts.first().map(|i| i.span).unwrap_or(block.term_span);
        for &v in &block.params {
            def_span.insert(v, first);
        }
        for inst in &block.insts {
            if let Some(d) = inst.dst {
                def_span.insert(d, inst.span);
            }
        }
    }
    let arguments = p.set.iter().filter(|v| m.vregs[**v].fixed.is_some()).count();
    // Group by line, in line order within each file.
    let mut groups: std::collections::BTreeMap<(u32, u32), (String, u32)> = std::collections::BTreeMap::new();
    for v in p.set.iter().filter(|v| m.vregs[**v].fixed.is_none()) {
        let span = def_span.get(v).copied().unwrap_or_default();
        let key = sources.line_of(span.start).map(|(f, l)| (f.0, l)).unwrap_or((u32::MAX, 0));
        let e = groups.entry(key).or_insert_with(|| (span_line(span, sources), 0));
        e.1 += 1;
    }
    let mut parts: Vec<String> = Vec::new();
    match arguments {
        0 => {}
        1 => parts.push("1 kernel argument".into()),
        n => parts.push(format!("{n} kernel arguments")),
    }
    parts.extend(groups.into_values().map(|(name, n)| if n > 1 { format!("{name} x{n}") } else { name }));
    parts.join(", ")
}

/// `L17` for a line of the main file, `file:17` for an included one, `L-` when unknown.
fn span_line(span: Span, sources: &Sources) -> String {
    if span == Span::default() {
        return "L-".to_string();
    }
    match sources.line_of(span.start) {
        Some((FileId(0), l)) => format!("L{l}"),
        Some((f, l)) => format!("{}:{l}", listing_name(&sources.get(f).file.name)),
        None => "L-".to_string(),
    }
}

fn header(m: &MFunction, a: &Allocation, cx: &ListingContext, sources: &Sources) -> String {
    let mut h = String::new();
    let t = cx.target;
    let _ = writeln!(h, "; wavec {}: kernel `{}` from {}", env!("CARGO_PKG_VERSION"), m.name, cx.source.name);
    let isa = match cx.isa {
        Isa::Wave => "wave (WAVE spec v0.4)",
        Isa::Wave012 => "wave-0.1.2 (published wave-asm/wave-emu 0.1.2)",
    };
    let _ = writeln!(h, "; isa {isa}; target {} (W={}, {} registers per lane per core)", t.name, t.wave_width, t.registers_per_lane());
    // Register pairs alone are not F64 (a wide load fills one too).
    let f64_op = |i: &MInst| {
        matches!(
            i.op,
            Opcode::Dadd
                | Opcode::Dsub
                | Opcode::Dmul
                | Opcode::Ddiv
                | Opcode::Dma
                | Opcode::Dsqrt
                | Opcode::CvtF32ToF64
                | Opcode::CvtF64ToF32
        )
    };
    if m.order.iter().any(|&b| m.blocks[b].insts.iter().any(f64_op)) {
        let _ = writeln!(h, "; uses the optional F64 instructions (CAP_F64) on register pairs rN:rN+1");
    }
    if m.vregs.values().any(|v| v.class == RegClass::H) {
        let _ = writeln!(h, "; 16-bit values packed two per register, in halves rN.lo/rN.hi");
    }
    let _ = writeln!(h, ";");
    if cx.interface.resources.is_empty() {
        let _ = writeln!(h, "; resources: none");
    } else {
        let _ = writeln!(h, "; resources (kernel ABI: byte addresses in device memory):");
        for r in &cx.interface.resources {
            let ty = match r.kind {
                crate::interface::ResourceKind::ConstantBuffer => {
                    let members: Vec<String> = r.members.iter().map(|m| format!("{} {} @{}", m.ty, m.name, m.offset)).collect();
                    format!("cbuffer {} {{ {} }}", r.name, members.join(", "))
                }
                k => format!("{}<{}> {}", k.name(), r.element_type, r.name),
            };
            let _ = writeln!(h, ";   r{:<3} {:<4} {ty}", r.register, r.binding.to_string());
        }
        for r in &cx.interface.resources {
            if let Some(reg) = r.size_register {
                let what = if r.kind.is_typed() { "element count" } else { "size in bytes" };
                let _ = writeln!(h, ";   r{reg:<3}      {what} of {}", r.name);
            }
        }
        for r in &cx.interface.resources {
            if let Some(reg) = r.counter_register {
                let _ = writeln!(h, ";   r{reg:<3}      address of the UAV counter of {}", r.name);
            }
        }
    }
    if let Some(c) = &cx.interface.constants {
        let tables: Vec<String> = c.tables.iter().map(|(n, off, size)| format!("{n} @{off} ({size} bytes)")).collect();
        let _ = writeln!(h, ";   r{:<3}      constants in device memory: {}", c.register, tables.join(", "));
    }
    if let Some(sc) = &cx.interface.scratch {
        let _ = writeln!(
            h,
            ";   r{:<3}      scratch buffer for spill slots (device memory): {} slot(s), {} bytes per thread, {} bytes per workgroup",
            sc.register, sc.slots, sc.bytes_per_thread, sc.bytes_per_workgroup
        );
        let per_slot = sc.bytes_per_workgroup / sc.slots.max(1);
        let _ = writeln!(
            h,
            ";          slot s of thread tid of workgroup g at r{} + g*{} + s*{per_slot} + tid*4, g = group.x + groups.x*(group.y + groups.y*group.z);",
            sc.register, sc.bytes_per_workgroup
        );
        let _ = writeln!(h, ";          the host allocates {} bytes per workgroup dispatched", sc.bytes_per_workgroup);
    }
    if let Some([x, y, z]) = cx.interface.numthreads {
        let [n, _, _] = cx.interface.workgroup_size;
        let real = x * y * z;
        let _ = writeln!(
            h,
            "; launch: workgroups of {n} threads, [numthreads({x}, {y}, {z})] padded to whole warps (wave-ptx runs wave operations with a full mask);"
        );
        let _ = writeln!(h, ";          threads {real}..{} do nothing, the others see the ids of the declared workgroup", n - 1);
    }
    let _ = writeln!(h, ";");
    let sp = &a.spill;
    if a.max_live_unspilled > a.max_live_v || sp.banks > 0 {
        let _ = writeln!(
            h,
            "; registers: {} (MaxLive {}; {} before spilling; budget {})",
            a.num_v, a.max_live_v, a.max_live_unspilled, a.budget
        );
        let mut parts = Vec::new();
        let local = sp.spilled - sp.device_values;
        if local > 0 {
            let (stores, reloads) = (sp.stores - sp.device_stores, sp.reloads - sp.device_reloads);
            parts.push(format!("{local} value(s) in local memory ({stores} stores, {reloads} reloads)"));
        }
        if sp.device_values > 0 {
            parts.push(format!(
                "{} value(s) in device memory, the scratch buffer ({} stores, {} reloads)",
                sp.device_values, sp.device_stores, sp.device_reloads
            ));
        }
        if sp.group_values > 0 {
            parts.push(format!(
                "{} workgroup-invariant value(s) in a word per workgroup ({} stores, {} reloads)",
                sp.group_values, sp.group_stores, sp.group_reloads
            ));
        }
        if sp.remat_values > 0 {
            let reloads = if sp.reissued_values > 0 {
                format!(", {} of them re-loaded from read-only memory ({} loads)", sp.reissued_values, sp.reissued_loads)
            } else {
                String::new()
            };
            parts.push(format!("{} rematerialized ({} recomputations{reloads})", sp.remat_values, sp.remats));
        }
        if sp.banks > sp.bit_banks {
            let masks = if sp.masked > 0 { format!(" and {} boolean mask(s)", sp.masked) } else { String::new() };
            parts.push(format!(
                "{} lane bank(s) r{}.. holding {} uniform value(s){masks}",
                sp.banks - sp.bit_banks,
                a.bank_base,
                sp.banked - sp.masked,
            ));
        }
        if sp.bit_banks > 0 {
            parts.push(format!(
                "{} boolean(s) as bits of {} bit bank(s) r{}..",
                sp.bits,
                sp.bit_banks,
                a.bank_base + sp.banks - sp.bit_banks
            ));
        }
        if sp.banks > 0 {
            parts.push(format!("banks: {} writes, {} reads", sp.bank_writes, sp.bank_reads));
        }
        let _ = writeln!(h, "; spill code: {}", parts.join(", "));
    } else {
        let _ = writeln!(h, "; registers: {} (MaxLive {})", a.num_v, a.max_live_v);
    }
    if cx.interface.local_memory > 0 {
        let words = 4 * sp.group_words;
        let arrays = m.local_arrays;
        let user = cx.interface.local_memory - sp.spill_bytes - words - arrays;
        if sp.spill_bytes > 0 || words > 0 || arrays > 0 {
            let mut parts = vec![format!("{user} groupshared")];
            if arrays > 0 {
                parts.push(format!("{arrays} local arrays"));
            }
            if words > 0 {
                parts.push(format!("{words} workgroup words"));
            }
            if sp.spill_bytes > 0 || words > 0 {
                parts.push(format!("{} spill slots", sp.spill_bytes));
            }
            let _ = writeln!(h, "; local memory: {} bytes ({})", cx.interface.local_memory, parts.join(", "));
        } else {
            let _ = writeln!(h, "; local memory: {user} bytes groupshared");
        }
    }
    if let Some(peak) = &a.peak {
        let _ = writeln!(
            h,
            "; pressure peak: {} live {}, defined at {}",
            a.max_live_v,
            point_line(m, peak, sources),
            peak_lines(m, peak, sources)
        );
    }
    let o = cx.occupancy;
    if o.waves_per_core == 0 {
        let _ = writeln!(h, "; occupancy: none: the workgroup does not fit the target ({})", o.limiter);
    } else {
        let _ = writeln!(
            h,
            "; occupancy: {} waves per core ({}% of {}), {} workgroup(s) per compute unit, limited by {}",
            o.waves_per_core,
            o.percent(),
            o.max_waves_per_core,
            o.workgroups_per_cu,
            o.limiter
        );
    }
    if let Some((want, budget)) = cx.target_occupancy {
        let verdict = if o.waves_per_core >= want {
            "met".to_string()
        } else if a.num_v > budget {
            format!("NOT met: {} registers needed, the budget is {budget}", a.num_v)
        } else {
            format!("NOT met: limited by {}", o.limiter)
        };
        // Workgroups are resident whole: the budget may reach more waves than asked.
        let threads: u32 = m.workgroup_size.iter().product();
        let reached = crate::target::occupancy(cx.target, budget, threads, m.local_memory).waves_per_core;
        let steps = if reached > want && o.waves_per_workgroup > 1 {
            format!(", {reached} waves in workgroups of {}", o.waves_per_workgroup)
        } else {
            String::new()
        };
        let _ = writeln!(h, "; target occupancy: {want} waves per core (budget {budget} registers{steps}): {verdict}");
    } else if a.budget < cx.isa.max_registers() || !a.budget_met {
        // `--max-registers` without a target occupancy: say whether the limit held.
        if a.budget_met {
            let _ = writeln!(h, "; register limit (--max-registers): {} per thread: met", a.budget);
        } else {
            let _ = writeln!(h, "; register limit (--max-registers): NOT met, {} registers needed (W0402 says why)", a.budget);
        }
    } else if o.waves_per_core > 0 {
        let _ = writeln!(h, "; no target occupancy: registers allocated without spilling, for the highest occupancy that allows");
    }
    let _ = writeln!(h, ";");
    let _ = writeln!(h, "; each instruction: `; L<source line> [live registers after it]`, then the source text where a line starts");
    h
}

/// A file name as one listing word: `;`, `#` and whitespace would end the
/// word (or the code) for a reader of the listing, so they become `_`.
pub fn listing_name(name: &str) -> String {
    name.chars().map(|c| if c.is_whitespace() || c == ';' || c == '#' { '_' } else { c }).collect()
}

struct Emitter<'a> {
    m: &'a MFunction,
    a: &'a Allocation,
    cx: &'a ListingContext<'a>,
    sources: &'a Sources,
    lines: Vec<String>,
    last_line: Option<(FileId, u32)>,
}

impl<'a> Emitter<'a> {
    fn r(&self, v: VReg) -> String {
        match (self.m.vregs[v].class, self.a.reg[v]) {
            (RegClass::V | RegClass::V2 | RegClass::V4, Some(r)) => format!("r{r}"),
            (RegClass::H, Some(u)) => half_name(u),
            (RegClass::P, Some(r)) => format!("p{r}"),
            (_, None) => format!("?{v}"),
        }
    }

    fn line(&mut self, depth: usize, text: String, span: Span, live: Option<u32>) {
        let indent = "    ".to_string() + &"  ".repeat(depth);
        let code = format!("{indent}{text}");
        let sources = self.sources;
        let src_line = if span == Span::default() && span.end == 0 { None } else { sources.line_of(span.start) };
        let mut comment = match src_line {
            Some((FileId(0), l)) => format!("; L{l}"),
            Some((f, l)) => format!("; {}:{l}", listing_name(&sources.get(f).file.name)),
            None => "; L-".to_string(),
        };
        if let Some(n) = live {
            let _ = write!(comment, " [{n:>2}]");
        }
        if let Some((f, l)) = src_line.filter(|&x| Some(x) != self.last_line) {
            let text = sources.get(f).file.line_text(l).trim();
            let text: String = text.chars().take(60).map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { '?' }).collect();
            let _ = write!(comment, " {text}");
            self.last_line = src_line;
        }
        self.lines.push(format!("{code:<44}{comment}"));
    }

    fn nodes(&mut self, nodes: &[Node], depth: usize) {
        for n in nodes {
            match n {
                Node::Block(b) => self.block(*b, depth),
                Node::If { head, then_region, else_region, .. } => {
                    let block = &self.m.blocks[*head];
                    let MTerm::If { cond, .. } = block.term else {
                        continue;
                    };
                    let span = block.term_span;
                    self.line(depth, format!("if {}", self.r(cond)), span, None);
                    self.nodes(then_region, depth + 1);
                    let mark = self.lines.len();
                    let saved_line = self.last_line;
                    self.line(depth, "else".into(), span, None);
                    let before = self.lines.len();
                    self.nodes(else_region, depth + 1);
                    if self.lines.len() == before {
                        // Nothing to run for the other lanes: drop the `else`.
                        self.lines.truncate(mark);
                        self.last_line = saved_line;
                    }
                    self.line(depth, "endif".into(), span, None);
                }
                Node::Loop { pre, body, .. } => {
                    let span = self.m.blocks[*pre].term_span;
                    self.line(depth, "loop".into(), span, None);
                    self.nodes(body, depth + 1);
                    self.line(depth, "endloop".into(), span, None);
                }
            }
        }
    }

    fn block(&mut self, b: crate::ir::Block, depth: usize) {
        let block = &self.m.blocks[b];
        for (i, inst) in block.insts.iter().enumerate() {
            let live = self.a.live_after[b].get(i).copied();
            for text in self.inst_text(inst) {
                self.line(depth, text, inst.span, live);
            }
        }
        let span = block.term_span;
        match &block.term {
            MTerm::Jump { dest, args } | MTerm::Loop { header: dest, args, .. } => {
                self.copies(*dest, args, None, depth, span);
            }
            MTerm::BreakIf { cond, exit, args, .. } => {
                self.copies(*exit, args, Some(*cond), depth, span);
                self.line(depth, format!("break {}", self.r(*cond)), span, None);
            }
            MTerm::Return => self.line(depth, "halt".into(), span, None),
            MTerm::If { .. } | MTerm::None => {}
        }
    }

    /// Parallel copy of `args` into `dest`'s parameters, optionally predicated.
    fn copies(&mut self, dest: crate::ir::Block, args: &[VReg], pred: Option<VReg>, depth: usize, span: Span) {
        let params = self.m.blocks[dest].params.clone();
        // Copies run on half-register units: a V value moves as its two
        // halves, a pair as four, an H value as one; the steps of a whole
        // register's two halves come out together and print as one move.
        let mut moves = Vec::new();
        for (&p, &a) in params.iter().zip(args) {
            let (Some(d), Some(s)) = (self.a.reg[p], self.a.reg[a]) else { continue };
            let class = self.m.vregs[p].class;
            if class == RegClass::P {
                moves.push((PRED_UNIT + d, PRED_UNIT + s));
                continue;
            }
            moves.extend(class.unit_span(d).zip(class.unit_span(s)));
        }
        let prefix = pred.map(|p| format!("@{} ", self.r(p))).unwrap_or_default();
        for text in copy_text(moves, &prefix) {
            self.line(depth, text, span, None);
        }
    }

    /// The text of `inst`; pair16's half operands and half writes included.
    fn inst_text(&self, inst: &MInst) -> Vec<String> {
        let mut lines = self.op_text(inst);
        // A predicated merge not in place: the other lanes get the value they keep.
        if let (true, Some(d), Some(&keep), Some((p, neg))) = (inst.merge, inst.dst, inst.srcs.last(), inst.pred) {
            if self.a.reg[d] != self.a.reg[keep] {
                lines.push(format!("@{}{} mov {}, {}", if neg { "" } else { "!" }, self.r(p), self.r(d), self.r(keep)));
            }
        }
        // A half write completing a packed value elsewhere: bring its other half over.
        if let (Some(h), Some(d), Some(&merge)) = (inst.ins, inst.dst, inst.srcs.last()) {
            let (rd, rm) = (self.a.reg[d], self.a.reg[merge]);
            if rd != rm {
                let (rd, rm) = (rd.unwrap_or(0), rm.unwrap_or(0));
                lines.push(format!("mov r{rd}.{o}, r{rm}.{o}", o = h.other().name()));
            }
        }
        lines
    }

    fn op_text(&self, inst: &MInst) -> Vec<String> {
        use Opcode::*;
        let isa = self.cx.isa;
        let half_of = |v: VReg, h: Option<Half>| match h {
            Some(h) => format!("r{}.{}", self.a.reg[v].unwrap_or(0), h.name()),
            None => self.r(v),
        };
        let d = inst.dst.map(|d| half_of(d, inst.ins)).unwrap_or_default();
        let s: Vec<String> = inst
            .srcs
            .iter()
            .enumerate()
            .map(|(k, &v)| match inst.src_word(k) {
                Some(w) => format!("r{}", self.a.reg[v].unwrap_or(0) + u32::from(w)),
                None => half_of(v, inst.src_half(k)),
            })
            .collect();
        let pred = inst.pred.map(|(p, neg)| format!("@{}{} ", if neg { "!" } else { "" }, self.r(p))).unwrap_or_default();
        let three = |name: &str| vec![format!("{pred}{name} {d}, {}, {}", s[0], s[1])];
        let two = |name: &str| vec![format!("{pred}{name} {d}, {}", s[0])];
        match inst.op {
            Iadd => three("iadd"),
            Isub => three("isub"),
            Imul => three("imul"),
            Idiv => three("idiv"),
            Imod => three("imod"),
            Imin => three("imin"),
            Imax => three("imax"),
            And => three("and"),
            Or => three("or"),
            Xor => three("xor"),
            Shl => three("shl"),
            Shr => three("shr"),
            Sar => three("sar"),
            Fadd => three("fadd"),
            Fsub => three("fsub"),
            Fmul => three("fmul"),
            Fdiv => three("fdiv"),
            IcmpEq | IcmpNe | IcmpLt | IcmpLe | IcmpGt | IcmpGe | UcmpLt | UcmpLe | FcmpEq | FcmpNe | FcmpLt | FcmpLe | FcmpGt
            | FcmpUnord => three(compare_mnemonic(inst.op)),
            CmpChain => {
                let p = d.clone();
                inst.chain
                    .iter()
                    .zip(s.chunks(2))
                    .map(|(&(guard, op), xy)| {
                        let g = match guard {
                            None => String::new(),
                            Some(true) => format!("@{p} "),
                            Some(false) => format!("@!{p} "),
                        };
                        format!("{g}{} {p}, {}, {}", compare_mnemonic(op), xy[0], xy[1])
                    })
                    .collect()
            }
            Ineg => two("ineg"),
            Not => two("not"),
            Fneg => two("fneg"),
            Ftrunc => two("ftrunc"),
            Mov => two("mov"),
            Fma => vec![format!("{pred}fma {d}, {}, {}, {}", s[0], s[1], s[2])],
            Hadd => three("hadd"),
            Bfi => vec![format!("{pred}bfi {d}, {}, {}, {}, {}", s[0], s[1], s[2], s[3])],
            Hsub => three("hsub"),
            Hmul => three("hmul"),
            Hma => vec![format!("{pred}hma {d}, {}, {}, {}", s[0], s[1], s[2])],
            Hadd2 => three("hadd2"),
            Hmul2 => three("hmul2"),
            Hma2 => vec![format!("{pred}hma2 {d}, {}, {}, {}", s[0], s[1], s[2])],
            // Spec v0.4: cvt_A_B converts B to A. wave-emu 0.1.2 names integer conversions source-first.
            CvtI32ToF32 => two(if isa == Isa::Wave { "cvt_f32_i32" } else { "cvt_i32_f32" }),
            CvtU32ToF32 => two(if isa == Isa::Wave { "cvt_f32_u32" } else { "cvt_u32_f32" }),
            CvtF32ToI32 => two(if isa == Isa::Wave { "cvt_i32_f32" } else { "cvt_f32_i32" }),
            CvtF32ToU32 => two(if isa == Isa::Wave { "cvt_u32_f32" } else { "cvt_f32_u32" }),
            // Destination-first in both profiles (0.1.2 swapped only the integer ones).
            CvtF16ToF32 => two("cvt_f32_f16"),
            CvtF32ToF16 => two("cvt_f16_f32"),
            // f64 conversions are destination-first in both profiles too.
            CvtF32ToF64 => two("cvt_f64_f32"),
            CvtF64ToF32 => two("cvt_f32_f64"),
            Dadd => three("dadd"),
            Dsub => three("dsub"),
            Dmul => three("dmul"),
            Ddiv => three("ddiv"),
            Dma => vec![format!("{pred}dma {d}, {}, {}, {}", s[0], s[1], s[2])],
            Dsqrt => two("dsqrt"),
            Join => {
                let r = self.a.reg[inst.dst.expect("join has a destination")].unwrap_or(0);
                vec![format!("{pred}mov {d}, {}", s[0]), format!("{pred}mov r{}, {}", r + 1, s[1])]
            }
            // Names the register the wide load before it wrote.
            Split => vec![],
            // The words not in their place yet, as one parallel copy.
            Tuple => {
                let r = self.a.reg[inst.dst.expect("a tuple has a destination")].unwrap_or(0);
                let moves: Vec<(u32, u32)> = (0u32..)
                    .zip(inst.srcs.iter().enumerate())
                    .filter_map(|(k, (j, &w))| self.a.reg[w].map(|s| (r + k, s + u32::from(inst.src_word(j).unwrap_or(0)))))
                    .flat_map(|(d, s)| RegClass::V.unit_span(d).zip(RegClass::V.unit_span(s)))
                    .collect();
                copy_text(moves, &pred)
            }
            Word => {
                let r = self.a.reg[inst.srcs[0]].unwrap_or(0) + inst.imm.unwrap_or(0);
                vec![format!("{pred}mov {d}, r{r}")]
            }
            MovImm => {
                let bits = inst.imm.unwrap_or(0);
                let half = inst.dst.is_some_and(|d| self.m.vregs[d].class == RegClass::H);
                let imm = match () {
                    _ if half && inst.note.is_some() => format!("{bits:#06x}"),
                    _ if inst.note.is_some() || bits > 0xffff => format!("{bits:#010x}"),
                    _ => bits.to_string(),
                };
                vec![format!("{pred}mov_imm {d}, {imm}")]
            }
            MovSpecial => vec![format!("{pred}mov {d}, {}", inst.special.map(|r| r.asm_name()).unwrap_or_default())],
            Select => {
                let (p, neg) = inst.pred.expect("select has a condition");
                let p = self.r(p);
                let (t, f) = if neg { (&s[1], &s[0]) } else { (&s[0], &s[1]) };
                match isa {
                    Isa::Wave => vec![format!("select {d}, {p}, {t}, {f}")],
                    // wave-asm 0.1.2 mis-encodes a false operand above r15: use a predicated move.
                    Isa::Wave012 => {
                        let mut v = Vec::new();
                        if &d != f {
                            v.push(format!("mov {d}, {f}"));
                        }
                        v.push(format!("@{p} mov {d}, {t}"));
                        v
                    }
                }
            }
            BoolFromPred => {
                let (p, neg) = inst.pred.expect("bool_from_pred has a condition");
                let bang = if neg { "!" } else { "" };
                vec![format!("mov_imm {d}, 0"), format!("@{bang}{} mov_imm {d}, 1", self.r(p))]
            }
            DeviceLoadU32 => two("device_load_u32"),
            DeviceLoadU64 => two("device_load_u64"),
            DeviceLoadU128 => two("device_load_u128"),
            DeviceLoadU16 => two("device_load_u16"),
            LocalLoadU16 => two("local_load_u16"),
            DeviceStoreU16 => vec![format!("{pred}device_store_u16 {}, {}", s[0], s[1])],
            LocalStoreU16 => vec![format!("{pred}local_store_u16 {}, {}", s[0], s[1])],
            LocalLoadU32 => two("local_load_u32"),
            DeviceStoreU32 => vec![format!("{pred}device_store_u32 {}, {}", s[0], s[1])],
            DeviceStoreU64 => vec![format!("{pred}device_store_u64 {}, {}", s[0], s[1])],
            DeviceStoreU128 => vec![format!("{pred}device_store_u128 {}, {}", s[0], s[1])],
            LocalStoreU32 => vec![format!("{pred}local_store_u32 {}, {}", s[0], s[1])],
            Iabs => two("iabs"),
            Umin => three("umin"),
            Umax => three("umax"),
            ImulHi => three("imul_hi"),
            BitCount => two("bitcount"),
            BitRev => two("bitrev"),
            Fabs => two("fabs"),
            Fsqrt => two("fsqrt"),
            Frsqrt => two("frsqrt"),
            Frcp => two("frcp"),
            Ffloor => two("ffloor"),
            Fceil => two("fceil"),
            Ffract => two("ffract"),
            Fsat => two("fsat"),
            Fsin => two("fsin"),
            Fcos => two("fcos"),
            Fexp2 => two("fexp2"),
            Flog2 => two("flog2"),
            Fmin => three("fmin"),
            Fmax => three("fmax"),
            // Operands after the optional destination: addr, value[, expected]; device atomics take a scope.
            Atomic { local, op } => {
                let mut operands: Vec<String> = inst.dst.iter().map(|_| d.clone()).chain(s.iter().cloned()).collect();
                if !local {
                    operands.push(".device".into());
                }
                let prefix = if local { "local_atomic_" } else { "atomic_" };
                vec![format!("{pred}{prefix}{} {}", op.name(), operands.join(", "))]
            }
            Barrier => vec!["barrier".into()],
            Fence(scope) => vec![format!("fence_acq_rel .{}", scope.name())],
            WaveReduce(r) => two(&format!("wave_reduce_{}", r.name())),
            WavePrefixSum => two("wave_prefix_sum"),
            WaveBallot => two("wave_ballot"),
            WaveBroadcast => three("wave_broadcast"),
            WaveShuffle => three("wave_shuffle"),
            BankWrite(bank) => vec![format!("{pred}mov r{}, {}", self.a.bank_base + bank, s[0])],
            BankRead(bank) => vec![format!("wave_broadcast {d}, r{}, {}", self.a.bank_base + bank, s[0])],
            BitsInit(bank) => vec![format!("mov_imm r{}, 0", self.a.bank_base + bank)],
            BitsWrite(bank) => {
                let r = self.a.bank_base + bank;
                vec![format!("{pred}bfi r{r}, r{r}, {}, {}, {}", s[0], s[1], s[2])]
            }
            BitsRead(bank) => vec![format!("{pred}bfe {d}, r{}, {}, {}", self.a.bank_base + bank, s[0], s[1])],
        }
    }
}

/// The mnemonic of a compare opcode.
fn compare_mnemonic(op: Opcode) -> &'static str {
    use Opcode::*;
    match op {
        IcmpEq => "icmp_eq",
        IcmpNe => "icmp_ne",
        IcmpLt => "icmp_lt",
        IcmpLe => "icmp_le",
        IcmpGt => "icmp_gt",
        IcmpGe => "icmp_ge",
        UcmpLt => "ucmp_lt",
        UcmpLe => "ucmp_le",
        FcmpEq => "fcmp_eq",
        FcmpNe => "fcmp_ne",
        FcmpLt => "fcmp_lt",
        FcmpLe => "fcmp_le",
        FcmpGt => "fcmp_gt",
        FcmpUnord => "fcmp_unord",
        _ => unreachable!("{op:?} is not a compare"),
    }
}

/// `rN.lo` / `rN.hi` for half-register unit `u`.
fn half_name(u: u32) -> String {
    format!("r{}.{}", u / 2, if u & 1 == 0 { "lo" } else { "hi" })
}

/// Unit numbers of predicates in a parallel copy (above every register half).
const PRED_UNIT: u32 = 1 << 16;

/// A step of an edge copy: on units, or (`true`) on the whole registers of
/// the even units given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Copy {
    Mov(u32, u32, bool),
    Swap(u32, u32, bool),
}

/// Joins a low half's step followed by the same step on the high halves (as
/// `sequentialize` orders a whole register's move) into one step on whole
/// registers, which does the same.
fn merge_halves(steps: Vec<Step>) -> Vec<Copy> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < steps.len() {
        let pair = match (steps[i], steps.get(i + 1)) {
            (Step::Mov(d, s), Some(&Step::Mov(d1, s1))) => (d, s, d1, s1, false),
            (Step::Swap(d, s), Some(&Step::Swap(d1, s1))) => (d, s, d1, s1, true),
            _ => (1, 0, 0, 0, false),
        };
        let (d, s, d1, s1, swap) = pair;
        let joins = d & 1 == 0 && s & 1 == 0 && d < PRED_UNIT && s < PRED_UNIT && (d1, s1) == (d + 1, s + 1);
        if joins {
            out.push(if swap { Copy::Swap(d, s, true) } else { Copy::Mov(d, s, true) });
            i += 2;
            continue;
        }
        out.push(match steps[i] {
            Step::Mov(d, s) => Copy::Mov(d, s, false),
            Step::Swap(a, b) => Copy::Swap(a, b, false),
        });
        i += 1;
    }
    out
}

/// One step of a sequentialized parallel copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Mov(u32, u32),
    Swap(u32, u32),
}

/// Orders the parallel copy `moves` (destination, source; destinations distinct)
/// into moves and swaps that give every destination its source's old value.
/// After a step on two low halves, the same step on their high halves goes
/// next when it can, so that a whole register's copy prints as one instruction.
/// The instructions of a parallel copy of half-register units (`(dest,
/// source)`; predicate units from [`PRED_UNIT`]), each line with `prefix`.
fn copy_text(moves: Vec<(u32, u32)>, prefix: &str) -> Vec<String> {
    let name = |u: u32, full: bool| match u {
        u if u >= PRED_UNIT => format!("p{}", u - PRED_UNIT),
        u if full => format!("r{}", u / 2),
        u => half_name(u),
    };
    let mut out = Vec::new();
    for step in merge_halves(sequentialize(moves)) {
        match step {
            Copy::Mov(d, s, full) => out.push(format!("{prefix}mov {}, {}", name(d, full), name(s, full))),
            // Three xors swap two registers (or halves) without a scratch register.
            Copy::Swap(a, b, full) => {
                let (a, b) = (name(a, full), name(b, full));
                for text in [format!("xor {a}, {a}, {b}"), format!("xor {b}, {a}, {b}"), format!("xor {a}, {a}, {b}")] {
                    out.push(format!("{prefix}{text}"));
                }
            }
        }
    }
    out
}

fn sequentialize(mut moves: Vec<(u32, u32)>) -> Vec<Step> {
    let mut out = Vec::new();
    let mut partner: Option<(u32, u32)> = None;
    loop {
        moves.retain(|&(d, s)| d != s);
        if moves.is_empty() {
            return out;
        }
        let ready = |k: usize| !moves.iter().any(|&(_, s)| s == moves[k].0);
        let pk = partner.take().and_then(|p| moves.iter().position(|&m| m == p));
        // A move whose destination no pending move still reads can go now.
        if let Some(k) = pk.filter(|&k| ready(k)).or_else(|| (0..moves.len()).find(|&k| ready(k))) {
            let (d, s) = moves.remove(k);
            out.push(Step::Mov(d, s));
            partner = (d & 1 == 0 && s & 1 == 0).then_some((d + 1, s + 1));
            continue;
        }
        // Only cycles remain (each register read exactly once): swap one pair.
        let (d, s) = moves.remove(pk.unwrap_or(0));
        out.push(Step::Swap(d, s));
        partner = (d & 1 == 0 && s & 1 == 0).then_some((d + 1, s + 1));
        // d now holds s's old value (done); s holds d's old value.
        for m in moves.iter_mut() {
            if m.1 == d {
                m.1 = s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the steps on a register file and checks every destination got its source.
    fn check(moves: &[(u32, u32)]) {
        let mut regs: Vec<u32> = (0..16).map(|i| 100 + i).collect();
        let before = regs.clone();
        for step in sequentialize(moves.to_vec()) {
            match step {
                Step::Mov(d, s) => regs[d as usize] = regs[s as usize],
                Step::Swap(a, b) => regs.swap(a as usize, b as usize),
            }
        }
        for &(d, s) in moves {
            assert_eq!(regs[d as usize], before[s as usize], "moves {moves:?}");
        }
    }

    /// Runs the merged steps on half-register units and checks every
    /// destination unit got its source's old value.
    fn check_units(moves: &[(u32, u32)]) -> Vec<Copy> {
        let mut units: Vec<u32> = (0..32).map(|i| 100 + i).collect();
        let before = units.clone();
        let steps = merge_halves(sequentialize(moves.to_vec()));
        for &step in &steps {
            let (a, b, full, swap) = match step {
                Copy::Mov(d, s, full) => (d as usize, s as usize, full, false),
                Copy::Swap(a, b, full) => (a as usize, b as usize, full, true),
            };
            for k in 0..if full { 2 } else { 1 } {
                if swap {
                    units.swap(a + k, b + k);
                } else {
                    units[a + k] = units[b + k];
                }
            }
        }
        for &(d, s) in moves {
            assert_eq!(units[d as usize], before[s as usize], "moves {moves:?}");
        }
        steps
    }

    #[test]
    fn copies_of_whole_registers_and_halves() {
        // r1 <- r2, r2 <- r1 (a swap of whole registers): one step.
        assert_eq!(check_units(&[(2, 4), (3, 5), (4, 2), (5, 3)]), vec![Copy::Swap(2, 4, true)]);
        // r3 <- r5 and a half r1.hi <- r0.lo.
        assert_eq!(check_units(&[(6, 10), (7, 11), (3, 0)]), vec![Copy::Mov(6, 10, true), Copy::Mov(3, 0, false)]);
        // Halves crossing whole registers: r2 <- r4 while r4.lo <- r2.hi and r4.hi <- r2.lo.
        check_units(&[(4, 8), (5, 9), (8, 5), (9, 4)]);
        // A cycle through halves and a whole register.
        check_units(&[(0, 3), (3, 6), (6, 0), (7, 1), (1, 7)]);
    }

    #[test]
    fn parallel_copies() {
        check(&[(3, 5), (5, 3)]);
        check(&[(1, 2), (2, 3), (3, 1)]);
        check(&[(3, 5), (5, 4), (6, 3), (4, 6)]);
        check(&[(1, 0), (2, 0), (0, 1)]);
        check(&[(0, 0), (1, 1)]);
        check(&[(1, 2), (2, 1), (3, 4), (4, 3), (5, 1)]);
        // Every permutation of four registers, plus fan-out.
        let perms = [[0, 1, 2, 3], [1, 0, 3, 2], [1, 2, 3, 0], [3, 0, 1, 2], [2, 3, 0, 1], [0, 2, 3, 1]];
        for p in perms {
            let moves: Vec<(u32, u32)> = p.iter().enumerate().map(|(d, &s)| (d as u32, s)).collect();
            check(&moves);
            let mut fan = moves.clone();
            fan.push((7, p[0]));
            check(&fan);
        }
    }
}
