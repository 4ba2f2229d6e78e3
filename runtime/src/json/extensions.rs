//! Extensions in the JSON of generated messages: `"[full.name]": value`
//! beside a message's own fields, in both directions. The extensions are
//! those the process's descriptor registry (`DescriptorPool::global`) knows
//! for the message, and their values go through `DynamicMessage`, so one
//! registration (a package's `register_json_types()`, or
//! `DescriptorPool::register_described`) serves JSON, text and reflection.
//!
//! Generated code calls these two functions only for messages that declare
//! extension ranges, and only when such a message has unknown fields or an
//! object key that is none of its fields: other messages pay nothing.

use serde::de::{Error as _, MapAccess};
use serde::ser::{Error as _, SerializeMap};

use super::dynamic;
use super::JsonOptions;
use crate::reflect::{DescriptorPool, DynamicMessage, FieldDescriptor};
use crate::{DecodeOptions, Message, UnknownFields};

/// Parses the value of object key `key` into `unknown` if the key names an
/// extension of `M` (`[full.name]`) that the registry knows: its field
/// number, for the check that it appears once. `None` (and the value left
/// unread) for any other key.
///
/// # Errors
/// The value is not the extension's JSON.
pub fn read_extension<'de, M: Message, A: MapAccess<'de>>(
    key: &str,
    map: &mut A,
    options: JsonOptions,
    unknown: &mut UnknownFields,
) -> Result<Option<u32>, A::Error> {
    let Some(name) = key.strip_prefix('[').and_then(|k| k.strip_suffix(']')) else {
        return Ok(None);
    };
    let pool = DescriptorPool::global();
    let Some(extension) = extension_of::<M>(&pool, name) else {
        return Ok(None);
    };
    let number = extension.number();
    if let Some(value) = map.next_value_seed(dynamic::field_seed(&pool, &extension, options))? {
        // The extension alone in a message of its extendee encodes to
        // exactly its records, which then join the unknown fields.
        let mut holder = DynamicMessage::new(extension.containing_message());
        holder.set(&extension, value).map_err(A::Error::custom)?;
        unknown.extend_encoded(&holder.encode_to_vec());
    }
    Ok(Some(number))
}

/// The registry's extension `name`, if it extends `M`.
fn extension_of<M: Message>(pool: &DescriptorPool, name: &str) -> Option<FieldDescriptor> {
    pool.get_extension_by_name(name)
        .filter(|e| e.containing_message().full_name() == M::FULL_NAME)
}

/// Writes the extensions of `M` that `unknown` holds and the registry
/// knows, in number order, after the message's own fields. Called by
/// generated `Serialize` impls of messages that declare extension ranges.
///
/// # Errors
/// An extension's bytes do not decode as its type, or the serializer failed.
pub fn write_extensions<M: Message, S: SerializeMap>(map: &mut S, unknown: &UnknownFields) -> Result<(), S::Error> {
    if unknown.is_empty() {
        return Ok(());
    }
    let Some(ty) = DescriptorPool::global().get_message_by_name(M::FULL_NAME) else {
        return Ok(());
    };
    // Unknown fields hold no field of `M` itself, so read as `M` they are
    // its extensions and, still unknown, whatever the registry does not know.
    let mut held = DynamicMessage::new(ty);
    held.merge_partial(unknown.as_bytes(), &DecodeOptions::default())
        .map_err(|e| S::Error::custom(format_args!("an extension of {}: {e}", M::FULL_NAME)))?;
    dynamic::write_extensions(&held, map)
}
