//! Per-type codecs and the repeated, packed and map helpers generated code calls.
//!
//! Every protobuf type has a zero-sized codec type here (`Int32`, `Sint64`, `Str`,
//! `Msg<M>`, ...) implementing [`Codec`]. Generated code names the codec once per
//! field, and the same generic helpers then size, write and read singular,
//! repeated, packed and map fields, so the three passes can never disagree.
//!
//! Writers are backwards writers (see [`Writer`]): a value is written, then its
//! tag before it.

use alloc::string::String;
use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::enumeration::{Enum, EnumValue};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::lax_string::LaxString;
use crate::message::Message;
use crate::reader::Reader;
use crate::unknown::UnknownFields;
use crate::varint;
use crate::wire;
use crate::writer::{self, fill, Writer};

/// How one protobuf type is sized, written and read.
pub trait Codec {
    /// The Rust type that holds a value.
    type Value: Default;
    /// The wire type of a value (its packed form aside).
    const WIRE_TYPE: u8;

    /// True for the value that implicit presence leaves off the wire.
    fn is_default(v: &Self::Value) -> bool;
    /// Encoded size of the value, without its tag.
    fn size(v: &Self::Value) -> usize;
    /// Writes the value (not its tag) backwards.
    fn write(v: &Self::Value, w: &mut Writer<'_>);
    /// Writes the value and, before it, `key` (the field's tag bytes). Codecs
    /// override it to write the key together with the value's last bytes.
    #[inline(always)]
    fn write_keyed(v: &Self::Value, key: &[u8], w: &mut Writer<'_>) {
        Self::write(v, w);
        w.put_slice(key);
    }
    /// Reads one value and merges it into `v`: scalars overwrite, messages merge.
    fn merge(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError>;

    /// [`Codec::merge`] for code generated in size mode (see
    /// [`crate::compact`]): messages override it to merge through one
    /// function shared by all message types.
    #[doc(hidden)]
    #[inline(always)]
    fn merge_compact(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        Self::merge(v, r, depth)
    }

    /// [`Codec::write_keyed`] for code generated in size mode: messages
    /// override it to write through one function shared by all types.
    #[doc(hidden)]
    #[inline(always)]
    fn write_compact(v: &Self::Value, key: &[u8], w: &mut Writer<'_>) {
        Self::write_keyed(v, key, w);
    }

    /// Reads one value into a fresh `Value`.
    #[inline]
    fn read(r: &mut Reader<'_>, depth: u32) -> Result<Self::Value, DecodeError> {
        let mut v = Self::Value::default();
        Self::merge(&mut v, r, depth)?;
        Ok(v)
    }

    /// [`Codec::merge`] for a map entry's key or value. Strings override it to
    /// read inline: the entry's reader then never reaches a call and stays in
    /// registers (decoders' own strings stay one call each).
    #[doc(hidden)]
    #[inline(always)]
    fn merge_in_entry(v: &mut Self::Value, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        Self::merge(v, r, depth)
    }

    /// Appends the values of a packed run (its length and values) to
    /// `values`, for repeated extensions; `None` for types that are never
    /// packed.
    #[doc(hidden)]
    fn merge_packed_run(_r: &mut Reader<'_>, _values: &mut Vec<Self::Value>) -> Option<Result<(), DecodeError>> {
        None
    }
}

/// Numeric codecs: their values can be packed. A value maps to one `u64` "wire
/// value" that is either the varint or the little-endian fixed-width bits.
pub trait Scalar: Codec<Value: Copy> {
    /// 4 or 8 for fixed-width types, 0 for varints.
    const FIXED_WIDTH: usize;
    /// The value as it goes on the wire.
    fn to_wire(v: Self::Value) -> u64;
    /// The value from its wire form (keeps the low bits, as protobuf specifies for
    /// 32-bit types read from a 64-bit varint).
    fn from_wire(w: u64) -> Self::Value;

    /// Writes the values of a packed fixed-width run (`FIXED_WIDTH` bytes each).
    #[inline]
    fn write_fixed(values: &[Self::Value], w: &mut Writer<'_>) {
        let width = Self::FIXED_WIDTH;
        let dst = w.claim(width * values.len());
        for (chunk, &v) in dst.chunks_exact_mut(width).zip(values) {
            fill(chunk, &Self::to_wire(v).to_le_bytes()[..width]);
        }
    }

    /// For block decoders of one- and two-byte varints (below 2^14): a step
    /// from the varint to a 16-bit lane, applied to a whole block at once
    /// (it vectorises), and the value from the lane. By default the lane is
    /// the varint; the sint types undo the zigzag in the lane.
    #[doc(hidden)]
    #[inline(always)]
    fn short_lane(v: u16) -> u16 {
        v
    }

    /// See [`Scalar::short_lane`].
    #[doc(hidden)]
    #[inline(always)]
    fn from_short_lane(lane: u16) -> Self::Value {
        Self::from_wire(u64::from(lane))
    }

    /// Appends the values of a packed fixed-width run; `bytes` holds a whole
    /// number of them.
    #[inline]
    fn extend_fixed(values: &mut Vec<Self::Value>, bytes: &[u8]) {
        // Array chunks give an exact-size iterator: `extend` copies in one
        // pass without per-element capacity checks.
        if Self::FIXED_WIDTH == 4 {
            let (chunks, _) = bytes.as_chunks::<4>();
            values.extend(
                chunks
                    .iter()
                    .map(|c| Self::from_wire(u64::from(u32::from_le_bytes(*c)))),
            );
        } else {
            let (chunks, _) = bytes.as_chunks::<8>();
            values.extend(chunks.iter().map(|c| Self::from_wire(u64::from_le_bytes(*c))));
        }
    }
}

/// The fixed-width number types, whose memory on a little-endian target is
/// their wire form: no padding, and any bytes make a valid value.
trait Plain: Copy {}

impl Plain for u32 {}
impl Plain for i32 {}
impl Plain for f32 {}
impl Plain for u64 {}
impl Plain for i64 {}
impl Plain for f64 {}

/// The bytes of `values`, which on a little-endian target are their wire form.
#[inline]
fn plain_bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: a `Plain` value has no padding, so all its bytes are initialised,
    // and `u8` has no alignment requirement.
    #[allow(unsafe_code)]
    unsafe {
        core::slice::from_raw_parts(values.as_ptr().cast::<u8>(), core::mem::size_of_val(values))
    }
}

/// Appends the values whose little-endian bytes are `bytes` (a whole number
/// of them) with one copy.
#[inline]
fn extend_plain<T: Plain>(values: &mut Vec<T>, bytes: &[u8]) {
    let n = bytes.len() / core::mem::size_of::<T>();
    values.reserve(n);
    let start = values.len();
    let spare = &mut values.spare_capacity_mut()[..n];
    // SAFETY: `spare` is `n` values long, room for the first `n * size_of::<T>()`
    // bytes of `bytes`, and any bytes make a valid `Plain` value, so the `n`
    // slots are initialised before the length covers them.
    #[allow(unsafe_code)]
    unsafe {
        let len = n * core::mem::size_of::<T>();
        core::ptr::copy_nonoverlapping(bytes.as_ptr(), spare.as_mut_ptr().cast::<u8>(), len);
        values.set_len(start + n);
    }
}

/// The fixed-width run methods of a codec whose values are [`Plain`]: one
/// copy each way on little-endian targets (the defaults convert value by
/// value, which is what big-endian targets need).
macro_rules! plain_runs {
    ($value:ty) => {
        #[cfg(target_endian = "little")]
        #[inline]
        fn write_fixed(values: &[$value], w: &mut Writer<'_>) {
            w.put_slice(plain_bytes(values));
        }

        #[cfg(target_endian = "little")]
        #[inline]
        fn extend_fixed(values: &mut Vec<$value>, bytes: &[u8]) {
            extend_plain(values, bytes);
        }
    };
}

/// Block decoders' lanes for the zigzag types: the signed value (within
/// ±8191), sign-extended to the value.
macro_rules! zigzag_lanes {
    ($value:ty) => {
        #[inline(always)]
        fn short_lane(v: u16) -> u16 {
            (v >> 1) ^ 0u16.wrapping_sub(v & 1)
        }
        #[inline(always)]
        fn from_short_lane(lane: u16) -> $value {
            <$value>::from(lane as i16)
        }
    };
}

macro_rules! scalar_codec {
    ($(#[$doc:meta])* $name:ident, $value:ty, $wire_type:expr, $width:expr,
     |$v:ident| $to_wire:expr, |$w:ident| $from_wire:expr, |$d:ident| $is_default:expr $(, $plain:ident)?) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}

        impl Scalar for $name {
            const FIXED_WIDTH: usize = $width;
            #[inline(always)]
            fn to_wire($v: $value) -> u64 {
                $to_wire
            }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation)] // protobuf keeps the low bits
            fn from_wire($w: u64) -> $value {
                $from_wire
            }
            $($plain!($value);)?
        }

        impl Codec for $name {
            type Value = $value;
            const WIRE_TYPE: u8 = $wire_type;

            #[inline(always)]
            fn is_default($d: &$value) -> bool {
                $is_default
            }
            #[inline(always)]
            fn size(v: &$value) -> usize {
                scalar_size::<Self>(*v)
            }
            #[inline(always)]
            fn write(v: &$value, w: &mut Writer<'_>) {
                write_scalar::<Self>(*v, w);
            }
            #[inline(always)]
            fn write_keyed(v: &$value, key: &[u8], w: &mut Writer<'_>) {
                write_scalar_keyed::<Self>(*v, key, w);
            }
            #[inline(always)]
            fn merge(v: &mut $value, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
                *v = read_scalar::<Self>(r)?;
                Ok(())
            }
            #[inline(always)]
            fn read(r: &mut Reader<'_>, _depth: u32) -> Result<$value, DecodeError> {
                read_scalar::<Self>(r)
            }
            fn merge_packed_run(r: &mut Reader<'_>, values: &mut Vec<$value>) -> Option<Result<(), DecodeError>> {
                Some(merge_packed::<Self>(r, values))
            }
        }
    };
}

