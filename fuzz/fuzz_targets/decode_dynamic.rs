//! `DynamicMessage` on arbitrary bytes, against generated code
//! (`fastrs_tests::check_dynamics`): the same decode or error, and an
//! encoding, text and JSON that read back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fastrs_tests::check_dynamics(data));
