//! A stored part of a layer: opened as part 0 of layer 16 of a 4x4 run by
//! discs in one partition (what scripts/fuzz.sh's seed run writes), its
//! records read to the end; whatever is read before an error is in
//! increasing key order.
#![no_main]
use libfuzzer_sys::fuzz_target;
use othello_census::engine::layers::store::{PartId, PartReader};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch(data, "part.lyr");
    let id = PartId { size: 4, by: 0, layer: 16, partition: 0, partitions: 1 };
    let Ok(mut r) = PartReader::open(&path, &id) else { return };
    let mut last = None;
    while let Ok(Some((key, _))) = r.next_record() {
        assert!(last.is_none_or(|l| l < key), "a part's keys must increase");
        last = Some(key);
    }
});
