//! The reachability test and the estimates against the naive oracle (which
//! shares no code with the engine): every 4x4 candidate, sampled 6x6 and
//! 8x8 candidates and members; determinism for a seed; the binary's
//! `reachable` and `estimate`.

mod common;
mod oracle;

use std::collections::HashSet;
use std::process::Command;

use rayon::prelude::*;

use othello_census::board::{B4, B6, B8, Bitboard, Color, Geometry, Position};
use othello_census::census::LayerBy;
use othello_census::engine::layers::{self, LayersLive, LayersPlan, LayersSettings};
use othello_census::estimate::{
    CensusLayer, EstimateConfig, EstimateLive, SearchLimits, SplitMix, candidates, census_layer, draw, estimate,
    sample_position,
};
use othello_census::key::{Keyed, canonical_key};
use othello_census::search::reachable::{
    BEAM_WIDTH, Frontier, LayerHeld, RELAXATION_CONFLICTS, SEARCH_GENERATION, SWEEP_WIDTH, Search, Verdict, WithStages,
    centre, odd_passes,
};

/// The oracle's reachable positions as (black, white, black to move).
fn oracle_set(n: usize, max_discs: usize) -> HashSet<(u64, u64, bool)> {
    oracle::reachable(n, max_discs)
        .into_iter()
        .map(|p| {
            let (b, w) = p.bits();
            (b, w, p.to_move == oracle::BLACK)
        })
        .collect()
}

/// The game of a `reachable --json` document (`a1`.. and `pass`) played
/// by the oracle on an `n x n` board, every move checked legal.
fn replay_on_oracle(n: usize, game: &serde_json::Value) -> oracle::Naive {
    let mut naive = oracle::Naive::start(n);
    for ply in game.as_array().unwrap() {
        let name = ply.as_str().unwrap();
        naive = if name == "pass" {
            naive.pass()
        } else {
            let b = name.as_bytes();
            let sq = (b[1] - b'1') as usize * n + (b[0] - b'a') as usize;
            assert!(naive.moves().contains(&sq), "{name} illegal");
            naive.play(sq)
        };
    }
    naive
}

fn position<G: Geometry>(b: u64, w: u64, black_to_move: bool) -> Position<G> {
    Position::from_colors(Bitboard(b), Bitboard(w), if black_to_move { Color::Black } else { Color::White }).unwrap()
}

/// The census layer (`held`) of 4x4 positions of `discs` discs, read from
/// a layered census run to `discs` discs (stored), above a frontier of
/// `frontier_discs`.
fn layer_4x4(discs: u32, frontier_discs: u32, held: LayerHeld) -> CensusLayer<B4> {
    let dir = tempfile::tempdir().unwrap();
    let plan = LayersPlan {
        by: LayerBy::Discs,
        limit: discs,
        partitions: 3,
        work_dir: dir.path().join("census"),
        command: "test".into(),
        started_unix: 0,
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    layers::start::<B4>(&plan, &LayersSettings::new(2, 1 << 24), &never, &LayersLive::default()).unwrap();
    census_layer::<B4>(&plan.work_dir, frontier_discs, held, u64::MAX).unwrap()
}

/// A stored census of board `G` in `dir`, layered `by`, to `limit`.
fn census<G: Keyed>(dir: &std::path::Path, by: LayerBy, limit: u32, store_last: bool) -> std::path::PathBuf {
    let plan =
        LayersPlan { by, limit, partitions: 2, work_dir: dir.to_path_buf(), command: "test".into(), started_unix: 0 };
    let settings = LayersSettings { store_last, ..LayersSettings::new(1, 1 << 24) };
    let never = std::sync::atomic::AtomicBool::new(false);
    layers::start::<G>(&plan, &settings, &never, &LayersLive::default()).unwrap();
    plan.work_dir
}

/// A census that cannot give a census layer is refused in one line that
/// says why: its layer not above the frontier, another board, a census by
/// ply, a last layer counted without being stored, no census, a layer
/// larger than the memory allowed (a whole one from its manifest, an
/// odd-pass one as it is read).
#[test]
fn a_census_that_cannot_serve_as_a_layer_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let refused_with = |path: &std::path::Path, frontier: u32, held: LayerHeld, memory: u64| {
        let e = census_layer::<B4>(path, frontier, held, memory).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let refused = |path: &std::path::Path, frontier: u32| refused_with(path, frontier, LayerHeld::OddPasses, u64::MAX);
    let low = census::<B4>(&dir.path().join("low"), LayerBy::Discs, 8, true);
    assert!(refused(&low, 8).contains("not above the frontier (8 discs)"));
    let whole = census_layer::<B4>(&low, 7, LayerHeld::Whole, u64::MAX).unwrap();
    let odd = census_layer::<B4>(&low, 7, LayerHeld::OddPasses, u64::MAX).unwrap();
    assert_eq!((whole.discs, odd.discs), (8, 8));
    // 4x4 at 8 discs: 32 classes (results/4x4-by-discs.csv), 4 bytes a key
    // and a quarter of a byte of index
    assert_eq!((whole.keys.len(), whole.layer_classes), (32, 32));
    assert!(refused_with(&low, 7, LayerHeld::Whole, 136 - 5).contains("32 classes of 8 discs need 136 B"));
    assert_eq!(census_layer::<B4>(&low, 7, LayerHeld::Whole, 136).unwrap().keys, whole.keys);
    let room = (4.25 * odd.keys.len() as f64).ceil() as u64;
    assert!(refused_with(&low, 7, LayerHeld::OddPasses, room - 5).contains("more than the"));
    assert_eq!(census_layer::<B4>(&low, 7, LayerHeld::OddPasses, room).unwrap().keys, odd.keys);
    let six = census::<B6>(&dir.path().join("six"), LayerBy::Discs, 8, true);
    assert!(refused(&six, 6).contains("a census of the 6x6 board, not 4x4"));
    let ply = census::<B4>(&dir.path().join("ply"), LayerBy::Ply, 6, true);
    assert!(refused(&ply, 4).contains("a census by ply"));
    let unstored = census::<B4>(&dir.path().join("unstored"), LayerBy::Discs, 10, false);
    assert!(refused(&unstored, 6).contains("counted without being stored"));
    assert!(refused(&dir.path().join("none"), 6).contains("not a layered-census work directory"));
    // and the binary says it in one line, before any sample, naming the
    // option
    let estimate = |flag: &str, census: &std::path::Path| {
        let args = ["estimate", "--size", "4", "--samples", "100", "--frontier", "8", flag, census.to_str().unwrap()];
        common::fails_with(dir.path(), &args, flag);
    };
    estimate("--odd-pass-census", &low);
    estimate("--census-layer", &six);
}

/// Every 4x4 candidate (centre occupied, each disc either colour, either
/// side: 2 · 2^4 · 3^12 = 17,006,112), decided with the frontier at the
/// start alone (every one; a pure backward search), at 8 discs (every
/// 5th, the flip-history relaxation tried from 14 discs), and at 6 discs with the odd-pass positions of 12 discs read from
/// a census (every 3rd) or the whole layer of 11 discs (every 4th): the
/// same verdict as the oracle's set, never undecided, and each game found
/// replays.
#[test]
fn every_4x4_candidate_agrees_with_the_oracle() {
    let truth = oracle_set(4, 16);
    let c = centre(4);
    let others: Vec<u32> = (0..16).filter(|s| c >> s & 1 == 0).collect();
    // a census layer holds the classes of exactly the oracle's positions
    // of its disc count (those that need an odd number of passes, or all)
    let classes = |discs: u32, odd: bool| -> HashSet<u32> {
        truth
            .iter()
            .filter(|&&(b, w, _)| (b | w).count_ones() == discs)
            .map(|&(b, w, side)| position::<B4>(b, w, side))
            .filter(|p| !odd || odd_passes(p))
            .map(|p| canonical_key(&p))
            .collect()
    };
    let odd = layer_4x4(12, 6, LayerHeld::OddPasses);
    let want = classes(12, true);
    assert!(want.len() > 100, "4x4 has odd-pass positions of 12 discs: {}", want.len());
    assert_eq!(odd.keys.iter().copied().collect::<HashSet<u32>>(), want);
    assert_eq!(odd.keys.len(), want.len());
    let whole = layer_4x4(11, 6, LayerHeld::Whole);
    let all = classes(11, false);
    assert_eq!(whole.keys.iter().copied().collect::<HashSet<u32>>(), all);
    assert_eq!((whole.keys.len() as u64, whole.layer_classes), (all.len() as u64, all.len() as u64));
    for (frontier_discs, step, layer) in [(4, 1, None), (8, 5, None), (6, 3, Some(odd)), (6, 4, Some(whole))] {
        let mut frontier = Frontier::<B4>::build(frontier_discs);
        if let Some(l) = layer {
            let (discs, held, n) = (l.discs, l.held, l.keys.len());
            frontier = frontier.with_census_layer(discs, held, l.keys);
            assert_eq!(frontier.census_layer(), Some((discs, held, n)));
        }
        // every assignment of the 12 other squares (empty, black, white)
        // and of the 4 centre squares (black, white), and the side
        let total = 3u64.pow(12) * 16 * 2;
        let (agree, reachable) = (0..total)
            .into_par_iter()
            .filter(|code| code % step == 0)
            .fold(
                // the flip-history relaxation with the frontier of 8 discs
                // (positions of 14 discs and more; every reachable position
                // is satisfiable: tests/flip_history.rs), the pure backward
                // search with the others (with it at 6 discs this test took
                // ten minutes on 2 cores)
                || {
                    let conflicts = if frontier_discs == 8 { RELAXATION_CONFLICTS } else { 0 };
                    (Search::new(&frontier, 1 << 20).with_relaxation(conflicts), 0u64, 0u64)
                },
                |(mut search, mut agree, mut reach), code| {
                    let side = code & 1 == 1;
                    let mut x = code >> 1;
                    let (mut b, mut w) = (0u64, 0u64);
                    for sq in (0..16).filter(|s| c >> s & 1 == 1) {
                        if x & 1 == 1 {
                            b |= 1 << sq
                        } else {
                            w |= 1 << sq
                        }
                        x >>= 1;
                    }
                    for &sq in &others {
                        match x % 3 {
                            1 => b |= 1 << sq,
                            2 => w |= 1 << sq,
                            _ => {}
                        }
                        x /= 3;
                    }
                    let p = position::<B4>(b, w, side);
                    let want = truth.contains(&(b, w, side));
                    let got = search.is_reachable(&p).expect("4x4 never runs out of budget");
                    assert_eq!(got, want, "{p}");
                    agree += 1;
                    reach += got as u64;
                    (search, agree, reach)
                },
            )
            .map(|(_, a, r)| (a, r))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(agree, total.div_ceil(step));
        if step == 1 {
            // the 4x4 census: 62,789 positions
            assert_eq!(reachable, 62_789);
        }
    }
    // games, on a sample
    let frontier = Frontier::<B4>::build(4);
    let mut search = Search::new(&frontier, 1 << 20);
    for &(b, w, side) in truth.iter().take(2000) {
        let p = position::<B4>(b, w, side);
        match search.decide(&p) {
            Verdict::Reachable(g) => g.replay().unwrap(),
            v => panic!("{p} {v:?}"),
        }
    }
}

/// Random candidates and random members of the layers the oracle can list:
/// the backward search (frontier far below) agrees with the oracle.
fn sampled_agreement<G: Keyed>(max_discs: u32, frontier_discs: u32) {
    let truth = oracle_set(G::N as usize, max_discs as usize);
    let frontier = Frontier::<G>::build(frontier_discs);
    let mut search = Search::new(&frontier, 1 << 24);
    let (mut members, mut others) = (0, 0);
    for k in frontier_discs + 1..=max_discs {
        for i in 0..400 {
            let mut g = SplitMix::for_sample(99, k, i);
            let (b, w, side) = draw::<G>(k, &mut g);
            let p = position::<G>(b, w, side);
            let want = truth.contains(&(b, w, side));
            assert_eq!(search.is_reachable(&p), Some(want), "{p}");
            others += 1;
        }
    }
    // members: the positions the oracle lists, every 50th
    for (i, &(b, w, side)) in truth.iter().enumerate().filter(|(i, _)| i % 50 == 0) {
        let p = position::<G>(b, w, side);
        match search.decide(&p) {
            Verdict::Reachable(g) => g.replay().unwrap(),
            v => panic!("member #{i} {p}: {v:?}"),
        }
        // and one square's colour changed (often unreachable): as the oracle says
        let sq = (b | w).trailing_zeros();
        let (b2, w2) = (b ^ (1 << sq), w ^ (1 << sq));
        let q = position::<G>(b2, w2, side);
        assert_eq!(search.is_reachable(&q), Some(truth.contains(&(b2, w2, side))), "{q}");
        members += 1;
    }
    assert!(members > 100 && others > 1000, "{members} {others}");
}

#[test]
fn sampled_6x6_candidates_and_members_agree_with_the_oracle() {
    sampled_agreement::<B6>(11, 6);
}

#[test]
fn sampled_8x8_candidates_and_members_agree_with_the_oracle() {
    sampled_agreement::<B8>(10, 6);
}

/// Random games: every position on the way is reachable, with a game
/// that replays, on each board.
#[test]
fn positions_of_random_games_are_reachable() {
    fn check<G: Keyed>(plies: usize) {
        let frontier = Frontier::<G>::build(8);
        let mut search = Search::new(&frontier, 1 << 26);
        for seed in 0..20u64 {
            let mut g = SplitMix::for_sample(seed, 0, 0);
            let mut p = Position::<G>::start();
            for _ in 0..plies {
                let kids = p.children();
                if kids.is_empty() {
                    break;
                }
                p = kids[g.below(kids.len() as u64) as usize];
                match search.decide(&p) {
                    Verdict::Reachable(game) => game.replay().unwrap(),
                    v => panic!("{p}: {v:?}"),
                }
            }
        }
    }
    check::<B4>(20);
    check::<B6>(20);
    check::<B8>(16);
}

fn config(layers: Vec<u32>, samples: u64, threads: usize) -> EstimateConfig {
    EstimateConfig {
        layers,
        samples: Some(samples),
        time: None,
        seed: 7,
        limits: SearchLimits::depth_first(200_000),
        frontier_discs: 8,
        threads,
        focus: Default::default(),
    }
}

/// `cfg` with searches of `budget` positions.
fn budgeted(budget: u64, cfg: EstimateConfig) -> EstimateConfig {
    EstimateConfig { limits: SearchLimits { budget, ..cfg.limits }, ..cfg }
}

/// A time limit counts the reading of the census layer: a layer whose
/// reading took longer than the time given leaves no time to sample, one
/// read at once leaves the whole of it; the JSON's figures say so.
#[test]
fn the_time_limit_counts_the_census_layers_reading() {
    let run = |read_seconds: f64| {
        let mut layer = layer_4x4(10, 8, LayerHeld::Whole);
        layer.read_seconds = read_seconds;
        let cfg =
            EstimateConfig { samples: None, time: Some(std::time::Duration::from_secs(2)), ..config(vec![11], 0, 1) };
        estimate::<B4>(&cfg, Some(layer), &EstimateLive::default())
    };
    let slow = run(5.0);
    assert_eq!(slow.samples, 0);
    assert!(slow.elapsed_seconds >= 5.0 && slow.frontier_seconds >= 5.0);
    assert_eq!(slow.census_layer.as_ref().unwrap().read_seconds, 5.0);
    let quick = run(0.0);
    assert!(quick.samples > 0 && quick.elapsed_seconds < 5.0);
}

/// The same seed and sample count give the same figures on 1 and 3
/// threads; another seed gives others.
#[test]
fn estimates_are_deterministic_for_a_seed() {
    let a = estimate::<B6>(&config(vec![9, 12, 15], 6000, 1), None, &EstimateLive::default());
    let b = estimate::<B6>(&config(vec![9, 12, 15], 6000, 3), None, &EstimateLive::default());
    let tallies = |e: &othello_census::estimate::Estimate| e.layers.iter().map(|l| l.tally).collect::<Vec<_>>();
    assert_eq!(tallies(&a), tallies(&b));
    assert_eq!(a.total_positions, b.total_positions);
    assert_eq!(a.samples, 6000);
    assert_eq!(a.layers.iter().map(|l| l.tally.samples).sum::<u64>(), 6000);
    let mut other = config(vec![9, 12, 15], 6000, 2);
    other.seed = 8;
    let c = estimate::<B6>(&other, None, &EstimateLive::default());
    assert_ne!(tallies(&a), tallies(&c));
}

/// Where every stage's limit binds (a depth-first budget that runs out, a
/// beam and a sweep that decide some samples and give up on others, the
/// exact encoding's conflicts), 1 and 3 threads still give the same
/// tallies, stage counters included, and the same undecided samples: each
/// limit is a count, never a time, and each sample's searches start
/// afresh.
#[test]
fn estimates_are_deterministic_where_every_limit_binds() {
    let cfg = |threads| {
        let base = config(vec![24, 26, 28], 1500, threads);
        let limits =
            SearchLimits { budget: 2_000, beam_width: 100, sweep_width: 3_000, exact_conflicts: 20_000, ..base.limits };
        EstimateConfig { limits, ..base }
    };
    let a = estimate::<B6>(&cfg(1), None, &EstimateLive::default());
    let b = estimate::<B6>(&cfg(3), None, &EstimateLive::default());
    let tallies = |e: &othello_census::estimate::Estimate| e.layers.iter().map(|l| l.tally).collect::<Vec<_>>();
    assert_eq!(tallies(&a), tallies(&b));
    assert_eq!(a.undecided_samples, b.undecided_samples);
    let sum = |f: fn(&othello_census::estimate::Tally) -> u64| a.layers.iter().map(|l| f(&l.tally)).sum::<u64>();
    let (beam, sweep, exact, undecided) = (
        sum(|t| t.beam_reachable + t.beam_unreachable),
        sum(|t| t.sweep_reachable + t.sweep_unreachable),
        sum(|t| t.exact_reachable + t.exact_unreachable),
        sum(|t| t.undecided),
    );
    for l in &a.layers {
        let t = &l.tally;
        eprintln!(
            "layer {}: samples {} beam {}/{} sweep {}/{} exact {}/{} undecided {}",
            l.discs,
            t.samples,
            t.beam_reachable,
            t.beam_unreachable,
            t.sweep_reachable,
            t.sweep_unreachable,
            t.exact_reachable,
            t.exact_unreachable,
            t.undecided
        );
    }
    assert!(
        beam > 0 && sweep > 0 && exact > 0 && undecided > 0,
        "beam {beam}, sweep {sweep}, exact {exact}, undecided {undecided}"
    );
}

/// The undecided samples are listed, layer by layer, whatever the thread
/// count: as many as the tallies count, each drawn again from its index
/// with the position its text gives, and undecided again by a search of
/// the same budget.
#[test]
fn undecided_samples_are_listed() {
    let cfg = |threads| budgeted(2_000, config(vec![24, 30], 600, threads));
    let a = estimate::<B6>(&cfg(1), None, &EstimateLive::default());
    let b = estimate::<B6>(&cfg(3), None, &EstimateLive::default());
    assert_eq!(a.undecided_samples, b.undecided_samples);
    for l in &a.layers {
        let listed: Vec<u64> = a.undecided_samples.iter().filter(|u| u.discs == l.discs).map(|u| u.index).collect();
        assert_eq!(listed.len() as u64, l.tally.undecided, "layer {}", l.discs);
        assert!(listed.windows(2).all(|w| w[0] < w[1]));
    }
    assert!(a.undecided_samples.len() >= 5, "{} undecided: the test needs some", a.undecided_samples.len());
    let frontier = Frontier::<B6>::build(8);
    let mut search = Search::new(&frontier, 2_000);
    for u in &a.undecided_samples {
        let p = Position::<B6>::parse(&u.position).unwrap();
        assert_eq!(p, sample_position::<B6>(7, u.discs, u.index));
        assert_eq!(p.discs(), u.discs);
        assert_eq!(search.is_reachable(&p), None, "{}", u.position);
    }
}

/// `estimate::resolve` resumed: given as `before` part of what a whole
/// resolve reported through `decided`, it searches only the others (they
/// alone reach `decided`) and gives the same layers and the same samples
/// still undecided. Stopped after some samples, it starts no other: those
/// it did not search stay undecided, marked untried, the layers hold the
/// verdicts of those it searched, and a resolve of the untried alone
/// then gives the whole resolve's verdicts.
#[test]
fn a_resumed_resolve_gives_what_a_whole_one_gives() {
    use othello_census::estimate::{Decided, Searched, resolve};
    use std::sync::Mutex;
    let a = estimate::<B6>(&budgeted(2_000, config(vec![24, 30], 600, 2)), None, &EstimateLive::default());
    assert!(a.undecided_samples.len() >= 5, "{} undecided: the test needs some", a.undecided_samples.len());
    let layers: Vec<(u32, othello_census::estimate::Tally)> = a.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let frontier = Frontier::<B6>::build(8);
    let limits = config(vec![], 0, 1).limits;
    let go = || false;
    let seen = Mutex::new(Vec::<Decided>::new());
    let record = |d: Searched| match d {
        Searched::Decided(d) => seen.lock().unwrap().push(d),
        Searched::Deferred(d) => panic!("no first round, yet {d:?} deferred"),
    };
    let whole = resolve(&frontier, 7, limits, 0, 2, &layers, &a.undecided_samples, &[], &[], &record, &go).unwrap();
    assert_eq!(whole.untried, 0);
    let all = seen.lock().unwrap().clone();
    assert_eq!(all.len(), a.undecided_samples.len(), "each sample reported once");
    let decided = whole.layers.iter().map(|l| l.tally.reachable + l.tally.unreachable).sum::<u64>()
        - a.layers.iter().map(|l| l.tally.reachable + l.tally.unreachable).sum::<u64>();
    assert!(decided > 0, "the larger budget decides some");
    assert!(whole.still.iter().all(|u| !u.untried));
    // the first half taken as an earlier run left it
    let half = &all[..all.len() / 2];
    seen.lock().unwrap().clear();
    let resumed = resolve(&frontier, 7, limits, 0, 1, &layers, &a.undecided_samples, half, &[], &record, &go).unwrap();
    let again = seen.lock().unwrap().clone();
    assert_eq!(again.len(), all.len() - half.len(), "only the others searched");
    assert!(again.iter().all(|d| !half.iter().any(|h| (h.discs, h.index) == (d.discs, d.index))));
    let tallies = |r: &othello_census::estimate::Resolution| r.layers.iter().map(|l| l.tally).collect::<Vec<_>>();
    assert_eq!(tallies(&resumed), tallies(&whole));
    assert_eq!(resumed.still, whole.still);
    // stopped at once: nothing searched, nothing reported, every sample
    // untried and the layers as they were
    seen.lock().unwrap().clear();
    let stopped = || true;
    let none = resolve(&frontier, 7, limits, 0, 1, &layers, &a.undecided_samples, &[], &[], &record, &stopped).unwrap();
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(none.untried, a.undecided_samples.len());
    assert!(none.still.iter().all(|u| u.untried) && none.still.len() == a.undecided_samples.len());
    assert_eq!(none.layers.iter().map(|l| l.tally).collect::<Vec<_>>(), layers.iter().map(|l| l.1).collect::<Vec<_>>());
    // stopped after three samples (one thread: the heaviest three, a
    // sample's weight being its layer's candidates over its samples); the
    // searches ask the stop too, so it counts the samples reported
    seen.lock().unwrap().clear();
    let after_three = || seen.lock().unwrap().len() >= 3;
    let n = a.undecided_samples.len();
    assert!(n > 3, "{n} undecided: the test stops after three");
    let weight = |u: &othello_census::estimate::UndecidedSample| {
        let t = a.layers.iter().find(|l| l.discs == u.discs).unwrap().tally;
        othello_census::estimate::candidates(6, u.discs) as f64 / t.samples as f64
    };
    // in the list's order the first three would be searched: the test
    // needs a heavier sample after them
    let lightest_first = a.undecided_samples[..3].iter().map(&weight).fold(f64::INFINITY, f64::min);
    assert!(a.undecided_samples[3..].iter().any(|u| weight(u) > lightest_first), "the list is heaviest first already");
    let part =
        resolve(&frontier, 7, limits, 0, 1, &layers, &a.undecided_samples, &[], &[], &record, &after_three).unwrap();
    assert_eq!(part.untried, n - 3);
    let reported: Vec<_> = seen.lock().unwrap().iter().map(|d| (d.discs, d.index)).collect();
    assert_eq!(reported.len(), 3);
    let searched: Vec<_> =
        a.undecided_samples.iter().filter(|u| reported.contains(&(u.discs, u.index))).cloned().collect();
    let lightest_searched = searched.iter().map(&weight).fold(f64::INFINITY, f64::min);
    assert!(
        part.still.iter().filter(|u| u.untried).map(&weight).all(|w| w <= lightest_searched),
        "the heaviest searched first"
    );
    for u in &part.still {
        let was_searched = searched.iter().any(|s| (s.discs, s.index) == (u.discs, u.index));
        assert_eq!(u.untried, !was_searched, "{u:?}");
        if was_searched {
            assert!(
                whole.still.iter().any(|w| (w.discs, w.index) == (u.discs, u.index)),
                "still undecided in the whole"
            );
        }
    }
    // each layer: the whole's verdicts on the three, the document's on the rest
    let partial_layers: Vec<(u32, othello_census::estimate::Tally)> =
        part.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let rest: Vec<_> = part.still.iter().filter(|u| u.untried).cloned().collect();
    let finished = resolve(&frontier, 7, limits, 0, 2, &partial_layers, &rest, &[], &[], &record, &go).unwrap();
    assert_eq!(tallies(&finished), tallies(&whole));
}

/// A resolve stopped while a sample's exact stage runs cuts it (the
/// solver asks the stop as it works): that sample is neither reported
/// nor left undecided at the limits, but untried, as those not begun;
/// the verdicts given are the whole resolve's, and a resolve of the
/// untried then gives the whole resolve's tallies.
#[test]
fn a_resolve_stopped_inside_the_exact_stage_leaves_that_sample_untried() {
    use othello_census::estimate::{Decided, Searched, resolve};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};
    // 4x4 samples a search of one position leaves (as in the test of two
    // rounds below): the exact stage takes 10 to 10^4 conflicts on them
    let cfg = EstimateConfig { frontier_discs: 6, ..budgeted(1, config(vec![11, 12, 13, 14, 15, 16], 600, 2)) };
    let a = estimate::<B4>(&cfg, None, &EstimateLive::default());
    let n = a.undecided_samples.len();
    assert!(n >= 20, "{n} undecided: the test needs some");
    let layers: Vec<(u32, othello_census::estimate::Tally)> = a.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let frontier = Frontier::<B4>::build(6);
    // the search runs out as the estimate's did: each sample goes to the
    // exact stage
    let limits = SearchLimits { exact_conflicts: 100_000, ..cfg.limits };
    let seen = Mutex::new(Vec::<Decided>::new());
    let record = |d: Searched| match d {
        Searched::Decided(d) => seen.lock().unwrap().push(d),
        Searched::Deferred(d) => panic!("no first round, yet {d:?} deferred"),
    };
    let go = || false;
    let whole = resolve(&frontier, 7, limits, 0, 1, &layers, &a.undecided_samples, &[], &[], &record, &go).unwrap();
    assert_eq!(whole.untried, 0);
    let exact = |r: &othello_census::estimate::Resolution| {
        r.layers.iter().map(|l| l.tally.exact_reachable + l.tally.exact_unreachable).sum::<u64>()
    };
    assert!(exact(&whole) >= 3, "the exact stage decides samples: {:?}", whole.layers);
    // the stop says so at its 1,000th question: far more than the resolve
    // and the search ask before a sample's exact stage (three times), so
    // the solver asked it
    let asked = AtomicU64::new(0);
    let late = || asked.fetch_add(1, Ordering::Relaxed) >= 1_000;
    seen.lock().unwrap().clear();
    let part = resolve(&frontier, 7, limits, 0, 1, &layers, &a.undecided_samples, &[], &[], &record, &late).unwrap();
    let reported = seen.lock().unwrap().clone();
    assert!(reported.len() < n, "{} of {n} reported: the stop came after the last sample", reported.len());
    assert_eq!(part.untried, n - reported.len(), "the sample cut is untried, as those not begun");
    for u in &part.still {
        let r = reported.iter().find(|d| (d.discs, d.index) == (u.discs, u.index));
        assert_eq!(u.untried, r.is_none(), "{u:?}");
        if r.is_some() {
            assert!(whole.still.iter().any(|w| (w.discs, w.index) == (u.discs, u.index)), "left by the whole too");
        }
    }
    let partial_layers: Vec<(u32, othello_census::estimate::Tally)> =
        part.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let rest: Vec<_> = part.still.iter().filter(|u| u.untried).cloned().collect();
    let finished = resolve(&frontier, 7, limits, 0, 2, &partial_layers, &rest, &[], &[], &record, &go).unwrap();
    let tallies = |r: &othello_census::estimate::Resolution| r.layers.iter().map(|l| l.tally).collect::<Vec<_>>();
    assert_eq!(tallies(&finished), tallies(&whole));
}

