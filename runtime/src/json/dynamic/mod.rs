//! Proto3 JSON for [`DynamicMessage`]s: printed and parsed through their
//! descriptors, by the same rules as generated code. The well-known types
//! with a JSON form of their own go through their generated types (the
//! same code generated messages use); `Any` resolves its type in the
//! message's pool. Generated code comes here too, through the process's
//! registry: for `Any` (`google.protobuf.Any`'s JSON is the dynamic one)
//! and for extension keys.

/// Calls `$then!` with the well-known types that have a JSON form of their
/// own (`Any` aside), for the printer and the parser to dispatch on.
macro_rules! with_own_forms {
    ($then:ident) => {
        $then!(
            Timestamp,
            Duration,
            FieldMask,
            Struct,
            Value,
            ListValue,
            DoubleValue,
            FloatValue,
            Int64Value,
            UInt64Value,
            Int32Value,
            UInt32Value,
            BoolValue,
            StringValue,
            BytesValue
        )
    };
}

mod parse;
mod print;
mod strict;

use std::string::String;

use serde::de::Error as _;

use super::{Error, JsonOptions};
use crate::reflect::{DynamicMessage, MessageDescriptor};

pub(crate) use parse::{field_seed, AnyJson, AnySeed};
pub(crate) use print::{any_to_json, write_extensions};

impl DynamicMessage {
    /// The proto3 JSON text of the message (`DynamicMessage` implements
    /// `serde::Serialize` with the proto3 JSON mapping, so
    /// `serde_json::to_writer` works too).
    ///
    /// # Errors
    /// As [`json::to_string`](super::to_string): a value with no JSON form,
    /// an `Any` of a type the pool does not know, a proto2 string that is
    /// not UTF-8.
    pub fn to_json(&self) -> Result<String, Error> {
        serde_json::to_string(self)
    }

    /// The proto3 JSON text of the message, indented.
    ///
    /// # Errors
    /// As [`DynamicMessage::to_json`].
    pub fn to_json_pretty(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(self)
    }

    /// Parses a message of type `descriptor` from proto3 JSON, strictly.
    ///
    /// # Errors
    /// As [`json::from_str`](super::from_str).
    pub fn from_json(descriptor: MessageDescriptor, text: &str) -> Result<Self, Error> {
        Self::from_json_with(descriptor, text, JsonOptions::new())
    }

    /// Parses a message of type `descriptor` from proto3 JSON with `options`.
    ///
    /// # Errors
    /// As [`json::from_str`](super::from_str).
    pub fn from_json_with(descriptor: MessageDescriptor, text: &str, options: JsonOptions) -> Result<Self, Error> {
        let message = parse::parse(&descriptor, text, options)?;
        message.check_required().map_err(Error::custom)?;
        Ok(message)
    }
}

/// The error for an `Any` of a type the pool does not know.
fn unknown_type(name: &str) -> String {
    std::format!(
        "google.protobuf.Any holds `{name}`, which the descriptor pool does not know: \
         register its package (its generated `register_json_types()`, or \
         `DescriptorPool::register_described::<T>()`){}",
        crate::reflect::registry::refusals()
    )
}

/// Well-known types whose JSON is not an object of their fields (and which
/// `Any` holds under `"value"`), but for `Any` itself. Not `Empty`: its JSON
/// is an ordinary (empty) object, so an `Any` holding one is
/// `{"@type": ".../google.protobuf.Empty"}`, as in C++ and Java.
pub(super) fn has_own_form(full_name: &str) -> bool {
    macro_rules! listed {
        ($($ty:ident),*) => {
            matches!(full_name.strip_prefix("google.protobuf."), Some($(stringify!($ty))|*))
        };
    }
    with_own_forms!(listed)
}
