//! What samples found and what it says: a layer's tally, its three
//! figures with their Wilson intervals, which samples a run decides
//! ([`Focus`]), and the totals over layers (MOVER).

use serde::{Deserialize, Serialize};

/// What the samples of one layer found. All fields add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Candidates drawn.
    pub samples: u64,
    /// Of them, discs all joined to the centre (the rest are unreachable
    /// at a glance).
    pub joined: u64,
    /// Reachable, proven by a game.
    pub reachable: u64,
    /// Unreachable, proven.
    pub unreachable: u64,
    /// The search ran out of budget.
    pub undecided: u64,
    /// Reachable and terminal.
    pub terminal: u64,
    /// Undecided and terminal (would be terminal if reachable).
    pub undecided_terminal: u64,
    /// Reachable samples by orbit size: 1, 2, 4.
    pub by_orbit: [u64; 3],
    /// Positions the searches visited.
    pub nodes: u64,
    /// Of the unreachable, those the flip-history relaxation proved
    /// (absent from documents before search generation 3).
    #[serde(default)]
    pub relaxed: u64,
    /// Of the reachable, those the exact game encoding decided (absent
    /// from earlier documents).
    #[serde(default)]
    pub exact_reachable: u64,
    /// Of the unreachable, those the exact game encoding proved (absent
    /// from earlier documents).
    #[serde(default)]
    pub exact_unreachable: u64,
    /// Joined candidates left undecided on purpose because they are not
    /// terminal: a run focused on terminal positions ([`Focus::Terminal`])
    /// decides only terminal candidates (0 in other runs; absent from
    /// documents before version 4).
    #[serde(default)]
    pub not_terminal: u64,
    /// Of the reachable, those the beam found; of the unreachable, those
    /// it proved (absent from documents before 2026-11-28).
    #[serde(default)]
    pub beam_reachable: u64,
    #[serde(default)]
    pub beam_unreachable: u64,
    /// Of the reachable, those the sweep found; of the unreachable, those
    /// it proved (absent from documents before 2026-11-28).
    #[serde(default)]
    pub sweep_reachable: u64,
    #[serde(default)]
    pub sweep_unreachable: u64,
    /// Of the unreachable, those the flip-count balance proved (absent
    /// from documents before search generation 6).
    #[serde(default)]
    pub balanced: u64,
}

impl Tally {
    /// The two tallies together (of disjoint samples).
    pub fn plus(mut self, o: Tally) -> Tally {
        self.samples += o.samples;
        self.joined += o.joined;
        self.reachable += o.reachable;
        self.unreachable += o.unreachable;
        self.undecided += o.undecided;
        self.terminal += o.terminal;
        self.undecided_terminal += o.undecided_terminal;
        for i in 0..3 {
            self.by_orbit[i] += o.by_orbit[i];
        }
        self.nodes += o.nodes;
        self.relaxed += o.relaxed;
        self.exact_reachable += o.exact_reachable;
        self.exact_unreachable += o.exact_unreachable;
        self.not_terminal += o.not_terminal;
        self.beam_reachable += o.beam_reachable;
        self.beam_unreachable += o.beam_unreachable;
        self.sweep_reachable += o.sweep_reachable;
        self.sweep_unreachable += o.sweep_unreachable;
        self.balanced += o.balanced;
        self
    }
}

/// A 95% interval and its point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    /// The estimate.
    pub estimate: f64,
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// The normal quantile of a two-sided 95% interval.
pub(super) const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's score interval of a proportion `x / n` at 95%.
pub fn wilson(x: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (x, n) = (x as f64, n as f64);
    let p = x / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let lo = if x == 0.0 { 0.0 } else { (centre - half).max(0.0) };
    let hi = if x == n { 1.0 } else { (centre + half).min(1.0) };
    (lo, hi)
}

/// Wilson's score interval of a proportion `x / n` at 95% with a
/// continuity correction (Newcombe 1998, method 4). Plain Wilson held the
/// exact count in 93.9% of 4,000 layer intervals with about one reachable
/// sample each (docs/estimate.md, "Coverage"); the correction keeps the
/// coverage at or above 95% where counts are small, and changes little
/// where they are large.
pub fn wilson_corrected(x: u64, n: u64) -> (f64, f64) {
    wilson_corrected_at(x as f64, n)
}

