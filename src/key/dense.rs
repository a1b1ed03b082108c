//! The dense base-3 key (seed 001): the centre squares one bit each, every
//! other square one base-3 digit, the side to move on top:
//!
//! ```text
//! key = centre_bits + 16 * (sum_j digit_j * 3^j) + 16 * 3^M * side
//! ```
//!
//! with the squares in spiral order (`M = N*N - 4` outer squares, digit 0
//! empty, 1 Black, 2 White; centre bit 1 = Black; side 1 = White to move).
//! The key compares exactly as the spiral key does (side first, then the
//! outermost square down to the centre), so the least dense key over the
//! symmetry images is the image with the least spiral key.
//!
//! Packing is a sum of table entries, one per byte of each colour's
//! bitboard, with one table per symmetry: the key of every symmetry image
//! costs `2 * ceil(N*N / 8)` loads and adds.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Add;

use super::{KeyError, spiral_index, spiral_order};
use std::sync::LazyLock;

use crate::board::{B4, B6, B8, Color, Geometry, Position};
use crate::symmetry::Symmetry;

/// An unsigned integer that holds a dense key.
pub trait PackedKey:
    Copy + Clone + Eq + Ord + Hash + Debug + Default + Send + Sync + Add<Output = Self> + 'static
{
    /// Width in bytes in memory.
    const BYTES: usize;
    /// Zero.
    const ZERO: Self;
    /// Conversion from a `u128` known to fit.
    fn from_u128(v: u128) -> Self;
    /// Widening conversion.
    fn to_u128(self) -> u128;
    /// Addition modulo the width.
    fn wrapping_add(self, o: Self) -> Self;
    /// Subtraction modulo the width.
    fn wrapping_sub(self, o: Self) -> Self;
}

macro_rules! packed_key {
    ($t:ty) => {
        impl PackedKey for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            const ZERO: Self = 0;
            #[inline(always)]
            fn from_u128(v: u128) -> Self {
                debug_assert!(v <= <$t>::MAX as u128);
                v as $t
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn wrapping_add(self, o: Self) -> Self {
                <$t>::wrapping_add(self, o)
            }
            #[inline(always)]
            fn wrapping_sub(self, o: Self) -> Self {
                <$t>::wrapping_sub(self, o)
            }
        }
    };
}
packed_key!(u32);
packed_key!(u64);
packed_key!(u128);

/// Number of significant bytes of a dense key for board side `n`
/// (4x4: 4 (25 bits), 6x6: 7 (56 bits), 8x8: 13 (101 bits)).
pub const fn dense_bytes(n: u32) -> usize {
    let largest = max_dense(n) - 1;
    (128 - largest.leading_zeros()).div_ceil(8) as usize
}

/// The largest dense key for board side `n` plus one.
pub const fn max_dense(n: u32) -> u128 {
    side_weight(n) * 2
}

/// Weight of the side-to-move digit: `16 * 3^(n*n - 4)`.
pub const fn side_weight(n: u32) -> u128 {
    16 * 3u128.pow(n * n - 4)
}

/// A board size with its dense key: the key type (the smallest unsigned
/// integer that holds a packed position of this size) and its tables.
pub trait Keyed: Geometry {
    /// The dense (base-3) key type.
    type Key: PackedKey;
    /// The dense-key tables of this size, built on first use.
    fn key_tables() -> &'static KeyTables<Self::Key>;
}

macro_rules! keyed {
    ($g:ty, $k:ty) => {
        impl Keyed for $g {
            type Key = $k;
            #[inline(always)]
            fn key_tables() -> &'static KeyTables<$k> {
                static TABLES: LazyLock<KeyTables<$k>> = LazyLock::new(|| KeyTables::build(<$g>::N));
                &TABLES
            }
        }
    };
}
keyed!(B4, u32);
keyed!(B6, u64);
keyed!(B8, u128);

