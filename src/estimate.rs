//! Estimates of the reachable positions, terminal positions and classes of
//! the layers (disc counts) that cannot be enumerated, by sampling with an
//! exact reachability test (`crate::search::reachable`).
//!
//! **Candidates.** Layer `k` is sampled uniformly from a candidate set
//! whose size is exact: the four centre squares and `k - 4` of the other
//! `N² - 4` squares occupied, each disc black or white, either side to
//! move: `C(N² - 4, k - 4) · 2^k · 2` candidates. Every reachable position
//! of `k` discs is one of them (the start occupies the centre and nothing
//! is ever removed).
//!
//! **Estimators.** With `n` samples of which `r` are reachable and `u`
//! undecided (their search ran out of budget), each figure has two
//! points: undecided as unreachable, `C · r / n`, and as reachable,
//! `C · (r + u) / n`; the point given is their middle, which assumes no
//! share of the undecided samples reachable (unbiased for a fixed `n`
//! where `u = 0`; the rounds below adapt `n`, an O(1/n) effect). Terminal
//! positions likewise; classes weigh each reachable sample by `1 /
//! orbit`. The 95% interval of a layer runs from the lower end of `r / n`
//! to the upper end of `(r + u) / n` of Wilson's interval with continuity
//! correction ([`wilson_corrected`]), scaled by `C`; the
//! class interval is the position interval times the sampled classes per
//! position. The total over layers combines the layers' Wilson intervals
//! by MOVER ([`totals`]). docs/estimate.md gives the measured coverage.
//!
//! **Allocation.** Samples are drawn in rounds of doubling size; each
//! round's work is shared among the layers as Neyman's allocation does
//! (`C · σ / √cost` samples: `σ` from the proportion seen so far, the cost
//! the mean number of positions the search visited per sample), with a
//! floor of the work for every layer (`allocate`). All of it depends only
//! on the seed and the samples drawn, never on timing or threads: sample
//! `i` of layer `k` is drawn from its own generator seeded by `(seed, k,
//! i)`, and only a run's last round is ever cut short (to the samples
//! asked for, or to what a time limit leaves), so a run is reproduced
//! exactly by the same seed and sample count.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::board::{Color, Position, Status};
use crate::key::{Keyed, PackedKey, canonical_and_orbit};
use crate::search::game_encoding::Solver;
use crate::search::reachable::{Frontier, LayerHeld, Search, Searches, Stage, centre, joined_to_centre};
use crate::search::sorted_keys::SortedKeys;

/// The number of candidates of layer `discs` on an `n x n` board (zero
/// outside 4..=n²): `C(n² - 4, discs - 4) · 2^discs · 2`.
pub fn candidates(n: u32, discs: u32) -> u128 {
    if discs < 4 || discs > n * n {
        return 0;
    }
    binomial(n * n - 4, discs - 4) << (discs + 1)
}

fn binomial(n: u32, k: u32) -> u128 {
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // exact at each step: c · (n - i) is divisible by i + 1
        c = c * (n - i) as u128 / (i + 1) as u128;
    }
    c
}

