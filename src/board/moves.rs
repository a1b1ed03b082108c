//! Move generation on bitboards, generic over the board size: legal moves
//! by shift-and-mask flood (seed 002's method, grown two steps at a time),
//! flips by rays looked up per square.

use super::geometry::Geometry;

/// The run of flanked discs one direction can add, shifting towards
/// higher squares by `s`: grown two steps at a time (a Kogge-Stone
/// doubling over `pre`, the squares whose neighbour is also maskable), so
/// `reps` doublings reach runs of `2 + 2 * reps` discs.
#[inline(always)]
fn run_up(me: u64, mask: u64, s: u32, reps: u32) -> u64 {
    let mut run = (me << s) & mask;
    run |= (run << s) & mask;
    let pre = mask & (mask << s);
    for _ in 0..reps {
        run |= pre & (run << (2 * s));
    }
    run << s
}

/// [`run_up`] towards lower squares.
#[inline(always)]
fn run_down(me: u64, mask: u64, s: u32, reps: u32) -> u64 {
    let mut run = (me >> s) & mask;
    run |= (run >> s) & mask;
    let pre = mask & (mask >> s);
    for _ in 0..reps {
        run |= pre & (run >> (2 * s));
    }
    run >> s
}

/// The legal moves of the side owning `me` against `opp`: every empty
/// square that flanks at least one straight run of `opp` discs.
///
/// For each of the eight directions a run of opponent discs is grown from
/// the mover's discs (up to `N - 2` discs, the longest run that can be
/// flanked); the empty square beyond a run is a legal move. Horizontal and
/// diagonal directions mask the opponent discs to the inner columns, which
/// both stops runs at the board edge and prevents a shift from wrapping
/// into the next row.
///
/// ```
/// use othello_census::board::{moves::legal_moves, B4};
/// // 4x4 start, Black to move: Black on squares 6 and 9, White on 5 and 10.
/// let black = (1 << 6) | (1 << 9);
/// let white = (1 << 5) | (1 << 10);
/// // . * . .      X Black, O White, * a legal move for Black
/// // * O X .
/// // . X O *
/// // . . * .
/// assert_eq!(legal_moves::<B4>(black, white), (1 << 1) | (1 << 4) | (1 << 11) | (1 << 14));
/// ```
#[inline(always)]
pub fn legal_moves<G: Geometry>(me: u64, opp: u64) -> u64 {
    let empty = !(me | opp) & G::FULL;
    let inner = opp & G::INNER_COLS;
    let n = G::N;
    let reps = (n - 4) / 2;
    let runs = run_up(me, inner, 1, reps)
        | run_down(me, inner, 1, reps)
        | run_up(me, opp, n, reps)
        | run_down(me, opp, n, reps)
        | run_up(me, inner, n + 1, reps)
        | run_down(me, inner, n + 1, reps)
        | run_up(me, inner, n - 1, reps)
        | run_down(me, inner, n - 1, reps);
    runs & empty
}

/// [`legal_moves`] with AVX2: the four directions towards higher squares
/// in the four lanes of one vector, then the four towards lower ones, each
/// grown by the same doubling as `run_up`.
///
/// # Safety
///
/// Callable only where AVX2 is known to be there: safely from code
/// compiled for AVX2, and in an `unsafe` block after a run-time check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn legal_moves_avx2<G: Geometry>(me: u64, opp: u64) -> u64 {
    use std::arch::x86_64::*;
    let n = G::N as i64;
    let inner = G::INNER_COLS as i64;
    // lanes 0..3: shifts 1 (rows), N (columns), N + 1 and N - 1 (diagonals)
    let shift = _mm256_set_epi64x(n - 1, n + 1, n, 1);
    let shift2 = _mm256_add_epi64(shift, shift);
    let mask = _mm256_and_si256(_mm256_set1_epi64x(opp as i64), _mm256_set_epi64x(inner, inner, -1, inner));
    let empty = !(me | opp) & G::FULL;
    let me = _mm256_set1_epi64x(me as i64);
    let reps = (G::N - 4) / 2;
    // towards higher squares
    let mut up = _mm256_and_si256(_mm256_sllv_epi64(me, shift), mask);
    up = _mm256_or_si256(up, _mm256_and_si256(_mm256_sllv_epi64(up, shift), mask));
    let pre = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
    for _ in 0..reps {
        up = _mm256_or_si256(up, _mm256_and_si256(pre, _mm256_sllv_epi64(up, shift2)));
    }
    // towards lower squares
    let mut down = _mm256_and_si256(_mm256_srlv_epi64(me, shift), mask);
    down = _mm256_or_si256(down, _mm256_and_si256(_mm256_srlv_epi64(down, shift), mask));
    let pre = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
    for _ in 0..reps {
        down = _mm256_or_si256(down, _mm256_and_si256(pre, _mm256_srlv_epi64(down, shift2)));
    }
    let all = _mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift));
    let half = _mm_or_si128(_mm256_castsi256_si128(all), _mm256_extracti128_si256(all, 1));
    let runs = (_mm_cvtsi128_si64(half) | _mm_extract_epi64(half, 1)) as u64;
    runs & empty
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

