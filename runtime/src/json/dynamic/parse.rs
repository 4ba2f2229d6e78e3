//! JSON trees to dynamic messages: `Any` (whose `@type` may come last)
//! and the well-known types with a form of their own; other types go
//! through the one-pass parser of [`super::stream`].

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::Value as Json;

use super::{has_own_form, stream};
use crate::json::read::Read;
use crate::json::{JsonMessage, JsonOptions};
use crate::reflect::pool::{FieldData, Tables, Ty};
use crate::reflect::{DynamicMessage, MapKey, MessageDescriptor, Value};
use crate::well_known as wk;

/// Parses `json` as a message of type `descriptor`: `Any` and the own
/// forms here, every other type by the one-pass parser, reading the tree.
pub(crate) fn message_from_json(
    descriptor: &MessageDescriptor,
    json: &Json,
    options: JsonOptions,
) -> Result<DynamicMessage, String> {
    let name = descriptor.full_name();
    if name == "google.protobuf.Any" {
        return any_from_json(descriptor, json, options);
    }
    if has_own_form(name) {
        let bytes = own_form(name, json.clone(), options)?;
        return DynamicMessage::decode(descriptor.clone(), &bytes).map_err(|e| e.to_string());
    }
    stream::from_tree(descriptor, json, options).map_err(|e| e.to_string())
}

/// True where JSON `null` is a value: `google.protobuf.Value` and
/// `NullValue` fields.
pub(super) fn null_is_value(tables: &Tables, field: &FieldData) -> bool {
    match field.ty {
        Ty::Message(_) => tables
            .message_of(field)
            .is_some_and(|m| m.full_name == "google.protobuf.Value"),
        Ty::Enum(_) => tables
            .enum_of(field)
            .is_some_and(|e| e.full_name == "google.protobuf.NullValue"),
        _ => false,
    }
}

/// A map key from its JSON object key.
pub(super) fn map_key(field: &FieldData, key: &str) -> Option<MapKey> {
    Some(match field.ty {
        Ty::Bool => MapKey::Bool(match key {
            "true" => true,
            "false" => false,
            _ => return None,
        }),
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 => MapKey::I32(key.parse().ok()?),
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 => MapKey::I64(key.parse().ok()?),
        Ty::Uint32 | Ty::Fixed32 => MapKey::U32(key.parse().ok()?),
        Ty::Uint64 | Ty::Fixed64 => MapKey::U64(key.parse().ok()?),
        Ty::String => MapKey::String(key.to_string()),
        _ => return None,
    })
}

/// `{"@type": url, ...}`: the fields of the type named by the URL (or its
/// own form under `"value"`), encoded into an `Any`.
fn any_from_json(descriptor: &MessageDescriptor, json: &Json, options: JsonOptions) -> Result<DynamicMessage, String> {
    let Json::Object(fields) = json else {
        return Err(std::format!(
            "expected a JSON object for google.protobuf.Any, found {json}"
        ));
    };
    let mut any = DynamicMessage::new(descriptor.clone());
    let url = match fields.get("@type") {
        Some(Json::String(url)) => url,
        Some(other) => return Err(std::format!("`@type` must be a string, not {other}")),
        None if fields.is_empty() => return Ok(any),
        None => return Err("google.protobuf.Any needs an `@type`".into()),
    };
    let name = url.rsplit_once('/').map_or(url.as_str(), |(_, name)| name);
    let Some(ty) = descriptor.pool().get_message_by_name(name) else {
        return Err(std::format!(
            "google.protobuf.Any holds `{name}`, which the descriptor pool does not know"
        ));
    };
    let mut rest = fields.clone();
    rest.remove("@type");
    let held = if has_own_form(name) || name == "google.protobuf.Any" {
        let value = rest.remove("value").unwrap_or(Json::Null);
        if let Some(other) = rest.keys().next() {
            return Err(std::format!(
                "unexpected field `{other}` beside `@type` and `value` for {name}"
            ));
        }
        message_from_json(&ty, &value, options)?
    } else {
        message_from_json(&ty, &Json::Object(rest), options)?
    };
    any.set_by_name("type_url", Value::String(url.clone()))
        .map_err(|e| e.to_string())?;
    any.set_by_name("value", Value::Bytes(held.encode_to_vec()))
        .map_err(|e| e.to_string())?;
    Ok(any)
}

/// A well-known type from its own JSON form, through its generated type,
/// as its encoding.
fn own_form(name: &str, json: Json, options: JsonOptions) -> Result<Vec<u8>, String> {
    fn via<M: JsonMessage>(json: Json, options: JsonOptions) -> Result<Vec<u8>, String> {
        match M::json_read(json, options).map_err(|e| e.to_string())? {
            Read::Value(m) => Ok(m.encode_to_vec()),
            Read::Null | Read::Skip => Ok(Vec::new()),
        }
    }
    macro_rules! by_name {
        ($($ty:ident),*) => {
            match name.strip_prefix("google.protobuf.") {
                $(Some(stringify!($ty)) => via::<wk::$ty>(json, options),)*
                _ => Err(std::format!("{name} has no JSON form of its own")),
            }
        };
    }
    with_own_forms!(by_name)
}
