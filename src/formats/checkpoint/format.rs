//! Reading and writing the checkpoint format (see `docs/checkpoint-format.md`).

use std::convert::Infallible;
use std::io;
use std::path::Path;

use bincode::de::Decoder;
use bincode::enc::Encoder;
use bincode::error::{DecodeError, EncodeError};
use bincode::{Decode, Encode};

use crate::census::Counts;
use crate::formats::atomic::atomic_write_with;
use crate::formats::framed::{FileKind, FrameError, FramedReader, encode, write_end, write_preamble, write_section};
use crate::key::dense::dense_bytes;

/// The first eight bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = crate::formats::framed::MAGIC_CHECKPOINT;
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 4;
/// Largest header section accepted (a corrupt length must not allocate).
const MAX_HEADER: u64 = 1 << 24;

const KIND: FileKind = FileKind { magic: MAGIC, version: FORMAT_VERSION, name: "checkpoint" };
/// Version 3: the header has no `out`; read with none.
const KIND_3: FileKind = FileKind { version: 3, ..KIND };
const TAG_HEAD: [u8; 4] = *b"HEAD";
const TAG_KEYS: [u8; 4] = *b"KEYS";
const TAG_STACKS: [u8; 4] = *b"STAK";

/// Why a checkpoint could not be read or written.
pub type CheckpointError = FrameError;

/// Bytes per key in the file for board side `n`: the significant bytes of
/// the dense key (4 on 4x4, 7 on 6x6, 13 on 8x8).
pub fn key_width(n: u32) -> usize {
    dense_bytes(n)
}

/// The HEAD section: configuration and counters of the run. Its bytes are
/// written field by field in the order of `docs/checkpoint-format.md` (the
/// `Encode` below), whatever the order of the fields here.
#[derive(Clone, Debug, PartialEq)]
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
    /// The directory the run writes its result files into (`--out`), as
    /// an absolute path; empty: none recorded (version 3), the default.
    pub out: String,
}

impl Encode for Header {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        self.software.encode(e)?;
        self.size.encode(e)?;
        self.rules.encode(e)?;
        self.engine.encode(e)?;
        self.max_discs.encode(e)?;
        self.memory_limit.encode(e)?;
        self.threads.encode(e)?;
        self.command.encode(e)?;
        self.started_unix.encode(e)?;
        self.saved_unix.encode(e)?;
        self.elapsed_seconds.encode(e)?;
        self.explored.encode(e)?;
        self.repeated.encode(e)?;
        self.layers.encode(e)?;
        self.cache_len.encode(e)?;
        self.stack_lens.encode(e)?;
        self.out.encode(e)
    }
}

impl<C> Decode<C> for Header {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let HeaderV3(mut h) = HeaderV3::decode(d)?;
        h.out = String::decode(d)?;
        Ok(h)
    }
}
bincode::impl_borrow_decode!(Header);

/// The header of version 3: that of version 4 without `out`.
struct HeaderV3(Header);

