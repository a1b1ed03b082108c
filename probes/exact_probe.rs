//! Probe (issue 50): the exact game encoding's size, time and conflicts.
//! On positions of random games, by disc count:
//! `cargo run --release --example exact_probe -- SIZE GAMES SEED CONFLICTS [EVERY [SOLVER]]`;
//! on 8x8 positions read from stdin (`reachable`'s notation, one a line):
//! `cargo run --release --example exact_probe -- stdin CONFLICTS [SOLVER [facts]]`
//! (`facts`: with the facts the flip-history relaxation forces added,
//! `game_encoding::exact_game_forced`; the time includes finding them).
//! SOLVER: batsat, cadical, cadical-unsat (the last two with
//! `--features cadical`). The facts the flip-history relaxation forces on
//! 8x8 positions read from stdin (`flip_history::forced_facts`, CONFLICTS
//! a solver call): `cargo run --release --example exact_probe -- forced CONFLICTS`.

use std::io::BufRead;
use std::time::Instant;

use othello_census::board::{B6, B8, Geometry, Position, random_games};
use othello_census::search::game_encoding::{Exact, Solver, encoding_size, exact_game_counted, exact_game_forced};

fn one<G: Geometry>(p: &Position<G>, conflicts: u64, solver: Solver, facts: bool) {
    let (vars, clauses) = encoding_size::<G>(p);
    let t = Instant::now();
    let (r, spent) = if facts {
        exact_game_forced::<G>(p, conflicts, solver)
    } else {
        exact_game_counted::<G>(p, conflicts, solver)
    };
    let verdict = match r {
        Exact::Reachable(_) => "reachable",
        Exact::Unreachable => "UNREACHABLE",
        Exact::Unknown => "unknown",
    };
    println!(
        "{:>2} discs  {:>7} vars {:>8} clauses  {:>9.3} s  {:>9} conflicts  {verdict}",
        p.discs(),
        vars,
        clauses,
        t.elapsed().as_secs_f64(),
        spent
    );
}

fn solver(name: Option<&str>) -> Solver {
    match name {
        None | Some("batsat") => Solver::BatSat,
        #[cfg(feature = "cadical")]
        Some("cadical") => Solver::CaDiCaL,
        #[cfg(feature = "cadical")]
        Some("cadical-unsat") => Solver::CaDiCaLUnsat,
        Some(other) => panic!("no solver {other} in this build"),
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a[1] == "forced" {
        // the facts the flip-history relaxation forces, per position
        let conflicts: u64 = a[2].parse().unwrap();
        for line in std::io::stdin().lock().lines() {
            let p = Position::<B8>::parse(&line.unwrap()).unwrap();
            let t = Instant::now();
            let f = othello_census::search::flip_history::forced_facts::<B8>(p.black().0, p.white().0, conflicts);
            match f {
                Some(f) => println!(
                    "{:>2} discs  {:>5} order facts of {:>5} pairs  {:>2} colours of {:>2}  never flipped {:>2}  flipped {:>2}  {:>5} calls {:>3} unknown  {:>8.3} s",
                    p.discs(),
                    f.before.len(),
                    (p.discs() - 4) * (p.discs() - 5) / 2,
                    f.placed_black.len(),
                    p.discs() - 4,
                    f.never_flipped.len(),
                    f.flipped.len(),
                    f.calls,
                    f.unknown,
                    t.elapsed().as_secs_f64()
                ),
                None => println!("{:>2} discs  no model ({:.3} s)", p.discs(), t.elapsed().as_secs_f64()),
            }
        }
        return;
    }
    if a[1] == "stdin" {
        let conflicts: u64 = a[2].parse().unwrap();
        let solver = solver(a.get(3).map(String::as_str));
        let facts = match a.get(4).map(String::as_str) {
            None => false,
            Some("facts") => true,
            Some(other) => panic!("the fourth argument is `facts` or nothing, not {other}"),
        };
        for line in std::io::stdin().lock().lines() {
            let p = Position::<B8>::parse(&line.unwrap()).unwrap();
            one(&p, conflicts, solver, facts);
        }
        return;
    }
    let size: u32 = a[1].parse().unwrap();
    let games: usize = a[2].parse().unwrap();
    let seed: u64 = a[3].parse().unwrap();
    let conflicts: u64 = a[4].parse().unwrap();
    let every: u32 = a.get(5).map_or(4, |s| s.parse().unwrap());
    let solver = solver(a.get(6).map(String::as_str));
    let run = |size| match size {
        6 => random_games::<B6>(games, seed, |p| {
            if p.discs().is_multiple_of(every) {
                one(p, conflicts, solver, false)
            }
        }),
        8 => random_games::<B8>(games, seed, |p| {
            if p.discs().is_multiple_of(every) {
                one(p, conflicts, solver, false)
            }
        }),
        _ => panic!("6 or 8"),
    };
    run(size);
}
