//! Machine IR: WAVE operations on virtual registers with register classes,
//! in SSA form (each vreg defined once), on the IR's blocks and structure.
//! Instruction selection may add blocks of its own (ids above the IR's) for
//! loops that expansions need (wave ops over the active lanes, CAS retry
//! loops); they sit in `order` right after the block they were split from.

use crate::diag::Span;
use crate::ir::structure::Shape;
use crate::ir::{Block, FenceScope, SpecialReg};
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};

/// A virtual register.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(u32);
entity_impl!(VReg, "%");

/// Register classes (design.md §6). U values are V values marked `uniform`.
///
/// Allocation counts in half-register units (`units`): a V register is two
/// units, its `.lo` (even unit) and `.hi` (odd unit). An H value's register
/// number in an allocation is its unit, `2 * r + half`; every other class's is
/// its register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// 32-bit per-lane register r0..r255.
    V,
    /// Predicate p0..p3.
    P,
    /// A pair of V registers rN:rN+1 (rN the low word): an f64 for WAVE's
    /// optional F64 instructions, or two adjacent words loaded at once
    /// (`device_load_u64`), named by rN.
    V2,
    /// Four V registers rN..rN+3: four adjacent words loaded at once
    /// (`device_load_u128`, `codegen::widen`), named by rN. Instructions read
    /// one word of it (`MInst::src_words`); it lives until its last word is
    /// read and never leaves the registers.
    V4,
    /// A 16-bit value in one half of a V register (`rN.lo`/`rN.hi`), read
    /// zero-extended and written without touching the other half (spec
    /// profile only: wave-0.1.2 ignores halves).
    H,
}

impl RegClass {
    /// Half-register units a value of this class occupies.
    pub fn units(self) -> u32 {
        match self {
            RegClass::H => 1,
            RegClass::V => 2,
            RegClass::V2 => 4,
            RegClass::V4 => 8,
            RegClass::P => 0,
        }
    }

    /// The units a value of this class allocated to `r` covers (`r` is a unit
    /// for H, a register otherwise; empty for predicates).
    pub fn unit_span(self, r: u32) -> std::ops::Range<u32> {
        match self {
            RegClass::H => r..r + 1,
            RegClass::P => 0..0,
            c => 2 * r..2 * r + c.units(),
        }
    }
}

/// One half of a V register (pair16: a packed pair holds one f16 value in each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Half {
    Lo,
    Hi,
}

impl Half {
    pub fn name(self) -> &'static str {
        match self {
            Half::Lo => "lo",
            Half::Hi => "hi",
        }
    }
    pub fn other(self) -> Half {
        match self {
            Half::Lo => Half::Hi,
            Half::Hi => Half::Lo,
        }
    }
}

/// V registers needed for `units` half-register units.
pub fn units_to_regs(units: u32) -> u32 {
    units.div_ceil(2)
}

#[derive(Clone, Debug)]
pub struct VRegInfo {
    pub class: RegClass,
    /// Proven wave-invariant by uniformity analysis (a U candidate).
    pub uniform: bool,
    /// The same in every wave of the workgroup (`passes::uniformity::workgroup_invariant`):
    /// defined outside loops, it may spill to one word per workgroup.
    pub group_uniform: bool,
    /// Fixed physical register (ABI arguments).
    pub fixed: Option<u32>,
    /// Used as an instruction predicate (`@p`): on wave-0.1.2 it must not be p0.
    pub predicates: bool,
    /// Must not be r0: the destination of a returning atomic (WAVE encodes
    /// `rd = r0` on an atomic as the non-returning form).
    pub not_r0: bool,
    /// Holds 0 or 1 in every lane (an IR boolean in a V register): spilling
    /// may keep it as a wave mask (`wave_ballot`) in a bank lane.
    pub boolean: bool,
    /// A 16-bit value kept zero-extended in a whole V register (wave-0.1.2,
    /// or packing off): `regalloc::pack012` may put two in one register.
    pub narrow: bool,
}

