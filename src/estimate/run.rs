//! An estimate's run: its settings, the rounds of samples, each sample
//! decided, and the result.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::board::Status;
use crate::key::{Keyed, canonical_and_orbit};
use crate::search::reachable::{Frontier, Search, Searches, Stage, WithStages, joined_to_centre};

use super::*;

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
    /// The limits of a sample's searches: the budget of positions a
    /// search may visit before it gives up (undecided), and its stages.
    pub limits: SearchLimits,
    /// The frontier: every reachable position of up to this many discs is
    /// enumerated first, and the backward searches stop there.
    pub frontier_discs: u32,
    /// Threads.
    pub threads: usize,
    /// Which samples are decided.
    pub focus: Focus,
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
    /// Set when the time limit has passed (or by the caller): the samples
    /// of the round under way still get the cheap conditions and the
    /// relaxation, but no search; those these leave undecided are listed
    /// `untried`, for a resolve at the same settings to search
    /// ([`crate::search::reachable::Search::with_deadline`]). Unlike a
    /// stop, every sample drawn is counted, so the figures do not lean.
    pub defer: AtomicBool,
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
    /// The limits of each sample's searches (the budget per sample and
    /// the stages).
    #[serde(flatten)]
    pub limits: SearchLimits,
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
    /// Not searched at the document's limits. In a resolve: it stopped
    /// (`--time`, a signal) before it came to this sample, or cut its
    /// search, which keeps the verdict of the document resolved. In an
    /// estimate: drawn after its time limit had passed, so only the cheap
    /// conditions and the relaxation were tried (since 2026-12-04), or its
    /// search under way was cut at the time limit. A resolve of such a
    /// partial document at the same settings searches only these. Written
    /// only where true (absent from documents before 2026-11-28).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untried: bool,
}

/// Samples of the first round (shared by the layers): few, so that a run
/// under a time limit learns the cost of every layer's searches before it
/// commits to much work (a first round of 4,096 samples of one costly
/// 6x6 layer took 54 minutes of a 35-minute run).
pub(super) const FIRST_ROUND: u64 = 64;

/// Decides samples `from..to` of layer `discs`.
/// Stops early (at a sample) when `stop` is set.
pub(super) fn sample_range<G: Keyed>(
    searches: &Searches<'_, G>,
    cfg: &EstimateConfig,
    stop: &AtomicBool,
    discs: u32,
    from: u64,
    to: u64,
) -> (Tally, Vec<(u64, bool)>) {
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
                        // searched at the limits, or left by the deadline
                        undecided.push((i, search.deferred()));
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

pub(super) fn one_sample<G: Keyed>(
    search: &mut Search<'_, G>,
    seed: u64,
    discs: u32,
    index: u64,
    focus: Focus,
) -> Tally {
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
            t.beam_reachable = u64::from(search.decided_by() == Stage::Beam);
            t.sweep_reachable = u64::from(search.decided_by() == Stage::Sweep);
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
            t.beam_unreachable = u64::from(search.decided_by() == Stage::Beam);
            t.sweep_unreachable = u64::from(search.decided_by() == Stage::Sweep);
            t.balanced = u64::from(search.decided_by() == Stage::FlipBalance);
        }
        None => {
            t.undecided = 1;
            t.undecided_terminal = terminal as u64;
        }
    }
    t.nodes = search.nodes();
    t
}

/// Runs an estimate on board `G`, its searches also stopping at `layer`
/// where one is given ([`census_layer`] reads it).
pub fn estimate<G: Keyed>(cfg: &EstimateConfig, layer: Option<CensusLayer<G>>, live: &EstimateLive) -> Estimate {
    estimate_kept(cfg, layer, live, None, None)
}

/// [`estimate`], going on from `from` (the progress of an earlier run of
/// the same settings, [`EstimateId`]) where given, and giving its
/// progress to `keeper` where given.
pub fn estimate_kept<G: Keyed>(
    cfg: &EstimateConfig,
    layer: Option<CensusLayer<G>>,
    live: &EstimateLive,
    from: Option<EstimateProgress>,
    keeper: Option<&mut Keeper<'_>>,
) -> Estimate {
    // the time limit and the elapsed time count the census layer's reading
    let read = Duration::from_secs_f64(layer.as_ref().map_or(0.0, |l| l.read_seconds));
    let started = Instant::now().checked_sub(read).unwrap_or_else(Instant::now);
    let (frontier, used) = with_census_layer(Frontier::<G>::build(cfg.frontier_discs), layer);
    estimate_from(cfg, &frontier, used, started, live, from, keeper)
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
    estimate_from(cfg, frontier, used, started, live, None, None)
}

