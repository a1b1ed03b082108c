//! The report of an estimate: a table, a JSON document, and the exact
//! counts of the catalogue beside the estimated layers it has counted.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::Table;
use crate::estimate::{Estimate, Focus, Interval, LayerEstimate, SearchLimits, Tally, candidates};
use crate::search::reachable::LayerHeld;

/// The schema name of an estimate's JSON document.
pub const ESTIMATE_SCHEMA: &str = "othello-census-estimate";
/// Its version. Version 2 (2026-11-27): each figure's point is the middle
/// of the two its undecided samples allow (all unreachable, all
/// reachable), and the totals' intervals combine the layers' Wilson
/// intervals (MOVER); version 1 documents (the point with every undecided
/// sample unreachable, normal totals) are read and checked as written.
/// Version 3 added `checksum` ([`super::seal`]): a document edited after
/// it was written (another seed, a changed total) is refused; versions 1
/// and 2 are read without one. Version 4 added `focus` (`all`, or
/// `terminal`: only terminal candidates decided, the others counted in
/// the tally's `not_terminal`); earlier documents decided every sample.
pub const ESTIMATE_SCHEMA_VERSION: u32 = 4;

/// The exact figures of a layer counted by the census.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactLayer {
    /// Reachable positions.
    pub positions: u64,
    /// Classes.
    pub classes: u64,
    /// Terminal positions.
    pub terminal_positions: u64,
}

fn interval_json(i: &Interval) -> Value {
    json!({ "estimate": i.estimate, "low": i.low, "high": i.high })
}

fn inside(i: &Interval, exact: u64) -> bool {
    let x = exact as f64;
    // the ends are floating point: a relative slack of 1e-12
    i.low <= x * (1.0 + 1e-12) && x <= i.high * (1.0 + 1e-12)
}

/// The JSON document of an estimate (`docs/estimate.md`), sealed with its
/// checksum.
pub fn estimate_json(e: &Estimate, command: &str, exact: &BTreeMap<u32, ExactLayer>) -> Value {
    let layers: Vec<Value> = e
        .layers
        .iter()
        .map(|l| {
            let ex = exact.get(&l.discs);
            json!({
                "discs": l.discs,
                "candidates": l.candidates,
                "samples": l.tally.samples,
                "joined": l.tally.joined,
                "reachable": l.tally.reachable,
                "unreachable": l.tally.unreachable,
                "undecided": l.tally.undecided,
                "terminal": l.tally.terminal,
                "nodes": l.tally.nodes,
                "tally": l.tally,
                "positions": interval_json(&l.positions),
                "terminal_positions": interval_json(&l.terminal_positions),
                "classes": interval_json(&l.classes),
                "exact": ex.map(|x| json!({
                    "positions": x.positions,
                    "classes": x.classes,
                    "terminal_positions": x.terminal_positions,
                    "positions_inside": inside(&l.positions, x.positions),
                })),
            })
        })
        .collect();
    let compared: Vec<bool> =
        e.layers.iter().filter_map(|l| exact.get(&l.discs).map(|x| inside(&l.positions, x.positions))).collect();
    let mut doc = json!({
        "schema": ESTIMATE_SCHEMA,
        "schema_version": ESTIMATE_SCHEMA_VERSION,
        "tool": "othello-census",
        "version": env!("CARGO_PKG_VERSION"),
        "commit": crate::COMMIT,
        "machine": super::census::machine(),
        "command": command,
        "size": e.n,
        "rules": "standard",
        "method": "uniform candidates per disc count (centre occupied, each disc black or white, either side to move), \
                   each decided exactly by a backward search to an enumerated frontier; Wilson 95% intervals",
        "seed": e.seed,
        "samples": e.samples,
        "rounds": e.rounds,
        "budget": e.limits.budget,
        "sat_conflicts": e.limits.relaxation_conflicts,
        "exact_conflicts": e.limits.exact_conflicts,
        "exact_solver": e.limits.exact_solver.name(),
        "beam_width": e.limits.beam_width,
        "sweep_width": e.limits.sweep_width,
        "focus": e.focus.name(),
        "search_generation": e.search_generation,
        "frontier_discs": e.frontier_discs,
        "frontier_classes": e.frontier_classes,
        "frontier_seconds": e.frontier_seconds,
        "census_layer": e.census_layer,
        "elapsed_seconds": e.elapsed_seconds,
        "threads": e.threads,
        "interrupted": e.interrupted,
        "totals": {
            "positions": interval_json(&e.total_positions),
            "terminal_positions": interval_json(&e.total_terminal_positions),
            "classes": interval_json(&e.total_classes),
            "samples": e.samples,
            "reachable": e.layers.iter().map(|l| l.tally.reachable).sum::<u64>(),
            "undecided": e.layers.iter().map(|l| l.tally.undecided).sum::<u64>(),
        },
        "coverage": { "exact_layers": compared.len(), "inside": compared.iter().filter(|b| **b).count() },
        "layers": layers,
        "undecided_samples": e.undecided_samples,
        "resolved": e.resolved,
    });
    super::seal::seal(&mut doc);
    doc
}

