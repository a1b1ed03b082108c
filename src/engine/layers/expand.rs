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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};

use super::shuffle::ShuffleSink;
use super::store::{Entering, PartId, PartReader, Record, from_stored, partition_of, to_stored};
use super::{LayersError, RunContext};
use crate::board::Status;
use crate::census::{Counts, LayerBy, add_games};
use crate::framed::FrameError;
use crate::key::dense::{side_weight, unpack};
use crate::key::{Keyed, PackedKey, canonical_and_orbit, canonical_key};

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

/// What an expansion found.
#[derive(Clone, Debug, Default)]
pub struct Expansion {
    /// Counts of the parent classes.
    pub counts: Counts,
    /// Games that end in the parent layer.
    pub ended: u128,
    /// Games entering the next layer.
    pub entering: Entering,
    /// Sum of the parents' multiplicities (the games reaching the layer).
    pub mass: u128,
    /// Child records generated (before merging).
    pub emitted: u64,
}

impl Expansion {
    /// Adds the findings of another expansion (another worker or process).
    pub fn add(&mut self, o: &Expansion) {
        self.counts.add(&o.counts);
        self.ended = add_games(self.ended, o.ended);
        self.entering.games = add_games(self.entering.games, o.entering.games);
        self.entering.passes = add_games(self.entering.passes, o.entering.passes);
        self.mass = add_games(self.mass, o.mass);
        self.emitted += o.emitted;
    }
}

/// Records per chunk handed to a worker (one more when a board's second
/// position follows).
const CHUNK: usize = 1 << 14;

/// Bytes a worker's buffer spends per child record.
pub const BUFFER_BYTES_PER_RECORD: u64 = std::mem::size_of::<Record>() as u64;

/// Share of the memory limit given to the workers' child buffers; the rest
/// covers the chunks in flight and the merges of compacting buckets.
pub const BUFFER_SHARE: f64 = 0.7;

/// Child records one worker buffers before it spills: the workers share
/// [`BUFFER_SHARE`] of `memory_limit` (0.79 with the spare eighth of each
/// partition's buffer). The larger the buffer, the more
/// duplicate children are summed before they reach the disk.
pub fn spill_capacity(memory_limit: u64, threads: usize) -> usize {
    let bytes = memory_limit as f64 * BUFFER_SHARE / threads.max(1) as f64;
    ((bytes / BUFFER_BYTES_PER_RECORD as f64) as u64).max(1 << 10) as usize
}

