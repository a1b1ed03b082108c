//! Memory budgets: bytes per stored class and the memory of the machine.

use crate::board::{BoardSize, Geometry};
use crate::key::PackedKey;

/// Worst-case bytes of DFS cache per class: a hash-table slot (key plus
/// one control byte) at the lowest load factor the table reaches right
/// after it doubles (7/16).
pub fn cache_bytes_per_class_worst<G: Geometry>() -> f64 {
    (G::Key::BYTES + 1) as f64 * 16.0 / 7.0
}

/// `MemAvailable` of `/proc/meminfo` in bytes, if readable.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The default memory limit: 70% of the memory available now (8 GiB when
/// that cannot be read).
pub fn default_memory_limit() -> u64 {
    available_memory().map_or(8 << 30, |a| a / 10 * 7)
}

/// Classes per disc layer measured by this tool (DFS census, 4 symmetries),
/// used to estimate the size of a run before it starts.
const MEASURED_6X6: &[u64] = &[];
const MEASURED_8X8: &[u64] = &[];
const MEASURED_4X4: &[u64] = &[];

/// Estimated number of classes in layers 4..=max_discs: measured layers
/// where known, beyond them the last measured growth factor per layer
/// (an over-estimate: the growth slows as the board fills).
pub fn estimate_classes(size: BoardSize, max_discs: u32) -> f64 {
    let measured = match size {
        BoardSize::Four => MEASURED_4X4,
        BoardSize::Six => MEASURED_6X6,
        BoardSize::Eight => MEASURED_8X8,
    };
    let mut total = 0.0;
    let mut last = 1.0f64;
    let mut growth = 4.0f64;
    for (i, discs) in (4..=max_discs).enumerate() {
        let _ = discs;
        let layer = match measured.get(i) {
            Some(&v) => {
                if i > 0 && last > 0.0 {
                    growth = v as f64 / last;
                }
                v as f64
            }
            None => last * growth,
        };
        total += layer;
        last = layer;
    }
    total
}