/// A number to three significant digits (`1.23e12`), or exactly below
/// ten thousand.
pub fn sci(x: f64) -> String {
    if x < 1e4 { format!("{x:.0}") } else { format!("{x:.3e}") }
}

/// The table of a run focused on terminal positions: its positions and
/// classes are only bounded above, so it shows the terminal figure alone.
fn terminal_table(e: &Estimate) -> String {
    let mut t =
        Table::new(["discs", "samples", "terminal, joined", "reachable", "undecided", "terminal", "95% interval"]);
    let row = |discs: String, t: &Tally, i: &Interval| {
        [
            discs,
            t.samples.to_string(),
            (t.joined - t.not_terminal).to_string(),
            t.reachable.to_string(),
            t.undecided.to_string(),
            sci(i.estimate),
            format!("{} - {}", sci(i.low), sci(i.high)),
        ]
    };
    for l in &e.layers {
        t.row(row(l.discs.to_string(), &l.tally, &l.terminal_positions));
    }
    let all = e.layers.iter().fold(Tally::default(), |a, l| a.plus(l.tally));
    t.row(row("total".to_string(), &all, &e.total_terminal_positions));
    t.render()
}

/// The table of an estimate.
pub fn estimate_table(e: &Estimate, exact: &BTreeMap<u32, ExactLayer>) -> String {
    if e.focus == Focus::Terminal {
        return terminal_table(e);
    }
    let mut t = Table::new([
        "discs",
        "samples",
        "reachable",
        "undecided",
        "positions",
        "95% interval",
        "terminal",
        "classes",
        "exact positions",
    ]);
    for l in &e.layers {
        let ex = exact.get(&l.discs).map_or(String::new(), |x| {
            format!("{} {}", x.positions, if inside(&l.positions, x.positions) { "(inside)" } else { "(OUTSIDE)" })
        });
        t.row([
            l.discs.to_string(),
            l.tally.samples.to_string(),
            l.tally.reachable.to_string(),
            l.tally.undecided.to_string(),
            sci(l.positions.estimate),
            format!("{} - {}", sci(l.positions.low), sci(l.positions.high)),
            sci(l.terminal_positions.estimate),
            sci(l.classes.estimate),
            ex,
        ]);
    }
    let p = &e.total_positions;
    t.row([
        "total".to_string(),
        e.samples.to_string(),
        e.layers.iter().map(|l| l.tally.reachable).sum::<u64>().to_string(),
        e.layers.iter().map(|l| l.tally.undecided).sum::<u64>().to_string(),
        sci(p.estimate),
        format!("{} - {}", sci(p.low), sci(p.high)),
        sci(e.total_terminal_positions.estimate),
        sci(e.total_classes.estimate),
        String::new(),
    ]);
    t.render()
}

/// Why an estimate document is refused: what is wrong in it, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidEstimate(pub String);

/// An estimate document, checked: its schema, a board size,
/// candidate counts equal to the exact ones, tallies that add up, and
/// intervals equal to the ones its tallies give (a document edited by hand
/// is refused).
pub fn validate_estimate(doc: &Value) -> Result<CheckedEstimate, InvalidEstimate> {
    check_estimate(doc).map_err(InvalidEstimate)
}

/// A document's count `key`, 0 where it is absent (documents from before
/// the field); refused, as `what` "of" its value, where it is not a whole
/// number.
fn count_or_zero(doc: &Value, key: &str, what: &str) -> Result<u64, String> {
    match &doc[key] {
        Value::Null => Ok(0),
        c => c.as_u64().ok_or_else(|| format!("{what} of {c}, not a whole number")),
    }
}

