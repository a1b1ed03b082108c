//! Expand: parent parts in, the parent layer's counts and child records
//! out. Any process that holds the input parts can expand them; the
//! children go to a [`ShuffleSink`].
//!
//! A reader thread streams the records of the parts to the workers in
//! chunks that never split the two positions of one board (they are
//! neighbours in a part, see [`super::store::to_stored`]), so a worker sees
//! both and counts the board once. Each worker classifies its classes and
//! generates children into a buffer bounded by the memory limit; a full
//! buffer is split by partition, sorted, its duplicates summed, and sent.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::expansion::Expansion;
use super::shapes::{ShapeParts, ShapeTable};
use super::shuffle::ShuffleSink;
use super::store::{PartId, PartReader, Record, RunEncoder, from_stored, partition_of, to_stored};
use super::{LayersError, RunContext};
use crate::board::cpu::{Avx2, CpuLevel, on_cpu};
use crate::board::{Color, Position};
use crate::census::{LayerBy, add_games, games_times};
use crate::formats::framed::FrameError;
use crate::key::dense::{KeyTables, Unpacker, child_image_keys, image_keys, side_weight};
use crate::key::occupancy::{canonical_occupancy, least_image, occupancy_images};
use crate::key::{Keyed, PackedKey, canonical_key};

/// One parent part to expand.
#[derive(Clone, Debug)]
pub struct PartInput {
    /// The file.
    pub path: PathBuf,
    /// What it must be.
    pub id: PartId,
    /// Records the manifest promises.
    pub records: u64,
}

/// Records per chunk handed to a worker (one more when a board's second
/// position follows).
const CHUNK: usize = 1 << 14;

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
struct Children<K> {
    items: Vec<K>,
    big: Vec<Record>,
}

impl<K: PackedKey> Children<K> {
    /// Items of capacity per pair of capacity in `big`: the pairs are
    /// rare where the items are wide (a child reached by 2^27 games on
    /// 8x8), less rare where they are narrow (256 on 6x6).
    const BIG_PER: usize = if K::BYTES >= 16 { 64 } else { 16 };

    /// Bytes a child costs: its item and its share of `big`'s capacity.
    const BYTES_PER_CHILD: usize = K::BYTES + std::mem::size_of::<Record>().div_ceil(Self::BIG_PER);

    /// Free bits below the stored keys of a board of side weight `side` in
    /// an item (stored keys are below `2 * side`).
    const fn payload_bits(side: u128) -> u32 {
        (K::BYTES as u32 * 8) - (128 - (2 * side - 1).leading_zeros())
    }

    fn with_capacity(n: usize) -> Self {
        Children { items: Vec::with_capacity(n), big: Vec::with_capacity((n / Self::BIG_PER).max(1)) }
    }

    /// Whether a buffer may take no more children (none is allocated for
    /// a partition of another slice).
    fn absent(&self) -> bool {
        self.items.capacity() == 0
    }

    /// Whether the next child may not fit.
    fn full(&self) -> bool {
        self.items.len() == self.items.capacity() || self.big.len() == self.big.capacity()
    }

    fn is_empty(&self) -> bool {
        self.items.is_empty() && self.big.is_empty()
    }

    /// Children held (each key as often as it was pushed).
    fn len(&self) -> usize {
        self.items.len() + self.big.len()
    }

    #[inline(always)]
    fn push(&mut self, stored: u128, m: u128, payload: u32) {
        if m >> payload == 0 {
            self.items.push(K::from_u128(stored << payload | m));
        } else {
            self.big.push((stored, m));
        }
    }

