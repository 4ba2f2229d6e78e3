//! Out-of-line field codecs for code generated in size mode
//! (`protoc_gen_fastrs::Mode::Size`).
//!
//! Speed-mode code inlines every field's codec into its message's `size`,
//! `write_backward` and `merge_from`: the fastest code, and the most machine
//! code for the compiler to optimise, once per field. Size-mode code calls
//! these instead. Each is generic over the codec only, so a crate compiles one
//! copy per protobuf type it uses (`write::<Str>`, `merge::<Msg<Order>>`),
//! however many fields share it, and never inlines it into a caller: the
//! generated code per field is one call, as prost's is.

use alloc::vec::Vec;

use crate::encoding::{self, Codec, Scalar};
use crate::error::{DecodeError, DecodeErrorKind};
pub use crate::message::Encode;
use crate::message::Message;
use crate::options::DecodeOptions;
use crate::reader::Reader;
use crate::writer::Writer;

/// The next tag, or `None` at the end of the message: the head of a
/// size-mode decoder's loop, out of line.
///
/// # Errors
/// A malformed tag.
#[inline(never)]
pub fn next_tag(r: &mut Reader<'_>) -> Result<Option<u32>, DecodeError> {
    if r.is_empty() {
        Ok(None)
    } else {
        r.read_tag().map(Some)
    }
}

/// Writes one value and, before it, its tag bytes `key`.
#[inline(never)]
pub fn write<C: Codec>(v: &C::Value, key: &[u8], w: &mut Writer<'_>) {
    C::write_keyed(v, key, w);
}

/// Reads one value into `v`: scalars overwrite, messages merge.
///
/// # Errors
/// The value is malformed or breaks a decode limit.
#[inline(never)]
pub fn merge<C: Codec>(v: &mut C::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    C::merge_compact(v, r, depth)
}

/// Reads one value into an explicit-presence field, setting it first if
/// unset (a message read again merges into the one held).
///
/// # Errors
/// As [`merge`].
#[inline(never)]
pub fn merge_optional<C: Codec>(v: &mut Option<C::Value>, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    // Not `get_or_insert_with`: one more generic function per type.
    let v = match v {
        Some(v) => v,
        None => v.insert(C::Value::default()),
    };
    C::merge_compact(v, r, depth)
}

/// Reads one value into a fresh `Value` (a oneof member).
///
/// # Errors
/// As [`merge`].
#[inline(never)]
pub fn read<C: Codec>(r: &mut Reader<'_>, depth: u32) -> Result<C::Value, DecodeError> {
    let mut v = C::Value::default();
    C::merge_compact(&mut v, r, depth)?;
    Ok(v)
}

/// Reads one element of a repeated field whose tag `tag` was just read and
/// appends it; a fresh field is first sized for the run of `tag` elements.
///
/// # Errors
/// As [`merge`].
#[inline(never)]
pub fn push<C: Codec>(values: &mut Vec<C::Value>, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
    encoding::reserve_run(values, r, tag);
    let mut v = C::Value::default();
    C::merge_compact(&mut v, r, depth)?;
    values.push(v);
    Ok(())
}

/// [`Message::merge_from`] callable through `dyn`, for the functions that
/// are compiled once for all message types. (A closure would also compile
/// a vtable of shims per type.)
pub trait MergeFrom {
    /// [`Message::merge_from`].
    ///
    /// # Errors
    /// As [`Message::merge_from`].
    fn merge_from_dyn(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;
}

impl<M: Message> MergeFrom for M {
    fn merge_from_dyn(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        self.merge_from(r, depth)
    }
}

/// Reads a length-delimited message into `m`, one level deeper than `depth`
/// (`footprint` and `name` are its type's):
/// the part of a nested message's decoding that does not depend on its
/// type, compiled once.
///
/// # Errors
/// The message is malformed or breaks a decode limit.
pub(crate) fn merge_nested(
    r: &mut Reader<'_>,
    depth: u32,
    footprint: usize,
    name: &'static str,
    m: &mut dyn MergeFrom,
) -> Result<(), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(footprint)?;
    let mut inner = r.read_nested()?;
    let merged = m.merge_from_dyn(&mut inner, depth);
    r.absorb(&inner);
    merged.map_err(|e| e.within(name, inner.field()))
}

/// Size of a repeated field written unpacked, tags included.
#[inline(never)]
#[must_use]
pub fn size_repeated<C: Codec>(values: &[C::Value], key_len: usize) -> usize {
    // A plain loop: iterator adapters are more code to compile per type.
    let mut n = key_len * values.len();
    for v in values {
        n += C::size(v);
    }
    n
}

/// Writes a repeated field unpacked, one tag per element.
#[inline(never)]
pub fn write_repeated<C: Codec>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    for v in values.iter().rev() {
        C::write_keyed(v, tag, w);
    }
}

/// Size of a packed repeated field, tag and length included.
#[inline(never)]
#[must_use]
pub fn size_packed<C: Scalar>(values: &[C::Value], key_len: usize) -> usize {
    encoding::size_packed::<C>(values, key_len)
}

/// Writes a packed repeated field (nothing if it is empty).
#[inline(never)]
pub fn write_packed<C: Scalar>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    encoding::write_packed::<C>(values, tag, w);
}

/// Reads a packed run and appends its elements.
///
/// # Errors
/// As [`merge`].
#[inline(never)]
pub fn merge_packed<C: Scalar>(r: &mut Reader<'_>, values: &mut Vec<C::Value>) -> Result<(), DecodeError> {
    encoding::merge_packed::<C>(r, values)
}

/// [`Message::fast_read_partial`] of `m`, a message of type `name`: how
/// size-mode messages implement it, so that a crate decoding them does not
/// compile it again for each type.
///
/// # Errors
/// As [`Message::fast_read_partial`].
pub fn read_partial(
    m: &mut dyn MergeFrom,
    name: &'static str,
    buf: &[u8],
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    if buf.len() > options.max_input_bytes {
        let e = DecodeError::new(DecodeErrorKind::InputTooLarge, options.max_input_bytes);
        return Err(e.within(name, 0));
    }
    let mut r = Reader::with_budget(buf, options.allocation_budget(buf.len()));
    m.merge_from_dyn(&mut r, options.recursion_limit)
        .map_err(|e| e.within(name, r.field()))
}

/// [`Message::encode_to_vec`] of `m`, a message of type `name`, for
/// size-mode messages (see [`read_partial`]).
#[must_use]
pub fn encode_to_vec(m: &dyn Encode, name: &'static str) -> Vec<u8> {
    let size = m.size_dyn();
    let mut out = alloc::vec![0; size];
    let mut w = Writer::new(&mut out);
    m.write_backward_dyn(&mut w);
    assert!(
        w.remaining() == 0,
        "fastrs: {name} did not write exactly its size() into the writer it was given"
    );
    out
}
