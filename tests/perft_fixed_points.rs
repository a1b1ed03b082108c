//! perft against the oracle and against the published sequences of
//! known-values.md.

mod oracle;

use othello_census::board::{B4, B6, B8, Geometry};
use othello_census::perft::perft;

fn games<G: Geometry>(depth: u32) -> Vec<u64> {
    perft::<G>(depth).iter().map(|r| u64::try_from(r.games).expect("fits")).collect()
}

#[test]
fn matches_oracle() {
    assert_eq!(games::<B4>(16), oracle::perft(4, 16));
    assert_eq!(games::<B6>(7), oracle::perft(6, 7));
    assert_eq!(games::<B8>(6), oracle::perft(8, 6));
}

#[test]
fn a124004_8x8_plies_1_to_9() {
    let rows = perft::<B8>(9);
    let a: Vec<u128> = rows.iter().map(|r| r.games_a124004).collect();
    assert_eq!(a, [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]);
    // at ply 9 the two conventions still agree
    assert_eq!(rows[8].games, rows[8].games_a124004);
}

#[test]
fn four_by_four_by_ply() {
    let rows = perft::<B4>(16);
    let a: Vec<u128> = rows.iter().map(|r| r.games_a124004).collect();
    assert_eq!(a, [4, 12, 44, 128, 424, 1256, 3624, 9116, 20044, 36540, 50704, 57436, 59564, 59980, 60060, 60060]);
    let dropped: Vec<u128> = rows.iter().map(|r| r.games).collect();
    assert_eq!(dropped, [4, 12, 44, 128, 424, 1256, 3624, 9112, 20032, 36412, 50268, 55112, 31396, 12920, 3416, 612]);
}

#[test]
fn four_by_four_longest_games() {
    // known-values.md says the longest 4x4 game lasts 15 plies, but its own
    // "finished games dropped" row has 612 games alive at ply 16. The
    // oracle settles it: 48 games last 17 plies (passes included);
    // A124004 is flat from ply 15 because every game alive after ply 15
    // has a single continuation.
    let rows = perft::<B4>(18);
    assert_eq!(games::<B4>(18), oracle::perft(4, 18));
    assert_eq!(rows[16].games, 48);
    assert_eq!(rows[17].games, 0);
    let ended: u128 = rows[..17].iter().map(|r| r.ended.unwrap()).sum();
    assert_eq!(ended, 60_060);
}

#[test]
fn depth_does_not_change_shallow_plies() {
    let deep = perft::<B6>(8);
    let shallow = perft::<B6>(5);
    for (a, b) in deep.iter().zip(&shallow) {
        assert_eq!((a.games, a.games_a124004, a.passes), (b.games, b.games_a124004, b.passes));
    }
}

/// The hashed method equals the brute walk, both conventions, every column.
#[test]
fn hashed_equals_brute() {
    use othello_census::perft::hashed::perft_hashed;
    for d in 1..=20 {
        assert_eq!(perft_hashed::<B4>(d, 1 << 28).0, perft::<B4>(d), "4x4 depth {d}");
    }
    assert_eq!(perft_hashed::<B6>(12, 1 << 30).0, perft::<B6>(12), "6x6 depth 12");
    assert_eq!(perft_hashed::<B8>(11, 1 << 30).0, perft::<B8>(11), "8x8 depth 11");
    // a tiny table stores little and changes nothing
    assert_eq!(perft_hashed::<B8>(10, 1 << 16).0, perft::<B8>(10));
}
