//! Brute and hashed perft side by side: `cargo run --release --example
//! perft_compare -- 8 11 [memory MiB] [hashed-only]` prints both times and whether every
//! row agrees.

use std::time::Instant;

use othello_census::board::BoardSize;
use othello_census::search::perft::hashed::perft_hashed;
use othello_census::search::perft::perft;
use othello_census::with_geometry;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: BoardSize = args.get(1).map_or("8", String::as_str).parse().expect("size 4, 6 or 8");
    let depth: u32 = args.get(2).map_or(11, |d| d.parse().expect("a depth"));
    let mib: u64 = args.get(3).map_or(4096, |m| m.parse().expect("MiB"));
    with_geometry!(size, G => {
        let t = Instant::now();
        let (hashed, stats) = perft_hashed::<G>(depth, mib << 20);
        let th = t.elapsed().as_secs_f64();
        println!("hashed depth {depth}: {th:.2} s, {} games at the last ply, {stats:?}", hashed.last().unwrap().games);
        if args.get(4).is_some_and(|a| a == "hashed-only") {
            return;
        }
        let t = Instant::now();
        let brute = perft::<G>(depth);
        let tb = t.elapsed().as_secs_f64();
        println!("brute  depth {depth}: {tb:.2} s; rows equal: {}", brute == hashed);
    });
}
