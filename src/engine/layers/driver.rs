//! The driver: one layered state machine (plan, expand, shuffle, merge or
//! count, commit; per phase and per slice) over a [`Transport`] — one
//! process ([`super::transport::Alone`]), MPI ranks, or threads standing
//! in for ranks. Partition `p` belongs to rank `p mod R`; each rank expands
//! the parent parts it owns, sends the children of other ranks'
//! partitions through the transport's exchange, and merges its own
//! partitions. Counts are summed over the ranks, and a phase is committed
//! by rank 0 only after every rank's files are durable (the collective
//! that agrees on success is the barrier). An error on any rank is
//! returned on every rank.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::commit::{commit, read_state, set_limit};
use super::expand::{BUFFER_SHARE, BufferPool, Counter, PartInput, buffer_bytes_per_record, expand};
use super::expansion::{Entering, Expansion};
use super::merge::{merge_and_count, merge_partition};
use super::progress::{ExpandProgress, ExpansionId};
use super::shuffle::{LocalBuckets, NoChildren, ShuffleSink};
use super::store::{
    Compaction, MIN_COMPACT_RATIO, Manifest, Phase, RunConfig, RunSettings, Slicing, merge_bucket, partition_of,
    to_stored, verify_bucket, write_part,
};
use super::transport::{Outbox, Transport, decode_message, launcher};
use super::workdir::{RunLock, WorkDir};
use super::{
    CompactionMode, LayersError, LayersLive, LayersOutcome, LayersPlan, LayersSettings, PhaseStat, RunContext,
};
use crate::board::Position;
use crate::census::{Census, Games, LayerBy, LayerCounts};
use crate::engine::resources::{free_disk, merge_fan_in, open_files_limit};
use crate::formats::framed::{bincode_config, encode};
use crate::key::dense::side_weight;
use crate::key::{Keyed, PackedKey, canonical_key};
use crate::software;

/// Sorted runs written while expanding a layer without compaction, as a
/// multiple of the layer they merge into (measured: 2.6 on 8x8 ply 14 with
/// 8 GiB of buffers; rounded up).
const RUNS_UNCOMPACTED: f64 = 3.0;

/// A compacted run of part of a layer's records takes a little more than
/// their share of the layer (its keys lie further apart).
const COMPACTED_OVERHEAD: f64 = 1.1;

/// Child records generated per child class, before duplicates are summed
/// (an estimate for sizing the rounds of an expansion over ranks; 2 to 3
/// measured).
const RAW_CHILDREN_PER_CLASS: f64 = 2.5;

/// The directory of this rank's parts and buckets: the run's own, or
/// `rank-RRRR-of-NNNN` below it.
fn rank_dir<T: Transport>(t: &T, root: &WorkDir) -> WorkDir {
    if t.separate_dirs() { root.for_rank(t.rank(), t.ranks()) } else { root.clone() }
}

/// Starts a new run in `plan.work_dir` over the ranks of `t`: writes the
/// first layer and the manifest, then runs the census to its end.
pub fn start<G: Keyed, T: Transport>(
    t: &T,
    plan: &LayersPlan,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    // settings that cannot be met are refused before the work directory is made
    if let Some(k) = settings.slices {
        check_slices(&plan.work_dir, k, plan.partitions)?;
    }
    let root = WorkDir::new(&plan.work_dir);
    let mine = rank_dir(t, &root);
    t.agree(if t.rank() == 0 { root.check_fresh() } else { Ok(()) }, root.root())?;
    let locks = t.agree(lock_run(t, &root, &mine, true), root.root())?;
    let m = begin::<G, T>(t, &root, &mine, plan, settings)?;
    let ctx = RunContext { settings, stop, live, work_dir: root.root() };
    let out = drive::<G, T>(t, &root, &mine, &ctx, m);
    drop(locks);
    out
}

