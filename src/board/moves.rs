//! Move generation by shift-and-mask flood (the method of seed 002),
//! generic over the board size.
//!
//! For each of the eight directions a run of opponent discs is grown from
//! the mover's discs one step at a time, at most `N - 2` steps (the longest
//! run that can be flanked); the empty square beyond a run is a legal move.
//! Horizontal and diagonal directions mask the opponent discs to the inner
//! columns, which both stops runs at the board edge and prevents a shift
//! from wrapping into the next row.

use super::geometry::Geometry;

/// The eight directions as shift functions paired with their run mask
/// selector (`true`: the run must stay off the first and last column).
macro_rules! for_each_direction {
    ($G:ty, |$sh:ident, $inner:ident| $body:block) => {{
        let step = <$G as Geometry>::N;
        {
            let $inner = true;
            let $sh = |x: u64| x << 1;
            $body
        }
        {
            let $inner = true;
            let $sh = |x: u64| x >> 1;
            $body
        }
        {
            let $inner = false;
            let $sh = |x: u64| x << step;
            $body
        }
        {
            let $inner = false;
            let $sh = |x: u64| x >> step;
            $body
        }
        {
            let $inner = true;
            let $sh = |x: u64| x << (step + 1);
            $body
        }
        {
            let $inner = true;
            let $sh = |x: u64| x >> (step + 1);
            $body
        }
        {
            let $inner = true;
            let $sh = |x: u64| x << (step - 1);
            $body
        }
        {
            let $inner = true;
            let $sh = |x: u64| x >> (step - 1);
            $body
        }
    }};
}

/// The legal moves of the side owning `me` against `opp`: every empty
/// square that flanks at least one straight run of `opp` discs.
///
/// ```
/// use othello_census::board::{moves::legal_moves, B4};
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
    let mut moves = 0u64;
    for_each_direction!(G, |sh, use_inner| {
        let mask = if use_inner { inner } else { opp };
        let mut run = sh(me) & mask;
        for _ in 0..G::N - 3 {
            run |= sh(run) & mask;
        }
        moves |= sh(run) & empty;
    });
    moves
}

/// The opponent discs flipped when the side owning `me` plays on the empty
/// square `square`. Empty when the square flanks nothing (an illegal move).
#[inline(always)]
pub fn flips<G: Geometry>(me: u64, opp: u64, square: u32) -> u64 {
    let placed = 1u64 << square;
    let inner = opp & G::INNER_COLS;
    let mut flipped = 0u64;
    for_each_direction!(G, |sh, use_inner| {
        let mask = if use_inner { inner } else { opp };
        let mut run = sh(placed) & mask;
        for _ in 0..G::N - 3 {
            run |= sh(run) & mask;
        }
        if sh(run) & me != 0 {
            flipped |= run;
        }
    });
    flipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B6, B8};

    #[test]
    fn start_moves_8x8() {
        // d4 = (3,3) white, e5 = (4,4) white, e4 = (3,4) and d5 = (4,3) black.
        let black = (1u64 << 28) | (1 << 35);
        let white = (1u64 << 27) | (1 << 36);
        let m = legal_moves::<B8>(black, white);
        assert_eq!(m, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
        assert_eq!(flips::<B8>(black, white, 19), 1 << 27);
        assert_eq!(flips::<B8>(black, white, 0), 0);
    }

    #[test]
    fn no_wrap_across_rows_6x6() {
        // Mover at (0,5), opponent at (1,0), empty (1,1): shifting east from
        // the last column must not reach the next row.
        let me = 1u64 << 5;
        let opp = 1u64 << 6;
        assert_eq!(legal_moves::<B6>(me, opp), 0);
    }

    #[test]
    fn long_run_flips_whole_line() {
        // Row 0 of 8x8: X O O O O O O .  -> move at h1 flips six discs.
        let me = 1u64;
        let opp = 0b0111_1110u64;
        assert_eq!(legal_moves::<B8>(me, opp) & 0xff, 1 << 7);
        assert_eq!(flips::<B8>(me, opp, 7), opp);
    }
}
