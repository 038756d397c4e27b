//! Wide loads (`widen`): the components of a vector, matrix row or struct,
//! which selection loads one `device_load_u32` (and one address addition)
//! each, become one `device_load_u128` (four words) or `device_load_u64` (two)
//! into a register tuple (class V4 or V2).
//!
//! A group is the loads of one block at `base + k`, `base + k + 4`, ... (the
//! offsets constants, `base` one vreg), whose first address is provably
//! aligned to the access (WAVE guarantees only aligned accesses): the
//! alignment of `base` comes from the ABI (every resource address is a
//! multiple of 16, [`RESOURCE_ALIGN`]), constants and shifts. The wide load
//! takes the place of the group's first load, so no store, atomic, barrier or
//! fence of device memory may come between the group's loads. Every later
//! read of a component reads its word of the tuple (`MInst::src_words`); an
//! edge argument gets a copy (`Word`). The address computations of the other
//! components are left unread and removed.
//!
//! The tuple lives until its last word is read, so it can hold registers the
//! components would have freed: the back end keeps the widened code only where
//! the pressure allows (`backend/loads.rs`).

use super::mir::*;
use crate::ir::Block;
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Every resource address a kernel receives is a multiple of this many bytes
/// (the ABI; `run::BUFFER_ALIGN` places buffers so).
pub const RESOURCE_ALIGN: u32 = 16;

/// Widens the loads of `m`; `aligned_args` are the argument registers that
/// hold resource addresses. Returns the groups widened.
pub fn run(m: &mut MFunction, aligned_args: &[u32]) -> u32 {
    let defs = definitions(m);
    let mut align_memo: SecondaryMap<VReg, u32> = SecondaryMap::with_capacity(m.vregs.len());
    let mut rename: BTreeMap<VReg, (VReg, u8)> = BTreeMap::new();
    let mut widened = 0;
    for b in m.order.clone() {
        for group in groups(m, b, &defs, aligned_args, &mut align_memo) {
            widened += 1;
            apply(m, b, &group, &mut rename);
        }
        for group in store_groups(m, b, &defs, aligned_args, &mut align_memo) {
            widened += 1;
            apply_store(m, b, &group);
        }
    }
    if widened > 0 {
        rewrite_uses(m, &rename);
        remove_dead(m);
    }
    widened
}

/// A group found in a block: the loads' (stores') positions by word, and the address
/// of the first word.
struct Group {
    members: Vec<usize>,
    addr: VReg,
}

/// Where each vreg is defined: (block, index) of its instruction.
fn definitions(m: &MFunction) -> SecondaryMap<VReg, Option<(Block, usize)>> {
    let mut d = SecondaryMap::with_capacity(m.vregs.len());
    for &b in &m.order {
        for (i, inst) in m.blocks[b].insts.iter().enumerate() {
            if let Some(v) = inst.dst {
                d[v] = Some((b, i));
            }
        }
    }
    d
}

/// The instruction defining `v`, if an instruction does.
fn def_of<'m>(m: &'m MFunction, defs: &SecondaryMap<VReg, Option<(Block, usize)>>, v: VReg) -> Option<&'m MInst> {
    defs[v].map(|(b, i)| &m.blocks[b].insts[i])
}

/// The largest power of two (up to 2^31) that `v` is known to be a multiple of.
fn alignment(
    m: &MFunction,
    defs: &SecondaryMap<VReg, Option<(Block, usize)>>,
    aligned_args: &[u32],
    memo: &mut SecondaryMap<VReg, u32>,
    v: VReg,
    depth: u32,
) -> u32 {
    const TOP: u32 = 1 << 31;
    if memo[v] != 0 {
        return memo[v];
    }
    let a = if let Some(r) = m.vregs[v].fixed {
        if aligned_args.contains(&r) {
            RESOURCE_ALIGN
        } else {
            1
        }
    } else {
        match def_of(m, defs, v).filter(|i| i.is_plain()) {
            Some(i) if i.op == Opcode::MovImm => match i.imm.unwrap_or(0) {
                0 => TOP,
                c => 1 << c.trailing_zeros(),
            },
            Some(i) if depth < 8 && matches!(i.op, Opcode::Iadd | Opcode::Imul) => {
                let x = alignment(m, defs, aligned_args, memo, i.srcs[0], depth + 1) as u64;
                let y = alignment(m, defs, aligned_args, memo, i.srcs[1], depth + 1) as u64;
                let r = if i.op == Opcode::Iadd { x.min(y) } else { x * y };
                r.min(TOP as u64) as u32
            }
            Some(i) if depth < 8 && i.op == Opcode::Shl => {
                let x = alignment(m, defs, aligned_args, memo, i.srcs[0], depth + 1) as u64;
                match def_of(m, defs, i.srcs[1]).filter(|k| k.is_plain() && k.op == Opcode::MovImm).and_then(|k| k.imm) {
                    Some(k) => (x << (k & 31)).min(TOP as u64) as u32,
                    None => x as u32,
                }
            }
            _ => 1,
        }
    };
    memo[v] = a;
    a
}

