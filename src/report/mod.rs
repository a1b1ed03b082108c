//! Output: human tables, JSON documents and result files.

pub mod census;
pub mod files;
pub mod table;

pub use table::{Table, group_digits};