fn check_estimate(doc: &Value) -> Result<CheckedEstimate, String> {
    let version = match doc["schema_version"].as_u64() {
        Some(v) if doc["schema"] == ESTIMATE_SCHEMA && (1..=u64::from(ESTIMATE_SCHEMA_VERSION)).contains(&v) => v,
        _ => {
            return Err(format!("not an {ESTIMATE_SCHEMA} document of version 1 to {ESTIMATE_SCHEMA_VERSION}"));
        }
    };
    let n = doc["size"].as_u64().filter(|n| [4, 6, 8].contains(n)).ok_or("no board size 4, 6 or 8")? as u32;
    let seed = doc["seed"].as_u64().ok_or("no seed")?;
    let budget = match &doc["budget"] {
        Value::Null => return Err("no search budget".into()),
        b => b.as_u64().filter(|&b| b > 0).ok_or_else(|| format!("a search budget of {b}, not 1 to 2^64 - 1"))?,
    };
    // a run stopped by a signal kept, of the samples under way, those
    // whose searches had ended: the quick ones, so its figures may lean
    if doc["interrupted"] == true {
        return Err("an interrupted run (stopped by a signal, its last round's long searches left out, so its \
                    figures may lean); run it again to its end"
            .into());
    }
    let census_layer = census_layer_of(doc, n)?;
    let census_classes = doc["census_layer"]["classes"].as_u64();
    // documents before version 4 decided every sample
    let focus = match (&doc["focus"], version) {
        (Value::Null, 1..=3) => Focus::All,
        (f, _) => {
            serde_json::from_value(f.clone()).map_err(|_| format!("a focus of {f}, not \"all\" or \"terminal\""))?
        }
    };
    // documents before the field were of the first generation
    let search_generation = match &doc["search_generation"] {
        Value::Null => 1,
        g => g.as_u64().filter(|&g| g >= 1).ok_or("a bad search generation")? as u32,
    };
    // documents before generation 4 had no beam, before 5 no sweep,
    // before the exact encoding (2026-11-26) no exact conflicts, before
    // the flip-history relaxation no relaxation conflicts
    let beam_width = count_or_zero(doc, "beam_width", "a beam width")?;
    let sweep_width = count_or_zero(doc, "sweep_width", "a sweep width")?;
    let exact_conflicts = count_or_zero(doc, "exact_conflicts", "exact conflicts")?;
    let relaxation_conflicts = count_or_zero(doc, "sat_conflicts", "sat_conflicts")?;
    // the solver's name, as written (documents before it had no exact
    // encoding: BatSat, the one always built)
    let exact_solver = match &doc["exact_solver"] {
        Value::Null => "batsat".to_string(),
        s => s.as_str().ok_or_else(|| format!("an exact solver of {s}, not a name"))?.to_string(),
    };
    let mut out = Vec::new();
    for l in doc["layers"].as_array().ok_or("no layers")? {
        let k = l["discs"].as_u64().filter(|k| (4..=(n * n) as u64).contains(k)).ok_or("a layer without discs")? as u32;
        let c: u128 = l["candidates"].to_string().parse().map_err(|_| format!("layer {k}: no candidate count"))?;
        if c != candidates(n, k) {
            return Err(format!("layer {k}: {c} candidates, but there are {}", candidates(n, k)));
        }
        let t: Tally = serde_json::from_value(l["tally"].clone()).map_err(|e| format!("layer {k}: no tally ({e})"))?;
        // sums in u128: a document's counters are untrusted, and sums that
        // wrapped could add up
        let sum = |xs: &[u64]| xs.iter().map(|&x| u128::from(x)).sum::<u128>();
        if sum(&[t.reachable, t.unreachable, t.undecided, t.not_terminal]) != u128::from(t.samples)
            || (t.not_terminal > 0 && focus != Focus::Terminal)
            || t.terminal > t.reachable
            || t.undecided_terminal > t.undecided
            || sum(&t.by_orbit) != u128::from(t.reachable)
            || t.joined > t.samples
            || sum(&[t.exact_reachable, t.beam_reachable, t.sweep_reachable]) > u128::from(t.reachable)
            || sum(&[t.relaxed, t.exact_unreachable, t.beam_unreachable, t.sweep_unreachable, t.balanced])
                > u128::from(t.unreachable)
        {
            return Err(format!("layer {k}: the tally does not add up"));
        }
        let (positions, classes) = match version {
            1 => version_1_intervals(c, &t),
            _ => {
                let again = LayerEstimate::new(k, c, t);
                (again.positions, again.classes)
            }
        };
        if interval_json(&positions) != l["positions"] || interval_json(&classes) != l["classes"] {
            return Err(format!("layer {k}: the intervals are not those of its tally"));
        }
        // the tally's figures are also written beside it (for readers of the
        // JSON): they must be the same numbers
        let beside = [
            ("samples", t.samples),
            ("joined", t.joined),
            ("reachable", t.reachable),
            ("unreachable", t.unreachable),
            ("undecided", t.undecided),
            ("terminal", t.terminal),
            ("nodes", t.nodes),
        ];
        if let Some((f, _)) = beside.iter().find(|(f, v)| l[*f].as_u64() != Some(*v)) {
            return Err(format!("layer {k}: {f} is not its tally's"));
        }
        if version >= 2 && interval_json(&LayerEstimate::new(k, c, t).terminal_positions) != l["terminal_positions"] {
            return Err(format!("layer {k}: the intervals are not those of its tally"));
        }
        if out.iter().any(|(d, _)| *d == k) {
            return Err(format!("layer {k} twice"));
        }
        out.push((k, t));
    }
    if out.is_empty() {
        return Err("no layers".into());
    }
    // the undecided samples, listed since 2026-11-25: as many per layer as
    // its tally counts
    let mut untried = 0;
    match &doc["undecided_samples"] {
        Value::Null => {}
        Value::Array(list) => {
            // a partial resolve's samples it did not search (see
            // `UndecidedSample::untried`)
            for u in list {
                match &u["untried"] {
                    Value::Null | Value::Bool(false) => {}
                    Value::Bool(true) => untried += 1,
                    v => return Err(format!("an undecided sample marked untried {v}, not true or false")),
                }
            }
            for (k, t) in &out {
                let listed = list.iter().filter(|u| u["discs"].as_u64() == Some(u64::from(*k))).count() as u64;
                if listed != t.undecided {
                    return Err(format!("layer {k}: {listed} undecided samples listed, {} in its tally", t.undecided));
                }
            }
            if list.len() as u64 != out.iter().map(|(_, t)| t.undecided).sum::<u64>() {
                return Err("undecided samples listed of a layer the document does not have".into());
            }
        }
        _ => return Err("the undecided samples are not a list".into()),
    }
    check_totals(doc, version, n, &out)?;
    // last, so that an inconsistent document is named by what is wrong in
    // it; a consistent one edited (another seed: one run pooled twice) is
    // found here. Versions 1 and 2 carry no checksum.
    if version >= 3 {
        super::seal::verify(doc)?;
    }
    Ok(CheckedEstimate {
        n,
        seed,
        budget,
        search_generation,
        beam_width,
        sweep_width,
        exact_conflicts,
        exact_solver,
        relaxation_conflicts,
        census_layer,
        census_classes,
        focus,
        layers: out,
        untried,
    })
}

