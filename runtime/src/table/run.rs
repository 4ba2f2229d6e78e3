//! The four interpreters, compiled once for every message: decode, size,
//! write and clear, each a loop over a table's entries.
//!
//! Each takes a pointer to the message, of the type its table was made
//! for: live, and exclusively borrowed for decode and clear. The runtime's
//! `methods!` calls them (and [`read_partial`] and [`encode_to_vec`])
//! with `erased::<Self>()` and `self`, so that a message type's methods
//! compile to one call each, with no generic code instantiated for it.

use alloc::string::String;
use alloc::vec::Vec;
use core::ptr;

use super::member::MemberAt;
use super::ops::{Access, MsgField, PushBuffer, Read};
use super::{field_mut, field_ref, recycler, Entry, Erased, Op, Raw};
use crate::codec::{self, Codec};
use crate::message::decode;
use crate::message::lax_string::LaxString;
use crate::message::options::DecodeOptions;
use crate::message::recycle::Slot;
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::varint;
use crate::wire::writer::Writer;

impl Erased {
    /// The entry that field `number` would have, if any: by index for
    /// small numbers (the first entry, where the index names none), else
    /// by binary search. The caller checks the entry's tag.
    #[inline]
    fn entry(&self, number: u32) -> Option<&Raw> {
        match self.by_number.get(number as usize) {
            // SAFETY: `Table::new` checked that each index is an entry's.
            // Taken unchecked: a record's lookup is the decoder's hottest
            // path (fastpb Number: 3 instructions of about 30 a record).
            Some(&at) => Some(unsafe { self.entries.get_unchecked(usize::from(at)) }),
            None => self
                .entries
                .binary_search_by_key(&number, Raw::number)
                .ok()
                .map(|i| &self.entries[i]),
        }
    }
}

/// Calls `$then` with `C` the codec of a native op (the interpreters
/// handle those fields themselves), else evaluates `$else` for `$other`.
/// Given the other ops' arms after a `;` instead, matches them in the same
/// `match`, one jump table for every op (decoding: Number's decode 1061 →
/// 1029 instructions; writing kept the nested match, which measured
/// better there). `by_codec!(scalars ...)` calls `$then` for the scalar
/// ops only, and matches the others with the arms given.
macro_rules! by_codec {
    (scalars $op:expr, |$c:ident| $then:expr; $($other:pat => $else:expr),+ $(,)?) => {
        match $op {
            Op::Int32 => by_codec!(@ $c, Int32, $then),
            Op::Int64 => by_codec!(@ $c, Int64, $then),
            Op::Uint32 => by_codec!(@ $c, Uint32, $then),
            Op::Uint64 => by_codec!(@ $c, Uint64, $then),
            Op::Sint32 => by_codec!(@ $c, Sint32, $then),
            Op::Sint64 => by_codec!(@ $c, Sint64, $then),
            Op::Bool => by_codec!(@ $c, Bool, $then),
            Op::Fixed32 => by_codec!(@ $c, Fixed32, $then),
            Op::Fixed64 => by_codec!(@ $c, Fixed64, $then),
            Op::Sfixed32 => by_codec!(@ $c, Sfixed32, $then),
            Op::Sfixed64 => by_codec!(@ $c, Sfixed64, $then),
            Op::Float => by_codec!(@ $c, Float, $then),
            Op::Double => by_codec!(@ $c, Double, $then),
            $($other => $else,)+
        }
    };
    (@ $c:ident, $codec:ident, $then:expr) => {{
        type $c = codec::$codec;
        $then
    }};
    ($op:expr, |$c:ident| $then:expr, $other:pat => $else:expr) => {
        by_codec!($op, |$c| $then; $other => $else)
    };
    ($op:expr, |$c:ident| $then:expr; $($other:pat => $else:expr),+ $(,)?) => {
        by_codec!(scalars $op, |$c| $then;
            Op::Str => by_codec!(@ $c, Str, $then),
            Op::LaxStr => by_codec!(@ $c, LaxStr, $then),
            Op::Bytes => by_codec!(@ $c, Bytes, $then),
            $($other => $else),+
        )
    };
}

/// Decodes the records of `outer` into the message at `msg`.
///
/// # Safety
/// See the module: `msg` is a live, exclusively borrowed message of the
/// type `table` was made for.
#[inline(never)]
pub unsafe fn merge(table: &Erased, msg: *mut u8, outer: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    // A message of scalars (a table with a bound, `bound`) is read by a
    // loop of its own, with no arm for other kinds of field (fastpb
    // Number: decode 927 → 912 instructions; in a function of its own,
    // 939).
    // SAFETY (both): the caller's contract.
    if table.bound < SIZED_LAST {
        unsafe { merge_records::<true>(table, msg, outer, depth) }
    } else {
        unsafe { merge_records::<false>(table, msg, outer, depth) }
    }
}

