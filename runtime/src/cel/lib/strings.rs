//! String and bytes functions: the standard ones (`contains`,
//! `startsWith`, `endsWith`, `matches`) and CEL's strings extension
//! (`charAt`, `indexOf`, `split`, `format`, `strings.quote`, ...), and
//! the base64 encoders. Indices count code points, as CEL does.

use std::string::String;
use std::vec::Vec;

use super::super::error::EvalError;
use super::super::value::{List, Value};
use super::convert::format_double_fixed;
use super::{len, no_overload, Out};

pub(super) fn call<'a>(function: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    use Value::{Int, List as L, String as S};
    Some(match (function, args) {
        ("contains", [S(s), S(t)]) => Ok(Value::Bool(s.contains(&**t))),
        ("startsWith", [S(s), S(t)]) => Ok(Value::Bool(s.starts_with(&**t))),
        ("endsWith", [S(s), S(t)]) => Ok(Value::Bool(s.ends_with(&**t))),
        ("matches", [S(s), S(pattern)]) => super::super::regex::compile(pattern).map(|re| Value::Bool(re.is_match(s))),
        ("charAt", [S(s), Int(i)]) => char_at(s, *i),
        ("indexOf", [S(s), S(t)]) => index_of(s, t, 0),
        ("indexOf", [S(s), S(t), Int(i)]) => index_of(s, t, *i),
        ("lastIndexOf", [S(s), S(t)]) => last_index_of(s, t, None),
        ("lastIndexOf", [S(s), S(t), Int(i)]) => last_index_of(s, t, Some(*i)),
        ("lowerAscii", [S(s)]) => Ok(Value::string(s.to_ascii_lowercase())),
        ("upperAscii", [S(s)]) => Ok(Value::string(s.to_ascii_uppercase())),
        ("replace", [S(s), S(from), S(to)]) => Ok(Value::string(s.replace(&**from, to))),
        ("replace", [S(s), S(from), S(to), Int(n)]) => Ok(Value::string(replace_n(s, from, to, *n))),
        ("split", [S(s), S(sep)]) => Ok(split(s, sep, -1)),
        ("split", [S(s), S(sep), Int(n)]) => Ok(split(s, sep, *n)),
        ("substring", [S(s), Int(start)]) => substring(s, *start, None),
        ("substring", [S(s), Int(start), Int(end)]) => substring(s, *start, Some(*end)),
        ("trim", [S(s)]) => Ok(Value::string(s.trim())),
        ("reverse", [S(s)]) => Ok(Value::string(s.chars().rev().collect::<String>())),
        ("join", [L(list)]) => join(list, ""),
        ("join", [L(list), S(sep)]) => join(list, sep),
        ("strings.quote", [S(s)]) => Ok(Value::string(quote(s))),
        ("format", [S(s), L(list)]) => format(s, list),
        ("base64.encode", [Value::Bytes(b)]) => Ok(Value::string(base64_encode(b))),
        ("base64.decode", [S(s)]) => base64_decode(s).map(Value::bytes),
        _ => return None,
    })
}

fn out_of_range<'a>(i: i64) -> Out<'a> {
    Err(EvalError::new(format!("index out of range: {i}")))
}

/// The byte offset of code point `i` of `s`, if `0 <= i <= len`.
fn byte_at(s: &str, i: i64) -> Option<usize> {
    let i = usize::try_from(i).ok()?;
    if i == 0 {
        return Some(0);
    }
    match s.char_indices().nth(i) {
        Some((at, _)) => Some(at),
        None => (s.chars().count() == i).then_some(s.len()),
    }
}

fn char_at<'a>(s: &str, i: i64) -> Out<'a> {
    match byte_at(s, i) {
        Some(at) => Ok(Value::string(
            s[at..].chars().next().map(String::from).unwrap_or_default(),
        )),
        None => out_of_range(i),
    }
}

fn index_of<'a>(s: &str, t: &str, offset: i64) -> Out<'a> {
    let Some(at) = byte_at(s, offset) else {
        return out_of_range(offset);
    };
    Ok(Value::Int(match s[at..].find(t) {
        Some(found) => len(s[..at + found].chars().count()),
        None => -1,
    }))
}

fn last_index_of<'a>(s: &str, t: &str, offset: Option<i64>) -> Out<'a> {
    let end = match offset {
        None => s.len(),
        Some(i) => match byte_at(s, i) {
            // A match may start at the offset and run past it.
            Some(at) => (at + t.len()).min(s.len()),
            None => return out_of_range(i),
        },
    };
    let mut end = end;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    Ok(Value::Int(match s[..end].rfind(t) {
        Some(found) => len(s[..found].chars().count()),
        None => -1,
    }))
}

