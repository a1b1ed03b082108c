//! Perfect play: the exact value of a position by negamax alpha-beta with
//! principal-variation search and MTD(f) windows, a transposition table
//! keyed by the position's shape (the eight symmetries of the square fold
//! transpositions) and shared by all threads, move ordering by the table's
//! best move, a short search of each child by mobility and corners (the
//! opponent's mobility alone nearer the end), corners, X-squares and
//! parity, and a plain search for the last few empties.
//!
//! Threads: every thread searches the whole tree through the shared table;
//! a position one thread is searching is put last by the others (a
//! simplified ABDADA), so they spread over the tree. The main thread's
//! value is the answer; helpers stop when it has it and store nothing after.
//!
//! Values are final disc differences from the point of view of the side to
//! move, empty squares going to the winner (the usual convention); `solve`
//! reports them for Black.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::board::cpu::CpuLevel;
use crate::board::movegen::{final_score, flips, legal_moves, play};
use crate::board::{Color, Position};
use crate::key::Keyed;
use crate::shape::shape_and_symmetry;
use crate::slots::{Line, Slots, read_record, write_record};
use crate::symmetry::Symmetry;

/// Empties at or below which the search stops probing the table and
/// ordering moves.
const SHALLOW: u32 = 6;
/// Empties above which children are looked up in the table before the
/// search (enhanced transposition cutoff).
const ETC_EMPTIES: u32 = 14;
/// Empties from which a thread searching a position marks it busy, and a
/// thread meeting a busy position among its later moves searches it last
/// (by when the table likely holds its value): so that threads sharing a
/// table spread over the tree instead of searching the same subtrees.
const DEFER_EMPTIES: u32 = 12;

/// Bytes of one table entry (two to a cache line): a header word with
/// the lower bound, upper bound, best move (in the canonical frame, 255:
/// none) and empties in its low bytes under a sequence number (see
/// [`read_record`]), the shape key + 1 (0: an empty entry) in two words,
/// one word unused.
pub const ENTRY_BYTES: usize = 32;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u128,
    lower: i8,
    upper: i8,
    best: u8,
}

/// The transposition table, shared by every thread of a search: buckets
/// of one cache line holding two entries. The first keeps the entry with
/// the most empties (the costliest to recompute) offered to it, the second
/// the latest other one. A read that overlaps a write is a miss, never a
/// torn entry; a write that meets another is dropped.
struct Table {
    lines: Slots<Line>,
    mask: usize,
}

impl Table {
    /// The largest power-of-two number of buckets within `bytes` (at least 512).
    fn new(bytes: u64) -> Table {
        let n = ((bytes / size_of::<Line>() as u64).max(512) as usize + 1).next_power_of_two() / 2;
        Table { lines: Slots::new(n), mask: n - 1 }
    }

    fn bytes(&self) -> u64 {
        self.lines.bytes()
    }

    #[inline]
    fn bucket(&self, key: u128) -> &[AtomicU64; 8] {
        let h = (key as u64) ^ ((key >> 64) as u64);
        &self.lines.get((h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) as usize & self.mask).0
    }

    #[inline]
    fn load(&self, key: u128) -> Option<Entry> {
        let bucket = self.bucket(key);
        for w in [&bucket[..4], &bucket[4..]] {
            if let Some((tag, [k0, k1, _])) = read_record::<3>(w, 32)
                && k0 == key as u64
                && k1 == (key >> 64) as u64
            {
                return Some(Entry {
                    key,
                    lower: tag as u8 as i8,
                    upper: (tag >> 8) as u8 as i8,
                    best: (tag >> 16) as u8,
                });
            }
        }
        None
    }

    #[inline]
    fn store(&self, e: Entry, empties: u32) {
        let bucket = self.bucket(e.key);
        let holds = |w: &[AtomicU64]| {
            w[1].load(Ordering::Relaxed) == e.key as u64 && w[2].load(Ordering::Relaxed) == (e.key >> 64) as u64
        };
        let first_empties = (bucket[0].load(Ordering::Relaxed) >> 24) & 0xff;
        let w = if holds(&bucket[..4]) || (!holds(&bucket[4..]) && u64::from(empties) >= first_empties) {
            &bucket[..4]
        } else {
            &bucket[4..]
        };
        let tag = u64::from(e.lower as u8)
            | u64::from(e.upper as u8) << 8
            | u64::from(e.best) << 16
            | u64::from(empties.min(255)) << 24;
        write_record(w, 32, tag, &[e.key as u64, (e.key >> 64) as u64, 0]);
    }
}