/// Expands `inputs` (parts of one layer), sending children to `sink`
/// unless `generate` is false (the last layer).
pub fn expand<G: Keyed>(
    ctx: &RunContext<'_>,
    by: LayerBy,
    inputs: &[PartInput],
    generate: bool,
    sink: &dyn ShuffleSink,
) -> Result<Expansion, LayersError> {
    let threads = ctx.settings.threads.max(1);
    let spill_cap = spill_capacity(ctx.settings.memory_limit, threads);
    let (tx, rx) = sync_channel::<(usize, Vec<Record>)>(threads * 2);
    let rx = Arc::new(Mutex::new(rx));
    // Empty chunk buffers go back to the reader instead of being freed.
    let (back_tx, back_rx) = sync_channel::<Vec<Record>>(threads * 2 + 2);
    let failure: Mutex<Option<LayersError>> = Mutex::new(None);
    let cancelled = AtomicBool::new(false);
    let fail = |e: LayersError| {
        cancelled.store(true, Ordering::SeqCst);
        let mut f = failure.lock().expect("failure lock");
        if f.is_none() {
            *f = Some(e);
        }
    };
    let results: Vec<Expansion> = std::thread::scope(|s| {
        let (fail, cancelled) = (&fail, &cancelled);
        s.spawn(move || {
            let fresh = || back_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK + 1));
            for (i, input) in inputs.iter().enumerate() {
                let mut reader = match PartReader::open(&input.path, &input.id) {
                    Ok(r) => r,
                    Err(e) => return fail(e.into()),
                };
                let mut chunk = fresh();
                loop {
                    if cancelled.load(Ordering::Relaxed) {
                        return;
                    }
                    match reader.next_record() {
                        Ok(Some(r)) => {
                            // cut before `r` unless it is the second position of
                            // the last record's board
                            let pair = chunk.last().is_some_and(|&(s, _)| s & 1 == 0 && r.0 == s + 1);
                            if chunk.len() >= CHUNK
                                && !pair
                                && tx.send((i, std::mem::replace(&mut chunk, fresh()))).is_err()
                            {
                                return;
                            }
                            chunk.push(r);
                        }
                        Ok(None) => break,
                        Err(e) => return fail(e.into()),
                    }
                }
                if reader.count() != input.records {
                    return fail(LayersError::WorkDir {
                        path: input.path.clone(),
                        detail: format!("holds {} records, the manifest says {}", reader.count(), input.records),
                    });
                }
                if !chunk.is_empty() && tx.send((i, chunk)).is_err() {
                    return;
                }
            }
        });
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let rx = Arc::clone(&rx);
                let back_tx = back_tx.clone();
                s.spawn(move || {
                    let mut w = Worker::<G>::new(by, generate, spill_cap, sink);
                    loop {
                        let next = rx.lock().expect("channel lock").recv();
                        let Ok((part, mut chunk)) = next else { break };
                        if cancelled.load(Ordering::Relaxed) {
                            continue; // drain so the reader never blocks
                        }
                        if ctx.stop.load(Ordering::SeqCst) {
                            fail(LayersError::Interrupted(ctx.work_dir.to_path_buf()));
                            continue;
                        }
                        if let Err(e) = w.chunk(&chunk, &inputs[part].path) {
                            fail(e);
                        }
                        ctx.live.done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                        chunk.clear();
                        let _ = back_tx.try_send(chunk);
                    }
                    if !cancelled.load(Ordering::Relaxed)
                        && let Err(e) = w.spill()
                    {
                        fail(e);
                    }
                    w.found
                })
            })
            .collect();
        workers.into_iter().map(|h| h.join().expect("worker panicked")).collect()
    });
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e);
    }
    let mut total = Expansion::default();
    for r in &results {
        total.add(r);
    }
    Ok(total)
}

struct Worker<'a, G: Keyed> {
    by: LayerBy,
    generate: bool,
    /// Child records buffered, over every partition.
    held: usize,
    /// The children, one buffer per partition of the next layer, each
    /// allocated once (spilled before it would grow).
    split: Vec<Vec<Record>>,
    sink: &'a dyn ShuffleSink,
    found: Expansion,
    geometry: std::marker::PhantomData<G>,
}

impl<'a, G: Keyed> Worker<'a, G> {
    const SIDE: u128 = side_weight(G::N);

    /// A worker buffering about `cap` children (split evenly, as the hash
    /// spreads them, with 1/8 to spare per partition).
    fn new(by: LayerBy, generate: bool, cap: usize, sink: &'a dyn ShuffleSink) -> Self {
        let parts = sink.partitions() as usize;
        let each = if generate { (cap / parts + cap / parts / 8).max(64) } else { 0 };
        Worker {
            by,
            generate,
            held: 0,
            split: (0..parts).map(|_| Vec::with_capacity(each)).collect(),
            sink,
            found: Expansion::default(),
            geometry: std::marker::PhantomData,
        }
    }

    #[inline]
    fn push(&mut self, key: G::Key, m: u128) -> Result<(), LayersError> {
        let stored = to_stored(key.to_u128(), Self::SIDE);
        let j = partition_of(stored, self.split.len() as u32) as usize;
        let part = &mut self.split[j];
        part.push((stored, m));
        self.held += 1;
        self.found.emitted += 1;
        if part.len() == part.capacity() {
            self.spill()?;
        }
        Ok(())
    }

