//! The exact game encoding: a position is reachable exactly when a
//! propositional formula of its game, ply by ply, is satisfiable; decided
//! by a SAT solver, which either gives a game (replayed before it is
//! believed) or proves that none exists.
//!
//! A game to a position of `n` discs places its `m = n - 4` non-centre
//! discs one per move, in `m` moves; passes add no disc. The formula has,
//! for every board `t = 0..=m` (the start, then the board after move
//! `t`), which squares are occupied and which are black, and for every
//! move `t = 1..=m` its colour and its square:
//!
//! - **occupancy**: only the target's squares are ever occupied; a square
//!   once occupied stays so; exactly one square is occupied by each move
//!   (at least one, and at most one by a sequential counter), so board
//!   `m` is the target's occupancy;
//! - **flips**: the move on `s` by colour `c` flips square `q` in
//!   direction `d` exactly when the squares from `s` up to `q` are the
//!   opponent's and the run continues past `q` to one of `c`'s discs (a
//!   chain variable per move, square and direction, built for that move's
//!   mover only: its discs and the opponent's are the board's black and
//!   white discs chosen by the move's colour); at least one square
//!   is flipped, and one next to `s` (implied, as every flipped run
//!   starts next to `s`, but stated: the solver's proofs are many times
//!   shorter with it); a flipped square held the opponent's disc, and the
//!   square past it in its run was occupied and holds `c` after the move
//!   (implied too, stated for shorter proofs); a flipped square changes
//!   colour, the placed square takes `c`, every other square keeps its
//!   colour;
//! - **turns**: Black makes the first move; a side moves twice running
//!   only when the other side had no legal move on the board between (a
//!   pass); a legal move is an empty square with a run of the opponent's
//!   discs closed by one's own in some direction (for "no legal move" the
//!   formula states only that such a run forces its variable true, and
//!   the pass forces every one false: a model never needs the converse);
//! - **the end**: board `m` is the target's board, and the side to move is
//!   the target's: the other side of the last mover, or the last mover
//!   when the other side has no move and it has one (a pass); who can
//!   move on the target's board is known, so this is a constant.
//!
//! Generation 9 built both colours' runs on every board and chose between
//! them by the move's colour, and stated "a side can move" both ways. The
//! formula of generation 10 has about a third fewer clauses, and CaDiCaL
//! runs 1.5x to 1.9x the conflicts a second on it; on samples neither
//! formula was chosen by it took 1.19x the conflicts to a verdict
//! (geometric mean) and 0.48x to 0.87x the time
//! (results/benchmarks/exact-mover-runs-8x8-20261205.txt).
//!
//! Every game to the position satisfies it (its boards, moves and
//! colours), and every satisfying assignment is a game (each constraint
//! is the rule it names), so the answer is exact both ways; the game read
//! from a model is still replayed with the rules of the board module, and
//! one that does not replay is a defect, reported as no answer. Ishii and
//! Tanaka (Game Programming Workshop 2025) decided their last positions
//! with an encoding of this kind; this one is written from the rules
//! above.

use batsat::{SolverInterface, lbool};

use crate::board::{Color, Geometry, Position};
use crate::search::flip_history::{Forced, forced_facts};
use crate::search::game::Game;
use crate::search::sat_budget::Budget;
pub use crate::search::sat_budget::Cut;

/// What the exact encoding says of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exact<G: Geometry> {
    /// Satisfiable: a game to it, checked by replaying it.
    Reachable(Game<G>),
    /// Unsatisfiable: no game reaches it.
    Unreachable,
    /// The solver reached its conflict budget first, or was cut
    /// ([`exact_game_until`]).
    Unknown,
}

/// A literal of the encoding, or a constant: constants are folded as the
/// formula is built, so squares the target leaves empty and the start's
/// board cost no variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum L {
    True,
    False,
    Var(Lit),
}

impl std::ops::Not for L {
    type Output = L;
    fn not(self) -> L {
        match self {
            L::True => L::False,
            L::False => L::True,
            L::Var(l) => L::Var(!l),
        }
    }
}

impl From<bool> for L {
    fn from(b: bool) -> L {
        if b { L::True } else { L::False }
    }
}

/// The eight directions as (row, column) steps; direction `7 - d` is the
/// opposite of `d`.
const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// The square next to `q` in direction `d` on an `n x n` board.
fn step(n: u32, q: u32, d: usize) -> Option<u32> {
    let (r, c) = ((q / n) as i32 + DIRECTIONS[d].0, (q % n) as i32 + DIRECTIONS[d].1);
    let n = n as i32;
    (0..n).contains(&r).then_some(())?;
    (0..n).contains(&c).then(|| (r * n + c) as u32)
}

/// A literal of the formula: variable `index >> 1`, negated when the low
/// bit is set (the solvers' own literals are made from it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lit(u32);

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// A SAT solver the formula is handed to.
pub(crate) trait Backend {
    /// Adds a clause (its variables may be new).
    fn add_clause(&mut self, lits: &[Lit]);
    /// Solves within `conflicts` conflicts: the answer, or `None`.
    fn solve(&mut self, conflicts: u64) -> Option<bool>;
    /// A literal's value in the model found.
    fn value(&self, l: Lit) -> bool;
    /// Conflicts spent by every solve so far.
    fn conflicts(&self) -> u64;
    /// From now on, keeps the clauses of at most `max_len` literals that
    /// the solver learns, each implied by the clauses given it (CaDiCaL
    /// only: the others keep none, and say so by returning false).
    fn keep_learned(&mut self, _max_len: usize) -> bool {
        false
    }
    /// The clauses kept since [`Backend::keep_learned`], taken: flat, each
    /// its length then its literals.
    fn take_learned(&mut self) -> Vec<u32> {
        Vec::new()
    }
}

/// BatSat (pure Rust, the default).
struct BatSat<'a> {
    solver: batsat::Solver<Budget<'a>>,
    vars: Vec<batsat::Var>,
}

impl BatSat<'_> {
    fn lit(&mut self, l: Lit) -> batsat::Lit {
        while self.vars.len() <= (l.0 >> 1) as usize {
            let v = self.solver.new_var_default();
            self.vars.push(v);
        }
        batsat::Lit::new(self.vars[(l.0 >> 1) as usize], l.0 & 1 == 0)
    }
}

impl Backend for BatSat<'_> {
    fn add_clause(&mut self, lits: &[Lit]) {
        let mut c: Vec<batsat::Lit> = lits.iter().map(|&l| self.lit(l)).collect();
        self.solver.add_clause_reuse(&mut c);
    }

    fn solve(&mut self, conflicts: u64) -> Option<bool> {
        self.solver.cb_mut().limit = conflicts;
        let r = self.solver.solve_limited(&[]);
        if r == lbool::TRUE {
            Some(true)
        } else if r == lbool::FALSE {
            Some(false)
        } else {
            None
        }
    }

    fn value(&self, l: Lit) -> bool {
        let v = batsat::Lit::new(self.vars[(l.0 >> 1) as usize], l.0 & 1 == 0);
        self.solver.value_lit(v) == lbool::TRUE
    }

    fn conflicts(&self) -> u64 {
        self.solver.cb().conflicts
    }
}

/// The formula being built: gates over a backend, constants folded.
struct Formula<'a> {
    backend: Box<dyn Backend + 'a>,
    vars: u32,
    clauses: u64,
    /// Set when a clause folded to the empty clause: unsatisfiable.
    empty: bool,
    /// The xxh3 of every clause handed to the backend, in order: two
    /// formulas with the same fingerprint number their variables alike,
    /// so clauses learned on one hold on the other ([`Carry`]).
    fingerprint: xxhash_rust::xxh3::Xxh3,
}

