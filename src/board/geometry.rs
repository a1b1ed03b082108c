//! Board sizes. Each supported size is a zero-sized type implementing
//! [`Geometry`]; every mask is an associated constant computed at compile
//! time from `N`, so one generic implementation serves 4x4, 6x6 and 8x8 and
//! is specialised for each by the compiler.

use std::fmt;
use std::str::FromStr;

/// A board size known at compile time.
pub trait Geometry:
    Copy + Clone + Default + fmt::Debug + PartialEq + Eq + std::hash::Hash + Send + Sync + 'static
{
    /// Side length.
    const N: u32;
    /// Number of squares, `N * N`.
    const SQUARES: u32 = Self::N * Self::N;
    /// Every square of the board.
    const FULL: u64 = full_mask(Self::N);
    /// Every square outside the first and last column: where a run of
    /// flanked discs may lie for horizontal and diagonal directions.
    const INNER_COLS: u64 = inner_cols_mask(Self::N);
    /// The run-time name of this size.
    const SIZE: BoardSize;
    /// The rays of every square (see [`rays`]), one static
    /// table per size.
    fn rays() -> &'static Rays;
}

/// The 4x4 board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B4;
/// The 6x6 board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B6;
/// The 8x8 board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct B8;

impl Geometry for B4 {
    const N: u32 = 4;
    const SIZE: BoardSize = BoardSize::Four;
    #[inline(always)]
    fn rays() -> &'static Rays {
        static RAYS: Rays = rays(4);
        &RAYS
    }
}

impl Geometry for B6 {
    const N: u32 = 6;
    const SIZE: BoardSize = BoardSize::Six;
    #[inline(always)]
    fn rays() -> &'static Rays {
        static RAYS: Rays = rays(6);
        &RAYS
    }
}

impl Geometry for B8 {
    const N: u32 = 8;
    const SIZE: BoardSize = BoardSize::Eight;
    #[inline(always)]
    fn rays() -> &'static Rays {
        static RAYS: Rays = rays(8);
        &RAYS
    }
}

/// A square's name: column letter, row number from the top (`a1` top
/// left), as the solver's variations and the reachability games print it.
pub fn square_name(sq: u32, n: u32) -> String {
    format!("{}{}", (b'a' + (sq % n) as u8) as char, sq / n + 1)
}

/// Mask of the `n * n` squares.
pub const fn full_mask(n: u32) -> u64 {
    if n * n == 64 { u64::MAX } else { (1u64 << (n * n)) - 1 }
}

/// Mask of the squares not in column 0 nor column `n - 1`.
pub const fn inner_cols_mask(n: u32) -> u64 {
    let mut mask = 0u64;
    let mut row = 0;
    while row < n {
        let mut col = 1;
        while col + 1 < n {
            mask |= 1u64 << (row * n + col);
            col += 1;
        }
        row += 1;
    }
    mask
}

/// A supported board size, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BoardSize {
    /// 4x4
    Four,
    /// 6x6
    Six,
    /// 8x8
    Eight,
}

/// A board size outside {4, 6, 8}.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    #[error("board size must be 4, 6 or 8 (got {0})")]
    Unsupported(String),
}

impl BoardSize {
    /// Side length.
    pub const fn n(self) -> u32 {
        match self {
            BoardSize::Four => 4,
            BoardSize::Six => 6,
            BoardSize::Eight => 8,
        }
    }

    /// The size with side length `n`.
    pub fn from_n(n: u32) -> Result<BoardSize, GeometryError> {
        match n {
            4 => Ok(BoardSize::Four),
            6 => Ok(BoardSize::Six),
            8 => Ok(BoardSize::Eight),
            other => Err(GeometryError::Unsupported(other.to_string())),
        }
    }
}

impl FromStr for BoardSize {
    type Err = GeometryError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.split_once(['x', 'X']).map_or(t, |(a, b)| if a == b { a } else { "" });
        match t.parse::<u32>() {
            Ok(n) => BoardSize::from_n(n).map_err(|_| GeometryError::Unsupported(s.to_string())),
            Err(_) => Err(GeometryError::Unsupported(s.to_string())),
        }
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.n())
    }
}

/// Runs `$body` with the type alias `$G` bound to the geometry of `$size`.
///
/// ```
/// use othello_census::{with_geometry, board::{BoardSize, Geometry}};
/// let squares = with_geometry!(BoardSize::Six, G => G::SQUARES);
/// assert_eq!(squares, 36);
/// ```
#[macro_export]
macro_rules! with_geometry {
    ($size:expr, $G:ident => $body:expr) => {
        match $size {
            $crate::board::BoardSize::Four => {
                type $G = $crate::board::B4;
                $body
            }
            $crate::board::BoardSize::Six => {
                type $G = $crate::board::B6;
                $body
            }
            $crate::board::BoardSize::Eight => {
                type $G = $crate::board::B8;
                $body
            }
        }
    };
}

/// The squares seen from each square in each of the eight directions, out
/// to the board edge: the four directions towards higher square numbers
/// first, then the four towards lower ones. Computed at compile time.
pub type Rays = [[u64; 8]; 64];

/// The [`Rays`] of an `n` x `n` board.
pub const fn rays(n: u32) -> Rays {
    // (row step, column step): up-directions, then their opposites
    const DIRS: [(i32, i32); 8] = [(0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1)];
    let mut out = [[0u64; 8]; 64];
    let n = n as i32;
    let mut sq = 0;
    while sq < n * n {
        let mut d = 0;
        while d < 8 {
            let (dr, dc) = DIRS[d];
            let (mut r, mut c) = (sq / n + dr, sq % n + dc);
            let mut ray = 0u64;
            while r >= 0 && r < n && c >= 0 && c < n {
                ray |= 1u64 << (r * n + c);
                r += dr;
                c += dc;
            }
            out[sq as usize][d] = ray;
            d += 1;
        }
        sq += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(B4::FULL, 0xffff);
        assert_eq!(B8::FULL, u64::MAX);
        assert_eq!(B4::INNER_COLS, 0b0110_0110_0110_0110);
        assert_eq!(B8::INNER_COLS, 0x7e7e_7e7e_7e7e_7e7e);
        assert_eq!(B6::INNER_COLS.count_ones(), 24);
    }

    #[test]
    fn parse_sizes() {
        assert_eq!("6".parse::<BoardSize>(), Ok(BoardSize::Six));
        assert_eq!("8x8".parse::<BoardSize>(), Ok(BoardSize::Eight));
        assert!("5".parse::<BoardSize>().is_err());
        assert!("4x6".parse::<BoardSize>().is_err());
        assert!("10".parse::<BoardSize>().is_err());
    }
}
