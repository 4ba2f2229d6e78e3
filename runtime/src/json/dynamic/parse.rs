//! JSON to dynamic messages in one pass: serde's deserializer (of text, or
//! of a tree for the messages inside `Any`) drives the pool's tables, and
//! values go straight into their messages. Only `Any` (its `@type` may come
//! last) and the well-known types with a JSON form of their own (read by
//! their generated code) are read as a tree first
//! ([`message_from_json`]).

use core::fmt;
use std::boxed::Box;
use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec::Vec;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value as Json;

use super::has_own_form;
use super::strict::{self, Strict};
use crate::json::codec::Number;
use crate::json::read::Read;
use crate::json::{base64, JsonMessage, JsonOptions};
use crate::reflect::pool::{Cardinality, FieldData, Tables, Ty};
use crate::reflect::{DescriptorPool, DynamicMessage, FieldDescriptor, MapKey, MessageDescriptor, Value};
use crate::well_known as wk;

/// Parses `text` as one message of type `descriptor`.
pub(super) fn parse(
    descriptor: &MessageDescriptor,
    text: &str,
    options: JsonOptions,
) -> Result<DynamicMessage, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let message = Message::new(descriptor, options).deserialize(&mut de)?;
    de.end()?;
    Ok(message)
}

/// A seed read from a JSON string (an object key) by itself as the visitor.
macro_rules! string_seed {
    ($seed:ident, $value:ty) => {
        impl<'de> DeserializeSeed<'de> for $seed<'_> {
            type Value = $value;

            fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<$value, D::Error> {
                de.deserialize_str(self)
            }
        }
    };
}

/// Reads `json`, a tree already parsed, as a message of type `descriptor`
/// by the same seeds (for the messages inside `Any`).
fn from_tree(
    descriptor: &MessageDescriptor,
    json: &serde_json::Value,
    options: JsonOptions,
) -> Result<DynamicMessage, serde_json::Error> {
    Message::new(descriptor, options).deserialize(json)
}

/// The JSON value of a well-known type with a form of its own, read as a
/// tree for its generated type. A key given twice keeps its last value, as
/// the generated code does (`Struct` is a map).
fn tree<'de, D: Deserializer<'de>>(de: D) -> Result<serde_json::Value, D::Error> {
    serde_json::Value::deserialize(de)
}

/// A message of type `descriptor`: a JSON object of its fields.
struct Message<'a> {
    descriptor: &'a MessageDescriptor,
    options: JsonOptions,
    /// The message is held by an `Any` whose `@type` came first: a second
    /// `@type` among its fields is an error, even where unknown fields are
    /// ignored.
    in_any: bool,
}

