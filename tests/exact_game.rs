//! The exact game encoding (`search::game_encoding`), checked against
//! evidence that shares no code with it:
//!
//! - 4x4: its verdict equals the naive oracle's (a forward enumeration
//!   written for tests only) on reachable positions and on random
//!   candidates of every disc count, either side to move;
//! - 6x6 and 8x8: positions of games played under several move policies
//!   are never called unreachable, and every game it gives replays;
//! - 6x6: where the backward search decides a position (a census member or
//!   a member with one disc's colour changed), the encoding alone, behind
//!   a search of budget 1, gives the same verdict.

#[cfg(feature = "cadical")]
mod common;
mod oracle;
mod policies;

use std::collections::HashSet;

use othello_census::board::{B4, B6, B8, Color, Geometry, Position};
use othello_census::search::game_encoding::{Exact, Solver, exact_game_forced, exact_game_with};
use othello_census::search::reachable::{Frontier, Search, Stage, Verdict, WithStages};

const CONFLICTS: u64 = 1_000_000;

use policies::Rng;

fn position<G: Geometry>(b: u64, w: u64, black_to_move: bool) -> Position<G> {
    let side = if black_to_move { Color::Black } else { Color::White };
    Position::from_colors(othello_census::board::Bitboard(b), othello_census::board::Bitboard(w), side).unwrap()
}

/// How the encoding is asked: by `solver`, and where `facts` with the
/// facts the flip-history relaxation forces added to it.
#[derive(Clone, Copy)]
struct Ask {
    solver: Solver,
    facts: bool,
}

impl Ask {
    const fn plain(solver: Solver) -> Ask {
        Ask { solver, facts: false }
    }

    fn decide<G: Geometry>(self, p: &Position<G>, conflicts: u64) -> Exact<G> {
        if self.facts {
            exact_game_forced::<G>(p, conflicts, self.solver).0
        } else {
            exact_game_with::<G>(p, conflicts, self.solver)
        }
    }
}

/// The oracle's reachable 4x4 positions as (black, white, black to move).
fn oracle_4x4() -> HashSet<(u64, u64, bool)> {
    oracle::reachable(4, 16)
        .into_iter()
        .map(|p| {
            let (b, w) = p.bits();
            (b, w, p.to_move == oracle::BLACK)
        })
        .collect()
}

/// The encoding's verdict on `(b, w, side)`, asked so, against the
/// oracle's.
fn agrees(reachable: &HashSet<(u64, u64, bool)>, b: u64, w: u64, black_to_move: bool, ask: Ask) -> bool {
    let p = position::<B4>(b, w, black_to_move);
    match ask.decide::<B4>(&p, CONFLICTS) {
        Exact::Reachable(g) => {
            assert_eq!(g.replay(), Ok(()), "{}", p.line());
            assert!(reachable.contains(&(b, w, black_to_move)), "called reachable, the oracle disagrees: {}", p.line());
            true
        }
        Exact::Unreachable => {
            assert!(
                !reachable.contains(&(b, w, black_to_move)),
                "called unreachable, the oracle reaches it: {}",
                p.line()
            );
            false
        }
        Exact::Unknown => panic!("a 4x4 position undecided within {CONFLICTS} conflicts: {}", p.line()),
    }
}

/// A random 4x4 candidate of `discs` discs (the centre occupied and
/// `discs - 4` of the 12 other squares, by a partial shuffle; each disc
/// black or white; either side to move): (black, white, Black to move).
fn candidate_4x4(rng: &mut Rng, discs: usize) -> (u64, u64, bool) {
    let centre = 0x0660u64;
    let mut pool: Vec<u32> = (0..16).filter(|s| centre >> s & 1 == 0).collect();
    let mut occ = centre;
    for i in 0..discs - 4 {
        let j = i + (rng.next() % (pool.len() - i) as u64) as usize;
        pool.swap(i, j);
        occ |= 1 << pool[i];
    }
    let colours = rng.next();
    let b: u64 = (0..16).filter(|&s| occ >> s & 1 == 1 && colours >> s & 1 == 1).map(|s| 1u64 << s).sum();
    (b, occ & !b, colours >> 20 & 1 == 1)
}

