//! Atomic file replacement: a temporary file in the same directory, written
//! through a buffer, fsynced, renamed over the target, and the directory
//! fsynced. A reader (or a crash) sees either the old file or the complete
//! new one; a failing write leaves the old file untouched and removes the
//! temporary. And the advisory lock that keeps a second process from
//! writing a run (a work directory or a checkpoint) that one is writing.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Asks the kernel to start writing bytes `offset..offset + len` of `file`
/// to the disk now, without waiting for them (Linux `sync_file_range`
/// with `SYNC_FILE_RANGE_WRITE`; nothing elsewhere). Durability still
/// comes from the `fsync` that follows; this only spreads the writing over
/// the time the data is produced, so that the `fsync` finds little left.
/// On a machine with much memory the kernel would otherwise hold gigabytes
/// of a layer's spilled runs dirty until that `fsync`, and every thread
/// would wait for the disk at once. Best effort: an error is ignored (the
/// `fsync` reports any real one).
pub fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else { return };
        // SAFETY: a plain system call on an open descriptor; it reads no
        // memory of ours.
        unsafe { libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// Bytes written to a [`Writeback`] file between two requests to start
/// writing them back.
const WRITEBACK_EVERY: u64 = 8 << 20;

/// A file that starts the write-back of what it is given every
/// [`WRITEBACK_EVERY`] bytes ([`start_writeback`]): what a large atomic
/// write goes through, so that its closing `fsync` is short.
#[derive(Debug)]
pub struct Writeback {
    file: File,
    /// The position of the next write.
    pos: u64,
    /// Where the bytes not yet handed to the write-back begin.
    pending: u64,
}

impl Writeback {
    /// `file`, written from its start.
    pub fn new(file: File) -> Self {
        Writeback { file, pos: 0, pending: 0 }
    }

    /// The file.
    pub fn into_inner(self) -> File {
        self.file
    }
}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.pos += n as u64;
        if self.pos >= self.pending + WRITEBACK_EVERY {
            start_writeback(&self.file, self.pending, self.pos - self.pending);
            self.pending = self.pos;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for Writeback {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.pos = self.file.seek(to)?;
        // a write behind the last request (a length patched in place) is
        // left to the fsync
        self.pending = self.pending.max(self.pos);
        Ok(self.pos)
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Replaces `path` with what `fill` writes, atomically, the write-back
/// started as it goes ([`Writeback`]). A missing parent directory is
/// created first.
pub fn atomic_write_with<F>(path: &Path, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut BufWriter<Writeback>) -> io::Result<()>,
{
    via_temporary(path, fill, |tmp, path| fs::rename(tmp, path))
}

/// The name of the temporary that an atomic write of the file `name`
/// goes through: `.<name>.tmp-<pid>` ([`temporary_of`] reads it back, so
/// [`remove_temporaries`] finds one a killed process left).
fn temporary_name(name: &str) -> String {
    format!(".{name}.tmp-{}", std::process::id())
}

/// Writes what `fill` writes to the temporary of `path` in its directory
/// (created when missing), syncs it, and has `place` put it at `path`
/// (`place` leaves no temporary behind when it succeeds), then syncs the
/// directory. The temporary is removed on an error, and when `fill`
/// panics (a bug: a file as large as the target is not left behind).
fn via_temporary<F>(path: &Path, fill: F, place: impl FnOnce(&Path, &Path) -> io::Result<()>) -> io::Result<()>
where
    F: FnOnce(&mut BufWriter<Writeback>) -> io::Result<()>,
{
    let dir = parent_dir(path);
    if !dir.is_dir() {
        fs::create_dir_all(&dir)?;
        File::open(parent_dir(&dir))?.sync_all()?;
    }
    let name = path.file_name().ok_or_else(|| io::Error::other("path has no file name"))?;
    let tmp = dir.join(temporary_name(&name.to_string_lossy()));
    /// The temporary, removed on drop unless it was placed.
    struct Unfinished<'a>(&'a Path, bool);
    impl Drop for Unfinished<'_> {
        fn drop(&mut self) {
            if !self.1 {
                let _ = fs::remove_file(self.0);
            }
        }
    }
    let mut unfinished = Unfinished(&tmp, false);
    let f = OpenOptions::new().write(true).create(true).truncate(true).open(&tmp)?;
    let mut w = BufWriter::with_capacity(1 << 20, Writeback::new(f));
    fill(&mut w)?;
    let f = w.into_inner().map_err(|e| e.into_error())?.into_inner();
    f.sync_all()?;
    drop(f);
    place(&tmp, path)?;
    unfinished.1 = true;
    File::open(&dir)?.sync_all()
}

/// Replaces `path` with `bytes`, atomically.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_with(path, |w| w.write_all(bytes))
}