/// Where a run keeps its progress: `keep` is given the run's state
/// ([`EstimateProgress`], of ID `id`) after a whole piece of a round at
/// most every `every`, at the end of each round, and, when the run is
/// stopped inside a round, as it was after the last whole piece (the
/// samples of the piece cut short are drawn again by a run going on from
/// it). A keeper that fails to keep says so itself; the run goes on.
pub struct Keeper<'a> {
    pub id: EstimateId,
    pub every: Duration,
    pub keep: &'a mut (dyn FnMut(&EstimateProgress) + Send),
    kept: Instant,
}

impl<'a> Keeper<'a> {
    /// A keeper calling `keep` with states of ID `id`, at most every `every`.
    pub fn new(id: EstimateId, every: Duration, keep: &'a mut (dyn FnMut(&EstimateProgress) + Send)) -> Self {
        Keeper { id, every, keep, kept: Instant::now() }
    }
}

/// Gives `st` to the keeper, if any: `now`, or when `every` has passed
/// since it was last given one.
fn keep_state(
    keeper: &mut Option<&mut Keeper<'_>>,
    st: &RunState,
    now: bool,
    layers: &[u32],
    started: Instant,
    frontier_seconds: f64,
) {
    if let Some(k) = keeper.as_deref_mut()
        && (now || k.kept.elapsed() >= k.every)
    {
        (k.keep)(&st.progress(k.id, layers, started, frontier_seconds));
        k.kept = Instant::now();
    }
}

/// A run's state: per layer the tally, the undecided samples and where
/// the round under way ends; rounds begun, and whether the last begun is
/// the run's last.
struct RunState {
    tallies: Vec<Tally>,
    undecided: Vec<Vec<(u64, bool)>>,
    round_end: Vec<u64>,
    rounds: u32,
    last: bool,
}

impl RunState {
    fn new(layers: usize) -> Self {
        RunState {
            tallies: vec![Tally::default(); layers],
            undecided: vec![Vec::new(); layers],
            round_end: vec![0; layers],
            rounds: 0,
            last: false,
        }
    }

    fn from(p: EstimateProgress) -> Self {
        RunState {
            tallies: p.layers.iter().map(|l| l.tally).collect(),
            round_end: p.layers.iter().map(|l| l.round_end).collect(),
            undecided: p.layers.into_iter().map(|l| l.undecided).collect(),
            rounds: p.rounds,
            last: p.last,
        }
    }

    fn done(&self) -> u64 {
        self.tallies.iter().map(|t| t.samples).sum()
    }

    fn progress(&self, id: EstimateId, layers: &[u32], started: Instant, frontier_seconds: f64) -> EstimateProgress {
        EstimateProgress {
            id,
            rounds: self.rounds,
            last: self.last,
            elapsed_seconds: started.elapsed().as_secs_f64(),
            frontier_seconds,
            layers: (0..self.tallies.len())
                .map(|i| LayerProgress {
                    discs: layers[i],
                    tally: self.tallies[i],
                    undecided: self.undecided[i].clone(),
                    round_end: self.round_end[i],
                })
                .collect(),
        }
    }

    /// The rest of the round under way, if one is.
    fn rest_of_round(&self) -> Option<Round> {
        let shares: Vec<u64> = self.round_end.iter().zip(&self.tallies).map(|(&e, t)| e - t.samples).collect();
        shares.iter().any(|&s| s > 0).then_some(Round { shares, last: self.last })
    }
}

