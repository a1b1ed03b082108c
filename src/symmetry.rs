//! The eight symmetries of the square, and the four of them that fix the
//! start position.
//!
//! The rules commute with every symmetry of the board (the dihedral group
//! of the square, eight elements), so perft and the solver fold positions
//! by all eight ([`crate::search::subtree`]). The start position is unchanged only by
//! four of them, [`Symmetry::START`]: the identity, the 180-degree turn and
//! the reflections in both diagonals (a Klein four-group), so the set of
//! reachable positions is closed under those. A census *class* is an orbit
//! under the four; [`crate::key::canonical`] picks its representative.
//!
//! One type for both: a symmetry is a code 0..8 whose bits say what to do
//! to a board, in this order: transpose (bit 2), turn by 180 degrees (bit
//! 1), reverse the rows (bit 0). The start's four are the codes without
//! bit 0. Squares are numbered `row * N + col`, row 0 printed on top.

use crate::board::{Bitboard, Geometry, Position};

/// One of the eight symmetries of the square; its discriminant is its code
/// (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Symmetry {
    /// (r, c) -> (r, c)
    Identity = 0,
    /// Rows reversed: (r, c) -> (N-1-r, c).
    FlipRows = 1,
    /// (r, c) -> (N-1-r, N-1-c)
    Rotate180 = 2,
    /// Columns reversed: (r, c) -> (r, N-1-c).
    FlipColumns = 3,
    /// Reflection in the main diagonal: (r, c) -> (c, r).
    Transpose = 4,
    /// A quarter turn anticlockwise: (r, c) -> (N-1-c, r).
    RotateLeft = 5,
    /// Reflection in the anti-diagonal: (r, c) -> (N-1-c, N-1-r).
    AntiTranspose = 6,
    /// A quarter turn clockwise: (r, c) -> (c, N-1-r).
    RotateRight = 7,
}

impl Symmetry {
    /// All eight, by code.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipRows,
        Symmetry::Rotate180,
        Symmetry::FlipColumns,
        Symmetry::Transpose,
        Symmetry::RotateLeft,
        Symmetry::AntiTranspose,
        Symmetry::RotateRight,
    ];

    /// The four that fix the start position, identity first: the order of
    /// the images of every key table and of [`start_images`].
    pub const START: [Symmetry; 4] =
        [Symmetry::Identity, Symmetry::Rotate180, Symmetry::Transpose, Symmetry::AntiTranspose];

    /// The symmetry of `code` (0..8).
    pub const fn from_code(code: u8) -> Option<Symmetry> {
        if code < 8 { Some(Symmetry::ALL[code as usize]) } else { None }
    }

    /// Its code (0..8).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Whether it fixes the start position (one of [`Symmetry::START`]).
    pub const fn fixes_start(self) -> bool {
        self.code() & 1 == 0
    }

    /// The image of square `sq` (index `row * n + col`) on an `n x n` board,
    /// by coordinates.
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
    /// assert_eq!(Symmetry::RotateRight.square(0, 4), 3);
    /// ```
    pub const fn square(self, sq: u32, n: u32) -> u32 {
        let (r, c) = (sq / n, sq % n);
        let (r, c) = if self.code() & 4 != 0 { (c, r) } else { (r, c) };
        let (r, c) = if self.code() & 2 != 0 { (n - 1 - r, n - 1 - c) } else { (r, c) };
        let r = if self.code() & 1 != 0 { n - 1 - r } else { r };
        r * n + c
    }

    /// The image of square `sq` of board `G`.
    #[inline]
    pub fn map_square<G: Geometry>(self, sq: u32) -> u32 {
        self.square(sq, G::N)
    }

    /// The image of a set of squares given as bits, by whole-board bit
    /// operations.
    #[inline(always)]
    pub fn bits<G: Geometry>(self, x: u64) -> u64 {
        let code = self.code();
        let x = if code & 4 != 0 { transpose::<G>(x) } else { x };
        let x = if code & 2 != 0 { rotate180::<G>(x) } else { x };
        if code & 1 != 0 { flip_rows::<G>(x) } else { x }
    }

    /// The image of a set of squares.
    #[inline]
    pub fn bitboard<G: Geometry>(self, b: Bitboard) -> Bitboard {
        Bitboard(self.bits::<G>(b.0))
    }

    /// The image of a position (same side to move).
    pub fn position<G: Geometry>(self, p: &Position<G>) -> Position<G> {
        Position::from_colors(self.bitboard::<G>(p.black()), self.bitboard::<G>(p.white()), p.side_to_move())
            .expect("a symmetry keeps colours disjoint")
    }
}