/// An estimate stopped (Ctrl-C: `EstimateLive::stop`) while searches run
/// cuts them, and keeps no piece that holds a sample cut: whenever the
/// stop comes, a run going on from what was kept gives the document of a
/// run never stopped.
#[test]
fn an_estimate_stopped_inside_its_searches_goes_on_to_the_same_figures() {
    use othello_census::estimate::{EstimateId, EstimateProgress, Keeper, estimate_kept};
    // every sample past the cheap conditions goes to the exact stage
    let base = config(vec![11, 12, 13, 14, 15, 16], 3_000, 2);
    let cfg = EstimateConfig {
        limits: SearchLimits { budget: 1, exact_conflicts: 100_000, ..base.limits },
        frontier_discs: 6,
        ..base
    };
    let clock = std::time::Instant::now();
    let whole = estimate::<B4>(&cfg, None, &EstimateLive::default());
    let took = clock.elapsed();
    let exact: u64 = whole.layers.iter().map(|l| l.tally.exact_reachable + l.tally.exact_unreachable).sum();
    assert!(exact >= 100, "the test needs the exact stage: {:?}", whole.layers);
    let id = EstimateId(1);
    let mut stops = 0;
    for share in [0.05, 0.2, 0.4, 0.7] {
        let live = EstimateLive::default();
        let mut kept: Option<EstimateProgress> = None;
        let mut keep = |p: &EstimateProgress| kept = Some(p.clone());
        let mut keeper = Keeper::new(id, std::time::Duration::ZERO, &mut keep);
        let stopped = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(took.mul_f64(share));
                live.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            estimate_kept::<B4>(&cfg, None, &live, None, Some(&mut keeper))
        });
        if !stopped.interrupted {
            continue;
        }
        stops += 1;
        let from = kept.expect("a stopped run keeps its state");
        let resumed = estimate_kept::<B4>(&cfg, None, &EstimateLive::default(), Some(from), None);
        assert_eq!(tallies(&resumed), tallies(&whole), "stopped at {share} of its time");
        assert_eq!(resumed.undecided_samples, whole.undecided_samples);
        assert_eq!(resumed.rounds, whole.rounds);
    }
    assert!(stops >= 2, "{stops} runs stopped before their end, of 4");
}

