//! The flip-count balance: a linear relaxation of a board's history that
//! counts how often each square changed colour, where the flip-history
//! relaxation ([`super::flip_history`]) orders events but keeps only each
//! square's last one. Ishii and Tanaka (Game Programming Workshop 2025)
//! filter with a linear program of this kind; this one is derived and
//! written here from the rules.
//!
//! A game to the board places each non-centre square once, by Black or by
//! White, and each move flips, in each direction, at most one run: the
//! discs from the placed square up to its anchor. The variables, all in
//! `[0, 1]`:
//!
//! - `x[s, c]`: square `s` (not a centre square) was placed by colour `c`;
//!   `x[s, B] + x[s, W] = 1`.
//! - `f[e]`: event `e` happened: the move on `s` by `c` flipped the run
//!   `s + d .. s + k d` and was anchored at `s + (k + 1) d`, every square
//!   of it one that can have been on the board when `s` was played
//!   ([`fillable`] without `s`; the others were filled after `s`).
//!
//! The rows, each met by every game (its placements and events as 0/1):
//!
//! - in each direction, at most one run, and none unless `s` was placed by
//!   `c`: `sum f[e of (s, c, d)] <= x[s, c]`;
//! - a move flips something: `sum f[e of (s, c)] >= x[s, c]`;
//! - **balance**: a square's colour changes alternate, from its placement
//!   (or its start colour) to the colour it shows, `k`: it was turned to
//!   `k` as often as to the other colour, once more when it started as the
//!   other colour. With `F(s, c)` the events that turn `s` to `c`:
//!   `x[s, k] - x[s, !k] + 2 F(s, k) - 2 F(s, !k) = 1`, and on a centre
//!   square `2 F(s, k) - 2 F(s, !k)` is 0 when it started as `k`, else 2;
//! - an anchor held the mover's colour, so was placed so or turned so at
//!   least once: `x[a, c] + F(a, c) >= f[e]` (the start colour counts 1
//!   on a centre square);
//! - of two non-centre squares, one was placed first: the events of the
//!   move on `s` that use `u` (in their run or as anchor) and those of the
//!   move on `u` that use `s` sum to at most 1 (search generation 7).
//!
//! No order, no turns: a board a game makes always has a solution, so an
//! infeasible system proves the board unreachable with either side to
//! move. The solver works in floating point, so its "infeasible" is not
//! taken as it is: a Farkas certificate (multipliers `y` of the rows,
//! non-negative on `>=` rows, non-positive on `<=` rows, such that
//! `sum_j max(0, (yᵀA)_j) < yᵀb`, which no `x` in the unit box can meet)
//! is found by a second linear program, scaled to integers, and checked
//! in exact integer arithmetic. Only a checked certificate refutes.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

use super::conditions::{centre, fillable};
use crate::board::Geometry;

/// What the balance says of a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Balance {
    /// No flip counts balance it, with a certificate checked in integers:
    /// unreachable.
    Infeasible,
    /// A solution exists, or the solver gave no checked certificate:
    /// nothing proven.
    Feasible,
}

/// A row's comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Le,
    Ge,
    Eq,
}

/// One row: `sum coef * var (op) rhs`, small integers throughout.
#[derive(Clone, Debug)]
struct Row {
    terms: Vec<(u32, i32)>,
    op: Op,
    rhs: i32,
}

/// The system of a board: its variables (all in `[0, 1]`) and rows.
#[derive(Clone, Debug, Default)]
struct System {
    vars: u32,
    rows: Vec<Row>,
}

impl System {
    fn var(&mut self) -> u32 {
        self.vars += 1;
        self.vars - 1
    }

    fn row(&mut self, terms: Vec<(u32, i32)>, op: Op, rhs: i32) {
        self.rows.push(Row { terms, op, rhs });
    }
}

