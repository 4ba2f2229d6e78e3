//! Message tables: how size-mode messages decode, size, encode and clear
//! (`protoc_gen_fastrs::Mode::Size`).
//!
//! A size-mode message's `Message` methods are data, not code: a constant
//! [`Table`] with one [`Entry`] per field number (its tags, the field's
//! offset in the struct, and how to handle it), run by four interpreters
//! compiled once in this crate (`run`). Scalars, strings and bytes are
//! handled inside the interpreters; message fields whose type has a table
//! through that table ([`Tab`], [`TabBox`]); other fields through a
//! [`FieldVt`] of functions made once per codec and shape (`ops`); oneof
//! members through two small functions made for each ([`MemberAt`]); and
//! maps, and oneofs with closed-enum members, through the message's own
//! [`Tabled`] hooks, the one piece of field code a size-mode message
//! keeps. Generated code writes a table with `table!` and the `Message`
//! methods with `methods!` (`macros`).
//!
//! Offsets come from `core::mem::offset_of!` and nothing else: entries are
//! made only from [`table_field!`](crate::table_field) or `table!`, which
//! pair each offset with the field's type, checked at compile time against
//! the type the entry handles ([`FieldOp`]); a member's functions are
//! typed (`MemberAt::new`) before their types are erased. The
//! interpreters turn an entry's offset into a pointer to its field;
//! `field_mut` and `field_ref` make references of the fields the
//! interpreters handle themselves, `recycler` of the message's
//! [`Recycler`], and the functions of a `FieldVt`, `Tab` or `MemberAt`,
//! each made for one type, of the rest.
//!
//! A message with a recycler ([`Table::recycled`]) keeps what clearing
//! takes out of its nested message fields and its repeated strings and
//! bytes, each field's values in a slot of their own, and decoding reads
//! into them again, as speed-mode code does. (Generated code gives a
//! message a recycler if it has a repeated field of those.)
#![allow(unsafe_code)]

use core::marker::PhantomData;

use crate::message::recycle::Recycler;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

mod clearing;
mod macros;
mod member;
mod ops;
#[doc(hidden)]
pub mod run;

pub use member::{switch, Member, MemberAt, MemberOp};
pub use ops::{fresh, MsgField, PackedClosed, Repeated, Tab, TabBox};
pub use ops::{Expanded, ExpandedClosed, FieldOp, FieldVt, Implicit, ImplicitClosed, Optional, OptionalClosed, Packed};