/// [`merge`], of a message of scalars if `SCALARS`.
///
/// # Safety
/// As [`merge`]; if `SCALARS`, `table.bound` is below [`SIZED_LAST`].
#[inline(always)]
unsafe fn merge_records<const SCALARS: bool>(
    table: &Erased,
    msg: *mut u8,
    outer: &mut Reader<'_>,
    depth: u32,
) -> Result<(), DecodeError> {
    // SAFETY: the caller's contract; `table.unknown` is the offset of the
    // message's `UnknownFields` (`Table::new`).
    let unknown = || unsafe { field_mut::<UnknownFields>(msg, table.unknown) };
    // The loop reads through `r`, a copy of `outer` whose address is never
    // taken, so that its position stays in registers (fastpb Number: 29
    // instructions a record in this loop, from 36). `through!` brings `outer` up to
    // date for the calls that take a reader, and takes it back after.
    let mut r = outer.copy();
    macro_rules! through {
        ($call:expr) => {{
            outer.catch_up(&r);
            let done = $call;
            r.catch_up(outer);
            done
        }};
    }
    // `$read` for this record, and again for each next record of the same
    // tag (a repeated field's or map's records come one after another),
    // without the loop's lookup and dispatch, or catching up in between.
    macro_rules! each {
        ($tag:expr, $read:expr) => {
            loop {
                let done = $read;
                if done.is_err() || !outer.read_tag_if($tag) {
                    break done;
                }
            }
        };
    }
    // `?` that first gives `outer` the position of the error.
    macro_rules! or_stop {
        ($result:expr) => {
            match $result {
                Ok(value) => value,
                Err(e) => {
                    outer.catch_up(&r);
                    return Err(e);
                }
            }
        };
    }
    while !r.is_empty() {
        let tag = or_stop!(r.read_tag());
        // An entry's `alt` is its `tag` if it reads no other, and no
        // entry's tags are 0: a number without an entry matches none.
        let Some(e) = table.entry(tag >> 3).filter(|e| tag == e.tag || tag == e.alt) else {
            or_stop!(through!(outer.skip_field(tag, depth, unknown())));
            continue;
        };
        // SAFETY (each arm): the entry was made from a `FieldAt` of this
        // message's type, so `e.offset` is a field of the type its op
        // handles (`FieldOp`), and no other reference to the message is
        // live.
        let field = unsafe { msg.add(e.offset as usize) };
        if SCALARS {
            or_stop!(unsafe {
                by_codec!(scalars e.op, |C| C::merge_in_entry(field_mut(field, 0), &mut r, depth);
                    _ => unreachable!("a table with a bound has only scalar entries (`bound`)"))
            });
            continue;
        }
        or_stop!(unsafe {
            // `merge_in_entry`: strings and bytes read inline, as they
            // did when the inliner chose to (its choice flipped with an
            // unrelated change to `clear`: Go message reused decode 977 →
            // 1,096 instructions).
            by_codec!(e.op, |C| C::merge_in_entry(field_mut(field, 0), &mut r, depth);
                Op::Vt(vt) => through!(match vt.read {
                    Read::Merge(merge) => merge(field, outer, depth),
                    Read::Push(push) => each!(tag, push(field, outer, depth, tag)),
                    Read::Buffers { push, .. } => merge_buffers(push, table, msg, field, outer, tag, depth),
                    Read::Packable(packed, push) => {
                        if tag & 7 == u32::from(wire::LEN) {
                            packed(outer, field)
                        } else {
                            each!(tag, push(field, outer, depth, tag))
                        }
                    }
                    Read::Closed(read) => read(msg, e.offset, table.unknown, outer, tag),
                }),
                Op::Msg(m) => through!(merge_message_field(m, table, msg, field, outer, tag, depth)),
                Op::Hook(hooks) | Op::HookRead(hooks) => through!(each!(tag, (hooks.merge)(msg, outer, depth, tag))),
                Op::Member(at) => through!(merge_value(at.value, (at.select)(msg), outer, depth)),
                Op::CheckedUtf8 => through!(outer.skip_checked_utf8(tag, unknown()))
            )
        });
    }
    outer.catch_up(&r);
    Ok(())
}

/// The encoded size of the message at `msg`.
///
/// # Safety
/// See the module.
#[inline(never)]
pub unsafe fn size(table: &Erased, msg: *const u8) -> usize {
    // SAFETY: as in `merge`, shared.
    let mut n = unsafe { field_ref::<UnknownFields>(msg, table.unknown) }.len();
    for e in &table.entries {
        let key_len = usize::from(e.key_len);
        // SAFETY: as in `merge`, shared.
        n += unsafe {
            let field = msg.add(e.offset as usize);
            by_codec!(e.op, |C| {
                let v = field_ref(field, 0);
                if C::is_default(v) {
                    0
                } else {
                    key_len + C::size(v)
                }
            }, op => match op {
                Op::Vt(vt) => (vt.size)(field, key_len),
                Op::Msg(m) => match m.access {
                    Access::Optional { get, .. } => {
                        let held = get(field);
                        if held.is_null() {
                            0
                        } else {
                            key_len + nested_size(m, held)
                        }
                    }
                    Access::Repeated { elements, stride, .. } => {
                        let (first, n) = elements(field);
                        (0..n).map(|i| key_len + nested_size(m, first.add(i * stride))).sum()
                    }
                    Access::Member => 0,
                },
                Op::Hook(hooks) => (hooks.size)(msg, e.tag),
                Op::Member(at) => match held_member(table, at, e, msg) {
                    Some((held, held_at, value)) => value_size(held_at.value, value, usize::from(held.key_len)),
                    None => 0,
                },
                _ => 0,
            })
        };
    }
    n
}

