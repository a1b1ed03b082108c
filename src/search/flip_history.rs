//! The flip-history relaxation: a necessary condition for a board to be
//! reachable, decided by a SAT solver, that proves dense boards
//! unreachable without searching below them.
//!
//! Any game to the board places each non-centre disc once, in some order,
//! and every move flips, in each direction, a run of the opponent's discs
//! that ends at one of its own. Forgetting whose turn it is, passes and
//! whether the runs were exactly those the board then held, that history
//! still has to satisfy:
//!
//! - **order**: the non-centre discs are placed in a total order (one
//!   variable per pair, no cycle of three), after the four centre discs;
//! - **placements**: each placed disc has a colour, and its move flipped at
//!   least one run: an event "the move on `q` by colour `c` flipped `k`
//!   discs in direction `d`", with those `k` squares and the anchor beyond
//!   them occupied on the board (discs are never removed) and placed
//!   before `q`; at most one event per move and direction;
//! - **last colour**: the last event that set a square's colour (its
//!   placement, its start colour for a centre square, or a flip) gives the
//!   colour the board shows, and every other flip of it came before;
//! - **preconditions**: a flip of a square to `c` needs an earlier event
//!   that set it to the other colour; a run's anchor needs an earlier event
//!   that set it to `c`.
//!
//! The game's own history satisfies every clause (the order of its moves,
//! the runs they flipped, each square's last colour-setting event and, for
//! each flip or anchor, the event in force before it), so an unsatisfiable
//! encoding proves the board unreachable with either side to move. The
//! converse fails: a satisfiable encoding proves nothing, and the search
//! decides those boards. Ishii and Tanaka (Game Programming Workshop 2025)
//! used a relaxation of this kind before their search; this one is written
//! from the rules above, with a total order and the centre's start colours.

use std::collections::HashMap;

use batsat::{Callbacks, ClauseKind, Lit, SolverInterface, lbool};

use crate::board::{Geometry, Position};

/// What the relaxation says of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relaxation {
    /// No history satisfies it: the board is unreachable.
    Infeasible,
    /// A history satisfies it: nothing is proven.
    Feasible,
    /// The solver reached its conflict budget first.
    Unknown,
}

/// Stops the solver after a number of learnt clauses (one per conflict):
/// a deterministic budget, unlike a time limit.
pub(crate) struct Budget {
    pub(crate) conflicts: u64,
    pub(crate) limit: u64,
}

impl Callbacks for Budget {
    fn on_new_clause(&mut self, _c: &[Lit], src: ClauseKind) {
        if matches!(src, ClauseKind::Learnt) {
            self.conflicts += 1;
        }
    }

    fn stop(&self) -> bool {
        self.conflicts >= self.limit
    }
}

/// The eight directions as (row, column) steps.
const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// A colour-setting event of a square: its square's placement, or a flip
/// event (an index into the events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Setter {
    Placement(u32),
    Flip(usize),
}

/// A flip event: the move on `q` by `black` (or White) flipped the `k`
/// squares `run` in one direction, with `anchor` beyond them.
struct Event {
    q: u32,
    black: bool,
    run: Vec<u32>,
    anchor: u32,
    lit: Lit,
}

/// The encoding of one board.
struct Encoding {
    solver: batsat::Solver<Budget>,
    squares: u32,
    occupied: u64,
    centre: u64,
    /// The start's black discs (the centre's colours at time 0).
    start_black: u64,
    black: u64,
    /// Order literals: `order[a * squares + b]` is "a placed before b" for
    /// distinct non-centre a, b.
    order: Vec<Option<Lit>>,
    /// The colour placed on each non-centre square (true: black).
    placed_black: Vec<Option<Lit>>,
    events: Vec<Event>,
    /// Per square, the flip events that flip it.
    flips_of: Vec<Vec<usize>>,
    /// "Setter t was the latest to give square s colour c before the move
    /// on q", made when first needed.
    before_move: HashMap<(Setter, u32, bool, u32), Lit>,
    always: Lit,
}

impl Encoding {
    fn new<G: Geometry>(black: u64, white: u64, limit: u64) -> Encoding {
        let mut solver = batsat::Solver::new(Default::default(), Budget { conflicts: 0, limit });
        let always = Lit::new(solver.new_var_default(), true);
        solver.add_clause_reuse(&mut vec![always]);
        let start = Position::<G>::start();
        let centre = centre::<G>();
        let squares = G::SQUARES;
        Encoding {
            solver,
            squares,
            occupied: black | white,
            centre,
            start_black: start.black().0,
            black,
            order: vec![None; (squares * squares) as usize],
            placed_black: vec![None; squares as usize],
            events: Vec::new(),
            flips_of: vec![Vec::new(); squares as usize],
            before_move: HashMap::new(),
            always,
        }
    }

    fn var(&mut self) -> Lit {
        Lit::new(self.solver.new_var_default(), true)
    }

