//! CEL's values, and messages read as values. Strings, bytes, lists,
//! maps and messages read from a message are borrowed from it (`'a`), so
//! reading a field allocates nothing; values made by the expression are
//! shared (`Arc`), so copying one is cheap. Well-known types read as CEL's
//! own values (timestamps, durations, wrappers, `Any`, JSON values), and
//! messages compare by protobuf's equality: reading a message and
//! comparing values recurse into each other, so they live together here.

use core::cmp::Ordering;
use core::fmt;
use core::ops::Deref;
use std::boxed::Box;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use super::error::EvalError;
use super::time::{Duration, Timestamp};
use super::types::Type;
use crate::reflect::{self, DynamicMessage, FieldDescriptor, Kind, MapKey, Reflect, ReflectList, ReflectMap, ValueRef};

/// A CEL value.
#[derive(Clone)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `bool`.
    Bool(bool),
    /// `int`.
    Int(i64),
    /// `uint`.
    Uint(u64),
    /// `double`.
    Double(f64),
    /// `string`.
    String(Str<'a>),
    /// `bytes`.
    Bytes(Bin<'a>),
    /// `list(T)`.
    List(List<'a>),
    /// `map(K, V)`.
    Map(Map<'a>),
    /// A message (not a well-known type, which reads as its CEL value).
    Message(Msg<'a>),
    /// `google.protobuf.Timestamp`.
    Timestamp(Timestamp),
    /// `google.protobuf.Duration`.
    Duration(Duration),
    /// A type, as `type()` returns it.
    Type(Type),
    /// `optional_type(T)`: a value or none.
    Optional(Option<Box<Value<'a>>>),
    /// A value of an enum type, with strong enums.
    Enum(Arc<str>, i32),
}

/// A string, borrowed or shared.
#[derive(Clone)]
pub enum Str<'a> {
    /// Read from a message or the expression.
    Borrowed(&'a str),
    /// Made by the expression.
    Shared(Arc<str>),
}

/// Bytes, borrowed or shared.
#[derive(Clone)]
pub enum Bin<'a> {
    /// Read from a message or the expression.
    Borrowed(&'a [u8]),
    /// Made by the expression.
    Shared(Arc<[u8]>),
}

/// A list: made by the expression, or a repeated field read in place.
#[derive(Clone)]
pub enum List<'a> {
    /// Values made by the expression.
    Values(Arc<[Value<'a>]>),
    /// A repeated field, its elements converted when read.
    Field(&'a dyn ReflectList, FieldDescriptor),
}

/// A map: made by the expression, or a map field read in place.
#[derive(Clone)]
pub enum Map<'a> {
    /// Entries made by the expression, in the order written.
    Entries(Arc<[(Value<'a>, Value<'a>)]>),
    /// A map field, its entries converted when read.
    Field(&'a dyn ReflectMap, FieldDescriptor),
}

/// A message: read in place, or made (or unpacked from an `Any`) by the
/// expression.
#[derive(Clone)]
pub enum Msg<'a> {
    /// Borrowed from the input.
    Ref(&'a dyn Reflect),
    /// Made by the expression.
    Owned(Arc<DynamicMessage>),
}

impl Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Shared(s) => s,
        }
    }
}

impl Deref for Bin<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bin::Borrowed(b) => b,
            Bin::Shared(b) => b,
        }
    }
}

impl<'a> Msg<'a> {
    /// The message, to read.
    #[must_use]
    pub fn get(&self) -> &dyn Reflect {
        match self {
            Msg::Ref(m) => *m,
            Msg::Owned(m) => &**m,
        }
    }
}

impl<'a> Value<'a> {
    /// A string made by the expression.
    #[must_use]
    pub fn string(s: impl Into<Arc<str>>) -> Self {
        Value::String(Str::Shared(s.into()))
    }

    /// Bytes made by the expression.
    #[must_use]
    pub fn bytes(b: impl Into<Arc<[u8]>>) -> Self {
        Value::Bytes(Bin::Shared(b.into()))
    }

    /// A list made by the expression.
    #[must_use]
    pub fn list(values: Vec<Value<'a>>) -> Self {
        Value::List(List::Values(values.into()))
    }

    /// A map made by the expression.
    #[must_use]
    pub fn map(entries: Vec<(Value<'a>, Value<'a>)>) -> Self {
        Value::Map(Map::Entries(entries.into()))
    }

    /// The value's type, as `type()` returns it.
    #[must_use]
    pub fn type_of(&self) -> Type {
        match self {
            Value::Null => Type::Null,
            Value::Bool(_) => Type::Bool,
            Value::Int(_) => Type::Int,
            Value::Uint(_) => Type::Uint,
            Value::Double(_) => Type::Double,
            Value::String(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::List(_) => Type::list(Type::Dyn),
            Value::Map(_) => Type::map(Type::Dyn, Type::Dyn),
            Value::Message(m) => Type::Message(m.get().descriptor().full_name().into()),
            Value::Timestamp(_) => Type::Timestamp,
            Value::Duration(_) => Type::Duration,
            Value::Type(_) => Type::Type(None),
            Value::Optional(_) => Type::Optional(Box::new(Type::Dyn)),
            Value::Enum(name, _) => Type::Enum(name.clone()),
        }
    }

    /// The name of the value's type, for error messages.
    #[must_use]
    pub fn type_name(&self) -> String {
        self.type_of().runtime_name()
    }

    /// The value as a map key, if its type can be one.
    pub(crate) fn check_key(&self) -> Result<(), EvalError> {
        match self {
            Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::String(_) => Ok(()),
            other => Err(EvalError::new(format!("unsupported key type: {}", other.type_name()))),
        }
    }

    /// A list's length, a map's size.
    #[must_use]
    pub fn size(&self) -> Option<usize> {
        match self {
            Value::List(l) => Some(l.len()),
            Value::Map(m) => Some(m.len()),
            _ => None,
        }
    }
}

impl<'a> List<'a> {
    /// How many elements.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            List::Values(v) => v.len(),
            List::Field(l, _) => l.len(),
        }
    }

    /// True if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element at `index`.
    ///
    /// # Errors
    /// The index is out of range, or the element does not convert.
    pub fn get(&self, index: usize) -> Result<Value<'a>, EvalError> {
        match self {
            List::Values(v) => v
                .get(index)
                .cloned()
                .ok_or_else(|| EvalError::new(format!("index out of bounds: {index}"))),
            List::Field(l, field) => match l.get(index) {
                Some(value) => Value::from_ref(value, &field.kind()),
                None => Err(EvalError::new(format!("index out of bounds: {index}"))),
            },
        }
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Value<'a>, EvalError>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl<'a> Map<'a> {
    /// How many entries.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Map::Entries(e) => e.len(),
            Map::Field(m, _) => m.len(),
        }
    }

    /// True if there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `key`, found by CEL's equality (`1`, `1u` and `1.0`
    /// find the same entry).
    ///
    /// # Errors
    /// An entry of a map field does not convert.
    pub fn get(&self, key: &Value<'_>) -> Result<Option<Value<'a>>, EvalError> {
        match self {
            Map::Entries(entries) => Ok(entries.iter().find(|(k, _)| k.equals(key)).map(|(_, v)| v.clone())),
            Map::Field(map, field) => {
                let Some((key_field, value_field)) = entry_fields(field) else {
                    return Ok(None);
                };
                let Some(key) = map_key(key, &key_field.kind()) else {
                    return Ok(None);
                };
                match map.get(&key) {
                    Some(v) => Value::from_ref(v, &value_field.kind()).map(Some),
                    None => Ok(None),
                }
            }
        }
    }

    /// The keys, in the map's order.
    ///
    /// # Errors
    /// An entry of a map field does not convert.
    pub fn keys(&self) -> Result<Vec<Value<'a>>, EvalError> {
        Ok(self.entries()?.into_iter().map(|(k, _)| k).collect())
    }

    /// The entries, in the map's order.
    ///
    /// # Errors
    /// An entry of a map field does not convert.
    pub fn entries(&self) -> Result<Vec<(Value<'a>, Value<'a>)>, EvalError> {
        match self {
            Map::Entries(e) => Ok(e.to_vec()),
            Map::Field(map, field) => {
                let Some((_, value_field)) = entry_fields(field) else {
                    return Ok(Vec::new());
                };
                let kind = value_field.kind();
                map.entries()
                    .map(|(k, v)| Ok((Value::from_key(k), Value::from_ref(v, &kind)?)))
                    .collect()
            }
        }
    }
}

