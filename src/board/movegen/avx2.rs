//! The AVX2 copies of the move generator, compiled for the AVX2 level of
//! [`crate::board::cpu`]: unsafe to call except from a copy of that level
//! or under its [`crate::board::cpu::Avx2`] token.

use super::mobility_loop;
use crate::board::cpu::on_cpu;
use crate::board::geometry::Geometry;

on_cpu!(
    avx2,
    /// [`super::legal_moves`] with AVX2: the four directions towards higher squares
    /// in the four lanes of one vector, then the four towards lower ones, each
    /// grown by the same doubling as `run_up`.
    ///
    /// # Safety
    ///
    /// Callable only where AVX2 is known to be there: safely from code
    /// compiled for AVX2, and in an `unsafe` block after a run-time check.
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
);

on_cpu!(
    avx2,
    /// [`super::flips`] with AVX2: the four rays towards higher
    /// squares in the lanes of one vector, the four towards lower ones in
    /// another (their stopping square found by smearing the bits downwards).
    ///
    /// # Safety
    ///
    /// As [`legal_moves_avx2`]: the CPU must have AVX2.
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
);

on_cpu!(
    avx2,
    /// [`super::mobility_sum`] with the AVX2 copies of flips and moves.
    ///
    /// # Safety
    ///
    /// As [`legal_moves_avx2`]: the CPU must have AVX2.
    #[inline]
    pub fn mobility_sum_avx2<G: Geometry>(me: u64, opp: u64, moves: u64) -> (u64, u64) {
        mobility_loop!(G, me, opp, moves, flips_avx2, legal_moves_avx2)
    }
);