/// Machine opcodes. Mnemonics depend on the ISA profile (see `emit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    // integer
    Iadd,
    Isub,
    Imul,
    Idiv,
    Imod,
    Ineg,
    Imin,
    Imax,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Sar,
    // float
    Fadd,
    Fsub,
    Fmul,
    Fdiv,
    Fneg,
    Ftrunc,
    Fma,
    // f16 on register halves (pack16): computed in f32, rounded once to f16
    Hadd,
    Hsub,
    Hmul,
    Hma,
    // packed f16 pairs (pair16): each half of a V register as one f16 op, rounded per half
    Hadd2,
    Hmul2,
    Hma2,
    // compares: write a predicate
    IcmpEq,
    IcmpNe,
    IcmpLt,
    IcmpLe,
    IcmpGt,
    IcmpGe,
    UcmpLt,
    UcmpLe,
    FcmpEq,
    FcmpNe,
    FcmpLt,
    FcmpLe,
    FcmpGt,
    /// True where either operand is NaN (the unordered half of a negated float compare).
    FcmpUnord,
    /// Pseudo: a boolean built from compares straight into one predicate
    /// (`MInst::chain` says how; srcs are the compares' operand pairs). The
    /// first compare writes the predicate; each later one is predicated on it,
    /// `@p` for `&&` (lanes where it is false stay false) and `@!p` for `||`,
    /// so `a && b || c` costs one instruction per compare and no V register.
    CmpChain,
    // conversions (named by meaning; spelled per profile)
    CvtI32ToF32,
    CvtU32ToF32,
    CvtF32ToI32,
    CvtF32ToU32,
    /// f16 (low half) to f32.
    CvtF16ToF32,
    /// f32 to f16 (low half).
    CvtF32ToF16,
    /// f32 to f64 (a pair; exact).
    CvtF32ToF64,
    /// f64 (a pair) to f32, rounding to nearest even.
    CvtF64ToF32,
    // f64 arithmetic on pairs (CAP_F64): dadd dsub dmul ddiv dma dsqrt
    Dadd,
    Dsub,
    Dmul,
    Ddiv,
    Dma,
    Dsqrt,
    /// Pseudo: a pair from two V registers (srcs: low, high), as two moves
    /// (early-clobber: the pair must not overlap either source).
    Join,
    /// Pseudo: one word of a pair or tuple (srcs: it; `imm` the word, 0 the
    /// lowest), as a move.
    Word,
    /// Pseudo, no code: word `imm` of the wide load just before it
    /// (`MInst::split_of`, not a use), named as a value of its own so that
    /// each word lives only until its own last read. It takes the register
    /// the load wrote that word to (`codegen::widen::split`).
    Split,
    /// Pseudo: a V2/V4 tuple from its words (srcs, lowest first), as the
    /// moves of the words not already in place (a wide store's value:
    /// `codegen::widen::gather`).
    Tuple,
    // moves
    Mov,
    /// `mov_imm d, imm`
    MovImm,
    /// `mov d, sr_*`
    MovSpecial,
    /// `bfi d, base, ins, off, w` (srcs in that order): `base` with its bits
    /// off..off+w replaced by the low w bits of `ins`.
    Bfi,
    /// Pseudo: d = p ? t : f (srcs: t, f; pred operand p). Expanded per profile.
    Select,
    /// Pseudo: d = p ? 1 : 0 (pred operand p).
    BoolFromPred,
    // memory (16-bit loads zero-extend; 16-bit stores write the low half)
    DeviceLoadU32,
    DeviceStoreU32,
    LocalLoadU32,
    LocalStoreU32,
    DeviceLoadU16,
    DeviceStoreU16,
    /// Two (four) adjacent words into a V2 (V4) tuple; the address is
    /// 8 (16) byte aligned (`codegen::widen` proves it).
    DeviceLoadU64,
    DeviceLoadU128,
    /// Two (four) adjacent words from a V2 (V4) tuple (srcs: address,
    /// tuple; `codegen::widen` makes them reading the words themselves,
    /// `widen::gather` before allocation the tuple); aligned as the loads.
    DeviceStoreU64,
    DeviceStoreU128,
    LocalLoadU16,
    LocalStoreU16,
    // more integer ops
    Iabs,
    /// Unsigned min/max (spec only; wave-0.1.2 has none).
    Umin,
    Umax,
    /// High word of the unsigned product.
    ImulHi,
    BitCount,
    BitRev,
    // more float ops
    Fabs,
    Fsqrt,
    Frsqrt,
    Frcp,
    Ffloor,
    Fceil,
    /// x - floor(x) in the spec; x - trunc(x) on wave-0.1.2 (selected only for the spec).
    Ffract,
    /// Clamp to [0, 1] (selected only for the spec, where NaN gives 0).
    Fsat,
    Fsin,
    Fcos,
    Fexp2,
    Flog2,
    /// NaN-ignoring minimum and maximum.
    Fmin,
    Fmax,
    /// srcs: addr, value (and for `Cas` the expected value); no destination is the non-returning form.
    Atomic {
        local: bool,
        op: MAtomic,
    },
    Barrier,
    /// `fence_acq_rel` at a scope.
    Fence(FenceScope),
    /// Integer reduction over the active lanes (min/max unsigned).
    WaveReduce(MReduce),
    /// Exclusive integer prefix sum over the active lanes.
    WavePrefixSum,
    /// srcs: a predicate; the mask of lanes 0..32 that are active and have it set.
    WaveBallot,
    /// srcs: value, lane; the value of that lane (read in the first active lane) in every active lane.
    WaveBroadcast,
    /// `wave_shuffle d, v, idx`: each lane reads `v` of lane `idx` (its own index).
    WaveShuffle,
    /// Register allocation: `@p mov rBANK, src`, writing a uniform value into
    /// one lane of lane bank `bank` (the predicate selects that lane).
    BankWrite(u32),
    /// Register allocation: `wave_broadcast d, rBANK, lane` (srcs: the lane
    /// index), reading a uniform value back from lane bank `bank`.
    BankRead(u32),
    /// Register allocation: `mov_imm rBANK, 0`, at entry: bit bank `bank`
    /// (booleans one bit each, per lane) starts defined.
    BitsInit(u32),
    /// Register allocation: `bfi rBANK, rBANK, v, bit, 1` (srcs: v, bit,
    /// width): this lane's boolean `v` (0/1) into one bit of bit bank `bank`.
    BitsWrite(u32),
    /// Register allocation: `bfe d, rBANK, bit, 1` (srcs: bit, width): the
    /// boolean back as 0/1.
    BitsRead(u32),
}

