//! Extensions in JSON: `"[full.name]": value` beside a message's own fields,
//! in both directions, through a process-wide table of the extensions each
//! message may hold. Generated `register_json_types()` functions fill it (as
//! they do `Any`'s table).

use std::collections::HashMap;
use std::string::{String, ToString};
use std::sync::{LazyLock, PoisonError, RwLock};
use std::vec::Vec;

use serde::ser::SerializeMap;

use super::codec::{JsonCodec, List, Single};
use super::read::Read;
use super::JsonOptions;
use crate::field::extension::{append, get_all_in, get_in};
use crate::{Extension, Message, RepeatedExtension, UnknownFields};

/// A registered extension's conversions, given its field number and name.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// Full protobuf name: the JSON key without its brackets.
    name: &'static str,
    number: u32,
    to_json: fn(u32, &UnknownFields) -> Result<Option<serde_json::Value>, String>,
    from_json: fn(u32, serde_json::Value, JsonOptions, &'static str, &mut UnknownFields) -> Result<(), String>,
}

impl Entry {
    /// The field number, for the check that a key appears once.
    pub(super) fn number(&self) -> u32 {
        self.number
    }

    /// Parses `value` into the extension's encoding in `unknown`.
    pub(super) fn read(
        &self,
        value: serde_json::Value,
        options: JsonOptions,
        unknown: &mut UnknownFields,
    ) -> Result<(), String> {
        (self.from_json)(self.number, value, options, self.name, unknown)
    }
}

/// Extensions by the full name of the message they extend, in number order.
static EXTENSIONS: LazyLock<RwLock<HashMap<&'static str, Vec<Entry>>>> = LazyLock::new(RwLock::default);

/// Lets JSON print and parse extension `ext`, whose full protobuf name is
/// `name`, on its message: `"[name]": value`. Registering it again is
/// harmless.
pub fn register_extension<M: Message, C: JsonCodec>(ext: &Extension<M, C>, name: &'static str) {
    insert::<M>(Entry {
        name,
        number: ext.number(),
        to_json: single_to_json::<C>,
        from_json: single_from_json::<C>,
    });
}

/// [`register_extension`] for a repeated extension (a JSON array).
pub fn register_repeated_extension<M: Message, C: JsonCodec>(ext: &RepeatedExtension<M, C>, name: &'static str) {
    insert::<M>(Entry {
        name,
        number: ext.number(),
        to_json: repeated_to_json::<C>,
        from_json: repeated_from_json::<C>,
    });
}

fn insert<M: Message>(entry: Entry) {
    let mut table = EXTENSIONS.write().unwrap_or_else(PoisonError::into_inner);
    let entries = table.entry(M::FULL_NAME).or_default();
    entries.retain(|e| e.number != entry.number);
    let at = entries.partition_point(|e| e.number < entry.number);
    entries.insert(at, entry);
}

/// The registered extension of message `M` keyed `key` (`[full.name]`).
pub(super) fn find<M: Message>(key: &str) -> Option<Entry> {
    let name = key.strip_prefix('[')?.strip_suffix(']')?;
    let table = EXTENSIONS.read().unwrap_or_else(PoisonError::into_inner);
    table.get(M::FULL_NAME)?.iter().find(|e| e.name == name).copied()
}

/// Writes the registered extensions of `M` that `unknown` holds, in number
/// order, after the message's own fields. Called by generated `Serialize`
/// impls of messages that declare extension ranges.
///
/// # Errors
/// An extension's bytes do not decode as its type, or the serializer failed.
pub fn write_extensions<M: Message, S: SerializeMap>(map: &mut S, unknown: &UnknownFields) -> Result<(), S::Error> {
    if unknown.is_empty() {
        return Ok(());
    }
    let entries = {
        let table = EXTENSIONS.read().unwrap_or_else(PoisonError::into_inner);
        match table.get(M::FULL_NAME) {
            Some(entries) => entries.clone(),
            None => return Ok(()),
        }
    };
    for entry in entries {
        let value = (entry.to_json)(entry.number, unknown)
            .map_err(|e| serde::ser::Error::custom(format_args!("extension [{}]: {e}", entry.name)))?;
        if let Some(value) = value {
            map.serialize_entry(&format_args!("[{}]", entry.name).to_string(), &value)?;
        }
    }
    Ok(())
}

fn single_to_json<C: JsonCodec>(number: u32, unknown: &UnknownFields) -> Result<Option<serde_json::Value>, String> {
    let Some(value) = get_in::<C>(unknown, number).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    serde_json::to_value(Single::<C>(&value))
        .map(Some)
        .map_err(|e| e.to_string())
}

fn repeated_to_json<C: JsonCodec>(number: u32, unknown: &UnknownFields) -> Result<Option<serde_json::Value>, String> {
    let values = get_all_in::<C>(unknown, number).map_err(|e| e.to_string())?;
    if values.is_empty() {
        return Ok(None);
    }
    serde_json::to_value(List::<C>(&values))
        .map(Some)
        .map_err(|e| e.to_string())
}

fn single_from_json<C: JsonCodec>(
    number: u32,
    json: serde_json::Value,
    options: JsonOptions,
    name: &'static str,
    unknown: &mut UnknownFields,
) -> Result<(), String> {
    if let Read::Value(value) = C::read_json(json, options, name).map_err(|e| e.to_string())? {
        append::<C>(unknown, number, &value);
    }
    Ok(())
}

fn repeated_from_json<C: JsonCodec>(
    number: u32,
    json: serde_json::Value,
    options: JsonOptions,
    name: &'static str,
    unknown: &mut UnknownFields,
) -> Result<(), String> {
    let items = match json {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Null => return Ok(()),
        other => return Err(format!("expected an array for extension [{name}], found {other}")),
    };
    for item in items {
        match C::read_json(item, options, name).map_err(|e| e.to_string())? {
            Read::Value(value) => append::<C>(unknown, number, &value),
            Read::Null => return Err(format!("null is not a valid element of extension [{name}]")),
            Read::Skip => {}
        }
    }
    Ok(())
}
