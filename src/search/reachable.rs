//! Whether a position (board and side to move) can be reached from the
//! start by a legal game, decided exactly by searching backwards.
//!
//! The census definition of a reachable position: the start, and every
//! child of a reachable position that is not terminal (a move, or the same
//! board with the other side to move when the side to move must pass). So
//! `(B, s)` — board `B`, side `s` to move, `m` the other side — has two
//! kinds of predecessor:
//!
//! - **a move of `m`**: a disc `q` of `m` (never a centre square, which
//!   the start occupies) was placed last and flipped, along each of the
//!   eight rays from `q`, either nothing or the first `L` discs of the run
//!   of `m` discs that starts next to `q`, where `1 <= L < run` (the disc
//!   after the flipped ones is the anchor, `m`'s before the move). A ray
//!   not flipped must not have been flippable: if it starts with a run of
//!   `s` discs closed by an `m` disc, `q` cannot have been the last move.
//!   The predecessor is `B` without `q`, the flipped discs given back to
//!   `s`, with `m` to move; at least one ray is flipped.
//! - **a pass of `m`**: `(B, m)` when `m` has no move on `B` and `s` has.
//!
//! [`Search`] walks predecessors depth first, down to a [`Frontier`]: every
//! reachable position of up to `k` discs, enumerated forwards from the
//! start, so the backward search stops `k` discs above the start with an
//! exact answer. Positions proven unreachable are remembered (by class: a
//! symmetry of the start maps reachable positions to reachable ones). A
//! position whose squares cannot have been filled in any order by moves
//! that flip (each needs two occupied squares in line next to it, see
//! [`placeable`]), one with an edge that moves along that edge cannot
//! colour so ([`edges_possible`]), or one with a disc that was never
//! flipped and whose placing cannot have flipped anything that it shows
//! ([`unflipped_consistent`]), is unreachable at once: the search tests
//! these [`cheap_conditions`] on the position asked about, then generates
//! only the predecessors that pass them (the occupancy once per removed
//! square, the edges only where the removed or un-flipped discs lie on
//! one), so a position that fails them costs no visit. A search that
//! visits more positions than its budget allows gives up:
//! [`Verdict::Undecided`], never a guess.

use rustc_hash::FxHashSet;

use crate::board::{Color, Geometry, Position};
use crate::key::{Keyed, canonical_key};
use crate::search::class_set::ClassSet;
use crate::search::flip_history::{Relaxation, flip_history};
pub use crate::search::game::{Game, ReplayError};
use crate::search::game_encoding::{Exact, Solver, exact_game_with};
use crate::search::sorted_keys::SortedKeys;
use crate::symmetry::start_images;

/// The four centre squares of an `n x n` board (occupied from the start).
pub const fn centre(n: u32) -> u64 {
    let h = n / 2;
    (1u64 << ((h - 1) * n + h - 1)) | (1u64 << ((h - 1) * n + h)) | (1u64 << (h * n + h - 1)) | (1u64 << (h * n + h))
}

/// The squares next to any square of `b` (the eight directions), `b`
/// itself included.
#[inline]
fn with_neighbours<G: Geometry>(b: u64) -> u64 {
    let n = G::N;
    // the first column (bit 0 of every row: FULL / (2^n - 1), folded at
    // compile time) and the last
    let col0 = G::FULL / ((1u64 << n) - 1);
    let last = col0 << (n - 1);
    let row = b | ((b & !last) << 1) | ((b & !col0) >> 1);
    (row | (row << n) | (row >> n)) & G::FULL
}

/// Whether every occupied square of `occ` is joined to the centre through
/// occupied neighbours (the centre itself occupied).
pub fn joined_to_centre<G: Geometry>(occ: u64) -> bool {
    let c = centre(G::N);
    if occ & c != c {
        return false;
    }
    let mut reach = c;
    loop {
        let next = with_neighbours::<G>(reach) & occ;
        if next == reach {
            return reach == occ;
        }
        reach = next;
    }
}

/// Whether the squares of `occ` can have been filled one by one from the
/// centre by moves that each flipped something: a move on `q` flips along
/// some direction `d`, so `q + d` and `q + 2d` were occupied before it
/// (the first flipped disc and at least its anchor or a second one), and
/// an occupied square stays occupied. Filling greedily every square of
/// `occ` that has two such neighbours in line is exact for this condition
/// (a square that can be added can still be added later), so `occ` passes
/// when the fill reaches all of it. Stronger than [`joined_to_centre`]
/// (such a square touches the filled ones), and as cheap.
pub fn placeable<G: Geometry>(occ: u64) -> bool {
    let c = centre(G::N);
    if occ & c != c {
        return false;
    }
    let n = G::N;
    // the middle square of a horizontal or diagonal line of three must not
    // be on an edge column (nor may a shift wrap into the next row)
    let axes = [(1, G::INNER_COLS), (n, G::FULL), (n + 1, G::INNER_COLS), (n - 1, G::INNER_COLS)];
    let mut filled = c;
    loop {
        let mut add = 0u64;
        for &(s, inner) in &axes {
            let mid = filled & inner;
            // q with q + s and q + 2s filled; q with q - s and q - 2s filled
            add |= (mid & (filled >> s)) >> s;
            add |= ((mid & (filled << s)) << s) & G::FULL;
        }
        let next = filled | (add & occ);
        if next == filled {
            return filled == occ;
        }
        filled = next;
    }
}

