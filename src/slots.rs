//! Large arrays of atomic slots shared by threads, for the transposition
//! tables of `perft` and `solve`: zeroed memory of their own, asked for in
//! huge pages where the system has them (a table probed at random spends
//! much of its time translating addresses), and given back whole.
//!
//! On Linux the memory is an anonymous mapping: pages appear when first
//! touched, so a table larger than a run needs costs address space, not
//! memory. Elsewhere it comes zeroed from the allocator.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering, fence};

/// A type for which all-zero bytes are a valid value, and which threads
/// may share by reference (atomics).
///
/// # Safety
///
/// All-zero bytes must be a valid value of the type, and `&T` must be
/// safe to share between threads. The slots are given back without being
/// dropped, so the type must need no drop (checked when slots are made).
pub unsafe trait Zeroable: Sync {}

/// A cache line of eight atomic words: the slot of the tables.
#[repr(C, align(64))]
pub struct Line(pub [AtomicU64; 8]);

// SAFETY: zero is a valid atomic integer, and atomics are Sync.
unsafe impl Zeroable for Line {}

/// A fixed array of `T`, all zero at first.
pub struct Slots<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    mapping: Mapping,
}

/// Where the memory came from, to give it back.
enum Mapping {
    #[cfg(target_os = "linux")]
    Mmap { base: *mut libc::c_void, len: usize },
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    Heap(Layout),
}

// SAFETY: the memory is owned; the slots are Zeroable, so Sync.
unsafe impl<T: Zeroable> Send for Slots<T> {}
// SAFETY: as above: the slots are only handed out as shared references.
unsafe impl<T: Zeroable> Sync for Slots<T> {}

impl<T: Zeroable> Slots<T> {
    /// `len` (at least 1) zeroed slots.
    pub fn new(len: usize) -> Slots<T> {
        const { assert!(!std::mem::needs_drop::<T>(), "slots are never dropped one by one") };
        let len = len.max(1);
        let layout = Layout::array::<T>(len).expect("table size");
        assert!(layout.size() > 0, "slots of no size");
        #[cfg(target_os = "linux")]
        {
            const HUGE: usize = 2 << 20;
            let map_len = layout.size() + HUGE.max(layout.align());
            // SAFETY: a fresh private anonymous mapping, checked below.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    map_len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base != libc::MAP_FAILED {
                // the slots start at the first huge-page boundary inside
                let start = (base as usize).next_multiple_of(HUGE.max(layout.align()));
                // SAFETY: advice on memory this array owns; a refusal changes nothing.
                unsafe { libc::madvise(start as *mut libc::c_void, layout.size(), libc::MADV_HUGEPAGE) };
                let ptr = NonNull::new(start as *mut T).expect("a mapping is not at address 0");
                return Slots { ptr, len, mapping: Mapping::Mmap { base, len: map_len } };
            }
        }
        // SAFETY: the layout is not empty (checked above).
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout);
        };
        Slots { ptr, len, mapping: Mapping::Heap(layout) }
    }

    /// The number of slots.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no slots (never: there is at least one).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes the slots span.
    pub fn bytes(&self) -> u64 {
        (self.len * size_of::<T>()) as u64
    }

    /// Slot `i`; `i` must be below [`Self::len`].
    #[inline(always)]
    pub fn get(&self, i: usize) -> &T {
        assert!(i < self.len, "slot {i} of {}", self.len);
        // SAFETY: in bounds (checked); the memory is zeroed or written
        // through shared references only, and zero is a valid T.
        unsafe { &*self.ptr.as_ptr().add(i) }
    }
}

impl<T: Zeroable> Drop for Slots<T> {
    fn drop(&mut self) {
        match self.mapping {
            #[cfg(target_os = "linux")]
            // SAFETY: mapped in `new` with this base and length.
            Mapping::Mmap { base, len } => unsafe {
                libc::munmap(base, len);
            },
            // SAFETY: allocated in `new` with this layout.
            Mapping::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
        }
    }
}

/// Reads a record guarded by a sequence number (a seqlock) from words
/// `w[0..=N]`: `w[0]` holds a tag in its low `tag_bits` bits and the
/// sequence number above them (odd while a writer fills the record),
/// `w[1..=N]` the record. `None` when a writer holds the record or changed
/// it during the read, so what is returned was never torn: it is the tag
/// and the record as one writer wrote them (or zeros, never written).
#[inline(always)]
pub fn read_record<const N: usize>(w: &[AtomicU64], tag_bits: u32) -> Option<(u64, [u64; N])> {
    let head = w[0].load(Ordering::Acquire);
    if (head >> tag_bits) & 1 == 1 {
        return None;
    }
    let data = std::array::from_fn(|i| w[1 + i].load(Ordering::Relaxed));
    fence(Ordering::Acquire);
    if w[0].load(Ordering::Relaxed) != head {
        return None;
    }
    Some((head & ((1 << tag_bits) - 1), data))
}

/// Writes a record read by [`read_record`]: `tag` (below `1 << tag_bits`)
/// and `data`. Gives up (returns false) when another writer holds it.
#[inline(always)]
pub fn write_record(w: &[AtomicU64], tag_bits: u32, tag: u64, data: &[u64]) -> bool {
    let head = w[0].load(Ordering::Relaxed);
    if (head >> tag_bits) & 1 == 1 {
        return false;
    }
    let seq = head >> tag_bits;
    let writing = ((seq + 1) << tag_bits) | (head & ((1 << tag_bits) - 1));
    if w[0].compare_exchange(head, writing, Ordering::Relaxed, Ordering::Relaxed).is_err() {
        return false;
    }
    fence(Ordering::Release);
    for (word, &d) in w[1..].iter().zip(data) {
        word.store(d, Ordering::Relaxed);
    }
    w[0].store(((seq + 2) << tag_bits) | tag, Ordering::Release);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn slots_start_zero_and_keep_what_is_written() {
        let s = Slots::<Line>::new(100_000);
        assert_eq!(s.len(), 100_000);
        assert_eq!(s.bytes(), 6_400_000);
        assert!((0..s.len()).step_by(997).all(|i| s.get(i).0.iter().all(|w| w.load(Ordering::Relaxed) == 0)));
        s.get(99_999).0[7].store(42, Ordering::Relaxed);
        assert_eq!(s.get(99_999).0[7].load(Ordering::Relaxed), 42);
        assert_eq!(Slots::<Line>::new(0).len(), 1);
    }
}
