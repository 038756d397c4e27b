//! The instructions spilling inserts: saving a value to its home after its
//! definition, bringing it back before a use, and the spill pointer.
//!
//! Homes:
//! - **rematerialization**: constants, special registers and short integer
//!   expressions of them are recomputed (nothing is saved; the expression's
//!   inner values are recomputed too, into temporaries); so are loads of
//!   memory nothing writes (cbuffers, read-only buffers) where the values
//!   their address is computed from are in registers: re-loaded, not saved;
//! - **lane banks**: a wave-uniform value defined where every lane is active
//!   is written into one lane of a bank register (`@p mov bank, v` with
//!   `p = lane_id == j`) and read back with `wave_broadcast d, bank, j`;
//! - **wave masks** (bool-to-mask): a boolean (0/1) defined where every lane
//!   is active becomes `wave_ballot (v != 0)`, a wave-uniform mask, kept in a
//!   bank lane like a uniform value; a use reads it back and re-tests this
//!   lane's bit, `(mask >> lane_id) & 1`. Only for waves of at most 32 lanes
//!   (WAVE's ballot covers lanes 0..32);
//! - **a word per workgroup**: a value the same in every wave of the
//!   workgroup (kernel arguments, cbuffer fields, what is computed from them
//!   and the group's ids; `VRegInfo::group_uniform`) defined outside loops,
//!   where it is neither rematerialized nor banked, is stored by every wave
//!   into one word of local memory of its own (`mov_imm a, word; local_store
//!   a, v`): the waves store the same bits, each after computing it, so no
//!   wave reads a word another wave has not yet written or may overwrite
//!   with something else. Unlike a lane bank this works under divergence
//!   and costs no register; unlike a slot it costs four bytes per group, not
//!   per thread. The words sit after the groupshared variables, before the
//!   slots;
//! - **bits** (booleans, wherever lanes may be inactive, any wave width):
//!   each lane keeps up to 32 of its booleans one bit each in a bit bank
//!   register (`bfi bank, bank, v, bit, 1`; back with `bfe d, bank, bit,
//!   1`, the 0/1 again), the seed's bit packing. Inactive lanes keep their
//!   bits and never read the ones they did not write; the bank is zeroed at
//!   entry so every read is of a defined register;
//! - **local memory**: each thread owns one word per spill slot, at
//!   `area + slot*T*4 + tid*4` (`T` threads per group), so a wave's accesses
//!   are consecutive words (no bank conflicts); the spill pointer
//!   `area + tid*4` is computed once at entry and slot 0 is at the pointer;
//! - **device memory** (slots `local_slots..`, when the local area is full):
//!   the scratch buffer whose address is the extra ABI argument. Each
//!   workgroup owns a block of `D*T*4` bytes (`D` device slots), indexed by
//!   its flattened id `g = wg.x + grid.x * (wg.y + grid.y * wg.z)`; slot `s`
//!   of thread `tid` is at `scratch + g*D*T*4 + (s - local_slots)*T*4 +
//!   tid*4`: slot-major within the block, consecutive threads at consecutive
//!   words (one coalesced segment per wave). The scratch pointer
//!   `scratch + g*D*T*4 + tid*4` is computed once at entry.

use super::SpillStats;
use crate::codegen::mir::*;
use crate::diag::Span;
use crate::ir::SpecialReg;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Home {
    Remat,
    Bank {
        bank: u32,
        lane: u32,
    },
    /// The wave mask of a boolean, in a bank lane.
    Mask {
        bank: u32,
        lane: u32,
    },
    Slot(u32),
    /// Word `n` of the per-workgroup area.
    Group(u32),
    /// Bit `bit` of bit bank `bank` (a boolean).
    Bits {
        bank: u32,
        bit: u32,
    },
}

/// Builds spill code into `m`, counting it in `stats`.
pub struct CodeGen {
    /// Threads per workgroup.
    pub threads: u32,
    /// Byte offset of the spill area (per-thread slots) in local memory.
    pub area: u32,
    /// Byte offset of the per-workgroup words in local memory.
    pub group_area: u32,
    pub sp: Option<VReg>,
    /// Slots `0..local_slots` are in local memory, the others in the scratch buffer.
    pub local_slots: u32,
    /// The scratch buffer, when some slots are in device memory.
    pub scratch: Option<Scratch>,
    /// The scratch pointer (this thread's word of slot `local_slots`).
    pub dsp: Option<VReg>,
    /// The definitions of rematerializable values (and of what they read).
    pub remat_defs: std::collections::BTreeMap<VReg, MInst>,
    pub stats: SpillStats,
}

