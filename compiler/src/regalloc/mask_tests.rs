//! Bool-to-mask on small hand-written kernels: which booleans become wave
//! masks, when they must not, and that the checker follows the mask forms.

use super::*;
use crate::codegen::mir::{MFunction, Opcode, SpillTag, VReg};

fn select(text: &str, threads: u32) -> MFunction {
    crate::codegen::select_text(text, Isa::Wave, threads)
}

/// Options for `target` at `budget` registers (the target makes the spill
/// area's occupancy count, as in the driver), with bits and workgroup words
/// off: these tests are about masks (`booleans_defined_under_divergence_become_bits` is about bits).
fn options(target: &str, budget: u32) -> AllocOptions {
    let t = crate::target::preset(target).expect("preset");
    AllocOptions {
        budget: Some(budget),
        target: Some(Box::new(t.clone())),
        bool_bits: false,
        group_words: false,
        ..AllocOptions::new(Isa::Wave, t.wave_width)
    }
}

/// `n` per-lane booleans computed before a loop that keeps `loads` loaded
/// values live, read after it (as select conditions). With `divergent`,
/// they are computed under an `if` on a per-lane condition and merged with
/// `false`.
fn flags_across_a_loop(n: usize, loads: usize, divergent: bool) -> String {
    let mut t = String::from(
        "kernel @k {\n  block0:\n      v0:i32 = kernel_arg 0\n      v1:i32 = special sr_thread_id_x\n      v2:i32 = load.device.i32 [v1]\n      v3:i32 = iconst 5\n",
    );
    let mut flags = String::new();
    for k in 0..n {
        // Flag k: v2 < k + 1 (constants v200.., flags v300..).
        flags += &format!("      v{}:i32 = iconst {}\n      v{}:b1 = icmp slt v2, v{}\n", 200 + k, k + 1, 300 + k, 200 + k);
    }
    let names: Vec<String> = if divergent {
        t += "      v60:b1 = icmp slt v1, v3\n      if v60 then block4 else block5 merge block6\n    block4:\n";
        t += &flags.replace("\n      ", "\n        ");
        let args: Vec<String> = (0..n).map(|k| format!("v{}", 300 + k)).collect();
        t += &format!("        jump block6({})\n    block5:\n        v61:b1 = bconst false\n", args.join(", "));
        t += &format!("        jump block6({})\n", vec!["v61"; n].join(", "));
        let params: Vec<String> = (0..n).map(|k| format!("v{}:b1", 400 + k)).collect();
        t += &format!("  block6({}):\n", params.join(", "));
        (0..n).map(|k| format!("v{}", 400 + k)).collect()
    } else {
        t += &flags;
        (0..n).map(|k| format!("v{}", 300 + k)).collect()
    };
    t += "      v4:i32 = iconst 0\n      loop block1(v4) exit block2\n    block1(v5:i32):\n";
    for k in 0..loads {
        t += &format!("        v{}:i32 = load.device.i32 [v{}]\n", 6 + k, 5 + k);
    }
    t += "        v100:i32 = iadd v6, v0\n";
    for k in 1..loads {
        t += &format!("        v{}:i32 = iadd v{}, v{}\n", 100 + k, 99 + k, 6 + k);
    }
    let last = 100 + loads - 1;
    t += &format!(
        "        v99:b1 = icmp slt v{last}, v1\n        break_if v99 to block2() else block3\n    block3:\n        jump block1(v{last})\n"
    );
    t += "  block2:\n";
    let mut acc = "v1".to_string();
    for (k, f) in names.iter().enumerate() {
        t += &format!("      v{}:i32 = select {f}, {acc}, v2\n", 500 + k);
        acc = format!("v{}", 500 + k);
    }
    t += &format!("      store.device [v0], {acc}\n      return\n}}\n");
    t
}

/// Twenty flags in groups of 512 threads: in local memory they would take
/// 40 KiB of a group's spill area, so only one group of 16 waves would fit
/// a 64 KiB compute unit of `generic`; as masks they take one register.
const FLAGS: usize = 20;
const THREADS: u32 = 512;

fn ballots(m: &MFunction) -> usize {
    m.order.iter().flat_map(|&b| &m.blocks[b].insts).filter(|i| i.op == Opcode::WaveBallot).count()
}

