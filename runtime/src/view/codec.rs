//! How views read one value of each protobuf type: [`ViewCodec`], implemented
//! by the runtime's codec types for scalars, strings and enums, and by
//! [`MsgView`], [`GroupView`], [`LazyMsg`] and [`LazyGroup`] for messages.

use core::marker::PhantomData;

use alloc::vec::Vec;

use super::{read_str, Lazy, View, CHECKED};
use crate::codec::packed::extend_packed_run;
use crate::codec::{
    Bool, Bytes, ClosedEnum, Codec, Double, Fixed32, Fixed64, Float, Int32, Int64, LaxStr, OpenEnum, Scalar, Sfixed32,
    Sfixed64, Sint32, Sint64, Str, Uint32, Uint64,
};
use crate::message::enumeration::Enum;
use crate::message::Message;
use crate::wire;
use crate::wire::error::{DecodeError, DecodeErrorKind};
use crate::wire::reader::Reader;
use crate::wire::varint;

/// Reads values of one protobuf type into a view (for generated code and the
/// view containers; not for use by hand).
pub trait ViewCodec<'a> {
    /// What a view holds for one value: `i64`, `&'a str`, `BarView<'a>`, ...
    type Item;
    /// The wire type of one value written unpacked.
    const WIRE_TYPE: u8;
    /// For packable types, the width of a packed value (0 for varints).
    const PACKED_WIDTH: Option<usize> = None;
    /// Every record yields one item (all but closed enums, whose unnamed
    /// numbers are not yielded), so records checked before can be counted
    /// without reading them.
    const ONE_PER_RECORD: bool = true;

    /// Reads one value into `slot`: a scalar or string replaces it, a
    /// message merges into it. A closed enum's unnamed number leaves it
    /// unchanged (the owned message keeps it as an unknown field).
    ///
    /// # Errors
    /// Malformed input.
    fn merge(slot: &mut Option<Self::Item>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError>;

    /// Reads a map entry's value into `slot`; false if the entry is then
    /// not kept (a closed enum's unnamed number: the owned message keeps the
    /// whole entry as an unknown field).
    ///
    /// # Errors
    /// Malformed input.
    #[inline(always)]
    fn merge_entry_value(slot: &mut Option<Self::Item>, r: &mut Reader<'a>, depth: u32) -> Result<bool, DecodeError> {
        Self::merge(slot, r, depth)?;
        Ok(true)
    }

    /// Checks a packed run (its length and values) and counts the values a
    /// view yields.
    ///
    /// # Errors
    /// Malformed input.
    fn count_packed(r: &mut Reader<'a>) -> Result<usize, DecodeError> {
        count_run(&mut r.read_nested()?, Self::PACKED_WIDTH.unwrap_or_default())
    }

    /// The next value of a packed run that decoding checked, moving `run`
    /// past it; `None` at the end of the run, or for a value that is not
    /// yielded (a closed enum's unnamed number).
    #[inline(always)]
    fn next_packed(run: &mut &'a [u8]) -> Option<Self::Item> {
        let mut r = Reader::new(run);
        let mut slot = None;
        if Self::merge(&mut slot, &mut r, CHECKED).is_err() {
            *run = &[];
            return None;
        }
        *run = r.rest();
        slot
    }

    /// [`ViewCodec::next_packed`] for an iterator's `next`: `None` at the end
    /// of the run leaves the run as it is (an empty slice is not written
    /// back), which keeps a loop over one run a plain slice loop.
    #[inline(always)]
    fn next_in_run(run: &mut &'a [u8]) -> Option<Self::Item> {
        match run.is_empty() {
            true => None,
            false => Self::next_packed(run),
        }
    }

    /// Folds the values of a packed run that decoding checked. Scalars fold
    /// in one tight loop (a sum over fixed-width values vectorises).
    #[inline(always)]
    fn fold_packed<B>(mut run: &'a [u8], init: B, mut f: impl FnMut(B, Self::Item) -> B) -> B {
        let mut acc = init;
        while !run.is_empty() {
            if let Some(v) = Self::next_packed(&mut run) {
                acc = f(acc, v);
            }
        }
        acc
    }

    /// Appends the values of a packed run that decoding checked to `out`.
    #[inline]
    fn extend_packed(run: &'a [u8], out: &mut Vec<Self::Item>) {
        Self::fold_packed(run, (), |(), v| out.push(v));
    }

    /// Reads into the value of an implicit-presence field.
    ///
    /// # Errors
    /// Malformed input.
    #[inline(always)]
    fn merge_implicit(value: &mut Self::Item, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        let mut slot = None;
        Self::merge(&mut slot, r, depth)?;
        if let Some(v) = slot {
            *value = v;
        }
        Ok(())
    }
}

