//! The allocation checker: a symbolic run of the allocated program.
//!
//! Each half of a physical register, spill slot and bank lane holds the name
//! of the program value it contains (or nothing known), or, for a boolean kept
//! as a wave mask, a form of it: the predicate `v != 0`, the mask `wave_ballot`
//! made of that, the mask shifted right by the lane id. Each step of a mask's
//! save and re-test must read the form the one before made, so a mask of the
//! wrong value, lane or bank shows up like a wrong reload. Running every block with
//! those states (a forward dataflow to a fixed point over the CFG, meeting
//! states where paths join), every use must read the value it stands for: a
//! reload, rematerialization or bank read stands for the value it brings back,
//! so a wrong slot, a clobbered register or a missed edge copy shows up as a
//! use reading the wrong name. It also checks that no register is above the
//! limit, that early-clobber destinations do not share a source register, and
//! the ISA's fixed-register rules, and that each spill slot is accessed in
//! its own memory (local, or the device scratch buffer). Registers are followed by halves: a V value
//! must be in both halves of its register, an H value (16 bits) in its own,
//! so writing one half of a register kills what the other half does not hold;
//! a packed pair (pair16) is a V value read by halves. It trusts the instructions' own semantics
//! and the sequentialization of parallel copies (tested on its own).

use crate::codegen::mir::*;
use crate::ir::Block;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Half-register units 0..512 (r0.lo, r0.hi, r1.lo, ...), then p0..p3.
const P_BASE: usize = 512;

/// What a register or bank lane holds: a program value, or a step of
/// bool-to-mask on the boolean named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Val(VReg),
    /// The predicate `v != 0`.
    Test(VReg),
    /// `wave_ballot` of that predicate.
    Mask(VReg),
    /// The mask shifted right by the lane id.
    Shifted(VReg),
}

