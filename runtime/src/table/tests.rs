//! The interpreters over every kind of entry, on a hand-made message (run
//! under Miri too: `cargo +nightly miri test -p fastrs --lib table`).

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{clear, merge, size, write_backward, Entry, Expanded, ExpandedClosed, Implicit, ImplicitClosed};
use super::{Member, Optional, OptionalClosed, Packed, PackedClosed, Repeated, Tab, TabBox, Table, Tabled};
use crate::codec;
use crate::message::enumeration::Enum;
use crate::message::enumeration::EnumValue;
use crate::message::lax_string::LaxString;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;
use alloc::boxed::Box;

/// A message with a field of each kind an entry handles, and one the hooks
/// handle.
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
    open: EnumValue<Color>,
    message: Inner,
    maybe: Option<u64>,
    maybe_message: Option<Inner>,
    texts: Vec<String>,
    messages: Vec<Inner>,
    packed: Vec<i32>,
    closed: Color,
    maybe_closed: Option<Color>,
    closeds: Vec<Color>,
    hooked: Vec<u32>,
    far: u32,
    expanded: Vec<u32>,
    expanded_closed: Vec<Color>,
    tabbed: Option<Inner>,
    tabbeds: Vec<Inner>,
    boxed: Option<Box<Inner>>,
    unknown: UnknownFields,
}

/// A message with a table of its own, held by `All`'s `Tab` entries, and
/// holding itself (through a `Box`).
#[derive(Default, Debug, PartialEq)]
struct Inner {
    value: i32,
    inner: Option<Box<Inner>>,
    extra: i64,
    unknown: UnknownFields,
}

/// A closed enum that names one number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(i32)]
enum Color {
    #[default]
    Red = 0,
}

impl Enum for Color {
    const FULL_NAME: &'static str = "test.Color";
    fn from_i32(value: i32) -> Option<Self> {
        (value == 0).then_some(Color::Red)
    }
    fn to_i32(self) -> i32 {
        self as i32
    }
    fn as_str_name(self) -> &'static str {
        "RED"
    }
    fn from_str_name(name: &str) -> Option<Self> {
        (name == "RED").then_some(Color::Red)
    }
}

// Both messages' `Message` methods as size-mode code writes them.
impl crate::Message for All {
    const FULL_NAME: &'static str = "test.All";
    crate::__table_methods!(unknown);
}

impl crate::Message for Inner {
    const FULL_NAME: &'static str = "test.Inner";
    crate::__table_methods!(unknown);
}

// `Inner`'s table as size-mode code writes it; `All`'s by hand.
impl Tabled for Inner {
    crate::__table! {
        Inner, unknown, [0, 0, 1, 2];
        0x08 value: Implicit<codec::Int32>;
        0x12 inner: Optional<TabBox<Inner>>;
        0x18 extra: Implicit<codec::Int64>;
    }
}

