//! The JSON form of each codec's values, and the wrappers and seeds generated
//! code uses to write and read fields, lists and maps.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};

use super::read::Read;
use super::{base64, JsonMessage, JsonOptions};
use crate::codec::{
    Bool, Bytes, ClosedEnum, Codec, Double, Fixed32, Fixed64, Float, Group, Int32, Int64, LaxStr, Msg, OpenEnum,
    Sfixed32, Sfixed64, Sint32, Sint64, Str, Uint32, Uint64,
};
use crate::{Enum, EnumValue, LaxString};

/// A codec whose values have a proto3 JSON form.
pub trait JsonCodec: Codec {
    /// Writes one value.
    ///
    /// # Errors
    /// The value has no JSON form, or the serializer failed.
    fn write_json<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error>;

    /// Reads one value of the field named `field` (for error messages).
    ///
    /// # Errors
    /// The JSON is not a value of this type.
    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<Self::Value>, D::Error>;
}

/// A codec whose values can be map keys: JSON object keys are strings.
pub trait JsonKey: Codec {
    /// Writes a value as a key.
    ///
    /// # Errors
    /// The serializer failed.
    fn write_key<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error>;

    /// The value a key spells, if it spells one.
    fn parse_key(key: &str) -> Option<Self::Value>;
}

/// Serializes one field value with codec `C`.
pub struct Single<'a, C: Codec>(pub &'a C::Value);

impl<C: JsonCodec> Serialize for Single<'_, C> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        C::write_json(self.0, s)
    }
}

/// Serializes a repeated field as a JSON array.
pub struct List<'a, C: Codec>(pub &'a [C::Value]);

impl<C: JsonCodec> Serialize for List<'_, C> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Single::<C>))
    }
}

/// Serializes a map field (given as an iterator of its entries) as a JSON object.
pub struct MapOf<K, V, I> {
    entries: I,
    _codecs: PhantomData<(K, V)>,
}

impl<K, V, I> MapOf<K, V, I> {
    /// Wraps the entries.
    pub fn new(entries: I) -> Self {
        Self {
            entries,
            _codecs: PhantomData,
        }
    }
}

impl<'m, K, V, I> Serialize for MapOf<K, V, I>
where
    K: JsonKey<Value: 'm>,
    V: JsonCodec<Value: 'm>,
    I: Iterator<Item = (&'m K::Value, &'m V::Value)> + Clone,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries.clone().map(|(k, v)| (Key::<K>(k), Single::<V>(v))))
    }
}

struct Key<'a, K: Codec>(&'a K::Value);

impl<K: JsonKey> Serialize for Key<'_, K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        K::write_key(self.0, s)
    }
}

/// Reads one field value with codec `C`.
pub struct SingleSeed<C> {
    options: JsonOptions,
    field: &'static str,
    _codec: PhantomData<C>,
}

impl<C> SingleSeed<C> {
    /// A seed for the field named `field`.
    #[must_use]
    pub fn new(options: JsonOptions, field: &'static str) -> Self {
        Self {
            options,
            field,
            _codec: PhantomData,
        }
    }
}

impl<'de, C: JsonCodec> DeserializeSeed<'de> for SingleSeed<C> {
    type Value = Read<C::Value>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        C::read_json(de, self.options, self.field)
    }
}

/// Appends a JSON array's elements to a repeated field (`null` adds nothing).
pub struct ListSeed<'a, C: Codec> {
    target: &'a mut alloc::vec::Vec<C::Value>,
    options: JsonOptions,
    field: &'static str,
}

impl<'a, C: Codec> ListSeed<'a, C> {
    /// A seed appending to `target`, the field named `field`.
    pub fn new(target: &'a mut alloc::vec::Vec<C::Value>, options: JsonOptions, field: &'static str) -> Self {
        Self { target, options, field }
    }
}

