//! 16-bit local-memory address arithmetic (`addr16`, spec profile with
//! pack16 only; `--disable addr16`).
//!
//! The low 16 bits of `add`, `sub`, `mul`, `shl`, `and`, `or` and `xor`
//! depend only on the low 16 bits of their operands (a shift only on the low
//! five bits of its amount). So a chain of these operations whose end is a
//! groupshared address can compute in halves (class H, one half-register
//! unit instead of two) and the access can read its address from a half,
//! zero-extended, provided the address itself is below 2^16: then the half
//! holds it exactly. That is proven here, never assumed from the local memory
//! size: an out-of-range index must still give the out-of-range address it
//! gives in 32 bits (which the simulator reports), not a wrapped one inside
//! the memory. The proof is an interval bound on unsigned values: constants,
//! thread ids (below `[numthreads]`), the lane id (below 64), and adds,
//! multiplies and shifts of bounded values that cannot wrap; `and` with a
//! bounded operand, logical right shifts and unsigned remainders by constants.
//! A value whose bound is unknown (a loop counter, a loaded index) keeps its
//! address 32-bit.
//!
//! Only values whose every use is such an address or an operand of another
//! narrowed operation are narrowed; anything read by a compare, a division,
//! a store's value, a block argument or a buffer address stays 32-bit
//! (`--robust-access` checks buffer indices, which never narrow). Narrowing
//! adds no instruction: selection writes the same operations into halves.

use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Values that may live in a half.
const LIMIT: u64 = 1 << 16;

/// The operations whose low 16 bits depend only on their operands' low 16 bits.
fn ring(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, IAdd | ISub | IMul | Shl | And | Or | Xor)
}

/// How an i32 value is read.
#[derive(Clone, Copy)]
enum Use {
    /// As the address of a groupshared load or store.
    Address,
    /// As an operand of a ring operation with this i32 result.
    Ring(Value),
    /// Any other way (it must keep 32 bits).
    Other,
}