/// `per_layer` random candidates of each disc count 5 to 16 (centre
/// occupied, each disc black or white, either side to move), and every
/// `stride`-th reachable position: the verdicts the oracle's.
fn four_by_four(per_layer: usize, stride: usize, seed: u64, ask: Ask) {
    let reachable = oracle_4x4();
    let mut rng = Rng(seed);
    let (mut yes, mut no) = (0, 0);
    for discs in 5..=16usize {
        for _ in 0..per_layer {
            let (b, w, black) = candidate_4x4(&mut rng, discs);
            if agrees(&reachable, b, w, black, ask) {
                yes += 1;
            } else {
                no += 1;
            }
        }
    }
    let mut all: Vec<&(u64, u64, bool)> = reachable.iter().collect();
    all.sort();
    for &&(b, w, black) in all.iter().step_by(stride) {
        assert!(agrees(&reachable, b, w, black, ask));
        yes += 1;
    }
    eprintln!("4x4: {yes} reachable, {no} unreachable, as the oracle says");
    assert!(no > per_layer, "too few unreachable candidates to mean anything: {no}");
}

#[test]
fn on_4x4_the_verdicts_are_the_oracles() {
    four_by_four(150, 40, 1, Ask::plain(Solver::default()));
    assert_eq!(othello_census::search::game_encoding::non_replaying_games(), 0);
}

/// Ten times the candidates, and every reachable position (about 15
/// minutes on 2 cores).
#[test]
#[ignore = "about 15 minutes"]
fn on_4x4_the_verdicts_are_the_oracles_at_length() {
    four_by_four(1500, 1, 2, Ask::plain(Solver::default()));
}

/// Positions of `games` games under each policy (uniform, then the
/// biased ones), seeds from `seed` on, up to `max_discs` discs, each never
/// unreachable (and, when reachable, its game replays): the positions
/// checked and those given a game.
fn under_every_policy<G: Geometry>(games: u64, seed: u64, max_discs: u32, ask: Ask) -> (u64, u64) {
    let (mut checked, mut decided) = (0, 0);
    let mut check = |p: &Position<G>| {
        if p.discs() > max_discs {
            return false;
        }
        checked += 1;
        match ask.decide::<G>(p, 20_000) {
            Exact::Unreachable => panic!("a position of a game called unreachable: {}", p.line()),
            Exact::Reachable(g) => {
                assert_eq!(g.replay(), Ok(()), "{}", p.line());
                decided += 1;
            }
            Exact::Unknown => {}
        }
        true
    };
    policies::play_every::<G>(games, games, seed, &mut check);
    (checked, decided)
}

#[test]
fn positions_of_6x6_and_8x8_games_are_never_unreachable() {
    let (checked, decided) = under_every_policy::<B6>(6, 10, 22, Ask::plain(Solver::default()));
    eprintln!("6x6: {checked} positions of games, {decided} given a game that replays");
    assert!(decided * 10 >= checked * 9, "{decided} of {checked}");
    let (checked, decided) = under_every_policy::<B8>(2, 20, 18, Ask::plain(Solver::default()));
    eprintln!("8x8: {checked} positions of games, {decided} given a game that replays");
    assert!(decided * 10 >= checked * 9, "{decided} of {checked}");
    // no model's game failed to replay (it would have been answered as
    // no answer, unseen above)
    assert_eq!(othello_census::search::game_encoding::non_replaying_games(), 0);
}