/// `addr` as a base vreg plus a constant byte offset.
fn split_address(m: &MFunction, defs: &SecondaryMap<VReg, Option<(Block, usize)>>, addr: VReg) -> (VReg, u32) {
    let constant = |v: VReg| def_of(m, defs, v).filter(|i| i.is_plain() && i.op == Opcode::MovImm).and_then(|i| i.imm);
    match def_of(m, defs, addr).filter(|i| i.is_plain() && i.op == Opcode::Iadd) {
        Some(i) => match (constant(i.srcs[0]), constant(i.srcs[1])) {
            (_, Some(c)) => (i.srcs[0], c),
            (Some(c), None) => (i.srcs[1], c),
            (None, None) => (addr, 0),
        },
        None => (addr, 0),
    }
}

/// Word accesses of one block by base: offset -> (position, address).
type ByBase = BTreeMap<VReg, BTreeMap<u32, (usize, VReg)>>;

/// The word accesses of block `b` that `member` accepts, by base and offset
/// (the first at each offset).
fn by_base(m: &MFunction, b: Block, defs: &SecondaryMap<VReg, Option<(Block, usize)>>, member: impl Fn(&MInst) -> bool) -> ByBase {
    let mut out: ByBase = BTreeMap::new();
    for (i, inst) in m.blocks[b].insts.iter().enumerate().filter(|(_, i)| member(i)) {
        let (base, off) = split_address(m, defs, inst.srcs[0]);
        out.entry(base).or_default().entry(off).or_insert((i, inst.srcs[0]));
    }
    out
}

/// Runs of four (then two) accesses at `base + k`, `base + k + 4`, ... whose
/// first address is aligned to the run and that `fits` accepts (given the
/// members' positions and the first word's address); each access joins one
/// group at most, widest first.
fn adjacent(
    m: &MFunction,
    defs: &SecondaryMap<VReg, Option<(Block, usize)>>,
    aligned_args: &[u32],
    memo: &mut SecondaryMap<VReg, u32>,
    accesses: &ByBase,
    fits: impl Fn(&[usize], VReg) -> bool,
) -> Vec<Group> {
    let mut out = Vec::new();
    let mut taken: Vec<usize> = Vec::new();
    for (base, at) in accesses {
        let base_align = alignment(m, defs, aligned_args, memo, *base, 0);
        for words in [4u32, 2] {
            let bytes = 4 * words;
            for (&k, &(_, addr)) in at {
                if k % bytes != 0 || base_align < bytes {
                    continue;
                }
                let members: Option<Vec<usize>> =
                    (0..words).map(|w| at.get(&(k + 4 * w)).map(|&(p, _)| p).filter(|p| !taken.contains(p))).collect();
                let Some(members) = members else { continue };
                if !fits(&members, addr) {
                    continue;
                }
                taken.extend(&members);
                out.push(Group { members, addr });
            }
        }
    }
    out
}

/// The load groups of block `b` that can be widened: the wide load takes the
/// first one's place, so its address must exist there and no write of
/// device memory may come between.
fn groups(
    m: &MFunction,
    b: Block,
    defs: &SecondaryMap<VReg, Option<(Block, usize)>>,
    aligned_args: &[u32],
    memo: &mut SecondaryMap<VReg, u32>,
) -> Vec<Group> {
    let insts = &m.blocks[b].insts;
    let loads =
        by_base(m, b, defs, |i| i.op == Opcode::DeviceLoadU32 && i.is_plain() && i.dst.is_some_and(|d| m.vregs[d].class == RegClass::V));
    let writes_device = |i: &MInst| {
        matches!(i.op, Opcode::DeviceStoreU32 | Opcode::DeviceStoreU16 | Opcode::Barrier | Opcode::Fence(_))
            || i.op.is_wide_store()
            || matches!(i.op, Opcode::Atomic { local: false, .. })
    };
    adjacent(m, defs, aligned_args, memo, &loads, |members, addr| {
        let (first, last) = (*members.iter().min().expect("a group"), *members.iter().max().expect("a group"));
        // The first word's address must exist where the wide load goes.
        !defs[addr].is_some_and(|(db, di)| db == b && di >= first) && !insts[first..=last].iter().any(writes_device)
    })
}

