//! JSON values to dynamic messages.

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::Value as Json;

use super::has_own_form;
use crate::json::codec::Number;
use crate::json::read::Read;
use crate::json::{base64, JsonMessage, JsonOptions};
use crate::reflect::pool::{FieldData, Tables, Ty};
use crate::reflect::{DynamicMessage, FieldDescriptor, MapKey, MessageDescriptor, Value};
use crate::well_known as wk;

/// What parsing one value gave: a value, or nothing (an unknown enum name
/// skipped under `ignore_unknown_fields`).
type Parsed = Option<Value>;

/// Parses `json` as a message of type `descriptor`.
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
    let Json::Object(fields) = json else {
        return Err(std::format!("expected a JSON object for {name}, found {json}"));
    };
    let mut message = DynamicMessage::new(descriptor.clone());
    // Each field once (by either of its names), each oneof once.
    let mut seen: Vec<FieldDescriptor> = Vec::new();
    for (key, value) in fields {
        let Some(field) = field_named(descriptor, key) else {
            if options.ignore_unknown_fields {
                continue;
            }
            return Err(std::format!("{name} has no field named \"{key}\""));
        };
        if seen.contains(&field) {
            return Err(std::format!("field {} is given twice", field.full_name()));
        }
        seen.push(field.clone());
        let Some(parsed) = field_from_json(&field, value, options)? else {
            continue;
        };
        if let Some(oneof) = field.containing_oneof().filter(|o| !o.is_synthetic()) {
            if oneof
                .fields()
                .any(|other| other != field && message.get(&other).is_some())
            {
                return Err(std::format!("oneof {} is set twice", oneof.full_name()));
            }
        }
        message.set(&field, parsed).map_err(|e| e.to_string())?;
    }
    Ok(message)
}

/// The field a JSON key names: its JSON name, its proto name, or
/// `[full.name]` for an extension.
fn field_named(descriptor: &MessageDescriptor, key: &str) -> Option<FieldDescriptor> {
    if let Some(name) = key.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
        let ext = descriptor.pool().get_extension_by_name(name)?;
        return (ext.containing_message() == *descriptor).then_some(ext);
    }
    descriptor
        .get_field_by_json_name(key)
        .or_else(|| descriptor.get_field_by_name(key))
}

/// The value of `field` given as `json`; `None` where it stays unset.
fn field_from_json(field: &FieldDescriptor, json: &Json, options: JsonOptions) -> Result<Parsed, String> {
    let tables = field.pool().tables();
    let data = field.data();
    if json.is_null() && !null_is_value(tables, data) {
        return Ok(None);
    }
    if field.is_map() {
        let Json::Object(entries) = json else {
            return Err(std::format!("expected an object for map field {}", data.full_name));
        };
        let entry = tables.message_of(data).ok_or("a map's type is its entry")?;
        let (key_field, value_field) = (entry.field(1).ok_or("map key")?, entry.field(2).ok_or("map value")?);
        let entry_descriptor = field_entry(field);
        let value_descriptor = entry_descriptor.get_field(2).ok_or("map value")?;
        let mut map = BTreeMap::new();
        for (key, value) in entries {
            let key = map_key(key_field, key)
                .ok_or_else(|| std::format!("\"{key}\" is not a key of map field {}", data.full_name))?;
            if value.is_null() && !null_is_value(tables, value_field) {
                return Err(std::format!("null inside map field {}", data.full_name));
            }
            if let Some(value) = single(&value_descriptor, value, options)? {
                map.insert(key, value);
            }
        }
        return Ok(Some(Value::Map(map)));
    }
    if field.is_list() {
        let Json::Array(items) = json else {
            return Err(std::format!("expected an array for repeated field {}", data.full_name));
        };
        let mut list = Vec::with_capacity(items.len());
        for item in items {
            if item.is_null() && !null_is_value(tables, data) {
                return Err(std::format!("null inside repeated field {}", data.full_name));
            }
            list.extend(single(field, item, options)?);
        }
        return Ok(Some(Value::List(list)));
    }
    single(field, json, options)
}

/// A map field's entry type.
fn field_entry(field: &FieldDescriptor) -> MessageDescriptor {
    match field.kind() {
        crate::reflect::Kind::Message(m) => m,
        _ => unreachable!("map fields hold entry messages"),
    }
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

/// One value of `field`'s type.
fn single(field: &FieldDescriptor, json: &Json, options: JsonOptions) -> Result<Parsed, String> {
    let data = field.data();
    let what = || std::format!("{json} is not a value of field {}", data.full_name);
    Ok(Some(match data.ty {
        Ty::Bool => Value::Bool(json.as_bool().ok_or_else(what)?),
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 => Value::I32(number(json).ok_or_else(what)?),
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 => Value::I64(number(json).ok_or_else(what)?),
        Ty::Uint32 | Ty::Fixed32 => Value::U32(number(json).ok_or_else(what)?),
        Ty::Uint64 | Ty::Fixed64 => Value::U64(number(json).ok_or_else(what)?),
        Ty::Float => Value::F32(number(json).ok_or_else(what)?),
        Ty::Double => Value::F64(number(json).ok_or_else(what)?),
        Ty::String => Value::String(json.as_str().ok_or_else(what)?.into()),
        Ty::Bytes => Value::Bytes(json.as_str().and_then(base64::decode).ok_or_else(what)?),
        Ty::Enum(_) => return enum_value(field, json, options),
        Ty::Message(_) => {
            let crate::reflect::Kind::Message(ty) = field.kind() else {
                unreachable!("a message field")
            };
            Value::Message(std::boxed::Box::new(message_from_json(&ty, json, options)?))
        }
    }))
}

/// A number given as a JSON number or a string.
fn number<T: Number>(json: &Json) -> Option<T> {
    match json {
        Json::Number(n) => {
            if let Some(v) = n.as_u64() {
                T::from_u64(v)
            } else if let Some(v) = n.as_i64() {
                T::from_i64(v)
            } else {
                T::from_f64(n.as_f64()?)
            }
        }
        Json::String(text) => T::from_text(text),
        _ => None,
    }
}

/// An enum value by name or number; `None` for an unknown name skipped.
fn enum_value(field: &FieldDescriptor, json: &Json, options: JsonOptions) -> Result<Parsed, String> {
    let tables = field.pool().tables();
    let data = field.data();
    let e = tables.enum_of(data).ok_or("an enum field")?;
    let number = match json {
        Json::Null => Some(0),
        Json::String(name) => e.number_of(name),
        Json::Number(_) => number::<i32>(json).filter(|n| !e.closed || e.name_of(*n).is_some()),
        _ => None,
    };
    match number {
        Some(n) => Ok(Some(Value::EnumNumber(n))),
        None if options.ignore_unknown_fields && json.is_string() => Ok(None),
        None => Err(std::format!("{json} is not a value of enum {}", e.full_name)),
    }
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