/// [`estimate_on`], going on from `from` where given (its clock and
/// frontier time added to this run's), its progress given to `keeper`.
pub fn estimate_from<G: Keyed>(
    cfg: &EstimateConfig,
    frontier: &Frontier<G>,
    used: Option<CensusLayerUsed>,
    started: Instant,
    live: &EstimateLive,
    from: Option<EstimateProgress>,
    mut keeper: Option<&mut Keeper<'_>>,
) -> Estimate {
    let before = from.as_ref().map_or((0.0, 0.0), |p| (p.elapsed_seconds, p.frontier_seconds));
    let started = started.checked_sub(Duration::from_secs_f64(before.0)).unwrap_or(started);
    // this run's frontier (and census layer) on top of the earlier runs'
    let frontier_seconds = before.1 + (started.elapsed().as_secs_f64() - before.0).max(0.0);
    let cands: Vec<u128> = cfg.layers.iter().map(|&k| candidates(G::N, k)).collect();
    let mut st = from.map_or_else(|| RunState::new(cfg.layers.len()), RunState::from);
    let mut interrupted = false;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.threads.max(1)).build().expect("thread pool");
    // a stop cuts the searches under way: their piece is not kept
    // (sample_round), so a run going on from it draws them again
    let stop = || live.stop.load(Ordering::Relaxed);
    let searches = Searches::new(frontier, cfg.limits.budget)
        .with_stages(cfg.limits.stages())
        .with_deadline(cfg.time.map(|t| started + t), Some(&live.defer))
        .with_stop(Some(&stop));
    live.samples.store(st.done(), Ordering::Relaxed);
    live.reachable.store(st.tallies.iter().map(|t| t.reachable).sum(), Ordering::Relaxed);
    if let Some(s) = cfg.samples {
        live.planned.store(s, Ordering::Relaxed);
    }
    // a round the earlier run was inside goes on first; a run that had
    // ended its last round draws no more
    let mut pending = st.rest_of_round();
    loop {
        let round = match pending.take() {
            Some(r) => r,
            None if st.last => break,
            None => match next_round(cfg, live, started, frontier_seconds, st.done(), &cands, &st.tallies) {
                Some(r) => {
                    st.rounds += 1;
                    st.last = r.last;
                    for (e, (t, s)) in st.round_end.iter_mut().zip(st.tallies.iter().zip(&r.shares)) {
                        *e = t.samples + s;
                    }
                    r
                }
                None => break,
            },
        };
        let before = st.done();
        interrupted =
            sample_round(&pool, &searches, cfg, live, &round.shares, &mut st, &mut keeper, started, frontier_seconds);
        if interrupted {
            break;
        }
        debug_assert_eq!(st.done(), before + round.shares.iter().sum::<u64>());
        keep_state(&mut keeper, &st, true, &cfg.layers, started, frontier_seconds);
        if round.last {
            break;
        }
    }
    let done = st.done();
    let RunState { tallies, undecided, rounds, .. } = st;
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
                u.into_iter().map(move |(index, untried)| UndecidedSample {
                    discs,
                    index,
                    position: sample_position::<G>(cfg.seed, discs, index).line(),
                    untried,
                })
            })
            .collect(),
        samples: done,
        rounds,
        seed: cfg.seed,
        limits: cfg.limits,
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

/// A round to draw: the samples of each layer, and whether it is the
/// run's last (cut short).
pub(super) struct Round {
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
pub(super) fn next_round(
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

/// Draws one round: `shares[i]` more samples of layer `i`, added to the
/// layer's tally in `st`, its progress given to `keeper` after whole
/// pieces. Returns whether it was interrupted.
#[allow(clippy::too_many_arguments)]
fn sample_round<G: Keyed>(
    pool: &rayon::ThreadPool,
    searches: &Searches<'_, G>,
    cfg: &EstimateConfig,
    live: &EstimateLive,
    shares: &[u64],
    st: &mut RunState,
    keeper: &mut Option<&mut Keeper<'_>>,
    started: Instant,
    frontier_seconds: f64,
) -> bool {
    // the state after the last whole piece, for a run going on from it
    let mut keep = |st: &RunState, now: bool| keep_state(keeper, st, now, &cfg.layers, started, frontier_seconds);
    for (i, &share) in shares.iter().enumerate() {
        let from = st.tallies[i].samples;
        // in pieces, for the progress display, the kept progress and a
        // prompt stop
        let mut at = from;
        while at < from + share {
            if live.stop.load(Ordering::Relaxed) {
                keep(st, true);
                return true;
            }
            let to = (at + (1 << 11)).min(from + share);
            let (t, mut u) = pool.install(|| sample_range(searches, cfg, &live.stop, cfg.layers[i], at, to));
            // stopped inside the piece: kept as it was before it (a piece
            // whose samples were all drawn may still hold one whose search
            // the stop cut: it is listed untried, as a deadline's are, but
            // a run going on must search it)
            let cut = t.samples < to - at || (live.stop.load(Ordering::Relaxed) && u.iter().any(|&(_, d)| d));
            if cut {
                keep(st, true);
            }
            u.sort_unstable();
            st.undecided[i].extend(u);
            live.samples.fetch_add(t.samples, Ordering::Relaxed);
            live.reachable.fetch_add(t.reachable, Ordering::Relaxed);
            st.tallies[i] = st.tallies[i].plus(t);
            if cut {
                return true;
            }
            at = to;
            keep(st, false);
        }
    }
    false
}