/// The step from a square to its neighbour in direction `d` (of the eight
/// (row, column) steps), if on the board.
fn step<G: Geometry>(s: u32, (dr, dc): (i32, i32)) -> Option<u32> {
    let n = G::N as i32;
    let (r, c) = (s as i32 / n + dr, s as i32 % n + dc);
    (0..n).contains(&r).then_some(())?;
    (0..n).contains(&c).then(|| (r * n + c) as u32)
}

const DIRECTIONS: [(i32, i32); 8] = [(0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0), (1, 1)];

/// Colour index: 0 Black, 1 White.
const BLACK: usize = 0;

/// The system of the board (`black`, `white`).
fn system<G: Geometry>(black: u64, white: u64) -> System {
    let occ = black | white;
    let middle = centre(G::N);
    let start_black = crate::board::Position::<G>::start().black().0;
    let mut sys = System::default();
    let squares = G::SQUARES as usize;
    let mut x = vec![[u32::MAX; 2]; squares];
    for (s, xs) in x.iter_mut().enumerate() {
        if occ >> s & 1 == 1 && middle >> s & 1 == 0 {
            let (b, w) = (sys.var(), sys.var());
            *xs = [b, w];
            sys.row(vec![(b, 1), (w, 1)], Op::Eq, 1);
        }
    }
    // events: (variable, colour, anchor); turned_to[s][c]: the events
    // that turn s to c
    let mut events: Vec<(u32, usize, u32)> = Vec::new();
    // used[(s, u)]: the events of the move on s whose run or anchor holds
    // the non-centre square u (so u was placed before s)
    let mut used: std::collections::BTreeMap<(u32, u32), Vec<u32>> = std::collections::BTreeMap::new();
    let mut turned_to: Vec<[Vec<u32>; 2]> = vec![[Vec::new(), Vec::new()]; squares];
    for (s, xs) in x.iter().enumerate() {
        if xs[0] == u32::MAX {
            continue;
        }
        let before = fillable::<G>(occ & !(1u64 << s)) | 1u64 << s;
        for c in 0..2 {
            let mut of_move = Vec::new();
            for d in DIRECTIONS {
                let mut run: Vec<u32> = Vec::new();
                let mut of_direction = Vec::new();
                let mut at = step::<G>(s as u32, d);
                while let Some(q) = at {
                    if before >> q & 1 == 0 {
                        break;
                    }
                    if !run.is_empty() {
                        let v = sys.var();
                        for &r in &run {
                            turned_to[r as usize][c].push(v);
                        }
                        events.push((v, c, q));
                        for &u in run.iter().chain(std::iter::once(&q)) {
                            if middle >> u & 1 == 0 {
                                used.entry((s as u32, u)).or_default().push(v);
                            }
                        }
                        of_direction.push(v);
                    }
                    run.push(q);
                    at = step::<G>(q, d);
                }
                if !of_direction.is_empty() {
                    let mut terms: Vec<(u32, i32)> = of_direction.iter().map(|&v| (v, 1)).collect();
                    terms.push((xs[c], -1));
                    sys.row(terms, Op::Le, 0);
                    of_move.extend(of_direction);
                }
            }
            let mut terms: Vec<(u32, i32)> = of_move.iter().map(|&v| (v, 1)).collect();
            terms.push((xs[c], -1));
            sys.row(terms, Op::Ge, 0);
        }
    }
    for s in 0..squares {
        if occ >> s & 1 == 0 {
            continue;
        }
        let k = if black >> s & 1 == 1 { BLACK } else { 1 - BLACK };
        let mut terms: Vec<(u32, i32)> = Vec::new();
        let mut rhs = 1;
        if middle >> s & 1 == 1 {
            let started = if start_black >> s & 1 == 1 { BLACK } else { 1 - BLACK };
            rhs -= if started == k { 1 } else { -1 };
        } else {
            terms.push((x[s][k], 1));
            terms.push((x[s][1 - k], -1));
        }
        terms.extend(turned_to[s][k].iter().map(|&v| (v, 2)));
        terms.extend(turned_to[s][1 - k].iter().map(|&v| (v, -2)));
        sys.row(terms, Op::Eq, rhs);
    }
    for &(v, c, a) in &events {
        let a = a as usize;
        let mut terms: Vec<(u32, i32)> = turned_to[a][c].iter().map(|&w| (w, 1)).collect();
        terms.push((v, -1));
        let rhs = if middle >> a & 1 == 1 {
            let started = if start_black >> a & 1 == 1 { BLACK } else { 1 - BLACK };
            if started == c { -1 } else { 0 }
        } else {
            terms.push((x[a][c], 1));
            0
        };
        sys.row(terms, Op::Ge, rhs);
    }
    // two moves cannot each use the other's square: one of them was placed
    // first (the events of one move that use a square lie in one
    // direction, so at most one of them happened)
    for (&(s, u), here) in &used {
        if s < u
            && let Some(there) = used.get(&(u, s))
        {
            let terms: Vec<(u32, i32)> = here.iter().chain(there).map(|&v| (v, 1)).collect();
            sys.row(terms, Op::Le, 1);
        }
    }
    sys
}