/// Writes the message at `msg` backwards: its unknown fields, then its
/// fields by descending number, so that they come out ascending, unknown
/// fields last. `w` has room for exactly the message's [`size`].
///
/// # Safety
/// See the module.
#[inline(never)]
pub unsafe fn write_backward(table: &Erased, msg: *const u8, w: &mut Writer<'_>) {
    // SAFETY: the caller's contract. Unchecked writes never report `Full`.
    let _ = unsafe { write_fields::<false>(table, msg, w) };
}

/// A checked write stopped: the buffer ran out, or a value was larger
/// than [`BIG`].
pub(super) struct Full;

/// [`write_backward`] into a writer that may have too little room: each
/// field's room is checked before it is written, and `Err(Full)` returned
/// at the first that does not fit or is larger than [`BIG`] (what was
/// written is then of no use).
///
/// # Safety
/// See the module.
#[inline(never)]
unsafe fn write_checked(table: &Erased, msg: *const u8, w: &mut Writer<'_>) -> Result<(), Full> {
    // SAFETY: the caller's contract.
    unsafe { write_fields::<true>(table, msg, w) }
}

/// [`write_checked`], or [`write_scalars`] for a message of scalars whose
/// longest encoding fits, or `Err(Full)` at once for a message whose last
/// field would stop a checked write ([`stops_at_once`]). Inline, so that
/// a message with a field of another kind pays two tests of its table and
/// no call.
///
/// # Safety
/// As [`write_checked`].
#[inline(always)]
unsafe fn write_checked_or_scalars(table: &Erased, msg: *const u8, w: &mut Writer<'_>) -> Result<(), Full> {
    if table.bound < SIZED_LAST {
        // SAFETY: the caller's contract.
        let unknown = unsafe { field_ref::<UnknownFields>(msg, table.unknown) }.len();
        if unknown <= BIG && table.bound as usize + unknown <= w.remaining() {
            // SAFETY: the caller's contract, and the room checked.
            unsafe { write_scalars(table, msg, w) };
            return Ok(());
        }
    }
    // SAFETY: the caller's contract.
    if table.bound == SIZED_LAST && unsafe { stops_at_once(table, msg) } {
        return Err(Full);
    }
    // SAFETY: the caller's contract.
    unsafe { write_checked(table, msg, w) }
}

/// Whether a checked write would stop at the first field it writes, the
/// message's last, a string or bytes ([`SIZED_LAST`]) larger than
/// [`BIG`]: then it is not started (fastpb String, whose last field holds
/// 1 KiB: 81 instructions of 683 an encode spent in a write that stopped
/// there).
///
/// # Safety
/// As [`write_checked`].
#[inline(always)]
unsafe fn stops_at_once(table: &Erased, msg: *const u8) -> bool {
    // SAFETY: a table whose bound is `SIZED_LAST` has a last entry.
    let last = unsafe { table.entries.last().unwrap_unchecked() };
    // SAFETY: the caller's contract; as in `size`.
    let size = unsafe {
        let field = msg.add(last.offset as usize);
        match last.op {
            Op::Str => <codec::Str as Bound>::bound(field_ref(field, 0)),
            Op::Bytes => <codec::Bytes as Bound>::bound(field_ref(field, 0)),
            _ => return false,
        }
    };
    usize::from(last.key_len) + size > BIG
}

/// The largest value (with its key) a checked write takes: moving a
/// larger one to the front of the buffer costs about what sizing it first
/// would have saved (`encode_append`).
const BIG: usize = 512;

/// Whether a checked write (`CHECKED`) should stop before a value of
/// `need` bytes: it does not fit in `w`, or it is larger than [`BIG`].
#[inline(always)]
fn short<const CHECKED: bool>(w: &Writer<'_>, need: impl FnOnce() -> usize) -> bool {
    CHECKED && {
        let need = need();
        need > BIG || w.remaining() < need
    }
}

/// What a checked write asks room for before a native value: an upper
/// bound of its size, so that checking a scalar costs no size
/// computation (its longest encoding), and the size itself for strings
/// and bytes.
trait Bound: Codec {
    fn bound(v: &Self::Value) -> usize;
}

/// The [`Bound`] of scalars: their [`longest`] encoding.
macro_rules! bounded {
    ($($codec:ident),* $(,)?) => {
        $(
            impl Bound for codec::$codec {
                #[inline(always)]
                fn bound(_: &Self::Value) -> usize {
                    const LONGEST: usize = match longest(&Op::$codec) {
                        Some(n) => n,
                        None => panic!("a scalar's op"),
                    };
                    LONGEST
                }
            }
        )*
    };
}

