//! perft: 8x8 to ply 9 (3,005,288 leaves) and the whole 4x4 game.

use criterion::{Criterion, criterion_group, criterion_main};
use othello_census::board::{B4, B8};
use othello_census::search::perft::perft;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.bench_function("8x8 depth 9", |b| b.iter(|| perft::<B8>(9)));
    g.bench_function("4x4 depth 17", |b| b.iter(|| perft::<B4>(17)));
    g.finish();
}

criterion_group!(perft_benches, benches);
criterion_main!(perft_benches);
