//! The runtime of CEL rules compiled to Rust (`__private::validate::cel`):
//! CEL's semantics where plain Rust operators differ (checked integer
//! arithmetic, errors that `&&` and `||` absorb, comparisons across
//! numeric types, the comprehensions' error rules), and the way back to
//! the interpreter's [`Value`] for what the generator leaves dynamic.
//!
//! Every function here behaves as the interpreter does for the same
//! operation, with the same error messages: the differential tests run
//! generated and dynamic validators side by side.

use core::cmp::Ordering;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

pub use crate::cel::lib::{call_function as call, formats, select_field as select};
pub use crate::cel::{Duration, EvalError, Timestamp, Value};

use crate::cel::Msg;

/// The result of a compiled expression.
pub type Out<T> = Result<T, EvalError>;

/// CEL's `&&`: `false` wins over an error on either side.
///
/// # Errors
/// Either side failed and neither is `false`.
pub fn and(left: Out<bool>, right: impl FnOnce() -> Out<bool>) -> Out<bool> {
    match left {
        Ok(false) => Ok(false),
        Ok(true) => right(),
        Err(e) => match right() {
            Ok(false) => Ok(false),
            _ => Err(e),
        },
    }
}

/// CEL's `||`: `true` wins over an error on either side.
///
/// # Errors
/// Either side failed and neither is `true`.
pub fn or(left: Out<bool>, right: impl FnOnce() -> Out<bool>) -> Out<bool> {
    match left {
        Ok(true) => Ok(true),
        Ok(false) => right(),
        Err(e) => match right() {
            Ok(true) => Ok(true),
            _ => Err(e),
        },
    }
}

/// `items.all(x, p)`: `false` if `p` is false for any item (whatever
/// failed), else the first error, else `true`.
///
/// # Errors
/// `p` failed for an item and was false for none.
pub fn all<T>(items: impl IntoIterator<Item = T>, mut p: impl FnMut(T) -> Out<bool>) -> Out<bool> {
    let mut failed = None;
    for item in items {
        match p(item) {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    failed.map_or(Ok(true), Err)
}

/// `items.exists(x, p)`: `true` if `p` is true for any item (whatever
/// failed), else the first error, else `false`.
///
/// # Errors
/// `p` failed for an item and was true for none.
pub fn exists<T>(items: impl IntoIterator<Item = T>, mut p: impl FnMut(T) -> Out<bool>) -> Out<bool> {
    let mut failed = None;
    for item in items {
        match p(item) {
            Ok(false) => {}
            Ok(true) => return Ok(true),
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    failed.map_or(Ok(false), Err)
}

/// `items.exists_one(x, p)`: `p` is true for exactly one item.
///
/// # Errors
/// `p` failed for an item.
pub fn exists_one<T>(items: impl IntoIterator<Item = T>, mut p: impl FnMut(T) -> Out<bool>) -> Out<bool> {
    let mut count = 0u64;
    for item in items {
        if p(item)? {
            count += 1;
        }
    }
    Ok(count == 1)
}

/// A value that must be a `bool` (a condition, a logical operand).
///
/// # Errors
/// It is not one.
pub fn to_bool(v: &Value<'_>) -> Out<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(EvalError::new(format!(
            "no such overload: bool from {}",
            other.type_name()
        ))),
    }
}

/// `a == b` for values of any types (numbers across types).
#[must_use]
pub fn equals(a: &Value<'_>, b: &Value<'_>) -> bool {
    a.equals(b)
}

/// CEL's ordering of any two values.
///
/// # Errors
/// The types have no ordering between them.
pub fn compare(a: &Value<'_>, b: &Value<'_>) -> Out<Option<Ordering>> {
    a.compare(b)
}

/// `a < b`, ordered as CEL orders (numbers across types; `NaN` orders
/// with nothing).
///
/// # Errors
/// As [`compare`].
pub fn less(a: &Value<'_>, b: &Value<'_>) -> Out<bool> {
    Ok(compare(a, b)? == Some(Ordering::Less))
}