bounded!(Int32, Int64, Uint32, Uint64, Sint32, Sint64, Bool, Fixed32, Fixed64, Sfixed32, Sfixed64, Float, Double);

/// The [`Bound`] of strings and bytes: their size.
macro_rules! sized {
    ($($codec:ident),*) => {
        $(
            impl Bound for codec::$codec {
                #[inline(always)]
                fn bound(v: &Self::Value) -> usize {
                    Self::size(v)
                }
            }
        )*
    };
}

sized!(Str, LaxStr, Bytes);

/// The longest encoding of a value of a scalar op, `None` for other ops.
const fn longest(op: &Op) -> Option<usize> {
    match op.scalar() {
        Some(scalar) => Some(scalar.longest),
        None => None,
    }
}

/// The most bytes the fields of `entries` take, keys and values, if each
/// is a scalar; if one is not, [`SIZED_LAST`] if the last is a string or
/// bytes, else [`NO_BOUND`] (`Table::bound`).
#[allow(clippy::cast_possible_truncation)] // at most 15 bytes an entry, and 65,535 entries
pub(super) const fn bound<M>(entries: &[Entry<M>]) -> u32 {
    let (mut at, mut most) = (0, 0);
    while at < entries.len() {
        let e = &entries[at].raw;
        match longest(&e.op) {
            Some(n) => most += e.key_len as usize + n,
            None => {
                return match entries[entries.len() - 1].raw.op {
                    Op::Str | Op::Bytes => SIZED_LAST,
                    _ => NO_BOUND,
                }
            }
        }
        at += 1;
    }
    most as u32
}

/// `Table::bound` of a message with a field that is not a scalar.
pub(super) const NO_BOUND: u32 = u32::MAX;

/// [`NO_BOUND`], for a message whose last field is a string or bytes
/// (`stops_at_once`).
pub(super) const SIZED_LAST: u32 = u32::MAX - 1;

/// [`write_checked`] of a message of scalars whose longest encoding fits in
/// `w`: no field's room is checked, and the compiler drops the writer's own
/// checks (fastpb Number encode: 849 → 767 instructions).
///
/// # Safety
/// As [`write_backward`]; `table.bound` is not [`NO_BOUND`], and `w` has
/// room for it and the message's unknown fields.
#[inline(never)]
unsafe fn write_scalars(table: &Erased, msg: *const u8, w: &mut Writer<'_>) {
    /// Writes the scalar at `field` with `key`.
    ///
    /// # Safety
    /// `field` is a live scalar of the type `op` handles, and `w` has room
    /// for its longest encoding with `key`.
    #[inline(always)]
    unsafe fn scalar(op: Op, field: *const u8, key: &[u8], w: &mut Writer<'_>) {
        // SAFETY: the caller's contract.
        unsafe {
            by_codec!(scalars op, |C| {
                let v = field_ref(field, 0);
                if !C::is_default(v) {
                    core::hint::assert_unchecked(w.remaining() >= key.len() + <C as Bound>::bound(v));
                    C::write_keyed(v, key, w);
                }
            }; _ => {});
        }
    }
    // SAFETY: as in `size`.
    unsafe { field_ref::<UnknownFields>(msg, table.unknown) }.write(w);
    for e in table.entries.iter().rev() {
        // SAFETY: as in `size`. Each entry is a scalar (`bound`), and the
        // room left is at least what the entries still to write take at
        // their longest, so at least this one's.
        unsafe {
            let field = msg.add(e.offset as usize);
            match e.key_len {
                1 => scalar(e.op, field, &e.key[..1], w),
                2 => scalar(e.op, field, &e.key[..2], w),
                _ => scalar(e.op, field, e.key(), w),
            }
        }
    }
}

/// [`write_backward`], checking each field's room first if `CHECKED`.
///
/// # Safety
/// See the module.
#[inline(always)]
unsafe fn write_fields<const CHECKED: bool>(table: &Erased, msg: *const u8, w: &mut Writer<'_>) -> Result<(), Full> {
    // SAFETY: as in `size`.
    let unknown = unsafe { field_ref::<UnknownFields>(msg, table.unknown) };
    if short::<CHECKED>(w, || unknown.len()) {
        return Err(Full);
    }
    unknown.write(w);
    let mut rest = table.entries.iter();
    while let Some(e) = rest.next_back() {
        // SAFETY: as in `size`.
        unsafe {
            // Most keys are one byte: given as a slice of constant length,
            // the writer then stores key and value together.
            match e.key_len {
                1 => write_entry::<CHECKED>(e, &e.key[..1], msg, w, &mut rest),
                2 => write_entry::<CHECKED>(e, &e.key[..2], msg, w, &mut rest),
                _ => write_entry::<CHECKED>(e, e.key(), msg, w, &mut rest),
            }?;
        }
    }
    Ok(())
}

