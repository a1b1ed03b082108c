//! A fixed random subsample of an estimate's undecided samples
//! (`estimate --resolve --subsample D`).
//!
//! Why: what is left undecided on 8x8 takes minutes of solving a sample,
//! and the interval counts every undecided sample once as unreachable
//! and once as reachable. Deciding every one of a random subsample, and
//! scaling its reachable share up to the undecided samples it stands
//! for, is the classic double sampling for non-response (Hansen and
//! Hurwitz, 1946): an interval of known coverage for a fraction of the
//! work. For that, which samples are in the subsample must not depend on
//! anything a search can find out: it is a hash of the sample's seed,
//! layer and index, chosen before any of them is searched again.
//!
//! The subsamples are nested: `D` is a power of two and a sample is in
//! the subsample of `D` when the hash is a multiple of `D`, so the
//! subsample of 4 lies inside that of 2, which lies inside that of 1
//! (every sample). A resolve can decide one in 4 first and widen to one
//! in 2 later, and each stage is a subsample of its own.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The hash's seed: changing it draws another subsample, which would
/// break the nesting with what was decided before, so it never changes.
const SUBSAMPLE_SALT: u64 = 0x5ab5_a3b1_e0f0_0001;

/// The largest `D` of `--subsample D`.
pub const MAX_ONE_IN: u64 = 1 << 20;

/// Whether sample `index` of layer `discs` of seed `seed` is in the
/// subsample of one in `one_in` (a power of two; 1: every sample).
pub fn in_subsample(seed: u64, discs: u32, index: u64, one_in: u64) -> bool {
    debug_assert!(one_in.is_power_of_two());
    let mut bytes = [0u8; 20];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&discs.to_le_bytes());
    bytes[12..].copy_from_slice(&index.to_le_bytes());
    xxh3_64_with_seed(&bytes, SUBSAMPLE_SALT) & (one_in - 1) == 0
}

/// Whether `d` names a subsample: a power of two from 1 to
/// [`MAX_ONE_IN`].
pub fn is_one_in(d: u64) -> bool {
    d.is_power_of_two() && d <= MAX_ONE_IN
}

/// `D` of `--subsample D`: a power of two from 1 to [`MAX_ONE_IN`].
pub fn parse_one_in(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(d) if is_one_in(d) => Ok(d),
        _ => Err(format!(
            "{s:?} is not a power of two from 1 to {MAX_ONE_IN} (the subsamples are nested: one in 4 lies inside one \
             in 2)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_in_one_is_every_sample() {
        assert!((0..1000).all(|i| in_subsample(7, 48, i, 1)));
    }

    #[test]
    fn the_subsamples_are_nested() {
        for seed in [1, 2, 3] {
            for i in 0..20_000 {
                for d in [2u64, 4, 8, 16] {
                    if in_subsample(seed, 50, i, d) {
                        assert!(in_subsample(seed, 50, i, d / 2), "seed {seed} sample {i}: in 1/{d}, not 1/{}", d / 2);
                    }
                }
            }
        }
    }

    #[test]
    fn a_subsample_holds_about_its_share_and_depends_on_seed_layer_and_index() {
        // 40,000 draws at 1/4: 10,000 expected, sd 87; 5 sd either way
        let n = 40_000u64;
        let hits = (0..n).filter(|&i| in_subsample(11, 52, i, 4)).count() as f64;
        assert!((hits - 10_000.0).abs() < 5.0 * 87.0, "{hits} of {n} in one in 4");
        // another seed, another layer: another subsample (about a quarter
        // of the first's members are in it, not all of them)
        let both_seeds = (0..n).filter(|&i| in_subsample(11, 52, i, 4) && in_subsample(12, 52, i, 4)).count() as f64;
        let both_layers = (0..n).filter(|&i| in_subsample(11, 52, i, 4) && in_subsample(11, 53, i, 4)).count() as f64;
        for both in [both_seeds, both_layers] {
            assert!((both - 2_500.0).abs() < 5.0 * 47.0, "{both} in both of two independent subsamples");
        }
    }

    #[test]
    fn only_powers_of_two_are_taken() {
        assert_eq!(parse_one_in("4"), Ok(4));
        assert_eq!(parse_one_in("1"), Ok(1));
        for bad in ["0", "3", "6", "-2", "x", "2097152"] {
            assert!(parse_one_in(bad).is_err(), "{bad}");
        }
    }
}
