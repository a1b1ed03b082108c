//! Game counts by ply (perft), under both conventions of known-values.md.
//!
//! A pass counts as a ply. For ply `n`:
//! - `games`: paths of exactly `n` plies from the start; a game that ended
//!   earlier is dropped. On 8x8 this is OEIS A124004 (Edax's perft; the
//!   convention of the position counts of A124005).
//! - `games_including_ended`: a game that ended before ply `n` still counts
//!   as one game at ply `n` and at every later ply (Aart Bik's perft for
//!   reversi; not an OEIS sequence).
//!
//! Two methods count the same rows. [`perft`] walks every game (the brute
//! force, kept as the independent check); [`hashed::perft_hashed`] counts
//! each class of subtrees once. Both walk the first [`SPLIT_PLY`] plies in
//! one thread, then the subtrees below that ply in parallel (rayon), and
//! count the last ply in bulk: a node one ply above the horizon adds the
//! popcount of its moves. Game counts are [`GameCount`]s summed with
//! [`add_games`], as in every engine: an overflow stops the run, never
//! wraps.

pub mod hashed;

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

#[allow(unused_imports)]
use crate::board::cpu::{CpuLevel, cpu_copies};
use crate::board::movegen::{flips, legal_moves};
use crate::board::{Geometry, Position};
use crate::census::{GameCount, add_games};

/// Counts for one ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PerftRow {
    /// Ply number, from 1.
    pub ply: u32,
    /// Games of exactly `ply` plies still going or just ended (finished
    /// games dropped): OEIS A124004 on 8x8.
    pub games: GameCount,
    /// `games` plus the games that ended before this ply (Bik's perft).
    pub games_including_ended: GameCount,
    /// Of `games`, how many reached this ply by a pass.
    pub passes: GameCount,
    /// Of `games`, how many end at this ply (neither side can move). Not
    /// computed for the last ply of the run (reported as `None`).
    pub ended: Option<GameCount>,
}

/// Per-ply counts of a walk, indexed by ply: `nodes[k]` games reach ply
/// `k`, `passes[k]` of them by a pass, `ended[k]` games end at ply `k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tally {
    pub nodes: Vec<GameCount>,
    pub passes: Vec<GameCount>,
    pub ended: Vec<GameCount>,
}

impl Tally {
    pub fn new(depth: u32) -> Tally {
        let len = depth as usize + 1;
        Tally { nodes: vec![0; len], passes: vec![0; len], ended: vec![0; len] }
    }

    pub fn merge(mut self, other: Tally) -> Tally {
        for (a, b) in self.nodes.iter_mut().zip(&other.nodes) {
            *a = add_games(*a, *b);
        }
        for (a, b) in self.passes.iter_mut().zip(&other.passes) {
            *a = add_games(*a, *b);
        }
        for (a, b) in self.ended.iter_mut().zip(&other.ended) {
            *a = add_games(*a, *b);
        }
        self
    }

    /// The rows of plies `1..=depth` (`ended[depth]` is not known).
    pub fn rows(&self) -> Vec<PerftRow> {
        let depth = self.nodes.len() as u32 - 1;
        let mut rows = Vec::with_capacity(depth as usize);
        let mut finished_before: GameCount = 0;
        for ply in 1..=depth {
            let i = ply as usize;
            finished_before = add_games(finished_before, self.ended[i - 1]);
            rows.push(PerftRow {
                ply,
                games: self.nodes[i],
                games_including_ended: add_games(self.nodes[i], finished_before),
                passes: self.passes[i],
                ended: (ply < depth).then_some(self.ended[i]),
            });
        }
        rows
    }
}

/// The ply at which the walk splits into parallel subtrees (or the ply
/// above the horizon, if that is earlier).
pub const SPLIT_PLY: u32 = 6;

/// How far a perft has gone: subtrees below the split ply done, of all.
/// Read it from another thread to show progress.
#[derive(Debug, Default)]
pub struct PerftProgress {
    done: AtomicU64,
    total: AtomicU64,
}

impl PerftProgress {
    /// A progress with nothing counted yet.
    pub fn new() -> PerftProgress {
        PerftProgress::default()
    }

