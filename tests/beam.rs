//! The beam (`search::reachable`, the stage after the depth-first search)
//! against the naive oracle on 4x4, which shares no code with the engine,
//! and against positions of 6x6 and 8x8 games played under several move
//! policies (reachable by construction): every game it finds replays to
//! the position, it never calls a reachable position unreachable, and a
//! beam wide enough never to drop a position gives the oracle's verdict on
//! every position. Also that it finds games the depth-first search of the
//! same position does not, so the stage is not vacuous. The sweep (the same
//! walk keeping every position of a step, tried where the beam gives up)
//! against the same evidence, and on dense 8x8 samples that the search and
//! the beam leave undecided, beside a depth-first search large enough to
//! decide them.

mod common;
mod oracle;
mod policies;

use othello_census::board::{B4, B6, B8, Bitboard, Color, Geometry, Position};
use othello_census::search::reachable::{
    Frontier, Search, Stage, SweepRelaxation, Verdict, WithStages, cheap_conditions, joined_to_centre,
};

use policies::{beam_alone, sweep_alone};

/// The sweep alone, pruned by the flip-history relaxation: 64 calls a
/// walk of 2,000 conflicts each, on steps of at most 4,096 positions (a
/// few tenths of a second a walk on 6x6 and 8x8 positions of games).
fn sweep_relaxed<G: othello_census::key::Keyed>(frontier: &Frontier<G>, width: usize) -> Search<'_, G> {
    sweep_alone(frontier, width).with_sweep_relaxation(Some(SweepRelaxation { calls: 64, ..RELAXED }))
}

/// The relaxation of the dense samples' sweeps below.
const RELAXED: SweepRelaxation = SweepRelaxation { calls: 4_096, step: 4_096, conflicts: 2_000 };

/// A verdict checked: a game replays and ends at `p`. True for reachable,
/// false for unreachable, None for undecided.
fn checked<G: Geometry>(p: &Position<G>, v: &Verdict<G>) -> Option<bool> {
    match v {
        Verdict::Reachable(g) => {
            g.replay().unwrap_or_else(|e| panic!("the beam's game does not replay ({e}): {}", p.line()));
            assert_eq!(g.end, *p, "the game ends elsewhere");
            Some(true)
        }
        Verdict::Unreachable => Some(false),
        Verdict::Undecided => None,
    }
}

/// Every 4x4 position of 9 to 16 discs (every `stride`-th colouring of
/// each occupancy, both sides to move) that passes the cheap conditions,
/// beside the oracle: a complete beam (wide enough never to drop a
/// position) decides each as the oracle does; a beam of width 2 never
/// contradicts it. The same of the sweep: wide, it decides each as the
/// oracle does; of 4 positions a step, it never contradicts it.
#[test]
fn the_beam_gives_the_oracles_verdict_on_4x4() {
    four_by_four(5, 5, 8);
}

/// The same on every 4x4 candidate that reaches the stages (all
/// 17,006,112 are enumerated; those of every occupancy and colouring the
/// cheap conditions pass), every stage together on each of them, the
/// relaxed sweep still on every 64th: `cargo test --release --test beam --
/// --ignored`.
#[test]
#[ignore = "61 minutes on one thread (results/benchmarks/every-4x4-candidate-20261128.txt)"]
fn the_beam_gives_the_oracles_verdict_on_every_4x4_candidate() {
    four_by_four(0, 1, 1);
}

/// What the 4x4 comparison counted.
#[derive(Default)]
struct Counts {
    tried: u64,
    by_beam: u64,
    found: u64,
    refuted: u64,
    narrow_decided: u64,
    by_sweep: u64,
    narrow_swept: u64,
    relaxed: u64,
    by_stage: std::collections::BTreeMap<String, u64>,
}

impl Counts {
    fn merge(mut self, o: Counts) -> Counts {
        self.tried += o.tried;
        self.by_beam += o.by_beam;
        self.found += o.found;
        self.refuted += o.refuted;
        self.narrow_decided += o.narrow_decided;
        self.by_sweep += o.by_sweep;
        self.narrow_swept += o.narrow_swept;
        self.relaxed += o.relaxed;
        for (k, v) in o.by_stage {
            *self.by_stage.entry(k).or_default() += v;
        }
        self
    }
}