/// The document's totals are those of its layers' tallies: the sample
/// counts always, the three intervals since version 2 (computed as the
/// run computed them, [`crate::estimate::totals`]).
fn check_totals(doc: &Value, version: u64, n: u32, layers: &[(u32, Tally)]) -> Result<(), String> {
    let t = &doc["totals"];
    let sum = |f: fn(&Tally) -> u64| layers.iter().map(|(_, t)| f(t)).sum::<u64>();
    let samples = sum(|t| t.samples);
    if t["samples"].as_u64() != Some(samples)
        || doc["samples"].as_u64() != Some(samples)
        || t["reachable"].as_u64() != Some(sum(|t| t.reachable))
        || t["undecided"].as_u64() != Some(sum(|t| t.undecided))
    {
        return Err("the totals' sample counts are not the sums of the layers' tallies".into());
    }
    if version >= 2 {
        let again: Vec<LayerEstimate> =
            layers.iter().map(|&(k, tally)| LayerEstimate::new(k, candidates(n, k), tally)).collect();
        let [p, tp, c] = crate::estimate::totals(&again);
        if interval_json(&p) != t["positions"]
            || interval_json(&tp) != t["terminal_positions"]
            || interval_json(&c) != t["classes"]
        {
            return Err("the totals' intervals are not those of the layers' tallies".into());
        }
    }
    Ok(())
}

/// The positions' and classes' intervals a version 1 document gives of a
/// layer: the same ends as today's, but the point counts the undecided
/// samples as unreachable (today it is the middle of that and of all of
/// them reachable). Read only to check such a document; the catalogue
/// computes every figure anew from the tallies.
fn version_1_intervals(candidates: u128, t: &Tally) -> (Interval, Interval) {
    let c = candidates as f64;
    let n = t.samples;
    let (lo, _) = crate::estimate::wilson(t.reachable, n);
    let (_, hi) = crate::estimate::wilson(t.reachable + t.undecided, n);
    let point = if n == 0 { 0.0 } else { c * t.reachable as f64 / n as f64 };
    let positions = Interval { estimate: point, low: c * lo, high: c * hi };
    let weight = t.by_orbit[0] as f64 + t.by_orbit[1] as f64 / 2.0 + t.by_orbit[2] as f64 / 4.0;
    let per = if t.reachable == 0 { 0.25 } else { weight / t.reachable as f64 };
    let classes = Interval {
        estimate: if n == 0 { 0.0 } else { c * weight / n as f64 },
        low: positions.low * per,
        high: positions.high * per,
    };
    (positions, classes)
}

/// The census layer an estimate document's searches stopped at, if any:
/// its disc count and what it held. Documents before `census_layer` name
/// an odd-pass layer by `odd_pass_discs`; absent or null, there was none.
pub fn census_layer_of(doc: &Value, n: u32) -> Result<Option<(u32, LayerHeld)>, String> {
    let discs = |v: &Value| {
        v.as_u64().filter(|k| (5..=(n * n) as u64).contains(k)).map(|k| k as u32).ok_or("a bad census layer")
    };
    match (&doc["census_layer"], &doc["odd_pass_discs"]) {
        (Value::Null, Value::Null) => Ok(None),
        (Value::Null, legacy) => Ok(Some((discs(legacy)?, LayerHeld::OddPasses))),
        (l, _) => {
            let held = match l["held"].as_str() {
                Some(h) if h == LayerHeld::Whole.name() => LayerHeld::Whole,
                Some(h) if h == LayerHeld::OddPasses.name() => LayerHeld::OddPasses,
                _ => return Err("a census layer that holds neither \"whole\" nor \"odd passes\"".into()),
            };
            Ok(Some((discs(&l["discs"])?, held)))
        }
    }
}

/// How a resolve's limits stand to those a document's searches had
/// ([`CheckedEstimate::resolve_at`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveAt {
    /// Stronger searches: every undecided sample is searched again.
    Stronger,
    /// The document's own limits: only the samples a partial resolve
    /// left untried are searched (the others were searched at these very
    /// limits, and searches are deterministic).
    Same,
    /// Weaker searches (a smaller budget, first of all): refused, as the
    /// document a resolve writes records its limits, and a sample the
    /// document decided might not be decided at them.
    Weaker,
}