/// Continues the run of `work_dir` over the ranks of `t` (as many as the
/// run was started with), to a new last layer if `limit` is given (a
/// finished run is taken further).
pub fn resume<G: Keyed, T: Transport>(
    t: &T,
    work_dir: &Path,
    limit: Option<u32>,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let root = WorkDir::new(work_dir);
    let mine = rank_dir(t, &root);
    let here = if !t.separate_dirs() {
        // not a work directory: nothing is created in it
        read_state(&root).map(|_| ())
    } else if mine.root().is_dir() {
        Ok(())
    } else {
        Err(LayersError::WorkDir {
            path: work_dir.to_path_buf(),
            detail: format!(
                "holds no {} on this node: resume a run with the number of ranks it was started with \
                 (mpirun -np N, N as in its rank-*-of-N directories), on nodes that hold its directories",
                mine.root().file_name().expect("a name").to_string_lossy()
            ),
        })
    };
    t.agree(here, work_dir)?;
    let locks = t.agree(lock_run(t, &root, &mine, false), work_dir)?;
    let state = if t.rank() == 0 {
        (|| {
            let mut m = read_state(&root)?;
            // refused before the limit moves or any layer is expanded (a
            // run already slicing its last layer keeps its own number)
            if let Some(k) = settings.slices
                && m.phase != Phase::Slicing
            {
                check_slices(root.root(), k, m.run.partitions)?;
            }
            if let Some(limit) = limit {
                set_limit(&root, &mut m, limit)?;
            }
            Ok(Some(m))
        })()
    } else {
        Ok(None)
    };
    let state = t.agree(state, work_dir)?;
    let m = share_manifest(t, state)?;
    let ctx = RunContext { settings, stop, live, work_dir: root.root() };
    let out = drive::<G, T>(t, &root, &mine, &ctx, m);
    drop(locks);
    out
}

/// Rank 0 locks the run's directory, every rank its own.
fn lock_run<T: Transport>(
    t: &T,
    root: &WorkDir,
    mine: &WorkDir,
    fresh: bool,
) -> Result<(Option<RunLock>, Option<RunLock>), LayersError> {
    if fresh && t.rank() == 0 && root.manifest().exists() {
        return Err(LayersError::WorkDir {
            path: root.root().to_path_buf(),
            detail: format!(
                "already holds a layered run; continue it with `{}othello-census resume {}`",
                launcher(t),
                crate::text::shell_path(root.root())
            ),
        });
    }
    let top = if t.rank() == 0 { Some(root.lock()?) } else { None };
    let own = if t.separate_dirs() { Some(mine.lock()?) } else { None };
    Ok((top, own))
}

/// Rank 0's manifest, on every rank.
fn share_manifest<T: Transport>(t: &T, m: Option<Manifest>) -> Result<Manifest, LayersError> {
    if t.ranks() == 1 {
        return Ok(m.expect("rank 0 read the manifest"));
    }
    let bytes = t.broadcast(m.map(|m| encode(&m)).unwrap_or_default());
    decode(&bytes, "the manifest from rank 0")
}

/// Decodes a value encoded by [`encode`] that another rank sent.
fn decode<T: bincode::Decode<()>>(bytes: &[u8], what: &str) -> Result<T, LayersError> {
    bincode::decode_from_slice(bytes, bincode_config()).map(|(v, _)| v).map_err(|e| LayersError::WorkDir {
        path: std::path::PathBuf::from(what),
        detail: format!("cannot decode: {e}"),
    })
}

/// The sum over every rank of their expansions.
fn sum_expansions<T: Transport>(t: &T, ex: Expansion) -> Result<Expansion, LayersError> {
    if t.ranks() == 1 {
        return Ok(ex);
    }
    let mut total = Expansion::default();
    for bytes in t.gather_bytes(&encode(&ex)) {
        total.add(&decode(&bytes, "the expansion of a rank")?);
    }
    Ok(total)
}

