//! Register allocation on small hand-written kernels: spilling to a budget,
//! where reloads go, and that the checker notices a wrong allocation.

use super::*;
use crate::codegen::mir::{MFunction, Opcode, SpillTag};

pub(super) fn select(text: &str, threads: u32) -> MFunction {
    crate::codegen::select_text(text, Isa::Wave, threads)
}

fn options(budget: Option<u32>) -> AllocOptions {
    AllocOptions { budget, ..AllocOptions::new(Isa::Wave, 32) }
}

/// A value loaded before a loop and read only after it, while the loop body
/// keeps eight loaded values live at once.
pub(super) const THROUGH_LOOP: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = load.device.i32 [v1]
      v3:i32 = iconst 0
      loop block1(v3) exit block2
    block1(v4:i32):
        v5:i32 = load.device.i32 [v4]
        v6:i32 = load.device.i32 [v5]
        v7:i32 = load.device.i32 [v6]
        v8:i32 = load.device.i32 [v7]
        v9:i32 = load.device.i32 [v8]
        v10:i32 = load.device.i32 [v9]
        v11:i32 = load.device.i32 [v10]
        v12:i32 = load.device.i32 [v11]
        v13:i32 = iadd v5, v6
        v14:i32 = iadd v13, v7
        v15:i32 = iadd v14, v8
        v16:i32 = iadd v15, v9
        v17:i32 = iadd v16, v10
        v18:i32 = iadd v17, v11
        v19:i32 = iadd v18, v12
        v20:i32 = iadd v19, v0
        v21:b1 = icmp slt v20, v1
        break_if v21 to block2() else block3
    block3:
        jump block1(v20)
  block2:
      store.device [v0], v2
      return
}
";

#[test]
fn spills_to_the_budget_and_colours_with_maxlive_registers() {
    for budget in [12, 10, 8, 7, 6] {
        let mut m = select(THROUGH_LOOP, 64);
        let a = allocate(&mut m, &options(Some(budget))).unwrap_or_else(|d| panic!("budget {budget}: {}", d.message));
        assert!(a.max_live_v <= budget, "budget {budget}: MaxLive {}", a.max_live_v);
        assert_eq!(a.num_v, a.max_live_v, "budget {budget}: registers equal MaxLive");
        assert!(a.budget_met, "budget {budget} is feasible");
    }
}

#[test]
fn a_value_live_through_a_loop_is_never_reloaded_inside_it() {
    let mut m = select(THROUGH_LOOP, 64);
    // The value loaded in the entry block and stored after the loop.
    let through = m.blocks[m.entry].insts.iter().find(|i| i.op == Opcode::DeviceLoadU32).and_then(|i| i.dst).expect("the load");
    let a = allocate(&mut m, &options(Some(8))).expect("allocates");
    assert!(a.spill.spilled + a.spill.banked > 0, "something is spilled");
    let regions = regions::Regions::compute(&m).expect("structured");
    let mut reloaded_after = false;
    for &b in &m.order {
        for inst in &m.blocks[b].insts {
            let of = match inst.spill {
                Some(SpillTag::Reload { of, .. } | SpillTag::BankRead { of, .. } | SpillTag::Remat { of }) => of,
                _ => continue,
            };
            if of == through {
                assert_eq!(regions.loop_depth[b], 0, "{through} is reloaded inside the loop, in {b}");
                reloaded_after = true;
            }
        }
    }
    assert!(reloaded_after, "{through} was expected to leave its register around the loop");
}