scalar_codec!(/// `int32`: negative values take ten bytes (sign-extended).
    Int32, i32, wire::VARINT, 0, |v| i64::from(v) as u64, |w| w as i32, |v| *v == 0);
scalar_codec!(/// `int64`.
    Int64, i64, wire::VARINT, 0, |v| v as u64, |w| w as i64, |v| *v == 0);
scalar_codec!(/// `uint32`.
    Uint32, u32, wire::VARINT, 0, |v| u64::from(v), |w| w as u32, |v| *v == 0);
scalar_codec!(/// `uint64`.
    Uint64, u64, wire::VARINT, 0, |v| v, |w| w, |v| *v == 0);
scalar_codec!(/// `sint32`: zigzag varint.
    Sint32, i32, wire::VARINT, 0, |v| u64::from(varint::zigzag32(v)), |w| varint::unzigzag32(w as u32), |v| *v == 0, zigzag_lanes);
scalar_codec!(/// `sint64`: zigzag varint.
    Sint64, i64, wire::VARINT, 0, |v| varint::zigzag64(v), |w| varint::unzigzag64(w), |v| *v == 0, zigzag_lanes);
scalar_codec!(/// `bool`: any non-zero varint reads as `true`.
    Bool, bool, wire::VARINT, 0, |v| u64::from(v), |w| w != 0, |v| !*v);
