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
//! `Any` and extension keys (`"[full.name]"`) find their types in the
//! process's descriptor registry, [`DescriptorPool::global`], the one the
//! text format and reflection read. The well-known types are there from the
//! start. A generated package joins it through its `register_json_types()`
//! function (code generated with `json` embeds its descriptors), or through
//! [`DescriptorPool::register_described`] for one type and the packages it
//! imports. One registration serves JSON, text and reflection.
//!
//! [`DescriptorPool::global`]: crate::reflect::DescriptorPool::global
//! [`DescriptorPool::register_described`]: crate::reflect::DescriptorPool::register_described
//!
//! Code generated with the `json` option reaches the rest of this module
//! through `fastrs::__private::json`.

pub(crate) mod base64;
pub(crate) mod codec;
mod dynamic;
pub(crate) mod extensions;
pub(crate) mod read;
pub(crate) mod support;
mod wkt;

use serde::de::{self, Deserializer};
use serde::Serialize;

use crate::Message;

use read::Read;
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
/// the process's registry does not know (see the [module docs](self)).
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

/// A message with a proto3 JSON form. Generated with the `json` option; the
/// well-known types implement it by hand for their special forms.
pub trait JsonMessage: Message + Serialize {
    /// Parses one JSON value as this message: `Read::Null` for `null` (except
    /// where `null` is itself a value, as for `google.protobuf.Value`).
    ///
    /// # Errors
    /// The value is not this message's JSON.
    #[doc(hidden)] // generated; `Read` is not part of the API
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