impl<'de, C: JsonCodec> DeserializeSeed<'de> for ListSeed<'_, C> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de, C: JsonCodec> Visitor<'de> for ListSeed<'_, C> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON array for field `{}`", self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(element) = seq.next_element_seed(SingleSeed::<C>::new(self.options, self.field))? {
            match element {
                Read::Value(v) => self.target.push(v),
                Read::Skip => {}
                Read::Null => return Err(null_inside(self.field)),
            }
        }
        Ok(())
    }
}

/// Inserts a JSON object's entries into a map field (`null` adds nothing).
pub struct MapSeed<'a, K, V, M> {
    target: &'a mut M,
    options: JsonOptions,
    field: &'static str,
    _codecs: PhantomData<(K, V)>,
}

impl<'a, K, V, M> MapSeed<'a, K, V, M> {
    /// A seed inserting into `target`, the field named `field`.
    pub fn new(target: &'a mut M, options: JsonOptions, field: &'static str) -> Self {
        Self {
            target,
            options,
            field,
            _codecs: PhantomData,
        }
    }
}

impl<'de, K, V, M> DeserializeSeed<'de> for MapSeed<'_, K, V, M>
where
    K: JsonKey,
    V: JsonCodec,
    M: Extend<(K::Value, V::Value)>,
{
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de, K, V, M> Visitor<'de> for MapSeed<'_, K, V, M>
where
    K: JsonKey,
    V: JsonCodec,
    M: Extend<(K::Value, V::Value)>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON object for map field `{}`", self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let key_seed = KeySeed::<K> {
            field: self.field,
            _codec: PhantomData,
        };
        while let Some(key) = map.next_key_seed(key_seed.clone())? {
            match map.next_value_seed(SingleSeed::<V>::new(self.options, self.field))? {
                Read::Value(v) => self.target.extend(core::iter::once((key, v))),
                Read::Skip => {}
                Read::Null => return Err(null_inside(self.field)),
            }
        }
        Ok(())
    }
}

struct KeySeed<K> {
    field: &'static str,
    _codec: PhantomData<K>,
}

impl<K> Clone for KeySeed<K> {
    fn clone(&self) -> Self {
        Self {
            field: self.field,
            _codec: PhantomData,
        }
    }
}

impl<'de, K: JsonKey> DeserializeSeed<'de> for KeySeed<K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, K: JsonKey> Visitor<'de> for KeySeed<K> {
    type Value = K::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a key of map field `{}`", self.field)
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<K::Value, E> {
        K::parse_key(key).ok_or_else(|| E::custom(format_args!("invalid key `{key}` in map field `{}`", self.field)))
    }
}

fn null_inside<E: de::Error>(field: &str) -> E {
    E::custom(format_args!("null is not a valid element of field `{field}`"))
}

// ---- Numbers ----------------------------------------------------------------

/// A Rust number type of a numeric protobuf type, read from JSON numbers or
/// strings.
pub(crate) trait Number: Copy + Sized {
    /// The protobuf type name, for messages.
    const WHAT: &'static str;
    fn from_i64(v: i64) -> Option<Self>;
    fn from_u64(v: u64) -> Option<Self>;
    fn from_f64(v: f64) -> Option<Self>;
    fn from_text(text: &str) -> Option<Self>;
}

/// `v` as an integer, if it is one and every integer of its magnitude is
/// exact in a double (below 2^53). JSON numbers with a fraction or an exponent reach the
/// reader as doubles; beyond 2^53 the double may already be rounded
/// (`9007199254740993.0` reads as `…992`), so such a number is an error
/// rather than a silently different value. Quoted, it is read exactly.
fn integral(v: f64) -> Option<i64> {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    #[allow(clippy::cast_possible_truncation)]
    (v.fract() == 0.0 && v.abs() < TWO_53).then_some(v as i64)
}