impl<'a> Message<'a> {
    fn new(descriptor: &'a MessageDescriptor, options: JsonOptions) -> Self {
        Message {
            descriptor,
            options,
            in_any: false,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Message<'_> {
    type Value = DynamicMessage;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<DynamicMessage, D::Error> {
        let name = self.descriptor.full_name();
        let null = || de::Error::custom(format_args!("expected a JSON object for {name}, found null"));
        if name == "google.protobuf.Any" {
            let seed = AnySeed {
                pool: self.descriptor.pool(),
                options: self.options,
            };
            return match seed.deserialize(de)? {
                AnyJson::Null => Err(null()),
                AnyJson::Parts(parts) => any_message(self.descriptor, parts).map_err(de::Error::custom),
            };
        }
        if has_own_form(name) {
            let json = tree(de)?;
            if json.is_null() {
                return Err(null());
            }
            return message_from_json(self.descriptor, json, self.options).map_err(de::Error::custom);
        }
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Message<'_> {
    type Value = DynamicMessage;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object for {}", self.descriptor.full_name())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DynamicMessage, A::Error> {
        let mut message = DynamicMessage::new(self.descriptor.clone());
        let pool = self.descriptor.pool();
        let data = self.descriptor.data();
        let mut seen = Seen::default();
        let key = Key {
            descriptor: self.descriptor,
            ignore_unknown: self.options.ignore_unknown_fields,
            in_any: self.in_any,
        };
        while let Some(found) = map.next_key_seed(key.clone())? {
            let (index, field_data, extension) = match &found {
                Found::Field(i) => (*i, &data.fields[*i as usize], None),
                Found::Extension(ext) => (u32::MAX - ext.index(), ext.data(), Some(ext)),
                Found::Unknown => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if !seen.insert(index) {
                return Err(de::Error::custom(format_args!(
                    "field {} is given twice",
                    field_data.full_name
                )));
            }
            let seed = Field {
                pool,
                field: field_data,
                options: self.options,
            };
            let Some(value) = map.next_value_seed(seed)? else {
                continue;
            };
            if let Some(ext) = extension {
                message.set(ext, value).map_err(de::Error::custom)?;
                continue;
            }
            if let Some(other) = message.oneof_rival(index) {
                return Err(de::Error::custom(format_args!(
                    "oneof {} is set twice (by {})",
                    data.oneofs[field_data.oneof.unwrap_or_default() as usize].name,
                    data.fields[other as usize].name
                )));
            }
            message.set_parsed(index, value);
        }
        Ok(message)
    }
}

/// The fields an object gave, by index (extensions from `u32::MAX` down).
#[derive(Default)]
struct Seen {
    /// Indices below 64.
    low: u64,
    rest: Vec<u32>,
}

impl Seen {
    /// False if `index` was seen before.
    fn insert(&mut self, index: u32) -> bool {
        if index < 64 {
            let bit = 1 << index;
            let new = self.low & bit == 0;
            self.low |= bit;
            return new;
        }
        if self.rest.contains(&index) {
            return false;
        }
        self.rest.push(index);
        true
    }
}

/// What an object's key names.
enum Found {
    /// The field of this index.
    Field(u32),
    /// An extension of the type (`[full.name]`).
    Extension(FieldDescriptor),
    /// Nothing, and unknown fields are ignored.
    Unknown,
}

/// An object key of a message of type `descriptor`: a field's JSON name,
/// its proto name, or `[full.name]` for an extension.
#[derive(Clone)]
struct Key<'a> {
    descriptor: &'a MessageDescriptor,
    ignore_unknown: bool,
    /// See [`Message::in_any`].
    in_any: bool,
}

string_seed!(Key, Found);

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Found;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a field name of {}", self.descriptor.full_name())
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Found, E> {
        let data = self.descriptor.data();
        let by_json = data.fields.iter().position(|f| f.json_name == key);
        if let Some(at) = by_json.or_else(|| data.fields.iter().position(|f| f.name == key)) {
            return Ok(Found::Field(u32::try_from(at).unwrap_or(u32::MAX)));
        }
        if self.in_any && key == "@type" {
            return Err(E::custom("google.protobuf.Any gives `@type` twice"));
        }
        let extension = key
            .strip_prefix('[')
            .and_then(|k| k.strip_suffix(']'))
            .and_then(|name| self.descriptor.pool().get_extension_by_name(name))
            .filter(|ext| ext.containing_message() == *self.descriptor);
        match extension {
            Some(ext) => Ok(Found::Extension(ext)),
            None if self.ignore_unknown => Ok(Found::Unknown),
            None => Err(E::custom(format_args!(
                "{} has no field named \"{key}\"",
                self.descriptor.full_name()
            ))),
        }
    }
}

/// A field's value: a map, a list or one value; `None` where the field
/// stays unset (JSON `null`, an unknown enum name ignored).
pub(crate) struct Field<'a> {
    pool: &'a DescriptorPool,
    field: &'a FieldData,
    options: JsonOptions,
}

/// The parser of `field`'s value (for generated messages' extensions).
pub(crate) fn field_seed<'a>(pool: &'a DescriptorPool, field: &'a FieldDescriptor, options: JsonOptions) -> Field<'a> {
    Field {
        pool,
        field: field.data(),
        options,
    }
}

