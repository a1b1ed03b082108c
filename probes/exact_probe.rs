//! Probe (issue 50): the exact game encoding's size and time on positions
//! of random games, by disc count.
//! `cargo run --release --example exact_probe -- SIZE GAMES SEED CONFLICTS`

use std::time::Instant;

use othello_census::board::{B6, B8, Geometry, random_games};
use othello_census::search::game_encoding::{Exact, Solver, encoding_size, exact_game_with};

fn run<G: Geometry>(games: usize, seed: u64, conflicts: u64, every: u32, solver: Solver) {
    random_games::<G>(games, seed, |p: &othello_census::board::Position<G>| {
        if !p.discs().is_multiple_of(every) {
            return;
        }
        let (vars, clauses) = encoding_size::<G>(p);
        let t = Instant::now();
        let r = exact_game_with::<G>(p, conflicts, solver);
        let verdict = match r {
            Exact::Reachable(_) => "reachable",
            Exact::Unreachable => "UNREACHABLE",
            Exact::Unknown => "unknown",
        };
        println!(
            "{:>2} discs  {:>7} vars {:>8} clauses  {:>9.3} s  {verdict}",
            p.discs(),
            vars,
            clauses,
            t.elapsed().as_secs_f64()
        );
    });
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let size: u32 = a[1].parse().unwrap();
    let games: usize = a[2].parse().unwrap();
    let seed: u64 = a[3].parse().unwrap();
    let conflicts: u64 = a[4].parse().unwrap();
    let every: u32 = a.get(5).map_or(4, |s| s.parse().unwrap());
    let solver = match a.get(6).map(String::as_str) {
        #[cfg(feature = "cadical")]
        Some("cadical") => Solver::CaDiCaL,
        _ => Solver::BatSat,
    };
    match size {
        6 => run::<B6>(games, seed, conflicts, every, solver),
        8 => run::<B8>(games, seed, conflicts, every, solver),
        _ => panic!("6 or 8"),
    }
}