/// CaDiCaL in its configuration for unsatisfiable formulas, the same
/// evidence on a smaller scale: the oracle's verdicts on 4x4, and no
/// position of a 6x6 or 8x8 game called unreachable.
#[cfg(feature = "cadical")]
#[test]
fn cadicals_unsat_configuration_gives_the_same_verdicts() {
    four_by_four(60, 80, 3, Ask::plain(Solver::CaDiCaLUnsat));
    let (checked, decided) = under_every_policy::<B6>(3, 40, 22, Ask::plain(Solver::CaDiCaLUnsat));
    assert!(decided * 10 >= checked * 9, "6x6: {decided} of {checked}");
    let (checked, decided) = under_every_policy::<B8>(1, 50, 16, Ask::plain(Solver::CaDiCaLUnsat));
    assert!(decided * 10 >= checked * 9, "8x8: {decided} of {checked}");
    assert_eq!(othello_census::search::game_encoding::non_replaying_games(), 0);
}

/// With the facts the flip-history relaxation forces added
/// (`exact_game_forced`): the oracle's verdicts on 4x4, and no position
/// of a 6x6 or 8x8 game called unreachable, each game found replaying.
/// The 6x6 games go to 30 discs, where the relaxation forces dozens of
/// facts a position (a fact added wrongly would cut off the game).
#[test]
fn with_the_forced_facts_the_verdicts_are_the_same() {
    let ask = Ask { solver: Solver::default(), facts: true };
    four_by_four(60, 80, 4, ask);
    let (checked, decided) = under_every_policy::<B6>(3, 60, 30, ask);
    eprintln!("6x6 with forced facts: {checked} positions of games, {decided} given a game that replays");
    assert!(decided * 10 >= checked * 9, "6x6: {decided} of {checked}");
    let (checked, decided) = under_every_policy::<B8>(1, 70, 20, ask);
    eprintln!("8x8 with forced facts: {checked} positions of games, {decided} given a game that replays");
    assert!(decided * 10 >= checked * 9, "8x8: {decided} of {checked}");
    assert_eq!(othello_census::search::game_encoding::non_replaying_games(), 0);
}

/// The same to full boards, with a larger budget (about 20 minutes).
#[test]
#[ignore = "about 20 minutes"]
fn positions_of_whole_6x6_games_are_never_unreachable() {
    let (checked, decided) = under_every_policy::<B6>(2, 30, 36, Ask::plain(Solver::default()));
    eprintln!("6x6: {checked} positions of games, {decided} given a game that replays");
}

/// 6x6 positions the backward search decides with a large budget: the
/// positions of games from 15 to 18 discs, and each with one disc's
/// colour changed (mostly unreachable); behind a search of budget 1, the
/// exact stage gives the same verdict and names itself.
#[test]
fn behind_a_spent_search_the_exact_stage_agrees_with_the_search() {
    let frontier = Frontier::<B6>::build(10);
    let mut search = Search::new(&frontier, 10_000_000).with_relaxation(0);
    let mut exact = Search::new(&frontier, 1).with_relaxation(0).with_exact(CONFLICTS, Default::default());
    let mut rng = Rng(5);
    let (mut yes, mut no, mut by_exact) = (0, 0, 0);
    for _ in 0..6 {
        let mut p = Position::<B6>::start();
        while p.discs() < 18 {
            let moves: Vec<u32> = p.legal_moves().iter().collect();
            if moves.is_empty() {
                break;
            }
            p = p.play(moves[(rng.next() % moves.len() as u64) as usize]);
            if p.discs() < 15 {
                continue;
            }
            let occ: Vec<u32> = (0..36).filter(|&s| (p.black().0 | p.white().0) >> s & 1 == 1).collect();
            let s = occ[(rng.next() % occ.len() as u64) as usize];
            let changed = position::<B6>(p.black().0 ^ 1 << s, p.white().0 ^ 1 << s, p.side_to_move() == Color::Black);
            for q in [p, changed] {
                let want = match search.decide(&q) {
                    Verdict::Reachable(_) => true,
                    Verdict::Unreachable => false,
                    Verdict::Undecided => continue,
                };
                let got = match exact.decide(&q) {
                    Verdict::Reachable(g) => {
                        assert_eq!(g.replay(), Ok(()));
                        true
                    }
                    Verdict::Unreachable => false,
                    Verdict::Undecided => panic!("undecided within {CONFLICTS} conflicts: {}", q.line()),
                };
                assert_eq!(got, want, "{}", q.line());
                by_exact += u64::from(exact.decided_by() == Stage::Exact);
                if want { yes += 1 } else { no += 1 }
            }
        }
    }
    eprintln!("6x6 15-18 discs: {yes} reachable, {no} unreachable, {by_exact} decided by the exact stage");
    assert!(yes > 10 && no > 10 && by_exact > 10);
}