macro_rules! scalar_view {
    ($($codec:ty),*) => {$(
        impl<'a> ViewCodec<'a> for $codec {
            type Item = <$codec as Codec>::Value;
            const WIRE_TYPE: u8 = <$codec as Codec>::WIRE_TYPE;
            const PACKED_WIDTH: Option<usize> = Some(<$codec as Scalar>::FIXED_WIDTH);

            #[inline(always)]
            fn merge(slot: &mut Option<Self::Item>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
                *slot = Some(<$codec as Codec>::read(r, depth)?);
                Ok(())
            }
            #[inline(always)]
            fn merge_implicit(value: &mut Self::Item, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
                *value = <$codec as Codec>::read(r, depth)?;
                Ok(())
            }
            #[inline(always)]
            fn next_packed(run: &mut &'a [u8]) -> Option<Self::Item> {
                next_scalar::<$codec>(run)
            }
            #[inline(always)]
            fn next_in_run(run: &mut &'a [u8]) -> Option<Self::Item> {
                next_scalar_in_run::<$codec>(run)
            }
            #[inline(always)]
            fn fold_packed<B>(run: &'a [u8], init: B, f: impl FnMut(B, Self::Item) -> B) -> B {
                fold_scalars::<$codec, B>(run, init, f)
            }
            #[inline]
            fn extend_packed(run: &'a [u8], out: &mut Vec<Self::Item>) {
                extend_packed_run::<$codec>(run, out);
            }
        }
    )*};
}

/// The next value of a checked packed run of scalars. Whatever happens, it
/// moves `run` on (to its end if the bytes do not hold a value), so loops
/// over a run always end.
#[inline(always)]
fn next_scalar<C: Scalar>(run: &mut &[u8]) -> Option<C::Value> {
    let wire = match C::FIXED_WIDTH {
        8 => {
            let Some((head, rest)) = run.split_first_chunk::<8>() else {
                *run = &[];
                return None;
            };
            *run = rest;
            u64::from_le_bytes(*head)
        }
        4 => {
            let Some((head, rest)) = run.split_first_chunk::<4>() else {
                *run = &[];
                return None;
            };
            *run = rest;
            u64::from(u32::from_le_bytes(*head))
        }
        _ => match run.split_first() {
            Some((&b, rest)) if b < 0x80 => {
                *run = rest;
                u64::from(b)
            }
            _ => {
                let Ok((v, n)) = varint::decode(run) else {
                    *run = &[];
                    return None;
                };
                *run = run.get(n..).unwrap_or_default();
                v
            }
        },
    };
    Some(C::from_wire(wire))
}

/// The next value of a checked packed run of scalars; at the end, `None`
/// with `run` untouched. Fixed-width values are a bounds check and a load,
/// one- and two-byte varints a test of the high bits; longer varints go
/// to [`next_scalar`].
#[inline(always)]
fn next_scalar_in_run<C: Scalar>(run: &mut &[u8]) -> Option<C::Value> {
    match C::FIXED_WIDTH {
        8 => {
            let (head, rest) = run.split_first_chunk::<8>()?;
            *run = rest;
            Some(C::from_wire(u64::from_le_bytes(*head)))
        }
        4 => {
            let (head, rest) = run.split_first_chunk::<4>()?;
            *run = rest;
            Some(C::from_wire(u64::from(u32::from_le_bytes(*head))))
        }
        _ => {
            let (&low, rest) = run.split_first()?;
            if low < 0x80 {
                *run = rest;
                return Some(C::from_wire(u64::from(low)));
            }
            match rest.split_first() {
                Some((&high, rest)) if high < 0x80 => {
                    *run = rest;
                    Some(C::from_wire(u64::from(low & 0x7f) | u64::from(high) << 7))
                }
                _ => next_scalar::<C>(run),
            }
        }
    }
}