/// The generation of the search's conditions, written into estimate
/// documents (`search_generation`) so that the catalogue prefers the runs
/// of newer searches, which leave fewer samples undecided at a budget:
/// 1, documents without the field (before 2026-11-25): [`placeable`] and
/// [`edges_possible`], or part of [`unflipped_consistent`]; 2: all three
/// of [`cheap_conditions`]; 3 (2026-11-27): and the flip-history
/// relaxation ([`crate::search::flip_history`]) with a budget of
/// [`RELAXATION_CONFLICTS`] conflicts, on positions [`RELAXATION_ABOVE`]
/// discs or more above the layer answered from. Raise it when a condition
/// is added.
pub const SEARCH_GENERATION: u32 = 3;

/// The conditions every reachable position meets that the search tests on
/// each position before it searches below it: [`placeable`],
/// [`edges_possible`] and [`unflipped_consistent`].
#[inline]
pub fn cheap_conditions<G: Geometry>(black: u64, white: u64) -> bool {
    placeable::<G>(black | white) && edges_possible::<G>(black, white) && unflipped_consistent::<G>(black, white)
}

/// Whether every disc that can never have been flipped is consistent with
/// the move that placed it. A disc is flippable along an axis only while
/// both its neighbours on that axis are occupied (it must lie inside a
/// flanked run), and squares stay occupied, so a disc `i` whose neighbours
/// on every axis are not both occupied now was never flipped: it keeps
/// the colour `c` it had from the start (a centre square) or of the side
/// that placed it. That move flipped along some direction `d`: `i + d` and
/// `i + 2d` were occupied and `i + d` turned `c`. Afterwards `i + d` can
/// turn again only along another axis: along `d`'s own axis the run
/// holding it would hold `i` too (colour `c`, next to it), which never
/// flips. So some direction has `i + d` and `i + 2d` occupied and `i + d`
/// of colour `c` or flippable along another axis; and where `i + d` is of
/// colour `c` and not flippable along another axis, so is `i + 2d` (or it
/// is flippable along another axis).
pub fn unflipped_consistent<G: Geometry>(black: u64, white: u64) -> bool {
    let n = G::N;
    let occ = black | white;
    let col0 = G::FULL / ((1u64 << n) - 1);
    let (not_first, not_last) = (G::FULL & !col0, G::FULL & !(col0 << (n - 1)));
    // per axis: the shift, and where the + and the - neighbour exist
    let axes =
        [(1, not_last, not_first), (n, G::FULL, G::FULL), (n + 1, not_last, not_first), (n - 1, not_first, not_last)];
    let mut flippable = [0u64; 4];
    for (a, &(s, plus, minus)) in axes.iter().enumerate() {
        // both neighbours on the board, and both occupied
        flippable[a] = occ & plus & minus & (occ >> s) & (occ << s);
    }
    let any = flippable[0] | flippable[1] | flippable[2] | flippable[3];
    let fixed = occ & !any;
    if fixed == 0 {
        return true;
    }
    let c = centre(n);
    let start_black = const { Position::<G>::start().black().0 };
    if fixed & c & (black ^ start_black) != 0 {
        return false; // a centre disc never flipped has its colour of the start
    }
    let (mut ok_black, mut ok_white) = (0u64, 0u64);
    for (a, &(s, plus, minus)) in axes.iter().enumerate() {
        let other = (0..4).filter(|&b| b != a).fold(0, |acc, b| acc | flippable[b]);
        // the squares whose neighbour at +s (then at -s) is in `x`
        let up = |x: u64| (x >> s) & plus;
        let down = |x: u64| (x << s) & minus;
        ok_black |= placing_flipped(up, occ, black, other, fixed & white);
        ok_white |= placing_flipped(up, occ, white, other, fixed & black);
        ok_black |= placing_flipped(down, occ, black, other, fixed & white);
        ok_white |= placing_flipped(down, occ, white, other, fixed & black);
    }
    let placed = fixed & !c;
    placed & black & !ok_black == 0 && placed & white & !ok_white == 0
}

/// The squares `i` from which a move of the side owning `own` can have
/// flipped along the direction of `step` (`step(x)`: the squares whose
/// neighbour in that direction is in `x`) when `i` never flips afterwards
/// (see [`unflipped_consistent`]); `other`: the discs flippable along
/// another axis than the direction's. `i + d` and `i + 2d` are occupied;
/// `i + d` turned `own`'s colour and can turn again only along another
/// axis; where it cannot, it stayed so, and `i + 2d` (the anchor or
/// flipped, so of that colour after the move) can then turn only along
/// another axis too, the run along this one holding `i + d`. `i + 2d` is
/// not one of `never`, the other side's discs that never flipped (it was
/// there, so it was of that colour then, and it could neither anchor the
/// move nor be flipped by it).
#[inline(always)]
fn placing_flipped(step: impl Fn(u64) -> u64, occ: u64, own: u64, other: u64, never: u64) -> u64 {
    let shown = own | other;
    let stuck = step(own & !other);
    let second = step(step(occ & !never));
    step(occ) & second & step(shown) & (!stuck | step(step(shown)))
}

