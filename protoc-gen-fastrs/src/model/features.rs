//! Editions features, read from the raw descriptor bytes.
//!
//! `prost-types` has no `FeatureSet` and drops the `features` options and the
//! `edition` field, so they are read here from the encoded
//! `FileDescriptorProto`s with the fastrs runtime's reader, keyed by the same
//! element paths as `SourceCodeInfo` (`[4, i, 2, j]` is field `j` of message
//! `i`). Lowering resolves them (edition defaults, then file, enclosing
//! messages, element) into the few facts the model needs.

use std::collections::HashMap;

use fastrs::{DecodeError, Reader};

use super::locations as L;

/// `FeatureSet` values an element sets itself (`None`: inherited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Set {
    /// 1 EXPLICIT, 2 IMPLICIT, 3 LEGACY_REQUIRED.
    pub field_presence: Option<u64>,
    /// 1 OPEN, 2 CLOSED.
    pub enum_type: Option<u64>,
    /// 1 PACKED, 2 EXPANDED.
    pub repeated_field_encoding: Option<u64>,
    /// 2 VERIFY, 3 NONE.
    pub utf8_validation: Option<u64>,
    /// 1 LENGTH_PREFIXED, 2 DELIMITED.
    pub message_encoding: Option<u64>,
}

impl Set {
    fn overlay(self, over: Set) -> Set {
        Set {
            field_presence: over.field_presence.or(self.field_presence),
            enum_type: over.enum_type.or(self.enum_type),
            repeated_field_encoding: over.repeated_field_encoding.or(self.repeated_field_encoding),
            utf8_validation: over.utf8_validation.or(self.utf8_validation),
            message_encoding: over.message_encoding.or(self.message_encoding),
        }
    }

    /// The defaults of editions 2023 and 2024 for these features.
    fn edition_defaults() -> Set {
        Set {
            field_presence: Some(1),
            enum_type: Some(1),
            repeated_field_encoding: Some(1),
            utf8_validation: Some(2),
            message_encoding: Some(1),
        }
    }
}

/// The features of one editions file, by element path.
#[derive(Clone, Debug, Default)]
pub struct FileFeatures {
    /// The `edition` enum value (1000 for 2023, 1001 for 2024).
    pub edition: Option<u64>,
    sets: HashMap<Vec<i32>, Set>,
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

impl FileFeatures {
    /// Reads an encoded `FileDescriptorProto`.
    ///
    /// # Errors
    /// The bytes are not a well-formed descriptor.
    pub fn scan(file: &[u8]) -> Result<FileFeatures, DecodeError> {
        let mut out = FileFeatures::default();
        let mut r = Reader::new(file);
        let (mut messages, mut enums, mut extensions) = (0, 0, 0);
        while !r.is_empty() {
            match r.read_tag()? {
                0x22 => scan_message(
                    &mut out,
                    &mut r.read_nested()?,
                    vec![L::FILE_MESSAGE, next(&mut messages)],
                )?,
                0x2a => scan_enum(&mut out, &mut r.read_nested()?, vec![L::FILE_ENUM, next(&mut enums)])?,
                0x3a => scan_field(
                    &mut out,
                    &mut r.read_nested()?,
                    vec![L::FILE_EXTENSION, next(&mut extensions)],
                )?,
                0x42 => out.put(Vec::new(), options(&mut r.read_nested()?, 50)?),
                0x70 => out.edition = Some(r.read_varint()?),
                tag => r.skip_value(tag, 100)?,
            }
        }
        Ok(out)
    }

    fn put(&mut self, path: Vec<i32>, set: Option<Set>) {
        if let Some(set) = set {
            self.sets.insert(path, set);
        }
    }