/// Folds a checked packed run of scalars: fixed-width values as whole
/// chunks (no per-value bounds checks), varints one by one.
#[inline(always)]
fn fold_scalars<C: Scalar, B>(run: &[u8], init: B, mut f: impl FnMut(B, C::Value) -> B) -> B {
    match C::FIXED_WIDTH {
        8 => run
            .as_chunks::<8>()
            .0
            .iter()
            .fold(init, |acc, c| f(acc, C::from_wire(u64::from_le_bytes(*c)))),
        4 => run
            .as_chunks::<4>()
            .0
            .iter()
            .fold(init, |acc, c| f(acc, C::from_wire(u64::from(u32::from_le_bytes(*c))))),
        _ => fold_varints::<C, B>(run, init, f),
    }
}

/// Folds a checked packed run of varints: blocks of one- and two-byte
/// varints through the owned decoder's block decoder, others one by one.
#[inline(always)]
fn fold_varints<C: Scalar, B>(mut run: &[u8], init: B, mut f: impl FnMut(B, C::Value) -> B) -> B {
    // All one-byte varints (an OR over the run, which vectorises): a
    // straight map, as the owned decoder has.
    if run.iter().fold(0, |high, &b| high | b) < 0x80 {
        return run.iter().fold(init, |acc, &b| f(acc, C::from_wire(u64::from(b))));
    }
    let mut acc = init;
    // After a block that held a longer varint, the next is not tried before
    // 64 more bytes (as the owned decoder does).
    let mut scalar_bytes = 0usize;
    loop {
        if scalar_bytes == 0 {
            if let Some(bytes) = run.first_chunk::<{ varint::SHORT_BLOCK }>() {
                if let Some(block) = varint::ShortBlock::new(bytes, C::short_lane) {
                    acc = block
                        .lanes()
                        .take(block.count())
                        .fold(acc, |acc, lane| f(acc, C::from_short_lane(lane)));
                    run = &run[block.len()..];
                    continue;
                }
                scalar_bytes = 64;
            }
        }
        let before = run.len();
        match run.first_chunk::<10>() {
            // Ten bytes ahead: the loop-free decoder, then the varints of
            // the same length that follow, a word at a time (as the owned
            // decoder reads long varints).
            Some(head) => {
                let Ok((v, n)) = varint::decode_ten(head) else {
                    return acc;
                };
                run = &run[n..];
                acc = f(acc, C::from_wire(v));
                while let Some(word) = run.first_chunk::<8>().filter(|_| (2..=8).contains(&n)) {
                    let Some(v) = varint::decode_len(u64::from_le_bytes(*word), n) else {
                        break;
                    };
                    run = &run[n..];
                    acc = f(acc, C::from_wire(v));
                }
            }
            None => match next_scalar::<C>(&mut run) {
                Some(v) => acc = f(acc, v),
                None => return acc,
            },
        }
        scalar_bytes = scalar_bytes.saturating_sub(before - run.len());
    }
}

scalar_view!(Int32, Int64, Uint32, Uint64, Sint32, Sint64, Bool, Fixed32, Fixed64, Sfixed32, Sfixed64, Float, Double);

impl<'a, E: Enum> ViewCodec<'a> for OpenEnum<E> {
    type Item = crate::EnumValue<E>;
    const WIRE_TYPE: u8 = wire::VARINT;
    const PACKED_WIDTH: Option<usize> = Some(0);

    #[inline(always)]
    fn merge(slot: &mut Option<Self::Item>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        *slot = Some(<Self as Codec>::read(r, depth)?);
        Ok(())
    }
}

impl<'a, E: Enum> ViewCodec<'a> for ClosedEnum<E> {
    type Item = E;
    const WIRE_TYPE: u8 = wire::VARINT;
    const PACKED_WIDTH: Option<usize> = Some(0);
    const ONE_PER_RECORD: bool = false;

    /// Counted value by value: unnamed numbers are not yielded.
    fn count_packed(r: &mut Reader<'a>) -> Result<usize, DecodeError> {
        let mut inner = r.read_nested()?;
        let mut count = 0;
        while !inner.is_empty() {
            count += usize::from(named::<E>(&mut inner)?.is_some());
        }
        Ok(count)
    }

