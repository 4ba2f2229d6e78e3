//! proto2: groups, closed enums, required fields, extensions.
#![no_main]

use fastrs_no_std::protos::fastrs::test2;
use fastrs_tests::check_round_trip;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check_round_trip::<test2::Groups>(data);
    check_round_trip::<test2::Closed>(data);
    check_round_trip::<test2::HasRequired>(data);
    check_round_trip::<test2::Defaults>(data);
    check_round_trip::<test2::Extendable>(data);
    check_round_trip::<test2::Nest>(data);
});
