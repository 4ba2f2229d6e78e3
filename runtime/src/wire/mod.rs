//! Wire types and tags (<https://protobuf.dev/programming-guides/encoding/#structure>).
//!
//! Also the wire layer of the runtime, which depends on nothing above it:
//! varints, SIMD kernels, UTF-8 checks, decode errors, the reader and the
//! writer, the record scanner and unknown fields.

pub(crate) mod error;
pub(crate) mod reader;
pub(crate) mod records;
pub(crate) mod simd;
pub(crate) mod unknown;
pub(crate) mod utf8;
pub mod varint;
pub(crate) mod writer;

/// `VARINT`: int32, int64, uint32, uint64, sint32, sint64, bool, enum.
pub const VARINT: u8 = 0;
/// `I64`: fixed64, sfixed64, double.
pub const FIXED64: u8 = 1;
/// `LEN`: string, bytes, embedded messages, packed repeated fields.
pub const LEN: u8 = 2;
/// `SGROUP`: start of a group (deprecated, proto2).
pub const START_GROUP: u8 = 3;
/// `EGROUP`: end of a group.
pub const END_GROUP: u8 = 4;
/// `I32`: fixed32, sfixed32, float.
pub const FIXED32: u8 = 5;

/// The largest field number protobuf allows (2^29 - 1).
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

/// Recursion limit applied by [`Message::fast_read`](crate::Message::fast_read):
/// messages and groups nested deeper than this fail to decode.
pub const DEFAULT_RECURSION_LIMIT: u32 = 100;

/// The tag (key) value of a field: `field_number << 3 | wire_type`.
#[inline]
#[must_use]
pub const fn tag(field_number: u32, wire_type: u8) -> u32 {
    (field_number << 3) | wire_type as u32
}

/// The field number of a tag.
#[inline]
#[must_use]
pub const fn field_number(tag: u32) -> u32 {
    tag >> 3
}

/// The wire type of a tag.
#[inline]
#[must_use]
pub const fn wire_type(tag: u32) -> u8 {
    (tag & 7) as u8
}