    #[inline]
    fn merge(slot: &mut Option<E>, r: &mut Reader<'a>, _depth: u32) -> Result<(), DecodeError> {
        if let Some(e) = named::<E>(r)? {
            *slot = Some(e);
        }
        Ok(())
    }

    #[inline]
    fn merge_entry_value(slot: &mut Option<E>, r: &mut Reader<'a>, _depth: u32) -> Result<bool, DecodeError> {
        let e = named::<E>(r)?;
        *slot = e;
        Ok(e.is_some())
    }
}

/// The number of values in the packed run `inner` of values `width` bytes
/// wide (0 for varints). Out of line: one copy for every codec.
///
/// # Errors
/// A run of fixed-width values with a partial one, a malformed varint.
#[inline(never)]
fn count_run(inner: &mut Reader<'_>, width: usize) -> Result<usize, DecodeError> {
    let bytes = inner.rest();
    if width != 0 {
        return if bytes.len().is_multiple_of(width) {
            Ok(bytes.len() / width)
        } else {
            Err(inner.error(DecodeErrorKind::PackedLengthMismatch))
        };
    }
    if bytes.iter().all(|&b| b < 0x80) {
        return Ok(bytes.len());
    }
    if let Some(count) = count_varints(bytes) {
        return Ok(count);
    }
    // A malformed varint: read them one by one to report it where it is.
    let mut count = 0;
    while !inner.is_empty() {
        inner.read_varint()?;
        count += 1;
    }
    Ok(count)
}

/// The number of varints in `bytes`, if they are whole varints of at most
/// ten bytes each (the tenth may hold any bits, as `varint::decode` reads
/// them); `None` for a malformed run, which is then read value by value to
/// fail as owned decoding does. Eight bytes at a time: a varint ends at
/// each byte with its high bit clear.
fn count_varints(bytes: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // `run`: continuation bytes since the last stop (capped: past ten it
    // only matters that it is).
    let (mut count, mut run, mut bad) = (0usize, 0u32, false);
    let (words, tail) = bytes.as_chunks::<8>();
    for word in words {
        let stops = !u64::from_le_bytes(*word) & HIGH;
        // One bit per stop, summed into the top byte by the multiply.
        count += ((stops >> 7).wrapping_mul(ONES) >> 56) as usize;
        // Continuation bytes before the first stop (8 with none) extend the run.
        bad |= run + stops.trailing_zeros() / 8 >= 10;
        run = if stops == 0 {
            (run + 8).min(16)
        } else {
            stops.leading_zeros() / 8
        };
    }
    for &b in tail {
        run = if b < 0x80 { 0 } else { run + 1 };
        count += usize::from(b < 0x80);
        bad |= run >= 10;
    }
    (!bad && run == 0).then_some(count)
}

/// A closed enum's value, if `E` names it.
#[inline(always)]
fn named<E: Enum>(r: &mut Reader<'_>) -> Result<Option<E>, DecodeError> {
    #[allow(clippy::cast_possible_truncation)] // protobuf keeps the low 32 bits
    let number = r.read_varint()? as i32;
    Ok(E::from_i32(number))
}

impl<'a> ViewCodec<'a> for Str {
    type Item = &'a str;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn merge(slot: &mut Option<&'a str>, r: &mut Reader<'a>, _depth: u32) -> Result<(), DecodeError> {
        *slot = Some(read_str(r)?);
        Ok(())
    }
    #[inline(always)]
    fn merge_implicit(value: &mut &'a str, r: &mut Reader<'a>, _depth: u32) -> Result<(), DecodeError> {
        *value = read_str(r)?;
        Ok(())
    }
}

macro_rules! bytes_view {
    ($($codec:ty),*) => {$(
        impl<'a> ViewCodec<'a> for $codec {
            type Item = &'a [u8];
            const WIRE_TYPE: u8 = wire::LEN;

            #[inline(always)]
            fn merge(slot: &mut Option<&'a [u8]>, r: &mut Reader<'a>, _depth: u32) -> Result<(), DecodeError> {
                *slot = Some(r.read_bytes()?);
                Ok(())
            }
            #[inline(always)]
            fn merge_implicit(value: &mut &'a [u8], r: &mut Reader<'a>, _depth: u32) -> Result<(), DecodeError> {
                *value = r.read_bytes()?;
                Ok(())
            }
        }
    )*};
}