#[test]
fn the_checker_notices_a_clobbered_register() {
    let mut m = select(THROUGH_LOOP, 64);
    let a = allocate(&mut m, &options(None)).expect("allocates");
    let limit = a.num_v;
    assert!(check::check(&m, &a.reg, limit).is_ok());
    // Give the loop counter the register of the value live through the loop.
    let through = m.blocks[m.entry].insts.iter().find(|i| i.op == Opcode::DeviceLoadU32).and_then(|i| i.dst).expect("the load");
    let header = m.order[1];
    let counter = m.blocks[header].params[0];
    let mut bad = a.reg.clone();
    bad[counter] = a.reg[through];
    let err = check::check(&m, &bad, limit).expect_err("a clobber is noticed");
    assert!(err.contains("reads") || err.contains("argument"), "{err}");
    // A register above the limit is noticed too.
    let mut high = a.reg.clone();
    high[counter] = Some(limit + 3);
    assert!(check::check(&m, &high, limit).is_err());
}

#[test]
fn an_infeasible_budget_rises_to_the_least_that_works() {
    let mut m = select(THROUGH_LOOP, 64);
    let a = allocate(&mut m, &options(Some(2))).expect("allocates");
    assert!(!a.budget_met);
    assert!(a.budget > 2 && a.max_live_v <= a.budget);
}

#[test]
fn uniform_values_go_to_lane_banks_when_cheaper() {
    // Eight uniform values (arithmetic on a kernel argument) live across a
    // loop that needs every other register.
    let mut text = String::from("kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n");
    for i in 1..=8 {
        text += &format!("      v{}:i32 = iconst {}\n      v{}:i32 = imul v0, v{}\n", 20 + i, 3 * i + 1, i, 20 + i);
    }
    text += "      v9:i32 = special sr_thread_id_x\n      v10:i32 = iconst 0\n      loop block1(v10) exit block2\n    block1(v11:i32):\n";
    text += "        v12:i32 = load.device.i32 [v11]\n        v13:i32 = load.device.i32 [v12]\n        v14:i32 = load.device.i32 [v13]\n";
    text += "        v15:i32 = iadd v12, v13\n        v16:i32 = iadd v15, v14\n        v17:b1 = icmp slt v16, v9\n";
    text += "        break_if v17 to block2() else block3\n    block3:\n        jump block1(v16)\n  block2:\n";
    let mut sum = 1;
    for i in 2..=8 {
        text += &format!("      v{}:i32 = iadd v{}, v{}\n", 40 + i, if i == 2 { 1 } else { 40 + i - 1 }, i);
        sum = 40 + i;
    }
    text += &format!("      store.device [v0], v{sum}\n      return\n}}\n");
    // Workgroup words would take them for less: this is about banks.
    let banks = AllocOptions { group_words: false, ..options(Some(8)) };
    let mut m = select(&text, 64);
    let a = allocate(&mut m, &banks).unwrap_or_else(|d| panic!("{}", d.message));
    assert!(a.spill.banked >= 2, "uniform values were banked: {:?}", a.spill);
    assert_eq!(a.num_v, a.max_live_v);
    // Without banks they go to local memory.
    let mut m2 = select(&text, 64);
    let no_banks = AllocOptions { lane_banks: false, ..banks };
    let b = allocate(&mut m2, &no_banks).expect("allocates");
    assert_eq!(b.spill.banked, 0);
    assert!(b.spill.spilled > 0);
    // With workgroup words (the default) no value needs a per-thread slot.
    let mut m3 = select(&text, 64);
    let c = allocate(&mut m3, &options(Some(8))).expect("allocates");
    assert_eq!(c.spill.spilled, 0, "{:?}", c.spill);
    assert!(c.spill.group_values + c.spill.banked >= 2, "{:?}", c.spill);
}

