//! The layered frontier engine: the census one layer at a time, out of core.
//!
//! Every move adds one disc, so positions fall into layers (by disc count,
//! or by ply), and a layer needs only the one before it. A layer is stored
//! as `P` hash partitions, each a sorted file of records (canonical key,
//! multiplicity = number of games reaching the class, over its orbit).
//!
//! Building layer k+1 from layer k:
//! 1. *Expand*: the parts of layer k are streamed to the worker threads in
//!    chunks; each worker classifies every class (the counts of layer k)
//!    and generates its children into a bounded buffer; a full buffer is
//!    sorted, duplicates are summed, and it is appended as one sorted run to
//!    the bucket file of each child's partition.
//! 2. *Merge*: each partition's bucket (many sorted runs) is merged k-way,
//!    summing multiplicities, into part `j` of layer k+1.
//!
//! RAM is bounded by `--memory` (the buffers), not by the layer size. After
//! each phase a manifest is replaced atomically; `resume` continues from the
//! last complete layer, and from the last complete partition inside a
//! merge. At most two layers live on disk.
//!
//! By discs, a position whose side must pass and its passed twin are in the
//! same layer: a child that must pass brings its twin along, with the same
//! multiplicity. By ply, the twin is the child at the next ply.

pub mod store;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::board::Status;
use crate::framed::FrameError;
use crate::key::dense::unpack;
use crate::key::{Keyed, PackedKey};
use crate::key::{canonical_and_orbit, canonical_key};
use store::{
    BucketWriter, Manifest, PartReader, Record, RunConfig, merge_bucket, read_manifest, write_manifest, write_part,
};

pub use store::LayerStats;

/// How layers are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerBy {
    /// Layer k: the classes with k discs.
    Discs,
    /// Layer n: the classes after exactly n plies (a pass is a ply;
    /// finished games dropped).
    Ply,
}

impl LayerBy {
    fn code(self) -> u8 {
        match self {
            LayerBy::Discs => 0,
            LayerBy::Ply => 1,
        }
    }

    fn from_code(c: u8) -> Option<LayerBy> {
        match c {
            0 => Some(LayerBy::Discs),
            1 => Some(LayerBy::Ply),
            _ => None,
        }
    }

    /// `discs` or `ply`.
    pub fn name(self) -> &'static str {
        match self {
            LayerBy::Discs => "discs",
            LayerBy::Ply => "ply",
        }
    }
}

/// Settings of a layered run that may change on resume.
#[derive(Clone, Debug)]
pub struct LayersSettings {
    /// Worker threads.
    pub threads: usize,
    /// Bytes of RAM for buffers.
    pub memory_limit: u64,
}

/// A new layered run.
#[derive(Clone, Debug)]
pub struct LayersPlan {
    /// How layers are formed.
    pub by: LayerBy,
    /// The last layer (disc count or ply).
    pub limit: u32,
    /// Hash partitions per layer.
    pub partitions: u32,
    /// Directory for the layer files (must not hold a run already).
    pub work_dir: PathBuf,
    /// The command line.
    pub command: String,
    /// Unix seconds.
    pub started_unix: u64,
}

/// Live counters for a progress display.
#[derive(Debug, Default)]
pub struct LayersLive {
    /// Layer being built or expanded.
    pub layer: AtomicU64,
    /// 0 expanding, 1 merging.
    pub phase: AtomicU64,
    /// Classes expanded in the current layer.
    pub done: AtomicU64,
    /// Classes in the current layer.
    pub total: AtomicU64,
    /// Partitions merged in the current merge.
    pub parts_done: AtomicU64,
}

/// Why a layered run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum LayersError {
    #[error(transparent)]
    File(#[from] FrameError),
    #[error("{}: {detail}", path.display())]
    WorkDir { path: PathBuf, detail: String },
    #[error("interrupted; layers up to the last complete one are kept in {}", .0.display())]
    Interrupted(PathBuf),
}