/// The exact value of a position and how it was found.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Final disc difference, Black − White, empty squares to the winner.
    pub value: i32,
    /// The disc difference, Black − White, at the end of the principal
    /// variation, empty squares left empty.
    pub raw_difference: i32,
    /// The principal variation from the position: squares, `None` for a
    /// pass.
    pub pv: Vec<Option<u32>>,
    /// Positions searched (every thread).
    pub nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Threads searching.
    pub threads: usize,
    /// Bytes of the transposition table (shared by every thread).
    pub table_bytes: u64,
}

/// How far a solve has gone, for another thread to show: positions
/// searched (added in steps of `PROGRESS_STEP` (2^20) per thread), and the
/// bounds on the value for the side to move that the main thread's
/// windows have proven so far.
#[derive(Debug)]
pub struct SolveProgress {
    nodes: AtomicU64,
    lower: AtomicI32,
    upper: AtomicI32,
}

/// Positions a thread searches between two reports to [`SolveProgress`].
const PROGRESS_STEP: u64 = 1 << 20;

impl Default for SolveProgress {
    fn default() -> Self {
        SolveProgress { nodes: AtomicU64::new(0), lower: AtomicI32::new(-64), upper: AtomicI32::new(64) }
    }
}

impl SolveProgress {
    /// A progress with nothing searched yet.
    pub fn new() -> SolveProgress {
        SolveProgress::default()
    }

    /// (positions searched, lower bound, upper bound), the bounds on the
    /// value for the side to move (empty squares to the winner).
    pub fn get(&self) -> (u64, i32, i32) {
        (self.nodes.load(Ordering::Relaxed), self.lower.load(Ordering::Relaxed), self.upper.load(Ordering::Relaxed))
    }
}

/// What the threads of one solve share.
struct Shared<'p> {
    progress: &'p SolveProgress,
    table: Table,
    /// Positions some thread is searching now (see [`DEFER_EMPTIES`]).
    busy: Vec<AtomicU64>,
    /// Set when the main thread has its answer: helpers stop, and store
    /// nothing more.
    stop: AtomicBool,
}

impl Shared<'_> {
    #[inline]
    fn busy_slot(&self, key: u128) -> (&AtomicU64, u64) {
        let h = ((key as u64) ^ ((key >> 64) as u64).rotate_left(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (&self.busy[(h >> 40) as usize & (self.busy.len() - 1)], h)
    }
}

/// One thread's search: what the threads share, and its node count.
struct Search<'t, G: Keyed> {
    shared: &'t Shared<'t>,
    /// Whether this thread only helps (its values are not used, and it
    /// stops when the main thread is done).
    helper: bool,
    nodes: u64,
    /// `nodes` when last reported to the progress.
    reported: u64,
    geometry: std::marker::PhantomData<G>,
}

const CORNERS: fn(u32) -> u64 = |n| {
    let last = n * n - 1;
    (1 << 0) | (1 << (n - 1)) | (1 << (last - (n - 1))) | (1 << last)
};

/// Empties from which moves are ordered by a short search ([`eval`] one
/// ply ahead of the child), from which two plies, and three.
const PROBE_EMPTIES: u32 = 14;
const PROBE_DEEPER: u32 = 16;
const PROBE_DEEPEST: u32 = 20;
/// Beyond any [`eval`]; and the weight of a disc of a finished game.
const PROBE_INF: i32 = 1 << 20;
const PROBE_WIN: i32 = 1 << 10;

/// A guess at the value of (me to move, opp) for move ordering, from the
/// mobilities (`moves` of the side to move, `replies` of the other) and
/// the corners held.
#[inline(always)]
fn eval<G: Keyed>(me: u64, opp: u64, moves: u64, replies: u64) -> i32 {
    let corners = CORNERS(G::N);
    16 * (moves.count_ones() as i32 - replies.count_ones() as i32)
        + 24 * ((me & corners).count_ones() as i32 - (opp & corners).count_ones() as i32)
}

/// Ordering weights (tuned by node counts of `examples/solve_bench`).
const X_PENALTY: i32 = 24;
const PARITY_EMPTIES: u32 = 14;
const PARITY_BONUS: i32 = 6;