/// `estimate::resolve` in two rounds (`--exact-first`): the exact
/// encoding first at a few conflicts, then at the resolve's own limit on
/// what the first round left (4x4 samples a search of one position
/// leaves: of 89, BatSat decides 25 within 100 conflicts and all but 7
/// within 1,000). The same layers and samples still
/// undecided as one round at that limit; the first round decides some
/// samples and leaves others, which the second round decides or leaves
/// as one round does. Stopped after the first round, the samples it
/// left are untried (not searched at the resolve's limits), and given as
/// `waiting`, a resumed resolve searches exactly them, once.
#[test]
fn a_resolve_in_two_rounds_gives_what_one_round_gives() {
    use othello_census::estimate::{Deferred, Searched, resolve};
    use othello_census::search::game_encoding::Solver;
    use std::sync::Mutex;
    let a = estimate::<B4>(
        &EstimateConfig { frontier_discs: 6, ..budgeted(1, config(vec![11, 12, 13, 14, 15, 16], 600, 2)) },
        None,
        &EstimateLive::default(),
    );
    let layers: Vec<(u32, othello_census::estimate::Tally)> = a.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let frontier = Frontier::<B4>::build(6);
    // the search as the estimate's, so that the exact encoding meets
    // every sample it left, and no relaxation before it
    let limits = SearchLimits {
        budget: 1,
        relaxation_conflicts: 0,
        exact_conflicts: 1_000,
        exact_solver: Solver::BatSat,
        beam_width: 0,
        sweep_width: 0,
    };
    let go = || false;
    let seen = Mutex::new(Vec::<Searched>::new());
    let record = |d: Searched| seen.lock().unwrap().push(d);
    let undecided = &a.undecided_samples;
    let one = resolve(&frontier, 7, limits, 0, 2, &layers, undecided, &[], &[], &record, &go).unwrap();
    assert!(!one.still.is_empty() && one.still.len() < undecided.len(), "one round decides some, not all");
    let tallies = |r: &othello_census::estimate::Resolution| r.layers.iter().map(|l| l.tally).collect::<Vec<_>>();
    seen.lock().unwrap().clear();
    let two = resolve(&frontier, 7, limits, 100, 2, &layers, undecided, &[], &[], &record, &go).unwrap();
    assert_eq!(tallies(&two), tallies(&one));
    assert_eq!(two.still, one.still);
    assert_eq!((two.untried, two.deferred), (0, 0));
    let reports = seen.lock().unwrap().clone();
    let deferred: Vec<Deferred> =
        reports.iter().filter_map(|r| if let Searched::Deferred(d) = r { Some(*d) } else { None }).collect();
    let decided: Vec<_> =
        reports.iter().filter_map(|r| if let Searched::Decided(d) = r { Some(*d) } else { None }).collect();
    assert_eq!(decided.len(), undecided.len(), "each sample decided (or left) once at the resolve's limits");
    assert!(deferred.iter().all(|d| d.exact_conflicts == 100));
    // the first round decides some (of what the exact stage decides at
    // all) and leaves others, some of them decided by the second
    let first_round = decided.len() - deferred.len();
    let exact_decided = |d: &othello_census::estimate::Decided| d.tally.exact_reachable + d.tally.exact_unreachable > 0;
    assert!(first_round > 0 && decided.iter().take(first_round).any(exact_decided), "the first round decides some");
    assert!(
        decided[first_round..].iter().any(exact_decided),
        "the second round decides some of the {} the first left",
        deferred.len()
    );
    // stopped after the first round: its leftovers untried, and resumed
    // with them waiting, each searched once more, at the resolve's limit
    // (the searches ask the stop too: it counts the samples reported)
    let queue_one = undecided.len();
    seen.lock().unwrap().clear();
    let after_first = || seen.lock().unwrap().len() >= queue_one;
    let stopped = resolve(&frontier, 7, limits, 100, 1, &layers, undecided, &[], &[], &record, &after_first).unwrap();
    assert_eq!((stopped.untried, stopped.deferred), (deferred.len(), deferred.len()));
    assert!(
        stopped
            .still
            .iter()
            .filter(|u| u.untried)
            .all(|u| deferred.iter().any(|d| (d.discs, d.index) == (u.discs, u.index)))
    );
    let earlier: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .filter_map(|r| if let Searched::Decided(d) = r { Some(*d) } else { None })
        .collect();
    seen.lock().unwrap().clear();
    let resumed = resolve(&frontier, 7, limits, 100, 2, &layers, undecided, &earlier, &deferred, &record, &go).unwrap();
    assert_eq!(tallies(&resumed), tallies(&one));
    assert_eq!(resumed.still, one.still);
    let again = seen.lock().unwrap().clone();
    assert_eq!(again.len(), deferred.len(), "only the samples left waiting searched");
    assert!(again.iter().all(
        |r| matches!(r, Searched::Decided(d) if deferred.iter().any(|w| (w.discs, w.index) == (d.discs, d.index)))
    ));
}

/// A run under a time limit is reproduced by its seed and sample count:
/// its rounds double from the first and only the last is cut, as
/// `--samples` cuts it (until this was so, a round cut to the time left
/// could be followed by more, and the sample count did not reproduce the
/// run).
#[test]
fn a_timed_run_is_reproduced_by_its_sample_count() {
    let timed = EstimateConfig {
        samples: None,
        time: Some(std::time::Duration::from_millis(1500)),
        ..config(vec![9, 12, 15], 0, 2)
    };
    let a = estimate::<B6>(&timed, None, &EstimateLive::default());
    assert!(a.samples > 0 && !a.interrupted);
    // the rounds of doubling from the first (64) that reach its count
    let (mut done, mut rounds) = (0u64, 0u32);
    while done < a.samples {
        done += done.max(64).min(a.samples - done);
        rounds += 1;
    }
    assert_eq!(a.rounds, rounds, "{} samples", a.samples);
    let b = estimate::<B6>(&config(vec![9, 12, 15], a.samples, 1), None, &EstimateLive::default());
    // samples the time limit left unsearched (when the last round ran
    // past it) are searched by a resolve at the same limits
    assert_eq!((untried_resolved(&a, &config(vec![], 0, 1)), a.rounds), (tallies(&b), b.rounds));
    if a.undecided_samples.iter().all(|u| !u.untried) {
        assert_eq!(a.total_positions, b.total_positions);
    }
}

fn tallies(e: &othello_census::estimate::Estimate) -> Vec<othello_census::estimate::Tally> {
    e.layers.iter().map(|l| l.tally).collect()
}

/// The tallies of 6x6 estimate `e` (of seed 7) once a resolve at the
/// limits of `cfg` has searched the samples it left untried.
fn untried_resolved(
    e: &othello_census::estimate::Estimate,
    cfg: &EstimateConfig,
) -> Vec<othello_census::estimate::Tally> {
    use othello_census::estimate::resolve;
    let untried: Vec<_> = e.undecided_samples.iter().filter(|u| u.untried).cloned().collect();
    if untried.is_empty() {
        return tallies(e);
    }
    let layers: Vec<(u32, othello_census::estimate::Tally)> = e.layers.iter().map(|l| (l.discs, l.tally)).collect();
    let limits = cfg.limits;
    let frontier = Frontier::<B6>::build(cfg.frontier_discs);
    let r = resolve(
        &frontier,
        e.seed,
        limits,
        0,
        2,
        &layers,
        &untried,
        &[],
        &[],
        &|_: othello_census::estimate::Searched| {},
        &|| false,
    )
    .unwrap();
    assert_eq!(r.untried, 0);
    r.layers.iter().map(|l| l.tally).collect()
}

/// An estimate whose time has run out (`EstimateLive::defer` set, as the
/// deadline sets it) still draws and counts every sample of its round,
/// and gives each the cheap conditions and the relaxation; the samples
/// those leave are listed untried, not searched. A resolve of those at
/// the same limits gives exactly the tallies of a run that was not cut
/// (so a time-boxed unit loses no work and its figures do not lean), and
/// layers the frontier answers are never deferred.
#[test]
fn an_estimate_past_its_deadline_lists_untried_samples_that_a_resolve_completes() {
    let run = |cfg: &EstimateConfig, deferred: bool| {
        let live = EstimateLive::default();
        live.defer.store(deferred, std::sync::atomic::Ordering::Relaxed);
        estimate::<B6>(cfg, None, &live)
    };
    // one layer a run: the rounds' shares then do not depend on the
    // tallies (a real deadline comes in the last round, after the last
    // allocation, but here the clock has run out from the start)
    let cfg = config(vec![26], 400, 2);
    let (cut, whole) = (run(&cfg, true), run(&cfg, false));
    assert!(!cut.interrupted);
    let (c, w) = (cut.layers[0].tally, whole.layers[0].tally);
    assert_eq!((c.samples, c.joined), (w.samples, w.joined));
    let untried = cut.undecided_samples.iter().filter(|u| u.untried).count();
    assert!(untried >= 20, "{untried} untried: the test needs samples past the cheap conditions");
    // nothing was searched, so every undecided sample is untried, and the
    // whole run decides many of them, some reachable
    assert_eq!(untried, cut.undecided_samples.len());
    assert_eq!(c.reachable, 0);
    assert!(w.reachable > 0 && whole.undecided_samples.len() < untried / 2, "{w:?}");
    assert!(whole.undecided_samples.iter().all(|w| !w.untried));
    for w in &whole.undecided_samples {
        assert!(cut.undecided_samples.iter().any(|u| (u.discs, u.index) == (w.discs, w.index)), "{w:?}");
    }
    assert_eq!(untried_resolved(&cut, &cfg), tallies(&whole));
    // its document: the catalogue takes it, and `estimate --resolve` at
    // its settings searches only the untried samples, to the whole run's
    // tallies
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.json");
    let doc = othello_census::report::estimate::estimate_json(&cut, "test", &Default::default());
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    catalog_add(&dir.path().join("cat"), &file);
    let o = Command::new(common::bin())
        .args(["estimate", "--json", "--budget", "200000", "--beam-width", "0", "--sweep-width", "0"])
        .args(["--exact-conflicts", "0", "--resolve"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let resolved: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let l = &resolved["layers"][0];
    let t = whole.layers[0].tally;
    assert_eq!(
        ["reachable", "unreachable", "undecided"].map(|f| l[f].as_u64().unwrap()),
        [t.reachable, t.unreachable, t.undecided],
        "{l}"
    );
    assert_eq!(resolved["resolved"]["retried"].as_u64(), Some(untried as u64), "{}", resolved["resolved"]);
    // the frontier's layer is answered whatever the clock
    let at_frontier = config(vec![5], 4000, 2);
    let (cut, whole) = (run(&at_frontier, true), run(&at_frontier, false));
    assert!(whole.layers[0].tally.reachable > 0 && cut.undecided_samples.is_empty(), "{:?}", cut.layers[0].tally);
    assert_eq!(tallies(&cut), tallies(&whole));
}

/// The estimate of 4x4 layers against the exact census: the intervals of
/// most layers hold the exact counts, and the point estimates of the large
/// layers are close.
#[test]
fn estimates_of_4x4_bracket_the_census() {
    let exact = oracle::census(4, 16);
    let e = estimate::<B4>(&config((5..=16).collect(), 200_000, 2), None, &EstimateLive::default());
    let mut inside = 0;
    for l in &e.layers {
        let x = exact[l.discs as usize].positions as f64;
        assert_eq!(l.candidates, candidates(4, l.discs));
        assert_eq!(l.tally.undecided, 0);
        if l.positions.low <= x && x <= l.positions.high {
            inside += 1;
        }
        if x > 5000.0 {
            assert!((l.positions.estimate - x).abs() < 0.25 * x, "layer {}: {} vs {x}", l.discs, l.positions.estimate);
        }
    }
    // 12 layers at 95%: at most 2 outside (a failure here is a 1-in-50 event
    // for a correct estimator with this seed fixed, so it is deterministic)
    assert!(inside >= 10, "{inside} of 12 inside");
    let total: f64 = exact[5..].iter().map(|l| l.positions as f64).sum();
    assert!(e.total_positions.low <= total && total <= e.total_positions.high, "{:?} {total}", e.total_positions);
}

/// `reachable` says what proved a position unreachable: the frontier,
/// which cheap condition, the relaxation, or how many positions the
/// search ended every line in; the JSON document says it as `proof`.
#[test]
fn reachable_says_what_proved_it() {
    let says = |args: &[&str], needle: &str| {
        let out = Command::new(common::bin()).arg("reachable").args(args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains(needle), "{args:?}: {text}");
    };
    let cut6 = "X----- ------ --OX-- --XO-- ------ ------ O";
    says(&["--position", cut6], "proven by the frontier: not among the reachable positions of at most 14 discs");
    let cut8 = "XXXXXXXX X------- X------- X--XO--- X--OX--- X------- X------- X------- X";
    says(&["--position", cut8], "proven by the cheap conditions: the discs are not all joined to the centre");
    let corner = "X.... O X.. X O. .... O";
    let never = "proven by the cheap conditions: a disc that can never have been flipped disagrees";
    says(&["--position", corner, "--frontier", "4"], never);
    let p = "OO-- -XOX OOO- -XX- X";
    says(&["--position", p, "--frontier", "4"], "proven by the flip-history relaxation: SAT, unsatisfiable");
    let quick = ["--position", p, "--frontier", "4", "--sat-conflicts", "0"];
    says(&quick, "proven by the backward search: every line ends, 2 positions");
    let out = Command::new(common::bin()).arg("reachable").args(quick).arg("--json").output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "unreachable");
    assert_eq!(doc["stage"], "backward search");
    assert_eq!(doc["proof"], "backward search: every line ends, 2 positions");
    // the exact encoding, where the search (of one position) runs out and
    // nothing else is tried: its proof's conflicts, in words and in JSON
    let exact = [
        "--position",
        "XOX- XXXO XXX- -OX- O",
        "--frontier",
        "4",
        "--sat-conflicts",
        "0",
        "--budget",
        "1",
        "--beam-width",
        "0",
        "--sweep-width",
        "0",
        "--exact-conflicts",
        "100000",
    ];
    says(
        &exact,
        "proven by the exact game encoding: SAT, unsatisfiable for every game of 8 moves, passes anywhere, after",
    );
    let out = Command::new(common::bin()).arg("reachable").args(exact).arg("--json").output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["verdict"].as_str(), doc["stage"].as_str()),
        (Some("unreachable"), Some("exact game encoding (SAT)"))
    );
    let spent = doc["exact_conflicts_spent"].as_u64().unwrap();
    assert!(spent > 0 && spent <= 100_000 + 10_000, "{doc}");
    assert!(doc["proof"].as_str().unwrap().ends_with(&format!("after {spent} conflicts")), "{doc}");
    // the limits a verdict was reached at, every one as given (each a
    // value of its own, so that none is written from another's), so that
    // the command can be rebuilt from the document
    let out = Command::new(common::bin())
        .args(["reachable", "--json", "--position", "XOX- XXXO XXX- -OX- O", "--frontier", "4"])
        .args(["--budget", "5", "--sat-conflicts", "3", "--beam-width", "7", "--sweep-width", "9"])
        .args(["--exact-conflicts", "11"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let limits = ["budget", "sat_conflicts", "beam_width", "sweep_width", "exact_conflicts"].map(|k| doc[k].as_u64());
    assert_eq!(limits, [Some(5), Some(3), Some(7), Some(9), Some(11)], "{doc}");
    assert!(doc["exact_solver"].is_string(), "{doc}");
    // a reachable position has no proof of unreachability
    let out = Command::new(common::bin())
        .args(["reachable", "--json", "--position", &Position::<B6>::start().play(8).line()])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "reachable");
    assert!(doc["proof"].is_null(), "{doc}");
}

