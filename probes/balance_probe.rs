//! Probe: the flip-count balance (src/search/reachable/flip_balance.rs) on 8x8
//! positions read from stdin, one a line (`reachable`'s notation): its
//! verdict and milliseconds per position, then the count refuted.
//! Usage: balance_probe < positions.txt
use othello_census::board::{B8, Position};
use othello_census::search::reachable::flip_balance::{Balance, flip_balance};
use std::io::BufRead;

fn main() {
    let (mut refuted, mut all) = (0, 0);
    let t = std::time::Instant::now();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let p = Position::<B8>::parse(&line).unwrap();
        let t1 = std::time::Instant::now();
        let v = flip_balance::<B8>(p.black().0, p.white().0);
        all += 1;
        refuted += u32::from(v == Balance::Infeasible);
        println!("discs={} {v:?} {:.1} ms", p.discs(), t1.elapsed().as_secs_f64() * 1e3);
    }
    println!("{refuted} of {all} infeasible in {:.1} s", t.elapsed().as_secs_f64());
}