/// Per-geometry lookup tables: `black[s][byte][value]` is the contribution
/// to the dense key of symmetry image `s` of black discs `value` in byte
/// `byte` of the black bitboard; likewise `white`.
///
/// For unpacking with the images' keys, `groups[t][g]` gives the black
/// and white squares of the five base-3 digits `5t..5t+5` whose value is
/// `g` (0..243) (`group_images` their keys); for unpacking alone, `wide`
/// does so for eight digits; `centre[c]` gives those of the four centre
/// bits `c`.
pub struct KeyTables<K> {
    black: Box<[[[K; 256]; 8]; 4]>,
    white: Box<[[[K; 256]; 8]; 4]>,
    side: K,
    groups: Vec<[(u64, u64); 243]>,
    /// For unpacking without images: `wide[t][g]`, the black and white
    /// squares of the eight digits `8t..8t+8` whose value is `g` (0..6561);
    /// 105 KB a table, two for each half of sixteen digits (4 on 6x6, 8 on
    /// 8x8).
    wide: Vec<[(u64, u64); WIDE]>,
    centre: [(u64, u64); 16],
    /// Per square, for each symmetry image: what a disc placed there by
    /// Black (`[0]`) or by White (`[1]`) adds to the image's key, the
    /// change of the side to move included (the keys are sums of table
    /// entries, which makes a child's keys a few additions away from its
    /// parent's), modulo the key's width.
    place: Box<[[[K; 4]; 64]; 2]>,
    /// Per square, for each image: what a white disc there turned black
    /// adds to the image's key (a black disc turned white subtracts it).
    flip: Box<[[K; 4]; 64]>,
    /// What the discs of `groups[t][g]` add to the key of each symmetry
    /// image, and likewise the centre's (`centre[c]`): unpacking a key
    /// sums them into the keys of all four images at once.
    group_images: Vec<[[K; 4]; 243]>,
    centre_images: [[K; 4]; 16],
}

/// Digits per unpacking chunk: 3^20 < 2^32.
const CHUNK_DIGITS: u32 = 20;
const CHUNK: u64 = 3u64.pow(CHUNK_DIGITS);
const GROUP_DIGITS: u32 = 5;
const GROUP: u32 = 243;
/// Digits per wide group (unpacking without images) and their values;
/// two wide groups make a half of sixteen digits, 3^16 < 2^26.
const WIDE_DIGITS: u32 = 8;
const WIDE: usize = 6561;
const HALF: u64 = 3u64.pow(2 * WIDE_DIGITS);

/// `(v / 3^20, v % 3^20)`: a u64 division by a constant where `v` fits,
/// else one 128-by-64-bit division; the steps of [`unpack_with_images`]
/// (on 8x8 keys 20.6 ns an unpacking against 24.6 with the long division
/// on 32-bit limbs it replaced, four dependent steps, when `unpack` took
/// them too; `cargo bench --bench layers -- keys`).
#[inline(always)]
fn divrem_chunk(v: u128) -> (u128, u64) {
    if v <= u64::MAX as u128 {
        let v = v as u64;
        return ((v / CHUNK) as u128, v % CHUNK);
    }
    let q = v / CHUNK as u128;
    (q, (v - q * CHUNK as u128) as u64)
}

