//! Census engines. Both produce a [`crate::census::Census`].

pub mod dfs;
pub mod hash;
pub mod layers;
pub mod memory;
pub mod reach;
pub mod resources;
