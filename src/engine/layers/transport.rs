//! Transports: what the one layered driver needs from the processes that
//! run a census together — which rank this is, which partitions it owns,
//! whether every rank succeeded, sums, broadcasts, and the all-to-all
//! exchange of child records. [`Alone`] is one process; the MPI ranks
//! (`distributed::Cluster`, feature `mpi`) and [`ThreadRanks`] (threads of
//! one process standing in for ranks, with a small message cap, for tests
//! of the exchange without `mpirun`) are the others.
//!
//! Partition `p` of every layer belongs to rank `p mod R`. The driver
//! calls a transport from one thread only.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier, Mutex};

use super::LayersError;
use super::shuffle::{LocalBuckets, ShuffleSink};
use super::store::{EncodedRun, Record};

/// The most bytes one rank sends in one all-to-all round (all destinations
/// together) over MPI, so that no message and no count comes near MPI's
/// `i32` counts or Open MPI's trouble with collectives over 2 GiB.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// The rank that owns partition `partition` of a run of `ranks` ranks:
/// it merges that partition's buckets and keeps its parts (in its own
/// directory). The one place the rule is written.
pub const fn owner_of(partition: u32, ranks: u32) -> u32 {
    partition % ranks
}

/// `mpirun -np N ` when the run has ranks (each in its own directory), to
/// put before a command that names the run; empty for one process.
pub fn launcher<T: Transport + ?Sized>(t: &T) -> String {
    if t.separate_dirs() { format!("mpirun -np {} ", t.ranks()) } else { String::new() }
}

/// The processes of one run, seen from one of them. Every collective
/// (everything but `rank`, `ranks`, `owns`, `separate_dirs` and
/// `message_cap`) must be called by every rank, in the same order.
pub trait Transport: Sync {
    /// This rank.
    fn rank(&self) -> u32;
    /// Ranks in the run.
    fn ranks(&self) -> u32;
    /// Whether each rank keeps its files in its own directory
    /// (`rank-RRRR-of-NNNN` below the run's).
    fn separate_dirs(&self) -> bool;
    /// The most bytes one rank sends in one round of [`Transport::exchange`].
    fn message_cap(&self) -> usize;
    /// Every rank's bytes, in rank order, on every rank.
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>>;
    /// One all-to-all round: sends `out[d]` to rank `d` (together at most
    /// [`Transport::message_cap`] bytes) and returns what each rank sent here.
    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>>;

    /// Whether partition `p` belongs to this rank.
    fn owns(&self, p: u32) -> bool {
        owner_of(p, self.ranks()) == self.rank()
    }

    /// Every rank's `v`, in rank order, on every rank.
    fn gather(&self, v: u64) -> Vec<u64> {
        self.gather_bytes(&v.to_le_bytes())
            .iter()
            .map(|b| u64::from_le_bytes(b[..8].try_into().expect("8 bytes")))
            .collect()
    }

    /// The element-wise sum of `v` over the ranks, on every rank.
    fn sum(&self, v: &[u64]) -> Vec<u64> {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut out = vec![0u64; v.len()];
        for b in self.gather_bytes(&bytes) {
            for (o, c) in out.iter_mut().zip(b.chunks_exact(8)) {
                *o += u64::from_le_bytes(c.try_into().expect("8 bytes"));
            }
        }
        out
    }

    /// The largest `v` over the ranks, on every rank.
    fn max(&self, v: u64) -> u64 {
        self.gather(v).into_iter().max().unwrap_or(v)
    }

    /// Whether any rank says `flag`.
    fn any(&self, flag: bool) -> bool {
        self.max(flag as u64) > 0
    }