/// How strong an estimate's searches were ([`CheckedEstimate::strength`]):
/// the generation of their conditions, the budget, the beam's width, the
/// sweep's width, the census layer (disc count, what it held), the
/// exact encoding's conflicts, then the fewest untried samples.
pub type Strength = (u32, u64, u64, u64, Option<(u32, LayerHeld)>, u64, std::cmp::Reverse<u64>);

impl CheckedEstimate {
    /// How strong its searches were, in the order the catalogue prefers
    /// runs: the generation of their conditions first (newer conditions
    /// prune more: the first generation left 1.09% of a 6x6 run
    /// undecided, the second 0.32% at the same budget), then the budget,
    /// then the beam's width, then the sweep's, then the census layer
    /// (none below any; a
    /// higher one above a lower, and of one disc count the whole layer
    /// above its odd-pass positions), last the exact encoding's conflicts
    /// (the last stage: with every other limit the same, more conflicts
    /// decide every sample fewer did, and more). Last, so that it only
    /// breaks ties: documents from before it was counted keep their order.
    /// After all of these, the fewer samples a partial resolve left
    /// untried, the stronger (a resolve stopped and gone on: its whole
    /// document over its partial one; every verdict of either is exact).
    pub fn strength(&self) -> Strength {
        (
            self.search_generation,
            self.budget,
            self.beam_width,
            self.sweep(),
            self.census_layer,
            self.exact_conflicts,
            std::cmp::Reverse(self.untried),
        )
    }

    /// How searches of `limits`, by a build of search generation
    /// `generation` (at least the document's), stand to the document's: in
    /// order the budget, the generation (a newer one's stages come after
    /// the older ones'), the beam's width, the sweep's (as tried: none
    /// where it is no wider than the beam), and last the exact encoding's
    /// conflicts, the stage that runs on what the others leave.
    ///
    /// Unlike [`CheckedEstimate::strength`], the catalogue's order, the
    /// budget comes before the generation: a newer build with a smaller
    /// budget could leave undecided what the document decided. The
    /// solver and the relaxation's conflicts are not in the order;
    /// [`CheckedEstimate::check_resolve`] checks them apart.
    pub fn resolve_at(&self, limits: &SearchLimits, generation: u32) -> ResolveAt {
        let mine = (
            limits.budget,
            generation,
            limits.beam_width as u64,
            effective_sweep(limits.beam_width as u64, limits.sweep_width as u64),
            limits.exact_conflicts,
        );
        let theirs = (self.budget, self.search_generation, self.beam_width, self.sweep(), self.exact_conflicts);
        match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => ResolveAt::Stronger,
            std::cmp::Ordering::Equal => ResolveAt::Same,
            std::cmp::Ordering::Less => ResolveAt::Weaker,
        }
    }

    /// Whether a resolve of this document with searches of `limits`, by a
    /// build of search generation `generation`, may go on, and how its
    /// limits stand ([`CheckedEstimate::resolve_at`]: stronger, or the
    /// same for a partial document's untried samples); else the first
    /// rule it breaks, in the order of [`ResolveRefusal`].
    pub fn check_resolve(&self, limits: &SearchLimits, generation: u32) -> Result<ResolveAt, ResolveRefusal> {
        // a newer generation's stages come after the older ones' (the beam
        // after the depth-first search): what the document decided, a
        // build of its generation or a newer one decides alike at its
        // budget
        if self.search_generation > generation {
            return Err(ResolveRefusal::NewerGeneration);
        }
        let at = self.resolve_at(limits, generation);
        let stronger = at == ResolveAt::Stronger;
        if !(stronger || (at == ResolveAt::Same && self.untried > 0)) {
            return Err(ResolveRefusal::NotStronger);
        }
        if self.exact_conflicts > 0 {
            if limits.exact_conflicts < self.exact_conflicts {
                return Err(ResolveRefusal::FewerExactConflicts);
            }
            if limits.exact_solver.name() != self.exact_solver {
                return Err(ResolveRefusal::OtherExactSolver);
            }
        }
        if !stronger && limits.relaxation_conflicts != self.relaxation_conflicts {
            return Err(ResolveRefusal::OtherRelaxation);
        }
        if limits.relaxation_conflicts < self.relaxation_conflicts {
            return Err(ResolveRefusal::FewerRelaxationConflicts);
        }
        Ok(at)
    }

    /// Whether a resolve may search with `given`, the census layer it
    /// would stop at (disc count and what it held) and the classes it
    /// holds: the document's own layer, or none where it had none. A
    /// search stops at the census layer too, so with another one (or none
    /// in place of one) a sample could be decided otherwise than the
    /// document's searches decided it, and the document written would
    /// record a layer its verdicts were not all found with.
    pub fn check_census_layer(&self, given: Option<(u32, LayerHeld)>, classes: u64) -> Result<(), CensusLayerRefusal> {
        if given != self.census_layer {
            return Err(CensusLayerRefusal::Other);
        }
        match self.census_classes {
            Some(held) if given.is_some() && held != classes => Err(CensusLayerRefusal::OtherClasses { held }),
            _ => Ok(()),
        }
    }

    /// The width of the sweep its searches tried: 0 where none was (a
    /// sweep no wider than the beam is never tried).
    pub fn sweep(&self) -> u64 {
        effective_sweep(self.beam_width, self.sweep_width)
    }
}

