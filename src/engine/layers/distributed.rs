//! MPI ranks as a [`Transport`] of the layered driver (cargo feature
//! `mpi`; `docs/distributed.md`).
//!
//! Partition `p` of every layer belongs to rank `p mod R`. Each rank keeps
//! the parts and buckets of its partitions in its own directory,
//! `DIR/rank-RRRR-of-NNNN` (a local disk per node, or one shared path);
//! rank 0 alone holds the run's manifest and lock in `DIR`. The driver
//! (`driver/`) is the same as for one process; an error on any rank is
//! returned on every rank, and the caller aborts the job (`MPI_Abort`) so
//! that no rank waits forever in a collective.

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::{Mutex, MutexGuard};

use super::transport::{MAX_MESSAGE_BYTES, Transport};

/// The world communicator, lent to one caller at a time by [`Cluster`].
struct World(SimpleCommunicator);

// SAFETY: MPI is initialised with `Threading::Serialized`
// (MPI_THREAD_SERIALIZED): any thread may call MPI, as long as no two calls
// overlap; a communicator is a handle that any thread may pass. The only
// `World` lives in a `Cluster`'s mutex and every call on it is made under
// that lock, so calls never overlap, whichever thread makes them.
unsafe impl Send for World {}

/// The ranks of a job. Every MPI call goes through the communicator's
/// lock, so a `Cluster` can be shared with the thread that runs the driver
/// (it is `Send` and `Sync` by construction, not by a rule of the program).
/// The one call made without it is [`abort_job`], from a panic, which
/// ends every process.
pub struct Cluster {
    world: Mutex<World>,
    rank: u32,
    size: u32,
}

/// Ends every rank of the job (`MPI_Abort` on the world communicator);
/// for a panic hook, which has no `Cluster` at hand.
pub fn abort_job(code: i32) -> ! {
    SimpleCommunicator::world().abort(code)
}

impl Cluster {
    /// The ranks of `world`.
    pub fn new(world: SimpleCommunicator) -> Self {
        let (rank, size) = (world.rank() as u32, world.size() as u32);
        Cluster { world: Mutex::new(World(world)), rank, size }
    }

    /// The communicator, for one call or a few in a row. (A panic while it
    /// was lent aborts the job, so a poisoned lock is never seen in use.)
    fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends every rank of the job at once.
    pub fn abort(&self, code: i32) -> ! {
        self.world().0.abort(code)
    }

    /// Waits for every rank.
    pub fn barrier(&self) {
        self.world().0.barrier();
    }
}

/// Displacements of consecutive pieces of `counts` bytes.
fn displacements(counts: &[i32]) -> Vec<i32> {
    counts.iter().scan(0, |a, &c| Some(std::mem::replace(a, *a + c))).collect()
}

impl Transport for Cluster {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.size
    }

    fn separate_dirs(&self) -> bool {
        true
    }

    fn message_cap(&self) -> usize {
        MAX_MESSAGE_BYTES
    }

    fn gather(&self, v: u64) -> Vec<u64> {
        let mut out = vec![0u64; self.size as usize];
        self.world().0.all_gather_into(&v, &mut out[..]);
        out
    }

    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let world = self.world();
        let root = world.0.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.rank == 0 { bytes } else { vec![0u8; len as usize] };
        for chunk in buf.chunks_mut(MAX_MESSAGE_BYTES) {
            root.broadcast_into(chunk);
        }
        buf
    }

    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let lens = self.gather(mine.len() as u64);
        let counts: Vec<i32> = lens.iter().map(|&l| l as i32).collect();
        let displs = displacements(&counts);
        let mut all = vec![0u8; (lens.iter().sum::<u64>() as usize).max(1)];
        let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        self.world().0.all_gather_varcount_into(mine, &mut part);
        displs.iter().zip(&counts).map(|(&d, &c)| all[d as usize..(d + c) as usize].to_vec()).collect()
    }

    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>> {
        let ranks = self.size as usize;
        let sizes: Vec<u64> = out.iter().map(|b| b.len() as u64).collect();
        let mut incoming = vec![0u64; ranks];
        self.world().0.all_to_all_into(&sizes[..], &mut incoming[..]);
        let send_counts: Vec<i32> = sizes.iter().map(|&s| s as i32).collect();
        let recv_counts: Vec<i32> = incoming.iter().map(|&s| s as i32).collect();
        let (send_displs, recv_displs) = (displacements(&send_counts), displacements(&recv_counts));
        // never an empty allocation: Open MPI reads the dangling pointer of
        // an empty buffer (address 1) as MPI_IN_PLACE
        let mut send = Vec::with_capacity((sizes.iter().sum::<u64>() as usize).max(1));
        for piece in out {
            send.extend_from_slice(piece);
        }
        let mut recv = vec![0u8; (incoming.iter().sum::<u64>() as usize).max(1)];
        {
            let s = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut r = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
            self.world().0.all_to_all_varcount_into(&s, &mut r);
        }
        recv_displs.iter().zip(&recv_counts).map(|(&d, &c)| recv[d as usize..(d + c) as usize].to_vec()).collect()
    }
}