/// The states of a line of `n` squares that moves on the line itself can
/// make from the empty line, when any colour may be placed on any empty
/// square and a placed disc flips what it flanks along the line (as it
/// must). A state is the base-3 number of its squares, square `i` the digit
/// of weight `3^i`: 0 empty, 1 black, 2 white. Computed by closure from
/// the empty line (at most 3^8 = 6,561 states).
fn line_states(n: u32) -> Vec<bool> {
    let n = n as usize;
    let pow: Vec<usize> = (0..n).map(|i| 3usize.pow(i as u32)).collect();
    let mut seen = vec![false; 3usize.pow(n as u32)];
    seen[0] = true;
    let mut todo = vec![0usize];
    while let Some(s) = todo.pop() {
        let digits: Vec<usize> = (0..n).map(|i| s / pow[i] % 3).collect();
        for i in (0..n).filter(|&i| digits[i] == 0) {
            for c in [1, 2] {
                let mut t = digits.clone();
                t[i] = c;
                for d in [1isize, -1] {
                    let mut j = i as isize + d;
                    let mut run = Vec::new();
                    while (0..n as isize).contains(&j) && t[j as usize] == 3 - c {
                        run.push(j as usize);
                        j += d;
                    }
                    if !run.is_empty() && (0..n as isize).contains(&j) && t[j as usize] == c {
                        for r in run {
                            t[r] = c;
                        }
                    }
                }
                let next: usize = t.iter().zip(&pow).map(|(&x, &p)| x * p).sum();
                if !seen[next] {
                    seen[next] = true;
                    todo.push(next);
                }
            }
        }
    }
    seen
}

/// [`line_states`] of each board side, made once.
fn reachable_lines<G: Geometry>() -> &'static [bool] {
    static LINES: [std::sync::OnceLock<Vec<bool>>; 3] =
        [std::sync::OnceLock::new(), std::sync::OnceLock::new(), std::sync::OnceLock::new()];
    LINES[(G::N / 2 - 2) as usize].get_or_init(|| line_states(G::N))
}

/// Whether each of the four edges of the board can hold its discs. A disc
/// on an edge is an end of every line through it but the edge itself, so
/// only a move on the same edge can flip it, and an edge square once filled
/// stays filled: the colours along an edge change only by moves on it,
/// each placing one disc and flipping what it flanks along the edge. So
/// every edge of a reachable position is a state of [`line_states`] (which
/// allows any colour on any empty square, a superset of the game's moves).
/// The centre is on no edge of a 4x4, 6x6 or 8x8 board.
pub fn edges_possible<G: Geometry>(black: u64, white: u64) -> bool {
    let lines = reachable_lines::<G>();
    let n = G::N;
    let state = |first: u32, step: u32| {
        (0..n).rev().fold(0usize, |acc, i| {
            let sq = first + i * step;
            acc * 3 + (black >> sq & 1) as usize + 2 * (white >> sq & 1) as usize
        })
    };
    lines[state(0, 1)] && lines[state((n - 1) * n, 1)] && lines[state(0, n)] && lines[state(n - 1, n)]
}

/// Every reachable position of up to [`Frontier::discs`] discs, by class,
/// enumerated forwards from the start; and, optionally, the reachable
/// positions of one larger disc count read from a census of that layer:
/// all of them, or only those that need an odd number of passes
/// ([`Frontier::with_census_layer`]).
pub struct Frontier<G: Keyed> {
    discs: u32,
    known: FxHashSet<G::Key>,
    layer: Option<CensusLayer<G>>,
}

/// Which reachable positions of its layer a census layer of a
/// [`Frontier`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LayerHeld {
    /// Those whose side to move is that of an odd number of passes
    /// ([`odd_passes`]): a small part of a layer below the full board, and
    /// the positions whose searches are the longest.
    OddPasses,
    /// Every one: no search goes below the layer.
    Whole,
}

impl LayerHeld {
    /// Whether a census layer of this kind holds `p`'s answer (`p` of the
    /// layer's disc count).
    #[inline]
    pub fn answers<G: Geometry>(self, p: &Position<G>) -> bool {
        self == LayerHeld::Whole || odd_passes(p)
    }

    /// Its name in results and messages: `whole` or `odd passes`.
    pub fn name(self) -> &'static str {
        match self {
            LayerHeld::OddPasses => "odd passes",
            LayerHeld::Whole => "whole",
        }
    }
}

/// Reachable positions of one disc count above the enumerated frontier,
/// by class: the sorted canonical keys (a sorted array, not a hash set: a
/// whole layer of 6x6 at 18 discs is 1.3 G classes, 8 bytes each).
struct CensusLayer<G: Keyed> {
    discs: u32,
    held: LayerHeld,
    keys: SortedKeys<G::Key>,
}

/// Whether every game reaching `p` has an odd number of passes: each move
/// adds a disc and hands the move over, a pass only hands it over, and
/// Black moves first with 4 discs on the board; so without passes (or with
/// an even number) Black is to move exactly when the disc count is even.
#[inline]
pub fn odd_passes<G: Geometry>(p: &Position<G>) -> bool {
    p.discs().is_multiple_of(2) != (p.side_to_move() == Color::Black)
}

/// The default frontier of a board: every reachable position up to this
/// many discs (6x6: 2.1 M classes, 8x8: 0.5 M, built in seconds).
pub fn default_frontier_discs(size: crate::board::BoardSize) -> u32 {
    match size {
        crate::board::BoardSize::Four => 8,
        crate::board::BoardSize::Six => 14,
        crate::board::BoardSize::Eight => 13,
    }
}

impl<G: Keyed> Frontier<G> {
    /// Enumerates every reachable position of at most `discs` discs (at
    /// least the 4 of the start). A position of `k` discs is reached only
    /// through positions of at most `k` discs, so the walk never needs
    /// more.
    pub fn build(discs: u32) -> Frontier<G> {
        let discs = discs.clamp(4, G::SQUARES);
        let start = Position::<G>::start();
        let mut known = FxHashSet::default();
        known.insert(canonical_key(&start));
        let mut stack = vec![start];
        while let Some(p) = stack.pop() {
            for c in p.children() {
                if c.discs() <= discs && known.insert(canonical_key(&c)) {
                    stack.push(c);
                }
            }
        }
        Frontier { discs, known, layer: None }
    }