#[test]
fn reachable_command_proves_both_ways() {
    // a disc cut off from the centre (a1) on 6x6: unreachable at once
    let cut = "X----- ------ --OX-- --XO-- ------ ------ O";
    let out = Command::new(common::bin()).args(["reachable", "--size", "6", "--position", cut]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unreachable"), "{text}");
    // after d3 c3 (6x6): reachable, with a game that the binary replayed;
    // replay it here too, with the oracle's rules
    let p = Position::<B6>::start().play(8);
    let p = p.play(p.legal_moves().first().unwrap());
    let text: String = p.to_string().lines().take(6).collect::<Vec<_>>().join(" ").replace('.', "-");
    let side = if p.side_to_move() == Color::Black { "X" } else { "O" };
    let out = Command::new(common::bin())
        .args(["reachable", "--size", "6", "--json", "--position", &format!("{text} {side}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "reachable");
    let naive = replay_on_oracle(6, &doc["game"]);
    assert_eq!(naive.bits(), (p.black().0, p.white().0));
    // a bad position: one clear line, non-zero exit
    let dir = tempfile::tempdir().unwrap();
    common::fails_with(dir.path(), &["reachable", "--size", "6", "--position", "XO"], "--position");
    common::fails_with(dir.path(), &["estimate", "--size", "6", "--discs", "3-40"], "--discs");
    // searches that cannot fit the memory (10^15 positions: 2^51 classes
    // of 16 bytes, 48 PiB a search), refused before any work, with the
    // largest budget that fits
    let huge = "1000000000000000";
    for args in [
        &["estimate", "--size", "4", "--samples", "10", "--budget", huge, "--threads", "2"][..],
        &["estimate", "--size", "4", "--samples", "10", "--budget", huge, "--threads", "1"],
        &["reachable", "--size", "6", "--position", &format!("{text} {side}"), "--budget", huge],
    ] {
        common::fails_with(dir.path(), args, "a --budget of at most");
        let out = Command::new(common::bin()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.contains("fewer --threads"), args.contains(&"2"), "{err}");
        let fits: u64 = err.split("at most ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!((1 << 20..1 << 40).contains(&fits), "{err}");
    }
}

/// `reachable --census-layer`: the estimates' search, with the game
/// completed below the layer. On 4x4 (frontier 6, a census to 9 discs),
/// every reachable position of 10 and 11 discs of a sample gets a game
/// that the binary replayed and that ends on it, and every candidate the
/// oracle says is unreachable is unreachable, as without the layer.
#[test]
fn reachable_command_answers_from_a_census_layer() {
    let dir = tempfile::tempdir().unwrap();
    let census_dir = census::<B4>(&dir.path().join("c"), LayerBy::Discs, 9, true);
    let reachable = oracle_set(4, 11);
    let mut rng = SplitMix::for_sample(3, 0, 0);
    let (mut yes, mut no) = (0, 0);
    while yes < 6 || no < 6 {
        let discs = 10 + (rng.below(2) as u32);
        let (b, w, black_to_move) = draw::<B4>(discs, &mut rng);
        let is = reachable.contains(&(b, w, black_to_move));
        if (is && yes >= 6) || (!is && no >= 6) {
            continue;
        }
        let p = position::<B4>(b, w, black_to_move);
        let ask = |layer: bool| {
            let mut args = vec!["reachable", "--size", "4", "--frontier", "6", "--json", "--budget", "100000000"];
            if layer {
                args.extend(["--census-layer", census_dir.to_str().unwrap()]);
            }
            let text = p.line();
            args.extend(["--position", &text]);
            let out = Command::new(common::bin()).args(&args).output().unwrap();
            assert!(out.status.success(), "{out:?}");
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
        };
        let doc = ask(true);
        assert_eq!(doc["census_layer"]["discs"], 9, "{doc}");
        assert_eq!(doc["verdict"], if is { "reachable" } else { "unreachable" }, "{}", p.line());
        assert_eq!(ask(false)["verdict"], doc["verdict"]);
        if is {
            let naive = replay_on_oracle(4, &doc["game"]);
            assert_eq!((naive.bits(), naive.to_move == oracle::BLACK), ((b, w), black_to_move));
            yes += 1;
        } else {
            no += 1;
        }
    }
}

/// A 4x4 layer at a budget of 3 positions and no beam or sweep: many
/// undecided samples to decide again.
const SMALL_4X4: [&str; 12] =
    ["--discs", "11", "--samples", "3000", "--seed", "4", "--budget", "3", "--beam-width", "0", "--sweep-width", "0"];

/// `estimate --size 4 -q --json --out OUT ARGS...`, which must succeed:
/// its JSON document.
fn estimate_4x4(args: &[&str], out: &std::path::Path) -> serde_json::Value {
    let o = Command::new(common::bin())
        .args(["estimate", "--size", "4", "-q", "--json", "--out"])
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `estimate --resolve --part K/N --time T`: a part stopped by its time
/// (here a millisecond, which passes while the frontier is built, before
/// any sample) exits 0, writes no document and leaves its progress and
/// its `.part-K-of-N.progress` copy, which a gather takes; the same
/// command without --time goes on to the part's end. `--time 0` with
/// --part is refused in one line.
#[test]
fn a_part_stopped_by_its_time_keeps_its_copy_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    estimate_4x4(&SMALL_4X4, &dir.path().join("a"));
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let part = dir.path().join("part");
    let run = |extra: &[&str]| {
        Command::new(common::bin())
            .args(["estimate", "--resolve", f, "--budget", "1000000", "--part", "1/3", "--out"])
            .arg(&part)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--time", "1ms"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("stopped by --time") && err.contains("to gather"), "{o:?}");
    let names = |d: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    };
    assert!(names(&part).iter().all(|n| !n.ends_with(".json")), "{:?}", names(&part));
    let copy = names(&part).into_iter().find(|n| n.ends_with(".part-1-of-3.progress")).expect("the part's copy");
    // the copy is a progress file of this resolve: a gather takes it
    let gathered = dir.path().join("gathered");
    let o = Command::new(common::bin())
        .args(["estimate", "-q", "--json", "--resolve", f, "--budget", "1000000", "--out"])
        .arg(&gathered)
        .arg("--gather")
        .arg(part.join(&copy))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let whole = estimate_4x4(&["--resolve", f, "--budget", "1000000"], &dir.path().join("whole"));
    assert_eq!(doc["undecided_samples"], whole["undecided_samples"]);
    // the same command goes on to the part's end
    let o = run(&["-q"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("part 1 of 3 done"), "{o:?}");
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--part", "1/3", "--time", "0", "--out", "p0"],
        "--time 0 writes the partial document",
    );
}

/// `estimate --resolve --part K/N`: three parts run apart each write no
/// document and keep their share of the samples; together their
/// progress files hold every listed sample once; a resolve that gathers
/// them (`--gather`) searches nothing more and writes the document of the
/// resolve run whole. A progress file of another resolve, a part out of
/// range, or a part without --out is refused in one line.
#[test]
fn a_resolve_in_parts_gathers_to_the_whole_resolves_document() {
    let dir = tempfile::tempdir().unwrap();
    let small = estimate_4x4(&SMALL_4X4, &dir.path().join("a"));
    let undecided = small["totals"]["undecided"].as_u64().unwrap();
    assert!(undecided > 20, "{undecided}: the test needs undecided samples");
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    // the document's name, its id in the catalogue, carries its seed
    assert!(f.ends_with("-seed4.json"), "{f}");
    let whole = estimate_4x4(&["--resolve", f, "--budget", "1000000"], &dir.path().join("whole"));
    let resolve = |extra: &[&str], out: &std::path::Path| {
        Command::new(common::bin())
            .args(["estimate", "--resolve", f, "--budget", "1000000", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let mut files = Vec::new();
    let mut held = 0;
    for k in 1..=3 {
        let out = dir.path().join(format!("part{k}"));
        let o = resolve(&["--part", &format!("{k}/3"), "--json"], &out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && err.contains(&format!("part {k} of 3 done")), "{o:?}");
        // --json: what the part left where, on stdout
        let said: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((said["part"].as_u64(), said["parts"].as_u64()), (Some(k), Some(3)), "{said}");
        assert_eq!(said["samples_listed"].as_u64(), Some(undecided), "{said}");
        // a whole document's resolve at a stronger search tries every listed sample
        assert_eq!(said["samples_to_search"].as_u64(), Some(undecided), "{said}");
        let names: Vec<String> =
            std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.starts_with("estimate-")), "a part writes no document: {names:?}");
        let copy = format!(".part-{k}-of-3.progress");
        let file = out.join(names.iter().find(|n| n.ends_with(&copy)).expect("the part's named copy"));
        assert!(names.iter().any(|n| n.ends_with(".progress") && !n.contains(".part-")), "its own: {names:?}");
        let o = Command::new(common::bin()).arg("inspect").arg(&file).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        let count: u64 = text
            .lines()
            .find_map(|l| l.split_once(" samples searched again so far"))
            .and_then(|(n, _)| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        // its share of the list: every third from the k-th
        assert_eq!(count, (undecided + 3 - k) / 3, "part {k}: {text}");
        assert_eq!(said["samples_of_this_part"].as_u64(), Some(count), "{said}");
        assert_eq!(said["samples_kept"].as_u64(), Some(count), "{said}");
        assert_eq!(said["part_file"].as_str(), file.to_str(), "{said}");
        let own = file.to_str().unwrap().replace(&copy, ".progress");
        assert_eq!(said["progress_file"].as_str(), Some(own.as_str()), "{said}");
        held += count;
        files.push(file);
    }
    assert_eq!(held, undecided);
    let gathered = dir.path().join("gathered");
    let mut args = vec!["--json", "--gather"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let o = resolve(&args, &gathered);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("deciding again 0 undecided samples"), "{o:?}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for field in ["layers", "totals", "undecided_samples"] {
        assert_eq!(doc[field], whole[field], "{field}");
    }
    assert_eq!(doc["resolved"]["decided"], whole["resolved"]["decided"]);
    // refusals: another resolve's file (another budget), a part out of
    // range, a part without --out
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "2000000", "--out", "x", "--gather", files[0].to_str().unwrap()],
        "belongs to resolve",
    );
    // a resolve that starts afresh beside another's progress says so,
    // even with -q (it was most likely meant to resume it)
    let beside = dir.path().join("part1");
    let o = Command::new(common::bin())
        .args(["estimate", "-q", "--resolve", f, "--budget", "2000000", "--part", "1/3", "--out"])
        .arg(&beside)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("holds the progress of another resolve"), "{o:?}");
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--out", "y", "--part", "4/3"],
        "--part",
    );
    common::fails_with(dir.path(), &["estimate", "--resolve", f, "--budget", "1000000", "--part", "1/3"], "--out");
    let g = files[0].to_str().unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--out", "z", "--part", "1/3", "--gather", g],
        "--gather",
    );
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--out", "w", "--gather", "no-such.progress"],
        "no such file",
    );
}

/// `estimate --resolve --subsample D`: a resolve limited to a fixed
/// random subsample of the undecided samples searches only its members
/// (the others listed as before, marked untried, and counted as left
/// out); the subsample of 4 lies inside that of 2; and a resolve of that
/// partial document at the same settings without the limit comes to the
/// document of the resolve run whole. A D that is not a power of two, or a
/// subsample with nothing in it, is refused in one line.
#[test]
fn a_resolve_of_a_subsample_searches_its_members_and_the_rest_after() {
    let dir = tempfile::tempdir().unwrap();
    let small = estimate_4x4(&SMALL_4X4, &dir.path().join("a"));
    let listed = small["undecided_samples"].as_array().unwrap().clone();
    assert!(listed.len() > 20, "{}: the test needs undecided samples", listed.len());
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let whole = estimate_4x4(&["--resolve", f, "--budget", "1000000"], &dir.path().join("whole"));
    let key = |u: &serde_json::Value| (u["discs"].as_u64().unwrap(), u["index"].as_u64().unwrap());
    let left = |doc: &serde_json::Value| -> std::collections::HashMap<(u64, u64), bool> {
        doc["undecided_samples"].as_array().unwrap().iter().map(|u| (key(u), u["untried"] == true)).collect()
    };
    let whole_left = left(&whole);
    // the samples each subsample searched: those no longer listed, or
    // listed as searched (not untried)
    let mut searched_by = Vec::new();
    for d in [4u64, 2] {
        let doc = estimate_4x4(
            &["--resolve", f, "--budget", "1000000", "--subsample", &d.to_string()],
            &dir.path().join(format!("sub{d}")),
        );
        let now = left(&doc);
        let searched: std::collections::HashSet<(u64, u64)> =
            listed.iter().map(key).filter(|k| now.get(k).is_none_or(|&untried| !untried)).collect();
        // exactly the listed samples the subsample's definition holds
        let defined: std::collections::HashSet<(u64, u64)> = listed
            .iter()
            .map(key)
            .filter(|&(k, i)| othello_census::estimate::in_subsample(4, k as u32, i, d))
            .collect();
        assert_eq!(searched, defined, "1 in {d}");
        let outside = listed.len() - searched.len();
        assert!(!searched.is_empty() && outside > 0, "1 in {d}: {} searched of {}", searched.len(), listed.len());
        // about one in d: at most twice that, and more than none
        assert!(
            searched.len() <= 2 * listed.len() / d as usize + 3,
            "1 in {d}: {} of {}",
            searched.len(),
            listed.len()
        );
        assert_eq!(doc["resolved"]["subsample"]["one_in"].as_u64(), Some(d), "{}", doc["resolved"]);
        assert_eq!(doc["resolved"]["subsample"]["outside"].as_u64(), Some(outside as u64), "{}", doc["resolved"]);
        assert_eq!(doc["resolved"]["retried"].as_u64(), Some(searched.len() as u64), "{}", doc["resolved"]);
        // its first phase: the document given, its layers' tallies as they were
        let first_phase = &doc["resolved"]["subsample"]["first_phase"];
        assert_eq!(first_phase["from_id"].as_str(), first.file_stem().unwrap().to_str());
        let given: Vec<serde_json::Value> = small["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| serde_json::json!({"discs": l["discs"], "tally": l["tally"]}))
            .collect();
        assert_eq!(first_phase["layers"], serde_json::Value::Array(given));
        // a searched sample has the whole resolve's verdict
        for k in &searched {
            assert_eq!(now.contains_key(k), whole_left.contains_key(k), "sample {k:?}");
        }
        // what the document decided beyond the one given is the
        // subsample's alone: the samples it decided, and no others
        let gone = |a: &serde_json::Value, b: &serde_json::Value| {
            a["totals"]["undecided"].as_u64().unwrap() - b["totals"]["undecided"].as_u64().unwrap()
        };
        let decided = searched.iter().filter(|k| !now.contains_key(k)).count() as u64;
        assert_eq!(gone(&small, &doc), decided);
        assert_eq!(doc["resolved"]["decided"].as_u64(), Some(decided));
        searched_by.push((d, doc, searched));
    }
    let (_, quarter, in4) = &searched_by[0];
    let (_, _, in2) = &searched_by[1];
    assert!(in4.is_subset(in2), "the subsample of 4 lies inside that of 2");
    assert!(in2.len() > in4.len());
    // the rest of the samples: the partial document of the subsample of 4
    // resolved at its own settings, without the limit
    let partial = dir.path().join("sub4-doc.json");
    std::fs::write(&partial, serde_json::to_string_pretty(quarter).unwrap()).unwrap();
    let rest = estimate_4x4(&["--resolve", partial.to_str().unwrap(), "--budget", "1000000"], &dir.path().join("rest"));
    for field in ["layers", "totals", "undecided_samples"] {
        assert_eq!(rest[field], whole[field], "{field}");
    }
    // it ends the double sampling: one in 1 recorded, the first phase
    // kept, and no later subsample of its document
    assert_eq!(rest["resolved"]["subsample"]["one_in"].as_u64(), Some(1), "{}", rest["resolved"]);
    assert_eq!(rest["resolved"]["subsample"]["first_phase"], quarter["resolved"]["subsample"]["first_phase"]);
    let ended = dir.path().join("ended.json");
    std::fs::write(&ended, serde_json::to_string_pretty(&rest).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", ended.to_str().unwrap(), "--budget", "2000000", "--subsample", "4"],
        "ends a double sampling",
    );
    // widened to one in 2, the first phase stays the document before the
    // subsample of 4, and what is searched is the subsample of 2's
    let p = partial.to_str().unwrap();
    let half = estimate_4x4(&["--resolve", p, "--budget", "1000000", "--subsample", "2"], &dir.path().join("half"));
    assert_eq!(half["resolved"]["subsample"]["first_phase"], quarter["resolved"]["subsample"]["first_phase"]);
    assert_eq!(half["undecided_samples"], searched_by[1].1["undecided_samples"]);
    assert_eq!(half["layers"], searched_by[1].1["layers"]);
    // narrowed to one in 8, the subsample of 4's verdicts would not be held
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", p, "--budget", "1000000", "--subsample", "8"],
        "does not hold",
    );
    // refusals
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--subsample", "3"],
        "power of two",
    );
    common::fails_with(dir.path(), &["estimate", "--size", "4", "--subsample", "4"], "--resolve");
    // one in 2^20 of a few dozen samples: none (the subsample is fixed, so
    // this holds for this seed for good)
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "1000000", "--subsample", "1048576"],
        "nothing to search",
    );
}

