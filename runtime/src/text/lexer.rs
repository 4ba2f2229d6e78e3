//! Tokens of the text format, as protobuf's tokenizer forms them:
//! identifiers, numbers (integers and floats, `-` being a token of its own),
//! quoted strings, and single-character symbols. Whitespace and `#`
//! comments separate tokens.

use std::string::String;

use super::Error;

/// What a token is. Texts borrow the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind<'t> {
    Ident(&'t str),
    /// Decimal, `0x` hex or `0` octal; no sign.
    Int(&'t str),
    /// With a point, an exponent or an `f` suffix; no sign.
    Float(&'t str),
    /// A quoted string with its quotes, escapes not yet read.
    Str(&'t str),
    /// A run of characters allowed in a type URL (between `[` and `]`).
    Url(&'t str),
    Symbol(char),
    End,
}

#[derive(Clone, Copy, Debug)]
pub struct Token<'t> {
    pub kind: Kind<'t>,
    /// Byte offset of the token's start.
    pub at: usize,
}

pub struct Lexer<'t> {
    text: &'t str,
    pos: usize,
}

impl<'t> Lexer<'t> {
    pub fn new(text: &'t str) -> Self {
        Lexer { text, pos: 0 }
    }

    /// An error at byte offset `at`.
    pub fn error(&self, at: usize, message: impl Into<String>) -> Error {
        Error::at(self.text, at, message.into())
    }

    /// The next token. With `url`, runs of type-URL characters are single
    /// tokens (`type.googleapis.com/pkg.Msg` between brackets).
    pub fn next(&mut self, url: bool) -> Result<Token<'t>, Error> {
        self.skip_blank();
        let bytes = self.text.as_bytes();
        let at = self.pos;
        let Some(&c) = bytes.get(at) else {
            return Ok(Token { kind: Kind::End, at });
        };
        let kind = if url && is_url_char(c) {
            let len = bytes[at..].iter().take_while(|&&b| is_url_char(b)).count();
            Kind::Url(self.take(len))
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = bytes[at..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                .count();
            Kind::Ident(self.take(len))
        } else if c.is_ascii_digit() || (c == b'.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)) {
            self.number()?
        } else if c == b'"' || c == b'\'' {
            Kind::Str(self.string(c)?)
        } else if c < 0x20 || c == 0x7f {
            return Err(self.error(at, "invalid control character"));
        } else if c >= 0x80 {
            return Err(self.error(at, "unexpected non-ASCII character outside a string"));
        } else {
            self.pos += 1;
            Kind::Symbol(char::from(c))
        };
        Ok(Token { kind, at })
    }

    fn take(&mut self, len: usize) -> &'t str {
        let s = &self.text[self.pos..self.pos + len];
        self.pos += len;
        s
    }

    fn skip_blank(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&c) = bytes.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'#' => {
                    let line = bytes[self.pos..].iter().take_while(|&&b| b != b'\n').count();
                    self.pos += line;
                }
                _ => break,
            }
        }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    fn eat(&mut self, pred: impl Fn(u8) -> bool) -> usize {
        let n = self.text.as_bytes()[self.pos..]
            .iter()
            .take_while(|&&b| pred(b))
            .count();
        self.pos += n;
        n
    }

    /// A number, as protobuf's tokenizer reads it: `0x` hex, `0`-led octal,
    /// decimal with optional point, exponent and `f` suffix.
    fn number(&mut self) -> Result<Kind<'t>, Error> {
        let start = self.pos;
        let mut float = false;
        if self.peek_byte(0) == Some(b'0') && matches!(self.peek_byte(1), Some(b'x' | b'X')) {
            self.pos += 2;
            if self.eat(|b| b.is_ascii_hexdigit()) == 0 {
                return Err(self.error(start, "\"0x\" must be followed by hex digits"));
            }
        } else if self.peek_byte(0) == Some(b'0') && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
            self.eat(|b| (b'0'..=b'7').contains(&b));
            if self.peek_byte(0).is_some_and(|b| b.is_ascii_digit()) {
                return Err(self.error(start, "numbers starting with 0 must be octal"));
            }
        } else {
            self.eat(|b| b.is_ascii_digit());
            if self.peek_byte(0) == Some(b'.') {
                float = true;
                self.pos += 1;
                self.eat(|b| b.is_ascii_digit());
            }
            if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
                float = true;
                self.pos += 1;
                if matches!(self.peek_byte(0), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                if self.eat(|b| b.is_ascii_digit()) == 0 {
                    return Err(self.error(start, "an exponent needs digits"));
                }
            }
            if matches!(self.peek_byte(0), Some(b'f' | b'F')) {
                float = true;
                self.pos += 1;
            }
        }
        match self.peek_byte(0) {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                return Err(self.error(self.pos, "a number must be followed by a space or symbol"))
            }
            Some(b'.') => return Err(self.error(self.pos, "unexpected '.' after a number")),
            _ => {}
        }
        let text = &self.text[start..self.pos];
        Ok(if float { Kind::Float(text) } else { Kind::Int(text) })
    }

    /// A quoted string up to its closing quote (escapes are read later).
    fn string(&mut self, quote: u8) -> Result<&'t str, Error> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek_byte(0) {
                None => return Err(self.error(start, "string not closed")),
                Some(b'\n') => return Err(self.error(self.pos, "strings cannot span lines")),
                Some(b'\\') if self.peek_byte(1).is_some_and(|b| b != b'\n') => self.pos += 2,
                Some(b) if b == quote => {
                    self.pos += 1;
                    return Ok(&self.text[start..self.pos]);
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// Characters a type URL may hold, as protobuf's tokenizer allows them.
pub fn is_url_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-.~!$&()*+,;=%/".contains(&b)
}

