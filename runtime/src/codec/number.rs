//! The numeric codecs: varints, zigzag varints and fixed-width values.

use alloc::vec::Vec;

use super::packed::merge_packed;
use super::{Codec, Scalar};
use crate::wire;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::varint;
use crate::wire::writer::Writer;

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

#[inline(always)]
pub(crate) fn scalar_size<C: Scalar>(v: C::Value) -> usize {
    match C::FIXED_WIDTH {
        0 => varint::len(C::to_wire(v)),
        width => width,
    }
}

#[inline(always)]
pub(crate) fn write_scalar<C: Scalar>(v: C::Value, w: &mut Writer<'_>) {
    let wire = C::to_wire(v);
    match C::FIXED_WIDTH {
        0 => w.put_varint(wire),
        4 => w.put_slice(&wire.to_le_bytes()[..4]),
        _ => w.put_fixed64(wire),
    }
}

#[inline(always)]
pub(crate) fn write_scalar_keyed<C: Scalar>(v: C::Value, key: &[u8], w: &mut Writer<'_>) {
    let wire = C::to_wire(v);
    match C::FIXED_WIDTH {
        0 => w.put_key_varint(key, wire),
        width => w.put_key_slice(key, &wire.to_le_bytes()[..width]),
    }
}

#[inline(always)]
pub(crate) fn read_scalar<C: Scalar>(r: &mut Reader<'_>) -> Result<C::Value, DecodeError> {
    let wire = match C::FIXED_WIDTH {
        0 => r.read_varint()?,
        4 => u64::from(r.read_fixed32()?),
        _ => r.read_fixed64()?,
    };
    Ok(C::from_wire(wire))
}
