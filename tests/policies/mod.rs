//! Games played from the start under move policies, for tests that check
//! a stage of `reachable` against positions of real games (reachable by
//! construction): uniform, and biased (most and fewest flips, corners and
//! edges first, fewest replies).
#![allow(dead_code)]

use othello_census::board::{B8, Geometry, Position};
use othello_census::search::reachable::WithStages;

/// A generator for the tests' random choices (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A move policy: the position, its legal moves, a random number for ties.
pub type Policy<'a, G> = &'a dyn Fn(&Position<G>, &[u32], u64) -> u32;

/// Plays `games` games from the start, each move chosen by `policy` (with
/// a generator seeded by `seed` for ties), passing where forced, and hands
/// `visit` every position after a move or a pass; a game stops early when
/// `visit` says false.
pub fn play<G: Geometry>(games: u64, seed: u64, policy: Policy<'_, G>, mut visit: impl FnMut(&Position<G>) -> bool) {
    let mut rng = Rng(seed);
    for _ in 0..games {
        let mut p = Position::<G>::start();
        loop {
            let moves: Vec<u32> = p.legal_moves().iter().collect();
            if moves.is_empty() {
                if !p.opponent_can_move() {
                    break;
                }
                p = p.pass();
            } else {
                p = p.play(policy(&p, &moves, rng.next()));
            }
            if !visit(&p) {
                break;
            }
        }
    }
}

/// [`play`] under every policy: `uniform_games` games with uniform moves
/// seeded by `seed`, then `games` under each biased policy, seeded by
/// `seed + 1` on, all handed to `visit`.
pub fn play_every<G: Geometry>(uniform_games: u64, games: u64, seed: u64, mut visit: impl FnMut(&Position<G>) -> bool) {
    play::<G>(uniform_games, seed, &uniform::<G>, &mut visit);
    for (i, policy) in biased::<G>().into_iter().enumerate() {
        play::<G>(games, seed + 1 + i as u64, policy, &mut visit);
    }
}

pub fn uniform<G: Geometry>(_: &Position<G>, moves: &[u32], r: u64) -> u32 {
    moves[(r % moves.len() as u64) as usize]
}

/// The legal move with the least `key`, ties broken by `r`.
pub fn least_by<K: Ord>(moves: &[u32], r: u64, key: impl Fn(u32) -> K) -> u32 {
    let best = moves.iter().map(|&m| key(m)).min().unwrap();
    let tied: Vec<u32> = moves.iter().copied().filter(|&m| key(m) == best).collect();
    tied[(r % tied.len() as u64) as usize]
}

pub fn most_flips<G: Geometry>(p: &Position<G>, moves: &[u32], r: u64) -> u32 {
    least_by(moves, r, |m| -i64::from(p.flips(m).0.count_ones()))
}

pub fn fewest_flips<G: Geometry>(p: &Position<G>, moves: &[u32], r: u64) -> u32 {
    least_by(moves, r, |m| p.flips(m).0.count_ones())
}

/// Corners first, then edges, then anything.
pub fn corners_and_edges<G: Geometry>(_: &Position<G>, moves: &[u32], r: u64) -> u32 {
    let n = G::N;
    least_by(moves, r, |m| 2 - u32::from(m / n == 0 || m / n == n - 1) - u32::from(m % n == 0 || m % n == n - 1))
}

/// The move that leaves the opponent fewest replies.
pub fn fewest_replies<G: Geometry>(p: &Position<G>, moves: &[u32], r: u64) -> u32 {
    least_by(moves, r, |m| p.play(m).legal_moves().0.count_ones())
}

/// Edge moves whenever one is legal (corners no better than other edge
/// squares), else any: games whose edges fill first, the patterns the edge
/// condition judges.
pub fn edge_moves<G: Geometry>(_: &Position<G>, moves: &[u32], r: u64) -> u32 {
    let n = G::N;
    least_by(moves, r, |m| u32::from(!(m / n == 0 || m / n == n - 1 || m % n == 0 || m % n == n - 1)))
}

