//! The well-known types whose JSON is not an object of their fields:
//! `Timestamp`, `Duration`, `FieldMask`, the wrappers, `Struct`, `Value`,
//! `ListValue` and `Any`.

use core::fmt::{self, Write as _};
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed as _, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser;
use serde::{Deserialize, Serialize, Serializer};

use super::codec::{JsonCodec, ListSeed, MapSeed};
use super::read::Read;
use super::{dynamic, JsonMessage, JsonOptions};
use crate::codec::{self, Msg};
use crate::reflect::DescriptorPool;
use crate::well_known::{
    value, Any, BoolValue, BytesValue, DoubleValue, Duration, FieldMask, FloatValue, Int32Value, Int64Value, ListValue,
    NullValue, StringValue, Struct, Timestamp, UInt32Value, UInt64Value, Value,
};

/// Implements `Deserialize` and `JsonMessage` for a type with a `json_read`
/// of its own (an inherent function with `JsonMessage::json_read`'s signature).
macro_rules! deserialize_via_json_read {
    ($($ty:ty),*) => {$(
        impl JsonMessage for $ty {
            fn json_read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
                Self::read(de, options)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
                Ok(match Self::read(de, JsonOptions::new())? {
                    Read::Value(v) => v,
                    Read::Null | Read::Skip => Self::default(),
                })
            }
        }
    )*};
}

// ---- Text buffers and string-valued types ----------------------------------------

/// A small stack buffer for formatting timestamps and durations.
struct Text {
    buf: [u8; 48],
    len: usize,
}

impl Text {
    fn new() -> Self {
        Self { buf: [0; 48], len: 0 }
    }