/// The 4x4 comparison, on the occupancies with at least `fewest` squares
/// besides the centre and every `stride`-th colouring of each; every stage
/// together at small limits on every `pipeline_every`-th position of an
/// occupancy (each builds the relaxation's encoding).
fn four_by_four(fewest: u32, stride: usize, pipeline_every: u64) {
    use rayon::prelude::*;
    let reachable: std::collections::HashSet<(u64, u64, bool)> = oracle::reachable(4, 16)
        .into_iter()
        .map(|p| {
            let (b, w) = p.bits();
            (b, w, p.to_move == oracle::BLACK)
        })
        .collect();
    // a frontier of 6 discs: the beam walks up to ten steps
    let frontier = Frontier::<B4>::build(6);
    let centre = 0x0660u64;
    let others: Vec<u32> = (0..16).filter(|s| centre >> s & 1 == 0).collect();
    let c = (0u32..1 << 12)
        .into_par_iter()
        .filter(|pick| pick.count_ones() >= fewest)
        .map_init(
            || {
                (
                    beam_alone(&frontier, 1 << 20),
                    beam_alone(&frontier, 2),
                    sweep_alone(&frontier, 1 << 20),
                    sweep_alone(&frontier, 4),
                    sweep_relaxed(&frontier, 1 << 20),
                    // every stage in the estimate's order at limits small
                    // enough that each one is reached: the search of 16
                    // positions, the relaxation, the balance, a beam of 8, a
                    // sweep of 64
                    Search::new(&frontier, 16).with_beam(8).with_sweep(64),
                )
            },
            |(wide, narrow, wide_sweep, narrow_sweep, relaxed_sweep, pipeline), pick| {
                let mut c = Counts::default();
                let occ = centre
                    | others
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| pick >> i & 1 == 1)
                        .map(|(_, s)| 1u64 << s)
                        .sum::<u64>();
                if !joined_to_centre::<B4>(occ) {
                    return c;
                }
                let squares: Vec<u32> = (0..16).filter(|s| occ >> s & 1 == 1).collect();
                let mut here = 0u64;
                for colours in (0u32..1 << squares.len()).step_by(stride) {
                    let b: u64 =
                        squares.iter().enumerate().filter(|(i, _)| colours >> i & 1 == 1).map(|(_, s)| 1u64 << s).sum();
                    let w = occ & !b;
                    if !cheap_conditions::<B4>(b, w) {
                        continue;
                    }
                    for black in [true, false] {
                        let side = if black { Color::Black } else { Color::White };
                        let p = Position::<B4>::from_colors(Bitboard(b), Bitboard(w), side).unwrap();
                        let truth = reachable.contains(&(b, w, black));
                        c.tried += 1;
                        here += 1;
                        let v = wide.decide(&p);
                        assert_eq!(checked(&p, &v), Some(truth), "a complete beam on {}", p.line());
                        if wide.decided_by() == Stage::Beam {
                            c.by_beam += 1;
                            c.found += u64::from(truth);
                            c.refuted += u64::from(!truth);
                        }
                        let v = narrow.decide(&p);
                        if let Some(said) = checked(&p, &v) {
                            assert_eq!(said, truth, "a beam of width 2 on {}", p.line());
                            c.narrow_decided += 1;
                        }
                        let v = wide_sweep.decide(&p);
                        assert_eq!(checked(&p, &v), Some(truth), "a wide sweep on {}", p.line());
                        c.by_sweep += u64::from(wide_sweep.decided_by() == Stage::Sweep);
                        let v = narrow_sweep.decide(&p);
                        if let Some(said) = checked(&p, &v) {
                            assert_eq!(said, truth, "a sweep of width 4 on {}", p.line());
                            c.narrow_swept += u64::from(narrow_sweep.decided_by() == Stage::Sweep);
                        }
                        if here.is_multiple_of(pipeline_every) {
                            let v = pipeline.decide(&p);
                            if let Some(said) = checked(&p, &v) {
                                assert_eq!(said, truth, "every stage at small limits on {}", p.line());
                                *c.by_stage.entry(format!("{:?}", pipeline.decided_by())).or_default() += 1;
                            }
                        }
                        // the relaxed sweep on every 64th position (each walk
                        // builds an encoding), offset by occupancy so that
                        // small ones are reached too: the oracle's verdict
                        if (here + u64::from(pick) * 37).is_multiple_of(64) {
                            let v = relaxed_sweep.decide(&p);
                            assert_eq!(checked(&p, &v), Some(truth), "a relaxed sweep on {}", p.line());
                            c.relaxed += u64::from(relaxed_sweep.decided_by() == Stage::Sweep);
                        }
                    }
                }
                c
            },
        )
        .reduce(Counts::default, Counts::merge);
    eprintln!(
        "4x4: {} positions; the complete beam decided {} ({} reachable, {} unreachable), the beam of width 2 {}; \
         the wide sweep decided {}, the sweep of width 4 {}, the relaxed sweep {}; every stage at small limits \
         (every {pipeline_every}th position) decided, by stage: {:?}",
        c.tried, c.by_beam, c.found, c.refuted, c.narrow_decided, c.by_sweep, c.narrow_swept, c.relaxed, c.by_stage
    );
    assert!(c.found > 1_000 && c.refuted > 1_000, "the beam decided too few to test it");
    assert!(c.by_sweep > 1_000_000 && c.narrow_swept > 1_000, "the sweep decided too few to test it");
    assert!(c.relaxed > 10_000, "the relaxed sweep decided too few to test it");
    for stage in ["Search", "FlipHistory", "FlipBalance", "Beam", "Sweep"] {
        assert!(
            c.by_stage.get(stage).is_some_and(|&n| n > 100),
            "at small limits, {stage} decided too few: {:?}",
            c.by_stage
        );
    }
}

