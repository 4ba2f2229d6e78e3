//! How entries handle fields the interpreters do not handle themselves:
//! the [`FieldOp`] of each codec and shape, and its [`FieldVt`], built once
//! per codec and shape from the codec's out-of-line functions (`outline`)
//! with their reference parameters erased to pointers.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::marker::PhantomData;

use super::{erased, field_mut, Erased, Op, Tabled};
use crate::codec::{self, Codec};
use crate::message::enumeration::{Enum, EnumValue};
use crate::message::recycle::{KeptType, Recycler, Reusable};
use crate::outline::{Ops, PackedOps};
use crate::wire;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

/// How a field of one codec and shape is handled: what [`Entry::new`]
/// names (`Implicit<Int32>`, `Optional<Msg<M>>`, ...).
///
/// [`Entry::new`]: super::Entry::new
///
/// # Safety
/// `OP` handles a value of type `Field` and nothing else.
pub unsafe trait FieldOp {
    /// The Rust type of the field.
    type Field;
    /// How the interpreters handle it.
    const OP: Op;
}

/// The functions of a field that the interpreters do not handle
/// themselves, each taking the field by pointer.
///
/// Each is called only with a pointer to a live field of the type it was
/// made for (`FieldOp`), exclusively borrowed for `read` and `clear`.
#[doc(hidden)]
pub struct FieldVt {
    pub(super) read: Read,
    /// The encoded size of the field's values, with their keys of
    /// `key_len` bytes each.
    pub(super) size: unsafe fn(field: *const u8, key_len: usize) -> usize,
    /// Writes the field's values, each with key `key`, backwards.
    pub(super) write: unsafe fn(field: *const u8, key: &[u8], w: &mut Writer<'_>),
    /// Clears the field.
    pub(super) clear: unsafe fn(field: *mut u8),
}

impl core::fmt::Debug for FieldVt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FieldVt")
    }
}