/// A quoted string's bytes, its escapes read: `\a \b \f \n \r \t \v \\ \'
/// \" \?`, octal `\NNN` (at most `\377`), hex `\xH` or `\xHH`, `\uHHHH`
/// and `\UHHHHHHHH` (a Unicode scalar value: no surrogates, at most
/// `10FFFF`). `at` is the string's offset in `lexer`'s text, for errors.
pub fn unescape(lexer: &Lexer<'_>, quoted: &str, at: usize, out: &mut std::vec::Vec<u8>) -> Result<(), Error> {
    let body = &quoted.as_bytes()[1..quoted.len() - 1];
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let escape_at = at + 1 + i;
        let err = |msg: &str| lexer.error(escape_at, msg);
        let Some(&e) = body.get(i + 1) else {
            return Err(err("unfinished escape"));
        };
        i += 2;
        match e {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => out.push(e),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match body.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                let byte = u8::try_from(v).map_err(|_| err("octal escape above \\377"))?;
                out.push(byte);
            }
            b'x' | b'X' => {
                let digits = body[i..].iter().take(2).take_while(|b| b.is_ascii_hexdigit()).count();
                if digits == 0 {
                    return Err(err("\\x needs hex digits"));
                }
                let v = hex(&body[i..i + digits]);
                i += digits;
                out.push(u8::try_from(v).unwrap_or(0));
            }
            b'u' | b'U' => {
                let want = if e == b'u' { 4 } else { 8 };
                let digits = body[i..]
                    .iter()
                    .take(want)
                    .take_while(|b| b.is_ascii_hexdigit())
                    .count();
                if digits < want {
                    return Err(err(if e == b'u' {
                        "\\u needs four hex digits"
                    } else {
                        "\\U needs eight hex digits"
                    }));
                }
                let v = hex(&body[i..i + want]);
                i += want;
                let c = char::from_u32(v).ok_or_else(|| {
                    err(if (0xd800..0xe000).contains(&v) {
                        "a Unicode escape cannot be a surrogate"
                    } else {
                        "Unicode escape above 10FFFF"
                    })
                })?;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err(err("unknown escape")),
        }
    }
    Ok(())
}

fn hex(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0, |v, &d| v * 16 + char::from(d).to_digit(16).unwrap_or(0))
}
