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
    // Each worker holds a buffer of records and a copy split by partition.
    let spill_cap = ((ctx.settings.memory_limit / 2) / (threads as u64 * 64)).clamp(1 << 10, 1 << 26) as usize;
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
    cap: usize,
    buf: Vec<Record>,
    split: Vec<Vec<Record>>,
    sink: &'a dyn ShuffleSink,
    found: Expansion,
    geometry: std::marker::PhantomData<G>,
}

impl<'a, G: Keyed> Worker<'a, G> {
    const SIDE: u128 = side_weight(G::N);

    fn new(by: LayerBy, generate: bool, cap: usize, sink: &'a dyn ShuffleSink) -> Self {
        Worker {
            by,
            generate,
            cap,
            buf: Vec::with_capacity(if generate { cap } else { 0 }),
            split: (0..sink.partitions()).map(|_| Vec::new()).collect(),
            sink,
            found: Expansion::default(),
            geometry: std::marker::PhantomData,
        }
    }

    #[inline]
    fn push(&mut self, key: G::Key, m: u128) {
        self.buf.push((to_stored(key.to_u128(), Self::SIDE), m));
        self.found.emitted += 1;
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
                            self.push(canonical_key(&c), m);
                            if self.by == LayerBy::Discs && c.legal_moves().is_empty() && c.opponent_can_move() {
                                self.push(canonical_key(&c.pass()), m);
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
                            self.push(canonical_key(&p.pass()), m);
                        }
                    }
                }
                Status::Terminal => {
                    f.counts.terminal_classes += 1;
                    f.counts.terminal_positions += orbit;
                    if !twin {
                        f.counts.terminal_boards += orbit;
                    }
                    f.ended = add_games(f.ended, m);
                }
            }
            if self.buf.len() >= self.cap {
                self.spill()?;
            }
        }
        Ok(())
    }

    /// Splits the buffer by partition, sorts each part, sums duplicates,
    /// and sends one run per partition.
    fn spill(&mut self) -> Result<(), LayersError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let parts = self.split.len() as u32;
        for &(k, m) in &self.buf {
            self.split[partition_of(k, parts) as usize].push((k, m));
        }
        self.buf.clear();
        for (j, part) in self.split.iter_mut().enumerate() {
            part.sort_unstable_by_key(|r| r.0);
            // sum the multiplicities of equal keys in place
            let mut w = 0;
            for i in 0..part.len() {
                if w > 0 && part[w - 1].0 == part[i].0 {
                    part[w - 1].1 = add_games(part[w - 1].1, part[i].1);
                } else {
                    part[w] = part[i];
                    w += 1;
                }
            }
            part.truncate(w);
            if !part.is_empty() {
                self.sink.send(j as u32, part)?;
            }
            part.clear();
        }
        Ok(())
    }
}