/// The biased policies, in the order the tests seed them (seed + 1 on).
pub fn biased<'a, G: Geometry>() -> [Policy<'a, G>; 5] {
    [&most_flips::<G>, &fewest_flips::<G>, &corners_and_edges::<G>, &fewest_replies::<G>, &edge_moves::<G>]
}

/// The ten FFO endgame positions (tests/data/ffo-40-49.obf), from real
/// games, with their lines.
pub fn ffo_positions() -> Vec<(String, Position<B8>)> {
    let data = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ffo-40-49.obf")).unwrap();
    let all: Vec<(String, Position<B8>)> = data
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let text = line.split(';').next().unwrap().trim().to_string();
            let p = Position::<B8>::parse(&text).unwrap();
            (text, p)
        })
        .collect();
    assert_eq!(all.len(), 10);
    all
}

/// The beam alone: a depth-first search of one position (it runs out at
/// once, or decides a position without predecessors), then the beam (no
/// relaxation, no balance).
pub fn beam_alone<G: othello_census::key::Keyed>(
    frontier: &othello_census::search::reachable::Frontier<G>,
    width: usize,
) -> othello_census::search::reachable::Search<'_, G> {
    othello_census::search::reachable::Search::new(frontier, 1).with_relaxation(0).with_balance(false).with_beam(width)
}

/// The sweep alone: no beam, a sweep of `width` positions a step.
pub fn sweep_alone<G: othello_census::key::Keyed>(
    frontier: &othello_census::search::reachable::Frontier<G>,
    width: usize,
) -> othello_census::search::reachable::Search<'_, G> {
    othello_census::search::reachable::Search::new(frontier, 1)
        .with_relaxation(0)
        .with_balance(false)
        .with_beam(0)
        .with_sweep(width)
}

/// Census members and likely non-members: the positions of `games`
/// uniformly random games with a disc count in `discs`, each followed by
/// its variants, one disc's colour changed and one disc moved to an empty
/// neighbour (when one of its four neighbours is empty).
pub fn census_variants<G: Geometry>(
    discs: &std::ops::RangeInclusive<u32>,
    games: usize,
    seed: u64,
) -> Vec<Position<G>> {
    use othello_census::board::{Bitboard, Color};
    let position = |b: u64, w: u64, black: bool| {
        let side = if black { Color::Black } else { Color::White };
        Position::<G>::from_colors(Bitboard(b), Bitboard(w), side).unwrap()
    };
    let mut rng = Rng(seed);
    let n = G::N;
    let mut out = Vec::new();
    for _ in 0..games {
        let mut p = Position::<G>::start();
        while p.discs() < *discs.end() {
            let moves: Vec<u32> = p.legal_moves().iter().collect();
            if moves.is_empty() {
                break;
            }
            p = p.play(moves[(rng.next() % moves.len() as u64) as usize]);
            if !discs.contains(&p.discs()) {
                continue;
            }
            let (b, w) = (p.black().0, p.white().0);
            let occ: Vec<u32> = (0..n * n).filter(|&s| (b | w) >> s & 1 == 1).collect();
            let s = occ[(rng.next() % occ.len() as u64) as usize];
            let black = p.side_to_move() == Color::Black;
            out.push(p);
            out.push(position(b ^ 1 << s, w ^ 1 << s, black));
            let (r, c) = ((s / n) as i32, (s % n) as i32);
            for (dr, dc) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                let (r2, c2) = (r + dr, c + dc);
                if (0..n as i32).contains(&r2) && (0..n as i32).contains(&c2) {
                    let t = (r2 * n as i32 + c2) as u32;
                    if (b | w) >> t & 1 == 0 {
                        let mv = |x: u64| if x >> s & 1 == 1 { x & !(1 << s) | 1 << t } else { x };
                        out.push(position(mv(b), mv(w), black));
                        break;
                    }
                }
            }
        }
    }
    out
}