/// The exact value of a decimal number in text (`-12`, `1.5e3`, `120e-1`),
/// if it is an integer that fits 64 bits signed or unsigned. No rounding
/// anywhere: digits are shifted by the exponent, and digits shifted below
/// the decimal point must be zeros.
fn exact_integer(text: &str) -> Option<i128> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i32>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let digits = || whole.bytes().chain(fraction.bytes());
    if !digits().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The value is `digits × 10^shift`.
    let shift = i64::from(exponent) - i64::try_from(fraction.len()).ok()?;
    let significant = digits().skip_while(|&b| b == b'0');
    let kept = i64::try_from(significant.clone().count()).ok()? + shift.min(0);
    let mut value: i128 = 0;
    for (i, b) in significant.enumerate() {
        let digit = i128::from(b - b'0');
        if i64::try_from(i).ok()? >= kept {
            if digit != 0 {
                return None; // below the decimal point
            }
        } else {
            value = value.checked_mul(10)?.checked_add(digit)?;
            if value > i128::from(u64::MAX) {
                return None;
            }
        }
    }
    if value != 0 {
        for _ in 0..shift.max(0) {
            value = value.checked_mul(10).filter(|v| *v <= i128::from(u64::MAX))?;
        }
    }
    Some(if negative { -value } else { value })
}

macro_rules! integer {
    ($($ty:ty => $what:literal),*) => {$(
        impl Number for $ty {
            const WHAT: &'static str = $what;
            fn from_i64(v: i64) -> Option<Self> {
                Self::try_from(v).ok()
            }
            fn from_u64(v: u64) -> Option<Self> {
                Self::try_from(v).ok()
            }
            fn from_f64(v: f64) -> Option<Self> {
                Self::from_i64(integral(v)?)
            }
            fn from_text(text: &str) -> Option<Self> {
                // Integers may be quoted, and written as `1e5` or `1.0`.
                Self::try_from(exact_integer(text)?).ok()
            }
        }
    )*};
}

integer!(i32 => "int32", i64 => "int64", u32 => "uint32", u64 => "uint64");

/// `text` as a finite number in decimal notation (Rust's parser also takes
/// `inf` and `nan` spellings, which JSON does not).
fn finite(text: &str) -> Option<f64> {
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some(v)
}

fn special_float(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

impl Number for f64 {
    const WHAT: &'static str = "double";
    #[allow(clippy::cast_precision_loss)]
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f64)
    }
    #[allow(clippy::cast_precision_loss)]
    fn from_u64(v: u64) -> Option<Self> {
        Some(v as f64)
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v)
    }
    fn from_text(text: &str) -> Option<Self> {
        special_float(text).or_else(|| finite(text))
    }
}

impl Number for f32 {
    const WHAT: &'static str = "float";
    #[allow(clippy::cast_precision_loss)]
    fn from_i64(v: i64) -> Option<Self> {
        Some(v as f32)
    }
    #[allow(clippy::cast_precision_loss)]
    fn from_u64(v: u64) -> Option<Self> {
        Some(v as f32)
    }
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64(v: f64) -> Option<Self> {
        // Finite doubles beyond the float range are errors, not infinities.
        let f = v as f32;
        (f.is_finite() || !v.is_finite()).then_some(f)
    }
    fn from_text(text: &str) -> Option<Self> {
        Self::from_f64(special_float(text).or_else(|| finite(text))?)
    }
}

struct NumberVisitor<T> {
    field: &'static str,
    _number: PhantomData<T>,
}

fn read_number<'de, T: Number, D: Deserializer<'de>>(de: D, field: &'static str) -> Result<Read<T>, D::Error> {
    de.deserialize_any(NumberVisitor::<T> {
        field,
        _number: PhantomData,
    })
}

impl<T: Number> NumberVisitor<T> {
    fn check<E: de::Error>(&self, v: Option<T>, shown: impl fmt::Display) -> Result<Read<T>, E> {
        v.map(Read::Value).ok_or_else(|| {
            E::custom(format_args!(
                "{shown} is not a valid {} for field `{}`",
                T::WHAT,
                self.field
            ))
        })
    }
}

