//! The undecided samples of a finished estimate decided again with
//! stronger searches (`estimate --resolve`).

use serde::{Deserialize, Serialize};

use crate::board::Status;
use crate::key::Keyed;
use crate::search::game_encoding::{CarryStore, Solver};
use crate::search::reachable::{Frontier, Searches, Stages, WithStages};

use super::*;

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
    /// Samples not searched: the resolve was stopped (`--time`, a signal)
    /// before it came to them (0: whole; absent from documents before
    /// 2026-11-28). They are listed as undecided, marked `untried`.
    pub untried: u64,
    /// Seconds the searches again took (in `elapsed_seconds` too).
    pub seconds: f64,
    /// The document resolved: its name without `.json` (the catalogue's
    /// ID where it holds it; absent before 2026-11-29).
    pub from_id: Option<String>,
    /// The commands that made that document, first to last: the run's,
    /// then each resolve's before this one (this one is the document's
    /// `command`). Only the last where that document predates this field
    /// (2026-11-29); empty where it records none.
    pub from_commands: Vec<String>,
    /// Where the resolve searched only a subsample of the samples it
    /// would have searched (`--subsample D`, D above 1): which, and how
    /// many it left out. None where it searched them all (absent before
    /// 2026-12-05).
    pub subsample: Option<SubsampleSearched>,
}

/// The subsample a resolve was limited to ([`Resolved::subsample`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubsampleSearched {
    /// One in `one_in` of the undecided samples ([`in_subsample`]).
    pub one_in: u64,
    /// The samples it would have searched without the limit, left out
    /// (listed as undecided, untried, as the document given had them).
    pub outside: u64,
    /// The first phase: the document whose undecided samples the
    /// subsample is drawn from, as it was before any search limited to a
    /// subsample. Every verdict a document adds to these tallies is of a
    /// sample of the subsample.
    pub first_phase: FirstPhase,
}

/// What the first phase of a double sampling decided
/// ([`SubsampleSearched::first_phase`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstPhase {
    /// That document's name without `.json` (the catalogue's ID where it
    /// holds it).
    pub from_id: Option<String>,
    /// Its layers' tallies: their undecided samples are the set the
    /// subsample is drawn from.
    pub layers: Vec<FirstPhaseLayer>,
}

/// One layer of a [`FirstPhase`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstPhaseLayer {
    /// Discs.
    pub discs: u32,
    /// What its samples found in the first phase.
    pub tally: Tally,
}

/// The limits of a search (a sample's, or `reachable`'s): its budget,
/// and the stages it tries with theirs, as a document records them (the
/// stages it does not record are always [`Stages::default`]'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SearchLimits {
    /// Positions a backward search may visit.
    pub budget: u64,
    /// Conflicts the flip-history relaxation may spend (0: not tried;
    /// [`crate::search::reachable::RELAXATION_CONFLICTS`] by default).
    pub relaxation_conflicts: u64,
    /// Conflicts the exact game encoding may spend where the search runs
    /// out (0: not tried), and its solver.
    pub exact_conflicts: u64,
    pub exact_solver: Solver,
    /// The beam's width where the search runs out (0: not tried;
    /// [`crate::search::reachable::BEAM_WIDTH`] from the command line).
    pub beam_width: usize,
    /// The sweep's width where the beam gives up (0: not tried;
    /// [`crate::search::reachable::SWEEP_WIDTH`] from the command line).
    pub sweep_width: usize,
}

impl SearchLimits {
    /// Searches of `budget` positions trying `stages` (of which a
    /// document records these limits).
    pub fn new(budget: u64, stages: &Stages) -> SearchLimits {
        SearchLimits {
            budget,
            relaxation_conflicts: stages.relaxation_conflicts,
            exact_conflicts: stages.exact_conflicts,
            exact_solver: stages.exact_solver,
            beam_width: stages.beam_width,
            sweep_width: stages.sweep_width,
        }
    }

    /// The depth-first search of `budget` positions with the default
    /// stages ([`Stages::default`]: the flip-history relaxation and the
    /// flip-count balance; no beam, sweep or exact stage).
    pub fn depth_first(budget: u64) -> SearchLimits {
        SearchLimits::new(budget, &Stages::default())
    }

    /// The stages a search of these limits tries: these limits, and the
    /// rest as [`Stages::default`] sets them (a document records no more).
    pub fn stages(&self) -> Stages {
        Stages {
            relaxation_conflicts: self.relaxation_conflicts,
            exact_conflicts: self.exact_conflicts,
            exact_solver: self.exact_solver,
            beam_width: self.beam_width,
            sweep_width: self.sweep_width,
            ..Stages::default()
        }
    }
}

/// What [`resolve`] makes: the layers' estimates with the samples it
/// searched decided again, and the samples still undecided, in the order
/// given.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The layers' estimates.
    pub layers: Vec<LayerEstimate>,
    /// The samples still undecided: those searched and left undecided,
    /// and those not searched (stopped first), marked `untried`.
    pub still: Vec<UndecidedSample>,
    /// Of the samples given, those not searched because `stop` said so
    /// first (0: the resolve is whole).
    pub untried: usize,
    /// Of those, the ones a first round left for the second.
    pub deferred: usize,
}