impl Formula<'_> {
    fn var(&mut self) -> L {
        self.vars += 1;
        L::Var(Lit((self.vars - 1) << 1))
    }

    fn clause(&mut self, lits: &[L]) {
        let mut out = Vec::with_capacity(lits.len());
        for &l in lits {
            match l {
                L::True => return,
                L::False => {}
                L::Var(v) => out.push(v),
            }
        }
        if out.is_empty() {
            self.empty = true;
        } else {
            self.clauses += 1;
            self.fingerprint.update(&(out.len() as u32).to_le_bytes());
            for l in &out {
                self.fingerprint.update(&l.0.to_le_bytes());
            }
            self.backend.add_clause(&out);
        }
    }

    /// A literal equivalent to `a and b`.
    fn and(&mut self, a: L, b: L) -> L {
        match (a, b) {
            (L::False, _) | (_, L::False) => L::False,
            (L::True, x) | (x, L::True) => x,
            _ if a == b => a,
            _ if a == !b => L::False,
            _ => {
                let v = self.var();
                self.clause(&[!v, a]);
                self.clause(&[!v, b]);
                self.clause(&[v, !a, !b]);
                v
            }
        }
    }

    /// A literal equivalent to the disjunction of `xs`.
    fn or(&mut self, xs: &[L]) -> L {
        let mut vars: Vec<L> = Vec::with_capacity(xs.len());
        for &x in xs {
            match x {
                L::True => return L::True,
                L::False => {}
                _ => {
                    if !vars.contains(&x) {
                        vars.push(x);
                    }
                }
            }
        }
        match vars.len() {
            0 => L::False,
            1 => vars[0],
            _ => {
                let v = self.var();
                let mut long = vars.clone();
                long.push(!v);
                self.clause(&long);
                for &x in &vars {
                    self.clause(&[v, !x]);
                }
                v
            }
        }
    }

    /// A literal equivalent to `if c { a } else { b }`.
    fn mux(&mut self, c: L, a: L, b: L) -> L {
        match c {
            L::True => a,
            L::False => b,
            _ if a == b => a,
            _ => {
                let v = self.var();
                self.clause(&[!c, !a, v]);
                self.clause(&[!c, a, !v]);
                self.clause(&[c, !b, v]);
                self.clause(&[c, b, !v]);
                v
            }
        }
    }

    /// At most one of `xs` (Sinz's sequential counter).
    fn at_most_one(&mut self, xs: &[L]) {
        let xs: Vec<L> = xs.iter().copied().filter(|&x| x != L::False).collect();
        if xs.len() < 2 {
            return;
        }
        // s[i]: one of xs[..=i] is true
        let mut prev = xs[0];
        for &x in &xs[1..] {
            self.clause(&[!prev, !x]);
            let s = self.or(&[prev, x]);
            prev = s;
        }
    }

    fn value(&self, l: L) -> bool {
        match l {
            L::True => true,
            L::False => false,
            L::Var(v) => self.backend.value(v),
        }
    }
}

/// Per board and direction, for each square, the literal of a chain that
/// starts there and walks in that direction: `gate(t, square, next)` with
/// `next` the chain's literal at the following square (false off the
/// board), filled from the far end.
fn chains(f: &mut Formula, n: u32, d: usize, mut gate: impl FnMut(&mut Formula, u32, L) -> L) -> Vec<L> {
    let squares = (n * n) as usize;
    let mut out: Vec<Option<L>> = vec![None; squares];
    for q0 in 0..n * n {
        // the squares from q0 in direction d to the edge, then back-filled
        let mut path = vec![q0];
        while let Some(next) = step(n, *path.last().expect("a square"), d) {
            if out[next as usize].is_some() {
                break;
            }
            path.push(next);
        }
        for &q in path.iter().rev() {
            if out[q as usize].is_some() {
                continue;
            }
            let next = step(n, q, d).map_or(L::False, |r| out[r as usize].expect("filled further along"));
            out[q as usize] = Some(gate(f, q, next));
        }
    }
    out.into_iter().map(|l| l.expect("every square filled")).collect()
}

/// Per direction, for each square, a literal implied by "a run of `runs`
/// discs from this square in direction `d`, closed by a disc of `closers`"
/// (false off the board); only that implication is stated, not its
/// converse, which is all that "this side has no legal move" needs: a
/// model that sets such a literal false has no such run.
fn runs_implied(f: &mut Formula, n: u32, d: usize, runs: &[L], closers: &[L]) -> Vec<L> {
    chains(f, n, d, |f, q, next| {
        let closer = step(n, q, d).map_or(L::False, |r| closers[r as usize]);
        let here = runs[q as usize];
        if here == L::False || (closer == L::False && next == L::False) {
            return L::False;
        }
        let v = f.var();
        f.clause(&[!here, !closer, v]);
        f.clause(&[!here, !next, v]);
        v
    })
}

/// The encoding of one position, built.
struct Encoding<'a> {
    formula: Formula<'a>,
    /// Per move `t` (from 1; index `t - 1`), the placement literals.
    placed: Vec<Vec<L>>,
    /// Per move, its colour (true: Black).
    colour: Vec<L>,
}

/// Adds the facts the flip-history relaxation forces ([`Forced`]): each
/// holds in every game to the target (every game's flip history is one
/// the relaxation allows), so no game is lost, and a proof of
/// unreachability may be shorter: "a placed before b" as "b occupied on
/// board t implies a occupied on it" for every t; "q never flipped" as
/// no move flipping q; "q flipped" as some move flipping it; "the disc
/// placed on q is black" as "move t placed q implies move t is Black's".
/// `boards[t]`, `flips[t]`: move t's occupied and flipped squares.
fn add_forced(f: &mut Formula, forced: &Forced, boards: &[Vec<L>], flips: &[Vec<L>], placed: &[Vec<L>], colour: &[L]) {
    for &(a, b) in &forced.before {
        for occupied in boards {
            f.clause(&[!occupied[b as usize], occupied[a as usize]]);
        }
    }
    for &q in &forced.never_flipped {
        for flipped in flips {
            f.clause(&[!flipped[q as usize]]);
        }
    }
    for &q in &forced.flipped {
        let some: Vec<L> = flips.iter().map(|flipped| flipped[q as usize]).collect();
        f.clause(&some);
    }
    for &(q, black) in &forced.placed_black {
        for (x, &c) in placed.iter().zip(colour) {
            f.clause(&[!x[q as usize], if black { c } else { !c }]);
        }
    }
}

