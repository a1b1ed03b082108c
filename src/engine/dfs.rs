//! The DFS census: parallel depth-first walkers over the game graph with a
//! shared cache of canonical keys (the design of seed 003).
//!
//! Each walker owns a stack of positions to expand. A child is looked up in
//! the shared cache by its canonical dense key; the walker that inserts the
//! key first pushes the child, everyone else counts a repeat, so every class
//! is expanded exactly once. A popped position is classified (terminal, must
//! pass) and counted with its orbit size, then expanded.
//!
//! Work sharing: a walker that runs dry waits on a shared pool; a busy
//! walker that sees someone waiting gives away the bottom half of its stack
//! (the shallowest positions, with the largest subtrees). The census ends
//! when every walker waits on an empty pool.
//!
//! Checkpoints: a coordinator (the thread that called [`census_with`])
//! raises a pause flag; every walker finishes the position it is expanding
//! and parks, handing over a copy of its stack and counters. At that point
//! every key in the cache is either counted or waiting on exactly one stack
//! (or in the pool), so cache, stacks, pool and counters together are a
//! consistent snapshot: a resumed run expands exactly the positions that
//! were waiting and ends with the counts of an uninterrupted run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dashmap::DashMap;
use rayon::prelude::*;

use super::hash::Xxh3Build;
use super::memory::cache_bytes_per_class_worst;
use crate::board::{Position, Status};
use crate::census::{Census, Counts, LayerBy, LayerCounts};
use crate::formats::checkpoint::{CheckpointError, Header, read_checkpoint, write_checkpoint};
use crate::key::canonical_and_orbit;
use crate::key::dense::{pack, side_weight, unpack};
use crate::key::{Keyed, PackedKey};

/// Number of cache shards: many, so that one shard's resize (which briefly
/// holds the old and the new table) is a small share of the cache.
const SHARDS: usize = 256;

/// The shared cache: a set of canonical keys.
type Cache<K> = DashMap<K, (), Xxh3Build>;
/// Pops between two flushes of a walker's live counters.
const FLUSH_EVERY: u64 = 1 << 12;

/// Settings of a DFS census.
#[derive(Clone, Debug)]
pub struct DfsConfig {
    /// Walker threads.
    pub threads: usize,
    /// Count layers up to this many discs.
    pub max_discs: u32,
    /// Bytes the cache may take; the run stops with an error beyond.
    pub memory_limit: u64,
}

/// Counters a progress display may read while the census runs.
#[derive(Debug, Default)]
pub struct Live {
    /// Classes found so far.
    pub classes: AtomicU64,
    /// Positions (orbit-weighted) found so far.
    pub positions: AtomicU64,
    /// Positions expanded so far.
    pub explored: AtomicU64,
}

/// Where and how often to save checkpoints.
#[derive(Clone, Debug)]
pub struct CheckpointPlan {
    /// The checkpoint file (replaced atomically at every save).
    pub path: PathBuf,
    /// Time between two saves.
    pub every: Duration,
    /// The command line that started the run.
    pub command: String,
    /// When the run first started (Unix seconds).
    pub started_unix: u64,
    /// Where the run writes its result files (absolute; empty: not said),
    /// kept in the checkpoint for `resume`.
    pub out: String,
}

/// A finished save.
#[derive(Clone, Debug)]
pub struct SaveReport {
    /// The file.
    pub path: PathBuf,
    /// Its size, or why the save failed (the previous file is then intact).
    pub result: Result<u64, SaveError>,
    /// Classes in the saved cache.
    pub classes: u64,
    /// How long the walkers stood still (waiting to park, and the save).
    pub pause: Duration,
}

/// How the caller steers a run.
pub struct Control<'a> {
    /// Set (by a signal handler, say) to save a checkpoint and stop.
    pub stop: &'a AtomicBool,
    /// Periodic checkpoints, if any.
    pub checkpoint: Option<CheckpointPlan>,
    /// Called after every save.
    pub on_save: &'a (dyn Fn(&SaveReport) + Sync),
}

