//! The interpreter over every kind of entry, on a hand-made message (run
//! under Miri too: `cargo +nightly miri test -p fastrs --lib table`).

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{merge, Entry, Hooks, Implicit, ImplicitClosed, Optional, OptionalClosed, Packable, Repeated};
use super::{RepeatedClosed, Table};
use crate::codec;
use crate::message::enumeration::EnumValue;
use crate::message::lax_string::LaxString;
use crate::well_known::{Duration, NullValue};
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;

/// A message with a field of each kind an entry reads, and one the hooks read.
#[derive(Default, Debug)]
struct All {
    int32: i32,
    int64: i64,
    uint32: u32,
    uint64: u64,
    sint32: i32,
    sint64: i64,
    boolean: bool,
    fixed32: u32,
    fixed64: u64,
    sfixed32: i32,
    sfixed64: i64,
    float: f32,
    double: f64,
    text: String,
    lax: LaxString,
    bytes: Vec<u8>,
    open: EnumValue<NullValue>,
    message: Duration,
    maybe: Option<u64>,
    maybe_message: Option<Duration>,
    texts: Vec<String>,
    messages: Vec<Duration>,
    packed: Vec<i32>,
    closed: NullValue,
    maybe_closed: Option<NullValue>,
    closeds: Vec<NullValue>,
    hooked: Vec<u32>,
    far: u32,
    unknown: UnknownFields,
}

impl Hooks for All {
    fn merge_hooked(&mut self, r: &mut Reader<'_>, _depth: u32, tag: u32) -> Result<(), DecodeError> {
        let v = r.read_varint()?;
        self.hooked.push(tag);
        self.hooked.push(u32::try_from(v).unwrap_or(u32::MAX));
        Ok(())
    }
}

static TABLE: Table<All, 29> = Table::new(
    [
        Entry::new::<Implicit<codec::Int32>>(1 << 3, 0, crate::table_field!(All, int32)),
        Entry::new::<Implicit<codec::Int64>>(2 << 3, 0, crate::table_field!(All, int64)),
        Entry::new::<Implicit<codec::Uint32>>(3 << 3, 0, crate::table_field!(All, uint32)),
        Entry::new::<Implicit<codec::Uint64>>(4 << 3, 0, crate::table_field!(All, uint64)),
        Entry::new::<Implicit<codec::Sint32>>(5 << 3, 0, crate::table_field!(All, sint32)),
        Entry::new::<Implicit<codec::Sint64>>(6 << 3, 0, crate::table_field!(All, sint64)),
        Entry::new::<Implicit<codec::Bool>>(7 << 3, 0, crate::table_field!(All, boolean)),
        Entry::new::<Implicit<codec::Fixed32>>(8 << 3 | 5, 0, crate::table_field!(All, fixed32)),
        Entry::new::<Implicit<codec::Fixed64>>(9 << 3 | 1, 0, crate::table_field!(All, fixed64)),
        Entry::new::<Implicit<codec::Sfixed32>>(10 << 3 | 5, 0, crate::table_field!(All, sfixed32)),
        Entry::new::<Implicit<codec::Sfixed64>>(11 << 3 | 1, 0, crate::table_field!(All, sfixed64)),
        Entry::new::<Implicit<codec::Float>>(12 << 3 | 5, 0, crate::table_field!(All, float)),
        Entry::new::<Implicit<codec::Double>>(13 << 3 | 1, 0, crate::table_field!(All, double)),
        Entry::new::<Implicit<codec::Str>>(14 << 3 | 2, 0, crate::table_field!(All, text)),
        Entry::new::<Implicit<codec::LaxStr>>(15 << 3 | 2, 0, crate::table_field!(All, lax)),
        Entry::new::<Implicit<codec::Bytes>>(16 << 3 | 2, 0, crate::table_field!(All, bytes)),
        Entry::new::<Implicit<codec::OpenEnum<NullValue>>>(17 << 3, 0, crate::table_field!(All, open)),
        Entry::new::<Implicit<codec::Msg<Duration>>>(18 << 3 | 2, 0, crate::table_field!(All, message)),
        Entry::new::<Optional<codec::Uint64>>(19 << 3, 0, crate::table_field!(All, maybe)),
        Entry::new::<Optional<codec::Msg<Duration>>>(20 << 3 | 2, 0, crate::table_field!(All, maybe_message)),
        Entry::new::<Repeated<codec::Str>>(21 << 3 | 2, 0, crate::table_field!(All, texts)),
        Entry::new::<Repeated<codec::Msg<Duration>>>(22 << 3 | 2, 0, crate::table_field!(All, messages)),
        Entry::new::<Packable<codec::Int32>>(23 << 3 | 2, 23 << 3, crate::table_field!(All, packed)),
        Entry::new::<ImplicitClosed<NullValue>>(24 << 3, 0, crate::table_field!(All, closed)),
        Entry::new::<OptionalClosed<NullValue>>(25 << 3, 0, crate::table_field!(All, maybe_closed)),
        Entry::new::<RepeatedClosed<NullValue>>(26 << 3 | 2, 26 << 3, crate::table_field!(All, closeds)),
        Entry::hooked(27 << 3),
        Entry::checked_utf8(28 << 3 | 2),
        // Past the index: found by binary search.
        Entry::new::<Implicit<codec::Uint32>>(5000 << 3, 0, crate::table_field!(All, far)),
    ],
    &[
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
    ],
    crate::table_field!(All, unknown),
);

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v.to_le_bytes()[0] | 0x80);
        v >>= 7;
    }
    out.push(v.to_le_bytes()[0]);
}

