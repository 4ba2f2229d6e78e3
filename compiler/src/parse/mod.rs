//! The parser: tokens to a `FileDescriptorProto` as protoc's parser builds
//! it, before linking. Type names stay as written, options stay
//! uninterpreted (`uninterpreted_option`), and the parser's own rewrites are
//! done here as protoc does them: map fields get their entry types, groups
//! their nested types, proto3 `optional` fields their synthetic oneofs.
//! Source locations are recorded in protoc's order, with its comments.

mod enums;
mod fields;
mod locations;
mod message;
mod options;

use fastrs::descriptor as d;

pub use locations::Locations;
use locations::Rec;

use crate::error::{At, Diagnostics, Pos};
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

/// A parsed file and where its parts are written.
pub struct ParsedFile {
    pub file: d::FileDescriptorProto,
    pub locations: Locations,
}

/// How deep message definitions may nest: protoc refuses the 32nd level.
const MAX_NESTING: usize = 32;

/// Parses the file named `name` (as imported) from `source`.
pub fn parse(name: &str, source: &str, diagnostics: &mut Diagnostics) -> Option<ParsedFile> {
    let chars: Vec<char> = source.chars().collect();
    let tokens = tokenize(&chars, diagnostics);
    if !diagnostics.is_empty() {
        return None;
    }
    let mut parser = Parser {
        tokens,
        chars,
        at: 0,
        diagnostics,
        syntax: Syntax::Proto2,
        locations: Locations::default(),
        upcoming_doc: String::new(),
        upcoming_detached: Vec::new(),
        depth: 0,
    };
    let mut file = d::FileDescriptorProto {
        name: Some(name.into()),
        ..Default::default()
    };
    parser.file(&mut file).ok()?;
    Some(ParsedFile {
        file,
        locations: parser.locations,
    })
}

pub(crate) struct Parser<'d> {
    tokens: Vec<Token>,
    chars: Vec<char>,
    at: usize,
    diagnostics: &'d mut Diagnostics,
    syntax: Syntax,
    locations: Locations,
    /// Comments read before the next declaration, until it ends.
    upcoming_doc: String,
    upcoming_detached: Vec<String>,
    /// How many messages enclose the current point.
    depth: usize,
}

