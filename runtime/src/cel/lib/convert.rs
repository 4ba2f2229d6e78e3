//! The type conversions: `int()`, `uint()`, `double()`, `string()`,
//! `bytes()`, `bool()`, `timestamp()`, `duration()`, `type()`, `dyn()`,
//! and enum conversions with strong enums.

use std::string::String;

use super::super::env::Env;
use super::super::error::EvalError;
use super::super::time::{Duration, Timestamp};
use super::super::value::Value;
use super::Out;

fn range() -> EvalError {
    EvalError::new("range error")
}

/// The conversion `function` of `args`, if it is one.
pub(super) fn call<'a>(env: &Env, function: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    let [arg] = args else {
        return None;
    };
    Some(match function {
        "int" => to_int(arg),
        "uint" => to_uint(arg),
        "double" => to_double(arg),
        "string" => to_string(arg),
        "bytes" => match arg {
            Value::Bytes(_) => Ok(arg.clone()),
            Value::String(s) => Ok(Value::bytes(s.as_bytes())),
            _ => return None,
        },
        "bool" => match arg {
            Value::Bool(_) => Ok(arg.clone()),
            Value::String(s) => match &**s {
                "1" | "t" | "true" | "TRUE" | "True" => Ok(Value::Bool(true)),
                "0" | "f" | "false" | "FALSE" | "False" => Ok(Value::Bool(false)),
                other => Err(EvalError::new(format!(
                    "type conversion error from string to bool: {other:?}"
                ))),
            },
            _ => return None,
        },
        "timestamp" => match arg {
            Value::Timestamp(_) => Ok(arg.clone()),
            Value::String(s) => Timestamp::parse(s).map(Value::Timestamp),
            Value::Int(i) => Timestamp::new(*i, 0).map(Value::Timestamp),
            _ => return None,
        },
        "duration" => match arg {
            Value::Duration(_) => Ok(arg.clone()),
            Value::String(s) => Duration::parse(s).map(Value::Duration),
            _ => return None,
        },
        "type" => Ok(Value::Type(arg.type_of())),
        "dyn" => Ok(arg.clone()),
        name => return enum_conversion(env, name, arg),
    })
}

/// `E(1)` and `E('NAME')` with strong enums.
fn enum_conversion<'a>(env: &Env, name: &str, arg: &Value<'a>) -> Option<Out<'a>> {
    let enum_name = name.strip_prefix("@enum:")?;
    let e = env.descriptor_pool()?.get_enum_by_name(enum_name)?;
    Some(match arg {
        Value::Int(i) => i32::try_from(*i)
            .map(|n| Value::Enum(enum_name.into(), n))
            .map_err(|_| range()),
        Value::String(s) => e
            .get_value_by_name(s)
            .map(|v| Value::Enum(enum_name.into(), v.number()))
            .ok_or_else(|| EvalError::new(format!("invalid enum value name: {}", &**s))),
        _ => return None,
    })
}

fn to_int<'a>(arg: &Value<'a>) -> Out<'a> {
    Ok(Value::Int(match arg {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).map_err(|_| range())?,
        Value::Double(d) => double_to_int(*d)?,
        Value::String(s) => s
            .parse()
            .map_err(|_| EvalError::new(format!("cannot convert {:?} to int", &**s)))?,
        Value::Timestamp(t) => t.seconds,
        Value::Enum(_, v) => i64::from(*v),
        _ => return super::no_overload("int", std::slice::from_ref(arg)),
    }))
}

/// A double to an int, truncating toward zero; out of range (or NaN) is
/// an error. The bounds are exclusive: `2^63` as a double is not an int.
fn double_to_int(d: f64) -> Result<i64, EvalError> {
    if !(d > -9_223_372_036_854_775_808.0 && d < 9_223_372_036_854_775_807.0) {
        return Err(range());
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(d as i64)
}

fn to_uint<'a>(arg: &Value<'a>) -> Out<'a> {
    Ok(Value::Uint(match arg {
        Value::Uint(u) => *u,
        Value::Int(i) => u64::try_from(*i).map_err(|_| range())?,
        Value::Double(d) => {
            if !(*d > -1.0 && *d < 18_446_744_073_709_551_615.0) {
                return Err(range());
            }
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let u = *d as u64;
            u
        }
        Value::String(s) => s
            .parse()
            .map_err(|_| EvalError::new(format!("cannot convert {:?} to uint", &**s)))?,
        _ => return super::no_overload("uint", std::slice::from_ref(arg)),
    }))
}

