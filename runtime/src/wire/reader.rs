//! The decode cursor.

use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::unknown::UnknownFields;
use crate::wire::varint::{self, VarintError};

/// The longest encoding of a tag: a varint of 32 bits.
const MAX_TAG_LEN: usize = 5;

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
    /// The shared buffer `buf` lies in, when decoding from one: `bytes`
    /// fields generated as `bytes::Bytes` are then sliced from it, not copied.
    #[cfg(feature = "bytes")]
    source: Option<&'a bytes::Bytes>,
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

/// A tag of three to five bytes at the start of `buf` (as [`long_varint`])
/// and the bytes after it. A longer tag is malformed even if its value fits,
/// as in every reference implementation; the error is reported after it, as
/// for a tag above 32 bits.
#[cold]
#[inline(never)]
fn long_tag(buf: &[u8], end: usize) -> Result<(u32, &[u8]), DecodeError> {
    let (v, rest) = long_varint(buf, end)?;
    match u32::try_from(v) {
        Ok(tag) if buf.len() - rest.len() <= MAX_TAG_LEN => Ok((tag, rest)),
        _ => Err(DecodeError::new(DecodeErrorKind::InvalidFieldNumber, end - rest.len())),
    }
}

#[inline(always)]
fn varint_error_kind(e: VarintError) -> DecodeErrorKind {
    match e {
        VarintError::Truncated => DecodeErrorKind::Truncated,
        VarintError::Overflow => DecodeErrorKind::VarintOverflow,
    }
}

/// How many values of a field follow in a row from `rest`, which starts at a
/// value (see [`Reader::count_run`]): each step skips a value, whose bytes
/// `value_len` gives, and compares the next bytes with `key` (the tag's
/// encoding), without decoding the tag.
#[inline(always)]
fn count_steps(mut rest: &[u8], key: &[u8], value_len: impl Fn(&[u8]) -> Option<usize>) -> usize {
    let mut count = 1;
    while let Some(after) = value_len(rest).and_then(|n| strip_key(rest.get(n..)?, key)) {
        rest = after;
        count += 1;
    }
    count
}

/// [`count_steps`] for varints. Each step has to find where a varint ends
/// before it can look at the next, a chain of dependent loads (about 14
/// cycles a value); so after each value it also counts the values that
/// follow at the same stride, each checked on its own (see
/// [`count_same_stride`]): runs of one length (small counts, ids,
/// timestamps) are counted at the rate the checks issue.
fn count_varint_run(mut rest: &[u8], key: &[u8]) -> usize {
    let mut count = 1;
    while let Some(len) = varint::len_in(rest) {
        let Some(after) = rest.get(len..).and_then(|r| strip_key(r, key)) else {
            break;
        };
        let same = count_same_stride(after, len, key);
        count += 1 + same;
        rest = &after[same * (len + key.len())..];
    }
    count
}

/// How many times a varint of `len` bytes followed by `key` (of one or two
/// bytes) repeats from the start of `rest`. Each is one 16-byte load and a
/// compare of the bits that say so: the high bits of the varint's bytes
/// (set but for the last) and the key. Stops 16 bytes before the end.
fn count_same_stride(rest: &[u8], len: usize, key: &[u8]) -> usize {
    let (value_bits, key_bits) = (8 * len, 8 * key.len());
    if key.len() > 2 || len > 10 {
        return 0;
    }
    let high_bits = 0x8080_8080_8080_8080_8080_8080_8080_8080u128 & ((1 << value_bits) - 1);
    let last_high = 0x80u128 << (value_bits - 8);
    let key_word = key.iter().rev().fold(0u128, |word, &b| word << 8 | u128::from(b));
    let mask = high_bits | ((1 << key_bits) - 1) << value_bits;
    let want = (high_bits & !last_high) | key_word << value_bits;
    let stride = len + key.len();
    let mut same = 0;
    while let Some(window) = rest.get(same * stride..).and_then(<[u8]>::first_chunk::<16>) {
        if u128::from_le_bytes(*window) & mask != want {
            break;
        }
        same += 1;
    }
    same
}