/// The catalogue's figure by double sampling: 4x4 layers 10-16 estimated
/// with a tiny budget (many undecided samples), layers 4-9 counted; a
/// resolve of a subsample of one in 2 at a large budget; once its
/// document pools, the whole-board answer gives positions and classes by
/// double sampling beside the usual intervals, and those intervals hold
/// the exact 4x4 counts of the census table in results/ (the positions a
/// published value, A124005 summed). Before, with no subsample's
/// document, it gives none.
#[test]
fn the_catalogue_gives_positions_and_classes_by_double_sampling_once_a_subsample_pools() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, sub, cat) = (dir.path().join("runs"), dir.path().join("sub"), dir.path().join("cat"));
    let run = |args: &[&str], out: &std::path::Path| {
        let o = Command::new(common::bin()).args(args).arg("--out").arg(out).output().unwrap();
        assert!(o.status.success(), "{o:?}");
    };
    let json_in = |d: &std::path::Path| {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .unwrap()
    };
    run(
        &[
            "estimate",
            "--size",
            "4",
            "--discs",
            "10-16",
            "--samples",
            "4000",
            "--seed",
            "9",
            "-q",
            "--budget",
            "3",
            "--beam-width",
            "0",
            "--sweep-width",
            "0",
        ],
        &runs,
    );
    let first = json_in(&runs);
    let work = dir.path().join("work");
    let counted = dir.path().join("counted");
    run(
        &[
            "count",
            "--size",
            "4",
            "--engine",
            "layers",
            "--max-discs",
            "9",
            "-q",
            "--json",
            "--work-dir",
            work.to_str().unwrap(),
        ],
        &counted,
    );
    catalog_add(&cat, &first);
    catalog_add(&cat, &json_in(&counted));
    let line = || {
        std::fs::read_to_string(cat.join("README.md"))
            .unwrap()
            .lines()
            .find(|l| l.starts_with("**The whole 4x4 board**"))
            .map(str::to_string)
            .expect("a whole-board line")
    };
    let before = line();
    assert!(!before.contains("double sampling"), "{before}");
    // a document's ID carries the second it was written in: the resolve's
    // must not fall in the first run's second (it did once, in CI)
    std::thread::sleep(std::time::Duration::from_millis(1100));
    run(
        &[
            "estimate",
            "--resolve",
            first.to_str().unwrap(),
            "--budget",
            "1000000",
            "--beam-width",
            "0",
            "--sweep-width",
            "0",
            "--subsample",
            "2",
            "-q",
        ],
        &sub,
    );
    let resolved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json_in(&sub)).unwrap()).unwrap();
    assert!(resolved["resolved"]["subsample"]["outside"].as_u64().unwrap() > 10, "{}", resolved["resolved"]);
    catalog_add(&cat, &json_in(&sub));
    let after = line();
    let (_, words) = after.split_once("by double sampling").unwrap_or_else(|| panic!("{after}"));
    // "... (..., one in 2, ...; 0 of its M members still undecided, ...) P positions (95%: LO to HI)"
    assert!(words.contains("one in 2") && words.contains(" 0 of its "), "the subsample was decided whole: {words}");
    let (before_point, ends) = words.split_once(" positions (95%: ").unwrap_or_else(|| panic!("{words}"));
    let point: f64 = before_point.rsplit(' ').next().unwrap().parse().unwrap();
    let (lo, hi) = ends.split_once(" to ").unwrap();
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.split(')').next().unwrap().parse().unwrap());
    let table =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/4x4-by-discs.csv"))
            .unwrap();
    // the table's column `col` summed over the layers: positions 1, classes 2
    let exact = |col: usize| -> f64 {
        table
            .lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .map(|l| l.split(',').nth(col).unwrap().parse::<f64>().unwrap())
            .sum()
    };
    let (positions, classes) = (exact(1), exact(2));
    eprintln!("by double sampling{words}; exact {positions} positions, {classes} classes");
    assert!(lo <= point && point <= hi, "{words}");
    assert!(lo <= positions && positions <= hi, "the exact {positions} outside {lo} to {hi}: {words}");
    // "..., P classes (95%: LO to HI), ...": the classes follow the positions
    let (before_point, ends) = words.split_once(" classes (95%: ").unwrap_or_else(|| panic!("{words}"));
    let c_point: f64 = before_point.rsplit(' ').next().unwrap().parse().unwrap();
    let (c_lo, c_hi) = ends.split_once(" to ").unwrap();
    let (c_lo, c_hi): (f64, f64) = (c_lo.parse().unwrap(), c_hi.split(')').next().unwrap().parse().unwrap());
    assert!(c_lo <= c_point && c_point <= c_hi && c_hi < hi, "{words}");
    assert!(c_lo <= classes && classes <= c_hi, "the exact {classes} classes outside {c_lo} to {c_hi}: {words}");
}

/// `catalog add --new --dir CAT FILE`, which must succeed.
fn catalog_add(cat: &std::path::Path, file: &std::path::Path) {
    let o = Command::new(common::bin()).args(["catalog", "add", "--new", "--dir"]).arg(cat).arg(file).output();
    assert!(o.as_ref().unwrap().status.success(), "{o:?}");
}

/// `estimate --resolve --time`: a resolve stopped by its time writes a
/// partial document, every verdict exact: the samples it searched (here,
/// with `--time 0`, which searches nothing new and so does not depend on
/// the machine's speed, those a part decided, gathered) as the whole
/// resolve leaves them, the others undecided and marked untried; the
/// catalogue takes it, and takes
/// the whole resolve's document over it. A resolve of the partial
/// document at its own settings searches only the untried samples and
/// writes the whole resolve's document; at weaker settings, or once
/// nothing is untried, it is refused, as is --time without --out.
#[test]
fn a_resolve_stopped_by_its_time_writes_a_partial_document_that_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    estimate_4x4(&SMALL_4X4, &dir.path().join("a"));
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let whole = estimate_4x4(&["--resolve", f, "--budget", "1000000"], &dir.path().join("whole"));
    let listed = whole["resolved"]["retried"].as_u64().unwrap();
    assert!(listed > 20, "{listed}: the test needs undecided samples");
    // part 1 of 3 searched apart, then gathered by a resolve out of time
    let part = dir.path().join("part");
    let o = Command::new(common::bin())
        .args(["estimate", "-q", "--resolve", f, "--budget", "1000000", "--part", "1/3", "--out"])
        .arg(&part)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let file = std::fs::read_dir(&part)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".part-1-of-3.progress"))
        .unwrap();
    let searched_first = listed.div_ceil(3);
    let partial_dir = dir.path().join("partial");
    let o = Command::new(common::bin())
        .args(["estimate", "--json", "--resolve", f, "--budget", "1000000", "--time", "0", "--gather"])
        .arg(&file)
        .arg("--out")
        .arg(&partial_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("samples not searched"), "{o:?}");
    let partial: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let untried = partial["resolved"]["untried"].as_u64().unwrap();
    // --time 0 searches nothing new: the part's third is decided (taken
    // from its file), the rest untried
    assert_eq!(untried, listed - searched_first, "{untried} of {listed}");
    let list = partial["undecided_samples"].as_array().unwrap();
    assert_eq!(list.iter().filter(|u| u["untried"] == true).count() as u64, untried);
    assert_eq!(partial["resolved"]["retried"].as_u64().unwrap() + untried, listed);
    // between the document resolved and the whole resolve: its verdicts
    // are some of the whole's
    let total = |d: &serde_json::Value, f: &str| d["totals"][f].as_u64().unwrap();
    assert!(total(&partial, "reachable") <= total(&whole, "reachable"));
    assert!(total(&partial, "undecided") >= total(&whole, "undecided"));
    assert!(total(&partial, "undecided") <= listed);
    for u in list.iter().filter(|u| u["untried"] != true) {
        assert!(whole["undecided_samples"].as_array().unwrap().iter().any(|w| w["index"] == u["index"]), "{u}");
    }
    // the catalogue takes the partial document, and the whole over it
    let partial_file = std::fs::read_dir(&partial_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let cat = dir.path().join("cat");
    let whole_file = std::fs::read_dir(dir.path().join("whole")).unwrap().next().unwrap().unwrap().path();
    for (file, name) in [(&partial_file, "partial.json"), (&whole_file, "whole.json")] {
        std::fs::copy(file, dir.path().join(name)).unwrap();
        catalog_add(&cat, &dir.path().join(name));
        let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
        let row: Vec<&str> = csv.lines().find(|l| l.starts_with("11,")).unwrap().split(',').collect();
        assert_eq!(*row.last().unwrap(), name.trim_end_matches(".json"), "{csv}");
    }
    // the partial document goes on at its own settings: only its untried
    // samples are searched, and the whole resolve's document comes out
    // (either way it searches the untried samples alone, and gives the
    // whole resolve's layers, totals and list)
    let goes_on = |file: &str, out: &std::path::Path| {
        let o = Command::new(common::bin())
            .args(["estimate", "--json", "--resolve", file, "--budget", "1000000", "--out"])
            .arg(out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && err.contains(&format!("deciding again {untried} undecided")), "{o:?}");
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for field in ["layers", "totals", "undecided_samples"] {
            assert_eq!(doc[field], whole[field], "{field}");
        }
        doc
    };
    let p = partial_file.to_str().unwrap();
    // at its own settings only: another relaxation is refused in one line
    let relaxed = partial["sat_conflicts"].as_u64().unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", p, "--budget", "1000000", "--sat-conflicts", &(relaxed + 1).to_string()],
        &format!("a partial document goes on at its own settings: give --sat-conflicts {relaxed}"),
    );
    let finished = goes_on(p, &dir.path().join("finished"));
    // its chain of commands: the run's, then the stopped resolve's
    let partial: serde_json::Value = serde_json::from_slice(&std::fs::read(&partial_file).unwrap()).unwrap();
    assert_eq!(partial["resolved"]["from_commands"].as_array().map(Vec::len), Some(1));
    let chain = [partial["resolved"]["from_commands"][0].clone(), partial["command"].clone()];
    assert_eq!(finished["resolved"]["from_commands"], serde_json::json!(chain));
    assert_eq!(finished["resolved"]["from_id"], partial_file.file_stem().unwrap().to_str().unwrap());
    assert_eq!(finished["resolved"]["retried"].as_u64(), Some(untried));
    assert_eq!(finished["resolved"]["untried"].as_u64(), Some(0));
    // or the same command goes on from its progress file (which holds
    // what the partial document decided)
    goes_on(f, &partial_dir);
    // a part of the partial document at its own settings shares out its
    // untried samples only, and says so (here every sample it searched
    // was decided, so all it lists are untried; 4x4 offers no budget
    // above the run's that leaves searched samples undecided)
    let o = Command::new(common::bin())
        .args(["estimate", "--json", "--resolve", p, "--budget", "1000000", "--part", "2/2", "--out"])
        .arg(dir.path().join("half"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let said: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(said["samples_listed"].as_u64(), Some(list.len() as u64), "{said}");
    assert_eq!(said["samples_to_search"].as_u64(), Some(untried), "{said}");
    assert_eq!(said["samples_of_this_part"].as_u64(), Some(untried / 2), "{said}");
    let also = if untried < list.len() as u64 { format!(", of {} listed", list.len()) } else { String::new() };
    let words = format!("part 2 of 2: {} of the {untried} to search{also})", untried / 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&words), "{words}: {err}");
    // refusals: other settings than its own, nothing untried, --time
    // without --out
    common::fails_with(dir.path(), &["estimate", "--resolve", p, "--budget", "999999"], "untried samples");
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", p, "--budget", "1000000", "--sat-conflicts", "7"],
        "--sat-conflicts",
    );
    let w = whole_file.to_str().unwrap();
    common::fails_with(dir.path(), &["estimate", "--resolve", w, "--budget", "1000000"], "not larger");
    common::fails_with(dir.path(), &["estimate", "--resolve", f, "--budget", "2000000", "--time", "1m"], "--out");
    // --time 0 with nothing kept for the resolve: no document, exit 0,
    // one line that says so
    let fresh = dir.path().join("fresh");
    let o = Command::new(common::bin())
        .args(["estimate", "--resolve", f, "--budget", "1000000", "--time", "0", "--out"])
        .arg(&fresh)
        .output()
        .unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stderr).contains("nothing decided is kept"), "{o:?}");
    assert!(!std::fs::read_dir(&fresh).unwrap().any(|e| e.unwrap().path().extension().is_some_and(|x| x == "json")));
    // --time 0 is a resolve's alone
    common::fails_with(dir.path(), &["estimate", "--size", "4", "--time", "0"], "--time 0 is for a resolve");
}

