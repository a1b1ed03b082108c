//! A resolve's progress: the samples it has decided again so far, kept so
//! that a resolve stopped or killed (by a signal, the end of a session, a
//! crash) resumes after them instead of deciding every sample again. A
//! resolve of an 8x8 document takes hours; before this file it wrote
//! nothing until its last sample.
//!
//! The file is `resolve-<ID>.progress` in the resolve's `--out` directory,
//! ID the 16 hex digits of [`ResolveId`]: the source document's bytes and
//! the settings that decide a sample's verdict. A resolve with the same
//! document and settings into the same directory takes the samples listed
//! and searches only the others; one with other settings has another ID,
//! so it never mixes verdicts of two searches. The file is rewritten
//! atomically (`formats::framed::write_head_file`) and removed once the
//! resolved document is written. Its layout: `docs/long-runs.md`, "The
//! resolve's progress file".

use std::path::{Path, PathBuf};

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};
use xxhash_rust::xxh3::Xxh3;

use super::{SearchLimits, Tally, UndecidedSample};
use crate::formats::framed::{FileKind, FrameError, MAGIC_RESOLVE, read_head_file, write_head_file};

/// The kind of file: magic `OTHRSLV\0`, version 2 (version 1, without
/// the deferred samples, is still read).
pub const RESOLVE_PROGRESS_KIND: FileKind =
    FileKind { magic: MAGIC_RESOLVE, version: 2, name: "resolve progress file" };

/// Version 1 of the file (before 2026-11-29): no deferred samples.
const RESOLVE_PROGRESS_KIND_1: FileKind = FileKind { version: 1, ..RESOLVE_PROGRESS_KIND };

/// The identity of a resolve: the xxh3-64 of its source document's bytes,
/// the search generation of this build, and every limit of
/// [`SearchLimits`] and the census layer's size. Two resolves of one ID
/// decide every sample alike (the searches are deterministic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolveId(pub u64);

impl ResolveId {
    /// The ID of resolving the document whose bytes are `document` with
    /// searches of `limits`, of generation `generation`, stopping also at
    /// a census layer of `census_classes` classes (0: none).
    pub fn of(document: &[u8], generation: u32, limits: &SearchLimits, census_classes: u64) -> ResolveId {
        // the solver matters only where the exact encoding runs: without
        // it, builds with and without CaDiCaL (whose default solvers
        // differ) make one resolve, whose parts can be gathered
        let solver = if limits.exact_conflicts == 0 { 0 } else { limits.exact_solver.number() };
        ResolveId::hashed(document, generation, limits, solver, census_classes)
    }

    /// The ID the builds before 2026-11-28 (second session) gave the same
    /// resolve, where it differs from [`ResolveId::of`]: they hashed the
    /// solver even where the exact encoding did not run (a CaDiCaL build's
    /// resolve without it). Its progress file is taken as this one's.
    pub fn before_20261128(
        document: &[u8],
        generation: u32,
        limits: &SearchLimits,
        census_classes: u64,
    ) -> Option<ResolveId> {
        let old = ResolveId::hashed(document, generation, limits, limits.exact_solver.number(), census_classes);
        (old != ResolveId::of(document, generation, limits, census_classes)).then_some(old)
    }

    fn hashed(document: &[u8], generation: u32, limits: &SearchLimits, solver: u64, census_classes: u64) -> ResolveId {
        let mut h = Xxh3::new();
        h.update(b"othello-census resolve 1\0");
        h.update(&(document.len() as u64).to_le_bytes());
        h.update(document);
        let words = [
            u64::from(generation),
            limits.budget,
            limits.relaxation_conflicts,
            limits.exact_conflicts,
            solver,
            limits.beam_width as u64,
            limits.sweep_width as u64,
            census_classes,
        ];
        for w in words {
            h.update(&w.to_le_bytes());
        }
        ResolveId(h.digest())
    }

    /// The progress file's path in directory `dir`.
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        dir.join(format!("resolve-{:016x}.progress", self.0))
    }

    /// The lock file's path in directory `dir` (held while a resolve of
    /// this ID runs there).
    pub fn lock_in(&self, dir: &Path) -> PathBuf {
        dir.join(format!("resolve-{:016x}.lock", self.0))
    }
}

/// One sample decided again: which, what its searches found (the
/// one-sample tally of `estimate::one_sample`), and whether it is
/// terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decided {
    pub discs: u32,
    pub index: u64,
    pub tally: Tally,
    pub terminal: bool,
}

/// One sample a resolve's first round (`--exact-first`) left undecided:
/// its exact encoding ran out at `exact_conflicts`, fewer than the
/// resolve's, so it waits for the second round, at the resolve's own
/// limits. Not a verdict at the resolve's settings: until that round
/// searches it, a document counts it untried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deferred {
    pub discs: u32,
    pub index: u64,
    pub exact_conflicts: u64,
}

