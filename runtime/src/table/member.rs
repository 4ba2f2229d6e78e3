//! Oneof members as table entries: each member's entry holds two small
//! functions made for it (the value it holds, and the value after
//! switching the oneof to it) and the op of its value, which the
//! interpreters run as on any field, only always present. A run of
//! members (by number, no other field between them) is sized and cleared
//! at its first member's entry, and written (backwards) at its last,
//! through the message's hooks: `Tabled::which_member`, the member the
//! oneof holds, and `Tabled::clear_hooked`.

use core::marker::PhantomData;

use super::ops::{natives, through_codecs, Access, FieldVt, MsgField, Read};
use super::{erased, HookVtOf, Op, RunVt, Tab, TabBox, Tabled};
use crate::codec;
use crate::message::enumeration::{Enum, EnumValue};
use crate::outline::Ops;
use crate::wire::writer::Writer;

/// A oneof member whose value is a `C::Value` (for [`Tab`] and
/// [`TabBox`], a message with a table): what a member entry names.
#[derive(Debug)]
pub struct Member<C>(PhantomData<C>);

/// How the value of a oneof member is handled.
///
/// # Safety
/// `OP` handles a present value of type `Value` and nothing else.
pub unsafe trait MemberOp {
    /// The value the member's functions give.
    type Value;
    /// How the interpreters handle it.
    const OP: Op;
}

/// The entry of one oneof member: see the module.
#[doc(hidden)]
pub struct MemberAt {
    /// The member's value in the message, or null if the oneof holds
    /// another or none.
    pub(super) get: unsafe fn(msg: *const u8) -> *const u8,
    /// The member's value, the oneof switched to it (with a default value)
    /// first if it held another or none.
    pub(super) select: unsafe fn(msg: *mut u8) -> *mut u8,
    /// How the value is handled.
    pub(super) value: Op,
    /// On the first member of a run, the run's last field number and the
    /// message's hooks.
    pub(super) run: Option<(u32, &'static RunVt)>,
}

impl core::fmt::Debug for MemberAt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemberAt")
            .field("value", &self.value)
            .finish_non_exhaustive()
    }
}

/// A member's `get`, typed.
type Get<M, V> = for<'m> fn(&'m M) -> Option<&'m V>;
/// A member's `select`, typed.
type Select<M, V> = for<'m> fn(&'m mut M) -> &'m mut V;

impl MemberAt {
    /// The entry of a member of message type `M` handled as `O`, with its
    /// `get` and `select`, and the last field number of its run if it
    /// starts one (else 0).
    #[must_use]
    pub const fn new<M: Tabled, O: MemberOp>(get: Get<M, O::Value>, select: Select<M, O::Value>, last: u32) -> Self {
        // SAFETY: function pointers to function pointers of the same size;
        // calls through them pass a `*const M` for the `&M` and a `*mut M`
        // for the `&mut M`, and read the `Option<&V>` as a possibly null
        // pointer and the `&mut V` as a pointer, all ABI compatible (std's
        // "ABI compatibility" of function pointers, and `Option`'s
        // representation). The interpreters call them only with a live
        // `M`, exclusively borrowed for `select`.
        let (get, select) = unsafe {
            (
                core::mem::transmute::<Get<M, O::Value>, unsafe fn(*const u8) -> *const u8>(get),
                core::mem::transmute::<Select<M, O::Value>, unsafe fn(*mut u8) -> *mut u8>(select),
            )
        };
        let run = if last == 0 {
            None
        } else {
            Some((last, <M as HookVtOf>::RUN))
        };
        Self {
            get,
            select,
            value: O::OP,
            run,
        }
    }
}

natives!(MemberOp, Value, Member);

// SAFETY: as for `Implicit<OpenEnum<E>>`: an `EnumValue<E>` is an `i32`.
unsafe impl<E: Enum> MemberOp for Member<codec::OpenEnum<E>> {
    type Value = EnumValue<E>;
    const OP: Op = Op::Int32;
}

through_codecs!(MemberOp, Value, Member, size_present, write_present, clear_nothing);

// SAFETY: the value is an `M`, and the table is `M`'s.
unsafe impl<M: Tabled> MemberOp for Member<Tab<M>> {
    type Value = M;
    const OP: Op = Op::Msg(&MsgField {
        table: erased::<M>,
        name: M::FULL_NAME,
        footprint: M::FOOTPRINT,
        access: Access::Member,
    });
}

// SAFETY: as for `Member<Tab<M>>`: the member's functions give the `M`
// in its `Box`, and the footprint is the boxed one.
unsafe impl<M: Tabled> MemberOp for Member<TabBox<M>> {
    type Value = M;
    const OP: Op = Op::Msg(&MsgField {
        table: erased::<M>,
        name: M::FULL_NAME,
        footprint: <alloc::boxed::Box<M> as crate::Message>::FOOTPRINT,
        access: Access::Member,
    });
}

/// Switches oneof `o` to `value` (a member's default). Holding nothing,
/// as after `clear()`, it is written in place (Go message decode: 16
/// instructions fewer than a call); else through [`replace_held`].
#[doc(hidden)]
#[inline]
pub fn switch<T>(o: &mut Option<T>, value: T) {
    // `if let` rather than `is_none`, which a debug build would compile
    // once per type too.
    #[allow(clippy::redundant_pattern_matching)]
    if let None = o {
        // SAFETY: `o` is valid for writes, and the `None` it held owns
        // nothing to drop.
        unsafe { core::ptr::write(o, Some(value)) };
    } else {
        replace_held(o, value);
    }
}

/// [`switch`] from another member: the old member's drop compiled once
/// per oneof, not in each member's `select`.
#[inline(never)]
fn replace_held<T>(o: &mut Option<T>, value: T) {
    *o = Some(value);
}

// The `FieldVt` functions of a present value. SAFETY (each dereference):
// `FieldVt`'s contract, for the type the function was made for.

unsafe fn size_present<C: Ops>(value: *const u8, key_len: usize) -> usize {
    key_len + C::size(unsafe { &*(value as *const C::Value) })
}

unsafe fn write_present<C: Ops>(value: *const u8, key: &[u8], w: &mut Writer<'_>) {
    C::write_ool(unsafe { &*(value as *const C::Value) }, key, w);
}

/// A member's value is cleared with its oneof, at the run's first entry.
unsafe fn clear_nothing<C>(_: *mut u8) {}