/// Whether `i` reads or writes device memory (or orders its accesses).
fn touches_device(i: &MInst) -> bool {
    use Opcode::*;
    matches!(i.op, DeviceLoadU32 | DeviceLoadU16 | DeviceStoreU32 | DeviceStoreU16 | Barrier | Fence(_))
        || i.op.is_wide_load()
        || i.op.is_wide_store()
        || matches!(i.op, Atomic { local: false, .. })
}

/// The store groups of block `b`: no other access to device memory may come
/// from the group's first store to its last (the wide store takes the last
/// one's place, where every word's value exists).
fn store_groups(
    m: &MFunction,
    b: Block,
    defs: &SecondaryMap<VReg, Option<(Block, usize)>>,
    aligned_args: &[u32],
    memo: &mut SecondaryMap<VReg, u32>,
) -> Vec<Group> {
    let insts = &m.blocks[b].insts;
    let stores = by_base(m, b, defs, |i| {
        i.op == Opcode::DeviceStoreU32 && i.is_plain() && i.srcs.len() == 2 && m.vregs[i.srcs[1]].class == RegClass::V
    });
    adjacent(m, defs, aligned_args, memo, &stores, |members, _| {
        let (first, last) = (*members.iter().min().expect("a group"), *members.iter().max().expect("a group"));
        !(first..=last).any(|p| !members.contains(&p) && touches_device(&insts[p]))
    })
}

/// Replaces the group's last store with the wide one, which reads every
/// word's value (`gather` makes them a tuple before allocation); the other
/// stores lose their operands and `remove_dead` removes them.
fn apply_store(m: &mut MFunction, b: Block, g: &Group) {
    let insts = &mut m.blocks[b].insts;
    let values: Vec<VReg> = g.members.iter().map(|&p| insts[p].srcs[1]).collect();
    let last = *g.members.iter().max().expect("a group");
    let span = insts[last].span;
    let op = if values.len() == 4 { Opcode::DeviceStoreU128 } else { Opcode::DeviceStoreU64 };
    for &p in &g.members {
        insts[p].srcs.clear();
    }
    insts[last] = MInst::new(op, None, std::iter::once(g.addr).chain(values).collect(), span);
}

/// Gives each wide store its tuple: `t = Tuple w0, w1, ...` right before a
/// store that reads the words themselves, which then reads `t`. For
/// register allocation, after scheduling: the tuple lives only into its store
/// and takes registers where its words are already, when free (colouring).
/// Returns the tuples made.
pub fn gather(m: &mut MFunction) -> u32 {
    let mut made = 0;
    for b in m.order.clone() {
        let old = std::mem::take(&mut m.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            if inst.op.is_wide_store() && inst.srcs.len() > 2 {
                let words: Vec<VReg> = inst.srcs.drain(1..).collect();
                let class = if words.len() == 4 { RegClass::V4 } else { RegClass::V2 };
                let t = m.new_vreg(class, words.iter().all(|&w| m.vregs[w].uniform));
                m.vregs[t].group_uniform = words.iter().all(|&w| m.vregs[w].group_uniform);
                let mut tuple = MInst::new(Opcode::Tuple, Some(t), words, inst.span);
                if inst.src_words.len() > 1 {
                    tuple.src_words = inst.src_words.drain(1..).collect();
                }
                inst.srcs.push(t);
                out.push(tuple);
                made += 1;
            }
            out.push(inst);
        }
        m.blocks[b].insts = out;
    }
    made
}

/// Replaces the group's first load with the wide one and deletes the others
/// (as `Nop`-free removals later: marked by taking their destination).
fn apply(m: &mut MFunction, b: Block, g: &Group, rename: &mut BTreeMap<VReg, (VReg, u8)>) {
    let dsts: Vec<VReg> = g.members.iter().map(|&p| m.blocks[b].insts[p].dst.expect("a load has a destination")).collect();
    let uniform = dsts.iter().all(|&d| m.vregs[d].uniform);
    let group_uniform = dsts.iter().all(|&d| m.vregs[d].group_uniform);
    let (class, op) = if dsts.len() == 4 { (RegClass::V4, Opcode::DeviceLoadU128) } else { (RegClass::V2, Opcode::DeviceLoadU64) };
    let t = m.new_vreg(class, uniform);
    m.vregs[t].group_uniform = group_uniform;
    for (w, &d) in dsts.iter().enumerate() {
        rename.insert(d, (t, w as u8));
    }
    let first = *g.members.iter().min().expect("a group");
    let span = m.blocks[b].insts[first].span;
    let mut wide = MInst::new(op, Some(t), vec![g.addr], span);
    wide.invariant = g.members.iter().all(|&p| m.blocks[b].insts[p].invariant);
    let insts = &mut m.blocks[b].insts;
    for &p in &g.members {
        // A load left without a destination is removed by `remove_dead`.
        insts[p].dst = None;
    }
    insts[first] = wide;
}

