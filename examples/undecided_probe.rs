//! Probe: draws 6x6 candidates of the given layers (estimate's generator),
//! collects those undecided at a small budget, and decides them again at
//! larger budgets. Usage: undecided_probe SEED FROM TO PER_LAYER BUDGET1 BUDGET2
use othello_census::board::{B6, Bitboard, Color, Position};
use othello_census::estimate::{SplitMix, draw};
use othello_census::search::reachable::{Frontier, Search, joined_to_centre};

fn main() {
    let a: Vec<u64> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let (seed, from, to, per, b1, b2) = (a[0], a[1] as u32, a[2] as u32, a[3], a[4], a[5]);
    let frontier = Frontier::<B6>::build(14);
    let mut small = Search::new(&frontier, b1);
    let mut large = Search::new(&frontier, b2);
    for discs in from..=to {
        let (mut r, mut u, mut und, mut later) = (0, 0, 0, [0u32; 3]);
        let t = std::time::Instant::now();
        for i in 0..per {
            let mut rng = SplitMix::for_sample(seed, discs, i);
            let (b, w, btm) = draw::<B6>(discs, &mut rng);
            if !joined_to_centre::<B6>(b | w) {
                continue;
            }
            let p =
                Position::<B6>::from_colors(Bitboard(b), Bitboard(w), if btm { Color::Black } else { Color::White })
                    .unwrap();
            match small.is_reachable(&p) {
                Some(true) => r += 1,
                Some(false) => u += 1,
                None => {
                    und += 1;
                    // parity: with no pass, Black moves when discs is even
                    let right = (discs % 2 == 0) == (p.side_to_move() == Color::Black);
                    eprintln!("und {discs} right_parity={right}");
                    match large.is_reachable(&p) {
                        Some(true) => {
                            later[0] += 1;
                            eprintln!("  -> reachable");
                        }
                        Some(false) => {
                            later[1] += 1;
                            eprintln!("  -> unreachable");
                        }
                        None => {
                            later[2] += 1;
                            eprintln!("undecided {discs}: {}", p);
                        }
                    }
                }
            }
        }
        println!(
            "{discs}: joined-reachable {r} unreachable {u} undecided {und} -> at {b2}: reachable {} unreachable {} undecided {}  ({:.1} s)",
            later[0],
            later[1],
            later[2],
            t.elapsed().as_secs_f64()
        );
    }
}
