//! Searches over the game tree from one position: perft (the games of `n`
//! plies, brute and hashed), the exact solver, the reachability test
//! (backwards to the start), and the subtree classes of positions (up to the
//! eight symmetries) that perft's and the solver's tables key on.

pub mod class_set;
pub mod flip_history;
pub mod game;
pub mod game_encoding;
pub mod perft;
pub mod reachable;
pub mod sat_budget;
pub mod solve;
pub mod sorted_keys;
pub mod subtree;