impl<K: PackedKey> KeyTables<K> {
    /// Builds the tables for board side `n`.
    pub fn build(n: u32) -> KeyTables<K> {
        let index = spiral_index(n);
        let mut black = Box::new([[[K::default(); 256]; 8]; 4]);
        let mut white = Box::new([[[K::default(); 256]; 8]; 4]);
        for (s, sym) in Symmetry::START.iter().enumerate() {
            for byte in 0..8u32 {
                for value in 0..256u32 {
                    let (mut bsum, mut wsum) = (0u128, 0u128);
                    for bit in 0..8 {
                        let sq = byte * 8 + bit;
                        if sq >= n * n || value >> bit & 1 == 0 {
                            continue;
                        }
                        let i = index[sym.square(sq, n) as usize] as u32;
                        if i < 4 {
                            bsum += 1 << i;
                        } else {
                            let w = 16 * 3u128.pow(i - 4);
                            bsum += w;
                            wsum += 2 * w;
                        }
                    }
                    black[s][byte as usize][value as usize] = K::from_u128(bsum);
                    white[s][byte as usize][value as usize] = K::from_u128(wsum);
                }
            }
        }
        let order = spiral_order(n);
        let outer = n * n - 4;
        let chunks = outer.div_ceil(CHUNK_DIGITS);
        // the black and white squares of the `digits` digits from `first`
        // whose value is `g`
        let squares = |first: u32, digits: u32, g: usize| {
            let (mut b, mut w, mut rest) = (0u64, 0u64, g as u32);
            for digit in first..first + digits {
                let v = rest % 3;
                rest /= 3;
                if digit >= outer || v == 0 {
                    continue;
                }
                let bit = 1u64 << order[(4 + digit) as usize];
                if v == 1 {
                    b |= bit;
                } else {
                    w |= bit;
                }
            }
            (b, w)
        };
        let mut groups = vec![[(0u64, 0u64); 243]; (chunks * CHUNK_DIGITS / GROUP_DIGITS) as usize];
        for (t, table) in groups.iter_mut().enumerate() {
            for (g, entry) in table.iter_mut().enumerate() {
                *entry = squares(t as u32 * GROUP_DIGITS, GROUP_DIGITS, g);
            }
        }
        let wide = (0..Self::halves(n) * 2)
            .map(|t| std::array::from_fn(|g| squares(t * WIDE_DIGITS, WIDE_DIGITS, g)))
            .collect();
        let mut centre = [(0u64, 0u64); 16];
        for (c, entry) in centre.iter_mut().enumerate() {
            for (i, &sq) in order.iter().take(4).enumerate() {
                if c >> i & 1 == 1 {
                    entry.0 |= 1 << sq;
                } else {
                    entry.1 |= 1 << sq;
                }
            }
        }
        let side = K::from_u128(side_weight(n));
        let mut place = Box::new([[[K::default(); 4]; 64]; 2]);
        let mut flip = Box::new([[K::default(); 4]; 64]);
        for sq in 0..(n * n) as usize {
            let (byte, bit) = (sq / 8, 1usize << (sq % 8));
            for s in 0..4 {
                let (b, w) = (black[s][byte][bit], white[s][byte][bit]);
                place[0][sq][s] = b.wrapping_add(side);
                place[1][sq][s] = w.wrapping_sub(side);
                flip[sq][s] = b.wrapping_sub(w);
            }
        }
        // the key of image `s` of some discs, the side term left out
        let partial = |b: u64, w: u64, s: usize| {
            (0..8).fold(K::default(), |k, i| {
                k.wrapping_add(black[s][i][(b >> (8 * i)) as usize & 0xff])
                    .wrapping_add(white[s][i][(w >> (8 * i)) as usize & 0xff])
            })
        };
        let images = |&(b, w): &(u64, u64)| -> [K; 4] { std::array::from_fn(|s| partial(b, w, s)) };
        let group_images = groups.iter().map(|table| std::array::from_fn(|g| images(&table[g]))).collect();
        let centre_images = std::array::from_fn(|c| images(&centre[c]));
        KeyTables { black, white, side, groups, wide, centre, place, flip, group_images, centre_images }
    }

    /// Halves of sixteen digits that the outer squares of board side `n`
    /// need: 1 on 4x4, 2 on 6x6, 4 on 8x8.
    const fn halves(n: u32) -> u32 {
        (n * n - 4).div_ceil(2 * WIDE_DIGITS)
    }
}

/// Dense key of symmetry image `s` (index into [`Symmetry::START`]).
#[inline(always)]
pub fn image_key<G: Keyed>(p: &Position<G>, s: usize) -> G::Key {
    let t = G::key_tables();
    let (b, w) = (p.black().0, p.white().0);
    let mut key = if p.side_to_move() == Color::White { t.side } else { G::Key::default() };
    let bytes = G::SQUARES.div_ceil(8) as usize;
    for i in 0..bytes {
        key = key + t.black[s][i][(b >> (8 * i)) as usize & 0xff];
        key = key + t.white[s][i][(w >> (8 * i)) as usize & 0xff];
    }
    key
}

/// Dense keys of the four symmetry images, in the order of [`Symmetry::START`].
#[inline(always)]
pub fn image_keys<G: Keyed>(p: &Position<G>) -> [G::Key; 4] {
    [image_key(p, 0), image_key(p, 1), image_key(p, 2), image_key(p, 3)]
}