/// Writes the field of entry `e` with key `key` (the entry's); `rest` are
/// the entries still to write, by descending number. At the last entry of
/// a run of oneof members, it writes the run and takes the run's other
/// entries from `rest`.
///
/// # Safety
/// As [`write_backward`].
#[inline(always)]
unsafe fn write_entry<const CHECKED: bool>(
    e: &Raw,
    key: &[u8],
    msg: *const u8,
    w: &mut Writer<'_>,
    rest: &mut Rest<'_>,
) -> Result<(), Full> {
    // SAFETY: as in `size`.
    unsafe {
        let field = msg.add(e.offset as usize);
        by_codec!(e.op, |C| {
            let v = field_ref(field, 0);
            if !C::is_default(v) {
                if short::<CHECKED>(w, || key.len() + <C as Bound>::bound(v)) {
                    return Err(Full);
                }
                C::write_keyed(v, key, w);
            }
        }, op => match op {
            Op::Vt(vt) => {
                if short::<CHECKED>(w, || (vt.size)(field, key.len())) {
                    return Err(Full);
                }
                (vt.write)(field, key, w);
            }
            Op::Msg(m) => match m.access {
                Access::Optional { get, .. } => {
                    let held = get(field);
                    if !held.is_null() {
                        write_nested::<CHECKED>(m, held, key, w)?;
                    }
                }
                Access::Repeated { elements, stride, .. } => {
                    let (first, n) = elements(field);
                    for i in (0..n).rev() {
                        write_nested::<CHECKED>(m, first.add(i * stride), key, w)?;
                    }
                }
                Access::Member => {}
            },
            Op::Hook(hooks) => {
                if short::<CHECKED>(w, || (hooks.size)(msg, e.tag)) {
                    return Err(Full);
                }
                (hooks.write)(msg, e.tag, w);
            }
            Op::Member(at) => write_run::<CHECKED>(e, at, msg, w, rest)?,
            _ => {}
        });
    }
    Ok(())
}

/// The entries a write has still to write, by descending number.
type Rest<'t> = core::slice::Iter<'t, Raw>;

/// Writes what the run of oneof members that entry `e` (whose member is
/// `at`) belongs to holds, if `e` is the run's last entry ([`Raw::back`])
/// or its only one, taking the run's other entries from `rest`. (Writing
/// goes backwards, so it meets no other entry of a run.)
///
/// # Safety
/// As [`write_backward`].
#[inline(always)]
unsafe fn write_run<const CHECKED: bool>(
    e: &Raw,
    at: &MemberAt,
    msg: *const u8,
    w: &mut Writer<'_>,
    rest: &mut Rest<'_>,
) -> Result<(), Full> {
    // The run's entries before `e` are the last `e.back` of `rest`.
    let before = rest.as_slice();
    let Some(from) = before.len().checked_sub(usize::from(e.back)) else {
        unreachable!("a run's entries are consecutive (`mark_runs`)");
    };
    *rest = before[..from].iter();
    let (first, at) = match before.get(from) {
        Some(first @ Raw { op: Op::Member(at), .. }) => (first, *at),
        _ => (e, at),
    };
    let Some((_, hooks)) = at.run else {
        return Ok(());
    };
    // SAFETY: the caller's contract; `hooks` are the message's.
    let which = unsafe { (hooks.which)(msg, first.tag) };
    let held = before[from..].iter().chain([e]).find(|m| m.tag == which);
    if let Some(
        held @ Raw {
            op: Op::Member(held_at),
            ..
        },
    ) = held
    {
        // SAFETY: the caller's contract; `held_at` is a member of the
        // message, and `value` the value it holds.
        unsafe {
            let value = (held_at.get)(msg);
            if !value.is_null() {
                write_value::<CHECKED>(held_at.value, value, held.key(), w)?;
            }
        }
    }
    Ok(())
}

/// The member that the run of oneof members starting at entry `e` (whose
/// member is `at`) holds, if any: its entry, its member, and its value.
///
/// # Safety
/// As [`size`].
#[inline(always)]
unsafe fn held_member<'t>(
    table: &'t Erased,
    at: &MemberAt,
    e: &Raw,
    msg: *const u8,
) -> Option<(&'t Raw, &'t MemberAt, *const u8)> {
    let (last, hooks) = at.run?;
    // SAFETY: the caller's contract; `hooks` are the message's.
    let number = unsafe { (hooks.which)(msg, e.tag) } >> 3;
    if number < e.number() || number > last {
        return None;
    }
    let held = table.entry(number).filter(|held| held.number() == number)?;
    let Op::Member(held_at) = held.op else {
        return None;
    };
    // SAFETY: the caller's contract; `held_at` is a member of the message.
    let value = unsafe { (held_at.get)(msg) };
    (!value.is_null()).then_some((held, held_at, value))
}