fn tag(number: u32, wire: u8, out: &mut Vec<u8>) {
    varint(u64::from(number << 3 | u32::from(wire)), out);
}

fn field_varint(number: u32, v: u64, out: &mut Vec<u8>) {
    tag(number, 0, out);
    varint(v, out);
}

fn field_bytes(number: u32, v: &[u8], out: &mut Vec<u8>) {
    tag(number, 2, out);
    varint(v.len() as u64, out);
    out.extend_from_slice(v);
}

fn decode(input: &[u8]) -> Result<All, DecodeError> {
    let mut all = All::default();
    merge(&mut all, &TABLE, &mut Reader::new(input), 100)?;
    Ok(all)
}

#[test]
fn every_kind_of_entry_reads_its_field() {
    let mut b = Vec::new();
    field_varint(1, (-5i64) as u64, &mut b);
    field_varint(2, (-6i64) as u64, &mut b);
    field_varint(3, 7, &mut b);
    field_varint(4, u64::MAX, &mut b);
    field_varint(5, 17, &mut b); // zigzag -9
    field_varint(6, 19, &mut b); // zigzag -10
    field_varint(7, 1, &mut b);
    tag(8, 5, &mut b);
    b.extend_from_slice(&11u32.to_le_bytes());
    tag(9, 1, &mut b);
    b.extend_from_slice(&12u64.to_le_bytes());
    tag(10, 5, &mut b);
    b.extend_from_slice(&(-13i32).to_le_bytes());
    tag(11, 1, &mut b);
    b.extend_from_slice(&(-14i64).to_le_bytes());
    tag(12, 5, &mut b);
    b.extend_from_slice(&1.5f32.to_le_bytes());
    tag(13, 1, &mut b);
    b.extend_from_slice(&2.5f64.to_le_bytes());
    field_bytes(14, "héllo".as_bytes(), &mut b);
    field_bytes(15, &[0xff, b'x'], &mut b);
    field_bytes(16, &[1, 2, 3], &mut b);
    field_varint(17, 42, &mut b);
    field_bytes(18, &[0x08, 0x03], &mut b); // seconds: 3
    field_varint(19, 0, &mut b);
    field_bytes(20, &[0x10, 0x04], &mut b); // nanos: 4
    field_bytes(20, &[0x08, 0x05], &mut b); // merges: seconds 5
    field_bytes(21, b"a", &mut b);
    field_bytes(21, b"b", &mut b);
    field_bytes(22, &[0x08, 0x01], &mut b);
    field_bytes(22, &[], &mut b);
    field_bytes(23, &[1, 2], &mut b); // packed
    field_varint(23, 3, &mut b); // and not
    field_varint(24, 0, &mut b);
    field_varint(25, 0, &mut b);
    field_bytes(26, &[0, 0], &mut b);
    field_varint(26, 0, &mut b);
    field_varint(27, 9, &mut b);
    field_varint(5000, 77, &mut b);
    let all = decode(&b).unwrap();
    assert_eq!(
        (
            all.int32,
            all.int64,
            all.uint32,
            all.uint64,
            all.sint32,
            all.sint64,
            all.boolean
        ),
        (-5, -6, 7, u64::MAX, -9, -10, true)
    );
    assert_eq!(
        (all.fixed32, all.fixed64, all.sfixed32, all.sfixed64),
        (11, 12, -13, -14)
    );
    assert_eq!((all.float, all.double), (1.5, 2.5));
    assert_eq!(all.text, "héllo");
    assert_eq!(all.lax.as_bytes(), [0xff, b'x']);
    assert_eq!(all.bytes, [1, 2, 3]);
    assert_eq!(all.open.to_i32(), 42);
    assert_eq!((all.message.seconds, all.message.nanos), (3, 0));
    assert_eq!(all.maybe, Some(0));
    let held = all.maybe_message.as_ref().unwrap();
    assert_eq!((held.seconds, held.nanos), (5, 4));
    assert_eq!(all.texts, ["a", "b"]);
    assert_eq!(all.messages.len(), 2);
    assert_eq!(all.messages[0].seconds, 1);
    assert_eq!(all.packed, [1, 2, 3]);
    assert_eq!(
        (all.closed, all.maybe_closed),
        (NullValue::NullValue, Some(NullValue::NullValue))
    );
    assert_eq!(all.closeds.len(), 3);
    assert_eq!(all.hooked, [27 << 3, 9]);
    assert_eq!(all.far, 77);
    assert!(all.unknown.is_empty());
}