/// `n` uniform values (a kernel argument times constants) live across a
/// loop that needs every other register; `in_loop` defines them inside the
/// loop instead (where a workgroup word is not allowed: waves may be at
/// different iterations).
fn uniform_across_a_loop(n: u32, in_loop: bool) -> String {
    let mut text = String::from("kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = kernel_arg 1\n");
    let mut defs = String::new();
    for i in 1..=n {
        defs += &format!("      v{}:i32 = iconst {}\n      v{}:i32 = imul v1, v{}\n", 100 + i, 3 * i + 1, 200 + i, 100 + i);
    }
    if !in_loop {
        text += &defs;
    }
    text += "      v9:i32 = special sr_thread_id_x\n      v10:i32 = iconst 0\n      loop block1(v10) exit block2\n    block1(v11:i32):\n";
    if in_loop {
        text += &defs;
    }
    text += "        v12:i32 = load.device.i32 [v11]\n        v13:i32 = load.device.i32 [v12]\n        v14:i32 = load.device.i32 [v13]\n";
    text += "        v15:i32 = iadd v12, v13\n        v16:i32 = iadd v15, v14\n        v17:b1 = icmp slt v16, v9\n";
    text += "        break_if v17 to block2() else block3\n    block3:\n        jump block1(v16)\n  block2:\n";
    let mut sum = 201;
    for i in 2..=n {
        text += &format!("      v{}:i32 = iadd v{}, v{}\n", 300 + i, sum, 200 + i);
        sum = 300 + i;
    }
    text += &format!("      store.device [v0], v{sum}\n      return\n}}\n");
    text
}

#[test]
fn workgroup_invariant_values_spill_to_words_of_the_group() {
    let mut m = select(&uniform_across_a_loop(8, false), 64);
    let o = AllocOptions { lane_banks: false, ..options(Some(7)) };
    let a = allocate(&mut m, &o).unwrap_or_else(|d| panic!("{}", d.message));
    assert!(a.budget_met && a.spill.group_values >= 2, "{:?}", a.spill);
    assert_eq!(a.spill.spilled, 0, "no per-thread slot: {:?}", a.spill);
    // One word per value, after the kernel's own local memory, never shared.
    assert_eq!(a.spill.group_words, a.spill.group_values);
    assert_eq!(m.local_memory, 4 * a.spill.group_words);
    let mut owners = std::collections::BTreeMap::new();
    for &b in &m.order {
        for i in &m.blocks[b].insts {
            if let Some(SpillTag::GroupStore { word, of }) = i.spill {
                assert_eq!(*owners.entry(word).or_insert(of), of, "word {word} has two owners");
            }
        }
    }
    // The checker notices a reload of another value's word.
    let mut bad = m.clone();
    'corrupt: for &b in &bad.order.clone() {
        for i in bad.blocks[b].insts.iter_mut() {
            if let Some(SpillTag::GroupReload { word, of }) = i.spill {
                i.spill = Some(SpillTag::GroupReload { word: (word + 1) % a.spill.group_words, of });
                break 'corrupt;
            }
        }
    }
    assert!(check::check(&bad, &a.reg, a.num_v).is_err(), "a reload of the wrong word passes the checker");
    // Defined inside the loop, the values may differ between waves at
    // different iterations: no workgroup words.
    // (The kernel's arguments, defined at entry, still may.)
    let mut m2 = select(&uniform_across_a_loop(8, true), 64);
    let b = allocate(&mut m2, &o).expect("allocates");
    assert!(b.spill.spilled > 0, "{:?}", b.spill);
    for &bl in &m2.order {
        for i in &m2.blocks[bl].insts {
            if let Some(SpillTag::GroupStore { of, .. }) = i.spill {
                assert!(m2.vregs[of].fixed.is_some(), "{of}, defined in the loop, got a workgroup word");
            }
        }
    }
}

