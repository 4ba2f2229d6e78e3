//! proto2 on generated types: defaults, required fields, closed enums, groups,
//! extensions and packed fields.

use fastrs::{DecodeErrorKind, Message};
use fastrs_tests::fast::fastrs::test2::{
    self as t, closed, groups, Closed, Defaults, Extendable, Groups, HasRequired, Level, Mood, Required,
};

#[test]
fn getters_return_declared_defaults() {
    let d = Defaults::default();
    assert_eq!(d.f_int32(), -123_456_789);
    assert_eq!(d.f_int64(), -9_123_456_789_123_456_789);
    assert_eq!(d.f_uint32(), 2_123_456_789);
    assert_eq!(d.f_uint64(), 10_123_456_789_123_456_789);
    assert_eq!(d.f_sint32(), -5);
    assert_eq!(d.f_fixed64(), u64::MAX);
    assert_eq!(d.f_float(), 9e9);
    assert_eq!(d.f_double(), f64::NEG_INFINITY);
    assert!(d.f_nan().is_nan());
    assert!(d.f_bool());
    assert_eq!(d.f_string(), "Rosebud \"quoted\"");
    assert_eq!(d.f_bytes(), b"jo\0sh\xffua");
    assert_eq!(d.f_level(), Level::High);
    assert_eq!(d.f_mood(), Mood::Happy, "a closed enum defaults to its first value");
    assert_eq!(d.f_plain(), 0);
    // Unset fields are not written; set ones are, even when equal to the default.
    assert!(d.encode_to_vec().is_empty());
    let set = Defaults {
        f_int32: Some(-123_456_789),
        f_plain: Some(0),
        ..Default::default()
    };
    let back = Defaults::decode(&set.encode_to_vec()).unwrap();
    assert_eq!(back.f_int32, Some(-123_456_789));
    assert_eq!(back.f_plain, Some(0));
    assert_eq!(back.f_int32(), -123_456_789);
}

fn required(id: i32) -> Required {
    Required {
        id: Some(id),
        name: Some("n".into()),
        ..Default::default()
    }
}

#[test]
fn missing_required_fields_fail_decode_at_any_depth() {
    let ok = HasRequired {
        inner: Some(required(1)),
        ..Default::default()
    };
    assert_eq!(HasRequired::decode(&ok.encode_to_vec()).unwrap(), ok);

    let shallow = Required {
        id: Some(1),
        ..Default::default()
    }
    .encode_to_vec();
    let err = Required::decode(&shallow).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::MissingRequired);
    assert_eq!(err.to_string(), "missing required field fastrs.test2.Required.name");

    let deep = HasRequired {
        inner: Some(Required {
            children: vec![required(2), Required::default()],
            ..required(1)
        }),
        ..Default::default()
    };
    let err = HasRequired::decode(&deep.encode_to_vec()).unwrap_err();
    assert_eq!(err.message_name(), Some("fastrs.test2.Required.id"));
    let in_map = HasRequired {
        by_name: [("x".into(), Required::default())].into(),
        ..Default::default()
    };
    assert_eq!(
        HasRequired::decode(&in_map.encode_to_vec()).unwrap_err().kind(),
        DecodeErrorKind::MissingRequired
    );
}

#[test]
fn partial_decode_and_checked_encode() {
    let partial = Required {
        id: Some(1),
        ..Default::default()
    };
    let bytes = partial.encode_to_vec();
    let mut m = Required::default();
    m.fast_read_partial(&bytes, &fastrs::DecodeOptions::default()).unwrap();
    assert_eq!(m, partial);
    let err = m.encode_to_vec_checked().unwrap_err();
    assert_eq!(
        (err.missing_field(), err.field_number()),
        ("fastrs.test2.Required.name", 2)
    );
    assert_eq!(
        err.to_string(),
        "cannot encode: required field fastrs.test2.Required.name is not set"
    );
    assert_eq!(
        required(3).encode_to_vec_checked().unwrap(),
        required(3).encode_to_vec()
    );
}