/// `a <= b`.
///
/// # Errors
/// As [`compare`].
pub fn less_equal(a: &Value<'_>, b: &Value<'_>) -> Out<bool> {
    Ok(matches!(compare(a, b)?, Some(Ordering::Less | Ordering::Equal)))
}

macro_rules! checked {
    ($($name:ident($ty:ty, $op:ident, $what:literal)),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($op), "` on `", $what, "`, failing on overflow.")]
        ///
        /// # Errors
        /// The result overflows.
        pub fn $name(a: $ty, b: $ty) -> Out<$ty> {
            a.$op(b).ok_or_else(|| EvalError::new(concat!($what, " overflow")))
        }
    )*};
}

checked! {
    add_int(i64, checked_add, "int"),
    sub_int(i64, checked_sub, "int"),
    mul_int(i64, checked_mul, "int"),
    add_uint(u64, checked_add, "uint"),
    sub_uint(u64, checked_sub, "uint"),
    mul_uint(u64, checked_mul, "uint"),
}

/// `a / b` on ints.
///
/// # Errors
/// `b` is zero, or the quotient overflows.
pub fn div_int(a: i64, b: i64) -> Out<i64> {
    if b == 0 {
        return Err(EvalError::new("divide by zero"));
    }
    a.checked_div(b).ok_or_else(|| EvalError::new("int overflow"))
}

/// `a % b` on ints.
///
/// # Errors
/// `b` is zero, or the remainder overflows.
pub fn rem_int(a: i64, b: i64) -> Out<i64> {
    if b == 0 {
        return Err(EvalError::new("modulus by zero"));
    }
    a.checked_rem(b).ok_or_else(|| EvalError::new("int overflow"))
}

/// `a / b` on uints.
///
/// # Errors
/// `b` is zero.
pub fn div_uint(a: u64, b: u64) -> Out<u64> {
    a.checked_div(b).ok_or_else(|| EvalError::new("divide by zero"))
}

/// `a % b` on uints.
///
/// # Errors
/// `b` is zero.
pub fn rem_uint(a: u64, b: u64) -> Out<u64> {
    a.checked_rem(b).ok_or_else(|| EvalError::new("modulus by zero"))
}

/// `-a` on an int.
///
/// # Errors
/// `a` is the least int.
pub fn neg_int(a: i64) -> Out<i64> {
    a.checked_neg().ok_or_else(|| EvalError::new("int overflow"))
}

/// `list[i]`.
///
/// # Errors
/// `i` is out of the list's range.
pub fn index<T>(list: &[T], i: i128) -> Out<&T> {
    usize::try_from(i)
        .ok()
        .and_then(|i| list.get(i))
        .ok_or_else(|| EvalError::new(format!("index out of range: {i}")))
}

/// `a + b` on strings.
#[must_use]
pub fn concat(a: &str, b: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len());
    s.push_str(a);
    s.push_str(b);
    s
}

/// `a + b` on bytes.
#[must_use]
pub fn concat_bytes(a: &[u8], b: &[u8]) -> Vec<u8> {
    [a, b].concat()
}

/// `s.matches(pattern)` with a pattern known only at run time (compiled
/// once per pattern, then cached).
///
/// # Errors
/// The pattern is not a valid RE2 expression.
pub fn matches(s: &str, pattern: &str) -> Out<bool> {
    Ok(crate::cel::regex::compile(pattern)?.is_match(s))
}

/// A string value (copied: values made here outlive what they came from).
#[must_use]
pub fn string(s: &str) -> Value<'static> {
    Value::string(s)
}

/// A bytes value (copied).
#[must_use]
pub fn bytes(b: &[u8]) -> Value<'static> {
    Value::bytes(b)
}

/// A list value.
#[must_use]
pub fn list<'a>(items: Vec<Value<'a>>) -> Value<'a> {
    Value::list(items)
}

/// A map value.
#[must_use]
pub fn map<'a>(entries: Vec<(Value<'a>, Value<'a>)>) -> Value<'a> {
    Value::map(entries)
}

