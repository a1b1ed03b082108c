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

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use super::expansion::{Entering, Expansion};
use super::workdir::Keep;
use crate::census::LayerCounts;
use crate::formats::atomic::{atomic_write_with, start_writeback};
use crate::formats::framed::{
    FileKind, FrameError, FramedReader, PayloadReader, encode, get_varint, put_varint_pair, read_head_file, write_end,
    write_head_file, write_preamble, write_section, write_section_streaming,
};

/// A stored key (see [`to_stored`]) and its multiplicity.
pub type Record = (u128, u128);

pub const PART_KIND: FileKind = FileKind { magic: crate::formats::framed::MAGIC_PART, version: 2, name: "layer file" };
pub const BUCKET_KIND: FileKind =
    FileKind { magic: crate::formats::framed::MAGIC_BUCKET, version: 2, name: "bucket file" };
pub const MANIFEST_KIND: FileKind =
    FileKind { magic: crate::formats::framed::MAGIC_MANIFEST, version: 8, name: "layer manifest" };
/// Version 7 of the manifest: no `out`; read without one.
const MANIFEST_KIND_7: FileKind = FileKind { version: 7, ..MANIFEST_KIND };
/// Version 6 of the manifest: no [`RunSettings`]; read with the defaults.
const MANIFEST_KIND_6: FileKind = FileKind { version: 6, ..MANIFEST_KIND };

/// The stored form of canonical dense key `k` on a board whose side weight
/// (the value of the side-to-move digit) is `w`: `2 * board + side`.
#[inline(always)]
pub fn to_stored(k: u128, w: u128) -> u128 {
    if k >= w { ((k - w) << 1) | 1 } else { k << 1 }
}

/// The canonical dense key of stored key `s` (inverse of [`to_stored`]).
#[inline(always)]
pub fn from_stored(s: u128, w: u128) -> u128 {
    (s >> 1) + if s & 1 == 1 { w } else { 0 }
}

/// The partition of a class: a hash of its canonical occupancy (the least
/// image of its occupied squares, [`crate::key::occupancy`]), so that both
/// positions of a board, and every class of one shape, land in the same
/// partition: a partition's shapes are counted within it.
#[inline(always)]
pub fn partition_of(canonical_occupancy: u64, partitions: u32) -> u32 {
    let h = xxhash_rust::xxh3::xxh3_64(&canonical_occupancy.to_le_bytes());
    // the same remainder, without a division where the count is a power of two
    (if partitions.is_power_of_two() { h & (partitions as u64 - 1) } else { h % partitions as u64 }) as u32
}

/// Encodes fields in order (explicit layouts for hand-written `Encode`s).
macro_rules! encode_fields {
    ($e:expr, $($v:expr),+) => {{ $($v.encode($e)?;)+ Ok(()) }};
}

const TAG_HEAD: [u8; 4] = *b"HEAD";
const TAG_DATA: [u8; 4] = *b"DATA";
const TAG_RUN: [u8; 4] = *b"RUN ";
/// Most runs merged at once; a bucket with more is merged in several
/// passes. The driver lowers it when the open-file limit is tight.
pub const MAX_FAN_IN: usize = 96;

/// Identity of a layered run, repeated in every manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// Board side.
    pub size: u32,
    /// 0: layers by disc count; 1: layers by ply.
    pub by: u8,
    /// Last layer: a disc count (by discs) or a ply (by ply).
    pub limit: u32,
    /// Hash partitions per layer.
    pub partitions: u32,
    /// The command line that started the run.
    pub command: String,
    /// When the run first started (Unix seconds).
    pub started_unix: u64,
    /// Memory limit the run was started with, bytes.
    pub memory_limit: u64,
    /// Whether the last layer is stored: false when the run was started
    /// with `--no-store-last` (a resume keeps it so, whatever its flags).
    pub store_last: bool,
}

impl Encode for RunConfig {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(
            e,
            self.size,
            self.by,
            self.limit,
            self.partitions,
            self.command,
            self.started_unix,
            self.memory_limit,
            self.store_last
        )
    }
}

