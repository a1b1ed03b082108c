//! Occupancies: the set of occupied squares of a position, what OEIS calls
//! its *shape* (A125528, A125529). Not the shapes of `crate::shape` (mover
//! and opponent discs up to the eight symmetries, for perft and solve).
//!
//! The four symmetries of the start fold occupancies as they fold
//! positions: the canonical occupancy is the least of its four images (as
//! u64), and every position of a class has an occupancy in one orbit.

use std::sync::LazyLock;

use crate::board::Geometry;
use crate::symmetry::Symmetry;

/// Per symmetry, byte of the board and byte value: the image bits.
type ByteTables = [[[u64; 256]; 8]; 4];

fn build(n: u32) -> Box<ByteTables> {
    let mut t = Box::new([[[0u64; 256]; 8]; 4]);
    for (s, sym) in Symmetry::ALL.iter().enumerate() {
        for byte in 0..8u32 {
            for value in 0..256u32 {
                let mut image = 0u64;
                for bit in 0..8 {
                    let sq = byte * 8 + bit;
                    if sq < n * n && value >> bit & 1 == 1 {
                        image |= 1 << sym.square(sq, n);
                    }
                }
                t[s][byte as usize][value as usize] = image;
            }
        }
    }
    t
}

static TABLES: LazyLock<[Box<ByteTables>; 3]> = LazyLock::new(|| [build(4), build(6), build(8)]);

/// The image of `occ` under symmetry `s` (index into [`Symmetry::ALL`]),
/// by byte tables (every board size).
#[inline(always)]
fn image_by_tables(t: &ByteTables, s: usize, occ: u64) -> u64 {
    (0..8).fold(0, |acc, i| acc | t[s][i][(occ >> (8 * i)) as usize & 0xff])
}

/// The 8x8 reflection in the main diagonal, by three delta swaps.
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = K1 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// The four images of occupancy `occ`, in the order of [`Symmetry::ALL`].
#[inline(always)]
pub fn occupancy_images<G: Geometry>(occ: u64) -> [u64; 4] {
    if G::N == 8 {
        let t = transpose8(occ);
        [occ, occ.reverse_bits(), t, t.reverse_bits()]
    } else {
        let t = &TABLES[(G::N / 2 - 2) as usize];
        [occ, image_by_tables(t, 1, occ), image_by_tables(t, 2, occ), image_by_tables(t, 3, occ)]
    }
}

/// The canonical occupancy of `occ` (the least image) and the size of its
/// orbit (1, 2 or 4).
#[inline(always)]
pub fn canonical_occupancy<G: Geometry>(occ: u64) -> (u64, u32) {
    least_image(&occupancy_images::<G>(occ))
}

/// The least of four images (in the order of [`Symmetry::ALL`], the
/// first the occupancy itself) and the size of its orbit.
#[inline(always)]
pub fn least_image(i: &[u64; 4]) -> (u64, u32) {
    let fixed = 1 + (i[1] == i[0]) as u32 + (i[2] == i[0]) as u32 + (i[3] == i[0]) as u32;
    (i[0].min(i[1]).min(i[2].min(i[3])), 4 / fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Bitboard};

    /// The fast images equal the symmetries square by square, on random
    /// occupancies of every size.
    #[test]
    fn images_equal_the_symmetries() {
        fn check<G: Geometry>() {
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let occ = x & G::FULL;
                let images = occupancy_images::<G>(occ);
                for (s, sym) in Symmetry::ALL.iter().enumerate() {
                    assert_eq!(images[s], sym.bitboard::<G>(Bitboard(occ)).0, "{} {sym:?} {occ:x}", G::N);
                }
                let (c, orbit) = canonical_occupancy::<G>(occ);
                assert_eq!(c, *images.iter().min().unwrap());
                let distinct: std::collections::HashSet<u64> = images.into_iter().collect();
                assert_eq!(orbit as usize, distinct.len());
            }
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }
}