/// `estimate --resolve`: the undecided samples of a finished estimate
/// decided again at a larger budget give, on one layer (whose samples do
/// not depend on the rounds' shares), the verdicts of a run at that budget
/// from the start; the document given is untouched; the same searches
/// with more conflicts for the exact encoding are stronger; a budget not
/// larger, fewer exact conflicts or another solver for them, a listed
/// position not of the seed, or another census layer is refused.
#[test]
fn resolve_decides_the_undecided_samples_again() {
    let dir = tempfile::tempdir().unwrap();
    let run = estimate_4x4;
    let small = run(&SMALL_4X4, &dir.path().join("a"));
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let before = std::fs::read(&first).unwrap();
    let undecided = small["totals"]["undecided"].as_u64().unwrap();
    assert!(undecided > 20, "{undecided}: the test needs undecided samples");
    let resolved = run(&["--resolve", first.to_str().unwrap(), "--budget", "1000000"], &dir.path().join("b"));
    let direct =
        run(&["--discs", "11", "--samples", "3000", "--seed", "4", "--budget", "1000000"], &dir.path().join("c"));
    let counts = |d: &serde_json::Value| {
        let t = &d["layers"][0]["tally"];
        ["samples", "joined", "reachable", "unreachable", "undecided", "terminal", "undecided_terminal", "by_orbit"]
            .map(|f| t[f].clone())
    };
    assert_eq!(counts(&resolved), counts(&direct));
    assert_eq!(resolved["totals"]["positions"], direct["totals"]["positions"]);
    assert_eq!(resolved["budget"], 1_000_000);
    assert_eq!(resolved["resolved"]["from_budget"], 3);
    // what it resolved, by name and by the command that made it
    let stem = first.file_stem().unwrap().to_str().unwrap().to_string();
    assert_eq!(resolved["resolved"]["from_id"], stem.as_str());
    assert_eq!(resolved["resolved"]["from_commands"], serde_json::json!([small["command"]]));
    assert_eq!(resolved["resolved"]["retried"], undecided);
    assert_eq!(resolved["resolved"]["decided"], undecided);
    assert_eq!(resolved["undecided_samples"], serde_json::json!([]));
    assert_eq!(std::fs::read(&first).unwrap(), before, "the document given is untouched");
    // both in the catalogue: the resolved document stands for seed 4 in
    // the pool, in place of the run it resolves (the same draws)
    // (copied to names of their own: two runs in one second share a name)
    let cat = dir.path().join("cat");
    for (d, name) in [("a", "small.json"), ("b", "resolved.json")] {
        let file = std::fs::read_dir(dir.path().join(d)).unwrap().next().unwrap().unwrap().path();
        std::fs::copy(&file, dir.path().join(name)).unwrap();
        catalog_add(&cat, &dir.path().join(name));
    }
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    let row: Vec<&str> = csv.lines().find(|l| l.starts_with("11,")).unwrap().split(',').collect();
    assert_eq!((row[2], row[5], *row.last().unwrap()), ("3000", "0", "resolved"), "{csv}");
    // the catalogue's list of runs names the document a resolve resolved
    let readme = std::fs::read_to_string(cat.join("README.md")).unwrap();
    assert!(readme.contains(&format!("--resolve {stem}.json --budget 1000000")), "{readme}");
    // refusals, one line each
    let f = first.to_str().unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "3", "--beam-width", "0", "--sweep-width", "0"],
        "not larger",
    );
    // the same budget and beam with a wider sweep is a stronger search:
    // the sweep decides samples again
    let swept =
        run(&["--resolve", f, "--budget", "3", "--beam-width", "0", "--sweep-width", "1000"], &dir.path().join("e"));
    assert_eq!((swept["beam_width"].as_u64(), swept["sweep_width"].as_u64()), (Some(0), Some(1000)));
    let left = swept["totals"]["undecided"].as_u64().unwrap();
    assert!(left < undecided, "the sweep decided none of {undecided} samples again");
    // and what it decided agrees with the run that decided every sample:
    // never more reachable or unreachable samples than that run found
    let (s, d) = (&swept["layers"][0]["tally"], &direct["layers"][0]["tally"]);
    assert_eq!(s["samples"], d["samples"]);
    for field in ["reachable", "unreachable", "terminal"] {
        assert!(s[field].as_u64().unwrap() <= d[field].as_u64().unwrap(), "{field}: {s} beside {d}");
    }
    assert_eq!(
        s["reachable"].as_u64().unwrap() + s["unreachable"].as_u64().unwrap() + left,
        d["reachable"].as_u64().unwrap() + d["unreachable"].as_u64().unwrap()
    );
    // a sweep no wider than the beam is never tried, so it is no stronger
    let swept_file = std::fs::read_dir(dir.path().join("e")).unwrap().next().unwrap().unwrap().path();
    common::fails_with(
        dir.path(),
        &[
            "estimate",
            "--resolve",
            swept_file.to_str().unwrap(),
            "--budget",
            "3",
            "--beam-width",
            "0",
            "--sweep-width",
            "1000",
        ],
        "not larger",
    );
    // the same searches with more conflicts for the exact encoding (the
    // last stage) are stronger: it decides what the others left, as the
    // run of every sample does, and the catalogue prefers it
    let exact_args = ["--budget", "3", "--beam-width", "0", "--sweep-width", "0", "--exact-conflicts", "100000"];
    let exact = run(&[&["--resolve", f][..], &exact_args].concat(), &dir.path().join("g"));
    assert_eq!(exact["exact_conflicts"], 100_000);
    assert_eq!(exact["resolved"]["retried"], undecided);
    let x = &exact["layers"][0]["tally"];
    assert!(x["undecided"].as_u64().unwrap() < undecided, "the exact encoding decided none of {undecided} samples");
    for field in ["reachable", "unreachable", "terminal"] {
        assert!(x[field].as_u64().unwrap() <= d[field].as_u64().unwrap(), "{field}: {x} beside {d}");
    }
    assert_eq!(
        x["reachable"].as_u64().unwrap() + x["unreachable"].as_u64().unwrap() + x["undecided"].as_u64().unwrap(),
        d["samples"].as_u64().unwrap()
    );
    let strength = |d: &serde_json::Value| othello_census::report::estimate::validate_estimate(d).unwrap().strength();
    assert!(strength(&exact) > strength(&small));
    let exact_file = std::fs::read_dir(dir.path().join("g")).unwrap().next().unwrap().unwrap().path();
    let e = exact_file.to_str().unwrap();
    common::fails_with(
        dir.path(),
        &[&["estimate", "--resolve", e][..], &exact_args].concat(),
        "--exact-conflicts above its 100000",
    );
    // a resolve never weakens the last stage, nor changes its solver
    common::fails_with(dir.path(), &["estimate", "--resolve", e, "--budget", "4"], "give at least 100000");
    // nor the flip-history relaxation's
    let relaxation = small["sat_conflicts"].as_u64().unwrap();
    assert!(relaxation > 0, "the run had no relaxation: {relaxation}");
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", f, "--budget", "4", "--sat-conflicts", &(relaxation - 1).to_string()],
        &format!("give at least {relaxation}"),
    );
    // a solver other than this build's default (a build with CaDiCaL
    // defaults to it)
    let other = match othello_census::search::game_encoding::Solver::default().name() {
        "cadical" => "batsat",
        _ => "cadical",
    };
    let mut other_solver = exact.clone();
    other_solver["exact_solver"] = serde_json::json!(other);
    othello_census::report::seal::seal(&mut other_solver);
    let other_file = dir.path().join("other-solver.json");
    std::fs::write(&other_file, serde_json::to_vec(&other_solver).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", other_file.to_str().unwrap(), "--budget", "4", "--exact-conflicts", "100000"],
        &format!("give --sat-solver {other}"),
    );
    common::fails_with(dir.path(), &["estimate", "--resolve", f, "--budget", "2"], "not larger");
    let census_dir = census::<B4>(&dir.path().join("census"), LayerBy::Discs, 9, true);
    common::fails_with(
        dir.path(),
        &["estimate", "-q", "--resolve", f, "--budget", "100", "--census-layer", census_dir.to_str().unwrap()],
        "census layer",
    );
    // a document of an older search generation is decided again at the
    // same budget (the newer stages come after the older ones), and its
    // samples the beam decides; one of a newer generation is refused
    let mut older: serde_json::Value = serde_json::from_slice(&before).unwrap();
    older["search_generation"] = serde_json::json!(SEARCH_GENERATION - 1);
    othello_census::report::seal::seal(&mut older);
    let older_file = dir.path().join("older.json");
    std::fs::write(&older_file, serde_json::to_vec(&older).unwrap()).unwrap();
    let again = run(&["--resolve", older_file.to_str().unwrap(), "--budget", "3"], &dir.path().join("d"));
    assert_eq!(again["search_generation"], SEARCH_GENERATION);
    assert_eq!((again["budget"].as_u64(), again["beam_width"].as_u64()), (Some(3), Some(BEAM_WIDTH as u64)));
    let still = again["totals"]["undecided"].as_u64().unwrap();
    assert!(still < undecided, "the beam decided none of {undecided} samples again");
    let mut newer = older.clone();
    newer["search_generation"] = serde_json::json!(SEARCH_GENERATION + 1);
    othello_census::report::seal::seal(&mut newer);
    std::fs::write(&older_file, serde_json::to_vec(&newer).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", older_file.to_str().unwrap(), "--budget", "100"],
        "newer than this build",
    );
    let mut doc: serde_json::Value = serde_json::from_slice(&before).unwrap();
    doc["undecided_samples"][0]["index"] =
        serde_json::json!(doc["undecided_samples"][0]["index"].as_u64().unwrap() + 1);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    // the checksum finds the edit; sealed again, the samples' check does
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", edited.to_str().unwrap(), "--budget", "100"],
        "was edited",
    );
    othello_census::report::seal::seal(&mut doc);
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", edited.to_str().unwrap(), "--budget", "100"],
        "not the position",
    );
}

/// Sample `index` of 4x4 layer `discs`, seed `seed`, as a resolve's
/// progress file records it when its searches left it undecided.
fn left_undecided_4x4(seed: u64, discs: u32, index: u64) -> othello_census::estimate::Decided {
    use othello_census::estimate::Tally;
    let terminal = sample_position::<B4>(seed, discs, index).status() == othello_census::board::Status::Terminal;
    let tally =
        Tally { samples: 1, joined: 1, undecided: 1, undecided_terminal: u64::from(terminal), ..Tally::default() };
    othello_census::estimate::Decided { discs, index, tally, terminal }
}

