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
    let dir = parent_dir(path);
    if !dir.is_dir() {
        fs::create_dir_all(&dir)?;
        File::open(parent_dir(&dir))?.sync_all()?;
    }
    let name = path.file_name().ok_or_else(|| io::Error::other("path has no file name"))?;
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
    /// Removes the temporary unless it was renamed: on an error, and also
    /// when `fill` panics (a bug), so that a file as large as the target
    /// is not left behind.
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
    fs::rename(&tmp, path)?;
    unfinished.1 = true;
    File::open(&dir)?.sync_all()
}

/// Replaces `path` with `bytes`, atomically.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_with(path, |w| w.write_all(bytes))
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
    File::create(&probe)?.write_all(b"probe")?;
    fs::remove_file(&probe)
}

/// An advisory lock (`flock`) on a file, held while this value lives; the
/// operating system releases it when the process ends, however it ends.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
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
pub fn try_lock(lock_file: &Path, run: &Path, what: &'static str) -> Result<FileLock, LockError> {
    let io = |error| LockError::Io { path: lock_file.to_path_buf(), error };
    let file = File::create(lock_file).map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(FileLock { _file: file }),
        Err(fs::TryLockError::WouldBlock) => Err(LockError::Busy { path: run.to_path_buf(), what }),
        Err(fs::TryLockError::Error(e)) => Err(io(e)),
    }
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
        Ok(()) => return Ok(FileLock { _file: file }),
        Err(fs::TryLockError::WouldBlock) => waiting(),
        Err(fs::TryLockError::Error(e)) => return Err(e),
    }
    file.lock()?;
    Ok(FileLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        try_lock(&file, &run, "checkpoint").unwrap();
    }
}
