//! Stored keys: the board-major form of a canonical dense key that parts
//! and runs are sorted by, and the partition a class belongs to.

/// The stored form of canonical dense key `k` on a board whose side weight
/// (the value of the side-to-move digit) is `w`: `2 * board + side`.
#[inline(always)]
pub fn to_stored(k: u128, w: u128) -> u128 {
    if k >= w { ((k - w) << 1) | 1 } else { k << 1 }
}

/// The canonical dense key of stored key `s` (inverse of [`to_stored`]).
#[inline(always)]
pub fn from_stored(s: u128, w: u128) -> u128 {
    (s >> 1) + if s & 1 == 1 { w } else { 0 }
}

/// The partition of a class: a hash of its canonical occupancy (the least
/// image of its occupied squares, [`crate::key::occupancy`]), so that both
/// positions of a board, and every class of one shape, land in the same
/// partition: a partition's shapes are counted within it.
#[inline(always)]
pub fn partition_of(canonical_occupancy: u64, partitions: u32) -> u32 {
    let h = xxhash_rust::xxh3::xxh3_64(&canonical_occupancy.to_le_bytes());
    // the same remainder, without a division where the count is a power of two
    (if partitions.is_power_of_two() { h & (partitions as u64 - 1) } else { h % partitions as u64 }) as u32
}
