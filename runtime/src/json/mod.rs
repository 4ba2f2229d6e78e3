//! Canonical proto3 JSON (the `json` feature).
//!
//! Code generated with the `json` option implements `serde::Serialize`,
//! `serde::Deserialize` and [`JsonMessage`] following the [proto3 JSON
//! mapping](https://protobuf.dev/programming-guides/json/), not serde's
//! defaults: `lowerCamelCase` names on output (the proto name is accepted on
//! input too), 64-bit integers as strings, `bytes` as base64, enums by name,
//! default values left out, and the well-known types in their own forms
//! (`Timestamp` as RFC 3339, `Duration` as `"1.5s"`, wrappers as bare values,
//! `Struct`/`Value` as free JSON, `Any` with `@type`).
//!
//! ```ignore
//! let text = fastrs::json::to_string(&order)?;
//! let back: Order = fastrs::json::from_str(&text)?;
//! let lenient: Order = fastrs::json::from_str_with(&text, JsonOptions::new().ignore_unknown_fields(true))?;
//! ```
//!
//! `Any` needs to know the types it may hold: the well-known types are known,
//! others are added with [`register`]. Extensions appear as `"[full.name]"`
//! keys once added with [`register_extension`]. Generated packages have a
//! `register_json_types()` function that registers all their messages and
//! extensions.
//!
//! Code generated with the `json` option reaches the rest of this module
//! through `fastrs::__private::json`; those items are hidden here.

mod base64;
mod codec;
mod extensions;
mod registry;
mod wkt;

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Serialize;

use crate::Message;

#[doc(hidden)]
pub use codec::{JsonCodec, JsonKey, List, ListSeed, MapOf, MapSeed, Single, SingleSeed};
#[doc(hidden)]
pub use extensions::write_extensions;
pub use extensions::{register_extension, register_repeated_extension};
pub use registry::register;
/// Errors of parsing and printing: what went wrong and, when parsing, where
/// (line and column).
pub use serde_json::Error;

/// Parse options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonOptions {
    /// Skip fields the message does not have and enum names the enum does not
    /// have, instead of failing. Off by default.
    pub ignore_unknown_fields: bool,
}

impl JsonOptions {
    /// The defaults: strict parsing.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            ignore_unknown_fields: false,
        }
    }

    /// Sets [`JsonOptions::ignore_unknown_fields`].
    #[must_use]
    pub const fn ignore_unknown_fields(mut self, ignore: bool) -> Self {
        self.ignore_unknown_fields = ignore;
        self
    }
}

/// The proto3 JSON text of `message`.
///
/// # Errors
/// A value that has no JSON form: a `Timestamp` or `Duration` out of range, a
/// `FieldMask` path that does not map to `lowerCamelCase` and back, a
/// non-finite number in a `google.protobuf.Value`, an `Any` of a type that
/// is not [registered](register).
pub fn to_string<M: Serialize + ?Sized>(message: &M) -> Result<String, Error> {
    serde_json::to_string(message)
}

/// The proto3 JSON text of `message`, as bytes.
///
/// # Errors
/// As [`to_string`].
pub fn to_vec<M: Serialize + ?Sized>(message: &M) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(message)
}

/// Writes the proto3 JSON text of `message` to `writer`.
///
/// # Errors
/// As [`to_string`], and I/O errors of `writer`.
pub fn to_writer<W: std::io::Write, M: Serialize + ?Sized>(writer: W, message: &M) -> Result<(), Error> {
    serde_json::to_writer(writer, message)
}

/// Parses a message from proto3 JSON text, strictly.
///
/// # Errors
/// Text that is not JSON, or not the JSON of an `M`; the error names the field
/// and the position. A proto2 `required` field missing at any depth is an
/// error too, as in binary decoding.
pub fn from_str<M: JsonMessage>(text: &str) -> Result<M, Error> {
    from_str_with(text, JsonOptions::new())
}

/// Parses a message from proto3 JSON text with `options`.
///
/// # Errors
/// As [`from_str`].
pub fn from_str_with<M: JsonMessage>(text: &str, options: JsonOptions) -> Result<M, Error> {
    read_whole(serde_json::Deserializer::from_str(text), options)
}