/// A run restored from a checkpoint.
pub struct Resume<G: Keyed> {
    cache: Cache<G::Key>,
    entries: Vec<Position<G>>,
    layers: Vec<Counts>,
    explored: u64,
    repeated: u64,
    elapsed: f64,
    /// The header of the file it came from.
    pub header: Header,
}

impl<G: Keyed> Resume<G> {
    /// Loads a checkpoint of this board size, rebuilding the cache.
    pub fn load(path: &std::path::Path) -> Result<Resume<G>, CheckpointError> {
        let head = crate::formats::checkpoint::read_header(path)?;
        if head.size != G::N {
            return Err(CheckpointError::Corrupt {
                path: path.to_path_buf(),
                kind: "checkpoint",
                detail: format!("a {0}x{0} checkpoint read as {1}x{1}", head.size, G::N),
            });
        }
        let cache: Cache<G::Key> =
            DashMap::with_capacity_and_hasher_and_shard_amount(head.cache_len as usize, Xxh3Build, SHARDS);
        let mut entries = Vec::new();
        let limit = crate::key::dense::max_dense(G::N);
        let header = read_checkpoint(
            path,
            |k| {
                if k >= limit {
                    return Err(RefusedKey::OutOfRange);
                }
                cache.insert(G::Key::from_u128(k), ());
                Ok(())
            },
            |_, k| {
                let p = unpack::<G>(G::Key::from_u128(k)).map_err(RefusedKey::InvalidEntry)?;
                entries.push(p);
                Ok(())
            },
        )?;
        if cache.len() as u64 != header.cache_len {
            return Err(CheckpointError::Corrupt {
                path: path.to_path_buf(),
                kind: "checkpoint",
                detail: "the cache section holds duplicate keys".into(),
            });
        }
        Ok(Resume {
            cache,
            entries,
            layers: header.layers.clone(),
            explored: header.explored,
            repeated: header.repeated,
            elapsed: header.elapsed_seconds,
            header,
        })
    }
}

/// Why a key of a checkpoint is refused while its cache and stacks are
/// rebuilt (the checkpoint is then reported corrupt with it).
#[derive(Debug, thiserror::Error)]
enum RefusedKey {
    #[error("a cache key is out of range")]
    OutOfRange,
    #[error("a stack entry is invalid: {0}")]
    InvalidEntry(crate::key::KeyError),
}

/// Why a checkpoint was not saved.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SaveError {
    /// A stop was asked for, and the run was given no checkpoint file.
    #[error("no checkpoint file was set")]
    NoFile,
    /// The file could not be written (shared: a [`SaveReport`] is cloned
    /// by whoever keeps it, and a file error is not).
    #[error(transparent)]
    Write(Arc<CheckpointError>),
}

/// Why a census did not finish.
#[derive(Debug, thiserror::Error)]
pub enum DfsError {
    #[error(
        "the DFS cache reached the memory limit ({}) after {classes} classes; count fewer discs, give it \
         more memory, or use the out-of-core layered engine",
        crate::text::human_bytes(*limit as f64)
    )]
    MemoryLimit { classes: u64, limit: u64 },
    #[error("interrupted; checkpoint saved to {}", .0.display())]
    Interrupted(PathBuf),
    #[error("interrupted before the first checkpoint could be saved: {0}")]
    InterruptedUnsaved(SaveError),
}

/// A finished DFS census.
#[derive(Clone, Debug)]
pub struct DfsOutcome {
    /// The counts, by discs (no game counts: the DFS engine stores no
    /// path multiplicities).
    pub census: Census,
    /// Positions expanded by the walkers (each class once).
    pub explored: u64,
    /// Children found already in the cache.
    pub repeated: u64,
    /// Bytes held by the cache at the end (its table capacity times the
    /// slot size).
    pub cache_bytes: u64,
    /// Wall time over every session of the run (walk and board count).
    pub elapsed: Duration,
}

