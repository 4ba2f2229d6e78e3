//! Extension declarations (`extensions 100 to 200 [declaration = {...}]`),
//! as protoc checks them: each range's declarations on their own (numbers
//! in the range and once each, a name and a type, names declared once),
//! and each extension against the declaration of its number.

use std::collections::HashSet;

use fastrs::descriptor as d;
use fastrs::descriptor::extension_range_options::VerificationState;
use fastrs::descriptor::field_descriptor_proto::{Label, Type};

use super::Checker;
use crate::error::At;

/// The option messages of `descriptor.proto`, whose extensions protoc
/// does not check against declarations.
const OPTION_TYPES: &[&str] = &[
    "google.protobuf.EnumOptions",
    "google.protobuf.EnumValueOptions",
    "google.protobuf.ExtensionRangeOptions",
    "google.protobuf.FieldOptions",
    "google.protobuf.FileOptions",
    "google.protobuf.MessageOptions",
    "google.protobuf.MethodOptions",
    "google.protobuf.OneofOptions",
    "google.protobuf.ServiceOptions",
];

/// The names of the scalar types, as a declaration's `type` writes them.
const SCALAR_TYPES: &[&str] = &[
    "double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "bytes", "uint32",
    "sfixed32", "sfixed64", "sint32", "sint64",
];

impl Checker<'_> {
    /// The declarations of each extension range of `message` (at `path`).
    pub(super) fn extension_declarations(&mut self, message: &d::DescriptorProto, path: &[i32]) {
        let mut names = HashSet::new();
        for (i, range) in message.extension_range.iter().enumerate() {
            let Some(options) = range.options.as_ref().filter(|o| !o.declaration.is_empty()) else {
                continue;
            };
            let at = [path, &[5, i as i32]].concat();
            if options.verification == Some(VerificationState::Unverified) {
                self.problem(
                    &at,
                    At::Extendee,
                    "Cannot mark the extension range as UNVERIFIED when it has extension(s) declared.",
                );
                return;
            }
            self.range_declarations(range, &options.declaration, &at, &mut names);
        }
    }

    /// One range's declarations; `names` holds the full names declared in
    /// the message's ranges so far.
    fn range_declarations<'d>(
        &mut self,
        range: &d::descriptor_proto::ExtensionRange,
        declarations: &'d [d::extension_range_options::Declaration],
        at: &[i32],
        names: &mut HashSet<&'d str>,
    ) {
        let (start, end) = (range.start.unwrap_or(0), range.end.unwrap_or(0));
        let mut numbers = HashSet::new();
        for declaration in declarations {
            let number = declaration.number.unwrap_or(0);
            if number < start || number >= end {
                let message = format!("Extension declaration number {number} is not in the extension range.");
                self.problem(at, At::Number, message);
            }
            if !numbers.insert(number) {
                let message = format!("Extension declaration number {number} is declared multiple times.");
                self.problem(at, At::Number, message);
            }
            let (Some(name), Some(ty)) = (declaration.full_name.as_deref(), declaration.r#type.as_deref()) else {
                let one_set = declaration.full_name.is_some() != declaration.r#type.is_some();
                if one_set || declaration.reserved != Some(true) {
                    let message =
                        format!("Extension declaration #{number} should have both \"full_name\" and \"type\" set.");
                    self.problem(at, At::Extendee, message);
                }
                continue;
            };
            if !names.insert(name) {
                let message = format!("Extension field name \"{name}\" is declared multiple times.");
                self.problem(at, At::Name, message);
                return;
            }
            if let Some(message) = symbol_error(name) {
                self.problem(at, At::Name, message);
            }
            if let Some(message) = Some(ty).filter(|t| !SCALAR_TYPES.contains(t)).and_then(symbol_error) {
                self.problem(at, At::Name, message);
            }
        }
    }

    /// Extension `field` (at `path`) against the declaration of its number
    /// in its extendee's range, if the range declares any.
    pub(super) fn declared_extension(&mut self, scope: &str, field: &d::FieldDescriptorProto, path: &[i32]) {
        let extendee = field.extendee.as_deref().unwrap_or("").trim_start_matches('.');
        let in_descriptor_proto = self.schema.file_of(extendee) == Some("google/protobuf/descriptor.proto");
        if OPTION_TYPES.contains(&extendee) || in_descriptor_proto {
            return;
        }
        let Some(message) = self.schema.message(extendee) else {
            return;
        };
        let number = field.number.unwrap_or(0);
        let range = message
            .extension_range
            .iter()
            .find(|r| r.start.unwrap_or(0) <= number && number < r.end.unwrap_or(0));
        let Some(options) = range.and_then(|r| r.options.as_ref()) else {
            return;
        };
        let full_name = format!(".{}", crate::symbols::join(scope, field.name.as_deref().unwrap_or("")));
        let Some(declaration) = options.declaration.iter().find(|d| d.number == Some(number)) else {
            if !options.declaration.is_empty() || options.verification == Some(VerificationState::Declaration) {
                let message = format!(
                    "Missing extension declaration for field {} with number {number} in extendee message {extendee}. \
                     An extension range must declare for all extension fields if its verification state is \
                     DECLARATION or there's any declaration in the range already. Otherwise, consider splitting up \
                     the range.",
                    &full_name[1..]
                );
                self.problem(path, At::Extendee, message);
            }
            return;
        };
        if declaration.reserved == Some(true) {
            let message = format!(
                "Cannot use number {number} for extension field {}, as it is reserved in the extension declarations \
                 for message {extendee}.",
                &full_name[1..]
            );
            self.problem(path, At::Extendee, message);
            return;
        }
        self.matches_declaration(field, declaration, extendee, &full_name, path);
    }

    /// The declared type, name and repetition against the extension's.
    fn matches_declaration(
        &mut self,
        field: &d::FieldDescriptorProto,
        declaration: &d::extension_range_options::Declaration,
        extendee: &str,
        full_name: &str,
        path: &[i32],
    ) {
        let number = field.number.unwrap_or(0);
        if let Some(declared) = declaration.r#type.as_deref().filter(|t| !t.is_empty()) {
            let actual = type_name(field);
            let expected = match SCALAR_TYPES.contains(&declared) || declared.starts_with('.') {
                true => declared.to_owned(),
                false => format!(".{declared}"),
            };
            if expected != actual {
                let message = format!(
                    "\"{extendee}\" extension field {number} is expected to be type \"{expected}\", not \"{actual}\"."
                );
                self.problem(path, At::Extendee, message);
            }
        }
        if let Some(declared) = declaration.full_name.as_deref().filter(|n| !n.is_empty()) {
            if declared != full_name {
                let message = format!(
                    "\"{extendee}\" extension field {number} is expected to have field name \"{declared}\", not \
                     \"{full_name}\"."
                );
                self.problem(path, At::Extendee, message);
            }
        }
        let repeated = field.label == Some(Label::Repeated);
        if declaration.repeated.unwrap_or(false) != repeated {
            let expected = if repeated { "optional" } else { "repeated" };
            let message = format!("\"{extendee}\" extension field {number} is expected to be {expected}.");
            self.problem(path, At::Extendee, message);
        }
    }
}

