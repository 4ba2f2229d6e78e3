//! Editions features, with proto2 and proto3 as presets of them.

use crate::wire::reader::Reader;
use crate::wire::{self, DEFAULT_RECURSION_LIMIT};

/// Whether a singular field tracks presence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldPresence {
    /// `has` is known apart from the value (proto2 `optional`, proto3
    /// `optional`, editions' default).
    Explicit,
    /// The default value is not written (proto3 singular scalars).
    Implicit,
    /// proto2 `required`: a message without it does not decode.
    LegacyRequired,
}

/// Whether an enum keeps numbers it does not name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnumType {
    /// Any number is a value (proto3, editions' default).
    Open,
    /// Numbers the enum does not name go to the unknown fields (proto2).
    Closed,
}

/// How repeated scalar fields are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RepeatedFieldEncoding {
    /// One length-delimited run (proto3, editions' default).
    Packed,
    /// One record per value (proto2).
    Expanded,
}

/// Whether `string` values must be UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Utf8Validation {
    /// Checked on decode (proto3, editions' default).
    Verify,
    /// Any bytes (proto2).
    None,
}

/// How message fields are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageEncoding {
    /// A length and the message (the default).
    LengthPrefixed,
    /// Between start- and end-group tags (proto2 groups).
    Delimited,
}

/// How strictly the JSON form is held to proto3 JSON's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonFormat {
    /// The schema is checked for a valid JSON form (proto3, editions).
    Allow,
    /// The JSON form is made as well as it can be (proto2).
    LegacyBestEffort,
}

/// The features of one element of a schema, resolved: the defaults of its
/// file's syntax or edition, then the `features` of its file, enclosing
/// messages and itself laid over them ([`Features::with`]), and for fields
/// the proto2 and proto3 spellings of features ([`Features::with_field`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Features {
    /// `field_presence`.
    pub field_presence: FieldPresence,
    /// `enum_type`.
    pub enum_type: EnumType,
    /// `repeated_field_encoding`.
    pub repeated_field_encoding: RepeatedFieldEncoding,
    /// `utf8_validation`.
    pub utf8_validation: Utf8Validation,
    /// `message_encoding`.
    pub message_encoding: MessageEncoding,
    /// `json_format`.
    pub json_format: JsonFormat,
}

/// The proto2 and proto3 spellings of a field's features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LegacyField {
    /// Label `required`.
    pub required: bool,
    /// Type `group`.
    pub group: bool,
    /// The `packed` option, if set.
    pub packed: Option<bool>,
    /// A proto3 `optional` field.
    pub proto3_optional: bool,
}

impl Features {
    /// proto2: explicit presence, closed enums, expanded repeated fields,
    /// no UTF-8 check.
    pub const PROTO2: Features = Features {
        field_presence: FieldPresence::Explicit,
        enum_type: EnumType::Closed,
        repeated_field_encoding: RepeatedFieldEncoding::Expanded,
        utf8_validation: Utf8Validation::None,
        message_encoding: MessageEncoding::LengthPrefixed,
        json_format: JsonFormat::LegacyBestEffort,
    };

    /// proto3: implicit presence, open enums, packed repeated fields, UTF-8
    /// checked.
    pub const PROTO3: Features = Features {
        field_presence: FieldPresence::Implicit,
        enum_type: EnumType::Open,
        repeated_field_encoding: RepeatedFieldEncoding::Packed,
        utf8_validation: Utf8Validation::Verify,
        message_encoding: MessageEncoding::LengthPrefixed,
        json_format: JsonFormat::Allow,
    };

    /// The defaults of editions 2023 and later (these features have not
    /// changed since): as proto3, with explicit presence.
    pub const EDITION_2023: Features = Features {
        field_presence: FieldPresence::Explicit,
        ..Features::PROTO3
    };

    /// The defaults of a file, whose descriptor's `syntax` is `syntax`
    /// (`"proto2"` or empty, `"proto3"`, `"editions"`).
    #[must_use]
    pub fn of_file(syntax: &str) -> Features {
        match syntax {
            "proto3" => Features::PROTO3,
            "editions" => Features::EDITION_2023,
            _ => Features::PROTO2,
        }
    }

    /// `self` with the features an encoded `google.protobuf.FeatureSet`
    /// sets laid over it. Values it does not know, and a malformed set,
    /// change nothing.
    #[must_use]
    pub fn with(mut self, feature_set: &[u8]) -> Features {
        let mut r = Reader::new(feature_set);
        while !r.is_empty() {
            let Ok(tag) = r.read_tag() else { break };
            if wire::wire_type(tag) != wire::VARINT {
                if r.skip_value(tag, DEFAULT_RECURSION_LIMIT).is_err() {
                    break;
                }
                continue;
            }
            let Ok(value) = r.read_varint() else { break };
            self.set(wire::field_number(tag), value);
        }
        self
    }