/// Census members and non-members: positions of games of 11 to 13 discs
/// (8x8) and 12 to 14 discs (6x6), each also with one disc's colour
/// changed and with one disc moved to an empty square next to it; the
/// exact encoding's verdict is whether the census (the frontier, every
/// reachable position up to that many discs, enumerated forwards) holds
/// the position.
fn census_verdicts<G: othello_census::key::Keyed + Geometry>(
    discs: std::ops::RangeInclusive<u32>,
    games: usize,
    seed: u64,
) {
    let frontier = Frontier::<G>::build(*discs.end());
    let (mut yes, mut no) = (0, 0);
    let n = G::N;
    for q in policies::census_variants::<G>(&discs, games, seed) {
        let want = frontier.contains(&q);
        let got = match exact_game_with::<G>(&q, CONFLICTS, Solver::default()) {
            Exact::Reachable(g) => {
                assert_eq!(g.replay(), Ok(()));
                true
            }
            Exact::Unreachable => false,
            Exact::Unknown => panic!("undecided within {CONFLICTS} conflicts: {}", q.line()),
        };
        assert_eq!(got, want, "the census says {want}: {}", q.line());
        if want { yes += 1 } else { no += 1 }
    }
    eprintln!("{n}x{n}, {discs:?} discs: {yes} census members, {no} non-members, as the census says");
    assert!(yes > 10 && no > 10);
}

#[test]
fn census_members_and_non_members_get_the_censuss_verdict() {
    census_verdicts::<B6>(12..=14, 8, 3);
    census_verdicts::<B8>(11..=13, 6, 4);
}

/// The verdict of searches of `step` conflicts each, every one resuming
/// from the carry of the one before (`exact_game_resumed`), up to `most`
/// conflicts in all; and how many searches it took.
#[cfg(feature = "cadical")]
fn in_pieces<G: Geometry>(p: &Position<G>, step: u64, most: u64) -> (Exact<G>, u64) {
    use othello_census::search::game_encoding::exact_game_resumed;
    let (mut carry, mut limit, mut searches) = (None, 0, 0);
    loop {
        limit += step;
        searches += 1;
        let (v, _, c) = exact_game_resumed::<G>(p, limit, Solver::CaDiCaL, None, carry.as_ref());
        if v != Exact::Unknown || limit >= most {
            return (v, searches);
        }
        carry = c;
    }
}