#[test]
fn kernel_arguments_leave_their_registers() {
    // Four arguments, all read late; a budget of five: one argument moves to
    // a workgroup word (one temporary for its address), the rest fit.
    let text = "kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = kernel_arg 1\n      v2:i32 = kernel_arg 2\n      v3:i32 = kernel_arg 3\n\
        v4:i32 = special sr_thread_id_x\n      v5:i32 = special sr_workgroup_id_x\n      v6:i32 = iconst 6\n      v7:i32 = shl v5, v6\n      v8:i32 = iadd v7, v4\n\
        v9:i32 = iadd v0, v8\n      v10:i32 = load.device.i32 [v9]\n      v11:i32 = iadd v1, v8\n      v12:i32 = load.device.i32 [v11]\n\
        v13:i32 = iadd v10, v12\n      v14:i32 = iadd v2, v8\n      store.device [v14], v13\n      v15:i32 = iadd v3, v8\n      store.device [v15], v10\n      return\n}\n";
    let mut m = select(text, 64);
    let a = allocate(&mut m, &options(Some(5))).unwrap_or_else(|d| panic!("{}", d.message));
    assert!(a.budget_met, "{:?}", a.spill);
    assert!(a.spill.group_values >= 1 && a.spill.spilled == 0, "{:?}", a.spill);
}

#[test]
fn thread_index_arithmetic_is_recomputed() {
    // `wg * 64 + tid` and its byte offset, live across a loop that needs
    // every other register: recomputed after it rather than kept in a slot.
    let text = "kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = special sr_workgroup_id_x\n      v2:i32 = iconst 6\n\
        v3:i32 = shl v1, v2\n      v4:i32 = special sr_thread_id_x\n      v5:i32 = iadd v3, v4\n      v6:i32 = iconst 2\n      v7:i32 = shl v5, v6\n\
        v8:i32 = iadd v0, v7\n      v10:i32 = iconst 0\n      loop block1(v10) exit block2\n    block1(v11:i32):\n\
        v12:i32 = load.device.i32 [v11]\n        v13:i32 = load.device.i32 [v12]\n        v14:i32 = load.device.i32 [v13]\n\
        v15:i32 = iadd v12, v13\n        v16:i32 = iadd v15, v14\n        v17:b1 = icmp slt v16, v8\n\
        break_if v17 to block2() else block3\n    block3:\n        jump block1(v16)\n  block2:\n\
        v18:i32 = iadd v0, v7\n      store.device [v18], v5\n      return\n}\n";
    let mut m = select(text, 64);
    let a = allocate(&mut m, &options(Some(6))).unwrap_or_else(|d| panic!("{}", d.message));
    assert!(a.budget_met, "{:?}", a.spill);
    assert!(a.spill.remats > 0 && a.spill.spilled == 0, "{:?}", a.spill);
    // A replayed expression: remat-tagged instructions that read others.
    let chained =
        m.order.iter().flat_map(|&b| &m.blocks[b].insts).any(|i| matches!(i.spill, Some(SpillTag::Remat { .. })) && !i.srcs.is_empty());
    assert!(chained, "no expression was recomputed");
}

/// Eight 16-bit values loaded, then all stored: live at once, with the
/// thread's address and the argument.
const EIGHT_HALVES: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:f16 = load.device.f16 [v1]
      v3:f16 = load.device.f16 [v1]
      v4:f16 = load.device.f16 [v1]
      v5:f16 = load.device.f16 [v1]
      v6:f16 = load.device.f16 [v1]
      v7:f16 = load.device.f16 [v1]
      v8:f16 = load.device.f16 [v1]
      v9:f16 = load.device.f16 [v1]
      store.device [v0], v2
      store.device [v0], v3
      store.device [v0], v4
      store.device [v0], v5
      store.device [v0], v6
      store.device [v0], v7
      store.device [v0], v8
      store.device [v0], v9
      return
}
";

/// The H vregs of `m`, in order.
fn halves_of(m: &MFunction) -> Vec<VReg> {
    m.vregs.iter().filter(|(_, i)| i.class == RegClass::H).map(|(v, _)| v).collect()
}

