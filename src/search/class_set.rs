//! The set of classes a backward search has proven unreachable: an open
//! addressing table of 16-byte keys, probed in one cache line.
//!
//! The search asks it once per position it meets and adds every position
//! it refutes; a 6x6 search of 4 x 10^7 positions holds millions of them,
//! so nearly every question misses the cache. A general hash set keeps its
//! control bytes and its keys in two arrays (two misses a question; 26% of
//! a 6x6 estimate's time went to them, `perf record -p` on seed 55); here a
//! question reads the slot its hash names and, rarely, the next ones.

/// A class key as the search makes it: (occupied squares with the side to
/// move in their lowest centre bit, black discs). Never `(0, 0)`: the
/// centre is occupied in every position, so at least three of its bits are
/// set in the first word.
pub type Class = (u64, u64);

const EMPTY: Class = (0, 0);

/// Slots of a new table.
const FIRST_SLOTS: usize = 1 << 12;

/// A set of classes, with linear probing; at most half full.
///
/// Its memory is kept from one search to the next: the table in use is
/// the first `1 << bits` slots of an allocation that only grows (every
/// slot past the table is empty), so a search grows it in place and
/// clearing wipes only what was used. Fresh memory costs a page fault per
/// 4 KiB page, cleared by the kernel: when every search allocated its
/// tables anew, 17% of a 6x6 estimate's CPU time went to the kernel
/// (seed 58: 321 M minor faults, 1,461 s of system time in 8,377 s).
pub struct ClassSet {
    /// The allocation: the table, then empty slots.
    slots: Vec<Class>,
    /// The classes of a table being doubled in place, reused.
    scratch: Vec<Class>,
    /// `log2` of the table's slots.
    bits: u32,
    len: usize,
}

impl Default for ClassSet {
    fn default() -> Self {
        ClassSet::new()
    }
}

impl ClassSet {
    /// An empty set.
    pub fn new() -> ClassSet {
        ClassSet { slots: vec![EMPTY; FIRST_SLOTS], scratch: Vec::new(), bits: FIRST_SLOTS.trailing_zeros(), len: 0 }
    }

    /// Slots of the table in use.
    #[inline]
    fn table(&self) -> usize {
        1 << self.bits
    }

