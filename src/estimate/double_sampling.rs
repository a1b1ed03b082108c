//! Double sampling of the undecided samples: the positions a layer holds
//! when only a fixed random subsample of its undecided samples was
//! decided further ([`in_subsample`], `estimate --resolve --subsample D`).
//!
//! **Design.** The first phase decides what it can and leaves the set
//! `U` undecided. Each member of `U` is in the subsample with probability
//! `1/D`, independently of everything a search finds (a hash of seed,
//! layer and index); the second phase decides the subsample's members.
//! Hansen and Hurwitz (1946) is the classic reference for this design.
//!
//! **The reachable undecided samples.** With `K` the reachable members of
//! `U`, `m` the subsample's size and `h` the reachable ones found in it:
//! given `m`, the subsample is a uniform random `m`-subset of `U` (each
//! member drawn independently with one probability), so `h` is
//! hypergeometric and `|U| · h / m` estimates `K`; the exact interval of
//! `K` is the range whose hypergeometric tail at `h` is not below 2.5%
//! ([`members_interval`]). An interval that holds 95% for every `m`
//! holds 95% unconditionally. Conditioning on `m` is what makes it
//! narrower than the Horvitz-Thompson reading of the same draw (`D · h`,
//! `h` binomial with `K` trials): the variance falls by the factor
//! `1 - K / |U|`, large when most undecided samples are reachable, as on
//! 8x8. With no member drawn, nothing is known: `K` lies in `[0, |U|]`.
//!
//! **A layer.** Of `n` samples, `r` were found reachable in the first
//! phase. The reachable samples are then `r + K`, binomial with `n`
//! trials, estimated by `r + |U| · h / m`. The layer's interval combines
//! the Wilson interval with continuity correction of that count
//! ([`wilson_corrected_at`]) with the interval of `K`, by MOVER (the
//! squared distances from the point to the ends add; Zou and Donner), as
//! [`totals`] combines layers. The interval of `K` is skewed (few hits),
//! a sum of many layers' much less, so its lower distance is taken as
//! large as its upper one: without that, the total's lower end missed in
//! 4.85% of simulated estimates of rare hits at one in 2 (results/benchmarks/,
//! "double sampling"). It stays lopsided: the lower end misses more than
//! its 2.5%. Members of the subsample still undecided (`left`) count as
//! unreachable for the lower point and end, as reachable for the upper
//! ones. With `D = 1` (no subsample) `K` is known exactly and the layer's
//! interval is the one [`LayerEstimate::new`] gives.
//!
//! Classes follow the positions at the layer's sampled classes per
//! position ([`DoubleSampled::scaled`]), as in [`LayerEstimate::new`].
//! Terminal positions keep the interval that counts every undecided
//! sample both ways (on 8x8 zero-hit bounds, not undecided samples, set
//! their width).

use crate::stats::hypergeometric_cdf;

use super::*;

/// The exact 95% interval of `K`, the reachable samples of a set of
/// `size`, when a subset of `members` of them drawn uniformly at random
/// (given its size) held `found` reachable: the least `K` with
/// `P(X >= found) > 2.5%` and the most with `P(X <= found) > 2.5%`, `X`
/// hypergeometric (`members` drawn of `size` with `K` reachable). No
/// members: `(0, size)`, nothing is known; every sample a member:
/// `(found, found)`.
pub fn members_interval(found: u64, members: u64, size: u64) -> (u64, u64) {
    const TAIL: f64 = 0.025;
    let (members, found) = (members.min(size), found.min(members.min(size)));
    // K holds the found ones and at most the members not found are out
    let (least, most) = (found, size - (members - found));
    // P(X >= found) grows with K; the least K where it passes TAIL
    let at_least = |k: u64| if found == 0 { 1.0 } else { 1.0 - hypergeometric_cdf(found - 1, size, k, members) };
    let (mut a, mut b) = (least, most);
    while a < b {
        let mid = a + (b - a) / 2;
        if at_least(mid) > TAIL { b = mid } else { a = mid + 1 }
    }
    let lo = a;
    // P(X <= found) falls with K; the most K where it stays above TAIL
    let (mut a, mut b) = (least, most);
    while a < b {
        let mid = a + (b - a).div_ceil(2);
        if hypergeometric_cdf(found, size, mid, members) > TAIL { a = mid } else { b = mid - 1 }
    }
    (lo, a)
}

