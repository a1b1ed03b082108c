//! The one census report: the JSON document, the CSV table and the human
//! table of a [`Census`], for every engine. The schema is documented in
//! `docs/results-format.md`; its version is [`SCHEMA_VERSION`].

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::files::{fresh_path, timestamp_now};
use super::table::{Table, group_digits};
use crate::census::{Census, Column, GameSpread, LayerCounts, Outcomes};
use crate::formats::atomic::atomic_write;

/// Name of the result schema, in the JSON and the CSV.
pub const SCHEMA: &str = "othello-census-results";
/// Version of the result schema; it changes whenever a field changes
/// meaning, is renamed or removed. Version 4 added `checksum` (an edited
/// document is refused by `catalog add`); 1 to 3 are read without one.
pub const SCHEMA_VERSION: u32 = 4;

/// An engine's figures (a `Serialize` struct) as the `engine_stats` of a
/// [`RunInfo`].
pub fn stats_map<T: serde::Serialize>(stats: &T) -> Map<String, Value> {
    match serde_json::to_value(stats) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// How a census was run (everything in a report besides the counts).
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// The command line that started the run.
    pub command: String,
    /// `dfs` or `layers`.
    pub engine: &'static str,
    /// Worker threads of the last session.
    pub threads: usize,
    /// Memory limit of the last session, bytes.
    pub memory_limit: u64,
    /// Wall time over every session, seconds.
    pub elapsed_seconds: f64,
    /// Peak resident memory of the last session, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// The checkpoint file or work directory of the run.
    pub run_files: Option<String>,
    /// Whether the last session resumed an earlier one.
    pub resumed: bool,
    /// Figures that only one engine has (a JSON object).
    pub engine_stats: Map<String, Value>,
}

fn note(c: &Census) -> String {
    let unit = match c.by {
        crate::census::LayerBy::Discs => "discs",
        crate::census::LayerBy::Ply => "plies",
    };
    if c.complete() {
        format!("complete: every layer of the game, by {unit}")
    } else {
        let last = c.layers.last().map_or(c.limit, |l| l.layer);
        format!("incomplete: layers up to {last} {unit} only; totals cover those layers")
    }
}

/// A count as a JSON number, exact at any size (serde_json's
/// `arbitrary_precision` keeps the digits of numbers beyond 2^64).
fn number(v: u128) -> Value {
    json!(v)
}

/// The value of a column in the `total` row: the sum over the layers for
/// the class and position counts and for `games_ended` (complete games);
/// none for the other game columns, whose sum means nothing.
fn total_value(c: &Census, col: &Column) -> Option<u128> {
    match col.name {
        "games_ended" => c.games_ended(),
        n if n.starts_with("games") => None,
        _ => (col.value)(&LayerCounts { layer: 0, counts: c.totals(), games: None }),
    }
}

/// Name of the histogram of final disc differences, in the JSON (an
/// object from difference to count) and the CSV (the last column).
pub const DIFFERENCES: &str = "terminal_disc_differences";

/// The terminal positions by disc difference as a JSON object, e.g.
/// `{"-4": 12, "0": 3}`, least difference first, counts of zero left out.
fn differences_json(o: &Outcomes) -> Value {
    Value::Object(o.differences().map(|(d, n)| (d.to_string(), json!(n))).collect())
}

/// Name of the histogram of the positions by the games that reach them, in
/// the JSON (an object from bucket to positions and games) and the CSV.
pub const SPREAD: &str = "positions_by_games";

/// The positions by games as JSON: `{"1": {"positions": 4, "games": 4},
/// "2-3": ...}`, least bucket first, empty buckets left out.
fn spread_json(s: &GameSpread) -> Value {
    Value::Object(
        s.buckets().map(|(b, n, g)| (GameSpread::label(b), json!({"positions": n, "games": number(g)}))).collect(),
    )
}

/// The same as one CSV cell: `bucket:positions:games` triples separated by
/// spaces, e.g. `1:52:52 2-3:2:4`.
fn spread_cell(s: &GameSpread) -> String {
    s.buckets().map(|(b, n, g)| format!("{}:{n}:{g}", GameSpread::label(b))).collect::<Vec<_>>().join(" ")
}

/// The same as one CSV cell: `difference:count` pairs separated by spaces,
/// e.g. `-4:12 0:3`.
fn differences_cell(o: &Outcomes) -> String {
    o.differences().map(|(d, n)| format!("{d}:{n}")).collect::<Vec<_>>().join(" ")
}

fn layer_json(c: &Census, l: &LayerCounts) -> Value {
    let mut m = Map::new();
    m.insert("layer".into(), json!(l.layer));
    m.insert(c.by.name().into(), json!(l.layer));
    for col in c.columns() {
        m.insert(col.name.into(), (col.value)(l).map_or(Value::Null, number));
    }
    m.insert(DIFFERENCES.into(), differences_json(&l.counts.outcomes));
    if let Some(g) = &l.games {
        m.insert(SPREAD.into(), spread_json(&g.spread));
    }
    Value::Object(m)
}

