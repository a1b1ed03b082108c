//! Runs focused on terminal positions (`estimate --focus terminal`): they
//! decide only terminal candidates, so their terminal figure must be the
//! one a run of every sample gives for the same draws, their positions
//! only bounded above; the catalogue pools them into terminal positions
//! only, under seeds of their own.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use othello_census::board::{B4, B6};
use othello_census::estimate::{EstimateConfig, EstimateLive, Focus, LayerEstimate, SearchLimits, estimate_on};
use othello_census::key::Keyed;
use othello_census::search::reachable::Frontier;
use serde_json::Value;

fn config(layer: u32, samples: u64, seed: u64, budget: u64, focus: Focus) -> EstimateConfig {
    EstimateConfig {
        layers: vec![layer],
        samples: Some(samples),
        time: None,
        seed,
        limits: SearchLimits::depth_first(budget),
        frontier_discs: 8,
        threads: 2,
        focus,
    }
}

/// One layer, both ways, the same seed and samples: the terminal tallies
/// and intervals are equal, the focused run's positions interval holds the
/// other's, and its searches visit no more positions.
fn same_terminal_figure<G: Keyed>(layers: std::ops::RangeInclusive<u32>, samples: u64, budget: u64) -> u64 {
    let frontier = Frontier::<G>::build(8);
    let mut terminal_seen = 0;
    for k in layers {
        let run = |focus| {
            let e = estimate_on(
                &config(k, samples, 41, budget, focus),
                &frontier,
                None,
                Instant::now(),
                &EstimateLive::default(),
            );
            assert_eq!(e.focus, focus);
            e.layers.into_iter().next().expect("one layer")
        };
        let (all, focused): (LayerEstimate, LayerEstimate) = (run(Focus::All), run(Focus::Terminal));
        let (a, f) = (all.tally, focused.tally);
        assert_eq!(a.samples, f.samples, "layer {k}");
        assert_eq!((a.terminal, a.undecided_terminal), (f.terminal, f.undecided_terminal), "layer {k}");
        assert_eq!(all.terminal_positions, focused.terminal_positions, "layer {k}");
        assert_eq!(a.not_terminal, 0, "layer {k}");
        // every joined candidate left undecided was not terminal, and the
        // rest were decided as the full run decided them
        assert_eq!(f.reachable + f.unreachable + f.undecided + f.not_terminal, f.samples, "layer {k}");
        assert!(f.reachable <= a.reachable && f.undecided <= a.undecided && f.nodes <= a.nodes, "layer {k}");
        assert!(focused.positions.low <= all.positions.low, "layer {k}");
        assert!(focused.positions.high >= all.positions.high, "layer {k}");
        assert!(focused.classes.high >= all.classes.high, "layer {k}");
        terminal_seen += a.terminal;
    }
    terminal_seen
}

#[test]
fn a_focused_run_gives_the_terminal_figure_of_a_run_of_every_sample() {
    // 4x4: terminal positions are common from 9 discs on
    let seen = same_terminal_figure::<B4>(8..=16, 2_000, 200_000);
    assert!(seen > 30, "the test saw {seen} terminal samples: it must see some to mean anything");
    // 6x6: dense layers, where the focus pays
    let seen = same_terminal_figure::<B6>(34..=36, 120, 100_000);
    assert!(seen > 0, "the test saw no terminal 6x6 sample");
}

fn estimate(dir: &Path, args: &[&str]) -> PathBuf {
    let before: Vec<PathBuf> = std::fs::read_dir(dir).map_or(Vec::new(), |d| d.flatten().map(|e| e.path()).collect());
    let out = Command::new(common::bin())
        .args(["estimate", "--size", "4", "--discs", "9-16", "-q", "--out"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).find(|p| !before.contains(p)).expect("a new document")
}

fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Through the binary: the document says its focus; `catalog add` refuses
/// a focused run of a seed a run of every sample has (one line, exit 1,
/// nothing written), and pools one of another seed into terminal positions
/// only: the table's positions stay those of the runs of every sample, and
/// `terminal_samples` counts both.
#[test]
fn the_catalogue_pools_focused_runs_into_terminal_positions_only() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let cat = dir.path().join("cat");
    let all = estimate(&runs, &["--samples", "3000", "--seed", "1"]);
    let same_seed = estimate(&runs, &["--samples", "3000", "--seed", "1", "--focus", "terminal"]);
    let focused = estimate(&runs, &["--samples", "5000", "--seed", "2", "--focus", "terminal"]);
    assert_eq!(read(&all)["focus"], "all");
    assert_eq!(read(&focused)["focus"], "terminal");
    let add = |f: &Path| {
        Command::new(common::bin()).args(["catalog", "add", "--new", "--dir"]).arg(&cat).arg(f).output().unwrap()
    };
    assert!(add(&all).status.success());
    let csv_before = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    let refused = add(&same_seed);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("seed 1") && err.contains("focus"), "{err}");
    assert_eq!(std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap(), csv_before, "nothing written");
    let added = add(&focused);
    assert!(added.status.success(), "{added:?}");
    let csv = std::fs::read_to_string(cat.join("4x4-estimate.csv")).unwrap();
    let rows: Vec<Vec<&str>> =
        csv.lines().filter(|l| !l.starts_with('#')).map(|l| l.split(',').collect::<Vec<_>>()).collect();
    let col = |name: &str| rows[0].iter().position(|c| *c == name).unwrap_or_else(|| panic!("no column {name}"));
    let (before_rows, doc_all, doc_focused) = (
        csv_before
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(',').collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        read(&all),
        read(&focused),
    );
    let layer_of = |d: &Value, k: u64| {
        d["layers"].as_array().unwrap().iter().find(|l| l["discs"] == k).unwrap()["tally"]["samples"].as_u64().unwrap()
    };
    for (row, before) in rows.iter().zip(&before_rows).skip(1) {
        let k: u64 = row[0].parse().unwrap();
        // positions and classes: the run of every sample alone
        for name in ["samples", "reachable", "positions", "positions_low", "positions_high", "classes_high"] {
            assert_eq!(row[col(name)], before[col(name)], "layer {k}: {name}");
        }
        let terminal_samples: u64 = row[col("terminal_samples")].parse().unwrap();
        assert_eq!(terminal_samples, layer_of(&doc_all, k) + layer_of(&doc_focused, k), "layer {k}");
        assert!(row.last().unwrap().split(' ').count() == 2, "layer {k}: both runs named");
    }
    // --resolve takes the focus of the document it resolves
    let out = Command::new(common::bin())
        .args(["estimate", "--resolve"])
        .arg(&focused)
        .args(["--focus", "all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
