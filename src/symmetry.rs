//! The four symmetries of the start position.
//!
//! The start position is unchanged by the identity, the 180-degree turn and
//! the reflections in both diagonals (a Klein four-group), so the set of
//! reachable positions is closed under them. A *class* is an orbit under
//! this group; [`crate::key::canonical`] picks its representative.

use crate::board::{Bitboard, Geometry, Position};

/// One of the four symmetries of the start position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// (r, c) -> (r, c)
    Identity,
    /// (r, c) -> (N-1-r, N-1-c)
    Rotate180,
    /// Reflection in the main diagonal: (r, c) -> (c, r).
    Transpose,
    /// Reflection in the anti-diagonal: (r, c) -> (N-1-c, N-1-r).
    AntiTranspose,
}

impl Symmetry {
    /// All four, identity first.
    pub const ALL: [Symmetry; 4] =
        [Symmetry::Identity, Symmetry::Rotate180, Symmetry::Transpose, Symmetry::AntiTranspose];

    /// The image of square `sq` (index `row * n + col`) on an `n x n` board.
    ///
    /// ```
    /// use othello_census::symmetry::Symmetry;
    /// // 4x4, square 1 = (0,1):
    /// // . a . .     . . . .     . . . .     . . . .
    /// // . . . .     . . . .     a . . .     . . . .
    /// // . . . .     . . . .     . . . .     . . . a
    /// // . . . .     . . a .     . . . .     . . . .
    /// //  identity   rotate180   transpose  anti-transpose
    /// assert_eq!(Symmetry::Rotate180.square(1, 4), 14);
    /// assert_eq!(Symmetry::Transpose.square(1, 4), 4);
    /// assert_eq!(Symmetry::AntiTranspose.square(1, 4), 11);
    /// ```
    pub const fn square(self, sq: u32, n: u32) -> u32 {
        let (r, c) = (sq / n, sq % n);
        let (r2, c2) = match self {
            Symmetry::Identity => (r, c),
            Symmetry::Rotate180 => (n - 1 - r, n - 1 - c),
            Symmetry::Transpose => (c, r),
            Symmetry::AntiTranspose => (n - 1 - c, n - 1 - r),
        };
        r2 * n + c2
    }

    /// The image of a set of squares.
    pub fn bitboard<G: Geometry>(self, b: Bitboard) -> Bitboard {
        b.iter().fold(Bitboard::EMPTY, |acc, sq| acc.with(self.square(sq, G::N)))
    }

    /// The image of a position (same side to move).
    pub fn position<G: Geometry>(self, p: &Position<G>) -> Position<G> {
        Position::from_colors(self.bitboard::<G>(p.black()), self.bitboard::<G>(p.white()), p.side_to_move())
            .expect("a symmetry keeps colours disjoint")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    #[test]
    fn start_is_fixed() {
        fn check<G: Geometry>() {
            let s = Position::<G>::start();
            for sym in Symmetry::ALL {
                assert_eq!(sym.position(&s), s);
            }
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }
}
