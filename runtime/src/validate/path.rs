//! Field and rule paths (`buf.validate.FieldPath`), and violations as
//! validation builds them: a violation's field path grows from the field
//! that failed outward (each enclosing field appends itself) and is put in
//! order once, when validation returns.

use std::string::String;
use std::vec::Vec;

use super::types::{field_path_element::Subscript, FieldPath, FieldPathElement, Violation, Violations};
use crate::descriptor::field_descriptor_proto::Type;
use crate::reflect::{FieldDescriptor, Kind, MapKey};

/// The path element naming `field` (an extension as `[full.name]`).
#[must_use]
pub fn element(field: &FieldDescriptor) -> FieldPathElement {
    let name = if field.is_extension() {
        format!("[{}]", field.full_name())
    } else {
        field.name().into()
    };
    FieldPathElement {
        field_number: i32::try_from(field.number()).ok(),
        field_name: Some(name.into()),
        field_type: Some(field_type(field)),
        ..FieldPathElement::default()
    }
}

/// The element of a repeated field's item at `index`.
#[must_use]
pub fn index_element(field: &FieldDescriptor, index: usize) -> FieldPathElement {
    FieldPathElement {
        subscript: Some(Subscript::Index(index as u64)),
        ..element(field)
    }
}

/// The element of a map field's entry at `key`, with the key and value
/// types.
#[must_use]
pub fn key_element(field: &FieldDescriptor, key: &MapKey) -> FieldPathElement {
    let (key_type, value_type) = match field.kind() {
        Kind::Message(entry) => (
            entry.map_entry_key_field().map(|k| field_type(&k)),
            entry.map_entry_value_field().map(|v| field_type(&v)),
        ),
        _ => (None, None),
    };
    let subscript = match key {
        MapKey::Bool(b) => Subscript::BoolKey(*b),
        MapKey::I32(v) => Subscript::IntKey(i64::from(*v)),
        MapKey::I64(v) => Subscript::IntKey(*v),
        MapKey::U32(v) => Subscript::UintKey(u64::from(*v)),
        MapKey::U64(v) => Subscript::UintKey(*v),
        MapKey::String(s) => Subscript::StringKey(s.as_str().into()),
    };
    FieldPathElement {
        key_type,
        value_type,
        subscript: Some(subscript),
        ..element(field)
    }
}

/// A oneof's element: its name only.
#[must_use]
pub fn oneof_element(name: &str) -> FieldPathElement {
    FieldPathElement {
        field_name: Some(name.into()),
        ..FieldPathElement::default()
    }
}

/// The descriptor type of `field`, as `FieldDescriptorProto` names it.
#[must_use]
pub fn field_type(field: &FieldDescriptor) -> Type {
    match field.kind() {
        Kind::Double => Type::Double,
        Kind::Float => Type::Float,
        Kind::Int64 => Type::Int64,
        Kind::Uint64 => Type::Uint64,
        Kind::Int32 => Type::Int32,
        Kind::Fixed64 => Type::Fixed64,
        Kind::Fixed32 => Type::Fixed32,
        Kind::Bool => Type::Bool,
        Kind::String => Type::String,
        Kind::Message(_) if field.is_group() => Type::Group,
        Kind::Message(_) => Type::Message,
        Kind::Bytes => Type::Bytes,
        Kind::Uint32 => Type::Uint32,
        Kind::Enum(_) => Type::Enum,
        Kind::Sfixed32 => Type::Sfixed32,
        Kind::Sfixed64 => Type::Sfixed64,
        Kind::Sint32 => Type::Sint32,
        Kind::Sint64 => Type::Sint64,
    }
}

/// A path as protovalidate's tools write it: `a.b[0].c`, map keys as
/// `[5]`, `[true]` or `["key"]` (quoted, with Go's escapes).
#[must_use]
pub fn path_string(path: &FieldPath) -> String {
    let mut out = String::new();
    for (i, e) in path.elements.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(e.field_name.as_deref().unwrap_or(""));
        match &e.subscript {
            None => {}
            Some(Subscript::Index(i)) => out.push_str(&format!("[{i}]")),
            Some(Subscript::BoolKey(b)) => out.push_str(&format!("[{b}]")),
            Some(Subscript::IntKey(k)) => out.push_str(&format!("[{k}]")),
            Some(Subscript::UintKey(k)) => out.push_str(&format!("[{k}]")),
            Some(Subscript::StringKey(k)) => {
                out.push('[');
                go_quote(k, &mut out);
                out.push(']');
            }
        }
    }
    out
}

/// `s` quoted as Go's `strconv.Quote` quotes it.
fn go_quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A violation of a rule of a field's value, before its field path is
/// known (the evaluation of each enclosing field adds to it).
#[must_use]
pub fn violation(rule_id: &str, message: String, rule: Vec<FieldPathElement>) -> Violation {
    Violation {
        rule_id: Some(rule_id.into()),
        message: Some(message.into()),
        rule: (!rule.is_empty()).then(|| FieldPath {
            elements: rule,
            ..FieldPath::default()
        }),
        ..Violation::default()
    }
}

/// Adds `element` to the field paths of `violations` (which hold their
/// elements innermost first until [`finish`]).
pub fn push_field(violations: &mut [Violation], element: &FieldPathElement) {
    for v in violations {
        v.field
            .get_or_insert_with(FieldPath::default)
            .elements
            .push(element.clone());
    }
}

/// The subscript of the last element a violation's path has so far (its
/// outermost until [`finish`]).
#[must_use]
pub fn last_key(v: &Violation) -> Option<&Subscript> {
    v.field.as_ref()?.elements.last()?.subscript.as_ref()
}

/// Orders map keys: by value within a type (false before true, numbers
/// numerically, strings by their bytes), and keys of no subscript first.
#[must_use]
pub fn compare_keys(a: Option<&Subscript>, b: Option<&Subscript>) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    match (a, b) {
        (Some(Subscript::BoolKey(x)), Some(Subscript::BoolKey(y))) => x.cmp(y),
        (Some(Subscript::IntKey(x)), Some(Subscript::IntKey(y))) => x.cmp(y),
        (Some(Subscript::UintKey(x)), Some(Subscript::UintKey(y))) => x.cmp(y),
        (Some(Subscript::StringKey(x)), Some(Subscript::StringKey(y))) => x.as_bytes().cmp(y.as_bytes()),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// The violations in final form: field paths outermost first.
#[must_use]
pub fn finish(mut violations: Vec<Violation>) -> Violations {
    for v in &mut violations {
        if let Some(field) = &mut v.field {
            field.elements.reverse();
        }
    }
    Violations {
        violations,
        ..Violations::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_as_protovalidate_prints_them() {
        let el = |name: &str, sub: Option<Subscript>| FieldPathElement {
            field_name: Some(name.into()),
            subscript: sub,
            ..FieldPathElement::default()
        };
        let path = FieldPath {
            elements: std::vec![
                el("a", None),
                el("b", Some(Subscript::Index(0))),
                el("m", Some(Subscript::StringKey("k\"\n".into()))),
                el("n", Some(Subscript::IntKey(-5))),
            ],
            ..FieldPath::default()
        };
        assert_eq!(path_string(&path), r#"a.b[0].m["k\"\n"].n[-5]"#);
    }
}