/// The size of the present value at `value`, handled as `op` (a member's),
/// with its key of `key_len` bytes.
///
/// # Safety
/// `value` points to a live value of the type `op` handles.
unsafe fn value_size(op: Op, value: *const u8, key_len: usize) -> usize {
    // SAFETY: the caller's contract.
    unsafe {
        by_codec!(op, |C| key_len + C::size(field_ref(value, 0)), op => match op {
            Op::Vt(vt) => (vt.size)(value, key_len),
            Op::Msg(m) => key_len + nested_size(m, value),
            _ => 0,
        })
    }
}

/// Writes the present value at `value`, handled as `op` (a member's), with
/// `key`, backwards (checking room first if `CHECKED`).
///
/// # Safety
/// As [`value_size`].
#[inline(always)]
unsafe fn write_value<const CHECKED: bool>(
    op: Op,
    value: *const u8,
    key: &[u8],
    w: &mut Writer<'_>,
) -> Result<(), Full> {
    // SAFETY: the caller's contract.
    unsafe {
        by_codec!(op, |C| {
            let v = field_ref(value, 0);
            if short::<CHECKED>(w, || key.len() + <C as Bound>::bound(v)) {
                return Err(Full);
            }
            C::write_keyed(v, key, w);
        }, op => match op {
            Op::Vt(vt) => {
                if short::<CHECKED>(w, || (vt.size)(value, key.len())) {
                    return Err(Full);
                }
                (vt.write)(value, key, w);
            }
            Op::Msg(m) => write_nested::<CHECKED>(m, value, key, w)?,
            _ => {}
        });
    }
    Ok(())
}

/// Reads one record into the value at `value`, handled as `op` (a
/// member's).
///
/// # Safety
/// `value` points to a live, exclusively borrowed value of the type `op`
/// handles.
unsafe fn merge_value(op: Op, value: *mut u8, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    // SAFETY: the caller's contract.
    unsafe {
        by_codec!(op, |C| C::merge(field_mut(value, 0), r, depth), op => match op {
            Op::Vt(vt) => match vt.read {
                Read::Merge(merge) => merge(value, r, depth),
                // Members' functions read by `Merge` (`member`).
                _ => Ok(()),
            },
            Op::Msg(m) => merge_nested(m, value, r, depth),
            _ => Ok(()),
        })
    }
}

/// Clears the message at `msg`, keeping the buffers of its strings and
/// vectors. It zeroes runs of scalar fields at once, and visits only the
/// entries with something else to clear (`clearing`).
///
/// # Safety
/// See the module.
#[inline(never)]
pub unsafe fn clear(table: &Erased, msg: *mut u8) {
    for run in &table.scalars {
        // The longer run first (`clearing::plan`): after an empty one,
        // the other is empty too.
        if run.len == 0 {
            break;
        }
        // SAFETY: `Table::new` made the run of the message's scalar fields
        // (`clearing::plan`), each an integer, float or bool, whose default
        // is all zero bytes.
        unsafe { zero(msg.add(run.offset as usize), run.len as usize) };
    }
    let mut next = usize::from(table.clear_first);
    while let Some(e) = table.entries.get(next) {
        next = usize::from(e.clear_next);
        // SAFETY: as in `merge`.
        unsafe {
            let field = msg.add(e.offset as usize);
            match e.op {
                Op::Str => field_mut::<String>(field, 0).clear(),
                Op::LaxStr => field_mut::<LaxString>(field, 0).clear(),
                Op::Bytes => field_mut::<Vec<u8>>(field, 0).clear(),
                Op::Vt(_) | Op::Msg(_) => clear_field(e, table, msg, field),
                Op::Hook(hooks) => (hooks.clear)(msg, e.tag),
                Op::Member(at) => {
                    if let Some((_, hooks)) = at.run {
                        (hooks.clear)(msg, e.tag);
                    }
                }
                Op::HookRead(_) | Op::CheckedUtf8 => {}
                // An implicit scalar that starts a run of `e.zero` bytes,
                // as above.
                _ => zero(field, usize::from(e.zero)),
            }
        }
    }
    // SAFETY: as in `merge`.
    unsafe { field_mut::<UnknownFields>(msg, table.unknown) }.clear();
}

/// Sets `len` bytes at `at` to zero: runs of up to 16 bytes (most) inline,
/// with two stores that may overlap, where a call to `memset` would cost
/// more than the stores.
///
/// # Safety
/// `at` is valid for writes of `len` bytes.
#[inline(always)]
pub(super) unsafe fn zero(at: *mut u8, len: usize) {
    // SAFETY (each): the caller's contract; both stores of each arm are
    // within the `len` bytes.
    // Tested in order of how common each is, the most first: a `match`
    // tested from the smallest, 14 instructions to reach 8 to 16 bytes
    // (with `clear` skipping empty runs, Go message reused decode 882 →
    // 860 instructions, its two runs each of 8 to 16 bytes).
    unsafe {
        if len.wrapping_sub(8) <= 8 {
            at.cast::<u64>().write_unaligned(0);
            at.add(len - 8).cast::<u64>().write_unaligned(0);
        } else if len > 16 {
            ptr::write_bytes(at, 0, len);
        } else if len >= 4 {
            at.cast::<u32>().write_unaligned(0);
            at.add(len - 4).cast::<u32>().write_unaligned(0);
        } else if len >= 2 {
            at.cast::<u16>().write_unaligned(0);
            at.add(len - 2).cast::<u16>().write_unaligned(0);
        } else if len == 1 {
            at.write(0);
        }
    }
}