/// What register allocation inserted an instruction for (the allocation
/// checker follows values through these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpillTag {
    /// Computes the spill pointer (this thread's word in the spill area), or
    /// the scratch pointer (its word in its workgroup's scratch block).
    SpillPointer,
    /// Address arithmetic for a spill or reload.
    Addr,
    /// Stores the value `of` into spill slot `slot` (the address is the last source).
    Store { slot: u32, of: VReg },
    /// Stores an edge's argument into the slot of memory parameter `param` (the
    /// address is the first source, the argument the last).
    EdgeStore { slot: u32, param: VReg },
    /// Loads spill slot `slot`; the destination stands for `of`.
    Reload { slot: u32, of: VReg },
    /// Stores the workgroup-invariant value `of` into word `word` of the
    /// per-workgroup area (every wave stores the same bits; the address is
    /// the first source).
    GroupStore { word: u32, of: VReg },
    /// Loads word `word` of the per-workgroup area; the destination stands for `of`.
    GroupReload { word: u32, of: VReg },
    /// Recomputes `of` (a constant or special register) into the destination.
    Remat { of: VReg },
    /// The lane test of a bank write, the lane index of a bank read, and the
    /// lane id and constants of a mask's test and bit extraction.
    BankLane,
    /// Writes `of` into lane `lane` of bank `bank`.
    BankWrite { bank: u32, lane: u32, of: VReg },
    /// Reads lane `lane` of bank `bank`; the destination stands for `of`.
    BankRead { bank: u32, lane: u32, of: VReg },
    /// Bool-to-mask: the predicate `of != 0` (srcs: `of`, zero).
    MaskTest { of: VReg },
    /// `wave_ballot` of that predicate: the wave mask of the boolean `of`.
    MaskBallot { of: VReg },
    /// Writes the mask of `of` into lane `lane` of bank `bank`.
    MaskWrite { bank: u32, lane: u32, of: VReg },
    /// Reads the mask of `of` back from lane `lane` of bank `bank`.
    MaskRead { bank: u32, lane: u32, of: VReg },
    /// `mask >> lane_id` (srcs: the mask, the lane id): this lane's bit of `of` at bit 0.
    MaskShift { of: VReg },
    /// `shifted & 1`: the boolean `of` again (the destination stands for it).
    MaskBit { of: VReg },
    /// Sets bit bank `bank` to zero at entry.
    BitsInit { bank: u32 },
    /// Writes the boolean `of` into bit `bit` of bit bank `bank`.
    BitsWrite { bank: u32, bit: u32, of: VReg },
    /// Reads bit `bit` of bit bank `bank` back; the destination stands for `of`.
    BitsRead { bank: u32, bit: u32, of: VReg },
}