/// How an entry handles its field.
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
    /// Any other field: through the functions of its codec and shape.
    Vt(&'static FieldVt),
    /// A message field whose type has a table: through that table.
    Msg(&'static MsgField),
    /// A map, or the first of a run of oneof members (by number, with no
    /// other field between them): the message's hooks.
    Hook(&'static HookVt),
    /// The other members of a run of oneof members: the message's hooks
    /// read them; the run's first entry sizes, writes and clears them.
    HookRead(&'static HookVt),
    /// A oneof member: through the functions made for it (`member`).
    Member(&'static MemberAt),
    /// A `string` extension whose UTF-8 the schema checks, kept as unknown.
    CheckedUtf8,
}

/// What the interpreters know of a scalar op's value (an integer's, a
/// float's, a bool's): the size of its field, and its longest encoding.
#[derive(Clone, Copy)]
struct Scalar {
    width: usize,
    longest: usize,
}

impl Op {
    /// The [`Scalar`] of a scalar op, `None` for other ops.
    const fn scalar(&self) -> Option<Scalar> {
        /// Codec `$c`'s values, `$longest` bytes at their longest
        /// (negative `int32`s take ten, as `int64`s do).
        macro_rules! of {
            ($c:ident, $longest:literal) => {
                Scalar {
                    width: core::mem::size_of::<<crate::codec::$c as crate::codec::Codec>::Value>(),
                    longest: $longest,
                }
            };
        }
        Some(match self {
            Op::Int32 => of!(Int32, 10),
            Op::Int64 => of!(Int64, 10),
            Op::Uint32 => of!(Uint32, 5),
            Op::Uint64 => of!(Uint64, 10),
            Op::Sint32 => of!(Sint32, 5),
            Op::Sint64 => of!(Sint64, 10),
            Op::Bool => of!(Bool, 1),
            Op::Fixed32 => of!(Fixed32, 4),
            Op::Fixed64 => of!(Fixed64, 8),
            Op::Sfixed32 => of!(Sfixed32, 4),
            Op::Sfixed64 => of!(Sfixed64, 8),
            Op::Float => of!(Float, 4),
            Op::Double => of!(Double, 8),
            _ => return None,
        })
    }
}

/// One field number of a message `M`: the tag it writes, the other one it
/// reads (a packable field's other encoding, else the same), where, and
/// how.
#[repr(transparent)]
pub struct Entry<M> {
    raw: Raw,
    _message: PhantomData<fn(M) -> M>,
}

/// An [`Entry`] without its message type, so that the interpreters are
/// compiled once for all messages.
#[doc(hidden)]
pub struct Raw {
    tag: u32,
    alt: u32,
    offset: u32,
    /// `tag` as a varint, the key written before each value: its bytes,
    /// and how many.
    key: [u8; 5],
    key_len: u8,
    /// On the last entry of a run of oneof members, how many entries back
    /// the run's first is (`Table::new`); else 0. Writing goes backwards,
    /// so it meets a run at its last entry: it writes the run there and
    /// steps over the rest.
    back: u16,
    /// On an entry that clearing visits ([`Raw::clear_next`]) whose field
    /// is an implicit scalar: how many bytes from its field clearing
    /// zeroes, its field's and those of the scalar fields that follow it
    /// in the struct (`clearing`).
    zero: u16,
    /// The index of the next entry that clearing visits (the number of
    /// entries for none): it steps over the entries whose field another
    /// entry's `zero` covers, and those it has nothing to do for.
    clear_next: u16,
    op: Op,
}

impl Raw {
    const fn number(&self) -> u32 {
        self.tag >> 3
    }

    /// The key written before each of the field's values.
    #[inline(always)]
    fn key(&self) -> &[u8] {
        &self.key[..self.key_len as usize]
    }
}

impl<M> Entry<M> {
    /// An entry with tags `tag` (written and read) and `alt` (read too, 0
    /// for none) for `field`, handled as `O`.
    #[must_use]
    pub const fn new<O: FieldOp>(tag: u32, alt: u32, field: FieldAt<M, O::Field>) -> Self {
        Self::with_op(tag, alt, field.offset, O::OP)
    }

    /// An entry for a map, or for the first of a run of oneof members,
    /// handled by `M`'s hooks.
    #[must_use]
    pub const fn hooked(tag: u32) -> Self
    where
        M: Tabled,
    {
        Self::with_op(tag, 0, 0, Op::Hook(<M as HookVtOf>::VT))
    }

    /// An entry for one of the other members of a run of oneof members,
    /// which `M`'s hooks read (and size, write and clear with the run's
    /// first).
    #[must_use]
    pub const fn hooked_read(tag: u32) -> Self
    where
        M: Tabled,
    {
        Self::with_op(tag, 0, 0, Op::HookRead(<M as HookVtOf>::VT))
    }

    /// An entry for a oneof member (`at` made for it).
    #[must_use]
    pub const fn member(tag: u32, at: &'static MemberAt) -> Self {
        Self::with_op(tag, 0, 0, Op::Member(at))
    }

    /// An entry for a `string` extension whose UTF-8 the schema checks:
    /// checked, then kept with the unknown fields.
    #[must_use]
    pub const fn checked_utf8(tag: u32) -> Self {
        Self::with_op(tag, 0, 0, Op::CheckedUtf8)
    }

    #[allow(clippy::cast_possible_truncation)] // a varint's bytes, and at most 5 of them
    const fn with_op(tag: u32, alt: u32, offset: usize, op: Op) -> Self {
        // The key, computed once here rather than on each write.
        let (mut key, mut key_len, mut rest) = ([0; 5], 0, tag);
        while rest >= 0x80 {
            key[key_len] = (rest as u8) | 0x80;
            (rest, key_len) = (rest >> 7, key_len + 1);
        }
        key[key_len] = rest as u8;
        Self {
            raw: Raw {
                tag,
                // An entry that reads no other tag reads `tag` twice, so
                // that no entry matches tag 0 (`run::merge`).
                alt: if alt == 0 { tag } else { alt },
                offset: narrow(offset),
                key,
                key_len: key_len as u8 + 1,
                back: 0,
                zero: 0,
                clear_next: 0,
                op,
            },
            _message: PhantomData,
        }
    }
}

/// `offset` as a `u32`.
///
/// # Panics
/// At compile time (tables are constants), for a struct of 4 GiB or more.
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
    /// `offset` is `offset_of!(M, f)` for a field `f` of type `T` (which
    /// `table!` checks beside).
    #[doc(hidden)]
    #[must_use]
    pub const unsafe fn offset(offset: usize) -> Self {
        Self {
            offset,
            _message: PhantomData,
            _field: PhantomData,
        }
    }

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

/// A message whose methods run a [`Table`]: its table, and hooks for what
/// is not a table entry (map entries, and the members of oneofs with
/// closed-enum members) and for which member each oneof holds, which
/// generated code implements when the message needs them.
pub trait Tabled: crate::Message + 'static {
    /// The message's table.
    const TABLE: &'static Table<Self>;

    /// Reads the record of `tag`, one an [`Entry::hooked`] or
    /// [`Entry::hooked_read`] names.
    ///
    /// # Errors
    /// The record is malformed or breaks a decode limit.
    fn merge_hooked(&mut self, r: &mut Reader<'_>, depth: u32, tag: u32) -> Result<(), DecodeError> {
        let _ = (r, depth, tag);
        Ok(())
    }

    /// The encoded size of what `tag`'s field holds (0 if nothing): the
    /// map's, or the oneof member's of the run that `tag` starts.
    fn size_hooked(&self, tag: u32) -> usize {
        let _ = tag;
        0
    }

    /// Writes what `tag`'s field holds (as [`Tabled::size_hooked`]
    /// sizes it), backwards.
    fn write_hooked(&self, tag: u32, w: &mut Writer<'_>) {
        let _ = (tag, w);
    }

    /// Clears `tag`'s field: the map, or the oneof of the run that `tag`
    /// starts.
    fn clear_hooked(&mut self, tag: u32) {
        let _ = tag;
    }

    /// The tag of the member that the oneof of the run that `tag` starts
    /// holds, 0 if none (for oneofs whose members are [`Member`] entries).
    fn which_member(&self, tag: u32) -> u32 {
        let _ = tag;
        0
    }
}

/// The hooks of a message, with its type erased: what [`Op::Hook`] and
/// [`Op::HookRead`] call.
#[doc(hidden)]
pub struct HookVt {
    merge: ErasedMerge,
    size: ErasedSize,
    write: ErasedWrite,
    clear: ErasedClear,
}

/// The hooks that a run of oneof members ([`Member`] entries) calls, with
/// the message type erased: apart from [`HookVt`], so that a message with
/// oneofs but no maps has no other hook compiled for it.
#[doc(hidden)]
pub struct RunVt {
    which: ErasedWhich,
    clear: ErasedClear,
}

impl core::fmt::Debug for HookVt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HookVt")
    }
}

/// The [`HookVt`] and [`RunVt`] of each [`Tabled`] type.
trait HookVtOf {
    const VT: &'static HookVt;
    const RUN: &'static RunVt;
}

// The hooks as typed function pointers (the trait's methods themselves,
// with no wrapper compiled per type), and as the vtables hold them: the
// message by pointer, the calls unsafe.
type MergeHook<M> = fn(&mut M, &mut Reader<'_>, u32, u32) -> Result<(), DecodeError>;
type SizeHook<M> = fn(&M, u32) -> usize;
type WriteHook<M> = fn(&M, u32, &mut Writer<'_>);
type ClearHook<M> = fn(&mut M, u32);
type WhichHook<M> = fn(&M, u32) -> u32;
type ErasedMerge = unsafe fn(*mut u8, &mut Reader<'_>, u32, u32) -> Result<(), DecodeError>;
type ErasedSize = unsafe fn(*const u8, u32) -> usize;
type ErasedWrite = unsafe fn(*const u8, u32, &mut Writer<'_>);
type ErasedClear = unsafe fn(*mut u8, u32);
type ErasedWhich = unsafe fn(*const u8, u32) -> u32;

// SAFETY (each transmute): function pointers to function pointers of the
// same size; calls through them pass a `*mut M` for the `&mut M` and a
// `*const M` for the `&M`, which are ABI compatible (std's "ABI
// compatibility" of function pointers). `HookVt`'s and `RunVt`'s callers
// pass a pointer to a live `M`, exclusively borrowed for `merge` and
// `clear`.
impl<M: Tabled> HookVtOf for M {
    const VT: &'static HookVt = unsafe {
        &HookVt {
            merge: core::mem::transmute::<MergeHook<M>, ErasedMerge>(M::merge_hooked),
            size: core::mem::transmute::<SizeHook<M>, ErasedSize>(M::size_hooked),
            write: core::mem::transmute::<WriteHook<M>, ErasedWrite>(M::write_hooked),
            clear: core::mem::transmute::<ClearHook<M>, ErasedClear>(M::clear_hooked),
        }
    };
    const RUN: &'static RunVt = unsafe {
        &RunVt {
            which: core::mem::transmute::<WhichHook<M>, ErasedWhich>(M::which_member),
            clear: core::mem::transmute::<ClearHook<M>, ErasedClear>(M::clear_hooked),
        }
    };
}

/// The table of message type `M`: its entries by ascending field number
/// (`E` is `[Entry<M>; N]` in the static that holds it), and for the
/// numbers below `by_number.len()`, the index of each one's entry (0 for
/// none: the decoder checks each record's tag against the entry it finds,
/// so a wrong index or order only makes fields unknown).
#[repr(C)]
pub struct Table<M: 'static, E: ?Sized = [Entry<M>]> {
    by_number: &'static [u16],
    unknown: u32,
    /// The offset of the message's [`Recycler`], or [`NO_RECYCLER`].
    recycle: u32,
    /// The index of the first entry that clearing visits
    /// ([`Raw::clear_next`]).
    clear_first: u16,
    /// The two longest runs of scalar fields, the longer first (empty ones
    /// if fewer), which clearing zeroes before it visits entries
    /// (`clearing`).
    scalars: [clearing::Zeroed; 2],
    /// The most bytes the message's fields take if each is a scalar, else
    /// `run::NO_BOUND` (or `run::SIZED_LAST`, if its last field is a
    /// string or bytes): a checked write with room for that many writes
    /// them without checking each.
    bound: u32,
    _message: PhantomData<fn(M) -> M>,
    entries: E,
}

/// A [`Table`] without its message type, what the interpreters run.
#[doc(hidden)]
pub type Erased = Table<(), [Raw]>;

/// The table of `M`, without its message type: what the interpreters run,
/// and what `methods!` hands them.
///
/// `M::TABLE` is a constant, so that a crate compiles a table (and the
/// functions its entries name) only if it uses the message type; and this
/// is the one place it is named, so that a crate compiles it once: a
/// constant's data is emitted in each codegen unit that names it, and so
/// is each small function that the data names.
#[doc(hidden)]
#[must_use]
#[inline(never)]
pub fn erased<M: Tabled>() -> &'static Erased {
    // SAFETY: `Table` is `repr(C)` and `Entry<M>` a `repr(transparent)`
    // `Raw`, so a `Table<M>` is an `Erased` with the same length; the
    // interpreters use it only for an `M` (see the entry points below).
    unsafe { &*(M::TABLE as *const Table<M> as *const Erased) }
}

impl<M: 'static, const N: usize> Table<M, [Entry<M>; N]> {
    /// A table of `entries` (by ascending number, as `by_number` indexes
    /// them) with unknown fields kept at `unknown`. The entries are held by
    /// value, so that a constant's table is one allocation.
    #[must_use]
    pub const fn new(
        mut entries: [Entry<M>; N],
        by_number: &'static [u16],
        unknown: FieldAt<M, UnknownFields>,
    ) -> Self {
        check_index(by_number, N);
        mark_runs(&mut entries);
        let (clear_first, scalars) = clearing::plan(&mut entries);
        let bound = run::bound(&entries);
        Self {
            by_number,
            unknown: narrow(unknown.offset),
            recycle: NO_RECYCLER,
            clear_first,
            scalars,
            bound,
            _message: PhantomData,
            entries,
        }
    }

    /// The table, with the message's recycler at `recycle`: clearing then
    /// keeps the values of the fields that can be kept (nested messages,
    /// and repeated strings and bytes) in it, and decoding reads into
    /// them again.
    #[must_use]
    pub const fn recycled(mut self, recycle: FieldAt<M, Recycler>) -> Self {
        self.recycle = narrow(recycle.offset);
        self
    }
}