scalar_codec!(/// `fixed32`.
    Fixed32, u32, wire::FIXED32, 4, |v| u64::from(v), |w| w as u32, |v| *v == 0, plain_runs);
scalar_codec!(/// `sfixed32`.
    Sfixed32, i32, wire::FIXED32, 4, |v| u64::from(v as u32), |w| w as u32 as i32, |v| *v == 0, plain_runs);
scalar_codec!(/// `float`: `-0.0` is not the default and is written.
    Float, f32, wire::FIXED32, 4, |v| u64::from(v.to_bits()), |w| f32::from_bits(w as u32), |v| v.to_bits() == 0, plain_runs);
scalar_codec!(/// `fixed64`.
    Fixed64, u64, wire::FIXED64, 8, |v| v, |w| w, |v| *v == 0, plain_runs);
scalar_codec!(/// `sfixed64`.
    Sfixed64, i64, wire::FIXED64, 8, |v| v as u64, |w| w as i64, |v| *v == 0, plain_runs);
scalar_codec!(/// `double`: `-0.0` is not the default and is written.
    Double, f64, wire::FIXED64, 8, |v| v.to_bits(), |w| f64::from_bits(w), |v| v.to_bits() == 0, plain_runs);

/// An open enum: an `int32` varint kept as [`EnumValue`], known or not.
#[derive(Debug)]
pub struct OpenEnum<E>(PhantomData<E>);

impl<E: Enum> Scalar for OpenEnum<E> {
    const FIXED_WIDTH: usize = 0;
    #[inline(always)]
    fn to_wire(v: EnumValue<E>) -> u64 {
        i64::from(v.to_i32()) as u64
    }
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)] // protobuf keeps the low 32 bits
    fn from_wire(w: u64) -> EnumValue<E> {
        EnumValue::from_i32(w as i32)
    }
}

impl<E: Enum> Codec for OpenEnum<E> {
    type Value = EnumValue<E>;
    const WIRE_TYPE: u8 = wire::VARINT;

    #[inline(always)]
    fn is_default(v: &EnumValue<E>) -> bool {
        v.to_i32() == 0
    }
    #[inline(always)]
    fn size(v: &EnumValue<E>) -> usize {
        scalar_size::<Self>(*v)
    }
    #[inline(always)]
    fn write(v: &EnumValue<E>, w: &mut Writer<'_>) {
        write_scalar::<Self>(*v, w);
    }
    #[inline(always)]
    fn write_keyed(v: &EnumValue<E>, key: &[u8], w: &mut Writer<'_>) {
        write_scalar_keyed::<Self>(*v, key, w);
    }
    #[inline(always)]
    fn merge(v: &mut EnumValue<E>, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        *v = read_scalar::<Self>(r)?;
        Ok(())
    }
    fn merge_packed_run(r: &mut Reader<'_>, values: &mut Vec<EnumValue<E>>) -> Option<Result<(), DecodeError>> {
        Some(merge_packed::<Self>(r, values))
    }
}

#[inline(always)]
fn scalar_size<C: Scalar>(v: C::Value) -> usize {
    match C::FIXED_WIDTH {
        0 => varint::len(C::to_wire(v)),
        width => width,
    }
}

#[inline(always)]
fn write_scalar<C: Scalar>(v: C::Value, w: &mut Writer<'_>) {
    let wire = C::to_wire(v);
    match C::FIXED_WIDTH {
        0 => w.put_varint(wire),
        4 => w.put_slice(&wire.to_le_bytes()[..4]),
        _ => w.put_fixed64(wire),
    }
}

#[inline(always)]
fn write_scalar_keyed<C: Scalar>(v: C::Value, key: &[u8], w: &mut Writer<'_>) {
    let wire = C::to_wire(v);
    match C::FIXED_WIDTH {
        0 => w.put_key_varint(key, wire),
        width => w.put_key_slice(key, &wire.to_le_bytes()[..width]),
    }
}

#[inline(always)]
fn read_scalar<C: Scalar>(r: &mut Reader<'_>) -> Result<C::Value, DecodeError> {
    let wire = match C::FIXED_WIDTH {
        0 => r.read_varint()?,
        4 => u64::from(r.read_fixed32()?),
        _ => r.read_fixed64()?,
    };
    Ok(C::from_wire(wire))
}

/// `string`: validated as UTF-8 on read.
#[derive(Debug)]
pub enum Str {}

impl Str {
    /// Replaces `v` with the string at the front of `r`, reusing its
    /// allocation. Forced inline into `merge` and `read`, so a string costs
    /// one call, not two.
    #[inline(always)]
    fn read_into(v: &mut String, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let bytes = r.read_bytes()?;
        Self::replace(v, bytes, r.offset())
    }

    /// Makes `v` hold `bytes` if they are UTF-8; else fails with an error at
    /// the first bad byte (`end` is the offset just past `bytes`), leaving
    /// `v` unchanged or empty.
    #[inline(always)]
    fn replace(v: &mut String, bytes: &[u8], end: usize) -> Result<(), DecodeError> {
        // SAFETY: `v` is left holding the bytes of a `str` (checked below),
        // or emptied.
        #[allow(unsafe_code)]
        let v = unsafe { v.as_mut_vec() };
        if bytes.len() >= SIMD_UTF8_MIN {
            return replace_text(v, bytes, end);
        }
        // ASCII is valid UTF-8. `from_utf8` costs ~10 instructions a byte on
        // short strings (callgrind, the Go message: 385 of its 1175
        // instructions).
        if !is_ascii(bytes) {
            check_utf8(bytes, end)?;
        }
        replace_bytes(v, bytes);
        Ok(())
    }
}