/// [`wilson_corrected`] at a count that need not be whole (a count with
/// a part scaled up from a subsample, `estimate::double_sampling`): the
/// same formula, continuous in `x`.
pub fn wilson_corrected_at(x: f64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let nf = n as f64;
    let xf = x.clamp(0.0, nf);
    let p = xf / nf;
    let z2 = Z95 * Z95;
    let denominator = 2.0 * (nf + z2);
    let lo = if xf <= 0.0 {
        0.0
    } else {
        let root = (z2 - 2.0 - 1.0 / nf + 4.0 * p * (nf * (1.0 - p) + 1.0)).max(0.0).sqrt();
        ((2.0 * nf * p + z2 - 1.0 - Z95 * root) / denominator).max(0.0)
    };
    let hi = if xf >= nf {
        1.0
    } else {
        let root = (z2 + 2.0 - 1.0 / nf + 4.0 * p * (nf * (1.0 - p) - 1.0)).max(0.0).sqrt();
        ((2.0 * nf * p + z2 + 1.0 + Z95 * root) / denominator).min(1.0)
    };
    (lo, hi)
}

/// The estimates of one layer.
#[derive(Clone, Debug, Serialize)]
pub struct LayerEstimate {
    /// Discs.
    pub discs: u32,
    /// Candidates (exact).
    pub candidates: u128,
    /// What the samples found.
    pub tally: Tally,
    /// Reachable positions.
    pub positions: Interval,
    /// Terminal positions.
    pub terminal_positions: Interval,
    /// Classes under the four symmetries of the start.
    pub classes: Interval,
}

impl LayerEstimate {
    /// The estimates of layer `discs` from what its samples found.
    ///
    /// Each figure has two points: the lower counts the undecided samples
    /// as unreachable, the upper as reachable; the truth's expectation
    /// lies between them whatever share of the undecided samples is
    /// reachable. The point given is their middle (off the truth by at
    /// most half the undecided share, whatever that share is; no share is
    /// assumed), and the interval runs from the lower end of the lower
    /// point's proportion to the upper end of the upper one's
    /// ([`wilson_corrected`]).
    pub fn new(discs: u32, candidates: u128, t: Tally) -> LayerEstimate {
        let c = candidates as f64;
        let n = t.samples;
        let scaled = |lo_x: u64, hi_x: u64| {
            let point = if n == 0 { 0.0 } else { c * (lo_x + hi_x) as f64 / 2.0 / n as f64 };
            let (lo, _) = wilson_corrected(lo_x, n);
            let (_, hi) = wilson_corrected(hi_x, n);
            Interval { estimate: point, low: c * lo, high: c * hi }
        };
        // a candidate not decided because it is not terminal may be
        // reachable: it widens the positions' upper end, not the terminal
        // positions'
        let positions = scaled(t.reachable, t.reachable + t.undecided + t.not_terminal);
        let terminal_positions = scaled(t.terminal, t.terminal + t.undecided_terminal);
        let per = Self::classes_per_position(&t);
        let (lo_w, hi_w) = Self::class_weights(&t);
        let classes = Interval {
            estimate: if n == 0 { 0.0 } else { c * (lo_w + hi_w) / 2.0 / n as f64 },
            low: positions.low * per,
            high: positions.high * per,
        };
        LayerEstimate { discs, candidates, tally: t, positions, terminal_positions, classes }
    }

    /// Classes per reachable position among the samples (a quarter when
    /// none was reachable: most classes have four positions).
    pub fn classes_per_position(t: &Tally) -> f64 {
        if t.reachable == 0 { 0.25 } else { Self::reachable_classes(t) / t.reachable as f64 }
    }

    /// The classes the reachable samples stand for, in samples: each its
    /// `1 / orbit`.
    fn reachable_classes(t: &Tally) -> f64 {
        t.by_orbit[0] as f64 + t.by_orbit[1] as f64 / 2.0 + t.by_orbit[2] as f64 / 4.0
    }

    /// The classes the samples stand for, in samples: the reachable ones'
    /// `1 / orbit`, and that plus the undecided ones (and those left
    /// undecided as not terminal) at the sampled classes per position.
    fn class_weights(t: &Tally) -> (f64, f64) {
        let weight = Self::reachable_classes(t);
        (weight, weight + (t.undecided + t.not_terminal) as f64 * Self::classes_per_position(t))
    }

    /// The lower and upper points of a figure (undecided samples as
    /// unreachable, and as reachable).
    pub fn points(&self, figure: Figure) -> (f64, f64) {
        let t = &self.tally;
        let per = self.candidates as f64 / t.samples.max(1) as f64;
        let (lo, hi) = match figure {
            Figure::Positions => (t.reachable as f64, (t.reachable + t.undecided + t.not_terminal) as f64),
            Figure::TerminalPositions => (t.terminal as f64, (t.terminal + t.undecided_terminal) as f64),
            Figure::Classes => Self::class_weights(t),
        };
        (lo * per, hi * per)
    }

    /// A figure's interval.
    pub fn interval(&self, figure: Figure) -> Interval {
        match figure {
            Figure::Positions => self.positions,
            Figure::TerminalPositions => self.terminal_positions,
            Figure::Classes => self.classes,
        }
    }
}

