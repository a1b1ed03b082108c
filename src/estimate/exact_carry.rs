//! A resolve's carry files: what each exact search left without a verdict
//! learned ([`Carry`]), one file a sample, so that the next search of the
//! sample (the second round, or the same command after a stop) goes on
//! from it instead of starting afresh. A dense 8x8 sample's search takes
//! longer than a session; without these files it could never finish.
//!
//! The files are `exact-carry/<KEY>.carry` in the resolve's `--out`
//! directory (`--carry-exact`), KEY the 16 hex digits of the xxh3-64 of
//! the position; each is written atomically and removed once its sample
//! is decided. A file that cannot be read, or that belongs to another
//! position, is not used (the search starts afresh and writes it anew);
//! the first such problem is kept for the caller to report. Layout:
//! `docs/long-runs.md`, "The exact searches' carry files".

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bincode::{Decode, Encode};

use crate::formats::framed::{FileKind, FrameError, MAGIC_CARRY, read_head_file, write_head_file};
use crate::search::game_encoding::{CARRY_LITERALS, Carry, CarryStore};

/// The kind of file: magic `OTHCARY\0`, version 1.
pub const CARRY_KIND: FileKind = FileKind { magic: MAGIC_CARRY, version: 1, name: "carry file of an exact search" };

/// The directory of the carry files in a resolve's `--out` directory.
pub const CARRY_DIR: &str = "exact-carry";

/// A carry file's one section.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
struct CarryFile {
    black: u64,
    white: u64,
    black_to_move: bool,
    first_spent: u64,
    passes_spent: u64,
    fingerprint: u64,
    keep_len: u32,
    clauses: Vec<u32>,
}

/// The carry files of one directory.
pub struct CarryDir {
    dir: PathBuf,
    /// The first problem met (a file that could not be read, written or
    /// removed), for the caller to report.
    problem: Mutex<Option<String>>,
    /// Carries written and found, for the caller's summary.
    written: Mutex<(u64, u64)>,
    /// Held while a file is written: two threads may search samples of
    /// one position, and an atomic write's temporary is named by the
    /// process.
    writing: Mutex<()>,
}

impl CarryDir {
    /// The carry files in `dir` (created when the first is written). The
    /// temporaries of writes that killed processes left there are removed:
    /// the caller holds the resolve's lock. (A resolve of other settings
    /// in the same directory, which holds a lock of its own, may lose a
    /// carry it was writing at that moment: it says so, and only time is
    /// lost.)
    pub fn new(dir: &Path) -> CarryDir {
        crate::formats::atomic::remove_temporaries(dir, |f| f.ends_with(".carry"));
        CarryDir {
            dir: dir.to_path_buf(),
            problem: Mutex::new(None),
            written: Mutex::new((0, 0)),
            writing: Mutex::new(()),
        }
    }

    /// The file of a position.
    pub fn path_of(&self, black: u64, white: u64, black_to_move: bool) -> PathBuf {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&black.to_le_bytes());
        h.update(&white.to_le_bytes());
        h.update(&[u8::from(black_to_move)]);
        self.dir.join(format!("{:016x}.carry", h.digest()))
    }

    /// The first problem met, if any.
    pub fn problem(&self) -> Option<String> {
        self.problem.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Carries written, and carries found for a search (each used where
    /// it is of the same formula), so far.
    pub fn counts(&self) -> (u64, u64) {
        *self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The carry files there now, and their bytes.
    pub fn on_disk(&self) -> (u64, u64) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return (0, 0) };
        entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".carry"))
            .fold((0, 0), |(n, b), e| (n + 1, b + e.metadata().map_or(0, |m| m.len())))
    }

    fn note(&self, problem: String) {
        self.problem.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(problem);
    }

    /// Reads the carry file at `path` whatever its position (`inspect`):
    /// its position's black and white discs, whether Black is to move,
    /// and the carry; an error where it is missing or damaged.
    pub fn read_any(path: &Path) -> Result<(u64, u64, bool, Carry), FrameError> {
        let f: CarryFile = read_head_file(path, CARRY_KIND, 8 * CARRY_LITERALS as u64 + 1024)?;
        let carry = Carry {
            first_spent: f.first_spent,
            passes_spent: f.passes_spent,
            fingerprint: f.fingerprint,
            keep_len: f.keep_len,
            clauses: f.clauses,
        };
        Ok((f.black, f.white, f.black_to_move, carry))
    }

    /// Reads the carry file at `path` for the position: `None` where there
    /// is none; an error where it is damaged or of another position.
    pub fn read(path: &Path, black: u64, white: u64, black_to_move: bool) -> Result<Option<Carry>, FrameError> {
        let f: CarryFile = match read_head_file(path, CARRY_KIND, 8 * CARRY_LITERALS as u64 + 1024) {
            Err(FrameError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            r => r?,
        };
        if (f.black, f.white, f.black_to_move) != (black, white, black_to_move) {
            return Err(FrameError::Corrupt {
                path: path.to_path_buf(),
                kind: CARRY_KIND.name,
                detail: "it holds another position".into(),
            });
        }
        Ok(Some(Carry {
            first_spent: f.first_spent,
            passes_spent: f.passes_spent,
            fingerprint: f.fingerprint,
            keep_len: f.keep_len,
            clauses: f.clauses,
        }))
    }
}

