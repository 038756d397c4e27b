//! How deeply the emitted code nests `if` and `loop`: WAVE keeps one frame of
//! its control stack per open `if` or `loop`, and the reference emulator
//! (wave-emu 0.1.2, like the bundled simulator) holds [`MAX_FRAMES`] of them.
//! The listing opens one per region of the machine IR's region tree (as
//! `asm.rs` emits it), so a kernel nested deeper would be rejected when it
//! runs; the driver refuses it at compile time instead (E0409).

use crate::codegen::mir::MFunction;
use crate::diag::Span;
use crate::ir::structure::{region_tree_of, Node};

/// If/loop frames WAVE's control stack holds.
pub const MAX_FRAMES: usize = 32;

/// The deepest if/loop nesting of `m`'s listing, and the span of the first
/// `if` or `loop` opened that deep (None when the CFG is not structured: the
/// emitter reports that itself).
pub fn deepest_frames(m: &MFunction) -> Option<(usize, Span)> {
    let shapes = m.shapes();
    let nodes = region_tree_of(m.entry, &|b| shapes[b]).ok()?;
    // (nodes, depth) still to visit; iterative, as the tree may be deep.
    let mut stack: Vec<(&[Node], usize)> = vec![(&nodes, 0)];
    let mut deepest = (0, Span::default());
    while let Some((list, depth)) = stack.pop() {
        for n in list {
            let (span, inner): (Span, Vec<&[Node]>) = match n {
                Node::Block(_) => continue,
                Node::If { head, then_region, else_region, .. } => (m.blocks[*head].term_span, vec![then_region, else_region]),
                Node::Loop { pre, body, .. } => (m.blocks[*pre].term_span, vec![body]),
            };
            if depth + 1 > deepest.0 {
                deepest = (depth + 1, span);
            }
            stack.extend(inner.into_iter().map(|r| (r, depth + 1)));
        }
    }
    Some(deepest)
}
