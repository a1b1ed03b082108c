//! Probe (issue 50): does a search of the exact encoding resume from the
//! clauses it learned ([`exact_game_resumed`]'s carry)? Positions from
//! stdin (8x8, `reachable`'s notation, one a line):
//! `cargo run --release --features cadical --example carry_probe -- LIMIT PARTS`
//! For each position: one search to a verdict within LIMIT conflicts (X
//! spent), then the same position in PARTS searches of X/PARTS conflicts
//! each, every one resuming from the carry of the one before, until a
//! verdict (Y spent in all).

use std::io::BufRead;
use std::time::Instant;

use othello_census::board::{B8, Position};
use othello_census::search::game_encoding::{Exact, Solver, exact_game_resumed};

fn name(e: &Exact<B8>) -> &'static str {
    match e {
        Exact::Reachable(_) => "reachable",
        Exact::Unreachable => "unreachable",
        Exact::Unknown => "unknown",
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let limit: u64 = a[1].parse().unwrap();
    let parts: u64 = a[2].parse().unwrap();
    let solver = Solver::default();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let p = Position::<B8>::parse(&line).unwrap();
        let t = Instant::now();
        let (r, x, _) = exact_game_resumed::<B8>(&p, limit, solver, None, None);
        let tx = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut carry = None;
        let mut y = 0;
        let mut searches = 0;
        let verdict = loop {
            searches += 1;
            let part = (x / parts).max(1) * searches;
            let (v, spent, c) = exact_game_resumed::<B8>(&p, part.min(limit), solver, None, carry.as_ref());
            y += spent;
            if !matches!(v, Exact::Unknown) || part >= limit {
                break v;
            }
            carry = c;
        };
        let clauses = carry.as_ref().map_or(0, |c| c.clause_count());
        println!(
            "{:>2} discs  whole: {} {x} ({tx:.1} s)  in parts: {} {y} ({:.1} s, {searches} searches, last carry {clauses} clauses)  Y/X {:.2}  {line}",
            p.discs(),
            name(&r),
            name(&verdict),
            t.elapsed().as_secs_f64(),
            y as f64 / x as f64
        );
    }
}