bytes_view!(Bytes, LaxStr);
#[cfg(feature = "bytes")]
bytes_view!(crate::codec::SharedBytes);

/// A length-delimited message, read into a view held inline.
#[derive(Debug)]
pub struct MsgView<V>(PhantomData<V>);

/// A message encoded as a group of field `NUMBER`, read into a view.
#[derive(Debug)]
pub struct GroupView<V, const NUMBER: u32>(PhantomData<V>);

/// A length-delimited message held as a [`Lazy`] view.
#[derive(Debug)]
pub struct LazyMsg<V>(PhantomData<V>);

/// A group held as a [`Lazy`] view.
#[derive(Debug)]
pub struct LazyGroup<V, const NUMBER: u32>(PhantomData<V>);

/// The reader over a nested message's fields, one level deeper, and that
/// depth. For a group, `number` is its field number (the START_GROUP tag has
/// been read).
#[inline(always)]
fn nested<'a>(r: &mut Reader<'a>, depth: u32, group: Option<u32>) -> Result<(Reader<'a>, u32), DecodeError> {
    #[cfg(test)]
    reads::NESTED.with(|n| n.set(n.get() + 1));
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    let inner = match group {
        None => r.read_nested()?,
        Some(number) => r.read_group(number, depth)?,
    };
    Ok((inner, depth))
}

/// Reads a nested message into `slot`.
#[inline]
fn merge_view<'a, V: View<'a>>(
    slot: &mut Option<V>,
    r: &mut Reader<'a>,
    depth: u32,
    group: Option<u32>,
) -> Result<(), DecodeError> {
    let (mut inner, depth) = nested(r, depth, group)?;
    slot.get_or_insert_with(V::default)
        .merge_chunk(&mut inner, depth)
        .map_err(|e| e.within(<V::Message as Message>::FULL_NAME, inner.field()))
}

/// Checks a nested message and keeps it in `slot`, to read on demand.
/// Inlined into the message's reader: a recursive message reads itself
/// through it at every level.
#[inline]
fn merge_lazy<'a, V: View<'a>>(
    slot: &mut Option<Lazy<'a, V>>,
    r: &mut Reader<'a>,
    depth: u32,
    group: Option<u32>,
) -> Result<(), DecodeError> {
    let (mut inner, depth) = nested(r, depth, group)?;
    slot.get_or_insert_with(Lazy::default)
        .merge(&mut inner, depth)
        .map_err(|e| e.within(<V::Message as Message>::FULL_NAME, inner.field()))
}

impl<'a, V: View<'a>> ViewCodec<'a> for MsgView<V> {
    type Item = V;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline]
    fn merge(slot: &mut Option<V>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        merge_view(slot, r, depth, None)
    }
}

impl<'a, V: View<'a>, const NUMBER: u32> ViewCodec<'a> for GroupView<V, NUMBER> {
    type Item = V;
    const WIRE_TYPE: u8 = wire::START_GROUP;

    #[inline]
    fn merge(slot: &mut Option<V>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        merge_view(slot, r, depth, Some(NUMBER))
    }
}

impl<'a, V: View<'a>> ViewCodec<'a> for LazyMsg<V> {
    type Item = Lazy<'a, V>;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline]
    fn merge(slot: &mut Option<Lazy<'a, V>>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        merge_lazy(slot, r, depth, None)
    }
}

impl<'a, V: View<'a>, const NUMBER: u32> ViewCodec<'a> for LazyGroup<V, NUMBER> {
    type Item = Lazy<'a, V>;
    const WIRE_TYPE: u8 = wire::START_GROUP;

    #[inline]
    fn merge(slot: &mut Option<Lazy<'a, V>>, r: &mut Reader<'a>, depth: u32) -> Result<(), DecodeError> {
        merge_lazy(slot, r, depth, Some(NUMBER))
    }
}

/// How many nested messages views have read, on this thread (for tests of
/// how much reading a structure costs).
#[cfg(test)]
pub(super) mod reads {
    extern crate std;

    std::thread_local! {
        pub static NESTED: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
    }
}
