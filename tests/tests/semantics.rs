//! Protobuf semantics on generated types: merging, oneofs, maps, unknown
//! fields, open enums, presence, limits and error reporting.

use fastrs::{DecodeErrorKind, EnumValue, Message};
use fastrs_tests::fast::fastrs::test::other::Remote;
use fastrs_tests::fast::fastrs::test::{
    self as t, choice, outer, Choice, Color, Lists, Maps, Optionals, Scalars, Tree,
};

#[test]
fn last_scalar_wins() {
    // f_int32 = 1, then f_int32 = 2; f_string = "a", then "bc".
    let m = Scalars::decode(&[0x18, 0x01, 0x18, 0x02, 0x72, 1, b'a', 0x72, 2, b'b', b'c']).unwrap();
    assert_eq!(m.f_int32, 2);
    assert_eq!(m.f_string, "bc");
}

#[test]
fn repeated_occurrences_of_a_message_field_merge() {
    let a = Optionals {
        f_message: Some(Scalars {
            f_int32: 1,
            f_string: "a".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let b = Optionals {
        f_message: Some(Scalars {
            f_int64: 2,
            f_string: "b".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let bytes = [a.encode_to_vec(), b.encode_to_vec()].concat();
    let merged = Optionals::decode(&bytes).unwrap().f_message.unwrap();
    assert_eq!((merged.f_int32, merged.f_int64, merged.f_string.as_str()), (1, 2, "b"));
}

#[test]
fn fast_read_merges_into_existing_values() {
    let mut lists = Lists {
        f_int32: vec![1],
        ..Default::default()
    };
    lists
        .fast_read(
            &Lists {
                f_int32: vec![2, 3],
                ..Default::default()
            }
            .encode_to_vec(),
        )
        .unwrap();
    assert_eq!(lists.f_int32, [1, 2, 3]);
}

#[test]
fn oneof_last_member_wins_and_messages_merge() {
    let int = Choice {
        pick: Some(choice::Pick::AInt(5)),
        ..Default::default()
    }
    .encode_to_vec();
    let text = Choice {
        pick: Some(choice::Pick::AString("x".into())),
        ..Default::default()
    }
    .encode_to_vec();
    assert_eq!(
        Choice::decode(&[int.clone(), text.clone()].concat()).unwrap().pick,
        Some(choice::Pick::AString("x".into()))
    );
    assert_eq!(
        Choice::decode(&[text, int].concat()).unwrap().pick,
        Some(choice::Pick::AInt(5))
    );

    let m1 = Choice {
        pick: Some(choice::Pick::AMessage(Scalars {
            f_int32: 1,
            ..Default::default()
        })),
        ..Default::default()
    };
    let m2 = Choice {
        pick: Some(choice::Pick::AMessage(Scalars {
            f_bool: true,
            ..Default::default()
        })),
        ..Default::default()
    };
    let merged = Choice::decode(&[m1.encode_to_vec(), m2.encode_to_vec()].concat()).unwrap();
    assert_eq!(
        merged.pick,
        Some(choice::Pick::AMessage(Scalars {
            f_int32: 1,
            f_bool: true,
            ..Default::default()
        }))
    );
}

#[test]
fn oneof_member_with_default_value_is_present() {
    let m = Choice {
        pick: Some(choice::Pick::AInt(0)),
        ..Default::default()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(bytes, [0x08, 0x00]);
    assert_eq!(Choice::decode(&bytes).unwrap(), m);
}

#[test]
fn map_entries_missing_key_or_value_take_defaults() {
    // string_string (12): entry with only a value; entry with only a key; empty entry.
    let bytes = [0x62, 0x03, 0x12, 0x01, b'v', 0x62, 0x03, 0x0a, 0x01, b'k', 0x62, 0x00];
    let m = Maps::decode(&bytes).unwrap();
    assert_eq!(
        m.string_string.get(""),
        Some(&String::new()),
        "the empty entry overwrote the value-only one"
    );
    assert_eq!(m.string_string.get("k"), Some(&String::new()));
    // string_message (17): key only → a default message.
    let m = Maps::decode(&[0x8a, 0x01, 0x03, 0x0a, 0x01, b'k']).unwrap();
    assert_eq!(m.string_message.get("k"), Some(&Scalars::default()));
}

#[test]
fn later_duplicate_map_keys_win() {
    // int32_int32 (1): {1: 10}, then {1: 20}.
    let m = Maps::decode(&[0x0a, 0x04, 0x08, 0x01, 0x10, 0x0a, 0x0a, 0x04, 0x08, 0x01, 0x10, 0x14]).unwrap();
    assert_eq!(m.int32_int32.len(), 1);
    assert_eq!(m.int32_int32[&1], 20);
}

#[test]
fn map_entries_keep_unknown_fields_out_and_accept_any_order() {
    // Value before key, and an unknown field 3 inside the entry.
    let m = Maps::decode(&[0x0a, 0x06, 0x10, 0x14, 0x18, 0x07, 0x08, 0x01]).unwrap();
    assert_eq!(m.int32_int32[&1], 20);
    assert!(m.unknown_fields.is_empty());
}

#[test]
fn unknown_fields_round_trip_byte_for_byte() {
    let known = Remote {
        id: "r".into(),
        codes: vec![1, 2],
        ..Default::default()
    }
    .encode_to_vec();
    // Unknown fields of every wire type after the known ones (canonical order).
    let unknown: &[u8] = &[
        0xa0, 0x06, 0x2a, 0xa9, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, 0xa2, 0x06, 2, b'h', b'i', 0xab, 0x06, 0x08, 0x01, 0xac,
        0x06, 0xad, 0x06, 9, 9, 9, 9,
    ];
    let input = [known.as_slice(), unknown].concat();
    let m = Remote::decode(&input).unwrap();
    assert_eq!(m.unknown_fields.as_bytes(), unknown);
    assert_eq!(m.encode_to_vec(), input);
    assert_eq!(m.size(), input.len());
}

#[test]
fn known_field_with_another_wire_type_is_kept_as_unknown() {
    // Remote.id (1) is a string; here it arrives as a varint.
    let m = Remote::decode(&[0x08, 0x05]).unwrap();
    assert_eq!(m.id, "");
    assert_eq!(m.encode_to_vec(), [0x08, 0x05]);
}

#[test]
fn open_enums_keep_unknown_values() {
    let m = Scalars::decode(&[0x80, 0x01, 0x63]).unwrap();
    assert_eq!(m.f_enum.to_i32(), 99);
    assert_eq!(m.f_enum.known(), None);
    assert_eq!(format!("{:?}", m.f_enum), "Unknown(99)");
    assert_eq!(m.encode_to_vec(), [0x80, 0x01, 0x63]);
    // Negative values take ten bytes, and aliases name the same number.
    let neg = Scalars {
        f_enum: Color::Negative.into(),
        ..Default::default()
    };
    assert_eq!(neg.encode_to_vec().len(), 2 + 10);
    assert_eq!(Color::Crimson, Color::Red);
    assert_eq!(EnumValue::from(Color::Crimson), Color::Red);
    assert_eq!(fastrs::Enum::as_str_name(Color::Red), "COLOR_RED");
}

#[test]
fn packed_and_unpacked_runs_mix_in_one_message() {
    // Lists.f_int32 (3): packed [1, 2], unpacked 3, packed [4].
    let m = Lists::decode(&[0x1a, 0x02, 0x01, 0x02, 0x18, 0x03, 0x1a, 0x01, 0x04]).unwrap();
    assert_eq!(m.f_int32, [1, 2, 3, 4]);
    assert_eq!(m.encode_to_vec(), [0x1a, 0x04, 1, 2, 3, 4]);
    // Unpacked.f_int32 is written unpacked but accepts packed input.
    let u = t::Unpacked::decode(&[0x1a, 0x02, 0x05, 0x06]).unwrap();
    assert_eq!(u.f_int32, [5, 6]);
    assert_eq!(u.encode_to_vec(), [0x18, 0x05, 0x18, 0x06]);
}

#[test]
fn proto3_optional_has_presence() {
    let zero = Optionals {
        f_int32: Some(0),
        f_string: Some(String::new()),
        ..Default::default()
    };
    let bytes = zero.encode_to_vec();
    assert_eq!(bytes, [0x18, 0x00, 0x72, 0x00]);
    assert_eq!(Optionals::decode(&bytes).unwrap(), zero);
    assert_eq!(Optionals::default().encode_to_vec(), Vec::<u8>::new());
}

#[test]
fn implicit_presence_skips_defaults_but_not_negative_zero() {
    assert!(Scalars::default().encode_to_vec().is_empty());
    let m = Scalars {
        f_double: -0.0,
        ..Default::default()
    };
    assert_eq!(m.encode_to_vec().len(), 9);
}

#[test]
fn largest_field_number_and_multi_byte_tags() {
    let m = t::Edges {
        biggest: 1,
        two_byte_tag: 2,
        three_byte_tag: 3,
        ..Default::default()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(
        bytes,
        [0x80, 0x01, 0x02, 0x80, 0x80, 0x01, 0x03, 0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01]
    );
    assert_eq!(t::Edges::decode(&bytes).unwrap(), m);
}

fn tree(depth: usize) -> Tree {
    let mut t = Tree {
        value: 0,
        ..Default::default()
    };
    for i in 1..depth {
        t = Tree {
            value: i as i64,
            left: Some(Box::new(t)),
            ..Default::default()
        };
    }
    t
}

#[test]
fn recursion_limit_is_enforced_and_can_be_raised() {
    // `depth` levels of Tree: the outermost is decoded at depth 0.
    assert!(Tree::decode(&tree(101).encode_to_vec()).is_ok());
    let err = Tree::decode(&tree(102).encode_to_vec()).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::RecursionLimit);
    let deep = tree(300);
    let mut m = Tree::default();
    m.fast_read_with(
        &deep.encode_to_vec(),
        &fastrs::DecodeOptions {
            recursion_limit: 300,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(m, deep);
}

#[test]
fn invalid_utf8_is_rejected_in_every_string_position() {
    let bad = [0xc3, 0x28];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("field", [&[0x72, 0x02][..], &bad].concat()),
        ("repeated", [&[0x72, 0x02][..], &bad].concat()),
        ("map key", [&[0x62, 0x04, 0x0a, 0x02][..], &bad].concat()),
        ("map value", [&[0x62, 0x04, 0x12, 0x02][..], &bad].concat()),
        ("oneof", [&[0x12, 0x02][..], &bad].concat()),
    ];
    let kind = |r: Result<(), fastrs::DecodeError>| r.unwrap_err().kind();
    assert_eq!(
        kind(Scalars::decode(&cases[0].1).map(drop)),
        DecodeErrorKind::InvalidUtf8,
        "{}",
        cases[0].0
    );
    assert_eq!(
        kind(Lists::decode(&cases[1].1).map(drop)),
        DecodeErrorKind::InvalidUtf8,
        "{}",
        cases[1].0
    );
    assert_eq!(
        kind(Maps::decode(&cases[2].1).map(drop)),
        DecodeErrorKind::InvalidUtf8,
        "{}",
        cases[2].0
    );
    assert_eq!(
        kind(Maps::decode(&cases[3].1).map(drop)),
        DecodeErrorKind::InvalidUtf8,
        "{}",
        cases[3].0
    );
    assert_eq!(
        kind(Choice::decode(&cases[4].1).map(drop)),
        DecodeErrorKind::InvalidUtf8,
        "{}",
        cases[4].0
    );
}

#[test]
fn errors_say_what_and_where() {
    // Outer.inner (1) holds Inner.name (2) with invalid UTF-8 at byte 4.
    let err = t::Outer::decode(&[0x0a, 0x04, 0x12, 0x02, 0xc3, 0x28]).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidUtf8);
    assert_eq!(err.offset(), 4);
    assert_eq!(err.field_number(), Some(2));
    assert_eq!(err.message_name(), Some("fastrs.test.Outer.Inner"));
    assert_eq!(
        err.to_string(),
        "invalid UTF-8 in a string field at byte 4 in field 2 of fastrs.test.Outer.Inner"
    );
    let err = Scalars::decode(&[0x18]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "input ends inside a value at byte 1 in field 3 of fastrs.test.Scalars"
    );
}

#[test]
fn decoding_arbitrary_truncations_never_panics() {
    let full = fastrs_tests::fast::fastrs::test::Everything {
        scalars: Some(Scalars {
            f_string: "abc".into(),
            f_int64: -5,
            f_double: 1.5,
            ..Default::default()
        }),
        lists: Some(Lists {
            f_int32: vec![1, 300, -1],
            f_string: vec!["x".into(), "yz".into()],
            ..Default::default()
        }),
        maps: Some(Maps {
            string_message: [("k".to_string(), Scalars::default())].into(),
            ..Default::default()
        }),
        tree: Some(tree(5)),
        ..Default::default()
    }
    .encode_to_vec();
    for cut in 0..full.len() {
        // Either an error or a valid prefix; never a panic.
        let _ = fastrs_tests::fast::fastrs::test::Everything::decode(&full[..cut]);
    }
}

#[test]
fn clear_keeps_capacity_for_reuse() {
    let m = Lists {
        f_int64: (0..100).collect(),
        f_string: vec!["s".into(); 10],
        ..Default::default()
    };
    let bytes = m.encode_to_vec();
    let mut reused = Lists::decode(&bytes).unwrap();
    let capacity = reused.f_int64.capacity();
    reused.clear();
    assert_eq!(reused, Lists::default());
    assert_eq!(reused.f_int64.capacity(), capacity);
    reused.fast_read(&bytes).unwrap();
    assert_eq!(reused, m);
}

#[test]
fn encode_append_reuses_the_buffer() {
    let m = Scalars {
        f_string: "hello".into(),
        f_uint64: 7,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(64);
    let ptr = out.as_ptr();
    for _ in 0..3 {
        out.clear();
        m.encode_append(&mut out);
    }
    assert_eq!(out.as_ptr(), ptr, "no reallocation");
    assert_eq!(out, m.encode_to_vec());
    out.truncate(0);
    out.extend_from_slice(b"prefix");
    m.encode_append(&mut out);
    assert_eq!(&out[6..], m.encode_to_vec());
}

#[test]
fn fast_write_into_caller_buffer() {
    let m = Scalars {
        f_string: "hello".into(),
        ..Default::default()
    };
    let mut buf = [0u8; 32];
    let n = m.fast_write(&mut buf);
    assert_eq!(&buf[..n], m.encode_to_vec());
    assert_eq!(m.fast_write_sized(&mut buf, n), n);
}

#[test]
#[should_panic(expected = "encode buffer too short for fastrs.test.Scalars")]
fn fast_write_into_a_short_buffer_panics_clearly() {
    let m = Scalars {
        f_string: "hello".into(),
        ..Default::default()
    };
    let mut buf = vec![0u8; m.size() - 1];
    m.fast_write(&mut buf);
}

#[test]
#[should_panic(expected = "is not the size of its encoding")]
fn fast_write_sized_with_a_wrong_size_panics() {
    let m = Scalars {
        f_int32: 1,
        ..Default::default()
    };
    m.fast_write_sized(&mut [0u8; 8], 3);
}

#[test]
fn keywords_and_prelude_names_compile_and_round_trip() {
    let m = t::Keywords {
        r#type: 1,
        r#match: "m".into(),
        r#async: true,
        r#ref: 4,
        self_: 5,
        crate_: 6,
        option: Some(t::Option {
            x: 7,
            ..Default::default()
        }),
        result: Some(t::Result {
            x: "r".into(),
            ..Default::default()
        }),
        r#box: Some(t::Box {
            x: vec![1],
            ..Default::default()
        }),
        vec: Some(t::Vec {
            x: vec![2],
            ..Default::default()
        }),
        string: Some(t::String {
            inner: Some(t::Option {
                x: 8,
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(t::Keywords::decode(&m.encode_to_vec()).unwrap(), m);
}

#[test]
fn a_chain_follows_the_first_singular_field_of_its_own_type() {
    use fastrs::__private::chain::Chain;
    // Tree's `left` (2): not `right` (3), the repeated `children` or the oneof
    // member `only`.
    assert_eq!(Tree::LINK_KEY, [0x12]);
    let leaf = |value| {
        Some(Box::new(Tree {
            value,
            ..Default::default()
        }))
    };
    let t = Tree {
        left: leaf(1),
        right: leaf(2),
        children: vec![Tree::default()],
        branch: Some(t::tree::Branch::Only(Box::default())),
        ..Default::default()
    };
    assert_eq!(t.link().map(|l| l.value), Some(1));
    assert_eq!(
        Tree {
            right: leaf(2),
            ..Default::default()
        }
        .link(),
        None
    );
}

#[test]
fn recursive_fields_are_boxed_and_nested_types_live_in_modules() {
    let t = Tree {
        left: Some(Box::default()),
        branch: Some(t::tree::Branch::Only(Box::default())),
        ..Default::default()
    };
    assert_eq!(Tree::decode(&t.encode_to_vec()).unwrap(), t);
    let o = t::Outer {
        inner: Some(outer::Inner {
            kind: outer::inner::Kind::A.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(t::Outer::decode(&o.encode_to_vec()).unwrap(), o);
    let p = t::Ping {
        pong: Some(Box::new(t::Pong {
            ping: Some(Box::default()),
            ..Default::default()
        })),
        n: 1,
        ..Default::default()
    };
    assert_eq!(t::Ping::decode(&p.encode_to_vec()).unwrap(), p);
}

#[test]
fn maps_can_use_another_hasher() {
    use std::collections::hash_map::DefaultHasher;
    use std::collections::HashMap;
    use std::hash::BuildHasherDefault;

    use fastrs::Message;
    use fastrs_tests::hashed::User;

    let mut user = User::default();
    let counters: &mut HashMap<String, i64, BuildHasherDefault<DefaultHasher>> = &mut user.counters;
    counters.insert("logins".into(), 3);
    counters.insert("posts".into(), -1);
    let bytes = user.encode_to_vec();
    assert_eq!(User::decode(&bytes).unwrap(), user);
    let mut reused = User::decode(&bytes).unwrap();
    reused.clear();
    reused.fast_read(&bytes).unwrap();
    assert_eq!(reused, user);
}

#[test]
fn only_singular_fields_of_a_recursive_type_are_boxed() {
    use fastrs::well_known::{ListValue, Struct, Value};
    // Struct -> Value -> Struct: map values and list elements live on the heap
    // already, so they are not boxed (they were `Box<Value>`).
    let s = Struct::default();
    let _: &std::collections::HashMap<String, Value> = &s.fields;
    let l = ListValue::default();
    let _: &Vec<Value> = &l.values;
    // A oneof member that holds its own message type must be.
    let _ = t::tree::Branch::Only(Box::default());
}

#[test]
fn enum_values_convert_from_numbers_and_variants() {
    let known: fastrs::EnumValue<t::Color> = t::Color::Green.into();
    let unknown: fastrs::EnumValue<t::Color> = 77.into();
    assert_eq!((known.known(), unknown.known()), (Some(t::Color::Green), None));
    assert_eq!((i32::from(known), i32::from(unknown)), (t::Color::Green as i32, 77));
}