impl Tabled for All {
    const TABLE: &'static Table<Self> = {
        static TABLE: Table<All, [Entry<All>; 34]> = Table::new(
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
                Entry::new::<Implicit<codec::OpenEnum<Color>>>(17 << 3, 0, crate::table_field!(All, open)),
                Entry::new::<Implicit<codec::Msg<Inner>>>(18 << 3 | 2, 0, crate::table_field!(All, message)),
                Entry::new::<Optional<codec::Uint64>>(19 << 3, 0, crate::table_field!(All, maybe)),
                Entry::new::<Optional<codec::Msg<Inner>>>(20 << 3 | 2, 0, crate::table_field!(All, maybe_message)),
                Entry::new::<Repeated<codec::Str>>(21 << 3 | 2, 0, crate::table_field!(All, texts)),
                Entry::new::<Repeated<codec::Msg<Inner>>>(22 << 3 | 2, 0, crate::table_field!(All, messages)),
                Entry::new::<Packed<codec::Int32>>(23 << 3 | 2, 23 << 3, crate::table_field!(All, packed)),
                Entry::new::<ImplicitClosed<Color>>(24 << 3, 0, crate::table_field!(All, closed)),
                Entry::new::<OptionalClosed<Color>>(25 << 3, 0, crate::table_field!(All, maybe_closed)),
                Entry::new::<PackedClosed<Color>>(26 << 3 | 2, 26 << 3, crate::table_field!(All, closeds)),
                Entry::hooked(27 << 3),
                Entry::checked_utf8(28 << 3 | 2),
                Entry::new::<Expanded<codec::Uint32>>(29 << 3, 29 << 3 | 2, crate::table_field!(All, expanded)),
                Entry::new::<ExpandedClosed<Color>>(30 << 3, 30 << 3 | 2, crate::table_field!(All, expanded_closed)),
                Entry::new::<Optional<Tab<Inner>>>(31 << 3 | 2, 0, crate::table_field!(All, tabbed)),
                Entry::new::<Repeated<Tab<Inner>>>(32 << 3 | 2, 0, crate::table_field!(All, tabbeds)),
                Entry::new::<Optional<TabBox<Inner>>>(33 << 3 | 2, 0, crate::table_field!(All, boxed)),
                // Past the index: found by binary search.
                Entry::new::<Implicit<codec::Uint32>>(5000 << 3, 0, crate::table_field!(All, far)),
            ],
            &[
                0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                27, 28, 29, 30, 31, 32,
            ],
            crate::table_field!(All, unknown),
        );
        &TABLE
    };

    /// Field 27: each record's tag and value, kept in `hooked`.
    fn merge_hooked(&mut self, r: &mut Reader<'_>, _depth: u32, tag: u32) -> Result<(), DecodeError> {
        let v = r.read_varint()?;
        self.hooked.push(tag);
        self.hooked.push(u32::try_from(v).unwrap_or(u32::MAX));
        Ok(())
    }

    fn size_hooked(&self, tag: u32) -> usize {
        assert_eq!(tag, 27 << 3);
        self.hooked.chunks(2).map(|_| 3).sum()
    }

    fn write_hooked(&self, tag: u32, w: &mut Writer<'_>) {
        assert_eq!(tag, 27 << 3);
        for pair in self.hooked.chunks(2).rev() {
            #[allow(clippy::cast_possible_truncation)] // small values in these tests
            w.put_slice(&[0xd8, 0x01, pair[1] as u8]); // field 27's tag, and the value
        }
    }

    fn clear_hooked(&mut self, tag: u32) {
        assert_eq!(tag, 27 << 3);
        self.hooked.clear();
    }
}

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
    merge(&mut all, &mut Reader::new(input), 100)?;
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
    field_bytes(18, &[0x08, 0x03], &mut b); // value: 3
    field_varint(19, 0, &mut b);
    field_bytes(20, &[0x18, 0x04], &mut b); // extra: 4
    field_bytes(20, &[0x08, 0x05], &mut b); // merges: value 5
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
    assert_eq!((all.message.value, all.message.extra), (3, 0));
    assert_eq!(all.maybe, Some(0));
    let held = all.maybe_message.as_ref().unwrap();
    assert_eq!((held.value, held.extra), (5, 4));
    assert_eq!(all.texts, ["a", "b"]);
    assert_eq!(all.messages.len(), 2);
    assert_eq!(all.messages[0].value, 1);
    assert_eq!(all.packed, [1, 2, 3]);
    assert_eq!((all.closed, all.maybe_closed), (Color::Red, Some(Color::Red)));
    assert_eq!(all.closeds.len(), 3);
    assert_eq!(all.hooked, [27 << 3, 9]);
    assert_eq!(all.far, 77);
    assert!(all.unknown.is_empty());
}

#[test]
fn what_no_entry_reads_is_kept_as_unknown() {
    let mut b = Vec::new();
    field_varint(99, 1, &mut b); // no entry, in the index's range of numbers
    field_varint(34, 2, &mut b); // no entry, past the index
    field_bytes(1, &[1], &mut b); // the wrong wire type
    field_varint(24, 7, &mut b); // a number the closed enum does not name
    field_varint(25, 8, &mut b);
    field_bytes(26, &[0, 9], &mut b);
    field_varint(26, 10, &mut b);
    field_bytes(28, b"ok", &mut b); // a checked extension
    let all = decode(&b).unwrap();
    assert_eq!(all.int32, 0);
    assert_eq!((all.closed, all.maybe_closed), (Color::Red, None));
    assert_eq!(all.closeds, [Color::Red]);
    let mut expected = Vec::new();
    field_varint(99, 1, &mut expected);
    field_varint(34, 2, &mut expected);
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

/// A message with no field 2, which its index names as the first entry.
#[derive(Default, Debug)]
struct Gap {
    one: i32,
    three: i64,
    unknown: UnknownFields,
}

impl crate::Message for Gap {
    const FULL_NAME: &'static str = "test.Gap";
    crate::__table_methods!(unknown);
}

impl Tabled for Gap {
    crate::__table! {
        Gap, unknown, [0, 0, 0, 1];
        0x08 one: Implicit<codec::Int32>;
        0x18 three: Implicit<codec::Int64>;
    }
}

/// The index names the first entry for a number without one; a record of
/// such a number, or of number 0 (whose tag, 0 for a varint, no entry
/// reads), never reaches the first entry's field.
#[test]
fn numbers_without_an_entry_do_not_reach_the_first_entry() {
    let gap = <Gap as crate::Message>::decode(&[0x10, 0x05, 0x18, 0x07]).unwrap();
    assert_eq!((gap.one, gap.three), (0, 7));
    assert_eq!(gap.unknown.as_bytes(), [0x10, 0x05]);
    for input in [[0x00, 0x05], [0x02, 0x00]] {
        let err = <Gap as crate::Message>::decode(&input).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::InvalidFieldNumber, "{input:?}");
    }
}