    /// Adds the reachable positions of layer `discs` (above the
    /// enumerated frontier) that `held` says: `keys` must be the canonical
    /// keys of every such position, as a census of the layer lists them
    /// (`estimate::census_layer` reads them so; they are sorted here, in
    /// place). A search for the estimates that meets a position of the
    /// layer that `held` covers answers it from them instead of searching
    /// below it. A position that needs a pass is otherwise proven
    /// unreachable only by exhausting every line below it; with the whole
    /// layer, no search goes below it at all.
    pub fn with_census_layer(mut self, discs: u32, held: LayerHeld, keys: Vec<G::Key>) -> Frontier<G> {
        assert!(discs > self.discs, "the census layer ({discs}) lies above the frontier ({})", self.discs);
        self.layer = Some(CensusLayer { discs, held, keys: SortedKeys::new(keys) });
        self
    }

    /// The census layer, if one was added: its disc count, what it holds,
    /// and its classes.
    pub fn census_layer(&self) -> Option<(u32, LayerHeld, usize)> {
        self.layer.as_ref().map(|l| (l.discs, l.held, l.keys.len()))
    }

    /// Whether the frontier decides `p` without a search, and how: every
    /// position of at most [`Frontier::discs`] discs, and (with
    /// `use_layer`) a position of the census layer's disc count that the
    /// layer covers.
    #[inline]
    fn decides(&self, p: &Position<G>, use_layer: bool) -> Option<bool> {
        if p.discs() <= self.discs {
            return Some(self.known.contains(&canonical_key(p)));
        }
        match &self.layer {
            Some(l) if use_layer && p.discs() == l.discs && l.held.answers(p) => {
                Some(l.keys.contains(&canonical_key(p)))
            }
            _ => None,
        }
    }

    /// The most discs of the positions it holds.
    pub fn discs(&self) -> u32 {
        self.discs
    }

    /// Classes held (every reachable class of up to `discs` discs).
    pub fn classes(&self) -> usize {
        self.known.len()
    }

    /// Bytes of memory it holds, about.
    pub fn bytes(&self) -> usize {
        let layer = self.layer.as_ref().map_or(0, |l| l.keys.bytes());
        self.known.capacity() * (std::mem::size_of::<G::Key>() + 1) + layer
    }

    /// An estimate of the bytes a frontier of up to `discs` discs takes
    /// while built (every class's key in a hash set at worst half full,
    /// and the walk's stack), from the census's estimate of each layer.
    pub fn bytes_needed(discs: u32) -> f64 {
        let classes = crate::engine::memory::estimate_classes(G::SIZE, discs.clamp(4, G::SQUARES));
        classes * (std::mem::size_of::<G::Key>() + 1) as f64 * 2.0
            + classes * 0.1 * std::mem::size_of::<Position<G>>() as f64
    }

    /// Whether `p`, of at most [`Frontier::discs`] discs, is reachable.
    pub fn contains(&self, p: &Position<G>) -> bool {
        p.discs() <= self.discs && self.known.contains(&canonical_key(p))
    }
}

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
struct OutOfBudget;

/// The class of `p` as the search remembers it: the least of the four
/// images (the symmetries of the start) of (occupied squares, black
/// discs), with the side to move in the first: the centre is occupied in
/// every position searched and every image, so its lowest square's bit is
/// cleared for White to move. Made on bitboards, cheaper than the dense
/// key.
#[inline]
fn class_of<G: Geometry>(p: &Position<G>) -> (u64, u64) {
    let (b, w) = (p.black().0, p.white().0);
    let (occ, black) = (start_images::<G>(b | w), start_images::<G>(b));
    let least = (0..4).map(|i| (occ[i], black[i])).min().expect("four images");
    let white = if p.side_to_move() == Color::White { 1u64 << centre(G::N).trailing_zeros() } else { 0 };
    (least.0 ^ white, least.1)
}

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
    /// The conflict budget of the flip-history relaxation tried before a
    /// search (0: not tried).
    relaxation_conflicts: u64,
    /// The exact game encoding tried when the search runs out: its
    /// conflict budget (0: not tried) and solver.
    exact_conflicts: u64,
    exact_solver: Solver,
    /// What decided the last position asked.
    decided_by: Stage,
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
    /// The backward search: a line to the frontier, or every line
    /// exhausted (or, undecided, the budget spent).
    Search,
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
            Stage::Search => "backward search",
            Stage::Exact => "exact game encoding (SAT)",
        }
    }
}

/// The flip-history relaxation's default conflict budget: enough for the
/// dense 8x8 boards it refutes (docs/estimate.md), small beside a search.
pub const RELAXATION_CONFLICTS: u64 = 20_000;

