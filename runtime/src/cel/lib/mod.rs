//! The functions: CEL's standard definitions, its extension libraries
//! (strings, math, encoders, optionals, protos, bindings' map insertion),
//! and protovalidate's (`isEmail`, `isIp`, `unique`, ...). One dispatcher
//! finds the implementation by name and by the arguments' run-time types;
//! a receiver call passes its receiver first.

mod convert;
pub mod formats;
mod math;
mod strings;

use std::boxed::Box;
use std::vec::Vec;

use super::ast::op;
use super::env::Env;
use super::error::EvalError;
use super::time::{self, Duration, Timestamp};
use super::value::{List, Map, Msg, Value};

pub(crate) use strings::{base64_encode, format_string as to_text};

type Out<'a> = Result<Value<'a>, EvalError>;

/// True if `name` is a function of a namespace (`math.greatest`,
/// `base64.encode`, `optional.of`, ...), callable as `ns.f(x)`.
#[must_use]
pub fn is_global(name: &str) -> bool {
    matches!(
        name,
        "math.greatest"
            | "math.least"
            | "math.ceil"
            | "math.floor"
            | "math.round"
            | "math.trunc"
            | "math.abs"
            | "math.sign"
            | "math.isNaN"
            | "math.isInf"
            | "math.isFinite"
            | "math.sqrt"
            | "math.bitAnd"
            | "math.bitOr"
            | "math.bitXor"
            | "math.bitNot"
            | "math.bitShiftLeft"
            | "math.bitShiftRight"
            | "strings.quote"
            | "base64.encode"
            | "base64.decode"
            | "optional.of"
            | "optional.ofNonZeroValue"
            | "optional.none"
            | "optional.unwrap"
            | "proto.hasExt"
            | "proto.getExt"
    )
}

fn no_overload<'a>(function: &str, args: &[Value<'_>]) -> Out<'a> {
    let types: Vec<_> = args.iter().map(Value::type_name).collect();
    Err(EvalError::new(format!(
        "no such overload: {function}({})",
        types.join(", ")
    )))
}

/// Calls CEL's function or operator `function` (`_+_`, `size`,
/// `startsWith`, ...) with `args`, the receiver first: what compiled rules
/// call for what they do not write out in Rust.
///
/// # Errors
/// As the function fails, or no overload takes the arguments' types.
pub fn call_function<'a>(function: &str, args: std::vec::Vec<Value<'a>>) -> Out<'a> {
    static ENV: std::sync::OnceLock<Env> = std::sync::OnceLock::new();
    call(ENV.get_or_init(Env::new), function, args)
}

/// `operand.field`, as CEL selects it.
///
/// # Errors
/// No such field or key, or a value that has none.
pub fn select_field<'a>(operand: Value<'a>, field: &str) -> Out<'a> {
    select(&Env::new(), operand, field)
}

/// Calls `function` with `args` (the receiver first for a method call).
pub(crate) fn call<'a>(env: &Env, function: &str, args: Vec<Value<'a>>) -> Out<'a> {
    if let Some(out) = operator(function, &args) {
        return out;
    }
    if let Some(out) = convert::call(env, function, &args) {
        return out;
    }
    if let Some(out) = strings::call(function, &args) {
        return out;
    }
    if let Some(out) = math::call(function, &args) {
        return out;
    }
    if let Some(out) = formats::call(function, &args) {
        return out;
    }
    if let Some(out) = other(env, function, args.clone()) {
        return out;
    }
    no_overload(function, &args)
}

