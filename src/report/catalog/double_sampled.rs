//! The catalogue's positions and classes by double sampling of the undecided
//! samples: the documents that pool, read as a first phase and the
//! verdicts of a subsample ([`crate::estimate::double_sampled_positions`]).

use serde_json::Value;

use crate::estimate::Focus;

use super::*;

impl Catalog {
    /// Board `n`'s reachable positions and classes by double sampling of the
    /// undecided samples ([`crate::estimate::double_sampled_positions`]),
    /// over the estimated layers `layers`, from the documents that pool:
    /// None where none of them is of a subsample's resolve.
    pub fn double_sampled(&self, n: u32, layers: &[u32]) -> Option<Result<DoubleSampledBoard, String>> {
        let chosen: Vec<_> =
            self.chosen_estimates().into_iter().filter(|c| c.n == n && c.focus == Focus::All).collect();
        if !chosen.iter().any(|c| c.phased.as_ref().is_ok_and(|p| p.one_in > 1) || c.phased.is_err()) {
            return None;
        }
        let (mut out, mut classes) = (Vec::new(), Vec::new());
        let (mut members, mut left, mut one_in) = (0, 0, std::collections::BTreeSet::new());
        for &k in layers {
            let (mut parts, mut pooled) = (Vec::new(), crate::estimate::Tally::default());
            for c in chosen.iter().filter(|c| c.discs == k) {
                match &c.phased {
                    Ok(p) => {
                        if p.one_in > 1 {
                            one_in.insert(p.one_in);
                            members += p.members();
                            left += p.left;
                        }
                        pooled = pooled.plus(p.now);
                        parts.push(*p)
                    }
                    Err(e) => return Some(Err(format!("{}: {e}", c.id))),
                }
            }
            match crate::estimate::double_sampled_positions(k, crate::estimate::candidates(n, k), &parts) {
                Ok(d) => {
                    classes.push(d.scaled(crate::estimate::LayerEstimate::classes_per_position(&pooled)));
                    out.push(d)
                }
                Err(e) => return Some(Err(e.to_string())),
            }
        }
        Some(Ok(DoubleSampledBoard {
            positions: crate::estimate::double_sampled_total(&out),
            classes: crate::estimate::double_sampled_total(&classes),
            one_in: one_in.into_iter().collect(),
            members,
            left,
        }))
    }
}

/// A board's positions by double sampling ([`Catalog::double_sampled`]).
#[derive(Clone, Debug)]
pub struct DoubleSampledBoard {
    /// The estimated layers' positions, and classes (under the start's
    /// four symmetries).
    pub positions: crate::estimate::Interval,
    pub classes: crate::estimate::Interval,
    /// The subsamples' `D`s (one in D).
    pub one_in: Vec<u64>,
    /// The subsamples' members, and of them those still undecided.
    pub members: u64,
    pub left: u64,
}

/// Layer `discs` of an estimate document (seed `seed`, tally `now`) as
/// double sampling sees it: with its record of a subsample's resolve, the
/// first phase's tally of the layer and the subsample's members still
/// listed as undecided; without one, the layer whole.
pub(super) fn phased_layer(
    doc: &Value,
    seed: u64,
    discs: u32,
    now: crate::estimate::Tally,
) -> Result<crate::estimate::PhasedLayer, String> {
    let record = &doc["resolved"]["subsample"];
    if record.is_null() {
        return Ok(crate::estimate::PhasedLayer::whole(now));
    }
    let sub: crate::estimate::SubsampleSearched =
        serde_json::from_value(record.clone()).map_err(|e| format!("a bad record of its subsample ({e})"))?;
    if !crate::estimate::is_one_in(sub.one_in) {
        return Err(format!(
            "a subsample of one in {}, not a power of two from 1 to {}",
            sub.one_in,
            crate::estimate::MAX_ONE_IN
        ));
    }
    let first = sub
        .first_phase
        .layers
        .iter()
        .find(|l| l.discs == discs)
        .ok_or_else(|| format!("layer {discs} is not in the first phase of its subsample"))?
        .tally;
    let listed: Vec<u64> = doc["undecided_samples"]
        .as_array()
        .ok_or("no list of its undecided samples")?
        .iter()
        .filter(|u| u["discs"].as_u64() == Some(discs as u64))
        .map(|u| u["index"].as_u64().ok_or("an undecided sample without an index"))
        .collect::<Result<_, _>>()?;
    // every undecided sample is listed, so the subsample's are counted whole
    if listed.len() as u64 != now.undecided {
        return Err(format!(
            "layer {discs} lists {} undecided samples, its tally counts {}",
            listed.len(),
            now.undecided
        ));
    }
    let left = listed.iter().filter(|&&i| crate::estimate::in_subsample(seed, discs, i, sub.one_in)).count() as u64;
    Ok(crate::estimate::PhasedLayer { one_in: sub.one_in, first, now, left })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::{FirstPhase, FirstPhaseLayer, SubsampleSearched, Tally};

    fn document(one_in: u64, first: Tally) -> Value {
        let sub = SubsampleSearched {
            one_in,
            outside: 0,
            first_phase: FirstPhase { from_id: None, layers: vec![FirstPhaseLayer { discs: 50, tally: first }] },
        };
        serde_json::json!({
            "resolved": { "subsample": serde_json::to_value(sub).unwrap() },
            "undecided_samples": [ { "discs": 50, "index": 3 }, { "discs": 50, "index": 8 } ],
        })
    }

    /// A record's subsample is one a resolve can take (a power of two up
    /// to MAX_ONE_IN); the layer's undecided samples left in it are
    /// counted from the list, which must agree with the tally.
    #[test]
    fn a_phased_layer_takes_only_a_subsample_a_resolve_can_take() {
        let first = Tally { samples: 10, joined: 10, undecided: 4, unreachable: 6, ..Tally::default() };
        let now = Tally { samples: 10, joined: 10, undecided: 2, unreachable: 7, reachable: 1, ..Tally::default() };
        let left = [3u64, 8].iter().filter(|&&i| crate::estimate::in_subsample(5, 50, i, 4)).count() as u64;
        let p = phased_layer(&document(4, first), 5, 50, now).unwrap();
        assert_eq!((p.one_in, p.first, p.now, p.left), (4, first, now, left));
        for bad in [3, 0, crate::estimate::MAX_ONE_IN * 2] {
            let e = phased_layer(&document(bad, first), 5, 50, now).unwrap_err();
            assert!(e.contains("not a power of two from 1 to"), "{e}");
        }
        let fewer = Tally { undecided: 1, ..now };
        assert!(phased_layer(&document(4, first), 5, 50, fewer).unwrap_err().contains("lists 2 undecided"));
    }
}
