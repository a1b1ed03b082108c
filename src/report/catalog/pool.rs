//! Estimates pooled: per layer, one document per seed of the newest
//! conditions (runs focused on terminal positions into terminal positions
//! only), and the whole board's answer with its replication check.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::estimate::Focus;
use crate::report::estimate;
use crate::stats::{Replicate, Replication};

use super::*;

impl Catalog {
    /// Per board, the estimate tallies of every layer pooled over runs,
    /// with the runs that gave them. A layer pools the runs of the newest
    /// search generation among those that sample it, whatever their
    /// budgets and census layers, one document per seed: documents of one
    /// seed decide the same draws (a resolved document and the run it
    /// resolves, or the seed run again with other searches), so only the
    /// strongest of them counts ([`estimate::CheckedEstimate::strength`]:
    /// the newest generation, the largest budget, the widest beam, the
    /// widest sweep, the highest census layer, the most exact conflicts,
    /// the fewest samples a partial resolve left untried, in that order).
    /// Every verdict
    /// is exact or undecided, so each run's lower end (undecided as
    /// unreachable) and upper end (undecided as reachable) bound the count
    /// whatever its budget, and so do their sums; a weaker run adds its
    /// samples and widens only the upper end by its undecided ones. The
    /// choice depends on how the runs were made (and how far a partial
    /// resolve got), never on what they found; and whichever document of
    /// a seed is taken, its ends bound that seed's draws. Runs of an older
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

