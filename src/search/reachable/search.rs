//! The backward search: predecessors walked depth first to the frontier
//! under a budget, the relaxation and the exact encoding where it pays,
//! and searches lent to threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::flip_balance::{Balance, flip_balance};
use crate::board::{Geometry, Position};
use crate::key::Keyed;
use crate::search::class_set::ClassSet;
use crate::search::flip_history::{Relaxation, SharedRelaxation, flip_history};
use crate::search::game_encoding::{CarryStore, Exact, exact_game_resumed, exact_game_until};

use super::beam::{BeamOutcome, StepProof, Walk, beam};
use super::class::class_of;
use super::stages::{Stages, SweepRelaxation, WithStages};
use super::*;

/// The answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict<G: Geometry> {
    /// Reachable: a game from the start to the position (checked by
    /// replaying it).
    Reachable(Game<G>),
    /// Unreachable, proven: every backward line was exhausted.
    Unreachable,
    /// The search visited its budget of positions without an answer.
    Undecided,
}

/// The search ran out of budget.
pub(super) struct OutOfBudget;

/// A backward search, reusable from one position to the next (its memory
/// of unreachable classes is cleared at each [`Search::decide`], so a
/// verdict depends only on the position, the frontier and the budget).
pub struct Search<'f, G: Keyed> {
    frontier: &'f Frontier<G>,
    budget: u64,
    nodes: u64,
    unreachable: ClassSet,
    /// Predecessor lists, one per depth, reused.
    scratch: Vec<Vec<Position<G>>>,
    /// The line found, from the position down to the frontier.
    line: Vec<Position<G>>,
    /// Whether this search answers from the frontier's census layer.
    use_layer: bool,
    /// Every position of at most this many discs is answered without a
    /// search (by the frontier, or its whole census layer when used).
    answered_to: u32,
    /// The stages tried after the cheap conditions, and their limits.
    stages: Stages,
    /// The conflicts the exact stage spent on the last position it was
    /// given.
    exact_spent: u64,
    /// What decided the last position asked.
    decided_by: Stage,
    /// Past this instant, once the flag is set, or once `stop` says so,
    /// the stages after the cheap conditions and the relaxation are not
    /// tried, and the exact stage, the beam or the sweep under way is cut:
    /// the position is left undecided and [`Search::deferred`] says so (an
    /// estimate's time limit: the samples it leaves are searched later by
    /// a resolve, which gives them the verdicts an uncut run would have;
    /// a signal, or a resolve's time limit: the sample is not counted).
    clock: Clock<'f>,
    /// The last position asked was left undecided by the deadline, not by
    /// a limit.
    deferred: bool,
    /// Where the exact stage keeps what a search left without an answer
    /// learned, and resumes from it (none: every search starts afresh).
    carry: Option<&'f dyn CarryStore>,
}

/// What decided a position ([`Search::decided_by`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The frontier (or the census layer) holds it, or not.
    Frontier,
    /// A cheap condition ([`cheap_conditions`]) fails: unreachable.
    Conditions,
    /// The flip-history relaxation is unsatisfiable: unreachable
    /// ([`crate::search::flip_history`]).
    FlipHistory,
    /// The flip-count balance is infeasible, with a checked certificate:
    /// unreachable ([`crate::search::reachable::flip_balance`]); tried where the
    /// depth-first search runs out.
    FlipBalance,
    /// The backward search: a line to the frontier, or every line
    /// exhausted (or, undecided, the budget spent).
    Search,
    /// The beam, where the depth-first search ran out: a line to the
    /// frontier, or every line walked without dropping one
    /// ([`super::beam`]).
    Beam,
    /// The sweep, where the beam gave up: a line to the frontier, or
    /// every line walked with every step kept whole ([`super::beam`]).
    Sweep,
    /// The exact game encoding, after the search ran out: a game, or
    /// unsatisfiable ([`crate::search::game_encoding`]); or, undecided,
    /// its conflict budget spent.
    Exact,
}

