//! One expansion: a reader thread streams the parent parts in chunks to
//! the workers, the first error stops them all, and what they still hold
//! at the end is spilled by every thread together.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::buffers::{BufferPool, BufferSet, spill_capacity};
use super::worker::Worker;
use super::{CHUNK, PartInput, cut_before};
use crate::census::LayerBy;
use crate::engine::layers::expansion::Expansion;
use crate::engine::layers::shapes::ShapeParts;
use crate::engine::layers::shuffle::ShuffleSink;
use crate::engine::layers::store::{PartReader, Record};
use crate::engine::layers::{LayersError, RunContext};
use crate::key::Keyed;

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
pub(super) fn spill_together<G: Keyed>(
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
