//! DFS census. Target (issue 3): 6x6 to 16 discs in under 60 s on 2 cores
//! with at most 32 bytes of cache per class; that run takes tens of seconds,
//! so it is here only behind `CENSUS_BENCH_FULL=1`; the default benchmarks
//! are the whole 4x4 game and 6x6 to 14 discs.

use criterion::{Criterion, criterion_group, criterion_main};
use othello_census::board::{B4, B6};
use othello_census::engine::dfs::{DfsConfig, Live, census};
use othello_census::key::Keyed;

fn run<G: Keyed>(max_discs: u32) -> u64 {
    let config = DfsConfig { threads: 2, max_discs, memory_limit: 16 << 30 };
    census::<G>(&config, &Live::default()).unwrap().census.totals().classes
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("dfs census");
    g.sample_size(10);
    g.bench_function("4x4 whole game", |b| b.iter(|| run::<B4>(16)));
    g.bench_function("6x6 to 14 discs", |b| b.iter(|| run::<B6>(14)));
    if std::env::var_os("CENSUS_BENCH_FULL").is_some() {
        g.bench_function("6x6 to 16 discs", |b| b.iter(|| run::<B6>(16)));
    }
    g.finish();
}

criterion_group!(census_benches, benches);
criterion_main!(census_benches);
