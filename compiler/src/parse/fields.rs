//! One field after its label: type, name, number and options, then a
//! group's body or a map field's entry type; and the numbered statements
//! of a message (extension ranges, reserved ranges and names).

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};

use super::locations::Rec;
use super::{Parsed, Parser, Syntax};
use crate::error::At;
use crate::lex::Tok;

/// The end a `to max` range has until the message's options are read.
const MAX_RANGE: i32 = -1;

/// The largest field number (`to max` in a message that is no message set).
const MAX_NUMBER: i32 = (1 << 29) - 1;

/// Where the types a field declares (its group or map entry) go: a list of
/// messages, the field number of that list, and the location holding it.
pub struct Nested<'a> {
    pub list: &'a mut Vec<d::DescriptorProto>,
    pub field: i32,
    pub parent: Rec,
}

impl Parser<'_> {
    /// The rest of a field after its label.
    pub(super) fn field_no_label(
        &mut self,
        field: &mut d::FieldDescriptorProto,
        nested: Nested<'_>,
        rec: Rec,
    ) -> Parsed<()> {
        let map = self.field_type_or_map(field, rec)?;
        let name_token = self.at;
        let name = self.rec(Some(rec), &[1]);
        self.error_at(name, rec, At::Name);
        field.name = Some(self.identifier("Expected field name.")?.into());
        self.done(name);
        if !self.try_consume('=') {
            return self.fail("Missing field number.");
        }
        let number = self.rec(Some(rec), &[3]);
        self.error_at(number, rec, At::Number);
        field.number = Some(self.integer(i32::MAX as u64, "Expected field number.")? as i32);
        self.done(number);
        self.field_options(field, rec)?;
        if field.r#type == Some(Type::Group) {
            self.group(field, nested, rec, name_token)?;
        } else {
            self.end_of_declaration(';', Some(rec))?;
            if let Some((key, value)) = map {
                nested.list.push(map_entry(field, key, value));
            }
        }
        Ok(())
    }

    /// The field's type (`map<K, V>` gives the key and value fields).
    fn field_type_or_map(
        &mut self,
        field: &mut d::FieldDescriptorProto,
        rec: Rec,
    ) -> Parsed<Option<(d::FieldDescriptorProto, d::FieldDescriptorProto)>> {
        let ty = self.rec(Some(rec), &[]);
        self.error_at(ty, rec, At::Type);
        let mut map = None;
        let mut named_map = false;
        if self.try_consume_word("map") {
            if self.looking_at('<') {
                map = Some(self.map_type(field)?);
                self.add_path(ty, 6);
            } else {
                named_map = true;
            }
        }
        if map.is_none() {
            if field.label.is_none() {
                if self.syntax == Syntax::Proto2 {
                    return self.fail("Expected \"required\", \"optional\", or \"repeated\".");
                }
                field.label = Some(Label::Optional);
            }
            if named_map {
                field.type_name = Some("map".into());
            } else {
                self.field_type(field)?;
            }
            self.add_path(ty, if field.type_name.is_some() { 6 } else { 5 });
        }
        self.done(ty);
        Ok(map)
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
        field.type_name = Some(self.user_type()?.into());
        Ok(())
    }

    /// A group's body: a nested type named as the group, which the field
    /// (the name in lower case) refers to.
    fn group(
        &mut self,
        field: &mut d::FieldDescriptorProto,
        nested: Nested<'_>,
        rec: Rec,
        name_token: usize,
    ) -> Parsed<()> {
        let group_rec = self.rec(Some(nested.parent), &[]);
        self.start_like(group_rec, rec);
        self.add_path(group_rec, nested.field);
        self.add_path(group_rec, nested.list.len() as i32);
        let name = field.name.as_deref().unwrap_or("").to_owned();
        let name_rec = self.rec(Some(group_rec), &[1]);
        self.start_at(name_rec, name_token);
        self.end_at(name_rec, name_token);
        self.error_at(name_rec, group_rec, At::Name);
        let type_name = self.rec(Some(rec), &[6]);
        self.start_at(type_name, name_token);
        self.end_at(type_name, name_token);
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let at = self.tokens[name_token].start;
            return self.fail_at(at, "Group names must start with a capital letter.");
        }
        field.name = Some(name.to_ascii_lowercase().into());
        field.type_name = Some(name.clone().into());
        if !self.looking_at('{') {
            return self.fail("Missing group body.");
        }
        nested.list.push(d::DescriptorProto {
            name: Some(name.into()),
            ..Default::default()
        });
        let group = nested.list.last_mut().expect("just pushed");
        // A group is a nested message: it counts toward protoc's nesting
        // limit (which protoc applies when building it).
        if self.depth + 1 >= super::MAX_NESTING {
            return self.fail("Reached maximum recursion limit for nested messages.");
        }
        self.depth += 1;
        self.message_block(group, group_rec)?;
        self.depth -= 1;
        self.done(group_rec);
        Ok(())
    }

    /// `extensions 100 to 199, 500 to max [options];`
    pub(super) fn extension_ranges(&mut self, message: &mut d::DescriptorProto, rec: Rec) -> Parsed<()> {
        self.advance();
        let first = message.extension_range.len();
        loop {
            let range_rec = self.rec(Some(rec), &[message.extension_range.len() as i32]);
            self.error_at(range_rec, range_rec, At::Number);
            let (start, end) = self.number_range(range_rec, "Expected field number range.")?;
            message.extension_range.push(d::descriptor_proto::ExtensionRange {
                start: Some(start),
                end: Some(end),
                ..Default::default()
            });
            self.done(range_rec);
            if !self.try_consume(',') {
                break;
            }
        }
        if self.looking_at('[') {
            self.extension_range_options(message, first, rec)?;
        }
        self.end_of_declaration(';', Some(rec))
    }

    /// `[options]` of an extension range statement: parsed once, for every
    /// range of the statement, with their locations copied to each.
    fn extension_range_options(&mut self, message: &mut d::DescriptorProto, first: usize, rec: Rec) -> Parsed<()> {
        let index_at = self.path_of(rec).len();
        let recorded_from = self.locations.list.len();
        let index_rec = self.rec(Some(rec), &[0]);
        let options_rec = self.rec(Some(index_rec), &[3]);
        self.consume('[')?;
        let mut options = d::ExtensionRangeOptions::default();
        loop {
            self.option(&mut options.uninterpreted_option, options_rec, false)?;
            if !self.try_consume(',') {
                break;
            }
        }
        self.consume(']')?;
        self.done(options_rec);
        self.done(index_rec);
        let recorded: Vec<_> = self.locations.list.drain(recorded_from..).collect();
        for i in first..message.extension_range.len() {
            message.extension_range[i].options = Some(options.clone());
            for location in recorded.iter().filter(|l| l.path.len() != index_at + 1) {
                let mut copy = location.clone();
                copy.path[index_at] = i as i32;
                self.locations.list.push(copy);
            }
        }
        Ok(())
    }

    pub(super) fn message_reserved(&mut self, message: &mut d::DescriptorProto, parent: Rec) -> Parsed<()> {
        let start = self.at;
        self.advance();
        let rec = match self.reserved_kind()? {
            Reserved::Names => {
                let rec = self.rec(Some(parent), &[10]);
                self.start_at(rec, start);
                self.reserved_names(
                    &mut message.reserved_name,
                    rec,
                    "Expected field name string literal.",
                    "Expected field name identifier.",
                )?;
                rec
            }
            Reserved::Numbers => {
                let rec = self.rec(Some(parent), &[9]);
                self.start_at(rec, start);
                self.reserved_numbers(message, rec)?;
                rec
            }
        };
        self.done(rec);
        Ok(())
    }

    /// Whether a `reserved` statement lists names or numbers, and whether
    /// its names are written as this syntax wants them.
    pub(super) fn reserved_kind(&mut self) -> Parsed<Reserved> {
        let editions = matches!(self.syntax, Syntax::Editions(_));
        match self.current().tok {
            Tok::Str(_) if editions => {
                self.fail("Reserved names must be identifiers in editions, not string literals.")
            }
            Tok::Ident(_) if !editions => {
                self.fail("Reserved names must be string literals. (Only editions supports identifiers.)")
            }
            Tok::Str(_) | Tok::Ident(_) => Ok(Reserved::Names),
            _ => Ok(Reserved::Numbers),
        }
    }

    pub(super) fn reserved_names(
        &mut self,
        names: &mut Vec<fastrs::LaxString>,
        rec: Rec,
        expected_string: &str,
        expected_identifier: &str,
    ) -> Parsed<()> {
        let editions = matches!(self.syntax, Syntax::Editions(_));
        loop {
            let name_rec = self.rec(Some(rec), &[names.len() as i32]);
            let name = if editions {
                self.identifier(expected_identifier)?
            } else {
                String::from_utf8_lossy(&self.string(expected_string)?).into_owned()
            };
            names.push(name.into());
            self.done(name_rec);
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_declaration(';', Some(rec))
    }

    fn reserved_numbers(&mut self, message: &mut d::DescriptorProto, rec: Rec) -> Parsed<()> {
        let mut expected = "Expected field name or number range.";
        loop {
            let range_rec = self.rec(Some(rec), &[message.reserved_range.len() as i32]);
            self.error_at(range_rec, range_rec, At::Number);
            let (start, end) = self.number_range(range_rec, expected)?;
            message.reserved_range.push(d::descriptor_proto::ReservedRange {
                start: Some(start),
                end: Some(end),
                ..Default::default()
            });
            self.done(range_rec);
            expected = "Expected field number range.";
            if !self.try_consume(',') {
                break;
            }
        }
        self.end_of_declaration(';', Some(rec))
    }

    /// `N`, `N to M` or `N to max`, as a half-open range; `max` is
    /// `MAX_RANGE` until the message's options are known.
    fn number_range(&mut self, rec: Rec, expected: &str) -> Parsed<(i32, i32)> {
        let start_rec = self.rec(Some(rec), &[1]);
        let start_token = self.at;
        let start = self.integer(i32::MAX as u64, expected)? as i32;
        if start == i32::MAX {
            return self.fail("Field number out of bounds.");
        }
        self.done(start_rec);
        let to = self.try_consume_word("to");
        let end_rec = self.rec(Some(rec), &[2]);
        let end = if to {
            if self.try_consume_word("max") {
                MAX_RANGE - 1
            } else {
                let end = self.integer(i32::MAX as u64, "Expected integer.")? as i32;
                if end == i32::MAX {
                    return self.fail("Field number out of bounds.");
                }
                end
            }
        } else {
            self.start_at(end_rec, start_token);
            self.end_at(end_rec, start_token);
            start
        };
        self.done(end_rec);
        Ok((start, end + 1))
    }
}

/// What a `reserved` statement lists.
pub enum Reserved {
    Names,
    Numbers,
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
        let utf8 = part == "enforce_utf8" && option.name.len() == 1;
        for entry_field in [&mut *key, &mut *value] {
            if utf8 && entry_field.r#type == Some(Type::String) {
                entry_field
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option.clone());
            }
        }
        if part == "features" {
            for entry_field in [&mut *key, &mut *value] {
                entry_field
                    .options
                    .get_or_insert_with(Default::default)
                    .uninterpreted_option
                    .push(option.clone());
            }
        }
    }
}

/// Ends `to max` ranges after the largest field number, or after the
/// largest int32 in a message set (`option message_set_wire_format = true`,
/// read before options are interpreted, as protoc's parser does).
pub(super) fn resolve_max(message: &mut d::DescriptorProto) {
    let message_set = message.options.as_ref().is_some_and(|options| {
        options.uninterpreted_option.iter().any(|option| {
            option.name.len() == 1
                && option.name[0].name_part.as_deref() == Some("message_set_wire_format")
                && option.name[0].is_extension != Some(true)
                && option.identifier_value.as_deref() == Some("true")
        })
    });
    let max = if message_set { i32::MAX } else { MAX_NUMBER + 1 };
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
