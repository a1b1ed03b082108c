//! The manifest: a run's identity, settings and what it has completed,
//! replaced atomically at each commit.

use std::path::Path;

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use super::MANIFEST_KIND;
use super::part::PartId;
use super::slicing::Slicing;
use crate::census::LayerCounts;
use crate::engine::layers::expansion::Entering;
use crate::engine::layers::workdir::Keep;
use crate::formats::framed::{FileKind, FrameError, read_head_file, write_head_file};

/// Version 7 of the manifest: no `out`; read without one.
pub(super) const MANIFEST_KIND_7: FileKind = FileKind { version: 7, ..MANIFEST_KIND };
/// Version 6 of the manifest: no [`RunSettings`]; read with the defaults.
pub(super) const MANIFEST_KIND_6: FileKind = FileKind { version: 6, ..MANIFEST_KIND };

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
