//! Options as written: `name = value`, kept as `UninterpretedOption`s for
//! linking to interpret, except a field's `default` and `json_name`, which
//! the descriptor holds directly.

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::uninterpreted_option::NamePart;

use super::{Parsed, Parser};
use crate::lex::Tok;

impl Parser<'_> {
    /// `name = value` after `option`.
    pub(super) fn option_assignment(&mut self) -> Parsed<d::UninterpretedOption> {
        let mut option = d::UninterpretedOption {
            name: self.option_name()?,
            ..Default::default()
        };
        self.consume('=')?;
        self.option_value(&mut option)?;
        Ok(option)
    }

    /// `part(.part)*`, each part an identifier or a parenthesized
    /// extension name.
    fn option_name(&mut self) -> Parsed<Vec<NamePart>> {
        let mut parts = Vec::new();
        loop {
            let part = if self.try_consume('(') {
                let name = self.dotted_name(true, "Expected identifier.")?;
                self.consume(')')?;
                NamePart {
                    name_part: Some(name.into()),
                    is_extension: Some(true),
                    ..Default::default()
                }
            } else {
                let name = self.identifier("Expected identifier.")?;
                NamePart {
                    name_part: Some(name.into()),
                    is_extension: Some(false),
                    ..Default::default()
                }
            };
            parts.push(part);
            if !self.try_consume('.') {
                return Ok(parts);
            }
        }
    }

    fn option_value(&mut self, option: &mut d::UninterpretedOption) -> Parsed<()> {
        if self.looking_at('{') {
            option.aggregate_value = Some(self.aggregate_text()?.into());
            return Ok(());
        }
        let negative = self.try_consume('-');
        match self.current().tok.clone() {
            Tok::Ident(word) if negative && word != "inf" && word != "nan" => {
                self.fail("Identifier after '-' symbol must be inf or nan.")
            }
            Tok::Ident(word) if negative => {
                self.advance();
                option.double_value = Some(if word == "inf" { f64::NEG_INFINITY } else { -f64::NAN });
                Ok(())
            }
            Tok::Ident(word) => {
                self.advance();
                option.identifier_value = Some(word.into());
                Ok(())
            }
            Tok::Int(value) if negative => {
                if value > 1 << 63 {
                    return self.fail("Integer out of range.");
                }
                self.advance();
                option.negative_int_value = Some((value as i64).wrapping_neg());
                Ok(())
            }
            Tok::Int(value) => {
                self.advance();
                option.positive_int_value = Some(value);
                Ok(())
            }
            Tok::Float(value) => {
                self.advance();
                option.double_value = Some(if negative { -value } else { value });
                Ok(())
            }
            Tok::Str(_) if negative => self.fail("Invalid '-' symbol before string."),
            Tok::Str(_) => {
                option.string_value = Some(self.string("Expected string.")?);
                Ok(())
            }
            _ => self.fail("Expected option value."),
        }
    }

    /// The text between an aggregate value's braces, tokens joined by
    /// spaces (as protoc keeps it), for the text-format reader.
    fn aggregate_text(&mut self) -> Parsed<String> {
        self.consume('{')?;
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
            if !text.is_empty() {
                text.push(' ');
            }
            text += &self.advance().text;
        }
    }

    /// `[a = 1, b = 2]` after an enum value or extension range.
    pub(super) fn bracketed_options(&mut self, into: &mut Vec<d::UninterpretedOption>) -> Parsed<()> {
        self.consume('[')?;
        loop {
            into.push(self.option_assignment()?);
            if !self.try_consume(',') {
                break;
            }
        }
        self.consume(']')
    }

    /// A field's `[...]`, where `default` and `json_name` are not options
    /// but parts of the field.
    pub(super) fn field_options(&mut self, field: &mut d::FieldDescriptorProto) -> Parsed<()> {
        self.consume('[')?;
        loop {
            if self.looking_at_word("default") && matches!(self.peek(1), Tok::Symbol('=')) {
                self.default_assignment(field)?;
            } else if self.looking_at_word("json_name") && matches!(self.peek(1), Tok::Symbol('=')) {
                self.json_name_assignment(field)?;
            } else {
                let option = self.option_assignment()?;
                field
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
            }
            if !self.try_consume(',') {
                break;
            }
        }
        self.consume(']')
    }

    fn json_name_assignment(&mut self, field: &mut d::FieldDescriptorProto) -> Parsed<()> {
        let at = self.pos();
        self.advance();
        self.advance();
        if field.extendee.is_some() {
            return self.fail_at(at, "option json_name is not allowed on extension fields.");
        }
        if field.json_name.is_some() {
            return self.fail_at(at, "Already set option \"json_name\".");
        }
        let value = self.string("Expected string for JSON name.")?;
        field.json_name = Some(value.into());
        Ok(())
    }

    /// `default = value`, kept as protoc's parser writes it: numbers in
    /// decimal, floats shortest, bytes C-escaped, enum values by name.
    fn default_assignment(&mut self, field: &mut d::FieldDescriptorProto) -> Parsed<()> {
        let at = self.pos();
        self.advance();
        self.advance();
        if field.default_value.is_some() {
            return self.fail_at(at, "Already set option \"default\".");
        }
        if field.label == Some(Label::Repeated) {
            return self.fail_at(at, "Repeated fields can't have default values.");
        }
        let text = match field.r#type {
            None => self.identifier("Expected enum identifier.")?,
            Some(Type::Group | Type::Message) => return self.fail("Messages can't have default values."),
            Some(Type::String) => String::from_utf8_lossy(&self.string("Expected string.")?).into_owned(),
            Some(Type::Bytes) => crate::text::c_escape(&self.string("Expected string.")?),
            Some(Type::Bool) => match &self.current().tok {
                Tok::Ident(w) if w == "true" || w == "false" => self.advance().text,
                _ => return self.fail("Expected \"true\" or \"false\"."),
            },
            Some(Type::Float | Type::Double) => self.float_default()?,
            Some(ty) => self.integer_default(ty)?,
        };
        field.default_value = Some(text.into());
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
        let at = self.pos();
        let negative = self.try_consume('-');
        if negative && !signed {
            return self.fail_at(at, "Unsigned field can't have negative default value.");
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