/// Checks that each index of `by_number` is one of `n` entries' (the
/// decoder takes the entry it names unchecked).
///
/// # Panics
/// At compile time (tables are constants), if one is not.
const fn check_index(by_number: &[u16], n: usize) {
    let mut at = 0;
    while at < by_number.len() {
        assert!(
            (by_number[at] as usize) < n,
            "fastrs: a table's index names an entry it does not have"
        );
        at += 1;
    }
}

/// [`Table::recycle`] of a message without a recycler.
const NO_RECYCLER: u32 = u32::MAX;

/// Sets [`Raw::back`] on the last entry of each run of oneof members of
/// more than one entry: the entries of a run are consecutive, from the one
/// whose member names the run's last number to the one of that number.
///
/// # Panics
/// At compile time (tables are constants), for a run of more than 65,535
/// members.
#[allow(clippy::cast_possible_truncation)] // checked
const fn mark_runs<M>(entries: &mut [Entry<M>]) {
    let mut first = 0;
    while first < entries.len() {
        if let Op::Member(MemberAt {
            run: Some((last, _)), ..
        }) = entries[first].raw.op
        {
            let mut at = first + 1;
            while at < entries.len() && entries[at].raw.number() <= *last {
                at += 1;
            }
            let back = at - 1 - first;
            assert!(
                back <= u16::MAX as usize,
                "fastrs: a oneof has too many members for a table"
            );
            entries[at - 1].raw.back = back as u16;
            first = at;
        } else {
            first += 1;
        }
    }
}

