//! Framed binary files: the container shared by checkpoints and layer
//! files. A file is an 8-byte magic, a u32 format version, a u32 reserved
//! (zero), then sections; a section is a 4-byte ASCII tag, a u64 payload
//! length, the payload, and the xxh3-64 of the payload. The last section is
//! `END.` with an empty payload, and nothing follows it. All integers are
//! little-endian. Each format built on this documents its own magic,
//! version and sections in `docs/`.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

/// The end marker section.
pub const TAG_END: [u8; 4] = *b"END.";

/// The magic of a DFS checkpoint.
pub const MAGIC_CHECKPOINT: [u8; 8] = *b"OTHCKPT\0";
/// The magic of a part of a layer of a layered run.
pub const MAGIC_PART: [u8; 8] = *b"OTHLAYR\0";
/// The magic of a bucket (sorted runs of children) of a layered run.
pub const MAGIC_BUCKET: [u8; 8] = *b"OTHBUCK\0";
/// The magic of a layered run's manifest.
pub const MAGIC_MANIFEST: [u8; 8] = *b"OTHLMAN\0";
/// The magic of a layered expansion's progress file.
pub const MAGIC_PROGRESS: [u8; 8] = *b"OTHLPRG\0";
/// The magic of an estimate resolve's progress file.
pub const MAGIC_RESOLVE: [u8; 8] = *b"OTHRSLV\0";
/// The magic of an estimate's progress file.
pub const MAGIC_ESTIMATE: [u8; 8] = *b"OTHESTM\0";
/// The magic of an exact search's carry file.
pub const MAGIC_CARRY: [u8; 8] = *b"OTHCARY\0";

/// The kind of othello-census file a magic names, for messages.
pub fn kind_of_magic(magic: &[u8]) -> Option<&'static str> {
    [
        (MAGIC_CHECKPOINT, "DFS checkpoint"),
        (MAGIC_PART, "layer file (a part of a layered run)"),
        (MAGIC_BUCKET, "bucket file (sorted runs of a layered run)"),
        (MAGIC_MANIFEST, "layered run's manifest"),
        (MAGIC_PROGRESS, "layered expansion's progress file"),
        (MAGIC_RESOLVE, "estimate resolve's progress file"),
        (MAGIC_ESTIMATE, "estimate's progress file"),
        (MAGIC_CARRY, "carry file of an exact search"),
    ]
    .into_iter()
    .find(|(m, _)| m.as_slice() == magic)
    .map(|(_, k)| k)
}

/// What kind of file a reader expects.
#[derive(Clone, Copy, Debug)]
pub struct FileKind {
    /// The first eight bytes.
    pub magic: [u8; 8],
    /// The version this build reads and writes.
    pub version: u32,
    /// A name for messages: "checkpoint", "layer file".
    pub name: &'static str,
}

/// Why a framed file could not be read or written. Every message is one
/// line and names the file.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("{}: {}", .0.display(), match kind_of_magic(.2) {
        Some(other) => format!("a {other}, not a {}", .1),
        None => format!("not an othello-census {} (bad magic bytes)", .1),
    })]
    WrongKind(PathBuf, &'static str, Vec<u8>),
    #[error("{}: {}", path.display(), version_problem(kind, *found, *expected))]
    Version { path: PathBuf, kind: &'static str, found: u32, expected: u32 },
    #[error("{}: truncated {kind} (the file ends early)", .0.display(), kind = .1)]
    Truncated(PathBuf, &'static str),
    #[error("{}: checksum mismatch in section {section} (the file is damaged)", path.display())]
    Checksum { path: PathBuf, section: String },
    #[error("{}: corrupt {kind}: {detail}", path.display())]
    Corrupt { path: PathBuf, kind: &'static str, detail: String },
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
}

/// The bincode configuration of every structured section: fixed-width
/// little-endian integers, strings and lists prefixed by a u64 length.
pub fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_fixed_int_encoding().with_little_endian()
}

/// Writes the magic, version and reserved word.
pub fn write_preamble<W: Write>(w: &mut W, kind: &FileKind) -> io::Result<()> {
    w.write_all(&kind.magic)?;
    w.write_all(&kind.version.to_le_bytes())?;
    w.write_all(&0u32.to_le_bytes())
}

/// A writer that hashes what passes through it.
pub struct Hashing<'a, W: Write> {
    inner: &'a mut W,
    hash: Xxh3,
}

impl<W: Write> Hashing<'_, W> {
    /// Writes and hashes `bytes`.
    pub fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.inner.write_all(bytes)
    }
}