/// The opponent discs flipped when the side owning `me` plays on the empty
/// square `square`. Empty when the square flanks nothing (an illegal move).
///
/// Along each ray from the square, the first square that is not an
/// opponent disc closes the run if it is the mover's: found with the lowest
/// set bit on rays towards higher squares and the highest on the others.
#[inline(always)]
pub fn flips<G: Geometry>(me: u64, opp: u64, square: u32) -> u64 {
    let rays = &G::rays()[square as usize];
    let mut flipped = 0u64;
    // branch-free: a run counts when the square that stops it is the mover's
    for &ray in &rays[..4] {
        let stop = ray & !opp;
        let first = stop & stop.wrapping_neg();
        let closed = u64::from(first & me != 0).wrapping_neg();
        flipped |= first.wrapping_sub(1) & ray & closed;
    }
    for &ray in &rays[4..] {
        let stop = ray & !opp;
        let last = 63 - (stop | 1).leading_zeros();
        let closed = (((stop & me) >> last) & 1).wrapping_neg();
        flipped |= ray & !((2u64 << last).wrapping_sub(1)) & closed;
    }
    flipped
}

/// [`flips`] with AVX2: the four rays towards higher
/// squares in the lanes of one vector, the four towards lower ones in
/// another (their stopping square found by smearing the bits downwards).
///
/// # Safety
///
/// As [`legal_moves_avx2`]: the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn flips_avx2<G: Geometry>(me: u64, opp: u64, square: u32) -> u64 {
    use std::arch::x86_64::*;
    let rays = &G::rays()[square as usize];
    // SAFETY: `rays` is eight u64, two unaligned 256-bit loads in bounds.
    let (up_rays, down_rays) = unsafe {
        (
            _mm256_loadu_si256(rays.as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(rays.as_ptr().add(4).cast::<__m256i>()),
        )
    };
    let opp = _mm256_set1_epi64x(opp as i64);
    let me = _mm256_set1_epi64x(me as i64);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    // towards higher squares: the lowest stopping square
    let stop = _mm256_andnot_si256(opp, up_rays);
    let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
    let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, me), zero);
    let up = _mm256_andnot_si256(open, _mm256_and_si256(_mm256_sub_epi64(first, one), up_rays));
    // towards lower squares: the highest stopping square
    let stop = _mm256_andnot_si256(opp, down_rays);
    let mut x = _mm256_or_si256(stop, _mm256_srli_epi64(stop, 1));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 2));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 4));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 8));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 16));
    x = _mm256_or_si256(x, _mm256_srli_epi64(x, 32));
    let last = _mm256_andnot_si256(_mm256_srli_epi64(x, 1), x);
    let open = _mm256_cmpeq_epi64(_mm256_and_si256(last, me), zero);
    let below = _mm256_sub_epi64(_mm256_slli_epi64(last, 1), one);
    let down = _mm256_andnot_si256(open, _mm256_andnot_si256(below, down_rays));
    let all = _mm256_or_si256(up, down);
    let half = _mm_or_si128(_mm256_castsi256_si128(all), _mm256_extracti128_si256(all, 1));
    (_mm_cvtsi128_si64(half) | _mm_extract_epi64(half, 1)) as u64
}

/// The children of (`me`, `opp`) by the moves in `moves` (all legal), as
/// the opponent's turn: the sum of their mobilities (the opponent's legal
/// moves in each), and the set of the moves whose child leaves the
/// opponent no move (a pass or the end, for the caller to tell apart).
///
/// This is the inner loop of a perft two plies above its horizon: the
/// grandchildren counted in bulk.
#[inline(always)]
pub fn mobility_sum<G: Geometry>(me: u64, opp: u64, moves: u64) -> (u64, u64) {
    mobility_loop!(G, me, opp, moves, flips, legal_moves)
}

