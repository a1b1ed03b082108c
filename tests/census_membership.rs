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

use othello_census::board::{B6, B8, Bitboard, Color, Geometry, Position};
use othello_census::key::Keyed;
use othello_census::search::flip_history::{Relaxation, flip_history};
use othello_census::search::reachable::flip_balance::{Balance, flip_balance};
use othello_census::search::reachable::{BEAM_WIDTH, Frontier, SWEEP_WIDTH, Search, Verdict};
use policies::Rng;

fn position<G: Geometry>(b: u64, w: u64, black_to_move: bool) -> Position<G> {
    let side = if black_to_move { Color::Black } else { Color::White };
    Position::from_colors(Bitboard(b), Bitboard(w), side).unwrap()
}

/// Positions of `games` random games with a disc count in `discs`, each
/// followed by its variants: one disc's colour changed, one disc moved to
/// an empty neighbour.
fn candidates<G: Geometry>(discs: &std::ops::RangeInclusive<u32>, games: usize, seed: u64) -> Vec<Position<G>> {
    let mut rng = Rng(seed);
    let n = G::N;
    let mut out = Vec::new();
    for _ in 0..games {
        let mut p = Position::<G>::start();
        while p.discs() < *discs.end() {
            let moves: Vec<u32> = p.legal_moves().iter().collect();
            if moves.is_empty() {
                break;
            }
            p = p.play(moves[(rng.next() % moves.len() as u64) as usize]);
            if !discs.contains(&p.discs()) {
                continue;
            }
            let (b, w) = (p.black().0, p.white().0);
            let occ: Vec<u32> = (0..n * n).filter(|&s| (b | w) >> s & 1 == 1).collect();
            let s = occ[(rng.next() % occ.len() as u64) as usize];
            let black = p.side_to_move() == Color::Black;
            out.push(p);
            out.push(position::<G>(b ^ 1 << s, w ^ 1 << s, black));
            let (r, c) = ((s / n) as i32, (s % n) as i32);
            for (dr, dc) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                let (r2, c2) = (r + dr, c + dc);
                if (0..n as i32).contains(&r2) && (0..n as i32).contains(&c2) {
                    let t = (r2 * n as i32 + c2) as u32;
                    if (b | w) >> t & 1 == 0 {
                        let mv = |x: u64| if x >> s & 1 == 1 { x & !(1 << s) | 1 << t } else { x };
                        out.push(position::<G>(mv(b), mv(w), black));
                        break;
                    }
                }
            }
        }
    }
    out
}

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
    let positions = candidates::<G>(&discs, games, seed);
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
