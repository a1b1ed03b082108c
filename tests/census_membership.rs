//! Census members and non-members against the decider as `reachable` and
//! `estimate` run it: positions of random games (members) of 12 to 14
//! discs on 6x6 and 11 to 13 on 8x8, each also with one disc's colour
//! changed and with one disc moved to an empty neighbour (most of them
//! non-members). The reference is the census: the frontier of the last of
//! those disc counts, every reachable position enumerated forwards from the
//! start. The decider works backwards from the position to a frontier of 8
//! discs, so the two share only the rules.
//!
//! Three deciders, each must give the census's verdict on every position
//! (a game that replays where it says reachable):
//!
//! - every stage at the estimate's defaults (search of 10^6 positions, the
//!   flip-history relaxation, the flip-count balance, beam, sweep);
//! - the beam alone, wide enough never to drop a position;
//! - the sweep alone, as wide.
//!
//! The two refuters that cannot decide alone, the flip-history relaxation
//! and the flip-count balance, must never refute a member.
//!
//! (`tests/exact_game.rs` holds the same check of the exact game encoding.)

mod policies;

use othello_census::board::{B6, B8};
use othello_census::key::Keyed;
use othello_census::search::flip_history::{Relaxation, flip_history};
use othello_census::search::reachable::flip_balance::{Balance, flip_balance};
use othello_census::search::reachable::{BEAM_WIDTH, Frontier, SWEEP_WIDTH, Search, Verdict, WithStages};

fn membership<G: Keyed>(discs: std::ops::RangeInclusive<u32>, games: usize, seed: u64) {
    let census = Frontier::<G>::build(*discs.end());
    let low = Frontier::<G>::build(8);
    let mut deciders: Vec<(&str, Search<'_, G>)> = vec![
        ("every stage", Search::new(&low, 1_000_000).with_beam(BEAM_WIDTH).with_sweep(SWEEP_WIDTH)),
        ("the beam alone", Search::new(&low, 1).with_relaxation(0).with_balance(false).with_beam(1 << 22)),
        (
            "the sweep alone",
            Search::new(&low, 1).with_relaxation(0).with_balance(false).with_beam(0).with_sweep(1 << 22),
        ),
    ];
    let positions = policies::census_variants::<G>(&discs, games, seed);
    let (mut members, mut others) = (0u64, 0u64);
    let mut stages = std::collections::BTreeMap::<String, u64>::new();
    for q in &positions {
        let want = census.contains(q);
        if want {
            members += 1
        } else {
            others += 1
        }
        let (b, w) = (q.black().0, q.white().0);
        let relaxed = flip_history::<G>(b, w, 20_000) == Relaxation::Infeasible;
        let balanced = flip_balance::<G>(b, w) == Balance::Infeasible;
        assert!(!(want && relaxed), "the relaxation refutes a member: {}", q.line());
        assert!(!(want && balanced), "the balance refutes a member: {}", q.line());
        *stages.entry("refuted by the relaxation".into()).or_default() += u64::from(relaxed);
        *stages.entry("refuted by the balance".into()).or_default() += u64::from(balanced);
        for (name, d) in deciders.iter_mut() {
            let got = match d.decide(q) {
                Verdict::Reachable(g) => {
                    assert_eq!(g.replay(), Ok(()), "{name}: its game does not replay: {}", q.line());
                    assert_eq!(g.end, *q, "{name}: its game ends elsewhere");
                    true
                }
                Verdict::Unreachable => false,
                Verdict::Undecided => panic!("{name}: undecided: {}", q.line()),
            };
            assert_eq!(got, want, "{name}: the census says {want}: {}", q.line());
            *stages.entry(format!("{name}: {:?}", d.decided_by())).or_default() += 1;
        }
    }
    let n = G::N;
    eprintln!("{n}x{n}, {discs:?} discs: {members} census members, {others} non-members; decided by {stages:?}");
    assert!(members > 50 && others > 50, "{members} members, {others} non-members");
    for stage in ["the beam alone: Beam", "the sweep alone: Sweep"] {
        assert!(stages[stage] > 50, "{stage}: too few to test it: {stages:?}");
    }
    for refuter in ["refuted by the relaxation", "refuted by the balance"] {
        assert!(stages[refuter] > 10, "{refuter}: too few to test it: {stages:?}");
    }
}

#[test]
fn census_members_and_non_members_get_the_census_verdict_on_6x6() {
    membership::<B6>(12..=14, 40, 5);
}

#[test]
fn census_members_and_non_members_get_the_census_verdict_on_8x8() {
    membership::<B8>(11..=13, 40, 6);
}