    fn chunk(&mut self, chunk: &[Record], part: &std::path::Path) -> Result<(), LayersError> {
        for (i, &(stored, m)) in chunk.iter().enumerate() {
            let p = unpack::<G>(G::Key::from_u128(from_stored(stored, Self::SIDE))).map_err(|e| {
                LayersError::File(FrameError::Corrupt {
                    path: part.to_path_buf(),
                    kind: "layer file",
                    detail: e.to_string(),
                })
            })?;
            // the second position of a board already counted
            let twin = stored & 1 == 1 && i > 0 && chunk[i - 1].0 == stored - 1;
            let (_, orbit) = canonical_and_orbit(&p);
            let orbit = orbit as u64;
            let f = &mut self.found;
            f.counts.classes += 1;
            f.counts.positions += orbit;
            if !twin {
                f.counts.boards += orbit;
            }
            f.mass = add_games(f.mass, m);
            match p.status() {
                Status::Moves(moves) => {
                    let n = moves.count() as u128;
                    let games = m.checked_mul(n).expect("game count overflow (more than 2^128 games)");
                    f.entering.games = add_games(f.entering.games, games);
                    if self.generate {
                        for sq in moves {
                            let c = p.play(sq);
                            self.push(canonical_key(&c), m)?;
                            if self.by == LayerBy::Discs && c.legal_moves().is_empty() && c.opponent_can_move() {
                                self.push(canonical_key(&c.pass()), m)?;
                            }
                        }
                    }
                }
                Status::Pass => {
                    f.counts.pass_classes += 1;
                    f.counts.pass_positions += orbit;
                    if self.by == LayerBy::Ply {
                        f.entering.games = add_games(f.entering.games, m);
                        f.entering.passes = add_games(f.entering.passes, m);
                        if self.generate {
                            self.push(canonical_key(&p.pass()), m)?;
                        }
                    }
                }
                Status::Terminal => {
                    f.counts.terminal_classes += 1;
                    f.counts.terminal_positions += orbit;
                    f.counts.outcomes.record(p.disc_difference(), orbit);
                    if !twin {
                        f.counts.terminal_boards += orbit;
                    }
                    f.ended = add_games(f.ended, m);
                }
            }
        }
        Ok(())
    }

    /// Sorts each partition's buffer, sums duplicates, and sends one run
    /// per partition.
    fn spill(&mut self) -> Result<(), LayersError> {
        if self.held == 0 {
            return Ok(());
        }
        for (j, part) in self.split.iter_mut().enumerate() {
            let n = sort_and_sum(part);
            if n > 0 {
                self.sink.send(j as u32, &part[..n])?;
            }
            part.clear();
        }
        self.held = 0;
        Ok(())
    }
}

/// Sorts `group` by stored key and sums the multiplicities of equal keys
/// into the first `n` records; returns `n`.
fn sort_and_sum(group: &mut [Record]) -> usize {
    group.sort_unstable_by_key(|r| r.0);
    let mut w = 0;
    for i in 0..group.len() {
        if w > 0 && group[w - 1].0 == group[i].0 {
            group[w - 1].1 = add_games(group[w - 1].1, group[i].1);
        } else {
            group[w] = group[i];
            w += 1;
        }
    }
    w
}

/// Counts a layer from its records handed over in key order, generating no
/// children: a last layer counted while it is merged, never stored.
pub struct Counter<G: Keyed> {
    worker: Worker<'static, G>,
    chunk: Vec<Record>,
    path: PathBuf,
}

static NO_CHILDREN: super::shuffle::NoChildren = super::shuffle::NoChildren;

impl<G: Keyed> Counter<G> {
    /// A counter for the records of `path` (named in errors).
    pub fn new(by: LayerBy, path: PathBuf) -> Self {
        Counter { worker: Worker::new(by, false, 0, &NO_CHILDREN), chunk: Vec::with_capacity(CHUNK + 1), path }
    }

    /// Takes the next record (keys strictly increasing).
    pub fn push(&mut self, r: Record) -> Result<(), LayersError> {
        let pair = self.chunk.last().is_some_and(|&(s, _)| s & 1 == 0 && r.0 == s + 1);
        if self.chunk.len() >= CHUNK && !pair {
            self.flush()?;
        }
        self.chunk.push(r);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), LayersError> {
        let r = self.worker.chunk(&self.chunk, &self.path);
        self.chunk.clear();
        r
    }

    /// What the records counted to.
    pub fn finish(mut self) -> Result<Expansion, LayersError> {
        self.flush()?;
        Ok(self.worker.found)
    }
}
