//! perft through transpositions and symmetry.
//!
//! The per-ply counts of a position's subtree (games, passes and ended
//! games at each ply below it) depend only on its shape (see
//! [`crate::search::subtree`]: mover and opponent discs up to the eight symmetries of
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
//! The table has two tiers, both within `memory` bytes:
//! - the *flat* tier holds subtrees of [`MEMO_MIN`]`..=`[`FLAT_MAX`]
//!   plies, by far the most numerous: a fixed array of 64-byte slots, one
//!   per hash value, a newer subtree replacing an older one. A slot is
//!   guarded by a sequence number (a seqlock): a reader that overlaps a
//!   writer sees the number change and takes it as a miss, so a count is
//!   never read torn. Counts too large for a slot's fields are not stored.
//! - the *map* tier holds the deeper subtrees, in sharded hash maps; once
//!   it holds its share of bytes nothing more is stored.
//!
//! A miss costs time only, never a wrong count.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{PerftProgress, PerftRow, SPLIT_PLY, Tally, frontier};
use crate::board::Geometry;
use crate::board::cpu::{CpuLevel, cpu_copies};
use crate::board::movegen::{flips, legal_moves, mobility_sum, play};
use crate::census::{GameCount, add_games};
use crate::search::subtree::subtree_key;
use crate::slots::{Line, Slots, read_record, write_record};

/// Subtrees with at least this many plies left are memoized.
pub const MEMO_MIN: u32 = 3;
/// Subtrees of [`MEMO_MIN`]`..=FLAT_MAX` plies go to the flat tier of the
/// table, deeper ones to the map tier.
pub const FLAT_MAX: u32 = 4;
const SHARDS: usize = 256;
// below the memoized plies `walk` counts, and it walks one or two
const _: () = assert!(2 <= MEMO_MIN && MEMO_MIN <= 3 && MEMO_MIN <= FLAT_MAX);

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

    /// Adds `t` (a subtree of `r` plies, at most [`FLAT_MAX`], whose root
    /// is `off` plies below this one).
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

const SMALL: usize = FLAT_MAX as usize + 1;

/// The counts of a subtree of at most [`FLAT_MAX`] plies, by relative ply
/// (`nodes[1..=r]`, `passes[1..=r]`, `ended[0..r]`). Such a subtree holds
/// fewer than 64^FLAT_MAX games, so u64 cannot overflow; the counts join
/// the [`GameCount`] sums through [`add_games`].
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Small {
    nodes: [u64; SMALL],
    passes: [u64; SMALL],
    ended: [u64; SMALL],
}

impl Small {
    /// Adds `c`, the counts of a child subtree of `cr` plies one ply below.
    #[inline(always)]
    fn add_child(&mut self, c: &Small, cr: usize) {
        for k in 1..=cr {
            self.nodes[k + 1] += c.nodes[k];
            self.passes[k + 1] += c.passes[k];
        }
        for k in 0..cr {
            self.ended[k + 1] += c.ended[k];
        }
    }

    /// The four words of a flat slot: `nodes[1..=4]` as u32, `passes[1..=4]`
    /// and `ended[0..4]` as u16; `None` when a count does not fit.
    fn encode(&self) -> Option<[u64; 4]> {
        let mut w = [0u64; 4];
        for k in 1..SMALL {
            let n = u32::try_from(self.nodes[k]).ok()?;
            let p = u16::try_from(self.passes[k]).ok()?;
            let e = u16::try_from(self.ended[k - 1]).ok()?;
            let i = k - 1;
            w[i / 2] |= u64::from(n) << (32 * (i % 2));
            w[2] |= u64::from(p) << (16 * i);
            w[3] |= u64::from(e) << (16 * i);
        }
        Some(w)
    }

    fn decode(w: [u64; 4]) -> Small {
        let mut s = Small::default();
        for k in 1..SMALL {
            let i = k - 1;
            s.nodes[k] = (w[i / 2] >> (32 * (i % 2))) & 0xffff_ffff;
            s.passes[k] = (w[2] >> (16 * i)) & 0xffff;
            s.ended[k - 1] = (w[3] >> (16 * i)) & 0xffff;
        }
        s
    }
}

/// Bytes a map-tier entry of `r` plies takes, roughly: the (key, plies)
/// slot and its boxed counts in the map (at a typical load), the counts,
/// the allocator's overhead.
fn entry_bytes(r: u32) -> u64 {
    90 + 48 * r as u64
}