impl Stage {
    /// Its name in `reachable`'s output.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Frontier => "frontier",
            Stage::Conditions => "cheap conditions",
            Stage::FlipHistory => "flip-history relaxation (SAT: unsatisfiable)",
            Stage::FlipBalance => "flip-count balance (linear program: infeasible, certificate checked)",
            Stage::Search => "backward search",
            Stage::Beam => "beam (backward search keeping the most compact positions of each step)",
            Stage::Sweep => "sweep (backward search keeping every position of each step)",
            Stage::Exact => "exact game encoding (SAT)",
        }
    }
}

/// The sweep's relaxation for one walk: the solver on the positions of
/// small steps, up to `settings.calls` questions, and the refutations it
/// kept (cores) on every position.
struct SweepProof {
    shared: SharedRelaxation,
    calls: u64,
    settings: SweepRelaxation,
}

impl<G: Geometry> StepProof<G> for SweepProof {
    fn cheap(&mut self, p: &Position<G>) -> bool {
        self.shared.refuted_by_core(p.black().0, p.white().0)
    }

    fn full(&mut self, p: &Position<G>) -> bool {
        if self.calls >= self.settings.calls {
            return false;
        }
        self.calls += 1;
        self.shared.query::<G>(p.black().0, p.white().0, self.settings.conflicts) == Relaxation::Infeasible
    }

    fn most(&self) -> usize {
        self.settings.step
    }
}

/// The relaxation is tried on positions at least this many discs above
/// the layer the searches answer from: below, a search is cheaper.
pub const RELAXATION_ABOVE: u32 = 6;

impl<G: Keyed> WithStages for Search<'_, G> {
    fn stages_mut(&mut self) -> &mut Stages {
        &mut self.stages
    }
}

impl<G: Keyed> WithStages for Searches<'_, G> {
    fn stages_mut(&mut self) -> &mut Stages {
        &mut self.stages
    }
}

