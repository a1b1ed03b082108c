//! Which MPI rank this process is, if `mpirun` started it.
//!
//! Built with the `mpi` feature, a process that `mpirun` (or `srun`)
//! started initialises MPI and runs the layered census as one rank of the
//! job; anything else runs alone. A binary built without the feature that
//! finds itself one of several ranks refuses, rather than running the same
//! census several times.

/// The ranks of this job (one, without MPI).
pub struct Ranks {
    #[cfg(feature = "mpi")]
    mpi: Option<(mpi::environment::Universe, othello_census::engine::layers::distributed::Cluster)>,
}

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
    pub fn init() -> anyhow::Result<Ranks> {
        #[cfg(feature = "mpi")]
        {
            if launched_ranks().is_none() {
                return Ok(Ranks { mpi: None });
            }
            let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Serialized) else {
                anyhow::bail!("MPI could not be initialised");
            };
            let cluster = othello_census::engine::layers::distributed::Cluster::new(universe.world());
            abort_on_panic();
            Ok(Ranks { mpi: Some((universe, cluster)) })
        }
        #[cfg(not(feature = "mpi"))]
        {
            match launched_ranks() {
                Some(n) if n > 1 => anyhow::bail!(
                    "started as one of {n} MPI ranks, but this binary was built without MPI; build it with \
                     `cargo build --release --features mpi` (docs/distributed.md)"
                ),
                _ => Ok(Ranks {}),
            }
        }
    }

    /// This process's rank (0 alone).
    pub fn rank(&self) -> u32 {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            return othello_census::engine::layers::Transport::rank(c);
        }
        0
    }

    /// Ranks in the job (1 alone).
    pub fn size(&self) -> u32 {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            return othello_census::engine::layers::Transport::ranks(c);
        }
        1
    }

    /// Whether this process is a rank of an MPI job.
    pub fn distributed(&self) -> bool {
        #[cfg(feature = "mpi")]
        if self.mpi.is_some() {
            return true;
        }
        false
    }

    /// Rank 0's `bytes`, on every rank.
    pub fn rank0s(&self, bytes: Vec<u8>) -> Vec<u8> {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            return othello_census::engine::layers::Transport::broadcast(c, bytes);
        }
        bytes
    }

    /// Every rank's `v`, in rank order (every rank must call it).
    pub fn gather(&self, v: u64) -> Vec<u64> {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            return othello_census::engine::layers::Transport::gather(c, v);
        }
        vec![v]
    }

    /// The job's ranks, under MPI.
    #[cfg(feature = "mpi")]
    pub fn cluster(&self) -> Option<&othello_census::engine::layers::distributed::Cluster> {
        self.mpi.as_ref().map(|(_, c)| c)
    }

    /// Ends the whole job now (under MPI), so that no rank waits for this
    /// one forever; alone, does nothing.
    pub fn abort(&self, _code: i32) {
        #[cfg(feature = "mpi")]
        if let Some((_, c)) = &self.mpi {
            c.abort(_code);
        }
    }
}

/// A panic on any thread of a rank ends the whole job at once.
#[cfg(feature = "mpi")]
fn abort_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        othello_census::engine::layers::distributed::abort_job(101);
    }));
}
