//! Probe: the beam alone (the depth-first search given one position) on
//! 8x8 positions read from stdin, one a line (`reachable`'s notation), at
//! each width given. Prints per position the verdict, positions taken and
//! seconds; games found are replayed. Usage: beam_probe FRONTIER BUDGET WIDTH...
//! (BUDGET: the depth-first search's, run first; width 0: no beam)
use othello_census::board::{B8, Position};
use othello_census::search::reachable::{Frontier, Search, SweepRelaxation, Verdict, WithStages};
use std::io::BufRead;

fn main() {
    let mut args = std::env::args().skip(1).map(|s| s.parse::<usize>().unwrap());
    let frontier_discs = args.next().unwrap() as u32;
    let budget = args.next().unwrap() as u64;
    let widths: Vec<usize> = args.collect();
    let frontier = Frontier::<B8>::build(frontier_discs);
    let positions: Vec<Position<B8>> =
        std::io::stdin().lock().lines().map(|l| Position::<B8>::parse(&l.unwrap()).unwrap()).collect();
    for &w in &widths {
        // SWEEP: the sweep's width, tried where the beam gives up (0: none)
        let sweep = std::env::var("SWEEP").map_or(0, |v| v.parse().unwrap());
        // SWEEP_RELAX=calls:step:conflicts: the relaxation inside the sweep
        let relax = std::env::var("SWEEP_RELAX").ok().map(|v| {
            let f: Vec<u64> = v.split(':').map(|x| x.parse().unwrap()).collect();
            SweepRelaxation { calls: f[0], step: f[1] as usize, conflicts: f[2] }
        });
        let mut s = Search::new(&frontier, budget).with_beam(w).with_sweep(sweep).with_sweep_relaxation(relax);
        let (mut found, mut gone, mut gave) = (0, 0, 0);
        let t = std::time::Instant::now();
        for p in &positions {
            let t1 = std::time::Instant::now();
            let v = s.decide(p);
            let word = match &v {
                Verdict::Reachable(g) => {
                    g.replay().expect("the beam's game replays");
                    found += 1;
                    "reachable"
                }
                Verdict::Unreachable => {
                    gone += 1;
                    "unreachable"
                }
                Verdict::Undecided => {
                    gave += 1;
                    "undecided"
                }
            };
            println!(
                "w={w} discs={} {word} {:?} nodes={} {:.2}s",
                p.discs(),
                s.decided_by(),
                s.nodes(),
                t1.elapsed().as_secs_f64()
            );
        }
        println!(
            "width {w}: reachable {found} unreachable {gone} undecided {gave} in {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
}
