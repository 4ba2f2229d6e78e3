//! Facts about schemas that everything reading descriptors shares: the
//! generator, the text format, and reflection.
//!
//! [`Features`] is the one resolver of protobuf's rules across syntaxes:
//! proto2 and proto3 are presets of editions' features, and their
//! field-level spellings (`required`, `group`, `[packed = ...]`, proto3
//! `optional`) are the features they stand for, as protoc itself resolves
//! them. Nothing else branches on a file's syntax.

mod features;

use alloc::string::String;

pub use features::{
    EnumType, Features, FieldPresence, JsonFormat, LegacyField, MessageEncoding, RepeatedFieldEncoding, Utf8Validation,
};

/// The JSON name protoc gives a field without a `json_name` option: each
/// `_` dropped and the letter after it upper-cased (`foo_bar_2` →
/// `fooBar2`, `_x` → `X`).
#[must_use]
pub fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}