impl<'f, G: Keyed> Search<'f, G> {
    /// A search down to `frontier`, giving up after `budget` positions.
    pub fn new(frontier: &'f Frontier<G>, budget: u64) -> Search<'f, G> {
        Search {
            frontier,
            budget: budget.max(1),
            nodes: 0,
            unreachable: ClassSet::new(),
            scratch: Vec::new(),
            line: Vec::new(),
            use_layer: false,
            answered_to: frontier.discs,
            stages: Stages::default(),
            exact_spent: 0,
            decided_by: Stage::Search,
            clock: Clock::default(),
            deferred: false,
            carry: None,
        }
    }

    /// The same search, leaving the stages after the cheap conditions and
    /// the relaxation untried once `deadline` has passed or `defer` is set
    /// (the search sets it at the deadline, so that the searches sharing
    /// it stop trying at once), and cutting the exact stage, the beam or
    /// the sweep under way then. Which positions are left then depends on
    /// the clock; every verdict given is still exact.
    pub fn with_deadline(mut self, deadline: Option<Instant>, defer: Option<&'f AtomicBool>) -> Self {
        (self.clock.deadline, self.clock.defer) = (deadline, defer);
        self
    }

    /// Whether the last position asked was left undecided because the
    /// deadline had passed or the stop had said so
    /// ([`Search::with_deadline`], [`Search::with_stop`]) before a stage
    /// it needed, or while it ran: not searched at the limits, so a later
    /// search at the same limits may decide it.
    pub fn deferred(&self) -> bool {
        self.deferred
    }

    /// The same search, stopped when `stop` says so as at its deadline
    /// (the stages after the relaxation not started, the one under way
    /// cut; [`Search::with_deadline`]). `stop` is asked many times a
    /// second while a stage runs, and must stay true once it has said
    /// so: whether a stage that ended without an answer was cut is asked
    /// of it again.
    pub fn with_stop(mut self, stop: Option<&'f (dyn Fn() -> bool + Sync)>) -> Self {
        self.clock.stop = stop;
        self
    }

    /// The same, its exact stage resuming from the carry `store` keeps for
    /// a position, and keeping one there when it ends without an answer
    /// ([`crate::search::game_encoding::exact_game_resumed`]; none: every
    /// exact search starts afresh, the default).
    pub fn with_carry(mut self, store: Option<&'f dyn CarryStore>) -> Self {
        self.carry = store;
        self
    }

    /// Whether the deadline has passed; marks the position deferred if so.
    fn defer_now(&mut self) -> bool {
        let passed = self.clock.past();
        if passed {
            self.deferred = true;
        }
        passed
    }

    /// The exact stage on `p`, where the search ran out: the verdict, and
    /// [`Search::decided_by`] set. Cut at the deadline or a stop: the
    /// position is then deferred.
    fn exact(&mut self, p: &Position<G>) -> Verdict<G> {
        if self.stages.exact_conflicts == 0 || self.defer_now() {
            return Verdict::Undecided;
        }
        self.decided_by = Stage::Exact;
        let clock = self.clock;
        let cut = move || clock.past();
        let key = (p.black().0, p.white().0, p.side_to_move() == crate::board::Color::Black);
        let (conflicts, solver, cut) =
            (self.stages.exact_conflicts, self.stages.exact_solver, clock.set().then_some(&cut as _));
        let verdict = match self.carry {
            None => {
                let (verdict, spent) = exact_game_until::<G>(p, conflicts, solver, cut);
                self.exact_spent = spent;
                verdict
            }
            Some(store) => {
                let before = store.load(key.0, key.1, key.2);
                let (verdict, spent, after) = exact_game_resumed::<G>(p, conflicts, solver, cut, before.as_ref());
                self.exact_spent = spent;
                match (&verdict, after) {
                    (Exact::Unknown, Some(after)) => store.save(key.0, key.1, key.2, &after),
                    // cut before the formula with passes, or at its limit
                    // already: whatever was kept stays
                    (Exact::Unknown, None) => {}
                    // decided: its file goes (any file under its name)
                    _ => store.forget(key.0, key.1, key.2),
                }
                verdict
            }
        };
        match verdict {
            Exact::Reachable(game) => Verdict::Reachable(game),
            Exact::Unreachable => Verdict::Unreachable,
            // the limit, or the cut: a sample cut is searched again later
            // (one that met its limit just before would be left undecided
            // again)
            Exact::Unknown => {
                self.defer_now();
                Verdict::Undecided
            }
        }
    }

    /// The conflicts the exact stage spent on the last position it was
    /// given (both of its formulas).
    pub fn exact_conflicts_spent(&self) -> u64 {
        self.exact_spent
    }

    /// What decided the last position asked (or, when it was left
    /// undecided, the stage that ran out: the search).
    pub fn decided_by(&self) -> Stage {
        self.decided_by
    }

    /// The most memory one search of `budget` positions holds at once:
    /// its set of refuted classes, one for each position it visits at
    /// most ([`ClassSet::peak_bytes`]; 6 GiB at a budget of 1.3 x 10^8,
    /// 12 GiB above 1.35 x 10^8).
    pub fn peak_bytes(budget: u64) -> u64 {
        ClassSet::peak_bytes(budget.max(1))
    }

    /// The most memory the beam of `width` holds at once
    /// ([`super::beam`]).
    pub fn beam_bytes(width: usize) -> u64 {
        super::beam::beam_bytes::<G>(width)
    }

    /// The most memory the sweep of `width` holds at once (it runs after
    /// the beam has let its memory go; [`super::beam`]).
    pub fn sweep_bytes(width: usize) -> u64 {
        super::beam::sweep_bytes::<G>(width)
    }

    /// Positions visited by the last [`Search::decide`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// The questions a search answers, and the stages it runs.
impl<'f, G: Keyed> Search<'f, G> {
    /// Whether `p` is reachable from the start. The search stops only at
    /// the enumerated frontier, never at its census layer: the game it
    /// gives is walked down to the start inside the enumerated frontier.
    pub fn decide(&mut self, p: &Position<G>) -> Verdict<G> {
        match self.search(p, false) {
            Err(OutOfBudget) => self.exact(p),
            Ok(false) => Verdict::Unreachable,
            Ok(true) => Verdict::Reachable(self.game(*p)),
        }
    }

    /// [`Search::decide`], answering from the frontier's census layer
    /// where it has one (the search the estimates make, with the game):
    /// a line that ends in the census layer is completed by a second
    /// search from its census-layer position down to the enumerated
    /// frontier, without a budget (that position is reachable, so the
    /// search ends with a line; its positions are counted in
    /// [`Search::nodes`]).
    pub fn decide_with_layer(&mut self, p: &Position<G>) -> Verdict<G> {
        match self.search(p, true) {
            Err(OutOfBudget) => return self.exact(p),
            Ok(false) => return Verdict::Unreachable,
            Ok(true) => {}
        }
        // the line found, from where it was answered up to p
        let upper = std::mem::take(&mut self.line);
        let bottom = upper[0];
        if !self.frontier.contains(&bottom) {
            // the stage that found the line is the one that decided
            let (nodes, budget, decided_by) = (self.nodes, self.budget, self.decided_by);
            self.budget = u64::MAX;
            // nor a deadline or a stop: the line exists, and is completed
            let clock = std::mem::take(&mut self.clock);
            let below = self.search(&bottom, false);
            self.clock = clock;
            self.budget = budget;
            self.nodes += nodes;
            self.decided_by = decided_by;
            assert!(matches!(below, Ok(true)), "a census-layer position is reachable");
            // self.line: frontier position up to `bottom`
            self.line.extend_from_slice(&upper[1..]);
        } else {
            self.line = upper;
        }
        Verdict::Reachable(self.game(*p))
    }

    /// Whether `p` is reachable, without the game (the cheaper question
    /// the estimates ask); answers from the frontier's census layer where
    /// it has one.
    pub fn is_reachable(&mut self, p: &Position<G>) -> Option<bool> {
        match self.search(p, true) {
            Ok(found) => Some(found),
            Err(OutOfBudget) => match self.exact(p) {
                Verdict::Reachable(_) => Some(true),
                Verdict::Unreachable => Some(false),
                Verdict::Undecided => None,
            },
        }
    }

    /// A search afresh from `p` (nothing kept from the last one);
    /// `use_layer`: answering from the census layer.
    fn search(&mut self, p: &Position<G>, use_layer: bool) -> Result<bool, OutOfBudget> {
        self.use_layer = use_layer;
        self.answered_to = match &self.frontier.layer {
            Some(l) if use_layer && l.held == LayerHeld::Whole => l.discs,
            _ => self.frontier.discs,
        };
        self.nodes = 0;
        self.exact_spent = 0;
        self.unreachable.clear();
        self.line.clear();
        self.deferred = false;
        // the cheap conditions on `p` itself; its predecessors are
        // generated passing them
        if p.discs() > self.frontier.discs && !cheap_conditions::<G>(p.black().0, p.white().0) {
            self.nodes = 1;
            self.decided_by = Stage::Conditions;
            return Ok(false);
        }
        if self.stages.relaxation_conflicts > 0
            && p.discs() >= self.answered_to + RELAXATION_ABOVE
            && flip_history::<G>(p.black().0, p.white().0, self.stages.relaxation_conflicts) == Relaxation::Infeasible
        {
            self.nodes = 1;
            self.decided_by = Stage::FlipHistory;
            return Ok(false);
        }
        self.decided_by = if p.discs() <= self.answered_to { Stage::Frontier } else { Stage::Search };
        if p.discs() > self.answered_to && self.defer_now() {
            return Err(OutOfBudget);
        }
        match self.visit(*p, 0) {
            Err(OutOfBudget)
                if self.stages.balance && flip_balance::<G>(p.black().0, p.white().0) == Balance::Infeasible =>
            {
                self.decided_by = Stage::FlipBalance;
                Ok(false)
            }
            Err(OutOfBudget) if (self.stages.beam_width > 0 || self.stages.sweep_width > 0) && !self.defer_now() => {
                self.beam(p)
            }
            r => r,
        }
    }

    /// The beam on `p`, where the depth-first search ran out, and the
    /// sweep where the beam gives up.
    fn beam(&mut self, p: &Position<G>) -> Result<bool, OutOfBudget> {
        self.decided_by = Stage::Beam;
        let mut outcome = if self.stages.beam_width > 0 {
            self.walk(p, Walk::Beam(self.stages.beam_width))
        } else {
            BeamOutcome::GaveUp
        };
        if matches!(outcome, BeamOutcome::GaveUp) && self.stages.sweep_width > self.stages.beam_width {
            self.decided_by = Stage::Sweep;
            outcome = self.walk(p, Walk::Sweep(self.stages.sweep_width));
        }
        match outcome {
            BeamOutcome::Found(line) => {
                self.line = line;
                Ok(true)
            }
            BeamOutcome::Exhausted => Ok(false),
            BeamOutcome::GaveUp => {
                self.decided_by = Stage::Search;
                // a walk cut by the deadline or a stop: the position is
                // deferred even where no exact stage follows
                self.defer_now();
                Err(OutOfBudget)
            }
        }
    }

    fn walk(&mut self, p: &Position<G>, walk: Walk) -> BeamOutcome<G> {
        let (frontier, use_layer) = (self.frontier, self.use_layer);
        let refuted = &self.unreachable;
        let answered = |q: &Position<G>| frontier.decides(q, use_layer);
        // a walk cut gives up; the exact stage after it then defers
        let clock = self.clock;
        let cut = move || clock.past();
        match (walk, self.stages.sweep_relaxation) {
            (Walk::Sweep(_), Some(settings)) => {
                // one encoding for the walk, asked in step order: its
                // answers are a function of the position and the settings
                let mut proof =
                    SweepProof { shared: SharedRelaxation::new::<G>(p.black().0, p.white().0), calls: 0, settings };
                beam(p, walk, answered, |k| refuted.contains(k), Some(&mut proof), &cut, &mut self.nodes)
            }
            _ => beam(p, walk, answered, |k| refuted.contains(k), None, &cut, &mut self.nodes),
        }
    }

    fn visit(&mut self, p: Position<G>, depth: usize) -> Result<bool, OutOfBudget> {
        self.nodes += 1;
        if let Some(found) = self.frontier.decides(&p, self.use_layer) {
            if found {
                self.line.push(p);
            }
            return Ok(found);
        }
        if self.nodes > self.budget {
            return Err(OutOfBudget);
        }
        let key = class_of(&p);
        if self.unreachable.contains(key) {
            return Ok(false);
        }
        if self.scratch.len() <= depth {
            self.scratch.push(Vec::new());
        }
        let mut preds = std::mem::take(&mut self.scratch[depth]);
        preds.clear();
        predecessors_with::<G, true>(&p, &mut preds);
        // the memory's slots of the predecessors it will be asked about,
        // fetched together rather than one miss at a time
        if p.discs() > self.answered_to + 1 {
            for q in &preds {
                self.unreachable.prefetch(class_of(q));
            }
        }
        let mut found = false;
        for q in &preds {
            match self.visit(*q, depth + 1) {
                Ok(true) => {
                    found = true;
                    break;
                }
                Ok(false) => {}
                Err(e) => {
                    self.scratch[depth] = preds;
                    return Err(e);
                }
            }
        }
        self.scratch[depth] = preds;
        if found {
            self.line.push(p);
        } else {
            self.unreachable.insert(key);
        }
        Ok(found)
    }

    /// The game to `p`: the line found (frontier position up to `p`),
    /// preceded by a line down to the start inside the frontier (every
    /// predecessor the frontier holds is reachable, so a greedy walk never
    /// fails).
    fn game(&self, p: Position<G>) -> Game<G> {
        // self.line: the frontier position first, then up to p
        let mut down: Vec<Position<G>> = Vec::new();
        let mut at = *self.line.first().expect("a line was found");
        let start = Position::<G>::start();
        let mut preds = Vec::new();
        while at != start {
            preds.clear();
            predecessors(&at, &mut preds);
            at = *preds
                .iter()
                .find(|q| self.frontier.contains(q))
                .expect("a frontier position has a reachable predecessor");
            down.push(at);
        }
        let line: Vec<Position<G>> = down.into_iter().rev().chain(self.line.iter().copied()).collect();
        debug_assert_eq!(line.last(), Some(&p));
        let plies = line
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0].black().0 | w[0].white().0, w[1].black().0 | w[1].white().0);
                if a == b { None } else { Some((b & !a).trailing_zeros()) }
            })
            .collect();
        Game { plies, end: p }
    }
}

