//! The decode cursor.

use crate::error::{DecodeError, DecodeErrorKind};
use crate::unknown::UnknownFields;
use crate::varint::{self, VarintError};
use crate::wire;

/// A cursor over the bytes of one message (or one length-delimited value).
///
/// It never reads past its slice: every length prefix is checked against the bytes
/// that remain before anything is sliced or allocated. Errors carry the absolute
/// byte offset in the original input.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    /// Absolute offset, in the original input, of the end of `buf`.
    end: usize,
    /// Field number of the last tag read, for error context.
    field: u32,
    /// Bytes of message values this decode may still allocate (see
    /// [`DecodeOptions`](crate::DecodeOptions)); nested readers take it and give
    /// back what is left.
    budget: usize,
}

/// A varint of three or more bytes at the start of `buf` (whose end is at
/// absolute offset `end`) and the bytes after it. Out of line and given the
/// bytes, not the reader: taking the reader's address would keep it in
/// memory on every path.
#[cold]
#[inline(never)]
fn long_varint(buf: &[u8], end: usize) -> Result<(u64, &[u8]), DecodeError> {
    match varint::decode(buf) {
        Ok((v, n)) => Ok((v, &buf[n..])),
        Err(e) => Err(DecodeError::new(varint_error_kind(e), end - buf.len())),
    }
}

#[inline(always)]
fn varint_error_kind(e: VarintError) -> DecodeErrorKind {
    match e {
        VarintError::Truncated => DecodeErrorKind::Truncated,
        VarintError::Overflow => DecodeErrorKind::VarintOverflow,
    }
}

/// [`Reader::count_run`] for length-delimited values (strings, bytes,
/// messages, map entries: the repeated fields whose growth costs most):
/// each step skips a length and its bytes and compares the next bytes with
/// the tag's encoding, without decoding the tag.
fn count_len_run(mut rest: &[u8], tag: u32) -> usize {
    let mut key = [0u8; 5];
    let key_len = varint::len(u64::from(tag));
    varint::encode_exact(u64::from(tag), &mut key[..key_len]);
    let key = &key[..key_len];
    // The bytes after the value starting at `rest`, past the next `key`.
    let next_value = |rest: &[u8]| -> Option<usize> {
        // Lengths below 16 KiB (one or two bytes) inline.
        let (len, n) = match *rest {
            [b0, ..] if b0 < 0x80 => (u64::from(b0), 1),
            [b0, b1, ..] if b1 < 0x80 => (u64::from(b0 & 0x7f) | u64::from(b1) << 7, 2),
            _ => varint::decode(rest).ok()?,
        };
        let end = n.checked_add(usize::try_from(len).ok()?)?;
        let after = strip_key(rest.get(end..)?, key)?;
        Some(rest.len() - after.len())
    };
    let mut count = 1;
    while let Some(skip) = next_value(rest) {
        rest = &rest[skip..];
        count += 1;
    }
    count
}

/// `bytes` without `key` (a tag's encoding) at its front, if it is there. One-
/// and two-byte keys (fields 1 to 2047) are compared inline, byte by byte: a
/// `memcmp` call for an unknown length cost more than the rest of a step
/// (and `strip_prefix` on a sliced key still made that call).
#[inline(always)]
fn strip_key<'b>(bytes: &'b [u8], key: &[u8]) -> Option<&'b [u8]> {
    match (key, bytes) {
        (&[k], &[b, ref rest @ ..]) => (b == k).then_some(rest),
        (&[k0, k1], &[b0, b1, ref rest @ ..]) => (b0 == k0 && b1 == k1).then_some(rest),
        (&[_] | &[_, _], _) => None,
        _ => bytes.strip_prefix(key),
    }
}

