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

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use rayon::prelude::*;

use super::hash::Xxh3Build;
use super::memory::cache_bytes_per_class_worst;
use super::{CensusCounts, Counts};
use crate::board::{Geometry, Position, Status};
use crate::key::PackedKey;
use crate::key::dense::{side_weight, unpack};
use crate::symmetry::canonical_and_orbit;

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

/// Why a census did not finish.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DfsError {
    #[error(
        "the DFS cache reached the memory limit ({limit_gib:.2} GiB) after {classes} classes; \
         lower --max-discs or raise --memory (runs beyond memory need the layered engine, not built yet)"
    )]
    MemoryLimit { classes: u64, limit_gib: f64 },
}

/// A finished DFS census.
#[derive(Clone, Debug)]
pub struct DfsOutcome {
    /// The counts.
    pub counts: CensusCounts,
    /// Bytes held by the cache at the end (its table capacity times the
    /// slot size).
    pub cache_bytes: u64,
    /// Wall time of the walk and of the board count that follows it.
    pub elapsed: Duration,
}

struct Pool<G: Geometry> {
    items: Vec<Entry<G>>,
    idle: usize,
    done: bool,
}

#[derive(Clone, Copy)]
struct Entry<G: Geometry> {
    position: Position<G>,
    orbit: u8,
}

struct Shared<'a, G: Geometry> {
    cache: Cache<G::Key>,
    pool: Mutex<Pool<G>>,
    wake: Condvar,
    waiting: AtomicUsize,
    abort: AtomicBool,
    threads: usize,
    max_discs: u32,
    max_classes: u64,
    live: &'a Live,
}

struct Walker<G: Geometry> {
    stack: Vec<Entry<G>>,
    layers: Vec<Counts>,
    explored: u64,
    repeated: u64,
    unflushed: (u64, u64, u64),
}

impl<G: Geometry> Walker<G> {
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
            }
        }
    }

    fn flush(&mut self, shared: &Shared<G>) {
        let (classes, positions, explored) = std::mem::take(&mut self.unflushed);
        let total = shared.live.classes.fetch_add(classes, Ordering::Relaxed) + classes;
        shared.live.positions.fetch_add(positions, Ordering::Relaxed);
        shared.live.explored.fetch_add(explored, Ordering::Relaxed);
        if total > shared.max_classes {
            shared.abort.store(true, Ordering::Relaxed);
        }
    }

    /// Moves work from the shared pool onto the stack; false when the
    /// census is over (or aborted).
    fn refill(&mut self, shared: &Shared<G>) -> bool {
        let mut pool = shared.pool.lock().expect("pool lock");
        loop {
            if shared.abort.load(Ordering::Relaxed) {
                pool.done = true;
                shared.wake.notify_all();
                return false;
            }
            if !pool.items.is_empty() {
                let take = pool.items.len().div_ceil(2);
                let from = pool.items.len() - take;
                self.stack.extend(pool.items.drain(from..));
                return true;
            }
            if pool.done {
                return false;
            }
            pool.idle += 1;
            if pool.idle == shared.threads {
                pool.done = true;
                shared.wake.notify_all();
                return false;
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

    fn run(&mut self, shared: &Shared<G>) {
        loop {
            let Some(e) = self.stack.pop() else {
                self.flush(shared);
                if self.refill(shared) {
                    continue;
                }
                return;
            };
            self.expand(shared, e);
            if self.unflushed.2 >= FLUSH_EVERY {
                self.flush(shared);
                if shared.abort.load(Ordering::Relaxed) {
                    // Wake the waiters so that they see the abort.
                    let _ = self.refill(shared);
                    return;
                }
            }
            if self.stack.len() > 1 && shared.waiting.load(Ordering::Relaxed) > 0 {
                self.donate(shared);
            }
        }
    }
}

/// Runs a DFS census from the start position.
pub fn census<G: Geometry>(config: &DfsConfig, live: &Live) -> Result<DfsOutcome, DfsError> {
    let started = Instant::now();
    let threads = config.threads.max(1);
    let max_discs = config.max_discs.min(G::SQUARES);
    let per_class = cache_bytes_per_class_worst::<G>();
    let shared = Shared::<G> {
        cache: DashMap::with_capacity_and_hasher_and_shard_amount(0, Xxh3Build, SHARDS),
        pool: Mutex::new(Pool { items: Vec::new(), idle: 0, done: false }),
        wake: Condvar::new(),
        waiting: AtomicUsize::new(0),
        abort: AtomicBool::new(false),
        threads,
        max_discs,
        max_classes: (config.memory_limit as f64 / per_class) as u64,
        live,
    };
    let start = Position::<G>::start();
    let (key, orbit) = canonical_and_orbit(&start);
    shared.cache.insert(key, ());
    shared.pool.lock().expect("pool lock").items.push(Entry { position: start, orbit: orbit as u8 });

    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    // One walker on every thread of the pool.
    let walkers: Vec<Walker<G>> = pool.broadcast(|_| {
        let mut w = Walker::new();
        w.run(&shared);
        w
    });
    if shared.abort.load(Ordering::Relaxed) {
        return Err(DfsError::MemoryLimit {
            classes: live.classes.load(Ordering::Relaxed),
            limit_gib: config.memory_limit as f64 / (1u64 << 30) as f64,
        });
    }

    let mut layers = vec![Counts::default(); 65];
    let (mut explored, mut repeated) = (0, 0);
    for w in &walkers {
        for (acc, c) in layers.iter_mut().zip(&w.layers) {
            acc.add(c);
        }
        explored += w.explored;
        repeated += w.repeated;
    }
    count_boards::<G>(&shared.cache, &mut layers, &pool);
    // hashbrown's capacity is 7/8 of its buckets; a bucket is a key and a
    // control byte.
    let cache_bytes = (shared.cache.capacity() as u64 * 8 / 7) * (G::Key::BYTES as u64 + 1);
    Ok(DfsOutcome {
        counts: CensusCounts::from_layers(&layers, 4, max_discs, explored, repeated),
        cache_bytes,
        elapsed: started.elapsed(),
    })
}

/// Fills `boards` and `terminal_boards`: a board counts once even when it
/// is reachable with both sides to move. Symmetries keep the side to move,
/// so the class of (board, White) has canonical key `k + side_weight` when
/// `k` is the canonical key of (board, Black), with the same orbit size.
fn count_boards<G: Geometry>(cache: &Cache<G::Key>, layers: &mut [Counts], pool: &rayon::ThreadPool) {
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