/// Searches resumed from their carries (learned clauses handed from one
/// search to the next: `estimate --resolve --carry-exact`) against the
/// same evidence: on 4x4, searches of 30 conflicts each give the oracle's
/// verdict on random candidates of every disc count and on reachable
/// positions, many of them after several searches; positions of 6x6 and
/// 8x8 games, in searches of 300 conflicts, are never called unreachable,
/// and every game given replays. Pieces this short stall without the
/// carry's growing clause length (a search that keeps no new clause
/// leaves the same carry, and the next search is the same search again):
/// before it, 79 of 494 4x4 positions stayed undecided here within 3,000
/// conflicts; with it, 11 (a resolve's pieces are whole sessions, of
/// millions of conflicts, each keeping thousands of clauses).
#[cfg(feature = "cadical")]
#[test]
fn searches_resumed_from_their_carries_give_the_same_verdicts() {
    let reachable = oracle_4x4();
    let mut rng = Rng(5);
    let (mut resumed, mut verdicts, mut stalled) = (0, 0, 0);
    let mut candidates: Vec<(u64, u64, bool)> =
        (8..=16usize).flat_map(|discs| std::iter::repeat_n(discs, 20)).map(|d| candidate_4x4(&mut rng, d)).collect();
    let mut all: Vec<(u64, u64, bool)> = reachable.iter().copied().collect();
    all.sort();
    candidates.extend(all.iter().step_by(200));
    for (b, w, black) in candidates {
        let p = position::<B4>(b, w, black);
        let (v, searches) = in_pieces(&p, 30, 3_000);
        let expected = reachable.contains(&(b, w, black));
        match v {
            Exact::Reachable(g) => {
                assert_eq!(g.replay(), Ok(()), "{}", p.line());
                assert!(expected, "called reachable after {searches} searches, the oracle disagrees: {}", p.line());
            }
            Exact::Unreachable => {
                assert!(!expected, "called unreachable after {searches} searches, the oracle reaches it: {}", p.line())
            }
            Exact::Unknown => {
                stalled += 1;
                continue;
            }
        }
        verdicts += 1;
        resumed += u64::from(searches > 1);
    }
    eprintln!("4x4: {verdicts} verdicts, the oracle's; {resumed} after more than one search; {stalled} stalled");
    assert!(resumed >= 20, "only {resumed} searches resumed: the test needs smaller pieces");
    assert!(stalled * 20 <= verdicts, "{stalled} stalled of {}", verdicts + stalled);
    let mut resumed_games = 0;
    let mut check = |p: &Position<B6>| {
        if p.discs() > 26 {
            return false;
        }
        let (v, searches) = in_pieces(p, 300, 6_000);
        assert!(v != Exact::Unreachable, "a position of a game called unreachable: {}", p.line());
        if let Exact::Reachable(g) = v {
            assert_eq!(g.replay(), Ok(()), "{}", p.line());
        }
        resumed_games += u64::from(searches > 1);
        true
    };
    policies::play_every::<B6>(1, 1, 60, &mut check);
    eprintln!("6x6: {resumed_games} positions of games searched more than once");
    let mut check = |p: &Position<B8>| {
        if p.discs() > 20 {
            return false;
        }
        let (v, _) = in_pieces(p, 300, 3_000);
        assert!(v != Exact::Unreachable, "a position of a game called unreachable: {}", p.line());
        true
    };
    policies::play_every::<B8>(1, 1, 70, &mut check);
    assert_eq!(othello_census::search::game_encoding::non_replaying_games(), 0);
}

