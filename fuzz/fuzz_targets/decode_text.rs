//! Text-format parsing of arbitrary bytes: it fails cleanly or gives a
//! message whose printed text (one line and pretty) parses back to a message
//! that prints the same. Binary input, printed as text, round-trips too.
#![no_main]

use fastrs::text::{self, PrintOptions};
use fastrs::Described;
use fastrs_tests::fast::fastrs::test::Everything;
use fastrs_tests::fast::fastrs::test2::{Extendable, Groups};

/// Prints `message` both ways and checks each reads back to the same text.
fn round_trip<M: Described>(message: &M) {
    for options in [PrintOptions::new(), PrintOptions::new().multi_line(true)] {
        let printed = text::to_string_with(message, options);
        let again: M = text::from_str(&printed).expect("fastrs parses its own text");
        assert_eq!(text::to_string_with(&again, options), printed, "text round trip is stable");
    }
    let _ = text::to_string_with(message, PrintOptions::new().print_unknown_fields(true));
}

fn check<M: Described>(data: &[u8]) {
    if let Ok(input) = core::str::from_utf8(data) {
        if let Ok(message) = text::from_str::<M>(input) {
            round_trip(&message);
        }
    }
    if let Ok(message) = M::decode(data) {
        round_trip(&message);
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    text::register::<Everything>();
    check::<Everything>(data);
    check::<Groups>(data);
    check::<Extendable>(data);
    check::<fastrs::well_known::Any>(data);
});
