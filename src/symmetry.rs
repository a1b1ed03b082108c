//! The four symmetries of the start position, canonical keys and orbits.
//!
//! The start position is unchanged by the identity, the 180-degree turn and
//! the reflections in both diagonals (a Klein four-group), so the set of
//! reachable positions is closed under them. A *class* is an orbit under
//! this group; its canonical key is the least dense key over the images.

use crate::board::{Bitboard, Geometry, Position};
use crate::key::dense::image_keys;

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

/// The canonical (least) dense key of the class of `p`.
#[inline(always)]
pub fn canonical_key<G: Geometry>(p: &Position<G>) -> G::Key {
    let k = image_keys(p);
    k[0].min(k[1]).min(k[2].min(k[3]))
}

/// The canonical key of the class of `p` and the size of its orbit (1, 2
/// or 4: the number of distinct positions among the four images).
#[inline(always)]
pub fn canonical_and_orbit<G: Geometry>(p: &Position<G>) -> (G::Key, u32) {
    let k = image_keys(p);
    let fixed = 1 + (k[1] == k[0]) as u32 + (k[2] == k[0]) as u32 + (k[3] == k[0]) as u32;
    (k[0].min(k[1]).min(k[2].min(k[3])), 4 / fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use crate::key::dense::{pack, unpack};

    #[test]
    fn start_is_fixed() {
        fn check<G: Geometry>() {
            let s = Position::<G>::start();
            for sym in Symmetry::ALL {
                assert_eq!(sym.position(&s), s);
            }
            assert_eq!(canonical_and_orbit(&s), (pack(&s), 1));
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }

    #[test]
    fn tables_match_slow_images() {
        let mut ps = vec![Position::<B6>::start()];
        for _ in 0..5 {
            let next: Vec<_> = ps.iter().flat_map(|p| p.children()).collect();
            ps.extend(next);
        }
        for p in &ps {
            let keys = image_keys(p);
            for (s, sym) in Symmetry::ALL.iter().enumerate() {
                assert_eq!(keys[s], pack(&sym.position(p)));
            }
            let (c, _) = canonical_and_orbit(p);
            let canon = unpack::<B6>(c).unwrap();
            assert!(Symmetry::ALL.iter().any(|s| s.position(p) == canon));
        }
    }

    #[test]
    fn first_moves_form_one_orbit() {
        let start = Position::<B8>::start();
        let kids = start.children();
        let (c0, o0) = canonical_and_orbit(&kids[0]);
        assert_eq!(o0, 4);
        for k in &kids {
            assert_eq!(canonical_and_orbit(k), (c0, 4));
        }
    }
}