impl<'a> Reader<'a> {
    /// A reader over a whole input.
    #[must_use]
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_budget(buf, usize::MAX)
    }

    /// A reader over a whole input that may allocate `budget` bytes of message
    /// values and map entries.
    #[must_use]
    pub fn with_budget(buf: &'a [u8], budget: usize) -> Self {
        Self {
            buf,
            end: buf.len(),
            field: 0,
            budget,
        }
    }

    /// Charges an allocation of `bytes` (a new message value or map entry)
    /// against the budget.
    ///
    /// # Errors
    /// [`DecodeErrorKind::AllocationLimit`] once the budget is spent.
    #[inline]
    pub fn charge(&mut self, bytes: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.error(DecodeErrorKind::AllocationLimit)),
        }
    }

    /// Takes back the budget a finished nested reader has left.
    #[inline]
    pub fn absorb(&mut self, inner: &Reader<'_>) {
        self.budget = inner.budget;
    }

    /// The absolute offset of the next byte to read.
    #[inline]
    #[must_use]
    pub fn offset(&self) -> usize {
        self.end - self.buf.len()
    }

    /// True when every byte has been read.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The bytes not read yet, without consuming them.
    #[inline]
    #[must_use]
    pub fn rest(&self) -> &'a [u8] {
        self.buf
    }

    /// The field number of the last tag read (0 before the first).
    #[inline]
    #[must_use]
    pub fn field(&self) -> u32 {
        self.field
    }

    /// An error of `kind` at the current offset. Inline, so that only the
    /// offset goes to the out-of-line constructor: a reader whose address
    /// is never taken can live in registers.
    #[inline(always)]
    #[must_use]
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.offset())
    }

    #[inline(always)]
    fn varint_error(&self, e: VarintError) -> DecodeError {
        self.error(varint_error_kind(e))
    }

    /// Reads `tag` if it is what comes next (a constant of one or two bytes in
    /// generated code: the field expected in number order, the order encoders
    /// write): one compare instead of decoding a tag.
    #[inline(always)]
    pub fn read_tag_if(&mut self, tag: u32) -> bool {
        let next = match *self.buf {
            [b, ..] if tag < 0x80 => u32::from(b) == tag,
            [b0, b1, ..] if tag < 0x4000 => u32::from(b0) | u32::from(b1) << 8 == (tag & 0x7f) | 0x80 | (tag >> 7) << 8,
            _ => false,
        };
        if next {
            let len = if tag < 0x80 { 1 } else { 2 };
            self.buf = &self.buf[len..];
            self.field = wire::field_number(tag);
        }
        next
    }

    /// Reads a tag. The caller has checked that the reader is not empty. Field
    /// number 0 and bad wire types are left for [`Reader::skip_field`] to reject, so
    /// known tags cost nothing extra.
    #[inline(always)]
    pub fn read_tag(&mut self) -> Result<u32, DecodeError> {
        // Field numbers 16 to 2047 (two bytes) are as common in wide schemas
        // as the first 15.
        let tag = match self.read_short_varint() {
            #[allow(clippy::cast_possible_truncation)] // below 2^14
            Some(tag) => tag as u32,
            None => self.read_long_tag()?,
        };
        self.field = wire::field_number(tag);
        Ok(tag)
    }

    /// Reads a varint of one or two bytes; `None` (nothing read) for a longer
    /// one or at the end of the input.
    #[inline(always)]
    fn read_short_varint(&mut self) -> Option<u64> {
        // Each arm takes its own rest: slicing by a length merged from both
        // would check a bound the pattern has already proved.
        let (v, rest) = match *self.buf {
            [b, ref rest @ ..] if b < 0x80 => (u64::from(b), rest),
            [b0, b1, ref rest @ ..] if b1 < 0x80 => (u64::from(b0 & 0x7f) | u64::from(b1) << 7, rest),
            _ => return None,
        };
        self.buf = rest;
        Some(v)
    }

    /// A tag of three or more bytes (field numbers from 2048), read out of
    /// line: the inline paths of every decoder stay short.
    #[inline(always)]
    fn read_long_tag(&mut self) -> Result<u32, DecodeError> {
        let (v, rest) = long_varint(self.buf, self.end)?;
        self.buf = rest;
        u32::try_from(v).map_err(|_| self.error(DecodeErrorKind::InvalidFieldNumber))
    }

    /// A length of three or more bytes (16 KiB and up), read out of line:
    /// copying a value that long costs far more than the call.
    #[inline(always)]
    fn read_long_varint(&mut self) -> Result<u64, DecodeError> {
        let (v, rest) = long_varint(self.buf, self.end)?;
        self.buf = rest;
        Ok(v)
    }

    /// Reads a varint.
    #[inline(always)]
    pub fn read_varint(&mut self) -> Result<u64, DecodeError> {
        match varint::decode(self.buf) {
            Ok((v, n)) => {
                self.buf = &self.buf[n..];
                Ok(v)
            }
            Err(e) => Err(self.varint_error(e)),
        }
    }

    /// Reads four little-endian bytes.
    #[inline(always)]
    pub fn read_fixed32(&mut self) -> Result<u32, DecodeError> {
        match self.buf.split_first_chunk::<4>() {
            Some((bytes, rest)) => {
                self.buf = rest;
                Ok(u32::from_le_bytes(*bytes))
            }
            None => Err(self.error(DecodeErrorKind::Truncated)),
        }
    }

    /// Reads eight little-endian bytes.
    #[inline(always)]
    pub fn read_fixed64(&mut self) -> Result<u64, DecodeError> {
        match self.buf.split_first_chunk::<8>() {
            Some((bytes, rest)) => {
                self.buf = rest;
                Ok(u64::from_le_bytes(*bytes))
            }
            None => Err(self.error(DecodeErrorKind::Truncated)),
        }
    }

    /// Reads a length-delimited value and returns its bytes; the length is
    /// checked against the bytes that remain.
    #[inline(always)]
    pub fn read_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        // Up to 16 KiB (nested messages, longer strings) inline.
        let len = match self.read_short_varint() {
            Some(len) => len,
            None => self.read_long_varint()?,
        };
        // One check for the length and the split (a length past `usize` is
        // past the end too).
        match self.buf.split_at_checked(usize::try_from(len).unwrap_or(usize::MAX)) {
            Some((value, rest)) => {
                self.buf = rest;
                Ok(value)
            }
            None => Err(self.error(DecodeErrorKind::LengthOutOfBounds)),
        }
    }

    /// Reads a length-delimited value and returns a reader over it; `self` moves
    /// past it. Offsets in the sub-reader's errors stay absolute.
    #[inline(always)]
    pub fn read_nested(&mut self) -> Result<Reader<'a>, DecodeError> {
        let value = self.read_bytes()?;
        Ok(Reader {
            buf: value,
            end: self.offset(),
            field: 0,
            budget: self.budget,
        })
    }

    /// Skips the value of a field with `tag` whose tag has already been read, and
    /// appends the tag and value to `unknown` unchanged.
    ///
    /// Fails on field number 0, wire types 6 and 7, a stray END_GROUP, and on groups
    /// nested deeper than `depth`.
    pub fn skip_field(&mut self, tag: u32, depth: u32, unknown: &mut UnknownFields) -> Result<(), DecodeError> {
        let start = self.buf;
        self.skip_value(tag, depth)?;
        let consumed = start.len() - self.buf.len();
        unknown.push_field(tag, &start[..consumed]);
        Ok(())
    }

    /// How many values of the field with `tag` (just read) follow in a row from
    /// here, counting the one about to be read: encoders write a repeated
    /// field's values together, so this sizes a fresh vector or map once.
    /// Skims tags and lengths without decoding; stops at another tag, a group
    /// or a malformed field (the decode proper reports it). At least 1.
    #[must_use]
    pub fn count_run(&self, tag: u32) -> usize {
        if wire::wire_type(tag) == wire::LEN {
            return count_len_run(self.buf, tag);
        }
        let mut skim = Reader::new(self.buf);
        let mut count = 1;
        while wire::wire_type(tag) != wire::START_GROUP
            && skim.skip_value(tag, 0).is_ok()
            && matches!(skim.read_tag(), Ok(next) if next == tag)
        {
            count += 1;
        }
        count
    }

    /// The bytes of message values this decode may still allocate.
    #[inline]
    pub(crate) fn budget(&self) -> usize {
        self.budget
    }

    /// Skips the value of a field and discards it.
    pub fn skip_value(&mut self, tag: u32, depth: u32) -> Result<(), DecodeError> {
        if wire::field_number(tag) == 0 {
            return Err(self.error(DecodeErrorKind::InvalidFieldNumber));
        }
        match wire::wire_type(tag) {
            wire::VARINT => self.read_varint().map(drop),
            wire::FIXED64 => self.read_fixed64().map(drop),
            wire::LEN => self.read_bytes().map(drop),
            wire::START_GROUP => self.skip_group(wire::field_number(tag), depth),
            wire::END_GROUP => Err(self.error(DecodeErrorKind::UnexpectedEndGroup)),
            wire::FIXED32 => self.read_fixed32().map(drop),
            other => Err(self.error(DecodeErrorKind::InvalidWireType(other))),
        }
    }

    /// Reads the body of a group whose START_GROUP tag (field `number`) has been
    /// read: returns a reader over the fields before the matching END_GROUP, and
    /// moves `self` past that tag. `depth` is the depth allowed inside the group.
    pub fn read_group(&mut self, number: u32, depth: u32) -> Result<Reader<'a>, DecodeError> {
        let body = self.buf;
        let start = self.offset();
        let mut end_tag_len = 0;
        self.skip_group_tracking(number, depth, &mut end_tag_len)?;
        let body_len = body.len() - self.buf.len() - end_tag_len;
        Ok(Reader {
            buf: &body[..body_len],
            end: start + body_len,
            field: 0,
            budget: self.budget,
        })
    }

    /// Skips the fields of a group up to and including its END_GROUP tag.
    fn skip_group(&mut self, number: u32, depth: u32) -> Result<(), DecodeError> {
        let Some(depth) = depth.checked_sub(1) else {
            return Err(self.error(DecodeErrorKind::RecursionLimit));
        };
        let mut end_tag_len = 0;
        self.skip_group_tracking(number, depth, &mut end_tag_len)
    }

    /// Skips group fields up to and including the END_GROUP for `number`, and
    /// reports how many bytes that tag took.
    fn skip_group_tracking(&mut self, number: u32, depth: u32, end_tag_len: &mut usize) -> Result<(), DecodeError> {
        loop {
            if self.is_empty() {
                return Err(self.error(DecodeErrorKind::UnterminatedGroup));
            }
            let before = self.buf.len();
            let tag = self.read_tag()?;
            *end_tag_len = before - self.buf.len();
            if wire::wire_type(tag) == wire::END_GROUP {
                return if wire::field_number(tag) == number {
                    Ok(())
                } else {
                    Err(self.error(DecodeErrorKind::EndGroupMismatch))
                };
            }
            self.skip_value(tag, depth)?;
        }
    }
}
