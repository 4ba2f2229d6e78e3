//! Dynamic messages as JSON: `DynamicMessage` implements `serde::Serialize`
//! with the proto3 JSON mapping, streaming into the serializer (no tree of
//! JSON values is built).

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::has_own_form;
use crate::json::base64;
use crate::reflect::pool::{FieldData, Tables, Ty};
use crate::reflect::{DescriptorPool, DynamicMessage, MapKey, Value};
use crate::well_known as wk;
use crate::Message;

/// The proto3 JSON form: an object of the set fields by JSON name
/// (extensions as `"[full.name]"`), or a well-known type's own form.
impl Serialize for DynamicMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = self.descriptor().full_name();
        if name == "google.protobuf.Any" {
            return serialize_any(self, s);
        }
        if has_own_form(name) {
            return own_form(name, &self.encode_to_vec(), s);
        }
        let mut map = s.serialize_map(None)?;
        write_fields(self, &mut map)?;
        map.end()
    }
}

/// The set fields of `m` into `map`.
fn write_fields<M: SerializeMap>(m: &DynamicMessage, map: &mut M) -> Result<(), M::Error> {
    write_set_fields(m, map, false)
}

/// The set extensions of `m` into `map`, as `"[full.name]"` keys (for
/// generated messages, whose own fields their generated code writes).
pub(crate) fn write_extensions<M: SerializeMap>(m: &DynamicMessage, map: &mut M) -> Result<(), M::Error> {
    write_set_fields(m, map, true)
}

/// The set fields of `m` into `map`, or only its extensions.
fn write_set_fields<M: SerializeMap>(m: &DynamicMessage, map: &mut M, only_extensions: bool) -> Result<(), M::Error> {
    let tables = m.descriptor().pool().tables();
    for (data, value, extension) in m.set_fields() {
        if only_extensions && !extension {
            continue;
        }
        let json = FieldJson {
            tables,
            field: data,
            value,
        };
        if extension {
            map.serialize_entry(&std::format!("[{}]", data.full_name), &json)?;
        } else {
            map.serialize_entry(&data.json_name, &json)?;
        }
    }
    Ok(())
}

/// A well-known type's own JSON form, through its generated type.
fn own_form<S: Serializer>(name: &str, bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    fn via<M: Message + Serialize, S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        M::decode(bytes).map_err(S::Error::custom)?.serialize(s)
    }
    macro_rules! by_name {
        ($($ty:ident),*) => {
            match name.strip_prefix("google.protobuf.") {
                $(Some(stringify!($ty)) => via::<wk::$ty, S>(bytes, s),)*
                _ => Err(S::Error::custom(format_args!("{name} has no JSON form of its own"))),
            }
        };
    }
    with_own_forms!(by_name)
}

/// `{"@type": url, ...}`: the held message's fields beside its type, or
/// its own form under `"value"`.
fn serialize_any<S: Serializer>(m: &DynamicMessage, s: S) -> Result<S::Ok, S::Error> {
    let url = m.get_by_number(1).and_then(Value::as_str).unwrap_or_default();
    let bytes = m.get_by_number(2).and_then(Value::as_bytes).unwrap_or_default();
    any_to_json(m.descriptor().pool(), url, bytes, s)
}

/// An `Any` of type URL `url` holding `bytes`, its type found in `pool`.
/// Generated code's `Any` prints here too, with the process's pool.
pub(crate) fn any_to_json<S: Serializer>(
    pool: &DescriptorPool,
    url: &str,
    bytes: &[u8],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    if url.is_empty() && bytes.is_empty() {
        return map.end();
    }
    let name = url.rsplit_once('/').map_or(url, |(_, name)| name);
    let Some(ty) = pool.get_message_by_name(name) else {
        return Err(S::Error::custom(super::unknown_type(name)));
    };
    let held = DynamicMessage::decode(ty, bytes).map_err(S::Error::custom)?;
    map.serialize_entry("@type", url)?;
    if has_own_form(name) || name == "google.protobuf.Any" {
        map.serialize_entry("value", &held)?;
    } else {
        write_fields(&held, &mut map)?;
    }
    map.end()
}

/// A field's value (a list, a map or one value) as JSON.
struct FieldJson<'a> {
    tables: &'a Tables,
    field: &'a FieldData,
    value: &'a Value,
}

impl Serialize for FieldJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (tables, field) = (self.tables, self.field);
        match self.value {
            Value::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for value in items {
                    seq.serialize_element(&Single { tables, field, value })?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let entry = tables
                    .message_of(field)
                    .ok_or_else(|| S::Error::custom("a map's type is its entry"))?;
                let value_field = entry
                    .field(2)
                    .ok_or_else(|| S::Error::custom("a map entry has a value"))?;
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(
                        &KeyText(key),
                        &Single {
                            tables,
                            field: value_field,
                            value,
                        },
                    )?;
                }
                map.end()
            }
            value => Single { tables, field, value }.serialize(s),
        }
    }
}

/// A map key as its JSON object key (a string), written without an
/// allocation.
struct KeyText<'a>(&'a MapKey);

impl Serialize for KeyText<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            MapKey::Bool(v) => s.serialize_str(if *v { "true" } else { "false" }),
            MapKey::I32(v) => s.serialize_str(itoa::Buffer::new().format(*v)),
            MapKey::I64(v) => s.serialize_str(itoa::Buffer::new().format(*v)),
            MapKey::U32(v) => s.serialize_str(itoa::Buffer::new().format(*v)),
            MapKey::U64(v) => s.serialize_str(itoa::Buffer::new().format(*v)),
            MapKey::String(v) => s.serialize_str(v),
        }
    }
}

/// One value of a field's type.
struct Single<'a> {
    tables: &'a Tables,
    field: &'a FieldData,
    value: &'a Value,
}

impl Serialize for Single<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let field = self.field;
        match *self.value {
            Value::Bool(v) => s.serialize_bool(v),
            Value::I32(v) => s.serialize_i32(v),
            Value::U32(v) => s.serialize_u32(v),
            // 64-bit integers are strings: JSON readers keep only 53 bits.
            Value::I64(v) => s.serialize_str(itoa::Buffer::new().format(v)),
            Value::U64(v) => s.serialize_str(itoa::Buffer::new().format(v)),
            Value::F32(v) if v.is_finite() => s.serialize_f32(v),
            Value::F64(v) if v.is_finite() => s.serialize_f64(v),
            Value::F32(v) => s.serialize_str(non_finite(f64::from(v))),
            Value::F64(v) => s.serialize_str(non_finite(v)),
            Value::String(ref v) => s.serialize_str(v),
            Value::Bytes(_) if field.ty == Ty::String => Err(S::Error::custom(format_args!(
                "{} holds bytes that are not UTF-8",
                field.full_name
            ))),
            Value::Bytes(ref v) => s.collect_str(&base64::Standard(v)),
            Value::EnumNumber(n) => {
                let e = self
                    .tables
                    .enum_of(field)
                    .ok_or_else(|| S::Error::custom("an enum field"))?;
                if e.full_name == "google.protobuf.NullValue" {
                    s.serialize_unit()
                } else {
                    match e.name_of(n) {
                        Some(name) => s.serialize_str(name),
                        None => s.serialize_i32(n),
                    }
                }
            }
            Value::Message(ref m) => m.serialize(s),
            Value::List(_) | Value::Map(_) => Err(S::Error::custom(format_args!(
                "{} holds a list inside a list",
                field.full_name
            ))),
        }
    }
}

/// The strings protobuf uses for the floats JSON has no number for.
fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}
