//! The local driver: one process runs every partition of every layer,
//! composing the parts — check the disk, expand every parent part into the
//! local buckets, commit, merge every partition (in parallel), commit.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::commit::{commit, read_state};
use super::expand::{PartInput, expand};
use super::merge::merge_partition;
use super::shuffle::{LocalBuckets, NoChildren};
use super::store::{Entering, Manifest, RunConfig, partition_of, to_stored, write_part};
use super::workdir::WorkDir;
use super::{LayersError, LayersOutcome, LayersPlan, LayersSettings, RunContext};
use crate::board::Position;
use crate::census::{Census, Games, LayerBy, LayerCounts};
use crate::engine::resources::{free_disk, merge_fan_in, open_files_limit};
use crate::key::dense::side_weight;
use crate::key::{Keyed, PackedKey, canonical_key};
use crate::software;

const GIB: f64 = (1u64 << 30) as f64;

/// Sorted runs written while expanding a layer, as a multiple of the
/// layer they merge into (measured: 2.6 on 8x8 ply 14; rounded up).
const RUNS_PER_LAYER: f64 = 3.0;

/// Writes the first layer (the start position) and the first manifest.
pub fn begin<G: Keyed>(work: &WorkDir, plan: &LayersPlan, settings: &LayersSettings) -> Result<(), LayersError> {
    if work.manifest().exists() {
        return Err(LayersError::WorkDir {
            path: work.root().to_path_buf(),
            detail: format!(
                "already holds a layered run; continue it with `othello-census resume {}`",
                work.root().display()
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
    let home = partition_of(start, plan.partitions);
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
    let mut m = read_state(work)?;
    let bad = |detail: String| LayersError::WorkDir { path: work.root().to_path_buf(), detail };
    let Some(by) = LayerBy::from_code(m.run.by) else {
        return Err(bad(format!("the manifest names an unknown layering ({})", m.run.by)));
    };
    if m.run.size != G::N {
        return Err(bad(format!("the manifest describes a {0}x{0} run, not {1}x{1}", m.run.size, G::N)));
    }
    let started = Instant::now();
    let elapsed_before = m.elapsed_seconds;
    let elapsed = |s: Instant| elapsed_before + s.elapsed().as_secs_f64();
    let threads = ctx.settings.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let fan_in = merge_fan_in(open_files_limit(), threads, super::store::MAX_FAN_IN);
    let mut largest = (0u64, 0u64);
    let mut peak_disk = work.bytes();
    let mut timings = Vec::new();
    ctx.live.partitions.store(m.run.partitions as u64, Ordering::Relaxed);
    ctx.live.limit.store(m.run.limit as u64, Ordering::Relaxed);
    work.sweep(&m);
    loop {
        if ctx.stop.load(Ordering::SeqCst) {
            return Err(LayersError::Interrupted(work.root().to_path_buf()));
        }
        let k = m.layer;
        if m.phase == 0 {
            let classes: u64 = m.part_records.iter().sum();
            let bytes = work.layer_bytes(k);
            if classes > largest.1 {
                largest = (bytes, classes);
            }
            let last = k >= m.run.limit;
            if !last {
                check_disk(work, &m, bytes, ctx.settings)?;
            }
            ctx.live.layer.store(k as u64, Ordering::Relaxed);
            ctx.live.previous.store(m.stats.last().map_or(0, |s| s.counts.classes), Ordering::Relaxed);
            ctx.live.phase.store(0, Ordering::Relaxed);
            ctx.live.total.store(classes, Ordering::Relaxed);
            ctx.live.done.store(0, Ordering::Relaxed);
            let inputs: Vec<PartInput> = (0..m.run.partitions)
                .map(|j| PartInput { path: work.part(k, j), id: m.run.part(k, j), records: m.part_records[j as usize] })
                .collect();
            let phase_started = Instant::now();
            let (ex, runs) = if last {
                (expand::<G>(ctx, by, &inputs, false, &NoChildren)?, Vec::new())
            } else {
                let buckets = LocalBuckets::create(work, k + 1, m.run.partitions)?;
                match expand::<G>(ctx, by, &inputs, true, &buckets) {
                    Ok(ex) => {
                        peak_disk = peak_disk.max(work.bytes());
                        (ex, buckets.finish()?)
                    }
                    Err(e) => {
                        buckets.discard();
                        return Err(e);
                    }
                }
            };
            timings.push((k, "expand", phase_started.elapsed().as_secs_f64()));
            if by == LayerBy::Ply && ex.mass != m.entering.games {
                return Err(bad(format!(
                    "layer {k} holds {} games, its parent layer sent {}",
                    ex.mass, m.entering.games
                )));
            }
            m.stats.push(LayerCounts {
                layer: k,
                counts: ex.counts,
                games: Some(Games {
                    games: m.entering.games,
                    games_a124004: 0,
                    passes: m.entering.passes,
                    ended: ex.ended,
                }),
            });
            if last || ex.emitted == 0 {
                let _ = std::fs::remove_dir_all(work.bucket_dir(k + 1));
                m.elapsed_seconds = elapsed(started);
                let mut layers = m.stats;
                Census::fill_a124004(&mut layers);
                return Ok(LayersOutcome {
                    census: Census { size: G::N, by, limit: m.run.limit, layers },
                    elapsed: Duration::from_secs_f64(m.elapsed_seconds),
                    largest_layer: largest,
                    peak_disk,
                    timings,
                    command: m.run.command,
                    partitions: m.run.partitions,
                });
            }
            m.phase = 1;
            m.part_records = runs;
            m.entering = ex.entering;
            m.elapsed_seconds = elapsed(started);
            commit(work, &mut m)?;
        } else {
            let next = k + 1;
            let dir = work.create_layer_dir(next)?;
            ctx.live.layer.store(next as u64, Ordering::Relaxed);
            ctx.live.phase.store(1, Ordering::Relaxed);
            ctx.live.parts_done.store(0, Ordering::Relaxed);
            let phase_started = Instant::now();
            let run = &m.run;
            let runs = &m.part_records;
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
            peak_disk = peak_disk.max(work.bytes());
            let part_records = counts.into_iter().collect::<Result<Vec<u64>, _>>()?;
            timings.push((next, "merge", phase_started.elapsed().as_secs_f64()));
            m.phase = 0;
            m.layer = next;
            m.part_records = part_records;
            m.elapsed_seconds = elapsed(started);
            commit(work, &mut m)?;
        }
    }
}

/// Refuses to expand layer `m.layer` when the disk cannot hold its
/// children, estimated from the growth of the last two layers and the
/// bytes per record of the current one. The parent is on disk already;
/// while expanding, the sorted runs are added to it; the parent is then
/// removed, and each bucket is removed as soon as its part is written, so
/// the next layer never coexists with all the runs: the peak beyond what
/// is on disk is the runs plus one part. The manifest is untouched, so
/// the run resumes once there is room.
fn check_disk(work: &WorkDir, m: &Manifest, layer_bytes: u64, settings: &LayersSettings) -> Result<(), LayersError> {
    let records: u64 = m.part_records.iter().sum();
    let before = m.stats.last().map_or(1, |s| s.counts.classes.max(1));
    let growth = records as f64 / before as f64;
    let per_record = layer_bytes as f64 / records.max(1) as f64;
    let next_layer = records as f64 * growth * per_record;
    let runs = next_layer * RUNS_PER_LAYER;
    let need = runs + next_layer / m.run.partitions.max(1) as f64;
    let free = free_disk(work.root()).map_or(f64::INFINITY, |b| b as f64);
    let (room, what) = match settings.disk_limit {
        Some(limit) if (limit.saturating_sub(work.bytes()) as f64) < free => {
            (limit.saturating_sub(work.bytes()) as f64, "is left of the --disk budget")
        }
        _ => (free, "is free"),
    };
    if need <= room {
        return Ok(());
    }
    Err(LayersError::Disk {
        layer: m.layer + 1,
        need_gib: need / GIB,
        runs_gib: runs / GIB,
        layer_gib: next_layer / GIB,
        free_gib: room / GIB,
        what,
        dir: work.root().to_path_buf(),
    })
}