/// The mover and opponent after the side to move (`me`) plays `square`,
/// flipping `flipped` (the opponent's discs that [`flips`] gives): the
/// opponent moves next. Written once for every engine.
#[inline(always)]
pub const fn play(me: u64, opp: u64, square: u32, flipped: u64) -> (u64, u64) {
    (opp ^ flipped, me | flipped | 1u64 << square)
}

/// The loop of [`mobility_sum`] over the flips and moves functions named.
macro_rules! mobility_loop {
    ($g:ident, $me:ident, $opp:ident, $moves:ident, $flips:ident, $legal:ident) => {{
        let (mut sum, mut blocked, mut moves) = (0, 0, $moves);
        while moves != 0 {
            let sq = moves.trailing_zeros();
            moves &= moves - 1;
            let f = $flips::<$g>($me, $opp, sq);
            let (cme, copp) = $crate::board::moves::play($me, $opp, sq, f);
            let m = $legal::<$g>(cme, copp);
            sum += u64::from(m.count_ones());
            if m == 0 {
                blocked |= 1u64 << sq;
            }
        }
        (sum, blocked)
    }};
}
use mobility_loop;

/// [`mobility_sum`] with the AVX2 copies of flips and moves.
///
/// # Safety
///
/// As [`legal_moves_avx2`]: the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub fn mobility_sum_avx2<G: Geometry>(me: u64, opp: u64, moves: u64) -> (u64, u64) {
    mobility_loop!(G, me, opp, moves, flips_avx2, legal_moves_avx2)
}

/// Whether this CPU has the instructions (popcnt, lzcnt, tzcnt, bmi2, and
/// AVX2 for the 8x8 move generator) the fast copies of the perft walkers
/// and of the solver are compiled for.
#[inline]
pub fn has_bit_instructions() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which compiled copy of a hot loop this CPU runs: 2 with AVX-512
/// ([`has_avx512`] and [`has_bit_instructions`]), 1
/// with the bit instructions alone, 0 the portable code.
#[inline]
pub fn fast_level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_bit_instructions() {
            return if has_avx512() { 2 } else { 1 };
        }
    }
    0
}

/// Whether this CPU has the instructions [`mobility_sum_avx512`] is
/// compiled for (AVX2 and popcnt, and AVX-512 F, VL, CD and VPOPCNTDQ).
#[cfg(target_arch = "x86_64")]
pub fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512cd")
        && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
}

