//! A DFS checkpoint file: any bytes are read in full or refused, never a
//! panic, a hang or an allocation the file's size does not justify.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch(data, "run.ckpt");
    let _ = othello_census::formats::checkpoint::verify(&path);
});