impl<G: Keyed> Search<'_, G> {
    /// The corner a square touches (a neighbour of it), as a one-square
    /// set, or `u64::MAX` for a square next to no corner (or a corner).
    #[inline]
    fn corner_of(sq: u32) -> u64 {
        let n = G::N;
        let (r, c) = (sq / n, sq % n);
        let near = |x: u32| {
            if x <= 1 {
                Some(0)
            } else if x >= n - 2 {
                Some(n - 1)
            } else {
                None
            }
        };
        match (near(r), near(c)) {
            (Some(cr), Some(cc)) if (r, c) != (cr, cc) => 1u64 << (cr * n + cc),
            _ => u64::MAX,
        }
    }

    /// The quadrant of the board that holds `sq`.
    #[inline]
    fn quadrant(sq: u32) -> u64 {
        let n = G::N;
        let h = n / 2;
        let (r0, c0) = (sq / n / h * h, sq % n / h * h);
        let mut q = 0u64;
        for r in r0..r0 + h {
            for c in c0..c0 + h {
                q |= 1u64 << (r * n + c);
            }
        }
        q
    }

    /// The table key of (me to move, opp): its shape (the eight
    /// symmetries of the square fold transpositions) + 1, so that 0 marks
    /// an empty slot; and the symmetry that maps it onto the shape's image.
    #[inline]
    fn key(me: u64, opp: u64) -> (u128, Symmetry) {
        let (k, sym) = shape_and_symmetry::<G>(me, opp);
        (k + 1, sym)
    }
}