/// The DFS engine's own figures of a run, as results report them
/// (`engine_stats`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DfsStats {
    pub explored_classes: u64,
    pub repeated: u64,
    pub classes_per_second: u64,
    pub cache_bytes: u64,
    /// Cache bytes per class counted, to a tenth.
    pub cache_bytes_per_class: f64,
}

impl DfsOutcome {
    /// The run's engine figures.
    pub fn stats(&self) -> DfsStats {
        let secs = self.elapsed.as_secs_f64();
        let per_class = self.cache_bytes as f64 / self.census.totals().classes.max(1) as f64;
        DfsStats {
            explored_classes: self.explored,
            repeated: self.repeated,
            classes_per_second: (self.explored as f64 / secs.max(1e-9)) as u64,
            cache_bytes: self.cache_bytes,
            cache_bytes_per_class: (per_class * 10.0).round() / 10.0,
        }
    }
}

struct Pool<G: Keyed> {
    items: Vec<Entry<G>>,
    idle: usize,
    done: bool,
}

#[derive(Clone, Copy)]
struct Entry<G: Keyed> {
    position: Position<G>,
    orbit: u8,
}

impl<G: Keyed> Entry<G> {
    fn new(position: Position<G>) -> Self {
        Entry { position, orbit: canonical_and_orbit(&position).1 as u8 }
    }
}

/// What a parked walker hands over.
struct Snapshot<G: Keyed> {
    stack: Vec<Entry<G>>,
    layers: Vec<Counts>,
    explored: u64,
    repeated: u64,
}

#[derive(Default)]
struct Parking<G: Keyed> {
    snapshots: Vec<Snapshot<G>>,
    exited: usize,
    epoch: u64,
}

struct Shared<'a, G: Keyed> {
    cache: Cache<G::Key>,
    pool: Mutex<Pool<G>>,
    wake: Condvar,
    waiting: AtomicUsize,
    abort: AtomicBool,
    pause: AtomicBool,
    parking: Mutex<Parking<G>>,
    parked: Condvar,
    threads: usize,
    max_discs: u32,
    max_classes: u64,
    live: &'a Live,
}

impl<G: Keyed> Shared<'_, G> {
    /// Stops every walker (they see the flag at their next step).
    fn stop_all(&self) {
        self.abort.store(true, Ordering::SeqCst);
        let _pool = self.pool.lock().expect("pool lock");
        self.wake.notify_all();
    }

    /// Parks every walker; `None` if they all finished instead.
    fn pause_all(&self) -> Option<Vec<Snapshot<G>>> {
        self.pause.store(true, Ordering::SeqCst);
        {
            let _pool = self.pool.lock().expect("pool lock");
            self.wake.notify_all();
        }
        let mut parking = self.parking.lock().expect("parking lock");
        while parking.snapshots.len() + parking.exited < self.threads {
            parking = self.parked.wait(parking).expect("parking lock");
        }
        if parking.exited > 0 {
            // Some walkers finished (or were stopped) instead of parking: no
            // snapshot; let any parked walker go on (it will see the end).
            parking.snapshots.clear();
            self.pause.store(false, Ordering::SeqCst);
            parking.epoch += 1;
            self.parked.notify_all();
            return None;
        }
        Some(std::mem::take(&mut parking.snapshots))
    }

    /// Lets parked walkers go on.
    fn release(&self) {
        let mut parking = self.parking.lock().expect("parking lock");
        self.pause.store(false, Ordering::SeqCst);
        parking.epoch += 1;
        self.parked.notify_all();
    }
}

enum Refill {
    Got,
    Pause,
    Done,
}

struct Walker<G: Keyed> {
    stack: Vec<Entry<G>>,
    layers: Vec<Counts>,
    explored: u64,
    repeated: u64,
    unflushed: (u64, u64, u64),
}