fn encode<'a, G: Geometry>(
    target: &Position<G>,
    solver: Solver,
    passes: bool,
    cut: Option<Cut<'a>>,
    forced: Option<&Forced>,
) -> Encoding<'a> {
    let n = G::N;
    let squares = G::SQUARES as usize;
    let mut f = Formula {
        backend: solver.make(cut),
        vars: 0,
        clauses: 0,
        empty: false,
        fingerprint: xxhash_rust::xxh3::Xxh3::new(),
    };
    let start = Position::<G>::start();
    let centre = start.black().0 | start.white().0;
    let tb = target.black().0;
    let occ = tb | target.white().0;
    let m = (occ.count_ones() - 4) as usize;
    let bit = |b: u64, q: usize| b >> q & 1 == 1;

    // the board before the move: occupied, black and white squares
    let mut was_occupied: Vec<L> = (0..squares).map(|q| L::from(bit(centre, q))).collect();
    let mut was_black: Vec<L> = (0..squares).map(|q| L::from(bit(start.black().0, q))).collect();
    let mut was_white: Vec<L> = (0..squares).map(|q| f.and(was_occupied[q], !was_black[q])).collect();
    let mut placed = Vec::with_capacity(m);
    let mut colour: Vec<L> = Vec::with_capacity(m);
    // each move's board and flips, kept for the forced facts
    let keep = forced.is_some();
    let mut boards: Vec<Vec<L>> = Vec::with_capacity(if keep { m } else { 0 });
    let mut flips: Vec<Vec<L>> = Vec::with_capacity(if keep { m } else { 0 });
    for t in 1..=m {
        let last = t == m;
        // occupancy
        let occupied: Vec<L> = (0..squares)
            .map(|q| {
                if !bit(occ, q) {
                    L::False
                } else if bit(centre, q) || last {
                    L::True
                } else {
                    f.var()
                }
            })
            .collect();
        for (&was, &is) in was_occupied.iter().zip(&occupied) {
            f.clause(&[!was, is]);
        }
        let x: Vec<L> = (0..squares).map(|q| f.and(occupied[q], !was_occupied[q])).collect();
        f.clause(&x);
        f.at_most_one(&x);
        // the mover: Black first
        let c = if t == 1 || !passes { L::from(t % 2 == 1) } else { f.var() };
        // the mover's discs and the opponent's before the move (constants
        // where the colour is known)
        let mine: Vec<L> = (0..squares).map(|q| f.mux(c, was_black[q], was_white[q])).collect();
        let opp: Vec<L> = (0..squares).map(|q| f.mux(c, was_white[q], was_black[q])).collect();
        // a side moves twice running only after the other passed: then the
        // side that did not move had no legal move on the board before (no
        // run of the mover's discs from an empty square, closed by its own)
        if t >= 2 && passes {
            let prev = colour[t - 2];
            let twice = f.var();
            f.clause(&[twice, c, prev]);
            f.clause(&[twice, !c, !prev]);
            for d in 0..8 {
                let run = runs_implied(&mut f, n, d, &mine, &opp);
                for (s, &filled) in was_occupied.iter().enumerate() {
                    if let Some(r) = step(n, s as u32, d) {
                        f.clause(&[!twice, filled, !run[r as usize]]);
                    }
                }
            }
        }
        let mut flipped_by: Vec<Vec<L>> = vec![Vec::new(); squares];
        for d in 0..8 {
            // from[q]: the move's square lies behind q in direction d with
            // only the opponent's discs between
            let back = 7 - d;
            let from = chains(&mut f, n, back, |f, q, next| {
                let Some(r) = step(n, q, back) else { return L::False };
                let through = f.and(opp[r as usize], next);
                f.or(&[x[r as usize], through])
            });
            // closed[q]: q holds the opponent's disc and the run from q in
            // direction d ends at one of the mover's
            let closed = chains(&mut f, n, d, |f, q, next| {
                let own_next = step(n, q, d).map_or(L::False, |r| mine[r as usize]);
                let beyond = f.or(&[own_next, next]);
                f.and(opp[q as usize], beyond)
            });
            for q in 0..squares {
                let flip = f.and(from[q], closed[q]);
                flipped_by[q].push(flip);
            }
        }
        let flipped: Vec<L> = flipped_by.iter().map(|fl| f.or(fl)).collect();
        f.clause(&flipped);
        // a flipped square held the opponent's disc before the move:
        // implied by the flips, but only through the disjunction of its
        // directions, which unit propagation cannot open; stated as binary
        // clauses (with the run clauses below, CaDiCaL's proofs of 16 dense
        // 8x8 samples took 0.43x the conflicts, geometric mean:
        // results/benchmarks/exact-flip-lemmas-8x8-20261205.txt)
        for (q, &fl) in flipped.iter().enumerate() {
            f.clause(&[!fl, was_occupied[q]]);
            f.clause(&[!fl, !c, !was_black[q]]);
            f.clause(&[!fl, c, was_black[q]]);
        }
        // the move flips a neighbour of its square (every flipped run
        // starts next to it): implied by the flips, but stated, CaDiCaL
        // proved three dense 8x8 samples unreachable in 9x to 43x fewer
        // conflicts (results/benchmarks/exact-neighbour-8x8-20261128.txt)
        for (s, &placed_here) in x.iter().enumerate() {
            let mut cl = vec![!placed_here];
            cl.extend((0..8).filter_map(|d| step(n, s as u32, d)).map(|r| flipped[r as usize]));
            f.clause(&cl);
        }
        // colours
        let black: Vec<L> = (0..squares)
            .map(|q| {
                if !bit(occ, q) {
                    L::False
                } else if last {
                    L::from(bit(tb, q))
                } else {
                    f.var()
                }
            })
            .collect();
        // past a disc flipped in direction d the run goes on or closes: the
        // next square in d was occupied and holds the mover's colour after
        // the move (implied, stated for the same reason)
        for (q, by) in flipped_by.iter().enumerate() {
            for (d, &fb) in by.iter().enumerate() {
                if let Some(r) = step(n, q as u32, d) {
                    f.clause(&[!fb, was_occupied[r as usize]]);
                    f.clause(&[!fb, !c, black[r as usize]]);
                    f.clause(&[!fb, c, !black[r as usize]]);
                }
            }
        }
        for q in 0..squares {
            let (b0, b1, fl, e0, e1) = (was_black[q], black[q], flipped[q], was_occupied[q], occupied[q]);
            f.clause(&[!x[q], !b1, c]);
            f.clause(&[!x[q], b1, !c]);
            f.clause(&[!e0, !b1, b0, fl]);
            f.clause(&[!e0, !b1, !b0, !fl]);
            f.clause(&[!e0, b1, !b0, fl]);
            f.clause(&[!e0, b1, b0, !fl]);
            f.clause(&[e1, !b1]);
        }
        placed.push(x);
        colour.push(c);
        if keep {
            boards.push(occupied.clone());
            flips.push(flipped);
        }
        was_white = (0..squares).map(|q| f.and(occupied[q], !black[q])).collect();
        was_occupied = occupied;
        was_black = black;
    }
    if let Some(forced) = forced {
        add_forced(&mut f, forced, &boards, &flips, &placed, &colour);
    }
    // the side to move at the end: the other side of the last mover, or the
    // last mover when the other side has no move and it has one (a pass);
    // the last board is the target's, so who can move there is known
    if m > 0 {
        let cm = colour[m - 1];
        let to_move_black = target.side_to_move() == Color::Black;
        let passed_last = !target.legal_moves().is_empty() && !target.opponent_can_move();
        if !passed_last {
            // the last mover is not the side to move
            f.clause(&[if to_move_black { !cm } else { cm }]);
        }
    }
    Encoding { formula: f, placed, colour }
}

/// Decides whether `p` is reachable with the exact game encoding, the
/// solver stopped after `conflicts` conflicts.
pub fn exact_game<G: Geometry>(p: &Position<G>, conflicts: u64) -> Exact<G> {
    exact_game_with::<G>(p, conflicts, Solver::default())
}

/// [`exact_game`] with the given solver.
pub fn exact_game_with<G: Geometry>(p: &Position<G>, conflicts: u64, solver: Solver) -> Exact<G> {
    exact_game_counted(p, conflicts, solver).0
}

