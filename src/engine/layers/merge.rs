//! Merge: one partition's bucket (sorted runs of child records) into one
//! sorted, unique part of the next layer. A partition is merged by whoever
//! holds its bucket; a part finished before an interruption is kept.

use super::LayersError;
use super::store::{PartId, PartReader, merge_bucket, write_part};
use super::workdir::WorkDir;
use crate::framed::FrameError;

/// Merges bucket `id.partition` of layer `id.layer` (`runs` runs) into its
/// part, at most `fan_in` runs at once, and removes the bucket; returns the
/// records of the part. A part already complete and intact is kept.
pub fn merge_partition(work: &WorkDir, id: &PartId, runs: u64, fan_in: usize) -> Result<u64, LayersError> {
    let out = work.part(id.layer, id.partition);
    let bucket = work.bucket(id.layer, id.partition);
    if out.exists()
        && let Ok(n) = count_part(&out, id)
    {
        let _ = std::fs::remove_file(&bucket);
        return Ok(n);
    }
    let mut failure: Option<FrameError> = None;
    let n = write_part(&out, id, |emit| {
        if let Err(e) = merge_bucket(&bucket, runs, fan_in, emit) {
            failure = Some(e);
            return Err(std::io::Error::other("merge failed"));
        }
        Ok(())
    });
    if let Some(e) = failure {
        return Err(e.into());
    }
    let n = n?;
    // the part is durable (written atomically): its bucket is no longer needed
    let _ = std::fs::remove_file(&bucket);
    Ok(n)
}

/// Reads a whole part to count its records (checking every checksum).
pub fn count_part(path: &std::path::Path, id: &PartId) -> Result<u64, FrameError> {
    let mut r = PartReader::open(path, id)?;
    while r.next_record()?.is_some() {}
    Ok(r.count())
}