/// A field's type as a declaration names it: the scalar's name, or the
/// message or enum's full name with a leading dot.
fn type_name(field: &d::FieldDescriptorProto) -> String {
    let name = match field.r#type {
        Some(Type::Message | Type::Group | Type::Enum) => return field.type_name.as_deref().unwrap_or("").to_owned(),
        Some(Type::Double) => "double",
        Some(Type::Float) => "float",
        Some(Type::Int64) => "int64",
        Some(Type::Uint64) => "uint64",
        Some(Type::Int32) | None => "int32",
        Some(Type::Fixed64) => "fixed64",
        Some(Type::Fixed32) => "fixed32",
        Some(Type::Bool) => "bool",
        Some(Type::String) => "string",
        Some(Type::Bytes) => "bytes",
        Some(Type::Uint32) => "uint32",
        Some(Type::Sfixed32) => "sfixed32",
        Some(Type::Sfixed64) => "sfixed64",
        Some(Type::Sint32) => "sint32",
        Some(Type::Sint64) => "sint64",
    };
    name.to_owned()
}

/// Why `symbol` is no fully-qualified name (a leading dot, then
/// identifiers separated by dots), if it is not.
fn symbol_error(symbol: &str) -> Option<String> {
    let Some(name) = symbol.strip_prefix('.') else {
        return Some(format!(
            "\"{symbol}\" must have a leading dot to indicate the fully-qualified scope."
        ));
    };
    let identifier = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (!name.split('.').all(identifier)).then(|| format!("\"{symbol}\" contains invalid identifiers."))
}