impl<C> Decode<C> for RunConfig {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(RunConfig {
            size: u32::decode(d)?,
            by: u8::decode(d)?,
            limit: u32::decode(d)?,
            partitions: u32::decode(d)?,
            command: String::decode(d)?,
            started_unix: u64::decode(d)?,
            memory_limit: u64::decode(d)?,
            store_last: bool::decode(d)?,
        })
    }
}
bincode::impl_borrow_decode!(RunConfig);

impl RunConfig {
    /// The identity of part `partition` of `layer` of this run.
    pub fn part(&self, layer: u32, partition: u32) -> PartId {
        PartId { size: self.size, by: self.by, layer, partition, partitions: self.partitions }
    }
}

/// What a manifest says is complete (encoded as a u8: the codes below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// 0: the parts of `layer` are complete.
    Complete,
    /// 1: `layer` has been expanded and the buckets of `layer + 1` are
    /// complete.
    Expanded,
    /// 2: the run is finished, its last layer `layer` counted while merged
    /// and never stored.
    Counted,
    /// 3: the parts of `layer` are complete and its counts final; some
    /// slices of `layer + 1`, the last layer, are counted ([`Slicing`]).
    Slicing,
}

impl Phase {
    /// The code a manifest holds.
    pub fn code(self) -> u8 {
        match self {
            Phase::Complete => 0,
            Phase::Expanded => 1,
            Phase::Counted => 2,
            Phase::Slicing => 3,
        }
    }

    /// The phase of a code.
    pub fn from_code(code: u8) -> Option<Phase> {
        [Phase::Complete, Phase::Expanded, Phase::Counted, Phase::Slicing].get(code as usize).copied()
    }

    /// Its name in `inspect --json`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Complete => "complete",
            Phase::Expanded => "expanded",
            Phase::Counted => "counted",
            Phase::Slicing => "slicing",
        }
    }
}

impl Encode for Phase {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.code().encode(e)
    }
}

impl<C> Decode<C> for Phase {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let code = u8::decode(d)?;
        Phase::from_code(code).ok_or_else(|| DecodeError::OtherString(format!("an unknown phase ({code})")))
    }
}
bincode::impl_borrow_decode!(Phase);

/// A last layer counted in slices of its partitions: slice `i` of `K`
/// holds the partitions `j` with `j * K / P == i`. Each slice expands the
/// whole parent layer, keeps the children of its own partitions, merges
/// and counts them, and is committed before the next begins.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Slicing {
    /// Slices of the layer (0 when the run is not slicing).
    pub slices: u32,
    /// Slices counted so far.
    pub done: u32,
    /// The sum of their counts.
    pub counted: Expansion,
}

impl Slicing {
    /// The slice that partition `j` of `partitions` belongs to.
    pub fn slice_of(j: u32, slices: u32, partitions: u32) -> u32 {
        (j as u64 * slices as u64 / partitions.max(1) as u64) as u32
    }
}

impl Encode for Slicing {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(e, self.slices, self.done, self.counted)
    }
}

impl<C> Decode<C> for Slicing {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(Slicing { slices: u32::decode(d)?, done: u32::decode(d)?, counted: Expansion::decode(d)? })
    }
}
bincode::impl_borrow_decode!(Slicing);

/// The settings a run was given that shape its disk, kept so that a
/// `resume` without them runs as the run was started (manifest version 7;
/// a resume that gives one replaces it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSettings {
    /// `--slices`: slices of a last layer not stored (`None`: as the disk
    /// allows).
    pub slices: Option<u32>,
    /// `--compact-buckets`: buckets always compacted.
    pub compact_always: bool,
    /// `--disk`: bytes the work directory may hold (`None`: the free
    /// space).
    pub disk_limit: Option<u64>,
}

impl Encode for RunSettings {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(e, self.slices, self.compact_always, self.disk_limit)
    }
}

