//! A sorted set of packed keys that answers membership in a few cache
//! misses: the keys in one sorted array, and an index of where each range
//! of their top bits begins.
//!
//! A census layer held for the estimates (`reachable::Frontier`) is large
//! (6x6 at 18 discs: 1.3 G keys, 10.5 GB) and asked once per position of
//! its disc count a search meets. A binary search over the whole array
//! misses the cache at nearly every one of its ~31 steps (about 13% of a
//! 6x6 estimate's time went there); the index sends a key to a bucket of
//! about [`KEYS_PER_BUCKET`] keys, read in one or two misses, at an eighth
//! of a byte a key (an index entry of 8 bytes per 64 keys).

use crate::key::PackedKey;

/// Keys per bucket of the index, on average.
pub const KEYS_PER_BUCKET: usize = 64;

/// Sorted, distinct keys with a bucket index on their top bits.
pub struct SortedKeys<K: PackedKey> {
    keys: Vec<K>,
    /// The least key (buckets count from it).
    base: u128,
    /// A key's bucket is `(key - base) >> shift`.
    shift: u32,
    /// `starts[b]`: the first key of bucket `b` or later; one more entry
    /// than buckets, the last `keys.len()`.
    starts: Vec<u64>,
}

impl<K: PackedKey> SortedKeys<K> {
    /// Sorts and deduplicates `keys` (in place) and builds the index.
    pub fn new(mut keys: Vec<K>) -> SortedKeys<K> {
        use rayon::slice::ParallelSliceMut;
        keys.par_sort_unstable();
        keys.dedup();
        keys.shrink_to_fit();
        let (base, top) = match (keys.first(), keys.last()) {
            (Some(a), Some(b)) => (a.to_u128(), b.to_u128()),
            _ => return SortedKeys { keys, base: 0, shift: 0, starts: vec![0] },
        };
        let buckets = (keys.len() / KEYS_PER_BUCKET).max(1).next_power_of_two() as u128;
        // the least shift that puts every key in one of `buckets`
        let span = top - base;
        let mut shift = 0;
        while (span >> shift) >= buckets {
            shift += 1;
        }
        let used = ((span >> shift) + 1) as usize;
        let mut starts = Vec::with_capacity(used + 1);
        for (i, k) in keys.iter().enumerate() {
            let b = ((k.to_u128() - base) >> shift) as usize;
            while starts.len() <= b {
                starts.push(i as u64);
            }
        }
        starts.push(keys.len() as u64);
        debug_assert_eq!(starts.len(), used + 1);
        SortedKeys { keys, base, shift, starts }
    }

    /// Whether `key` is one of the keys.
    #[inline]
    pub fn contains(&self, key: &K) -> bool {
        let k = key.to_u128();
        if k < self.base {
            return false;
        }
        let b = (k - self.base) >> self.shift;
        if b + 1 >= self.starts.len() as u128 {
            return false;
        }
        let (from, to) = (self.starts[b as usize] as usize, self.starts[b as usize + 1] as usize);
        self.keys[from..to].binary_search(key).is_ok()
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Bytes of memory held, keys and index.
    pub fn bytes(&self) -> usize {
        self.keys.capacity() * std::mem::size_of::<K>() + self.starts.capacity() * 8
    }

    /// The bytes a key takes with its share of the index, at most (for
    /// memory checks made before the keys are read): the index has fewer
    /// than two entries of 8 bytes per [`KEYS_PER_BUCKET`] keys.
    pub fn bytes_per_key() -> f64 {
        std::mem::size_of::<K>() as f64 + 16.0 / KEYS_PER_BUCKET as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64, for test keys.
    fn mix(x: u64) -> u64 {
        let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Membership equals a binary search of the plain sorted array, for
    /// keys spread evenly, clustered (most in one bucket), few, none, and
    /// at the ends of the key type.
    fn agrees<K: PackedKey>(keys: Vec<K>, probes: impl Iterator<Item = K>) {
        let mut plain = keys.clone();
        plain.sort_unstable();
        plain.dedup();
        let s = SortedKeys::new(keys);
        assert_eq!(s.len(), plain.len());
        assert!(s.starts.len() <= (plain.len() / KEYS_PER_BUCKET).max(1).next_power_of_two() + 1);
        for k in plain.iter().copied().chain(probes) {
            assert_eq!(s.contains(&k), plain.binary_search(&k).is_ok(), "{k:?}");
        }
    }

    #[test]
    fn membership_equals_the_sorted_array() {
        let spread: Vec<u64> = (0..100_000).map(|i| mix(i) >> 4).collect();
        agrees(spread, (0..100_000).map(|i| mix((i + 1) << 40) >> 4));
        // clustered: nearly all keys within a few thousand of one another,
        // a few far away
        let clustered: Vec<u64> =
            (0..50_000).map(|i| if i % 1000 == 0 { mix(i) } else { 1 << 50 | (mix(i) & 0xffff) }).collect();
        agrees(clustered, (0..100_000).map(|i| 1 << 50 | (mix(i + 7) & 0x1ffff)));
        agrees(Vec::<u64>::new(), [0, 1, u64::MAX].into_iter());
        agrees(vec![5u64], [0, 4, 5, 6, u64::MAX].into_iter());
        agrees(vec![0u64, u64::MAX, 3, 3], [0, 1, 2, 3, u64::MAX - 1, u64::MAX].into_iter());
        let wide: Vec<u128> = (0..20_000).map(|i| (mix(i) as u128) << 60 | mix(i + 9) as u128).collect();
        agrees(wide, (0..20_000).map(|i| (mix(i + 3) as u128) << 60).chain([0, u128::MAX]));
    }
}
