//! A priority queue of (cycle, id) for the cycle model's event lists: a binary
//! min-heap of keys packed into one `u64` (cycle above, id in the low `ID_BITS`),
//! so every comparison is one integer compare.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bits of the id part of a key (ids below 2^18: a core index or a wave slot).
const ID_BITS: u32 = 18;
/// Cycles at or above this are kept as this (2^46 cycles: far beyond any run).
const MAX_CYCLE: u64 = (1 << (64 - ID_BITS)) - 1;

#[derive(Clone, Debug, Default)]
pub(crate) struct Queue {
    heap: BinaryHeap<Reverse<u64>>,
}

fn key(cycle: u64, id: u32) -> u64 {
    (cycle.min(MAX_CYCLE) << ID_BITS) | id as u64
}

fn split(k: u64) -> (u64, u32) {
    (k >> ID_BITS, (k & ((1 << ID_BITS) - 1)) as u32)
}

impl Queue {
    pub fn push(&mut self, cycle: u64, id: u32) {
        self.heap.push(Reverse(key(cycle, id)));
    }

    /// The earliest (cycle, id); among equal cycles the lowest id.
    pub fn peek(&self) -> Option<(u64, u32)> {
        self.heap.peek().map(|r| split(r.0))
    }

    pub fn pop(&mut self) -> Option<(u64, u32)> {
        self.heap.pop().map(|r| split(r.0))
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_cycle_then_id_order() {
        let mut q = Queue::default();
        for (c, id) in [(5, 1), (3, 7), (5, 0), (100, 2), (3, 2), (u64::MAX, 9)] {
            q.push(c, id);
        }
        let mut out = Vec::new();
        while let Some(x) = q.pop() {
            out.push(x);
        }
        assert_eq!(out, vec![(3, 2), (3, 7), (5, 0), (5, 1), (100, 2), (MAX_CYCLE, 9)]);
        assert!(q.is_empty());
    }
}

/// The far waits of one core's waves, in (cycle, slot) order: a deque kept
/// sorted, each entry one key (cycle above, slot in the low 6 bits). Memory
/// results mostly come back in the order they were asked for, so an entry
/// usually goes at the back after one compare, and the earliest leaves from the
/// front: cheaper, and easier to predict, than a binary heap's sifting.
#[derive(Clone, Debug, Default)]
struct SortedWaits {
    keys: std::collections::VecDeque<u64>,
}

impl SortedWaits {
    fn push(&mut self, cycle: u64, slot: u32) {
        let key = (cycle.min(u64::MAX >> 6) << 6) | (slot as u64 & 63);
        let in_order = match self.keys.back() {
            Some(&last) => last <= key,
            None => true,
        };
        if in_order {
            self.keys.push_back(key);
            return;
        }
        // Out of order (an L2 hit behind queued DRAM misses, say): a binary search,
        // as such an entry often belongs near the front.
        let i = self.keys.partition_point(|&k| k <= key);
        self.keys.insert(i, key);
    }

    fn peek(&self) -> Option<(u64, u32)> {
        self.keys.front().map(|&k| (k >> 6, (k & 63) as u32))
    }

    fn pop(&mut self) {
        self.keys.pop_front();
    }
}

/// Cycles the near-future wheel of a [`WaveQueue`] covers.
const WHEEL: u64 = 64;

/// The waves of one core that wait for a cycle, by slot (at most 64): those due
/// within the next [`WHEEL`] cycles in a wheel of slot masks (one per cycle, so
/// the short ALU latencies cost a few bit operations), later ones in a [`SortedWaits`].
#[derive(Clone, Debug)]
pub(crate) struct WaveQueue {
    /// Every cycle before this one has been drained.
    cur: u64,
    /// Per cycle modulo `WHEEL`: the slots due then.
    wheel: [u64; WHEEL as usize],
    /// Bit `i`: `wheel[i]` is not empty.
    occ: u64,
    far: SortedWaits,
    /// The earliest cycle in `far` (`u64::MAX`: empty), so that draining looks at
    /// `far` only when it has something due or within the wheel's reach.
    far_first: u64,
}

impl Default for WaveQueue {
    fn default() -> WaveQueue {
        WaveQueue { cur: 0, wheel: [0; WHEEL as usize], occ: 0, far: SortedWaits::default(), far_first: u64::MAX }
    }
}

impl WaveQueue {
    /// The wave in `slot` is due at `cycle`; a cycle already drained returns the
    /// slot's bit for the caller's ready set instead.
    #[inline(always)]
    pub fn push(&mut self, cycle: u64, slot: u32) -> u64 {
        if cycle < self.cur {
            return 1 << slot;
        }
        if cycle - self.cur < WHEEL {
            let i = (cycle % WHEEL) as usize;
            self.wheel[i] |= 1 << slot;
            self.occ |= 1 << i;
        } else {
            self.push_far(cycle, slot);
        }
        0
    }

