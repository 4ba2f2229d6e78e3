//! The result of parsing one JSON value, shared by the codecs, the
//! generated readers and the registries. Generated code names it through
//! `__private`; it is not part of the API.

/// What parsing one JSON value gave.
#[derive(Debug)]
pub enum Read<V> {
    /// A value.
    Value(V),
    /// `null`: the field keeps its default (an error inside lists and maps).
    Null,
    /// An unknown enum name, skipped under [`JsonOptions::ignore_unknown_fields`](super::JsonOptions::ignore_unknown_fields).
    Skip,
}
