//! The shuffle: where the children that an expansion generates go. A
//! [`ShuffleSink`] takes sorted runs of child records, one partition at a
//! time. [`LocalBuckets`] appends them to this machine's bucket files; a
//! distributed driver hands them to the process that owns the partition.

use std::path::Path;

use super::LayersError;
use super::progress::ExpandProgress;
use super::store::{BucketWriter, Compaction, EncodedRun};
use super::workdir::WorkDir;

/// Receives the children of an expansion.
pub trait ShuffleSink: Sync {
    /// Partitions of the next layer.
    fn partitions(&self) -> u32;
    /// Whether the children of `partition` are wanted (a sliced layer
    /// keeps those of one slice of its partitions; the others are not
    /// generated at all).
    fn keeps(&self, _partition: u32) -> bool {
        true
    }
    /// Takes a run of child records of `partition`: sorted by stored key,
    /// keys unique, multiplicities summed, encoded.
    fn send(&self, partition: u32, run: EncodedRun<'_>) -> Result<(), LayersError>;
}

/// The local sink: one bucket file per partition of the next layer that
/// this process holds.
pub struct LocalBuckets {
    /// A writer per partition (`None`: held by another process).
    writers: Vec<Option<BucketWriter>>,
    dir: std::path::PathBuf,
}

impl LocalBuckets {
    /// Fresh, empty buckets for layer `k` of `work`, compacted as
    /// `compaction` says, at most `fan_in` runs at once.
    pub fn create(
        work: &WorkDir,
        k: u32,
        partitions: u32,
        fan_in: usize,
        compaction: Option<Compaction>,
    ) -> Result<LocalBuckets, LayersError> {
        Self::create_held(work, k, partitions, fan_in, compaction, false, |_| true)
    }

    /// Buckets for the partitions `held` says this process holds (a rank
    /// of a distributed run); a run for another partition is an error.
    /// `checkpointed`: compacted only at [`LocalBuckets::checkpoint`].
    pub fn create_held(
        work: &WorkDir,
        k: u32,
        partitions: u32,
        fan_in: usize,
        compaction: Option<Compaction>,
        checkpointed: bool,
        held: impl Fn(u32) -> bool,
    ) -> Result<LocalBuckets, LayersError> {
        let dir = work.fresh_bucket_dir(k)?;
        let writers = (0..partitions)
            .map(|j| {
                held(j).then(|| BucketWriter::create(&work.bucket(k, j), fan_in, compaction, checkpointed)).transpose()
            })
            .collect::<Result<_, _>>()?;
        WorkDir::sync_dir(&dir)?;
        Ok(LocalBuckets { writers, dir })
    }

    /// The checkpointed buckets of layer `k` as `progress` recorded them
    /// (see [`BucketWriter::reopen`]).
    pub fn reopen(
        work: &WorkDir,
        k: u32,
        fan_in: usize,
        compaction: Option<Compaction>,
        progress: &ExpandProgress,
    ) -> Result<LocalBuckets, LayersError> {
        let writers = progress
            .buckets
            .iter()
            .enumerate()
            .map(|(j, st)| {
                st.as_ref()
                    .map(|st| BucketWriter::reopen(&work.bucket(k, j as u32), fan_in, compaction, st.clone()))
                    .transpose()
            })
            .collect::<Result<_, _>>()?;
        let dir = work.bucket_dir(k);
        WorkDir::sync_dir(&dir)?;
        Ok(LocalBuckets { writers, dir })
    }

    /// Makes every run appended so far durable and records `progress`
    /// (`done` rounds, and the state of each bucket) in the progress file;
    /// then compacts the buckets that are due, one at a time, each staged
    /// durably and recorded before it replaces its bucket, so that a
    /// reopen at the last record finds the buckets as recorded.
    pub fn checkpoint(&self, progress: &mut ExpandProgress) -> Result<(), LayersError> {
        progress.buckets =
            self.writers.iter().map(|w| w.as_ref().map(|w| w.sync()).transpose()).collect::<Result<_, _>>()?;
        let path = super::progress::path_in(&self.dir);
        super::progress::write(&path, progress)?;
        for (j, w) in self.writers.iter().enumerate() {
            let Some(w) = w else { continue };
            if let Some(next) = w.stage_compaction()? {
                progress.buckets[j] = Some(next.clone());
                super::progress::write(&path, progress)?;
                w.install(next)?;
                WorkDir::sync_dir(&self.dir)?;
            }
        }
        Ok(())
    }

    /// Compactions so far, over every bucket.
    pub fn compactions(&self) -> u64 {
        self.writers.iter().flatten().map(|w| w.compactions()).sum()
    }

    /// Closes every bucket durably; returns the runs of each partition (0
    /// for those not held here).
    pub fn finish(self) -> Result<Vec<u64>, LayersError> {
        let runs = self.writers.into_iter().map(|w| w.map_or(Ok(0), |w| w.finish())).collect::<Result<Vec<_>, _>>()?;
        WorkDir::sync_dir(&self.dir)?;
        Ok(runs)
    }

    /// Removes the buckets (after a failed expansion).
    pub fn discard(self) {
        drop(self.writers);
        super::workdir::remove_run_dir(&self.dir);
    }

    /// The bucket directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl ShuffleSink for LocalBuckets {
    fn partitions(&self) -> u32 {
        self.writers.len() as u32
    }

    fn send(&self, partition: u32, run: EncodedRun<'_>) -> Result<(), LayersError> {
        match &self.writers[partition as usize] {
            Some(w) => Ok(w.append(run)?),
            None => Err(LayersError::WorkDir {
                path: self.dir.clone(),
                detail: format!("a run for partition {partition}, which this process does not hold"),
            }),
        }
    }
}

/// A sink for the last layer: it must receive nothing.
pub struct NoChildren;

impl ShuffleSink for NoChildren {
    fn partitions(&self) -> u32 {
        1
    }

    fn send(&self, _: u32, _: EncodedRun<'_>) -> Result<(), LayersError> {
        unreachable!("the last layer generates no children")
    }
}
