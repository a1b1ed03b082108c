//! The layered frontier engine: the census one layer at a time, out of core.
//!
//! Every move adds one disc, so positions fall into layers (by disc count,
//! or by ply), and a layer needs only the one before it. A layer is stored
//! as `P` hash partitions, each a sorted file of records (stored key,
//! multiplicity = number of games reaching the class, over its orbit).
//!
//! The engine is a set of parts that a driver composes
//! (`docs/architecture.md`):
//! - *plan*: [`LayersPlan`], [`LayersSettings`] and the work-directory
//!   layout [`WorkDir`];
//! - *expand* ([`expand::expand`]): parent parts → the parent layer's
//!   counts and child records, sent to a [`ShuffleSink`];
//! - *shuffle* ([`shuffle`]): [`LocalBuckets`] appends child runs to local
//!   bucket files; another transport sends them to other processes;
//! - *merge* ([`merge::merge_partition`]): one bucket → one sorted, unique
//!   part of the next layer;
//! - *commit* ([`commit::commit`]): the manifest, replaced atomically.
//!
//! [`driver`] composes them, over a [`Transport`]: one process
//! ([`Alone`]), MPI ranks (`distributed`), or threads standing in for
//! ranks ([`ThreadRanks`]). A last layer that is not stored can be counted
//! in slices of its partitions, each a unit of resume. RAM is bounded by `--memory`
//! (the buffers), not by the layer size; resume continues from the last
//! committed phase, and from the last merged partition inside a merge.
//!
//! By discs, a position whose side must pass and its passed twin are in the
//! same layer: a child that must pass brings its twin along, with the same
//! multiplicity. By ply, the twin is the child at the next ply.

pub mod commit;
#[cfg(feature = "mpi")]
pub mod distributed;
pub mod driver;
pub mod expand;
pub mod expansion;
pub mod inspect;
pub mod merge;
pub mod progress;
pub mod ranks;
pub mod shapes;
pub mod shuffle;
pub mod store;
pub mod transport;
pub mod workdir;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

use crate::census::{Census, LayerBy};
use crate::formats::framed::FrameError;
use crate::key::Keyed;
use crate::text::human_bytes;

pub use ranks::Ranks;
pub use shuffle::{LocalBuckets, ShuffleSink};
pub use transport::{Alone, ThreadRanks, Transport};
pub use workdir::WorkDir;

/// Settings of a layered run that may change on resume.
#[derive(Clone, Debug)]
pub struct LayersSettings {
    /// Worker threads.
    pub threads: usize,
    /// Bytes of RAM for buffers.
    pub memory_limit: u64,
    /// Bytes of disk the work directory may hold (`None`: the free space).
    pub disk_limit: Option<u64>,
    /// Whether the last layer is written to disk (so that the run can be
    /// extended); if not, it is counted while it is merged, and the largest
    /// layer of the run never takes disk.
    pub store_last: bool,
    /// When the buckets of a layer are compacted.
    pub compaction: CompactionMode,
    /// Buckets smaller than this are never compacted
    /// ([`store::COMPACT_MIN_BYTES`] unless a test wants compactions on
    /// small layers).
    pub compact_min_bytes: u64,
    /// Slices in which a last layer that is not stored is counted (`None`:
    /// as few as the disk allows, one if it fits whole). Fixed once the
    /// slicing of a layer has begun.
    pub slices: Option<u32>,
    /// The directory of the run's result files (absolute), kept in the
    /// manifest for a `resume` that is given none (`None`: none kept).
    pub out: Option<std::path::PathBuf>,
}

/// When the buckets of a layer are compacted (see [`store::Compaction`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionMode {
    /// Only when the disk cannot hold the uncompacted runs (about 3 times
    /// the layer): compaction costs time (about half as much again on 8x8
    /// ply 13), so it is spent only where it saves the run.
    Auto,
    /// Always, at the smallest ratio: the least disk.
    Always,
}

impl LayersSettings {
    /// `threads` workers within `memory_limit` bytes, no disk limit, the
    /// last layer stored, the standard compaction threshold.
    pub fn new(threads: usize, memory_limit: u64) -> Self {
        LayersSettings {
            threads,
            memory_limit,
            disk_limit: None,
            store_last: true,
            compaction: CompactionMode::Auto,
            compact_min_bytes: store::COMPACT_MIN_BYTES,
            slices: None,
            out: None,
        }
    }
}