/// The bytes of the length-delimited value at the front of `rest`.
#[inline(always)]
fn len_value_len(rest: &[u8]) -> Option<usize> {
    // Lengths below 16 KiB (one or two bytes) inline.
    let (len, n) = match *rest {
        [b0, ..] if b0 < 0x80 => (u64::from(b0), 1),
        [b0, b1, ..] if b1 < 0x80 => (u64::from(b0 & 0x7f) | u64::from(b1) << 7, 2),
        _ => varint::decode(rest).ok()?,
    };
    n.checked_add(usize::try_from(len).ok()?)
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
    pub(crate) fn with_budget(buf: &'a [u8], budget: usize) -> Self {
        Self {
            buf,
            end: buf.len(),
            field: 0,
            budget,
            #[cfg(feature = "bytes")]
            source: None,
        }
    }

    /// A reader over all of `source` that may allocate `budget` bytes;
    /// `bytes::Bytes` fields are sliced from `source`.
    #[cfg(feature = "bytes")]
    #[must_use]
    pub(crate) fn with_source(source: &'a bytes::Bytes, budget: usize) -> Self {
        Self {
            source: Some(source),
            ..Self::with_budget(source, budget)
        }
    }

    /// Reads a length-delimited value as `bytes::Bytes`: a slice of the
    /// shared buffer being decoded, if there is one, else a copy.
    ///
    /// # Errors
    /// As [`Reader::read_bytes`].
    #[cfg(feature = "bytes")]
    #[inline]
    pub(crate) fn read_shared(&mut self) -> Result<bytes::Bytes, DecodeError> {
        let value = self.read_bytes()?;
        Ok(match self.source {
            // `value` lies in `source`: every reader's bytes are a part of
            // the bytes of the reader it came from.
            Some(source) => source.slice_ref(value),
            None => bytes::Bytes::copy_from_slice(value),
        })
    }

    /// Charges an allocation of `bytes` (a new message value or map entry)
    /// against the budget.
    ///
    /// # Errors
    /// [`DecodeErrorKind::AllocationLimit`] once the budget is spent.
    #[inline]
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.error(DecodeErrorKind::AllocationLimit)),
        }
    }

    /// A copy of this reader, for a loop to read through in its place: a
    /// reader whose address is never taken can live in registers. The
    /// loop brings the two up to date ([`Reader::catch_up`]) before each
    /// call that takes the original, and after.
    #[inline(always)]
    pub(crate) fn copy(&self) -> Self {
        Self { ..*self }
    }

    /// Takes the position, field and budget of `copy`, a [`Reader::copy`]
    /// of this reader (the rest of a reader never changes).
    #[inline(always)]
    pub(crate) fn catch_up(&mut self, copy: &Self) {
        self.buf = copy.buf;
        self.field = copy.field;
        self.budget = copy.budget;
    }

    /// Takes back the budget a finished nested reader has left.
    #[inline]
    pub(crate) fn absorb(&mut self, inner: &Reader<'_>) {
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
        let (tag, rest) = long_tag(self.buf, self.end)?;
        self.buf = rest;
        Ok(tag)
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
            #[cfg(feature = "bytes")]
            source: self.source,
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

    /// [`Reader::skip_field`] for a length-delimited field that must be UTF-8
    /// text: a `string` extension whose schema checks UTF-8, which is kept
    /// as unknown bytes like any extension but fails the decode as a
    /// `string` field would.
    ///
    /// # Errors
    /// As [`Reader::read_bytes`], and [`DecodeErrorKind::InvalidUtf8`] at the
    /// first byte that is not UTF-8.
    pub fn skip_checked_utf8(&mut self, tag: u32, unknown: &mut UnknownFields) -> Result<(), DecodeError> {
        let start = self.buf;
        let text = self.read_bytes()?;
        super::utf8::check_utf8(text, self.offset())?;
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
        let mut key = [0u8; 5];
        let key_len = varint::len(u64::from(tag));
        varint::encode_exact(u64::from(tag), &mut key[..key_len]);
        let (rest, key) = (self.buf, &key[..key_len]);
        match wire::wire_type(tag) {
            wire::VARINT => count_varint_run(rest, key),
            wire::FIXED64 => count_steps(rest, key, |_| Some(8)),
            wire::LEN => count_steps(rest, key, len_value_len),
            wire::FIXED32 => count_steps(rest, key, |_| Some(4)),
            _ => 1,
        }
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
            #[cfg(feature = "bytes")]
            source: self.source,
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// `count_run` as the definition says: skip a value, read a tag, compare.
    fn count_by_decoding(buf: &[u8], tag: u32) -> usize {
        let mut skim = Reader::new(buf);
        let mut count = 1;
        while skim.skip_value(tag, 0).is_ok() && matches!(skim.read_tag(), Ok(next) if next == tag) {
            count += 1;
        }
        count
    }

    /// SplitMix64.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        #[allow(clippy::cast_possible_truncation)] // below `n`
        fn below(&mut self, n: u32) -> u32 {
            (self.next() % u64::from(n)) as u32
        }
    }

    fn push_varint(out: &mut Vec<u8>, v: u64) {
        let at = out.len();
        out.resize(at + varint::len(v), 0);
        varint::encode_exact(v, &mut out[at..]);
    }

    /// A varint value of `len` bytes (1 to 10).
    fn value_of_len(rng: &mut Rng, len: u32) -> u64 {
        match len {
            1 => u64::from(rng.below(0x80)),
            10 => u64::MAX - u64::from(rng.below(1 << 20)),
            _ => (1 << (7 * (len - 1))) + rng.next() % (1 << (7 * (len - 1))),
        }
    }

    /// A value of `tag`'s wire type: varints of `len` bytes, strings of
    /// `len` bytes, fixed-width values.
    fn push_value(out: &mut Vec<u8>, rng: &mut Rng, tag: u32, len: u32) {
        match wire::wire_type(tag) {
            wire::VARINT => push_varint(out, value_of_len(rng, len)),
            wire::FIXED64 => out.extend_from_slice(&rng.next().to_le_bytes()),
            wire::FIXED32 => out.extend_from_slice(&rng.next().to_le_bytes()[..4]),
            _ => {
                push_varint(out, u64::from(len));
                out.extend((0..len).map(|_| rng.next().to_le_bytes()[0]));
            }
        }
    }

    /// Runs of every wire type and key length, with values of one length
    /// (the same-stride path) or of mixed lengths, ended by the input's end,
    /// another field, a truncated value or a bad byte: every count agrees
    /// with decoding.
    #[test]
    fn counted_runs_agree_with_decoding() {
        let mut rng = Rng(7);
        let numbers = [1, 15, 16, 2047, 2048, 1 << 20];
        let wire_types = [wire::VARINT, wire::FIXED64, wire::LEN, wire::FIXED32];
        let cases = if cfg!(miri) { 200 } else { 20_000 };
        for case in 0..cases {
            let tag = wire::tag(numbers[case % numbers.len()], wire_types[case / numbers.len() % 4]);
            let mut key = Vec::new();
            push_varint(&mut key, u64::from(tag));
            let run = rng.below(40) as usize + 1;
            let one_len = rng.below(2) == 0;
            let mut len = rng.below(10) + 1;
            let mut buf = Vec::new();
            for i in 0..run {
                if i > 0 {
                    buf.extend_from_slice(&key);
                }
                if !one_len {
                    len = rng.below(10) + 1;
                }
                push_value(&mut buf, &mut rng, tag, len);
            }
            match rng.below(5) {
                0 => {}
                1 => {
                    push_varint(&mut buf, u64::from(tag + 8));
                    push_value(&mut buf, &mut rng, tag + 8, len);
                }
                2 => {
                    buf.extend_from_slice(&key);
                    push_value(&mut buf, &mut rng, tag, len);
                    buf.pop();
                }
                3 => buf.extend_from_slice(&key),
                _ => buf.push(0xff),
            }
            let expected = count_by_decoding(&buf, tag);
            assert!(expected >= run, "case {case}: the generator built a run of {run}");
            assert_eq!(
                Reader::new(&buf).count_run(tag),
                expected,
                "case {case}: tag {tag:#x}, {buf:02x?}"
            );
        }
    }

    /// The same-stride path itself (the test above passes without it): a
    /// run of one length, with another field after it, is counted there up
    /// to the last value (which is not followed by the key).
    #[test]
    fn runs_of_one_length_take_the_stride_path() {
        let mut rng = Rng(11);
        for number in [1, 16, 2047] {
            let tag = wire::tag(number, wire::VARINT);
            let mut key = Vec::new();
            push_varint(&mut key, u64::from(tag));
            for len in 1..=10 {
                let mut buf = Vec::new();
                for i in 0..20 {
                    if i > 0 {
                        buf.extend_from_slice(&key);
                    }
                    push_value(&mut buf, &mut rng, tag, len);
                }
                buf.extend_from_slice(&[0x7a, 16]);
                buf.extend_from_slice(&[0; 16]);
                let second = len as usize + key.len();
                assert_eq!(
                    count_same_stride(&buf[second..], len as usize, &key),
                    18,
                    "field {number}, {len} bytes"
                );
                assert_eq!(Reader::new(&buf).count_run(tag), 20);
            }
        }
    }

    #[test]
    fn groups_are_not_counted() {
        let tag = wire::tag(1, wire::START_GROUP);
        assert_eq!(Reader::new(&[0x0c, 0x0b, 0x0c]).count_run(tag), 1);
    }
}
