//! Adding to the catalogue: a run's layers merged into its table (rows
//! other runs gave must agree), an estimate document checked and kept, and
//! the catalogue's record of a run ([`RunEntry`]).

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::census::COLUMNS;
use crate::report::estimate;

use super::*;

impl Catalog {
    /// Adds the finished run of result document `doc` (read from `path`).
    pub fn add(&mut self, path: &Path, doc: &Value) -> Result<String, CatalogError> {
        if doc["schema"] == estimate::ESTIMATE_SCHEMA {
            return self.add_estimate(path, doc);
        }
        let doc = &upgrade(doc);
        let layers = validate(path, doc)?;
        let id = path.file_stem().map_or("run".into(), |s| s.to_string_lossy().into_owned());
        if self.runs.iter().any(|r| r.id == id) {
            return Err(refuse(path, format!("run {id} is in the catalogue already")));
        }
        let entry = run_entry(&id, doc, layers).map_err(|e| refuse(path, e))?;
        // a run is its content, whatever its file is called: a copy has the
        // same command, commit, machine, timings and layers
        if let Some(same) = self.runs.iter().find(|r| r.same_run(&entry)) {
            return Err(refuse(
                path,
                format!(
                    "this run is in the catalogue already as {} (same command, commit, machine, elapsed time and \
                     layers: a copy, or the run reported again by resume)",
                    same.id
                ),
            ));
        }
        let name = table_name(doc);
        let table = self.tables.entry(name.clone()).or_default();
        let mut merged = table.clone();
        for l in layers {
            let layer = l["layer"].as_u64().expect("validated") as u32;
            let row = merged.entry(layer).or_insert_with(|| {
                let mut m = Map::new();
                m.insert("layer".into(), json!(layer));
                m.insert("runs".into(), json!([]));
                m
            });
            for col in &COLUMNS {
                let new = &l[col.name];
                match row.get(col.name) {
                    Some(old) if !old.is_null() && !new.is_null() && old != new => {
                        return Err(refuse(
                            path,
                            format!(
                                "layer {layer}: {} is {new} in this run but {old} in the catalogue (from {}); \
                                 nothing was added",
                                col.name, row["runs"]
                            ),
                        ));
                    }
                    Some(old) if !old.is_null() => {}
                    _ => {
                        row.insert(col.name.into(), new.clone());
                    }
                }
            }
            row["runs"].as_array_mut().expect("a list").push(json!(id));
        }
        *table = merged;
        self.runs.push(entry);
        Ok(name)
    }

    /// Adds an estimate run: checked, and refused when it repeats the
    /// samples of one catalogued with searches of the same strength (same
    /// board, seed and a layer in common: its draws would be the same
    /// decided alike). With another search generation, budget or census
    /// layer the same samples are decided again, and only the strongest of
    /// the two is pooled.
    pub(super) fn add_estimate(&mut self, path: &Path, doc: &Value) -> Result<String, CatalogError> {
        let checked = estimate::validate_estimate(doc).map_err(|e| refuse(path, e.0))?;
        let estimate::CheckedEstimate { n, seed, budget, ref layers, .. } = checked;
        let id = path.file_stem().map_or("estimate".into(), |s| s.to_string_lossy().into_owned());
        if self.runs.iter().any(|r| r.id == id) || self.estimates.iter().any(|r| r["id"] == id) {
            return Err(refuse(path, format!("run {id} is in the catalogue already")));
        }
        for e in &self.estimates {
            let Ok(other) = estimate::validate_estimate(e) else { continue };
            if other.n != n
                || other.seed != seed
                || !other.layers.iter().any(|(k, _)| layers.iter().any(|(k2, _)| k2 == k))
            {
                continue;
            }
            // a run focused on terminal positions draws the same samples as
            // a run of every sample of its seed, but pools into the terminal
            // positions only: one seed, one focus, or the two pools would
            // share draws
            if other.focus != checked.focus {
                return Err(refuse(
                    path,
                    format!(
                        "estimate {} has the same board and seed {seed} and layers in common, with the focus {}: the \
                         draws of one seed pool under one focus; estimate with another seed",
                        e["id"].as_str().unwrap_or("?"),
                        other.focus.name()
                    ),
                ));
            }
            if other.strength() == checked.strength() {
                return Err(refuse(
                    path,
                    format!(
                        "estimate {} has the same board, seed {seed}, search generation, budget {budget}, beam, \
                         sweep, census layer, exact conflicts and layers in common: its samples would be counted \
                         twice; estimate with another seed",
                        e["id"].as_str().unwrap_or("?")
                    ),
                ));
            }
        }
        let mut entry = doc.clone();
        entry["id"] = json!(id);
        self.estimates.push(entry);
        Ok(format!("{n}x{n}-estimate"))
    }
}

