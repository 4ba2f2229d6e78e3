//! Extensions: typed access to fields declared with `extend`. Their data lives
//! in the extended message's unknown fields, so it round-trips byte for byte
//! whether or not the reader knows the extension.

use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::codec::Codec;
use crate::message::Message;
use crate::wire::error::DecodeError;
use crate::wire::reader::Reader;
use crate::wire::unknown::UnknownFields;
use crate::wire::writer::Writer;
use crate::wire::{self, DEFAULT_RECURSION_LIMIT};

/// A singular extension of message `M` with values of codec `C`, generated as a
/// constant per `extend` field: `EXTENSION_INT32.get(&msg)`.
pub struct Extension<M, C> {
    number: u32,
    _types: PhantomData<fn() -> (M, C)>,
}

/// A repeated extension (elements written unpacked; packed runs of numbers
/// and open enums are read too, as proto3 writes them).
pub struct RepeatedExtension<M, C> {
    number: u32,
    _types: PhantomData<fn() -> (M, C)>,
}

impl<M: Message, C: Codec> Extension<M, C> {
    /// The extension with field `number`.
    #[must_use]
    pub const fn new(number: u32) -> Self {
        Self {
            number,
            _types: PhantomData,
        }
    }

    /// The field number.
    #[must_use]
    pub const fn number(&self) -> u32 {
        self.number
    }

    /// True if `m` holds this extension.
    pub fn has(&self, m: &M) -> bool {
        occurrences::<C>(m.unknown_fields(), self.number).next().is_some()
    }

    /// The value, if set: the last occurrence wins (messages merge), as for
    /// ordinary fields.
    ///
    /// # Errors
    /// The stored bytes do not decode as `C`.
    pub fn get(&self, m: &M) -> Result<Option<C::Value>, DecodeError> {
        get_in::<C>(m.unknown_fields(), self.number)
    }

    /// Sets the value, replacing any stored occurrences.
    pub fn set(&self, m: &mut M, value: &C::Value) {
        self.clear(m);
        append::<C>(m.unknown_fields_mut(), self.number, value);
    }

    /// Removes the extension.
    pub fn clear(&self, m: &mut M) {
        m.unknown_fields_mut()
            .retain(|tag| !matches_extension::<C>(tag, self.number));
    }
}

impl<M: Message, C: Codec> RepeatedExtension<M, C> {
    /// The extension with field `number`.
    #[must_use]
    pub const fn new(number: u32) -> Self {
        Self {
            number,
            _types: PhantomData,
        }
    }

    /// The field number.
    #[must_use]
    pub const fn number(&self) -> u32 {
        self.number
    }

    /// All elements, in order.
    ///
    /// # Errors
    /// An element does not decode as `C`.
    pub fn get(&self, m: &M) -> Result<Vec<C::Value>, DecodeError> {
        get_all_in::<C>(m.unknown_fields(), self.number)
    }

    /// Appends one element.
    pub fn push(&self, m: &mut M, value: &C::Value) {
        append::<C>(m.unknown_fields_mut(), self.number, value);
    }

    /// Removes every element, packed runs too.
    pub fn clear(&self, m: &mut M) {
        m.unknown_fields_mut()
            .retain(|tag| wire::field_number(tag) != self.number);
    }
}

fn matches_extension<C: Codec>(tag: u32, number: u32) -> bool {
    tag == wire::tag(number, C::WIRE_TYPE)
}

/// The value bytes (after the tag) of each occurrence of `number` with `C`'s wire type.
fn occurrences<C: Codec>(unknown: &UnknownFields, number: u32) -> impl Iterator<Item = &[u8]> {
    unknown
        .fields()
        .filter(move |(tag, _)| matches_extension::<C>(*tag, number))
        .map(|(_, value)| value)
}

/// The value of singular extension `number` in `unknown`: the last
/// occurrence wins, messages merge.
pub(crate) fn get_in<C: Codec>(unknown: &UnknownFields, number: u32) -> Result<Option<C::Value>, DecodeError> {
    let mut value = None;
    for bytes in occurrences::<C>(unknown, number) {
        C::merge(
            value.get_or_insert_with(C::Value::default),
            &mut Reader::new(bytes),
            DEFAULT_RECURSION_LIMIT,
        )?;
    }
    Ok(value)
}

/// Every element of repeated extension `number` in `unknown`, in order,
/// from single values and from packed runs.
pub(crate) fn get_all_in<C: Codec>(unknown: &UnknownFields, number: u32) -> Result<Vec<C::Value>, DecodeError> {
    let (single, packed) = (wire::tag(number, C::WIRE_TYPE), wire::tag(number, wire::LEN));
    let mut values = Vec::new();
    for (tag, bytes) in unknown.fields() {
        let mut r = Reader::new(bytes);
        if tag == single {
            values.push(C::read(&mut r, DEFAULT_RECURSION_LIMIT)?);
        } else if tag == packed {
            // Not packable: a value of another type under this number, left alone.
            if let Some(run) = C::merge_packed_run(&mut r, &mut values) {
                run?;
            }
        }
    }
    Ok(values)
}

/// Appends one occurrence of extension `number` holding `value`.
pub(crate) fn append<C: Codec>(unknown: &mut UnknownFields, number: u32, value: &C::Value) {
    let mut bytes = alloc::vec![0; C::size(value)];
    C::write(value, &mut Writer::new(&mut bytes));
    unknown.push_field(wire::tag(number, C::WIRE_TYPE), &bytes);
}