/// A map field's key and value fields.
fn entry_fields(field: &FieldDescriptor) -> Option<(FieldDescriptor, FieldDescriptor)> {
    match field.kind() {
        Kind::Message(entry) => Some((entry.map_entry_key_field()?, entry.map_entry_value_field()?)),
        _ => None,
    }
}

/// A CEL value as a key of a map field whose keys are `kind`, if it can be
/// one (numbers of another CEL type that hold the same value can).
fn map_key(key: &Value<'_>, kind: &Kind) -> Option<MapKey> {
    let int = match key {
        Value::Int(v) => Some(i128::from(*v)),
        Value::Uint(v) => Some(i128::from(*v)),
        Value::Double(d) if d.fract() == 0.0 && d.abs() < 1.9e19 =>
        {
            #[allow(clippy::cast_possible_truncation)]
            Some(*d as i128)
        }
        _ => None,
    };
    Some(match (kind, key) {
        (Kind::Bool, Value::Bool(b)) => MapKey::Bool(*b),
        (Kind::String, Value::String(s)) => MapKey::String((**s).into()),
        (Kind::Int32 | Kind::Sint32 | Kind::Sfixed32, _) => MapKey::I32(i32::try_from(int?).ok()?),
        (Kind::Int64 | Kind::Sint64 | Kind::Sfixed64, _) => MapKey::I64(i64::try_from(int?).ok()?),
        (Kind::Uint32 | Kind::Fixed32, _) => MapKey::U32(u32::try_from(int?).ok()?),
        (Kind::Uint64 | Kind::Fixed64, _) => MapKey::U64(u64::try_from(int?).ok()?),
        _ => return None,
    })
}

