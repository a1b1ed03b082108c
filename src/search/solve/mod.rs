//! Perfect play: the exact value of a position by negamax alpha-beta with
//! principal-variation search and MTD(f) windows, a transposition table
//! keyed by the position's shape (the eight symmetries of the square fold
//! transpositions) and shared by all threads, move ordering by the table's
//! best move, a short search of each child by mobility and corners (the
//! opponent's mobility alone nearer the end), corners, X-squares and
//! parity, and a plain search for the last few empties.
//!
//! Threads: every thread searches the whole tree through the shared table;
//! a position one thread is searching is put last by the others (a
//! simplified ABDADA), so they spread over the tree. The main thread's
//! value is the answer; helpers stop when it has it and store nothing after.
//!
//! Values are final disc differences from the point of view of the side to
//! move, empty squares going to the winner (the usual convention); `solve`
//! reports them for Black.

mod order;
mod pv;
mod search;
mod table;

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::board::{Color, Position};
use crate::key::Keyed;
pub use table::ENTRY_BYTES;
use table::Table;

/// Empties at or below which the search stops probing the table and
/// ordering moves.
const SHALLOW: u32 = 6;
/// Empties above which children are looked up in the table before the
/// search (enhanced transposition cutoff).
const ETC_EMPTIES: u32 = 14;
/// Empties from which a thread searching a position marks it busy, and a
/// thread meeting a busy position among its later moves searches it last
/// (by when the table likely holds its value): so that threads sharing a
/// table spread over the tree instead of searching the same subtrees.
const DEFER_EMPTIES: u32 = 12;

/// The exact value of a position and how it was found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Final disc difference, Black − White, empty squares to the winner.
    pub value: i32,
    /// The disc difference, Black − White, at the end of the principal
    /// variation, empty squares left empty.
    pub raw_difference: i32,
    /// The principal variation from the position: squares, `None` for a
    /// pass.
    pub pv: Vec<Option<u32>>,
    /// Positions searched (every thread).
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Threads searching.
    pub threads: usize,
    /// Bytes of the transposition table (shared by every thread).
    pub table_bytes: u64,
}

/// How far a solve has gone, for another thread to show: positions
/// searched (added in steps of `PROGRESS_STEP` (2^20) per thread), and the
/// bounds on the value for the side to move that the main thread's
/// windows have proven so far.
#[derive(Debug)]
pub struct SolveProgress {
    nodes: AtomicU64,
    lower: AtomicI32,
    upper: AtomicI32,
}

/// Positions a thread searches between two reports to [`SolveProgress`].
const PROGRESS_STEP: u64 = 1 << 20;

impl Default for SolveProgress {
    fn default() -> Self {
        SolveProgress { nodes: AtomicU64::new(0), lower: AtomicI32::new(-64), upper: AtomicI32::new(64) }
    }
}

impl SolveProgress {
    /// A progress with nothing searched yet.
    pub fn new() -> SolveProgress {
        SolveProgress::default()
    }

    /// (positions searched, lower bound, upper bound), the bounds on the
    /// value for the side to move (empty squares to the winner).
    pub fn get(&self) -> (u64, i32, i32) {
        (self.nodes.load(Ordering::Relaxed), self.lower.load(Ordering::Relaxed), self.upper.load(Ordering::Relaxed))
    }
}

/// What the threads of one solve share.
struct Shared<'p> {
    progress: &'p SolveProgress,
    table: Table,
    /// Positions some thread is searching now (see [`DEFER_EMPTIES`]).
    busy: Vec<AtomicU64>,
    /// Set when the main thread has its answer: helpers stop, and store
    /// nothing more.
    stop: AtomicBool,
}

impl Shared<'_> {
    #[inline]
    fn busy_slot(&self, key: u128) -> (&AtomicU64, u64) {
        let h = ((key as u64) ^ ((key >> 64) as u64).rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (&self.busy[(h >> 40) as usize & (self.busy.len() - 1)], h)
    }
}

/// One thread's search: what the threads share, and its node count.
struct Search<'t, G: Keyed> {
    shared: &'t Shared<'t>,
    /// Whether this thread only helps (its values are not used, and it
    /// stops when the main thread is done).
    helper: bool,
    nodes: u64,
    /// `nodes` when last reported to the progress.
    reported: u64,
    geometry: std::marker::PhantomData<G>,
}

/// Solves `p` exactly, on `threads` threads (split at the root) with
/// `memory` bytes of transposition table, shared.
pub fn solve<G: Keyed>(p: &Position<G>, memory: u64, threads: usize) -> Solution {
    solve_with_progress(p, memory, threads, &SolveProgress::new())
}

/// [`solve`], reporting how far it has gone in `progress`.
pub fn solve_with_progress<G: Keyed>(
    p: &Position<G>,
    memory: u64,
    threads: usize,
    progress: &SolveProgress,
) -> Solution {
    let started = Instant::now();
    let threads = threads.max(1);
    let (me, opp) = (p.mover().0, p.opponent().0);
    progress.lower.store(-(G::SQUARES as i32), Ordering::Relaxed);
    progress.upper.store(G::SQUARES as i32, Ordering::Relaxed);
    // a 4x4 game has about a million positions: a larger table would only
    // be touched here and there, a huge page at a time
    let shared = Shared {
        progress,
        table: Table::new(if G::N <= 4 { memory.min(64 << 20) } else { memory }),
        busy: (0..1 << 16).map(|_| AtomicU64::new(0)).collect(),
        stop: AtomicBool::new(false),
    };
    let nodes = AtomicU64::new(0);
    let mut search =
        Search::<G> { shared: &shared, helper: false, nodes: 0, reported: 0, geometry: std::marker::PhantomData };
    // every thread searches the whole tree through the shared table, the
    // helpers only to fill it; the main thread's value is the answer
    let value_for_mover = std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| {
                let mut helper = Search::<G> {
                    shared: &shared,
                    helper: true,
                    nodes: 0,
                    reported: 0,
                    geometry: std::marker::PhantomData,
                };
                helper.mtdf(me, opp, 0);
                nodes.fetch_add(helper.nodes, Ordering::Relaxed);
            });
        }
        let v = search.mtdf(me, opp, 0);
        shared.stop.store(true, Ordering::Relaxed);
        v
    });
    let (pv, mover_diff) = pv::principal_variation(&mut search, me, opp, value_for_mover);
    let black = p.side_to_move() == Color::Black;
    let sign = if black { 1 } else { -1 };
    Solution {
        value: sign * value_for_mover,
        raw_difference: sign * mover_diff,
        pv,
        nodes: search.nodes + nodes.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        threads,
        table_bytes: shared.table.bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::B4;
    use crate::board::movegen::final_score;

    /// Plain negamax on the engine's board, no table, no ordering.
    fn minimax<G: Keyed>(p: &Position<G>) -> i32 {
        match p.status() {
            crate::board::Status::Terminal => final_score(p.mover().0, p.opponent().0, G::SQUARES),
            crate::board::Status::Pass => -minimax(&p.pass()),
            crate::board::Status::Moves(m) => m.iter().map(|sq| -minimax(&p.play(sq))).max().unwrap(),
        }
    }

    #[test]
    fn four_by_four_start_is_a_white_win() {
        let s = solve(&Position::<B4>::start(), 1 << 20, 1);
        assert_eq!(s.value, minimax(&Position::<B4>::start()));
        assert!(s.value < 0, "White wins 4x4");
        let two = solve(&Position::<B4>::start(), 1 << 20, 2);
        assert_eq!(two.value, s.value);
    }
}