/// [`mobility_sum`] with AVX-512 instructions on 256-bit
/// vectors, without leaving the vector registers: the flips as in
/// [`flips_avx2`] but with the last stopping square found by a
/// leading-zero count, the child's moves as in [`legal_moves_avx2`]
/// with three-input logic, the mobilities summed by a vector popcount.
///
/// # Safety
///
/// The CPU must have the instructions of [`has_avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,avx512f,avx512vl,avx512cd,avx512vpopcntdq")]
#[inline]
pub fn mobility_sum_avx512<G: Geometry>(me: u64, opp: u64, mut moves: u64) -> (u64, u64) {
    use std::arch::x86_64::*;
    // a | (b & c), and a & !b & !c, as three-input logic tables
    const OR_AND: i32 = 0xF8;
    const AND_NOR: i32 = 0x10;
    let table = G::rays();
    let (n, inner) = (G::N as i64, G::INNER_COLS as i64);
    let reps = (G::N - 4) / 2;
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    let c63 = _mm256_set1_epi64x(63);
    let me_v = _mm256_set1_epi64x(me as i64);
    let opp_v = _mm256_set1_epi64x(opp as i64);
    let shift = _mm256_set_epi64x(n - 1, n + 1, n, 1);
    let shift2 = _mm256_add_epi64(shift, shift);
    let inner = _mm256_set_epi64x(inner, inner, -1, inner);
    let board = _mm256_set1_epi64x(G::FULL as i64);
    // every lane of `x` ORed into every lane
    let spread = |x: __m256i| {
        let x = _mm256_or_si256(x, _mm256_permute4x64_epi64::<0x4E>(x));
        _mm256_or_si256(x, _mm256_shuffle_epi32::<0x4E>(x))
    };
    let mut acc = zero;
    let mut blocked = 0u64;
    while moves != 0 {
        let sq = moves.trailing_zeros();
        moves &= moves - 1;
        let rays = &table[sq as usize];
        // SAFETY: `rays` is eight u64, two unaligned 256-bit loads in bounds.
        let (up_rays, down_rays) = unsafe {
            (
                _mm256_loadu_si256(rays.as_ptr().cast::<__m256i>()),
                _mm256_loadu_si256(rays.as_ptr().add(4).cast::<__m256i>()),
            )
        };
        // flips towards higher squares: the lowest stopping square
        let stop = _mm256_andnot_si256(opp_v, up_rays);
        let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
        let closed = _mm256_test_epi64_mask(first, me_v);
        let up = _mm256_maskz_and_epi64(closed, _mm256_sub_epi64(first, one), up_rays);
        // towards lower squares: the highest (none: a shift by 64 gives 0)
        let stop = _mm256_andnot_si256(opp_v, down_rays);
        let last = _mm256_sllv_epi64(one, _mm256_sub_epi64(c63, _mm256_lzcnt_epi64(stop)));
        let closed = _mm256_test_epi64_mask(last, me_v);
        let below = _mm256_sub_epi64(_mm256_add_epi64(last, last), one);
        let down = _mm256_maskz_andnot_epi64(closed, below, down_rays);
        let f = spread(_mm256_or_si256(up, down));
        // the child, the opponent to move
        let mover = _mm256_xor_si256(opp_v, f);
        let other = _mm256_ternarylogic_epi64::<0xFE>(me_v, f, _mm256_set1_epi64x((1u64 << sq) as i64));
        let mask = _mm256_and_si256(other, inner);
        let mut up = _mm256_and_si256(_mm256_sllv_epi64(mover, shift), mask);
        up = _mm256_ternarylogic_epi64::<OR_AND>(up, _mm256_sllv_epi64(up, shift), mask);
        let pre = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, shift));
        for _ in 0..reps {
            up = _mm256_ternarylogic_epi64::<OR_AND>(up, _mm256_sllv_epi64(up, shift2), pre);
        }
        let mut down = _mm256_and_si256(_mm256_srlv_epi64(mover, shift), mask);
        down = _mm256_ternarylogic_epi64::<OR_AND>(down, _mm256_srlv_epi64(down, shift), mask);
        let pre = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, shift));
        for _ in 0..reps {
            down = _mm256_ternarylogic_epi64::<OR_AND>(down, _mm256_srlv_epi64(down, shift2), pre);
        }
        let runs = spread(_mm256_or_si256(_mm256_sllv_epi64(up, shift), _mm256_srlv_epi64(down, shift)));
        let m = _mm256_and_si256(_mm256_ternarylogic_epi64::<AND_NOR>(runs, mover, other), board);
        acc = _mm256_add_epi64(acc, _mm256_popcnt_epi64(m));
        if _mm256_test_epi64_mask(m, m) == 0 {
            blocked |= 1u64 << sq;
        }
    }
    // every lane summed the same mobilities
    (_mm_cvtsi128_si64(_mm256_castsi256_si128(acc)) as u64, blocked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    #[test]
    fn start_moves_8x8() {
        // d4 = (3,3) white, e5 = (4,4) white, e4 = (3,4) and d5 = (4,3) black.
        let black = (1u64 << 28) | (1 << 35);
        let white = (1u64 << 27) | (1 << 36);
        let m = legal_moves::<B8>(black, white);
        assert_eq!(m, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
        assert_eq!(flips::<B8>(black, white, 19), 1 << 27);
        assert_eq!(flips::<B8>(black, white, 0), 0);
    }

    #[test]
    fn no_wrap_across_rows_6x6() {
        // Mover at (0,5), opponent at (1,0), empty (1,1): shifting east from
        // the last column must not reach the next row.
        let me = 1u64 << 5;
        let opp = 1u64 << 6;
        assert_eq!(legal_moves::<B6>(me, opp), 0);
    }

    #[test]
    fn long_run_flips_whole_line() {
        // Row 0 of 8x8: X O O O O O O .  -> move at h1 flips six discs.
        let me = 1u64;
        let opp = 0b0111_1110u64;
        assert_eq!(legal_moves::<B8>(me, opp) & 0xff, 1 << 7);
        assert_eq!(flips::<B8>(me, opp, 7), opp);
    }

    /// Whether the CPU has `what` for a test of its copy of the code; says
    /// so on stderr when it does not (the test then checks less), and fails
    /// instead where `OTHELLO_CENSUS_REQUIRE_CPU` names it (a CI machine that
    /// must test that copy).
    #[cfg(target_arch = "x86_64")]
    fn cpu_has(what: &str, present: bool) -> bool {
        if !present {
            let required = std::env::var("OTHELLO_CENSUS_REQUIRE_CPU").unwrap_or_default();
            assert!(!required.split(',').any(|r| r.trim() == what), "this CPU has no {what}, which is required here");
            eprintln!("skipped: this CPU has no {what}; its copy of the code is not compared here");
        }
        present
    }

    /// The AVX2 copies equal the portable code (itself checked against the
    /// oracle's rules) on dense random boards, every empty square.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_copies_equal_the_portable_code() {
        if !cpu_has("AVX2", has_bit_instructions()) {
            return;
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let full = seed | seed.rotate_left(23) | if i % 2 == 0 { seed.rotate_left(41) } else { 0 };
            let me = full & seed.rotate_left(7);
            let opp = full & !me;
            // SAFETY: AVX2 checked above.
            unsafe {
                assert_eq!(legal_moves_avx2::<B8>(me, opp), legal_moves::<B8>(me, opp));
                assert_eq!(
                    legal_moves_avx2::<B6>(me & B6::FULL, opp & B6::FULL),
                    legal_moves::<B6>(me & B6::FULL, opp & B6::FULL)
                );
                for sq in 0..64 {
                    if !full >> sq & 1 == 1 {
                        assert_eq!(flips_avx2::<B8>(me, opp, sq), flips::<B8>(me, opp, sq), "square {sq}");
                    }
                }
                let moves = legal_moves::<B8>(me, opp);
                assert_eq!(mobility_sum_avx2::<B8>(me, opp, moves), mobility_sum::<B8>(me, opp, moves));
                for (m6, o6) in [(me & B6::FULL, opp & B6::FULL), (me >> 20 & B6::FULL, opp >> 20 & B6::FULL)] {
                    for sq in 0..36 {
                        if (m6 | o6) >> sq & 1 == 0 {
                            assert_eq!(flips_avx2::<B6>(m6, o6, sq), flips::<B6>(m6, o6, sq), "6x6 square {sq}");
                        }
                    }
                }
                let (m4, o4) = (me & B4::FULL, opp & B4::FULL);
                assert_eq!(legal_moves_avx2::<B4>(m4, o4), legal_moves::<B4>(m4, o4));
                for sq in 0..16 {
                    if (m4 | o4) >> sq & 1 == 0 {
                        assert_eq!(flips_avx2::<B4>(m4, o4, sq), flips::<B4>(m4, o4, sq), "4x4 square {sq}");
                    }
                }
            }
        }
    }

    /// The AVX-512 mobility sum equals the portable one, which is checked
    /// against single moves here: on random boards, on boards where a
    /// child is left without moves, and on runs to the board's edges.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_mobility_sum_equals_the_portable_code() {
        // the portable sum is checked on any CPU; the AVX-512 copy where it runs
        let avx512 = cpu_has("AVX-512", has_avx512());
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut blocked_seen = 0;
        for i in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let full = match i % 3 {
                0 => seed | seed.rotate_left(23) | seed.rotate_left(41),
                1 => seed | seed.rotate_left(23),
                _ => !(seed & seed.rotate_left(11) & seed.rotate_left(37)),
            };
            let me = full & seed.rotate_left(7);
            let opp = full & !me;
            let moves = legal_moves::<B8>(me, opp);
            let (sum, blocked) = mobility_sum::<B8>(me, opp, moves);
            let mut check = moves;
            let mut expect = 0;
            while check != 0 {
                let sq = check.trailing_zeros();
                check &= check - 1;
                let f = flips::<B8>(me, opp, sq);
                assert_ne!(f, 0);
                let (cme, copp) = play(me, opp, sq, f);
                expect += legal_moves::<B8>(cme, copp).count_ones() as u64;
            }
            assert_eq!(sum, expect);
            blocked_seen += blocked.count_ones();
            if avx512 {
                // SAFETY: the features are checked above.
                let fast = unsafe { mobility_sum_avx512::<B8>(me, opp, moves) };
                assert_eq!(fast, (sum, blocked), "{me:#x} {opp:#x}");
                let (me6, opp6) = (me & B6::FULL, opp & B6::FULL);
                let moves6 = legal_moves::<B6>(me6, opp6);
                // SAFETY: as above.
                let fast6 = unsafe { mobility_sum_avx512::<B6>(me6, opp6, moves6) };
                assert_eq!(fast6, mobility_sum::<B6>(me6, opp6, moves6));
            }
        }
        assert!(blocked_seen > 0, "no child without moves was tried");
    }
}
