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

use std::collections::{BTreeMap, HashMap};

use batsat::{Lit, SolverInterface, lbool};

use crate::board::{Geometry, Position};
use crate::search::sat_budget::Budget;

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
    solver: batsat::Solver<Budget<'static>>,
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
    /// Shared encodings only ([`SharedRelaxation`]): per non-centre square
    /// of the root, "present on the board asked"; per occupied square, its
    /// colour on the board asked (true: black). Both empty for a board's
    /// own encoding, whose clauses are then exactly those it always had.
    present: Vec<Option<Lit>>,
    colour: Vec<Option<Lit>>,
}

impl Encoding {
    fn new<G: Geometry>(black: u64, white: u64, limit: u64) -> Encoding {
        let mut solver = batsat::Solver::new(Default::default(), Budget { conflicts: 0, limit, cut: None });
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
            present: Vec::new(),
            colour: Vec::new(),
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
        let shared = !self.present.is_empty();
        if shared {
            for &q in &placed {
                let v = self.var();
                self.present[q as usize] = Some(v);
            }
            for s in 0..self.squares {
                if self.occupied >> s & 1 == 1 {
                    let v = self.var();
                    self.colour[s as usize] = Some(v);
                }
            }
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
            for &s in &earlier {
                let b = self.before(s, q);
                self.clause(vec![!lit, b]);
            }
            if shared {
                // an event needs its move, run and anchor on the board asked
                for s in earlier.into_iter().chain(std::iter::once(q)) {
                    if let Some(a) = self.present[s as usize] {
                        self.clause(vec![!lit, a]);
                    }
                }
            }
        }
        // at most one event per move and direction (events of one move in
        // one direction are consecutive: same q, same first run square);
        // in the order of their keys, not a hash map's (whose order differs
        // from map to map): the same board gives the same clauses in the
        // same order, so the solver's path, its verdict at a conflict limit
        // and the facts forced are the same on every run
        let mut groups: BTreeMap<(u32, u32), Vec<Lit>> = BTreeMap::new();
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
                if let Some(a) = self.present.get(q as usize).copied().flatten() {
                    c.push(!a);
                }
                c.extend(self.events.iter().filter(|e| e.q == q && e.black == black).map(|e| e.lit));
                self.clause(c);
            }
        }
        if !self.last_colours(shared) {
            return false;
        }
        self.preconditions();
        true
    }
}

/// The last colour-setting event of each square, and the preconditions
/// of each flip and anchor.
impl Encoding {
    /// Each occupied square's last colour-setting event gives the colour
    /// it shows (a shared encoding: either colour, under its colour
    /// literal); false when a square of a board's own encoding has none.
    fn last_colours(&mut self, shared: bool) -> bool {
        // the last colour-setting event of each square
        for s in 0..self.squares {
            if self.occupied >> s & 1 == 0 {
                continue;
            }
            let flips = self.flips_of[s as usize].clone();
            // a board's own encoding: the colour it shows; a shared one:
            // both, each under "s is present with that colour"
            let finals: &[bool] = if shared { &[true, false] } else { &[self.is_black(s)] };
            for &final_black in finals {
                let mut candidates = Vec::new();
                if shared {
                    let c = self.colour[s as usize].expect("a colour literal for an occupied square");
                    candidates.push(if final_black { !c } else { c });
                    if let Some(a) = self.present[s as usize] {
                        candidates.push(!a);
                    }
                }
                let guards = candidates.len();
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
                let setting: Vec<usize> =
                    flips.iter().copied().filter(|&t| self.events[t].black == final_black).collect();
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
                if candidates.len() == guards && !shared {
                    return false;
                }
                self.clause(candidates);
            }
        }
        true
    }