fn replace_n(s: &str, from: &str, to: &str, n: i64) -> String {
    match usize::try_from(n) {
        Ok(n) => s.replacen(from, to, n),
        Err(_) => s.replace(from, to),
    }
}

fn split<'a>(s: &str, sep: &str, n: i64) -> Value<'a> {
    let parts: Vec<Value<'a>> = match n {
        0 => Vec::new(),
        n if n < 0 => {
            if sep.is_empty() {
                s.chars().map(|c| Value::string(String::from(c))).collect()
            } else {
                s.split(sep).map(Value::string).collect()
            }
        }
        n => {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if sep.is_empty() {
                let chars: Vec<char> = s.chars().collect();
                let mut out: Vec<Value<'a>> = chars
                    .iter()
                    .take(n.saturating_sub(1))
                    .map(|c| Value::string(String::from(*c)))
                    .collect();
                if chars.len() >= n {
                    out.push(Value::string(chars[n - 1..].iter().collect::<String>()));
                }
                out
            } else {
                s.splitn(n, sep).map(Value::string).collect()
            }
        }
    };
    Value::list(parts)
}

fn substring<'a>(s: &str, start: i64, end: Option<i64>) -> Out<'a> {
    let Some(from) = byte_at(s, start) else {
        return out_of_range(start);
    };
    let to = match end {
        None => s.len(),
        Some(e) => match byte_at(s, e) {
            Some(to) if e >= start => to,
            Some(_) => {
                return Err(EvalError::new(format!(
                    "invalid substring range. start: {start}, end: {e}"
                )))
            }
            None => return out_of_range(e),
        },
    };
    Ok(Value::string(&s[from..to]))
}

fn join<'a>(list: &List<'a>, sep: &str) -> Out<'a> {
    let mut out = String::new();
    for (i, v) in list.iter().enumerate() {
        match v? {
            Value::String(s) => {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(&s);
            }
            other => return no_overload("join", &[other]),
        }
    }
    Ok(Value::string(out))
}

