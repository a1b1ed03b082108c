//! Reports of the layered engine: JSON, CSV and the human table.

use serde::Serialize;

use super::table::{Table, group_digits};
use crate::engine::layers::{LayerBy, LayerStats, LayersOutcome};

/// One row of the report.
#[derive(Clone, Debug, Serialize)]
pub struct LayerRow {
    /// Disc count or ply.
    pub layer: u32,
    pub positions: u64,
    pub classes: u64,
    pub terminal_positions: u64,
    pub terminal_classes: u64,
    pub pass_positions: u64,
    pub pass_classes: u64,
    /// See `LayerStats::games`.
    pub games: u128,
    /// `games` plus every game that ended in an earlier layer (OEIS A124004
    /// when layers are plies).
    pub games_a124004: u128,
    /// By ply: games whose last ply is a pass.
    pub passes: u128,
    /// Games that end in this layer.
    pub ended: u128,
}

/// The rows of an outcome.
pub fn rows(stats: &[LayerStats]) -> Vec<LayerRow> {
    let mut before = 0u128;
    stats
        .iter()
        .map(|s| {
            let row = LayerRow {
                layer: s.layer,
                positions: s.positions,
                classes: s.classes,
                terminal_positions: s.terminal_positions,
                terminal_classes: s.terminal_classes,
                pass_positions: s.pass_positions,
                pass_classes: s.pass_classes,
                games: s.games,
                games_a124004: s.games + before,
                passes: s.passes,
                ended: s.ended,
            };
            before += s.ended;
            row
        })
        .collect()
}

/// How the run went, for the report.
#[derive(Clone, Debug, Serialize)]
pub struct LayersRunInfo {
    pub command: String,
    pub size: u32,
    pub threads: usize,
    pub memory_limit: u64,
    pub work_dir: String,
    pub peak_rss_bytes: Option<u64>,
    pub resumed: bool,
}

#[derive(Serialize)]
struct Totals {
    positions: u64,
    classes: u64,
    terminal_positions: u64,
    terminal_classes: u64,
    pass_positions: u64,
    pass_classes: u64,
    games_ended: u128,
}

#[derive(Serialize)]
struct Document<'a> {
    tool: &'static str,
    version: &'static str,
    engine: &'static str,
    by: &'static str,
    limit: u32,
    complete: bool,
    note: String,
    #[serde(flatten)]
    run: &'a LayersRunInfo,
    partitions: u32,
    elapsed_seconds: f64,
    largest_layer_bytes: u64,
    largest_layer_classes: u64,
    disk_bytes_per_class: f64,
    totals: Totals,
    layers: Vec<LayerRow>,
    phase_seconds: Vec<PhaseTime>,
}

#[derive(Serialize)]
struct PhaseTime {
    layer: u32,
    phase: &'static str,
    seconds: f64,
}

fn note(o: &LayersOutcome, complete: bool) -> String {
    let unit = match o.by {
        LayerBy::Discs => "discs",
        LayerBy::Ply => "plies",
    };
    if complete {
        format!("complete: every layer of the game, by {unit}")
    } else {
        format!("incomplete: layers up to {} {unit} only; totals cover those layers", o.limit)
    }
}

/// Whether the outcome covers the whole game.
pub fn is_complete(o: &LayersOutcome, squares: u32) -> bool {
    o.stats.last().is_some_and(|s| s.layer < o.limit) || (o.by == LayerBy::Discs && o.limit >= squares)
}

/// The JSON document.
pub fn layers_json(run: &LayersRunInfo, o: &LayersOutcome) -> String {
    let complete = is_complete(o, run.size * run.size);
    let mut sum = LayerStats::default();
    for s in &o.stats {
        sum.add_classes(s);
    }
    let t = Totals {
        positions: sum.positions,
        classes: sum.classes,
        terminal_positions: sum.terminal_positions,
        terminal_classes: sum.terminal_classes,
        pass_positions: sum.pass_positions,
        pass_classes: sum.pass_classes,
        games_ended: sum.ended,
    };
    let doc = Document {
        tool: "othello-census",
        version: env!("CARGO_PKG_VERSION"),
        engine: "layers",
        by: o.by.name(),
        limit: o.limit,
        complete,
        note: note(o, complete),
        run,
        partitions: o.partitions,
        elapsed_seconds: o.elapsed.as_secs_f64(),
        largest_layer_bytes: o.largest_layer.0,
        largest_layer_classes: o.largest_layer.1,
        disk_bytes_per_class: o.largest_layer.0 as f64 / o.largest_layer.1.max(1) as f64,
        totals: t,
        layers: rows(&o.stats),
        phase_seconds: o.timings.iter().map(|&(layer, phase, seconds)| PhaseTime { layer, phase, seconds }).collect(),
    };
    serde_json::to_string_pretty(&doc).expect("serialisable")
}

/// The CSV layer table.
pub fn layers_csv(o: &LayersOutcome) -> String {
    let mut out = format!(
        "{},positions,classes,terminal_positions,terminal_classes,pass_positions,pass_classes,games,games_a124004,passes,ended\n",
        o.by.name()
    );
    for r in rows(&o.stats) {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            r.layer,
            r.positions,
            r.classes,
            r.terminal_positions,
            r.terminal_classes,
            r.pass_positions,
            r.pass_classes,
            r.games,
            r.games_a124004,
            r.passes,
            r.ended
        ));
    }
    out
}

/// The human-readable report.
pub fn layers_table(run: &LayersRunInfo, o: &LayersOutcome) -> String {
    let complete = is_complete(o, run.size * run.size);
    let mut t = Table::new([
        o.by.name(),
        "positions",
        "classes",
        "terminal",
        "pass",
        "games",
        "games (A124004)",
        "passes",
        "ended",
    ]);
    for r in rows(&o.stats) {
        t.row([
            r.layer.to_string(),
            group_digits(r.positions),
            group_digits(r.classes),
            group_digits(r.terminal_positions),
            group_digits(r.pass_positions),
            group_digits(r.games),
            group_digits(r.games_a124004),
            group_digits(r.passes),
            group_digits(r.ended),
        ]);
    }
    let mut out = format!(
        "census {0}x{0}, layered engine by {1}, standard rules: {2}\n\n",
        run.size,
        o.by.name(),
        note(o, complete)
    );
    out.push_str(&t.render());
    out.push_str(&format!(
        "\n{:.3} s on {} threads, {} partitions; largest layer {} classes in {:.1} MiB on disk ({:.2} bytes per class)",
        o.elapsed.as_secs_f64(),
        run.threads,
        o.partitions,
        group_digits(o.largest_layer.1),
        o.largest_layer.0 as f64 / (1u64 << 20) as f64,
        o.largest_layer.0 as f64 / o.largest_layer.1.max(1) as f64,
    ));
    if let Some(b) = run.peak_rss_bytes {
        out.push_str(&format!(", peak RSS {:.1} MiB", b as f64 / (1u64 << 20) as f64));
    }
    out.push('\n');
    out
}
