//! `DynamicMessage` on arbitrary bytes, against generated code: both decode
//! them or both fail with the same error kind; what decodes re-encodes to
//! `encoded_len` bytes that decode again to the same encoding, and prints
//! and re-parses as text and JSON.
#![no_main]

use fastrs::reflect::{DynamicMessage, ReflectMessage};
use fastrs_tests::fast::fastrs::{test, test2};

fn check<M: ReflectMessage>(data: &[u8]) {
    let generated = M::decode(data).map_err(|e| e.kind());
    let dynamic = DynamicMessage::decode(M::descriptor(), data).map_err(|e| e.kind());
    let message = match (generated, dynamic) {
        (Ok(_), Ok(message)) => message,
        (g, d) => {
            assert_eq!(g.err(), d.err(), "the same error");
            return;
        }
    };
    let encoded = message.encode_to_vec();
    assert_eq!(encoded.len(), message.encoded_len());
    let again = DynamicMessage::decode(M::descriptor(), &encoded).expect("reads its own encoding");
    assert_eq!(again.encoded_len(), encoded.len());
    let text = message.to_text();
    let parsed = DynamicMessage::parse_text(M::descriptor(), &text).expect("reads its own text");
    assert_eq!(parsed.to_text(), text);
    if let Ok(json) = message.to_json() {
        let parsed = DynamicMessage::from_json(M::descriptor(), &json).expect("reads its own JSON");
        assert_eq!(parsed.to_json().expect("prints again"), json);
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::<test::Everything>(data);
    check::<test2::Groups>(data);
    check::<test2::Closed>(data);
});
