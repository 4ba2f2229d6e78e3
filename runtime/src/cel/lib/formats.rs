//! protovalidate's functions on strings and lists: `isEmail`,
//! `isHostname`, `isIp`, `isIpPrefix`, `isUri`, `isUriRef`,
//! `isHostAndPort`, `unique`, `isNan`, `isInf`, `getField`, and
//! `contains`/`startsWith`/`endsWith` on bytes. The string checks are
//! public: generated validators call them directly.

use std::collections::HashSet;

use super::super::error::EvalError;
use super::super::value::{List, Value};
use super::Out;

pub(super) fn call<'a>(function: &str, args: &[Value<'a>]) -> Option<Out<'a>> {
    use Value::{Bool as B, Bytes as Y, Int as I, String as S};
    let bool = |b| Ok(B(b));
    Some(match (function, args) {
        ("isEmail", [S(s)]) => bool(is_email(s)),
        ("isHostname", [S(s)]) => bool(is_hostname(s)),
        ("isIp", [S(s)]) => bool(is_ip(s, 0)),
        ("isIp", [S(s), I(v)]) => bool(is_ip(s, *v)),
        ("isIpPrefix", [S(s)]) => bool(is_ip_prefix(s, 0, false)),
        ("isIpPrefix", [S(s), I(v)]) => bool(is_ip_prefix(s, *v, false)),
        ("isIpPrefix", [S(s), B(strict)]) => bool(is_ip_prefix(s, 0, *strict)),
        ("isIpPrefix", [S(s), I(v), B(strict)]) => bool(is_ip_prefix(s, *v, *strict)),
        ("isUri", [S(s)]) => bool(is_uri(s)),
        ("isUriRef", [S(s)]) => bool(is_uri_ref(s)),
        ("isHostAndPort", [S(s), B(port)]) => bool(is_host_and_port(s, *port)),
        ("isNan", [Value::Double(d)]) => bool(d.is_nan()),
        ("isInf", [Value::Double(d)]) => bool(d.is_infinite()),
        ("isInf", [Value::Double(d), I(sign)]) => bool(match sign {
            0 => d.is_infinite(),
            s if *s > 0 => *d == f64::INFINITY,
            _ => *d == f64::NEG_INFINITY,
        }),
        ("unique", [Value::List(l)]) => unique(l).map(Value::Bool),
        ("contains", [Y(a), Y(b)]) => bool(find(a, b).is_some()),
        ("startsWith", [Y(a), Y(b)]) => bool(a.starts_with(b)),
        ("endsWith", [Y(a), Y(b)]) => bool(a.ends_with(b)),
        _ => return None,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `unique()`: no value repeats (by value within the list's one type;
/// `NaN` repeats nothing, `0.0` and `-0.0` are one value).
///
/// # Errors
/// A list of values other than scalars, strings and bytes.
pub fn unique(list: &List<'_>) -> Result<bool, EvalError> {
    let mut seen = HashSet::with_capacity(list.len());
    for v in list.iter() {
        let key = match v? {
            Value::Bool(b) => Key::Int(i128::from(b)),
            Value::Int(i) => Key::Int(i128::from(i)),
            Value::Uint(u) => Key::Int(i128::from(u)),
            Value::Double(d) if d.is_nan() => continue,
            Value::Double(d) => Key::Double(if d == 0.0 { 0 } else { d.to_bits() }),
            Value::String(s) => Key::Bytes(s.as_bytes().to_vec()),
            Value::Bytes(b) => Key::Bytes(b.to_vec()),
            other => return Err(EvalError::new(format!("unique() of a list of {}", other.type_name()))),
        };
        if !seen.insert(key) {
            return Ok(false);
        }
    }
    Ok(true)
}

#[derive(PartialEq, Eq, Hash)]
enum Key {
    Int(i128),
    Double(u64),
    Bytes(std::vec::Vec<u8>),
}

/// Bytes of a class, by table: one load a byte.
struct ByteClass([bool; 256]);

impl ByteClass {
    /// Letters, digits and the bytes of `extra`.
    const fn alnum_and(extra: &[u8]) -> ByteClass {
        let mut table = [false; 256];
        let mut b: u8 = 0;
        loop {
            table[b as usize] = b.is_ascii_alphanumeric();
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        let mut i = 0;
        while i < extra.len() {
            table[extra[i] as usize] = true;
            i += 1;
        }
        ByteClass(table)
    }

    fn all(&self, bytes: &[u8]) -> bool {
        bytes.iter().all(|b| self.0[usize::from(*b)])
    }
}

/// What an email address's local part may hold.
static EMAIL_LOCAL: ByteClass = ByteClass::alnum_and(b".!#$%&'*+/=?^_`{|}~-");
/// What a hostname's label may hold.
static LABEL: ByteClass = ByteClass::alnum_and(b"-");
/// RFC 3986's `pchar` but percent-encodings: unreserved, sub-delims,
/// `:` and `@`.
static PCHAR: ByteClass = ByteClass::alnum_and(b"-._~!$&'()*+,;=:@");
/// `userinfo` but percent-encodings: unreserved, sub-delims and `:`.
static USERINFO: ByteClass = ByteClass::alnum_and(b"-._~!$&'()*+,;=:");
/// `reg-name` but percent-encodings: unreserved and sub-delims.
static REG_NAME: ByteClass = ByteClass::alnum_and(b"-._~!$&'()*+,;=");

/// A hostname label: 1 to 63 letters, digits and inner hyphens.
fn is_label(b: &[u8]) -> bool {
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            b.len() <= 63 && first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() && LABEL.all(b)
        }
        _ => false,
    }
}

/// An email address as the HTML standard defines a valid one (which
/// RFC 5322 does not): a local part of letters, digits and
/// ``.!#$%&'*+/=?^_`{|}~-``, `@`, and a hostname whose labels are at most
/// 63 letters, digits and inner hyphens.
#[must_use]
pub fn is_email(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(at) = b.iter().position(|c| *c == b'@') else {
        return false;
    };
    let (local, domain) = (&b[..at], &b[at + 1..]);
    !local.is_empty() && EMAIL_LOCAL.all(local) && domain.split(|c| *c == b'.').all(is_label)
}

/// A hostname: labels of 1 to 63 letters, digits and inner hyphens,
/// separated by dots, the last not all digits, 253 characters at most (a
/// trailing dot allowed).
#[must_use]
pub fn is_hostname(s: &str) -> bool {
    if s.len() > 253 {
        return false;
    }
    let s = s.strip_suffix('.').unwrap_or(s);
    let mut all_digits = false;
    for label in s.as_bytes().split(|c| *c == b'.') {
        if !is_label(label) {
            return false;
        }
        all_digits = label.iter().all(u8::is_ascii_digit);
    }
    !all_digits
}

/// An IP address of `version` 4 or 6 (0: either): IPv4 in dotted decimal
/// without leading zeros, IPv6 in its text forms (RFC 4291), with a zone
/// (`fe80::1%eth0`).
#[must_use]
pub fn is_ip(s: &str, version: i64) -> bool {
    match version {
        0 => parse_ipv4(s).is_some() || parse_ipv6(s, true).is_some(),
        4 => parse_ipv4(s).is_some(),
        6 => parse_ipv6(s, true).is_some(),
        _ => false,
    }
}

/// An address and prefix length (`192.168.0.0/16`, `2001:db8::/32`) of
/// `version` 4 or 6 (0: either); with `strict`, the bits after the
/// prefix must be zero.
#[must_use]
pub fn is_ip_prefix(s: &str, version: i64, strict: bool) -> bool {
    let Some((addr, len)) = s.split_once('/') else {
        return false;
    };
    let Some(len) = prefix_length(len) else {
        return false;
    };
    let v4 = || {
        let bits = parse_ipv4(addr)?;
        (len <= 32 && (!strict || len == 32 || bits << len == 0)).then_some(())
    };
    let v6 = || {
        let bits = parse_ipv6(addr, false)?;
        (len <= 128 && (!strict || len == 128 || bits << len == 0)).then_some(())
    };
    match version {
        0 => v4().is_some() || v6().is_some(),
        4 => v4().is_some(),
        6 => v6().is_some(),
        _ => false,
    }
}

/// A prefix length: decimal digits without a leading zero.
fn prefix_length(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 3 || (s.len() > 1 && s.starts_with('0')) || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Dotted decimal IPv4, as 32 bits.
fn parse_ipv4(s: &str) -> Option<u32> {
    let mut bits = 0u32;
    let mut parts = 0;
    for part in s.split('.') {
        parts += 1;
        if parts > 4
            || part.is_empty()
            || part.len() > 3
            || (part.len() > 1 && part.starts_with('0'))
            || !part.bytes().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let octet: u32 = part.parse().ok()?;
        if octet > 255 {
            return None;
        }
        bits = bits << 8 | octet;
    }
    (parts == 4).then_some(bits)
}

/// IPv6 text (`::1`, `2001:db8::8a2e:370:7334`, `::ffff:192.0.2.1`), with
/// a zone after `%` if `zone` allows it, as 128 bits.
fn parse_ipv6(s: &str, zone: bool) -> Option<u128> {
    let s = match s.split_once('%') {
        Some((addr, z)) if zone && !z.is_empty() => addr,
        Some(_) => return None,
        None => s,
    };
    let (head, tail, compressed) = match s.split_once("::") {
        Some((h, t)) => (h, t, true),
        None => (s, "", false),
    };
    if compressed && tail.contains("::") {
        return None;
    }
    let groups = |text: &str, last: bool| -> Option<std::vec::Vec<u16>> {
        let mut out = std::vec::Vec::new();
        if text.is_empty() {
            return Some(out);
        }
        let parts: std::vec::Vec<&str> = text.split(':').collect();
        for (i, part) in parts.iter().enumerate() {
            if last && i == parts.len() - 1 && part.contains('.') {
                let v4 = parse_ipv4(part)?;
                out.push(u16::try_from(v4 >> 16).ok()?);
                out.push(u16::try_from(v4 & 0xffff).ok()?);
            } else {
                if part.is_empty() || part.len() > 4 || !part.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                out.push(u16::from_str_radix(part, 16).ok()?);
            }
        }
        Some(out)
    };
    let head_groups = groups(head, !compressed)?;
    let tail_groups = if compressed {
        groups(tail, true)?
    } else {
        std::vec::Vec::new()
    };
    let n = head_groups.len() + tail_groups.len();
    if (compressed && n > 7) || (!compressed && n != 8) {
        return None;
    }
    let mut all = head_groups;
    all.resize(8 - tail_groups.len(), 0);
    all.extend(tail_groups);
    Some(all.iter().fold(0u128, |acc, g| acc << 16 | u128::from(*g)))
}

/// A host and port: an IPv4 address, a hostname or a bracketed IPv6
/// address, then `:` and a port from 0 to 65535 without leading zeros
/// (required if `port_required`).
#[must_use]
pub fn is_host_and_port(s: &str, port_required: bool) -> bool {
    if s.is_empty() {
        return false;
    }
    let split = s.rfind(':');
    if let Some(rest) = s.strip_prefix('[') {
        let Some(end) = rest.rfind(']') else {
            return false;
        };
        let (host, after) = (&rest[..end], &rest[end + 1..]);
        return match after.strip_prefix(':') {
            None if after.is_empty() => !port_required && is_ip(host, 6),
            Some(port) => is_ip(host, 6) && is_port(port),
            None => false,
        };
    }
    match split {
        None => !port_required && (is_hostname(s) || is_ip(s, 4)),
        Some(i) => {
            let (host, port) = (&s[..i], &s[i + 1..]);
            (is_hostname(host) || is_ip(host, 4)) && is_port(port)
        }
    }
}

fn is_port(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 5
        && s.bytes().all(|c| c.is_ascii_digit())
        && !(s.len() > 1 && s.starts_with('0'))
        && s.parse::<u32>().is_ok_and(|p| p <= 65535)
}

/// An absolute URI (RFC 3986: scheme, `:`, hierarchical part, query,
/// fragment), zone identifiers in IPv6 literals allowed (RFC 6874).
#[must_use]
pub fn is_uri(s: &str) -> bool {
    Uri::new(s).uri()
}

/// A URI or a relative reference (RFC 3986's URI-reference).
#[must_use]
pub fn is_uri_ref(s: &str) -> bool {
    Uri::new(s).uri() || Uri::new(s).relative_ref()
}

/// A parser of RFC 3986's grammar, one rule a method; each returns
/// whether the rule matched at the cursor (and moves past it), leaving
/// the cursor where it was when it did not.
struct Uri<'a> {
    s: &'a [u8],
    at: usize,
    pct_found: bool,
}

impl<'a> Uri<'a> {
    fn new(s: &'a str) -> Self {
        Uri {
            s: s.as_bytes(),
            at: 0,
            pct_found: false,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn take(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn take_if(&mut self, f: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    fn at_end(&self) -> bool {
        self.at >= self.s.len()
    }

    fn uri(&mut self) -> bool {
        if !(self.scheme() && self.take(b':') && self.hier_part()) {
            return false;
        }
        if self.take(b'?') && !self.query() {
            return false;
        }
        if self.take(b'#') && !self.fragment() {
            return false;
        }
        self.at_end()
    }

    fn relative_ref(&mut self) -> bool {
        if !self.relative_part() {
            return false;
        }
        if self.take(b'?') && !self.query() {
            return false;
        }
        if self.take(b'#') && !self.fragment() {
            return false;
        }
        self.at_end()
    }

    fn hier_part(&mut self) -> bool {
        let start = self.at;
        if self.take(b'/') && self.take(b'/') && self.authority() && self.path_abempty() {
            return true;
        }
        self.at = start;
        self.path_absolute() || self.path_rootless() || self.path_end()
    }

    fn relative_part(&mut self) -> bool {
        let start = self.at;
        if self.take(b'/') && self.take(b'/') && self.authority() && self.path_abempty() {
            return true;
        }
        self.at = start;
        self.path_absolute() || self.path_noscheme() || self.path_end()
    }

    fn scheme(&mut self) -> bool {
        let start = self.at;
        if self.take_if(|c| c.is_ascii_alphabetic()) {
            while self.take_if(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')) {}
            if self.peek() == Some(b':') {
                return true;
            }
        }
        self.at = start;
        false
    }

    fn authority_end(&self) -> bool {
        matches!(self.peek(), None | Some(b'?' | b'#' | b'/'))
    }

    fn authority(&mut self) -> bool {
        let start = self.at;
        if self.userinfo() && !self.take(b'@') {
            self.at = start;
            return false;
        }
        if !self.host() {
            self.at = start;
            return false;
        }
        if self.take(b':') && !self.port() {
            self.at = start;
            return false;
        }
        if !self.authority_end() {
            self.at = start;
            return false;
        }
        true
    }

    /// Userinfo, only if an `@` follows it.
    fn userinfo(&mut self) -> bool {
        let start = self.at;
        while self.take_class(&USERINFO) || self.pct_encoded() {}
        if self.peek() == Some(b'@') {
            return true;
        }
        self.at = start;
        false
    }

    fn host(&mut self) -> bool {
        let start = self.at;
        self.pct_found = false;
        let matched = (self.peek() == Some(b'[') && self.ip_literal()) || self.reg_name();
        if !matched {
            return false;
        }
        // Percent-encoded octets of a host must decode to UTF-8.
        !self.pct_found || decodes_to_utf8(&self.s[start..self.at])
    }

    fn port(&mut self) -> bool {
        let start = self.at;
        while self.take_if(|c| c.is_ascii_digit()) {}
        if self.authority_end() {
            return true;
        }
        self.at = start;
        false
    }

    fn ip_literal(&mut self) -> bool {
        let start = self.at;
        if self.take(b'[') {
            let inner = self.at;
            if self.ipv6_address() && self.take(b']') {
                return true;
            }
            self.at = inner;
            if self.ipv6_address()
                && self.take(b'%')
                && self.take(b'2')
                && self.take(b'5')
                && self.zone_id()
                && self.take(b']')
            {
                return true;
            }
            self.at = inner;
            if self.ipv_future() && self.take(b']') {
                return true;
            }
        }
        self.at = start;
        false
    }

    fn ipv6_address(&mut self) -> bool {
        let start = self.at;
        while self.take_if(|c| c.is_ascii_hexdigit() || c == b':' || c == b'.') {}
        let text = core::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        if parse_ipv6(text, false).is_some() {
            return true;
        }
        self.at = start;
        false
    }

    fn zone_id(&mut self) -> bool {
        let start = self.at;
        while self.unreserved() || self.pct_encoded() {}
        self.at > start
    }

    fn ipv_future(&mut self) -> bool {
        let start = self.at;
        if self.take(b'v') && self.take_if(|c| c.is_ascii_hexdigit()) {
            while self.take_if(|c| c.is_ascii_hexdigit()) {}
            if self.take(b'.') {
                let body = self.at;
                while self.unreserved() || self.sub_delims() || self.take(b':') {}
                if self.at > body {
                    return true;
                }
            }
        }
        self.at = start;
        false
    }

    fn reg_name(&mut self) -> bool {
        let start = self.at;
        while self.take_class(&REG_NAME) || self.pct_encoded() {}
        if self.authority_end() || self.peek() == Some(b':') {
            return true;
        }
        self.at = start;
        false
    }

    fn path_end(&self) -> bool {
        matches!(self.peek(), None | Some(b'?' | b'#'))
    }

    fn segments(&mut self) {
        while self.take(b'/') {
            while self.pchar() {}
        }
    }

    fn path_abempty(&mut self) -> bool {
        let start = self.at;
        self.segments();
        if self.path_end() {
            return true;
        }
        self.at = start;
        false
    }

    fn path_absolute(&mut self) -> bool {
        let start = self.at;
        if self.take(b'/') {
            if self.pchar() {
                while self.pchar() {}
                self.segments();
            }
            if self.path_end() {
                return true;
            }
        }
        self.at = start;
        false
    }

    fn path_noscheme(&mut self) -> bool {
        let start = self.at;
        let mut any = false;
        while self.unreserved() || self.pct_encoded() || self.sub_delims() || self.take(b'@') {
            any = true;
        }
        if any {
            self.segments();
            if self.path_end() {
                return true;
            }
        }
        self.at = start;
        false
    }

    fn path_rootless(&mut self) -> bool {
        let start = self.at;
        if self.pchar() {
            while self.pchar() {}
            self.segments();
            if self.path_end() {
                return true;
            }
        }
        self.at = start;
        false
    }

    fn pchar(&mut self) -> bool {
        self.take_class(&PCHAR) || self.pct_encoded()
    }

    /// Takes a byte of `class`.
    fn take_class(&mut self, class: &ByteClass) -> bool {
        match self.peek() {
            Some(c) if class.0[usize::from(c)] => {
                self.at += 1;
                true
            }
            _ => false,
        }
    }

    fn query(&mut self) -> bool {
        while self.pchar() || self.take(b'/') || self.take(b'?') {}
        matches!(self.peek(), None | Some(b'#'))
    }

    fn fragment(&mut self) -> bool {
        while self.pchar() || self.take(b'/') || self.take(b'?') {}
        self.at_end()
    }

    fn pct_encoded(&mut self) -> bool {
        let s = self.s;
        match (s.get(self.at), s.get(self.at + 1), s.get(self.at + 2)) {
            (Some(b'%'), Some(a), Some(b)) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit() => {
                self.at += 3;
                self.pct_found = true;
                true
            }
            _ => false,
        }
    }

    fn unreserved(&mut self) -> bool {
        self.take_if(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'~'))
    }

    fn sub_delims(&mut self) -> bool {
        self.take_if(|c| {
            matches!(
                c,
                b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
            )
        })
    }
}

/// True if `raw`, its `%XX` escapes decoded, is UTF-8.
fn decodes_to_utf8(raw: &[u8]) -> bool {
    let mut out = std::vec::Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() {
            let hex = core::str::from_utf8(&raw[i + 1..i + 3]).unwrap_or("");
            out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    core::str::from_utf8(&out).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert!(is_email("foo@example.com"));
        assert!(is_email("a.b+c@x-y.z"));
        assert!(!is_email("foo@-example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("foo@"));
        assert!(!is_email("foo@bar@baz"));
        assert!(!is_email("<foo@example.com>"));
    }

    #[test]
    fn hostnames() {
        assert!(is_hostname("example.com"));
        assert!(is_hostname("example.com."));
        assert!(!is_hostname("example.123"));
        assert!(!is_hostname("-a.com"));
        assert!(!is_hostname(""));
        assert!(is_hostname("123.com"));
    }

    #[test]
    fn addresses() {
        assert!(is_ip("192.168.0.1", 4));
        assert!(!is_ip("192.168.0.01", 4));
        assert!(!is_ip("256.0.0.1", 0));
        assert!(is_ip("::1", 6));
        assert!(is_ip("fe80::1%eth0", 0));
        assert!(is_ip("::ffff:192.0.2.1", 6));
        assert!(!is_ip("1::2::3", 6));
        assert!(!is_ip("1:2:3:4:5:6:7:8:9", 6));
        assert!(is_ip("1:2:3:4:5:6:7::", 6));
        assert!(is_ip_prefix("192.168.0.0/16", 4, true));
        assert!(!is_ip_prefix("192.168.0.1/16", 4, true));
        assert!(is_ip_prefix("192.168.0.1/16", 4, false));
        assert!(is_ip_prefix("2001:db8::/32", 6, true));
        assert!(!is_ip_prefix("2001:db8::1/32", 0, true));
        assert!(!is_ip_prefix("::1/129", 6, false));
        assert!(!is_ip_prefix("fe80::1%eth0/64", 6, false));
    }

    #[test]
    fn hosts_and_ports() {
        assert!(is_host_and_port("example.com:8080", true));
        assert!(is_host_and_port("[::1]:80", true));
        assert!(is_host_and_port("[::1]", false));
        assert!(!is_host_and_port("[::1]", true));
        assert!(!is_host_and_port("example.com:080", true));
        assert!(!is_host_and_port("example.com:65536", true));
        assert!(is_host_and_port("127.0.0.1", false));
    }

    #[test]
    fn uris() {
        assert!(is_uri("https://example.com/foo/bar?baz=quux#frag"));
        assert!(is_uri("urn:isbn:0451450523"));
        assert!(is_uri("http://[::1]:8080/"));
        assert!(is_uri("http://[fe80::1%25eth0]/"));
        assert!(!is_uri("/relative"));
        assert!(!is_uri("http://exa mple.com"));
        assert!(!is_uri("http://%ff.com"));
        assert!(is_uri_ref("./foo/bar?query"));
        assert!(is_uri_ref("//host/path"));
        assert!(!is_uri_ref("1:bad scheme"));
    }
}
