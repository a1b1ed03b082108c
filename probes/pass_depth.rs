//! Probe (issue 50): how far below an odd-pass 8x8 position the first
//! un-pass lies. Reads positions from stdin; walks every predecessor
//! (pruned by the cheap conditions) breadth first, classes merged, up to
//! DEPTH steps or WIDTH positions a step, and prints per step the
//! positions held and how many of them have an un-pass.
//! Usage: pass_depth DEPTH WIDTH < positions
use othello_census::board::{B8, Position};
use othello_census::search::reachable::predecessors;
use std::collections::HashSet;
use std::io::BufRead;

fn main() {
    let mut args = std::env::args().skip(1).map(|s| s.parse::<usize>().unwrap());
    let depth = args.next().unwrap();
    let width = args.next().unwrap();
    for line in std::io::stdin().lock().lines() {
        let p = Position::<B8>::parse(&line.unwrap()).unwrap();
        let mut step = vec![p];
        let mut out = Vec::new();
        let mut report = format!("discs={}", p.discs());
        for d in 1..=depth {
            let mut next = Vec::new();
            let mut seen = HashSet::new();
            let mut passes = 0;
            for q in &step {
                out.clear();
                predecessors(q, &mut out);
                for r in &out {
                    if r.black() == q.black() && r.white() == q.white() {
                        passes += 1;
                    }
                    if seen.insert((r.black().0, r.white().0, r.side_to_move() as u8)) && next.len() < width {
                        next.push(*r);
                    }
                }
            }
            report += &format!(" d{d}:{}/{passes}", next.len());
            step = next;
            if step.is_empty() {
                break;
            }
        }
        println!("{report}");
    }
}
