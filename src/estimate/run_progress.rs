//! An estimate's progress: the tallies of the samples drawn so far, kept
//! so that an estimate stopped or killed (a signal, the end of a session,
//! a crash) goes on from there instead of drawing everything again. An
//! 8x8 unit runs for hours; before this file, a run killed before its end
//! left nothing.
//!
//! A run's state between two pieces of a round is a few numbers per layer
//! (the tally, the undecided samples, where the round under way ends), and
//! the samples drawn next depend only on it and the seed
//! ([`super::run`]), so a run resumed from it draws and counts exactly
//! what the run uncut would have. The file is `estimate-<ID>.progress` in
//! the run's `--out` directory, ID the 16 hex digits of [`EstimateId`]:
//! every setting that decides what a sample counts as. It is rewritten
//! atomically (`formats::framed::write_head_file`) and removed once the
//! estimate's document is written. Its layout: `docs/long-runs.md`, "An
//! estimate's progress file".

use std::path::{Path, PathBuf};

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};
use xxhash_rust::xxh3::Xxh3;

use super::resolve_progress::{TALLY_WORDS, tally_of, tally_words};
use super::{EstimateConfig, Tally};
use crate::formats::framed::{FileKind, FrameError, MAGIC_ESTIMATE, read_head_file, write_head_file};

/// The kind of file: magic `OTHESTM\0`, version 1.
pub const ESTIMATE_PROGRESS_KIND: FileKind =
    FileKind { magic: MAGIC_ESTIMATE, version: 1, name: "estimate progress file" };

/// The identity of an estimate: the xxh3-64 of the board, the search
/// generation of this build, and every setting of [`EstimateConfig`] that
/// decides what is drawn and what a sample counts as (the layers, the
/// seed, `--samples`, every search limit, the focus, the frontier and the
/// census layer's size); not the time limit nor the threads, which change
/// neither. Two runs of one ID count every sample alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EstimateId(pub u64);

impl EstimateId {
    /// The ID of estimate `cfg` on an `n x n` board by a build of search
    /// generation `generation`, its searches stopping also at a census
    /// layer of `census_classes` classes (0: none).
    pub fn of(n: u32, cfg: &EstimateConfig, generation: u32, census_classes: u64) -> EstimateId {
        let mut h = Xxh3::new();
        h.update(b"othello-census estimate 1\0");
        // the solver matters only where the exact encoding runs
        let solver = if cfg.limits.exact_conflicts == 0 { 0 } else { cfg.limits.exact_solver.number() };
        let words = [
            u64::from(n),
            u64::from(generation),
            cfg.seed,
            // 0: no sample count (a time limit); else the count plus one
            cfg.samples.map_or(0, |s| s.saturating_add(1)),
            cfg.limits.budget,
            u64::from(cfg.frontier_discs),
            cfg.limits.relaxation_conflicts,
            cfg.limits.exact_conflicts,
            solver,
            cfg.limits.beam_width as u64,
            cfg.limits.sweep_width as u64,
            cfg.focus.number(),
            census_classes,
            cfg.layers.len() as u64,
        ];
        for w in words.into_iter().chain(cfg.layers.iter().map(|&k| u64::from(k))) {
            h.update(&w.to_le_bytes());
        }
        EstimateId(h.digest())
    }

    /// The progress file's path in directory `dir`.
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        dir.join(format!("estimate-{:016x}.progress", self.0))
    }

    /// The lock file's path in directory `dir` (held while an estimate of
    /// this ID runs there).
    pub fn lock_in(&self, dir: &Path) -> PathBuf {
        dir.join(format!("estimate-{:016x}.lock", self.0))
    }
}

/// One layer's state in a run: its disc count, its tally, its undecided samples (index,
/// and whether the time limit left it untried), in the order drawn, and
/// the sample count at which the round under way ends for it (its
/// tally's count between rounds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerProgress {
    pub discs: u32,
    pub tally: Tally,
    pub undecided: Vec<(u64, bool)>,
    pub round_end: u64,
}

/// The progress file's content: a run's state between two pieces of a
/// round.
#[derive(Clone, Debug, PartialEq)]
pub struct EstimateProgress {
    /// The estimate it belongs to.
    pub id: EstimateId,
    /// Rounds begun (the one under way, if any, counted).
    pub rounds: u32,
    /// Whether the round under way is the run's last.
    pub last: bool,
    /// Seconds run so far, and of them those the frontier's builds (and
    /// the census layer's readings) took.
    pub elapsed_seconds: f64,
    pub frontier_seconds: f64,
    /// Per layer, in the order of the run's layers.
    pub layers: Vec<LayerProgress>,
}

impl EstimateProgress {
    /// Samples drawn and counted.
    pub fn samples(&self) -> u64 {
        self.layers.iter().map(|l| l.tally.samples).sum()
    }

    /// Whether a round is under way (some layer short of its round's end).
    pub fn in_round(&self) -> bool {
        self.layers.iter().any(|l| l.round_end > l.tally.samples)
    }
}

