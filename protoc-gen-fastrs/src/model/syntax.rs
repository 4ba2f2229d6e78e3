//! The one resolver of protobuf's rules across syntaxes: every element's
//! features, with proto2 and proto3 as presets of editions' features and
//! their field-level spellings (`required`, `group`, `[packed = ...]`,
//! proto3 `optional`) as the features they stand for. The resolution itself
//! is the runtime's (`fastrs::schema::Features`), shared with the text
//! format and reflection; this module finds each element's `features`.
//!
//! Every element that sets `features` in its options is recorded under its
//! element path, the same key as `SourceCodeInfo` uses (`[4, i, 2, j]` is
//! field `j` of message `i`). An element's features are its file's
//! defaults, then those of the file, its enclosing messages and itself.

use std::collections::HashMap;

use fastrs::descriptor::field_descriptor_proto::{Label, Type};
use fastrs::descriptor::{DescriptorProto, EnumDescriptorProto, FeatureSet, FieldDescriptorProto, FileDescriptorProto};
use fastrs::schema::{Features, LegacyField};
use fastrs::Message as _;

use super::locations::{self as L, child};

/// The features of one file's elements.
#[derive(Clone, Debug)]
pub struct FileFeatures {
    /// The defaults of the file's syntax or edition.
    defaults: Features,
    /// The encoded `FeatureSet`s elements set, by element path.
    sets: HashMap<Vec<i32>, Vec<u8>>,
}

impl FileFeatures {
    /// The features of `file`'s elements.
    #[must_use]
    pub fn of(file: &FileDescriptorProto) -> FileFeatures {
        let mut out = FileFeatures {
            defaults: Features::of_file(file.syntax()),
            sets: HashMap::new(),
        };
        out.put(Vec::new(), file.options.as_ref().and_then(|o| o.features.as_ref()));
        for (i, m) in file.message_type.iter().enumerate() {
            out.message(m, child(&[], L::FILE_MESSAGE, i));
        }
        for (i, e) in file.enum_type.iter().enumerate() {
            out.enumeration(e, child(&[], L::FILE_ENUM, i));
        }
        out.fields(&file.extension, &[L::FILE_EXTENSION]);
        out
    }

    fn put(&mut self, path: Vec<i32>, set: Option<&FeatureSet>) {
        if let Some(set) = set {
            self.sets.insert(path, set.encode_to_vec());
        }
    }

    fn message(&mut self, m: &DescriptorProto, path: Vec<i32>) {
        for (i, nested) in m.nested_type.iter().enumerate() {
            self.message(nested, child(&path, L::MESSAGE_NESTED, i));
        }
        for (i, e) in m.enum_type.iter().enumerate() {
            self.enumeration(e, child(&path, L::MESSAGE_ENUM, i));
        }
        self.fields(&m.field, &[&path[..], &[L::MESSAGE_FIELD]].concat());
        self.fields(&m.extension, &[&path[..], &[L::MESSAGE_EXTENSION]].concat());
        self.put(path, m.options.as_ref().and_then(|o| o.features.as_ref()));
    }

    /// `fields` are the children of kind `kinds.last()` under `kinds[..last]`.
    fn fields(&mut self, fields: &[FieldDescriptorProto], kinds: &[i32]) {
        let (kind, parent) = kinds.split_last().expect("a kind");
        for (i, f) in fields.iter().enumerate() {
            self.put(
                child(parent, *kind, i),
                f.options.as_ref().and_then(|o| o.features.as_ref()),
            );
        }
    }

    fn enumeration(&mut self, e: &EnumDescriptorProto, path: Vec<i32>) {
        self.put(path, e.options.as_ref().and_then(|o| o.features.as_ref()));
    }

    /// The features of the element at `path`: the file's defaults, then the
    /// file, every enclosing message, and the element itself.
    #[must_use]
    pub fn resolve(&self, path: &[i32]) -> Features {
        // Prefixes that name the file, enclosing messages (and enums, whose
        // kind number inside a message is a file's message number), and the
        // element.
        let mut ends: Vec<usize> = vec![0];
        ends.extend(
            (2..path.len())
                .step_by(2)
                .filter(|&n| matches!(path[n - 2], L::FILE_MESSAGE | L::MESSAGE_NESTED)),
        );
        ends.push(path.len());
        ends.iter()
            .filter_map(|&end| self.sets.get(&path[..end]))
            .fold(self.defaults, |features, set| features.with(set))
    }

    /// The features of field `f` at `path`, its proto2 and proto3
    /// spellings included.
    #[must_use]
    pub fn field(&self, path: &[i32], f: &FieldDescriptorProto) -> Features {
        self.resolve(path).with_field(LegacyField {
            required: f.label() == Label::Required,
            group: f.r#type() == Type::Group,
            packed: f.options.as_ref().and_then(|o| o.packed),
            proto3_optional: f.proto3_optional(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastrs::descriptor::feature_set::{EnumType, FieldPresence, RepeatedFieldEncoding};

    fn set(f: impl FnOnce(&mut FeatureSet)) -> Vec<u8> {
        let mut s = FeatureSet::default();
        f(&mut s);
        s.encode_to_vec()
    }

    #[test]
    fn resolves_from_defaults_through_enclosing_messages() {
        let mut f = FileFeatures {
            defaults: Features::of_file("editions"),
            sets: HashMap::new(),
        };
        f.sets.insert(vec![], set(|s| s.enum_type = Some(EnumType::Closed)));
        f.sets
            .insert(vec![4, 0], set(|s| s.field_presence = Some(FieldPresence::Implicit)));
        f.sets.insert(
            vec![4, 0, 2, 1],
            set(|s| {
                s.field_presence = Some(FieldPresence::Explicit);
                s.repeated_field_encoding = Some(RepeatedFieldEncoding::Expanded);
            }),
        );
        let field0 = f.resolve(&[4, 0, 2, 0]);
        assert!(field0.implicit_presence() && field0.closed_enum() && field0.packed());
        let field1 = f.resolve(&[4, 0, 2, 1]);
        assert!(!field1.implicit_presence() && !field1.packed());
        let elsewhere = f.resolve(&[4, 1, 2, 0]);
        assert!(!elsewhere.implicit_presence() && elsewhere.closed_enum());
        let nested = f.resolve(&[4, 0, 3, 0, 2, 0]);
        assert!(
            nested.implicit_presence(),
            "a nested message inherits its parent's features"
        );
    }

    #[test]
    fn proto2_and_proto3_are_presets() {
        let file = |syntax: &str| FileDescriptorProto {
            syntax: Some(syntax.into()),
            ..Default::default()
        };
        let proto2 = FileFeatures::of(&file("proto2"));
        let required = FieldDescriptorProto {
            label: Some(Label::Required),
            ..Default::default()
        };
        assert!(proto2.field(&[4, 0, 2, 0], &required).required());
        assert!(proto2.resolve(&[5, 0]).closed_enum());
        let proto3 = FileFeatures::of(&file("proto3"));
        let unpacked = FieldDescriptorProto {
            options: Some(fastrs::descriptor::FieldOptions {
                packed: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(!proto3.field(&[4, 0, 2, 0], &unpacked).packed());
        assert!(proto3.resolve(&[4, 0, 2, 0]).checks_utf8());
    }
}