impl<'de, T: Number> Visitor<'de> for NumberVisitor<T> {
    type Value = Read<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} (number or string) for field `{}`", T::WHAT, self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<T>, E> {
        Ok(Read::Null)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Read<T>, E> {
        self.check(T::from_i64(v), v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Read<T>, E> {
        self.check(T::from_u64(v), v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Read<T>, E> {
        self.check(T::from_f64(v), v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Read<T>, E> {
        self.check(T::from_text(v), format_args!("\"{v}\""))
    }
}

macro_rules! small_int_codec {
    ($($codec:ty => $ser:ident),*) => {$(
        impl JsonCodec for $codec {
            #[inline]
            fn write_json<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error> {
                s.$ser(*value)
            }
            fn read_json<'de, D: Deserializer<'de>>(
                de: D,
                _: JsonOptions,
                field: &'static str,
            ) -> Result<Read<Self::Value>, D::Error> {
                read_number(de, field)
            }
        }
    )*};
}

small_int_codec!(Int32 => serialize_i32, Sint32 => serialize_i32, Sfixed32 => serialize_i32,
    Uint32 => serialize_u32, Fixed32 => serialize_u32);

macro_rules! int64_codec {
    ($($codec:ty),*) => {$(
        impl JsonCodec for $codec {
            /// 64-bit integers are strings: JavaScript numbers hold 53 bits.
            #[inline]
            fn write_json<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(itoa::Buffer::new().format(*value))
            }
            fn read_json<'de, D: Deserializer<'de>>(
                de: D,
                _: JsonOptions,
                field: &'static str,
            ) -> Result<Read<Self::Value>, D::Error> {
                read_number(de, field)
            }
        }
    )*};
}

int64_codec!(Int64, Sint64, Sfixed64, Uint64, Fixed64);

macro_rules! int_key {
    ($($codec:ty),*) => {$(
        impl JsonKey for $codec {
            fn write_key<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(itoa::Buffer::new().format(*value))
            }
            fn parse_key(key: &str) -> Option<Self::Value> {
                key.parse().ok()
            }
        }
    )*};
}

int_key!(Int32, Sint32, Sfixed32, Uint32, Fixed32, Int64, Sint64, Sfixed64, Uint64, Fixed64);

macro_rules! float_codec {
    ($($codec:ty => $ser:ident),*) => {$(
        impl JsonCodec for $codec {
            fn write_json<S: Serializer>(value: &Self::Value, s: S) -> Result<S::Ok, S::Error> {
                let v = *value;
                if v.is_finite() {
                    s.$ser(v)
                } else if v.is_nan() {
                    s.serialize_str("NaN")
                } else if v > 0.0 {
                    s.serialize_str("Infinity")
                } else {
                    s.serialize_str("-Infinity")
                }
            }
            fn read_json<'de, D: Deserializer<'de>>(
                de: D,
                _: JsonOptions,
                field: &'static str,
            ) -> Result<Read<Self::Value>, D::Error> {
                read_number(de, field)
            }
        }
    )*};
}

float_codec!(Float => serialize_f32, Double => serialize_f64);

// ---- Bool, string, bytes ----------------------------------------------------

/// Reads `bool`, `string` and `bytes` values: what the JSON may be, and how a
/// string becomes the value.
struct TextVisitor<T> {
    field: &'static str,
    _value: PhantomData<T>,
}

impl<T> TextVisitor<T> {
    fn new(field: &'static str) -> Self {
        Self {
            field,
            _value: PhantomData,
        }
    }
}

impl<'de> Visitor<'de> for TextVisitor<bool> {
    type Value = Read<bool>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "true or false for field `{}`", self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<bool>, E> {
        Ok(Read::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Read<bool>, E> {
        Ok(Read::Value(v))
    }
}

impl JsonCodec for Bool {
    #[inline]
    fn write_json<S: Serializer>(value: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(*value)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        _: JsonOptions,
        field: &'static str,
    ) -> Result<Read<bool>, D::Error> {
        de.deserialize_any(TextVisitor::<bool>::new(field))
    }
}

impl JsonKey for Bool {
    fn write_key<S: Serializer>(value: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *value { "true" } else { "false" })
    }

    fn parse_key(key: &str) -> Option<bool> {
        match key {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }
}

impl<'de> Visitor<'de> for TextVisitor<alloc::string::String> {
    type Value = Read<alloc::string::String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string for field `{}`", self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Read::Null)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Read::Value(v.into()))
    }

    fn visit_string<E: de::Error>(self, v: alloc::string::String) -> Result<Self::Value, E> {
        Ok(Read::Value(v))
    }
}

impl JsonCodec for Str {
    #[inline]
    fn write_json<S: Serializer>(value: &alloc::string::String, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        _: JsonOptions,
        field: &'static str,
    ) -> Result<Read<alloc::string::String>, D::Error> {
        de.deserialize_any(TextVisitor::<alloc::string::String>::new(field))
    }
}

impl JsonKey for Str {
    fn write_key<S: Serializer>(value: &alloc::string::String, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value)
    }

    fn parse_key(key: &str) -> Option<alloc::string::String> {
        Some(key.into())
    }
}

/// JSON text is Unicode: a value that is not UTF-8 cannot be written (as in
/// C++), rather than written lossily.
impl JsonCodec for LaxStr {
    fn write_json<S: Serializer>(value: &LaxString, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.as_str().ok_or_else(|| not_utf8::<S>(value))?)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<LaxString>, D::Error> {
        Ok(match Str::read_json(de, options, field)? {
            Read::Value(text) => Read::Value(text.into()),
            Read::Null => Read::Null,
            Read::Skip => Read::Skip,
        })
    }
}

impl JsonKey for LaxStr {
    fn write_key<S: Serializer>(value: &LaxString, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.as_str().ok_or_else(|| not_utf8::<S>(value))?)
    }

    fn parse_key(key: &str) -> Option<LaxString> {
        Some(key.into())
    }
}

fn not_utf8<S: Serializer>(value: &LaxString) -> S::Error {
    serde::ser::Error::custom(format_args!("string {value:?} is not UTF-8, which JSON cannot hold"))
}

impl<'de> Visitor<'de> for TextVisitor<alloc::vec::Vec<u8>> {
    type Value = Read<alloc::vec::Vec<u8>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a base64 string for field `{}`", self.field)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Read::Null)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        base64::decode(v)
            .map(Read::Value)
            .ok_or_else(|| E::custom(format_args!("invalid base64 in field `{}`", self.field)))
    }
}

impl JsonCodec for Bytes {
    fn write_json<S: Serializer>(value: &alloc::vec::Vec<u8>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&base64::Standard(value))
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        _: JsonOptions,
        field: &'static str,
    ) -> Result<Read<alloc::vec::Vec<u8>>, D::Error> {
        de.deserialize_any(TextVisitor::<alloc::vec::Vec<u8>>::new(field))
    }
}