#[test]
fn sixteen_bit_values_share_registers_two_by_two() {
    let mut m = select(EIGHT_HALVES, 64);
    assert_eq!(halves_of(&m).len(), 8);
    let a = allocate(&mut m, &options(None)).expect("allocates");
    // Eight halves, the argument and the thread id: MaxLive is six registers, and colouring meets it.
    assert_eq!(a.max_live_unspilled, 6, "{a:?}");
    assert_eq!(a.num_v, a.max_live_v);
    let units: std::collections::BTreeSet<u32> = halves_of(&m).iter().map(|&h| a.reg[h].expect("coloured")).collect();
    assert_eq!(units.len(), 8, "two halves never share a unit");
    // Without packing every value takes a register.
    let mut plain = select(EIGHT_HALVES, 64);
    for i in plain.vregs.values_mut().filter(|i| i.class == RegClass::H) {
        i.class = RegClass::V;
    }
    let b = allocate(&mut plain, &options(None)).expect("allocates");
    assert_eq!(b.max_live_unspilled, 9);
}

#[test]
fn halves_spill_as_halves_at_a_low_budget() {
    let mut m = select(EIGHT_HALVES, 64);
    // Two registers hold the argument and the address, one the spill pointer.
    let a = allocate(&mut m, &options(Some(4))).expect("allocates");
    assert!(a.budget_met && a.num_v <= 4, "{a:?}");
    // Stores of halves write two bytes (a word store would write the whole register).
    let stores: Vec<(bool, Opcode)> = m
        .order
        .iter()
        .flat_map(|&b| m.blocks[b].insts.iter())
        .filter(|i| matches!(i.spill, Some(SpillTag::Store { .. })))
        .map(|i| (m.vregs[i.srcs[1]].class == RegClass::H, i.op))
        .collect();
    assert!(stores.iter().any(|s| s.0), "{stores:?}");
    assert!(stores.iter().all(|&(h, op)| h == (op == Opcode::LocalStoreU16)), "{stores:?}");
}

#[test]
fn the_checker_follows_halves() {
    let mut m = select(EIGHT_HALVES, 64);
    let a = allocate(&mut m, &options(None)).expect("allocates");
    assert!(check::check(&m, &a.reg, a.num_v).is_ok());
    let hs = halves_of(&m);
    // Two live halves in one unit: the later load overwrites the earlier value.
    let mut bad = a.reg.clone();
    bad[hs[1]] = a.reg[hs[0]];
    let err = check::check(&m, &bad, a.num_v).expect_err("a shared half is noticed");
    assert!(err.contains(".lo") || err.contains(".hi"), "{err}");
    // A 16-bit value read by a 32-bit store is refused.
    let mut word = m.clone();
    for b in word.order.clone() {
        for i in word.blocks[b].insts.iter_mut().filter(|i| i.op == Opcode::DeviceStoreU16) {
            i.op = Opcode::DeviceStoreU32;
        }
    }
    assert!(check::check(&word, &a.reg, a.num_v).expect_err("refused").contains("32-bit memory access"));
}

/// An atomic's result may not be `r0`. Here the address dies at the atomic
/// while two other values stay live: if the address sat in `r0` the result
/// would need a fourth register, so the colouring keeps the address out of
/// `r0` and registers equal MaxLive (3).
const ATOMIC_AT_PEAK: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iadd v0, v1
      v3:i32 = shl v1, v1
      v4:i32 = atomic_rmw.add.device [v2], v3
      v5:i32 = iadd v4, v3
      v6:i32 = iadd v5, v1
      store.device [v1], v6
      return
}
";

#[test]
fn a_result_that_may_not_be_r0_costs_no_register_above_maxlive() {
    let mut m = select(ATOMIC_AT_PEAK, 64);
    let atomic = m.blocks[m.entry].insts.iter().find(|i| i.dst.is_some_and(|d| m.vregs[d].not_r0)).expect("an atomic with a result");
    let (result, address) = (atomic.dst.expect("result"), atomic.uses().next().expect("address"));
    let a = allocate(&mut m, &options(None)).expect("allocates");
    assert_eq!(a.max_live_v, 3);
    assert_eq!(a.num_v, a.max_live_v, "registers equal MaxLive");
    assert_ne!(a.reg[result], Some(0));
    assert_ne!(a.reg[address], Some(0), "the address was kept out of r0");
}

