//! Messages built by CEL literals (`Type{field: value}`), well-known
//! types included (a `Timestamp` from a timestamp, an `Any` packing a
//! message, JSON values from lists, maps and scalars).

use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use super::error::EvalError;
use super::types::Type;
use super::value::{copy, unwrap, Msg, Value};
use crate::reflect::{self, DescriptorPool, DynamicMessage, FieldDescriptor, Kind, MapKey, MessageDescriptor, Reflect};

/// What building a message from a literal needs: the pool its types
/// come from.
pub struct Builder<'p> {
    /// Where field types are found.
    pub pool: &'p DescriptorPool,
}

impl Builder<'_> {
    /// The message `ty` with `fields` set, as CEL reads it (a well-known
    /// type as its CEL value).
    ///
    /// # Errors
    /// A value that does not convert to its field's type, or is out of its
    /// range.
    pub fn build(
        &self,
        ty: &MessageDescriptor,
        fields: Vec<(FieldDescriptor, Value<'_>)>,
    ) -> Result<Value<'static>, EvalError> {
        let mut message = DynamicMessage::new(ty.clone());
        for (field, value) in fields {
            if let Some(v) = self.field_value(&field, value)? {
                message.set(&field, v).map_err(|e| EvalError::new(e.to_string()))?;
            }
        }
        if ty.full_name() == "google.protobuf.Any" && !message.has_field_by_number(1) {
            return Err(EvalError::new("conversion error: empty google.protobuf.Any"));
        }
        unwrap(Msg::Owned(Arc::new(message))).map(Value::detach)
    }

    /// A CEL value as the value of `field`; `None` to leave it unset
    /// (`null` for a message field).
    fn field_value(&self, field: &FieldDescriptor, value: Value<'_>) -> Result<Option<reflect::Value>, EvalError> {
        if field.is_map() {
            let Value::Map(map) = value else {
                return Err(unsupported(field, &value));
            };
            let Kind::Message(entry) = field.kind() else {
                return Err(unsupported(field, &Value::Null));
            };
            let (Some(kf), Some(vf)) = (entry.map_entry_key_field(), entry.map_entry_value_field()) else {
                return Err(unsupported(field, &Value::Null));
            };
            let mut out = std::collections::BTreeMap::new();
            for (k, v) in map.entries()? {
                let key = self.single(&kf, k)?.and_then(MapKey::from_value);
                let key = key.ok_or_else(|| EvalError::new("unsupported map key type"))?;
                let v = self.single(&vf, v)?.ok_or_else(|| EvalError::new("null map value"))?;
                out.insert(key, v);
            }
            return Ok(Some(reflect::Value::Map(out)));
        }
        if field.is_list() {
            let Value::List(list) = value else {
                return Err(unsupported(field, &value));
            };
            let mut out = Vec::with_capacity(list.len());
            for v in list.iter() {
                out.push(
                    self.single(field, v?)?
                        .ok_or_else(|| EvalError::new("null list element"))?,
                );
            }
            return Ok(Some(reflect::Value::List(out)));
        }
        self.single(field, value)
    }

    /// One value of `field`'s type.
    fn single(&self, field: &FieldDescriptor, value: Value<'_>) -> Result<Option<reflect::Value>, EvalError> {
        let kind = field.kind();
        let range = || EvalError::new("range error");
        Ok(Some(match (&kind, value) {
            (Kind::Message(m), v) => {
                return self
                    .message(m, v)
                    .map(|o| o.map(|m| reflect::Value::Message(Box::new(m))))
            }
            (Kind::Enum(e), Value::Null) if e.full_name() == "google.protobuf.NullValue" => {
                reflect::Value::EnumNumber(0)
            }
            (_, Value::Null) => return Err(unsupported(field, &Value::Null)),
            (Kind::Bool, Value::Bool(b)) => reflect::Value::Bool(b),
            (Kind::Int32 | Kind::Sint32 | Kind::Sfixed32, Value::Int(v)) => {
                reflect::Value::I32(i32::try_from(v).map_err(|_| range())?)
            }
            (Kind::Int64 | Kind::Sint64 | Kind::Sfixed64, Value::Int(v)) => reflect::Value::I64(v),
            (Kind::Uint32 | Kind::Fixed32, Value::Uint(v)) => {
                reflect::Value::U32(u32::try_from(v).map_err(|_| range())?)
            }
            (Kind::Uint64 | Kind::Fixed64, Value::Uint(v)) => reflect::Value::U64(v),
            #[allow(clippy::cast_possible_truncation)]
            (Kind::Float, Value::Double(v)) => reflect::Value::F32(v as f32),
            (Kind::Double, Value::Double(v)) => reflect::Value::F64(v),
            (Kind::String, Value::String(s)) => reflect::Value::String((*s).into()),
            (Kind::Bytes, Value::Bytes(b)) => reflect::Value::Bytes(b.to_vec()),
            (Kind::Enum(_), Value::Int(v)) => reflect::Value::EnumNumber(i32::try_from(v).map_err(|_| range())?),
            (Kind::Enum(e), Value::Enum(name, v)) if *name == *e.full_name() => reflect::Value::EnumNumber(v),
            (_, v) => return Err(unsupported(field, &v)),
        }))
    }

    /// A value of message type `m` (a well-known type made from its CEL
    /// value); `None` for `null` where the field may stay unset.
    fn message(&self, m: &MessageDescriptor, value: Value<'_>) -> Result<Option<DynamicMessage>, EvalError> {
        let name = m.full_name();
        let set = |msg: &mut DynamicMessage, number: u32, v: reflect::Value| -> Result<(), EvalError> {
            let f = m
                .get_field(number)
                .ok_or_else(|| EvalError::new("malformed well-known type"))?;
            msg.set(&f, v).map_err(|e| EvalError::new(e.to_string()))
        };
        let mut out = DynamicMessage::new(m.clone());
        match (Type::of_message(name), value) {
            (Type::Dyn, v) => self.json_value(&mut out, m, v)?,
            (Type::List(_) | Type::Map(..), Value::Null) => {
                return Err(EvalError::new(format!(
                    "unsupported field type: cannot set a {name} to null"
                )))
            }
            (_, Value::Null) => return Ok(None),
            (Type::Message(_), Value::Message(msg)) if msg.get().descriptor().full_name() == name => {
                return Ok(Some(copy(msg.get())));
            }
            (Type::Timestamp, Value::Timestamp(t)) => {
                set(&mut out, 1, reflect::Value::I64(t.seconds))?;
                set(&mut out, 2, reflect::Value::I32(t.nanos))?;
            }
            (Type::Duration, Value::Duration(d)) => {
                let (s, n) = d.parts();
                set(&mut out, 1, reflect::Value::I64(s))?;
                set(&mut out, 2, reflect::Value::I32(n))?;
            }
            (Type::Wrapper(_), v) => {
                let f = m.get_field(1).ok_or_else(|| EvalError::new("malformed wrapper"))?;
                let v = self
                    .single(&f, v)?
                    .ok_or_else(|| EvalError::new("null wrapper value"))?;
                out.set(&f, v).map_err(|e| EvalError::new(e.to_string()))?;
            }
            (Type::Any, v) => {
                let (type_name, bytes) = self.pack(v)?;
                set(
                    &mut out,
                    1,
                    reflect::Value::String(format!("type.googleapis.com/{type_name}")),
                )?;
                set(&mut out, 2, reflect::Value::Bytes(bytes))?;
            }
            (Type::Map(..), Value::Map(map)) => {
                let f = m.get_field(1).ok_or_else(|| EvalError::new("malformed Struct"))?;
                out.set(
                    &f,
                    self.field_value(&f, Value::Map(map))?
                        .unwrap_or(reflect::Value::Map(Default::default())),
                )
                .map_err(|e| EvalError::new(e.to_string()))?;
            }
            (Type::List(_), Value::List(list)) => {
                let f = m.get_field(1).ok_or_else(|| EvalError::new("malformed ListValue"))?;
                out.set(
                    &f,
                    self.field_value(&f, Value::List(list))?
                        .unwrap_or(reflect::Value::List(Vec::new())),
                )
                .map_err(|e| EvalError::new(e.to_string()))?;
            }
            (_, v) => {
                return Err(EvalError::new(format!(
                    "no such overload: cannot set a {name} field to a {}",
                    v.type_name()
                )))
            }
        }
        Ok(Some(out))
    }

    /// Sets a `google.protobuf.Value` from a CEL value.
    fn json_value(&self, out: &mut DynamicMessage, m: &MessageDescriptor, v: Value<'_>) -> Result<(), EvalError> {
        let field = |n: u32| {
            m.get_field(n)
                .ok_or_else(|| EvalError::new("malformed google.protobuf.Value"))
        };
        let (number, value) = match v {
            Value::Null => (1, reflect::Value::EnumNumber(0)),
            Value::Double(d) => (2, reflect::Value::F64(d)),
            // Integers beyond a double's exact range are strings in JSON.
            #[allow(clippy::cast_precision_loss)]
            Value::Int(i) if i.unsigned_abs() <= MAX_SAFE_INTEGER => (2, reflect::Value::F64(i as f64)),
            Value::Int(i) => (3, reflect::Value::String(i.to_string())),
            #[allow(clippy::cast_precision_loss)]
            Value::Uint(u) if u <= MAX_SAFE_INTEGER => (2, reflect::Value::F64(u as f64)),
            Value::Uint(u) => (3, reflect::Value::String(u.to_string())),
            Value::String(s) => (3, reflect::Value::String((*s).into())),
            Value::Bool(b) => (4, reflect::Value::Bool(b)),
            Value::Timestamp(t) => (3, reflect::Value::String(t.to_string())),
            Value::Duration(d) => (3, reflect::Value::String(d.to_string())),
            Value::Bytes(b) => (3, reflect::Value::String(crate::cel::lib::base64_encode(&b))),
            map @ Value::Map(_) => {
                let f = field(5)?;
                let Kind::Message(s) = f.kind() else { unreachable!() };
                (
                    5,
                    reflect::Value::Message(Box::new(
                        self.message(&s, map)?.unwrap_or_else(|| DynamicMessage::new(s)),
                    )),
                )
            }
            list @ Value::List(_) => {
                let f = field(6)?;
                let Kind::Message(s) = f.kind() else { unreachable!() };
                (
                    6,
                    reflect::Value::Message(Box::new(
                        self.message(&s, list)?.unwrap_or_else(|| DynamicMessage::new(s)),
                    )),
                )
            }
            Value::Message(msg) => return self.json_value(out, m, message_as_json(msg.get())?),
            other => {
                return Err(EvalError::new(format!(
                    "bad type for google.protobuf.Value: {}",
                    other.type_name()
                )))
            }
        };
        out.set(&field(number)?, value)
            .map_err(|e| EvalError::new(e.to_string()))
    }

    /// A value packed for an `Any`: its type's full name and encoding.
    fn pack(&self, v: Value<'_>) -> Result<(String, Vec<u8>), EvalError> {
        let wrapper = match &v {
            Value::Message(m) => {
                let message = copy(m.get());
                return Ok((m.get().descriptor().full_name().into(), message.encode_to_vec()));
            }
            Value::Bool(_) => "google.protobuf.BoolValue",
            Value::Int(_) => "google.protobuf.Int64Value",
            Value::Uint(_) => "google.protobuf.UInt64Value",
            Value::Double(_) => "google.protobuf.DoubleValue",
            Value::String(_) => "google.protobuf.StringValue",
            Value::Bytes(_) => "google.protobuf.BytesValue",
            Value::Timestamp(_) => "google.protobuf.Timestamp",
            Value::Duration(_) => "google.protobuf.Duration",
            Value::List(_) => "google.protobuf.ListValue",
            Value::Map(_) => "google.protobuf.Struct",
            Value::Null => "google.protobuf.Value",
            other => {
                return Err(EvalError::new(format!(
                    "cannot pack a {} into an Any",
                    other.type_name()
                )))
            }
        };
        let ty = self
            .pool
            .get_message_by_name(wrapper)
            .ok_or_else(|| EvalError::new(format!("{wrapper} is not in the pool")))?;
        let message = self.message(&ty, v)?.unwrap_or_else(|| DynamicMessage::new(ty));
        Ok((wrapper.into(), message.encode_to_vec()))
    }
}

