//! Codecs: one zero-sized marker type per protobuf type (`Int32`,
//! `Sint64`, `Str`, `Msg<M>`, ...), each implementing [`Codec`]: how one
//! value is sized, written and read. Generated code names the codec once per
//! field, and the same generic helpers (packed runs here, `crate::field` for
//! repeated and map containers) then size, write and
//! read singular, repeated, packed and map fields, so the three passes can
//! never disagree. Views (`fastrs::view::Repeated`, `Map`) and extension
//! constants name them too, which is why they are public.
//!
//! Writers are backwards writers (see [`Writer`]): a value is written, then
//! its tag before it.

use alloc::vec::Vec;

use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::writer::{fill, Writer};

pub(crate) mod enums;
pub(crate) mod message;
pub(crate) mod number;
pub(crate) mod packed;
pub(crate) mod text;

pub use enums::{ClosedEnum, OpenEnum};
pub(crate) use message::len_delimited_size;
pub use message::{Group, Msg};
pub use number::{
    Bool, Double, Fixed32, Fixed64, Float, Int32, Int64, Sfixed32, Sfixed64, Sint32, Sint64, Uint32, Uint64,
};
#[cfg(feature = "bytes")]
pub use text::SharedBytes;
pub use text::{Bytes, LaxStr, Str};

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