impl<'a> Value<'a> {
    /// A map field's key as a CEL value.
    #[must_use]
    pub fn from_key(key: &'a MapKey) -> Self {
        match key {
            MapKey::Bool(b) => Value::Bool(*b),
            MapKey::I32(v) => Value::Int(i64::from(*v)),
            MapKey::I64(v) => Value::Int(*v),
            MapKey::U32(v) => Value::Uint(u64::from(*v)),
            MapKey::U64(v) => Value::Uint(*v),
            MapKey::String(s) => Value::String(Str::Borrowed(s)),
        }
    }

    /// The value of `field` in `message`, as CEL reads it: its default
    /// when not set, well-known types as their CEL values (an unset
    /// wrapper is `null`).
    ///
    /// # Errors
    /// An `Any` whose type the pool does not know, or whose bytes do not
    /// decode.
    pub fn field(message: &'a dyn Reflect, field: &FieldDescriptor) -> Result<Self, EvalError> {
        match message.field(field) {
            Some(ValueRef::List(l)) => Ok(Value::List(List::Field(l, field.clone()))),
            Some(ValueRef::Map(m)) => Ok(Value::Map(Map::Field(m, field.clone()))),
            Some(value) => Value::from_ref(value, &field.kind()),
            None => default_of(field),
        }
    }

    /// One value of a field of type `kind`, as CEL reads it.
    ///
    /// # Errors
    /// As [`Value::field`].
    pub fn from_ref(value: ValueRef<'a>, kind: &Kind) -> Result<Self, EvalError> {
        Ok(match value {
            ValueRef::Bool(v) => Value::Bool(v),
            ValueRef::I32(v) => Value::Int(i64::from(v)),
            ValueRef::I64(v) => Value::Int(v),
            ValueRef::U32(v) => Value::Uint(u64::from(v)),
            ValueRef::U64(v) => Value::Uint(v),
            ValueRef::F32(v) => Value::Double(f64::from(v)),
            ValueRef::F64(v) => Value::Double(v),
            ValueRef::String(s) => Value::String(Str::Borrowed(s)),
            // A proto2 string that is not UTF-8 still reads as a string,
            // its invalid sequences as U+FFFD (what generated code reads).
            ValueRef::Bytes(b) if matches!(kind, Kind::String) => {
                Value::string(std::string::String::from_utf8_lossy(b).into_owned())
            }
            ValueRef::Bytes(b) => Value::Bytes(Bin::Borrowed(b)),
            ValueRef::EnumNumber(n) => match kind {
                Kind::Enum(e) if e.full_name() == "google.protobuf.NullValue" => Value::Null,
                _ => Value::Int(i64::from(n)),
            },
            ValueRef::Message(m) => unwrap(Msg::Ref(m))?,
            ValueRef::List(_) | ValueRef::Map(_) => {
                return Err(EvalError::new("a list or map where one value was expected"));
            }
        })
    }
}

