//! Whether a position (board and side to move) can be reached from the
//! start by a legal game, decided exactly by searching backwards.
//!
//! The census definition of a reachable position: the start, and every
//! child of a reachable position that is not terminal (a move, or the same
//! board with the other side to move when the side to move must pass). So
//! `(B, s)` — board `B`, side `s` to move, `m` the other side — has two
//! kinds of predecessor:
//!
//! - **a move of `m`**: a disc `q` of `m` (never a centre square, which
//!   the start occupies) was placed last and flipped, along each of the
//!   eight rays from `q`, either nothing or the first `L` discs of the run
//!   of `m` discs that starts next to `q`, where `1 <= L < run` (the disc
//!   after the flipped ones is the anchor, `m`'s before the move). A ray
//!   not flipped must not have been flippable: if it starts with a run of
//!   `s` discs closed by an `m` disc, `q` cannot have been the last move.
//!   The predecessor is `B` without `q`, the flipped discs given back to
//!   `s`, with `m` to move; at least one ray is flipped.
//! - **a pass of `m`**: `(B, m)` when `m` has no move on `B` and `s` has.
//!
//! [`Search`] walks predecessors depth first, down to a [`Frontier`]: every
//! reachable position of up to `k` discs, enumerated forwards from the
//! start, so the backward search stops `k` discs above the start with an
//! exact answer. Positions proven unreachable are remembered (by class: a
//! symmetry of the start maps reachable positions to reachable ones). A
//! position whose squares cannot have been filled in any order by moves
//! that flip (each needs two occupied squares in line next to it, see
//! [`placeable`]), one with an edge that moves along that edge cannot
//! colour so ([`edges_possible`]), or one with a disc that was never
//! flipped and whose placing cannot have flipped anything that it shows
//! ([`unflipped_consistent`]), is unreachable at once: the search tests
//! these [`cheap_conditions`] on the position asked about, then generates
//! only the predecessors that pass them (the occupancy once per removed
//! square, the edges only where the removed or un-flipped discs lie on
//! one), so a position that fails them costs no visit. A search that
//! visits more positions than its budget allows gives up:
//! [`Verdict::Undecided`], never a guess.
//!
//! Its rooms: [`conditions`] the cheap conditions, [`unmoves`] the
//! predecessors, [`frontier`] where searches stop, [`search`] the search,
//! [`beam`] the walks tried where it runs out (the beam, which keeps the
//! most compact positions of each step and finds games, and the sweep,
//! which keeps every position of each step and proves positions
//! unreachable), [`stages`] which of the stages after the cheap
//! conditions a search tries and their limits, [`class`] the class a
//! position is remembered by.

pub use crate::search::game::{Game, ReplayError};

mod beam;
mod class;
mod conditions;
pub mod flip_balance;
mod frontier;
mod search;
mod stages;
mod unmoves;

pub use beam::{BEAM_WIDTH, SWEEP_HELD, SWEEP_WIDTH};
pub use conditions::*;
pub use frontier::*;
pub use search::*;
pub use stages::*;
pub use unmoves::*;
