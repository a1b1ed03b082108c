//! Memory budgets: bytes per stored class and the memory of the machine.

use crate::board::BoardSize;
use crate::key::{Keyed, PackedKey};

/// Worst-case bytes of DFS cache per class: a hash-table slot (key plus
/// one control byte) at the lowest load factor the table reaches right
/// after it doubles (7/16).
pub fn cache_bytes_per_class_worst<G: Keyed>() -> f64 {
    (G::Key::BYTES + 1) as f64 * 16.0 / 7.0
}

fn meminfo(field: &str) -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `MemAvailable` of `/proc/meminfo` in bytes, if readable.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// `MemTotal` of `/proc/meminfo` in bytes, if readable.
pub fn total_memory() -> Option<u64> {
    meminfo("MemTotal:")
}

/// The smallest memory limit a run accepts.
pub const MIN_MEMORY: u64 = 1 << 20;

/// The default memory limit of the DFS engine, whose cache is the census:
/// 60% of the memory available now (4 GiB when that cannot be read),
/// leaving room for the page cache and the rest of the machine.
pub fn default_dfs_memory() -> u64 {
    available_memory().map_or(4 << 30, |a| a / 10 * 6)
}

/// The default memory limit of the layered engine, whose buffers only
/// need to be large enough for long sorted runs (8x8 ply 12 runs as fast
/// in 4 GiB as in 8): 4 GiB or a quarter of the available memory,
/// whichever is less; the rest serves the page cache of its files.
pub fn default_layers_memory() -> u64 {
    available_memory().map_or(1 << 30, |a| (a / 4).min(4 << 30)).max(MIN_MEMORY)
}

/// The default size of the hashed perft's table: a quarter of the memory
/// available, at most 8 GiB (deep 8x8 perfts keep gaining from a larger
/// table; 1 GiB when the memory cannot be read).
pub fn default_perft_memory() -> u64 {
    available_memory().map_or(1 << 30, |a| (a / 4).min(8 << 30))
}

/// The default size of the solver's transposition table: a quarter of the
/// memory available, at most 1 GiB: enough for the 6x6 start (4 GiB
/// searched the same nodes, 6% slower) and the FFO endgames.
pub fn default_solve_memory() -> u64 {
    available_memory().map_or(1 << 30, |a| (a / 4).min(1 << 30))
}

/// Classes per disc layer measured by this tool (DFS census, 4 symmetries),
/// used to estimate the size of a run before it starts.
/// Layers 4..=16 of 4x4 (the whole game).
const MEASURED_4X4: &[u64] = &[1, 1, 3, 11, 32, 100, 281, 701, 1690, 3130, 4528, 4065, 1313];
/// Layers 4..=19 of 6x6 (`count --size 6 --max-discs 16`; 17-19 by the
/// layered engine, `results/6x6-by-discs.csv`).
const MEASURED_6X6: &[u64] = &[
    1,
    1,
    3,
    14,
    60,
    314,
    1632,
    9078,
    52091,
    294_729,
    1_725_114,
    9_483_999,
    52_854_885,
    265_681_966,
    1_315_669_518,
    5_673_769_517,
];
/// Layers 4..=14 of 8x8 (`count --size 8 --max-discs 14`).
const MEASURED_8X8: &[u64] = &[1, 1, 3, 14, 60, 322, 1773, 10658, 67367, 435_940, 2_980_849];

/// An upper bound on the classes of the layer with `discs` discs: which
/// outer squares are filled, their colours, the centre colours and the side
/// to move, divided by the four symmetries (orbits have at most 4 members,
/// so this over-counts classes by at most a factor of 2).
fn layer_bound(n: u32, discs: u32) -> f64 {
    let outer = (n * n - 4) as f64;
    let k = (discs - 4) as f64;
    let mut choose = 1.0f64;
    for i in 0..(discs - 4) {
        choose *= (outer - i as f64) / (k - i as f64);
    }
    choose * 2f64.powi(discs as i32 + 1) / 2.0
}

/// Estimated classes of the layer with `discs` discs ([`estimate_classes`]).
pub fn estimate_layer_classes(size: BoardSize, discs: u32) -> f64 {
    estimate_classes(size, discs) - estimate_classes(size, discs.saturating_sub(1).max(3))
}

/// Estimated number of classes in layers 4..=max_discs: measured layers
/// where known, beyond them the last measured growth factor per layer
/// (an over-estimate: the growth slows as the board fills), capped by a
/// counting bound per layer.
pub fn estimate_classes(size: BoardSize, max_discs: u32) -> f64 {
    let measured = match size {
        BoardSize::Four => MEASURED_4X4,
        BoardSize::Six => MEASURED_6X6,
        BoardSize::Eight => MEASURED_8X8,
    };
    let mut total = 0.0;
    let mut last = 1.0f64;
    let mut growth = 4.0f64;
    for i in 0..max_discs.saturating_sub(3) as usize {
        let layer = match measured.get(i) {
            Some(&v) => {
                if i > 0 && last > 0.0 {
                    growth = v as f64 / last;
                }
                v as f64
            }
            None => (last * growth).min(layer_bound(size.n(), i as u32 + 4)),
        };
        total += layer;
        last = layer;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates() {
        assert_eq!(estimate_classes(BoardSize::Four, 16), 15856.0);
        assert_eq!(estimate_classes(BoardSize::Six, 5), 2.0);
        // beyond the measured layers the estimate keeps growing
        assert!(estimate_classes(BoardSize::Six, 17) > 5.0 * estimate_classes(BoardSize::Six, 16));
        // the whole of 6x6 and 8x8 is far beyond any machine
        assert!(estimate_classes(BoardSize::Six, 36) > 1e12);
        assert!(estimate_classes(BoardSize::Six, 36) < 1e17);
        assert_eq!(layer_bound(4, 16), 2f64.powi(16));
        assert!(estimate_classes(BoardSize::Eight, 64) > 1e20);
    }
}
