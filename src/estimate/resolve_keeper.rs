//! A resolve's progress kept while it runs: the lock that keeps a second
//! process from the same resolve, what an earlier run of it decided (taken
//! from its progress file, or from an older build's file under the ID that
//! build gave it, or gathered from its parts' files), and the samples
//! decided since, rewritten every [`KEEP_EVERY`] while samples finish and
//! on a stop. The file's format is [`super::resolve_progress`]'s; what is
//! said to the user about it is the caller's.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{
    Decided, Deferred, ResolveId, ResolveProgress, Searched, UndecidedSample, read_progress, read_progress_of,
    write_progress,
};
use crate::formats::atomic::{FileLock, LockError, lock_writer, try_lock};
use crate::formats::framed::FrameError;

/// How often a resolve's progress file is rewritten while samples finish.
pub const KEEP_EVERY: Duration = Duration::from_secs(10);

/// Why a resolve's progress could not be taken or kept.
#[derive(Debug, thiserror::Error)]
pub enum KeeperError {
    /// Another process runs this resolve, or the lock could not be taken.
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("cannot create {path}: {error}")]
    CreateDir { path: PathBuf, error: std::io::Error },
    /// The progress file (or an older build's) is damaged, of another
    /// resolve, or lists samples the document does not.
    #[error("{0}; move it aside to decide every sample again")]
    Unreadable(FrameError),
    #[error(transparent)]
    Write(FrameError),
    #[error("cannot remove {path}: {error}")]
    Remove { path: PathBuf, error: std::io::Error },
    /// A file given to gather is missing.
    #[error("{0}: no such file")]
    GatherMissing(PathBuf),
    /// A file given to gather is damaged or of another resolve.
    #[error("{0}")]
    GatherUnreadable(FrameError),
    /// A file given to gather gives a sample another verdict than one
    /// already held: the searches are deterministic, so the parts were
    /// run by other builds or census layers, or it is a defect.
    #[error(
        "{file}: sample {index} of layer {discs} has another outcome there than in the files before it, \
         under the same settings: were the parts run by builds of other commits, or with other census layers? If \
         not, it is a defect, please report it"
    )]
    GatherConflict { file: PathBuf, discs: u32, index: u64 },
}

/// What [`ResolveKeeper::open`] found beside the keeper.
#[derive(Debug)]
pub struct Opened {
    pub keeper: ResolveKeeper,
    /// The file an older build kept under the ID it gave this resolve,
    /// taken and removed (its samples are now in the keeper's file).
    pub took_older: Option<PathBuf>,
    /// Where nothing of this resolve was found: the names of other
    /// resolves' progress files in the directory (most likely a resolve
    /// meant to be resumed, by another build or with other settings).
    pub others: Vec<String>,
}

/// A resolve's progress kept in its output directory, under its lock.
#[derive(Debug)]
pub struct ResolveKeeper {
    path: PathBuf,
    _lock: FileLock,
    /// What earlier runs decided (and what was gathered).
    before: Vec<Decided>,
    /// What an earlier run's first round left for the second.
    waiting: Vec<Deferred>,
    /// What is recorded, and whether samples were added since the last
    /// write.
    state: Mutex<(ResolveProgress, bool)>,
}

