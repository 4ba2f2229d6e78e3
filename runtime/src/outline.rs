//! Out-of-line field codecs for code generated in size mode
//! (`protoc_gen_fastrs::Mode::Size`).
//!
//! Speed-mode code inlines every field's codec into its message's `size`,
//! `write_backward` and `merge_from`: the fastest code, and the most machine
//! code for the compiler to optimise, once per field. Size-mode code calls
//! these instead, through the codecs' [`Ops`]: those of scalars, strings and
//! bytes are compiled once, in this crate; those of messages and enums once
//! per type in the crate that uses it (`merge::<Msg<Order>>`), however many
//! fields share them, and never inlined into a caller. The generated code
//! per field is one call, as prost's is. Views of size-mode messages read
//! their fields through the same kind of calls (`view_merge`).

use alloc::vec::Vec;

use crate::codec::packed;
use crate::codec::{self, Codec, Scalar};
use crate::field::repeated::reserve_run;
use crate::message::enumeration::Enum;
use crate::message::options::DecodeOptions;
pub use crate::message::Encode;
use crate::message::{decode, Message};
use crate::view::ViewCodec;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::writer::Writer;

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

/// The out-of-line operations of a codec, for size-mode code. The codecs
/// of scalars, strings and bytes implement them in this crate, so they are
/// compiled once here and never in the crates that call them; those of
/// messages and enums are generic over the type and compiled once per type
/// in the crate that uses them. The free functions below call them.
pub trait Ops: Codec {
    /// Writes one value and its key, as size mode does: a message through
    /// one function for all message types (`write_message`), anything
    /// else with its codec.
    #[inline(always)]
    fn write_value(v: &Self::Value, key: &[u8], w: &mut Writer<'_>) {
        Self::write_keyed(v, key, w);
    }
    /// Reads one value into `v`, as size mode does: a message through one
    /// function for all message types (`merge_nested`), anything else
    /// with its codec.
    ///
    /// # Errors
    /// As [`merge`].
    #[inline(always)]
    fn merge_value(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        Self::merge(v, r, depth)
    }
    /// See [`write`].
    fn write_ool(v: &Self::Value, key: &[u8], w: &mut Writer<'_>);
    /// See [`merge`].
    ///
    /// # Errors
    /// As [`merge`].
    fn merge_ool(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;
    /// See [`merge_optional`].
    ///
    /// # Errors
    /// As [`merge`].
    fn merge_optional_ool(v: &mut Option<Self::Value>, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;
    /// See [`read`].
    ///
    /// # Errors
    /// As [`merge`].
    fn read_ool(r: &mut Reader<'_>, depth: u32) -> Result<Self::Value, DecodeError>;
    /// See [`push`].
    ///
    /// # Errors
    /// As [`merge`].
    fn push_ool(values: &mut Vec<Self::Value>, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;
    /// See [`size_repeated`].
    fn size_repeated_ool(values: &[Self::Value], key_len: usize) -> usize;
    /// See [`write_repeated`].
    fn write_repeated_ool(values: &[Self::Value], tag: &[u8], w: &mut Writer<'_>);
}

/// The out-of-line packed operations of a numeric codec (see [`Ops`]).
pub trait PackedOps: Ops + Scalar {
    /// See [`size_packed`].
    fn size_packed_ool(values: &[Self::Value], key_len: usize) -> usize;
    /// See [`write_packed`].
    fn write_packed_ool(values: &[Self::Value], tag: &[u8], w: &mut Writer<'_>);
    /// See [`merge_packed`].
    ///
    /// # Errors
    /// As [`merge`].
    fn merge_packed_ool(r: &mut Reader<'_>, values: &mut Vec<Self::Value>) -> Result<(), DecodeError>;
}

/// The methods of [`Ops`], each calling its generic implementation;
/// `$($attr)*` is `#[inline(never)]` for generic codecs, so that each type's
/// copy stays one call from its fields.
macro_rules! ops_methods {
    ($(#[$attr:meta])*) => {
        $(#[$attr])*
        fn write_ool(v: &Self::Value, key: &[u8], w: &mut Writer<'_>) {
            Self::write_value(v, key, w);
        }
        $(#[$attr])*
        fn merge_ool(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
            Self::merge_value(v, r, depth)
        }
        $(#[$attr])*
        fn merge_optional_ool(v: &mut Option<Self::Value>, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
            merge_optional_impl::<Self>(v, r, depth)
        }
        $(#[$attr])*
        fn read_ool(r: &mut Reader<'_>, depth: u32) -> Result<Self::Value, DecodeError> {
            read_impl::<Self>(r, depth)
        }
        $(#[$attr])*
        fn push_ool(values: &mut Vec<Self::Value>, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
            push_impl::<Self>(values, r, depth, tag)
        }
        $(#[$attr])*
        fn size_repeated_ool(values: &[Self::Value], key_len: usize) -> usize {
            size_repeated_impl::<Self>(values, key_len)
        }
        $(#[$attr])*
        fn write_repeated_ool(values: &[Self::Value], tag: &[u8], w: &mut Writer<'_>) {
            write_repeated_impl::<Self>(values, tag, w);
        }
    };
}

/// The methods of [`PackedOps`] (see [`ops_methods`]).
macro_rules! packed_ops_methods {
    ($(#[$attr:meta])*) => {
        $(#[$attr])*
        fn size_packed_ool(values: &[Self::Value], key_len: usize) -> usize {
            packed::size_packed::<Self>(values, key_len)
        }
        $(#[$attr])*
        fn write_packed_ool(values: &[Self::Value], tag: &[u8], w: &mut Writer<'_>) {
            packed::write_packed::<Self>(values, tag, w);
        }
        $(#[$attr])*
        fn merge_packed_ool(r: &mut Reader<'_>, values: &mut Vec<Self::Value>) -> Result<(), DecodeError> {
            packed::merge_packed::<Self>(r, values)
        }
    };
}

macro_rules! concrete_ops {
    ($($codec:ident)*) => {
        $(impl Ops for codec::$codec {
            ops_methods!();
        })*
    };
}

macro_rules! concrete_packed_ops {
    ($($codec:ident)*) => {
        $(impl PackedOps for codec::$codec {
            packed_ops_methods!();
        })*
    };
}

concrete_ops!(Int32 Int64 Uint32 Uint64 Sint32 Sint64 Bool Fixed32 Fixed64 Sfixed32 Sfixed64 Float Double Str LaxStr Bytes);
concrete_packed_ops!(Int32 Int64 Uint32 Uint64 Sint32 Sint64 Bool Fixed32 Fixed64 Sfixed32 Sfixed64 Float Double);
#[cfg(feature = "bytes")]
concrete_ops!(SharedBytes);

impl<M: Message> Ops for codec::Msg<M> {
    #[inline]
    fn write_value(v: &M, key: &[u8], w: &mut Writer<'_>) {
        write_message(v, key, w);
    }
    #[inline]
    fn merge_value(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        merge_nested(r, depth, M::FOOTPRINT, M::FULL_NAME, v)
    }
    ops_methods!(#[inline(never)]);
}

/// Writes message `v` and, before it, its length and `key`: the part of
/// writing a nested message that does not depend on its type, compiled once
/// (the type's `write_backward` is called through `dyn`).
#[inline(never)]
pub(crate) fn write_message(v: &dyn Encode, key: &[u8], w: &mut Writer<'_>) {
    let end = w.remaining();
    v.write_backward_dyn(w);
    w.put_key_varint(key, (end - w.remaining()) as u64);
}

impl<M: Message, const NUMBER: u32> Ops for codec::Group<M, NUMBER> {
    ops_methods!(#[inline(never)]);
}

impl<E: Enum> Ops for codec::OpenEnum<E> {
    ops_methods!(#[inline(never)]);
}

impl<E: Enum> PackedOps for codec::OpenEnum<E> {
    packed_ops_methods!(#[inline(never)]);
}

impl<E: Enum> Ops for codec::ClosedEnum<E> {
    ops_methods!(#[inline(never)]);
}

impl<E: Enum> PackedOps for codec::ClosedEnum<E> {
    packed_ops_methods!(#[inline(never)]);
}

/// Writes one value and, before it, its tag bytes `key`.
#[inline(always)]
pub fn write<C: Ops>(v: &C::Value, key: &[u8], w: &mut Writer<'_>) {
    C::write_ool(v, key, w);
}

/// Reads one value into `v`: scalars overwrite, messages merge.
///
/// # Errors
/// The value is malformed or breaks a decode limit.
#[inline(always)]
pub fn merge<C: Ops>(v: &mut C::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    C::merge_ool(v, r, depth)
}

/// Reads one value into an explicit-presence field, setting it first if
/// unset (a message read again merges into the one held).
///
/// # Errors
/// As [`merge`].
#[inline(always)]
pub fn merge_optional<C: Ops>(v: &mut Option<C::Value>, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    C::merge_optional_ool(v, r, depth)
}

fn merge_optional_impl<C: Ops>(v: &mut Option<C::Value>, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    // Not `get_or_insert_with`: one more generic function per type.
    let v = match v {
        Some(v) => v,
        None => v.insert(C::Value::default()),
    };
    C::merge_value(v, r, depth)
}

/// Reads one value into a fresh `Value` (a oneof member).
///
/// # Errors
/// As [`merge`].
#[inline(always)]
pub fn read<C: Ops>(r: &mut Reader<'_>, depth: u32) -> Result<C::Value, DecodeError> {
    C::read_ool(r, depth)
}

fn read_impl<C: Ops>(r: &mut Reader<'_>, depth: u32) -> Result<C::Value, DecodeError> {
    let mut v = C::Value::default();
    C::merge_value(&mut v, r, depth)?;
    Ok(v)
}

/// Reads the element of a repeated field whose tag `tag` was just read, and
/// those that follow it with the same tag, and appends them; a fresh field
/// is first sized for the run.
///
/// # Errors
/// As [`merge`].
#[inline(always)]
pub fn push<C: Ops>(values: &mut Vec<C::Value>, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
    C::push_ool(values, r, depth, tag)
}

fn push_impl<C: Ops>(values: &mut Vec<C::Value>, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
    reserve_run(values, r, tag);
    // The whole run of `tag` elements in one call.
    loop {
        values.push(read_impl::<C>(r, depth)?);
        if !r.read_tag_if(tag) {
            return Ok(());
        }
    }
}

/// Size of a repeated field written unpacked, tags included.
#[inline(always)]
#[must_use]
pub fn size_repeated<C: Ops>(values: &[C::Value], key_len: usize) -> usize {
    C::size_repeated_ool(values, key_len)
}

fn size_repeated_impl<C: Codec>(values: &[C::Value], key_len: usize) -> usize {
    // A plain loop: iterator adapters are more code to compile per type.
    let mut n = key_len * values.len();
    for v in values {
        n += C::size(v);
    }
    n
}

/// Writes a repeated field unpacked, one tag per element.
#[inline(always)]
pub fn write_repeated<C: Ops>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    C::write_repeated_ool(values, tag, w);
}

fn write_repeated_impl<C: Ops>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    for v in values.iter().rev() {
        C::write_value(v, tag, w);
    }
}

/// Size of a packed repeated field, tag and length included.
#[inline(always)]
#[must_use]
pub fn size_packed<C: PackedOps>(values: &[C::Value], key_len: usize) -> usize {
    C::size_packed_ool(values, key_len)
}

/// Writes a packed repeated field (nothing if it is empty).
#[inline(always)]
pub fn write_packed<C: PackedOps>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    C::write_packed_ool(values, tag, w);
}

/// Reads a packed run and appends its elements.
///
/// # Errors
/// As [`merge`].
#[inline(always)]
pub fn merge_packed<C: PackedOps>(r: &mut Reader<'_>, values: &mut Vec<C::Value>) -> Result<(), DecodeError> {
    C::merge_packed_ool(r, values)
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
    let r = Reader::with_budget(buf, options.allocation_budget(buf.len()));
    decode::enter(buf.len(), r, options, name, |r, depth| m.merge_from_dyn(r, depth))
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

// Views of size-mode messages: the same calls out of line, one copy per
// value type in a crate instead of one per field, which is most of what a
// large schema's views cost to compile.

/// [`view::support::merge`](crate::view::support::merge), out of line.
///
/// # Errors
/// Malformed input.
#[inline(never)]
pub fn view_merge<'a, C: ViewCodec<'a>>(
    slot: &mut Option<C::Item>,
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<(), DecodeError> {
    C::merge(slot, r, depth)
}

/// [`view::support::merge_implicit`](crate::view::support::merge_implicit), out of line.
///
/// # Errors
/// Malformed input.
#[inline(never)]
pub fn view_merge_implicit<'a, C: ViewCodec<'a>>(
    value: &mut C::Item,
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<(), DecodeError> {
    C::merge_implicit(value, r, depth)
}

/// [`view::support::merge`](crate::view::support::merge) for a oneof member, out of line (the variant made
/// by the caller).
///
/// # Errors
/// Malformed input.
#[inline(never)]
pub fn view_merge_value<'a, C: ViewCodec<'a>>(r: &mut Reader<'a>, depth: u32) -> Result<Option<C::Item>, DecodeError> {
    let mut v = None;
    C::merge(&mut v, r, depth)?;
    Ok(v)
}
