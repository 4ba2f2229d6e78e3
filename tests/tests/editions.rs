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