fn comparison(op: Op) -> ComparisonOp {
    match op {
        Op::Le => ComparisonOp::Le,
        Op::Ge => ComparisonOp::Ge,
        Op::Eq => ComparisonOp::Eq,
    }
}

/// Whether the solver finds the system infeasible (floating point).
fn solver_says_infeasible(sys: &System) -> bool {
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<_> = (0..sys.vars).map(|_| p.add_var(0.0, (0.0, 1.0))).collect();
    for r in &sys.rows {
        let terms: Vec<_> = r.terms.iter().map(|&(v, a)| (vars[v as usize], f64::from(a))).collect();
        p.add_constraint(&terms[..], comparison(r.op), f64::from(r.rhs));
    }
    matches!(p.solve(), Err(microlp::Error::Infeasible))
}

/// The scale of a certificate's multipliers in integers.
const SCALE: f64 = (1u64 << 40) as f64;

/// Multipliers for the rows from the dual program: maximise
/// `yᵀb - sum t_j` with `t_j >= (yᵀA)_j`, `t_j >= 0`, `y` signed by each
/// row's comparison and within `[-1, 1]`; scaled to integers. None when
/// its optimum is not positive or the solver fails.
fn certificate(sys: &System) -> Option<Vec<i64>> {
    let mut p = Problem::new(OptimizationDirection::Maximize);
    let y: Vec<_> = sys
        .rows
        .iter()
        .map(|r| {
            let bounds = match r.op {
                Op::Ge => (0.0, 1.0),
                Op::Le => (-1.0, 0.0),
                Op::Eq => (-1.0, 1.0),
            };
            p.add_var(f64::from(r.rhs), bounds)
        })
        .collect();
    let mut columns: Vec<Vec<(usize, i32)>> = vec![Vec::new(); sys.vars as usize];
    for (i, r) in sys.rows.iter().enumerate() {
        for &(v, a) in &r.terms {
            columns[v as usize].push((i, a));
        }
    }
    for col in &columns {
        let t = p.add_var(-1.0, (0.0, f64::INFINITY));
        let mut terms: Vec<_> = col.iter().map(|&(i, a)| (y[i], -f64::from(a))).collect();
        terms.push((t, 1.0));
        p.add_constraint(&terms[..], ComparisonOp::Ge, 0.0);
    }
    let solution = p.solve().ok()?;
    if solution.objective() <= 1e-9 {
        return None;
    }
    Some(
        sys.rows
            .iter()
            .zip(&y)
            .map(|(r, &v)| {
                let scaled = (*solution.var_value(v) * SCALE).round() as i64;
                match r.op {
                    Op::Ge => scaled.max(0),
                    Op::Le => scaled.min(0),
                    Op::Eq => scaled,
                }
            })
            .collect(),
    )
}

