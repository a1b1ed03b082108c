//! The MPI driver (cargo feature `mpi`): one census over R ranks, composed
//! of the same parts as the local driver (`docs/distributed.md`).
//!
//! Partition `p` of every layer belongs to rank `p mod R`. Each rank keeps
//! the parts and buckets of its partitions in its own directory,
//! `DIR/rank-RRRR-of-NNNN` (a local disk per node, or one shared path);
//! rank 0 alone holds the run's manifest and lock in `DIR`. A layer is
//! expanded in rounds, one parent part per rank per round: the children of
//! a rank's own partitions go straight to its buckets, the others are
//! exchanged with an all-to-all in messages of at most
//! [`MAX_MESSAGE_BYTES`]. Every rank then merges its own partitions.
//! Counts are summed over the ranks, and a phase is committed by rank 0
//! only after every rank's files are durable (the collective that sums
//! them is the barrier); the manifest then reaches every rank by
//! broadcast. An error on any rank is returned; the caller aborts the job
//! (`MPI_Abort`) so that no rank waits forever in a collective.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rayon::prelude::*;

use super::commit::{commit, read_state, set_limit};
use super::driver::{DiskWatch, check_disk, check_mass, count_partition, layer_counts};
use super::expand::{BUFFER_BYTES_PER_RECORD, BUFFER_SHARE, Expansion, PartInput, expand};
use super::merge::merge_partition;
use super::shuffle::{LocalBuckets, NoChildren, ShuffleSink};
use super::store::{
    Entering, Manifest, PHASE_COUNTED, Record, RunConfig, encode_records, partition_of, to_stored, write_part,
};
use super::workdir::WorkDir;
use super::{LayersError, LayersLive, LayersOutcome, LayersPlan, LayersSettings, PhaseStat, RunContext};
use crate::board::Position;
use crate::census::{Census, LayerBy};
use crate::engine::resources::{merge_fan_in, open_files_limit};
use crate::framed::{bincode_config, encode};
use crate::key::dense::side_weight;
use crate::key::{Keyed, PackedKey, canonical_key};
use crate::software;

/// The most bytes one rank sends in one all-to-all (all destinations
/// together), so that no message and no count comes near MPI's `i32`
/// counts or Open MPI's trouble with collectives over 2 GiB.
pub const MAX_MESSAGE_BYTES: usize = 256 << 20;

/// Child records generated per child class, before duplicates are summed
/// (an estimate for sizing the rounds of an expansion; 2 to 3 measured).
const RAW_CHILDREN_PER_CLASS: f64 = 2.5;

/// The ranks of a job.
pub struct Cluster {
    world: SimpleCommunicator,
    rank: u32,
    size: u32,
}

// The census calls MPI from one thread at a time (the thread that runs the
// driver; MPI is initialised with `Threading::Serialized`), so the
// communicator may move to that thread and be shared with it.
unsafe impl Send for Cluster {}
unsafe impl Sync for Cluster {}

/// Ends every rank of the job (`MPI_Abort` on the world communicator);
/// for a panic hook, which has no `Cluster` at hand.
pub fn abort_job(code: i32) -> ! {
    SimpleCommunicator::world().abort(code)
}

impl Cluster {
    /// The ranks of `world`.
    pub fn new(world: SimpleCommunicator) -> Self {
        let (rank, size) = (world.rank() as u32, world.size() as u32);
        Cluster { world, rank, size }
    }