/// The dense keys of the four images of the child of `parent` after the
/// side to move plays on `square`, flipping `flipped`, from the keys of the
/// parent's four images (`keys`, as [`image_keys`] gives them): each key
/// changes by the placed disc, the flipped discs and the side to move, so a
/// child costs an addition per image and disc (four lanes of one vector
/// where the key is a u64) instead of four packings. Equal to
/// `image_keys(&parent.play(square))`; `tables` are `G::key_tables()`,
/// fetched once by a caller that makes many children.
#[inline(always)]
pub fn child_image_keys<G: Keyed>(
    tables: &KeyTables<G::Key>,
    parent: &Position<G>,
    keys: &[G::Key; 4],
    square: u32,
    flipped: u64,
) -> [G::Key; 4] {
    let black = parent.side_to_move() == Color::Black;
    let placed = &tables.place[usize::from(!black)][square as usize];
    let mut k: [G::Key; 4] = std::array::from_fn(|s| keys[s].wrapping_add(placed[s]));
    let mut f = flipped;
    // (the colour's branch outside the loop: one direction per child)
    if black {
        while f != 0 {
            let d = &tables.flip[f.trailing_zeros() as usize];
            k = std::array::from_fn(|s| k[s].wrapping_add(d[s]));
            f &= f - 1;
        }
    } else {
        while f != 0 {
            let d = &tables.flip[f.trailing_zeros() as usize];
            k = std::array::from_fn(|s| k[s].wrapping_sub(d[s]));
            f &= f - 1;
        }
    }
    k
}

/// Dense key of the position itself.
#[inline]
pub fn pack<G: Keyed>(p: &Position<G>) -> G::Key {
    image_key(p, 0)
}

/// A dense key's parts: the index of its centre's four bits, the side to
/// move and the value of its outer digits.
#[inline(always)]
fn split_key<G: Keyed>(key: G::Key) -> Result<(usize, Color, u128), KeyError> {
    let v = key.to_u128();
    if v >= const { max_dense(G::N) } {
        return Err(KeyError::OutOfRange);
    }
    let outer = v >> 4;
    let three_m = const { side_weight(G::N) / 16 };
    let (side, outer) = if outer >= three_m { (Color::White, outer - three_m) } else { (Color::Black, outer) };
    Ok(((v & 15) as usize, side, outer))
}

/// The black and white squares of half `i` (sixteen digits, value `h`)
/// of the outer digits: two lookups in the wide tables.
#[inline(always)]
fn half_squares<K>(t: &KeyTables<K>, i: usize, h: u64) -> (u64, u64) {
    let h = h as u32;
    let (lo, hi) = (t.wide[2 * i][(h % WIDE as u32) as usize], t.wide[2 * i + 1][(h / WIDE as u32) as usize]);
    (lo.0 | hi.0, lo.1 | hi.1)
}

/// The position of a dense key.
#[inline]
pub fn unpack<G: Keyed>(key: G::Key) -> Result<Position<G>, KeyError> {
    Unpacker::<G>::new().unpack(key)
}

/// Unpacks dense keys one after another, keeping the squares of the last
/// key's outer digits: keys read in order (a layer's classes) mostly
/// differ in their sixteen innermost digits only (the squares nearest the
/// centre), which then cost two lookups, and where the rest changes, the
/// 128-bit division that splits an 8x8 key is needed only where its outer
/// half (the 28 edge squares) changes too. The same positions as
/// [`unpack`].
pub struct Unpacker<G: Keyed> {
    tables: &'static KeyTables<G::Key>,
    /// The last key's outer digits but the innermost sixteen, as their
    /// value times their weight, and their squares; a key `r` of outer
    /// digits shares them when `r - inner.0 < 3^16`.
    inner: (u128, (u64, u64)),
    /// Likewise its outer half, on 8x8 (`r - outer.0 < 3^32`).
    outer: (u128, (u64, u64)),
    /// For [`Unpacker::unpack_with_images`]: the last key's digits but
    /// the innermost chunk of twenty, as their value times their weight,
    /// with their squares and images' keys (`r - upper.0 < 3^20`).
    upper: (u128, Digits<G::Key>),
}

impl<G: Keyed> Default for Unpacker<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Keyed> Unpacker<G> {
    /// Weight of the outer half of a key of four halves (3^32).
    const OUTER: u128 = (HALF * HALF) as u128;

