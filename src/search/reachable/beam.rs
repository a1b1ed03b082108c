//! The beam: a breadth-first walk down the predecessors that keeps, at
//! each step, only the most plausible positions, for the dense positions
//! the depth-first search drowns in.
//!
//! The depth-first search of a dense position spends its budget under its
//! first few un-moves: one wrong un-move near the top hides a subtree of
//! millions of positions, which it must exhaust before it tries the next.
//! The beam instead takes every predecessor of every position it holds,
//! one step at a time (an un-move, or an un-pass), drops the classes it has
//! met, and keeps the `width` that score best. A line that reaches the
//! frontier is a game (the position is reachable); a step that keeps
//! every predecessor it met, from the first step to an empty one, has
//! walked every line (the position is unreachable, as the depth-first
//! search's exhaustion proves it). When a step had to drop positions, an
//! empty step proves nothing: the beam gives up.
//!
//! The sweep, tried where the beam gives up, is the same walk keeping
//! every position of every step, up to a far larger width: it stops at
//! the first step it would have to drop from. Dense positions that are
//! unreachable die out within a few dozen steps, their steps merging
//! transpositions that the depth-first search walks again and again; a
//! sweep of 4 x 10^6 proves a third of the dense 8x8 samples the search
//! of 10^6 left undecided, where a search of 10^7 proves one in eight.
//!
//! The score ranks positions of a step by how compact their discs are:
//! pairs of occupied neighbours, and pairs of neighbours of one colour. A
//! game grows its discs as a blob and turns whole lines to one colour, so
//! the predecessors on a game's line tend to keep that shape, and un-moves
//! that leave holes or scattered colours are the ones that die below. The
//! score is a guide only: a verdict never depends on it being right, only
//! on the line found (replayed by the caller) or the walk being complete.
//! Ishii and Tanaka (Game Programming Workshop 2025) order their backward
//! search by features of this kind; this score is written here anew.

use rustc_hash::FxHashSet;

use crate::board::{Geometry, Position};
use crate::key::Keyed;
use crate::search::class_set::Class;

use super::class::class_of;
use super::*;

/// How a walk keeps its steps.
#[derive(Clone, Copy, Debug)]
pub(super) enum Walk {
    /// The beam: the `width` best positions of a step; the rest are
    /// dropped and the walk goes on.
    Beam(usize),
    /// The sweep: every position of every step, at most `width` a step
    /// and [`SWEEP_HELD`] times `width` over the steps held; a walk that
    /// would hold more gives up at once (it could no longer prove a
    /// position unreachable, and the beam is the better finder of games).
    Sweep(usize),
}

/// What the beam found.
pub(super) enum BeamOutcome<G: Geometry> {
    /// A line from a position the frontier holds (first) up to the
    /// position asked (last).
    Found(Vec<Position<G>>),
    /// Every line was walked, none reaches the frontier: unreachable.
    Exhausted,
    /// A step dropped positions and no line was found: nothing proven.
    GaveUp,
}

/// Adjacent pairs of squares (one of `a`, one of `b`) along the four
/// directions east, south, south-east and south-west: each pair counted
/// once when `a == b`.
#[inline]
fn pairs<G: Geometry>(a: u64, b: u64) -> u32 {
    let n = G::N;
    let col0 = G::FULL / ((1u64 << n) - 1);
    let last = col0 << (n - 1);
    let east = (a & !last) << 1;
    let south = a << n;
    let south_east = (a & !last) << (n + 1);
    let south_west = (a & !col0) << (n - 1);
    (east & b).count_ones() + (south & b).count_ones() + (south_east & b).count_ones() + (south_west & b).count_ones()
}

/// The beam's score of a position (higher: kept first).
#[inline]
pub(super) fn compactness<G: Geometry>(p: &Position<G>) -> u32 {
    let (b, w) = (p.black().0, p.white().0);
    let occ = b | w;
    pairs::<G>(occ, occ) + pairs::<G>(b, b) + pairs::<G>(w, w)
}

/// One position of a step, with the index of its successor in the step
/// before (the line is read back through them).
#[derive(Clone, Copy)]
struct Held<G: Geometry> {
    p: Position<G>,
    from: u32,
}

/// The sweep's default width: it proved 23% of the undecided samples of
/// the three 8x8 runs unreachable (nearly all of 44-55 discs), about 3 s
/// a sample and 460 MB; on 40 of them, 5 at 10^6 and 12 at 4 x 10^6
/// (7.4 s a sample, 1.1 GB; results/benchmarks). A default that every
/// machine can give each thread.
pub const SWEEP_WIDTH: usize = 1_000_000;

/// The beam's default width: on dense 8x8 positions it finds about half
/// the games of positions from random games (the depth-first search of
/// 10^7 positions finds none), in about a second each.
pub const BEAM_WIDTH: usize = 10_000;

/// Candidates a step takes, per position kept: past it, the step's
/// remaining predecessors are not generated (the step is then incomplete,
/// like one that dropped positions). It bounds the beam's memory.
const CANDIDATES_PER_KEPT: usize = 64;

/// A candidate of a step: its score, class and position.
type Candidate<G> = (u32, Class, Held<G>);

/// Bytes a class takes in the set of classes met: the set is at most
/// seven eighths full and doubles when it grows, so up to four times the
/// class (with its control byte).
const MET_BYTES: u64 = 4 * std::mem::size_of::<Class>() as u64;

