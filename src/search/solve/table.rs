//! The solver's transposition table: shared by every thread, keyed by
//! shape, two entries to a cache line, read and written without locks
//! (a read that overlaps a write is a miss).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::slots::{Line, Slots, read_record, write_record};

/// Bytes of one table entry (two to a cache line): a header word with
/// the lower bound, upper bound, best move (in the canonical frame, 255:
/// none) and empties in its low bytes under a sequence number (see
/// [`read_record`]), the shape key + 1 (0: an empty entry) in two words,
/// one word unused.
pub const ENTRY_BYTES: usize = 32;

#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) key: u128,
    pub(super) lower: i8,
    pub(super) upper: i8,
    pub(super) best: u8,
}

/// The transposition table, shared by every thread of a search: buckets
/// of one cache line holding two entries. The first keeps the entry with
/// the most empties (the costliest to recompute) offered to it, the second
/// the latest other one. A read that overlaps a write is a miss, never a
/// torn entry; a write that meets another is dropped.
pub(super) struct Table {
    lines: Slots<Line>,
    mask: usize,
}

impl Table {
    /// The largest power-of-two number of buckets within `bytes` (at least 512).
    pub(super) fn new(bytes: u64) -> Table {
        let n = ((bytes / size_of::<Line>() as u64).max(512) as usize + 1).next_power_of_two() / 2;
        Table { lines: Slots::new(n), mask: n - 1 }
    }

    pub(super) fn bytes(&self) -> u64 {
        self.lines.bytes()
    }

    #[inline]
    fn bucket(&self, key: u128) -> &[AtomicU64; 8] {
        let h = (key as u64) ^ ((key >> 64) as u64);
        &self.lines.get((h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask).0
    }

    #[inline]
    pub(super) fn load(&self, key: u128) -> Option<Entry> {
        let bucket = self.bucket(key);
        for w in [&bucket[..4], &bucket[4..]] {
            if let Some((tag, [k0, k1, _])) = read_record::<3>(w, 32)
                && k0 == key as u64
                && k1 == (key >> 64) as u64
            {
                return Some(Entry {
                    key,
                    lower: tag as u8 as i8,
                    upper: (tag >> 8) as u8 as i8,
                    best: (tag >> 16) as u8,
                });
            }
        }
        None
    }

    #[inline]
    pub(super) fn store(&self, e: Entry, empties: u32) {
        let bucket = self.bucket(e.key);
        let holds = |w: &[AtomicU64]| {
            w[1].load(Ordering::Relaxed) == e.key as u64 && w[2].load(Ordering::Relaxed) == (e.key >> 64) as u64
        };
        let first_empties = (bucket[0].load(Ordering::Relaxed) >> 24) & 0xff;
        let w = if holds(&bucket[..4]) || (!holds(&bucket[4..]) && u64::from(empties) >= first_empties) {
            &bucket[..4]
        } else {
            &bucket[4..]
        };
        let tag = u64::from(e.lower as u8)
            | u64::from(e.upper as u8) << 8
            | u64::from(e.best) << 16
            | u64::from(empties.min(255)) << 24;
        write_record(w, 32, tag, &[e.key as u64, (e.key >> 64) as u64, 0]);
    }
}
