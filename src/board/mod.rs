//! The board: geometry of an N x N board, the `Bitboard` newtype, move
//! generation by shift-and-mask flood, and positions with the rules of
//! Othello (moves, flips, passes, game end).

pub mod bitboard;
pub mod cpu;
pub mod geometry;
pub mod movegen;
pub mod position;

pub use bitboard::Bitboard;
pub use geometry::{B4, B6, B8, BoardSize, Geometry, GeometryError, square_name};
pub use position::{Color, Position, PositionError, Status, random_games};
