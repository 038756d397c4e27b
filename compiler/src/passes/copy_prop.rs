//! Copy propagation (`copy-prop`): block parameters are the IR's copies. A
//! parameter that only ever receives one value (or itself) is that value, and
//! so is a whole group of parameters that pass values among themselves with
//! one value coming in from outside (a loop that carries a variable it never
//! changes). This is the redundant-phi removal of Braun et al. (2013),
//! "Simple and Efficient Construction of SSA Form", section 3.2: strongly
//! connected components of the parameter graph, operands first, in one linear
//! sweep, where the previous implementation re-scanned the function once per
//! parameter chain link (quadratic in the number of `if`s of a kernel).

use super::edit::remove_params;
use super::PassContext;
use crate::ir::structure::{block_order, region_tree};
use crate::ir::*;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, BTreeSet};

/// The `copy-prop` pass.
pub fn run(f: &mut Function, _cx: &PassContext) -> bool {
    let Ok(nodes) = region_tree(f) else { return false };
    let order = block_order(&nodes);
    let mut incoming: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    let mut is_param: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut params: Vec<Value> = Vec::new();
    for &b in &order {
        for &p in &f.blocks[b].params {
            is_param[p] = true;
            params.push(p);
        }
        for (dest, args) in f.blocks[b].term.edges_with_args() {
            for (&a, &p) in args.iter().zip(&f.blocks[dest].params) {
                incoming[p].push(a);
            }
        }
    }
    let mut r = Resolver { repl: SecondaryMap::new() };
    // Groups still to decide; each is processed after the groups it reads from.
    let mut work: Vec<Vec<Value>> = sccs(&params, &|p| incoming[p].iter().copied().filter(|&q| is_param[q]).collect());
    work.reverse();
    while let Some(group) = work.pop() {
        let members: BTreeSet<Value> = group.iter().copied().collect();
        let mut outer: BTreeSet<Value> = BTreeSet::new();
        for &p in &group {
            for &v in &incoming[p] {
                let v = r.resolve(v);
                if !members.contains(&v) {
                    outer.insert(v);
                }
            }
        }
        if outer.len() == 1 {
            let v = *outer.iter().next().expect("one value");
            for &p in &group {
                r.repl[p] = Some(v);
            }
        } else if outer.len() > 1 && group.len() > 1 {
            // Parameters fed only from inside the group may still be one value
            // among themselves (Braun et al.'s recursion on the inner SCCs).
            let inner: Vec<Value> =
                group.iter().copied().filter(|&p| incoming[p].iter().all(|&v| members.contains(&r.resolve(v)))).collect();
            if !inner.is_empty() && inner.len() < group.len() {
                let inside: BTreeSet<Value> = inner.iter().copied().collect();
                let mut sub = sccs(&inner, &|p| incoming[p].iter().copied().filter(|q| inside.contains(q)).collect());
                sub.reverse();
                work.extend(sub);
            }
        }
    }
    let mut map: BTreeMap<Value, Value> = BTreeMap::new();
    let mut remove: BTreeSet<(Block, usize)> = BTreeSet::new();
    for &p in &params {
        if r.repl[p].is_some() {
            let to = r.resolve(p);
            map.insert(p, to);
            if let ValueDef::Param(b, k) = f.values[p].def {
                remove.insert((b, k as usize));
            }
        }
    }
    if map.is_empty() {
        return false;
    }
    f.replace_uses(&map);
    remove_params(f, &remove);
    true
}

struct Resolver {
    repl: SecondaryMap<Value, Option<Value>>,
}

impl Resolver {
    /// The value `v` stands for, compressing the chain behind it.
    fn resolve(&mut self, v: Value) -> Value {
        let mut end = v;
        while let Some(n) = self.repl[end] {
            end = n;
        }
        let mut cur = v;
        while let Some(n) = self.repl[cur] {
            self.repl[cur] = Some(end);
            cur = n;
        }
        end
    }
}

/// Strongly connected components of the graph on `nodes` with edges
/// `succ(n)` (Tarjan's algorithm without recursion). A component comes after
/// every component it has edges into.
pub(crate) fn sccs(nodes: &[Value], succ: &dyn Fn(Value) -> Vec<Value>) -> Vec<Vec<Value>> {
    let mut index: SecondaryMap<Value, u32> = SecondaryMap::new(); // 0 = unvisited, else index + 1
    let mut low: SecondaryMap<Value, u32> = SecondaryMap::new();
    let mut on_stack: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut stack: Vec<Value> = Vec::new();
    let mut out: Vec<Vec<Value>> = Vec::new();
    let mut next = 1u32;
    for &root in nodes {
        if index[root] != 0 {
            continue;
        }
        let mut calls: Vec<(Value, Vec<Value>, usize)> = Vec::new();
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, succ(root), 0));
        while let Some((v, succs, i)) = calls.last_mut() {
            let v = *v;
            if let Some(&w) = succs.get(*i) {
                *i += 1;
                if index[w] == 0 {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    let s = succ(w);
                    calls.push((w, s, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some((parent, _, _)) = calls.last() {
                let p = *parent;
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn components_come_after_what_they_read() {
        let v = Value::new;
        // 0 -> 1 -> 2 -> 1, 3 -> 0
        let edges = |n: Value| -> Vec<Value> {
            match n.index() {
                0 => vec![v(1)],
                1 => vec![v(2)],
                2 => vec![v(1)],
                3 => vec![v(0)],
                _ => vec![],
            }
        };
        let c = sccs(&[v(3), v(0), v(1), v(2)], &edges);
        assert_eq!(c, vec![vec![v(1), v(2)], vec![v(0)], vec![v(3)]]);
    }
}