/// A `Gap` whose field 3 is required, as a proto2 message's would be.
#[derive(Default, Debug)]
struct Needs {
    one: i32,
    three: Option<i64>,
    unknown: UnknownFields,
}

impl crate::Message for Needs {
    const FULL_NAME: &'static str = "test.Needs";
    crate::__table_methods!(unknown);

    fn check_required(&self) -> Result<(), DecodeError> {
        match self.three {
            Some(_) => Ok(()),
            None => Err(DecodeError::missing_required("test.Needs.three", 3)),
        }
    }
}

impl Tabled for Needs {
    crate::__table! {
        Needs, unknown, [0, 0, 0, 1];
        0x08 one: Implicit<codec::Int32>;
        0x18 three: Optional<codec::Int64>;
    }
}

/// `decode` reads a message and then checks it with the type's own
/// `check_required`: a message it checks, one it refuses, and a malformed
/// record (after a field was read) each give what `Message::decode` gives.
#[test]
fn decode_checks_required_fields_after_reading() {
    let needs = <Needs as crate::Message>::decode(&[0x08, 0x02, 0x18, 0x07]).unwrap();
    assert_eq!((needs.one, needs.three), (2, Some(7)));
    let err = <Needs as crate::Message>::decode(&[0x08, 0x02]).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::MissingRequired);
    assert!(err.to_string().contains("test.Needs.three"), "{err}");
    let err = <Needs as crate::Message>::decode(&[0x18, 0x07, 0x08]).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Truncated);
}

/// Messages of `Gap`s, which are written unchecked when their longest
/// encoding fits.
#[derive(Default, Debug)]
struct Gaps {
    many: Vec<Gap>,
    one: Option<Gap>,
    unknown: UnknownFields,
}

impl crate::Message for Gaps {
    const FULL_NAME: &'static str = "test.Gaps";
    crate::__table_methods!(unknown);
}

impl Tabled for Gaps {
    crate::__table! {
        Gaps, unknown, [0, 0, 1];
        0x0a many: Repeated<Tab<Gap>>;
        0x12 one: Optional<Tab<Gap>>;
    }
}

/// A message of scalars is written without checking each field when its
/// longest encoding fits, and field by field when it may not: the same
/// bytes with any room, unknown fields too, on its own or nested.
#[test]
fn scalar_messages_write_the_same_bytes_with_any_room() {
    assert_eq!(super::erased::<Gap>().bound, 1 + 10 + 1 + 10);
    assert_eq!(super::erased::<Gaps>().bound, super::run::NO_BOUND);
    // Both fields at their longest, ten bytes each, and field 4 unknown.
    let mut gap = vec![0x08];
    varint(u64::MAX, &mut gap);
    gap.push(0x18);
    varint(u64::MAX, &mut gap);
    gap.extend_from_slice(&[0x20, 0x01]);
    let short = [0x18, 0x07];
    let mut gaps = Vec::new();
    for g in [&gap[..], &short, &[], &gap] {
        field_bytes(1, g, &mut gaps);
    }
    field_bytes(2, &gap, &mut gaps);
    for room in 0..=gaps.len() + 8 {
        let mut out = Vec::with_capacity(room);
        crate::Message::encode_append(&<Gap as crate::Message>::decode(&gap).unwrap(), &mut out);
        assert_eq!(out, gap, "room {room}");
        let mut out = Vec::with_capacity(room);
        crate::Message::encode_append(&<Gaps as crate::Message>::decode(&gaps).unwrap(), &mut out);
        assert_eq!(out, gaps, "room {room}");
    }
}

/// A message whose last field, the first a write meets, is bytes.
#[derive(Default, Debug)]
struct Tail {
    one: i32,
    blob: Vec<u8>,
    unknown: UnknownFields,
}

impl crate::Message for Tail {
    const FULL_NAME: &'static str = "test.Tail";
    crate::__table_methods!(unknown);
}

impl Tabled for Tail {
    crate::__table! {
        Tail, unknown, [0, 0, 1];
        0x08 one: Implicit<codec::Int32>;
        0x12 blob: Implicit<codec::Bytes>;
    }
}

