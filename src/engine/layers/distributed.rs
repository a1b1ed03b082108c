//! MPI ranks as a [`Transport`] of the layered driver (cargo feature
//! `mpi`; `docs/distributed.md`).
//!
//! Partition `p` of every layer belongs to rank `p mod R`. Each rank keeps
//! the parts and buckets of its partitions in its own directory,
//! `DIR/rank-RRRR-of-NNNN` (a local disk per node, or one shared path);
//! rank 0 alone holds the run's manifest and lock in `DIR`. The driver
//! (`driver.rs`) is the same as for one process; an error on any rank is
//! returned on every rank, and the caller aborts the job (`MPI_Abort`) so
//! that no rank waits forever in a collective.

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::transport::{MAX_MESSAGE_BYTES, Transport};

/// The ranks of a job.
pub struct Cluster {
    world: SimpleCommunicator,
    rank: u32,
    size: u32,
}

// SAFETY: MPI is initialised with `Threading::Serialized`: any thread may
// call it as long as no two do at once. The census calls it from the one
// thread that runs the driver (the driver's collectives), and the CLI only
// before and after that thread runs (rank, size, gather, broadcast, abort),
// never while it does; so sharing the communicator between those threads
// never makes two calls at once.
unsafe impl Send for Cluster {}
// SAFETY: as for `Send`.
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

    /// Ends every rank of the job at once.
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Waits for every rank.
    pub fn barrier(&self) {
        self.world.barrier();
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
        self.world.all_gather_into(&v, &mut out[..]);
        out
    }

    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
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
        self.world.all_gather_varcount_into(mine, &mut part);
        displs.iter().zip(&counts).map(|(&d, &c)| all[d as usize..(d + c) as usize].to_vec()).collect()
    }

    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>> {
        let ranks = self.size as usize;
        let sizes: Vec<u64> = out.iter().map(|b| b.len() as u64).collect();
        let mut incoming = vec![0u64; ranks];
        self.world.all_to_all_into(&sizes[..], &mut incoming[..]);
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
            self.world.all_to_all_varcount_into(&s, &mut r);
        }
        recv_displs.iter().zip(&recv_counts).map(|(&d, &c)| recv[d as usize..(d + c) as usize].to_vec()).collect()
    }
}