/// Every read of a widened component reads its word of the tuple; an edge
/// argument gets a copy at the end of its block.
fn rewrite_uses(m: &mut MFunction, rename: &BTreeMap<VReg, (VReg, u8)>) {
    for b in m.order.clone() {
        for inst in m.blocks[b].insts.iter_mut() {
            for k in 0..inst.srcs.len() {
                if let Some(&(t, w)) = rename.get(&inst.srcs[k]) {
                    inst.srcs[k] = t;
                    if inst.src_words.len() < inst.srcs.len() {
                        inst.src_words.resize(inst.srcs.len(), None);
                    }
                    inst.src_words[k] = Some(w);
                }
            }
        }
        let span = m.blocks[b].term_span;
        let mut term = std::mem::take(&mut m.blocks[b].term);
        let args: Vec<&mut VReg> = match &mut term {
            MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } => args.iter_mut().collect(),
            _ => Vec::new(),
        };
        for a in args {
            if let Some(&(t, w)) = rename.get(a) {
                let c = m.new_vreg(RegClass::V, m.vregs[t].uniform);
                m.vregs[c].group_uniform = m.vregs[t].group_uniform;
                let mut i = MInst::new(Opcode::Word, Some(c), vec![t], span);
                i.imm = Some(u32::from(w));
                m.blocks[b].insts.push(i);
                *a = c;
            }
        }
        m.blocks[b].term = term;
    }
}

/// Names each word of every wide load's tuple as a value of its own, for
/// register allocation: a `Split` right after the load per word something
/// reads, and every read of that word reads it instead (an edge copy, `Word`,
/// goes: the edge passes the word's value). The tuple itself is then dead after the load: it
/// needs a run of free registers only there, and each word's register is free
/// again after that word's own last read, as the separate loads' were.
/// Runs after scheduling (the scheduler sees the tuple). Returns the tuples split.
pub fn split(m: &mut MFunction) -> u32 {
    // Tuples that wide loads define and that are read only word by word.
    let mut whole: SecondaryMap<VReg, bool> = SecondaryMap::with_capacity(m.vregs.len());
    let mut words_read: BTreeMap<VReg, [bool; 4]> = BTreeMap::new();
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            if inst.op.is_wide_load() && inst.is_plain() {
                if let Some(t) = inst.dst {
                    words_read.entry(t).or_default();
                }
            }
        }
    }
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            for (k, &v) in inst.srcs.iter().enumerate() {
                let word = if inst.op == Opcode::Word { inst.imm.map(|w| w as u8) } else { inst.src_word(k) };
                match word {
                    Some(w) if inst.src_half(k).is_none() && (w as usize) < 4 => {
                        if let Some(read) = words_read.get_mut(&v) {
                            read[w as usize] = true;
                        }
                    }
                    _ => whole[v] = true,
                }
            }
            if let Some((p, _)) = inst.pred {
                whole[p] = true;
            }
        }
        for u in m.blocks[b].term.uses() {
            whole[u] = true;
        }
    }
    words_read.retain(|&t, _| !whole[t]);
    if words_read.is_empty() {
        return 0;
    }
    let mut name: BTreeMap<(VReg, u8), VReg> = BTreeMap::new();
    // Edge copies of words (`Word`), to be read as the words themselves.
    let mut copies: BTreeMap<VReg, VReg> = BTreeMap::new();
    for b in m.order.clone() {
        let old = std::mem::take(&mut m.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for inst in old {
            let tuple = inst.dst.filter(|t| words_read.contains_key(t) && inst.op.is_wide_load());
            let span = inst.span;
            out.push(inst);
            let Some(t) = tuple else { continue };
            for (w, _) in words_read[&t].iter().enumerate().filter(|(_, &r)| r) {
                let v = m.new_vreg(RegClass::V, m.vregs[t].uniform);
                m.vregs[v].group_uniform = m.vregs[t].group_uniform;
                let mut s = MInst::new(Opcode::Split, Some(v), vec![], span);
                s.imm = Some(w as u32);
                s.split_of = Some(t);
                out.push(s);
                name.insert((t, w as u8), v);
            }
        }
        m.blocks[b].insts = out;
    }
    for b in m.order.clone() {
        for inst in m.blocks[b].insts.iter_mut() {
            if inst.op == Opcode::Word {
                // An edge argument's copy of a word: the word's value itself now.
                if let (Some(&v), Some(c)) = (inst.imm.and_then(|w| name.get(&(inst.srcs[0], w as u8))), inst.dst) {
                    copies.insert(c, v);
                }
                continue;
            }
            for k in 0..inst.srcs.len() {
                if let Some(&v) = inst.src_word(k).and_then(|w| name.get(&(inst.srcs[k], w))) {
                    inst.srcs[k] = v;
                    inst.src_words[k] = None;
                }
            }
            if inst.src_words.iter().all(Option::is_none) {
                inst.src_words.clear();
            }
        }
    }
    if !copies.is_empty() {
        for b in m.order.clone() {
            let block = &mut m.blocks[b];
            block.insts.retain(|i| !(i.op == Opcode::Word && i.dst.is_some_and(|c| copies.contains_key(&c))));
            for inst in block.insts.iter_mut() {
                for s in inst.srcs.iter_mut() {
                    *s = *copies.get(s).unwrap_or(s);
                }
                if let Some((p, _)) = inst.pred.as_mut() {
                    *p = *copies.get(p).unwrap_or(p);
                }
            }
            if let MTerm::Jump { args, .. } | MTerm::Loop { args, .. } | MTerm::BreakIf { args, .. } = &mut block.term {
                for a in args.iter_mut() {
                    *a = *copies.get(a).unwrap_or(a);
                }
            }
        }
    }
    words_read.len() as u32
}