impl<C> Decode<C> for RunSettings {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(RunSettings {
            slices: Option::<u32>::decode(d)?,
            compact_always: bool::decode(d)?,
            disk_limit: Option::<u64>::decode(d)?,
        })
    }
}

/// What a manifest says is complete.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// `othello-census <version>` of the last writer.
    pub software: String,
    /// The run.
    pub run: RunConfig,
    /// What is complete.
    pub phase: Phase,
    /// The layer.
    pub layer: u32,
    /// Phase 0: records of each part of `layer`.
    pub part_records: Vec<u64>,
    /// Final counts of every layer before `layer` (phase 0), up to and
    /// including it (phase 1), or of every layer (phase 2).
    pub stats: Vec<LayerCounts>,
    /// Game counts entering the next unfinished layer (`layer` in phase 0,
    /// `layer + 1` in phase 1).
    pub entering: Entering,
    /// Wall time of the run so far, seconds.
    pub elapsed_seconds: f64,
    /// The slices of a last layer counted in slices (phase 3).
    pub slicing: Slicing,
    /// The disk settings the run was last given.
    pub settings: RunSettings,
    /// The directory of its result files, absolute: the `--out` the run
    /// was last given, where `resume DIR` writes unless given another
    /// (version 8; none in older manifests).
    pub out: Option<String>,
}

impl Manifest {
    /// What no longer belongs to the run, for a sweep to remove: in phase 0
    /// (and 3) everything but the parts of `layer` and the buckets of an
    /// expansion of it under way (its progress file says how far it got);
    /// in phase 1 everything but the buckets and merged parts of
    /// `layer + 1`; in phase 2 (the last layer counted unstored) every
    /// layer and bucket.
    pub fn keep(&self) -> Keep {
        let (layer, buckets) = match self.phase {
            Phase::Complete | Phase::Slicing => (Some(self.layer), Some(self.layer + 1)),
            Phase::Expanded => (Some(self.layer + 1), Some(self.layer + 1)),
            Phase::Counted => (None, None),
        };
        Keep { layer, buckets }
    }
}

impl Encode for Manifest {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        encode_fields!(
            e,
            self.software,
            self.run,
            self.phase,
            self.layer,
            self.part_records,
            self.stats,
            self.entering.games,
            self.entering.passes,
            self.elapsed_seconds,
            self.slicing,
            self.settings,
            self.out
        )
    }
}

impl<C> Decode<C> for Manifest {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let ManifestV7(mut m) = ManifestV7::decode(d)?;
        m.out = Option::<String>::decode(d)?;
        Ok(m)
    }
}
bincode::impl_borrow_decode!(Manifest);

/// A manifest of version 7: the fields of version 8 but `out` (none).
struct ManifestV7(Manifest);

impl<C> Decode<C> for ManifestV7 {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let ManifestV6(mut m) = ManifestV6::decode(d)?;
        m.settings = RunSettings::decode(d)?;
        Ok(ManifestV7(m))
    }
}
bincode::impl_borrow_decode!(ManifestV7);

/// A manifest of version 6: the fields of version 7 but its settings,
/// which take their defaults (and no `out`).
struct ManifestV6(Manifest);

impl<C> Decode<C> for ManifestV6 {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(ManifestV6(Manifest {
            software: String::decode(d)?,
            run: RunConfig::decode(d)?,
            phase: Phase::decode(d)?,
            layer: u32::decode(d)?,
            part_records: Vec::decode(d)?,
            stats: Vec::decode(d)?,
            entering: Entering { games: u128::decode(d)?, passes: u128::decode(d)? },
            elapsed_seconds: f64::decode(d)?,
            slicing: Slicing::decode(d)?,
            settings: RunSettings::default(),
            out: None,
        }))
    }
}
bincode::impl_borrow_decode!(ManifestV6);

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
bincode::impl_borrow_decode!(PartId);

fn io_err(path: &Path, e: io::Error) -> FrameError {
    FrameError::Io { path: path.to_path_buf(), error: e }
}

