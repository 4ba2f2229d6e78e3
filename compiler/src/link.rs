//! Linking a parsed file: type names resolved to full names (`.pkg.Type`),
//! field types set from what the names are, JSON names filled in, default
//! values written as protoc's `CopyTo` writes them, and the `syntax` field
//! normalized the same way.

use std::collections::HashSet;

use fastrs::descriptor as d;
use fastrs::descriptor::field_descriptor_proto::Type;

use crate::symbols::{join, Kind, Symbols, Unresolved};
use crate::text::{shortest_double, shortest_float};

/// Links `file`, whose names may come from the files `visible` (by index).
/// Returns the problems found, in protoc's wording.
pub fn link(file: &mut d::FileDescriptorProto, symbols: &Symbols, visible: &HashSet<usize>) -> Vec<String> {
    let mut linker = Linker {
        symbols,
        visible,
        file_name: file.name.as_deref().unwrap_or("").to_owned(),
        errors: Vec::new(),
    };
    let package = file.package.as_deref().unwrap_or("").to_owned();
    let proto3 = file.syntax.as_deref() == Some("proto3");
    for message in &mut file.message_type {
        linker.message(&package, message, proto3);
    }
    for extension in &mut file.extension {
        linker.extension(&package, extension, proto3);
    }
    for service in &mut file.service {
        linker.service(&package, service);
    }
    for enum_type in &mut file.enum_type {
        check_enum(enum_type, proto3, &mut linker.errors);
    }
    if file.syntax.as_deref() == Some("proto2") {
        // protoc writes no syntax for proto2, written or not.
        file.syntax = None;
    }
    linker.errors
}

struct Linker<'a> {
    symbols: &'a Symbols,
    visible: &'a HashSet<usize>,
    file_name: String,
    errors: Vec<String>,
}

impl Linker<'_> {
    fn message(&mut self, scope: &str, message: &mut d::DescriptorProto, proto3: bool) {
        let name = join(scope, message.name.as_deref().unwrap_or(""));
        for field in &mut message.field {
            self.field(&name, field, proto3);
        }
        for extension in &mut message.extension {
            self.extension(&name, extension, proto3);
        }
        for nested in &mut message.nested_type {
            self.message(&name, nested, proto3);
        }
        for enum_type in &mut message.enum_type {
            check_enum(enum_type, proto3, &mut self.errors);
        }
    }

    fn extension(&mut self, scope: &str, field: &mut d::FieldDescriptorProto, proto3: bool) {
        let full = join(scope, field.name.as_deref().unwrap_or(""));
        if let Some(extendee) = field.extendee.as_deref() {
            if let Some(resolved) = self.message_type(extendee, &full) {
                field.extendee = Some(resolved.into());
            }
        }
        self.field(scope, field, proto3);
    }

    fn service(&mut self, scope: &str, service: &mut d::ServiceDescriptorProto) {
        let name = join(scope, service.name.as_deref().unwrap_or(""));
        for method in &mut service.method {
            let full = join(&name, method.name.as_deref().unwrap_or(""));
            for ty in [&mut method.input_type, &mut method.output_type] {
                if let Some(written) = ty.as_deref() {
                    if let Some(resolved) = self.message_type(written, &full) {
                        *ty = Some(resolved.into());
                    }
                }
            }
        }
    }

    /// The full name (`.pkg.M`) of the message `written` names, seen from
    /// `relative_to`.
    fn message_type(&mut self, written: &str, relative_to: &str) -> Option<String> {
        let (full, kind) = self.resolve(written, relative_to)?;
        if kind != Kind::Message {
            self.errors.push(format!("\"{written}\" is not a message type."));
            return None;
        }
        Some(format!(".{full}"))
    }

    fn resolve(&mut self, written: &str, relative_to: &str) -> Option<(String, Kind)> {
        match self.symbols.resolve(written, relative_to, self.visible, true) {
            Ok((full, symbol)) if symbol.kind == Kind::Message || symbol.kind == Kind::Enum => {
                Some((full, symbol.kind))
            }
            Ok(_) => {
                self.errors.push(format!("\"{written}\" is not a type."));
                None
            }
            Err(why) => {
                self.unresolved(written, why);
                None
            }
        }
    }

    fn unresolved(&mut self, written: &str, why: Unresolved) {
        self.errors.push(match why {
            Unresolved::Missing => format!("\"{written}\" is not defined."),
            Unresolved::InnerScope(full) => format!(
                "\"{written}\" is resolved to \"{full}\", which is not defined. The innermost scope is searched first \
                 in name resolution. Consider using a leading '.'(i.e., \".{written}\") to start from the outermost scope."
            ),
            Unresolved::NotImported(file) => format!(
                "\"{written}\" seems to be defined in \"{}\", which is not imported by \"{}\".  To use it here, please add \
                 the necessary import.",
                self.symbols.file_names[file], self.file_name
            ),
        });
    }

    fn field(&mut self, scope: &str, field: &mut d::FieldDescriptorProto, proto3: bool) {
        let name = field.name.as_deref().unwrap_or("").to_owned();
        let full = join(scope, &name);
        if let Some(written) = field.type_name.as_deref().map(str::to_owned) {
            if let Some((resolved, kind)) = self.resolve(&written, &full) {
                match (field.r#type, kind) {
                    (None, Kind::Message) => field.r#type = Some(Type::Message),
                    (None, _) => field.r#type = Some(Type::Enum),
                    (Some(Type::Group), Kind::Message) => {}
                    _ => self.errors.push(format!("\"{written}\" is not a message type.")),
                }
                field.type_name = Some(format!(".{resolved}").into());
            }
        }
        if field.json_name.is_none() {
            field.json_name = Some(json_name(&name).into());
        }
        if field.default_value.is_some() {
            if proto3 {
                self.errors
                    .push("Explicit default values are not allowed in proto3.".into());
            }
            self.default_value(field);
        }
    }

    /// The default as `CopyTo` writes it for the field's type.
    fn default_value(&mut self, field: &mut d::FieldDescriptorProto) {
        let Some(text) = field.default_value.as_deref() else {
            return;
        };
        let normalized = match field.r#type {
            Some(Type::Float) => shortest_float(text.parse::<f64>().unwrap_or(f64::NAN) as f32),
            Some(Type::Double) => shortest_double(text.parse::<f64>().unwrap_or(f64::NAN)),
            Some(Type::Enum) => {
                let type_name = field.type_name.as_deref().unwrap_or("");
                let values = self
                    .symbols
                    .get(type_name.trim_start_matches('.'))
                    .and_then(|s| s.values.clone());
                if !values.is_some_and(|values| values.iter().any(|(name, _)| name == text)) {
                    self.errors
                        .push(format!("Enum type \"{type_name}\" has no value named \"{text}\"."));
                }
                return;
            }
            Some(Type::Message | Type::Group) => {
                self.errors.push("Messages can't have default values.".into());
                return;
            }
            _ => return,
        };
        field.default_value = Some(normalized.into());
    }
}

/// Proto3 enums must start at 0.
fn check_enum(enum_type: &d::EnumDescriptorProto, proto3: bool, errors: &mut Vec<String>) {
    if proto3 && enum_type.value.first().is_some_and(|v| v.number != Some(0)) {
        errors.push("The first enum value must be zero for open enums.".into());
    }
}

/// protoc's default JSON name: `foo_bar` → `fooBar`.
pub fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut capitalize = false;
    for c in name.chars() {
        if c == '_' {
            capitalize = true;
        } else if capitalize {
            out.push(c.to_ascii_uppercase());
            capitalize = false;
        } else {
            out.push(c);
        }
    }
    out
}
