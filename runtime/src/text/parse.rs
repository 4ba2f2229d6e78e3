//! Parsing: text, read with the message's descriptor, into its binary
//! encoding, which the generated decoder then merges. Binary merging gives
//! the text format's semantics for free: a singular field given twice keeps
//! the last value (messages merge), repeated fields append, a oneof keeps
//! its last member, a map its last entry per key.

use std::string::{String, ToString};
use std::vec::Vec;

use super::lexer::{unescape, Kind, Lexer, Token};
use super::Error;
use crate::reflect::pool::{FieldData, MessageData, Tables, Ty};
use crate::wire::varint;

pub struct Parser<'t, 'p> {
    lex: Lexer<'t>,
    peeked: Option<Token<'t>>,
    pool: &'p Tables,
    ignore_unknown: bool,
    /// Messages that may still be opened inside the current one.
    depth_left: u32,
}

impl<'t, 'p> Parser<'t, 'p> {
    pub fn new(text: &'t str, pool: &'p Tables, ignore_unknown: bool, recursion_limit: u32) -> Self {
        Parser {
            lex: Lexer::new(text),
            peeked: None,
            pool,
            ignore_unknown,
            depth_left: recursion_limit,
        }
    }

    /// The whole text as the fields of a `ty`, encoded.
    pub fn parse(mut self, ty: &MessageData) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.fields(ty, None, &mut out)?;
        Ok(out)
    }

    fn peek(&mut self) -> Result<Token<'t>, Error> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.lex.next(false)?;
        self.peeked = Some(t);
        Ok(t)
    }

    fn bump(&mut self) -> Result<Token<'t>, Error> {
        let t = self.peek()?;
        self.peeked = None;
        Ok(t)
    }

    fn try_symbol(&mut self, c: char) -> Result<bool, Error> {
        let found = self.peek()?.kind == Kind::Symbol(c);
        if found {
            self.peeked = None;
        }
        Ok(found)
    }

    fn expect_symbol(&mut self, c: char, what: &str) -> Result<(), Error> {
        if self.try_symbol(c)? {
            return Ok(());
        }
        let t = self.peek()?;
        Err(self.unexpected(t, what))
    }

    fn unexpected(&self, t: Token<'_>, expected: &str) -> Error {
        let found = match t.kind {
            Kind::End => "the end of the text".to_string(),
            Kind::Symbol(c) => std::format!("'{c}'"),
            Kind::Ident(s) | Kind::Int(s) | Kind::Float(s) | Kind::Str(s) | Kind::Url(s) => std::format!("`{s}`"),
        };
        self.lex.error(t.at, std::format!("expected {expected}, found {found}"))
    }

    /// Fields up to `close` (or the end of the text), each optionally
    /// followed by `;` or `,`, encoded as protoc encodes a message: fields
    /// in number order (each one's values in the order written), packed
    /// fields in one record. An `Any`'s value is kept as these bytes, so
    /// they must be the canonical encoding protoc writes.
    fn fields(&mut self, ty: &MessageData, close: Option<char>, out: &mut Vec<u8>) -> Result<(), Error> {
        let mut records: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut packed: Vec<(u32, Vec<u8>)> = Vec::new();
        loop {
            let t = self.peek()?;
            match (t.kind, close) {
                (Kind::End, None) => break,
                (Kind::Symbol(c), Some(close)) if c == close => {
                    self.peeked = None;
                    break;
                }
                (Kind::End, Some(close)) => return Err(self.unexpected(t, &std::format!("a field or '{close}'"))),
                _ => {
                    let mut record = Vec::new();
                    match self.field(ty, &mut record)? {
                        Some((number, true)) => match packed.iter_mut().find(|(n, _)| *n == number) {
                            Some((_, payload)) => payload.extend(strip_tags(&record)),
                            None => packed.push((number, strip_tags(&record))),
                        },
                        // An `Any`'s expansion is its fields 1 and 2.
                        Some((number, false)) => records.push((number, record)),
                        None => records.push((1, record)),
                    }
                }
            }
            if !self.try_symbol(';')? {
                self.try_symbol(',')?;
            }
        }
        for (number, payload) in packed {
            let mut record = Vec::new();
            put_bytes(&mut record, number, &payload);
            records.push((number, record));
        }
        records.sort_by_key(|(number, _)| *number);
        for (_, record) in records {
            out.extend_from_slice(&record);
        }
        Ok(())
    }

    /// One field and its values, encoded into `out`; returns its number and
    /// whether it is packed (`None` for an `Any`'s expansion).
    fn field(&mut self, ty: &MessageData, out: &mut Vec<u8>) -> Result<Option<(u32, bool)>, Error> {
        let t = self.bump()?;
        let field = match t.kind {
            Kind::Symbol('[') if ty.full_name == "google.protobuf.Any" => return self.any(t.at, out).map(|()| None),
            Kind::Symbol('[') => {
                let name = self.bracketed()?;
                if name.contains('/') {
                    return Err(self.lex.error(t.at, "an extension name cannot contain '/'"));
                }
                check_type_name(&self.lex, t.at, &name)?;
                match self.pool.extension(&ty.full_name, &name) {
                    Some(f) => f,
                    None if self.ignore_unknown => return self.skip_field_value().map(|()| None),
                    None => {
                        let what = std::format!("\"{name}\" is not a known extension of {}", ty.full_name);
                        return Err(self.lex.error(t.at, what));
                    }
                }
            }
            Kind::Ident(name) => match self.pool.field_named(ty, name) {
                Some(f) => f,
                None if self.ignore_unknown || ty.reserved_names.iter().any(|r| r == name) => {
                    return self.skip_field_value().map(|()| None)
                }
                None => {
                    let what = std::format!("{} has no field named \"{name}\"", ty.full_name);
                    return Err(self.lex.error(t.at, what));
                }
            },
            // Unknown fields printed by number read back when ignored.
            Kind::Int(_) if self.ignore_unknown => return self.skip_field_value().map(|()| None),
            _ => return Err(self.unexpected(t, "a field name")),
        };
        let (number, packed) = (field.number, field.packed);
        let start = out.len();
        self.field_value(field, out)?;
        // A field without presence holding its zero is not written (but
        // for a map entry's key and value, which always are).
        if !field.presence && !field.repeated() && !ty.map_entry && is_zero_record(&out[start..]) {
            out.truncate(start);
        }
        Ok(Some((number, packed)))
    }

    /// The value(s) of `field` after its name: `: value`, `: [values]`, and
    /// for messages `{...}` with or without the colon.
    fn field_value(&mut self, field: &FieldData, out: &mut Vec<u8>) -> Result<(), Error> {
        if matches!(field.ty, Ty::Message(_)) {
            self.try_symbol(':')?;
        } else {
            self.expect_symbol(':', "':'")?;
        }
        if !(field.repeated() && self.try_symbol('[')?) {
            return self.value(field, out);
        }
        if self.try_symbol(']')? {
            return Ok(());
        }
        loop {
            self.value(field, out)?;
            if self.try_symbol(']')? {
                return Ok(());
            }
            self.expect_symbol(',', "',' or ']'")?;
        }
    }

    /// One value of `field`, encoded with its tag.
    fn value(&mut self, field: &FieldData, out: &mut Vec<u8>) -> Result<(), Error> {
        let n = field.number;
        match field.ty {
            Ty::Message(_) => {
                let at = self.peek()?.at;
                let Some(ty) = self.pool.message_of(field) else {
                    let what = std::format!("{} is not a message field", field.full_name);
                    return Err(self.lex.error(at, what));
                };
                let body = self.message(ty)?;
                if field.delimited {
                    put_tag(out, n, 3);
                    out.extend_from_slice(&body);
                    put_tag(out, n, 4);
                } else {
                    put_bytes(out, n, &body);
                }
            }
            Ty::String | Ty::Bytes => {
                let (bytes, at) = self.string()?;
                if field.utf8 && core::str::from_utf8(&bytes).is_err() {
                    let what = std::format!("field \"{}\" holds invalid UTF-8", field.name);
                    return Err(self.lex.error(at, what));
                }
                put_bytes(out, n, &bytes);
            }
            Ty::Enum(_) => return self.enum_value(field, out),
            ty => {
                let v = self.number(ty, &field.name)?;
                put_tag(out, n, ty.wire_type());
                match ty.wire_type() {
                    0 => put_varint(out, v),
                    // Fixed-width values are their low bytes, little-endian.
                    #[allow(clippy::cast_possible_truncation)]
                    5 => out.extend_from_slice(&(v as u32).to_le_bytes()),
                    _ => out.extend_from_slice(&v.to_le_bytes()),
                }
            }
        }
        Ok(())
    }

    /// A message in `{}` or `<>`, encoded.
    fn message(&mut self, ty: &MessageData) -> Result<Vec<u8>, Error> {
        let close = self.open()?;
        let mut body = Vec::new();
        self.fields(ty, Some(close), &mut body)?;
        self.depth_left += 1;
        Ok(body)
    }

    /// Reads a message's `{` or `<` and returns the delimiter that closes
    /// it; one level deeper (the caller gives it back at the close).
    fn open(&mut self) -> Result<char, Error> {
        let t = self.bump()?;
        let close = match t.kind {
            Kind::Symbol('{') => '}',
            Kind::Symbol('<') => '>',
            _ => return Err(self.unexpected(t, "'{' or '<'")),
        };
        if self.depth_left == 0 {
            return Err(self.lex.error(t.at, "messages nested too deeply"));
        }
        self.depth_left -= 1;
        Ok(close)
    }

    /// `[prefix/full.Type] { ... }` in an `Any`: its `type_url` and `value`.
    fn any(&mut self, at: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        let url = self.bracketed()?;
        let Some((prefix, name)) = url.rsplit_once('/') else {
            return Err(self
                .lex
                .error(at, "an Any's type URL needs a prefix (type.googleapis.com/)"));
        };
        check_url_prefix(&self.lex, at, prefix)?;
        check_type_name(&self.lex, at, name)?;
        let Some(ty) = self.pool.message(name) else {
            let what = std::format!(
                "type {name} of the Any is not registered (fastrs::text::register){}",
                crate::reflect::registry::refusals()
            );
            return Err(self.lex.error(at, what));
        };
        self.try_symbol(':')?;
        let value = self.message(ty)?;
        put_bytes(out, 1, url.as_bytes());
        // `value` has no presence: empty, it is not written.
        if !value.is_empty() {
            put_bytes(out, 2, &value);
        }
        Ok(())
    }

    /// The text between `[` (already read) and `]`, whitespace and comments
    /// left out.
    fn bracketed(&mut self) -> Result<String, Error> {
        let mut name = String::new();
        loop {
            let t = self.lex.next(true)?;
            match t.kind {
                Kind::Url(run) => name.push_str(run),
                Kind::Symbol(']') if !name.is_empty() => return Ok(name),
                _ => return Err(self.unexpected(t, "a name and ']'")),
            }
        }
    }

    /// One or more adjacent quoted strings, joined, and where they start.
    fn string(&mut self) -> Result<(Vec<u8>, usize), Error> {
        let first = self.peek()?;
        if !matches!(first.kind, Kind::Str(_)) {
            return Err(self.unexpected(first, "a string"));
        }
        let mut bytes = Vec::new();
        while let Kind::Str(quoted) = self.peek()?.kind {
            let at = self.bump()?.at;
            unescape(&self.lex, quoted, at, &mut bytes)?;
        }
        Ok((bytes, first.at))
    }

    /// A number of type `ty`, as its wire value (varint or fixed bits).
    #[allow(clippy::cast_sign_loss, clippy::cast_possible_truncation)]
    fn number(&mut self, ty: Ty, name: &str) -> Result<u64, Error> {
        Ok(match ty {
            Ty::Int32 | Ty::Sfixed32 => self.signed(i32::MAX as u64, name)? as u64,
            Ty::Int64 | Ty::Sfixed64 => self.signed(i64::MAX as u64, name)? as u64,
            Ty::Sint32 => u64::from(varint::zigzag32(self.signed(i32::MAX as u64, name)? as i32)),
            Ty::Sint64 => varint::zigzag64(self.signed(i64::MAX as u64, name)?),
            Ty::Uint32 | Ty::Fixed32 => self.unsigned(u64::from(u32::MAX), name)?,
            Ty::Uint64 | Ty::Fixed64 => self.unsigned(u64::MAX, name)?,
            Ty::Bool => u64::from(self.boolean(name)?),
            Ty::Float => u64::from((self.real()? as f32).to_bits()),
            Ty::Double => self.real()?.to_bits(),
            // Handled by `value`.
            Ty::Message(_) | Ty::String | Ty::Bytes | Ty::Enum(_) => 0,
        })
    }

    fn unsigned(&mut self, max: u64, name: &str) -> Result<u64, Error> {
        self.integer(max, false, name)
    }

    #[allow(clippy::cast_possible_wrap)]
    fn signed(&mut self, max: u64, name: &str) -> Result<i64, Error> {
        let negative = self.try_symbol('-')?;
        let v = self.integer(if negative { max + 1 } else { max }, negative, name)?;
        Ok(if negative { (v as i64).wrapping_neg() } else { v as i64 })
    }

    /// An integer token of at most `max` (after a `-` if `negative`).
    fn integer(&mut self, max: u64, negative: bool, name: &str) -> Result<u64, Error> {
        let t = self.bump()?;
        let Kind::Int(text) = t.kind else {
            return Err(self.unexpected(t, &std::format!("an integer for \"{name}\"")));
        };
        match parse_integer(text) {
            Some(v) if v <= max => Ok(v),
            _ => {
                let sign = if negative { "-" } else { "" };
                let what = std::format!("integer {sign}{text} out of range for \"{name}\"");
                Err(self.lex.error(t.at, what))
            }
        }
    }

    /// A double: decimal integers and floats (`1`, `1.5`, `.5`, `1e3`, `2f`),
    /// `inf`, `infinity` and `nan` in any case, each with an optional `-`.
    /// Out-of-range values become infinities or zeros.
    #[allow(clippy::cast_precision_loss)]
    fn real(&mut self) -> Result<f64, Error> {
        let negative = self.try_symbol('-')?;
        let t = self.bump()?;
        let v = match t.kind {
            Kind::Int(text) => {
                if text.len() > 1 && text.starts_with('0') {
                    return Err(self.lex.error(t.at, "floating-point values must be decimal"));
                }
                match text.parse::<u64>() {
                    Ok(v) => v as f64,
                    Err(_) => text.parse::<f64>().unwrap_or(f64::INFINITY),
                }
            }
            Kind::Float(text) => {
                let digits = text.trim_end_matches(['f', 'F']);
                digits
                    .parse::<f64>()
                    .map_err(|_| self.lex.error(t.at, "malformed number"))?
            }
            Kind::Ident(word) => match word.to_ascii_lowercase().as_str() {
                "inf" | "infinity" => f64::INFINITY,
                "nan" => f64::NAN,
                _ => return Err(self.unexpected(t, "a number")),
            },
            _ => return Err(self.unexpected(t, "a number")),
        };
        Ok(if negative { -v } else { v })
    }

    fn boolean(&mut self, name: &str) -> Result<bool, Error> {
        let t = self.peek()?;
        match t.kind {
            Kind::Int(_) => Ok(self.unsigned(1, name)? == 1),
            Kind::Ident("true" | "True" | "t") => {
                self.peeked = None;
                Ok(true)
            }
            Kind::Ident("false" | "False" | "f") => {
                self.peeked = None;
                Ok(false)
            }
            _ => Err(self.unexpected(t, &std::format!("true or false for \"{name}\""))),
        }
    }

    /// An enum value by name or number. A number an enum does not declare
    /// is kept for an open enum, an error for a closed one.
    fn enum_value(&mut self, field: &FieldData, out: &mut Vec<u8>) -> Result<(), Error> {
        let t = self.peek()?;
        let Some(ty) = self.pool.enum_of(field) else {
            let what = std::format!("{} is not an enum field", field.full_name);
            return Err(self.lex.error(t.at, what));
        };
        let number = if let Kind::Ident(name) = t.kind {
            self.peeked = None;
            match ty.number_of(name) {
                Some(n) => n,
                None if self.ignore_unknown => return Ok(()),
                None => {
                    let what = std::format!("{} has no value named {name}", ty.full_name);
                    return Err(self.lex.error(t.at, what));
                }
            }
        } else {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let n = self.signed(i32::MAX as u64, &field.name)? as i32;
            if ty.closed && ty.name_of(n).is_none() {
                if self.ignore_unknown {
                    return Ok(());
                }
                let what = std::format!("{n} is not a value of the closed enum {}", ty.full_name);
                return Err(self.lex.error(t.at, what));
            }
            n
        };
        put_tag(out, field.number, 0);
        // int32 on the wire: sign-extended.
        #[allow(clippy::cast_sign_loss)]
        put_varint(out, i64::from(number) as u64);
        Ok(())
    }

    /// Skips the value of a field that is unknown or reserved: its shape
    /// (`: value`, `: [values]`, `{...}`) is all there is to go by.
    fn skip_field_value(&mut self) -> Result<(), Error> {
        if self.try_symbol(':')? {
            let next = self.peek()?.kind;
            if next != Kind::Symbol('{') && next != Kind::Symbol('<') {
                return self.skip_value();
            }
        }
        self.skip_message()
    }

    fn skip_value(&mut self) -> Result<(), Error> {
        let t = self.peek()?;
        if let Kind::Str(_) = t.kind {
            self.string()?;
            return Ok(());
        }
        if self.try_symbol('[')? {
            if self.try_symbol(']')? {
                return Ok(());
            }
            loop {
                let next = self.peek()?.kind;
                if next == Kind::Symbol('{') || next == Kind::Symbol('<') {
                    self.skip_message()?;
                } else {
                    self.skip_value()?;
                }
                if self.try_symbol(']')? {
                    return Ok(());
                }
                self.expect_symbol(',', "',' or ']'")?;
            }
        }
        let negative = self.try_symbol('-')?;
        let t = self.bump()?;
        match t.kind {
            Kind::Int(_) | Kind::Float(_) => Ok(()),
            Kind::Ident(w) if !negative || matches!(w.to_ascii_lowercase().as_str(), "inf" | "infinity" | "nan") => {
                Ok(())
            }
            _ => Err(self.unexpected(t, "a value")),
        }
    }

    fn skip_message(&mut self) -> Result<(), Error> {
        let close = self.open()?;
        loop {
            if self.try_symbol(close)? {
                break;
            }
            let t = self.bump()?;
            match t.kind {
                Kind::Symbol('[') => {
                    self.bracketed()?;
                }
                Kind::Ident(_) | Kind::Int(_) => {}
                _ => return Err(self.unexpected(t, &std::format!("a field name or '{close}'"))),
            }
            self.skip_field_value()?;
            if !self.try_symbol(';')? {
                self.try_symbol(',')?;
            }
        }
        self.depth_left += 1;
        Ok(())
    }
}

