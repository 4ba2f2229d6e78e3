//! Editions: presence, enum openness, repeated and message encoding follow the
//! resolved features (the file is generated through protoc).

use fastrs::{DecodeErrorKind, Message};
use fastrs_tests::editions::{Child, Closed, Features, Open};

fn required() -> Features {
    Features {
        required_int: Some(0),
        ..Default::default()
    }
}

#[test]
fn explicit_presence_is_the_default_and_implicit_can_be_chosen() {
    let m = Features {
        explicit_int: Some(0),
        implicit_int: 0,
        ..required()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(
        bytes,
        [0x08, 0x00, 0x18, 0x00],
        "explicit 0 is written, implicit 0 is not"
    );
    assert_eq!(Features::decode(&bytes).unwrap(), m);
}

#[test]
fn legacy_required_is_checked() {
    assert_eq!(
        Features::decode(&[]).unwrap_err().kind(),
        DecodeErrorKind::MissingRequired
    );
}

#[test]
fn repeated_fields_are_packed_unless_expanded() {
    let m = Features {
        packed: vec![1, 2],
        expanded: vec![3, 4],
        ..required()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(&bytes[2..], [0x22, 0x02, 0x01, 0x02, 0x28, 0x03, 0x28, 0x04]);
    assert_eq!(Features::decode(&bytes).unwrap(), m);
}

#[test]
fn enums_are_open_unless_closed() {
    // open = 9 stays in the field; closed = 9 goes to the unknown fields.
    let m = Features::decode(&[0x18, 0x00, 0x30, 0x09, 0x38, 0x09]).unwrap();
    assert_eq!(m.open.unwrap().to_i32(), 9);
    assert_eq!(m.closed, None);
    assert_eq!(m.unknown_fields.as_bytes(), [0x38, 0x09]);
    let known = Features {
        open: Some(Open::One.into()),
        closed: Some(Closed::One),
        ..required()
    };
    assert_eq!(Features::decode(&known.encode_to_vec()).unwrap(), known);
}

#[test]
fn delimited_messages_are_encoded_as_groups() {
    let child = Child {
        x: Some(5),
        ..Default::default()
    };
    let m = Features {
        delimited: Some(child.clone()),
        prefixed: Some(child.clone()),
        delimited_list: vec![child.clone()],
        ..required()
    };
    let bytes = m.encode_to_vec();
    assert_eq!(
        &bytes[2..],
        [0x43, 0x08, 0x05, 0x44, 0x4a, 0x02, 0x08, 0x05, 0x53, 0x08, 0x05, 0x54],
        "START_GROUP / END_GROUP for delimited, a length for prefixed"
    );
    assert_eq!(Features::decode(&bytes).unwrap(), m);
}

#[test]
fn strings_are_checked_unless_utf8_validation_is_none() {
    let mut bytes = required().encode_to_vec();
    let valid = bytes.len();
    // verified (11) = ff: an error. unverified (12) = ff: kept.
    bytes.extend([0x5a, 0x01, 0xff]);
    let err = Features::decode(&bytes).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::InvalidUtf8, valid + 2));
    bytes.truncate(valid);
    bytes.extend([0x62, 0x01, 0xff]);
    // unverified_map (13): {ff: fe}.
    bytes.extend([0x6a, 0x06, 0x0a, 0x01, 0xff, 0x12, 0x01, 0xfe]);
    let m = Features::decode(&bytes).unwrap();
    assert_eq!(m.unverified.as_ref().unwrap().as_bytes(), [0xff]);
    let (k, v) = m.unverified_map.iter().next().unwrap();
    assert_eq!((k.as_bytes(), v.as_bytes()), (&[0xff][..], &[0xfe][..]));
    assert_eq!(m.encode_to_vec(), bytes);
}

#[test]
fn known_string_extensions_are_checked_on_decode_unless_none() {
    use fastrs_tests::editions::{Extendable, CHECKED_TEXT, UNCHECKED_TEXT};
    // checked_text (100, tag a2 06) = "ok": kept as an extension.
    let ok = [0x08, 0x01, 0xa2, 0x06, 0x02, b'o', b'k'];
    let m = Extendable::decode(&ok).unwrap();
    assert_eq!(CHECKED_TEXT.get(&m).unwrap().as_deref(), Some("ok"));
    assert_eq!(m.encode_to_vec(), ok);
    // checked_text = c3 28: a decode error at the bad byte, as for a field.
    let bad = [0x08, 0x01, 0xa2, 0x06, 0x02, 0xc3, 0x28];
    let err = Extendable::decode(&bad).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (DecodeErrorKind::InvalidUtf8, 5));
    // unchecked_text (101, tag aa 06) = c3 28: kept, byte for byte.
    let lax = [0x08, 0x01, 0xaa, 0x06, 0x02, 0xc3, 0x28];
    let m = Extendable::decode(&lax).unwrap();
    assert_eq!(UNCHECKED_TEXT.get(&m).unwrap().unwrap().as_bytes(), [0xc3, 0x28]);
    assert_eq!(m.encode_to_vec(), lax);
    // Under another wire type the number is not the extension: unknown.
    let other = [0xa0, 0x06, 0x05];
    assert_eq!(Extendable::decode(&other).unwrap().encode_to_vec(), other);
}