/// Positions of games under every policy, from `discs` discs on: the beam
/// alone never calls one unreachable, and every game it finds replays;
/// the positions found.
fn game_positions<G: othello_census::key::Keyed>(
    frontier_discs: u32,
    discs: u32,
    alone: fn(&Frontier<G>, usize) -> Search<'_, G>,
    width: usize,
    uniform_games: u64,
    games: u64,
    seed: u64,
) -> (u64, u64) {
    let frontier = Frontier::<G>::build(frontier_discs);
    let mut beam = alone(&frontier, width);
    let (mut tried, mut found) = (0u64, 0u64);
    let mut check = |p: &Position<G>| {
        if p.discs() < discs {
            return true;
        }
        tried += 1;
        let v = beam.decide(p);
        assert_ne!(checked(p, &v), Some(false), "a position of a game called unreachable: {}", p.line());
        found += u64::from(matches!(v, Verdict::Reachable(_)));
        true
    };
    policies::play_every::<G>(uniform_games, games, seed, &mut check);
    (tried, found)
}

#[test]
fn the_beam_finds_games_of_6x6_positions() {
    let (tried, found) = game_positions::<B6>(12, 24, beam_alone, 1000, 6, 2, 21);
    eprintln!("6x6: {tried} positions of games, {found} found by a beam of 1000");
    assert!(tried > 200 && found * 3 > tried, "{found} of {tried}");
}

