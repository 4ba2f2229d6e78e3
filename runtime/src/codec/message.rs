//! Message codecs: embedded (length-delimited) and group-encoded messages.

use core::marker::PhantomData;

use super::Codec;
use crate::message::Message;
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::varint;
use crate::wire::writer::Writer;

/// An embedded message (length-delimited).
#[derive(Debug)]
pub struct Msg<M>(PhantomData<M>);

impl<M: Message> Codec for Msg<M> {
    type Value = M;
    const WIRE_TYPE: u8 = wire::LEN;

    /// Messages have explicit presence; a present empty message is still written.
    #[inline(always)]
    fn is_default(_: &M) -> bool {
        false
    }
    #[inline]
    fn size(v: &M) -> usize {
        len_delimited_size(v.size())
    }
    #[inline]
    fn write(v: &M, w: &mut Writer<'_>) {
        let end = w.remaining();
        v.write_backward(w);
        w.put_len_since(end);
    }
    #[inline]
    fn write_keyed(v: &M, key: &[u8], w: &mut Writer<'_>) {
        let end = w.remaining();
        v.write_backward(w);
        w.put_key_varint(key, (end - w.remaining()) as u64);
    }
    #[inline]
    fn merge(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        merge_message(v, r, depth)
    }
}

/// Reads a length-delimited message and merges it into `m`, one level deeper.
/// Forced inline in optimised builds: the glue around a nested message's
/// `merge_from`, called from decoders too large for the inliner's own
/// judgement. (Not in debug builds, where its locals would grow every
/// decoder's frame, as for `Writer::put_key_varint`.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn merge_message<M: Message>(m: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(M::FOOTPRINT)?;
    let mut inner = r.read_nested()?;
    let merged = m.merge_from(&mut inner, depth);
    r.absorb(&inner);
    merged.map_err(|e| e.within(M::FULL_NAME, inner.field()))
}

/// Size of a length prefix plus `len` bytes.
#[inline(always)]
#[must_use]
pub const fn len_delimited_size(len: usize) -> usize {
    varint::len(len as u64) + len
}

/// A message encoded as a group of field `NUMBER`: START_GROUP tag, the fields,
/// END_GROUP tag (proto2 groups, and editions' DELIMITED encoding).
#[derive(Debug)]
pub struct Group<M, const NUMBER: u32>(PhantomData<M>);

impl<M: Message, const NUMBER: u32> Group<M, NUMBER> {
    const END_TAG: u64 = wire::tag(NUMBER, wire::END_GROUP) as u64;
}

impl<M: Message, const NUMBER: u32> Codec for Group<M, NUMBER> {
    type Value = M;
    const WIRE_TYPE: u8 = wire::START_GROUP;

    #[inline(always)]
    fn is_default(_: &M) -> bool {
        false
    }
    /// The fields and the END_GROUP tag (the START_GROUP tag is the field's tag).
    #[inline]
    fn size(v: &M) -> usize {
        v.size() + varint::len(Self::END_TAG)
    }
    #[inline]
    fn write(v: &M, w: &mut Writer<'_>) {
        w.put_varint(Self::END_TAG);
        v.write_backward(w);
    }
    #[inline]
    fn merge(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        let Some(depth) = depth.checked_sub(1) else {
            return Err(r.error(DecodeErrorKind::RecursionLimit));
        };
        r.charge(M::FOOTPRINT)?;
        let mut inner = r.read_group(NUMBER, depth)?;
        let merged = v.merge_from(&mut inner, depth);
        r.absorb(&inner);
        merged.map_err(|e| e.within(M::FULL_NAME, inner.field()))
    }
}
