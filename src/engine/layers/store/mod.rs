//! Files of the layered engine (see `docs/layer-format.md`): layer parts,
//! buckets of sorted runs, and manifests. All are framed files
//! ([`crate::formats::framed`]) with their own magic and version.
//!
//! A *record* is a stored key and a multiplicity (the number of games
//! reaching the class, counted over the whole orbit). The stored key is the
//! canonical dense key made board-major ([`to_stored`]): twice the key of
//! the board with Black to move, plus 1 with White to move, so that the two
//! positions of one board are neighbours in a sorted part. Records in a part
//! or a run are sorted by stored key, keys unique, and encoded as the LEB128
//! difference to the previous key (the first from 0) and the LEB128
//! multiplicity. Every structured section is encoded field by field, in the
//! order that `docs/layer-format.md` gives.
//!
//! One file per concept: [`keys`] (stored keys and partitions), [`run`]
//! (a run's encoding and decoding), [`part`] (a layer's part files),
//! [`bucket`] (a partition's bucket of runs, and its compaction),
//! [`kway`] (the k-way merge of a bucket's runs), [`slicing`] (a last
//! layer counted in slices) and [`manifest`] (what a run has completed).
//! This file holds what they share: the record, the file kinds and
//! section tags.

use std::io;
use std::path::Path;

use crate::formats::framed::{FileKind, FrameError};

/// Encodes fields in order (explicit layouts for hand-written `Encode`s).
/// Defined before the submodules, which use it.
macro_rules! encode_fields {
    ($e:expr, $($v:expr),+) => {{ $($v.encode($e)?;)+ Ok(()) }};
}

pub mod bucket;
pub mod keys;
pub mod kway;
pub mod manifest;
pub mod part;
pub mod run;
pub mod slicing;
#[cfg(test)]
mod tests;

pub use bucket::{BucketState, BucketWriter, COMPACT_MIN_BYTES, Compaction, MIN_COMPACT_RATIO};
pub use keys::{from_stored, partition_of, to_stored};
pub use kway::{MAX_FAN_IN, merge_bucket, verify_bucket};
pub use manifest::{Manifest, Phase, RunConfig, RunSettings, read_manifest, write_manifest};
pub use part::{PartId, PartReader, write_part};
pub use run::{EncodedRun, RunDefect, RunEncoder};
pub use slicing::Slicing;

/// A stored key (see [`to_stored`]) and its multiplicity.
pub type Record = (u128, u128);

pub const PART_KIND: FileKind = FileKind { magic: crate::formats::framed::MAGIC_PART, version: 2, name: "layer file" };
pub const BUCKET_KIND: FileKind =
    FileKind { magic: crate::formats::framed::MAGIC_BUCKET, version: 2, name: "bucket file" };
pub const MANIFEST_KIND: FileKind =
    FileKind { magic: crate::formats::framed::MAGIC_MANIFEST, version: 8, name: "layer manifest" };

const TAG_HEAD: [u8; 4] = *b"HEAD";
const TAG_DATA: [u8; 4] = *b"DATA";
const TAG_RUN: [u8; 4] = *b"RUN ";

/// An I/O error at `path`, as a file error.
fn io_err(path: &Path, e: io::Error) -> FrameError {
    FrameError::Io { path: path.to_path_buf(), error: e }
}