/// How a [`FieldVt`] reads one record.
pub(super) enum Read {
    /// A singular value, through `merge_ool` or `merge_optional_ool`.
    Merge(unsafe fn(field: *mut u8, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>),
    /// One element of a repeated field, through `push_ool`.
    Push(ErasedPush),
    /// A packable repeated field: `merge_packed_ool` for a packed run,
    /// `push_ool` for one element.
    Packable(
        unsafe fn(r: &mut Reader<'_>, field: *mut u8) -> Result<(), DecodeError>,
        unsafe fn(field: *mut u8, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>,
    ),
    /// A repeated field of strings or bytes: one element, into a buffer
    /// the message's recycler kept if it has one; and `keep`, which clears
    /// the field into the recycler.
    Buffers {
        push: PushBuffer,
        keep: unsafe fn(field: *mut u8, rec: &mut Recycler),
    },
    /// A closed enum, which sends numbers it does not name to the message's
    /// unknown fields (at `unknown` bytes into it).
    Closed(unsafe fn(msg: *mut u8, field: u32, unknown: u32, r: &mut Reader<'_>, tag: u32) -> Result<(), DecodeError>),
}

/// [`Read::Push`]'s function, which reads one element (`push_fn`).
pub(super) type ErasedPush =
    unsafe fn(field: *mut u8, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError>;

/// [`Read::Buffers`]' function that reads one element.
pub(super) type PushBuffer = unsafe fn(
    field: *mut u8,
    r: &mut Reader<'_>,
    depth: u32,
    tag: u32,
    rec: Option<&mut Recycler>,
) -> Result<(), DecodeError>;

/// A field with implicit presence, or a message's singular field that is
/// not an `Option`: `C::Value`.
#[derive(Debug)]
pub struct Implicit<C>(PhantomData<C>);
/// A field with explicit presence: `Option<C::Value>`.
#[derive(Debug)]
pub struct Optional<C>(PhantomData<C>);
/// A repeated field of a type that cannot be packed: `Vec<C::Value>`.
#[derive(Debug)]
pub struct Repeated<C>(PhantomData<C>);
/// A packable repeated field written packed (and read either way).
#[derive(Debug)]
pub struct Packed<C>(PhantomData<C>);
/// A packable repeated field written one record per value (and read
/// either way).
#[derive(Debug)]
pub struct Expanded<C>(PhantomData<C>);
/// A closed enum with implicit presence: `E`.
#[derive(Debug)]
pub struct ImplicitClosed<E>(PhantomData<E>);
/// A closed enum with explicit presence: `Option<E>`.
#[derive(Debug)]
pub struct OptionalClosed<E>(PhantomData<E>);
/// A repeated closed enum written packed: `Vec<E>`.
#[derive(Debug)]
pub struct PackedClosed<E>(PhantomData<E>);
/// A repeated closed enum written one record per value: `Vec<E>`.
#[derive(Debug)]
pub struct ExpandedClosed<E>(PhantomData<E>);

/// The impls of `$op` (a trait with type `$field` and const `OP`) for
/// `$shape<C>` of each codec `C` the interpreters handle themselves, as
/// the Rust type of its values: for fields (`Implicit`) and for oneof
/// members (`Member`).
macro_rules! natives {
    ($op:ident, $field:ident, $shape:ident) => {
        natives!(@ $op, $field, $shape,
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
            Str: alloc::string::String,
            LaxStr: crate::message::lax_string::LaxString,
            Bytes: alloc::vec::Vec<u8>,
        );
    };
    (@ $op:ident, $field:ident, $shape:ident, $($codec:ident: $ty:ty,)*) => {
        $(
            // SAFETY: the interpreters handle `Op::$codec` as a `$ty`.
            unsafe impl $op for $shape<crate::codec::$codec> {
                type $field = $ty;
                const OP: Op = Op::$codec;
            }
        )*
    };
}
pub(super) use natives;

natives!(FieldOp, Field, Implicit);

// SAFETY: `EnumValue<E>` is `repr(transparent)` over an `i32`, any `i32` is
// a valid `EnumValue<E>`, and an open enum's value is sized and written as
// an `int32`'s.
unsafe impl<E: Enum> FieldOp for Implicit<codec::OpenEnum<E>> {
    type Field = EnumValue<E>;
    const OP: Op = Op::Int32;
}

/// The impls of `$op` (a trait with type `$field` and const `OP`) for
/// `$shape<C>` of the codecs the interpreters do not handle themselves,
/// through the codec's functions and `$size`, `$write` and `$clear` (each
/// generic over the codec): for fields (`Implicit`) and for oneof members
/// (`Member`).
macro_rules! through_codecs {
    ($op:ident, $field:ident, $shape:ident, $size:ident, $write:ident, $clear:ident) => {
        through_codecs!(@ $op, $field, $shape, $size, $write, $clear,
            impl[M: crate::Message] for crate::codec::Msg<M>;
            impl[M: crate::Message, const NUMBER: u32] for crate::codec::Group<M, NUMBER>;
        );
        #[cfg(feature = "bytes")]
        through_codecs!(@ $op, $field, $shape, $size, $write, $clear, impl[] for crate::codec::SharedBytes;);
    };
    (@ $op:ident, $field:ident, $shape:ident, $size:ident, $write:ident, $clear:ident,
        $(impl[$($generics:tt)*] for $codec:ty;)*) => {
        $(
            // SAFETY: the functions handle a `C::Value`.
            unsafe impl<$($generics)*> $op for $shape<$codec> {
                type $field = <$codec as crate::codec::Codec>::Value;
                const OP: Op = Op::Vt(&FieldVt {
                    read: Read::Merge($crate::table::ops::merge_fn::<<$codec as crate::codec::Codec>::Value>(
                        <$codec as Ops>::merge_ool,
                    )),
                    size: $size::<$codec>,
                    write: $write::<$codec>,
                    clear: $clear::<$codec>,
                });
            }
        )*
    };
}
pub(super) use through_codecs;

through_codecs!(FieldOp, Field, Implicit, size_implicit, write_implicit, clear_implicit);

// SAFETY: the functions of `optional::<C>` handle an `Option<C::Value>`.
unsafe impl<C: Ops> FieldOp for Optional<C> {
    type Field = Option<C::Value>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Merge(merge_fn::<Option<C::Value>>(C::merge_optional_ool)),
        size: size_optional::<C>,
        write: write_optional::<C>,
        clear: clear_none::<C::Value>,
    });
}

/// The impls of `FieldOp` for `Repeated<C>` of the codecs of messages,
/// groups and shared bytes, whose values a recycler does not keep.
macro_rules! repeated {
    ($(impl[$($generics:tt)*] for $codec:ty;)*) => {
        $(
            // SAFETY: the functions handle a `Vec<C::Value>`.
            unsafe impl<$($generics)*> FieldOp for Repeated<$codec> {
                type Field = Vec<<$codec as Codec>::Value>;
                const OP: Op = Op::Vt(&FieldVt {
                    read: Read::Push(push_fn::<<$codec as Codec>::Value>(<$codec as Ops>::push_ool)),
                    size: size_expanded::<$codec>,
                    write: write_expanded::<$codec>,
                    clear: clear_vec::<<$codec as Codec>::Value>,
                });
            }
        )*
    };
}

repeated!(
    impl[M: crate::Message] for codec::Msg<M>;
    impl[M: crate::Message, const NUMBER: u32] for codec::Group<M, NUMBER>;
);
#[cfg(feature = "bytes")]
repeated!(impl[] for codec::SharedBytes;);

/// The impls of `FieldOp` for `Repeated<C>` of the codecs of strings and
/// bytes, whose buffers a recycler keeps.
macro_rules! buffers {
    ($($codec:ident),*) => {
        $(
            // SAFETY: the functions handle a `Vec<C::Value>`.
            unsafe impl FieldOp for Repeated<codec::$codec> {
                type Field = Vec<<codec::$codec as Codec>::Value>;
                const OP: Op = Op::Vt(&FieldVt {
                    read: Read::Buffers {
                        push: push_buffer::<codec::$codec>,
                        keep: keep_buffers::<<codec::$codec as Codec>::Value>,
                    },
                    size: size_expanded::<codec::$codec>,
                    write: write_expanded::<codec::$codec>,
                    clear: clear_vec::<<codec::$codec as Codec>::Value>,
                });
            }
        )*
    };
}

buffers!(Str, LaxStr, Bytes);

// SAFETY: the functions handle a `Vec<C::Value>`.
unsafe impl<C: PackedOps> FieldOp for Packed<C> {
    type Field = Vec<C::Value>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Packable(
            packed_fn::<C::Value>(C::merge_packed_ool),
            push_fn::<C::Value>(C::push_ool),
        ),
        size: size_packed::<C>,
        write: write_packed::<C>,
        clear: clear_vec::<C::Value>,
    });
}

// SAFETY: the functions handle a `Vec<C::Value>`.
unsafe impl<C: PackedOps> FieldOp for Expanded<C> {
    type Field = Vec<C::Value>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Packable(
            packed_fn::<C::Value>(C::merge_packed_ool),
            push_fn::<C::Value>(C::push_ool),
        ),
        size: size_expanded::<C>,
        write: write_expanded::<C>,
        clear: clear_vec::<C::Value>,
    });
}