/// The value CEL reads for an unset field.
fn default_of<'a>(field: &FieldDescriptor) -> Result<Value<'a>, EvalError> {
    if field.is_map() {
        return Ok(Value::map(Vec::new()));
    }
    if field.is_list() {
        return Ok(Value::list(Vec::new()));
    }
    let declared = field.default_value_text();
    Ok(match field.kind() {
        Kind::Message(m) => match Type::of_message(m.full_name()) {
            Type::Wrapper(_) | Type::Any | Type::Dyn => Value::Null,
            _ => unwrap(Msg::Owned(Arc::new(DynamicMessage::new(m))))?,
        },
        Kind::Enum(e) => {
            if e.full_name() == "google.protobuf.NullValue" {
                return Ok(Value::Null);
            }
            let named = declared.and_then(|name| e.get_value_by_name(name));
            Value::Int(i64::from(named.map_or_else(|| e.default_value(), |v| v.number())))
        }
        kind => match (&kind, declared) {
            (_, None) => zero_of(&kind),
            (Kind::String, Some(text)) => Value::string(text),
            (Kind::Bytes, Some(text)) => Value::bytes(unescape_bytes(text)),
            (Kind::Bool, Some(text)) => Value::Bool(text == "true"),
            (Kind::Float | Kind::Double, Some(text)) => Value::Double(parse_float_default(text)),
            (Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64, Some(text)) => {
                Value::Uint(text.parse().unwrap_or(0))
            }
            (_, Some(text)) => Value::Int(text.parse().unwrap_or(0)),
        },
    })
}

/// The zero value of a scalar kind.
fn zero_of<'a>(kind: &Kind) -> Value<'a> {
    match kind {
        Kind::Bool => Value::Bool(false),
        Kind::String => Value::String(Str::Borrowed("")),
        Kind::Bytes => Value::Bytes(Bin::Borrowed(b"")),
        Kind::Float | Kind::Double => Value::Double(0.0),
        Kind::Uint32 | Kind::Uint64 | Kind::Fixed32 | Kind::Fixed64 => Value::Uint(0),
        _ => Value::Int(0),
    }
}

fn parse_float_default(text: &str) -> f64 {
    match text {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" => f64::NAN,
        t => t.parse().unwrap_or(0.0),
    }
}

/// A `bytes` default as descriptors hold it (C escapes) to its bytes.
fn unescape_bytes(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    if i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                        v = v * 8 + u32::from(b[i] - b'0');
                        i += 1;
                    }
                }
                out.push(u8::try_from(v & 0xff).unwrap_or(0));
            }
            b'x' => {
                let mut v = 0u32;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                }
                out.push(u8::try_from(v & 0xff).unwrap_or(0));
            }
            other => out.push(other),
        }
    }
    out
}

impl Value<'_> {
    /// CEL's equality: numbers of different types compare by value, lists
    /// and maps element by element, messages field by field; values of
    /// different types are not equal. `NaN` equals nothing.
    #[must_use]
    pub fn equals(&self, other: &Value<'_>) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::String(a), Value::String(b)) => **a == **b,
            (Value::Bytes(a), Value::Bytes(b)) => **a == **b,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Duration(a), Value::Duration(b)) => a == b,
            (Value::Type(a), Value::Type(b)) => a.runtime_name() == b.runtime_name(),
            (Value::Enum(n, a), Value::Enum(m, b)) => n == m && a == b,
            (Value::Optional(a), Value::Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            },
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| matches!((x, y), (Ok(x), Ok(y)) if x.equals(&y)))
            }
            (Value::Map(a), Value::Map(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                let Ok(entries) = a.entries() else { return false };
                entries
                    .iter()
                    .all(|(k, v)| matches!(b.get(k), Ok(Some(w)) if v.equals(&w)))
            }
            (Value::Message(a), Value::Message(b)) => messages_equal(a.get(), b.get()),
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) => x.compare(y) == Some(Ordering::Equal),
                _ => false,
            },
        }
    }

    /// The value as a number of any of CEL's three types.
    pub(crate) fn number(&self) -> Option<Number> {
        match self {
            Value::Int(v) => Some(Number::Int(*v)),
            Value::Uint(v) => Some(Number::Uint(*v)),
            Value::Double(v) => Some(Number::Double(*v)),
            Value::Enum(_, v) => Some(Number::Int(i64::from(*v))),
            _ => None,
        }
    }

    /// CEL's ordering, for `<`, `<=`, `>`, `>=`: numbers across their
    /// types, strings and bytes lexicographically, bools, timestamps and
    /// durations. `None` if the values do not order (`NaN`).
    ///
    /// # Errors
    /// The types have no ordering between them.
    pub fn compare(&self, other: &Value<'_>) -> Result<Option<Ordering>, EvalError> {
        Ok(match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
            (Value::String(a), Value::String(b)) => Some((**a).cmp(&**b)),
            (Value::Bytes(a), Value::Bytes(b)) => Some((**a).cmp(&**b)),
            (Value::Timestamp(a), Value::Timestamp(b)) => Some(a.cmp(b)),
            (Value::Duration(a), Value::Duration(b)) => Some(a.cmp(b)),
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) if !matches!((a, b), (Value::Enum(..), _) | (_, Value::Enum(..))) => x.compare(y),
                _ => {
                    return Err(EvalError::new(format!(
                        "no such overload: {} < {}",
                        a.type_name(),
                        b.type_name()
                    )))
                }
            },
        })
    }
}