/// Writes the first layer (each rank its own parts) and the manifest.
fn begin<G: Keyed, T: Transport>(
    t: &T,
    root: &WorkDir,
    mine: &WorkDir,
    plan: &LayersPlan,
    settings: &LayersSettings,
) -> Result<Manifest, LayersError> {
    let run = RunConfig {
        size: G::N,
        by: plan.by.code(),
        limit: plan.limit,
        partitions: plan.partitions,
        command: plan.command.clone(),
        started_unix: plan.started_unix,
        memory_limit: settings.memory_limit,
        store_last: settings.store_last,
    };
    let k = plan.by.first_layer();
    let parts = (|| {
        let dir = mine.create_layer_dir(k)?;
        let start = to_stored(canonical_key(&Position::<G>::start()).to_u128(), side_weight(G::N));
        let start_occupancy = Position::<G>::start().empty().0 ^ G::FULL;
        let home = partition_of(crate::key::occupancy::canonical_occupancy::<G>(start_occupancy).0, plan.partitions);
        let mut records = vec![0u64; plan.partitions as usize];
        for j in (0..plan.partitions).filter(|&j| t.owns(j)) {
            records[j as usize] =
                write_part(
                    &mine.part(k, j),
                    &run.part(k, j),
                    |emit| if j == home { emit((start, 1)) } else { Ok(()) },
                )?;
        }
        WorkDir::sync_dir(&dir)?;
        Ok(records)
    })();
    let records = t.agree(parts, root.root())?;
    let mut m = Manifest {
        software: software(),
        run,
        phase: Phase::Complete,
        layer: k,
        part_records: t.sum(&records),
        stats: Vec::new(),
        entering: Entering { games: 1, passes: 0 },
        elapsed_seconds: 0.0,
        slicing: Slicing::default(),
        settings: run_settings(settings),
        out: run_out(settings),
    };
    let committed = if t.rank() == 0 { commit(root, &mut m) } else { Ok(()) };
    t.agree(committed, root.root())?;
    Ok(m)
}

/// The settings of `s` a manifest keeps.
fn run_settings(s: &LayersSettings) -> RunSettings {
    RunSettings { slices: s.slices, compact_always: s.compaction == CompactionMode::Always, disk_limit: s.disk_limit }
}

/// The result directory of `s` a manifest keeps.
fn run_out(s: &LayersSettings) -> Option<String> {
    s.out.as_ref().map(|o| o.to_string_lossy().into_owned())
}

/// Runs the census from manifest `m` (the same on every rank) to the end,
/// while a thread samples the disk the run takes.
fn drive<G: Keyed, T: Transport>(
    t: &T,
    root: &WorkDir,
    mine: &WorkDir,
    ctx: &RunContext<'_>,
    m: Manifest,
) -> Result<LayersOutcome, LayersError> {
    let watch = DiskWatch::new(mine);
    sampling(&watch, || Driver::<G, T> { t, root, mine, ctx, watch: &watch, buffers: BufferPool::default() }.run(m))
}

/// Runs `work` while a thread samples the disk into `watch`. The sampler
/// is told to stop however `work` ends: the scope waits for it before it
/// returns, or before a panic of `work` goes on, and a flag set only on a
/// normal return left a panicking run waiting for it forever.
pub(super) fn sampling<R>(watch: &DiskWatch<'_>, work: impl FnOnce() -> R) -> R {
    /// Sets the flag when dropped, also while a panic unwinds.
    struct Done<'a>(&'a AtomicBool);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                watch.sample();
            }
        });
        let _done = Done(&done);
        work()
    })
}

/// The peak bytes of a work directory, sampled by a thread.
pub(super) struct DiskWatch<'a> {
    work: &'a WorkDir,
    /// Peak since the current phase began.
    phase: AtomicU64,
    /// Peak of this session.
    pub(super) session: AtomicU64,
}

impl<'a> DiskWatch<'a> {
    pub(super) fn new(work: &'a WorkDir) -> Self {
        let now = work.bytes();
        DiskWatch { work, phase: AtomicU64::new(now), session: AtomicU64::new(now) }
    }