/// A finished layered census.
#[derive(Clone, Debug)]
pub struct LayersOutcome {
    /// The run.
    pub by: LayerBy,
    /// Last layer.
    pub limit: u32,
    /// Counts per layer, first layer (4 discs or ply 0) first.
    pub stats: Vec<LayerStats>,
    /// Wall time over every session.
    pub elapsed: Duration,
    /// Bytes on disk of the largest layer and its classes.
    pub largest_layer: (u64, u64),
    /// Wall seconds of each phase of this session: (layer, `expand` or
    /// `merge`, seconds); merge `k` builds layer `k`.
    pub timings: Vec<(u32, &'static str, f64)>,
    /// The command line that started the run.
    pub command: String,
    /// Partitions per layer.
    pub partitions: u32,
}

fn layer_dir(work: &Path, k: u32) -> PathBuf {
    work.join(format!("layer-{k:03}"))
}

fn bucket_dir(work: &Path, k: u32) -> PathBuf {
    work.join(format!("buckets-{k:03}"))
}

fn part_path(dir: &Path, j: u32) -> PathBuf {
    dir.join(format!("part-{j:04}.lyr"))
}

fn bucket_path(dir: &Path, j: u32) -> PathBuf {
    dir.join(format!("part-{j:04}.bkt"))
}

/// The manifest of a work directory.
pub fn manifest_path(work: &Path) -> PathBuf {
    work.join("run.manifest")
}

fn partition_of(key: u128, partitions: u32) -> usize {
    (xxh3_64(&key.to_le_bytes()) % partitions as u64) as usize
}

fn work_err(path: &Path, detail: impl Into<String>) -> LayersError {
    LayersError::WorkDir { path: path.to_path_buf(), detail: detail.into() }
}

fn io_err(path: &Path, e: std::io::Error) -> LayersError {
    LayersError::File(FrameError::Io { path: path.to_path_buf(), source: e })
}

/// Reads the run configuration of a work directory.
pub fn read_run(work: &Path) -> Result<RunConfig, LayersError> {
    let m = manifest_path(work);
    if !m.exists() {
        return Err(work_err(work, "not a layered-census work directory (no run.manifest)"));
    }
    Ok(read_manifest(&m)?.run)
}

/// The layer a layered run of `by` starts from.
pub fn first_layer(by: LayerBy) -> u32 {
    match by {
        LayerBy::Discs => 4,
        LayerBy::Ply => 0,
    }
}

/// Starts a new run: writes the first layer and the manifest, then runs.
pub fn start<G: Keyed>(
    plan: &LayersPlan,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let work = &plan.work_dir;
    if manifest_path(work).exists() {
        return Err(work_err(
            work,
            format!("already holds a layered run; continue it with `othello-census resume {}`", work.display()),
        ));
    }
    fs::create_dir_all(work).map_err(|e| io_err(work, e))?;
    let run = RunConfig {
        size: G::N,
        by: plan.by.code(),
        limit: plan.limit,
        partitions: plan.partitions,
        command: plan.command.clone(),
        started_unix: plan.started_unix,
        memory_limit: settings.memory_limit,
    };
    let k = first_layer(plan.by);
    let dir = layer_dir(work, k);
    fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
    let start = crate::board::Position::<G>::start();
    let key = canonical_key(&start).to_u128();
    let home = partition_of(key, plan.partitions);
    let mut part_records = Vec::new();
    for j in 0..plan.partitions {
        let n =
            write_part(
                &part_path(&dir, j),
                &run.part(k, j),
                |emit| {
                    if j as usize == home { emit((key, 1)) } else { Ok(()) }
                },
            )?;
        part_records.push(n);
    }
    let entering = LayerStats { layer: k, games: 1, ..LayerStats::default() };
    let m = Manifest { run, phase: 0, layer: k, part_records, stats: Vec::new(), entering, elapsed_seconds: 0.0 };
    write_manifest(&manifest_path(work), &m)?;
    drive::<G>(work, m, settings, stop, live)
}

/// Continues the run of a work directory.
pub fn resume<G: Keyed>(
    work: &Path,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let m = read_manifest(&manifest_path(work))?;
    if m.run.size != G::N || LayerBy::from_code(m.run.by).is_none() {
        return Err(work_err(work, "the manifest describes another board or layering"));
    }
    drive::<G>(work, m, settings, stop, live)
}

/// Removes what no longer belongs to the run of manifest `m`: in phase 0
/// everything but the parts of `layer`; in phase 1 everything but the
/// buckets of `layer + 1` and the parts of `layer + 1` merged so far.
fn sweep(work: &Path, m: &Manifest) {
    let (keep_layer, keep_bucket) = if m.phase == 0 { (m.layer, None) } else { (m.layer + 1, Some(m.layer + 1)) };
    if let Ok(entries) = fs::read_dir(work) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stale = match (name.strip_prefix("layer-"), name.strip_prefix("buckets-")) {
                (Some(k), _) => k.parse::<u32>().is_ok_and(|k| k != keep_layer),
                (_, Some(k)) => k.parse::<u32>().is_ok_and(|k| Some(k) != keep_bucket),
                _ => false,
            };
            if stale {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}

fn drive<G: Keyed>(
    work: &Path,
    mut m: Manifest,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let started = Instant::now();
    let elapsed_before = m.elapsed_seconds;
    let elapsed = |s: Instant| elapsed_before + s.elapsed().as_secs_f64();
    let by = LayerBy::from_code(m.run.by).expect("checked");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(settings.threads.max(1)).build().expect("thread pool");
    let mut largest = (0u64, 0u64);
    let mut timings = Vec::new();
    sweep(work, &m);
    loop {
        if stop.load(Ordering::SeqCst) {
            return Err(LayersError::Interrupted(work.to_path_buf()));
        }
        let k = m.layer;
        if m.phase == 0 {
            let dir = layer_dir(work, k);
            let bytes: u64 =
                (0..m.run.partitions).filter_map(|j| fs::metadata(part_path(&dir, j)).ok()).map(|md| md.len()).sum();
            let classes: u64 = m.part_records.iter().sum();
            if classes > largest.1 {
                largest = (bytes, classes);
            }
            let last = k >= m.run.limit;
            live.layer.store(k as u64, Ordering::Relaxed);
            live.phase.store(0, Ordering::Relaxed);
            live.total.store(classes, Ordering::Relaxed);
            live.done.store(0, Ordering::Relaxed);
            let bdir = bucket_dir(work, k + 1);
            let phase_started = Instant::now();
            let ex = expand::<G>(work, &m, !last, &bdir, settings, stop, live)?;
            timings.push((k, "expand", phase_started.elapsed().as_secs_f64()));
            let mut stats_k = ex.stats;
            stats_k.layer = k;
            stats_k.games = m.entering.games;
            stats_k.passes = m.entering.passes;
            if by == LayerBy::Ply && ex.mass != m.entering.games {
                return Err(work_err(
                    work,
                    format!("layer {k} holds {} games, its parent layer sent {}", ex.mass, m.entering.games),
                ));
            }
            m.stats.push(stats_k);
            if last || ex.emitted == 0 {
                let _ = fs::remove_dir_all(&bdir);
                m.elapsed_seconds = elapsed(started);
                return Ok(LayersOutcome {
                    by,
                    limit: m.run.limit,
                    stats: m.stats,
                    elapsed: Duration::from_secs_f64(m.elapsed_seconds),
                    largest_layer: largest,
                    timings,
                    command: m.run.command,
                    partitions: m.run.partitions,
                });
            }
            m.phase = 1;
            m.part_records = ex.runs;
            m.entering =
                LayerStats { layer: k + 1, games: ex.entering.games, passes: ex.entering.passes, ..Default::default() };
            m.elapsed_seconds = elapsed(started);
            write_manifest(&manifest_path(work), &m)?;
            sweep(work, &m);
        } else {
            // merge the buckets of layer k + 1
            let next = k + 1;
            let bdir = bucket_dir(work, next);
            let dir = layer_dir(work, next);
            fs::create_dir_all(&dir).map_err(|e| io_err(&dir, e))?;
            live.layer.store(next as u64, Ordering::Relaxed);
            live.phase.store(1, Ordering::Relaxed);
            live.parts_done.store(0, Ordering::Relaxed);
            let runs = m.part_records.clone();
            let run = m.run.clone();
            let phase_started = Instant::now();
            let counts: Vec<Result<u64, LayersError>> = pool.install(|| {
                (0..run.partitions)
                    .into_par_iter()
                    .map(|j| {
                        if stop.load(Ordering::SeqCst) {
                            return Err(LayersError::Interrupted(work.to_path_buf()));
                        }
                        let out = part_path(&dir, j);
                        // a part finished before an interruption is kept
                        if let Ok(n) = count_part(&out, &run, next, j) {
                            live.parts_done.fetch_add(1, Ordering::Relaxed);
                            return Ok(n);
                        }
                        let bucket = bucket_path(&bdir, j);
                        let mut failure: Option<FrameError> = None;
                        let n = write_part(&out, &run.part(next, j), |emit| {
                            if let Err(e) = merge_bucket(&bucket, runs[j as usize], emit) {
                                failure = Some(e);
                                return Err(std::io::Error::other("merge failed"));
                            }
                            Ok(())
                        });
                        if let Some(e) = failure {
                            return Err(e.into());
                        }
                        live.parts_done.fetch_add(1, Ordering::Relaxed);
                        Ok(n?)
                    })
                    .collect()
            });
            let mut part_records = Vec::with_capacity(counts.len());
            for c in counts {
                part_records.push(c?);
            }
            timings.push((next, "merge", phase_started.elapsed().as_secs_f64()));
            m.phase = 0;
            m.layer = next;
            m.part_records = part_records;
            m.elapsed_seconds = elapsed(started);
            write_manifest(&manifest_path(work), &m)?;
            sweep(work, &m);
        }
    }
}

/// Reads a whole part to count its records (checking it).
fn count_part(path: &Path, run: &RunConfig, layer: u32, j: u32) -> Result<u64, FrameError> {
    let mut r = PartReader::open(path, &run.part(layer, j))?;
    while r.next_record()?.is_some() {}
    Ok(r.count())
}

struct Expansion {
    stats: LayerStats,
    entering: LayerStats,
    mass: u128,
    emitted: u64,
    runs: Vec<u64>,
}

/// Records per chunk handed to a worker.
const CHUNK: usize = 1 << 14;

#[allow(clippy::too_many_arguments)]
fn expand<G: Keyed>(
    work: &Path,
    m: &Manifest,
    generate: bool,
    bdir: &Path,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<Expansion, LayersError> {
    let run = &m.run;
    let by = LayerBy::from_code(run.by).expect("checked when the run was opened");
    let k = m.layer;
    let threads = settings.threads.max(1);
    let buckets: Vec<BucketWriter> = if generate {
        let _ = fs::remove_dir_all(bdir);
        fs::create_dir_all(bdir).map_err(|e| io_err(bdir, e))?;
        (0..run.partitions).map(|j| BucketWriter::create(&bucket_path(bdir, j))).collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    // Each worker holds a buffer of records and a copy split by partition.
    let spill_cap = ((settings.memory_limit / 2) / (threads as u64 * 64)).clamp(1 << 10, 1 << 26) as usize;
    let dir = layer_dir(work, k);
    let (tx, rx) = sync_channel::<Vec<Record>>(threads * 2);
    let rx = Arc::new(Mutex::new(rx));
    // Empty chunk buffers go back to the reader instead of being freed.
    let (back_tx, back_rx) = sync_channel::<Vec<Record>>(threads * 2 + 2);
    let failure: Mutex<Option<LayersError>> = Mutex::new(None);
    let fail = |e: LayersError| {
        let mut f = failure.lock().expect("failure lock");
        if f.is_none() {
            *f = Some(e);
        }
    };
    let cancelled = AtomicBool::new(false);
    let results: Vec<(LayerStats, LayerStats, u128, u64)> = std::thread::scope(|s| {
        let (fail, cancelled, dir) = (&fail, &cancelled, &dir);
        s.spawn(move || {
            let tx = tx;
            let back_rx = back_rx;
            for j in 0..run.partitions {
                let path = part_path(dir, j);
                let mut reader = match PartReader::open(&path, &run.part(k, j)) {
                    Ok(r) => r,
                    Err(e) => {
                        fail(e.into());
                        cancelled.store(true, Ordering::SeqCst);
                        return;
                    }
                };
                let fresh = || back_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(CHUNK));
                let mut chunk = fresh();
                loop {
                    if cancelled.load(Ordering::Relaxed) {
                        return;
                    }
                    match reader.next_record() {
                        Ok(Some(r)) => {
                            chunk.push(r);
                            if chunk.len() == CHUNK
                                && tx.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK))).is_err()
                            {
                                return;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            fail(e.into());
                            cancelled.store(true, Ordering::SeqCst);
                            return;
                        }
                    }
                }
                if reader.count() != m.part_records[j as usize] {
                    fail(work_err(
                        &path,
                        format!("holds {} records, the manifest says {}", reader.count(), m.part_records[j as usize]),
                    ));
                    cancelled.store(true, Ordering::SeqCst);
                    return;
                }
                if !chunk.is_empty() && tx.send(chunk).is_err() {
                    return;
                }
            }
        });
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let rx = Arc::clone(&rx);
                let back_tx = back_tx.clone();
                let buckets = &buckets;
                s.spawn(move || {
                    let mut w = Worker::<G>::new(by, generate, spill_cap, run.partitions);
                    loop {
                        let next = rx.lock().expect("channel lock").recv();
                        let Ok(chunk) = next else { break };
                        if cancelled.load(Ordering::Relaxed) {
                            continue; // drain so the reader never blocks
                        }
                        if stop.load(Ordering::SeqCst) {
                            cancelled.store(true, Ordering::SeqCst);
                            fail(LayersError::Interrupted(work.to_path_buf()));
                            continue;
                        }
                        if let Err(e) = w.chunk(&chunk, buckets) {
                            fail(e);
                            cancelled.store(true, Ordering::SeqCst);
                        }
                        live.done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                        let mut chunk = chunk;
                        chunk.clear();
                        let _ = back_tx.try_send(chunk);
                    }
                    if !cancelled.load(Ordering::Relaxed)
                        && let Err(e) = w.spill(buckets)
                    {
                        fail(e);
                    }
                    (w.stats, w.entering, w.mass, w.emitted)
                })
            })
            .collect();
        workers.into_iter().map(|h| h.join().expect("worker panicked")).collect()
    });
    if let Some(e) = failure.into_inner().expect("failure lock") {
        if generate {
            drop(buckets);
            let _ = fs::remove_dir_all(bdir);
        }
        return Err(e);
    }
    let mut stats = LayerStats::default();
    let mut entering = LayerStats::default();
    let (mut mass, mut emitted) = (0u128, 0u64);
    for (s, e, ms, em) in results {
        stats.add_classes(&s);
        entering.games = entering.games.checked_add(e.games).expect("game count overflow");
        entering.passes = entering.passes.checked_add(e.passes).expect("game count overflow");
        mass = mass.checked_add(ms).expect("game count overflow");
        emitted += em;
    }
    let mut runs = Vec::with_capacity(buckets.len());
    for b in buckets {
        runs.push(b.finish()?);
    }
    Ok(Expansion { stats, entering, mass, emitted, runs })
}

