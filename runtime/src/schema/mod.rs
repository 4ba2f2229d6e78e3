//! Facts about schemas that everything reading descriptors shares: the
//! generator, the text format, and reflection.
//!
//! [`Features`] is the one resolver of protobuf's rules across syntaxes:
//! proto2 and proto3 are presets of editions' features, and their
//! field-level spellings (`required`, `group`, `[packed = ...]`, proto3
//! `optional`) are the features they stand for, as protoc itself resolves
//! them. Nothing else branches on a file's syntax.

mod features;

pub use features::{
    EnumType, Features, FieldPresence, JsonFormat, LegacyField, MessageEncoding, RepeatedFieldEncoding, Utf8Validation,
};