impl Encode for EstimateProgress {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.id.0.encode(e)?;
        (self.rounds, u8::from(self.last)).encode(e)?;
        (self.elapsed_seconds.to_bits(), self.frontier_seconds.to_bits()).encode(e)?;
        (self.layers.len() as u64).encode(e)?;
        for l in &self.layers {
            l.discs.encode(e)?;
            tally_words(&l.tally).encode(e)?;
            l.round_end.encode(e)?;
            (l.undecided.len() as u64).encode(e)?;
            for &(index, untried) in &l.undecided {
                (index, u8::from(untried)).encode(e)?;
            }
        }
        Ok(())
    }
}

impl<C> Decode<C> for EstimateProgress {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let flag = |b: u8| match b {
            0 | 1 => Ok(b == 1),
            _ => Err(DecodeError::Other("a flag other than 0 or 1")),
        };
        let id = EstimateId(u64::decode(d)?);
        let (rounds, last) = <(u32, u8)>::decode(d)?;
        let (elapsed, frontier) = <(u64, u64)>::decode(d)?;
        let len = u64::decode(d)?;
        let mut layers = Vec::new();
        for _ in 0..len {
            let discs = u32::decode(d)?;
            let tally = tally_of(<[u64; TALLY_WORDS]>::decode(d)?);
            let round_end = u64::decode(d)?;
            let count = u64::decode(d)?;
            let mut undecided = Vec::new();
            for _ in 0..count {
                let (index, untried) = <(u64, u8)>::decode(d)?;
                undecided.push((index, flag(untried)?));
            }
            layers.push(LayerProgress { discs, tally, undecided, round_end });
        }
        Ok(EstimateProgress {
            id,
            rounds,
            last: flag(last)?,
            elapsed_seconds: f64::from_bits(elapsed),
            frontier_seconds: f64::from_bits(frontier),
            layers,
        })
    }
}
bincode::impl_borrow_decode!(EstimateProgress);

/// Writes `p` atomically (temporary file, fsync, rename, fsync of the
/// directory).
pub fn write_estimate_progress(path: &Path, p: &EstimateProgress) -> Result<(), FrameError> {
    write_head_file(path, &ESTIMATE_PROGRESS_KIND, p)
}

/// Reads a progress file and checks its frame and checksum only (which
/// estimate it belongs to is [`read_estimate_progress`]'s check): what
/// `inspect` shows of an estimate under way.
pub fn read_estimate_progress_file(path: &Path) -> Result<EstimateProgress, FrameError> {
    read_head_file(path, ESTIMATE_PROGRESS_KIND, 1 << 30)
}