    /// This rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// Ranks in the job.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Ends every rank of the job at once.
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Waits for every rank.
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// Rank 0's bytes, on every rank.
    pub fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.rank == 0 { bytes } else { vec![0u8; len as usize] };
        for chunk in buf.chunks_mut(MAX_MESSAGE_BYTES) {
            root.broadcast_into(chunk);
        }
        buf
    }

    /// The element-wise sum of `v` over the ranks, on every rank.
    pub fn sum(&self, v: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; v.len()];
        self.world.all_reduce_into(v, &mut out[..], SystemOperation::sum());
        out
    }

    /// The largest `v` over the ranks, on every rank.
    pub fn max(&self, v: u64) -> u64 {
        let mut out = 0u64;
        self.world.all_reduce_into(&v, &mut out, SystemOperation::max());
        out
    }

    /// Every rank's `v`, on every rank.
    pub fn gather(&self, v: u64) -> Vec<u64> {
        let mut out = vec![0u64; self.size as usize];
        self.world.all_gather_into(&v, &mut out[..]);
        out
    }

    /// Every rank's bytes (any length), on every rank.
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let lens = self.gather(mine.len() as u64);
        let counts: Vec<i32> = lens.iter().map(|&l| l as i32).collect();
        let displs: Vec<i32> = counts.iter().scan(0, |a, &c| Some(std::mem::replace(a, *a + c))).collect();
        let mut all = vec![0u8; (lens.iter().sum::<u64>() as usize).max(1)];
        let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        self.world.all_gather_varcount_into(mine, &mut part);
        displs.iter().zip(&counts).map(|(&d, &c)| all[d as usize..(d + c) as usize].to_vec()).collect()
    }

    /// Sends `out[d]` to rank `d` and returns what each rank sent here, in
    /// rounds of all-to-all that move at most [`MAX_MESSAGE_BYTES`] from
    /// any rank. Every rank must call it.
    fn exchange(&self, out: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let ranks = self.size as usize;
        let sizes: Vec<u64> = out.iter().map(|b| b.len() as u64).collect();
        let mut incoming = vec![0u64; ranks];
        self.world.all_to_all_into(&sizes[..], &mut incoming[..]);
        let cap = (MAX_MESSAGE_BYTES / ranks).max(1) as u64;
        let rounds_here = sizes.iter().chain(&incoming).map(|&s| s.div_ceil(cap)).max().unwrap_or(0);
        let rounds = self.max(rounds_here);
        let mut received: Vec<Vec<u8>> = incoming.iter().map(|&s| Vec::with_capacity(s as usize)).collect();
        let (mut sent_at, mut got_at) = (vec![0u64; ranks], vec![0u64; ranks]);
        for _ in 0..rounds {
            let piece = |total: &[u64], at: &[u64], d: usize| (total[d] - at[d]).min(cap);
            let send_counts: Vec<i32> = (0..ranks).map(|d| piece(&sizes, &sent_at, d) as i32).collect();
            let recv_counts: Vec<i32> = (0..ranks).map(|s| piece(&incoming, &got_at, s) as i32).collect();
            let prefix = |c: &[i32]| c.iter().scan(0, |a, &x| Some(std::mem::replace(a, *a + x))).collect::<Vec<i32>>();
            let (send_displs, recv_displs) = (prefix(&send_counts), prefix(&recv_counts));
            // never an empty allocation: Open MPI reads the dangling pointer
            // of an empty buffer (address 1) as MPI_IN_PLACE
            let mut send = Vec::with_capacity((send_counts.iter().sum::<i32>() as usize).max(1));
            for d in 0..ranks {
                let from = sent_at[d] as usize;
                send.extend_from_slice(&out[d][from..from + send_counts[d] as usize]);
                sent_at[d] += send_counts[d] as u64;
            }
            let mut recv = vec![0u8; (recv_counts.iter().sum::<i32>() as usize).max(1)];
            {
                let s = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
                let mut r = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
                self.world.all_to_all_varcount_into(&s, &mut r);
            }
            for s in 0..ranks {
                let from = recv_displs[s] as usize;
                received[s].extend_from_slice(&recv[from..from + recv_counts[s] as usize]);
                got_at[s] += recv_counts[s] as u64;
            }
        }
        received
    }

    /// Whether any rank says `flag`.
    fn any(&self, flag: bool) -> bool {
        self.max(flag as u64) > 0
    }

    /// `Ok` on every rank only if every rank's `r` is; otherwise each rank
    /// returns its own error or one naming the first rank that failed.
    fn agree<T>(&self, r: Result<T, LayersError>, work: &Path) -> Result<T, LayersError> {
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

    fn owns(&self, partition: u32) -> bool {
        partition % self.size == self.rank
    }
}

/// The outgoing children of one round: those of this rank's partitions
/// go to its buckets, the others are framed per destination rank.
struct Outbox<'a> {
    local: &'a LocalBuckets,
    cluster_rank: u32,
    ranks: u32,
    out: Vec<Mutex<Vec<u8>>>,
}

