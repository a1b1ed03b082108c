//! Probe (issue 50): odd-pass 8x8 positions decided from the pass.
//!
//! The games found for dense odd-pass samples have one pass, mostly at
//! 12-18 discs (results/benchmarks/pass-ply-8x8-20261205.txt). Every
//! reachable position of at most K discs whose side to move has no move
//! while the other side has one (a pass position) is enumerated forwards;
//! for a target, each image (under the start's four symmetries) of each
//! such position after its pass, whose discs lie inside the target's and
//! whose corners (never flipped) have the target's colours, is a possible
//! start of the rest of the game, and the exact encoding is asked for a
//! line from it to the target (`exact_line`), CAP conflicts each, the
//! fullest starts first. A line found from a reachable start proves the
//! target reachable; a finder only (a pass later than K discs is not
//! covered, so nothing is proven unreachable).
//!
//! Usage:
//! - `pass_start_probe enum K FILE`: writes to FILE every pass position
//!   after its pass (one class a line) of at most K + 1 discs: those of at
//!   most K from the walk over every reachable class of at most K discs,
//!   those of K + 1 among the children of the walk's K-disc positions.
//! - `pass_start_probe find FILE CAP ROUNDS < positions` (one a line,
//!   `reachable`'s notation): the starts are asked in rounds, CAP
//!   conflicts each in the first and twice the last round's in the next,
//!   a start the solver refuted dropped. Prints per position: discs, the
//!   starts by disc count, then the disc count of the start a line was
//!   found from (or none), starts left open, conflicts, seconds; with
//!   LATE_CAP, where every start was refuted, the games whose passes all
//!   lie on fuller boards than the file's are asked for too
//!   (`exact_late_passes`, LATE_CAP conflicts): with both refuted the
//!   position is unreachable.
use std::io::BufRead;

use othello_census::board::{B8, Position, Status};
use othello_census::key::canonical_key;
use othello_census::search::game_encoding::{Line, Solver, exact_late_passes, exact_line};
use othello_census::symmetry::Symmetry;
use rustc_hash::FxHashSet;

fn enumerate(k: u32, file: &str) {
    let t0 = std::time::Instant::now();
    let start = Position::<B8>::start();
    let mut known = FxHashSet::default();
    known.insert(canonical_key(&start));
    let mut stack = vec![start];
    let mut after_pass: FxHashSet<_> = FxHashSet::default();
    let mut out: Vec<Position<B8>> = Vec::new();
    let mut record = |q: Position<B8>, out: &mut Vec<Position<B8>>| {
        if after_pass.insert(canonical_key(&q)) {
            out.push(q);
        }
    };
    while let Some(p) = stack.pop() {
        if p.status() == Status::Pass {
            record(p.pass(), &mut out);
        }
        for c in p.children() {
            if c.discs() <= k {
                if known.insert(canonical_key(&c)) {
                    stack.push(c);
                }
            } else if c.status() == Status::Pass {
                record(c.pass(), &mut out);
            }
        }
    }
    let mut by_discs = [0usize; 65];
    for q in &out {
        by_discs[q.discs() as usize] += 1;
    }
    eprintln!(
        "{} classes to {k} discs; pass positions {:?}; {:.1} s",
        known.len(),
        by_discs.iter().enumerate().filter(|(_, n)| **n > 0).collect::<Vec<_>>(),
        t0.elapsed().as_secs_f64()
    );
    let text: String = out.iter().map(|q| q.line() + "\n").collect();
    std::fs::write(file, text).unwrap();
}

fn find(file: &str, cap: u64, rounds: u32, late_cap: u64) {
    let after_pass: Vec<Position<B8>> =
        std::fs::read_to_string(file).unwrap().lines().map(|l| Position::<B8>::parse(l).unwrap()).collect();
    let corners = 1u64 | 1 << 7 | 1 << 56 | 1 << 63;
    let covered = after_pass.iter().map(|q| q.discs()).max().unwrap_or(4);
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let target = Position::<B8>::parse(line.trim()).unwrap();
        let t1 = std::time::Instant::now();
        let (tb, tw) = (target.black().0, target.white().0);
        let occ = tb | tw;
        let mut starts: Vec<Position<B8>> = Vec::new();
        for q in &after_pass {
            for s in Symmetry::START {
                let q = s.position(q);
                let (qb, qw) = (q.black().0, q.white().0);
                if (qb | qw) & !occ != 0 || qb & corners & !tb != 0 || qw & corners & !tw != 0 {
                    continue;
                }
                if !starts.contains(&q) {
                    starts.push(q);
                }
            }
        }
        starts.sort_by_key(|q| std::cmp::Reverse(q.discs()));
        let mut counts = [0usize; 65];
        for q in &starts {
            counts[q.discs() as usize] += 1;
        }
        let counts: Vec<_> = counts.iter().enumerate().filter(|(_, n)| **n > 0).collect();
        let mut spent = 0;
        let mut found = None;
        let mut open = starts.clone();
        let mut c = cap;
        'rounds: for _ in 0..rounds {
            let mut next = Vec::new();
            for q in &open {
                let (r, used) = exact_line(q, &target, c, Solver::default());
                spent += used;
                match r {
                    Line::Found(_) => {
                        found = Some(q.discs());
                        break 'rounds;
                    }
                    Line::Unknown => next.push(*q),
                    Line::None => {}
                }
            }
            open = next;
            if open.is_empty() {
                break;
            }
            c *= 2;
        }
        let early = t1.elapsed().as_secs_f64();
        let late = if found.is_none() && late_cap > 0 {
            let t2 = std::time::Instant::now();
            let (r, used) = exact_late_passes(&target, covered, late_cap, Solver::default());
            format!(
                "late {} {} {:.1} s",
                match r {
                    Line::Found(_) => "found",
                    Line::None => "none",
                    Line::Unknown => "unknown",
                },
                used,
                t2.elapsed().as_secs_f64()
            )
        } else {
            String::new()
        };
        println!(
            "{} {} starts {:?} found {:?} open {} conflicts {} {:.1} s {}",
            target.discs(),
            line.trim(),
            counts,
            found,
            if found.is_some() { 0 } else { open.len() },
            spent,
            early,
            late
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args[0].as_str() {
        "enum" => enumerate(args[1].parse().unwrap(), &args[2]),
        "find" => find(
            &args[1],
            args[2].parse().unwrap(),
            args[3].parse().unwrap(),
            args.get(4).map_or(0, |a| a.parse().unwrap()),
        ),
        _ => panic!("enum K FILE | find FILE CAP ROUNDS [LATE_CAP]"),
    }
}