    /// An unpacker holding no key yet (2^127 as the weighted digits held:
    /// no key is within 3^32 above it).
    pub fn new() -> Self {
        Unpacker {
            tables: G::key_tables(),
            inner: (1 << 127, (0, 0)),
            outer: (1 << 127, (0, 0)),
            upper: (1 << 127, Digits::NONE),
        }
    }

    /// The position of a dense key (inlined always: a result handed back
    /// through memory cost the last layer's count a stall at every class).
    #[inline(always)]
    pub fn unpack(&mut self, key: G::Key) -> Result<Position<G>, KeyError> {
        let t = self.tables;
        let (centre, side, rest) = split_key::<G>(key)?;
        // the outer digits as halves of sixteen, each two wide groups of
        // eight (`examples/unpack_probe`: 6x6 layer 17 in its order 13.3
        // -> 4.1 ns a key, 8x8 ply 12 17.0 -> 10.8 ns, before the halves
        // were kept from one key to the next)
        let low = rest.wrapping_sub(self.inner.0);
        let low = if low < HALF as u128 { low as u64 } else { self.refill(rest) };
        let (cb, cw) = t.centre[centre];
        let (lb, lw) = half_squares(t, 0, low);
        let (ib, iw) = self.inner.1;
        Ok(Position::from_colors_unchecked(cb | lb | ib, cw | lw | iw, side))
    }

    /// The position of a dense key and the dense keys of its four
    /// symmetry images: [`unpack_with_images`], the digits above the
    /// innermost twenty kept from the last key where they are the same
    /// (inlined always, as [`Unpacker::unpack`]).
    #[inline(always)]
    pub fn unpack_with_images(&mut self, key: G::Key) -> Result<(Position<G>, [G::Key; 4]), KeyError> {
        let t = self.tables;
        let (centre, side, rest) = split_key::<G>(key)?;
        let low = rest.wrapping_sub(self.upper.0);
        let low = if low < CHUNK as u128 { low } else { self.refill_upper(rest) };
        let mut d = Digits::centre(t, centre, side);
        d.add(&self.upper.1);
        d.add_chunks(t, 0, low);
        Ok((Position::from_colors_unchecked(d.black, d.white, side), d.keys))
    }

    /// Reads the digits of `rest` above the innermost twenty into `upper`;
    /// returns the innermost twenty.
    #[cold]
    fn refill_upper(&mut self, rest: u128) -> u128 {
        let (q, r) = divrem_chunk(rest);
        let mut upper = Digits::NONE;
        upper.add_chunks(self.tables, 1, q);
        self.upper = (q * CHUNK as u128, upper);
        r as u128
    }

    /// Reads the digits of `rest` but the innermost sixteen into `inner`
    /// (and `outer`); returns the innermost sixteen.
    #[cold]
    fn refill(&mut self, rest: u128) -> u64 {
        let t = self.tables;
        match const { KeyTables::<G::Key>::halves(G::N) } {
            1 => {
                self.inner = (0, (0, 0));
                rest as u64
            }
            2 => {
                let rest = rest as u64;
                let h = rest / HALF;
                self.inner = ((h * HALF) as u128, half_squares(t, 1, h));
                rest % HALF
            }
            4 => {
                if rest.wrapping_sub(self.outer.0) >= Self::OUTER {
                    // one 128-by-64-bit division (a library call; an x86
                    // `div` or a floating-point estimate corrected measured
                    // no faster)
                    let h = (rest / Self::OUTER) as u64;
                    let (ab, aw) = half_squares(t, 2, h % HALF);
                    let (bb, bw) = half_squares(t, 3, h / HALF);
                    self.outer = (h as u128 * Self::OUTER, (ab | bb, aw | bw));
                }
                let low = (rest - self.outer.0) as u64;
                let h = low / HALF;
                let (hb, hw) = half_squares(t, 1, h);
                let (ob, ow) = self.outer.1;
                self.inner = (self.outer.0 + (h * HALF) as u128, (hb | ob, hw | ow));
                low % HALF
            }
            halves => unreachable!("a dense key of {halves} halves (boards of 4x4, 6x6 and 8x8 only)"),
        }
    }
}

