//! The tokenizer: `.proto` text to tokens with protoc's positions (lines and
//! columns from 0, a tab advancing the column to the next multiple of 8).

use std::fmt;

use crate::error::{Diagnostics, Pos};

/// One token's kind and text.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// An integer literal's value (decimal, hex or octal), without sign.
    Int(u64),
    /// A floating-point literal's value.
    Float(f64),
    /// A string literal's bytes, escapes applied.
    Str(Vec<u8>),
    Symbol(char),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "\"{s}\""),
            Tok::Int(v) => write!(f, "\"{v}\""),
            Tok::Float(v) => write!(f, "\"{v}\""),
            Tok::Str(_) => f.write_str("string"),
            Tok::Symbol(c) => write!(f, "\"{c}\""),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

/// A token with where it starts and ends (end exclusive).
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub start: Pos,
    pub end: Pos,
    /// Where the token's text starts and ends among the file's characters.
    pub from: usize,
    pub to: usize,
}

/// Splits a file's characters into tokens, ending with [`Tok::Eof`].
/// Errors go to `diagnostics`; the tokens after an error are still
/// produced where possible, as protoc does.
pub fn tokenize(chars: &[char], diagnostics: &mut Diagnostics) -> Vec<Token> {
    let mut lexer = Lexer {
        chars,
        at: 0,
        pos: Pos::default(),
        diagnostics,
    };
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next();
        let eof = token.tok == Tok::Eof;
        tokens.push(token);
        if eof {
            return tokens;
        }
    }
}

struct Lexer<'a> {
    chars: &'a [char],
    at: usize,
    pos: Pos,
    diagnostics: &'a mut Diagnostics,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '\n' => {
                self.pos.line += 1;
                self.pos.column = 0;
            }
            '\t' => self.pos.column += 8 - self.pos.column % 8,
            _ => self.pos.column += 1,
        }
        Some(c)
    }

    fn error(&mut self, at: Pos, message: impl Into<String>) {
        self.diagnostics.error(at, message);
    }

    fn next(&mut self) -> Token {
        self.skip_space_and_comments();
        let start = self.pos;
        let from = self.at;
        let tok = match self.peek() {
            None => Tok::Eof,
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.bump();
                }
                Tok::Ident(self.chars[from..self.at].iter().collect())
            }
            Some(c) if c.is_ascii_digit() => self.number(start),
            Some('.') if self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) => self.number(start),
            Some(quote @ ('"' | '\'')) => {
                self.bump();
                Tok::Str(self.string(quote))
            }
            Some(c) => {
                self.bump();
                if c.is_control() || !c.is_ascii() {
                    self.error(start, "Invalid control characters encountered in text.");
                    return self.next();
                }
                Tok::Symbol(c)
            }
        };
        Token {
            tok,
            start,
            end: self.pos,
            from,
            to: self.at,
        }
    }

    fn skip_space_and_comments(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let start = self.pos;
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(), self.peek_at(1)) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => {
                                self.error(self.pos, "End-of-file inside block comment.");
                                self.error(start, "  Comment started here.");
                                return;
                            }
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn digits(&mut self, radix: u32) {
        while self.peek().is_some_and(|c| c.is_digit(radix)) {
            self.bump();
        }
    }

    /// An integer or float literal, starting at a digit or at `.digit`.
    fn number(&mut self, start: Pos) -> Tok {
        let from = self.at;
        let mut float = false;
        let mut radix = 10;
        if self.peek() == Some('0') && matches!(self.peek_at(1), Some('x' | 'X')) {
            self.bump();
            self.bump();
            radix = 16;
            if !self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.error(self.pos, "\"0x\" must be followed by hex digits.");
            }
            self.digits(16);
        } else if self.peek() == Some('0') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            radix = 8;
            self.digits(10);
        } else {
            self.digits(10);
            if self.peek() == Some('.') {
                float = true;
                self.bump();
                self.digits(10);
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                float = true;
                self.bump();
                if matches!(self.peek(), Some('+' | '-')) {
                    self.bump();
                }
                if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.error(self.pos, "\"e\" must be followed by exponent.");
                }
                self.digits(10);
            }
        }
        if self
            .peek()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.')
        {
            let what = if self.peek() == Some('.') && !float {
                "Already saw decimal point or exponent; can't have another one."
            } else {
                "Need space between number and identifier."
            };
            self.error(self.pos, what);
        }
        let text: String = self.chars[from..self.at].iter().collect();
        if float {
            return Tok::Float(text.parse().unwrap_or(f64::NAN));
        }
        let digits = match radix {
            16 => &text[2..],
            8 => &text[1..],
            _ => &text[..],
        };
        if radix == 8 && digits.chars().any(|c| c > '7') {
            self.error(start, "Numbers starting with leading zero must be in octal.");
        }
        match u64::from_str_radix(if digits.is_empty() { "0" } else { digits }, radix) {
            Ok(value) => Tok::Int(value),
            Err(_) => {
                self.error(start, "Integer out of range.");
                Tok::Int(u64::MAX)
            }
        }
    }

    /// The rest of a string literal opened by `quote`, escapes applied.
    fn string(&mut self, quote: char) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let at = self.pos;
            match self.peek() {
                None => {
                    self.error(at, "Unexpected end of string.");
                    return out;
                }
                Some('\n') => {
                    self.error(at, "String literals cannot cross line boundaries.");
                    return out;
                }
                Some(c) if c == quote => {
                    self.bump();
                    return out;
                }
                Some('\\') => {
                    self.bump();
                    let escape_at = self.pos;
                    self.escape(escape_at, &mut out);
                }
                Some(c) => {
                    self.bump();
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }

    fn escape(&mut self, at: Pos, out: &mut Vec<u8>) {
        let Some(c) = self.bump() else {
            self.error(at, "Unexpected end of string.");
            return;
        };
        let simple = match c {
            'a' => Some(7),
            'b' => Some(8),
            'f' => Some(12),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(11),
            '\\' | '?' | '\'' | '"' => Some(c as u8),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            return;
        }
        match c {
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            self.bump();
                            value = value * 8 + d;
                        }
                        None => break,
                    }
                }
                out.push(value as u8);
            }
            'x' | 'X' => {
                let mut value = 0;
                let mut count = 0;
                while count < 2 {
                    match self.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            self.bump();
                            value = value * 16 + d;
                            count += 1;
                        }
                        None => break,
                    }
                }
                if count == 0 {
                    self.error(self.pos, "Expected hex digits for escape sequence.");
                }
                out.push(value as u8);
            }
            'u' | 'U' => {
                let len = if c == 'u' { 4 } else { 8 };
                let mut value = 0u32;
                for _ in 0..len {
                    match self.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            self.bump();
                            value = value * 16 + d;
                        }
                        None => {
                            self.error(self.pos, "Expected four hex digits for \\u escape sequence.");
                            return;
                        }
                    }
                }
                match char::from_u32(value) {
                    Some(ch) => {
                        let mut buf = [0; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    None => self.error(at, "Invalid unicode escape sequence."),
                }
            }
            _ => self.error(at, "Invalid escape sequence in string literal."),
        }
    }
}