/// A message whose last field is too large for a checked write is sized
/// first without starting one: the same bytes as `encode_to_vec`, around
/// that size and with any room, after what `out` held.
#[test]
fn a_large_last_field_gives_the_same_bytes_with_any_room() {
    use crate::Message;
    assert_eq!(super::erased::<Tail>().bound, super::run::SIZED_LAST);
    for len in [0, 1, 505, 506, 507, 508, 509, 510, 511, 512, 513, 2000] {
        let tail = Tail {
            one: 7,
            blob: (0..=u8::MAX).cycle().take(len).collect(),
            ..Tail::default()
        };
        let alone = tail.encode_to_vec();
        for room in [0, 1, 64, alone.len(), alone.len() + 100, 4096] {
            let mut out = Vec::with_capacity(3 + room);
            out.extend_from_slice(b"pre");
            tail.encode_append(&mut out);
            assert_eq!(out[..3], *b"pre", "len {len}, room {room}");
            assert_eq!(out[3..], alone[..], "len {len}, room {room}");
        }
    }
}

/// A table's index that names no entry does not make a table.
#[test]
#[should_panic(expected = "names an entry it does not have")]
fn an_index_past_the_entries_is_refused() {
    let _ = Table::<Inner, [Entry<Inner>; 1]>::new(
        [Entry::new::<Implicit<codec::Int32>>(
            1 << 3,
            0,
            crate::table_field!(Inner, value),
        )],
        &[0, 1],
        crate::table_field!(Inner, unknown),
    );
}

/// Encodes `all` by its table, checking that the size it gave is the size
/// written.
fn encode(all: &All) -> Vec<u8> {
    let n = size(all);
    let mut buf = vec![0; n];
    let mut w = Writer::new(&mut buf);
    write_backward(all, &mut w);
    assert_eq!(w.remaining(), 0, "size() is the written length");
    buf
}

/// One record of every kind an entry writes, in the order and encoding
/// that fastrs writes: decoded and encoded again, it comes back the same.
#[test]
fn every_kind_of_entry_writes_what_it_reads() {
    let b = every_kind_encoded();
    let all = decode(&b).unwrap();
    assert_eq!(all.tabbed.as_ref().map(|m| m.value), Some(7));
    assert_eq!(all.tabbeds.len(), 2);
    assert_eq!(all.tabbeds[1].inner.as_ref().map(|m| m.value), Some(2));
    assert!(all.boxed.as_ref().is_some_and(|m| m.inner.is_some()));
    assert_eq!(encode(&all), b);
}

/// `encode_append` writes without sizing first when the vector has room,
/// and sizes first when it has not: with every amount of spare room, from
/// none to more than the message needs (running out inside each kind of
/// field, nested messages included, and short of a scalar's longest
/// encoding but not of its own), it appends the same bytes.
#[test]
fn encode_append_gives_the_same_bytes_with_any_room() {
    let b = every_kind_encoded();
    let all = decode(&b).unwrap();
    let prefix = [0xaa, 0xbb];
    for room in 0..=b.len() + 16 {
        let mut out = Vec::with_capacity(prefix.len() + room);
        out.extend_from_slice(&prefix);
        crate::Message::encode_append(&all, &mut out);
        assert_eq!(out[..2], prefix, "room {room}");
        assert_eq!(out[2..], b[..], "room {room}");
    }
    assert_eq!(crate::Message::encode_to_vec(&all), b);
    // A value too large to move cheaply: sized first, with any room.
    let mut big = decode(&b).unwrap();
    big.tabbed.as_mut().unwrap().extra = 1;
    big.text = "x".repeat(600);
    let expected = encode(&big);
    for room in [0, expected.len(), 4 * expected.len()] {
        let mut out = Vec::with_capacity(room);
        crate::Message::encode_append(&big, &mut out);
        assert_eq!(out, expected, "room {room}");
    }
}

/// [`every_kind_of_entry_writes_what_it_reads`]'s input.
fn every_kind_encoded() -> Vec<u8> {
    let mut b = Vec::new();
    field_varint(1, (-5i64) as u64, &mut b);
    field_varint(2, (-6i64) as u64, &mut b);
    field_varint(3, 7, &mut b);
    field_varint(4, u64::MAX, &mut b);
    field_varint(5, 17, &mut b);
    field_varint(6, 19, &mut b);
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
    field_bytes(18, &[0x08, 0x03], &mut b);
    field_varint(19, 0, &mut b); // present, though 0
    field_bytes(20, &[], &mut b); // present, though empty
    field_bytes(21, b"a", &mut b);
    field_bytes(21, b"", &mut b);
    field_bytes(22, &[0x08, 0x01], &mut b);
    field_bytes(22, &[], &mut b);
    field_bytes(23, &[1, 0x7f], &mut b);
    field_varint(25, 0, &mut b);
    field_bytes(26, &[0, 0], &mut b);
    field_varint(27, 9, &mut b);
    field_varint(27, 4, &mut b);
    field_varint(29, 5, &mut b);
    field_varint(29, 6, &mut b);
    field_varint(30, 0, &mut b);
    field_bytes(31, &[0x08, 0x07], &mut b);
    field_bytes(32, &[], &mut b);
    field_bytes(32, &[0x08, 0x01, 0x12, 0x02, 0x08, 0x02], &mut b); // 1, holding 2
    field_bytes(33, &[0x12, 0x00], &mut b); // an empty message, holding one
    field_varint(5000, 77, &mut b);
    field_varint(6000, 1, &mut b); // unknown: written last
    b
}