    /// `push` beyond the wheel's reach (kept out of line: `push` is inlined where waves issue).
    #[inline(never)]
    fn push_far(&mut self, cycle: u64, slot: u32) {
        self.far.push(cycle, slot);
        self.far_first = self.far_first.min(cycle);
    }

    /// The slots due by cycle `t` (removed from the queue).
    #[inline(always)]
    pub fn drain(&mut self, t: u64) -> u64 {
        if t < self.cur {
            return 0;
        }
        let due = if t == self.cur {
            // The usual case, a core issuing on consecutive cycles: one wheel position
            // (its word is 0 when its `occ` bit is clear).
            let i = (t % WHEEL) as usize;
            self.occ &= !(1 << i);
            std::mem::take(&mut self.wheel[i])
        } else {
            self.drain_wheel(t)
        };
        self.cur = t + 1;
        if self.far_first < self.cur + WHEEL {
            due | self.drain_far(t)
        } else {
            due
        }
    }

    /// The wheel positions of cycles `cur..=t`.
    fn drain_wheel(&mut self, t: u64) -> u64 {
        let mut due = 0;
        // All positions when the span is a whole turn or more.
        let span = t - self.cur + 1;
        let mask = if span >= WHEEL { u64::MAX } else { ((1u64 << span) - 1).rotate_left((self.cur % WHEEL) as u32) };
        let mut hit = self.occ & mask;
        self.occ &= !mask;
        while hit != 0 {
            let i = hit.trailing_zeros() as usize;
            hit &= hit - 1;
            due |= self.wheel[i];
            self.wheel[i] = 0;
        }
        due
    }

    /// Far entries due by `t` (the wheel is drained to `t`, `cur` is `t + 1`); those
    /// now within the wheel's reach move into it.
    fn drain_far(&mut self, t: u64) -> u64 {
        let mut due = 0;
        while let Some((c, slot)) = self.far.peek() {
            if c > t {
                break;
            }
            self.far.pop();
            due |= 1 << slot;
        }
        while let Some((c, slot)) = self.far.peek() {
            if c - self.cur >= WHEEL {
                break;
            }
            self.far.pop();
            self.push(c, slot);
        }
        self.far_first = self.far.peek().map_or(u64::MAX, |(c, _)| c);
        due
    }

    /// The earliest (cycle, slot) waiting (the lowest slot among those due first).
    pub fn earliest(&self) -> Option<(u64, u32)> {
        if self.occ != 0 {
            let first = (self.occ.rotate_right((self.cur % WHEEL) as u32)).trailing_zeros() as u64;
            let cycle = self.cur + first;
            let slots = self.wheel[(cycle % WHEEL) as usize];
            return Some((cycle, slots.trailing_zeros()));
        }
        self.far.peek()
    }
}

#[cfg(test)]
mod wave_queue_tests {
    use super::*;

    /// Against a list, draining at increasing cycles.
    #[test]
    fn agrees_with_a_list() {
        let mut q = WaveQueue::default();
        let mut model: Vec<(u64, u32)> = Vec::new();
        let mut seed = 11u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut now = 0u64;
        let mut ready = 0u64;
        for _ in 0..100000 {
            if rnd() % 2 == 0 {
                let slot = (rnd() % 64) as u32;
                if model.iter().any(|&(_, s)| s == slot) || ready & (1 << slot) != 0 {
                    continue;
                }
                // Cycles drained already, within the wheel's 64 cycles, and far beyond them.
                let c = match rnd() % 5 {
                    0 => now.saturating_sub(1),
                    1 => now + rnd() % 8,
                    2 => now + rnd() % 100,
                    3 => now + rnd() % 3000,
                    _ => now + rnd() % 20000,
                };
                let r = q.push(c, slot);
                if c < now {
                    assert_eq!(r, 1 << slot);
                    ready |= r;
                } else {
                    assert_eq!(r, 0);
                    model.push((c, slot));
                }
            } else {
                let want = model.iter().copied().min_by_key(|&(c, s)| (c, s));
                assert_eq!(q.earliest(), want, "now {now}");
                // Mostly short steps; now and then a jump past every level.
                now += if rnd() % 25 == 0 { rnd() % 12000 } else { rnd() % 50 };
                let due = q.drain(now);
                let mut want_due = 0u64;
                model.retain(|&(c, s)| {
                    if c <= now {
                        want_due |= 1 << s;
                        false
                    } else {
                        true
                    }
                });
                assert_eq!(due, want_due, "now {now}");
                ready = due;
                now += 1;
            }
        }
    }
}