/// The operators.
fn operator<'a>(function: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    Some(match (function, args) {
        (op::EQUALS, [a, b]) => Ok(Value::Bool(a.equals(b))),
        (op::NOT_EQUALS, [a, b]) => Ok(Value::Bool(!a.equals(b))),
        (op::LESS, [a, b]) => a.compare(b).map(|o| Value::Bool(o == Some(core::cmp::Ordering::Less))),
        (op::LESS_EQUALS, [a, b]) => a.compare(b).map(|o| {
            Value::Bool(matches!(
                o,
                Some(core::cmp::Ordering::Less | core::cmp::Ordering::Equal)
            ))
        }),
        (op::GREATER, [a, b]) => a
            .compare(b)
            .map(|o| Value::Bool(o == Some(core::cmp::Ordering::Greater))),
        (op::GREATER_EQUALS, [a, b]) => a.compare(b).map(|o| {
            Value::Bool(matches!(
                o,
                Some(core::cmp::Ordering::Greater | core::cmp::Ordering::Equal)
            ))
        }),
        (op::ADD, [a, b]) => add(a, b),
        (op::SUBTRACT, [a, b]) => subtract(a, b),
        (op::MULTIPLY, [a, b]) => multiply(a, b),
        (op::DIVIDE, [a, b]) => divide(a, b),
        (op::MODULO, [a, b]) => modulo(a, b),
        (op::NEGATE, [Value::Int(v)]) => v
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| EvalError::overflow("int")),
        (op::NEGATE, [Value::Double(v)]) => Ok(Value::Double(-v)),
        (op::NOT, [Value::Bool(b)]) => Ok(Value::Bool(!b)),
        (op::IN, [needle, haystack]) => contains(haystack, needle),
        (op::INDEX, [container, key]) => index(container, key),
        (op::OPT_INDEX, [container, key]) => opt_index(container, key),
        _ => return None,
    })
}

fn add<'a>(a: &Value<'a>, b: &Value<'a>) -> Out<'a> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_add(*y).ok_or_else(|| EvalError::overflow("int"))?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x.checked_add(*y).ok_or_else(|| EvalError::overflow("uint"))?),
        (Value::Double(x), Value::Double(y)) => Value::Double(x + y),
        (Value::String(x), Value::String(y)) => {
            let mut s = std::string::String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Value::string(s)
        }
        (Value::Bytes(x), Value::Bytes(y)) => Value::bytes([&x[..], &y[..]].concat()),
        (Value::List(x), Value::List(y)) => {
            let mut out = Vec::with_capacity(x.len() + y.len());
            for v in x.iter().chain(y.iter()) {
                out.push(v?);
            }
            Value::list(out)
        }
        (Value::Timestamp(t), Value::Duration(d)) | (Value::Duration(d), Value::Timestamp(t)) => {
            Value::Timestamp(t.checked_add(*d)?)
        }
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(x.checked_add(*y)?),
        _ => return no_overload(op::ADD, &[a.clone(), b.clone()]),
    })
}

fn subtract<'a>(a: &Value<'a>, b: &Value<'a>) -> Out<'a> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_sub(*y).ok_or_else(|| EvalError::overflow("int"))?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x.checked_sub(*y).ok_or_else(|| EvalError::overflow("uint"))?),
        (Value::Double(x), Value::Double(y)) => Value::Double(x - y),
        (Value::Timestamp(x), Value::Timestamp(y)) => Value::Duration(x.since(*y)?),
        (Value::Timestamp(t), Value::Duration(d)) => Value::Timestamp(t.checked_sub(*d)?),
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(x.checked_sub(*y)?),
        _ => return no_overload(op::SUBTRACT, &[a.clone(), b.clone()]),
    })
}

fn multiply<'a>(a: &Value<'a>, b: &Value<'a>) -> Out<'a> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_mul(*y).ok_or_else(|| EvalError::overflow("int"))?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x.checked_mul(*y).ok_or_else(|| EvalError::overflow("uint"))?),
        (Value::Double(x), Value::Double(y)) => Value::Double(x * y),
        _ => return no_overload(op::MULTIPLY, &[a.clone(), b.clone()]),
    })
}

fn divide<'a>(a: &Value<'a>, b: &Value<'a>) -> Out<'a> {
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(EvalError::new("divide by zero"))
        }
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_div(*y).ok_or_else(|| EvalError::overflow("int"))?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x / y),
        (Value::Double(x), Value::Double(y)) => Value::Double(x / y),
        _ => return no_overload(op::DIVIDE, &[a.clone(), b.clone()]),
    })
}