/// The three figures an estimate gives of a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Reachable positions.
    Positions,
    /// Reachable terminal positions.
    TerminalPositions,
    /// Classes under the start's four symmetries.
    Classes,
}

impl Figure {
    /// All three, in the order [`totals`] gives them.
    pub const ALL: [Figure; 3] = [Figure::Positions, Figure::TerminalPositions, Figure::Classes];
}

/// Which samples a run decides.
///
/// A run focused on terminal positions draws the same candidates as any
/// run of its seed, but decides only those that are terminal (neither
/// side can move): the others cannot count as terminal positions, so the
/// terminal figure is exactly what a run deciding every sample would give
/// for the same draws, at a fraction of the searches. Its positions and
/// classes only get an upper end that counts every such candidate as
/// reachable; the catalogue pools its samples into terminal positions
/// only. It pays where terminal positions are rare among the candidates
/// and the reachable ones (6x6 layers 21-35, which a run of every sample
/// leaves without one terminal hit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Focus {
    /// Every sample is decided.
    #[default]
    All,
    /// Only terminal candidates are decided.
    Terminal,
}

impl Focus {
    /// Its name in documents and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Focus::All => "all",
            Focus::Terminal => "terminal",
        }
    }

    /// Its number in an estimate's ID (`EstimateId`): 0 all, 1 terminal.
    pub fn number(self) -> u64 {
        match self {
            Focus::All => 0,
            Focus::Terminal => 1,
        }
    }

    /// The figure whose variance the sampling allocates for.
    pub(super) fn figure(self) -> Figure {
        match self {
            Focus::All => Figure::Positions,
            Focus::Terminal => Figure::TerminalPositions,
        }
    }
}

/// The totals over the layers of positions, terminal positions and
/// classes, with their 95% intervals.
///
/// The point is the middle of the sums of the layers' lower and upper
/// points ([`LayerEstimate::new`]). The interval is the MOVER combination
/// of the layers' Wilson intervals (Zou and Donner's method of variance
/// estimates recovery): the lower end is the sum of the lower points less
/// the root of the summed squares of each layer's distance from its lower
/// point to its lower end, the upper end likewise above the upper points.
/// Unlike a normal interval from variances taken at each layer's Wilson
/// centre, it keeps the skew of layers with few reachable samples (where
/// that interval held the exact sum about 91% of the time instead of 95%:
/// docs/estimate.md, "Coverage").
pub fn totals(layers: &[LayerEstimate]) -> [Interval; 3] {
    Figure::ALL.map(|figure| {
        mover_sum(layers.iter().map(|l| {
            let ((lo, hi), i) = (l.points(figure), l.interval(figure));
            [lo, hi, i.low, i.high]
        }))
    })
}

/// The MOVER sum of parts, each `[lower point, upper point, low, high]`
/// (see [`totals`]): the middle of the summed points, and below and above
/// them the roots of the summed squares of each part's distances.
pub fn mover_sum(parts: impl IntoIterator<Item = [f64; 4]>) -> Interval {
    let (mut lo_point, mut hi_point, mut below, mut above) = (0.0, 0.0, 0.0, 0.0);
    for [lo, hi, low, high] in parts {
        lo_point += lo;
        hi_point += hi;
        below += (lo - low).max(0.0).powi(2);
        above += (high - hi).max(0.0).powi(2);
    }
    Interval {
        estimate: (lo_point + hi_point) / 2.0,
        low: (lo_point - below.sqrt()).max(0.0),
        high: hi_point + above.sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corrected_interval_is_wider_and_reaches_the_bounds() {
        for (x, n) in [(1, 10), (3, 100), (50, 100), (1, 1_000_000), (999_999, 1_000_000)] {
            let (lo, hi) = wilson(x, n);
            let (clo, chi) = wilson_corrected(x, n);
            let p = x as f64 / n as f64;
            assert!(clo < lo && hi < chi && clo < p && p < chi, "{x}/{n}: {clo} {lo} {hi} {chi}");
        }
        assert_eq!(wilson_corrected(0, 10).0, 0.0);
        assert_eq!(wilson_corrected(10, 10).1, 1.0);
        // Newcombe (1998), table I, 81/263: Wilson 0.2553 to 0.3662, with
        // the correction 0.2535 to 0.3682
        let (lo, hi) = wilson(81, 263);
        assert!((lo - 0.2553).abs() < 1e-4 && (hi - 0.3662).abs() < 1e-4, "{lo} {hi}");
        let (lo, hi) = wilson_corrected(81, 263);
        assert!((lo - 0.2535).abs() < 1e-4 && (hi - 0.3682).abs() < 1e-4, "{lo} {hi}");
    }

    #[test]
    fn wilson_brackets() {
        let (lo, hi) = wilson(0, 100);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.03 && hi < 0.04, "{hi}");
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5 && (0.5 - lo - (hi - 0.5)).abs() < 1e-12);
    }
}