/// Mixes a (shape, plies left) key.
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

/// One shard of the map tier.
type Shard = Mutex<HashMap<(u128, u8), Box<[GameCount]>, BuildHasherDefault<KeyHasher>>>;

/// The flat tier: a power-of-two array of cache lines ([`Slots`]), one
/// subtree in each: word 0 is the sequence number (times 256, odd while a
/// writer fills the line) plus the plies left (0: empty), words 1-2 the
/// shape key, words 3-6 the counts ([`Small::encode`]).
struct Flat {
    slots: Slots<Line>,
    mask: u64,
}

impl Flat {
    /// The largest power-of-two number of slots within `bytes` (at least one).
    fn new(bytes: u64) -> Flat {
        let n = (bytes / size_of::<Line>() as u64).max(1);
        let n = 1u64 << (63 - n.leading_zeros());
        Flat { slots: Slots::new(n as usize), mask: n - 1 }
    }

    fn bytes(&self) -> u64 {
        self.slots.bytes()
    }

    #[inline(always)]
    fn slot(&self, key: u128, r: u32) -> &[AtomicU64; 8] {
        &self.slots.get((mix(key, r) & self.mask) as usize).0
    }

    /// Asks the CPU to bring the slot of (key, r) into its cache.
    #[inline(always)]
    fn prefetch(&self, key: u128, r: u32) {
        crate::board::cpu::prefetch(self.slot(key, r));
    }

    /// The counts stored for (key, r), if the slot holds them and no
    /// writer changed it meanwhile.
    #[inline(always)]
    fn probe(&self, key: u128, r: u32) -> Option<Small> {
        let (tag, [k0, k1, a, b, c, d]) = read_record::<6>(self.slot(key, r), 8)?;
        (tag == u64::from(r) && k0 == key as u64 && k1 == (key >> 64) as u64).then(|| Small::decode([a, b, c, d]))
    }

    /// Stores `t` for (key, r), unless a writer holds the slot or a count
    /// does not fit.
    #[inline(always)]
    fn store(&self, key: u128, r: u32, t: &Small) -> bool {
        let Some([a, b, c, d]) = t.encode() else { return false };
        write_record(self.slot(key, r), 8, u64::from(r), &[key as u64, (key >> 64) as u64, a, b, c, d])
    }
}

/// The transposition table: (shape key, plies left) → subtree counts.
struct Table {
    flat: Flat,
    shards: Vec<Shard>,
    bytes: AtomicU64,
    limit: u64,
}

impl Table {
    /// A table of at most `memory` bytes for subtrees of at most `r`
    /// plies: a flat tier of about three quarters of them when the run is
    /// deep enough to use the map tier, and no more than room for `want`
    /// subtrees (rounded up to a power of two: a table larger than the
    /// run needs only costs the time to clear its pages).
    fn new(memory: u64, r: u32, want: f64) -> Table {
        let share = if r > FLAT_MAX + 1 { memory / 4 * 3 } else { memory };
        let want = (want.min(1e15) as u64).max(1).next_power_of_two().saturating_mul(size_of::<Line>() as u64);
        let flat = Flat::new(share.min(want));
        Table {
            limit: memory.saturating_sub(flat.bytes()),
            flat,
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::default())).collect(),
            bytes: AtomicU64::new(0),
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
                true
            }
            None => false,
        }
    }

    /// Stores the counts of (key, r), unless the map tier is full; true
    /// when a new entry was made.
    #[inline]
    fn store(&self, key: u128, r: u32, v: Vec<GameCount>) -> bool {
        if self.bytes.load(Ordering::Relaxed) + entry_bytes(r) > self.limit {
            return false;
        }
        let mut shard = self.shard(key, r).lock().expect("perft table lock");
        let new = shard.insert((key, r as u8), v.into_boxed_slice()).is_none();
        if new {
            self.bytes.fetch_add(entry_bytes(r), Ordering::Relaxed);
        }
        new
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
    /// Subtrees stored (in the flat tier, a later subtree may have
    /// replaced an earlier one).
    pub stored: u64,
    /// Bytes the table held at the end: the flat tier's array and the
    /// estimated size of the map tier.
    pub table_bytes: u64,
}

/// Per-ply game counts from the start, plies `1..=depth`, with a table of
/// at most `memory` bytes. Equal to [`super::perft`] in every column.
pub fn perft_hashed<G: Geometry>(depth: u32, memory: u64) -> (Vec<PerftRow>, HashedStats) {
    perft_hashed_with_progress::<G>(depth, memory, &PerftProgress::new())
}