fn modulo<'a>(a: &Value<'a>, b: &Value<'a>) -> Out<'a> {
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(EvalError::new("modulus by zero"))
        }
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_rem(*y).ok_or_else(|| EvalError::overflow("int"))?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x % y),
        _ => return no_overload(op::MODULO, &[a.clone(), b.clone()]),
    })
}

/// `needle in haystack`.
fn contains<'a>(haystack: &Value<'a>, needle: &Value<'a>) -> Out<'a> {
    match haystack {
        Value::List(list) => {
            for v in list.iter() {
                if v?.equals(needle) {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }
        Value::Map(map) => Ok(Value::Bool(map.get(needle)?.is_some())),
        _ => no_overload(op::IN, &[needle.clone(), haystack.clone()]),
    }
}

/// A list index as a `usize`: an int, a uint, or a double with no
/// fraction.
fn list_index(key: &Value<'_>) -> Result<Option<usize>, EvalError> {
    let i = match key {
        Value::Int(i) => i128::from(*i),
        Value::Uint(u) => i128::from(*u),
        #[allow(clippy::cast_possible_truncation)]
        Value::Double(d) if d.fract() == 0.0 && d.is_finite() => *d as i128,
        Value::Double(d) => return Err(EvalError::new(format!("unsupported index value {d}"))),
        other => {
            return Err(EvalError::new(format!(
                "no such overload: index by {}",
                other.type_name()
            )))
        }
    };
    Ok(usize::try_from(i).ok())
}

fn index<'a>(container: &Value<'a>, key: &Value<'a>) -> Out<'a> {
    match container {
        Value::List(list) => match list_index(key)? {
            Some(i) if i < list.len() => list.get(i),
            _ => Err(EvalError::new(format!("index out of bounds: {key:?}"))),
        },
        Value::Map(map) => {
            if !matches!(
                key,
                Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::Double(_) | Value::String(_)
            ) {
                return no_overload(op::INDEX, &[container.clone(), key.clone()]);
            }
            map.get(key)?
                .ok_or_else(|| EvalError::new(format!("no such key: {key:?}")))
        }
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => opt_index(inner, key),
        _ => no_overload(op::INDEX, &[container.clone(), key.clone()]),
    }
}

fn opt_index<'a>(container: &Value<'a>, key: &Value<'a>) -> Out<'a> {
    let found = match container {
        Value::List(list) => match list_index(key)? {
            Some(i) if i < list.len() => Some(list.get(i)?),
            _ => None,
        },
        Value::Map(map) => map.get(key)?,
        Value::Optional(None) => None,
        Value::Optional(Some(inner)) => return opt_index(inner, key),
        _ => return no_overload(op::OPT_INDEX, &[container.clone(), key.clone()]),
    };
    Ok(Value::Optional(found.map(Box::new)))
}

/// `operand.field`: a message's field, or a map's entry.
pub(crate) fn select<'a>(env: &Env, operand: Value<'a>, field: &str) -> Out<'a> {
    match operand {
        Value::Message(msg) => {
            let v = message_field(&msg, field)?;
            Ok(if env.strong_enums_on() {
                strong_enum(&msg, field, v)
            } else {
                v
            })
        }
        Value::Map(map) => map
            .get(&Value::string(field))?
            .ok_or_else(|| EvalError::new(format!("no such key: {field}"))),
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => opt_select(env, *inner, field),
        other => Err(EvalError::new(format!(
            "no such overload: type '{}' does not support field selection",
            other.type_name()
        ))),
    }
}

/// A singular enum field's value as a value of its enum type.
fn strong_enum<'a>(msg: &Msg<'_>, name: &str, v: Value<'a>) -> Value<'a> {
    match (field_named(msg, name).map(|f| (f.kind(), f.is_list())), &v) {
        (Some((crate::reflect::Kind::Enum(e), false)), Value::Int(n)) => match i32::try_from(*n) {
            Ok(n) => Value::Enum(e.full_name().into(), n),
            Err(_) => v,
        },
        _ => v,
    }
}