    /// Rank 0's bytes, on every rank.
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        if self.ranks() == 1 {
            return bytes;
        }
        let mine = if self.rank() == 0 { bytes } else { Vec::new() };
        self.gather_bytes(&mine).swap_remove(0)
    }

    /// `Ok` on every rank only if every rank's `r` is; otherwise each rank
    /// returns its own error or one naming the first rank that failed.
    fn agree<T>(&self, r: Result<T, LayersError>, work: &Path) -> Result<T, LayersError>
    where
        Self: Sized,
    {
        if self.ranks() == 1 {
            return r;
        }
        let failed = self.gather(r.is_err() as u64);
        match r {
            Err(e) => Err(e),
            Ok(v) => match failed.iter().position(|&f| f != 0) {
                None => Ok(v),
                Some(rank) => Err(LayersError::WorkDir {
                    path: work.to_path_buf(),
                    detail: format!("rank {rank} failed (its own message says why)"),
                }),
            },
        }
    }

    /// Sends `out[d]` to rank `d` and returns what each rank sent here, in
    /// as many all-to-all rounds as the message cap needs (every rank runs
    /// the same number of rounds).
    fn exchange(&self, out: &[Vec<u8>]) -> Vec<Vec<u8>>
    where
        Self: Sized,
    {
        let ranks = self.ranks() as usize;
        if ranks == 1 {
            return out.to_vec();
        }
        let cap = (self.message_cap() / ranks).max(1);
        let rounds_here = out.iter().map(|b| b.len().div_ceil(cap)).max().unwrap_or(0) as u64;
        let rounds = self.max(rounds_here);
        let mut received: Vec<Vec<u8>> = vec![Vec::new(); ranks];
        for round in 0..rounds as usize {
            let pieces: Vec<&[u8]> = out
                .iter()
                .map(|b| {
                    let from = (round * cap).min(b.len());
                    &b[from..(from + cap).min(b.len())]
                })
                .collect();
            for (s, got) in self.all_to_all(&pieces).into_iter().enumerate() {
                received[s].extend_from_slice(&got);
            }
        }
        received
    }
}

/// One process: rank 0 of 1, owning every partition, its files in the
/// run's directory.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Transport for Alone {
    fn rank(&self) -> u32 {
        0
    }
    fn ranks(&self) -> u32 {
        1
    }
    fn separate_dirs(&self) -> bool {
        false
    }
    fn message_cap(&self) -> usize {
        usize::MAX
    }
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        vec![mine.to_vec()]
    }
    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>> {
        out.iter().map(|b| b.to_vec()).collect()
    }
}

/// Ranks played by threads of one process, each with its own directory as
/// MPI ranks have, exchanging through shared memory in rounds of at most
/// `cap` bytes: the multi-rank driver and the rounds of its exchange,
/// tested without `mpirun`. Made by [`ThreadRanks::team`]; each rank runs
/// on its own thread.
pub struct ThreadRanks {
    rank: u32,
    shared: Arc<Shared>,
}

struct Shared {
    ranks: u32,
    cap: usize,
    barrier: Barrier,
    /// What each rank posted for the collective in progress.
    posted: Mutex<Vec<Vec<Vec<u8>>>>,
}

impl ThreadRanks {
    /// `ranks` ranks that send at most `cap` bytes a round.
    pub fn team(ranks: u32, cap: usize) -> Vec<ThreadRanks> {
        let shared = Arc::new(Shared {
            ranks,
            cap: cap.max(1),
            barrier: Barrier::new(ranks as usize),
            posted: Mutex::new(vec![Vec::new(); ranks as usize]),
        });
        (0..ranks).map(|rank| ThreadRanks { rank, shared: Arc::clone(&shared) }).collect()
    }

    /// Posts `mine`, waits for every rank, reads every rank's post, and
    /// waits again (so that no rank posts the next one too early).
    fn collective<T>(&self, mine: Vec<Vec<u8>>, read: impl FnOnce(&[Vec<Vec<u8>>]) -> T) -> T {
        self.shared.posted.lock().expect("posted")[self.rank as usize] = mine;
        self.shared.barrier.wait();
        let out = read(&self.shared.posted.lock().expect("posted"));
        self.shared.barrier.wait();
        out
    }
}

