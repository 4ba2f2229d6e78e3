//! What generated views call (through `fastrs::__private::view`): the
//! reads of singular fields, oneof members and repeated records, and the
//! record of the bytes a view was read from.

use super::repeated::{Map, Repeated};
use super::{read_str, Source, ViewCodec};
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;

/// Reads a value of an explicit-presence field (or a oneof member) into
/// `slot`: see [`ViewCodec::merge`].
///
/// # Errors
/// Malformed input.
#[inline(always)]
pub fn merge<'a, C: ViewCodec<'a>>(
    slot: &mut Option<C::Item>,
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<(), DecodeError> {
    C::merge(slot, r, depth)
}

/// Reads a oneof member that is not a message: `member` makes the oneof's
/// variant from the value (a closed enum's unnamed number leaves the oneof
/// as it was).
///
/// # Errors
/// Malformed input.
#[inline(always)]
pub fn merge_member<'a, C: ViewCodec<'a>, E>(
    oneof: &mut Option<E>,
    r: &mut Reader<'a>,
    depth: u32,
    member: impl FnOnce(C::Item) -> E,
) -> Result<(), DecodeError> {
    let mut v = None;
    C::merge(&mut v, r, depth)?;
    if let Some(v) = v {
        *oneof = Some(member(v));
    }
    Ok(())
}

/// Reads a value of an implicit-presence field.
///
/// # Errors
/// Malformed input.
#[inline(always)]
pub fn merge_implicit<'a, C: ViewCodec<'a>>(
    value: &mut C::Item,
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<(), DecodeError> {
    C::merge_implicit(value, r, depth)
}

/// Checks the UTF-8 of a `string` extension (kept as an unknown field).
///
/// # Errors
/// As `read_str`.
pub fn check_str(r: &mut Reader<'_>) -> Result<(), DecodeError> {
    read_str(r).map(drop)
}

/// A repeated field's or map's records in a view: [`push`] checks and
/// counts one.
pub trait Records<'a> {
    /// See [`push`].
    ///
    /// # Errors
    /// Malformed input.
    fn push_record(
        &mut self,
        chunk: &'a [u8],
        left: usize,
        r: &mut Reader<'a>,
        tag: u32,
        depth: u32,
    ) -> Result<(), DecodeError>;
}

impl<'a, C: ViewCodec<'a>> Records<'a> for Repeated<'a, C> {
    #[inline(always)]
    fn push_record(
        &mut self,
        chunk: &'a [u8],
        left: usize,
        r: &mut Reader<'a>,
        tag: u32,
        depth: u32,
    ) -> Result<(), DecodeError> {
        self.push(chunk, left, r, tag, depth)
    }
}

impl<'a, K, V> Records<'a> for Map<'a, K, V>
where
    K: ViewCodec<'a, Item: Default + PartialEq>,
    V: ViewCodec<'a, Item: Default>,
{
    #[inline(always)]
    fn push_record(
        &mut self,
        chunk: &'a [u8],
        left: usize,
        r: &mut Reader<'a>,
        tag: u32,
        depth: u32,
    ) -> Result<(), DecodeError> {
        self.push(chunk, left, r, tag, depth)
    }
}

/// Checks and counts one record of a repeated field or map, whose tag `tag`
/// has been read from `r`, a reader over `chunk` that had `left` bytes left
/// before the tag.
///
/// # Errors
/// Malformed input.
#[inline(always)]
pub fn push<'a, F: Records<'a>>(
    field: &mut F,
    chunk: &'a [u8],
    left: usize,
    r: &mut Reader<'a>,
    tag: u32,
    depth: u32,
) -> Result<(), DecodeError> {
    field.push_record(chunk, left, r, tag, depth)
}

/// Adds the occurrence `chunk` to the bytes a view was read from, and
/// returns it.
#[inline(always)]
pub fn add_source<'a>(source: &mut Source<'a>, chunk: &'a [u8]) -> &'a [u8] {
    source.add(chunk)
}
