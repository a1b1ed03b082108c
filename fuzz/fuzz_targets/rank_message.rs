//! A message from another rank (network input): decoded or refused; every
//! run it delivers has increasing keys.
#![no_main]
use libfuzzer_sys::fuzz_target;
use othello_census::engine::layers::transport::decode_message;

fuzz_target!(|data: &[u8]| {
    let _ = decode_message(data, 1, |j| j % 2 == 0, |_, run| {
        assert!(run.to_records().windows(2).all(|w| w[0].0 < w[1].0), "a delivered run must be sorted");
        Ok(())
    });
});