impl ShuffleSink for Outbox<'_> {
    fn partitions(&self) -> u32 {
        self.local.partitions()
    }

    fn send(&self, partition: u32, run: &[Record]) -> Result<(), LayersError> {
        let dest = partition % self.ranks;
        if dest == self.cluster_rank {
            return self.local.send(partition, run);
        }
        let mut body = Vec::with_capacity(run.len() * 8);
        encode_records(run, &mut body);
        let mut o = self.out[dest as usize].lock().expect("outbox lock");
        o.extend_from_slice(&partition.to_le_bytes());
        o.extend_from_slice(&(run.len() as u64).to_le_bytes());
        o.extend_from_slice(&(body.len() as u64).to_le_bytes());
        o.extend_from_slice(&body);
        Ok(())
    }
}

/// Appends the runs framed in `bytes` (from another rank) to this rank's
/// buckets; each must belong to one of its partitions.
fn deliver(bytes: &[u8], buckets: &LocalBuckets, cluster: &Cluster, from: usize) -> Result<(), LayersError> {
    let bad =
        |detail: String| LayersError::WorkDir { path: PathBuf::from(format!("message from rank {from}")), detail };
    let mut at = 0usize;
    let mut records = Vec::new();
    while at < bytes.len() {
        let head = bytes.get(at..at + 20).ok_or_else(|| bad("a truncated run header".into()))?;
        let partition = u32::from_le_bytes(head[0..4].try_into().expect("4 bytes"));
        let n = u64::from_le_bytes(head[4..12].try_into().expect("8 bytes"));
        let len = u64::from_le_bytes(head[12..20].try_into().expect("8 bytes")) as usize;
        at += 20;
        if partition >= buckets.partitions() || !cluster.owns(partition) {
            return Err(bad(format!("a run for partition {partition}, which rank {} does not own", cluster.rank)));
        }
        let body = bytes.get(at..at + len).ok_or_else(|| bad("a truncated run".into()))?;
        at += len;
        records.clear();
        let (mut pos, mut prev) = (0usize, 0u128);
        while pos < body.len() {
            let delta = varint(body, &mut pos).ok_or_else(|| bad("a bad record".into()))?;
            let m = varint(body, &mut pos).ok_or_else(|| bad("a bad record".into()))?;
            prev = prev.checked_add(delta).ok_or_else(|| bad("a key overflow".into()))?;
            records.push((prev, m));
        }
        if records.len() as u64 != n {
            return Err(bad(format!("a run of {} records that says {n}", records.len())));
        }
        buckets.send(partition, &records)?;
    }
    Ok(())
}

/// Decodes a value encoded by [`encode`].
fn decode<T: bincode::Decode<()>>(bytes: &[u8], what: &str) -> Result<T, LayersError> {
    bincode::decode_from_slice(bytes, bincode_config())
        .map(|(v, _)| v)
        .map_err(|e| LayersError::WorkDir { path: PathBuf::from(what), detail: format!("cannot decode: {e}") })
}