/// The width of the sweep a search of these widths tries: `sweep` where
/// it is wider than the beam, else 0 (none is tried).
pub fn effective_sweep(beam_width: u64, sweep_width: u64) -> u64 {
    if sweep_width > beam_width { sweep_width } else { 0 }
}

/// Why a resolve of a document at some limits is refused
/// ([`CheckedEstimate::check_resolve`]): the rules that keep a resolve's
/// document true to the limits it records. The caller words them in its
/// own terms (the CLI names its flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveRefusal {
    /// The document's searches are of a newer generation than the build's.
    NewerGeneration,
    /// The limits are not stronger than the document's, and not its own
    /// with samples left untried (a partial document).
    NotStronger,
    /// Fewer conflicts for the exact encoding than the document's had:
    /// the last stage is never weakened.
    FewerExactConflicts,
    /// Another SAT solver for the exact encoding than the document's: more
    /// conflicts decide more only with the same solver.
    OtherExactSolver,
    /// A partial document goes on at its own settings, and these give its
    /// flip-history relaxation other conflicts.
    OtherRelaxation,
    /// Fewer conflicts for the flip-history relaxation than the document's
    /// had: the document records one setting for every sample.
    FewerRelaxationConflicts,
}

/// Why a resolve's census layer is refused
/// ([`CheckedEstimate::check_census_layer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CensusLayerRefusal {
    /// Another disc count or another kind of layer than the document's,
    /// or a layer where it had none, or none where it had one.
    Other,
    /// The same kind of layer, with other classes than the `held` the
    /// document records (another census, or a damaged one).
    OtherClasses {
        /// The classes the document's layer held.
        held: u64,
    },
}

/// What [`validate_estimate`] read from a document.
#[derive(Clone, Debug)]
pub struct CheckedEstimate {
    /// Board side.
    pub n: u32,
    /// The seed of its samples.
    pub seed: u64,
    /// Positions one backward search could visit before its sample was
    /// counted undecided.
    pub budget: u64,
    /// The generation of its searches' conditions (1 for documents
    /// without `search_generation`).
    pub search_generation: u32,
    /// The beam's width where its searches ran out (0: none, and for
    /// documents without `beam_width`).
    pub beam_width: u64,
    /// The sweep's width where its beams gave up (0: none, and for
    /// documents without `sweep_width`).
    pub sweep_width: u64,
    /// The exact encoding's conflicts where its sweeps gave up (0: none,
    /// and for documents without `exact_conflicts`).
    pub exact_conflicts: u64,
    /// The SAT solver of its exact encoding (`exact_solver`: "batsat",
    /// "cadical" or "cadical-unsat"; "batsat" for documents without it).
    pub exact_solver: String,
    /// The conflicts of its flip-history relaxation (`sat_conflicts`; 0
    /// for documents without it, which predate the relaxation).
    pub relaxation_conflicts: u64,
    /// The census layer its searches also stopped at, if any: its disc
    /// count and what it held.
    pub census_layer: Option<(u32, LayerHeld)>,
    /// The classes its census layer held, where the document says
    /// (`census_layer.classes` as a whole number; None before the field,
    /// and without a layer).
    pub census_classes: Option<u64>,
    /// Which samples it decided.
    pub focus: Focus,
    /// Per layer, the tally of its samples.
    pub layers: Vec<(u32, Tally)>,
    /// Undecided samples a partial resolve did not search (0 but in a
    /// resolve stopped before its end).
    pub untried: u64,
}