    /// Sorts the children, sums the multiplicities of equal keys, encodes
    /// them as a run into `out` (cleared first), and empties the buffer.
    fn drain_sorted(&mut self, payload: u32, out: &mut RunEncoder) {
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
    fn spill(
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
    held: Mutex<Vec<BufferSet<K>>>,
    /// The thread freeing the sets released last, until it is joined.
    freeing: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// One worker's buffers: its children per partition and its run encoder.
type BufferSet<K> = (Vec<Children<K>>, RunEncoder);

impl<K> Default for BufferPool<K> {
    fn default() -> Self {
        BufferPool { held: Mutex::new(Vec::new()), freeing: Mutex::new(None) }
    }
}

impl<K> BufferPool<K> {
    /// Waits until the sets released last are freed.
    fn freed(&self) {
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
    fn take(&self, capacities: &[usize]) -> BufferSet<K> {
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
    fn give(&self, set: BufferSet<K>) {
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

/// Expands `inputs` (parts of one layer), sending children to `sink`
/// unless `generate` is false (the last layer); the workers' buffers come
/// from `pool` and go back to it (the rounds of one expansion share one).
pub fn expand<G: Keyed>(
    ctx: &RunContext<'_>,
    by: LayerBy,
    inputs: &[PartInput],
    generate: bool,
    sink: &dyn ShuffleSink,
    pool: &BufferPool<G::Key>,
) -> Result<Expansion, LayersError> {
    let threads = ctx.settings.threads.max(1);
    let job = Job {
        ctx,
        by,
        inputs,
        generate,
        sink,
        spill_cap: spill_capacity::<G>(ctx.settings.memory_limit, threads),
        shapes: ShapeParts::<G>::new(inputs.iter().map(|i| i.records).collect()),
        failure: Failure::default(),
        pool,
    };
    let (tx, rx) = sync_channel::<(usize, Vec<Record>)>(threads * 2);
    let rx = Mutex::new(rx);
    // Empty chunk buffers go back to the reader instead of being freed.
    let (back_tx, back_rx) = sync_channel::<Vec<Record>>(threads * 2 + 2);
    let ended: Vec<(Expansion, Option<BufferSet<G::Key>>)> = std::thread::scope(|s| {
        let job = &job;
        s.spawn(move || job.read(tx, back_rx));
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (rx, back_tx) = (&rx, back_tx.clone());
                s.spawn(move || job.work(rx, back_tx))
            })
            .collect();
        workers.into_iter().map(|h| h.join().expect("worker panicked")).collect()
    });
    let (mut results, mut sets) = (Vec::with_capacity(threads), Vec::with_capacity(threads));
    for (found, set) in ended {
        results.push(found);
        sets.extend(set);
    }
    if !job.failure.cancelled() {
        match spill_together::<G>(&mut sets, sink, threads) {
            Ok(()) => sets.into_iter().for_each(|set| pool.give(set)),
            Err(e) => job.failure.fail(e),
        }
    }
    let Job { failure, shapes, .. } = job;
    if let Some(e) = failure.first.into_inner().expect("failure lock") {
        return Err(e);
    }
    let mut total = Expansion::default();
    for r in &results {
        total.add(r);
    }
    total.shapes = shapes.finish().map_err(|(part, seen)| LayersError::WorkDir {
        path: inputs[part].path.clone(),
        detail: format!("only {seen} of its {} records were tallied by shape", inputs[part].records),
    })?;
    Ok(total)
}

/// The first error of an expansion's threads; once one is recorded, the
/// others stop at their next chunk.
#[derive(Default)]
struct Failure {
    cancelled: AtomicBool,
    first: Mutex<Option<LayersError>>,
}

impl Failure {
    fn fail(&self, e: LayersError) {
        self.cancelled.store(true, Ordering::SeqCst);
        let mut f = self.first.lock().expect("failure lock");
        if f.is_none() {
            *f = Some(e);
        }
    }

    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// Whether a chunk is cut before record `r`: when it is full, unless `r`
/// is the second position of the board of the chunk's last record (a
/// worker must see both positions of a board to count the board once).
#[inline]
fn cut_before(chunk: &[Record], r: &Record) -> bool {
    let pair = chunk.last().is_some_and(|&(s, _)| s & 1 == 0 && r.0 == s + 1);
    chunk.len() >= CHUNK && !pair
}

/// What the reader and the workers of one expansion share.
struct Job<'a, G: Keyed> {
    ctx: &'a RunContext<'a>,
    by: LayerBy,
    inputs: &'a [PartInput],
    generate: bool,
    sink: &'a dyn ShuffleSink,
    /// Child records a worker buffers before it spills.
    spill_cap: usize,
    shapes: ShapeParts<G>,
    failure: Failure,
    pool: &'a BufferPool<G::Key>,
}

impl<G: Keyed> Job<'_, G> {
    /// The reader: streams the records of every input part, in chunks
    /// (tagged with the part's index), to the workers; checks each part's
    /// record count against the manifest.
    fn read(&self, tx: SyncSender<(usize, Vec<Record>)>, back_rx: Receiver<Vec<Record>>) {
        let fresh = || back_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK + 1));
        for (i, input) in self.inputs.iter().enumerate() {
            let mut reader = match PartReader::open(&input.path, &input.id) {
                Ok(r) => r,
                Err(e) => return self.failure.fail(e.into()),
            };
            let mut chunk = fresh();
            loop {
                if self.failure.cancelled() {
                    return;
                }
                match reader.next_record() {
                    Ok(Some(r)) => {
                        if cut_before(&chunk, &r) && tx.send((i, std::mem::replace(&mut chunk, fresh()))).is_err() {
                            return;
                        }
                        chunk.push(r);
                    }
                    Ok(None) => break,
                    Err(e) => return self.failure.fail(e.into()),
                }
            }
            if reader.count() != input.records {
                return self.failure.fail(LayersError::WorkDir {
                    path: input.path.clone(),
                    detail: format!("holds {} records, the manifest says {}", reader.count(), input.records),
                });
            }
            if !chunk.is_empty() && tx.send((i, chunk)).is_err() {
                return;
            }
        }
    }

    /// A worker: expands the chunks it takes until the reader is done;
    /// returns what it found and its buffers, with the children it holds
    /// (none after a failure).
    fn work(
        &self,
        rx: &Mutex<Receiver<(usize, Vec<Record>)>>,
        back_tx: SyncSender<Vec<Record>>,
    ) -> (Expansion, Option<BufferSet<G::Key>>) {
        let mut w = Worker::<G>::with_pool(self.by, self.generate, self.spill_cap, self.sink, self.pool);
        w.parts = Some(&self.shapes);
        loop {
            let next = rx.lock().expect("channel lock").recv();
            let Ok((part, mut chunk)) = next else { break };
            if self.failure.cancelled() {
                continue; // drain so the reader never blocks
            }
            if self.ctx.stop.load(Ordering::SeqCst) {
                self.failure.fail(LayersError::Interrupted(self.ctx.work_dir.to_path_buf()));
                continue;
            }
            if let Err(e) = w.chunk(&chunk, part, &self.inputs[part].path) {
                self.failure.fail(e);
            }
            self.ctx.live.done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            chunk.clear();
            let _ = back_tx.try_send(chunk);
        }
        w.flush_shapes();
        let (found, set) = w.into_results();
        (found, (!self.failure.cancelled()).then_some(set))
    }
}

/// The last spill of an expansion (or of a round of one): the children
/// the workers still hold, each partition's buffer sorted, summed and sent
/// by all the threads together, the largest first. A worker that spilled
/// its own (up to a buffer of a seventh of the memory limit on 2 threads,
/// seconds of sorting) would leave the others waiting for it.
fn spill_together<G: Keyed>(
    sets: &mut [BufferSet<G::Key>],
    sink: &dyn ShuffleSink,
    threads: usize,
) -> Result<(), LayersError> {
    let mut encoders = Vec::with_capacity(sets.len());
    let mut cells = Vec::new();
    for (split, out) in sets.iter_mut() {
        encoders.push(out);
        cells.extend(split.iter_mut().enumerate().filter(|(_, c)| !c.is_empty()));
    }
    // popped from the end: the largest first
    cells.sort_unstable_by_key(|(_, c)| c.len());
    let queue = Mutex::new(cells);
    std::thread::scope(|s| {
        let spillers: Vec<_> = encoders
            .into_iter()
            .take(threads.max(1))
            .map(|out| {
                let queue = &queue;
                s.spawn(move || -> Result<(), LayersError> {
                    loop {
                        let Some((j, children)) = queue.lock().expect("spill queue lock").pop() else {
                            return Ok(());
                        };
                        if let Err(e) = children.spill(Worker::<G>::PAYLOAD, j, out, sink) {
                            queue.lock().expect("spill queue lock").clear();
                            return Err(e);
                        }
                    }
                })
            })
            .collect();
        spillers.into_iter().try_for_each(|h| h.join().expect("spilling thread panicked"))
    })
}

struct Worker<'a, G: Keyed> {
    by: LayerBy,
    generate: bool,
    /// Child records buffered, over every partition.
    held: usize,
    /// The children, one buffer per partition of the next layer, each
    /// allocated once (spilled before it would grow).
    split: Vec<Children<G::Key>>,
    /// The records of one spilled partition, summed and encoded.
    out: RunEncoder,
    sink: &'a dyn ShuffleSink,
    found: Expansion,
    /// The token of the AVX2 level where this CPU has it: the copy
    /// compiled for it runs then.
    avx2: Option<Avx2>,
    /// The shapes of the part being read, tallied, and where a part's
    /// tally goes (none: the worker counts its own records alone, and its
    /// tally is final when it is flushed).
    shapes: ShapeTable<G>,
    /// The shapes of the chunk being read, and the games reaching each
    /// image of each, until they are added to `shapes`.
    chunk_shapes: Vec<(u64, u128)>,
    shape_part: usize,
    shape_records: u64,
    parts: Option<&'a ShapeParts<G>>,
    /// The images of each square (of its bit) under the four symmetries,
    /// which make a child's occupancy images from its parent's.
    square_images: [[u64; 4]; 64],
    /// The board's key tables (fetched once, not at every child).
    tables: &'static KeyTables<G::Key>,
    /// Unpacks the records, read in key order (with their images' keys
    /// where children are made).
    unpacker: Unpacker<G>,
}

impl<'a, G: Keyed> Worker<'a, G> {
    const SIDE: u128 = side_weight(G::N);
    const PAYLOAD: u32 = Children::<G::Key>::payload_bits(Self::SIDE);

