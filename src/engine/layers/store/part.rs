//! A part: one hash partition of a layer, a sorted file of unique
//! records, written atomically and read back in order.

use std::io;
use std::path::Path;

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use super::run::RecordStream;
use super::{PART_KIND, Record, TAG_DATA, TAG_HEAD, io_err};
use crate::formats::atomic::atomic_write_with;
use crate::formats::framed::{
    FrameError, FramedReader, encode, put_varint_pair, write_end, write_preamble, write_section,
    write_section_streaming,
};

/// Which part a layer file is: its HEAD section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartId {
    /// Board side.
    pub size: u32,
    /// 0 by discs, 1 by ply.
    pub by: u8,
    /// The layer.
    pub layer: u32,
    /// This partition.
    pub partition: u32,
    /// Partitions of the layer.
    pub partitions: u32,
}

impl Encode for PartId {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(e, self.size, self.by, self.layer, self.partition, self.partitions)
    }
}

impl<C> Decode<C> for PartId {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(PartId {
            size: u32::decode(d)?,
            by: u8::decode(d)?,
            layer: u32::decode(d)?,
            partition: u32::decode(d)?,
            partitions: u32::decode(d)?,
        })
    }
}

/// Writes one part of a layer atomically from sorted, unique records that
/// `fill` hands to its argument; returns the number of records.
pub fn write_part(
    path: &Path,
    id: &PartId,
    fill: impl FnOnce(&mut dyn FnMut(Record) -> io::Result<()>) -> io::Result<()>,
) -> Result<u64, FrameError> {
    let head = encode(id);
    let mut count = 0u64;
    atomic_write_with(path, |w| {
        write_preamble(w, &PART_KIND)?;
        write_section(w, TAG_HEAD, head.len() as u64, |h| h.put(&head))?;
        write_section_streaming(w, TAG_DATA, |h| {
            let mut buf = Vec::with_capacity(1 << 16);
            let mut prev: Option<u128> = None;
            fill(&mut |(k, m)| {
                if prev.is_some_and(|p| k <= p) {
                    return Err(io::Error::other("records out of order"));
                }
                put_varint_pair(&mut buf, k - prev.unwrap_or(0), m);
                prev = Some(k);
                count += 1;
                if buf.len() >= 1 << 16 {
                    h.put(&buf)?;
                    buf.clear();
                }
                Ok(())
            })?;
            h.put(&buf)
        })?;
        write_end(w)
    })
    .map_err(|e| io_err(path, e))?;
    Ok(count)
}

/// Reads the records of a part in order.
pub struct PartReader {
    records: RecordStream,
}

impl PartReader {
    /// Opens a part and checks that it is the one expected.
    pub fn open(path: &Path, id: &PartId) -> Result<Self, FrameError> {
        let mut r = FramedReader::open(path, PART_KIND)?;
        let head: PartId = r.decode(TAG_HEAD, 1 << 12)?;
        if head != *id {
            return Err(r.corrupt(format!(
                "it is part {} of layer {}, not part {} of layer {} of this run",
                head.partition, head.layer, id.partition, id.layer
            )));
        }
        let len = r.expect_section(TAG_DATA)?;
        Ok(PartReader { records: RecordStream::new(r.into_payload(TAG_DATA, len)) })
    }

    /// The next record, or `None` at the end (after checking the checksum
    /// and the END. section).
    pub fn next_record(&mut self) -> Result<Option<Record>, FrameError> {
        let next = self.records.next()?;
        if next.is_none()
            && let Some(mut rest) = self.records.rest.take()
        {
            rest.end()?;
        }
        Ok(next)
    }

    /// Records read so far.
    pub fn count(&self) -> u64 {
        self.records.count
    }
}