/// Writes a manifest atomically.
pub fn write_manifest(path: &Path, m: &Manifest) -> Result<(), FrameError> {
    write_head_file(path, &MANIFEST_KIND, m)
}

/// Reads and checks a manifest (of versions 6 and 7 too: the settings of
/// version 6 default, neither has an `out`; the next commit writes version
/// 8).
pub fn read_manifest(path: &Path) -> Result<Manifest, FrameError> {
    match read_head_file(path, MANIFEST_KIND, 1 << 24) {
        Err(FrameError::Version { found: 7, .. }) => {
            read_head_file::<ManifestV7>(path, MANIFEST_KIND_7, 1 << 24).map(|ManifestV7(m)| m)
        }
        Err(FrameError::Version { found: 6, .. }) => {
            read_head_file::<ManifestV6>(path, MANIFEST_KIND_6, 1 << 24).map(|ManifestV6(m)| m)
        }
        read => read,
    }
}

/// A run of records in the encoding of a layer part's body
/// (`docs/layer-format.md`: LEB128 key differences and multiplicities),
/// keys increasing: what an expansion hands to its [`super::ShuffleSink`],
/// what a bucket stores and what ranks send one another, encoded once.
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

/// Decodes the records of one payload (a part's DATA or a bucket's run).
struct RecordStream {
    pr: Option<PayloadReader>,
    /// The file reader, once the payload is read and its checksum checked.
    rest: Option<FramedReader>,
    prev: u128,
    first: bool,
    count: u64,
}

impl RecordStream {
    fn new(pr: PayloadReader) -> Self {
        RecordStream { pr: Some(pr), rest: None, prev: 0, first: true, count: 0 }
    }

