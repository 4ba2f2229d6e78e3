//! CEL's tokens: the lexical grammar of the language definition
//! (`langdef.md`), with the byte offset of each token for errors.

use std::string::String;
use std::vec::Vec;

use super::error::ParseError;

/// A token and where it starts (a byte offset into the source).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub at: u32,
}

/// The kinds of tokens.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Ident(String),
    /// A name in backquotes, allowed after `.` and as a field name in a
    /// message literal: `` m.`in` ``, `` m.`pkg.extension` ``.
    Quoted(String),
    Int(i64),
    /// An integer literal too large for `i64` that a unary minus may still
    /// make fit (`-9223372036854775808`): the parser decides.
    IntMin,
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    True,
    False,
    Null,
    In,
    /// A reserved word that is not an identifier (`as`, `if`, `let`, ...).
    Reserved(&'static str),
    Punct(&'static str),
    End,
}

const RESERVED: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Punctuation, longest first so that `<=` wins over `<`.
const PUNCT: &[&str] = &[
    "==", "!=", "<=", ">=", "&&", "||", ".?", "[?", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",", "(",
    ")", "[", "]", "{", "}",
];

/// Splits `src` into tokens, ending with [`Tok::End`].
pub(crate) fn tokens(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        out: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.out)
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Vec<Token>,
}

fn offset(pos: usize) -> u32 {
    u32::try_from(pos).unwrap_or(u32::MAX)
}