/// A number of one of CEL's three numeric types.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Number {
    Int(i64),
    Uint(u64),
    Double(f64),
}

impl Number {
    /// Compares by value across types, exactly (no rounding through `f64`
    /// for integers).
    pub(crate) fn compare(self, other: Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(&b)),
            (Number::Uint(a), Number::Uint(b)) => Some(a.cmp(&b)),
            (Number::Int(a), Number::Uint(b)) => Some(i128::from(a).cmp(&i128::from(b))),
            (Number::Uint(a), Number::Int(b)) => Some(i128::from(a).cmp(&i128::from(b))),
            (Number::Double(a), Number::Double(b)) => a.partial_cmp(&b),
            (Number::Double(a), b) => b.compare(Number::Double(a)).map(Ordering::reverse),
            (Number::Int(a), Number::Double(b)) => compare_int_double(i128::from(a), b),
            (Number::Uint(a), Number::Double(b)) => compare_int_double(i128::from(a), b),
        }
    }
}

/// Compares an integer with a double as cel-go does: out of the
/// integer type's range the double is greater or smaller, within it they
/// compare as doubles (so `2^63 - 1` equals `2^63` as a double).
fn compare_int_double(a: i128, b: f64) -> Option<Ordering> {
    if b.is_nan() {
        return None;
    }
    let (min, max) = if a < 0 || i64::try_from(a).is_ok() {
        (-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_807.0)
    } else {
        (0.0, 18_446_744_073_709_551_615.0)
    };
    if b < min {
        return Some(Ordering::Greater);
    }
    if b > max {
        return Some(Ordering::Less);
    }
    #[allow(clippy::cast_precision_loss)]
    (a as f64).partial_cmp(&b)
}

impl fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Uint(v) => write!(f, "{v}u"),
            Value::Double(v) => write!(f, "{v:?}"),
            Value::String(s) => write!(f, "{:?}", &**s),
            Value::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Value::List(l) => f.debug_list().entries(l.iter().map(|v| v.ok())).finish(),
            Value::Map(m) => match m.entries() {
                Ok(entries) => f.debug_map().entries(entries).finish(),
                Err(e) => write!(f, "<{e}>"),
            },
            Value::Message(m) => write!(f, "{}{{..}}", m.get().descriptor().full_name()),
            Value::Timestamp(t) => write!(f, "timestamp({t})"),
            Value::Duration(d) => write!(f, "duration({d})"),
            Value::Type(t) => write!(f, "{t}"),
            Value::Optional(None) => f.write_str("optional.none()"),
            Value::Optional(Some(v)) => write!(f, "optional.of({v:?})"),
            Value::Enum(name, v) => write!(f, "{name}({v})"),
        }
    }
}

impl PartialEq for Value<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.equals(other)
    }
}

// Messages as CEL reads them.

/// A message as CEL reads it: a well-known type as its CEL value, any
/// other message as itself.
///
/// # Errors
/// An `Any` whose type is unknown or whose bytes do not decode, or a
/// duration out of CEL's range.
pub fn unwrap(msg: Msg<'_>) -> Result<Value<'_>, EvalError> {
    let name = msg.get().descriptor().full_name();
    match Type::of_message(name) {
        Type::Message(_) => Ok(Value::Message(msg)),
        _ => match msg {
            Msg::Ref(r) => unwrap_ref(r),
            Msg::Owned(m) => Ok(unwrap_ref(&*m)?.detach()),
        },
    }
}

/// The field numbered `number` of `m`.
fn field_of(m: &dyn Reflect, number: u32) -> Option<FieldDescriptor> {
    m.descriptor().get_field(number)
}

fn read<'a>(m: &'a dyn Reflect, number: u32) -> Result<Value<'a>, EvalError> {
    match field_of(m, number) {
        Some(f) => Value::field(m, &f),
        None => Err(EvalError::new("malformed well-known type")),
    }
}