/// The JSON document of a census, sealed with its checksum
/// ([`super::seal`]).
pub fn census_json(run: &RunInfo, c: &Census) -> Value {
    let mut t = Map::new();
    for col in c.columns().into_iter().filter(|col| col.name == "games_ended" || !col.game) {
        t.insert(col.name.into(), total_value(c, col).map_or(Value::Null, number));
    }
    t.insert(DIFFERENCES.into(), differences_json(&c.totals().outcomes));
    let mut doc = json!({
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": "othello-census",
        "version": env!("CARGO_PKG_VERSION"),
        "commit": crate::COMMIT,
        "machine": machine(),
        "size": c.size,
        "rules": "standard",
        "engine": run.engine,
        "layer_by": c.by.name(),
        "limit": c.limit,
        "complete": c.complete(),
        "note": note(c),
        "command": run.command,
        "threads": run.threads,
        "memory_limit_bytes": run.memory_limit,
        "elapsed_seconds": run.elapsed_seconds,
        "peak_rss_bytes": run.peak_rss_bytes,
        "run_files": run.run_files,
        "resumed": run.resumed,
        "engine_stats": run.engine_stats,
        "conventions": conventions(c).into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>(),
        "totals": t,
        "layers": c.layers.iter().map(|l| layer_json(c, l)).collect::<Vec<_>>(),
    });
    super::seal::seal(&mut doc);
    doc
}

/// What the run's game columns count ([`crate::census::game_conventions`]):
/// none where the engine counts no games.
fn conventions(c: &Census) -> Vec<(&'static str, &'static str)> {
    let names: Vec<&str> = c.columns().iter().filter(|col| col.game).map(|col| col.name).collect();
    crate::census::game_conventions(c.by).into_iter().filter(|(k, _)| names.contains(k)).collect()
}

/// The machine a run ran on: cores and memory.
pub fn machine() -> Value {
    json!({
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "memory_bytes": crate::engine::memory::total_memory(),
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
    })
}

fn csv_cell(v: &str) -> String {
    v.replace(['\n', '\r'], " ")
}

/// The layer table as CSV: `#` lines of provenance, a header, one row per
/// layer and a `total` row; a column the engine does not count is empty.
pub fn census_csv(run: &RunInfo, c: &Census) -> String {
    let mut out = format!(
        "# schema: {SCHEMA} {SCHEMA_VERSION}\n# tool: othello-census {version} ({commit})\n# command: {command}\n\
         # engine: {engine}; board: {n}x{n}; layer_by: {by}; limit: {limit}; complete: {complete}\n",
        version = env!("CARGO_PKG_VERSION"),
        commit = crate::COMMIT,
        command = csv_cell(&run.command),
        engine = run.engine,
        n = c.size,
        by = c.by.name(),
        limit = c.limit,
        complete = c.complete()
    );
    for (k, v) in conventions(c) {
        out.push_str(&format!("# {k}: {v}\n"));
    }
    let columns = c.columns();
    out.push_str(c.by.name());
    for col in &columns {
        out.push(',');
        out.push_str(col.name);
    }
    out.push(',');
    out.push_str(DIFFERENCES);
    let spread = columns.iter().any(|col| col.game);
    if spread {
        out.push(',');
        out.push_str(SPREAD);
    }
    out.push('\n');
    let row = |out: &mut String, label: String, l: &LayerCounts| {
        out.push_str(&label);
        for col in &columns {
            out.push(',');
            if let Some(v) = (col.value)(l) {
                out.push_str(&v.to_string());
            }
        }
        out.push(',');
        out.push_str(&differences_cell(&l.counts.outcomes));
        if spread {
            out.push(',');
            out.push_str(&l.games.map_or(String::new(), |g| spread_cell(&g.spread)));
        }
        out.push('\n');
    };
    for l in &c.layers {
        row(&mut out, l.layer.to_string(), l);
    }
    out.push_str("total");
    for col in &columns {
        out.push(',');
        if let Some(v) = total_value(c, col) {
            out.push_str(&v.to_string());
        }
    }
    out.push(',');
    out.push_str(&differences_cell(&c.totals().outcomes));
    if spread {
        out.push(',');
    }
    out.push('\n');
    out
}

/// What the columns of the human table mean, in a few lines under it.
fn legend(c: &Census) -> String {
    let mut out = String::from(
        "\npositions: discs and side to move; classes: positions up to the 4 symmetries of the start; boards: \
         discs only;\nterminal: neither side can move (term.classes, term.boards likewise; Black wins, draws, White \
         wins by\ndiscs); pass: the side to move must pass",
    );
    let shown = c.columns();
    if shown.iter().any(|col| col.game) {
        for (name, meaning) in crate::census::game_conventions(c.by) {
            let title = shown.iter().find(|col| col.name == name).map_or(name, |col| col.title);
            out.push_str(&format!(";\n{title}: {meaning}"));
        }
    }
    out.push('\n');
    out
}

