//! The layout of a layered run's work directory, owned by one type:
//!
//! ```text
//! DIR/run.manifest            what is complete (replaced atomically)
//! DIR/run.lock                held (flock) by the process running the run (removed when it ends)
//! DIR/layer-KKK/part-JJJJ.lyr partition JJJJ of layer KKK
//! DIR/buckets-KKK/part-JJJJ.bkt  sorted runs of the children of layer KKK-1
//! ```

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::LayersError;

/// The name of an expansion's progress file in a bucket directory
/// ([`super::progress`]).
pub const PROGRESS_FILE: &str = "expand.progress";

/// The layer and bucket directories a sweep keeps ([`WorkDir::sweep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keep {
    /// The layer whose parts are kept.
    pub layer: Option<u32>,
    /// The layer whose buckets are kept.
    pub buckets: Option<u32>,
}

/// A layered run's work directory.
#[derive(Clone, Debug)]
pub struct WorkDir {
    root: PathBuf,
}

/// The lock on a work directory: held while this value lives.
#[derive(Debug)]
pub struct RunLock {
    _lock: crate::formats::atomic::FileLock,
}

impl WorkDir {
    /// The work directory at `root` (nothing is created).
    pub fn new(root: impl Into<PathBuf>) -> WorkDir {
        WorkDir { root: root.into() }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The manifest.
    pub fn manifest(&self) -> PathBuf {
        self.root.join("run.manifest")
    }

    /// The directory of the parts of layer `k`.
    pub fn layer_dir(&self, k: u32) -> PathBuf {
        self.root.join(format!("layer-{k:03}"))
    }

    /// Part `j` of layer `k`.
    pub fn part(&self, k: u32, j: u32) -> PathBuf {
        self.layer_dir(k).join(format!("part-{j:04}.lyr"))
    }

    /// The directory of the buckets that become layer `k`.
    pub fn bucket_dir(&self, k: u32) -> PathBuf {
        self.root.join(format!("buckets-{k:03}"))
    }

    /// Bucket `j` of layer `k`.
    pub fn bucket(&self, k: u32, j: u32) -> PathBuf {
        self.bucket_dir(k).join(format!("part-{j:04}.bkt"))
    }

    /// The directory of rank `rank` of a run made by `ranks` MPI ranks:
    /// the parts and buckets of the partitions that rank owns.
    pub fn for_rank(&self, rank: u32, ranks: u32) -> WorkDir {
        WorkDir::new(self.root.join(format!("rank-{rank:04}-of-{ranks:04}")))
    }

    /// The number of ranks that made this run, if MPI ranks made it (it
    /// holds `rank-RRRR-of-NNNN` directories).
    pub fn ranks(&self) -> Option<u32> {
        fs::read_dir(&self.root).ok()?.flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("rank-")?.split_once("-of-")?.1.parse().ok()
        })
    }

    /// Refuses a directory that holds anything but what a run writes (a
    /// new run starts only in a new or empty directory, or one left by a
    /// start of the same run that stopped before its first manifest).
    pub fn check_fresh(&self) -> Result<(), LayersError> {
        let foreign = foreign_entries(&self.root);
        match foreign.first() {
            None => Ok(()),
            Some(first) => Err(LayersError::WorkDir {
                path: self.root.clone(),
                detail: format!(
                    "not empty and not a layered run (it holds {first}{}); give a new or empty work directory",
                    if foreign.len() > 1 { format!(" and {} more", foreign.len() - 1) } else { String::new() }
                ),
            }),
        }
    }

    /// Whether `path` looks like a work directory (it holds a manifest).
    pub fn is_work_dir(path: &Path) -> bool {
        path.is_dir() && WorkDir::new(path).manifest().is_file()
    }

    /// Takes the run's lock, creating the directory if needed; a second
    /// process gets an error naming the directory and changes nothing.
    /// Then removes the temporaries of atomic writes (a manifest, parts)
    /// that killed processes left in it and in its layer and bucket
    /// directories: each as large as its file, they would take the disk
    /// the run plans with and count in its size.
    pub fn lock(&self) -> Result<RunLock, LayersError> {
        create_dir_synced(&self.root)?;
        match crate::formats::atomic::try_lock(&self.root.join("run.lock"), &self.root, "work directory") {
            Ok(lock) => {
                use crate::formats::atomic::remove_temporaries;
                // only the temporaries of files a run writes, never a
                // user's file that looks like one
                remove_temporaries(&self.root, |t| t == "run.manifest");
                for e in fs::read_dir(&self.root).into_iter().flatten().flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    // (a rank's directory is its own to clean)
                    if name.starts_with("layer-") || name.starts_with("buckets-") {
                        remove_temporaries(&e.path(), own_file);
                    }
                }
                Ok(RunLock { _lock: lock })
            }
            // (the error names the directory; the message says it once)
            Err(e @ crate::formats::atomic::LockError::Busy { .. }) => {
                Err(LayersError::Locked(format!("{e} (run.lock is held)")))
            }
            Err(crate::formats::atomic::LockError::Io { path, error }) => Err(io_err(&path, error)),
        }
    }

    /// Whether another process holds the run's lock (is running it now),
    /// found without taking the lock for longer than the test and without
    /// creating run.lock where there is none.
    pub fn is_running(&self) -> bool {
        match fs::File::open(self.root.join("run.lock")) {
            // dropped at once: the test's lock, if taken, is released
            Ok(f) => matches!(f.try_lock_shared(), Err(fs::TryLockError::WouldBlock)),
            Err(_) => false,
        }
    }

    /// Creates the directory of layer `k` (durably).
    pub fn create_layer_dir(&self, k: u32) -> Result<PathBuf, LayersError> {
        let d = self.layer_dir(k);
        create_dir_synced(&d)?;
        Ok(d)
    }

    /// Creates an empty bucket directory for layer `k` (durably), removing
    /// any left from an interrupted expansion.
    pub fn fresh_bucket_dir(&self, k: u32) -> Result<PathBuf, LayersError> {
        let d = self.bucket_dir(k);
        remove_run_dir(&d);
        create_dir_synced(&d)?;
        Ok(d)
    }

    /// Syncs a directory, so that the files created in it survive a crash.
    pub fn sync_dir(dir: &Path) -> Result<(), LayersError> {
        File::open(dir).and_then(|f| f.sync_all()).map_err(|e| io_err(dir, e))
    }

    /// Removes every layer and bucket directory but those `keep` names
    /// (the manifest says which: [`super::store::Manifest::keep`]).
    pub fn sweep(&self, keep: Keep) {
        let Keep { layer: keep_layer, buckets: keep_bucket } = keep;
        if let Ok(entries) = fs::read_dir(&self.root) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let stale = match (name.strip_prefix("layer-"), name.strip_prefix("buckets-")) {
                    (Some(k), _) => k.parse::<u32>().is_ok_and(|k| Some(k) != keep_layer),
                    (_, Some(k)) => k.parse::<u32>().is_ok_and(|k| Some(k) != keep_bucket),
                    _ => false,
                };
                if stale {
                    remove_run_dir(&e.path());
                }
            }
        }
    }

    /// Bytes of every file below the directory.
    pub fn bytes(&self) -> u64 {
        dir_bytes(&self.root)
    }

    /// Bytes of the parts of layer `k`.
    pub fn layer_bytes(&self, k: u32) -> u64 {
        dir_bytes(&self.layer_dir(k))
    }

    /// Bytes of the buckets of layer `k` (an expansion under way).
    pub fn bucket_bytes(&self, k: u32) -> u64 {
        dir_bytes(&self.bucket_dir(k))
    }
}

