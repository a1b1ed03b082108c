//! The driver: one layered state machine (plan, expand, shuffle, merge or
//! count, commit; per phase and per slice) over a [`Transport`] — one
//! process ([`super::transport::Alone`]), MPI ranks, or threads standing
//! in for ranks. Partition `p` belongs to rank `p mod R`; each rank expands
//! the parent parts it owns, sends the children of other ranks'
//! partitions through the transport's exchange, and merges its own
//! partitions. Counts are summed over the ranks, and a phase is committed
//! by rank 0 only after every rank's files are durable (the collective
//! that agrees on success is the barrier). An error on any rank is
//! returned on every rank.
//!
//! One file per concept: [`launch`] (a run started or resumed, its
//! locks, its first layer), [`run_loop`] (the state machine's loop and
//! what a call keeps across phases), [`steps`] (one step per committed
//! phase), [`rounds`] (an expansion into buckets, in rounds), [`counts`]
//! (a layer's counts made final and checked), [`disk`] (the disk a run
//! takes: sampled, and planned before a layer), [`collective`] (what the
//! ranks exchange beside the children). This file holds the driver and
//! what its steps share.

use std::path::Path;
use std::time::Instant;

use self::disk::DiskWatch;
use super::commit::commit;
use super::expand::BufferPool;
use super::expansion::Expansion;
use super::store::{Compaction, Manifest, RunSettings};
use super::transport::Transport;
use super::workdir::WorkDir;
use super::{CompactionMode, LayersError, LayersSettings, PhaseStat, RunContext};
use crate::census::LayerBy;
use crate::key::Keyed;

pub mod collective;
pub mod counts;
pub mod disk;
pub mod launch;
pub mod rounds;
pub mod run_loop;
pub mod steps;

pub use launch::{resume, start};

/// How the next layer is built: its buckets compacted or not, and in how
/// many slices (1: whole).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct NextPlan {
    pub compaction: Option<Compaction>,
    pub slices: u32,
}

/// One run of the state machine, on one rank.
struct Driver<'a, G: Keyed, T: Transport> {
    t: &'a T,
    root: &'a WorkDir,
    mine: &'a WorkDir,
    ctx: &'a RunContext<'a>,
    watch: &'a DiskWatch<'a>,
    /// The workers' child buffers, kept from one expansion to the next in
    /// one process.
    buffers: BufferPool<G::Key>,
}

/// What one expansion into buckets produced, summed over the ranks.
struct Expanded {
    found: Expansion,
    /// Rounds of the expansion, and those resumed from its progress file.
    rounds: (u32, u32),
    /// Runs per bucket of the next layer.
    runs: Vec<u64>,
    compactions: u64,
    exchanged: u64,
}

/// What one call of the driver keeps from phase to phase.
struct Session {
    by: LayerBy,
    /// When this call began, and the run's seconds before it.
    started: Instant,
    elapsed_before: f64,
    pool: rayon::ThreadPool,
    fan_in: usize,
    /// Whether the last layer is stored (this call and the run's start
    /// both say so).
    store_last: bool,
    /// The partitions this rank owns, and their share of all.
    owned: Vec<u32>,
    share: f64,
    /// (bytes, classes) of the largest layer met.
    largest: (u64, u64),
    phases: Vec<PhaseStat>,
    /// The layer whose buckets this session checked whole before its
    /// parent was deleted ([`Driver::verify_buckets`]).
    verified: Option<u32>,
}

impl Session {
    /// The run's seconds so far, this call's included.
    pub(super) fn elapsed(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }
}

/// Whether the state machine goes on after a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Continue,
    Done,
}

/// The settings of `s` a manifest keeps.
fn run_settings(s: &LayersSettings) -> RunSettings {
    RunSettings { slices: s.slices, compact_always: s.compaction == CompactionMode::Always, disk_limit: s.disk_limit }
}

/// The result directory of `s` a manifest keeps.
fn run_out(s: &LayersSettings) -> Option<String> {
    s.out.as_ref().map(|o| o.to_string_lossy().into_owned())
}

impl<G: Keyed, T: Transport> Driver<'_, G, T> {
    pub(super) fn path(&self) -> &Path {
        self.root.root()
    }

    pub(super) fn bad(&self, detail: String) -> LayersError {
        LayersError::WorkDir { path: self.path().to_path_buf(), detail }
    }

    /// Commits `m` on rank 0 once every rank is ready, then sweeps each
    /// rank's directory.
    pub(super) fn commit(&self, m: &mut Manifest) -> Result<(), LayersError> {
        // (those of this session: a resume that gave none was given the run's)
        m.settings = run_settings(self.ctx.settings);
        m.out = run_out(self.ctx.settings);
        let r = if self.t.rank() == 0 { commit(self.root, m) } else { Ok(()) };
        self.t.agree(r, self.path())?;
        if self.t.separate_dirs() {
            self.mine.sweep(m.keep());
        }
        Ok(())
    }

    pub(super) fn stopped(&self) -> LayersError {
        LayersError::Interrupted(self.path().to_path_buf())
    }
}
