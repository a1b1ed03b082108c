//! How often the intervals `estimate` states hold the exact count, over
//! many seeds of a cheap configuration on layers the census has counted
//! exactly, made the way the published figures were made: searches that
//! stop at a census layer, and a small budget that leaves samples
//! undecided. The exact counts are the catalogue's (both engines gave
//! them, `results/*-by-discs.csv`).
//!
//! The quick tests run in CI; the `#[ignore]`d ones take more seeds
//! (`cargo test --release --test estimate_coverage -- --ignored
//! --nocapture`, about 10 minutes on 2 cores) and print the coverage of
//! the previous method (a normal interval from per-layer variances at
//! the Wilson centre) beside the tool's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use othello_census::board::{B6, B8};
use othello_census::census::LayerBy;
use othello_census::engine::layers::{self, LayersLive, LayersPlan, LayersSettings};
use othello_census::estimate::{
    EstimateConfig, EstimateLive, Figure, LayerEstimate, PhasedLayer, SearchLimits, census_layer,
    double_sampled_positions, double_sampled_total, estimate_on, in_subsample, resolve, totals, with_census_layer,
};
use othello_census::key::Keyed;
use othello_census::search::reachable::{Frontier, LayerHeld};

/// The exact positions per layer of the catalogue's by-discs table of an
/// `n x n` board.
fn exact_positions(n: u32) -> BTreeMap<u32, f64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("results/{n}x{n}-by-discs.csv"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (d, p) =
        (header.iter().position(|h| *h == "discs").unwrap(), header.iter().position(|h| *h == "positions").unwrap());
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[d].parse().unwrap(), f[p].parse().unwrap())
        })
        .collect()
}

/// A stored census of board `G` by discs to `limit` in `dir`.
fn census<G: Keyed>(dir: &Path, limit: u32) -> PathBuf {
    let plan = LayersPlan {
        by: LayerBy::Discs,
        limit,
        partitions: 4,
        work_dir: dir.to_path_buf(),
        command: "test".into(),
        started_unix: 0,
    };
    let settings = LayersSettings::new(2, 2 << 30);
    layers::start::<G>(&plan, &settings, &AtomicBool::new(false), &LayersLive::default()).unwrap();
    plan.work_dir
}

/// The previous method's total interval of positions, for comparison: a
/// normal interval from each layer's variance at its Wilson centre
/// (undecided samples as unreachable below, as reachable above).
fn previous_total(layers: &[LayerEstimate]) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let var = |l: &LayerEstimate, x: u64| {
        let n = l.tally.samples.max(1) as f64;
        let p = (x as f64 + z * z / 2.0) / (n + z * z);
        let c = l.candidates as f64;
        c * c * p * (1.0 - p) / n
    };
    let (mut lo_point, mut hi_point, mut lo_var, mut hi_var) = (0.0, 0.0, 0.0, 0.0);
    for l in layers {
        let (lo, hi) = l.points(Figure::Positions);
        lo_point += lo;
        hi_point += hi;
        lo_var += var(l, l.tally.reachable);
        hi_var += var(l, l.tally.reachable + l.tally.undecided);
    }
    ((lo_point - z * lo_var.sqrt()).max(0.0), hi_point + z * hi_var.sqrt())
}

/// What many seeds' intervals did.
#[derive(Debug, Default)]
struct Coverage {
    seeds: u64,
    /// Seeds whose total interval held the exact sum: the tool's, and the
    /// previous method's.
    total: u64,
    previous: u64,
    /// Layer intervals, and those that held the exact count.
    layers: u64,
    layers_inside: u64,
    /// Seeds with undecided samples, and reachable samples in all.
    with_undecided: u64,
    reachable: u64,
    /// Seeds whose total's point (the middle of its two points) lay
    /// below the exact sum.
    point_below: u64,
}

impl Coverage {
    fn share(x: u64, n: u64) -> f64 {
        x as f64 / n.max(1) as f64
    }

