//! Merge: one partition's bucket (sorted runs of child records) into one
//! sorted, unique part of the next layer. A partition is merged by whoever
//! holds its bucket; a part finished before an interruption is kept.

use super::LayersError;
use super::expand::Counter;
use super::expansion::Expansion;
use super::store::{PartId, PartReader, Record, merge_bucket, write_part};
use super::workdir::WorkDir;
use crate::census::LayerBy;
use crate::formats::framed::FrameError;
use crate::key::Keyed;

/// Merges bucket `id.partition` of layer `id.layer` (`runs` runs) into its
/// part, at most `fan_in` runs at once, and removes the bucket; returns the
/// records of the part. A part already complete and intact is kept.
/// `verify`: the bucket's checksums are checked before its records are
/// used ([`merge_bucket`]).
pub fn merge_partition(
    work: &WorkDir,
    id: &PartId,
    runs: u64,
    fan_in: usize,
    verify: bool,
) -> Result<u64, LayersError> {
    merge_partition_seen(work, id, runs, fan_in, verify, &mut |_| Ok(()))
}

/// [`merge_partition`], also counting the part's classes as they pass
/// (the last layer of a run, counted while it is written instead of read
/// again): its records and what they count to.
pub fn merge_and_count<G: Keyed>(
    work: &WorkDir,
    by: LayerBy,
    id: &PartId,
    runs: u64,
    fan_in: usize,
    verify: bool,
) -> Result<(u64, Expansion), LayersError> {
    let mut counter = Counter::<G>::new(by, work.part(id.layer, id.partition));
    let n = merge_partition_seen(work, id, runs, fan_in, verify, &mut |r| counter.push(r))?;
    Ok((n, counter.finish()?))
}

/// [`merge_partition`], handing every record of the part to `seen` in key
/// order (those of a part kept from before, read again).
fn merge_partition_seen(
    work: &WorkDir,
    id: &PartId,
    runs: u64,
    fan_in: usize,
    verify: bool,
    seen: &mut dyn FnMut(Record) -> Result<(), LayersError>,
) -> Result<u64, LayersError> {
    let out = work.part(id.layer, id.partition);
    let bucket = work.bucket(id.layer, id.partition);
    if out.exists() {
        match count_part(&out, id) {
            Ok(_) => {
                let mut r = PartReader::open(&out, id)?;
                while let Some(rec) = r.next_record()? {
                    seen(rec)?;
                }
                let _ = std::fs::remove_file(&bucket);
                return Ok(r.count());
            }
            // a part is written atomically, and its bucket removed after:
            // with the bucket gone, the part was complete and is damaged
            // since (not a part still to merge, whose bucket is missing)
            Err(e) if !bucket.exists() => return Err(e.into()),
            // merged again from its bucket
            Err(_) => {}
        }
    }
    let mut failure: Option<LayersError> = None;
    let n = write_part(&out, id, |emit| {
        let merged = merge_bucket(&bucket, runs, fan_in, verify, &mut |r| {
            seen(r).map_err(|e| {
                failure = Some(e);
                std::io::Error::other("counting failed")
            })?;
            emit(r)
        });
        if let Err(e) = merged {
            failure.get_or_insert(e.into());
            return Err(std::io::Error::other("merge failed"));
        }
        Ok(())
    });
    if let Some(e) = failure {
        return Err(e);
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
