//! Wire facts per field: the tag value and its pre-encoded bytes. Size, write and
//! read all take them from here, so they cannot disagree.

use super::{Kind, Scalar};

/// `VARINT`, `I64`, `LEN`, `I32` as in the encoding spec.
pub const VARINT: u8 = 0;
pub const FIXED64: u8 = 1;
pub const LEN: u8 = 2;
pub const START_GROUP: u8 = 3;
pub const FIXED32: u8 = 5;

/// A field's tag: the varint value the decoder matches, and its bytes the
/// encoder writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub value: u32,
    pub bytes: Vec<u8>,
}

impl Tag {
    #[must_use]
    pub fn new(number: u32, wire_type: u8) -> Self {
        let value = (number << 3) | u32::from(wire_type);
        let mut bytes = Vec::with_capacity(5);
        let mut v = value;
        while v >= 0x80 {
            bytes.push((v as u8) | 0x80);
            v >>= 7;
        }
        bytes.push(v as u8);
        Tag { value, bytes }
    }

    /// Bytes the tag takes on the wire.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// The wire type of one value of `kind` (unpacked).
#[must_use]
pub fn wire_type(kind: &Kind) -> u8 {
    match kind {
        Kind::Scalar(s) => match s {
            Scalar::Fixed64 | Scalar::Sfixed64 | Scalar::Double => FIXED64,
            Scalar::Fixed32 | Scalar::Sfixed32 | Scalar::Float => FIXED32,
            _ => VARINT,
        },
        Kind::Enum { .. } => VARINT,
        Kind::Message { group: Some(_), .. } => START_GROUP,
        Kind::String { .. } | Kind::Bytes { .. } | Kind::Message { .. } => LEN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_bytes() {
        assert_eq!(Tag::new(1, VARINT).bytes, [0x08]);
        assert_eq!(Tag::new(2, LEN).bytes, [0x12]);
        assert_eq!(Tag::new(15, LEN).bytes, [0x7a]);
        assert_eq!(Tag::new(16, VARINT).bytes, [0x80, 0x01]);
        assert_eq!(Tag::new(536_870_911, FIXED32).bytes, [0xfd, 0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(Tag::new(536_870_911, FIXED32).value, 0xffff_fffd);
    }
}
