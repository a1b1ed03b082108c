//! The layered engine against the DFS census, the oracle, perft and the
//! published sequences; under tiny memory and odd partition counts.

mod oracle;

use std::sync::atomic::AtomicBool;

use othello_census::board::{B4, B6, B8};
use othello_census::census::{LayerBy, LayerCounts};
use othello_census::engine::dfs::{DfsConfig, Live, census};
use othello_census::engine::layers::{CompactionMode, LayersLive, LayersOutcome, LayersPlan, LayersSettings, start};
use othello_census::key::Keyed;
use othello_census::search::perft::perft;

fn layered<G: Keyed>(by: LayerBy, limit: u32, partitions: u32, memory: u64) -> Vec<LayerCounts> {
    run::<G>(by, limit, partitions, &LayersSettings::new(2, memory)).census.layers
}

fn run<G: Keyed>(by: LayerBy, limit: u32, partitions: u32, settings: &LayersSettings) -> LayersOutcome {
    let dir = tempfile::tempdir().unwrap();
    let plan = LayersPlan {
        by,
        limit,
        partitions,
        work_dir: dir.path().join("work"),
        command: "test".into(),
        started_unix: 0,
    };
    let never = AtomicBool::new(false);
    start::<G>(&plan, settings, &never, &LayersLive::default()).unwrap()
}

/// Settings that compact every bucket as soon as it holds two runs of
/// more than half its compacted bytes, and count the last layer unstored.
fn lean(memory: u64) -> LayersSettings {
    LayersSettings {
        compaction: CompactionMode::Always,
        compact_min_bytes: 0,
        store_last: false,
        ..LayersSettings::new(2, memory)
    }
}

/// Both engines give identical per-layer records, boards included, and
/// equal the oracle's, under several partition counts and memory limits,
/// with buckets compacted and the last layer counted unstored, whole or in
/// slices.
fn compare_with_dfs<G: Keyed>(max_discs: u32) {
    let dfs = census::<G>(&DfsConfig { threads: 2, max_discs, memory_limit: 1 << 32 }, &Live::default()).unwrap();
    let oracle = oracle::census(G::N as usize, max_discs as usize);
    let mut runs: Vec<(String, Vec<LayerCounts>)> = Vec::new();
    for (partitions, memory) in [(16, 1u64 << 30), (7, 1 << 16), (1, 1 << 20)] {
        runs.push((format!("{partitions} partitions"), layered::<G>(LayerBy::Discs, max_discs, partitions, memory)));
    }
    let lean_run = run::<G>(LayerBy::Discs, max_discs, 7, &lean(1 << 16));
    assert!(!lean_run.last_layer_stored);
    let compactions: u64 = lean_run.phases.iter().map(|p| p.compactions).sum();
    assert!(compactions > 0, "the lean run compacts buckets");
    runs.push(("compacted, last layer unstored".into(), lean_run.census.layers));
    for slices in [2, 7] {
        let sliced = run::<G>(LayerBy::Discs, max_discs, 7, &LayersSettings { slices: Some(slices), ..lean(1 << 16) });
        runs.push((format!("last layer in {slices} slices"), sliced.census.layers));
    }
    for (what, lay) in &runs {
        assert_eq!(lay.len(), dfs.census.layers.len());
        for (l, d) in lay.iter().zip(&dfs.census.layers) {
            assert_eq!((l.layer, l.counts), (d.layer, d.counts), "layer {} ({what})", d.layer);
            assert_eq!(l.counts, oracle[d.layer as usize], "layer {}", d.layer);
            assert!(l.games.is_some(), "the layered engine counts games");
        }
        assert_eq!(lay, &runs[0].1, "{what}: games differ");
    }
}

#[test]
fn equals_dfs_and_oracle_4x4_every_layer() {
    compare_with_dfs::<B4>(16);
    // and every game ends: 60,060 complete games
    let lay = layered::<B4>(LayerBy::Discs, 16, 5, 1 << 20);
    assert_eq!(lay.iter().map(|s| s.games.unwrap().ended).sum::<u128>(), 60_060);
}

#[test]
fn equals_dfs_and_oracle_6x6_to_12_discs() {
    compare_with_dfs::<B6>(12);
}

