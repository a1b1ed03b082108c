//! The local driver: one process runs every partition of every layer,
//! composing the parts — check the disk, expand every parent part into the
//! local buckets, commit, merge every partition (in parallel), commit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::commit::{commit, read_state};
use super::expand::{Counter, Expansion, PartInput, expand};
use super::merge::merge_partition;
use super::shuffle::{LocalBuckets, NoChildren};
use super::store::{
    Compaction, Entering, MIN_COMPACT_RATIO, Manifest, PHASE_COUNTED, RunConfig, merge_bucket, partition_of, to_stored,
    write_part,
};
use super::workdir::WorkDir;
use super::{CompactionMode, LayersError, LayersOutcome, LayersPlan, LayersSettings, PhaseStat, RunContext};
use crate::board::Position;
use crate::census::{Census, Games, LayerBy, LayerCounts};
use crate::engine::resources::{free_disk, merge_fan_in, open_files_limit};
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

/// Writes the first layer (the start position) and the first manifest.
pub fn begin<G: Keyed>(work: &WorkDir, plan: &LayersPlan, settings: &LayersSettings) -> Result<(), LayersError> {
    if work.manifest().exists() {
        return Err(LayersError::WorkDir {
            path: work.root().to_path_buf(),
            detail: format!(
                "already holds a layered run; continue it with `othello-census resume {}`",
                crate::text::shell_path(work.root())
            ),
        });
    }
    let run = RunConfig {
        size: G::N,
        by: plan.by.code(),
        limit: plan.limit,
        partitions: plan.partitions,
        command: plan.command.clone(),
        started_unix: plan.started_unix,
        memory_limit: settings.memory_limit,
    };
    let k = plan.by.first_layer();
    let dir = work.create_layer_dir(k)?;
    let start = to_stored(canonical_key(&Position::<G>::start()).to_u128(), side_weight(G::N));
    let start_occupancy = Position::<G>::start().empty().0 ^ G::FULL;
    let home = partition_of(crate::key::occupancy::canonical_occupancy::<G>(start_occupancy).0, plan.partitions);
    let mut part_records = Vec::new();
    for j in 0..plan.partitions {
        let n =
            write_part(&work.part(k, j), &run.part(k, j), |emit| if j == home { emit((start, 1)) } else { Ok(()) })?;
        part_records.push(n);
    }
    WorkDir::sync_dir(&dir)?;
    let mut m = Manifest {
        software: software(),
        run,
        phase: 0,
        layer: k,
        part_records,
        stats: Vec::new(),
        entering: Entering { games: 1, passes: 0 },
        elapsed_seconds: 0.0,
    };
    commit(work, &mut m)
}

/// Runs the census of `work` from its manifest to the end.
pub fn drive<G: Keyed>(work: &WorkDir, ctx: &RunContext<'_>) -> Result<LayersOutcome, LayersError> {
    let watch = DiskWatch::new(work);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                watch.sample();
            }
        });
        let out = drive_phases::<G>(work, ctx, &watch);
        done.store(true, Ordering::Relaxed);
        out
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

