//! Packed position keys.
//!
//! - [`spiral`]: the 128-bit spiral key of the design document (seed 003),
//!   the documented, stable interchange form (`docs/key-format.md`).
//! - [`dense`]: the base-3 packing (seed 001) used where storage matters:
//!   4 bytes on 4x4, 7 on 6x6, 13 on 8x8 (significant bytes). Its
//!   numeric order equals the numeric order of the spiral key, so "least key
//!   over the symmetry images" picks the same representative in both.

pub mod canonical;
pub mod dense;
pub mod occupancy;
pub mod spiral;

pub use canonical::{canonical_and_orbit, canonical_key};
pub use dense::{Keyed, PackedKey};
pub use spiral::SpiralKey;

/// A malformed key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("key has bits set above the width of its board size")]
    OutOfRange,
    #[error("key has an invalid square field")]
    BadField,
}

/// The order in which squares are packed into a key: the four centre squares
/// first (upper-left, lower-left, lower-right, upper-right), then each ring
/// outward, each ring counter-clockwise from its upper-left corner (down the
/// left column, right along the bottom row, up the right column, left along
/// the top row). Entry `i` is the square (`row * n + col`) at spiral index
/// `i`; only the first `n * n` entries are meaningful.
///
/// ```
/// use othello_census::key::spiral_order;
/// // 4x4: square indices in spiral order
/// //  0  1  2  3        centre: 5, 9, 10, 6
/// //  4  5  6  7        ring 1: 0, 4, 8, 12, 13, 14, 15, 11, 7, 3, 2, 1
/// //  8  9 10 11
/// // 12 13 14 15
/// assert_eq!(&spiral_order(4)[..16], &[5, 9, 10, 6, 0, 4, 8, 12, 13, 14, 15, 11, 7, 3, 2, 1]);
/// ```
pub const fn spiral_order(n: u32) -> [u8; 64] {
    let mut order = [0u8; 64];
    let mut i = 0;
    let h = n / 2;
    let mut ring = 0;
    while ring < h {
        let top = h - 1 - ring;
        let left = h - 1 - ring;
        let bottom = h + ring;
        let right = h + ring;
        // down the left column
        let mut r = top;
        while r < bottom {
            order[i] = (r * n + left) as u8;
            i += 1;
            r += 1;
        }
        // right along the bottom row
        let mut c = left;
        while c < right {
            order[i] = (bottom * n + c) as u8;
            i += 1;
            c += 1;
        }
        // up the right column
        let mut r = bottom;
        while r > top {
            order[i] = (r * n + right) as u8;
            i += 1;
            r -= 1;
        }
        // left along the top row
        let mut c = right;
        while c > left {
            order[i] = (top * n + c) as u8;
            i += 1;
            c -= 1;
        }
        ring += 1;
    }
    order
}

/// The inverse of [`spiral_order`]: entry `sq` is the spiral index of
/// square `sq`.
pub const fn spiral_index(n: u32) -> [u8; 64] {
    let order = spiral_order(n);
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < (n * n) as usize {
        index[order[i] as usize] = i as u8;
        i += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spiral_is_a_permutation() {
        for n in [4u32, 6, 8] {
            let order = spiral_order(n);
            let mut seen = vec![false; (n * n) as usize];
            for &sq in &order[..(n * n) as usize] {
                assert!(!seen[sq as usize]);
                seen[sq as usize] = true;
            }
            let index = spiral_index(n);
            for i in 0..(n * n) as usize {
                assert_eq!(index[order[i] as usize] as usize, i);
            }
            // the first four are the centre squares
            let h = n / 2;
            let centre = [(h - 1) * n + h - 1, h * n + h - 1, h * n + h, (h - 1) * n + h];
            for k in 0..4 {
                assert_eq!(order[k] as u32, centre[k]);
            }
        }
    }
}