    fn clause(&mut self, mut lits: Vec<Lit>) {
        self.solver.add_clause_reuse(&mut lits);
    }

    fn is_centre(&self, s: u32) -> bool {
        self.centre >> s & 1 == 1
    }

    fn is_black(&self, s: u32) -> bool {
        self.black >> s & 1 == 1
    }

    /// "a placed before b": true for a centre `a` and a non-centre `b`,
    /// false for a centre `b`.
    fn before(&self, a: u32, b: u32) -> Lit {
        if self.is_centre(b) {
            !self.always
        } else if self.is_centre(a) {
            self.always
        } else {
            self.order[(a * self.squares + b) as usize].expect("an order literal for two placed squares")
        }
    }

    /// The literal "square `s` was placed with colour black = `black`".
    fn placed(&self, s: u32, black: bool) -> Lit {
        let x = self.placed_black[s as usize].expect("a placed square");
        if black { x } else { !x }
    }

    fn build<G: Geometry>(&mut self) -> bool {
        let n = G::N as i32;
        let placed: Vec<u32> =
            (0..self.squares).filter(|&s| self.occupied >> s & 1 == 1 && !self.is_centre(s)).collect();
        // order: a variable per pair, no 3-cycle
        for (i, &a) in placed.iter().enumerate() {
            for &b in &placed[i + 1..] {
                let v = self.var();
                self.order[(a * self.squares + b) as usize] = Some(v);
                self.order[(b * self.squares + a) as usize] = Some(!v);
            }
        }
        for (i, &a) in placed.iter().enumerate() {
            for (j, &b) in placed.iter().enumerate().skip(i + 1) {
                for &c in &placed[j + 1..] {
                    let (ab, bc, ca) = (self.before(a, b), self.before(b, c), self.before(c, a));
                    self.clause(vec![!ab, !bc, !ca]);
                    self.clause(vec![ab, bc, ca]);
                }
            }
        }
        for &q in &placed {
            let v = self.var();
            self.placed_black[q as usize] = Some(v);
        }
        // events: every run inside the occupied squares
        for &q in &placed {
            let (r, c) = ((q / G::N) as i32, (q % G::N) as i32);
            for (dr, dc) in DIRECTIONS {
                let mut run = Vec::new();
                let mut k = 1;
                loop {
                    let (rr, cc) = (r + dr * k, c + dc * k);
                    if !(0..n).contains(&rr) || !(0..n).contains(&cc) {
                        break;
                    }
                    let s = (rr * n + cc) as u32;
                    if self.occupied >> s & 1 == 0 {
                        break;
                    }
                    if !run.is_empty() {
                        for black in [true, false] {
                            let lit = self.var();
                            let e = self.events.len();
                            for &f in &run {
                                self.flips_of[f as usize].push(e);
                            }
                            self.events.push(Event { q, black, run: run.clone(), anchor: s, lit });
                        }
                    }
                    run.push(s);
                    k += 1;
                }
            }
        }
        for e in 0..self.events.len() {
            let (lit, q, black) = (self.events[e].lit, self.events[e].q, self.events[e].black);
            // the move's colour; its run and anchor placed before it
            let colour = self.placed(q, black);
            self.clause(vec![!lit, colour]);
            let earlier: Vec<u32> =
                self.events[e].run.iter().copied().chain(std::iter::once(self.events[e].anchor)).collect();
            for s in earlier {
                let b = self.before(s, q);
                self.clause(vec![!lit, b]);
            }
        }
        // at most one event per move and direction (events of one move in
        // one direction are consecutive: same q, same first run square)
        let mut groups: HashMap<(u32, u32), Vec<Lit>> = HashMap::new();
        for ev in &self.events {
            groups.entry((ev.q, ev.run[0])).or_default().push(ev.lit);
        }
        for lits in groups.values() {
            for (i, &a) in lits.iter().enumerate() {
                for &b in &lits[i + 1..] {
                    self.clause(vec![!a, !b]);
                }
            }
        }
        // a move flips something
        for &q in &placed {
            for black in [true, false] {
                let mut c = vec![!self.placed(q, black)];
                c.extend(self.events.iter().filter(|e| e.q == q && e.black == black).map(|e| e.lit));
                self.clause(c);
            }
        }
        // the last colour-setting event of each square
        for s in 0..self.squares {
            if self.occupied >> s & 1 == 0 {
                continue;
            }
            let final_black = self.is_black(s);
            let flips = self.flips_of[s as usize].clone();
            let mut candidates = Vec::new();
            if self.is_centre(s) {
                if (self.start_black >> s & 1 == 1) == final_black {
                    // the start colour last: nothing ever flipped it
                    let l = self.var();
                    for &f in &flips {
                        let fl = self.events[f].lit;
                        self.clause(vec![!l, !fl]);
                    }
                    candidates.push(l);
                }
            } else {
                // its placement last: placed with the colour shown, never flipped
                let l = self.var();
                let colour = self.placed(s, final_black);
                self.clause(vec![!l, colour]);
                for &f in &flips {
                    let fl = self.events[f].lit;
                    self.clause(vec![!l, !fl]);
                }
                candidates.push(l);
            }
            let setting: Vec<usize> = flips.iter().copied().filter(|&t| self.events[t].black == final_black).collect();
            for t in setting {
                let l = self.var();
                let (tl, tq) = (self.events[t].lit, self.events[t].q);
                self.clause(vec![!l, tl]);
                for &f in &flips {
                    let (fl, fq) = (self.events[f].lit, self.events[f].q);
                    if fq == tq {
                        continue;
                    }
                    let b = self.before(fq, tq);
                    self.clause(vec![!l, !fl, b]);
                }
                candidates.push(l);
            }
            if candidates.is_empty() {
                return false;
            }
            self.clause(candidates);
        }
        // preconditions: a flip of s to c needs s to hold the other colour
        // when the move is made, an anchor of colour c to hold c: the
        // latest event that set s before the move set that colour
        for e in 0..self.events.len() {
            let (lit, q, black) = (self.events[e].lit, self.events[e].q, self.events[e].black);
            let mut needs: Vec<(u32, bool)> = self.events[e].run.iter().map(|&s| (s, !black)).collect();
            needs.push((self.events[e].anchor, black));
            for (s, colour) in needs {
                let mut c = vec![!lit];
                if self.is_centre(s) {
                    if (self.start_black >> s & 1 == 1) == colour {
                        // its start colour, before every move
                        continue;
                    }
                } else {
                    c.push(self.setter_before(Setter::Placement(s), s, colour, q));
                }
                let flips = self.flips_of[s as usize].clone();
                for t in flips {
                    if self.events[t].black == colour && self.events[t].q != q {
                        c.push(self.setter_before(Setter::Flip(t), s, colour, q));
                    }
                }
                self.clause(c);
            }
        }
        true
    }