    /// A worker buffering about `cap` children (split evenly, as the hash
    /// spreads them, with 1/8 to spare per partition), in buffers of its own.
    fn new(by: LayerBy, generate: bool, cap: usize, sink: &'a dyn ShuffleSink) -> Self {
        Self::with_pool(by, generate, cap, sink, &BufferPool::default())
    }

    /// [`Worker::new`], with buffers from `pool` where it has them.
    fn with_pool(
        by: LayerBy,
        generate: bool,
        cap: usize,
        sink: &'a dyn ShuffleSink,
        pool: &BufferPool<G::Key>,
    ) -> Self {
        let parts = sink.partitions();
        let kept = (0..parts).filter(|&j| sink.keeps(j)).count().max(1);
        let each = if generate { (cap / kept + cap / kept / 8).max(64) } else { 0 };
        let capacities: Vec<usize> = (0..parts).map(|j| if sink.keeps(j) { each } else { 0 }).collect();
        let (split, out) = pool.take(&capacities);
        Worker {
            by,
            generate,
            held: 0,
            split,
            out,
            sink,
            found: Expansion::default(),
            avx2: CpuLevel::detect().avx2(),
            shapes: ShapeTable::default(),
            chunk_shapes: Vec::new(),
            shape_part: 0,
            shape_records: 0,
            parts: None,
            square_images: std::array::from_fn(|sq| {
                if sq < G::SQUARES as usize { occupancy_images::<G>(1 << sq) } else { [0; 4] }
            }),
            tables: G::key_tables(),
            unpacker: Unpacker::new(),
        }
    }