/// One seed's layer under double sampling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhasedLayer {
    /// The subsample: one in `one_in` (1: every sample, no double
    /// sampling).
    pub one_in: u64,
    /// The first phase's tally: its undecided samples are the set the
    /// subsample is drawn from.
    pub first: Tally,
    /// The tally now: the first phase's, with the subsample's verdicts.
    pub now: Tally,
    /// The subsample's members still undecided.
    pub left: u64,
}

impl PhasedLayer {
    /// A layer without double sampling: its undecided samples are all
    /// "the subsample", and every one of them is left.
    pub fn whole(t: Tally) -> PhasedLayer {
        PhasedLayer { one_in: 1, first: t, now: t, left: t.undecided }
    }

    /// The subsample's members: those decided since the first phase (only
    /// members are searched), and those left.
    pub fn members(&self) -> u64 {
        self.first.undecided.saturating_sub(self.now.undecided) + self.left
    }
}

/// Why layers cannot be estimated by double sampling.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DoubleSamplingError {
    /// The tally now is not the first phase's with verdicts added.
    #[error("layer {0}: its tally is not its first phase's with verdicts of undecided samples added")]
    NotAfterFirst(u32),
}

/// A layer's reachable positions by double sampling: its lower and upper
/// points (the subsample's undecided members unreachable, reachable) and
/// the 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoubleSampled {
    pub discs: u32,
    pub lo_point: f64,
    pub hi_point: f64,
    pub low: f64,
    pub high: f64,
}

impl DoubleSampled {
    /// The same layer counted in other units: `per` of them a position
    /// (classes at [`LayerEstimate::classes_per_position`], as
    /// [`LayerEstimate::new`] scales the positions' interval).
    pub fn scaled(self, per: f64) -> DoubleSampled {
        DoubleSampled {
            discs: self.discs,
            lo_point: self.lo_point * per,
            hi_point: self.hi_point * per,
            low: self.low * per,
            high: self.high * per,
        }
    }
}

/// Layer `discs`'s reachable positions by double sampling, pooled over
/// the seeds' `parts` (see the module's documentation). Parts of the same
/// `one_in` pool their subsamples into one (given its size, a uniform
/// subset of their undecided samples together); parts of different ones
/// combine by MOVER.
pub fn double_sampled_positions(
    discs: u32,
    candidates: u128,
    parts: &[PhasedLayer],
) -> Result<DoubleSampled, DoubleSamplingError> {
    // per subsampling rate: reachable members found, members left
    // undecided, members, and the undecided samples they were drawn from
    let mut groups: std::collections::BTreeMap<u64, [u64; 4]> = std::collections::BTreeMap::new();
    let (mut n, mut first_reachable, mut not_terminal) = (0u64, 0u64, 0u64);
    for p in parts {
        let (f, t) = (&p.first, &p.now);
        let decided_since = f.undecided.checked_sub(t.undecided);
        if t.samples != f.samples
            || t.reachable < f.reachable
            || t.unreachable < f.unreachable
            || decided_since.is_none_or(|d| t.reachable - f.reachable > d)
            || p.left > t.undecided
        {
            return Err(DoubleSamplingError::NotAfterFirst(discs));
        }
        n += t.samples;
        first_reachable += f.reachable;
        not_terminal += t.not_terminal;
        let g = groups.entry(p.one_in.max(1)).or_default();
        g[0] += t.reachable - f.reachable;
        g[1] += p.left;
        g[2] += p.members();
        g[3] += f.undecided;
    }
    let (mut lo_count, mut hi_count, mut below, mut above) =
        (first_reachable as f64, (first_reachable + not_terminal) as f64, 0.0, 0.0);
    for &[hits, left, members, size] in groups.values() {
        // K's points: the members' reachable share scaled to the set (the
        // left ones unreachable, then reachable); no members, no knowledge
        let (k_lo_point, k_hi_point) = match members {
            0 => (0.0, size as f64),
            m => (size as f64 * hits as f64 / m as f64, size as f64 * (hits + left) as f64 / m as f64),
        };
        lo_count += k_lo_point;
        hi_count += k_hi_point;
        let (k_lo, _) = members_interval(hits, members, size);
        let (_, k_hi) = members_interval(hits + left, members, size);
        let (lo_gap, hi_gap) = ((k_lo_point - k_lo as f64).max(0.0), (k_hi as f64 - k_hi_point).max(0.0));
        below += lo_gap.max(hi_gap).powi(2);
        above += hi_gap.powi(2);
    }
    let nf = n.max(1) as f64;
    let (w_lo, _) = wilson_corrected_at(lo_count, n);
    let (_, w_hi) = wilson_corrected_at(hi_count, n);
    let low = lo_count - ((lo_count - nf * w_lo).max(0.0).powi(2) + below).sqrt();
    let high = hi_count + ((nf * w_hi - hi_count).max(0.0).powi(2) + above).sqrt();
    let c = candidates as f64 / nf;
    Ok(DoubleSampled {
        discs,
        lo_point: c * lo_count,
        hi_point: c * hi_count,
        low: c * low.max(0.0),
        high: c * high.min(nf.max(hi_count)),
    })
}