/// The catalogue table of a board's estimates, pooled over runs (their
/// samples are independent draws from the same candidates; per layer, the
/// runs of the newest search generation, one per seed, see
/// `Catalog::pooled_estimates`):
/// CSV with the exact count beside each layer the census has counted.
/// `whole`, where given, is a comment line on the whole board's figure
/// (`WholeBoard::csv_note`).
pub fn estimate_csv(
    n: u32,
    pooled: &BTreeMap<u32, (Tally, Vec<String>)>,
    terminal: &BTreeMap<u32, (Tally, Vec<String>)>,
    exact: &BTreeMap<u32, ExactLayer>,
    whole: Option<&str>,
) -> String {
    let mut out = format!(
        "# schema: {ESTIMATE_SCHEMA} {ESTIMATE_SCHEMA_VERSION}\n\
         # table: {n}x{n}-estimate; estimates with 95% intervals, pooled per layer over the runs of the newest search \
         conditions that sample it, one per seed (its strongest searches); terminal positions also pool the runs \
         focused on them (terminal_samples); the point is the middle of the two the undecided samples allow; \
         generated by `othello-census catalog add`; provenance in README.md\n\
         {}discs,candidates,samples,reachable,unreachable,undecided,positions,positions_low,positions_high,\
         terminal_positions,terminal_low,terminal_high,terminal_samples,classes,classes_low,classes_high,\
         exact_positions,exact_inside,runs\n",
        whole.unwrap_or("")
    );
    let none = (Tally::default(), Vec::new());
    let layers: std::collections::BTreeSet<u32> = pooled.keys().chain(terminal.keys()).copied().collect();
    for k in layers {
        let (t, runs) = pooled.get(&k).unwrap_or(&none);
        let (tt, terminal_runs) = terminal.get(&k).map_or((t, runs), |(a, b)| (a, b));
        let e = LayerEstimate::new(k, candidates(n, k), *t);
        let te = LayerEstimate::new(k, candidates(n, k), *tt);
        let f = |i: &Interval| format!("{:.6e},{:.6e},{:.6e}", i.estimate, i.low, i.high);
        let (ex, ins) = match exact.get(&k) {
            Some(x) => (x.positions.to_string(), inside(&e.positions, x.positions).to_string()),
            None => (String::new(), String::new()),
        };
        let mut all_runs = runs.clone();
        all_runs.extend(terminal_runs.iter().filter(|r| !runs.contains(r)).cloned());
        out.push_str(&format!(
            "{k},{},{},{},{},{},{},{},{},{},{ex},{ins},{}\n",
            e.candidates,
            t.samples,
            t.reachable,
            t.unreachable,
            t.undecided,
            f(&e.positions),
            f(&te.terminal_positions),
            tt.samples,
            f(&e.classes),
            all_runs.join(" ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document searched at a budget of 10^6, generation 10, a beam of
    /// 100, a sweep of 3000 and 10^6 conflicts for the exact encoding.
    fn document() -> CheckedEstimate {
        CheckedEstimate {
            n: 8,
            seed: 1,
            budget: 1_000_000,
            search_generation: 10,
            beam_width: 100,
            sweep_width: 3000,
            exact_conflicts: 1_000_000,
            exact_solver: "batsat".into(),
            relaxation_conflicts: 0,
            census_layer: None,
            census_classes: None,
            focus: Focus::default(),
            layers: Vec::new(),
            untried: 0,
        }
    }

    /// [`document`]'s own limits, its solver BatSat.
    fn own_limits() -> SearchLimits {
        SearchLimits {
            budget: 1_000_000,
            relaxation_conflicts: 0,
            exact_conflicts: 1_000_000,
            exact_solver: crate::search::game_encoding::Solver::BatSat,
            beam_width: 100,
            sweep_width: 3000,
        }
    }

    #[test]
    fn a_resolve_is_stronger_by_the_first_limit_that_differs() {
        let doc = document();
        let same = own_limits();
        assert_eq!(doc.resolve_at(&same, 10), ResolveAt::Same);
        // not in the order: the solver and the relaxation (checked apart)
        assert_eq!(doc.resolve_at(&SearchLimits { relaxation_conflicts: 5, ..same }, 10), ResolveAt::Same);
        let at = |l: SearchLimits, generation| doc.resolve_at(&l, generation);
        // each limit alone, up and down
        assert_eq!(at(SearchLimits { budget: 1_000_001, ..same }, 10), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { budget: 999_999, ..same }, 10), ResolveAt::Weaker);
        assert_eq!(at(same, 11), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { beam_width: 101, ..same }, 10), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { beam_width: 99, ..same }, 10), ResolveAt::Weaker);
        assert_eq!(at(SearchLimits { sweep_width: 3001, ..same }, 10), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { sweep_width: 2999, ..same }, 10), ResolveAt::Weaker);
        assert_eq!(at(SearchLimits { exact_conflicts: 1_000_001, ..same }, 10), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { exact_conflicts: 999_999, ..same }, 10), ResolveAt::Weaker);
        // the budget comes first, then the generation, the beam, the sweep
        assert_eq!(
            at(SearchLimits { budget: 2_000_000, beam_width: 0, exact_conflicts: 0, ..same }, 10),
            ResolveAt::Stronger
        );
        assert_eq!(at(SearchLimits { budget: 999_999, ..same }, 11), ResolveAt::Weaker);
        assert_eq!(at(SearchLimits { beam_width: 0, exact_conflicts: 9_000_000, ..same }, 11), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { beam_width: 101, sweep_width: 0, ..same }, 10), ResolveAt::Stronger);
        assert_eq!(at(SearchLimits { sweep_width: 4000, exact_conflicts: 0, ..same }, 10), ResolveAt::Stronger);
        // a sweep no wider than the beam is never tried: as none
        let no_sweep = CheckedEstimate { sweep_width: 50, ..document() };
        assert_eq!(no_sweep.sweep(), 0);
        assert_eq!(no_sweep.resolve_at(&SearchLimits { sweep_width: 0, ..same }, 10), ResolveAt::Same);
        assert_eq!(no_sweep.resolve_at(&SearchLimits { sweep_width: 100, ..same }, 10), ResolveAt::Same);
        assert_eq!(no_sweep.resolve_at(&SearchLimits { sweep_width: 101, ..same }, 10), ResolveAt::Stronger);
    }

    #[test]
    fn a_resolve_is_refused_by_the_first_rule_it_breaks() {
        let doc = document();
        let same = own_limits();
        let larger = SearchLimits { budget: 2_000_000, ..same };
        assert_eq!(doc.check_resolve(&larger, 10), Ok(ResolveAt::Stronger));
        // its own limits: only for a partial document's untried samples
        assert_eq!(doc.check_resolve(&same, 10), Err(ResolveRefusal::NotStronger));
        let partial = CheckedEstimate { untried: 3, ..document() };
        assert_eq!(partial.check_resolve(&same, 10), Ok(ResolveAt::Same));
        assert_eq!(
            partial.check_resolve(&SearchLimits { budget: 999_999, ..same }, 10),
            Err(ResolveRefusal::NotStronger)
        );
        // a newer document first of all, even against larger limits
        let newer = CheckedEstimate { search_generation: 11, ..document() };
        assert_eq!(newer.check_resolve(&larger, 10), Err(ResolveRefusal::NewerGeneration));
        assert_eq!(newer.check_resolve(&larger, 11), Ok(ResolveAt::Stronger));
        // the exact encoding: never fewer conflicts, never another solver,
        // even where an earlier limit makes the searches stronger
        assert_eq!(
            doc.check_resolve(&SearchLimits { exact_conflicts: 999_999, ..larger }, 10),
            Err(ResolveRefusal::FewerExactConflicts)
        );
        let cadical = CheckedEstimate { exact_solver: "cadical".into(), ..document() };
        assert_eq!(cadical.check_resolve(&larger, 10), Err(ResolveRefusal::OtherExactSolver));
        // a document without the exact stage takes any solver
        let no_exact = CheckedEstimate { exact_conflicts: 0, ..cadical.clone() };
        assert_eq!(no_exact.check_resolve(&SearchLimits { exact_conflicts: 0, ..larger }, 10), Ok(ResolveAt::Stronger));
        // the relaxation: a partial document's own, else at least the document's
        assert_eq!(
            partial.check_resolve(&SearchLimits { relaxation_conflicts: 5, ..same }, 10),
            Err(ResolveRefusal::OtherRelaxation)
        );
        let relaxed = CheckedEstimate { relaxation_conflicts: 20_000, ..document() };
        assert_eq!(
            relaxed.check_resolve(&SearchLimits { relaxation_conflicts: 10_000, ..larger }, 10),
            Err(ResolveRefusal::FewerRelaxationConflicts)
        );
        assert_eq!(
            relaxed.check_resolve(&SearchLimits { relaxation_conflicts: 30_000, ..larger }, 10),
            Ok(ResolveAt::Stronger)
        );
        // two rules broken at once: the first in the order is reported
        assert_eq!(newer.check_resolve(&same, 10), Err(ResolveRefusal::NewerGeneration));
        let fewer_exact = SearchLimits { exact_conflicts: 999_999, ..same };
        assert_eq!(doc.check_resolve(&fewer_exact, 10), Err(ResolveRefusal::NotStronger));
        assert_eq!(
            cadical.check_resolve(&SearchLimits { exact_conflicts: 999_999, ..larger }, 10),
            Err(ResolveRefusal::FewerExactConflicts)
        );
        let partial_cadical = CheckedEstimate { exact_solver: "cadical".into(), untried: 3, ..document() };
        let other_relaxation = SearchLimits { relaxation_conflicts: 5, ..same };
        assert_eq!(partial_cadical.check_resolve(&other_relaxation, 10), Err(ResolveRefusal::OtherExactSolver));
        assert_eq!(doc.check_resolve(&other_relaxation, 10), Err(ResolveRefusal::NotStronger));
        let partial_relaxed = CheckedEstimate { untried: 3, relaxation_conflicts: 20_000, ..document() };
        assert_eq!(
            partial_relaxed.check_resolve(&SearchLimits { relaxation_conflicts: 10_000, ..same }, 10),
            Err(ResolveRefusal::OtherRelaxation)
        );
    }

    #[test]
    fn a_resolve_searches_with_the_documents_census_layer_or_none() {
        let none = document();
        assert_eq!(none.check_census_layer(None, 0), Ok(()));
        let whole = Some((14, LayerHeld::Whole));
        let odd = Some((14, LayerHeld::OddPasses));
        assert_eq!(none.check_census_layer(whole, 7), Err(CensusLayerRefusal::Other));
        let with = CheckedEstimate { census_layer: whole, census_classes: Some(1_000), ..document() };
        assert_eq!(with.check_census_layer(whole, 1_000), Ok(()));
        assert_eq!(with.check_census_layer(None, 0), Err(CensusLayerRefusal::Other));
        assert_eq!(with.check_census_layer(odd, 1_000), Err(CensusLayerRefusal::Other));
        // another kind and other classes: the kind is named first
        assert_eq!(with.check_census_layer(odd, 999), Err(CensusLayerRefusal::Other));
        assert_eq!(with.check_census_layer(Some((13, LayerHeld::Whole)), 1_000), Err(CensusLayerRefusal::Other));
        assert_eq!(with.check_census_layer(whole, 999), Err(CensusLayerRefusal::OtherClasses { held: 1_000 }));
        // a document that does not say how many classes: the layer's kind
        // and disc count are all there is to check
        let unsaid = CheckedEstimate { census_classes: None, ..with };
        assert_eq!(unsaid.check_census_layer(whole, 999), Ok(()));
    }
}