    /// "Setter `t` gave square `s` colour `colour` before the move on `q`".
    /// (That it was the latest to set `s` before the move, no flip to the
    /// other colour between, is true of a game too, but its clauses made
    /// the solver 4x slower on 8x8 layer 52 for 8 boards refuted instead of
    /// 6 of 200.) A literal made once per (t, s, colour, q).
    fn setter_before(&mut self, t: Setter, s: u32, colour: bool, q: u32) -> Lit {
        if let Some(&l) = self.before_move.get(&(t, s, colour, q)) {
            return l;
        }
        let l = self.var();
        let (happened, at) = match t {
            Setter::Placement(p) => (self.placed(p, colour), p),
            Setter::Flip(e) => (self.events[e].lit, self.events[e].q),
        };
        let b = self.before(at, q);
        self.clause(vec![!l, happened]);
        self.clause(vec![!l, b]);
        self.before_move.insert((t, s, colour, q), l);
        l
    }
}

/// The four centre squares: the start's discs.
fn centre<G: Geometry>() -> u64 {
    let start = Position::<G>::start();
    start.black().0 | start.white().0
}

/// The flip-history relaxation of the board `black`, `white` (either side
/// to move), the solver stopped after `conflicts` conflicts.
pub fn flip_history<G: Geometry>(black: u64, white: u64, conflicts: u64) -> Relaxation {
    let start = Position::<G>::start();
    let centre = centre::<G>();
    if (black | white) & centre != centre || black & white != 0 {
        return Relaxation::Infeasible;
    }
    if black == start.black().0 && white == start.white().0 {
        return Relaxation::Feasible;
    }
    let mut enc = Encoding::new::<G>(black, white, conflicts);
    if !enc.build::<G>() {
        return Relaxation::Infeasible;
    }
    let result = enc.solver.solve_limited(&[]);
    if result == lbool::FALSE {
        Relaxation::Infeasible
    } else if result == lbool::TRUE {
        Relaxation::Feasible
    } else {
        Relaxation::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8};

    /// The positions of random games are never infeasible.
    fn random_games<G: Geometry>(games: usize, seed: u64) {
        crate::board::random_games::<G>(games, seed, |p| {
            let r = flip_history::<G>(p.black().0, p.white().0, 100_000);
            assert_ne!(r, Relaxation::Infeasible, "a position of a game: {}", p.line());
        });
    }

    #[test]
    fn positions_of_random_games_are_feasible() {
        random_games::<B4>(200, 1);
        random_games::<B6>(20, 2);
        random_games::<B8>(3, 3);
    }

    #[test]
    fn an_impossible_board_is_infeasible() {
        // 4x4: the start plus one disc on a corner, not in line with any
        // disc of the other colour: no move could have placed it
        let start = Position::<B4>::start();
        let r = flip_history::<B4>(start.black().0 | 1, start.white().0, 100_000);
        assert_eq!(r, Relaxation::Infeasible);
        assert_eq!(flip_history::<B4>(start.black().0, start.white().0, 10), Relaxation::Feasible);
    }
}
