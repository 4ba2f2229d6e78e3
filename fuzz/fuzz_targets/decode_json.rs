//! Proto3 JSON parsing of arbitrary bytes: it fails cleanly or gives a message
//! that prints, and whose printed JSON parses back to the same JSON.
#![no_main]

use fastrs::json;
use fastrs_tests::fast::fastrs::test::Everything;
use fastrs_tests::fast::fastrs::test2::Groups;

fn check<M: json::JsonMessage>(data: &[u8]) {
    let Ok(message) = json::from_slice::<M>(data) else { return };
    // Printing may fail (a NaN inside a Value, say), but never panics.
    let Ok(text) = json::to_string(&message) else { return };
    let again: M = json::from_str(&text).expect("fastrs parses its own JSON");
    let value = |m: &M| serde_json::to_value(m).expect("printed once already");
    assert_eq!(value(&again), value(&message), "JSON round trip is stable");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::<Everything>(data);
    check::<Groups>(data);
    check::<fastrs::well_known::Any>(data);
    check::<fastrs::well_known::Struct>(data);
});
