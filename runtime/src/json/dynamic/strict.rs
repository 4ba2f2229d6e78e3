//! JSON to a `serde_json::Value` (for `Any` and the well-known types with
//! a form of their own), refusing an object that repeats a
//! key (`serde_json::Value` keeps the last silently; protobuf's parsers
//! reject the input).

use std::string::String;
use std::vec::Vec;

use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value, parsed strictly.
pub(super) struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.into()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        rest_of_object(&mut map, Map::new()).map(Value::Object)
    }
}

/// The entries left in `map`, parsed strictly, added to `object` (the
/// entries already read): a key given twice is refused.
pub(super) fn rest_of_object<'de, A: MapAccess<'de>>(
    map: &mut A,
    mut object: Map<String, Value>,
) -> Result<Map<String, Value>, A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        let Strict(value) = map.next_value()?;
        if object.contains_key(&key) {
            return Err(de::Error::custom(format_args!(
                "the key \"{key}\" appears twice in one object"
            )));
        }
        object.insert(key, value);
    }
    Ok(object)
}