// The entry points, one per `Message` method, for code that runs a table
// by its message type (generated code calls the interpreters itself,
// through `methods!`).
//
// SAFETY (each): the message is live and borrowed for the call (exclusively
// for `merge` and `clear`), and `erased::<M>()` is `M`'s table, its
// entries' offsets `M`'s fields (`FieldAt`).

/// Decodes the records of `r` into `msg` by its table: a size-mode
/// message's `merge_from`.
///
/// # Errors
/// The input is malformed or breaks a decode limit.
#[inline]
pub fn merge<M: Tabled>(msg: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    unsafe { run::merge(erased::<M>(), msg as *mut M as *mut u8, r, depth) }
}

/// The encoded size of `msg`: a size-mode message's `size`.
#[inline]
pub fn size<M: Tabled>(msg: &M) -> usize {
    unsafe { run::size(erased::<M>(), msg as *const M as *const u8) }
}

/// Writes `msg` backwards: a size-mode message's `write_backward`.
#[inline]
pub fn write_backward<M: Tabled>(msg: &M, w: &mut Writer<'_>) {
    unsafe { run::write_backward(erased::<M>(), msg as *const M as *const u8, w) }
}

/// Clears `msg`: a size-mode message's `clear`.
#[inline]
pub fn clear<M: Tabled>(msg: &mut M) {
    unsafe { run::clear(erased::<M>(), msg as *mut M as *mut u8) }
}

