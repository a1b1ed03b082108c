//! The workers' child buffers: one per partition of the next layer,
//! packed, sorted and summed when it spills; and the pool that keeps them
//! from one expansion to the next.

use std::sync::Mutex;

use crate::census::add_games;
use crate::engine::layers::LayersError;
use crate::engine::layers::shuffle::ShuffleSink;
use crate::engine::layers::store::{Record, RunEncoder};
use crate::key::{Keyed, PackedKey};

/// Bytes a worker's buffer spends per child record of board `G` (see
/// [`Children`]): 6 on 4x4, 10 on 6x6, 17 on 8x8.
pub const fn buffer_bytes_per_record<G: Keyed>() -> u64 {
    Children::<G::Key>::BYTES_PER_CHILD as u64
}

/// A worker's children of one partition of the next layer. A child whose
/// multiplicity fits the bits that the board's largest stored key leaves
/// free in the board's key type (u32 on 4x4: 7 bits; u64 on 6x6: 8; u128
/// on 8x8: 27) is packed in one item of that type: the stored key in the
/// high bits, the multiplicity below, so that sorting the items sorts by
/// key at the narrowest width. A child of a larger multiplicity waits as
/// a (key, multiplicity) pair in `big`, which has room for one child in
/// `BIG_PER` of the items' capacity; the buffer spills when either is
/// full.
pub(super) struct Children<K> {
    pub(super) items: Vec<K>,
    pub(super) big: Vec<Record>,
}

impl<K: PackedKey> Children<K> {
    /// Items of capacity per pair of capacity in `big`: the pairs are
    /// rare where the items are wide (a child reached by 2^27 games on
    /// 8x8), less rare where they are narrow (256 on 6x6).
    pub(super) const BIG_PER: usize = if K::BYTES >= 16 { 64 } else { 16 };

    /// Bytes a child costs: its item and its share of `big`'s capacity.
    pub(super) const BYTES_PER_CHILD: usize = K::BYTES + std::mem::size_of::<Record>().div_ceil(Self::BIG_PER);

    /// Free bits below the stored keys of a board of side weight `side` in
    /// an item (stored keys are below `2 * side`).
    pub(super) const fn payload_bits(side: u128) -> u32 {
        (K::BYTES as u32 * 8) - (128 - (2 * side - 1).leading_zeros())
    }

    pub(super) fn with_capacity(n: usize) -> Self {
        Children { items: Vec::with_capacity(n), big: Vec::with_capacity((n / Self::BIG_PER).max(1)) }
    }

    /// Whether a buffer may take no more children (none is allocated for
    /// a partition of another slice).
    pub(super) fn absent(&self) -> bool {
        self.items.capacity() == 0
    }

    /// Whether the next child may not fit.
    pub(super) fn full(&self) -> bool {
        self.items.len() == self.items.capacity() || self.big.len() == self.big.capacity()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.items.is_empty() && self.big.is_empty()
    }

    /// Children held (each key as often as it was pushed).
    pub(super) fn len(&self) -> usize {
        self.items.len() + self.big.len()
    }

    #[inline(always)]
    pub(super) fn push(&mut self, stored: u128, m: u128, payload: u32) {
        if m >> payload == 0 {
            self.items.push(K::from_u128(stored << payload | m));
        } else {
            self.big.push((stored, m));
        }
    }

    /// Sorts the children, sums the multiplicities of equal keys, encodes
    /// them as a run into `out` (cleared first), and empties the buffer.
    pub(super) fn drain_sorted(&mut self, payload: u32, out: &mut RunEncoder) {
        out.clear();
        self.items.sort_unstable();
        let low = (1u128 << payload) - 1;
        let unpacked = self.items.iter().map(|&x| {
            let x = x.to_u128();
            (x >> payload, x & low)
        });
        if self.big.is_empty() {
            sum_sorted(unpacked, out);
        } else {
            self.big.sort_unstable_by_key(|&(k, _)| k);
            sum_sorted(MergeSorted::new(unpacked, self.big.iter().copied()), out);
        }
        self.items.clear();
        self.big.clear();
    }

    /// Sorts and sums the children (of partition `j`), and sends them to
    /// `sink` as one run, encoded in `out`.
    pub(super) fn spill(
        &mut self,
        payload: u32,
        j: usize,
        out: &mut RunEncoder,
        sink: &dyn ShuffleSink,
    ) -> Result<(), LayersError> {
        self.drain_sorted(payload, out);
        sink.send(j as u32, out.run())
    }
}

/// Encodes records handed over in key order (equal keys together) into
/// `out`, each key once, its multiplicities summed.
#[inline(always)]
fn sum_sorted(records: impl Iterator<Item = Record>, out: &mut RunEncoder) {
    let mut records = records;
    let Some((mut key, mut m)) = records.next() else { return };
    for (k, n) in records {
        if k == key {
            m = add_games(m, n);
        } else {
            out.push(key, m);
            (key, m) = (k, n);
        }
    }
    out.push(key, m);
}