fn varint(b: &[u8], pos: &mut usize) -> Option<u128> {
    let mut v = 0u128;
    for shift in (0..128).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= ((byte & 0x7f) as u128) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The fixed-width encoding of an expansion, to be summed over ranks.
fn expansion_bytes(ex: &Expansion) -> Vec<u8> {
    encode(&(ex.counts, ex.ended, ex.entering.games, ex.entering.passes, ex.mass, ex.emitted, ex.spread, ex.shapes))
}

/// The sum over every rank of their expansions.
fn sum_expansions(cluster: &Cluster, ex: &Expansion) -> Result<Expansion, LayersError> {
    let mut total = Expansion::default();
    for bytes in cluster.gather_bytes(&expansion_bytes(ex)) {
        let (counts, ended, games, passes, mass, emitted, spread, shapes) = decode(&bytes, "the expansion of a rank")?;
        total.add(&Expansion { counts, ended, entering: Entering { games, passes }, mass, emitted, spread, shapes });
    }
    Ok(total)
}

/// Starts a new run over every rank of `cluster`.
pub fn start<G: Keyed>(
    cluster: &Cluster,
    plan: &LayersPlan,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let root = WorkDir::new(&plan.work_dir);
    let mine = root.for_rank(cluster.rank, cluster.size);
    cluster.agree(if cluster.rank == 0 { root.check_fresh() } else { Ok(()) }, root.root())?;
    let locks = cluster.agree(lock_both(cluster, &root, &mine, true), root.root())?;
    let begun = begin::<G>(cluster, &root, &mine, plan, settings);
    let m = cluster.agree(begun, root.root())?;
    let ctx = RunContext { settings, stop, live, work_dir: root.root() };
    let out = drive::<G>(cluster, &root, &mine, &ctx, m);
    drop(locks);
    out
}

/// Continues the run of `work_dir` over every rank of `cluster` (to a new
/// last layer if `limit` is given); the job must have as many ranks as
/// the run was started with.
pub fn resume<G: Keyed>(
    cluster: &Cluster,
    work_dir: &Path,
    limit: Option<u32>,
    settings: &LayersSettings,
    stop: &AtomicBool,
    live: &LayersLive,
) -> Result<LayersOutcome, LayersError> {
    let root = WorkDir::new(work_dir);
    let mine = root.for_rank(cluster.rank, cluster.size);
    let here = if mine.root().is_dir() {
        Ok(())
    } else {
        Err(LayersError::WorkDir {
            path: work_dir.to_path_buf(),
            detail: format!(
                "holds no {} on this node: resume a run with the number of ranks it was started with \
                 (mpirun -np N, N as in its rank-*-of-N directories), on nodes that hold its directories",
                mine.root().file_name().expect("a name").to_string_lossy()
            ),
        })
    };
    cluster.agree(here, work_dir)?;
    let locks = cluster.agree(lock_both(cluster, &root, &mine, false), work_dir)?;
    let state = if cluster.rank == 0 {
        (|| {
            read_state(&root)?;
            if let Some(limit) = limit {
                set_limit(&root, limit)?;
            }
            read_state(&root).map(Some)
        })()
    } else {
        Ok(None)
    };
    let state = cluster.agree(state, work_dir)?;
    let m = share_manifest(cluster, state)?;
    let ctx = RunContext { settings, stop, live, work_dir: root.root() };
    let out = drive::<G>(cluster, &root, &mine, &ctx, m);
    drop(locks);
    out
}

/// Rank 0 locks the run's directory, every rank its own.
fn lock_both(
    cluster: &Cluster,
    root: &WorkDir,
    mine: &WorkDir,
    fresh: bool,
) -> Result<(Option<super::workdir::RunLock>, super::workdir::RunLock), LayersError> {
    if fresh && cluster.rank == 0 && root.manifest().exists() {
        return Err(LayersError::WorkDir {
            path: root.root().to_path_buf(),
            detail: format!(
                "already holds a layered run; continue it with `mpirun -np N othello-census resume {}`",
                crate::text::shell_path(root.root())
            ),
        });
    }
    let top = if cluster.rank == 0 { Some(root.lock()?) } else { None };
    Ok((top, mine.lock()?))
}

/// Rank 0's manifest, on every rank.
fn share_manifest(cluster: &Cluster, m: Option<Manifest>) -> Result<Manifest, LayersError> {
    let bytes = cluster.broadcast(m.map(|m| encode(&m)).unwrap_or_default());
    decode(&bytes, "the manifest from rank 0")
}

/// Writes the first layer (each rank its own parts) and the manifest.
fn begin<G: Keyed>(
    cluster: &Cluster,
    root: &WorkDir,
    mine: &WorkDir,
    plan: &LayersPlan,
    settings: &LayersSettings,
) -> Result<Manifest, LayersError> {
    let run = RunConfig {
        size: G::N,
        by: plan.by.code(),
        limit: plan.limit,
        partitions: plan.partitions,
        command: plan.command.clone(),
        started_unix: plan.started_unix,
        memory_limit: settings.memory_limit,
    };
    let k = plan.by.first_layer();
    let parts = (|| {
        let dir = mine.create_layer_dir(k)?;
        let start = to_stored(canonical_key(&Position::<G>::start()).to_u128(), side_weight(G::N));
        let start_occupancy = Position::<G>::start().empty().0 ^ G::FULL;
        let home = partition_of(crate::key::occupancy::canonical_occupancy::<G>(start_occupancy).0, plan.partitions);
        let mut records = vec![0u64; plan.partitions as usize];
        for j in (0..plan.partitions).filter(|&j| cluster.owns(j)) {
            records[j as usize] =
                write_part(
                    &mine.part(k, j),
                    &run.part(k, j),
                    |emit| {
                        if j == home { emit((start, 1)) } else { Ok(()) }
                    },
                )?;
        }
        WorkDir::sync_dir(&dir)?;
        Ok(records)
    })();
    let records = cluster.agree(parts, root.root())?;
    let mut m = Manifest {
        software: software(),
        run,
        phase: 0,
        layer: k,
        part_records: cluster.sum(&records),
        stats: Vec::new(),
        entering: Entering { games: 1, passes: 0 },
        elapsed_seconds: 0.0,
    };
    let committed = if cluster.rank == 0 { commit(root, &mut m) } else { Ok(()) };
    cluster.agree(committed, root.root())?;
    Ok(m)
}

/// Runs the census from manifest `m` (the same on every rank) to the end.
fn drive<G: Keyed>(
    cluster: &Cluster,
    root: &WorkDir,
    mine: &WorkDir,
    ctx: &RunContext<'_>,
    m: Manifest,
) -> Result<LayersOutcome, LayersError> {
    let watch = DiskWatch::new(mine);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                watch.sample();
            }
        });
        let out = drive_phases::<G>(cluster, root, mine, ctx, &watch, m);
        done.store(true, Ordering::Relaxed);
        out
    })
}

