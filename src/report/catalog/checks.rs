//! The checks a result document passes before it enters the catalogue:
//! schema and checksum, the start layer, each layer's internal consistency,
//! the totals, and the game counts against perft.

use std::path::Path;

use serde_json::Value;

use crate::published;
use crate::report::census::{SCHEMA, SCHEMA_VERSION};
use crate::report::estimate;

use super::*;

/// Checks a result document (of the current schema, [`upgrade`]); returns
/// its layers.
pub(super) fn validate<'a>(path: &Path, doc: &'a Value) -> Result<&'a Vec<Value>, CatalogError> {
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
        crate::report::seal::verify(doc).map_err(|e| refuse(path, e))?;
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
pub(super) fn check_start(path: &Path, l: &Value) -> Result<(), CatalogError> {
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
pub(super) struct LayerCheck<'p> {
    path: &'p Path,
    /// The catalogue table the run goes to ([`table_name`]).
    table: String,
    by_ply: bool,
}

impl LayerCheck<'_> {
    /// Column `f` of layer `l`: none where it is absent or null, an error
    /// where it is not a count.
    pub(super) fn num(&self, l: &Value, f: &str) -> Result<Option<u128>, CatalogError> {
        match &l[f] {
            Value::Null => Ok(None),
            v => {
                count(v).map(Some).ok_or_else(|| refuse(self.path, format!("layer {}: {f} is not a count", l["layer"])))
            }
        }
    }

    /// Column `f` of layer `l`, which every layer has.
    pub(super) fn get(&self, l: &Value, f: &str) -> Result<u128, CatalogError> {
        self.num(l, f)?.ok_or_else(|| refuse(self.path, format!("layer {}: no {f}", l["layer"])))
    }

    pub(super) fn refuse(&self, layer: u64, what: impl std::fmt::Display) -> CatalogError {
        refuse(self.path, format!("layer {layer}: {what}"))
    }

    /// Checks layer `layer` (object `l`); `ended_before` is the games ended
    /// in the layers before it, and is moved past this one.
    pub(super) fn layer(&self, layer: u64, l: &Value, ended_before: &mut u128) -> Result<(), CatalogError> {
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
    pub(super) fn spread(&self, layer: u64, l: &Value, positions: u128) -> Result<(), CatalogError> {
        let Some(spread) = l.get(crate::report::census::SPREAD).and_then(Value::as_object) else {
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
pub(super) fn check_run(path: &Path, doc: &Value, layers: &[Value], limit: u64) -> Result<(), CatalogError> {
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
        if f != crate::report::census::DIFFERENCES && !v.is_null() && count(v) != Some(sum(f)) {
            return Err(refuse(path, format!("totals.{f} is not the sum of the layers")));
        }
    }
    Ok(())
}

/// Compares the game columns of a by-ply run with perft up to ply `to`.
pub(super) fn check_perft(path: &Path, size: u32, layers: &[Value], to: u32) -> Result<(), CatalogError> {
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