    fn preconditions(&mut self) {
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

/// Facts the flip-history relaxation forces: true of every history it
/// allows, so of every game to the board (each game's history satisfies
/// it). Probe material (issue 50): whether handing them to the exact
/// encoding shortens its proofs is measured by `probes/exact_probe.rs`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forced {
    /// `(a, b)`: non-centre square `a` is placed before `b`.
    pub before: Vec<(u32, u32)>,
    /// `(q, black)`: the disc placed on `q` is black (or white).
    pub placed_black: Vec<(u32, bool)>,
    /// Squares no move ever flips (their colour is the one they were
    /// given first).
    pub never_flipped: Vec<u32>,
    /// Squares some move flips.
    pub flipped: Vec<u32>,
    /// Solver calls made, and how many ran out of conflicts (a fact not
    /// settled is left out).
    pub calls: u32,
    pub unknown: u32,
}

/// The facts ([`Forced`]) the relaxation of the board `black`, `white`
/// forces: a model, then each of its order and colour literals tried
/// negated (a literal whose negation is unsatisfiable is forced; a new
/// model drops every literal it disagrees with), then each occupied
/// square's flip events tried together. `None` when the relaxation is
/// infeasible or its first call runs out; each later call gets
/// `conflicts` conflicts of its own.
pub fn forced_facts<G: Geometry>(black: u64, white: u64, conflicts: u64) -> Option<Forced> {
    let centre = centre::<G>();
    if (black | white) & centre != centre || black & white != 0 {
        return None;
    }
    let mut enc = Encoding::new::<G>(black, white, conflicts);
    if !enc.build::<G>() || enc.solver.solve_limited(&[]) != lbool::TRUE {
        return None;
    }
    enum Fact {
        Before(u32, u32),
        Black(u32, bool),
    }
    let sq = enc.squares;
    let placed: Vec<u32> = (0..sq).filter(|&s| enc.occupied >> s & 1 == 1 && !enc.is_centre(s)).collect();
    let mut cands: Vec<(Lit, Fact)> = Vec::new();
    for (i, &a) in placed.iter().enumerate() {
        for &b in &placed[i + 1..] {
            let l = enc.before(a, b);
            if enc.solver.value_lit(l) == lbool::TRUE {
                cands.push((l, Fact::Before(a, b)));
            } else {
                cands.push((!l, Fact::Before(b, a)));
            }
        }
    }
    for &q in &placed {
        let l = enc.placed(q, true);
        if enc.solver.value_lit(l) == lbool::TRUE {
            cands.push((l, Fact::Black(q, true)));
        } else {
            cands.push((!l, Fact::Black(q, false)));
        }
    }
    // which squares the latest model flips (the first model's, then each
    // new one's): read when a model is found, since a solver that has just
    // answered "unsatisfiable" or run out holds none
    let flips_of_model = |enc: &Encoding| -> Vec<bool> {
        (0..sq)
            .map(|s| enc.flips_of[s as usize].iter().any(|&e| enc.solver.value_lit(enc.events[e].lit) == lbool::TRUE))
            .collect()
    };
    let mut model_flips = flips_of_model(&enc);
    let mut out = Forced::default();
    while let Some((l, fact)) = cands.pop() {
        enc.solver.cb_mut().conflicts = 0;
        out.calls += 1;
        let r = enc.solver.solve_limited(&[!l]);
        if r == lbool::FALSE {
            match fact {
                Fact::Before(a, b) => out.before.push((a, b)),
                Fact::Black(q, c) => out.placed_black.push((q, c)),
            }
            enc.solver.add_clause_reuse(&mut vec![l]);
        } else if r == lbool::TRUE {
            let solver = &enc.solver;
            cands.retain(|(x, _)| solver.value_lit(*x) == lbool::TRUE);
            model_flips = flips_of_model(&enc);
        } else {
            out.unknown += 1;
        }
    }
    // squares never flipped, or flipped at least once, each square's
    // events tried together: "never flipped" for a square the latest model
    // leaves alone, "flipped" for the others (in the order the
    // measurements of 2026-12-07 used: the first, then the last, going
    // down)
    let mut open: Vec<u32> = (0..sq).filter(|&s| enc.occupied >> s & 1 == 1).collect();
    while !open.is_empty() {
        let s = open.swap_remove(0);
        let events: Vec<Lit> = enc.flips_of[s as usize].iter().map(|&e| enc.events[e].lit).collect();
        enc.solver.cb_mut().conflicts = 0;
        if !model_flips[s as usize] {
            if events.is_empty() {
                out.never_flipped.push(s);
                continue;
            }
            // can some event flip it?
            let act = enc.var();
            let mut c = vec![!act];
            c.extend(events.iter().copied());
            enc.clause(c);
            out.calls += 1;
            let r = enc.solver.solve_limited(&[act]);
            if r == lbool::FALSE {
                out.never_flipped.push(s);
                enc.clause(vec![!act]);
            } else if r == lbool::TRUE {
                model_flips = flips_of_model(&enc);
            } else {
                out.unknown += 1;
            }
        } else {
            // can every event leave it alone?
            let assume: Vec<Lit> = events.iter().map(|&l| !l).collect();
            out.calls += 1;
            let r = enc.solver.solve_limited(&assume);
            if r == lbool::FALSE {
                out.flipped.push(s);
                enc.clause(events);
            } else if r == lbool::TRUE {
                model_flips = flips_of_model(&enc);
            } else {
                out.unknown += 1;
            }
        }
    }
    Some(out)
}

/// A refutation kept by a [`SharedRelaxation`]: the assumptions its
/// solver found contradictory, as masks. Every board that agrees with
/// them (these squares present, these absent, these black, these white)
/// is infeasible, whatever its other squares.
#[derive(Clone, Copy, Debug)]
struct Core {
    present: u64,
    absent: u64,
    black: u64,
    white: u64,
}

impl Core {
    fn refutes(&self, black: u64, white: u64) -> bool {
        let occupied = black | white;
        self.present & !occupied == 0
            && self.absent & occupied == 0
            && self.black & !black == 0
            && self.white & !white == 0
    }
}

/// The cores a [`SharedRelaxation`] keeps at most: each is four mask tests
/// a query, before the solver.
const CORES_KEPT: usize = 64;

/// The flip-history relaxation of many boards whose occupied squares all
/// lie inside one root board's, from one encoding: the sweep's positions
/// below a dense root (an un-move removes a disc, an un-pass none).
///
/// The encoding is the root's, with a literal "present" per non-centre
/// square and a literal for the colour of each square; a board is asked
/// by assuming them. An event of the root's whose move, run or anchor is
/// absent is then false, an absent square needs no last colour, and its
/// order and placement colour are free (put it last): the clauses left
/// are the board's own encoding, plus literals that are false. So the
/// solver answers each board as [`flip_history`] would, and "infeasible
/// under the assumptions" is a proof. What it learns from one board
/// follows from the clauses alone, so it stays sound for the next.
///
/// Whether a board comes out `Unknown` at a conflict budget depends on
/// what the solver learnt before: give one relaxation the boards of one
/// walk in one order, and the answers are a function of that walk.
pub struct SharedRelaxation {
    enc: Encoding,
    root: u64,
    centre: u64,
    /// The root's occupied squares, with their present literal (none for
    /// the centre) and colour literal.
    squares: Vec<(u32, Option<Lit>, Lit)>,
    assumptions: Vec<Lit>,
    cores: Vec<Core>,
    /// Queries asked, answered by a kept core, answered infeasible by the
    /// solver, and its conflicts in all.
    pub queries: u64,
    pub core_hits: u64,
    pub refuted: u64,
    pub conflicts: u64,
}

impl SharedRelaxation {
    /// The shared encoding of the root board `black`, `white`.
    pub fn new<G: Geometry>(black: u64, white: u64) -> SharedRelaxation {
        let mut enc = Encoding::new::<G>(black, white, 0);
        let squares = G::SQUARES as usize;
        enc.present = vec![None; squares];
        enc.colour = vec![None; squares];
        // the root with a wrong centre or overlapping colours asks
        // nothing of the encoding: every query falls back to `flip_history`
        let centre = centre::<G>();
        let root = if (black | white) & centre == centre && black & white == 0 { black | white } else { centre };
        enc.occupied = root;
        enc.build::<G>();
        let squares = (0..G::SQUARES)
            .filter(|&s| root >> s & 1 == 1)
            .map(|s| (s, enc.present[s as usize], enc.colour[s as usize].expect("a colour literal")))
            .collect();
        SharedRelaxation {
            enc,
            root,
            centre,
            squares,
            assumptions: Vec::new(),
            cores: Vec::new(),
            queries: 0,
            core_hits: 0,
            refuted: 0,
            conflicts: 0,
        }
    }

