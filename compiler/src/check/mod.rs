//! The checks protoc makes once a file is linked and its options are
//! interpreted: field and extension numbers, reserved names and ranges,
//! the rules of proto3, enums, maps, JSON names, and features. Each
//! problem names the element and the part of it protoc reports it at.

mod declarations;
mod features;
mod naming;
mod numbers;
mod rules;
mod visibility;

pub use features::targets_and_editions;

use std::collections::HashMap;

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::schema::{Features, LegacyField};
use fastrs::Message;

use crate::error::At;
use crate::error::Problem;
use crate::schema::Schema;
use crate::symbols::join;

/// Checks the linked `file` (index `index` among the loaded files).
pub fn check(file: &d::FileDescriptorProto, schema: &Schema<'_>) -> Vec<Problem> {
    let syntax = file.syntax.as_deref().unwrap_or("proto2");
    let mut checker = Checker {
        schema,
        syntax: syntax.to_owned(),
        edition: file.edition.map_or(0, |e| e as i32),
        problems: Vec::new(),
        extension_numbers: HashMap::new(),
    };
    let package = file.package.as_deref().unwrap_or("");
    let features = with_options(
        Features::of_file(syntax),
        file.options.as_ref().and_then(|o| o.features.as_ref()),
    );
    if checker.legacy() && file.options.as_ref().is_some_and(|o| o.features.is_some()) {
        checker.problem(&[], At::Editions, "Features are only valid under editions.");
    }
    if !checker.legacy() && file.options.as_ref().and_then(|o| o.java_string_check_utf8) == Some(true) {
        checker.problem(
            &[],
            At::Editions,
            "File option java_string_check_utf8 is not allowed under editions. Use the (pb.java).utf8_validation \
             feature to control this behavior.",
        );
    }
    for (i, message) in file.message_type.iter().enumerate() {
        checker.message(package, message, &[4, i as i32], features);
    }
    for (i, enum_type) in file.enum_type.iter().enumerate() {
        checker.enum_type(package, enum_type, &[5, i as i32], features);
    }
    for (i, extension) in file.extension.iter().enumerate() {
        checker.extension(package, extension, &[7, i as i32], features);
    }
    checker.naming(file);
    checker.visibility(file);
    checker.problems
}

/// Where a field is, for the feature rules.
#[derive(Clone, Copy)]
struct Place {
    extension: bool,
    /// A key or value of a map entry (their features come from the map).
    in_map_entry: bool,
    /// A map field with a string key or value.
    string_map: bool,
}

/// The map entry type of a map field, declared in `message`.
pub(super) fn map_entry_of<'m>(
    message: &'m d::DescriptorProto,
    field: &d::FieldDescriptorProto,
) -> Option<&'m d::DescriptorProto> {
    if field.label != Some(Label::Repeated) || field.r#type != Some(Type::Message) {
        return None;
    }
    let entry_name = field.type_name.as_deref()?.rsplit('.').next()?;
    message
        .nested_type
        .iter()
        .find(|m| m.name.as_deref() == Some(entry_name) && m.options.as_ref().and_then(|o| o.map_entry) == Some(true))
}

/// `features` with an element's explicit `features` option laid over them.
fn with_options(features: Features, explicit: Option<&d::FeatureSet>) -> Features {
    match explicit {
        Some(set) => features.with(&set.encode_to_vec()),
        None => features,
    }
}

struct Checker<'a> {
    schema: &'a Schema<'a>,
    syntax: String,
    /// The file's edition number (0 for proto2 and proto3).
    edition: i32,
    problems: Vec<Problem>,
    /// The extensions declared in this file, by extendee and number.
    extension_numbers: HashMap<(String, i32), String>,
}

impl Checker<'_> {
    fn problem(&mut self, path: &[i32], at: At, message: impl Into<String>) {
        self.problems.push(Problem::new(path, at, message));
    }

    fn proto3(&self) -> bool {
        self.syntax == "proto3"
    }

    /// proto2 or proto3: features are the syntax's, not written.
    fn legacy(&self) -> bool {
        self.syntax != "editions"
    }

    fn message(&mut self, scope: &str, message: &d::DescriptorProto, path: &[i32], parent: Features) {
        let name = join(scope, message.name.as_deref().unwrap_or(""));
        let explicit = message.options.as_ref().and_then(|o| o.features.as_ref());
        if self.legacy() && explicit.is_some() {
            self.problem(path, At::Name, "Features are only valid under editions.");
        }
        let features = with_options(parent, explicit);
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        self.numbers(&name, message, path);
        self.extension_declarations(message, path);
        for (i, field) in message.field.iter().enumerate() {
            self.field(&name, message, field, &at(2, i), features);
        }
        for (i, extension) in message.extension.iter().enumerate() {
            self.extension(&name, extension, &at(6, i), features);
        }
        self.json_names(message, path, features);
        if self.proto3() {
            if !message.extension_range.is_empty() {
                self.problem(&at(5, 0), At::Number, "Extension ranges are not allowed in proto3.");
            }
            if message.options.as_ref().and_then(|o| o.message_set_wire_format) == Some(true) {
                self.problem(path, At::Name, "MessageSet is not supported in proto3.");
            }
        }
        for (i, nested) in message.nested_type.iter().enumerate() {
            self.message(&name, nested, &at(3, i), features);
        }
        for (i, enum_type) in message.enum_type.iter().enumerate() {
            self.enum_type(&name, enum_type, &at(4, i), features);
        }
    }

    /// A field's resolved features (its message's, its own `features`, and
    /// what its proto2/proto3 spelling stands for).
    fn field_features(&self, field: &d::FieldDescriptorProto, parent: Features) -> Features {
        let options = field.options.as_ref();
        with_options(parent, options.and_then(|o| o.features.as_ref())).with_field(LegacyField {
            required: field.label == Some(Label::Required),
            group: field.r#type == Some(Type::Group),
            packed: options.and_then(|o| o.packed),
            proto3_optional: field.proto3_optional == Some(true),
        })
    }

    fn field(
        &mut self,
        scope: &str,
        message: &d::DescriptorProto,
        field: &d::FieldDescriptorProto,
        path: &[i32],
        parent: Features,
    ) {
        let features = self.field_features(field, parent);
        self.packed_rule(field, path);
        self.field_rules(scope, field, path);
        let place = Place {
            extension: false,
            in_map_entry: message.options.as_ref().and_then(|o| o.map_entry) == Some(true),
            string_map: map_entry_of(message, field)
                .is_some_and(|entry| entry.field.iter().any(|f| f.r#type == Some(Type::String))),
        };
        self.field_features_check(field, path, features, place);
        self.map_rules(message, field, path);
    }

    fn extension(&mut self, scope: &str, field: &d::FieldDescriptorProto, path: &[i32], parent: Features) {
        let features = self.field_features(field, parent);
        self.packed_rule(field, path);
        self.extension_rules(scope, field, path);
        self.declared_extension(scope, field, path);
        let place = Place {
            extension: true,
            in_map_entry: false,
            string_map: false,
        };
        self.field_features_check(field, path, features, place);
    }
}
