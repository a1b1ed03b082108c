//! perft through transpositions and symmetry.
//!
//! The per-ply counts of a position's subtree (games, passes and ended
//! games at each ply below it) depend only on its shape (see
//! [`crate::shape`]: mover and opponent discs up to the eight symmetries of
//! the square) and on the plies left. So:
//!
//! 1. the first [`SPLIT_PLY`] plies are walked in one thread, and the
//!    positions there folded into shapes with multiplicities (the number
//!    of paths reaching them);
//! 2. each shape's subtree is counted once, in parallel, and added times
//!    its multiplicity;
//! 3. inside a subtree, the counts below every position with at least
//!    [`MEMO_MIN`] plies left are memoized in a table shared by all
//!    threads, keyed by the full shape key and the plies left (a key is
//!    never truncated, so a collision cannot corrupt a count); shallower
//!    subtrees are walked, the last ply counted in bulk.
//!
//! The table is bounded: once it holds `memory` bytes nothing more is
//! stored, which costs time only.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{PerftProgress, PerftRow, SPLIT_PLY, Tally, fast_copy, frontier, has_bit_instructions};
use crate::board::Geometry;
use crate::board::moves::{flips, legal_moves};
use crate::census::{GameCount, add_games};
use crate::shape::shape_key;

/// Subtrees with at least this many plies left are memoized.
pub const MEMO_MIN: u32 = 4;
const SHARDS: usize = 256;

/// Counts of a subtree of `r` plies, relative to its root, in one slice:
/// `nodes[1..=r]`, then `passes[1..=r]`, then `ended[0..r]`.
struct Sub<'a> {
    r: usize,
    v: &'a mut [GameCount],
}

impl Sub<'_> {
    #[inline(always)]
    fn nodes(&mut self, k: usize) -> &mut GameCount {
        &mut self.v[k - 1]
    }
    #[inline(always)]
    fn passes(&mut self, k: usize) -> &mut GameCount {
        &mut self.v[self.r + k - 1]
    }
    #[inline(always)]
    fn ended(&mut self, k: usize) -> &mut GameCount {
        &mut self.v[2 * self.r + k]
    }

    /// Adds `child` (a subtree of `r - off` plies whose root is `off` plies
    /// below this one).
    fn add_shifted(&mut self, child: &[GameCount], off: usize) {
        let cr = child.len() / 3;
        for k in 1..=cr {
            let n = self.nodes(k + off);
            *n = add_games(*n, child[k - 1]);
            let p = self.passes(k + off);
            *p = add_games(*p, child[cr + k - 1]);
        }
        for k in 0..cr {
            let e = self.ended(k + off);
            *e = add_games(*e, child[2 * cr + k]);
        }
    }
}

/// The counts of a subtree of fewer than [`MEMO_MIN`] plies, by relative
/// ply. Such a subtree holds fewer than 64^MEMO_MIN games, so u64 cannot
/// overflow; the counts join the [`GameCount`] sums through [`add_games`].
#[derive(Default)]
struct Small {
    nodes: [u64; MEMO_MIN as usize],
    passes: [u64; MEMO_MIN as usize],
    ended: [u64; MEMO_MIN as usize],
}

impl Sub<'_> {
    /// Adds `t` (a subtree of `r` plies whose root is `off` plies below
    /// this one).
    fn add_small(&mut self, t: &Small, r: usize, off: usize) {
        for k in 1..=r {
            let n = self.nodes(k + off);
            *n = add_games(*n, GameCount::from(t.nodes[k]));
            let p = self.passes(k + off);
            *p = add_games(*p, GameCount::from(t.passes[k]));
        }
        for k in 0..r {
            let e = self.ended(k + off);
            *e = add_games(*e, GameCount::from(t.ended[k]));
        }
    }
}

/// Bytes a table entry of `r` plies takes, roughly: the (key, plies) slot
/// and its boxed counts in the map (at a typical load), the counts, the
/// allocator's overhead.
fn entry_bytes(r: u32) -> u64 {
    90 + 48 * r as u64
}

/// Mixes a (shape, plies left) key; the top byte picks the shard.
#[inline(always)]
fn mix(key: u128, r: u32) -> u64 {
    let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29) ^ u64::from(r);
    let x = (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 29)
}

/// The map's hasher: [`mix`] of the key written into it.
#[derive(Default)]
struct KeyHasher {
    key: u128,
    r: u32,
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.key = (self.key << 8) | u128::from(b);
        }
    }
    fn write_u128(&mut self, key: u128) {
        self.key = key;
    }
    fn write_u8(&mut self, r: u8) {
        self.r = u32::from(r);
    }
    fn finish(&self) -> u64 {
        mix(self.key, self.r)
    }
}

/// One shard of the table.
type Shard = Mutex<HashMap<(u128, u8), Box<[GameCount]>, BuildHasherDefault<KeyHasher>>>;

