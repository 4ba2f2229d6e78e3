//! Proto3 JSON parsing of arbitrary bytes: it fails cleanly or gives a message
//! that prints, and whose printed JSON parses back to the same JSON; and
//! `DynamicMessage`'s parser accepts what generated code accepts, to the
//! same message, and refuses what it refuses.
#![no_main]

use fastrs::json;
use fastrs::reflect::{DynamicMessage, ReflectMessage};
use fastrs_tests::fast::fastrs::test::Everything;
use fastrs_tests::fast::fastrs::test2::Groups;

fn check<M: json::JsonMessage + ReflectMessage>(data: &[u8]) {
    agree::<M>(data);
    let Ok(message) = json::from_slice::<M>(data) else { return };
    // Printing may fail (a NaN inside a Value, say), but never panics.
    let Ok(text) = json::to_string(&message) else { return };
    let again: M = json::from_str(&text).expect("fastrs parses its own JSON");
    let value = |m: &M| serde_json::to_value(m).expect("printed once already");
    assert_eq!(value(&again), value(&message), "JSON round trip is stable");
}

fn agree<M: json::JsonMessage + ReflectMessage>(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let generated = json::from_str::<M>(text);
    let dynamic = DynamicMessage::from_json(M::descriptor(), text);
    match (generated, dynamic) {
        (Ok(g), Ok(d)) => {
            let g = DynamicMessage::decode(M::descriptor(), &g.encode_to_vec()).expect("reads generated code's encoding");
            assert_eq!(d.to_text(), g.to_text(), "the same message");
        }
        (g, d) => assert_eq!(g.is_ok(), d.is_ok(), "{g:?} / {d:?}"),
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::<Everything>(data);
    check::<Groups>(data);
    check::<fastrs::well_known::Any>(data);
    check::<fastrs::well_known::Struct>(data);
});
