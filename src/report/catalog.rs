//! The catalogue of published counts under `results/`: one source of truth,
//! `catalog.json`, built only from the JSON of real runs (never typed by
//! hand), and the files generated from it — one CSV per board and layering
//! and `README.md` with the provenance of every row.
//!
//! `add` refuses a run that is not a finished run of this schema, whose
//! layers are not contiguous or not internally consistent, whose game
//! counts disagree with perft, or whose rows disagree with rows already
//! catalogued; nothing is written then.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::census::{SCHEMA, SCHEMA_VERSION};
use super::estimate;
use crate::census::{COLUMNS, LayerBy, columns};
use crate::estimate::Focus;
use crate::formats::atomic::atomic_write;
use crate::published;
use crate::stats::{Replicate, Replication};
use crate::text::table_bytes;

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
    fn add_estimate(&mut self, path: &Path, doc: &Value) -> Result<String, CatalogError> {
        let checked = estimate::validate_estimate(doc).map_err(|e| refuse(path, e))?;
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
                        "estimate {} has the same board and seed {seed} and layers in common, with --focus {}: the \
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
                        "estimate {} has the same board, seed {seed}, search generation, budget {budget}, census \
                         layer and layers in common: its samples would be counted twice; estimate with another seed",
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

    /// Per board, the estimate tallies of every layer pooled over runs,
    /// with the runs that gave them. A layer pools the runs of the newest
    /// search generation among those that sample it, whatever their
    /// budgets and census layers, one document per seed: documents of one
    /// seed decide the same draws (a resolved document and the run it
    /// resolves, or the seed run again with other searches), so only the
    /// strongest of them counts ([`estimate::CheckedEstimate::strength`]:
    /// the largest budget, then the highest census layer). Every verdict
    /// is exact or undecided, so each run's lower end (undecided as
    /// unreachable) and upper end (undecided as reachable) bound the count
    /// whatever its budget, and so do their sums; a weaker run adds its
    /// samples and widens only the upper end by its undecided ones. The
    /// choice depends on how the runs were made, never on what they
    /// found, so the pooled estimate stays unbiased. Runs of an older
    /// generation stay in the catalogue and pool only where no newer one
    /// samples the layer (older conditions left several times more
    /// samples undecided at the same budget).
    ///
    /// These are the pools of positions and classes: runs focused on
    /// terminal positions ([`crate::estimate::Focus::Terminal`]) pool into
    /// [`Catalog::pooled_terminal`] only.
    pub fn pooled_estimates(&self) -> Pooled {
        self.pooled(false)
    }

    /// Per board, the tallies of every layer pooled for terminal positions:
    /// the runs of [`Catalog::pooled_estimates`] and the runs focused on
    /// terminal positions (whose seeds no other run of the board uses, so
    /// no draw is pooled twice). A focused run's terminal tally is what a
    /// run of every sample would have found for its draws.
    pub fn pooled_terminal(&self) -> Pooled {
        self.pooled(true)
    }

    fn pooled(&self, with_terminal_runs: bool) -> Pooled {
        let mut out: Pooled = BTreeMap::new();
        for c in self.chosen_estimates() {
            if c.focus == crate::estimate::Focus::Terminal && !with_terminal_runs {
                continue;
            }
            let slot = out.entry(c.n).or_default().entry(c.discs).or_default();
            slot.0 = slot.0.plus(c.tally);
            slot.1.push(c.id);
        }
        out
    }

    /// Board `n`'s pooled layers apart by seed: seed → its runs' focus and
    /// layer → the tally of the document the pools take for that seed.
    pub fn seed_estimates(
        &self,
        n: u32,
    ) -> BTreeMap<u64, (crate::estimate::Focus, BTreeMap<u32, crate::estimate::Tally>)> {
        let mut out: BTreeMap<u64, (crate::estimate::Focus, BTreeMap<u32, crate::estimate::Tally>)> = BTreeMap::new();
        for c in self.chosen_estimates().into_iter().filter(|c| c.n == n) {
            let slot = out.entry(c.seed).or_insert((c.focus, BTreeMap::new()));
            slot.1.insert(c.discs, c.tally);
        }
        out
    }

    /// The layers of the documents that pool (see
    /// [`Catalog::pooled_estimates`]), in the catalogue's order.
    fn chosen_estimates(&self) -> Vec<ChosenLayer> {
        let checked: Vec<_> = self
            .estimates
            .iter()
            .filter_map(|e| Some((estimate::validate_estimate(e).ok()?, e["id"].as_str().unwrap_or("?").to_string())))
            .collect();
        // the newest generation of the runs of every sample; runs focused
        // on terminal positions add to their terminal figure whatever their
        // generation (every verdict is exact, so any run's samples bound the
        // count; the newest runs are preferred only for narrower intervals)
        let mut newest: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (c, _) in checked.iter().filter(|(c, _)| c.focus == Focus::All) {
            for (k, _) in &c.layers {
                let g = newest.entry((c.n, *k)).or_default();
                *g = (*g).max(c.search_generation);
            }
        }
        // (board, layer, seed) -> the strongest document of the newest generation
        let mut chosen: BTreeMap<(u32, u32, u64), (estimate::Strength, usize)> = BTreeMap::new();
        for (i, (c, _)) in checked.iter().enumerate() {
            for (k, _) in &c.layers {
                if c.focus == Focus::All && newest[&(c.n, *k)] != c.search_generation {
                    continue;
                }
                let slot = chosen.entry((c.n, *k, c.seed)).or_insert((c.strength(), i));
                if c.strength() > slot.0 {
                    *slot = (c.strength(), i);
                }
            }
        }
        let mut out = Vec::new();
        for (i, (c, id)) in checked.iter().enumerate() {
            for (k, t) in &c.layers {
                if chosen.get(&(c.n, *k, c.seed)).map(|&(_, j)| j) == Some(i) {
                    out.push(ChosenLayer {
                        n: c.n,
                        discs: *k,
                        seed: c.seed,
                        focus: c.focus,
                        tally: *t,
                        id: id.clone(),
                    });
                }
            }
        }
        out
    }

    /// The replication check of board `n`'s estimates (see
    /// [`WholeBoard`]); None while a layer is neither counted nor sampled.
    pub fn whole_board_estimate(&self, n: u32) -> Option<WholeBoard> {
        let sampled = self.pooled_estimates().remove(&n)?;
        let exact = self.exact_layers(n);
        let estimated: Vec<u32> = sampled.keys().copied().filter(|k| !exact.contains_key(k)).collect();
        if (4..=n * n).any(|k| !exact.contains_key(&k) && !sampled.contains_key(&k)) || estimated.is_empty() {
            return None;
        }
        let layer = |k: u32, t: crate::estimate::Tally| {
            crate::estimate::LayerEstimate::new(k, crate::estimate::candidates(n, k), t)
        };
        let pooled: Vec<_> = estimated.iter().map(|&k| layer(k, sampled[&k].0)).collect();
        let mut pooled_totals = crate::estimate::totals(&pooled);
        // terminal positions from their own pool (the runs focused on them
        // too)
        let terminal_pool = self.pooled_terminal().remove(&n).unwrap_or_default();
        let terminal_layers: Vec<_> =
            estimated.iter().map(|&k| layer(k, terminal_pool.get(&k).map_or(sampled[&k].0, |p| p.0))).collect();
        pooled_totals[1] = crate::estimate::totals(&terminal_layers)[1];
        // the seeds that sample every estimated layer, each a replicate
        let seeds = self.seed_estimates(n);
        let replicates: Vec<(u64, Focus, [crate::estimate::Interval; 3])> = seeds
            .iter()
            .filter(|(_, (_, ls))| estimated.iter().all(|k| ls.contains_key(k)))
            .map(|(&seed, (focus, ls))| {
                let mine: Vec<_> = estimated.iter().map(|&k| layer(k, ls[&k])).collect();
                (seed, *focus, crate::estimate::totals(&mine))
            })
            .collect();
        // positions and classes are replicated by the runs of every
        // sample; terminal positions by the runs focused on them where
        // enough of them sample every layer (the runs of every sample,
        // far fewer terminal samples each, would set the t interval of
        // the seeds' totals by their own scatter), else by all
        let focused = replicates.iter().filter(|r| r.1 == Focus::Terminal).count();
        let replicate_of = |f: usize, r: &(u64, Focus, [crate::estimate::Interval; 3])| match f {
            1 if focused >= crate::stats::MIN_REPLICATES => r.1 == Focus::Terminal,
            1 => true,
            _ => r.1 == Focus::All,
        };
        let as_replicate = |i: &crate::estimate::Interval| Replicate { point: i.estimate, low: i.low, high: i.high };
        let replication: [Option<Replication>; 3] = [0, 1, 2].map(|f| {
            let reps: Vec<Replicate> =
                replicates.iter().filter(|r| replicate_of(f, r)).map(|(_, _, t)| as_replicate(&t[f])).collect();
            Replication::of(&reps, as_replicate(&pooled_totals[f]))
        });
        // layer by layer: each layer's positions over the seeds that sample it
        let (mut layer_q, mut layer_df) = (0.0, 0u32);
        for &k in &estimated {
            let reps: Vec<Replicate> = seeds
                .values()
                .filter(|(focus, _)| *focus == Focus::All)
                .filter_map(|(_, ls)| ls.get(&k))
                .map(|&t| as_replicate(&layer(k, t).positions))
                .collect();
            let p = layer(k, sampled[&k].0).positions;
            if let Some(r) = Replication::of(&reps, as_replicate(&p)) {
                layer_q += r.q;
                layer_df += r.m as u32 - 1;
            }
        }
        let sum = |f: &dyn Fn(&estimate::ExactLayer) -> u64| exact.values().map(|e| f(e) as f64).sum::<f64>();
        Some(WholeBoard {
            n,
            exact_layers: exact.len(),
            exact_to: exact.keys().max().copied().unwrap_or(0),
            estimated_from: estimated[0],
            exact: [sum(&|e| e.positions), sum(&|e| e.terminal_positions), sum(&|e| e.classes)],
            pooled: pooled_totals,
            replicate_seeds: replicates.iter().filter(|r| r.1 == Focus::All).map(|(s, _, _)| *s).collect(),
            replication,
            layer_q,
            layer_df,
        })
    }

    /// The exact layers of a board's by-discs table (those with positions,
    /// classes and terminal positions), to set beside estimates.
    pub fn exact_layers(&self, n: u32) -> BTreeMap<u32, estimate::ExactLayer> {
        let field =
            |row: &Map<String, Value>, col: &str| row.get(col).and_then(count).and_then(|v| u64::try_from(v).ok());
        self.tables
            .get(&format!("{n}x{n}-by-discs"))
            .into_iter()
            .flatten()
            .filter_map(|(k, row)| {
                let layer = estimate::ExactLayer {
                    positions: field(row, "positions")?,
                    classes: field(row, "classes")?,
                    terminal_positions: field(row, "terminal_positions")?,
                };
                Some((*k, layer))
            })
            .collect()
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

    fn table_csv(&self, name: &str, rows: &BTreeMap<u32, Map<String, Value>>) -> String {
        let by = if name.ends_with("by-ply") { "ply" } else { "discs" };
        let mut out = format!(
            "# schema: othello-census-catalog {CATALOG_VERSION} ({SCHEMA} {SCHEMA_VERSION} columns)\n\
             # table: {name}; generated by `othello-census catalog add`; provenance in README.md\n{by}"
        );
        let layer_by = if by == "ply" { LayerBy::Ply } else { LayerBy::Discs };
        let cols: Vec<_> = columns(layer_by, true)
            .filter(|c| rows.values().any(|r| r.get(c.name).is_some_and(|v| !v.is_null())))
            .collect();
        for c in &cols {
            out.push(',');
            out.push_str(c.name);
        }
        out.push_str(",checks,runs\n");
        for (layer, row) in rows {
            out.push_str(&layer.to_string());
            for c in &cols {
                out.push(',');
                if let Some(v) = row.get(c.name).filter(|v| !v.is_null()) {
                    out.push_str(&v.to_string());
                }
            }
            let runs: Vec<String> =
                row["runs"].as_array().into_iter().flatten().filter_map(|r| r.as_str().map(String::from)).collect();
            out.push_str(&format!(",{},{}\n", self.checks(name, *layer, row).join(" "), runs.join(" ")));
        }
        out
    }

    /// The independent checks a row passed.
    fn checks(&self, name: &str, layer: u32, row: &Map<String, Value>) -> Vec<&'static str> {
        let mut out = Vec::new();
        let engines: Vec<&str> = row["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|id| self.runs.iter().find(|r| id == r.id.as_str()))
            .map(|r| r.engine.as_str())
            .collect();
        if engines.contains(&"dfs") && engines.contains(&"layers") {
            out.push("engines");
        }
        if oracle_covers(name, layer) {
            out.push("oracle");
        }
        // every published value of a column the row holds (rows of older
        // runs lack the newer columns)
        let known: Vec<_> = published::layer_values(name, layer)
            .into_iter()
            .filter(|(col, _)| row.get(*col).is_some_and(|v| !v.is_null()))
            .collect();
        if !known.is_empty() && known.iter().all(|&(col, v)| row.get(col).and_then(count) == Some(v)) {
            out.push("published");
        }
        let perft = row["runs"].as_array().into_iter().flatten().any(|id| {
            self.runs.iter().any(|r| id == r.id.as_str() && r.perft_checked_to.is_some_and(|p| p >= layer as u64))
        });
        if perft && name.ends_with("by-ply") && layer > 0 {
            out.push("perft");
        }
        out
    }

    fn readme(&self) -> String {
        let mut out = String::from(README_INTRO);
        if !self.tables.is_empty() {
            out.push_str("![classes, positions and terminal positions per layer](census.svg)\n\n");
        }
        for name in self.tables.keys() {
            self.readme_exact(&mut out, name);
        }
        for n in self.pooled_estimates().into_keys() {
            self.readme_estimate(&mut out, n);
        }
        out
    }

    /// The README section of exact table `name`: its runs and their provenance.
    fn readme_exact(&self, out: &mut String, name: &str) {
        out.push_str(&format!("## {name}\n\nTable: [{name}.csv]({name}.csv)\n\n"));
        out.push_str("| run | layers | command | version (commit) | machine | wall time | peak RSS | peak disk |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for r in self.runs.iter().filter(|r| r.table == name) {
            let bytes = |v: Option<u64>| v.map_or("-".into(), |b| table_bytes(b as f64));
            out.push_str(&format!(
                "| {} | {}..{} | `{}` | {} ({}) | {} | {:.3} s | {} | {} |\n",
                r.id,
                r.layers[0],
                r.layers[1],
                portable_command(&r.command).replace('|', "\\|"),
                r.version,
                r.commit.as_deref().unwrap_or(NOT_RECORDED),
                machine_cell(&r.machine, true),
                r.elapsed_seconds,
                bytes(r.peak_rss_bytes),
                bytes(r.peak_disk_bytes),
            ));
        }
        out.push('\n');
    }

    /// The README section of board `n`'s estimates: its runs.
    fn readme_estimate(&self, out: &mut String, n: u32) {
        let name = format!("{n}x{n}-estimate");
        out.push_str(&format!(
            "## {name}\n\nTable: [{name}.csv]({name}.csv). Estimates, not counts: uniform samples per disc \
             count, each decided exactly by a backward search, 95% intervals (method in \
             [docs/estimate.md](../docs/estimate.md)); each layer pools the runs below of the newest search conditions \
             that sample it, whatever their budgets, one run per seed (the strongest: a resolved document in \
             place of the run it resolves), never mixed with the exact tables.\n\n| run | layers | command | version \
             (commit) | machine | seed | search | budget | census layer | samples | undecided | wall time \
             |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        ));
        for e in self.estimates.iter().filter(|e| e["size"] == n) {
            let ls = e["layers"].as_array().map_or(&[][..], |v| v.as_slice());
            let undecided: u64 = ls.iter().filter_map(|l| l["undecided"].as_u64()).sum();
            out.push_str(&format!(
                "| {} | {}..{} | `{}` | {} ({}) | {} | {} | generation {} | {} | {} | {} | {undecided} | {:.1} s |\n",
                e["id"].as_str().unwrap_or("?"),
                ls.first().map_or(json!(null), |l| l["discs"].clone()),
                ls.last().map_or(json!(null), |l| l["discs"].clone()),
                portable_command(e["command"].as_str().unwrap_or("?")).replace('|', "\\|"),
                e["version"].as_str().unwrap_or("?"),
                e["commit"].as_str().unwrap_or(NOT_RECORDED),
                machine_cell(&e["machine"], false),
                e["seed"],
                estimate::validate_estimate(e).map_or(0, |c| c.search_generation),
                e["budget"],
                match estimate::census_layer_of(e, n) {
                    Ok(Some((k, held))) => format!("{k} discs, {}", held.name()),
                    _ => "-".to_string(),
                },
                e["samples"],
                e["elapsed_seconds"].as_f64().unwrap_or(0.0),
            ));
        }
        out.push('\n');
        if let Some(line) = self.whole_board(n) {
            out.push_str(&line);
            out.push_str("\n\n");
        }
    }

    /// The answer for the whole board: every layer, exact where the
    /// census has counted it, estimated elsewhere, with the interval that
    /// replication supports ([`WholeBoard`]). None while a layer is
    /// neither counted nor sampled.
    fn whole_board(&self, n: u32) -> Option<String> {
        let w = self.whole_board_estimate(n)?;
        let show = |f: usize| {
            let (p, lo, hi) = w.published(f);
            format!("{} (95%: {} to {})", estimate::sci(p), estimate::sci(lo), estimate::sci(hi))
        };
        Some(format!(
            "**The whole {n}x{n} board**, every layer exact where the census has counted it ({} layers, to {} \
             discs) and estimated beyond (layers {}-{}): positions {}, terminal positions {}, classes {}. {}",
            w.exact_layers,
            w.exact_to,
            w.estimated_from,
            n * n,
            show(0),
            show(1),
            show(2),
            w.method(),
        ))
    }
}

/// Per board, per layer: the pooled tally and the runs that gave it.
pub type Pooled = BTreeMap<u32, BTreeMap<u32, (crate::estimate::Tally, Vec<String>)>>;

/// One layer of a document that pools.
struct ChosenLayer {
    n: u32,
    discs: u32,
    seed: u64,
    focus: crate::estimate::Focus,
    tally: crate::estimate::Tally,
    id: String,
}

/// The answer for a whole board from the catalogue: the exact layers'
/// sums, the estimated layers pooled over every seed, and whether the
/// seeds that sample every estimated layer agree (each seed's totals a
/// replicate, [`Replication`]).
#[derive(Clone, Debug)]
pub struct WholeBoard {
    /// Board side.
    pub n: u32,
    /// Exact layers, and the largest.
    pub exact_layers: usize,
    pub exact_to: u32,
    /// The first estimated layer (all above it are estimated).
    pub estimated_from: u32,
    /// The exact layers' positions, terminal positions and classes.
    pub exact: [f64; 3],
    /// The estimated layers pooled: positions, terminal positions, classes.
    pub pooled: [crate::estimate::Interval; 3],
    /// The replicate seeds.
    pub replicate_seeds: Vec<u64>,
    /// The replication check of each figure (three or more replicates).
    pub replication: [Option<Replication>; 3],
    /// Layer by layer: the summed Cochran Q of the layers' positions over
    /// the seeds that sample them, and its degrees of freedom.
    pub layer_q: f64,
    pub layer_df: u32,
}

impl WholeBoard {
    /// Figure `f`'s point and published interval, exact layers added: the
    /// replication interval where there is one, else the pooled one.
    pub fn published(&self, f: usize) -> (f64, f64, f64) {
        let x = self.exact[f];
        let p = &self.pooled[f];
        match &self.replication[f] {
            Some(r) => (x + p.estimate, x + r.low, x + r.high),
            None => (x + p.estimate, x + p.low, x + p.high),
        }
    }

    /// The estimate table's comment line on the whole board.
    pub fn csv_note(&self) -> String {
        let (p, lo, hi) = self.published(0);
        let agreement = match &self.replication[0] {
            Some(r) => format!(
                "the {} seeds that sample every estimated layer {} (Cochran's Q {:.1} on {} degrees of freedom, p \
                 {:.3}); the interval holds under their scatter (the union of the pooled interval widened by the \
                 Birge ratio and the t interval of their totals)",
                r.m,
                r.verdict(),
                r.q,
                r.m - 1,
                r.p
            ),
            None => "fewer than three seeds sample every estimated layer: their agreement is not checked".into(),
        };
        format!(
            "# whole board: {} positions (95%: {} to {}), exact layers to {} discs added; {agreement}; \
             method in README.md and docs/estimate.md\n",
            estimate::sci(p),
            estimate::sci(lo),
            estimate::sci(hi),
            self.exact_to
        )
    }

    /// How the positions' interval was made, and what replication found,
    /// in a sentence or two.
    pub fn method(&self) -> String {
        let base = "The point is the middle of the two points the undecided samples allow (all unreachable, \
                    all reachable); the pooled interval combines the layers' Wilson intervals with continuity correction (MOVER).";
        match &self.replication[0] {
            None => format!(
                "{base} Fewer than {} seeds sample every estimated layer ({}): the seeds' agreement is not checked.",
                crate::stats::MIN_REPLICATES,
                self.replicate_seeds.len()
            ),
            Some(r) => format!(
                "{base} Replication: {} seeds sample every estimated layer ({}); their position totals give \
                 Cochran's Q = {:.1} on {} degrees of freedom (p = {:.3}){}; layer by layer Q = {:.1} on {} \
                 (p = {:.2}). The interval given is the union of the pooled interval widened by the Birge ratio \
                 {:.2} ({} to {}) and Student's t interval of the seeds' totals ({} to {}).",
                r.m,
                self.replicate_seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
                r.q,
                r.m - 1,
                r.p,
                if r.disagree() {
                    ": **the seeds disagree beyond chance**".to_string()
                } else {
                    format!(": they {}", r.verdict())
                },
                self.layer_q,
                self.layer_df,
                crate::stats::chi_square_tail(self.layer_q, self.layer_df),
                r.birge.max(1.0),
                estimate::sci(self.exact[0] + r.widened_low),
                estimate::sci(self.exact[0] + r.widened_high),
                estimate::sci(self.exact[0] + r.t_low),
                estimate::sci(self.exact[0] + r.t_high),
            ),
        }
    }
}

/// The opening of the catalogue's README: what the tables are and the
/// checks a row passed.
const README_INTRO: &str = "# Results\n\n\
             Counts computed by othello-census, exactly. Every table here is generated by\n\
             `othello-census catalog add RUN.json` from the JSON result of a finished run\n\
             (never typed by hand) and checked as it is added: layers contiguous and\n\
             consistent, game counts equal to an independent perft walk where one is\n\
             affordable, and every row equal to the rows other runs gave. `catalog.json`\n\
             is the source of the tables; column definitions are in\n\
             [docs/results-format.md](../docs/results-format.md).\n\n\
             Checks per row (column `checks` of each CSV):\n\n\
             - `engines`: the DFS engine and the layered engine gave this row, equal in every column both count.\n\
             - `oracle`: the layer is compared with the naive oracle (`tests/oracle/`, no code shared with the\n  \
               engines) by the test suite: every 4x4 layer, 6x6 to 12 discs, 8x8 to 10 discs, 8x8 to 9 plies.\n\
             - `published`: equals every published value for the row (`src/published.rs`): 4x4 positions per\n  \
               disc count and games per ply in both conventions; on 8x8 by ply, positions against OEIS A124005\n  \
               a(0..9), `games` against OEIS A124004 a(0..21) and `games_including_ended` against Aart Bik's perft\n  \
               (plies 0-10, 14, 15). A run that disagrees with a published value is refused.\n\
             - `perft`: by ply, `games`, `games_passes` and `games_including_ended` equal an independent perft walk,\n  \
               recomputed when the run was added.\n\n\
             Game columns by ply: `games` counts games of exactly n plies (a pass is a ply; games that ended earlier\n\
             are dropped): on 8x8 this is OEIS A124004. `games_including_ended` keeps counting a game that ended\n\
             earlier (Bik's convention); it is not an OEIS sequence.\n\n";

/// What `results/` shows for a fact a run's file does not give.
const NOT_RECORDED: &str = "not recorded";

/// Placeholders for the values of the flags that name a local file or
/// directory, in the commands `results/README.md` shows.
const PATH_FLAGS: [(&str, &str); 6] = [
    ("--work-dir", "WORKDIR"),
    ("--census-layer", "CENSUS_WORKDIR"),
    ("--odd-pass-census", "CENSUS_WORKDIR"),
    ("--out", "OUT_DIR"),
    ("--resolve", "ESTIMATE.json"),
    ("--checkpoint", "CHECKPOINT"),
];

/// A recorded command as a reader can type it: the program (a local
/// binary such as `/work/runs/oc-cat` or `./oc-s4`) becomes
/// `othello-census`, and the value of every flag naming a local file or
/// directory ([`PATH_FLAGS`], also as `--flag=value`) and the run that
/// `resume` continues become placeholders (`--work-dir WORKDIR`). Words
/// quoted for the shell (a position) are kept whole.
pub fn portable_command(command: &str) -> String {
    let mut words = shell_split(command);
    if words.is_empty() {
        return String::new();
    }
    words[0] = "othello-census".to_string();
    let mut i = 1;
    while i < words.len() {
        let flag = PATH_FLAGS.iter().find(|(f, _)| words[i] == *f || words[i].starts_with(&format!("{f}=")));
        match flag {
            Some((f, placeholder)) if words[i] == *f && i + 1 < words.len() => {
                words[i + 1] = placeholder.to_string();
                i += 1;
            }
            Some((f, placeholder)) if words[i] != *f => words[i] = format!("{f}={placeholder}"),
            _ if i == 2 && words[1] == "resume" && !words[i].starts_with('-') => {
                words[i] = if words[i].ends_with(".ckpt") { "CHECKPOINT" } else { "WORKDIR" }.to_string();
            }
            _ => {}
        }
        i += 1;
    }
    words.join(" ")
}

/// The words of a shell command, each as written (quotes kept): spaces
/// inside single or double quotes or after a backslash do not split.
fn shell_split(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut escaped = false;
    for c in command.chars() {
        if escaped {
            escaped = false;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == '\\' {
            escaped = true;
        } else if c == '\'' || c == '"' {
            quote = Some(c);
        } else if c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The machine column: cores and RAM as the result file gives them, or
/// "not recorded" where it gives none (a run of a build before they were).
fn machine_cell(machine: &Value, with_ram: bool) -> String {
    let cores = machine["cores"].as_u64().map(|c| format!("{c} cores"));
    let ram = machine["memory_bytes"].as_f64().map(|b| format!("{} RAM", table_bytes(b)));
    match (cores, with_ram.then_some(ram).flatten()) {
        (None, None) => "not recorded".to_string(),
        (Some(c), None) if !with_ram => c,
        (c, r) => format!(
            "{}, {}",
            c.unwrap_or_else(|| "cores not recorded".into()),
            r.unwrap_or_else(|| "RAM not recorded".into())
        ),
    }
}

#[cfg(test)]
mod portable_tests {
    use super::*;

    #[test]
    fn commands_lose_local_binaries_and_paths() {
        assert_eq!(
            portable_command(
                "/work/runs/oc-cat count --engine layers --size 4 -q --work-dir /work/runs/cat-work/4-discs"
            ),
            "othello-census count --engine layers --size 4 -q --work-dir WORKDIR"
        );
        assert_eq!(
            portable_command("./oc-s4 count --size 8 --out /work/runs/p14out-full --progress-every 1m"),
            "othello-census count --size 8 --out OUT_DIR --progress-every 1m"
        );
        assert_eq!(
            portable_command(
                "othello-census estimate --resolve /work/runs/est57.json --budget 130000000 --census-layer=/work/runs/c18 -q"
            ),
            "othello-census estimate --resolve ESTIMATE.json --budget 130000000 --census-layer=CENSUS_WORKDIR -q"
        );
        assert_eq!(
            portable_command("oc estimate --odd-pass-census '/my runs/c18' --seed 52"),
            "othello-census estimate --odd-pass-census CENSUS_WORKDIR --seed 52"
        );
        // a quoted position stays one word, untouched
        let reach = "othello-census reachable --size 6 --position 'X----- ------ --OX-- --XO-- ------ ------ O'";
        assert_eq!(portable_command(&format!("./oc{}", &reach["othello-census".len()..])), reach);
        assert_eq!(
            portable_command("/tmp/oc resume /work/runs/a15 --plies 15"),
            "othello-census resume WORKDIR --plies 15"
        );
        assert_eq!(portable_command("oc resume /x/6x6-dfs-18.ckpt"), "othello-census resume CHECKPOINT");
        // already portable
        let plain = "othello-census count --size 6 --max-discs 16 -q --memory 6GiB";
        assert_eq!(portable_command(plain), plain);
        assert_eq!(portable_command(""), "");
    }

    #[test]
    fn missing_machine_facts_read_not_recorded() {
        assert_eq!(machine_cell(&json!({"cores": null}), true), "not recorded");
        assert_eq!(machine_cell(&json!({}), false), "not recorded");
        assert_eq!(machine_cell(&json!({"cores": 2}), false), "2 cores");
        assert_eq!(machine_cell(&json!({"cores": 2, "memory_bytes": 25276063744u64}), true), "2 cores, 23.54 GiB RAM");
        assert_eq!(machine_cell(&json!({"cores": 2}), true), "2 cores, RAM not recorded");
    }
}

/// An OEIS sequence whose terms the catalogue holds: its A-number, what it
/// counts, the table and column of the terms, and the first n of its b-file.
pub struct OeisSequence {
    /// `A124004`.
    pub a_number: &'static str,
    /// What a(n) counts.
    pub what: &'static str,
    /// The catalogue table.
    pub table: &'static str,
    /// The column of that table.
    pub column: &'static str,
    /// The first n written.
    pub first: u32,
}

/// The OEIS sequences on 8x8 Othello by ply the catalogue can hold.
pub const OEIS: [OeisSequence; 5] = [
    OeisSequence {
        a_number: "A124004",
        what: "games of exactly n plies (a pass is a ply; games that ended earlier are dropped)",
        table: "8x8-by-ply",
        column: "games",
        first: 0,
    },
    OeisSequence {
        a_number: "A124005",
        what: "distinct positions after exactly n plies",
        table: "8x8-by-ply",
        column: "positions",
        first: 1,
    },
    OeisSequence {
        a_number: "A124006",
        what: "positions reached by exactly one game of n plies",
        table: "8x8-by-ply",
        column: "positions_unique",
        first: 1,
    },
    OeisSequence {
        a_number: "A125528",
        what: "distinct shapes (sets of occupied squares) after exactly n plies",
        table: "8x8-by-ply",
        column: "shapes",
        first: 1,
    },
    OeisSequence {
        a_number: "A125529",
        what: "shapes reached by exactly one game of n plies",
        table: "8x8-by-ply",
        column: "shapes_unique",
        first: 1,
    },
];

impl Catalog {
    /// The OEIS b-file of `seq` from the catalogue alone: comment lines
    /// naming the tool and the runs (with their commits) behind each term,
    /// then `n a(n)` for every n from `seq.first` while the catalogue holds
    /// the term; None when it holds none.
    pub fn bfile(&self, seq: &OeisSequence) -> Option<String> {
        let rows = self.tables.get(seq.table)?;
        let terms: Vec<(u32, u128, Vec<String>)> = (seq.first..)
            .map_while(|n| {
                let row = rows.get(&n)?;
                let v = row.get(seq.column).and_then(count)?;
                // the runs that counted this column
                let runs = row["runs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.as_str())
                    .filter(|id| self.runs.iter().any(|r| r.id == *id && r.counted(seq.column)));
                Some((n, v, runs.map(String::from).collect()))
            })
            .collect();
        if terms.is_empty() {
            return None;
        }
        let commit = |id: &str| {
            self.runs.iter().find(|r| r.id == id).map_or("?".to_string(), |r| match &r.commit {
                Some(c) => format!("{} {c}", r.version),
                None => format!("{}, commit {NOT_RECORDED}", r.version),
            })
        };
        let mut out = format!(
            "# {}: Othello (Reversi) on 8x8, {}.\n# Terms computed exactly by othello-census; this file \
             is generated by `othello-census catalog oeis` from results/catalog.json (provenance of every run in \
             results/README.md).\n",
            seq.a_number, seq.what
        );
        for (n, _, runs) in &terms {
            let runs: Vec<String> = runs.iter().map(|r| format!("{r} (othello-census {})", commit(r))).collect();
            out.push_str(&format!("# a({n}): {}\n", runs.join(", ")));
        }
        for (n, v, _) in &terms {
            out.push_str(&format!("{n} {v}\n"));
        }
        Some(out)
    }

    /// Writes the b-file of every sequence the catalogue holds terms of
    /// into `dir/oeis/` (`b124004.txt`, ...).
    pub fn save_bfiles(&self, dir: &Path) -> Result<Vec<PathBuf>, CatalogError> {
        let out = dir.join("oeis");
        std::fs::create_dir_all(&out).map_err(|e| CatalogError::Io { path: out.clone(), error: e })?;
        let mut written = Vec::new();
        for seq in &OEIS {
            if let Some(text) = self.bfile(seq) {
                let p = out.join(format!("b{}.txt", &seq.a_number[1..]));
                atomic_write(&p, text.as_bytes()).map_err(|e| CatalogError::Io { path: p.clone(), error: e })?;
                written.push(p);
            }
        }
        Ok(written)
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
    fn same_run(&self, other: &RunEntry) -> bool {
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
    fn counted(&self, column: &str) -> bool {
        match &self.columns {
            Some(cols) => cols.iter().any(|c| c == column),
            None => !["positions_unique", "shapes", "shapes_unique"].contains(&column),
        }
    }
}

/// The catalogue's record of a run from its (validated) result document.
fn run_entry(id: &str, doc: &Value, layers: &[Value]) -> Result<RunEntry, String> {
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
fn table_name(doc: &Value) -> String {
    format!("{0}x{0}-by-{1}", doc["size"], doc["layer_by"].as_str().unwrap_or("?"))
}

/// Whether the test suite compares this layer with the oracle.
fn oracle_covers(name: &str, layer: u32) -> bool {
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
fn perft_checked_to(doc: &Value) -> Option<u64> {
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
fn count(v: &Value) -> Option<u128> {
    v.as_u64().map(u128::from).or_else(|| v.is_number().then(|| v.to_string().parse().ok()).flatten())
}

/// A result document with the columns of the current schema: versions 1
/// and 2 called `games_including_ended` `games_a124004`.
fn upgrade(doc: &Value) -> Value {
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

/// Checks a result document (of the current schema, [`upgrade`]); returns
/// its layers.
fn validate<'a>(path: &Path, doc: &'a Value) -> Result<&'a Vec<Value>, CatalogError> {
    // version 1 wrote every column (by-ply ones empty or meaningless by
    // discs); the tables take the meaningful ones from either
    let version = doc["schema_version"].as_u64();
    if doc["schema"] != SCHEMA || !version.is_some_and(|v| (1..=SCHEMA_VERSION as u64).contains(&v)) {
        return Err(refuse(path, format!("not a finished run's result ({SCHEMA} 1 to {SCHEMA_VERSION})")));
    }
    let size = doc["size"].as_u64().filter(|n| [4, 6, 8].contains(n)).ok_or_else(|| refuse(path, "no board size"))?;
    let by = doc["layer_by"].as_str().ok_or_else(|| refuse(path, "no layer_by"))?;
    let limit = doc["limit"].as_u64().ok_or_else(|| refuse(path, "no limit"))?;
    let layers = doc["layers"].as_array().filter(|l| !l.is_empty()).ok_or_else(|| refuse(path, "no layers"))?;
    let first = if by == "ply" { 0 } else { 4 };
    let check = LayerCheck { path, table: table_name(doc), by_ply: by == "ply" };
    let mut ended_before = 0u128;
    for (i, l) in layers.iter().enumerate() {
        let layer = l["layer"].as_u64().ok_or_else(|| refuse(path, "a layer without its index"))?;
        if layer != first + i as u64 {
            return Err(refuse(path, format!("layers are not contiguous from {first}: layer {layer} at place {i}")));
        }
        check.layer(layer, l, &mut ended_before)?;
    }
    check_start(path, &layers[0])?;
    check_run(path, doc, layers, limit)?;
    if let Some(to) = perft_checked_to(doc) {
        check_perft(path, size as u32, layers, to as u32)?;
    }
    // last, so that an inconsistent document is named by what is wrong in
    // it; an edit that keeps it consistent (a +1 to a count no check
    // relates to another) is found here. Versions 1 to 3 carry none.
    if version.is_some_and(|v| v >= 4) {
        super::seal::verify(doc).map_err(|e| refuse(path, e))?;
    }
    Ok(layers)
}

/// Whether a result document was written before documents carried a
/// checksum (schema versions 1 to 3): `catalog add` checks its
/// invariants but cannot find an edit that keeps them.
pub fn unsealed(doc: &Value) -> bool {
    let v = doc["schema_version"].as_u64().unwrap_or(0);
    if doc["schema"] == estimate::ESTIMATE_SCHEMA { v < 3 } else { v < 4 }
}

/// The first layer is the start: one position (one class, one board),
/// not terminal and not a pass, reached by one game that neither passed
/// nor ended, one shape reached by that one game.
fn check_start(path: &Path, l: &Value) -> Result<(), CatalogError> {
    let one = ["positions", "classes", "boards", "games", "positions_unique", "shapes", "shapes_unique"];
    let none = ["terminal_positions", "pass_positions", "games_passes", "games_ended"];
    let wrong = |f: &&str, want: u128| !l[*f].is_null() && count(&l[*f]) != Some(want);
    if let Some(f) = one.iter().find(|f| wrong(f, 1)).or_else(|| none.iter().find(|f| wrong(f, 0))) {
        return Err(refuse(
            path,
            format!("layer {}: {f} is {} but the start layer has one position reached by one game", l["layer"], l[*f]),
        ));
    }
    Ok(())
}

/// The checks of one layer of a result document: its counts consistent
/// with one another and with the published values, its histograms adding
/// up, its game counts consistent with the layers before it.
struct LayerCheck<'p> {
    path: &'p Path,
    /// The catalogue table the run goes to ([`table_name`]).
    table: String,
    by_ply: bool,
}

impl LayerCheck<'_> {
    /// Column `f` of layer `l`: none where it is absent or null, an error
    /// where it is not a count.
    fn num(&self, l: &Value, f: &str) -> Result<Option<u128>, CatalogError> {
        match &l[f] {
            Value::Null => Ok(None),
            v => {
                count(v).map(Some).ok_or_else(|| refuse(self.path, format!("layer {}: {f} is not a count", l["layer"])))
            }
        }
    }

    /// Column `f` of layer `l`, which every layer has.
    fn get(&self, l: &Value, f: &str) -> Result<u128, CatalogError> {
        self.num(l, f)?.ok_or_else(|| refuse(self.path, format!("layer {}: no {f}", l["layer"])))
    }

    fn refuse(&self, layer: u64, what: impl std::fmt::Display) -> CatalogError {
        refuse(self.path, format!("layer {layer}: {what}"))
    }

    /// Checks layer `layer` (object `l`); `ended_before` is the games ended
    /// in the layers before it, and is moved past this one.
    fn layer(&self, layer: u64, l: &Value, ended_before: &mut u128) -> Result<(), CatalogError> {
        let get = |f: &str| self.get(l, f);
        let (pos, cls, brd) = (get("positions")?, get("classes")?, get("boards")?);
        let (tp, tc, tb) = (get("terminal_positions")?, get("terminal_classes")?, get("terminal_boards")?);
        let (pp, pc) = (get("pass_positions")?, get("pass_classes")?);
        let fine = cls <= pos
            && pos <= 4 * cls
            && brd <= pos
            && tc <= cls
            && tp <= pos
            && tb <= brd
            && tb <= tp
            && pc <= cls
            && pp <= pos
            && tc <= tp
            && pc <= pp
            // a class has at most four positions
            && tp <= 4 * tc
            && pp <= 4 * pc;
        if !fine {
            return Err(self.refuse(layer, "the counts are inconsistent with one another"));
        }
        // the terminal positions split by result (added within schema 2) add up
        if let Some(bw) = self.num(l, "terminal_black_wins")? {
            let (dr, ww) = (get("terminal_draws")?, get("terminal_white_wins")?);
            if bw + dr + ww != tp {
                return Err(self.refuse(layer, "the results of the terminal positions do not add up"));
            }
        }
        for (col, want) in published::layer_values(&self.table, layer as u32) {
            if let Some(v) = self.num(l, col)?
                && v != want
            {
                return Err(self.refuse(layer, format!("{col} is {v} but the published value is {want}")));
            }
        }
        self.spread(layer, l, pos)?;
        if let Some(games) = self.num(l, "games")? {
            let a = self.num(l, "games_including_ended")?;
            let ended = self.num(l, "games_ended")?.unwrap_or(0);
            if a.is_some_and(|a| a != games + *ended_before) || ended > games {
                return Err(self.refuse(layer, "the game counts are inconsistent"));
            }
            *ended_before += ended;
        }
        Ok(())
    }

    /// The positions by the games that reach them (added within schema 3)
    /// add up to the layer's `positions` and, by ply, to its games; their
    /// first bucket is the positions reached by exactly one game.
    fn spread(&self, layer: u64, l: &Value, positions: u128) -> Result<(), CatalogError> {
        let Some(spread) = l.get(super::census::SPREAD).and_then(Value::as_object) else {
            return Ok(());
        };
        let (mut n, mut g) = (0u128, 0u128);
        for (label, v) in spread {
            let bad = || self.refuse(layer, format!("a bad game bucket {label}"));
            let (positions, games) = (count(&v["positions"]).ok_or_else(bad)?, count(&v["games"]).ok_or_else(bad)?);
            // bucket `a-b` holds positions reached by a to b games each (`1`:
            // by exactly one, so its games are its positions)
            let (lo, hi) = match label.split_once('-') {
                Some((a, b)) => (a.parse::<u128>().ok(), b.parse::<u128>().ok()),
                None => (label.parse::<u128>().ok(), label.parse::<u128>().ok()),
            };
            let (Some(lo), Some(hi)) = (lo, hi) else { return Err(bad()) };
            if positions == 0 || games < positions.saturating_mul(lo) || games > positions.saturating_mul(hi) {
                return Err(self.refuse(
                    layer,
                    format!(
                        "bucket {label} of the positions by games holds {positions} positions and {games} games, \
                         not {lo} to {hi} games a position"
                    ),
                ));
            }
            n += positions;
            g += games;
        }
        let one = spread.get("1").and_then(|v| count(&v["positions"])).unwrap_or(0);
        let games = self.num(l, "games")?;
        if n != positions
            || (self.by_ply && games.is_some_and(|games| games != g))
            || self.num(l, "positions_unique")? != Some(one)
        {
            return Err(self.refuse(layer, "the positions by games do not add up to the layer's positions and games"));
        }
        Ok(())
    }
}

/// The checks of a whole run: it reached its limit or is complete, its
/// completeness flag agrees with its last layer, its totals are the sums of
/// its layers.
fn check_run(path: &Path, doc: &Value, layers: &[Value], limit: u64) -> Result<(), CatalogError> {
    let last = layers.last().expect("not empty");
    let last_layer = last["layer"].as_u64().expect("checked");
    let complete = doc["complete"].as_bool().ok_or_else(|| refuse(path, "no completeness"))?;
    if last_layer > limit || (!complete && last_layer < limit) {
        return Err(refuse(
            path,
            format!("incomplete: the run stops at layer {last_layer} before its limit {limit} and is not complete"),
        ));
    }
    if complete != (last["classes"] == last["terminal_classes"]) {
        return Err(refuse(path, "the completeness flag disagrees with the last layer"));
    }
    let sum = |f: &str| layers.iter().map(|l| count(&l[f]).unwrap_or(0)).sum::<u128>();
    for f in ["positions", "classes", "boards", "terminal_positions", "pass_positions"] {
        if count(&doc["totals"][f]) != Some(sum(f)) {
            return Err(refuse(path, format!("totals.{f} is not the sum of the layers")));
        }
    }
    // every other count of the totals too (the histogram of differences
    // aside): each is its column's sum
    for (f, v) in doc["totals"].as_object().into_iter().flatten() {
        if f != super::census::DIFFERENCES && !v.is_null() && count(v) != Some(sum(f)) {
            return Err(refuse(path, format!("totals.{f} is not the sum of the layers")));
        }
    }
    Ok(())
}

/// Compares the game columns of a by-ply run with perft up to ply `to`.
fn check_perft(path: &Path, size: u32, layers: &[Value], to: u32) -> Result<(), CatalogError> {
    if to == 0 {
        return Ok(());
    }
    let rows = crate::with_geometry!(
        crate::board::BoardSize::from_n(size).expect("validated"),
        G => crate::search::perft::perft::<G>(to)
    );
    for r in rows {
        let l = &layers[r.ply as usize];
        let want = [("games", r.games), ("games_passes", r.passes), ("games_including_ended", r.games_including_ended)];
        for (f, v) in want {
            if l[f].to_string().parse::<u128>().ok() != Some(v) {
                return Err(refuse(path, format!("ply {}: {f} is {} but perft counts {v}", r.ply, l[f])));
            }
        }
    }
    Ok(())
}