    /// The next record; `None` once the payload is read to its end and its
    /// checksum holds. Inlined where records are merged: a record whose
    /// numbers are in the buffer costs a few instructions, and only the
    /// rest (refills, the end, errors) a call.
    #[inline(always)]
    fn next(&mut self) -> Result<Option<Record>, FrameError> {
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

/// Opens the run of a bucket file that starts at `offset`.
fn open_run(path: &Path, offset: u64) -> Result<RecordStream, FrameError> {
    let mut r = FramedReader::open(path, BUCKET_KIND)?;
    r.seek_to(offset)?;
    let len = r.expect_section(TAG_RUN)?;
    Ok(RecordStream::new(r.into_payload(TAG_RUN, len)))
}

/// Offsets of the runs of a complete bucket file (checked for END.);
/// `verify`: every run's checksum checked too, before any of its records
/// is used (a merge reads several runs at once and would otherwise count
/// the records of a damaged run before reaching its checksum).
fn run_offsets(path: &Path, expected_runs: u64, verify: bool) -> Result<Vec<u64>, FrameError> {
    let mut r = FramedReader::open(path, BUCKET_KIND)?;
    let mut offsets = Vec::new();
    loop {
        let at = r.position()?;
        let (tag, len) = r.next_section()?;
        if tag == TAG_RUN {
            offsets.push(at);
            if verify {
                r.stream(TAG_RUN, len, |_| Ok(()))?;
            } else {
                r.skip(len)?;
            }
        } else if tag == crate::formats::framed::TAG_END {
            r.seek_to(at)?;
            r.end()?;
            break;
        } else {
            return Err(r.corrupt(format!("unexpected section {:?}", String::from_utf8_lossy(&tag))));
        }
    }
    if offsets.len() as u64 != expected_runs {
        return Err(r.corrupt(format!("{} runs, the manifest promises {expected_runs}", offsets.len())));
    }
    Ok(offsets)
}

/// Merges the given runs of `path`, summing multiplicities of equal keys,
/// handing each merged record to `emit` in key order.
fn merge_runs(path: &Path, offsets: &[u64], emit: &mut dyn FnMut(Record) -> io::Result<()>) -> Result<(), FrameError> {
    let mut cursors = Vec::with_capacity(offsets.len());
    let mut heads = Vec::with_capacity(offsets.len());
    for &o in offsets {
        let mut c = open_run(path, o)?;
        heads.push(c.next()?);
        cursors.push(c);
    }
    let mut tree = LoserTree::new(&heads);
    let mut current: Option<Record> = None;
    while let Some((i, (k, m))) = tree.winner() {
        match &mut current {
            Some((ck, cm)) if *ck == k => *cm = crate::census::add_games(*cm, m),
            _ => {
                if let Some(r) = current.take() {
                    emit(r).map_err(|e| io_err(path, e))?;
                }
                current = Some((k, m));
            }
        }
        let next = cursors[i].next()?;
        if next.is_some_and(|(k, _)| k == ENDED) {
            return Err(FrameError::Corrupt {
                path: path.to_path_buf(),
                kind: BUCKET_KIND.name,
                detail: "a record's key has all 128 bits set".into(),
            });
        }
        tree.replace(i, next);
    }
    if let Some(r) = current {
        emit(r).map_err(|e| io_err(path, e))?;
    }
    Ok(())
}

/// A tournament (loser) tree over the heads of k sorted runs: the least
/// head in one look, the next after log2(k) comparisons along one path
/// (a binary heap makes about twice as many, on both children of a node).
struct LoserTree {
    /// Each leaf's head key; [`ENDED`] for a run that has ended, which
    /// loses to every record (no stored key comes near it).
    keys: Vec<u128>,
    /// Each leaf's head multiplicity.
    mults: Vec<u128>,
    /// `nodes[0]`: the leaf that won; `nodes[n]` for n >= 1: the leaf that
    /// lost at internal node n (children 2n and 2n + 1; leaf l is node
    /// `size + l`).
    nodes: Vec<usize>,
    size: usize,
}

/// The key of a run that has ended, in a [`LoserTree`].
const ENDED: u128 = u128::MAX;

impl LoserTree {
    fn new(heads: &[Option<Record>]) -> Self {
        let size = heads.len().next_power_of_two().max(2);
        let (mut keys, mut mults): (Vec<u128>, Vec<u128>) = heads.iter().map(|h| h.unwrap_or((ENDED, 0))).unzip();
        keys.resize(size, ENDED);
        mults.resize(size, 0);
        let mut t = LoserTree { keys, mults, nodes: vec![0; size], size };
        // winners of every subtree, bottom up
        let mut winners = vec![0usize; 2 * size];
        for l in 0..size {
            winners[size + l] = l;
        }
        for n in (1..size).rev() {
            let (a, b) = (winners[2 * n], winners[2 * n + 1]);
            let (win, lose) = if t.beats(b, a) { (b, a) } else { (a, b) };
            winners[n] = win;
            t.nodes[n] = lose;
        }
        t.nodes[0] = winners[1];
        t
    }

    /// Whether leaf `a`'s head comes before leaf `b`'s.
    #[inline(always)]
    fn beats(&self, a: usize, b: usize) -> bool {
        self.keys[a] < self.keys[b]
    }

    /// The leaf with the least head, and that head (`None`: every run ended).
    #[inline]
    fn winner(&self) -> Option<(usize, Record)> {
        let w = self.nodes[0];
        (self.keys[w] != ENDED).then(|| (w, (self.keys[w], self.mults[w])))
    }

    /// Gives leaf `l` (the last winner) its next head and replays its path.
    #[inline]
    fn replace(&mut self, l: usize, head: Option<Record>) {
        (self.keys[l], self.mults[l]) = head.unwrap_or((ENDED, 0));
        let mut win = l;
        let mut n = (self.size + l) / 2;
        while n >= 1 {
            // the loser stays at the node, the winner goes on up: selects,
            // not a branch (which run wins is not predictable)
            let other = self.nodes[n];
            let beaten = self.beats(other, win);
            self.nodes[n] = std::hint::select_unpredictable(beaten, win, other);
            win = std::hint::select_unpredictable(beaten, other, win);
            n /= 2;
        }
        self.nodes[0] = win;
    }
}

/// Writes one RUN section to `w` (the file `dest`) holding the merge of
/// the given runs of `source`, through [`merge_offsets`].
fn write_merged_run<W: Write + io::Seek>(
    w: &mut W,
    dest: &Path,
    source: &Path,
    offsets: &[u64],
    fan_in: usize,
) -> Result<(), FrameError> {
    let mut failure: Option<FrameError> = None;
    write_section_streaming(w, TAG_RUN, |h| {
        let mut buf = Vec::with_capacity(1 << 16);
        let mut prev = 0u128;
        if let Err(e) = merge_offsets(source, offsets, fan_in, &mut |(k, m)| {
            put_varint_pair(&mut buf, k - prev, m);
            prev = k;
            if buf.len() >= 1 << 16 {
                h.put(&buf)?;
                buf.clear();
            }
            Ok(())
        }) {
            failure = Some(e);
            return Err(io::Error::other("merge failed"));
        }
        h.put(&buf)
    })
    .map(|_| ())
    .map_err(|e| failure.take().unwrap_or_else(|| io_err(dest, e)))
}

/// Checks a complete bucket (`runs` runs): its frame, its runs and every
/// run's checksum.
pub fn verify_bucket(path: &Path, runs: u64) -> Result<(), FrameError> {
    run_offsets(path, runs, true).map(|_| ())
}

/// Merges a whole complete bucket (`runs` runs) into sorted unique
/// records; `verify`: every run's checksum checked first (unless the
/// bucket was checked just before, [`verify_bucket`]).
pub fn merge_bucket(
    path: &Path,
    runs: u64,
    fan_in: usize,
    verify: bool,
    emit: &mut dyn FnMut(Record) -> io::Result<()>,
) -> Result<(), FrameError> {
    let offsets = run_offsets(path, runs, verify)?;
    merge_offsets(path, &offsets, fan_in, emit)
}

/// Merges the runs of `path` at `offsets` into sorted unique records. More
/// than `fan_in` runs (at least 2) are first merged in groups into a
/// scratch bucket next to it, as often as needed; at most `fan_in + 2`
/// files are open at once.
fn merge_offsets(
    path: &Path,
    offsets: &[u64],
    fan_in: usize,
    emit: &mut dyn FnMut(Record) -> io::Result<()>,
) -> Result<(), FrameError> {
    let fan_in = fan_in.max(2);
    let mut source = path.to_path_buf();
    let mut offsets = offsets.to_vec();
    let mut pass = 0;
    let mut scratch: Vec<PathBuf> = Vec::new();
    let result = (|| {
        while offsets.len() > fan_in {
            pass += 1;
            let next = path.with_extension(format!("pass{pass}"));
            scratch.push(next.clone());
            let f = File::create(&next).map_err(|e| io_err(&next, e))?;
            let mut w = BufWriter::with_capacity(1 << 16, f);
            write_preamble(&mut w, &BUCKET_KIND).map_err(|e| io_err(&next, e))?;
            let mut n = 0u64;
            for group in offsets.chunks(fan_in) {
                write_merged_run(&mut w, &next, &source, group, fan_in)?;
                n += 1;
            }
            write_end(&mut w).map_err(|e| io_err(&next, e))?;
            w.flush().map_err(|e| io_err(&next, e))?;
            drop(w);
            source = next;
            // (written just now from checked runs)
            offsets = run_offsets(&source, n, false)?;
        }
        merge_runs(&source, &offsets, emit)
    })();
    for s in scratch {
        let _ = std::fs::remove_file(s);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run from another rank is refused with what is wrong with it.
    #[test]
    fn a_defective_run_says_what_is_wrong() {
        // (key difference, multiplicity) pairs, one byte each
        assert_eq!(EncodedRun::parse(&[5, 1, 2, 1], 2).map(|r| r.records()), Ok(2));
        assert_eq!(EncodedRun::parse(&[5, 1], 2).unwrap_err().to_string(), "a run of 1 records that says 2");
        assert_eq!(EncodedRun::parse(&[5, 1, 0, 1], 2).unwrap_err(), RunDefect::RepeatedKey);
        assert_eq!(EncodedRun::parse(&[5, 0x80], 1).unwrap_err(), RunDefect::BadRecord);
    }

    proptest::proptest! {
        /// The loser tree yields every head of every run in key order (ties
        /// in any order), for any number of runs, empty ones included.
        #[test]
        fn the_loser_tree_merges_sorted_runs(runs in proptest::collection::vec(
            proptest::collection::btree_set(0u128..400, 0..40), 0..13)) {
            let runs: Vec<Vec<u128>> = runs.into_iter().map(|r| r.into_iter().collect()).collect();
            let mut want: Vec<u128> = runs.iter().flatten().copied().collect();
            want.sort_unstable();
            let heads: Vec<Option<Record>> = runs.iter().map(|r| r.first().map(|&k| (k, 1))).collect();
            let mut at = vec![1usize; runs.len()];
            let mut got = Vec::new();
            if !runs.is_empty() {
                let mut tree = LoserTree::new(&heads);
                while let Some((i, (k, _))) = tree.winner() {
                    got.push(k);
                    let next = runs[i].get(at[i]).map(|&k| (k, 1));
                    at[i] += 1;
                    tree.replace(i, next);
                }
            }
            proptest::prop_assert_eq!(got, want);
        }
    }

    fn read_all(path: &Path, id: &PartId) -> Result<Vec<Record>, FrameError> {
        let mut r = PartReader::open(path, id)?;
        let mut out = Vec::new();
        while let Some(rec) = r.next_record()? {
            out.push(rec);
        }
        Ok(out)
    }

    #[test]
    fn parts_and_manifests_reject_every_damage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("part.lyr");
        let id = PartId { size: 6, by: 0, layer: 9, partition: 2, partitions: 5 };
        let records: Vec<Record> = vec![(3, 1), (700, 2), (1 << 40, 5), (1 << 55, u64::MAX as u128 + 7)];
        let n = write_part(&p, &id, |emit| records.iter().try_for_each(|&r| emit(r))).unwrap();
        assert_eq!(n, 4);
        assert_eq!(read_all(&p, &id).unwrap(), records);
        let other = PartId { partition: 3, ..id };
        assert!(read_all(&p, &other).is_err(), "a part of another partition is refused");
        let good = std::fs::read(&p).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x20;
            std::fs::write(&p, &bad).unwrap();
            assert!(read_all(&p, &id).is_err(), "flip at byte {i} not detected");
        }
        for cut in 0..good.len() {
            std::fs::write(&p, &good[..cut]).unwrap();
            assert!(read_all(&p, &id).is_err(), "truncation at {cut} not detected");
        }

        let m = dir.path().join("run.manifest");
        let manifest = Manifest {
            software: "othello-census test".into(),
            run: RunConfig {
                size: 6,
                by: 1,
                limit: 12,
                partitions: 5,
                command: "c".into(),
                started_unix: 1,
                memory_limit: 2,
                store_last: false,
            },
            phase: Phase::Expanded,
            layer: 7,
            part_records: vec![1, 2, 3, 4, 5],
            stats: vec![LayerCounts {
                layer: 0,
                games: Some(crate::census::Games { games: 1, ..Default::default() }),
                ..Default::default()
            }],
            entering: Entering { games: 3, passes: 1 },
            elapsed_seconds: 0.5,
            slicing: Slicing {
                slices: 4,
                done: 2,
                counted: Expansion { mass: 1 << 70, emitted: 9, shapes: (3, 1), ..Default::default() },
            },
            settings: RunSettings { slices: Some(3), compact_always: true, disk_limit: Some(1 << 40) },
            out: Some("/o".into()),
        };
        // version 7, without out, is read with none
        let v7 = Manifest { out: None, ..manifest.clone() };
        let bytes = crate::formats::framed::encode(&v7);
        // (none encodes as one zero byte at the end)
        assert_eq!(bytes[bytes.len() - 1..], [0]);
        let bytes = &bytes[..bytes.len() - 1];
        crate::formats::atomic::atomic_write_with(&m, |w| {
            crate::formats::framed::write_preamble(w, &MANIFEST_KIND_7)?;
            crate::formats::framed::write_section(w, *b"HEAD", bytes.len() as u64, |h| h.put(bytes))?;
            crate::formats::framed::write_end(w)
        })
        .unwrap();
        assert_eq!(read_manifest(&m).unwrap(), v7);
        // version 6, without the settings, is read with their defaults
        let v6 = Manifest { settings: RunSettings::default(), out: None, ..manifest.clone() };
        let bytes = crate::formats::framed::encode(&v6);
        // (the defaults encode as three zero bytes, then none as one)
        assert_eq!(bytes[bytes.len() - 4..], [0, 0, 0, 0]);
        let bytes = &bytes[..bytes.len() - 4];
        crate::formats::atomic::atomic_write_with(&m, |w| {
            crate::formats::framed::write_preamble(w, &MANIFEST_KIND_6)?;
            crate::formats::framed::write_section(w, *b"HEAD", bytes.len() as u64, |h| h.put(bytes))?;
            crate::formats::framed::write_end(w)
        })
        .unwrap();
        assert_eq!(read_manifest(&m).unwrap(), v6);
        write_manifest(&m, &manifest).unwrap();
        assert_eq!(read_manifest(&m).unwrap(), manifest);
        let good = std::fs::read(&m).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x01;
            std::fs::write(&m, &bad).unwrap();
            assert!(read_manifest(&m).is_err(), "flip at byte {i} not detected");
        }
        for cut in 0..good.len() {
            std::fs::write(&m, &good[..cut]).unwrap();
            assert!(read_manifest(&m).is_err(), "truncation at {cut} not detected");
        }
    }