/// Parses a message from proto3 JSON bytes, strictly.
///
/// # Errors
/// As [`from_str`], and bytes that are not UTF-8.
pub fn from_slice<M: JsonMessage>(bytes: &[u8]) -> Result<M, Error> {
    from_slice_with(bytes, JsonOptions::new())
}

/// Parses a message from proto3 JSON bytes with `options`.
///
/// # Errors
/// As [`from_slice`].
pub fn from_slice_with<M: JsonMessage>(bytes: &[u8], options: JsonOptions) -> Result<M, Error> {
    // One UTF-8 check of the whole input (word at a time over ASCII) is cheaper
    // than serde_json's check of each string it borrows from a byte slice.
    let text = core::str::from_utf8(bytes)
        .map_err(|e| <Error as de::Error>::custom(format_args!("input is not UTF-8 at byte {}", e.valid_up_to())))?;
    from_str_with(text, options)
}

fn read_whole<'de, R: serde_json::de::Read<'de>, M: JsonMessage>(
    mut de: serde_json::Deserializer<R>,
    options: JsonOptions,
) -> Result<M, Error> {
    let message = match M::json_read(&mut de, options)? {
        Read::Value(m) => m,
        Read::Null | Read::Skip => {
            return Err(de::Error::custom(format_args!(
                "expected a JSON object for {}, found null",
                M::FULL_NAME
            )))
        }
    };
    de.end()?;
    // As binary decoding does: a proto2 message without its required fields is
    // not a message.
    message.check_required().map_err(<Error as de::Error>::custom)?;
    Ok(message)
}

/// What parsing one JSON value gave.
#[derive(Debug)]
#[doc(hidden)]
pub enum Read<V> {
    /// A value.
    Value(V),
    /// `null`: the field keeps its default (an error inside lists and maps).
    Null,
    /// An unknown enum name, skipped under [`JsonOptions::ignore_unknown_fields`].
    Skip,
}

/// A message with a proto3 JSON form. Generated with the `json` option; the
/// well-known types implement it by hand for their special forms.
pub trait JsonMessage: Message + Serialize {
    /// Parses one JSON value as this message: `Read::Null` for `null` (except
    /// where `null` is itself a value, as for `google.protobuf.Value`).
    ///
    /// # Errors
    /// The value is not this message's JSON.
    #[doc(hidden)]
    fn json_read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error>;
}

impl<M: JsonMessage> JsonMessage for alloc::boxed::Box<M> {
    fn json_read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
        Ok(match M::json_read(de, options)? {
            Read::Value(m) => Read::Value(alloc::boxed::Box::new(m)),
            Read::Null => Read::Null,
            Read::Skip => Read::Skip,
        })
    }
}

/// The fields of a generated message, for [`read_object`].
#[doc(hidden)]
pub trait JsonFields: Message {
    /// The number of the field with this JSON name or proto name.
    fn json_field(name: &str) -> Option<u32>;

    /// Parses the value of field `number` from `map` into `self`.
    ///
    /// # Errors
    /// The value is not the field's JSON, or sets a oneof that is already set.
    fn json_merge_field<'de, A: MapAccess<'de>>(
        &mut self,
        number: u32,
        map: &mut A,
        options: JsonOptions,
    ) -> Result<(), A::Error>;
}

/// Parses a JSON object into a generated message, field by field.
///
/// # Errors
/// Not an object (or `null`), an unknown field name unless ignored, or a bad
/// field value.
#[doc(hidden)]
pub fn read_object<'de, M: JsonFields, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<M>, D::Error> {
    de.deserialize_any(ObjectVisitor::<M> {
        options,
        _message: PhantomData,
    })
}

/// `serde::Deserialize` for a generated message: [`read_object`] with the
/// default options; `null` is an error.
///
/// # Errors
/// As [`read_object`].
#[doc(hidden)]
pub fn deserialize_object<'de, M: JsonFields, D: Deserializer<'de>>(de: D) -> Result<M, D::Error> {
    match read_object(de, JsonOptions::new())? {
        Read::Value(m) => Ok(m),
        Read::Null | Read::Skip => Err(de::Error::custom(format_args!(
            "expected a JSON object for {}, found null",
            M::FULL_NAME
        ))),
    }
}