/// The length from which strings are copied and checked for ASCII in one
/// pass, and validated by SIMD (`simdutf8`) if they are not ASCII.
const SIMD_UTF8_MIN: usize = 64;

/// Makes `v` hold exactly `text` (of [`SIMD_UTF8_MIN`] bytes or more) if it
/// is UTF-8, else empties it; `end` is the offset just past `text`, for the
/// error. The copy finds out whether the bytes are ASCII as it goes (one pass
/// instead of a check and then a copy); others are validated by `simdutf8`
/// and then copied. Out of line: it would tip `Str::merge` over the size at
/// which decoders inline it.
#[inline(never)]
fn replace_text(v: &mut Vec<u8>, text: &[u8], end: usize) -> Result<(), DecodeError> {
    let n = text.len();
    if v.capacity() == 0 {
        *v = Vec::with_capacity(n);
    } else {
        v.clear();
        v.reserve(n);
    }
    let room = &mut v.spare_capacity_mut()[..n];
    if !crate::simd::copy_ascii(room, text) {
        check_utf8(text, end)?;
        fill(room, text);
    }
    // SAFETY: `copy_ascii` (for ASCII) or `fill` initialised the first `n`
    // spare bytes.
    #[allow(unsafe_code)]
    unsafe {
        v.set_len(n);
    }
    Ok(())
}

/// Checks that `bytes` are UTF-8; `end` is the offset just past them, for
/// the error. On text that is not all ASCII (names, messages, reviews in most
/// of the world's scripts) `core::str::from_utf8` takes about 1.5 ns a byte
/// and `simdutf8` a tenth of that, from [`SIMD_UTF8_MIN`] bytes on; shorter
/// strings stay with `core`, which is as fast there. Out of line: rare.
#[inline(never)]
pub(crate) fn check_utf8(bytes: &[u8], end: usize) -> Result<(), DecodeError> {
    as_utf8(bytes, end).map(drop)
}

/// `bytes` as text, if they are UTF-8 (see [`check_utf8`]): for views,
/// which borrow strings rather than copy them. Short ASCII inline, the rest
/// out of line.
#[inline(always)]
pub(crate) fn as_utf8(bytes: &[u8], end: usize) -> Result<&str, DecodeError> {
    if bytes.len() < SIMD_UTF8_MIN && is_ascii(bytes) {
        // SAFETY: ASCII is UTF-8. (`from_utf8` costs ~10 instructions a
        // byte on short strings, the ASCII check a fraction of one.)
        #[allow(unsafe_code)]
        return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    as_utf8_slow(bytes, end)
}

/// [`as_utf8`] for longer text (SIMD) and text that is not ASCII.
#[inline(never)]
fn as_utf8_slow(bytes: &[u8], end: usize) -> Result<&str, DecodeError> {
    if bytes.len() >= SIMD_UTF8_MIN {
        if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            return Ok(text);
        }
    }
    // Short text, or invalid: `core` says where the error is.
    core::str::from_utf8(bytes)
        .map_err(|e| DecodeError::new(DecodeErrorKind::InvalidUtf8, end - bytes.len() + e.valid_up_to()))
}

/// `bytes.is_ascii()`, with strings of up to 16 bytes (names, keys, ids)
/// checked by two possibly overlapping word loads instead of the standard
/// library's byte loop after the last whole word.
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The slices below always hold the bytes loaded; were one short, the
    // answer would be "not ASCII" and the full UTF-8 check would run.
    let word = |b: &[u8]| b.first_chunk::<8>().map_or(HIGH, |w| u64::from_le_bytes(*w));
    let half = |b: &[u8]| b.first_chunk::<4>().map_or(HIGH, |w| u64::from(u32::from_le_bytes(*w)));
    let n = bytes.len();
    match n {
        8..=16 => (word(bytes) | word(&bytes[n - 8..])) & HIGH == 0,
        4..=7 => (half(bytes) | half(&bytes[n - 4..])) & HIGH == 0,
        1..=3 => (bytes[0] | bytes[n / 2] | bytes[n - 1]) < 0x80,
        0 => true,
        _ => bytes.is_ascii(),
    }
}

impl Codec for Str {
    type Value = String;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &String) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &String) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &String, w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &String, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut String, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    /// Allocates exactly the string's length.
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<String, DecodeError> {
        let mut v = String::new();
        Self::read_into(&mut v, r)?;
        Ok(v)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut String, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `string` without UTF-8 validation (proto2; editions'
/// `utf8_validation = NONE`): any bytes read, kept exactly.
#[derive(Debug)]
pub enum LaxStr {}

impl LaxStr {
    /// Replaces `v` with the string at the front of `r`: through `Str`'s
    /// validated copy (reusing the allocation), and kept as bytes if that
    /// finds them not UTF-8.
    #[inline(always)]
    fn read_into(v: &mut LaxString, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let bytes = r.read_bytes()?;
        if Str::replace(v.text_for_decode(), bytes, r.offset()).is_err() {
            v.set_invalid(bytes);
        }
        Ok(())
    }
}

impl Codec for LaxStr {
    type Value = LaxString;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &LaxString) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &LaxString) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &LaxString, w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &LaxString, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v.as_bytes());
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut LaxString, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut LaxString, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `bytes`.
#[derive(Debug)]
pub enum Bytes {}