/// Counters one worker keeps for both tiers, summed at the end (shared
/// atomics would bounce a cache line between cores on every probe).
#[derive(Default, Clone, Copy)]
struct Counters {
    hits: u64,
    stored: u64,
}

/// [`perft_hashed`], reporting progress (shapes at the split ply done) in
/// `progress`.
pub fn perft_hashed_with_progress<G: Geometry>(
    depth: u32,
    memory: u64,
    progress: &PerftProgress,
) -> (Vec<PerftRow>, HashedStats) {
    counted::<G>(depth, memory, progress, CpuLevel::detect())
}

/// [`perft_hashed_with_progress`] with the walker copy `copy` (see
/// [`CpuLevel`]).
fn counted<G: Geometry>(
    depth: u32,
    memory: u64,
    progress: &PerftProgress,
    copy: CpuLevel,
) -> (Vec<PerftRow>, HashedStats) {
    assert!(depth >= 1, "perft depth must be at least 1");
    let split = SPLIT_PLY.min(depth - 1);
    let mut top = Tally::new(depth);
    let level = frontier::<G>(split, &mut top);
    let split_paths = level.len() as u64;
    let mut shapes: HashMap<u128, (u64, u64, GameCount)> = HashMap::new();
    for (me, opp) in level {
        let e = shapes.entry(subtree_key::<G>(me, opp)).or_insert((me, opp, 0));
        e.2 = add_games(e.2, 1);
    }
    let mut shapes: Vec<(u64, u64, GameCount)> = shapes.into_values().collect();
    // the largest subtrees are not known in advance; a fixed order keeps runs comparable
    shapes.sort_unstable();
    progress.set_total(shapes.len() as u64);
    let r = depth - split;
    // the subtrees the flat tier will be offered, about: the shapes at the
    // split, growing from there by the growth of the games just above it,
    // down to the shallowest memoized ply (measured: about half of what is
    // stored at depth 14 on 8x8; a larger table hits little more, and
    // clearing its pages costs more than it saves)
    let growth = if split >= 2 { top.nodes[split as usize] as f64 / top.nodes[split as usize - 1] as f64 } else { 8.0 };
    let want = shapes.len() as f64 * growth.max(1.0).powi(r.saturating_sub(MEMO_MIN) as i32);
    let table = Table::new(memory, r, want);
    let (below, counters) = shapes
        .par_iter()
        .map(|&(me, opp, paths)| {
            let mut v = vec![0; 3 * r as usize];
            let mut c = Counters::default();
            visit::<G>(me, opp, r, &table, &mut Sub { r: r as usize, v: &mut v }, 0, &mut c, copy);
            progress.step();
            let mut t = Tally::new(depth);
            let s = split as usize;
            let times = |c: GameCount| c.checked_mul(paths).expect(crate::census::GAMES_OVERFLOW);
            for k in 1..=r as usize {
                t.nodes[s + k] = times(v[k - 1]);
                t.passes[s + k] = times(v[r as usize + k - 1]);
            }
            for k in 0..r as usize {
                t.ended[s + k] = times(v[2 * r as usize + k]);
            }
            (t, c)
        })
        .reduce(
            || (Tally::new(depth), Counters::default()),
            |(a, x), (b, y)| (a.merge(b), Counters { hits: x.hits + y.hits, stored: x.stored + y.stored }),
        );
    let stats = HashedStats {
        split_shapes: shapes.len() as u64,
        split_paths,
        hits: counters.hits,
        stored: counters.stored,
        table_bytes: table.flat.bytes() + table.bytes.load(Ordering::Relaxed),
    };
    (top.merge(below).rows(), stats)
}

/// Adds the counts of the subtree of (`me`, `opp`) (`r` plies left), whose
/// root is `off` plies below the root of `out`. Dispatches to the copy
/// compiled for `copy`.
#[allow(clippy::too_many_arguments)] // (the walkers' arguments, passed on as they are, plus the copy)
fn visit<G: Geometry>(
    me: u64,
    opp: u64,
    r: u32,
    table: &Table,
    out: &mut Sub<'_>,
    off: usize,
    c: &mut Counters,
    copy: CpuLevel,
) {
    match copy {
        // SAFETY: the token proves the CPU has `fast512`'s level.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512(_) => unsafe { fast512::visit::<G>(me, opp, r, table, out, off, c) },
        // SAFETY: the token proves the CPU has `fast`'s level.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2(_) => unsafe { fast::visit::<G>(me, opp, r, table, out, off, c) },
        _ => portable::visit::<G>(me, opp, r, table, out, off, c),
    }
}