    /// What it found, and its buffers with the children it still holds
    /// (for [`spill_together`]).
    fn into_results(mut self) -> (Expansion, BufferSet<G::Key>) {
        let set = (std::mem::take(&mut self.split), std::mem::take(&mut self.out));
        (self.found, set)
    }

    /// Hands the tally of the current part on (or counts it, alone).
    fn flush_shapes(&mut self) {
        if self.shape_records == 0 {
            return;
        }
        let table = std::mem::take(&mut self.shapes);
        match self.parts {
            Some(parts) => parts.merge(self.shape_part, table, self.shape_records),
            None => {
                let (n, u) = table.counts();
                self.found.shapes = (self.found.shapes.0 + n, self.found.shapes.1 + u);
            }
        }
        self.shape_records = 0;
    }

    /// Buffers a child of partition `j` (that of its canonical occupancy).
    #[inline]
    fn push(&mut self, key: G::Key, m: u128, j: usize) -> Result<(), LayersError> {
        let stored = to_stored(key.to_u128(), Self::SIDE);
        let part = &mut self.split[j];
        if part.absent() {
            return Ok(()); // a partition of another slice
        }
        part.push(stored, m, Self::PAYLOAD);
        self.held += 1;
        self.found.emitted += 1;
        if part.full() {
            self.spill()?;
        }
        Ok(())
    }

    /// Classifies the parents of `chunk` and generates their children, with
    /// the copy compiled for this CPU: the AVX2 move generator after a
    /// run-time check, the portable one elsewhere (the same counts).
    fn chunk(&mut self, chunk: &[Record], index: usize, part: &std::path::Path) -> Result<(), LayersError> {
        if index != self.shape_part {
            self.flush_shapes();
            self.shape_part = index;
        }
        self.shape_records += chunk.len() as u64;
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = self.avx2 {
            // SAFETY: the token proves the CPU has the AVX2 level.
            return unsafe { chunk_avx2(self, chunk, part) };
        }
        self.chunk_with::<false>(chunk, part)
    }

    /// Classifies each parent of `chunk` (a part's records in key order)
    /// and generates its children.
    #[inline(always)]
    fn chunk_with<const FAST: bool>(&mut self, chunk: &[Record], part: &std::path::Path) -> Result<(), LayersError> {
        self.chunk_shapes.clear();
        for (i, &(stored, m)) in chunk.iter().enumerate() {
            let key = G::Key::from_u128(from_stored(stored, Self::SIDE));
            // a parent's images' keys make its children's (read with its
            // digits); a class of the last layer needs its position only
            // (its own key stands in for the images' keys, never read)
            let unpacked = if self.generate {
                self.unpacker.unpack_with_images(key)
            } else {
                self.unpacker.unpack(key).map(|p| (p, [key; 4]))
            };
            let (p, keys) = unpacked.map_err(|e| {
                LayersError::File(FrameError::Corrupt {
                    path: part.to_path_buf(),
                    kind: "layer file",
                    detail: e.to_string(),
                })
            })?;
            // the second position of a board already counted
            let twin = stored & 1 == 1 && i > 0 && chunk[i - 1].0 == stored - 1;
            let (orbit, shape, occupancy) = self.tally_class(&p, m, twin);
            let (me, opp) = (p.mover().0, p.opponent().0);
            let legal = moves::<G, FAST>(me, opp);
            if legal != 0 {
                let games = games_times(m, legal.count_ones() as u64);
                self.found.entering.games = add_games(self.found.entering.games, games);
                if self.generate {
                    self.children::<FAST>(&p, &keys, m, legal, &occupancy)?;
                }
            } else if moves::<G, FAST>(opp, me) != 0 {
                self.passing(&p, stored, m, orbit, shape)?;
            } else {
                let f = &mut self.found;
                f.counts.terminal_classes += 1;
                f.counts.terminal_positions += orbit;
                f.counts.outcomes.record(p.disc_difference(), orbit);
                if !twin {
                    f.counts.terminal_boards += orbit;
                }
                f.ended = add_games(f.ended, m);
            }
        }
        self.shapes.add_all(&self.chunk_shapes);
        Ok(())
    }

