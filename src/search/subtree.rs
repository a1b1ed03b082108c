//! Subtree classes: what the game tree below a position depends on (not
//! "shapes": this project keeps that word for the OEIS sense, occupancies).
//!
//! The rules do not care which colour moves, nor how the board is turned or
//! mirrored: each of the eight symmetries of the square maps legal moves to
//! legal moves and flips to flips. So the per-ply counts below a position
//! depend only on its (mover, opponent) discs up to those eight symmetries,
//! twice as many as the four that fix the start position (which the census
//! classes use, since they keep colours and the start). [`subtree_key`] names
//! that orbit: the least of the eight images, each packed as
//! `mover << 64 | opponent`.

use crate::board::Geometry;
use crate::symmetry::{Symmetry, flip_rows, start_images};

#[inline(always)]
fn pack(me: u64, opp: u64) -> u128 {
    (u128::from(me) << 64) | u128::from(opp)
}

/// The subtree key of a position given as (mover, opponent) discs: equal for two
/// positions exactly when one is an image of the other under one of the
/// eight symmetries of the square (colours ignored).
#[inline(always)]
pub fn subtree_key<G: Geometry>(me: u64, opp: u64) -> u128 {
    subtree_key_and_symmetry::<G>(me, opp).0
}

/// The subtree key and a symmetry that maps (`me`, `opp`) onto the image
/// the key packs.
#[inline(always)]
pub fn subtree_key_and_symmetry<G: Geometry>(me: u64, opp: u64) -> (u128, Symmetry) {
    let (mine, theirs) = (start_images::<G>(me), start_images::<G>(opp));
    // the code of START[i] is 2i; its composition with the row flip, 2i + 1
    let mut best = (u128::MAX, 0u8);
    for i in 0..4 {
        let (a, b) = (mine[i], theirs[i]);
        let plain = (pack(a, b), 2 * i as u8);
        let mirrored = (pack(flip_rows::<G>(a), flip_rows::<G>(b)), 2 * i as u8 + 1);
        best = best.min(plain).min(mirrored);
    }
    (best.0, Symmetry::ALL[best.1 as usize])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use proptest::prelude::*;

    fn check<G: Geometry>(x: u64, y: u64) -> Result<(), TestCaseError> {
        let me = x & G::FULL;
        let opp = y & G::FULL & !me;
        let image = |s: Symmetry| pack(s.bits::<G>(me), s.bits::<G>(opp));
        // the least image over all eight symmetries
        let least = Symmetry::ALL.iter().map(|&s| image(s)).min().unwrap();
        prop_assert_eq!(subtree_key::<G>(me, opp), least);
        for s in Symmetry::ALL {
            prop_assert_eq!(subtree_key::<G>(s.bits::<G>(me), s.bits::<G>(opp)), least);
        }
        // the symmetry returned maps the position onto the key's image
        let (key, sym) = subtree_key_and_symmetry::<G>(me, opp);
        prop_assert_eq!(key, image(sym));
        Ok(())
    }

    proptest! {
        #[test]
        fn subtree_key_is_the_least_of_the_eight_images(x in any::<u64>(), y in any::<u64>()) {
            check::<B4>(x, y)?;
            check::<B6>(x, y)?;
            check::<B8>(x, y)?;
        }
    }
}
