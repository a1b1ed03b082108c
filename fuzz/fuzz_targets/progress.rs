//! The progress file of an expansion under way (`expand.progress`).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch(data, "expand.progress");
    let _ = othello_census::engine::layers::progress::read(&path);
});
