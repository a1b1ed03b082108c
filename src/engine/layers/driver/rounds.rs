//! An expansion into the buckets of the next layer, in rounds of whole
//! parts (exchanged between ranks, or recorded for resume after each),
//! and the live display of expanding and merging.

use std::sync::atomic::Ordering;

use super::collective::sum_expansions;
use super::{Driver, Expanded, Session};
use crate::engine::layers::LayersError;
use crate::engine::layers::expand::{BUFFER_SHARE, BufferPool, PartInput, buffer_bytes_per_record, expand};
use crate::engine::layers::progress::{ExpandProgress, ExpansionId};
use crate::engine::layers::shuffle::{LocalBuckets, ShuffleSink};
use crate::engine::layers::store::{Compaction, Manifest};
use crate::engine::layers::transport::{Outbox, Transport, decode_message};
use crate::key::Keyed;

/// Child records generated per child class, before duplicates are summed
/// (an estimate for sizing the rounds of an expansion over ranks; 2 to 3
/// measured).
const RAW_CHILDREN_PER_CLASS: f64 = 2.5;

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    /// The parent parts this rank owns.
    pub(super) fn inputs(&self, m: &Manifest, owned: &[u32]) -> Vec<PartInput> {
        owned
            .iter()
            .map(|&j| PartInput {
                path: self.mine.part(m.layer, j),
                id: m.run.part(m.layer, j),
                records: m.part_records[j as usize],
            })
            .collect()
    }

    /// Shows layer `m.layer` (`here` classes, `done` of them expanded
    /// already) being expanded.
    pub(super) fn show_expanding(&self, m: &Manifest, here: u64, slice: Option<(u32, u32)>, done: u64) {
        let live = self.ctx.live;
        // the counts first: a watcher that sees the new phase sees them
        live.total.store(here, Ordering::SeqCst);
        live.done.store(done, Ordering::SeqCst);
        live.previous
            .store(m.stats.iter().rev().find(|s| s.layer < m.layer).map_or(0, |s| s.counts.classes), Ordering::Relaxed);
        live.slice.store(slice.map_or(0, |s| ((s.0 as u64) << 32) | s.1 as u64), Ordering::Relaxed);
        live.layer.store(m.layer as u64, Ordering::SeqCst);
        live.phase.store(0, Ordering::SeqCst);
    }

    pub(super) fn show_merging(&self, layer: u32, parts: usize, slice: Option<(u32, u32)>) {
        let live = self.ctx.live;
        live.layer.store(layer as u64, Ordering::Relaxed);
        live.slice.store(slice.map_or(0, |s| ((s.0 as u64) << 32) | s.1 as u64), Ordering::Relaxed);
        live.partitions.store(parts as u64, Ordering::Relaxed);
        live.parts_done.store(0, Ordering::Relaxed);
        live.phase.store(1, Ordering::Relaxed);
    }

    /// Expands this rank's parent parts into the buckets of the next layer
    /// (the partitions `keep` names: those of `slice`, or all), in rounds of whole parts: with
    /// several ranks the children of other ranks' partitions are exchanged
    /// after each round; a single process records its progress after each
    /// round ([`super::progress`]) and resumes after the last one
    /// recorded. The buckets are removed if anything fails before a round
    /// is recorded.
    #[allow(clippy::too_many_arguments)] // (the parts of one expansion, named at its two callers)
    pub(super) fn expand_to_buckets(
        &self,
        m: &Manifest,
        s: &Session,
        inputs: &[PartInput],
        here: u64,
        compaction: Option<Compaction>,
        keep: &(dyn Fn(u32) -> bool + Sync),
        slice: Option<(u32, u32)>,
    ) -> Result<Expanded, LayersError> {
        let (t, ctx, path) = (self.t, self.ctx, self.path());
        let (k, partitions) = (m.layer, m.run.partitions);
        let (by, fan_in) = (s.by, s.fan_in);
        let held = |j: u32| t.owns(j) && keep(j);
        let rounds = self.rounds(m, s, inputs.len(), here, keep);
        let resumable = t.ranks() == 1;
        let (slice_no, slices) = slice.unwrap_or((0, 1));
        let id = ExpansionId {
            layer: k,
            slice: slice_no,
            slices,
            rounds: rounds as u32,
            inputs: inputs.iter().map(|i| (i.id.partition, i.records)).collect(),
        };
        let opened = if resumable {
            self.open_buckets(id, partitions, fan_in, compaction, &held)
        } else {
            LocalBuckets::create_held(self.mine, k + 1, partitions, fan_in, compaction, false, held)
                .map(|b| (b, ExpandProgress::fresh(id)))
        };
        let (buckets, mut progress) = t.agree(opened, path)?;
        // (a resumed expansion keeps the rounds it recorded)
        let rounds = progress.id.rounds as usize;
        let resumed = progress.done;
        let per_round = inputs.len().div_ceil(rounds).max(1);
        // the parents of the rounds resumed show as expanded from the start
        let skipped: u64 = inputs.iter().take(per_round * resumed as usize).map(|i| i.records).sum();
        self.show_expanding(m, here, slice, skipped);
        // the workers' buffers, kept from round to round and from one
        // expansion to the next in one process; over ranks a round's
        // children wait in messages for the exchange, and the buffers are
        // not kept beside them
        let expanded = (|| {
            let mut sent = 0u64;
            for i in progress.done as usize..rounds {
                let outbox = Outbox::new(&buckets, t.rank(), t.ranks(), keep);
                let group = inputs.chunks(per_round).nth(i).unwrap_or(&[]);
                let own = BufferPool::default();
                let pool = if t.ranks() == 1 { &self.buffers } else { &own };
                let part = expand::<G>(ctx, by, group, true, &outbox, pool);
                progress.found.add(&t.agree(part, path)?);
                let out = outbox.into_messages();
                sent += out.iter().map(|o| o.len() as u64).sum::<u64>();
                let received = t.exchange(&out);
                drop(out);
                let delivered = received.iter().enumerate().try_for_each(|(from, bytes)| {
                    decode_message(bytes, from, |p| p < partitions && held(p), |p, r| buckets.send(p, r))
                });
                t.agree(delivered, path)?;
                if resumable {
                    progress.done = i as u32 + 1;
                    buckets.checkpoint(&mut progress)?;
                }
            }
            Ok(sent)
        })();
        if k + 1 >= m.run.limit && slice.is_none_or(|(no, n)| no + 1 >= n) {
            // no expansion follows in this call: the count of the last
            // layer goes on while the buffers are freed
            self.buffers.release();
        }
        let sent = match expanded {
            Ok(v) => v,
            Err(e) => {
                if progress.done == 0 {
                    buckets.discard();
                }
                return Err(e);
            }
        };
        let compactions = buckets.compactions();
        let runs = t.agree(buckets.finish(), path)?;
        let found = sum_expansions(t, progress.found)?;
        let totals = t.sum(&[compactions, sent]);
        Ok(Expanded {
            found,
            rounds: (rounds as u32, resumed),
            runs: t.sum(&runs),
            compactions: totals[0],
            exchanged: totals[1],
        })
    }

    /// The rounds of an expansion of `parts` parent parts (`here` classes
    /// here) whose children `keep` keeps, from its estimated children and
    /// the workers' buffers (the same on every rank). Ranks: as few as the
    /// buffers allow (children summed in one buffer before they are sent
    /// are sent once). One process: a round per two buffers filled (each
    /// round ends with the buffers spilled, so rounds cost little summing),
    /// the unit of resume inside the expansion.
    pub(super) fn rounds(
        &self,
        m: &Manifest,
        s: &Session,
        parts: usize,
        here: u64,
        keep: &dyn Fn(u32) -> bool,
    ) -> usize {
        let partitions = m.run.partitions;
        let kept = (0..partitions).filter(|&j| keep(j)).count() as f64 / partitions.max(1) as f64;
        let previous = m
            .stats
            .iter()
            .rev()
            .find(|l| l.layer < m.layer)
            .map_or(1.0, |l| (l.counts.classes as f64 * s.share).max(1.0));
        let children = here as f64 * (here as f64 / previous).max(1.0) * RAW_CHILDREN_PER_CLASS * kept;
        let buffers = self.ctx.settings.memory_limit as f64 * BUFFER_SHARE;
        let fills = children * buffer_bytes_per_record::<G>() as f64 / buffers;
        let want = if self.t.ranks() == 1 { (fills / 2.0).floor().max(1.0) } else { fills.ceil().max(1.0) } as u64;
        self.t.max(want.min(parts.max(1) as u64)) as usize
    }

    /// The buckets of an expansion `id`, reopened where its progress file
    /// says it got to, or else created empty.
    pub(super) fn open_buckets(
        &self,
        id: ExpansionId,
        partitions: u32,
        fan_in: usize,
        compaction: Option<Compaction>,
        held: &dyn Fn(u32) -> bool,
    ) -> Result<(LocalBuckets, ExpandProgress), LayersError> {
        let next = id.layer + 1;
        let path = crate::engine::layers::progress::path_in(&self.mine.bucket_dir(next));
        let recorded = crate::engine::layers::progress::read(&path).map_err(|e| {
            // (every file error begins with the path, which this error names)
            let e = e.to_string();
            let e = e.strip_prefix(&format!("{}: ", path.display())).unwrap_or(&e).to_string();
            LayersError::WorkDir {
                path: path.clone(),
                detail: format!("{e} (delete the file to expand layer {} again from its first part)", id.layer),
            }
        })?;
        if let Some(p) = recorded.filter(|p| p.id.same_expansion(&id) && p.done > 0) {
            let buckets = LocalBuckets::reopen(self.mine, next, fan_in, compaction, &p)?;
            return Ok((buckets, p));
        }
        let buckets = LocalBuckets::create_held(self.mine, next, partitions, fan_in, compaction, true, held)?;
        Ok((buckets, ExpandProgress::fresh(id)))
    }
}
