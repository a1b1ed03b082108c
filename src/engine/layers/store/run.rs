//! A run: records in increasing key order, encoded as a part's body is
//! (what an expansion hands over, a bucket stores and ranks send), and
//! the stream that decodes one from a file.

use crate::formats::framed::{FrameError, FramedReader, PayloadReader, get_varint, put_varint_pair};

use super::Record;

/// A run of records in the encoding of a layer part's body
/// (`docs/layer-format.md`: LEB128 key differences and multiplicities),
/// keys increasing: what an expansion hands to its
/// [`ShuffleSink`](crate::engine::layers::ShuffleSink), what a bucket
/// stores and what ranks send one another, encoded once.
#[derive(Debug, Clone, Copy)]
pub struct EncodedRun<'a> {
    records: u64,
    body: &'a [u8],
}

/// What is wrong with a run from outside ([`EncodedRun::parse`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunDefect {
    #[error("a bad record")]
    BadRecord,
    #[error("a run whose keys repeat")]
    RepeatedKey,
    #[error("a key overflow")]
    KeyOverflow,
    #[error("a run of {found} records that says {said}")]
    WrongCount { found: u64, said: u64 },
}

impl<'a> EncodedRun<'a> {
    /// Records in the run.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The encoded records.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Whether the run holds no record.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Checks bytes from outside (another rank) said to hold `records`
    /// records: every number fits in 128 bits, keys increase, and the
    /// count is right. Says what is wrong otherwise.
    pub fn parse(body: &'a [u8], records: u64) -> Result<EncodedRun<'a>, RunDefect> {
        let mut n = 0u64;
        let (mut pos, mut key) = (0usize, 0u128);
        while pos < body.len() {
            let delta = get_varint(body, &mut pos).ok_or(RunDefect::BadRecord)?;
            get_varint(body, &mut pos).ok_or(RunDefect::BadRecord)?;
            if delta == 0 && n > 0 {
                return Err(RunDefect::RepeatedKey);
            }
            key = key.checked_add(delta).ok_or(RunDefect::KeyOverflow)?;
            n += 1;
        }
        if n != records {
            return Err(RunDefect::WrongCount { found: n, said: records });
        }
        Ok(EncodedRun { records, body })
    }

    /// The records, decoded (a run made by [`RunEncoder`] or checked by
    /// [`EncodedRun::parse`]).
    pub fn to_records(&self) -> Vec<Record> {
        let mut out = Vec::with_capacity(self.records as usize);
        let (mut pos, mut key) = (0usize, 0u128);
        while pos < self.body.len() {
            key += get_varint(self.body, &mut pos).expect("an encoded run");
            out.push((key, get_varint(self.body, &mut pos).expect("an encoded run")));
        }
        out
    }
}

/// Encodes records handed over in increasing key order into an
/// [`EncodedRun`], in a buffer kept from one run to the next.
#[derive(Debug, Default)]
pub struct RunEncoder {
    body: Vec<u8>,
    records: u64,
    prev: u128,
}

impl RunEncoder {
    /// The encoding of sorted, unique `records`.
    pub fn of(records: &[Record]) -> RunEncoder {
        let mut e = RunEncoder::default();
        for &(k, m) in records {
            e.push(k, m);
        }
        e
    }

    /// Appends a record; its key must exceed the last one's.
    #[inline(always)]
    pub fn push(&mut self, key: u128, m: u128) {
        debug_assert!(self.records == 0 || key > self.prev, "records out of order");
        put_varint_pair(&mut self.body, key - self.prev, m);
        self.prev = key;
        self.records += 1;
    }

    /// The run so far.
    pub fn run(&self) -> EncodedRun<'_> {
        EncodedRun { records: self.records, body: &self.body }
    }

    /// Empties the encoder for the next run, keeping its buffer.
    pub fn clear(&mut self) {
        self.body.clear();
        self.records = 0;
        self.prev = 0;
    }
}

/// Decodes the records of one payload (a part's DATA or a bucket's run).
pub(super) struct RecordStream {
    pr: Option<PayloadReader>,
    /// The file reader, once the payload is read and its checksum checked.
    pub(super) rest: Option<FramedReader>,
    prev: u128,
    first: bool,
    pub(super) count: u64,
}

impl RecordStream {
    pub(super) fn new(pr: PayloadReader) -> Self {
        RecordStream { pr: Some(pr), rest: None, prev: 0, first: true, count: 0 }
    }

    /// The next record; `None` once the payload is read to its end and its
    /// checksum holds. Inlined where records are merged: a record whose
    /// numbers are in the buffer costs a few instructions, and only the
    /// rest (refills, the end, errors) a call.
    #[inline(always)]
    pub(super) fn next(&mut self) -> Result<Option<Record>, FrameError> {
        if let Some(pr) = self.pr.as_mut()
            && !self.first
            && let Some((delta, m, used)) = pr.peek_varint_pair()
            && delta != 0
            && let Some(key) = self.prev.checked_add(delta as u128)
        {
            pr.skip_buffered(used);
            self.prev = key;
            self.count += 1;
            return Ok(Some((key, m as u128)));
        }
        self.next_slow()
    }

    /// [`RecordStream::next`], every case.
    #[inline(never)]
    fn next_slow(&mut self) -> Result<Option<Record>, FrameError> {
        let Some(pr) = self.pr.as_mut() else { return Ok(None) };
        if pr.done() {
            self.rest = Some(self.pr.take().expect("present").finish()?);
            return Ok(None);
        }
        let delta = pr.varint()?;
        let m = pr.varint()?;
        if !self.first && delta == 0 {
            return Err(pr.corrupt("keys are not strictly increasing"));
        }
        self.first = false;
        self.prev = self.prev.checked_add(delta).ok_or_else(|| pr.corrupt("key overflow"))?;
        self.count += 1;
        Ok(Some((self.prev, m)))
    }
}
