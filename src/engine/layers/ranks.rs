//! Which MPI rank this process is, if `mpirun` (or `srun`) started it: the
//! [`Transport`] the command line hands to the layered driver.
//!
//! Built with the `mpi` feature, a process that a launcher started
//! initialises MPI and runs the layered census as one rank of the job;
//! anything else runs alone. A binary built without the feature that finds
//! itself one of several ranks refuses, rather than running the same
//! census several times.

use super::transport::{Alone, Transport};

/// Why this process cannot take its place among the ranks.
#[derive(Debug, thiserror::Error)]
pub enum RanksError {
    #[error("MPI could not be initialised")]
    Init,
    #[error(
        "started as one of {0} MPI ranks, but this binary was built without MPI; build it with \
         `cargo build --release --features mpi` (docs/distributed.md)"
    )]
    NoMpi(u32),
}

/// The ranks of this job (one, without MPI).
pub struct Ranks {
    #[cfg(feature = "mpi")]
    mpi: Option<(Held, super::distributed::Cluster)>,
}

/// MPI's environment, held until the process ends (dropping it finalises
/// MPI).
#[cfg(feature = "mpi")]
struct Held(#[allow(dead_code)] mpi::environment::Universe);

// SAFETY: the universe is never used after `Ranks::init` made it: it is
// only dropped, once, with the `Ranks` that holds it, which the main thread
// owns; sharing a reference to it across threads gives no access to it.
#[cfg(feature = "mpi")]
unsafe impl Sync for Held {}

/// Ranks that the launcher says the job has, from the environment it sets
/// (Open MPI, then PMI/PMIx as MPICH, Intel MPI and Slurm set them).
fn launched_ranks() -> Option<u32> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok())
        .and_then(|s| s.trim().parse().ok())
}

impl Ranks {
    /// Joins the MPI job if a launcher started this process.
    pub fn init() -> Result<Ranks, RanksError> {
        #[cfg(feature = "mpi")]
        {
            if launched_ranks().is_none() {
                return Ok(Ranks { mpi: None });
            }
            let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Serialized) else {
                return Err(RanksError::Init);
            };
            let cluster = super::distributed::Cluster::new(universe.world());
            abort_on_panic();
            Ok(Ranks { mpi: Some((Held(universe), cluster)) })
        }
        #[cfg(not(feature = "mpi"))]
        {
            match launched_ranks() {
                Some(n) if n > 1 => Err(RanksError::NoMpi(n)),
                _ => Ok(Ranks {}),
            }
        }
    }

    /// Whether this process is a rank of an MPI job.
    pub fn distributed(&self) -> bool {
        #[cfg(feature = "mpi")]
        if self.mpi.is_some() {
            return true;
        }
        false
    }

    /// Ends the whole job now (under MPI), so that no rank waits for this
    /// one forever; alone, does nothing.
    pub fn abort(&self, _code: i32) {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            c.abort(_code);
        }
    }

    /// The transport underneath: MPI's, or one process alone.
    fn inner(&self) -> &dyn Transport {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            return c;
        }
        &Alone
    }
}

// The primitives, and the collectives MPI does natively, are those of the
// transport underneath; the rest are the trait's own.
impl Transport for Ranks {
    fn rank(&self) -> u32 {
        self.inner().rank()
    }
    fn ranks(&self) -> u32 {
        self.inner().ranks()
    }
    fn separate_dirs(&self) -> bool {
        self.inner().separate_dirs()
    }
    fn message_cap(&self) -> usize {
        self.inner().message_cap()
    }
    fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.inner().gather_bytes(mine)
    }
    fn all_to_all(&self, out: &[&[u8]]) -> Vec<Vec<u8>> {
        self.inner().all_to_all(out)
    }
    fn gather(&self, v: u64) -> Vec<u64> {
        self.inner().gather(v)
    }
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        self.inner().broadcast(bytes)
    }
}

/// A panic on any thread of a rank ends the whole job at once.
#[cfg(feature = "mpi")]
fn abort_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        super::distributed::abort_job(101);
    }));
}