impl std::fmt::Display for Sym {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sym::Val(v) => write!(f, "{v}"),
            Sym::Test(v) => write!(f, "{v} != 0"),
            Sym::Mask(v) => write!(f, "the mask of {v}"),
            Sym::Shifted(v) => write!(f, "the shifted mask of {v}"),
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
struct State {
    regs: Vec<Option<Sym>>,
    slots: BTreeMap<u32, VReg>,
    banks: BTreeMap<(u32, u32), Sym>,
}

impl State {
    fn meet(&mut self, other: &State) -> bool {
        let mut changed = false;
        for (a, b) in self.regs.iter_mut().zip(&other.regs) {
            if a.is_some() && a != b {
                *a = None;
                changed = true;
            }
        }
        let before = (self.slots.len(), self.banks.len());
        self.slots.retain(|k, v| other.slots.get(k) == Some(v));
        self.banks.retain(|k, v| other.banks.get(k) == Some(v));
        changed || before != (self.slots.len(), self.banks.len())
    }
}

/// Bits of a bit bank are tracked beside its lanes, from this key on.
const BITS: u32 = 1 << 16;

/// Per-workgroup words are tracked beside the slots, from this key on.
const GROUP_WORDS: u32 = 1 << 31;

/// What a vreg stands for: spill code's results, and the parameters joining
/// them, stand for the original value they bring back.
fn origin(stands_for: &SecondaryMap<VReg, Option<VReg>>, v: VReg) -> VReg {
    stands_for[v].unwrap_or(v)
}

/// Checks the allocation `reg` of `m`: values use V registers below `limit`
/// (the lane banks, if any, sit at `limit` and above).
pub fn check(m: &MFunction, reg: &SecondaryMap<VReg, Option<u32>>, limit: u32) -> Result<(), String> {
    // The first unit (or predicate) a value occupies.
    let slot_of = |v: VReg| -> Result<usize, String> {
        let r = reg[v].ok_or_else(|| format!("{v} has no register"))?;
        let class = m.vregs[v].class;
        match class {
            RegClass::P if r < 4 => Ok(P_BASE + r as usize),
            RegClass::P => Err(format!("{v} is in p{r}")),
            _ => {
                let span = class.unit_span(r);
                if span.end <= 2 * limit && span.end as usize <= P_BASE {
                    Ok(span.start as usize)
                } else {
                    Err(format!("{v} is in {}, above the limit of {limit} registers", reg_name(span.start as usize)))
                }
            }
        }
    };
    let tags = &m.stands_for;
    // A tagged reload, rematerialization or bank read must stand for the value its tag names.
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if let (
                Some(d),
                Some(
                    SpillTag::Reload { of, .. }
                    | SpillTag::GroupReload { of, .. }
                    | SpillTag::Remat { of }
                    | SpillTag::BankRead { of, .. }
                    | SpillTag::BitsRead { of, .. }
                    | SpillTag::MaskBit { of },
                ),
            ) = (inst.dst, inst.spill)
            {
                if tags[d] != Some(of) {
                    return Err(format!("{d} brings back {of} but does not stand for it"));
                }
            }
        }
    }
    // A per-workgroup word belongs to one workgroup-invariant value: every
    // wave stores the same bits there, so no wave can overwrite what another
    // still reads.
    let mut owner: BTreeMap<u32, VReg> = BTreeMap::new();
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if let Some(SpillTag::GroupStore { word, of }) = inst.spill {
                if !m.vregs[of].group_uniform {
                    return Err(format!("{of} is stored in word {word} of the workgroup but differs between waves"));
                }
                if let Some(&o) = owner.get(&word) {
                    if o != of {
                        return Err(format!("word {word} of the workgroup holds both {o} and {of}"));
                    }
                }
                owner.insert(word, of);
            }
        }
    }
    for (v, info) in m.vregs.iter() {
        if let (Some(f), Some(r)) = (info.fixed, reg[v]) {
            if f != r {
                return Err(format!("{v} must be in r{f}, got r{r}"));
            }
        }
        if info.not_r0 && matches!(info.class, RegClass::V | RegClass::H) && reg[v].is_some_and(|r| info.class.unit_span(r).start < 2) {
            return Err(format!("{v} (an atomic's result) must not be r0"));
        }
    }
    // Booleans made from a predicate (`d = p ? 1 : 0`): a mask may ballot `p`.
    let mut tests: SecondaryMap<VReg, Option<VReg>> = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if let (Opcode::BoolFromPred, Some(d), Some((p, false))) = (inst.op, inst.dst, inst.pred) {
                tests[d] = Some(p);
            }
        }
    }
    let mut entry_state: SecondaryMap<Block, Option<State>> = SecondaryMap::new();
    let mut init = State { regs: vec![None; P_BASE + 4], slots: BTreeMap::new(), banks: BTreeMap::new() };
    for &p in &m.blocks[m.entry].params {
        let first = slot_of(p)?;
        let n = (m.vregs[p].class.units() as usize).max(1);
        init.regs[first..first + n].fill(Some(Sym::Val(p)));
    }
    entry_state[m.entry] = Some(init);
    // Iterate to a fixed point, then check once more with the final states.
    let mut rounds = 0;
    loop {
        let mut changed = false;
        for &b in &m.order {
            let Some(state) = entry_state[b].clone() else { continue };
            let out = run_block(m, b, state, tags, &tests, &slot_of, false)?;
            for (s, st) in out {
                match &mut entry_state[s] {
                    Some(cur) => changed |= cur.meet(&st),
                    slot @ None => {
                        *slot = Some(st);
                        changed = true;
                    }
                }
            }
        }
        rounds += 1;
        if !changed || rounds > m.order.len() + 4 {
            break;
        }
    }
    for &b in &m.order {
        let Some(state) = entry_state[b].clone() else { continue };
        run_block(m, b, state, tags, &tests, &slot_of, true)?;
    }
    Ok(())
}

