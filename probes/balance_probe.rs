//! Probe: the flip-count balance (src/search/reachable/flip_balance.rs)
//! on 8x8 positions read from stdin, one a line (`reachable`'s notation):
//! its verdict and milliseconds per position, then the count refuted.
//! With `PREDS=1`, on the predecessors of each position instead (its
//! un-moves that pass the cheap conditions: a sweep's first step), how
//! many it refutes, to judge it as a pruning of the sweep's steps, and
//! the positions whose predecessors it refutes all (so unreachable).
//! Usage: [PREDS=1] balance_probe < positions.txt
use othello_census::board::{B8, Position};
use othello_census::search::reachable::flip_balance::{Balance, flip_balance};
use othello_census::search::reachable::{cheap_conditions, predecessors};
use std::io::BufRead;

fn main() {
    let preds = std::env::var("PREDS").is_ok();
    let (mut refuted, mut all, mut every) = (0, 0, 0);
    let t = std::time::Instant::now();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let p = Position::<B8>::parse(&line).unwrap();
        let t1 = std::time::Instant::now();
        if preds {
            let mut out = Vec::new();
            predecessors(&p, &mut out);
            out.retain(|q| cheap_conditions::<B8>(q.black().0, q.white().0));
            let gone =
                out.iter().filter(|q| flip_balance::<B8>(q.black().0, q.white().0) == Balance::Infeasible).count();
            all += out.len();
            refuted += gone;
            // every predecessor refuted: the position itself is unreachable
            every += usize::from(gone == out.len());
            println!(
                "discs={} predecessors {} refuted {gone} {:.1} ms",
                p.discs(),
                out.len(),
                t1.elapsed().as_secs_f64() * 1e3
            );
            continue;
        }
        let v = flip_balance::<B8>(p.black().0, p.white().0);
        all += 1;
        refuted += usize::from(v == Balance::Infeasible);
        println!("discs={} {v:?} {:.1} ms", p.discs(), t1.elapsed().as_secs_f64() * 1e3);
    }
    if preds {
        println!("{every} positions with every predecessor refuted");
    }
    println!("{refuted} of {all} infeasible in {:.1} s", t.elapsed().as_secs_f64());
}