    fn as_str(&self) -> &str {
        // Only `write_str` fills the buffer, with whole `str`s.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Writes `.` and 3, 6 or 9 digits of `nanos` (none when zero).
fn write_fraction(out: &mut Text, nanos: u32) -> fmt::Result {
    match nanos {
        0 => Ok(()),
        n if n % 1_000_000 == 0 => write!(out, ".{:03}", n / 1_000_000),
        n if n % 1_000 == 0 => write!(out, ".{:06}", n / 1_000),
        n => write!(out, ".{n:09}"),
    }
}

/// Parses the digits after a `.`: 1 to 9 of them, as nanoseconds.
fn parse_fraction(digits: &str) -> Option<i32> {
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i32 = digits.parse().ok()?;
    Some((digits.len()..9).fold(n, |n, _| n * 10))
}

/// Reads a JSON string (or `null`) and converts it with `parse`.
struct StringForm<T> {
    what: &'static str,
    parse: fn(&str) -> Option<T>,
    _value: PhantomData<T>,
}

fn read_string_form<'de, T, D: Deserializer<'de>>(
    de: D,
    what: &'static str,
    parse: fn(&str) -> Option<T>,
) -> Result<Read<T>, D::Error> {
    de.deserialize_any(StringForm {
        what,
        parse,
        _value: PhantomData,
    })
}

impl<'de, T> Visitor<'de> for StringForm<T> {
    type Value = Read<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<T>, E> {
        Ok(Read::Null)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Read<T>, E> {
        (self.parse)(v)
            .map(Read::Value)
            .ok_or_else(|| E::custom(format_args!("\"{v}\" is not {}", self.what)))
    }
}

// ---- Timestamp ----------------------------------------------------------------------

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range RFC 3339 can write.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01: (year, month, day).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

fn timestamp_text(t: &Timestamp) -> Option<Text> {
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&t.seconds) {
        return None;
    }
    let nanos = u32::try_from(t.nanos).ok().filter(|&n| n < 1_000_000_000)?;
    let (days, secs) = (t.seconds.div_euclid(86_400), t.seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let mut out = Text::new();
    write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
    .ok()?;
    write_fraction(&mut out, nanos).ok()?;
    out.write_char('Z').ok()?;
    Some(out)
}

/// A fixed-width decimal field of `text` at `range`.
fn digits(text: &str, range: core::ops::Range<usize>) -> Option<i64> {
    let part = text.get(range)?;
    part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`.
fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (digits(text, 0..4)?, digits(text, 5..7)?, digits(text, 8..10)?);
    let (hour, minute, second) = (digits(text, 11..13)?, digits(text, 14..16)?, digits(text, 17..19)?);
    let days_in_month = match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if !(1..=days_in_month).contains(&day) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let rest = &text[19..];
    let zone_at = rest.find(['Z', '+', '-'])?;
    let nanos = match rest[..zone_at].strip_prefix('.') {
        Some(fraction) => parse_fraction(fraction)?,
        None if zone_at == 0 => 0,
        None => return None,
    };
    let zone = &rest[zone_at..];
    let offset = match zone.as_bytes() {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (h, m) = (digits(zone, 1..3)?, digits(zone, 4..6)?);
            if h > 23 || m > 59 {
                return None;
            }
            (h * 3600 + m * 60) * if *sign == b'+' { 1 } else { -1 }
        }
        _ => return None,
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    (MIN_SECONDS..=MAX_SECONDS).contains(&seconds).then(|| Timestamp {
        seconds,
        nanos,
        ..Default::default()
    })
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = timestamp_text(self).ok_or_else(|| {
            ser::Error::custom(format_args!(
                "Timestamp {}s {}ns is outside 0001-01-01 to 9999-12-31 or not normalized",
                self.seconds, self.nanos
            ))
        })?;
        s.serialize_str(text.as_str())
    }
}

impl Timestamp {
    fn read<'de, D: Deserializer<'de>>(de: D, _: JsonOptions) -> Result<Read<Self>, D::Error> {
        read_string_form(
            de,
            "an RFC 3339 timestamp (\"1972-01-01T10:00:20.021Z\")",
            parse_timestamp,
        )
    }
}

// ---- Duration -------------------------------------------------------------------------

/// ±10,000 years, the range `Duration` allows.
const MAX_DURATION_SECONDS: i64 = 315_576_000_000;

fn duration_text(d: &Duration) -> Option<Text> {
    let (seconds, nanos) = (d.seconds, d.nanos);
    let same_sign = (seconds >= 0 && nanos >= 0) || (seconds <= 0 && nanos <= 0);
    if seconds.unsigned_abs() > MAX_DURATION_SECONDS.unsigned_abs()
        || nanos.unsigned_abs() >= 1_000_000_000
        || !same_sign
    {
        return None;
    }
    let mut out = Text::new();
    let sign = if seconds < 0 || nanos < 0 { "-" } else { "" };
    write!(out, "{sign}{}", seconds.unsigned_abs()).ok()?;
    write_fraction(&mut out, nanos.unsigned_abs()).ok()?;
    out.write_char('s').ok()?;
    Some(out)
}

/// Parses `[-]seconds[.fraction]s`.
fn parse_duration(text: &str) -> Option<Duration> {
    let body = text.strip_suffix('s')?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (whole, fraction) = match body.split_once('.') {
        Some((whole, fraction)) => (whole, parse_fraction(fraction)?),
        None => (body, 0),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: i64 = whole.parse().ok().filter(|s| *s <= MAX_DURATION_SECONDS)?;
    let (seconds, nanos) = if negative {
        (-seconds, -fraction)
    } else {
        (seconds, fraction)
    };
    Some(Duration {
        seconds,
        nanos,
        ..Default::default()
    })
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = duration_text(self).ok_or_else(|| {
            ser::Error::custom(format_args!(
                "Duration {}s {}ns is out of range or its signs differ",
                self.seconds, self.nanos
            ))
        })?;
        s.serialize_str(text.as_str())
    }
}

impl Duration {
    fn read<'de, D: Deserializer<'de>>(de: D, _: JsonOptions) -> Result<Read<Self>, D::Error> {
        read_string_form(de, "a duration in seconds (\"1.5s\")", parse_duration)
    }
}

// ---- FieldMask ---------------------------------------------------------------------------

/// `foo_bar.baz` → `fooBar.baz`; `None` if the path would not come back the
/// same (upper case, or `_` not followed by a lower-case letter).
fn path_to_camel(path: &str, out: &mut impl fmt::Write) -> Option<()> {
    let mut upper_next = false;
    for c in path.chars() {
        if c.is_ascii_uppercase() || (upper_next && !c.is_ascii_lowercase()) {
            return None;
        }
        if c == '_' {
            upper_next = true;
            continue;
        }
        out.write_char(if upper_next { c.to_ascii_uppercase() } else { c })
            .ok()?;
        upper_next = false;
    }
    (!upper_next).then_some(())
}

/// `fooBar.baz` → `foo_bar.baz`; `None` for a `_` (it could not have come from
/// a path).
fn path_to_snake(path: &str) -> Option<alloc::string::String> {
    let mut out = alloc::string::String::with_capacity(path.len() + 4);
    for c in path.chars() {
        if c == '_' {
            return None;
        }
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Displays a field mask as its JSON string; `fmt::Error` for a path without one.
struct MaskText<'a>(&'a [alloc::string::String]);

impl fmt::Display for MaskText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, path) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            path_to_camel(path, f).ok_or(fmt::Error)?;
        }
        Ok(())
    }
}

impl Serialize for FieldMask {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut probe = alloc::string::String::new();
        for path in &self.paths {
            probe.clear();
            if path_to_camel(path, &mut probe).is_none() {
                return Err(ser::Error::custom(format_args!(
                    "FieldMask path `{path}` has no lowerCamelCase JSON form"
                )));
            }
        }
        s.collect_str(&MaskText(&self.paths))
    }
}

fn parse_mask(text: &str) -> Option<FieldMask> {
    let paths = if text.is_empty() {
        alloc::vec::Vec::new()
    } else {
        text.split(',').map(path_to_snake).collect::<Option<_>>()?
    };
    Some(FieldMask {
        paths,
        ..Default::default()
    })
}

impl FieldMask {
    fn read<'de, D: Deserializer<'de>>(de: D, _: JsonOptions) -> Result<Read<Self>, D::Error> {
        read_string_form(de, "a field mask (\"fooBar,baz.qux\")", parse_mask)
    }
}

deserialize_via_json_read!(Timestamp, Duration, FieldMask);

// ---- Wrappers ------------------------------------------------------------------------------

/// Wrapper messages are their bare value in JSON.
macro_rules! wrapper {
    ($($ty:ident => $codec:ty),*) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$codec>::write_json(&self.value, s)
            }
        }

        impl $ty {
            fn read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
                Ok(match <$codec>::read_json(de, options, "value")? {
                    Read::Value(value) => Read::Value(Self { value, ..Default::default() }),
                    Read::Null => Read::Null,
                    Read::Skip => Read::Skip,
                })
            }
        }

        deserialize_via_json_read!($ty);
    )*};
}

wrapper!(
    DoubleValue => codec::Double,
    FloatValue => codec::Float,
    Int64Value => codec::Int64,
    UInt64Value => codec::Uint64,
    Int32Value => codec::Int32,
    UInt32Value => codec::Uint32,
    BoolValue => codec::Bool,
    StringValue => codec::Str,
    BytesValue => codec::Bytes
);

// ---- Struct, Value, ListValue ------------------------------------------------------------

impl Serialize for Struct {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(&self.fields)
    }
}

impl Struct {
    fn read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
        de.deserialize_any(StructVisitor(options))
    }
}

struct StructVisitor(JsonOptions);

impl<'de> Visitor<'de> for StructVisitor {
    type Value = Read<Struct>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object for google.protobuf.Struct")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<Struct>, E> {
        Ok(Read::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read<Struct>, A::Error> {
        let mut out = Struct::default();
        let seed = MapSeed::<codec::Str, Msg<Value>, _>::new(&mut out.fields, self.0, "fields");
        Visitor::visit_map(seed, map)?;
        Ok(Read::Value(out))
    }
}

impl Serialize for ListValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(&self.values)
    }
}

impl ListValue {
    fn read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
        de.deserialize_any(ListVisitor(options))
    }
}

struct ListVisitor(JsonOptions);

impl<'de> Visitor<'de> for ListVisitor {
    type Value = Read<ListValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array for google.protobuf.ListValue")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<ListValue>, E> {
        Ok(Read::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Read<ListValue>, A::Error> {
        let mut out = ListValue::default();
        Visitor::visit_seq(ListSeed::<Msg<Value>>::new(&mut out.values, self.0, "values"), seq)?;
        Ok(Read::Value(out))
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use value::Kind;
        match &self.kind {
            None => Err(ser::Error::custom("google.protobuf.Value has no kind set")),
            Some(Kind::NullValue(_)) => s.serialize_unit(),
            Some(Kind::NumberValue(n)) if !n.is_finite() => Err(ser::Error::custom(format_args!(
                "google.protobuf.Value cannot hold {n}: JSON numbers are finite"
            ))),
            Some(Kind::NumberValue(n)) => s.serialize_f64(*n),
            Some(Kind::StringValue(v)) => s.serialize_str(v),
            Some(Kind::BoolValue(v)) => s.serialize_bool(*v),
            Some(Kind::StructValue(v)) => v.serialize(s),
            Some(Kind::ListValue(v)) => v.serialize(s),
        }
    }
}

impl Value {
    fn read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
        de.deserialize_any(ValueVisitor(options)).map(Read::Value)
    }

    fn of(kind: value::Kind) -> Self {
        Value {
            kind: Some(kind),
            ..Default::default()
        }
    }
}

/// Any JSON value; `null` is a value here (`NullValue`), not an absence.
struct ValueVisitor(JsonOptions);

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value for google.protobuf.Value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::of(value::Kind::NullValue(NullValue::NullValue.into())))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::of(value::Kind::BoolValue(v)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::of(value::Kind::NumberValue(v as f64)))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::of(value::Kind::NumberValue(v as f64)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::of(value::Kind::NumberValue(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::of(value::Kind::StringValue(v.into())))
    }

    fn visit_string<E: de::Error>(self, v: alloc::string::String) -> Result<Value, E> {
        Ok(Value::of(value::Kind::StringValue(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        let list = match ListVisitor(self.0).visit_seq(seq)? {
            Read::Value(list) => list,
            Read::Null | Read::Skip => ListValue::default(),
        };
        Ok(Value::of(value::Kind::ListValue(list)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        let fields = match StructVisitor(self.0).visit_map(map)? {
            Read::Value(s) => s,
            Read::Null | Read::Skip => Struct::default(),
        };
        Ok(Value::of(value::Kind::StructValue(fields)))
    }
}

deserialize_via_json_read!(Struct, ListValue, Value);

// ---- Any --------------------------------------------------------------------------------------

// `Any` resolves its type in the process's registry (`DescriptorPool::global`)
// and shows the held message through `DynamicMessage`, as the dynamic JSON
// does with its own pool.

impl Serialize for Any {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        dynamic::any_to_json(&DescriptorPool::global(), &self.type_url, &self.value, s)
    }
}

impl Any {
    fn read<'de, D: Deserializer<'de>>(de: D, options: JsonOptions) -> Result<Read<Self>, D::Error> {
        let seed = dynamic::AnySeed {
            pool: &DescriptorPool::global(),
            options,
        };
        let (type_url, value) = match seed.deserialize(de)? {
            dynamic::AnyJson::Null => return Ok(Read::Null),
            dynamic::AnyJson::Parts(parts) => parts.unwrap_or_default(),
        };
        Ok(Read::Value(Any {
            type_url,
            value,
            ..Default::default()
        }))
    }
}

deserialize_via_json_read!(Any);