/// Plies after which every game on the largest board has ended: a run by
/// ply without a limit goes this far (it ends earlier, when no game is
/// left).
pub const MAX_PLIES: u32 = 256;

/// Hash partitions per layer of a board of side `size` unless a run asks
/// for another number: 64 on 6x6 and 8x8, where smaller partitions make
/// smaller buffers to sort and a shorter tail of the last merges (a(12) by
/// ply at 4 GiB on 2 cores 20.4 -> 19.5 s, 6x6 to 17 discs 37.2 -> 35.6 s,
/// against 16), and 16 on 4x4, whose layers are so small that a file per
/// partition costs more than it saves.
pub const fn default_partitions(size: u32) -> u32 {
    if size <= 4 { 16 } else { 64 }
}

/// A new layered run.
#[derive(Clone, Debug)]
pub struct LayersPlan {
    /// How layers are formed.
    pub by: LayerBy,
    /// The last layer (disc count or ply).
    pub limit: u32,
    /// Hash partitions per layer.
    pub partitions: u32,
    /// Directory for the layer files (must not hold a run already).
    pub work_dir: PathBuf,
    /// The command line.
    pub command: String,
    /// Unix seconds.
    pub started_unix: u64,
}

/// Live counters for a progress display.
#[derive(Debug, Default)]
pub struct LayersLive {
    /// Layer being built or expanded.
    pub layer: AtomicU64,
    /// 0 expanding, 1 merging.
    pub phase: AtomicU64,
    /// Classes expanded in the current layer.
    pub done: AtomicU64,
    /// Classes in the current layer.
    pub total: AtomicU64,
    /// Partitions merged in the current merge.
    pub parts_done: AtomicU64,
    /// Partitions of the run.
    pub partitions: AtomicU64,
    /// Classes of the layer before the current one (0: none yet).
    pub previous: AtomicU64,
    /// The last layer of the run.
    pub limit: AtomicU64,
    /// The slice of a last layer counted in slices: `(i << 32) | K` for
    /// slice i (from 1) of K; 0 when not slicing.
    pub slice: AtomicU64,
}

/// What every part of a run shares: its settings, the stop flag and the
/// live counters.
pub struct RunContext<'a> {
    /// Threads, memory, disk.
    pub settings: &'a LayersSettings,
    /// Set (by a signal handler, say) to stop at the next record.
    pub stop: &'a AtomicBool,
    /// Progress.
    pub live: &'a LayersLive,
    /// The work directory (named in errors).
    pub work_dir: &'a std::path::Path,
}

/// Why a layered run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum LayersError {
    #[error(transparent)]
    File(#[from] FrameError),
    #[error("{}: {detail}", path.display())]
    WorkDir { path: PathBuf, detail: String },
    #[error("interrupted; complete layers and recorded rounds are kept in {}", .0.display())]
    Interrupted(PathBuf),
    /// Another process holds the run's lock (the message names the
    /// directory).
    #[error("{0}")]
    Locked(String),
    #[error(
        "layer {layer}{} needs an estimated {} of disk in {} ({} of sorted runs, then a {} layer that replaces \
         them partition by partition), but only {} {what}",
        slices.filter(|&k| k > 1).map_or(String::new(), |k| format!(" (one of {k} slices)")),
        crate::text::distinct_bytes(*need, *free).0,
        dir.display(),
        human_bytes(*runs),
        human_bytes(*layer_bytes),
        crate::text::distinct_bytes(*need, *free).1
    )]
    Disk {
        layer: u32,
        need: f64,
        runs: f64,
        layer_bytes: f64,
        free: f64,
        what: &'static str,
        dir: PathBuf,
        /// The slices of a last layer counted without being stored.
        slices: Option<u32>,
    },
}

impl LayersError {
    /// Whether a file of the run is damaged (truncated, a checksum that
    /// fails, corrupt contents, or not a file of its kind): resuming cannot
    /// get past it until the file is restored.
    pub fn damaged_file(&self) -> bool {
        matches!(
            self,
            LayersError::File(
                FrameError::Truncated(..)
                    | FrameError::Checksum { .. }
                    | FrameError::Corrupt { .. }
                    | FrameError::WrongKind(..)
            )
        )
    }
}