/// Inclusive upper bounds of unsigned i32 values, where provable (defined
/// values in `order`, which is a dominance order; block parameters unknown).
fn bounds(f: &Function, order: &[Block], workgroup: [u32; 3]) -> BTreeMap<Value, u64> {
    let mut hi: BTreeMap<Value, u64> = BTreeMap::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            let Some(r) = f.results[i].filter(|&r| f.value_type(r) == Type::I32) else { continue };
            let get = |v: Value| hi.get(&v).copied();
            let konst = |v: Value| match f.def_inst(v).map(|d| &f.insts[d]) {
                Some(InstData::Const { bits, .. }) => Some(u64::from(*bits)),
                _ => None,
            };
            let fits = |x: u64| (x <= u64::from(u32::MAX)).then_some(x);
            let bound = match f.insts[i] {
                InstData::Const { bits, .. } => Some(u64::from(bits)),
                InstData::Special { reg: SpecialReg::ThreadId(axis) } => workgroup.get(axis as usize).map(|&n| u64::from(n.max(1) - 1)),
                InstData::Special { reg: SpecialReg::LaneId } => Some(63),
                InstData::Convert { op: ConvOp::ZExt16, .. } => Some(0xffff),
                InstData::Binary { op, args: [a, c] } => {
                    use BinaryOp::*;
                    match op {
                        IAdd => get(a).zip(get(c)).and_then(|(x, y)| fits(x + y)),
                        IMul => get(a).zip(get(c)).and_then(|(x, y)| x.checked_mul(y)).and_then(fits),
                        Shl => get(a).zip(konst(c)).filter(|&(_, k)| k < 32).and_then(|(x, k)| fits(x << k)),
                        And => match (get(a), get(c)) {
                            (Some(x), Some(y)) => Some(x.min(y)),
                            (x, y) => x.or(y),
                        },
                        LShr => konst(c).filter(|&k| k < 32).map(|k| get(a).unwrap_or(u64::from(u32::MAX)) >> k),
                        URem => konst(c).filter(|&k| k > 0).map(|k| k - 1),
                        UMin => match (get(a), get(c)) {
                            (Some(x), Some(y)) => Some(x.min(y)),
                            (x, y) => x.or(y),
                        },
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(x) = bound {
                hi.insert(r, x);
            }
        }
    }
    hi
}

/// The i32 values of `f` (blocks in `order`) that selection may put in a
/// half: groupshared addresses below 2^16 and the ring operations computing
/// only them. `workgroup` is the kernel's `[numthreads]`.
pub(super) fn find(f: &Function, order: &[Block], workgroup: [u32; 3]) -> BTreeSet<Value> {
    let hi = bounds(f, order, workgroup);
    // Candidates: ring operations on i32.
    let mut set: BTreeSet<Value> = BTreeSet::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            if let (Some(r), InstData::Binary { op, .. }) = (f.results[i], &f.insts[i]) {
                if ring(*op) && f.value_type(r) == Type::I32 {
                    set.insert(r);
                }
            }
        }
    }
    let mut uses: BTreeMap<Value, Vec<Use>> = BTreeMap::new();
    for &b in order {
        for &i in &f.blocks[b].insts {
            let data = &f.insts[i];
            let result = f.results[i];
            for a in data.args() {
                let how = match *data {
                    InstData::Load { space: MemSpace::Local, addr, .. } if addr == a => Use::Address,
                    InstData::Store { space: MemSpace::Local, addr, value } if addr == a && value != a => Use::Address,
                    InstData::Binary { op, .. } if ring(op) => {
                        result.filter(|&r| f.value_type(r) == Type::I32).map_or(Use::Other, Use::Ring)
                    }
                    _ => Use::Other,
                };
                uses.entry(a).or_default().push(how);
            }
        }
        for a in f.blocks[b].term.args() {
            uses.entry(a).or_default().push(Use::Other);
        }
    }
    // Drop candidates with a use that needs 32 bits, until none is left.
    loop {
        let before = set.clone();
        set.retain(|v| {
            let list = uses.get(v).map(Vec::as_slice).unwrap_or(&[]);
            !list.is_empty()
                && list.iter().all(|u| match *u {
                    Use::Address => hi.get(v).is_some_and(|&x| x < LIMIT),
                    Use::Ring(r) => before.contains(&r),
                    Use::Other => false,
                })
        });
        if set.len() == before.len() {
            break;
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, workgroup: [u32; 3]) -> Vec<String> {
        let f = crate::ir::parse_function(text).expect("parses");
        let nodes = crate::ir::structure::region_tree(&f).expect("structured");
        find(&f, &crate::ir::structure::block_order(&nodes), workgroup).iter().map(|v| v.to_string()).collect()
    }

    const SHARED: &str = "kernel @k local_memory 1024 {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 2
      v3:i32 = shl v1, v2
      v4:f32 = load.local.f32 [v3]
      v5:i32 = iconst 512
      v6:i32 = iadd v3, v5
      store.local [v6], v4
      v7:i32 = load.device.i32 [v0]
      v8:i32 = shl v7, v2
      v9:f32 = load.local.f32 [v8]
      v10:i32 = iadd v1, v2
      v11:b1 = icmp ult v10, v5
      store.local [v3], v9
      return
}
";

    #[test]
    fn bounded_groupshared_addresses_narrow() {
        // tid*4 and tid*4 + 512 are below 2^16 with 128 threads; a loaded index
        // (v8) is unbounded; v10 is read by a compare.
        assert_eq!(run(SHARED, [128, 1, 1]), ["v3", "v6"]);
    }

    #[test]
    fn a_bound_past_16_bits_stays_32_bit() {
        // 32768 threads: tid*4 + 512 may reach 2^17.
        assert_eq!(run(SHARED, [32768, 1, 1]), Vec::<String>::new());
    }

    #[test]
    fn chains_narrow_when_only_their_end_is_an_address() {
        // ((tid & 15) * 65540 - 5) wraps in 32 bits on the way, but its low
        // 16 bits are those of the final address, which `and` bounds.
        let text = "kernel @k local_memory 256 {
  block0:
      v0:i32 = kernel_arg 0
      v1:i32 = special sr_thread_id_x
      v2:i32 = iconst 15
      v3:i32 = and v1, v2
      v4:i32 = iconst 65540
      v5:i32 = imul v3, v4
      v6:i32 = iconst 5
      v7:i32 = isub v5, v6
      v8:i32 = iconst 252
      v9:i32 = and v7, v8
      v10:f32 = load.local.f32 [v9]
      store.device [v0], v10
      return
}
";
        assert_eq!(run(text, [64, 1, 1]), ["v3", "v5", "v7", "v9"]);
    }
}