/// [`exact_game_with`], and the conflicts the solver spent on it (both
/// formulas).
pub fn exact_game_counted<G: Geometry>(p: &Position<G>, conflicts: u64, solver: Solver) -> (Exact<G>, u64) {
    exact_game_until(p, conflicts, solver, None)
}

/// [`exact_game_counted`], the solver stopped as soon as `cut` answers
/// true (asked from inside it, many times a second): then the answer is
/// [`Exact::Unknown`], as at the conflict limit, and the caller, who knows
/// why it cut, says so. A search left to its limit answers as without a
/// cut.
pub fn exact_game_until<G: Geometry>(
    p: &Position<G>,
    conflicts: u64,
    solver: Solver,
    cut: Option<Cut<'_>>,
) -> (Exact<G>, u64) {
    let (verdict, spent, _) = exact_game_inner(p, conflicts, solver, cut, None, false, false);
    (verdict, spent)
}

/// The conflicts of each solver call that [`flip_history::forced_facts`]
/// makes for [`exact_game_forced`] (0.3-1.3 s a dense 8x8 position:
/// results/benchmarks/exact-forced-facts-8x8-20261207.txt).
pub const FORCED_FACT_CONFLICTS: u64 = 100_000;

/// [`exact_game_counted`] with the facts the flip-history relaxation
/// forces added to both formulas (found once, with
/// [`FORCED_FACT_CONFLICTS`] a call; a relaxation without a model adds
/// none). Every game to the board satisfies them, so the verdicts are
/// those of the encoding without them; what changes is the conflicts a
/// search takes. Not yet the decider's encoding: measured by
/// `probes/exact_probe.rs`.
pub fn exact_game_forced<G: Geometry>(p: &Position<G>, conflicts: u64, solver: Solver) -> (Exact<G>, u64) {
    let (verdict, spent, _) = exact_game_inner(p, conflicts, solver, None, None, false, true);
    (verdict, spent)
}

/// The longest learned clause a [`Carry`] keeps: the short ones are the
/// ones that resumed searches use (results/benchmarks/exact-carry-8x8-20261206.txt).
pub const CARRY_CLAUSE_LEN: usize = 8;

/// The most words a [`Carry`] keeps (64 MiB as u32s); past it the oldest
/// clauses go, until half as many are left. A search keeps no more than
/// this many words of new clauses either.
pub const CARRY_LITERALS: usize = 1 << 24;

/// The most memory one search's carry may take, on top of the solver's.
/// Its peak is while the new clauses are found: the carry given and the
/// copy the search extends (at most [`CARRY_LITERALS`] words, 64 MiB,
/// each: a carry of more is not used), the solver's learned clauses (64
/// MiB) and the new ones among them (64 MiB, 96 while that vector
/// grows), and the hashes of the clauses held (below 2^24, 8 bytes each
/// in a table of at most 2^25 slots of 9 bytes: 288 MiB, 432 while it
/// grows): about 720 MiB. Later the copy grows to 128 MiB (192 while it
/// grows) before the cap trims it, and is written with a copy and its
/// bytes (64 MiB each), less than that. `--carry-exact` reserves this for
/// each thread before a resolve starts.
pub const CARRY_PEAK_BYTES: u64 = 768 << 20;

/// The memory one search of the exact encoding on 8x8 (the solver and
/// its formula) is taken to hold, reserved for each thread of a run that
/// tries the encoding before it starts. Measured peaks (resident memory
/// of one process, less the 36 MB it holds without the encoding) vary by
/// sample more than by conflicts: 0.61 GB for a dense sample proven
/// unreachable at 6.5 x 10^5 conflicts, 0.23 GB for the searches of the
/// resolve units at 5 x 10^6 to 2 x 10^7 with a carry loaded
/// (results/benchmarks/exact-memory-8x8-20261207.txt). The largest
/// measured, with a quarter to spare: an estimate, not a bound.
pub const EXACT_PEAK_BYTES_8X8: u64 = 768 << 20;

/// [`EXACT_PEAK_BYTES_8X8`] scaled to the board by the formula's size
/// (squares times moves: 3,840 on 8x8, 1,152 on 6x6, 192 on 4x4).
pub const fn exact_peak_bytes<G: Geometry>() -> u64 {
    let sq = G::SQUARES as u64;
    EXACT_PEAK_BYTES_8X8 / 3840 * (sq * (sq - 4))
}

/// The longest clause a [`Carry`] is ever made to keep.
pub const CARRY_LONGEST: u32 = 64;

/// What a search of the exact encoding left without an answer hands to
/// the next search of the same position ([`exact_game_resumed`]): the
/// conflicts spent, and the short clauses the solver learned on the
/// formula with passes. Every one of them is implied by that formula (the
/// solver runs no technique that adds clauses the formula does not
/// imply: see [`Backend::keep_learned`]), so adding them to the same
/// formula changes no verdict; the fingerprint says it is the same
/// formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carry {
    /// The conflicts the formula without passes spent (it found no game;
    /// a resumed search does not try it again).
    pub first_spent: u64,
    /// The conflicts the formula with passes spent, in all the searches
    /// before.
    pub passes_spent: u64,
    /// The fingerprint of the formula with passes.
    pub fingerprint: u64,
    /// The longest clause the next search keeps: [`CARRY_CLAUSE_LEN`],
    /// doubled after each search that kept none (a search given the same
    /// carry is the same search again, so it would stall).
    pub keep_len: u32,
    /// The clauses, flat: each its length, then its literals (a
    /// variable's index times two, plus one where negated).
    pub clauses: Vec<u32>,
}

/// The clauses of flat words (each its length, then its literals), in
/// order; a last clause cut short by the end of the words ends them.
pub fn each_clause(words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut rest = words;
    std::iter::from_fn(move || {
        let (&len, tail) = rest.split_first()?;
        let clause = tail.get(..len as usize)?;
        rest = &tail[len as usize..];
        Some(clause)
    })
}

impl Carry {
    /// The clauses it keeps.
    pub fn clause_count(&self) -> usize {
        each_clause(&self.clauses).count()
    }

    /// Whether its clauses are well formed: each length at least 1 and
    /// within the vector, no literal beyond `vars` variables, and no more
    /// than [`CARRY_LITERALS`] words in all (the memory reserved for it).
    pub fn well_formed(&self, vars: u32) -> bool {
        if self.clauses.len() > CARRY_LITERALS {
            return false;
        }
        let mut words = 0;
        for c in each_clause(&self.clauses) {
            if c.is_empty() || c.iter().any(|&l| l >> 1 >= vars) {
                return false;
            }
            words += 1 + c.len();
        }
        words == self.clauses.len()
    }

    /// Of `learned` (flat clauses), those it does not hold yet (each once),
    /// flat. Clauses are compared by the xxh3 of their sorted literals (8
    /// bytes a clause held, not a vector: about a tenth of the memory at
    /// [`CARRY_LITERALS`]); two clauses with one hash drop the second, which
    /// only loses an implied clause, never changes a verdict.
    fn new_clauses(&self, learned: &[u32]) -> Vec<u32> {
        // one buffer for the sorted literals of every clause, not a
        // vector each
        let mut sorted = Vec::new();
        let mut hash = |c: &[u32]| {
            sorted.clear();
            sorted.extend_from_slice(c);
            sorted.sort_unstable();
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            for l in &sorted {
                h.update(&l.to_le_bytes());
            }
            h.digest()
        };
        let mut held: std::collections::HashSet<u64> = each_clause(&self.clauses).map(&mut hash).collect();
        let mut out = Vec::new();
        for c in each_clause(learned) {
            if held.insert(hash(c)) {
                out.push(c.len() as u32);
                out.extend_from_slice(c);
            }
        }
        out
    }