/// Creates `path` holding `bytes`, atomically, and only if it does not
/// exist: the bytes go to a temporary first, which is then hard-linked to
/// `path` (a link never replaces a file, so of two processes creating the
/// same file one gets `AlreadyExists`, and a file made meanwhile is kept).
/// The temporary is the one [`atomic_write`] uses.
pub fn atomic_create(path: &Path, bytes: &[u8]) -> io::Result<()> {
    via_temporary(
        path,
        |w| w.write_all(bytes),
        |tmp, path| {
            // the temporary is removed whether or not the link was made
            let linked = fs::hard_link(tmp, path);
            let removed = fs::remove_file(tmp);
            linked.and(removed)
        },
    )
}

/// Checks that files can be created in the directory of `path`, by
/// writing and removing a probe file there; when the directory does not
/// exist yet, in the nearest existing ancestor (nothing is created), which
/// must be a directory.
pub fn check_writable_dir(path: &Path) -> io::Result<()> {
    let mut dir = parent_dir(path);
    while !dir.exists() {
        dir = parent_dir(&dir);
    }
    if !dir.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotADirectory, format!("{} is not a directory", dir.display())));
    }
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    let written = File::create(&probe).and_then(|mut f| f.write_all(b"probe"));
    // removed also when the write failed (a full disk): created, it stays
    // otherwise
    let removed = fs::remove_file(&probe);
    written?;
    removed
}

/// The file whose atomic write `file` (a file name) is the temporary of
/// ([`atomic_write_with`]: `.<target>.tmp-<pid>`), if it is one.
pub fn temporary_of(file: &str) -> Option<&str> {
    let (target, pid) = file.strip_prefix('.')?.rsplit_once(".tmp-")?;
    (!target.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(target)
}

/// Removes from `dir` the temporaries of atomic writes of the files
/// `ours` names that processes killed while they wrote left behind;
/// returns how many. Only for a caller that holds the lock under which
/// every such write is made, before it writes any: then none of them can
/// still be written. Each is as large as the file it was to replace.
pub fn remove_temporaries(dir: &Path, ours: impl Fn(&str) -> bool) -> usize {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| temporary_of(&e.file_name().to_string_lossy()).is_some_and(&ours))
        .filter(|e| fs::remove_file(e.path()).is_ok())
        .count()
}

/// An advisory lock (`flock`) on a file, held while this value lives; the
/// operating system releases it when the process ends, however it ends.
/// A lock file of [`try_lock`] is removed when the lock is dropped (a kill
/// leaves it, empty, for the next holder).
#[derive(Debug)]
pub struct FileLock {
    _file: File,
    /// The lock file, removed (still locked) on drop.
    remove: Option<PathBuf>,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // unlinked while held: a process that opened it and locks it after
        // this one sees that it is no longer the file at the path, and
        // takes the one there ([`try_lock`])
        if let Some(p) = &self.remove {
            let _ = fs::remove_file(p);
        }
    }
}

/// Whether `file` is (still) the file at `path`.
#[cfg(unix)]
fn is_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn is_at(_: &File, _: &Path) -> bool {
    true
}

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error("{path}: another othello-census process is running this {what}; wait for it to finish or stop it first")]
    Busy { path: PathBuf, what: &'static str },
    #[error("cannot lock {path}: {error}")]
    Io { path: PathBuf, error: io::Error },
}

/// Takes the lock of `lock_file` (created if missing) for the run at
/// `run` (named in the error, a `what`: `work directory`, `checkpoint`),
/// without waiting.
/// The lock file is removed when the lock is dropped.
pub fn try_lock(lock_file: &Path, run: &Path, what: &'static str) -> Result<FileLock, LockError> {
    let io = |error| LockError::Io { path: lock_file.to_path_buf(), error };
    loop {
        let file = OpenOptions::new().write(true).create(true).truncate(false).open(lock_file).map_err(io)?;
        match file.try_lock() {
            // the holder before may have removed it between the open and
            // the lock: then lock the file at the path now
            Ok(()) if !is_at(&file, lock_file) => continue,
            Ok(()) => return Ok(FileLock { _file: file, remove: Some(lock_file.to_path_buf()) }),
            Err(fs::TryLockError::WouldBlock) => return Err(LockError::Busy { path: run.to_path_buf(), what }),
            Err(fs::TryLockError::Error(e)) => return Err(io(e)),
        }
    }
}

/// Takes the lock `lock_file` under which the file `path` is written
/// (as [`try_lock`], `what` naming the run), then removes from the
/// file's directory the temporaries that writes of it by killed
/// processes left: only the lock's holder writes the file, so none of
/// them can still be written.
pub fn lock_writer(path: &Path, lock_file: &Path, what: &'static str) -> Result<FileLock, LockError> {
    let lock = try_lock(lock_file, path, what)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    remove_temporaries(&parent_dir(path), |t| t == name);
    Ok(lock)
}