    #[inline]
    fn home(&self, k: Class) -> usize {
        let h = (k.0 ^ k.1.rotate_left(27).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.bits)) as usize
    }

    /// Whether `k` is in the set.
    #[inline]
    pub fn contains(&self, k: Class) -> bool {
        debug_assert_ne!(k, EMPTY);
        let mask = self.table() - 1;
        let mut i = self.home(k);
        loop {
            let s = self.slots[i];
            if s == k {
                return true;
            }
            if s == EMPTY {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Starts loading the slot where a search for `k` begins.
    #[inline]
    pub fn prefetch(&self, k: Class) {
        let slot = &self.slots[self.home(k)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint; it never faults
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>((slot as *const Class).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Adds `k`; whether it was new.
    #[inline]
    pub fn insert(&mut self, k: Class) -> bool {
        debug_assert_ne!(k, EMPTY);
        if (self.len + 1) * 2 > self.table() {
            self.grow();
        }
        self.put(k)
    }

    #[inline]
    fn put(&mut self, k: Class) -> bool {
        let mask = self.table() - 1;
        let mut i = self.home(k);
        loop {
            let s = self.slots[i];
            if s == k {
                return false;
            }
            if s == EMPTY {
                self.slots[i] = k;
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table: in place where the allocation holds it (its
    /// classes set aside in `scratch`, the table wiped, and put back), else
    /// into a new allocation twice the size (the scratch freed first, so
    /// that the old and new tables are all that is held).
    fn grow(&mut self) {
        let n = self.table();
        if 2 * n <= self.slots.len() {
            let mut held = std::mem::take(&mut self.scratch);
            held.clear();
            held.extend(self.slots[..n].iter().copied().filter(|&k| k != EMPTY));
            self.slots[..n].fill(EMPTY);
            self.bits += 1;
            self.len = 0;
            for &k in &held {
                self.put(k);
            }
            self.scratch = held;
        } else {
            self.scratch = Vec::new();
            let old = std::mem::replace(&mut self.slots, vec![EMPTY; 2 * n]);
            self.bits += 1;
            self.len = 0;
            for k in old.into_iter().filter(|&k| k != EMPTY) {
                self.put(k);
            }
        }
    }

    /// Empties the set in time proportional to what it held (the table
    /// in use, at most four times that, is wiped; the allocation is kept
    /// for the next search, which starts from a small table again).
    pub fn clear(&mut self) {
        let n = self.table();
        self.slots[..n].fill(EMPTY);
        self.bits = FIRST_SLOTS.trailing_zeros();
        self.len = 0;
    }

    /// The most bytes a set that has held at most `classes` classes takes
    /// at once: its table, kept at most half full, and during its last
    /// growth the table before it.
    pub fn peak_bytes(classes: u64) -> u64 {
        // checked: next_power_of_two wraps to 0 beyond 2^63 in release builds
        let slots = classes.saturating_mul(2).checked_next_power_of_two().unwrap_or(u64::MAX).max(FIRST_SLOTS as u64);
        let slot = std::mem::size_of::<Class>() as u64;
        slots.saturating_mul(slot).saturating_add(slots / 2 * slot)
    }

    /// Bytes of memory held.
    pub fn bytes(&self) -> usize {
        (self.slots.capacity() + self.scratch.capacity()) * std::mem::size_of::<Class>()
    }

    /// Classes held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The same answers as a standard set, through growth (into new
    /// memory in the first round, in place in the later ones) and
    /// clearing, with keys that differ only in one word (which a weak hash
    /// would pile up).
    #[test]
    fn agrees_with_a_standard_set() {
        let mut set = ClassSet::new();
        let mut reference = HashSet::new();
        let mut x = 12345u64;
        let mut first_allocation = None;
        for round in 0..3 {
            for i in 0..60_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let k = match i % 3 {
                    0 => (0x0018_1800_0000 | (x >> 40), x & 0xffff),
                    1 => (0x0018_1800_0000, x >> 20),
                    _ => (x | 1, 0),
                };
                assert_eq!(set.contains(k), reference.contains(&k), "round {round}, {k:?}");
                assert_eq!(set.insert(k), reference.insert(k));
                assert!(set.contains(k));
            }
            assert_eq!(set.len(), reference.len());
            for k in &reference {
                assert!(set.contains(*k));
            }
            // the later rounds grew in the first round's memory
            let at = set.slots.as_ptr();
            assert_eq!(*first_allocation.get_or_insert(at), at, "round {round}");
            set.clear();
            reference.clear();
            assert!(set.is_empty() && !set.contains((0x0018_1800_0000, 1)));
            assert!(set.slots.iter().all(|&k| k == EMPTY), "round {round}: a class left after clearing");
        }
        // a short search after a long one starts from a small table (its
        // questions stay in the cache) and answers right
        for i in 1..=200_000u64 {
            set.insert((i, i));
        }
        set.clear();
        set.insert((7, 7));
        assert_eq!(set.table(), FIRST_SLOTS);
        set.clear();
        assert!(!set.contains((7, 7)) && !set.contains((1, 1)));
        assert!(set.insert((1, 1)) && set.contains((1, 1)) && set.len() == 1);
    }

    /// A set kept from a long search to the next holds no more than
    /// `peak_bytes` of the longest, table and scratch together.
    #[test]
    fn kept_memory_stays_within_the_peak() {
        let mut set = ClassSet::new();
        for n in [100_000u64, 3_000, 60_000, 100_000, 70_000] {
            for i in 1..=n {
                set.insert((i, i ^ n));
            }
            assert!(set.bytes() as u64 <= ClassSet::peak_bytes(100_000), "{n}: {}", set.bytes());
            set.clear();
        }
    }

    /// `peak_bytes` is what a set holds after that many inserts, with the
    /// table before its last growth (exactly, once it has grown).
    #[test]
    fn peak_bytes_bounds_the_table() {
        for n in [0u64, 1, 100, 2048, 2049, 4096, 4097, 100_000, 131_072, 131_073] {
            let mut set = ClassSet::new();
            for i in 1..=n {
                set.insert((i, i));
            }
            let held = set.bytes() as u64;
            assert!(held < ClassSet::peak_bytes(n), "{n}");
            if n > FIRST_SLOTS as u64 / 2 {
                assert_eq!(ClassSet::peak_bytes(n), held + held / 2, "{n}");
            }
        }
    }
}
