//! Expand: parent parts in, the parent layer's counts and child records
//! out. Any process that holds the input parts can expand them; the
//! children go to a [`ShuffleSink`](super::ShuffleSink).
//!
//! A reader thread streams the records of the parts to the workers in
//! chunks that never split the two positions of one board (they are
//! neighbours in a part, see [`super::store::to_stored`]), so a worker sees
//! both and counts the board once. Each worker classifies its classes and
//! generates children into a buffer bounded by the memory limit; a full
//! buffer is split by partition, sorted, its duplicates summed, and sent.
//!
//! One file per concept: [`job`] (the reader and the workers of one
//! expansion, and the last spill they make together), [`worker`] (a
//! worker's state, its buffering and spilling), [`classify`] (how a
//! worker classifies a parent and makes its children), [`buffers`] (the
//! child buffers and the pool that keeps them), [`counter`] (a last layer
//! counted without children). This file holds what they share: a part
//! handed to an expansion and how its records are cut into chunks.

use std::path::PathBuf;

use super::store::{PartId, Record};

pub mod buffers;
pub mod classify;
pub mod counter;
pub mod job;
#[cfg(test)]
mod tests;
pub mod worker;

pub use buffers::{BUFFER_SHARE, BufferPool, buffer_bytes_per_record, spill_capacity};
pub use counter::Counter;
pub use job::expand;

/// One parent part to expand.
#[derive(Clone, Debug)]
pub struct PartInput {
    /// The file.
    pub path: PathBuf,
    /// What it must be.
    pub id: PartId,
    /// Records the manifest promises.
    pub records: u64,
}

/// Records per chunk handed to a worker (one more when a board's second
/// position follows).
const CHUNK: usize = 1 << 14;

/// Whether a chunk is cut before record `r`: when it is full, unless `r`
/// is the second position of the board of the chunk's last record (a
/// worker must see both positions of a board to count the board once).
#[inline]
fn cut_before(chunk: &[Record], r: &Record) -> bool {
    let pair = chunk.last().is_some_and(|&(s, _)| s & 1 == 0 && r.0 == s + 1);
    chunk.len() >= CHUNK && !pair
}