/// What in `dir` a run did not write, as paths relative to `dir`: entries
/// not named as a run names them at the top, and files in its layer and
/// bucket directories (and those of its ranks) not named as its own.
fn foreign_entries(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        let dir_name = ["layer-", "buckets-", "rank-"].iter().any(|p| name.starts_with(p));
        if !own_entry(&name) || is_dir != dir_name {
            out.push(name);
        } else if name.starts_with("rank-") {
            out.extend(foreign_entries(&e.path()).into_iter().map(|f| format!("{name}/{f}")));
        } else if is_dir {
            let files = fs::read_dir(e.path()).into_iter().flatten().flatten();
            out.extend(
                files
                    .map(|f| f.file_name().to_string_lossy().into_owned())
                    .filter(|f| !own_file(f))
                    .map(|f| format!("{name}/{f}")),
            );
        }
    }
    out.sort();
    out
}

/// Whether `name` is an entry a run makes at the top of its work directory.
fn own_entry(name: &str) -> bool {
    let numbered =
        |prefix: &str| name.strip_prefix(prefix).is_some_and(|k| k.len() >= 3 && k.bytes().all(|b| b.is_ascii_digit()));
    matches!(name, "run.manifest" | "run.lock")
        || (name.starts_with(".run.manifest.tmp-"))
        || numbered("layer-")
        || numbered("buckets-")
        || name
            .strip_prefix("rank-")
            .and_then(|r| r.split_once("-of-"))
            .is_some_and(|(a, b)| a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()))
}