    /// (subtrees done, subtrees in all); the total is 0 until the split.
    pub fn get(&self) -> (u64, u64) {
        (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed))
    }

    pub(crate) fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }

    pub(crate) fn step(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

/// The positions at ply `split` (with repetitions: one per path), after
/// counting into `t` every ply up to `split`. Ends and passes above the
/// split are counted here.
pub(crate) fn frontier<G: Geometry>(split: u32, t: &mut Tally) -> Vec<(u64, u64)> {
    let start = Position::<G>::start();
    let mut level = vec![(start.mover().0, start.opponent().0)];
    for ply in 0..split as usize {
        let mut next = Vec::with_capacity(level.len() * 8);
        for &(me, opp) in &level {
            let mut moves = legal_moves::<G>(me, opp);
            if moves != 0 {
                t.nodes[ply + 1] = add_games(t.nodes[ply + 1], GameCount::from(moves.count_ones()));
                while moves != 0 {
                    let sq = moves.trailing_zeros();
                    moves &= moves - 1;
                    let f = flips::<G>(me, opp, sq);
                    next.push(crate::board::movegen::play(me, opp, sq, f));
                }
            } else if legal_moves::<G>(opp, me) != 0 {
                t.nodes[ply + 1] = add_games(t.nodes[ply + 1], 1);
                t.passes[ply + 1] = add_games(t.passes[ply + 1], 1);
                next.push((opp, me));
            } else {
                t.ended[ply] = add_games(t.ended[ply], 1);
            }
        }
        level = next;
    }
    level
}

/// Per-ply game counts from the start position, plies `1..=depth`, by
/// walking every game.
pub fn perft<G: Geometry>(depth: u32) -> Vec<PerftRow> {
    perft_with_progress::<G>(depth, &PerftProgress::new())
}

/// [`perft`], reporting progress in `progress`.
pub fn perft_with_progress<G: Geometry>(depth: u32, progress: &PerftProgress) -> Vec<PerftRow> {
    assert!(depth >= 1, "perft depth must be at least 1");
    let split = SPLIT_PLY.min(depth - 1);
    let mut top = Tally::new(depth);
    let level = frontier::<G>(split, &mut top);
    progress.set_total(level.len() as u64);
    let below = level
        .into_par_iter()
        .map(|(me, opp)| {
            let mut t = Tally::new(depth);
            brute_walk::<G>(me, opp, split, depth, &mut t);
            progress.step();
            t
        })
        .reduce(|| Tally::new(depth), Tally::merge);
    top.merge(below).rows()
}

/// The plain walk below the split: adds the subtree of (`me`, `opp`) at
/// `ply` (counted by its parent) to `t`. Dispatches to a copy compiled
/// with the CPU's bit instructions when it has them.
fn brute_walk<G: Geometry>(me: u64, opp: u64, ply: u32, depth: u32, t: &mut Tally) {
    match CpuLevel::detect() {
        // SAFETY: the token proves the CPU has `fast512::walk`'s level.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx512(_) => unsafe { fast512::walk::<G>(me, opp, ply, depth, t) },
        // SAFETY: the token proves the CPU has `fast::walk`'s level.
        #[cfg(target_arch = "x86_64")]
        CpuLevel::Avx2(_) => unsafe { fast::walk::<G>(me, opp, ply, depth, t) },
        _ => portable::walk::<G>(me, opp, ply, depth, t),
    }
}

macro_rules! brute_walker {
    ($module:ident, $moves:ident, $flips:ident, $mobility:ident, [$($features:literal),*]) => {
        mod $module {
            use super::*;
            #[cfg(target_arch = "x86_64")]
            #[allow(unused_imports)]
            use crate::board::movegen::{flips_avx2, legal_moves_avx2};

            $(#[target_feature(enable = $features)])*
            pub(super) fn walk<G: Geometry>(me: u64, opp: u64, ply: u32, depth: u32, t: &mut Tally) {
                let next = ply as usize + 1;
                let mut moves = $moves::<G>(me, opp);
                if moves != 0 {
                    t.nodes[next] = add_games(t.nodes[next], GameCount::from(moves.count_ones()));
                    if (next as u32) < depth {
                        while moves != 0 {
                            let sq = moves.trailing_zeros();
                            moves &= moves - 1;
                            let f = $flips::<G>(me, opp, sq);
                            {
                                let (cme, copp) = crate::board::movegen::play(me, opp, sq, f);
                                walk::<G>(cme, copp, ply + 1, depth, t);
                            }
                        }
                    }
                } else if $moves::<G>(opp, me) != 0 {
                    t.nodes[next] = add_games(t.nodes[next], 1);
                    t.passes[next] = add_games(t.passes[next], 1);
                    if (next as u32) < depth {
                        walk::<G>(opp, me, ply + 1, depth, t);
                    }
                } else {
                    t.ended[ply as usize] = add_games(t.ended[ply as usize], 1);
                }
            }
        }
    };
}

cpu_copies!(brute_walker);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B8};

    #[test]
    fn first_plies() {
        let rows = perft::<B8>(4);
        let games: Vec<GameCount> = rows.iter().map(|r| r.games).collect();
        assert_eq!(games, vec![4, 12, 56, 244]);
        let rows4 = perft::<B4>(3);
        assert_eq!(rows4.iter().map(|r| r.games).collect::<Vec<_>>(), vec![4, 12, 44]);
    }

    #[test]
    fn every_copy_of_the_walk_agrees() {
        let s = Position::<B8>::start();
        let mut portable = Tally::new(9);
        portable::walk::<B8>(s.mover().0, s.opponent().0, 0, 9, &mut portable);
        assert_eq!(portable.rows(), perft::<B8>(9));
        for level in CpuLevel::for_tests("the perft walker test") {
            let mut t = Tally::new(9);
            match level {
                CpuLevel::Portable => continue,
                // SAFETY: the token proves the CPU has the copy's level.
                #[cfg(target_arch = "x86_64")]
                CpuLevel::Avx2(_) => unsafe { fast::walk::<B8>(s.mover().0, s.opponent().0, 0, 9, &mut t) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                CpuLevel::Avx512(_) => unsafe { fast512::walk::<B8>(s.mover().0, s.opponent().0, 0, 9, &mut t) },
                #[cfg(not(target_arch = "x86_64"))]
                _ => unreachable!(),
            }
            assert_eq!(t, portable, "the {level} copy");
        }
    }
}