    /// Sets feature `number` of `FeatureSet` to `value`, if both are known.
    fn set(&mut self, number: u32, value: u64) {
        match (number, value) {
            (1, 1) => self.field_presence = FieldPresence::Explicit,
            (1, 2) => self.field_presence = FieldPresence::Implicit,
            (1, 3) => self.field_presence = FieldPresence::LegacyRequired,
            (2, 1) => self.enum_type = EnumType::Open,
            (2, 2) => self.enum_type = EnumType::Closed,
            (3, 1) => self.repeated_field_encoding = RepeatedFieldEncoding::Packed,
            (3, 2) => self.repeated_field_encoding = RepeatedFieldEncoding::Expanded,
            (4, 2) => self.utf8_validation = Utf8Validation::Verify,
            (4, 3) => self.utf8_validation = Utf8Validation::None,
            (5, 1) => self.message_encoding = MessageEncoding::LengthPrefixed,
            (5, 2) => self.message_encoding = MessageEncoding::Delimited,
            (6, 1) => self.json_format = JsonFormat::Allow,
            (6, 2) => self.json_format = JsonFormat::LegacyBestEffort,
            _ => {}
        }
    }

    /// `self` (a field's resolved features) with the features its proto2
    /// and proto3 spellings stand for, as protoc resolves them: `required`
    /// is `LEGACY_REQUIRED`, a `group` is `DELIMITED`, `[packed = ...]`
    /// chooses the repeated encoding, and proto3 `optional` is `EXPLICIT`.
    /// An editions field spells none of these, and keeps its features.
    #[must_use]
    pub fn with_field(mut self, field: LegacyField) -> Features {
        if field.required {
            self.field_presence = FieldPresence::LegacyRequired;
        }
        if field.proto3_optional {
            self.field_presence = FieldPresence::Explicit;
        }
        if field.group {
            self.message_encoding = MessageEncoding::Delimited;
        }
        match field.packed {
            Some(true) => self.repeated_field_encoding = RepeatedFieldEncoding::Packed,
            Some(false) => self.repeated_field_encoding = RepeatedFieldEncoding::Expanded,
            None => {}
        }
        self
    }

    /// True for `LEGACY_REQUIRED` presence.
    #[must_use]
    pub fn required(&self) -> bool {
        self.field_presence == FieldPresence::LegacyRequired
    }

    /// True for `IMPLICIT` presence.
    #[must_use]
    pub fn implicit_presence(&self) -> bool {
        self.field_presence == FieldPresence::Implicit
    }

    /// True for `CLOSED` enums.
    #[must_use]
    pub fn closed_enum(&self) -> bool {
        self.enum_type == EnumType::Closed
    }

    /// True for `PACKED` repeated fields.
    #[must_use]
    pub fn packed(&self) -> bool {
        self.repeated_field_encoding == RepeatedFieldEncoding::Packed
    }

    /// True when `string` values must be UTF-8.
    #[must_use]
    pub fn checks_utf8(&self) -> bool {
        self.utf8_validation == Utf8Validation::Verify
    }

    /// True for `DELIMITED` (group) message encoding.
    #[must_use]
    pub fn delimited(&self) -> bool {
        self.message_encoding == MessageEncoding::Delimited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntaxes_are_presets_of_features() {
        assert_eq!(Features::of_file(""), Features::PROTO2);
        assert_eq!(Features::of_file("proto2"), Features::PROTO2);
        assert_eq!(Features::of_file("proto3"), Features::PROTO3);
        let editions = Features::of_file("editions");
        assert_eq!(editions.field_presence, FieldPresence::Explicit);
        assert!(editions.packed() && editions.checks_utf8() && !editions.closed_enum());
    }

    #[test]
    fn feature_sets_lay_over_defaults() {
        // field_presence = IMPLICIT, enum_type = CLOSED, utf8_validation = NONE,
        // an unknown feature (field 99) and a message field (extension-like).
        let set = [0x08, 0x02, 0x10, 0x02, 0x20, 0x03, 0x98, 0x06, 0x01, 0x9a, 0x3e, 0x00];
        let f = Features::EDITION_2023.with(&set);
        assert!(f.implicit_presence() && f.closed_enum() && !f.checks_utf8() && f.packed());
        assert_eq!(Features::PROTO3.with(&[0xff]), Features::PROTO3, "malformed: unchanged");
    }

    #[test]
    fn legacy_spellings_are_features() {
        let field = |f: LegacyField| Features::PROTO2.with_field(f);
        assert!(field(LegacyField {
            required: true,
            ..LegacyField::default()
        })
        .required());
        assert!(field(LegacyField {
            group: true,
            ..LegacyField::default()
        })
        .delimited());
        assert!(field(LegacyField {
            packed: Some(true),
            ..LegacyField::default()
        })
        .packed());
        let optional = Features::PROTO3.with_field(LegacyField {
            proto3_optional: true,
            ..LegacyField::default()
        });
        assert_eq!(optional.field_presence, FieldPresence::Explicit);
        let unpacked = Features::PROTO3.with_field(LegacyField {
            packed: Some(false),
            ..LegacyField::default()
        });
        assert!(!unpacked.packed());
    }
}
