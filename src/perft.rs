//! Game counts by ply (perft), under both conventions of known-values.md.
//!
//! A pass counts as a ply. For ply `n`:
//! - `games`: paths of exactly `n` plies from the start; a game that ended
//!   earlier is dropped (the convention of Edax and of OEIS A124005's
//!   position counts).
//! - `games_a124004`: OEIS A124004, where a game that ended before ply `n`
//!   still counts as one game at ply `n` and at every later ply.
//!
//! The walk is parallel near the root (rayon) and counts the last ply in
//! bulk: a node one ply above the horizon adds the popcount of its moves.

pub mod hashed;

use rayon::prelude::*;
use serde::Serialize;

use crate::board::{Geometry, Position};

/// Counts for one ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PerftRow {
    /// Ply number, from 1.
    pub ply: u32,
    /// Games of exactly `ply` plies still going or just ended (finished
    /// games dropped).
    pub games: u64,
    /// OEIS A124004: games, with finished games carried forward.
    pub games_a124004: u64,
    /// Of `games`, how many reached this ply by a pass.
    pub passes: u64,
    /// Of `games`, how many end at this ply (neither side can move). Not
    /// computed for the last ply of the run (reported as `None`).
    pub ended: Option<u64>,
}

#[derive(Clone, Debug)]
struct Tally {
    nodes: Vec<u64>,
    passes: Vec<u64>,
    ended: Vec<u64>,
}

impl Tally {
    fn new(depth: u32) -> Tally {
        let len = depth as usize + 1;
        Tally { nodes: vec![0; len], passes: vec![0; len], ended: vec![0; len] }
    }

    fn merge(mut self, other: Tally) -> Tally {
        for (a, b) in self.nodes.iter_mut().zip(&other.nodes) {
            *a = add_count(*a, *b);
        }
        for (a, b) in self.passes.iter_mut().zip(&other.passes) {
            *a = add_count(*a, *b);
        }
        for (a, b) in self.ended.iter_mut().zip(&other.ended) {
            *a = add_count(*a, *b);
        }
        self
    }
}

/// Adds two game counts of a perft; an overflow of u64 (beyond 1.8e19
/// games) stops the count, never wraps.
#[inline(always)]
pub fn add_count(a: u64, b: u64) -> u64 {
    a.checked_add(b).expect("game count overflow: more than 2^64 games at one ply")
}

/// Rows of plies `1..=depth` from per-ply node, pass and end counts (index
/// = ply; `ended[depth]` is not known).
fn rows(nodes: &[u64], passes: &[u64], ended: &[u64], depth: u32) -> Vec<PerftRow> {
    let mut rows = Vec::with_capacity(depth as usize);
    let mut finished_before = 0u64;
    for ply in 1..=depth {
        let i = ply as usize;
        finished_before = add_count(finished_before, ended[i - 1]);
        rows.push(PerftRow {
            ply,
            games: nodes[i],
            games_a124004: add_count(nodes[i], finished_before),
            passes: passes[i],
            ended: (ply < depth).then_some(ended[i]),
        });
    }
    rows
}

/// Plies near the root walked in parallel.
const PARALLEL_PLIES: u32 = 4;

/// Per-ply game counts from the start position, plies `1..=depth`.
pub fn perft<G: Geometry>(depth: u32) -> Vec<PerftRow> {
    assert!(depth >= 1, "perft depth must be at least 1");
    let tally = par_walk(&Position::<G>::start(), 0, depth);
    rows(&tally.nodes, &tally.passes, &tally.ended, depth)
}

/// Walks the subtree of `p` (at `ply`, already counted by its parent).
fn par_walk<G: Geometry>(p: &Position<G>, ply: u32, depth: u32) -> Tally {
    if ply >= PARALLEL_PLIES || ply + 1 >= depth {
        let mut t = Tally::new(depth);
        walk(p, ply, depth, &mut t);
        return t;
    }
    let moves = p.legal_moves();
    if moves.is_empty() {
        let mut t = Tally::new(depth);
        if p.opponent_can_move() {
            t.nodes[ply as usize + 1] += 1;
            t.passes[ply as usize + 1] += 1;
            return t.merge(par_walk(&p.pass(), ply + 1, depth));
        }
        t.ended[ply as usize] += 1;
        return t;
    }
    moves
        .iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|sq| {
            let mut t = par_walk(&p.play(sq), ply + 1, depth);
            t.nodes[ply as usize + 1] += 1;
            t
        })
        .reduce(|| Tally::new(depth), Tally::merge)
}

fn walk<G: Geometry>(p: &Position<G>, ply: u32, depth: u32, t: &mut Tally) {
    let next = ply as usize + 1;
    let moves = p.legal_moves();
    if !moves.is_empty() {
        if next as u32 == depth {
            t.nodes[next] += moves.count() as u64;
            return;
        }
        t.nodes[next] += moves.count() as u64;
        for sq in moves {
            walk(&p.play(sq), ply + 1, depth, t);
        }
    } else if p.opponent_can_move() {
        t.nodes[next] += 1;
        t.passes[next] += 1;
        if (next as u32) < depth {
            walk(&p.pass(), ply + 1, depth, t);
        }
    } else {
        t.ended[ply as usize] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B8};

    #[test]
    fn first_plies() {
        let rows = perft::<B8>(4);
        let games: Vec<u64> = rows.iter().map(|r| r.games).collect();
        assert_eq!(games, vec![4, 12, 56, 244]);
        let rows4 = perft::<B4>(3);
        assert_eq!(rows4.iter().map(|r| r.games).collect::<Vec<_>>(), vec![4, 12, 44]);
    }
}
