//! The DFS census against the naive oracle (every layer of 4x4, 6x6 up to
//! 11 discs), against itself on other thread counts, and against the
//! published 4x4 figures of known-values.md.

mod oracle;

use othello_census::board::{B4, B6, B8};
use othello_census::engine::dfs::{DfsConfig, DfsOutcome, Live, census};
use othello_census::key::Keyed;

fn run<G: Keyed>(max_discs: u32, threads: usize) -> DfsOutcome {
    let config = DfsConfig { threads, max_discs, memory_limit: 1 << 32 };
    census::<G>(&config, &Live::default()).expect("fits")
}

fn compare_with_oracle<G: Keyed>(max_discs: u32) {
    let want = oracle::census(G::N as usize, max_discs as usize);
    let oracle_classes: u64 = want.iter().map(|l| l.classes).sum();
    for threads in [1, 2, 3] {
        let got = run::<G>(max_discs, threads);
        assert_eq!(got.census.layers.len(), (max_discs - 3) as usize);
        for l in &got.census.layers {
            // every field, the terminal positions by disc difference included
            assert_eq!(l.counts, want[l.layer as usize], "layer {} ({threads} threads)", l.layer);
            let o = &l.counts.outcomes;
            assert_eq!(o.total(), l.counts.terminal_positions);
            assert_eq!(o.black_wins() + o.draws() + o.white_wins(), l.counts.terminal_positions);
            assert_eq!(l.games, None, "the DFS engine counts no games");
        }
        // every class the oracle knows is expanded exactly once
        assert_eq!(got.explored, oracle_classes);
    }
}

#[test]
fn dfs_matches_oracle_4x4_every_layer() {
    compare_with_oracle::<B4>(16);
}

#[test]
fn dfs_matches_oracle_6x6_to_11_discs() {
    compare_with_oracle::<B6>(11);
}

#[test]
fn dfs_matches_oracle_8x8_to_10_discs() {
    compare_with_oracle::<B8>(10);
}

#[test]
fn published_4x4_fixed_points() {
    let c = run::<B4>(16, 2).census;
    assert!(c.complete());
    let t = c.totals();
    assert_eq!(t.positions, 62_789);
    assert_eq!(t.boards, 51_943);
    assert_eq!(t.terminal_positions, 6_168);
    assert_eq!(t.terminal_boards, 5_254);
    assert_eq!(t.pass_positions, 8_988);
    assert_eq!(t.classes, 15_856);
    assert_eq!(t.terminal_classes, 1_604);
    let per_layer: Vec<u64> = c.layers.iter().map(|l| l.counts.positions).collect();
    assert_eq!(per_layer, [1, 4, 12, 42, 124, 400, 1124, 2792, 6716, 12442, 17962, 16118, 5052]);
    let terminal: Vec<u64> = c.layers.iter().map(|l| l.counts.terminal_positions).collect();
    assert_eq!(terminal, [0, 0, 0, 0, 0, 0, 4, 4, 10, 80, 208, 810, 5052]);
}

#[test]
fn a_cut_census_is_a_prefix_of_the_full_one() {
    let full = run::<B6>(13, 2).census;
    let cut = run::<B6>(11, 2).census;
    assert!(!cut.complete());
    assert_eq!(&full.layers[..cut.layers.len()], &cut.layers[..]);
}

#[test]
fn memory_limit_stops_the_run() {
    let config = DfsConfig { threads: 2, max_discs: 14, memory_limit: 1 << 20 };
    let err = census::<B6>(&config, &Live::default()).unwrap_err();
    assert!(err.to_string().contains("memory limit"), "{err}");
}
