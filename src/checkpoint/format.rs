//! Reading and writing the checkpoint format (see `docs/checkpoint-format.md`).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use bincode::{Decode, Encode};
use xxhash_rust::xxh3::Xxh3;

use crate::atomic::atomic_write_with;
use crate::engine::Counts;
use crate::key::dense::dense_bytes;

/// The first eight bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"OTHCKPT\0";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Largest header section accepted (a corrupt length must not allocate).
const MAX_HEADER: u64 = 1 << 24;

const TAG_HEAD: [u8; 4] = *b"HEAD";
const TAG_KEYS: [u8; 4] = *b"KEYS";
const TAG_STACKS: [u8; 4] = *b"STAK";
const TAG_END: [u8; 4] = *b"END.";

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_fixed_int_encoding().with_little_endian()
}

/// Bytes per key in the file for board side `n`: the significant bytes of
/// the dense key (4 on 4x4, 7 on 6x6, 13 on 8x8).
pub fn key_width(n: u32) -> usize {
    dense_bytes(n)
}

/// The HEAD section: configuration and counters of the run.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct Header {
    /// `othello-census <version>` of the writer.
    pub software: String,
    /// Board side: 4, 6 or 8.
    pub size: u32,
    /// Rules variant: `standard`.
    pub rules: String,
    /// Census engine: `dfs`.
    pub engine: String,
    /// Layers counted: 4..=max_discs.
    pub max_discs: u32,
    /// Memory limit of the cache, bytes.
    pub memory_limit: u64,
    /// Worker threads of the run that wrote the file.
    pub threads: u32,
    /// The command line that started the run.
    pub command: String,
    /// When the run first started (Unix seconds).
    pub started_unix: u64,
    /// When this checkpoint was written (Unix seconds).
    pub saved_unix: u64,
    /// Wall time spent so far, over every session of the run, seconds.
    pub elapsed_seconds: f64,
    /// Positions expanded so far.
    pub explored: u64,
    /// Cache hits so far.
    pub repeated: u64,
    /// Counts of the expanded classes by disc count (65 entries, index =
    /// discs; `boards` and `terminal_boards` are zero: they are derived at
    /// the end of the run).
    pub layers: Vec<Counts>,
    /// Number of keys in the KEYS section.
    pub cache_len: u64,
    /// Entries of each stack in the STAK section, in order.
    pub stack_lens: Vec<u64>,
}

/// Why a checkpoint could not be read or written. Every message is one line
/// and names the file.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{0}: not an othello-census checkpoint (bad magic bytes)")]
    NotACheckpoint(PathBuf),
    #[error("{path}: checkpoint format version {found}, this build reads version {FORMAT_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{0}: truncated checkpoint (the file ends early)")]
    Truncated(PathBuf),
    #[error("{path}: checksum mismatch in section {section} (the file is damaged)")]
    Checksum { path: PathBuf, section: &'static str },
    #[error("{path}: corrupt checkpoint: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl CheckpointError {
    fn io(path: &Path, e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            CheckpointError::Truncated(path.to_path_buf())
        } else {
            CheckpointError::Io { path: path.to_path_buf(), source: e }
        }
    }

    fn corrupt(path: &Path, detail: impl Into<String>) -> Self {
        CheckpointError::Corrupt { path: path.to_path_buf(), detail: detail.into() }
    }
}

/// A writer that hashes what passes through it.
struct Hashing<'a, W: Write> {
    inner: &'a mut W,
    hash: Xxh3,
}

impl<W: Write> Hashing<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }
}