    /// The features of the element at `path`: edition defaults, then the
    /// file, every enclosing message, and the element itself.
    #[must_use]
    pub fn resolve(&self, path: &[i32]) -> Resolved {
        let mut set = Set::edition_defaults();
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
        for end in ends {
            if let Some(own) = self.sets.get(&path[..end]) {
                set = set.overlay(*own);
            }
        }
        Resolved {
            implicit_presence: set.field_presence == Some(2),
            required: set.field_presence == Some(3),
            closed_enum: set.enum_type == Some(2),
            packed: set.repeated_field_encoding != Some(2),
            delimited: set.message_encoding == Some(2),
            utf8_verify: set.utf8_validation != Some(3),
        }
    }
}

/// The encoded values of every occurrence of length-delimited field `number`
/// at the top level of `message` (the files of a `FileDescriptorSet` or of a
/// `CodeGeneratorRequest`).
///
/// # Errors
/// `message` is not well formed.
pub fn occurrences(message: &[u8], number: u32) -> Result<Vec<&[u8]>, DecodeError> {
    let mut r = Reader::new(message);
    let mut out = Vec::new();
    while !r.is_empty() {
        let tag = r.read_tag()?;
        if tag == number << 3 | 2 {
            out.push(r.read_bytes()?);
        } else {
            r.skip_value(tag, 100)?;
        }
    }
    Ok(out)
}

fn next(counter: &mut i32) -> i32 {
    *counter += 1;
    *counter - 1
}

fn scan_message(out: &mut FileFeatures, r: &mut Reader<'_>, path: Vec<i32>) -> Result<(), DecodeError> {
    let (mut fields, mut nested, mut enums, mut extensions) = (0, 0, 0, 0);
    let at = |kind: i32, i: i32| [&path[..], &[kind, i]].concat();
    while !r.is_empty() {
        match r.read_tag()? {
            0x12 => scan_field(out, &mut r.read_nested()?, at(L::MESSAGE_FIELD, next(&mut fields)))?,
            0x1a => scan_message(out, &mut r.read_nested()?, at(L::MESSAGE_NESTED, next(&mut nested)))?,
            0x22 => scan_enum(out, &mut r.read_nested()?, at(L::MESSAGE_ENUM, next(&mut enums)))?,
            0x32 => scan_field(
                out,
                &mut r.read_nested()?,
                at(L::MESSAGE_EXTENSION, next(&mut extensions)),
            )?,
            0x3a => out.put(path.clone(), options(&mut r.read_nested()?, 12)?),
            tag => r.skip_value(tag, 100)?,
        }
    }
    Ok(())
}

fn scan_field(out: &mut FileFeatures, r: &mut Reader<'_>, path: Vec<i32>) -> Result<(), DecodeError> {
    while !r.is_empty() {
        match r.read_tag()? {
            0x42 => out.put(path.clone(), options(&mut r.read_nested()?, 21)?),
            tag => r.skip_value(tag, 100)?,
        }
    }
    Ok(())
}

fn scan_enum(out: &mut FileFeatures, r: &mut Reader<'_>, path: Vec<i32>) -> Result<(), DecodeError> {
    while !r.is_empty() {
        match r.read_tag()? {
            0x1a => out.put(path.clone(), options(&mut r.read_nested()?, 7)?),
            tag => r.skip_value(tag, 100)?,
        }
    }
    Ok(())
}

/// The `features` (field `number`) of an options message, if set.
fn options(r: &mut Reader<'_>, number: u32) -> Result<Option<Set>, DecodeError> {
    let mut found = None;
    while !r.is_empty() {
        let tag = r.read_tag()?;
        if tag == number << 3 | 2 {
            let set: &mut Set = found.get_or_insert_with(Set::default);
            let mut f = r.read_nested()?;
            while !f.is_empty() {
                match f.read_tag()? {
                    0x08 => set.field_presence = Some(f.read_varint()?),
                    0x10 => set.enum_type = Some(f.read_varint()?),
                    0x18 => set.repeated_field_encoding = Some(f.read_varint()?),
                    0x20 => set.utf8_validation = Some(f.read_varint()?),
                    0x28 => set.message_encoding = Some(f.read_varint()?),
                    tag => f.skip_value(tag, 100)?,
                }
            }
        } else {
            r.skip_value(tag, 100)?;
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_from_edition_defaults_through_enclosing_messages() {
        let mut f = FileFeatures {
            edition: Some(1000),
            ..Default::default()
        };
        f.sets.insert(
            vec![],
            Set {
                enum_type: Some(2),
                ..Default::default()
            },
        );
        f.sets.insert(
            vec![4, 0],
            Set {
                field_presence: Some(2),
                ..Default::default()
            },
        );
        f.sets.insert(
            vec![4, 0, 2, 1],
            Set {
                field_presence: Some(1),
                repeated_field_encoding: Some(2),
                ..Default::default()
            },
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