/// The total over layers of [`double_sampled_positions`]: the middle of
/// the summed points, and the MOVER combination of the layers' intervals
/// (as [`totals`]).
pub fn double_sampled_total(layers: &[DoubleSampled]) -> Interval {
    mover_sum(layers.iter().map(|l| [l.lo_point, l.hi_point, l.low, l.high]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(samples: u64, reachable: u64, undecided: u64) -> Tally {
        Tally {
            samples,
            joined: samples,
            reachable,
            unreachable: samples - reachable - undecided,
            undecided,
            ..Tally::default()
        }
    }

    #[test]
    fn the_members_interval_is_the_hypergeometric_one() {
        // every sample a member: K is known
        assert_eq!(members_interval(7, 30, 30), (7, 7));
        // no members: nothing is known
        assert_eq!(members_interval(0, 0, 30), (0, 30));
        // none found among 1 of 2: K = 1 leaves P(X = 0) = 1/2, K = 2
        // leaves none, so K is 0 or 1
        assert_eq!(members_interval(0, 1, 2), (0, 1));
        // all 10 members of 40 reachable: K = 40 - j leaves the chance
        // C(40 - j, 10) / C(40, 10) that all ten are; above 2.5% for j up
        // to 10 (3.5%), not at 11 (2.4%)
        assert_eq!(members_interval(10, 10, 40), (30, 40));
        // every end satisfies its tail and the next K beyond does not
        for (found, members, size) in [(3u64, 50u64, 200u64), (10, 50, 100), (1, 8, 60), (25, 100, 400), (6, 9, 37)] {
            let (lo, hi) = members_interval(found, members, size);
            let point = (size * found) as f64 / members as f64;
            assert!(lo as f64 <= point && point <= hi as f64, "{found} {members}: {lo} {hi}");
            let at_least = |k: u64| 1.0 - hypergeometric_cdf(found - 1, size, k, members);
            assert!(at_least(lo) > 0.025);
            assert!(lo == found || at_least(lo - 1) <= 0.025);
            assert!(hypergeometric_cdf(found, size, hi, members) > 0.025);
            assert!(hi == size - (members - found) || hypergeometric_cdf(found, size, hi + 1, members) <= 0.025);
        }
    }

    #[test]
    fn without_a_subsample_it_is_the_layers_own_interval() {
        let t = tally(5000, 40, 25);
        let c = 1u128 << 80;
        let own = LayerEstimate::new(50, c, t).positions;
        let d = double_sampled_positions(50, c, &[PhasedLayer::whole(t)]).unwrap();
        let rel = |a: f64, b: f64| ((a - b) / b).abs();
        assert!(rel(d.low, own.low) < 1e-12 && rel(d.high, own.high) < 1e-12, "{d:?} {own:?}");
        assert!(rel((d.lo_point + d.hi_point) / 2.0, own.estimate) < 1e-12);
        // a subsample of 1 whose samples were all decided: the same as the
        // decided tally's own interval
        let first = tally(5000, 40, 25);
        let now = tally(5000, 52, 0);
        let d = double_sampled_positions(50, c, &[PhasedLayer { one_in: 1, first, now, left: 0 }]).unwrap();
        let own = LayerEstimate::new(50, c, now).positions;
        assert!(rel(d.low, own.low) < 1e-12 && rel(d.high, own.high) < 1e-12, "{d:?} {own:?}");
    }

    #[test]
    fn a_decided_subsample_narrows_the_interval_and_a_left_member_weighs_d() {
        let c = 1u128 << 80;
        let first = tally(5000, 40, 100);
        // one in 4 of the 100: 25 members, 10 reachable, all decided
        let now = tally(5000, 50, 75);
        let decided = double_sampled_positions(50, c, &[PhasedLayer { one_in: 4, first, now, left: 0 }]).unwrap();
        let bounds = LayerEstimate::new(50, c, first).positions;
        assert!(decided.high - decided.low < bounds.high - bounds.low, "{decided:?} {bounds:?}");
        // the point: 40 + 4 * 10 = 80 of 5000
        let per = c as f64 / 5000.0;
        assert!((decided.lo_point / per - 80.0).abs() < 1e-9 && decided.lo_point == decided.hi_point);
        // one member left: the upper point rises by 4 samples
        let now = tally(5000, 50, 76);
        let left = double_sampled_positions(50, c, &[PhasedLayer { one_in: 4, first, now, left: 1 }]).unwrap();
        assert!((left.hi_point / per - 84.0).abs() < 1e-9 && (left.lo_point / per - 80.0).abs() < 1e-9);
        // a tally that is not its first phase's with verdicts added
        let bad = PhasedLayer { one_in: 4, first, now: tally(5000, 30, 75), left: 0 };
        assert_eq!(double_sampled_positions(50, c, &[bad]), Err(DoubleSamplingError::NotAfterFirst(50)));
    }

    /// A simulated layer: samples, share reachable, chance a reachable
    /// sample is left undecided, chance an unreachable one is.
    type SimLayer = (u64, f64, f64, f64);

    /// A small generator of our own (splitmix64), for simulations that do
    /// not depend on the engine's draws: uniform in [0, 1).
    fn uniform(state: &mut u64) -> f64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / (u64::MAX as f64 + 1.0)
    }

    /// The share of `trials` simulated estimates whose interval held the
    /// truth. Each layer `(samples, share reachable, chance a reachable
    /// sample is left undecided, chance an unreachable one is)`; the
    /// undecided samples enter a subsample of one in `one_in`, decided
    /// whole.
    fn coverage(layers: &[SimLayer], one_in: u64, trials: u32, seed: u64) -> f64 {
        simulate(layers, one_in, trials, seed).held
    }

    /// What [`simulate`] measured: the shares of trials whose interval
    /// held the truth, lay above it, lay below it, and the mean width
    /// over the truth.
    struct Simulated {
        held: f64,
        above: f64,
        below: f64,
        width: f64,
    }

    fn simulate(layers: &[SimLayer], one_in: u64, trials: u32, seed: u64) -> Simulated {
        let mut state = seed;
        let c = 1u128 << 70;
        let (mut held, mut above, mut below, mut width) = (0, 0, 0, 0.0);
        for _ in 0..trials {
            let (mut out, mut truth) = (Vec::new(), 0.0);
            for (i, &(n, p, left_r, left_u)) in layers.iter().enumerate() {
                let (mut r1, mut undecided, mut hits, mut members) = (0, 0, 0, 0);
                for _ in 0..n {
                    let reachable = uniform(&mut state) < p;
                    let left = uniform(&mut state) < if reachable { left_r } else { left_u };
                    match (reachable, left) {
                        (true, false) => r1 += 1,
                        (_, true) => {
                            undecided += 1;
                            if uniform(&mut state) < 1.0 / one_in as f64 {
                                members += 1;
                                hits += reachable as u64;
                            }
                        }
                        _ => {}
                    }
                }
                truth += c as f64 * p;
                let first = tally(n, r1, undecided);
                let now = tally(n, r1 + hits, undecided - members);
                let part = PhasedLayer { one_in, first, now, left: 0 };
                out.push(double_sampled_positions(i as u32, c, &[part]).unwrap());
            }
            let total = double_sampled_total(&out);
            held += (total.low <= truth && truth <= total.high) as u32;
            above += (total.low > truth) as u32;
            below += (total.high < truth) as u32;
            width += (total.high - total.low) / truth;
        }
        let t = f64::from(trials);
        Simulated {
            held: f64::from(held) / t,
            above: f64::from(above) / t,
            below: f64::from(below) / t,
            width: width / t,
        }
    }

    /// Prints coverage and width in three regimes (`cargo test --release
    /// --lib -- --ignored double_sampled_interval_regimes --nocapture`);
    /// results/benchmarks/ keeps what it printed.
    #[test]
    #[ignore]
    fn double_sampled_interval_regimes() {
        let regimes: [(&str, Vec<SimLayer>); 3] = [
            (
                "tens of reachable samples a layer",
                vec![(3000u64, 0.02, 0.6, 0.01), (2000, 0.03, 0.5, 0.02), (4000, 0.01, 0.7, 0.005)],
            ),
            ("ten layers of rare hits", vec![(20_000u64, 0.0005, 0.5, 0.0004); 10]),
            ("8x8-like: twelve layers, 30 undecided each, 60% reachable", vec![(30_000u64, 0.001, 0.6, 0.0004); 12]),
        ];
        for (name, layers) in &regimes {
            for one_in in [2, 4] {
                let r = simulate(layers, one_in, 4000, 7);
                eprintln!(
                    "{name}, one in {one_in}: held {:.4}, interval above the truth {:.4}, below {:.4}, mean width {:.4} of the truth",
                    r.held, r.above, r.below, r.width
                );
            }
        }
    }

    /// Coverage by simulation, where the undecided samples are the
    /// reachable ones far more often than the unreachable ones (as on
    /// 8x8): a subsample of one in 4 decided whole. A few layers with tens
    /// of reachable samples; ten layers with about ten each (about 1.3
    /// reachable members of each layer's subsample); twelve layers with 30
    /// undecided samples each, 60% of them reachable (as the 8x8 chain's
    /// layers pooled over its three seeds). The interval holds the true
    /// count in at least 94% of the trials (95% asked; the standard error
    /// of the share is 0.5%). What 4,000 trials of each measure, and
    /// what they measured before the interval of the reachable undecided
    /// samples was conditioned on the subsample's size:
    /// [`double_sampled_interval_regimes`].
    #[test]
    fn double_sampled_intervals_hold_the_truth_in_simulation() {
        let few = [(3000u64, 0.02, 0.6, 0.01), (2000, 0.03, 0.5, 0.02), (4000, 0.01, 0.7, 0.005)];
        let share = coverage(&few, 4, 2000, 1);
        eprintln!("layers with tens of reachable samples: {share}");
        assert!(share >= 0.94, "layers with tens of reachable samples: held the truth in {share} of the trials");
        let rare = [(20_000u64, 0.0005, 0.5, 0.0004); 10];
        let share = coverage(&rare, 4, 2000, 2);
        eprintln!("ten layers of rare hits: {share}");
        assert!(share >= 0.94, "ten layers of rare hits: held the truth in {share} of the trials");
        let like_8x8 = [(30_000u64, 0.001, 0.6, 0.0004); 12];
        let share = coverage(&like_8x8, 4, 2000, 3);
        eprintln!("8x8-like: {share}");
        assert!(share >= 0.94, "8x8-like layers: held the truth in {share} of the trials");
    }
}