/// The device-memory scratch buffer of the spill slots that local memory cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scratch {
    /// The argument register holding its byte address.
    pub register: u32,
    /// Bytes of one workgroup's block (`slots * T * 4`).
    pub bytes_per_group: u32,
}

fn tagged(op: Opcode, dst: Option<VReg>, srcs: Vec<VReg>, span: Span, tag: SpillTag) -> MInst {
    let mut i = MInst::new(op, dst, srcs, span);
    i.spill = Some(tag);
    i
}

impl CodeGen {
    fn imm(m: &mut MFunction, bits: u32, span: Span, tag: SpillTag, code: &mut Vec<MInst>) -> VReg {
        let t = m.new_vreg(RegClass::V, true);
        let mut i = tagged(Opcode::MovImm, Some(t), vec![], span, tag);
        i.imm = Some(bits);
        code.push(i);
        t
    }

    fn special(m: &mut MFunction, reg: SpecialReg, span: Span, tag: SpillTag, code: &mut Vec<MInst>) -> VReg {
        let t = m.new_vreg(RegClass::V, false);
        let mut i = tagged(Opcode::MovSpecial, Some(t), vec![], span, tag);
        i.special = Some(reg);
        code.push(i);
        t
    }

    fn bin(m: &mut MFunction, op: Opcode, a: VReg, b: VReg, span: Span, tag: SpillTag, code: &mut Vec<MInst>) -> VReg {
        let t = m.new_vreg(RegClass::V, false);
        code.push(tagged(op, Some(t), vec![a, b], span, tag));
        t
    }

    /// `@(lane_id == lane) BankWrite(bank) v`, tagged `tag`.
    fn bank_write(m: &mut MFunction, bank: u32, lane: u32, v: VReg, span: Span, tag: SpillTag, code: &mut Vec<MInst>) {
        let l = Self::special(m, SpecialReg::LaneId, span, SpillTag::BankLane, code);
        let c = Self::imm(m, lane, span, SpillTag::BankLane, code);
        let p = m.new_vreg(RegClass::P, false);
        m.vregs[p].predicates = true;
        code.push(tagged(Opcode::IcmpEq, Some(p), vec![l, c], span, SpillTag::BankLane));
        let mut w = tagged(Opcode::BankWrite(bank), None, vec![v], span, tag);
        w.pred = Some((p, false));
        code.push(w);
    }

    /// `wave_ballot (v != 0)`: the mask of the boolean `v` over the active
    /// lanes (of `test` itself when `v` was made from it).
    fn ballot(m: &mut MFunction, v: VReg, test: Option<VReg>, span: Span, code: &mut Vec<MInst>) -> VReg {
        let p = match test {
            Some(p) => p,
            None => {
                let zero = Self::imm(m, 0, span, SpillTag::BankLane, code);
                let p = m.new_vreg(RegClass::P, false);
                code.push(tagged(Opcode::IcmpNe, Some(p), vec![v, zero], span, SpillTag::MaskTest { of: v }));
                p
            }
        };
        let mask = m.new_vreg(RegClass::V, true);
        code.push(tagged(Opcode::WaveBallot, Some(mask), vec![p], span, SpillTag::MaskBallot { of: v }));
        mask
    }