impl Transport for ThreadRanks {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn ranks(&self) -> u32 {
        self.shared.ranks
    }
    fn separate_dirs(&self) -> bool {
        true
    }
    fn message_cap(&self) -> usize {
        self.shared.cap
    }
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.collective(vec![mine.to_vec()], |all| all.iter().map(|p| p[0].clone()).collect())
    }
    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>> {
        let sent: usize = out.iter().map(|b| b.len()).sum();
        assert!(sent <= self.shared.cap, "a round of {sent} bytes over the cap of {}", self.shared.cap);
        let me = self.rank as usize;
        self.collective(out.iter().map(|b| b.to_vec()).collect(), |all| all.iter().map(|p| p[me].clone()).collect())
    }
}

/// The children of one round of an expansion: those of this rank's
/// partitions go to its buckets, the others are framed per destination
/// rank (`docs/distributed.md`, rank messages) to be exchanged.
pub struct Outbox<'a> {
    local: &'a LocalBuckets,
    rank: u32,
    ranks: u32,
    /// The partitions the current slice keeps (all, unsliced).
    keep: &'a (dyn Fn(u32) -> bool + Sync),
    out: Vec<Mutex<Vec<u8>>>,
}

impl<'a> Outbox<'a> {
    /// An empty outbox of rank `rank` of `ranks`, keeping the children of
    /// the partitions `keep` names.
    pub fn new(local: &'a LocalBuckets, rank: u32, ranks: u32, keep: &'a (dyn Fn(u32) -> bool + Sync)) -> Self {
        Outbox { local, rank, ranks, keep, out: (0..ranks).map(|_| Mutex::new(Vec::new())).collect() }
    }

    /// The framed runs for each rank.
    pub fn into_messages(self) -> Vec<Vec<u8>> {
        self.out.into_iter().map(|o| o.into_inner().expect("outbox lock")).collect()
    }
}

impl ShuffleSink for Outbox<'_> {
    fn partitions(&self) -> u32 {
        self.local.partitions()
    }

    fn keeps(&self, partition: u32) -> bool {
        (self.keep)(partition)
    }

    fn send(&self, partition: u32, run: EncodedRun<'_>) -> Result<(), LayersError> {
        let dest = owner_of(partition, self.ranks);
        if dest == self.rank {
            return self.local.send(partition, run);
        }
        append_run(&mut self.out[dest as usize].lock().expect("outbox lock"), partition, run);
        Ok(())
    }
}