/// The field of type `T` at `offset` bytes into the message at `msg`: one
/// of the three places an offset becomes a reference.
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message, and `offset` is
/// the offset of one of its fields, of type `T`, which nothing else
/// borrows for `'m`.
#[inline(always)]
unsafe fn field_mut<'m, T>(msg: *mut u8, offset: u32) -> &'m mut T {
    // SAFETY: the caller's contract.
    unsafe { &mut *msg.add(offset as usize).cast::<T>() }
}

/// The recycler of the message at `msg`, if its table has one: the third
/// place an offset becomes a reference.
///
/// # Safety
/// `msg` points to a live, exclusively borrowed message of the type
/// `table` was made for, whose recycler nothing else borrows for `'m`.
#[inline(always)]
unsafe fn recycler<'m>(table: &Erased, msg: *mut u8) -> Option<&'m mut Recycler> {
    // SAFETY: the caller's contract; a table's `recycle` is the offset of
    // its message's `Recycler` (`Table::recycled`) unless `NO_RECYCLER`.
    (table.recycle != NO_RECYCLER).then(|| unsafe { field_mut::<Recycler>(msg, table.recycle) })
}

/// [`field_mut`], shared: the last place an offset becomes a reference.
///
/// # Safety
/// `msg` points to a live message, and `offset` is the offset of one of
/// its fields, of type `T`, which nothing mutates for `'m`.
#[inline(always)]
unsafe fn field_ref<'m, T>(msg: *const u8, offset: u32) -> &'m T {
    // SAFETY: the caller's contract.
    unsafe { &*msg.add(offset as usize).cast::<T>() }
}

/// The [`FieldAt`] of field `$field` of message type `$msg`.
#[doc(hidden)]
#[macro_export]
macro_rules! table_field {
    ($msg:ty, $field:ident) => {
        // SAFETY: the offset and the pointer are of the same field. The
        // pointer, made at compile time (in a table's constant or
        // static), only gives the field's type: no value of `$msg` is
        // read, and no code is compiled for it.
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