fn drive_phases<G: Keyed>(
    work: &WorkDir,
    ctx: &RunContext<'_>,
    watch: &DiskWatch,
) -> Result<LayersOutcome, LayersError> {
    let mut m = read_state(work)?;
    let bad = |detail: String| LayersError::WorkDir { path: work.root().to_path_buf(), detail };
    let Some(by) = LayerBy::from_code(m.run.by) else {
        return Err(bad(format!("the manifest names an unknown layering ({})", m.run.by)));
    };
    if m.run.size != G::N {
        return Err(bad(format!("the manifest describes a {0}x{0} run, not {1}x{1}", m.run.size, G::N)));
    }
    if m.phase > PHASE_COUNTED {
        return Err(bad(format!("the manifest names an unknown phase ({})", m.phase)));
    }
    let started = Instant::now();
    let elapsed_before = m.elapsed_seconds;
    let elapsed = |s: Instant| elapsed_before + s.elapsed().as_secs_f64();
    let threads = ctx.settings.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let fan_in = merge_fan_in(open_files_limit(), threads, super::store::MAX_FAN_IN);
    let mut largest = (0u64, 0u64);
    let mut phases: Vec<PhaseStat> = Vec::new();
    let finished = |m: Manifest, largest, phases| {
        let mut layers = m.stats;
        Census::fill_including_ended(&mut layers);
        LayersOutcome {
            census: Census { size: G::N, by, limit: m.run.limit, layers },
            elapsed: Duration::from_secs_f64(m.elapsed_seconds),
            largest_layer: largest,
            peak_disk: watch.session.load(Ordering::Relaxed),
            phases,
            command: m.run.command,
            partitions: m.run.partitions,
            last_layer_stored: m.phase != PHASE_COUNTED,
        }
    };
    ctx.live.partitions.store(m.run.partitions as u64, Ordering::Relaxed);
    ctx.live.limit.store(m.run.limit as u64, Ordering::Relaxed);
    work.sweep(&m);
    loop {
        if m.phase == PHASE_COUNTED {
            return Ok(finished(m, largest, phases));
        }
        if ctx.stop.load(Ordering::SeqCst) {
            return Err(LayersError::Interrupted(work.root().to_path_buf()));
        }
        let k = m.layer;
        watch.begin();
        if m.phase == 0 {
            let classes: u64 = m.part_records.iter().sum();
            let bytes = work.layer_bytes(k);
            if classes > largest.1 {
                largest = (bytes, classes);
            }
            let last = k >= m.run.limit;
            let compaction = if last { None } else { check_disk(work, &m, (classes, bytes, 1.0), ctx.settings)? };
            ctx.live.layer.store(k as u64, Ordering::Relaxed);
            ctx.live.previous.store(m.stats.last().map_or(0, |s| s.counts.classes), Ordering::Relaxed);
            ctx.live.phase.store(0, Ordering::Relaxed);
            ctx.live.total.store(classes, Ordering::Relaxed);
            ctx.live.done.store(0, Ordering::Relaxed);
            let inputs: Vec<PartInput> = (0..m.run.partitions)
                .map(|j| PartInput { path: work.part(k, j), id: m.run.part(k, j), records: m.part_records[j as usize] })
                .collect();
            let phase_started = Instant::now();
            let mut compactions = 0;
            let (ex, runs) = if last {
                (expand::<G>(ctx, by, &inputs, false, &NoChildren)?, Vec::new())
            } else {
                let buckets = LocalBuckets::create(work, k + 1, m.run.partitions, fan_in, compaction)?;
                match expand::<G>(ctx, by, &inputs, true, &buckets) {
                    Ok(ex) => {
                        compactions = buckets.compactions();
                        (ex, buckets.finish()?)
                    }
                    Err(e) => {
                        buckets.discard();
                        return Err(e);
                    }
                }
            };
            phases.push(PhaseStat {
                layer: k,
                phase: "expand",
                seconds: phase_started.elapsed().as_secs_f64(),
                peak_disk: watch.end(),
                records: ex.emitted,
                compactions,
                exchanged: 0,
            });
            check_mass(by, k, ex.mass, m.entering.games).map_err(bad)?;
            m.stats.push(layer_counts(k, &ex, m.entering));
            if last || ex.emitted == 0 {
                super::workdir::remove_run_dir(&work.bucket_dir(k + 1));
                m.elapsed_seconds = elapsed(started);
                return Ok(finished(m, largest, phases));
            }
            m.phase = 1;
            m.part_records = runs;
            m.entering = ex.entering;
            m.elapsed_seconds = elapsed(started);
            commit(work, &mut m)?;
        } else {
            let next = k + 1;
            let count_only = next >= m.run.limit && !ctx.settings.store_last;
            ctx.live.layer.store(next as u64, Ordering::Relaxed);
            ctx.live.phase.store(1, Ordering::Relaxed);
            ctx.live.parts_done.store(0, Ordering::Relaxed);
            let phase_started = Instant::now();
            let run = &m.run;
            let runs = &m.part_records;
            if count_only {
                // merge and count every partition; the buckets stay until
                // the counts are committed, so an interruption loses nothing
                let found: Vec<Result<Expansion, LayersError>> = pool.install(|| {
                    (0..run.partitions)
                        .into_par_iter()
                        .map(|j| {
                            if ctx.stop.load(Ordering::SeqCst) {
                                return Err(LayersError::Interrupted(work.root().to_path_buf()));
                            }
                            let ex = count_partition::<G>(work, by, next, j, runs[j as usize], fan_in)?;
                            ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                            Ok(ex)
                        })
                        .collect()
                });
                let mut ex = Expansion::default();
                for f in found {
                    ex.add(&f?);
                }
                phases.push(PhaseStat {
                    layer: next,
                    phase: "merge and count",
                    seconds: phase_started.elapsed().as_secs_f64(),
                    peak_disk: watch.end(),
                    records: ex.counts.classes,
                    compactions: 0,
                    exchanged: 0,
                });
                check_mass(by, next, ex.mass, m.entering.games).map_err(bad)?;
                m.stats.push(layer_counts(next, &ex, m.entering));
                m.phase = PHASE_COUNTED;
                m.layer = next;
                m.part_records = Vec::new();
                m.entering = Entering::default();
                m.elapsed_seconds = elapsed(started);
                commit(work, &mut m)?;
                continue;
            }
            let dir = work.create_layer_dir(next)?;
            let counts: Vec<Result<u64, LayersError>> = pool.install(|| {
                (0..run.partitions)
                    .into_par_iter()
                    .map(|j| {
                        if ctx.stop.load(Ordering::SeqCst) {
                            return Err(LayersError::Interrupted(work.root().to_path_buf()));
                        }
                        let n = merge_partition(work, &run.part(next, j), runs[j as usize], fan_in)?;
                        ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                        Ok(n)
                    })
                    .collect()
            });
            WorkDir::sync_dir(&dir)?;
            let part_records = counts.into_iter().collect::<Result<Vec<u64>, _>>()?;
            phases.push(PhaseStat {
                layer: next,
                phase: "merge",
                seconds: phase_started.elapsed().as_secs_f64(),
                peak_disk: watch.end(),
                records: part_records.iter().sum(),
                compactions: 0,
                exchanged: 0,
            });
            m.phase = 0;
            m.layer = next;
            m.part_records = part_records;
            m.elapsed_seconds = elapsed(started);
            commit(work, &mut m)?;
        }
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
    let merged = merge_bucket(&bucket, runs, fan_in, &mut |r| {
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

/// Refuses to expand layer `m.layer` when the disk cannot hold its
/// children, estimated from the growth of the last two layers and the
/// bytes per record of the current one; otherwise says how its buckets are
/// compacted. The parent is on disk already; while expanding, the sorted
/// runs are added to it; the parent is then removed, and each bucket is
/// removed as soon as its part is written, so the next layer never
/// coexists with all the runs: the peak beyond what is on disk is the runs
/// plus a part per thread. Uncompacted runs take about
/// [`RUNS_UNCOMPACTED`] times the next layer; compacted at ratio `r`, about
/// `(1 + r)` times it (with [`COMPACTED_OVERHEAD`]). In
/// [`CompactionMode::Auto`] the buckets are compacted only if the
/// uncompacted runs do not fit, at the largest ratio that fits. The
/// manifest is untouched, so the run resumes once there is room.
pub(super) fn check_disk(
    work: &WorkDir,
    m: &Manifest,
    here: (u64, u64, f64),
    settings: &LayersSettings,
) -> Result<Option<Compaction>, LayersError> {
    // the records and bytes of the parts held here, and their share of
    // the partitions
    let (records, layer_bytes, share) = here;
    let before = m.stats.last().map_or(1.0, |s| (s.counts.classes as f64 * share).max(1.0));
    let growth = records as f64 / before;
    let per_record = layer_bytes as f64 / records.max(1) as f64;
    let next_layer = records as f64 * growth * per_record;
    // a part per thread is written (compacted, or merged) beside the runs
    let parts_here = (m.run.partitions as f64 * share).max(1.0);
    let parts = settings.threads.max(1) as f64 * next_layer / parts_here;
    let free = free_disk(work.root()).map_or(f64::INFINITY, |b| b as f64);
    let (room, what) = match settings.disk_limit {
        Some(limit) if (limit.saturating_sub(work.bytes()) as f64) < free => {
            (limit.saturating_sub(work.bytes()) as f64, "is left of the --disk budget")
        }
        _ => (free, "is free"),
    };
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
            },
            phase: 0,
            layer: 9,
            part_records: vec![1000 / 16; 16],
            stats: vec![LayerCounts { layer: 8, counts: Counts { classes: 100, ..Counts::default() }, games: None }],
            entering: Entering::default(),
            elapsed_seconds: 0.0,
        }
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
        assert_eq!(check_disk(&work, &m, here, &with(roomy, CompactionMode::Auto)).unwrap(), None);
        // always: the smallest ratio, even with room
        let always = check_disk(&work, &m, here, &with(roomy, CompactionMode::Always)).unwrap().unwrap();
        assert_eq!((always.ratio, always.min_bytes), (MIN_COMPACT_RATIO, 7));
        // room for ~2.3 times: compacted at the largest ratio that fits
        let tight = next * 2.3 * COMPACTED_OVERHEAD + parts;
        let c = check_disk(&work, &m, here, &with(tight, CompactionMode::Auto)).unwrap().unwrap();
        assert!((c.ratio - 1.3).abs() < 0.01, "{c:?}");
        // room for less than 1.5 times: refused, resumably
        let short = next * 1.3 * COMPACTED_OVERHEAD + parts;
        for mode in [CompactionMode::Auto, CompactionMode::Always] {
            assert!(matches!(check_disk(&work, &m, here, &with(short, mode)), Err(LayersError::Disk { .. })));
        }
    }
}
