//! The cheap conditions a reachable position meets, each a proof of
//! unreachability when it fails: discs joined to the centre, squares
//! fillable in some order, edges that moves along them can colour, discs
//! never flipped consistent with their placing.

use crate::board::{Geometry, Position};

/// The four centre squares of an `n x n` board (occupied from the start).
pub const fn centre(n: u32) -> u64 {
    let h = n / 2;
    (1u64 << ((h - 1) * n + h - 1)) | (1u64 << ((h - 1) * n + h)) | (1u64 << (h * n + h - 1)) | (1u64 << (h * n + h))
}

/// The squares next to any square of `b` (the eight directions), `b`
/// itself included.
#[inline]
pub(super) fn with_neighbours<G: Geometry>(b: u64) -> u64 {
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
    occ & c == c && fillable::<G>(occ) == occ
}

/// The squares of `occ` that can be filled one by one from the centre
/// (occupied) by moves that each flip ([`placeable`]'s rule), filling
/// greedily: every square that can be added, whatever else comes later.
/// Those outside it can be filled only after some square of `occ` that is
/// not in it; so `fillable(occ - {s})` holds every square that can have
/// been on the board when `s` was played.
pub fn fillable<G: Geometry>(occ: u64) -> u64 {
    let c = centre(G::N);
    if occ & c != c {
        return 0;
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
            return filled;
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
/// discs or more above the layer answered from; 4 (2026-11-27, the
/// second session): and the beam where the depth-first search runs out
/// (`beam_width` in the documents, [`super::BEAM_WIDTH`] by default); 5
/// (2026-11-27, the third session): and the sweep where the beam gives up
/// (`sweep_width`, [`super::SWEEP_WIDTH`] by default); 6 (2026-11-28):
/// and the flip-count balance ([`crate::search::reachable::flip_balance`]) where the
/// depth-first search runs out, before the beam; 7 (2026-11-28): the
/// balance with a row for each two moves that would each use the other's
/// square; 8 (2026-11-28, third session): the exact game encoding
/// states that a move flips a neighbour of its square
/// ([`crate::search::game_encoding`]); 9 (2026-12-05): the exact
/// encoding states what a flip implies of the flipped disc and of the
/// next square of its run; 10 (2026-12-05, fifteenth session): the exact
/// encoding builds each move's runs for its mover only and states the
/// pass rule one way (a third fewer clauses, the same formula's models).
/// Up to 7 a
/// newer generation decides every sample an older one decides at the same
/// budget (its stages are added after the older ones'), so `estimate
/// --resolve` takes documents of older generations. 8 changes only the
/// exact stage (`--exact-conflicts` above 0), whose solver may, at a
/// conflict limit, leave a sample undecided that 7 decided (it decided far
/// more than 7 where measured; no catalogued document had used the exact
/// stage); 9 and 10 likewise (9's proofs took 0.43x the conflicts where
/// measured; 10's conflicts run faster). Raise it when a condition is
/// added or changed.
pub const SEARCH_GENERATION: u32 = 10;

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
pub(super) fn placing_flipped(step: impl Fn(u64) -> u64, occ: u64, own: u64, other: u64, never: u64) -> u64 {
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
pub(super) fn line_states(n: u32) -> Vec<bool> {
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
pub(super) fn reachable_lines<G: Geometry>() -> &'static [bool] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{B4, B6, Color};
    use crate::search::reachable::*;

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
}