impl Lexer<'_> {
    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError::new(self.src, offset(at), message)
    }

    fn push(&mut self, kind: Tok, at: usize) {
        self.out.push(Token { kind, at: offset(at) });
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn run(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_space();
            let start = self.pos;
            let Some(&c) = self.bytes.get(self.pos) else {
                self.push(Tok::End, start);
                return Ok(());
            };
            match c {
                b'0'..=b'9' => self.number(start)?,
                b'.' if self.peek(1).is_ascii_digit() => self.number(start)?,
                b'"' | b'\'' => {
                    let s = self.string(false)?;
                    self.push(Tok::String(s), start);
                }
                b'r' | b'R' if matches!(self.peek(1), b'"' | b'\'') => {
                    self.pos += 1;
                    let s = self.string(true)?;
                    self.push(Tok::String(s), start);
                }
                b'b' | b'B' if self.bytes_prefix() => self.bytes_literal(start)?,
                c if c == b'_' || c.is_ascii_alphabetic() => self.word(start)?,
                b'`' => self.quoted_name(start)?,
                _ => self.punct(start)?,
            }
        }
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.bytes.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => self.pos += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.bytes.get(self.pos).is_some_and(|&c| c != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// `b"..."`, `B'...'`, `br"..."`, `rb'...'` and the like.
    fn bytes_prefix(&self) -> bool {
        match self.peek(1) {
            b'"' | b'\'' => true,
            b'r' | b'R' => matches!(self.peek(2), b'"' | b'\''),
            _ => false,
        }
    }

    fn bytes_literal(&mut self, start: usize) -> Result<(), ParseError> {
        self.pos += 1;
        let raw = matches!(self.peek(0), b'r' | b'R');
        if raw {
            self.pos += 1;
        }
        let bytes = self.quoted(raw, true)?;
        self.push(Tok::Bytes(bytes), start);
        Ok(())
    }

    fn word(&mut self, start: usize) -> Result<(), ParseError> {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|&c| c == b'_' || c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        // `rb"..."`: a raw bytes literal written with the r first.
        let word = &self.src[start..self.pos];
        if matches!(word, "rb" | "rB" | "Rb" | "RB") && matches!(self.peek(0), b'"' | b'\'') {
            let bytes = self.quoted(true, true)?;
            self.push(Tok::Bytes(bytes), start);
            return Ok(());
        }
        let kind = match word {
            "true" => Tok::True,
            "false" => Tok::False,
            "null" => Tok::Null,
            "in" => Tok::In,
            w => match RESERVED.iter().find(|r| **r == w) {
                Some(r) => Tok::Reserved(r),
                None => Tok::Ident(w.into()),
            },
        };
        self.push(kind, start);
        Ok(())
    }

    fn quoted_name(&mut self, start: usize) -> Result<(), ParseError> {
        let body = start + 1;
        let Some(len) = self.src[body..].find(['`', '\n']) else {
            return Err(self.error(start, "unterminated quoted name"));
        };
        let name = &self.src[body..body + len];
        if len == 0 || self.bytes[body + len] != b'`' {
            return Err(self.error(start, "invalid quoted name"));
        }
        self.pos = body + len + 1;
        self.push(Tok::Quoted(name.into()), start);
        Ok(())
    }

    fn punct(&mut self, start: usize) -> Result<(), ParseError> {
        let rest = &self.src[self.pos..];
        match PUNCT.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => {
                self.pos += p.len();
                self.push(Tok::Punct(p), start);
                Ok(())
            }
            None => {
                let c = rest.chars().next().unwrap_or('?');
                Err(self.error(start, format!("token recognition error at: '{c}'")))
            }
        }
    }

    fn number(&mut self, start: usize) -> Result<(), ParseError> {
        let b = self.bytes;
        if b[self.pos] == b'0' && matches!(self.peek(1), b'x' | b'X') {
            self.pos += 2;
            let digits = self.pos;
            while b.get(self.pos).is_some_and(u8::is_ascii_hexdigit) {
                self.pos += 1;
            }
            let text = &self.src[digits..self.pos];
            if text.is_empty() {
                return Err(self.error(start, "invalid hexadecimal literal"));
            }
            return self.integer(start, text, 16);
        }
        while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        let mut float = false;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            float = true;
            self.pos += 1;
            while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E') {
            let sign = usize::from(matches!(self.peek(1), b'+' | b'-'));
            if self.peek(1 + sign).is_ascii_digit() {
                float = true;
                self.pos += 1 + sign;
                while b.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
            }
        }
        let text = &self.src[start..self.pos];
        if float {
            let value: f64 = text
                .parse()
                .map_err(|_| self.error(start, format!("invalid double literal {text}")))?;
            self.push(Tok::Double(value), start);
            return Ok(());
        }
        self.integer(start, text, 10)
    }

    fn integer(&mut self, start: usize, digits: &str, radix: u32) -> Result<(), ParseError> {
        if matches!(self.peek(0), b'u' | b'U') {
            self.pos += 1;
            let value = u64::from_str_radix(digits, radix)
                .map_err(|_| self.error(start, format!("invalid uint literal {digits}")))?;
            self.push(Tok::Uint(value), start);
            return Ok(());
        }
        match i64::from_str_radix(digits, radix) {
            Ok(v) => self.push(Tok::Int(v), start),
            Err(_) if u64::from_str_radix(digits, radix) == Ok(1 << 63) => self.push(Tok::IntMin, start),
            Err(_) => return Err(self.error(start, format!("invalid int literal {digits}"))),
        }
        Ok(())
    }

    fn string(&mut self, raw: bool) -> Result<String, ParseError> {
        let start = self.pos;
        let bytes = self.quoted(raw, false)?;
        String::from_utf8(bytes).map_err(|_| self.error(start, "invalid UTF-8 in string literal"))
    }

    /// A quoted literal at `pos` (the opening quote), single or triple,
    /// with its escapes decoded (none in a raw literal). In a bytes
    /// literal, `\x`, octal escapes are bytes; in a string they are code
    /// points.
    fn quoted(&mut self, raw: bool, bytes: bool) -> Result<Vec<u8>, ParseError> {
        let open = self.pos;
        let quote = self.bytes[self.pos];
        let triple = self.peek(1) == quote && self.peek(2) == quote;
        self.pos += if triple { 3 } else { 1 };
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.bytes.get(self.pos) else {
                return Err(self.error(open, "unterminated string literal"));
            };
            if c == quote && (!triple || (self.peek(1) == quote && self.peek(2) == quote)) {
                self.pos += if triple { 3 } else { 1 };
                return Ok(out);
            }
            if !triple && (c == b'\n' || c == b'\r') {
                return Err(self.error(open, "unterminated string literal"));
            }
            if c == b'\\' && !raw {
                self.escape(bytes, &mut out)?;
                continue;
            }
            out.push(c);
            self.pos += 1;
        }
    }

    fn escape(&mut self, bytes: bool, out: &mut Vec<u8>) -> Result<(), ParseError> {
        let at = self.pos;
        let c = self.peek(1);
        self.pos += 2;
        let simple = match c {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'\\' | b'?' | b'"' | b'\'' | b'`' => Some(c),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            return Ok(());
        }
        let (digits, radix) = match c {
            b'x' | b'X' => (2, 16),
            b'u' if !bytes => (4, 16),
            b'U' if !bytes => (8, 16),
            b'0'..=b'3' => {
                self.pos -= 1;
                (3, 8)
            }
            _ => return Err(self.error(at, "invalid escape sequence")),
        };
        let end = self.pos + digits;
        let text = self
            .src
            .get(self.pos..end)
            .ok_or_else(|| self.error(at, "invalid escape sequence"))?;
        let value = u32::from_str_radix(text, radix).map_err(|_| self.error(at, "invalid escape sequence"))?;
        self.pos = end;
        if bytes {
            out.push(u8::try_from(value).map_err(|_| self.error(at, "invalid escape sequence"))?);
            return Ok(());
        }
        // In a string, `\xHH` and `\ooo` name code points up to 255.
        let ch = char::from_u32(value).ok_or_else(|| self.error(at, "invalid unicode code point"))?;
        let mut buf = [0; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        tokens(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(
            kinds("1 0x1F 2u 1.5 1e3 .5"),
            [
                Tok::Int(1),
                Tok::Int(31),
                Tok::Uint(2),
                Tok::Double(1.5),
                Tok::Double(1000.0),
                Tok::Double(0.5),
                Tok::End
            ]
        );
        assert_eq!(kinds("9223372036854775808"), [Tok::IntMin, Tok::End]);
        assert!(tokens("99999999999999999999").is_err());
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            kinds(r#""a\nb" 'c' r"\n" """x"y""""#),
            [
                Tok::String("a\nb".into()),
                Tok::String("c".into()),
                Tok::String("\\n".into()),
                Tok::String("x\"y".into()),
                Tok::End
            ]
        );
        assert_eq!(
            kinds(r"b'\xff\377' '\xff'"),
            [Tok::Bytes(vec![0xff, 0xff]), Tok::String("\u{ff}".into()), Tok::End]
        );
        assert!(tokens("'abc").is_err());
    }

    #[test]
    fn words_and_punctuation() {
        assert_eq!(
            kinds("a.?b in [?x] // c"),
            [
                Tok::Ident("a".into()),
                Tok::Punct(".?"),
                Tok::Ident("b".into()),
                Tok::In,
                Tok::Punct("[?"),
                Tok::Ident("x".into()),
                Tok::Punct("]"),
                Tok::End
            ]
        );
        assert_eq!(kinds("if"), [Tok::Reserved("if"), Tok::End]);
    }
}
