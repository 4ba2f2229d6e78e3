//! Zero-copy views on arbitrary input: each decodes exactly when its owned
//! message does, with the same error, converts to the same message, encodes
//! back to the input, and reads every field without panicking.
#![no_main]

use fastrs_tests::check_view;
use fastrs_tests::fast::fastrs::{test, test2};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check_view::<test::Everything>(data);
    check_view::<test::Tree>(data);
    check_view::<test::Flat>(data);
    check_view::<test2::Groups>(data);
    check_view::<test2::Closed>(data);
    check_view::<test2::Required>(data);
    check_view::<test2::HasRequired>(data);
});