    /// Counts class `p`, reached by `m` games (`twin`: the other position
    /// of its board was counted just before): its positions, boards, games
    /// and shape. Returns the size of its orbit, its canonical occupancy
    /// and the images of its occupancy.
    #[inline(always)]
    fn tally_class(&mut self, p: &Position<G>, m: u128, twin: bool) -> (u64, u64, [u64; 4]) {
        let (me, opp) = (p.mover().0, p.opponent().0);
        // the orbit, on bitboards: a symmetry fixes the position when it
        // fixes its occupancy and the mover's discs
        let occupancy = occupancy_images::<G>(me | opp);
        let movers = if occupancy[1..].contains(&occupancy[0]) { occupancy_images::<G>(me) } else { [0; 4] };
        let fixed = 1 + (1..4).filter(|&s| occupancy[s] == occupancy[0] && movers[s] == me).count() as u32;
        let orbit = crate::symmetry::orbit_size(fixed) as u64;
        let f = &mut self.found;
        f.counts.classes += 1;
        f.counts.positions += orbit;
        if !twin {
            f.counts.boards += orbit;
        }
        f.mass = add_games(f.mass, m);
        // the class's multiplicity is the games reaching any of its
        // positions; the orbit's positions share them equally (orbits of
        // 1, 2 or 4: shifts, not 128-bit divisions)
        assert!(m & (orbit as u128 - 1) == 0, "{m} games do not divide over an orbit of {orbit}");
        f.spread.record(m >> orbit.trailing_zeros(), orbit);
        // the shape: the games reaching each image of the occupancy from
        // this class (its positions spread evenly over the images), tallied
        // after the chunk, with the table's cache lines fetched ahead
        let (shape, images) = least_image(&occupancy);
        assert!(m & (images as u128 - 1) == 0, "{m} games do not divide over {images} shapes");
        self.chunk_shapes.push((shape, m >> images.trailing_zeros()));
        (orbit, shape, occupancy)
    }

    /// Buffers the children of parent `p` (its class's representative,
    /// whose images have the dense keys `keys`, reached by `m` games), one
    /// for each move of `legal`: by discs, a child that must pass is
    /// followed by the same board with the other side to move.
    #[inline(always)]
    fn children<const FAST: bool>(
        &mut self,
        p: &Position<G>,
        keys: &[G::Key; 4],
        m: u128,
        legal: u64,
        occupancy: &[u64; 4],
    ) -> Result<(), LayersError> {
        let (me, opp) = (p.mover().0, p.opponent().0);
        let black = p.side_to_move() == Color::Black;
        // the images' keys give every child's keys by additions
        debug_assert_eq!(*keys, image_keys(p));
        let mut left = legal;
        while left != 0 {
            let sq = left.trailing_zeros();
            left &= left - 1;
            // the partition first, from the occupancy alone: a child of a
            // partition that is not kept costs no more
            // (the images of a union are the unions of the images: the
            // parent's occupancy's and the new square's, from a table)
            let square = &self.square_images[sq as usize];
            let shape = (occupancy[0] | square[0])
                .min(occupancy[1] | square[1])
                .min((occupancy[2] | square[2]).min(occupancy[3] | square[3]));
            debug_assert_eq!(shape, canonical_occupancy::<G>(me | opp | (1u64 << sq)).0);
            let j = partition_of(shape, self.split.len() as u32) as usize;
            if self.split[j].absent() {
                continue;
            }
            let flipped = flips::<G, FAST>(me, opp, sq);
            let ck = child_image_keys(self.tables, p, keys, sq, flipped);
            let canon = ck[0].min(ck[1]).min(ck[2].min(ck[3]));
            debug_assert_eq!(canon, canonical_key(&p.play(sq)));
            self.push(canon, m, j)?;
            let canon = canon.to_u128();
            if self.by == LayerBy::Discs {
                let (c_me, c_opp) = crate::board::movegen::play(me, opp, sq, flipped);
                if moves::<G, FAST>(c_me, c_opp) == 0 && moves::<G, FAST>(c_opp, c_me) != 0 {
                    // the child must pass: the same board with the
                    // parent's side to move again
                    let passed = Self::other_side(canon, !black);
                    debug_assert_eq!(passed, canonical_key(&p.play(sq).pass()).to_u128());
                    self.push(G::Key::from_u128(passed), m, j)?;
                }
            }
        }
        Ok(())
    }

