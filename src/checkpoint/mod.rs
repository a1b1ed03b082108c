//! Checkpoint files of the DFS census: everything a run needs to continue
//! exactly where it stopped. The format is specified byte by byte in
//! `docs/checkpoint-format.md`; this module implements that document.
//!
//! Writing streams the cache keys and the walker stacks through a buffer
//! into a temporary file that replaces the old checkpoint only once it is
//! complete and synced ([`crate::atomic`]). Reading checks the magic, the
//! version, the section order and lengths, and an xxh3 checksum per
//! section, and streams the keys to a callback.

mod format;

pub use format::{
    CheckpointError, FORMAT_VERSION, Header, MAGIC, SectionCheck, Verified, key_width, read_checkpoint, read_header,
    verify, write_checkpoint,
};