macro_rules! hashed_walker {
    ($module:ident, $moves:ident, $flips:ident, $mobility:ident, [$($features:literal),*]) => {
        mod $module {
            use super::*;
            #[cfg(target_arch = "x86_64")]
            #[allow(unused_imports)]
            use crate::board::movegen::{flips_avx2, legal_moves_avx2, mobility_sum_avx2, mobility_sum_avx512};

            /// A subtree of more than [`FLAT_MAX`] plies: through the map
            /// tier; smaller ones through [`small`].
            $(#[target_feature(enable = $features)])*
            pub(super) fn visit<G: Geometry>(
                me: u64,
                opp: u64,
                r: u32,
                table: &Table,
                out: &mut Sub<'_>,
                off: usize,
                c: &mut Counters,
            ) {
                if r <= FLAT_MAX {
                    let t = small::<G>(me, opp, r, table, c);
                    out.add_small(&t, r as usize, off);
                    return;
                }
                let key = subtree_key::<G>(me, opp);
                if table.probe(key, r, out, off) {
                    c.hits += 1;
                    return;
                }
                let mut v = vec![0; 3 * r as usize];
                let sub = &mut Sub { r: r as usize, v: &mut v };
                let mut moves = $moves::<G>(me, opp);
                if moves != 0 {
                    *sub.nodes(1) = GameCount::from(moves.count_ones());
                    while moves != 0 {
                        let sq = moves.trailing_zeros();
                        moves &= moves - 1;
                        let f = $flips::<G>(me, opp, sq);
                        {
                            let (cme, copp) = play(me, opp, sq, f);
                            visit::<G>(cme, copp, r - 1, table, sub, 1, c);
                        }
                    }
                } else if $moves::<G>(opp, me) != 0 {
                    *sub.nodes(1) = 1;
                    *sub.passes(1) = 1;
                    visit::<G>(opp, me, r - 1, table, sub, 1, c);
                } else {
                    *sub.ended(0) = 1;
                }
                out.add_shifted(&v, off);
                if table.store(key, r, v) {
                    c.stored += 1;
                }
            }

            /// The counts of the subtree of (`me`, `opp`), `1 <= r <=
            /// FLAT_MAX` plies left: through the flat tier from
            /// [`MEMO_MIN`] plies on, walked below.
            $(#[target_feature(enable = $features)])*
            fn small<G: Geometry>(me: u64, opp: u64, r: u32, table: &Table, c: &mut Counters) -> Small {
                if r < MEMO_MIN {
                    return walk::<G>(me, opp, r);
                }
                small_keyed::<G>(me, opp, subtree_key::<G>(me, opp), r, table, c)
            }

            /// [`small`] for a memoized subtree whose shape key is known.
            $(#[target_feature(enable = $features)])*
            fn small_keyed<G: Geometry>(me: u64, opp: u64, key: u128, r: u32, table: &Table, c: &mut Counters) -> Small {
                if let Some(t) = table.flat.probe(key, r) {
                    c.hits += 1;
                    return t;
                }
                let t = expand::<G>(me, opp, r, table, c);
                if table.flat.store(key, r, &t) {
                    c.stored += 1;
                }
                t
            }

            /// The counts of the subtree of (`me`, `opp`), `2 < r <=
            /// FLAT_MAX` plies left, from its children's. When they are
            /// memoized, all their slots are fetched from memory first, so
            /// that the waits overlap.
            $(#[target_feature(enable = $features)])*
            fn expand<G: Geometry>(me: u64, opp: u64, r: u32, table: &Table, c: &mut Counters) -> Small {
                let mut t = Small::default();
                let mut moves = $moves::<G>(me, opp);
                if moves != 0 {
                    t.nodes[1] = u64::from(moves.count_ones());
                    if r > MEMO_MIN {
                        let mut kids = [(0u64, 0u64, 0u128); 64];
                        let mut n = 0;
                        while moves != 0 {
                            let sq = moves.trailing_zeros();
                            moves &= moves - 1;
                            let f = $flips::<G>(me, opp, sq);
                            let (a, b) = play(me, opp, sq, f);
                            let key = subtree_key::<G>(a, b);
                            table.flat.prefetch(key, r - 1);
                            kids[n] = (a, b, key);
                            n += 1;
                        }
                        for &(a, b, key) in &kids[..n] {
                            t.add_child(&small_keyed::<G>(a, b, key, r - 1, table, c), r as usize - 1);
                        }
                    } else {
                        while moves != 0 {
                            let sq = moves.trailing_zeros();
                            moves &= moves - 1;
                            let f = $flips::<G>(me, opp, sq);
                            let (cme, copp) = play(me, opp, sq, f);
                            t.add_child(&small::<G>(cme, copp, r - 1, table, c), r as usize - 1);
                        }
                    }
                } else if $moves::<G>(opp, me) != 0 {
                    t.nodes[1] = 1;
                    t.passes[1] = 1;
                    t.add_child(&small::<G>(opp, me, r - 1, table, c), r as usize - 1);
                } else {
                    t.ended[0] = 1;
                }
                t
            }

            /// The subtree of (`me`, `opp`), `r` (1 or 2) plies left, walked;
            /// the last ply counted in bulk.
            $(#[target_feature(enable = $features)])*
            fn walk<G: Geometry>(me: u64, opp: u64, r: u32) -> Small {
                let mut t = Small::default();
                let moves = $moves::<G>(me, opp);
                if moves != 0 {
                    t.nodes[1] = u64::from(moves.count_ones());
                    if r == 1 {
                        return t;
                    }
                    let (n2, mut blocked) = $mobility::<G>(me, opp, moves);
                    t.nodes[2] = n2;
                    // children left without a move: a pass, or the end
                    while blocked != 0 {
                        let sq = blocked.trailing_zeros();
                        blocked &= blocked - 1;
                        let f = $flips::<G>(me, opp, sq);
                        // the child's mover has no move: can its opponent move?
                        let (cme, copp) = play(me, opp, sq, f);
                        if $moves::<G>(copp, cme) != 0 {
                            t.nodes[2] += 1;
                            t.passes[2] += 1;
                        } else {
                            t.ended[1] += 1;
                        }
                    }
                } else {
                    let back = $moves::<G>(opp, me);
                    if back == 0 {
                        t.ended[0] = 1;
                        return t;
                    }
                    t.nodes[1] = 1;
                    t.passes[1] = 1;
                    if r == 2 {
                        t.nodes[2] = u64::from(back.count_ones());
                    }
                }
                t
            }
        }
    };
}

cpu_copies!(hashed_walker);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use crate::search::perft::perft;

    /// Every compiled copy of the walker this CPU can run counts the same,
    /// through both tiers of the table (8x8 to 11: subtrees of 5 plies).
    #[test]
    fn every_copy_counts_the_same() {
        let progress = PerftProgress::new();
        let expect = perft::<B8>(11);
        for level in CpuLevel::for_tests("the hashed perft test") {
            assert_eq!(counted::<B8>(11, 1 << 28, &progress, level).0, expect, "copy {level}");
            assert_eq!(counted::<B6>(11, 1 << 28, &progress, level).0, perft::<B6>(11), "copy {level}");
        }
    }

    /// Threads storing and probing a few slots at once never read a torn
    /// entry: whatever a probe returns is what was stored for that key.
    #[test]
    fn the_flat_tier_never_returns_a_torn_entry() {
        let flat = Flat::new(8 * size_of::<Line>() as u64);
        let value = |key: u128| {
            let k = key as u64;
            let mut s = Small::default();
            for i in 1..SMALL {
                s.nodes[i] = (k * 7919 + i as u64) & 0xffff_ffff;
                s.passes[i] = (k * 31 + i as u64) & 0xffff;
                s.ended[i - 1] = (k * 131 + i as u64) & 0xffff;
            }
            s
        };
        let found = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for t in 0..4u64 {
                let (flat, found) = (&flat, &found);
                scope.spawn(move || {
                    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ t;
                    for _ in 0..200_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let key = u128::from(x % 40) << 70 | u128::from(x % 40);
                        let r = 3 + (x >> 40) as u32 % 2;
                        if (x >> 20) & 1 == 0 {
                            flat.store(key, r, &value(key ^ u128::from(r)));
                        } else if let Some(got) = flat.probe(key, r) {
                            assert_eq!(got, value(key ^ u128::from(r)));
                            found.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(found.load(Ordering::Relaxed) > 0);
    }

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