/// An unsigned integer token's value: `0x` hex, `0`-led octal or decimal;
/// `None` past 64 bits.
fn parse_integer(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else {
        text.parse().ok()
    }
}

/// A dotted name of identifiers.
fn check_type_name(lex: &Lexer<'_>, at: usize, name: &str) -> Result<(), Error> {
    let ok = name.split('.').all(|part| {
        let mut chars = part.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if ok {
        Ok(())
    } else {
        Err(lex.error(at, std::format!("\"{name}\" is not a type name")))
    }
}

/// A type URL's prefix (before the last `/`): not empty, not starting with
/// `/`, every `%` followed by two hex digits.
fn check_url_prefix(lex: &Lexer<'_>, at: usize, prefix: &str) -> Result<(), Error> {
    if prefix.is_empty() || prefix.starts_with('/') {
        return Err(lex.error(at, "an Any's type URL needs a prefix (type.googleapis.com/)"));
    }
    let bytes = prefix.as_bytes();
    for (i, _) in prefix.match_indices('%') {
        let escaped = bytes
            .get(i + 1..i + 3)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit));
        if !escaped {
            return Err(lex.error(at, "a '%' in a type URL must start a %XX escape"));
        }
    }
    Ok(())
}

/// True if `record` (one tag and value) holds its type's zero: a varint
/// 0, fixed-width zero bits, or an empty length-delimited value.
fn is_zero_record(record: &[u8]) -> bool {
    let Some(tag_len) = record.iter().position(|x| x & 0x80 == 0) else {
        return false;
    };
    let value = &record[tag_len + 1..];
    match record[0] & 7 {
        0 | 2 => value == [0],
        1 | 5 => value.iter().all(|b| *b == 0),
        _ => false,
    }
}

/// The values of a run of records of one scalar field, without their
/// tags: a packed field's payload.
fn strip_tags(records: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len());
    let mut at = 0;
    let varint_len = |b: &[u8]| b.iter().position(|x| x & 0x80 == 0).map_or(b.len(), |i| i + 1);
    while at < records.len() {
        let tag_len = varint_len(&records[at..]);
        let wire_type = records[at] & 7;
        at += tag_len;
        let len = match wire_type {
            1 => 8,
            5 => 4,
            _ => varint_len(&records[at..]),
        };
        let end = (at + len).min(records.len());
        out.extend_from_slice(&records[at..end]);
        at = end;
    }
    out
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        // The low seven bits, with the continuation bit.
        #[allow(clippy::cast_possible_truncation)]
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    #[allow(clippy::cast_possible_truncation)]
    out.push(v as u8);
}

fn put_tag(out: &mut Vec<u8>, number: u32, wire_type: u8) {
    put_varint(out, u64::from(number) << 3 | u64::from(wire_type));
}

fn put_bytes(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    put_tag(out, number, 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}