fn section<W: Write>(
    w: &mut W,
    tag: [u8; 4],
    len: u64,
    body: impl FnOnce(&mut Hashing<'_, W>) -> io::Result<()>,
) -> io::Result<()> {
    w.write_all(&tag)?;
    w.write_all(&len.to_le_bytes())?;
    let mut h = Hashing { inner: w, hash: Xxh3::new() };
    body(&mut h)?;
    let digest = h.hash.digest();
    w.write_all(&digest.to_le_bytes())
}

/// Writes a checkpoint atomically: `keys` (exactly `header.cache_len` of
/// them) are the cache, `stacks` the positions waiting to be expanded (as
/// dense keys of the positions themselves), one list per stack.
pub fn write_checkpoint(
    path: &Path,
    header: &Header,
    keys: impl Iterator<Item = u128>,
    stacks: &[Vec<u128>],
) -> Result<u64, CheckpointError> {
    let width = key_width(header.size);
    let head = bincode::encode_to_vec(header, bincode_config())
        .map_err(|e| CheckpointError::corrupt(path, format!("cannot encode header: {e}")))?;
    assert_eq!(header.stack_lens, stacks.iter().map(|s| s.len() as u64).collect::<Vec<_>>());
    let mut written = 0u64;
    atomic_write_with(path, |w| {
        w.write_all(&MAGIC)?;
        w.write_all(&FORMAT_VERSION.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        section(w, TAG_HEAD, head.len() as u64, |h| h.put(&head))?;
        section(w, TAG_KEYS, header.cache_len * width as u64, |h| {
            let mut n = 0u64;
            for k in keys {
                h.put(&k.to_le_bytes()[..width])?;
                n += 1;
            }
            if n != header.cache_len {
                return Err(io::Error::other(format!(
                    "cache changed while saving ({n} keys, expected {})",
                    header.cache_len
                )));
            }
            Ok(())
        })?;
        let stack_bytes: u64 = stacks.iter().map(|s| s.len() as u64).sum::<u64>() * width as u64;
        section(w, TAG_STACKS, stack_bytes, |h| {
            for s in stacks {
                for k in s {
                    h.put(&k.to_le_bytes()[..width])?;
                }
            }
            Ok(())
        })?;
        section(w, TAG_END, 0, |_| Ok(()))?;
        written = 16 + 4 * 20 + head.len() as u64 + header.cache_len * width as u64 + stack_bytes;
        Ok(())
    })
    .map_err(|e| CheckpointError::io(path, e))?;
    Ok(written)
}

struct Reader {
    path: PathBuf,
    r: BufReader<File>,
}

impl Reader {
    fn open(path: &Path) -> Result<Reader, CheckpointError> {
        let f = File::open(path).map_err(|e| CheckpointError::io(path, e))?;
        let mut r = Reader { path: path.to_path_buf(), r: BufReader::with_capacity(1 << 20, f) };
        let mut magic = [0u8; 8];
        match r.r.read_exact(&mut magic) {
            Ok(()) if magic == MAGIC => {}
            Ok(()) => return Err(CheckpointError::NotACheckpoint(r.path)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(CheckpointError::NotACheckpoint(r.path));
            }
            Err(e) => return Err(CheckpointError::io(path, e)),
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(CheckpointError::Version { path: r.path, found: version });
        }
        if r.u32()? != 0 {
            return Err(CheckpointError::corrupt(path, "reserved bytes 12..16 are not zero"));
        }
        Ok(r)
    }

    fn exact(&mut self, buf: &mut [u8]) -> Result<(), CheckpointError> {
        self.r.read_exact(buf).map_err(|e| CheckpointError::io(&self.path, e))
    }

    fn u32(&mut self) -> Result<u32, CheckpointError> {
        let mut b = [0u8; 4];
        self.exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, CheckpointError> {
        let mut b = [0u8; 8];
        self.exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Reads a section header; checks its tag; returns the payload length.
    fn open_section(&mut self, tag: [u8; 4]) -> Result<u64, CheckpointError> {
        let mut t = [0u8; 4];
        self.exact(&mut t)?;
        if t != tag {
            return Err(CheckpointError::corrupt(
                &self.path,
                format!("expected section {}, found {:?}", String::from_utf8_lossy(&tag), String::from_utf8_lossy(&t)),
            ));
        }
        self.u64()
    }

    fn close_section(&mut self, hash: Xxh3, name: &'static str) -> Result<(), CheckpointError> {
        let stored = self.u64()?;
        if stored != hash.digest() {
            return Err(CheckpointError::Checksum { path: self.path.clone(), section: name });
        }
        Ok(())
    }

    fn header(&mut self) -> Result<Header, CheckpointError> {
        let len = self.open_section(TAG_HEAD)?;
        if len > MAX_HEADER {
            return Err(CheckpointError::corrupt(&self.path, format!("header length {len} is implausible")));
        }
        let mut bytes = vec![0u8; len as usize];
        self.exact(&mut bytes)?;
        let mut h = Xxh3::new();
        h.update(&bytes);
        self.close_section(h, "HEAD")?;
        let (header, used): (Header, usize) = bincode::decode_from_slice(&bytes, bincode_config())
            .map_err(|e| CheckpointError::corrupt(&self.path, format!("cannot decode header: {e}")))?;
        if used != bytes.len() {
            return Err(CheckpointError::corrupt(&self.path, "header has trailing bytes"));
        }
        if ![4, 6, 8].contains(&header.size) || header.layers.len() != 65 {
            return Err(CheckpointError::corrupt(&self.path, "header describes no supported board"));
        }
        Ok(header)
    }

    /// Streams `count` keys of `width` bytes to `each`, checking the section.
    fn keys(
        &mut self,
        tag: [u8; 4],
        name: &'static str,
        count: u64,
        width: usize,
        mut each: impl FnMut(u128) -> Result<(), String>,
    ) -> Result<(), CheckpointError> {
        let len = self.open_section(tag)?;
        if len != count * width as u64 {
            return Err(CheckpointError::corrupt(
                &self.path,
                format!("section {name} holds {len} bytes, the header promises {}", count * width as u64),
            ));
        }
        let mut hash = Xxh3::new();
        let mut chunk = vec![0u8; width * 8192];
        let mut left = count;
        let mut bad: Option<String> = None;
        while left > 0 {
            let n = left.min(8192) as usize;
            let buf = &mut chunk[..n * width];
            self.exact(buf)?;
            hash.update(buf);
            if bad.is_none() {
                for k in buf.chunks_exact(width) {
                    let mut b = [0u8; 16];
                    b[..width].copy_from_slice(k);
                    if let Err(e) = each(u128::from_le_bytes(b)) {
                        bad = Some(e);
                        break;
                    }
                }
            }
            left -= n as u64;
        }
        self.close_section(hash, name)?;
        match bad {
            Some(detail) => Err(CheckpointError::corrupt(&self.path, detail)),
            None => Ok(()),
        }
    }

    fn end(&mut self) -> Result<(), CheckpointError> {
        let len = self.open_section(TAG_END)?;
        if len != 0 {
            return Err(CheckpointError::corrupt(&self.path, "END section is not empty"));
        }
        self.close_section(Xxh3::new(), "END.")?;
        let mut extra = [0u8; 1];
        match self.r.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(CheckpointError::corrupt(&self.path, "data after the END section")),
            Err(e) => Err(CheckpointError::io(&self.path, e)),
        }
    }
}

/// Reads only the header (its checksum included), for dispatching on size.
pub fn read_header(path: &Path) -> Result<Header, CheckpointError> {
    Reader::open(path)?.header()
}

/// Reads a whole checkpoint: every cache key goes to `on_key`, every stack
/// entry to `on_entry(stack index, key)`. Either callback may reject a key
/// with a message. Fails, after the callbacks may have run, if any check
/// fails; the caller must then discard what it built.
pub fn read_checkpoint(
    path: &Path,
    mut on_key: impl FnMut(u128) -> Result<(), String>,
    mut on_entry: impl FnMut(usize, u128) -> Result<(), String>,
) -> Result<Header, CheckpointError> {
    let mut r = Reader::open(path)?;
    let header = r.header()?;
    let width = key_width(header.size);
    r.keys(TAG_KEYS, "KEYS", header.cache_len, width, &mut on_key)?;
    let total: u64 = header.stack_lens.iter().sum();
    let bounds: Vec<u64> = header
        .stack_lens
        .iter()
        .scan(0u64, |acc, &l| {
            *acc += l;
            Some(*acc)
        })
        .collect();
    let mut i = 0u64;
    let mut stack = 0usize;
    r.keys(TAG_STACKS, "STAK", total, width, |k| {
        while stack < bounds.len() && i >= bounds[stack] {
            stack += 1;
        }
        i += 1;
        on_entry(stack, k)
    })?;
    r.end()?;
    Ok(header)
}

/// The result of checking every section of a file.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The header.
    pub header: Header,
    /// File size in bytes.
    pub bytes: u64,
    /// Whether every checksum and length holds.
    pub check: SectionCheck,
}

/// Outcome of the full check of a file whose header is readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SectionCheck {
    /// Every section is intact.
    Ok,
    /// A later section failed: the message says which and why.
    Failed(String),
}

/// Reads the header and then checks the rest of the file without keeping
/// the keys. Fails only if the header itself cannot be read.
pub fn verify(path: &Path) -> Result<Verified, CheckpointError> {
    let header = read_header(path)?;
    let bytes = std::fs::metadata(path).map_err(|e| CheckpointError::io(path, e))?.len();
    let check = match read_checkpoint(path, |_| Ok(()), |_, _| Ok(())) {
        Ok(_) => SectionCheck::Ok,
        Err(e) => SectionCheck::Failed(e.to_string()),
    };
    Ok(Verified { header, bytes, check })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(size: u32, keys: u64, stacks: &[Vec<u128>]) -> Header {
        Header {
            software: "othello-census test".into(),
            size,
            rules: "standard".into(),
            engine: "dfs".into(),
            max_discs: 12,
            memory_limit: 1 << 30,
            threads: 2,
            command: "othello-census count".into(),
            started_unix: 1,
            saved_unix: 2,
            elapsed_seconds: 1.5,
            explored: 10,
            repeated: 3,
            layers: vec![Counts::default(); 65],
            cache_len: keys,
            stack_lens: stacks.iter().map(|s| s.len() as u64).collect(),
        }
    }

    #[test]
    fn bincode_layout_is_as_documented() {
        // fixed-width little-endian integers, strings and vectors prefixed
        // by a u64 length
        let bytes = bincode::encode_to_vec((7u32, String::from("ab"), vec![1u64]), bincode_config()).unwrap();
        assert_eq!(
            bytes,
            [7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b', 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        let f = bincode::encode_to_vec(1.5f64, bincode_config()).unwrap();
        assert_eq!(f, 1.5f64.to_le_bytes());
    }

    #[test]
    fn empty_payload_checksum_is_as_documented() {
        assert_eq!(xxhash_rust::xxh3::xxh3_64(b""), 0x2D06_8005_38D3_94C2);
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.ckpt");
        let keys: Vec<u128> = vec![5, 1 << 50, 77];
        let stacks = vec![vec![9u128, 10], vec![], vec![11]];
        let h = header(6, 3, &stacks);
        write_checkpoint(&p, &h, keys.iter().copied(), &stacks).unwrap();
        let mut got_keys = Vec::new();
        let mut got_entries = Vec::new();
        let back = read_checkpoint(
            &p,
            |k| {
                got_keys.push(k);
                Ok(())
            },
            |s, k| {
                got_entries.push((s, k));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(back, h);
        assert_eq!(got_keys, keys);
        assert_eq!(got_entries, vec![(0, 9), (0, 10), (2, 11)]);
        assert_eq!(verify(&p).unwrap().check, SectionCheck::Ok);
        let len = std::fs::metadata(&p).unwrap().len();
        let head = bincode::encode_to_vec(&h, bincode_config()).unwrap().len() as u64;
        assert_eq!(len, 16 + 4 * 20 + head + 6 * 7);
    }

    #[test]
    fn damage_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.ckpt");
        let stacks = vec![vec![1u128]];
        write_checkpoint(&p, &header(8, 2, &stacks), [3u128, 4].into_iter(), &stacks).unwrap();
        let good = std::fs::read(&p).unwrap();
        let read = |bytes: &[u8]| {
            std::fs::write(&p, bytes).unwrap();
            read_checkpoint(&p, |_| Ok(()), |_, _| Ok(())).map(|_| ())
        };
        // every single flipped byte is caught
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            assert!(read(&bad).is_err(), "flip at byte {i} not detected");
        }
        // every truncation is caught
        for cut in 0..good.len() {
            assert!(read(&good[..cut]).is_err(), "truncation at {cut} not detected");
        }
        assert!(matches!(read(&good[..good.len() - 3]), Err(CheckpointError::Truncated(_))));
        let mut v2 = good.clone();
        v2[8] = 2;
        assert!(matches!(read(&v2), Err(CheckpointError::Version { found: 2, .. })));
        assert!(matches!(read(b"{\"json\": true}"), Err(CheckpointError::NotACheckpoint(_))));
        let mut longer = good.clone();
        longer.push(0);
        assert!(read(&longer).is_err());
        assert!(read(&good).is_ok());
    }
}
