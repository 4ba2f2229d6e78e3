//! Repeated fields written unpacked (one tag per element), the exact sizing
//! of a fresh vector for the run of values about to be read, and runs of
//! messages read into the messages a cleared field kept.

use alloc::vec::Vec;

use crate::codec::Codec;
use crate::message::recycle::Recycler;
use crate::message::Message;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::writer::Writer;

/// Size of a repeated field written unpacked, one tag per element.
#[inline]
pub fn size_repeated<C: Codec>(values: &[C::Value], key_len: usize) -> usize {
    key_len * values.len() + values.iter().map(C::size).sum::<usize>()
}

/// Writes a repeated field unpacked, one tag per element.
#[inline]
pub fn write_repeated<C: Codec>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    w.in_registers(|w| {
        for v in values.iter().rev() {
            C::write_keyed(v, tag, w);
        }
    });
}

/// Sizes a fresh repeated field (no capacity yet) for the run of `tag` values
/// about to be read (see [`Reader::count_run`]), so it is allocated once
/// instead of growing; a reused vector keeps its capacity. Never more than the
/// decode's allocation budget would let the values take.
#[inline(always)]
pub fn reserve_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    if values.capacity() == 0 {
        allocate_run(values, r, tag);
    }
}

/// [`reserve_run`]'s allocation, out of line: once per fresh field.
#[inline(never)]
fn allocate_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    *values = Vec::with_capacity(run_length::<T>(r, tag));
}

pub(crate) fn run_length<T>(r: &Reader<'_>, tag: u32) -> usize {
    r.count_run(tag).min(r.budget() / core::mem::size_of::<T>().max(1))
}

/// Reads a run of records of a repeated message field into `values` (the
/// first record's tag, `tag`, has been read; the records of the run that
/// follow it are read too). When `values` is empty and `recycle` kept the
/// field's messages at `clear()`, they are read into in place, each cleared
/// first: no message is moved or allocated, and the strings and lists
/// inside them keep their allocations. Messages left over go back to
/// `recycle`. For generated decoders of messages that reuse buffers.
///
/// # Errors
/// Malformed input; `values` then holds the messages read before the error.
pub fn merge_message_run<C>(
    values: &mut Vec<C::Value>,
    recycle: &mut Recycler,
    r: &mut Reader<'_>,
    tag: u32,
    depth: u32,
) -> Result<(), DecodeError>
where
    C: Codec<Value: Message + 'static>,
{
    if values.is_empty() && recycle.swap_messages(values) {
        return merge_in_place::<C>(values, recycle, r, tag, depth);
    }
    reserve_run(values, r, tag);
    loop {
        let mut v = recycle.spare_message();
        C::merge(&mut v, r, depth)?;
        values.push(v);
        if !r.read_tag_if(tag) {
            return Ok(());
        }
    }
}

/// [`merge_message_run`] into `values`, which holds kept messages.
fn merge_in_place<C>(
    values: &mut Vec<C::Value>,
    recycle: &mut Recycler,
    r: &mut Reader<'_>,
    tag: u32,
    depth: u32,
) -> Result<(), DecodeError>
where
    C: Codec<Value: Message + 'static>,
{
    let mut read = 0;
    let result = loop {
        let merged = match values.get_mut(read) {
            Some(kept) => {
                kept.clear();
                C::merge(kept, r, depth)
            }
            None => {
                let mut v = C::Value::default();
                let merged = C::merge(&mut v, r, depth);
                values.push(v);
                merged
            }
        };
        if merged.is_err() {
            break merged;
        }
        read += 1;
        if !r.read_tag_if(tag) {
            break Ok(());
        }
    };
    // Those not read into (and one an error left half read) are kept again.
    recycle.keep_rest(values, read);
    result
}