fn unwrap_ref(m: &dyn Reflect) -> Result<Value<'_>, EvalError> {
    let name = m.descriptor().full_name();
    let int = |v: Value<'_>| match v {
        Value::Int(i) => i,
        _ => 0,
    };
    Ok(match name {
        "google.protobuf.Timestamp" => Value::Timestamp(Timestamp::new(int(read(m, 1)?), int(read(m, 2)?))?),
        "google.protobuf.Duration" => Value::Duration(Duration::new(int(read(m, 1)?), int(read(m, 2)?))),
        "google.protobuf.Any" => unpack_any(m)?,
        "google.protobuf.Struct" => read(m, 1)?,
        "google.protobuf.ListValue" => read(m, 1)?,
        "google.protobuf.Value" => json_value(m)?,
        // The wrappers: their one field.
        _ => read(m, 1)?,
    })
}

/// A `google.protobuf.Value` as the CEL value it holds.
fn json_value(m: &dyn Reflect) -> Result<Value<'_>, EvalError> {
    let d = m.descriptor();
    for field in d.fields() {
        if m.has_field(&field) {
            return match field.number() {
                1 => Ok(Value::Null),
                _ => Value::field(m, &field),
            };
        }
    }
    Ok(Value::Null)
}

/// An `Any`'s message, found in the pool of the `Any`'s type.
fn unpack_any(m: &dyn Reflect) -> Result<Value<'static>, EvalError> {
    let type_url = read(m, 1)?;
    let bytes = read(m, 2)?;
    let (Value::String(url), Value::Bytes(bytes)) = (type_url, bytes) else {
        return Err(EvalError::new("malformed google.protobuf.Any"));
    };
    let name = url.rsplit('/').next().unwrap_or("");
    let pool = m.descriptor().pool();
    let Some(ty) = pool.get_message_by_name(name) else {
        return Err(EvalError::new(format!(
            "conversion error: unknown type in Any: {}",
            &*url
        )));
    };
    let message = DynamicMessage::decode(ty, &bytes).map_err(|e| EvalError::new(format!("conversion error: {e}")))?;
    unwrap(Msg::Owned(Arc::new(message))).map(Value::detach)
}

impl Value<'_> {
    /// The value with nothing borrowed: strings and bytes copied, lists
    /// and maps of fields read out, borrowed messages copied.
    #[must_use]
    pub fn detach(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Int(v) => Value::Int(v),
            Value::Uint(v) => Value::Uint(v),
            Value::Double(v) => Value::Double(v),
            Value::String(Str::Borrowed(s)) => Value::string(s),
            Value::String(Str::Shared(s)) => Value::String(Str::Shared(s)),
            Value::Bytes(Bin::Borrowed(b)) => Value::bytes(b),
            Value::Bytes(Bin::Shared(b)) => Value::Bytes(Bin::Shared(b)),
            Value::List(l) => Value::list(l.iter().map(|v| v.map_or(Value::Null, Value::detach)).collect()),
            Value::Map(m) => Value::map(
                m.entries()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k.detach(), v.detach()))
                    .collect(),
            ),
            Value::Message(Msg::Ref(r)) => Value::Message(Msg::Owned(Arc::new(copy(r)))),
            Value::Message(Msg::Owned(m)) => Value::Message(Msg::Owned(m)),
            Value::Timestamp(t) => Value::Timestamp(t),
            Value::Duration(d) => Value::Duration(d),
            Value::Type(t) => Value::Type(t),
            Value::Optional(o) => Value::Optional(o.map(|v| Box::new(v.detach()))),
            Value::Enum(n, v) => Value::Enum(n, v),
        }
    }
}

/// A copy of a message read through [`Reflect`], as a [`DynamicMessage`].
#[must_use]
pub fn copy(m: &dyn Reflect) -> DynamicMessage {
    let descriptor = m.descriptor().clone();
    let mut out = DynamicMessage::new(descriptor.clone());
    for field in descriptor.fields() {
        if let Some(v) = m.field(&field) {
            let _ = out.set(&field, to_dynamic(v));
        }
    }
    out
}

