//! EXPERIMENTAL, not a stage of the search: the flip-count balance
//! ([`super::flip_balance`]) split at a game's last pass, to prove that
//! no game with a pass reaches a board with a given side to move. The
//! design and its reasons: `probes/pass-refuter-next.md`.
//!
//! A game with a pass has a last one: at a time `T` the side `X` to move
//! had no legal move, the other side `Y` moved next, and no pass followed.
//! For each `X`, the variables of the balance are split into those before
//! `T` and those after, with the colours at `T` (`y[s, c]`) between them;
//! the balance's rows hold on each segment; no square empty at `T` gives
//! `X` a move against the colours at `T`; and after `T` the turns
//! alternate from `Y`, so `Y` placed as many discs as `X` after `T`, or
//! one more when `X` is to move at the end. Every game with a pass gives
//! a 0/1 solution of one of the two systems; both infeasible (each with a
//! checked Farkas certificate) proves none reaches the position.

use super::conditions::{centre, fillable};
use super::flip_balance::{
    DIRECTIONS, Op, System, certificate, direction_runs, proves_infeasible, solver_says_infeasible, step,
};
use crate::board::Geometry;

/// The system of the board (`black`, `white`) with `black_to_move`, for
/// games whose last pass was by `passer` (0 Black, 1 White).
fn split_system<G: Geometry>(black: u64, white: u64, black_to_move: bool, passer: usize) -> System {
    let occ = black | white;
    let middle = centre(G::N);
    let start_black = crate::board::Position::<G>::start().black().0;
    let squares = G::SQUARES as usize;
    let mut sys = System::default();
    let none = [u32::MAX; 2];
    let (mut pre, mut post, mut y) = (vec![none; squares], vec![none; squares], vec![none; squares]);
    let colour_of = |s: usize| if black >> s & 1 == 1 { 0usize } else { 1 };
    for s in 0..squares {
        if occ >> s & 1 == 0 {
            continue;
        }
        y[s] = [sys.var(), sys.var()];
        if middle >> s & 1 == 1 {
            sys.row(vec![(y[s][0], 1), (y[s][1], 1)], Op::Eq, 1);
        } else {
            pre[s] = [sys.var(), sys.var()];
            post[s] = [sys.var(), sys.var()];
            sys.row(vec![(pre[s][0], 1), (pre[s][1], 1), (post[s][0], 1), (post[s][1], 1)], Op::Eq, 1);
            sys.row(vec![(y[s][0], 1), (y[s][1], 1), (pre[s][0], -1), (pre[s][1], -1)], Op::Eq, 0);
        }
    }
    // events of each segment: (variable, colour, anchor); turned[seg][r][c]
    let mut events: [Vec<(u32, usize, u32)>; 2] = [Vec::new(), Vec::new()];
    let mut turned: [Vec<[Vec<u32>; 2]>; 2] =
        [vec![[Vec::new(), Vec::new()]; squares], vec![[Vec::new(), Vec::new()]; squares]];
    let mut used: [std::collections::BTreeMap<(u32, u32), Vec<u32>>; 2] = Default::default();
    for s in 0..squares {
        if pre[s][0] == u32::MAX {
            continue;
        }
        let before = fillable::<G>(occ & !(1u64 << s)) | 1u64 << s;
        for (seg, placed) in [(0usize, pre[s]), (1, post[s])] {
            for c in 0..2 {
                let mut of_move = Vec::new();
                for runs in direction_runs::<G>(s as u32, before) {
                    let mut of_direction = Vec::new();
                    for (run, q) in runs {
                        let v = sys.var();
                        for &r in &run {
                            turned[seg][r as usize][c].push(v);
                        }
                        events[seg].push((v, c, q));
                        for &u in run.iter().chain(std::iter::once(&q)) {
                            if middle >> u & 1 == 0 {
                                used[seg].entry((s as u32, u)).or_default().push(v);
                                // before T, every square it uses was placed before T
                                if seg == 0 {
                                    let p = pre[u as usize];
                                    sys.row(vec![(v, 1), (p[0], -1), (p[1], -1)], Op::Le, 0);
                                }
                            }
                        }
                        of_direction.push(v);
                    }
                    if !of_direction.is_empty() {
                        let mut terms: Vec<(u32, i32)> = of_direction.iter().map(|&v| (v, 1)).collect();
                        terms.push((placed[c], -1));
                        sys.row(terms, Op::Le, 0);
                        of_move.extend(of_direction);
                    }
                }
                let mut terms: Vec<(u32, i32)> = of_move.iter().map(|&v| (v, 1)).collect();
                terms.push((placed[c], -1));
                sys.row(terms, Op::Ge, 0);
            }
        }
    }
    // alternation on each segment (one row per square: Black's count)
    for s in 0..squares {
        if occ >> s & 1 == 0 {
            continue;
        }
        let k = colour_of(s);
        let started = usize::from(start_black >> s & 1 == 0);
        let is_centre = middle >> s & 1 == 1;
        // before T: F_pre(B) - F_pre(W) = y[B] - (placed Black before T, or started Black)
        let mut terms: Vec<(u32, i32)> = turned[0][s][0].iter().map(|&v| (v, 1)).collect();
        terms.extend(turned[0][s][1].iter().map(|&v| (v, -1)));
        terms.push((y[s][0], -1));
        let mut rhs = 0;
        if is_centre {
            rhs = -i32::from(started == 0);
        } else {
            terms.push((pre[s][0], 1));
        }
        sys.row(terms, Op::Eq, rhs);
        // after T: F_post(B) - F_post(W) = [shows Black] - (y[B] + placed Black after T)
        let mut terms: Vec<(u32, i32)> = turned[1][s][0].iter().map(|&v| (v, 1)).collect();
        terms.extend(turned[1][s][1].iter().map(|&v| (v, -1)));
        terms.push((y[s][0], 1));
        if !is_centre {
            terms.push((post[s][0], 1));
        }
        sys.row(terms, Op::Eq, i32::from(k == 0));
    }
    // anchors: before T placed or turned so before T (or started so);
    // after T so at T, placed so after T, or turned so after T
    for seg in 0..2 {
        for &(v, c, a) in &events[seg] {
            let a = a as usize;
            let mut terms: Vec<(u32, i32)> = turned[seg][a][c].iter().map(|&w| (w, 1)).collect();
            terms.push((v, -1));
            let mut rhs = 0;
            if seg == 0 {
                if middle >> a & 1 == 1 {
                    let started = usize::from(start_black >> a & 1 == 0);
                    rhs = -i32::from(started == c);
                } else {
                    terms.push((pre[a][c], 1));
                }
            } else {
                terms.push((y[a][c], 1));
                if middle >> a & 1 == 0 {
                    terms.push((post[a][c], 1));
                }
            }
            sys.row(terms, Op::Ge, rhs);
        }
        for (&(s, u), here) in &used[seg] {
            if s < u
                && let Some(there) = used[seg].get(&(u, s))
            {
                let terms: Vec<(u32, i32)> = here.iter().chain(there).map(|&v| (v, 1)).collect();
                sys.row(terms, Op::Le, 1);
            }
        }
    }
    // no move for the passer at T
    let (x, other) = (passer, 1 - passer);
    for e in 0..squares as u32 {
        if middle >> e & 1 == 1 {
            continue;
        }
        for d in DIRECTIONS {
            let mut line: Vec<u32> = Vec::new();
            let mut at = step::<G>(e, d);
            while let Some(q) = at {
                if occ >> q & 1 == 0 {
                    break;
                }
                if !line.is_empty() {
                    // e empty at T, line all the other side's, q the passer's
                    let mut terms: Vec<(u32, i32)> = line.iter().map(|&r| (y[r as usize][other], 1)).collect();
                    terms.push((y[q as usize][x], 1));
                    // the indicators (e empty at T, the line's, q's) sum to
                    // at most their number less one; e empty at T is 1, or
                    // 1 - placed before T where B holds it
                    if occ >> e & 1 == 1 {
                        let p = pre[e as usize];
                        terms.push((p[0], -1));
                        terms.push((p[1], -1));
                    }
                    sys.row(terms, Op::Le, line.len() as i32);
                }
                line.push(q);
                at = step::<G>(q, d);
            }
        }
    }
    // after T the turns alternate from the other side
    let mut terms = Vec::new();
    for p in &post {
        if p[0] != u32::MAX {
            terms.push((p[other], 1));
            terms.push((p[x], -1));
        }
    }
    let to_move = if black_to_move { 0 } else { 1 };
    sys.row(terms, Op::Eq, i32::from(to_move == x));
    sys
}

