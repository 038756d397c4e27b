//! The region tree of a function: blocks in program order with if/else and
//! loop regions nested as in the source. Emission, the printer and analyses
//! walk this tree; building it also checks that the CFG is well structured.

use super::{Block, Function, Terminator};
use cranelift_entity::SecondaryMap;

/// The control-flow shape of a block's terminator, all the walk needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    None,
    Return,
    Jump(Block),
    If { then_dest: Block, else_dest: Block, merge: Block },
    Loop { header: Block, exit: Block },
    BreakIf { exit: Block, cont: Block },
}

impl Terminator {
    pub fn shape(&self) -> Shape {
        match self {
            Terminator::None => Shape::None,
            Terminator::Return => Shape::Return,
            Terminator::Jump { dest, .. } => Shape::Jump(*dest),
            Terminator::If { then_dest, else_dest, merge, .. } => Shape::If { then_dest: *then_dest, else_dest: *else_dest, merge: *merge },
            Terminator::Loop { header, exit, .. } => Shape::Loop { header: *header, exit: *exit },
            Terminator::BreakIf { exit, cont, .. } => Shape::BreakIf { exit: *exit, cont: *cont },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A block's instructions (its terminator is interpreted by the enclosing node).
    Block(Block),
    /// The `If` terminator of `head`: `then`, `else` regions, continuing at `merge`.
    If { head: Block, then_region: Vec<Node>, else_region: Vec<Node>, merge: Block },
    /// The `Loop` terminator of `pre`: the body starting at `header`, continuing at `exit`.
    Loop { pre: Block, header: Block, body: Vec<Node>, exit: Block },
}

#[derive(Clone, Copy)]
struct Stop {
    merge: Option<Block>,
    loop_header: Option<Block>,
    loop_exit: Option<Block>,
    loop_top: bool,
}

/// Builds the region tree from the entry block, or says why the CFG is not structured.
pub fn region_tree(f: &Function) -> Result<Vec<Node>, String> {
    region_tree_of(f.entry_block(), &|b| {
        if f.blocks.is_valid(b) {
            Some(f.blocks[b].term.shape())
        } else {
            None
        }
    })
}

/// The region tree of any CFG given by `shape` (None: the block does not exist).
pub fn region_tree_of(entry: Block, shape: &dyn Fn(Block) -> Option<Shape>) -> Result<Vec<Node>, String> {
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let stop = Stop { merge: None, loop_header: None, loop_exit: None, loop_top: false };
    region(shape, entry, stop, &mut seen, 0)
}

fn region(
    f: &dyn Fn(Block) -> Option<Shape>,
    mut cur: Block,
    stop: Stop,
    seen: &mut SecondaryMap<Block, bool>,
    depth: u32,
) -> Result<Vec<Node>, String> {
    if depth > 256 {
        return Err("control flow nested too deeply".into());
    }
    let mut nodes = Vec::new();
    loop {
        let Some(shape) = f(cur) else {
            return Err(format!("{cur} does not exist"));
        };
        if seen[cur] {
            return Err(format!("{cur} is reached twice by the structured walk"));
        }
        seen[cur] = true;
        nodes.push(Node::Block(cur));
        match shape {
            Shape::None => return Err(format!("{cur} has no terminator")),
            Shape::Return => {
                if stop.merge.is_some() || stop.loop_header.is_some() {
                    return Err(format!("{cur}: return inside a region"));
                }
                return Ok(nodes);
            }
            Shape::Jump(dest) => {
                if Some(dest) == stop.merge {
                    return Ok(nodes);
                }
                if Some(dest) == stop.loop_header {
                    if !stop.loop_top {
                        return Err(format!("{cur}: back edge from inside an if region"));
                    }
                    return Ok(nodes);
                }
                cur = dest;
            }
            Shape::If { then_dest, else_dest, merge } => {
                let inner = Stop { merge: Some(merge), loop_top: false, ..stop };
                let then_region = region(f, then_dest, inner, seen, depth + 1)?;
                let else_region = region(f, else_dest, inner, seen, depth + 1)?;
                nodes.push(Node::If { head: cur, then_region, else_region, merge });
                cur = merge;
            }
            Shape::Loop { header, exit } => {
                let inner = Stop { merge: None, loop_header: Some(header), loop_exit: Some(exit), loop_top: true };
                let body = region(f, header, inner, seen, depth + 1)?;
                nodes.push(Node::Loop { pre: cur, header, body, exit });
                cur = exit;
            }
            Shape::BreakIf { exit, cont } => {
                if !stop.loop_top || Some(exit) != stop.loop_exit {
                    return Err(format!("{cur}: break_if is not at the top level of its loop"));
                }
                cur = cont;
            }
        }
    }
}

/// Blocks in region-tree order (a dominance-respecting order: every block after its dominators).
pub fn block_order(nodes: &[Node]) -> Vec<Block> {
    let mut out = Vec::new();
    fn walk(nodes: &[Node], out: &mut Vec<Block>) {
        for n in nodes {
            match n {
                Node::Block(b) => out.push(*b),
                Node::If { then_region, else_region, .. } => {
                    walk(then_region, out);
                    walk(else_region, out);
                }
                Node::Loop { body, .. } => walk(body, out),
            }
        }
    }
    walk(nodes, &mut out);
    out
}
