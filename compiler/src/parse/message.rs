//! Messages and what they hold: fields (with groups and maps), oneofs,
//! extensions, extension ranges and reserved numbers and names.

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::Label;

use super::fields::{resolve_max, Nested};
use super::locations::Rec;
use super::{Parsed, Parser, Syntax, MAX_NESTING};
use crate::error::At;
use crate::lex::Tok;

impl Parser<'_> {
    /// `message Name { ... }`, recorded at `rec`.
    pub(super) fn message_definition(
        &mut self,
        message: &mut d::DescriptorProto,
        visibility: Option<d::SymbolVisibility>,
        rec: Rec,
    ) -> Parsed<()> {
        if self.depth + 1 >= MAX_NESTING {
            return self.fail("Reached maximum recursion limit for nested messages.");
        }
        self.advance();
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        message.name = Some(self.identifier("Expected message name.")?.into());
        self.done(name);
        self.depth += 1;
        self.message_block(message, rec)?;
        self.depth -= 1;
        if self.syntax == Syntax::Proto3 {
            synthesize_oneofs(message);
        }
        message.visibility = visibility;
        Ok(())
    }

    /// `{ statements }` of a message or group.
    pub(super) fn message_block(&mut self, message: &mut d::DescriptorProto, rec: Rec) -> Parsed<()> {
        self.end_of_declaration('{', Some(rec))?;
        while !self.try_end_of_declaration('}', None) {
            if self.at_end() {
                return self.fail("Reached end of input in message definition (missing '}').");
            }
            self.message_statement(message, rec)?;
        }
        resolve_max(message);
        self.check_no_map_entry(message, rec)
    }

    /// `option map_entry` is the parser's to set.
    fn check_no_map_entry(&mut self, message: &d::DescriptorProto, rec: Rec) -> Parsed<()> {
        let Some(options) = &message.options else { return Ok(()) };
        let written = options.uninterpreted_option.iter().position(|o| {
            let first = o.name.first();
            first.is_some_and(|n| n.is_extension != Some(true) && n.name_part.as_deref() == Some("map_entry"))
        });
        let Some(index) = written else { return Ok(()) };
        let path = [self.path_of(rec), vec![7, 999, index as i32]].concat();
        let message = "map_entry should not be set explicitly. Use map<KeyType, ValueType> instead.";
        match self.locations.find(&path, At::OptionName) {
            Some(at) => self.fail_at(at, message),
            None => self.fail(message),
        }
    }

    fn message_statement(&mut self, message: &mut d::DescriptorProto, rec: Rec) -> Parsed<()> {
        if self.try_end_of_declaration(';', None) {
            return Ok(());
        }
        let visibility = self.visibility()?;
        match self.keyword() {
            "message" => {
                let nested = self.rec(Some(rec), &[3, message.nested_type.len() as i32]);
                message.nested_type.push(d::DescriptorProto::default());
                let last = message.nested_type.last_mut().expect("just pushed");
                self.message_definition(last, visibility, nested)?;
                self.done(nested);
                Ok(())
            }
            "enum" => {
                let nested = self.rec(Some(rec), &[4, message.enum_type.len() as i32]);
                let enum_type = self.enum_definition(visibility, nested)?;
                message.enum_type.push(enum_type);
                self.done(nested);
                Ok(())
            }
            word => self.message_member(message, rec, word),
        }
    }

    /// A message statement other than a nested type.
    fn message_member(&mut self, message: &mut d::DescriptorProto, rec: Rec, word: &str) -> Parsed<()> {
        match word {
            "extensions" => {
                let ranges = self.rec(Some(rec), &[5]);
                self.extension_ranges(message, ranges)?;
                self.done(ranges);
                Ok(())
            }
            "reserved" => self.message_reserved(message, rec),
            "extend" => {
                let extend = self.rec(Some(rec), &[6]);
                let target = Nested {
                    list: &mut message.nested_type,
                    field: 3,
                    parent: rec,
                };
                self.extend(&mut message.extension, target, extend)?;
                self.done(extend);
                Ok(())
            }
            "option" => {
                let options = self.rec(Some(rec), &[7]);
                let written = message.options.get_or_insert_with(Default::default);
                self.option(&mut written.uninterpreted_option, options, true)?;
                self.done(options);
                Ok(())
            }
            "oneof" => {
                let index = message.oneof_decl.len() as i32;
                let oneof = self.rec(Some(rec), &[8, index]);
                self.oneof(message, index, oneof, rec)?;
                self.done(oneof);
                Ok(())
            }
            _ => {
                let field_rec = self.rec(Some(rec), &[2, message.field.len() as i32]);
                let mut field = d::FieldDescriptorProto::default();
                let nested = Nested {
                    list: &mut message.nested_type,
                    field: 3,
                    parent: rec,
                };
                self.labeled_field(&mut field, nested, field_rec)?;
                message.field.push(field);
                self.done(field_rec);
                Ok(())
            }
        }
    }

    /// `extend Type { fields }`: extension fields into `extensions`, group
    /// and map types into `nested`.
    pub(super) fn extend(
        &mut self,
        extensions: &mut Vec<d::FieldDescriptorProto>,
        nested: Nested<'_>,
        rec: Rec,
    ) -> Parsed<()> {
        self.advance();
        let extendee_start = self.at;
        let extendee = self.user_type()?;
        let extendee_end = self.at - 1;
        self.end_of_declaration('{', Some(rec))?;
        let mut first = true;
        loop {
            if self.at_end() {
                return self.fail("Reached end of input in extend definition (missing '}').");
            }
            let field_rec = self.rec(Some(rec), &[extensions.len() as i32]);
            let extendee_rec = self.rec(Some(field_rec), &[2]);
            self.start_at(extendee_rec, extendee_start);
            self.end_at(extendee_rec, extendee_end);
            if first {
                self.error_at(extendee_rec, field_rec, At::Extendee);
                first = false;
            }
            self.done(extendee_rec);
            let mut field = d::FieldDescriptorProto {
                extendee: Some(extendee.clone().into()),
                ..Default::default()
            };
            let target = Nested {
                list: &mut *nested.list,
                field: nested.field,
                parent: nested.parent,
            };
            self.labeled_field(&mut field, target, field_rec)?;
            extensions.push(field);
            self.done(field_rec);
            if self.try_end_of_declaration('}', None) {
                return Ok(());
            }
        }
    }

    fn oneof(&mut self, message: &mut d::DescriptorProto, index: i32, rec: Rec, message_rec: Rec) -> Parsed<()> {
        self.advance();
        let name = self.rec(Some(rec), &[1]);
        let oneof_name = self.identifier("Expected oneof name.")?;
        self.done(name);
        message.oneof_decl.push(d::OneofDescriptorProto {
            name: Some(oneof_name.into()),
            ..Default::default()
        });
        self.end_of_declaration('{', Some(rec))?;
        loop {
            if self.at_end() {
                return self.fail("Reached end of input in oneof definition (missing '}').");
            }
            if self.looking_at_word("option") {
                let options = self.rec(Some(rec), &[2]);
                let oneof = &mut message.oneof_decl[index as usize];
                let written = oneof.options.get_or_insert_with(Default::default);
                self.option(&mut written.uninterpreted_option, options, true)?;
                self.done(options);
            } else {
                if matches!(&self.current().tok, Tok::Ident(w) if w == "required" || w == "optional" || w == "repeated")
                {
                    return self.fail("Fields in oneofs must not have labels (required / optional / repeated).");
                }
                let field_rec = self.rec(Some(message_rec), &[2, message.field.len() as i32]);
                let mut field = d::FieldDescriptorProto {
                    label: Some(Label::Optional),
                    oneof_index: Some(index),
                    ..Default::default()
                };
                let nested = Nested {
                    list: &mut message.nested_type,
                    field: 3,
                    parent: message_rec,
                };
                self.field_no_label(&mut field, nested, field_rec)?;
                message.field.push(field);
                self.done(field_rec);
            }
            if self.try_end_of_declaration('}', None) {
                return Ok(());
            }
        }
    }

    /// A field with its label, if written.
    fn labeled_field(&mut self, field: &mut d::FieldDescriptorProto, nested: Nested<'_>, rec: Rec) -> Parsed<()> {
        if let Some(label) = self.label(rec)? {
            field.label = Some(label);
            if label == Label::Optional && self.syntax == Syntax::Proto3 {
                field.proto3_optional = Some(true);
            }
        }
        self.field_no_label(field, nested, rec)
    }

    /// `optional`, `repeated` or `required`, if written (editions take
    /// only `repeated`).
    fn label(&mut self, field: Rec) -> Parsed<Option<Label>> {
        let label = match &self.current().tok {
            Tok::Ident(w) if w == "optional" => Label::Optional,
            Tok::Ident(w) if w == "repeated" => Label::Repeated,
            Tok::Ident(w) if w == "required" => Label::Required,
            _ => return Ok(None),
        };
        if matches!(self.syntax, Syntax::Editions(_)) {
            if label == Label::Optional {
                return self.fail(
                    "Label \"optional\" is not supported in editions. By default, all singular fields have presence \
                     unless features.field_presence is set.",
                );
            }
            if label == Label::Required {
                return self.fail(
                    "Label \"required\" is not supported in editions, use features.field_presence = LEGACY_REQUIRED.",
                );
            }
        }
        let rec = self.rec(Some(field), &[4]);
        self.advance();
        self.done(rec);
        Ok(Some(label))
    }
}

/// Proto3 `optional` fields each get a oneof of their own, named
/// `_name` (with `X`s before it until no field or oneof has the name),
/// after the message's real oneofs.
fn synthesize_oneofs(message: &mut d::DescriptorProto) {
    let mut names: Vec<String> = message
        .field
        .iter()
        .filter_map(|f| f.name.as_deref().map(str::to_owned))
        .collect();
    names.extend(
        message
            .oneof_decl
            .iter()
            .filter_map(|o| o.name.as_deref().map(str::to_owned)),
    );
    for i in 0..message.field.len() {
        if message.field[i].proto3_optional != Some(true) {
            continue;
        }
        let field_name = message.field[i].name.as_deref().unwrap_or("");
        let mut name = if field_name.starts_with('_') {
            field_name.to_owned()
        } else {
            format!("_{field_name}")
        };
        while names.contains(&name) {
            name.insert(0, 'X');
        }
        names.push(name.clone());
        message.field[i].oneof_index = Some(message.oneof_decl.len() as i32);
        message.oneof_decl.push(d::OneofDescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        });
    }
}
