#![deny(clippy::undocumented_unsafe_blocks)]
//! othello-census: exact counts of the reachable positions, terminal
//! positions and games of Othello on 4x4, 6x6 and 8x8 boards.

pub mod atomic;
pub mod board;
pub mod census;
pub mod checkpoint;
pub mod engine;
pub mod estimate;
pub mod framed;
pub mod key;
pub mod legacy;
pub mod perft;
pub mod published;
pub mod reachable;
pub mod report;
pub mod shape;
pub mod slots;
pub mod solve;
pub mod symmetry;
pub mod text;

/// `othello-census <version>`: the writer named in every file and result.
pub fn software() -> String {
    format!("othello-census {}", env!("CARGO_PKG_VERSION"))
}

/// The git commit this binary was built from (`unknown` outside a
/// checkout; `-dirty` when tracked files differed from it).
pub const COMMIT: &str = env!("OTHELLO_CENSUS_COMMIT");