    /// Counts class `p` (stored key `stored`, `m` games, orbit `orbit`,
    /// canonical occupancy `shape`), whose mover must pass; by ply, its
    /// games go on to the next layer through the pass.
    #[inline(always)]
    fn passing(&mut self, p: &Position<G>, stored: u128, m: u128, orbit: u64, shape: u64) -> Result<(), LayersError> {
        let f = &mut self.found;
        f.counts.pass_classes += 1;
        f.counts.pass_positions += orbit;
        if self.by == LayerBy::Ply {
            f.entering.games = add_games(f.entering.games, m);
            f.entering.passes = add_games(f.entering.passes, m);
            if self.generate {
                // every image shifts by the side term alike
                let passed = Self::other_side(from_stored(stored, Self::SIDE), p.side_to_move() == Color::Black);
                debug_assert_eq!(passed, canonical_key(&p.pass()).to_u128());
                self.push(G::Key::from_u128(passed), m, partition_of(shape, self.split.len() as u32) as usize)?;
            }
        }
        Ok(())
    }

    /// The key of the same board with the other side to move: the side
    /// term of a key is `SIDE` (White to move adds it).
    #[inline(always)]
    const fn other_side(k: u128, to_white: bool) -> u128 {
        if to_white { k + Self::SIDE } else { k - Self::SIDE }
    }

    /// Sorts each partition's buffer, sums duplicates, and sends one run
    /// per partition.
    fn spill(&mut self) -> Result<(), LayersError> {
        if self.held == 0 {
            return Ok(());
        }
        for (j, part) in self.split.iter_mut().enumerate() {
            if part.is_empty() {
                continue;
            }
            part.spill(Self::PAYLOAD, j, &mut self.out, self.sink)?;
        }
        self.held = 0;
        Ok(())
    }
}

/// Counts a layer from its records handed over in key order, generating no
/// children: a last layer counted while it is merged, never stored.
pub struct Counter<G: Keyed> {
    worker: Worker<'static, G>,
    chunk: Vec<Record>,
    path: PathBuf,
}

static NO_CHILDREN: super::shuffle::NoChildren = super::shuffle::NoChildren;

/// The moves of `me` against `opp`: in the copy compiled for AVX2
/// (`FAST`), with its instructions.
#[inline(always)]
fn moves<G: Keyed, const FAST: bool>(me: u64, opp: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if FAST {
        // SAFETY: FAST only in the copy compiled for AVX2, called after the
        // run-time check.
        return unsafe { crate::board::movegen::legal_moves_avx2::<G>(me, opp) };
    }
    crate::board::movegen::legal_moves::<G>(me, opp)
}

/// The discs a move of `me` on `sq` flips, as [`moves`] chooses its copy.
#[inline(always)]
fn flips<G: Keyed, const FAST: bool>(me: u64, opp: u64, sq: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if FAST {
        // SAFETY: as in `moves`.
        return unsafe { crate::board::movegen::flips_avx2::<G>(me, opp, sq) };
    }
    crate::board::movegen::flips::<G>(me, opp, sq)
}

on_cpu!(
    avx2,
    /// [`Worker::chunk`] compiled for the AVX2 level (its move generator
    /// inlined with those instructions).
    fn chunk_avx2<G: Keyed>(
        w: &mut Worker<'_, G>,
        chunk: &[Record],
        part: &std::path::Path,
    ) -> Result<(), LayersError> {
        w.chunk_with::<true>(chunk, part)
    }
);

impl<G: Keyed> Counter<G> {
    /// A counter for the records of `path` (named in errors).
    pub fn new(by: LayerBy, path: PathBuf) -> Self {
        Counter { worker: Worker::new(by, false, 0, &NO_CHILDREN), chunk: Vec::with_capacity(CHUNK + 1), path }
    }

    /// Takes the next record (keys strictly increasing).
    pub fn push(&mut self, r: Record) -> Result<(), LayersError> {
        if cut_before(&self.chunk, &r) {
            self.flush()?;
        }
        self.chunk.push(r);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), LayersError> {
        let r = self.worker.chunk(&self.chunk, 0, &self.path);
        self.chunk.clear();
        r
    }

