//! Partial decoding with `fastrs::Mask`: only the selected fields are read,
//! nested masks filter inside message fields, the rest is skipped.

use fastrs::{Mask, Message};
use fastrs_tests::fast::fastrs::test as t;
use fastrs_tests::random::{Rng, Schema};
use fastrs_tests::DESCRIPTORS;
use proptest::prelude::*;

fn scalars() -> t::Scalars {
    t::Scalars {
        f_double: 1.5,
        f_int32: -3,
        f_int64: 1 << 40,
        f_uint32: 7,
        f_fixed64: 99,
        f_bool: true,
        f_string: "kept".into(),
        f_bytes: b"dropped".to_vec(),
        f_enum: t::Color::Green.into(),
        ..Default::default()
    }
}

#[test]
fn only_selected_fields_are_read() {
    let bytes = scalars().encode_to_vec();
    let read: t::Scalars = Mask::new().field(3).field(14).decode(&bytes).unwrap();
    let expected = t::Scalars {
        f_int32: -3,
        f_string: "kept".into(),
        ..Default::default()
    };
    assert_eq!(read, expected);
    assert!(read.unknown_fields.is_empty(), "skipped fields are not kept");
}

#[test]
fn an_empty_mask_reads_nothing_and_a_full_one_everything() {
    let bytes = scalars().encode_to_vec();
    assert_eq!(Mask::new().decode::<t::Scalars>(&bytes).unwrap(), t::Scalars::default());
    let all = (1..=16).fold(Mask::new(), Mask::field);
    assert_eq!(all.decode::<t::Scalars>(&bytes).unwrap(), scalars());
}

fn outer() -> t::Outer {
    use t::outer::{inner::Kind, Inner};
    let inner = |name: &str| Inner {
        kind: Kind::A.into(),
        name: name.into(),
        ..Default::default()
    };
    t::Outer {
        inner: Some(inner("one")),
        inners: vec![inner("a"), inner("b")],
        kind: Kind::A.into(),
        ..Default::default()
    }
}

#[test]
fn nested_masks_filter_inside_message_fields() {
    use t::outer::Inner;
    let bytes = outer().encode_to_vec();
    // `inner.name` and `inners.kind`.
    let mask = Mask::new().nested(1, Mask::new().field(2)).with_path(&[2, 1]);
    let read: t::Outer = mask.decode(&bytes).unwrap();
    let kind = |name: &str| Inner {
        name: name.into(),
        ..Default::default()
    };
    assert_eq!(read.inner, Some(kind("one")));
    let kinds: Vec<_> = read.inners.iter().map(|i| (i.kind, i.name.as_str())).collect();
    assert_eq!(kinds, [(t::outer::inner::Kind::A.into(), ""); 2]);
    assert_eq!(read.kind, t::Outer::default().kind);
}

#[test]
fn masks_merge_and_a_whole_field_stays_whole() {
    let both = Mask::new().with_path(&[1, 2]).with_path(&[1, 1]);
    assert_eq!(both, Mask::new().nested(1, Mask::new().field(1).field(2)));
    let whole = Mask::new().field(1).with_path(&[1, 2]);
    assert_eq!(whole, Mask::new().field(1));
    let bytes = outer().encode_to_vec();
    assert_eq!(whole.decode::<t::Outer>(&bytes).unwrap().inner, outer().inner);
}

#[test]
fn skipped_fields_are_checked_only_as_far_as_skipping_needs() {
    // f_string (14) holds bytes that are not UTF-8: an error when read, not
    // when skipped.
    let mut bytes = t::Scalars {
        f_int32: 5,
        ..Default::default()
    }
    .encode_to_vec();
    bytes.extend_from_slice(&[0x72, 0x02, 0xff, 0xfe]);
    let read: t::Scalars = Mask::new().field(3).decode(&bytes).unwrap();
    assert_eq!(read.f_int32, 5);
    assert!(Mask::new().field(14).decode::<t::Scalars>(&bytes).is_err());
    // Broken framing is an error wherever it is.
    let cut = &bytes[..bytes.len() - 1];
    assert!(Mask::new().field(3).decode::<t::Scalars>(cut).is_err());
}