    /// The spill pointer `area + 4 * flat thread index` (when some slot is
    /// local) and the scratch pointer (when some is in device memory), and
    /// their code. The scratch buffer's address arrives in a new entry
    /// parameter fixed to its argument register.
    pub fn spill_pointer(&mut self, m: &mut MFunction, span: Span) -> Vec<MInst> {
        let [x, y, z] = m.workgroup_size;
        let tag = SpillTag::SpillPointer;
        let mut code = Vec::new();
        let mut flat = Self::special(m, SpecialReg::ThreadId(0), span, tag, &mut code);
        if y > 1 || z > 1 {
            let mut yz = Self::special(m, SpecialReg::ThreadId(1), span, tag, &mut code);
            if z > 1 {
                let tz = Self::special(m, SpecialReg::ThreadId(2), span, tag, &mut code);
                let cy = Self::imm(m, y, span, tag, &mut code);
                let zy = Self::bin(m, Opcode::Imul, tz, cy, span, tag, &mut code);
                yz = Self::bin(m, Opcode::Iadd, yz, zy, span, tag, &mut code);
            }
            let cx = Self::imm(m, x, span, tag, &mut code);
            let row = Self::bin(m, Opcode::Imul, yz, cx, span, tag, &mut code);
            flat = Self::bin(m, Opcode::Iadd, flat, row, span, tag, &mut code);
        }
        let two = Self::imm(m, 2, span, tag, &mut code);
        let word = Self::bin(m, Opcode::Shl, flat, two, span, tag, &mut code);
        if self.local_slots > 0 {
            let mut sp = word;
            if self.area > 0 {
                let base = Self::imm(m, self.area, span, tag, &mut code);
                sp = Self::bin(m, Opcode::Iadd, sp, base, span, tag, &mut code);
            }
            self.sp = Some(sp);
        }
        if let Some(s) = self.scratch {
            let arg = m.new_vreg(RegClass::V, true);
            m.vregs[arg].fixed = Some(s.register);
            let entry = m.entry;
            m.blocks[entry].params.push(arg);
            // g = wg.x + grid.x * (wg.y + grid.y * wg.z)
            let gz = Self::special(m, SpecialReg::WorkgroupId(2), span, tag, &mut code);
            let ny = Self::special(m, SpecialReg::GridSize(1), span, tag, &mut code);
            let gy = Self::special(m, SpecialReg::WorkgroupId(1), span, tag, &mut code);
            let zy = Self::bin(m, Opcode::Imul, gz, ny, span, tag, &mut code);
            let yz = Self::bin(m, Opcode::Iadd, gy, zy, span, tag, &mut code);
            let nx = Self::special(m, SpecialReg::GridSize(0), span, tag, &mut code);
            let gx = Self::special(m, SpecialReg::WorkgroupId(0), span, tag, &mut code);
            let row = Self::bin(m, Opcode::Imul, yz, nx, span, tag, &mut code);
            let g = Self::bin(m, Opcode::Iadd, gx, row, span, tag, &mut code);
            let block = Self::imm(m, s.bytes_per_group, span, tag, &mut code);
            let off = Self::bin(m, Opcode::Imul, g, block, span, tag, &mut code);
            let base = Self::bin(m, Opcode::Iadd, arg, off, span, tag, &mut code);
            self.dsp = Some(Self::bin(m, Opcode::Iadd, base, word, span, tag, &mut code));
        }
        self.stats.weighted_cost += code.len() as u64;
        code
    }

    /// The address of `slot` for this thread, and whether it is in device memory.
    fn slot_address(&self, m: &mut MFunction, slot: u32, span: Span, code: &mut Vec<MInst>) -> (VReg, bool) {
        let (pointer, index, device) = match slot.checked_sub(self.local_slots) {
            None => (self.sp, slot, false),
            Some(d) => (self.dsp, d, true),
        };
        let p = pointer.expect("the spill and scratch pointers exist before a slot is used");
        if index == 0 {
            return (p, device);
        }
        let off = Self::imm(m, index * self.threads * 4, span, SpillTag::Addr, code);
        (Self::bin(m, Opcode::Iadd, off, p, span, SpillTag::Addr, code), device)
    }

    /// Counts one store (`reload`: one reload) of weight `weight` in `space`.
    fn count_access(&mut self, device: bool, reload: bool, weight: u64) {
        let s = &mut self.stats;
        s.weighted_memory += weight;
        if reload {
            s.reloads += 1;
            s.weighted_reloads += weight;
        } else {
            s.stores += 1;
            s.weighted_stores += weight;
        }
        if device {
            s.weighted_device += weight;
            if reload {
                s.device_reloads += 1;
            } else {
                s.device_stores += 1;
            }
        }
    }