/// Size-mode messages check their required fields on every way in:
/// `decode` and `fast_read` call `fast_read_partial` and `check_required`
/// themselves, not through `fast_read_with`.
#[test]
fn size_mode_reads_check_required_fields() {
    use fastrs_tests::fast_size::fastrs::test2 as s;
    let missing = s::HasRequired {
        inner: Some(s::Required {
            id: Some(1),
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec();
    let expect = "missing required field fastrs.test2.Required.name";
    assert_eq!(s::HasRequired::decode(&missing).unwrap_err().to_string(), expect);
    let mut m = s::HasRequired::default();
    assert_eq!(m.fast_read(&missing).unwrap_err().to_string(), expect);
    let err = m
        .fast_read_with(&missing, &fastrs::DecodeOptions::default())
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::MissingRequired);
    // A partial read does not check, and keeps what it read.
    let mut partial = s::HasRequired::default();
    partial
        .fast_read_partial(&missing, &fastrs::DecodeOptions::default())
        .unwrap();
    assert_eq!(partial.inner.as_ref().and_then(|r| r.id), Some(1));

    let ok = s::HasRequired {
        inner: Some(s::Required {
            id: Some(1),
            name: Some("n".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(s::HasRequired::decode(&ok.encode_to_vec()).unwrap(), ok);
}

#[test]
fn required_fields_split_across_merged_occurrences_are_complete() {
    // inner = {id}, then inner = {name}: merged, both are set.
    let a = HasRequired {
        inner: Some(Required {
            id: Some(1),
            ..Default::default()
        }),
        ..Default::default()
    };
    let b = HasRequired {
        inner: Some(Required {
            name: Some("n".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = HasRequired::decode(&[a.encode_to_vec(), b.encode_to_vec()].concat()).unwrap();
    assert_eq!(m.inner, Some(required(1)));
}

#[test]
fn closed_enums_route_unknown_numbers_to_unknown_fields() {
    // level = 9 (unknown), levels = [1, 9], packed_levels = [2, 9, 3], level_map {1: 9}, level_choice = 9.
    let input: Vec<u8> = [
        &[0x08, 0x09][..],
        &[0x10, 0x01, 0x10, 0x09],
        &[0x1a, 0x03, 0x02, 0x09, 0x03],
        &[0x22, 0x04, 0x08, 0x01, 0x10, 0x09],
        &[0x28, 0x09],
    ]
    .concat();
    let m = Closed::decode(&input).unwrap();
    assert_eq!(m.level, None);
    assert_eq!(m.levels, [Level::Low]);
    assert_eq!(m.packed_levels, [Level::High, Level::Max]);
    assert!(m.level_map.is_empty());
    assert_eq!(m.pick, None);
    // Each unknown value is kept (packed ones as unpacked fields), and written back.
    let unknown: Vec<u8> = [
        &[0x08, 0x09][..],
        &[0x10, 0x09],
        &[0x18, 0x09],
        &[0x22, 0x04, 0x08, 0x01, 0x10, 0x09],
        &[0x28, 0x09],
    ]
    .concat();
    assert_eq!(m.unknown_fields.as_bytes(), unknown);
    let again = Closed::decode(&m.encode_to_vec()).unwrap();
    assert_eq!(again, m);
    // Known values land in the fields.
    let known = Closed {
        level: Some(Level::Zero),
        pick: Some(closed::Pick::LevelChoice(Level::Max)),
        ..Default::default()
    };
    assert_eq!(Closed::decode(&known.encode_to_vec()).unwrap(), known);
}

#[test]
fn groups_encode_with_start_and_end_tags() {
    let g = Groups {
        data: Some(groups::Data {
            a: Some(1),
            deep: Some(groups::data::Deep {
                s: Some("x".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        item: vec![
            groups::Item {
                x: Some(2),
                ..Default::default()
            },
            groups::Item::default(),
        ],
        choice: Some(groups::Choice::Chosen(groups::Chosen {
            c: Some("c".into()),
            ..Default::default()
        })),
        after: Some(3),
        ..Default::default()
    };
    let bytes = g.encode_to_vec();
    let expected: Vec<u8> = [
        &[0x0b, 0x10, 0x01, 0x1a, 0x03, 0x0a, 0x01, b'x', 0x0c][..], // Data { a: 1, deep: { s: "x" } }
        &[0x23, 0x28, 0x02, 0x24, 0x23, 0x24],                       // Item { x: 2 }, Item {}
        &[0x33, 0x3a, 0x01, b'c', 0x34],                             // Chosen { c: "c" }
        &[0x48, 0x03],
    ]
    .concat();
    assert_eq!(bytes, expected);
    assert_eq!(Groups::decode(&bytes).unwrap(), g);
    assert_eq!(g.size(), bytes.len());
}

#[test]
fn malformed_groups_are_errors() {
    let kind = |b: &[u8]| Groups::decode(b).unwrap_err().kind();
    assert_eq!(kind(&[0x0b, 0x10, 0x01]), DecodeErrorKind::UnterminatedGroup);
    assert_eq!(kind(&[0x0b, 0x10, 0x01, 0x24]), DecodeErrorKind::EndGroupMismatch);
    assert_eq!(kind(&[0x0c]), DecodeErrorKind::UnexpectedEndGroup);
    // A group nested past the recursion limit (Data holds unknown groups).
    let deep: Vec<u8> = [vec![0x0b], vec![0x2b; 200], vec![0x2c; 200], vec![0x0c]].concat();
    assert_eq!(kind(&deep), DecodeErrorKind::RecursionLimit);
}

#[test]
fn extensions_have_typed_accessors_and_round_trip() {
    let mut m = Extendable {
        base: Some(1),
        ..Default::default()
    };
    assert!(!t::EXT_INT.has(&m));
    t::EXT_INT.set(&mut m, &42);
    t::EXT_TEXT.set(&mut m, &"hi".into());
    t::EXT_LIST.push(&mut m, &7);
    t::EXT_LIST.push(&mut m, &-8);
    t::scope::NESTED_EXT.set(&mut m, &true);
    t::EXT_MESSAGE.set(
        &mut m,
        &t::Packed {
            values: vec![1, 2],
            ..Default::default()
        },
    );
    assert!(t::EXT_INT.has(&m));
    assert_eq!(t::EXT_INT.get(&m), Ok(Some(42)));
    assert_eq!(t::EXT_TEXT.get(&m), Ok(Some("hi".into())));
    assert_eq!(t::EXT_LIST.get(&m), Ok(vec![7, -8]));
    assert_eq!(t::scope::NESTED_EXT.get(&m), Ok(Some(true)));
    assert_eq!(t::EXT_MESSAGE.get(&m).unwrap().unwrap().values, [1, 2]);

    // A reader that knows nothing of the extensions keeps them byte for byte.
    let bytes = m.encode_to_vec();
    let back = Extendable::decode(&bytes).unwrap();
    assert_eq!(back.encode_to_vec(), bytes);
    assert_eq!(t::EXT_INT.get(&back), Ok(Some(42)));

    t::EXT_INT.set(&mut m, &43);
    assert_eq!(t::EXT_INT.get(&m), Ok(Some(43)));
    t::EXT_INT.clear(&mut m);
    assert_eq!(t::EXT_INT.get(&m), Ok(None));
    t::EXT_LIST.clear(&mut m);
    assert_eq!(t::EXT_LIST.get(&m), Ok(vec![]));
    assert_eq!(t::EXT_TEXT.get(&m), Ok(Some("hi".into())), "other extensions stay");
}

#[test]
fn proto2_packed_option_and_unpacked_default() {
    let p = t::Packed {
        values: vec![1, 2],
        plain: vec![3, 4],
        doubles: vec![0.5],
        ..Default::default()
    };
    let bytes = p.encode_to_vec();
    assert_eq!(&bytes[..4], &[0x0a, 0x02, 0x01, 0x02]);
    assert_eq!(
        &bytes[4..8],
        &[0x10, 0x03, 0x10, 0x04],
        "proto2 repeated scalars are unpacked by default"
    );
    assert_eq!(t::Packed::decode(&bytes).unwrap(), p);
    // Both forms are accepted either way.
    assert_eq!(t::Packed::decode(&[0x08, 0x05, 0x12, 0x01, 0x06]).unwrap().plain, [6]);
}

#[test]
fn proto2_strings_keep_bytes_that_are_not_utf8_as_cpp_does() {
    // Defaults.f_string (11) = c3 28: not UTF-8. C++, Java, Go and upb read
    // it; so does fastrs, and writes the same bytes back.
    let input = [0x5a, 0x02, 0xc3, 0x28];
    let m = Defaults::decode(&input).unwrap();
    let s = m.f_string.as_ref().unwrap();
    assert_eq!(
        (s.as_str(), s.as_bytes(), s.is_utf8()),
        (None, &[0xc3, 0x28][..], false)
    );
    assert_eq!(m.f_string(), "\u{fffd}(", "the getter shows a lossy text");
    assert_eq!(format!("{s:?}"), r#""\xc3(""#);
    assert_eq!(m.encode_to_vec(), input);
    // Valid text reads as &str; a reused message goes from bytes back to text.
    let mut reused = m;
    reused.fast_read(&[0x5a, 0x02, b'o', b'k']).unwrap();
    assert_eq!(reused.f_string.as_ref().unwrap().as_str(), Some("ok"));
    assert_eq!(reused.f_string(), "ok");

    // Map keys and extensions too.
    let entry = [0x0a, 0x02, 0xff, 0xfe, 0x12, 0x04, 0x08, 0x01, 0x12, 0x00];
    let mut map_input = vec![0x12, entry.len() as u8];
    map_input.extend(entry);
    let m = HasRequired::decode(&map_input).unwrap();
    let key = m.by_name.keys().next().unwrap();
    assert_eq!(key.as_bytes(), [0xff, 0xfe]);
    assert_eq!(m.encode_to_vec(), map_input);
    let ext = [0xaa, 0x06, 0x01, 0x80];
    let m = Extendable::decode(&ext).unwrap();
    assert_eq!(t::EXT_TEXT.get(&m).unwrap().unwrap().as_bytes(), [0x80]);
    assert_eq!(m.encode_to_vec(), ext);
    // Built from bytes, they encode as given.
    let m = Defaults {
        f_string: Some(vec![0xc3, 0x28].into()),
        ..Default::default()
    };
    assert_eq!(m.encode_to_vec(), input);
}
