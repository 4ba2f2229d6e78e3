//! The values a [`DynamicMessage`](super::DynamicMessage) holds.

use std::boxed::Box;
use std::collections::BTreeMap;
use std::string::String;
use std::vec::Vec;

use super::DynamicMessage;
use crate::reflect::pool::{Cardinality, FieldData, Ty};
use crate::reflect::{FieldDescriptor, Kind};

/// A field's value: one of each scalar type, a message, a list (repeated
/// fields) or a map.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `string`. A proto2 string (not checked for UTF-8) whose bytes are
    /// not UTF-8 decodes as [`Value::Bytes`], so nothing is lost.
    String(String),
    /// `bytes`.
    Bytes(Vec<u8>),
    /// An enum value, by number (named or not).
    EnumNumber(i32),
    /// A message.
    Message(Box<DynamicMessage>),
    /// A repeated field's values.
    List(Vec<Value>),
    /// A map field's entries, by key.
    Map(BTreeMap<MapKey, Value>),
}

/// A map key: an integer, `bool` or `string`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapKey {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `string`.
    String(String),
}

impl MapKey {
    /// The key as a [`Value`].
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            MapKey::Bool(v) => Value::Bool(*v),
            MapKey::I32(v) => Value::I32(*v),
            MapKey::I64(v) => Value::I64(*v),
            MapKey::U32(v) => Value::U32(*v),
            MapKey::U64(v) => Value::U64(*v),
            MapKey::String(v) => Value::String(v.clone()),
        }
    }

    /// A value as a key, if its type can be one.
    #[must_use]
    pub fn from_value(value: Value) -> Option<MapKey> {
        Some(match value {
            Value::Bool(v) => MapKey::Bool(v),
            Value::I32(v) => MapKey::I32(v),
            Value::I64(v) => MapKey::I64(v),
            Value::U32(v) => MapKey::U32(v),
            Value::U64(v) => MapKey::U64(v),
            Value::String(v) => MapKey::String(v),
            _ => return None,
        })
    }
}

impl Value {
    /// True if the value owns no memory (a number, `bool` or enum), so
    /// dropping it does nothing.
    #[inline(always)]
    pub(super) fn is_inline(&self) -> bool {
        !matches!(
            self,
            Value::String(_) | Value::Bytes(_) | Value::Message(_) | Value::List(_) | Value::Map(_)
        )
    }

    /// The value a field has when it is not set: its declared default, or
    /// the zero of its type (an empty list or map for repeated fields).
    #[must_use]
    pub fn default_for(field: &FieldDescriptor) -> Value {
        if field.is_map() {
            return Value::Map(BTreeMap::new());
        }
        if field.cardinality() == Cardinality::Repeated {
            return Value::List(Vec::new());
        }
        match field.kind() {
            Kind::Message(m) => Value::Message(Box::new(DynamicMessage::new(m))),
            Kind::Enum(e) => {
                let declared = field.default_value_text().and_then(|name| e.get_value_by_name(name));
                Value::EnumNumber(declared.map_or_else(|| e.default_value(), |v| v.number()))
            }
            _ => scalar_default(field.data()),
        }
    }

    /// True if the value has the type `field` holds (a list for a repeated
    /// field, a map for a map field, and for messages the same type).
    #[must_use]
    pub fn is_valid_for(&self, field: &FieldDescriptor) -> bool {
        match self {
            Value::List(items) => field.is_list() && items.iter().all(|v| v.is_valid_single(field)),
            Value::Map(entries) => match field.kind() {
                Kind::Message(entry) if field.is_map() => {
                    let (Some(k), Some(v)) = (entry.map_entry_key_field(), entry.map_entry_value_field()) else {
                        return false;
                    };
                    entries
                        .iter()
                        .all(|(key, value)| key.to_value().is_valid_single(&k) && value.is_valid_single(&v))
                }
                _ => false,
            },
            single => field.cardinality() != Cardinality::Repeated && single.is_valid_single(field),
        }
    }

    /// True if the value is one element of `field`'s type.
    pub(crate) fn is_valid_single(&self, field: &FieldDescriptor) -> bool {
        match (self, field.data().ty) {
            (Value::Bool(_), Ty::Bool)
            | (Value::I32(_), Ty::Int32 | Ty::Sint32 | Ty::Sfixed32)
            | (Value::I64(_), Ty::Int64 | Ty::Sint64 | Ty::Sfixed64)
            | (Value::U32(_), Ty::Uint32 | Ty::Fixed32)
            | (Value::U64(_), Ty::Uint64 | Ty::Fixed64)
            | (Value::F32(_), Ty::Float)
            | (Value::F64(_), Ty::Double)
            | (Value::String(_), Ty::String)
            | (Value::Bytes(_), Ty::Bytes)
            | (Value::EnumNumber(_), Ty::Enum(_)) => true,
            // A proto2 string that is not UTF-8.
            (Value::Bytes(_), Ty::String) => !field.data().utf8,
            (Value::Message(m), Ty::Message(_)) => matches!(field.kind(), Kind::Message(ty) if *m.descriptor() == ty),
            _ => false,
        }
    }

    /// The `bool`, if this is one.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// The `i32`, if this is one.
    #[must_use]
    pub fn as_i32(&self) -> Option<i32> {
        match *self {
            Value::I32(v) => Some(v),
            _ => None,
        }
    }