impl<C> Decode<C> for HeaderV3 {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(HeaderV3(Header {
            software: String::decode(d)?,
            size: u32::decode(d)?,
            rules: String::decode(d)?,
            engine: String::decode(d)?,
            max_discs: u32::decode(d)?,
            memory_limit: u64::decode(d)?,
            threads: u32::decode(d)?,
            command: String::decode(d)?,
            started_unix: u64::decode(d)?,
            saved_unix: u64::decode(d)?,
            elapsed_seconds: f64::decode(d)?,
            explored: u64::decode(d)?,
            repeated: u64::decode(d)?,
            layers: Vec::decode(d)?,
            cache_len: u64::decode(d)?,
            stack_lens: Vec::decode(d)?,
            out: String::new(),
        }))
    }
}
bincode::impl_borrow_decode!(HeaderV3);

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
    let head = encode(header);
    assert_eq!(header.stack_lens, stacks.iter().map(|s| s.len() as u64).collect::<Vec<_>>());
    let stack_bytes: u64 = stacks.iter().map(|s| s.len() as u64).sum::<u64>() * width as u64;
    atomic_write_with(path, |w| {
        write_preamble(w, &KIND)?;
        write_section(w, TAG_HEAD, head.len() as u64, |h| h.put(&head))?;
        write_section(w, TAG_KEYS, header.cache_len * width as u64, |h| {
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
        write_section(w, TAG_STACKS, stack_bytes, |h| {
            for s in stacks {
                for k in s {
                    h.put(&k.to_le_bytes()[..width])?;
                }
            }
            Ok(())
        })?;
        write_end(w)
    })
    .map_err(|e| FrameError::Io { path: path.to_path_buf(), error: e })?;
    Ok(16 + 4 * 20 + head.len() as u64 + header.cache_len * width as u64 + stack_bytes)
}

/// Opens a checkpoint of this version or of version 3; returns the reader
/// and whether it is of version 3.
fn open(path: &Path) -> Result<(FramedReader, bool), CheckpointError> {
    match FramedReader::open(path, KIND) {
        Err(FrameError::Version { found: 3, .. }) => Ok((FramedReader::open(path, KIND_3)?, true)),
        r => Ok((r?, false)),
    }
}

fn read_head(r: &mut FramedReader, v3: bool) -> Result<Header, CheckpointError> {
    let header: Header =
        if v3 { r.decode::<HeaderV3>(TAG_HEAD, MAX_HEADER)?.0 } else { r.decode(TAG_HEAD, MAX_HEADER)? };
    if ![4, 6, 8].contains(&header.size) || header.layers.len() != 65 {
        return Err(r.corrupt("header describes no supported board"));
    }
    Ok(header)
}

/// Streams `count` keys of `width` bytes to `each`, checking the section.
fn read_keys<E: std::fmt::Display>(
    r: &mut FramedReader,
    tag: [u8; 4],
    count: u64,
    width: usize,
    mut each: impl FnMut(u128) -> Result<(), E>,
) -> Result<(), CheckpointError> {
    let len = r.expect_section(tag)?;
    let promised = count.checked_mul(width as u64);
    if promised != Some(len) {
        return Err(r.corrupt(format!(
            "section {} holds {len} bytes, the header promises {} keys of {width} bytes",
            String::from_utf8_lossy(&tag),
            count
        )));
    }
    let mut carry: Vec<u8> = Vec::with_capacity(width);
    r.stream(tag, len, |piece| -> Result<(), E> {
        let mut piece = piece;
        if !carry.is_empty() {
            let need = width - carry.len();
            let take = need.min(piece.len());
            carry.extend_from_slice(&piece[..take]);
            piece = &piece[take..];
            if carry.len() < width {
                return Ok(());
            }
            let mut b = [0u8; 16];
            b[..width].copy_from_slice(&carry);
            carry.clear();
            each(u128::from_le_bytes(b))?;
        }
        let mut chunks = piece.chunks_exact(width);
        for k in &mut chunks {
            let mut b = [0u8; 16];
            b[..width].copy_from_slice(k);
            each(u128::from_le_bytes(b))?;
        }
        carry.extend_from_slice(chunks.remainder());
        Ok(())
    })
}

/// Reads only the header (its checksum included), for dispatching on size.
pub fn read_header(path: &Path) -> Result<Header, CheckpointError> {
    let (mut r, v3) = open(path)?;
    read_head(&mut r, v3)
}

/// Reads a whole checkpoint: every cache key goes to `on_key`, every stack
/// entry to `on_entry(stack index, key)`. Either callback may reject a key
/// with an error of the caller's type, which the file's corruption then
/// names. Fails, after the callbacks may have run, if any check fails; the
/// caller must then discard what it built.
pub fn read_checkpoint<E: std::fmt::Display>(
    path: &Path,
    mut on_key: impl FnMut(u128) -> Result<(), E>,
    mut on_entry: impl FnMut(usize, u128) -> Result<(), E>,
) -> Result<Header, CheckpointError> {
    let (mut r, v3) = open(path)?;
    let header = read_head(&mut r, v3)?;
    let width = key_width(header.size);
    read_keys(&mut r, TAG_KEYS, header.cache_len, width, &mut on_key)?;
    let total = header
        .stack_lens
        .iter()
        .try_fold(0u64, |a, &l| a.checked_add(l))
        .ok_or_else(|| r.corrupt("stack lengths overflow"))?;
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
    read_keys(&mut r, TAG_STACKS, total, width, |k| {
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
    let bytes = std::fs::metadata(path).map_err(|e| FrameError::Io { path: path.to_path_buf(), error: e })?.len();
    let check = match read_checkpoint(path, |_| Ok::<(), Infallible>(()), |_, _| Ok(())) {
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
            out: "/r".into(),
        }
    }

    /// The header bytes, as docs/checkpoint-format.md lays them out.
    #[test]
    fn header_bytes_are_pinned() {
        let mut h = header(6, 3, &[vec![1, 2], vec![]]);
        h.layers[5].classes = 7;
        let mut want = Vec::new();
        let string = |w: &mut Vec<u8>, s: &str| {
            w.extend((s.len() as u64).to_le_bytes());
            w.extend(s.as_bytes());
        };
        string(&mut want, "othello-census test");
        want.extend(6u32.to_le_bytes());
        string(&mut want, "standard");
        string(&mut want, "dfs");
        want.extend(12u32.to_le_bytes());
        want.extend((1u64 << 30).to_le_bytes());
        want.extend(2u32.to_le_bytes());
        string(&mut want, "othello-census count");
        want.extend(1u64.to_le_bytes());
        want.extend(2u64.to_le_bytes());
        want.extend(1.5f64.to_le_bytes());
        want.extend(10u64.to_le_bytes());
        want.extend(3u64.to_le_bytes());
        want.extend(65u64.to_le_bytes());
        for d in 0..65 {
            for f in 0..8 {
                want.extend((if d == 5 && f == 1 { 7u64 } else { 0 }).to_le_bytes());
            }
            want.extend(0u64.to_le_bytes()); // no terminal outcomes
        }
        want.extend(3u64.to_le_bytes());
        want.extend(2u64.to_le_bytes());
        want.extend(2u64.to_le_bytes());
        want.extend(0u64.to_le_bytes());
        string(&mut want, "/r");
        assert_eq!(encode(&h), want);
    }

    /// A checkpoint of version 3 (no `out`) is read, with none.
    #[test]
    fn version_3_is_read_without_out() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.ckpt");
        let stacks = vec![vec![9u128], vec![]];
        let h = Header { out: String::new(), ..header(6, 1, &stacks) };
        write_checkpoint(&p, &h, [5u128].into_iter(), &stacks).unwrap();
        // the same file as version 3 wrote it: the version, and HEAD
        // without its last field (an empty string: 8 bytes of length)
        let mut b = std::fs::read(&p).unwrap();
        b[8..12].copy_from_slice(&3u32.to_le_bytes());
        let len = u64::from_le_bytes(b[20..28].try_into().unwrap()) as usize;
        let head = b[28..28 + len - 8].to_vec();
        let mut v3 = b[..20].to_vec();
        v3.extend(((len - 8) as u64).to_le_bytes());
        v3.extend(&head);
        v3.extend(xxhash_rust::xxh3::xxh3_64(&head).to_le_bytes());
        v3.extend(&b[28 + len + 8..]);
        std::fs::write(&p, v3).unwrap();
        assert_eq!(read_header(&p).unwrap(), h);
        assert_eq!(verify(&p).unwrap().check, SectionCheck::Ok);
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
                Ok::<(), Infallible>(())
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
        let head = encode(&h).len() as u64;
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
            read_checkpoint(&p, |_| Ok::<(), Infallible>(()), |_, _| Ok(())).map(|_| ())
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
        assert!(matches!(read(&good[..good.len() - 3]), Err(FrameError::Truncated(..))));
        // a version 1 file (an older build) is refused
        let mut v1 = good.clone();
        v1[8] = 1;
        assert!(matches!(read(&v1), Err(FrameError::Version { found: 1, expected: 4, .. })));
        assert!(matches!(read(b"{\"json\": true}"), Err(FrameError::WrongKind(..))));
        let mut longer = good.clone();
        longer.push(0);
        assert!(read(&longer).is_err());
        assert!(read(&good).is_ok());
    }
}