    fn report(&self, what: &str) {
        eprintln!(
            "{what}: {} seeds ({} with undecided samples, {} reachable samples in all): the total's 95% interval \
             held the exact sum in {:.1}% (the previous method: {:.1}%), the layers' intervals in {:.1}% of {}; \
             the point below the exact sum in {:.1}%",
            self.seeds,
            self.with_undecided,
            self.reachable,
            100.0 * Self::share(self.total, self.seeds),
            100.0 * Self::share(self.previous, self.seeds),
            100.0 * Self::share(self.layers_inside, self.layers),
            self.layers,
            100.0 * Self::share(self.point_below, self.seeds),
        );
    }
}

/// Runs `seeds` estimates of `layers` on board `G` (`samples` each, search
/// budget `budget`), their searches stopping at the frontier of
/// `frontier_discs` and at the last layer of the census `census_dir` where
/// one is given, and compares each with the exact counts.
fn coverage<G: Keyed>(
    layers: &[u32],
    frontier_discs: u32,
    census_dir: Option<&Path>,
    seeds: std::ops::Range<u64>,
    samples: u64,
    budget: u64,
) -> Coverage {
    let exact = exact_positions(G::N);
    let layer =
        census_dir.map(|d| census_layer::<G>(d, frontier_discs, LayerHeld::Whole, 4 << 30).expect("a census layer"));
    let (frontier, used) = with_census_layer(Frontier::<G>::build(frontier_discs), layer);
    let sum: f64 = layers.iter().map(|k| exact[k]).sum();
    let mut c = Coverage::default();
    for seed in seeds {
        let cfg = EstimateConfig {
            layers: layers.to_vec(),
            samples: Some(samples),
            time: None,
            seed,
            limits: SearchLimits::depth_first(budget),
            frontier_discs,
            threads: 2,
            focus: Default::default(),
        };
        let e = estimate_on(&cfg, &frontier, used.clone(), Instant::now(), &EstimateLive::default());
        let [t, _, _] = totals(&e.layers);
        c.seeds += 1;
        c.total += u64::from(t.low <= sum && sum <= t.high);
        let (lo, hi) = previous_total(&e.layers);
        c.previous += u64::from(lo <= sum && sum <= hi);
        c.point_below += u64::from(t.estimate < sum);
        for l in &e.layers {
            let x = exact[&l.discs];
            c.layers += 1;
            c.layers_inside += u64::from(l.positions.low <= x && x <= l.positions.high);
            c.reachable += l.tally.reachable;
        }
        c.with_undecided += u64::from(e.layers.iter().any(|l| l.tally.undecided > 0));
    }
    c
}

/// The least coverage a sound 95% interval shows in `seeds` seeds but for
/// a chance of about one in a thousand (three binomial standard errors
/// below 95%).
fn floor(seeds: u64) -> f64 {
    0.95 - 3.0 * (0.95 * 0.05 / seeds as f64).sqrt()
}

fn check(c: &Coverage, what: &str) {
    c.report(what);
    let f = floor(c.seeds);
    assert!(
        Coverage::share(c.total, c.seeds) >= f,
        "{what}: the total's interval held the exact sum in {} of {} seeds (at least {f:.3} expected)",
        c.total,
        c.seeds
    );
    assert!(
        Coverage::share(c.layers_inside, c.layers) >= floor(c.layers),
        "{what}: the layers' intervals held the exact count in {} of {}",
        c.layers_inside,
        c.layers
    );
}

/// Runs `f` with a stored 6x6 census by discs to 16 (53 M classes, the
/// longest part of a quick test here: built once for each test), removed
/// afterwards.
fn with_census_6x6<T>(f: impl FnOnce(&Path) -> T) -> T {
    let dir = tempfile::tempdir().unwrap();
    f(&census::<B6>(dir.path(), 16))
}

