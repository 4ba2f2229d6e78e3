//! Printing: a message's encoding, walked with its descriptor, as text.
//!
//! Fields come out in field-number order (extensions among them), map
//! entries sorted by key, unknown fields last and only when asked for, as
//! protobuf's own printers do. Printing never fails: bytes that do not fit
//! the schema (an `Any` of an unregistered type, a value whose wire type
//! does not match its field) are printed as unknown fields or strings.

use core::fmt::Write as _;
use std::string::String;
use std::vec::Vec;

use crate::reflect::pool::{FieldData, MessageData, Tables, Ty};
use crate::wire::records::{self, Record, Value};
use crate::wire::varint;

/// Nesting beyond which message values print as strings: bytes inside an
/// `Any` or an unknown field can nest without the limit decoding applied.
const MAX_DEPTH: usize = crate::wire::DEFAULT_RECURSION_LIMIT as usize;

/// How to print.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// One field per line, nested messages indented; else one line.
    pub multi_line: bool,
    pub unknown_fields: bool,
}

pub struct Printer<'p> {
    pool: &'p Tables,
    style: Style,
    out: String,
    indent: usize,
}

impl<'p> Printer<'p> {
    pub fn new(pool: &'p Tables, style: Style) -> Self {
        Printer {
            pool,
            style,
            out: String::new(),
            indent: 0,
        }
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// The fields of `bytes`, an encoded message of type `ty` (`None`: a
    /// type the pool does not know; every field is then unknown).
    pub fn message(&mut self, ty: Option<&MessageData>, bytes: &[u8]) {
        let Some(records) = records::scan(bytes) else {
            // Not a message after all: nothing sensible to show field by field.
            if self.style.unknown_fields {
                self.start_field(format_args!("# unparsable"));
            }
            return;
        };
        if ty.is_some_and(|t| t.full_name == "google.protobuf.Any") && self.any(&records) {
            return;
        }
        let mut known: Vec<(&FieldData, Record<'_>)> = Vec::new();
        let mut unknown: Vec<Record<'_>> = Vec::new();
        for r in records {
            match ty.and_then(|t| self.field_of(t, r.number)) {
                Some(f) if fits(f, &r) && !self.unnamed_closed(f, &r) => known.push((f, r)),
                _ => unknown.push(r),
            }
        }
        // Stable: a repeated field's values stay in order.
        known.sort_by_key(|(f, _)| f.number);
        let mut i = 0;
        while i < known.len() {
            let field = known[i].0;
            let run = known[i..].iter().take_while(|(f, _)| f.number == field.number).count();
            let values: Vec<Record<'_>> = known[i..i + run].iter().map(|&(_, r)| r).collect();
            self.field(field, &values);
            i += run;
        }
        if self.style.unknown_fields {
            for r in &unknown {
                self.unknown(r);
            }
        }
    }

    fn field_of<'t>(&self, ty: &'t MessageData, number: u32) -> Option<&'t FieldData>
    where
        'p: 't,
    {
        ty.field(number)
            .or_else(|| self.pool.extension_numbered(&ty.full_name, number))
    }

    /// True for a closed enum's value the enum does not name: decoding
    /// keeps it as an unknown field, so it prints as one.
    fn unnamed_closed(&self, field: &FieldData, r: &Record<'_>) -> bool {
        match (self.pool.enum_of(field), r.value) {
            // An int32 on the wire: sign-extended to 64 bits.
            #[allow(clippy::cast_possible_truncation)]
            (Some(e), Value::Varint(v)) => e.closed && e.name_of(v as i32).is_none(),
            // A map entry whose (last) value is such a number is kept whole
            // as an unknown field.
            (None, Value::Bytes(entry)) => {
                let Some(value_field) = self
                    .pool
                    .message_of(field)
                    .filter(|m| m.map_entry)
                    .and_then(|m| m.field(2))
                else {
                    return false;
                };
                let mut last = None;
                let _ = records::for_each(entry, |r| {
                    if r.number == 2 && fits(value_field, &r) {
                        last = Some(r);
                    }
                });
                last.is_some_and(|r| self.unnamed_closed(value_field, &r))
            }
            _ => false,
        }
    }

    /// An `Any` whose type is known, as `[type_url] { ... }`; false (nothing
    /// printed) if it cannot be shown so.
    fn any(&mut self, records: &[Record<'_>]) -> bool {
        let mut url = None;
        let mut value: &[u8] = &[];
        for r in records {
            match (r.number, r.value) {
                (1, Value::Bytes(b)) => url = core::str::from_utf8(b).ok(),
                (2, Value::Bytes(b)) => value = b,
                _ => return false,
            }
        }
        let Some(url) = url else { return false };
        let name = url.rsplit_once('/').map_or("", |(_, name)| name);
        let Some(ty) = self.pool.message(name) else {
            return false;
        };
        // Only a URL the parser reads back is printed in brackets.
        if records::scan(value).is_none() || !url.bytes().all(super::lexer::is_url_char) {
            return false;
        }
        self.nested(format_args!("[{url}]"), Some(ty), value);
        true
    }

    /// `head { fields }`, or past [`MAX_DEPTH`] `head: "bytes"`.
    fn nested(&mut self, head: core::fmt::Arguments<'_>, ty: Option<&MessageData>, bytes: &[u8]) {
        if self.indent >= MAX_DEPTH {
            self.start_field(format_args!("{head}: "));
            quote(&mut self.out, bytes, false);
            return;
        }
        self.open(head);
        self.message(ty, bytes);
        self.close();
    }

    /// All values of `field` (its records, in order).
    fn field(&mut self, field: &FieldData, values: &[Record<'_>]) {
        let name = Name(self.pool, field);
        if matches!(field.ty, Ty::Message(_)) {
            let Some(ty) = self.pool.message_of(field) else {
                for r in values {
                    if let Value::Bytes(b) | Value::Group(b) = r.value {
                        self.nested(format_args!("{name}"), None, b);
                    }
                }
                return;
            };
            if ty.map_entry {
                self.map(field, ty, values);
                return;
            }
            for r in values {
                if let Value::Bytes(b) | Value::Group(b) = r.value {
                    self.nested(format_args!("{name}"), Some(ty), b);
                }
            }
            return;
        }
        for r in values {
            match r.value {
                // A packed run: one value after another.
                Value::Bytes(run) if field.ty.packable() => {
                    let mut rest = run;
                    while let Some((v, after)) = one_packed(field.ty, rest) {
                        // A closed enum's unnamed values are unknown fields
                        // once decoded: not this field's.
                        let value = Record {
                            number: field.number,
                            value: v,
                        };
                        if !self.unnamed_closed(field, &value) {
                            self.scalar(field, name, v);
                        }
                        rest = after;
                    }
                }
                v => self.scalar(field, name, v),
            }
        }
    }

    /// Map entries, sorted by key as protobuf's printers do (and with the
    /// key and value always shown).
    fn map(&mut self, field: &FieldData, entry: &MessageData, values: &[Record<'_>]) {
        let (Some(key_field), Some(value_field)) = (entry.field(1), entry.field(2)) else {
            return;
        };
        let mut entries: Vec<(Key<'_>, &[u8])> = values
            .iter()
            .filter_map(|r| match r.value {
                Value::Bytes(b) => Some((Key::of(key_field, b), b)),
                _ => None,
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let name = Name(self.pool, field);
        for (_, bytes) in entries {
            self.open(format_args!("{name}"));
            let records = records::scan(bytes).unwrap_or_default();
            for f in [key_field, value_field] {
                let last = records.iter().rev().find(|r| r.number == f.number && fits(f, r));
                match last {
                    Some(r) => self.field(f, core::slice::from_ref(r)),
                    None => self.default_value(f),
                }
            }
            self.close();
        }
    }

    /// The default of a map entry's key or value, which its encoding may leave out.
    fn default_value(&mut self, f: &FieldData) {
        let value = match f.ty {
            Ty::Message(_) => Value::Bytes(&[]),
            Ty::String | Ty::Bytes => Value::Bytes(&[]),
            Ty::Double | Ty::Fixed64 | Ty::Sfixed64 => Value::Fixed64(0),
            Ty::Float | Ty::Fixed32 | Ty::Sfixed32 => Value::Fixed32(0),
            _ => Value::Varint(0),
        };
        self.field(
            f,
            &[Record {
                number: f.number,
                value,
            }],
        );
    }

    fn scalar(&mut self, field: &FieldData, name: Name<'_>, value: Value<'_>) {
        self.start_field(format_args!("{name}: "));
        match (field.ty, value) {
            (Ty::String | Ty::Bytes, Value::Bytes(b)) => quote(&mut self.out, b, field.ty == Ty::String),
            (Ty::Enum(_), Value::Varint(v)) => {
                // An int32 on the wire: sign-extended to 64 bits.
                #[allow(clippy::cast_possible_truncation)]
                let number = v as i32;
                match self.pool.enum_of(field).and_then(|e| e.name_of(number)) {
                    Some(name) => self.out.push_str(name),
                    None => push_display(&mut self.out, number),
                }
            }
            (ty, v) => number(&mut self.out, ty, v),
        }
    }

    fn unknown(&mut self, r: &Record<'_>) {
        let n = r.number;
        match r.value {
            Value::Varint(v) => self.start_field(format_args!("{n}: {v}")),
            Value::Fixed32(v) => self.start_field(format_args!("{n}: 0x{v:08x}")),
            Value::Fixed64(v) => self.start_field(format_args!("{n}: 0x{v:016x}")),
            Value::Group(body) => self.nested(format_args!("{n}"), None, body),
            // Bytes that read as fields are shown as a message, as protobuf
            // does, unless they are printable text ("hi" reads as field 13).
            Value::Bytes(b) if !b.is_empty() && !is_text(b) && records::scan(b).is_some() => {
                self.nested(format_args!("{n}"), None, b);
            }
            Value::Bytes(b) => {
                self.start_field(format_args!("{n}: "));
                quote(&mut self.out, b, false);
            }
        }
    }

    /// Starts a field: a new line (multi-line) or a space, then `head`.
    fn start_field(&mut self, head: core::fmt::Arguments<'_>) {
        if self.style.multi_line {
            if !self.out.is_empty() {
                self.out.push('\n');
            }
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
        } else if !self.out.is_empty() {
            self.out.push(' ');
        }
        let _ = self.out.write_fmt(head);
    }

    fn open(&mut self, head: core::fmt::Arguments<'_>) {
        self.start_field(head);
        self.out.push_str(" {");
        self.indent += 1;
    }

    fn close(&mut self) {
        self.indent -= 1;
        if self.style.multi_line {
            self.out.push('\n');
            for _ in 0..self.indent {
                self.out.push_str("  ");
            }
        } else {
            self.out.push(' ');
        }
        self.out.push('}');
    }
}

/// A field's name as printed: `[full.name]` for extensions.
#[derive(Clone, Copy)]
struct Name<'f>(&'f Tables, &'f FieldData);

impl core::fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let Name(pool, field) = *self;
        if field.extendee.is_some() {
            write!(f, "[{}]", field.full_name)
        } else {
            f.write_str(pool.printed_name(field))
        }
    }
}

/// Whether record `r` has a wire type field `f` reads (a packed run counts
/// for repeated scalars).
fn fits(f: &FieldData, r: &Record<'_>) -> bool {
    match r.value {
        Value::Group(_) => matches!(f.ty, Ty::Message(_)) && f.delimited,
        Value::Bytes(b) => match f.ty {
            Ty::Message(_) => !f.delimited,
            Ty::String | Ty::Bytes => true,
            ty => f.repeated() && packed_ok(ty, b),
        },
        Value::Varint(_) => f.ty.wire_type() == 0,
        Value::Fixed64(_) => f.ty.wire_type() == 1,
        Value::Fixed32(_) => f.ty.wire_type() == 5,
    }
}

/// Whether `run` is a whole number of packed values of type `ty`.
fn packed_ok(ty: Ty, mut run: &[u8]) -> bool {
    while !run.is_empty() {
        match one_packed(ty, run) {
            Some((_, rest)) => run = rest,
            None => return false,
        }
    }
    true
}

fn one_packed(ty: Ty, run: &[u8]) -> Option<(Value<'_>, &[u8])> {
    match ty.wire_type() {
        0 => records::varint(run).map(|(v, rest)| (Value::Varint(v), rest)),
        1 => run
            .split_first_chunk::<8>()
            .map(|(b, rest)| (Value::Fixed64(u64::from_le_bytes(*b)), rest)),
        5 => run
            .split_first_chunk::<4>()
            .map(|(b, rest)| (Value::Fixed32(u32::from_le_bytes(*b)), rest)),
        _ => None,
    }
}

/// A map key, for sorting entries.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Key<'a> {
    Signed(i64),
    Unsigned(u64),
    Bytes(&'a [u8]),
}

impl<'a> Key<'a> {
    /// The key of an encoded entry (the last key field wins; absent: zero).
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation)]
    fn of(key: &FieldData, entry: &'a [u8]) -> Key<'a> {
        let mut found = None;
        let _ = records::for_each(entry, |r| {
            if r.number == 1 {
                found = Some(r.value);
            }
        });
        match (key.ty, found) {
            (Ty::String | Ty::Bytes, Some(Value::Bytes(b))) => Key::Bytes(b),
            (Ty::String | Ty::Bytes, _) => Key::Bytes(&[]),
            (Ty::Sint32, Some(Value::Varint(v))) => Key::Signed(i64::from(varint::unzigzag32(v as u32))),
            (Ty::Sint64, Some(Value::Varint(v))) => Key::Signed(varint::unzigzag64(v)),
            (Ty::Int32 | Ty::Int64, Some(Value::Varint(v))) => Key::Signed(v as i64),
            (Ty::Sfixed32, Some(Value::Fixed32(v))) => Key::Signed(i64::from(v as i32)),
            (Ty::Sfixed64, Some(Value::Fixed64(v))) => Key::Signed(v as i64),
            (_, Some(Value::Varint(v) | Value::Fixed64(v))) => Key::Unsigned(v),
            (_, Some(Value::Fixed32(v))) => Key::Unsigned(u64::from(v)),
            _ => Key::Signed(0),
        }
    }
}

/// A number of type `ty` from its wire value.
#[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation)]
fn number(out: &mut String, ty: Ty, v: Value<'_>) {
    match (ty, v) {
        (Ty::Int32, Value::Varint(v)) => push_display(out, v as i32),
        (Ty::Int64, Value::Varint(v)) => push_display(out, v as i64),
        (Ty::Uint32, Value::Varint(v)) => push_display(out, v as u32),
        (Ty::Uint64, Value::Varint(v)) => push_display(out, v),
        (Ty::Sint32, Value::Varint(v)) => push_display(out, varint::unzigzag32(v as u32)),
        (Ty::Sint64, Value::Varint(v)) => push_display(out, varint::unzigzag64(v)),
        (Ty::Bool, Value::Varint(v)) => out.push_str(if v != 0 { "true" } else { "false" }),
        (Ty::Fixed32, Value::Fixed32(v)) => push_display(out, v),
        (Ty::Sfixed32, Value::Fixed32(v)) => push_display(out, v as i32),
        (Ty::Float, Value::Fixed32(v)) => float(out, f32::from_bits(v)),
        (Ty::Fixed64, Value::Fixed64(v)) => push_display(out, v),
        (Ty::Sfixed64, Value::Fixed64(v)) => push_display(out, v as i64),
        (Ty::Double, Value::Fixed64(v)) => double(out, f64::from_bits(v)),
        // `fits` admits no other pairs.
        _ => {}
    }
}

fn push_display(out: &mut String, v: impl core::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// The shortest text that reads back as `v` (through a double, as every
/// text parser reads floats).
pub fn float(out: &mut String, v: f32) {
    let mut text = String::new();
    real(&mut text, v, v.is_finite().then(|| std::format!("{v:e}")));
    #[allow(clippy::cast_possible_truncation)]
    let back = text.parse::<f64>().map(|d| d as f32);
    if v.is_finite() && back.map(f32::to_bits) != Ok(v.to_bits()) {
        // The shortest digits of `v` as a float can land elsewhere when read
        // as a double first; nine significant digits never do.
        text.clear();
        let _ = write!(text, "{v:.8e}");
    }
    out.push_str(&text);
}

/// The shortest text that reads back as `v`.
pub fn double(out: &mut String, v: f64) {
    real(out, v, v.is_finite().then(|| std::format!("{v:e}")));
}

/// `inf`, `-inf`, `nan`, or the shortest digits of a finite value: plain
/// for everyday magnitudes, with an exponent otherwise (Rust's `{:e}`,
/// given in `exp`, has the shortest digits in that form).
fn real(out: &mut String, v: impl core::fmt::Display + Copy, exp: Option<String>) {
    let Some(exp) = exp else {
        let text = std::format!("{v}");
        out.push_str(match text.as_str() {
            "inf" => "inf",
            "-inf" => "-inf",
            _ => "nan",
        });
        return;
    };
    let power: i32 = exp.rsplit_once('e').and_then(|(_, p)| p.parse().ok()).unwrap_or(0);
    if (-5..17).contains(&power) {
        let _ = write!(out, "{v}");
    } else {
        out.push_str(&exp);
    }
}

/// `bytes` as a double-quoted string: printable ASCII as is, the usual
/// escapes, other bytes as three-digit octal. With `utf8`, valid UTF-8
/// sequences beyond ASCII are kept as they are.
pub fn quote(out: &mut String, bytes: &[u8], utf8: bool) {
    out.push('"');
    let mut rest = bytes;
    while let Some((&b, after)) = rest.split_first() {
        if b >= 0x80 && utf8 {
            let len = utf8_len(rest);
            if len > 0 {
                // Checked just above: `len` bytes of valid UTF-8.
                out.push_str(core::str::from_utf8(&rest[..len]).unwrap_or_default());
                rest = &rest[len..];
                continue;
            }
        }
        push_escaped(out, b);
        rest = after;
    }
    out.push('"');
}

/// `bytes` C-escaped, as protoc writes a `bytes` field's default into its
/// descriptor: `\n`, `\r`, `\t`, `\"`, `\'`, `\\`, printable ASCII as
/// it is, anything else as three octal digits.
#[must_use]
pub fn c_escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        push_escaped(&mut out, b);
    }
    out
}

/// One byte, C-escaped (see [`c_escape`]).
fn push_escaped(out: &mut String, b: u8) {
    match b {
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        b'"' => out.push_str("\\\""),
        b'\'' => out.push_str("\\'"),
        b'\\' => out.push_str("\\\\"),
        0x20..=0x7e => out.push(char::from(b)),
        _ => {
            let _ = write!(out, "\\{b:03o}");
        }
    }
}

/// Whether `bytes` is UTF-8 without control characters other than line
/// breaks and tabs.
fn is_text(bytes: &[u8]) -> bool {
    core::str::from_utf8(bytes).is_ok_and(|s| s.chars().all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t')))
}

/// The length of the valid UTF-8 character that starts `bytes`, or 0.
fn utf8_len(bytes: &[u8]) -> usize {
    let want = match bytes[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 0,
    };
    match bytes.get(..want).map(core::str::from_utf8) {
        Some(Ok(_)) => want,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_escape_as_c_does() {
        assert_eq!(c_escape(b"a\n\"\x01\xff'"), "a\\n\\\"\\001\\377\\'");
    }

    fn f(v: f32) -> String {
        let mut s = String::new();
        float(&mut s, v);
        s
    }

    fn d(v: f64) -> String {
        let mut s = String::new();
        double(&mut s, v);
        s
    }

    #[test]
    #[allow(clippy::cast_possible_truncation)]
    fn reals_are_shortest_and_read_back() {
        assert_eq!(d(1.5), "1.5");
        assert_eq!(d(-0.0), "-0");
        assert_eq!(d(1e20), "1e20");
        assert_eq!(d(1e-7), "1e-7");
        assert_eq!(d(123456.0), "123456");
        assert_eq!(d(f64::INFINITY), "inf");
        assert_eq!(d(f64::NEG_INFINITY), "-inf");
        assert_eq!(d(f64::NAN), "nan");
        assert_eq!(f(3.192837), "3.192837");
        assert_eq!(f(f32::MAX), "3.4028235e38");
        assert_eq!(f(1.17549e-38), "1.17549e-38");
        for v in [f32::MIN_POSITIVE, 0.1, 16777217.0, 7.038531e-26, f32::from_bits(1)] {
            let back = f(v).parse::<f64>().unwrap() as f32;
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
    }

    #[test]
    fn strings_escape_what_is_not_printable() {
        let mut s = String::new();
        quote(&mut s, "a\"b'\\\n\u{e9}".as_bytes(), true);
        assert_eq!(s, r#""a\"b\'\\\né""#);
        s.clear();
        quote(&mut s, &[0xc3, 0xa9, 0xff, 0x00], false);
        assert_eq!(s, r#""\303\251\377\000""#);
        s.clear();
        quote(&mut s, &[b'a', 0xff, 0xc3], true);
        assert_eq!(s, r#""a\377\303""#);
    }
}