/// The catalogue's record of a run: its provenance, the layers it gave
/// and the columns it counted. Fields in the order of their names (the
/// order `catalog.json` has always had); fields added later are absent
/// from the runs catalogued before them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunEntry {
    /// The result columns this run counted (none: a run catalogued before
    /// this field, which has every column older than `positions_unique`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
    /// The command, as a user would type it again.
    pub command: String,
    /// The commit of the binary (`-dirty` when it had local changes).
    pub commit: Option<String>,
    /// Whether the run counted every layer of the game.
    pub complete: bool,
    /// Wall time over every session, seconds.
    pub elapsed_seconds: f64,
    /// `dfs` or `layers`.
    pub engine: String,
    /// The name of its result file, without `.json`.
    pub id: String,
    /// Its first and last layers.
    pub layers: [u64; 2],
    /// A digest of its layers (none: catalogued before this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers_digest: Option<String>,
    /// The machine it ran on, as the result file gives it.
    pub machine: Value,
    /// Its memory limit, bytes.
    pub memory_limit_bytes: u64,
    /// Its peak disk, bytes (the layered engine's).
    pub peak_disk_bytes: Option<u64>,
    /// Its peak resident memory, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// The last ply whose game columns were checked against perft.
    pub perft_checked_to: Option<u64>,
    /// The table its rows went to ([`table_name`]).
    pub table: String,
    /// Its worker threads.
    pub threads: u64,
    /// The tool's version.
    pub version: String,
}

impl RunEntry {
    /// Whether two records describe the same run: every field but the id
    /// (the file name) and those of the last session is equal, and so are
    /// the digests of their layers where both have one (runs catalogued
    /// before the digest have none). The last session's threads, memory
    /// limit, peak RSS and peak disk are left out: `resume` of a finished
    /// layered run reports it again (a `-2` file) with the same command,
    /// elapsed time (summed over its sessions, to the nanosecond) and
    /// layers but its own session's figures, and is the same evidence.
    pub(super) fn same_run(&self, other: &RunEntry) -> bool {
        let digests_differ =
            self.layers_digest.is_some() && other.layers_digest.is_some() && self.layers_digest != other.layers_digest;
        let bare = |r: &RunEntry| RunEntry {
            id: String::new(),
            layers_digest: None,
            threads: 0,
            memory_limit_bytes: 0,
            peak_rss_bytes: None,
            peak_disk_bytes: None,
            ..r.clone()
        };
        bare(self) == bare(other) && !digests_differ
    }

    /// Whether this run counted `column`.
    pub(super) fn counted(&self, column: &str) -> bool {
        match &self.columns {
            Some(cols) => cols.iter().any(|c| c == column),
            None => !["positions_unique", "shapes", "shapes_unique"].contains(&column),
        }
    }
}

/// The catalogue's record of a run from its (validated) result document.
pub(super) fn run_entry(id: &str, doc: &Value, layers: &[Value]) -> Result<RunEntry, String> {
    let entry = json!({
        "id": id,
        "table": table_name(doc),
        "command": doc["command"],
        "version": doc["version"],
        "commit": doc["commit"],
        "engine": doc["engine"],
        "machine": doc["machine"],
        "threads": doc["threads"],
        "memory_limit_bytes": doc["memory_limit_bytes"],
        "elapsed_seconds": doc["elapsed_seconds"],
        "peak_rss_bytes": doc["peak_rss_bytes"],
        "peak_disk_bytes": doc["engine_stats"]["peak_disk_bytes"],
        "layers": [layers.first().map(|l| l["layer"].clone()), layers.last().map(|l| l["layer"].clone())],
        "complete": doc["complete"],
        "perft_checked_to": perft_checked_to(doc),
        "layers_digest": format!("{:016x}", xxhash_rust::xxh3::xxh3_64(doc["layers"].to_string().as_bytes())),
        "columns": COLUMNS
            .iter()
            .filter(|c| layers.iter().any(|l| l.get(c.name).is_some_and(|v| !v.is_null())))
            .map(|c| c.name)
            .collect::<Vec<_>>(),
    });
    serde_json::from_value(entry).map_err(|e| format!("the run's provenance is malformed: {e}"))
}

/// `<N>x<N>-by-<discs|ply>`.
pub(super) fn table_name(doc: &Value) -> String {
    format!("{0}x{0}-by-{1}", doc["size"], doc["layer_by"].as_str().unwrap_or("?"))
}

/// Whether the test suite compares this layer with the oracle.
pub(super) fn oracle_covers(name: &str, layer: u32) -> bool {
    match name {
        "4x4-by-discs" | "4x4-by-ply" => true,
        "6x6-by-discs" => layer <= 12,
        "8x8-by-discs" => layer <= 10,
        "8x8-by-ply" => layer <= 9,
        _ => false,
    }
}

/// The last ply up to which `catalog add` checks a by-ply run with perft
/// (a few seconds of work at most).
pub(super) fn perft_checked_to(doc: &Value) -> Option<u64> {
    if doc["layer_by"] != "ply" {
        return None;
    }
    let cap = match doc["size"].as_u64()? {
        4 => 20,
        6 => 11,
        _ => 11,
    };
    let last = doc["layers"].as_array()?.last()?["layer"].as_u64()?;
    Some(last.min(cap))
}

/// A count in a row or layer: a JSON number of any size.
pub(super) fn count(v: &Value) -> Option<u128> {
    v.as_u64().map(u128::from).or_else(|| v.is_number().then(|| v.to_string().parse().ok()).flatten())
}

/// A result document with the columns of the current schema: versions 1
/// and 2 called `games_including_ended` `games_a124004`.
pub(super) fn upgrade(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if doc["schema_version"].as_u64().is_some_and(|v| v < 3)
        && let Some(layers) = doc.get_mut("layers").and_then(Value::as_array_mut)
    {
        for l in layers.iter_mut().filter_map(Value::as_object_mut) {
            rename_old_columns(l);
        }
    }
    doc
}
