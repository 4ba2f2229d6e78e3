//! Enum codecs: open enums kept as `EnumValue` (any number), closed enums
//! as the Rust enum (unnamed numbers go to the unknown fields).

use alloc::vec::Vec;
use core::marker::PhantomData;

use super::number::{read_scalar, scalar_size, write_scalar, write_scalar_keyed};
use super::packed::merge_packed;
use super::{Codec, Scalar};
use crate::message::enumeration::{Enum, EnumValue};
use crate::wire;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;

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
