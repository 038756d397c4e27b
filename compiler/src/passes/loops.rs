//! The loop forest of a structured function, from its region tree: each
//! loop's blocks, nesting, and which blocks run on every iteration.

use crate::ir::structure::{block_order, Node};
use crate::ir::{Block, Function, Terminator};
use cranelift_entity::SecondaryMap;

/// Index of a loop in [`Loops::loops`] (outer loops before the loops they hold).
pub type LoopId = usize;

pub struct LoopInfo {
    /// The block whose `Loop` terminator enters the loop (the preheader).
    pub pre: Block,
    pub header: Block,
    pub exit: Block,
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// Every block of the body, nested regions included, in region order.
    pub blocks: Vec<Block>,
    /// The body's top-level chain (where `break_if`s and the back edge are).
    pub top: Vec<Block>,
    /// Top-level blocks up to and including the first `break_if` block: every
    /// lane that enters the loop runs them on every iteration it starts.
    pub always: Vec<Block>,
    /// Top-level blocks that end in `break_if`.
    pub breaks: Vec<Block>,
}

pub struct Loops {
    pub loops: Vec<LoopInfo>,
    /// The innermost loop holding each block.
    pub innermost: SecondaryMap<Block, Option<LoopId>>,
}

impl Loops {
    pub fn new(f: &Function, nodes: &[Node]) -> Loops {
        let mut l = Loops { loops: Vec::new(), innermost: SecondaryMap::new() };
        l.collect(f, nodes, None, 0);
        l
    }

    fn collect(&mut self, f: &Function, nodes: &[Node], parent: Option<LoopId>, depth: u32) {
        for n in nodes {
            match n {
                Node::Block(b) => self.innermost[*b] = parent,
                Node::If { then_region, else_region, .. } => {
                    self.collect(f, then_region, parent, depth);
                    self.collect(f, else_region, parent, depth);
                }
                Node::Loop { pre, header, body, exit } => {
                    let top: Vec<Block> = body
                        .iter()
                        .filter_map(|n| match n {
                            Node::Block(b) => Some(*b),
                            _ => None,
                        })
                        .collect();
                    let breaks: Vec<Block> =
                        top.iter().copied().filter(|b| matches!(f.blocks[*b].term, Terminator::BreakIf { .. })).collect();
                    let always = match breaks.first() {
                        Some(first) => top.iter().copied().take_while(|b| b != first).chain(std::iter::once(*first)).collect(),
                        None => top.clone(),
                    };
                    let id = self.loops.len();
                    self.loops.push(LoopInfo {
                        pre: *pre,
                        header: *header,
                        exit: *exit,
                        parent,
                        depth: depth + 1,
                        blocks: block_order(body),
                        top,
                        always,
                        breaks,
                    });
                    self.collect(f, body, Some(id), depth + 1);
                }
            }
        }
    }

    /// Whether loop `l` holds block `b` (at any depth).
    pub fn contains(&self, l: LoopId, b: Block) -> bool {
        let mut cur = self.innermost[b];
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            cur = self.loops[c].parent;
        }
        false
    }

    /// Loop depth of block `b` (0 outside every loop).
    pub fn depth_of(&self, b: Block) -> u32 {
        self.innermost[b].map_or(0, |l| self.loops[l].depth)
    }

    /// The outermost loop that holds `inner` but not block `b`, if any: the
    /// loops a value defined in `inner` leaves on its way to a use in `b`.
    pub fn exited_between(&self, inner: Option<LoopId>, b: Block) -> Vec<LoopId> {
        let mut out = Vec::new();
        let mut cur = inner;
        while let Some(c) = cur {
            if self.contains(c, b) {
                break;
            }
            out.push(c);
            cur = self.loops[c].parent;
        }
        out
    }
}