/// Machine atomics (both profiles spell them `[local_]atomic_<name>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MAtomic {
    Add,
    Sub,
    /// Unsigned.
    Min,
    /// Unsigned.
    Max,
    And,
    Or,
    Xor,
    Exchange,
    /// Spec only (broken in 0.1.2): srcs addr, value, expected.
    Cas,
}

impl MAtomic {
    pub fn name(self) -> &'static str {
        match self {
            MAtomic::Add => "add",
            MAtomic::Sub => "sub",
            MAtomic::Min => "min",
            MAtomic::Max => "max",
            MAtomic::And => "and",
            MAtomic::Or => "or",
            MAtomic::Xor => "xor",
            MAtomic::Exchange => "exchange",
            MAtomic::Cas => "cas",
        }
    }
}

/// `wave_reduce_<name>`: integer, min/max unsigned; and/or/xor exist only in the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MReduce {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl MReduce {
    pub fn name(self) -> &'static str {
        match self {
            MReduce::Add => "add",
            MReduce::Min => "min",
            MReduce::Max => "max",
            MReduce::And => "and",
            MReduce::Or => "or",
            MReduce::Xor => "xor",
        }
    }
}

impl Opcode {
    /// A load of two or four words into a tuple.
    pub fn is_wide_load(self) -> bool {
        matches!(self, Opcode::DeviceLoadU64 | Opcode::DeviceLoadU128)
    }
    /// A load from device memory, of any width.
    pub fn is_device_load(self) -> bool {
        matches!(self, Opcode::DeviceLoadU16 | Opcode::DeviceLoadU32) || self.is_wide_load()
    }
    /// A store of two or four words.
    pub fn is_wide_store(self) -> bool {
        matches!(self, Opcode::DeviceStoreU64 | Opcode::DeviceStoreU128)
    }
    /// Writes a predicate rather than a V register.
    pub fn defines_predicate(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            IcmpEq | IcmpNe | IcmpLt | IcmpLe | IcmpGt | IcmpGe | UcmpLt | UcmpLe | FcmpEq | FcmpNe | FcmpLt | FcmpLe | FcmpGt | FcmpUnord
        )
    }
}

/// A machine instruction.
#[derive(Clone, Debug)]
pub struct MInst {
    pub op: Opcode,
    pub dst: Option<VReg>,
    pub srcs: Vec<VReg>,
    pub imm: Option<u32>,
    pub special: Option<SpecialReg>,
    /// `@p` / `@!p` predicate on an ordinary instruction, or the condition of a `Select`/`BoolFromPred` pseudo.
    pub pred: Option<(VReg, bool)>,
    /// The destination must not share a register with any source (pseudo
    /// expansions write it before reading every source).
    pub early_clobber: bool,
    pub span: Span,
    /// Human note for the listing (e.g. the float value of a constant).
    pub note: Option<String>,
    /// Inserted by register allocation (spill code), and what for.
    pub spill: Option<SpillTag>,
    /// pair16: source `k` is a 16-bit operand read from one half of a packed
    /// V value (`rN.lo`/`rN.hi`) when `src_halves[k]` is set (empty: none).
    pub src_halves: Vec<Option<Half>>,
    /// pair16: the instruction writes only this half of its V destination,
    /// which takes the other half from the last source (the packed value
    /// being completed); emission adds a half move when the two do not share
    /// a register.
    pub ins: Option<Half>,
    /// `@p op d, ..., x` (`codegen::pred_merge`): the lanes where the
    /// predicate fails keep the last source `x`, which is not an operand of
    /// the operation; `d` prefers `x`'s register, and emission adds
    /// `@!p mov d, x` after the instruction when they differ.
    pub merge: bool,
    /// `CmpChain`: per compare, its opcode and the guard it runs under (`None`
    /// for the first; `Some(true)` `@p`, an `&&`; `Some(false)` `@!p`, an `||`).
    pub chain: Vec<(Option<bool>, Opcode)>,
    /// Source `k` is word `src_words[k]` of a V2/V4 tuple (its register plus
    /// that many) rather than the whole value (empty: none).
    pub src_words: Vec<Option<u8>>,
    /// `Split`: the tuple whose word this names (not a read: the tuple's
    /// registers are written by the load and handed over word by word).
    pub split_of: Option<VReg>,
    /// A load of memory nothing writes while the kernel runs (cbuffers,
    /// read-only buffers): issuing it again anywhere its address is available
    /// gives the same value, so the spiller may re-load instead of saving.
    pub invariant: bool,
}