/// Takes the lock of directory `dir` itself (`flock` on the directory,
/// so that no lock file is left in it), waiting while another process
/// holds it; `waiting` is called once first when it must wait. For a
/// short read-modify-replace of files in `dir` that every writer of them
/// does under this lock: the second writer then reads what the first
/// wrote instead of replacing it with what it read before.
pub fn lock_dir_wait(dir: &Path, waiting: impl FnOnce()) -> io::Result<FileLock> {
    let file = File::open(dir)?;
    match file.try_lock() {
        Ok(()) => return Ok(FileLock { _file: file, remove: None }),
        Err(fs::TryLockError::WouldBlock) => waiting(),
        Err(fs::TryLockError::Error(e)) => return Err(e),
    }
    file.lock()?;
    Ok(FileLock { _file: file, remove: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_but_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("doc.json");
        atomic_create(&p, b"one").unwrap();
        let e = atomic_create(&p, b"two").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&p).unwrap(), b"one");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("doc.json")], "no temporary left");
    }

    /// The temporary both writes go through is one a killed process's
    /// cleanup finds ([`remove_temporaries`]).
    #[test]
    fn the_temporary_is_found_by_the_cleanup() {
        let tmp = temporary_name("doc.json");
        assert_eq!(temporary_of(&tmp), Some("doc.json"));
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(&tmp), b"left by a kill").unwrap();
        fs::write(dir.path().join("doc.json"), b"kept").unwrap();
        assert_eq!(remove_temporaries(dir.path(), |t| t == "doc.json"), 1);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("doc.json")]);
    }

    #[test]
    fn replaces_or_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        // a write that fails half way (a full disk, say) leaves the old file
        let err = atomic_write_with(&p, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::new(io::ErrorKind::StorageFull, "no space left on device"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "temporary removed");
        atomic_write(&dir.path().join("missing/x"), b"made").unwrap();
        assert_eq!(fs::read(dir.path().join("missing/x")).unwrap(), b"made");
        // probing never creates a directory
        check_writable_dir(&dir.path().join("new/deeper/file")).unwrap();
        assert!(!dir.path().join("new").exists());
        assert!(check_writable_dir(&dir.path().join("a.bin/under")).is_err(), "a file is no directory");
    }

    /// A large write through [`Writeback`] (write-back started every 8
    /// MiB), with a length patched in place behind it as a streamed
    /// section does, reads back byte for byte.
    #[test]
    fn writes_through_writeback_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.bin");
        let body: Vec<u8> = (0..(20u32 << 20)).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
        atomic_write_with(&p, |w| {
            w.write_all(&[0; 8])?;
            w.write_all(&body)?;
            let end = w.stream_position()?;
            w.seek(SeekFrom::Start(0))?;
            w.write_all(&(body.len() as u64).to_le_bytes())?;
            w.seek(SeekFrom::Start(end))?;
            w.write_all(b"end")
        })
        .unwrap();
        let back = fs::read(&p).unwrap();
        assert_eq!(back.len(), 8 + body.len() + 3);
        assert_eq!(back[..8], (body.len() as u64).to_le_bytes());
        assert!(back[8..8 + body.len()] == body[..] && back.ends_with(b"end"));
    }

    #[test]
    fn a_lock_is_held_once_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let (file, run) = (dir.path().join(".run.lock"), dir.path().join("run"));
        let held = try_lock(&file, &run, "checkpoint").unwrap();
        // a second open file description is refused while the first holds it
        let e = try_lock(&file, &run, "checkpoint").unwrap_err();
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        assert!(e.to_string().contains("another othello-census process is running this checkpoint"));
        drop(held);
        assert!(!file.exists(), "the lock file is removed with the lock");
        try_lock(&file, &run, "checkpoint").unwrap();
    }

    #[test]
    fn temporaries_are_told_apart_and_removed() {
        assert_eq!(temporary_of(".a.ckpt.tmp-123"), Some("a.ckpt"));
        assert_eq!(temporary_of("a.ckpt.tmp-1"), None);
        assert_eq!(temporary_of(".a.ckpt.tmp-"), None);
        assert_eq!(temporary_of(".a.ckpt.tmp-1x"), None);
        let dir = tempfile::tempdir().unwrap();
        for f in [".a.ckpt.tmp-1", ".a.ckpt.tmp-2", ".b.ckpt.tmp-3", "a.ckpt", ".a.ckpt.lock"] {
            fs::write(dir.path().join(f), b"x").unwrap();
        }
        assert_eq!(remove_temporaries(dir.path(), |t| t == "a.ckpt"), 2);
        assert_eq!(remove_temporaries(dir.path(), |_| true), 1);
        let mut left: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        left.sort();
        assert_eq!(left, [".a.ckpt.lock", "a.ckpt"]);
    }
}
