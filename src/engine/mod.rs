//! Census engines. Both produce a [`crate::census::Census`].

pub mod dfs;
pub mod feasibility;
pub mod hash;
pub mod layers;
pub mod memory;
pub mod resources;