/// Whether `name` is a file a run writes in a layer or bucket directory:
/// `part-JJJJ.lyr` and `.bkt`, a bucket's staged compactions `.genN` and
/// `.passK` scratch files, an expansion's `expand.progress`, and the
/// temporaries of atomic writes (`.part-JJJJ.lyr.tmp-PID`).
fn own_file(name: &str) -> bool {
    let name = name.strip_prefix('.').map_or(name, |n| n.split_once(".tmp-").map_or(n, |(f, _)| f));
    if name == PROGRESS_FILE {
        return true;
    }
    let numbered = |ext: &str, prefix: &str| {
        ext.strip_prefix(prefix).is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    let Some((stem, ext)) = name.strip_prefix("part-").and_then(|n| n.split_once('.')) else { return false };
    stem.len() >= 4
        && stem.bytes().all(|b| b.is_ascii_digit())
        && (matches!(ext, "lyr" | "bkt") || numbered(ext, "pass") || numbered(ext, "gen"))
}

/// Removes the files a run wrote in a layer or bucket directory, then the
/// directory if that left it empty. Anything else in it (a file a user put
/// there) stays, and so does the directory.
pub(super) fn remove_run_dir(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_file()) && own_file(&e.file_name().to_string_lossy()) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

fn dir_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

pub(super) fn io_err(path: &Path, e: std::io::Error) -> LayersError {
    LayersError::File(crate::formats::framed::FrameError::Io { path: path.to_path_buf(), error: e })
}

/// Creates a directory and its missing parents, then syncs the parent of
/// each directory it created.
fn create_dir_synced(dir: &Path) -> Result<(), LayersError> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dir_synced(parent)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(io_err(dir, e)),
    }
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    WorkDir::sync_dir(parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_runs_own_files_are_removed() {
        for name in [
            "part-0003.lyr",
            "part-0015.bkt",
            "part-0001.gen2",
            "expand.progress",
            "part-0002.pass3",
            ".part-0001.lyr.tmp-42",
        ] {
            assert!(own_file(name), "{name}");
        }
        for name in [
            "keep.txt",
            "README",
            "part-1.lyr",
            "part-0001.txt",
            "part-0001.pass",
            "part-0001.gen",
            ".keep.tmp-1",
            "part-00a1.lyr",
        ] {
            assert!(!own_file(name), "{name}");
        }
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("layer-005");
        fs::create_dir(&d).unwrap();
        fs::write(d.join("part-0000.lyr"), b"x").unwrap();
        fs::write(d.join("keep.txt"), b"mine").unwrap();
        remove_run_dir(&d);
        assert!(!d.join("part-0000.lyr").exists());
        assert_eq!(fs::read(d.join("keep.txt")).unwrap(), b"mine");
        fs::remove_file(d.join("keep.txt")).unwrap();
        remove_run_dir(&d);
        assert!(!d.exists());
    }
}