/// Defines the module `$module`: the search compiled with the move
/// generator `$moves`/`$flips` and the CPU features `$features` of its
/// level (see [`crate::board::cpu::cpu_copies`]).
macro_rules! searcher {
    ($module:ident, $moves:ident, $flips:ident, $mobility:ident, [$($features:literal),*]) => {
        mod $module {
            use super::*;
            #[cfg(target_arch = "x86_64")]
            #[allow(unused_imports)]
            use crate::board::movegen::{flips_avx2, legal_moves_avx2};

            /// The exact value of (me to move, opp) if it lies in `(alpha, beta)`;
            /// otherwise a bound on the side the window missed.
            $(#[target_feature(enable = $features)])*
            pub(super) fn pvs<G: Keyed>(s: &mut Search<'_, G>, me: u64, opp: u64, mut alpha: i32, mut beta: i32) -> i32 {
                s.nodes += 1;
                if s.nodes - s.reported >= PROGRESS_STEP {
                    s.shared.progress.nodes.fetch_add(s.nodes - s.reported, Ordering::Relaxed);
                    s.reported = s.nodes;
                }
                if s.helper && s.shared.stop.load(Ordering::Relaxed) {
                    // a value nobody reads; nothing is stored from here on
                    return 0;
                }
                let moves = $moves::<G>(me, opp);
                if moves == 0 {
                    if $moves::<G>(opp, me) == 0 {
                        return final_score(me, opp, G::SQUARES);
                    }
                    return -pvs::<G>(s, opp, me, -beta, -alpha);
                }
                let empties = G::SQUARES - (me | opp).count_ones();
                if empties <= SHALLOW {
                    return shallow::<G>(s, me, opp, moves, alpha, beta);
                }
                let (key, sym) = Search::<G>::key(me, opp);
                let mut hint = None;
                let e = s.shared.table.load(key).unwrap_or_default();
                if e.key == key {
                    let (lower, upper) = (e.lower as i32, e.upper as i32);
                    if lower >= beta {
                        return lower;
                    }
                    if upper <= alpha {
                        return upper;
                    }
                    alpha = alpha.max(lower);
                    beta = beta.min(upper);
                    if alpha >= beta {
                        return alpha;
                    }
                    if e.best != 255 {
                        hint = Some(e.best as u32);
                    }
                }
                let (alpha0, beta0) = (alpha, beta);
                // order: the table's move, then fewest replies, corners first
                let mut list: [(i32, u32, u64); 64] = [(0, 0, 0); 64];
                let mut n = 0;
                let corners = CORNERS(G::N);
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros();
                    m &= m - 1;
                    let f = $flips::<G>(me, opp, sq);
                    let (cme, copp) = play(me, opp, sq, f);
                    let mut score = if empties >= PROBE_EMPTIES {
                        // a short search of the child, by mobility and corners
                        let depth = 1 + u32::from(empties >= PROBE_DEEPER) + u32::from(empties >= PROBE_DEEPEST);
                        -probe::<G>(s, cme, copp, depth, -PROBE_INF, PROBE_INF)
                    } else {
                        -16 * $moves::<G>(cme, copp).count_ones() as i32
                    };
                    if corners & (1u64 << sq) != 0 {
                        score += 24;
                    }
                    // next to an empty corner: it gives the corner away
                    let near = Search::<G>::corner_of(sq);
                    if near != u64::MAX && (me | opp) & near == 0 {
                        score -= X_PENALTY;
                    }
                    // parity: the last move of an odd region
                    if empties <= PARITY_EMPTIES && (Search::<G>::quadrant(sq) & !(me | opp)).count_ones() % 2 == 1 {
                        score += PARITY_BONUS;
                    }
                    if hint.is_some_and(|h| sym.map_square::<G>(sq) == h) {
                        score += 10_000;
                    }
                    // enhanced transposition cutoff: a child the table already
                    // bounds low enough refutes the window at once
                    if empties > ETC_EMPTIES {
                        let (ck, _) = Search::<G>::key(cme, copp);
                        if let Some(ce) = s.shared.table.load(ck) {
                            let bound = -(ce.upper as i32);
                            if bound >= beta {
                                return bound;
                            }
                            // children the table already knows as weak for the opponent come first
                            score -= ce.upper as i32;
                        }
                    }
                    list[n] = (score, sq, f);
                    n += 1;
                }
                list[..n].sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
                let mut best = i32::MIN;
                let mut best_sq = 255u8;
                let mut deferred: [(u32, u64); 64] = [(0, 0); 64];
                let mut later = 0;
                for pass in 0..2 {
                    let moves = if pass == 0 { n } else { later };
                    for i in 0..moves {
                        let (sq, f) = if pass == 0 { (list[i].1, list[i].2) } else { deferred[i] };
                        let (cme, copp) = play(me, opp, sq, f);
                        let mark = (empties > DEFER_EMPTIES).then(|| s.shared.busy_slot(Search::<G>::key(cme, copp).0));
                        if pass == 0
                            && i > 0
                            && let Some((slot, h)) = mark
                            && slot.load(Ordering::Relaxed) == h
                        {
                            deferred[later] = (sq, f);
                            later += 1;
                            continue;
                        }
                        if let Some((slot, h)) = mark {
                            slot.store(h, Ordering::Relaxed);
                        }
                        let mut v;
                        if pass == 0 && i == 0 {
                            v = -pvs::<G>(s, cme, copp, -beta, -alpha);
                        } else {
                            v = -pvs::<G>(s, cme, copp, -alpha - 1, -alpha);
                            if v > alpha && v < beta {
                                v = -pvs::<G>(s, cme, copp, -beta, -v);
                            }
                        }
                        if let Some((slot, h)) = mark {
                            let _ = slot.compare_exchange(h, 0, Ordering::Relaxed, Ordering::Relaxed);
                        }
                        if v > best {
                            best = v;
                            best_sq = sq as u8;
                            if v > alpha {
                                alpha = v;
                            }
                        }
                        if alpha >= beta {
                            break;
                        }
                    }
                    if alpha >= beta {
                        break;
                    }
                }
                let (lower, upper) = if best <= alpha0 {
                    (-(G::SQUARES as i32), best)
                } else if best >= beta0 {
                    (best, G::SQUARES as i32)
                } else {
                    (best, best)
                };
                // keep the table's bounds of this position when they are tighter
                let (lower, upper) =
                    if e.key == key { (lower.max(e.lower as i32), upper.min(e.upper as i32)) } else { (lower, upper) };
                let canonical_best = if best_sq == 255 { 255 } else { sym.map_square::<G>(best_sq as u32) as u8 };
                if !(s.helper && s.shared.stop.load(Ordering::Relaxed)) {
                    s.shared
                        .table
                        .store(Entry { key, lower: lower as i8, upper: upper as i8, best: canonical_best }, empties);
                }
                best
            }

            /// A short search for move ordering: the value of (me to move,
            /// opp) `depth` plies ahead by [`eval`], ended games by their
            /// score, within (alpha, beta) (fail-soft).
            $(#[target_feature(enable = $features)])*
            fn probe<G: Keyed>(s: &mut Search<'_, G>, me: u64, opp: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
                let moves = $moves::<G>(me, opp);
                if depth == 0 {
                    return eval::<G>(me, opp, moves, $moves::<G>(opp, me));
                }
                if moves == 0 {
                    if $moves::<G>(opp, me) == 0 {
                        return PROBE_WIN * final_score(me, opp, G::SQUARES);
                    }
                    return -probe::<G>(s, opp, me, depth, -beta, -alpha);
                }
                let mut best = -PROBE_INF;
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros();
                    m &= m - 1;
                    let f = $flips::<G>(me, opp, sq);
                    let (cme, copp) = play(me, opp, sq, f);
                    let v = -probe::<G>(s, cme, copp, depth - 1, -beta, -alpha);
                    if v > best {
                        best = v;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break;
                            }
                        }
                    }
                }
                best
            }

            /// Alpha-beta without table or ordering, for the last empties.
            $(#[target_feature(enable = $features)])*
            fn shallow<G: Keyed>(s: &mut Search<'_, G>, me: u64, opp: u64, moves: u64, mut alpha: i32, beta: i32) -> i32 {
                let mut best = i32::MIN;
                let mut m = moves;
                // the children's empties: one left is counted without a move generator
                let last = G::SQUARES - (me | opp).count_ones() == 2;
                while m != 0 {
                    let sq = m.trailing_zeros();
                    m &= m - 1;
                    let f = $flips::<G>(me, opp, sq);
                    let (cme, copp) = play(me, opp, sq, f);
                    s.nodes += 1;
                    let v = if last {
                        -last_empty::<G>(s, cme, copp)
                    } else {
                        match $moves::<G>(cme, copp) {
                            0 if $moves::<G>(copp, cme) == 0 => -final_score(cme, copp, G::SQUARES),
                            0 => {
                                s.nodes += 1;
                                let back = $moves::<G>(copp, cme);
                                shallow::<G>(s, copp, cme, back, alpha, beta)
                            }
                            replies => -shallow::<G>(s, cme, copp, replies, -beta, -alpha),
                        }
                    };
                    if v > best {
                        best = v;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break;
                            }
                        }
                    }
                }
                best
            }

            /// The value of (me to move, opp) with one empty square: the
            /// mover plays it if that flips anything, else the opponent
            /// does, else the game ends there.
            $(#[target_feature(enable = $features)])*
            fn last_empty<G: Keyed>(s: &mut Search<'_, G>, me: u64, opp: u64) -> i32 {
                let sq = (!(me | opp) & G::FULL).trailing_zeros();
                let (mine, theirs) = (me.count_ones() as i32, opp.count_ones() as i32);
                let f = $flips::<G>(me, opp, sq);
                if f != 0 {
                    s.nodes += 1;
                    let n = f.count_ones() as i32;
                    return mine + n + 1 - (theirs - n);
                }
                let f = $flips::<G>(opp, me, sq);
                if f != 0 {
                    s.nodes += 2;
                    let n = f.count_ones() as i32;
                    return mine - n - (theirs + n + 1);
                }
                final_score(me, opp, G::SQUARES)
            }

            /// The exact value of (me to move, opp), narrowing a null window
            /// around `guess` (MTD(f)).
            $(#[target_feature(enable = $features)])*
            pub(super) fn mtdf<G: Keyed>(s: &mut Search<'_, G>, me: u64, opp: u64, guess: i32) -> i32 {
                let (mut lower, mut upper) = (-(G::SQUARES as i32), G::SQUARES as i32);
                let mut g = guess;
                while lower < upper {
                    let beta = if g == lower { g + 1 } else { g };
                    g = pvs::<G>(s, me, opp, beta - 1, beta);
                    if g < beta {
                        upper = g;
                    } else {
                        lower = g;
                    }
                    if !s.helper {
                        s.shared.progress.lower.store(lower, Ordering::Relaxed);
                        s.shared.progress.upper.store(upper, Ordering::Relaxed);
                    }
                }
                g
            }
        }
    };
}