/// Dense 8x8 positions of games: the beam finds games where a depth-first
/// search of 10^6 positions finds fewer.
#[test]
fn the_beam_finds_games_of_dense_8x8_positions_the_search_does_not() {
    let (tried, found) = game_positions::<B8>(10, 56, beam_alone, 1000, 1, 1, 31);
    eprintln!("8x8: {tried} positions of 56 or more discs, {found} found by a beam of 1000");
    assert!(tried > 30 && found > 0, "{found} of {tried}");
    let frontier = Frontier::<B8>::build(10);
    let mut dfs = Search::new(&frontier, 1_000_000).with_relaxation(0);
    let (mut dfs_found, mut beam_found) = (0u64, 0u64);
    let mut beam = beam_alone(&frontier, 1000);
    policies::play::<B8>(6, 77, &policies::uniform::<B8>, &mut |p: &Position<B8>| {
        if p.discs() == 50 {
            dfs_found += u64::from(matches!(dfs.decide(p), Verdict::Reachable(_)));
            beam_found += u64::from(checked(p, &beam.decide(p)) == Some(true));
        }
        true
    });
    eprintln!("8x8, 50 discs, 6 games: depth-first search of 10^6 found {dfs_found}, beam of 1000 {beam_found}");
    assert!(beam_found > dfs_found, "the beam found {beam_found}, the search {dfs_found}");
}

/// The sweep alone on positions of 6x6 and 8x8 games: never unreachable,
/// and the games it finds (some on 6x6; on dense 8x8 positions its steps
/// outgrow the width and it gives up) replay.
#[test]
fn the_sweep_never_calls_a_position_of_a_game_unreachable() {
    let (tried, found) = game_positions::<B6>(12, 24, sweep_alone, 20_000, 6, 2, 23);
    eprintln!("6x6: {tried} positions of games, {found} found by a sweep of 20,000");
    assert!(tried > 200 && found > 0, "{found} of {tried}");
    let (tried, found) = game_positions::<B8>(10, 50, sweep_alone, 100_000, 1, 1, 33);
    eprintln!("8x8: {tried} positions of 50 or more discs, {found} found by a sweep of 100,000");
    assert!(tried > 50, "{tried} positions");
}

/// The same of the sweep pruned by the flip-history relaxation.
#[test]
fn the_relaxed_sweep_never_calls_a_position_of_a_game_unreachable() {
    let (tried, found) = game_positions::<B6>(12, 24, sweep_relaxed, 20_000, 3, 1, 24);
    eprintln!("6x6: {tried} positions of games, {found} found by a relaxed sweep of 20,000");
    assert!(tried > 80 && found > 0, "{found} of {tried}");
    // near full 8x8 boards a call costs about 30 ms: one game's last positions
    let (tried, found) = game_positions::<B8>(10, 58, sweep_relaxed, 20_000, 1, 0, 34);
    eprintln!("8x8: {tried} positions of 58 or more discs, {found} found by a relaxed sweep of 20,000");
    assert!(tried > 5, "{tried} positions");
}

/// Dense 8x8 samples of the estimate (seeds 1-3, generation 3) that a
/// depth-first search of 10^6 positions and a beam of 10,000 leave
/// undecided: a sweep of 10^6 proves them unreachable, and a depth-first
/// search large enough to end every line (2-6 x 10^6 positions) agrees.
#[test]
fn the_sweep_proves_dense_8x8_samples_the_search_and_the_beam_leave() {
    let frontier = Frontier::<B8>::build(10);
    for line in [
        "X-OOOOOO OOOXXXOO OXOXO-OX -X-OXOOO -XXOX-O- XOX-X-XO -OOOXXOO OOOOOXXO X",
        "XOOO--OO XOXX-XO- -OX-XOOO OXXXO-OO OO-OOOXO OXX-XXXO OXOOOOXX O-OOX-OX O",
        "XX-X-X-X -XOOXX-X XOOX---X XXXXOXXO X-OXOOOO OOXOX-OO -XXOX-XO OOOXX-X- X",
    ] {
        let p = Position::<B8>::parse(line).unwrap();
        let mut without = Search::new(&frontier, 1_000_000).with_balance(false).with_beam(10_000);
        assert_eq!(without.decide(&p), Verdict::Undecided, "without the sweep: {line}");
        let mut with = Search::new(&frontier, 1_000_000).with_balance(false).with_beam(10_000).with_sweep(1_000_000);
        assert_eq!(with.decide(&p), Verdict::Unreachable, "with the sweep: {line}");
        assert_eq!(with.decided_by(), Stage::Sweep);
        // pruned by the relaxation: the same verdict from fewer positions
        // (a pruned step is a subset of the step unpruned)
        let plain_nodes = with.nodes();
        let mut relaxed = Search::new(&frontier, 1_000_000)
            .with_balance(false)
            .with_beam(10_000)
            .with_sweep(1_000_000)
            .with_sweep_relaxation(Some(RELAXED));
        assert_eq!(relaxed.decide(&p), Verdict::Unreachable, "with the relaxed sweep: {line}");
        assert_eq!(relaxed.decided_by(), Stage::Sweep);
        assert!(relaxed.nodes() < plain_nodes, "{} positions relaxed, {plain_nodes} plain: {line}", relaxed.nodes());
        // a search reused gives the same verdict from the same positions
        assert_eq!(relaxed.decide(&p), Verdict::Unreachable);
        let again = relaxed.nodes();
        let mut fresh = Search::new(&frontier, 1_000_000)
            .with_balance(false)
            .with_beam(10_000)
            .with_sweep(1_000_000)
            .with_sweep_relaxation(Some(RELAXED));
        assert_eq!(fresh.decide(&p), Verdict::Unreachable);
        assert_eq!(fresh.nodes(), again, "{line}");
        let mut deep = Search::new(&frontier, 100_000_000).with_beam(0);
        assert_eq!(deep.decide(&p), Verdict::Unreachable, "a deep search: {line}");
        assert_eq!(deep.decided_by(), Stage::Search);
    }
}