/// Clears field `field` of the message at `msg`, which entry `e` (an
/// [`Op::Vt`] or [`Op::Msg`]) handles: its values to the message's
/// recycler if it has one and they are of a kind it keeps. Out of line,
/// as `merge_buffers` is and for the same reason.
///
/// # Safety
/// As [`clear`]: `field` is the field of `e`.
#[inline(never)]
unsafe fn clear_field(e: &Raw, table: &Erased, msg: *mut u8, field: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe {
        match e.op {
            Op::Vt(vt) => match (&vt.read, recycler(table, msg)) {
                (Read::Buffers { keep, .. }, Some(rec)) => keep(field, rec),
                _ => (vt.clear)(field),
            },
            Op::Msg(m) => {
                // The messages to keep: the first, how many, how far apart.
                let (kept, clear, first, n, stride) = match &m.access {
                    Access::Optional {
                        kept: Some(kept),
                        get,
                        clear,
                        ..
                    } => {
                        let held = get(field);
                        (kept, clear, held, usize::from(!held.is_null()), kept.size)
                    }
                    Access::Optional { kept: None, clear, .. } => return clear(field, false),
                    Access::Repeated {
                        kept,
                        elements,
                        stride,
                        clear,
                        ..
                    } => {
                        let (first, n) = elements(field);
                        (kept, clear, first, n, *stride)
                    }
                    Access::Member => return,
                };
                match recycler(table, msg)
                    .filter(|_| n > 0)
                    .and_then(|rec| rec.slot(e.tag, kept))
                {
                    Some(slot) => {
                        slot.keep_all(first, n, stride);
                        clear(field, true);
                    }
                    None => clear(field, false),
                }
            }
            _ => {}
        }
    }
}

/// [`Message::fast_read_partial`](crate::Message::fast_read_partial) of
/// the message at `msg`, of type `name`: its records in `buf`, within the
/// limits of `options`.
///
/// # Errors
/// As `fast_read_partial`.
///
/// # Safety
/// As [`merge`].
pub unsafe fn read_partial(
    table: &Erased,
    msg: *mut u8,
    name: &'static str,
    buf: &[u8],
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    let r = Reader::with_budget(buf, options.allocation_budget(buf.len()));
    // SAFETY: the caller's contract.
    decode::enter(buf.len(), r, options, name, |r, depth| unsafe {
        merge(table, msg, r, depth)
    })
}

/// [`Message::encode_to_vec`](crate::Message::encode_to_vec) of the
/// message at `msg`, of type `name`.
///
/// # Safety
/// As [`size`].
#[must_use]
pub unsafe fn encode_to_vec(table: &Erased, msg: *const u8, name: &'static str) -> Vec<u8> {
    // SAFETY: the caller's contract.
    let size = unsafe { size(table, msg) };
    let mut out = alloc::vec![0; size];
    let mut w = Writer::new(&mut out);
    // SAFETY: the caller's contract.
    unsafe { write_backward(table, msg, &mut w) };
    // A hand-written message held by this one could size itself wrong.
    assert!(
        w.remaining() == 0,
        "fastrs: {name} did not write exactly its size() into the writer it was given"
    );
    out
}

/// [`Message::encode_append`](crate::Message::encode_append) of the
/// message at `msg`, of type `name`. With room to spare in `out`, the
/// message is written backwards into it without a size pass, then moved to
/// the front of the spare room (one `memmove`): for messages of small
/// values, a quarter to a third less time than sizing first (the Go
/// message, the page of 50 items). Else, or at the first value larger
/// than `BIG` bytes (whose move would cost what sizing saves), it is sized,
/// `out` grown, and written as [`encode_to_vec`] writes it.
///
/// # Safety
/// As [`size`].
pub unsafe fn encode_append(table: &Erased, msg: *const u8, out: &mut Vec<u8>, name: &'static str) {
    let spare = out.spare_capacity_mut();
    let room = spare.len();
    let mut w = Writer::new_uninit(spare);
    // SAFETY: the caller's contract.
    if unsafe { write_checked_or_scalars(table, msg, &mut w) }.is_ok() {
        let n = room - w.remaining();
        spare.copy_within(room - n.., 0);
        // SAFETY: the writer initialised the last `n` bytes of the spare
        // room, now copied to its first `n`.
        unsafe { out.set_len(out.len() + n) };
        return;
    }
    // SAFETY: the caller's contract.
    let size = unsafe { size(table, msg) };
    out.reserve(size);
    let spare = &mut out.spare_capacity_mut()[..size];
    let mut w = Writer::new_uninit(spare);
    // SAFETY: the caller's contract.
    unsafe { write_backward(table, msg, &mut w) };
    assert!(
        w.remaining() == 0,
        "fastrs: {name} did not write exactly its size() into the writer it was given"
    );
    // SAFETY: the writer initialised all `size` bytes.
    unsafe { out.set_len(out.len() + size) };
}