/// A generated message as a CEL value (a well-known type as its CEL
/// value), through its descriptors; an unset one is its type's default.
///
/// # Errors
/// The message nests too deep to transcode, or a well-known type's value
/// is out of CEL's range.
pub fn message<T: crate::reflect::ReflectMessage + Default>(m: Option<&T>) -> Out<Value<'static>> {
    let dynamic = match m {
        Some(m) => m.to_dynamic(),
        None => T::default().to_dynamic(),
    }
    .map_err(|e| EvalError::new(format!("message not readable: {e}")))?;
    crate::cel::unwrap_message(Msg::Owned(Arc::new(dynamic))).map(Value::detach)
}

/// `has(v.field)` on a value read dynamically.
///
/// # Errors
/// `v` is neither a message nor a map.
pub fn has(v: &Value<'_>, field: &str) -> Out<bool> {
    match v {
        Value::Message(m) => {
            let m = m.get();
            Ok(m.descriptor().get_field_by_name(field).is_some_and(|f| m.has_field(&f)))
        }
        Value::Map(map) => Ok(map.get(&Value::string(field))?.is_some()),
        other => Err(EvalError::new(format!(
            "no such overload: has() on {}",
            other.type_name()
        ))),
    }
}

/// The items a comprehension over `v` visits, its first variable first:
/// with one variable, a list's elements or a map's keys (beside `null`);
/// with `two`, a list's indices and elements or a map's keys and values.
///
/// # Errors
/// `v` is neither a list nor a map.
pub fn items<'a>(v: &Value<'a>, two: bool) -> Out<Vec<(Value<'a>, Value<'a>)>> {
    match v {
        Value::List(list) => list
            .iter()
            .enumerate()
            .map(|(i, x)| {
                Ok(if two {
                    (Value::Int(list_index(i)), x?)
                } else {
                    (x?, Value::Null)
                })
            })
            .collect(),
        Value::Map(map) if two => map.entries(),
        Value::Map(map) => Ok(map.keys()?.into_iter().map(|k| (k, Value::Null)).collect()),
        other => Err(EvalError::new(format!(
            "no such overload: comprehension over {}",
            other.type_name()
        ))),
    }
}

/// A list index as CEL's `int`.
#[must_use]
pub fn list_index(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}

/// `size()` of a list, map or bytes: its length as CEL's `int`.
#[must_use]
pub fn size(len: usize) -> i64 {
    list_index(len)
}

/// `size()` of a string: its code points.
#[must_use]
pub fn size_str(s: &str) -> i64 {
    size(s.chars().count())
}

/// A `google.protobuf.Timestamp` as CEL reads it.
///
/// # Errors
/// It is outside CEL's range (years 1 to 9999).
pub fn timestamp(t: &crate::well_known::Timestamp) -> Out<Timestamp> {
    Timestamp::new(t.seconds, i64::from(t.nanos))
}

/// The error of reading a key a map does not hold.
#[must_use]
pub fn no_such_key(key: &Value<'_>) -> EvalError {
    EvalError::new(format!("no such key: {key:?}"))
}

/// `map` and `filter`: the items `f` keeps, transformed.
///
/// # Errors
/// `f` failed for an item.
pub fn map_filter<T, U>(items: impl IntoIterator<Item = T>, mut f: impl FnMut(T) -> Out<Option<U>>) -> Out<Vec<U>> {
    let mut out = Vec::new();
    for item in items {
        if let Some(u) = f(item)? {
            out.push(u);
        }
    }
    Ok(out)
}

/// A failure with `message`, where the generator knows the expression
/// fails (a field a `dyn` value's type does not have).
///
/// # Errors
/// Always.
pub fn fail(message: &str) -> Out<Value<'static>> {
    Err(EvalError::new(message))
}

/// A proto2 string as CEL reads it: its text, or if it is not UTF-8 its
/// bytes with invalid sequences as U+FFFD (as the dynamic validator reads
/// it).
#[must_use]
pub fn lax(s: &crate::LaxString) -> std::borrow::Cow<'_, str> {
    match s.as_str() {
        Some(text) => std::borrow::Cow::Borrowed(text),
        None => String::from_utf8_lossy(s.as_bytes()),
    }
}
