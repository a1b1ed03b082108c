//! The solver's search, compiled once per CPU level: principal-variation
//! alpha-beta through the shared table, the ordering probe, a plain search
//! of the last empties and MTD(f) windows; and the dispatch to the copy
//! this CPU runs.

use std::sync::atomic::Ordering;

use super::order::{
    CORNERS, PARITY_BONUS, PARITY_EMPTIES, PROBE_DEEPER, PROBE_DEEPEST, PROBE_EMPTIES, PROBE_INF, PROBE_WIN, X_PENALTY,
    eval,
};
use super::table::Entry;
use super::{DEFER_EMPTIES, ETC_EMPTIES, PROGRESS_STEP, SHALLOW, Search};
use crate::board::cpu::CpuLevel;
use crate::board::movegen::{final_score, flips, legal_moves, play};
use crate::key::Keyed;
use crate::search::subtree::subtree_key_and_symmetry;
use crate::symmetry::Symmetry;

impl<G: Keyed> Search<'_, G> {
    /// The table key of (me to move, opp): its shape (the eight
    /// symmetries of the square fold transpositions) + 1, so that 0 marks
    /// an empty slot; and the symmetry that maps it onto the shape's image.
    #[inline]
    fn key(me: u64, opp: u64) -> (u128, Symmetry) {
        let (k, sym) = subtree_key_and_symmetry::<G>(me, opp);
        (k + 1, sym)
    }
}

/// Takes child value `v` into a fail-soft search's best value and alpha;
/// whether it cuts off (alpha has reached `beta`).
#[inline(always)]
fn raise(best: &mut i32, alpha: &mut i32, v: i32, beta: i32) -> bool {
    if v > *best {
        *best = v;
        if v > *alpha {
            *alpha = v;
            return *alpha >= beta;
        }
    }
    false
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
                let mut list: [(i32, u32, u64); 64] = [(0, 0, 0); 64];
                let n = match order::<G>(s, me, opp, moves, sym, hint, beta, &mut list) {
                    Ok(n) => n,
                    Err(cutoff) => return cutoff,
                };
                let (best, best_sq) = search_moves::<G>(s, me, opp, &list[..n], alpha, beta);
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

            /// The moves of (me to move, opp) (`moves`, not empty), scored
            /// and sorted into `list` as (score, square, flips), best first:
            /// the table's move (`hint`, in the frame of `sym`), then by a
            /// short search or fewest replies, corners, X-squares and
            /// parity. `Err(value)` when a child the table already bounds
            /// refutes the window (enhanced transposition cutoff).
            #[allow(clippy::too_many_arguments)] // (the state of one node of the search, passed in registers)
            $(#[target_feature(enable = $features)])*
            #[inline]
            fn order<G: Keyed>(
                s: &mut Search<'_, G>,
                me: u64,
                opp: u64,
                moves: u64,
                sym: Symmetry,
                hint: Option<u32>,
                beta: i32,
                list: &mut [(i32, u32, u64); 64],
            ) -> Result<usize, i32> {
                let empties = G::SQUARES - (me | opp).count_ones();
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
                                return Err(bound);
                            }
                            // children the table already knows as weak for the opponent come first
                            score -= ce.upper as i32;
                        }
                    }
                    list[n] = (score, sq, f);
                    n += 1;
                }
                list[..n].sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
                Ok(n)
            }

            /// Searches the ordered moves of (me to move, opp) in the window
            /// (alpha, beta), the first with the full window and the others
            /// with a null window first; a child another thread is searching
            /// (see [`DEFER_EMPTIES`]) is put off to a second pass. The best
            /// value and its square (255: none).
            $(#[target_feature(enable = $features)])*
            #[inline]
            fn search_moves<G: Keyed>(
                s: &mut Search<'_, G>,
                me: u64,
                opp: u64,
                list: &[(i32, u32, u64)],
                mut alpha: i32,
                beta: i32,
            ) -> (i32, u8) {
                let empties = G::SQUARES - (me | opp).count_ones();
                let mut best = i32::MIN;
                let mut best_sq = 255u8;
                let mut deferred: [(u32, u64); 64] = [(0, 0); 64];
                let mut later = 0;
                for pass in 0..2 {
                    let moves = if pass == 0 { list.len() } else { later };
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
                            return (best, best_sq);
                        }
                    }
                }
                (best, best_sq)
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
                    if raise(&mut best, &mut alpha, v, beta) {
                        break;
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
                    if raise(&mut best, &mut alpha, v, beta) {
                        break;
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
    pub(super) fn pvs(&mut self, me: u64, opp: u64, alpha: i32, beta: i32) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = CpuLevel::detect().avx2() {
            // SAFETY: the token proves the CPU has the fast copy's level.
            return unsafe { fast::pvs::<G>(self, me, opp, alpha, beta) };
        }
        portable::pvs::<G>(self, me, opp, alpha, beta)
    }

    /// [`portable::mtdf`], or its fast copy where the CPU has the features.
    pub(super) fn mtdf(&mut self, me: u64, opp: u64, guess: i32) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if let Some(_avx2) = CpuLevel::detect().avx2() {
            // SAFETY: the token proves the CPU has the fast copy's level.
            return unsafe { fast::mtdf::<G>(self, me, opp, guess) };
        }
        portable::mtdf::<G>(self, me, opp, guess)
    }
}
