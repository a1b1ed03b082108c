//! The disk a run takes: sampled by a thread while it runs, and planned
//! before each layer (compacted buckets, slices, or a refusal that says
//! what is missing).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::NextPlan;
use crate::engine::layers::store::{Compaction, MIN_COMPACT_RATIO, Manifest};
use crate::engine::layers::workdir::WorkDir;
use crate::engine::layers::{CompactionMode, LayersError, LayersSettings};
use crate::engine::resources::free_disk;

/// Sorted runs written while expanding a layer without compaction, as a
/// multiple of the layer they merge into (measured: 2.6 on 8x8 ply 14 with
/// 8 GiB of buffers; rounded up).
const RUNS_UNCOMPACTED: f64 = 3.0;

/// A compacted run of part of a layer's records takes a little more than
/// their share of the layer (its keys lie further apart).
const COMPACTED_OVERHEAD: f64 = 1.1;

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

/// Refuses `slices` slices of a run of `partitions` partitions (at `path`)
/// unless each slice can hold whole partitions: checked when a session
/// starts (before its work directory is made) or resumes (before any layer
/// is expanded), and again when a last layer is planned.
pub(super) fn check_slices(path: &Path, slices: u32, partitions: u32) -> Result<(), LayersError> {
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
    use crate::engine::layers::expansion::Entering;
    use crate::engine::layers::store::{Phase, RunConfig, RunSettings, Slicing};

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