impl Codec for Bytes {
    type Value = Vec<u8>;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &Vec<u8>) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &Vec<u8>) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &Vec<u8>, w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &Vec<u8>, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_key_varint(key, v.len() as u64);
    }
    /// Replaces `v`, reusing its allocation.
    #[inline]
    fn merge(v: &mut Vec<u8>, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
    /// Allocates exactly the value's length.
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<Vec<u8>, DecodeError> {
        r.read_bytes().map(<[u8]>::to_vec)
    }
    #[inline(always)]
    fn merge_in_entry(v: &mut Vec<u8>, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        Self::read_into(v, r)
    }
}

/// `bytes` held as `bytes::Bytes` (the generator's `bytes` option): decoded
/// from a shared buffer (`Message::decode_shared`), values are slices of it,
/// not copies.
#[cfg(feature = "bytes")]
#[derive(Debug)]
pub enum SharedBytes {}

#[cfg(feature = "bytes")]
impl Codec for SharedBytes {
    type Value = bytes::Bytes;
    const WIRE_TYPE: u8 = wire::LEN;

    #[inline(always)]
    fn is_default(v: &bytes::Bytes) -> bool {
        v.is_empty()
    }
    #[inline(always)]
    fn size(v: &bytes::Bytes) -> usize {
        len_delimited_size(v.len())
    }
    #[inline(always)]
    fn write(v: &bytes::Bytes, w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_varint(v.len() as u64);
    }
    #[inline(always)]
    fn write_keyed(v: &bytes::Bytes, key: &[u8], w: &mut Writer<'_>) {
        w.put_slice(v);
        w.put_key_varint(key, v.len() as u64);
    }
    #[inline]
    fn merge(v: &mut bytes::Bytes, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        *v = r.read_shared()?;
        Ok(())
    }
    #[inline]
    fn read(r: &mut Reader<'_>, _depth: u32) -> Result<bytes::Bytes, DecodeError> {
        r.read_shared()
    }
}

impl Bytes {
    /// Replaces `v` with the bytes at the front of `r`, reusing its allocation.
    #[inline(always)]
    fn read_into(v: &mut Vec<u8>, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        replace_bytes(v, r.read_bytes()?);
        Ok(())
    }
}

/// Makes `v` hold exactly `bytes`, keeping its allocation when it has one
/// (and room). A fresh field gets one exact allocation, without `reserve`'s
/// growth path (about 60 instructions a string on the Go message).
#[inline(always)]
fn replace_bytes(v: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if n > 16 {
        if v.capacity() == 0 {
            *v = bytes.to_vec();
        } else {
            v.clear();
            v.extend_from_slice(bytes);
        }
        return;
    }
    // Names, ids and keys: copied inline rather than by a call to `memcpy`,
    // whose entry and size dispatch cost more than the copy (about 30
    // instructions a string on the Go message).
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
    } else {
        v.clear();
    }
    if let Some(room) = v.spare_capacity_mut().get_mut(..n) {
        writer::copy_short(room, bytes);
        // SAFETY: the first `n` bytes after the (empty) contents were
        // initialised just above.
        #[allow(unsafe_code)]
        unsafe {
            v.set_len(n);
        }
    }
}

/// An embedded message (length-delimited).
#[derive(Debug)]
pub struct Msg<M>(PhantomData<M>);

impl<M: Message> Codec for Msg<M> {
    type Value = M;
    const WIRE_TYPE: u8 = wire::LEN;

    /// Messages have explicit presence; a present empty message is still written.
    #[inline(always)]
    fn is_default(_: &M) -> bool {
        false
    }
    #[inline]
    fn size(v: &M) -> usize {
        len_delimited_size(v.size())
    }
    #[inline]
    fn write(v: &M, w: &mut Writer<'_>) {
        let end = w.remaining();
        v.write_backward(w);
        w.put_len_since(end);
    }
    #[inline]
    fn write_keyed(v: &M, key: &[u8], w: &mut Writer<'_>) {
        let end = w.remaining();
        v.write_backward(w);
        w.put_key_varint(key, (end - w.remaining()) as u64);
    }
    #[inline]
    fn merge(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        merge_message(v, r, depth)
    }
    #[inline]
    fn merge_compact(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        crate::compact::merge_nested(r, depth, M::FOOTPRINT, M::FULL_NAME, v)
    }
    #[inline]
    fn write_compact(v: &M, key: &[u8], w: &mut Writer<'_>) {
        crate::compact::write_message(v, key, w);
    }
}

/// Reads a length-delimited message and merges it into `m`, one level deeper.
/// Forced inline in optimised builds: the glue around a nested message's
/// `merge_from`, called from decoders too large for the inliner's own
/// judgement. (Not in debug builds, where its locals would grow every
/// decoder's frame, as for `Writer::put_key_varint`.)
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn merge_message<M: Message>(m: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
    let Some(depth) = depth.checked_sub(1) else {
        return Err(r.error(DecodeErrorKind::RecursionLimit));
    };
    r.charge(M::FOOTPRINT)?;
    let mut inner = r.read_nested()?;
    let merged = m.merge_from(&mut inner, depth);
    r.absorb(&inner);
    merged.map_err(|e| e.within(M::FULL_NAME, inner.field()))
}

/// Size of a length prefix plus `len` bytes.
#[inline(always)]
#[must_use]
pub const fn len_delimited_size(len: usize) -> usize {
    varint::len(len as u64) + len
}

/// Size of a repeated field written unpacked, one tag per element.
#[inline]
pub fn size_repeated<C: Codec>(values: &[C::Value], key_len: usize) -> usize {
    key_len * values.len() + values.iter().map(C::size).sum::<usize>()
}

