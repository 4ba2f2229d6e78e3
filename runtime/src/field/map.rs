//! Map fields: one length-delimited entry (key = 1, value = 2) per pair.

use super::repeated::run_length;
use crate::codec::{len_delimited_size, Codec, Int32};
use crate::message::enumeration::Enum;
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

/// The capacity [`reserve_run`](super::repeated::reserve_run) gives a fresh map of `K` to `V` (generated
/// code reserves it, as maps are `std` types).
#[must_use]
pub fn map_run_length<K: Codec, V: Codec>(r: &Reader<'_>, tag: u32) -> usize {
    run_length::<(K::Value, V::Value)>(r, tag)
}

/// Size of a map field: one length-delimited entry (key = 1, value = 2) per pair.
pub fn size_map<'m, K, V>(entries: impl Iterator<Item = (&'m K::Value, &'m V::Value)>, key_len: usize) -> usize
where
    K: Codec<Value: 'm>,
    V: Codec<Value: 'm>,
{
    // A loop, as `write_map` writes: one way of iterating a map (a
    // `HashMap`'s `next`) compiled per key and value type, not two.
    let mut n = 0;
    for (k, v) in entries {
        n += key_len + len_delimited_size(2 + K::size(k) + V::size(v));
    }
    n
}

/// Writes a map field. Key and value are always written, as the C++ and Go
/// implementations do.
pub fn write_map<'m, K, V>(entries: impl Iterator<Item = (&'m K::Value, &'m V::Value)>, tag: &[u8], w: &mut Writer<'_>)
where
    K: Codec<Value: 'm>,
    V: Codec<Value: 'm>,
{
    #[allow(clippy::cast_possible_truncation)] // field numbers 1 and 2: one-byte tags
    let (key_tag, value_tag) = (wire::tag(1, K::WIRE_TYPE) as u8, wire::tag(2, V::WIRE_TYPE) as u8);
    w.in_registers(|w| {
        for (k, v) in entries {
            let end = w.remaining();
            V::write_keyed(v, &[value_tag], w);
            K::write_keyed(k, &[key_tag], w);
            w.put_key_varint(tag, (end - w.remaining()) as u64);
        }
    });
}

/// Reads one map entry. A missing key or value takes its default; unknown fields
/// inside the entry are dropped; a repeated key or value field: last one wins
/// (messages merge).
pub fn read_map_entry<K: Codec, V: Codec>(r: &mut Reader<'_>, depth: u32) -> Result<(K::Value, V::Value), DecodeError> {
    read_map_entry_into::<K, V>(r, depth, K::Value::default(), V::Value::default())
}

/// [`read_map_entry`] starting from `key` and `value`, which must be default
/// values (an entry may leave out either): empty buffers kept for reuse.
pub fn read_map_entry_into<K: Codec, V: Codec>(
    r: &mut Reader<'_>,
    depth: u32,
    mut key: K::Value,
    mut value: V::Value,
) -> Result<(K::Value, V::Value), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(core::mem::size_of::<(K::Value, V::Value)>())?;
    let mut inner = r.read_nested()?;
    let (key_tag, value_tag) = (wire::tag(1, K::WIRE_TYPE), wire::tag(2, V::WIRE_TYPE));
    // Key then value, as every encoder writes them: no tag dispatch.
    if inner.read_tag_if(key_tag) {
        K::merge_in_entry(&mut key, &mut inner, depth)?;
    }
    if inner.read_tag_if(value_tag) {
        V::merge_in_entry(&mut value, &mut inner, depth)?;
    }
    if !inner.is_empty() {
        inner = read_map_entry_rest::<K, V>(inner, depth, &mut key, &mut value)?;
    }
    r.absorb(&inner);
    Ok((key, value))
}

/// The fields of a map entry after the key and value in order: repeats,
/// fields out of order, unknown fields. Out of line and given the reader by
/// value, so the in-order path keeps its reader in registers.
#[cold]
#[inline(never)]
fn read_map_entry_rest<'a, K: Codec, V: Codec>(
    mut inner: Reader<'a>,
    depth: u32,
    key: &mut K::Value,
    value: &mut V::Value,
) -> Result<Reader<'a>, DecodeError> {
    let (key_tag, value_tag) = (wire::tag(1, K::WIRE_TYPE), wire::tag(2, V::WIRE_TYPE));
    while !inner.is_empty() {
        let tag = inner.read_tag()?;
        if tag == key_tag {
            K::merge(key, &mut inner, depth)?;
        } else if tag == value_tag {
            V::merge(value, &mut inner, depth)?;
        } else {
            inner.skip_value(tag, depth)?;
        }
    }
    Ok(inner)
}

/// Reads a map entry whose value is a closed enum. An entry whose value `E`
/// does not name is kept whole in `unknown` (its tag is `tag`) and gives `None`.
pub fn read_map_entry_closed<K: Codec, E: Enum>(
    r: &mut Reader<'_>,
    depth: u32,
    tag: u32,
    unknown: &mut UnknownFields,
) -> Result<Option<(K::Value, E)>, DecodeError> {
    let start = r.rest();
    let (key, value) = read_map_entry::<K, Int32>(r, depth)?;
    match E::from_i32(value) {
        Some(e) => Ok(Some((key, e))),
        None => {
            unknown.push_field(tag, &start[..start.len() - r.rest().len()]);
            Ok(None)
        }
    }
}