impl MInst {
    /// An instruction with none of the extras passes must treat with care: no
    /// predicate, 16-bit halves, tuple words, half-insert, spill tag or merge
    /// (what widening, merging, constant sharing and rematerialization may
    /// move, copy or replay as it is).
    pub fn is_plain(&self) -> bool {
        self.pred.is_none()
            && self.src_halves.is_empty()
            && self.src_words.is_empty()
            && self.ins.is_none()
            && self.spill.is_none()
            && !self.merge
    }

    pub fn new(op: Opcode, dst: Option<VReg>, srcs: Vec<VReg>, span: Span) -> MInst {
        MInst {
            op,
            dst,
            srcs,
            imm: None,
            special: None,
            pred: None,
            early_clobber: false,
            span,
            note: None,
            spill: None,
            src_halves: Vec::new(),
            ins: None,
            merge: false,
            chain: Vec::new(),
            src_words: Vec::new(),
            split_of: None,
            invariant: false,
        }
    }
    /// The word of a tuple source `k` reads, if it reads one.
    pub fn src_word(&self, k: usize) -> Option<u8> {
        self.src_words.get(k).copied().flatten()
    }
    /// The half of a packed value source `k` reads, if it reads one.
    pub fn src_half(&self, k: usize) -> Option<Half> {
        self.src_halves.get(k).copied().flatten()
    }
    /// Every vreg read (sources and predicate).
    pub fn uses(&self) -> impl Iterator<Item = VReg> + '_ {
        self.srcs.iter().copied().chain(self.pred.map(|(p, _)| p))
    }
}

/// How a machine block ends (mirrors `ir::Terminator`, on vregs).
#[derive(Clone, Debug, Default)]
pub enum MTerm {
    #[default]
    None,
    Jump {
        dest: Block,
        args: Vec<VReg>,
    },
    If {
        cond: VReg,
        then_dest: Block,
        else_dest: Block,
        merge: Block,
    },
    Loop {
        header: Block,
        args: Vec<VReg>,
        exit: Block,
    },
    BreakIf {
        cond: VReg,
        exit: Block,
        args: Vec<VReg>,
        cont: Block,
    },
    Return,
}

