//! The types `google.protobuf.Any` can show as JSON: a process-wide table from
//! full message name to functions that convert that message's bytes to JSON
//! and back, and behind it (feature `reflect`) the process's descriptor
//! registry, read through `DynamicMessage` (one registration serves binary,
//! text and JSON).

use std::collections::HashMap;
use std::string::{String, ToString};
use std::sync::{LazyLock, PoisonError, RwLock};
use std::vec::Vec;

use super::read::Read;
use super::{JsonMessage, JsonOptions};
use crate::well_known as wk;

/// A registered type's conversions.
#[derive(Clone, Copy)]
struct Entry {
    to_json: fn(&[u8]) -> Result<serde_json::Value, String>,
    from_json: fn(serde_json::Value, JsonOptions) -> Result<Vec<u8>, String>,
}

static TYPES: LazyLock<RwLock<HashMap<&'static str, Entry>>> = LazyLock::new(|| {
    let mut types = HashMap::new();
    macro_rules! well_known {
        ($($ty:ident),*) => {$(
            types.insert(<wk::$ty as crate::Message>::FULL_NAME, entry::<wk::$ty>());
        )*};
    }
    well_known!(
        Any,
        Api,
        BoolValue,
        BytesValue,
        DoubleValue,
        Duration,
        Empty,
        Enum,
        EnumValue,
        Field,
        FieldMask,
        FloatValue,
        Int32Value,
        Int64Value,
        ListValue,
        Method,
        Mixin,
        Option,
        SourceContext,
        StringValue,
        Struct,
        Timestamp,
        Type,
        UInt32Value,
        UInt64Value,
        Value
    );
    RwLock::new(types)
});

/// Lets `google.protobuf.Any` hold `M` in JSON (print and parse). The
/// well-known types are registered from the start; registering a type again
/// is harmless.
pub fn register<M: JsonMessage>() {
    let mut types = TYPES.write().unwrap_or_else(PoisonError::into_inner);
    types.insert(M::FULL_NAME, entry::<M>());
}

fn entry<M: JsonMessage>() -> Entry {
    Entry {
        to_json: |bytes| {
            let message = M::decode(bytes).map_err(|e| e.to_string())?;
            serde_json::to_value(&message).map_err(|e| e.to_string())
        },
        from_json: |json, options| match M::json_read(json, options).map_err(|e| e.to_string())? {
            Read::Value(message) => Ok(message.encode_to_vec()),
            Read::Null | Read::Skip => Ok(Vec::new()),
        },
    }
}

fn lookup(name: &str) -> Result<Entry, String> {
    let types = TYPES.read().unwrap_or_else(PoisonError::into_inner);
    types.get(name).copied().ok_or_else(|| {
        format!(
            "google.protobuf.Any holds `{name}`, which is not registered: call fastrs::json::register::<T>(), \
             or register its descriptors (fastrs::reflect::DescriptorPool::register_described::<T>())"
        )
    })
}

/// An `Any`'s JSON beside its `@type`.
pub(super) enum Json {
    /// `"value": ...`
    Value(serde_json::Value),
    /// The message's own fields.
    Fields(serde_json::Map<String, serde_json::Value>),
}

/// The JSON of the message `name` encoded in `bytes`: through its
/// registered conversions, or else through the process's descriptor
/// registry (`DescriptorPool::global`), which every generated type with
/// descriptors joins when the text format or reflection first sees it.
pub(super) fn to_json(name: &str, bytes: &[u8]) -> Result<Json, String> {
    let json = match lookup(name) {
        Ok(entry) => (entry.to_json)(bytes)?,
        Err(not_found) => described::to_json(name, bytes).ok_or(not_found)??,
    };
    match json {
        serde_json::Value::Object(fields) if !has_value_form(name) => Ok(Json::Fields(fields)),
        value => Ok(Json::Value(value)),
    }
}

/// `Any` values of types the descriptor registry knows, through
/// `DynamicMessage` (feature `reflect`): `None` for a type it does not know.
#[cfg(feature = "reflect")]
mod described {
    use std::string::{String, ToString};
    use std::vec::Vec;

    use super::JsonOptions;
    use crate::reflect::{DescriptorPool, DynamicMessage};

    pub(super) fn to_json(name: &str, bytes: &[u8]) -> Option<Result<serde_json::Value, String>> {
        let ty = DescriptorPool::global().get_message_by_name(name)?;
        Some(
            DynamicMessage::decode(ty, bytes)
                .map_err(|e| e.to_string())
                .and_then(|m| super::super::dynamic::message_to_json(&m)),
        )
    }

    pub(super) fn from_json(
        name: &str,
        json: &serde_json::Value,
        options: JsonOptions,
    ) -> Option<Result<Vec<u8>, String>> {
        let ty = DescriptorPool::global().get_message_by_name(name)?;
        Some(super::super::dynamic::message_from_json(&ty, json, options).map(|m| m.encode_to_vec()))
    }
}

/// Without reflection, only registered types.
#[cfg(not(feature = "reflect"))]
mod described {
    use std::string::String;
    use std::vec::Vec;

    use super::JsonOptions;

    pub(super) fn to_json(_: &str, _: &[u8]) -> Option<Result<serde_json::Value, String>> {
        None
    }

    pub(super) fn from_json(_: &str, _: &serde_json::Value, _: JsonOptions) -> Option<Result<Vec<u8>, String>> {
        None
    }
}

/// The encoding of the message `name` from the JSON fields beside `@type`.
pub(super) fn from_json(
    name: &str,
    mut fields: serde_json::Map<String, serde_json::Value>,
    options: JsonOptions,
) -> Result<Vec<u8>, String> {
    let entry = lookup(name);
    let json = if has_value_form(name) {
        let value = fields.remove("value").unwrap_or(serde_json::Value::Null);
        if let Some(other) = fields.keys().next() {
            return Err(format!(
                "unexpected field `{other}` beside `@type` and `value` for {name}"
            ));
        }
        value
    } else {
        if name == <wk::Empty as crate::Message>::FULL_NAME && fields.get("value") == Some(&serde_json::json!({})) {
            // fastrs before 0.2 printed an Empty under "value"; still read it.
            fields.remove("value");
        }
        serde_json::Value::Object(fields)
    };
    match entry {
        Ok(entry) => (entry.from_json)(json, options),
        Err(not_found) => described::from_json(name, &json, options).ok_or(not_found)?,
    }
}

/// Well-known types that `Any` holds as `{"@type": ..., "value": <their JSON>}`.
/// Not `Empty`: its JSON is an ordinary (empty) object, so an `Any` holding
/// one is `{"@type": ".../google.protobuf.Empty"}`, as in C++ and Java.
pub(super) fn has_value_form(full_name: &str) -> bool {
    matches!(
        full_name.strip_prefix("google.protobuf."),
        Some(
            "Any"
                | "Duration"
                | "Timestamp"
                | "FieldMask"
                | "Struct"
                | "Value"
                | "ListValue"
                | "DoubleValue"
                | "FloatValue"
                | "Int64Value"
                | "UInt64Value"
                | "Int32Value"
                | "UInt32Value"
                | "BoolValue"
                | "StringValue"
                | "BytesValue"
        )
    )
}
