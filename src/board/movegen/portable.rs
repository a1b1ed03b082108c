//! The portable move generator: legal moves by shift-and-mask flood (seed
//! 002's method, grown two steps at a time), flips by rays looked up per
//! square, the mobility sum of a perft's last two plies.

use super::mobility_loop;
use crate::board::geometry::Geometry;

/// The run of flanked discs one direction can add, shifting towards
/// higher squares by `s`: grown two steps at a time (a Kogge-Stone
/// doubling over `pre`, the squares whose neighbour is also maskable), so
/// `reps` doublings reach runs of `2 + 2 * reps` discs.
#[inline(always)]
fn run_up(me: u64, mask: u64, s: u32, reps: u32) -> u64 {
    let mut run = (me << s) & mask;
    run |= (run << s) & mask;
    let pre = mask & (mask << s);
    for _ in 0..reps {
        run |= pre & (run << (2 * s));
    }
    run << s
}

/// [`run_up`] towards lower squares.
#[inline(always)]
fn run_down(me: u64, mask: u64, s: u32, reps: u32) -> u64 {
    let mut run = (me >> s) & mask;
    run |= (run >> s) & mask;
    let pre = mask & (mask >> s);
    for _ in 0..reps {
        run |= pre & (run >> (2 * s));
    }
    run >> s
}

/// The legal moves of the side owning `me` against `opp`: every empty
/// square that flanks at least one straight run of `opp` discs.
///
/// For each of the eight directions a run of opponent discs is grown from
/// the mover's discs (up to `N - 2` discs, the longest run that can be
/// flanked); the empty square beyond a run is a legal move. Horizontal and
/// diagonal directions mask the opponent discs to the inner columns, which
/// both stops runs at the board edge and prevents a shift from wrapping
/// into the next row.
///
/// ```
/// use othello_census::board::{movegen::legal_moves, B4};
/// // 4x4 start, Black to move: Black on squares 6 and 9, White on 5 and 10.
/// let black = (1 << 6) | (1 << 9);
/// let white = (1 << 5) | (1 << 10);
/// // . * . .      X Black, O White, * a legal move for Black
/// // * O X .
/// // . X O *
/// // . . * .
/// assert_eq!(legal_moves::<B4>(black, white), (1 << 1) | (1 << 4) | (1 << 11) | (1 << 14));
/// ```
#[inline(always)]
pub fn legal_moves<G: Geometry>(me: u64, opp: u64) -> u64 {
    let empty = !(me | opp) & G::FULL;
    let inner = opp & G::INNER_COLS;
    let n = G::N;
    let reps = (n - 4) / 2;
    let runs = run_up(me, inner, 1, reps)
        | run_down(me, inner, 1, reps)
        | run_up(me, opp, n, reps)
        | run_down(me, opp, n, reps)
        | run_up(me, inner, n + 1, reps)
        | run_down(me, inner, n + 1, reps)
        | run_up(me, inner, n - 1, reps)
        | run_down(me, inner, n - 1, reps);
    runs & empty
}

/// The opponent discs flipped when the side owning `me` plays on the empty
/// square `square`. Empty when the square flanks nothing (an illegal move).
///
/// Along each ray from the square, the first square that is not an
/// opponent disc closes the run if it is the mover's: found with the lowest
/// set bit on rays towards higher squares and the highest on the others.
#[inline(always)]
pub fn flips<G: Geometry>(me: u64, opp: u64, square: u32) -> u64 {
    let rays = &G::rays()[square as usize];
    let mut flipped = 0u64;
    // branch-free: a run counts when the square that stops it is the mover's
    for &ray in &rays[..4] {
        let stop = ray & !opp;
        let first = stop & stop.wrapping_neg();
        let closed = u64::from(first & me != 0).wrapping_neg();
        flipped |= first.wrapping_sub(1) & ray & closed;
    }
    for &ray in &rays[4..] {
        let stop = ray & !opp;
        let last = 63 - (stop | 1).leading_zeros();
        let closed = (((stop & me) >> last) & 1).wrapping_neg();
        flipped |= ray & !((2u64 << last).wrapping_sub(1)) & closed;
    }
    flipped
}

/// The children of (`me`, `opp`) by the moves in `moves` (all legal), as
/// the opponent's turn: the sum of their mobilities (the opponent's legal
/// moves in each), and the set of the moves whose child leaves the
/// opponent no move (a pass or the end, for the caller to tell apart).
///
/// This is the inner loop of a perft two plies above its horizon: the
/// grandchildren counted in bulk.
#[inline(always)]
pub fn mobility_sum<G: Geometry>(me: u64, opp: u64, moves: u64) -> (u64, u64) {
    mobility_loop!(G, me, opp, moves, flips, legal_moves)
}
