//! Options as written: `name = value`, kept as `UninterpretedOption`s for
//! linking to interpret, except a field's `default` and `json_name`, which
//! the descriptor holds directly.

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::Type;
use fastrs::descriptor::uninterpreted_option::NamePart;

use super::locations::Rec;
use super::{Parsed, Parser};
use crate::error::At;
use crate::lex::Tok;

impl Parser<'_> {
    /// One option, into `options`, recorded under `parent` (the options
    /// location): a statement (`option name = value;`) or an assignment in
    /// brackets.
    pub(super) fn option(
        &mut self,
        options: &mut Vec<d::UninterpretedOption>,
        parent: Rec,
        statement: bool,
    ) -> Parsed<()> {
        let rec = self.rec(Some(parent), &[999, options.len() as i32]);
        if statement {
            self.consume_word("option")?;
        }
        let mut option = d::UninterpretedOption::default();
        let name = self.rec(Some(rec), &[2]);
        self.error_at(name, rec, At::OptionName);
        loop {
            let part = self.rec(Some(name), &[option.name.len() as i32]);
            option.name.push(self.option_name_part(part)?);
            self.done(part);
            if !self.try_consume('.') {
                break;
            }
        }
        self.done(name);
        self.consume('=')?;
        let value = self.rec(Some(rec), &[]);
        self.error_at(value, rec, At::OptionValue);
        self.option_value(&mut option, value)?;
        self.done(value);
        options.push(option);
        if statement {
            self.end_of_declaration(';', Some(rec))?;
        }
        self.done(rec);
        Ok(())
    }

    /// An identifier, or a parenthesized extension name.
    fn option_name_part(&mut self, rec: Rec) -> Parsed<NamePart> {
        if !self.try_consume('(') {
            let name = self.rec(Some(rec), &[1]);
            let text = self.identifier("Expected identifier.")?;
            self.done(name);
            return Ok(NamePart {
                name_part: Some(text.into()),
                is_extension: Some(false),
                ..Default::default()
            });
        }
        let name = self.rec(Some(rec), &[1]);
        let mut text = String::new();
        if let Tok::Ident(word) = &self.current().tok {
            text += word;
            self.advance();
        }
        while self.try_consume('.') {
            text.push('.');
            text += &self.identifier("Expected identifier.")?;
        }
        self.done(name);
        self.consume(')')?;
        Ok(NamePart {
            name_part: Some(text.into()),
            is_extension: Some(true),
            ..Default::default()
        })
    }

    /// The value after `=`; `rec` gets the path of the field it fills.
    fn option_value(&mut self, option: &mut d::UninterpretedOption, rec: Rec) -> Parsed<()> {
        let negative = self.try_consume('-');
        match self.current().tok.clone() {
            Tok::Ident(word) => {
                self.add_path(rec, 3);
                self.advance();
                match (negative, word.as_str()) {
                    (true, "inf") => option.double_value = Some(f64::NEG_INFINITY),
                    (true, "nan") => option.double_value = Some(f64::NAN),
                    (true, _) => return self.fail("Identifier after '-' symbol must be inf or nan."),
                    (false, _) => option.identifier_value = Some(word.into()),
                }
            }
            Tok::Int(value) if !negative || value <= 1 << 63 => {
                self.add_path(rec, if negative { 5 } else { 4 });
                self.advance();
                if negative {
                    option.negative_int_value = Some((value as i64).wrapping_neg());
                } else {
                    option.positive_int_value = Some(value);
                }
            }
            Tok::Int(value) => {
                self.add_path(rec, 6);
                self.advance();
                option.double_value = Some(-(value as f64));
            }
            Tok::Float(value) => {
                self.add_path(rec, 6);
                self.advance();
                option.double_value = Some(if negative { -value } else { value });
            }
            Tok::Str(_) => {
                self.add_path(rec, 7);
                if negative {
                    return self.fail("Invalid '-' symbol before string.");
                }
                option.string_value = Some(self.string("Expected string.")?);
            }
            Tok::Symbol('{') => {
                self.add_path(rec, 8);
                option.aggregate_value = Some(self.aggregate_text()?.into());
            }
            Tok::Eof => return self.fail("Unexpected end of stream while parsing option value."),
            _ => return self.fail("Expected option value."),
        }
        Ok(())
    }

    /// The text between an aggregate value's braces, laid out as written
    /// (each token at its line and column) for the text-format reader.
    fn aggregate_text(&mut self) -> Parsed<String> {
        self.advance();
        let mut depth = 1;
        let mut text = String::new();
        loop {
            if self.at_end() {
                return self.fail("Unexpected end of stream while parsing aggregate value.");
            }
            if self.looking_at('{') {
                depth += 1;
            } else if self.looking_at('}') {
                depth -= 1;
                if depth == 0 {
                    self.advance();
                    return Ok(text);
                }
            }
            let previous = &self.tokens[self.at - 1];
            let current = self.current();
            if current.start.line > previous.end.line {
                text.extend(std::iter::repeat_n(
                    '\n',
                    (current.start.line - previous.end.line) as usize,
                ));
                text.extend(std::iter::repeat_n(' ', current.start.column as usize));
            } else if current.start.column > previous.end.column {
                text.extend(std::iter::repeat_n(
                    ' ',
                    (current.start.column - previous.end.column) as usize,
                ));
            }
            text += &self.take_text();
        }
    }

    /// `[a = 1, b = 2]` after an enum value, recorded at `rec`.
    pub(super) fn bracketed_options(&mut self, options: &mut Vec<d::UninterpretedOption>, rec: Rec) -> Parsed<()> {
        self.consume('[')?;
        loop {
            self.option(options, rec, false)?;
            if !self.try_consume(',') {
                break;
            }
        }
        self.consume(']')
    }

    /// A field's `[...]`, where `default` and `json_name` are not options
    /// but parts of the field.
    pub(super) fn field_options(&mut self, field: &mut d::FieldDescriptorProto, field_rec: Rec) -> Parsed<()> {
        if !self.looking_at('[') {
            return Ok(());
        }
        let rec = self.rec(Some(field_rec), &[8]);
        self.consume('[')?;
        loop {
            if self.looking_at_word("default") {
                self.default_assignment(field, field_rec)?;
            } else if self.looking_at_word("json_name") {
                self.json_name_assignment(field, field_rec)?;
            } else {
                let options = field.options.get_or_insert_with(Default::default);
                self.option(&mut options.uninterpreted_option, rec, false)?;
            }
            if !self.try_consume(',') {
                break;
            }
        }
        self.consume(']')?;
        self.done(rec);
        Ok(())
    }

    fn json_name_assignment(&mut self, field: &mut d::FieldDescriptorProto, field_rec: Rec) -> Parsed<()> {
        if field.json_name.is_some() {
            return self.fail("Already set option \"json_name\".");
        }
        let rec = self.rec(Some(field_rec), &[10]);
        self.error_at(rec, field_rec, At::OptionName);
        self.advance();
        self.consume('=')?;
        let value = self.rec(Some(rec), &[]);
        self.error_at(value, field_rec, At::OptionValue);
        let name = self.string("Expected string for JSON name.")?;
        field.json_name = Some(name.into());
        self.done(value);
        self.done(rec);
        Ok(())
    }

    /// `default = value`, kept as protoc's parser writes it: numbers in
    /// decimal, floats shortest, bytes C-escaped, enum values by name.
    fn default_assignment(&mut self, field: &mut d::FieldDescriptorProto, field_rec: Rec) -> Parsed<()> {
        if field.default_value.is_some() {
            return self.fail("Already set option \"default\".");
        }
        self.advance();
        self.consume('=')?;
        let rec = self.rec(Some(field_rec), &[7]);
        self.error_at(rec, field_rec, At::DefaultValue);
        let text = match field.r#type {
            // A message or enum: which, linking tells.
            None => self.take_text(),
            Some(Type::Group | Type::Message) => return self.fail("Messages can't have default values."),
            Some(Type::String) => {
                String::from_utf8_lossy(&self.string("Expected string for field default value.")?).into_owned()
            }
            Some(Type::Bytes) => fastrs::text::c_escape(&self.string("Expected string.")?),
            Some(Type::Bool) => match &self.current().tok {
                Tok::Ident(w) if w == "true" || w == "false" => self.take_text(),
                _ => return self.fail("Expected \"true\" or \"false\"."),
            },
            Some(Type::Float | Type::Double) => self.float_default()?,
            Some(Type::Enum) => self.identifier("Expected enum identifier for field default value.")?,
            Some(ty) => self.integer_default(ty)?,
        };
        field.default_value = Some(text.into());
        self.done(rec);
        Ok(())
    }

    fn float_default(&mut self) -> Parsed<String> {
        let negative = self.try_consume('-');
        let value = match self.current().tok.clone() {
            Tok::Int(v) => v as f64,
            Tok::Float(v) => v,
            Tok::Ident(w) if w == "inf" => f64::INFINITY,
            Tok::Ident(w) if w == "nan" => f64::NAN,
            _ => return self.fail("Expected number."),
        };
        self.advance();
        let text = crate::text::shortest_double(value);
        Ok(if negative { format!("-{text}") } else { text })
    }

    fn integer_default(&mut self, ty: Type) -> Parsed<String> {
        let (signed, max) = match ty {
            Type::Int32 | Type::Sint32 | Type::Sfixed32 => (true, i32::MAX as u64),
            Type::Int64 | Type::Sint64 | Type::Sfixed64 => (true, i64::MAX as u64),
            Type::Uint32 | Type::Fixed32 => (false, u32::MAX as u64),
            _ => (false, u64::MAX),
        };
        let negative = self.try_consume('-');
        if negative && !signed {
            return self.fail("Unsigned field can't have negative default value.");
        }
        let value = self.integer(
            if negative { max + 1 } else { max },
            "Expected integer for field default value.",
        )?;
        Ok(if negative {
            format!("-{value}")
        } else {
            value.to_string()
        })
    }
}
