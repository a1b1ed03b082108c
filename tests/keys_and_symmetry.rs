//! Keys and symmetries: pack/unpack are exact inverses, the dense key orders
//! like the spiral key, canonical keys are constant on classes, and the
//! reachable 4x4 set is closed under the four symmetries.

mod oracle;

use std::collections::HashSet;

use oracle::{BLACK, Naive};
use othello_census::board::{B4, B6, B8, Bitboard, Color, Position};
use othello_census::key::Keyed;
use othello_census::key::{SpiralKey, dense};
use othello_census::key::{canonical_and_orbit, canonical_key};
use othello_census::symmetry::Symmetry;
use proptest::prelude::*;

fn to_engine<G: Keyed>(p: &Naive) -> Position<G> {
    let body: String = p.diagram().lines().take(p.n).collect::<Vec<_>>().join("\n");
    let side = if p.to_move == BLACK { Color::Black } else { Color::White };
    Position::<G>::from_diagram(&body, side).unwrap()
}

/// Any board whose four centre squares are filled (reachable or not).
fn arbitrary<G: Keyed>(cells: &[u8], white_to_move: bool) -> Position<G> {
    let n = G::N;
    let h = n / 2;
    let centre = [(h - 1) * n + h - 1, (h - 1) * n + h, h * n + h - 1, h * n + h];
    let (mut b, mut w) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for sq in 0..G::SQUARES {
        let v = cells[sq as usize % cells.len()] % 3;
        let v = if centre.contains(&sq) && v == 0 { 1 } else { v };
        match v {
            1 => b = b.with(sq),
            2 => w = w.with(sq),
            _ => {}
        }
    }
    Position::from_colors(b, w, if white_to_move { Color::White } else { Color::Black }).unwrap()
}

fn check_keys<G: Keyed>(a: &Position<G>, b: &Position<G>) {
    let (sa, sb) = (SpiralKey::pack(a), SpiralKey::pack(b));
    assert_eq!(sa.unpack::<G>().unwrap(), *a);
    assert!(sa.0 < 1u128 << SpiralKey::bits(G::N));
    let (da, db) = (dense::pack(a), dense::pack(b));
    assert_eq!(dense::unpack::<G>(da).unwrap(), *a);
    assert_eq!(da.cmp(&db), sa.cmp(&sb), "dense and spiral orders differ");
    assert_eq!(da == db, a == b);
    // canonical key: least over the images, the same for every image
    let images: Vec<Position<G>> = Symmetry::START.iter().map(|s| s.position(a)).collect();
    let least = images.iter().map(dense::pack).min().unwrap();
    let (canon, orbit) = canonical_and_orbit(a);
    assert_eq!(canon, least);
    for im in &images {
        assert_eq!(canonical_key(im), canon);
    }
    let distinct: HashSet<_> = images.iter().map(|p| p.to_string()).collect();
    assert_eq!(orbit as usize, distinct.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn keys_4x4(c1 in prop::collection::vec(any::<u8>(), 16), c2 in prop::collection::vec(any::<u8>(), 16), s1: bool, s2: bool) {
        check_keys(&arbitrary::<B4>(&c1, s1), &arbitrary::<B4>(&c2, s2));
    }

    #[test]
    fn keys_6x6(c1 in prop::collection::vec(any::<u8>(), 36), c2 in prop::collection::vec(any::<u8>(), 36), s1: bool, s2: bool) {
        check_keys(&arbitrary::<B6>(&c1, s1), &arbitrary::<B6>(&c2, s2));
    }

    #[test]
    fn keys_8x8(c1 in prop::collection::vec(any::<u8>(), 64), c2 in prop::collection::vec(any::<u8>(), 64), s1: bool, s2: bool) {
        check_keys(&arbitrary::<B8>(&c1, s1), &arbitrary::<B8>(&c2, s2));
    }

    #[test]
    fn keys_of_near_twins_8x8(c in prop::collection::vec(any::<u8>(), 64), sq in 0u32..64) {
        // two boards differing in one square order the same in both keys
        if [27, 28, 35, 36].contains(&sq) {
            return Ok(()); // a centre square is never empty
        }
        let a = arbitrary::<B8>(&c, false);
        let b = if a.black().contains(sq) || a.white().contains(sq) {
            Position::<B8>::from_colors(a.black().without(sq), a.white().without(sq), Color::Black).unwrap()
        } else {
            Position::<B8>::from_colors(a.black().with(sq), a.white(), Color::Black).unwrap()
        };
        check_keys(&a, &b);
    }
}

#[test]
fn reachable_4x4_is_closed_and_has_15856_classes() {
    let set = oracle::reachable(4, 16);
    assert_eq!(set.len(), 62_789);
    let engine: HashSet<Position<B4>> = set.iter().map(to_engine::<B4>).collect();
    let mut classes = HashSet::new();
    for p in &engine {
        for s in Symmetry::START {
            assert!(engine.contains(&s.position(p)), "image not reachable:\n{p}");
        }
        classes.insert(canonical_key(p));
    }
    assert_eq!(classes.len(), 15_856);
    // the oracle's own class count agrees
    let oracle_classes: HashSet<Naive> = set.iter().map(Naive::class).collect();
    assert_eq!(oracle_classes.len(), classes.len());
    // the sum of orbit sizes over classes gives back every position
    let mut seen = HashSet::new();
    let total: u64 = engine
        .iter()
        .filter_map(|p| {
            let (k, o) = canonical_and_orbit(p);
            seen.insert(k).then_some(o as u64)
        })
        .sum();
    assert_eq!(total, 62_789);
}