/// half2 a*b on packed pairs (pair16): each pair's halves are loaded into one
/// register, and one `hmul2` computes both products.
const HALF2_PRODUCT: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = iconst 2
      v2:i32 = iadd v0, v1
      v3:i32 = iadd v2, v1
      v4:i32 = iadd v3, v1
      v5:f16 = load.device.f16 [v0]
      v6:f16 = load.device.f16 [v2]
      v7:f16 = load.device.f16 [v3]
      v8:f16 = load.device.f16 [v4]
      v9:f32 = fext16 v5
      v10:f32 = fext16 v6
      v11:f32 = fext16 v7
      v12:f32 = fext16 v8
      v13:f32 = fmul v9, v11
      v14:f16 = ftrunc16 v13
      v15:f32 = fmul v10, v12
      v16:f16 = ftrunc16 v15
      store.device [v0], v14
      store.device [v2], v16
      return
}
";

#[test]
fn the_checker_follows_packed_pairs() {
    let mut m = select(HALF2_PRODUCT, 64);
    assert_eq!(crate::codegen::pair16::run(&mut m), 1);
    let a = allocate(&mut m, &options(None)).expect("allocates");
    assert!(check::check(&m, &a.reg, a.num_v).is_ok());
    let insts = &m.blocks[m.entry].insts;
    let packed = insts.iter().find(|i| i.op == Opcode::Hmul2).expect("a packed product");
    let (product, lhs, rhs) = (packed.dst.expect("a result"), packed.srcs[0], packed.srcs[1]);
    // Both operand pairs in one register: the second gather overwrites the first.
    let mut bad = a.reg.clone();
    bad[lhs] = a.reg[rhs];
    let err = check::check(&m, &bad, a.num_v).expect_err("two live pairs in one register");
    assert!(err.contains("holds"), "{err}");
    let mut moved = a.reg.clone();
    moved[product] = Some(a.num_v);
    assert!(check::check(&m, &moved, a.num_v).is_err(), "above the limit");
    // The low half of a gathered pair loaded over the address the high half's load still reads.
    let high = insts.iter().find(|i| i.ins.is_some()).expect("a half write");
    let (address, completed) = (high.srcs[0], *high.srcs.last().expect("the value completed"));
    let mut clobber = a.reg.clone();
    clobber[completed] = a.reg[address];
    assert!(check::check(&m, &clobber, a.num_v).is_err(), "a clobbered address");
    // Only a packed pair (a V value) has halves to read.
    let mut malformed = m.clone();
    malformed.vregs[product].class = RegClass::H;
    assert!(check::check(&malformed, &a.reg, a.num_v).expect_err("refused").contains("not a packed"));
}

/// A loop whose `n` carried values rotate by one each iteration: with more of
/// them than registers they are memory parameters, and the back edge copies
/// slot to slot in one cycle. Its stores are ordered so that one value is read
/// ahead at a time, not all of them at once (which took `n` registers and made
/// every budget below `n` infeasible).
#[test]
fn rotating_memory_parameters_need_no_register_per_value() {
    let n = 20;
    let mut text = String::from("kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = special sr_thread_id_x\n");
    for k in 0..n {
        text += &format!("      v{}:i32 = load.device.i32 [v{}]\n", 2 + k, 1 + k);
    }
    let init: Vec<String> = (0..n).map(|k| format!("v{}", 2 + k)).collect();
    let params: Vec<String> = (0..n).map(|k| format!("v{}:i32", 100 + k)).collect();
    let rotated: Vec<String> = (0..n).map(|k| format!("v{}", 100 + (k + 1) % n)).collect();
    text += &format!("      loop block1({}) exit block2\n    block1({}):\n", init.join(", "), params.join(", "));
    text += "        v200:b1 = icmp slt v100, v1\n        break_if v200 to block2() else block3\n    block3:\n";
    text += &format!("        jump block1({})\n  block2:\n", rotated.join(", "));
    let mut sum = "v100".to_string();
    for k in 1..n {
        text += &format!("      v{}:i32 = iadd {sum}, v{}\n", 300 + k, 100 + k);
        sum = format!("v{}", 300 + k);
    }
    text += &format!("      store.device [v0], {sum}\n      return\n}}\n");
    for budget in [8, 6] {
        let mut m = select(&text, 64);
        let a = allocate(&mut m, &options(Some(budget))).unwrap_or_else(|d| panic!("budget {budget}: {}", d.message));
        assert!(a.budget_met && a.num_v <= budget, "budget {budget}: {} registers", a.num_v);
    }
}