impl MTerm {
    pub fn shape(&self) -> Shape {
        match self {
            MTerm::None => Shape::None,
            MTerm::Return => Shape::Return,
            MTerm::Jump { dest, .. } => Shape::Jump(*dest),
            MTerm::If { then_dest, else_dest, merge, .. } => Shape::If { then_dest: *then_dest, else_dest: *else_dest, merge: *merge },
            MTerm::Loop { header, exit, .. } => Shape::Loop { header: *header, exit: *exit },
            MTerm::BreakIf { exit, cont, .. } => Shape::BreakIf { exit: *exit, cont: *cont },
        }
    }
    /// Vregs read by the terminator: the condition, then edge arguments.
    pub fn uses(&self) -> Vec<VReg> {
        match self {
            MTerm::None | MTerm::Return => vec![],
            MTerm::Jump { args, .. } | MTerm::Loop { args, .. } => args.clone(),
            MTerm::If { cond, .. } => vec![*cond],
            MTerm::BreakIf { cond, args, .. } => std::iter::once(*cond).chain(args.iter().copied()).collect(),
        }
    }
    /// CFG successors with the arguments passed on each edge.
    pub fn edges(&self) -> Vec<(Block, &[VReg])> {
        match self {
            MTerm::None | MTerm::Return => vec![],
            MTerm::Jump { dest, args } => vec![(*dest, args.as_slice())],
            MTerm::Loop { header, args, .. } => vec![(*header, args.as_slice())],
            MTerm::If { then_dest, else_dest, .. } => vec![(*then_dest, &[]), (*else_dest, &[])],
            MTerm::BreakIf { exit, args, cont, .. } => vec![(*exit, args.as_slice()), (*cont, &[])],
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct MBlock {
    pub params: Vec<VReg>,
    pub insts: Vec<MInst>,
    pub term: MTerm,
    pub term_span: Span,
}

/// A kernel in machine IR.
#[derive(Clone, Debug)]
pub struct MFunction {
    pub name: String,
    pub blocks: SecondaryMap<Block, MBlock>,
    /// Blocks that exist, in region-tree order.
    pub order: Vec<Block>,
    pub entry: Block,
    pub vregs: PrimaryMap<VReg, VRegInfo>,
    /// Bytes of local memory (`.local_memory`), from `ir::Function::local_memory`;
    /// register allocation adds its spill area.
    pub local_memory: u32,
    /// Of `local_memory`, the bytes of local arrays (`ir::Function::local_arrays`).
    pub local_arrays: u32,
    /// `[numthreads]` of the kernel (the spill area has a word per thread).
    pub workgroup_size: [u32; 3],
    /// Values that spilling made to stand for another (reloads, recomputations,
    /// bank reads, block parameters joining them): the value they stand for.
    pub stands_for: SecondaryMap<VReg, Option<VReg>>,
    /// Edges into a block whose parameter lives in memory where the argument
    /// already sits in the parameter's slot (no store): (from, to, slot,
    /// parameter, argument). The checker renames the slot's value on the edge.
    pub slot_edges: Vec<(Block, Block, u32, VReg, VReg)>,
    /// Spill slots from this one on live in the device-memory scratch buffer
    /// (the local spill area was full); `u32::MAX`: every slot is local.
    pub device_slots_from: u32,
}

impl Default for MFunction {
    fn default() -> MFunction {
        use cranelift_entity::EntityRef;
        MFunction {
            name: String::new(),
            blocks: SecondaryMap::new(),
            order: Vec::new(),
            entry: Block::new(0),
            vregs: PrimaryMap::new(),
            local_memory: 0,
            local_arrays: 0,
            workgroup_size: [1, 1, 1],
            stands_for: SecondaryMap::new(),
            slot_edges: Vec::new(),
            device_slots_from: u32::MAX,
        }
    }
}

impl MFunction {
    /// Which values some instruction or terminator reads.
    pub fn read_vregs(&self) -> SecondaryMap<VReg, bool> {
        let mut used: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(self.vregs.len());
        for &b in &self.order {
            for inst in &self.blocks[b].insts {
                for u in inst.uses().chain(inst.split_of) {
                    used[u] = true;
                }
            }
            for u in self.blocks[b].term.uses() {
                used[u] = true;
            }
        }
        used
    }

    /// Instructions in the blocks, but the pseudos that emit no code (`Split`;
    /// a `Tuple` counts as one, its moves depending on the registers).
    pub fn code_size(&self) -> usize {
        self.order.iter().map(|&b| self.blocks[b].insts.iter().filter(|i| i.op != Opcode::Split).count()).sum()
    }

    pub fn new_vreg(&mut self, class: RegClass, uniform: bool) -> VReg {
        self.vregs.push(VRegInfo {
            class,
            uniform,
            group_uniform: false,
            fixed: None,
            predicates: false,
            not_r0: false,
            boolean: false,
            narrow: false,
        })
    }
    /// The shape of every block in `order` (`None` for others), for
    /// `ir::structure::region_tree_of`.
    pub fn shapes(&self) -> SecondaryMap<Block, Option<Shape>> {
        let mut s = SecondaryMap::new();
        for &b in &self.order {
            s[b] = Some(self.blocks[b].term.shape());
        }
        s
    }

    /// Whether no vreg is defined twice (by instructions or as block parameters).
    pub fn is_ssa(&self) -> Result<(), String> {
        let mut seen: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(self.vregs.len());
        for &b in &self.order {
            let block = &self.blocks[b];
            for d in block.params.iter().copied().chain(block.insts.iter().filter_map(|i| i.dst)) {
                if seen[d] {
                    return Err(format!("{d} is defined twice (again in {b})"));
                }
                seen[d] = true;
            }
        }
        Ok(())
    }
}
