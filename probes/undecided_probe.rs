//! Probe: draws 6x6 candidates of the given layers (estimate's generator),
//! collects those undecided at a small budget, and decides them again at
//! larger budgets (and, given a census work directory, with its stored
//! layer's odd-pass positions, or its whole layer with `whole`). Usage:
//! undecided_probe SEED FROM TO PER_LAYER BUDGET1 BUDGET2 [CENSUS_DIR [whole]]
use othello_census::board::{B6, Bitboard, Color, Position};
use othello_census::estimate::{SplitMix, draw};
use othello_census::search::reachable::{Frontier, LayerHeld, Search, joined_to_centre};

fn main() {
    let a: Vec<u64> = std::env::args().skip(1).take(6).map(|s| s.parse().unwrap()).collect();
    let (seed, from, to, per, b1, b2) = (a[0], a[1] as u32, a[2] as u32, a[3], a[4], a[5]);
    // an optional 7th argument: a census work directory whose stored layer
    // gives the searches at BUDGET2 a census layer (odd-pass positions, or
    // the whole layer with an 8th argument `whole`)
    let census = std::env::args().nth(7);
    let held =
        if std::env::args().nth(8).as_deref() == Some("whole") { LayerHeld::Whole } else { LayerHeld::OddPasses };
    let frontier = Frontier::<B6>::build(14);
    let with_layer = census.map(|dir| {
        let memory =
            othello_census::estimate::census_layer_memory(othello_census::estimate::search_memory::<B6>(14, b2, 1));
        let l = othello_census::estimate::census_layer::<B6>(std::path::Path::new(&dir), 14, held, memory).unwrap();
        eprintln!(
            "census layer ({}): {} of {} classes of {} discs",
            held.name(),
            l.keys.len(),
            l.layer_classes,
            l.discs
        );
        Frontier::<B6>::build(14).with_census_layer(l.discs, l.held, l.keys)
    });
    let large_frontier = with_layer.as_ref().unwrap_or(&frontier);
    let mut small = Search::new(&frontier, b1);
    let mut large = Search::new(large_frontier, b2);
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
