//! The naming styles that editions 2024 and later enforce
//! (`features.enforce_naming_style`, source-retention): TitleCase messages,
//! enums, services and methods; lower_snake_case packages, fields and
//! oneofs; UPPER_SNAKE_CASE enum values. Each element takes the style of
//! its file's edition, laid over by the `features` of its file, enclosing
//! elements and itself; `STYLE_LEGACY` turns the checks off.

use fastrs::descriptor as d;
use fastrs::descriptor::feature_set::EnforceNamingStyle;

use super::Checker;
use crate::error::At;

/// Whether an element's names are checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Legacy,
    /// `STYLE2024` and `STYLE2026`, which check names alike.
    Enforced,
}

/// `parent`'s style with an element's explicit `features` laid over it.
fn style_of(parent: Style, features: Option<&d::FeatureSet>) -> Style {
    match features.and_then(|f| f.enforce_naming_style) {
        Some(EnforceNamingStyle::StyleLegacy) => Style::Legacy,
        Some(EnforceNamingStyle::Style2024 | EnforceNamingStyle::Style2026) => Style::Enforced,
        _ => parent,
    }
}

/// The case a kind of name must be in.
#[derive(Clone, Copy)]
enum Case {
    Title,
    LowerSnake,
    UpperSnake,
}

impl Case {
    /// What is wrong with `name` in this case, as protoc words it (after
    /// "<Kind> name <name> "), if anything.
    fn fault(self, name: &str) -> Option<&'static str> {
        let first = name.chars().next().unwrap_or('_');
        // Each underscore starts a word, in the word's case.
        let underscores_ok = |word_start: fn(&u8) -> bool| {
            let bytes = name.as_bytes();
            (0..bytes.len()).all(|i| bytes[i] != b'_' || bytes.get(i + 1).is_some_and(word_start))
        };
        match self {
            Case::Title if name.contains('_') => Some("should be TitleCase"),
            Case::Title if !first.is_ascii_uppercase() => Some("should begin with a capital letter"),
            Case::LowerSnake if name.chars().any(|c| c.is_ascii_uppercase()) => Some("should be lower_snake_case"),
            Case::LowerSnake if !first.is_ascii_lowercase() => Some("should begin with a lower case letter"),
            Case::LowerSnake if !underscores_ok(u8::is_ascii_lowercase) => Some("contains style violating underscores"),
            Case::UpperSnake if name.chars().any(|c| c.is_ascii_lowercase()) => Some("should be UPPER_SNAKE_CASE"),
            Case::UpperSnake if !first.is_ascii_uppercase() => Some("should begin with an upper case letter"),
            Case::UpperSnake if !underscores_ok(u8::is_ascii_uppercase) => Some("contains style violating underscores"),
            _ => None,
        }
    }
}

impl Checker<'_> {
    /// Checks the names of `file` and of everything it declares.
    pub(super) fn naming(&mut self, file: &d::FileDescriptorProto) {
        let edition_default = if self.edition >= d::Edition::Edition2024 as i32 {
            Style::Enforced
        } else {
            Style::Legacy
        };
        let style = style_of(edition_default, file.options.as_ref().and_then(|o| o.features.as_ref()));
        if style == Style::Enforced {
            if let Some(package) = file.package.as_deref() {
                // Reported where the `package` statement starts.
                self.name("Package", package, Case::LowerSnake, Some((&[], At::Name)));
            }
        }
        for (i, message) in file.message_type.iter().enumerate() {
            self.message_names(message, &[4, i as i32], style);
        }
        for (i, enum_type) in file.enum_type.iter().enumerate() {
            self.enum_names(enum_type, &[5, i as i32], style);
        }
        for (i, extension) in file.extension.iter().enumerate() {
            self.field_name(extension, &[7, i as i32], style);
        }
        for (i, service) in file.service.iter().enumerate() {
            let path = [6, i as i32];
            let style = style_of(style, service.options.as_ref().and_then(|o| o.features.as_ref()));
            self.checked_name(style, "Service", service.name.as_deref(), Case::Title, &path);
            for (j, method) in service.method.iter().enumerate() {
                let style = style_of(style, method.options.as_ref().and_then(|o| o.features.as_ref()));
                self.checked_name(
                    style,
                    "Method",
                    method.name.as_deref(),
                    Case::Title,
                    &[6, i as i32, 2, j as i32],
                );
            }
        }
    }

    fn message_names(&mut self, message: &d::DescriptorProto, path: &[i32], parent: Style) {
        let style = style_of(parent, message.options.as_ref().and_then(|o| o.features.as_ref()));
        let at = |field: i32, i: usize| [path, &[field, i as i32]].concat();
        if message.options.as_ref().and_then(|o| o.map_entry) != Some(true) {
            self.checked_name(style, "Message", message.name.as_deref(), Case::Title, path);
        }
        // protoc reports a oneof's name without a place.
        for oneof in &message.oneof_decl {
            let style = style_of(style, oneof.options.as_ref().and_then(|o| o.features.as_ref()));
            if style == Style::Enforced {
                self.name("Oneof", oneof.name.as_deref().unwrap_or(""), Case::LowerSnake, None);
            }
        }
        for (i, field) in message.field.iter().enumerate() {
            self.field_name(field, &at(2, i), style);
        }
        for (i, extension) in message.extension.iter().enumerate() {
            self.field_name(extension, &at(6, i), style);
        }
        for (i, nested) in message.nested_type.iter().enumerate() {
            self.message_names(nested, &at(3, i), style);
        }
        for (i, enum_type) in message.enum_type.iter().enumerate() {
            self.enum_names(enum_type, &at(4, i), style);
        }
    }

    fn enum_names(&mut self, enum_type: &d::EnumDescriptorProto, path: &[i32], parent: Style) {
        let style = style_of(parent, enum_type.options.as_ref().and_then(|o| o.features.as_ref()));
        self.checked_name(style, "Enum", enum_type.name.as_deref(), Case::Title, path);
        for (i, value) in enum_type.value.iter().enumerate() {
            let style = style_of(style, value.options.as_ref().and_then(|o| o.features.as_ref()));
            let path = [path, &[2, i as i32]].concat();
            self.checked_name(style, "Enum value", value.name.as_deref(), Case::UpperSnake, &path);
        }
    }

    fn field_name(&mut self, field: &d::FieldDescriptorProto, path: &[i32], parent: Style) {
        let style = style_of(parent, field.options.as_ref().and_then(|o| o.features.as_ref()));
        self.checked_name(style, "Field", field.name.as_deref(), Case::LowerSnake, path);
    }

    /// Checks `name` in `case`, if `style` enforces names.
    fn checked_name(&mut self, style: Style, kind: &str, name: Option<&str>, case: Case, path: &[i32]) {
        if style == Style::Enforced {
            self.name(kind, name.unwrap_or(""), case, Some((path, At::Name)));
        }
    }

    /// Checks `name` in `case`, reporting a fault at the part `at` of the
    /// element at `path` (or nowhere).
    fn name(&mut self, kind: &str, name: &str, case: Case, place: Option<(&[i32], At)>) {
        if let Some(fault) = case.fault(name) {
            let text = format!(
                "{kind} name {name} {fault} (features.enforce_naming_style = STYLE_LEGACY can be used to opt out \
                 of this check)"
            );
            match place {
                Some((path, at)) => self.problem(path, at, text),
                None => self.problems.push(crate::error::Problem::nowhere(text)),
            }
        }
    }
}
