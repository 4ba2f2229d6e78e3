//! Messages and what they hold: fields (with groups and maps), oneofs,
//! extensions, extension ranges and reserved numbers and names.

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};

use super::{Parsed, Parser, Syntax};
use crate::error::Pos;
use crate::lex::Tok;

/// The largest field number.
pub const MAX_NUMBER: u64 = (1 << 29) - 1;

/// Where a field is being declared: what its group type (if any) joins and
/// what it is.
struct Scope<'a> {
    fields: &'a mut Vec<d::FieldDescriptorProto>,
    nested: &'a mut Vec<d::DescriptorProto>,
    /// Set for fields of an `extend` block.
    extendee: Option<&'a str>,
    /// Set for fields of a oneof: its index.
    oneof: Option<i32>,
}

impl Parser<'_> {
    pub(super) fn message(&mut self) -> Parsed<d::DescriptorProto> {
        let name = self.identifier("Expected message name.")?;
        let mut message = d::DescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        };
        self.message_body(&mut message)?;
        Ok(message)
    }

    fn message_body(&mut self, message: &mut d::DescriptorProto) -> Parsed<()> {
        self.block(|p| p.message_statement(message))?;
        if self.syntax == Syntax::Proto3 {
            synthesize_oneofs(message);
        }
        resolve_max(message);
        Ok(())
    }

    fn message_statement(&mut self, message: &mut d::DescriptorProto) -> Parsed<()> {
        if self.try_consume(';') {
            return Ok(());
        }
        let word = match &self.current().tok {
            Tok::Ident(word) => word.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "message" | "enum" | "export" | "local" if self.nested_definition(message)? => Ok(()),
            "extensions" => {
                self.advance();
                self.extension_ranges(message)
            }
            "reserved" => {
                self.advance();
                self.message_reserved(message)
            }
            "extend" => {
                self.advance();
                self.extend(&mut message.extension, &mut message.nested_type)
            }
            "option" => {
                self.advance();
                let option = self.option_assignment()?;
                self.end_of_statement()?;
                message
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
                Ok(())
            }
            "oneof" => {
                self.advance();
                self.oneof(message)
            }
            _ => {
                let mut scope = Scope {
                    fields: &mut message.field,
                    nested: &mut message.nested_type,
                    extendee: None,
                    oneof: None,
                };
                self.field(&mut scope)
            }
        }
    }

    /// A nested message or enum; `false` if the words are a field after all.
    fn nested_definition(&mut self, message: &mut d::DescriptorProto) -> Parsed<bool> {
        let visibility = self.visibility()?;
        if self.try_consume_word("message") {
            let mut nested = self.message()?;
            nested.visibility = visibility;
            message.nested_type.push(nested);
            return Ok(true);
        }
        if self.try_consume_word("enum") {
            let mut nested = self.enum_definition()?;
            nested.visibility = visibility;
            message.enum_type.push(nested);
            return Ok(true);
        }
        Ok(false)
    }

    /// `extend Type { fields }`: extension fields into `extensions`, group
    /// types into `nested`.
    pub(super) fn extend(
        &mut self,
        extensions: &mut Vec<d::FieldDescriptorProto>,
        nested: &mut Vec<d::DescriptorProto>,
    ) -> Parsed<()> {
        let extendee = self.dotted_name(true, "Expected type name.")?;
        self.block(|p| {
            if p.try_consume(';') {
                return Ok(());
            }
            let mut scope = Scope {
                fields: extensions,
                nested,
                extendee: Some(&extendee),
                oneof: None,
            };
            p.field(&mut scope)
        })
    }

    fn oneof(&mut self, message: &mut d::DescriptorProto) -> Parsed<()> {
        let name = self.identifier("Expected oneof name.")?;
        let index = message.oneof_decl.len() as i32;
        message.oneof_decl.push(d::OneofDescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        });
        self.block(|p| {
            if p.try_consume(';') {
                return Ok(());
            }
            if p.try_consume_word("option") {
                let option = p.option_assignment()?;
                p.end_of_statement()?;
                let oneof = &mut message.oneof_decl[index as usize];
                oneof
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option);
                return Ok(());
            }
            if matches!(&p.current().tok, Tok::Ident(w) if w == "required" || w == "optional" || w == "repeated") {
                return p.fail("Fields in oneofs must not have labels (required / optional / repeated).");
            }
            let mut scope = Scope {
                fields: &mut message.field,
                nested: &mut message.nested_type,
                extendee: None,
                oneof: Some(index),
            };
            p.field(&mut scope)
        })
    }

    /// One field, group or map field, with its label.
    fn field(&mut self, scope: &mut Scope<'_>) -> Parsed<()> {
        let mut field = d::FieldDescriptorProto::default();
        if let Some(extendee) = scope.extendee {
            field.extendee = Some(extendee.into());
        }
        if let Some(index) = scope.oneof {
            field.oneof_index = Some(index);
            field.label = Some(Label::Optional);
        } else if let Some(label) = self.label()? {
            field.label = Some(label);
            if label == Label::Optional && self.syntax == Syntax::Proto3 {
                field.proto3_optional = Some(true);
            }
        }
        self.field_no_label(field, scope)
    }

    /// `optional`, `repeated` or `required`, if written (editions take
    /// none of them but `repeated`).
    fn label(&mut self) -> Parsed<Option<Label>> {
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
        self.advance();
        Ok(Some(label))
    }

    /// The rest of a field after its label: type, name, number, options,
    /// and a group's body or a map field's entry type.
    fn field_no_label(&mut self, mut field: d::FieldDescriptorProto, scope: &mut Scope<'_>) -> Parsed<()> {
        let mut map = None;
        if self.try_consume_word("map") {
            if self.looking_at('<') {
                map = Some(self.map_type(&mut field)?);
            } else {
                field.type_name = Some("map".into());
            }
        }
        if map.is_none() {
            if field.label.is_none() {
                if self.syntax == Syntax::Proto2 {
                    return self.fail("Expected \"required\", \"optional\", or \"repeated\".");
                }
                field.label = Some(Label::Optional);
            }
            if field.type_name.is_none() {
                self.field_type(&mut field)?;
            }
        }
        let name_at = self.pos();
        field.name = Some(self.identifier("Expected field name.")?.into());
        if !self.try_consume('=') {
            return self.fail("Missing field number.");
        }
        let number = self.integer(i32::MAX as u64, "Expected field number.")?;
        field.number = Some(number as i32);
        if self.looking_at('[') {
            self.field_options(&mut field)?;
        }
        if field.r#type == Some(Type::Group) {
            self.group_body(&mut field, name_at, scope)?;
        } else {
            self.end_of_statement()?;
        }
        if let Some((key, value)) = map {
            scope.nested.push(map_entry(&mut field, key, value));
        }
        scope.fields.push(field);
        Ok(())
    }

    /// `<K, V>` of a map field, which becomes repeated.
    fn map_type(
        &mut self,
        field: &mut d::FieldDescriptorProto,
    ) -> Parsed<(d::FieldDescriptorProto, d::FieldDescriptorProto)> {
        if field.oneof_index.is_some() {
            return self.fail("Map fields are not allowed in oneofs.");
        }
        if field.label.is_some() {
            return self.fail("Field labels (required/optional/repeated) are not allowed on map fields.");
        }
        if field.extendee.is_some() {
            return self.fail("Map fields are not allowed to be extensions.");
        }
        field.label = Some(Label::Repeated);
        self.consume('<')?;
        let mut key = entry_field("key", 1);
        self.field_type(&mut key)?;
        self.consume(',')?;
        let mut value = entry_field("value", 2);
        self.field_type(&mut value)?;
        self.consume('>')?;
        Ok((key, value))
    }

    /// A scalar type keyword (or `group`) sets `type`; any other name is a
    /// type name to resolve when linking.
    fn field_type(&mut self, field: &mut d::FieldDescriptorProto) -> Parsed<()> {
        let fixed_ints = self.syntax == Syntax::Editions(d::Edition::EditionUnstable);
        if let Tok::Ident(word) = &self.current().tok {
            if word == "group" {
                if matches!(self.syntax, Syntax::Editions(_)) {
                    return self.fail(
                        "Group syntax is no longer supported in editions. To get group behavior you can specify \
                         features.message_encoding = DELIMITED on a message field.",
                    );
                }
                self.advance();
                field.r#type = Some(Type::Group);
                return Ok(());
            }
            if let Some(ty) = scalar_type(word, fixed_ints) {
                self.advance();
                field.r#type = Some(ty);
                return Ok(());
            }
            if let Some(replacement) = replaced_type(word).filter(|_| fixed_ints) {
                return self.fail(format!(
                    "Type '{word}' is obsolete in unstable editions, use '{replacement}' instead."
                ));
            }
        }
        field.type_name = Some(self.dotted_name(true, "Expected type name.")?.into());
        Ok(())
    }

    /// A group's body: its fields are a nested type named as the group,
    /// and the field is the name in lower case.
    fn group_body(&mut self, field: &mut d::FieldDescriptorProto, name_at: Pos, scope: &mut Scope<'_>) -> Parsed<()> {
        let name = field.name.as_deref().unwrap_or("").to_owned();
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            return self.fail_at(name_at, "Group names must start with a capital letter.");
        }
        field.name = Some(name.to_ascii_lowercase().into());
        field.type_name = Some(name.clone().into());
        if !self.looking_at('{') {
            return self.fail("Missing group body.");
        }
        let mut group = d::DescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        };
        self.message_body(&mut group)?;
        scope.nested.push(group);
        Ok(())
    }

    /// `extensions 100 to 199, 500 to max [options];`
    fn extension_ranges(&mut self, message: &mut d::DescriptorProto) -> Parsed<()> {
        let first = message.extension_range.len();
        loop {
            let (start, end) = self.number_range("Expected field number range.")?;
            message.extension_range.push(d::descriptor_proto::ExtensionRange {
                start: Some(start),
                end: Some(end),
                ..Default::default()
            });
            if !self.try_consume(',') {
                break;
            }
        }
        if self.looking_at('[') {
            let mut options = d::ExtensionRangeOptions::default();
            self.bracketed_options(&mut options.uninterpreted_option)?;
            for range in &mut message.extension_range[first..] {
                range.options = Some(options.clone());
            }
        }
        self.end_of_statement()
    }

    fn message_reserved(&mut self, message: &mut d::DescriptorProto) -> Parsed<()> {
        if self.reserved_names_follow() {
            return self.reserved_names(&mut message.reserved_name);
        }
        loop {
            let (start, end) = self.number_range("Expected field name or number range.")?;
            message.reserved_range.push(d::descriptor_proto::ReservedRange {
                start: Some(start),
                end: Some(end),
                ..Default::default()
            });
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_statement()
    }

    /// `N`, `N to M` or `N to max`, as a half-open range; `max` is
    /// `MAX_RANGE` until the message's options are known.
    fn number_range(&mut self, expected: &str) -> Parsed<(i32, i32)> {
        let start = self.integer(i32::MAX as u64, expected)? as i32;
        if !self.try_consume_word("to") {
            return Ok((start, start.saturating_add(1)));
        }
        if self.try_consume_word("max") {
            return Ok((start, MAX_RANGE));
        }
        let end = self.integer(i32::MAX as u64, "Expected integer.")? as i32;
        Ok((start, end.saturating_add(1)))
    }
}