/// The progress file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveProgress {
    /// The resolve it belongs to.
    pub id: ResolveId,
    /// The samples decided so far, in the order they finished.
    pub done: Vec<Decided>,
    /// The samples a first round left for the second (none of them in
    /// `done`), in the order they finished.
    pub deferred: Vec<Deferred>,
}

/// The counters of a tally in a progress file.
pub(super) const TALLY_WORDS: usize = 20;

/// A tally's counters in their documented order (20 u64; the last,
/// `balanced`, was a reserved zero before search generation 6, which is
/// what it counts then too).
pub(super) fn tally_words(t: &Tally) -> [u64; TALLY_WORDS] {
    [
        t.samples,
        t.joined,
        t.reachable,
        t.unreachable,
        t.undecided,
        t.terminal,
        t.undecided_terminal,
        t.by_orbit[0],
        t.by_orbit[1],
        t.by_orbit[2],
        t.nodes,
        t.relaxed,
        t.exact_reachable,
        t.exact_unreachable,
        t.not_terminal,
        t.beam_reachable,
        t.beam_unreachable,
        t.sweep_reachable,
        t.sweep_unreachable,
        t.balanced,
    ]
}

pub(super) fn tally_of(w: [u64; TALLY_WORDS]) -> Tally {
    Tally {
        samples: w[0],
        joined: w[1],
        reachable: w[2],
        unreachable: w[3],
        undecided: w[4],
        terminal: w[5],
        undecided_terminal: w[6],
        by_orbit: [w[7], w[8], w[9]],
        nodes: w[10],
        relaxed: w[11],
        exact_reachable: w[12],
        exact_unreachable: w[13],
        not_terminal: w[14],
        beam_reachable: w[15],
        beam_unreachable: w[16],
        sweep_reachable: w[17],
        sweep_unreachable: w[18],
        balanced: w[19],
    }
}

/// The ID and the decided samples: all of version 1's `HEAD`, the start
/// of version 2's.
fn decode_done<D: Decoder>(d: &mut D) -> Result<(ResolveId, Vec<Decided>), DecodeError> {
    let id = ResolveId(u64::decode(d)?);
    let len = u64::decode(d)?;
    let mut done = Vec::new();
    for _ in 0..len {
        let (discs, index, terminal) = <(u32, u64, u8)>::decode(d)?;
        if terminal > 1 {
            return Err(DecodeError::Other("a terminal flag other than 0 or 1"));
        }
        let words = <[u64; TALLY_WORDS]>::decode(d)?;
        let tally = tally_of(words);
        done.push(Decided { discs, index, tally, terminal: terminal == 1 });
    }
    Ok((id, done))
}

impl Encode for ResolveProgress {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.id.0.encode(e)?;
        (self.done.len() as u64).encode(e)?;
        for d in &self.done {
            (d.discs, d.index, u8::from(d.terminal)).encode(e)?;
            tally_words(&d.tally).encode(e)?;
        }
        (self.deferred.len() as u64).encode(e)?;
        for d in &self.deferred {
            (d.discs, d.index, d.exact_conflicts).encode(e)?;
        }
        Ok(())
    }
}

impl<C> Decode<C> for ResolveProgress {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let (id, done) = decode_done(d)?;
        let len = u64::decode(d)?;
        let mut deferred = Vec::new();
        for _ in 0..len {
            let (discs, index, exact_conflicts) = <(u32, u64, u64)>::decode(d)?;
            deferred.push(Deferred { discs, index, exact_conflicts });
        }
        Ok(ResolveProgress { id, done, deferred })
    }
}
bincode::impl_borrow_decode!(ResolveProgress);

/// Version 1's content: [`ResolveProgress`] without deferred samples.
struct ProgressV1(ResolveProgress);

impl<C> Decode<C> for ProgressV1 {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let (id, done) = decode_done(d)?;
        Ok(ProgressV1(ResolveProgress { id, done, deferred: Vec::new() }))
    }
}

/// Writes `p` atomically (temporary file, fsync, rename, fsync of the
/// directory).
pub fn write_progress(path: &Path, p: &ResolveProgress) -> Result<(), FrameError> {
    write_head_file(path, &RESOLVE_PROGRESS_KIND, p)
}

/// Reads a progress file and checks its frame and checksum only (which
/// resolve it belongs to is [`read_progress`]'s check): what `inspect`
/// shows of a resolve under way. A version-1 file (written before the
/// first rounds) reads as one without deferred samples.
pub fn read_progress_file(path: &Path) -> Result<ResolveProgress, FrameError> {
    match read_head_file(path, RESOLVE_PROGRESS_KIND, 1 << 30) {
        Err(FrameError::Version { found: 1, .. }) => {
            read_head_file::<ProgressV1>(path, RESOLVE_PROGRESS_KIND_1, 1 << 30).map(|p| p.0)
        }
        r => r,
    }
}

