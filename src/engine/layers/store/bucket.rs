//! A bucket: the runs appended for one partition of the next layer, and
//! its compaction (its runs merged into one while it grows).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use super::kway::write_merged_run;
use super::run::EncodedRun;
use super::{BUCKET_KIND, TAG_RUN, io_err};
use crate::formats::atomic::start_writeback;
use crate::formats::framed::{FrameError, FramedReader, write_end, write_preamble, write_section};

/// When a bucket is compacted (its runs merged into one): once the runs
/// appended since the last compaction hold more than `ratio` times the
/// compacted run's bytes, and the bucket at least `min_bytes`. A bucket
/// then never holds much more than `1 + ratio` times the part it becomes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compaction {
    /// New runs, as a share of the compacted run, that start a compaction.
    pub ratio: f64,
    /// Buckets smaller than this are never compacted.
    pub min_bytes: u64,
}

/// The smallest compaction ratio the driver uses: each compaction rewrites
/// the whole bucket, so smaller ratios cost more time than they save disk.
pub const MIN_COMPACT_RATIO: f64 = 0.5;
/// Buckets smaller than this are never compacted unless a run says
/// otherwise (small layers would churn for nothing).
pub const COMPACT_MIN_BYTES: u64 = 1 << 20;

/// What a bucket holds at a moment: enough to reopen it there (an
/// expansion's progress file keeps one per bucket, see
/// `docs/layer-format.md`). Encoded field by field, in this order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BucketState {
    /// Offsets of its runs.
    pub offsets: Vec<u64>,
    /// Bytes of the file after its last compaction (the preamble alone at
    /// first).
    pub base: u64,
    /// Bytes appended since then.
    pub appended: u64,
    /// Compactions so far.
    pub compactions: u64,
    /// Bytes of the file, up to the end of its last run.
    pub len: u64,
}

impl Encode for BucketState {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(e, self.offsets, self.base, self.appended, self.compactions, self.len)
    }
}

impl<C> Decode<C> for BucketState {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(BucketState {
            offsets: Vec::decode(d)?,
            base: u64::decode(d)?,
            appended: u64::decode(d)?,
            compactions: u64::decode(d)?,
            len: u64::decode(d)?,
        })
    }
}
bincode::impl_borrow_decode!(BucketState);

/// Collects sorted runs for one partition of the next layer. Threads append
/// whole runs; `finish` closes the file with END. The file is open only
/// while a run is appended, so a layer of any number of partitions holds no
/// file descriptors between appends. With a [`Compaction`], once the runs
/// appended since the last compaction outgrow its ratio of the compacted
/// run, every run is merged into one (summing duplicates) and the file
/// replaced: the spill stays close to the size of the layer it becomes.
/// The appending thread compacts at once, unless the bucket is
/// *checkpointed*: then only the driver compacts, between rounds
/// ([`BucketWriter::stage_compaction`]), so that the bucket at a checkpoint
/// can be reopened ([`BucketWriter::reopen`]).
pub struct BucketWriter {
    path: PathBuf,
    fan_in: usize,
    compaction: Option<Compaction>,
    checkpointed: bool,
    state: Mutex<BucketState>,
}

impl BucketWriter {
    /// Creates (truncates) a bucket file, compacted as `compaction` says
    /// (never if `None`); compactions merge at most `fan_in` runs at once;
    /// `checkpointed`: only between rounds.
    pub fn create(
        path: &Path,
        fan_in: usize,
        compaction: Option<Compaction>,
        checkpointed: bool,
    ) -> Result<BucketWriter, FrameError> {
        let mut f = File::create(path).map_err(|e| io_err(path, e))?;
        write_preamble(&mut f, &BUCKET_KIND).map_err(|e| io_err(path, e))?;
        let base = f.metadata().map_err(|e| io_err(path, e))?.len();
        let state = Mutex::new(BucketState { base, len: base, ..BucketState::default() });
        Ok(BucketWriter { path: path.to_path_buf(), fan_in, compaction, checkpointed, state })
    }

    /// Reopens a checkpointed bucket as it was when `state` was taken: a
    /// compaction staged and recorded in that state is installed first
    /// (one staged and not recorded is removed), then whatever was
    /// appended after the state is cut off. A file shorter than the state,
    /// or not a bucket, is an error.
    pub fn reopen(
        path: &Path,
        fan_in: usize,
        compaction: Option<Compaction>,
        state: BucketState,
    ) -> Result<BucketWriter, FrameError> {
        let staged = Self::staged_path(path, state.compactions);
        if staged.exists() {
            std::fs::rename(&staged, path).map_err(|e| io_err(path, e))?;
        }
        let next = Self::staged_path(path, state.compactions + 1);
        if next.exists() {
            std::fs::remove_file(&next).map_err(|e| io_err(&next, e))?;
        }
        FramedReader::open(path, BUCKET_KIND)?;
        let f = OpenOptions::new().write(true).open(path).map_err(|e| io_err(path, e))?;
        let len = f.metadata().map_err(|e| io_err(path, e))?.len();
        if len < state.len || state.offsets.iter().any(|&o| o >= state.len) {
            return Err(FrameError::Corrupt {
                path: path.to_path_buf(),
                kind: BUCKET_KIND.name,
                detail: format!("{len} bytes, fewer than the {} its expansion's progress file records", state.len),
            });
        }
        f.set_len(state.len).and_then(|_| f.sync_all()).map_err(|e| io_err(path, e))?;
        let state = Mutex::new(state);
        Ok(BucketWriter { path: path.to_path_buf(), fan_in, compaction, checkpointed: true, state })
    }