/// Whether no game with a pass reaches the board (`black`, `white`) with
/// the given side to move: both split systems infeasible, each with a
/// certificate checked in integers.
pub fn no_game_with_a_pass<G: Geometry>(black: u64, white: u64, black_to_move: bool) -> bool {
    (0..2).all(|passer| {
        let sys = split_system::<G>(black, white, black_to_move, passer);
        solver_says_infeasible(&sys) && certificate(&sys).is_some_and(|y| proves_infeasible(&sys, &y))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B6, B8, Color, Position};

    /// The positions of random games after a pass are never refuted; the
    /// start's board with White to move is (no pass can come before the
    /// first move: Black has four).
    #[test]
    fn positions_after_a_pass_are_not_refuted() {
        fn games<G: Geometry>(count: usize) -> u64 {
            let mut n = 0;
            let mut passed = false;
            crate::board::random_games::<G>(count, 0xA55, |p: &Position<G>| {
                if p.discs() == 4 {
                    passed = false;
                }
                if passed {
                    let black = p.side_to_move() == Color::Black;
                    assert!(!no_game_with_a_pass::<G>(p.black().0, p.white().0, black), "{}", p.line());
                    n += 1;
                }
                if p.legal_moves().is_empty() {
                    passed = true;
                }
            });
            n
        }
        let (six, eight) = (games::<B6>(30), games::<B8>(20));
        eprintln!("{six} 6x6 and {eight} 8x8 positions after a pass");
        assert!(six > 20 && eight > 2);
        let start = Position::<B8>::start();
        assert!(no_game_with_a_pass::<B8>(start.black().0, start.white().0, false));
    }
}