/// 6x6 layers 17-20, the searches stopping at a census layer of 16 discs
/// (`census_dir`, as [`with_census_6x6`] gives), with the budget small
/// enough that many seeds leave samples undecided.
fn coverage_6x6(census_dir: &Path, seeds: u64, samples: u64, budget: u64) -> Coverage {
    let c = coverage::<B6>(&[17, 18, 19, 20], 14, Some(census_dir), 1..seeds + 1, samples, budget);
    assert!(c.reachable >= seeds, "too few reachable samples to measure anything: {c:?}");
    c
}

/// 8x8 by discs to 14: layers 5-14 from a frontier of 6 discs, the
/// deeper layers' searches cut short by a small budget.
fn coverage_8x8(seeds: u64) -> Coverage {
    let layers: Vec<u32> = (5..=14).collect();
    let c = coverage::<B8>(&layers, 6, None, 1..seeds + 1, 200_000, 10);
    assert!(c.with_undecided > 0 && c.reachable > 0, "nothing to measure: {c:?}");
    c
}

/// The plain intervals, then those by double sampling, over one census.
#[test]
fn the_6x6_intervals_hold_the_exact_counts() {
    with_census_6x6(|census_dir| {
        let c = coverage_6x6(census_dir, 60, 1_000_000, 1_000);
        assert!(c.with_undecided >= 30, "the budget left too few seeds with undecided samples: {c:?}");
        check(&c, "6x6 layers 17-20, census layer 16, budget 1000");
        double_sampling_6x6(census_dir, 60, 1_000_000, 30, 4);
    });
}

#[test]
fn the_8x8_intervals_hold_the_exact_counts() {
    check(&coverage_8x8(40), "8x8 layers 5-14, frontier 6, budget 10");
}

#[test]
#[ignore = "about 4 minutes on 2 cores; a figure docs/estimate.md gives"]
fn many_seeds_of_6x6_every_sample_decided() {
    let c = with_census_6x6(|dir| coverage_6x6(dir, 400, 1_000_000, 1_000_000));
    check(&c, "6x6 layers 17-20, census layer 16, every sample decided");
}

/// About five reachable samples a seed: where a normal interval loses
/// the skew of the layers' counts.
#[test]
#[ignore = "about 4 minutes on 2 cores; a figure docs/estimate.md gives"]
fn many_seeds_of_6x6_with_few_reachable_samples() {
    let c = with_census_6x6(|dir| coverage_6x6(dir, 1_000, 100_000, 1_000_000));
    check(&c, "6x6 layers 17-20, census layer 16, 100,000 samples a seed, every sample decided");
}

#[test]
#[ignore = "about 4 minutes on 2 cores; a figure docs/estimate.md gives"]
fn many_seeds_of_6x6_with_undecided_samples() {
    let c = with_census_6x6(|dir| coverage_6x6(dir, 400, 1_000_000, 1_000));
    check(&c, "6x6 layers 17-20, census layer 16, budget 1000");
}

#[test]
#[ignore = "about 2 minutes on 2 cores; a figure docs/estimate.md gives"]
fn many_seeds_of_8x8() {
    check(&coverage_8x8(200), "8x8 layers 5-14, frontier 6, budget 10");
}

/// What double sampling did over many seeds: seeds, seeds whose interval
/// held the exact sum, undecided samples of the first phase, of them in
/// the subsample, and the reachable ones the subsample found.
#[derive(Debug, Default)]
struct DoubleCoverage {
    seeds: u64,
    held: u64,
    undecided: u64,
    members: u64,
    hits: u64,
    /// Seeds whose usual interval (every undecided sample both ways) held
    /// the exact sum, and the two intervals' mean widths over the exact sum.
    usual_held: u64,
    width: f64,
    usual_width: f64,
}