    /// What the records counted to.
    pub fn finish(mut self) -> Result<Expansion, LayersError> {
        self.flush()?;
        self.worker.flush_shapes();
        Ok(self.worker.found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Position};
    use crate::engine::layers::store::EncodedRun;
    use crate::key::canonical_key;
    use crate::key::dense::unpack;

    /// The pool frees the sets of another layout before it allocates
    /// (never two sets a worker), and allocates afresh after a release,
    /// once the release is done (reuse: `pooled_buffers_are_reused_...`).
    #[test]
    fn the_buffer_pool_evicts_and_releases() {
        let pool = BufferPool::<u64>::default();
        let held = |p: &BufferPool<u64>| p.held.lock().unwrap().len();
        let (a, b) = ([10usize, 20], [30usize, 0]);
        let caps = |set: &BufferSet<u64>| set.0.iter().map(|c| c.items.capacity()).collect::<Vec<_>>();
        pool.give(pool.take(&a));
        assert_eq!(held(&pool), 1);
        let other = pool.take(&b);
        assert_eq!(caps(&other), b);
        assert_eq!(held(&pool), 0, "the set of the other layout is freed first");
        pool.give(other);
        pool.release();
        assert_eq!(held(&pool), 0);
        let fresh = pool.take(&b);
        assert_eq!(caps(&fresh), b);
        assert!(pool.freeing.lock().unwrap().is_none(), "the release was waited for");
    }

    proptest::proptest! {
        /// Packed children sum to what a map of the pairs sums to, with
        /// multiplicities on both sides of the payload's limit (those of
        /// 512 and more wait as pairs), in items of either width.
        #[test]
        fn packed_children_sum_like_a_map(pairs in proptest::collection::vec((0u128..50, 1u128..600), 0..256)) {
            fn check<K: PackedKey>(pairs: &[(u128, u128)]) -> Vec<Record> {
                let payload = 9;
                let mut c = Children::<K>::with_capacity(pairs.len());
                for &(k, m) in pairs {
                    c.push(k, m, payload);
                }
                let mut out = RunEncoder::default();
                c.drain_sorted(payload, &mut out);
                assert!(c.is_empty());
                out.run().to_records()
            }
            let mut want = std::collections::BTreeMap::new();
            for &(k, m) in &pairs {
                *want.entry(k).or_insert(0u128) += m;
            }
            let want: Vec<Record> = want.into_iter().collect();
            proptest::prop_assert_eq!(&check::<u64>(&pairs), &want);
            proptest::prop_assert_eq!(&check::<u128>(&pairs), &want);
        }
    }

    #[test]
    fn payloads_leave_room_for_every_stored_key() {
        // 8x8: keys of 101 bits in u128, 27 free; 6x6: 56 in u64, 8 free;
        // 4x4: 25 in u32, 7 free
        fn check<G: Keyed>(free: u32) {
            let p = Children::<G::Key>::payload_bits(side_weight(G::N));
            assert_eq!(p, free);
            let largest = 2 * side_weight(G::N) - 1;
            assert!((largest << p | ((1 << p) - 1)) >> p == largest);
            assert!((largest << p) >> (8 * <G::Key as PackedKey>::BYTES as u32 - 1) == 1, "no bit to spare above");
        }
        check::<B8>(27);
        check::<B6>(8);
        check::<B4>(7);
    }

    /// A buffer is full when its pairs are, and spills: a worker whose
    /// children all have large multiplicities sends the same records as
    /// one whose children fit the items.
    #[test]
    fn large_multiplicities_spill_and_count_alike() {
        let records = layer::<B6>(6);
        let heavy: Vec<Record> = records.iter().map(|&(k, _)| (k, 12 << 20)).collect();
        for (input, m) in [(&records, 12u128), (&heavy, 12 << 20)] {
            let sink = Collect(Mutex::new(Vec::new()));
            let mut w = Worker::<B6>::new(LayerBy::Ply, true, 1 << 10, &sink);
            w.chunk(input, 0, std::path::Path::new("test")).unwrap();
            w.spill().unwrap();
            let mut sums = std::collections::BTreeMap::new();
            for (j, run) in sink.0.into_inner().unwrap() {
                for (k, n) in run {
                    *sums.entry((j, k)).or_insert(0u128) += n;
                }
            }
            let scaled: Vec<_> = sums.into_iter().map(|(jk, n)| (jk, n / m)).collect();
            let sink = Collect(Mutex::new(Vec::new()));
            let mut w = Worker::<B6>::new(LayerBy::Ply, true, 1 << 20, &sink);
            w.chunk(&records, 0, std::path::Path::new("test")).unwrap();
            w.spill().unwrap();
            let mut once = std::collections::BTreeMap::new();
            for (j, run) in sink.0.into_inner().unwrap() {
                for (k, n) in run {
                    *once.entry((j, k)).or_insert(0u128) += n;
                }
            }
            let once: Vec<_> = once.into_iter().map(|(jk, n)| (jk, n / 12)).collect();
            assert_eq!(scaled, once);
        }
    }

    /// Collects what a worker sends, partition by partition.
    struct Collect(Mutex<Vec<(u32, Vec<Record>)>>);

    impl ShuffleSink for Collect {
        fn partitions(&self) -> u32 {
            3
        }
        fn send(&self, partition: u32, run: EncodedRun<'_>) -> Result<(), LayersError> {
            self.0.lock().unwrap().push((partition, run.to_records()));
            Ok(())
        }
    }

    /// The classes of the first plies as stored records, in key order.
    fn layer<G: Keyed>(plies: u32) -> Vec<Record> {
        let mut ps = vec![Position::<G>::start()];
        let mut all = Vec::new();
        for _ in 0..plies {
            ps = ps.iter().flat_map(|p| p.children()).collect();
            all.extend(ps.iter().map(|p| to_stored(canonical_key(p).to_u128(), side_weight(G::N))));
        }
        all.sort_unstable();
        all.dedup();
        all.into_iter().map(|s| (s, 12)).collect()
    }

    /// The workers' last children spilled by several threads together are
    /// the runs each worker would have sent alone (in another order), from
    /// buffers that spilled before (small ones) and that did not.
    #[test]
    fn spilling_together_sends_what_each_worker_would() {
        let records = layer::<B6>(7);
        let halves = records.split_at(records.len() / 2);
        for cap in [1 << 8, 1 << 20] {
            let alone = Collect(Mutex::new(Vec::new()));
            let together = Collect(Mutex::new(Vec::new()));
            let mut sets = Vec::new();
            for part in [halves.0, halves.1] {
                let mut w = Worker::<B6>::new(LayerBy::Discs, true, cap, &alone);
                w.chunk(part, 0, std::path::Path::new("test")).unwrap();
                w.spill().unwrap();
                let mut w = Worker::<B6>::new(LayerBy::Discs, true, cap, &together);
                w.chunk(part, 0, std::path::Path::new("test")).unwrap();
                sets.push(w.into_results().1);
            }
            spill_together::<B6>(&mut sets, &together, 3).unwrap();
            assert!(sets.iter().all(|(split, _)| split.iter().all(|c| c.is_empty())), "every buffer spilled");
            let (mut a, mut t) = (alone.0.into_inner().unwrap(), together.0.into_inner().unwrap());
            assert!(!a.is_empty());
            a.sort();
            t.sort();
            assert_eq!(a, t);
        }
    }

    /// Rounds through one pool: the second round's worker takes the first's
    /// buffers (the same allocation), and each round counts and sends what
    /// a worker with buffers of its own does.
    #[test]
    fn pooled_buffers_are_reused_and_count_alike() {
        let records = layer::<B6>(6);
        let (first, second) = records.split_at(records.len() / 2);
        let pool = BufferPool::<u64>::default();
        let mut reused = Vec::new();
        for round in [first, second] {
            let run = |pool: Option<&BufferPool<u64>>| {
                let sink = Collect(Mutex::new(Vec::new()));
                let fresh = BufferPool::default();
                let mut w = Worker::<B6>::with_pool(LayerBy::Ply, true, 1 << 12, &sink, pool.unwrap_or(&fresh));
                let at = w.split.iter().map(|c| c.items.as_ptr() as usize).collect::<Vec<_>>();
                w.chunk(round, 0, std::path::Path::new("test")).unwrap();
                let (found, mut set) = w.into_results();
                spill_together::<B6>(std::slice::from_mut(&mut set), &sink, 1).unwrap();
                pool.unwrap_or(&fresh).give(set);
                (format!("{found:?}"), sink.0.into_inner().unwrap(), at)
            };
            let (found, sent, at) = run(Some(&pool));
            let own = run(None);
            assert!(!sent.is_empty());
            assert_eq!((&found, &sent), (&own.0, &own.1));
            reused.push(at);
        }
        assert_eq!(reused[0], reused[1], "the second round reuses the first round's buffers");
        assert_eq!(pool.held.lock().unwrap().len(), 1);
    }

    /// The portable copy and the AVX2 copy (where the CPU has it) count the
    /// same and send the same children, by discs and by ply; both equal
    /// children packed one by one.
    #[test]
    fn both_copies_count_and_send_the_same() {
        fn check<G: Keyed>(plies: u32) {
            let records = layer::<G>(plies);
            for by in [LayerBy::Discs, LayerBy::Ply] {
                let run = |avx2: Option<Avx2>| {
                    let sink = Collect(Mutex::new(Vec::new()));
                    let mut w = Worker::<G>::new(by, true, 1 << 20, &sink);
                    w.avx2 = avx2;
                    w.chunk(&records, 0, std::path::Path::new("test")).unwrap();
                    w.spill().unwrap();
                    let found = format!("{:?}", w.found);
                    (found, sink.0.into_inner().unwrap())
                };
                let portable = run(None);
                // children packed one by one, with the worker's multiplicity
                let mut want: Vec<u128> = Vec::new();
                for &(s, _) in &records {
                    let p = unpack::<G>(G::Key::from_u128(from_stored(s, side_weight(G::N)))).unwrap();
                    for c in p.children() {
                        want.push(to_stored(canonical_key(&c).to_u128(), side_weight(G::N)));
                        if by == LayerBy::Discs && c.legal_moves().is_empty() && c.opponent_can_move() {
                            want.push(to_stored(canonical_key(&c.pass()).to_u128(), side_weight(G::N)));
                        }
                        if by == LayerBy::Discs && p.legal_moves().is_empty() {
                            want.pop(); // a pass stays in its layer by discs
                        }
                    }
                }
                want.sort_unstable();
                want.dedup();
                let mut sent: Vec<u128> = portable.1.iter().flat_map(|(_, r)| r.iter().map(|x| x.0)).collect();
                sent.sort_unstable();
                assert_eq!(sent, want, "{} by {by:?}", G::N);
                for level in CpuLevel::for_tests("the expansion test") {
                    if let Some(avx2) = level.avx2() {
                        assert_eq!(run(Some(avx2)), portable, "{} by {by:?}, {level}", G::N);
                    }
                }
            }
        }
        check::<B4>(9);
        check::<B6>(6);
        check::<B8>(6);
    }
}
