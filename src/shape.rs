//! Subtree shapes: what the game tree below a position depends on.
//!
//! The rules do not care which colour moves, nor how the board is turned or
//! mirrored: each of the eight symmetries of the square maps legal moves to
//! legal moves and flips to flips. So the per-ply counts below a position
//! depend only on its (mover, opponent) discs up to those eight symmetries,
//! twice as many as the four that fix the start position (which the census
//! classes use, since they keep colours and the start). [`shape_key`] names
//! that orbit: the least of the eight images, each packed as
//! `mover << 64 | opponent`.

use crate::board::Geometry;

#[inline(always)]
fn pack(me: u64, opp: u64) -> u128 {
    (u128::from(me) << 64) | u128::from(opp)
}

/// The 180-degree turn: square `i` goes to `N * N - 1 - i`.
#[inline(always)]
pub fn rotate180<G: Geometry>(x: u64) -> u64 {
    x.reverse_bits() >> (64 - G::SQUARES)
}

/// The mirror in the horizontal axis: row `r` goes to row `N - 1 - r`.
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

/// The shape of a position given as (mover, opponent) discs: equal for two
/// positions exactly when one is an image of the other under one of the
/// eight symmetries of the square (colours ignored).
#[inline(always)]
pub fn shape_key<G: Geometry>(me: u64, opp: u64) -> u128 {
    shape_and_symmetry::<G>(me, opp).0
}

/// One of the eight symmetries of the square, as used by
/// [`shape_and_symmetry`]: bits 1-2 pick the identity, the 180-degree turn,
/// the transpose or the turn after the transpose; bit 0 then mirrors the
/// rows.
#[inline(always)]
pub fn apply<G: Geometry>(x: u64, symmetry: u8) -> u64 {
    let t = if symmetry & 4 != 0 { transpose::<G>(x) } else { x };
    let t = if symmetry & 2 != 0 { rotate180::<G>(t) } else { t };
    if symmetry & 1 != 0 { flip_rows::<G>(t) } else { t }
}

/// The image of square `sq` under `symmetry` (see [`apply`]).
#[inline]
pub fn map_square<G: Geometry>(sq: u32, symmetry: u8) -> u32 {
    apply::<G>(1u64 << sq, symmetry).trailing_zeros()
}

/// The shape key and a symmetry that maps (`me`, `opp`) onto the image
/// the key packs.
#[inline(always)]
pub fn shape_and_symmetry<G: Geometry>(me: u64, opp: u64) -> (u128, u8) {
    let (tm, to) = (transpose::<G>(me), transpose::<G>(opp));
    let images =
        [(me, opp), (rotate180::<G>(me), rotate180::<G>(opp)), (tm, to), (rotate180::<G>(tm), rotate180::<G>(to))];
    let mut best = (u128::MAX, 0u8);
    for (i, (a, b)) in images.into_iter().enumerate() {
        let plain = (pack(a, b), 2 * i as u8);
        let mirrored = (pack(flip_rows::<G>(a), flip_rows::<G>(b)), 2 * i as u8 + 1);
        best = best.min(plain).min(mirrored);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    /// Square `sq` under symmetry `s` (0..8), by coordinates.
    fn image(sq: u32, n: u32, s: u32) -> u32 {
        let (r, c) = (sq / n, sq % n);
        let (r, c) = if s & 4 != 0 { (c, r) } else { (r, c) };
        let r = if s & 1 != 0 { n - 1 - r } else { r };
        let c = if s & 2 != 0 { n - 1 - c } else { c };
        r * n + c
    }

    fn map(x: u64, n: u32, s: u32) -> u64 {
        (0..n * n).filter(|&sq| x >> sq & 1 == 1).fold(0, |acc, sq| acc | 1 << image(sq, n, s))
    }

    fn check<G: Geometry>() {
        let n = G::N;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let me = seed & G::FULL;
            let opp = seed.rotate_left(17) & G::FULL & !me;
            assert_eq!(rotate180::<G>(me), map(me, n, 3));
            assert_eq!(flip_rows::<G>(me), map(me, n, 1));
            assert_eq!(transpose::<G>(me), map(me, n, 4));
            // the least image over all eight symmetries, computed square by square
            let least = (0..8).map(|s| pack(map(me, n, s), map(opp, n, s))).min().unwrap();
            assert_eq!(shape_key::<G>(me, opp), least);
            for s in 0..8 {
                assert_eq!(shape_key::<G>(map(me, n, s), map(opp, n, s)), least);
            }
            // the symmetry returned maps the position onto the key's image
            let (key, sym) = shape_and_symmetry::<G>(me, opp);
            assert_eq!(key, pack(apply::<G>(me, sym), apply::<G>(opp, sym)));
            let sq = me.trailing_zeros().min(G::SQUARES - 1);
            assert_eq!(apply::<G>(1 << sq, sym), 1 << map_square::<G>(sq, sym));
        }
    }

    #[test]
    fn shape_is_the_least_of_the_eight_images() {
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }
}
