//! Occupancies: the set of occupied squares of a position, what OEIS calls
//! its *shape* (A125528, A125529). Not the subtree classes of `crate::search::subtree`
//! (mover and opponent discs up to the eight symmetries, for perft and solve).
//!
//! The four symmetries of the start fold occupancies as they fold
//! positions: the canonical occupancy is the least of its four images (as
//! u64), and every position of a class has an occupancy in one orbit.

use crate::board::Geometry;
use crate::symmetry::start_images;

/// The four images of occupancy `occ`, in the order of [`crate::symmetry::Symmetry::START`].
#[inline(always)]
pub fn occupancy_images<G: Geometry>(occ: u64) -> [u64; 4] {
    start_images::<G>(occ)
}

/// The canonical occupancy of `occ` (the least image) and the size of its
/// orbit (1, 2 or 4).
#[inline(always)]
pub fn canonical_occupancy<G: Geometry>(occ: u64) -> (u64, u32) {
    least_image(&occupancy_images::<G>(occ))
}

/// The least of an occupancy's four images and the size of its orbit.
pub use crate::symmetry::least_image;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Bitboard};
    use crate::symmetry::Symmetry;

    fn check<G: Geometry>(x: u64) -> Result<(), proptest::test_runner::TestCaseError> {
        let occ = x & G::FULL;
        let images = occupancy_images::<G>(occ);
        for (s, sym) in Symmetry::START.iter().enumerate() {
            // square by square, by coordinates: independent of the bit operations
            let by_squares = Bitboard(occ).iter().fold(0u64, |acc, sq| acc | 1 << sym.square(sq, G::N));
            proptest::prop_assert_eq!(images[s], by_squares, "{} {:?} {:#x}", G::N, sym, occ);
        }
        let (c, orbit) = canonical_occupancy::<G>(occ);
        proptest::prop_assert_eq!(c, *images.iter().min().unwrap());
        let distinct: std::collections::HashSet<u64> = images.into_iter().collect();
        proptest::prop_assert_eq!(orbit as usize, distinct.len());
        Ok(())
    }

    proptest::proptest! {
        /// The images equal the symmetries square by square, and the
        /// canonical occupancy is the least with the orbit's size, on
        /// random occupancies of every size.
        #[test]
        fn images_equal_the_symmetries(x in proptest::num::u64::ANY) {
            check::<B4>(x)?;
            check::<B6>(x)?;
            check::<B8>(x)?;
        }
    }
}
