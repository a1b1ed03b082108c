//! xxh3 as a `std::hash::BuildHasher` for the key caches.

use std::hash::{BuildHasher, Hasher};

use xxhash_rust::xxh3::xxh3_64;

/// Builds [`Xxh3Hasher`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct Xxh3Build;

impl BuildHasher for Xxh3Build {
    type Hasher = Xxh3Hasher;
    #[inline(always)]
    fn build_hasher(&self) -> Xxh3Hasher {
        Xxh3Hasher(0)
    }
}

/// Hashes the bytes written to it with xxh3-64. Keys are single integers,
/// so each `write_*` call hashes one value; successive writes are chained.
#[derive(Clone, Copy, Debug, Default)]
pub struct Xxh3Hasher(u64);

impl Hasher for Xxh3Hasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxh3_64(bytes) ^ self.0.rotate_left(31);
    }
    #[inline(always)]
    fn write_u32(&mut self, v: u32) {
        self.write(&v.to_le_bytes());
    }
    #[inline(always)]
    fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }
    #[inline(always)]
    fn write_u128(&mut self, v: u128) {
        self.write(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_small_keys() {
        let b = Xxh3Build;
        let h: Vec<u64> = (0u64..1000).map(|k| b.hash_one(k)).collect();
        let mut top: Vec<u64> = h.iter().map(|x| x >> 57).collect();
        top.sort_unstable();
        top.dedup();
        assert!(top.len() > 100, "top 7 bits should vary: {}", top.len());
        assert_eq!(b.hash_one(7u64), xxh3_64(&7u64.to_le_bytes()));
    }
}