    /// What the relaxation says of the board `black`, `white` (either side
    /// to move), the solver stopped after `conflicts` conflicts of this
    /// query. A board not inside the root is asked of [`flip_history`].
    pub fn query<G: Geometry>(&mut self, black: u64, white: u64, conflicts: u64) -> Relaxation {
        let occupied = black | white;
        if occupied & !self.root != 0 || occupied & self.centre != self.centre || black & white != 0 {
            return flip_history::<G>(black, white, conflicts);
        }
        let start = Position::<G>::start();
        if black == start.black().0 && white == start.white().0 {
            return Relaxation::Feasible;
        }
        self.queries += 1;
        if self.refuted_by_core(black, white) {
            return Relaxation::Infeasible;
        }
        self.assumptions.clear();
        for &(s, present, colour) in &self.squares {
            let on = occupied >> s & 1 == 1;
            if let Some(a) = present {
                self.assumptions.push(if on { a } else { !a });
            }
            if on {
                self.assumptions.push(if black >> s & 1 == 1 { colour } else { !colour });
            }
        }
        let cb = self.enc.solver.cb_mut();
        cb.conflicts = 0;
        cb.limit = conflicts;
        let result = self.enc.solver.solve_limited(&self.assumptions);
        self.conflicts += self.enc.solver.cb_mut().conflicts;
        if result == lbool::FALSE {
            self.refuted += 1;
            self.keep_core();
            Relaxation::Infeasible
        } else if result == lbool::TRUE {
            Relaxation::Feasible
        } else {
            Relaxation::Unknown
        }
    }

