//! The `legacy-flip` rules variant and the walker of the design document
//! (seed 003), kept apart so that the standard engine does not carry them.
//!
//! The original program decided legal moves correctly but flipped with a
//! defect: per direction, the square next to the placed disc was not tested
//! for being empty. It may be empty or an opponent disc, every later square
//! must be an opponent disc, and the walk must end on one of the mover's
//! discs; then every walked square becomes the mover's, so an empty first
//! square is filled too. A move can therefore add two or more discs.
//! `docs/published-4x4.md` explains the figures this reproduces.

use std::collections::HashSet;

use crate::board::{Bitboard, Color, Geometry, Position};

/// How a move flips discs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flipping {
    /// Standard Othello.
    Standard,
    /// The defect of the original program.
    Legacy,
}

const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// Squares that become the mover's (besides the placed one) when `me`
/// plays on `square` against `opp` with the legacy defect.
pub fn legacy_flips<G: Geometry>(me: u64, opp: u64, square: u32) -> u64 {
    let n = G::N as i32;
    let (r0, c0) = ((square / G::N) as i32, (square % G::N) as i32);
    let inside = |r: i32, c: i32| (0..n).contains(&r) && (0..n).contains(&c);
    let mut flipped = 0u64;
    for (dr, dc) in DIRECTIONS {
        let (mut r, mut c) = (r0 + dr, c0 + dc);
        let mut walked = 0u64;
        let mut first = true;
        while inside(r, c) {
            let bit = 1u64 << (r * n + c);
            if me & bit != 0 {
                if walked != 0 {
                    flipped |= walked;
                }
                break;
            }
            let is_opp = opp & bit != 0;
            if !(is_opp || first) {
                break; // an empty square after the first ends the walk
            }
            walked |= bit;
            first = false;
            r += dr;
            c += dc;
        }
    }
    flipped
}

/// A state of the original walker: a board and the *nominal* next player
/// (the one who did not make the last move, before any pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    black: u64,
    white: u64,
    player: Color,
}