/// The most memory a beam of `width` holds: the candidates of a step and
/// their classes met, and the positions of every step kept (at most 64
/// steps of `width`).
pub const fn beam_bytes<G: Geometry>(width: usize) -> u64 {
    let candidate = std::mem::size_of::<Candidate<G>>() as u64;
    let held = std::mem::size_of::<Held<G>>() as u64;
    (width as u64).saturating_mul(CANDIDATES_PER_KEPT as u64 * (candidate + MET_BYTES) + 64 * held)
}

/// Positions a sweep of `width` may hold over all its steps, in units of
/// `width`: on dense 8x8 positions the walks it completes hold 0.4 to 6.2
/// widths in all (their steps rise to a peak and fall; 12 undecided
/// samples of 44-56 discs at a width of 4 x 10^6), and the bound keeps
/// its memory a fixed multiple of the width.
pub const SWEEP_HELD: usize = 8;

/// The most memory a sweep of `width` holds: a step's candidates (twice
/// the width, for the vector's doubling) and their classes met (only
/// those that go into the step: the frontier's answers are not kept), and
/// the positions held over its steps. About 450 bytes a position of width
/// on 8x8.
pub const fn sweep_bytes<G: Geometry>(width: usize) -> u64 {
    let candidate = std::mem::size_of::<Candidate<G>>() as u64;
    let held = std::mem::size_of::<Held<G>>() as u64;
    (width as u64).saturating_mul(2 * candidate + MET_BYTES + SWEEP_HELD as u64 * held)
}

/// Proofs of unreachability for the positions of the sweep's steps
/// ([`beam`]): a cheap one tried on every position as it enters a step,
/// and a dearer one on every position of a complete step of at most
/// [`StepProof::most`] positions. True: proven unreachable.
pub(super) trait StepProof<G: Geometry> {
    fn cheap(&mut self, p: &Position<G>) -> bool;
    fn full(&mut self, p: &Position<G>) -> bool;
    fn most(&self) -> usize;
}

/// Walks down from `p`, keeping its steps as `walk` says. `answered`:
/// whether the frontier decides a position (and how), as the depth-first
/// search asks it; `refuted`: whether a class is proven unreachable (by
/// the depth-first search before). `nodes` counts the positions taken
/// into a step. `prune`: proofs of unreachability (the sweep's
/// relaxation, [`StepProof`]): a position they prove unreachable leaves
/// the step, as if no line reached it, so a step pruned to nothing still
/// proves. `cut`, asked before each step: the walk gives up when it says
/// so (a deadline, a signal).
pub(super) fn beam<G: Keyed>(
    p: &Position<G>,
    walk: Walk,
    answered: impl Fn(&Position<G>) -> Option<bool>,
    refuted: impl Fn(Class) -> bool,
    mut prune: Option<&mut dyn StepProof<G>>,
    cut: &dyn Fn() -> bool,
    nodes: &mut u64,
) -> BeamOutcome<G> {
    let mut steps: Vec<Vec<Held<G>>> = vec![vec![Held { p: *p, from: 0 }]];
    let mut met: FxHashSet<Class> = FxHashSet::default();
    let mut complete = true;
    let mut preds = Vec::new();
    let mut next: Vec<Candidate<G>> = Vec::new();
    let (width, cap, held_cap) = match walk {
        Walk::Beam(w) => (w, w.saturating_mul(CANDIDATES_PER_KEPT), usize::MAX),
        Walk::Sweep(w) => (w, w.saturating_add(1), w.saturating_mul(SWEEP_HELD)),
    };
    let mut held = 1usize;
    let ranked = matches!(walk, Walk::Beam(_));
    loop {
        if cut() {
            return BeamOutcome::GaveUp;
        }
        let here = steps.last().expect("a step");
        next.clear();
        met.clear();
        for (i, h) in here.iter().enumerate() {
            if next.len() >= cap {
                complete = false;
                break;
            }
            preds.clear();
            predecessors_with::<G, true>(&h.p, &mut preds);
            for q in &preds {
                let key = class_of(q);
                if refuted(key) {
                    continue;
                }
                // the frontier's answers are asked again rather than kept
                // in `met`: a step just above the frontier meets many more
                // of them than it keeps
                let answer = answered(q);
                if answer.is_none() && !met.insert(key) {
                    continue;
                }
                *nodes += 1;
                match answer {
                    Some(true) => {
                        // the line: q, then back up through the steps
                        let mut line = vec![*q];
                        let mut at = i;
                        for step in steps.iter().rev() {
                            line.push(step[at].p);
                            at = step[at].from as usize;
                        }
                        return BeamOutcome::Found(line);
                    }
                    Some(false) => {}
                    None => {
                        if let Some(proof) = prune.as_mut()
                            && proof.cheap(q)
                        {
                            continue;
                        }
                        // only the beam ranks a step; the sweep never drops
                        let score = if ranked { compactness(q) } else { 0 };
                        next.push((score, key, Held { p: *q, from: i as u32 }))
                    }
                }
            }
        }
        if let Some(proof) = prune.as_mut()
            && complete
            && next.len() <= proof.most()
        {
            next.retain(|c| !proof.full(&c.2.p));
        }
        if next.is_empty() {
            return if complete { BeamOutcome::Exhausted } else { BeamOutcome::GaveUp };
        }
        held += next.len();
        if matches!(walk, Walk::Sweep(_)) && (next.len() > width || held > held_cap) {
            return BeamOutcome::GaveUp;
        }
        if next.len() > width {
            complete = false;
            // best score first; the class breaks ties, so the step kept
            // depends on the position alone
            next.select_nth_unstable_by(width, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            next.truncate(width);
        }
        steps.push(next.iter().map(|&(_, _, h)| h).collect());
    }
}
