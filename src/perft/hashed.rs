//! perft through transpositions and symmetry.
//!
//! The per-ply counts of a position's subtree — games, passes and ended
//! games at each relative ply — depend only on the position's class (the
//! four symmetries of the start map game trees onto game trees) and on the
//! remaining depth. They are memoized in a table keyed by the full
//! canonical key and the remaining depth (a key is never truncated, so a
//! collision cannot corrupt a count), for remaining depths of at least
//! [`MEMO_MIN`]; shallower subtrees are walked, the last ply counted in
//! bulk (the popcount of the moves). The first plies are walked in
//! parallel, and the table is shared by every thread. Its size is bounded:
//! once the table holds `memory` bytes nothing more is stored, which only
//! costs time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{PerftRow, add_count, rows};
use crate::board::Position;
use crate::key::{Keyed, PackedKey, canonical_key};

/// Subtrees with at least this many plies left are memoized.
pub const MEMO_MIN: u32 = 4;
/// Plies near the root walked in parallel (without the table).
const PARALLEL_PLIES: u32 = 4;
const SHARDS: usize = 256;

/// Counts of a subtree of `r` plies, relative to its root, in one slice:
/// `nodes[1..=r]`, then `passes[1..=r]`, then `ended[0..r]`.
struct Sub<'a> {
    r: usize,
    v: &'a mut [u64],
}

impl Sub<'_> {
    #[inline(always)]
    fn nodes(&mut self, k: usize) -> &mut u64 {
        &mut self.v[k - 1]
    }
    #[inline(always)]
    fn passes(&mut self, k: usize) -> &mut u64 {
        &mut self.v[self.r + k - 1]
    }
    #[inline(always)]
    fn ended(&mut self, k: usize) -> &mut u64 {
        &mut self.v[2 * self.r + k]
    }

    /// Adds `child` (a subtree of `r - off` plies whose root is `off` plies
    /// below this one).
    fn add_shifted(&mut self, child: &[u64], off: usize) {
        let cr = child.len() / 3;
        for k in 1..=cr {
            let n = self.nodes(k + off);
            *n = add_count(*n, child[k - 1]);
            let p = self.passes(k + off);
            *p = add_count(*p, child[cr + k - 1]);
        }
        for k in 0..cr {
            let e = self.ended(k + off);
            *e = add_count(*e, child[2 * cr + k]);
        }
    }
}

/// Bytes a table entry takes, roughly: key, depth, the counts, and the
/// hash map's own slot and allocation overhead.
fn entry_bytes(r: u32) -> u64 {
    16 + 8 + 24 * r as u64 + 48
}

/// One shard of the table.
type Shard = Mutex<HashMap<(u128, u8), Box<[u64]>>>;

/// The transposition table: (canonical key, plies left) → subtree counts.
pub struct Table {
    shards: Vec<Shard>,
    bytes: AtomicU64,
    limit: u64,
    hits: AtomicU64,
    stored: AtomicU64,
}

impl Table {
    fn new(limit: u64) -> Table {
        Table {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            bytes: AtomicU64::new(0),
            limit,
            hits: AtomicU64::new(0),
            stored: AtomicU64::new(0),
        }
    }

    #[inline]
    fn shard(&self, key: u128) -> &Shard {
        &self.shards[(xxh3_64(&key.to_le_bytes()) % SHARDS as u64) as usize]
    }
}

/// What a hashed perft did besides counting.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashedStats {
    /// Subtrees found in the table.
    pub hits: u64,
    /// Subtrees stored.
    pub stored: u64,
    /// Bytes the table held at the end (estimated).
    pub table_bytes: u64,
}