/// A resolve keeps what it has decided in its `--out` directory
/// (`resolve-<ID>.progress`) and a rerun takes it as it is: here a
/// progress file written by hand says one sample stayed undecided, which
/// a whole resolve decides, and the resumed resolve reports it undecided
/// (so it was taken, not searched again). A second process of the same
/// resolve, and a damaged progress file, are refused in one line, the
/// file left as it was; a finished resolve leaves no progress file.
#[test]
fn a_resolve_resumes_from_its_progress_file() {
    use othello_census::estimate::{ResolveId, ResolveProgress, write_progress};
    let dir = tempfile::tempdir().unwrap();
    let settings = [
        "--budget",
        "1000000",
        "--sat-conflicts",
        "20000",
        "--exact-conflicts",
        "0",
        "--sat-solver",
        "batsat",
        "--beam-width",
        "10000",
        "--sweep-width",
        "1000000",
    ];
    let run = estimate_4x4;
    let small = run(&SMALL_4X4, &dir.path().join("a"));
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let listed = small["undecided_samples"].as_array().unwrap().clone();
    assert!(listed.len() > 20);
    let whole = run(&[&["--resolve", f][..], &settings].concat(), &dir.path().join("b"));
    assert_eq!(whole["totals"]["undecided"], 0);
    let names = |d: &str| -> Vec<String> {
        std::fs::read_dir(dir.path().join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into())
            .collect()
    };
    assert_eq!(names("b").len(), 1, "only the document: {:?}", names("b"));
    // the progress of the same resolve into p: the first listed sample
    // decided "undecided"
    let limits = SearchLimits {
        budget: 1_000_000,
        relaxation_conflicts: 20_000,
        exact_conflicts: 0,
        exact_solver: othello_census::search::game_encoding::Solver::BatSat,
        beam_width: 10_000,
        sweep_width: 1_000_000,
    };
    let id = ResolveId::of(&std::fs::read(&first).unwrap(), SEARCH_GENERATION, &limits, 0);
    let p_dir = dir.path().join("p");
    std::fs::create_dir(&p_dir).unwrap();
    let (discs, index) = (listed[0]["discs"].as_u64().unwrap() as u32, listed[0]["index"].as_u64().unwrap());
    let progress = ResolveProgress { id, done: vec![left_undecided_4x4(4, discs, index)], deferred: Vec::new() };
    write_progress(&id.path_in(&p_dir), &progress).unwrap();
    // `inspect` reads it while the resolve could be running
    let out = std::process::Command::new(common::bin())
        .args(["inspect", id.path_in(&p_dir).to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 samples searched again so far: 0 reachable, 0 unreachable, 1 still undecided"), "{text}");
    assert!(text.contains(&format!("{discs:>5}          0            0          1")), "{text}");
    // a second process of this resolve is refused while the lock is held
    let resolve_args: Vec<&str> =
        [&["estimate", "--size", "4", "-q", "--out", p_dir.to_str().unwrap(), "--resolve", f][..], &settings].concat();
    {
        let _held = othello_census::formats::atomic::try_lock(&id.lock_in(&p_dir), &p_dir, "resolve").unwrap();
        common::fails_with(dir.path(), &resolve_args, "another othello-census process");
    }
    // a damaged progress file is refused and left as it was
    let good = std::fs::read(id.path_in(&p_dir)).unwrap();
    let mut bad = good.clone();
    // a byte of the HEAD section's payload (after the 16-byte preamble,
    // the tag and the length)
    bad[30] ^= 1;
    std::fs::write(id.path_in(&p_dir), &bad).unwrap();
    common::fails_with(dir.path(), &resolve_args, "checksum mismatch");
    common::fails_with(dir.path(), &resolve_args, "move it aside");
    common::fails_with(dir.path(), &["inspect", id.path_in(&p_dir).to_str().unwrap()], "checksum mismatch");
    assert_eq!(std::fs::read(id.path_in(&p_dir)).unwrap(), bad);
    std::fs::write(id.path_in(&p_dir), &good).unwrap();
    // resumed: the sample the progress file holds is taken as it says
    let resumed = run(&[&["--resolve", f][..], &settings].concat(), &p_dir);
    assert_eq!(resumed["totals"]["undecided"], 1);
    assert_eq!(resumed["undecided_samples"][0]["index"], index);
    assert_eq!(resumed["resolved"]["retried"], listed.len());
    assert_eq!(resumed["resolved"]["decided"], listed.len() - 1);
    for field in ["samples", "joined"] {
        assert_eq!(resumed["layers"][0]["tally"][field], whole["layers"][0]["tally"][field]);
    }
    let sum = |d: &serde_json::Value| {
        ["reachable", "unreachable", "undecided"].map(|k| d["layers"][0]["tally"][k].as_u64().unwrap())
    };
    let (w, r) = (sum(&whole), sum(&resumed));
    assert_eq!((w[2], r[2]), (0, 1));
    assert_eq!(w[0] + w[1], r[0] + r[1] + 1, "the one sample taken undecided, every other decided as before");
    assert!(!id.path_in(&p_dir).exists() && !id.lock_in(&p_dir).exists(), "{:?}", names("p"));
}

/// `estimate --resolve --exact-first N` from the command line: refused
/// unless 0 < N < --exact-conflicts; the samples a first round left
/// (kept in the progress file: `inspect` counts them) are untried in a
/// partial document, and a resumed resolve searches them at
/// --exact-conflicts, giving the document a plain resolve gives.
#[test]
fn a_resolve_with_a_first_round_keeps_what_the_round_left() {
    use othello_census::estimate::{Deferred, ResolveId, ResolveProgress, write_progress};
    let dir = tempfile::tempdir().unwrap();
    let small = estimate_4x4(
        &[
            "--discs",
            "12",
            "--samples",
            "2000",
            "--seed",
            "4",
            "--budget",
            "1",
            "--beam-width",
            "0",
            "--sweep-width",
            "0",
        ],
        &dir.path().join("a"),
    );
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let listed = small["undecided_samples"].as_array().unwrap().clone();
    assert!(listed.len() > 10, "{} undecided", listed.len());
    let settings = [
        "--budget",
        "1",
        "--beam-width",
        "0",
        "--sweep-width",
        "0",
        "--sat-solver",
        "batsat",
        "--exact-conflicts",
        "1000",
    ];
    for bad in ["0", "1000", "5000"] {
        common::fails_with(
            dir.path(),
            &[&["estimate", "--size", "4", "--resolve", f, "--exact-first", bad][..], &settings].concat(),
            "a first round needs fewer conflicts than --exact-conflicts 1000",
        );
    }
    let whole = estimate_4x4(&[&["--resolve", f][..], &settings].concat(), &dir.path().join("b"));
    let still = |d: &serde_json::Value| -> Vec<(u64, u64)> {
        d["undecided_samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| (u["discs"].as_u64().unwrap(), u["index"].as_u64().unwrap()))
            .collect()
    };
    let key = |u: &serde_json::Value| (u["discs"].as_u64().unwrap(), u["index"].as_u64().unwrap());
    // a sample the whole resolve decided, kept by hand as decided
    // "undecided"; the next two kept as a first round's leftovers
    let taken = listed.iter().find(|u| !still(&whole).contains(&key(u))).expect("the whole resolve decides some");
    let waiting: Vec<&serde_json::Value> = listed.iter().filter(|u| key(u) != key(taken)).take(2).collect();
    let limits = SearchLimits {
        budget: 1,
        relaxation_conflicts: othello_census::search::reachable::RELAXATION_CONFLICTS,
        exact_conflicts: 1000,
        exact_solver: othello_census::search::game_encoding::Solver::BatSat,
        beam_width: 0,
        sweep_width: 0,
    };
    let id = ResolveId::of(&std::fs::read(&first).unwrap(), SEARCH_GENERATION, &limits, 0);
    let p_dir = dir.path().join("p");
    std::fs::create_dir(&p_dir).unwrap();
    let deferred =
        waiting.iter().map(|u| Deferred { discs: key(u).0 as u32, index: key(u).1, exact_conflicts: 100 }).collect();
    let done = vec![left_undecided_4x4(4, key(taken).0 as u32, key(taken).1)];
    let progress = ResolveProgress { id, done, deferred };
    write_progress(&id.path_in(&p_dir), &progress).unwrap();
    let out = Command::new(common::bin()).args(["inspect", id.path_in(&p_dir).to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 more left by a first round (--exact-first) for the second"), "{text}");
    // --time 0: the partial document of what is kept; the two left by the
    // first round are untried, as every sample not searched
    let resolve = |extra: &[&str]| {
        Command::new(common::bin())
            .args(["estimate", "--size", "4", "--json", "--out", p_dir.to_str().unwrap(), "--resolve", f])
            .args(settings)
            .args(["--exact-first", "100"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = resolve(&["--time", "0"]);
    assert!(o.status.success(), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("1 of {} samples decided, 2 more left by a first round", listed.len())),
        "{stderr}"
    );
    assert!(stderr.contains("(2 of them left by the first round, kept for the second)"), "{stderr}");
    let partial: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(partial["resolved"]["untried"], listed.len() - 1);
    for u in &waiting {
        let entry = partial["undecided_samples"].as_array().unwrap().iter().find(|v| key(v) == key(u)).unwrap().clone();
        assert_eq!(entry["untried"], true, "{entry}");
    }
    // resumed: the two searched at --exact-conflicts, the rest in two
    // rounds; the verdicts of the whole resolve but for the one taken
    let o = resolve(&[]);
    assert!(o.status.success(), "{o:?}");
    let done: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(done["resolved"]["untried"], 0);
    let mut expected = still(&whole);
    expected.push(key(taken));
    expected.sort();
    let mut got = still(&done);
    got.sort();
    assert_eq!(got, expected);
    assert!(!id.path_in(&p_dir).exists(), "a finished resolve leaves no progress file");
}

#[test]
fn estimate_command_writes_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::bin())
        .args(["estimate", "--size", "4", "--samples", "5000", "--json", "-q", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "othello-census-estimate");
    assert_eq!(doc["samples"], 5000);
    assert_eq!(doc["layers"].as_array().unwrap().len(), 12);
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1);
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(files[0].as_ref().unwrap().path()).unwrap()).unwrap();
    assert_eq!(saved, doc);
}

/// An estimate enters the catalogue as its own table, beside the exact
/// counts; a repeat of its samples and an edited document are refused.
#[test]
fn estimates_enter_the_catalogue_apart() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let cat = dir.path().join("cat");
    for seed in ["1", "2"] {
        let out = Command::new(common::bin())
            .args(["estimate", "--size", "4", "--samples", "3000", "--seed", seed, "-q", "--out"])
            .arg(&runs)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let mut files: Vec<_> = std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let add = |f: &std::path::Path| {
        Command::new(common::bin()).args(["catalog", "add", "--new", "--dir"]).arg(&cat).arg(f).output().unwrap()
    };
    assert!(add(&files[0]).status.success());
    assert!(add(&files[1]).status.success());
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(rows[0].starts_with("discs,candidates,samples"));
    assert_eq!(rows.len(), 13, "{csv}");
    // pooled: the samples of both runs
    let samples: u64 = rows[1..].iter().map(|r| r.split(',').nth(2).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(samples, 6000);
    assert!(!cat.join("4x4-by-discs.csv").exists(), "estimates never mix with exact tables");
    // seed 1 again at a larger budget, on three layers: accepted (its
    // samples are decided again, not counted twice), and on those layers
    // it stands for seed 1, pooled with seed 2; the others keep both runs
    // of the default budget
    let out = Command::new(common::bin())
        .args(["estimate", "--size", "4", "--samples", "900", "--seed", "1", "--discs", "10-12"])
        .args(["--budget", "2000000", "-q", "--out"])
        .arg(&runs)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // (in the same directory: a name distinct from the first two)
    let third = std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).find(|p| !files.contains(p)).unwrap();
    let added = add(&third);
    assert!(added.status.success(), "{added:?}");
    let third_id = third.file_stem().unwrap().to_str().unwrap().to_string();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&third).unwrap()).unwrap();
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    for row in csv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let k: u64 = cols[0].parse().unwrap();
        let runs: Vec<&str> = cols.last().unwrap().split(' ').collect();
        if (10..=12).contains(&k) {
            let samples = |d: &serde_json::Value| {
                d["layers"].as_array().unwrap().iter().find(|l| l["discs"] == k).unwrap()["tally"]["samples"]
                    .as_u64()
                    .unwrap()
            };
            // the runs of seeds 1 and 2 by their documents (names sort by
            // time, and two runs of one second may sort either way)
            let read = |f: &std::path::PathBuf| -> serde_json::Value {
                serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap()
            };
            let (seed_1, seed_2) = if read(&files[0])["seed"] == 1 { (0, 1) } else { (1, 0) };
            let seed_2 = read(&files[seed_2]);
            assert_eq!(seed_2["seed"], 2);
            let first_id = files[seed_1].file_stem().unwrap().to_str().unwrap();
            assert_eq!(runs.len(), 2, "{row}");
            assert!(runs.contains(&third_id.as_str()) && !runs.contains(&first_id), "{row}");
            assert_eq!(cols[2], (samples(&doc) + samples(&seed_2)).to_string(), "{row}");
        } else {
            assert_eq!(runs.len(), 2, "{row}");
            assert!(!runs.contains(&third_id.as_str()), "{row}");
        }
    }
    // seed 1 again at that budget with an odd-pass layer (from a census to
    // 10 discs), on layers 11-12: stronger searches, so it stands for seed
    // 1 there; layer 10 keeps the run without the layer
    let census = dir.path().join("census");
    let out = Command::new(common::bin())
        .args(["count", "--engine", "layers", "--size", "4", "--max-discs", "10", "-q", "--work-dir"])
        .arg(&census)
        // (its result files in the test's directory, not the source tree's results/)
        .arg("--out")
        .arg(dir.path().join("census-results"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // seed `seed` on layers 11-12 at a budget of 2e6, with `extra`
    // arguments: the run's new file in `runs`
    let estimate_11_12 = |seed: &str, extra: &[&std::ffi::OsStr]| {
        let before: Vec<_> = std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).collect();
        let out = Command::new(common::bin())
            .args(["estimate", "--size", "4", "--samples", "600", "--seed", seed, "--discs", "11-12"])
            .args(["--budget", "2000000", "-q"])
            .args(extra)
            .arg("--out")
            .arg(&runs)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        std::fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).find(|p| !before.contains(p)).unwrap()
    };
    let fourth = estimate_11_12("1", &["--odd-pass-census".as_ref(), census.as_os_str()]);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&fourth).unwrap()).unwrap();
    assert_eq!(doc["census_layer"]["discs"], 10);
    assert_eq!(doc["census_layer"]["held"], "odd passes");
    assert!(add(&fourth).status.success());
    let fourth_id = fourth.file_stem().unwrap().to_str().unwrap().to_string();
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    for row in csv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let runs: Vec<&str> = cols.last().unwrap().split(' ').collect();
        match cols[0] {
            "11" | "12" => assert!(runs.len() == 2 && runs.contains(&fourth_id.as_str()), "{row}"),
            "10" => assert!(runs.len() == 2 && runs.contains(&third_id.as_str()), "{row}"),
            _ => assert!(!runs.contains(&fourth_id.as_str()), "{row}"),
        }
    }
    // a document from before census layers names its odd-pass layer so,
    // and is read the same
    let mut legacy = doc.clone();
    legacy.as_object_mut().unwrap().remove("census_layer");
    legacy["odd_pass_discs"] = serde_json::json!(10);
    othello_census::report::seal::seal(&mut legacy);
    let strength = |d: &serde_json::Value| othello_census::report::estimate::validate_estimate(d).unwrap().strength();
    assert_eq!(strength(&legacy), strength(&doc));
    assert_eq!(
        strength(&doc),
        (
            SEARCH_GENERATION,
            2_000_000,
            BEAM_WIDTH as u64,
            SWEEP_WIDTH as u64,
            Some((10, LayerHeld::OddPasses)),
            0,
            std::cmp::Reverse(0)
        )
    );
    // a document from before the sweep had none; a sweep no wider than the
    // beam was never tried
    let mut no_sweep = doc.clone();
    no_sweep.as_object_mut().unwrap().remove("sweep_width");
    othello_census::report::seal::seal(&mut no_sweep);
    assert_eq!(strength(&no_sweep).3, 0);
    let mut narrow_sweep = doc.clone();
    narrow_sweep["sweep_width"] = serde_json::json!(BEAM_WIDTH / 2);
    othello_census::report::seal::seal(&mut narrow_sweep);
    assert_eq!(strength(&narrow_sweep).3, 0);
    assert!(strength(&doc) > strength(&no_sweep));
    // the stages' counters: absent (documents before them) they read as
    // zero; more than the verdicts they are part of do not add up
    let mut no_stages = doc.clone();
    for l in no_stages["layers"].as_array_mut().unwrap() {
        for f in ["beam_reachable", "beam_unreachable", "sweep_reachable", "sweep_unreachable"] {
            assert!(l["tally"].as_object_mut().unwrap().remove(f).is_some(), "{f} is written");
        }
    }
    othello_census::report::seal::seal(&mut no_stages);
    assert_eq!(strength(&no_stages), strength(&doc));
    let mut too_many = doc.clone();
    let reachable = too_many["layers"][0]["tally"]["reachable"].as_u64().unwrap();
    too_many["layers"][0]["tally"]["sweep_reachable"] = serde_json::json!(reachable + 1);
    othello_census::report::seal::seal(&mut too_many);
    let e = othello_census::report::estimate::validate_estimate(&too_many).unwrap_err().to_string();
    assert!(e.contains("does not add up"), "{e}");
    // counters whose sum wraps around to the samples do not add up either
    let mut wrapped = doc.clone();
    let t = &mut wrapped["layers"][0]["tally"];
    let (r, u) = (t["reachable"].as_u64().unwrap(), t["unreachable"].as_u64().unwrap());
    // reachable + u + 1 and unreachable u64::MAX: the sum is the samples
    // plus 2^64
    t["reachable"] = serde_json::json!(r + u + 1);
    t["by_orbit"][2] = serde_json::json!(t["by_orbit"][2].as_u64().unwrap() + u + 1);
    t["unreachable"] = serde_json::json!(u64::MAX);
    othello_census::report::seal::seal(&mut wrapped);
    let e = othello_census::report::estimate::validate_estimate(&wrapped).unwrap_err().to_string();
    assert!(e.contains("does not add up"), "{e}");
    // and with the whole layer of 10 discs: stronger again, so it stands
    // for seed 1 on layers 11-12
    let fifth = estimate_11_12("1", &["--census-layer".as_ref(), census.as_os_str()]);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&fifth).unwrap()).unwrap();
    assert_eq!(doc["census_layer"]["held"], "whole");
    assert!(add(&fifth).status.success());
    let fifth_id = fifth.file_stem().unwrap().to_str().unwrap().to_string();
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    for row in csv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let runs: Vec<&str> = cols.last().unwrap().split(' ').collect();
        match cols[0] {
            "11" | "12" => assert!(runs.len() == 2 && runs.contains(&fifth_id.as_str()), "{row}"),
            _ => assert!(!runs.contains(&fifth_id.as_str()), "{row}"),
        }
    }
    // seed 2 again at that budget without a census layer: stronger than
    // seed 2's first run, weaker than seed 1's fifth; each seed's strongest
    // run pools on layers 11-12, whatever the other's strength
    let sixth = estimate_11_12("2", &[]);
    assert!(add(&sixth).status.success());
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    let sixth_id = sixth.file_stem().unwrap().to_str().unwrap().to_string();
    for row in csv.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let mut runs: Vec<&str> = cols.last().unwrap().split(' ').collect();
        runs.sort();
        match cols[0] {
            "11" | "12" => {
                let mut want = [fifth_id.as_str(), sixth_id.as_str()];
                want.sort();
                assert_eq!(runs, want, "{row}")
            }
            _ => assert!(!runs.contains(&sixth_id.as_str()), "{row}"),
        }
    }
    // a run of the first search generation (a document without the field)
    // at a larger budget with the whole layer: the older conditions rank
    // below any budget, so it joins the catalogue but no pool
    let mut older: serde_json::Value = serde_json::from_slice(&std::fs::read(&fifth).unwrap()).unwrap();
    assert_eq!(older["search_generation"], othello_census::search::reachable::SEARCH_GENERATION);
    older.as_object_mut().unwrap().remove("search_generation");
    older["seed"] = serde_json::json!(3);
    older["budget"] = serde_json::json!(4_000_000);
    othello_census::report::seal::seal(&mut older);
    let older_path = runs.join("estimate-4x4-older.json");
    std::fs::write(&older_path, serde_json::to_vec(&older).unwrap()).unwrap();
    assert_eq!(strength(&older).0, 1);
    assert!(add(&older_path).status.success());
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    assert!(!csv.contains("estimate-4x4-older"), "{csv}");
    let readme = std::fs::read_to_string(cat.join("README.md")).unwrap();
    assert!(readme.contains("| 10 discs, odd passes |"), "the census layer is listed with its run");
    assert!(readme.contains("| 10 discs, whole |"), "{readme}");
    let row = |id: &str| readme.lines().find(|l| l.starts_with(&format!("| {id} |"))).unwrap().to_string();
    let current = format!("| generation {} | 2000000 |", othello_census::search::reachable::SEARCH_GENERATION);
    assert!(row(&fifth_id).contains(&current), "{readme}");
    assert!(row("estimate-4x4-older").contains("| generation 1 | 4000000 |"), "{readme}");
    // the same run again, a copy of it, an edited one: refused, one line
    common::fails_with(
        dir.path(),
        &["catalog", "add", "--dir", cat.to_str().unwrap(), files[0].to_str().unwrap()],
        "already",
    );
    let copy = dir.path().join("copy.json");
    std::fs::copy(&files[0], &copy).unwrap();
    common::fails_with(dir.path(), &["catalog", "add", "--dir", cat.to_str().unwrap(), copy.to_str().unwrap()], "seed");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    doc["seed"] = serde_json::json!(77);
    doc["layers"][3]["positions"]["estimate"] = serde_json::json!(1e9);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["catalog", "add", "--dir", cat.to_str().unwrap(), edited.to_str().unwrap()],
        "intervals",
    );
    // an undecided sample listed that the tallies do not count
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(doc["undecided_samples"], serde_json::json!([]), "4x4 searches all end");
    doc["seed"] = serde_json::json!(78);
    doc["undecided_samples"] = serde_json::json!([{ "discs": 10, "index": 3, "position": "-" }]);
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    common::fails_with(
        dir.path(),
        &["catalog", "add", "--dir", cat.to_str().unwrap(), edited.to_str().unwrap()],
        "undecided samples listed",
    );
}