/// Two iterators of records in key order, merged in key order.
struct MergeSorted<A: Iterator<Item = Record>, B: Iterator<Item = Record>> {
    a: std::iter::Peekable<A>,
    b: std::iter::Peekable<B>,
}

impl<A: Iterator<Item = Record>, B: Iterator<Item = Record>> MergeSorted<A, B> {
    fn new(a: A, b: B) -> Self {
        MergeSorted { a: a.peekable(), b: b.peekable() }
    }
}

impl<A: Iterator<Item = Record>, B: Iterator<Item = Record>> Iterator for MergeSorted<A, B> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        match (self.a.peek(), self.b.peek()) {
            (Some(x), Some(y)) if y.0 < x.0 => self.b.next(),
            (Some(_), _) => self.a.next(),
            (None, _) => self.b.next(),
        }
    }
}

/// The workers' child buffers, kept from one expansion (or round of one)
/// for the next. A buffer is allocated once and spilled before it would
/// grow, but a worker's buffers are freed when it ends, and the kernel
/// hands fresh pages out cleared, one fault a page (7.7% of an 8x8 a(12)
/// run on one thread, `clear_page_erms` under `Worker::push`), and takes
/// them back in one thread (the driver's, while every worker waits: 4 s
/// of a 16-thread a(13) between its last expansion and its count). In one
/// process the driver keeps one pool for all its expansions and frees it
/// behind the last ([`BufferPool::release`]); over ranks each round has
/// its own, since a round's children wait in messages for the exchange.
///
/// The pool never holds more than one set of buffers per worker: a set of
/// another layout (another slice's partitions) is freed before a new one
/// is allocated, and a release is finished first.
pub struct BufferPool<K> {
    pub(super) held: Mutex<Vec<BufferSet<K>>>,
    /// The thread freeing the sets released last, until it is joined.
    pub(super) freeing: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// One worker's buffers: its children per partition and its run encoder.
pub(super) type BufferSet<K> = (Vec<Children<K>>, RunEncoder);

impl<K> Default for BufferPool<K> {
    fn default() -> Self {
        BufferPool { held: Mutex::new(Vec::new()), freeing: Mutex::new(None) }
    }
}

impl<K> BufferPool<K> {
    /// Waits until the sets released last are freed.
    pub(super) fn freed(&self) {
        if let Some(h) = self.freeing.lock().expect("buffer pool lock").take() {
            h.join().expect("the thread freeing buffers panicked");
        }
    }
}

impl<K: PackedKey> BufferPool<K> {
    /// A worker's buffers of `capacities` (one per partition), taken from
    /// the pool where a set of that layout is there (emptied by its last
    /// spill), or else allocated (once the sets of other layouts and any
    /// release are freed).
    pub(super) fn take(&self, capacities: &[usize]) -> BufferSet<K> {
        let mut held = self.held.lock().expect("buffer pool lock");
        let fits = |(split, _): &BufferSet<K>| {
            split.len() == capacities.len() && split.iter().zip(capacities).all(|(c, &n)| c.items.capacity() == n)
        };
        if let Some(i) = held.iter().position(fits) {
            return held.swap_remove(i);
        }
        // none fits: the sets held are of another layout
        held.clear();
        drop(held);
        self.freed();
        (capacities.iter().map(|&n| Children::with_capacity(n)).collect(), RunEncoder::default())
    }

    /// Returns a worker's buffers, empty.
    pub(super) fn give(&self, set: BufferSet<K>) {
        debug_assert!(set.0.iter().all(|c| c.is_empty()));
        self.held.lock().expect("buffer pool lock").push(set);
    }
}

impl<K: Send + 'static> BufferPool<K> {
    /// Frees the sets held, in a thread of its own, so that what follows
    /// (the count of a last layer) need not wait for the kernel to take
    /// the pages back; the next [`BufferPool::take`] that allocates, and
    /// the pool's drop, wait for it.
    pub fn release(&self) {
        let sets = std::mem::take(&mut *self.held.lock().expect("buffer pool lock"));
        if sets.is_empty() {
            return;
        }
        self.freed();
        let h = std::thread::Builder::new().name("free-buffers".into()).spawn(move || drop(sets));
        // no thread to be had: free them here
        if let Ok(h) = h {
            *self.freeing.lock().expect("buffer pool lock") = Some(h);
        }
    }
}

impl<K> Drop for BufferPool<K> {
    fn drop(&mut self) {
        self.freed();
    }
}

/// Share of the memory limit given to the workers' child buffers; the rest
/// covers the chunks in flight and the merges of compacting buckets.
pub const BUFFER_SHARE: f64 = 0.7;

/// Child records one worker buffers before it spills: the workers share
/// [`BUFFER_SHARE`] of `memory_limit` (0.79 with the spare eighth of each
/// partition's buffer). The larger the buffer, the more
/// duplicate children are summed before they reach the disk.
pub fn spill_capacity<G: Keyed>(memory_limit: u64, threads: usize) -> usize {
    let bytes = memory_limit as f64 * BUFFER_SHARE / threads.max(1) as f64;
    ((bytes / buffer_bytes_per_record::<G>() as f64) as u64).max(1 << 10) as usize
}