/// SplitMix64 (Steele, Lea and Flood): a small, fast generator whose
/// streams from distinct seeds are independent enough for sampling.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator for sample `index` of layer `discs` under `seed`.
    pub fn for_sample(seed: u64, discs: u32, index: u64) -> SplitMix {
        let mut g = SplitMix(seed);
        let a = g.next_u64() ^ (u64::from(discs) << 56);
        let mut h = SplitMix(a ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        h.next_u64();
        h
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer below `bound` (> 0), without bias (Lemire's
    /// multiply and reject).
    pub fn below(&mut self, bound: u64) -> u64 {
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        // the biased zone lies below `2^64 mod bound`, itself below
        // `bound`: the division that finds it (most of a draw's time) is
        // needed only when the low part is below `bound`, and the same
        // words are accepted and rejected as when it is always made
        if (m as u64) < bound {
            let zone = bound.wrapping_neg() % bound;
            while (m as u64) < zone {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as u64
    }
}

/// A uniform candidate of layer `discs` (black discs, white discs, Black
/// to move).
pub fn draw<G: Keyed>(discs: u32, rng: &mut SplitMix) -> (u64, u64, bool) {
    let c = centre(G::N);
    let mut others = [0u8; 64];
    let mut len = 0;
    for sq in 0..G::SQUARES {
        if c >> sq & 1 == 0 {
            others[len] = sq as u8;
            len += 1;
        }
    }
    // the first discs - 4 of a partial Fisher-Yates shuffle
    let mut occ = c;
    for i in 0..(discs - 4) as usize {
        let j = i + rng.below((len - i) as u64) as usize;
        others.swap(i, j);
        occ |= 1 << others[i];
    }
    let colours = rng.next_u64();
    let (mut black, mut bit) = (0u64, 0);
    let mut rest = occ;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        if colours >> bit & 1 == 1 {
            black |= 1 << sq;
        }
        bit += 1;
    }
    // the side from a bit no disc used (a fresh word when all 64 did)
    let black_to_move = if discs < 64 { colours >> 63 & 1 == 1 } else { rng.next_u64() & 1 == 1 };
    (black, occ & !black, black_to_move)
}

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
const Z95: f64 = 1.959_963_984_540_054;

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
    if n == 0 {
        return (0.0, 1.0);
    }
    let (xf, nf) = (x as f64, n as f64);
    let p = xf / nf;
    let z2 = Z95 * Z95;
    let denominator = 2.0 * (nf + z2);
    let lo = if x == 0 {
        0.0
    } else {
        let root = (z2 - 2.0 - 1.0 / nf + 4.0 * p * (nf * (1.0 - p) + 1.0)).max(0.0).sqrt();
        ((2.0 * nf * p + z2 - 1.0 - Z95 * root) / denominator).max(0.0)
    };
    let hi = if x == n {
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
    fn classes_per_position(t: &Tally) -> f64 {
        let weight = t.by_orbit[0] as f64 + t.by_orbit[1] as f64 / 2.0 + t.by_orbit[2] as f64 / 4.0;
        if t.reachable == 0 { 0.25 } else { weight / t.reachable as f64 }
    }

    /// The classes the samples stand for, in samples: the reachable ones'
    /// `1 / orbit`, and that plus the undecided ones (and those left
    /// undecided as not terminal) at the sampled classes per position.
    fn class_weights(t: &Tally) -> (f64, f64) {
        let weight = t.by_orbit[0] as f64 + t.by_orbit[1] as f64 / 2.0 + t.by_orbit[2] as f64 / 4.0;
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

    /// The figure whose variance the sampling allocates for.
    fn figure(self) -> Figure {
        match self {
            Focus::All => Figure::Positions,
            Focus::Terminal => Figure::TerminalPositions,
        }
    }
}

/// Settings of an estimate.
#[derive(Clone, Debug)]
pub struct EstimateConfig {
    /// The layers (disc counts) to estimate.
    pub layers: Vec<u32>,
    /// Stop after this many samples in all (rounds truncated to fit).
    pub samples: Option<u64>,
    /// Or stop when this time is spent (whole rounds, the last one cut to
    /// what the time allows).
    pub time: Option<Duration>,
    /// The seed of every sample.
    pub seed: u64,
    /// Positions a search may visit before it gives up (undecided).
    pub budget: u64,
    /// The frontier: every reachable position of up to this many discs is
    /// enumerated first, and the backward searches stop there.
    pub frontier_discs: u32,
    /// Threads.
    pub threads: usize,
    /// The flip-history relaxation's conflict budget (0: not tried;
    /// [`crate::search::reachable::RELAXATION_CONFLICTS`] by default).
    pub relaxation_conflicts: u64,
    /// The exact game encoding's conflict budget for a sample the search
    /// leaves (0: not tried), and its solver.
    pub exact_conflicts: u64,
    pub exact_solver: Solver,
    /// Which samples are decided.
    pub focus: Focus,
}

/// Reachable positions of one layer above the frontier, read from a
/// census of it ([`census_layer`]): all of them, or those that need an odd
/// number of passes; the searches also stop at them.
#[derive(Clone, Debug)]
pub struct CensusLayer<G: Keyed> {
    /// Their disc count.
    pub discs: u32,
    /// Which positions of the layer they are.
    pub held: LayerHeld,
    /// Their canonical dense keys, in the census's order.
    pub keys: Vec<G::Key>,
    /// The census work directory they were read from.
    pub source: std::path::PathBuf,
    /// Classes of the layer read.
    pub layer_classes: u64,
    /// Seconds its reading took (an estimate's `--time` and elapsed time
    /// count them).
    pub read_seconds: f64,
}

/// Errors of [`census_layer`].
#[derive(Debug, thiserror::Error)]
pub enum CensusLayerError {
    #[error(transparent)]
    Layers(#[from] crate::engine::layers::LayersError),
    #[error("{}: {detail}", path.display())]
    Unsuitable { path: std::path::PathBuf, detail: String },
}

/// Reads the positions of the layer that a finished layered census by
/// discs of board `G` holds in `dir` (a run to K discs without
/// `--no-store-last`) that `held` says; the layer must lie above the
/// frontier of `frontier_discs`, and its keys must fit in `memory` bytes.
/// [`CensusLayerSource::open`] then [`CensusLayerSource::read`].
pub fn census_layer<G: Keyed>(
    dir: &std::path::Path,
    frontier_discs: u32,
    held: LayerHeld,
    memory: u64,
) -> Result<CensusLayer<G>, CensusLayerError> {
    CensusLayerSource::<G>::open(dir, frontier_discs, held, memory)?.read()
}

/// A census whose last layer can serve as a census layer, checked from its
/// manifest, not read yet.
pub struct CensusLayerSource<G: Keyed> {
    dir: std::path::PathBuf,
    held: LayerHeld,
    memory: u64,
    stored: crate::engine::layers::inspect::StoredLayer,
    board: std::marker::PhantomData<G>,
}

impl<G: Keyed> CensusLayerSource<G> {
    /// Checks the manifest of the census in `dir`: a census of another
    /// board or layering, of a layer not above the frontier of
    /// `frontier_discs`, or (`held` whole) of more classes than `memory`
    /// bytes hold, is refused before any part is read.
    pub fn open(
        dir: &std::path::Path,
        frontier_discs: u32,
        held: LayerHeld,
        memory: u64,
    ) -> Result<CensusLayerSource<G>, CensusLayerError> {
        let stored = crate::engine::layers::inspect::stored_layer(dir)?;
        let source =
            CensusLayerSource { dir: dir.to_path_buf(), held, memory, stored, board: std::marker::PhantomData };
        let stored = &source.stored;
        if stored.size != G::N {
            return Err(source.unsuitable(format!("a census of the {0}x{0} board, not {1}x{1}", stored.size, G::N)));
        }
        if stored.by != crate::census::LayerBy::Discs {
            return Err(source.unsuitable("a census by ply; a census layer comes from a census by discs".into()));
        }
        if stored.layer <= frontier_discs {
            return Err(source.unsuitable(format!(
                "its layer holds {} discs, not above the frontier ({frontier_discs} discs); run the census further",
                stored.layer
            )));
        }
        if held == LayerHeld::Whole && stored.classes > source.fits() {
            return Err(source.too_large(stored.classes));
        }
        Ok(source)
    }

    /// The disc count and the classes of the layer.
    pub fn layer(&self) -> (u32, u64) {
        (self.stored.layer, self.stored.classes)
    }

    fn unsuitable(&self, detail: String) -> CensusLayerError {
        CensusLayerError::Unsuitable { path: self.dir.clone(), detail }
    }

    /// Keys that fit in the memory allowed, with their index.
    fn fits(&self) -> u64 {
        (self.memory as f64 / SortedKeys::<G::Key>::bytes_per_key()) as u64
    }

    fn too_large(&self, classes: u64) -> CensusLayerError {
        let key_bytes = SortedKeys::<G::Key>::bytes_per_key();
        self.unsuitable(format!(
            "{classes} classes of {} discs need {} in memory ({key_bytes} bytes a class), more than the {} \
             left for them beside the searches; use --odd-pass-census (its odd-pass positions only), a census to \
             fewer discs, or fewer --threads or a smaller --budget where the searches take much",
            self.stored.layer,
            crate::text::human_bytes(classes as f64 * key_bytes),
            crate::text::human_bytes(self.memory as f64),
        ))
    }

    /// Reads the positions `held` says, each part checked (identity,
    /// checksums, record count) and each key unpacked to a position of the
    /// layer's disc count; odd-pass positions beyond the memory allowed are
    /// refused as soon as they exceed it.
    pub fn read(self) -> Result<CensusLayer<G>, CensusLayerError> {
        let started = Instant::now();
        let (layer, held, fits) = (self.stored.layer, self.held, self.fits());
        let mut keys = Vec::new();
        if held == LayerHeld::Whole {
            keys.reserve_exact(self.stored.classes as usize);
        }
        let (mut bad_key, mut over) = (None, false);
        let mut unpacker = crate::key::dense::Unpacker::<G>::new();
        crate::engine::layers::inspect::for_each_class(
            &self.dir,
            &mut |k| match unpacker.unpack(G::Key::from_u128(k)) {
                Ok(p) if p.discs() != layer => bad_key = Some(k),
                Ok(p) if held.answers(&p) => {
                    if keys.len() as u64 >= fits {
                        over = true;
                    } else {
                        keys.push(G::Key::from_u128(k));
                    }
                }
                Ok(_) => {}
                Err(_) => bad_key = Some(k),
            },
        )?;
        if let Some(k) = bad_key {
            return Err(self.unsuitable(format!("holds key {k}, which is no {0}x{0} position of {layer} discs", G::N)));
        }
        if over {
            return Err(self.too_large(fits + 1));
        }
        Ok(CensusLayer {
            discs: layer,
            held,
            keys,
            source: self.dir,
            layer_classes: self.stored.classes,
            read_seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The memory a census layer may take beside `reserved` bytes (the
/// searches and the frontier, [`search_memory`]): three quarters of what
/// the machine has available, and never more than what `reserved` and a
/// sixteenth for the rest leave of it; 1 GiB where that cannot be read.
pub fn census_layer_memory(reserved: u64) -> u64 {
    crate::engine::memory::available_memory()
        .map_or(1 << 30, |m| (m / 4 * 3).min((m - m / 16).saturating_sub(reserved)))
}

/// The most memory an estimate's frontier of `frontier_discs` and its
/// `threads` searches of `budget` positions hold at once (without a
/// census layer), from [`Frontier::bytes_needed`] and
/// [`Search::peak_bytes`].
pub fn search_memory<G: Keyed>(frontier_discs: u32, budget: u64, threads: usize) -> u64 {
    // saturating: a sum that wrapped let an impossible budget through
    (Frontier::<G>::bytes_needed(frontier_discs) as u64)
        .saturating_add(Search::<G>::peak_bytes(budget).saturating_mul(threads as u64))
}

/// Searches that would hold more memory than is free: each of `threads`
/// searches up to `one` bytes, `need` with the frontier, beside
/// `available`; `fits` is the largest budget whose searches fit on as
/// many threads.
#[derive(Debug, thiserror::Error)]
#[error(
    "--budget {budget} on {threads} thread(s): each search may hold up to {} (a class for each position it \
     refutes), {} with the frontier, more than this machine has free ({}); give {}a --budget of at most {fits} \
     on {threads} thread(s)",
    crate::text::human_bytes(*one as f64),
    crate::text::human_bytes(*need as f64),
    crate::text::human_bytes(*available as f64),
    if *threads > 1 { "fewer --threads or " } else { "" }
)]
pub struct SearchesTooLarge {
    pub budget: u64,
    pub threads: usize,
    pub one: u64,
    pub need: u64,
    pub available: u64,
    pub fits: u64,
}

/// The memory an estimate's frontier and its `threads` searches of
/// `budget` positions hold at once ([`search_memory`]), when it fits in
/// four fifths of `available` bytes (none: unknown, taken to fit).
pub fn searches_fit<G: Keyed>(
    frontier_discs: u32,
    budget: u64,
    threads: usize,
    available: Option<u64>,
) -> Result<u64, SearchesTooLarge> {
    let need = search_memory::<G>(frontier_discs, budget, threads);
    let Some(available) = available else { return Ok(need) };
    let allowed = available / 5 * 4;
    if need <= allowed {
        return Ok(need);
    }
    let one = Search::<G>::peak_bytes(budget);
    let per_thread =
        allowed.saturating_sub(need.saturating_sub(one.saturating_mul(threads as u64))) / threads.max(1) as u64;
    // a search's memory steps up where its table doubles, at powers of two
    let mut fits = 1u64;
    while Search::<G>::peak_bytes(fits * 2) <= per_thread {
        fits *= 2;
    }
    Err(SearchesTooLarge { budget, threads, one, need, available, fits })
}

/// Counters a progress display may read while it runs.
#[derive(Debug, Default)]
pub struct EstimateLive {
    /// Samples decided so far.
    pub samples: AtomicU64,
    /// Samples planned in all (0 while the frontier is built; grows by
    /// round under a time limit).
    pub planned: AtomicU64,
    /// Reachable samples so far.
    pub reachable: AtomicU64,
    /// Set to stop at the next piece of a round (the figures are then
    /// those of the samples decided).
    pub stop: AtomicBool,
}

/// An estimate's result.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    /// Board side.
    pub n: u32,
    /// The generation of the search's conditions
    /// ([`crate::search::reachable::SEARCH_GENERATION`]).
    pub search_generation: u32,
    /// Per layer, in the order asked.
    pub layers: Vec<LayerEstimate>,
    /// The undecided samples, layer by layer in the order asked, indices
    /// ascending: for a longer search, or a stronger tool.
    pub undecided_samples: Vec<UndecidedSample>,
    /// The positions of all the layers asked, with a 95% interval.
    pub total_positions: Interval,
    /// Terminal positions of all the layers asked.
    pub total_terminal_positions: Interval,
    /// Classes of all the layers asked.
    pub total_classes: Interval,
    /// Samples drawn.
    pub samples: u64,
    /// Rounds run.
    pub rounds: u32,
    /// The seed.
    pub seed: u64,
    /// The search budget per sample.
    pub budget: u64,
    /// The flip-history relaxation's conflict budget (0: not tried).
    pub relaxation_conflicts: u64,
    /// The exact game encoding's conflict budget (0: not tried), and its
    /// solver.
    pub exact_conflicts: u64,
    pub exact_solver: Solver,
    /// Which samples were decided.
    pub focus: Focus,
    /// Discs of the frontier, and the classes it held.
    pub frontier_discs: u32,
    /// Classes of the frontier.
    pub frontier_classes: u64,
    /// Seconds to build the frontier.
    pub frontier_seconds: f64,
    /// The census layer the searches also stopped at: its disc count,
    /// what it held, the classes it held, and the census it was read from.
    pub census_layer: Option<CensusLayerUsed>,
    /// Seconds in all.
    pub elapsed_seconds: f64,
    /// Threads.
    pub threads: usize,
    /// Stopped by [`EstimateLive::stop`] inside a round.
    pub interrupted: bool,
    /// Where this estimate is an earlier one's undecided samples decided
    /// again at a larger budget ([`resolve`]): what it came from.
    pub resolved: Option<Resolved>,
}

/// What a resolved estimate came from ([`resolve`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Resolved {
    /// The budget of the run whose samples these are.
    pub from_budget: u64,
    /// That run's commit.
    pub from_commit: String,
    /// Its undecided samples, searched again.
    pub retried: u64,
    /// Of them, decided now.
    pub decided: u64,
    /// Seconds the searches again took (in `elapsed_seconds` too).
    pub seconds: f64,
}

/// A sample whose search ran out of budget.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndecidedSample {
    /// Its layer.
    pub discs: u32,
    /// Its index in the layer ([`sample_position`] draws it again).
    pub index: u64,
    /// The position on one line ([`Position::line`]), as `reachable
    /// --position` reads it.
    pub position: String,
}

/// What an estimate says of the census layer its searches used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CensusLayerUsed {
    /// Its disc count.
    pub discs: u32,
    /// Which of its positions the searches answered from it.
    #[serde(serialize_with = "held_name")]
    pub held: LayerHeld,
    /// Classes held.
    pub classes: u64,
    /// The census work directory.
    pub source: String,
    /// Seconds its reading took (in `elapsed_seconds` and
    /// `frontier_seconds`); absent from documents written before.
    #[serde(default)]
    pub read_seconds: f64,
}

fn held_name<S: serde::Serializer>(held: &LayerHeld, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(held.name())
}

/// Samples of the first round (shared by the layers): few, so that a run
/// under a time limit learns the cost of every layer's searches before it
/// commits to much work (a first round of 4,096 samples of one costly
/// 6x6 layer took 54 minutes of a 35-minute run).
const FIRST_ROUND: u64 = 64;

/// Decides samples `from..to` of layer `discs`.
/// Stops early (at a sample) when `stop` is set.
fn sample_range<G: Keyed>(
    searches: &Searches<'_, G>,
    cfg: &EstimateConfig,
    stop: &AtomicBool,
    discs: u32,
    from: u64,
    to: u64,
) -> (Tally, Vec<u64>) {
    const CHUNK: u64 = 64;
    let chunks = (to - from).div_ceil(CHUNK);
    (0..chunks)
        .into_par_iter()
        .map_init(
            || searches.take(),
            |search, c| {
                let (mut t, mut undecided) = (Tally::default(), Vec::new());
                for i in from + c * CHUNK..(from + (c + 1) * CHUNK).min(to) {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let one = one_sample(search, cfg.seed, discs, i, cfg.focus);
                    if one.undecided > 0 {
                        undecided.push(i);
                    }
                    t = t.plus(one);
                }
                (t, undecided)
            },
        )
        .reduce(
            || (Tally::default(), Vec::new()),
            |(a, mut ua), (b, ub)| {
                ua.extend(ub);
                (a.plus(b), ua)
            },
        )
}

/// Sample `index` of layer `discs` under `seed`: a candidate drawn by its
/// own generator, so any sample can be drawn again on its own.
pub fn sample_position<G: Keyed>(seed: u64, discs: u32, index: u64) -> Position<G> {
    let mut rng = SplitMix::for_sample(seed, discs, index);
    let (black, white, black_to_move) = draw::<G>(discs, &mut rng);
    let side = if black_to_move { Color::Black } else { Color::White };
    Position::<G>::from_colors_unchecked(black, white, side)
}

fn one_sample<G: Keyed>(search: &mut Search<'_, G>, seed: u64, discs: u32, index: u64, focus: Focus) -> Tally {
    let p = sample_position::<G>(seed, discs, index);
    let (black, white) = (p.black().0, p.white().0);
    let mut t = Tally { samples: 1, ..Tally::default() };
    if !joined_to_centre::<G>(black | white) {
        t.unreachable = 1;
        return t;
    }
    t.joined = 1;
    let terminal = p.status() == Status::Terminal;
    if focus == Focus::Terminal && !terminal {
        t.not_terminal = 1;
        return t;
    }
    match search.is_reachable(&p) {
        Some(true) => {
            t.reachable = 1;
            t.exact_reachable = u64::from(search.decided_by() == Stage::Exact);
            t.terminal = terminal as u64;
            let (_, orbit) = canonical_and_orbit(&p);
            t.by_orbit[match orbit {
                1 => 0,
                2 => 1,
                _ => 2,
            }] = 1;
        }
        Some(false) => {
            t.unreachable = 1;
            t.relaxed = u64::from(search.decided_by() == Stage::FlipHistory);
            t.exact_unreachable = u64::from(search.decided_by() == Stage::Exact);
        }
        None => {
            t.undecided = 1;
            t.undecided_terminal = terminal as u64;
        }
    }
    t.nodes = search.nodes();
    t
}

/// The cost of a sample beyond the positions its search visits (drawing
/// it, the cheap conditions), in positions: about 1.5 µs against 0.3 to
/// 0.5 µs a position on 6x6 (layer 21, where most samples end at the
/// conditions).
const SAMPLE_COST: f64 = 4.0;

/// The share of a round's work spread evenly over its layers, whatever
/// Neyman's allocation says: every layer keeps being sampled.
const FLOOR_SHARE: f64 = 0.125;

/// The mean cost of a sample of each layer so far, in positions: those
/// its search visited plus [`SAMPLE_COST`] (with one more, free sample
/// counted, so a layer not yet sampled costs `SAMPLE_COST`).
fn costs(tallies: &[Tally]) -> Vec<f64> {
    tallies
        .iter()
        .map(|t| {
            let n = t.samples as f64;
            (t.nodes as f64 + SAMPLE_COST * (n + 1.0)) / (n + 1.0)
        })
        .collect()
}

/// The work of the samples drawn so far, in the units of [`costs`].
fn work_done(tallies: &[Tally]) -> f64 {
    tallies.iter().map(|t| t.nodes as f64 + SAMPLE_COST * t.samples as f64).sum()
}

/// Shares `round` samples among the layers by Neyman's allocation (with
/// costs), every layer getting at least a floor of the round's work.
///
/// The work of layer `i` is its samples times its mean cost `c_i`
/// (positions searched per sample, plus [`SAMPLE_COST`]). Neyman gives it
/// `n_i ∝ C_i σ_i / √c_i` samples (`σ_i` that of `figure`'s proportion), so the share `w_i ∝ n_i c_i` of the
/// work; the round gives it `FLOOR_SHARE / k + (1 - FLOOR_SHARE) w_i` of
/// its work, so a layer whose searches are long takes no more than its
/// variance earns (a floor counted in samples gave the four costliest
/// 6x6 layers three quarters of the work).
fn allocate(cands: &[u128], tallies: &[Tally], round: u64, figure: Figure) -> Vec<u64> {
    let k = cands.len();
    let costs = costs(tallies);
    let neyman: Vec<f64> = cands
        .iter()
        .zip(tallies)
        .zip(&costs)
        .map(|((&c, t), &cost)| {
            let n = t.samples as f64;
            let hits = match figure {
                Figure::TerminalPositions => t.terminal + t.undecided_terminal,
                _ => t.reachable + t.undecided,
            };
            let p = (hits as f64 + 1.0) / (n + 2.0);
            c as f64 * (p * (1.0 - p)).sqrt() / cost.sqrt()
        })
        .collect();
    let neyman_work: f64 = neyman.iter().zip(&costs).map(|(n, c)| n * c).sum();
    // samples per layer, up to a common factor: its share of the work
    // over its cost
    let weights: Vec<f64> = neyman
        .iter()
        .zip(&costs)
        .map(|(&n, &c)| {
            let work = if neyman_work > 0.0 { n * c / neyman_work } else { 1.0 / k as f64 };
            (FLOOR_SHARE / k as f64 + (1.0 - FLOOR_SHARE) * work) / c
        })
        .collect();
    let sum: f64 = weights.iter().sum();
    // never more than `round` in all; one each first when the round has
    // that many (the first always has: it is at least one a layer, or all
    // the samples), else a layer may sit a short round out
    let one = u64::from(round >= k as u64);
    let spare = round - one * k as u64;
    let mut out: Vec<u64> = weights.iter().map(|w| one + (spare as f64 * w / sum).floor() as u64).collect();
    // what rounding left goes to the first layers
    let mut left = round.saturating_sub(out.iter().sum());
    for o in out.iter_mut() {
        if left == 0 {
            break;
        }
        *o += 1;
        left -= 1;
    }
    out
}

/// The size of the round after `done` samples: `FIRST_ROUND` (or one a
/// layer, when there are more layers), then as
/// many as all rounds before (doubling). Only the last round of a run is
/// ever smaller (cut to the samples asked for, or to the time left), so a
/// run of `n` samples, whether `n` was asked for or is what a time limit
/// allowed, draws the same rounds: `--samples n` reproduces it.
fn round_size(done: u64, layers: usize) -> u64 {
    done.max(FIRST_ROUND.max(layers as u64))
}

/// `frontier` with the census layer `layer` where one is given, and what
/// the estimate's document says of it.
pub fn with_census_layer<G: Keyed>(
    frontier: Frontier<G>,
    layer: Option<CensusLayer<G>>,
) -> (Frontier<G>, Option<CensusLayerUsed>) {
    match layer {
        None => (frontier, None),
        Some(l) => {
            let used = CensusLayerUsed {
                discs: l.discs,
                held: l.held,
                classes: l.keys.len() as u64,
                source: l.source.display().to_string(),
                read_seconds: l.read_seconds,
            };
            (frontier.with_census_layer(l.discs, l.held, l.keys), Some(used))
        }
    }
}

/// Runs an estimate on board `G`, its searches also stopping at `layer`
/// where one is given ([`census_layer`] reads it).
pub fn estimate<G: Keyed>(cfg: &EstimateConfig, layer: Option<CensusLayer<G>>, live: &EstimateLive) -> Estimate {
    // the time limit and the elapsed time count the census layer's reading
    let read = Duration::from_secs_f64(layer.as_ref().map_or(0.0, |l| l.read_seconds));
    let started = Instant::now().checked_sub(read).unwrap_or_else(Instant::now);
    let (frontier, used) = with_census_layer(Frontier::<G>::build(cfg.frontier_discs), layer);
    estimate_on(cfg, &frontier, used, started, live)
}

/// Runs an estimate on board `G` with a frontier built already (and the
/// census layer it holds, `used`), its clock started at `started`: many
/// estimates can share one frontier (the coverage tests run hundreds of
/// seeds over one census layer). `cfg.frontier_discs` is not read.
pub fn estimate_on<G: Keyed>(
    cfg: &EstimateConfig,
    frontier: &Frontier<G>,
    used: Option<CensusLayerUsed>,
    started: Instant,
    live: &EstimateLive,
) -> Estimate {
    let frontier_seconds = started.elapsed().as_secs_f64();
    let cands: Vec<u128> = cfg.layers.iter().map(|&k| candidates(G::N, k)).collect();
    let mut tallies = vec![Tally::default(); cfg.layers.len()];
    let mut undecided = vec![Vec::new(); cfg.layers.len()];
    let mut done = 0u64;
    let mut rounds = 0;
    let mut interrupted = false;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads.max(1)).build().expect("thread pool");
    let searches = Searches::new(frontier, cfg.budget)
        .with_relaxation(cfg.relaxation_conflicts)
        .with_exact(cfg.exact_conflicts, cfg.exact_solver);
    if let Some(s) = cfg.samples {
        live.planned.store(s, Ordering::Relaxed);
    }
    while let Some(round) = next_round(cfg, live, started, frontier_seconds, done, &cands, &tallies) {
        let before = done;
        interrupted =
            pool.install(|| sample_round(&searches, cfg, live, &round.shares, &mut tallies, &mut undecided, &mut done));
        rounds += 1;
        if interrupted {
            break;
        }
        debug_assert_eq!(done, before + round.shares.iter().sum::<u64>());
        if round.last {
            break;
        }
    }
    let layers: Vec<LayerEstimate> =
        cfg.layers.iter().zip(&cands).zip(&tallies).map(|((&k, &c), &t)| LayerEstimate::new(k, c, t)).collect();
    let [total_positions, total_terminal_positions, total_classes] = totals(&layers);
    Estimate {
        n: G::N,
        search_generation: crate::search::reachable::SEARCH_GENERATION,
        total_positions,
        total_terminal_positions,
        total_classes,
        layers,
        undecided_samples: cfg
            .layers
            .iter()
            .zip(undecided)
            .flat_map(|(&discs, u)| {
                u.into_iter().map(move |index| UndecidedSample {
                    discs,
                    index,
                    position: sample_position::<G>(cfg.seed, discs, index).line(),
                })
            })
            .collect(),
        samples: done,
        rounds,
        seed: cfg.seed,
        budget: cfg.budget,
        relaxation_conflicts: cfg.relaxation_conflicts,
        exact_conflicts: cfg.exact_conflicts,
        exact_solver: cfg.exact_solver,
        focus: cfg.focus,
        frontier_discs: frontier.discs(),
        frontier_classes: frontier.classes() as u64,
        frontier_seconds,
        census_layer: used,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        threads: cfg.threads,
        interrupted,
        resolved: None,
    }
}

/// The limits of one sample's searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    /// Positions a backward search may visit.
    pub budget: u64,
    /// Conflicts the flip-history relaxation may spend (0: not tried).
    pub relaxation_conflicts: u64,
    /// Conflicts the exact game encoding may spend where the search runs
    /// out (0: not tried), and its solver.
    pub exact_conflicts: u64,
    pub exact_solver: Solver,
}

/// What [`resolve`] makes: the layers' estimates with the samples decided
/// again, and the samples still undecided.
pub type ResolvedLayers = (Vec<LayerEstimate>, Vec<UndecidedSample>);

/// The positions a document lists as its undecided samples are those its
/// seed draws, of layers it has (see [`resolve`]).
pub fn check_undecided<G: Keyed>(
    seed: u64,
    layers: &[(u32, Tally)],
    undecided: &[UndecidedSample],
) -> Result<(), String> {
    for u in undecided {
        if !layers.iter().any(|(k, _)| *k == u.discs) {
            return Err(format!("an undecided sample of layer {}, which the document does not have", u.discs));
        }
        if sample_position::<G>(seed, u.discs, u.index).line() != u.position {
            return Err(format!(
                "sample {} of layer {} is not the position listed: the list is not of the document's seed",
                u.index, u.discs
            ));
        }
    }
    Ok(())
}

/// The samples a finished estimate left undecided (`undecided`, listed in
/// its document), decided again by searches of `limits.budget` positions (the
/// same frontier and census layer, a larger budget): the layers' tallies
/// `layers` with those samples' verdicts replaced, and the samples still
/// undecided. A sample decided at the smaller budget would be decided
/// alike at this one (a search is deterministic, and its verdicts exact),
/// so the result is what the same rounds would have found at `budget`
/// (not what a run at `budget` finds: its rounds, shared by cost, differ).
/// Refused when a listed position is not the sample its seed draws.
pub fn resolve<G: Keyed>(
    frontier: &Frontier<G>,
    seed: u64,
    limits: SearchLimits,
    threads: usize,
    layers: &[(u32, Tally)],
    undecided: &[UndecidedSample],
    stop: &AtomicBool,
) -> Result<Option<ResolvedLayers>, String> {
    check_undecided::<G>(seed, layers, undecided)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("thread pool");
    let searches = Searches::new(frontier, limits.budget)
        .with_relaxation(limits.relaxation_conflicts)
        .with_exact(limits.exact_conflicts, limits.exact_solver);
    // a sample a task: a handful of samples, each a long search
    let again: Vec<Option<(Tally, bool)>> = pool.install(|| {
        undecided
            .par_iter()
            .with_max_len(1)
            .map_init(
                || searches.take(),
                |search, u| {
                    if stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    let terminal = sample_position::<G>(seed, u.discs, u.index).status() == Status::Terminal;
                    // an undecided sample was searched, so deciding it
                    // again needs no focus
                    Some((one_sample(search, seed, u.discs, u.index, Focus::All), terminal))
                },
            )
            .collect()
    });
    if again.iter().any(Option::is_none) {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut still = Vec::new();
    for &(k, old) in layers {
        let mut t = old;
        for (u, a) in undecided.iter().zip(&again) {
            let (a, terminal) = a.expect("all searched");
            if u.discs != k {
                continue;
            }
            if t.undecided == 0 || (terminal && t.undecided_terminal == 0) {
                return Err(format!("layer {k} lists more undecided samples than its tally counts"));
            }
            // the sample leaves the undecided, and enters where its
            // search now puts it (drawn and joined already counted)
            t.undecided -= 1;
            t.undecided_terminal -= terminal as u64;
            t = t.plus(Tally { samples: 0, joined: 0, ..a });
            if a.undecided > 0 {
                still.push(u.clone());
            }
        }
        out.push(LayerEstimate::new(k, candidates(G::N, k), t));
    }
    Ok(Some((out, still)))
}

/// A round to draw: the samples of each layer, and whether it is the
/// run's last (cut short).
struct Round {
    shares: Vec<u64>,
    last: bool,
}

/// The next round, `done` samples drawn so far: [`round_size`], shared by
/// [`allocate`]; cut to the samples asked for, or, under a time limit, to
/// the work the time left allows at the rate so far (seconds per unit of
/// work, the work of a round predicted from each layer's mean cost; the
/// frontier's build and the census layer's reading are not counted in the
/// rate, but in the time spent). A cut round is the last. `None` when the
/// run is over.
fn next_round(
    cfg: &EstimateConfig,
    live: &EstimateLive,
    started: Instant,
    frontier_seconds: f64,
    done: u64,
    cands: &[u128],
    tallies: &[Tally],
) -> Option<Round> {
    let mut size = round_size(done, cands.len());
    let mut last = false;
    if let Some(s) = cfg.samples {
        let left = s.checked_sub(done).filter(|&l| l > 0)?;
        if left <= size {
            (size, last) = (left, true);
        }
    }
    let mut shares = allocate(cands, tallies, size, cfg.focus.figure());
    if let Some(limit) = cfg.time {
        let elapsed = started.elapsed().as_secs_f64();
        let left = limit.as_secs_f64() - elapsed;
        if left <= 0.0 {
            return None;
        }
        if done > 0 {
            let per_work = (elapsed - frontier_seconds).max(1e-9) / work_done(tallies).max(1.0);
            let work: f64 = shares.iter().zip(costs(tallies)).map(|(&n, c)| n as f64 * c).sum();
            let predicted = work * per_work;
            if predicted > left {
                size = (size as f64 * left / predicted) as u64;
                if size == 0 {
                    return None;
                }
                shares = allocate(cands, tallies, size, cfg.focus.figure());
                last = true;
            }
        }
        live.planned.store(done + size, Ordering::Relaxed);
    }
    Some(Round { shares, last })
}

/// Draws one round: `shares[i]` more samples of layer `i`, added to
/// `tallies[i]` and to `done`. Returns whether it was interrupted.
fn sample_round<G: Keyed>(
    searches: &Searches<'_, G>,
    cfg: &EstimateConfig,
    live: &EstimateLive,
    shares: &[u64],
    tallies: &mut [Tally],
    undecided: &mut [Vec<u64>],
    done: &mut u64,
) -> bool {
    for (i, &share) in shares.iter().enumerate() {
        let from = tallies[i].samples;
        // in pieces, for the progress display and a prompt stop
        let mut at = from;
        while at < from + share {
            if live.stop.load(Ordering::Relaxed) {
                return true;
            }
            let to = (at + (1 << 11)).min(from + share);
            let (t, mut u) = sample_range(searches, cfg, &live.stop, cfg.layers[i], at, to);
            u.sort_unstable();
            undecided[i].extend(u);
            live.samples.fetch_add(t.samples, Ordering::Relaxed);
            live.reachable.fetch_add(t.reachable, Ordering::Relaxed);
            tallies[i] = tallies[i].plus(t);
            *done += t.samples;
            if t.samples < to - at {
                return true;
            }
            at = to;
        }
    }
    false
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
        let (mut lo_point, mut hi_point, mut below, mut above) = (0.0, 0.0, 0.0, 0.0);
        for l in layers {
            let (lo, hi) = l.points(figure);
            let i = l.interval(figure);
            lo_point += lo;
            hi_point += hi;
            below += (lo - i.low).max(0.0).powi(2);
            above += (i.high - hi).max(0.0).powi(2);
        }
        Interval {
            estimate: (lo_point + hi_point) / 2.0,
            low: (lo_point - below.sqrt()).max(0.0),
            high: hi_point + above.sqrt(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6};

    /// Searches that fit are given their memory; those that do not are
    /// refused with the largest budget that fits: its searches fit, and
    /// those of twice it do not.
    #[test]
    fn searches_fit_or_name_the_largest_budget_that_does() {
        let avail = 12u64 << 30;
        let allowed = avail / 5 * 4;
        // memory unknown: taken to fit
        assert_eq!(searches_fit::<B6>(14, 1 << 40, 2, None).ok(), Some(search_memory::<B6>(14, 1 << 40, 2)));
        for threads in [1, 2, 3] {
            assert_eq!(
                searches_fit::<B6>(14, 1 << 20, threads, Some(avail)).ok(),
                Some(search_memory::<B6>(14, 1 << 20, threads))
            );
            let e = searches_fit::<B6>(14, 1 << 40, threads, Some(avail)).unwrap_err();
            assert!(search_memory::<B6>(14, e.fits, threads) <= allowed, "{e}");
            assert!(search_memory::<B6>(14, e.fits * 2, threads) > allowed, "{e}");
            assert!(searches_fit::<B6>(14, e.fits, threads, Some(avail)).is_ok());
            assert_eq!(e.to_string().contains("fewer --threads"), threads > 1, "{e}");
        }
    }

    #[test]
    fn candidate_counts() {
        // 4x4: 12 other squares; k = 5: 12 · 2^5 · 2
        assert_eq!(candidates(4, 5), 12 * 64);
        assert_eq!(candidates(4, 4), 32);
        assert_eq!(candidates(4, 16), 1 << 17);
        assert_eq!(candidates(4, 17), 0);
        // all 4x4 candidates: 2 · 2^4 · 3^12
        let all: u128 = (4..=16).map(|k| candidates(4, k)).sum();
        assert_eq!(all, 32 * 3u128.pow(12));
        let all8: u128 = (4..=64).map(|k| candidates(8, k)).sum();
        assert_eq!(all8, 32 * 3u128.pow(60));
    }

    #[test]
    fn below_is_in_range_and_draws_have_the_discs() {
        let mut g = SplitMix::for_sample(7, 20, 3);
        for b in [1u64, 2, 3, 7, 1000, u64::MAX] {
            for _ in 0..100 {
                assert!(g.below(b) < b);
            }
        }
        for k in 4..=36 {
            let (b, w, _) = draw::<B6>(k, &mut g);
            assert_eq!(b & w, 0);
            assert_eq!((b | w).count_ones(), k);
            assert_eq!((b | w) & centre(6), centre(6));
        }
    }

    /// `below` takes and rejects the same words as Lemire's method with
    /// the zone computed every time, so every seed draws the samples it
    /// always drew (documents in the catalogue are drawn again by their
    /// seed): checked against that reference, with bounds that reject
    /// often (2^63 + 1 rejects about half the words).
    #[test]
    fn below_draws_what_the_plain_method_draws() {
        fn plain(g: &mut SplitMix, bound: u64) -> u64 {
            loop {
                let m = u128::from(g.next_u64()) * u128::from(bound);
                if m as u64 >= bound.wrapping_neg() % bound {
                    return (m >> 64) as u64;
                }
            }
        }
        for bound in [1u64, 2, 3, 5, 7, 12, 32, 60, 1000, (1 << 63) + 1, u64::MAX - 1, u64::MAX] {
            let (mut a, mut b) = (SplitMix::for_sample(11, 9, bound), SplitMix::for_sample(11, 9, bound));
            for _ in 0..10_000 {
                assert_eq!(a.below(bound), plain(&mut b, bound), "bound {bound}");
            }
            assert_eq!(a.next_u64(), b.next_u64(), "bound {bound}: the streams stay in step");
        }
    }

    /// On a full 8x8 board the side to move is not the colour of a disc.
    #[test]
    fn full_board_sides_are_independent_of_the_discs() {
        use crate::board::B8;
        let mut seen = std::collections::HashSet::new();
        for i in 0..200 {
            let mut g = SplitMix::for_sample(3, 64, i);
            let (b, _, side) = draw::<B8>(64, &mut g);
            seen.insert((b >> 63 & 1, side));
        }
        assert_eq!(seen.len(), 4);
    }

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

    #[test]
    fn allocation_adds_up() {
        let t = [Tally::default(); 3];
        let a = allocate(&[10, 1000, 100], &t, 1000, Figure::Positions);
        assert_eq!(a.iter().sum::<u64>(), 1000);
        for round in [1, 2, 3, 5, 11] {
            assert_eq!(
                allocate(&[10, 1000, 100, 5, 7], &[Tally::default(); 5], round, Figure::Positions).iter().sum::<u64>(),
                round
            );
        }
        assert!(a[1] > a[2] && a[2] > a[0]);
        let _ = estimate::<B4>;
    }

    /// The work of each layer (samples times positions searched per
    /// sample) follows its variance, with a floor of the round's work: a
    /// costly layer that adds little variance gets little more than the
    /// floor, a cheap layer that adds much gets most of the work.
    #[test]
    fn allocation_shares_the_work_not_the_samples() {
        let tally = |samples: u64, reachable: u64, nodes: u64| Tally { samples, reachable, nodes, ..Tally::default() };
        // layer 0: many candidates, cheap searches; layer 1: few
        // candidates, searches 10^4 times longer; layer 2: like 0 with
        // searches 100 times longer
        let t = [tally(10_000, 100, 1_000_000), tally(10_000, 1_000, 10_000_000_000), tally(10_000, 100, 100_000_000)];
        let cands = [1u128 << 60, 1 << 40, 1 << 60];
        // large enough that whole samples do not matter
        let round = 1 << 28;
        let a = allocate(&cands, &t, round, Figure::Positions);
        assert_eq!(a.iter().sum::<u64>(), round);
        let cost = |i: usize| (t[i].nodes as f64 + SAMPLE_COST * (t[i].samples + 1) as f64) / (t[i].samples + 1) as f64;
        let work: Vec<f64> = (0..3).map(|i| a[i] as f64 * cost(i)).collect();
        let all: f64 = work.iter().sum();
        // layer 1 adds ~10^-5 of the others' variance: the floor, no more
        let floor = FLOOR_SHARE / 3.0;
        assert!(work[1] / all > floor && work[1] / all < floor * 1.01, "{}", work[1] / all);
        // Neyman: samples in proportion to C σ / √cost, so layers 0 and 2
        // (alike but for the cost) share the work beyond the floor as the
        // square roots of their costs (about ten to one)
        let beyond = |i: usize| work[i] / all - floor;
        let expected = (cost(2) / cost(0)).sqrt();
        assert!((beyond(2) / beyond(0) / expected - 1.0).abs() < 1e-3, "{} {expected}", beyond(2) / beyond(0));
    }
}
