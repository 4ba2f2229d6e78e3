//! Features: where each may be set (its `targets`), in which editions
//! (its `feature_support`), and what a field's explicit features may say.

use fastrs::descriptor as d;
use fastrs::descriptor::feature_set::FieldPresence;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::field_options::{FeatureSupport, OptionTargetType};
use fastrs::schema::Features;
use fastrs::{Message, Reader};

use super::{Checker, Place};
use crate::error::At;
use crate::error::Problem;
use crate::walk::{self, Options, Visit};

impl Checker<'_> {
    /// The feature rules of one field (or extension) with resolved
    /// `features`.
    pub(super) fn field_features_check(
        &mut self,
        field: &d::FieldDescriptorProto,
        path: &[i32],
        features: Features,
        place: Place,
    ) {
        let extension = place.extension;
        let explicit = field.options.as_ref().and_then(|o| o.features.as_ref());
        if self.legacy() {
            if explicit.is_some() {
                self.problem(path, At::Name, "Features are only valid under editions.");
            }
            return;
        }
        if field.options.as_ref().and_then(|o| o.packed).is_some() {
            self.problem(
                path,
                At::Name,
                "Field option packed is not allowed under editions.  Use the repeated_field_encoding feature to \
                 control this behavior.",
            );
        }
        let repeated = field.label == Some(Label::Repeated);
        let message_typed = matches!(field.r#type, Some(Type::Message | Type::Group));
        let presence =
            !repeated && (message_typed || field.oneof_index.is_some() || extension || !features.implicit_presence());
        if !repeated && !presence {
            if field.default_value.is_some() {
                self.problem(path, At::Name, "Implicit presence fields can't specify defaults.");
            }
            let enum_name = field.type_name.as_deref().unwrap_or("").trim_start_matches('.');
            if field.r#type == Some(Type::Enum) && self.schema.enum_closed(enum_name) == Some(true) {
                self.problem(path, At::Name, "Implicit presence enum fields must always be open.");
            }
        }
        if extension && features.required() {
            self.problem(path, At::Name, "Extensions can't be required.");
        }
        if let Some(explicit) = explicit.filter(|_| !place.in_map_entry) {
            self.explicit_field_features(field, path, explicit, place);
        }
        if self.edition >= d::Edition::Edition2024 as i32 && field.options.as_ref().and_then(|o| o.ctype).is_some() {
            self.problem(
                path,
                At::Type,
                "ctype option is not allowed under edition 2024 and beyond. Use the feature string_type = \
                 VIEW|CORD|STRING|... instead.",
            );
        }
    }

    /// What the features set on a field itself may say of it.
    fn explicit_field_features(
        &mut self,
        field: &d::FieldDescriptorProto,
        path: &[i32],
        set: &d::FeatureSet,
        place: Place,
    ) {
        let extension = place.extension;
        let repeated = field.label == Some(Label::Repeated);
        let message_typed = matches!(field.r#type, Some(Type::Message | Type::Group));
        if let Some(presence) = set.field_presence {
            if field.oneof_index.is_some() {
                self.problem(path, At::Name, "Oneof fields can't specify field presence.");
            } else if repeated {
                self.problem(path, At::Name, "Repeated fields can't specify field presence.");
            } else if extension && presence != FieldPresence::LegacyRequired {
                self.problem(path, At::Name, "Extensions can't specify field presence.");
            } else if message_typed && presence == FieldPresence::Implicit {
                self.problem(path, At::Name, "Message fields can't specify implicit presence.");
            }
        }
        if !repeated && set.repeated_field_encoding.is_some() {
            self.problem(
                path,
                At::Name,
                "Only repeated fields can specify repeated field encoding.",
            );
        }
        if field.r#type != Some(Type::String) && !place.string_map && set.utf8_validation.is_some() {
            self.problem(path, At::Name, "Only string fields can specify utf8 validation.");
        }
        let packable = repeated
            && !matches!(
                field.r#type,
                Some(Type::String | Type::Bytes | Type::Message | Type::Group)
            );
        if !packable && set.repeated_field_encoding == Some(d::feature_set::RepeatedFieldEncoding::Packed) {
            self.problem(
                path,
                At::Name,
                "Only repeated primitive fields can specify PACKED repeated field encoding.",
            );
        }
        if !message_typed && set.message_encoding.is_some() {
            self.problem(path, At::Name, "Only message fields can specify message encoding.");
        }
    }
}

