//! The scheduler on small hand-written blocks: loads move early within the
//! slack, never past the cap, and an over-budget block gets a lower peak.

use super::*;
use crate::options::Isa;

fn select(text: &str) -> MFunction {
    crate::codegen::select_text(text, Isa::Wave, 1)
}

fn options(limit: u32) -> SchedOptions {
    SchedOptions { limit, latencies: crate::target::preset("generic").unwrap().latency, over_budget: OverBudget::Balanced }
}

fn peak(m: &MFunction) -> u32 {
    let live = Liveness::compute(m);
    let b = m.entry;
    let order: Vec<usize> = (0..m.blocks[b].insts.len()).collect();
    crate::codegen::mir::units_to_regs(block_peak(m, &live, b, &m.blocks[b].insts, &order).v)
}

/// Positions of the device loads, and of the first instruction reading a loaded value.
fn load_positions(m: &MFunction) -> (Vec<usize>, usize) {
    let insts = &m.blocks[m.entry].insts;
    let loads: Vec<usize> = (0..insts.len()).filter(|&i| insts[i].op == Opcode::DeviceLoadU32).collect();
    let loaded: Vec<VReg> = loads.iter().filter_map(|&i| insts[i].dst).collect();
    let first_use = (0..insts.len()).find(|&i| insts[i].uses().any(|u| loaded.contains(&u))).expect("a loaded value is read");
    (loads, first_use)
}

/// Four loads, each summed right after it arrives.
const SUM_AS_LOADED: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      v2:i32 = kernel_arg 2
      v3:i32 = kernel_arg 3
      v4:i32 = load.device.i32 [v0]
      v5:i32 = iadd v4, v4
      v6:i32 = load.device.i32 [v1]
      v7:i32 = iadd v5, v6
      v8:i32 = load.device.i32 [v2]
      v9:i32 = iadd v7, v8
      v10:i32 = load.device.i32 [v3]
      v11:i32 = iadd v9, v10
      store.device [v0], v11
      return
}
";

#[test]
fn loads_are_grouped_early_when_there_is_slack() {
    let mut m = select(SUM_AS_LOADED);
    let before = peak(&m);
    let s = schedule(&mut m, &options(before + 4));
    let (loads, first_use) = load_positions(&m);
    // Two loads go ahead of the first use (no more: `MAX_LOADS_AHEAD`).
    assert_eq!(loads.iter().filter(|&&l| l < first_use).count(), 2, "loads {loads:?}, first use at {first_use}");
    assert!(s.cycles_after < s.cycles_before, "{s:?}");
    assert!(peak(&m) <= before + 4);
    m.is_ssa().unwrap();
}

#[test]
fn no_reordering_past_the_cap() {
    let mut m = select(SUM_AS_LOADED);
    let before = peak(&m);
    schedule(&mut m, &options(before));
    assert!(peak(&m) <= before, "the peak rose from {before} to {}", peak(&m));
}

/// Eight loads first, then their sum: the peak holds all eight.
const LOADS_THEN_SUM: &str = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = load.device.i32 [v0]
      v2:i32 = load.device.i32 [v0]
      v3:i32 = load.device.i32 [v0]
      v4:i32 = load.device.i32 [v0]
      v5:i32 = load.device.i32 [v0]
      v6:i32 = load.device.i32 [v0]
      v7:i32 = load.device.i32 [v0]
      v8:i32 = load.device.i32 [v0]
      v9:i32 = iadd v1, v2
      v10:i32 = iadd v9, v3
      v11:i32 = iadd v10, v4
      v12:i32 = iadd v11, v5
      v13:i32 = iadd v12, v6
      v14:i32 = iadd v13, v7
      v15:i32 = iadd v14, v8
      store.device [v0], v15
      return
}
";

#[test]
fn an_over_budget_block_gets_a_lower_peak() {
    let mut m = select(LOADS_THEN_SUM);
    let before = peak(&m);
    let s = schedule(&mut m, &options(4));
    assert_eq!(s.peaks_lowered, 1);
    assert!(peak(&m) <= 4, "peak {} (was {before})", peak(&m));
    m.is_ssa().unwrap();
}

#[test]
fn stores_keep_their_order_and_loads_stay_after_a_store_to_their_memory() {
    let text = "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = kernel_arg 1
      store.device [v0], v1
      v2:i32 = load.device.i32 [v1]
      store.device [v1], v2
      v3:i32 = load.device.i32 [v0]
      store.device [v0], v3
      return
}
";
    let mut m = select(text);
    let ops = |m: &MFunction| m.blocks[m.entry].insts.iter().map(|i| i.op).filter(|o| o != &Opcode::Mov).collect::<Vec<_>>();
    let before = ops(&m);
    schedule(&mut m, &options(64));
    assert_eq!(ops(&m), before);
}

#[test]
fn the_estimate_waits_for_results_later_blocks_read() {
    // The load's value is only stored: the estimate still covers its latency, so
    // issuing it last is not free.
    let m = select(
        "\
kernel @k {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = load.device.i32 [v0]
      v2:i32 = iadd v0, v0
      store.device [v2], v1
      return
}
",
    );
    let lat = options(64).latencies;
    let insts = &m.blocks[m.entry].insts;
    let deps = deps::Deps::build(insts, &lat);
    let order: Vec<usize> = (0..insts.len()).collect();
    let load = insts.iter().position(|i| i.op == Opcode::DeviceLoadU32).expect("a load");
    assert!(list::estimated_cycles(&deps, &order) >= deps::latency(insts[load].op, &lat));
}

#[test]
fn an_unreachable_budget_keeps_latency_in_the_balance() {
    // One register cannot hold this block in any order: whatever is kept spills,
    // so the lowest peak does not win on its own; the pick must not cost more
    // (estimate plus spill code) than the block's own order.
    let mut m = select(LOADS_THEN_SUM);
    let lat = options(1).latencies;
    let live = Liveness::compute(&m);
    let b = m.entry;
    let cost = |m: &MFunction| {
        let insts = &m.blocks[b].insts;
        let deps = deps::Deps::build(insts, &lat);
        let order: Vec<usize> = (0..insts.len()).collect();
        let peak = block_peak(m, &live, b, insts, &order);
        u64::from(list::estimated_cycles(&deps, &order)) + u64::from(peak.v.saturating_sub(2).div_ceil(2)) * spill_cycles(&lat)
    };
    let before = cost(&m);
    schedule(&mut m, &options(1));
    assert!(cost(&m) <= before, "cost {} > {before}", cost(&m));
    m.is_ssa().unwrap();
}