/// Runs `b` from `state`; returns the state on each outgoing edge. With
/// `check`, every read is compared with the value it should see.
fn run_block(
    m: &MFunction,
    b: Block,
    mut st: State,
    tags: &SecondaryMap<VReg, Option<VReg>>,
    tests: &SecondaryMap<VReg, Option<VReg>>,
    slot_of: &dyn Fn(VReg) -> Result<usize, String>,
    check: bool,
) -> Result<Vec<(Block, State)>, String> {
    // The units a value occupies (two for a V register, four for a pair, one for a half).
    let units = |v: VReg| -> Result<std::ops::Range<usize>, String> {
        let r = slot_of(v)?;
        let w = if m.vregs[v].class == RegClass::P { 1 } else { m.vregs[v].class.units() as usize };
        Ok(r..r + w)
    };
    // What `v`'s registers hold: one value if they all agree.
    let read = |st: &State, v: VReg| -> Result<Option<Sym>, String> {
        let us = units(v)?;
        let first = st.regs[us.start];
        Ok(if us.clone().all(|u| st.regs[u] == first) { first } else { None })
    };
    let write = |st: &mut State, v: VReg, x: Option<Sym>| -> Result<(), String> {
        for u in units(v)? {
            st.regs[u] = x;
        }
        Ok(())
    };
    // `v` must hold `want` (its own value, or a step of a mask).
    let expect_sym = |st: &State, v: VReg, want: Sym, what: &str| -> Result<(), String> {
        if !check {
            return Ok(());
        }
        match read(st, v)? {
            Some(have) if have == want => Ok(()),
            have => Err(format!(
                "{what} in {b} reads {v} (standing for {want}) from {}, which holds {}",
                reg_name(slot_of(v)?),
                have.map_or("nothing known".to_string(), |h| h.to_string())
            )),
        }
    };
    let expect = |st: &State, v: VReg, what: &str| expect_sym(st, v, Sym::Val(origin(tags, v)), what);
    let block = &m.blocks[b];
    for (i, inst) in block.insts.iter().enumerate() {
        let at = format!("instruction {i} ({:?})", inst.op);
        // A mask step's first source holds the form the step before made.
        let step = match inst.spill {
            Some(SpillTag::MaskBallot { of }) => Some(Sym::Test(of)),
            Some(SpillTag::MaskWrite { of, .. } | SpillTag::MaskShift { of }) => Some(Sym::Mask(of)),
            Some(SpillTag::MaskBit { of }) => Some(Sym::Shifted(of)),
            _ => None,
        };
        for (k, u) in inst.uses().enumerate() {
            match step {
                // The ballot of the predicate the boolean was made from.
                Some(Sym::Test(of)) if k == 0 && tests[of] == Some(u) => expect(&st, u, &at)?,
                Some(want) if k == 0 => expect_sym(&st, u, want, &at)?,
                _ => expect(&st, u, &at)?,
            }
        }
        // Word accesses read and write whole registers: never a half's value.
        // A groupshared address may be a half (addr16: proven below 2^16).
        let address_half = matches!(inst.op, Opcode::LocalLoadU32 | Opcode::LocalStoreU32) as usize;
        if matches!(
            inst.op,
            Opcode::LocalLoadU32 | Opcode::LocalStoreU32 | Opcode::DeviceLoadU32 | Opcode::DeviceStoreU32 | Opcode::Atomic { .. }
        ) && inst.dst.iter().chain(&inst.srcs[address_half.min(inst.srcs.len())..]).any(|&v| m.vregs[v].class == RegClass::H)
        {
            return Err(format!("{at} in {b}: a 32-bit memory access with a 16-bit (half) operand"));
        }
        packed_forms(m, inst).map_err(|e| format!("{at} in {b}: {e}"))?;
        if let (Some(d), true) = (inst.dst, inst.early_clobber) {
            let rd = units(d)?;
            for &s in &inst.srcs {
                let rs = units(s)?;
                if rs.start < rd.end && rd.start < rs.end {
                    return Err(format!("{at} in {b}: early-clobber destination {d} shares a register with source {s}"));
                }
            }
        }
        if let Some(SpillTag::Store { slot, .. } | SpillTag::EdgeStore { slot, .. } | SpillTag::Reload { slot, .. }) = inst.spill {
            slot_space(m, slot, inst.op).map_err(|e| format!("{at} in {b}: {e}"))?;
        }
        match (inst.spill, inst.op) {
            (Some(SpillTag::Store { slot, of }), _) => {
                let v = *inst.srcs.last().ok_or("a spill store without a value")?;
                if check && origin(tags, v) != of {
                    return Err(format!("{at} in {b} stores {v} as {of}"));
                }
                match read(&st, v)? {
                    Some(Sym::Val(x)) => st.slots.insert(slot, x),
                    _ => st.slots.remove(&slot),
                };
            }
            (Some(SpillTag::GroupStore { word, of }), _) => {
                let v = *inst.srcs.last().ok_or("a group store without a value")?;
                if check && origin(tags, v) != of {
                    return Err(format!("{at} in {b} stores {v} as {of}"));
                }
                match read(&st, v)? {
                    Some(Sym::Val(x)) => st.slots.insert(GROUP_WORDS + word, x),
                    _ => st.slots.remove(&(GROUP_WORDS + word)),
                };
            }
            (Some(SpillTag::GroupReload { word, .. }), _) => {
                let d = inst.dst.ok_or("a group reload without a destination")?;
                let x = st.slots.get(&(GROUP_WORDS + word)).copied().map(Sym::Val);
                write(&mut st, d, x)?;
            }
            (Some(SpillTag::EdgeStore { slot, param }), _) => {
                // The argument's own value was checked as a use; the slot now holds the parameter.
                st.slots.insert(slot, param);
            }
            (Some(SpillTag::Reload { slot, .. }), _) => {
                let d = inst.dst.ok_or("a reload without a destination")?;
                let x = st.slots.get(&slot).copied().map(Sym::Val);
                write(&mut st, d, x)?;
            }
            (Some(SpillTag::BankWrite { bank, lane, .. } | SpillTag::MaskWrite { bank, lane, .. }), Opcode::BankWrite(b2))
                if bank == b2 =>
            {
                match read(&st, inst.srcs[0])? {
                    Some(x) => st.banks.insert((bank, lane), x),
                    None => st.banks.remove(&(bank, lane)),
                };
            }
            (Some(SpillTag::BankRead { bank, lane, .. } | SpillTag::MaskRead { bank, lane, .. }), Opcode::BankRead(b2)) if bank == b2 => {
                let d = inst.dst.ok_or("a bank read without a destination")?;
                let x = st.banks.get(&(bank, lane)).copied();
                write(&mut st, d, x)?;
            }
            (Some(SpillTag::BitsInit { bank }), Opcode::BitsInit(b2)) if bank == b2 => {
                st.banks.retain(|&(k, l), _| k != bank || l < BITS);
            }
            (Some(SpillTag::BitsWrite { bank, bit, .. }), Opcode::BitsWrite(b2)) if bank == b2 => {
                match read(&st, inst.srcs[0])? {
                    Some(x) => st.banks.insert((bank, BITS + bit), x),
                    None => st.banks.remove(&(bank, BITS + bit)),
                };
            }
            (Some(SpillTag::BitsRead { bank, bit, .. }), Opcode::BitsRead(b2)) if bank == b2 => {
                let d = inst.dst.ok_or("a bit read without a destination")?;
                let x = st.banks.get(&(bank, BITS + bit)).copied();
                write(&mut st, d, x)?;
            }
            (_, Opcode::BankWrite(_) | Opcode::BankRead(_) | Opcode::BitsInit(_) | Opcode::BitsWrite(_) | Opcode::BitsRead(_)) => {
                return Err(format!("{at} in {b}: a bank access without its tag"))
            }
            (Some(SpillTag::MaskTest { of }), Opcode::IcmpNe) => {
                if check && inst.srcs.first().map(|&v| origin(tags, v)) != Some(of) {
                    return Err(format!("{at} in {b}: the mask test of {of} tests another value"));
                }
                write(&mut st, inst.dst.ok_or("a mask test without a predicate")?, Some(Sym::Test(of)))?
            }
            (Some(SpillTag::MaskBallot { of }), Opcode::WaveBallot) => {
                write(&mut st, inst.dst.ok_or("a ballot without a destination")?, Some(Sym::Mask(of)))?
            }
            (Some(SpillTag::MaskShift { of }), Opcode::Shr) => {
                write(&mut st, inst.dst.ok_or("a mask shift without a destination")?, Some(Sym::Shifted(of)))?
            }
            (Some(SpillTag::MaskTest { .. } | SpillTag::MaskBallot { .. } | SpillTag::MaskShift { .. }), _) => {
                return Err(format!("{at} in {b}: a mask step on the wrong instruction"))
            }
            (None, Opcode::Split) => {
                // Word k of the tuple: its register is the tuple's plus k, and
                // still holds what the wide load wrote there.
                let d = inst.dst.ok_or("a split without a destination")?;
                let t = inst.split_of.ok_or("a split without its tuple")?;
                let k = inst.imm.unwrap_or(0) as usize;
                let words = match m.vregs[t].class {
                    RegClass::V2 => 2,
                    RegClass::V4 => 4,
                    _ => return Err(format!("{at} in {b}: {d} splits {t}, which is not a tuple")),
                };
                let (rt, rd) = (slot_of(t)?, slot_of(d)?);
                if k >= words || rd != rt + 2 * k || m.vregs[d].class != RegClass::V {
                    return Err(format!("{at} in {b}: word {k} of {t} ({}) named {d} in {}", reg_name(rt), reg_name(rd)));
                }
                if check && (st.regs[rd] != Some(Sym::Val(origin(tags, t))) || st.regs[rd + 1] != st.regs[rd]) {
                    return Err(format!("{at} in {b}: {} no longer holds word {k} of {t}", reg_name(rd)));
                }
                write(&mut st, d, Some(Sym::Val(origin(tags, d))))?;
            }
            _ => {
                if let Some(d) = inst.dst {
                    write(&mut st, d, Some(Sym::Val(origin(tags, d))))?;
                }
            }
        }
    }
    let term = &block.term;
    for u in term.uses() {
        expect(&st, u, "the terminator")?;
    }
    let mut out = Vec::new();
    for (s, args) in term.edges() {
        let mut next = st.clone();
        let params = &m.blocks[s].params;
        if params.len() != args.len() {
            return Err(format!("edge {b} -> {s} passes {} arguments to {} parameters", args.len(), params.len()));
        }
        // A parallel copy: every argument is read before any parameter is written.
        let values: Vec<Option<Sym>> = args.iter().map(|&a| read(&st, a)).collect::<Result<_, _>>()?;
        for (&p, (&a, val)) in params.iter().zip(args.iter().zip(values)) {
            if check && val != Some(Sym::Val(origin(tags, a))) {
                return Err(format!("edge {b} -> {s}: argument {a} is not in its register"));
            }
            // A parameter spilling added carries the value it stands for; the
            // argument must be that value.
            if check && tags[p].is_some() && tags[p] != Some(origin(tags, a)) {
                return Err(format!("edge {b} -> {s}: {a} is passed to {p}, which stands for {}", origin(tags, p)));
            }
            write(&mut next, p, Some(Sym::Val(origin(tags, p))))?;
        }
        // Memory parameters whose argument already sits in their slot.
        for &(_, _, slot, p, a) in m.slot_edges.iter().filter(|e| e.0 == b && e.1 == s) {
            let a = origin(tags, a);
            if st.slots.get(&slot) == Some(&a) {
                next.slots.insert(slot, p);
            } else if check {
                return Err(format!("edge {b} -> {s}: slot {slot} of memory parameter {p} does not hold its argument {a}"));
            } else {
                next.slots.remove(&slot);
            }
        }
        out.push((s, next));
    }
    Ok(out)
}