impl<'de> DeserializeSeed<'de> for Field<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<Value>, D::Error> {
        let tables = self.pool.tables();
        if self.field.is_map_in(tables) {
            return de.deserialize_any(MapField(self));
        }
        if self.field.cardinality == Cardinality::Repeated {
            return de.deserialize_any(ListField(self));
        }
        Single {
            pool: self.pool,
            field: self.field,
            options: self.options,
            within: None,
        }
        .deserialize(de)
    }
}

/// A map field: an object of its entries.
struct MapField<'a>(Field<'a>);

impl<'de> Visitor<'de> for MapField<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object for map field {}", self.0.field.full_name)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let Field { pool, field, options } = self.0;
        let entry = pool
            .tables()
            .message_of(field)
            .ok_or_else(|| de::Error::custom("a map's type is its entry"))?;
        let (Some(key_field), Some(value_field)) = (entry.field(1), entry.field(2)) else {
            return Err(de::Error::custom("a map entry has a key and a value"));
        };
        let mut entries = BTreeMap::new();
        while let Some(key) = map.next_key_seed(EntryKey { map: field, key_field })? {
            let seed = Single {
                pool,
                field: value_field,
                options,
                within: Some(field),
            };
            let Some(value) = map.next_value_seed(seed)? else {
                continue;
            };
            // A key given twice keeps its last value, as generated code does.
            entries.insert(key, value);
        }
        Ok(Some(Value::Map(entries)))
    }
}

/// A map entry's key, from its JSON object key.
struct EntryKey<'a> {
    map: &'a FieldData,
    key_field: &'a FieldData,
}

string_seed!(EntryKey, MapKey);

impl<'de> Visitor<'de> for EntryKey<'_> {
    type Value = MapKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a key of map field {}", self.map.full_name)
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<MapKey, E> {
        map_key(self.key_field, key).ok_or_else(|| {
            E::custom(format_args!(
                "\"{key}\" is not a key of map field {}",
                self.map.full_name
            ))
        })
    }
}

/// A repeated field: an array of its values.
struct ListField<'a>(Field<'a>);

impl<'de> Visitor<'de> for ListField<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array for repeated field {}", self.0.field.full_name)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        if null_is_value(self.0.pool.tables(), self.0.field) {
            return Err(E::invalid_type(de::Unexpected::Unit, &self));
        }
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let Field { pool, field, options } = self.0;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let seed = || Single {
            pool,
            field,
            options,
            within: Some(field),
        };
        while let Some(item) = seq.next_element_seed(seed())? {
            items.extend(item);
        }
        Ok(Some(Value::List(items)))
    }
}

/// One value of `field`'s type. `within` is the repeated or map field it
/// is an element of, where `null` is an error (but for the types whose
/// `null` is a value).
struct Single<'a> {
    pool: &'a DescriptorPool,
    field: &'a FieldData,
    options: JsonOptions,
    within: Option<&'a FieldData>,
}

impl<'de> DeserializeSeed<'de> for Single<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<Value>, D::Error> {
        let Ty::Message(m) = self.field.ty else {
            return de.deserialize_any(self);
        };
        let descriptor = MessageDescriptor::new(self.pool, m);
        let name = descriptor.full_name();
        if name == "google.protobuf.Any" {
            let seed = AnySeed {
                pool: self.pool,
                options: self.options,
            };
            return match seed.deserialize(de)? {
                AnyJson::Null => self.null(),
                AnyJson::Parts(parts) => {
                    let any = any_message(&descriptor, parts).map_err(de::Error::custom)?;
                    Ok(Some(Value::Message(Box::new(any))))
                }
            };
        }
        if !has_own_form(name) {
            return de.deserialize_any(MessageOrNull {
                single: self,
                descriptor: &descriptor,
            });
        }
        let json = tree(de)?;
        if json.is_null() && !null_is_value(self.pool.tables(), self.field) {
            return self.null();
        }
        let message = message_from_json(&descriptor, json, self.options).map_err(de::Error::custom)?;
        Ok(Some(Value::Message(Box::new(message))))
    }
}

