//! Size-mode messages, which decode, size, write and clear through the
//! table interpreters (the runtime's `unsafe` offset access), against the
//! same types generated in speed mode (`fastrs_tests::check_size_modes`):
//! the same decode or error, encoding and JSON, and the same message when a
//! cleared message decodes again into the values its recycler kept.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fastrs_tests::check_size_modes(data));