/// Reads and checks the progress file of resolve `id` at `path` against
/// the samples the document lists: `None` when there is none; refused
/// when it is damaged, names another resolve, or lists a sample the
/// document does not (or one twice), or one whose tally is not of one
/// sample.
pub fn read_progress(
    path: &Path,
    id: ResolveId,
    listed: &[UndecidedSample],
) -> Result<Option<ResolveProgress>, FrameError> {
    read_progress_of(path, id, None, listed)
}

/// [`read_progress`], taking also a file of `also`, the ID an older build
/// gave the same resolve ([`ResolveId::before_20261128`]); what it
/// returns has the ID `id`.
pub fn read_progress_of(
    path: &Path,
    id: ResolveId,
    also: Option<ResolveId>,
    listed: &[UndecidedSample],
) -> Result<Option<ResolveProgress>, FrameError> {
    if !path.exists() {
        return Ok(None);
    }
    let mut p = read_progress_file(path)?;
    let corrupt =
        |detail: String| FrameError::Corrupt { path: path.to_path_buf(), kind: RESOLVE_PROGRESS_KIND.name, detail };
    if p.id != id && Some(p.id) != also {
        return Err(corrupt(format!(
            "it belongs to resolve {:016x}, not {:016x} (another document, or other settings: the budget, \
             the relaxation's or the exact encoding's conflict limit, the SAT solver, the beam's or the sweep's width, \
             the census layer, or another search generation)",
            p.id.0, id.0
        )));
    }
    p.id = id;
    let listed: std::collections::HashSet<(u32, u64)> = listed.iter().map(|u| (u.discs, u.index)).collect();
    let mut seen = std::collections::HashSet::new();
    // each sample listed by the document, and once in the file, whether
    // decided or waiting for a second round (`what` names it)
    let mut once = |discs: u32, index: u64, what: &str| {
        if !listed.contains(&(discs, index)) {
            return Err(corrupt(format!("{what} {index} of layer {discs} is not an undecided sample of the document")));
        }
        if !seen.insert((discs, index)) {
            return Err(corrupt(format!("sample {index} of layer {discs} is listed twice")));
        }
        Ok(())
    };
    for d in &p.done {
        once(d.discs, d.index, "sample")?;
        let t = &d.tally;
        if t.samples != 1 || t.reachable + t.unreachable + t.undecided != 1 {
            return Err(corrupt(format!(
                "sample {} of layer {} has a tally of more than one sample",
                d.index, d.discs
            )));
        }
    }
    // a deferred sample waits for its second round: never one decided
    for d in &p.deferred {
        once(d.discs, d.index, "deferred sample")?;
    }
    Ok(Some(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(discs: u32, index: u64) -> UndecidedSample {
        UndecidedSample { discs, index, position: String::new(), untried: false }
    }

    fn one(reachable: bool) -> Tally {
        Tally {
            samples: 1,
            joined: 1,
            reachable: u64::from(reachable),
            unreachable: u64::from(!reachable),
            terminal: u64::from(reachable),
            by_orbit: [0, 0, u64::from(reachable)],
            nodes: 12_345,
            relaxed: 0,
            ..Tally::default()
        }
    }

    #[test]
    fn a_progress_file_reads_back_and_refuses_damage_and_strangers() {
        let dir = tempfile::tempdir().unwrap();
        let limits = SearchLimits {
            budget: 1_000_000,
            relaxation_conflicts: 20_000,
            exact_conflicts: 0,
            exact_solver: crate::search::game_encoding::Solver::default(),
            beam_width: 10_000,
            sweep_width: 1_000_000,
        };
        let id = ResolveId::of(b"{\"a\": 1}", 5, &limits, 0);
        // every setting and the document change the ID
        assert_ne!(id, ResolveId::of(b"{\"a\": 2}", 5, &limits, 0));
        assert_ne!(id, ResolveId::of(b"{\"a\": 1}", 4, &limits, 0));
        assert_ne!(id, ResolveId::of(b"{\"a\": 1}", 5, &SearchLimits { sweep_width: 2_000_000, ..limits }, 0));
        assert_ne!(id, ResolveId::of(b"{\"a\": 1}", 5, &limits, 7));
        // the solver counts only where the exact encoding runs
        use crate::search::game_encoding::Solver;
        assert_eq!(id, ResolveId::of(b"{\"a\": 1}", 5, &SearchLimits { exact_solver: Solver::BatSat, ..limits }, 0));
        let exact = SearchLimits { exact_conflicts: 100_000, exact_solver: Solver::BatSat, ..limits };
        assert_ne!(id, ResolveId::of(b"{\"a\": 1}", 5, &exact, 0));
        assert_eq!(ResolveId::before_20261128(b"{\"a\": 1}", 5, &exact, 0), None);
        // the ID names the progress file a resume looks for: a build that
        // hashed the same settings otherwise would start every resolve under
        // way afresh
        assert_eq!(
            (id.0, ResolveId::of(b"{\"a\": 1}", 5, &exact, 0).0),
            (0x9a2e_58b7_86af_056f, 0x6fed_2d33_b44c_0a8c)
        );
        #[cfg(feature = "cadical")]
        {
            let with = |s: Solver| ResolveId::of(b"{\"a\": 1}", 5, &SearchLimits { exact_solver: s, ..exact }, 0);
            assert_ne!(with(Solver::BatSat), with(Solver::CaDiCaL));
            assert_ne!(with(Solver::CaDiCaL), with(Solver::CaDiCaLUnsat));
            // a CaDiCaL build's resolve without the exact encoding had
            // another ID before, whose file is taken
            let cadical = SearchLimits { exact_solver: Solver::CaDiCaL, ..limits };
            let old = ResolveId::before_20261128(b"{\"a\": 1}", 5, &cadical, 0).expect("another ID before");
            assert_ne!(old, id);
        }
        let listed = [sample(50, 3), sample(50, 9), sample(61, 2)];
        let path = id.path_in(dir.path());
        assert!(read_progress(&path, id, &listed).unwrap().is_none());
        let p = ResolveProgress {
            id,
            done: vec![
                Decided { discs: 61, index: 2, tally: one(true), terminal: true },
                Decided { discs: 50, index: 3, tally: one(false), terminal: false },
            ],
            deferred: vec![Deferred { discs: 50, index: 9, exact_conflicts: 300_000 }],
        };
        write_progress(&path, &p).unwrap();
        assert_eq!(read_progress(&path, id, &listed).unwrap(), Some(p.clone()));
        // another resolve's file, or one naming a sample not listed
        let other = ResolveId(id.0 ^ 1);
        assert!(read_progress(&path, other, &listed).unwrap_err().to_string().contains("belongs to resolve"));
        assert!(read_progress(&path, id, &listed[..2]).unwrap_err().to_string().contains("not an undecided sample"));
        // a sample twice
        let twice = ResolveProgress { id, done: vec![p.done[0], p.done[0]], deferred: Vec::new() };
        write_progress(&path, &twice).unwrap();
        assert!(read_progress(&path, id, &listed).unwrap_err().to_string().contains("twice"));
        // a sample both decided and waiting for a second round, or a
        // deferred one not listed
        let both =
            ResolveProgress { deferred: vec![Deferred { discs: 61, index: 2, exact_conflicts: 1 }], ..p.clone() };
        write_progress(&path, &both).unwrap();
        assert!(read_progress(&path, id, &listed).unwrap_err().to_string().contains("twice"));
        let stranger =
            ResolveProgress { deferred: vec![Deferred { discs: 49, index: 9, exact_conflicts: 1 }], ..p.clone() };
        write_progress(&path, &stranger).unwrap();
        assert!(read_progress(&path, id, &listed).unwrap_err().to_string().contains("not an undecided sample"));
        // version 1 (before the first rounds): read as a file without
        // deferred samples; its HEAD is version 2's without the deferred
        // list's length (0 here) at the end
        struct Raw(Vec<u8>);
        impl Encode for Raw {
            fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
                bincode::enc::write::Writer::write(e.writer(), &self.0)
            }
        }
        let v1 = ResolveProgress { deferred: Vec::new(), ..p.clone() };
        let bytes = crate::formats::framed::encode(&v1);
        assert_eq!(bytes[bytes.len() - 8..], [0; 8]);
        write_head_file(&path, &RESOLVE_PROGRESS_KIND_1, &Raw(bytes[..bytes.len() - 8].to_vec())).unwrap();
        assert_eq!(std::fs::read(&path).unwrap()[8..12], 1u32.to_le_bytes());
        assert_eq!(read_progress(&path, id, &listed).unwrap(), Some(v1));
        // damage: a flipped byte is a checksum mismatch, a cut file is truncated
        write_progress(&path, &p).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let mut bad = bytes.clone();
        bad[40] ^= 4;
        std::fs::write(&path, &bad).unwrap();
        assert!(read_progress(&path, id, &listed).unwrap_err().to_string().contains("checksum"));
        std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        assert!(read_progress(&path, id, &listed).is_err());
    }
}