// SAFETY: the functions handle an `E` (`ClosedEnum<E>`'s value).
unsafe impl<E: Enum> FieldOp for ImplicitClosed<E> {
    type Field = E;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Closed(implicit_closed::<E>),
        size: size_implicit::<codec::ClosedEnum<E>>,
        write: write_implicit::<codec::ClosedEnum<E>>,
        clear: clear_default::<E>,
    });
}

// SAFETY: the functions handle an `Option<E>`.
unsafe impl<E: Enum> FieldOp for OptionalClosed<E> {
    type Field = Option<E>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Closed(optional_closed::<E>),
        size: size_optional::<codec::ClosedEnum<E>>,
        write: write_optional::<codec::ClosedEnum<E>>,
        clear: clear_none::<E>,
    });
}

// SAFETY: the functions handle a `Vec<E>`.
unsafe impl<E: Enum> FieldOp for PackedClosed<E> {
    type Field = Vec<E>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Closed(repeated_closed::<E>),
        size: size_packed::<codec::ClosedEnum<E>>,
        write: write_packed::<codec::ClosedEnum<E>>,
        clear: clear_vec::<E>,
    });
}

// SAFETY: the functions handle a `Vec<E>`.
unsafe impl<E: Enum> FieldOp for ExpandedClosed<E> {
    type Field = Vec<E>;
    const OP: Op = Op::Vt(&FieldVt {
        read: Read::Closed(repeated_closed::<E>),
        size: size_expanded::<codec::ClosedEnum<E>>,
        write: write_expanded::<codec::ClosedEnum<E>>,
        clear: clear_vec::<E>,
    });
}

