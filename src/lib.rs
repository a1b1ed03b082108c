#![deny(clippy::undocumented_unsafe_blocks)]
//! othello-census: exact counts of the reachable positions, terminal
//! positions and games of Othello on 4x4, 6x6 and 8x8 boards.
//!
//! The modules, in the order they depend on one another
//! (`docs/architecture.md`):
//!
//! - rules: [`board`] (bitboards, move generation per CPU level,
//!   positions), [`symmetry`] (the eight symmetries of the square);
//! - keys: [`key`] (the spiral and dense keys, occupancies);
//! - the census model, [`census`], and its engines, [`engine`] (the DFS
//!   census and the layered census, alone or over MPI ranks);
//! - searches from one position, [`search`] (perft, the solver, the
//!   reachability test), and the sampling [`estimate`] built on the last;
//! - [`formats`]: atomic writes, locks, the framed container and the
//!   checkpoint;
//! - [`report`]: result documents, tables, the catalogue and its plot;
//!   [`published`]: the values from OEIS and others that results are held
//!   to.
//!
//! [`stats`]: the replication check of estimates pooled over seeds.
//!
//! [`legacy`] reproduces the published 4x4 totals of older rules; [`slots`]
//! and [`text`] are small helpers.

pub mod board;
pub mod census;
pub mod engine;
pub mod estimate;
pub mod formats;
pub mod key;
pub mod legacy;
pub mod published;
pub mod report;
pub mod search;
pub mod slots;
pub mod stats;
pub mod symmetry;
pub mod text;

/// `othello-census <version>`: the writer named in every file and result.
pub fn software() -> String {
    format!("othello-census {}", env!("CARGO_PKG_VERSION"))
}

/// The git commit this binary was built from (`unknown` outside a
/// checkout; `-dirty` when tracked files differed from it).
pub const COMMIT: &str = env!("OTHELLO_CENSUS_COMMIT");
