//! A bucket of spilled children: merged as a bucket of 3 runs with a fan-in
//! of 2 (so that a scratch pass is written and read back too); whatever is
//! emitted before an error is in increasing key order.
#![no_main]
use libfuzzer_sys::fuzz_target;
use othello_census::engine::layers::store::merge_bucket;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch(data, "bucket.bkt");
    let mut last = None;
    let _ = merge_bucket(&path, 3, 2, &mut |(key, _)| {
        assert!(last.is_none_or(|l| l < key), "a merge must emit increasing keys");
        last = Some(key);
        Ok(())
    });
});