    /// The `i64`, if this is one.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::I64(v) => Some(v),
            _ => None,
        }
    }

    /// The `u32`, if this is one.
    #[must_use]
    pub fn as_u32(&self) -> Option<u32> {
        match *self {
            Value::U32(v) => Some(v),
            _ => None,
        }
    }

    /// The `u64`, if this is one.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U64(v) => Some(v),
            _ => None,
        }
    }

    /// The `f32`, if this is one.
    #[must_use]
    pub fn as_f32(&self) -> Option<f32> {
        match *self {
            Value::F32(v) => Some(v),
            _ => None,
        }
    }

    /// The `f64`, if this is one.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F64(v) => Some(v),
            _ => None,
        }
    }

    /// The string, if this is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(v) => Some(v),
            _ => None,
        }
    }

    /// The bytes, if this is `bytes`.
    #[must_use]
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(v) => Some(v),
            _ => None,
        }
    }

    /// The enum number, if this is an enum value.
    #[must_use]
    pub fn as_enum_number(&self) -> Option<i32> {
        match *self {
            Value::EnumNumber(v) => Some(v),
            _ => None,
        }
    }

    /// The message, if this is one.
    #[must_use]
    pub fn as_message(&self) -> Option<&DynamicMessage> {
        match self {
            Value::Message(v) => Some(v),
            _ => None,
        }
    }

    /// The message, mutably, if this is one.
    pub fn as_message_mut(&mut self) -> Option<&mut DynamicMessage> {
        match self {
            Value::Message(v) => Some(v),
            _ => None,
        }
    }

    /// The list, if this is one.
    #[must_use]
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) => Some(v),
            _ => None,
        }
    }

    /// The list, mutably, if this is one.
    pub fn as_list_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::List(v) => Some(v),
            _ => None,
        }
    }

    /// The map, if this is one.
    #[must_use]
    pub fn as_map(&self) -> Option<&BTreeMap<MapKey, Value>> {
        match self {
            Value::Map(v) => Some(v),
            _ => None,
        }
    }

    /// The map, mutably, if this is one.
    pub fn as_map_mut(&mut self) -> Option<&mut BTreeMap<MapKey, Value>> {
        match self {
            Value::Map(v) => Some(v),
            _ => None,
        }
    }

    /// True for the zero of its type, which a field without presence does
    /// not write: 0, false, empty strings, bytes, lists and maps.
    pub(crate) fn is_zero(&self) -> bool {
        match self {
            Value::Bool(v) => !v,
            Value::I32(v) | Value::EnumNumber(v) => *v == 0,
            Value::I64(v) => *v == 0,
            Value::U32(v) => *v == 0,
            Value::U64(v) => *v == 0,
            // -0.0 is written: only +0.0 is the default.
            Value::F32(v) => v.to_bits() == 0,
            Value::F64(v) => v.to_bits() == 0,
            Value::String(v) => v.is_empty(),
            Value::Bytes(v) => v.is_empty(),
            Value::Message(_) => false,
            Value::List(v) => v.is_empty(),
            Value::Map(v) => v.is_empty(),
        }
    }
}

/// A scalar field's default: `[default = ...]` as protoc writes it in the
/// descriptor, or zero.
pub(super) fn scalar_default(field: &FieldData) -> Value {
    let text = field.default.as_deref();
    let parse_float = |t: &str| match t {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" => f64::NAN,
        t => t.parse().unwrap_or(0.0),
    };
    match field.ty {
        Ty::Bool => Value::Bool(text == Some("true")),
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 => Value::I32(text.and_then(|t| t.parse().ok()).unwrap_or(0)),
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 => Value::I64(text.and_then(|t| t.parse().ok()).unwrap_or(0)),
        Ty::Uint32 | Ty::Fixed32 => Value::U32(text.and_then(|t| t.parse().ok()).unwrap_or(0)),
        Ty::Uint64 | Ty::Fixed64 => Value::U64(text.and_then(|t| t.parse().ok()).unwrap_or(0)),
        #[allow(clippy::cast_possible_truncation)] // a float default, written as a double
        Ty::Float => Value::F32(text.map_or(0.0, parse_float) as f32),
        Ty::Double => Value::F64(text.map_or(0.0, parse_float)),
        Ty::String => Value::String(text.unwrap_or_default().into()),
        Ty::Bytes => Value::Bytes(text.map(unescape).unwrap_or_default()),
        Ty::Message(_) | Ty::Enum(_) => Value::Bool(false),
    }
}

/// A `bytes` default as protoc writes it: C escapes (`\n`, `\\`, `\'`,
/// `\"`, octal `\NNN`, hex `\xNN`).
fn unescape(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = bytes[i];
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'x' => {
                let digits = bytes[i..].iter().take(2).take_while(|b| b.is_ascii_hexdigit()).count();
                let v = core::str::from_utf8(&bytes[i..i + digits])
                    .ok()
                    .and_then(|d| u8::from_str_radix(d, 16).ok());
                out.push(v.unwrap_or(0));
                i += digits;
            }
            b'0'..=b'7' => {
                let digits = 1 + bytes[i..]
                    .iter()
                    .take(2)
                    .take_while(|b| (b'0'..=b'7').contains(b))
                    .count();
                let start = i - 1;
                let v = core::str::from_utf8(&bytes[start..start + digits])
                    .ok()
                    .and_then(|d| u32::from_str_radix(d, 8).ok());
                #[allow(clippy::cast_possible_truncation)] // three octal digits: at most 0o777, kept to a byte
                out.push(v.unwrap_or(0) as u8);
                i = start + digits;
            }
            other => out.push(other),
        }
    }
    out
}