/// What ends a search's stages early ([`Search::with_deadline`],
/// [`Search::with_stop`]): a deadline, a flag the searches sharing it
/// set there, and a stop.
#[derive(Clone, Copy, Default)]
struct Clock<'f> {
    deadline: Option<Instant>,
    defer: Option<&'f AtomicBool>,
    stop: Option<&'f (dyn Fn() -> bool + Sync)>,
}

impl Clock<'_> {
    /// Whether any is given (else nothing is ever cut).
    fn set(&self) -> bool {
        self.deadline.is_some() || self.defer.is_some() || self.stop.is_some()
    }

    /// Whether the deadline has passed, the flag is set or the stop says
    /// so; sets the flag at the deadline, so that the searches sharing it
    /// stop trying at once.
    fn past(&self) -> bool {
        if self.defer.is_some_and(|d| d.load(Ordering::Relaxed)) {
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            if let Some(d) = self.defer {
                d.store(true, Ordering::Relaxed);
            }
            return true;
        }
        self.stop.is_some_and(|s| s())
    }
}

/// Searches of one frontier and budget kept for reuse by the tasks of a
/// thread pool: a task takes one (or a new one), and it comes back when
/// the task ends. A search's verdicts do not depend on what it decided
/// before, so which one a task gets changes no answer; reusing them keeps
/// their grown memory (see [`ClassSet`]) instead of faulting in fresh
/// pages for every task.
pub struct Searches<'f, G: Keyed> {
    frontier: &'f Frontier<G>,
    budget: u64,
    stages: Stages,
    clock: Clock<'f>,
    carry: Option<&'f dyn CarryStore>,
    held: std::sync::Mutex<Vec<Search<'f, G>>>,
}