/// Writes a repeated field unpacked, one tag per element.
#[inline]
pub fn write_repeated<C: Codec>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    w.in_registers(|w| {
        for v in values.iter().rev() {
            C::write_keyed(v, tag, w);
        }
    });
}

/// Size of a packed field's payload (without tag and length).
#[inline]
fn packed_payload_size<C: Scalar>(values: &[C::Value]) -> usize {
    match C::FIXED_WIDTH {
        0 => varint_run_len::<C>(values),
        width => width * values.len(),
    }
}

/// Whether a packed run starts with a varint of three bytes or more: then
/// its values are most likely large (ids, hashes, timestamps, negative
/// int32s), and the OR over the run that looks for one- and two-byte runs
/// is skipped (about 1.5 instructions a value, twice per encode).
#[inline(always)]
fn starts_long<C: Scalar>(values: &[C::Value]) -> bool {
    values.first().is_some_and(|&v| C::to_wire(v) >= 0x4000)
}

/// Total varint length of a run. An OR over the run (which vectorises) first
/// detects the common all-one-byte case, where the length is the count.
#[inline]
fn varint_run_len<C: Scalar>(values: &[C::Value]) -> usize {
    if starts_long::<C>(values) {
        return values.iter().map(|&v| varint::len(C::to_wire(v))).sum();
    }
    match values.iter().fold(0, |acc, &v| acc | C::to_wire(v)) {
        0..0x80 => values.len(),
        // At most two bytes each: one more for every value of 0x80 or above.
        // `((v >> 7) + 127) >> 7` is that one (shifts and adds vectorise; a
        // 64-bit compare has no SSE2 instruction).
        #[allow(clippy::cast_possible_truncation)] // at most `values.len()`
        0x80..0x4000 => values.len() + values.iter().map(|&v| ((C::to_wire(v) >> 7) + 127) >> 7).sum::<u64>() as usize,
        _ => values.iter().map(|&v| varint::len(C::to_wire(v))).sum(),
    }
}

/// Size of a packed field with its tag and length; 0 when empty (nothing is written).
#[inline]
pub fn size_packed<C: Scalar>(values: &[C::Value], key_len: usize) -> usize {
    if values.is_empty() {
        return 0;
    }
    key_len + len_delimited_size(packed_payload_size::<C>(values))
}

/// Writes a packed field; nothing when empty.
#[inline]
pub fn write_packed<C: Scalar>(values: &[C::Value], tag: &[u8], w: &mut Writer<'_>) {
    if values.is_empty() {
        return;
    }
    let end = w.remaining();
    match C::FIXED_WIDTH {
        0 => write_varint_run::<C>(values, w),
        _ => C::write_fixed(values, w),
    }
    w.put_key_varint(tag, (end - w.remaining()) as u64);
}

/// The number of bytes below 0x80: the number of varints in a valid run. Summed
/// in 255-byte blocks of `u8` counters so the compiler vectorises it.
#[inline]
fn terminators(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| usize::from(block.iter().fold(0u8, |n, &b| n + u8::from(b < 0x80))))
        .sum()
}

/// Writes the varints of a packed run backwards. An OR over the run (which
/// vectorises) detects the all-one-byte case, written as one narrowing copy.
#[inline]
fn write_varint_run<C: Scalar>(values: &[C::Value], w: &mut Writer<'_>) {
    let or = if starts_long::<C>(values) {
        u64::MAX
    } else {
        values.iter().fold(0, |acc, &v| acc | C::to_wire(v))
    };
    match or {
        0..0x80 => {
            #[allow(clippy::cast_possible_truncation)] // every value is below 0x80
            for (d, &v) in w.claim(values.len()).iter_mut().zip(values) {
                d.write(C::to_wire(v) as u8);
            }
        }
        0x80..0x4000 => w.put_short_varints(values, C::to_wire),
        _ => w.in_registers(|w| {
            for &v in values.iter().rev() {
                w.put_varint_long(C::to_wire(v));
            }
        }),
    }
}

/// Reads a packed run and appends its elements to `values`, reserving the exact
/// element count once.
pub fn merge_packed<C: Scalar>(r: &mut Reader<'_>, values: &mut Vec<C::Value>) -> Result<(), DecodeError> {
    let inner = r.read_nested()?;
    let bytes = inner.rest();
    match C::FIXED_WIDTH {
        0 => {
            // Every varint ends in exactly one byte below 0x80.
            let count = terminators(bytes);
            reserve(values, count);
            if count == bytes.len() {
                // All one-byte varints: a straight map the compiler vectorises.
                values.extend(bytes.iter().map(|&b| C::from_wire(u64::from(b))));
                return Ok(());
            }
            let start = values.len();
            let (filled, decoded) = decode_varints::<C>(bytes, &mut values.spare_capacity_mut()[..count]);
            // SAFETY: `decode_varints` initialised the first `filled` spare slots.
            #[allow(unsafe_code)]
            unsafe {
                values.set_len(start + filled);
            }
            decoded.map_err(|e| DecodeError::new(e.kind(), inner.offset() + e.offset()))?;
        }
        width => {
            if bytes.len() % width != 0 {
                return Err(inner.error(DecodeErrorKind::PackedLengthMismatch));
            }
            reserve(values, bytes.len() / width);
            C::extend_fixed(values, bytes);
        }
    }
    Ok(())
}

/// Sizes a fresh repeated field (no capacity yet) for the run of `tag` values
/// about to be read (see [`Reader::count_run`]), so it is allocated once
/// instead of growing; a reused vector keeps its capacity. Never more than the
/// decode's allocation budget would let the values take.
#[inline(always)]
pub fn reserve_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    if values.capacity() == 0 {
        allocate_run(values, r, tag);
    }
}