/// `strings.quote`: a double-quoted string literal with C escapes.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `format`: printf-style substitution (`%s`, `%d`, `%f`, `%e`, `%b`,
/// `%o`, `%x`, `%X`, with a precision for `%f` and `%e`; `%%` for `%`), as
/// cel-go's strings extension does it.
fn format<'a>(pattern: &str, args: &List<'a>) -> Out<'a> {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.char_indices().peekable();
    let mut next = 0usize;
    while let Some((_, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek().map(|(_, c)| *c) == Some('%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut precision = None;
        if chars.peek().map(|(_, c)| *c) == Some('.') {
            chars.next();
            let mut digits = String::new();
            while let Some((_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            precision = Some(digits.parse::<usize>().unwrap_or(0));
        }
        let Some((_, verb)) = chars.next() else {
            return Err(EvalError::new(
                "could not parse formatting clause: unexpected end of string",
            ));
        };
        if !matches!(verb, 's' | 'd' | 'f' | 'e' | 'b' | 'o' | 'x' | 'X') {
            return Err(EvalError::new(format!(
                "could not parse formatting clause: unrecognized formatting clause \"{verb}\""
            )));
        }
        if next >= args.len() {
            return Err(EvalError::new(format!("index {next} out of range")));
        }
        let arg = args.get(next)?;
        next += 1;
        let text =
            clause(verb, precision, &arg).map_err(|e| EvalError::new(format!("error during formatting: {e}")))?;
        out.push_str(&text);
    }
    Ok(Value::string(out))
}

fn clause(verb: char, precision: Option<usize>, arg: &Value<'_>) -> Result<String, String> {
    let ty = || arg.type_of().to_string();
    match verb {
        's' => format_string(arg),
        'd' => match arg {
            Value::Int(i) => Ok(i.to_string()),
            Value::Uint(u) => Ok(u.to_string()),
            Value::Double(d) => Ok(format_double_fixed(*d)),
            _ => Err(format!(
                "decimal clause can only be used on integers, was given {}",
                ty()
            )),
        },
        'f' | 'e' => {
            #[allow(clippy::cast_precision_loss)]
            let d = match arg {
                Value::Double(d) => *d,
                Value::Int(i) => *i as f64,
                Value::Uint(u) => *u as f64,
                _ if verb == 'f' => {
                    return Err(format!(
                        "fixed-point clause can only be used on doubles, was given {}",
                        ty()
                    ))
                }
                _ => {
                    return Err(format!(
                        "scientific clause can only be used on doubles, was given {}",
                        ty()
                    ))
                }
            };
            if d.is_nan() || d.is_infinite() {
                return Ok(format_double_fixed(d));
            }
            let p = precision.unwrap_or(6);
            if verb == 'f' {
                Ok(format!("{d:.p$}"))
            } else {
                Ok(go_exponent(&format!("{d:.p$e}")))
            }
        }
        'b' => match arg {
            Value::Int(i) => Ok(signed_radix(*i, |u| format!("{u:b}"))),
            Value::Uint(u) => Ok(format!("{u:b}")),
            Value::Bool(b) => Ok(if *b { "1" } else { "0" }.into()),
            _ => Err(format!(
                "only integers and bools can be formatted as binary, was given {}",
                ty()
            )),
        },
        'o' => match arg {
            Value::Int(i) => Ok(signed_radix(*i, |u| format!("{u:o}"))),
            Value::Uint(u) => Ok(format!("{u:o}")),
            _ => Err(format!("octal clause can only be used on integers, was given {}", ty())),
        },
        _ => {
            let lower = match arg {
                Value::Int(i) => signed_radix(*i, |u| format!("{u:x}")),
                Value::Uint(u) => format!("{u:x}"),
                Value::String(s) => s.bytes().map(|b| format!("{b:02x}")).collect(),
                Value::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
                _ => {
                    return Err(format!(
                        "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                        ty()
                    ))
                }
            };
            Ok(if verb == 'X' { lower.to_ascii_uppercase() } else { lower })
        }
    }
}

/// An int in another radix, with a minus sign rather than two's complement.
fn signed_radix(i: i64, radix: impl Fn(u64) -> String) -> String {
    if i < 0 {
        format!("-{}", radix(i.unsigned_abs()))
    } else {
        radix(i.unsigned_abs())
    }
}

/// Rust's `1.5e3` exponent as C's and Go's `1.5e+03`.
fn go_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s.into(),
    }
}

/// `%s` of any value but a message: lists and maps written out, map keys
/// in order of their text.
pub(crate) fn format_string(arg: &Value<'_>) -> Result<String, String> {
    Ok(match arg {
        Value::String(s) => String::from(&**s),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_double_fixed(*d),
        Value::Null => "null".into(),
        Value::Timestamp(t) => t.to_string(),
        Value::Duration(d) => {
            let (s, n) = d.parts();
            #[allow(clippy::cast_precision_loss)]
            let secs = s as f64 + f64::from(n) / 1e9;
            format!("{}s", format_double_fixed(secs))
        }
        Value::Type(t) => t.runtime_name(),
        Value::Enum(_, v) => v.to_string(),
        Value::List(list) => {
            let mut parts = Vec::with_capacity(list.len());
            for v in list.iter() {
                parts.push(format_string(&v.map_err(|e| e.to_string())?)?);
            }
            format!("[{}]", parts.join(", "))
        }
        Value::Map(map) => {
            let mut parts = Vec::with_capacity(map.len());
            for (k, v) in map.entries().map_err(|e| e.to_string())? {
                parts.push((format_string(&k)?, format_string(&v)?));
            }
            parts.sort();
            let parts: Vec<String> = parts.into_iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => {
            return Err(format!(
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                other.type_of()
            ))
        }
    })
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
#[must_use]
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(BASE64[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64, padded or not.
fn base64_decode(text: &str) -> Result<Vec<u8>, EvalError> {
    let bad = || EvalError::new("illegal base64 data");
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 || (text.len() != trimmed.len() && !text.len().is_multiple_of(4)) {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = BASE64.iter().position(|b| *b == c).ok_or_else(bad)?;
        acc = acc << 6 | u32::try_from(v).map_err(|_| bad())?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from(acc >> bits & 0xff).map_err(|_| bad())?);
        }
    }
    if trimmed.len() % 4 == 1 {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8").unwrap(), b"hello");
        assert!(base64_decode("a").is_err());
    }

    #[test]
    fn exponents_as_go_writes_them() {
        assert_eq!(go_exponent("1.052033e3"), "1.052033e+03");
        assert_eq!(go_exponent("2.718280e0"), "2.718280e+00");
        assert_eq!(go_exponent("1.5e-7"), "1.5e-07");
    }

    #[test]
    fn code_point_indices() {
        assert_eq!(byte_at("ta©o", 3), Some(4));
        assert_eq!(byte_at("ta©o", 4), Some(5));
        assert_eq!(byte_at("ta©o", 5), None);
    }
}
