//! Nodes and time of `solve` on seeded random 6x6 endgames (the same
//! positions every run, so that node counts compare orderings exactly).
//!
//! `cargo run --release --example solve_bench -- [EMPTIES] [COUNT] [THREADS]`
//! (defaults 20, 10, 1).

use std::time::Instant;

use othello_census::board::{B6, Position, Status};
use othello_census::search::solve::solve;

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let empties = *args.first().unwrap_or(&20);
    let count = *args.get(1).unwrap_or(&10);
    let threads = *args.get(2).unwrap_or(&1) as usize;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut nodes, started, mut solved) = (0u64, Instant::now(), 0);
    while solved < count {
        let mut p = Position::<B6>::start();
        let mut over = false;
        while 36 - p.discs() > empties {
            p = match p.status() {
                Status::Moves(m) => {
                    let squares: Vec<u32> = m.iter().collect();
                    p.play(squares[(next() % squares.len() as u64) as usize])
                }
                Status::Pass => p.pass(),
                Status::Terminal => {
                    over = true;
                    break;
                }
            };
        }
        if over || matches!(p.status(), Status::Terminal) {
            continue;
        }
        let s = solve(&p, 256 << 20, threads);
        nodes += s.nodes;
        solved += 1;
        println!("{solved:3}: value {:+3}, {:>12} nodes, {:.3} s", s.value, s.nodes, s.elapsed.as_secs_f64());
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{count} positions of {empties} empties: {nodes} nodes in {secs:.2} s ({:.0} nodes/s)",
        nodes as f64 / secs
    );
}
