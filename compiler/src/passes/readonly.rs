//! Read-only buffers (`readonly-loads`): a load from device memory that no
//! store or atomic of the kernel can write (`memory::Provenance`: an RW
//! buffer the kernel only reads) becomes a `device_ro` load, which the other
//! passes may reuse, hoist and sink like arithmetic, and which uniformity
//! analysis counts as uniform at a uniform address.

use super::memory::Provenance;
use super::PassContext;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;

/// The `readonly-loads` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let order = block_order(&nodes);
    let prov = Provenance::new(f, &order);
    let mut changed = false;
    for &b in &order {
        for k in 0..f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[k];
            if let InstData::Load { space: MemSpace::Device, ty, addr } = f.insts[i] {
                if prov.is_read_only(addr) {
                    f.insts[i] = InstData::Load { space: MemSpace::DeviceReadOnly, ty, addr };
                    changed = true;
                }
            }
        }
    }
    changed
}
