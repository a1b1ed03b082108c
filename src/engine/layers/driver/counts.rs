//! A layer's counts made final (or checked against those made before),
//! and a last layer merged and counted without being stored.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::collective::sum_expansions;
use super::{Driver, Session};
use crate::census::{Games, LayerBy, LayerCounts};
use crate::engine::layers::LayersError;
use crate::engine::layers::expand::Counter;
use crate::engine::layers::expansion::{Entering, Expansion};
use crate::engine::layers::store::{Manifest, Phase, merge_bucket};
use crate::engine::layers::transport::Transport;
use crate::engine::layers::workdir::WorkDir;
use crate::key::Keyed;

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    /// Makes `ex`, what the parts of layer `m.layer` counted to, final,
    /// or, if they are final already (counted while merged, or by an
    /// earlier slice), checks that `ex` says the same.
    pub(super) fn parent_counted(&self, m: &mut Manifest, by: LayerBy, ex: &Expansion) -> Result<(), LayersError> {
        let k = m.layer;
        match m.stats.last() {
            Some(l) if l.layer == k => {
                // (the games that entered it, as they were counted)
                let g = l.games.unwrap_or_default();
                if layer_counts(k, ex, Entering { games: g.games, passes: g.passes }) != *l {
                    return Err(self.bad(format!(
                        "layer {k} counts to other figures than when it was first counted ({} classes, not {}); \
                         its parts may have changed",
                        ex.counts.classes, l.counts.classes
                    )));
                }
                Ok(())
            }
            _ => {
                check_mass(by, k, ex.mass, m.entering.games).map_err(|e| self.bad(e.to_string()))?;
                m.stats.push(layer_counts(k, ex, m.entering));
                Ok(())
            }
        }
    }

    /// Makes `ex`, the counts of layer `m.layer + 1` (the last, not
    /// stored), final: the run is finished once `m` is committed.
    pub(super) fn last_counted(&self, m: &mut Manifest, by: LayerBy, ex: &Expansion) -> Result<(), LayersError> {
        let next = m.layer + 1;
        check_mass(by, next, ex.mass, m.entering.games).map_err(|e| self.bad(e.to_string()))?;
        m.stats.push(layer_counts(next, ex, m.entering));
        m.phase = Phase::Counted;
        m.layer = next;
        m.part_records = Vec::new();
        m.entering = Entering::default();
        Ok(())
    }

    /// Merges and counts the buckets of `parts` (this rank's) of layer
    /// `next`, storing nothing; the counts summed over the ranks.
    pub(super) fn count(&self, s: &Session, next: u32, parts: &[u32], runs: &[u64]) -> Result<Expansion, LayersError> {
        let (ctx, by, fan_in) = (self.ctx, s.by, s.fan_in);
        let found: Result<Vec<Expansion>, LayersError> = s.pool.install(|| {
            parts
                .par_iter()
                .map(|&j| {
                    if ctx.stop.load(Ordering::SeqCst) {
                        return Err(self.stopped());
                    }
                    let ex = count_partition::<G>(self.mine, by, next, j, runs[j as usize], fan_in)?;
                    ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                    Ok(ex)
                })
                .collect()
        });
        let mut ex = Expansion::default();
        for f in self.t.agree(found, self.path())? {
            ex.add(&f);
        }
        sum_expansions(self.t, ex)
    }
}

/// A layer by ply whose games are not those its parent sent (the run's
/// files disagree with each other).
#[derive(Debug, thiserror::Error)]
#[error("layer {layer} holds {mass} games, its parent layer sent {sent}")]
pub(super) struct MassMismatch {
    layer: u32,
    mass: u128,
    sent: u128,
}

/// By ply, the games counted in a layer are those its parent sent.
pub(super) fn check_mass(by: LayerBy, k: u32, mass: u128, sent: u128) -> Result<(), MassMismatch> {
    if by == LayerBy::Ply && mass != sent {
        return Err(MassMismatch { layer: k, mass, sent });
    }
    Ok(())
}

/// The final counts of layer `k` from its expansion (or count) and the
/// games that entered it.
pub(super) fn layer_counts(k: u32, ex: &Expansion, entering: Entering) -> LayerCounts {
    LayerCounts {
        layer: k,
        counts: ex.counts,
        games: Some(Games {
            games: entering.games,
            games_including_ended: 0,
            passes: entering.passes,
            ended: ex.ended,
            spread: ex.spread,
            shapes: ex.shapes.0,
            shapes_unique: ex.shapes.1,
        }),
    }
}

/// Merges bucket `j` of layer `k` and counts its records, storing nothing.
pub(super) fn count_partition<G: Keyed>(
    work: &WorkDir,
    by: LayerBy,
    k: u32,
    j: u32,
    runs: u64,
    fan_in: usize,
) -> Result<Expansion, LayersError> {
    let bucket = work.bucket(k, j);
    let mut counter = Counter::<G>::new(by, bucket.clone());
    let mut failure: Option<LayersError> = None;
    // (slices' buckets are not checked before: the parent stays)
    let merged = merge_bucket(&bucket, runs, fan_in, true, &mut |r| {
        counter.push(r).map_err(|e| {
            failure = Some(e);
            std::io::Error::other("count failed")
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    merged?;
    counter.finish()
}
