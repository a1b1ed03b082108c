//! The manifest of a layered work directory.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch(data, "run.manifest");
    let _ = othello_census::engine::layers::store::read_manifest(&path);
});
