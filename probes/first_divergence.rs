//! Prints the first position where the legacy-flip defect changes a move:
//! `cargo run --release --example first_divergence`.

use othello_census::board::B4;
use othello_census::legacy::first_divergence;

fn main() {
    match first_divergence::<B4>() {
        Some(d) => println!(
            "ply {}: square {} (row {}, column {})\nbefore:\n{}\nstandard:\n{}\nlegacy:\n{}",
            d.ply,
            d.square,
            d.square / 4,
            d.square % 4,
            d.before,
            d.standard,
            d.legacy
        ),
        None => println!("no divergence"),
    }
}