/// The end a `to max` range has until the message's options are read.
const MAX_RANGE: i32 = -1;

/// Ends `to max` ranges after the largest field number, or after the
/// largest int32 in a message set (`option message_set_wire_format = true`,
/// read before options are interpreted, as protoc's parser does).
fn resolve_max(message: &mut d::DescriptorProto) {
    let message_set = message.options.as_ref().is_some_and(|options| {
        options.uninterpreted_option.iter().any(|option| {
            option.name.len() == 1
                && option.name[0].name_part.as_deref() == Some("message_set_wire_format")
                && option.name[0].is_extension != Some(true)
                && option.identifier_value.as_deref() == Some("true")
        })
    });
    let max = if message_set { i32::MAX } else { MAX_NUMBER as i32 + 1 };
    for range in &mut message.extension_range {
        if range.end == Some(MAX_RANGE) {
            range.end = Some(max);
        }
    }
    for range in &mut message.reserved_range {
        if range.end == Some(MAX_RANGE) {
            range.end = Some(max);
        }
    }
}

/// The type a scalar type keyword names. Edition UNSTABLE gives the
/// integer keywords fixed-width encodings and names the varint ones anew.
fn scalar_type(word: &str, fixed_ints: bool) -> Option<Type> {
    Some(match (word, fixed_ints) {
        ("double", _) => Type::Double,
        ("float", _) => Type::Float,
        ("bool", _) => Type::Bool,
        ("string", _) => Type::String,
        ("bytes", _) => Type::Bytes,
        ("int64", false) | ("varint64", true) => Type::Int64,
        ("uint64", false) | ("uvarint64", true) => Type::Uint64,
        ("int32", false) | ("varint32", true) => Type::Int32,
        ("uint32", false) | ("uvarint32", true) => Type::Uint32,
        ("sint32", false) | ("zigzag32", true) => Type::Sint32,
        ("sint64", false) | ("zigzag64", true) => Type::Sint64,
        ("fixed64", false) | ("uint64", true) => Type::Fixed64,
        ("fixed32", false) | ("uint32", true) => Type::Fixed32,
        ("sfixed32", false) | ("int32", true) => Type::Sfixed32,
        ("sfixed64", false) | ("int64", true) => Type::Sfixed64,
        _ => return None,
    })
}