/// A `--beam-width` past 10^6 or a `--sweep-width` past 10^9, or either
/// not a number, is refused in one line before any work (and a sweep too
/// large for memory), and the runs leave nothing behind.
#[test]
fn a_beam_width_out_of_range_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let start = Position::<B6>::start().line();
    for (flag, width, needle) in [
        ("--beam-width", "2000000", "more than 10^6"),
        ("--beam-width", "wide", "not a whole number"),
        ("--sweep-width", "2000000000", "more than 10^9"),
        ("--sweep-width", "all", "not a whole number"),
    ] {
        common::fails_with(dir.path(), &["reachable", "--position", &start, flag, width], needle);
        common::fails_with(dir.path(), &["estimate", "--size", "4", "--samples", "10", "-q", flag, width], needle);
    }
    // within the parser's range, but not within this machine's memory
    common::fails_with(
        dir.path(),
        &["estimate", "--size", "4", "--samples", "10", "-q", "--sweep-width", "1000000000"],
        "--sweep-width",
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the refused runs left files");
}

/// A stop (a signal, a deadline) cuts a beam under way: it gives up at its
/// next step, and the position is deferred (not searched at the limits:
/// a resolve searches it again), even with no exact stage after it. Left
/// alone, the same beam finds the game.
#[test]
fn a_stop_cuts_the_beam_under_way_and_defers_the_position() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let frontier = Frontier::<B6>::build(8);
    let mut found = None;
    policies::play::<B6>(1, 5, &policies::uniform, |p| {
        if p.discs() == 20 {
            found = Some(*p);
        }
        found.is_none()
    });
    let p = found.expect("a position of 20 discs");
    let mut whole = beam_alone(&frontier, 1_000);
    assert_eq!(checked(&p, &whole.decide(&p)), Some(true), "{}", p.line());
    assert_eq!(whole.decided_by(), Stage::Beam);
    assert!(!whole.deferred());
    // asked before the search (1), before the beam (2), then before each
    // step of the walk: true from the walk's second step on
    let asked = AtomicU64::new(0);
    let stop = || asked.fetch_add(1, Ordering::Relaxed) >= 3;
    let mut cut = beam_alone(&frontier, 1_000).with_stop(Some(&stop));
    assert_eq!(cut.decide(&p), Verdict::Undecided);
    assert!(cut.deferred(), "a walk cut leaves its position deferred");
    assert!(asked.load(Ordering::Relaxed) > 3, "the walk asked the stop");
    assert!(cut.nodes() > 2 && cut.nodes() < whole.nodes(), "{} of {} positions", cut.nodes(), whole.nodes());
}