/// Why a document's undecided samples cannot be decided again.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// A listed sample of a layer the document does not have.
    #[error("an undecided sample of layer {0}, which the document does not have")]
    NoSuchLayer(u32),
    /// A listed position is not the sample the document's seed draws.
    #[error("sample {index} of layer {discs} is not the position listed: the list is not of the document's seed")]
    NotTheSeedsSample { discs: u32, index: u64 },
    /// A layer lists more undecided samples than its tally counts.
    #[error("layer {0} lists more undecided samples than its tally counts")]
    MoreThanTallied(u32),
}

/// The positions a document lists as its undecided samples are those its
/// seed draws, of layers it has (see [`resolve`]).
pub fn check_undecided<G: Keyed>(
    seed: u64,
    layers: &[(u32, Tally)],
    undecided: &[UndecidedSample],
) -> Result<(), ResolveError> {
    for u in undecided {
        if !layers.iter().any(|(k, _)| *k == u.discs) {
            return Err(ResolveError::NoSuchLayer(u.discs));
        }
        if sample_position::<G>(seed, u.discs, u.index).line() != u.position {
            return Err(ResolveError::NotTheSeedsSample { discs: u.discs, index: u.index });
        }
    }
    Ok(())
}

/// What [`resolve`] reports as a sample's searches end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searched {
    /// Searched at the resolve's limits: its verdict, undecided or not.
    Decided(Decided),
    /// Left undecided by the first round, for the second.
    Deferred(Deferred),
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
///
/// With `first` above 0 (and below `limits.exact_conflicts`) the samples
/// go in two rounds: every one first with the exact encoding limited to
/// `first` conflicts, then those it left with the resolve's own limits.
/// Most samples the exact stage decides at all, it decides within a
/// fraction of its limit, while those it leaves spend the whole limit;
/// the first round decides the many cheap ones before any sample spends
/// its whole limit. The verdicts are the ones a single round gives: a
/// sample decided within `first` conflicts is decided within more (the
/// solver's search is deterministic, its limit only stops it), and each
/// verdict is exact.
///
/// `before` holds what an earlier, unfinished resolve of the same
/// document and limits decided, and `waiting` what its first round left
/// ([`ResolveProgress`]): the former are taken as they are, not searched
/// again; the latter go straight to the second round. `searched` is
/// called with each sample as its searches end (from the searching
/// threads), so that the caller can keep its progress. Once `stop` says
/// so, no further sample is started, and the searches under way are cut
/// (their stages ask `stop` as they run): the samples not searched
/// whole at the resolve's limits keep their verdict
/// (undecided), marked `untried`, so that the estimate made of what was
/// searched is still exact in every verdict, and a later resolve can
/// search only those.
#[allow(clippy::too_many_arguments)]
pub fn resolve<G: Keyed>(
    frontier: &Frontier<G>,
    seed: u64,
    limits: SearchLimits,
    first: u64,
    threads: usize,
    layers: &[(u32, Tally)],
    undecided: &[UndecidedSample],
    before: &[Decided],
    waiting: &[Deferred],
    searched: &(dyn Fn(Searched) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Resolution, ResolveError> {
    resolve_carried(frontier, seed, limits, first, threads, layers, undecided, before, waiting, searched, stop, None)
}

/// [`resolve`], its exact searches resuming from the carry `carry` keeps
/// for a sample and keeping one there when they end without a verdict
/// (cut by `stop`, or at a limit):
/// [`crate::search::game_encoding::exact_game_resumed`]. The conflict
/// limits then count every search of a sample together. Each verdict is
/// as exact as without it; which samples a limit leaves undecided may
/// differ (a resumed search is not the uncut one), so a resolve with a
/// carry is reproducible only where no search of it was cut.
#[allow(clippy::too_many_arguments)]
pub fn resolve_carried<G: Keyed>(
    frontier: &Frontier<G>,
    seed: u64,
    limits: SearchLimits,
    first: u64,
    threads: usize,
    layers: &[(u32, Tally)],
    undecided: &[UndecidedSample],
    before: &[Decided],
    waiting: &[Deferred],
    searched: &(dyn Fn(Searched) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    carry: Option<&dyn CarryStore>,
) -> Result<Resolution, ResolveError> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    check_undecided::<G>(seed, layers, undecided)?;
    let first = (first > 0 && first < limits.exact_conflicts).then_some(first);
    let key = |u: &UndecidedSample| (u.discs, u.index);
    let earlier: std::collections::HashMap<(u32, u64), (Tally, bool)> =
        before.iter().map(|d| ((d.discs, d.index), (d.tally, d.terminal))).collect();
    let slots: Vec<Mutex<Option<(Tally, bool)>>> =
        undecided.iter().map(|u| Mutex::new(earlier.get(&key(u)).copied())).collect();
    let left: Mutex<std::collections::HashSet<(u32, u64)>> =
        Mutex::new(waiting.iter().map(|d| (d.discs, d.index)).collect());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().expect("thread pool");
    // one queue a round, heaviest samples first: a resolve stopped by its
    // time has then decided the samples that move the interval most
    let order = search_order(G::N, layers, undecided);
    let round = |queue: &[usize], conflicts: u64| {
        let searches = Searches::new(frontier, limits.budget)
            .with_stages(limits.stages())
            .with_exact(conflicts, limits.exact_solver)
            .with_stop(Some(stop))
            .with_carry(carry);
        let last = conflicts == limits.exact_conflicts;
        let next = AtomicUsize::new(0);
        pool.scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|_| {
                    let mut search = searches.take();
                    while let Some(&i) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if stop() {
                            break;
                        }
                        let u = &undecided[i];
                        let terminal = sample_position::<G>(seed, u.discs, u.index).status() == Status::Terminal;
                        // an undecided sample was searched, so deciding it
                        // again needs no focus
                        let tally = one_sample(&mut search, seed, u.discs, u.index, Focus::All);
                        if search.deferred() {
                            // cut by the stop: not searched at the limits,
                            // so it stays untried
                            break;
                        }
                        if !last && tally.undecided > 0 {
                            searched(Searched::Deferred(Deferred {
                                discs: u.discs,
                                index: u.index,
                                exact_conflicts: conflicts,
                            }));
                            left.lock().unwrap_or_else(|e| e.into_inner()).insert(key(u));
                        } else {
                            searched(Searched::Decided(Decided { discs: u.discs, index: u.index, tally, terminal }));
                            *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some((tally, terminal));
                        }
                    }
                });
            }
        });
    };
    let open = |i: &&usize| slots[**i].lock().unwrap_or_else(|e| e.into_inner()).is_none();
    match first {
        Some(first) => {
            let waits = left.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let queue: Vec<usize> =
                order.iter().filter(open).filter(|&&i| !waits.contains(&key(&undecided[i]))).copied().collect();
            round(&queue, first);
            let waits = left.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let queue: Vec<usize> =
                order.iter().filter(open).filter(|&&i| waits.contains(&key(&undecided[i]))).copied().collect();
            round(&queue, limits.exact_conflicts);
        }
        None => {
            let queue: Vec<usize> = order.iter().filter(open).copied().collect();
            round(&queue, limits.exact_conflicts);
        }
    }
    let again: Vec<Option<(Tally, bool)>> =
        slots.into_iter().map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner())).collect();
    let mut out = Vec::new();
    for &(k, old) in layers {
        let mut t = old;
        for (u, a) in undecided.iter().zip(&again) {
            if u.discs != k {
                continue;
            }
            // not searched: it stays as the document has it
            let Some((a, terminal)) = *a else { continue };
            if t.undecided == 0 || (terminal && t.undecided_terminal == 0) {
                return Err(ResolveError::MoreThanTallied(k));
            }
            // the sample leaves the undecided, and enters where its
            // search now puts it (drawn and joined already counted)
            t.undecided -= 1;
            t.undecided_terminal -= terminal as u64;
            t = t.plus(Tally { samples: 0, joined: 0, ..a });
        }
        out.push(LayerEstimate::new(k, candidates(G::N, k), t));
    }
    let still = undecided
        .iter()
        .zip(&again)
        .filter_map(|(u, a)| match a {
            Some((a, _)) if a.undecided == 0 => None,
            Some(_) => Some(UndecidedSample { untried: false, ..u.clone() }),
            None => Some(UndecidedSample { untried: true, ..u.clone() }),
        })
        .collect();
    let untried = again.iter().filter(|a| a.is_none()).count();
    let left = left.into_inner().unwrap_or_else(|e| e.into_inner());
    let deferred = undecided.iter().zip(&again).filter(|(u, a)| a.is_none() && left.contains(&key(u))).count();
    Ok(Resolution { layers: out, still, untried, deferred })
}

/// The order in which [`resolve`] searches `undecided` (indices into it):
/// heaviest first, a sample's weight in the estimate being its layer's
/// candidates over the layer's samples (the share of the layer's
/// candidates it stands for); list order among equals. On 8x8 a sample
/// at 59 discs weighs a thirtieth of one at 48-53, at 64 discs a
/// five-millionth, so a resolve stopped by its time leaves those untried
/// rather than the samples that set the interval.
pub fn search_order(n: u32, layers: &[(u32, Tally)], undecided: &[UndecidedSample]) -> Vec<usize> {
    let weight = |u: &UndecidedSample| {
        let samples = layers.iter().find(|(k, _)| *k == u.discs).map_or(0, |(_, t)| t.samples);
        candidates(n, u.discs) as f64 / samples.max(1) as f64
    };
    let w: Vec<f64> = undecided.iter().map(weight).collect();
    let mut order: Vec<usize> = (0..undecided.len()).collect();
    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]).then(a.cmp(&b)));
    order
}