    pub(super) fn sample(&self) -> u64 {
        let now = self.work.bytes();
        self.phase.fetch_max(now, Ordering::Relaxed);
        self.session.fetch_max(now, Ordering::Relaxed);
        now
    }

    /// Starts a phase: its peak is what is on disk now.
    pub(super) fn begin(&self) {
        let now = self.sample();
        self.phase.store(now, Ordering::Relaxed);
    }

    /// The peak of the phase that ends.
    pub(super) fn end(&self) -> u64 {
        self.sample();
        self.phase.load(Ordering::Relaxed)
    }
}

/// How the next layer is built: its buckets compacted or not, and in how
/// many slices (1: whole).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct NextPlan {
    pub compaction: Option<Compaction>,
    pub slices: u32,
}

/// One run of the state machine, on one rank.
struct Driver<'a, G: Keyed, T: Transport> {
    t: &'a T,
    root: &'a WorkDir,
    mine: &'a WorkDir,
    ctx: &'a RunContext<'a>,
    watch: &'a DiskWatch<'a>,
    /// The workers' child buffers, kept from one expansion to the next in
    /// one process.
    buffers: BufferPool<G::Key>,
}

/// What one expansion into buckets produced, summed over the ranks.
struct Expanded {
    found: Expansion,
    /// Rounds of the expansion, and those resumed from its progress file.
    rounds: (u32, u32),
    /// Runs per bucket of the next layer.
    runs: Vec<u64>,
    compactions: u64,
    exchanged: u64,
}

/// What one call of the driver keeps from phase to phase.
struct Session {
    by: LayerBy,
    /// When this call began, and the run's seconds before it.
    started: Instant,
    elapsed_before: f64,
    pool: rayon::ThreadPool,
    fan_in: usize,
    /// Whether the last layer is stored (this call and the run's start
    /// both say so).
    store_last: bool,
    /// The partitions this rank owns, and their share of all.
    owned: Vec<u32>,
    share: f64,
    /// (bytes, classes) of the largest layer met.
    largest: (u64, u64),
    phases: Vec<PhaseStat>,
    /// The layer whose buckets this session checked whole before its
    /// parent was deleted ([`Driver::verify_buckets`]).
    verified: Option<u32>,
}

impl Session {
    /// The run's seconds so far, this call's included.
    fn elapsed(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }
}

