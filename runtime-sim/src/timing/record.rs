//! What the cycle model records besides totals: resident waves over time and a
//! timeline of the waves of compute unit 0 (one row per wave slot).

use crate::report::{OccupancyPoint, Segment, Timeline, WaveState};

/// Most timeline segments kept (the report stays small; later ones are dropped and
/// the timeline says it was truncated).
const MAX_SEGMENTS: usize = 40_000;

pub(crate) struct Recorder {
    cores: u32,
    slots_per_core: u32,
    segments: Vec<Segment>,
    /// Per row, the index of its last segment (to merge adjacent ones).
    last: Vec<Option<usize>>,
    truncated: bool,
    resident: i64,
    last_t: u64,
    wave_cycles: u64,
    points: Vec<OccupancyPoint>,
}

impl Recorder {
    pub fn new(cores: u32, slots_per_core: u32) -> Recorder {
        let rows = (cores * slots_per_core) as usize;
        Recorder {
            cores,
            slots_per_core,
            segments: Vec::new(),
            last: vec![None; rows],
            truncated: false,
            resident: 0,
            last_t: 0,
            wave_cycles: 0,
            points: Vec::new(),
        }
    }

    /// The row of wave slot `slot` of core `core` (of compute unit 0).
    pub fn row(&self, core: u32, slot: u32) -> u32 {
        core * self.slots_per_core + slot
    }

    /// Whether the timeline is truncated (later segments are dropped).
    pub fn full(&self) -> bool {
        self.truncated
    }

    /// Row `row` was in `state` from `start` to `end`.
    #[inline]
    pub fn segment(&mut self, row: u32, start: u64, end: u64, state: WaveState, group: u64) {
        if end <= start || self.truncated {
            return;
        }
        if let Some(i) = self.last[row as usize] {
            let s = &mut self.segments[i];
            if s.state == state && s.group == group && s.end == start {
                s.end = end;
                return;
            }
            if s.group != group {
                // A new wave in the slot: nothing to merge with.
                self.last[row as usize] = None;
            }
        }
        if self.segments.len() >= MAX_SEGMENTS {
            self.truncated = true;
            return;
        }
        self.last[row as usize] = Some(self.segments.len());
        self.segments.push(Segment { row, start, end, state, group });
    }

    /// `delta` waves became resident (or left) at `t`.
    pub fn resident(&mut self, t: u64, delta: i64) {
        let t = t.max(self.last_t);
        self.wave_cycles += self.resident.max(0) as u64 * (t - self.last_t);
        self.last_t = t;
        self.resident += delta;
        let waves = self.resident.max(0) as u32;
        match self.points.last_mut() {
            Some(p) if p.start == t => p.waves = waves,
            _ => self.points.push(OccupancyPoint { start: t, waves }),
        }
    }

    /// (occupancy curve, resident wave-cycles, timeline) at the end of the run.
    pub fn finish(mut self, end: u64) -> (Vec<OccupancyPoint>, u64, Timeline) {
        self.resident(end, 0);
        let timeline =
            Timeline { cores: self.cores, slots_per_core: self.slots_per_core, segments: self.segments, truncated: self.truncated };
        (self.points, self.wave_cycles, timeline)
    }
}