/// `operand.?field`: the field or entry if present.
pub(crate) fn opt_select<'a>(env: &Env, operand: Value<'a>, field: &str) -> Out<'a> {
    match &operand {
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => opt_select(env, (**inner).clone(), field),
        Value::Map(map) => Ok(Value::Optional(map.get(&Value::string(field))?.map(Box::new))),
        Value::Message(_) => match has(operand.clone(), field)? {
            Value::Bool(true) => Ok(Value::Optional(Some(Box::new(select(env, operand, field)?)))),
            _ => Ok(Value::Optional(None)),
        },
        other => Err(EvalError::new(format!(
            "no such overload: type '{}' does not support field selection",
            other.type_name()
        ))),
    }
}

/// A field of `msg` by name, or an extension of it by full name
/// (`` msg.`pkg.ext` ``).
fn field_named(msg: &Msg<'_>, name: &str) -> Option<crate::reflect::FieldDescriptor> {
    let d = msg.descriptor();
    if name.contains('.') {
        return d
            .pool()
            .get_extension_by_name(name)
            .filter(|e| e.containing_message() == *d);
    }
    d.get_field_by_name(name)
}

fn message_field<'a>(msg: &Msg<'a>, name: &str) -> Out<'a> {
    let Some(field) = field_named(msg, name) else {
        return Err(EvalError::new(format!("no such field: {name}")));
    };
    match msg {
        Msg::Ref(r) => Value::field(*r, &field),
        Msg::Owned(m) => Ok(Value::field(&**m, &field)?.detach()),
    }
}

/// `has(operand.field)`.
pub(crate) fn has(operand: Value<'_>, field: &str) -> Out<'static> {
    match operand {
        Value::Optional(None) => Ok(Value::Bool(false)),
        Value::Optional(Some(inner)) => has(*inner, field),
        Value::Message(msg) => match field_named(&msg, field) {
            Some(f) => Ok(Value::Bool(msg.get().has_field(&f))),
            None => Err(EvalError::new(format!("no such field: {field}"))),
        },
        Value::Map(map) => Ok(Value::Bool(map.get(&Value::string(field))?.is_some())),
        other => Err(EvalError::new(format!(
            "no such overload: has() on {}",
            other.type_name()
        ))),
    }
}

/// The functions of no other group: sizes, the calendar, optionals,
/// protos' extensions, and the map insertion of two-variable macros.
fn other<'a>(env: &Env, function: &str, args: Vec<Value<'a>>) -> Option<Out<'a>> {
    Some(match (function, args.as_slice()) {
        ("size", [Value::String(s)]) => Ok(Value::Int(len(s.chars().count()))),
        ("size", [Value::Bytes(b)]) => Ok(Value::Int(len(b.len()))),
        ("size", [Value::List(l)]) => Ok(Value::Int(len(l.len()))),
        ("size", [Value::Map(m)]) => Ok(Value::Int(len(m.len()))),
        (name, [Value::Timestamp(t)]) if name.starts_with("get") => {
            time::timestamp_part(*t, name, None).map(Value::Int)
        }
        (name, [Value::Timestamp(t), Value::String(zone)]) if name.starts_with("get") => {
            time::timestamp_part(*t, name, Some(zone)).map(Value::Int)
        }
        (name, [Value::Duration(d)]) if name.starts_with("get") => time::duration_part(*d, name).map(Value::Int),
        ("optional.of", [v]) => Ok(Value::Optional(Some(Box::new(v.clone())))),
        ("optional.ofNonZeroValue", [v]) => Ok(Value::Optional((!is_zero(v)).then(|| Box::new(v.clone())))),
        ("optional.none", []) => Ok(Value::Optional(None)),
        ("hasValue", [Value::Optional(o)]) => Ok(Value::Bool(o.is_some())),
        ("value", [Value::Optional(o)]) => match o {
            Some(v) => Ok((**v).clone()),
            None => Err(EvalError::new("optional.none() dereference")),
        },
        ("or", [Value::Optional(a), Value::Optional(b)]) => Ok(Value::Optional(a.clone().or_else(|| b.clone()))),
        ("orValue", [Value::Optional(a), b]) => Ok(a.as_deref().cloned().unwrap_or_else(|| b.clone())),
        ("optional.unwrap" | "unwrapOpt", [Value::List(l)]) => unwrap_optionals(function, l),
        ("proto.hasExt" | "proto.getExt", [Value::Message(m), Value::String(name)]) => {
            extension(env, function, m, name)
        }
        ("cel.@mapInsert", [Value::Map(m), k, v]) => map_insert(m, k.clone(), v.clone()),
        // protovalidate's `getField(rules, 'in')`: a field named by a word
        // CEL reserves.
        ("getField", [v @ (Value::Message(_) | Value::Map(_)), Value::String(name)]) => select(env, v.clone(), name),
        ("cel.@mapInsert", [Value::Map(m), Value::Map(entry)]) => {
            let mut out = match m.entries() {
                Ok(e) => e,
                Err(e) => return Some(Err(e)),
            };
            match entry.entries() {
                Ok(entries) => {
                    for (k, v) in entries {
                        if out.iter().any(|(x, _)| x.equals(&k)) {
                            return Some(Err(EvalError::new(format!("insert failed: key {k:?} already exists"))));
                        }
                        out.push((k, v));
                    }
                    Ok(Value::map(out))
                }
                Err(e) => Err(e),
            }
        }
        _ => return None,
    })
}