/// Writes one section whose payload, `len` bytes, `body` produces.
pub fn write_section<W: Write>(
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

/// Writes one section whose length is not known in advance: a placeholder
/// length is patched once `body` has written the payload.
pub fn write_section_streaming<W: Write + Seek>(
    w: &mut W,
    tag: [u8; 4],
    body: impl FnOnce(&mut Hashing<'_, W>) -> io::Result<()>,
) -> io::Result<u64> {
    w.write_all(&tag)?;
    let len_at = w.stream_position()?;
    w.write_all(&0u64.to_le_bytes())?;
    let mut h = Hashing { inner: w, hash: Xxh3::new() };
    body(&mut h)?;
    let digest = h.hash.digest();
    let end = w.stream_position()?;
    let len = end - len_at - 8;
    w.write_all(&digest.to_le_bytes())?;
    w.seek(SeekFrom::Start(len_at))?;
    w.write_all(&len.to_le_bytes())?;
    w.seek(SeekFrom::Start(end + 8))?;
    Ok(len)
}

/// Writes the END. section.
pub fn write_end<W: Write>(w: &mut W) -> io::Result<()> {
    write_section(w, TAG_END, 0, |_| Ok(()))
}

/// What a version field that differs from this build's says: an older
/// version; a newer one (or damage); or, beyond any version that could
/// exist, damage.
fn version_problem(kind: &str, found: u32, expected: u32) -> String {
    if found > 0 && found < expected {
        format!(
            "{kind} format version {found}, written by an older othello-census (this build reads version \
             {expected}): continue it with that version, or start the run again"
        )
    } else if found > expected && found <= expected + 16 {
        format!(
            "{kind} format version {found}, newer than this build reads ({expected}): a newer othello-census wrote \
             it (use that one), or its header is damaged"
        )
    } else {
        format!(
            "damaged: the {kind}'s version field reads {found}, which no othello-census wrote (this build reads {expected})"
        )
    }
}

/// Reads a framed file section by section.
pub struct FramedReader {
    path: PathBuf,
    kind: FileKind,
    r: BufReader<File>,
}

impl FramedReader {
    /// Opens `path` and checks magic, version and reserved word.
    pub fn open(path: &Path, kind: FileKind) -> Result<FramedReader, FrameError> {
        let f = File::open(path).map_err(|e| FrameError::Io { path: path.to_path_buf(), error: e })?;
        let mut r = FramedReader { path: path.to_path_buf(), kind, r: BufReader::with_capacity(1 << 16, f) };
        let mut magic = [0u8; 8];
        match r.r.read_exact(&mut magic) {
            Ok(()) if magic == kind.magic => {}
            Ok(()) => return Err(FrameError::WrongKind(r.path, kind.name, magic.to_vec())),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(FrameError::WrongKind(r.path, kind.name, Vec::new()));
            }
            Err(e) => return Err(r.io(e)),
        }
        let version = r.u32()?;
        if version != kind.version {
            return Err(FrameError::Version { path: r.path, kind: kind.name, found: version, expected: kind.version });
        }
        if r.u32()? != 0 {
            return Err(r.corrupt("reserved bytes 12..16 are not zero"));
        }
        Ok(r)
    }

    fn io(&self, e: io::Error) -> FrameError {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            FrameError::Truncated(self.path.clone(), self.kind.name)
        } else {
            FrameError::Io { path: self.path.clone(), error: e }
        }
    }

    /// A corruption error naming this file.
    pub fn corrupt(&self, detail: impl Into<String>) -> FrameError {
        FrameError::Corrupt { path: self.path.clone(), kind: self.kind.name, detail: detail.into() }
    }

    fn exact(&mut self, buf: &mut [u8]) -> Result<(), FrameError> {
        self.r.read_exact(buf).map_err(|e| self.io(e))
    }

    fn u32(&mut self) -> Result<u32, FrameError> {
        let mut b = [0u8; 4];
        self.exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> Result<u64, FrameError> {
        let mut b = [0u8; 8];
        self.exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// The tag of the next section and its payload length.
    pub fn next_section(&mut self) -> Result<([u8; 4], u64), FrameError> {
        let mut t = [0u8; 4];
        self.exact(&mut t)?;
        Ok((t, self.u64()?))
    }

    /// Opens the next section, which must be `tag`; returns its length.
    pub fn expect_section(&mut self, tag: [u8; 4]) -> Result<u64, FrameError> {
        let (t, len) = self.next_section()?;
        if t != tag {
            return Err(self.corrupt(format!(
                "expected section {}, found {:?}",
                String::from_utf8_lossy(&tag),
                String::from_utf8_lossy(&t)
            )));
        }
        Ok(len)
    }

    /// Reads a whole payload of `len` bytes (at most `max`) and its checksum.
    pub fn payload(&mut self, tag: [u8; 4], len: u64, max: u64) -> Result<Vec<u8>, FrameError> {
        if len > max {
            return Err(self.corrupt(format!("section {} length {len} is implausible", String::from_utf8_lossy(&tag))));
        }
        let mut bytes = vec![0u8; len as usize];
        self.exact(&mut bytes)?;
        let mut h = Xxh3::new();
        h.update(&bytes);
        self.check(h, tag)?;
        Ok(bytes)
    }

    /// Streams a payload of `len` bytes in pieces to `each`, then checks
    /// its checksum. `each` may refuse a piece with an error of its own
    /// type; the file is then reported corrupt with it, after the checksum
    /// has been checked (a damaged file is reported as damaged).
    pub fn stream<E: std::fmt::Display>(
        &mut self,
        tag: [u8; 4],
        len: u64,
        mut each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), FrameError> {
        let mut hash = Xxh3::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut left = len;
        let mut bad = None;
        while left > 0 {
            let n = left.min(buf.len() as u64) as usize;
            self.exact(&mut buf[..n])?;
            hash.update(&buf[..n]);
            if bad.is_none()
                && let Err(e) = each(&buf[..n])
            {
                bad = Some(e);
            }
            left -= n as u64;
        }
        self.check(hash, tag)?;
        match bad {
            Some(e) => Err(self.corrupt(e.to_string())),
            None => Ok(()),
        }
    }

    fn check(&mut self, hash: Xxh3, tag: [u8; 4]) -> Result<(), FrameError> {
        if self.u64()? != hash.digest() {
            return Err(FrameError::Checksum {
                path: self.path.clone(),
                section: String::from_utf8_lossy(&tag).into_owned(),
            });
        }
        Ok(())
    }

    /// Byte offset of the next read.
    pub fn position(&mut self) -> Result<u64, FrameError> {
        self.r.stream_position().map_err(|e| self.io(e))
    }

    /// Moves to byte `offset` (the start of a section).
    pub fn seek_to(&mut self, offset: u64) -> Result<(), FrameError> {
        self.r.seek(SeekFrom::Start(offset)).map(|_| ()).map_err(|e| self.io(e))
    }

    /// Skips a payload of `len` bytes and its checksum, unchecked.
    pub fn skip(&mut self, len: u64) -> Result<(), FrameError> {
        let end = self.position()? + len + 8;
        let size = self.r.get_ref().metadata().map_err(|e| self.io(e))?.len();
        if end > size {
            return Err(FrameError::Truncated(self.path.clone(), self.kind.name));
        }
        self.seek_to(end)
    }

    /// Reads the payload of the section just opened (`len` bytes) piece by
    /// piece; [`PayloadReader::finish`] checks the checksum.
    pub fn into_payload(self, tag: [u8; 4], len: u64) -> PayloadReader {
        PayloadReader { fr: self, tag, left: len, hash: Xxh3::new(), buf: vec![0u8; 1 << 16], pos: 0, end: 0 }
    }

    /// Reads the END. section and checks that nothing follows.
    pub fn end(&mut self) -> Result<(), FrameError> {
        let len = self.expect_section(TAG_END)?;
        if len != 0 {
            return Err(self.corrupt("END section is not empty"));
        }
        self.check(Xxh3::new(), TAG_END)?;
        self.at_eof()
    }

    /// Fails unless the file has no more bytes.
    pub fn at_eof(&mut self) -> Result<(), FrameError> {
        let mut extra = [0u8; 1];
        match self.r.read(&mut extra) {
            Ok(0) => Ok(()),
            Ok(_) => Err(self.corrupt("data after the END section")),
            Err(e) => Err(self.io(e)),
        }
    }

    /// Reads a bincode-encoded section that must use all its bytes.
    pub fn decode<T: bincode::Decode<()>>(&mut self, tag: [u8; 4], max: u64) -> Result<T, FrameError> {
        let len = self.expect_section(tag)?;
        let bytes = self.payload(tag, len, max)?;
        let (value, used): (T, usize) = bincode::decode_from_slice(&bytes, bincode_config())
            .map_err(|e| self.corrupt(format!("cannot decode section {}: {e}", String::from_utf8_lossy(&tag))))?;
        if used != bytes.len() {
            return Err(self.corrupt(format!("section {} has trailing bytes", String::from_utf8_lossy(&tag))));
        }
        Ok(value)
    }
}

/// Reads one section's payload incrementally, hashing it as it goes.
pub struct PayloadReader {
    fr: FramedReader,
    tag: [u8; 4],
    left: u64,
    hash: Xxh3,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
}

impl PayloadReader {
    fn refill(&mut self) -> Result<(), FrameError> {
        if self.left == 0 {
            return Err(self
                .fr
                .corrupt(format!("section {} ends inside a record", String::from_utf8_lossy(&self.tag))));
        }
        let n = self.left.min(self.buf.len() as u64) as usize;
        self.fr.exact(&mut self.buf[..n])?;
        self.hash.update(&self.buf[..n]);
        self.left -= n as u64;
        self.pos = 0;
        self.end = n;
        Ok(())
    }

    /// The next byte of the payload.
    #[inline]
    pub fn byte(&mut self) -> Result<u8, FrameError> {
        if self.pos == self.end {
            self.refill()?;
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(b)
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> Result<u64, FrameError> {
        let mut v = 0u64;
        for i in 0..8 {
            v |= (self.byte()? as u64) << (8 * i);
        }
        Ok(v)
    }

    /// An unsigned LEB128 number of at most 128 bits.
    #[inline]
    pub fn varint(&mut self) -> Result<u128, FrameError> {
        // fast path: a number of at most 8 bytes (56 bits) whose bytes are
        // in the buffer, read as one word, without a branch a byte
        if self.end - self.pos >= 8
            && let Some((v, bytes)) = self.word_varint(self.pos)
        {
            self.pos += bytes;
            return Ok(v as u128);
        }
        self.varint_slow()
    }

    /// The LEB128 number at `at` in the buffer, read as one word, and its
    /// length, where it takes at most 8 bytes; `None` where it takes more.
    /// Eight bytes from `at` must be in the buffer.
    #[inline(always)]
    fn word_varint(&self, at: usize) -> Option<(u64, usize)> {
        let word = u64::from_le_bytes(self.buf[at..at + 8].try_into().expect("8 bytes"));
        let ends = !word & 0x8080_8080_8080_8080;
        if ends == 0 {
            return None;
        }
        let bytes = ends.trailing_zeros() / 8 + 1;
        Some((gather_7bit_groups(word, bytes), bytes as usize))
    }

    /// Two LEB128 numbers of at most 8 bytes each whose bytes are in the
    /// buffer, read a word each, and how many bytes they take; `None`
    /// otherwise. Nothing is consumed: [`PayloadReader::skip_buffered`]
    /// does that once the caller takes them, [`PayloadReader::varint`]
    /// reads them where it does not. The common case of a record (a key's
    /// delta and a multiplicity), small enough to inline where records are
    /// merged.
    #[inline(always)]
    pub fn peek_varint_pair(&self) -> Option<(u64, u64, usize)> {
        if self.end - self.pos < 16 {
            return None;
        }
        let (first, a) = self.word_varint(self.pos)?;
        let (second, b) = self.word_varint(self.pos + a)?;
        Some((first, second, a + b))
    }

    /// Consumes `n` bytes that [`PayloadReader::peek_varint_pair`] found in
    /// the buffer.
    #[inline(always)]
    pub fn skip_buffered(&mut self, n: usize) {
        assert!(n <= self.end - self.pos, "{n} bytes are not in the buffer");
        self.pos += n;
    }

    /// [`PayloadReader::varint`] byte by byte, across buffer refills.
    fn varint_slow(&mut self) -> Result<u128, FrameError> {
        let mut v = 0u128;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            if shift == 126 && b > 3 {
                return Err(self.fr.corrupt("a number does not fit in 128 bits"));
            }
            v |= ((b & 0x7f) as u128) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// Whether the whole payload has been read.
    pub fn done(&self) -> bool {
        self.left == 0 && self.pos == self.end
    }

    /// A corruption error naming the file.
    pub fn corrupt(&self, detail: impl Into<String>) -> FrameError {
        self.fr.corrupt(detail)
    }

    /// Checks that the payload was read to its end and its checksum holds;
    /// gives the file reader back.
    pub fn finish(mut self) -> Result<FramedReader, FrameError> {
        if !self.done() {
            return Err(self.fr.corrupt(format!("section {} has unread bytes", String::from_utf8_lossy(&self.tag))));
        }
        let hash = std::mem::replace(&mut self.hash, Xxh3::new());
        self.fr.check(hash, self.tag)?;
        Ok(self.fr)
    }
}

/// The value of the LEB128 number in the low `bytes` (1 to 8) bytes of
/// `word` (little-endian): their 7-bit groups, packed.
#[inline(always)]
const fn gather_7bit_groups(word: u64, bytes: u32) -> u64 {
    let x = word & (u64::MAX >> (64 - 8 * bytes)) & 0x7f7f_7f7f_7f7f_7f7f;
    // pairs of 7 bits into 14, then 28, then 56
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// The LEB128 bytes of `v` (below 2^56) in one little-endian word, and
/// how many of its bytes they are.
#[inline(always)]
const fn spread_7bit_groups(v: u64) -> (u64, u32) {
    debug_assert!(v < 1 << 56);
    let bytes = if v == 0 { 1 } else { (64 - v.leading_zeros()).div_ceil(7) };
    // 56 bits into 28-bit halves, 14-bit quarters, then 7-bit groups, a
    // group a byte
    let x = (v & 0x0fff_ffff) | ((v & 0x00ff_ffff_f000_0000) << 4);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x0fff_c000_0fff_c000) << 2);
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x3f80_3f80_3f80_3f80) << 1);
    // the continuation bit on every byte but the last
    let more = 0x8080_8080_8080_8080u64 & ((1u64 << (8 * (bytes - 1))) - 1);
    (x | more, bytes)
}

/// One unsigned LEB128 number of at most 128 bits from `b` at `pos`
/// (advanced past it), or `None` (truncated, or too wide): the inverse of
/// [`put_varint`] on bytes in memory (a run from another rank).
pub fn get_varint(b: &[u8], pos: &mut usize) -> Option<u128> {
    let mut v = 0u128;
    for shift in (0..128).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        let bits = (byte & 0x7f) as u128;
        if shift == 126 && bits > 3 {
            return None;
        }
        v |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Appends `v` as unsigned LEB128.
#[inline(always)]
pub fn put_varint(out: &mut Vec<u8>, v: u128) {
    if v < 1 << 56 {
        // one word of eight bytes written, the unused ones cut off
        let (word, bytes) = spread_7bit_groups(v as u64);
        let len = out.len();
        out.extend_from_slice(&word.to_le_bytes());
        out.truncate(len + bytes as usize);
    } else {
        put_wide_varint(out, v);
    }
}

/// Appends `a` then `b` as unsigned LEB128 (a record's key delta and
/// multiplicity): where both are below 2^56, the two words are written
/// into sixteen bytes reserved at once and the unused bytes cut off.
#[inline(always)]
pub fn put_varint_pair(out: &mut Vec<u8>, a: u128, b: u128) {
    if a < 1 << 56 && b < 1 << 56 {
        let (wa, na) = spread_7bit_groups(a as u64);
        let (wb, nb) = spread_7bit_groups(b as u64);
        let at = out.len();
        out.extend_from_slice(&[0; 16]);
        out[at..at + 8].copy_from_slice(&wa.to_le_bytes());
        let second = at + na as usize;
        out[second..second + 8].copy_from_slice(&wb.to_le_bytes());
        out.truncate(second + nb as usize);
    } else {
        put_varint(out, a);
        put_varint(out, b);
    }
}

/// [`put_varint`] of a number of 56 bits or more, byte by byte (out of
/// line, so that the common case inlines small).
#[inline(never)]
fn put_wide_varint(out: &mut Vec<u8>, mut v: u128) {
    if v < 1 << 64 {
        let mut w = v as u64;
        while w >= 0x80 {
            out.push(w as u8 | 0x80);
            w >>= 7;
        }
        out.push(w as u8);
        return;
    }
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Encodes `value` with [`bincode_config`].
pub fn encode<T: bincode::Encode>(value: &T) -> Vec<u8> {
    bincode::encode_to_vec(value, bincode_config()).expect("encoding into a Vec cannot fail")
}

/// Writes a framed file of one `HEAD` section holding `value` (a
/// manifest, a progress file) atomically: temporary file, fsync, rename,
/// fsync of the directory.
pub fn write_head_file<T: bincode::Encode>(path: &Path, kind: &FileKind, value: &T) -> Result<(), FrameError> {
    let bytes = encode(value);
    crate::formats::atomic::atomic_write_with(path, |w| {
        write_preamble(w, kind)?;
        write_section(w, *b"HEAD", bytes.len() as u64, |h| h.put(&bytes))?;
        write_end(w)
    })
    .map_err(|e| FrameError::Io { path: path.to_path_buf(), error: e })
}

/// Reads and checks a file [`write_head_file`] wrote (its `HEAD` at most
/// `max` bytes).
pub fn read_head_file<T: bincode::Decode<()>>(path: &Path, kind: FileKind, max: u64) -> Result<T, FrameError> {
    let mut r = FramedReader::open(path, kind)?;
    let value: T = r.decode(*b"HEAD", max)?;
    r.end()?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bincode_layout_is_as_documented() {
        // fixed-width little-endian integers, strings and vectors prefixed
        // by a u64 length
        let bytes = encode(&(7u32, String::from("ab"), vec![1u64]));
        assert_eq!(
            bytes,
            [7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b', 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(encode(&1.5f64), 1.5f64.to_le_bytes());
    }

    proptest::proptest! {
        /// The word-at-a-time coding equals the byte-by-byte definition of
        /// LEB128, both ways, for numbers of every length.
        #[test]
        fn words_code_7bit_groups_as_bytes_do(x in proptest::num::u64::ANY, bits in 0u32..57) {
            let v = if bits == 0 { 0 } else { x >> (64 - bits) };
            let mut want = Vec::new();
            let mut w = v;
            loop {
                let b = (w & 0x7f) as u8;
                w >>= 7;
                if w == 0 {
                    want.push(b);
                    break;
                }
                want.push(b | 0x80);
            }
            let (word, bytes) = spread_7bit_groups(v);
            proptest::prop_assert_eq!(&word.to_le_bytes()[..bytes as usize], &want[..]);
            let mut padded = want.clone();
            padded.resize(8, 0xff);
            let read = u64::from_le_bytes(padded[..8].try_into().unwrap());
            proptest::prop_assert_eq!(gather_7bit_groups(read, bytes), v);
        }
    }

    /// Writes `values` as LEB128 in one payload and reads them back, in
    /// pairs where [`PayloadReader::peek_varint_pair`] finds them, else one
    /// by one; returns the pairs read so.
    fn varints_read_back(values: &[u128]) -> usize {
        let mut out = Vec::new();
        for &v in values {
            put_varint(&mut out, v);
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("v");
        let kind = FileKind { magic: *b"TESTTEST", version: 1, name: "test file" };
        let mut f = std::fs::File::create(&p).unwrap();
        write_preamble(&mut f, &kind).unwrap();
        write_section(&mut f, *b"DATA", out.len() as u64, |h| h.put(&out)).unwrap();
        drop(f);
        let mut r = FramedReader::open(&p, kind).unwrap();
        let len = r.expect_section(*b"DATA").unwrap();
        let mut pr = r.into_payload(*b"DATA", len);
        let (mut i, mut pairs) = (0, 0);
        while i < values.len() {
            match pr.peek_varint_pair() {
                Some((a, b, n)) if i + 1 < values.len() => {
                    assert_eq!((a as u128, b as u128), (values[i], values[i + 1]), "at {i}");
                    pr.skip_buffered(n);
                    (i, pairs) = (i + 2, pairs + 1);
                }
                _ => {
                    assert_eq!(pr.varint().unwrap(), values[i], "at {i}");
                    i += 1;
                }
            }
        }
        pr.finish().unwrap();
        pairs
    }

    #[test]
    fn varints() {
        // one alone: read byte by byte (fewer than eight bytes left)
        for v in [0u128, 1, 127, 128, 300, (1 << 56) - 1, 1 << 56, u64::MAX as u128, u128::MAX] {
            varints_read_back(&[v]);
        }
        // many in one payload: read a word at a time where eight bytes are
        // left, byte by byte near its end
        let values: Vec<u128> = (0..2000u32).map(|i| (u128::MAX >> (i % 128)) / (1 + i as u128 % 5)).collect();
        assert!(varints_read_back(&values) > 0);
        // numbers of 1 to 8 bytes, as records mostly are: nearly all in
        // pairs, across the reader's buffer refills
        let values: Vec<u128> =
            (0..200_000u32).map(|i| (u64::MAX >> (8 + (i * 7) % 57)) as u128 / (1 + i as u128 % 3)).collect();
        assert!(varints_read_back(&values) > 90_000);
    }

    /// A pair written at once is the two numbers written one after the
    /// other, byte for byte, either side of 2^56 and at the extremes.
    #[test]
    fn varint_pairs_are_two_varints() {
        let mut edges: Vec<u128> = vec![0, 1, 127, 128, (1 << 56) - 1, 1 << 56, u64::MAX as u128, u128::MAX];
        edges.extend((0..128).map(|i| (u128::MAX >> i) ^ (i as u128 * 0x9E37_79B9)));
        let (mut pairs, mut singles) = (Vec::new(), Vec::new());
        for &a in &edges {
            for &b in &edges {
                put_varint_pair(&mut pairs, a, b);
                put_varint(&mut singles, a);
                put_varint(&mut singles, b);
            }
        }
        assert_eq!(pairs, singles);
    }

    #[test]
    fn empty_payload_checksum_is_as_documented() {
        assert_eq!(xxhash_rust::xxh3::xxh3_64(b""), 0x2D06_8005_38D3_94C2);
    }
}