#[test]
fn nested_messages_merge_and_keep_their_errors_and_limits() {
    let mut b = Vec::new();
    field_bytes(31, &[0x08, 0x07], &mut b);
    field_bytes(31, &[0x12, 0x02, 0x08, 0x03], &mut b); // merges into the same message
    let all = decode(&b).unwrap();
    let held = all.tabbed.unwrap();
    assert_eq!((held.value, held.inner.map(|m| m.value)), (7, Some(3)));
    // A message nested deeper than the limit.
    let mut deep = vec![0x08, 0x01];
    for _ in 0..5 {
        let mut outer = Vec::new();
        field_bytes(2, &deep, &mut outer);
        deep = outer;
    }
    let mut b = Vec::new();
    field_bytes(33, &deep, &mut b);
    let mut all = All::default();
    let err = merge(&mut all, &mut Reader::new(&b), 4).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::RecursionLimit);
    // A truncated nested message names its type.
    let mut b = Vec::new();
    field_bytes(32, &[0x08], &mut b);
    let err = decode(&b).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Truncated);
    assert!(err.to_string().contains("test.Inner"), "{err}");
}

/// What an empty `All` writes: its message field, which a message's
/// singular field always holds.
const EMPTY: [u8; 3] = [0x92, 0x01, 0];

#[test]
fn implicit_fields_at_their_defaults_are_not_written() {
    let all = All::default();
    assert_eq!(encode(&all), EMPTY);
    let all = All {
        maybe: Some(0),
        ..All::default()
    };
    assert_eq!(encode(&all), [0x92, 0x01, 0, 0x98, 0x01, 0]);
}

#[test]
fn clear_resets_every_field_and_keeps_buffers() {
    let mut b = Vec::new();
    field_varint(1, 3, &mut b);
    field_bytes(14, b"text", &mut b);
    field_bytes(16, &[1], &mut b);
    field_bytes(18, &[0x08, 0x03], &mut b);
    field_varint(19, 1, &mut b);
    field_bytes(21, b"a", &mut b);
    field_varint(24, 0, &mut b);
    field_varint(25, 0, &mut b);
    field_varint(27, 1, &mut b);
    field_varint(29, 1, &mut b);
    field_bytes(31, &[], &mut b);
    field_bytes(32, &[], &mut b);
    field_bytes(33, &[], &mut b);
    field_varint(6000, 1, &mut b);
    let mut all = decode(&b).unwrap();
    let text = all.text.capacity();
    clear(&mut all);
    assert_eq!(encode(&all), EMPTY);
    assert_eq!(all.text.capacity(), text);
    assert!(all.hooked.is_empty() && all.texts.is_empty() && all.expanded.is_empty());
    assert!(all.tabbed.is_none() && all.tabbeds.is_empty() && all.boxed.is_none());
    assert_eq!((all.maybe, all.maybe_closed, all.message.value), (None, None, 0));
    assert!(all.unknown.is_empty());
}

#[test]
fn clear_zeroes_every_scalar_and_empties_the_rest() {
    let mut all = decode(&every_kind_encoded()).unwrap();
    let scalars = |a: &All| {
        (
            (a.int32, a.int64, a.uint32, a.uint64, a.sint32, a.sint64, a.boolean),
            (a.fixed32, a.fixed64, a.sfixed32, a.sfixed64, a.far),
            (a.float.to_bits(), a.double.to_bits()),
        )
    };
    assert_ne!(scalars(&all).0, Default::default());
    clear(&mut all);
    assert_eq!(scalars(&all), Default::default());
    assert_eq!(encode(&all), EMPTY);
    assert!(all.text.is_empty() && all.lax.is_empty() && all.bytes.is_empty());
    assert!(all.messages.is_empty() && all.packed.is_empty() && all.closeds.is_empty());
}

