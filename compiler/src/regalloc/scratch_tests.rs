//! Spill slots past local memory: the scratch buffer in device memory, which
//! slots stay local, and the checker following values through device slots.

use super::tests::{select, THROUGH_LOOP};
use super::*;
use crate::codegen::mir::{MFunction, Opcode, SpillTag};

/// Budget 6 on 64 threads with room for one local slot (256 bytes), the
/// scratch buffer's address in r1 (after the kernel's one argument).
fn tight(scratch: Option<u32>) -> (MFunction, Result<Allocation, Diagnostic>) {
    let mut m = select(THROUGH_LOOP, 64);
    // Per-thread slots only: workgroup words would take the uniform values.
    let o = AllocOptions {
        budget: Some(6),
        local_limit: 256,
        scratch_register: scratch,
        group_words: false,
        ..AllocOptions::new(Isa::Wave, 32)
    };
    let a = allocate(&mut m, &o);
    (m, a)
}

/// Every spill access: (block, index, slot, opcode).
fn accesses(m: &MFunction) -> Vec<(crate::ir::Block, usize, u32, Opcode)> {
    let mut v = Vec::new();
    for &b in &m.order {
        for (i, inst) in m.blocks[b].insts.iter().enumerate() {
            if let Some(SpillTag::Store { slot, .. } | SpillTag::Reload { slot, .. } | SpillTag::EdgeStore { slot, .. }) = inst.spill {
                v.push((b, i, slot, inst.op));
            }
        }
    }
    v
}

#[test]
fn slots_past_local_memory_go_to_the_scratch_buffer() {
    let (m, a) = tight(Some(1));
    let a = a.unwrap_or_else(|d| panic!("{}", d.message));
    assert!(a.budget_met && a.num_v <= 6);
    // One slot in local memory, the rest in device memory, numbered after it.
    assert_eq!((a.spill.spill_bytes, m.local_memory, m.device_slots_from), (256, 256, 1));
    assert!(a.spill.device_slots >= 1 && a.spill.device_values >= 1, "{:?}", a.spill);
    for (b, i, slot, op) in accesses(&m) {
        let device = matches!(op, Opcode::DeviceLoadU32 | Opcode::DeviceStoreU32);
        assert_eq!(device, slot >= 1, "slot {slot} accessed by {op:?} at {b}:{i}");
    }
    // The scratch address arrives in r1, an entry parameter fixed there.
    let arg = m.blocks[m.entry].params.iter().copied().find(|&p| m.vregs[p].fixed == Some(1)).expect("the scratch argument");
    assert_eq!(a.reg[arg], Some(1));
}

#[test]
fn the_slot_a_loop_uses_stays_local() {
    let (m, a) = tight(Some(1));
    a.expect("allocates");
    let regions = regions::Regions::compute(&m).expect("structured");
    let in_loop: Vec<u32> = accesses(&m).into_iter().filter(|(b, ..)| regions.loop_depth[*b] > 0).map(|(_, _, s, _)| s).collect();
    assert!(!in_loop.is_empty(), "the loop spills");
    // The one local slot is one the loop uses; the value live through the loop
    // (stored once, reloaded once after it) is in device memory.
    assert!(in_loop.contains(&0), "loop slots {in_loop:?}");
    let through = select(THROUGH_LOOP, 64).blocks[m.entry].insts.iter().find(|i| i.op == Opcode::DeviceLoadU32).and_then(|i| i.dst);
    let slot_of_through = accesses(&m).into_iter().find_map(|(b, i, s, _)| match m.blocks[b].insts[i].spill {
        Some(SpillTag::Store { of, .. }) if Some(of) == through => Some(s),
        _ => None,
    });
    assert!(slot_of_through.is_some_and(|s| s >= 1), "{slot_of_through:?}");
}

#[test]
fn without_a_scratch_register_the_spill_area_is_refused() {
    let (_, a) = tight(None);
    let d = a.expect_err("refused");
    assert_eq!(d.code, "E0408");
}

#[test]
fn a_scratch_register_above_the_budget_raises_it() {
    // The scratch address must sit in r6, which a budget of 6 does not have.
    let (m, a) = tight(Some(6));
    let a = a.unwrap_or_else(|d| panic!("{}", d.message));
    assert!(!a.budget_met && a.budget >= 7, "budget {}", a.budget);
    let arg = m.blocks[m.entry].params.iter().copied().find(|&p| m.vregs[p].fixed == Some(6));
    assert!(a.spill.device_slots > 0 && arg.is_some_and(|p| a.reg[p] == Some(6)), "{:?}", a.spill);
}

#[test]
fn the_checker_follows_values_through_device_slots() {
    let (m, a) = tight(Some(1));
    let a = a.expect("allocates");
    assert!(check::check(&m, &a.reg, a.num_v).is_ok());
    let reload = accesses(&m).into_iter().find(|&(_, _, s, op)| s >= 1 && op == Opcode::DeviceLoadU32).expect("a device reload");
    let (b, i, slot, _) = reload;
    // The same slot read from local memory.
    let mut wrong_space = m.clone();
    wrong_space.blocks[b].insts[i].op = Opcode::LocalLoadU32;
    let err = check::check(&wrong_space, &a.reg, a.num_v).expect_err("a device slot read from local memory");
    assert!(err.contains("device memory"), "{err}");
    // Another device slot (one that holds something else, or nothing, there).
    let other = (1..1 + a.spill.device_slots).find(|&s| s != slot);
    if let Some(other) = other {
        let mut wrong_slot = m.clone();
        if let Some(SpillTag::Reload { slot, .. }) = &mut wrong_slot.blocks[b].insts[i].spill {
            *slot = other;
        }
        assert!(check::check(&wrong_slot, &a.reg, a.num_v).is_err(), "slot {other} instead of {slot}");
    }
}
