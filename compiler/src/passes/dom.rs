//! The dominator tree of a structured function, read off the region tree in
//! linear time: a block dominates the rest of its chain; an `if` head
//! dominates both regions and its merge; a loop's `pre` block dominates the
//! body; a loop's exit is dominated by the first `break_if` block of the body
//! (every exit edge leaves from it or from a block after it in the top-level
//! chain). Dominance queries are O(1) through DFS numbers.

use crate::ir::structure::{block_order, Node};
use crate::ir::{Block, Function, Terminator};
use cranelift_entity::SecondaryMap;

pub struct DomTree {
    idom: SecondaryMap<Block, Option<Block>>,
    children: SecondaryMap<Block, Vec<Block>>,
    depth: SecondaryMap<Block, u32>,
    enter: SecondaryMap<Block, u32>,
    leave: SecondaryMap<Block, u32>,
    reached: SecondaryMap<Block, bool>,
    /// Blocks in region order (every block after its dominators).
    pub order: Vec<Block>,
    root: Block,
}

impl DomTree {
    /// The tree of `f`, whose region tree is `nodes`.
    pub fn new(f: &Function, nodes: &[Node]) -> DomTree {
        let order = block_order(nodes);
        let mut idom: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
        let mut preset: SecondaryMap<Block, bool> = SecondaryMap::new();
        walk(f, nodes, None, &mut idom, &mut preset);
        let mut children: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
        for &b in &order {
            reached[b] = true;
            if let Some(p) = idom[b] {
                children[p].push(b);
            }
        }
        let root = order.first().copied().unwrap_or_else(|| f.entry_block());
        let mut t = DomTree {
            idom,
            children,
            depth: SecondaryMap::new(),
            enter: SecondaryMap::new(),
            leave: SecondaryMap::new(),
            reached,
            order,
            root,
        };
        t.number();
        t
    }

    /// DFS enter/leave numbers and depths, without recursion (trees can be thousands deep).
    fn number(&mut self) {
        let mut clock = 0;
        let mut stack: Vec<(Block, usize)> = vec![(self.root, 0)];
        self.enter[self.root] = clock;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&c) = self.children[b].get(*next) {
                *next += 1;
                clock += 1;
                self.enter[c] = clock;
                self.depth[c] = self.depth[b] + 1;
                stack.push((c, 0));
            } else {
                clock += 1;
                self.leave[b] = clock;
                stack.pop();
            }
        }
    }

    pub fn root(&self) -> Block {
        self.root
    }

    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b]
    }

    /// Blocks immediately dominated by `b`, in region order.
    pub fn children(&self, b: Block) -> &[Block] {
        &self.children[b]
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.reached[b]
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        self.reached[a] && self.reached[b] && self.enter[a] <= self.enter[b] && self.leave[b] <= self.leave[a]
    }

    pub fn depth(&self, b: Block) -> u32 {
        self.depth[b]
    }

    /// The nearest block that dominates both `a` and `b`.
    pub fn common_dominator(&self, mut a: Block, mut b: Block) -> Block {
        // Answered in O(1) when one dominates the other (a value used all along
        // a chain of thousands of `if`s would otherwise walk the chain per use).
        if self.dominates(a, b) {
            return a;
        }
        if self.dominates(b, a) {
            return b;
        }
        while self.depth[a] > self.depth[b] {
            a = self.idom[a].unwrap_or(self.root);
        }
        while self.depth[b] > self.depth[a] {
            b = self.idom[b].unwrap_or(self.root);
        }
        while a != b {
            a = self.idom[a].unwrap_or(self.root);
            b = self.idom[b].unwrap_or(self.root);
        }
        a
    }

    /// Blocks in dominator-tree preorder, children in region order.
    pub fn preorder(&self) -> Vec<Block> {
        let mut out = Vec::with_capacity(self.order.len());
        let mut stack = vec![self.root];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children[b].iter().rev());
        }
        out
    }
}

fn walk(
    f: &Function,
    nodes: &[Node],
    mut cur: Option<Block>,
    idom: &mut SecondaryMap<Block, Option<Block>>,
    preset: &mut SecondaryMap<Block, bool>,
) {
    for n in nodes {
        match n {
            Node::Block(b) => {
                if !preset[*b] {
                    idom[*b] = cur;
                }
                cur = Some(*b);
            }
            Node::If { head, then_region, else_region, merge } => {
                walk(f, then_region, Some(*head), idom, preset);
                walk(f, else_region, Some(*head), idom, preset);
                idom[*merge] = Some(*head);
                preset[*merge] = true;
            }
            Node::Loop { pre, body, exit, .. } => {
                walk(f, body, Some(*pre), idom, preset);
                let first_break = body.iter().find_map(|n| match n {
                    Node::Block(b) if matches!(f.blocks[*b].term, Terminator::BreakIf { .. }) => Some(*b),
                    _ => None,
                });
                idom[*exit] = Some(first_break.unwrap_or(*pre));
                preset[*exit] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::structure::region_tree;
    use crate::ir::{parse_function, Block};
    use cranelift_entity::EntityRef;
    use petgraph::algo::dominators::simple_fast;
    use petgraph::graph::DiGraph;

    /// The structural tree agrees with Cooper-Harvey-Kennedy on the CFG.
    #[test]
    fn agrees_with_the_iterative_algorithm() {
        let f = parse_function(
            "kernel @k {
  block0:
      v0:i32 = special sr_thread_id_x
      v1:i32 = iconst 3
      v2:b1 = icmp ult v0, v1
      if v2 then block1 else block2 merge block3
    block1:
        jump block3()
    block2:
        jump block3()
  block3:
      loop block4() exit block5
    block4:
        if v2 then block6 else block7 merge block8
      block6:
          jump block8()
      block7:
          jump block8()
    block8:
        break_if v2 to block5() else block9
    block9:
        break_if v2 to block5() else block10
    block10:
        jump block4()
  block5:
      return
}
",
        )
        .expect("parses");
        let nodes = region_tree(&f).expect("structured");
        let t = DomTree::new(&f, &nodes);
        let mut g: DiGraph<Block, ()> = DiGraph::new();
        let idx: Vec<_> = f.blocks.keys().map(|b| g.add_node(b)).collect();
        for b in f.blocks.keys() {
            for s in f.blocks[b].term.successors() {
                g.add_edge(idx[b.index()], idx[s.index()], ());
            }
        }
        let doms = simple_fast(&g, idx[0]);
        for b in f.blocks.keys() {
            let expected = doms.immediate_dominator(idx[b.index()]).map(|n| g[n]);
            assert_eq!(t.idom(b), expected, "idom of {b}");
            for a in f.blocks.keys() {
                let d = doms.dominators(idx[b.index()]).is_some_and(|mut it| it.any(|x| g[x] == a));
                assert_eq!(t.dominates(a, b), d, "{a} dominates {b}");
            }
        }
        assert_eq!(t.common_dominator(Block::new(6), Block::new(9)), Block::new(4));
        assert_eq!(t.preorder().len(), f.blocks.len());
    }
}
