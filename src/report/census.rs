//! Census reports: the JSON document, the CSV layer table, the human table
//! and the result files, shared by every census engine.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::files::{fresh_path, timestamp_now};
use super::table::{Table, group_digits};
use crate::atomic::atomic_write;
use crate::board::BoardSize;
use crate::engine::{CensusCounts, Counts};

/// How a census was run.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// The command line as typed.
    pub command: String,
    /// `dfs`.
    pub engine: &'static str,
    /// Board side.
    pub size: u32,
    /// Rules variant.
    pub rules: &'static str,
    /// Counts cover layers 4..=max_discs.
    pub max_discs: u32,
    /// Whether every layer of the game was counted.
    pub complete: bool,
    /// Worker threads.
    pub threads: usize,
    /// Wall time in seconds.
    pub elapsed_seconds: f64,
    /// Peak resident memory of the process, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// Bytes held by the position cache at the end.
    pub cache_bytes: Option<u64>,
    /// The checkpoint file this run was last resumed from, if any.
    pub resumed_from: Option<String>,
}

impl RunInfo {
    /// A description for a run on `size` up to `max_discs`.
    pub fn new(command: String, engine: &'static str, size: BoardSize, max_discs: u32, threads: usize) -> RunInfo {
        let n = size.n();
        RunInfo {
            command,
            engine,
            size: n,
            rules: "standard",
            max_discs,
            complete: max_discs >= n * n,
            threads,
            elapsed_seconds: 0.0,
            peak_rss_bytes: None,
            cache_bytes: None,
            resumed_from: None,
        }
    }
}

#[derive(Serialize)]
struct Document<'a> {
    tool: &'static str,
    version: &'static str,
    #[serde(flatten)]
    run: &'a RunInfo,
    note: String,
    cache_bytes_per_class: Option<f64>,
    positions_per_second: f64,
    explored: u64,
    repeated: u64,
    totals: &'a Counts,
    layers: &'a [crate::engine::Layer],
}

fn note(run: &RunInfo) -> String {
    if run.complete {
        "complete: every layer of the game".to_string()
    } else {
        format!("incomplete: layers 4..={} discs only; totals cover those layers", run.max_discs)
    }
}

/// The JSON document of a census.
pub fn census_json(run: &RunInfo, c: &CensusCounts) -> serde_json::Value {
    let doc = Document {
        tool: "othello-census",
        version: env!("CARGO_PKG_VERSION"),
        run,
        note: note(run),
        cache_bytes_per_class: run.cache_bytes.map(|b| b as f64 / c.totals.classes.max(1) as f64),
        positions_per_second: c.explored as f64 / run.elapsed_seconds.max(1e-9),
        explored: c.explored,
        repeated: c.repeated,
        totals: &c.totals,
        layers: &c.layers,
    };
    serde_json::to_value(doc).expect("serialisable")
}

const COLUMNS: [&str; 9] = [
    "discs",
    "positions",
    "classes",
    "boards",
    "terminal_positions",
    "terminal_classes",
    "terminal_boards",
    "pass_positions",
    "pass_classes",
];

fn cells(c: &Counts) -> [u64; 8] {
    [
        c.positions,
        c.classes,
        c.boards,
        c.terminal_positions,
        c.terminal_classes,
        c.terminal_boards,
        c.pass_positions,
        c.pass_classes,
    ]
}

/// The layer table as CSV, with a final `total` row.
pub fn census_csv(c: &CensusCounts) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    let mut line = |label: String, counts: &Counts| {
        let nums: Vec<String> = cells(counts).iter().map(u64::to_string).collect();
        out.push_str(&format!("{label},{}\n", nums.join(",")));
    };
    for l in &c.layers {
        line(l.discs.to_string(), &l.counts);
    }
    line("total".to_string(), &c.totals);
    out
}

/// The human-readable report.
pub fn census_table(run: &RunInfo, c: &CensusCounts) -> String {
    let mut t = Table::new([
        "discs",
        "positions",
        "classes",
        "boards",
        "terminal",
        "term.classes",
        "term.boards",
        "pass",
        "pass.classes",
    ]);
    for l in &c.layers {
        t.row(std::iter::once(l.discs.to_string()).chain(cells(&l.counts).iter().map(|&v| group_digits(v))));
    }
    t.row(std::iter::once("total".to_string()).chain(cells(&c.totals).iter().map(|&v| group_digits(v))));
    let mut out = format!("census {0}x{0}, {1} engine, standard rules: {2}\n\n", run.size, run.engine, note(run));
    out.push_str(&t.render());
    out.push_str(&format!(
        "\nexplored {} positions, {} repeats; {:.3} s on {} threads ({} positions/s)",
        group_digits(c.explored),
        group_digits(c.repeated),
        run.elapsed_seconds,
        run.threads,
        group_digits((c.explored as f64 / run.elapsed_seconds.max(1e-9)) as u64),
    ));
    if let Some(b) = run.cache_bytes {
        out.push_str(&format!(
            "\ncache {:.1} MiB ({:.1} bytes per class)",
            b as f64 / (1u64 << 20) as f64,
            b as f64 / c.totals.classes.max(1) as f64
        ));
    }
    if let Some(b) = run.peak_rss_bytes {
        out.push_str(&format!(", peak RSS {:.1} MiB", b as f64 / (1u64 << 20) as f64));
    }
    out.push('\n');
    out
}

/// Writes `<size>x<size>-<engine>-<max>-<timestamp>.json` and `.csv` into
/// `dir` atomically, never replacing an existing file.
pub fn write_results(dir: &Path, run: &RunInfo, c: &CensusCounts) -> io::Result<(PathBuf, PathBuf)> {
    let json = serde_json::to_string_pretty(&census_json(run, c)).expect("serialisable");
    let stem = format!("{0}x{0}-{1}-{2}", run.size, run.engine, run.max_discs);
    write_result_files(dir, &stem, &json, &census_csv(c))
}

/// Writes `<stem>-<timestamp>.json` and `.csv` into `dir` atomically, never
/// replacing an existing file.
pub fn write_result_files(dir: &Path, stem: &str, json: &str, csv: &str) -> io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let json_path = fresh_path(dir, &format!("{stem}-{}", timestamp_now()), "json");
    let csv_stem = json_path.file_stem().expect("has a stem").to_string_lossy().into_owned();
    let csv_path = dir.join(format!("{csv_stem}.csv"));
    atomic_write(&json_path, format!("{json}\n").as_bytes())?;
    atomic_write(&csv_path, csv.as_bytes())?;
    Ok((json_path, csv_path))
}