    /// Appends `more` (flat clauses), then drops the oldest clauses while
    /// more than [`CARRY_LITERALS`] words are kept.
    fn extend(&mut self, more: &[u32]) {
        self.clauses.extend_from_slice(more);
        if self.clauses.len() > CARRY_LITERALS {
            let mut i = 0;
            while self.clauses.len() - i > CARRY_LITERALS / 2 {
                i += 1 + self.clauses[i] as usize;
            }
            self.clauses.drain(..i);
        }
    }
}

/// Where searches of the exact encoding keep their [`Carry`] from one to
/// the next, by position (its black and white discs and whether Black is
/// to move). A store that cannot keep a carry says nothing: a carry
/// lost costs only the conflicts spent again.
pub trait CarryStore: Sync {
    /// The carry kept for the position, if any.
    fn load(&self, black: u64, white: u64, black_to_move: bool) -> Option<Carry>;
    /// Keeps `carry` for the position, in place of any before.
    fn save(&self, black: u64, white: u64, black_to_move: bool, carry: &Carry);
    /// Drops the carry of the position (it is decided).
    fn forget(&self, black: u64, white: u64, black_to_move: bool);
}

/// [`exact_game_until`], resumable: a search that ends without an answer
/// (its limit, or the cut) also returns a [`Carry`] (where the solver can
/// keep what it learned: CaDiCaL; BatSat carries nothing), and a search given that carry goes on
/// from it: the formula without passes is not tried again, the clauses
/// kept are added to the formula with passes, and its limit counts the
/// conflicts spent before (`conflicts` is the limit of all the searches
/// of the position together). A carry of another formula (its fingerprint
/// differs: another position, or another generation of the encoding) is
/// not used. The conflicts returned are this search's.
///
/// A resumed search is not the search an uncut one would have made: where
/// it decides, the verdict is the same (each is exact), but at a limit it
/// may decide positions the other leaves, and the other way round.
pub fn exact_game_resumed<G: Geometry>(
    p: &Position<G>,
    conflicts: u64,
    solver: Solver,
    cut: Option<Cut<'_>>,
    carry: Option<&Carry>,
) -> (Exact<G>, u64, Option<Carry>) {
    exact_game_inner(p, conflicts, solver, cut, carry, true, false)
}

/// [`exact_game_resumed`]; only where `keep` do the solver's learned
/// clauses go into a carry (a search that nobody resumes keeps none);
/// where `facts`, both formulas hold the relaxation's forced facts (the
/// fingerprint then differs from the formula's without them).
fn exact_game_inner<G: Geometry>(
    p: &Position<G>,
    conflicts: u64,
    solver: Solver,
    cut: Option<Cut<'_>>,
    carry: Option<&Carry>,
    keep: bool,
    facts: bool,
) -> (Exact<G>, u64, Option<Carry>) {
    let start = Position::<G>::start();
    let (b, w) = (p.black().0, p.white().0);
    let centre = start.black().0 | start.white().0;
    if (b | w) & centre != centre || b & w != 0 {
        return (Exact::Unreachable, 0, None);
    }
    if b | w == centre {
        let v = if *p == start { Exact::Reachable(Game { plies: Vec::new(), end: *p }) } else { Exact::Unreachable };
        return (v, 0, None);
    }
    // found once for both formulas (and again, alike, by a resumed
    // search: the calls are deterministic, so the fingerprint is too)
    let forced = if facts { forced_facts::<G>(b, w, FORCED_FACT_CONFLICTS) } else { None };
    let forced = forced.as_ref();
    let mut spent = 0;
    let mut found = false;
    let mut resumed: Option<(Carry, Encoding)> = None;
    if let Some(c) = carry.filter(|_| keep) {
        let enc = encode::<G>(p, solver, true, cut, forced);
        if enc.formula.fingerprint.digest() == c.fingerprint && c.well_formed(enc.formula.vars) {
            // at its limit already: nothing to search, nothing new to keep
            if conflicts <= c.passes_spent {
                return (Exact::Unknown, 0, None);
            }
            resumed = Some((c.clone(), enc));
        }
    }
    let mut enc;
    let resumed = match resumed {
        Some((c, e)) => {
            enc = e;
            Some(c)
        }
        None => {
            // first without passes inside the game, on a tenth of the budget
            // (most games have none, and that formula is much smaller: every
            // move's colour is known); where it finds no game, with them (most
            // positions asked are unreachable: the full budget goes to the
            // formula that can prove it)
            enc = encode::<G>(p, solver, false, cut, forced);
            let first = if enc.formula.empty { Some(false) } else { enc.formula.backend.solve(conflicts.div_ceil(10)) };
            spent = enc.formula.backend.conflicts();
            found = first == Some(true);
            if !found && cut.is_some_and(|cut| cut()) {
                return (Exact::Unknown, spent, None);
            }
            if !found {
                enc = encode::<G>(p, solver, true, cut, forced);
            }
            None
        }
    };
    if !found {
        if enc.formula.empty {
            return (Exact::Unreachable, spent, None);
        }
        let fingerprint = enc.formula.fingerprint.digest();
        let mut carry = resumed.unwrap_or(Carry {
            first_spent: spent,
            passes_spent: 0,
            fingerprint,
            keep_len: CARRY_CLAUSE_LEN as u32,
            clauses: Vec::new(),
        });
        for c in each_clause(&carry.clauses) {
            let c: Vec<Lit> = c.iter().map(|&l| Lit(l)).collect();
            enc.formula.backend.add_clause(&c);
        }
        let left = conflicts.saturating_sub(carry.passes_spent);
        let keeps = keep && enc.formula.backend.keep_learned(carry.keep_len.clamp(1, CARRY_LONGEST) as usize);
        let r = enc.formula.backend.solve(left);
        let now = enc.formula.backend.conflicts();
        spent += now;
        match r {
            Some(false) => return (Exact::Unreachable, spent, None),
            // a solver that keeps nothing carries nothing: a search resumed
            // from a count alone would only have fewer conflicts left
            None if !keeps => return (Exact::Unknown, spent, None),
            None => {
                carry.passes_spent += now;
                let learned = carry.new_clauses(&enc.formula.backend.take_learned());
                // kept nothing new after some search: the same carry would
                // give the same search again, so the next keeps longer ones
                if learned.is_empty() && now > 0 {
                    carry.keep_len = carry.keep_len.saturating_mul(2).min(CARRY_LONGEST);
                }
                carry.extend(&learned);
                return (Exact::Unknown, spent, Some(carry));
            }
            Some(true) => found = true,
        }
    }
    debug_assert!(found);
    // the game of the model: a pass wherever a side moves twice running
    let f = &enc.formula;
    let mut plies = Vec::with_capacity(enc.placed.len() + 2);
    let mut black_to_move = true;
    for (x, &c) in enc.placed.iter().zip(&enc.colour) {
        let square = x.iter().position(|&l| f.value(l)).expect("a model places one square a move") as u32;
        let black = f.value(c);
        if black != black_to_move {
            plies.push(None);
        }
        plies.push(Some(square));
        black_to_move = !black;
    }
    if black_to_move != (p.side_to_move() == Color::Black) {
        plies.push(None);
    }
    enc.placed.clear();
    let game = Game { plies, end: *p };
    match game.replay() {
        Ok(()) => (Exact::Reachable(game), spent, None),
        // a defect of the encoding: no answer rather than a wrong one,
        // counted so that runs and tests in release builds see it
        Err(e) => {
            NON_REPLAYING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            debug_assert!(false, "a game of the exact encoding does not replay: {e}");
            (Exact::Unknown, spent, None)
        }
    }
}