#[cfg(feature = "bytes")]
impl JsonCodec for crate::codec::SharedBytes {
    fn write_json<S: Serializer>(value: &bytes::Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&base64::Standard(value))
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<bytes::Bytes>, D::Error> {
        Ok(match Bytes::read_json(de, options, field)? {
            Read::Value(v) => Read::Value(bytes::Bytes::from(v)),
            Read::Null => Read::Null,
            Read::Skip => Read::Skip,
        })
    }
}

// ---- Enums --------------------------------------------------------------------

const NULL_VALUE: &str = "google.protobuf.NullValue";

/// Writes an enum number: by name when `E` names it, as a number otherwise.
fn write_enum<E: Enum, S: Serializer>(number: i32, s: S) -> Result<S::Ok, S::Error> {
    if E::FULL_NAME == NULL_VALUE {
        return s.serialize_unit();
    }
    match E::from_i32(number) {
        Some(e) => s.serialize_str(e.as_str_name()),
        None => s.serialize_i32(number),
    }
}

/// Reads an enum: a name, or a number (any `i32` when `open`, a named one
/// otherwise). Gives the number.
struct EnumVisitor<E> {
    options: JsonOptions,
    field: &'static str,
    open: bool,
    _enum: PhantomData<E>,
}

impl<E: Enum> EnumVisitor<E> {
    fn unknown<Err: de::Error>(&self, shown: impl fmt::Display) -> Result<Read<i32>, Err> {
        if self.options.ignore_unknown_fields {
            return Ok(Read::Skip);
        }
        Err(Err::custom(format_args!(
            "{shown} is not a value of enum {} for field `{}`",
            E::FULL_NAME,
            self.field
        )))
    }