#[test]
fn by_ply_reproduces_a124004_and_a124005_on_8x8() {
    let lay = layered::<B8>(LayerBy::Ply, 9, 16, 1 << 30);
    let a124005: Vec<u64> = lay[1..].iter().map(|s| s.counts.positions).collect();
    assert_eq!(a124005, [4, 12, 54, 236, 1288, 7092, 42614, 269352, 1743560]);
    let a124004: Vec<u128> = lay.iter().map(|s| s.games.unwrap().games).collect();
    assert_eq!(a124004, othello_census::published::A124004[..=9]);
    // on 4x4 the two game conventions part at ply 8: `games` drops ended
    // games, `games_including_ended` keeps them (swapping them fails here)
    let four = layered::<B4>(LayerBy::Ply, 16, 3, 1 << 20);
    let games: Vec<u128> = four.iter().map(|s| s.games.unwrap().games).collect();
    let kept: Vec<u128> = four.iter().map(|s| s.games.unwrap().games_including_ended).collect();
    assert_eq!(games, othello_census::published::GAMES_4X4);
    assert_eq!(kept, othello_census::published::GAMES_INCLUDING_ENDED_4X4);
    // a tiny memory and another partition count change nothing, nor do
    // compactions and a last layer counted unstored
    assert_eq!(layered::<B8>(LayerBy::Ply, 9, 3, 1 << 18), lay);
    assert_eq!(run::<B8>(LayerBy::Ply, 9, 3, &lean(1 << 18)).census.layers, lay);
}

#[test]
fn games_by_ply_equal_perft() {
    fn check<G: Keyed>(plies: u32) {
        let lay = layered::<G>(LayerBy::Ply, plies, 5, 1 << 20);
        let p = perft::<G>(plies);
        assert_eq!(othello_census::search::perft::hashed::perft_hashed::<G>(plies, 1 << 28).0, p);
        for (s, r) in lay[1..].iter().zip(&p) {
            let g = s.games.unwrap();
            assert_eq!((s.layer, g.games, g.passes), (r.ply, r.games, r.passes));
            assert_eq!(g.games_including_ended, r.games_including_ended);
        }
    }
    check::<B4>(17);
    check::<B6>(10);
    check::<B8>(8);
}

#[test]
fn four_by_four_by_ply_matches_known_values() {
    let lay = layered::<B4>(LayerBy::Ply, 256, 4, 1 << 20);
    let dropped: Vec<u128> = lay[1..17].iter().map(|s| s.games.unwrap().games).collect();
    assert_eq!(dropped, [4, 12, 44, 128, 424, 1256, 3624, 9112, 20032, 36412, 50268, 55112, 31396, 12920, 3416, 612]);
    // the run stops by itself once every game has ended (17 plies)
    assert_eq!(lay.last().unwrap().layer, 17);
    assert_eq!(lay.iter().map(|s| s.games.unwrap().ended).sum::<u128>(), 60_060);
}

#[test]
fn a_pass_and_its_twin_share_a_disc_layer() {
    // 4x4 by discs: the games entering each layer, summed with those that
    // ended before, reach 60,060 at the full board
    let lay = layered::<B4>(LayerBy::Discs, 16, 16, 1 << 30);
    let ended_before: u128 = lay[..lay.len() - 1].iter().map(|s| s.games.unwrap().ended).sum();
    assert_eq!(lay.last().unwrap().games.unwrap().games + ended_before, 60_060);
}

