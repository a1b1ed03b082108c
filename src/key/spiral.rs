//! The 128-bit spiral key (seed 003), bit for bit as `docs/key-format.md`
//! describes it.
//!
//! Bits 0..4: the four centre squares in spiral order, 1 = Black, 0 = White
//! (a centre square is never empty). Then every other square in spiral order,
//! two bits each: 00 empty, 01 Black, 10 White (11 is invalid). Then one bit
//! for the side to move, 1 = White. Width: 29 bits on 4x4, 69 on 6x6, 125 on
//! 8x8; higher bits are zero.

use super::KeyError;
use super::spiral_order;
use crate::board::{Bitboard, Color, Geometry, Position};

/// A position packed into the spiral key format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpiralKey(pub u128);

impl SpiralKey {
    /// Number of significant bits for board side `n`.
    pub const fn bits(n: u32) -> u32 {
        4 + 2 * (n * n - 4) + 1
    }

    /// Packs a position. Its four centre squares must be occupied.
    pub fn pack<G: Geometry>(p: &Position<G>) -> SpiralKey {
        let order = const { spiral_order(G::N) };
        let (b, w) = (p.black(), p.white());
        debug_assert!(
            (0..4).all(|i| b.contains(order[i] as u32) || w.contains(order[i] as u32)),
            "empty centre square"
        );
        let mut key = 0u128;
        for (i, &sq) in order.iter().enumerate().take(4) {
            if b.contains(sq as u32) {
                key |= 1 << i;
            }
        }
        for (i, &sq) in order.iter().enumerate().take(G::SQUARES as usize).skip(4) {
            let sq = sq as u32;
            let field = if b.contains(sq) {
                1u128
            } else if w.contains(sq) {
                2
            } else {
                0
            };
            key |= field << (4 + 2 * (i - 4));
        }
        if p.side_to_move() == Color::White {
            key |= 1 << (Self::bits(G::N) - 1);
        }
        SpiralKey(key)
    }

    /// Unpacks a key; fails on a field `11` or a bit above the width.
    pub fn unpack<G: Geometry>(self) -> Result<Position<G>, KeyError> {
        let width = Self::bits(G::N);
        if width < 128 && self.0 >> width != 0 {
            return Err(KeyError::OutOfRange);
        }
        let order = const { spiral_order(G::N) };
        let (mut b, mut w) = (0u64, 0u64);
        for (i, &sq) in order.iter().enumerate().take(4) {
            if self.0 >> i & 1 == 1 {
                b |= 1 << sq;
            } else {
                w |= 1 << sq;
            }
        }
        for (i, &sq) in order.iter().enumerate().take(G::SQUARES as usize).skip(4) {
            match self.0 >> (4 + 2 * (i - 4)) & 3 {
                0 => {}
                1 => b |= 1 << sq,
                2 => w |= 1 << sq,
                _ => return Err(KeyError::BadField),
            }
        }
        let side = if self.0 >> (width - 1) & 1 == 1 { Color::White } else { Color::Black };
        Ok(Position::from_colors(Bitboard(b), Bitboard(w), side).expect("disjoint by construction"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    #[test]
    fn widths() {
        assert_eq!(SpiralKey::bits(4), 29);
        assert_eq!(SpiralKey::bits(6), 69);
        assert_eq!(SpiralKey::bits(8), 125);
    }

    #[test]
    fn start_key_4x4() {
        // centre UL, LL, LR, UR = White, Black, White, Black -> bits 0b1010
        let k = SpiralKey::pack(&Position::<B4>::start());
        assert_eq!(k.0, 0b1010);
        assert_eq!(k.unpack::<B4>().unwrap(), Position::<B4>::start());
    }

    #[test]
    fn round_trips() {
        let p6 = Position::<B6>::start().play(8).pass();
        assert_eq!(SpiralKey::pack(&p6).unpack::<B6>().unwrap(), p6);
        let p8 = Position::<B8>::start().play(19);
        assert_eq!(SpiralKey::pack(&p8).unpack::<B8>().unwrap(), p8);
        assert_eq!(SpiralKey(3 << 4).unpack::<B4>(), Err(KeyError::BadField));
        assert_eq!(SpiralKey(1 << 29).unpack::<B4>(), Err(KeyError::OutOfRange));
    }
}