/// Whether the state machine goes on after a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Continue,
    Done,
}

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    fn path(&self) -> &Path {
        self.root.root()
    }

    fn bad(&self, detail: String) -> LayersError {
        LayersError::WorkDir { path: self.path().to_path_buf(), detail }
    }

    /// Commits `m` on rank 0 once every rank is ready, then sweeps each
    /// rank's directory.
    fn commit(&self, m: &mut Manifest) -> Result<(), LayersError> {
        // (those of this session: a resume that gave none was given the run's)
        m.settings = run_settings(self.ctx.settings);
        m.out = run_out(self.ctx.settings);
        let r = if self.t.rank() == 0 { commit(self.root, m) } else { Ok(()) };
        self.t.agree(r, self.path())?;
        if self.t.separate_dirs() {
            self.mine.sweep(m.keep());
        }
        Ok(())
    }

    fn stopped(&self) -> LayersError {
        LayersError::Interrupted(self.path().to_path_buf())
    }

    /// Runs the state machine from the committed state `m` until the run
    /// ends, is stopped or fails: one step per phase (or slice), each
    /// ending in a commit.
    fn run(&self, mut m: Manifest) -> Result<LayersOutcome, LayersError> {
        let mut s = self.session(&m)?;
        self.ctx.live.partitions.store(s.owned.len() as u64, Ordering::Relaxed);
        self.ctx.live.limit.store(m.run.limit as u64, Ordering::Relaxed);
        self.mine.sweep(m.keep());
        loop {
            if m.phase == Phase::Counted {
                return Ok(self.finished(m, s));
            }
            if self.t.any(self.ctx.stop.load(Ordering::SeqCst)) {
                return Err(self.stopped());
            }
            self.watch.begin();
            let phase_started = Instant::now();
            let step = match m.phase {
                Phase::Complete => self.after_complete(&mut m, &mut s, phase_started)?,
                Phase::Expanded => self.after_expanded(&mut m, &mut s, phase_started)?,
                Phase::Slicing => self.next_slice(&mut m, &mut s, phase_started)?,
                Phase::Counted => unreachable!("returned above"),
            };
            if step == Step::Done {
                return Ok(self.finished(m, s));
            }
        }
    }

    /// What this call keeps across phases, after checking that the manifest
    /// is a run of this board.
    fn session(&self, m: &Manifest) -> Result<Session, LayersError> {
        let Some(by) = LayerBy::from_code(m.run.by) else {
            return Err(self.bad(format!("the manifest names an unknown layering ({})", m.run.by)));
        };
        if m.run.size != G::N {
            return Err(self.bad(format!("the manifest describes a {0}x{0} run, not {1}x{1}", m.run.size, G::N)));
        }
        let threads = self.ctx.settings.threads.max(1);
        let partitions = m.run.partitions;
        let owned: Vec<u32> = (0..partitions).filter(|&j| self.t.owns(j)).collect();
        Ok(Session {
            by,
            started: Instant::now(),
            elapsed_before: m.elapsed_seconds,
            pool: rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool"),
            fan_in: merge_fan_in(open_files_limit(), threads, super::store::MAX_FAN_IN),
            // the last layer is stored unless this session or the run's start said not
            store_last: self.ctx.settings.store_last && m.run.store_last,
            share: owned.len() as f64 / partitions.max(1) as f64,
            owned,
            largest: (0, 0),
            phases: Vec::new(),
            verified: None,
        })
    }

    /// The outcome of a run that has ended (a collective: the peak disk is
    /// the largest of every rank's).
    fn finished(&self, m: Manifest, s: Session) -> LayersOutcome {
        let peak_disk = self.t.max(self.watch.session.load(Ordering::Relaxed));
        let mut layers = m.stats;
        Census::fill_including_ended(&mut layers);
        LayersOutcome {
            census: Census { size: G::N, by: s.by, limit: m.run.limit, layers },
            elapsed: Duration::from_secs_f64(m.elapsed_seconds),
            largest_layer: s.largest,
            peak_disk,
            phases: s.phases,
            command: m.run.command,
            partitions: m.run.partitions,
            last_layer_stored: m.phase != Phase::Counted,
        }
    }

    /// The record of a phase that ends now (a collective: its peak disk is
    /// the largest of every rank's).
    fn phase_stat(
        &self,
        started: Instant,
        phase: &'static str,
        layer: u32,
        records: u64,
        slice: Option<(u32, u32)>,
    ) -> PhaseStat {
        PhaseStat {
            layer,
            phase,
            seconds: started.elapsed().as_secs_f64(),
            peak_disk: self.t.max(self.watch.end()),
            records,
            compactions: 0,
            exchanged: 0,
            rounds: 0,
            rounds_resumed: 0,
            slice,
        }
    }

    /// Layer `m.layer` is complete: plan the next (whole or in slices),
    /// expand it into buckets and commit `Expanded`; or, at the limit,
    /// count the layer's own terminal positions and end.
    fn after_complete(&self, m: &mut Manifest, s: &mut Session, started: Instant) -> Result<Step, LayersError> {
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
            super::workdir::remove_run_dir(&mine.bucket_dir(k + 1));
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
    fn verify_buckets(&self, next: u32, owned: &[u32], runs: &[u64], s: &Session) -> Result<(), LayersError> {
        let mine = self.mine;
        let checked: Result<(), LayersError> = s.pool.install(|| {
            owned.par_iter().try_for_each(|&j| Ok(verify_bucket(&mine.bucket(next, j), runs[j as usize])?))
        });
        let checked = checked.map_err(|e| {
            super::workdir::remove_run_dir(&mine.bucket_dir(next));
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
    fn after_expanded(&self, m: &mut Manifest, s: &mut Session, started: Instant) -> Result<Step, LayersError> {
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
    fn next_slice(&self, m: &mut Manifest, s: &mut Session, started: Instant) -> Result<Step, LayersError> {
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

    /// Makes `ex`, what the parts of layer `m.layer` counted to, final,
    /// or, if they are final already (counted while merged, or by an
    /// earlier slice), checks that `ex` says the same.
    fn parent_counted(&self, m: &mut Manifest, by: LayerBy, ex: &Expansion) -> Result<(), LayersError> {
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
                check_mass(by, k, ex.mass, m.entering.games).map_err(|e| self.bad(e))?;
                m.stats.push(layer_counts(k, ex, m.entering));
                Ok(())
            }
        }
    }

    /// Makes `ex`, the counts of layer `m.layer + 1` (the last, not
    /// stored), final: the run is finished once `m` is committed.
    fn last_counted(&self, m: &mut Manifest, by: LayerBy, ex: &Expansion) -> Result<(), LayersError> {
        let next = m.layer + 1;
        check_mass(by, next, ex.mass, m.entering.games).map_err(|e| self.bad(e))?;
        m.stats.push(layer_counts(next, ex, m.entering));
        m.phase = Phase::Counted;
        m.layer = next;
        m.part_records = Vec::new();
        m.entering = Entering::default();
        Ok(())
    }

    /// The parent parts this rank owns.
    fn inputs(&self, m: &Manifest, owned: &[u32]) -> Vec<PartInput> {
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
    fn show_expanding(&self, m: &Manifest, here: u64, slice: Option<(u32, u32)>, done: u64) {
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

    fn show_merging(&self, layer: u32, parts: usize, slice: Option<(u32, u32)>) {
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
    fn expand_to_buckets(
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
    fn rounds(&self, m: &Manifest, s: &Session, parts: usize, here: u64, keep: &dyn Fn(u32) -> bool) -> usize {
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
    fn open_buckets(
        &self,
        id: ExpansionId,
        partitions: u32,
        fan_in: usize,
        compaction: Option<Compaction>,
        held: &dyn Fn(u32) -> bool,
    ) -> Result<(LocalBuckets, ExpandProgress), LayersError> {
        let next = id.layer + 1;
        let path = super::progress::path_in(&self.mine.bucket_dir(next));
        let recorded = super::progress::read(&path).map_err(|e| {
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

    /// Merges and counts the buckets of `parts` (this rank's) of layer
    /// `next`, storing nothing; the counts summed over the ranks.
    fn count(&self, s: &Session, next: u32, parts: &[u32], runs: &[u64]) -> Result<Expansion, LayersError> {
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

/// By ply, the games counted in a layer are those its parent sent.
pub(super) fn check_mass(by: LayerBy, k: u32, mass: u128, sent: u128) -> Result<(), String> {
    if by == LayerBy::Ply && mass != sent {
        return Err(format!("layer {k} holds {mass} games, its parent layer sent {sent}"));
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

/// Refuses `slices` slices of a run of `partitions` partitions (at `path`)
/// unless each slice can hold whole partitions: checked when a session
/// starts (before its work directory is made) or resumes (before any layer
/// is expanded), and again when a last layer is planned.
fn check_slices(path: &Path, slices: u32, partitions: u32) -> Result<(), LayersError> {
    if slices == 0 || slices > partitions {
        return Err(LayersError::WorkDir {
            path: path.to_path_buf(),
            detail: format!(
                "{slices} slices cannot be made of {partitions} partitions (a slice holds whole partitions: \
                 from 1 to {partitions})"
            ),
        });
    }
    Ok(())
}

/// How layer `m.layer + 1` is built: [`check_disk`] for the whole layer;
/// for a last layer counted without being stored (`counted`), in the
/// slices the settings ask for, or else in the fewest slices whose
/// buckets fit (compacted if need be).
pub(super) fn plan_next(
    work: &WorkDir,
    m: &Manifest,
    here: (u64, u64, f64),
    settings: &LayersSettings,
    counted: bool,
) -> Result<NextPlan, LayersError> {
    let partitions = m.run.partitions;
    if !counted {
        return Ok(NextPlan { compaction: check_disk(work, m, here, settings, 1.0, false)?, slices: 1 });
    }
    if let Some(k) = settings.slices {
        check_slices(work.root(), k, partitions)?;
        let compaction = check_disk(work, m, here, settings, 1.0 / k as f64, true)?;
        return Ok(NextPlan { compaction, slices: k });
    }
    let mut last = None;
    for k in 1..=partitions {
        match check_disk(work, m, here, settings, 1.0 / k as f64, true) {
            Ok(compaction) => return Ok(NextPlan { compaction, slices: k }),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("at least one partition"))
}

/// Refuses to expand layer `m.layer` when the disk cannot hold its
/// children (or the `fraction` of them that one slice keeps), estimated
/// from the growth of the last two layers and the bytes per record of the
/// current one; otherwise says how its buckets are compacted. The parent
/// is on disk already; while expanding, the sorted runs are added to it;
/// the parent is then removed, and each bucket is removed as soon as its
/// part is written, so the next layer never coexists with all the runs:
/// the peak beyond what is on disk is the runs plus a part per thread
/// (`counted`: a layer counted and never stored writes no parts, but a
/// merge pass may write as much). Uncompacted runs take about
/// [`RUNS_UNCOMPACTED`] times the next layer; compacted at ratio `r`,
/// about `(1 + r)` times it (with [`COMPACTED_OVERHEAD`]). In
/// [`CompactionMode::Auto`] the buckets are compacted only if the
/// uncompacted runs do not fit, at the largest ratio that fits. The
/// manifest is untouched, so the run resumes once there is room.
pub(super) fn check_disk(
    work: &WorkDir,
    m: &Manifest,
    here: (u64, u64, f64),
    settings: &LayersSettings,
    fraction: f64,
    counted: bool,
) -> Result<Option<Compaction>, LayersError> {
    // the records and bytes of the parts held here, and their share of
    // the partitions
    let (records, layer_bytes, share) = here;
    let before =
        m.stats.iter().rev().find(|s| s.layer < m.layer).map_or(1.0, |s| (s.counts.classes as f64 * share).max(1.0));
    let growth = records as f64 / before;
    let per_record = layer_bytes as f64 / records.max(1) as f64;
    let next_layer = records as f64 * growth * per_record * fraction;
    // a part per thread is written (compacted, or merged) beside the runs
    let parts_here = (m.run.partitions as f64 * share * fraction).max(1.0);
    let parts = settings.threads.max(1) as f64 * next_layer / parts_here;
    let free = free_disk(work.root()).map_or(f64::INFINITY, |b| b as f64);
    let (room, what) = match settings.disk_limit {
        Some(limit) if (limit.saturating_sub(work.bytes()) as f64) < free => {
            (limit.saturating_sub(work.bytes()) as f64, "is left of the disk budget")
        }
        _ => (free, "is free"),
    };
    // the buckets of an expansion under way are runs already counted in
    // the need (or are removed when the expansion starts afresh)
    let room = room + work.bucket_bytes(m.layer + 1) as f64;
    let compaction = |ratio: f64| Some(Compaction { ratio, min_bytes: settings.compact_min_bytes });
    if settings.compaction == CompactionMode::Auto && next_layer * RUNS_UNCOMPACTED + parts <= room {
        return Ok(None);
    }
    // the largest ratio whose runs fit, within what compaction is for
    let fits = (room - parts) / (next_layer * COMPACTED_OVERHEAD).max(1.0) - 1.0;
    let ratio = match settings.compaction {
        CompactionMode::Auto => fits.min(RUNS_UNCOMPACTED - 1.0),
        CompactionMode::Always => MIN_COMPACT_RATIO,
    };
    if fits >= MIN_COMPACT_RATIO {
        return Ok(compaction(ratio));
    }
    let runs = next_layer * (1.0 + MIN_COMPACT_RATIO) * COMPACTED_OVERHEAD;
    let need = runs + parts;
    Err(LayersError::Disk {
        layer: m.layer + 1,
        need,
        runs,
        layer_bytes: next_layer,
        free: room,
        what,
        dir: work.root().to_path_buf(),
        slices: if counted { Some((1.0 / fraction).round() as u32) } else { None },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::census::{Counts, LayerCounts};

    /// A run at a layer of 1000 records in 4000 bytes whose layer before
    /// held 100 classes: the next layer is estimated at 40,000 bytes.
    fn manifest() -> Manifest {
        Manifest {
            software: "test".into(),
            run: RunConfig {
                size: 6,
                by: 0,
                limit: 20,
                partitions: 16,
                command: "t".into(),
                started_unix: 0,
                memory_limit: 1 << 20,
                store_last: true,
            },
            phase: Phase::Complete,
            layer: 9,
            part_records: vec![1000 / 16; 16],
            stats: vec![LayerCounts { layer: 8, counts: Counts { classes: 100, ..Counts::default() }, games: None }],
            entering: Entering::default(),
            elapsed_seconds: 0.0,
            slicing: Slicing::default(),
            settings: RunSettings::default(),
            out: None,
        }
    }

    /// A panic of the work the disk is sampled around goes on to the
    /// caller at once instead of leaving it waiting for the sampler.
    #[test]
    fn a_panic_while_the_disk_is_sampled_ends_the_sampling() {
        let dir = tempfile::tempdir().unwrap();
        let work = WorkDir::new(dir.path());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let watch = DiskWatch::new(&work);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sampling(&watch, || panic!("a bug"))));
            tx.send(r.is_err()).unwrap();
        });
        assert!(rx.recv_timeout(Duration::from_secs(30)).expect("the panic came back"));
    }

    #[test]
    fn buckets_are_compacted_only_when_the_uncompacted_runs_do_not_fit() {
        let dir = tempfile::tempdir().unwrap();
        let work = WorkDir::new(dir.path());
        let m = manifest();
        let records: u64 = m.part_records.iter().sum();
        let here = (records, records * 4, 1.0);
        let next = records as f64 * (records as f64 / 100.0) * 4.0;
        let parts = next / 16.0;
        let with = |disk: f64, compaction| LayersSettings {
            disk_limit: Some(disk as u64),
            compaction,
            compact_min_bytes: 7,
            ..LayersSettings::new(1, 1 << 20)
        };
        // room for ~3 times the layer: no compaction
        let roomy = next * RUNS_UNCOMPACTED + parts + 100.0;
        assert_eq!(check_disk(&work, &m, here, &with(roomy, CompactionMode::Auto), 1.0, false).unwrap(), None);
        // always: the smallest ratio, even with room
        let always = check_disk(&work, &m, here, &with(roomy, CompactionMode::Always), 1.0, false).unwrap().unwrap();
        assert_eq!((always.ratio, always.min_bytes), (MIN_COMPACT_RATIO, 7));
        // room for ~2.3 times: compacted at the largest ratio that fits
        let tight = next * 2.3 * COMPACTED_OVERHEAD + parts;
        let c = check_disk(&work, &m, here, &with(tight, CompactionMode::Auto), 1.0, false).unwrap().unwrap();
        assert!((c.ratio - 1.3).abs() < 0.01, "{c:?}");
        // room for less than 1.5 times: refused, resumably
        let short = next * 1.3 * COMPACTED_OVERHEAD + parts;
        for mode in [CompactionMode::Auto, CompactionMode::Always] {
            assert!(matches!(
                check_disk(&work, &m, here, &with(short, mode), 1.0, false),
                Err(LayersError::Disk { .. })
            ));
        }
    }
}
