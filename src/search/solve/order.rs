//! Move ordering for the solver: the weights and the static guesses its
//! search sorts moves by (the short probe search itself is compiled with
//! the search, in `search.rs`).

use super::Search;
use crate::key::Keyed;

pub(super) const CORNERS: fn(u32) -> u64 = |n| {
    let last = n * n - 1;
    (1 << 0) | (1 << (n - 1)) | (1 << (last - (n - 1))) | (1 << last)
};

/// Empties from which moves are ordered by a short search ([`eval`] one
/// ply ahead of the child), from which two plies, and three.
pub(super) const PROBE_EMPTIES: u32 = 14;
pub(super) const PROBE_DEEPER: u32 = 16;
pub(super) const PROBE_DEEPEST: u32 = 20;
/// Beyond any [`eval`]; and the weight of a disc of a finished game.
pub(super) const PROBE_INF: i32 = 1 << 20;
pub(super) const PROBE_WIN: i32 = 1 << 10;

/// A guess at the value of (me to move, opp) for move ordering, from the
/// mobilities (`moves` of the side to move, `replies` of the other) and
/// the corners held.
#[inline(always)]
pub(super) fn eval<G: Keyed>(me: u64, opp: u64, moves: u64, replies: u64) -> i32 {
    let corners = CORNERS(G::N);
    16 * (moves.count_ones() as i32 - replies.count_ones() as i32)
        + 24 * ((me & corners).count_ones() as i32 - (opp & corners).count_ones() as i32)
}

/// Ordering weights (tuned by node counts of `examples/solve_bench`).
pub(super) const X_PENALTY: i32 = 24;
pub(super) const PARITY_EMPTIES: u32 = 14;
pub(super) const PARITY_BONUS: i32 = 6;

impl<G: Keyed> Search<'_, G> {
    /// The corner a square touches (a neighbour of it), as a one-square
    /// set, or `u64::MAX` for a square next to no corner (or a corner).
    #[inline]
    pub(super) fn corner_of(sq: u32) -> u64 {
        let n = G::N;
        let (r, c) = (sq / n, sq % n);
        let near = |x: u32| {
            if x <= 1 {
                Some(0)
            } else if x >= n - 2 {
                Some(n - 1)
            } else {
                None
            }
        };
        match (near(r), near(c)) {
            (Some(cr), Some(cc)) if (r, c) != (cr, cc) => 1u64 << (cr * n + cc),
            _ => u64::MAX,
        }
    }

    /// The quadrant of the board that holds `sq`.
    #[inline]
    pub(super) fn quadrant(sq: u32) -> u64 {
        let n = G::N;
        let h = n / 2;
        let (r0, c0) = (sq / n / h * h, sq % n / h * h);
        let mut q = 0u64;
        for r in r0..r0 + h {
            for c in c0..c0 + h {
                q |= 1u64 << (r * n + c);
            }
        }
        q
    }
}
