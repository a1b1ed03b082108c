//! Counting a board through the library: the whole 4x4 census, layer by
//! layer, as `othello-census count --size 4` prints it, and the games per
//! ply by perft.
//!
//! `cargo run --release --example count_4x4`
//!
//! The 4x4 board has 62,789 reachable positions, 6,168 of them terminal.

use othello_census::board::B4;
use othello_census::engine::dfs::{DfsConfig, Live, census};
use othello_census::search::perft::perft;

fn main() {
    // The DFS engine: every layer up to 16 discs (the full 4x4 board), on
    // one thread, its cache allowed 64 MiB (it needs about 1 MiB here).
    let config = DfsConfig { threads: 1, max_discs: 16, memory_limit: 64 << 20 };
    let outcome = census::<B4>(&config, &Live::default()).expect("the 4x4 census fits in 64 MiB");

    println!("discs  positions  classes  boards  terminal  pass  black wins  draws  white wins");
    for layer in &outcome.census.layers {
        let c = &layer.counts;
        println!(
            "{:>5}  {:>9}  {:>7}  {:>6}  {:>8}  {:>4}  {:>10}  {:>5}  {:>10}",
            layer.layer,
            c.positions,
            c.classes,
            c.boards,
            c.terminal_positions,
            c.pass_positions,
            c.outcomes.black_wins(),
            c.outcomes.draws(),
            c.outcomes.white_wins(),
        );
    }
    let total = outcome.census.totals();
    println!(
        "total  {:>9}  {:>7}  {:>6}  {:>8}",
        total.positions, total.classes, total.boards, total.terminal_positions
    );
    assert_eq!((total.positions, total.terminal_positions), (62_789, 6_168));

    // Games by ply (a pass is a ply): the games of exactly n plies
    // (finished games dropped), and the same plus the games that ended
    // before ply n (Bik's perft convention).
    println!("\nply  games  games_including_ended");
    for row in perft::<B4>(20) {
        println!("{:>3}  {:>5}  {:>21}", row.ply, row.games, row.games_including_ended);
    }
}