/// The largest integer a double holds exactly (JSON numbers beyond it are
/// written as strings).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A message as the CEL value of its proto3 JSON form (a `FieldMask` is
/// its string, an `Empty` an empty map).
#[cfg(feature = "json")]
fn message_as_json(m: &dyn Reflect) -> Result<Value<'static>, EvalError> {
    let json = copy(m).to_json().map_err(|e| EvalError::new(e.to_string()))?;
    let parsed: serde_json::Value = serde_json::from_str(&json).map_err(|e| EvalError::new(e.to_string()))?;
    Ok(from_json(&parsed))
}

#[cfg(not(feature = "json"))]
fn message_as_json(m: &dyn Reflect) -> Result<Value<'static>, EvalError> {
    Err(EvalError::new(format!(
        "{} as a google.protobuf.Value needs fastrs's `json` feature",
        m.descriptor().full_name()
    )))
}

#[cfg(feature = "json")]
fn from_json(j: &serde_json::Value) -> Value<'static> {
    match j {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Double(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::string(s.as_str()),
        serde_json::Value::Array(a) => Value::list(a.iter().map(from_json).collect()),
        serde_json::Value::Object(o) => Value::map(
            o.iter()
                .map(|(k, v)| (Value::string(k.as_str()), from_json(v)))
                .collect(),
        ),
    }
}

fn unsupported(field: &FieldDescriptor, value: &Value<'_>) -> EvalError {
    EvalError::new(format!(
        "unsupported field type: cannot set field {} to a {}",
        field.full_name(),
        value.type_name()
    ))
}