#[test]
fn what_no_entry_reads_is_kept_as_unknown() {
    let mut b = Vec::new();
    field_varint(99, 1, &mut b); // no entry, in the index's range of numbers
    field_varint(29, 2, &mut b); // no entry, past the index
    field_bytes(1, &[1], &mut b); // the wrong wire type
    field_varint(24, 7, &mut b); // a number the closed enum does not name
    field_varint(25, 8, &mut b);
    field_bytes(26, &[0, 9], &mut b);
    field_varint(26, 10, &mut b);
    field_bytes(28, b"ok", &mut b); // a checked extension
    let all = decode(&b).unwrap();
    assert_eq!(all.int32, 0);
    assert_eq!((all.closed, all.maybe_closed), (NullValue::NullValue, None));
    assert_eq!(all.closeds, [NullValue::NullValue]);
    let mut expected = Vec::new();
    field_varint(99, 1, &mut expected);
    field_varint(29, 2, &mut expected);
    field_bytes(1, &[1], &mut expected);
    field_varint(24, 7, &mut expected);
    field_varint(25, 8, &mut expected);
    field_varint(26, 9, &mut expected);
    field_varint(26, 10, &mut expected);
    field_bytes(28, b"ok", &mut expected);
    assert_eq!(all.unknown.as_bytes(), expected);
}

#[test]
fn malformed_records_are_errors() {
    let mut bad_utf8 = Vec::new();
    field_bytes(14, &[0xff], &mut bad_utf8);
    let mut bad_extension = Vec::new();
    field_bytes(28, &[0xc0], &mut bad_extension);
    let truncated = vec![1 << 3, 0x80];
    let mut too_long = Vec::new();
    tag(16, 2, &mut too_long);
    varint(10, &mut too_long);
    for (input, kind) in [
        (bad_utf8, DecodeErrorKind::InvalidUtf8),
        (bad_extension, DecodeErrorKind::InvalidUtf8),
        (truncated, DecodeErrorKind::Truncated),
        (too_long, DecodeErrorKind::LengthOutOfBounds),
    ] {
        assert_eq!(decode(&input).unwrap_err().kind(), kind, "{input:?}");
    }
}