impl ResolveKeeper {
    /// Takes the lock of resolve `id` in `dir` (created if need be),
    /// removes what a kill in the middle of a write of its file left, and
    /// reads what an earlier run kept, checked against the samples
    /// `listed` (under `older`, an older build's ID of the same resolve,
    /// if there is nothing under `id`).
    pub fn open(
        dir: &Path,
        id: ResolveId,
        older: Option<ResolveId>,
        listed: &[UndecidedSample],
    ) -> Result<Opened, KeeperError> {
        let path = id.path_in(dir);
        std::fs::create_dir_all(dir).map_err(|error| KeeperError::CreateDir { path: dir.to_path_buf(), error })?;
        let lock = lock_writer(&path, &id.lock_in(dir), "resolve")?;
        let mut found = read_progress(&path, id, listed).map_err(KeeperError::Unreadable)?;
        // the file an older build kept under the ID it gave this resolve:
        // taken (under its lock, so not while that build still runs),
        // written under this ID, then removed
        let mut took_older = None;
        if let Some(old) = older.filter(|_| found.is_none())
            && old.path_in(dir).exists()
        {
            let old_path = old.path_in(dir);
            let _old_lock = try_lock(&old.lock_in(dir), &old_path, "resolve")?;
            if let Some(p) = read_progress_of(&old_path, id, Some(old), listed).map_err(KeeperError::Unreadable)? {
                write_progress(&path, &p).map_err(KeeperError::Write)?;
                std::fs::remove_file(&old_path)
                    .map_err(|error| KeeperError::Remove { path: old_path.clone(), error })?;
                took_older = Some(old_path);
                found = Some(p);
            }
        }
        let (before, waiting) = found.map_or((Vec::new(), Vec::new()), |p| (p.done, p.deferred));
        let others = if before.is_empty() && waiting.is_empty() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let own = name.trim_end_matches(".progress");
            let mut others: Vec<String> = std::fs::read_dir(dir)
                .map(|entries| {
                    entries
                        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                        .filter(|n| n.starts_with("resolve-") && n.ends_with(".progress"))
                        // this resolve's own parts' copies are not another's
                        .filter(|n| !n.starts_with(own))
                        .collect()
                })
                .unwrap_or_default();
            others.sort();
            others
        } else {
            Vec::new()
        };
        let progress = ResolveProgress { id, done: before.clone(), deferred: waiting.clone() };
        let keeper = ResolveKeeper { path, _lock: lock, before, waiting, state: Mutex::new((progress, false)) };
        Ok(Opened { keeper, took_older, others })
    }

    /// The progress file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What earlier runs decided (and what was gathered), not to be
    /// searched again.
    pub fn before(&self) -> &[Decided] {
        &self.before
    }

    /// What an earlier run's first round left for the second.
    pub fn waiting(&self) -> &[Deferred] {
        &self.waiting
    }

    /// Takes the samples the progress files `files` of this resolve's
    /// parts decided, and writes them into this one's at once; returns
    /// how many samples were new. Refused when a file is
    /// missing, damaged, of another resolve, or gives a sample another
    /// verdict than one already held.
    pub fn gather(
        &mut self,
        files: &[PathBuf],
        id: ResolveId,
        older: Option<ResolveId>,
        listed: &[UndecidedSample],
    ) -> Result<usize, KeeperError> {
        if files.is_empty() {
            return Ok(0);
        }
        let mut held: HashMap<(u32, u64), Decided> = self.before.iter().map(|d| ((d.discs, d.index), *d)).collect();
        // built apart and taken only once written: a refused gather
        // leaves the keeper and its file as they were
        let mut before = self.before.clone();
        let mut waiting = self.waiting.clone();
        for f in files {
            let p = read_progress_of(f, id, older, listed)
                .map_err(KeeperError::GatherUnreadable)?
                .ok_or_else(|| KeeperError::GatherMissing(f.clone()))?;
            for d in p.done {
                match held.get(&(d.discs, d.index)) {
                    Some(old) if *old == d => {}
                    Some(_) => {
                        return Err(KeeperError::GatherConflict { file: f.clone(), discs: d.discs, index: d.index });
                    }
                    None => {
                        held.insert((d.discs, d.index), d);
                        before.push(d);
                    }
                }
            }
            waiting.extend(p.deferred);
        }
        let added = before.len() - self.before.len();
        // what a part's first round left waits here too, unless another
        // file decided it
        let mut seen = HashSet::new();
        waiting.retain(|d| !held.contains_key(&(d.discs, d.index)) && seen.insert((d.discs, d.index)));
        // kept at once: what was gathered stands even if this run is stopped
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let progress = ResolveProgress { id: state.0.id, done: before.clone(), deferred: waiting.clone() };
        write_progress(&self.path, &progress).map_err(KeeperError::Write)?;
        state.0 = progress;
        (self.before, self.waiting) = (before, waiting);
        Ok(added)
    }

    /// Records a sample searched ([`ResolveKeeper::keep_writing`] writes
    /// it): decided at the resolve's limits (no longer waiting for a
    /// second round, if it was), or left by the first round.
    pub fn add(&self, searched: Searched) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match searched {
            Searched::Decided(d) => {
                s.0.deferred.retain(|w| (w.discs, w.index) != (d.discs, d.index));
                s.0.done.push(d);
            }
            Searched::Deferred(d) => s.0.deferred.push(d),
        }
        s.1 = true;
    }

    /// Until `done`, writes the file every [`KEEP_EVERY`] when samples
    /// were added since the last write. A failed write goes to `failed`
    /// (once: the resolve goes on, its document is written at the end
    /// regardless).
    pub fn keep_writing(&self, done: &AtomicBool, failed: impl FnOnce(FrameError)) {
        let mut last = Instant::now();
        let mut failed = Some(failed);
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if last.elapsed() < KEEP_EVERY {
                continue;
            }
            last = Instant::now();
            let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !s.1 {
                continue;
            }
            s.1 = false;
            if let Err(e) = write_progress(&self.path, &s.0)
                && let Some(f) = failed.take()
            {
                f(e);
            }
        }
    }

    /// Writes what is recorded; returns how many samples it holds.
    pub fn flush(&self) -> Result<usize, FrameError> {
        self.write_to(&self.path)
    }

    /// Writes what is recorded into `path`; returns how many samples it
    /// holds.
    pub fn write_to(&self, path: &Path) -> Result<usize, FrameError> {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        write_progress(path, &s.0)?;
        Ok(s.0.done.len())
    }

    /// Writes what is recorded into part `k` of `n`'s copy beside the
    /// progress file (`resolve-ID.part-K-of-N.progress`, a name of its
    /// own so that copying the parts' files together replaces none of
    /// them); returns the copy's path and how many samples it holds.
    pub fn write_part_copy(&self, k: u64, n: u64) -> Result<(PathBuf, usize), FrameError> {
        let copy = self.path.with_extension(format!("part-{k}-of-{n}.progress"));
        let kept = self.write_to(&copy)?;
        Ok((copy, kept))
    }

    /// The resolved document is written: the progress file, no longer
    /// needed, is removed (still under the lock, so that a second run of
    /// the same resolve never resumes from a file about to go), then the
    /// lock is released. A file already gone is no error.
    pub fn finish(self) -> std::io::Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Tally;

    fn listed() -> Vec<UndecidedSample> {
        (0..4).map(|index| UndecidedSample { discs: 50, index, position: String::new(), untried: false }).collect()
    }

    fn decided(index: u64) -> Decided {
        let tally = Tally { samples: 1, joined: 1, unreachable: 1, ..Tally::default() };
        Decided { discs: 50, index, tally, terminal: false }
    }

    fn waiting(i: u64) -> Deferred {
        Deferred { discs: 50, index: i, exact_conflicts: 300_000 }
    }

    /// What a keeper records, a reopened one takes; a second keeper of
    /// the same resolve is refused while the first lives; gathering takes
    /// the parts' samples, drops what they decided from the waiting ones,
    /// and refuses a part that contradicts a verdict held.
    #[test]
    fn keeps_resumes_locks_and_gathers() {
        let dir = tempfile::tempdir().unwrap();
        let (id, listed) = (ResolveId(7), listed());
        let keeper = ResolveKeeper::open(dir.path(), id, None, &listed).unwrap().keeper;
        assert!(matches!(
            ResolveKeeper::open(dir.path(), id, None, &listed),
            Err(KeeperError::Lock(LockError::Busy { .. }))
        ));
        keeper.add(Searched::Deferred(waiting(1)));
        keeper.add(Searched::Deferred(waiting(2)));
        keeper.add(Searched::Decided(decided(1)));
        assert_eq!(keeper.flush().unwrap(), 1);
        let p = read_progress(&id.path_in(dir.path()), id, &listed).unwrap().unwrap();
        assert_eq!((p.done, p.deferred), (vec![decided(1)], vec![waiting(2)]));
        drop(keeper);

        let opened = ResolveKeeper::open(dir.path(), id, None, &listed).unwrap();
        assert!(opened.took_older.is_none() && opened.others.is_empty());
        let mut keeper = opened.keeper;
        assert_eq!((keeper.before(), keeper.waiting()), (&[decided(1)][..], &[waiting(2)][..]));
        let parts = [dir.path().join("a.progress"), dir.path().join("b.progress")];
        write_progress(&parts[0], &ResolveProgress { id, done: vec![decided(2)], deferred: Vec::new() }).unwrap();
        write_progress(&parts[1], &ResolveProgress { id, done: Vec::new(), deferred: vec![waiting(3), waiting(2)] })
            .unwrap();
        assert_eq!(keeper.gather(&parts, id, None, &listed).unwrap(), 1);
        assert_eq!((keeper.before(), keeper.waiting()), (&[decided(1), decided(2)][..], &[waiting(3)][..]));
        let p = read_progress(&id.path_in(dir.path()), id, &listed).unwrap().unwrap();
        assert_eq!((p.done, p.deferred), (vec![decided(1), decided(2)], vec![waiting(3)]));

        let mut other = decided(2);
        other.tally.unreachable = 0;
        other.tally.undecided = 1;
        write_progress(&parts[0], &ResolveProgress { id, done: vec![other], deferred: Vec::new() }).unwrap();
        assert!(matches!(
            keeper.gather(&parts, id, None, &listed),
            Err(KeeperError::GatherConflict { discs: 50, index: 2, .. })
        ));
        // a refused gather leaves the keeper and its file as they were
        assert_eq!((keeper.before(), keeper.waiting()), (&[decided(1), decided(2)][..], &[waiting(3)][..]));
        let p = read_progress(&id.path_in(dir.path()), id, &listed).unwrap().unwrap();
        assert_eq!((p.done, p.deferred), (vec![decided(1), decided(2)], vec![waiting(3)]));
        assert!(matches!(
            keeper.gather(&[dir.path().join("none.progress")], id, None, &listed),
            Err(KeeperError::GatherMissing(_))
        ));
    }

    /// A file an older build kept under its ID for the same resolve is
    /// taken under the new ID and removed; another resolve's file beside
    /// a fresh start is named.
    #[test]
    fn takes_an_older_builds_file_and_names_others() {
        let dir = tempfile::tempdir().unwrap();
        let (id, old, listed) = (ResolveId(7), ResolveId(8), listed());
        write_progress(
            &old.path_in(dir.path()),
            &ResolveProgress { id: old, done: vec![decided(3)], deferred: vec![] },
        )
        .unwrap();
        let opened = ResolveKeeper::open(dir.path(), id, Some(old), &listed).unwrap();
        assert_eq!(opened.took_older.as_deref(), Some(old.path_in(dir.path()).as_path()));
        assert_eq!(opened.keeper.before(), &[decided(3)][..]);
        assert!(!old.path_in(dir.path()).exists());
        let p = read_progress(&id.path_in(dir.path()), id, &listed).unwrap().unwrap();
        assert_eq!(p.done, vec![decided(3)]);
        opened.keeper.finish().unwrap();
        assert!(!id.path_in(dir.path()).exists() && !id.lock_in(dir.path()).exists());

        let fresh = ResolveKeeper::open(dir.path(), ResolveId(9), None, &listed).unwrap();
        assert!(fresh.others.is_empty());
        write_progress(&id.path_in(dir.path()), &ResolveProgress { id, done: vec![decided(1)], deferred: vec![] })
            .unwrap();
        drop(fresh);
        let fresh = ResolveKeeper::open(dir.path(), ResolveId(9), None, &listed).unwrap();
        assert_eq!(fresh.others, vec![format!("resolve-{:016x}.progress", 7)]);
    }
}
