//! The fixed shape of one dispatch, which both the functional executor
//! (`exec`) and the cycle model (`timing`) read. It lives below both so that
//! neither imports the other for it.

/// Fixed facts about the dispatch, checked by `validate` before a run starts.
pub(crate) struct Geometry {
    /// Threads of a workgroup in x, y, z.
    pub wg: [u32; 3],
    /// Threads of a workgroup (the product of `wg`).
    pub threads: u32,
    /// Waves of a workgroup (`threads` rounded up to whole waves).
    pub nwaves: u32,
    /// Lanes of a wave.
    pub w: u32,
    /// Workgroups of the dispatch in x, y, z.
    pub grid: [u32; 3],
}
