//! The catalogue of published counts under `results/`: one source of truth,
//! `catalog.json`, built only from the JSON of real runs (never typed by
//! hand), and the files generated from it — one CSV per board and layering
//! and `README.md` with the provenance of every row.
//!
//! `add` refuses a run that is not a finished run of this schema, whose
//! layers are not contiguous or not internally consistent, whose game
//! counts disagree with perft, or whose rows disagree with rows already
//! catalogued; nothing is written then.
//!
//! Its rooms: [`ingest`] adds runs and estimates (and reads result
//! documents into [`RunEntry`]), [`checks`] refuses inconsistent runs,
//! [`pool`] pools estimates into layer figures and the whole-board answer,
//! [`double_sampled`] reads the pooled documents as a double sampling of
//! their undecided samples, [`render`] writes the CSV tables and README,
//! [`bfiles`] the OEIS b-files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::formats::atomic::atomic_write;
use crate::published;
use crate::report::estimate;

mod bfiles;
mod checks;
mod double_sampled;
mod ingest;
mod pool;
mod render;

pub use bfiles::{OEIS, OeisSequence};
pub use checks::unsealed;
pub use double_sampled::DoubleSampledBoard;
pub use ingest::RunEntry;
pub use pool::{Pooled, WholeBoard};
pub use render::portable_command;

use checks::validate;
use ingest::{count, oracle_covers, perft_checked_to, table_name};
use render::NOT_RECORDED;

/// The catalogue file inside the catalogue directory.
pub const CATALOG_FILE: &str = "catalog.json";
const CATALOG_SCHEMA: &str = "othello-census-catalog";
/// Version 2 renamed the column `games_a124004` (a mislabel: the
/// keep-counting convention is not OEIS A124004) to
/// `games_including_ended`; version 1 files are read and renamed.
const CATALOG_VERSION: u64 = 2;

/// The name versions 1 and 2 of the results schema, and version 1 of the
/// catalogue, gave the column `games_including_ended`.
const OLD_INCLUDING_ENDED: &str = "games_a124004";

/// Renames the old column name in a row or layer object.
fn rename_old_columns(row: &mut Map<String, Value>) {
    if let Some(v) = row.remove(OLD_INCLUDING_ENDED) {
        row.insert("games_including_ended".into(), v);
    }
}

/// Why a run cannot enter the catalogue.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{}: {detail}", path.display())]
    Refused { path: PathBuf, detail: String },
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
}

fn refuse(path: &Path, detail: impl Into<String>) -> CatalogError {
    CatalogError::Refused { path: path.to_path_buf(), detail: detail.into() }
}

/// The catalogue: runs, and one table of rows per board and layering.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Every run added, in order.
    pub runs: Vec<RunEntry>,
    /// `<N>x<N>-by-<by>` → layer → row (the result columns, plus `runs`).
    pub tables: BTreeMap<String, BTreeMap<u32, Map<String, Value>>>,
    /// Estimate runs (`othello-census estimate --out`), each its document
    /// with an `id`; their tables `<N>x<N>-estimate` are pooled from them.
    pub estimates: Vec<Value>,
}

impl Catalog {
    /// Whether `dir` holds a catalogue.
    pub fn exists(dir: &Path) -> bool {
        dir.join(CATALOG_FILE).is_file()
    }

