//! The flip-count balance (`search::flip_balance`) against positions known
//! to be reachable: every reachable 4x4 position (the naive oracle, which
//! shares no code with the engine), the positions of 6x6 and 8x8 games
//! under every move policy, and the FFO endgame positions of real games.
//! A balance that called one of them infeasible would be unsound. Also:
//! that it does refute boards every earlier stage passes (so the tests
//! are not vacuous), and that the search names it when it decides.

mod oracle;
mod policies;

use othello_census::board::{B4, B6, B8, Geometry, Position};
use othello_census::search::flip_history::{Relaxation, flip_history};
use othello_census::search::reachable::flip_balance::{Balance, flip_balance};
use othello_census::search::reachable::{Frontier, Search, Stage, Verdict, WithStages, cheap_conditions};

/// Every reachable 4x4 position balances; of the 4x4 boards of 12 discs
/// the cheap conditions pass (every 31st colouring of each occupancy), the
/// balance refutes some, all of them unreachable.
#[test]
fn every_reachable_4x4_position_balances() {
    let positions = oracle::reachable(4, 16);
    assert!(positions.len() > 60_000, "{} positions", positions.len());
    // the balance reads the board only: either side to move
    let reachable: std::collections::HashSet<(u64, u64)> = positions.into_iter().map(|p| p.bits()).collect();
    for &(b, w) in &reachable {
        assert_eq!(flip_balance::<B4>(b, w), Balance::Feasible, "reachable: {b:#x} {w:#x}");
    }
    let centre = 0x0660u64;
    let others: Vec<u32> = (0..16).filter(|s| centre >> s & 1 == 0).collect();
    let (mut passed, mut refuted) = (0, 0);
    for pick in 0u32..1 << 12 {
        if pick.count_ones() != 8 {
            continue;
        }
        let occ =
            centre | others.iter().enumerate().filter(|(i, _)| pick >> i & 1 == 1).map(|(_, s)| 1u64 << s).sum::<u64>();
        let squares: Vec<u32> = (0..16).filter(|s| occ >> s & 1 == 1).collect();
        for colours in (0u32..1 << 12).step_by(31) {
            let b: u64 =
                squares.iter().enumerate().filter(|(i, _)| colours >> i & 1 == 1).map(|(_, s)| 1u64 << s).sum();
            let w = occ & !b;
            if !cheap_conditions::<B4>(b, w) {
                continue;
            }
            passed += 1;
            if flip_balance::<B4>(b, w) == Balance::Infeasible {
                refuted += 1;
                assert!(!reachable.contains(&(b, w)), "refuted but reachable: {b:#x} {w:#x}");
            }
        }
    }
    eprintln!("4x4, 12 discs: {passed} boards pass the cheap conditions, the balance refutes {refuted}");
    assert!(refuted > 0, "the balance refuted nothing the cheap conditions pass");
}

/// `uniform_games` uniform games and `games` under each biased policy:
/// every position balances. The positions checked.
fn under_every_policy<G: Geometry>(uniform_games: u64, games: u64, seed: u64, min_discs: u32) -> u64 {
    let mut checked = 0;
    let mut check = |p: &Position<G>| {
        if p.discs() >= min_discs {
            checked += 1;
            assert_eq!(flip_balance::<G>(p.black().0, p.white().0), Balance::Feasible, "a game's: {}", p.line());
        }
        true
    };
    policies::play_every::<G>(uniform_games, games, seed, &mut check);
    checked
}

#[test]
fn positions_of_6x6_games_balance() {
    let n = under_every_policy::<B6>(60, 20, 1, 5);
    assert!(n > 3_000, "{n} positions");
}

/// Dense positions (40 discs or more) of 8x8 games, where the estimate
/// asks the balance (about 20 ms a position).
#[test]
fn positions_of_8x8_games_balance() {
    let n = under_every_policy::<B8>(8, 3, 11, 40);
    assert!(n > 400, "{n} positions");
}

/// The FFO endgame positions (tests/data/ffo-40-49.obf) come from real
/// games.
#[test]
fn ffo_positions_balance() {
    for (text, p) in policies::ffo_positions() {
        assert_eq!(flip_balance::<B8>(p.black().0, p.white().0), Balance::Feasible, "{text}");
    }
}

/// Dense 8x8 samples of the estimate (seed 3) that the cheap conditions,
/// the flip-history relaxation, a depth-first search of 10^6 positions, a
/// beam of 10,000 and a sweep of 4 x 10^6 all leave undecided: the
/// balance refutes them, and the search (generation 6) names it.
#[test]
fn the_balance_refutes_dense_8x8_samples_the_other_stages_leave() {
    let frontier = Frontier::<B8>::build(10);
    for line in [
        "OO----XX -OOXX-XX -XXXOOX- XXOOXX-- XXOXX-O- -OOXXXXO OXOOXOO- X-X----- O",
        "--OO---X ---OXXXX -XOOOX-- --OOXXO- -OXXOXXX -XOXXXO- -OXOXOXO OOOX-X-X O",
        "--O-OO-O OOXXXXXX XXOXXX-- O-OOXX-- -OXOXX-O XXXXXXOO -XXO--XO XO---XX- X",
    ] {
        let p = Position::<B8>::parse(line).unwrap();
        let (b, w) = (p.black().0, p.white().0);
        assert!(cheap_conditions::<B8>(b, w), "{line}");
        assert_ne!(flip_history::<B8>(b, w, 20_000), Relaxation::Infeasible, "{line}");
        assert_eq!(flip_balance::<B8>(b, w), Balance::Infeasible, "{line}");
        let mut without = Search::new(&frontier, 100_000).with_balance(false);
        assert_eq!(without.decide(&p), Verdict::Undecided, "{line}");
        let mut with = Search::new(&frontier, 100_000);
        assert_eq!(with.decide(&p), Verdict::Unreachable, "{line}");
        assert_eq!(with.decided_by(), Stage::FlipBalance);
    }
}