/// The transposition table: (shape key, plies left) → subtree counts.
struct Table {
    shards: Vec<Shard>,
    bytes: AtomicU64,
    limit: u64,
    hits: AtomicU64,
    stored: AtomicU64,
}

impl Table {
    fn new(limit: u64) -> Table {
        Table {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::default())).collect(),
            bytes: AtomicU64::new(0),
            limit,
            hits: AtomicU64::new(0),
            stored: AtomicU64::new(0),
        }
    }

    #[inline]
    fn shard(&self, key: u128, r: u32) -> &Shard {
        &self.shards[(mix(key, r) >> 56) as usize % SHARDS]
    }

    /// Adds the stored counts of (key, r) at `off` in `out`, if stored.
    #[inline]
    fn probe(&self, key: u128, r: u32, out: &mut Sub<'_>, off: usize) -> bool {
        let shard = self.shard(key, r).lock().expect("perft table lock");
        match shard.get(&(key, r as u8)) {
            Some(v) => {
                out.add_shifted(v, off);
                drop(shard);
                self.hits.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn store(&self, key: u128, r: u32, v: Vec<GameCount>) {
        if self.bytes.load(Ordering::Relaxed) >= self.limit {
            return;
        }
        let mut shard = self.shard(key, r).lock().expect("perft table lock");
        if shard.insert((key, r as u8), v.into_boxed_slice()).is_none() {
            self.bytes.fetch_add(entry_bytes(r), Ordering::Relaxed);
            self.stored.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// What a hashed perft did besides counting.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashedStats {
    /// Distinct shapes at the split ply (the parallel tasks).
    pub split_shapes: u64,
    /// Positions (paths) at the split ply.
    pub split_paths: u64,
    /// Subtrees found in the table.
    pub hits: u64,
    /// Subtrees stored.
    pub stored: u64,
    /// Bytes the table held at the end (estimated).
    pub table_bytes: u64,
}

/// Per-ply game counts from the start, plies `1..=depth`, with a table of
/// at most `memory` bytes. Equal to [`super::perft`] in every column.
pub fn perft_hashed<G: Geometry>(depth: u32, memory: u64) -> (Vec<PerftRow>, HashedStats) {
    perft_hashed_with_progress::<G>(depth, memory, &PerftProgress::new())
}

/// [`perft_hashed`], reporting progress (shapes at the split ply done) in
/// `progress`.
pub fn perft_hashed_with_progress<G: Geometry>(
    depth: u32,
    memory: u64,
    progress: &PerftProgress,
) -> (Vec<PerftRow>, HashedStats) {
    assert!(depth >= 1, "perft depth must be at least 1");
    let split = SPLIT_PLY.min(depth - 1);
    let mut top = Tally::new(depth);
    let level = frontier::<G>(split, &mut top);
    let split_paths = level.len() as u64;
    let mut shapes: HashMap<u128, (u64, u64, GameCount)> = HashMap::new();
    for (me, opp) in level {
        let e = shapes.entry(shape_key::<G>(me, opp)).or_insert((me, opp, 0));
        e.2 = add_games(e.2, 1);
    }
    let mut shapes: Vec<(u64, u64, GameCount)> = shapes.into_values().collect();
    // the largest subtrees are not known in advance; a fixed order keeps runs comparable
    shapes.sort_unstable();
    progress.set_total(shapes.len() as u64);
    let table = Table::new(memory);
    let r = depth - split;
    let below = shapes
        .par_iter()
        .map(|&(me, opp, paths)| {
            let mut v = vec![0; 3 * r as usize];
            visit::<G>(me, opp, r, &table, &mut Sub { r: r as usize, v: &mut v }, 0);
            progress.step();
            let mut t = Tally::new(depth);
            let s = split as usize;
            let times = |c: GameCount| c.checked_mul(paths).expect("game count overflow (more than 2^128 games)");
            for k in 1..=r as usize {
                t.nodes[s + k] = times(v[k - 1]);
                t.passes[s + k] = times(v[r as usize + k - 1]);
            }
            for k in 0..r as usize {
                t.ended[s + k] = times(v[2 * r as usize + k]);
            }
            t
        })
        .reduce(|| Tally::new(depth), Tally::merge);
    let stats = HashedStats {
        split_shapes: shapes.len() as u64,
        split_paths,
        hits: table.hits.load(Ordering::Relaxed),
        stored: table.stored.load(Ordering::Relaxed),
        table_bytes: table.bytes.load(Ordering::Relaxed),
    };
    (top.merge(below).rows(), stats)
}

/// Adds the counts of the subtree of (`me`, `opp`) (`r` plies left), whose
/// root is `off` plies below the root of `out`. Dispatches to the copy
/// compiled with the CPU's bit instructions when it has them.
fn visit<G: Geometry>(me: u64, opp: u64, r: u32, table: &Table, out: &mut Sub<'_>, off: usize) {
    #[cfg(target_arch = "x86_64")]
    if has_bit_instructions() {
        // SAFETY: the CPU has the features `fast::visit` is compiled for.
        return unsafe { fast::visit::<G>(me, opp, r, table, out, off) };
    }
    portable::visit::<G>(me, opp, r, table, out, off);
}

macro_rules! hashed_walker {
    ($module:ident, $moves:ident, $flips:ident $(, $features:literal)?) => {
        mod $module {
            use super::*;
            #[cfg(target_arch = "x86_64")]
            #[allow(unused_imports)]
            use crate::board::moves::{flips_avx2, legal_moves_avx2};

            $(#[target_feature(enable = $features)])?
            pub(super) fn visit<G: Geometry>(me: u64, opp: u64, r: u32, table: &Table, out: &mut Sub<'_>, off: usize) {
                if r >= MEMO_MIN {
                    let key = shape_key::<G>(me, opp);
                    if table.probe(key, r, out, off) {
                        return;
                    }
                    let mut v = vec![0; 3 * r as usize];
                    expand::<G>(me, opp, r, table, &mut Sub { r: r as usize, v: &mut v }, 0);
                    out.add_shifted(&v, off);
                    table.store(key, r, v);
                    return;
                }
                let mut t = Small::default();
                small::<G>(me, opp, r, 0, &mut t);
                out.add_small(&t, r as usize, off);
            }

            /// The subtree of (`me`, `opp`), `r < MEMO_MIN` plies left, its
            /// root `k` plies below the root of `t`: the plain walk.
            $(#[target_feature(enable = $features)])?
            fn small<G: Geometry>(me: u64, opp: u64, r: u32, k: usize, t: &mut Small) {
                let mut moves = $moves::<G>(me, opp);
                if moves != 0 {
                    t.nodes[k + 1] += u64::from(moves.count_ones());
                    if r > 1 {
                        while moves != 0 {
                            let sq = moves.trailing_zeros();
                            moves &= moves - 1;
                            let f = $flips::<G>(me, opp, sq);
                            small::<G>(opp ^ f, me | f | (1u64 << sq), r - 1, k + 1, t);
                        }
                    }
                } else if $moves::<G>(opp, me) != 0 {
                    t.nodes[k + 1] += 1;
                    t.passes[k + 1] += 1;
                    if r > 1 {
                        small::<G>(opp, me, r - 1, k + 1, t);
                    }
                } else {
                    t.ended[k] += 1;
                }
            }

            /// The children of (`me`, `opp`) (`r >= 1` plies left), counted
            /// into `out` at `off`.
            $(#[target_feature(enable = $features)])?
            fn expand<G: Geometry>(me: u64, opp: u64, r: u32, table: &Table, out: &mut Sub<'_>, off: usize) {
                let mut moves = $moves::<G>(me, opp);
                if moves != 0 {
                    let n = out.nodes(off + 1);
                    *n = add_games(*n, GameCount::from(moves.count_ones()));
                    if r > 1 {
                        while moves != 0 {
                            let sq = moves.trailing_zeros();
                            moves &= moves - 1;
                            let f = $flips::<G>(me, opp, sq);
                            visit::<G>(opp ^ f, me | f | (1u64 << sq), r - 1, table, out, off + 1);
                        }
                    }
                } else if $moves::<G>(opp, me) != 0 {
                    let n = out.nodes(off + 1);
                    *n = add_games(*n, 1);
                    let p = out.passes(off + 1);
                    *p = add_games(*p, 1);
                    if r > 1 {
                        visit::<G>(opp, me, r - 1, table, out, off + 1);
                    }
                } else {
                    let e = out.ended(off);
                    *e = add_games(*e, 1);
                }
            }
        }
    };
}

hashed_walker!(portable, legal_moves, flips);
fast_copy!(hashed_walker);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use crate::perft::perft;

    #[test]
    fn equals_brute_on_every_size() {
        for depth in 1..=20 {
            assert_eq!(perft_hashed::<B4>(depth, 1 << 30).0, perft::<B4>(depth), "4x4 depth {depth}");
        }
        assert_eq!(perft_hashed::<B6>(9, 1 << 30).0, perft::<B6>(9));
        assert_eq!(perft_hashed::<B8>(8, 1 << 30).0, perft::<B8>(8));
        // a table that fills at once changes nothing
        assert_eq!(perft_hashed::<B8>(8, 1).0, perft::<B8>(8));
        let (_, stats) = perft_hashed::<B6>(12, 1 << 30);
        assert!(stats.hits > 0 && stats.stored > 0);
        assert!(stats.split_shapes < stats.split_paths);
    }
}