/// A cbuffer-like value (`load.device_ro` at `arg + 16`) loaded in a loop
/// and read after the loop body's peak; `arg` is read after it too. `space`
/// is the loaded memory's space.
fn read_only_in_loop(space: &str) -> String {
    format!(
        "kernel @k {{\n  block0:\n      v0:i32 = kernel_arg 0\n      v4:i32 = special sr_thread_id_x\n      v10:i32 = iconst 0\n\
        loop block1(v10) exit block2\n    block1(v11:i32):\n        v1:i32 = iconst 16\n        v2:i32 = iadd v0, v1\n\
        v3:i32 = load.{space}.i32 [v2]\n        v12:i32 = load.device.i32 [v11]\n\
        v13:i32 = load.device.i32 [v12]\n        v14:i32 = load.device.i32 [v13]\n        v20:i32 = load.device.i32 [v14]\n\
        v21:i32 = load.device.i32 [v20]\n        v15:i32 = iadd v12, v13\n        v22:i32 = iadd v15, v20\n\
        v23:i32 = iadd v22, v21\n        v16:i32 = iadd v23, v14\n        v17:i32 = iadd v16, v3\n        v18:i32 = iadd v17, v0\n\
        v19:b1 = icmp slt v18, v4\n        break_if v19 to block2() else block3\n    block3:\n        jump block1(v18)\n\
      block2:\n      store.device [v0], v4\n      return\n}}\n"
    )
}

/// Where a value of read-only memory must leave the registers, it is loaded
/// again where it is read (its address from the argument still in a
/// register) rather than saved (to a slot or a workgroup word); the same
/// kernel on writable memory needs the store.
#[test]
fn read_only_loads_are_loaded_again_instead_of_saved() {
    let mut reissued = 0;
    for budget in [7, 6, 5] {
        let mut ro = select(&read_only_in_loop("device_ro"), 64);
        let a = allocate(&mut ro, &options(Some(budget))).unwrap_or_else(|d| panic!("budget {budget}: {}", d.message));
        let mut rw = select(&read_only_in_loop("device"), 64);
        let b = allocate(&mut rw, &options(Some(budget))).unwrap_or_else(|d| panic!("budget {budget}: {}", d.message));
        assert!(a.budget_met && b.budget_met, "budget {budget}: {:?} {:?}", a.spill, b.spill);
        if a.spill.reissued_values > 0 {
            reissued += 1;
            // Writable memory needs a store where read-only memory needs none.
            let stores = |s: &SpillStats| s.stores + s.group_stores + s.device_stores;
            assert!(stores(&b.spill) > stores(&a.spill), "budget {budget}: {:?}\n{:?}", a.spill, b.spill);
            // The load is issued again (tagged as a recomputation) and reads the argument.
            let again = ro
                .order
                .iter()
                .flat_map(|&b| &ro.blocks[b].insts)
                .filter(|i| i.op == Opcode::DeviceLoadU32 && matches!(i.spill, Some(SpillTag::Remat { .. })));
            assert!(again.count() >= 1);
        }
        assert_eq!(b.spill.reissued_values, 0, "writable memory is never loaded again");
    }
    assert!(reissued >= 1, "no budget loaded the value again");
}