/// Where each set feature may go and in which editions, checked for every
/// options message of `file` (protoc's command line makes these checks,
/// and reports them with no place in the file).
pub fn targets_and_editions(file: &mut d::FileDescriptorProto, edition: i32) -> Vec<Problem> {
    let mut visit = Targets {
        edition,
        problems: Vec::new(),
    };
    walk::options(file, &mut visit);
    visit.problems
}

struct Targets {
    edition: i32,
    problems: Vec<Problem>,
}

impl Visit for Targets {
    fn options<O: Options>(&mut self, options: &mut Option<O>, _: &[i32], _: &str) {
        let Some(options) = options else { return };
        let Some((target, entity)) = target_of(O::TYPE) else {
            return;
        };
        let Some(features) = options.features().map(Message::encode_to_vec) else {
            return;
        };
        let feature_set = crate::schema::BUILT_IN
            .message_type
            .iter()
            .find(|m| m.name.as_deref() == Some("FeatureSet"));
        let Some(feature_set) = feature_set else { return };
        for number in set_fields(&features) {
            let Some(field) = feature_set.field.iter().find(|f| f.number == Some(number)) else {
                continue;
            };
            let name = format!("google.protobuf.FeatureSet.{}", field.name.as_deref().unwrap_or(""));
            let Some(field_options) = &field.options else { continue };
            if !field_options.targets.is_empty() && !field_options.targets.contains(&target) {
                self.problems.push(Problem::nowhere(format!(
                    "Option {name} cannot be set on an entity of type `{entity}`."
                )));
            }
            if self.edition != 0 {
                if let Some(support) = &field_options.feature_support {
                    self.lifetime(&name, support);
                }
            }
        }
    }
}

impl Targets {
    fn lifetime(&mut self, name: &str, support: &FeatureSupport) {
        if let Some(introduced) = support.edition_introduced {
            if self.edition < introduced as i32 {
                self.problems.push(Problem::nowhere(format!(
                    "{name} wasn't introduced until edition {} and can't be used in edition {}",
                    edition_name(introduced as i32),
                    edition_name(self.edition)
                )));
            }
        }
        if let Some(removed) = support.edition_removed {
            if self.edition >= removed as i32 {
                self.problems.push(Problem::nowhere(format!(
                    "{name} has been removed in edition {}",
                    edition_name(removed as i32)
                )));
            }
        }
    }
}

/// How protoc names an edition in messages.
fn edition_name(edition: i32) -> String {
    match edition {
        998 => "PROTO2".into(),
        999 => "PROTO3".into(),
        1000 => "2023".into(),
        1001 => "2024".into(),
        1002 => "2026".into(),
        9999 => "UNSTABLE".into(),
        other => other.to_string(),
    }
}

/// The target type of an options message, and how protoc names it.
fn target_of(options_type: &str) -> Option<(OptionTargetType, &'static str)> {
    Some(match options_type.strip_prefix("google.protobuf.")? {
        "FileOptions" => (OptionTargetType::TargetTypeFile, "file"),
        "MessageOptions" => (OptionTargetType::TargetTypeMessage, "message"),
        "FieldOptions" => (OptionTargetType::TargetTypeField, "field"),
        "OneofOptions" => (OptionTargetType::TargetTypeOneof, "oneof"),
        "EnumOptions" => (OptionTargetType::TargetTypeEnum, "enum"),
        "EnumValueOptions" => (OptionTargetType::TargetTypeEnumEntry, "enum entry"),
        "ExtensionRangeOptions" => (OptionTargetType::TargetTypeExtensionRange, "extension range"),
        "ServiceOptions" => (OptionTargetType::TargetTypeService, "service"),
        "MethodOptions" => (OptionTargetType::TargetTypeMethod, "method"),
        _ => return None,
    })
}

/// The field numbers an encoded message sets, in order, once each.
fn set_fields(message: &[u8]) -> Vec<i32> {
    let mut reader = Reader::new(message);
    let mut numbers: Vec<i32> = Vec::new();
    while !reader.is_empty() {
        let Ok(tag) = reader.read_tag() else { break };
        if reader.skip_value(tag, fastrs::wire::DEFAULT_RECURSION_LIMIT).is_err() {
            break;
        }
        let number = (tag >> 3) as i32;
        if !numbers.contains(&number) {
            numbers.push(number);
        }
    }
    numbers
}
