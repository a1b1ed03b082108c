//! The report of an estimate: a table, a JSON document, and the exact
//! counts of the catalogue beside the estimated layers it has counted.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::Table;
use crate::estimate::{Estimate, Interval};

/// The schema name of an estimate's JSON document.
pub const ESTIMATE_SCHEMA: &str = "othello-census-estimate";
/// Its version.
pub const ESTIMATE_SCHEMA_VERSION: u32 = 1;

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

/// The exact layers of the catalogue table `DIR/NxN-by-discs.csv` (none
/// when it is missing or unreadable: the comparison is an aid, not a
/// check).
pub fn exact_layers(dir: &Path, n: u32) -> BTreeMap<u32, ExactLayer> {
    let mut out = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(dir.join(format!("{n}x{n}-by-discs.csv"))) else {
        return out;
    };
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let Some(header) = lines.next() else { return out };
    let cols: Vec<&str> = header.split(',').collect();
    let at = |name: &str| cols.iter().position(|c| *c == name);
    let (Some(d), Some(p), Some(c), Some(t)) = (at("discs"), at("positions"), at("classes"), at("terminal_positions"))
    else {
        return out;
    };
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |i: usize| cells.get(i).and_then(|v| v.parse::<u64>().ok());
        if let (Some(k), Some(positions), Some(classes), Some(terminal_positions)) =
            (cells.get(d).and_then(|v| v.parse::<u32>().ok()), num(p), num(c), num(t))
        {
            out.insert(k, ExactLayer { positions, classes, terminal_positions });
        }
    }
    out
}

fn interval_json(i: &Interval) -> Value {
    json!({ "estimate": i.estimate, "low": i.low, "high": i.high })
}

fn inside(i: &Interval, exact: u64) -> bool {
    let x = exact as f64;
    // the ends are floating point: a relative slack of 1e-12
    i.low <= x * (1.0 + 1e-12) && x <= i.high * (1.0 + 1e-12)
}

/// The JSON document of an estimate (`docs/results-format.md`).
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
    json!({
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
        "budget": e.budget,
        "frontier_discs": e.frontier_discs,
        "frontier_classes": e.frontier_classes,
        "frontier_seconds": e.frontier_seconds,
        "elapsed_seconds": e.elapsed_seconds,
        "threads": e.threads,
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
    })
}

/// A number to three significant digits (`1.23e12`), or exactly below
/// ten thousand.
pub fn sci(x: f64) -> String {
    if x < 1e4 { format!("{x:.0}") } else { format!("{x:.3e}") }
}

/// The table of an estimate.
pub fn estimate_table(e: &Estimate, exact: &BTreeMap<u32, ExactLayer>) -> String {
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