#[test]
fn unknown_fields_are_kept_when_selected() {
    let mut bytes = scalars().encode_to_vec();
    bytes.extend_from_slice(&[0xc8, 0x3e, 0x01]); // field 1001, varint 1
    let kept: t::Scalars = Mask::new().field(1001).decode(&bytes).unwrap();
    assert_eq!(kept.unknown_fields.as_bytes(), [0xc8, 0x3e, 0x01]);
    let dropped: t::Scalars = Mask::new().field(3).decode(&bytes).unwrap();
    assert!(dropped.unknown_fields.is_empty());
}

#[test]
fn a_view_reads_only_what_the_mask_selects() {
    use fastrs::View;
    let bytes = outer().encode_to_vec();
    let mask = Mask::new().nested(1, Mask::new().field(2)).with_path(&[2, 1]);
    let mut scratch = Vec::new();
    let view: t::OuterView<'_> = mask.view(&bytes, &mut scratch).unwrap();
    assert_eq!(view.to_message(), mask.decode::<t::Outer>(&bytes).unwrap());
    assert_eq!(scratch, mask.filter::<t::Outer>(&bytes).unwrap());
    // The scratch buffer is cleared on each use, so it can be reused.
    let view: t::OuterView<'_> = Mask::new().field(4).view(&bytes, &mut scratch).unwrap();
    assert_eq!(view.to_message().kind, outer().kind);
    assert!(view.inner.is_none());
}

#[test]
fn paths_name_fields_through_the_descriptors() {
    let mask = Mask::from_paths::<t::Outer>(&["inner.name", "inners.kind"]).unwrap();
    assert_eq!(mask, Mask::new().with_path(&[1, 2]).with_path(&[2, 1]));
    let error = Mask::from_paths::<t::Outer>(&["inner.nope"]).unwrap_err();
    assert_eq!(error.path(), "inner.nope");
    assert!(
        Mask::from_paths::<t::Outer>(&["kind.x"]).is_err(),
        "kind is not a message"
    );
}

thread_local!(static SCHEMA: Schema = Schema::load(DESCRIPTORS));

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Selecting every field whole reads what a full decode reads; selecting
    /// a subset reads what a full decode of just those records reads.
    #[test]
    fn a_mask_reads_what_a_decode_of_its_records_reads(seed in any::<u64>(), keep in any::<u32>()) {
        let bytes = SCHEMA.with(|s| s.encode(".fastrs.test.Everything", &mut Rng::new(seed), 4, &mut false));
        let numbers: Vec<u32> = (1..=32).filter(|n| keep & (1 << (n - 1)) != 0).collect();
        let mask = numbers.iter().copied().fold(Mask::new(), Mask::field);
        let masked = mask.decode::<t::Everything>(&bytes);
        let mut scratch = Vec::new();
        let view = mask.view::<t::EverythingView<'_>>(&bytes, &mut scratch).map(|v| fastrs::View::to_message(&v));
        prop_assert_eq!(view.is_ok(), masked.is_ok());
        if let (Ok(v), Ok(m)) = (&view, &masked) {
            prop_assert_eq!(v.size(), m.size());
            #[allow(clippy::eq_op)]
            let comparable = m == m;
            prop_assert!(!comparable || v == m);
        }
        let records = top_level_records(&bytes, &numbers);
        let expected = t::Everything::decode(&records);
        match (masked, expected) {
            // Maps encode in their iteration order: compare values (unless
            // a NaN makes a message unequal to itself) and sizes.
            (Ok(m), Ok(e)) => {
                #[allow(clippy::eq_op)]
                let comparable = e == e;
                prop_assert!(!comparable || m == e);
                prop_assert_eq!(m.size(), e.size());
            }
            (m, e) => prop_assert_eq!(m.is_ok(), e.is_ok()),
        }
    }
}

/// The records of `bytes` whose field numbers are in `numbers`, by a
/// decode of the whole message's records with prost's wire helpers.
fn top_level_records(bytes: &[u8], numbers: &[u32]) -> Vec<u8> {
    use prost::encoding::{decode_key, skip_field, DecodeContext};
    let mut buf = bytes;
    let mut out = Vec::new();
    while !buf.is_empty() {
        let start = buf;
        let (number, wire_type) = decode_key(&mut buf).expect("valid input");
        skip_field(wire_type, number, &mut buf, DecodeContext::default()).expect("valid input");
        if numbers.contains(&number) {
            out.extend_from_slice(&start[..start.len() - buf.len()]);
        }
    }
    out
}
