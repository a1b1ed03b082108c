//! Probe: how much the flip-history relaxation would prune the first
//! steps of the sweep on dense 8x8 positions (stdin, one a line). Walks
//! the predecessors breadth-first, a step at a time, deduplicated by
//! canonical key and pruned by the cheap conditions (as the sweep), and
//! at each step tries the relaxation (CONFLICTS) on every position: prints
//! the step's size, the share the relaxation proves infeasible and its
//! time, and the size of the next step taken from the feasible ones only.
//! Usage: sweep_relax STEPS CONFLICTS [shared]
//! `shared`: one `SharedRelaxation` per line, rooted at the line's
//! position, asked every position in step order (the sweep's use); the
//! line ends with the build's time, the queries, those a kept core
//! answered, and the conflicts. CHECK=1 (with `shared`): every position
//! is also asked of `flip_history` at 100,000 conflicts, and a shared
//! "infeasible" that the fresh call finds feasible is counted (must be 0).
use othello_census::board::{B8, Position};
use othello_census::key::canonical_key;
use othello_census::search::flip_history::{Relaxation, SharedRelaxation, flip_history};
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let steps: usize = args[0].parse().unwrap();
    let conflicts: u64 = args[1].parse().unwrap();
    let shared = args.get(2).is_some_and(|a| a == "shared");
    let check = std::env::var("CHECK").is_ok_and(|v| v == "1");
    for line in std::io::stdin().lock().lines() {
        let p = Position::<B8>::parse(&line.unwrap()).unwrap();
        let (mut plain, mut pruned) = (vec![p], vec![p]);
        let mut row = format!("{:2} discs:", (p.black().0 | p.white().0).count_ones());
        let t = std::time::Instant::now();
        let mut rel = shared.then(|| SharedRelaxation::new::<B8>(p.black().0, p.white().0));
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut disagree = 0;
        for _ in 0..steps {
            plain = step(&plain);
            let next = step(&pruned);
            let t = std::time::Instant::now();
            let mut kept = Vec::new();
            for q in &next {
                let (b, w) = (q.black().0, q.white().0);
                let r = match rel.as_mut() {
                    Some(rel) => rel.query::<B8>(b, w, conflicts),
                    None => flip_history::<B8>(b, w, conflicts),
                };
                if r != Relaxation::Infeasible {
                    kept.push(*q);
                }
            }
            let ms = t.elapsed().as_secs_f64() * 1e3 / next.len().max(1) as f64;
            if check && shared {
                for q in &next {
                    let infeasible = !kept.contains(q);
                    if infeasible && flip_history::<B8>(q.black().0, q.white().0, 100_000) == Relaxation::Feasible {
                        disagree += 1;
                    }
                }
            }
            row.push_str(&format!(" {}/{}->{} ({:.2} ms)", plain.len(), next.len(), kept.len(), ms));
            pruned = kept;
            if plain.len() > 300_000 || pruned.len() > 5_000 || pruned.is_empty() {
                break;
            }
        }
        if let Some(rel) = &rel {
            row.push_str(&format!(
                " | build {build_ms:.1} ms, {} queries, {} by cores, {} refuted, {} conflicts",
                rel.queries, rel.core_hits, rel.refuted, rel.conflicts
            ));
        }
        if check {
            row.push_str(&format!(", disagreements {disagree}"));
        }
        println!("{row}");
        std::io::Write::flush(&mut std::io::stdout()).unwrap();
    }
}