/// The position of a dense key and the dense keys of its four symmetry
/// images (as [`image_keys`] gives them), summed from tables as the digits
/// are read: a parent's images for its children's keys, at a table lookup
/// a group of five digits instead of a packing per image.
#[inline]
pub fn unpack_with_images<G: Keyed>(
    t: &KeyTables<G::Key>,
    key: G::Key,
) -> Result<(Position<G>, [G::Key; 4]), KeyError> {
    let (centre, side, rest) = split_key::<G>(key)?;
    let mut d = Digits::centre(t, centre, side);
    d.add_chunks(t, 0, rest);
    Ok((Position::from_colors_unchecked(d.black, d.white, side), d.keys))
}

/// Squares and images' keys summed from digits (a part of a key).
#[derive(Clone, Copy)]
struct Digits<K> {
    black: u64,
    white: u64,
    keys: [K; 4],
}

impl<K: PackedKey> Digits<K> {
    const NONE: Digits<K> = Digits { black: 0, white: 0, keys: [K::ZERO; 4] };

    /// The centre's squares and keys, and the side's term.
    #[inline(always)]
    fn centre(t: &KeyTables<K>, centre: usize, side: Color) -> Self {
        let (black, white) = t.centre[centre];
        let mut d = Digits { black, white, keys: t.centre_images[centre] };
        if side == Color::White {
            d.add_keys(&[t.side; 4]);
        }
        d
    }

    #[inline(always)]
    fn add_keys(&mut self, more: &[K; 4]) {
        self.keys = std::array::from_fn(|s| self.keys[s].wrapping_add(more[s]));
    }

    /// Adds the digits of `rest`, the first of which is digit `20 * chunk`
    /// of a key: a chunk of twenty digits (four groups of five) at a time.
    #[inline(always)]
    fn add_chunks(&mut self, t: &KeyTables<K>, chunk: usize, mut rest: u128) {
        let mut group = chunk * (CHUNK_DIGITS / GROUP_DIGITS) as usize;
        let (mut b, mut w, mut keys) = (self.black, self.white, self.keys);
        while rest != 0 {
            let (q, r) = divrem_chunk(rest);
            let mut c = r as u32;
            for _ in 0..CHUNK_DIGITS / GROUP_DIGITS {
                let g = (c % GROUP) as usize;
                let (bb, ww) = t.groups[group][g];
                b |= bb;
                w |= ww;
                let more = &t.group_images[group][g];
                keys = std::array::from_fn(|s| keys[s].wrapping_add(more[s]));
                c /= GROUP;
                group += 1;
            }
            rest = q;
        }
        *self = Digits { black: b, white: w, keys };
    }

