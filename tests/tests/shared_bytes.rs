//! `bytes` fields held as `bytes::Bytes` (`Builder::bytes`): decoded from a
//! shared buffer they are slices of it, not copies; decoded from a slice,
//! copies; either way the message is the one `Vec<u8>` fields give, in
//! binary and in JSON.

use fastrs::bytes::Bytes;
use fastrs::Message;
use fastrs_tests::fast::fastrs::test as owned;
use fastrs_tests::fast_shared::fastrs::test as shared;
use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::DESCRIPTORS;
use proptest::prelude::*;

fn within(value: &Bytes, input: &Bytes) -> bool {
    let range = input.as_ptr_range();
    value.is_empty() || (range.contains(&value.as_ptr()) && value.as_ptr_range().end <= range.end)
}

#[test]
fn bytes_fields_are_slices_of_a_shared_input() {
    let m = owned::Scalars {
        f_bytes: b"a blob of bytes".to_vec(),
        f_string: "text".into(),
        ..Default::default()
    };
    let input = Bytes::from(m.encode_to_vec());
    let s = shared::Scalars::decode_shared(&input).unwrap();
    assert_eq!(s.f_bytes, &b"a blob of bytes"[..]);
    assert!(within(&s.f_bytes, &input), "sliced, not copied");
    // From a plain slice: a copy with the same contents.
    let copied = shared::Scalars::decode(&input).unwrap();
    assert_eq!(copied.f_bytes, s.f_bytes);
    assert!(!within(&copied.f_bytes, &input));
    assert_eq!(s.encode_to_vec(), input);
}

#[test]
fn repeated_map_and_oneof_bytes_are_shared() {
    let m = owned::Everything {
        lists: Some(owned::Lists {
            f_bytes: vec![b"one".to_vec(), b"two".to_vec()],
            ..Default::default()
        }),
        maps: Some(owned::Maps {
            string_bytes: [("k".to_string(), b"v".to_vec())].into(),
            ..Default::default()
        }),
        choice: Some(owned::Choice {
            pick: Some(owned::choice::Pick::ABytes(b"picked".to_vec())),
            ..Default::default()
        }),
        ..Default::default()
    };
    let input = Bytes::from(m.encode_to_vec());
    let s = shared::Everything::decode_shared(&input).unwrap();
    let lists = s.lists.as_ref().unwrap();
    assert!(lists.f_bytes.iter().all(|b| within(b, &input)));
    assert_eq!(lists.f_bytes, [&b"one"[..], b"two"]);
    assert!(within(&s.maps.as_ref().unwrap().string_bytes["k"], &input));
    match &s.choice.as_ref().unwrap().pick {
        Some(shared::choice::Pick::ABytes(b)) => assert!(within(b, &input) && b == &b"picked"[..]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn json_of_shared_bytes_is_base64() {
    let m = shared::Scalars {
        f_bytes: Bytes::from_static(b"\x00\x01hi"),
        ..Default::default()
    };
    let json = fastrs::json::to_string(&m).unwrap();
    assert_eq!(json, r#"{"fBytes":"AAFoaQ=="}"#);
    assert_eq!(fastrs::json::from_str::<shared::Scalars>(&json).unwrap(), m);
}

thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));

/// The same input decoded with `Vec<u8>` fields and with shared `Bytes`
/// fields encodes to the same bytes (where map order allows comparing).
fn same<O: Message, S: Message>(name: &str, seed: u64) {
    let mut unordered = false;
    let input = SCHEMA.with(|s| s.encode(name, &mut Rng::new(seed), 4, &mut unordered));
    let shared_input = Bytes::from(input.clone());
    let (o, s) = (O::decode(&input), S::decode_shared(&shared_input));
    match (o, s) {
        (Ok(o), Ok(s)) => {
            assert_eq!(o.size(), s.size());
            if !unordered {
                assert_eq!(o.encode_to_vec(), s.encode_to_vec());
            }
        }
        (Err(o), Err(s)) => assert_eq!(o.kind(), s.kind()),
        (o, s) => panic!("{:?} / {:?}", o.err(), s.err()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn shared_fields_decode_the_same(seed in any::<u64>()) {
        same::<owned::Scalars, shared::Scalars>(".fastrs.test.Scalars", seed);
        same::<owned::Lists, shared::Lists>(".fastrs.test.Lists", seed);
        same::<owned::Optionals, shared::Optionals>(".fastrs.test.Optionals", seed);
        same::<owned::Maps, shared::Maps>(".fastrs.test.Maps", seed);
        same::<owned::Choice, shared::Choice>(".fastrs.test.Choice", seed);
        same::<owned::Everything, shared::Everything>(".fastrs.test.Everything", seed);
    }
}