/// Whether multipliers `y` prove the system infeasible, in exact integer
/// arithmetic: signs as the rows require, and the most `yᵀA x` can be over
/// the unit box below `yᵀb`.
fn proves_infeasible(sys: &System, y: &[i64]) -> bool {
    if y.len() != sys.rows.len() {
        return false;
    }
    let mut column = vec![0i128; sys.vars as usize];
    let mut bound = 0i128;
    for (r, &m) in sys.rows.iter().zip(y) {
        let signed_ok = match r.op {
            Op::Ge => m >= 0,
            Op::Le => m <= 0,
            Op::Eq => true,
        };
        if !signed_ok {
            return false;
        }
        for &(v, a) in &r.terms {
            column[v as usize] += i128::from(m) * i128::from(a);
        }
        bound += i128::from(m) * i128::from(r.rhs);
    }
    let most: i128 = column.iter().map(|&c| c.max(0)).sum();
    most < bound
}

/// The flip-count balance of the board (`black`, `white`): infeasible
/// (with a checked certificate) proves it unreachable with either side to
/// move.
pub fn flip_balance<G: Geometry>(black: u64, white: u64) -> Balance {
    let sys = system::<G>(black, white);
    if solver_says_infeasible(&sys) && certificate(&sys).is_some_and(|y| proves_infeasible(&sys, &y)) {
        Balance::Infeasible
    } else {
        Balance::Feasible
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, B8, Position};

    /// Every position of random 6x6 and 8x8 games balances.
    #[test]
    fn positions_of_games_balance() {
        fn games<G: Geometry>(count: usize) -> u64 {
            let mut n = 0;
            crate::board::random_games::<G>(count, 0x5EED, |p: &Position<G>| {
                assert_eq!(flip_balance::<G>(p.black().0, p.white().0), Balance::Feasible, "{}", p.line());
                n += 1;
            });
            n
        }
        assert!(games::<B6>(20) > 500);
        assert!(games::<B8>(4) > 200);
    }

    /// A certificate is checked, not trusted: a wrong sign or a changed
    /// multiplier is refused.
    #[test]
    fn a_certificate_is_checked_in_integers() {
        // x0 + x1 = 1 and x0 + x1 >= 3 over the unit box: y = (-1, 1)
        let sys = System {
            vars: 2,
            rows: vec![
                Row { terms: vec![(0, 1), (1, 1)], op: Op::Eq, rhs: 1 },
                Row { terms: vec![(0, 1), (1, 1)], op: Op::Ge, rhs: 3 },
            ],
        };
        assert!(proves_infeasible(&sys, &[-1, 1]));
        assert!(!proves_infeasible(&sys, &[1, -1]), "a >= row with a negative multiplier");
        assert!(!proves_infeasible(&sys, &[0, 0]));
        assert!(solver_says_infeasible(&sys));
        let y = certificate(&sys).expect("a certificate");
        assert!(proves_infeasible(&sys, &y));
        // x0 + x1 >= 1 alone is feasible: no certificate proves it
        let ok = System { vars: 2, rows: vec![Row { terms: vec![(0, 1), (1, 1)], op: Op::Ge, rhs: 1 }] };
        assert!(!solver_says_infeasible(&ok));
        assert!(certificate(&ok).is_none_or(|y| !proves_infeasible(&ok, &y)));
    }

    /// The start and a reachable board balance. On a 4x4 board with a
    /// Black a1 beside the start's centre, b2 turned Black: the move on a1
    /// (Black's: a corner never turns) could flip only b2, anchored at c3,
    /// which started White and can never turn (no line through it is
    /// filled on both sides): infeasible.
    #[test]
    fn small_boards() {
        let start = Position::<B4>::start();
        assert_eq!(flip_balance::<B4>(start.black().0, start.white().0), Balance::Feasible);
        // reachable after a move and a reply
        let p = start.play(start.legal_moves().iter().next().unwrap());
        let p = p.play(p.legal_moves().iter().next().unwrap());
        assert_eq!(flip_balance::<B4>(p.black().0, p.white().0), Balance::Feasible);
        let q = Position::<B4>::parse("X... .XX. .XO. .... O").unwrap();
        assert_eq!(flip_balance::<B4>(q.black().0, q.white().0), Balance::Infeasible);
        let _ = (B6::N, B8::N);
    }
}
