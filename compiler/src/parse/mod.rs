//! The parser: tokens to a `FileDescriptorProto` as protoc's parser builds
//! it, before linking. Type names stay as written, options stay
//! uninterpreted (`uninterpreted_option`), and the parser's own rewrites are
//! done here as protoc does them: map fields get their entry types, groups
//! their nested types, proto3 `optional` fields their synthetic oneofs.

mod fields;
mod options;

use fastrs::descriptor as d;

use crate::error::{Diagnostics, Pos};
use crate::lex::{tokenize, Tok, Token};

/// The dialect a file is written in, from its `syntax` or `edition` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Proto2,
    Proto3,
    Editions(d::Edition),
}

/// An error already reported to the diagnostics: parsing stops.
pub struct Stop;

pub type Parsed<T> = Result<T, Stop>;

/// Parses the file named `name` (as imported) from `source`.
pub fn parse(name: &str, source: &str, diagnostics: &mut Diagnostics) -> Option<d::FileDescriptorProto> {
    let tokens = tokenize(source, diagnostics);
    if !diagnostics.is_empty() {
        return None;
    }
    let mut parser = Parser {
        tokens,
        at: 0,
        diagnostics,
        syntax: Syntax::Proto2,
    };
    let mut file = d::FileDescriptorProto {
        name: Some(name.into()),
        ..Default::default()
    };
    parser.file(&mut file).ok()?;
    Some(file)
}

pub(crate) struct Parser<'d> {
    tokens: Vec<Token>,
    at: usize,
    diagnostics: &'d mut Diagnostics,
    pub syntax: Syntax,
}

