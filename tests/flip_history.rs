//! The flip-history relaxation (`search::flip_history`) against positions
//! known to be reachable: every reachable 4x4 position (the naive oracle,
//! which shares no code with the engine), the positions of 6x6 and 8x8
//! games played under several move policies, and the FFO endgame
//! positions of real games. A relaxation that called one of them
//! infeasible would be unsound. Also: that it does refute boards the cheap
//! conditions pass, so the tests above are not vacuous.

mod oracle;
mod policies;

use othello_census::board::{B4, B6, B8, Geometry, Position};
use othello_census::search::flip_history::{Relaxation, SharedRelaxation, flip_history};
use othello_census::search::reachable::{cheap_conditions, joined_to_centre, predecessors};

const CONFLICTS: u64 = 100_000;

/// The 4x4 boards of 12 discs (the centre and 8 of the 12 other squares,
/// every `stride`-th colouring of each occupancy) that pass the cheap
/// conditions, handed to `f` as (black, white).
fn boards_of_12_discs(stride: u32, mut f: impl FnMut(u64, u64)) {
    let centre = 0x0660u64;
    let others: Vec<u32> = (0..16).filter(|s| centre >> s & 1 == 0).collect();
    for pick in 0u32..1 << 12 {
        if pick.count_ones() != 8 {
            continue;
        }
        let occ =
            centre | others.iter().enumerate().filter(|(i, _)| pick >> i & 1 == 1).map(|(_, s)| 1u64 << s).sum::<u64>();
        let squares: Vec<u32> = (0..16).filter(|s| occ >> s & 1 == 1).collect();
        for colours in (0u32..1 << 12).step_by(stride as usize) {
            let b: u64 =
                squares.iter().enumerate().filter(|(i, _)| colours >> i & 1 == 1).map(|(_, s)| 1u64 << s).sum();
            let w = occ & !b;
            if cheap_conditions::<B4>(b, w) {
                f(b, w);
            }
        }
    }
}

/// Every reachable 4x4 position is feasible; of the boards of 12 discs
/// the cheap conditions pass that are not reachable (every `stride`-th
/// colouring of each occupancy), the relaxation refutes some.
fn reachable_4x4_positions_are_feasible(stride: u32) {
    let reachable: std::collections::HashSet<(u64, u64)> =
        oracle::reachable(4, 16).into_iter().map(|p| p.bits()).collect();
    for &(b, w) in &reachable {
        assert_ne!(flip_history::<B4>(b, w, CONFLICTS), Relaxation::Infeasible, "reachable: {b:#x} {w:#x}");
    }
    // those the cheap conditions pass and the oracle does not reach
    let (mut passed, mut unreachable, mut refuted) = (0u64, 0u64, 0u64);
    boards_of_12_discs(stride, |b, w| {
        passed += 1;
        let infeasible = flip_history::<B4>(b, w, CONFLICTS) == Relaxation::Infeasible;
        if !reachable.contains(&(b, w)) {
            unreachable += 1;
            refuted += u64::from(infeasible);
        } else {
            assert!(!infeasible);
        }
    });
    eprintln!("4x4, 12 discs: {passed} boards pass the cheap conditions, {unreachable} unreachable, {refuted} refuted");
    assert!(refuted > 0, "the relaxation refuted nothing the cheap conditions pass");
}

#[test]
fn every_reachable_4x4_position_is_feasible() {
    reachable_4x4_positions_are_feasible(13);
}

/// Every board of 12 discs (about 3 minutes on 2 cores): 1,712,768 pass
/// the cheap conditions, 1,706,698 of them unreachable, 1,485,710 refuted.
#[test]
#[ignore = "about 3 minutes"]
fn every_4x4_board_of_12_discs() {
    reachable_4x4_positions_are_feasible(1);
}

/// `uniform_games` games with uniform moves and `games` under each biased
/// policy, seeds from `seed` on, every position passing the cheap
/// conditions and feasible: the positions checked.
fn under_every_policy<G: Geometry>(uniform_games: u64, games: u64, seed: u64) -> u64 {
    let mut checked = 0;
    let mut check = |p: &Position<G>| {
        checked += 1;
        // the cheap conditions, the stage before, are held to the same games
        let (b, w) = (p.black().0, p.white().0);
        assert!(joined_to_centre::<G>(b | w) && cheap_conditions::<G>(b, w), "a position of a game: {}", p.line());
        let r = flip_history::<G>(p.black().0, p.white().0, CONFLICTS);
        assert_ne!(r, Relaxation::Infeasible, "a position of a game: {}", p.line());
        true
    };
    policies::play_every::<G>(uniform_games, games, seed, &mut check);
    checked
}

#[test]
fn positions_of_6x6_games_are_feasible() {
    let n = under_every_policy::<B6>(40, 15, 1);
    assert!(n > 3_000, "{n} positions");
}

#[test]
fn positions_of_8x8_games_are_feasible() {
    let n = under_every_policy::<B8>(4, 2, 11);
    assert!(n > 500, "{n} positions");
}

/// The FFO endgame positions (tests/data/ffo-40-49.obf) come from real
/// games.
#[test]
fn ffo_positions_are_feasible() {
    for (text, p) in policies::ffo_positions() {
        assert_ne!(flip_history::<B8>(p.black().0, p.white().0, CONFLICTS), Relaxation::Infeasible, "{text}");
    }
}