/// What edition UNSTABLE calls a keyword it no longer takes.
fn replaced_type(word: &str) -> Option<&'static str> {
    Some(match word {
        "fixed32" => "uint32",
        "fixed64" => "uint64",
        "sfixed32" => "int32",
        "sfixed64" => "int64",
        "sint32" => "zigzag32",
        "sint64" => "zigzag64",
        _ => return None,
    })
}

fn entry_field(name: &str, number: i32) -> d::FieldDescriptorProto {
    d::FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(Label::Optional),
        ..Default::default()
    }
}

/// The entry type of a map field (named after it), which the field now
/// names.
fn map_entry(
    field: &mut d::FieldDescriptorProto,
    mut key: d::FieldDescriptorProto,
    mut value: d::FieldDescriptorProto,
) -> d::DescriptorProto {
    let entry_name = map_entry_name(field.name.as_deref().unwrap_or(""));
    field.type_name = Some(entry_name.clone().into());
    propagate_to_entry(field, &mut key, &mut value);
    d::DescriptorProto {
        name: Some(entry_name.into()),
        field: vec![key, value],
        options: Some(d::MessageOptions {
            map_entry: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A map field's entry type name: `foo_bar` → `FooBarEntry`.
fn map_entry_name(field: &str) -> String {
    let mut name = String::with_capacity(field.len() + 5);
    let mut cap_next = true;
    for c in field.chars() {
        if c == '_' {
            cap_next = true;
        } else if cap_next {
            name.push(c.to_ascii_uppercase());
            cap_next = false;
        } else {
            name.push(c);
        }
    }
    name + "Entry"
}

/// A map field's `features` options hold for its key and value too, and
/// `enforce_utf8` for its string ones (as protoc's parser copies them).
fn propagate_to_entry(
    field: &d::FieldDescriptorProto,
    key: &mut d::FieldDescriptorProto,
    value: &mut d::FieldDescriptorProto,
) {
    let Some(options) = &field.options else { return };
    for option in &options.uninterpreted_option {
        let Some(first) = option.name.first() else { continue };
        if first.is_extension == Some(true) {
            continue;
        }
        let part = first.name_part.as_deref().unwrap_or("");
        let to_both = part == "features";
        let utf8 = part == "enforce_utf8" && option.name.len() == 1;
        for entry_field in [&mut *key, &mut *value] {
            if to_both || (utf8 && entry_field.r#type == Some(Type::String)) {
                entry_field
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option.clone());
            }
        }
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
