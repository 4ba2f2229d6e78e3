//! Enums (values, options, reserved numbers and names) and services
//! (methods and their options).

use fastrs::descriptor as d;

use super::fields::Reserved;
use super::locations::Rec;
use super::{Parsed, Parser};
use crate::error::At;

impl Parser<'_> {
    /// `enum Name { ... }`, recorded at `rec`.
    pub(super) fn enum_definition(
        &mut self,
        visibility: Option<d::SymbolVisibility>,
        rec: Rec,
    ) -> Parsed<d::EnumDescriptorProto> {
        self.advance();
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        let mut enum_type = d::EnumDescriptorProto {
            name: Some(self.identifier("Expected enum name.")?.into()),
            ..Default::default()
        };
        self.done(name);
        self.end_of_declaration('{', Some(rec))?;
        while !self.try_end_of_declaration('}', None) {
            if self.at_end() {
                return self.fail("Reached end of input in enum definition (missing '}').");
            }
            self.enum_statement(&mut enum_type, rec)?;
        }
        self.check_alias(&enum_type)?;
        enum_type.visibility = visibility;
        Ok(enum_type)
    }

    fn enum_statement(&mut self, enum_type: &mut d::EnumDescriptorProto, rec: Rec) -> Parsed<()> {
        if self.try_end_of_declaration(';', None) {
            return Ok(());
        }
        if self.looking_at_word("option") {
            let options = self.rec(Some(rec), &[3]);
            let written = enum_type.options.get_or_insert_with(Default::default);
            self.option(&mut written.uninterpreted_option, options, true)?;
            self.done(options);
            return Ok(());
        }
        if self.looking_at_word("reserved") {
            return self.enum_reserved(enum_type, rec);
        }
        let value_rec = self.rec(Some(rec), &[2, enum_type.value.len() as i32]);
        let value = self.enum_value(value_rec)?;
        enum_type.value.push(value);
        self.done(value_rec);
        Ok(())
    }

    fn enum_value(&mut self, rec: Rec) -> Parsed<d::EnumValueDescriptorProto> {
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        let mut value = d::EnumValueDescriptorProto {
            name: Some(self.identifier("Expected enum constant name.")?.into()),
            ..Default::default()
        };
        self.done(name);
        if !self.try_consume('=') {
            return self.fail("Missing numeric value for enum constant.");
        }
        let number = self.rec(Some(rec), &[2]);
        self.error_at(number, rec, At::Number);
        value.number = Some(self.signed_integer("Expected integer.")?);
        self.done(number);
        if self.looking_at('[') {
            let options = self.rec(Some(rec), &[3]);
            let written = value.options.get_or_insert_with(Default::default);
            self.bracketed_options(&mut written.uninterpreted_option, options)?;
            self.done(options);
        }
        self.end_of_declaration(';', Some(rec))?;
        Ok(value)
    }

    fn enum_reserved(&mut self, enum_type: &mut d::EnumDescriptorProto, parent: Rec) -> Parsed<()> {
        let start = self.at;
        self.advance();
        let rec = match self.reserved_kind()? {
            Reserved::Names => {
                let rec = self.rec(Some(parent), &[5]);
                self.start_at(rec, start);
                self.reserved_names(
                    &mut enum_type.reserved_name,
                    rec,
                    "Expected enum value string literal.",
                    "Expected enum value identifier.",
                )?;
                rec
            }
            Reserved::Numbers => {
                let rec = self.rec(Some(parent), &[4]);
                self.start_at(rec, start);
                self.enum_reserved_numbers(enum_type, rec)?;
                rec
            }
        };
        self.done(rec);
        Ok(())
    }

    fn enum_reserved_numbers(&mut self, enum_type: &mut d::EnumDescriptorProto, rec: Rec) -> Parsed<()> {
        let mut expected = "Expected enum value or number range.";
        loop {
            let range = self.rec(Some(rec), &[enum_type.reserved_range.len() as i32]);
            self.error_at(range, range, At::Number);
            let start_rec = self.rec(Some(range), &[1]);
            let start_token = self.at;
            let start = self.signed_integer(expected)?;
            self.done(start_rec);
            let to = self.try_consume_word("to");
            let end_rec = self.rec(Some(range), &[2]);
            let end = if to {
                if self.try_consume_word("max") {
                    i32::MAX
                } else {
                    self.signed_integer("Expected integer.")?
                }
            } else {
                self.start_at(end_rec, start_token);
                self.end_at(end_rec, start_token);
                start
            };
            self.done(end_rec);
            enum_type
                .reserved_range
                .push(d::enum_descriptor_proto::EnumReservedRange {
                    start: Some(start),
                    end: Some(end),
                    ..Default::default()
                });
            self.done(range);
            expected = "Expected enum number range.";
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_declaration(';', Some(rec))
    }

    /// `allow_alias` must be true and used, as protoc's parser checks.
    fn check_alias(&mut self, enum_type: &d::EnumDescriptorProto) -> Parsed<()> {
        let name = enum_type.name.as_deref().unwrap_or("");
        let written = enum_type
            .options
            .iter()
            .flat_map(|o| &o.uninterpreted_option)
            .find(|o| {
                o.name.len() == 1
                    && o.name[0].is_extension != Some(true)
                    && o.name[0].name_part.as_deref() == Some("allow_alias")
            });
        let Some(option) = written else { return Ok(()) };
        if option.identifier_value.as_deref() != Some("true") {
            return self.fail(format!(
                "\"{name}\" declares 'option allow_alias = false;' which has no effect. Please remove the declaration."
            ));
        }
        let mut numbers: Vec<i32> = enum_type.value.iter().map(|v| v.number.unwrap_or(0)).collect();
        numbers.sort_unstable();
        if numbers.windows(2).all(|w| w[0] != w[1]) {
            return self.fail(format!(
                "\"{name}\" declares support for enum aliases but no enum values share field numbers. Please remove the \
                 unnecessary 'option allow_alias = true;' declaration."
            ));
        }
        Ok(())
    }

    /// `service Name { ... }`, recorded at `rec`.
    pub(super) fn service(&mut self, rec: Rec) -> Parsed<d::ServiceDescriptorProto> {
        self.advance();
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        let mut service = d::ServiceDescriptorProto {
            name: Some(self.identifier("Expected service name.")?.into()),
            ..Default::default()
        };
        self.done(name);
        self.end_of_declaration('{', Some(rec))?;
        while !self.try_end_of_declaration('}', None) {
            if self.at_end() {
                return self.fail("Reached end of input in service definition (missing '}').");
            }
            self.service_statement(&mut service, rec)?;
        }
        Ok(service)
    }

    fn service_statement(&mut self, service: &mut d::ServiceDescriptorProto, rec: Rec) -> Parsed<()> {
        if self.try_end_of_declaration(';', None) {
            return Ok(());
        }
        if self.looking_at_word("option") {
            let options = self.rec(Some(rec), &[3]);
            let written = service.options.get_or_insert_with(Default::default);
            self.option(&mut written.uninterpreted_option, options, true)?;
            self.done(options);
            return Ok(());
        }
        let method_rec = self.rec(Some(rec), &[2, service.method.len() as i32]);
        let method = self.method(method_rec)?;
        service.method.push(method);
        self.done(method_rec);
        Ok(())
    }

    fn method(&mut self, rec: Rec) -> Parsed<d::MethodDescriptorProto> {
        self.consume_word("rpc")?;
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        let mut method = d::MethodDescriptorProto {
            name: Some(self.identifier("Expected method name.")?.into()),
            ..Default::default()
        };
        self.done(name);
        self.consume('(')?;
        let (streaming, input) = self.method_type(rec, 5, 2, At::InputType)?;
        method.client_streaming = streaming;
        method.input_type = Some(input.into());
        self.consume(')')?;
        self.consume_word("returns")?;
        self.consume('(')?;
        let (streaming, output) = self.method_type(rec, 6, 3, At::OutputType)?;
        method.server_streaming = streaming;
        method.output_type = Some(output.into());
        self.consume(')')?;
        if self.looking_at('{') {
            // A block, even an empty one, gives the method options.
            let options = method.options.get_or_insert_with(Default::default);
            self.method_options(&mut options.uninterpreted_option, rec)?;
        } else {
            self.end_of_declaration(';', Some(rec))?;
        }
        Ok(method)
    }

    /// `stream`, if written, and a message type name.
    fn method_type(
        &mut self,
        rec: Rec,
        streaming_field: i32,
        type_field: i32,
        at: At,
    ) -> Parsed<(Option<bool>, String)> {
        let mut streaming = None;
        if self.looking_at_word("stream") {
            let stream = self.rec(Some(rec), &[streaming_field]);
            self.error_at(stream, rec, At::Other);
            self.advance();
            self.done(stream);
            streaming = Some(true);
        }
        let ty = self.rec(Some(rec), &[type_field]);
        self.error_at(ty, rec, at);
        let name = self.user_type()?;
        self.done(ty);
        Ok((streaming, name))
    }

    /// `{ option ...; }` after a method.
    fn method_options(&mut self, options: &mut Vec<d::UninterpretedOption>, rec: Rec) -> Parsed<()> {
        self.end_of_declaration('{', Some(rec))?;
        while !self.try_end_of_declaration('}', None) {
            if self.at_end() {
                return self.fail("Reached end of input in method options (missing '}').");
            }
            if self.try_end_of_declaration(';', None) {
                continue;
            }
            let option = self.rec(Some(rec), &[4]);
            self.option(options, option, true)?;
            self.done(option);
        }
        Ok(())
    }
}
