//! An expansion's progress: the unit of resume inside an expansion. An
//! expansion (of a whole layer, or of the parent of one slice of a last
//! layer) runs in rounds, each a group of whole parent parts; after each
//! round the buckets are synced and `expand.progress` in the bucket
//! directory records the rounds done, what they found, and the state of
//! every bucket (`docs/layer-format.md`). A run stopped or killed in the
//! middle of an expansion resumes after its last recorded round: each
//! bucket cut back to its recorded length, the rounds done not expanded
//! again. A progress file that names another expansion (an earlier slice)
//! is ignored and the expansion starts afresh.

use std::path::{Path, PathBuf};

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use super::expansion::Expansion;
use super::store::BucketState;
use crate::formats::framed::{FileKind, FrameError, read_head_file, write_head_file};

/// The file's name in a bucket directory (the work directory owns the names).
pub use super::workdir::PROGRESS_FILE as FILE_NAME;

pub const PROGRESS_KIND: FileKind =
    FileKind { magic: crate::formats::framed::MAGIC_PROGRESS, version: 1, name: "expansion progress file" };

/// Which expansion a progress file belongs to: it resumes only the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpansionId {
    /// The parent layer.
    pub layer: u32,
    /// The slice whose children are kept (1-based), 0 for a whole layer.
    pub slice: u32,
    /// Slices of the layer (1 for a whole layer).
    pub slices: u32,
    /// Rounds of the expansion.
    pub rounds: u32,
    /// The parent parts expanded, in order: (partition, records).
    pub inputs: Vec<(u32, u64)>,
}

impl ExpansionId {
    /// Whether `other` expands the same parts for the same slice (its
    /// rounds may differ: a resume with another memory limit keeps the
    /// rounds recorded).
    pub fn same_expansion(&self, other: &ExpansionId) -> bool {
        (self.layer, self.slice, self.slices, &self.inputs) == (other.layer, other.slice, other.slices, &other.inputs)
    }
}

/// How far an expansion got.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpandProgress {
    pub id: ExpansionId,
    /// Rounds whose children are all in the buckets, durably.
    pub done: u32,
    /// What those rounds found.
    pub found: Expansion,
    /// The state of each partition's bucket (`None`: not held here).
    pub buckets: Vec<Option<BucketState>>,
}

impl ExpandProgress {
    /// An expansion `id` before its first round.
    pub fn fresh(id: ExpansionId) -> ExpandProgress {
        ExpandProgress { id, done: 0, found: Expansion::default(), buckets: Vec::new() }
    }
}

impl Encode for ExpandProgress {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        let id = &self.id;
        (id.layer, id.slice, id.slices, id.rounds).encode(e)?;
        id.inputs.encode(e)?;
        self.done.encode(e)?;
        self.found.encode(e)?;
        self.buckets.encode(e)
    }
}

impl<C> Decode<C> for ExpandProgress {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let (layer, slice, slices, rounds) = <(u32, u32, u32, u32)>::decode(d)?;
        Ok(ExpandProgress {
            id: ExpansionId { layer, slice, slices, rounds, inputs: Vec::decode(d)? },
            done: u32::decode(d)?,
            found: Expansion::decode(d)?,
            buckets: Vec::decode(d)?,
        })
    }
}
bincode::impl_borrow_decode!(ExpandProgress);

/// The progress file of the bucket directory `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// Writes `p` atomically (temporary file, fsync, rename, fsync of the
/// directory).
pub fn write(path: &Path, p: &ExpandProgress) -> Result<(), FrameError> {
    write_head_file(path, &PROGRESS_KIND, p)
}

/// Reads and checks a progress file; `None` when there is none.
pub fn read(path: &Path) -> Result<Option<ExpandProgress>, FrameError> {
    if !path.exists() {
        return Ok(None);
    }
    let p: ExpandProgress = read_head_file(path, PROGRESS_KIND, 1 << 28)?;
    if p.done > p.id.rounds {
        return Err(FrameError::Corrupt {
            path: path.to_path_buf(),
            kind: PROGRESS_KIND.name,
            detail: format!("{} rounds done of {}", p.done, p.id.rounds),
        });
    }
    Ok(Some(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_file_reads_back_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        assert!(read(&path).unwrap().is_none());
        let mut found = Expansion::default();
        found.counts.classes = 17;
        found.entering.games = 1 << 70;
        let p = ExpandProgress {
            id: ExpansionId { layer: 9, slice: 2, slices: 3, rounds: 5, inputs: vec![(0, 10), (1, 0), (7, 99)] },
            done: 3,
            found,
            buckets: vec![
                None,
                Some(BucketState { offsets: vec![16, 40], base: 16, appended: 50, compactions: 1, len: 66 }),
            ],
        };
        write(&path, &p).unwrap();
        assert_eq!(read(&path).unwrap(), Some(p));
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("expand.progress") && !e.contains('\n'), "{e}");
    }
}
