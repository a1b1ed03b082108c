//! Predecessors of a position: the un-moves (a disc removed, the discs it
//! flipped given back) and the un-pass, pruned by the cheap conditions.

use crate::board::{Color, Geometry, Position};

use super::*;

/// Every predecessor of `p` (see the module documentation), appended to
/// `out`: the pass first, then the moves by square and flip choices.
pub fn predecessors<G: Geometry>(p: &Position<G>, out: &mut Vec<Position<G>>) {
    predecessors_with::<G, false>(p, out);
}

/// The squares on an edge of the board.
pub(super) const fn edge_squares<G: Geometry>() -> u64 {
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
pub(super) fn predecessors_with<G: Geometry, const PRUNE: bool>(p: &Position<G>, out: &mut Vec<Position<G>>) {
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
pub(super) fn flip_choices<G: Geometry>(
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