/// `zero` sets exactly the bytes of its run, for every length up to past
/// its inline ones, at an odd address.
#[test]
fn zero_sets_exactly_its_run() {
    for len in 0..=140 {
        let mut buf = [0xffu8; 160];
        // SAFETY: bytes 3 to 3 + len are within `buf`.
        unsafe { super::run::zero(buf.as_mut_ptr().add(3), len) };
        let zeroed: Vec<usize> = (0..buf.len()).filter(|&i| buf[i] == 0).collect();
        assert_eq!(zeroed, (3..3 + len).collect::<Vec<_>>(), "{len}");
    }
}

/// Clearing zeroes each scalar field's bytes exactly once, through the
/// table's runs and those of the entries it visits, and steps over the
/// other scalar entries and over those it has nothing to do for.
#[test]
fn clearing_zeroes_runs_that_cover_each_scalar_once() {
    let table = super::erased::<All>();
    let mut visited = Vec::new();
    let mut next = usize::from(table.clear_first);
    while let Some(e) = table.entries.get(next) {
        visited.push(next);
        next = usize::from(e.clear_next);
    }
    assert_eq!(next, table.entries.len());
    let mut zeroed: Vec<u32> = (table.scalars.iter())
        .flat_map(|run| run.offset..run.offset + run.len)
        .collect();
    assert!(table.scalars.iter().all(|run| run.len > 0));
    for &at in &visited {
        let e = &table.entries[at];
        let width = super::clearing::scalar_width(e);
        assert!(width == 0 || e.zero > 0, "entry {at} visited and zeroes nothing");
        zeroed.extend(e.offset..e.offset + u32::from(e.zero));
    }
    let mut scalar_bytes: Vec<u32> = (table.entries.iter())
        .flat_map(|e| e.offset..e.offset + u32::try_from(super::clearing::scalar_width(e)).unwrap())
        .collect();
    zeroed.sort_unstable();
    scalar_bytes.sort_unstable();
    assert_eq!(zeroed, scalar_bytes);
    // 14 scalars in fewer runs; the hooked read of a run (none here) and
    // field 28's check are not visited.
    let heads = visited.iter().filter(|&&at| table.entries[at].zero > 0).count();
    assert!(heads + 2 < 14, "{heads} runs and the table's 2 for 14 scalars");
    assert!(!visited.contains(&27), "field 28 has nothing to clear");
    // A oneof's run is cleared at its first member only.
    let pick = super::erased::<Pick>();
    let mut next = usize::from(pick.clear_first);
    let mut members = 0;
    while let Some(e) = pick.entries.get(next) {
        members += usize::from(matches!(e.op, super::Op::Member(_)));
        next = usize::from(e.clear_next);
    }
    assert_eq!(members, 2, "one visit for each of Pick's two runs");
}

/// A message with a oneof in two runs of members (2 to 5, and 7 to 8, with
/// field 6 between them), one member of each kind of value, as size-mode
/// code writes it.
#[derive(Default, Debug, PartialEq)]
struct Pick {
    before: i32,
    choice: Option<Choice>,
    middle: i32,
    unknown: UnknownFields,
}

#[derive(Debug, PartialEq)]
enum Choice {
    Number(i64),
    Text(String),
    Node(Inner),
    Boxed(Box<Inner>),
    Open(EnumValue<Color>),
    Wrapped(Inner),
}

impl crate::Message for Pick {
    const FULL_NAME: &'static str = "test.Pick";
    crate::__table_methods!(unknown);
}

impl Tabled for Pick {
    crate::__table! {
        Pick, unknown, [0, 0, 1, 2, 3, 4, 5, 6, 7];
        0x08 before: Implicit<codec::Int32>;
        0x10 ..= 5 choice = Choice::Number: Member<codec::Int64>;
        0x1a choice = Choice::Text: Member<codec::Str>;
        0x22 choice = Choice::Node: Member<Tab<Inner>>;
        0x2a choice = Choice::Boxed: Member<TabBox<Inner>>;
        0x30 middle: Implicit<codec::Int32>;
        0x38 ..= 8 choice = Choice::Open: Member<codec::OpenEnum<Color>>;
        0x42 choice = Choice::Wrapped: Member<codec::Msg<Inner>>;
    }

    fn which_member(&self, _tag: u32) -> u32 {
        match &self.choice {
            Some(Choice::Number(_)) => 0x10,
            Some(Choice::Text(_)) => 0x1a,
            Some(Choice::Node(_)) => 0x22,
            Some(Choice::Boxed(_)) => 0x2a,
            Some(Choice::Open(_)) => 0x38,
            Some(Choice::Wrapped(_)) => 0x42,
            None => 0,
        }
    }

    fn clear_hooked(&mut self, _tag: u32) {
        self.choice = None;
    }
}

fn pick(input: &[u8]) -> Pick {
    crate::Message::decode(input).unwrap()
}