    /// Whether a refutation kept refutes the board `black`, `white` (four
    /// mask tests a core; no solver).
    pub fn refuted_by_core(&mut self, black: u64, white: u64) -> bool {
        let hit = self.cores.iter().any(|c| c.refutes(black, white));
        self.core_hits += u64::from(hit);
        hit
    }

    /// Keeps the last refutation's assumptions as a core, while there is
    /// room: the solver's final conflict holds the negations of the
    /// assumptions it used.
    fn keep_core(&mut self) {
        if self.cores.len() >= CORES_KEPT {
            return;
        }
        let mut core = Core { present: 0, absent: 0, black: 0, white: 0 };
        for &l in self.enc.solver.unsat_core() {
            let assumed = !l;
            for &(s, present, colour) in &self.squares {
                let bit = 1u64 << s;
                if present == Some(assumed) {
                    core.present |= bit;
                } else if present == Some(!assumed) {
                    core.absent |= bit;
                } else if colour == assumed {
                    core.black |= bit;
                } else if colour == !assumed {
                    core.white |= bit;
                }
            }
        }
        // a coloured square is present
        core.present |= core.black | core.white;
        // an empty core would refute every board: the encoding with every
        // square absent is satisfiable, so it cannot come, but never keep one
        if core.present | core.absent != 0 {
            self.cores.push(core);
        }
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

    /// The facts forced on positions of random games hold in the games
    /// that reached them: each placement's turn and colour, and which
    /// squares were flipped, read from the game's successive boards.
    fn forced_facts_hold<G: Geometry>(games: usize, seed: u64) -> usize {
        let start = Position::<G>::start();
        let sq = G::SQUARES as usize;
        let (mut time, mut colour, mut flipped) = (vec![0usize; sq], vec![false; sq], vec![false; sq]);
        let mut prev: Option<Position<G>> = None;
        let mut facts = 0;
        crate::board::random_games::<G>(games, seed, |p| {
            if *p == start {
                (time, colour, flipped) = (vec![0; sq], vec![false; sq], vec![false; sq]);
            } else if let Some(q) = prev.filter(|q| q.discs() < p.discs()) {
                let (was, is) = (q.black().0 | q.white().0, p.black().0 | p.white().0);
                let s = (is & !was).trailing_zeros() as usize;
                time[s] = p.discs() as usize;
                colour[s] = p.black().0 >> s & 1 == 1;
                for (t, f) in flipped.iter_mut().enumerate() {
                    *f |= was >> t & 1 == 1 && (q.black().0 ^ p.black().0) >> t & 1 == 1;
                }
            }
            prev = Some(*p);
            let f = forced_facts::<G>(p.black().0, p.white().0, 100_000).expect("a position of a game is feasible");
            let line = p.line();
            for &(a, b) in &f.before {
                assert!(time[a as usize] < time[b as usize], "{line}: {a} before {b} forced");
            }
            for &(q, black) in &f.placed_black {
                assert_eq!(colour[q as usize], black, "{line}: the colour placed on {q} forced");
            }
            for &s in &f.never_flipped {
                assert!(!flipped[s as usize], "{line}: {s} never flipped forced");
            }
            for &s in &f.flipped {
                assert!(flipped[s as usize], "{line}: {s} flipped forced");
            }
            facts += f.before.len() + f.placed_black.len() + f.never_flipped.len() + f.flipped.len();
        });
        facts
    }

    #[test]
    fn facts_forced_on_positions_of_random_games_hold_in_them() {
        // the counts make sure facts were forced, so that the test tests
        assert!(forced_facts_hold::<B4>(100, 1) > 1000);
        assert!(forced_facts_hold::<B6>(10, 2) > 1000);
        assert!(forced_facts_hold::<B8>(1, 3) > 500);
    }

    /// The same board gives the same facts, found by the same calls, on
    /// every call: a search of the exact encoding with them that resumes
    /// finds them again, and a carry is used only by a formula with the
    /// same clauses.
    #[test]
    fn forced_facts_are_the_same_on_every_call() {
        let mut dense = Vec::new();
        crate::board::random_games::<B8>(1, 5, |p| {
            if p.discs() >= 45 && p.discs() % 10 == 5 {
                dense.push((p.black().0, p.white().0));
            }
        });
        assert!(dense.len() >= 2, "{} positions", dense.len());
        for (b, w) in dense {
            let first = forced_facts::<B8>(b, w, 100_000).expect("a position of a game is feasible");
            assert_eq!(forced_facts::<B8>(b, w, 100_000).as_ref(), Some(&first));
        }
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