    /// Code saving `v` to `home` (right after `v`'s definition); `test` is
    /// the predicate a boolean `v` was made from (`v = test ? 1 : 0`), which
    /// a mask's ballot reads directly.
    pub fn save(&mut self, m: &mut MFunction, v: VReg, home: Home, test: Option<VReg>, span: Span, weight: u64) -> Vec<MInst> {
        let mut code = Vec::new();
        match home {
            Home::Remat => {}
            Home::Slot(slot) => {
                let (a, device) = self.slot_address(m, slot, span, &mut code);
                code.push(tagged(store_op(m, v, device), None, vec![a, v], span, SpillTag::Store { slot, of: v }));
                self.count_access(device, false, weight);
            }
            Home::Bits { bank, bit } => {
                let b = Self::imm(m, bit, span, SpillTag::BankLane, &mut code);
                let w = Self::imm(m, 1, span, SpillTag::BankLane, &mut code);
                code.push(tagged(Opcode::BitsWrite(bank), None, vec![v, b, w], span, SpillTag::BitsWrite { bank, bit, of: v }));
                self.stats.bank_writes += 1;
            }
            Home::Group(word) => {
                let a = Self::imm(m, self.group_area + 4 * word, span, SpillTag::Addr, &mut code);
                let op = if m.vregs[v].class == RegClass::H { Opcode::LocalStoreU16 } else { Opcode::LocalStoreU32 };
                code.push(tagged(op, None, vec![a, v], span, SpillTag::GroupStore { word, of: v }));
                self.stats.group_stores += 1;
                self.stats.weighted_memory += weight;
            }
            Home::Bank { bank, lane } => {
                Self::bank_write(m, bank, lane, v, span, SpillTag::BankWrite { bank, lane, of: v }, &mut code);
                self.stats.bank_writes += 1;
            }
            Home::Mask { bank, lane } => {
                let mask = Self::ballot(m, v, test, span, &mut code);
                Self::bank_write(m, bank, lane, mask, span, SpillTag::MaskWrite { bank, lane, of: v }, &mut code);
                self.stats.bank_writes += 1;
            }
        }
        self.stats.weighted_cost += weight * code.len() as u64;
        code
    }

    /// Code storing `value` (an edge's argument) into the slot of memory parameter `param`.
    pub fn edge_store(&mut self, m: &mut MFunction, param: VReg, slot: u32, value: VReg, span: Span, weight: u64) -> Vec<MInst> {
        let mut code = Vec::new();
        let (a, device) = self.slot_address(m, slot, span, &mut code);
        code.push(tagged(store_op(m, value, device), None, vec![a, value], span, SpillTag::EdgeStore { slot, param }));
        self.count_access(device, false, weight);
        self.stats.weighted_cost += weight * code.len() as u64;
        code
    }

    /// Code bringing `v` back from `home` into a fresh vreg; `def` is `v`'s
    /// defining instruction (for rematerialization).
    pub fn restore(&mut self, m: &mut MFunction, v: VReg, home: Home, def: Option<&MInst>, span: Span, weight: u64) -> (VReg, Vec<MInst>) {
        let d = m.new_vreg(m.vregs[v].class, m.vregs[v].uniform);
        m.vregs[d].boolean = m.vregs[v].boolean;
        m.vregs[d].group_uniform = m.vregs[v].group_uniform;
        m.stands_for[d] = Some(v);
        let code = self.restore_into(m, v, home, def, span, weight, d);
        (d, code)
    }