/// The images of `x` under the four symmetries of [`Symmetry::START`], in
/// The size of an orbit under the four symmetries of the start, from the
/// number of them that fix its members (1, 2 or 4; a group of four has no
/// subgroup of three): `4 / fixed`, as a shift (the division it replaces
/// was a tenth of classifying a class of the last layer).
#[inline(always)]
pub const fn orbit_size(fixed: u32) -> u32 {
    debug_assert!(fixed == 1 || fixed == 2 || fixed == 4);
    4 >> (fixed >> 1)
}

/// The least of the four images of something under [`Symmetry::START`]
/// (in that order, the first the thing itself: an occupancy, a key) and
/// the size of its orbit: the images equal to the first are those of the
/// symmetries that fix it.
#[inline(always)]
pub fn least_image<T: Ord + Copy>(i: &[T; 4]) -> (T, u32) {
    let fixed = 1 + (i[1] == i[0]) as u32 + (i[2] == i[0]) as u32 + (i[3] == i[0]) as u32;
    (i[0].min(i[1]).min(i[2].min(i[3])), orbit_size(fixed))
}

/// that order: one transposition and two turns.
#[inline(always)]
pub fn start_images<G: Geometry>(x: u64) -> [u64; 4] {
    let t = transpose::<G>(x);
    [x, rotate180::<G>(x), t, rotate180::<G>(t)]
}

/// The 180-degree turn: square `i` goes to `N * N - 1 - i`.
#[inline(always)]
pub fn rotate180<G: Geometry>(x: u64) -> u64 {
    x.reverse_bits() >> (64 - G::SQUARES)
}

/// The rows reversed: row `r` goes to row `N - 1 - r`.
#[inline(always)]
pub fn flip_rows<G: Geometry>(x: u64) -> u64 {
    if G::N == 8 {
        return x.swap_bytes();
    }
    let row = (1u64 << G::N) - 1;
    let mut out = 0;
    for r in 0..G::N {
        out |= ((x >> (r * G::N)) & row) << ((G::N - 1 - r) * G::N);
    }
    out
}

/// For boards up to 6x6: the bits of one row spread down a column (bit c
/// to bit c * n), computed at compile time.
const fn spread(n: u32) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut bits = 0;
    while bits < 64 {
        let mut c = 0;
        while c < n {
            if bits >> c & 1 == 1 {
                t[bits as usize] |= 1u64 << (c * n);
            }
            c += 1;
        }
        bits += 1;
    }
    t
}

static SPREAD4: [u64; 64] = spread(4);
static SPREAD6: [u64; 64] = spread(6);