/// Games read from models that did not replay, in this process.
static NON_REPLAYING: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many games the solver's models gave in this process that did not
/// replay with the rules (each answered as no answer). Anything but 0 is
/// a defect of the encoding: `estimate` and `reachable` report it, and the
/// tests require 0.
pub fn non_replaying_games() -> u64 {
    NON_REPLAYING.load(std::sync::atomic::Ordering::Relaxed)
}

/// The size of the encoding of `p`: variables and clauses.
pub fn encoding_size<G: Geometry>(p: &Position<G>) -> (u32, u64) {
    let enc = encode::<G>(p, Solver::BatSat, true, None, None);
    (enc.formula.vars, enc.formula.clauses)
}

/// The SAT solver of the exact encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// BatSat: pure Rust, always built; the default without CaDiCaL.
    #[cfg_attr(not(feature = "cadical"), default)]
    BatSat,
    /// CaDiCaL (the `cadical` feature: a C++ build); the default where
    /// built.
    #[cfg(feature = "cadical")]
    #[cfg_attr(feature = "cadical", default)]
    CaDiCaL,
    /// CaDiCaL in its "unsat" configuration: the same verdicts where both
    /// finish, but at a conflict limit it decides other positions than the
    /// default, so documents name it apart.
    #[cfg(feature = "cadical")]
    #[serde(rename = "cadical-unsat")]
    CaDiCaLUnsat,
}

impl Solver {
    /// Its number in a resolve's ID (`docs/long-runs.md`, "The resolve's
    /// progress file"): fixed, whatever the build has.
    pub fn number(self) -> u64 {
        match self {
            Solver::BatSat => 0,
            #[cfg(feature = "cadical")]
            Solver::CaDiCaL => 1,
            #[cfg(feature = "cadical")]
            Solver::CaDiCaLUnsat => 2,
        }
    }

    /// Its name in documents.
    pub fn name(self) -> &'static str {
        match self {
            Solver::BatSat => "batsat",
            #[cfg(feature = "cadical")]
            Solver::CaDiCaL => "cadical",
            #[cfg(feature = "cadical")]
            Solver::CaDiCaLUnsat => "cadical-unsat",
        }
    }

    fn make<'a>(self, cut: Option<Cut<'a>>) -> Box<dyn Backend + 'a> {
        match self {
            Solver::BatSat => Box::new(BatSat {
                solver: batsat::Solver::new(Default::default(), Budget { conflicts: 0, limit: u64::MAX, cut }),
                vars: Vec::new(),
            }),
            #[cfg(feature = "cadical")]
            Solver::CaDiCaL => Box::new(cadical::Cadical::new(cut)),
            #[cfg(feature = "cadical")]
            Solver::CaDiCaLUnsat => Box::new(cadical::Cadical::unsat(cut)),
        }
    }
}

#[cfg(feature = "cadical")]
mod cadical {
    use rustsat::solvers::{ControlSignal, LimitConflicts, Solve, SolverResult, Terminate};
    use rustsat::types::{Clause, TernaryVal};
    use rustsat_cadical::{Config, Statistic};

    use std::sync::{Arc, Mutex};

    use super::{Backend, Cut, Lit};

    /// CaDiCaL's techniques that could make a learned clause one the
    /// formula does not imply: instantiation (it strengthens a clause
    /// keeping only the formula's satisfiability) and bounded variable
    /// addition (new variables). Off by default in the version built,
    /// and set off at the start (CaDiCaL takes options only before the
    /// first clause), so that every clause a carry keeps is implied by the
    /// formula whatever a later version's defaults. (Every other technique
    /// on by default removes clauses, or adds clauses the formula
    /// implies.)
    pub(super) const NOT_IMPLIED: [&str; 2] = ["factor", "instantiate"];

    /// CaDiCaL, and the clauses it learned that are kept
    /// ([`Backend::keep_learned`]).
    pub(super) struct Cadical<'a>(rustsat_cadical::CaDiCaL<'a, 'static>, Arc<Mutex<Vec<u32>>>);