#[allow(clippy::cast_precision_loss)]
fn to_double<'a>(arg: &Value<'a>) -> Out<'a> {
    Ok(Value::Double(match arg {
        Value::Double(d) => *d,
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::String(s) => {
            parse_double(s).ok_or_else(|| EvalError::new(format!("cannot convert {:?} to double", &**s)))?
        }
        _ => return super::no_overload("double", std::slice::from_ref(arg)),
    }))
}

/// Parses a double as Go's `strconv.ParseFloat` does, with `NaN` and
/// `Infinity` spelled as CEL's conversions take them.
fn parse_double(s: &str) -> Option<f64> {
    match s {
        "NaN" | "nan" => Some(f64::NAN),
        "Infinity" | "+Infinity" | "inf" | "+inf" | "Inf" | "+Inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" | "-Inf" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

fn to_string<'a>(arg: &Value<'a>) -> Out<'a> {
    Ok(match arg {
        Value::String(_) => arg.clone(),
        Value::Int(i) => Value::string(i.to_string()),
        Value::Uint(u) => Value::string(u.to_string()),
        Value::Double(d) => Value::string(format_double(*d)),
        Value::Bool(b) => Value::string(if *b { "true" } else { "false" }),
        Value::Bytes(b) => match core::str::from_utf8(b) {
            Ok(s) => Value::string(s),
            Err(_) => return Err(EvalError::new("invalid UTF-8 in bytes, cannot convert to string")),
        },
        Value::Timestamp(t) => Value::string(t.to_string()),
        Value::Duration(d) => Value::string(d.to_string()),
        Value::Enum(_, v) => Value::string(v.to_string()),
        Value::Type(t) => Value::string(t.runtime_name()),
        _ => return super::no_overload("string", std::slice::from_ref(arg)),
    })
}

/// A double as `string()` prints it: Go's `%g`, the shortest digits that
/// read back, in exponent form below `1e-4` and from `1e6`.
#[must_use]
pub(crate) fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `1.2345e3`.
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
        return out;
    }
    out.push_str(&format_fixed_digits(&digits, exp));
    out
}

/// Digits `d1d2d3...` times `10^exp` (d1 in the units), written without an
/// exponent.
pub(crate) fn format_fixed_digits(digits: &str, exp: i32) -> String {
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if exp < 0 {
        let zeros = usize::try_from(-exp - 1).unwrap_or(0);
        return format!("0.{}{digits}", "0".repeat(zeros));
    }
    if exp + 1 >= n {
        let zeros = usize::try_from(exp + 1 - n).unwrap_or(0);
        return format!("{digits}{}", "0".repeat(zeros));
    }
    let point = usize::try_from(exp + 1).unwrap_or(0);
    format!("{}.{}", &digits[..point], &digits[point..])
}

/// A double as `%s` and `%d` print it: Go's `FormatFloat(d, 'f', -1, 64)`,
/// never in exponent form, `NaN` and `Infinity` by name.
#[must_use]
pub(crate) fn format_double_fixed(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if mantissa.starts_with('-') { "-" } else { "" };
    format!("{sign}{}", format_fixed_digits(&digits, exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_go_does() {
        assert_eq!(format_double(123.456), "123.456");
        assert_eq!(format_double(-4.5e-3), "-0.0045");
        assert_eq!(format_double(1e21), "1e+21");
        assert_eq!(format_double(123_456.0), "123456");
        assert_eq!(format_double(1_234_567.0), "1.234567e+06");
        assert_eq!(format_double(1e-5), "1e-05");
        assert_eq!(format_double(1.0), "1");
        assert_eq!(format_double_fixed(1e21), "1000000000000000000000");
        assert_eq!(format_double_fixed(0.000_001_5), "0.0000015");
        assert_eq!(format_double_fixed(2.25), "2.25");
    }

    #[test]
    fn double_to_int_bounds() {
        assert!(double_to_int(9_223_372_036_854_775_807.0).is_err());
        assert!(double_to_int(-9_223_372_036_854_775_808.0).is_err());
        assert_eq!(double_to_int(-7.9).unwrap(), -7);
    }
}
