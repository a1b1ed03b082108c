//! The building blocks every backward walk of `reachable` stands on (the
//! depth-first search, the beam, the sweep), held to positions of real
//! 6x6 and 8x8 games under uniform and biased move policies (reachable by
//! construction): the un-moves of a position list the position it came
//! from, pass included; that parent passes the cheap conditions, each on
//! its own; and the frontier holds every game position of its discs. A
//! walk prunes a predecessor only by those conditions and the frontier,
//! so a parent missed here would be a line of a real game cut, and an
//! "unreachable" that is not a proof.

mod policies;

use othello_census::board::{B6, B8, Bitboard, Position};
use othello_census::search::reachable::{
    Frontier, cheap_conditions, edges_possible, joined_to_centre, placeable, predecessors, unflipped_consistent,
};

/// What the games showed: positions checked, passes met, game positions
/// looked up in the frontier.
#[derive(Default, Debug)]
struct Seen {
    positions: u64,
    passes: u64,
    in_frontier: u64,
}

/// Plays `uniform_games` uniform games and `games` under each biased
/// policy from `seed` on, checking each position against its parent.
fn check_games<G: othello_census::key::Keyed>(
    frontier: &Frontier<G>,
    uniform_games: u64,
    games: u64,
    seed: u64,
) -> Seen {
    let mut seen = Seen::default();
    let mut preds = Vec::new();
    let mut parent = Position::<G>::start();
    let mut check = |p: &Position<G>| {
        // a new game starts from the start: its first position's parent
        if p.discs() == 5 {
            parent = Position::<G>::start();
        }
        let (b, w) = (p.black().0, p.white().0);
        let line = p.line();
        assert!(joined_to_centre::<G>(b | w), "not joined: {line}");
        assert!(placeable::<G>(b | w), "not placeable: {line}");
        assert!(edges_possible::<G>(b, w), "edges impossible: {line}");
        assert!(unflipped_consistent::<G>(b, w), "never-flipped discs inconsistent: {line}");
        assert!(cheap_conditions::<G>(b, w), "{line}");
        preds.clear();
        predecessors(p, &mut preds);
        assert!(preds.contains(&parent), "{line} does not list the position it came from, {}", parent.line());
        if p.discs() == parent.discs() {
            seen.passes += 1;
        }
        if p.discs() <= frontier.discs() {
            assert!(frontier.contains(p), "the frontier lacks {line}");
            seen.in_frontier += 1;
        }
        seen.positions += 1;
        parent = *p;
        true
    };
    policies::play_every::<G>(uniform_games, games, seed, &mut check);
    seen
}

#[test]
fn every_6x6_game_position_keeps_its_parent_through_the_conditions() {
    let seen = check_games::<B6>(&Frontier::build(10), 20_000, 4_000, 101);
    eprintln!("6x6: {seen:?}");
    assert!(seen.positions > 1_000_000 && seen.passes > 1_000 && seen.in_frontier > 100_000, "{seen:?}");
}

#[test]
fn every_8x8_game_position_keeps_its_parent_through_the_conditions() {
    let seen = check_games::<B8>(&Frontier::build(10), 10_000, 2_000, 201);
    eprintln!("8x8: {seen:?}");
    assert!(seen.positions > 1_000_000 && seen.passes > 1_000 && seen.in_frontier > 100_000, "{seen:?}");
}

/// The checks can fail: a parent with two discs recoloured is not
/// listed, and a disc away from the others fails the conditions.
#[test]
fn a_changed_parent_is_not_listed() {
    let start = Position::<B8>::start();
    let p = start.play(start.legal_moves().iter().next().unwrap());
    let mut preds = Vec::new();
    predecessors(&p, &mut preds);
    assert!(preds.contains(&start));
    let two = (1u64 << 27) | (1 << 28);
    let recoloured = Position::<B8>::from_colors(
        Bitboard(start.black().0 ^ two),
        Bitboard(start.white().0 ^ two),
        start.side_to_move(),
    )
    .unwrap();
    assert!(recoloured != start && !preds.contains(&recoloured));
    assert!(!cheap_conditions::<B8>(start.black().0 | 1, start.white().0));
    assert!(!placeable::<B6>(Position::<B6>::start().black().0 | 1 | Position::<B6>::start().white().0));
}