struct Worker<G: Keyed> {
    by: LayerBy,
    generate: bool,
    cap: usize,
    buf: Vec<Record>,
    split: Vec<Vec<Record>>,
    stats: LayerStats,
    entering: LayerStats,
    mass: u128,
    emitted: u64,
    geometry: std::marker::PhantomData<G>,
}

impl<G: Keyed> Worker<G> {
    fn new(by: LayerBy, generate: bool, cap: usize, partitions: u32) -> Self {
        Worker {
            by,
            generate,
            cap,
            buf: Vec::with_capacity(if generate { cap } else { 0 }),
            split: (0..partitions).map(|_| Vec::new()).collect(),
            stats: LayerStats::default(),
            entering: LayerStats::default(),
            mass: 0,
            emitted: 0,
            geometry: std::marker::PhantomData,
        }
    }

    #[inline]
    fn push(&mut self, key: G::Key, m: u128) {
        self.buf.push((key.to_u128(), m));
        self.emitted += 1;
    }

    fn chunk(&mut self, chunk: &[Record], buckets: &[BucketWriter]) -> Result<(), LayersError> {
        for &(key, m) in chunk {
            let p = unpack::<G>(G::Key::from_u128(key)).map_err(|e| {
                LayersError::File(FrameError::Corrupt {
                    path: PathBuf::from("layer"),
                    kind: "layer file",
                    detail: e.to_string(),
                })
            })?;
            let (_, orbit) = canonical_and_orbit(&p);
            let s = &mut self.stats;
            s.classes += 1;
            s.positions += orbit as u64;
            self.mass = self.mass.checked_add(m).expect("game count overflow");
            match p.status() {
                Status::Moves(moves) => {
                    let n = moves.count() as u128;
                    self.entering.games = self.entering.games.checked_add(m * n).expect("game count overflow");
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
                    s.pass_classes += 1;
                    s.pass_positions += orbit as u64;
                    if self.by == LayerBy::Ply {
                        self.entering.games = self.entering.games.checked_add(m).expect("game count overflow");
                        self.entering.passes = self.entering.passes.checked_add(m).expect("game count overflow");
                        if self.generate {
                            self.push(canonical_key(&p.pass()), m);
                        }
                    }
                }
                Status::Terminal => {
                    s.terminal_classes += 1;
                    s.terminal_positions += orbit as u64;
                    s.ended = s.ended.checked_add(m).expect("game count overflow");
                }
            }
            if self.buf.len() >= self.cap {
                self.spill(buckets)?;
            }
        }
        Ok(())
    }

    /// Splits the buffer by partition, sorts each part, sums duplicates,
    /// and appends one run per partition.
    fn spill(&mut self, buckets: &[BucketWriter]) -> Result<(), LayersError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let parts = self.split.len() as u32;
        for &(k, m) in &self.buf {
            self.split[partition_of(k, parts)].push((k, m));
        }
        self.buf.clear();
        for (j, part) in self.split.iter_mut().enumerate() {
            part.sort_unstable_by_key(|r| r.0);
            // sum the multiplicities of equal keys in place
            let mut w = 0;
            for i in 0..part.len() {
                if w > 0 && part[w - 1].0 == part[i].0 {
                    part[w - 1].1 = part[w - 1].1.checked_add(part[i].1).expect("game count overflow");
                } else {
                    part[w] = part[i];
                    w += 1;
                }
            }
            part.truncate(w);
            buckets[j].append(part)?;
            part.clear();
        }
        Ok(())
    }
}