/// Reads and checks the progress file of estimate `id` (of the layers
/// `layers`) at `path`: `None` when there is none; refused when it is
/// damaged, names another estimate, or is not a state a run can be in
/// (other layers, an undecided sample the tally does not
/// count or drawn past it, a round's end behind its tally, a tally whose
/// verdicts do not add up to its samples).
pub fn read_estimate_progress(
    path: &Path,
    id: EstimateId,
    layers: &[u32],
) -> Result<Option<EstimateProgress>, FrameError> {
    if !path.exists() {
        return Ok(None);
    }
    let p = read_estimate_progress_file(path)?;
    let corrupt =
        |detail: String| FrameError::Corrupt { path: path.to_path_buf(), kind: ESTIMATE_PROGRESS_KIND.name, detail };
    if p.id != id {
        return Err(corrupt(format!(
            "it belongs to estimate {:016x}, not {:016x} (other settings: the board, the layers, the seed, \
             the samples, the budget, the frontier, the relaxation's or the exact encoding's conflict limit, the SAT \
             solver, the beam's or the sweep's width, the focus, the census layer, or another search generation)",
            p.id.0, id.0
        )));
    }
    if !p.layers.iter().map(|l| l.discs).eq(layers.iter().copied()) {
        return Err(corrupt(format!("other layers than the run's {layers:?}")));
    }
    for (i, l) in p.layers.iter().enumerate() {
        let t = &l.tally;
        // a run focused on terminal positions counts the joined candidates
        // that are not terminal apart (`not_terminal`)
        if t.reachable + t.unreachable + t.undecided + t.not_terminal != t.samples
            || t.undecided != l.undecided.len() as u64
        {
            return Err(corrupt(format!(
                "layer {i}: a tally that does not add up, or undecided samples it does not count"
            )));
        }
        if l.round_end < t.samples || l.undecided.iter().any(|&(index, _)| index >= t.samples) {
            return Err(corrupt(format!("layer {i}: a sample or round end behind its tally")));
        }
    }
    Ok(Some(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::SearchLimits;

    fn config() -> EstimateConfig {
        EstimateConfig {
            layers: vec![20, 30],
            samples: None,
            time: Some(std::time::Duration::from_secs(60)),
            seed: 3,
            limits: SearchLimits {
                budget: 1_000_000,
                relaxation_conflicts: 20_000,
                exact_conflicts: 0,
                exact_solver: Default::default(),
                beam_width: 0,
                sweep_width: 0,
            },
            frontier_discs: 13,
            threads: 2,
            focus: Default::default(),
        }
    }

    #[test]
    fn a_progress_file_reads_back_and_refuses_damage_and_strangers() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config();
        let id = EstimateId::of(8, &cfg, 8, 0);
        // what decides a sample's count changes the ID; time and threads do not
        assert_ne!(id, EstimateId::of(6, &cfg, 8, 0));
        assert_ne!(id, EstimateId::of(8, &cfg, 7, 0));
        assert_ne!(id, EstimateId::of(8, &cfg, 8, 5));
        assert_ne!(id, EstimateId::of(8, &EstimateConfig { seed: 4, ..cfg.clone() }, 8, 0));
        assert_ne!(id, EstimateId::of(8, &EstimateConfig { layers: vec![20, 31], ..cfg.clone() }, 8, 0));
        assert_ne!(id, EstimateId::of(8, &EstimateConfig { samples: Some(10), ..cfg.clone() }, 8, 0));
        assert_ne!(
            id,
            EstimateId::of(8, &EstimateConfig { focus: super::super::Focus::Terminal, ..cfg.clone() }, 8, 0)
        );
        assert_ne!(
            id,
            EstimateId::of(
                8,
                &EstimateConfig { limits: SearchLimits { exact_conflicts: 10, ..cfg.limits }, ..cfg.clone() },
                8,
                0
            )
        );
        assert_eq!(id, EstimateId::of(8, &EstimateConfig { time: None, threads: 1, ..cfg.clone() }, 8, 0));
        // the ID names the progress file a run going on looks for: a build
        // that hashed the same settings otherwise would start every estimate
        // under way afresh
        let exact = EstimateConfig {
            limits: SearchLimits {
                exact_conflicts: 5_000_000,
                exact_solver: crate::search::game_encoding::Solver::BatSat,
                beam_width: 7,
                sweep_width: 9,
                ..cfg.limits
            },
            ..cfg.clone()
        };
        assert_eq!((id.0, EstimateId::of(8, &exact, 8, 3).0), (0x6e14_7ab8_edac_8534, 0x4d26_e225_ea23_286c));
        let path = id.path_in(dir.path());
        assert!(read_estimate_progress(&path, id, &[20, 30]).unwrap().is_none());
        let tally = |samples: u64, reachable: u64, undecided: u64| Tally {
            samples,
            joined: samples,
            reachable,
            undecided,
            unreachable: samples - reachable - undecided,
            nodes: 77,
            ..Tally::default()
        };
        let p = EstimateProgress {
            id,
            rounds: 3,
            last: false,
            elapsed_seconds: 12.5,
            frontier_seconds: 2.25,
            layers: vec![
                LayerProgress {
                    discs: 20,
                    tally: tally(200, 7, 2),
                    undecided: vec![(5, false), (150, true)],
                    round_end: 200,
                },
                LayerProgress { discs: 30, tally: tally(90, 0, 0), undecided: vec![], round_end: 130 },
            ],
        };
        assert_eq!((p.samples(), p.in_round()), (290, true));
        // a focused run's tally: the joined candidates not terminal apart
        let mut focused = p.clone();
        focused.layers[1].tally.unreachable = 60;
        focused.layers[1].tally.not_terminal = 30;
        write_estimate_progress(&path, &focused).unwrap();
        assert_eq!(read_estimate_progress(&path, id, &[20, 30]).unwrap(), Some(focused));
        write_estimate_progress(&path, &p).unwrap();
        assert_eq!(read_estimate_progress(&path, id, &[20, 30]).unwrap(), Some(p.clone()));
        assert!(
            read_estimate_progress(&path, EstimateId(id.0 ^ 1), &[20, 30])
                .unwrap_err()
                .to_string()
                .contains("belongs to")
        );
        assert!(read_estimate_progress(&path, id, &[20, 31]).unwrap_err().to_string().contains("layers"));
        // states no run can be in
        let mut bad = p.clone();
        bad.layers[0].undecided.pop();
        write_estimate_progress(&path, &bad).unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).unwrap_err().to_string().contains("does not add up"));
        let mut bad = p.clone();
        bad.layers[0].undecided[1].0 = 200;
        write_estimate_progress(&path, &bad).unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).unwrap_err().to_string().contains("behind"));
        let mut bad = p.clone();
        bad.layers[1].round_end = 80;
        write_estimate_progress(&path, &bad).unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).unwrap_err().to_string().contains("behind"));
        // damage: a flipped byte is a checksum mismatch, a cut file is refused
        write_estimate_progress(&path, &p).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let mut flipped = bytes.clone();
        flipped[40] ^= 4;
        std::fs::write(&path, &flipped).unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).unwrap_err().to_string().contains("checksum"));
        std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).is_err());
        // another kind of file under the name
        std::fs::write(&path, b"{\"not\": \"this\"}").unwrap();
        assert!(read_estimate_progress(&path, id, &[20, 30]).is_err());
    }
}