impl CarryStore for CarryDir {
    fn load(&self, black: u64, white: u64, black_to_move: bool) -> Option<Carry> {
        match CarryDir::read(&self.path_of(black, white, black_to_move), black, white, black_to_move) {
            Ok(Some(c)) => {
                self.written.lock().unwrap_or_else(|e| e.into_inner()).1 += 1;
                Some(c)
            }
            Ok(None) => None,
            Err(e) => {
                self.note(format!("{e}; its search starts afresh"));
                None
            }
        }
    }

    fn save(&self, black: u64, white: u64, black_to_move: bool, carry: &Carry) {
        let f = CarryFile {
            black,
            white,
            black_to_move,
            first_spent: carry.first_spent,
            passes_spent: carry.passes_spent,
            fingerprint: carry.fingerprint,
            keep_len: carry.keep_len,
            clauses: carry.clauses.clone(),
        };
        let path = self.path_of(black, white, black_to_move);
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let done = std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))
            .and_then(|()| write_head_file(&path, &CARRY_KIND, &f).map_err(|e| e.to_string()));
        match done {
            Ok(()) => self.written.lock().unwrap_or_else(|e| e.into_inner()).0 += 1,
            Err(e) => self.note(format!("{e}; that search's carry is lost")),
        }
    }

    fn forget(&self, black: u64, white: u64, black_to_move: bool) {
        let path = self.path_of(black, white, black_to_move);
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            self.note(format!("cannot remove {}: {e}", path.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn carry() -> Carry {
        Carry { first_spent: 7, passes_spent: 1234, fingerprint: 0xfeed, keep_len: 8, clauses: vec![2, 4, 7, 1, 9] }
    }

    #[test]
    fn a_carry_reads_back_and_a_bad_file_is_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        let store = CarryDir::new(&tmp.path().join(CARRY_DIR));
        assert_eq!(store.load(1, 2, true), None);
        store.save(1, 2, true, &carry());
        assert_eq!(store.problem(), None);
        assert_eq!(store.load(1, 2, true), Some(carry()));
        // another side to move is another position, another file
        assert_eq!(store.load(1, 2, false), None);
        assert_eq!(store.counts(), (1, 1));
        assert_eq!(store.on_disk().0, 1);
        // a file of another position under this one's name: not used, said
        let path = store.path_of(1, 2, true);
        let other = store.path_of(3, 4, true);
        store.save(3, 4, true, &carry());
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(store.load(1, 2, true), None);
        assert!(store.problem().unwrap().contains("another position"), "{:?}", store.problem());
        // damage: not used, and the file is left for the next save to replace
        let fresh = CarryDir::new(&tmp.path().join(CARRY_DIR));
        fresh.save(1, 2, true, &carry());
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 30;
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(fresh.load(1, 2, true), None);
        assert!(fresh.problem().is_some());
        fresh.save(1, 2, true, &carry());
        assert_eq!(fresh.load(1, 2, true), Some(carry()));
        // decided: the file goes
        fresh.forget(1, 2, true);
        assert!(!path.exists());
        fresh.forget(1, 2, true);
        assert_eq!(fresh.problem().map(|p| p.contains("cannot remove")), Some(false));
    }
}
