//! The statistics the catalogue needs to check that independent estimates
//! of one figure (one per seed) agree: the chi-square distribution's upper
//! tail, Student's t quantile, and the replication interval built from
//! them ([`Replication`]); and the hypergeometric distribution's tail, for
//! the interval of double sampling (`estimate::members_interval`).

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// ln Γ(x) for x > 0 (Lanczos' approximation, g = 7, nine terms: about 15
/// significant digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// P(X <= k) for X hypergeometric: `draws` taken without replacement
/// from `population` items of which `successes` are marked, X the marked
/// ones drawn. Summed in logarithms: no term underflows to nothing while
/// the sum is not.
pub fn hypergeometric_cdf(k: u64, population: u64, successes: u64, draws: u64) -> f64 {
    let (n, big_k) = (draws.min(population), successes.min(population));
    // X lies between these; the sum runs over the terms up to k
    let least = (n + big_k).saturating_sub(population);
    let most = n.min(big_k);
    if k >= most {
        return 1.0;
    }
    if k < least {
        return 0.0;
    }
    let ln_choose =
        |a: u64, b: u64| ln_gamma(a as f64 + 1.0) - ln_gamma(b as f64 + 1.0) - ln_gamma((a - b) as f64 + 1.0);
    let whole = ln_choose(population, n);
    let terms: Vec<f64> =
        (least..=k).map(|j| ln_choose(big_k, j) + ln_choose(population - big_k, n - j) - whole).collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()).min(0.0).exp()
}

/// The regularized upper incomplete gamma function Q(a, x): by its series
/// below x = a + 1, by its continued fraction (Lentz) above.
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * front).max(0.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (front * h).min(1.0)
    }
}

/// P(X ≥ x) for X chi-square with `df` degrees of freedom.
pub fn chi_square_tail(x: f64, df: u32) -> f64 {
    gamma_q(f64::from(df) / 2.0, x / 2.0)
}

/// Student's t quantile of a two-sided 95% interval with `df` degrees of
/// freedom: the table's values to 30, Cornish-Fisher's expansion beyond
/// (within 1e-4 there).
pub fn t95(df: u32) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        _ => {
            let (z, n) = (Z95, f64::from(df));
            z + (z.powi(3) + z) / (4.0 * n) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// One replicate's figure: its point and 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replicate {
    /// The point.
    pub point: f64,
    /// The interval's ends.
    pub low: f64,
    pub high: f64,
}

impl Replicate {
    /// Its standard error, read off its interval (half its width over the
    /// normal quantile; never zero).
    pub fn standard_error(&self) -> f64 {
        ((self.high - self.low) / (2.0 * Z95)).max(f64::MIN_POSITIVE)
    }
}

/// Whether independent replicates of one figure (one estimate per seed)
/// agree within their own intervals, and the interval that replication
/// supports.
///
/// - Cochran's Q: the weighted squares of the replicates' distances from
///   their inverse-variance mean, chi-square with `m - 1` degrees of
///   freedom when the replicates' errors are what their intervals say.
/// - The pooled interval widened by the Birge ratio `sqrt(Q / (m - 1))`
///   where it exceeds one (the excess scatter taken as a common factor on
///   every replicate's error).
/// - Student's t interval from the replicates' points alone (their mean,
///   their standard deviation over `sqrt(m)`), which assumes nothing of
///   the intervals they state.
///
/// The interval published is the union of the widened pooled interval
/// and the t interval: it holds under either reading.
#[derive(Clone, Debug, PartialEq)]
pub struct Replication {
    /// Replicates.
    pub m: usize,
    /// Cochran's Q and its upper-tail probability on `m - 1` degrees of
    /// freedom.
    pub q: f64,
    pub p: f64,
    /// sqrt(Q / (m - 1)).
    pub birge: f64,
    /// The replicates' points: mean, and Student's t interval.
    pub mean: f64,
    pub t_low: f64,
    pub t_high: f64,
    /// The pooled interval widened by the Birge ratio (where above one).
    pub widened_low: f64,
    pub widened_high: f64,
    /// What is published: the union of the two.
    pub low: f64,
    pub high: f64,
}

/// The least number of replicates for a dispersion test and a t interval.
pub const MIN_REPLICATES: usize = 3;

/// The significance below which replicates are said to disagree.
pub const DISAGREE_BELOW: f64 = 0.05;

impl Replication {
    /// The replication check of `replicates` (at least
    /// [`MIN_REPLICATES`], else None) of a figure whose pooled estimate is
    /// `pooled`.
    pub fn of(replicates: &[Replicate], pooled: Replicate) -> Option<Replication> {
        let m = replicates.len();
        if m < MIN_REPLICATES {
            return None;
        }
        let w: Vec<f64> = replicates.iter().map(|r| 1.0 / r.standard_error().powi(2)).collect();
        let wsum: f64 = w.iter().sum();
        let wmean = replicates.iter().zip(&w).map(|(r, w)| w * r.point).sum::<f64>() / wsum;
        let q: f64 = replicates.iter().zip(&w).map(|(r, w)| w * (r.point - wmean).powi(2)).sum();
        let df = (m - 1) as u32;
        let birge = (q / f64::from(df)).sqrt();
        let mean = replicates.iter().map(|r| r.point).sum::<f64>() / m as f64;
        let sd = (replicates.iter().map(|r| (r.point - mean).powi(2)).sum::<f64>() / (m - 1) as f64).sqrt();
        let half = t95(df) * sd / (m as f64).sqrt();
        let f = birge.max(1.0);
        let widened_low = (pooled.point - f * (pooled.point - pooled.low)).max(0.0);
        let widened_high = pooled.point + f * (pooled.high - pooled.point);
        let (t_low, t_high) = ((mean - half).max(0.0), mean + half);
        Some(Replication {
            m,
            q,
            p: chi_square_tail(q, df),
            birge,
            mean,
            t_low,
            t_high,
            widened_low,
            widened_high,
            low: widened_low.min(t_low),
            high: widened_high.max(t_high),
        })
    }

