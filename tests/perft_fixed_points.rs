//! perft against the oracle and against the published sequences of
//! known-values.md.

mod oracle;

use othello_census::board::{B4, B6, B8, Geometry};
use othello_census::published::{A124004, BIK_PERFT, GAMES_4X4, GAMES_INCLUDING_ENDED_4X4};
use othello_census::search::perft::hashed::perft_hashed;
use othello_census::search::perft::{PerftRow, perft};

fn games<G: Geometry>(depth: u32) -> Vec<u64> {
    perft::<G>(depth).iter().map(|r| u64::try_from(r.games).expect("fits")).collect()
}

#[test]
fn matches_oracle() {
    assert_eq!(games::<B4>(16), oracle::perft(4, 16));
    assert_eq!(games::<B6>(7), oracle::perft(6, 7));
    assert_eq!(games::<B8>(6), oracle::perft(8, 6));
}

/// OEIS A124004 is `games` (finished games dropped), and the column that
/// keeps counting ended games is Bik's perft; they part at ply 10. Hashed
/// perft to 15 (a few minutes, about 5 GiB): A124004 a(1..15) and Bik's
/// values at 10, 14 and 15. Swapping the two columns fails here.
#[test]
fn a124004_and_bik_8x8_to_ply_15() {
    let rows = perft_hashed::<B8>(15, 8 << 30).0;
    check_8x8(&rows);
    assert_eq!(rows.len(), 15);
}

/// A124004 a(16) and the brute walk to 12 (minutes to hours: run with
/// `cargo test --release --test perft_fixed_points -- --ignored`).
#[test]
#[ignore]
fn a124004_8x8_ply_16() {
    let rows = perft_hashed::<B8>(16, 16 << 30).0;
    check_8x8(&rows);
    assert_eq!(rows.len(), 16);
}

fn check_8x8(rows: &[PerftRow]) {
    for r in rows {
        assert_eq!(r.games, A124004[r.ply as usize], "A124004 a({})", r.ply);
        if let Some((_, bik)) = BIK_PERFT.iter().find(|(p, _)| *p == r.ply) {
            assert_eq!(r.games_including_ended, *bik, "Bik's perft at ply {}", r.ply);
        }
    }
    // the conventions agree to ply 9 and part from 10
    assert_eq!(rows[8].games, rows[8].games_including_ended);
    assert!(rows[9].games < rows[9].games_including_ended);
}

#[test]
fn a124004_8x8_brute_to_ply_9() {
    let rows = perft::<B8>(9);
    let a: Vec<u128> = rows.iter().map(|r| r.games).collect();
    assert_eq!(a, A124004[1..=9]);
}

#[test]
fn four_by_four_by_ply() {
    let rows = perft::<B4>(16);
    let kept: Vec<u128> = rows.iter().map(|r| r.games_including_ended).collect();
    assert_eq!(kept, GAMES_INCLUDING_ENDED_4X4[1..]);
    let dropped: Vec<u128> = rows.iter().map(|r| r.games).collect();
    assert_eq!(dropped, GAMES_4X4[1..]);
}

#[test]
fn four_by_four_longest_games() {
    // known-values.md says the longest 4x4 game lasts 15 plies, but its own
    // "finished games dropped" row has 612 games alive at ply 16. The
    // oracle settles it: 48 games last 17 plies (passes included);
    // the count that keeps ended games is flat from ply 15 because every
    // game alive after ply 15 has a single continuation.
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
        assert_eq!((a.games, a.games_including_ended, a.passes), (b.games, b.games_including_ended, b.passes));
    }
}

/// The hashed method equals the brute walk, both conventions, every column.
#[test]
fn hashed_equals_brute() {
    for d in 1..=20 {
        assert_eq!(perft_hashed::<B4>(d, 1 << 28).0, perft::<B4>(d), "4x4 depth {d}");
    }
    assert_eq!(perft_hashed::<B6>(12, 1 << 30).0, perft::<B6>(12), "6x6 depth 12");
    assert_eq!(perft_hashed::<B8>(11, 1 << 30).0, perft::<B8>(11), "8x8 depth 11");
    // a tiny table stores little and changes nothing
    assert_eq!(perft_hashed::<B8>(10, 1 << 16).0, perft::<B8>(10));
}
