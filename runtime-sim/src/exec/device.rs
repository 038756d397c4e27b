//! Device memory as the executor sees it: the memory itself, or, for a
//! speculative parallel run (`parallel.rs`), the memory as the batch began,
//! shared read-only by every thread, with this thread's writes held back in a
//! log that is replayed onto the memory once the chunk is known to be valid.
//! Nothing is copied up front, and a thread writes only what it stores.
//!
//! A speculative chunk must not read what it wrote itself (the snapshot does not
//! have it): a read overlapping one of its own earlier writes, or any atomic,
//! stops the chunk (`Exec::spoiled`), and it runs again on the memory itself.

/// Where loads read and stores write.
pub(crate) enum Device<'m> {
    /// The memory itself.
    Own(&'m mut [u8]),
    /// The memory as the batch began, and the stores since then.
    Shared(&'m [u8], &'m mut WriteLog),
}

impl Device<'_> {
    /// The bytes loads read.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        match self {
            Device::Own(b) => b,
            Device::Shared(b, _) => b,
        }
    }

    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    pub fn shared(&self) -> bool {
        matches!(self, Device::Shared(..))
    }

    /// Store `data` at `addr` (checked by the caller).
    #[inline(always)]
    pub fn put(&mut self, addr: usize, data: &[u8]) {
        match self {
            Device::Own(b) => b[addr..addr + data.len()].copy_from_slice(data),
            Device::Shared(_, log) => log.push(addr as u32, data),
        }
    }
}

/// Stores held back, in program order: `(address, length)` records over one
/// buffer of their bytes.
#[derive(Default)]
pub(crate) struct WriteLog {
    data: Vec<u8>,
    recs: Vec<(u32, u32)>,
}

impl WriteLog {
    pub fn push(&mut self, addr: u32, data: &[u8]) {
        self.data.extend_from_slice(data);
        self.recs.push((addr, data.len() as u32));
    }

    /// Store consecutive little-endian words from `addr` (one record).
    #[inline(always)]
    pub fn push_words(&mut self, addr: u32, words: &[u32]) {
        let start = self.data.len();
        self.data.resize(start + 4 * words.len(), 0);
        for (b, &v) in self.data[start..].chunks_exact_mut(4).zip(words) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        self.recs.push((addr, 4 * words.len() as u32));
    }

    /// Apply the stores to `mem`, in the order they were made.
    pub fn replay(&self, mem: &mut [u8]) {
        let mut at = 0;
        for &(addr, len) in &self.recs {
            let (a, n) = (addr as usize, len as usize);
            mem[a..a + n].copy_from_slice(&self.data[at..at + n]);
            at += n;
        }
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.recs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_applies_stores_in_order() {
        let mut log = WriteLog::default();
        let snapshot = vec![9u8; 16];
        let mut dev = Device::Shared(&snapshot, &mut log);
        dev.put(2, &[1, 2, 3]);
        dev.put(3, &[7]);
        assert_eq!(dev.bytes(), &snapshot[..], "the snapshot is not written");
        log.push_words(8, &[0x0403_0201, 0x0807_0605]);
        let mut mem = vec![0u8; 16];
        log.replay(&mut mem);
        assert_eq!(mem, [0, 0, 1, 7, 3, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        log.clear();
        let mut again = vec![0u8; 16];
        log.replay(&mut again);
        assert_eq!(again, [0; 16]);
    }
}