/// Merges the length-delimited message that `r` is at into the message at
/// `msg`, of `m`'s type.
///
/// # Safety
/// As [`merge`], for `m`'s table.
unsafe fn merge_nested(m: &MsgField, msg: *mut u8, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(m.footprint)?;
    let mut inner = r.read_nested()?;
    // SAFETY: the caller's contract.
    let merged = unsafe { merge((m.table)(), msg, &mut inner, depth) };
    r.absorb(&inner);
    merged.map_err(|e| e.within(m.name, inner.field()))
}

// The fields whose values a recycler keeps are read out of line, each
// finding the message's recycler itself: in `merge`'s loop, LLVM found it
// once before the loop, for every message (fastpb Number's decode: +13
// instructions).

/// Reads the record that `r` is at, and each next one of `tag`, into the
/// repeated field of strings or bytes at `field` of the message at `msg`,
/// through `push`.
///
/// # Safety
/// As [`merge`]: `field` is a field of the message that `push` was made
/// for.
#[inline(never)]
unsafe fn merge_buffers(
    push: PushBuffer,
    table: &Erased,
    msg: *mut u8,
    field: *mut u8,
    r: &mut Reader<'_>,
    tag: u32,
    depth: u32,
) -> Result<(), DecodeError> {
    loop {
        // SAFETY: the caller's contract.
        let done = unsafe { push(field, r, depth, tag, recycler(table, msg)) };
        if done.is_err() || !r.read_tag_if(tag) {
            break done;
        }
    }
}

/// Reads the record that `r` is at into the message field at `field` of
/// the message at `msg`, of `m`'s type (each next one of `tag` too, if
/// repeated): if the field holds nothing, into a message that the
/// message's recycler kept for it, cleared, if there is one.
///
/// # Safety
/// As [`merge`]: `field` is a field of the message, of `m`'s type.
#[inline(never)]
unsafe fn merge_message_field(
    m: &MsgField,
    table: &Erased,
    msg: *mut u8,
    field: *mut u8,
    r: &mut Reader<'_>,
    tag: u32,
    depth: u32,
) -> Result<(), DecodeError> {
    // SAFETY (each call): the caller's contract; a popped message is of
    // the field's type (its slot is found by the type's id), moved into
    // the field before the slot is used again, and cleared before it is
    // read into.
    unsafe {
        match &m.access {
            Access::Optional {
                kept,
                get,
                get_or_default,
                ..
            } => {
                let from = match (kept, recycler(table, msg)) {
                    (Some(kept), Some(rec)) if get(field).is_null() => {
                        rec.kept(tag, kept.id).map_or(ptr::null(), Slot::pop)
                    }
                    _ => ptr::null(),
                };
                let value = get_or_default(field, from);
                if !from.is_null() {
                    clear((m.table)(), value);
                }
                merge_nested(m, value, r, depth)
            }
            Access::Repeated { kept, push, .. } => {
                let mut slot = recycler(table, msg).and_then(|rec| rec.kept(tag, kept.id));
                loop {
                    let from = slot.as_deref_mut().map_or(ptr::null(), Slot::pop);
                    let value = push(field, from);
                    if !from.is_null() {
                        clear((m.table)(), value);
                    }
                    let merged = merge_nested(m, value, r, depth);
                    if merged.is_err() || !r.read_tag_if(tag) {
                        break merged;
                    }
                }
            }
            Access::Member => unreachable!("members are entries of their own"),
        }
    }
}

/// The size of the message at `msg`, of `m`'s type, with its length.
///
/// # Safety
/// As [`size`], for `m`'s table.
unsafe fn nested_size(m: &MsgField, msg: *const u8) -> usize {
    // SAFETY: the caller's contract.
    let n = unsafe { size((m.table)(), msg) };
    varint::len(n as u64) + n
}

/// Writes the message at `msg`, of `m`'s type, then its length and `key`,
/// backwards (checking room first if `CHECKED`).
///
/// # Safety
/// As [`write_backward`], for `m`'s table.
#[inline(always)]
unsafe fn write_nested<const CHECKED: bool>(
    m: &MsgField,
    msg: *const u8,
    key: &[u8],
    w: &mut Writer<'_>,
) -> Result<(), Full> {
    let end = w.remaining();
    // SAFETY: the caller's contract.
    if CHECKED {
        unsafe { write_checked_or_scalars((m.table)(), msg, w) }?;
    } else {
        unsafe { write_backward((m.table)(), msg, w) };
    }
    let len = (end - w.remaining()) as u64;
    if short::<CHECKED>(w, || key.len() + varint::len(len)) {
        return Err(Full);
    }
    w.put_key_varint(key, len);
    Ok(())
}
