//! Facts about blocks that the spiller needs from the region tree: loop depth
//! (spill code in loops costs more) and convergence (whether every lane of the
//! wave is active in a block, which a lane-bank write needs).

use crate::codegen::mir::{MFunction, MTerm};
use crate::ir::structure::{region_tree_of, Node};
use crate::ir::Block;
use cranelift_entity::SecondaryMap;

pub struct Regions {
    pub loop_depth: SecondaryMap<Block, u32>,
    /// Every lane that entered the kernel is active in this block: it is not
    /// under an `if` with a divergent condition, nor in a loop that lanes may
    /// leave at different iterations.
    pub convergent: SecondaryMap<Block, bool>,
}

impl Regions {
    pub fn compute(m: &MFunction) -> Result<Regions, String> {
        let shapes = m.shapes();
        let nodes = region_tree_of(m.entry, &|b| shapes[b])?;
        let mut r = Regions { loop_depth: SecondaryMap::new(), convergent: SecondaryMap::new() };
        r.walk(m, &nodes, 0, true);
        Ok(r)
    }

    fn walk(&mut self, m: &MFunction, nodes: &[Node], depth: u32, conv: bool) {
        for n in nodes {
            match n {
                Node::Block(b) => {
                    self.loop_depth[*b] = depth;
                    self.convergent[*b] = conv;
                }
                Node::If { head, then_region, else_region, .. } => {
                    let uniform = match m.blocks[*head].term {
                        MTerm::If { cond, .. } => m.vregs[cond].uniform,
                        _ => false,
                    };
                    self.walk(m, then_region, depth, conv && uniform);
                    self.walk(m, else_region, depth, conv && uniform);
                }
                Node::Loop { body, .. } => {
                    // Breaks sit at the top level of a loop body.
                    let uniform_exits = body.iter().all(|n| match n {
                        Node::Block(b) => match m.blocks[*b].term {
                            MTerm::BreakIf { cond, .. } => m.vregs[cond].uniform,
                            _ => true,
                        },
                        _ => true,
                    });
                    self.walk(m, body, depth + 1, conv && uniform_exits);
                }
            }
        }
    }

    /// Cost weight of an instruction in `b`: ten per loop level.
    pub fn weight(&self, b: Block) -> u64 {
        10u64.saturating_pow(self.loop_depth[b])
    }
}