impl State {
    fn discs(&self, c: Color) -> u64 {
        match c {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    fn moves<G: Geometry>(&self, c: Color) -> u64 {
        Position::<G>::from_colors(Bitboard(self.black), Bitboard(self.white), c).expect("disjoint").legal_moves().0
    }

    fn play<G: Geometry>(&self, q: Color, square: u32, flipping: Flipping) -> State {
        let (me, opp) = (self.discs(q), self.discs(q.opposite()));
        let f = match flipping {
            Flipping::Standard => crate::board::movegen::flips::<G>(me, opp, square),
            Flipping::Legacy => legacy_flips::<G>(me, opp, square),
        };
        let me2 = me | f | (1u64 << square);
        let opp2 = opp & !f;
        let (black, white) = match q {
            Color::Black => (me2, opp2),
            Color::White => (opp2, me2),
        };
        State { black, white, player: q.opposite() }
    }
}

/// What the original walker reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WalkerCounts {
    /// States popped from the stack.
    pub popped: u64,
    /// Distinct (terminal board, side that made the last move) pairs.
    pub terminal_pairs: u64,
}

/// Runs the single-threaded depth-first walker of the design document, as
/// `../shared/reference/published-4x4.md` defines it: moves in increasing
/// row-major square order, children pushed in reverse order and marked
/// visited when pushed, the root not marked. With `shared_terminals`, a
/// terminal state's key (board, last mover) goes into the same visited set
/// as the states, as in the original program; otherwise into a set of its
/// own.
pub fn original_walker<G: Geometry>(flipping: Flipping, shared_terminals: bool) -> WalkerCounts {
    let start = Position::<G>::start();
    let root = State { black: start.black().0, white: start.white().0, player: Color::Black };
    let mut visited: HashSet<State> = HashSet::new();
    let mut terminals: HashSet<State> = HashSet::new();
    let mut stack = vec![root];
    let mut popped = 0u64;
    while let Some(s) = stack.pop() {
        popped += 1;
        let p = s.player;
        let mut q = p;
        let mut moves = s.moves::<G>(p);
        if moves == 0 {
            q = p.opposite();
            moves = s.moves::<G>(q);
        }
        if moves == 0 {
            let key = State { player: p.opposite(), ..s };
            terminals.insert(key);
            if shared_terminals {
                visited.insert(key);
            }
            continue;
        }
        let children: Vec<State> = Bitboard(moves).iter().map(|sq| s.play::<G>(q, sq, flipping)).collect();
        for child in children.into_iter().rev() {
            if visited.insert(child) {
                stack.push(child);
            }
        }
    }
    WalkerCounts { popped, terminal_pairs: terminals.len() as u64 }
}

/// The first place, in order of ply and then of the walker's move order,
/// where a legacy move differs from the standard one.
#[derive(Clone, Debug)]
pub struct Divergence<G: Geometry> {
    /// Ply of the move (1 = the first move).
    pub ply: u32,
    /// The position before the move.
    pub before: Position<G>,
    /// The square played.
    pub square: u32,
    /// The position after the move under standard flips.
    pub standard: Position<G>,
    /// The board after the move under legacy flips (other side to move).
    pub legacy: Position<G>,
}

/// Finds the first divergence by breadth-first search over standard games.
pub fn first_divergence<G: Geometry>() -> Option<Divergence<G>> {
    let mut layer = vec![Position::<G>::start()];
    for ply in 1..=G::SQUARES * 2 {
        let mut next = Vec::new();
        for p in &layer {
            for sq in p.legal_moves() {
                let standard = p.play(sq);
                let f = legacy_flips::<G>(p.mover().0, p.opponent().0, sq);
                let me = p.mover().0 | f | (1u64 << sq);
                let opp = p.opponent().0 & !f;
                let (b, w) = match p.side_to_move() {
                    Color::Black => (me, opp),
                    Color::White => (opp, me),
                };
                let legacy =
                    Position::from_colors(Bitboard(b), Bitboard(w), p.side_to_move().opposite()).expect("disjoint");
                if legacy != standard {
                    return Some(Divergence { ply, before: *p, square: sq, standard, legacy });
                }
                next.push(standard);
            }
            if p.legal_moves().is_empty() && p.opponent_can_move() {
                next.push(p.pass());
            }
        }
        if next.is_empty() {
            return None;
        }
        layer = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::B4;

    #[test]
    fn legacy_fills_an_empty_first_square() {
        // Row 0 of 4x4: the mover plays square 0, square 1 is empty and
        // square 2 is the mover's: the walk [1] ends on an own disc, so the
        // legacy rule fills square 1; standard flips nothing.
        let me = 1u64 << 2;
        let opp = 1u64 << 5; // somewhere else
        assert_eq!(legacy_flips::<B4>(me, opp, 0), 1 << 1);
        assert_eq!(crate::board::movegen::flips::<B4>(me, opp, 0), 0);
    }

    #[test]
    fn legacy_agrees_with_standard_on_plain_flanks() {
        // X O O . -> X plays square 3: both flip 1 and 2.
        let me = 1u64;
        let opp = 0b110u64;
        assert_eq!(legacy_flips::<B4>(me, opp, 3), 0b110);
        assert_eq!(crate::board::movegen::flips::<B4>(me, opp, 3), 0b110);
    }

    #[test]
    fn published_4x4_figures() {
        let legacy = original_walker::<B4>(Flipping::Legacy, true);
        assert_eq!(legacy.popped, 24_981);
        let separate = original_walker::<B4>(Flipping::Legacy, false);
        assert_eq!(separate, WalkerCounts { popped: 25_447, terminal_pairs: 2_576 });
        let standard = original_walker::<B4>(Flipping::Standard, false);
        assert_eq!(standard, WalkerCounts { popped: 55_093, terminal_pairs: 6_168 });
    }
}