    /// Reads `dir/catalog.json` (an empty catalogue where there is none).
    pub fn load(dir: &Path) -> Result<Catalog, CatalogError> {
        let path = dir.join(CATALOG_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Catalog::default()),
            Err(e) => return Err(CatalogError::Io { path, error: e }),
        };
        let doc: Value = serde_json::from_str(&text).map_err(|e| refuse(&path, format!("not JSON: {e}")))?;
        let version = doc["schema_version"].as_u64();
        if doc["schema"] != CATALOG_SCHEMA || !version.is_some_and(|v| (1..=CATALOG_VERSION).contains(&v)) {
            return Err(refuse(&path, format!("not a {CATALOG_SCHEMA} file of version 1 to {CATALOG_VERSION}")));
        }
        let runs = match doc.get("runs") {
            Some(runs) => serde_json::from_value(runs.clone())
                .map_err(|e| refuse(&path, format!("a run of the catalogue is malformed: {e}")))?,
            None => Vec::new(),
        };
        let mut c =
            Catalog { runs, estimates: doc["estimates"].as_array().cloned().unwrap_or_default(), ..Catalog::default() };
        // an estimate this build cannot check would drop out of the pooled
        // tables without a word; refuse the catalogue instead
        for e in &c.estimates {
            if let Err(why) = estimate::validate_estimate(e) {
                return Err(refuse(
                    &path,
                    format!(
                        "estimate {} no longer checks ({why}); this build would drop it from the tables, so nothing \
                         is written",
                        e["id"].as_str().unwrap_or("?")
                    ),
                ));
            }
        }
        for (name, rows) in doc["tables"].as_object().into_iter().flatten() {
            let table = c.tables.entry(name.clone()).or_default();
            for row in rows.as_array().into_iter().flatten() {
                let layer = row["layer"].as_u64().ok_or_else(|| refuse(&path, "a row without a layer"))?;
                let mut row = row.as_object().cloned().unwrap_or_default();
                rename_old_columns(&mut row);
                table.insert(layer as u32, row);
            }
        }
        Ok(c)
    }

    /// Writes `catalog.json`, the CSV tables and `README.md` into `dir`.
    /// Refuses (writing nothing) when a row disagrees with a published value.
    pub fn save(&self, dir: &Path) -> Result<Vec<PathBuf>, CatalogError> {
        for (name, rows) in &self.tables {
            for (layer, row) in rows {
                for (col, want) in published::layer_values(name, *layer) {
                    if let Some(v) = row.get(col).and_then(count)
                        && v != want
                    {
                        return Err(refuse(
                            &dir.join(CATALOG_FILE),
                            format!("{name} layer {layer}: {col} is {v} but the published value is {want}"),
                        ));
                    }
                }
            }
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |e| CatalogError::Io { path, error: e }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut written = Vec::new();
        let tables: Map<String, Value> = self
            .tables
            .iter()
            .map(|(k, rows)| (k.clone(), Value::Array(rows.values().map(|r| Value::Object(r.clone())).collect())))
            .collect();
        let mut doc = json!({
            "schema": CATALOG_SCHEMA,
            "schema_version": CATALOG_VERSION,
            "note": "generated by `othello-census catalog add`; do not edit by hand",
            "runs": self.runs,
            "tables": tables,
        });
        if !self.estimates.is_empty() {
            doc["estimates"] = json!(self.estimates);
        }
        let p = dir.join(CATALOG_FILE);
        atomic_write(&p, format!("{}\n", serde_json::to_string_pretty(&doc).expect("serialisable")).as_bytes())
            .map_err(io(&p))?;
        written.push(p);
        for (name, rows) in &self.tables {
            let p = dir.join(format!("{name}.csv"));
            atomic_write(&p, self.table_csv(name, rows).as_bytes()).map_err(io(&p))?;
            written.push(p);
        }
        let mut terminal = self.pooled_terminal();
        for (n, pooled) in self.pooled_estimates() {
            let p = dir.join(format!("{n}x{n}-estimate.csv"));
            let whole = self.whole_board_estimate(n).map(|w| w.csv_note());
            let terminal = terminal.remove(&n).unwrap_or_default();
            let csv = estimate::estimate_csv(n, &pooled, &terminal, &self.exact_layers(n), whole.as_deref());
            atomic_write(&p, csv.as_bytes()).map_err(io(&p))?;
            written.push(p);
        }
        let p = dir.join("README.md");
        atomic_write(&p, self.readme().as_bytes()).map_err(io(&p))?;
        written.push(p);
        Ok(written)
    }
}
