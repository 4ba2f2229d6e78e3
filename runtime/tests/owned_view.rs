//! `OwnedView`: a view that owns the `bytes::Bytes` it borrows from. `make
//! miri` runs these under Miri, which would report a view outliving its
//! bytes or reading them after they are freed.
#![cfg(feature = "bytes")]

use fastrs::bytes::Bytes;
use fastrs::well_known::{value, BytesValue, Struct, Timestamp, Value};
use fastrs::{Message, OwnedView, View};

fn encoded_blob(len: usize) -> Bytes {
    let m = BytesValue {
        value: (0..len).map(|i| i as u8).collect(),
        ..Default::default()
    };
    Bytes::from(m.encode_to_vec())
}

#[test]
fn the_view_borrows_from_its_bytes_and_moves_with_them() {
    let bytes = encoded_blob(300);
    let view = OwnedView::<BytesValue>::decode(bytes.clone()).unwrap();
    let value = view.get().value;
    assert_eq!(value.len(), 300);
    assert!(bytes.as_ptr_range().contains(&value.as_ptr()), "borrowed, not copied");
    // Moved to another thread, the view still reads its bytes.
    let handle = std::thread::spawn(move || {
        assert_eq!(view.get().value[299], 43);
        view.to_message().value.len()
    });
    drop(bytes);
    assert_eq!(handle.join().unwrap(), 300);
}

#[test]
fn the_last_handle_frees_the_bytes_after_the_view() {
    let view = OwnedView::<BytesValue>::decode(encoded_blob(64)).unwrap();
    let copy = view.clone();
    drop(view);
    assert_eq!(copy.get().value.len(), 64);
    let bytes = copy.into_bytes();
    assert_eq!(BytesValue::decode(&bytes).unwrap().value.len(), 64);
}

#[test]
fn nested_and_recursive_views_read_from_owned_bytes() {
    let ts = Timestamp {
        seconds: 1_700_000_000,
        nanos: 5,
        ..Default::default()
    };
    let view = OwnedView::<Timestamp>::decode(Bytes::from(ts.encode_to_vec())).unwrap();
    assert_eq!((view.get().seconds, view.get().nanos), (1_700_000_000, 5));
    // `Struct` holds itself through `Value` (its map values are read on demand).
    let number = |n| Value {
        kind: Some(value::Kind::NumberValue(n)),
        ..Default::default()
    };
    let inner = Struct {
        fields: [("n".to_string(), number(2.5))].into(),
        ..Default::default()
    };
    let outer = Struct {
        fields: [(
            "inner".to_string(),
            Value {
                kind: Some(value::Kind::StructValue(inner)),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    };
    let view = OwnedView::<Struct>::decode(Bytes::from(outer.encode_to_vec())).unwrap();
    let Some(value::KindView::StructValue(inner)) = view.get().fields.get(&"inner").and_then(|v| v.kind) else {
        panic!("a struct value");
    };
    let n = inner.fields.get(&"n").and_then(|v| v.kind);
    assert!(matches!(n, Some(value::KindView::NumberValue(x)) if x == 2.5));
    assert_eq!(view.to_message(), outer);
}

#[test]
fn malformed_bytes_fail_as_the_message_does() {
    let bad = Bytes::from_static(&[0x0a, 0x05, 1, 2]);
    let owned = BytesValue::decode(&bad).unwrap_err().kind();
    let view = OwnedView::<BytesValue>::decode(bad).unwrap_err().kind();
    assert_eq!(view, owned);
    let ok = OwnedView::<BytesValue>::decode(encoded_blob(3)).unwrap();
    assert_eq!(ok.get().size(), ok.bytes().len(), "a view encodes as its bytes");
}