impl Parser<'_> {
    fn current(&self) -> &Token {
        &self.tokens[self.at]
    }

    fn pos(&self) -> Pos {
        self.current().start
    }

    fn advance(&mut self) {
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
    }

    /// The source text of the current token (a string with its quotes and
    /// escapes), which is then passed.
    fn take_text(&mut self) -> String {
        let token = &self.tokens[self.at];
        let text = self.chars[token.from..token.to].iter().collect();
        self.advance();
        text
    }

    fn at_end(&self) -> bool {
        self.current().tok == Tok::Eof
    }

    fn looking_at(&self, symbol: char) -> bool {
        self.current().tok == Tok::Symbol(symbol)
    }

    /// The current token if it is one of the words statements start with
    /// (without allocating), else `""`.
    fn keyword(&self) -> &'static str {
        const WORDS: [&str; 12] = [
            "message",
            "enum",
            "service",
            "extend",
            "import",
            "package",
            "option",
            "extensions",
            "reserved",
            "oneof",
            "export",
            "local",
        ];
        match &self.current().tok {
            Tok::Ident(word) => WORDS.iter().find(|w| **w == word.as_str()).copied().unwrap_or(""),
            _ => "",
        }
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

    /// `symbol` ending a declaration, with comments attached to `rec`.
    fn end_of_declaration(&mut self, symbol: char, rec: Option<Rec>) -> Parsed<()> {
        if self.try_end_of_declaration(symbol, rec) {
            return Ok(());
        }
        self.fail(format!("Expected \"{symbol}\"."))
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

    /// An int32, with an optional `-`.
    fn signed_integer(&mut self, expected: &str) -> Parsed<i32> {
        let negative = self.try_consume('-');
        let max = if negative { 1 << 31 } else { i32::MAX as u64 };
        let value = self.integer(max, expected)? as i64;
        Ok(if negative { -value } else { value } as i32)
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

    /// A type name as written: `a.b.c`, or `.a.b.c` from the root.
    fn user_type(&mut self) -> Parsed<String> {
        let mut name = String::new();
        if self.try_consume('.') {
            name.push('.');
        }
        name += &self.identifier("Expected type name.")?;
        while self.try_consume('.') {
            name.push('.');
            name += &self.identifier("Expected identifier.")?;
        }
        Ok(name)
    }

    fn edition_at_least(&self, edition: d::Edition) -> bool {
        matches!(self.syntax, Syntax::Editions(e) if e as i32 >= edition as i32)
    }

    fn file(&mut self, file: &mut d::FileDescriptorProto) -> Parsed<()> {
        self.first_comments();
        let root = self.rec(None, &[]);
        self.error_at(root, root, At::Other);
        if self.looking_at_word("syntax") || self.looking_at_word("edition") {
            self.syntax_line(file, root)?;
        }
        while !self.at_end() {
            self.file_statement(file, root)?;
        }
        self.done(root);
        Ok(())
    }

    /// `syntax = "proto3";` or `edition = "2023";`; without it, proto2.
    fn syntax_line(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        let rec = self.rec(Some(root), &[12]);
        self.error_at(rec, root, At::Editions);
        let editions = self.try_consume_word("edition");
        if !editions {
            self.consume_word("syntax")?;
        }
        self.consume('=')?;
        let at = self.pos();
        let value = self.string("Expected syntax identifier.")?;
        self.end_of_declaration(';', Some(rec))?;
        self.done(rec);
        let value = String::from_utf8_lossy(&value).into_owned();
        self.syntax = match (editions, value.as_str()) {
            (false, "proto2") => Syntax::Proto2,
            (false, "proto3") => Syntax::Proto3,
            (false, _) => {
                return self.fail_at(
                    at,
                    format!(
                        "Unrecognized syntax identifier \"{value}\".  This parser only recognizes \"proto2\" and \
                         \"proto3\"."
                    ),
                )
            }
            (true, _) => match edition_named(&value) {
                Some(edition) => Syntax::Editions(edition),
                None => return self.fail_at(at, format!("Unknown edition \"{value}\".")),
            },
        };
        file.syntax = Some(if editions { "editions".into() } else { value.into() });
        if let Syntax::Editions(edition) = self.syntax {
            file.edition = Some(edition);
        }
        Ok(())
    }

    fn file_statement(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        if self.try_end_of_declaration(';', None) {
            return Ok(());
        }
        let visibility = self.visibility()?;
        if self.looking_at_word("message") {
            let rec = self.rec(Some(root), &[4, file.message_type.len() as i32]);
            file.message_type.push(d::DescriptorProto::default());
            let message = file.message_type.last_mut().expect("just pushed");
            self.message_definition(message, visibility, rec)?;
            self.done(rec);
            return Ok(());
        }
        if self.looking_at_word("enum") {
            let rec = self.rec(Some(root), &[5, file.enum_type.len() as i32]);
            let enum_type = self.enum_definition(visibility, rec)?;
            file.enum_type.push(enum_type);
            self.done(rec);
            return Ok(());
        }
        self.file_declaration(file, root)
    }

    /// The top-level statements other than messages and enums.
    fn file_declaration(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        match self.keyword() {
            "service" => {
                let rec = self.rec(Some(root), &[6, file.service.len() as i32]);
                let service = self.service(rec)?;
                file.service.push(service);
                self.done(rec);
                Ok(())
            }
            "extend" => {
                let rec = self.rec(Some(root), &[7]);
                let target = fields::Nested {
                    list: &mut file.message_type,
                    field: 4,
                    parent: root,
                };
                self.extend(&mut file.extension, target, rec)?;
                self.done(rec);
                Ok(())
            }
            "import" => self.import(file, root),
            "package" => self.package(file, root),
            "option" => {
                let rec = self.rec(Some(root), &[8]);
                let options = file.options.get_or_insert_with(Default::default);
                self.option(&mut options.uninterpreted_option, rec, true)?;
                self.done(rec);
                Ok(())
            }
            _ => self.fail("Expected top-level statement (e.g. \"message\")."),
        }
    }

    /// `export` or `local` before a message or enum (edition 2024 on).
    fn visibility(&mut self) -> Parsed<Option<d::SymbolVisibility>> {
        if !self.edition_at_least(d::Edition::Edition2024) {
            return Ok(None);
        }
        let visibility = if self.try_consume_word("export") {
            d::SymbolVisibility::VisibilityExport
        } else if self.try_consume_word("local") {
            d::SymbolVisibility::VisibilityLocal
        } else {
            return Ok(None);
        };
        if !self.looking_at_word("message") && !self.looking_at_word("enum") {
            return self.fail("'local' and 'export' visibility modifiers are valid only on 'message' and 'enum'");
        }
        Ok(Some(visibility))
    }

    fn import(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        let start = self.at;
        self.advance();
        if self.looking_at_word("option") {
            if !self.edition_at_least(d::Edition::Edition2024) {
                return self.fail("option import is not supported before edition 2024.");
            }
            let rec = self.rec(Some(root), &[15, file.option_dependency.len() as i32]);
            self.start_at(rec, start);
            self.advance();
            let path = self.import_path()?;
            file.option_dependency.push(path.clone().into());
            self.import_at(rec, &path);
            self.end_of_declaration(';', Some(rec))?;
            self.done(rec);
            return Ok(());
        }
        let rec = self.rec(Some(root), &[3, file.dependency.len() as i32]);
        self.start_at(rec, start);
        if !file.option_dependency.is_empty() {
            return self.fail("imports should precede any option imports to ensure proto files can roundtrip.");
        }
        self.import_kind(file, root)?;
        let path = self.import_path()?;
        file.dependency.push(path.clone().into());
        self.import_at(rec, &path);
        self.end_of_declaration(';', Some(rec))?;
        self.done(rec);
        Ok(())
    }

    /// `public` or `weak` after `import`.
    fn import_kind(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        let index = file.dependency.len() as i32;
        if self.looking_at_word("public") {
            let rec = self.rec(Some(root), &[10, file.public_dependency.len() as i32]);
            self.advance();
            file.public_dependency.push(index);
            self.done(rec);
        } else if self.looking_at_word("weak") {
            if self.edition_at_least(d::Edition::Edition2024) {
                return self.fail(
                    "weak import is not supported in edition 2024 and above. Consider using option import instead.",
                );
            }
            let rec = self.rec(Some(root), &[11, file.weak_dependency.len() as i32]);
            self.advance();
            file.weak_dependency.push(index);
            self.done(rec);
        }
        Ok(())
    }

    fn import_path(&mut self) -> Parsed<String> {
        let path = self.string("Expected a string naming the file to import.")?;
        Ok(String::from_utf8_lossy(&path).into_owned())
    }

    fn package(&mut self, file: &mut d::FileDescriptorProto, root: Rec) -> Parsed<()> {
        if file.package.is_some() {
            return self.fail("Multiple package definitions.");
        }
        let rec = self.rec(Some(root), &[2]);
        self.error_at(rec, root, At::Name);
        self.advance();
        let mut package = self.identifier("Expected identifier.")?;
        while self.try_consume('.') {
            package.push('.');
            package += &self.identifier("Expected identifier.")?;
        }
        file.package = Some(package.into());
        self.end_of_declaration(';', Some(rec))?;
        self.done(rec);
        Ok(())
    }
}

/// The edition an `edition = "..."` line names, if protoc knows it.
fn edition_named(name: &str) -> Option<d::Edition> {
    Some(match name {
        "2023" => d::Edition::Edition2023,
        "2024" => d::Edition::Edition2024,
        "2026" => d::Edition::Edition2026,
        "UNSTABLE" => d::Edition::EditionUnstable,
        "1_TEST_ONLY" => d::Edition::Edition1TestOnly,
        "2_TEST_ONLY" => d::Edition::Edition2TestOnly,
        "99997_TEST_ONLY" => d::Edition::Edition99997TestOnly,
        "99998_TEST_ONLY" => d::Edition::Edition99998TestOnly,
        "99999_TEST_ONLY" => d::Edition::Edition99999TestOnly,
        _ => return None,
    })
}
