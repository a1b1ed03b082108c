//! The stages a search tries after the cheap conditions, and their
//! limits: one value ([`Stages`]) that a search and a pool of searches
//! share, set by the same builder methods ([`WithStages`]).

use crate::search::game_encoding::Solver;

/// The flip-history relaxation's default conflict budget: enough for the
/// dense 8x8 boards it refutes (docs/estimate.md), small beside a search.
pub const RELAXATION_CONFLICTS: u64 = 20_000;

/// The flip-history relaxation inside the sweep: every position of each
/// step of at most `step` positions is asked of one shared encoding of
/// the walk's root ([`crate::search::flip_history::SharedRelaxation`])
/// with `conflicts` conflicts, up to `calls` questions a walk; a position
/// it refutes leaves the step. Every limit is a count, so a verdict stays
/// a function of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepRelaxation {
    pub calls: u64,
    pub step: usize,
    pub conflicts: u64,
}

/// Which stages a search tries after the cheap conditions, with their
/// limits. Every limit is a count, so a verdict is a function of the
/// position and these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stages {
    /// The conflict budget of the flip-history relaxation tried before a
    /// search (0: not tried).
    pub relaxation_conflicts: u64,
    /// The exact game encoding tried when the search runs out: its
    /// conflict budget (0: not tried) and solver.
    pub exact_conflicts: u64,
    pub exact_solver: Solver,
    /// The width of the beam tried where the depth-first search runs out
    /// (0: not tried; [`super::beam`]).
    pub beam_width: usize,
    /// The width of the sweep tried where the beam gives up: every
    /// position of every step, up to this many a step (0, or not above
    /// the beam's width: not tried; [`super::beam`]).
    pub sweep_width: usize,
    /// The flip-history relaxation inside the sweep (none: not tried).
    pub sweep_relaxation: Option<SweepRelaxation>,
    /// Whether the flip-count balance is tried where the depth-first
    /// search runs out ([`super::flip_balance`]).
    pub balance: bool,
}

impl Default for Stages {
    /// The relaxation at [`RELAXATION_CONFLICTS`] and the flip-count
    /// balance (search generation 6's default); no beam, sweep or exact
    /// stage.
    fn default() -> Stages {
        Stages {
            relaxation_conflicts: RELAXATION_CONFLICTS,
            exact_conflicts: 0,
            exact_solver: Solver::default(),
            beam_width: 0,
            sweep_width: 0,
            sweep_relaxation: None,
            balance: true,
        }
    }
}

/// The builder methods of [`Stages`], for a search
/// ([`super::Search`]) and a pool of searches ([`super::Searches`]) alike.
pub trait WithStages: Sized {
    /// The stages to set.
    fn stages_mut(&mut self) -> &mut Stages;

    /// The same, with these stages.
    fn with_stages(mut self, stages: Stages) -> Self {
        *self.stages_mut() = stages;
        self
    }

    /// The same, with the flip-history relaxation given `conflicts`
    /// conflicts (0: never tried).
    fn with_relaxation(mut self, conflicts: u64) -> Self {
        self.stages_mut().relaxation_conflicts = conflicts;
        self
    }

    /// The same, handing a position the search runs out on to the exact
    /// game encoding with `conflicts` conflicts (0: never) and `solver`.
    fn with_exact(mut self, conflicts: u64, solver: Solver) -> Self {
        let s = self.stages_mut();
        (s.exact_conflicts, s.exact_solver) = (conflicts, solver);
        self
    }

    /// The same, trying the beam of `width` positions a step where the
    /// depth-first search runs out (0: never).
    fn with_beam(mut self, width: usize) -> Self {
        self.stages_mut().beam_width = width;
        self
    }

    /// The same, trying the sweep of `width` positions a step where the
    /// beam gives up: the walk keeping every position of every step,
    /// which gives up at the first step it would have to drop from, and
    /// otherwise finds a game or proves the position unreachable (0, or
    /// not above the beam's width: never).
    fn with_sweep(mut self, width: usize) -> Self {
        self.stages_mut().sweep_width = width;
        self
    }

    /// The same, the sweep pruned by the flip-history relaxation
    /// ([`SweepRelaxation`]; none: never).
    fn with_sweep_relaxation(mut self, relaxation: Option<SweepRelaxation>) -> Self {
        self.stages_mut().sweep_relaxation = relaxation;
        self
    }

    /// The same, trying the flip-count balance where the depth-first
    /// search runs out, before the beam (true, the default of search
    /// generation 6) or not.
    fn with_balance(mut self, on: bool) -> Self {
        self.stages_mut().balance = on;
        self
    }
}
