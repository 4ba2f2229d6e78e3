//! The runtime's primitives on arbitrary bytes: skipping any field into
//! unknown fields keeps it byte for byte, and varints decode consistently.
#![no_main]

use fastrs::{Reader, UnknownFields};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut r = Reader::new(data);
    let mut unknown = UnknownFields::new();
    let mut ok = true;
    while !r.is_empty() {
        let Ok(tag) = r.read_tag() else {
            ok = false;
            break;
        };
        if r.skip_field(tag, 100, &mut unknown).is_err() {
            ok = false;
            break;
        }
    }
    if ok {
        // Everything was read as fields: writing them back gives the same
        // fields (tags re-encoded canonically).
        let again: Vec<(u32, Vec<u8>)> = unknown.fields().map(|(t, v)| (t, v.to_vec())).collect();
        let mut copy = UnknownFields::new();
        for (t, v) in &again {
            copy.push_field(*t, v);
        }
        assert_eq!(copy, unknown);
    }
    let mut r = Reader::new(data);
    if let Ok(v) = r.read_varint() {
        let consumed = data.len() - r.rest().len();
        assert!((1..=10).contains(&consumed));
        assert!(fastrs::varint::len(v) <= consumed);
    }
});