/// Each member reads into its variant (the last one read wins, and a
/// message member read again merges), and writes back at its number, even
/// at its default value; every way of encoding gives the same bytes.
#[test]
fn oneof_members_read_and_write_through_their_entries() {
    let inner = |value: i32| Inner {
        value,
        ..Inner::default()
    };
    let cases: [(&[u8], Choice); 7] = [
        (&[0x10, 0x00], Choice::Number(0)),
        (&[0x10, 0x7f], Choice::Number(127)),
        (&[0x1a, 0x02, b'h', b'i'], Choice::Text("hi".into())),
        (&[0x22, 0x02, 0x08, 0x05], Choice::Node(inner(5))),
        (&[0x2a, 0x02, 0x08, 0x06], Choice::Boxed(Box::new(inner(6)))),
        (&[0x38, 0x03], Choice::Open(EnumValue::from(3))),
        (&[0x42, 0x02, 0x08, 0x07], Choice::Wrapped(inner(7))),
    ];
    for (member, choice) in cases {
        // Between fields 1 and 6, or after field 6: where its run is.
        let mut input = vec![0x08, 0x01];
        let late = member[0] >= 0x38;
        if !late {
            input.extend_from_slice(member);
        }
        input.extend_from_slice(&[0x30, 0x06]);
        if late {
            input.extend_from_slice(member);
        }
        let m = pick(&input);
        assert_eq!(m.choice.as_ref(), Some(&choice), "{input:x?}");
        assert_eq!((m.before, m.middle), (1, 6));
        assert_eq!(crate::Message::encode_to_vec(&m), input);
        assert_eq!(crate::Message::size(&m), input.len());
        for room in 0..=input.len() + 8 {
            let mut out = Vec::with_capacity(room);
            crate::Message::encode_append(&m, &mut out);
            assert_eq!(out, input, "room {room}");
        }
    }
    // The last member read wins; a message member read twice merges.
    assert_eq!(
        pick(&[0x10, 0x01, 0x1a, 0x00]).choice,
        Some(Choice::Text(String::new()))
    );
    assert_eq!(pick(&[0x1a, 0x00, 0x10, 0x02]).choice, Some(Choice::Number(2)));
    let merged = pick(&[0x22, 0x02, 0x08, 0x05, 0x22, 0x02, 0x18, 0x09]);
    let Some(Choice::Node(node)) = merged.choice else {
        panic!("{merged:?}")
    };
    assert_eq!((node.value, node.extra), (5, 9));
    // An error inside a member's message names it.
    let e = pick_err(&[0x22, 0x01, 0x08]);
    assert_eq!(e.kind(), DecodeErrorKind::Truncated);
    assert!(e.to_string().contains("test.Inner"), "{e}");
}

fn pick_err(input: &[u8]) -> DecodeError {
    <Pick as crate::Message>::decode(input).unwrap_err()
}

/// `clear` empties the oneof; a message with nothing set writes nothing.
#[test]
fn clear_empties_the_oneof() {
    let mut m = pick(&[0x08, 0x01, 0x1a, 0x01, b'x']);
    crate::Message::clear(&mut m);
    assert_eq!(m, Pick::default());
    assert!(crate::Message::encode_to_vec(&m).is_empty());
}

/// The last entry of each run of members points back to the run's first,
/// where a write (which goes backwards) finds the run's hooks.
#[test]
fn runs_are_marked_at_their_last_entry() {
    let backs: Vec<u16> = super::erased::<Pick>().entries.iter().map(|e| e.back).collect();
    assert_eq!(backs, [0, 0, 0, 0, 3, 0, 0, 1]);
}

/// A message with a recycler: every kind of field whose values its table
/// keeps (and a boxed message, which it does not), as size-mode code
/// writes it.
#[derive(Default, Debug)]
struct Kept {
    texts: Vec<String>,
    blobs: Vec<Vec<u8>>,
    laxes: Vec<LaxString>,
    items: Vec<Inner>,
    one: Option<Inner>,
    boxed: Option<Box<Inner>>,
    unknown: UnknownFields,
    recycle: crate::Recycler,
}

impl crate::Message for Kept {
    const FULL_NAME: &'static str = "test.Kept";
    crate::__table_methods!(unknown);
}

impl Tabled for Kept {
    crate::__table! {
        Kept, unknown, recycle, [0, 0, 1, 2, 3, 4, 5];
        0x0a texts: Repeated<codec::Str>;
        0x12 blobs: Repeated<codec::Bytes>;
        0x1a laxes: Repeated<codec::LaxStr>;
        0x22 items: Repeated<Tab<Inner>>;
        0x2a one: Optional<Tab<Inner>>;
        0x32 boxed: Optional<TabBox<Inner>>;
    }
}

