//! Probe (issue 25): per layer, the share of uniform candidates (the
//! estimator's proposal) that are joined to the centre, that pass the fill
//! condition (`placeable`), and that pass all three cheap conditions, and
//! the time a draw and its conditions take. Usage: condition_rates 6|8
//! SAMPLES LAYER... (seed 1, the estimator's own generators). On the 2-core
//! AVX-512 EPYC, 2,000,000 draws a layer: see docs/estimate-history.md, "The cheap conditions, measured".
use othello_census::board::{B6, B8};
use othello_census::estimate::{SplitMix, draw};
use othello_census::key::dense::Keyed;
use othello_census::search::reachable::{cheap_conditions, joined_to_centre, placeable};
use std::time::Instant;

fn run<G: Keyed>(samples: u64, layers: &[u32]) {
    println!("discs  joined  placeable  all three  ns a draw");
    for &k in layers {
        let (mut joined, mut filled, mut cheap) = (0u64, 0u64, 0u64);
        let t = Instant::now();
        for i in 0..samples {
            let (b, w, _) = draw::<G>(k, &mut SplitMix::for_sample(1, k, i));
            joined += joined_to_centre::<G>(b | w) as u64;
            if placeable::<G>(b | w) {
                filled += 1;
                cheap += cheap_conditions::<G>(b, w) as u64;
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / samples as f64;
        let share = |x: u64| x as f64 / samples as f64;
        println!("{k:5}  {:.3e}  {:.3e}  {:.3e}  {ns:.0}", share(joined), share(filled), share(cheap));
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let usage = "usage: condition_rates 6|8 SAMPLES LAYER...";
    let samples: u64 = a.get(2).and_then(|s| s.parse().ok()).expect(usage);
    let layers: Vec<u32> = a[3..].iter().map(|s| s.parse().expect(usage)).collect();
    let top = if a[1] == "8" { 64 } else { 36 };
    assert!(layers.iter().all(|&k| (5..=top).contains(&k)), "layers 5 to {top}");
    if a[1] == "8" { run::<B8>(samples, &layers) } else { run::<B6>(samples, &layers) }
}
