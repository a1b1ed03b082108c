//! A run started (its first layer written) or resumed (its manifest
//! read, its limit moved), its directories locked, then driven to its end.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::collective::share_manifest;
use super::disk::{DiskWatch, check_slices, sampling};
use super::{Driver, run_out, run_settings};
use crate::board::Position;
use crate::engine::layers::commit::{commit, read_state, set_limit};
use crate::engine::layers::expand::BufferPool;
use crate::engine::layers::expansion::Entering;
use crate::engine::layers::store::{Manifest, Phase, RunConfig, Slicing, partition_of, to_stored, write_part};
use crate::engine::layers::transport::{Transport, launcher};
use crate::engine::layers::workdir::{RunLock, WorkDir};
use crate::engine::layers::{LayersError, LayersLive, LayersOutcome, LayersPlan, LayersSettings, RunContext};
use crate::key::dense::side_weight;
use crate::key::{Keyed, PackedKey, canonical_key};
use crate::software;

/// The directory of this rank's parts and buckets: the run's own, or
/// `rank-RRRR-of-NNNN` below it.
pub(super) fn rank_dir<T: Transport>(t: &T, root: &WorkDir) -> WorkDir {
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