/// The relaxation is tried on positions at least this many discs above
/// the layer the searches answer from: below, a search is cheaper.
pub const RELAXATION_ABOVE: u32 = 6;

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
            relaxation_conflicts: RELAXATION_CONFLICTS,
            exact_conflicts: 0,
            exact_solver: Solver::default(),
            decided_by: Stage::Search,
        }
    }

    /// The same search, handing a position it runs out on to the exact
    /// game encoding with `conflicts` conflicts (0: never) and `solver`.
    pub fn with_exact(mut self, conflicts: u64, solver: Solver) -> Self {
        self.exact_conflicts = conflicts;
        self.exact_solver = solver;
        self
    }

    /// The exact stage on `p`, where the search ran out: the verdict, and
    /// [`Search::decided_by`] set.
    fn exact(&mut self, p: &Position<G>) -> Verdict<G> {
        if self.exact_conflicts == 0 {
            return Verdict::Undecided;
        }
        self.decided_by = Stage::Exact;
        match exact_game_with::<G>(p, self.exact_conflicts, self.exact_solver) {
            Exact::Reachable(game) => Verdict::Reachable(game),
            Exact::Unreachable => Verdict::Unreachable,
            Exact::Unknown => Verdict::Undecided,
        }
    }

    /// The same search with the flip-history relaxation given `conflicts`
    /// conflicts (0: never tried).
    pub fn with_relaxation(mut self, conflicts: u64) -> Self {
        self.relaxation_conflicts = conflicts;
        self
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

    /// Positions visited by the last [`Search::decide`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

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
            let (nodes, budget) = (self.nodes, self.budget);
            self.budget = u64::MAX;
            let below = self.search(&bottom, false);
            self.budget = budget;
            self.nodes += nodes;
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
        self.unreachable.clear();
        self.line.clear();
        // the cheap conditions on `p` itself; its predecessors are
        // generated passing them
        if p.discs() > self.frontier.discs && !cheap_conditions::<G>(p.black().0, p.white().0) {
            self.nodes = 1;
            self.decided_by = Stage::Conditions;
            return Ok(false);
        }
        if self.relaxation_conflicts > 0
            && p.discs() >= self.answered_to + RELAXATION_ABOVE
            && flip_history::<G>(p.black().0, p.white().0, self.relaxation_conflicts) == Relaxation::Infeasible
        {
            self.nodes = 1;
            self.decided_by = Stage::FlipHistory;
            return Ok(false);
        }
        self.decided_by = if p.discs() <= self.answered_to { Stage::Frontier } else { Stage::Search };
        self.visit(*p, 0)
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

/// Searches of one frontier and budget kept for reuse by the tasks of a
/// thread pool: a task takes one (or a new one), and it comes back when
/// the task ends. A search's verdicts do not depend on what it decided
/// before, so which one a task gets changes no answer; reusing them keeps
/// their grown memory (see [`ClassSet`]) instead of faulting in fresh
/// pages for every task.
pub struct Searches<'f, G: Keyed> {
    frontier: &'f Frontier<G>,
    budget: u64,
    relaxation_conflicts: u64,
    exact_conflicts: u64,
    exact_solver: Solver,
    held: std::sync::Mutex<Vec<Search<'f, G>>>,
}

