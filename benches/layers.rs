//! Layered engine. Targets (issue 5), measured by the commands in results/benchmarks/README.md:
//! 8x8 `--by ply --plies 12` under 60 s and 4 GB; 6x6 `--max-discs 17`
//! under 5 minutes. Those take minutes, so the default benchmarks here are
//! small: 8x8 to ply 9 and 6x6 to 13 discs, each in a fresh work directory.

use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use othello_census::board::{B6, B8, random_games};
use othello_census::census::LayerBy;
use othello_census::engine::layers::{LayersLive, LayersPlan, LayersSettings, start};
use othello_census::key::Keyed;
use othello_census::key::dense::{pack, unpack};

fn run<G: Keyed>(by: LayerBy, limit: u32) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let plan = LayersPlan {
        by,
        limit,
        partitions: 16,
        work_dir: dir.path().join("w"),
        command: "bench".into(),
        started_unix: 0,
    };
    let settings = LayersSettings::new(2, 1 << 30);
    let never = AtomicBool::new(false);
    start::<G>(&plan, &settings, &never, &LayersLive::default()).unwrap().census.layers.last().unwrap().counts.classes
}

/// The dense keys of every position of `games` random games.
fn game_keys<G: Keyed>(games: usize) -> Vec<G::Key> {
    let mut keys = Vec::new();
    random_games::<G>(games, 0x2545_F491_4F6C_DD1D, |p| keys.push(pack(p)));
    keys
}

/// Unpacking keys (each class of a layer is unpacked when it is expanded
/// or counted): the nanoseconds a key, over the positions of whole games.
fn unpacking(c: &mut Criterion) {
    fn bench<G: Keyed>(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str) {
        let keys = game_keys::<G>(2_000);
        g.throughput(criterion::Throughput::Elements(keys.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                keys.iter().map(|&k| unpack::<G>(std::hint::black_box(k)).unwrap().black().0).fold(0, |a, b| a ^ b)
            })
        });
    }
    let mut g = c.benchmark_group("keys");
    bench::<B6>(&mut g, "unpack 6x6");
    bench::<B8>(&mut g, "unpack 8x8");
    g.finish();
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("layers");
    g.sample_size(10);
    g.bench_function("8x8 by ply to 9", |b| b.iter(|| run::<B8>(LayerBy::Ply, 9)));
    g.bench_function("6x6 by discs to 13", |b| b.iter(|| run::<B6>(LayerBy::Discs, 13)));
    g.finish();
}

criterion_group!(layer_benches, unpacking, benches);
criterion_main!(layer_benches);