crate::board::cpu::cpu_copies!(searcher, avx2);

impl<G: Keyed> Search<'_, G> {
    /// [`portable::pvs`], or its fast copy where the CPU has the features.
    fn pvs(&mut self, me: u64, opp: u64, alpha: i32, beta: i32) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = CpuLevel::detect().avx2() {
            // SAFETY: the token proves the CPU has the fast copy's level.
            return unsafe { fast::pvs::<G>(self, me, opp, alpha, beta) };
        }
        portable::pvs::<G>(self, me, opp, alpha, beta)
    }

    /// [`portable::mtdf`], or its fast copy where the CPU has the features.
    fn mtdf(&mut self, me: u64, opp: u64, guess: i32) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = CpuLevel::detect().avx2() {
            // SAFETY: the token proves the CPU has the fast copy's level.
            return unsafe { fast::mtdf::<G>(self, me, opp, guess) };
        }
        portable::mtdf::<G>(self, me, opp, guess)
    }
}

/// Solves `p` exactly, on `threads` threads (split at the root) with
/// `memory` bytes of transposition table, shared.
pub fn solve<G: Keyed>(p: &Position<G>, memory: u64, threads: usize) -> Solution {
    solve_with_progress(p, memory, threads, &SolveProgress::new())
}

/// [`solve`], reporting how far it has gone in `progress`.
pub fn solve_with_progress<G: Keyed>(
    p: &Position<G>,
    memory: u64,
    threads: usize,
    progress: &SolveProgress,
) -> Solution {
    let started = Instant::now();
    let threads = threads.max(1);
    let (me, opp) = (p.mover().0, p.opponent().0);
    progress.lower.store(-(G::SQUARES as i32), Ordering::Relaxed);
    progress.upper.store(G::SQUARES as i32, Ordering::Relaxed);
    // a 4x4 game has about a million positions: a larger table would only
    // be touched here and there, a huge page at a time
    let shared = Shared {
        progress,
        table: Table::new(if G::N <= 4 { memory.min(64 << 20) } else { memory }),
        busy: (0..1 << 16).map(|_| AtomicU64::new(0)).collect(),
        stop: AtomicBool::new(false),
    };
    let nodes = AtomicU64::new(0);
    let mut search =
        Search::<G> { shared: &shared, helper: false, nodes: 0, reported: 0, geometry: std::marker::PhantomData };
    // every thread searches the whole tree through the shared table, the
    // helpers only to fill it; the main thread's value is the answer
    let value_for_mover = std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| {
                let mut helper = Search::<G> {
                    shared: &shared,
                    helper: true,
                    nodes: 0,
                    reported: 0,
                    geometry: std::marker::PhantomData,
                };
                helper.mtdf(me, opp, 0);
                nodes.fetch_add(helper.nodes, Ordering::Relaxed);
            });
        }
        let v = search.mtdf(me, opp, 0);
        shared.stop.store(true, Ordering::Relaxed);
        v
    });
    // the principal variation: at each position, a move whose value
    // proves the position's value (with the warm table)
    let mut pv = Vec::new();
    let (mut a, mut b, mut v) = (me, opp, value_for_mover);
    loop {
        let moves = legal_moves::<G>(a, b);
        if moves == 0 {
            if legal_moves::<G>(b, a) == 0 {
                break;
            }
            pv.push(None);
            (a, b, v) = (b, a, -v);
            continue;
        }
        let mut found = None;
        for sq in crate::board::Bitboard(moves).iter() {
            let f = flips::<G>(a, b, sq);
            let (ca, cb) = play(a, b, sq, f);
            if -search.pvs(ca, cb, -v - 1, -v + 1) == v {
                found = Some((sq, ca, cb));
                break;
            }
        }
        let (sq, ca, cb) = found.expect("a move proves the value");
        pv.push(Some(sq));
        (a, b, v) = (ca, cb, -v);
    }
    // (a, b) is the final position of the variation, `a` to move
    let plies = pv.len();
    let (fa, fb) = (a.count_ones() as i32, b.count_ones() as i32);
    let mover_diff = if plies.is_multiple_of(2) { fa - fb } else { fb - fa };
    let black = p.side_to_move() == Color::Black;
    let sign = if black { 1 } else { -1 };
    Solution {
        value: sign * value_for_mover,
        raw_difference: sign * mover_diff,
        pv,
        nodes: search.nodes + nodes.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        threads,
        table_bytes: shared.table.bytes(),
    }
}

/// A square's name: column letter, row number from the top (`a1` top left).
pub fn square_name(sq: u32, n: u32) -> String {
    format!("{}{}", (b'a' + (sq % n) as u8) as char, sq / n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::B4;

    /// Plain negamax on the engine's board, no table, no ordering.
    fn minimax<G: Keyed>(p: &Position<G>) -> i32 {
        match p.status() {
            crate::board::Status::Terminal => final_score(p.mover().0, p.opponent().0, G::SQUARES),
            crate::board::Status::Pass => -minimax(&p.pass()),
            crate::board::Status::Moves(m) => m.iter().map(|sq| -minimax(&p.play(sq))).max().unwrap(),
        }
    }

    #[test]
    fn four_by_four_start_is_a_white_win() {
        let s = solve(&Position::<B4>::start(), 1 << 20, 1);
        assert_eq!(s.value, minimax(&Position::<B4>::start()));
        assert!(s.value < 0, "White wins 4x4");
        let two = solve(&Position::<B4>::start(), 1 << 20, 2);
        assert_eq!(two.value, s.value);
    }
}
