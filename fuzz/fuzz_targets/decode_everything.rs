//! Every proto3 construct: the top-level test message, and the messages of
//! the other test packages (generated with `BTreeMap` maps, so re-encoding is
//! byte-stable).
#![no_main]

use fastrs_no_std::protos::{fastrs::test, Rootless};
use fastrs_tests::check_round_trip;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check_round_trip::<test::Everything>(data);
    check_round_trip::<test::Maps>(data);
    check_round_trip::<test::Tree>(data);
    check_round_trip::<test::Choice>(data);
    check_round_trip::<Rootless>(data);
});