/// Checks the runs framed in a message from rank `from` and hands each
/// to `deliver` (partition, run). Each run must be for a partition that
/// `owned` accepts, hold as many records as its header says, in
/// increasing keys. Input from another process: any defect is an error,
/// never a panic.
pub fn decode_message(
    bytes: &[u8],
    from: usize,
    owned: impl Fn(u32) -> bool,
    mut deliver: impl FnMut(u32, EncodedRun<'_>) -> Result<(), LayersError>,
) -> Result<(), LayersError> {
    let bad =
        |detail: String| LayersError::WorkDir { path: PathBuf::from(format!("message from rank {from}")), detail };
    let mut at = 0usize;
    while at < bytes.len() {
        let head = bytes.get(at..at + 20).ok_or_else(|| bad("a truncated run header".into()))?;
        let partition = u32::from_le_bytes(head[0..4].try_into().expect("4 bytes"));
        let n = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
        let len = u64::from_le_bytes(head[12..20].try_into().expect("8 bytes"));
        at += 20;
        if !owned(partition) {
            return Err(bad(format!("a run for partition {partition}, which this rank does not own")));
        }
        let end =
            usize::try_from(len).ok().and_then(|l| at.checked_add(l)).ok_or_else(|| bad("a bad length".into()))?;
        let body = bytes.get(at..end).ok_or_else(|| bad("a truncated run".into()))?;
        at = end;
        deliver(partition, EncodedRun::parse(body, n).map_err(|e| bad(e.to_string()))?)?;
    }
    Ok(())
}

/// Appends one run of `partition`, framed for [`decode_message`]: the
/// partition (u32), the records (u64), the body's bytes (u64), then the
/// records as a layer file holds them (LEB128 key differences and
/// multiplicities), all little-endian.
pub fn append_run(out: &mut Vec<u8>, partition: u32, run: EncodedRun<'_>) {
    append_frame(out, partition, run.records(), run.body());
}

fn append_frame(out: &mut Vec<u8>, partition: u32, records: u64, body: &[u8]) {
    out.extend_from_slice(&partition.to_le_bytes());
    out.extend_from_slice(&records.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
}

/// One run, framed (tests and fuzzing); its keys are encoded as they
/// are, in order or not.
pub fn frame_run(partition: u32, run: &[Record]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut prev = 0u128;
    for &(k, m) in run {
        crate::formats::framed::put_varint_pair(&mut body, k.wrapping_sub(prev), m);
        prev = k;
    }
    let mut out = Vec::new();
    append_frame(&mut out, partition, run.len() as u64, &body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ranks_exchange_in_rounds_under_the_cap() {
        let team = ThreadRanks::team(3, 7);
        std::thread::scope(|s| {
            for t in &team {
                s.spawn(move || {
                    let r = t.rank() as usize;
                    // rank r sends (r + 1) * 10 + d bytes of value r to rank d
                    let out: Vec<Vec<u8>> = (0..3).map(|d| vec![r as u8; (r + 1) * 10 + d]).collect();
                    let got = t.exchange(&out);
                    for (s, bytes) in got.iter().enumerate() {
                        assert_eq!(bytes, &vec![s as u8; (s + 1) * 10 + r]);
                    }
                    assert_eq!(t.sum(&[r as u64, 1]), vec![3, 3]);
                    assert_eq!(t.max(r as u64), 2);
                    assert_eq!(t.broadcast(vec![r as u8; r + 1]), vec![0]);
                    assert!(t.any(r == 1) && !t.any(false));
                });
            }
        });
    }

    proptest::proptest! {
        /// Any bytes from another rank decode or give an error, never a
        /// panic: arbitrary ones, and valid messages with bytes changed.
        #[test]
        fn any_message_decodes_or_is_refused(
            noise in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            keys in proptest::collection::btree_set(0u128..1 << 100, 1..20),
            edits in proptest::collection::vec((0usize..400, proptest::num::u8::ANY), 0..4),
        ) {
            let _ = decode_message(&noise, 0, |_| true, |_, _| Ok(()));
            let run: Vec<Record> = keys.into_iter().map(|k| (k, k % 7 + 1)).collect();
            let mut msg = frame_run(3, &run);
            for (at, byte) in edits {
                let n = msg.len();
                msg[at % n] = byte;
            }
            // whatever run is accepted has increasing keys
            let mut sorted = true;
            let _ = decode_message(&msg, 0, |_| true, |_, r| {
                sorted &= r.to_records().windows(2).all(|w| w[0].0 < w[1].0);
                Ok(())
            });
            proptest::prop_assert!(sorted);
        }
    }

    #[test]
    fn messages_decode_what_was_framed_and_refuse_damage() {
        let run = [(3u128, 1u128), (9, 2), (1 << 100, 5)];
        let mut msg = frame_run(4, &run);
        msg.extend(frame_run(6, &run[..1]));
        let mut got = Vec::new();
        decode_message(
            &msg,
            1,
            |p| p % 2 == 0,
            |p, r| {
                got.push((p, r.to_records()));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(got, vec![(4, run.to_vec()), (6, run[..1].to_vec())]);
        // not owned, truncated, a lying count, repeated keys: errors
        assert!(decode_message(&msg, 1, |p| p == 4, |_, _| Ok(())).is_err());
        assert!(decode_message(&msg[..msg.len() - 1], 1, |_| true, |_, _| Ok(())).is_err());
        let mut lying = frame_run(4, &run);
        lying[4] = 9;
        assert!(decode_message(&lying, 1, |_| true, |_, _| Ok(())).is_err());
        let repeated = frame_run(4, &[(3, 1), (3, 1)]);
        assert!(decode_message(&repeated, 1, |_| true, |_, _| Ok(())).is_err());
    }
}
