//! Dynamic messages to JSON values.

use std::string::{String, ToString};

use serde_json::{Map, Number, Value as Json};

use super::has_own_form;
use crate::json::base64;
use crate::reflect::pool::{FieldData, Tables, Ty};
use crate::reflect::{DynamicMessage, MapKey, Value};
use crate::well_known as wk;
use crate::Message;

/// The JSON of `m`.
pub(crate) fn message_to_json(m: &DynamicMessage) -> Result<Json, String> {
    let name = m.descriptor().full_name();
    if name == "google.protobuf.Any" {
        return any_to_json(m);
    }
    if has_own_form(name) {
        return own_form(name, &m.encode_to_vec());
    }
    let tables = m.descriptor().pool().tables();
    let mut object = Map::new();
    for (field, value) in m.fields() {
        let data = field.data();
        let key = if field.is_extension() {
            std::format!("[{}]", data.full_name)
        } else {
            data.json_name.clone()
        };
        object.insert(key, field_to_json(tables, data, value)?);
    }
    Ok(Json::Object(object))
}

/// A well-known type's own JSON form, through its generated type.
fn own_form(name: &str, bytes: &[u8]) -> Result<Json, String> {
    fn via<M: Message + serde::Serialize>(bytes: &[u8]) -> Result<Json, String> {
        let message = M::decode(bytes).map_err(|e| e.to_string())?;
        serde_json::to_value(&message).map_err(|e| e.to_string())
    }
    macro_rules! by_name {
        ($($ty:ident),*) => {
            match name.strip_prefix("google.protobuf.") {
                $(Some(stringify!($ty)) => via::<wk::$ty>(bytes),)*
                _ => Err(std::format!("{name} has no JSON form of its own")),
            }
        };
    }
    with_own_forms!(by_name)
}

/// `{"@type": url, ...}`: the held message's fields beside its type, or
/// its own form under `"value"`.
fn any_to_json(m: &DynamicMessage) -> Result<Json, String> {
    let url = m.get_by_number(1).and_then(Value::as_str).unwrap_or_default();
    let bytes = m.get_by_number(2).and_then(Value::as_bytes).unwrap_or_default();
    if url.is_empty() && bytes.is_empty() {
        return Ok(Json::Object(Map::new()));
    }
    let name = url.rsplit_once('/').map_or(url, |(_, name)| name);
    let Some(ty) = m.descriptor().pool().get_message_by_name(name) else {
        return Err(std::format!(
            "google.protobuf.Any holds `{name}`, which the descriptor pool does not know"
        ));
    };
    let held = DynamicMessage::decode(ty, bytes).map_err(|e| e.to_string())?;
    let mut object = Map::new();
    object.insert("@type".into(), Json::String(url.into()));
    match message_to_json(&held)? {
        Json::Object(fields) if !has_own_form(name) && name != "google.protobuf.Any" => object.extend(fields),
        value => {
            object.insert("value".into(), value);
        }
    }
    Ok(Json::Object(object))
}

fn field_to_json(tables: &Tables, field: &FieldData, value: &Value) -> Result<Json, String> {
    match value {
        Value::List(items) => items
            .iter()
            .map(|v| single(tables, field, v))
            .collect::<Result<_, _>>()
            .map(Json::Array),
        Value::Map(entries) => {
            let entry = tables.message_of(field).ok_or("a map field's type is its entry")?;
            let value_field = entry.field(2).ok_or("a map entry has a value field")?;
            let mut object = Map::new();
            for (key, v) in entries {
                object.insert(key_text(key), single(tables, value_field, v)?);
            }
            Ok(Json::Object(object))
        }
        v => single(tables, field, v),
    }
}

/// A map key as its JSON object key.
fn key_text(key: &MapKey) -> String {
    match key {
        MapKey::Bool(v) => v.to_string(),
        MapKey::I32(v) => v.to_string(),
        MapKey::I64(v) => v.to_string(),
        MapKey::U32(v) => v.to_string(),
        MapKey::U64(v) => v.to_string(),
        MapKey::String(v) => v.clone(),
    }
}

/// One value of `field`'s type.
fn single(tables: &Tables, field: &FieldData, value: &Value) -> Result<Json, String> {
    Ok(match *value {
        Value::Bool(v) => Json::Bool(v),
        Value::I32(v) => Json::Number(v.into()),
        Value::U32(v) => Json::Number(v.into()),
        // 64-bit integers are strings: JSON readers keep only 53 bits.
        Value::I64(v) => Json::String(v.to_string()),
        Value::U64(v) => Json::String(v.to_string()),
        Value::F32(v) => float(widened(v)),
        Value::F64(v) => float(v),
        Value::String(ref v) => Json::String(v.clone()),
        Value::Bytes(_) if field.ty == Ty::String => {
            return Err(std::format!("{} holds bytes that are not UTF-8", field.full_name));
        }
        Value::Bytes(ref v) => Json::String(base64::Standard(v).to_string()),
        Value::EnumNumber(n) => {
            let e = tables.enum_of(field).ok_or("an enum value of an enum field")?;
            if e.full_name == "google.protobuf.NullValue" {
                Json::Null
            } else {
                e.name_of(n)
                    .map_or_else(|| Json::Number(n.into()), |name| Json::String(name.into()))
            }
        }
        Value::Message(ref m) => message_to_json(m)?,
        Value::List(_) | Value::Map(_) => return Err(std::format!("{} holds a list inside a list", field.full_name)),
    })
}

/// A double: a number, or the strings protobuf uses for the values JSON has
/// no number for.
fn float(v: f64) -> Json {
    if v.is_nan() {
        Json::String("NaN".into())
    } else if v.is_infinite() {
        Json::String(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        Number::from_f64(v).map_or(Json::Null, Json::Number)
    }
}

/// A float as the double of its shortest decimal text, so it prints as
/// `0.1`, not as the double nearest to it; serde_json's text, so the digits
/// are those generated code prints where two shortest forms tie.
fn widened(v: f32) -> f64 {
    let text = serde_json::to_string(&v).unwrap_or_default();
    text.parse().unwrap_or(f64::from(v))
}