#[test]
fn an_interrupted_merge_keeps_its_finished_partitions() {
    use othello_census::engine::layers::resume;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    let want = layered::<B6>(LayerBy::Discs, 13, 16, 1 << 30);
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let plan = LayersPlan {
        by: LayerBy::Discs,
        limit: 13,
        partitions: 128,
        work_dir: work.clone(),
        command: "t".into(),
        started_unix: 0,
    };
    let settings = LayersSettings::new(1, 1 << 20);
    let stop = AtomicBool::new(false);
    let live = LayersLive::default();
    let first = std::thread::scope(|s| {
        let h = s.spawn(|| start::<B6>(&plan, &settings, &stop, &live));
        let t0 = Instant::now();
        // stop once a few partitions of the merge that builds layer 13 are done
        while !h.is_finished() && t0.elapsed() < Duration::from_secs(60) {
            if live.layer.load(Ordering::Relaxed) == 13
                && live.phase.load(Ordering::Relaxed) == 1
                && live.parts_done.load(Ordering::Relaxed) >= 3
            {
                stop.store(true, Ordering::SeqCst);
                break;
            }
            std::hint::spin_loop();
        }
        h.join().unwrap()
    });
    assert!(first.is_err(), "the run ended before the merge could be interrupted");
    let parts = work.join("layer-013");
    let before: Vec<(std::path::PathBuf, std::time::SystemTime)> = std::fs::read_dir(&parts)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".lyr"))
        .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
        .collect();
    assert!(before.len() >= 3 && before.len() < 128, "{} parts", before.len());
    let never = AtomicBool::new(false);
    let done = resume::<B6>(&work, None, &settings, &never, &LayersLive::default()).unwrap();
    assert_eq!(done.census.layers, want);
    for (path, modified) in before {
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), modified, "{} was rebuilt", path.display());
    }
}

/// The oracle's games reaching every position, layer by layer.
fn oracle_paths<G: Keyed>(by: LayerBy, limit: u32) -> Vec<std::collections::HashMap<oracle::Naive, u64>> {
    match by {
        LayerBy::Ply => oracle::paths_by_ply(G::N as usize, limit as usize),
        LayerBy::Discs => oracle::paths_by_discs(G::N as usize, limit as usize),
    }
}

/// The columns made from path counts equal the oracle's, by ply and by
/// discs, with 1, 5 and 7 partitions: the positions by the games that reach
/// them (and so the positions reached by exactly one game, OEIS A124006 by
/// ply on 8x8; by ply their games add up to the layer's games), and the
/// shapes (sets of occupied squares) with those reached by exactly one game
/// (OEIS A125528 and A125529 by ply on 8x8).
#[test]
fn path_columns_equal_the_oracle() {
    fn check<G: Keyed>(by: LayerBy, limit: u32) {
        let want = oracle_paths::<G>(by, limit);
        for partitions in [1, 5, 7] {
            for l in layered::<G>(by, limit, partitions, 1 << 20) {
                let at = format!("{}x{} by {by:?}, layer {}, {partitions} partitions", G::N, G::N, l.layer);
                let g = l.games.unwrap();
                let oracle = oracle::spread(&want[l.layer as usize]);
                let got: Vec<(u32, u64, u128)> = g.spread.buckets().collect();
                assert_eq!(got, oracle, "{at}");
                assert_eq!(g.spread.unique(), oracle.first().filter(|b| b.0 == 0).map_or(0, |b| b.1));
                assert_eq!(g.spread.totals().0, l.counts.positions);
                if by == LayerBy::Ply {
                    assert_eq!(g.spread.totals().1, g.games);
                }
                assert_eq!((g.shapes, g.shapes_unique), oracle::shapes(&want[l.layer as usize]), "{at}");
            }
        }
    }
    check::<B4>(LayerBy::Ply, 18);
    check::<B4>(LayerBy::Discs, 16);
    check::<B6>(LayerBy::Ply, 8);
    check::<B6>(LayerBy::Discs, 10);
    check::<B8>(LayerBy::Ply, 7);
    check::<B8>(LayerBy::Discs, 9);
    // the published a(1..9) on 8x8
    let lay = layered::<B8>(LayerBy::Ply, 9, 16, 1 << 30);
    let column = |f: fn(&othello_census::census::Games) -> u128| -> Vec<u128> {
        lay[1..].iter().map(|l| f(&l.games.unwrap())).collect()
    };
    assert_eq!(column(|g| g.spread.unique() as u128), othello_census::published::A124006);
    assert_eq!(column(|g| g.shapes as u128), othello_census::published::A125528);
    assert_eq!(column(|g| g.shapes_unique as u128), othello_census::published::A125529);
    // the last layer counted while merged, never stored, and a tiny memory
    assert_eq!(run::<B8>(LayerBy::Ply, 9, 3, &lean(1 << 18)).census.layers, lay);
}
