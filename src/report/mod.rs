//! Output: human tables, JSON documents and result files.

pub mod catalog;
pub mod census;
pub mod estimate;
pub mod files;
pub mod plot;
pub mod seal;
pub mod table;

pub use table::{Table, group_digits};