    /// Adds the squares and keys of `o`.
    #[inline(always)]
    fn add(&mut self, o: &Digits<K>) {
        self.black |= o.black;
        self.white |= o.white;
        self.add_keys(&o.keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};
    use crate::key::SpiralKey;

    /// Every child of every position of random games: the keys made from
    /// the parent's by additions equal the keys packed from the child.
    #[test]
    fn child_keys_by_addition_equal_packed_keys() {
        fn check<G: Keyed>(games: usize) {
            crate::board::random_games::<G>(games, 0x2545_F491_4F6C_DD1D, |p| {
                let keys = image_keys(p);
                for sq in p.legal_moves() {
                    let c = p.play(sq);
                    let flipped = c.opponent().0 & p.opponent().0;
                    let want = image_keys(&c);
                    assert_eq!(child_image_keys(G::key_tables(), p, &keys, sq, flipped), want, "{p:?} {sq}");
                }
            });
        }
        check::<B4>(200);
        check::<B6>(200);
        check::<B8>(200);
    }

    /// Unpacking with the images gives the position unpacked alone and
    /// the keys packed from its images, on every position of random games.
    #[test]
    fn images_summed_while_unpacking_equal_packed_images() {
        fn check<G: Keyed>(games: usize) {
            crate::board::random_games::<G>(games, 0x9E37_79B9_7F4A_7C15, |p| {
                for q in [*p, p.pass()] {
                    let (u, keys) = unpack_with_images::<G>(G::key_tables(), pack(&q)).unwrap();
                    assert_eq!(u, q);
                    assert_eq!(keys, image_keys(&q), "{q:?}");
                }
            });
        }
        check::<B4>(200);
        check::<B6>(200);
        check::<B8>(200);
    }

    /// One unpacker reading keys one after another (in key order, in
    /// random order, and on both sides of each change of the outer half)
    /// gives every key's position (the one that packs to it again) and its
    /// images' keys (packed from the images).
    #[test]
    fn an_unpacker_kept_between_keys_unpacks_each() {
        fn check<G: Keyed>() {
            let max = max_dense(G::N);
            let outer = 16 * (HALF as u128 * HALF as u128);
            let mut x = 0x9E37_79B9_7F4A_7C15_2545_F491_4F6C_DD1Du128;
            let mut keys = vec![0, 1, max - 1];
            for _ in 0..5_000 {
                x = x.wrapping_mul(0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645).wrapping_add(1442695040888963407);
                let k = (x >> (x as u32 % 100)) % max;
                for w in [outer, 16 * HALF as u128, 16 * CHUNK as u128] {
                    let edge = (k / w) * w;
                    keys.extend([k, edge, edge.wrapping_sub(1), edge + 17, edge + w - 1]);
                }
            }
            keys.retain(|&k| k < max);
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            let (mut u, mut v) = (Unpacker::<G>::new(), Unpacker::<G>::new());
            for k in keys.into_iter().chain(sorted) {
                let p = u.unpack(G::Key::from_u128(k)).unwrap();
                assert_eq!(pack(&p).to_u128(), k, "{k}");
                assert_eq!(v.unpack_with_images(G::Key::from_u128(k)).unwrap(), (p, image_keys(&p)), "{k}");
            }
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }

    #[test]
    fn chunk_division() {
        let mut x = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834u128;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            for v in [x, x >> 30, x >> 64, x >> 100, x & 0xffff, u64::MAX as u128 + (x & 0xffff)] {
                let (q, r) = divrem_chunk(v);
                assert!(r < CHUNK && q * CHUNK as u128 + r as u128 == v, "{v}");
            }
        }
    }

    /// Every key below the bound unpacks to a position that packs to it
    /// again (random keys of every magnitude, and the extremes); the bound
    /// itself is refused.
    #[test]
    fn every_key_in_range_packs_back() {
        fn check<G: Keyed>() {
            let max = max_dense(G::N);
            let mut x = 0x2545_F491_4F6C_DD1D_9E37_79B9_7F4A_7C15u128;
            let mut keys = vec![0, 1, 15, 16, max - 1, max / 2, max / 2 - 1];
            for _ in 0..20_000 {
                x = x.wrapping_mul(0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645).wrapping_add(1442695040888963407);
                keys.push((x >> (x as u32 % 100)) % max);
            }
            for v in keys {
                let p = unpack::<G>(G::Key::from_u128(v)).unwrap();
                assert_eq!(pack(&p).to_u128(), v);
            }
            assert!(unpack::<G>(G::Key::from_u128(max)).is_err());
        }
        check::<B4>();
        check::<B6>();
        check::<B8>();
    }

    #[test]
    fn widths() {
        assert_eq!(dense_bytes(4), 4);
        assert_eq!(dense_bytes(6), 7);
        assert_eq!(dense_bytes(8), 13);
        assert!(max_dense(6) <= u64::MAX as u128);
        assert!(max_dense(4) <= u32::MAX as u128);
    }

    #[test]
    fn round_trip_and_order() {
        let mut ps = vec![Position::<B6>::start()];
        for _ in 0..6 {
            let next: Vec<_> = ps.iter().flat_map(|p| p.children()).collect();
            ps.extend(next);
            ps.truncate(400);
        }
        for a in &ps {
            assert_eq!(unpack::<B6>(pack(a)).unwrap(), *a);
            for b in &ps {
                assert_eq!(pack(a).cmp(&pack(b)), SpiralKey::pack(a).cmp(&SpiralKey::pack(b)));
            }
        }
        let p8 = Position::<B8>::start().play(19).pass();
        assert_eq!(unpack::<B8>(pack(&p8)).unwrap(), p8);
        let p4 = Position::<B4>::start().play(1);
        assert_eq!(unpack::<B4>(pack(&p4)).unwrap(), p4);
        assert_eq!(unpack::<B4>(max_dense(4) as u32), Err(KeyError::OutOfRange));
    }
}