/// Reads the next map value as one value of codec `C`, for field `field`.
///
/// # Errors
/// The value is not a `C` value.
#[inline]
#[doc(hidden)]
pub fn next_value<'de, C: JsonCodec, A: MapAccess<'de>>(
    map: &mut A,
    options: JsonOptions,
    field: &'static str,
) -> Result<Read<C::Value>, A::Error> {
    map.next_value_seed(SingleSeed::<C>::new(options, field))
}

/// Reads the next map value as a JSON array, appending to `target`.
///
/// # Errors
/// Not an array (or `null`), or an element is not a `C` value.
#[doc(hidden)]
pub fn next_list<'de, C: JsonCodec, A: MapAccess<'de>>(
    map: &mut A,
    target: &mut alloc::vec::Vec<C::Value>,
    options: JsonOptions,
    field: &'static str,
) -> Result<(), A::Error> {
    map.next_value_seed(ListSeed::<C>::new(target, options, field))
}

/// Reads the next map value as a JSON object of map entries, inserting into
/// `target`.
///
/// # Errors
/// Not an object (or `null`), a key that is not a `K`, or a value that is not
/// a `V`.
#[doc(hidden)]
pub fn next_map<'de, K, V, M, A>(
    map: &mut A,
    target: &mut M,
    options: JsonOptions,
    field: &'static str,
) -> Result<(), A::Error>
where
    K: JsonKey,
    V: JsonCodec,
    M: Extend<(K::Value, V::Value)>,
    A: MapAccess<'de>,
{
    map.next_value_seed(MapSeed::<K, V, M>::new(target, options, field))
}

/// The error for a oneof given a second member.
#[must_use]
#[doc(hidden)]
pub fn oneof_set_twice<E: de::Error>(message: &str, oneof: &str) -> E {
    E::custom(format_args!("oneof `{oneof}` of {message} is set more than once"))
}

struct ObjectVisitor<M> {
    options: JsonOptions,
    _message: PhantomData<M>,
}

impl<'de, M: JsonFields> Visitor<'de> for ObjectVisitor<M> {
    type Value = Read<M>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object for {}", M::FULL_NAME)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<M>, E> {
        Ok(Read::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read<M>, A::Error> {
        let mut message = M::default();
        let mut seen = SeenFields::default();
        while let Some(key) = map.next_key_seed(FieldKey::<M>(PhantomData))? {
            match key {
                Ok(number) if !seen.insert(number) => {
                    return Err(de::Error::custom(format_args!(
                        "field {number} of {} appears more than once",
                        M::FULL_NAME
                    )))
                }
                Ok(number) => message.json_merge_field(number, &mut map, self.options)?,
                Err(key) => match extensions::find::<M>(&key) {
                    Some(extension) => {
                        if !seen.insert(extension.number()) {
                            return Err(de::Error::custom(format_args!("{key} appears more than once")));
                        }
                        let value = map.next_value::<serde_json::Value>()?;
                        extension
                            .read(value, self.options, message.unknown_fields_mut())
                            .map_err(de::Error::custom)?;
                    }
                    None if self.options.ignore_unknown_fields => {
                        map.next_value::<IgnoredAny>()?;
                    }
                    None => {
                        return Err(de::Error::custom(format_args!(
                            "unknown field `{key}` in {}",
                            M::FULL_NAME
                        )))
                    }
                },
            }
        }
        Ok(Read::Value(message))
    }
}

/// The field numbers an object has given so far: a field may appear once, under
/// either of its names. Numbers up to 128 cost a bit; larger ones are listed.
#[derive(Default)]
struct SeenFields {
    low: u128,
    high: alloc::vec::Vec<u32>,
}

impl SeenFields {
    /// Records `number`; false if it was already there.
    fn insert(&mut self, number: u32) -> bool {
        if let Some(bit) = number.checked_sub(1).filter(|n| *n < 128) {
            let had = self.low & (1 << bit) != 0;
            self.low |= 1 << bit;
            return !had;
        }
        if self.high.contains(&number) {
            return false;
        }
        self.high.push(number);
        true
    }
}

/// A field name: its number, or the unknown name (allocated only then).
struct FieldKey<M>(PhantomData<M>);

impl<'de, M: JsonFields> DeserializeSeed<'de> for FieldKey<M> {
    type Value = Result<u32, String>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, M: JsonFields> Visitor<'de> for FieldKey<M> {
    type Value = Result<u32, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a field name of {}", M::FULL_NAME)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(M::json_field(name).ok_or_else(|| name.to_owned()))
    }
}