/// [`reserve_run`]'s allocation, out of line: once per fresh field.
#[inline(never)]
fn allocate_run<T>(values: &mut Vec<T>, r: &Reader<'_>, tag: u32) {
    *values = Vec::with_capacity(run_length::<T>(r, tag));
}

/// The capacity [`reserve_run`] gives a fresh map of `K` to `V` (generated
/// code reserves it, as maps are `std` types).
#[must_use]
pub fn map_run_length<K: Codec, V: Codec>(r: &Reader<'_>, tag: u32) -> usize {
    run_length::<(K::Value, V::Value)>(r, tag)
}

fn run_length<T>(r: &Reader<'_>, tag: u32) -> usize {
    r.count_run(tag).min(r.budget() / core::mem::size_of::<T>().max(1))
}

/// Makes room for `n` more values: an empty vector (a fresh field) gets one
/// exact allocation without `reserve`'s growth path.
#[inline]
fn reserve<T>(values: &mut Vec<T>, n: usize) {
    if values.capacity() == 0 {
        *values = Vec::with_capacity(n);
    } else {
        values.reserve(n);
    }
}

/// Decodes the varints of a packed run into `slots` (one per terminating byte,
/// so never too few), returning how many it filled and the first error, whose
/// offset is relative to `bytes`. Writing the reserved slots directly spares
/// `push`'s capacity check and length update per element.
#[inline(always)]
fn decode_varints<C: Scalar>(
    bytes: &[u8],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
) -> (usize, Result<(), DecodeError>) {
    let mut rest = bytes;
    let mut filled = 0;
    // Where blocks of one- and two-byte varints are tried again after one
    // held a longer varint: not before the next 64 bytes, so that a mix of
    // short and long varints does not pay for a block per value.
    let mut try_blocks_at = 0;
    // Ten bytes ahead: the loop-free decoder, no end-of-input checks.
    while let Some(head) = rest.first_chunk::<10>() {
        let at = bytes.len() - rest.len();
        let short = (head[0] & head[1]) < 0x80;
        if let Some(block) = rest.first_chunk().filter(|_| short && at >= try_blocks_at) {
            match decode_short_block::<C>(block, slots.get_mut(filled..).unwrap_or_default()) {
                Some((values, len)) => {
                    filled += values;
                    rest = &rest[len..];
                    continue;
                }
                None => try_blocks_at = at + 64,
            }
        }
        let (v, n) = match (head[0], head[1]) {
            (b0, _) if b0 < 0x80 => (u64::from(b0), 1),
            (b0, b1) if b1 < 0x80 => (u64::from(b0 & 0x7f) | u64::from(b1) << 7, 2),
            _ => {
                let decoded;
                (filled, rest, decoded) = decode_long_varints::<C>(bytes, rest, slots, filled);
                if decoded.is_err() {
                    return (filled, decoded);
                }
                continue;
            }
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
        rest = &rest[n..];
    }
    let mut tail = Reader::new(rest);
    while !tail.is_empty() {
        let at = bytes.len() - rest.len();
        let v = match tail.read_varint() {
            Ok(v) => v,
            Err(e) => return (filled, Err(DecodeError::new(e.kind(), at + e.offset()))),
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
    }
    (filled, Ok(()))
}

/// Decodes the one- and two-byte varints ending in the first 64 bytes of
/// `block` into `slots`, without a branch on any one's length (see
/// [`varint::ShortBlock`]); returns how many values and bytes it decoded, or
/// `None` (nothing written) if the block holds a longer varint.
#[inline(always)]
fn decode_short_block<C: Scalar>(
    block: &[u8; varint::SHORT_BLOCK],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
) -> Option<(usize, usize)> {
    let block = varint::ShortBlock::new(block, C::short_lane)?;
    let dst = slots.get_mut(..block.count())?;
    for (slot, lane) in dst.iter_mut().zip(block.lanes()) {
        slot.write(C::from_short_lane(lane));
    }
    Some((block.count(), block.len()))
}

/// Decodes the varints of three bytes or more at the front of `rest` (part of
/// `bytes`) into `slots` from `filled` on, until a shorter one or the last
/// ten bytes are left; returns the slots filled, the input left and the first
/// error. Out of line, so the loop over one- and two-byte varints keeps its
/// registers.
///
/// A run of varints of one length up to eight bytes (large values of one
/// magnitude: ids, timestamps, hashes) is decoded at a fixed stride: the next
/// load need not wait for this varint's end to be found, as a predicted branch
/// replaces the data dependency.
#[inline(never)]
fn decode_long_varints<'b, C: Scalar>(
    bytes: &[u8],
    mut rest: &'b [u8],
    slots: &mut [core::mem::MaybeUninit<C::Value>],
    mut filled: usize,
) -> (usize, &'b [u8], Result<(), DecodeError>) {
    while let Some(head) = rest.first_chunk::<10>() {
        if head[0] < 0x80 || head[1] < 0x80 {
            break;
        }
        let Ok((v, n)) = varint::decode_ten(head) else {
            let at = bytes.len() - rest.len();
            return (filled, rest, Err(DecodeError::new(DecodeErrorKind::VarintOverflow, at)));
        };
        let Some(slot) = slots.get_mut(filled) else {
            return (filled, rest, Err(more_varints_than_terminators(bytes, rest)));
        };
        slot.write(C::from_wire(v));
        filled += 1;
        rest = &rest[n..];
        if n > 8 {
            continue;
        }
        while let (Some(word), Some(slot)) = (rest.first_chunk::<8>(), slots.get_mut(filled)) {
            let Some(v) = varint::decode_len(u64::from_le_bytes(*word), n) else {
                break;
            };
            slot.write(C::from_wire(v));
            filled += 1;
            rest = &rest[n..];
        }
    }
    (filled, rest, Ok(()))
}

/// Cannot happen (each varint ends in its own terminating byte, and there is a
/// slot per terminator); an error rather than a panic or a dropped value.
#[cold]
fn more_varints_than_terminators(bytes: &[u8], rest: &[u8]) -> DecodeError {
    DecodeError::new(DecodeErrorKind::PackedLengthMismatch, bytes.len() - rest.len())
}

/// Size of a map field: one length-delimited entry (key = 1, value = 2) per pair.
pub fn size_map<'m, K, V>(entries: impl Iterator<Item = (&'m K::Value, &'m V::Value)>, key_len: usize) -> usize
where
    K: Codec<Value: 'm>,
    V: Codec<Value: 'm>,
{
    entries
        .map(|(k, v)| key_len + len_delimited_size(2 + K::size(k) + V::size(v)))
        .sum()
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

/// A closed (proto2) enum held as the Rust enum `E`. Values the enum does not
/// name never reach the field: the decoder keeps them as unknown fields (see
/// [`read_closed_enum`]).
#[derive(Debug)]
pub struct ClosedEnum<E>(PhantomData<E>);

impl<E: Enum> Scalar for ClosedEnum<E> {
    const FIXED_WIDTH: usize = 0;
    #[inline(always)]
    fn to_wire(v: E) -> u64 {
        i64::from(v.to_i32()) as u64
    }
    /// Unnamed numbers read as the default; generated code routes them to the
    /// unknown fields before this is reached.
    #[inline(always)]
    #[allow(clippy::cast_possible_truncation)] // protobuf keeps the low 32 bits
    fn from_wire(w: u64) -> E {
        E::from_i32(w as i32).unwrap_or_default()
    }
}

impl<E: Enum> Codec for ClosedEnum<E> {
    type Value = E;
    const WIRE_TYPE: u8 = wire::VARINT;

    #[inline(always)]
    fn is_default(v: &E) -> bool {
        v.to_i32() == 0
    }
    #[inline(always)]
    fn size(v: &E) -> usize {
        scalar_size::<Self>(*v)
    }
    #[inline(always)]
    fn write(v: &E, w: &mut Writer<'_>) {
        write_scalar::<Self>(*v, w);
    }
    #[inline(always)]
    fn write_keyed(v: &E, key: &[u8], w: &mut Writer<'_>) {
        write_scalar_keyed::<Self>(*v, key, w);
    }
    #[inline(always)]
    fn merge(v: &mut E, r: &mut Reader<'_>, _depth: u32) -> Result<(), DecodeError> {
        *v = read_scalar::<Self>(r)?;
        Ok(())
    }
}

/// Reads a closed enum value whose tag `tag` was read. A number `E` does not
/// name is appended to `unknown` (tag and value as read) and gives `None`.
#[inline]
pub fn read_closed_enum<E: Enum>(
    r: &mut Reader<'_>,
    tag: u32,
    unknown: &mut UnknownFields,
) -> Result<Option<E>, DecodeError> {
    let start = r.rest();
    let wire = r.read_varint()?;
    #[allow(clippy::cast_possible_truncation)] // protobuf keeps the low 32 bits
    let known = E::from_i32(wire as i32);
    if known.is_none() {
        unknown.push_field(tag, &start[..start.len() - r.rest().len()]);
    }
    Ok(known)
}

/// Reads a packed run of a closed enum: named values are appended to `values`,
/// others to `unknown` as unpacked fields of `number`, as protobuf specifies.
pub fn merge_packed_closed<E: Enum>(
    r: &mut Reader<'_>,
    values: &mut Vec<E>,
    number: u32,
    unknown: &mut UnknownFields,
) -> Result<(), DecodeError> {
    let mut inner = r.read_nested()?;
    let tag = wire::tag(number, wire::VARINT);
    while !inner.is_empty() {
        if let Some(v) = read_closed_enum(&mut inner, tag, unknown)? {
            values.push(v);
        }
    }
    Ok(())
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

/// A message encoded as a group of field `NUMBER`: START_GROUP tag, the fields,
/// END_GROUP tag (proto2 groups, and editions' DELIMITED encoding).
#[derive(Debug)]
pub struct Group<M, const NUMBER: u32>(PhantomData<M>);

impl<M: Message, const NUMBER: u32> Group<M, NUMBER> {
    const END_TAG: u64 = wire::tag(NUMBER, wire::END_GROUP) as u64;
}

impl<M: Message, const NUMBER: u32> Codec for Group<M, NUMBER> {
    type Value = M;
    const WIRE_TYPE: u8 = wire::START_GROUP;

    #[inline(always)]
    fn is_default(_: &M) -> bool {
        false
    }
    /// The fields and the END_GROUP tag (the START_GROUP tag is the field's tag).
    #[inline]
    fn size(v: &M) -> usize {
        v.size() + varint::len(Self::END_TAG)
    }
    #[inline]
    fn write(v: &M, w: &mut Writer<'_>) {
        w.put_varint(Self::END_TAG);
        v.write_backward(w);
    }
    #[inline]
    fn merge(v: &mut M, r: &mut Reader<'_>, depth: u32) -> Result<(), DecodeError> {
        let Some(depth) = depth.checked_sub(1) else {
            return Err(r.error(DecodeErrorKind::RecursionLimit));
        };
        r.charge(M::FOOTPRINT)?;
        let mut inner = r.read_group(NUMBER, depth)?;
        let merged = v.merge_from(&mut inner, depth);
        r.absorb(&inner);
        merged.map_err(|e| e.within(M::FULL_NAME, inner.field()))
    }
}
