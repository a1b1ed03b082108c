//! Move generation, flips and canonical keys on positions from real games.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use othello_census::board::{B6, B8, Position};
use othello_census::key::Keyed;
use othello_census::key::canonical_and_orbit;

/// Positions from a deterministic walk down the tree (first, last, middle
/// move in turn), a few of every depth.
fn sample<G: Keyed>() -> Vec<Position<G>> {
    let mut out = Vec::new();
    let mut frontier = vec![Position::<G>::start()];
    for _ in 0..G::SQUARES {
        let mut next = Vec::new();
        for p in &frontier {
            let kids = p.children();
            for k in kids.iter().step_by(kids.len().div_ceil(2).max(1)) {
                next.push(*k);
            }
        }
        next.truncate(64);
        out.extend(&next);
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    out
}

fn bench<G: Keyed>(c: &mut Criterion, name: &str) {
    let ps = sample::<G>();
    c.bench_function(&format!("{name}/legal_moves x{}", ps.len()), |b| {
        b.iter(|| ps.iter().map(|p| black_box(p).legal_moves().count()).sum::<u32>())
    });
    c.bench_function(&format!("{name}/play_all x{}", ps.len()), |b| {
        b.iter(|| {
            ps.iter().map(|p| p.legal_moves().iter().map(|sq| black_box(p).play(sq).discs()).sum::<u32>()).sum::<u32>()
        })
    });
    c.bench_function(&format!("{name}/canonical_key x{}", ps.len()), |b| {
        b.iter(|| ps.iter().map(|p| canonical_and_orbit(black_box(p)).1).sum::<u32>())
    });
}

fn benches(c: &mut Criterion) {
    bench::<B8>(c, "8x8");
    bench::<B6>(c, "6x6");
}

criterion_group!(movegen, benches);
criterion_main!(movegen);
