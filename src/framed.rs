//! Framed binary files: the container shared by checkpoints and layer
//! files. A file is an 8-byte magic, a u32 format version, a u32 reserved
//! (zero), then sections; a section is a 4-byte ASCII tag, a u64 payload
//! length, the payload, and the xxh3-64 of the payload. The last section is
//! `END.` with an empty payload, and nothing follows it. All integers are
//! little-endian. Each format built on this documents its own magic,
//! version and sections in `docs/`.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

/// The end marker section.
pub const TAG_END: [u8; 4] = *b"END.";

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
    #[error("{path}: not an othello-census {kind} (bad magic bytes)", path = .0.display(), kind = .1)]
    WrongKind(PathBuf, &'static str),
    #[error("{}: {kind} format version {found}, this build reads version {expected}", path.display())]
    Version { path: PathBuf, kind: &'static str, found: u32, expected: u32 },
    #[error("{}: truncated {kind} (the file ends early)", .0.display(), kind = .1)]
    Truncated(PathBuf, &'static str),
    #[error("{}: checksum mismatch in section {section} (the file is damaged)", path.display())]
    Checksum { path: PathBuf, section: String },
    #[error("{}: corrupt {kind}: {detail}", path.display())]
    Corrupt { path: PathBuf, kind: &'static str, detail: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
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

/// Writes the END. section.
pub fn write_end<W: Write>(w: &mut W) -> io::Result<()> {
    write_section(w, TAG_END, 0, |_| Ok(()))
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
        let f = File::open(path).map_err(|e| FrameError::Io { path: path.to_path_buf(), source: e })?;
        let mut r = FramedReader { path: path.to_path_buf(), kind, r: BufReader::with_capacity(1 << 20, f) };
        let mut magic = [0u8; 8];
        match r.r.read_exact(&mut magic) {
            Ok(()) if magic == kind.magic => {}
            Ok(()) => return Err(FrameError::WrongKind(r.path, kind.name)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(FrameError::WrongKind(r.path, kind.name)),
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
            FrameError::Io { path: self.path.clone(), source: e }
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
    /// its checksum. `each` may fail; the error is reported after the
    /// checksum has been checked (a damaged file is reported as damaged).
    pub fn stream(
        &mut self,
        tag: [u8; 4],
        len: u64,
        mut each: impl FnMut(&[u8]) -> Result<(), String>,
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
            Some(e) => Err(self.corrupt(e)),
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

/// Encodes `value` with [`bincode_config`].
pub fn encode<T: bincode::Encode>(value: &T) -> Vec<u8> {
    bincode::encode_to_vec(value, bincode_config()).expect("encoding into a Vec cannot fail")
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

    #[test]
    fn empty_payload_checksum_is_as_documented() {
        assert_eq!(xxhash_rust::xxh3::xxh3_64(b""), 0x2D06_8005_38D3_94C2);
    }
}