#[test]
fn booleans_across_a_pressure_peak_become_masks() {
    let text = flags_across_a_loop(FLAGS, 4, false);
    let mut m = select(&text, THREADS);
    let a = allocate(&mut m, &options("generic", 8)).unwrap_or_else(|d| panic!("{}", d.message));
    assert_eq!(a.spill.masked, FLAGS as u32, "{:?}", a.spill);
    assert_eq!(ballots(&m), FLAGS);
    assert_eq!(a.num_v, a.max_live_v);
    // No boolean is in a V register at the peak.
    let peak = a.peak.clone().expect("a peak");
    assert!(peak.set.iter().all(|&v| !m.vregs[v].boolean), "{:?}", peak.set);
    // Turned off, they go to local memory.
    let mut m2 = select(&text, THREADS);
    let off = AllocOptions { bool_masks: false, ..options("generic", 8) };
    let b = allocate(&mut m2, &off).expect("allocates");
    assert_eq!(b.spill.masked, 0);
    assert_eq!(ballots(&m2), 0);
    assert!(b.spill.spill_bytes > a.spill.spill_bytes, "masks save local memory: {:?} vs {:?}", a.spill, b.spill);
    let t = crate::target::preset("generic").expect("preset");
    let waves = |m: &MFunction, a: &Allocation| crate::target::occupancy(&t, a.num_v, THREADS, m.local_memory).waves_per_core;
    assert!(waves(&m, &a) > waves(&m2, &b), "masks raise the occupancy");
}

#[test]
fn no_masks_without_pressure() {
    let mut m = select(&flags_across_a_loop(FLAGS, 4, false), THREADS);
    let a = allocate(&mut m, &options("generic", 64)).expect("allocates");
    assert_eq!(a.spill, SpillStats::default());
    assert_eq!(ballots(&m), 0);
}

#[test]
fn no_masks_where_the_ballot_cannot_hold_the_wave() {
    // 64-lane waves: WAVE's ballot covers lanes 0..32 only.
    let mut m = select(&flags_across_a_loop(FLAGS, 4, false), THREADS);
    let a = allocate(&mut m, &options("gcn", 8)).unwrap_or_else(|d| panic!("{}", d.message));
    assert_eq!(a.spill.masked, 0, "{:?}", a.spill);
    assert_eq!(ballots(&m), 0);
}

#[test]
fn no_masks_for_booleans_defined_under_divergence() {
    // Spilling with masks forced on: the merge's parameters (defined where
    // every lane is active) become masks; the compares under the divergent
    // `if`, when spilled, go to local memory.
    let m = select(&flags_across_a_loop(FLAGS, 4, true), THREADS);
    let cfg = spill::SpillConfig {
        budget: 8,
        remat: true,
        bank_lanes: 32,
        bank_uniform: false,
        bool_masks: true,
        group_words: false,
        bool_bits: false,
        local_limit: u32::MAX,
        scratch_register: None,
    };
    let (out, stats) = spill::spill(&m, &cfg).unwrap_or_else(|e| panic!("{e:?}"));
    let defs = crate::liveness::definitions(&m);
    let regions = super::regions::Regions::compute(&m).expect("regions");
    let (mut masks, mut divergent_slots) = (0, 0);
    for &b in &out.order {
        for i in &out.blocks[b].insts {
            match i.spill {
                Some(SpillTag::MaskBallot { of }) => {
                    let (db, _) = defs[of].expect("defined");
                    assert!(regions.convergent[db], "{of} is masked but defined in divergent {db}");
                    masks += 1;
                }
                Some(SpillTag::Store { of, .. }) if m.vregs[of].boolean => {
                    let (db, _) = defs[of].expect("defined");
                    divergent_slots += usize::from(!regions.convergent[db]);
                }
                _ => {}
            }
        }
    }
    assert!(masks > 0 && divergent_slots > 0, "{masks} masks, {divergent_slots} divergent booleans in memory: {stats:?}");
    assert_eq!(stats.masked as usize, masks);
}

