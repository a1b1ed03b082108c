//! A set of squares as a `u64`, one bit per square (index `row * N + col`).

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor, Not};

/// A set of squares of an N x N board, bit `row * N + col` for square
/// (row, col). Bits at or above `N * N` are never set by the engine.
///
/// ```
/// use othello_census::board::Bitboard;
/// let b = Bitboard::from_square(5).with(9);
/// assert_eq!(b.count(), 2);
/// assert!(b.contains(9) && !b.contains(4));
/// assert_eq!(b.iter().collect::<Vec<_>>(), vec![5, 9]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);

    /// The set holding just `square`.
    pub const fn from_square(square: u32) -> Bitboard {
        Bitboard(1u64 << square)
    }

    /// Whether `square` is in the set.
    pub const fn contains(self, square: u32) -> bool {
        self.0 >> square & 1 == 1
    }

    /// The set with `square` added.
    pub const fn with(self, square: u32) -> Bitboard {
        Bitboard(self.0 | 1u64 << square)
    }

    /// The set with `square` removed.
    pub const fn without(self, square: u32) -> Bitboard {
        Bitboard(self.0 & !(1u64 << square))
    }

    /// Number of squares in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lowest square in the set, if any.
    pub const fn first(self) -> Option<u32> {
        if self.0 == 0 { None } else { Some(self.0.trailing_zeros()) }
    }

    /// The squares in increasing index order.
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = u32;
    type IntoIter = Squares;
    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#x})", self.0)
    }
}