/// One shared encoding rooted at the full 4x4 board answers every 4x4
/// board: it never refutes a reachable position (the oracle's), and on
/// the boards of 12 discs the cheap conditions pass (every 13th
/// colouring) it says what each board's own encoding says wherever both
/// decide, its kept cores included.
#[test]
fn a_shared_encoding_answers_4x4_boards_as_their_own_does() {
    let reachable: std::collections::HashSet<(u64, u64)> =
        oracle::reachable(4, 16).into_iter().map(|p| p.bits()).collect();
    // the root's colours do not matter: only its occupied squares
    let mut shared = SharedRelaxation::new::<B4>(0x5a5a, 0xa5a5);
    for &(b, w) in &reachable {
        assert_ne!(shared.query::<B4>(b, w, CONFLICTS), Relaxation::Infeasible, "reachable: {b:#x} {w:#x}");
    }
    let (mut compared, mut refuted) = (0u64, 0u64);
    boards_of_12_discs(13, |b, w| {
        let (one, own) = (shared.query::<B4>(b, w, CONFLICTS), flip_history::<B4>(b, w, CONFLICTS));
        if one != Relaxation::Unknown && own != Relaxation::Unknown {
            assert_eq!(one, own, "shared and own encodings of {b:#x} {w:#x}");
            compared += 1;
            refuted += u64::from(one == Relaxation::Infeasible);
        }
    });
    eprintln!(
        "4x4: {compared} boards of 12 discs compared, {refuted} refuted; {} queries, {} answered by kept cores",
        shared.queries, shared.core_hits
    );
    assert!(refuted > 1_000 && shared.core_hits > 0, "{refuted} refuted, {} by cores", shared.core_hits);
}

/// The positions of one game, from the start's successor to its end.
fn game<G: Geometry>(seed: u64, policy: policies::Policy<'_, G>) -> Vec<Position<G>> {
    let mut line = Vec::new();
    policies::play::<G>(1, seed, policy, |p| {
        line.push(*p);
        true
    });
    line
}

/// Games under every policy: one shared encoding rooted at the game's last
/// position, and one at its middle, asked every earlier position (newest
/// first, as a sweep asks them), never refute one; the positions asked.
fn games_through_shared<G: Geometry>(games: u64, seed: u64) -> u64 {
    let mut asked = 0;
    let policies: Vec<policies::Policy<'_, G>> =
        std::iter::once(&policies::uniform::<G> as policies::Policy<'_, G>).chain(policies::biased::<G>()).collect();
    for (i, &policy) in policies.iter().enumerate() {
        for g in 0..games {
            let line = game::<G>(seed + 100 * i as u64 + g, policy);
            for root in [line.len() - 1, line.len() / 2] {
                let r = &line[root];
                let mut shared = SharedRelaxation::new::<G>(r.black().0, r.white().0);
                for p in line[..=root].iter().rev() {
                    let v = shared.query::<G>(p.black().0, p.white().0, CONFLICTS);
                    assert_ne!(v, Relaxation::Infeasible, "a position of a game: {} (root {})", p.line(), r.line());
                    asked += 1;
                }
            }
        }
    }
    asked
}

#[test]
fn a_shared_encoding_never_refutes_a_position_of_a_game() {
    let n = games_through_shared::<B6>(8, 40);
    assert!(n > 2_000, "{n} positions");
    let n = games_through_shared::<B8>(1, 50);
    assert!(n > 500, "{n} positions");
}

/// Boards that are not reachable, as the sweep meets them: a position of
/// a 6x6 game with one disc recoloured (the root), its predecessors and
/// theirs. One shared encoding per root, asked them in order, says what
/// each board's own encoding says wherever both decide, and refutes some.
#[test]
fn a_shared_encoding_answers_predecessors_as_their_own_encodings_do() {
    let (mut compared, mut refuted) = (0u64, 0u64);
    for seed in 0..12u64 {
        let line = game::<B6>(700 + seed, &policies::uniform::<B6>);
        let p = line[line.len() * 2 / 3];
        // recolour one non-centre disc
        let occ = p.black().0 | p.white().0;
        let movable: Vec<u32> =
            (0..36).filter(|&s| occ >> s & 1 == 1 && !(14..=15).contains(&s) && !(20..=21).contains(&s)).collect();
        let s = movable[(seed as usize * 7) % movable.len()];
        let (b, w) = (p.black().0 ^ (1 << s), p.white().0 ^ (1 << s));
        let Ok(root) = Position::<B6>::from_colors(
            othello_census::board::Bitboard(b),
            othello_census::board::Bitboard(w),
            p.side_to_move(),
        ) else {
            continue;
        };
        let mut shared = SharedRelaxation::new::<B6>(b, w);
        let mut level = vec![root];
        let mut preds = Vec::new();
        for _ in 0..2 {
            let mut next = Vec::new();
            for q in &level {
                preds.clear();
                predecessors(q, &mut preds);
                next.extend(preds.iter().copied().take(40));
            }
            for q in &next {
                let (qb, qw) = (q.black().0, q.white().0);
                let (one, own) = (shared.query::<B6>(qb, qw, CONFLICTS), flip_history::<B6>(qb, qw, CONFLICTS));
                if one != Relaxation::Unknown && own != Relaxation::Unknown {
                    assert_eq!(one, own, "shared (root {}) and own encodings of {}", root.line(), q.line());
                    compared += 1;
                    refuted += u64::from(one == Relaxation::Infeasible);
                }
            }
            level = next;
        }
    }
    eprintln!("6x6: {compared} predecessors compared, {refuted} refuted");
    assert!(compared > 500 && refuted > 0, "{compared} compared, {refuted} refuted");
}