impl<G: Keyed> Walker<G> {
    fn new() -> Self {
        Walker {
            stack: Vec::with_capacity(1024),
            layers: vec![Counts::default(); 65],
            explored: 0,
            repeated: 0,
            unflushed: (0, 0, 0),
        }
    }

    /// Offers `child` to the cache; pushes it if this walker claimed it.
    #[inline(always)]
    fn offer(&mut self, shared: &Shared<G>, child: Position<G>) {
        let (key, orbit) = canonical_and_orbit(&child);
        if shared.cache.insert(key, ()).is_none() {
            self.stack.push(Entry { position: child, orbit: orbit as u8 });
        } else {
            self.repeated += 1;
        }
    }

    /// Counts and expands one claimed position.
    #[inline]
    fn expand(&mut self, shared: &Shared<G>, e: Entry<G>) {
        let p = e.position;
        let orbit = e.orbit as u64;
        let discs = p.discs();
        let c = &mut self.layers[discs as usize];
        c.classes += 1;
        c.positions += orbit;
        self.explored += 1;
        self.unflushed.0 += 1;
        self.unflushed.1 += orbit;
        self.unflushed.2 += 1;
        match p.status() {
            Status::Moves(moves) => {
                if discs < shared.max_discs {
                    for sq in moves {
                        self.offer(shared, p.play(sq));
                    }
                }
            }
            Status::Pass => {
                c.pass_classes += 1;
                c.pass_positions += orbit;
                self.offer(shared, p.pass());
            }
            Status::Terminal => {
                c.terminal_classes += 1;
                c.terminal_positions += orbit;
                c.outcomes.record(p.disc_difference(), orbit);
            }
        }
    }

    fn flush(&mut self, shared: &Shared<G>) {
        let (classes, positions, explored) = std::mem::take(&mut self.unflushed);
        let total = shared.live.classes.fetch_add(classes, Ordering::Relaxed) + classes;
        shared.live.positions.fetch_add(positions, Ordering::Relaxed);
        shared.live.explored.fetch_add(explored, Ordering::Relaxed);
        if total > shared.max_classes && !shared.abort.load(Ordering::Relaxed) {
            shared.stop_all();
        }
    }

    /// Moves work from the shared pool onto the empty stack.
    fn refill(&mut self, shared: &Shared<G>) -> Refill {
        let mut pool = shared.pool.lock().expect("pool lock");
        loop {
            if shared.abort.load(Ordering::SeqCst) {
                pool.done = true;
                shared.wake.notify_all();
                return Refill::Done;
            }
            if shared.pause.load(Ordering::SeqCst) {
                return Refill::Pause;
            }
            if !pool.items.is_empty() {
                let take = pool.items.len().div_ceil(2);
                let from = pool.items.len() - take;
                self.stack.extend(pool.items.drain(from..));
                return Refill::Got;
            }
            if pool.done {
                return Refill::Done;
            }
            pool.idle += 1;
            if pool.idle == shared.threads {
                pool.done = true;
                shared.wake.notify_all();
                return Refill::Done;
            }
            shared.waiting.fetch_add(1, Ordering::SeqCst);
            pool = shared.wake.wait(pool).expect("pool lock");
            shared.waiting.fetch_sub(1, Ordering::SeqCst);
            pool.idle -= 1;
        }
    }

    /// Gives the bottom half of the stack to the pool.
    fn donate(&mut self, shared: &Shared<G>) {
        let half = self.stack.len() / 2;
        let mut pool = shared.pool.lock().expect("pool lock");
        pool.items.extend(self.stack.drain(..half));
        shared.wake.notify_all();
    }