fn unwrap_optionals<'a>(function: &str, list: &List<'a>) -> Out<'a> {
    let mut out = Vec::new();
    for v in list.iter() {
        match v? {
            Value::Optional(Some(v)) => out.push(*v),
            Value::Optional(None) => {}
            other => return no_overload(function, &[other]),
        }
    }
    Ok(Value::list(out))
}

fn map_insert<'a>(m: &Map<'a>, k: Value<'a>, v: Value<'a>) -> Out<'a> {
    let mut out = m.entries()?;
    if out.iter().any(|(x, _)| x.equals(&k)) {
        return Err(EvalError::new(format!("insert failed: key {k:?} already exists")));
    }
    out.push((k, v));
    Ok(Value::map(out))
}

/// `proto.hasExt(msg, name)` and `proto.getExt(msg, name)`: the planner
/// passes the extension's name as a string.
fn extension<'a>(env: &Env, function: &str, m: &Msg<'a>, name: &str) -> Out<'a> {
    let pool = m.descriptor().pool();
    let found = env
        .candidates(name)
        .into_iter()
        .find_map(|c| pool.get_extension_by_name(&c))
        .ok_or_else(|| EvalError::new(format!("unknown extension {name}")))?;
    if function == "proto.hasExt" {
        return Ok(Value::Bool(m.get().has_field(&found)));
    }
    match m {
        Msg::Ref(r) => Value::field(*r, &found),
        Msg::Owned(o) => Ok(Value::field(&**o, &found)?.detach()),
    }
}

/// True for the zero value of a type (`optional.ofNonZeroValue`).
fn is_zero(v: &Value<'_>) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Timestamp(t) => *t == Timestamp { seconds: 0, nanos: 0 },
        Value::Duration(d) => *d == Duration { nanos: 0 },
        Value::Message(m) => m.descriptor().fields().all(|f| !m.get().has_field(&f)),
        Value::Optional(o) => o.is_none(),
        Value::Enum(_, v) => *v == 0,
        Value::Type(_) => false,
    }
}

/// A size as CEL's int.
fn len(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl List<'_> {
    /// The elements as a vector, failing on the first that does not
    /// convert.
    ///
    /// # Errors
    /// An element of a field that does not convert.
    pub fn to_vec(&self) -> Result<Vec<Value<'_>>, EvalError> {
        self.iter().collect()
    }
}
