//! The rules of proto3, enums, maps and JSON names.

use std::collections::HashMap;

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::schema::{Features, JsonFormat};

use super::{with_options, Checker};
use crate::error::At;
use crate::symbols::join;
use fastrs::schema::json_name;

impl Checker<'_> {
    /// What proto3 forbids of a field or extension.
    /// `[packed = true]` only on a repeated field of a scalar type (not a
    /// string, bytes, message or group), as protoc requires. (`packed =
    /// false` is accepted anywhere, as protoc does.)
    pub(super) fn packed_rule(&mut self, field: &d::FieldDescriptorProto, path: &[i32]) {
        let packed = field.options.as_ref().and_then(|o| o.packed) == Some(true);
        let packable = field.label == Some(Label::Repeated)
            && !matches!(
                field.r#type,
                Some(Type::String | Type::Bytes | Type::Message | Type::Group) | None
            );
        if packed && !packable {
            self.problem(
                path,
                At::Type,
                "[packed = true] can only be specified for repeated primitive fields.",
            );
        }
    }

    pub(super) fn field_rules(&mut self, scope: &str, field: &d::FieldDescriptorProto, path: &[i32]) {
        if !self.proto3() {
            return;
        }
        if field.label == Some(Label::Required) {
            self.problem(path, At::Type, "Required fields are not allowed in proto3.");
        }
        if field.r#type == Some(Type::Enum) {
            let enum_name = field.type_name.as_deref().unwrap_or("").trim_start_matches('.');
            if self.schema.enum_closed(enum_name) == Some(true) {
                let text = format!(
                    "Enum type \"{enum_name}\" is not an open enum, but is used in \"{scope}\" which is a proto3 message \
                     type."
                );
                self.problem(path, At::Type, text);
            }
        }
        if field.r#type == Some(Type::Group) {
            self.problem(path, At::Type, "Groups are not supported in proto3 syntax.");
        }
    }

    pub(super) fn extension_rules(&mut self, scope: &str, field: &d::FieldDescriptorProto, path: &[i32]) {
        self.extension_numbers(scope, field, path);
        let name = field.name.as_deref().unwrap_or("");
        if field.json_name.as_deref().is_some_and(|j| j != json_name(name)) {
            self.problem(
                path,
                At::OptionName,
                "option json_name is not allowed on extension fields.",
            );
        }
        let extendee = field.extendee.as_deref().unwrap_or("").trim_start_matches('.');
        let of_options = extendee
            .strip_prefix("google.protobuf.")
            .is_some_and(|n| n.ends_with("Options"));
        if self.proto3() && !of_options {
            self.problem(
                path,
                At::Extendee,
                "Extensions in proto3 are only allowed for defining options.",
            );
        }
        self.field_rules(scope, field, path);
    }

    /// A map field's key type, and a closed enum value type that lacks 0.
    pub(super) fn map_rules(&mut self, message: &d::DescriptorProto, field: &d::FieldDescriptorProto, path: &[i32]) {
        let Some(entry) = super::map_entry_of(message, field) else {
            return;
        };
        let (Some(key), Some(value)) = (entry.field.first(), entry.field.get(1)) else {
            return;
        };
        match key.r#type {
            Some(Type::Enum) => self.problem(path, At::Type, "Key in map fields cannot be enum types."),
            Some(Type::Float | Type::Double | Type::Message | Type::Group | Type::Bytes) => self.problem(
                path,
                At::Type,
                "Key in map fields cannot be float/double, bytes or message types.",
            ),
            _ => {}
        }
        if value.r#type == Some(Type::Enum) {
            let enum_name = value.type_name.as_deref().unwrap_or("").trim_start_matches('.');
            let first = self
                .schema
                .enum_values(enum_name)
                .and_then(|v| v.first().map(|(_, n)| *n));
            if first.is_some_and(|n| n != 0) {
                self.problem(path, At::Type, "Enum value in map must define 0 as the first value.");
            }
        }
    }

    /// No two fields of a message may share a JSON name (only a warning
    /// where the JSON format is `LEGACY_BEST_EFFORT` and a default name
    /// is involved).
    pub(super) fn json_names(&mut self, message: &d::DescriptorProto, path: &[i32], features: Features) {
        let legacy = features.json_format == JsonFormat::LegacyBestEffort;
        for use_custom in [false, true] {
            let mut seen: HashMap<String, (usize, bool)> = HashMap::new();
            for (i, field) in message.field.iter().enumerate() {
                let name = field.name.as_deref().unwrap_or("");
                let default = json_name(name);
                let custom = field.json_name.as_deref().filter(|j| use_custom && *j != default);
                let (json, is_custom) = match custom {
                    Some(custom) => (custom.to_owned(), true),
                    None => (default, false),
                };
                let at = [path, &[2, i as i32]].concat();
                if is_custom && json.starts_with('[') && json.ends_with(']') {
                    let text = format!(
                        "The custom JSON name of field \"{name}\" (\"{json}\") is invalid: JSON names may not start \
                         with '[' and end with ']'."
                    );
                    self.problem(&at, At::Name, text);
                    continue;
                }
                let Some(&(first, first_custom)) = seen.get(&json) else {
                    seen.insert(json, (i, is_custom));
                    continue;
                };
                if use_custom && !is_custom && !first_custom || legacy && (!is_custom || !first_custom) {
                    continue;
                }
                let kind = |custom: bool| if custom { "custom" } else { "default" };
                let text = format!(
                    "The {} JSON name of field \"{name}\" (\"{json}\") conflicts with the {} JSON name of field \"{}\".",
                    kind(is_custom),
                    kind(first_custom),
                    message.field[first].name.as_deref().unwrap_or("")
                );
                self.problem(&at, At::Name, text);
            }
        }
    }

    pub(super) fn enum_type(
        &mut self,
        scope: &str,
        enum_type: &d::EnumDescriptorProto,
        path: &[i32],
        parent: Features,
    ) {
        let explicit = enum_type.options.as_ref().and_then(|o| o.features.as_ref());
        if self.legacy() && explicit.is_some() {
            self.problem(path, At::Name, "Features are only valid under editions.");
        }
        let features = with_options(parent, explicit);
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        if enum_type.value.is_empty() {
            self.problem(path, At::Name, "Enums must contain at least one value.");
        }
        self.enum_reserved(enum_type, path);
        if !features.closed_enum() && enum_type.value.first().is_some_and(|v| v.number != Some(0)) {
            self.problem(
                &at(2, 0),
                At::Number,
                "The first enum value must be zero for open enums.",
            );
        }
        let alias = enum_type.options.as_ref().and_then(|o| o.allow_alias) == Some(true);
        if alias {
            return;
        }
        let mut used: HashMap<i32, String> = HashMap::new();
        for (i, value) in enum_type.value.iter().enumerate() {
            let number = value.number.unwrap_or(0);
            let value_name = join(scope, value.name.as_deref().unwrap_or(""));
            if let Some(first) = used.get(&number) {
                let text = format!(
                    "\"{value_name}\" uses the same enum value as \"{first}\". If this is intended, set 'option \
                     allow_alias = true;' to the enum definition."
                );
                self.problem(&at(2, i), At::Number, text);
            } else {
                used.insert(number, value_name);
            }
        }
    }

    fn enum_reserved(&mut self, enum_type: &d::EnumDescriptorProto, path: &[i32]) {
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        for (i, value) in enum_type.value.iter().enumerate() {
            let number = value.number.unwrap_or(0);
            let name = value.name.as_deref().unwrap_or("");
            for (j, range) in enum_type.reserved_range.iter().enumerate() {
                if range.start.unwrap_or(0) <= number && number <= range.end.unwrap_or(0) {
                    self.problem(
                        &at(4, j),
                        At::Number,
                        format!("Enum value \"{name}\" uses reserved number {number}."),
                    );
                }
            }
            if enum_type.reserved_name.iter().any(|r| &**r == name) {
                self.problem(&at(2, i), At::Name, format!("Enum value \"{name}\" is reserved."));
            }
        }
        let ranges = &enum_type.reserved_range;
        for (i, first) in ranges.iter().enumerate() {
            for second in &ranges[i + 1..] {
                let (s1, e1) = (first.start.unwrap_or(0), first.end.unwrap_or(0));
                let (s2, e2) = (second.start.unwrap_or(0), second.end.unwrap_or(0));
                if e1 >= s2 && e2 >= s1 {
                    let text = format!("Reserved range {s2} to {e2} overlaps with already-defined range {s1} to {e1}.");
                    self.problem(&at(4, i), At::Number, text);
                }
            }
        }
    }
}
