//! protovalidate's standard rules, checked natively: each rule id of
//! `validate.proto` whose CEL compares a value with constants becomes a
//! [`Predicate`] on the value, its constants read once from the rules. A
//! predicate is true when the value breaks the rule.
//!
//! The predicates are the one implementation of these rules: the dynamic
//! validator calls [`Predicate::violated`], and generated code calls the
//! typed functions below with the constants as literals. A test checks
//! every predicate against the CEL that `validate.proto` writes for its
//! rule, over many values.

use core::cmp::Ordering;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use crate::cel::formats;
use crate::cel::{Timestamp, Value};

/// A standard rule on a value: true when the value breaks it.
#[derive(Clone, Debug)]
pub enum Predicate {
    /// `this != c`.
    NotEqual(Value<'static>),
    /// `this >= c` (`lt`), or `this > c` with `inclusive` (`lte`).
    AtLeast {
        /// The bound.
        bound: Value<'static>,
        /// `lte` rather than `lt`.
        inclusive: bool,
    },
    /// `this <= c` (`gt`), or `this < c` with `inclusive` (`gte`).
    AtMost {
        /// The bound.
        bound: Value<'static>,
        /// `gte` rather than `gt`.
        inclusive: bool,
    },
    /// Outside `(lower, upper)`: `this >= upper || this <= lower` (each
    /// bound inclusive or not): `gt_lt`, `gte_lte`, ...
    Outside {
        /// `gt` or `gte`.
        lower: Value<'static>,
        /// `gte` rather than `gt`.
        lower_inclusive: bool,
        /// `lt` or `lte`.
        upper: Value<'static>,
        /// `lte` rather than `lt`.
        upper_inclusive: bool,
    },
    /// Inside `[upper, lower]` when the range is inverted
    /// (`gt_lt_exclusive`, ...): `upper <= this && this <= lower`, each
    /// end open where its bound is inclusive (`lte < this`, `this < gte`).
    Inside {
        /// `lt` or `lte`, below the lower bound.
        upper: Value<'static>,
        /// `lte` rather than `lt`.
        upper_inclusive: bool,
        /// `gt` or `gte`.
        lower: Value<'static>,
        /// `gte` rather than `gt`.
        lower_inclusive: bool,
    },
    /// `!(this in list)`.
    NotIn(Arc<[Value<'static>]>),
    /// `this in list`.
    In(Arc<[Value<'static>]>),
    /// `this.isNan() || this.isInf()`.
    NotFinite,
    /// The size differs from, is below or above `n` (`Size::*`).
    Size(Size, Measure, u64),
    /// `!this.matches(re)` (for bytes: of the bytes as a string).
    NoMatch(Arc<crate::cel::regex::Matcher>),
    /// Not starting with.
    NoPrefix(Value<'static>),
    /// Not ending with.
    NoSuffix(Value<'static>),
    /// Not containing.
    NotContaining(Value<'static>),
    /// Containing.
    Containing(Value<'static>),
    /// Empty (`this == ''`, `this.size() == 0`).
    Empty,
    /// Not empty and not of `Format` (`this != '' && !this.isEmail()`,
    /// ...); `Format::UriRef` and `Format::HeaderValue` apply to empty
    /// strings too.
    NotFormat(Format),
    /// Bytes of a size other than those listed (and not empty).
    BytesSizeNot(&'static [usize]),
    /// `this > now` (`lt_now`).
    AfterNow,
    /// `this < now` (`gt_now`).
    BeforeNow,
    /// `this < now - d || this > now + d`.
    NotWithin(crate::cel::Duration),
    /// A field mask's paths differ from these.
    PathsNotEqual(Arc<[String]>),
    /// A path of the mask is neither one of these nor under one.
    PathsNotIn(Arc<[String]>),
    /// A path of the mask is one of these or under one.
    PathsIn(Arc<[String]>),
    /// A list whose items repeat.
    NotUnique,
}

/// How a size compares with its bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// `!= n`.
    Exactly,
    /// `< n`.
    AtLeast,
    /// `> n`.
    AtMost,
}

/// What a size counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// A string's code points.
    Chars,
    /// A string's or bytes' bytes.
    Bytes,
    /// A list's items or a map's entries.
    Items,
}

/// The string formats of `StringRules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `email`.
    Email,
    /// `hostname`.
    Hostname,
    /// `ip`, `ipv4`, `ipv6` (0, 4, 6).
    Ip(i64),
    /// `uri`.
    Uri,
    /// `uri_ref` (empty allowed).
    UriRef,
    /// `address`: a hostname or an IP address.
    Address,
    /// `uuid`.
    Uuid,
    /// `tuuid`: 32 hex digits.
    Tuuid,
    /// `ip_with_prefixlen` and the like: version and strictness.
    IpPrefix(i64, bool),
    /// `host_and_port`.
    HostAndPort,
    /// `ulid`.
    Ulid,
    /// `protobuf_fqn`, and with `true` `protobuf_dot_fqn`.
    ProtobufName(bool),
    /// `well_known_regex: HTTP_HEADER_NAME`, strict or not.
    HeaderName(bool),
    /// `well_known_regex: HTTP_HEADER_VALUE` (empty allowed), strict or not.
    HeaderValue(bool),
}

impl Predicate {
    /// True if `this` breaks the rule; `now` gives the time, for the rules
    /// of timestamps that need it.
    ///
    /// # Errors
    /// A value the rule cannot apply to (a type the rules did not expect,
    /// or bytes that are not UTF-8 under `pattern`).
    pub fn violated(&self, this: &Value<'_>, now: impl FnOnce() -> Timestamp) -> Result<bool, String> {
        let cmp = |bound: &Value<'_>| this.compare(bound).map_err(|e| e.to_string());
        let nan = matches!(this, Value::Double(d) if d.is_nan());
        Ok(match self {
            Predicate::NotEqual(c) => !this.equals(c),
            Predicate::AtLeast { bound, inclusive } => nan || above(cmp(bound)?, *inclusive),
            Predicate::AtMost { bound, inclusive } => nan || below(cmp(bound)?, *inclusive),
            Predicate::Outside {
                lower,
                lower_inclusive,
                upper,
                upper_inclusive,
            } => nan || above(cmp(upper)?, *upper_inclusive) || below(cmp(lower)?, *lower_inclusive),
            Predicate::Inside {
                upper,
                upper_inclusive,
                lower,
                lower_inclusive,
            } => nan || (above(cmp(upper)?, *upper_inclusive) && below(cmp(lower)?, *lower_inclusive)),
            Predicate::NotIn(list) => !list.iter().any(|v| this.equals(v)),
            Predicate::In(list) => list.iter().any(|v| this.equals(v)),
            Predicate::NotFinite => matches!(this, Value::Double(d) if !d.is_finite()),
            Predicate::Size(size, Measure::Chars, n) if matches!(this, Value::String(_)) => match this {
                Value::String(s) => size.broken_by_chars(s, *n),
                _ => false,
            },
            Predicate::Size(size, measure, n) => {
                let len = measure_of(this, *measure).ok_or_else(|| mismatch(this))?;
                size.broken_by(len, *n)
            }
            Predicate::NoMatch(re) => match this {
                Value::String(s) => !re.is_match(s),
                Value::Bytes(b) => match core::str::from_utf8(b) {
                    Ok(s) => !re.is_match(s),
                    Err(_) => return Err("invalid UTF-8 in bytes, cannot convert to string".into()),
                },
                other => return Err(mismatch(other)),
            },
            Predicate::NoPrefix(p) => !affix(this, p, |a, b| a.starts_with(b))?,
            Predicate::NoSuffix(p) => !affix(this, p, |a, b| a.ends_with(b))?,
            Predicate::NotContaining(p) => !affix(this, p, find)?,
            Predicate::Containing(p) => affix(this, p, find)?,
            Predicate::Empty => measure_of(this, Measure::Bytes).ok_or_else(|| mismatch(this))? == 0,
            Predicate::NotFormat(format) => match this {
                Value::String(s) => not_format(s, *format),
                other => return Err(mismatch(other)),
            },
            Predicate::BytesSizeNot(sizes) => match this {
                Value::Bytes(b) => !b.is_empty() && !sizes.contains(&b.len()),
                other => return Err(mismatch(other)),
            },
            Predicate::AfterNow => matches!(this, Value::Timestamp(t) if *t > now()),
            Predicate::BeforeNow => matches!(this, Value::Timestamp(t) if *t < now()),
            Predicate::NotWithin(d) => match this {
                Value::Timestamp(t) => not_within(*t, *d, now()).map_err(|e| e.to_string())?,
                other => return Err(mismatch(other)),
            },
            Predicate::PathsNotEqual(want) => paths(this)? != **want,
            Predicate::PathsNotIn(allowed) => !paths(this)?.iter().all(|p| under_any(p, allowed)),
            Predicate::PathsIn(blocked) => paths(this)?.iter().any(|p| under_any(p, blocked)),
            Predicate::NotUnique => match this {
                Value::List(list) => !formats::unique(list).map_err(|e| e.to_string())?,
                other => return Err(mismatch(other)),
            },
        })
    }
}

/// `t < now - d || t > now + d`.
///
/// # Errors
/// `now ± d` is out of the timestamps' range.
pub fn not_within(t: Timestamp, d: crate::cel::Duration, now: Timestamp) -> Result<bool, crate::cel::EvalError> {
    Ok(t < now.checked_sub(d)? || t > now.checked_add(d)?)
}

fn mismatch(v: &Value<'_>) -> String {
    format!("a standard rule applied to a value of type {}", v.type_name())
}

/// With `inclusive`, `ord` is `>` (above an inclusive bound: `this > c`
/// breaks `lte`); without, `>=`.
fn above(ord: Option<Ordering>, inclusive: bool) -> bool {
    match ord {
        Some(Ordering::Greater) => true,
        Some(Ordering::Equal) => !inclusive,
        _ => false,
    }
}

/// With `inclusive`, `ord` is `<`; without, `<=`.
fn below(ord: Option<Ordering>, inclusive: bool) -> bool {
    match ord {
        Some(Ordering::Less) => true,
        Some(Ordering::Equal) => !inclusive,
        _ => false,
    }
}

impl Size {
    /// True if a size of `len` breaks the rule of bound `n`.
    #[must_use]
    #[inline]
    pub fn broken_by(self, len: u64, n: u64) -> bool {
        match self {
            Size::Exactly => len != n,
            Size::AtLeast => len < n,
            Size::AtMost => len > n,
        }
    }

    /// True if `s`'s length in code points breaks the rule of bound `n`,
    /// counting them only when its length in bytes (one to four a code
    /// point) does not decide.
    #[must_use]
    #[inline]
    pub fn broken_by_chars(self, s: &str, n: u64) -> bool {
        let bytes = s.len() as u64;
        let (fewest, most) = (bytes.div_ceil(4), bytes);
        match self {
            Size::AtLeast if most < n => true,
            Size::AtLeast if fewest >= n => false,
            Size::AtMost if most <= n => false,
            Size::AtMost if fewest > n => true,
            Size::Exactly if most < n || fewest > n => true,
            // ASCII (checked a word at a time): a byte a code point.
            _ if s.is_ascii() => self.broken_by(bytes, n),
            _ => self.broken_by(s.chars().count() as u64, n),
        }
    }
}

fn measure_of(v: &Value<'_>, measure: Measure) -> Option<u64> {
    let n = match (v, measure) {
        (Value::String(s), Measure::Chars) => s.chars().count(),
        (Value::String(s), Measure::Bytes) => s.len(),
        (Value::Bytes(b), Measure::Bytes | Measure::Chars) => b.len(),
        (Value::List(l), Measure::Items) => l.len(),
        (Value::Map(m), Measure::Items) => m.len(),
        _ => return None,
    };
    u64::try_from(n).ok()
}

fn affix(this: &Value<'_>, p: &Value<'_>, f: impl Fn(&[u8], &[u8]) -> bool) -> Result<bool, String> {
    match (this, p) {
        (Value::String(a), Value::String(b)) => Ok(f(a.as_bytes(), b.as_bytes())),
        (Value::Bytes(a), Value::Bytes(b)) => Ok(f(a, b)),
        (other, _) => Err(mismatch(other)),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// The paths of a `google.protobuf.FieldMask` value.
fn paths(v: &Value<'_>) -> Result<Vec<String>, String> {
    let Value::Message(m) = v else {
        return Err(mismatch(v));
    };
    let Some(field) = m.descriptor().get_field(1) else {
        return Err(mismatch(v));
    };
    match Value::field(m.get(), &field).map_err(|e| e.to_string())? {
        Value::List(list) => list
            .iter()
            .map(|p| match p {
                Ok(Value::String(s)) => Ok(String::from(&*s)),
                _ => Err(mismatch(v)),
            })
            .collect(),
        _ => Err(mismatch(v)),
    }
}

/// `p` is one of `list`, or under one (`a.b` is under `a`).
fn under_any(p: &str, list: &[String]) -> bool {
    list.iter()
        .any(|f| p == f || (p.len() > f.len() && p.starts_with(f.as_str()) && p.as_bytes()[f.len()] == b'.'))
}

/// True for a string that breaks `format`.
#[must_use]
pub fn not_format(s: &str, format: Format) -> bool {
    let empty_ok = !matches!(format, Format::UriRef | Format::HeaderValue(_));
    if empty_ok && s.is_empty() {
        return false;
    }
    !match format {
        Format::Email => formats::is_email(s),
        Format::Hostname => formats::is_hostname(s),
        Format::Ip(v) => formats::is_ip(s, v),
        Format::Uri => formats::is_uri(s),
        Format::UriRef => formats::is_uri_ref(s),
        Format::Address => formats::is_hostname(s) || formats::is_ip(s, 0),
        Format::Uuid => is_uuid(s),
        Format::Tuuid => s.len() == 32 && s.bytes().all(|c| c.is_ascii_hexdigit()),
        Format::IpPrefix(v, strict) => formats::is_ip_prefix(s, v, strict),
        Format::HostAndPort => formats::is_host_and_port(s, true),
        Format::Ulid => is_ulid(s),
        Format::ProtobufName(dot) => is_protobuf_name(s, dot),
        Format::HeaderName(strict) => is_header_name(s, strict),
        Format::HeaderValue(strict) => is_header_value(s, strict),
    }
}

/// `8-4-4-4-12` hex digits.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// 26 characters of Crockford's base32, the first at most `7`.
fn is_ulid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 26
        && (b'0'..=b'7').contains(&b[0])
        && b[1..].iter().all(|c| {
            c.is_ascii_digit()
                || (c.is_ascii_alphabetic() && !matches!(c.to_ascii_uppercase(), b'I' | b'L' | b'O' | b'U'))
        })
}

/// Dot-separated identifiers (`[A-Za-z_][A-Za-z_0-9]*`), after a leading
/// dot if `dot`.
fn is_protobuf_name(s: &str, dot: bool) -> bool {
    let s = match (dot, s.strip_prefix('.')) {
        (true, Some(rest)) => rest,
        (true, None) => return false,
        (false, _) => s,
    };
    s.split('.').all(|part| {
        let b = part.as_bytes();
        !b.is_empty()
            && (b[0].is_ascii_alphabetic() || b[0] == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

/// An HTTP header name: strict, RFC 7230's token (with `:` first for
/// pseudo-headers, and `,`, which `validate.proto`'s pattern lets in);
/// loose, no NUL, CR or LF.
fn is_header_name(s: &str, strict: bool) -> bool {
    if !strict {
        return !s.is_empty() && !s.bytes().any(|c| matches!(c, 0 | b'\n' | b'\r'));
    }
    let s = s.strip_prefix(':').unwrap_or(s);
    !s.is_empty()
        && s.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b','
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'|'
                        | b'~'
                        | b'`'
                )
        })
}

/// An HTTP header value: strict, no control characters but tab; loose,
/// no NUL, CR or LF.
fn is_header_value(s: &str, strict: bool) -> bool {
    if strict {
        !s.chars()
            .any(|c| matches!(c, '\u{0}'..='\u{8}' | '\u{a}'..='\u{1f}' | '\u{7f}'))
    } else {
        !s.bytes().any(|c| matches!(c, 0 | b'\n' | b'\r'))
    }
}
