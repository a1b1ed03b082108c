//! The k-way merge of a bucket's sorted runs into sorted unique records
//! (a loser tree over the runs' heads, in passes when the runs outnumber
//! the files that may be open).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::run::RecordStream;
use super::{BUCKET_KIND, Record, TAG_RUN, io_err};
use crate::formats::framed::{
    FrameError, FramedReader, put_varint_pair, write_end, write_preamble, write_section_streaming,
};

/// Most runs merged at once; a bucket with more is merged in several
/// passes. The driver lowers it when the open-file limit is tight.
pub const MAX_FAN_IN: usize = 96;

/// Opens the run of a bucket file that starts at `offset`.
fn open_run(path: &Path, offset: u64) -> Result<RecordStream, FrameError> {
    let mut r = FramedReader::open(path, BUCKET_KIND)?;
    r.seek_to(offset)?;
    let len = r.expect_section(TAG_RUN)?;
    Ok(RecordStream::new(r.into_payload(TAG_RUN, len)))
}

/// Offsets of the runs of a complete bucket file (checked for END.);
/// `verify`: every run's checksum checked too, before any of its records
/// is used (a merge reads several runs at once and would otherwise count
/// the records of a damaged run before reaching its checksum).
fn run_offsets(path: &Path, expected_runs: u64, verify: bool) -> Result<Vec<u64>, FrameError> {
    let mut r = FramedReader::open(path, BUCKET_KIND)?;
    let mut offsets = Vec::new();
    loop {
        let at = r.position()?;
        let (tag, len) = r.next_section()?;
        if tag == TAG_RUN {
            offsets.push(at);
            if verify {
                r.stream(TAG_RUN, len, |_| Ok::<(), std::convert::Infallible>(()))?;
            } else {
                r.skip(len)?;
            }
        } else if tag == crate::formats::framed::TAG_END {
            r.seek_to(at)?;
            r.end()?;
            break;
        } else {
            return Err(r.corrupt(format!("unexpected section {:?}", String::from_utf8_lossy(&tag))));
        }
    }
    if offsets.len() as u64 != expected_runs {
        return Err(r.corrupt(format!("{} runs, the manifest promises {expected_runs}", offsets.len())));
    }
    Ok(offsets)
}

/// Merges the given runs of `path`, summing multiplicities of equal keys,
/// handing each merged record to `emit` in key order.
fn merge_runs(path: &Path, offsets: &[u64], emit: &mut dyn FnMut(Record) -> io::Result<()>) -> Result<(), FrameError> {
    let mut cursors = Vec::with_capacity(offsets.len());
    let mut heads = Vec::with_capacity(offsets.len());
    for &o in offsets {
        let mut c = open_run(path, o)?;
        heads.push(c.next()?);
        cursors.push(c);
    }
    let mut tree = LoserTree::new(&heads);
    let mut current: Option<Record> = None;
    while let Some((i, (k, m))) = tree.winner() {
        match &mut current {
            Some((ck, cm)) if *ck == k => *cm = crate::census::add_games(*cm, m),
            _ => {
                if let Some(r) = current.take() {
                    emit(r).map_err(|e| io_err(path, e))?;
                }
                current = Some((k, m));
            }
        }
        let next = cursors[i].next()?;
        if next.is_some_and(|(k, _)| k == ENDED) {
            return Err(FrameError::Corrupt {
                path: path.to_path_buf(),
                kind: BUCKET_KIND.name,
                detail: "a record's key has all 128 bits set".into(),
            });
        }
        tree.replace(i, next);
    }
    if let Some(r) = current {
        emit(r).map_err(|e| io_err(path, e))?;
    }
    Ok(())
}

/// A tournament (loser) tree over the heads of k sorted runs: the least
/// head in one look, the next after log2(k) comparisons along one path
/// (a binary heap makes about twice as many, on both children of a node).
pub(super) struct LoserTree {
    /// Each leaf's head key; [`ENDED`] for a run that has ended, which
    /// loses to every record (no stored key comes near it).
    keys: Vec<u128>,
    /// Each leaf's head multiplicity.
    mults: Vec<u128>,
    /// `nodes[0]`: the leaf that won; `nodes[n]` for n >= 1: the leaf that
    /// lost at internal node n (children 2n and 2n + 1; leaf l is node
    /// `size + l`).
    nodes: Vec<usize>,
    size: usize,
}

/// The key of a run that has ended, in a [`LoserTree`].
const ENDED: u128 = u128::MAX;

impl LoserTree {
    pub(super) fn new(heads: &[Option<Record>]) -> Self {
        let size = heads.len().next_power_of_two().max(2);
        let (mut keys, mut mults): (Vec<u128>, Vec<u128>) = heads.iter().map(|h| h.unwrap_or((ENDED, 0))).unzip();
        keys.resize(size, ENDED);
        mults.resize(size, 0);
        let mut t = LoserTree { keys, mults, nodes: vec![0; size], size };
        // winners of every subtree, bottom up
        let mut winners = vec![0usize; 2 * size];
        for l in 0..size {
            winners[size + l] = l;
        }
        for n in (1..size).rev() {
            let (a, b) = (winners[2 * n], winners[2 * n + 1]);
            let (win, lose) = if t.beats(b, a) { (b, a) } else { (a, b) };
            winners[n] = win;
            t.nodes[n] = lose;
        }
        t.nodes[0] = winners[1];
        t
    }

