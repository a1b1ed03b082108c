//! Checkpoint files of the DFS census: everything a run needs to continue
//! exactly where it stopped. The format is specified byte by byte in
//! `docs/checkpoint-format.md`; this module implements that document.
//!
//! Writing streams the cache keys and the walker stacks through a buffer
//! into a temporary file that replaces the old checkpoint only once it is
//! complete and synced ([`crate::formats::atomic`]). Reading checks the magic, the
//! version, the section order and lengths, and an xxh3 checksum per
//! section, and streams the keys to a callback.

mod format;

pub use format::{
    CheckpointError, FORMAT_VERSION, Header, MAGIC, SectionCheck, Verified, key_width, read_checkpoint, read_header,
    verify, write_checkpoint,
};

/// Locks the checkpoint at `path` for this process, through a hidden
/// sidecar file next to it (`.<name>.lock`, removed with the lock), when
/// its directory exists (a default path whose directory does not exist
/// yet is unique to this process): no second process writes the same
/// checkpoint. The temporaries of its saves that killed processes left
/// (`.<name>.tmp-PID`, each as large as a checkpoint) are removed then.
pub fn lock(
    path: &std::path::Path,
) -> Result<Option<crate::formats::atomic::FileLock>, crate::formats::atomic::LockError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        return Ok(None);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    crate::formats::atomic::lock_writer(path, &dir.join(format!(".{name}.lock")), "checkpoint").map(Some)
}