/// `estimate --resolve --carry-exact` from the command line: a first
/// round of 5 conflicts leaves samples, whose carries the second round
/// resumes from; every sample is decided as a resolve without carries
/// decides it (the same tallies, layer by layer), and no carry file is
/// left for a decided sample. Refused without CaDiCaL's search to carry
/// (BatSat), and without --out.
#[cfg(feature = "cadical")]
#[test]
fn a_resolve_carries_its_exact_searches_from_round_to_round() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = Command::new(common::bin()).args(["estimate", "--size", "4", "--json"]).args(args).output().unwrap();
        assert!(o.status.success(), "{o:?}");
        (
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let a = dir.path().join("a");
    let (small, _) = run(&[
        "-q",
        "--out",
        a.to_str().unwrap(),
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
    ]);
    assert!(small["totals"]["undecided"].as_u64().unwrap() > 10, "the test needs undecided samples");
    let first = std::fs::read_dir(&a).unwrap().next().unwrap().unwrap().path();
    let f = first.to_str().unwrap();
    let settings = [
        "--resolve",
        f,
        "--budget",
        "1",
        "--beam-width",
        "0",
        "--sweep-width",
        "0",
        "--exact-conflicts",
        "1000",
        "--exact-first",
        "5",
    ];
    let (plain, _) = run(&[&settings[..], &["--out", dir.path().join("b").to_str().unwrap()]].concat());
    let c = dir.path().join("c");
    let (carried, said) = run(&[&settings[..], &["--out", c.to_str().unwrap(), "--carry-exact"]].concat());
    let tallies = |d: &serde_json::Value| -> Vec<(u64, u64, u64)> {
        d["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let t = &l["tally"];
                (t["reachable"].as_u64().unwrap(), t["unreachable"].as_u64().unwrap(), t["undecided"].as_u64().unwrap())
            })
            .collect()
    };
    assert_eq!(tallies(&carried), tallies(&plain));
    assert_eq!(carried["totals"]["undecided"], 0, "every sample decided at 1,000 conflicts");
    let counts = said.lines().find(|l| l.contains("given a carry")).expect(&said).to_string();
    let number = |word: &str| -> u64 {
        let at = counts.find(word).unwrap();
        counts[..at].split_whitespace().last().unwrap().parse().unwrap()
    };
    assert!(number(" given a carry") >= 1 && number(" carries written") >= 1, "{counts}");
    assert!(counts.contains("0 carry files"), "{counts}");
    let left: Vec<_> = std::fs::read_dir(c.join("exact-carry")).map(|d| d.flatten().collect()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    common::fails_with(
        dir.path(),
        &[&["estimate", "--size", "4"][..], &settings, &["--out", "d", "--carry-exact", "--sat-solver", "batsat"]]
            .concat(),
        "--carry-exact keeps what CaDiCaL learned",
    );
    // each thread's carry and solver are reserved before any search:
    // 1,024 threads' (768 GiB and 38 GiB on 4x4) are refused where they
    // exceed two fifths of the memory free (any machine with less than
    // 2 TiB free); where the memory cannot be read, or is larger,
    // nothing is checked here
    let carries = 1024
        * (othello_census::search::game_encoding::CARRY_PEAK_BYTES
            + othello_census::search::game_encoding::exact_peak_bytes::<B4>());
    if othello_census::engine::memory::available_memory().is_some_and(|free| carries > free / 5 * 2) {
        common::fails_with(
            dir.path(),
            &[&["estimate", "--size", "4"][..], &settings, &["--out", "e", "--carry-exact", "--threads", "1024"]]
                .concat(),
            "--carry-exact on 1024 thread(s): the exact searches' solvers and carries may hold up to",
        );
        assert!(!dir.path().join("e").exists(), "a refused resolve made its directory");
    }
    // without a carry each thread's solver alone is reserved, and only
    // where the exact encoding is tried: on 8x8 1,024 threads' (768 GiB)
    // are refused on a machine with less than 1.9 TiB free, and the same
    // run with --exact-conflicts 0 is not refused for them (it draws one
    // sample, of 5 discs)
    let solvers = 1024 * othello_census::search::game_encoding::exact_peak_bytes::<B8>();
    if othello_census::engine::memory::available_memory().is_some_and(|free| solvers > free / 5 * 2) {
        let run = [
            "estimate",
            "--size",
            "8",
            "--discs",
            "5",
            "-q",
            "--threads",
            "1024",
            "--budget",
            "1000",
            "--beam-width",
            "0",
            "--sweep-width",
            "0",
            "--samples",
            "1",
        ];
        common::fails_with(
            dir.path(),
            &[&run[..], &["--exact-conflicts", "1000"]].concat(),
            "--exact-conflicts on 1024 thread(s): the exact searches' solvers may hold up to 768 GiB",
        );
        let o = Command::new(common::bin()).args(run).args(["--exact-conflicts", "0"]).output().unwrap();
        assert!(o.status.success(), "{o:?}");
    }
    let o = Command::new(common::bin())
        .args(["estimate", "--size", "4"])
        .args(settings)
        .arg("--carry-exact")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--out"), "{o:?}");
}
