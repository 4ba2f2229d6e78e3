//! Decode tables: how size-mode messages decode (`protoc_gen_fastrs::Mode::Size`).
//!
//! A size-mode message's `merge_from` is data, not code: a static
//! [`Table`] with one [`Entry`] per field number (its tags, the field's
//! offset in the struct, and how to read it), run by one interpreter,
//! [`merge`], compiled once in this crate. Scalars, strings and bytes are
//! read inside the interpreter; other fields through the out-of-line
//! functions `outline` already compiles once per codec (called through
//! pointers with their reference parameters erased), closed enums through
//! functions of their own; oneof members and map entries through the
//! message's own [`Hooks`], the one piece of decoding code it keeps.
//!
//! Offsets come from `core::mem::offset_of!` and nothing else: entries are
//! located only by [`table_field!`](crate::table_field), which pairs each
//! offset with the field's type, checked at compile time against the type
//! the entry reads ([`FieldOp`]). One function, `field_at`, turns an
//! offset back into a reference.
#![allow(unsafe_code)]

use alloc::string::String;
use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::codec::{self, Codec};
use crate::message::enumeration::{Enum, EnumValue};
use crate::message::lax_string::LaxString;
use crate::outline::{Ops, PackedOps};
use crate::wire;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;

/// Reads one record into a field of the message at `msg`: the field at
/// `at.field`, with the message's unknown fields at `at.unknown` (for
/// values a closed enum does not name); `tag` is the record's tag, already
/// read.
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message; `at.field` is the
/// offset of one of its fields, of the type the function was made for
/// ([`FieldOp::Field`]), and `at.unknown` that of its `UnknownFields`.
pub type FieldFn =
    unsafe fn(msg: *mut u8, at: Offsets, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;

/// Where a [`FieldFn`] reads: its field, and the message's unknown fields.
#[derive(Clone, Copy, Debug)]
pub struct Offsets {
    field: u32,
    unknown: u32,
}

/// An `outline::Ops` function reading one value into the field at `field`
/// (`merge_ool`, `merge_optional_ool`), with its reference parameter
/// erased to a pointer.
///
/// # Safety
/// `field` points to a live, exclusively borrowed value of the type the
/// function was made for. (Calling the codec's function through this type
/// is sound: `&mut T` and `*mut u8` are ABI-compatible, std's "ABI
/// compatibility" of function pointers.)
pub type MergeFn = unsafe fn(field: *mut u8, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;

/// `push_ool`, erased as [`MergeFn`] is.
///
/// # Safety
/// As [`MergeFn`], for the field's `Vec`.
pub type PushFn = unsafe fn(field: *mut u8, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;

/// `merge_packed_ool`, erased as [`MergeFn`] is.
///
/// # Safety
/// As [`MergeFn`], for the field's `Vec`.
pub type PackedFn = unsafe fn(r: &mut Reader<'_>, field: *mut u8) -> Result<(), DecodeError>;

/// Calls a message's [`Hooks::merge_hooked`].
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message of the type the
/// function was made for.
#[doc(hidden)]
pub type HookFn = unsafe fn(msg: *mut u8, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;

/// How an entry reads its field.
#[derive(Clone, Copy, Debug)]
#[doc(hidden)]
pub enum Op {
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Bool,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Float,
    Double,
    Str,
    LaxStr,
    Bytes,
    /// A singular field of another codec, through the codec's own
    /// out-of-line `merge_ool` or `merge_optional_ool`.
    Merge(MergeFn),
    /// A repeated field that cannot be packed, through `push_ool`.
    Push(PushFn),
    /// A packable repeated field: `merge_packed_ool` for a packed run,
    /// `push_ool` for one element.
    Packable(PackedFn, PushFn),
    /// A closed enum, through its function (unknown numbers go to the
    /// unknown fields).
    Field(FieldFn),
    /// A oneof member or map entry: the message's [`Hooks`].
    Hook(HookFn),
    /// A `string` extension whose UTF-8 the schema checks, kept as unknown.
    CheckedUtf8,
}

/// How a field of one codec and shape is read: what the entries of
/// [`Entry::new`] names (`Implicit<Int32>`,
/// `Optional<Msg<M>>`, ...).
///
/// # Safety
/// `OP` reads a value of type `Field` and nothing else.
pub unsafe trait FieldOp {
    /// The Rust type of the field.
    type Field;
    /// How the interpreter reads it.
    const OP: Op;
}

/// A field with implicit presence (and messages' singular fields of
/// codecs that are not scalars): `C::Value`.
#[derive(Debug)]
pub struct Implicit<C>(PhantomData<C>);
/// A field with explicit presence: `Option<C::Value>`.
#[derive(Debug)]
pub struct Optional<C>(PhantomData<C>);
/// A repeated field of a type that cannot be packed: `Vec<C::Value>`.
#[derive(Debug)]
pub struct Repeated<C>(PhantomData<C>);
/// A repeated field of a packable type, read packed or not: `Vec<C::Value>`.
#[derive(Debug)]
pub struct Packable<C>(PhantomData<C>);
/// A closed enum with implicit presence: `E`.
#[derive(Debug)]
pub struct ImplicitClosed<E>(PhantomData<E>);
/// A closed enum with explicit presence: `Option<E>`.
#[derive(Debug)]
pub struct OptionalClosed<E>(PhantomData<E>);
/// A repeated closed enum: `Vec<E>`.
#[derive(Debug)]
pub struct RepeatedClosed<E>(PhantomData<E>);

macro_rules! native {
    ($($codec:ident: $ty:ty,)*) => {
        $(
            // SAFETY: the interpreter reads `Op::$codec` as a `$ty`.
            unsafe impl FieldOp for Implicit<codec::$codec> {
                type Field = $ty;
                const OP: Op = Op::$codec;
            }
        )*
    };
}

native! {
    Int32: i32,
    Int64: i64,
    Uint32: u32,
    Uint64: u64,
    Sint32: i32,
    Sint64: i64,
    Bool: bool,
    Fixed32: u32,
    Fixed64: u64,
    Sfixed32: i32,
    Sfixed64: i64,
    Float: f32,
    Double: f64,
    Str: String,
    LaxStr: LaxString,
    Bytes: Vec<u8>,
}

// SAFETY: `EnumValue<E>` is `repr(transparent)` over an `i32`, and any
// `i32` is a valid `EnumValue<E>`.
unsafe impl<E: Enum> FieldOp for Implicit<codec::OpenEnum<E>> {
    type Field = EnumValue<E>;
    const OP: Op = Op::Int32;
}

/// `Implicit<C>` read through its codec, for the codecs the interpreter
/// does not read itself.
macro_rules! through_codec {
    ($(impl<$($param:ident $(: $bound:path)?),*> for $codec:ty;)*) => {
        $(
            // SAFETY: `implicit::<C>` reads a `C::Value`.
            unsafe impl<$($param $(: $bound)?),*> FieldOp for Implicit<$codec> {
                type Field = <$codec as Codec>::Value;
                const OP: Op = Op::Merge(erase_merge::<<$codec as Codec>::Value>(<$codec as Ops>::merge_ool));
            }
        )*
    };
}

through_codec! {
    impl<M: crate::Message> for codec::Msg<M>;
}

// SAFETY: `implicit::<C>` reads a `C::Value`.
unsafe impl<M: crate::Message, const NUMBER: u32> FieldOp for Implicit<codec::Group<M, NUMBER>> {
    type Field = M;
    const OP: Op = Op::Merge(erase_merge::<M>(<codec::Group<M, NUMBER> as Ops>::merge_ool));
}

#[cfg(feature = "bytes")]
// SAFETY: `implicit::<C>` reads a `C::Value`.
unsafe impl FieldOp for Implicit<codec::SharedBytes> {
    type Field = bytes::Bytes;
    const OP: Op = Op::Merge(erase_merge::<bytes::Bytes>(<codec::SharedBytes as Ops>::merge_ool));
}

// SAFETY: `optional::<C>` reads an `Option<C::Value>`.
unsafe impl<C: Ops> FieldOp for Optional<C> {
    type Field = Option<C::Value>;
    const OP: Op = Op::Merge(erase_merge::<Option<C::Value>>(C::merge_optional_ool));
}

// SAFETY: `repeated::<C>` reads a `Vec<C::Value>`.
unsafe impl<C: Ops> FieldOp for Repeated<C> {
    type Field = Vec<C::Value>;
    const OP: Op = Op::Push(erase_push::<C::Value>(C::push_ool));
}

// SAFETY: `packable::<C>` reads a `Vec<C::Value>`.
unsafe impl<C: PackedOps> FieldOp for Packable<C> {
    type Field = Vec<C::Value>;
    const OP: Op = Op::Packable(
        erase_packed::<C::Value>(C::merge_packed_ool),
        erase_push::<C::Value>(C::push_ool),
    );
}

// SAFETY: `implicit_closed::<E>` reads an `E`.
unsafe impl<E: Enum> FieldOp for ImplicitClosed<E> {
    type Field = E;
    const OP: Op = Op::Field(implicit_closed::<E>);
}

// SAFETY: `optional_closed::<E>` reads an `Option<E>`.
unsafe impl<E: Enum> FieldOp for OptionalClosed<E> {
    type Field = Option<E>;
    const OP: Op = Op::Field(optional_closed::<E>);
}

// SAFETY: `repeated_closed::<E>` reads a `Vec<E>`.
unsafe impl<E: Enum> FieldOp for RepeatedClosed<E> {
    type Field = Vec<E>;
    const OP: Op = Op::Field(repeated_closed::<E>);
}

/// `f` as a [`MergeFn`].
const fn erase_merge<T>(f: fn(&mut T, &mut Reader<'_>, u32) -> Result<(), DecodeError>) -> MergeFn {
    // SAFETY: a function pointer to a function pointer of the same size;
    // calls through it pass a `*mut T` for the `&mut T` (see `MergeFn`).
    unsafe { core::mem::transmute::<fn(&mut T, &mut Reader<'_>, u32) -> Result<(), DecodeError>, MergeFn>(f) }
}

/// `f` as a [`PushFn`].
const fn erase_push<T>(f: fn(&mut Vec<T>, &mut Reader<'_>, u32, u32) -> Result<(), DecodeError>) -> PushFn {
    // SAFETY: as in `erase_merge`.
    unsafe { core::mem::transmute::<fn(&mut Vec<T>, &mut Reader<'_>, u32, u32) -> Result<(), DecodeError>, PushFn>(f) }
}

/// `f` as a [`PackedFn`].
const fn erase_packed<T>(f: fn(&mut Reader<'_>, &mut Vec<T>) -> Result<(), DecodeError>) -> PackedFn {
    // SAFETY: as in `erase_merge`.
    unsafe { core::mem::transmute::<fn(&mut Reader<'_>, &mut Vec<T>) -> Result<(), DecodeError>, PackedFn>(f) }
}

/// One field number of a message `M`: the tags it reads (the main one, and
/// a packable field's other encoding, else 0), where, and how.
#[repr(transparent)]
pub struct Entry<M> {
    raw: Raw,
    _message: PhantomData<fn(M) -> M>,
}

/// An [`Entry`] without its message type, so that the interpreter is
/// compiled once for all messages.
struct Raw {
    tag: u32,
    alt: u32,
    offset: u32,
    op: Op,
}

impl Raw {
    const fn number(&self) -> u32 {
        self.tag >> 3
    }
}

impl<M> Entry<M> {
    /// An entry reading tags `tag` and `alt` (0 for none) into `field`
    /// with `O`.
    #[must_use]
    pub const fn new<O: FieldOp>(tag: u32, alt: u32, field: FieldAt<M, O::Field>) -> Self {
        Self::with_op(tag, alt, field.offset, O::OP)
    }

    /// An entry for a oneof member or map entry, read by `M`'s [`Hooks`].
    #[must_use]
    pub const fn hooked(tag: u32) -> Self
    where
        M: Hooks,
    {
        Self::with_op(tag, 0, 0, Op::Hook(hook::<M>))
    }

    /// An entry for a `string` extension whose UTF-8 the schema checks:
    /// checked, then kept with the unknown fields.
    #[must_use]
    pub const fn checked_utf8(tag: u32) -> Self {
        Self::with_op(tag, 0, 0, Op::CheckedUtf8)
    }

    const fn with_op(tag: u32, alt: u32, offset: usize, op: Op) -> Self {
        Self {
            raw: Raw {
                tag,
                alt,
                offset: narrow(offset),
                op,
            },
            _message: PhantomData,
        }
    }
}

/// `offset` as a `u32`.
///
/// # Panics
/// At compile time (tables are statics), for a struct of 4 GiB or more.
const fn narrow(offset: usize) -> u32 {
    #[allow(clippy::cast_possible_truncation)] // checked below
    let narrow = offset as u32;
    assert!(
        narrow as usize == offset,
        "fastrs: a field's offset does not fit in 32 bits"
    );
    narrow
}

/// A field of type `T` in message type `M`: its offset, which only
/// [`table_field!`](crate::table_field) gives.
pub struct FieldAt<M, T> {
    offset: usize,
    _message: PhantomData<fn(M) -> M>,
    _field: PhantomData<fn(T) -> T>,
}

impl<M, T> FieldAt<M, T> {
    /// # Safety
    /// `offset` is `offset_of!(M, f)` for a field `f`, and `_field` points
    /// to `f` (which gives its type).
    #[doc(hidden)]
    #[must_use]
    pub const unsafe fn new(offset: usize, _field: *const T) -> Self {
        Self {
            offset,
            _message: PhantomData,
            _field: PhantomData,
        }
    }
}

/// The part of a message's decoding that is not a table entry: its oneof
/// members and map entries, implemented by generated code.
pub trait Hooks {
    /// Reads the record of `tag` (one an [`Entry::hooked`] names).
    ///
    /// # Errors
    /// The record is malformed or breaks a decode limit.
    fn merge_hooked(&mut self, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;
}

/// [`Hooks::merge_hooked`] on the message at `msg`.
///
/// # Safety
/// As [`HookFn`]: `msg` points to a live, exclusively borrowed `M`.
unsafe fn hook<M: Hooks>(msg: *mut u8, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
    // SAFETY: the caller's contract.
    let msg = unsafe { &mut *msg.cast::<M>() };
    msg.merge_hooked(r, depth, tag)
}

/// The decode table of message `M`: its `N` entries by ascending field
/// number, and for the numbers below `by_number.len()`, the index of each
/// one's entry plus one (0 for none). A wrong index or order only makes
/// fields unknown: the interpreter checks each record's tag against the
/// entry it finds.
pub struct Table<M: 'static, const N: usize> {
    entries: [Entry<M>; N],
    by_number: &'static [u16],
    unknown: u32,
}

impl<M: 'static, const N: usize> Table<M, N> {
    /// A table of `entries` (by ascending number, as `by_number` indexes
    /// them) with unknown fields kept at `unknown`. The entries are held by
    /// value: a static's array of them then needs no promotion to
    /// `'static`, which the type checks of [`table_field!`](crate::table_field)
    /// would prevent.
    #[must_use]
    pub const fn new(entries: [Entry<M>; N], by_number: &'static [u16], unknown: FieldAt<M, UnknownFields>) -> Self {
        Self {
            entries,
            by_number,
            unknown: narrow(unknown.offset),
        }
    }
}

/// Decodes the records of `r` into `msg` by its table: what a size-mode
/// message's `merge_from` calls.
///
/// # Errors
/// The input is malformed or breaks a decode limit.
#[inline]
pub fn merge<M: 'static, const N: usize>(
    msg: &mut M,
    table: &'static Table<M, N>,
    r: &mut Reader<'_>,
    depth: u32,
) -> Result<(), DecodeError> {
    // SAFETY: `Entry<M>` is a `repr(transparent)` `Raw`.
    let entries = unsafe { core::slice::from_raw_parts(table.entries.as_ptr().cast::<Raw>(), N) };
    let table = Erased {
        entries,
        by_number: table.by_number,
        unknown: table.unknown,
    };
    // SAFETY: `msg` is a live `M`, exclusively borrowed for the call, and
    // the table was made for `M` (its entries' offsets are `M`'s fields).
    unsafe { merge_erased(&table, core::ptr::from_mut(msg).cast(), r, depth) }
}

/// A [`Table`] without its message type.
struct Erased {
    entries: &'static [Raw],
    by_number: &'static [u16],
    unknown: u32,
}

impl Erased {
    /// The entry of field `number`, if it has one: by index for small
    /// numbers, else by binary search.
    #[inline]
    fn entry(&self, number: u32) -> Option<&Raw> {
        match self.by_number.get(number as usize) {
            Some(&at) => self.entries.get(usize::from(at).wrapping_sub(1)),
            None => self
                .entries
                .binary_search_by_key(&number, Raw::number)
                .ok()
                .map(|i| &self.entries[i]),
        }
    }
}

/// The field of type `T` at `offset` bytes into the message at `msg`: the
/// one place an offset becomes a reference.
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message, and `offset` is
/// the offset of one of its fields, of type `T`, which nothing else
/// borrows for `'m`.
#[inline(always)]
unsafe fn field_at<'m, T>(msg: *mut u8, offset: u32) -> &'m mut T {
    // SAFETY: the caller's contract.
    unsafe { &mut *msg.add(offset as usize).cast::<T>() }
}

/// A pointer to the field at `offset` bytes into the message at `msg`.
///
/// # Safety
/// As [`field_at`]: `offset` is the offset of one of the message's fields.
#[inline(always)]
unsafe fn field_ptr(msg: *mut u8, offset: u32) -> *mut u8 {
    // SAFETY: the caller's contract; the field is inside the message.
    unsafe { msg.add(offset as usize) }
}

/// The interpreter.
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message of the type
/// `table` was made for.
#[inline(never)]
unsafe fn merge_erased(table: &Erased, msg: *mut u8, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    // SAFETY: the caller's contract; `table.unknown` is the offset of the
    // message's `UnknownFields` (`Table::new`).
    let unknown = || unsafe { field_at::<UnknownFields>(msg, table.unknown) };
    while !r.is_empty() {
        let tag = r.read_tag()?;
        let Some(e) = table.entry(tag >> 3).filter(|e| tag == e.tag || tag == e.alt) else {
            r.skip_field(tag, depth, unknown())?;
            continue;
        };
        // SAFETY (each arm): the entry was made from a `FieldAt` of this
        // message's type, so `e.offset` is a field of the type its op reads
        // (`FieldOp`), and no other reference to the message is live.
        unsafe {
            match e.op {
                Op::Int32 => codec::Int32::merge(field_at(msg, e.offset), r, depth),
                Op::Int64 => codec::Int64::merge(field_at(msg, e.offset), r, depth),
                Op::Uint32 => codec::Uint32::merge(field_at(msg, e.offset), r, depth),
                Op::Uint64 => codec::Uint64::merge(field_at(msg, e.offset), r, depth),
                Op::Sint32 => codec::Sint32::merge(field_at(msg, e.offset), r, depth),
                Op::Sint64 => codec::Sint64::merge(field_at(msg, e.offset), r, depth),
                Op::Bool => codec::Bool::merge(field_at(msg, e.offset), r, depth),
                Op::Fixed32 => codec::Fixed32::merge(field_at(msg, e.offset), r, depth),
                Op::Fixed64 => codec::Fixed64::merge(field_at(msg, e.offset), r, depth),
                Op::Sfixed32 => codec::Sfixed32::merge(field_at(msg, e.offset), r, depth),
                Op::Sfixed64 => codec::Sfixed64::merge(field_at(msg, e.offset), r, depth),
                Op::Float => codec::Float::merge(field_at(msg, e.offset), r, depth),
                Op::Double => codec::Double::merge(field_at(msg, e.offset), r, depth),
                Op::Str => codec::Str::merge(field_at(msg, e.offset), r, depth),
                Op::LaxStr => codec::LaxStr::merge(field_at(msg, e.offset), r, depth),
                Op::Bytes => codec::Bytes::merge(field_at(msg, e.offset), r, depth),
                Op::Merge(merge) => merge(field_ptr(msg, e.offset), r, depth),
                Op::Push(push) => push(field_ptr(msg, e.offset), r, depth, tag),
                Op::Packable(packed, push) => {
                    if tag & 7 == u32::from(wire::LEN) {
                        packed(r, field_ptr(msg, e.offset))
                    } else {
                        push(field_ptr(msg, e.offset), r, depth, tag)
                    }
                }
                Op::Field(read) => {
                    let at = Offsets {
                        field: e.offset,
                        unknown: table.unknown,
                    };
                    read(msg, at, r, depth, tag)
                }
                Op::Hook(hook) => hook(msg, r, depth, tag),
                Op::CheckedUtf8 => r.skip_checked_utf8(tag, unknown()),
            }?;
        }
    }
    Ok(())
}

// The `FieldFn`s. SAFETY (each `field_at`): `FieldFn`'s contract; the
// field and the unknown fields are distinct fields of the message.

unsafe fn implicit_closed<E: Enum>(
    msg: *mut u8,
    at: Offsets,
    r: &mut Reader<'_>,
    _depth: u32,
    tag: u32,
) -> Result<(), DecodeError> {
    if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unsafe { field_at(msg, at.unknown) })? {
        *unsafe { field_at::<E>(msg, at.field) } = v;
    }
    Ok(())
}

unsafe fn optional_closed<E: Enum>(
    msg: *mut u8,
    at: Offsets,
    r: &mut Reader<'_>,
    _depth: u32,
    tag: u32,
) -> Result<(), DecodeError> {
    if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unsafe { field_at(msg, at.unknown) })? {
        *unsafe { field_at::<Option<E>>(msg, at.field) } = Some(v);
    }
    Ok(())
}

unsafe fn repeated_closed<E: Enum>(
    msg: *mut u8,
    at: Offsets,
    r: &mut Reader<'_>,
    _depth: u32,
    tag: u32,
) -> Result<(), DecodeError> {
    let (values, unknown) = unsafe { (field_at::<Vec<E>>(msg, at.field), field_at(msg, at.unknown)) };
    if tag & 7 == u32::from(wire::LEN) {
        codec::enums::merge_packed_closed::<E>(r, values, tag >> 3, unknown)
    } else {
        if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unknown)? {
            values.push(v);
        }
        Ok(())
    }
}

/// The [`FieldAt`] of field `$field` of message type `$msg`.
#[doc(hidden)]
#[macro_export]
macro_rules! table_field {
    ($msg:ty, $field:ident) => {
        // SAFETY: the offset and the pointer are of the same field. The
        // pointer, made at compile time (tables are statics), only gives
        // the field's type: no value of `$msg` is read, and no code is
        // compiled for it.
        unsafe {
            $crate::__private::table::FieldAt::<$msg, _>::new(
                ::core::mem::offset_of!($msg, $field),
                &raw const (*::core::mem::MaybeUninit::<$msg>::uninit().as_ptr()).$field,
            )
        }
    };
}

#[cfg(all(test, feature = "std"))]
mod tests;