/// A frontier beyond the memory is refused before any work; a run stopped
/// by a signal prints the figures of the samples it decided and says so.
#[test]
fn estimate_edges() {
    let dir = tempfile::tempdir().unwrap();
    common::fails_with(dir.path(), &["estimate", "--size", "6", "--frontier", "30"], "--frontier");
    common::fails_with(dir.path(), &["estimate", "--size", "6", "--samples", "0"], "--samples");
    let child = Command::new(common::bin())
        .args(["estimate", "--size", "6", "--discs", "30-36", "--samples", "100000000", "--json", "-q"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for_cpu(&child, 4.0, std::time::Duration::from_secs(300));
    common::signal(&child, "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["interrupted"], true);
    let samples = doc["samples"].as_u64().unwrap();
    assert!(samples > 0 && samples < 100_000_000, "{samples}");
    let per_layer: u64 = doc["layers"].as_array().unwrap().iter().map(|l| l["samples"].as_u64().unwrap()).sum();
    assert_eq!(per_layer, samples);
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped early"));
    // the catalogue refuses it in one line: the samples it left out were
    // those whose searches were still running
    let file = dir.path().join("interrupted.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let cat = dir.path().join("cat");
    common::fails_with(
        dir.path(),
        &["catalog", "add", "--new", "--dir", cat.to_str().unwrap(), file.to_str().unwrap()],
        "interrupted",
    );
}

/// A run going on from any state it kept (after every piece of every
/// round, `Keeper` with no delay) ends with exactly the tallies, rounds
/// and undecided samples of the run never stopped: for a run of every
/// sample and for one focused on terminal positions (whose tallies count
/// the joined candidates that are not terminal apart), and the progress
/// file takes each state back as it was.
#[test]
fn a_run_goes_on_from_any_state_it_kept_to_the_same_figures() {
    use othello_census::estimate::{
        EstimateId, EstimateProgress, Focus, Keeper, estimate_from, read_estimate_progress, write_estimate_progress,
    };
    let frontier = Frontier::<B6>::build(8);
    let dir = tempfile::tempdir().unwrap();
    for (focus, layers, samples) in [(Focus::All, vec![14, 20, 26], 20_000), (Focus::Terminal, vec![33, 35], 6_000)] {
        let cfg = EstimateConfig { focus, ..config(layers, samples, 2) };
        let id = EstimateId::of(6, &cfg, SEARCH_GENERATION, 0);
        let run = |from: Option<EstimateProgress>, kept: &mut Vec<EstimateProgress>| {
            let mut keep = |p: &EstimateProgress| kept.push(p.clone());
            let mut keeper = Keeper::new(id, std::time::Duration::ZERO, &mut keep);
            estimate_from(
                &cfg,
                &frontier,
                None,
                std::time::Instant::now(),
                &EstimateLive::default(),
                from,
                Some(&mut keeper),
            )
        };
        let mut states = Vec::new();
        let whole = run(None, &mut states);
        assert!(states.len() >= 10, "{focus:?}: {} states kept", states.len());
        assert!(states.iter().any(|p| p.in_round()), "states inside a round");
        if focus == Focus::Terminal {
            // candidates set apart as not terminal, and terminal ones decided
            let t = whole.layers[1].tally;
            assert!(t.not_terminal > 0 && t.joined > t.not_terminal, "{t:?}");
        }
        let last = states.last().unwrap();
        assert_eq!((last.samples(), last.rounds, last.in_round()), (whole.samples, whole.rounds, false));
        let step = (states.len() / 6).max(1);
        for p in states.iter().step_by(step) {
            // through the file, as a run going on reads it
            let path = id.path_in(dir.path());
            write_estimate_progress(&path, p).unwrap();
            let back = read_estimate_progress(&path, id, &cfg.layers).unwrap().unwrap();
            assert_eq!(&back, p);
            let resumed = run(Some(back), &mut Vec::new());
            assert_eq!(tallies(&resumed), tallies(&whole), "{focus:?}, from {} samples", p.samples());
            assert_eq!((resumed.rounds, resumed.samples), (whole.rounds, whole.samples));
            assert_eq!(resumed.undecided_samples, whole.undecided_samples);
        }
    }
}

/// An estimate with `--out` keeps its progress: killed, or stopped by a
/// signal (exit 130, no document written), the same command goes on from
/// the file (on another thread count) to exactly the document of a run
/// never stopped, and removes the file; a second process on the same run
/// is refused in one line while the first runs; a damaged file is
/// refused in one line and left as it is.
#[test]
fn an_estimate_stopped_or_killed_goes_on_from_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["estimate", "--size", "6", "--discs", "22-28", "--samples", "12000", "--frontier", "8", "--seed", "9"];
    let run = |threads: &str, out: Option<&std::path::Path>| {
        let mut c = Command::new(common::bin());
        c.args(args).args(["--threads", threads, "--json", "-q"]);
        if let Some(out) = out {
            c.arg("--out").arg(out);
        }
        c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap()
    };
    let whole = run("2", None).wait_with_output().unwrap();
    assert!(whole.status.success(), "{whole:?}");
    let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let same = |doc: &serde_json::Value| {
        for f in ["samples", "rounds", "layers", "undecided_samples", "totals"] {
            assert_eq!(doc[f], whole[f], "{f}");
        }
    };
    let progress_files = |out: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "progress"))
            .collect()
    };
    for sig in ["KILL", "INT"] {
        let out = dir.path().join(sig);
        let child = run("1", Some(&out));
        common::wait_for_cpu(&child, 1.5, std::time::Duration::from_secs(300));
        if sig == "KILL" {
            // a second process on the same run, while the first holds it
            common::fails_with(
                dir.path(),
                &[&args[..], &["--threads", "1", "--out", out.to_str().unwrap()]].concat(),
                "another",
            );
        }
        common::signal(&child, sig);
        let stopped = child.wait_with_output().unwrap();
        assert!(!stopped.status.success(), "{sig}: it ended before the signal: {stopped:?}");
        if sig == "INT" {
            assert_eq!(stopped.status.code(), Some(130));
            assert!(String::from_utf8_lossy(&stopped.stderr).contains("the same command goes on"), "{stopped:?}");
        }
        let names: Vec<String> =
            std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| !n.ends_with(".json")), "{sig}: no document: {names:?}");
        let kept = progress_files(&out);
        assert_eq!(kept.len(), 1, "{sig}: {names:?}");
        let o = Command::new(common::bin()).arg("inspect").arg(&kept[0]).output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success() && text.contains("estimate progress file") && text.contains("rounds"), "{o:?}");
        let o = Command::new(common::bin())
            .args(args)
            .args(["--threads", "2", "--json", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("going on from"), "{o:?}");
        same(&serde_json::from_slice(&o.stdout).unwrap());
        assert!(progress_files(&out).is_empty(), "{sig}: the file is removed once the document is written");
        let docs: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(docs.len(), 1, "{docs:?}");
        same(&serde_json::from_slice(&std::fs::read(&docs[0]).unwrap()).unwrap());
    }
    // a damaged progress file: refused in one line, left as it is
    let out = dir.path().join("damaged");
    let child = run("1", Some(&out));
    common::wait_for_cpu(&child, 1.0, std::time::Duration::from_secs(300));
    common::signal(&child, "INT");
    let _ = child.wait_with_output().unwrap();
    let kept = progress_files(&out);
    assert_eq!(kept.len(), 1);
    let mut bytes = std::fs::read(&kept[0]).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&kept[0], &bytes).unwrap();
    common::fails_with(dir.path(), &[&args[..], &["--out", out.to_str().unwrap()]].concat(), "move it aside");
    assert_eq!(std::fs::read(&kept[0]).unwrap(), bytes);
}

/// A second process on the same estimate is refused before it reads the
/// census layer (minutes for a large one), in one line: the reading's
/// note, which it would print first, is not there.
#[test]
fn a_second_process_is_refused_before_the_census_layer_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let census_dir = census::<B4>(&dir.path().join("census"), LayerBy::Discs, 10, true);
    let out = dir.path().join("out");
    let (census_dir, out) = (census_dir.to_str().unwrap(), out.to_str().unwrap());
    let args =
        ["estimate", "--size", "4", "--discs", "11-16", "--time", "60s", "--census-layer", census_dir, "--out", out];
    let first = Command::new(common::bin())
        .args(args)
        .arg("-q")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for_cpu(&first, 1.0, std::time::Duration::from_secs(300));
    common::fails_with(dir.path(), &args, "another othello-census process is running this estimate");
    common::signal(&first, "KILL");
    let _ = first.wait_with_output();
    // an odd-pass census holds fewer classes than its header counts: the
    // early lock is another than the run's own, and taking both goes
    let odd = dir.path().join("odd");
    let o = Command::new(common::bin())
        .args([
            "estimate",
            "--size",
            "4",
            "--discs",
            "11-16",
            "--samples",
            "300",
            "-q",
            "--odd-pass-census",
            census_dir,
        ])
        .arg("--out")
        .arg(&odd)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let names: Vec<String> =
        std::fs::read_dir(&odd).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.iter().filter(|n| n.ends_with(".json")).count(), 1, "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".progress")), "{names:?}");
}

/// The catalogue's answer for a whole board: the exact layers of the
/// by-discs table plus the pooled estimates of the others, the interval
/// from the estimated layers alone; none while a layer is neither counted
/// nor sampled.
#[test]
fn the_catalogue_answers_for_the_whole_board() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let cat = dir.path().join("cat");
    let run = |args: &[&str]| {
        let out = Command::new(common::bin()).args(args).arg("--out").arg(&runs).output().unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    let add = |f: &std::path::Path| {
        let out =
            Command::new(common::bin()).args(["catalog", "add", "--new", "--dir"]).arg(&cat).arg(f).output().unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    let newest = |seen: &mut Vec<std::path::PathBuf>| {
        let f = std::fs::read_dir(&runs)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "json") && !seen.contains(p))
            .unwrap();
        seen.push(f.clone());
        f
    };
    let mut seen = Vec::new();
    run(&["estimate", "--size", "4", "--discs", "10-16", "--samples", "2000", "--seed", "4", "-q"]);
    add(&newest(&mut seen));
    let line = |cat: &std::path::Path| {
        std::fs::read_to_string(cat.join("README.md"))
            .unwrap()
            .lines()
            .find(|l| l.starts_with("**The whole 4x4 board**"))
            .map(str::to_string)
    };
    assert_eq!(line(&cat), None, "layers 4-9 are neither counted nor sampled");
    // (its work directory in the test's directory, not the source tree's checkpoints/)
    let work = dir.path().join("work");
    run(&[
        "count",
        "--size",
        "4",
        "--engine",
        "layers",
        "--max-discs",
        "9",
        "-q",
        "--json",
        "--work-dir",
        work.to_str().unwrap(),
    ]);
    add(&newest(&mut seen));
    let text = line(&cat).expect("a whole-board line once every layer is counted or sampled");
    // positions: the exact layers 4-9 plus the estimates of 10-16, as the tables give them
    let csv_sum = |name: &str, layers: std::ops::RangeInclusive<u64>| -> f64 {
        let csv = std::fs::read_to_string(cat.join(name)).unwrap();
        let mut lines = csv.lines().filter(|l| !l.starts_with('#'));
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (d, p) = (0, head.iter().position(|c| *c == "positions").unwrap());
        assert_eq!(head[d], "discs");
        lines
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| c[d].parse::<u64>().is_ok_and(|k| layers.contains(&k)))
            .map(|c| c[p].parse::<f64>().unwrap())
            .sum()
    };
    let want = csv_sum("4x4-by-discs.csv", 4..=9) + csv_sum("4x4-estimate.csv", 10..=16);
    let after = text.split("positions ").nth(1).unwrap();
    let numbers: Vec<f64> = after.split([' ', '(', ')', ',']).filter_map(|w| w.parse::<f64>().ok()).take(3).collect();
    let (point, low, high) = (numbers[0], numbers[1], numbers[2]);
    assert!((point - want).abs() <= want * 1e-3, "{text}: want {want}");
    assert!(low <= point && point <= high, "{text}");
    assert!(text.contains("(6 layers, to 9 discs)") && text.contains("layers 10-16"), "{text}");
    // classes under the 8 symmetries of the square of (mover, other)
    // pairs, counted from the oracle's positions with symmetries written
    // here, lie between the bounds the line gives
    let image = |bits: u64, t: u32| -> u64 {
        (0..16u32)
            .filter(|s| bits >> s & 1 == 1)
            .map(|s| {
                let (r, c) = (s / 4, s % 4);
                let (r, c) = if t & 4 != 0 { (c, r) } else { (r, c) };
                let r = if t & 1 != 0 { 3 - r } else { r };
                let c = if t & 2 != 0 { 3 - c } else { c };
                1u64 << (r * 4 + c)
            })
            .sum()
    };
    let reachable = oracle::reachable(4, 16);
    let pairs: HashSet<(u64, u64)> = reachable
        .iter()
        .map(|p| {
            let (b, w) = p.bits();
            let (m, o) = if p.to_move == oracle::BLACK { (b, w) } else { (w, b) };
            (0..8).map(|t| (image(m, t), image(o, t))).min().unwrap()
        })
        .collect();
    // the bounds' reasoning on the exact counts: the catalogue's classes
    // are orbits under the symmetries that keep the start
    let start = reachable.iter().find(|p| (p.bits().0 | p.bits().1).count_ones() == 4).unwrap().bits();
    let keep: Vec<u32> = (0..8).filter(|&t| (image(start.0, t), image(start.1, t)) == start).collect();
    assert_eq!(keep.len(), 4);
    let classes4: HashSet<(u64, u64, bool)> = reachable
        .iter()
        .map(|p| {
            let (b, w) = p.bits();
            keep.iter().map(|&t| (image(b, t), image(w, t), p.to_move == oracle::BLACK)).min().unwrap()
        })
        .collect();
    assert_eq!((reachable.len(), classes4.len()), (62_789, 15_856));
    let (np, nc, nq) = (reachable.len(), classes4.len(), pairs.len());
    assert!(np <= 16 * nq && nc <= 4 * nq && nq <= nc, "{np} positions, {nc} classes, {nq} pair classes");
    let bounds: Vec<f64> = text
        .split("pairs, as Ishii and Tanaka count them: 95% between ")
        .nth(1)
        .unwrap()
        .split([' ', '('])
        .filter_map(|w| w.parse::<f64>().ok())
        .take(2)
        .collect();
    let exact = pairs.len() as f64;
    assert!(bounds[0] <= exact && exact <= bounds[1], "{exact} pair classes, the line: {text}");
    let classes: Vec<f64> = text
        .split("classes ")
        .nth(1)
        .unwrap()
        .split([' ', '(', ')'])
        .filter_map(|w| w.parse::<f64>().ok())
        .take(3)
        .collect();
    let floor = (low / 16.0).max(classes[1] / 4.0);
    assert!((bounds[0] - floor).abs() <= floor * 1e-3, "the positions' lower end over 16, the classes' over 4: {text}");
    assert!((bounds[1] - classes[2]).abs() <= classes[2] * 1e-3, "the classes' upper end: {text}");
}

/// `catalog export`: an estimate the catalogue holds comes back out as
/// the document its run wrote (its work directory lost), and resolves as
/// that document does; an existing file, an unknown id, and a catalogue
/// whose stored estimate was edited are refused in one line, nothing
/// written.
#[test]
fn catalog_export_gives_back_a_document_to_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let small = estimate_4x4(&SMALL_4X4, &dir.path().join("a"));
    assert!(small["undecided_samples"].as_array().unwrap().len() > 20);
    let first = std::fs::read_dir(dir.path().join("a")).unwrap().next().unwrap().unwrap().path();
    let cat = dir.path().join("cat");
    let o =
        Command::new(common::bin()).args(["catalog", "add", "--new", "--dir"]).arg(&cat).arg(&first).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert_eq!(written, small, "the document written is the one printed");
    // the work directory is gone
    std::fs::remove_dir_all(dir.path().join("a")).unwrap();
    let catalog: serde_json::Value = serde_json::from_slice(&std::fs::read(cat.join("catalog.json")).unwrap()).unwrap();
    let id = catalog["estimates"][0]["id"].as_str().unwrap().to_string();
    let out = dir.path().join("back.json");
    let export = |id: &str, out: &std::path::Path| {
        vec!["catalog", "export", id, "--dir", cat.to_str().unwrap(), "--out", out.to_str().unwrap()]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let args = export(&id, &out);
    let o = Command::new(common::bin()).args(&args).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let back: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(back, written, "the document the run wrote, as it wrote it");
    assert!(back.get("id").is_none(), "the catalogue's id is not the run's");
    // a document that is gone: the refusal names the way back
    common::fails_with(
        dir.path(),
        &["estimate", "--resolve", first.to_str().unwrap(), "--budget", "1000000"],
        "catalog export",
    );
    // and it resolves: a larger budget decides what the small one left
    let resolved = estimate_4x4(&["--resolve", out.to_str().unwrap(), "--budget", "1000000"], &dir.path().join("b"));
    assert_eq!(resolved["totals"]["undecided"], 0);
    assert_eq!(resolved["resolved"]["retried"], small["undecided_samples"].as_array().unwrap().len());
    // refusals, nothing written
    let before = std::fs::read(&out).unwrap();
    let args: Vec<String> = export(&id, &out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::fails_with(dir.path(), &args, "exists");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let other = dir.path().join("other.json");
    let args: Vec<String> = export("estimate-4x4-19700101T000000Z", &other);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::fails_with(dir.path(), &args, "holds no estimate estimate-4x4-19700101T000000Z");
    assert!(!other.exists());
    let mut edited = catalog.clone();
    // a field no other check ties: only the checksum finds the edit
    edited["estimates"][0]["elapsed_seconds"] = serde_json::json!(1.5);
    std::fs::write(cat.join("catalog.json"), serde_json::to_vec(&edited).unwrap()).unwrap();
    let args: Vec<String> = export(&id, &other);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::fails_with(dir.path(), &args, "checksum");
    assert!(!other.exists());
}

/// `inspect` reads a carry file of an exact search (`--carry-exact`):
/// its position, the conflicts spent and what it keeps, in words and in
/// JSON; a damaged one is refused in one line.
#[test]
fn inspect_shows_a_carry_file() {
    use othello_census::estimate::{CARRY_DIR, CarryDir};
    use othello_census::search::game_encoding::{Carry, CarryStore};
    let dir = tempfile::tempdir().unwrap();
    let store = CarryDir::new(&dir.path().join(CARRY_DIR));
    let carry =
        Carry { first_spent: 12, passes_spent: 3456, fingerprint: 0xabc, keep_len: 8, clauses: vec![2, 4, 7, 1, 9] };
    store.save(0x0000_0010_0800_0000, 0x0000_0008_1000_0000, true, &carry);
    let path = store.path_of(0x0000_0010_0800_0000, 0x0000_0008_1000_0000, true);
    let out = Command::new(common::bin()).args(["inspect"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("black 0000001008000000, white 0000000810000000, Black to move (4 discs)"), "{text}");
    assert!(text.contains("12 by the formula without passes, 3,456 by the formula with passes"), "{text}");
    assert!(text.contains("kept: 2 clauses (5 words)"), "{text}");
    let out = Command::new(common::bin()).args(["inspect", "--json"]).arg(&path).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((doc["clauses"].as_u64(), doc["conflicts_with_passes"].as_u64()), (Some(2), Some(3456)));
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 30;
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    common::fails_with(dir.path(), &["inspect", path.to_str().unwrap()], "the file is damaged");
}