impl<'f, G: Keyed> Searches<'f, G> {
    /// None yet, of searches down to `frontier` of `budget` positions.
    pub fn new(frontier: &'f Frontier<G>, budget: u64) -> Self {
        Searches {
            frontier,
            budget,
            stages: Stages::default(),
            clock: Clock::default(),
            carry: None,
            held: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The same, their later stages left untried past `deadline` or once
    /// `defer` is set ([`Search::with_deadline`]).
    pub fn with_deadline(mut self, deadline: Option<Instant>, defer: Option<&'f AtomicBool>) -> Self {
        (self.clock.deadline, self.clock.defer) = (deadline, defer);
        self
    }

    /// The same, stopped when `stop` says so ([`Search::with_stop`]).
    pub fn with_stop(mut self, stop: Option<&'f (dyn Fn() -> bool + Sync)>) -> Self {
        self.clock.stop = stop;
        self
    }

    /// The same, their exact stages resuming from `store` and keeping
    /// their carry there ([`Search::with_carry`]).
    pub fn with_carry(mut self, store: Option<&'f dyn CarryStore>) -> Self {
        self.carry = store;
        self
    }

    /// A search, kept or new, until the guard is dropped.
    pub fn take(&self) -> LentSearch<'_, 'f, G> {
        let kept = self.held.lock().expect("searches lock").pop();
        let search = kept.unwrap_or_else(|| {
            Search::new(self.frontier, self.budget)
                .with_stages(self.stages)
                .with_deadline(self.clock.deadline, self.clock.defer)
                .with_stop(self.clock.stop)
                .with_carry(self.carry)
        });
        LentSearch { search: Some(search), from: self }
    }
}

/// A search lent by [`Searches::take`]; it goes back when dropped.
pub struct LentSearch<'p, 'f, G: Keyed> {
    search: Option<Search<'f, G>>,
    from: &'p Searches<'f, G>,
}

impl<'f, G: Keyed> std::ops::Deref for LentSearch<'_, 'f, G> {
    type Target = Search<'f, G>;
    fn deref(&self) -> &Search<'f, G> {
        self.search.as_ref().expect("lent search")
    }
}

impl<'f, G: Keyed> std::ops::DerefMut for LentSearch<'_, 'f, G> {
    fn deref_mut(&mut self) -> &mut Search<'f, G> {
        self.search.as_mut().expect("lent search")
    }
}

impl<G: Keyed> Drop for LentSearch<'_, '_, G> {
    fn drop(&mut self) {
        if let Some(s) = self.search.take() {
            self.from.held.lock().expect("searches lock").push(s);
        }
    }
}