/// Narrows [`split`]'s wide loads of `tuples`, for register allocation when a
/// tuple finds no run of free registers: a four-word load becomes two
/// two-word ones (at the address and 8 bytes on), a two-word load two word
/// loads; a half with one word read loads only that word. Each `Split` keeps
/// its value, now named from the narrower load. A wide store's `Tuple` in
/// `tuples` narrows the same way ([`narrow_store`]). Returns the loads and
/// stores narrowed.
pub fn narrow(m: &mut MFunction, tuples: &std::collections::BTreeSet<VReg>) -> u32 {
    let mut narrowed = 0;
    for b in m.order.clone() {
        let old = std::mem::take(&mut m.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        let mut i = 0;
        while i < old.len() {
            let inst = &old[i];
            if inst.op == Opcode::Tuple && inst.dst.is_some_and(|t| tuples.contains(&t)) && narrow_store(m, &old, i, &mut out) {
                narrowed += 1;
                i += 2;
                continue;
            }
            let tuple = inst.dst.filter(|t| tuples.contains(t) && inst.op.is_wide_load());
            let Some(t) = tuple else {
                out.push(old[i].clone());
                i += 1;
                continue;
            };
            let (addr, span, invariant) = (inst.srcs[0], inst.span, inst.invariant);
            let half_words = if m.vregs[t].class == RegClass::V4 { 2 } else { 1 };
            // (word, value) of each split of this load.
            let mut words: Vec<(u32, VReg)> = Vec::new();
            let mut j = i + 1;
            while j < old.len() && old[j].op == Opcode::Split && old[j].split_of == Some(t) {
                words.push((old[j].imm.unwrap_or(0), old[j].dst.expect("a split names a word")));
                j += 1;
            }
            for half in 0..2 {
                let first = half * half_words;
                let mine: Vec<(u32, VReg)> = words.iter().copied().filter(|&(w, _)| w / half_words == half).collect();
                if mine.is_empty() {
                    continue;
                }
                // The address of the half's first word, or of the one word read.
                let single = (mine.len() == 1 || half_words == 1).then(|| mine[0]);
                let offset = 4 * single.map_or(first, |(w, _)| w);
                let at = if offset == 0 { addr } else { offset_address(m, &mut out, addr, offset, span) };
                match single {
                    Some((_, d)) => {
                        let mut load = MInst::new(Opcode::DeviceLoadU32, Some(d), vec![at], span);
                        load.invariant = invariant;
                        out.push(load);
                    }
                    None => {
                        let pair = m.new_vreg(RegClass::V2, m.vregs[t].uniform);
                        m.vregs[pair].group_uniform = m.vregs[t].group_uniform;
                        let mut load = MInst::new(Opcode::DeviceLoadU64, Some(pair), vec![at], span);
                        load.invariant = invariant;
                        out.push(load);
                        for (w, d) in mine {
                            let mut s = MInst::new(Opcode::Split, Some(d), vec![], span);
                            s.imm = Some(w - first);
                            s.split_of = Some(pair);
                            out.push(s);
                        }
                    }
                }
            }
            narrowed += 1;
            i = j;
        }
        m.blocks[b].insts = out;
    }
    narrowed
}

/// Narrows the wide store whose `Tuple` is `old[i]` (the store right after
/// it): four words become two stores of two, two words two word stores.
/// Appends the code to `out`; false (nothing appended) if the store is not
/// right after its tuple.
fn narrow_store(m: &mut MFunction, old: &[MInst], i: usize, out: &mut Vec<MInst>) -> bool {
    let (tuple, Some(store)) = (&old[i], old.get(i + 1)) else { return false };
    let Some(t) = tuple.dst else { return false };
    if !store.op.is_wide_store() || store.srcs.len() != 2 || store.srcs[1] != t || !tuple.src_words.is_empty() {
        return false;
    }
    let (addr, span, words) = (store.srcs[0], store.span, &tuple.srcs);
    let half = words.len() / 2;
    for (h, part) in words.chunks(half).enumerate() {
        let at = if h == 0 { addr } else { offset_address(m, out, addr, 4 * half as u32, span) };
        if half == 1 {
            out.push(MInst::new(Opcode::DeviceStoreU32, None, vec![at, part[0]], span));
            continue;
        }
        let pair = m.new_vreg(RegClass::V2, m.vregs[t].uniform);
        m.vregs[pair].group_uniform = m.vregs[t].group_uniform;
        out.push(MInst::new(Opcode::Tuple, Some(pair), part.to_vec(), span));
        out.push(MInst::new(Opcode::DeviceStoreU64, None, vec![at, pair], span));
    }
    true
}

/// `addr + offset` in a new value (a constant and an addition appended to `out`).
fn offset_address(m: &mut MFunction, out: &mut Vec<MInst>, addr: VReg, offset: u32, span: crate::diag::Span) -> VReg {
    let c = m.new_vreg(RegClass::V, true);
    m.vregs[c].group_uniform = true;
    let mut k = MInst::new(Opcode::MovImm, Some(c), vec![], span);
    k.imm = Some(offset);
    out.push(k);
    let a = m.new_vreg(RegClass::V, m.vregs[addr].uniform);
    m.vregs[a].group_uniform = m.vregs[addr].group_uniform;
    out.push(MInst::new(Opcode::Iadd, Some(a), vec![addr, c], span));
    a
}

/// Removes the replaced loads and the pure instructions nothing reads any more.
fn remove_dead(m: &mut MFunction) {
    loop {
        let used = m.read_vregs();
        let mut changed = false;
        for b in m.order.clone() {
            let before = m.blocks[b].insts.len();
            m.blocks[b].insts.retain(|i| {
                let replaced_load =
                    (i.op == Opcode::DeviceLoadU32 && i.dst.is_none()) || (i.op == Opcode::DeviceStoreU32 && i.srcs.is_empty());
                let pure = i.is_plain() && matches!(i.op, Opcode::MovImm | Opcode::Iadd | Opcode::Shl | Opcode::Imul);
                !(replaced_load || (pure && i.dst.is_some_and(|d| !used[d])))
            });
            changed |= m.blocks[b].insts.len() != before;
        }
        if !changed {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Isa;

    /// A float4 from a structured buffer (`In[i]`, 16 bytes each) and two
    /// words of a cbuffer at offset 8 (8-aligned, not 16).
    const VECTORS: &str = "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      v2:i32 = special sr_thread_id_x
      v3:i32 = iconst 4
      v4:i32 = shl v2, v3
      v5:i32 = iadd v1, v4
      v6:f32 = load.device_ro.f32 [v5]
      v7:i32 = iadd v5, v3
      v8:f32 = load.device_ro.f32 [v7]
      v9:i32 = iconst 8
      v10:i32 = iadd v5, v9
      v11:f32 = load.device_ro.f32 [v10]
      v12:i32 = iconst 12
      v13:i32 = iadd v5, v12
      v14:f32 = load.device_ro.f32 [v13]
      v15:i32 = iadd v0, v9
      v16:f32 = load.device_ro.f32 [v15]
      v17:i32 = iadd v0, v12
      v18:f32 = load.device_ro.f32 [v17]
      v19:f32 = fadd v6, v8
      v20:f32 = fadd v11, v14
      v21:f32 = fadd v19, v20
      v22:f32 = fmul v21, v16
      v23:f32 = fadd v22, v18
      store.device [v5], v23
      return
}
";

    fn ops(m: &MFunction) -> Vec<Opcode> {
        m.order.iter().flat_map(|&b| m.blocks[b].insts.iter().map(|i| i.op)).collect()
    }

    #[test]
    fn vectors_and_pairs_load_at_once_when_aligned() {
        let mut m = crate::codegen::select_text(VECTORS, Isa::Wave, 64);
        let before = ops(&m).len();
        assert_eq!(run(&mut m, &[0, 1]), 2);
        let o = ops(&m);
        assert_eq!(o.iter().filter(|&&x| x == Opcode::DeviceLoadU128).count(), 1, "{o:?}");
        assert_eq!(o.iter().filter(|&&x| x == Opcode::DeviceLoadU64).count(), 1, "{o:?}");
        assert!(!o.contains(&Opcode::DeviceLoadU32), "{o:?}");
        assert!(o.len() + 8 <= before, "the other words' loads and address additions go: {before} -> {}", o.len());
        // The adds read words of the tuples.
        let reads: usize = m.order.iter().flat_map(|&b| &m.blocks[b].insts).map(|i| i.src_words.iter().flatten().count()).sum();
        assert_eq!(reads, 6);
        m.is_ssa().expect("still SSA");
    }

    #[test]
    fn unknown_alignment_keeps_word_loads() {
        // Argument 1 is not a resource address: nothing is known of its alignment.
        let mut m = crate::codegen::select_text(VECTORS, Isa::Wave, 64);
        assert_eq!(run(&mut m, &[0]), 1, "only the cbuffer pair (argument 0) widens");
        let o = ops(&m);
        assert!(!o.contains(&Opcode::DeviceLoadU128) && o.contains(&Opcode::DeviceLoadU64), "{o:?}");
    }

    fn count(m: &MFunction, op: Opcode) -> usize {
        ops(m).iter().filter(|&&x| x == op).count()
    }

    /// Widened and split, as the back end hands it to register allocation.
    fn split_vectors() -> MFunction {
        let mut m = crate::codegen::select_text(VECTORS, Isa::Wave, 64);
        run(&mut m, &[0, 1]);
        assert_eq!(split(&mut m), 2);
        m
    }

    #[test]
    fn split_words_are_values_of_their_own() {
        let m = split_vectors();
        assert_eq!(count(&m, Opcode::Split), 6, "{:?}", ops(&m));
        // No read of a tuple's word is left: each reads its split value, and
        // every split sits right after its load.
        for &b in &m.order {
            let insts = &m.blocks[b].insts;
            assert!(insts.iter().all(|i| i.src_words.is_empty()));
            for (k, i) in insts.iter().enumerate().filter(|(_, i)| i.op == Opcode::Split) {
                let t = i.split_of.expect("names its tuple");
                let load = insts[..k].iter().rposition(|x| x.op != Opcode::Split).expect("a load before");
                assert_eq!(insts[load].dst, Some(t));
            }
        }
        m.is_ssa().expect("still SSA");
        // The tuples die at their loads: the words are live, not the tuples.
        let words = crate::liveness::pressure::max_live(&m);
        let unsplit = {
            let mut w = crate::codegen::select_text(VECTORS, Isa::Wave, 64);
            run(&mut w, &[0, 1]);
            crate::liveness::pressure::max_live(&w)
        };
        assert!(words <= unsplit, "{words} > {unsplit}");
    }

    #[test]
    fn split_words_allocate_and_check() {
        let mut m = split_vectors();
        let a = crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(Isa::Wave, 64)).expect("allocates and checks");
        for &b in &m.order {
            for i in m.blocks[b].insts.iter().filter(|i| i.op == Opcode::Split) {
                let (t, d) = (i.split_of.unwrap(), i.dst.unwrap());
                assert_eq!(a.reg[d], a.reg[t].map(|r| r + i.imm.unwrap()), "word {:?} of {t}", i.imm);
            }
        }
        // The checker refuses a word named in another register.
        let mut reg = a.reg.clone();
        let w = m.order.iter().flat_map(|&b| &m.blocks[b].insts).find(|i| i.op == Opcode::Split && i.imm == Some(1)).unwrap().dst.unwrap();
        reg[w] = reg[w].map(|r| r + 7);
        let err = crate::regalloc::check_allocation(&m, &reg, 64).expect_err("a misplaced word");
        assert!(err.contains("word 1"), "{err}");
    }

    #[test]
    fn narrowing_a_quad_loads_two_pairs() {
        let mut m = split_vectors();
        let quad: std::collections::BTreeSet<VReg> =
            m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.op == Opcode::DeviceLoadU128).filter_map(|i| i.dst).collect();
        assert_eq!(narrow(&mut m, &quad), 1);
        assert_eq!(count(&m, Opcode::DeviceLoadU128), 0);
        assert_eq!(count(&m, Opcode::DeviceLoadU64), 3, "the quad's two halves and the cbuffer pair: {:?}", ops(&m));
        assert_eq!(count(&m, Opcode::Split), 6);
        m.is_ssa().expect("still SSA");
        // Narrowed again, every pair loads its words one by one.
        let pairs: std::collections::BTreeSet<VReg> =
            m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.op == Opcode::DeviceLoadU64).filter_map(|i| i.dst).collect();
        assert_eq!(narrow(&mut m, &pairs), 3);
        assert_eq!(count(&m, Opcode::DeviceLoadU32), 6);
        assert_eq!(count(&m, Opcode::Split), 0);
        crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(Isa::Wave, 64)).expect("allocates and checks");
    }

    /// A float4 stored to a structured buffer (`Out[i]`, 16 bytes each) and
    /// a pair at bytes 8 and 12 of the cbuffer (argument 0).
    const STORES: &str = "kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      v2:i32 = special sr_thread_id_x
      v3:i32 = iconst 4
      v4:i32 = shl v2, v3
      v5:i32 = iadd v1, v4
      v6:f32 = bitcast v2
      v7:f32 = fadd v6, v6
      v8:f32 = fmul v6, v6
      v9:i32 = iconst 8
      v12:i32 = iconst 12
      store.device [v5], v6
      v10:i32 = iadd v5, v3
      store.device [v10], v7
      v11:i32 = iadd v5, v9
      store.device [v11], v8
      v13:i32 = iadd v5, v12
      store.device [v13], v6
      v16:i32 = iadd v4, v4
      v17:i32 = shl v4, v3
      v14:i32 = iadd v0, v9
      store.device [v14], v16
      v15:i32 = iadd v0, v12
      store.device [v15], v17
      return
}
";

    #[test]
    fn vector_stores_write_at_once_when_aligned() {
        let mut m = crate::codegen::select_text(STORES, Isa::Wave, 64);
        assert_eq!(run(&mut m, &[0, 1]), 2);
        assert_eq!((count(&m, Opcode::DeviceStoreU128), count(&m, Opcode::DeviceStoreU64)), (1, 1), "{:?}", ops(&m));
        assert_eq!(count(&m, Opcode::DeviceStoreU32), 0, "{:?}", ops(&m));
        // Allocation gives each its tuple, and the checker follows the words.
        let a = crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(Isa::Wave, 64)).expect("allocates and checks");
        assert_eq!(count(&m, Opcode::Tuple), 2);
        for &b in &m.order {
            let insts = &m.blocks[b].insts;
            for (k, i) in insts.iter().enumerate().filter(|(_, i)| i.op.is_wide_store()) {
                assert_eq!(insts[k - 1].op, Opcode::Tuple, "the tuple right before its store");
                assert_eq!(Some(i.srcs[1]), insts[k - 1].dst);
            }
        }
        assert_eq!(a.num_v, a.max_live_v, "no register above MaxLive");
    }

    #[test]
    fn a_load_between_keeps_word_stores() {
        let text =
            STORES.replace("      store.device [v11], v8\n", "      v20:f32 = load.device.f32 [v0]\n      store.device [v11], v20\n");
        let mut m = crate::codegen::select_text(&text, Isa::Wave, 64);
        run(&mut m, &[0, 1]);
        assert_eq!(count(&m, Opcode::DeviceStoreU128), 0, "the load may read a word stored before it: {:?}", ops(&m));
        assert_eq!(count(&m, Opcode::DeviceStoreU64), 3, "the pairs on either side of it and the cbuffer pair still widen");
    }

    #[test]
    fn unknown_alignment_keeps_word_stores() {
        let mut m = crate::codegen::select_text(STORES, Isa::Wave, 64);
        assert_eq!(run(&mut m, &[0]), 1, "only the pair at argument 0 widens");
        assert_eq!(count(&m, Opcode::DeviceStoreU128), 0);
    }

    #[test]
    fn narrowing_a_quad_store_stores_two_pairs() {
        let mut m = crate::codegen::select_text(STORES, Isa::Wave, 64);
        run(&mut m, &[0, 1]);
        gather(&mut m);
        let tuples = |m: &MFunction, class: RegClass| -> std::collections::BTreeSet<VReg> {
            m.order
                .iter()
                .flat_map(|&b| &m.blocks[b].insts)
                .filter(|i| i.op == Opcode::Tuple)
                .filter_map(|i| i.dst)
                .filter(|&t| m.vregs[t].class == class)
                .collect()
        };
        let quads = tuples(&m, RegClass::V4);
        assert_eq!(narrow(&mut m, &quads), 1);
        assert_eq!((count(&m, Opcode::DeviceStoreU128), count(&m, Opcode::DeviceStoreU64)), (0, 3), "{:?}", ops(&m));
        m.is_ssa().expect("still SSA");
        let pairs = tuples(&m, RegClass::V2);
        assert_eq!(narrow(&mut m, &pairs), 3);
        assert_eq!((count(&m, Opcode::DeviceStoreU64), count(&m, Opcode::DeviceStoreU32), count(&m, Opcode::Tuple)), (0, 6, 0));
        crate::regalloc::allocate(&mut m, &crate::regalloc::AllocOptions::new(Isa::Wave, 64)).expect("allocates and checks");
    }

    #[test]
    fn a_store_between_keeps_word_loads() {
        let text = VECTORS.replace("      v9:i32 = iconst 8\n", "      v9:i32 = iconst 8\n      store.device [v0], v6\n");
        let mut m = crate::codegen::select_text(&text, Isa::Wave, 64);
        run(&mut m, &[0, 1]);
        assert!(!ops(&m).contains(&Opcode::DeviceLoadU128), "a store may write the vector's later words");
    }
}