/// pair16: a half operand reads a packed pair (a V value: both halves of its
/// register hold its name, checked as for any V use), and a half write
/// completes one: a V destination whose last source, the value completed, is V
/// too. The write is followed as a write of the whole destination, which is
/// what its expansion leaves (the other half moved over when not in place).
fn packed_forms(m: &MFunction, inst: &MInst) -> Result<(), String> {
    if inst.src_halves.len() > inst.srcs.len() {
        return Err("more half selectors than sources".into());
    }
    if inst.src_words.len() > inst.srcs.len() {
        return Err("more word selectors than sources".into());
    }
    for (k, &s) in inst.srcs.iter().enumerate() {
        if inst.src_half(k).is_some() && m.vregs[s].class != RegClass::V {
            return Err(format!("reads a half of {s}, which is not a packed (V) value"));
        }
        if let Some(w) = inst.src_word(k) {
            let words = match m.vregs[s].class {
                RegClass::V2 => 2,
                RegClass::V4 => 4,
                _ => 0,
            };
            if u32::from(w) >= words || inst.src_half(k).is_some() {
                return Err(format!("reads word {w} of {s}, which has {words}"));
            }
        }
    }
    if inst.ins.is_some() {
        let whole = |v: Option<VReg>| v.is_some_and(|v| m.vregs[v].class == RegClass::V);
        if !whole(inst.dst) || !whole(inst.srcs.last().copied()) || inst.pred.is_some() {
            return Err("a half write must complete a V value from a V source, unpredicated".into());
        }
    }
    Ok(())
}

/// A spill slot is accessed in its own memory: local below
/// `m.device_slots_from`, the device scratch buffer from there on.
fn slot_space(m: &MFunction, slot: u32, op: Opcode) -> Result<(), String> {
    use Opcode::*;
    let device = match op {
        LocalLoadU32 | LocalStoreU32 | LocalLoadU16 | LocalStoreU16 => false,
        DeviceLoadU32 | DeviceStoreU32 | DeviceLoadU16 | DeviceStoreU16 => true,
        op => return Err(format!("spill slot {slot} is accessed by {op:?}, not a load or store")),
    };
    let home = if slot >= m.device_slots_from { "device" } else { "local" };
    if device != (slot >= m.device_slots_from) {
        return Err(format!("spill slot {slot} is in {home} memory but accessed by {op:?}"));
    }
    Ok(())
}

fn reg_name(u: usize) -> String {
    if u >= P_BASE {
        format!("p{}", u - P_BASE)
    } else {
        format!("r{}.{}", u / 2, if u & 1 == 0 { "lo" } else { "hi" })
    }
}