impl Single<'_> {
    /// JSON `null` where it is not a value: the field stays unset, or in a
    /// list or map, an error.
    fn null<E: de::Error>(&self) -> Result<Option<Value>, E> {
        match self.within {
            None => Ok(None),
            Some(within) if within.is_map_in(self.pool.tables()) => {
                Err(E::custom(format_args!("null inside map field {}", within.full_name)))
            }
            Some(within) => Err(E::custom(format_args!(
                "null inside repeated field {}",
                within.full_name
            ))),
        }
    }

    /// A number (JSON number or string) of the field's numeric type.
    fn number<E: de::Error>(
        &self,
        read: impl Fn(Ty) -> Option<Value>,
        shown: impl fmt::Display,
    ) -> Result<Option<Value>, E> {
        match self.field.ty {
            Ty::Enum(_) => {}
            ty => {
                return read(ty).map(Some).ok_or_else(|| self.mismatch(shown));
            }
        }
        // An enum by number: a closed enum must name it.
        let tables = self.pool.tables();
        let number = match read(Ty::Int32) {
            Some(Value::I32(n)) => Some(n),
            _ => None,
        };
        let e = tables.enum_of(self.field);
        match (number, e) {
            (Some(n), Some(e)) if !e.closed || e.name_of(n).is_some() => Ok(Some(Value::EnumNumber(n))),
            _ => Err(self.mismatch(shown)),
        }
    }

    fn mismatch<E: de::Error>(&self, shown: impl fmt::Display) -> E {
        E::custom(format_args!("{shown} is not a value of field {}", self.field.full_name))
    }
}

/// A number of type `ty`, by `read` (one of [`Number`]'s constructors).
fn numeric(ty: Ty, read: Reader<'_>) -> Option<Value> {
    Some(match ty {
        Ty::Int32 | Ty::Sint32 | Ty::Sfixed32 => Value::I32(read.get()?),
        Ty::Int64 | Ty::Sint64 | Ty::Sfixed64 => Value::I64(read.get()?),
        Ty::Uint32 | Ty::Fixed32 => Value::U32(read.get()?),
        Ty::Uint64 | Ty::Fixed64 => Value::U64(read.get()?),
        Ty::Float => Value::F32(read.get()?),
        Ty::Double => Value::F64(read.get()?),
        _ => return None,
    })
}

/// A JSON number or string, to read as any [`Number`].
#[derive(Clone, Copy)]
enum Reader<'a> {
    I64(i64),
    U64(u64),
    F64(f64),
    Text(&'a str),
}

impl Reader<'_> {
    fn get<T: Number>(self) -> Option<T> {
        match self {
            Reader::I64(v) => T::from_i64(v),
            Reader::U64(v) => T::from_u64(v),
            Reader::F64(v) => T::from_f64(v),
            Reader::Text(text) => T::from_text(text),
        }
    }
}