    /// A checkpointed bucket reopened at a recorded state: runs appended
    /// after it are cut off; a staged compaction not recorded is dropped,
    /// one recorded is installed; the records are the same either way.
    #[test]
    fn a_checkpointed_bucket_reopens_at_its_recorded_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part-0000.bkt");
        let staged = dir.path().join("part-0000.gen1");
        let c = Some(Compaction { ratio: 0.1, min_bytes: 0 });
        let w = BucketWriter::create(&path, 8, c, true).unwrap();
        w.append(RunEncoder::of(&[(1, 1), (5, 2)]).run()).unwrap();
        w.append(RunEncoder::of(&[(1, 3), (7, 1)]).run()).unwrap();
        let before = w.sync().unwrap();
        assert_eq!(before.offsets.len(), 2, "a checkpointed bucket is not compacted while appended to");
        assert!(w.stage_compaction().unwrap().is_some() && staged.exists());
        drop(w);
        // a stop before the compaction was recorded, after another run
        let w = BucketWriter::reopen(&path, 8, c, before.clone()).unwrap();
        assert!(!staged.exists());
        w.append(RunEncoder::of(&[(9, 9)]).run()).unwrap();
        drop(w);
        let w = BucketWriter::reopen(&path, 8, c, before.clone()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), before.len);
        let next = w.stage_compaction().unwrap().unwrap();
        drop(w);
        // a stop after it was recorded, before it was installed
        let w = BucketWriter::reopen(&path, 8, c, next.clone()).unwrap();
        assert!(!staged.exists());
        assert_eq!(w.finish().unwrap(), 1);
        let mut got = Vec::new();
        merge_bucket(&path, 1, 8, true, &mut |r| {
            got.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![(1, 4), (5, 2), (7, 1)]);
        // a bucket shorter than its record is refused
        let w = BucketWriter::create(&path, 8, c, true).unwrap();
        w.append(RunEncoder::of(&[(1, 1)]).run()).unwrap();
        let st = w.sync().unwrap();
        drop(w);
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(st.len - 1).unwrap();
        let e = BucketWriter::reopen(&path, 8, c, st).err().unwrap().to_string();
        assert!(e.contains("fewer than the"), "{e}");
    }
}