    /// Hands a copy of this walker's state to the coordinator and waits
    /// until it is released.
    fn park(&mut self, shared: &Shared<G>) {
        self.flush(shared);
        if shared.abort.load(Ordering::SeqCst) {
            return; // stopping: nothing to snapshot
        }
        let mut parking = shared.parking.lock().expect("parking lock");
        parking.snapshots.push(Snapshot {
            stack: self.stack.clone(),
            layers: self.layers.clone(),
            explored: self.explored,
            repeated: self.repeated,
        });
        let epoch = parking.epoch;
        shared.parked.notify_all();
        while parking.epoch == epoch {
            parking = shared.parked.wait(parking).expect("parking lock");
        }
    }

    fn run(&mut self, shared: &Shared<G>) {
        loop {
            if shared.abort.load(Ordering::Relaxed) {
                break;
            }
            let Some(e) = self.stack.pop() else {
                self.flush(shared);
                match self.refill(shared) {
                    Refill::Got => continue,
                    Refill::Pause => {
                        self.park(shared);
                        continue;
                    }
                    Refill::Done => break,
                }
            };
            self.expand(shared, e);
            if shared.pause.load(Ordering::Relaxed) {
                self.park(shared);
            }
            if self.unflushed.2 >= FLUSH_EVERY {
                self.flush(shared);
            }
            if self.stack.len() > 1 && shared.waiting.load(Ordering::Relaxed) > 0 {
                self.donate(shared);
            }
        }
        self.flush(shared);
        let mut parking = shared.parking.lock().expect("parking lock");
        parking.exited += 1;
        shared.parked.notify_all();
    }
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Counters added over walkers (and a resumed run's past).
struct Totals {
    layers: Vec<Counts>,
    explored: u64,
    repeated: u64,
}

impl Totals {
    fn new(layers: Vec<Counts>, explored: u64, repeated: u64) -> Totals {
        Totals { layers, explored, repeated }
    }

    fn add(&mut self, layers: &[Counts], explored: u64, repeated: u64) {
        for (a, c) in self.layers.iter_mut().zip(layers) {
            a.add(c);
        }
        self.explored += explored;
        self.repeated += repeated;
    }
}

/// Runs a DFS census from the start position, without checkpoints.
pub fn census<G: Keyed>(config: &DfsConfig, live: &Live) -> Result<DfsOutcome, DfsError> {
    let never = AtomicBool::new(false);
    census_with::<G>(config, live, &Control { stop: &never, checkpoint: None, on_save: &|_| {} }, None)
}

/// Runs a DFS census from the start or from a checkpoint, saving
/// checkpoints as `control` asks.
pub fn census_with<G: Keyed>(
    config: &DfsConfig,
    live: &Live,
    control: &Control<'_>,
    resume: Option<Resume<G>>,
) -> Result<DfsOutcome, DfsError> {
    let started = Instant::now();
    let threads = config.threads.max(1);
    let max_discs = config.max_discs.min(G::SQUARES);
    let per_class = cache_bytes_per_class_worst::<G>();
    let (cache, entries, mut base, elapsed_before) = starting_point(resume);
    let classes_before: u64 = base.layers.iter().map(|c| c.classes).sum();
    live.classes.store(classes_before, Ordering::Relaxed);
    live.positions.store(base.layers.iter().map(|c| c.positions).sum(), Ordering::Relaxed);
    live.explored.store(base.explored, Ordering::Relaxed);
    let shared = Shared::<G> {
        cache,
        pool: Mutex::new(Pool { items: entries.into_iter().map(Entry::new).collect(), idle: 0, done: false }),
        wake: Condvar::new(),
        waiting: AtomicUsize::new(0),
        abort: AtomicBool::new(false),
        // A stop asked before the walkers start parks them at their first
        // step, so that it is honoured however short the census would be.
        pause: AtomicBool::new(control.stop.load(Ordering::SeqCst) && control.checkpoint.is_some()),
        parking: Mutex::new(Parking { snapshots: Vec::new(), exited: 0, epoch: 0 }),
        parked: Condvar::new(),
        threads,
        max_discs,
        max_classes: (config.memory_limit as f64 / per_class) as u64,
        live,
    };
    let elapsed = |started: Instant| elapsed_before + started.elapsed().as_secs_f64();

    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let (walkers, interrupted): (Vec<Walker<G>>, _) = std::thread::scope(|s| {
        // One walker on every thread of the pool.
        let handle = s.spawn(|| {
            pool.broadcast(|_| {
                let mut w = Walker::new();
                w.run(&shared);
                w
            })
        });
        let interrupted =
            supervise(&shared, control, &base, config.memory_limit, &|| elapsed(started), &|| handle.is_finished());
        (handle.join().expect("walker pool panicked"), interrupted)
    });
    match interrupted {
        Some(Ok(path)) => return Err(DfsError::Interrupted(path)),
        Some(Err(why)) => return Err(DfsError::InterruptedUnsaved(why)),
        None => {}
    }
    if shared.abort.load(Ordering::Relaxed) {
        return Err(DfsError::MemoryLimit {
            classes: live.classes.load(Ordering::Relaxed),
            limit: config.memory_limit,
        });
    }
    for w in &walkers {
        base.add(&w.layers, w.explored, w.repeated);
    }
    count_boards::<G>(&shared.cache, &mut base.layers, &pool);
    Ok(outcome::<G>(&shared.cache, base, max_discs, elapsed(started)))
}

/// Where a census starts: the cache of the classes seen, the positions
/// still to walk, the totals so far and the seconds already spent (a fresh
/// census: the start alone).
#[allow(clippy::type_complexity)]
fn starting_point<G: Keyed>(resume: Option<Resume<G>>) -> (Cache<G::Key>, Vec<Position<G>>, Totals, f64) {
    match resume {
        Some(r) => (r.cache, r.entries, Totals::new(r.layers, r.explored, r.repeated), r.elapsed),
        None => {
            let cache = DashMap::with_capacity_and_hasher_and_shard_amount(0, Xxh3Build, SHARDS);
            let start = Position::<G>::start();
            cache.insert(canonical_and_orbit(&start).0, ());
            (cache, vec![start], Totals::new(vec![Counts::default(); 65], 0, 0), 0.0)
        }
    }
}

/// Watches the walkers until `finished` says they ended: saves a
/// checkpoint whenever one is due, and on a stop request saves one and
/// stops them. Returns why the census stopped early (the checkpoint
/// written, or why none could be), if it did.
fn supervise<G: Keyed>(
    shared: &Shared<'_, G>,
    control: &Control<'_>,
    base: &Totals,
    memory_limit: u64,
    elapsed: &dyn Fn() -> f64,
    finished: &dyn Fn() -> bool,
) -> Option<Result<PathBuf, SaveError>> {
    let mut next_save = control.checkpoint.as_ref().map(|p| Instant::now() + p.every);
    while !finished() {
        let stop = control.stop.load(Ordering::SeqCst);
        let due = next_save.is_some_and(|t| Instant::now() >= t);
        if !(stop || due) {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let Some(plan) = &control.checkpoint else {
            shared.stop_all();
            return Some(Err(SaveError::NoFile));
        };
        let paused_at = Instant::now();
        let Some(snapshots) = shared.pause_all() else {
            return None; // the walkers finished meanwhile
        };
        let report = save(shared, plan, &snapshots, base, elapsed(), memory_limit);
        let report = SaveReport { pause: paused_at.elapsed(), ..report };
        (control.on_save)(&report);
        if stop {
            let why = report.result.map(|_| plan.path.clone());
            shared.stop_all();
            shared.release();
            return Some(why);
        }
        shared.release();
        next_save = Some(Instant::now() + plan.every);
    }
    None
}

/// The outcome of a census that ran to its end, from its cache and
/// totals.
fn outcome<G: Keyed>(cache: &Cache<G::Key>, base: Totals, max_discs: u32, elapsed: f64) -> DfsOutcome {
    // hashbrown's capacity is 7/8 of its buckets; a bucket is a key and a
    // control byte.
    let cache_bytes = (cache.capacity() as u64 * 8 / 7) * (G::Key::BYTES as u64 + 1);
    DfsOutcome {
        census: Census {
            size: G::N,
            by: LayerBy::Discs,
            limit: max_discs,
            layers: (4..=max_discs)
                .map(|d| LayerCounts { layer: d, counts: base.layers[d as usize], games: None })
                .collect(),
        },
        explored: base.explored,
        repeated: base.repeated,
        cache_bytes,
        elapsed: Duration::from_secs_f64(elapsed),
    }
}

/// Writes the checkpoint of a paused census.
fn save<G: Keyed>(
    shared: &Shared<G>,
    plan: &CheckpointPlan,
    snapshots: &[Snapshot<G>],
    base: &Totals,
    elapsed_seconds: f64,
    memory_limit: u64,
) -> SaveReport {
    let mut totals = Totals::new(base.layers.clone(), base.explored, base.repeated);
    let mut stacks: Vec<Vec<u128>> = Vec::with_capacity(snapshots.len() + 1);
    for snap in snapshots {
        totals.add(&snap.layers, snap.explored, snap.repeated);
        stacks.push(snap.stack.iter().map(|e| pack(&e.position).to_u128()).collect());
    }
    stacks.push(shared.pool.lock().expect("pool lock").items.iter().map(|e| pack(&e.position).to_u128()).collect());
    let header = Header {
        software: crate::software(),
        size: G::N,
        rules: "standard".into(),
        engine: "dfs".into(),
        max_discs: shared.max_discs,
        memory_limit,
        threads: shared.threads as u32,
        command: plan.command.clone(),
        started_unix: plan.started_unix,
        saved_unix: unix_now(),
        elapsed_seconds,
        explored: totals.explored,
        repeated: totals.repeated,
        layers: totals.layers,
        cache_len: shared.cache.len() as u64,
        stack_lens: stacks.iter().map(|s| s.len() as u64).collect(),
        out: plan.out.clone(),
    };
    let keys = shared.cache.iter().map(|r| r.key().to_u128());
    let result = write_checkpoint(&plan.path, &header, keys, &stacks).map_err(|e| SaveError::Write(Arc::new(e)));
    SaveReport { path: plan.path.clone(), result, classes: header.cache_len, pause: Duration::ZERO }
}

/// Fills `boards` and `terminal_boards`: a board counts once even when it
/// is reachable with both sides to move. Symmetries keep the side to move,
/// so the class of (board, White) has canonical key `k + side_weight` when
/// `k` is the canonical key of (board, Black), with the same orbit size.
fn count_boards<G: Keyed>(cache: &Cache<G::Key>, layers: &mut [Counts], pool: &rayon::ThreadPool) {
    let white = side_weight(G::N);
    let twins: Vec<Counts> = pool.install(|| {
        cache
            .par_iter()
            .fold(
                || vec![Counts::default(); 65],
                |mut acc, k| {
                    let k = k.key().to_u128();
                    if k < white && cache.contains_key(&G::Key::from_u128(k + white)) {
                        let p = unpack::<G>(G::Key::from_u128(k)).expect("cache holds valid keys");
                        let (_, orbit) = canonical_and_orbit(&p);
                        let c = &mut acc[p.discs() as usize];
                        c.boards += orbit as u64;
                        if p.status() == Status::Terminal {
                            c.terminal_boards += orbit as u64;
                        }
                    }
                    acc
                },
            )
            .reduce(
                || vec![Counts::default(); 65],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(&b) {
                        x.add(y);
                    }
                    a
                },
            )
    });
    for (c, t) in layers.iter_mut().zip(&twins) {
        c.boards = c.positions - t.boards;
        c.terminal_boards = c.terminal_positions - t.terminal_boards;
    }
}