fn drive_phases<G: Keyed>(
    cluster: &Cluster,
    root: &WorkDir,
    mine: &WorkDir,
    ctx: &RunContext<'_>,
    watch: &DiskWatch,
    mut m: Manifest,
) -> Result<LayersOutcome, LayersError> {
    let path = root.root();
    let bad = |detail: String| LayersError::WorkDir { path: path.to_path_buf(), detail };
    let Some(by) = LayerBy::from_code(m.run.by) else {
        return Err(bad(format!("the manifest names an unknown layering ({})", m.run.by)));
    };
    if m.run.size != G::N {
        return Err(bad(format!("the manifest describes a {0}x{0} run, not {1}x{1}", m.run.size, G::N)));
    }
    let started = Instant::now();
    let elapsed_before = m.elapsed_seconds;
    let elapsed = |s: Instant| elapsed_before + s.elapsed().as_secs_f64();
    let threads = ctx.settings.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let fan_in = merge_fan_in(open_files_limit(), threads, super::store::MAX_FAN_IN);
    let owned: Vec<u32> = (0..m.run.partitions).filter(|&j| cluster.owns(j)).collect();
    let share = owned.len() as f64 / m.run.partitions.max(1) as f64;
    let mut largest = (0u64, 0u64);
    let mut phases: Vec<PhaseStat> = Vec::new();
    ctx.live.partitions.store(owned.len() as u64, Ordering::Relaxed);
    ctx.live.limit.store(m.run.limit as u64, Ordering::Relaxed);
    mine.sweep(&m);
    // commits `m` on rank 0 once every rank is ready, then sweeps each rank
    let commit_all = |m: &mut Manifest| -> Result<(), LayersError> {
        let r = if cluster.rank == 0 { commit(root, m) } else { Ok(()) };
        cluster.agree(r, path)?;
        mine.sweep(m);
        Ok(())
    };
    loop {
        if m.phase == PHASE_COUNTED {
            let peak = cluster.max(watch.session.load(Ordering::Relaxed));
            let mut layers = m.stats;
            Census::fill_including_ended(&mut layers);
            return Ok(LayersOutcome {
                census: Census { size: G::N, by, limit: m.run.limit, layers },
                elapsed: Duration::from_secs_f64(m.elapsed_seconds),
                largest_layer: largest,
                peak_disk: peak,
                phases,
                command: m.run.command,
                partitions: m.run.partitions,
                last_layer_stored: false,
            });
        }
        let stopped = cluster.any(ctx.stop.load(Ordering::SeqCst));
        if stopped {
            return Err(LayersError::Interrupted(path.to_path_buf()));
        }
        let k = m.layer;
        watch.begin();
        let phase_started = Instant::now();
        if m.phase == 0 {
            let classes: u64 = m.part_records.iter().sum();
            let here: u64 = owned.iter().map(|&j| m.part_records[j as usize]).sum();
            let bytes = cluster.sum(&[mine.layer_bytes(k)])[0];
            if classes > largest.1 {
                largest = (bytes, classes);
            }
            let last = k >= m.run.limit;
            let compaction = if last {
                None
            } else {
                let room = check_disk(mine, &m, (here, mine.layer_bytes(k), share), ctx.settings);
                cluster.agree(room, path)?
            };
            ctx.live.layer.store(k as u64, Ordering::Relaxed);
            ctx.live.previous.store(m.stats.last().map_or(0, |s| s.counts.classes), Ordering::Relaxed);
            ctx.live.phase.store(0, Ordering::Relaxed);
            ctx.live.total.store(here, Ordering::Relaxed);
            ctx.live.done.store(0, Ordering::Relaxed);
            let inputs: Vec<PartInput> = owned
                .iter()
                .map(|&j| PartInput {
                    path: mine.part(k, j),
                    id: m.run.part(k, j),
                    records: m.part_records[j as usize],
                })
                .collect();
            if last {
                let ex = cluster.agree(expand::<G>(ctx, by, &inputs, false, &NoChildren), path)?;
                let ex = sum_expansions(cluster, &ex)?;
                phases.push(PhaseStat {
                    layer: k,
                    phase: "expand",
                    seconds: phase_started.elapsed().as_secs_f64(),
                    peak_disk: cluster.max(watch.end()),
                    records: 0,
                    compactions: 0,
                    exchanged: 0,
                });
                check_mass(by, k, ex.mass, m.entering.games).map_err(bad)?;
                m.stats.push(layer_counts(k, &ex, m.entering));
                m.elapsed_seconds = elapsed(started);
                m.phase = PHASE_COUNTED; // reported just above, not committed
                let peak = cluster.max(watch.session.load(Ordering::Relaxed));
                let mut layers = m.stats;
                Census::fill_including_ended(&mut layers);
                return Ok(LayersOutcome {
                    census: Census { size: G::N, by, limit: m.run.limit, layers },
                    elapsed: Duration::from_secs_f64(m.elapsed_seconds),
                    largest_layer: largest,
                    peak_disk: peak,
                    phases,
                    command: m.run.command,
                    partitions: m.run.partitions,
                    last_layer_stored: true,
                });
            }
            let buckets = cluster.agree(
                LocalBuckets::create_held(mine, k + 1, m.run.partitions, fan_in, compaction, |j| cluster.owns(j)),
                path,
            )?;
            // as few rounds as the buffers allow: children summed in one
            // buffer before they are sent are sent once
            let previous = m.stats.last().map_or(1.0, |s| (s.counts.classes as f64 * share).max(1.0));
            let children = here as f64 * (here as f64 / previous).max(1.0) * RAW_CHILDREN_PER_CLASS;
            let buffers = ctx.settings.memory_limit as f64 * BUFFER_SHARE;
            let want = (children * BUFFER_BYTES_PER_RECORD as f64 / buffers).ceil().max(1.0) as u64;
            let rounds = cluster.max(want.min(inputs.len().max(1) as u64)) as usize;
            let per_round = inputs.len().div_ceil(rounds).max(1);
            let mut ex = Expansion::default();
            let mut sent = 0u64;
            for i in 0..rounds {
                let outbox = Outbox {
                    local: &buckets,
                    cluster_rank: cluster.rank,
                    ranks: cluster.size,
                    out: (0..cluster.size).map(|_| Mutex::new(Vec::new())).collect(),
                };
                let group = inputs.chunks(per_round).nth(i).unwrap_or(&[]);
                let part = expand::<G>(ctx, by, group, true, &outbox);
                let part = cluster.agree(part, path)?;
                ex.add(&part);
                let out: Vec<Vec<u8>> = outbox.out.into_iter().map(|o| o.into_inner().expect("outbox lock")).collect();
                sent += out.iter().map(|o| o.len() as u64).sum::<u64>();
                let received = cluster.exchange(&out);
                drop(out);
                let delivered =
                    received.iter().enumerate().try_for_each(|(from, bytes)| deliver(bytes, &buckets, cluster, from));
                cluster.agree(delivered, path)?;
            }
            let compactions = buckets.compactions();
            let runs = cluster.agree(buckets.finish(), path)?;
            let ex = sum_expansions(cluster, &ex)?;
            let totals = cluster.sum(&[compactions, sent]);
            phases.push(PhaseStat {
                layer: k,
                phase: "expand",
                seconds: phase_started.elapsed().as_secs_f64(),
                peak_disk: cluster.max(watch.end()),
                records: ex.emitted,
                compactions: totals[0],
                exchanged: totals[1],
            });
            check_mass(by, k, ex.mass, m.entering.games).map_err(bad)?;
            m.stats.push(layer_counts(k, &ex, m.entering));
            if ex.emitted == 0 {
                super::workdir::remove_run_dir(&mine.bucket_dir(k + 1));
                m.elapsed_seconds = elapsed(started);
                m.phase = PHASE_COUNTED;
                continue;
            }
            m.phase = 1;
            m.part_records = cluster.sum(&runs);
            m.entering = ex.entering;
            m.elapsed_seconds = elapsed(started);
            commit_all(&mut m)?;
        } else {
            let next = k + 1;
            let count_only = next >= m.run.limit && !ctx.settings.store_last;
            ctx.live.layer.store(next as u64, Ordering::Relaxed);
            ctx.live.phase.store(1, Ordering::Relaxed);
            ctx.live.parts_done.store(0, Ordering::Relaxed);
            let (run, runs) = (&m.run, &m.part_records);
            let stop_here = || LayersError::Interrupted(path.to_path_buf());
            if count_only {
                let found: Result<Vec<Expansion>, LayersError> = pool.install(|| {
                    owned
                        .par_iter()
                        .map(|&j| {
                            if ctx.stop.load(Ordering::SeqCst) {
                                return Err(stop_here());
                            }
                            let ex = count_partition::<G>(mine, by, next, j, runs[j as usize], fan_in)?;
                            ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                            Ok(ex)
                        })
                        .collect()
                });
                let mut ex = Expansion::default();
                for f in cluster.agree(found, path)? {
                    ex.add(&f);
                }
                let ex = sum_expansions(cluster, &ex)?;
                phases.push(PhaseStat {
                    layer: next,
                    phase: "merge and count",
                    seconds: phase_started.elapsed().as_secs_f64(),
                    peak_disk: cluster.max(watch.end()),
                    records: ex.counts.classes,
                    compactions: 0,
                    exchanged: 0,
                });
                check_mass(by, next, ex.mass, m.entering.games).map_err(bad)?;
                m.stats.push(layer_counts(next, &ex, m.entering));
                m.phase = PHASE_COUNTED;
                m.layer = next;
                m.part_records = Vec::new();
                m.entering = Entering::default();
                m.elapsed_seconds = elapsed(started);
                commit_all(&mut m)?;
                continue;
            }
            let merged: Result<Vec<(u32, u64)>, LayersError> = (|| {
                let dir = mine.create_layer_dir(next)?;
                let counts: Result<Vec<(u32, u64)>, LayersError> = pool.install(|| {
                    owned
                        .par_iter()
                        .map(|&j| {
                            if ctx.stop.load(Ordering::SeqCst) {
                                return Err(stop_here());
                            }
                            let n = merge_partition(mine, &run.part(next, j), runs[j as usize], fan_in)?;
                            ctx.live.parts_done.fetch_add(1, Ordering::Relaxed);
                            Ok((j, n))
                        })
                        .collect()
                });
                WorkDir::sync_dir(&dir)?;
                counts
            })();
            let mut part_records = vec![0u64; m.run.partitions as usize];
            for (j, n) in cluster.agree(merged, path)? {
                part_records[j as usize] = n;
            }
            let part_records = cluster.sum(&part_records);
            phases.push(PhaseStat {
                layer: next,
                phase: "merge",
                seconds: phase_started.elapsed().as_secs_f64(),
                peak_disk: cluster.max(watch.end()),
                records: part_records.iter().sum(),
                compactions: 0,
                exchanged: 0,
            });
            m.phase = 0;
            m.layer = next;
            m.part_records = part_records;
            m.elapsed_seconds = elapsed(started);
            commit_all(&mut m)?;
        }
    }
}
