//! Move generation on bitboards, generic over the board size, as a kernel
//! layer: the portable generator, its AVX2 and AVX-512 copies (one file
//! each, compiled for the levels of [`crate::board::cpu`]), and what every
//! copy shares: the rays of each square, making a move, the score of a
//! finished game.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod portable;

#[cfg(target_arch = "x86_64")]
pub use avx2::{flips_avx2, legal_moves_avx2, mobility_sum_avx2};
#[cfg(target_arch = "x86_64")]
pub use avx512::mobility_sum_avx512;
pub use portable::{flips, legal_moves, mobility_sum};

/// The mover and opponent after the side to move (`me`) plays `square`,
/// flipping `flipped` (the opponent's discs that [`flips`] gives): the
/// opponent moves next. Written once for every engine.
#[inline(always)]
pub const fn play(me: u64, opp: u64, square: u32, flipped: u64) -> (u64, u64) {
    (opp ^ flipped, me | flipped | 1u64 << square)
}

/// The score of a finished game for the side owning `me`: the disc
/// difference with the empty squares given to the winner (the solver's
/// convention; a draw scores 0 whatever the empties).
#[inline]
pub const fn final_score(me: u64, opp: u64, squares: u32) -> i32 {
    let (a, b) = (me.count_ones() as i32, opp.count_ones() as i32);
    let empties = squares as i32 - a - b;
    if a > b {
        a - b + empties
    } else if a < b {
        a - b - empties
    } else {
        0
    }
}

/// The loop of [`mobility_sum`] over the flips and moves functions named.
macro_rules! mobility_loop {
    ($g:ident, $me:ident, $opp:ident, $moves:ident, $flips:ident, $legal:ident) => {{
        let (mut sum, mut blocked, mut moves) = (0, 0, $moves);
        while moves != 0 {
            let sq = moves.trailing_zeros();
            moves &= moves - 1;
            let f = $flips::<$g>($me, $opp, sq);
            let (cme, copp) = $crate::board::movegen::play($me, $opp, sq, f);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Geometry};

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

    use crate::board::cpu::CpuLevel;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    /// Random boards of three densities (about 3/4, 1/2 and 7/8 of the
    /// squares occupied, mixed colours), shrinking towards fewer discs.
    fn boards() -> impl Strategy<Value = (u64, u64)> {
        (any::<u64>(), any::<u64>(), any::<u64>(), 0..3u8).prop_map(|(a, b, c, density)| {
            let full = match density {
                0 => a | b,
                1 => a,
                _ => !(a & b & c),
            };
            let me = full & c;
            (me, full & !me)
        })
    }

    fn runner(cases: u32) -> TestRunner {
        TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
    }

    /// The AVX2 copies equal the portable code (itself checked against the
    /// oracle's rules) on random boards of every size, every empty square.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_copies_equal_the_portable_code() {
        let Some(_avx2) = CpuLevel::for_tests("the move generator test").into_iter().find_map(|l| l.avx2()) else {
            return;
        };
        runner(20_000)
            .run(&boards(), |(me, opp)| {
                // SAFETY: the CPU has the AVX2 level (its token is held).
                unsafe {
                    prop_assert_eq!(legal_moves_avx2::<B8>(me, opp), legal_moves::<B8>(me, opp));
                    for sq in (0..64).filter(|sq| (me | opp) >> sq & 1 == 0) {
                        prop_assert_eq!(flips_avx2::<B8>(me, opp, sq), flips::<B8>(me, opp, sq), "square {}", sq);
                    }
                    let moves = legal_moves::<B8>(me, opp);
                    prop_assert_eq!(mobility_sum_avx2::<B8>(me, opp, moves), mobility_sum::<B8>(me, opp, moves));
                    for (m6, o6) in [(me & B6::FULL, opp & B6::FULL), (me >> 20 & B6::FULL, opp >> 20 & B6::FULL)] {
                        prop_assert_eq!(legal_moves_avx2::<B6>(m6, o6), legal_moves::<B6>(m6, o6));
                        for sq in (0..36).filter(|sq| (m6 | o6) >> sq & 1 == 0) {
                            prop_assert_eq!(flips_avx2::<B6>(m6, o6, sq), flips::<B6>(m6, o6, sq), "6x6 square {}", sq);
                        }
                    }
                    let (m4, o4) = (me & B4::FULL, opp & B4::FULL);
                    prop_assert_eq!(legal_moves_avx2::<B4>(m4, o4), legal_moves::<B4>(m4, o4));
                    for sq in (0..16).filter(|sq| (m4 | o4) >> sq & 1 == 0) {
                        prop_assert_eq!(flips_avx2::<B4>(m4, o4, sq), flips::<B4>(m4, o4, sq), "4x4 square {}", sq);
                    }
                }
                Ok(())
            })
            .unwrap();
    }

    /// The mobility sum equals the sum over single moves (portable, on any
    /// CPU), and its AVX-512 copy equals it where the CPU runs it: on
    /// random boards, including boards where a child is left without
    /// moves and runs to the board's edges.
    #[test]
    fn mobility_sums_equal_single_moves() {
        #[cfg(target_arch = "x86_64")]
        let avx512 = CpuLevel::for_tests("the mobility sum test").into_iter().find_map(|l| match l {
            CpuLevel::Avx512(t) => Some(t),
            _ => None,
        });
        let blocked_seen = std::cell::Cell::new(0u32);
        runner(50_000)
            .run(&boards(), |(me, opp)| {
                let moves = legal_moves::<B8>(me, opp);
                let (sum, blocked) = mobility_sum::<B8>(me, opp, moves);
                let mut expect = (0, 0);
                for sq in (0..64).filter(|sq| moves >> sq & 1 == 1) {
                    let f = flips::<B8>(me, opp, sq);
                    prop_assert_ne!(f, 0);
                    let (cme, copp) = play(me, opp, sq, f);
                    let m = legal_moves::<B8>(cme, copp);
                    expect.0 += u64::from(m.count_ones());
                    expect.1 |= u64::from(m == 0) << sq;
                }
                prop_assert_eq!((sum, blocked), expect);
                blocked_seen.set(blocked_seen.get() + blocked.count_ones());
                #[cfg(target_arch = "x86_64")]
                if avx512.is_some() {
                    // SAFETY: the CPU has the AVX-512 level (its token is held).
                    let fast = unsafe { mobility_sum_avx512::<B8>(me, opp, moves) };
                    prop_assert_eq!(fast, (sum, blocked), "{:#x} {:#x}", me, opp);
                    let (me6, opp6) = (me & B6::FULL, opp & B6::FULL);
                    let moves6 = legal_moves::<B6>(me6, opp6);
                    // SAFETY: as above.
                    let fast6 = unsafe { mobility_sum_avx512::<B6>(me6, opp6, moves6) };
                    prop_assert_eq!(fast6, mobility_sum::<B6>(me6, opp6, moves6));
                }
                Ok(())
            })
            .unwrap();
        assert!(blocked_seen.get() > 0, "no child without moves was tried");
    }

    #[test]
    fn final_scores_give_the_empties_to_the_winner() {
        assert_eq!(final_score(0b111, 0b1, 16), 2 + 12);
        assert_eq!(final_score(0b1, 0b111, 16), -2 - 12);
        assert_eq!(final_score(0b11, 0b1100, 16), 0);
        assert_eq!(final_score(u64::MAX, 0, 64), 64);
    }
}