/// Per-ply game counts from the start, plies `1..=depth`, with a table of
/// at most `memory` bytes. Equal to [`super::perft`] in every column.
pub fn perft_hashed<G: Keyed>(depth: u32, memory: u64) -> (Vec<PerftRow>, HashedStats) {
    assert!(depth >= 1, "perft depth must be at least 1");
    let table = Table::new(memory);
    let d = depth as usize;
    let mut v = vec![0u64; 3 * d];
    par_root::<G>(&Position::<G>::start(), 0, depth, &table, &mut v);
    let mut root = Sub { r: d, v: &mut v };
    let mut nodes = vec![0u64; d + 1];
    let mut passes = vec![0u64; d + 1];
    let mut ended = vec![0u64; d + 1];
    for k in 1..=d {
        nodes[k] = *root.nodes(k);
        passes[k] = *root.passes(k);
    }
    for (k, e) in ended.iter_mut().enumerate().take(d) {
        *e = *root.ended(k);
    }
    let stats = HashedStats {
        hits: table.hits.load(Ordering::Relaxed),
        stored: table.stored.load(Ordering::Relaxed),
        table_bytes: table.bytes.load(Ordering::Relaxed),
    };
    (rows(&nodes, &passes, &ended, depth), stats)
}

/// The first plies in parallel: adds the subtree of `p` (at `ply`) to the
/// root counts `out` (relative to the start).
fn par_root<G: Keyed>(p: &Position<G>, ply: u32, depth: u32, table: &Table, out: &mut [u64]) {
    let d = depth as usize;
    let r = depth - ply;
    if ply >= PARALLEL_PLIES || r <= MEMO_MIN {
        let mut sub = Sub { r: d, v: out };
        walk(p, r, table, &mut sub, ply as usize);
        return;
    }
    let moves = p.legal_moves();
    let mut sub = Sub { r: d, v: out };
    if moves.is_empty() {
        if p.opponent_can_move() {
            *sub.nodes(ply as usize + 1) += 1;
            *sub.passes(ply as usize + 1) += 1;
            par_root(&p.pass(), ply + 1, depth, table, out);
        } else {
            *sub.ended(ply as usize) += 1;
        }
        return;
    }
    *sub.nodes(ply as usize + 1) += moves.count() as u64;
    let parts: Vec<Vec<u64>> = moves
        .iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|sq| {
            let mut v = vec![0u64; 3 * d];
            par_root(&p.play(sq), ply + 1, depth, table, &mut v);
            v
        })
        .collect();
    let mut sub = Sub { r: d, v: out };
    for part in &parts {
        sub.add_shifted(part, 0);
    }
}

/// Adds the counts of the subtree of `p` (`r` plies left), whose root is
/// `off` plies below the root of `out`.
fn walk<G: Keyed>(p: &Position<G>, r: u32, table: &Table, out: &mut Sub<'_>, off: usize) {
    if r >= MEMO_MIN {
        let key = canonical_key(p).to_u128();
        let shard = table.shard(key);
        if let Some(v) = shard.lock().expect("table lock").get(&(key, r as u8)) {
            table.hits.fetch_add(1, Ordering::Relaxed);
            out.add_shifted(v, off);
            return;
        }
        let mut v = vec![0u64; 3 * r as usize];
        expand(p, r, table, &mut Sub { r: r as usize, v: &mut v }, 0);
        out.add_shifted(&v, off);
        if table.bytes.load(Ordering::Relaxed) < table.limit {
            let mut s = shard.lock().expect("table lock");
            if s.insert((key, r as u8), v.into_boxed_slice()).is_none() {
                table.bytes.fetch_add(entry_bytes(r), Ordering::Relaxed);
                table.stored.fetch_add(1, Ordering::Relaxed);
            }
        }
        return;
    }
    expand(p, r, table, out, off);
}

/// The children of `p` (`r >= 1` plies left), counted into `out` at `off`.
#[inline]
fn expand<G: Keyed>(p: &Position<G>, r: u32, table: &Table, out: &mut Sub<'_>, off: usize) {
    let moves = p.legal_moves();
    if !moves.is_empty() {
        let n = out.nodes(off + 1);
        *n = add_count(*n, moves.count() as u64);
        if r > 1 {
            for sq in moves {
                walk(&p.play(sq), r - 1, table, out, off + 1);
            }
        }
    } else if p.opponent_can_move() {
        let n = out.nodes(off + 1);
        *n = add_count(*n, 1);
        let ps = out.passes(off + 1);
        *ps = add_count(*ps, 1);
        if r > 1 {
            walk(&p.pass(), r - 1, table, out, off + 1);
        }
    } else {
        let e = out.ended(off);
        *e = add_count(*e, 1);
    }
}

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
        let (_, stats) = perft_hashed::<B6>(9, 1 << 30);
        assert!(stats.hits > 0 && stats.stored > 0);
    }
}
