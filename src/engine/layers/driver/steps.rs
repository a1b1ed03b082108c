//! The steps of the state machine, one per committed phase: after a
//! complete layer (plan and expand the next), after an expansion (merge,
//! or merge and count), and one slice of a last layer counted in slices.

use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::collective::sum_expansions;
use super::disk::{check_disk, plan_next};
use super::{Driver, NextPlan, Session, Step};
use crate::engine::layers::expand::expand;
use crate::engine::layers::expansion::Expansion;
use crate::engine::layers::merge::{merge_and_count, merge_partition};
use crate::engine::layers::shuffle::NoChildren;
use crate::engine::layers::store::{Manifest, Phase, Slicing, verify_bucket};
use crate::engine::layers::transport::{Transport, launcher};
use crate::engine::layers::workdir::WorkDir;
use crate::engine::layers::{LayersError, PhaseStat};
use crate::key::Keyed;

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    /// Layer `m.layer` is complete: plan the next (whole or in slices),
    /// expand it into buckets and commit `Expanded`; or, at the limit,
    /// count the layer's own terminal positions and end.
    pub(super) fn after_complete(
        &self,
        m: &mut Manifest,
        s: &mut Session,
        started: Instant,
    ) -> Result<Step, LayersError> {
        let (t, ctx, mine) = (self.t, self.ctx, self.mine);
        let k = m.layer;
        let classes: u64 = m.part_records.iter().sum();
        let here: u64 = s.owned.iter().map(|&j| m.part_records[j as usize]).sum();
        let bytes = t.sum(&[mine.layer_bytes(k)])[0];
        if classes > s.largest.1 {
            s.largest = (bytes, classes);
        }
        let last = k >= m.run.limit;
        if last && m.stats.last().is_some_and(|l| l.layer == k) {
            // counted while it was merged
            return Ok(Step::Done);
        }
        let next = if last {
            NextPlan { compaction: None, slices: 1 }
        } else {
            let counted = k + 1 >= m.run.limit && !s.store_last;
            let plan = plan_next(mine, m, (here, mine.layer_bytes(k), s.share), ctx.settings, counted);
            t.agree(plan, self.path())?
        };
        if next.slices > 1 {
            m.phase = Phase::Slicing;
            m.slicing = Slicing { slices: next.slices, done: 0, counted: Expansion::default() };
            return Ok(Step::Continue);
        }
        let inputs = self.inputs(m, &s.owned);
        if last {
            self.show_expanding(m, here, None, 0);
            let ex = t.agree(expand::<G>(ctx, s.by, &inputs, false, &NoChildren, &Default::default()), self.path())?;
            let ex = sum_expansions(t, ex)?;
            s.phases.push(self.phase_stat(started, "expand", k, 0, None));
            self.parent_counted(m, s.by, &ex)?;
            m.elapsed_seconds = s.elapsed();
            return Ok(Step::Done);
        }
        let ex = self.expand_to_buckets(m, s, &inputs, here, next.compaction, &|_| true, None)?;
        s.phases.push(PhaseStat {
            compactions: ex.compactions,
            exchanged: ex.exchanged,
            rounds: ex.rounds.0,
            rounds_resumed: ex.rounds.1,
            ..self.phase_stat(started, "expand", k, ex.found.emitted, None)
        });
        self.parent_counted(m, s.by, &ex.found)?;
        if ex.found.emitted == 0 {
            crate::engine::layers::workdir::remove_run_dir(&mine.bucket_dir(k + 1));
            m.elapsed_seconds = s.elapsed();
            return Ok(Step::Done);
        }
        self.verify_buckets(k + 1, &s.owned, &ex.runs, s)?;
        s.verified = Some(k + 1);
        m.phase = Phase::Expanded;
        m.part_records = ex.runs;
        m.entering = ex.found.entering;
        m.elapsed_seconds = s.elapsed();
        self.commit(m)?;
        Ok(Step::Continue)
    }

    /// Checks every bucket of layer `next` here (`runs` per partition)
    /// before the commit that deletes the parent layer they came from:
    /// damage found now costs the expansion, which the parent can redo;
    /// found in the merge, after the parent is gone, it costs the run. The
    /// damaged buckets are deleted, so that a resume expands again.
    pub(super) fn verify_buckets(
        &self,
        next: u32,
        owned: &[u32],
        runs: &[u64],
        s: &Session,
    ) -> Result<(), LayersError> {
        let mine = self.mine;
        let checked: Result<(), LayersError> = s.pool.install(|| {
            owned.par_iter().try_for_each(|&j| Ok(verify_bucket(&mine.bucket(next, j), runs[j as usize])?))
        });
        let checked = checked.map_err(|e| {
            crate::engine::layers::workdir::remove_run_dir(&mine.bucket_dir(next));
            self.bad(format!(
                "{e}; found before layer {} was deleted, which is kept: the buckets of layer {next} were deleted, \
                 continue with `{}othello-census resume {}` to expand layer {} again",
                next - 1,
                launcher(self.t),
                crate::text::shell_path(self.path()),
                next - 1
            ))
        });
        self.t.agree(checked, self.path())
    }

    /// The children of layer `m.layer` are in buckets: merge them into the
    /// parts of the next layer (counted while written when it is the last)
    /// and commit it `Complete`; or, for a last layer not stored, merge and
    /// count every partition and commit `Counted`.
    pub(super) fn after_expanded(
        &self,
        m: &mut Manifest,
        s: &mut Session,
        started: Instant,
    ) -> Result<Step, LayersError> {
        let (t, ctx, mine) = (self.t, self.ctx, self.mine);
        let next = m.layer + 1;
        let runs = m.part_records.clone();
        if next >= m.run.limit && !s.store_last {
            // merge and count every partition; the buckets stay until the
            // counts are committed, so an interruption loses nothing
            self.show_merging(next, s.owned.len(), None);
            let ex = self.count(s, next, &s.owned, &runs)?;
            s.phases.push(self.phase_stat(started, "merge and count", next, ex.counts.classes, None));
            self.last_counted(m, s.by, &ex)?;
            m.elapsed_seconds = s.elapsed();
            self.commit(m)?;
            return Ok(Step::Continue);
        }
        self.show_merging(next, s.owned.len(), None);
        // the last layer is counted while it is written
        let last = next >= m.run.limit;
        let (by, fan_in) = (s.by, s.fan_in);
        // buckets this session checked before the commit are read once;
        // others (a resume) checked before their records are used
        let verify = s.verified != Some(next);
        let merged: Result<Vec<(u32, u64, Expansion)>, LayersError> = (|| {
            let dir = mine.create_layer_dir(next)?;
            let counts: Result<Vec<(u32, u64, Expansion)>, LayersError> = s.pool.install(|| {
                s.owned
                    .par_iter()
                    .map(|&j| {
                        if ctx.stop.load(Ordering::SeqCst) {
                            return Err(self.stopped());
                        }
                        let id = m.run.part(next, j);
                        let (n, ex) = if last {
                            merge_and_count::<G>(mine, by, &id, runs[j as usize], fan_in, verify)?
                        } else {
                            (merge_partition(mine, &id, runs[j as usize], fan_in, verify)?, Expansion::default())
                        };
                        ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                        Ok((j, n, ex))
                    })
                    .collect()
            });
            WorkDir::sync_dir(&dir)?;
            counts
        })();
        let mut part_records = vec![0u64; m.run.partitions as usize];
        let mut found = Expansion::default();
        for (j, n, ex) in t.agree(merged, self.path())? {
            part_records[j as usize] = n;
            found.add(&ex);
        }
        let part_records = t.sum(&part_records);
        let found = sum_expansions(t, found)?;
        let phase = if last { "merge and count" } else { "merge" };
        s.phases.push(self.phase_stat(started, phase, next, part_records.iter().sum(), None));
        m.phase = Phase::Complete;
        m.layer = next;
        m.part_records = part_records;
        if last {
            self.parent_counted(m, s.by, &found)?;
        }
        m.elapsed_seconds = s.elapsed();
        self.commit(m)?;
        Ok(Step::Continue)
    }

    /// One slice of a last layer counted unstored: expand the whole parent,
    /// keep the children of the slice's partitions, merge and count them,
    /// commit the slice (and, after the last, the layer's counts).
    pub(super) fn next_slice(&self, m: &mut Manifest, s: &mut Session, started: Instant) -> Result<Step, LayersError> {
        let (t, ctx, mine) = (self.t, self.ctx, self.mine);
        let (k, partitions) = (m.layer, m.run.partitions);
        let next = k + 1;
        let Slicing { slices, done, .. } = m.slicing;
        if slices < 2 || done >= slices || slices > partitions {
            return Err(self.bad(format!("the manifest names slice {done} of {slices}, which is wrong")));
        }
        let slice = Some((done + 1, slices));
        let keep = move |j: u32| Slicing::slice_of(j, slices, partitions) == done;
        let here: u64 = s.owned.iter().map(|&j| m.part_records[j as usize]).sum();
        let compaction = {
            let fraction = 1.0 / slices as f64;
            let bytes = mine.layer_bytes(k);
            let c = check_disk(mine, m, (here, bytes, s.share), ctx.settings, fraction, true);
            t.agree(c, self.path())?
        };
        let inputs = self.inputs(m, &s.owned);
        let ex = self.expand_to_buckets(m, s, &inputs, here, compaction, &keep, slice)?;
        s.phases.push(PhaseStat {
            compactions: ex.compactions,
            exchanged: ex.exchanged,
            rounds: ex.rounds.0,
            rounds_resumed: ex.rounds.1,
            ..self.phase_stat(started, "expand", k, ex.found.emitted, slice)
        });
        // every slice expands the same parent layer: the first counts it,
        // the others find the same
        if m.stats.last().is_some_and(|l| l.layer == k) && m.entering != ex.found.entering {
            return Err(self.bad(format!(
                "slice {} of {slices} found layer {k} sending {} games on, not {}; its parts may have changed",
                done + 1,
                ex.found.entering.games,
                m.entering.games
            )));
        }
        self.parent_counted(m, s.by, &ex.found)?;
        m.entering = ex.found.entering;
        let mine_in_slice: Vec<u32> = s.owned.iter().copied().filter(|&j| keep(j)).collect();
        self.watch.begin();
        let counted_from = Instant::now();
        self.show_merging(next, mine_in_slice.len(), slice);
        let cx = self.count(s, next, &mine_in_slice, &ex.runs)?;
        s.phases.push(self.phase_stat(counted_from, "merge and count", next, cx.counts.classes, slice));
        m.slicing.counted.add(&cx);
        m.slicing.done += 1;
        if m.slicing.done == slices {
            let total = std::mem::take(&mut m.slicing).counted;
            self.last_counted(m, s.by, &total)?;
        }
        m.elapsed_seconds = s.elapsed();
        self.commit(m)?;
        Ok(Step::Continue)
    }
}