    /// Where compaction number `n` of the bucket at `path` is staged.
    fn staged_path(path: &Path, n: u64) -> PathBuf {
        path.with_extension(format!("gen{n}"))
    }

    /// Appends a run of sorted, unique records.
    pub fn append(&self, run: EncodedRun<'_>) -> Result<(), FrameError> {
        if run.is_empty() {
            return Ok(());
        }
        let payload = run.body();
        let mut st = self.state.lock().expect("bucket lock");
        let path = &self.path;
        let file = OpenOptions::new().append(true).open(path).map_err(|e| io_err(path, e))?;
        let at = file.metadata().map_err(|e| io_err(path, e))?.len();
        let mut w = BufWriter::with_capacity(1 << 16, file);
        write_section(&mut w, TAG_RUN, payload.len() as u64, |h| h.put(payload))
            .and_then(|_| w.flush())
            .map_err(|e| io_err(path, e))?;
        let end = std::fs::metadata(path).map_err(|e| io_err(path, e))?.len();
        // the run goes to the disk while the expansion goes on, not all
        // at the bucket's closing fsync
        start_writeback(w.get_ref(), at, end - at);
        drop(w);
        st.offsets.push(at);
        st.appended += end - at;
        st.len = end;
        if !self.checkpointed && Self::due(self.compaction, &st) {
            let (staged, next) = self.merge_runs_into(&st, Self::staged_path(path, st.compactions + 1))?;
            std::fs::rename(&staged, path).map_err(|e| io_err(path, e))?;
            *st = next;
        }
        Ok(())
    }

    /// Whether a bucket in state `st` is due for compaction.
    fn due(compaction: Option<Compaction>, st: &BucketState) -> bool {
        compaction.is_some_and(|c| {
            st.offsets.len() > 1 && st.appended as f64 > (st.base as f64 * c.ratio).max(c.min_bytes as f64)
        })
    }

    /// Merges every run of the bucket into one, in a new file `to`;
    /// returns it and the state the bucket will have once it is the file.
    fn merge_runs_into(&self, st: &BucketState, to: PathBuf) -> Result<(PathBuf, BucketState), FrameError> {
        let f = File::create(&to).map_err(|e| io_err(&to, e))?;
        let mut w = BufWriter::with_capacity(1 << 16, f);
        write_preamble(&mut w, &BUCKET_KIND).map_err(|e| io_err(&to, e))?;
        let at = w.stream_position().map_err(|e| io_err(&to, e))?;
        write_merged_run(&mut w, &to, &self.path, &st.offsets, self.fan_in)?;
        w.flush().map_err(|e| io_err(&to, e))?;
        let len = w.stream_position().map_err(|e| io_err(&to, e))?;
        if self.checkpointed {
            w.get_ref().sync_all().map_err(|e| io_err(&to, e))?;
        }
        let next = BucketState { offsets: vec![at], base: len, appended: 0, compactions: st.compactions + 1, len };
        Ok((to, next))
    }

    /// For a checkpointed bucket due for compaction: its runs merged into
    /// one durable file beside it, and the state it will have once that
    /// file is installed ([`BucketWriter::install`]); `None` when not due.
    /// Record the state before installing: a reopen at it installs the
    /// staged file itself.
    pub fn stage_compaction(&self) -> Result<Option<BucketState>, FrameError> {
        let st = self.state.lock().expect("bucket lock");
        if !Self::due(self.compaction, &st) {
            return Ok(None);
        }
        let (_, next) = self.merge_runs_into(&st, Self::staged_path(&self.path, st.compactions + 1))?;
        Ok(Some(next))
    }

    /// Replaces the bucket by its staged compaction, whose state is `next`.
    pub fn install(&self, next: BucketState) -> Result<(), FrameError> {
        let mut st = self.state.lock().expect("bucket lock");
        let staged = Self::staged_path(&self.path, next.compactions);
        std::fs::rename(&staged, &self.path).map_err(|e| io_err(&self.path, e))?;
        *st = next;
        Ok(())
    }

    /// Makes what was appended durable; returns the state it is in.
    pub fn sync(&self) -> Result<BucketState, FrameError> {
        let st = self.state.lock().expect("bucket lock");
        File::open(&self.path).and_then(|f| f.sync_all()).map_err(|e| io_err(&self.path, e))?;
        Ok(st.clone())
    }

    /// Writes END., flushes and syncs; returns the number of runs.
    pub fn finish(self) -> Result<u64, FrameError> {
        let runs = self.state.lock().expect("bucket lock").offsets.len() as u64;
        let path = self.path;
        (|| {
            let mut f = OpenOptions::new().append(true).open(&path)?;
            write_end(&mut f)?;
            f.sync_all()
        })()
        .map_err(|e| io_err(&path, e))?;
        Ok(runs)
    }

    /// Compactions so far.
    pub fn compactions(&self) -> u64 {
        self.state.lock().expect("bucket lock").compactions
    }
}
