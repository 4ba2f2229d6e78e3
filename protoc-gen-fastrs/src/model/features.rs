//! Editions features, read from the descriptors' `FeatureSet`s.
//!
//! Every element that sets `features` in its options is recorded under its
//! element path, the same key as `SourceCodeInfo` uses (`[4, i, 2, j]` is
//! field `j` of message `i`). Lowering resolves them (edition defaults, then
//! file, enclosing messages, element) into the few facts the model needs.

use std::collections::HashMap;

use fastrs::descriptor::feature_set::{
    EnumType, FieldPresence, MessageEncoding, RepeatedFieldEncoding, Utf8Validation,
};
use fastrs::descriptor::{DescriptorProto, EnumDescriptorProto, FeatureSet, FieldDescriptorProto, FileDescriptorProto};

use super::locations::{self as L, child};

/// The features of one editions file, by element path.
#[derive(Clone, Debug, Default)]
pub struct FileFeatures {
    sets: HashMap<Vec<i32>, FeatureSet>,
}

/// Resolved features of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub implicit_presence: bool,
    pub required: bool,
    pub closed_enum: bool,
    pub packed: bool,
    pub delimited: bool,
    /// `string` values must be valid UTF-8 (`utf8_validation = VERIFY`).
    pub utf8_verify: bool,
}

impl Resolved {
    /// The defaults of editions 2023 and 2024 for these features.
    const EDITION_DEFAULTS: Resolved = Resolved {
        implicit_presence: false,
        required: false,
        closed_enum: false,
        packed: true,
        delimited: false,
        utf8_verify: true,
    };

    /// `self` with the features `set` names overriding.
    fn overlay(mut self, set: &FeatureSet) -> Resolved {
        if let Some(presence) = set.field_presence {
            self.implicit_presence = presence == FieldPresence::Implicit;
            self.required = presence == FieldPresence::LegacyRequired;
        }
        if let Some(e) = set.enum_type {
            self.closed_enum = e == EnumType::Closed;
        }
        if let Some(e) = set.repeated_field_encoding {
            self.packed = e != RepeatedFieldEncoding::Expanded;
        }
        if let Some(e) = set.message_encoding {
            self.delimited = e == MessageEncoding::Delimited;
        }
        if let Some(v) = set.utf8_validation {
            self.utf8_verify = v != Utf8Validation::None;
        }
        self
    }
}

impl FileFeatures {
    /// The `features` every element of `file` sets.
    #[must_use]
    pub fn of(file: &FileDescriptorProto) -> FileFeatures {
        let mut out = FileFeatures::default();
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
            self.sets.insert(path, set.clone());
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

    /// The features of the element at `path`: edition defaults, then the
    /// file, every enclosing message, and the element itself.
    #[must_use]
    pub fn resolve(&self, path: &[i32]) -> Resolved {
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
            .fold(Resolved::EDITION_DEFAULTS, Resolved::overlay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(f: impl FnOnce(&mut FeatureSet)) -> FeatureSet {
        let mut s = FeatureSet::default();
        f(&mut s);
        s
    }

    #[test]
    fn resolves_from_edition_defaults_through_enclosing_messages() {
        let mut f = FileFeatures::default();
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
        assert!(field0.implicit_presence && field0.closed_enum && field0.packed);
        let field1 = f.resolve(&[4, 0, 2, 1]);
        assert!(!field1.implicit_presence && !field1.packed);
        let elsewhere = f.resolve(&[4, 1, 2, 0]);
        assert!(!elsewhere.implicit_presence && elsewhere.closed_enum);
        let nested = f.resolve(&[4, 0, 3, 0, 2, 0]);
        assert!(
            nested.implicit_presence,
            "a nested message inherits its parent's features"
        );
    }
}