    pub(super) fn pooled(&self, with_terminal_runs: bool) -> Pooled {
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
    pub(super) fn chosen_estimates(&self) -> Vec<ChosenLayer> {
        let checked: Vec<_> = self
            .estimates
            .iter()
            .filter_map(|e| {
                Some((estimate::validate_estimate(e).ok()?, e["id"].as_str().unwrap_or("?").to_string(), e))
            })
            .collect();
        // the newest generation of the runs of every sample; runs focused
        // on terminal positions add to their terminal figure whatever their
        // generation (every verdict is exact, so any run's samples bound the
        // count; the newest runs are preferred only for narrower intervals)
        let mut newest: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (c, _, _) in checked.iter().filter(|(c, _, _)| c.focus == Focus::All) {
            for (k, _) in &c.layers {
                let g = newest.entry((c.n, *k)).or_default();
                *g = (*g).max(c.search_generation);
            }
        }
        // (board, layer, seed) -> the strongest document of the newest generation
        let mut chosen: BTreeMap<(u32, u32, u64), (estimate::Strength, usize)> = BTreeMap::new();
        for (i, (c, _, _)) in checked.iter().enumerate() {
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
        for (i, (c, id, doc)) in checked.iter().enumerate() {
            for (k, t) in &c.layers {
                if chosen.get(&(c.n, *k, c.seed)).map(|&(_, j)| j) == Some(i) {
                    out.push(ChosenLayer {
                        n: c.n,
                        discs: *k,
                        seed: c.seed,
                        focus: c.focus,
                        tally: *t,
                        id: id.clone(),
                        phased: super::double_sampled::phased_layer(doc, c.seed, *k, *t),
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
        // sample; terminal positions by every seed that samples every
        // estimated layer, focused or not (each seed's terminal total is
        // an estimate of its own, and more replicates narrow the t
        // interval of their totals)
        let replicate_of = |f: usize, r: &(u64, Focus, [crate::estimate::Interval; 3])| f == 1 || r.1 == Focus::All;
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
            terminal_seeds: replicates.iter().map(|(s, _, _)| *s).collect(),
            replication,
            layer_q,
            layer_df,
            double_sampled: self.double_sampled(n, &estimated),
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
}

/// Per board, per layer: the pooled tally and the runs that gave it.
pub type Pooled = BTreeMap<u32, BTreeMap<u32, (crate::estimate::Tally, Vec<String>)>>;

/// One layer of a document that pools.
pub(super) struct ChosenLayer {
    pub(super) n: u32,
    pub(super) discs: u32,
    pub(super) seed: u64,
    pub(super) focus: crate::estimate::Focus,
    pub(super) tally: crate::estimate::Tally,
    pub(super) id: String,
    /// The layer as double sampling sees it (`PhasedLayer::whole` where
    /// the document is not of a subsample's resolve); an error where its
    /// record of the subsample does not fit its tallies.
    pub(super) phased: Result<crate::estimate::PhasedLayer, String>,
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
    /// The seeds that replicate the terminal positions: those above and
    /// the runs focused on terminal positions that sample every estimated
    /// layer.
    pub terminal_seeds: Vec<u64>,
    /// The replication check of each figure (three or more replicates).
    pub replication: [Option<Replication>; 3],
    /// Layer by layer: the summed Cochran Q of the layers' positions over
    /// the seeds that sample them, and its degrees of freedom.
    pub layer_q: f64,
    pub layer_df: u32,
    /// The estimated layers' positions by double sampling of the
    /// undecided samples, where a document that pools is of a
    /// subsample's resolve ([`Catalog::double_sampled`]).
    pub double_sampled: Option<Result<super::DoubleSampledBoard, String>>,
}

/// The bounds of [`WholeBoard::square_classes`] from the positions' lower
/// end and the classes' ends.
fn square_bounds(positions_low: f64, classes_low: f64, classes_high: f64) -> (f64, f64) {
    ((positions_low / 16.0).max(classes_low / 4.0), classes_high)
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

    /// Classes under the 8 symmetries of the square of (mover's discs,
    /// other discs) pairs, the quantity Ishii and Tanaka estimate, bounded
    /// without deciding any more positions. A pair stands for two
    /// positions (its colours either way, each with its mover to move), so
    /// such a class holds at most 16 reachable positions, and at most 4 of
    /// this catalogue's classes (the start's four symmetries are half of
    /// the eight: a pair's images fall into two of their orbits, its colour
    /// swap's into two more): there are at least the larger of the
    /// positions' lower end over 16 and the classes' lower end over 4. Each
    /// holds the whole orbit of one of this catalogue's classes (those four
    /// symmetries keep reachability): there are at most the classes' upper
    /// end. Each end comes from one side of a 95% interval, so each fails
    /// with at most 2.5%, and both hold together with at least 95%.
    pub fn square_classes(&self) -> (f64, f64) {
        square_bounds(self.published(0).1, self.published(2).1, self.published(2).2)
    }

    /// The positions by double sampling, exact layers added, in words
    /// (None where no document that pools is of a subsample's resolve).
    pub fn double_sampled_words(&self) -> Option<String> {
        Some(match self.double_sampled.as_ref()? {
            Ok(d) => {
                let (x, c) = (self.exact[0], self.exact[2]);
                let (sq_lo, sq_hi) = square_bounds(x + d.positions.low, c + d.classes.low, c + d.classes.high);
                format!(
                    "by double sampling of the undecided samples (a fixed random subsample of them, one in {}, \
                     decided and its reachable share scaled up; {} of its {} members still undecided, each counted \
                     both ways for about that many samples; the pooled interval, not widened by replication) {} positions \
                     (95%: {} to {}), {} classes (95%: {} to {}), classes under the 8 symmetries of the square 95% \
                     between {} and {}",
                    d.one_in.iter().map(u64::to_string).collect::<Vec<_>>().join(" or "),
                    d.left,
                    d.members,
                    estimate::sci(x + d.positions.estimate),
                    estimate::sci(x + d.positions.low),
                    estimate::sci(x + d.positions.high),
                    estimate::sci(c + d.classes.estimate),
                    estimate::sci(c + d.classes.low),
                    estimate::sci(c + d.classes.high),
                    estimate::sci(sq_lo),
                    estimate::sci(sq_hi)
                )
            }
            Err(e) => format!("no figure by double sampling: {e}"),
        })
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
        let (d4_lo, d4_hi) = self.square_classes();
        let double = self.double_sampled_words().map_or(String::new(), |w| format!("; {w}"));
        format!(
            "# whole board: {} positions (95%: {} to {}), exact layers to {} discs added; {agreement}; classes \
             under the 8 symmetries of the square of (mover, other) pairs 95% between {} and {} (the larger of \
             the positions' lower end / 16 and the classes' / 4, and the classes' upper end){double}; method in \
             README.md and docs/estimate.md\n",
            estimate::sci(p),
            estimate::sci(lo),
            estimate::sci(hi),
            self.exact_to,
            estimate::sci(d4_lo),
            estimate::sci(d4_hi),
        )
    }

    /// How the positions' interval was made, and what replication found,
    /// in a sentence or two (and a sentence on the terminal positions'
    /// replication where runs focused on them add seeds).
    pub fn method(&self) -> String {
        let mut out = self.positions_method();
        if let Some(w) = self.double_sampled_words() {
            out.push_str(&format!(" Beside it, {w}."));
        }
        if let (true, Some(r)) = (self.terminal_seeds != self.replicate_seeds, &self.replication[1]) {
            out.push_str(&format!(
                " Terminal positions also pool runs focused on them: {} seeds sample every estimated layer ({}); \
                 their terminal totals give Cochran's Q = {:.1} on {} degrees of freedom (p = {:.3}); the interval \
                 given is the union of the pooled interval widened by the Birge ratio {:.2} ({} to {}) and Student's \
                 t interval of the seeds' totals ({} to {}).",
                r.m,
                self.terminal_seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
                r.q,
                r.m - 1,
                r.p,
                r.birge.max(1.0),
                estimate::sci(self.exact[1] + r.widened_low),
                estimate::sci(self.exact[1] + r.widened_high),
                estimate::sci(self.exact[1] + r.t_low),
                estimate::sci(self.exact[1] + r.t_high),
            ));
        }
        out
    }

    fn positions_method(&self) -> String {
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
