//! The one scan of encoded fields, forgiving: what unknown fields, views'
//! unknown fields, the text printer and the descriptor reader walk.
//! Malformed input ends the scan with `None`, never a panic, so callers can
//! fall back (print the bytes as a string).

#[cfg(any(feature = "text", feature = "reflect"))]
use alloc::vec::Vec;

use crate::wire::varint;

/// Deepest group nesting [`scan`] follows, as binary decoding.
const MAX_GROUP_DEPTH: u32 = crate::wire::DEFAULT_RECURSION_LIMIT;

/// One encoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    /// A length-delimited value, without its length.
    Bytes(&'a [u8]),
    /// The fields of a group, without its start and end tags.
    Group(&'a [u8]),
    Fixed32(u32),
}

/// One field of a message: its number and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    pub number: u32,
    pub value: Value<'a>,
}

/// Every field of `buf` in order, or `None` if `buf` is not a well-formed
/// sequence of fields (including a field number of 0).
#[cfg(any(feature = "text", feature = "reflect"))]
pub fn scan(buf: &[u8]) -> Option<Vec<Record<'_>>> {
    let mut out = Vec::new();
    let mut rest = buf;
    while !rest.is_empty() {
        let (record, after) = next(rest, 0)?;
        let record = record?;
        out.push(record);
        rest = after;
    }
    Some(out)
}

/// Calls `each` on every field of `buf`; `None` if `buf` is malformed.
#[cfg(feature = "text")]
pub fn for_each<'a>(buf: &'a [u8], mut each: impl FnMut(Record<'a>)) -> Option<()> {
    let mut rest = buf;
    while !rest.is_empty() {
        let (record, after) = next(rest, 0)?;
        each(record?);
        rest = after;
    }
    Some(())
}

/// The next field of `buf` as its tag, its value's bytes as encoded (a
/// length-delimited value with its length, a group with its end tag), and
/// the bytes after it; `None` at the end of `buf` or at malformed input.
pub fn next_raw(buf: &[u8]) -> Option<(u32, &[u8], &[u8])> {
    let (tag, value) = varint(buf)?;
    let (record, rest) = next(buf, 0)?;
    record?;
    let tag = u32::try_from(tag).ok()?;
    Some((tag, &value[..value.len() - rest.len()], rest))
}

/// The varint at the front of `buf` and the bytes after it.
pub fn varint(buf: &[u8]) -> Option<(u64, &[u8])> {
    let (v, n) = varint::decode(buf).ok()?;
    Some((v, &buf[n..]))
}

/// The next field of `buf` and the bytes after it. The inner `None` is an
/// end-group tag (closing the group that `depth` counts); the outer one
/// malformed input.
#[allow(clippy::type_complexity)]
fn next(buf: &[u8], depth: u32) -> Option<(Option<Record<'_>>, &[u8])> {
    let (tag, rest) = varint(buf)?;
    let tag = u32::try_from(tag).ok()?;
    let number = tag >> 3;
    if number == 0 {
        return None;
    }
    let (value, rest) = match tag & 7 {
        0 => {
            let (v, rest) = varint(rest)?;
            (Value::Varint(v), rest)
        }
        1 => {
            let (bytes, rest) = rest.split_first_chunk::<8>()?;
            (Value::Fixed64(u64::from_le_bytes(*bytes)), rest)
        }
        2 => {
            let (len, rest) = varint(rest)?;
            let len = usize::try_from(len).ok().filter(|&l| l <= rest.len())?;
            let (bytes, rest) = rest.split_at(len);
            (Value::Bytes(bytes), rest)
        }
        3 => {
            let (body, rest) = group(rest, number, depth + 1)?;
            (Value::Group(body), rest)
        }
        4 => return (depth > 0).then_some((None, rest)),
        5 => {
            let (bytes, rest) = rest.split_first_chunk::<4>()?;
            (Value::Fixed32(u32::from_le_bytes(*bytes)), rest)
        }
        _ => return None,
    };
    Some((Some(Record { number, value }), rest))
}

/// The body of group `number` that starts `buf`, and the bytes after its
/// end tag.
fn group(buf: &[u8], number: u32, depth: u32) -> Option<(&[u8], &[u8])> {
    if depth > MAX_GROUP_DEPTH {
        return None;
    }
    let mut rest = buf;
    loop {
        let before = rest;
        let (record, after) = next(rest, depth)?;
        if record.is_none() {
            // The end tag must close this group, not another.
            let (tag, _) = varint(before)?;
            if tag >> 3 != u64::from(number) {
                return None;
            }
            let body_len = buf.len() - before.len();
            return Some((&buf[..body_len], after));
        }
        rest = after;
    }
}

#[cfg(all(test, feature = "text"))]
mod tests {
    use super::*;

    #[test]
    fn fields_of_every_wire_type() {
        let buf = [
            0x08, 0x96, 0x01, // 1: varint 150
            0x11, 1, 0, 0, 0, 0, 0, 0, 0, // 2: fixed64 1
            0x1a, 2, b'h', b'i', // 3: "hi"
            0x23, 0x08, 0x01, 0x24, // 4: group { 1: 1 }
            0x2d, 2, 0, 0, 0, // 5: fixed32 2
        ];
        let records = scan(&buf).unwrap();
        let values: Vec<_> = records.iter().map(|r| (r.number, r.value)).collect();
        assert_eq!(
            values,
            [
                (1, Value::Varint(150)),
                (2, Value::Fixed64(1)),
                (3, Value::Bytes(b"hi")),
                (4, Value::Group(&[0x08, 0x01])),
                (5, Value::Fixed32(2)),
            ]
        );
    }

    #[test]
    fn malformed_input_is_none() {
        for bad in [
            &[0x08][..],         // truncated varint
            &[0x0a, 5, 1],       // length past the end
            &[0x23, 0x08, 0x01], // unterminated group
            &[0x23, 0x2c],       // group closed by another number
            &[0x24],             // end tag outside a group
            &[0x00, 0x00],       // field number 0
            &[0x0e],             // wire type 6
            &[0x0d, 1, 2],       // truncated fixed32
        ] {
            assert_eq!(scan(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn deep_groups_stop_at_the_limit() {
        let depth = MAX_GROUP_DEPTH as usize + 1;
        let mut buf = vec![0x0b; depth];
        buf.extend(std::iter::repeat_n(0x0c, depth));
        assert_eq!(scan(&buf), None);
        let ok = &buf[1..buf.len() - 1];
        assert!(scan(ok).is_some());
    }
}