/// The codec of a message field whose type `M` has a table ([`Tabled`]),
/// for the entries of [`Optional`] and [`Repeated`] fields: the
/// interpreters then run `M`'s table themselves, and `M` needs only a few
/// small functions of its own (the ones below that reach into `Option`
/// and `Vec`).
#[derive(Debug)]
pub struct Tab<M>(PhantomData<M>);

/// [`Tab`] for a field that holds its message in a `Box` (a message that
/// contains its own type).
#[derive(Debug)]
pub struct TabBox<M>(PhantomData<M>);

/// The entry of a message field whose type has a table.
#[doc(hidden)]
pub struct MsgField {
    /// The message type's table. (A function: a constant could not hold
    /// it, since a message's table may hold its own type's entries.)
    pub(super) table: fn() -> &'static Erased,
    /// `Message::FULL_NAME` of the type, for errors.
    pub(super) name: &'static str,
    /// `Message::FOOTPRINT` of the field's values.
    pub(super) footprint: usize,
    pub(super) access: Access,
}

impl core::fmt::Debug for MsgField {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MsgField")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// How the interpreters reach the messages of a [`MsgField`], through
/// functions made for its type, each taking the field by pointer (live,
/// and exclusively borrowed for the ones that take `*mut u8`).
pub(super) enum Access {
    /// `Option<M>` or `Option<Box<M>>`.
    Optional {
        /// `M`, as a recycler keeps the field's messages; none for a
        /// `Box<M>`, which is not kept.
        kept: Option<KeptType>,
        /// The held message, or null.
        get: unsafe fn(field: *const u8) -> *const u8,
        /// The held message; if none, first `kept` moved in if not null
        /// (a kept `M`), else a default one.
        get_or_default: unsafe fn(field: *mut u8, kept: *const u8) -> *mut u8,
        /// Empties the field: drops the held message, or if `moved`, not
        /// (it was moved out).
        clear: unsafe fn(field: *mut u8, moved: bool),
    },
    /// A oneof member's `M` (or `Box<M>`), which the interpreters reach
    /// through its `MemberAt`: no functions of its own.
    Member,
    /// `Vec<M>`.
    Repeated {
        /// `M`, as a recycler keeps the field's messages.
        kept: KeptType,
        /// The first element and the number of them.
        elements: unsafe fn(field: *const u8) -> (*const u8, usize),
        /// `size_of::<M>()`: from one element to the next.
        stride: usize,
        /// Appends `kept` moved in if not null (a kept `M`), else a
        /// default message, and gives it.
        push: unsafe fn(field: *mut u8, kept: *const u8) -> *mut u8,
        /// Empties the vector: drops its elements, or if `moved`, not
        /// (they were moved out).
        clear: unsafe fn(field: *mut u8, moved: bool),
    },
}

// SAFETY: the functions handle an `Option<M>`, and the table is `M`'s.
unsafe impl<M: Tabled> FieldOp for Optional<Tab<M>> {
    type Field = Option<M>;
    const OP: Op = Op::Msg(&MsgField {
        table: erased::<M>,
        name: M::FULL_NAME,
        footprint: M::FOOTPRINT,
        access: Access::Optional {
            kept: Some(kept_type::<M>()),
            get: option_get::<M>,
            get_or_default: option_get_or_default::<M>,
            clear: option_clear::<M>,
        },
    });
}

// SAFETY: the functions handle an `Option<Box<M>>`, and the table is `M`'s.
unsafe impl<M: Tabled> FieldOp for Optional<TabBox<M>> {
    type Field = Option<Box<M>>;
    const OP: Op = Op::Msg(&MsgField {
        table: erased::<M>,
        name: M::FULL_NAME,
        footprint: <Box<M> as crate::Message>::FOOTPRINT,
        access: Access::Optional {
            kept: None,
            get: boxed_get::<M>,
            get_or_default: boxed_get_or_default::<M>,
            clear: option_clear::<Box<M>>,
        },
    });
}

// SAFETY: the functions handle a `Vec<M>`, and the table is `M`'s.
unsafe impl<M: Tabled> FieldOp for Repeated<Tab<M>> {
    type Field = Vec<M>;
    const OP: Op = Op::Msg(&MsgField {
        table: erased::<M>,
        name: M::FULL_NAME,
        footprint: M::FOOTPRINT,
        access: Access::Repeated {
            kept: kept_type::<M>(),
            elements: vec_elements::<M>,
            stride: core::mem::size_of::<M>(),
            push: vec_push::<M>,
            clear: vec_clear::<M>,
        },
    });
}

// The `Access` functions. SAFETY (each dereference): `Access`'s contract,
// for the type the function was made for.

unsafe fn option_get<M>(field: *const u8) -> *const u8 {
    match unsafe { &*(field as *const Option<M>) } {
        Some(m) => m as *const M as *const u8,
        None => core::ptr::null(),
    }
}

unsafe fn option_get_or_default<M: Default>(field: *mut u8, kept: *const u8) -> *mut u8 {
    let o = unsafe { &mut *(field as *mut Option<M>) };
    if !kept.is_null() {
        // SAFETY: the caller's contract: `o` holds nothing (a `None` owns
        // nothing to drop), and `kept` is an `M`, moved out here.
        unsafe { core::ptr::write(o, Some(core::ptr::read(kept as *const M))) };
    }
    fill(o, fresh::<M>) as *mut M as *mut u8
}

unsafe fn boxed_get<M>(field: *const u8) -> *const u8 {
    match unsafe { &*(field as *const Option<Box<M>>) } {
        Some(m) => &**m as *const M as *const u8,
        None => core::ptr::null(),
    }
}

unsafe fn boxed_get_or_default<M: Default>(field: *mut u8, _kept: *const u8) -> *mut u8 {
    &mut **fill(unsafe { &mut *(field as *mut Option<Box<M>>) }, fresh_box::<M>) as *mut M as *mut u8
}

unsafe fn option_clear<T>(field: *mut u8, moved: bool) {
    let o = unsafe { &mut *(field as *mut Option<T>) };
    if moved {
        // SAFETY: the caller moved the held value out. (The same
        // `ptr::write` as `fill`'s, so no other function per type.)
        unsafe { core::ptr::write(o, None) };
    } else {
        *o = None;
    }
}

unsafe fn vec_elements<M>(field: *const u8) -> (*const u8, usize) {
    let v = unsafe { &*(field as *const Vec<M>) };
    (v.as_ptr() as *const u8, v.len())
}

unsafe fn vec_push<M: Default>(field: *mut u8, kept: *const u8) -> *mut u8 {
    let v = unsafe { &mut *(field as *mut Vec<M>) };
    let at = v.len();
    v.push(if kept.is_null() {
        fresh::<M>()
    } else {
        // SAFETY: the caller's contract: a kept `M`, moved out here.
        unsafe { core::ptr::read(kept as *const M) }
    });
    // SAFETY: `at` is the index of the element just pushed.
    unsafe { v.as_mut_ptr().add(at) as *mut u8 }
}

unsafe fn vec_clear<M>(field: *mut u8, moved: bool) {
    let v = unsafe { &mut *(field as *mut Vec<M>) };
    if moved {
        // SAFETY: the caller moved every element out.
        unsafe { v.set_len(0) };
    } else {
        v.clear();
    }
}

/// The [`KeptType`] of `T`.
const fn kept_type<T: Send + Sync + 'static>() -> KeptType {
    KeptType {
        id: core::any::TypeId::of::<T>(),
        size: core::mem::size_of::<T>(),
        align: core::mem::align_of::<T>(),
        // SAFETY: as in `merge_fn`, for `drop_in_place`'s `*mut T`.
        drop: unsafe { core::mem::transmute::<unsafe fn(*mut T), unsafe fn(*mut u8)>(core::ptr::drop_in_place::<T>) },
    }
}