impl<'f, G: Keyed> Searches<'f, G> {
    /// None yet, of searches down to `frontier` of `budget` positions.
    pub fn new(frontier: &'f Frontier<G>, budget: u64) -> Self {
        Searches {
            frontier,
            budget,
            relaxation_conflicts: RELAXATION_CONFLICTS,
            exact_conflicts: 0,
            exact_solver: Solver::default(),
            held: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The same, their exact stage given `conflicts` conflicts (0: never)
    /// and `solver` ([`Search::with_exact`]).
    pub fn with_exact(mut self, conflicts: u64, solver: Solver) -> Self {
        self.exact_conflicts = conflicts;
        self.exact_solver = solver;
        self
    }

    /// The same, their flip-history relaxation given `conflicts`
    /// conflicts (0: never tried).
    pub fn with_relaxation(mut self, conflicts: u64) -> Self {
        self.relaxation_conflicts = conflicts;
        self
    }

    /// A search, kept or new, until the guard is dropped.
    pub fn take(&self) -> LentSearch<'_, 'f, G> {
        let kept = self.held.lock().expect("searches lock").pop();
        let search = kept.unwrap_or_else(|| {
            Search::new(self.frontier, self.budget)
                .with_relaxation(self.relaxation_conflicts)
                .with_exact(self.exact_conflicts, self.exact_solver)
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

/// Every predecessor of `p` (see the module documentation), appended to
/// `out`: the pass first, then the moves by square and flip choices.
pub fn predecessors<G: Geometry>(p: &Position<G>, out: &mut Vec<Position<G>>) {
    predecessors_with::<G, false>(p, out);
}

/// The squares on an edge of the board.
const fn edge_squares<G: Geometry>() -> u64 {
    let n = G::N;
    let row = (1u64 << n) - 1;
    let col0 = G::FULL / row;
    (row | row << ((n - 1) * n) | col0 | col0 << (n - 1)) & G::FULL
}

/// [`predecessors`]; with `PRUNE`, only those that pass
/// [`cheap_conditions`] where `p` passes them (so none is tested again on
/// them): a square `q` whose removal leaves an occupancy that cannot be
/// filled is skipped with all its flip choices (they share the
/// occupancy), the edges are tested again only where `q` or a flipped
/// disc lies on one (elsewhere they are those of `p`), and the discs
/// never flipped on every predecessor. The pass keeps the board, so it
/// passes them all.
fn predecessors_with<G: Geometry, const PRUNE: bool>(p: &Position<G>, out: &mut Vec<Position<G>>) {
    let (s_discs, m_discs) = (p.mover().0, p.opponent().0);
    let s = p.side_to_move();
    let m = s.opposite();
    let colours = |mover: u64, other: u64| -> Position<G> {
        // a position with `m` to move: `mover` are m's discs
        match m {
            Color::Black => Position::from_colors_unchecked(mover, other, Color::Black),
            Color::White => Position::from_colors_unchecked(other, mover, Color::White),
        }
    };
    // a pass of m: m has no move here, s has one
    if !p.legal_moves().is_empty() && !p.opponent_can_move() {
        out.push(p.pass());
    }
    let occ = s_discs | m_discs;
    let edges = const { edge_squares::<G>() };
    let mut q_set = m_discs & !centre(G::N);
    while q_set != 0 {
        let q = q_set.trailing_zeros();
        q_set &= q_set - 1;
        if PRUNE && !placeable::<G>(occ & !(1u64 << q)) {
            continue;
        }
        let mut choices: [[u64; 8]; 8] = [[0; 8]; 8];
        let mut counts = [1usize; 8];
        if !flip_choices::<G>(q, s_discs, m_discs, &mut choices, &mut counts) {
            continue;
        }
        // every combination but "nothing flipped", as an odometer over the
        // rays with a choice (the first ray turning fastest); the rays'
        // discs are disjoint, so a turn of a digit swaps its discs by xor
        let mut rays = [0usize; 8];
        let mut active = 0;
        for (d, &c) in counts.iter().enumerate() {
            if c > 1 {
                rays[active] = d;
                active += 1;
            }
        }
        let mut digit = [0usize; 8];
        let mut flipped = 0u64;
        'combinations: loop {
            let mut i = 0;
            loop {
                if i == active {
                    break 'combinations;
                }
                let d = rays[i];
                flipped ^= choices[d][digit[i]];
                digit[i] += 1;
                if digit[i] < counts[d] {
                    flipped ^= choices[d][digit[i]];
                    break;
                }
                digit[i] = 0; // choices[d][0] is nothing
                i += 1;
            }
            let before = colours(m_discs & !(1u64 << q) & !flipped, s_discs | flipped);
            debug_assert_eq!(before.flips(q).0, flipped, "predecessor does not replay");
            if PRUNE {
                let (b, w) = (before.black().0, before.white().0);
                if (flipped | 1u64 << q) & edges != 0 && !edges_possible::<G>(b, w) || !unflipped_consistent::<G>(b, w)
                {
                    continue;
                }
            }
            out.push(before);
        }
    }
}

/// The lines a move of `m` on `q` may have flipped, `s_discs` and `m_discs`
/// the discs of the side to move and of `m` after it: per ray, `counts[d]`
/// choices, choice `L` (`1 <= L < counts[d]`) the first `L` discs of the
/// run of `m` discs next to `q`, nearest first, and choice 0 nothing
/// (`choices` come zeroed, `counts` ones). False where a ray not flipped
/// would have been flippable (a run of `s` discs closed by an `m` disc):
/// no move on `q` made this position.
#[inline(always)]
fn flip_choices<G: Geometry>(
    q: u32,
    s_discs: u64,
    m_discs: u64,
    choices: &mut [[u64; 8]; 8],
    counts: &mut [usize; 8],
) -> bool {
    let rays = G::rays();
    for (d, &ray) in rays[q as usize].iter().enumerate() {
        let up = d < 4;
        let nearest_first = |mut bits: u64, out: &mut [u64; 8]| -> usize {
            // the squares of `bits` along the ray, nearest first
            let mut k = 0;
            while bits != 0 {
                let sq = if up { bits.trailing_zeros() } else { 63 - bits.leading_zeros() };
                out[k] = 1 << sq;
                bits &= !(1u64 << sq);
                k += 1;
            }
            k
        };
        let mut squares = [0u64; 8];
        let len = nearest_first(ray, &mut squares);
        let mut run = 0;
        while run < len && squares[run] & m_discs != 0 {
            run += 1;
        }
        if run == 0 {
            // not flipped: it must not have been flippable (a run of s
            // discs closed by an m disc)
            let mut k = 0;
            while k < len && squares[k] & s_discs != 0 {
                k += 1;
            }
            if k > 0 && k < len && squares[k] & m_discs != 0 {
                return false;
            }
            continue;
        }
        // L discs flipped, L in 1..run: choice L is the union of the first L
        let mut acc = 0u64;
        for l in 1..run {
            acc |= squares[l - 1];
            choices[d][l] = acc;
        }
        counts[d] = run;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, Status};

    #[test]
    fn joined() {
        // 6x6: the centre and a disc two squares away from it
        let c = centre(6);
        assert!(joined_to_centre::<B6>(c));
        assert!(joined_to_centre::<B6>(c | 1 << 7)); // b2 touches c3
        assert!(!joined_to_centre::<B6>(c | 1 << 0)); // a1 does not
        assert!(joined_to_centre::<B6>(c | 1 << 0 | 1 << 7));
        // no wrap around rows: f3 (17) and a4 (18) are not neighbours
        assert!(joined_to_centre::<B6>(c | 1 << 16 | 1 << 17));
        assert!(!joined_to_centre::<B6>(c | 1 << 16 | 1 << 17 | 1 << 18));
        assert!(!joined_to_centre::<B4>(0));
    }

    /// The fill of [`placeable`], square by square and direction by
    /// direction on coordinates (no bit operations shared).
    fn placeable_by_squares(n: i32, occ: u64) -> bool {
        let at = |r: i32, c: i32| (0..n).contains(&r) && (0..n).contains(&c) && occ >> (r * n + c) & 1 == 1;
        let h = n / 2;
        let mut filled = std::collections::HashSet::from([(h - 1, h - 1), (h - 1, h), (h, h - 1), (h, h)]);
        if !filled.iter().all(|&(r, c)| at(r, c)) {
            return false;
        }
        loop {
            let mut grew = false;
            for r in 0..n {
                for c in 0..n {
                    if !at(r, c) || filled.contains(&(r, c)) {
                        continue;
                    }
                    let dirs = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)];
                    if dirs.iter().any(|&(dr, dc)| {
                        filled.contains(&(r + dr, c + dc)) && filled.contains(&(r + 2 * dr, c + 2 * dc))
                    }) {
                        filled.insert((r, c));
                        grew = true;
                    }
                }
            }
            if !grew {
                return filled.len() as u32 == occ.count_ones();
            }
        }
    }

    proptest::proptest! {
        /// The bitboard fill equals the fill by coordinates, on random
        /// occupancies grown around the centre (so that both answers occur).
        #[test]
        fn placeable_equals_the_fill_by_squares(x in proptest::num::u64::ANY, y in proptest::num::u64::ANY) {
            fn check<G: Geometry>(x: u64, y: u64) -> Result<(), proptest::test_runner::TestCaseError> {
                // dense near the centre, sparse far from it
                let occ = (centre(G::N) | (x & with_neighbours::<G>(with_neighbours::<G>(centre(G::N)))) | (x & y)) & G::FULL;
                proptest::prop_assert_eq!(placeable::<G>(occ), placeable_by_squares(G::N as i32, occ), "{} {:#x}", G::N, occ);
                Ok(())
            }
            check::<B4>(x, y)?;
            check::<B6>(x, y)?;
            check::<crate::board::B8>(x, y)?;
        }
    }

    #[test]
    fn placeable_needs_two_squares_in_line() {
        let c = centre(6);
        // b2 (7) lies in line with c3 and d4; a2 (6) touches b2 but has no
        // two occupied squares in line in any direction
        assert!(placeable::<B6>(c | 1 << 7));
        assert!(joined_to_centre::<B6>(c | 1 << 7 | 1 << 6));
        assert!(!placeable::<B6>(c | 1 << 7 | 1 << 6));
        // no line through a row's end: f3 (17), e3 (16) fill; a4 (18) is
        // not in line with them
        assert!(placeable::<B6>(c | 1 << 16 | 1 << 17));
        assert!(!placeable::<B6>(c | 1 << 16 | 1 << 17 | 1 << 18));
        assert!(!placeable::<B4>(0));
    }

    /// The forward closure of [`line_states`] against a backward search
    /// written apart: a line is reachable when it is empty, or when some
    /// disc (colour `c`) can have been placed last: along neither side does
    /// it flank a run of the other colour that would have been flipped, and
    /// giving back to the other colour some prefix shorter than the run of
    /// `c` next to it on each side (nothing, or what the move flipped)
    /// leaves a reachable line.
    #[test]
    fn line_states_agree_with_a_backward_search() {
        fn reachable(line: &mut [u8], memo: &mut std::collections::HashMap<Vec<u8>, bool>) -> bool {
            if line.iter().all(|&x| x == 0) {
                return true;
            }
            if let Some(&r) = memo.get(line) {
                return r;
            }
            let n = line.len() as isize;
            let mut found = false;
            'last: for i in 0..n {
                let c = line[i as usize];
                if c == 0 {
                    continue;
                }
                // per side: the run of c next to i, or None when the side
                // flanks a run of the other colour (it would have flipped)
                let mut runs = [0isize; 2];
                for (side, d) in [1isize, -1].into_iter().enumerate() {
                    let mut j = i + d;
                    while (0..n).contains(&j) && line[j as usize] == 3 - c {
                        j += d;
                    }
                    if j != i + d && (0..n).contains(&j) && line[j as usize] == c {
                        continue 'last;
                    }
                    let mut j = i + d;
                    while (0..n).contains(&j) && line[j as usize] == c {
                        j += d;
                    }
                    runs[side] = (j - (i + d)) * d;
                }
                for k0 in 0..runs[0].max(1) {
                    for k1 in 0..runs[1].max(1) {
                        let mut before = line.to_vec();
                        before[i as usize] = 0;
                        for s in 1..=k0 {
                            before[(i + s) as usize] = 3 - c;
                        }
                        for s in 1..=k1 {
                            before[(i - s) as usize] = 3 - c;
                        }
                        if reachable(&mut before, memo) {
                            found = true;
                            break 'last;
                        }
                    }
                }
            }
            memo.insert(line.to_vec(), found);
            found
        }
        for n in [4u32, 6, 8] {
            let forward = line_states(n);
            let mut memo = std::collections::HashMap::new();
            for (s, &fwd) in forward.iter().enumerate() {
                let mut line: Vec<u8> = (0..n).map(|i| (s / 3usize.pow(i) % 3) as u8).collect();
                assert_eq!(reachable(&mut line, &mut memo), fwd, "n {n}, line {line:?}");
            }
            assert!(forward.iter().any(|&r| !r), "some lines of {n} are out of reach");
        }
    }

    #[test]
    fn an_edge_that_no_moves_on_it_can_make() {
        // 6x6 top edge O X O X . . : whichever disc came last flanks a run
        // that it would have flipped
        assert!(!edges_possible::<B6>(1 << 1 | 1 << 3, 1 << 0 | 1 << 2));
        // X X O X . . : the O came last, between its two neighbours
        assert!(edges_possible::<B6>(1 << 0 | 1 << 1 | 1 << 3, 1 << 2));
        // the same along the right edge (squares 5, 11, 17, 23)
        assert!(!edges_possible::<B6>(1 << 11 | 1 << 23, 1 << 5 | 1 << 17));
    }

    /// Every position of every 4x4 game, and of random 6x6 and 8x8 games,
    /// passes both conditions (they are necessary).
    #[test]
    fn every_reachable_position_is_placeable() {
        let mut layer = vec![Position::<B4>::start()];
        let mut seen = 0;
        while !layer.is_empty() {
            for p in &layer {
                assert!(cheap_conditions::<B4>(p.black().0, p.white().0), "{p:?}");
                seen += 1;
            }
            let mut next: Vec<_> = layer.iter().flat_map(|p| p.children()).collect();
            next.sort_unstable_by_key(|p| (p.black().0, p.white().0, p.side_to_move() == Color::Black));
            next.dedup();
            layer = next;
        }
        assert!(seen > 60_000);
        fn games<G: Geometry>(count: usize) {
            crate::board::random_games::<G>(count, 0x9E37_79B9_7F4A_7C15, |p| {
                assert!(cheap_conditions::<G>(p.black().0, p.white().0), "{p:?}");
            });
        }
        games::<B6>(2000);
        games::<crate::board::B8>(2000);
    }

    /// A corner disc that could flip only the centre disc beside it, which
    /// nothing can flip back, shows that disc in the other colour: the
    /// occupancy and the edges pass, the discs never flipped do not, and
    /// the search says unreachable at once; with that disc in the corner's
    /// colour, the disc behind it must be so too.
    #[test]
    fn a_corner_whose_only_flip_shows_undone() {
        let p = Position::<B4>::parse("X.... O X.. X O. .... O").unwrap();
        let (b, w) = (p.black().0, p.white().0);
        assert!(placeable::<B4>(b | w) && edges_possible::<B4>(b, w));
        assert!(!unflipped_consistent::<B4>(b, w));
        let frontier = Frontier::<B4>::build(4);
        let mut search = Search::new(&frontier, 1_000);
        assert_eq!(search.decide(&p), Verdict::Unreachable);
        assert_eq!(search.nodes(), 1);
        // with b2 of the corner's colour, c3 (the anchor) was so too, and
        // can turn back only along the diagonal, through b2, which stays
        let b2 = 1u64 << 5;
        assert!(!unflipped_consistent::<B4>(b | b2, w & !b2));
    }

    /// The corner could have flipped only along the diagonal, through b2
    /// (which the b-file can turn back), but c3 never flipped and is White:
    /// it could not anchor a Black move on a1, nor be flipped by one.
    #[test]
    fn a_never_flipped_disc_cannot_anchor_the_other_side() {
        let p = Position::<B4>::parse("XX.. .OX. .XO. .... O").unwrap();
        let (b, w) = (p.black().0, p.white().0);
        assert!(placeable::<B4>(b | w) && edges_possible::<B4>(b, w));
        assert!(!unflipped_consistent::<B4>(b, w));
    }

    /// Every reachable position of up to 12 discs on 6x6 and on 8x8 (each
    /// once, by a walk forwards) passes the cheap
    /// conditions: the 4x4 board has no squares off the edges and the
    /// centre, so there the discs never flipped are only edge discs.
    #[test]
    fn every_early_position_of_the_larger_boards_passes_the_conditions() {
        fn check<G: Geometry>(discs: u32) -> usize {
            let mut seen = std::collections::HashSet::new();
            let mut stack = vec![Position::<G>::start()];
            while let Some(p) = stack.pop() {
                assert!(cheap_conditions::<G>(p.black().0, p.white().0), "{p}");
                for c in p.children() {
                    if c.discs() <= discs && seen.insert(c) {
                        stack.push(c);
                    }
                }
            }
            seen.len()
        }
        let (six, eight) = (check::<B6>(12), check::<crate::board::B8>(12));
        assert!(six > 100_000 && eight > 100_000, "{six} {eight}");
    }

    /// Every child of every reachable position lists its parent among its
    /// predecessors, through 4x4 to the end.
    #[test]
    fn children_list_their_parents() {
        let mut stack = vec![Position::<B4>::start()];
        let mut seen = std::collections::HashSet::new();
        let mut preds = Vec::new();
        while let Some(p) = stack.pop() {
            for c in p.children() {
                preds.clear();
                predecessors(&c, &mut preds);
                assert!(preds.contains(&p), "{c} lacks {p}");
                if seen.insert(c) {
                    stack.push(c);
                }
            }
        }
    }

    /// A generator for the tests (splitmix64), so that the search module
    /// needs nothing of the estimator's.
    struct TestRng(u64);

    impl TestRng {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next_u64() % n
        }
    }

    /// The pruned predecessors are exactly the predecessors that pass the
    /// two cheap conditions (tested on each, not inherited), in the same
    /// order, for positions of random 4x4, 6x6 and 8x8 games and variations of
    /// them with discs recoloured (so that both answers occur).
    #[test]
    fn pruned_predecessors_are_those_that_pass_the_conditions() {
        fn check<G: Geometry>(seed: u64) {
            let mut rng = TestRng(seed ^ u64::from(G::N) << 32);
            for _ in 0..40 {
                let mut p = Position::<G>::start();
                let plies = 4 + rng.below(G::SQUARES as u64 - 4);
                for _ in 0..plies {
                    match p.status() {
                        Status::Moves(m) => {
                            let sqs: Vec<u32> = m.iter().collect();
                            p = p.play(sqs[rng.below(sqs.len() as u64) as usize]);
                        }
                        Status::Pass => p = p.pass(),
                        Status::Terminal => break,
                    }
                }
                // recolour a few non-centre discs at random
                let occ = p.black().0 | p.white().0;
                let flip = rng.next_u64() & rng.next_u64() & occ & !centre(G::N);
                let side = if rng.next_u64() & 1 == 1 { Color::Black } else { Color::White };
                for q in [p, Position::from_colors_unchecked(p.black().0 ^ flip, p.white().0 ^ flip, side)] {
                    if !cheap_conditions::<G>(q.black().0, q.white().0) {
                        continue;
                    }
                    let (mut all, mut pruned) = (Vec::new(), Vec::new());
                    predecessors(&q, &mut all);
                    predecessors_with::<G, true>(&q, &mut pruned);
                    let want: Vec<_> =
                        all.into_iter().filter(|x| cheap_conditions::<G>(x.black().0, x.white().0)).collect();
                    assert_eq!(pruned, want, "{q}");
                }
            }
        }
        for seed in 0..200 {
            check::<B4>(seed);
            check::<B6>(seed);
            check::<crate::board::B8>(seed);
        }
    }
}
