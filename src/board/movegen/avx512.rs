//! The AVX-512 copy of the mobility sum, compiled for the AVX-512 level of
//! [`crate::board::cpu`]: unsafe to call except from a copy of that level
//! or under its [`crate::board::cpu::Avx512`] token.

use crate::board::cpu::on_cpu;
use crate::board::geometry::Geometry;

on_cpu!(
    avx512,
    /// [`super::mobility_sum`] with AVX-512 instructions on 256-bit
    /// vectors, without leaving the vector registers: the flips as in
    /// [`super::flips_avx2`] but with the last stopping square found by a
    /// leading-zero count, the child's moves as in [`super::legal_moves_avx2`]
    /// with three-input logic, the mobilities summed by a vector popcount.
    ///
    /// # Safety
    ///
    /// The CPU must have the instructions of [`crate::board::cpu::Avx512`] level.
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
);