    /// Whether the replicates disagree beyond chance (p below
    /// [`DISAGREE_BELOW`]).
    pub fn disagree(&self) -> bool {
        self.p < DISAGREE_BELOW
    }

    /// What the test says, in words: disagree (p below 0.05), at the edge
    /// of chance (below 0.10), or agree.
    pub fn verdict(&self) -> &'static str {
        if self.disagree() {
            "disagree beyond chance"
        } else if self.p < 2.0 * DISAGREE_BELOW {
            "scatter at the edge of chance"
        } else {
            "agree"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi_square_tail_matches_known_values() {
        // tables: P(X >= 9.488 | 4 df) = 0.05, P(X >= 3.841 | 1) = 0.05,
        // P(X >= 13.8 | 4) = 0.00795, P(X >= 79.08 | 60) = 0.05
        assert!((chi_square_tail(9.488, 4) - 0.05).abs() < 1e-4);
        assert!((chi_square_tail(3.841, 1) - 0.05).abs() < 1e-4);
        assert!((chi_square_tail(13.8, 4) - 0.00795).abs() < 1e-4);
        assert!((chi_square_tail(79.08, 60) - 0.05).abs() < 1e-3);
        assert_eq!(chi_square_tail(0.0, 3), 1.0);
        // the tail of 2 df is exp(-x / 2) exactly
        for x in [0.5, 2.0, 7.0, 30.0] {
            assert!((chi_square_tail(x, 2) - (-x / 2.0f64).exp()).abs() < 1e-12);
        }
    }

    /// Against the counts themselves: C(K, j) C(N - K, n - j) / C(N, n)
    /// summed in integers.
    #[test]
    fn hypergeometric_tails_match_exact_sums() {
        fn choose(a: u64, b: u64) -> u128 {
            if b > a {
                return 0;
            }
            (0..b).fold(1u128, |acc, i| acc * u128::from(a - i) / u128::from(i + 1))
        }
        for (population, successes, draws) in [(20u64, 7u64, 5u64), (40, 30, 10), (12, 12, 4), (30, 0, 6), (25, 10, 25)]
        {
            let whole = choose(population, draws) as f64;
            let mut sum = 0u128;
            for k in 0..=draws {
                sum += choose(successes, k) * choose(population - successes, draws - k);
                let exact = sum as f64 / whole;
                let got = hypergeometric_cdf(k, population, successes, draws);
                assert!((got - exact).abs() < 1e-10, "{population} {successes} {draws} {k}: {got} {exact}");
            }
        }
        // the classic: 3 aces or fewer in 5 cards of 52 with 4 aces, all but
        // C(4,4) C(48,1) / C(52,5) = 48 / 2,598,960 (to the sum's rounding)
        let four = 48.0 / 2_598_960.0;
        assert!(((1.0 - hypergeometric_cdf(3, 52, 4, 5)) / four - 1.0).abs() < 1e-8);
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t95(4), 2.776);
        assert!((t95(31) - 2.0395).abs() < 1e-3);
        assert!((t95(120) - 1.9799).abs() < 1e-3);
        assert!((t95(100_000) - Z95).abs() < 1e-4);
    }

    /// The five 6x6 seeds the issue recomputed: Q 13.8 on 4 degrees of
    /// freedom, and a published interval at least as wide as the t
    /// interval of the totals (3.23e14 to 3.47e14).
    #[test]
    fn replicates_that_disagree_widen_the_interval() {
        let seeds: Vec<Replicate> = [(3.240, 0.045), (3.400, 0.046), (3.328, 0.031), (3.300, 0.043), (3.481, 0.057)]
            .iter()
            .map(|&(x, se)| Replicate { point: x, low: x - Z95 * se, high: x + Z95 * se })
            .collect();
        let pooled = Replicate { point: 3.338, low: 3.301, high: 3.395 };
        let r = Replication::of(&seeds, pooled).unwrap();
        assert!((r.q - 13.8).abs() < 0.3, "{r:?}");
        assert!(r.disagree() && r.p > 0.005 && r.p < 0.012, "{r:?}");
        // the t interval of the five totals: 3.349 ± 2.776 · 0.0932 / √5
        assert!((r.t_low - 3.234).abs() < 1e-3 && (r.t_high - 3.466).abs() < 1e-3, "{r:?}");
        assert!(r.low <= r.widened_low && r.low <= r.t_low && r.high >= r.widened_high && r.high >= r.t_high);
        // agreeing replicates keep the pooled interval, widened by nothing
        let agree: Vec<Replicate> =
            [3.33, 3.34, 3.35].iter().map(|&x| Replicate { point: x, low: x - 0.1, high: x + 0.1 }).collect();
        let r = Replication::of(&agree, pooled).unwrap();
        assert!(!r.disagree() && r.birge < 1.0);
        assert_eq!((r.widened_low, r.widened_high), (pooled.low, pooled.high));
        assert!(Replication::of(&agree[..2], pooled).is_none());
    }
}
