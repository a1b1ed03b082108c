//! Probe: how much the flip-history relaxation would prune the first
//! steps of the sweep on dense 8x8 positions (stdin, one a line). Walks
//! the predecessors breadth-first, a step at a time, deduplicated by
//! canonical key and pruned by the cheap conditions (as the sweep), and
//! at each step tries the relaxation (CONFLICTS) on every position: prints
//! the step's size, the share the relaxation proves infeasible and its
//! time, and the size of the next step taken from the feasible ones only.
//! Usage: sweep_relax STEPS CONFLICTS
use othello_census::board::{B8, Position};
use othello_census::key::canonical_key;
use othello_census::search::flip_history::{Relaxation, flip_history};
use othello_census::search::reachable::{cheap_conditions, predecessors};
use std::collections::HashSet;
use std::io::BufRead;

fn step(from: &[Position<B8>]) -> Vec<Position<B8>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut preds = Vec::new();
    for p in from {
        preds.clear();
        predecessors(p, &mut preds);
        for q in &preds {
            if cheap_conditions::<B8>(q.black().0, q.white().0) && seen.insert(canonical_key(q)) {
                out.push(*q);
            }
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1).map(|s| s.parse::<u64>().unwrap());
    let steps = args.next().unwrap() as usize;
    let conflicts = args.next().unwrap();
    for line in std::io::stdin().lock().lines() {
        let p = Position::<B8>::parse(&line.unwrap()).unwrap();
        let (mut plain, mut pruned) = (vec![p], vec![p]);
        let mut row = format!("{:2} discs:", (p.black().0 | p.white().0).count_ones());
        for _ in 0..steps {
            plain = step(&plain);
            let next = step(&pruned);
            let t = std::time::Instant::now();
            let kept: Vec<_> = next
                .iter()
                .filter(|q| flip_history::<B8>(q.black().0, q.white().0, conflicts) != Relaxation::Infeasible)
                .copied()
                .collect();
            let ms = t.elapsed().as_secs_f64() * 1e3 / next.len().max(1) as f64;
            row.push_str(&format!(" {}/{}->{} ({:.2} ms)", plain.len(), next.len(), kept.len(), ms));
            pruned = kept;
            if plain.len() > 300_000 || pruned.len() > 5_000 || pruned.is_empty() {
                break;
            }
        }
        println!("{row}");
        std::io::Write::flush(&mut std::io::stdout()).unwrap();
    }
}