    fn number<Err: de::Error>(&self, v: Option<i32>, shown: impl fmt::Display) -> Result<Read<i32>, Err> {
        match v {
            Some(n) if self.open || E::from_i32(n).is_some() => Ok(Read::Value(n)),
            _ => self.unknown(shown),
        }
    }
}

impl<'de, E: Enum> Visitor<'de> for EnumVisitor<E> {
    type Value = Read<i32>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a value name or number of enum {} for field `{}`",
            E::FULL_NAME,
            self.field
        )
    }

    fn visit_unit<Err: de::Error>(self) -> Result<Read<i32>, Err> {
        // `null` is the one value of `NullValue`.
        Ok(if E::FULL_NAME == NULL_VALUE {
            Read::Value(0)
        } else {
            Read::Null
        })
    }

    fn visit_i64<Err: de::Error>(self, v: i64) -> Result<Read<i32>, Err> {
        self.number(i32::try_from(v).ok(), v)
    }

    fn visit_u64<Err: de::Error>(self, v: u64) -> Result<Read<i32>, Err> {
        self.number(i32::try_from(v).ok(), v)
    }

    fn visit_str<Err: de::Error>(self, v: &str) -> Result<Read<i32>, Err> {
        match E::from_str_name(v) {
            Some(e) => Ok(Read::Value(e.to_i32())),
            None => self.unknown(format_args!("\"{v}\"")),
        }
    }
}

fn read_enum<'de, E: Enum, D: Deserializer<'de>>(
    de: D,
    options: JsonOptions,
    field: &'static str,
    open: bool,
) -> Result<Read<i32>, D::Error> {
    de.deserialize_any(EnumVisitor::<E> {
        options,
        field,
        open,
        _enum: PhantomData,
    })
}

impl<E: Enum> JsonCodec for OpenEnum<E> {
    fn write_json<S: Serializer>(value: &EnumValue<E>, s: S) -> Result<S::Ok, S::Error> {
        write_enum::<E, S>(value.to_i32(), s)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<EnumValue<E>>, D::Error> {
        Ok(match read_enum::<E, D>(de, options, field, true)? {
            Read::Value(n) => Read::Value(EnumValue::from_i32(n)),
            Read::Null => Read::Null,
            Read::Skip => Read::Skip,
        })
    }
}

impl<E: Enum> JsonCodec for ClosedEnum<E> {
    fn write_json<S: Serializer>(value: &E, s: S) -> Result<S::Ok, S::Error> {
        write_enum::<E, S>(value.to_i32(), s)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<E>, D::Error> {
        Ok(match read_enum::<E, D>(de, options, field, false)? {
            Read::Value(n) => E::from_i32(n).map_or(Read::Skip, Read::Value),
            Read::Null => Read::Null,
            Read::Skip => Read::Skip,
        })
    }
}

// ---- Messages -------------------------------------------------------------------

impl<M: JsonMessage> JsonCodec for Msg<M> {
    #[inline]
    fn write_json<S: Serializer>(value: &M, s: S) -> Result<S::Ok, S::Error> {
        value.serialize(s)
    }

    #[inline]
    fn read_json<'de, D: Deserializer<'de>>(de: D, options: JsonOptions, _: &'static str) -> Result<Read<M>, D::Error> {
        M::json_read(de, options)
    }
}

/// JSON does not know groups: a group's value is written as a message.
impl<M: JsonMessage, const NUMBER: u32> JsonCodec for Group<M, NUMBER> {
    fn write_json<S: Serializer>(value: &M, s: S) -> Result<S::Ok, S::Error> {
        Msg::<M>::write_json(value, s)
    }

    fn read_json<'de, D: Deserializer<'de>>(
        de: D,
        options: JsonOptions,
        field: &'static str,
    ) -> Result<Read<M>, D::Error> {
        Msg::<M>::read_json(de, options, field)
    }
}