#[test]
fn booleans_defined_under_divergence_become_bits() {
    // As above with bits on: every spilled boolean, divergent or not, leaves
    // as a bit of a bit bank (zeroed at entry), none for a slot.
    let m = select(&flags_across_a_loop(FLAGS, 4, true), THREADS);
    let cfg = spill::SpillConfig {
        budget: 8,
        remat: true,
        bank_lanes: 32,
        bank_uniform: false,
        bool_masks: false,
        group_words: false,
        bool_bits: true,
        local_limit: u32::MAX,
        scratch_register: None,
    };
    let (out, stats) = spill::spill(&m, &cfg).unwrap_or_else(|e| panic!("{e:?}"));
    let defs = crate::liveness::definitions(&m);
    let regions = super::regions::Regions::compute(&m).expect("regions");
    let (mut divergent_bits, mut boolean_slots, mut inits) = (0, 0, 0);
    for &b in &out.order {
        for i in &out.blocks[b].insts {
            match i.spill {
                Some(SpillTag::BitsWrite { of, .. }) => {
                    let (db, _) = defs[of].expect("defined");
                    divergent_bits += usize::from(!regions.convergent[db]);
                }
                Some(SpillTag::Store { of, .. }) if m.vregs[of].boolean => boolean_slots += 1,
                Some(SpillTag::BitsInit { .. }) => {
                    assert_eq!(b, out.entry, "a bit bank is zeroed at entry");
                    inits += 1;
                }
                _ => {}
            }
        }
    }
    assert!(divergent_bits > 0 && boolean_slots == 0, "{divergent_bits} divergent bits, {boolean_slots} boolean slots: {stats:?}");
    assert_eq!(inits, stats.bit_banks as usize);
    assert!(stats.bits > 0 && stats.bit_banks == stats.bits.div_ceil(32));
    // The allocation of the result checks (every bit read sees its boolean).
    let mut o = out.clone();
    let live = crate::liveness::Liveness::compute(&o);
    let (max_live, _) = crate::liveness::pressure::peak(&o, &live);
    let c = super::colour::colour(&o, &live, crate::options::Isa::Wave, 8 - stats.banks, max_live).expect("colours");
    check::check(&o, &c.reg, 8 - stats.banks).expect("the checker follows bits");
    // A read of the wrong bit is caught.
    'corrupt: for &b in &o.order.clone() {
        for i in o.blocks[b].insts.iter_mut() {
            if let Some(SpillTag::BitsRead { bank, bit, of }) = i.spill {
                i.spill = Some(SpillTag::BitsRead { bank, bit: bit ^ 1, of });
                break 'corrupt;
            }
        }
    }
    assert!(check::check(&o, &c.reg, 8 - stats.banks).is_err(), "a read of another boolean's bit passes the checker");
}

#[test]
fn the_checker_follows_masks_and_notices_a_wrong_lane() {
    let mut m = select(&flags_across_a_loop(FLAGS, 4, false), THREADS);
    let a = allocate(&mut m, &options("generic", 8)).expect("allocates");
    let limit = a.bank_base;
    assert!(check::check(&m, &a.reg, limit).is_ok());
    // A mask read from another mask's lane.
    let mut bad = m.clone();
    let lanes: Vec<u32> = m
        .order
        .iter()
        .flat_map(|&b| &m.blocks[b].insts)
        .filter_map(|i| match i.spill {
            Some(SpillTag::MaskWrite { lane, .. }) => Some(lane),
            _ => None,
        })
        .collect();
    assert!(lanes.len() >= 2);
    'done: for &b in &bad.order.clone() {
        for i in bad.blocks[b].insts.iter_mut() {
            if let Some(SpillTag::MaskRead { bank, lane, of }) = i.spill {
                let other = *lanes.iter().find(|&&l| l != lane).expect("another lane");
                i.spill = Some(SpillTag::MaskRead { bank, lane: other, of });
                break 'done;
            }
        }
    }
    let err = check::check(&bad, &a.reg, limit).expect_err("a wrong lane is noticed");
    assert!(err.contains("mask"), "{err}");
    // A ballot standing for another boolean.
    let mut bad = m.clone();
    let masked: Vec<VReg> = m
        .order
        .iter()
        .flat_map(|&b| &m.blocks[b].insts)
        .filter_map(|i| match i.spill {
            Some(SpillTag::MaskBallot { of }) => Some(of),
            _ => None,
        })
        .collect();
    'ballot: for &b in &bad.order.clone() {
        for i in bad.blocks[b].insts.iter_mut() {
            if let Some(SpillTag::MaskBallot { of }) = i.spill {
                let other = *masked.iter().find(|&&o| o != of).expect("another mask");
                i.spill = Some(SpillTag::MaskBallot { of: other });
                break 'ballot;
            }
        }
    }
    assert!(check::check(&bad, &a.reg, limit).is_err());
}