impl Parser<'_> {
    fn current(&self) -> &Token {
        &self.tokens[self.at]
    }

    fn peek(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.at + ahead).min(self.tokens.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.current().start
    }

    fn advance(&mut self) -> Token {
        let token = self.tokens[self.at].clone();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        token
    }

    fn at_end(&self) -> bool {
        self.current().tok == Tok::Eof
    }

    fn looking_at(&self, symbol: char) -> bool {
        self.current().tok == Tok::Symbol(symbol)
    }

    fn looking_at_word(&self, word: &str) -> bool {
        matches!(&self.current().tok, Tok::Ident(w) if w == word)
    }

    fn try_consume(&mut self, symbol: char) -> bool {
        let found = self.looking_at(symbol);
        if found {
            self.advance();
        }
        found
    }

    fn try_consume_word(&mut self, word: &str) -> bool {
        let found = self.looking_at_word(word);
        if found {
            self.advance();
        }
        found
    }

    /// Reports `message` at the current token and stops.
    fn fail<T>(&mut self, message: impl Into<String>) -> Parsed<T> {
        let at = self.pos();
        self.fail_at(at, message)
    }

    fn fail_at<T>(&mut self, at: Pos, message: impl Into<String>) -> Parsed<T> {
        self.diagnostics.error(at, message);
        Err(Stop)
    }

    fn consume(&mut self, symbol: char) -> Parsed<()> {
        if self.try_consume(symbol) {
            return Ok(());
        }
        self.fail(format!("Expected \"{symbol}\"."))
    }

    fn consume_word(&mut self, word: &str) -> Parsed<()> {
        if self.try_consume_word(word) {
            return Ok(());
        }
        self.fail(format!("Expected \"{word}\"."))
    }

    /// `;` ending a statement (protoc's wording for a missing one).
    fn end_of_statement(&mut self) -> Parsed<()> {
        if self.try_consume(';') {
            return Ok(());
        }
        self.fail("Expected \";\".")
    }

    fn identifier(&mut self, expected: &str) -> Parsed<String> {
        match &self.current().tok {
            Tok::Ident(word) => {
                let word = word.clone();
                self.advance();
                Ok(word)
            }
            _ => self.fail(expected),
        }
    }

    /// An integer no larger than `max`.
    fn integer(&mut self, max: u64, expected: &str) -> Parsed<u64> {
        match self.current().tok {
            Tok::Int(value) if value <= max => {
                self.advance();
                Ok(value)
            }
            Tok::Int(_) => self.fail("Integer out of range."),
            _ => self.fail(expected),
        }
    }

    /// One or more adjacent string literals, concatenated.
    fn string(&mut self, expected: &str) -> Parsed<Vec<u8>> {
        let Tok::Str(first) = &self.current().tok else {
            return self.fail(expected);
        };
        let mut value = first.clone();
        self.advance();
        while let Tok::Str(more) = &self.current().tok {
            value.extend_from_slice(more);
            self.advance();
        }
        Ok(value)
    }

    /// A dotted name: `a.b.c`, or `.a.b.c` where `leading_dot` allows it.
    fn dotted_name(&mut self, leading_dot: bool, expected: &str) -> Parsed<String> {
        let mut name = String::new();
        if leading_dot && self.try_consume('.') {
            name.push('.');
        }
        name += &self.identifier(expected)?;
        while self.try_consume('.') {
            name.push('.');
            name += &self.identifier("Expected identifier.")?;
        }
        Ok(name)
    }

    /// A block `{ ... }` whose items `item` parses until the closing brace.
    fn block(&mut self, mut item: impl FnMut(&mut Self) -> Parsed<()>) -> Parsed<()> {
        self.consume('{')?;
        while !self.try_consume('}') {
            if self.at_end() {
                return self.fail("Reached end of input in message definition (missing '}').");
            }
            item(self)?;
        }
        Ok(())
    }

    fn file(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        self.syntax_line(file)?;
        while !self.at_end() {
            self.file_statement(file)?;
        }
        Ok(())
    }

    /// `syntax = "proto3";` or `edition = "2023";`; without it, proto2.
    fn syntax_line(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        let editions = self.looking_at_word("edition");
        if !editions && !self.looking_at_word("syntax") {
            return Ok(());
        }
        let keyword = self.advance();
        self.consume('=')?;
        let at = self.pos();
        let value = self.string(if editions {
            "Expected edition string."
        } else {
            "Expected syntax identifier."
        })?;
        self.end_of_statement()?;
        let value = String::from_utf8_lossy(&value).into_owned();
        self.syntax = match (editions, value.as_str()) {
            (false, "proto2") => Syntax::Proto2,
            (false, "proto3") => Syntax::Proto3,
            (false, _) => {
                return self.fail_at(
                    at,
                    format!(
                        "Unrecognized syntax identifier \"{value}\".  This parser only recognizes \"proto2\" and \"proto3\"."
                    ),
                )
            }
            (true, _) => match edition_named(&value) {
                Some(edition) => Syntax::Editions(edition),
                None => return self.fail_at(at, format!("Unknown edition \"{value}\".")),
            },
        };
        let _ = keyword;
        file.syntax = Some(
            match self.syntax {
                Syntax::Proto2 => "proto2",
                Syntax::Proto3 => "proto3",
                Syntax::Editions(_) => "editions",
            }
            .into(),
        );
        if let Syntax::Editions(edition) = self.syntax {
            file.edition = Some(edition);
        }
        Ok(())
    }

    fn file_statement(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        if self.try_consume(';') {
            return Ok(());
        }
        let Tok::Ident(word) = self.current().tok.clone() else {
            return self.fail("Expected top-level statement (e.g. \"message\").");
        };
        match word.as_str() {
            "import" => self.import(file),
            "package" => self.package(file),
            "option" => {
                self.advance();
                let option = self.option_assignment()?;
                self.end_of_statement()?;
                file.options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
                Ok(())
            }
            "extend" => {
                self.advance();
                self.extend(&mut file.extension, &mut file.message_type)
            }
            _ => self.file_definition(file),
        }
    }

    /// A top-level message, enum or service, with an edition 2024
    /// `export`/`local` before a message or enum.
    fn file_definition(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        let visibility = self.visibility()?;
        if self.try_consume_word("message") {
            let mut message = self.message()?;
            message.visibility = visibility;
            file.message_type.push(message);
            return Ok(());
        }
        if self.try_consume_word("enum") {
            let mut enum_type = self.enum_definition()?;
            enum_type.visibility = visibility;
            file.enum_type.push(enum_type);
            return Ok(());
        }
        if visibility.is_none() && self.try_consume_word("service") {
            let service = self.service()?;
            file.service.push(service);
            return Ok(());
        }
        if visibility.is_some() {
            return self.fail("Expected \"message\" or \"enum\" after visibility keyword.");
        }
        self.fail("Expected top-level statement (e.g. \"message\").")
    }

    /// `export` or `local` before a message or enum (edition 2024 on).
    fn visibility(&mut self) -> Parsed<Option<d::SymbolVisibility>> {
        let visibility = match &self.current().tok {
            Tok::Ident(w) if w == "export" => d::SymbolVisibility::VisibilityExport,
            Tok::Ident(w) if w == "local" => d::SymbolVisibility::VisibilityLocal,
            _ => return Ok(None),
        };
        if !matches!(self.peek(1), Tok::Ident(w) if w == "message" || w == "enum") {
            return Ok(None);
        }
        if !self.edition_at_least(d::Edition::Edition2024) {
            return self
                .fail("Symbol visibility keywords (export/local) are only supported in edition 2024 and later.");
        }
        self.advance();
        Ok(Some(visibility))
    }

    fn edition_at_least(&self, edition: d::Edition) -> bool {
        matches!(self.syntax, Syntax::Editions(e) if e as i32 >= edition as i32)
    }

    fn import(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        self.advance();
        let index = file.dependency.len() as i32;
        let mut option_import = false;
        if self.try_consume_word("public") {
            file.public_dependency.push(index);
        } else if self.looking_at_word("weak") {
            if self.edition_at_least(d::Edition::Edition2024) {
                return self.fail(
                    "weak import is not supported in edition 2024 and above. Consider using option import instead.",
                );
            }
            self.advance();
            file.weak_dependency.push(index);
        } else if self.looking_at_word("option") {
            if !self.edition_at_least(d::Edition::Edition2024) {
                return self.fail("option import is not supported before edition 2024.");
            }
            self.advance();
            option_import = true;
        }
        let path = self.string("Expected a string naming the file to import.")?;
        let path = String::from_utf8_lossy(&path).into_owned();
        self.end_of_statement()?;
        if option_import {
            file.option_dependency.push(path.into());
        } else {
            file.dependency.push(path.into());
        }
        Ok(())
    }

    fn package(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        let at = self.pos();
        self.advance();
        if file.package.is_some() {
            return self.fail_at(at, "Multiple package definitions.");
        }
        let package = self.dotted_name(false, "Expected identifier.")?;
        self.end_of_statement()?;
        file.package = Some(package.into());
        Ok(())
    }

    fn service(&mut self) -> Parsed<d::ServiceDescriptorProto> {
        let name = self.identifier("Expected service name.")?;
        let mut service = d::ServiceDescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        };
        self.block(|p| {
            if p.try_consume(';') {
                return Ok(());
            }
            if p.try_consume_word("option") {
                let option = p.option_assignment()?;
                p.end_of_statement()?;
                service
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
                return Ok(());
            }
            if p.try_consume_word("rpc") {
                let method = p.method()?;
                service.method.push(method);
                return Ok(());
            }
            p.fail("Expected \"rpc\".")
        })?;
        Ok(service)
    }

    fn method(&mut self) -> Parsed<d::MethodDescriptorProto> {
        let name = self.identifier("Expected method name.")?;
        let mut method = d::MethodDescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        };
        self.consume('(')?;
        if self.try_consume_word("stream") {
            method.client_streaming = Some(true);
        }
        method.input_type = Some(self.dotted_name(true, "Expected type name.")?.into());
        self.consume(')')?;
        self.consume_word("returns")?;
        self.consume('(')?;
        if self.try_consume_word("stream") {
            method.server_streaming = Some(true);
        }
        method.output_type = Some(self.dotted_name(true, "Expected type name.")?.into());
        self.consume(')')?;
        if self.looking_at('{') {
            // A block, even an empty one, gives the method options.
            method.options.get_or_insert_with(Default::default);
            self.block(|p| {
                if p.try_consume(';') {
                    return Ok(());
                }
                p.consume_word("option")?;
                let option = p.option_assignment()?;
                p.end_of_statement()?;
                method
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
                Ok(())
            })?;
            self.try_consume(';');
            return Ok(method);
        }
        self.end_of_statement()?;
        Ok(method)
    }

    fn enum_definition(&mut self) -> Parsed<d::EnumDescriptorProto> {
        let name = self.identifier("Expected enum name.")?;
        let mut enum_type = d::EnumDescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        };
        self.block(|p| p.enum_statement(&mut enum_type))?;
        Ok(enum_type)
    }

    fn enum_statement(&mut self, enum_type: &mut d::EnumDescriptorProto) -> Parsed<()> {
        if self.try_consume(';') {
            return Ok(());
        }
        if self.try_consume_word("option") {
            let option = self.option_assignment()?;
            self.end_of_statement()?;
            enum_type
                .options
                .get_or_insert_with(Default::default)
                .uninterpreted_option
                .push(option);
            return Ok(());
        }
        if self.looking_at_word("reserved") && !matches!(self.peek(1), Tok::Symbol('=')) {
            self.advance();
            return self.enum_reserved(enum_type);
        }
        let name = self.identifier("Expected enum constant name.")?;
        self.consume('=')?;
        let negative = self.try_consume('-');
        let max = if negative { 1 << 31 } else { i32::MAX as u64 };
        let number = self.integer(max, "Expected integer.")?;
        let number = if negative { -(number as i64) } else { number as i64 };
        let mut value = d::EnumValueDescriptorProto {
            name: Some(name.into()),
            number: Some(number as i32),
            ..Default::default()
        };
        if self.looking_at('[') {
            let options = value.options.get_or_insert_with(Default::default);
            self.bracketed_options(&mut options.uninterpreted_option)?;
        }
        self.end_of_statement()?;
        enum_type.value.push(value);
        Ok(())
    }

    fn enum_reserved(&mut self, enum_type: &mut d::EnumDescriptorProto) -> Parsed<()> {
        if self.reserved_names_follow() {
            return self.reserved_names(&mut enum_type.reserved_name);
        }
        loop {
            let start = self.signed_number()?;
            let end = if self.try_consume_word("to") {
                if self.try_consume_word("max") {
                    i32::MAX as i64
                } else {
                    self.signed_number()?
                }
            } else {
                start
            };
            enum_type
                .reserved_range
                .push(d::enum_descriptor_proto::EnumReservedRange {
                    start: Some(start as i32),
                    end: Some(end as i32),
                    ..Default::default()
                });
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_statement()
    }

    fn signed_number(&mut self) -> Parsed<i64> {
        let negative = self.try_consume('-');
        let max = if negative { 1 << 31 } else { i32::MAX as u64 };
        let value = self.integer(max, "Expected enum value or number range.")? as i64;
        Ok(if negative { -value } else { value })
    }

    /// Whether a `reserved` statement lists names (strings, or identifiers
    /// from edition 2023 on) rather than numbers.
    fn reserved_names_follow(&self) -> bool {
        matches!(self.current().tok, Tok::Str(_) | Tok::Ident(_))
    }

    fn reserved_names(&mut self, names: &mut Vec<fastrs::LaxString>) -> Parsed<()> {
        loop {
            let at = self.pos();
            let name = match (&self.current().tok, self.syntax) {
                (Tok::Str(_), Syntax::Editions(_)) => {
                    return self.fail("Reserved names must be identifiers in editions, not string literals.")
                }
                (Tok::Str(_), _) => String::from_utf8_lossy(&self.string("Expected field name.")?).into_owned(),
                (Tok::Ident(_), Syntax::Editions(_)) => self.identifier("Expected field name identifier.")?,
                (Tok::Ident(_), _) => {
                    return self.fail("Reserved names must be string literals. (Only editions supports identifiers.)")
                }
                _ => return self.fail("Expected field name."),
            };
            let _ = at;
            names.push(name.into());
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_statement()
    }
}

/// The edition an `edition = "..."` line names, if protoc knows it.
fn edition_named(name: &str) -> Option<d::Edition> {
    Some(match name {
        "2023" => d::Edition::Edition2023,
        "2024" => d::Edition::Edition2024,
        "2026" => d::Edition::Edition2026,
        "UNSTABLE" => d::Edition::EditionUnstable,
        _ => return None,
    })
}
