//! The bitboard engine against the naive oracle on random games: legal
//! moves, flips, passes and game end at every step, on 4x4, 6x6 and 8x8.

mod oracle;

use oracle::{BLACK, Naive};
use othello_census::board::{B4, B6, B8, Color, Geometry, Position, Status};
use proptest::prelude::*;

fn to_engine<G: Geometry>(p: &Naive) -> Position<G> {
    let body: String = p.diagram().lines().take(p.n).collect::<Vec<_>>().join("\n");
    let side = if p.to_move == BLACK { Color::Black } else { Color::White };
    Position::<G>::from_diagram(&body, side).expect("oracle diagram parses")
}

/// Plays a game choosing moves by `choices`, checking every step.
fn check_game<G: Geometry>(choices: &[u16]) {
    let mut naive = Naive::start(G::N as usize);
    let mut pos = Position::<G>::start();
    let mut i = 0;
    loop {
        assert_eq!(pos, to_engine::<G>(&naive), "positions diverged");
        assert_eq!(pos.to_string(), naive.diagram());
        let naive_moves = naive.moves();
        let engine_moves: Vec<usize> = pos.legal_moves().iter().map(|s| s as usize).collect();
        assert_eq!(engine_moves, naive_moves, "legal moves differ at\n{}", naive.diagram());
        // every legal move flips the same discs
        for &m in &naive_moves {
            let want: Vec<usize> = naive.flips_for(naive.to_move, m / naive.n, m % naive.n);
            let got: Vec<usize> = pos.flips(m as u32).iter().map(|s| s as usize).collect();
            assert_eq!(got, want, "flips differ for move {m} at\n{}", naive.diagram());
            assert_eq!(pos.play(m as u32).to_string(), naive.play(m).diagram());
        }
        match pos.status() {
            Status::Moves(_) => {
                assert!(!naive_moves.is_empty());
                let m = naive_moves[choices[i % choices.len()] as usize % naive_moves.len()];
                naive = naive.play(m);
                pos = pos.play(m as u32);
            }
            Status::Pass => {
                assert!(naive.must_pass(), "engine passes, oracle does not");
                naive = naive.pass();
                pos = pos.pass();
            }
            Status::Terminal => {
                assert!(naive.is_over(), "engine ends the game, oracle does not");
                return;
            }
        }
        i += 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn random_games_4x4(choices in prop::collection::vec(any::<u16>(), 1..40)) {
        check_game::<B4>(&choices);
    }

    #[test]
    fn random_games_6x6(choices in prop::collection::vec(any::<u16>(), 1..80)) {
        check_game::<B6>(&choices);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_games_8x8(choices in prop::collection::vec(any::<u16>(), 1..120)) {
        check_game::<B8>(&choices);
    }
}

#[test]
fn every_4x4_position_agrees() {
    // Exhaustive on 4x4: every reachable position, every status.
    for p in oracle::reachable(4, 16) {
        let e = to_engine::<B4>(&p);
        let status = e.status();
        assert_eq!(status == Status::Terminal, p.is_over());
        assert_eq!(status == Status::Pass, p.must_pass());
        let kids: Vec<String> = e.children().iter().map(|c| c.to_string()).collect();
        let want: Vec<String> = p.children().iter().map(|c| c.diagram()).collect();
        assert_eq!(kids, want);
    }
}