/// `T::default()`, compiled once per type rather than inlined into each
/// function that makes one: a message's default is as long as its list of
/// fields, and a message type is made by its `Option` field's accessor,
/// its `Vec` field's and each oneof member's alike.
#[doc(hidden)]
#[inline(never)]
pub fn fresh<T: Default>() -> T {
    T::default()
}

/// What `o` holds, `make()` put in it first if it held nothing. Unlike
/// `Option::get_or_insert_with`, no drop of the `None` it replaces (nor
/// the unwinding path around one) is compiled for each type.
/// (`if let` rather than `is_none`, which a debug build would compile once
/// per type too.)
#[inline(always)]
#[allow(clippy::redundant_pattern_matching)]
fn fill<T>(o: &mut Option<T>, make: fn() -> T) -> &mut T {
    if let None = o {
        // SAFETY: `o` is valid for writes, and the `None` it held owns
        // nothing to drop.
        unsafe { core::ptr::write(o, Some(make())) };
    }
    match o {
        Some(v) => v,
        // SAFETY: `o` was made `Some` above, if it was not.
        None => unsafe { core::hint::unreachable_unchecked() },
    }
}

/// [`fresh`], boxed.
fn fresh_box<M: Default>() -> Box<M> {
    Box::new(fresh())
}

type MergeFn<T> = fn(&mut T, &mut Reader<'_>, u32) -> Result<(), DecodeError>;
type PushFn<T> = fn(&mut Vec<T>, &mut Reader<'_>, u32, u32) -> Result<(), DecodeError>;
type PackedFn<T> = fn(&mut Reader<'_>, &mut Vec<T>) -> Result<(), DecodeError>;

/// `f` as a [`Read::Merge`] function.
pub(super) const fn merge_fn<T>(f: MergeFn<T>) -> unsafe fn(*mut u8, &mut Reader<'_>, u32) -> Result<(), DecodeError> {
    // SAFETY: a function pointer to a function pointer of the same size;
    // calls through it pass a `*mut T` for the `&mut T`, which is ABI
    // compatible (std's "ABI compatibility" of function pointers), and
    // `FieldVt`'s callers pass a pointer to a live, exclusive `T`.
    unsafe {
        core::mem::transmute::<MergeFn<T>, unsafe fn(*mut u8, &mut Reader<'_>, u32) -> Result<(), DecodeError>>(f)
    }
}

/// `f` as a [`Read::Push`] function.
const fn push_fn<T>(f: PushFn<T>) -> ErasedPush {
    // SAFETY: as in `merge_fn`.
    unsafe { core::mem::transmute::<PushFn<T>, ErasedPush>(f) }
}

/// `f` as the packed function of a [`Read::Packable`].
const fn packed_fn<T>(f: PackedFn<T>) -> unsafe fn(&mut Reader<'_>, *mut u8) -> Result<(), DecodeError> {
    // SAFETY: as in `merge_fn`.
    unsafe { core::mem::transmute::<PackedFn<T>, unsafe fn(&mut Reader<'_>, *mut u8) -> Result<(), DecodeError>>(f) }
}

// The `FieldVt` functions. SAFETY (each dereference): `FieldVt`'s contract,
// for the type the function was made for.

unsafe fn size_implicit<C: Ops>(field: *const u8, key_len: usize) -> usize {
    let v = unsafe { &*(field as *const C::Value) };
    if C::is_default(v) {
        0
    } else {
        key_len + C::size(v)
    }
}

unsafe fn write_implicit<C: Ops>(field: *const u8, key: &[u8], w: &mut Writer<'_>) {
    let v = unsafe { &*(field as *const C::Value) };
    if !C::is_default(v) {
        C::write_ool(v, key, w);
    }
}

unsafe fn size_optional<C: Ops>(field: *const u8, key_len: usize) -> usize {
    match unsafe { &*(field as *const Option<C::Value>) } {
        Some(v) => key_len + C::size(v),
        None => 0,
    }
}

unsafe fn write_optional<C: Ops>(field: *const u8, key: &[u8], w: &mut Writer<'_>) {
    if let Some(v) = unsafe { &*(field as *const Option<C::Value>) } {
        C::write_ool(v, key, w);
    }
}

unsafe fn size_expanded<C: Ops>(field: *const u8, key_len: usize) -> usize {
    C::size_repeated_ool(unsafe { &*(field as *const Vec<C::Value>) }, key_len)
}

unsafe fn write_expanded<C: Ops>(field: *const u8, key: &[u8], w: &mut Writer<'_>) {
    C::write_repeated_ool(unsafe { &*(field as *const Vec<C::Value>) }, key, w);
}

unsafe fn size_packed<C: PackedOps>(field: *const u8, key_len: usize) -> usize {
    C::size_packed_ool(unsafe { &*(field as *const Vec<C::Value>) }, key_len)
}

unsafe fn write_packed<C: PackedOps>(field: *const u8, key: &[u8], w: &mut Writer<'_>) {
    C::write_packed_ool(unsafe { &*(field as *const Vec<C::Value>) }, key, w);
}

unsafe fn clear_implicit<C: Codec>(field: *mut u8) {
    unsafe { clear_default::<C::Value>(field) };
}

unsafe fn clear_default<T: Default>(field: *mut u8) {
    *unsafe { &mut *(field as *mut T) } = T::default();
}

unsafe fn clear_none<T>(field: *mut u8) {
    *unsafe { &mut *(field as *mut Option<T>) } = None;
}

unsafe fn clear_vec<T>(field: *mut u8) {
    unsafe { &mut *(field as *mut Vec<T>) }.clear();
}

unsafe fn push_buffer<C: Ops<Value: Reusable>>(
    field: *mut u8,
    r: &mut Reader<'_>,
    depth: u32,
    tag: u32,
    rec: Option<&mut Recycler>,
) -> Result<(), DecodeError> {
    let values = unsafe { &mut *(field as *mut Vec<C::Value>) };
    match rec.and_then(Recycler::kept_buffer::<C::Value>) {
        Some(mut v) => {
            C::merge(&mut v, r, depth)?;
            values.push(v);
            Ok(())
        }
        // A new buffer of exactly the value's size.
        None => C::push_ool(values, r, depth, tag),
    }
}

unsafe fn keep_buffers<T: Reusable>(field: *mut u8, rec: &mut Recycler) {
    rec.keep_all(unsafe { &mut *(field as *mut Vec<T>) });
}

// The closed enums' `Read::Closed` functions. SAFETY (each `field_mut`):
// the interpreter passes a live, exclusively borrowed message, the offset
// of a field of the function's type, and that of the message's distinct
// `UnknownFields`.

unsafe fn implicit_closed<E: Enum>(
    msg: *mut u8,
    field: u32,
    unknown: u32,
    r: &mut Reader<'_>,
    tag: u32,
) -> Result<(), DecodeError> {
    if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unsafe { field_mut(msg, unknown) })? {
        *unsafe { field_mut::<E>(msg, field) } = v;
    }
    Ok(())
}

unsafe fn optional_closed<E: Enum>(
    msg: *mut u8,
    field: u32,
    unknown: u32,
    r: &mut Reader<'_>,
    tag: u32,
) -> Result<(), DecodeError> {
    if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unsafe { field_mut(msg, unknown) })? {
        *unsafe { field_mut::<Option<E>>(msg, field) } = Some(v);
    }
    Ok(())
}

unsafe fn repeated_closed<E: Enum>(
    msg: *mut u8,
    field: u32,
    unknown: u32,
    r: &mut Reader<'_>,
    tag: u32,
) -> Result<(), DecodeError> {
    let (values, unknown) = unsafe {
        (
            field_mut::<Vec<E>>(msg, field),
            field_mut::<UnknownFields>(msg, unknown),
        )
    };
    if tag & 7 == u32::from(wire::LEN) {
        codec::enums::merge_packed_closed::<E>(r, values, tag >> 3, unknown)
    } else {
        if let Some(v) = codec::enums::read_closed_enum::<E>(r, tag, unknown)? {
            values.push(v);
        }
        Ok(())
    }
}
