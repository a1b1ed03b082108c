//! The solver against values computed by the oracle's board, which shares
//! no code with the engine: every reachable 4x4 position by a backward
//! pass over the disc layers, and random 6x6 endgames by plain alpha-beta.

mod oracle;

use std::collections::HashMap;

use oracle::{BLACK, EMPTY, Naive, WHITE};
use othello_census::board::{B4, B6, Position};
use othello_census::key::Keyed;
use othello_census::search::solve::solve;

/// Black − White at the end, empty squares to the winner.
fn final_value(p: &Naive) -> i32 {
    let b = p.cells.iter().filter(|&&c| c == BLACK).count() as i32;
    let w = p.cells.iter().filter(|&&c| c == WHITE).count() as i32;
    let e = p.cells.iter().filter(|&&c| c == EMPTY).count() as i32;
    match b.cmp(&w) {
        std::cmp::Ordering::Greater => b - w + e,
        std::cmp::Ordering::Less => b - w - e,
        std::cmp::Ordering::Equal => 0,
    }
}

/// The oracle's position in the solver's text form.
fn text(p: &Naive) -> String {
    let cells: String = p.cells.iter().map(|&c| ['-', 'X', 'O'][c as usize]).collect();
    format!("{cells} {}", if p.to_move == BLACK { 'X' } else { 'O' })
}

fn engine<G: Keyed>(p: &Naive) -> Position<G> {
    Position::<G>::parse(&text(p)).unwrap()
}

/// Plays the solver's principal variation on the oracle's board: every move
/// must be legal there, and the game must end with the value claimed.
fn check_pv(p: &Naive, pv: &[Option<u32>], value: i32) {
    let mut q = p.clone();
    for step in pv {
        q = match step {
            Some(sq) => {
                assert!(q.moves().contains(&(*sq as usize)), "{} plays an illegal move {sq}", text(&q));
                q.play(*sq as usize)
            }
            None => {
                assert!(q.must_pass(), "{} passes with moves", text(&q));
                q.pass()
            }
        };
    }
    assert!(q.is_over(), "the variation of {} stops before the end", text(p));
    assert_eq!(final_value(&q), value, "the variation of {} ends elsewhere", text(p));
}

#[test]
fn every_reachable_4x4_position_equals_the_backward_pass() {
    let all = oracle::reachable(4, 16);
    let mut by_discs: Vec<Vec<&Naive>> = vec![Vec::new(); 17];
    for p in &all {
        by_discs[p.discs()].push(p);
    }
    // bottom-up: a layer's positions from the next layer; a position that
    // must pass from its passed twin, of the same layer, done first
    let mut value: HashMap<&Naive, i32> = HashMap::new();
    for layer in by_discs.iter().rev() {
        for pass_round in [false, true] {
            for &p in layer.iter().filter(|p| p.must_pass() == pass_round) {
                let v = if p.is_over() {
                    final_value(p)
                } else if pass_round {
                    value[&p.pass()]
                } else {
                    let children = p.moves().into_iter().map(|s| value[&p.play(s)]);
                    if p.to_move == BLACK { children.max().unwrap() } else { children.min().unwrap() }
                };
                value.insert(p, v);
            }
        }
    }
    assert_eq!(value.len(), all.len());
    assert!(value[&Naive::start(4)] < 0, "White wins 4x4 with perfect play");
    for (p, &v) in &value {
        let s = solve(&engine::<B4>(p), 1 << 16, 1);
        assert_eq!(s.value, v, "{}", text(p));
        check_pv(p, &s.pv, v);
    }
}

/// Alpha-beta on the oracle's board: no table, no ordering.
fn alphabeta(p: &Naive, mut alpha: i32, mut beta: i32) -> i32 {
    if p.is_over() {
        return final_value(p);
    }
    if p.must_pass() {
        return alphabeta(&p.pass(), alpha, beta);
    }
    if p.to_move == BLACK {
        let mut best = i32::MIN;
        for s in p.moves() {
            best = best.max(alphabeta(&p.play(s), alpha, beta));
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        best
    } else {
        let mut best = i32::MAX;
        for s in p.moves() {
            best = best.min(alphabeta(&p.play(s), alpha, beta));
            beta = beta.min(best);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

#[test]
fn random_6x6_endgames_equal_plain_alpha_beta() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut solved = 0;
    while solved < 24 {
        // a random game down to 10 to 12 empty squares
        let empties = 10 + (next() % 3) as usize;
        let mut p = Naive::start(6);
        while 36 - p.discs() > empties && !p.is_over() {
            p = if p.must_pass() {
                p.pass()
            } else {
                let m = p.moves();
                p.play(m[(next() % m.len() as u64) as usize])
            };
        }
        if p.is_over() {
            continue;
        }
        let want = alphabeta(&p, i32::MIN, i32::MAX);
        for threads in [1, 2] {
            let s = solve(&engine::<B6>(&p), 1 << 20, threads);
            assert_eq!(s.value, want, "{} on {threads} threads", text(&p));
            check_pv(&p, &s.pv, want);
        }
        solved += 1;
    }
}

/// FFO endgame positions #40 to #49 (20 to 26 empties) with their values
/// for the side to move, as Edax lists them (`tests/data/ffo-40-49.obf`).
/// Slow: `cargo test --release --test solve -- --ignored`.
#[test]
#[ignore]
fn ffo_40_to_49_are_solved_exactly() {
    use othello_census::board::{B8, Color};
    let data = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ffo-40-49.obf")).unwrap();
    for (i, line) in data.lines().enumerate() {
        let (position, value) = line.split_once(';').unwrap();
        let want: i32 = value.trim().parse().unwrap();
        let p = Position::<B8>::parse(position).unwrap();
        let s = solve(&p, 1 << 30, 2);
        let for_mover = if p.side_to_move() == Color::Black { s.value } else { -s.value };
        eprintln!("FFO #{}: {for_mover:+} in {:.2} s, {} nodes", 40 + i, s.elapsed.as_secs_f64(), s.nodes);
        assert_eq!(for_mover, want, "FFO #{}", 40 + i);
    }
}

/// The 6x6 start is a White win by 16 to 20 (Feinstein 1993;
/// known-values.md): value -4, and the principal variation replayed on the
/// oracle's board ends 16-20. Slow (minutes, 4 GiB):
/// `cargo test --release --test solve -- --ignored six_by_six`.
#[test]
#[ignore]
fn six_by_six_start_is_white_by_four() {
    let s = solve(&Position::<B6>::start(), 4 << 30, 2);
    eprintln!("6x6 start: {:+} in {:.1} s, {} nodes", s.value, s.elapsed.as_secs_f64(), s.nodes);
    assert_eq!(s.value, -4);
    let mut board = oracle::Naive::start(6);
    for m in &s.pv {
        board = match m {
            Some(sq) => board.play(*sq as usize),
            None => board.pass(),
        };
    }
    assert!(board.is_over());
    let count = |who: u8| board.cells.iter().filter(|&&c| c == who).count();
    assert_eq!((count(oracle::BLACK), count(oracle::WHITE)), (16, 20));
}