    /// Like [`CodeGen::restore`], into the given vreg `d` (which stands for `v`).
    #[allow(clippy::too_many_arguments)]
    pub fn restore_into(
        &mut self,
        m: &mut MFunction,
        v: VReg,
        home: Home,
        def: Option<&MInst>,
        span: Span,
        weight: u64,
        d: VReg,
    ) -> Vec<MInst> {
        let mut code = Vec::new();
        match home {
            Home::Remat => {
                let def = def.or(self.remat_defs.get(&v)).expect("a rematerialized value has its definition").clone();
                self.replay(m, v, def, d, span, &mut code);
                self.stats.remats += 1;
                // Re-loads of read-only memory: not spill traffic (nothing is
                // stored; a uniform address is one transaction per wave), their
                // latency is in the schedule's estimate.
                self.stats.reissued_loads += code.iter().filter(|i| i.op.is_device_load()).count() as u32;
            }
            Home::Slot(slot) => {
                let (a, device) = self.slot_address(m, slot, span, &mut code);
                let op = match (m.vregs[d].class == RegClass::H, device) {
                    (true, false) => Opcode::LocalLoadU16,
                    (false, false) => Opcode::LocalLoadU32,
                    (true, true) => Opcode::DeviceLoadU16,
                    (false, true) => Opcode::DeviceLoadU32,
                };
                code.push(tagged(op, Some(d), vec![a], span, SpillTag::Reload { slot, of: v }));
                self.count_access(device, true, weight);
            }
            Home::Bits { bank, bit } => {
                let b = Self::imm(m, bit, span, SpillTag::BankLane, &mut code);
                let w = Self::imm(m, 1, span, SpillTag::BankLane, &mut code);
                code.push(tagged(Opcode::BitsRead(bank), Some(d), vec![b, w], span, SpillTag::BitsRead { bank, bit, of: v }));
                self.stats.bank_reads += 1;
            }
            Home::Group(word) => {
                let a = Self::imm(m, self.group_area + 4 * word, span, SpillTag::Addr, &mut code);
                let op = if m.vregs[d].class == RegClass::H { Opcode::LocalLoadU16 } else { Opcode::LocalLoadU32 };
                code.push(tagged(op, Some(d), vec![a], span, SpillTag::GroupReload { word, of: v }));
                self.stats.group_reloads += 1;
                self.stats.weighted_memory += weight;
            }
            Home::Bank { bank, lane } => {
                let c = Self::imm(m, lane, span, SpillTag::BankLane, &mut code);
                code.push(tagged(Opcode::BankRead(bank), Some(d), vec![c], span, SpillTag::BankRead { bank, lane, of: v }));
                self.stats.bank_reads += 1;
            }
            Home::Mask { bank, lane } => {
                // This lane's bit of the mask, as the 0/1 the boolean was.
                let c = Self::imm(m, lane, span, SpillTag::BankLane, &mut code);
                let mask = m.new_vreg(RegClass::V, true);
                code.push(tagged(Opcode::BankRead(bank), Some(mask), vec![c], span, SpillTag::MaskRead { bank, lane, of: v }));
                let l = Self::special(m, SpecialReg::LaneId, span, SpillTag::BankLane, &mut code);
                let shifted = Self::bin(m, Opcode::Shr, mask, l, span, SpillTag::MaskShift { of: v }, &mut code);
                let one = Self::imm(m, 1, span, SpillTag::BankLane, &mut code);
                code.push(tagged(Opcode::And, Some(d), vec![shifted, one], span, SpillTag::MaskBit { of: v }));
                self.stats.bank_reads += 1;
            }
        }
        self.stats.weighted_cost += weight * code.len() as u64;
        code
    }
}

impl CodeGen {
    /// Zeroes bit banks `first..first + n` (at entry, before anything writes them).
    pub fn bits_init(&self, first: u32, n: u32, span: Span) -> Vec<MInst> {
        (first..first + n).map(|bank| tagged(Opcode::BitsInit(bank), None, vec![], span, SpillTag::BitsInit { bank })).collect()
    }

    /// Recomputes `v` (defined by `def`) into `d`, and first each value
    /// `def` reads into a temporary standing for it. A value without a
    /// definition to replay is a leaf of a re-load's address, which the
    /// spiller chose only where it is in a register: it is read as it is.
    fn replay(&self, m: &mut MFunction, v: VReg, mut def: MInst, d: VReg, span: Span, code: &mut Vec<MInst>) {
        for k in 0..def.srcs.len() {
            let s = def.srcs[k];
            let Some(inner) = self.remat_defs.get(&s).cloned() else { continue };
            let t = m.new_vreg(m.vregs[s].class, m.vregs[s].uniform);
            m.stands_for[t] = Some(s);
            self.replay(m, s, inner, t, span, code);
            def.srcs[k] = t;
        }
        def.dst = Some(d);
        def.span = span;
        def.spill = Some(SpillTag::Remat { of: v });
        code.push(def);
    }
}

/// A 16-bit value spills as a half: its slot's low two bytes (word accesses
/// would read and write the whole register, not the value's half).
fn store_op(m: &MFunction, v: VReg, device: bool) -> Opcode {
    match (m.vregs[v].class == RegClass::H, device) {
        (true, false) => Opcode::LocalStoreU16,
        (false, false) => Opcode::LocalStoreU32,
        (true, true) => Opcode::DeviceStoreU16,
        (false, true) => Opcode::DeviceStoreU32,
    }
}