    /// Whether leaf `a`'s head comes before leaf `b`'s.
    #[inline(always)]
    fn beats(&self, a: usize, b: usize) -> bool {
        self.keys[a] < self.keys[b]
    }

    /// The leaf with the least head, and that head (`None`: every run ended).
    #[inline]
    pub(super) fn winner(&self) -> Option<(usize, Record)> {
        let w = self.nodes[0];
        (self.keys[w] != ENDED).then(|| (w, (self.keys[w], self.mults[w])))
    }

    /// Gives leaf `l` (the last winner) its next head and replays its path.
    #[inline]
    pub(super) fn replace(&mut self, l: usize, head: Option<Record>) {
        (self.keys[l], self.mults[l]) = head.unwrap_or((ENDED, 0));
        let mut win = l;
        let mut n = (self.size + l) / 2;
        while n >= 1 {
            // the loser stays at the node, the winner goes on up: selects,
            // not a branch (which run wins is not predictable)
            let other = self.nodes[n];
            let beaten = self.beats(other, win);
            self.nodes[n] = std::hint::select_unpredictable(beaten, win, other);
            win = std::hint::select_unpredictable(beaten, other, win);
            n /= 2;
        }
        self.nodes[0] = win;
    }
}

/// Writes one RUN section to `w` (the file `dest`) holding the merge of
/// the given runs of `source`, through [`merge_offsets`].
pub(super) fn write_merged_run<W: Write + io::Seek>(
    w: &mut W,
    dest: &Path,
    source: &Path,
    offsets: &[u64],
    fan_in: usize,
) -> Result<(), FrameError> {
    let mut failure: Option<FrameError> = None;
    write_section_streaming(w, TAG_RUN, |h| {
        let mut buf = Vec::with_capacity(1 << 16);
        let mut prev = 0u128;
        if let Err(e) = merge_offsets(source, offsets, fan_in, &mut |(k, m)| {
            put_varint_pair(&mut buf, k - prev, m);
            prev = k;
            if buf.len() >= 1 << 16 {
                h.put(&buf)?;
                buf.clear();
            }
            Ok(())
        }) {
            failure = Some(e);
            return Err(io::Error::other("merge failed"));
        }
        h.put(&buf)
    })
    .map(|_| ())
    .map_err(|e| failure.take().unwrap_or_else(|| io_err(dest, e)))
}

/// Checks a complete bucket (`runs` runs): its frame, its runs and every
/// run's checksum.
pub fn verify_bucket(path: &Path, runs: u64) -> Result<(), FrameError> {
    run_offsets(path, runs, true).map(|_| ())
}

/// Merges a whole complete bucket (`runs` runs) into sorted unique
/// records; `verify`: every run's checksum checked first (unless the
/// bucket was checked just before, [`verify_bucket`]).
pub fn merge_bucket(
    path: &Path,
    runs: u64,
    fan_in: usize,
    verify: bool,
    emit: &mut dyn FnMut(Record) -> io::Result<()>,
) -> Result<(), FrameError> {
    let offsets = run_offsets(path, runs, verify)?;
    merge_offsets(path, &offsets, fan_in, emit)
}

/// Merges the runs of `path` at `offsets` into sorted unique records. More
/// than `fan_in` runs (at least 2) are first merged in groups into a
/// scratch bucket next to it, as often as needed; at most `fan_in + 2`
/// files are open at once.
fn merge_offsets(
    path: &Path,
    offsets: &[u64],
    fan_in: usize,
    emit: &mut dyn FnMut(Record) -> io::Result<()>,
) -> Result<(), FrameError> {
    let fan_in = fan_in.max(2);
    let mut source = path.to_path_buf();
    let mut offsets = offsets.to_vec();
    let mut pass = 0;
    let mut scratch: Vec<PathBuf> = Vec::new();
    let result = (|| {
        while offsets.len() > fan_in {
            pass += 1;
            let next = path.with_extension(format!("pass{pass}"));
            scratch.push(next.clone());
            let f = File::create(&next).map_err(|e| io_err(&next, e))?;
            let mut w = BufWriter::with_capacity(1 << 16, f);
            write_preamble(&mut w, &BUCKET_KIND).map_err(|e| io_err(&next, e))?;
            let mut n = 0u64;
            for group in offsets.chunks(fan_in) {
                write_merged_run(&mut w, &next, &source, group, fan_in)?;
                n += 1;
            }
            write_end(&mut w).map_err(|e| io_err(&next, e))?;
            w.flush().map_err(|e| io_err(&next, e))?;
            drop(w);
            source = next;
            // (written just now from checked runs)
            offsets = run_offsets(&source, n, false)?;
        }
        merge_runs(&source, &offsets, emit)
    })();
    for s in scratch {
        let _ = std::fs::remove_file(s);
    }
    result
}
