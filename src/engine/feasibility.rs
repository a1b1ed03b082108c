//! A run's feasibility (whether it can finish; whether a position can be
//! reached is `search::reachable`): estimates made before a run starts,
//! so that one that could never end (or never fit) is refused up front
//! with the figure, instead of starting silently. The estimates are optimistic
//! (a fast machine, the least disk per class measured): a run refused here
//! is beyond reach by a wide margin, and `--force` still starts it.

use crate::board::BoardSize;
use crate::engine::memory::estimate_layer_classes;
use crate::published::A124004;

/// Runs estimated to take longer than this are refused unless forced.
pub const MAX_SECONDS: f64 = 30.0 * 86_400.0;

/// Optimistic leaves per second and per thread of the hashed perft (8x8
/// ply 15 counted 1.89e12 leaves in 107 s on 2 AVX-512 threads: 8.8e9).
const HASHED_LEAVES_PER_THREAD_SECOND: f64 = 1.0e10;
/// Optimistic leaves per second and per thread of the brute walk (8x8 ply
/// 13: 1.84e10 leaves in 15.6 s on 2 threads, 5.9e8).
const BRUTE_LEAVES_PER_THREAD_SECOND: f64 = 1.0e9;

/// An optimistic time for an 8x8 perft to `depth`: the leaves of the last
/// ply (OEIS A124004, extrapolated by its last ratio beyond a(21)) at a
/// fast rate. None for the smaller boards, whose trees stay within reach.
pub fn perft_seconds(size: BoardSize, depth: u32, hashed: bool, threads: usize) -> Option<f64> {
    if size != BoardSize::Eight {
        return None;
    }
    let last = A124004.len() - 1;
    let ratio = A124004[last] as f64 / A124004[last - 1] as f64;
    let leaves = match A124004.get(depth as usize) {
        Some(&v) => v as f64,
        None => A124004[last] as f64 * ratio.powi(depth as i32 - last as i32),
    };
    let rate = if hashed { HASHED_LEAVES_PER_THREAD_SECOND } else { BRUTE_LEAVES_PER_THREAD_SECOND };
    Some(leaves / (rate * threads.max(1) as f64))
}

/// The deepest 8x8 perft within [`MAX_SECONDS`] at that rate.
pub fn perft_depth_within_reach(size: BoardSize, hashed: bool, threads: usize) -> u32 {
    (1..=128)
        .take_while(|&d| perft_seconds(size, d, hashed, threads).is_none_or(|s| s <= MAX_SECONDS))
        .last()
        .unwrap_or(1)
}

/// An exact solve from more empty squares than this is beyond reach (the
/// 6x6 start, 32 empties, takes a minute or two; FFO endgames of 20-26
/// empties seconds to a minute; each empty square multiplies the work).
pub const SOLVE_MAX_EMPTIES: u32 = 36;

/// Least bytes of disk per stored class measured (6x6 by discs: 3.37).
const DISK_BYTES_PER_CLASS: f64 = 3.3;

/// A lower bound on the peak disk of a layered run to `discs` discs (by
/// ply: to `discs` = plies + 4, the same magnitude): the largest layer
/// estimated, stored beside its compacted sorted runs (about 2.65 times
/// the layer while it is built).
pub fn layered_peak_disk(size: BoardSize, discs: u32) -> f64 {
    let largest = (5..=discs.min(size.n() * size.n())).map(|k| estimate_layer_classes(size, k)).fold(0.0, f64::max);
    largest * DISK_BYTES_PER_CLASS * 2.65
}

/// The most discs of a layered run whose peak disk fits `room` bytes.
pub fn layered_discs_within(size: BoardSize, room: f64) -> u32 {
    (5..=size.n() * size.n()).take_while(|&k| layered_peak_disk(size, k) <= room).last().unwrap_or(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_refuse_only_what_is_far_beyond_reach() {
        // 8x8 perft: 15 is minutes, 30 is beyond any machine
        assert!(perft_seconds(BoardSize::Eight, 15, true, 2).unwrap() < 600.0);
        assert!(perft_seconds(BoardSize::Eight, 30, true, 16).unwrap() > 1e6 * MAX_SECONDS);
        assert!(perft_seconds(BoardSize::Six, 60, true, 1).is_none());
        let d = perft_depth_within_reach(BoardSize::Eight, true, 2);
        assert!((18..=20).contains(&d), "{d}");
        // layered: 6x6 to 19 discs fits 80 GB (it peaked at 40.8 GiB), to 20
        // is not refused on such a disk, the whole of 6x6 and 8x8 are
        assert!(layered_peak_disk(BoardSize::Six, 19) < 80e9);
        assert!(layered_peak_disk(BoardSize::Six, 20) < 4.0 * 80e9);
        assert!(layered_peak_disk(BoardSize::Six, 36) > 1e15);
        assert!(layered_peak_disk(BoardSize::Eight, 64) > 1e20);
        assert!(layered_peak_disk(BoardSize::Four, 16) < 1e6);
        assert_eq!(layered_discs_within(BoardSize::Six, 80e9), 19);
    }
}