/// The reflection in the main diagonal: (r, c) goes to (c, r).
#[inline(always)]
pub fn transpose<G: Geometry>(x: u64) -> u64 {
    if G::N == 8 {
        // three delta swaps: 4x4 blocks, 2x2 blocks, single squares
        let mut x = x;
        let t = 0x0f0f_0f0f_0000_0000 & (x ^ (x << 28));
        x ^= t ^ (t >> 28);
        let t = 0x3333_0000_3333_0000 & (x ^ (x << 14));
        x ^= t ^ (t >> 14);
        let t = 0x5500_5500_5500_5500 & (x ^ (x << 7));
        return x ^ t ^ (t >> 7);
    }
    // row r becomes column r: each row's bits spread down a column
    let table = if G::N == 6 { &SPREAD6 } else { &SPREAD4 };
    let row = (1u64 << G::N) - 1;
    let mut out = 0;
    for r in 0..G::N {
        out |= table[((x >> (r * G::N)) & row) as usize] << r;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use proptest::prelude::*;

    /// The orbit times its stabiliser is the group, for every stabiliser
    /// a subgroup of four can have.
    #[test]
    fn orbit_sizes_divide_the_group() {
        for fixed in [1, 2, 4] {
            assert_eq!(orbit_size(fixed) * fixed, 4);
        }
    }

    /// Exactly the four of [`Symmetry::START`] fix the start position.
    #[test]
    fn the_start_is_fixed_by_its_four() {
        fn check<G: Geometry>() {
            let s = Position::<G>::start();
            for sym in Symmetry::ALL {
                assert_eq!(sym.position(&s) == s, sym.fixes_start(), "{sym:?}");
                assert_eq!(Symmetry::START.contains(&sym), sym.fixes_start());
            }
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }

    /// The eight are distinct, each is its code, and they form a group
    /// (closed under composition, each with an inverse).
    #[test]
    fn eight_distinct_symmetries_form_a_group() {
        let n = 6;
        let table = |s: Symmetry| (0..n * n).map(|sq| s.square(sq, n)).collect::<Vec<_>>();
        let tables: Vec<_> = Symmetry::ALL.iter().map(|&s| table(s)).collect();
        for (i, a) in Symmetry::ALL.iter().enumerate() {
            assert_eq!(a.code() as usize, i);
            assert_eq!(Symmetry::from_code(i as u8), Some(*a));
            for b in Symmetry::ALL {
                let composed: Vec<_> = (0..n * n).map(|sq| b.square(a.square(sq, n), n)).collect();
                assert!(tables.contains(&composed), "{a:?} then {b:?}");
            }
            assert!(Symmetry::ALL.iter().any(|b| (0..n * n).all(|sq| b.square(a.square(sq, n), n) == sq)));
        }
        let mut unique = tables.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 8);
        assert_eq!(Symmetry::from_code(8), None);
    }

    /// Quarter turns and reflections by coordinates, as their names say.
    #[test]
    fn names_match_the_coordinates() {
        let n = 8;
        let at = |r: u32, c: u32| r * n + c;
        assert_eq!(Symmetry::RotateRight.square(at(0, 0), n), at(0, 7));
        assert_eq!(Symmetry::RotateLeft.square(at(0, 7), n), at(0, 0));
        assert_eq!(Symmetry::FlipRows.square(at(0, 3), n), at(7, 3));
        assert_eq!(Symmetry::FlipColumns.square(at(2, 0), n), at(2, 7));
        assert_eq!(Symmetry::AntiTranspose.square(at(0, 1), n), at(6, 7));
    }

    fn bits_equal_squares<G: Geometry>(x: u64) -> Result<(), TestCaseError> {
        let x = x & G::FULL;
        for sym in Symmetry::ALL {
            let by_squares = Bitboard(x).iter().fold(0u64, |acc, sq| acc | 1 << sym.square(sq, G::N));
            prop_assert_eq!(sym.bits::<G>(x), by_squares, "{} {:?} {:#x}", G::N, sym, x);
        }
        let images = start_images::<G>(x);
        for (i, sym) in Symmetry::START.iter().enumerate() {
            prop_assert_eq!(images[i], sym.bits::<G>(x));
        }
        Ok(())
    }

    proptest! {
        /// The bit operations equal the symmetries square by square.
        #[test]
        fn bit_operations_equal_the_coordinates(x in any::<u64>()) {
            bits_equal_squares::<B4>(x)?;
            bits_equal_squares::<B6>(x)?;
            bits_equal_squares::<B8>(x)?;
        }
    }
}