/// A finished layered census.
#[derive(Clone, Debug)]
pub struct LayersOutcome {
    /// The counts.
    pub census: Census,
    /// Wall time over every session.
    pub elapsed: Duration,
    /// Bytes on disk of the largest layer and its classes.
    pub largest_layer: (u64, u64),
    /// Peak bytes of the work directory during this session (sampled four
    /// times a second).
    pub peak_disk: u64,
    /// Each phase of this session.
    pub phases: Vec<PhaseStat>,
    /// The command line that started the run.
    pub command: String,
    /// Partitions per layer.
    pub partitions: u32,
    /// False when the last layer was counted while merged, never stored:
    /// the run cannot be extended.
    pub last_layer_stored: bool,
}

/// What one phase of a layered run took.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PhaseStat {
    /// The layer expanded (`expand`) or built (`merge`, `merge and count`).
    pub layer: u32,
    /// `expand`, `merge`, or `merge and count` (a last layer not stored).
    pub phase: &'static str,
    /// Wall seconds.
    pub seconds: f64,
    /// Peak bytes of the work directory during the phase (sampled).
    #[serde(rename = "peak_disk_bytes")]
    pub peak_disk: u64,
    /// Child records sent (expand) or records of the layer built (merge).
    pub records: u64,
    /// Bucket compactions while expanding.
    pub compactions: u64,
    /// Bytes sent to other processes while expanding (0 in one process).
    #[serde(rename = "exchanged_bytes")]
    pub exchanged: u64,
    /// The slice (from 1) and the slices of a last layer counted in slices.
    #[serde(serialize_with = "slice_of")]
    pub slice: Option<(u32, u32)>,
    /// Rounds of an expansion (0 for a merge).
    pub rounds: u32,
    /// Of those, the rounds an earlier, stopped call had done and recorded
    /// (not expanded again; `seconds` and `records` cover the others).
    pub rounds_resumed: u32,
}

/// A slice as `{"slice": i, "of": k}` (null for a whole layer).
fn slice_of<S: serde::Serializer>(slice: &Option<(u32, u32)>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct SliceOf {
        slice: u32,
        of: u32,
    }
    serde::Serialize::serialize(&slice.map(|(slice, of)| SliceOf { slice, of }), s)
}

/// The layered engine's own figures of a run, as results report them
/// (`engine_stats`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayersStats {
    pub partitions: u32,
    pub largest_layer_bytes: u64,
    pub largest_layer_classes: u64,
    /// Bytes on disk per class of the largest layer, to a hundredth.
    pub disk_bytes_per_class: f64,
    pub peak_disk_bytes: u64,
    /// Over MPI: the ranks, and each one's peak resident memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_bytes_per_rank: Option<Vec<u64>>,
    pub phases: Vec<PhaseStat>,
}

impl LayersOutcome {
    /// The run's engine figures; `ranks`: over MPI, each rank's peak
    /// resident memory.
    pub fn stats(&self, ranks: Option<Vec<u64>>) -> LayersStats {
        let (bytes, classes) = self.largest_layer;
        LayersStats {
            partitions: self.partitions,
            largest_layer_bytes: bytes,
            largest_layer_classes: classes,
            disk_bytes_per_class: (bytes as f64 / classes.max(1) as f64 * 100.0).round() / 100.0,
            peak_disk_bytes: self.peak_disk,
            ranks: ranks.as_ref().map(|r| r.len() as u32),
            peak_rss_bytes_per_rank: ranks,
            phases: self.phases.clone(),
        }
    }
}

/// Starts a new run in `plan.work_dir` in this process: writes the first
/// layer and the manifest, then runs the census to its end.
pub fn start<G: Keyed>(
    plan: &LayersPlan,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    driver::start::<G, _>(&Alone, plan, settings, stop, live)
}

/// Continues the run of a work directory in this process, to a new last
/// layer if `limit` is given (a finished run is taken further).
pub fn resume<G: Keyed>(
    work_dir: &std::path::Path,
    limit: Option<u32>,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    driver::resume::<G, _>(&Alone, work_dir, limit, settings, stop, live)
}