fn to_dynamic(v: ValueRef<'_>) -> reflect::Value {
    match v {
        ValueRef::Bool(b) => reflect::Value::Bool(b),
        ValueRef::I32(v) => reflect::Value::I32(v),
        ValueRef::I64(v) => reflect::Value::I64(v),
        ValueRef::U32(v) => reflect::Value::U32(v),
        ValueRef::U64(v) => reflect::Value::U64(v),
        ValueRef::F32(v) => reflect::Value::F32(v),
        ValueRef::F64(v) => reflect::Value::F64(v),
        ValueRef::String(s) => reflect::Value::String(s.into()),
        ValueRef::Bytes(b) => reflect::Value::Bytes(b.to_vec()),
        ValueRef::EnumNumber(n) => reflect::Value::EnumNumber(n),
        ValueRef::Message(m) => reflect::Value::Message(Box::new(copy(m))),
        ValueRef::List(l) => reflect::Value::List((0..l.len()).filter_map(|i| l.get(i)).map(to_dynamic).collect()),
        ValueRef::Map(m) => reflect::Value::Map(m.entries().map(|(k, v)| (k.clone(), to_dynamic(v))).collect()),
    }
}

/// Protobuf's equality of two messages, as CEL compares them: the same
/// type, and every field set in both or neither, to equal values (`Any`
/// fields compared by what they hold; `NaN` equals nothing).
#[must_use]
pub fn messages_equal(a: &dyn Reflect, b: &dyn Reflect) -> bool {
    let da = a.descriptor();
    if da.full_name() != b.descriptor().full_name() {
        return false;
    }
    for field in da.fields() {
        let (has_a, has_b) = (a.has_field(&field), b.has_field(&field));
        if has_a != has_b {
            return false;
        }
        if !has_a {
            continue;
        }
        let Some(fb) = b.descriptor().get_field(field.number()) else {
            return false;
        };
        match (Value::field(a, &field), Value::field(b, &fb)) {
            (Ok(x), Ok(y)) if x.equals(&y) => {}
            // What does not read as CEL (an `Any` of an unknown type)
            // compares by its encoding.
            (Err(_), Err(_)) if raw_equal(a.field(&field), b.field(&fb)) => {}
            _ => return false,
        }
    }
    true
}

fn raw_equal(a: Option<ValueRef<'_>>, b: Option<ValueRef<'_>>) -> bool {
    match (a, b) {
        (Some(ValueRef::Message(x)), Some(ValueRef::Message(y))) => copy(x).encode_to_vec() == copy(y).encode_to_vec(),
        _ => false,
    }
}

impl List<'_> {
    /// True for a list read from a field.
    #[must_use]
    pub fn is_field(&self) -> bool {
        matches!(self, List::Field(..))
    }
}

impl Map<'_> {
    /// True for a map read from a field.
    #[must_use]
    pub fn is_field(&self) -> bool {
        matches!(self, Map::Field(..))
    }
}

impl DynamicMessage {
    /// True if the field numbered `number` is set.
    pub(crate) fn has_field_by_number(&self, number: u32) -> bool {
        self.descriptor().get_field(number).is_some_and(|f| self.has(&f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_across_types() {
        assert!(Value::Int(1).equals(&Value::Uint(1)));
        assert!(Value::Int(1).equals(&Value::Double(1.0)));
        assert!(!Value::Double(f64::NAN).equals(&Value::Double(f64::NAN)));
        // As cel-go: within the int's range the two compare as doubles.
        assert!(Value::Int(i64::MAX).equals(&Value::Double(9_223_372_036_854_775_807.0)));
        assert_eq!(
            Value::Int(1).compare(&Value::Double(1e300)).unwrap(),
            Some(Ordering::Less)
        );
        assert_eq!(
            Value::Uint(u64::MAX).compare(&Value::Int(-1)).unwrap(),
            Some(Ordering::Greater)
        );
        assert_eq!(
            Value::Int(2).compare(&Value::Double(1.5)).unwrap(),
            Some(Ordering::Greater)
        );
        assert!(Value::Int(1).compare(&Value::string("a")).is_err());
    }

    #[test]
    fn bytes_defaults_unescape() {
        assert_eq!(unescape_bytes(r"a\001\x41\n"), b"a\x01A\n");
    }
}