impl<'de> Visitor<'de> for Single<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of field {}", self.field.full_name)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        if null_is_value(self.pool.tables(), self.field) {
            return Ok(Some(Value::EnumNumber(0)));
        }
        self.null()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<Value>, E> {
        match self.field.ty {
            Ty::Bool => Ok(Some(Value::Bool(v))),
            _ => Err(self.mismatch(v)),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Value>, E> {
        self.number(|ty| numeric(ty, Reader::I64(v)), v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Value>, E> {
        self.number(|ty| numeric(ty, Reader::U64(v)), v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Value>, E> {
        self.number(|ty| numeric(ty, Reader::F64(v)), v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Value>, E> {
        let shown = format_args!("\"{v}\"");
        match self.field.ty {
            Ty::String => Ok(Some(Value::String(v.into()))),
            Ty::Bytes => base64::decode(v)
                .map(|bytes| Some(Value::Bytes(bytes)))
                .ok_or_else(|| self.mismatch(shown)),
            Ty::Enum(_) => self.enum_named(v),
            Ty::Bool | Ty::Message(_) => Err(self.mismatch(shown)),
            _ => self.number(|ty| numeric(ty, Reader::Text(v)), shown),
        }
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<Value>, E> {
        match self.field.ty {
            Ty::String => Ok(Some(Value::String(v))),
            _ => self.visit_str(&v),
        }
    }
}

impl Single<'_> {
    /// An enum value by name; `None` for an unknown name when unknown
    /// fields are ignored.
    fn enum_named<E: de::Error>(&self, name: &str) -> Result<Option<Value>, E> {
        let e = self.pool.tables().enum_of(self.field);
        match e.and_then(|e| e.number_of(name)) {
            Some(n) => Ok(Some(Value::EnumNumber(n))),
            None if self.options.ignore_unknown_fields => Ok(None),
            None => Err(E::custom(format_args!(
                "\"{name}\" is not a value of enum {}",
                e.map_or("?", |e| e.full_name.as_str())
            ))),
        }
    }
}

/// A message field's value: an object, or `null` (unset).
struct MessageOrNull<'a, 'b> {
    single: Single<'a>,
    descriptor: &'b MessageDescriptor,
}

impl<'de> Visitor<'de> for MessageOrNull<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object for {}", self.descriptor.full_name())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        self.single.null()
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        let message = Message::new(self.descriptor, self.single.options);
        Ok(Some(Value::Message(Box::new(message.visit_map(map)?))))
    }
}

/// Parses `json` as a message of type `descriptor`: `Any` and the own
/// forms here, every other type by the one-pass parser, reading the tree.
pub(crate) fn message_from_json(
    descriptor: &MessageDescriptor,
    json: Json,
    options: JsonOptions,
) -> Result<DynamicMessage, String> {
    let name = descriptor.full_name();
    if name == "google.protobuf.Any" {
        return any_from_json(descriptor, json, options);
    }
    if has_own_form(name) {
        let bytes = own_form(name, json, options)?;
        return DynamicMessage::decode(descriptor.clone(), &bytes).map_err(|e| e.to_string());
    }
    from_tree(descriptor, &json, options).map_err(|e| e.to_string())
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

/// `{"@type": url, ...}` read as a tree: the fields of the type named by
/// the URL (or its own form under `"value"`), encoded into an `Any`.
fn any_from_json(descriptor: &MessageDescriptor, json: Json, options: JsonOptions) -> Result<DynamicMessage, String> {
    any_message(descriptor, any_from_json_parts(descriptor.pool(), json, options)?)
}

/// An `Any` of type `descriptor` holding `parts` (its type URL and the
/// held message's encoding; `None` for the empty `Any`).
fn any_message(descriptor: &MessageDescriptor, parts: Option<(String, Vec<u8>)>) -> Result<DynamicMessage, String> {
    let mut any = DynamicMessage::new(descriptor.clone());
    if let Some((url, value)) = parts {
        any.set_by_name("type_url", Value::String(url))
            .map_err(|e| e.to_string())?;
        any.set_by_name("value", Value::Bytes(value))
            .map_err(|e| e.to_string())?;
    }
    Ok(any)
}

/// The URL and the encoding of the message an `Any` holds, from the
/// fields beside its `@type` (read whole), the type found in `pool`.
fn held(
    pool: &DescriptorPool,
    url: String,
    mut fields: serde_json::Map<String, Json>,
    options: JsonOptions,
) -> Result<(String, Vec<u8>), String> {
    let name = type_name(&url);
    let Some(ty) = pool.get_message_by_name(name) else {
        return Err(super::unknown_type(name));
    };
    let held = if has_own_form(name) || name == "google.protobuf.Any" {
        let value = fields.remove("value").unwrap_or(Json::Null);
        if let Some(other) = fields.keys().next() {
            return Err(std::format!(
                "unexpected field `{other}` beside `@type` and `value` for {name}"
            ));
        }
        message_from_json(&ty, value, options)?
    } else {
        if name == "google.protobuf.Empty" && fields.get("value") == Some(&Json::Object(serde_json::Map::new())) {
            // fastrs before 0.2 printed an Empty under "value"; still read it.
            fields.remove("value");
        }
        message_from_json(&ty, Json::Object(fields), options)?
    };
    Ok((url, held.encode_to_vec()))
}

/// The full name in a type URL (what follows its last `/`).
fn type_name(url: &str) -> &str {
    url.rsplit_once('/').map_or(url, |(_, name)| name)
}

/// What an `Any`'s JSON gives.
pub(crate) enum AnyJson {
    /// `null`.
    Null,
    /// Its type URL and the held message's encoding; `None` for `{}`.
    Parts(Option<(String, Vec<u8>)>),
}

/// An `Any` from JSON, its types found in `pool`. When `@type` comes
/// first, as printers put it, the held message streams through the
/// one-pass parser; otherwise (and for the types with a form of their own,
/// and `Empty`'s old form) the object is read whole first. A key given
/// twice is refused either way. Generated code's `Any` parses here too,
/// with the process's pool.
pub(crate) struct AnySeed<'a> {
    pub(crate) pool: &'a DescriptorPool,
    pub(crate) options: JsonOptions,
}

impl<'de> DeserializeSeed<'de> for AnySeed<'_> {
    type Value = AnyJson;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<AnyJson, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnySeed<'_> {
    type Value = AnyJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object for google.protobuf.Any")
    }

    fn visit_unit<E: de::Error>(self) -> Result<AnyJson, E> {
        Ok(AnyJson::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyJson, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Ok(AnyJson::Parts(None));
        };
        let Strict(value) = map.next_value()?;
        let url = match value {
            Json::String(url) if first == "@type" => url,
            value => {
                // `@type` later, or not at all: the object whole.
                let object = strict::rest_of_object(&mut map, serde_json::Map::from_iter([(first, value)]))?;
                let any = any_from_json_parts(self.pool, Json::Object(object), self.options);
                return any.map(AnyJson::Parts).map_err(de::Error::custom);
            }
        };
        let name = type_name(&url);
        let streams = !has_own_form(name) && name != "google.protobuf.Any" && name != "google.protobuf.Empty";
        let ty = match self.pool.get_message_by_name(name) {
            Some(ty) if streams => ty,
            _ => {
                let first = serde_json::Map::from_iter([("@type".into(), Json::String(url))]);
                let object = strict::rest_of_object(&mut map, first)?;
                let any = any_from_json_parts(self.pool, Json::Object(object), self.options);
                return any.map(AnyJson::Parts).map_err(de::Error::custom);
            }
        };
        let message = Message {
            descriptor: &ty,
            options: self.options,
            in_any: true,
        };
        let held = message.visit_map(map)?;
        Ok(AnyJson::Parts(Some((url, held.encode_to_vec()))))
    }
}

/// [`AnyJson::Parts`] of an `Any`'s object read whole.
fn any_from_json_parts(
    pool: &DescriptorPool,
    json: Json,
    options: JsonOptions,
) -> Result<Option<(String, Vec<u8>)>, String> {
    let Json::Object(mut fields) = json else {
        return Err(std::format!(
            "expected a JSON object for google.protobuf.Any, found {json}"
        ));
    };
    match fields.remove("@type") {
        Some(Json::String(url)) => held(pool, url, fields, options).map(Some),
        Some(other) => Err(std::format!("`@type` must be a string, not {other}")),
        None if fields.is_empty() => Ok(None),
        None => Err("google.protobuf.Any needs an `@type`".into()),
    }
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