/// 6x6 layers 17-20 as [`coverage_6x6`], a first phase at `budget`, then
/// the subsample of one in `one_in` of its undecided samples decided at a
/// budget of 10^6 (every sample decided, as the series above shows): the
/// positions by double sampling against the exact sum.
fn double_sampling_6x6(census_dir: &Path, seeds: u64, samples: u64, budget: u64, one_in: u64) -> DoubleCoverage {
    let exact = exact_positions(6);
    let layers = [17u32, 18, 19, 20];
    let layer = census_layer::<B6>(census_dir, 14, LayerHeld::Whole, 4 << 30).expect("a census layer");
    let (frontier, used) = with_census_layer(Frontier::<B6>::build(14), Some(layer));
    let sum: f64 = layers.iter().map(|k| exact[k]).sum();
    let mut c = DoubleCoverage::default();
    for seed in 1..seeds + 1 {
        let cfg = EstimateConfig {
            layers: layers.to_vec(),
            samples: Some(samples),
            time: None,
            seed,
            limits: SearchLimits::depth_first(budget),
            frontier_discs: 14,
            threads: 2,
            focus: Default::default(),
        };
        let e = estimate_on(&cfg, &frontier, used.clone(), Instant::now(), &EstimateLive::default());
        let first: Vec<(u32, othello_census::estimate::Tally)> = e.layers.iter().map(|l| (l.discs, l.tally)).collect();
        let mine: Vec<_> =
            e.undecided_samples.iter().filter(|u| in_subsample(seed, u.discs, u.index, one_in)).cloned().collect();
        let limits = SearchLimits { budget: 1_000_000, ..cfg.limits };
        let r = resolve::<B6>(&frontier, seed, limits, 0, 2, &first, &mine, &[], &[], &|_| {}, &|| false).unwrap();
        let mut out = Vec::new();
        for (l, now) in e.layers.iter().zip(&r.layers) {
            let left = r.still.iter().filter(|u| u.discs == l.discs).count() as u64;
            c.undecided += l.tally.undecided;
            c.members += mine.iter().filter(|u| u.discs == l.discs).count() as u64;
            c.hits += now.tally.reachable - l.tally.reachable;
            let part = PhasedLayer { one_in, first: l.tally, now: now.tally, left };
            out.push(double_sampled_positions(l.discs, l.candidates, &[part]).unwrap());
        }
        let t = double_sampled_total(&out);
        let [usual, _, _] = totals(&e.layers);
        c.seeds += 1;
        c.held += u64::from(t.low <= sum && sum <= t.high);
        c.usual_held += u64::from(usual.low <= sum && sum <= usual.high);
        c.width += (t.high - t.low) / sum;
        c.usual_width += (usual.high - usual.low) / sum;
    }
    eprintln!(
        "6x6 layers 17-20, {samples} samples a seed, first phase at budget {budget}, one in {one_in} of its undecided \
         samples decided: {} seeds, {} undecided ({} in the subsample, {} of them reachable); the interval by double \
         sampling held the exact sum in {:.1}% (mean width {:.1}% of it), the usual one in {:.1}% (width {:.1}%)",
        c.seeds,
        c.undecided,
        c.members,
        c.hits,
        100.0 * c.held as f64 / c.seeds as f64,
        100.0 * c.width / c.seeds as f64,
        100.0 * c.usual_held as f64 / c.seeds as f64,
        100.0 * c.usual_width / c.seeds as f64,
    );
    assert!(c.hits >= seeds / 2, "too few reachable samples in the subsamples to measure anything: {c:?}");
    assert!(
        c.held as f64 / c.seeds as f64 >= floor(c.seeds),
        "the interval by double sampling held the exact sum in {} of {} seeds",
        c.held,
        c.seeds
    );
    c
}

#[test]
#[ignore = "minutes on 2 cores; a figure docs/estimate.md gives"]
fn many_seeds_of_6x6_by_double_sampling() {
    with_census_6x6(|dir| double_sampling_6x6(dir, 400, 1_000_000, 30, 4));
}
