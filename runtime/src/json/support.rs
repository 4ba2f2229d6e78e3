//! What generated JSON code calls (through `fastrs::__private::json`):
//! objects read field by field, lists, maps and oneofs.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::codec::{JsonCodec, JsonKey, ListSeed, MapSeed, SingleSeed};
use super::read::Read;
use super::JsonOptions;
use crate::Message;

/// The fields of a generated message, for [`read_object`].
pub trait JsonFields: Message {
    /// The number of the field with this JSON name or proto name.
    fn json_field(name: &str) -> Option<u32>;

    /// Parses the value of field `number` from `map` into `self`.
    ///
    /// # Errors
    /// The value is not the field's JSON, or sets a oneof that is already set.
    fn json_merge_field<'de, A: MapAccess<'de>>(
        &mut self,
        number: u32,
        map: &mut A,
        options: JsonOptions,
    ) -> Result<(), A::Error>;

    /// Parses the value of `key` into `self` if it names an extension of
    /// the message (`"[full.name]"`): the extension's number, or `None`
    /// with the value left unread. Messages that declare extension ranges
    /// override it, calling the runtime's `read_extension`.
    ///
    /// # Errors
    /// The value is not the extension's JSON.
    fn json_merge_extension<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
        options: JsonOptions,
    ) -> Result<Option<u32>, A::Error> {
        let _ = (key, map, options);
        Ok(None)
    }
}

/// Parses a JSON object into a generated message, field by field.
///
/// # Errors
/// Not an object (or `null`), an unknown field name unless ignored, or a bad
/// field value.
pub fn read_object<'de, M: JsonFields, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<M>, D::Error> {
    de.deserialize_any(ObjectVisitor::<M> {
        options,
        _message: PhantomData,
    })
}

/// `serde::Deserialize` for a generated message: [`read_object`] with the
/// default options; `null` is an error.
///
/// # Errors
/// As [`read_object`].
pub fn deserialize_object<'de, M: JsonFields, D: Deserializer<'de>>(de: D) -> Result<M, D::Error> {
    match read_object(de, JsonOptions::new())? {
        Read::Value(m) => Ok(m),
        Read::Null | Read::Skip => Err(de::Error::custom(format_args!(
            "expected a JSON object for {}, found null",
            M::FULL_NAME
        ))),
    }
}

/// Reads the next map value as one value of codec `C`, for field `field`.
///
/// # Errors
/// The value is not a `C` value.
#[inline]
pub fn next_value<'de, C: JsonCodec, A: MapAccess<'de>>(
    map: &mut A,
    options: JsonOptions,
    field: &'static str,
) -> Result<Read<C::Value>, A::Error> {
    map.next_value_seed(SingleSeed::<C>::new(options, field))
}

/// Reads the next map value as a JSON array, appending to `target`.
///
/// # Errors
/// Not an array (or `null`), or an element is not a `C` value.
pub fn next_list<'de, C: JsonCodec, A: MapAccess<'de>>(
    map: &mut A,
    target: &mut alloc::vec::Vec<C::Value>,
    options: JsonOptions,
    field: &'static str,
) -> Result<(), A::Error> {
    map.next_value_seed(ListSeed::<C>::new(target, options, field))
}

/// Reads the next map value as a JSON object of map entries, inserting into
/// `target`.
///
/// # Errors
/// Not an object (or `null`), a key that is not a `K`, or a value that is not
/// a `V`.
pub fn next_map<'de, K, V, M, A>(
    map: &mut A,
    target: &mut M,
    options: JsonOptions,
    field: &'static str,
) -> Result<(), A::Error>
where
    K: JsonKey,
    V: JsonCodec,
    M: Extend<(K::Value, V::Value)>,
    A: MapAccess<'de>,
{
    map.next_value_seed(MapSeed::<K, V, M>::new(target, options, field))
}

/// The error for a oneof given a second member.
#[must_use]
pub fn oneof_set_twice<E: de::Error>(message: &str, oneof: &str) -> E {
    E::custom(format_args!("oneof `{oneof}` of {message} is set more than once"))
}

struct ObjectVisitor<M> {
    options: JsonOptions,
    _message: PhantomData<M>,
}

impl<'de, M: JsonFields> Visitor<'de> for ObjectVisitor<M> {
    type Value = Read<M>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object for {}", M::FULL_NAME)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<M>, E> {
        Ok(Read::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read<M>, A::Error> {
        let mut message = M::default();
        let mut seen = SeenFields::default();
        while let Some(key) = map.next_key_seed(FieldKey::<M>(PhantomData))? {
            match key {
                Ok(number) if !seen.insert(number) => {
                    return Err(de::Error::custom(format_args!(
                        "field {number} of {} appears more than once",
                        M::FULL_NAME
                    )))
                }
                Ok(number) => message.json_merge_field(number, &mut map, self.options)?,
                Err(key) => match message.json_merge_extension(&key, &mut map, self.options)? {
                    Some(number) if !seen.insert(number) => {
                        return Err(de::Error::custom(format_args!("{key} appears more than once")));
                    }
                    Some(_) => {}
                    None if self.options.ignore_unknown_fields => {
                        map.next_value::<IgnoredAny>()?;
                    }
                    None => {
                        return Err(de::Error::custom(format_args!(
                            "unknown field `{key}` in {}",
                            M::FULL_NAME
                        )))
                    }
                },
            }
        }
        Ok(Read::Value(message))
    }
}

/// The field numbers an object has given so far: a field may appear once, under
/// either of its names. Numbers up to 128 cost a bit; larger ones are listed.
#[derive(Default)]
struct SeenFields {
    low: u128,
    high: alloc::vec::Vec<u32>,
}

impl SeenFields {
    /// Records `number`; false if it was already there.
    fn insert(&mut self, number: u32) -> bool {
        if let Some(bit) = number.checked_sub(1).filter(|n| *n < 128) {
            let had = self.low & (1 << bit) != 0;
            self.low |= 1 << bit;
            return !had;
        }
        if self.high.contains(&number) {
            return false;
        }
        self.high.push(number);
        true
    }
}

/// A field name: its number, or the unknown name (allocated only then).
struct FieldKey<M>(PhantomData<M>);

impl<'de, M: JsonFields> DeserializeSeed<'de> for FieldKey<M> {
    type Value = Result<u32, String>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, M: JsonFields> Visitor<'de> for FieldKey<M> {
    type Value = Result<u32, String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a field name of {}", M::FULL_NAME)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(M::json_field(name).ok_or_else(|| name.to_owned()))
    }
}