    impl<'a> Cadical<'a> {
        /// CaDiCaL, stopped when `cut` says so (its terminator, which it
        /// asks regularly while it solves).
        pub(super) fn new(cut: Option<Cut<'a>>) -> Cadical<'a> {
            let mut s = Cadical(rustsat_cadical::CaDiCaL::default(), Arc::default());
            for option in NOT_IMPLIED {
                s.0.set_option(option, 0).expect("an option of CaDiCaL, before any clause");
            }
            if let Some(cut) = cut {
                s.0.attach_terminator(move || if cut() { ControlSignal::Terminate } else { ControlSignal::Continue });
            }
            s
        }

        /// CaDiCaL with its "unsat" configuration (options its authors
        /// tune for unsatisfiable formulas, which most the exact stage is
        /// given are).
        pub(super) fn unsat(cut: Option<Cut<'a>>) -> Cadical<'a> {
            let mut s = Cadical::new(cut);
            s.0.set_configuration(Config::Unsat).expect("CaDiCaL takes its unsat configuration before any clause");
            s
        }
    }

    fn lit(l: Lit) -> rustsat::types::Lit {
        rustsat::types::Lit::new(l.0 >> 1, l.0 & 1 == 1)
    }

    impl Backend for Cadical<'_> {
        fn add_clause(&mut self, lits: &[Lit]) {
            let c: Clause = lits.iter().map(|&l| lit(l)).collect();
            self.0.add_clause(c).expect("CaDiCaL takes a clause");
        }

        fn solve(&mut self, conflicts: u64) -> Option<bool> {
            let limit = u32::try_from(conflicts).ok();
            self.0.limit_conflicts(limit).expect("CaDiCaL takes a conflict limit");
            match self.0.solve().expect("CaDiCaL solves") {
                SolverResult::Sat => Some(true),
                SolverResult::Unsat => Some(false),
                SolverResult::Interrupted => None,
            }
        }

        fn value(&self, l: Lit) -> bool {
            self.0.lit_val(lit(l)).expect("a model") == TernaryVal::True
        }

        fn conflicts(&self) -> u64 {
            self.0.get_statistic(Statistic::Conflicts)
        }

        fn keep_learned(&mut self, max_len: usize) -> bool {
            use rustsat::solvers::Learn;
            let kept = Arc::clone(&self.1);
            self.0.attach_learner(
                move |c: Clause| {
                    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                    // bounded: past it the carry keeps none of the newest
                    if kept.len() + c.len() >= super::CARRY_LITERALS {
                        return;
                    }
                    kept.push(c.len() as u32);
                    kept.extend(c.iter().map(|l| l.vidx32() << 1 | u32::from(l.is_neg())));
                },
                max_len,
            );
            true
        }

        fn take_learned(&mut self) -> Vec<u32> {
            std::mem::take(&mut *self.1.lock().unwrap_or_else(|e| e.into_inner()))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::Cadical;

        /// The techniques that could make a kept clause one the formula
        /// does not imply are off in every solver made.
        #[test]
        fn no_technique_that_breaks_implication_is_on() {
            for s in [Cadical::new(None), Cadical::unsat(None)] {
                for option in super::NOT_IMPLIED {
                    assert_eq!(s.0.get_option(option).expect("an option of CaDiCaL"), 0, "{option}");
                }
            }
        }

        /// The configuration is taken: CaDiCaL's "unsat" turns off its
        /// stabilizing phases and local search (its config.cpp), which the
        /// default has on.
        #[test]
        fn the_unsat_configuration_is_set() {
            let option = |s: &Cadical, name: &str| s.0.get_option(name).expect("an option of CaDiCaL");
            let (plain, unsat) = (Cadical::new(None), Cadical::unsat(None));
            assert_eq!((option(&plain, "stabilize"), option(&plain, "walk")), (1, 1));
            assert_eq!((option(&unsat, "stabilize"), option(&unsat, "walk")), (0, 0));
        }

        /// An undecided 8x8 sample of the estimate (seeds 1-3, generation
        /// 7), which the encoding without the clause "a move flips a
        /// neighbour of its square" proved unreachable in 314,042
        /// conflicts: with it, in a few thousand (7,373 measured), so
        /// within 10^5; generation 10's formula in 18,773 with it and
        /// 262,698 without it. Fails if the clause is lost; the verdict is
        /// the one the encoding without it gave.
        #[test]
        fn the_neighbour_clause_shortens_a_dense_proof() {
            proves_unreachable_within(
                "XOXX-XOX -O-XXOOX OOX-OXO- XOOOXOX- OXXXXOXX OO-X-OOO -O-O-OX- XXXXXXXX X",
                100_000,
            );
        }

        /// An undecided dense 8x8 sample (seeds 1-3, generation 8), which
        /// the encoding without the flip lemmas (generation 8) left
        /// undecided at 4,000 conflicts and proved unreachable in 7,377
        /// (with 3 x 10^5 allowed): with them, in 1,659
        /// (results/benchmarks/exact-flip-lemmas-8x8-20261205.txt). The
        /// formula of generation 10 proves it in 5,461 with the lemmas and
        /// 11,137 without them
        /// (results/benchmarks/exact-mover-runs-8x8-20261205.txt). Fails
        /// if the lemmas are lost.
        #[test]
        fn the_flip_lemmas_shorten_a_dense_proof() {
            proves_unreachable_within(
                "-OXXX-OO -XXXXXOX OXOOXOOX XO-OXOOX O--XXOO- OXOOXX-- XXOXXX-- --O-XOOO O",
                8_000,
            );
        }

        /// The forced facts refute a dense 8x8 sample by unit propagation
        /// alone (0 conflicts; 7,474 without them:
        /// results/benchmarks/exact-forced-facts-8x8-20261207.txt, panel B).
        #[test]
        fn the_forced_facts_shorten_a_dense_proof() {
            use crate::board::{B8, Position};
            use crate::search::game_encoding::{Exact, Solver, exact_game_counted, exact_game_forced};
            let line = "OXO---OX OXOXOOXO O--OXXX- OOXXOXXO OOXXOXXO XOO-X-OX -OXXXOOO OXX-OXO- O";
            let p = Position::<B8>::parse(line).unwrap();
            let (verdict, spent) = exact_game_forced::<B8>(&p, 1_000, Solver::CaDiCaL);
            assert_eq!(verdict, Exact::Unreachable, "after {spent} conflicts");
            assert!(spent <= 100, "{spent} conflicts");
            assert_eq!(exact_game_counted::<B8>(&p, 1_000, Solver::CaDiCaL).0, Exact::Unknown);
        }

        /// A search cut at its limit resumes from its carry: the flip
        /// lemmas' sample above (5,461 conflicts whole), in searches of
        /// at most 1,500 conflicts each, every one resuming from the carry
        /// of the one before, is proven unreachable; each carry holds
        /// learned clauses and counts the conflicts spent; a carry at its
        /// limit already answers at once; the carry of another formula is
        /// not used.
        #[test]
        fn a_cut_search_resumes_from_its_carry() {
            use crate::board::{B8, Position};
            use crate::search::game_encoding::{Exact, Solver, exact_game_resumed};
            let p = Position::<B8>::parse("-OXXX-OO -XXXXXOX OXOOXOOX XO-OXOOX O--XXOO- OXOOXX-- XXOXXX-- --O-XOOO O")
                .unwrap();
            let (mut carry, mut limit, mut searches) = (None, 0, 0);
            let verdict = loop {
                limit += 1_500;
                searches += 1;
                assert!(searches <= 20, "no verdict within {limit} conflicts");
                let (v, spent, c) = exact_game_resumed::<B8>(&p, limit, Solver::CaDiCaL, None, carry.as_ref());
                if v != Exact::Unknown {
                    assert!(c.is_none());
                    break v;
                }
                let c = c.expect("a search left without a verdict carries");
                assert!(c.clause_count() > 0, "search {searches}: no clause kept");
                // (CaDiCaL may pass its limit by a few conflicts)
                assert!(
                    c.passes_spent <= limit + 100 && c.passes_spent + 1_500 > limit,
                    "{} of {limit}",
                    c.passes_spent
                );
                // the same limit again: nothing left to spend
                let (again, none, kept) = exact_game_resumed::<B8>(&p, c.passes_spent, Solver::CaDiCaL, None, Some(&c));
                assert_eq!((again, none, kept), (Exact::Unknown, 0, None));
                assert!(spent > 0);
                carry = Some(c);
            };
            assert_eq!(verdict, Exact::Unreachable);
            assert!(searches >= 2, "decided by the first search: the test needs a longer proof");
            // another position's carry: ignored, the search starts afresh
            // (the formula without passes first, so more conflicts than
            // the carry would have left)
            let q = Position::<B8>::parse("XOXX-XOX -O-XXOOX OOX-OXO- XOOOXOX- OXXXXOXX OO-X-OOO -O-O-OX- XXXXXXXX X")
                .unwrap();
            let mut c = carry.expect("a carry");
            c.passes_spent = 1 << 40;
            let (v, spent, _) = exact_game_resumed::<B8>(&q, 100_000, Solver::CaDiCaL, None, Some(&c));
            assert_eq!(v, Exact::Unreachable);
            assert!(spent > 0);
        }

        /// Every clause a carry keeps is implied by the formula with
        /// passes, checked by the other solver: BatSat proves the formula
        /// with the clause's literals all false unsatisfiable. On dense 6x6
        /// positions of random games with one disc's colour changed, whose
        /// searches CaDiCaL leaves at 400 conflicts.
        #[test]
        fn every_clause_carried_is_implied_by_the_formula() {
            use crate::board::{B6, Position};
            use crate::search::game_encoding::{Exact, L, Lit, Solver, encode, exact_game_resumed};
            let mut checked = 0;
            let mut carries = 0;
            crate::board::random_games::<B6>(40, 21, |p| {
                if carries >= 3 || !(26..=30).contains(&p.discs()) {
                    return;
                }
                // a black disc outside the centre turned white
                let start = Position::<B6>::start();
                let outside = p.black().0 & !(start.black().0 | start.white().0);
                if outside == 0 {
                    return;
                }
                let q = outside.trailing_zeros();
                let changed = Position::<B6>::from_colors_unchecked(
                    p.black().0 & !(1 << q),
                    p.white().0 | 1 << q,
                    p.side_to_move(),
                );
                let (v, _, carry) = exact_game_resumed::<B6>(&changed, 400, Solver::CaDiCaL, None, None);
                let (Exact::Unknown, Some(carry)) = (v, carry) else { return };
                carries += 1;
                for clause in super::super::each_clause(&carry.clauses).take(150) {
                    let mut enc = encode::<B6>(&changed, Solver::BatSat, true, None, None);
                    for &l in clause {
                        enc.formula.clause(&[!L::Var(Lit(l))]);
                    }
                    let r = if enc.formula.empty { Some(false) } else { enc.formula.backend.solve(1_000_000) };
                    assert_eq!(r, Some(false), "a carried clause not implied: {clause:?} ({})", changed.line());
                    checked += 1;
                }
            });
            assert!(carries >= 2 && checked >= 200, "{carries} carries, {checked} clauses checked");
        }

        /// CaDiCaL proves the 8x8 position `line` unreachable within
        /// `conflicts` conflicts (the regression tests of the clauses
        /// that shorten its proofs).
        fn proves_unreachable_within(line: &str, conflicts: u64) {
            use crate::board::{B8, Position};
            use crate::search::game_encoding::{Exact, Solver, exact_game_counted};
            let p = Position::<B8>::parse(line).unwrap();
            let (verdict, spent) = exact_game_counted::<B8>(&p, conflicts, Solver::CaDiCaL);
            assert_eq!(verdict, Exact::Unreachable, "after {spent} conflicts");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6};

    #[test]
    fn positions_of_random_games_are_reachable_with_a_game() {
        crate::board::random_games::<B4>(100, 7, |p| match exact_game::<B4>(p, 1_000_000) {
            Exact::Reachable(g) => assert_eq!(g.replay(), Ok(())),
            other => panic!("{other:?} for a position of a game: {}", p.line()),
        });
        // 6x6 to 24 discs (a full board takes a minute with BatSat; the
        // ignored tests of tests/exact_game.rs go further)
        crate::board::random_games::<B6>(2, 8, |p| {
            if p.discs() > 24 {
                return;
            }
            assert!(matches!(exact_game::<B6>(p, 1_000_000), Exact::Reachable(_)), "a position of a game: {}", p.line())
        });
    }

    /// The cut is asked from inside the solver, and stops it: a position
    /// of a game, which the encoding proves reachable when left alone,
    /// gets no answer once the cut says so, after it was first asked
    /// (from both solvers where CaDiCaL is built).
    #[test]
    fn a_cut_stops_the_solver_under_way() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let mut p = None;
        crate::board::random_games::<B6>(1, 11, |q| {
            if q.discs() == 26 && p.is_none() {
                p = Some(*q);
            }
        });
        let p = p.expect("a game of 26 discs or more");
        let solvers = [Solver::BatSat, Solver::default()];
        for solver in solvers {
            let (whole, spent) = exact_game_counted::<B6>(&p, 1_000_000, solver);
            assert!(matches!(whole, Exact::Reachable(_)), "{whole:?}");
            assert!(spent >= 50, "{solver:?}: {spent} conflicts: the test needs a longer solve");
            for after in [0, 20] {
                let asked = AtomicU64::new(0);
                let cut = || asked.fetch_add(1, Ordering::Relaxed) >= after;
                let (verdict, cut_at) = exact_game_until::<B6>(&p, 1_000_000, solver, Some(&cut));
                assert_eq!(verdict, Exact::Unknown, "{solver:?}, cut at the question {after}");
                assert!(asked.load(Ordering::Relaxed) > after, "{solver:?}: asked {asked:?} times");
                assert!(cut_at < spent, "{solver:?}: {cut_at} of {spent} conflicts");
            }
        }
    }

    /// A carry takes each learned clause once, whatever the order of its
    /// literals, and none it holds already; past its cap it drops the
    /// oldest clauses, whole, down to half.
    #[test]
    fn a_carry_keeps_each_clause_once_and_the_newest_past_its_cap() {
        let flat = |cs: &[&[u32]]| {
            cs.iter().flat_map(|c| std::iter::once(c.len() as u32).chain(c.iter().copied())).collect::<Vec<u32>>()
        };
        let carry =
            Carry { first_spent: 0, passes_spent: 0, fingerprint: 0, keep_len: 8, clauses: flat(&[&[2, 5], &[7]]) };
        let learned = flat(&[&[5, 2], &[9, 4, 6], &[7], &[6, 9, 4], &[4, 9], &[11]]);
        assert_eq!(carry.new_clauses(&learned), flat(&[&[9, 4, 6], &[4, 9], &[11]]));
        assert!(carry.new_clauses(&carry.clauses).is_empty());
        // past the cap: whole clauses of the oldest go, the newest stay
        let mut big = Carry { clauses: Vec::new(), ..carry };
        let one = flat(&[&[1, 2, 3]]);
        for _ in 0..CARRY_LITERALS / one.len() {
            big.extend(&one);
        }
        assert!(big.clauses.len() <= CARRY_LITERALS);
        let last = flat(&[&[8, 10]]);
        big.extend(&last);
        // whole clauses went (a trim by words would leave a piece of
        // one, read as clauses of other lengths), the oldest, down to half
        let n = big.clauses.len();
        assert!(n <= CARRY_LITERALS / 2 + last.len() + one.len() && n >= CARRY_LITERALS / 2 - one.len(), "{n}");
        assert!(big.well_formed(16));
        let kept: Vec<&[u32]> = each_clause(&big.clauses).collect();
        assert!(kept[..kept.len() - 1].iter().all(|c| *c == [1, 2, 3]), "a clause cut in pieces");
        assert_eq!(*kept.last().unwrap(), [8, 10]);
        assert_eq!(kept.iter().map(|c| 1 + c.len()).sum::<usize>(), n);
        // a carry of more words than the cap is not used
        let over = Carry { clauses: one.repeat(CARRY_LITERALS / one.len() + 1), ..big.clone() };
        assert!(!over.well_formed(16));
    }

    /// The forced facts go into the formula (it grows, and its
    /// fingerprint changes) and keep every game: positions of random 6x6
    /// games of 24 to 28 discs are found reachable with them, each game
    /// replaying.
    #[test]
    fn forced_facts_are_added_and_keep_every_game() {
        let (mut checked, mut grew) = (0, 0);
        crate::board::random_games::<B6>(3, 12, |p| {
            if !(24..=28).contains(&p.discs()) {
                return;
            }
            checked += 1;
            let forced = forced_facts::<B6>(p.black().0, p.white().0, FORCED_FACT_CONFLICTS)
                .expect("the relaxation allows the history of a game");
            let plain = encode::<B6>(p, Solver::BatSat, true, None, None);
            let with = encode::<B6>(p, Solver::BatSat, true, None, Some(&forced));
            if with.formula.clauses > plain.formula.clauses {
                grew += 1;
                assert_ne!(with.formula.fingerprint.digest(), plain.formula.fingerprint.digest());
            }
            match exact_game_forced::<B6>(p, 1_000_000, Solver::BatSat).0 {
                Exact::Reachable(g) => assert_eq!(g.replay(), Ok(())),
                other => panic!("{other:?} with the forced facts, for a position of a game: {}", p.line()),
            }
        });
        assert!(checked >= 12 && grew * 10 >= checked * 9, "{grew} of {checked} formulas grew");
    }

    #[test]
    fn an_impossible_board_is_unreachable() {
        // the start plus one disc on a corner: no move placed it
        let start = Position::<B4>::start();
        let p = Position::<B4>::from_colors_unchecked(start.black().0 | 1, start.white().0, Color::White);
        assert_eq!(exact_game::<B4>(&p, 1_000_000), Exact::Unreachable);
        // the start with White to move
        assert_eq!(exact_game::<B4>(&start.pass(), 1_000_000), Exact::Unreachable);
    }
}