/// An `Inner` with `value` and `extra`, encoded.
fn inner(value: u64, extra: Option<u64>) -> Vec<u8> {
    let mut b = Vec::new();
    field_varint(1, value, &mut b);
    if let Some(extra) = extra {
        field_varint(3, extra, &mut b);
    }
    b
}

/// A `Kept` of `n` items and texts, and each other field once; the items'
/// `extra` only if `extra`.
fn kept_input(n: u64, extra: bool) -> Vec<u8> {
    let mut b = Vec::new();
    for i in 0..n {
        field_bytes(1, format!("text {i}").as_bytes(), &mut b);
    }
    field_bytes(2, &[1, 2], &mut b);
    field_bytes(3, &[b'a', 0xff], &mut b);
    for i in 0..n {
        field_bytes(4, &inner(i + 1, extra.then_some(i + 10)), &mut b);
    }
    field_bytes(5, &inner(7, Some(8)), &mut b);
    field_bytes(6, &inner(9, None), &mut b);
    b
}

/// What a `Kept` holds, without its recycler, as text.
fn held(k: &Kept) -> String {
    let laxes: Vec<&[u8]> = k.laxes.iter().map(|l| l.as_bytes()).collect();
    let items: Vec<(i32, i64)> = k.items.iter().map(|i| (i.value, i.extra)).collect();
    let one = k.one.as_ref().map(|i| (i.value, i.extra));
    let boxed = k.boxed.as_ref().map(|i| (i.value, i.extra));
    format!("{:?} {:?} {laxes:?} {items:?} {one:?} {boxed:?}", k.texts, k.blobs)
}

fn fresh_kept(input: &[u8]) -> Kept {
    let mut k = Kept::default();
    merge(&mut k, &mut Reader::new(input), 100).unwrap();
    k
}

#[test]
fn clear_keeps_values_that_decoding_reads_into_again() {
    let input = kept_input(3, true);
    let mut k = fresh_kept(&input);
    let mut texts: Vec<*const u8> = k.texts.iter().map(|t| t.as_ptr()).collect();
    let items = k.items.as_ptr();
    clear(&mut k);
    assert!(k.texts.is_empty() && k.blobs.is_empty() && k.laxes.is_empty() && k.items.is_empty());
    assert!(k.one.is_none() && k.boxed.is_none());
    assert!(encode_kept(&k).is_empty());

    merge(&mut k, &mut Reader::new(&input), 100).unwrap();
    assert_eq!(held(&k), held(&fresh_kept(&input)));
    // The same buffers, read into again.
    let mut again: Vec<*const u8> = k.texts.iter().map(|t| t.as_ptr()).collect();
    texts.sort();
    again.sort();
    assert_eq!(texts, again);
    assert_eq!(k.items.as_ptr(), items);
}

#[test]
fn kept_messages_are_cleared_before_they_are_read_into() {
    let mut k = fresh_kept(&kept_input(3, true));
    clear(&mut k);
    // Fewer items than kept, without `extra`: none of the old values stay.
    let fewer = kept_input(2, false);
    merge(&mut k, &mut Reader::new(&fewer), 100).unwrap();
    assert_eq!(held(&k), held(&fresh_kept(&fewer)));
    // More items than kept, and items apart (another field between).
    clear(&mut k);
    let mut more = kept_input(4, true);
    field_bytes(1, b"between", &mut more);
    field_bytes(4, &inner(40, None), &mut more);
    merge(&mut k, &mut Reader::new(&more), 100).unwrap();
    assert_eq!(held(&k), held(&fresh_kept(&more)));
    assert_eq!(k.items.len(), 5);
    // Over and over, the same.
    for _ in 0..3 {
        clear(&mut k);
        merge(&mut k, &mut Reader::new(&fewer), 100).unwrap();
        assert_eq!(held(&k), held(&fresh_kept(&fewer)));
    }
}

#[test]
fn a_failed_decode_into_kept_messages_clears_and_decodes_again() {
    let mut k = fresh_kept(&kept_input(3, true));
    clear(&mut k);
    let mut bad = Vec::new();
    field_bytes(4, &inner(1, None), &mut bad);
    field_bytes(4, &[0x08], &mut bad); // a varint cut short
    assert!(merge(&mut k, &mut Reader::new(&bad), 100).is_err());
    clear(&mut k);
    let input = kept_input(3, false);
    merge(&mut k, &mut Reader::new(&input), 100).unwrap();
    assert_eq!(held(&k), held(&fresh_kept(&input)));
}

fn encode_kept(k: &Kept) -> Vec<u8> {
    let mut out = vec![0; size(k)];
    let mut w = Writer::new(&mut out);
    write_backward(k, &mut w);
    assert_eq!(w.remaining(), 0);
    out
}