/// The human-readable report: the layer table and a summary.
pub fn census_table(run: &RunInfo, c: &Census) -> String {
    let shown = c.columns();
    let mut t = Table::new(std::iter::once(c.by.name()).chain(shown.iter().map(|col| col.title)));
    for l in &c.layers {
        t.row(
            std::iter::once(l.layer.to_string())
                .chain(shown.iter().map(|col| (col.value)(l).map_or(String::new(), group_digits))),
        );
    }
    t.row(
        std::iter::once("total".to_string())
            .chain(shown.iter().map(|col| total_value(c, col).map_or(String::new(), group_digits))),
    );
    let mut out =
        format!("census {0}x{0}, {1} engine by {2}, standard rules: {3}\n\n", c.size, run.engine, c.by.name(), note(c));
    out.push_str(&t.render());
    out.push_str(&legend(c));
    out.push_str(&format!("\n{:.3} s on {}", run.elapsed_seconds, crate::text::plural(run.threads as u64, "thread")));
    for (k, v) in &run.engine_stats {
        if let Some(s) = v.as_str().map(str::to_string).or_else(|| v.is_number().then(|| v.to_string())) {
            out.push_str(&format!("; {}: {s}", k.replace('_', " ")));
        }
    }
    if let Some(b) = run.peak_rss_bytes {
        out.push_str(&format!("; peak RSS {:.1} MiB", b as f64 / (1u64 << 20) as f64));
    }
    out.push('\n');
    out
}

/// The stem of a run's result files: `<N>x<N>-<engine>-<by><limit>`.
pub fn result_stem(run: &RunInfo, c: &Census) -> String {
    format!("{0}x{0}-{1}-{2}{3}", c.size, run.engine, c.by.name(), c.limit)
}

/// Writes `<stem>-<timestamp>.json` and `.csv` into `dir` atomically,
/// never replacing an existing file.
pub fn write_results(dir: &Path, run: &RunInfo, c: &Census) -> io::Result<(PathBuf, PathBuf)> {
    let json = serde_json::to_string_pretty(&census_json(run, c)).expect("serialisable");
    std::fs::create_dir_all(dir)?;
    let json_path = fresh_path(dir, &format!("{}-{}", result_stem(run, c), timestamp_now()), "json");
    let csv_stem = json_path.file_stem().expect("has a stem").to_string_lossy().into_owned();
    let csv_path = dir.join(format!("{csv_stem}.csv"));
    atomic_write(&json_path, format!("{json}\n").as_bytes())?;
    atomic_write(&csv_path, census_csv(run, c).as_bytes())?;
    Ok((json_path, csv_path))
}

/// The result files in `dir` of a run reported before: a JSON document of
/// the same engine, command, elapsed time (summed over its sessions, to the
/// nanosecond) and layers as `run` and `c` would give, and its CSV (written
/// here if it is missing: a process killed between the two). What a
/// `resume` of a finished run finds of the session that finished it, killed
/// after writing its result and before it exited.
pub fn reported_before(dir: &Path, run: &RunInfo, c: &Census) -> Option<(PathBuf, PathBuf)> {
    let doc = census_json(run, c);
    let same = |p: &Path| -> Option<bool> {
        // a result document is small; anything large is not one of ours
        if std::fs::symlink_metadata(p).ok()?.len() > 1 << 26 {
            return Some(false);
        }
        let other: Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
        Some(
            ["schema", "engine", "command", "size", "layer_by", "limit", "layers"].iter().all(|k| other[k] == doc[k])
                && other["elapsed_seconds"].as_f64() == Some(run.elapsed_seconds),
        )
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file() && same(p) == Some(true))
        .collect();
    found.sort();
    let json_path = found.into_iter().next()?;
    let csv_path = json_path.with_extension("csv");
    if !csv_path.is_file() {
        atomic_write(&csv_path, census_csv(run, c).as_bytes()).ok()?;
    }
    Some((json_path, csv_path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::census::{Counts, Games, LayerBy};

    /// Game counts beyond 2^64 reach the JSON and the CSV exactly.
    #[test]
    fn counts_beyond_u64_are_exact() {
        let big = u64::MAX as u128 * 1000 + 7;
        let layer = LayerCounts {
            layer: 0,
            counts: Counts {
                positions: 1,
                classes: 1,
                boards: 1,
                terminal_positions: 1,
                terminal_classes: 1,
                terminal_boards: 1,
                ..Counts::default()
            },
            games: Some(Games { games: big, games_including_ended: big, passes: 0, ended: big, ..Games::default() }),
        };
        let c = Census { size: 8, by: LayerBy::Ply, limit: 0, layers: vec![layer] };
        let run = RunInfo {
            command: "t".into(),
            engine: "layers",
            threads: 1,
            memory_limit: 1,
            elapsed_seconds: 0.0,
            peak_rss_bytes: None,
            run_files: None,
            resumed: false,
            engine_stats: Map::new(),
        };
        let text = serde_json::to_string(&census_json(&run, &c)).unwrap();
        assert!(text.contains(&format!("\"games\":{big}")), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["totals"]["games_ended"].to_string(), big.to_string());
        assert!(census_csv(&run, &c).contains(&format!(",{big},{big},0,{big},0,0,0,,\n")));
    }
}
